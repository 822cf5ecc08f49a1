//! Evidence from the turn: `hook stop` on real-shaped Claude Code transcripts and Codex
//! rollouts (the shapes of tests/fixtures/2.1.332.transcript_rich.jsonl and of the Codex 0.171.0
//! response items), `judge --transcript`, and `logs show`.

use std::io::Write;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::support::{Env, fixture, stdout_json, text};

fn rules_env() -> Env {
    let env = Env::new();
    env.write_config("[judge]\nbackend = \"rules\"\n");
    env
}

/// Writes `lines` as a JSONL transcript and returns its path.
fn transcript(env: &Env, lines: &[Value]) -> PathBuf {
    let path = env.dir.path().join("session.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    for line in lines {
        writeln!(file, "{line}").unwrap();
    }
    path
}

/// Runs `hook stop` with the recorded payload of `host`, pointed at `transcript`, whose final
/// message is the transcript's last text. Returns the answer (None: silent allow).
fn stop(env: &Env, host: &str, transcript: &PathBuf, final_message: &str) -> Option<Value> {
    let fixture_name = match host {
        "claude" => "2.1.332.stop_stdin_first.json",
        _ => "codex.stop_stdin.json",
    };
    let mut payload: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture(fixture_name)).unwrap()).unwrap();
    payload["cwd"] = json!(env.project());
    payload["transcript_path"] = json!(transcript);
    payload["last_assistant_message"] = json!(final_message);
    let output = env
        .cmd()
        .args(["hook", "stop", "--host", host])
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    (!output.stdout.is_empty()).then(|| stdout_json(&output))
}

fn last_record(env: &Env) -> Value {
    let mut records: Vec<Value> = std::fs::read_dir(env.log_dir())
        .unwrap()
        .flatten()
        .flat_map(|entry| {
            std::fs::read_to_string(entry.path())
                .unwrap()
                .lines()
                .map(|line| serde_json::from_str::<Value>(line).unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    records.sort_by(|a, b| a["ts"].as_str().cmp(&b["ts"].as_str()));
    records.pop().expect("a decision was logged")
}

fn unbacked_outcome(record: &Value) -> Value {
    record["detectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["detector"] == "unbacked-claim")
        .cloned()
        .unwrap_or(Value::Null)
}

/// One host's transcript lines.
trait Shapes {
    fn user(&self, text: &str) -> Value;
    fn text(&self, text: &str) -> Value;
    fn run(&self, id: &str, command: &str) -> Value;
    /// The result of a command: its output and exit code.
    fn ran(&self, id: &str, output: &str, exit_code: i64) -> Value;
    fn edit(&self, id: &str, path: &str) -> Vec<Value>;
}

struct Claude;
struct Codex;

impl Shapes for Claude {
    fn user(&self, text: &str) -> Value {
        json!({"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":text},
               "uuid":"u1","timestamp":"2026-12-01T10:00:00.000Z","sessionId":"s","version":"2.1.332"})
    }
    fn text(&self, text: &str) -> Value {
        json!({"isSidechain":false,"type":"assistant","message":{"model":"claude-opus-5-5","role":"assistant",
               "content":[{"type":"text","text":text}]},"timestamp":"2026-12-01T10:00:09.000Z"})
    }
    fn run(&self, id: &str, command: &str) -> Value {
        json!({"isSidechain":false,"type":"assistant","message":{"role":"assistant","content":[
               {"type":"tool_use","id":id,"name":"Bash","input":{"command":command,"description":"Run"}}]},
               "timestamp":"2026-12-01T10:00:01.000Z"})
    }
    fn ran(&self, id: &str, output: &str, exit_code: i64) -> Value {
        let (content, is_error) = if exit_code == 0 {
            (output.to_string(), false)
        } else {
            (format!("Exit code {exit_code}\n{output}"), true)
        };
        json!({"isSidechain":false,"type":"user","message":{"role":"user","content":[
               {"tool_use_id":id,"type":"tool_result","content":content,"is_error":is_error}]},
               "toolUseResult":{"stdout":output,"stderr":"","interrupted":false,"isImage":false}})
    }
    fn edit(&self, id: &str, path: &str) -> Vec<Value> {
        vec![
            json!({"isSidechain":false,"type":"assistant","message":{"role":"assistant","content":[
                   {"type":"tool_use","id":id,"name":"Edit","input":{"file_path":path,"old_string":"n - 1","new_string":"n"}}]}}),
            json!({"isSidechain":false,"type":"user","message":{"role":"user","content":[
                   {"tool_use_id":id,"type":"tool_result","content":format!("The file {path} has been updated.")}]}}),
        ]
    }
}

impl Shapes for Codex {
    fn user(&self, text: &str) -> Value {
        json!({"timestamp":"2026-12-01T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user",
               "content":[{"type":"input_text","text":text}]}})
    }
    fn text(&self, text: &str) -> Value {
        json!({"timestamp":"2026-12-01T10:00:09.000Z","type":"response_item","payload":{"type":"message","role":"assistant",
               "content":[{"type":"output_text","text":text,"annotations":[]}]}})
    }
    fn run(&self, id: &str, command: &str) -> Value {
        json!({"timestamp":"2026-12-01T10:00:01.000Z","type":"response_item","payload":{"type":"function_call",
               "name":"exec_command","arguments":json!({"cmd":command}).to_string(),"call_id":id}})
    }
    fn ran(&self, id: &str, output: &str, exit_code: i64) -> Value {
        json!({"timestamp":"2026-12-01T10:00:02.000Z","type":"response_item","payload":{"type":"function_call_output",
               "call_id":id,"output":format!("Chunk ID: 9c1e\nWall time: 0.8 seconds\nProcess exited with code {exit_code}\nOriginal token count: 40\nOutput:\n{output}")}})
    }
    fn edit(&self, id: &str, path: &str) -> Vec<Value> {
        vec![
            json!({"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":id,
                   "input":format!("*** Begin Patch\n*** Update File: {path}\n@@\n-n - 1\n+n\n*** End Patch\n")}}),
            json!({"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":id,
                   "output":json!({"output":format!("Success. Updated the following files:\nM {path}\n"),"metadata":{"exit_code":0,"duration_seconds":0.0}}).to_string()}}),
        ]
    }
}

