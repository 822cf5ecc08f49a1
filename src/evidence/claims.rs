//! The `unbacked-claim` judgement: which results the final message claims (cue patterns per
//! kind, clause by clause, skipping clauses that negate, hedge, ask or plan), and whether the
//! turn's evidence backs each claim.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;

use super::gated::{Gated, Lowered};
use super::spec::{CheckKind, ClaimsTable};
use super::{Edit, Evidence, Run, Status, reproduces};

const TABLE: &str = include_str!(concat!(env!("OUT_DIR"), "/evidence-claims.json"));

struct Compiled {
    clause_break: Regex,
    not_asserted: Vec<Gated>,
}

fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        // build.rs checked the schema and every pattern's syntax; a unit test compiles them.
        let table: ClaimsTable =
            serde_json::from_str(TABLE).expect("build.rs embeds a valid claims table");
        Compiled {
            clause_break: Regex::new(&table.clause_break).expect("claim patterns compile"),
            not_asserted: table.not_asserted.into_iter().map(Gated::new).collect(),
        }
    })
}

/// What a message can claim to have passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimKind {
    Tests,
    Build,
    Lint,
    Ci,
    Reproduction,
}

impl ClaimKind {
    const ALL: [ClaimKind; 5] = [
        ClaimKind::Tests,
        ClaimKind::Build,
        ClaimKind::Lint,
        ClaimKind::Ci,
        ClaimKind::Reproduction,
    ];

    /// The prefix of its detector fields: `tests_claimed`, `tests_backed`.
    pub fn name(self) -> &'static str {
        match self {
            ClaimKind::Tests => "tests",
            ClaimKind::Build => "build",
            ClaimKind::Lint => "lint",
            ClaimKind::Ci => "ci",
            ClaimKind::Reproduction => "reproduction",
        }
    }

    fn claim(self) -> &'static str {
        match self {
            ClaimKind::Tests => "the tests pass",
            ClaimKind::Build => "the build passes",
            ClaimKind::Lint => "lint or the type check is clean",
            ClaimKind::Ci => "CI passes",
            ClaimKind::Reproduction => "the problem was reproduced",
        }
    }

    fn run_noun(self) -> &'static str {
        match self {
            ClaimKind::Tests => "test",
            ClaimKind::Build => "build",
            ClaimKind::Lint => "lint or type-check",
            ClaimKind::Ci => "CI status",
            ClaimKind::Reproduction => "failing",
        }
    }

    /// The check runs that back the claim: a passing test run builds the code too.
    fn backed_by(self) -> &'static [CheckKind] {
        match self {
            ClaimKind::Tests => &[CheckKind::Test],
            ClaimKind::Build => &[CheckKind::Build, CheckKind::Test, CheckKind::Typecheck],
            ClaimKind::Lint => &[CheckKind::Lint, CheckKind::Typecheck],
            ClaimKind::Ci => &[CheckKind::Ci],
            ClaimKind::Reproduction => &[],
        }
    }
}

/// What the evidence says about one claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backing<'e> {
    /// The last run of the kind passed and nothing was edited after it.
    Backed(&'e Run),
    /// The last run has no result in the transcript (yet): nothing to hold against the claim.
    Pending(&'e Run),
    /// The start of the turn lies beyond the read bound: a run may be there.
    Unknown,
    NoRun,
    Failed(&'e Run),
    EditedAfter(&'e Run, &'e Edit),
}

impl Backing<'_> {
    pub fn backs(&self) -> bool {
        matches!(
            self,
            Backing::Backed(_) | Backing::Pending(_) | Backing::Unknown
        )
    }
}

impl Evidence {
    /// Whether the runs back a claim of `kind`.
    pub fn backing(&self, kind: ClaimKind) -> Backing<'_> {
        if kind == ClaimKind::Reproduction {
            return match self.runs().find(|(_, run)| reproduces(run)) {
                Some((_, run)) => Backing::Backed(run),
                None if !self.turn_complete => Backing::Unknown,
                None => Backing::NoRun,
            };
        }
        let Some((index, run)) = self.last_check(kind.backed_by()) else {
            return if self.turn_complete {
                Backing::NoRun
            } else {
                Backing::Unknown
            };
        };
        match run.status {
            Status::Unknown => Backing::Pending(run),
            Status::Failed => Backing::Failed(run),
            Status::Passed => match self.edit_after(index) {
                Some(edit) => Backing::EditedAfter(run, edit),
                None => Backing::Backed(run),
            },
        }
    }
}

