//! The checks of `agentguard doctor`, each against hand-made inputs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::*;
use crate::hosts::{self, Host};
use crate::log::Record;
use crate::pipeline::Outcome;
use crate::pipeline::{Judgement, Layer1, Verdict};
use crate::settings::Format;

fn now() -> jiff::Timestamp {
    "2026-11-30T12:00:00Z".parse().unwrap()
}

fn record(ts: &str, event: &str, verdict: Verdict) -> Record {
    Record {
        ts: ts.into(),
        host: "claude".into(),
        event: event.into(),
        verdict,
        ..Record::default()
    }
}

fn outcome(verdict: Verdict, cause: Option<&str>) -> Outcome {
    Outcome {
        detector: "commit".into(),
        layer1: Layer1::Hit {
            pattern: "commit".into(),
            start: 0,
            end: 6,
        },
        verdict,
        decided_by: Some(crate::pipeline::DecidedBy::Llm),
        unsure: false,
        fields: BTreeMap::new(),
        reason: None,
        backend: Some("codex".into()),
        model: None,
        latency_ms: 900,
        error: cause.map(|c| format!("{c} error")),
        error_cause: cause.map(str::to_string),
        redactions: BTreeMap::new(),
    }
}

#[test]
fn report_is_unhealthy_only_with_a_failure_and_renders_plain_lines() {
    let report = Report::new(vec![
        Check::ok(CheckId::Binary, "fine"),
        Check::warn(CheckId::Backend, "meh", "do x"),
    ]);
    assert!(report.healthy);
    let text = report.render(false);
    assert!(text.starts_with("✓ fine\n! meh — fix: do x\n"), "{text}");
    assert!(text.ends_with("healthy, with 1 warning\n"));
    assert!(!text.contains('\x1b'));
    let report = Report::new(vec![Check::fail(CheckId::Probe, "broken", "fix it")]);
    assert!(!report.healthy);
    assert!(report.render(true).contains("\x1b[31m✗\x1b[0m broken"));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"healthy": false, "checks": [
            {"id": "probe", "status": "fail", "message": "broken", "fix": "fix it"}]})
    );
}

#[test]
fn binary_check_names_a_shadowing_copy() {
    let exe = Path::new("/opt/bin/agentguard");
    assert_eq!(check_binary(exe, "0.1.0", Some(exe)).status, Status::Ok);
    let other = check_binary(exe, "0.1.0", Some(Path::new("/usr/bin/agentguard")));
    assert_eq!(other.status, Status::Warn);
    assert!(other.message.contains("/usr/bin/agentguard"));
    assert_eq!(check_binary(exe, "0.1.0", None).status, Status::Warn);
    let renamed = check_binary(Path::new("/tmp/ag"), "0.1.0", Some(exe));
    assert_eq!(renamed.status, Status::Warn);
}

#[test]
fn config_file_check_reports_the_loader_error() {
    let path = Path::new("/u/config.toml");
    let ok = check_config_file(CheckId::ConfigUser, "user", Some(path), None);
    assert_eq!(ok.status, Status::Ok);
    assert!(ok.message.contains("not present"));
    let err = crate::config::Config::from_layers(&[
        (
            crate::config::Source::Defaults,
            crate::config::DEFAULT_CONFIG.to_string(),
        ),
        (
            crate::config::Source::File(path.into()),
            "[judge\n".to_string(),
        ),
    ]);
    let check = check_config_file(CheckId::ConfigUser, "user", Some(path), Some(&err));
    assert_eq!(check.status, Status::Fail);
    assert!(
        check.message.contains("/u/config.toml:1:"),
        "{}",
        check.message
    );
    assert!(check.fix.is_some());
}

#[test]
fn env_check_warns_on_the_kill_switch_and_fails_on_a_broken_config() {
    let config = Ok(crate::config::Config::defaults());
    let env = [("AGENTGUARD_BACKEND", Some("rules".to_string()))];
    let check = check_config_env(&env, &config);
    assert_eq!(check.status, Status::Ok);
    assert!(check.message.contains("AGENTGUARD_BACKEND=rules"));
    let env = [("AGENTGUARD_DISABLE", Some("1".to_string()))];
    assert_eq!(check_config_env(&env, &config).status, Status::Warn);
    let broken = Err(crate::error::Error::config("bad"));
    assert_eq!(check_config_env(&[], &broken).status, Status::Fail);
}

