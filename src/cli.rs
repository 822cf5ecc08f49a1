//! Every command-line flag of agentguard, in one place.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use crate::hosts::{HookCall, HookEvent, Host, Scope};
pub use crate::launch::AgentCli;

#[derive(Debug, Parser)]
#[command(
    name = "agentguard",
    version,
    about = "Watches autonomous coding agents (Claude Code, Codex CLI) through their hooks",
    long_about = "Watches autonomous coding agents (Claude Code, Codex CLI) through their hooks.\n\n\
        At every Stop a two-layer judge (regex, then an LLM only on a hit) reads the agent's final \
        words for unverified commit/push/deploy proposals, session splitting, deferred scope and \
        fixes without a root cause or reproduction. At every PreToolUse, read-only roles are \
        enforced and dangerous commands are gated.\n\n\
        Exit codes: 0 ok, 1 found (violation, secret, unhealthy), 2 usage or configuration error, 3 judge could not judge."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The hook command lines the installer writes (`hook stop|pre-tool [--host H]`), parsed
    /// without clap: hooks run on every agent stop and tool call, and building the whole
    /// command-line definition costs about as much as the rest of a hook's start-up. Any
    /// other form (`--help`, a typo, another command) returns None and goes through clap;
    /// a unit test holds the two parses to the same result.
    pub fn parse_hook_line(args: &[std::ffi::OsString]) -> Option<HookCommand> {
        let args: Vec<&str> = args
            .iter()
            .skip(1)
            .map(|a| a.to_str())
            .collect::<Option<_>>()?;
        let (call, host) = crate::hosts::command::parse_args(&args)?;
        let args = HookArgs { host };
        Some(match call {
            HookCall::Stop => HookCommand::Stop(args),
            HookCall::PreTool => HookCommand::PreTool(args),
        })
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Add agentguard's hooks to Claude Code or Codex settings
    Install(InstallArgs),
    /// Remove agentguard's hooks, and nothing else (--purge: also agentguard's own files)
    Uninstall(UninstallArgs),
    /// Hook entry points, called by the agent host
    #[command(subcommand)]
    Hook(HookCommand),
    /// Run the detectors on a text (file or stdin)
    Judge(JudgeArgs),
    /// Replace secrets in a text with [REDACTED:<kind>]
    Redact(RedactArgs),
    /// Show, measure and replay logged decisions
    Logs(LogsArgs),
    /// Check everything a failure could hide behind
    Doctor(DoctorArgs),
    /// Read and edit the configuration
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Start an agent CLI as a read-only reviewer
    Launch(LaunchArgs),
    /// Let a project's .agentguard.toml loosen settings (after you reviewed it)
    Trust(TrustArgs),
    /// Print shell completions, or the man page
    Completions(CompletionsArgs),
    /// Update agentguard from its releases
    SelfUpdate(SelfUpdateArgs),
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Which agent host to configure
    #[arg(long, value_enum, default_value = "claude")]
    pub host: Host,
    /// Which settings file to edit
    #[arg(long, value_enum, default_value = "user")]
    pub scope: Scope,
    /// Hook events to install
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "stop,subagent-stop,pre-tool"
    )]
    pub events: Vec<HookEvent>,
    /// Print the change as a unified diff and write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Do not ask for confirmation
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Project directory for the project and local scopes (default: current directory)
    #[arg(long)]
    pub project_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub target: InstallArgs,
    /// Also remove agentguard's own files: its config, state (loop guard, trust store),
    /// decision logs and the settings backups it wrote; lists them first and asks unless --yes
    #[arg(long)]
    pub purge: bool,
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Stop and SubagentStop: judge the agent's final words
    Stop(HookArgs),
    /// PreToolUse: enforce read-only roles and gate dangerous commands
    PreTool(HookArgs),
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// The host calling the hook (decides the output protocol)
    #[arg(long, value_enum, default_value = "claude")]
    pub host: Host,
}

#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// Text to judge; `-` or nothing reads stdin. With --transcript: the final message (the
    /// Stop hook's `last_assistant_message`), optional
    pub file: Option<PathBuf>,
    /// Judge a stop as the hook would: the current turn's text and tool calls from this
    /// Claude Code transcript or Codex rollout
    #[arg(long, value_name = "JSONL", conflicts_with = "eval")]
    pub transcript: Option<PathBuf>,
    /// Only run this detector (repeatable)
    #[arg(long = "detector", short = 'd')]
    pub detectors: Vec<String>,
    /// Judge backend (auto, rules, command, codex, claude, openai, anthropic)
    #[arg(long, short = 'b')]
    pub backend: Option<String>,
    /// Print one JSON object instead of a table
    #[arg(long)]
    pub json: bool,
    /// Measure the detectors on a labeled JSONL set instead (the repo's
    /// tests/corpus/messages.jsonl, or `agentguard logs export --labeled`)
    #[arg(long, value_name = "LABELED_JSONL", conflicts_with = "file")]
    pub eval: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RedactArgs {
    /// Text to redact; `-` or nothing reads stdin
    pub file: Option<PathBuf>,
    /// Print the counts per kind as JSON on stderr
    #[arg(long)]
    pub json: bool,
    /// Exit 1 when anything was redacted
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "Without --since, the newest 50 matching decisions are listed, oldest first. \
    Dates and day files are UTC. The log is in ~/.local/share/agentguard/logs on Linux, or \
    `[log] dir`. Labels go to labels.jsonl next to the day files."
)]
pub struct LogsArgs {
    #[command(subcommand)]
    pub command: Option<LogsCommand>,
    #[command(flatten)]
    pub filter: LogFilter,
    /// One JSON record per line
    #[arg(long)]
    pub json: bool,
    /// Keep printing new decisions as they are logged
    #[arg(long, short = 'f')]
    pub follow: bool,
}

