//! `agentguard doctor`: against the real `claude` and `codex` CLIs and without them, with
//! settings, configs and decision logs in the states users actually end up in.

use serde_json::{Value, json};

use crate::support::{Env, agent_cli_dir, stdout_json};

const RULES: &str = "[judge]\nbackend = \"rules\"\n";

/// Runs doctor with `--json`; returns the exit code and the report, after checking the
/// report's shape: every check has an id, a status and a message, and a fix unless it is ok.
fn doctor(env: &Env, extra: &[&str]) -> (i32, Value) {
    let output = env
        .cmd()
        .arg("doctor")
        .arg("--json")
        .args(extra)
        .output()
        .unwrap();
    let report = stdout_json(&output);
    let checks = report["checks"].as_array().expect("checks is an array");
    for check in checks {
        assert!(check["id"].is_string(), "{check}");
        assert!(check["message"].is_string(), "{check}");
        let status = check["status"].as_str().unwrap();
        assert!(["ok", "warn", "fail"].contains(&status), "{check}");
        assert_eq!(check["fix"].is_string(), status != "ok", "{check}");
    }
    let failed = checks.iter().any(|c| c["status"] == "fail");
    assert_eq!(report["healthy"], !failed);
    let code = output.status.code().unwrap();
    assert_eq!(code, if failed { 1 } else { 0 }, "{report:#}");
    (code, report)
}

fn check<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check `{id}` in {report:#}"))
}

fn status<'a>(report: &'a Value, id: &str) -> &'a str {
    check(report, id)["status"].as_str().unwrap()
}

fn message<'a>(report: &'a Value, id: &str) -> &'a str {
    check(report, id)["message"].as_str().unwrap()
}

fn install(env: &Env, extra: &[&str]) {
    env.cmd()
        .args(["install", "--yes"])
        .args(extra)
        .assert()
        .success();
}

/// Every path under `dir`, sorted.
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            found.push(path);
        }
    }
    found.sort();
    found
}

/// An env whose PATH holds the pinned real `claude` and `codex`.
fn env_with_real_clis() -> Option<Env> {
    let dir = agent_cli_dir("claude")?;
    assert!(
        dir.join("codex").exists(),
        "codex is missing next to claude in {dir:?}"
    );
    let mut env = Env::new();
    env.path_prefix.push(dir);
    Some(env)
}

#[test]
fn fresh_install_with_the_rules_backend_and_the_real_clis_is_healthy() {
    let Some(env) = env_with_real_clis() else {
        return;
    };
    env.write_config(RULES);
    install(&env, &[]);
    let before = files_under(&env.home());
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 0);
    assert_eq!(report["healthy"], true);
    // Doctor changes nothing in HOME, through the CLIs it runs included.
    assert_eq!(files_under(&env.home()), before);
    let ids: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "binary",
            "config.user",
            "config.project",
            "config.env",
            "detectors",
            "backend",
            "settings.claude.user",
            "settings.claude.project",
            "settings.claude.local",
            "settings.codex.user",
            "settings.codex.project",
            "hooks.installed",
            "cli.claude",
            "cli.codex",
            "log.dir",
            "log.judge_failures",
            "hooks.stop_activity",
            "hooks.pre_tool_activity",
        ]
    );
    for id in [
        "config.user",
        "config.project",
        "config.env",
        "detectors",
        "backend",
        "settings.claude.user",
        "hooks.installed",
        "cli.claude",
        "cli.codex",
        "log.dir",
        "log.judge_failures",
    ] {
        assert_eq!(status(&report, id), "ok", "{id}: {}", check(&report, id));
    }
    assert!(message(&report, "backend").contains("rules (judge.backend"));
    let user = message(&report, "settings.claude.user");
    assert!(
        user.contains("Stop, SubagentStop, PreToolUse") || user.contains("PreToolUse, Stop"),
        "{user}"
    );
    // The real help texts carry every flag the judges pass.
    let claude = message(&report, "cli.claude");
    assert!(claude.contains("2.1.332"), "{claude}");
    assert!(claude.contains("all 9 flags"), "{claude}");
    let codex = message(&report, "cli.codex");
    assert!(codex.contains("0.171.0"), "{codex}");
    assert!(codex.contains("all 6 flags"), "{codex}");
    // Installed, but no session has run yet: the quiet hook is visible.
    assert_eq!(status(&report, "hooks.stop_activity"), "warn");
    assert!(message(&report, "hooks.stop_activity").contains("never ran"));

    // The human report: one line per check and a summary, no color off a terminal.
    let output = env.cmd().arg("doctor").output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(!text.contains('\x1b'));
    assert_eq!(text.lines().count(), ids.len() + 1, "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("✓ claude: 2.1.332")),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("! Stop hook")), "{text}");
    assert!(
        text.ends_with("warnings\n") || text.ends_with("warning\n"),
        "{text}"
    );
}