#[test]
fn detectors_check_compiles_patterns() {
    let config = crate::config::Config::defaults();
    assert_eq!(check_detectors(Some(&config)).status, Status::Ok);
    let mut broken = config.clone();
    broken.detectors.push(crate::detectors::DetectorSpec {
        name: "commit".into(),
        triggers: Some(vec!["(unclosed".into()]),
        ..Default::default()
    });
    let check = check_detectors(Some(&broken));
    assert_eq!(check.status, Status::Fail);
    assert!(check.message.contains("commit"), "{}", check.message);
    assert_eq!(check_detectors(None).status, Status::Warn);
}

fn availability() -> Vec<Availability> {
    let row = |name: &str, usable: Option<&str>, unusable: &str| Availability {
        name: name.into(),
        usable: usable.map(str::to_string),
        unusable: unusable.into(),
    };
    vec![
        row("rules", Some("built in, offline"), ""),
        row("command", None, "judge.command.argv is empty"),
        row("codex", Some("found /bin/codex"), ""),
        row("claude", None, "`claude` not found on PATH"),
        row("openai", None, "$OPENAI_API_KEY is not set"),
        row("anthropic", None, "$ANTHROPIC_API_KEY is not set"),
    ]
}

#[test]
fn backend_check_says_what_auto_picked_and_why() {
    let order: Vec<String> = ["openai", "anthropic", "codex", "claude", "rules"]
        .map(String::from)
        .to_vec();
    let auto = ("codex".to_string(), "found /bin/codex".to_string());
    let (check, chosen) = check_backend("auto", &order, &auto, &availability());
    assert_eq!(chosen, "codex");
    assert_eq!(check.status, Status::Ok);
    assert!(
        check
            .message
            .contains("auto picked codex (found /bin/codex)")
    );
    assert!(check.message.contains("openai: $OPENAI_API_KEY is not set"));
    let rules = (
        "rules".to_string(),
        "no other backend is usable".to_string(),
    );
    assert_eq!(
        check_backend("auto", &order, &rules, &availability())
            .0
            .status,
        Status::Warn
    );
    let (check, chosen) = check_backend("claude", &order, &auto, &availability());
    assert_eq!((check.status, chosen.as_str()), (Status::Fail, "claude"));
    assert!(check.fix.unwrap().contains("npm install"));
    assert_eq!(
        check_backend("rules", &order, &auto, &availability())
            .0
            .status,
        Status::Ok
    );
}

#[test]
fn command_host_is_read_with_the_claude_default() {
    let ours = hosts::command::parse("'/a b/agentguard' hook stop --host codex").unwrap();
    assert_eq!(
        (ours.program.as_str(), ours.host.as_str()),
        ("/a b/agentguard", "codex")
    );
    assert_eq!(
        hosts::command::parse("agentguard hook stop").unwrap().host,
        "claude"
    );
}

fn scope_files(text: Option<&str>) -> Vec<SettingsFile> {
    vec![SettingsFile {
        path: "/h/.claude/settings.json".into(),
        format: Format::Json,
        text: text.map(|t| Ok(t.to_string())),
    }]
}

fn scope(files: &[SettingsFile]) -> Scope<'_> {
    Scope {
        id: CheckId::Settings(Host::Claude, hosts::Scope::User),
        label: "Claude Code user settings",
        host: Host::Claude,
        install_args: "--scope user",
        files,
        hooks_off: None,
    }
}

