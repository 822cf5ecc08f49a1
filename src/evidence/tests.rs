use serde_json::{Value, json};

use super::*;
use crate::transcript::{Detail, parse_entry};

/// Transcript lines, oldest first, as the extractor reads them (newest first).
fn evidence_of(lines: &[Value]) -> Evidence {
    evidence_with(lines, Bounds::default())
}

fn evidence_with(lines: &[Value], bounds: Bounds) -> Evidence {
    let entries: Vec<(usize, Entry)> = lines
        .iter()
        .rev()
        .map(|line| {
            let line = line.to_string();
            (line.len() + 1, parse_entry(line.as_bytes(), Detail::Tools))
        })
        .collect();
    extract(entries, bounds)
}

// Claude Code shapes (tests/fixtures/2.1.332.transcript_rich.jsonl).
fn user(text: &str) -> Value {
    json!({"type":"user","message":{"role":"user","content":text}})
}
fn text(text: &str) -> Value {
    json!({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":text}]}})
}
fn bash(id: &str, command: &str) -> Value {
    json!({"type":"assistant","timestamp":"2026-12-01T10:00:00.000Z","message":{"role":"assistant","content":[
        {"type":"tool_use","id":id,"name":"Bash","input":{"command":command,"description":"run"}}]}})
}
fn edit(id: &str, tool: &str, path: &str) -> Value {
    json!({"type":"assistant","message":{"role":"assistant","content":[
        {"type":"tool_use","id":id,"name":tool,"input":{"file_path":path,"old_string":"a","new_string":"b"}}]}})
}
fn result(id: &str, output: &str, is_error: bool) -> Value {
    json!({"type":"user","message":{"role":"user","content":[
        {"tool_use_id":id,"type":"tool_result","content":output,"is_error":is_error}]}})
}

// Codex rollout shapes (response items of 0.171.0).
fn codex_user(text: &str) -> Value {
    json!({"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":text}]}})
}
fn codex_text(text: &str) -> Value {
    json!({"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":text}]}})
}
fn codex_exec(id: &str, cmd: &str) -> Value {
    json!({"type":"response_item","timestamp":"2026-12-01T10:00:00.000Z","payload":{"type":"function_call","name":"exec_command",
        "arguments":json!({"cmd":cmd}).to_string(),"call_id":id}})
}
fn codex_shell(id: &str, argv: &[&str]) -> Value {
    json!({"type":"response_item","payload":{"type":"function_call","name":"shell",
        "arguments":json!({"command":argv,"workdir":"/home/dev/proj"}).to_string(),"call_id":id}})
}
fn codex_patch(id: &str, patch: &str) -> Value {
    json!({"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":patch,"call_id":id}})
}
fn codex_output(id: &str, output: &str) -> Value {
    json!({"type":"response_item","payload":{"type":"function_call_output","call_id":id,"output":output}})
}

fn runs(evidence: &Evidence) -> Vec<&Run> {
    evidence.runs().map(|(_, run)| run).collect()
}

const CARGO_FAIL: &str = "Exit code 101\nrunning 42 tests\ntest parser::tests::empty ... FAILED\n\ntest result: FAILED. 40 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.03s";
const CARGO_OK: &str = "running 42 tests\ntest result: ok. 42 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s";

#[test]
fn tables_compile() {
    runners::compile_all();
    claims::compile_all();
}