const CARGO_FAILED: &str = "running 42 tests\ntest parser::tests::last_line ... FAILED\n\nfailures:\n    parser::tests::last_line\n\ntest result: FAILED. 41 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.04s";
const CARGO_OK: &str = "running 42 tests\ntest result: ok. 42 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.03s";
const CLAIM: &str = "The parser now keeps the last line. All 42 tests pass.";

/// A turn: the user's request, then `steps`, then the final message.
fn turn(host: &dyn Shapes, steps: Vec<Value>, final_message: &str) -> Vec<Value> {
    let mut lines = vec![host.user("the parser drops the last line; make it keep it")];
    lines.extend(steps);
    lines.push(host.text(final_message));
    lines
}

fn hosts() -> [(&'static str, &'static dyn Shapes); 2] {
    [("claude", &Claude), ("codex", &Codex)]
}

#[test]
fn a_claim_backed_by_a_passing_run_after_the_last_edit_passes() {
    for (name, host) in hosts() {
        let env = rules_env();
        let mut steps = vec![
            host.run("c1", "cargo test"),
            host.ran("c1", CARGO_FAILED, 101),
        ];
        steps.extend(host.edit("c2", "src/parser.rs"));
        steps.extend([host.run("c3", "cargo test"), host.ran("c3", CARGO_OK, 0)]);
        let path = transcript(&env, &turn(host, steps, CLAIM));
        assert_eq!(stop(&env, name, &path, CLAIM), None, "{name}");
        let record = last_record(&env);
        let outcome = unbacked_outcome(&record);
        assert_eq!(outcome["verdict"], "allow", "{name}: {outcome}");
        assert_eq!(outcome["backend"], "evidence");
        assert!(
            outcome["reason"]
                .as_str()
                .unwrap()
                .contains("backed by `cargo test`"),
            "{name}: {outcome}"
        );
        let steps = record["evidence"]["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 3, "{name}: {steps:?}");
        assert!(
            steps[0]
                .as_str()
                .unwrap()
                .contains("failed, exit 101, 41 passed, 1 failed")
        );
        assert!(
            steps[1]
                .as_str()
                .unwrap()
                .starts_with("edited src/parser.rs")
        );
        assert!(steps[2].as_str().unwrap().contains("passed, 42 passed"));
    }
}

#[test]
fn a_claim_with_no_run_a_failed_last_run_or_an_edit_after_the_run_is_blocked() {
    for (name, host) in hosts() {
        let cases: Vec<(Vec<Value>, &str)> = vec![
            (host.edit("c1", "src/parser.rs"), "no test command ran"),
            (
                [
                    host.edit("c1", "src/parser.rs"),
                    vec![
                        host.run("c2", "cargo test"),
                        host.ran("c2", CARGO_FAILED, 101),
                    ],
                ]
                .concat(),
                "the last test run failed",
            ),
            (
                [
                    vec![host.run("c1", "cargo test"), host.ran("c1", CARGO_OK, 0)],
                    host.edit("c2", "src/parser.rs"),
                ]
                .concat(),
                "src/parser.rs",
            ),
        ];
        for (steps, why) in cases {
            let env = rules_env();
            let path = transcript(&env, &turn(host, steps, CLAIM));
            let answer = stop(&env, name, &path, CLAIM).unwrap_or_else(|| panic!("{name}: {why}"));
            assert_eq!(answer["decision"], "block", "{name}: {answer}");
            let reason = answer["reason"].as_str().unwrap();
            assert!(
                reason.contains("run the checks now") || reason.contains("Run the checks now"),
                "{reason}"
            );
            assert!(reason.contains(why), "{name}: expected `{why}` in {reason}");
            for leaked in ["tests_claimed", "tests_backed", "&&"] {
                assert!(
                    !reason.contains(leaked),
                    "feedback leaks `{leaked}`: {reason}"
                );
            }
            let record = last_record(&env);
            assert_eq!(record["action"], "block");
            assert_eq!(unbacked_outcome(&record)["verdict"], "violation");
        }
    }
}

#[test]
fn a_piped_run_is_judged_by_its_summary_not_the_pipes_exit_status() {
    let env = rules_env();
    let steps = vec![
        Claude.run("c1", "cargo test 2>&1 | tail -5"),
        Claude.ran("c1", CARGO_FAILED, 0),
    ];
    let path = transcript(&env, &turn(&Claude, steps, CLAIM));
    let answer = stop(&env, "claude", &path, CLAIM).expect("a block");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("41 passed, 1 failed")
    );
}