#[test]
fn settings_scope_reports_moved_binaries_bad_json_and_wrong_hosts() {
    let stop = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/old/agentguard hook stop --host claude"}]}]}}"#;
    let files = scope_files(Some(stop));
    let (check, events) = check_settings_scope(&scope(&files), &|_| Program::Running);
    assert_eq!(check.status, Status::Ok, "{}", check.message);
    assert_eq!(events.into_iter().collect::<Vec<_>>(), ["Stop"]);

    let (check, events) = check_settings_scope(&scope(&files), &|_| Program::Missing);
    assert_eq!(check.status, Status::Fail);
    assert!(
        events.contains("Stop"),
        "a broken hook is still an installed one"
    );
    assert!(
        check
            .message
            .contains("/old/agentguard, which does not exist")
    );
    assert_eq!(
        check.fix.as_deref(),
        Some("agentguard install --scope user")
    );

    let (check, _) = check_settings_scope(&scope(&files), &|_| {
        Program::Other("/usr/bin/agentguard".into())
    });
    assert_eq!(check.status, Status::Warn);

    let files = scope_files(Some("{\n  \"hooks\": {,\n}"));
    let (check, _) = check_settings_scope(&scope(&files), &|_| Program::Running);
    assert_eq!(check.status, Status::Fail);
    assert!(
        check.message.contains("settings.json:2:"),
        "{}",
        check.message
    );
    assert!(check.fix.unwrap().contains("line 2"));

    let codex = stop.replace("--host claude", "--host codex");
    let files = scope_files(Some(&codex));
    let (check, _) = check_settings_scope(&scope(&files), &|_| Program::Running);
    assert_eq!(check.status, Status::Fail);
    assert!(check.message.contains("--host codex"));

    let files = scope_files(None);
    let (check, events) = check_settings_scope(&scope(&files), &|_| Program::Running);
    assert_eq!(check.status, Status::Ok);
    assert!(check.message.contains("not present") && events.is_empty());
}

#[test]
fn codex_scope_with_hooks_switched_off_fails() {
    let files = vec![SettingsFile {
        path: "/h/.codex/hooks.json".into(),
        format: Format::Json,
        text: Some(Ok(r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "agentguard hook stop --host codex"}]}]}}"#.into())),
    }];
    let scope = Scope {
        id: CheckId::Settings(Host::Codex, hosts::Scope::User),
        label: "Codex user hooks",
        host: Host::Codex,
        install_args: "--host codex --scope user",
        files: &files,
        hooks_off: hooks_off(
            Host::Codex,
            Format::Toml,
            Path::new("/h/.codex/config.toml"),
            "[features]\nhooks = false\n",
        ),
    };
    let (check, _) = check_settings_scope(&scope, &|_| Program::Running);
    assert_eq!(check.status, Status::Fail);
    assert!(check.message.contains("hooks = false"));
}

#[test]
fn claude_disable_all_hooks_is_found() {
    let path = Path::new("/h/.claude/settings.json");
    let off = hooks_off(
        Host::Claude,
        Format::Json,
        path,
        r#"{"disableAllHooks": true}"#,
    )
    .unwrap();
    assert!(off.what.contains("disableAllHooks"));
    assert!(
        hooks_off(
            Host::Claude,
            Format::Json,
            path,
            r#"{"disableAllHooks": false}"#
        )
        .is_none()
    );
    assert!(
        hooks_off(
            Host::Codex,
            Format::Json,
            path,
            r#"{"disableAllHooks": true}"#
        )
        .is_none()
    );
    let text = r#"{"disableAllHooks": true, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "agentguard hook stop"}]}]}}"#;
    let files = scope_files(Some(text));
    let scope = Scope {
        hooks_off: Some(off),
        ..scope(&files)
    };
    let (check, _) = check_settings_scope(&scope, &|_| Program::Running);
    assert_eq!(check.status, Status::Fail);
    assert!(check.fix.unwrap().starts_with("remove \"disableAllHooks\""));
}

#[test]
fn hooks_installed_summary() {
    let mut installed = BTreeMap::new();
    installed.insert("settings.claude.user".to_string(), BTreeSet::new());
    assert_eq!(check_hooks_installed(&installed).status, Status::Warn);
    installed.insert(
        "settings.codex.user".to_string(),
        BTreeSet::from(["Stop".to_string()]),
    );
    assert_eq!(check_hooks_installed(&installed).status, Status::Ok);
}

