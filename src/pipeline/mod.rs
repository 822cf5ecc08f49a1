//! The judge pipeline, one for every caller (`hook stop`, `hook pre-tool`, `judge`,
//! `logs replay`).
//!
//! Layer 1 runs every selected detector's triggers over the text in one pass; a detector that
//! hits is checked against its skips; each remaining hit goes to Layer 2. Layer 2 is a cascade
//! (SPEC §1): the offline rules judge answers first, `violation`, `allow` or `unsure`; only an
//! `unsure` hit goes to the configured LLM backend: redact → wrap → backend → extract the JSON
//! object → formula → `violation | allow | fail`. With the `rules` backend alone, unsure allows
//! (and says so). Several LLM calls run in parallel under one shared deadline. Every outcome
//! says which layer decided (`decided_by`).

mod judge;
pub mod passage_model;
pub mod reply;
pub mod wrap;

pub use judge::Judge;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::backends::rules::{self, Facts, RulesAnswer, RulesVerdict};
use crate::backends::{Backend, JudgeRequest};
use crate::detectors::{Detector, JudgeBy, TriggerSet};
use crate::error::Result;
use crate::evidence::{self, Evidence};
use crate::redact::{Redacted, RedactedText, RedactionCounts, Redactor, Side};
use passage_model::{PassageModel, passage};

/// What Layer 1 found for one detector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Layer1 {
    Miss,
    Hit {
        pattern: String,
        start: usize,
        end: usize,
    },
    Skip {
        pattern: String,
    },
}

impl Layer1 {
    pub fn label(&self) -> &'static str {
        match self {
            Layer1::Miss => "miss",
            Layer1::Hit { .. } => "hit",
            Layer1::Skip { .. } => "skip",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Violation,
    #[default]
    Allow,
    Fail,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Violation => "violation",
            Verdict::Allow => "allow",
            Verdict::Fail => "fail",
        }
    }
}

/// Which layer settled a detector's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DecidedBy {
    /// No hit, or a skip: no judge ran.
    Layer1,
    /// The offline rules judge (sure, or unsure with no LLM configured: then it allows).
    Rules,
    /// The LLM backend, on a hit the rules judge was unsure of (or on every hit with
    /// `judge.cascade = "llm-only"`).
    Llm,
}

impl DecidedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            DecidedBy::Layer1 => "layer1",
            DecidedBy::Rules => "rules",
            DecidedBy::Llm => "llm",
        }
    }
}

/// How the rules judge and an LLM backend combine: a config setting (`judge.cascade`).
pub use crate::config::Cascade;

/// The outcome of one detector on one text.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Outcome {
    pub detector: String,
    pub layer1: Layer1,
    pub verdict: Verdict,
    /// Which layer decided (absent in records written before the cascade).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<DecidedBy>,
    /// The rules judge was unsure of this hit (it went to the LLM, or, with `rules` alone,
    /// was allowed for that reason).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsure: bool,
    #[serde(default)]
    pub fields: BTreeMap<String, bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default)]
    pub latency_ms: u64,
    /// Why the judge failed (with `verdict: fail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Short cause label of the failure: timeout, spawn, exit, http, reply, config.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_cause: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub redactions: RedactionCounts,
}

impl Outcome {
    fn without_judge(detector: &Detector, layer1: Layer1) -> Outcome {
        Outcome::unjudged(&detector.name, layer1)
    }

    /// A Layer 1 miss of the detector `name`: what the pipeline says of a detector none of
    /// whose triggers matched.
    pub fn miss(name: &str) -> Outcome {
        Outcome::unjudged(name, Layer1::Miss)
    }

    fn unjudged(name: &str, layer1: Layer1) -> Outcome {
        Outcome {
            detector: name.to_string(),
            layer1,
            verdict: Verdict::Allow,
            decided_by: Some(DecidedBy::Layer1),
            unsure: false,
            fields: BTreeMap::new(),
            reason: None,
            backend: None,
            model: None,
            latency_ms: 0,
            error: None,
            error_cause: None,
            redactions: RedactionCounts::new(),
        }
    }

    /// The outcome of Layer 1 alone, without a judge: a hit counts as a violation. Used where
    /// a hit is enough to act (the PreToolUse gate with `[pretool] judge = false`).
    pub fn from_layer1(detector: &Detector, layer1: Layer1) -> Outcome {
        let hit = matches!(layer1, Layer1::Hit { .. });
        let mut outcome = Outcome::without_judge(detector, layer1);
        if hit {
            outcome.verdict = Verdict::Violation;
            outcome.reason = Some("Layer 1 hit (no judge configured for this event)".into());
        }
        outcome
    }

