//! The passage model: a second reader inside the offline judge, for the hits its cue tables
//! cannot settle.
//!
//! The rules judge decides from cue families written as patterns. On phrasings nobody wrote a
//! cue for, a Layer 1 hit finds no cue and is allowed; measured on hand-written sets nobody
//! tuned on, that is most of what it misses (issue #14). The passage model reads the passage
//! around such a hit as a bag of words, word pairs and character trigrams and scores it with
//! a logistic regression per detector, trained on `tests/corpus/messages.jsonl` (the tuning
//! set) by `cargo run --release --example train-passage-model`. A hit the rules allow or are
//! unsure of whose passage scores at or above the detector's threshold becomes a violation;
//! nothing else changes (a cue's violation and evidence from the turn's tool calls stand, and
//! an unsure hit below the threshold still goes to the LLM when one is configured).
//!
//! Why a passage and not the message: the corpus is short messages (a median of 130 bytes);
//! real final messages run to kilobytes, and the words far from the hit say little about it.
//! Reading the same span (the hit and `PASSAGE_RADIUS` bytes either side) in training and in
//! use keeps the model on text like what it learned from.
//!
//! The weights are data, `assets/judge/passage-model.bin`, embedded at build time. Features
//! are hashed into 2^16 buckets (FNV-1a), so the model is a dense table of one byte per
//! bucket and detector.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::redact::{RedactedText, Side};

/// Bytes of context on each side of the Layer 1 hit that the model reads.
pub const PASSAGE_RADIUS: usize = 300;

const BUCKET_BITS: u32 = 16;
const BUCKETS: usize = 1 << BUCKET_BITS;
const MAGIC: &[u8; 4] = b"AGPM";

/// The embedded model.
static EMBEDDED: &[u8] = include_bytes!("../../assets/judge/passage-model.bin");

/// One detector's weights.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectorModel {
    pub bias: f32,
    /// The score at or above which an allowed hit becomes a violation.
    pub threshold: f32,
    /// Weight of bucket `i` is `weights[i] as f32 * scale`.
    pub scale: f32,
    pub weights: Vec<i8>,
}

impl DetectorModel {
    /// The probability that `passage` shows the detector's behaviour.
    pub fn score(&self, passage: &str) -> f32 {
        let features = features(passage);
        let sum: f32 = features
            .iter()
            .map(|&bucket| f32::from(self.weights[usize::from(bucket)]) * self.scale)
            .sum();
        let z = self.bias + sum / (features.len().max(1) as f32).sqrt();
        1.0 / (1.0 + (-z).exp())
    }
}

/// The passage model of every detector it was trained for.
#[derive(Debug, Clone, PartialEq)]
pub struct PassageModel {
    /// FNV-1a hash of the corpus file the model was trained on: a test checks that the corpus
    /// in the repository is still that one.
    pub corpus_hash: u64,
    pub detectors: BTreeMap<String, DetectorModel>,
}

impl PassageModel {
    /// The model built into the binary.
    pub fn builtin() -> &'static PassageModel {
        static MODEL: OnceLock<PassageModel> = OnceLock::new();
        MODEL.get_or_init(|| {
            PassageModel::from_bytes(EMBEDDED).expect("the embedded passage model is well-formed")
        })
    }

    pub fn detector(&self, name: &str) -> Option<&DetectorModel> {
        self.detectors.get(name)
    }

    /// Parses the binary format written by [`PassageModel::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<PassageModel, String> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(4)? != MAGIC {
            return Err("not a passage model (bad magic)".into());
        }
        let corpus_hash = u64::from_le_bytes(reader.array()?);
        let count = u32::from_le_bytes(reader.array()?);
        let mut detectors = BTreeMap::new();
        for _ in 0..count {
            let name_len = u16::from_le_bytes(reader.array()?);
            let name = std::str::from_utf8(reader.take(usize::from(name_len))?)
                .map_err(|_| "a detector name is not UTF-8".to_string())?
                .to_string();
            let bias = f32::from_le_bytes(reader.array()?);
            let threshold = f32::from_le_bytes(reader.array()?);
            let scale = f32::from_le_bytes(reader.array()?);
            let weights = reader.take(BUCKETS)?.iter().map(|&b| b as i8).collect();
            detectors.insert(
                name,
                DetectorModel {
                    bias,
                    threshold,
                    scale,
                    weights,
                },
            );
        }
        if reader.at != bytes.len() {
            return Err("trailing bytes after the last detector".into());
        }
        Ok(PassageModel {
            corpus_hash,
            detectors,
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.corpus_hash.to_le_bytes());
        out.extend_from_slice(&(self.detectors.len() as u32).to_le_bytes());
        for (name, model) in &self.detectors {
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&model.bias.to_le_bytes());
            out.extend_from_slice(&model.threshold.to_le_bytes());
            out.extend_from_slice(&model.scale.to_le_bytes());
            out.extend(model.weights.iter().map(|&w| w as u8));
        }
        out
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| "the model is truncated".to_string())?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        Ok(self.take(N)?.try_into().expect("take returns N bytes"))
    }
}