#[test]
fn missing_clis_are_fine_unless_used() {
    let env = Env::new();
    env.write_config(RULES);
    let (_, report) = doctor(&env, &[]);
    assert_eq!(status(&report, "cli.claude"), "ok");
    assert!(message(&report, "cli.claude").contains("not found on PATH"));
    assert_eq!(status(&report, "cli.codex"), "ok");
    assert_eq!(report["healthy"], true);
    // Hooks for Claude Code, but no `claude` to check: a warning, not a failure.
    install(&env, &[]);
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 0);
    assert_eq!(status(&report, "cli.claude"), "warn");
    assert_eq!(status(&report, "cli.codex"), "ok");
}

#[test]
fn codex_chosen_as_backend_but_missing_fails() {
    let env = Env::new();
    env.write_config("[judge]\nbackend = \"codex\"\n");
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 1);
    assert_eq!(status(&report, "backend"), "fail");
    assert!(message(&report, "backend").contains("`codex` not found on PATH"));
    assert_eq!(status(&report, "cli.codex"), "fail");
    assert!(
        check(&report, "cli.codex")["fix"]
            .as_str()
            .unwrap()
            .contains("@openai/codex")
    );
    assert_eq!(status(&report, "cli.claude"), "ok");
}

#[test]
fn auto_says_which_backend_it_picked_and_why() {
    let Some(env) = env_with_real_clis() else {
        return;
    };
    env.write_config("[judge]\nbackend = \"auto\"\n");
    let (_, report) = doctor(&env, &[]);
    let backend = message(&report, "backend");
    assert!(backend.contains("auto picked codex (found "), "{backend}");
    assert!(
        backend.contains("openai: $OPENAI_API_KEY is not set"),
        "{backend}"
    );
    assert_eq!(status(&report, "backend"), "ok");
    // The chosen CLI is checked as strictly as a failure would need.
    assert_eq!(status(&report, "cli.codex"), "ok");
}

#[test]
fn a_hook_pointing_at_a_moved_binary_fails_with_the_install_fix() {
    let env = Env::new();
    env.write_config(RULES);
    let moved = env.dir.path().join("old/agentguard");
    let settings = json!({"model": "opus", "hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": format!("{} hook stop --host claude", moved.display()), "timeout": 60}
    ]}]}});
    env.write("home/.claude/settings.json", settings.to_string());
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 1);
    let user = check(&report, "settings.claude.user");
    assert_eq!(user["status"], "fail");
    let text = user["message"].as_str().unwrap();
    assert!(
        text.contains(&format!("{}, which does not exist", moved.display())),
        "{text}"
    );
    assert_eq!(user["fix"], "agentguard install --scope user");
    // Installed, though broken: the Stop hook's silence is reported too.
    assert_eq!(status(&report, "hooks.installed"), "ok");
    assert_eq!(status(&report, "hooks.stop_activity"), "warn");

    // The fix works: install updates the entry in place, and doctor is healthy again.
    install(&env, &[]);
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 0);
    assert_eq!(status(&report, "settings.claude.user"), "ok");
}

#[test]
fn a_codex_hook_without_the_codex_host_fails() {
    let env = Env::new();
    env.write_config(RULES);
    install(&env, &["--host", "codex"]);
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(status(&report, "settings.codex.user"), "ok");
    let path = env.home().join(".codex/hooks.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace(" --host codex", "")).unwrap();
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 1);
    assert!(message(&report, "settings.codex.user").contains("--host claude"));
}

