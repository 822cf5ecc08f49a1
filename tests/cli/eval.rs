//! The quality bar of the offline `rules` judge and of Layer 1, on the repo's evaluation set
//! (`tests/corpus/messages.jsonl`), through `agentguard judge --eval`.

use crate::support::{Env, stdout_json};

fn corpus() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/messages.jsonl")
}

/// The `--eval` report of the `rules` judge on a labeled set, which must run without error.
fn rules_eval(set: &std::path::Path) -> serde_json::Value {
    let output = Env::new()
        .cmd()
        .args(["judge", "--backend", "rules", "--json", "--eval"])
        .arg(set)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout_json(&output)
}

#[test]
fn rules_backend_and_layer1_meet_the_bar_on_every_detector() {
    let report = rules_eval(&corpus());
    assert!(report["examples"].as_u64().unwrap() >= 150);
    let detectors = report["detectors"].as_array().unwrap();
    assert_eq!(detectors.len(), 5, "every Stop detector is measured");
    let mut failures = Vec::new();
    for d in detectors {
        let name = d["detector"].as_str().unwrap();
        let figure = |key: &str| d[key].as_f64().unwrap();
        for (key, bar) in [
            ("precision", 0.85),
            ("recall", 0.75),
            ("layer1_recall", 0.97),
        ] {
            if figure(key) < bar {
                failures.push(format!(
                    "{name}: {key} {:.3} < {bar} (missed {}, false alarms {})",
                    figure(key),
                    d["missed"],
                    d["false_alarms"]
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "below the bar:\n{}",
        failures.join("\n")
    );
}

/// Layer 1's bar on the cue-family set (`tests/corpus/layer1.jsonl`): messages written for the
/// trigger families (offers without the usual verbs, later times and pauses, claims of resolution
/// in each language's idioms). Only Layer 1 is held to a bar there; the rules judge's figures on
/// it are for tuning the rules.
#[test]
fn layer1_reaches_the_cue_family_set() {
    let report = rules_eval(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/layer1.jsonl"),
    );
    let mut measured = 0;
    for d in report["detectors"].as_array().unwrap() {
        if d["blocks"].as_u64().unwrap() == 0 {
            continue;
        }
        measured += 1;
        let recall = d["layer1_recall"].as_f64().unwrap();
        assert!(
            recall >= 0.97,
            "{}: layer1_recall {recall:.3} < 0.97",
            d["detector"]
        );
    }
    assert_eq!(measured, 5, "the set has positives for all five detectors");
}

#[test]
fn user_labeled_sets_are_accepted_and_bad_lines_named() {
    let env = Env::new();
    let good = env.write(
        "mine.jsonl",
        "{\"id\":\"a\",\"blocks\":[\"commit\"],\"text\":\"Shall I push to main now?\"}\n\
         {\"id\":\"b\",\"blocks\":[],\"text\":\"Renamed the helper.\"}\n",
    );
    let output = env
        .cmd()
        .args(["judge", "--backend", "rules", "--json", "--eval"])
        .arg(&good)
        .output()
        .unwrap();
    let report = stdout_json(&output);
    assert_eq!(report["examples"], 2);
    let commit = &report["detectors"][0];
    assert_eq!(commit["detector"], "commit");
    assert_eq!(
        (commit["blocks"].as_u64(), commit["allows"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(commit["true_positives"], 1);
    let bad = env.write("bad.jsonl", "{\"blocks\":[],\"text\":\"x\"}\nnot json\n");
    let output = env
        .cmd()
        .args(["judge", "--eval"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("line 2"));
}
