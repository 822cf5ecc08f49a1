//! How well the passage model carries over to real messages from a repository it never saw:
//! a cross-validation by repository over the corpus's real rows (those whose `note` starts with
//! `real (owner/repo@…`), plus any extra labeled files given.
//!
//! `cargo run --release --example cv-passage-model -- [EXTRA.jsonl…] [--folds K] [--real-weight N] [--hand-written]`
//!
//! The repositories are dealt into K folds; for each fold the model is trained on the
//! hand-written rows and the real rows of the other folds (each real row N times), and the
//! offline judge's message-level and per-detector figures are measured on the fold's real rows
//! under several ways of combining the rules answer and the model's score. With
//! `--hand-written`, the hand-written rows are dealt into the folds too (by position) and
//! measured apart. The figures are for
//! choosing how the model is used; they are not a held-out measure (the rows are tuning rows).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use agentguard::backends::rules::{self, Facts, RulesVerdict};
use agentguard::config::Config;
use agentguard::detectors::{Detectors, Event};
use agentguard::pipeline::passage_model::{self, Training};
use agentguard::pipeline::{Layer1, Pipeline};
use agentguard::redact::Redactor;

const MODELLED: [&str; 5] = [
    "commit",
    "scope-check",
    "scope-change",
    "shallow-bugfix",
    "bugfix-without-reproduction",
];

/// A Layer 1 hit of one row, with what the rules judge said of it.
struct Hit {
    detector: usize,
    passage: String,
    features: Vec<u16>,
    rules: RulesVerdict,
    settled_by_cues: bool,
}

struct Row {
    /// The repository of a real row; hand-written rows have none.
    repository: Option<String>,
    /// The fold the row is measured in; `None`: always trained on.
    fold: Option<usize>,
    blocks: BTreeSet<String>,
    hits: Vec<Hit>,
}

/// How the judge combines the rules answer with the model's score.
struct Policy {
    name: &'static str,
    /// A rules allow that no cue settled becomes a violation at or above this score.
    promote_allowed: f32,
    /// An unsure rules answer becomes a violation at or above this score.
    promote_unsure: f32,
    /// A rules violation that no cue settled becomes an allow at or below this score.
    demote: f32,
}

const POLICIES: [Policy; 5] = [
    Policy {
        name: "rules alone",
        promote_allowed: f32::INFINITY,
        promote_unsure: f32::INFINITY,
        demote: f32::NEG_INFINITY,
    },
    Policy {
        name: "as built (promote at 0.8)",
        promote_allowed: 0.8,
        promote_unsure: 0.8,
        demote: f32::NEG_INFINITY,
    },
    Policy {
        name: "unsure decided at 0.5",
        promote_allowed: 0.8,
        promote_unsure: 0.5,
        demote: f32::NEG_INFINITY,
    },
    Policy {
        name: "demote at 0.1",
        promote_allowed: 0.8,
        promote_unsure: 0.8,
        demote: 0.1,
    },
    Policy {
        name: "unsure at 0.5, demote at 0.1",
        promote_allowed: 0.8,
        promote_unsure: 0.5,
        demote: 0.1,
    },
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut folds = 5usize;
    let mut real_weight = 1usize;
    let mut hand_written = false;
    let mut files = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/messages.jsonl")];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--folds" => folds = args.next().ok_or("--folds needs a number")?.parse()?,
            "--real-weight" => {
                real_weight = args.next().ok_or("--real-weight needs a number")?.parse()?
            }
            "--hand-written" => hand_written = true,
            file => files.push(PathBuf::from(file)),
        }
    }
    let mut rows = load(&files)?;
    let repositories: Vec<&str> = rows
        .iter()
        .filter_map(|row| row.repository.as_deref())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    eprintln!(
        "{} rows, {} real from {} repositories",
        rows.len(),
        rows.iter().filter(|row| row.repository.is_some()).count(),
        repositories.len()
    );
    let folds_of: Vec<Option<usize>> = rows
        .iter()
        .enumerate()
        .map(|(index, row)| match &row.repository {
            Some(repository) => repositories.iter().position(|r| r == repository),
            None if hand_written => Some(index),
            None => None,
        })
        .collect();
    for (row, fold) in rows.iter_mut().zip(folds_of) {
        row.fold = fold.map(|fold| fold % folds);
    }
    let mut scores: Vec<Vec<f32>> = rows.iter().map(|row| vec![0.0; row.hits.len()]).collect();
    for fold in 0..folds {
        let held = |row: &Row| row.fold == Some(fold);
        let models: Vec<_> = (0..MODELLED.len())
            .map(|detector| {
                let mut examples = vec![];
                for row in rows.iter().filter(|row| !held(row)) {
                    let times = if row.repository.is_some() {
                        real_weight
                    } else {
                        1
                    };
                    for hit in row.hits.iter().filter(|hit| hit.detector == detector) {
                        let label = row.blocks.contains(MODELLED[detector]);
                        examples.extend((0..times).map(|_| (hit.features.clone(), label)));
                    }
                }
                passage_model::train(&examples, Training::default())
            })
            .collect();
        for (row, scores) in rows.iter().zip(&mut scores).filter(|(row, _)| held(row)) {
            for (hit, score) in row.hits.iter().zip(scores.iter_mut()) {
                *score = models[hit.detector].score(&hit.passage);
            }
        }
    }
    for policy in &POLICIES {
        report(policy, "real", &rows, &scores, |row| {
            row.repository.is_some()
        });
        if hand_written {
            report(policy, "hand-written", &rows, &scores, |row| {
                row.repository.is_none()
            });
        }
    }
    Ok(())
}