#[test]
fn claude_turn_fail_edit_pass() {
    let evidence = evidence_of(&[
        user("fix the parser"),
        bash("t1", "cargo test"),
        result("t1", CARGO_FAIL, true),
        edit("e1", "Edit", "/p/src/parser.rs"),
        result("e1", "The file /p/src/parser.rs has been updated.", false),
        bash("t2", "cd /p && cargo test 2>&1 | tail -3"),
        result("t2", CARGO_OK, false),
        text("Fixed. All 42 tests pass."),
    ]);
    assert!(evidence.turn_complete);
    assert_eq!(
        evidence.final_text.as_deref(),
        Some("Fixed. All 42 tests pass.")
    );
    assert_eq!(evidence.steps.len(), 3);
    let runs = runs(&evidence);
    assert_eq!(runs[0].status, Status::Failed);
    assert_eq!(runs[0].exit_code, Some(101));
    assert_eq!(
        runs[0].counts,
        Some(Counts {
            passed: 40,
            failed: 2,
            ..Counts::default()
        })
    );
    assert_eq!(runs[0].kinds, vec![CheckKind::Test]);
    assert_eq!(runs[1].status, Status::Passed);
    assert_eq!(runs[1].counts.unwrap().passed, 42);
    assert!(matches!(
        evidence.backing(ClaimKind::Tests),
        claims::Backing::Backed(_)
    ));
    assert!(evidence.backing(ClaimKind::Reproduction).backs());
    assert_eq!(evidence.verified(), Some(true));
    assert!(evidence.failed_then_fixed());
    assert_eq!(evidence.field("cause_explained"), Some(true));
}

#[test]
fn a_summary_with_failures_beats_the_exit_status_of_a_pipe() {
    let evidence = evidence_of(&[
        user("run the tests"),
        bash("t1", "cargo test 2>&1 | tail -3"),
        result("t1", &CARGO_FAIL["Exit code 101\n".len()..], false),
    ]);
    assert_eq!(runs(&evidence)[0].status, Status::Failed);
    assert!(matches!(
        evidence.backing(ClaimKind::Tests),
        claims::Backing::Failed(_)
    ));
    assert_eq!(evidence.verified(), Some(false));
}

#[test]
fn an_edit_after_the_last_passing_run_unbacks_it() {
    let evidence = evidence_of(&[
        user("fix it"),
        bash("t1", "pytest -q"),
        result("t1", "..........\n10 passed in 0.12s", false),
        edit("e1", "Write", "/p/app.py"),
        result("e1", "File created successfully at: /p/app.py", false),
        text("Done, tests pass."),
    ]);
    let backing = evidence.backing(ClaimKind::Tests);
    assert!(matches!(backing, claims::Backing::EditedAfter(_, e) if e.paths == ["/p/app.py"]));
    assert_eq!(evidence.verified(), Some(false));
    // A refused edit changed nothing.
    let evidence = evidence_of(&[
        user("fix it"),
        bash("t1", "pytest -q"),
        result("t1", "10 passed in 0.12s", false),
        edit("e1", "Edit", "/p/app.py"),
        result(
            "e1",
            "<tool_use_error>String to replace not found</tool_use_error>",
            true,
        ),
    ]);
    assert!(matches!(
        evidence.backing(ClaimKind::Tests),
        claims::Backing::Backed(_)
    ));
}

#[test]
fn commands_that_never_ran_or_only_look_are_no_check() {
    let evidence = evidence_of(&[
        user("ship it"),
        bash("t1", "cargo test"),
        result(
            "t1",
            "PreToolUse:Bash hook error: AGENTGUARD: cargo is not allowed",
            true,
        ),
        bash("t2", "echo 'cargo test passed'"),
        result("t2", "cargo test passed", false),
        bash("t3", "grep -rn todo src"),
        result("t3", "Exit code 1", true),
    ]);
    let runs = runs(&evidence);
    assert_eq!(runs.len(), 2, "the denied call is no run: {runs:?}");
    assert!(runs.iter().all(|r| !r.is_check()));
    assert!(runs[1].inspection);
    assert_eq!(evidence.backing(ClaimKind::Tests), claims::Backing::NoRun);
    assert_eq!(
        evidence.backing(ClaimKind::Reproduction),
        claims::Backing::NoRun,
        "a grep that found nothing reproduces nothing"
    );
}

