//! The schema of `assets/evidence/runners.toml`: which commands are checks (tests, builds,
//! linters, type checkers, CI queries), how their output summarizes a run, and which outputs
//! mean a command never ran. Shared with `build.rs`, which validates the asset and embeds it as
//! JSON (so a hook parses no TOML), hence no `crate::` paths here.

use serde::{Deserialize, Serialize};

/// What a check run verifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckKind {
    Test,
    Build,
    Lint,
    Typecheck,
    /// A query of a remote CI's status (`gh pr checks`, `gh run watch`...).
    Ci,
}

impl CheckKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckKind::Test => "test",
            CheckKind::Build => "build",
            CheckKind::Lint => "lint",
            CheckKind::Typecheck => "typecheck",
            CheckKind::Ci => "ci",
        }
    }
}

/// A counter of a runner summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Counter {
    Passed,
    Failed,
    Skipped,
    Total,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunnerTable {
    /// Check commands; every runner whose pattern matches a command line adds its kind.
    pub runners: Vec<RunnerSpec>,
    /// Summary lines of runners' output, tried on the output of every check run.
    pub summaries: Vec<SummarySpec>,
    /// An output matching one of these means the command never ran (a hook denied it, the
    /// user rejected it): it is no run at all.
    pub not_run: Vec<String>,
    /// An output matching one of these means the command is still running (in the
    /// background): its result is not known yet.
    pub pending: Vec<String>,
    /// Programs whose failure reproduces nothing (search, listing, navigation): a failing
    /// `grep` is not a failing run of the bug.
    pub inspection: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunnerSpec {
    pub name: String,
    pub kind: CheckKind,
    /// A regex over the command line.
    pub command: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummarySpec {
    pub name: String,
    /// A regex over the output; named groups `passed`, `failed` (and `errors`, counted as failed), `skipped`, `total` are
    /// added up over every match (cargo prints one summary per test binary).
    pub pattern: String,
    /// Within one group only the first summary (in table order) that matches is counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Instead of numbers: every match adds one to this counter (`error: could not compile`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<Counter>,
}

/// `assets/evidence/claims.toml`: how a final message is cut into clauses, and which clauses
/// assert nothing.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimsTable {
    /// A regex matching the end of a clause (kept with the clause).
    pub clause_break: String,
    /// A clause matching one of these negates, hedges, asks, plans or retracts: no claim.
    pub not_asserted: Vec<String>,
}