fn load(files: &[PathBuf]) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let config = Config::defaults();
    let detectors = Detectors::load(&config.detectors)?;
    let selected = detectors.select(Event::Stop, &[])?;
    let pipeline = Pipeline::new(selected.clone())?;
    let mut rows = vec![];
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        for (number, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let row: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| format!("{}:{}: {e}", file.display(), number + 1))?;
            let text = row["text"].as_str().ok_or("a row without text")?;
            let repository = row["note"]
                .as_str()
                .and_then(|note| note.strip_prefix("real ("))
                .and_then(|note| note.split('@').next())
                .map(str::to_string);
            let blocks = row["blocks"]
                .as_array()
                .ok_or("a row without blocks")?
                .iter()
                .filter_map(|block| block.as_str().map(str::to_string))
                .collect();
            let redacted = Redactor::builtin().redact_mapped(text);
            let mut hits = vec![];
            for (detector, layer1) in selected.iter().zip(pipeline.layer1(text)?) {
                let Some(index) = MODELLED.iter().position(|name| *name == detector.name) else {
                    continue;
                };
                if let Layer1::Hit { start, end, .. } = layer1 {
                    let passage = passage_model::passage(&redacted, start, end);
                    let answer = rules::decide(detector, &redacted.text, &Facts::default())?;
                    hits.push(Hit {
                        detector: index,
                        passage: passage.to_string(),
                        features: passage_model::features(passage),
                        settled_by_cues: answer.settled_by_cues(detector),
                        rules: answer.verdict,
                    });
                }
            }
            rows.push(Row {
                fold: None,
                repository,
                blocks,
                hits,
            });
        }
    }
    Ok(rows)
}

fn report(
    policy: &Policy,
    kind: &str,
    rows: &[Row],
    scores: &[Vec<f32>],
    measured: impl Fn(&Row) -> bool,
) {
    // (true positives, false positives, false negatives)
    let mut per_detector: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
    let mut messages = [0usize; 3];
    for (row, scores) in rows.iter().zip(scores) {
        if !measured(row) {
            continue;
        }
        let blocked: BTreeSet<&str> = row
            .hits
            .iter()
            .zip(scores)
            .filter(|&(hit, &score)| match hit.rules {
                RulesVerdict::Violation => hit.settled_by_cues || score > policy.demote,
                RulesVerdict::Unsure => score >= policy.promote_unsure,
                RulesVerdict::Allow => !hit.settled_by_cues && score >= policy.promote_allowed,
            })
            .map(|(hit, _)| MODELLED[hit.detector])
            .collect();
        for detector in MODELLED {
            let counts = per_detector.entry(detector).or_default();
            tally(
                counts,
                row.blocks.contains(detector),
                blocked.contains(detector),
            );
        }
        tally(&mut messages, !row.blocks.is_empty(), !blocked.is_empty());
    }
    println!("{} ({kind}): messages {}", policy.name, figures(messages));
    for (detector, counts) in per_detector {
        println!("  {detector:29} {}", figures(counts));
    }
}

fn tally(counts: &mut [usize; 3], expected: bool, blocked: bool) {
    match (expected, blocked) {
        (true, true) => counts[0] += 1,
        (false, true) => counts[1] += 1,
        (true, false) => counts[2] += 1,
        (false, false) => {}
    }
}

fn figures([tp, fp, fn_]: [usize; 3]) -> String {
    format!(
        "P {:.2} R {:.2} ({tp} found, {fp} false alarms, {fn_} missed)",
        tp as f64 / (tp + fp).max(1) as f64,
        tp as f64 / (tp + fn_).max(1) as f64,
    )
}
