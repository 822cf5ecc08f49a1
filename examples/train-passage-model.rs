//! Trains the passage model (`src/pipeline/passage_model.rs`) on the tuning corpus and writes
//! `assets/judge/passage-model.bin`.
//!
//! For each built-in Stop detector the examples are the corpus rows where its Layer 1 hits
//! (the only rows the model is ever asked about), read as the pipeline reads them: the passage
//! around the hit, cut from the redacted text. A row shows the behaviour when the detector is
//! among its `blocks`; rows marked `unsure` are left out. Training is deterministic: the same
//! corpus gives the same bytes, and a unit test checks the embedded model was trained on the
//! corpus in the repository.
//!
//! Run: `cargo run --release --example train-passage-model`

use std::collections::BTreeMap;
use std::path::Path;

use agentguard::config::Config;
use agentguard::detectors::{Detectors, Event};
use agentguard::pipeline::passage_model::{self, PassageModel, Training};
use agentguard::pipeline::{Layer1, Pipeline};
use agentguard::redact::Redactor;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus_path = root.join("tests/corpus/messages.jsonl");
    let corpus = std::fs::read(&corpus_path)?;
    let config = Config::defaults();
    let detectors = Detectors::load(&config.detectors)?;
    let selected = detectors.select(Event::Stop, &[])?;
    let pipeline = Pipeline::new(selected.clone())?;
    let mut examples: BTreeMap<String, Vec<(Vec<u16>, bool)>> = BTreeMap::new();
    for (number, line) in std::str::from_utf8(&corpus)?.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("{}:{}: {e}", corpus_path.display(), number + 1))?;
        if row["unsure"].as_bool() == Some(true) {
            continue;
        }
        let text = row["text"].as_str().ok_or("a row without text")?;
        let blocks: Vec<&str> = row["blocks"]
            .as_array()
            .map(|b| b.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        let redacted = Redactor::builtin().redact_mapped(text);
        for (detector, layer1) in selected.iter().zip(pipeline.layer1(text)?) {
            if let Layer1::Hit { start, end, .. } = layer1 {
                let passage = passage_model::passage(&redacted, start, end);
                examples.entry(detector.name.clone()).or_default().push((
                    passage_model::features(passage),
                    blocks.contains(&detector.name.as_str()),
                ));
            }
        }
    }
    let trained = [
        "commit",
        "scope-check",
        "scope-change",
        "shallow-bugfix",
        "bugfix-without-reproduction",
    ];
    let mut model = PassageModel {
        corpus_hash: passage_model::fingerprint(&corpus),
        detectors: BTreeMap::new(),
    };
    for name in trained {
        let rows = examples.get(name).map(Vec::as_slice).unwrap_or_default();
        let positives = rows.iter().filter(|(_, label)| *label).count();
        eprintln!("{name}: {} hits, {positives} violations", rows.len());
        model.detectors.insert(
            name.to_string(),
            passage_model::train(rows, Training::default()),
        );
    }
    let out = root.join("assets/judge/passage-model.bin");
    std::fs::write(&out, model.to_bytes())?;
    eprintln!("wrote {}", out.display());
    Ok(())
}