    /// A stable fingerprint of the passage that triggered (for the loop guard): the sentence of
    /// `detector`'s LAST trigger match, normalized, hashed. The last, not Layer 1's first: after
    /// a block the host's feedback is not a user turn, so the judged text still begins with the
    /// passage already blocked, and a new proposal the agent makes comes after it.
    pub fn passage_fingerprint(&self, detector: &Detector, text: &str) -> Option<String> {
        let Layer1::Hit { start, end, .. } = self.layer1 else {
            return None;
        };
        // Only a trigger whose gate occurs from the hit on can match there, and the hit's own
        // trigger matches there: the others' last matches start before it and cannot win.
        let (start, end) = detector
            .triggers_for(text.get(start..).unwrap_or(text))
            .ok()
            .and_then(|triggers| {
                triggers
                    .iter()
                    .filter_map(|re| re.find_iter(text).last())
                    .max_by_key(|found| found.start())
                    .map(|found| (found.start(), found.end()))
            })
            .unwrap_or((start, end));
        let passage = sentence_around(text, start, end);
        let normalized: String = passage
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        Some(crate::text::short_hash(&normalized))
    }
}

/// The outcome of all selected detectors.
#[derive(Debug, Clone, Serialize)]
pub struct Judgement {
    pub verdict: Verdict,
    pub detectors: Vec<Outcome>,
}

impl Judgement {
    pub fn from_outcomes(detectors: Vec<Outcome>) -> Judgement {
        let verdict = if detectors.iter().any(|o| o.verdict == Verdict::Violation) {
            Verdict::Violation
        } else if detectors.iter().any(|o| o.verdict == Verdict::Fail) {
            Verdict::Fail
        } else {
            Verdict::Allow
        };
        Judgement { verdict, detectors }
    }

    pub fn violations(&self) -> impl Iterator<Item = &Outcome> {
        self.detectors
            .iter()
            .filter(|o| o.verdict == Verdict::Violation)
    }

    pub fn failures(&self) -> impl Iterator<Item = &Outcome> {
        self.detectors.iter().filter(|o| o.verdict == Verdict::Fail)
    }

    /// True when no detector needed the judge (every stop that ends at Layer 1).
    pub fn decided_by_layer1(&self) -> bool {
        self.detectors
            .iter()
            .all(|o| !matches!(o.layer1, Layer1::Hit { .. }))
    }
}

/// How much of the text the judge sees.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// The judge sees the last `bytes` of the text...
    pub bytes: usize,
    /// ...plus this many bytes around a Layer 1 hit that lies before that window.
    pub excerpt_bytes: usize,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            bytes: 4000,
            excerpt_bytes: 600,
        }
    }
}

/// The selected detectors with their Layer 1 automaton, built once and used for any number
/// of texts (a hook judges one; `judge --eval` and `logs replay` judge many).
pub struct Pipeline<'a> {
    triggers: TriggerSet<'a>,
    cascade: Cascade,
}

impl<'a> Pipeline<'a> {
    pub fn new(detectors: Vec<&'a Detector>) -> Result<Pipeline<'a>> {
        Ok(Pipeline {
            triggers: TriggerSet::new(&detectors)?,
            cascade: Cascade::default(),
        })
    }

    /// How the rules judge and an LLM backend combine (default: rules first).
    pub fn with_cascade(mut self, cascade: Cascade) -> Pipeline<'a> {
        self.cascade = cascade;
        self
    }

    pub fn detectors(&self) -> &[&'a Detector] {
        self.triggers.detectors()
    }

    /// Layer 1 alone: one outcome per detector (miss, hit or skip).
    pub fn layer1(&self, text: &str) -> Result<Vec<Layer1>> {
        layer1(&self.triggers, text)
    }

    /// The whole pipeline on `text`. The backend is only built when a hit needs it (most
    /// stops end at Layer 1 or with the rules judge); if it cannot be built, every hit that
    /// needed it fails with that reason.
    pub fn judge(
        &self,
        text: &str,
        window: Window,
        backend: impl FnOnce() -> Result<Box<dyn Backend>>,
        timeout: Duration,
    ) -> Result<Judgement> {
        self.judge_with(
            text,
            window,
            self.cascade,
            backend,
            timeout,
            &evidence::Lazy::none(),
        )
    }

