//! Evidence from the turn: what the agent did, not only what it says.
//!
//! From the end of a transcript (`crate::transcript` knows both hosts' formats) the extractor
//! reads the current turn's tool calls in order: the commands that ran, with their exit status
//! and, for tests, builds, linters, type checkers and CI queries, the runner's own summary
//! (`runners`); and the files edited. A few earlier turns are read too (bounded), so that a
//! claim about a run of an earlier turn with no edit since is backed.
//!
//! The extractor is pure: entries in, evidence out. It runs only when a detector needs it (a
//! Layer 1 hit), so a stop without a hit never pays for it.

mod claims;
mod gated;
mod runners;
pub mod spec;

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::transcript::{Entry, ToolCall, ToolResult};
pub use claims::{ClaimKind, judge_detector};
pub use spec::CheckKind;

/// The outcome of one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Passed,
    Failed,
    /// No result in the transcript (yet), or a command still running in the background.
    Unknown,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Unknown => "no result",
        }
    }
}

/// A runner's summary, added up over its summary lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    pub total: u64,
}

impl Counts {
    /// `12 passed, 1 failed, 2 skipped` (the parts that are known).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.passed > 0 || self.failed == 0 {
            parts.push(format!("{} passed", self.passed));
        }
        if self.failed > 0 {
            parts.push(format!("{} failed", self.failed));
        }
        if self.skipped > 0 {
            parts.push(format!("{} skipped", self.skipped));
        }
        if self.total > 0 && self.passed == 0 && self.failed == 0 {
            parts = vec![format!("{} total", self.total)];
        }
        parts.join(", ")
    }
}

/// A command the agent ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub command: String,
    /// What the command checks (empty: not a check).
    pub kinds: Vec<CheckKind>,
    pub status: Status,
    pub exit_code: Option<i64>,
    /// The runner's summary, when its output had one.
    pub counts: Option<Counts>,
    /// The command only looks (search, listing, reading): its failure reproduces nothing.
    pub inspection: bool,
    pub at: Option<String>,
}

impl Run {
    pub fn is_check(&self) -> bool {
        !self.kinds.is_empty()
    }

    /// `` `cargo test` (test): failed, exit 101, 40 passed, 2 failed ``
    pub fn describe(&self) -> String {
        let kinds: Vec<&str> = self.kinds.iter().map(|k| k.as_str()).collect();
        let mut text = format!("`{}`", clip(&self.command, 160));
        if !kinds.is_empty() {
            text.push_str(&format!(" ({})", kinds.join(", ")));
        }
        text.push_str(": ");
        text.push_str(self.status.as_str());
        if let Some(code) = self.exit_code.filter(|&code| code != 0) {
            text.push_str(&format!(", exit {code}"));
        }
        if let Some(counts) = &self.counts {
            text.push_str(&format!(", {}", counts.describe()));
        }
        text
    }
}

/// A file edit (an edit tool, apply_patch, or a shell command that writes files).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub tool: String,
    pub paths: Vec<String>,
    pub at: Option<String>,
}

impl Edit {
    pub fn describe(&self) -> String {
        let paths = if self.paths.is_empty() {
            "files".to_string()
        } else {
            clip(&self.paths.join(", "), 160)
        };
        format!("{paths} ({})", self.tool)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Run(Run),
    Edit(Edit),
}

/// The evidence of a turn (and of a few turns before it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Evidence {
    /// Oldest first; `steps[current_from..]` belong to the current turn.
    pub steps: Vec<Step>,
    pub current_from: usize,
    /// The start of the current turn was read (not cut by a read bound).
    pub turn_complete: bool,
    /// The final message: the host's race-free `last_assistant_message` when it has one,
    /// else the turn's last assistant text.
    pub final_text: Option<String>,
    /// The transcript lags behind the final message: its newest tool calls may be missing.
    pub lagging: bool,
}

/// How far back the extractor reads beyond the current turn, for runs of earlier turns.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub earlier_turns: usize,
    pub earlier_bytes: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            earlier_turns: 3,
            earlier_bytes: 4 * 1024 * 1024,
        }
    }
}

