//! `agentguard logs`: list, filters, follow, show, stats, replay, labels and export, on logs
//! written by hand (several days, sessions, concurrent writers, a torn line) and by real hooks.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::Output;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Env, fixture, stdout_json};

fn record(id: &str, ts: &str, session: &str, cwd: &str, outcomes: Value, verdict: &str) -> Value {
    let action = match verdict {
        "violation" => "block",
        _ => "allow",
    };
    json!({
        "id": id, "ts": ts, "host": "claude", "event": "Stop", "session": session, "cwd": cwd,
        "verdict": verdict, "action": action, "detectors_run": ["commit", "scope-check"],
        "detectors": outcomes, "latency_ms": 3, "text": format!("text of {id}. Shall I commit now?"),
    })
}

fn commit_hit(verdict: &str, backend: &str, latency: u64) -> Value {
    json!({"detector": "commit", "layer1": {"outcome": "hit", "pattern": "commit", "start": 0, "end": 4},
           "verdict": verdict, "fields": {}, "backend": backend, "latency_ms": latency})
}

fn append_line(path: &Path, line: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    file.write_all(line.as_bytes()).unwrap();
}

fn day_file(env: &Env, day: &str) -> std::path::PathBuf {
    env.log_dir().join(format!("decisions-{day}.jsonl"))
}

/// Three days, two sessions and two projects, a torn line in the middle of the second day,
/// and the third day written by four concurrent writers. Hand-computed figures in `stats_*`.
fn generated_log(env: &Env) {
    let day1 = day_file(env, "2026-11-27");
    let mut failed = commit_hit("fail", "claude", 300);
    failed["error_cause"] = json!("timeout");
    failed["error"] = json!("the judge timed out");
    for line in [
        record(
            "20261127-090000-aaaaaa",
            "2026-11-27T09:00:00.000Z",
            "s1",
            "/w/app",
            json!([]),
            "allow",
        ),
        record(
            "20261127-100000-bbbbbb",
            "2026-11-27T10:00:00.000Z",
            "s1",
            "/w/app",
            json!([commit_hit("violation", "claude", 100)]),
            "violation",
        ),
        record(
            "20261127-110000-cccccc",
            "2026-11-27T11:00:00.000Z",
            "s2",
            "/w/lib/sub",
            json!([failed]),
            "fail",
        ),
    ] {
        append_line(&day1, &format!("{line}\n"));
    }
    let day2 = day_file(env, "2026-11-28");
    let skip = json!({"detector": "scope-check", "layer1": {"outcome": "skip", "pattern": "x"},
                      "verdict": "allow", "fields": {}});
    let mut released = record(
        "20261128-110000-eeeeee",
        "2026-11-28T11:00:00.000Z",
        "s1",
        "/w/app",
        json!([commit_hit("violation", "claude", 200)]),
        "violation",
    );
    released["action"] = json!("release");
    released["release"] = json!("repeat");
    let pretool = |id: &str, action: &str, rule: Option<&str>| {
        let mut r = json!({"id": id, "ts": "2026-11-28T12:00:00.000Z", "host": "claude",
            "event": "PreToolUse", "session": "s1", "cwd": "/w/app", "tool": "Bash",
            "verdict": if action == "deny" {"violation"} else {"allow"}, "action": action,
            "detectors_run": ["destructive"], "detectors": [], "latency_ms": 1});
        if let Some(rule) = rule {
            r["rule"] = json!(rule);
        }
        r.to_string()
    };
    for line in [
        record(
            "20261128-100000-dddddd",
            "2026-11-28T10:00:00.000Z",
            "s2",
            "/w/lib",
            json!([commit_hit("allow", "rules", 5), skip]),
            "allow",
        )
        .to_string(),
        "{\"id\": \"20261128-torn".to_string(),
        released.to_string(),
        pretool("20261128-120000-ffffff", "deny", Some("read-only")),
        pretool("20261128-120001-gggggg", "allow", None),
    ] {
        append_line(&day2, &format!("{line}\n"));
    }
    let day3 = day_file(env, "2026-11-29");
    std::thread::scope(|scope| {
        for writer in 0..4 {
            let day3 = &day3;
            scope.spawn(move || {
                for n in 0..5 {
                    let id = format!("20261129-10{writer}{n}00-w{writer}n{n}xx");
                    let ts = format!("2026-11-29T10:{writer}{n}:00.000Z");
                    let line = record(
                        &id,
                        &ts,
                        &format!("w{writer}"),
                        "/w/app",
                        json!([]),
                        "allow",
                    );
                    append_line(day3, &format!("{line}\n"));
                }
            });
        }
    });
}