    /// [`Pipeline::judge`] with an explicit cascade and the turn's evidence, which is read only
    /// when Layer 1 hits: an evidence-judged detector decides from it without a backend, the
    /// offline judge takes it over the words ([`Facts::from_evidence`]), an LLM judge gets its
    /// redacted summary next to the text.
    pub fn judge_with(
        &self,
        text: &str,
        window: Window,
        cascade: Cascade,
        backend: impl FnOnce() -> Result<Box<dyn Backend>>,
        timeout: Duration,
        evidence: &evidence::Lazy,
    ) -> Result<Judgement> {
        judge(
            &self.triggers,
            cascade,
            text,
            window,
            backend,
            timeout,
            evidence,
        )
    }
}

fn layer1(set: &TriggerSet, text: &str) -> Result<Vec<Layer1>> {
    let detectors = set.detectors();
    let mut results = vec![Layer1::Miss; detectors.len()];
    for hit in set.hits(text)? {
        let detector = detectors[hit.detector];
        let skip = detector
            .skip_match(text)
            .map_err(crate::error::Error::config)?;
        results[hit.detector] = match skip {
            Some(skip) => Layer1::Skip {
                pattern: skip.to_string(),
            },
            None => Layer1::Hit {
                pattern: detector.triggers[hit.trigger].clone(),
                start: hit.start,
                end: hit.end,
            },
        };
    }
    Ok(results)
}

/// A Layer 1 hit made ready for Layer 2: the judged text, redacted, and the rules judge's
/// answer on it.
struct Prepared {
    text: String,
    redactions: RedactionCounts,
    rules: std::result::Result<RulesAnswer, String>,
}

impl Prepared {
    /// Whether this hit needs the configured backend.
    fn needs_backend(&self, cascade: Cascade) -> bool {
        cascade == Cascade::LlmOnly
            || matches!(&self.rules, Ok(answer) if answer.verdict == RulesVerdict::Unsure)
    }
}

fn judge(
    set: &TriggerSet,
    cascade: Cascade,
    text: &str,
    window: Window,
    backend: impl FnOnce() -> Result<Box<dyn Backend>>,
    timeout: Duration,
    evidence: &evidence::Lazy,
) -> Result<Judgement> {
    let deadline = Instant::now() + timeout;
    let detectors = set.detectors();
    let layer1 = layer1(set, text)?;
    if !layer1.iter().any(|l| matches!(l, Layer1::Hit { .. })) {
        let outcomes = detectors
            .iter()
            .zip(layer1)
            .map(|(detector, result)| Outcome::without_judge(detector, result))
            .collect();
        return Ok(Judgement::from_outcomes(outcomes));
    }
    let evidence = evidence.get();
    // Redact, then cut: the window and the excerpt are cut from the redacted text, so a cut can
    // never fall inside a secret (a cut PEM block or token would lose the prefix that
    // identifies it).
    let redacted = Redactor::builtin().redact_mapped(text);
    let prepared: Vec<Option<Prepared>> = detectors
        .iter()
        .zip(&layer1)
        .map(|(detector, result)| match result {
            &Layer1::Hit { start, end, .. } if detector.judge == JudgeBy::Backend => {
                let judged = judged_text(&redacted, window, start, end);
                // The rules judge reads the whole (redacted) text: evidence 10 kB before the
                // proposal still counts, and nothing leaves the process. What the turn did
                // outweighs what the message says.
                let facts = Facts::from_evidence(detector, evidence);
                let rules = rules::decide(detector, &redacted.text, &facts).map(|answer| {
                    let passage = passage(&redacted, start, end);
                    reconsider(PassageModel::builtin(), detector, answer, passage)
                });
                Some(Prepared {
                    text: judged.text,
                    redactions: judged.counts,
                    rules,
                })
            }
            _ => None,
        })
        .collect();
    let needs_backend = prepared.iter().flatten().any(|p| p.needs_backend(cascade));
    // The backend, when a hit needs it; with `rules` itself configured there is no LLM and
    // an unsure answer allows.
    let backend = if needs_backend { Some(backend()) } else { None };
    let llm = match &backend {
        Some(Ok(backend)) if backend.name() != "rules" => Some(Ok(backend.as_ref())),
        Some(Err(err)) => Some(Err(err.message.clone())),
        _ => None,
    };
    let outcomes = std::thread::scope(|scope| {
        let handles: Vec<_> = detectors
            .iter()
            .zip(layer1)
            .zip(&prepared)
            .map(|((detector, result), prepared)| {
                if detector.judge == JudgeBy::Evidence {
                    return (None, judge_offline(detector, result, text, evidence));
                }
                let fallback = Outcome::without_judge(detector, result.clone());
                let Some(prepared) = prepared else {
                    return (None, fallback);
                };
                let offline = offline_outcome(detector, result.clone(), prepared);
                if !prepared.needs_backend(cascade) {
                    return (None, offline);
                }
                match &llm {
                    None => (None, offline),
                    Some(Err(err)) => (
                        None,
                        Outcome {
                            verdict: Verdict::Fail,
                            decided_by: Some(DecidedBy::Llm),
                            error_cause: Some("config".into()),
                            error: Some(err.clone()),
                            ..offline
                        },
                    ),
                    Some(Ok(backend)) => {
                        let backend = *backend;
                        let handle = scope.spawn(move || {
                            judge_one(detector, result, prepared, evidence, backend, deadline)
                        });
                        (Some(handle), fallback)
                    }
                }
            })
            .collect();
        handles
            .into_iter()
            .map(|(handle, fallback)| match handle {
                None => fallback,
                Some(handle) => handle.join().unwrap_or_else(|_| Outcome {
                    verdict: Verdict::Fail,
                    decided_by: Some(DecidedBy::Llm),
                    error: Some("the judge thread panicked".into()),
                    error_cause: Some("panic".into()),
                    ..fallback
                }),
            })
            .collect()
    });
    Ok(Judgement::from_outcomes(outcomes))
}