/// A hook installed by an older agentguard, whose matcher leaves MCP tools out, is named with
/// the install that brings it up to date; install then writes the current matcher.
#[test]
fn a_pre_tool_matcher_that_leaves_tools_out_warns_with_the_install_fix() {
    let env = Env::new();
    env.write_config(RULES);
    for (host, file, id, old) in [
        (
            "codex",
            ".codex/hooks.json",
            "settings.codex.user",
            "Bash|apply_patch",
        ),
        (
            "claude",
            ".claude/settings.json",
            "settings.claude.user",
            "Bash|Edit|Write|MultiEdit|NotebookEdit",
        ),
    ] {
        install(&env, &["--host", host]);
        let path = env.home().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let wanted = match host {
            "codex" => agentguard::hosts::CODEX_PRE_TOOL_MATCHER,
            _ => agentguard::hosts::CLAUDE_PRE_TOOL_MATCHER,
        };
        assert!(text.contains(wanted), "{text}");
        let (_, report) = doctor(&env, &[]);
        assert_eq!(status(&report, id), "ok", "{report:#}");
        std::fs::write(&path, text.replace(wanted, old)).unwrap();
        let (code, report) = doctor(&env, &[]);
        assert_eq!(code, 0, "a warning: {report:#}");
        assert_eq!(status(&report, id), "warn", "{report:#}");
        let check = check(&report, id);
        let said = check["message"].as_str().unwrap();
        assert!(
            said.contains(&format!("matches `{old}`")) && said.contains("MCP tools"),
            "{said}"
        );
        assert!(
            check["fix"]
                .as_str()
                .unwrap()
                .contains("agentguard install"),
            "{check}"
        );
        install(&env, &["--host", host]);
        assert!(std::fs::read_to_string(&path).unwrap().contains(wanted));
        let (_, report) = doctor(&env, &[]);
        assert_eq!(status(&report, id), "ok", "{report:#}");
    }
}

#[test]
fn a_malformed_settings_file_fails_naming_line_and_column() {
    let env = Env::new();
    env.write_config(RULES);
    env.write(
        "project/.claude/settings.local.json",
        "{\n  \"hooks\": {\n    \"Stop\": []\n  },\n  \"model\" \"opus\"\n}\n",
    );
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 1);
    let local = check(&report, "settings.claude.local");
    assert_eq!(local["status"], "fail");
    let text = local["message"].as_str().unwrap();
    assert!(
        text.contains("settings.local.json:5:11: invalid JSON"),
        "{text}"
    );
    assert!(local["fix"].as_str().unwrap().contains("line 5, column 11"));
    // The other scopes are still checked.
    assert_eq!(status(&report, "settings.claude.user"), "ok");
}

#[test]
fn a_broken_config_fails_and_the_rest_is_still_checked() {
    let env = Env::new();
    let path = env.write_config("[judge]\nbackend = \"rules\"\ndeadline_ms = \"soon\"\n");
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 1);
    let user = check(&report, "config.user");
    assert_eq!(user["status"], "fail");
    let text = user["message"].as_str().unwrap();
    assert!(text.contains(&format!("{}:3:", path.display())), "{text}");
    assert_eq!(status(&report, "config.env"), "fail");
    assert_eq!(status(&report, "backend"), "warn");
    assert_eq!(status(&report, "log.dir"), "ok");

    // A bad project config is reported against its own file.
    env.write_config(RULES);
    env.write("project/.agentguard.toml", "[stop\n");
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 1);
    assert_eq!(status(&report, "config.user"), "ok");
    assert!(message(&report, "config.project").contains(".agentguard.toml:1:"));
}

#[test]
fn probe_through_the_rules_backend_finds_the_violation() {
    let env = Env::new();
    env.write_config(RULES);
    let (code, report) = doctor(&env, &["--probe"]);
    assert_eq!(code, 0);
    let probe = check(&report, "probe");
    assert_eq!(probe["status"], "ok", "{probe}");
    let text = probe["message"].as_str().unwrap();
    assert!(
        text.contains("rules judged a clear commit proposal a violation"),
        "{text}"
    );
    assert!(text.contains(" ms"), "{text}");
    // Without --probe there is no probe check (and no judge call).
    let (_, report) = doctor(&env, &[]);
    assert!(
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["id"] != "probe")
    );
}

#[test]
fn probe_through_a_failing_command_backend_fails() {
    let env = Env::new();
    let calls = env.dir.path().join("calls");
    let judge = env.script(
        "failing-judge",
        &format!(
            "#!/bin/sh\ncat > /dev/null\necho called >> {}\necho 'model overloaded' >&2\nexit 1\n",
            calls.display()
        ),
    );
    env.write_config(&format!(
        "[judge]\nbackend = \"command\"\n[judge.command]\nargv = [\"{}\"]\n",
        judge.display()
    ));
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 0);
    assert!(!calls.exists(), "doctor without --probe called the judge");
    let (code, report_probe) = doctor(&env, &["--probe"]);
    assert_eq!(code, 1);
    let probe = check(&report_probe, "probe");
    assert_eq!(probe["status"], "fail");
    let text = probe["message"].as_str().unwrap();
    assert!(text.contains("(exit)"), "{text}");
    assert!(text.contains("status 1: model overloaded"), "{text}");
    assert_eq!(std::fs::read_to_string(&calls).unwrap(), "called\n");
    assert_eq!(status(&report, "backend"), "ok");
}