#[test]
fn shell_writes_count_as_edits_but_git_and_temp_files_do_not() {
    let evidence = evidence_of(&[
        user("go"),
        bash("t1", "go test ./..."),
        result("t1", "ok  \texample.com/p\t0.01s", false),
        bash("t2", "git commit -am wip"),
        result("t2", "[main 1a2b3c4] wip", false),
        bash("t3", "echo log > /tmp/notes.txt"),
        result("t3", "", false),
    ]);
    assert!(matches!(
        evidence.backing(ClaimKind::Tests),
        claims::Backing::Backed(_)
    ));
    let evidence = evidence_of(&[
        user("go"),
        bash("t1", "go test ./..."),
        result("t1", "ok  \texample.com/p\t0.01s", false),
        bash("t2", "sed -i 's/a/b/' main.go"),
        result("t2", "", false),
    ]);
    assert!(matches!(
        evidence.backing(ClaimKind::Tests),
        claims::Backing::EditedAfter(..)
    ));
}

#[test]
fn codex_rollout_exit_codes_and_patches() {
    let evidence = evidence_of(&[
        codex_user("<environment_context>\n  <cwd>/home/dev/proj</cwd>\n</environment_context>"),
        codex_user("make the tests pass"),
        codex_exec("c1", "cargo test"),
        codex_output(
            "c1",
            &format!("Chunk ID: 3f2a\nWall time: 1.2 seconds\nProcess exited with code 101\nOriginal token count: 80\nOutput:\n{}", &CARGO_FAIL["Exit code 101\n".len()..]),
        ),
        codex_patch(
            "c2",
            "*** Begin Patch\n*** Update File: src/parser.rs\n@@\n-a\n+b\n*** End Patch\n",
        ),
        codex_output(
            "c2",
            &json!({"output":"Success. Updated the following files:\nM src/parser.rs\n","metadata":{"exit_code":0,"duration_seconds":0.0}}).to_string(),
        ),
        codex_shell("c3", &["bash", "-lc", "cargo test"]),
        codex_output(
            "c3",
            &json!({"output": CARGO_OK, "metadata":{"exit_code":0,"duration_seconds":0.4}}).to_string(),
        ),
        codex_exec("c4", "cargo clippy --all-targets -- -D warnings"),
        codex_output("c4", "Exit code: 0\nWall time: 3.1 seconds\nOutput:\n    Finished `dev` profile"),
        codex_text("All 42 tests pass and clippy is clean."),
    ]);
    assert!(evidence.turn_complete);
    let runs = runs(&evidence);
    assert_eq!(runs.len(), 3);
    assert_eq!(
        (runs[0].status, runs[0].exit_code),
        (Status::Failed, Some(101))
    );
    assert_eq!(runs[1].command, "cargo test");
    assert_eq!(runs[1].status, Status::Passed);
    assert_eq!(runs[2].kinds, vec![CheckKind::Lint]);
    assert!(
        matches!(&evidence.steps[1], Step::Edit(e) if e.paths == ["src/parser.rs"] && e.tool == "apply_patch")
    );
    assert!(evidence.backing(ClaimKind::Tests).backs());
    assert!(evidence.backing(ClaimKind::Lint).backs());
    assert!(evidence.failed_then_fixed());
}

#[test]
fn codex_hook_feedback_is_not_a_user_turn() {
    let evidence = evidence_of(&[
        codex_user("fix it"),
        codex_exec("c1", "pytest"),
        codex_output("c1", "Exit code: 0\nOutput:\n5 passed in 0.2s"),
        codex_text("Shall I push?"),
        codex_user("<hook_prompt hook_run_id=\"stop:2\">agentguard: run the checks</hook_prompt>"),
        codex_text("Tests pass (5 passed)."),
    ]);
    assert_eq!(evidence.current_from, 0);
    assert!(evidence.backing(ClaimKind::Tests).backs());
}

#[test]
fn a_background_run_has_no_result_yet() {
    let evidence = evidence_of(&[
        user("test"),
        bash("t1", "npm test"),
        result("t1", "Command running in background with ID: bash_1", false),
    ]);
    assert_eq!(runs(&evidence)[0].status, Status::Unknown);
    assert!(matches!(
        evidence.backing(ClaimKind::Tests),
        claims::Backing::Pending(_)
    ));
}

