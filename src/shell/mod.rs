//! Shell-command analysis for `hook pre-tool`: one analysis of every simple command, and the
//! two policies that read it through the same program specs (`assets/programs/`): the
//! dangerous-command gate (SPEC §8, [`CommandAnalysis::dangerous`]) and the read-only
//! allowlist (SPEC §3, [`CommandAnalysis::read_only`]).
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
//! by name (`./x.sh`, `bash x.sh`, `python x.py`, `make target`, `npm run x`) are not read;
//! the gate reads interpreter one-liners for deleting APIs and the commands they hand to
//! `system`/`exec`, and anything cleverer (names built from strings, encoded code) passes; a
//! variable's value is known only when assigned earlier in the same command line; brace
//! expansion in arguments is not expanded.

mod dangerous;
mod git;
mod places;
mod programs;
mod readonly;
mod rules;
// The schema build.rs reads; the crate itself uses `Effect`, its tests the rest.
#[cfg_attr(not(test), allow(dead_code))]
mod spec;
mod walk;

#[cfg(test)]
mod tests;

use std::fmt;

pub use walk::{ParseError, TIME_BUDGET, is_short_and_flat};

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
    /// A program the specs do not describe: not known to only read.
    UnknownProgram,
    /// Inline code or an interactive interpreter (`python -c`, `node -e`, a bare `python3`).
    RunsCode,
    /// A variable assignment or export that can make a reader run a program or write
    /// (`GIT_EXTERNAL_DIFF=...`, `LD_PRELOAD=...`, `PAGER=...`).
    Environment,
    /// Changes state outside the files: packages, services, cloud resources.
    StateChange,
    /// Held by the dangerous-command gate (SPEC §8).
    Destructive,
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
            DenyKind::UnknownProgram => "unknown-program",
            DenyKind::RunsCode => "runs-code",
            DenyKind::Environment => "environment",
            DenyKind::StateChange => "state-change",
            DenyKind::Destructive => "destructive",
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
            DenyKind::UnknownProgram => {
                "is not a program agentguard knows to only read (read-only is an allowlist)"
            }
            DenyKind::RunsCode => "runs code given inline or typed into an interactive session",
            DenyKind::Environment => "sets a variable that can make a reading program run code",
            DenyKind::StateChange => "changes state (packages, services, remote resources)",
            DenyKind::Destructive => "is held as destructive by the dangerous-command gate",
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

pub use dangerous::Hold;

/// Classifies a Bash command for a read-only role: `Allow` when every simple command in it is
/// known to only read (or build and test), else the first offending piece.
pub fn classify_read_only(command: &str) -> ReadOnlyVerdict {
    match analyze(command) {
        Ok(analysis) => analysis.read_only(),
        Err(err) => ReadOnlyVerdict::Deny {
            kind: err.kind,
            detail: err.detail,
        },
    }
}

/// The dangerous gate's answer for a Bash command: the rule that holds it, if any. A command
/// that cannot be analysed is held (fail-safe).
pub fn dangerous(command: &str) -> Option<Hold> {
    match analyze(command) {
        Ok(analysis) => analysis.dangerous(),
        Err(err) => Some(unanalysable(&err)),
    }
}

/// The hold for a command the analysis refused.
pub fn unanalysable(err: &ParseError) -> Hold {
    Hold {
        rule: format!("shell.{}", err.kind.as_str()),
        message: format!("this command {} ({})", err.kind.describe(), err.detail),
        safer: "split it into plain commands that can be checked one by one".to_string(),
    }
}

/// One parse, both answers. The gate's answer is computed once: the read-only verdict
/// includes it, and `hook pre-tool` asks for it again after that verdict.
#[derive(Debug)]
pub struct CommandAnalysis(walk::Analysis, std::cell::OnceCell<Option<Hold>>);

/// Parses and walks `command` once.
pub fn analyze(command: &str) -> Result<CommandAnalysis, ParseError> {
    walk::analyze(command).map(|analysis| CommandAnalysis(analysis, std::cell::OnceCell::new()))
}

impl CommandAnalysis {
    /// The read-only verdict of a command that parsed (SPEC §3).
    pub fn read_only(&self) -> ReadOnlyVerdict {
        readonly::verdict(&self.0, || self.dangerous())
    }

    /// The dangerous gate's hold of a command that parsed (SPEC §8).
    pub fn dangerous(&self) -> Option<Hold> {
        self.1.get_or_init(|| dangerous::gate(&self.0)).clone()
    }

    /// Every simple command (nested and wrapped ones included) as its words joined by single
    /// spaces: what the evidence's runner table matches (`echo "cargo test"` is `echo cargo
    /// test`, no test run).
    pub fn simple_commands(&self) -> Vec<String> {
        self.0
            .invocations
            .iter()
            .filter(|invocation| !invocation.argv.is_empty())
            .map(|invocation| invocation.argv.join(" "))
            .collect()
    }

