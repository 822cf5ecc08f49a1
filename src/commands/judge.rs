//! `agentguard judge [FILE|-]`: run the detectors on a text, as the Stop hook would;
//! `--transcript JSONL` judges a stop from a transcript, its text and its tool calls.

use std::io::{Read, Write};

use serde_json::json;

use crate::cli::JudgeArgs;
use crate::config::Config;
use crate::detectors::{Detectors, Event, JudgeBy};
use crate::error::{Error, Result, exit};
use crate::eval;
use crate::evidence::{self, Evidence};
use crate::pipeline::{Judge, Judgement, Layer1, Pipeline, Verdict};

/// Texts larger than this are refused: the judge reads a message, not a data set.
const MAX_TEXT_BYTES: u64 = 64 * 1024 * 1024;

pub fn run(args: JudgeArgs) -> Result<u8> {
    let cwd = std::env::current_dir().ok();
    let config = Config::load(cwd.as_deref())?;
    let detectors = Detectors::load(&config.detectors)?;
    detectors.check_patterns()?;
    let selected = if args.detectors.is_empty() {
        detectors.select(Event::Stop, &[])?
    } else {
        // Named detectors run whatever their event: `--detector destructive` judges a command.
        detectors.named(&args.detectors)?
    };
    let judge = Judge::from_config(&config, args.backend.as_deref());
    if args.backend.is_some() {
        // Fail on a wrong name now, even when Layer 1 would never need the backend.
        judge.backend()?;
    }
    if let Some(path) = &args.eval {
        return evaluate(path, &judge, &Pipeline::new(selected)?, args.json);
    }
    let pipeline = Pipeline::new(selected)?;
    let (judgement, evidence) = match &args.transcript {
        // As the hook: the turn's text with the final message, and its evidence (read only if
        // a detector hits, as in the hook; shown either way).
        Some(path) => {
            let last = args
                .file
                .as_deref()
                .map(|f| read_text(Some(f)))
                .transpose()?;
            let turn = crate::transcript::current_turn_text(path, config.stop.scan_bytes)
                .map_err(|err| Error::io_at("read", path, err))?;
            let text = crate::transcript::stop_text(Some(turn), last.as_deref());
            let lazy = evidence::Lazy::new(|| evidence::from_transcript(path, last.as_deref()));
            let judgement = judge.judge_with_evidence(&pipeline, &text, &lazy)?;
            (judgement, lazy.get().map(Evidence::log_summary))
        }
        None => (
            judge.judge(&pipeline, &read_text(args.file.as_deref())?)?,
            None,
        ),
    };
    if args.json {
        let mut value = to_json(&judgement);
        if let Some(evidence) = &evidence {
            value["evidence"] = json!(evidence);
        }
        writeln!(std::io::stdout(), "{value}")?;
    } else {
        write!(std::io::stdout(), "{}", to_table(&judgement))?;
        if let Some(evidence) = &evidence {
            let paint = crate::logview::render::Paint { color: false };
            let lines = crate::logview::render::evidence_lines(&paint, evidence);
            writeln!(std::io::stdout(), "{}", lines.join("\n"))?;
        }
    }
    Ok(match judgement.verdict {
        Verdict::Violation => exit::FOUND,
        Verdict::Fail => exit::UNJUDGED,
        Verdict::Allow => exit::OK,
    })
}

/// `--eval`: judges every labeled example and prints the figures per detector.
fn evaluate(path: &std::path::Path, judge: &Judge, pipeline: &Pipeline, json: bool) -> Result<u8> {
    let text = std::fs::read_to_string(path).map_err(|err| Error::io_at("read", path, err))?;
    let examples = eval::parse_examples(&text)
        .map_err(|err| Error::usage(format!("{}: {err}", path.display())))?;
    let backend = judge.backend()?;
    let mut scores = std::collections::BTreeMap::new();
    for example in &examples {
        let judgement = judge.judge(pipeline, &example.text)?;
        eval::score(&mut scores, pipeline.detectors(), example, &judgement);
    }
    // A labeled set holds texts, not transcripts: a detector judged by the turn's evidence
    // cannot be measured on it (its tests use real-shaped transcripts instead).
    let ordered: Vec<&eval::DetectorScore> = pipeline
        .detectors()
        .iter()
        .filter(|d| d.judge != JudgeBy::Evidence)
        .filter_map(|d| scores.get(&d.name))
        .collect();
    if json {
        let detectors: Vec<_> = ordered
            .iter()
            .map(|s| {
                json!({
                    "detector": s.detector,
                    "blocks": s.blocks,
                    "allows": s.allows,
                    "layer1_recall": s.layer1_recall(),
                    "layer1_pass_through": s.layer1_pass_through(),
                    "precision": s.precision(),
                    "recall": s.recall(),
                    "true_positives": s.true_positives,
                    "false_positives": s.false_positives,
                    "false_negatives": s.false_negatives,
                    "failures": s.failures,
                    "missed": s.missed,
                    "false_alarms": s.false_alarms,
                })
            })
            .collect();
        writeln!(
            std::io::stdout(),
            "{}",
            json!({"examples": examples.len(), "backend": backend.name(), "detectors": detectors})
        )?;
    } else {
        writeln!(
            std::io::stdout(),
            "{} examples from {}, judged by `{}`",
            examples.len(),
            path.display(),
            backend.name()
        )?;
        writeln!(
            std::io::stdout(),
            "{:<28} {:>6} {:>6} {:>9} {:>12} {:>9} {:>7} {:>5}",
            "DETECTOR",
            "BLOCKS",
            "ALLOWS",
            "L1 RECALL",
            "L1 PASS-THRU",
            "PRECISION",
            "RECALL",
            "FAIL"
        )?;
        for s in &ordered {
            writeln!(
                std::io::stdout(),
                "{:<28} {:>6} {:>6} {:>9.3} {:>12.3} {:>9.3} {:>7.3} {:>5}",
                s.detector,
                s.blocks,
                s.allows,
                s.layer1_recall(),
                s.layer1_pass_through(),
                s.precision(),
                s.recall(),
                s.failures
            )?;
        }
    }
    Ok(exit::OK)
}