/// The evidence from transcript entries given newest first (each with its line's size).
pub fn extract(entries: impl IntoIterator<Item = (usize, Entry)>, bounds: Bounds) -> Evidence {
    // Newest first: a call is seen after its result.
    let mut calls: Vec<(ToolCall, bool)> = Vec::new();
    let mut results: HashMap<String, ToolResult> = HashMap::new();
    let mut final_text = None;
    let mut turns_back = 0usize;
    let mut earlier_bytes = 0usize;
    let mut turn_complete = false;
    for (bytes, entry) in entries {
        if turns_back > 0 {
            earlier_bytes += bytes;
            if earlier_bytes > bounds.earlier_bytes {
                break;
            }
        }
        match entry {
            Entry::UserTurn => {
                turn_complete = true;
                turns_back += 1;
                if turns_back > bounds.earlier_turns {
                    break;
                }
            }
            Entry::Assistant { texts, calls: line } => {
                if turns_back == 0 && final_text.is_none() {
                    final_text = texts.into_iter().rev().find(|t| !t.trim().is_empty());
                }
                calls.extend(line.into_iter().rev().map(|call| (call, turns_back == 0)));
            }
            Entry::Results(line) => {
                for result in line.into_iter().filter(|r| !r.id.is_empty()) {
                    results.insert(result.id.clone(), result);
                }
            }
            Entry::Other => {}
        }
    }
    calls.reverse();
    let mut evidence = Evidence {
        turn_complete,
        final_text,
        ..Evidence::default()
    };
    let mut current_from = None;
    for (call, current) in calls {
        let result = results.remove(&call.id);
        let Some(step) = step_of(call, result.as_ref()) else {
            continue;
        };
        if current && current_from.is_none() {
            current_from = Some(evidence.steps.len());
        }
        evidence.steps.push(step);
    }
    evidence.current_from = current_from.unwrap_or(evidence.steps.len());
    evidence
}

/// The step a tool call was, if it was one that counts (a command that ran, an edit applied).
fn step_of(call: ToolCall, result: Option<&ToolResult>) -> Option<Step> {
    if !call.edits.is_empty() {
        // An edit the tool refused (old string not found, patch did not apply) changed nothing.
        if result.is_some_and(|r| r.failed == Some(true)) {
            return None;
        }
        return Some(Step::Edit(Edit {
            tool: call.name,
            paths: call.edits,
            at: call.at,
        }));
    }
    let command = call.command?;
    runners::step(command, &call.name, call.at, result)
}

/// Reads the evidence of the transcript's current turn from its end. `None` when the file
/// cannot be read: the stop is then judged on its text alone.
pub fn from_transcript(path: &Path, final_message: Option<&str>) -> Option<Evidence> {
    let mut entries = crate::transcript::EntriesFromEnd::open(path).ok()?;
    let mut evidence = extract(&mut entries, Bounds::default());
    if entries.error.is_some() {
        return None;
    }
    evidence.set_final_message(final_message);
    Some(evidence)
}

impl Evidence {
    /// Takes the host's race-free final message; a transcript that does not end with it lags.
    pub fn set_final_message(&mut self, message: Option<&str>) {
        let Some(message) = message.map(str::trim).filter(|m| !m.is_empty()) else {
            return;
        };
        let in_transcript = self
            .final_text
            .as_deref()
            .is_some_and(|text| text.trim() == message);
        if !in_transcript {
            self.lagging = true;
            self.final_text = Some(message.to_string());
        }
    }

    pub fn runs(&self) -> impl Iterator<Item = (usize, &Run)> {
        self.steps.iter().enumerate().filter_map(|(i, s)| match s {
            Step::Run(run) => Some((i, run)),
            Step::Edit(_) => None,
        })
    }

    /// The first edit after step `index`.
    pub fn edit_after(&self, index: usize) -> Option<&Edit> {
        self.steps[index + 1..].iter().find_map(|s| match s {
            Step::Edit(edit) => Some(edit),
            Step::Run(_) => None,
        })
    }

    /// The last check run of one of `kinds`.
    pub fn last_check(&self, kinds: &[CheckKind]) -> Option<(usize, &Run)> {
        self.runs()
            .filter(|(_, run)| run.kinds.iter().any(|k| kinds.contains(k)))
            .last()
    }

    /// What the runs say about "verified" (the `commit` detector's `verification_reported`):
    /// the last check passed with no edit after it, or it failed or was followed by an edit.
    /// `None` when the turn ran no check with a known result (the words decide).
    pub fn verified(&self) -> Option<bool> {
        let (index, run) = self
            .runs()
            .filter(|(_, run)| run.is_check() && run.status != Status::Unknown)
            .last()?;
        Some(run.status == Status::Passed && self.edit_after(index).is_none())
    }

