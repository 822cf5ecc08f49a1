//! `agentguard launch --read-only <cli> [--print|--json] -- ARGS`: start an agent CLI as a
//! read-only reviewer. Reads the CLI's `--help` once, lets the core merge the flags, then prints
//! or execs the result.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::backends::{BackendError, process};
use crate::cli::LaunchArgs;
use crate::error::{Error, ErrorKind, Result, exit};
use crate::launch::{self, Launch};

/// A CLI whose `--help` takes longer than this is treated as broken.
const HELP_DEADLINE: Duration = Duration::from_secs(30);

pub fn run(args: LaunchArgs) -> Result<u8> {
    if args.print && args.json {
        return Err(Error::usage("--print and --json exclude each other")
            .with_hint("--print gives one shell line, --json the argv, env and notes"));
    }
    let name = launch::program(args.cli);
    let found = crate::backends::find_in_path(name);
    let help = match &found {
        Some(path) => read_help(path)?,
        None if args.print || args.json => {
            // Only printing: show the command for the pinned version, and say it is unchecked.
            let (version, help) = launch::pinned_help(args.cli);
            eprintln!(
                "agentguard: note: `{name}` is not on PATH, so its flags could not be checked \
                 against its --help; this is the command for {name} {version} (the version \
                 agentguard was tested with); check it against your {name} before you run it"
            );
            help.to_string()
        }
        None => {
            return Err(Error::new(
                ErrorKind::Unavailable,
                format!("`{name}` was not found on PATH"),
            )
            .with_hint(format!(
                "install {name}, or put the directory holding it on PATH (--print shows the \
                 command without it)"
            )));
        }
    };
    let launch = launch::plan(args.cli, &args.args, &help, |var| std::env::var(var).ok())?;
    for note in &launch.notes {
        eprintln!("agentguard: note: {note}");
    }
    if args.json {
        print_json(&launch)?;
    } else if args.print {
        print_shell(&launch)?;
    } else if let Some(path) = found {
        // exec only returns on failure.
        let err = Command::new(&path)
            .arg0(name)
            .args(&launch.args)
            .envs(launch.env)
            .exec();
        return Err(Error::io(format!("cannot start {}: {err}", path.display())));
    }
    Ok(exit::OK)
}

/// `{"argv":[...],"env":{...},"notes":[...]}` on one line.
fn print_json(launch: &Launch) -> Result<()> {
    let env: serde_json::Map<String, serde_json::Value> = launch
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.clone().into()))
        .collect();
    let report = serde_json::json!({ "argv": launch.argv(), "env": env, "notes": launch.notes });
    writeln!(std::io::stdout().lock(), "{report}")?;
    Ok(())
}

/// One shell line that runs the launch: `VAR=value ... program args...`, every word quoted.
fn print_shell(launch: &Launch) -> Result<()> {
    let assignments = launch
        .env
        .iter()
        .map(|(k, v)| Ok(format!("{k}={}", shell_word(v)?)));
    let argv = launch.argv().into_iter().map(|word| shell_word(&word));
    let words: Vec<String> = assignments.chain(argv).collect::<Result<_>>()?;
    writeln!(std::io::stdout().lock(), "{}", words.join(" "))?;
    Ok(())
}

/// A word quoted for the shell. A word with a newline or another control character (the rule
/// is a paragraph) gets ANSI-C quoting, `$'...'` (bash, zsh, ksh, POSIX.1-2024 sh), so the
/// command stays on one line.
fn shell_word(word: &str) -> Result<String> {
    if word.contains('\0') {
        return Err(Error::usage(
            "an argument contains a NUL byte, which no shell line can carry",
        ));
    }
    if !word.chars().any(char::is_control) {
        return shlex::try_quote(word)
            .map(String::from)
            .map_err(|_| Error::usage("an argument cannot be quoted for the shell"));
    }
    let mut quoted = String::from("$'");
    for c in word.chars() {
        match c {
            '\\' => quoted.push_str("\\\\"),
            '\'' => quoted.push_str("\\'"),
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            '\r' => quoted.push_str("\\r"),
            c if (c as u32) < 0x80 && c.is_control() => {
                quoted.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if c.is_control() => quoted.push_str(&format!("\\u{:04x}", c as u32)),
            c => quoted.push(c),
        }
    }
    quoted.push('\'');
    Ok(quoted)
}

/// Runs `<cli> --help` through the judges' subprocess runner (stdin closed, its own process
/// group, killed with everything it started at the deadline) and returns stdout and stderr
/// together: opencode prints its help on stderr, codex a warning there.
fn read_help(path: &Path) -> Result<String> {
    let argv = [path.display().to_string(), "--help".to_string()];
    let deadline = Instant::now() + HELP_DEADLINE;
    let output = process::run(&argv, None, Path::new("."), deadline).map_err(|err| {
        let message = match err {
            BackendError::Timeout => format!(
                "{} --help did not finish within {} s",
                path.display(),
                HELP_DEADLINE.as_secs()
            ),
            BackendError::Spawn(why) => format!("cannot run {} --help: {why}", path.display()),
            // Every supported CLI exits 0 on --help; one that does not is not one we know.
            BackendError::Exit { code, stderr } => {
                let status = code.map_or("was killed by a signal".to_string(), |code| {
                    format!("exited with status {code}")
                });
                let said = if stderr.is_empty() {
                    String::new()
                } else {
                    format!(": {stderr}")
                };
                format!("{} --help {status}{said}", path.display())
            }
            other => format!("{} --help failed: {other}", path.display()),
        };
        Error::io(message)
            .with_hint("check that the CLI starts at all: run it with --help yourself")
    })?;
    let help = format!("{}\n{}\n", output.stdout, output.stderr);
    if help.trim().is_empty() {
        return Err(
            Error::io(format!("{} --help printed nothing", path.display()))
                .with_hint("check that the CLI starts at all: run it with --help yourself"),
        );
    }
    Ok(help)
}