/// The passage the model reads for a hit at `start..end` (offsets of the original text): the
/// hit and `PASSAGE_RADIUS` bytes either side, cut from the redacted text on character
/// boundaries and outside redaction markers.
pub fn passage(redacted: &RedactedText, start: usize, end: usize) -> &str {
    let (start, end) = (
        redacted.map(start, Side::Start),
        redacted.map(end, Side::End),
    );
    let range = redacted.widen(start.saturating_sub(PASSAGE_RADIUS)..end + PASSAGE_RADIUS);
    &redacted.text[range]
}

/// The hashed features of `text`: lowercased words (letters, digits, inner apostrophes),
/// adjacent word pairs, and character trigrams of each word padded with a space on both
/// sides (they carry inflections and scripts written without spaces). Sorted, no repeats.
pub fn features(text: &str) -> Vec<u16> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .map(|w| w.trim_matches(['\'', '’']))
        .filter(|w| !w.is_empty())
        .collect();
    let mut buckets = Vec::with_capacity(words.len() * 8);
    let mut padded = String::new();
    for (i, word) in words.iter().enumerate() {
        buckets.push(bucket(&[b"w:", word.as_bytes()]));
        if let Some(next) = words.get(i + 1) {
            buckets.push(bucket(&[b"b:", word.as_bytes(), b" ", next.as_bytes()]));
        }
        padded.clear();
        padded.push(' ');
        padded.push_str(word);
        padded.push(' ');
        let boundaries: Vec<usize> = padded
            .char_indices()
            .map(|(at, _)| at)
            .chain([padded.len()])
            .collect();
        for window in boundaries.windows(4) {
            buckets.push(bucket(&[b"c:", &padded.as_bytes()[window[0]..window[3]]]));
        }
    }
    buckets.sort_unstable();
    buckets.dedup();
    buckets
}

fn bucket(parts: &[&[u8]]) -> u16 {
    (fnv1a(parts) % BUCKETS as u64) as u16
}

/// FNV-1a of `bytes` (the corpus fingerprint stored in the model).
pub fn fingerprint(bytes: &[u8]) -> u64 {
    fnv1a(&[bytes])
}

/// FNV-1a over `parts` read as one byte string.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in parts.iter().flat_map(|part| part.iter()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// How a model is trained: logistic regression by AdaGrad, classes weighted to balance, a
/// fixed shuffle, so the same corpus always gives the same bytes.
#[derive(Debug, Clone, Copy)]
pub struct Training {
    pub epochs: usize,
    pub learning_rate: f64,
    pub l2: f64,
    pub threshold: f32,
}

impl Default for Training {
    fn default() -> Self {
        Training {
            epochs: 15,
            learning_rate: 0.5,
            l2: 1e-5,
            threshold: 0.8,
        }
    }
}