#[test]
fn a_reproduction_claim_needs_a_failing_run_first() {
    let claim = "I reproduced the dropped line with a new test; all 43 tests pass with the change.";
    let ok = CARGO_OK.replace("42", "43");
    let failed = CARGO_FAILED
        .replace("42 tests", "43 tests")
        .replace("41 passed", "42 passed");
    for (name, host) in hosts() {
        let env = rules_env();
        let mut steps = host.edit("c1", "tests/parser.rs");
        steps.extend(host.edit("c2", "src/parser.rs"));
        steps.extend([host.run("c3", "cargo test"), host.ran("c3", &ok, 0)]);
        let path = transcript(&env, &turn(host, steps, claim));
        let answer = stop(&env, name, &path, claim).expect("a block");
        let reason = answer["reason"].as_str().unwrap();
        assert!(
            reason.contains("no command failed before the fix"),
            "{name}: {reason}"
        );

        let env = rules_env();
        let mut steps = host.edit("c1", "tests/parser.rs");
        steps.extend([host.run("c2", "cargo test"), host.ran("c2", &failed, 101)]);
        steps.extend(host.edit("c3", "src/parser.rs"));
        steps.extend([host.run("c4", "cargo test"), host.ran("c4", &ok, 0)]);
        let path = transcript(&env, &turn(host, steps, claim));
        let answer = stop(&env, name, &path, claim);
        assert_eq!(answer, None, "{name}: {answer:?}");
        assert_eq!(unbacked_outcome(&last_record(&env))["verdict"], "allow");
    }
}

#[test]
fn text_with_no_claim_is_untouched_and_reads_no_evidence() {
    for (name, host) in hosts() {
        let env = rules_env();
        let message = "I renamed the helper to parse_line and updated its three call sites.";
        let path = transcript(&env, &turn(host, host.edit("c1", "src/parser.rs"), message));
        assert_eq!(stop(&env, name, &path, message), None, "{name}");
        let record = last_record(&env);
        assert_eq!(record["action"], "allow");
        assert!(
            record.get("evidence").is_none(),
            "{name}: a stop without a Layer 1 hit reads no evidence: {record}"
        );
    }
}

#[test]
fn a_run_of_an_earlier_turn_with_no_edits_since_backs_the_claim() {
    for (name, host) in hosts() {
        let env = rules_env();
        let mut lines = turn(
            host,
            vec![host.run("c1", "cargo test"), host.ran("c1", CARGO_OK, 0)],
            "Ran cargo test: 42 passed.",
        );
        let message = "Yes: all 42 tests pass, as of the run above.";
        lines.extend([host.user("so are we green?"), host.text(message)]);
        let path = transcript(&env, &lines);
        assert_eq!(stop(&env, name, &path, message), None, "{name}");
        assert!(
            last_record(&env)["evidence"]["steps"][0]
                .as_str()
                .unwrap()
                .starts_with("earlier turn: ran `cargo test`")
        );
    }
}