/// A Stop hook call as Claude Code makes it.
fn stop_hook(env: &Env, message: &str) {
    let payload = json!({
        "session_id": "doctor-test",
        "hook_event_name": "Stop",
        "cwd": env.project(),
        "stop_hook_active": false,
        "last_assistant_message": message,
    });
    env.cmd()
        .args(["hook", "stop"])
        .write_stdin(payload.to_string())
        .assert()
        .success();
}

#[test]
fn judge_failures_of_the_last_day_are_counted_by_cause() {
    let env = Env::new();
    let judge = env.script("broken-judge", "#!/bin/sh\ncat > /dev/null\nexit 3\n");
    // llm-only: every hit reaches the broken judge (the rules judge would decide these).
    env.write_config(&format!(
        "[judge]\nbackend = \"command\"\ncascade = \"llm-only\"\n[judge.command]\nargv = [\"{}\"]\n",
        judge.display()
    ));
    install(&env, &[]);
    stop_hook(&env, "Implementation done. Shall I commit and push now?");
    stop_hook(&env, "All wired up. Want me to push this to main?");
    stop_hook(&env, "I renamed the variable.");
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 1);
    let failures = check(&report, "log.judge_failures");
    assert_eq!(failures["status"], "fail", "{failures}");
    let text = failures["message"].as_str().unwrap();
    assert!(text.contains("2 of 2 judge calls (exit 2)"), "{text}");
    assert!(text.contains("exited with status 3"), "{text}");
    // The hook ran just now.
    assert_eq!(status(&report, "hooks.stop_activity"), "ok");
    assert!(message(&report, "hooks.stop_activity").contains("ago"));

    // A mix of answered and failed calls is a warning.
    env.script(
        "broken-judge",
        "#!/bin/sh\ncat > /dev/null\necho '{\"new_proposal\": true}'\n",
    );
    for _ in 0..3 {
        stop_hook(&env, "Implementation done. Shall I commit and push now?");
    }
    let (_, report) = doctor(&env, &[]);
    let failures = check(&report, "log.judge_failures");
    assert_eq!(failures["status"], "warn", "{failures}");
    assert!(
        failures["message"]
            .as_str()
            .unwrap()
            .contains("2 of 5 judge calls (exit 2)")
    );
}

#[test]
fn installed_hooks_without_recent_activity_warn() {
    let env = Env::new();
    env.write_config(RULES);
    install(&env, &[]);
    let then = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(72);
    let day = then.to_zoned_datetime(jiff::tz::TimeZone::UTC).date();
    let record = json!({
        "id": "old", "ts": then.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        "host": "claude", "event": "Stop", "verdict": "allow", "action": "allow",
        "latency_ms": 1,
    });
    env.write(
        env.log_dir().join(format!("decisions-{day}.jsonl")),
        format!("{record}\nnot json\n"),
    );
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 0);
    let stop = check(&report, "hooks.stop_activity");
    assert_eq!(stop["status"], "warn", "{stop}");
    assert!(
        stop["message"].as_str().unwrap().contains("3 days ago"),
        "{stop}"
    );
    let pre_tool = check(&report, "hooks.pre_tool_activity");
    assert_eq!(pre_tool["status"], "warn");
    assert!(pre_tool["message"].as_str().unwrap().contains("never ran"));
    assert_eq!(status(&report, "log.judge_failures"), "ok");
}

#[test]
fn an_unwritable_log_location_fails() {
    let env = Env::new();
    let blocker = env.write("blocker", "a file, not a directory");
    env.write_config(&format!(
        "{RULES}[log]\ndir = \"{}\"\n",
        blocker.join("logs").display()
    ));
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 1);
    assert_eq!(status(&report, "log.dir"), "fail", "{report:#}");
    // Doctor creates nothing.
    assert!(!env.log_dir().exists());
}

