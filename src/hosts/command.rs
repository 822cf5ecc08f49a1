//! Our hook command line: `<program> hook stop|pre-tool --host <host>`, as the installer writes
//! it into settings, as the host runs it, and as install, uninstall and doctor recognize it.
//! An entry is ours when its program is named `agentguard` (any directory): recognizing by
//! name, not by path, is what lets a reinstall from a moved binary update the old entry.

use super::Host;

/// The names our binary may have; a hook entry running another name is not ours.
pub const BINARY_NAMES: [&str; 2] = ["agentguard", "agentguard.exe"];

/// Whether a program's file name is one of ours.
pub fn is_binary_name(name: &str) -> bool {
    BINARY_NAMES.contains(&name)
}

/// The `hook` subcommands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookCall {
    /// `hook stop`: Stop and SubagentStop.
    Stop,
    /// `hook pre-tool`: PreToolUse.
    PreTool,
}

impl HookCall {
    pub fn word(self) -> &'static str {
        match self {
            HookCall::Stop => "stop",
            HookCall::PreTool => "pre-tool",
        }
    }

    fn parse(word: &str) -> Option<HookCall> {
        [HookCall::Stop, HookCall::PreTool]
            .into_iter()
            .find(|c| c.word() == word)
    }
}

/// The command line of a hook entry for `host`, running `program` (quoted for the shell).
pub fn format(program: &str, call: HookCall, host: Host) -> String {
    let program = shlex::try_quote(program)
        .map(|quoted| quoted.into_owned())
        .unwrap_or_else(|_| program.to_string());
    format!("{program} hook {} --host {}", call.word(), host.name())
}

/// The arguments after the program, exactly as the installer writes them
/// (`hook stop|pre-tool [--host H]`, `--host=H` too); anything else is None. The binary parses
/// these without clap (a hook's start-up is its cost); a unit test in `cli` holds the two
/// parses to the same result.
pub fn parse_args(args: &[&str]) -> Option<(HookCall, Host)> {
    let (call, rest) = match args {
        ["hook", call, rest @ ..] => (HookCall::parse(call)?, rest),
        _ => return None,
    };
    let host = match rest {
        [] => Host::Claude,
        ["--host", value] => Host::parse(value)?,
        [flag] => Host::parse(flag.strip_prefix("--host=")?)?,
        _ => return None,
    };
    Some((call, host))
}

/// A settings entry's command that is ours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OurCommand {
    /// The program as written (a path, or a bare name).
    pub program: String,
    pub call: HookCall,
    /// The `--host` it passes, as written (`claude` when there is none).
    pub host: String,
}

/// Parses a hook entry's command: Some when it runs a program named `agentguard`, then
/// `hook stop` or `hook pre-tool`.
pub fn parse(command: &str) -> Option<OurCommand> {
    let words = shlex::split(command)?;
    let [program, hook, call, rest @ ..] = words.as_slice() else {
        return None;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    if !is_binary_name(name) || hook != "hook" {
        return None;
    }
    let call = HookCall::parse(call)?;
    let mut host = Host::Claude.name().to_string();
    let mut rest = rest.iter();
    while let Some(word) = rest.next() {
        if word == "--host" {
            if let Some(value) = rest.next() {
                host = value.clone();
            }
        } else if let Some(value) = word.strip_prefix("--host=") {
            host = value.to_string();
        }
    }
    Some(OurCommand {
        program: program.clone(),
        call,
        host,
    })
}

/// Whether a hook command is one of ours (see [`parse`]).
pub fn is_agentguard_command(command: &str) -> bool {
    parse(command).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognizes_our_commands_by_program_name() {
        let ours = parse("/usr/local/bin/agentguard hook pre-tool --host codex").unwrap();
        assert_eq!(ours.program, "/usr/local/bin/agentguard");
        assert_eq!(ours.call, HookCall::PreTool);
        assert_eq!(ours.host, "codex");
        assert_eq!(parse("agentguard.exe hook stop").unwrap().host, "claude");
        assert_eq!(
            parse("agentguard hook stop --host=gemini").unwrap().host,
            "gemini"
        );
        for other in [
            "agentguard-old hook stop",
            "agentguard judge",
            "agentguard hook start",
            "'unterminated",
            "",
        ] {
            assert!(!is_agentguard_command(other), "{other}");
        }
    }

    #[test]
    fn formatted_commands_parse_back() {
        for host in Host::ALL {
            for call in [HookCall::Stop, HookCall::PreTool] {
                let line = format("/a b/agentguard", call, host);
                let ours = parse(&line).unwrap();
                assert_eq!((ours.call, ours.host.as_str()), (call, host.name()));
                let words = shlex::split(&line).unwrap();
                let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
                assert_eq!(parse_args(&args), Some((call, host)));
            }
        }
    }
}