/// The offline judge's second reader: a hit whose rules answer does not follow from the cues
/// alone (allowed only because no cue said a field was true, or unsure) is a violation when the
/// passage model scores its passage at or above the detector's threshold. What a cue or the
/// turn's tool calls settled stands: "All 40 tests pass. Ready to push?" stays allowed
/// however the passage reads. Below the threshold the answer stands, so an unsure hit still
/// goes to the LLM when one is configured. See `passage_model`.
fn reconsider(
    model: &PassageModel,
    detector: &Detector,
    answer: RulesAnswer,
    passage: &str,
) -> RulesAnswer {
    if answer.verdict == RulesVerdict::Violation || answer.settled_by_cues(detector) {
        return answer;
    }
    let Some(model) = model.detector(&detector.name) else {
        return answer;
    };
    let score = model.score(passage);
    if score < model.threshold {
        return answer;
    }
    RulesAnswer {
        verdict: RulesVerdict::Violation,
        reason: format!(
            "passage model: violation: {score:.2} >= {:.2} on the passage around the hit ({})",
            model.threshold, answer.reason
        ),
        ..answer
    }
}

/// The rules judge's outcome for a hit: its verdict, unsure allowing (fail-open, and marked).
fn offline_outcome(detector: &Detector, layer1: Layer1, prepared: &Prepared) -> Outcome {
    let mut outcome = Outcome {
        backend: Some("rules".into()),
        decided_by: Some(DecidedBy::Rules),
        redactions: prepared.redactions.clone(),
        ..Outcome::without_judge(detector, layer1)
    };
    match &prepared.rules {
        Err(err) => {
            outcome.verdict = Verdict::Fail;
            outcome.error_cause = Some("config".into());
            outcome.error = Some(err.clone());
        }
        Ok(answer) => {
            outcome.verdict = match answer.verdict {
                RulesVerdict::Violation => Verdict::Violation,
                RulesVerdict::Allow | RulesVerdict::Unsure => Verdict::Allow,
            };
            outcome.unsure = answer.verdict == RulesVerdict::Unsure;
            outcome.fields = answer.settled_fields();
            outcome.reason = Some(answer.reason.clone());
        }
    }
    outcome
}