fn run(env: &Env, args: &[&str]) -> Output {
    env.cmd().args(args).output().unwrap()
}

fn ok(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn ids(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn no_log_yet_says_so_and_exits_0() {
    let env = Env::new();
    for args in [&["logs"][..], &["logs", "stats"]] {
        let stdout = ok(&run(&env, args));
        assert_eq!(
            stdout.trim(),
            format!("no decisions logged yet in {}", env.log_dir().display())
        );
    }
}

#[test]
fn list_filters_and_reports_the_torn_line_once() {
    let env = Env::new();
    generated_log(&env);
    let output = run(&env, &["logs", "--json", "--since", "2026-11-27"]);
    let all = ids(&ok(&output));
    assert_eq!(all.len(), 3 + 4 + 20);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.matches("decisions-2026-11-28.jsonl:2:").count(),
        1,
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // Concurrent writers' lines are whole: every writer's five records are there.
    for writer in 0..4 {
        let count = all
            .iter()
            .filter(|id| id.contains(&format!("-w{writer}n")))
            .count();
        assert_eq!(count, 5);
    }

    let select = |args: &[&str]| {
        let mut full = vec!["logs", "--json", "--since", "2026-11-01"];
        full.extend_from_slice(args);
        ids(&ok(&run(&env, &full)))
    };
    assert_eq!(
        select(&["--verdict", "violation"]),
        [
            "20261127-100000-bbbbbb",
            "20261128-110000-eeeeee",
            "20261128-120000-ffffff"
        ]
    );
    assert_eq!(select(&["--verdict", "fail"]), ["20261127-110000-cccccc"]);
    assert_eq!(select(&["--verdict", "skip"]), ["20261128-100000-dddddd"]);
    assert_eq!(
        select(&["--detector", "scope-check", "--verdict", "skip"]),
        ["20261128-100000-dddddd"]
    );
    assert_eq!(
        select(&["--detector", "commit", "--verdict", "skip"]),
        Vec::<String>::new()
    );
    assert_eq!(
        select(&["--session", "s2"]),
        ["20261127-110000-cccccc", "20261128-100000-dddddd"]
    );
    assert_eq!(
        select(&["--cwd", "/w/lib"]),
        ["20261127-110000-cccccc", "20261128-100000-dddddd"]
    );
    assert_eq!(select(&["--detector", "destructive"]).len(), 2);
    let late = ok(&run(
        &env,
        &["logs", "--json", "--since", "2026-11-29T10:30"],
    ));
    assert_eq!(ids(&late).len(), 5);
    assert_eq!(
        select(&["--detector", "commit", "--verdict", "miss"]).len(),
        21
    );

    // Without --since: the newest 50, oldest first, as a table.
    let table = ok(&run(&env, &["logs"]));
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("ID"), "{table}");
    assert_eq!(lines.len(), 1 + 27);
    assert!(lines[1].starts_with("20261127-090000-aaaaaa"));
    assert!(table.contains("release"));
    assert!(!table.contains('\x1b'), "no color off a TTY");

    let bad = run(&env, &["logs", "--since", "soonish"]);
    assert_eq!(bad.status.code(), Some(2));
    let bad = run(&env, &["logs", "--verdict", "blocked"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn since_a_duration_counts_back_from_now() {
    let env = Env::new();
    let now = jiff::Timestamp::now();
    for (id, hours) in [("old", 3), ("new", 1)] {
        let ts = now - jiff::SignedDuration::from_hours(hours);
        let day = ts
            .to_zoned_datetime(jiff::tz::TimeZone::UTC)
            .date()
            .to_string();
        let stamp = ts.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
        let line = record(id, &stamp, "s", "/w", json!([]), "allow");
        append_line(&day_file(&env, &day), &format!("{line}\n"));
    }
    assert_eq!(
        ids(&ok(&run(&env, &["logs", "--json", "--since", "2h"]))),
        ["new"]
    );
    assert_eq!(
        ids(&ok(&run(&env, &["logs", "--json", "--since", "4h"]))),
        ["old", "new"]
    );
}

#[test]
fn stats_match_hand_computed_figures() {
    let env = Env::new();
    generated_log(&env);
    let output = run(&env, &["logs", "stats", "--json"]);
    let report: Value = serde_json::from_str(&ok(&output)).unwrap();
    assert_eq!(report["stops"], 25);
    assert_eq!(report["stops_without_llm"], 22);
    assert_eq!(report["without_llm_share"], 0.88);
    let commit = &report["detectors"][0];
    assert_eq!(commit["detector"], "commit");
    for (key, value) in [
        ("stops", 25),
        ("hits", 4),
        ("skips", 0),
        ("judge_calls", 4),
        ("violations", 2),
        ("allows", 1),
        ("releases", 1),
    ] {
        assert_eq!(commit[key], value, "commit {key}");
    }
    assert_eq!(commit["hit_rate"], 0.16);
    assert_eq!(commit["failures"], json!({"timeout": 1}));
    let scope = &report["detectors"][1];
    assert_eq!(
        (
            scope["stops"].as_u64(),
            scope["skips"].as_u64(),
            scope["hits"].as_u64()
        ),
        (Some(25), Some(1), Some(0))
    );
    let days: Vec<(String, u64, u64)> = report["days"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["day"].as_str().unwrap().to_string(),
                d["stops"].as_u64().unwrap(),
                d["stops_without_llm"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        days,
        [
            ("2026-11-27".into(), 3, 1),
            ("2026-11-28".into(), 2, 1),
            ("2026-11-29".into(), 20, 20)
        ]
    );
    assert_eq!(
        report["latency"],
        json!([{"backend": "claude", "calls": 3, "p50_ms": 200, "p95_ms": 300},
               {"backend": "rules", "calls": 1, "p50_ms": 5, "p95_ms": 5}])
    );
    assert_eq!(
        report["pretool"],
        json!([{"action": "allow", "rule": "-", "count": 1},
               {"action": "deny", "rule": "read-only", "count": 1}])
    );

    let since: Value = serde_json::from_str(&ok(&run(
        &env,
        &["logs", "stats", "--json", "--since", "2026-11-28"],
    )))
    .unwrap();
    assert_eq!(since["stops"], 22);
    let table = ok(&run(&env, &["logs", "stats"]));
    assert!(table.contains("stops: 25"), "{table}");
    assert!(table.contains("timeout 1"), "{table}");
    assert!(table.contains("2026-11-29"), "{table}");
}

/// A Stop hook run through the real binary (rules judge), one session per message.
fn hook_stop(env: &Env, session: &str, message: &str) {
    let mut payload: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("2.1.332.stop_stdin_first.json")).unwrap(),
    )
    .unwrap();
    payload["cwd"] = json!(env.project());
    payload["session_id"] = json!(session);
    payload["transcript_path"] = json!(env.dir.path().join("no-transcript.jsonl"));
    payload["last_assistant_message"] = json!(message);
    let output = env
        .cmd()
        .args(["hook", "stop"])
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
}

const PROPOSAL: &str = "I updated the parser. Shall I commit and push now?";
const RENAME: &str = "I renamed the helper and updated its three call sites.";
const VERIFIED: &str =
    "All 212 tests pass (cargo test: 212 passed, 0 failed), clippy clean. Shall I commit?";

/// Three real decisions: a block, an allow without a hit, an allow after a hit. Returns their
/// ids in that order.
fn hooked_log(env: &Env) -> Vec<String> {
    env.write_config("[judge]\nbackend = \"rules\"\n");
    for (session, message) in [("a", PROPOSAL), ("b", RENAME), ("c", VERIFIED)] {
        hook_stop(env, session, message);
    }
    let records = ids(&ok(&run(env, &["logs", "--json"])));
    assert_eq!(records.len(), 3);
    let verdicts: Vec<Value> = ok(&run(env, &["logs", "--json"]))
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["verdict"].clone())
        .collect();
    assert_eq!(verdicts, ["violation", "allow", "allow"]);
    records
}

#[test]
fn show_prints_one_decision_in_full() {
    let env = Env::new();
    let ids = hooked_log(&env);
    let stdout = ok(&run(&env, &["logs", "show", &ids[0][..20]]));
    for expected in [
        ids[0].as_str(),
        "detector commit",
        "hit at bytes",
        "»commit«",
        "backend rules",
        "new_proposal=true",
        "verification_reported=false",
        "judged text (redacted",
        PROPOSAL,
    ] {
        assert!(stdout.contains(expected), "missing {expected:?}:\n{stdout}");
    }
    let json: Value =
        serde_json::from_str(&ok(&run(&env, &["logs", "show", &ids[0], "--json"]))).unwrap();
    assert_eq!(json["detectors"][0]["fields"]["new_proposal"], true);

    let missing = run(&env, &["logs", "show", "19990101"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no decision"));
    let ambiguous = run(&env, &["logs", "show", "2"]);
    assert_eq!(ambiguous.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&ambiguous.stderr).contains("several decisions"));
}

#[test]
fn replay_shows_exactly_the_decisions_a_changed_pattern_changes() {
    let env = Env::new();
    let ids = hooked_log(&env);
    let unchanged = stdout_json(&run(&env, &["logs", "replay", "--json"]));
    assert_eq!(
        unchanged["counts"],
        json!({"replayed": 3, "unchanged": 3, "newly_blocked": 0, "newly_allowed": 0, "failures": 0})
    );
    assert_eq!(unchanged["changes"], json!([]));

    env.write_config(
        r#"[judge]
backend = "rules"

[[detectors]]
name = "commit"
skips = ['(?i)commit and push now']

[[detectors]]
name = "rename"
events = ["stop"]
triggers = ['(?i)\brenamed\b']
fields = ["renamed"]
block_when = "renamed"
prompt = "Did the agent rename something?"
feedback = "Say what you renamed and why."
rules = { renamed = ['(?i)\brenamed\b'] }
"#,
    );
    let replayed = stdout_json(&run(&env, &["logs", "replay", "--json"]));
    assert_eq!(
        replayed["counts"],
        json!({"replayed": 3, "unchanged": 1, "newly_blocked": 1, "newly_allowed": 1, "failures": 0})
    );
    let changes = replayed["changes"].as_array().unwrap();
    let summary: Vec<(String, String, String, Value)> = changes
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["before"].as_str().unwrap().to_string(),
                c["after"].as_str().unwrap().to_string(),
                c["blocking_after"].clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                ids[0].clone(),
                "violation".into(),
                "allow".into(),
                json!([])
            ),
            (
                ids[1].clone(),
                "allow".into(),
                "violation".into(),
                json!(["rename"])
            ),
        ]
    );
    let human = ok(&run(&env, &["logs", "replay", "--session", "b"]));
    assert!(
        human.contains(&format!("{}      allow → violation", ids[1])),
        "{human}"
    );
    assert!(
        human.contains("1 replayed: 0 unchanged, 1 newly blocked"),
        "{human}"
    );
}

