//! The Stop decision: which text is judged, what the judge found, and whether the loop guard
//! lets a violation block.

use crate::detectors::{Detector, Detectors, Event, JudgeBy};
use crate::evidence::Lazy;
use crate::loopguard::{Guard, LoopGuard};
use crate::pipeline::{Judge, Judgement, Outcome, Pipeline, Verdict};

use super::{Action, Decision};

/// The text a Stop is judged on, or the decision when there is nothing to judge.
pub enum StopText {
    Judge(String),
    Nothing(Decision),
}

/// The text a Stop is judged on: the transcript's current turn (`Err`: why it could not be
/// read), with the race-free `last_assistant_message`, cut to its last `scan_bytes`.
pub fn select_text(
    transcript: Option<Result<String, String>>,
    last_assistant_message: Option<&str>,
    scan_bytes: usize,
) -> StopText {
    let (turn_text, transcript_error) = match transcript {
        Some(Ok(text)) => (Some(text), None),
        Some(Err(why)) => (None, Some(why)),
        None => (None, None),
    };
    let text = crate::transcript::stop_text(turn_text, last_assistant_message);
    // Never start inside a secret: its tail alone would pass redaction.
    let text = crate::redact::tail_outside_secrets(&text, scan_bytes);
    if text.trim().is_empty() {
        // Nothing to judge and no transcript: say so, once, instead of judging nothing.
        return StopText::Nothing(match transcript_error {
            Some(why) => Decision::failed_open(why),
            None => Decision::allow(),
        });
    }
    StopText::Judge(text.to_string())
}

/// What the judge made of a Stop text.
pub enum Judged {
    /// No violation: the decision is final.
    Decided(Decision),
    /// A violation, which blocks only if the loop guard agrees.
    Violation(Violation),
}

/// A violation waiting for the loop guard's verdict.
pub struct Violation {
    decision: Decision,
    findings: Vec<String>,
    reason: String,
}

/// `judge` with the built-in detectors alone (a config that changes none), built only if one of
/// their triggers' gates occurs in the judged text: otherwise every one is a miss, decided
/// here exactly as the pipeline would, without building them.
pub fn judge_builtins(text: &str, judge: &Judge, evidence: &Lazy) -> Judged {
    if let Some(names) = Detectors::builtin_misses(&[], Event::Stop, judge.judged_part(text)) {
        let judgement = Judgement::from_outcomes(names.iter().map(|n| Outcome::miss(n)).collect());
        return Judged::Decided(Decision {
            verdict: judgement.verdict,
            detectors_run: names.iter().map(|n| n.to_string()).collect(),
            judgement: Some(judgement),
            ..Decision::allow()
        });
    }
    match Detectors::load_for(&[], Event::Stop) {
        Ok(detectors) => self::judge(text, judge, &detectors, evidence),
        Err(err) => Judged::Decided(Decision::failed_open(err.message)),
    }
}