/// The outcome of a detector that no backend judges: a hit of an evidence-judged detector is
/// decided by the turn's evidence, anything else is Layer 1's.
fn judge_offline(
    detector: &Detector,
    layer1: Layer1,
    text: &str,
    evidence: Option<&Evidence>,
) -> Outcome {
    if !matches!(layer1, Layer1::Hit { .. }) || detector.judge != JudgeBy::Evidence {
        return Outcome::without_judge(detector, layer1);
    }
    // Without a transcript there is nothing to hold the words against: the detector does not
    // apply (a miss), and the text alone is judged by the others.
    if evidence.is_none() {
        return Outcome::without_judge(detector, Layer1::Miss);
    }
    let started = Instant::now();
    let mut outcome = Outcome {
        backend: Some("evidence".into()),
        ..Outcome::without_judge(detector, layer1)
    };
    // The claims are read in the final message when the transcript has it.
    let message = evidence
        .and_then(|e| e.final_text.as_deref())
        .unwrap_or(text);
    match detector.rule_cues(message) {
        Err(err) => {
            outcome.verdict = Verdict::Fail;
            outcome.error_cause = Some("config".into());
            outcome.error = Some(err);
        }
        Ok(cues) => {
            let judged = evidence::judge_detector(&detector.fields, &cues, text, evidence);
            outcome.verdict = if detector.formula.eval(&judged.fields) {
                Verdict::Violation
            } else {
                Verdict::Allow
            };
            outcome.fields = judged.fields;
            // The reason quotes commands and paths: it is logged and shown, so redacted.
            let reason = Redactor::builtin().redact(&judged.reason);
            outcome.redactions = reason.counts;
            outcome.reason = Some(reason.text);
        }
    }
    outcome.latency_ms = started.elapsed().as_millis() as u64;
    outcome
}

/// Judges one hit the rules judge left unsure (or every hit, with `llm-only`); an LLM judge
/// gets the evidence summary next to the text.
fn judge_one(
    detector: &Detector,
    layer1: Layer1,
    prepared: &Prepared,
    evidence: Option<&Evidence>,
    backend: &dyn Backend,
    deadline: Instant,
) -> Outcome {
    let started = Instant::now();
    let nonce = wrap::nonce();
    // The evidence summary goes inside the data section, after the agent's words: it is data
    // too (commands and paths the agent chose), redacted like the text.
    let data = match evidence {
        Some(evidence) => {
            let summary = Redactor::builtin().redact(&evidence.summary_text());
            format!("{}\n\n{}", prepared.text, summary.text)
        }
        None => prepared.text.clone(),
    };
    let prompt = wrap::wrap(&detector.prompt, &detector.fields, &data, &nonce);
    let schema = detector.reply_schema();
    let request = JudgeRequest {
        detector,
        prompt: &prompt,
        text: &prepared.text,
        schema: &schema,
        evidence,
    };
    let unsure = matches!(&prepared.rules, Ok(a) if a.verdict == RulesVerdict::Unsure);
    let mut outcome = Outcome {
        backend: Some(backend.name().to_string()),
        model: backend.model(),
        decided_by: Some(DecidedBy::Llm),
        unsure,
        redactions: prepared.redactions.clone(),
        ..Outcome::without_judge(detector, layer1)
    };
    let result = backend.call(&request, deadline);
    outcome.latency_ms = started.elapsed().as_millis() as u64;
    match result {
        Err(err) => {
            outcome.verdict = Verdict::Fail;
            outcome.error_cause = Some(err.cause().to_string());
            outcome.error = Some(err.to_string());
        }
        Ok(raw) => match reply::parse_reply(&raw, &detector.fields) {
            Err(err) => {
                outcome.verdict = Verdict::Fail;
                outcome.error_cause = Some("reply".into());
                outcome.error = Some(err);
            }
            Ok(parsed) => {
                outcome.verdict = if detector.formula.eval(&parsed.fields) {
                    Verdict::Violation
                } else {
                    Verdict::Allow
                };
                outcome.fields = parsed.fields;
                outcome.reason = parsed.reason;
            }
        },
    }
    outcome
}

/// The text the judge sees, cut from the redacted text: its last `window.bytes`, preceded by
/// an excerpt around the Layer 1 hit (`hit_start..hit_end`, offsets of the original text) when
/// the hit lies before that window. Cuts fall on character boundaries and outside redaction
/// markers (a window may then be a marker's length longer); the counts are those of the
/// markers the judged text holds.
pub fn judged_text(
    redacted: &RedactedText,
    window: Window,
    hit_start: usize,
    hit_end: usize,
) -> Redacted {
    let text = &redacted.text;
    let window_start = text.ceil_char_boundary(text.len().saturating_sub(window.bytes));
    let tail = redacted.widen(window_start..text.len());
    let (hit_start, hit_end) = (
        redacted.map(hit_start, Side::Start),
        redacted.map(hit_end, Side::End),
    );
    if hit_end <= tail.start && hit_start < tail.start {
        let half = window.excerpt_bytes / 2;
        let excerpt =
            redacted.widen(hit_start.saturating_sub(half)..(hit_end + half).min(tail.start));
        Redacted {
            text: format!(
                "[…excerpt from earlier in the message…]\n{}\n[…]\n{}",
                &text[excerpt.clone()],
                &text[tail.clone()]
            ),
            counts: redacted.counts_within(&[excerpt, tail]),
        }
    } else {
        Redacted {
            text: text[tail.clone()].to_string(),
            counts: redacted.counts_within(&[tail]),
        }
    }
}