    /// A failing run, then an edit, then a passing check with no edit after it: the fix was
    /// reproduced before and verified after.
    pub fn failed_then_fixed(&self) -> bool {
        let Some((failing, _)) = self.runs().find(|(_, run)| reproduces(run)) else {
            return false;
        };
        let Some((passing, _)) = self
            .runs()
            .filter(|(_, run)| run.is_check() && run.status != Status::Unknown)
            .last()
            .filter(|(_, run)| run.status == Status::Passed)
        else {
            return false;
        };
        let edited_between = self.steps[failing..passing]
            .iter()
            .any(|s| matches!(s, Step::Edit(_)));
        passing > failing && edited_between && self.edit_after(passing).is_none()
    }

    /// Where the evidence knows better than the words, the value of a judge field: verification
    /// from the runs, and reproduction and cause where the turn shows a failing run before the
    /// fix and a passing one after (evidence only adds those two, it never takes them away).
    pub fn field(&self, field: &str) -> Option<bool> {
        match field {
            "verification_reported" => self.verified(),
            "reproduction_reported" | "cause_explained" => self.failed_then_fixed().then_some(true),
            _ => None,
        }
    }

    /// One line per step worth showing (check runs, failing runs, edits), oldest first, at
    /// most `max` of the newest; other commands are counted.
    pub fn lines(&self, max: usize) -> (Vec<String>, usize) {
        let mut lines = Vec::new();
        let mut others = 0usize;
        for (index, step) in self.steps.iter().enumerate() {
            let earlier = if index < self.current_from {
                "earlier turn: "
            } else {
                ""
            };
            match step {
                Step::Run(run) if run.is_check() || reproduces(run) => {
                    lines.push(format!("{earlier}ran {}", run.describe()))
                }
                Step::Run(_) => others += 1,
                Step::Edit(edit) => lines.push(format!("{earlier}edited {}", edit.describe())),
            }
        }
        let omitted = lines.len().saturating_sub(max);
        lines.drain(..omitted);
        (lines, omitted + others)
    }

    /// The short summary an LLM judge gets next to the message (redacted by the caller).
    pub fn summary_text(&self) -> String {
        let (lines, omitted) = self.lines(12);
        let mut text = String::from(
            "Evidence from the transcript (the agent's tool calls, oldest first; this is what \
             happened, whatever the message says):",
        );
        if lines.is_empty() {
            text.push_str("\n- no test, build, lint or CI command ran and no file was edited");
        }
        for line in lines {
            text.push_str("\n- ");
            text.push_str(&line);
        }
        if omitted > 0 {
            text.push_str(&format!("\n- ({omitted} other commands not shown)"));
        }
        if !self.turn_complete {
            text.push_str("\n- (the start of the turn was beyond the read bound)");
        }
        text
    }

    /// The compact, redacted form kept in the decision log.
    pub fn log_summary(&self) -> EvidenceLog {
        let (lines, omitted) = self.lines(20);
        let redactor = crate::redact::Redactor::builtin();
        EvidenceLog {
            steps: lines
                .iter()
                .map(|line| redactor.redact(line).text)
                .collect(),
            omitted,
            turn_complete: self.turn_complete,
            lagging: self.lagging,
        }
    }
}

/// A failing run that reproduces something: not a search or listing that found nothing.
fn reproduces(run: &Run) -> bool {
    run.status == Status::Failed && !run.inspection
}

/// The evidence a decision used, as logged (`logs show` prints it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceLog {
    /// One line per check run, failing run and edit, oldest first, redacted.
    pub steps: Vec<String>,
    /// Steps not listed (older ones beyond the limit, other commands).
    #[serde(default)]
    pub omitted: usize,
    #[serde(default)]
    pub turn_complete: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lagging: bool,
}

/// Evidence read at most once, and only when a detector asks for it.
pub struct Lazy<'a> {
    cell: OnceLock<Option<Evidence>>,
    load: Box<dyn Fn() -> Option<Evidence> + Sync + 'a>,
}

impl<'a> Lazy<'a> {
    pub fn new(load: impl Fn() -> Option<Evidence> + Sync + 'a) -> Lazy<'a> {
        Lazy {
            cell: OnceLock::new(),
            load: Box::new(load),
        }
    }

    /// No evidence: a plain text is judged on its words.
    pub fn none() -> Lazy<'static> {
        Lazy::new(|| None)
    }

    pub fn get(&self) -> Option<&Evidence> {
        self.cell.get_or_init(|| (self.load)()).as_ref()
    }

    /// The evidence if it was read (without reading it).
    pub fn loaded(&self) -> Option<&Evidence> {
        self.cell.get().and_then(Option::as_ref)
    }
}

fn clip(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.len() <= max {
        return text.to_string();
    }
    format!("{}…", &text[..text.floor_char_boundary(max)])
}

#[cfg(test)]
mod tests;
