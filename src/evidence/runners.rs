//! Which commands are checks, and what their output says: the table of
//! `assets/evidence/runners.toml` (embedded as JSON by build.rs), compiled on first use.

use std::sync::OnceLock;

use super::gated::{Gated, Lowered};
use super::spec::{CheckKind, Counter, RunnerTable, SummarySpec};
use super::{Counts, Edit, Run, Status, Step};
use crate::shell::{self, DenyKind, ReadOnlyVerdict};
use crate::transcript::ToolResult;

const TABLE: &str = include_str!(concat!(env!("OUT_DIR"), "/evidence-runners.json"));

struct Compiled {
    runners: Vec<(CheckKind, Gated)>,
    summaries: Vec<(SummarySpec, Gated)>,
    not_run: Vec<Gated>,
    pending: Vec<Gated>,
    inspection: Vec<String>,
}

fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        // build.rs checked the schema and every pattern's syntax; a unit test compiles them.
        let table: RunnerTable =
            serde_json::from_str(TABLE).expect("build.rs embeds a valid runner table");
        Compiled {
            runners: table
                .runners
                .into_iter()
                .map(|r| (r.kind, Gated::new(r.command)))
                .collect(),
            summaries: table
                .summaries
                .into_iter()
                .map(|s| {
                    let gated = Gated::new(s.pattern.clone());
                    (s, gated)
                })
                .collect(),
            not_run: table.not_run.into_iter().map(Gated::new).collect(),
            pending: table.pending.into_iter().map(Gated::new).collect(),
            inspection: table.inspection,
        }
    })
}

/// The simple commands of a command line (see `CommandAnalysis::simple_commands`); a line
/// that does not parse is split at its operators.
pub fn views(command: &str) -> Vec<String> {
    shell::analyze(command)
        .map(|a| a.simple_commands())
        .unwrap_or_else(|_| {
            command
                .split(['\n', ';', '&', '|'])
                .map(|part| part.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|part| !part.is_empty())
                .collect()
        })
}

/// What the command checks, in the table's order, without repeats.
pub fn kinds(views: &[String]) -> Vec<CheckKind> {
    let mut kinds = Vec::new();
    for view in views {
        let view = Lowered::new(view);
        for (kind, runner) in &compiled().runners {
            if !kinds.contains(kind) && runner.is_match(&view) {
                kinds.push(*kind);
            }
        }
    }
    kinds
}

/// Every simple command only looks (searches, lists, reads, navigates).
fn inspection(views: &[String]) -> bool {
    let table = compiled();
    !views.is_empty()
        && views.iter().all(|view| {
            let program = view.split_whitespace().next().unwrap_or_default();
            let program = program.rsplit('/').next().unwrap_or(program);
            table.inspection.iter().any(|p| p == program)
        })
}

/// The runner summary of `output`: every summary line added up (one group counts once).
pub fn summarize(output: &str) -> Option<Counts> {
    let output = Lowered::new(output);
    let mut counts = Counts::default();
    let mut found = false;
    let mut groups_done: Vec<&str> = Vec::new();
    for (spec, pattern) in &compiled().summaries {
        if let Some(group) = &spec.group
            && groups_done.contains(&group.as_str())
        {
            continue;
        }
        let mut matched = false;
        for captures in output.captures(pattern) {
            matched = true;
            if let Some(counter) = spec.count {
                add(&mut counts, counter, 1);
                continue;
            }
            let number = |name: &str| {
                captures
                    .name(name)
                    .and_then(|m| m.as_str().parse::<u64>().ok())
                    .unwrap_or(0)
            };
            add(&mut counts, Counter::Passed, number("passed"));
            add(
                &mut counts,
                Counter::Failed,
                number("failed") + number("errors"),
            );
            add(&mut counts, Counter::Skipped, number("skipped"));
            add(&mut counts, Counter::Total, number("total"));
        }
        if matched {
            found = true;
            if let Some(group) = &spec.group {
                groups_done.push(group);
            }
        }
    }
    if !found {
        return None;
    }
    // Surefire, gradle and rspec give a total and the failures: the rest passed.
    if counts.passed == 0 && counts.total > counts.failed + counts.skipped {
        counts.passed = counts.total - counts.failed - counts.skipped;
    }
    Some(counts)
}

fn add(counts: &mut Counts, counter: Counter, n: u64) {
    let slot = match counter {
        Counter::Passed => &mut counts.passed,
        Counter::Failed => &mut counts.failed,
        Counter::Skipped => &mut counts.skipped,
        Counter::Total => &mut counts.total,
    };
    *slot += n;
}

/// The step a shell command was: a run (a check or another command), an edit (a command that
/// writes files), or nothing (it never ran).
pub fn step(
    command: String,
    tool: &str,
    at: Option<String>,
    result: Option<&ToolResult>,
) -> Option<Step> {
    let table = compiled();
    let output = result.map(|r| Lowered::new(&r.output));
    if let Some(output) = &output
        && table.not_run.iter().any(|pattern| pattern.is_match(output))
    {
        return None;
    }
    let views = views(&command);
    let kinds = kinds(&views);
    if kinds.is_empty()
        && let Some(paths) = written_files(&command)
    {
        return Some(Step::Edit(Edit {
            tool: tool.to_string(),
            paths,
            at,
        }));
    }
    let pending = output
        .as_ref()
        .is_some_and(|output| table.pending.iter().any(|pattern| pattern.is_match(output)));
    let counts = result
        .filter(|_| !kinds.is_empty() && !pending)
        .and_then(|r| summarize(&r.output));
    let exit_code = result.and_then(|r| r.exit_code);
    let failed_by_host = result.and_then(|r| r.failed);
    let status = if pending || result.is_none() {
        Status::Unknown
    } else if counts.is_some_and(|c| c.failed > 0)
        || failed_by_host == Some(true)
        || exit_code.is_some_and(|code| code != 0)
    {
        // A summary with failures wins over an exit status of 0: `cargo test | tail` exits
        // with tail's status.
        Status::Failed
    } else if failed_by_host == Some(false)
        || exit_code == Some(0)
        || counts.is_some_and(|c| c.passed > 0)
    {
        Status::Passed
    } else {
        Status::Unknown
    };
    Some(Step::Run(Run {
        inspection: inspection(&views),
        command,
        kinds,
        status,
        exit_code,
        counts,
        at,
    }))
}

/// The files a shell command writes, when it writes project files: a program that changes
/// files (`sed -i`, `cat > f`, formatters) outside the temp and device directories. Git state
/// is not an edit of the code.
fn written_files(command: &str) -> Option<Vec<String>> {
    let analysis = shell::analyze(command).ok()?;
    match analysis.read_only() {
        ReadOnlyVerdict::Deny {
            kind: DenyKind::FileWrite | DenyKind::Redirection,
            detail,
        } if !["/tmp/", "/dev/", "$TMPDIR"]
            .iter()
            .any(|t| detail.contains(t)) =>
        {
            Some(vec![detail])
        }
        _ => None,
    }
}

#[cfg(test)]
pub(super) fn compile_all() {
    let table = compiled();
    let patterns = table
        .runners
        .iter()
        .map(|(_, p)| p)
        .chain(table.summaries.iter().map(|(_, p)| p))
        .chain(&table.not_run)
        .chain(&table.pending);
    for pattern in patterns {
        pattern.regex();
    }
}