#[test]
fn help_options_read_definitions_not_descriptions() {
    let claude = "Options:\n  -p, --print                           Print response\n  \
                  --allowedTools, --allowed-tools <tools...>\n  \
                  --tools <tools...>                    Built-in tools\n                                        \
                  --strict-mcp-config to skip MCP servers\n";
    let names = help_options(claude);
    assert!(names.contains("-p") && names.contains("--print"));
    assert!(names.contains("--allowed-tools") && names.contains("--tools"));
    assert!(!names.contains("--strict-mcp-config"));
    let codex = "  -o, --output-last-message <FILE>\n          Specifies file\n      --ephemeral\n";
    assert_eq!(
        missing_flags(codex, CODEX_EXEC_FLAGS),
        [
            "--sandbox",
            "--skip-git-repo-check",
            "--output-schema",
            "-m/--model"
        ]
    );
}

#[test]
fn recorded_help_texts_have_every_flag() {
    let claude = include_str!("../../tests/fixtures/help/claude-2.1.332.txt");
    assert_eq!(missing_flags(claude, CLAUDE_FLAGS), Vec::<String>::new());
    let codex = include_str!("../../tests/fixtures/help/codex-exec-0.171.0.txt");
    assert_eq!(missing_flags(codex, CODEX_EXEC_FLAGS), Vec::<String>::new());
}

fn facts(path: Option<&str>, help: &str) -> CliFacts {
    CliFacts {
        host: Host::Codex,
        binary: "codex".into(),
        path: path.map(PathBuf::from),
        version: Ok("codex-cli 0.171.0".into()),
        help: Ok(help.into()),
        help_command: "codex exec --help".into(),
    }
}

#[test]
fn cli_check_fails_only_for_the_chosen_backend() {
    let missing = facts(None, "");
    assert_eq!(
        check_cli(&missing, CODEX_EXEC_FLAGS, false, false).status,
        Status::Ok
    );
    assert_eq!(
        check_cli(&missing, CODEX_EXEC_FLAGS, false, true).status,
        Status::Warn
    );
    let chosen = check_cli(&missing, CODEX_EXEC_FLAGS, true, false);
    assert_eq!(chosen.status, Status::Fail);
    assert_eq!(
        chosen.message.matches("judge backend").count(),
        1,
        "{}",
        chosen.message
    );
    let old = facts(Some("/bin/codex"), "  --sandbox <MODE>\n");
    assert_eq!(
        check_cli(&old, CODEX_EXEC_FLAGS, false, false).status,
        Status::Warn
    );
    let check = check_cli(&old, CODEX_EXEC_FLAGS, true, false);
    assert_eq!(check.status, Status::Fail);
    assert!(check.message.contains("--ephemeral"));
    let good = include_str!("../../tests/fixtures/help/codex-exec-0.171.0.txt");
    let check = check_cli(
        &facts(Some("/bin/codex"), good),
        CODEX_EXEC_FLAGS,
        true,
        false,
    );
    assert_eq!(check.status, Status::Ok, "{}", check.message);
    assert!(check.message.contains("0.171.0"));
}

#[test]
fn probe_check_by_verdict() {
    let judged = |o: Outcome| Ok(Judgement::from_outcomes(vec![o]));
    let ok = check_probe("codex", &judged(outcome(Verdict::Violation, None)));
    assert_eq!(ok.status, Status::Ok);
    assert!(ok.message.contains("900 ms"));
    assert_eq!(
        check_probe("codex", &judged(outcome(Verdict::Allow, None))).status,
        Status::Warn
    );
    let failed = check_probe("codex", &judged(outcome(Verdict::Fail, Some("timeout"))));
    assert_eq!(failed.status, Status::Fail);
    assert!(failed.fix.unwrap().contains("deadline_ms"));
    let mut miss = outcome(Verdict::Allow, None);
    miss.layer1 = Layer1::Miss;
    assert_eq!(check_probe("codex", &judged(miss)).status, Status::Warn);
}

#[test]
fn log_dir_check_never_needs_the_dir_to_exist() {
    let dir = Path::new("/h/logs");
    let exists = |writable, mode| LogDir::Exists { writable, mode };
    assert_eq!(
        check_log_dir(true, Some(dir), &exists(true, 0o700)).status,
        Status::Ok
    );
    assert_eq!(
        check_log_dir(true, Some(dir), &exists(true, 0o755)).status,
        Status::Warn
    );
    assert_eq!(
        check_log_dir(true, Some(dir), &exists(false, 0o500)).status,
        Status::Fail
    );
    let missing = |writable| LogDir::Missing {
        ancestor: "/h".into(),
        writable,
    };
    assert_eq!(
        check_log_dir(true, Some(dir), &missing(true)).status,
        Status::Ok
    );
    assert_eq!(
        check_log_dir(true, Some(dir), &missing(false)).status,
        Status::Fail
    );
    assert_eq!(
        check_log_dir(false, Some(dir), &missing(true)).status,
        Status::Warn
    );
    assert_eq!(
        check_log_dir(true, None, &LogDir::Unknown).status,
        Status::Fail
    );
}

