//! `agentguard judge [FILE|-]`: run the detectors on a text, as the Stop hook would.

use std::io::Read;
use std::time::Duration;

use serde_json::json;

use crate::backends;
use crate::cli::JudgeArgs;
use crate::config::Config;
use crate::detectors::{Detectors, Event};
use crate::error::{Error, Result, exit};
use crate::pipeline::{self, Judgement, Layer1, Verdict, Window};

/// Texts larger than this are refused: the judge reads a message, not a data set.
const MAX_TEXT_BYTES: u64 = 64 * 1024 * 1024;

pub fn run(args: JudgeArgs) -> Result<u8> {
    let text = read_text(args.file.as_deref())?;
    let cwd = std::env::current_dir().ok();
    let config = Config::load(cwd.as_deref())?;
    let detectors = Detectors::load(&config)?;
    detectors.check_patterns()?;
    let selected = if args.detectors.is_empty() {
        detectors.select(Event::Stop, &[])?
    } else {
        // Named detectors run whatever their event: `--detector destructive` judges a command.
        detectors.named(&args.detectors)?
    };
    let backend_name = args.backend.as_deref();
    if let Some(name) = backend_name {
        // Fail on a wrong name now, even when Layer 1 would never need the backend.
        backends::select(&config, Some(name))?;
    }
    let window = Window {
        bytes: config.stop.window_bytes,
        ..Window::default()
    };
    let timeout = Duration::from_millis(config.judge.deadline_ms);
    let judgement = pipeline::judge(
        &selected,
        crate::text::tail(&text, config.stop.scan_bytes),
        window,
        || backends::select(&config, backend_name),
        timeout,
    )?;
    if args.json {
        println!("{}", to_json(&judgement));
    } else {
        print!("{}", to_table(&judgement));
    }
    Ok(if judgement.verdict == Verdict::Violation {
        exit::FOUND
    } else {
        exit::OK
    })
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
            std::io::stdin()
                .lock()
                .take(MAX_TEXT_BYTES)
                .read_to_end(&mut bytes)?;
        }
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
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
            o.backend.clone().unwrap_or_else(|| "-".into()),
            if o.backend.is_some() {
                o.latency_ms.to_string()
            } else {
                "-".into()
            },
            crate::text::one_line(reason, 80),
        ]);
    }
    let widths: Vec<usize> = (0..6)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                if i == 5 {
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