#[test]
fn earlier_turns_back_a_claim_until_something_is_edited() {
    let earlier = [
        user("run the tests"),
        bash("t1", "npx vitest run"),
        result(
            "t1",
            " Test Files  3 passed (3)\n      Tests  12 passed (12)\n",
            false,
        ),
        text("12 passed."),
    ];
    let mut lines = earlier.to_vec();
    lines.extend([user("are we green?"), text("Yes, all 12 tests pass.")]);
    let evidence = evidence_of(&lines);
    assert_eq!(evidence.current_from, 1, "the run is of the earlier turn");
    assert!(matches!(
        evidence.backing(ClaimKind::Tests),
        claims::Backing::Backed(_)
    ));
    let mut lines = earlier.to_vec();
    lines.extend([
        user("rename foo"),
        edit("e1", "MultiEdit", "/p/src/foo.ts"),
        result("e1", "Applied 3 edits", false),
        text("Renamed; tests pass."),
    ]);
    assert!(matches!(
        evidence_of(&lines).backing(ClaimKind::Tests),
        claims::Backing::EditedAfter(..)
    ));
    // Beyond the bound the earlier turn is not read.
    let mut lines = earlier.to_vec();
    lines.extend([user("are we green?"), text("Yes.")]);
    let bounds = Bounds {
        earlier_turns: 0,
        ..Bounds::default()
    };
    assert_eq!(
        evidence_with(&lines, bounds).backing(ClaimKind::Tests),
        claims::Backing::NoRun
    );
}

#[test]
fn a_turn_cut_by_the_read_bound_asserts_no_missing_run() {
    let evidence = evidence_of(&[text("All tests pass.")]);
    assert!(!evidence.turn_complete);
    assert_eq!(evidence.backing(ClaimKind::Tests), claims::Backing::Unknown);
}

#[test]
fn check_commands_are_classified_per_simple_command() {
    let cases: &[(&str, &[CheckKind])] = &[
        ("cargo test --workspace", &[CheckKind::Test]),
        ("cargo nextest run", &[CheckKind::Test]),
        (
            "cargo build --release && cargo clippy -- -D warnings",
            &[CheckKind::Build, CheckKind::Lint],
        ),
        ("cd web && npm test -- --watch=false", &[CheckKind::Test]),
        ("npm run lint", &[CheckKind::Lint]),
        ("pnpm run typecheck", &[CheckKind::Typecheck]),
        ("npx vitest run src", &[CheckKind::Test]),
        ("yarn jest --ci", &[CheckKind::Test]),
        ("python -m pytest -x tests/", &[CheckKind::Test]),
        ("uv run pytest", &[CheckKind::Test]),
        (
            "go test ./... && go vet ./...",
            &[CheckKind::Test, CheckKind::Lint],
        ),
        ("./gradlew test", &[CheckKind::Test]),
        ("mvn -q verify", &[CheckKind::Test, CheckKind::Build]),
        ("dotnet test", &[CheckKind::Test]),
        ("ctest --output-on-failure", &[CheckKind::Test]),
        ("make check", &[CheckKind::Test]),
        ("make -j8", &[CheckKind::Build]),
        ("npx tsc --noEmit", &[CheckKind::Typecheck]),
        ("npx eslint .", &[CheckKind::Lint]),
        ("ruff check .", &[CheckKind::Lint]),
        ("mypy src", &[CheckKind::Typecheck]),
        ("gh pr checks 42", &[CheckKind::Ci]),
        ("timeout 600 cargo test", &[CheckKind::Test]),
        ("bash -c 'cargo test'", &[CheckKind::Test]),
        ("echo cargo test", &[]),
        ("cat test_output.txt", &[]),
        ("git commit -m 'make tests pass'", &[]),
    ];
    for (command, expected) in cases {
        assert_eq!(
            &runners::kinds(&runners_views(command)),
            expected,
            "{command}"
        );
    }
}

fn runners_views(command: &str) -> Vec<String> {
    runners::views(command)
}

