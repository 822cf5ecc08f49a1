//! `cargo bench --bench logs_stats`: a month of heavy use (30 days × 10,000 decisions) in a
//! temporary HOME, then the wall time of the log viewer's commands on it, through the built
//! binary and through the library's streaming reader. Prints figures; asserts nothing.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::json;

const DAYS: u32 = 30;
const PER_DAY: u32 = 10_000;

fn main() {
    let home = tempfile::tempdir().expect("a temp dir");
    let dir = home.path().join(".local/share/agentguard/logs");
    std::fs::create_dir_all(&dir).expect("the log dir");
    let started = Instant::now();
    let bytes = generate(&dir);
    println!(
        "generated {} decisions ({:.0} MB) in {:.2?}",
        DAYS * PER_DAY,
        bytes as f64 / 1e6,
        started.elapsed()
    );

    let binary = env!("CARGO_BIN_EXE_agentguard");
    let some_id = format!("20261115-{:06}", 4242);
    for args in [
        vec!["logs", "stats"],
        vec!["logs", "stats", "--json", "--since", "7d"],
        vec!["logs"],
        vec![
            "logs",
            "--since",
            "2026-11-01",
            "--verdict",
            "violation",
            "--json",
        ],
        vec!["logs", "show", some_id.as_str()],
    ] {
        let started = Instant::now();
        let output = Command::new(binary)
            .args(&args)
            .env_clear()
            .env("HOME", home.path())
            .env("NO_COLOR", "1")
            .output()
            .expect("the agentguard binary runs");
        let elapsed = started.elapsed();
        assert!(output.status.success(), "{args:?}: {output:?}");
        println!(
            "agentguard {:<55} {:>8.2?}  ({} lines out)",
            args.join(" "),
            elapsed,
            output.stdout.iter().filter(|&&b| b == b'\n').count()
        );
    }

    let started = Instant::now();
    let mut stats = agentguard::logview::Stats::default();
    for record in agentguard::log::records_from(&dir, None).flatten() {
        stats.add(&record);
    }
    let report = stats.report();
    println!(
        "library: records_from + Stats over {} stops              {:>8.2?}",
        report.stops,
        started.elapsed()
    );
}

/// Day files for 2026-11-01..30: one stop in ten hits Layer 1 and is judged; one decision in
/// twenty is a PreToolUse; texts of a few hundred bytes.
fn generate(dir: &Path) -> u64 {
    let mut total = 0;
    for day in 1..=DAYS {
        let path = dir.join(format!("decisions-2026-11-{day:02}.jsonl"));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).expect("a day file"));
        for n in 0..PER_DAY {
            let seconds = n * 86_400 / PER_DAY;
            let ts = format!(
                "2026-11-{day:02}T{:02}:{:02}:{:02}.000Z",
                seconds / 3600,
                seconds / 60 % 60,
                seconds % 60
            );
            let id = format!("202611{day:02}-{n:06}");
            let text = format!(
                "Decision {n}: I updated the parser and the tests for case {n}. {} Shall I commit now?",
                "All checks ran locally and the output is above. ".repeat(4)
            );
            let record = if n % 20 == 0 {
                json!({"id": id, "ts": ts, "host": "claude", "event": "PreToolUse",
                       "session": format!("s{}", n % 37), "cwd": "/home/dev/proj", "tool": "Bash",
                       "verdict": "allow", "action": if n % 40 == 0 {"deny"} else {"allow"},
                       "detectors_run": ["destructive"], "detectors": [], "latency_ms": 2})
            } else if n % 10 == 1 {
                let verdict = ["violation", "allow", "allow", "fail"][(n as usize / 10) % 4];
                let mut outcome = json!({"detector": "commit",
                    "layer1": {"outcome": "hit", "pattern": "(?i)commit", "start": 150, "end": 156},
                    "verdict": verdict, "fields": {"new_proposal": true, "verification_reported": false},
                    "reason": "asks to commit", "backend": "claude", "model": "haiku",
                    "latency_ms": 800 + n % 900});
                if verdict == "fail" {
                    outcome["error_cause"] = json!("timeout");
                }
                json!({"id": id, "ts": ts, "host": "claude", "event": "Stop",
                       "session": format!("s{}", n % 37), "cwd": "/home/dev/proj",
                       "verdict": verdict, "action": if verdict == "violation" {"block"} else {"allow"},
                       "detectors_run": ["commit", "scope-check", "scope-change", "shallow-bugfix", "bugfix-without-reproduction"],
                       "detectors": [outcome], "latency_ms": 900, "text_sha256": "ab".repeat(32), "text": text})
            } else {
                json!({"id": id, "ts": ts, "host": "claude", "event": "Stop",
                       "session": format!("s{}", n % 37), "cwd": "/home/dev/proj",
                       "verdict": "allow", "action": "allow",
                       "detectors_run": ["commit", "scope-check", "scope-change", "shallow-bugfix", "bugfix-without-reproduction"],
                       "detectors": [], "latency_ms": 4, "text_sha256": "ab".repeat(32), "text": text})
            };
            let line = format!("{record}\n");
            total += line.len() as u64;
            out.write_all(line.as_bytes()).expect("a write");
        }
    }
    total
}
