//! Which commands are checks, and what their output says: the table of
//! `assets/evidence/runners.toml` (embedded as JSON by build.rs), compiled on first use.

use std::sync::OnceLock;

use regex::Regex;

use super::spec::{CheckKind, Counter, RunnerTable, SummarySpec};
use super::{Counts, Edit, Run, Status, Step};
use crate::shell::{self, DenyKind, ReadOnlyVerdict};
use crate::transcript::ToolResult;

const TABLE: &str = include_str!(concat!(env!("OUT_DIR"), "/evidence-runners.json"));

struct Compiled {
    runners: Vec<(CheckKind, Regex)>,
    summaries: Vec<(SummarySpec, Regex)>,
    not_run: Vec<Regex>,
    pending: Vec<Regex>,
    inspection: Vec<String>,
}

fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        // build.rs checked the schema and every pattern's syntax; a unit test compiles them.
        let table: RunnerTable =
            serde_json::from_str(TABLE).expect("build.rs embeds a valid runner table");
        let compile = |pattern: &str| Regex::new(pattern).expect("runner patterns compile");
        Compiled {
            runners: table
                .runners
                .iter()
                .map(|r| (r.kind, compile(&r.command)))
                .collect(),
            summaries: table
                .summaries
                .into_iter()
                .map(|s| {
                    let re = compile(&s.pattern);
                    (s, re)
                })
                .collect(),
            not_run: table.not_run.iter().map(|p| compile(p)).collect(),
            pending: table.pending.iter().map(|p| compile(p)).collect(),
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
        for (kind, re) in &compiled().runners {
            if re.is_match(view) && !kinds.contains(kind) {
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
    let mut counts = Counts::default();
    let mut found = false;
    let mut groups_done: Vec<&str> = Vec::new();
    for (spec, re) in &compiled().summaries {
        if let Some(group) = &spec.group
            && groups_done.contains(&group.as_str())
        {
            continue;
        }
        let mut matched = false;
        for captures in re.captures_iter(output) {
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
    if let Some(result) = result
        && table.not_run.iter().any(|re| re.is_match(&result.output))
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
    let pending = result.is_some_and(|r| table.pending.iter().any(|re| re.is_match(&r.output)));
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
    assert!(!table.runners.is_empty() && !table.summaries.is_empty());
}
