//! The schema of a program spec, as written in `assets/programs/*.toml`. Shared with
//! `build.rs`, which turns the files into static Rust tables at build time (a hook parses no
//! TOML for them), hence no `crate::` paths here.
//!
//! A spec describes how a program reads its arguments (which options take a value, whether
//! long options may be abbreviated, whether `-name` is one option) and what it does: an
//! `effect` per command, subcommand and option for the read-only allowlist, and `hold` rules
//! for the dangerous-command gate. Both policies read the same specs.

use serde::Deserialize;

/// What running a command does, from harmless to irreversible. A command's effect is the
/// strongest of its own, its subcommand's and its options'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// Reads files or state and prints.
    Read,
    /// Builds, tests or lints the project: writes only build output. Open to reviewers.
    Build,
    /// Creates, changes or deletes files.
    Write,
    /// Changes state outside the work tree's files: git refs and index, installed packages,
    /// remote services.
    State,
    /// Runs code given to it (inline programs, scripts from arguments).
    Exec,
}

/// One file of `assets/programs/`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramsFile {
    #[serde(default, rename = "command")]
    pub commands: Vec<CommandSpec>,
    #[serde(default)]
    pub environment: Option<EnvironmentSpec>,
    /// Commands whose documented output is shell code to set up the current shell
    /// (`ssh-agent`, `direnv hook`, `kubectl completion`): program and leading words.
    /// `eval "$(GENERATOR ...)"` and `source <(GENERATOR ...)` run that code, and only in
    /// that exact form is it known; any other code read at run time is held.
    #[serde(default)]
    pub shell_code_generators: Vec<String>,
}

/// Variables that change what ordinary programs run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentSpec {
    /// Assigning one of these can make a reader execute or write (`GIT_EXTERNAL_DIFF`,
    /// `LD_PRELOAD`, `PAGER`); a trailing `*` is a prefix (`GIT_CONFIG_*`).
    pub runs_code: Vec<String>,
}

/// A program or one of its subcommands.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandSpec {
    /// Names this command answers to. Subcommand names may end in `*` (`describe-*`) or be
    /// `*` alone (any word: a cloud CLI's service name).
    pub names: Vec<String>,
    /// Effect of the command when no subcommand matches; inherited by subcommands that set
    /// none. A program with subcommands and no effect is `state` for an unknown subcommand.
    #[serde(default)]
    pub effect: Option<Effect>,
    /// Effect when no operand at all is given (`git`, `npm`: help), if different.
    #[serde(default)]
    pub bare_effect: Option<Effect>,
    /// Long options may be abbreviated to any unique prefix of `long_options` (git). Inherited.
    #[serde(default)]
    pub long_prefixes: Option<bool>,
    /// `-name` is one option, not a cluster of short flags (find, terraform). Inherited.
    #[serde(default)]
    pub single_dash_long: Option<bool>,
    /// Options placed after operands are still options (GNU, git subcommands). Default true;
    /// not inherited (git's own options stop at the subcommand, the subcommand's do not).
    #[serde(default)]
    pub permute: Option<bool>,
    /// Words after `--` go on to another program that reads them as options (`cargo fmt --
    /// --check` hands `--check` to rustfmt): they count as options here too.
    #[serde(default)]
    pub forwards: bool,
    /// Options that take a value (the next word, `--opt=value`, or the rest of a short
    /// cluster: `-C dir`, `-Cdir`).
    #[serde(default)]
    pub value_options: Vec<String>,
    /// Options whose value is optional and, when separate, only one of these words
    /// (`--track direct`): `"--track=direct|inherit"`.
    #[serde(default)]
    pub optional_values: Vec<String>,
    /// Known long options without a value, for prefix resolution.
    #[serde(default)]
    pub long_options: Vec<String>,
    /// Options that change the effect (`sed -i`: write; `--check`: read).
    #[serde(default)]
    pub options: Vec<OptionSpec>,
    /// When no subcommand matches: the command reads if one of its leading operands (before
    /// the first option) is one of these words (`list`, `describe-*`): cloud CLIs nest
    /// groups of any depth (`az storage blob list`, `gcloud compute instances describe`).
    #[serde(default)]
    pub read_verbs: Vec<String>,
    /// Words before the subcommand that select something else and are skipped (`+*`:
    /// cargo's `+nightly` toolchain).
    #[serde(default)]
    pub selectors: Vec<String>,
    /// Subcommands, selected by the first operand.
    #[serde(default, rename = "sub")]
    pub subs: Vec<CommandSpec>,
    /// Dangerous-gate rules.
    #[serde(default)]
    pub hold: Vec<HoldSpec>,
    /// A named check (Rust) the read-only policy runs in addition to the effect.
    #[serde(default)]
    pub check: Option<String>,
    /// It fetches from the network and prints what it got (`curl`, `wget -O-`): piped into a
    /// shell, that is code from the network.
    #[serde(default)]
    pub downloads: bool,
    /// Options with which the program only prints its help or version and exits, whatever
    /// else is given (`-h`, `-V`; `--help` and `--version` are understood everywhere), when
    /// given at this level: not inherited.
    #[serde(default)]
    pub prints: Vec<String>,
    /// Which of its arguments a writing program writes, for the guard of agentguard's own
    /// files: every argument (the default: `sed -i`, `touch`, `mv`, which also removes its
    /// sources), only the destination (`cp`, `ln`, `rsync`: the sources are read), or only
    /// the directory it writes into (`unzip`: the archive and member names are read).
    #[serde(default)]
    pub written: Written,
    /// Options whose value is the directory the program writes into (`cp -t DIR`, `tar -C
    /// DIR`, `unzip -d DIR`); each must also be a value option. Given, every operand is a
    /// source.
    #[serde(default)]
    pub target_directory_options: Vec<String>,
    /// Options whose value is a file or directory written besides the destination (`rsync
    /// --log-file=F`, `--backup-dir=D`); each must also be a value option.
    #[serde(default)]
    pub written_options: Vec<String>,
    /// With one of these options every operand is written (`install -d A B` creates both).
    #[serde(default)]
    pub all_operands_with: Vec<String>,
    /// What it puts into its target directory (or the working directory, without one) is not
    /// named on the command line: an archive's entries (`tar -x`, `unzip`).
    #[serde(default)]
    pub unknown_entries: bool,
}