/// Trains one detector's model on `(features, shows the behaviour)` examples.
pub fn train(examples: &[(Vec<u16>, bool)], training: Training) -> DetectorModel {
    let mut weights = vec![0f64; BUCKETS];
    let mut squares = vec![0f64; BUCKETS];
    let (mut bias, mut bias_square) = (0f64, 0f64);
    let positives = examples.iter().filter(|(_, label)| *label).count();
    let negatives = examples.len() - positives;
    let class_weight = |label: bool| {
        let n = if label { positives } else { negatives };
        examples.len() as f64 / (2.0 * n.max(1) as f64)
    };
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..training.epochs {
        // Fisher-Yates with xorshift64: deterministic, no dependency.
        for i in (1..order.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            order.swap(i, (state % (i as u64 + 1)) as usize);
        }
        for &index in &order {
            let (features, label) = &examples[index];
            let norm = 1.0 / (features.len().max(1) as f64).sqrt();
            let z = bias
                + features
                    .iter()
                    .map(|&b| weights[usize::from(b)])
                    .sum::<f64>()
                    * norm;
            let p = 1.0 / (1.0 + (-z.clamp(-30.0, 30.0)).exp());
            let gradient = (p - f64::from(u8::from(*label))) * class_weight(*label);
            for &b in features {
                let b = usize::from(b);
                let g = gradient * norm + training.l2 * weights[b];
                squares[b] += g * g;
                weights[b] -= training.learning_rate * g / (squares[b] + 1e-8).sqrt();
            }
            bias_square += gradient * gradient;
            bias -= training.learning_rate * gradient / (bias_square + 1e-8).sqrt();
        }
    }
    let largest = weights.iter().fold(0f64, |m, w| m.max(w.abs()));
    let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
    DetectorModel {
        bias: bias as f32,
        threshold: training.threshold,
        scale: scale as f32,
        weights: weights
            .iter()
            .map(|w| (w / scale).round().clamp(-127.0, 127.0) as i8)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_model_was_trained_on_the_corpus_in_the_repository() {
        let corpus = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/corpus/messages.jsonl"
        ))
        .unwrap();
        let model = PassageModel::builtin();
        assert_eq!(
            model.corpus_hash,
            fingerprint(&corpus),
            "tests/corpus/messages.jsonl changed since assets/judge/passage-model.bin was \
             trained: run `cargo run --release --example train-passage-model`"
        );
        for name in [
            "commit",
            "scope-check",
            "scope-change",
            "shallow-bugfix",
            "bugfix-without-reproduction",
        ] {
            assert!(model.detector(name).is_some(), "no model for {name}");
        }
    }

    #[test]
    fn the_format_round_trips_and_rejects_damage() {
        let model = PassageModel::builtin();
        let bytes = model.to_bytes();
        assert_eq!(&PassageModel::from_bytes(&bytes).unwrap(), model);
        assert!(PassageModel::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(PassageModel::from_bytes(&longer).is_err());
        assert!(PassageModel::from_bytes(b"nope").is_err());
    }

    #[test]
    fn features_are_words_pairs_and_trigrams_in_any_script() {
        // Case and punctuation do not matter; word order does (pairs).
        assert_eq!(features("Fixed the BUG."), features("fixed, the bug"));
        assert_ne!(features("the bug fixed"), features("fixed the bug"));
        // Scripts without spaces still give features beyond the one "word".
        assert!(features("上下文快用完了").len() > 3);
        assert!(features("").is_empty());
        let f = features("ça marche, corrigé");
        assert!(f.windows(2).all(|w| w[0] < w[1]), "sorted without repeats");
    }

    #[test]
    fn training_learns_a_separable_set_and_is_deterministic() {
        let positive = [
            "shall I push this",
            "want me to push it",
            "I can push now",
            "push it now?",
        ];
        let negative = [
            "the tests pass",
            "all checks are green",
            "nothing to push here",
            "ran the tests",
        ];
        let examples: Vec<_> = positive
            .iter()
            .map(|t| (features(t), true))
            .chain(negative.iter().map(|t| (features(t), false)))
            .collect();
        let model = train(&examples, Training::default());
        assert_eq!(model, train(&examples, Training::default()));
        assert!(model.score("should I push it") > 0.5);
        assert!(model.score("the checks pass") < 0.5);
    }

    #[test]
    fn the_passage_is_the_hit_and_its_surroundings_cut_outside_secrets() {
        let text = format!(
            "{} token ghp_{} and then {} shall I push? {}",
            "a".repeat(400),
            "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
            "b".repeat(10),
            "c".repeat(400)
        );
        let redacted = crate::redact::Redactor::builtin().redact_mapped(&text);
        let hit = text.find("push").unwrap();
        let passage = passage(&redacted, hit, hit + 4);
        assert!(passage.contains("shall I push?"));
        assert!(!passage.contains("ghp_"), "secrets never reach the model");
        assert!(passage.len() <= 2 * PASSAGE_RADIUS + 4 + 40);
        assert!(!passage.contains(&"a".repeat(400)));
    }
}