fn read_text(file: Option<&std::path::Path>) -> Result<String> {
    let mut bytes = Vec::new();
    match file.filter(|f| f.as_os_str() != "-") {
        Some(path) => {
            let file = std::fs::File::open(path).map_err(|err| Error::io_at("read", path, err))?;
            file.take(MAX_TEXT_BYTES)
                .read_to_end(&mut bytes)
                .map_err(|err| Error::io_at("read", path, err))?;
        }
        None => {
            crate::text::say_when_stdin_is_a_terminal("judge");
            std::io::stdin()
                .lock()
                .take(MAX_TEXT_BYTES)
                .read_to_end(&mut bytes)?;
        }
    }
    let name = file
        .filter(|f| f.as_os_str() != "-")
        .map_or("stdin".to_string(), |f| f.display().to_string());
    if let Some(offset) = crate::text::binary_offset(&bytes) {
        return Err(Error::usage(format!(
            "{name} is binary, not text (a NUL byte or invalid UTF-8 at byte {offset}); judge \
             reads an agent's message"
        ))
        .with_hint("give the text itself (a transcript's message, a .txt or .md file)"));
    }
    Ok(String::from_utf8(bytes).expect("binary_offset found no invalid UTF-8"))
}

/// The documented, stable `--json` shape (README, "agentguard judge --json").
pub fn to_json(judgement: &Judgement) -> serde_json::Value {
    let detectors: Vec<_> = judgement
        .detectors
        .iter()
        .map(|o| {
            let mut entry = json!({
                "detector": o.detector,
                "layer1": o.layer1.label(),
                "verdict": o.verdict.as_str(),
                "decided_by": o.decided_by.map(|d| d.as_str()),
                "unsure": o.unsure,
                "fields": o.fields,
                "reason": o.reason,
                "backend": o.backend,
                "latency_ms": o.latency_ms,
            });
            match &o.layer1 {
                Layer1::Hit {
                    pattern,
                    start,
                    end,
                } => {
                    entry["layer1_pattern"] = json!(pattern);
                    entry["layer1_span"] = json!([start, end]);
                }
                Layer1::Skip { pattern } => entry["layer1_pattern"] = json!(pattern),
                Layer1::Miss => {}
            }
            if let Some(error) = &o.error {
                entry["error"] = json!(error);
                entry["error_cause"] = json!(o.error_cause);
            }
            if !o.redactions.is_empty() {
                entry["redactions"] = json!(o.redactions);
            }
            entry
        })
        .collect();
    json!({"verdict": judgement.verdict.as_str(), "detectors": detectors})
}

fn to_table(judgement: &Judgement) -> String {
    let mut rows = vec![[
        "DETECTOR".to_string(),
        "LAYER 1".into(),
        "VERDICT".into(),
        "DECIDED BY".into(),
        "BACKEND".into(),
        "MS".into(),
        "REASON".into(),
    ]];
    for o in &judgement.detectors {
        let reason = o.error.as_deref().or(o.reason.as_deref()).unwrap_or("");
        rows.push([
            o.detector.clone(),
            o.layer1.label().into(),
            o.verdict.as_str().into(),
            match (o.decided_by, o.unsure) {
                (Some(by), true) => format!("{} (unsure)", by.as_str()),
                (Some(by), false) => by.as_str().into(),
                (None, _) => "-".into(),
            },
            o.backend.clone().unwrap_or_else(|| "-".into()),
            if o.backend.is_some() {
                o.latency_ms.to_string()
            } else {
                "-".into()
            },
            crate::text::one_line(reason, 80),
        ]);
    }
    let widths: Vec<usize> = (0..7)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                if i == 6 {
                    cell.clone()
                } else {
                    format!("{cell:<w$}", w = widths[i])
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out.push_str(&format!("verdict: {}\n", judgement.verdict.as_str()));
    out
}