#[test]
fn labels_round_trip_into_judge_eval() {
    let env = Env::new();
    let ids = hooked_log(&env);
    // An allow without any Layer 1 hit: the label must say which detector should have blocked.
    let vague = run(&env, &["logs", "label", &ids[1], "wrong"]);
    assert_eq!(vague.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&vague.stderr).contains("--detector"));
    for args in [
        vec![ids[0].as_str(), "right"],
        vec![ids[1].as_str(), "wrong", "--detector", "commit"],
        vec![ids[1].as_str(), "right", "--note", "a rename is fine"],
        vec![ids[2].as_str(), "wrong", "--note", "claims without output"],
    ] {
        let mut full = vec!["logs", "label"];
        full.extend(args);
        ok(&run(&env, &full));
    }
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(env.log_dir().join("labels.jsonl"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    let exported = ok(&run(&env, &["logs", "export", "--labeled"]));
    let examples: Vec<Value> = exported
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        examples,
        [
            json!({"id": ids[0], "blocks": ["commit"], "text": PROPOSAL}),
            json!({"id": ids[1], "blocks": [], "text": RENAME, "note": "a rename is fine"}),
            json!({"id": ids[2], "blocks": ["commit"], "text": VERIFIED, "note": "claims without output"}),
        ]
    );
    let file = env.write("exported.jsonl", &exported);
    let eval = stdout_json(
        &env.cmd()
            .args(["judge", "--backend", "rules", "--json", "--eval"])
            .arg(&file)
            .output()
            .unwrap(),
    );
    assert_eq!(eval["examples"], 3);
    let commit = eval["detectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["detector"] == "commit")
        .unwrap();
    assert_eq!(
        (commit["blocks"].as_u64(), commit["allows"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(commit["true_positives"], 1);
    assert_eq!(commit["false_negatives"], 1);
    assert_eq!(commit["false_positives"], 0);
    assert_eq!(commit["missed"], json!([ids[2]]));

    // The plain export carries every record, with its label merged.
    let all = ok(&run(&env, &["logs", "export"]));
    let labels: Vec<Value> = all
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["label"].clone())
        .collect();
    assert_eq!(labels, ["right", "right", "wrong"]);
}

/// The real binary as a child process, stdout piped.
fn spawn(env: &Env, args: &[&str]) -> std::process::Child {
    env.agentguard(args).spawn().unwrap()
}

#[test]
fn follow_prints_appended_decisions_across_the_day_switch() {
    let env = Env::new();
    let line = |id: &str, ts: &str| format!("{}\n", record(id, ts, "s", "/w", json!([]), "allow"));
    append_line(
        &day_file(&env, "2026-11-28"),
        &line("first", "2026-11-28T23:59:58.000Z"),
    );
    let mut child = spawn(&env, &["logs", "-f", "--json"]);
    let stdout = child.stdout.take().unwrap();
    let (sender, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let id = serde_json::from_str::<Value>(&line).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string();
            if sender.send(id).is_err() {
                break;
            }
        }
    });
    let next = || {
        lines
            .recv_timeout(Duration::from_secs(60))
            .expect("a line from logs -f")
    };
    assert_eq!(next(), "first");
    append_line(
        &day_file(&env, "2026-11-28"),
        &line("second", "2026-11-28T23:59:59.000Z"),
    );
    assert_eq!(next(), "second");
    // A line being written shows once it is whole.
    let third = line("third", "2026-11-28T23:59:59.500Z");
    let (head, tail) = third.split_at(20);
    append_line(&day_file(&env, "2026-11-28"), head);
    std::thread::sleep(Duration::from_millis(500));
    append_line(&day_file(&env, "2026-11-28"), tail);
    assert_eq!(next(), "third");
    append_line(
        &day_file(&env, "2026-11-29"),
        &line("after-midnight", "2026-11-29T00:00:01.000Z"),
    );
    assert_eq!(next(), "after-midnight");
    child.kill().unwrap();
    child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn a_closed_pipe_ends_quietly_with_0() {
    let env = Env::new();
    let path = day_file(&env, "2026-11-29");
    let mut lines = String::new();
    for n in 0..3000 {
        let id = format!("20261129-000000-{n:06}");
        lines.push_str(&format!(
            "{}\n",
            record(
                &id,
                "2026-11-29T00:00:00.000Z",
                "s",
                "/w",
                json!([]),
                "allow"
            )
        ));
    }
    append_line(&path, &lines);
    let mut child = spawn(&env, &["logs", "--json", "--since", "2026-11-01"]);
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains("20261129-000000-000000"));
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