#[test]
fn runner_summaries_from_real_output_formats() {
    let counts = |passed, failed, skipped| Counts {
        passed,
        failed,
        skipped,
        total: 0,
    };
    let cases: &[(&str, &str, Counts)] = &[
        (
            "cargo, two binaries",
            "test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\ntest result: FAILED. 5 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out",
            counts(8, 1, 1),
        ),
        (
            "nextest",
            "     Summary [   0.016s] 12 tests run: 11 passed, 1 failed, 0 skipped",
            Counts {
                total: 12,
                ..counts(11, 1, 0)
            },
        ),
        (
            "go test -v",
            "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\texample.com/p\t0.005s\n",
            counts(1, 1, 0),
        ),
        (
            "go test",
            "ok  \texample.com/a\t0.01s\nok  \texample.com/b\t(cached)\n",
            counts(2, 0, 0),
        ),
        (
            "pytest",
            "=========== 2 failed, 10 passed, 1 skipped in 0.42s ===========",
            counts(10, 2, 1),
        ),
        ("pytest -q", "12 passed in 0.05s", counts(12, 0, 0)),
        (
            "unittest",
            "Ran 7 tests in 0.01s\n\nFAILED (failures=1, errors=1)",
            Counts {
                total: 7,
                ..counts(5, 2, 0)
            },
        ),
        (
            "jest",
            "Tests:       1 failed, 2 skipped, 12 passed, 15 total",
            Counts {
                total: 15,
                ..counts(12, 1, 2)
            },
        ),
        (
            "vitest",
            " Test Files  1 failed | 2 passed (3)\n      Tests  1 failed | 20 passed (21)",
            Counts {
                total: 21,
                ..counts(20, 1, 0)
            },
        ),
        (
            "mocha",
            "  14 passing (30ms)\n  2 pending\n  1 failing\n",
            counts(14, 1, 2),
        ),
        (
            "maven",
            "[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.05 s - in a.BTest\n[ERROR] Tests run: 10, Failures: 1, Errors: 1, Skipped: 2\n[INFO] BUILD FAILURE",
            Counts {
                total: 10,
                ..counts(6, 2, 2)
            },
        ),
        (
            "gradle",
            "12 tests completed, 2 failed, 1 skipped\n\nBUILD FAILED in 3s",
            Counts {
                total: 12,
                ..counts(9, 2, 1)
            },
        ),
        (
            "dotnet",
            "Passed!  - Failed:     0, Passed:    12, Skipped:     1, Total:    13, Duration: 45 ms",
            Counts {
                total: 13,
                ..counts(12, 0, 1)
            },
        ),
        (
            "ctest",
            "92% tests passed, 1 tests failed out of 12",
            Counts {
                total: 12,
                ..counts(11, 1, 0)
            },
        ),
        (
            "tsc",
            "src/a.ts(3,1): error TS2304: Cannot find name 'x'.\n\nFound 2 errors in 1 file.",
            counts(0, 2, 0),
        ),
        (
            "eslint",
            "✖ 4 problems (3 errors, 1 warning)",
            Counts {
                total: 4,
                ..counts(1, 3, 0)
            },
        ),
        ("ruff", "All checks passed!", counts(1, 0, 0)),
        (
            "mypy",
            "Success: no issues found in 14 source files",
            counts(14, 0, 0),
        ),
        (
            "rspec",
            "Finished in 0.1 seconds\n25 examples, 0 failures, 2 pending",
            Counts {
                total: 25,
                ..counts(23, 0, 2)
            },
        ),
        (
            "cargo build",
            "error[E0425]: cannot find value `x`\nerror: could not compile `p` (lib) due to 1 previous error",
            counts(0, 1, 0),
        ),
    ];
    for (name, output, expected) in cases {
        assert_eq!(
            runners::summarize(output).as_ref(),
            Some(expected),
            "{name}"
        );
    }
    assert_eq!(runners::summarize("hello world\n"), None);
}