#[test]
fn hooks_switched_off_by_the_host_settings_fail() {
    let env = Env::new();
    env.write_config(RULES);
    install(&env, &["--scope", "project"]);
    let path = env.project().join(".claude/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    settings["disableAllHooks"] = json!(true);
    std::fs::write(&path, settings.to_string()).unwrap();
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 1);
    let project = check(&report, "settings.claude.project");
    assert_eq!(project["status"], "fail");
    assert!(
        project["message"]
            .as_str()
            .unwrap()
            .contains("disableAllHooks"),
        "{project}"
    );

    install(&env, &["--host", "codex"]);
    env.write(
        "home/.codex/config.toml",
        "# mine\n[features]\nhooks = false\n",
    );
    let (_, report) = doctor(&env, &[]);
    assert_eq!(status(&report, "settings.codex.user"), "fail");
    assert!(message(&report, "settings.codex.user").contains("[features] hooks = false"));
}

#[test]
fn with_the_log_off_hook_activity_is_unknown_and_said_once() {
    let env = Env::new();
    env.write_config(&format!("{RULES}[log]\nenabled = false\n"));
    install(&env, &[]);
    let (code, report) = doctor(&env, &[]);
    assert_eq!(code, 0);
    assert_eq!(status(&report, "log.dir"), "warn");
    for id in [
        "log.judge_failures",
        "hooks.stop_activity",
        "hooks.pre_tool_activity",
    ] {
        assert_eq!(status(&report, id), "ok");
        assert!(message(&report, id).contains("not known"), "{id}");
    }
}

#[test]
fn run_from_the_home_directory_each_settings_file_is_reported_once() {
    let env = Env::new();
    env.write_config(RULES);
    // A broken user settings file: one failure, not one per scope that reads the file.
    env.write("home/.claude/settings.json", "{\n  \"hooks\": \n");
    let output = env
        .cmd()
        .current_dir(env.home())
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    let report = stdout_json(&output);
    assert_eq!(status(&report, "settings.claude.user"), "fail");
    assert_eq!(status(&report, "settings.claude.project"), "ok");
    let project = message(&report, "settings.claude.project");
    assert!(
        project.contains("the same file as the Claude Code user settings"),
        "{project}"
    );
    // The local scope has no user counterpart: checked as usual.
    assert!(
        !message(&report, "settings.claude.local").contains("same file"),
        "{report:#}"
    );
}

#[test]
fn a_settings_path_that_is_a_directory_gets_its_own_fix() {
    let env = Env::new();
    env.write_config(RULES);
    std::fs::create_dir_all(env.home().join(".claude/settings.json")).unwrap();
    let (_, report) = doctor(&env, &[]);
    let user = check(&report, "settings.claude.user");
    assert_eq!(user["status"], "fail", "{user}");
    let fix = user["fix"].as_str().unwrap();
    assert!(
        fix.contains("is a directory, where a file is expected"),
        "{fix}"
    );
    assert!(!fix.contains("readable"), "{fix}");
}

/// `codex.trust` without the real Codex: fresh hooks are untrusted; entries carrying Codex's
/// hash of each handler make them trusted; a changed timeout makes one modified. (The E2E
/// tests hold the hash to the one the real `codex app-server` reports.)
#[test]
fn codex_trust_is_checked_untrusted_trusted_and_modified() {
    let env = Env::new();
    env.write_config(RULES);
    install(&env, &["--host", "codex"]);
    let (_, report) = doctor(&env, &[]);
    assert_eq!(status(&report, "codex.trust"), "warn");
    assert!(
        message(&report, "codex.trust").contains("Stop (not trusted yet)"),
        "{report:#}"
    );
    assert!(message(&report, "codex.trust").contains("`codex exec` skips them"));

    let hooks_path = env.home().join(".codex/hooks.json");
    let text = std::fs::read_to_string(&hooks_path).unwrap();
    let hooks = agentguard::codex_trust::our_hooks(
        &hooks_path.display().to_string(),
        agentguard::settings::Format::Json,
        &text,
    )
    .unwrap();
    let trust: String = hooks
        .iter()
        .map(|h| {
            format!(
                "[hooks.state.\"{}\"]\ntrusted_hash = \"{}\"\n",
                h.key, h.current_hash
            )
        })
        .collect();
    env.write("home/.codex/config.toml", &trust);
    let (_, report) = doctor(&env, &[]);
    assert_eq!(status(&report, "codex.trust"), "ok", "{report:#}");

    let changed = text.replace("\"timeout\": 60", "\"timeout\": 61");
    assert_ne!(changed, text);
    std::fs::write(&hooks_path, changed).unwrap();
    let (_, report) = doctor(&env, &[]);
    assert_eq!(status(&report, "codex.trust"), "warn");
    assert!(
        message(&report, "codex.trust").contains("Stop (changed since you trusted it)"),
        "{report:#}"
    );
}