/// Which arguments a writing program writes (see [`CommandSpec::written`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Written {
    #[default]
    Arguments,
    LastOperand,
    TargetDirectory,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionSpec {
    pub names: Vec<String>,
    pub effect: Effect,
    /// The effect applies only when the option's value is not one of these (`-o -`,
    /// `--output=/dev/null`).
    #[serde(default)]
    pub unless_value: Vec<String>,
}

/// One dangerous-gate rule: holds the command when every condition given is met.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HoldSpec {
    /// Stable id, `program.what` (`git.reset-hard`), logged with the hold.
    pub rule: String,
    /// What the command does, naming it: "`git reset --hard` discards uncommitted work".
    pub message: String,
    /// The safer route.
    pub safer: String,
    /// At least one of these options is present.
    #[serde(default)]
    pub any: Vec<String>,
    /// Each group: at least one of its options is present (`[["-r", "-R"], ["-f"]]`).
    #[serde(default)]
    pub all: Vec<Vec<String>>,
    /// None of these is present (dry runs, help).
    #[serde(default)]
    pub unless: Vec<String>,
    /// At least this many operands (options in `operand_options` count as one).
    #[serde(default)]
    pub min_operands: usize,
    /// Options that name what the command acts on, like operands (`--pathspec-from-file`).
    #[serde(default)]
    pub operand_options: Vec<String>,
    /// Operands (words) one of which must be present (`stash drop`: given as subcommands
    /// instead; here for `kubectl delete namespace`).
    #[serde(default)]
    pub operand_any: Vec<String>,
    /// A named predicate (Rust) over the parsed command: `paths-outside-project`...
    #[serde(default)]
    pub check: Option<String>,
}

/// The parsing settings and effect a subcommand takes from its parent unless it sets its own.
#[derive(Debug, Clone, Copy)]
pub struct Inherited {
    pub effect: Option<Effect>,
    pub long_prefixes: bool,
    pub single_dash_long: bool,
    pub permute: bool,
}

impl Default for Inherited {
    fn default() -> Self {
        Inherited {
            effect: None,
            long_prefixes: false,
            single_dash_long: false,
            permute: true,
        }
    }
}

impl Inherited {
    /// What `spec`'s own subcommands inherit.
    pub fn under(&self, spec: &CommandSpec) -> Inherited {
        Inherited {
            effect: spec.effect.or(self.effect),
            long_prefixes: spec.long_prefixes.unwrap_or(self.long_prefixes),
            single_dash_long: spec.single_dash_long.unwrap_or(self.single_dash_long),
            permute: spec.permute.unwrap_or(self.permute),
        }
    }
}

/// The read-only checks a spec may name (`check = "..."`); implemented in `shell::readonly`.
pub const READ_CHECKS: &[&str] = &[
    "git-rules",
    "sed-script",
    "awk-program",
    "interpreter",
    "tar-mode",
    "find-actions",
    "tee-targets",
    "dd-output",
    "shell-code",
    "compressor",
    "curl-output",
    "wget-output",
    "uniq-output",
    "make-targets",
    "gh-rules",
    "script-log",
    "sql-reads",
    "parallel-perl",
];

/// The dangerous-gate predicates a hold rule may name (`check = "..."`); implemented in
/// `shell::dangerous`.
pub const HOLD_CHECKS: &[&str] = &[
    "paths-outside-project",
    "find-delete",
    "device-target",
    "force-refspec",
    "delete-refspec",
    "broad-paths",
    "world-writable",
    "sql-destroys",
    "inline-code",
    "restore-worktree",
    "checkout-paths",
    "prune-now",
    "http-delete",
    "custom-ssh",
    "broad-delete",
];