#[test]
fn final_message_prefers_the_hosts_last_message_and_notes_a_lag() {
    let mut evidence = evidence_of(&[user("q"), text("Working on it.")]);
    evidence.set_final_message(Some("Working on it."));
    assert!(!evidence.lagging);
    evidence.set_final_message(Some("Done. All tests pass."));
    assert!(evidence.lagging);
    assert_eq!(
        evidence.final_text.as_deref(),
        Some("Done. All tests pass.")
    );
}

#[test]
fn summaries_for_judges_and_logs_are_short_and_redacted() {
    let evidence = evidence_of(&[
        user("deploy"),
        bash(
            "t1",
            "API_TOKEN=ghp_R8xWq2LmZ0vKc7YtB3nH9sJd4FgP1aEu6oTi cargo test",
        ),
        result("t1", CARGO_OK, false),
        bash("t2", "ls"),
        result("t2", "src", false),
    ]);
    let log = evidence.log_summary();
    assert_eq!(log.steps.len(), 1);
    assert!(!log.steps[0].contains("ghp_R8xW"), "{:?}", log.steps);
    assert!(log.steps[0].contains("42 passed"), "{:?}", log.steps);
    assert_eq!(log.omitted, 1);
    let summary = evidence.summary_text();
    assert!(summary.contains("(test): passed, 42 passed"), "{summary}");
}

/// The built-in `unbacked-claim` detector.
fn unbacked_claim() -> &'static crate::detectors::Detector {
    static DETECTORS: std::sync::OnceLock<crate::detectors::Detectors> = std::sync::OnceLock::new();
    DETECTORS
        .get_or_init(|| {
            crate::detectors::Detectors::load(&crate::config::Config::defaults().detectors).unwrap()
        })
        .get("unbacked-claim")
        .unwrap()
}

fn claims_in(message: &str) -> Vec<String> {
    let detector = unbacked_claim();
    let (fields, cues) = (&detector.fields, detector.rule_cues(message).unwrap());
    // Empty but complete evidence: every claim is unbacked, so `_claimed` shows what was read.
    let evidence = Evidence {
        turn_complete: true,
        final_text: Some(message.to_string()),
        ..Evidence::default()
    };
    let judged = judge_detector(fields, &cues, message, Some(&evidence));
    judged
        .fields
        .iter()
        .filter(|(name, value)| **value && name.ends_with("_claimed"))
        .map(|(name, _)| name.trim_end_matches("_claimed").to_string())
        .collect()
}

#[test]
fn claims_are_read_in_every_layer1_language() {
    let cases: &[(&str, &str)] = &[
        ("All 48 tests pass.", "tests"),
        ("cargo test: 212 passed, 0 failed.", "tests"),
        ("The build succeeded and clippy is clean.", "build"),
        ("It compiles cleanly now.", "build"),
        ("Lint is clean.", "lint"),
        ("CI is green.", "ci"),
        (
            "I reproduced the crash with an empty input.",
            "reproduction",
        ),
        ("测试全部通过。", "tests"),
        ("编译成功。", "build"),
        ("已复现该问题。", "reproduction"),
        ("テストはすべて通過しました。", "tests"),
        ("ビルドも成功しました。", "build"),
        ("不具合を再現しました。", "reproduction"),
        ("모든 테스트가 통과했습니다.", "tests"),
        ("Todas las pruebas pasan.", "tests"),
        ("Tous les tests passent.", "tests"),
        ("Alle Tests bestanden.", "tests"),
        ("Todos os testes passaram.", "tests"),
        ("Все тесты проходят.", "tests"),
        ("Tüm testler geçti.", "tests"),
        ("เทสต์ผ่านทั้งหมด", "tests"),
        ("Tất cả test đều pass.", "tests"),
    ];
    for (message, kind) in cases {
        assert!(
            claims_in(message).contains(&kind.to_string()),
            "{message}: {:?}",
            claims_in(message)
        );
    }
}