/// The fields and the reason of an `unbacked-claim`-style detector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimJudgement {
    pub fields: BTreeMap<String, bool>,
    /// Plain words, safe to show the agent: what was claimed and what the turn shows.
    pub reason: String,
}

/// Judges `fields` (`<kind>_claimed` decided by `cues` on the final message, `<kind>_backed` by
/// the evidence). Without evidence, or with a transcript that lags behind the final message,
/// every field is false: the detector does not fire on words alone (the pipeline does not even
/// call it without evidence).
pub fn judge_detector(
    fields: &[String],
    cues: &[(String, Vec<&regex_automata::meta::Regex>)],
    text: &str,
    evidence: Option<&Evidence>,
) -> ClaimJudgement {
    let all_false = |reason: &str| ClaimJudgement {
        fields: fields.iter().map(|f| (f.clone(), false)).collect(),
        reason: reason.to_string(),
    };
    let Some(evidence) = evidence else {
        return all_false("no transcript to read the turn's tool calls from: text only");
    };
    if evidence.lagging {
        return all_false(
            "the transcript lags behind the final message, so its tool calls may be incomplete",
        );
    }
    let message = evidence.final_text.as_deref().unwrap_or(text);
    let clauses: Vec<&str> = asserted_clauses(message);
    let mut values = BTreeMap::new();
    let mut claimed = Vec::new();
    for field in fields {
        let value = if let Some(kind) = kind_of(field, "_claimed") {
            let quote = cues
                .iter()
                .find(|(name, _)| name == field)
                .and_then(|(_, cues)| {
                    clauses.iter().find_map(|clause| {
                        cues.iter()
                            .find_map(|cue| cue.find(*clause).map(|m| &clause[m.range()]))
                    })
                });
            if let Some(found) = quote {
                claimed.push((kind, found.trim().to_string()));
            }
            quote.is_some()
        } else if let Some(kind) = kind_of(field, "_backed") {
            evidence.backing(kind).backs()
        } else {
            false
        };
        values.insert(field.clone(), value);
    }
    let reason = if claimed.is_empty() {
        "the final message claims no passing test, build, lint, CI or reproduction".to_string()
    } else {
        claimed
            .iter()
            .map(|(kind, quote)| explain(*kind, quote, evidence.backing(*kind)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    ClaimJudgement {
        fields: values,
        reason,
    }
}

fn kind_of(field: &str, suffix: &str) -> Option<ClaimKind> {
    let prefix = field.strip_suffix(suffix)?;
    ClaimKind::ALL.into_iter().find(|k| k.name() == prefix)
}

fn explain(kind: ClaimKind, quote: &str, backing: Backing) -> String {
    let said = format!("the message says {} (\"{}\")", kind.claim(), clip(quote));
    match backing {
        Backing::Backed(run) if kind == ClaimKind::Reproduction => {
            format!("{said}: backed by the failing run {}", run.describe())
        }
        Backing::Backed(run) => format!("{said}: backed by {}", run.describe()),
        Backing::Pending(run) => format!(
            "{said}: the last {} run, `{}`, has no result in the transcript yet",
            kind.run_noun(),
            clip(&run.command)
        ),
        Backing::Unknown => format!("{said}: the start of the turn is beyond the read bound"),
        Backing::NoRun if kind == ClaimKind::Reproduction => {
            format!("{said}, but no command failed before the fix in this turn")
        }
        Backing::NoRun => format!(
            "{said}, but no {} command ran in this turn (nor in an earlier one without edits since)",
            kind.run_noun()
        ),
        Backing::Failed(run) => format!(
            "{said}, but the last {} run failed: {}",
            kind.run_noun(),
            run.describe()
        ),
        Backing::EditedAfter(run, edit) => format!(
            "{said}, but {} was edited after the last passing {} run ({})",
            edit.describe(),
            kind.run_noun(),
            run.describe()
        ),
    }
}

/// The clauses of `message` that assert something (each with its terminator).
fn asserted_clauses(message: &str) -> Vec<&str> {
    let table = compiled();
    let mut clauses = Vec::new();
    let mut start = 0;
    for found in table.clause_break.find_iter(message) {
        clauses.push(&message[start..found.end()]);
        start = found.end();
    }
    clauses.push(&message[start..]);
    clauses
        .into_iter()
        .filter(|clause| !clause.trim().is_empty())
        .filter(|clause| {
            let clause = Lowered::new(clause);
            !table.not_asserted.iter().any(|p| p.is_match(&clause))
        })
        .collect()
}

fn clip(text: &str) -> String {
    super::clip(text, 80)
}

#[cfg(test)]
pub(super) fn compile_all() {
    for pattern in &compiled().not_asserted {
        pattern.regex();
    }
}
