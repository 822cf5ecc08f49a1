//! The probe: a known text through the configured judge.

use crate::pipeline::{Judgement, Layer1, Verdict};

use super::{Check, CheckId};

/// The probe's text: a clear, unverified proposal to commit and push, which the `commit`
/// detector must block.
pub const PROBE_TEXT: &str = "Implementation done. Shall I commit and push to main now?";

/// What the configured judge made of [`PROBE_TEXT`].
pub fn check_probe(backend: &str, judgement: &crate::error::Result<Judgement>) -> Check {
    let id = CheckId::Probe;
    let judgement = match judgement {
        Ok(judgement) => judgement,
        Err(err) => {
            return Check::fail(
                id,
                format!("probe through {backend}: {}", err.message),
                err.hint
                    .clone()
                    .unwrap_or_else(|| "fix the configuration".into()),
            );
        }
    };
    let Some(outcome) = judgement.detectors.first() else {
        return Check::fail(id, "probe: no detector ran", "enable the commit detector");
    };
    if !matches!(outcome.layer1, Layer1::Hit { .. }) {
        return Check::warn(
            id,
            format!(
                "probe: Layer 1 of `commit` did not hit \"{PROBE_TEXT}\" ({}), so no judge was called",
                outcome.layer1.label()
            ),
            "check your [[detectors]] override of `commit` (triggers, skips)",
        );
    }
    let used = outcome.backend.as_deref().unwrap_or(backend);
    let model = outcome
        .model
        .as_deref()
        .map(|m| format!(", model {m}"))
        .unwrap_or_default();
    let took = format!("{} ms", outcome.latency_ms);
    match outcome.verdict {
        Verdict::Violation => Check::ok(
            id,
            format!("probe: {used}{model} judged a clear commit proposal a violation in {took}"),
        ),
        Verdict::Allow => Check::warn(
            id,
            format!(
                "probe: {used}{model} answered in {took} but allowed a clear commit proposal \
                 (\"{PROBE_TEXT}\")"
            ),
            "try another model or backend; measure it with agentguard judge --eval <labeled.jsonl>",
        ),
        Verdict::Fail => {
            let cause = outcome.error_cause.as_deref().unwrap_or("unknown");
            Check::fail(
                id,
                format!(
                    "probe: {used}{model} failed after {took} ({cause}): {}",
                    outcome.error.as_deref().unwrap_or("unknown error")
                ),
                failure_fix(cause),
            )
        }
    }
}

/// How to address a judge failure of a given cause.
pub(super) fn failure_fix(cause: &str) -> String {
    match cause {
        "timeout" => "raise judge.deadline_ms (below the hook timeout of 60 s) or choose a faster \
                      backend"
            .into(),
        "spawn" => "check that the backend's program exists and runs (see the cli checks)".into(),
        "http" => "check the API key, judge.<backend>.base_url and the network".into(),
        "config" => "fix the judge backend configuration (see the backend check)".into(),
        _ => "run agentguard doctor --probe and agentguard judge on a text to see the judge's \
              error; agentguard logs --verdict fail shows the logged ones"
            .into(),
    }
}