/// Runs the Stop detectors over `text` and the turn's `evidence` (read only if a detector hits)
/// with `judge` (`Judge::from_config`).
pub fn judge(text: &str, judge: &Judge, detectors: &Detectors, evidence: &Lazy) -> Judged {
    let selected = match detectors.select(Event::Stop, &[]) {
        Ok(selected) => selected,
        Err(err) => return Judged::Decided(Decision::failed_open(err.message)),
    };
    let detectors_run: Vec<String> = selected.iter().map(|d| d.name.clone()).collect();
    let judged = Pipeline::new(selected)
        .and_then(|pipeline| judge.judge_with_evidence(&pipeline, text, evidence));
    let judgement = match judged {
        Ok(judgement) => judgement,
        Err(err) => {
            return Judged::Decided(Decision {
                detectors_run,
                ..Decision::failed_open(err.message)
            });
        }
    };
    let violations: Vec<_> = judgement.violations().collect();
    if violations.is_empty() {
        let failures: Vec<String> = judgement
            .failures()
            .map(|o| {
                format!(
                    "the {} judge failed for `{}` ({})",
                    o.backend.as_deref().unwrap_or("configured"),
                    o.detector,
                    o.error.as_deref().unwrap_or("unknown error")
                )
            })
            .collect();
        let decision = if failures.is_empty() {
            Decision::allow()
        } else {
            Decision::failed_open(failures.join("; "))
        };
        return Judged::Decided(Decision {
            verdict: judgement.verdict,
            detectors_run,
            judgement: Some(judgement),
            ..decision
        });
    }
    let findings = violations
        .iter()
        .map(|o| {
            format!(
                "{}:{}",
                o.detector,
                detectors
                    .get(&o.detector)
                    .and_then(|d| o.passage_fingerprint(d, text))
                    .unwrap_or_default()
            )
        })
        .collect();
    let reason = violations
        .iter()
        .map(|o| {
            detectors
                .get(&o.detector)
                .map(|d| feedback(d, o))
                .unwrap_or_else(|| format!("agentguard: `{}` found a problem.", o.detector))
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    Judged::Violation(Violation {
        decision: Decision {
            verdict: Verdict::Violation,
            detectors_run,
            judgement: Some(judgement),
            ..Decision::allow()
        },
        findings,
        reason,
    })
}

/// What the agent is told for one violation: the detector's feedback, and for a detector judged
/// by the turn's evidence what the evidence showed (plain words, redacted, no rubric).
fn feedback(detector: &Detector, outcome: &Outcome) -> String {
    let mut text = detector.feedback.trim().to_string();
    if detector.judge == JudgeBy::Evidence
        && let Some(reason) = &outcome.reason
    {
        text.push_str(&format!("\n\nWhat the turn shows: {reason}."));
    }
    text
}

impl Violation {
    /// The loop guard's verdict: block (recorded in `guard`, which the caller saves) or
    /// release.
    pub fn decide(self, guard: &mut LoopGuard, max_blocks_per_turn: u32) -> Decision {
        match guard.check(&self.findings, max_blocks_per_turn) {
            Guard::Block => {
                guard.record_block(&self.findings);
                Decision {
                    action: Action::Block,
                    message: Some(self.reason),
                    ..self.decision
                }
            }
            Guard::Release(release) => Decision {
                action: Action::Release,
                release: Some(release.label()),
                message: Some(release.message()),
                ..self.decision
            },
        }
    }

    pub fn judgement(&self) -> Option<&Judgement> {
        self.decision.judgement.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn rules_config() -> Config {
        let mut config = Config::defaults();
        config.judge.backend = crate::config::BackendName::Rules;
        config
    }

    fn judged(text: &str, config: &Config) -> Judged {
        let detectors = Detectors::load(&config.detectors).unwrap();
        judge(
            text,
            &Judge::from_config(config, None),
            &detectors,
            &Lazy::none(),
        )
    }

    const UNVERIFIED: &str = "I updated the parser. Shall I commit and push now?";

    /// What a judged Stop comes to, for comparing two ways of judging it.
    fn summary(judged: Judged) -> (String, String, Vec<String>, String) {
        let decision = match judged {
            Judged::Decided(decision) => decision,
            Judged::Violation(violation) => violation.decision,
        };
        (
            format!("{:?}", decision.action),
            format!("{:?}", decision.verdict),
            decision.detectors_run,
            serde_json::to_string(&decision.judgement).unwrap(),
        )
    }

    /// Without building the built-ins, a Stop whose text holds none of their gates is decided
    /// exactly as with them built; one that may hit builds them and is judged as before.
    #[test]
    fn the_built_ins_unbuilt_judge_as_the_built_ones() {
        let config = rules_config();
        let judge_config = Judge::from_config(&config, None);
        let built = Detectors::load_for(&config.detectors, Event::Stop).unwrap();
        let innocent = "I renamed `cfg` to `config` in src/parser.rs; nothing else moved.";
        assert!(Detectors::builtin_misses(&[], Event::Stop, innocent).is_some());
        assert!(Detectors::builtin_misses(&[], Event::Stop, UNVERIFIED).is_none());
        for text in [
            innocent,
            UNVERIFIED,
            "好的，已经完成了。",
            "Listo, todo en orden.",
        ] {
            let unbuilt = summary(judge_builtins(text, &judge_config, &Lazy::none()));
            let expected = summary(judge(text, &judge_config, &built, &Lazy::none()));
            assert_eq!(unbuilt, expected, "{text}");
        }
        let (_, verdict, run, _) =
            summary(judge_builtins(UNVERIFIED, &judge_config, &Lazy::none()));
        assert_eq!(verdict, "Violation");
        assert!(run.contains(&"commit".to_string()), "{run:?}");
    }

    fn judged_text(selected: StopText) -> String {
        match selected {
            StopText::Judge(text) => text,
            StopText::Nothing(_) => panic!("there is a text to judge"),
        }
    }

    fn nothing(selected: StopText) -> Decision {
        match selected {
            StopText::Judge(text) => panic!("nothing to judge, got {text:?}"),
            StopText::Nothing(decision) => decision,
        }
    }

    #[test]
    fn the_scan_bound_never_starts_inside_a_secret() {
        // Built, not written: no token-shaped literal in the source.
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let body: String = (0..36)
            .map(|i| alphabet[(i * 17 + 5) % 62] as char)
            .collect();
        let token = format!("ghp_{body}");
        let turn = format!("I set the token to {token} and stopped.");
        let bound = turn.len() - turn.find(&token).unwrap() - 10;
        let text = judged_text(select_text(Some(Ok(turn.clone())), None, bound));
        assert!(!text.contains(&token[10..]), "{text:?}");
        assert!(text.ends_with("and stopped."), "{text:?}");
    }

    #[test]
    fn text_is_the_turn_with_the_last_message_and_its_tail() {
        let text = judged_text(select_text(
            Some(Ok("first".into())),
            Some("last words"),
            1000,
        ));
        assert_eq!(text, "first\n\nlast words");
        assert_eq!(judged_text(select_text(None, Some("abcdef"), 3)), "def");
        // The last message alone is judged when the transcript cannot be read.
        let text = judged_text(select_text(Some(Err("gone".into())), Some("words"), 1000));
        assert_eq!(text, "words");
    }

    #[test]
    fn nothing_to_judge_allows_and_says_why_only_when_the_transcript_failed() {
        let silent = nothing(select_text(None, Some("  "), 1000));
        assert_eq!(silent.action, Action::Allow);
        assert!(silent.message.is_none());
        let failed = nothing(select_text(Some(Err("cannot read it".into())), None, 1000));
        assert_eq!(
            (failed.action, failed.verdict),
            (Action::Allow, Verdict::Fail)
        );
        assert!(failed.message.unwrap().contains("unjudged: cannot read it"));
    }

    #[test]
    fn violation_blocks_once_then_releases() {
        let config = rules_config();
        let Judged::Violation(violation) = judged(UNVERIFIED, &config) else {
            panic!("an unverified commit proposal is a violation");
        };
        assert_eq!(violation.judgement().unwrap().verdict, Verdict::Violation);
        let mut guard = LoopGuard::load(None, None, Some("t1"), false);
        let decision = violation.decide(&mut guard, 2);
        assert_eq!(
            (decision.action, decision.verdict),
            (Action::Block, Verdict::Violation)
        );
        assert!(
            decision
                .message
                .as_deref()
                .unwrap()
                .contains("verification")
        );
        assert!(decision.detectors_run.iter().any(|d| d == "commit"));
        let answer = decision.answer(crate::hosts::Host::Claude).unwrap();
        assert_eq!(answer["decision"], "block");

        // The same finding again in this session: released, and the user told.
        let Judged::Violation(again) = judged(UNVERIFIED, &config) else {
            panic!("still a violation");
        };
        let decision = again.decide(&mut guard, 2);
        assert_eq!(decision.action, Action::Release);
        assert_eq!(decision.release, Some("repeated"));
        let answer = decision.answer(crate::hosts::Host::Claude).unwrap();
        assert!(
            answer["systemMessage"]
                .as_str()
                .unwrap()
                .contains("let this stop through")
        );
    }

    #[test]
    fn turn_limit_releases_a_new_finding() {
        let config = rules_config();
        let Judged::Violation(violation) = judged(UNVERIFIED, &config) else {
            panic!("a violation");
        };
        let mut guard = LoopGuard::load(None, None, Some("t1"), false);
        let decision = violation.decide(&mut guard, 0);
        assert_eq!(decision.action, Action::Release);
        assert_eq!(decision.release, Some("turn-limit"));
    }

    #[test]
    fn clean_text_is_allowed_silently() {
        let Judged::Decided(decision) = judged(
            "I renamed the helper and updated its call sites.",
            &rules_config(),
        ) else {
            panic!("no violation");
        };
        assert_eq!(
            (decision.action, decision.verdict),
            (Action::Allow, Verdict::Allow)
        );
        assert!(decision.answer(crate::hosts::Host::Claude).is_none());
    }

    #[test]
    fn judge_failure_fails_open_with_a_message() {
        let mut config = rules_config();
        // A backend that cannot be built fails every Layer 1 hit with that reason.
        config.judge.backend = crate::config::BackendName::Command;
        // Every hit to the backend: the rules judge would otherwise decide this one offline.
        config.judge.cascade = crate::pipeline::Cascade::LlmOnly;
        let Judged::Decided(decision) = judged(UNVERIFIED, &config) else {
            panic!("a failed judge is not a violation");
        };
        assert_eq!(
            (decision.action, decision.verdict),
            (Action::Allow, Verdict::Fail)
        );
        let error = decision.error.as_deref().unwrap();
        assert!(error.contains("judge failed for `commit`"), "{error}");
        assert!(error.contains("judge.command.argv"), "{error}");
        let answer = decision.answer(crate::hosts::Host::Claude).unwrap();
        assert!(
            answer["systemMessage"]
                .as_str()
                .unwrap()
                .contains("went through unjudged")
        );
        assert!(decision.judgement.is_some());
    }
}