#[test]
fn judge_failures_are_counted_by_cause_in_the_last_day() {
    let mut records = Vec::new();
    for (ts, verdict, cause) in [
        ("2026-11-30T11:00:00Z", Verdict::Fail, Some("timeout")),
        ("2026-11-30T10:00:00Z", Verdict::Fail, Some("timeout")),
        ("2026-11-30T09:00:00Z", Verdict::Fail, Some("exit")),
        ("2026-11-30T08:00:00Z", Verdict::Violation, None),
        ("2026-11-30T07:00:00Z", Verdict::Allow, None),
        ("2026-11-30T06:00:00Z", Verdict::Allow, None),
        ("2026-11-30T05:00:00Z", Verdict::Allow, None),
        // Older than a day: not counted.
        ("2026-11-28T11:00:00Z", Verdict::Fail, Some("spawn")),
    ] {
        let mut r = record(ts, "Stop", verdict);
        r.detectors.push(outcome(verdict, cause));
        records.push(r);
    }
    let check = check_judge_failures(&records, now());
    assert_eq!(check.status, Status::Warn, "{}", check.message);
    assert!(
        check
            .message
            .contains("3 of 7 judge calls (exit 1, timeout 2)"),
        "{}",
        check.message
    );
    assert!(check.fix.unwrap().contains("deadline_ms"));

    let mut hook_failure = record("2026-11-30T11:30:00Z", "Stop", Verdict::Fail);
    hook_failure.error = Some("config broken".into());
    let check = check_judge_failures(&[hook_failure, records[0].clone()], now());
    assert_eq!(check.status, Status::Fail);
    assert!(check.message.contains("hook 1"), "{}", check.message);
    assert_eq!(
        check_judge_failures(&records[3..7], now()).status,
        Status::Ok
    );
}

#[test]
fn hook_activity_warns_when_an_installed_hook_went_quiet() {
    let stop = ["Stop", "SubagentStop"];
    let recent = [record(
        "2026-11-30T11:00:00Z",
        "SubagentStop",
        Verdict::Allow,
    )];
    let check = check_hook_activity(
        CheckId::HooksStopActivity,
        "Stop",
        &stop,
        true,
        &recent,
        now(),
    );
    assert_eq!(check.status, Status::Ok);
    assert!(check.message.contains("60 min ago"), "{}", check.message);
    let old = [record("2026-11-27T11:00:00Z", "Stop", Verdict::Allow)];
    let check = check_hook_activity(CheckId::HooksStopActivity, "Stop", &stop, true, &old, now());
    assert_eq!(check.status, Status::Warn);
    assert!(check.message.contains("3 days ago"), "{}", check.message);
    let check = check_hook_activity(CheckId::HooksStopActivity, "Stop", &stop, true, &[], now());
    assert_eq!(check.status, Status::Warn);
    assert!(check.message.contains("never"));
    let check = check_hook_activity(CheckId::HooksStopActivity, "Stop", &stop, false, &[], now());
    assert_eq!(check.status, Status::Ok);
}

#[test]
fn check_ids_are_unique_and_the_readme_lists_each_in_report_order() {
    let ids: Vec<String> = CheckId::all().iter().map(ToString::to_string).collect();
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "{ids:?}");
    // The README's doctor section names the ids as `id`, in the sentence after "check ids".
    let readme = include_str!("../../README.md");
    let start = readme
        .find("with the check ids")
        .expect("the README lists the check ids");
    let sentence = &readme[start..];
    let sentence = &sentence[..sentence.find(".\n").expect("the list ends the sentence")];
    let listed: Vec<&str> = sentence.split('`').skip(1).step_by(2).collect();
    assert_eq!(listed, ids);
}
