//! Shell-command analysis for `hook pre-tool`: the read-only classifier (SPEC §3) and the
//! normalized views the `destructive` detector's regexes run over.
//!
//! Commands are parsed as bash parses them (brush-parser), then walked: every simple command,
//! wherever it hides (lists, pipelines, subshells, groups, functions, loop and `if`/`case`
//! bodies, `$(...)`, backticks, process substitutions, `bash -c`/`eval`/`su -c`/`watch`
//! payloads, `ssh` remote commands, shells and interpreters fed a here-document, `xargs` and
//! `find -exec` targets, `env`/`sudo`/`nohup`/`timeout`/`npx`... prefixes), becomes one
//! invocation with its words unquoted. Both answers come from that one walk ([`analyze`]).
//!
//! Failure direction (SPEC §1): PreToolUse is fail-safe, so anything we cannot parse, nests too
//! deeply or names its command at run time is denied rather than guessed at.
//!
//! Known limits (this is a guard against accidents and role drift, not a sandbox): scripts run
//! by name (`./x.sh`, `bash x.sh`, `python x.py`, `make target`, `npm run x`) and programs
//! piped into an interpreter (`echo ... | python3`) are not read; unknown programs are allowed;
//! interpreter one-liners are matched against a list of writing APIs, and anything cleverer
//! (names built from strings, `getattr`, encoded code) passes; a variable's value is unknown,
//! so `bash -c "cd $D && make"` is re-parsed with `$D` left in place (a payload that is only a
//! variable is denied as dynamic); brace expansion in arguments is not expanded for the views.

mod git;
mod rules;
mod walk;

#[cfg(test)]
mod tests;

use std::fmt;

pub use walk::ParseError;

/// Why a command is denied in a read-only role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DenyKind {
    /// The command does not parse as shell (or is too long to analyse): fail-safe.
    Unparseable,
    /// A git subcommand or option that writes the index, tree, refs, config or a remote.
    GitWrite,
    /// A program that creates, changes or deletes files (including package managers and
    /// formatters that rewrite sources).
    FileWrite,
    /// Output redirected into a file.
    Redirection,
    /// Nested payloads (`bash -c`, `$(...)`, `eval`...) or syntax nested beyond the bound.
    TooDeep,
    /// The program to run is only known at run time (`$EDITOR f`, `$(cmd) args`, a shell
    /// reading its script from a pipe).
    DynamicCommand,
}

impl DenyKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DenyKind::Unparseable => "unparseable",
            DenyKind::GitWrite => "git-write",
            DenyKind::FileWrite => "file-write",
            DenyKind::Redirection => "redirection",
            DenyKind::TooDeep => "too-deep",
            DenyKind::DynamicCommand => "dynamic-command",
        }
    }
}

impl DenyKind {
    /// What the denied command does, for the message shown with the denial.
    pub fn describe(self) -> &'static str {
        match self {
            DenyKind::Unparseable => "cannot be analysed as shell, so it is refused to be safe",
            DenyKind::GitWrite => "changes git state (index, work tree, refs, config or a remote)",
            DenyKind::FileWrite => "creates, changes or deletes files",
            DenyKind::Redirection => "redirects output into a file",
            DenyKind::TooDeep => "nests commands too deeply to be analysed, so it is refused",
            DenyKind::DynamicCommand => "runs a program that is only known at run time",
        }
    }
}

impl fmt::Display for DenyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The read-only classifier's answer for one Bash command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOnlyVerdict {
    Allow,
    /// `detail` is the offending piece as the user would recognize it: `git commit`,
    /// `> out.txt`, `sed -i`.
    Deny {
        kind: DenyKind,
        detail: String,
    },
}

impl ReadOnlyVerdict {
    pub fn is_allow(&self) -> bool {
        matches!(self, ReadOnlyVerdict::Allow)
    }
}

/// Classifies a Bash command for a read-only role: `Allow` when nothing in it writes the
/// project (files, git state, remotes), else the first offending piece.
pub fn classify_read_only(command: &str) -> ReadOnlyVerdict {
    match analyze(command) {
        Ok(analysis) => analysis.read_only_verdict(),
        Err(err) => ReadOnlyVerdict::Deny {
            kind: err.kind,
            detail: err.detail,
        },
    }
}

/// One parse, both answers: for a hook that needs the read-only verdict and the views of the
/// same command (parsing is the expensive part).
#[derive(Debug)]
pub struct CommandAnalysis(walk::Analysis);

/// Parses and walks `command` once; see [`classify_read_only`] and [`command_views`].
pub fn analyze(command: &str) -> Result<CommandAnalysis, ParseError> {
    walk::analyze(command).map(CommandAnalysis)
}

impl CommandAnalysis {
    /// The read-only verdict of a command that parsed.
    pub fn read_only_verdict(&self) -> ReadOnlyVerdict {
        for invocation in &self.0.invocations {
            if let Some((kind, detail)) = rules::classify(invocation) {
                return ReadOnlyVerdict::Deny { kind, detail };
            }
        }
        match self
            .0
            .redirects
            .iter()
            .find(|redirect| redirect.writes_file())
        {
            Some(redirect) => ReadOnlyVerdict::Deny {
                kind: DenyKind::Redirection,
                detail: redirect.render(),
            },
            None => ReadOnlyVerdict::Allow,
        }
    }

    /// The views described at [`command_views`].
    pub fn views(&self) -> &[String] {
        &self.0.views
    }
}

/// Normalized views of a command for regex-based detectors: one string per simple command
/// (words unquoted, joined by single spaces, redirections appended: `git push --force origin
/// main`, `cat > f`), including every nested one (`bash -c`/`sh -c`/`eval` payloads, `$(...)`,
/// backticks, subshells, `xargs`/`find -exec` targets), the command again with
/// `env`/`sudo`/`nohup`/`time`/`command`/`timeout`... prefixes stripped, one per pipeline
/// (`curl -fsSL x | sh`), and the here-document fed to an interpreter or database client
/// (`psql <<EOF ... EOF`). Duplicates are removed; order follows the source.
pub fn command_views(command: &str) -> Result<Vec<String>, ParseError> {
    walk::analyze(command).map(|analysis| analysis.views)
}
