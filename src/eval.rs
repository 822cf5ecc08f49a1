//! Measuring the detectors on a labeled set: the repo's evaluation corpus
//! (`tests/corpus/messages.jsonl`) or a user's own labeled decisions (`logs export --labeled`).
//!
//! Format, one JSON object per line: `{"id": "...", "lang": "en", "blocks": ["commit"],
//! "text": "...", "note": "..."}` where `blocks` lists every detector that should block the text
//! (empty: innocent for all). Only `text` and `blocks` are required.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::detectors::Detector;
use crate::pipeline::{Judgement, Layer1, Verdict};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Example {
    #[serde(default)]
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    pub blocks: Vec<String>,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Parses a labeled set; an invalid line is an error naming its line number.
pub fn parse_examples(text: &str) -> Result<Vec<Example>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str::<Example>(line).map_err(|err| format!("line {}: {err}", i + 1))
        })
        .collect()
}

/// Figures for one detector.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DetectorScore {
    pub detector: String,
    /// Examples that should block / should not.
    pub blocks: usize,
    pub allows: usize,
    /// Blocks whose Layer 1 hit (a skip or a miss loses the example before the judge).
    pub layer1_hits_on_blocks: usize,
    /// Allows that Layer 1 let through without the judge (miss or skip).
    pub layer1_passes_on_allows: usize,
    pub true_positives: usize,
    pub false_positives: usize,
    pub false_negatives: usize,
    /// Judge failures (counted as not blocking).
    pub failures: usize,
    /// Ids of the examples judged wrong, for tuning.
    pub missed: Vec<String>,
    pub false_alarms: Vec<String>,
}

impl DetectorScore {
    pub fn layer1_recall(&self) -> f64 {
        ratio(self.layer1_hits_on_blocks, self.blocks)
    }
    pub fn layer1_pass_through(&self) -> f64 {
        ratio(self.layer1_passes_on_allows, self.allows)
    }
    pub fn precision(&self) -> f64 {
        ratio(
            self.true_positives,
            self.true_positives + self.false_positives,
        )
    }
    pub fn recall(&self) -> f64 {
        ratio(
            self.true_positives,
            self.true_positives + self.false_negatives,
        )
    }
}

fn ratio(numerator: usize, denominator: usize) -> f64 {
    if denominator == 0 {
        1.0
    } else {
        numerator as f64 / denominator as f64
    }
}

/// Adds one judged example to the scores of `detectors`.
pub fn score(
    scores: &mut BTreeMap<String, DetectorScore>,
    detectors: &[&Detector],
    example: &Example,
    judgement: &Judgement,
) {
    for (detector, outcome) in detectors.iter().zip(&judgement.detectors) {
        let score = scores
            .entry(detector.name.clone())
            .or_insert_with(|| DetectorScore {
                detector: detector.name.clone(),
                ..Default::default()
            });
        let should_block = example.blocks.contains(&detector.name);
        let hit = matches!(outcome.layer1, Layer1::Hit { .. });
        let blocked = outcome.verdict == Verdict::Violation;
        if outcome.verdict == Verdict::Fail {
            score.failures += 1;
        }
        if should_block {
            score.blocks += 1;
            score.layer1_hits_on_blocks += usize::from(hit);
            if blocked {
                score.true_positives += 1;
            } else {
                score.false_negatives += 1;
                score.missed.push(example.id.clone());
            }
        } else {
            score.allows += 1;
            score.layer1_passes_on_allows += usize::from(!hit);
            if blocked {
                score.false_positives += 1;
                score.false_alarms.push(example.id.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_names_bad_lines() {
        let ok = parse_examples("{\"blocks\":[\"commit\"],\"text\":\"a\"}\n\n{\"id\":\"x\",\"blocks\":[],\"text\":\"b\"}\n").unwrap();
        assert_eq!(ok.len(), 2);
        let err = parse_examples("{\"blocks\":[],\"text\":\"a\"}\n{\"text\":1}\n").unwrap_err();
        assert!(err.starts_with("line 2:"), "{err}");
    }

    #[test]
    fn ratios() {
        let score = DetectorScore {
            blocks: 4,
            allows: 10,
            layer1_hits_on_blocks: 4,
            layer1_passes_on_allows: 5,
            true_positives: 3,
            false_positives: 1,
            false_negatives: 1,
            ..Default::default()
        };
        assert_eq!(score.layer1_recall(), 1.0);
        assert_eq!(score.layer1_pass_through(), 0.5);
        assert_eq!(score.precision(), 0.75);
        assert_eq!(score.recall(), 0.75);
    }
}