/// The sentence (or line) containing `start..end`.
fn sentence_around(text: &str, start: usize, end: usize) -> &str {
    let is_break = |c: char| matches!(c, '\n' | '.' | '?' | '!' | '。' | '？' | '！');
    let from = text[..start].rfind(is_break).map_or(0, |i| i + 1);
    let from = text.ceil_char_boundary(from);
    let to = text[end..].find(is_break).map_or(text.len(), |i| end + i);
    &text[from..to]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::BackendError;
    use crate::config::Config;
    use crate::detectors::{Detectors, Event};

    /// A backend that replies from a fixed map of detector name -> reply, counting its calls.
    struct Scripted(
        BTreeMap<&'static str, Result<&'static str, BackendError>>,
        std::sync::Arc<std::sync::atomic::AtomicUsize>,
    );

    impl Backend for Scripted {
        fn name(&self) -> &'static str {
            "scripted"
        }
        fn model(&self) -> Option<String> {
            None
        }
        fn call(&self, request: &JudgeRequest, _: Instant) -> Result<String, BackendError> {
            assert!(request.prompt.contains(request.text.trim()));
            self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            self.0[request.detector.name.as_str()]
                .clone()
                .map(str::to_string)
        }
    }

    /// Every hit goes to the scripted backend (`llm-only`), as with the cascade off.
    fn run(
        text: &str,
        replies: Vec<(&'static str, Result<&'static str, BackendError>)>,
    ) -> Judgement {
        run_with(Cascade::LlmOnly, text, replies).0
    }

    /// The judgement, and how many times the backend was called.
    fn run_with(
        cascade: Cascade,
        text: &str,
        replies: Vec<(&'static str, Result<&'static str, BackendError>)>,
    ) -> (Judgement, usize) {
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        let selected = detectors.select(Event::Stop, &[]).unwrap();
        let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let backend = Scripted(replies.into_iter().collect(), calls.clone());
        let factory = || Ok(Box::new(backend) as Box<dyn Backend>);
        let pipeline = Pipeline::new(selected).unwrap().with_cascade(cascade);
        let judgement = pipeline
            .judge(text, Window::default(), factory, Duration::from_secs(5))
            .unwrap();
        (judgement, calls.load(std::sync::atomic::Ordering::SeqCst))
    }

    #[test]
    fn the_cascade_asks_the_llm_only_when_the_rules_judge_is_unsure() {
        // Sure: the rules judge decides, no call.
        let (judgement, calls) = run_with(
            Cascade::RulesFirst,
            "Refactored the loader. Shall I commit this?",
            vec![],
        );
        assert_eq!(calls, 0);
        assert_eq!(judgement.verdict, Verdict::Violation);
        let commit = &judgement.detectors[0];
        assert_eq!(commit.decided_by, Some(DecidedBy::Rules));
        assert!(
            commit
                .reason
                .as_deref()
                .unwrap()
                .starts_with("rules: violation")
        );
        // Sure the other way: a hit without any proposal cue allows offline.
        let (judgement, calls) = run_with(
            Cascade::RulesFirst,
            "The commit history shows three authors.",
            vec![],
        );
        assert_eq!((calls, judgement.verdict), (0, Verdict::Allow));
        assert_eq!(judgement.detectors[0].decided_by, Some(DecidedBy::Rules));
        // Evidence and an admission about it: unsure, so the LLM decides.
        // (A passage the built-in passage model does not score as a violation either.)
        let text = "Build is green but I haven't run the e2e suite yet. Should I push?";
        let (judgement, calls) = run_with(
            Cascade::RulesFirst,
            text,
            vec![("commit", Ok(r#"{"new_proposal": true}"#))],
        );
        assert_eq!(calls, 1);
        let commit = &judgement.detectors[0];
        assert_eq!(commit.decided_by, Some(DecidedBy::Llm));
        assert!(commit.unsure);
        assert_eq!(commit.verdict, Verdict::Violation);
    }

    #[test]
    fn with_rules_alone_unsure_allows_and_says_so() {
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        let selected = detectors.select(Event::Stop, &[]).unwrap();
        let pipeline = Pipeline::new(selected).unwrap();
        let factory = || crate::backends::select(&Config::defaults(), Some("rules"));
        // (A passage the built-in passage model does not score as a violation either.)
        let text = "Build is green but I haven't run the e2e suite yet. Should I push?";
        let judgement = pipeline
            .judge(text, Window::default(), factory, Duration::from_secs(5))
            .unwrap();
        let commit = &judgement.detectors[0];
        assert_eq!(commit.verdict, Verdict::Allow);
        assert!(commit.unsure, "{:?}", commit.reason);
        assert_eq!(commit.decided_by, Some(DecidedBy::Rules));
        assert!(
            commit
                .reason
                .as_deref()
                .unwrap()
                .starts_with("rules: unsure")
        );
    }

    #[test]
    fn the_passage_model_settles_only_what_no_cue_settled() {
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        let commit = detectors.get("commit").unwrap();
        // A toy model that reads every passage naming a push as a proposal.
        let examples: Vec<_> = ["push it", "the push", "pushing"]
            .iter()
            .map(|t| (passage_model::features(t), true))
            .chain(
                ["the tests", "lint clean", "the docs"]
                    .iter()
                    .map(|t| (passage_model::features(t), false)),
            )
            .collect();
        let model = PassageModel {
            corpus_hash: 0,
            detectors: [(
                "commit".to_string(),
                passage_model::train(&examples, passage_model::Training::default()),
            )]
            .into(),
        };
        let judged_as = |text: &str, facts: &Facts, passage: &str| {
            let answer = rules::decide(commit, text, facts).unwrap();
            (answer.verdict, reconsider(&model, commit, answer, passage))
        };
        let judged = |text: &str, facts: &Facts| judged_as(text, facts, text);
        let none = Facts::default();
        // No proposal cue: allowed for want of a cue, so the model decides.
        let (rules, after) = judged("The push went to the fork.", &none);
        assert_eq!(rules, RulesVerdict::Allow);
        assert_eq!(after.verdict, RulesVerdict::Violation);
        assert!(after.reason.starts_with("passage model: violation"));
        assert!(
            after.reason.contains("rules: allow"),
            "keeps the rules' reason"
        );
        // Unsure (a run and an admission about it): the model decides too.
        let (rules, after) = judged_as(
            "All 12 tests pass, but I have not run the e2e suite. Shall I push?",
            &none,
            "push it",
        );
        assert_eq!(rules, RulesVerdict::Unsure);
        assert_eq!(after.verdict, RulesVerdict::Violation);
        // A verification cue allows whatever the passage reads like.
        let (rules, after) = judged("All 40 tests pass. Ready to push?", &none);
        assert_eq!(
            (rules, after.verdict),
            (RulesVerdict::Allow, RulesVerdict::Allow)
        );
        // So does the turn's evidence of a clean run.
        let mut ran = Facts::default();
        ran.set("verification_reported", true, "from the turn's tool calls");
        let (_, after) = judged("The push went to the fork.", &ran);
        assert_eq!(after.verdict, RulesVerdict::Allow);
        // A low score leaves the answer, and a detector the model does not know is left alone.
        let (_, after) = judged("The commit history lists the docs.", &none);
        assert_eq!(after.verdict, RulesVerdict::Allow);
        let scope = detectors.get("scope-check").unwrap();
        let answer = rules::decide(scope, "push it", &none).unwrap();
        let verdict = answer.verdict;
        assert_eq!(
            reconsider(&model, scope, answer, "push it").verdict,
            verdict
        );
    }

    #[test]
    fn no_hit_ends_at_layer1() {
        let judgement = run("I renamed the variable in parser.rs.", vec![]);
        assert_eq!(judgement.verdict, Verdict::Allow);
        assert!(judgement.decided_by_layer1());
        assert!(judgement.detectors.iter().all(|o| o.layer1 == Layer1::Miss));
    }

    #[test]
    fn formula_decides_and_missing_fields_lean_as_the_seed_says() {
        let judgement = run(
            "Shall I commit now?",
            vec![("commit", Ok(r#"{"new_proposal": true}"#))],
        );
        assert_eq!(judgement.verdict, Verdict::Violation);
        let judgement = run(
            "Shall I commit now?",
            vec![(
                "commit",
                Ok(r#"{"new_proposal": true, "verification_reported": true}"#),
            )],
        );
        assert_eq!(judgement.verdict, Verdict::Allow);
    }

    #[test]
    fn backend_errors_and_garbage_are_fail() {
        let judgement = run(
            "Shall I commit now?",
            vec![("commit", Err(BackendError::Timeout))],
        );
        assert_eq!(judgement.verdict, Verdict::Fail);
        assert_eq!(
            judgement.detectors[0].error_cause.as_deref(),
            Some("timeout")
        );
        let judgement = run("Shall I commit now?", vec![("commit", Ok("no idea"))]);
        assert_eq!(judgement.verdict, Verdict::Fail);
        assert_eq!(judgement.detectors[0].error_cause.as_deref(), Some("reply"));
    }

    #[test]
    fn window_keeps_the_tail_and_an_excerpt_of_an_early_hit() {
        let text = format!("Shall I push? {}", "x".repeat(10_000));
        let judged = judged_text(&redacted(&text), Window::default(), 9, 13).text;
        assert!(judged.contains("Shall I push?"));
        assert!(judged.len() < 4000 + 700);
        let judged = judged_text(&redacted("short text"), Window::default(), 0, 5).text;
        assert_eq!(judged, "short text");
    }

    fn redacted(text: &str) -> RedactedText {
        Redactor::builtin().redact_mapped(text)
    }

    #[test]
    fn window_and_excerpt_are_cut_from_the_redacted_text() {
        // A private key straddling the window's start, a token straddling the excerpt's end.
        let key = format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{}-----END RSA PRIVATE KEY-----\n",
            "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Ez8N6dbVtq2WqZKJfFqP0XoJ5vb\n".repeat(26)
        );
        let token = format!("ghp_{}", "Zk3xQ9mP2vL7wR4tY8nB5cJ1hF6dS0aG3eK9");
        let text = format!(
            "Shall I push?{token}\n{}{key}Done.",
            "filler line\n".repeat(500)
        );
        let hit = text.find("push").unwrap();
        let window = Window {
            bytes: key.len() / 2 + "Done.".len(),
            excerpt_bytes: 2 * ("push?".len() + 10),
        };
        let judged = judged_text(&redacted(&text), window, hit, hit + 4);
        assert!(judged.text.contains("Shall I push?"), "{}", judged.text);
        assert!(
            judged.text.contains("[REDACTED:private-key]"),
            "{}",
            judged.text
        );
        assert!(
            judged.text.contains("[REDACTED:github-pat]"),
            "{}",
            judged.text
        );
        for line in key.lines().skip(1) {
            assert!(!judged.text.contains(line), "key line leaked: {line}");
        }
        assert!(!judged.text.contains("ghp_") && !judged.text.contains("hF6dS0aG3eK9"));
        assert_eq!(judged.counts.get("private-key"), Some(&1));
        assert_eq!(judged.counts.get("github-pat"), Some(&1));
    }

    #[test]
    fn window_never_cuts_a_character() {
        let text = "コミットしますか？".repeat(1000);
        for bytes in 100..110 {
            let window = Window {
                bytes,
                excerpt_bytes: 50,
            };
            let judged = judged_text(&redacted(&text), window, text.len() - 3, text.len()).text;
            assert!(judged.len() <= bytes);
            let judged = judged_text(&redacted(&text), window, 1, 4).text;
            assert!(judged.contains("[…]"));
        }
    }

    #[test]
    fn fingerprint_is_stable_under_spacing_and_case() {
        let a = Outcome {
            layer1: Layer1::Hit {
                pattern: String::new(),
                start: 9,
                end: 15,
            },
            ..Outcome {
                detector: "commit".into(),
                layer1: Layer1::Miss,
                verdict: Verdict::Violation,
                decided_by: None,
                unsure: false,
                fields: BTreeMap::new(),
                reason: None,
                backend: None,
                model: None,
                latency_ms: 0,
                error: None,
                error_cause: None,
                redactions: BTreeMap::new(),
            }
        };
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        let commit = detectors.get("commit").unwrap();
        let one = a
            .passage_fingerprint(commit, "Done. Shall I commit?  Thanks")
            .unwrap();
        let two = a
            .passage_fingerprint(commit, "Done. shall  I COMMIT? More")
            .unwrap();
        assert_eq!(one, two);
        // After a block the judged text still starts with the blocked passage: a new proposal
        // after it is a new finding, the same proposal repeated is not.
        let blocked = "Shall I commit? ";
        let repeated = a
            .passage_fingerprint(commit, &format!("{blocked}\n\nShall I commit?"))
            .unwrap();
        let rephrased = a
            .passage_fingerprint(commit, &format!("{blocked}\n\nReady to push it now."))
            .unwrap();
        assert_eq!(repeated, one);
        assert_ne!(rephrased, one);
    }
}