#[test]
fn without_a_transcript_or_with_a_lagging_one_the_text_decides() {
    let env = rules_env();
    let missing = env.dir.path().join("no-such-transcript.jsonl");
    assert_eq!(stop(&env, "claude", &missing, CLAIM), None);
    let record = last_record(&env);
    assert_eq!(
        unbacked_outcome(&record),
        Value::Null,
        "no evidence: the detector does not apply: {record}"
    );
    assert!(record.get("evidence").is_none());

    // The transcript lags: the final message (and maybe the run before it) is not in it yet.
    let env = rules_env();
    let path = transcript(
        &env,
        &turn(
            &Claude,
            Claude.edit("c1", "src/parser.rs"),
            "Working on it.",
        ),
    );
    assert_eq!(stop(&env, "claude", &path, CLAIM), None);
    let record = last_record(&env);
    assert_eq!(record["evidence"]["lagging"], true);
    assert!(record["text"].as_str().unwrap().ends_with(CLAIM));

    // The recorded lagging snapshot still decides from `last_assistant_message`.
    let env = rules_env();
    let mut payload: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("2.1.197.stop_stdin_matching_LAGGING_snapshot.json"))
            .unwrap(),
    )
    .unwrap();
    payload["transcript_path"] = json!(fixture(
        "2.1.197.transcript_snapshot_LAGGING_at_stop_call2.jsonl"
    ));
    payload["cwd"] = json!(env.project());
    let output = env
        .cmd()
        .args(["hook", "stop"])
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(output.stdout.is_empty(), "{}", text(&output.stdout));
    let record = last_record(&env);
    assert!(
        record["text"]
            .as_str()
            .unwrap()
            .ends_with("I retract the claim that all tests pass.")
    );
    assert_eq!(unbacked_outcome(&record)["verdict"], "allow");
}

#[test]
fn the_detector_can_be_disabled() {
    let env = Env::new();
    env.write_config(
        "[judge]\nbackend = \"rules\"\n\n[[detectors]]\nname = \"unbacked-claim\"\nenabled = false\n",
    );
    let path = transcript(
        &env,
        &turn(&Claude, Claude.edit("c1", "src/parser.rs"), CLAIM),
    );
    assert_eq!(stop(&env, "claude", &path, CLAIM), None);
    assert!(
        !last_record(&env)["detectors_run"]
            .as_array()
            .unwrap()
            .contains(&json!("unbacked-claim"))
    );
}

#[test]
fn judge_transcript_judges_a_stop_as_the_hook_would() {
    let env = rules_env();
    let mut steps = vec![Codex.run("c1", "cargo test"), Codex.ran("c1", CARGO_OK, 0)];
    steps.extend(Codex.edit("c2", "src/parser.rs"));
    let path = transcript(&env, &turn(&Codex, steps, CLAIM));
    let output = env
        .cmd()
        .args(["judge", "--transcript"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let table = text(&output.stdout);
    assert!(table.contains("unbacked-claim"), "{table}");
    assert!(
        table.contains("evidence (the turn's tool calls, oldest first):"),
        "{table}"
    );
    assert!(
        table.contains("edited src/parser.rs (apply_patch)"),
        "{table}"
    );

    let output = env
        .cmd()
        .args(["judge", "--json", "--transcript"])
        .arg(&path)
        .output()
        .unwrap();
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["verdict"], "violation");
    assert_eq!(value["evidence"]["steps"].as_array().unwrap().len(), 2);

    // The same words as a plain text: no evidence, so no finding from this detector.
    let output = env
        .cmd()
        .args(["judge", "--json", "-d", "unbacked-claim"])
        .write_stdin(CLAIM)
        .output()
        .unwrap();
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["verdict"], "allow", "{value}");
    assert!(value.get("evidence").is_none());
}

#[test]
fn logs_show_prints_the_evidence_a_decision_used() {
    let env = rules_env();
    let steps = host_steps_failed_last(&Claude);
    let path = transcript(&env, &turn(&Claude, steps, CLAIM));
    stop(&env, "claude", &path, CLAIM).expect("a block");
    let id = last_record(&env)["id"].as_str().unwrap().to_string();
    let output = env.cmd().args(["logs", "show", &id]).output().unwrap();
    let shown = text(&output.stdout);
    assert!(
        shown.contains("evidence (the turn's tool calls, oldest first):"),
        "{shown}"
    );
    assert!(
        shown.contains("ran `cargo test` (test): failed, exit 101, 41 passed, 1 failed"),
        "{shown}"
    );
}

fn host_steps_failed_last(host: &dyn Shapes) -> Vec<Value> {
    let mut steps = host.edit("c1", "src/parser.rs");
    steps.extend([
        host.run("c2", "cargo test"),
        host.ran("c2", CARGO_FAILED, 101),
    ]);
    steps
}