#[derive(Debug, Args, Default, Clone)]
pub struct LogFilter {
    /// Only decisions newer than this: 2h, 3d, 45m or a date (2026-11-29)
    #[arg(long)]
    pub since: Option<String>,
    /// Only this detector
    #[arg(long)]
    pub detector: Option<String>,
    /// Only this verdict (violation, allow, fail, skip, miss)
    #[arg(long)]
    pub verdict: Option<String>,
    /// Only this session id
    #[arg(long)]
    pub session: Option<String>,
    /// Only decisions made in this working directory
    #[arg(long)]
    pub cwd: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum LogsCommand {
    /// One decision in full
    Show {
        /// The decision's id, or a unique prefix of it
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Figures per detector and per day
    Stats {
        #[arg(long)]
        since: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Re-judge logged texts with today's config and show changed verdicts
    Replay {
        #[command(flatten)]
        filter: LogFilter,
        /// Judge backend for the replay
        #[arg(long)]
        backend: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Label a decision right or wrong
    Label {
        /// The decision's id, or a unique prefix of it
        id: String,
        /// Whether the judge's verdict was right
        label: LabelValue,
        /// Why, in a few words (exported with the example)
        #[arg(long)]
        note: Option<String>,
        /// With `wrong`: on a block, the detector(s) that were wrong to block (default: all);
        /// on an allow, the detector(s) that should have blocked (default: the one whose
        /// Layer 1 matched)
        #[arg(long = "detector", short = 'd')]
        detectors: Vec<String>,
    },
    /// Write decisions as JSONL
    Export {
        /// Only labeled decisions, in the evaluation-set format
        #[arg(long)]
        labeled: bool,
        #[command(flatten)]
        filter: LogFilter,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LabelValue {
    Right,
    Wrong,
}

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The project directory (its nearest .agentguard.toml at or above it); default: the
    /// current directory
    pub dir: Option<PathBuf>,
    /// List the trusted files and whether each is still trusted as it is now
    #[arg(long, conflicts_with_all = ["revoke", "dir"])]
    pub list: bool,
    /// Forget the trust of the file (it applies only where it tightens again)
    #[arg(long)]
    pub revoke: bool,
    /// Trust without asking (for scripts): review the file first
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Machine-readable output (with --list)
    #[arg(long, requires = "list")]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Machine-readable report
    #[arg(long)]
    pub json: bool,
    /// Send a tiny known text through the configured judge backend
    #[arg(long)]
    pub probe: bool,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the path of every config file, and whether it exists
    Path,
    /// Print the effective configuration (defaults, user, project, env merged)
    Show {
        #[arg(long)]
        json: bool,
    },
    /// Write a commented default config to the user config file
    Init {
        /// Overwrite an existing file
        #[arg(long)]
        force: bool,
    },
    /// Print one value by dotted key (judge.backend)
    Get { key: String },
    /// Set one value in the user config file, keeping comments and layout
    Set {
        key: String,
        value: String,
        /// Edit the project's .agentguard.toml instead
        #[arg(long)]
        project: bool,
    },
}

#[derive(Debug, Args)]
pub struct LaunchArgs {
    /// Start the CLI so that it cannot write
    #[arg(long, required = true)]
    pub read_only: bool,
    /// The agent CLI to start
    #[arg(value_enum)]
    pub cli: AgentCli,
    /// Print the argv instead of running it
    #[arg(long)]
    pub print: bool,
    /// Print the argv and environment as JSON instead of running it
    #[arg(long)]
    pub json: bool,
    /// Arguments for the CLI, after `--`
    #[arg(last = true)]
    pub args: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionTarget {
    Bash,
    Zsh,
    Fish,
    Powershell,
    Elvish,
    /// The man page (roff)
    Man,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    #[arg(value_enum)]
    pub shell: CompletionTarget,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Downloads agentguard-<version>-<target>.tar.gz from the newest GitHub \
    release and installs it only if it matches the release's SHA256SUMS.\n\
    Environment: AGENTGUARD_UPDATE_REPO (owner/name, default agentguard/agentguard), \
    AGENTGUARD_UPDATE_API_URL (default https://api.github.com), GH_TOKEN / GITHUB_TOKEN.\n\
    Exit codes: 0 updated or up to date, 1 a newer release exists (--check), 2 error."
)]
pub struct SelfUpdateArgs {
    /// Only say whether a newer release exists (exit 1 if one does, 0 if up to date)
    #[arg(long)]
    pub check: bool,
    /// Do not ask for confirmation
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<std::ffi::OsString> {
        std::iter::once("agentguard")
            .chain(line.split(' ').filter(|a| !a.is_empty()))
            .map(Into::into)
            .collect()
    }

    #[test]
    fn hook_lines_parse_as_clap_parses_them() {
        for line in [
            "hook stop",
            "hook stop --host claude",
            "hook stop --host codex",
            "hook pre-tool --host codex",
            "hook pre-tool --host=codex",
            "hook pre-tool",
        ] {
            let fast = Cli::parse_hook_line(&args(line)).expect(line);
            let clap = match Cli::try_parse_from(args(line)).unwrap().command {
                Command::Hook(hook) => hook,
                other => panic!("{line}: clap parsed {other:?}"),
            };
            assert_eq!(format!("{fast:?}"), format!("{clap:?}"), "{line}");
        }
    }

    #[test]
    fn other_lines_are_left_to_clap() {
        for line in [
            "hook",
            "hook --help",
            "hook stop --help",
            "hook stop --host",
            "hook stop --host gemini",
            "hook stop --host claude --host codex",
            "hook stp",
            "judge hook stop",
            "",
        ] {
            assert!(Cli::parse_hook_line(&args(line)).is_none(), "{line}");
        }
    }
}