    /// What this command may write, for the guard of agentguard's own files
    /// (`crate::protected`), each relative path as seen from the hook's working directory
    /// (`cd ~/.claude; echo x > settings.json` writes `~/.claude/settings.json`): the targets
    /// of redirections into files, and for each simple command not known to only read what
    /// its spec says it writes (the destination of `cp`, the `-C` directory of `tar`), or,
    /// without that knowledge, every argument and here-document (a writer such as `tee` or
    /// `sed -i`, an unknown program, an interpreter running inline code). Each only once.
    pub fn writes(&self) -> Vec<Write> {
        let mut writes = Vec::new();
        let mut add = |write: Write| {
            if !writes.contains(&write) {
                writes.push(write);
            }
        };
        for redirect in self.0.redirects.iter().filter(|r| r.writes_file()) {
            add(Write::Path(
                places::from_hook_dir(&redirect.target, &redirect.cwd).into_owned(),
            ));
        }
        for invocation in &self.0.invocations {
            if readonly::invocation_verdict(invocation).is_none() {
                continue;
            }
            let from_here = |word: &str| places::from_hook_dir(word, &invocation.cwd).into_owned();
            // Code and here-documents name paths inside them, relative to where they run.
            let dir = places::dir_prefix(&invocation.cwd).filter(|dir| !dir.is_empty());
            let text_in = |text: &str| {
                dir.as_ref().map(|dir| Write::TextIn {
                    text: text.to_string(),
                    dir: dir.clone(),
                })
            };
            if let Some(text) = &invocation.stdin_text {
                add(Write::Text(text.clone()));
                text_in(text).into_iter().for_each(&mut add);
            }
            match invocation
                .parsed()
                .and_then(|parsed| spec_writes(parsed, invocation))
            {
                Some(spec_writes) => spec_writes.into_iter().for_each(&mut add),
                None => {
                    let words: Vec<String> = invocation
                        .argv
                        .iter()
                        .skip(1)
                        .map(|w| from_here(w))
                        .collect();
                    for word in &words {
                        add(Write::Text(word.clone()));
                        if word.contains(char::is_whitespace) {
                            text_in(word).into_iter().for_each(&mut add);
                        }
                    }
                    if words.len() > 1 {
                        add(Write::Arguments(words));
                    }
                }
            }
        }
        writes
    }
}

/// What may be written by a command that writes (see [`CommandAnalysis::writes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write {
    /// A path the command writes.
    Path(String),
    /// A word or text that may name written paths anywhere in it: an argument of a program
    /// whose spec does not say what it writes (`--output=PATH`, inline code), a here-document.
    Text(String),
    /// Such a text run in a directory a `cd` changed to (`dir`, ending in `/`): its relative
    /// paths are under `dir` (`cd ~/.claude && python3 -c "open('settings.json', 'w')"`).
    TextIn { text: String, dir: String },
    /// A directory the command writes entries into: named after `sources` (`cp -t DIR a b`,
    /// `cp a b DIR/`), or not named at all with `unknown_entries` (an archive's). `is_dir`:
    /// known to be a directory (an option names it so); else only if it is one.
    Into {
        dir: String,
        is_dir: bool,
        sources: Vec<String>,
        unknown_entries: bool,
    },
    /// All the arguments of such a program: one of them may be a directory the others land
    /// in (`mv agentguard ~/.config/`).
    Arguments(Vec<String>),
}

/// What `parsed` (a command not known to only read) writes by its spec's `written`,
/// `target_directory_options`, `written_options` and `unknown_entries`; None when the spec
/// says every argument.
fn spec_writes(parsed: &programs::Parsed, invocation: &walk::Invocation) -> Option<Vec<Write>> {
    let spec = parsed.leaf();
    let all_operands = parsed.has_any(spec.all_operands_with);
    if all_operands || spec.written == programs::Written::Arguments && !spec.unknown_entries {
        return None;
    }
    let from_here = |word: &str| places::from_hook_dir(word, &invocation.cwd).into_owned();
    let target_dir = spec
        .target_directory_options
        .iter()
        .find_map(|option| parsed.value(option));
    let operands: Vec<String> = parsed.operands.iter().map(|o| from_here(&o.text)).collect();
    let mut writes: Vec<Write> = parsed
        .options
        .iter()
        .filter(|option| spec.written_options.contains(&option.name.as_str()))
        .filter_map(|option| option.value.as_deref())
        .map(|value| Write::Path(from_here(value)))
        .collect();
    if spec.written == programs::Written::Arguments {
        // `tar`: every argument may be written (`-cf FILE`), and the entries land below.
        writes.extend(
            invocation
                .argv
                .iter()
                .skip(1)
                .map(|w| Write::Text(from_here(w))),
        );
    }
    match (spec.written, target_dir) {
        (_, Some(dir)) => {
            writes.push(Write::Path(from_here(dir)));
            writes.push(Write::Into {
                dir: from_here(dir),
                is_dir: true,
                sources: operands,
                unknown_entries: spec.unknown_entries,
            });
        }
        (programs::Written::LastOperand, None) => {
            if let Some((destination, sources)) = operands.split_last() {
                writes.push(Write::Path(destination.clone()));
                writes.push(Write::Into {
                    dir: destination.clone(),
                    is_dir: false,
                    sources: sources.to_vec(),
                    unknown_entries: spec.unknown_entries,
                });
            }
        }
        // No directory named: the entries land in the working directory.
        (_, None) if spec.unknown_entries => writes.push(Write::Into {
            dir: from_here("."),
            is_dir: true,
            sources: Vec::new(),
            unknown_entries: true,
        }),
        (_, None) => {}
    }
    Some(writes)
}

impl CommandAnalysis {
    /// The words of every simple command found, nested ones included (unquoted, wrappers such as
    /// `sudo` or `env` still in front: their targets are listed too).
    pub fn argvs(&self) -> impl Iterator<Item = &[String]> {
        self.0.invocations.iter().map(|i| i.argv.as_slice())
    }
}