#[test]
fn negated_hedged_planned_or_asked_claims_are_no_claims() {
    for message in [
        "I have not run the tests.",
        "The tests should pass now.",
        "Once the tests pass, I'll commit.",
        "Do all tests pass?",
        "I retract the claim that all tests pass.",
        "3 passed, 2 failed.",
        "I could not reproduce the crash.",
        "测试还没有通过。",
        "テストはまだ通っていません。",
        "테스트가 아직 통과하지 않았습니다.",
        "Las pruebas no pasan.",
        "Les tests ne passent pas.",
        "Die Tests sind nicht grün.",
        "Os testes não passam.",
        "Тесты не проходят.",
        "Testler henüz geçmedi.",
        "เทสต์ยังไม่ผ่าน",
        "Test chưa pass.",
    ] {
        assert!(
            claims_in(message).is_empty(),
            "{message}: {:?}",
            claims_in(message)
        );
    }
    // A negation in one clause leaves the other clauses' claims standing.
    assert_eq!(
        claims_in("All tests pass, but I have not run clippy."),
        vec!["tests"]
    );
}

#[test]
fn the_detector_fires_only_with_complete_evidence_against_the_claim() {
    let detector = unbacked_claim();
    let message = "Fixed. All tests pass.";
    let (fields, cues) = (&detector.fields, detector.rule_cues(message).unwrap());
    let cues = cues.as_slice();
    let judged = judge_detector(fields, cues, message, None);
    assert!(
        judged.fields.values().all(|v| !v),
        "no evidence, no finding"
    );
    let lagging = Evidence {
        turn_complete: true,
        lagging: true,
        final_text: Some(message.into()),
        ..Evidence::default()
    };
    let judged = judge_detector(fields, cues, message, Some(&lagging));
    assert!(judged.fields.values().all(|v| !v), "{}", judged.reason);

    let passed = evidence_of(&[
        user("fix it"),
        edit("e1", "Edit", "/p/a.rs"),
        result("e1", "ok", false),
        bash("t1", "cargo test"),
        result("t1", CARGO_OK, false),
        text(message),
    ]);
    let judged = judge_detector(fields, cues, message, Some(&passed));
    assert!(judged.fields["tests_claimed"] && judged.fields["tests_backed"]);
    assert!(
        judged.reason.contains("backed by `cargo test`"),
        "{}",
        judged.reason
    );

    // The cues a hit compiles are those whose gates occur in the judged text.
    let reproduced_message = "I reproduced the bug and fixed it; all tests pass.";
    let reproduced = Evidence {
        final_text: Some(reproduced_message.into()),
        ..passed
    };
    let reproduced_cues = detector.rule_cues(reproduced_message).unwrap();
    let judged = judge_detector(
        fields,
        reproduced_cues.as_slice(),
        reproduced_message,
        Some(&reproduced),
    );
    assert!(judged.fields["reproduction_claimed"]);
    assert!(
        !judged.fields["reproduction_backed"],
        "no failing run came first"
    );
    assert!(
        judged.reason.contains("no command failed"),
        "{}",
        judged.reason
    );
}

#[test]
fn every_claim_cue_case_hits_layer1() {
    let detectors =
        crate::detectors::Detectors::load(&crate::config::Config::defaults().detectors).unwrap();
    let detector = detectors.get("unbacked-claim").unwrap();
    let pipeline = crate::pipeline::Pipeline::new(vec![detector]).unwrap();
    for message in [
        "All 48 tests pass.",
        "The build succeeded.",
        "CI is green.",
        "I reproduced the crash.",
        "测试全部通过。",
        "テストはすべて通過しました。",
        "모든 테스트가 통과했습니다.",
        "Todas las pruebas pasan.",
        "Tous les tests passent.",
        "Alle Tests bestanden.",
        "Todos os testes passaram.",
        "Все тесты проходят.",
        "Tüm testler geçti.",
        "เทสต์ผ่านทั้งหมด",
        "Tất cả test đều pass.",
    ] {
        let layer1 = pipeline.layer1(message).unwrap();
        assert_eq!(layer1[0].label(), "hit", "{message}");
    }
    let layer1 = pipeline
        .layer1("I renamed the helper in parser.rs.")
        .unwrap();
    assert_eq!(layer1[0].label(), "miss");
}
