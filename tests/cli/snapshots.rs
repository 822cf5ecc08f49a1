//! Snapshots of what a user reads: the help of every command, and each shape of hook answer.
//! A change to any of them shows up in review as a diff of `tests/cli/snapshots/`
//! (`INSTA_UPDATE=always cargo test --test cli snapshots::` rewrites them).

use serde_json::{Value, json};

use crate::support::{Env, text};

/// The subcommands a `--help` text lists under `Commands:` (clap's layout), `help` left out.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| line.trim() != "Commands:")
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn help_of_every_command() {
    let env = Env::new();
    let mut reference = String::new();
    // Walk the command tree from the top, as a user would through `--help`.
    let mut pending: Vec<Vec<String>> = vec![Vec::new()];
    let mut seen = 0;
    while let Some(path) = pending.pop() {
        let output = env.cmd().args(&path).arg("--help").output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{path:?}");
        let help = text(&output.stdout);
        let words: Vec<&str> = std::iter::once("agentguard")
            .chain(path.iter().map(String::as_str))
            .chain(["--help"])
            .collect();
        reference.push_str(&format!("===== {}\n", words.join(" ")));
        reference.push_str(&help);
        reference.push('\n');
        seen += 1;
        for name in subcommands(&help).into_iter().rev() {
            let mut child = path.clone();
            child.push(name);
            pending.push(child);
        }
    }
    // The top level, each command, and the subcommands of hook, logs and config.
    assert!(seen > 20, "only {seen} help texts found");
    insta::assert_snapshot!("help", reference);
}

fn hook(env: &Env, args: &[&str], payload: &Value) -> Value {
    let output = env
        .cmd()
        .arg("hook")
        .args(args)
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    if output.stdout.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn each_hook_answer_shape() {
    let env = Env::new();
    env.write_config("[judge]\nbackend = \"rules\"\n");
    let stop = |session: &str, message: &str| {
        json!({"session_id": session, "prompt_id": "p1", "cwd": env.project(),
               "hook_event_name": "Stop", "last_assistant_message": message})
    };
    let tool = |command: &str| {
        json!({"session_id": "s", "cwd": env.project(), "hook_event_name": "PreToolUse",
               "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t"})
    };
    let proposal = "I updated the parser. Shall I commit and push now?";
    let mut answers = serde_json::Map::new();
    answers.insert(
        "stop: allowed".into(),
        hook(&env, &["stop"], &stop("a", "I renamed the helper.")),
    );
    answers.insert(
        "stop: blocked".into(),
        hook(&env, &["stop"], &stop("b", proposal)),
    );
    answers.insert(
        "stop: released (the same finding again)".into(),
        hook(&env, &["stop"], &stop("b", proposal)),
    );
    answers.insert(
        "stop: unjudged (the input is not a hook object)".into(),
        hook(&env, &["stop"], &json!("")),
    );
    let push = tool("git push --force origin main");
    answers.insert(
        "pre-tool: allowed".into(),
        hook(&env, &["pre-tool"], &tool("git status")),
    );
    answers.insert(
        "pre-tool: ask (Claude Code)".into(),
        hook(&env, &["pre-tool"], &push),
    );
    answers.insert(
        "pre-tool: deny (Codex cannot ask)".into(),
        hook(&env, &["pre-tool", "--host", "codex"], &push),
    );
    answers.insert(
        "pre-tool: unchecked (the input is not a hook object, Codex)".into(),
        hook(&env, &["pre-tool", "--host", "codex"], &json!("")),
    );
    let reviewer = json!({"session_id": "s", "cwd": env.project(), "hook_event_name": "PreToolUse",
                          "tool_name": "Edit", "tool_input": {"file_path": "a.rs"},
                          "agent_type": "code-reviewer"});
    env.write_config(
        "[judge]\nbackend = \"rules\"\n[readonly]\nagent_types = [\"code-reviewer\"]\n",
    );
    answers.insert(
        "pre-tool: deny (read-only role)".into(),
        hook(&env, &["pre-tool"], &reviewer),
    );
    let rendered = serde_json::to_string_pretty(&Value::Object(answers)).unwrap();
    insta::assert_snapshot!("hook_answers", rendered);
}

/// `text` with the test's temporary directory written as `[TMP]`.
fn without_tmp(env: &Env, text: &str) -> String {
    text.replace(&env.dir.path().display().to_string(), "[TMP]")
}

#[test]
fn judge_table() {
    let env = Env::new();
    env.write_config("[judge]\nbackend = \"rules\"\n");
    let output = env
        .cmd()
        .arg("judge")
        .write_stdin("I updated the parser. Shall I commit and push now?")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "a violation exits 1");
    // The judge's latency varies, and with it the width of its column: the snapshot keeps
    // the columns' order and contents, separated by two spaces, and the latency as [MS].
    let columns = regex::Regex::new(" {2,}").unwrap();
    let latency = regex::Regex::new(r"(?m)^(\S+  hit  \S+  \S+  \S+  )\d+").unwrap();
    let table = columns
        .replace_all(&text(&output.stdout), "  ")
        .into_owned();
    let table = latency.replace_all(&table, "${1}[MS]").into_owned();
    insta::assert_snapshot!("judge_table", table);
}

#[test]
fn logs_table_and_stats() {
    let env = Env::new();
    let hit = |verdict: &str| {
        json!({"detector": "commit", "layer1": {"outcome": "hit", "pattern": "commit", "start": 0, "end": 6},
               "verdict": verdict, "fields": {}, "backend": "rules", "latency_ms": 2})
    };
    let records = [
        json!({"id": "20261127-090000-aaaaaa", "ts": "2026-11-27T09:00:00.000Z", "host": "claude",
               "event": "Stop", "verdict": "allow", "action": "allow",
               "detectors_run": ["commit", "scope-check"], "detectors": [], "latency_ms": 3,
               "text": "I renamed the helper."}),
        json!({"id": "20261127-091500-bbbbbb", "ts": "2026-11-27T09:15:00.000Z", "host": "claude",
               "event": "Stop", "verdict": "violation", "action": "block",
               "detectors_run": ["commit", "scope-check"], "detectors": [hit("violation")],
               "latency_ms": 5, "message": "verify first",
               "text": "Shall I commit and push now?"}),
        json!({"id": "20261127-093000-cccccc", "ts": "2026-11-27T09:30:00.000Z", "host": "codex",
               "event": "PreToolUse", "tool": "Bash", "verdict": "violation", "action": "deny",
               "rule": "destructive", "detectors_run": ["destructive"], "detectors": [],
               "latency_ms": 1, "text": "git push --force origin main"}),
    ];
    let lines: String = records.iter().map(|r| format!("{r}\n")).collect();
    env.write(env.log_dir().join("decisions-2026-11-27.jsonl"), lines);
    let run = |args: &[&str]| {
        let output = env.cmd().args(args).env("TZ", "UTC").output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{args:?}: {output:?}");
        text(&output.stdout)
    };
    insta::assert_snapshot!("logs_table", run(&["logs", "--since", "2026-11-01"]));
    let stats = run(&["logs", "stats", "--since", "2026-11-01"]);
    insta::assert_snapshot!("logs_stats", without_tmp(&env, &stats));
}

#[test]
fn install_dry_run_diff() {
    let env = Env::new();
    env.write(
        env.home().join(".claude/settings.json"),
        "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"lint\"}]}]\n  }\n}\n",
    );
    let output = env.cmd().args(["install", "--dry-run"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    // The hooks run the binary by its absolute path, which is the build's own.
    let exe = assert_cmd::cargo::cargo_bin("agentguard");
    let diff = text(&output.stdout).replace(&exe.display().to_string(), "[AGENTGUARD]");
    insta::assert_snapshot!("install_dry_run", without_tmp(&env, &diff));
}

#[test]
fn doctor_on_a_known_home() {
    let env = Env::new();
    // Stand-ins for the agent CLIs, answering with recorded help texts, shadow any installed
    // ones; Claude Code's hooks are installed in the user scope.
    let help = |name: &str| {
        crate::support::fixture(&format!("help/{name}"))
            .display()
            .to_string()
    };
    env.script(
        "claude",
        &format!(
            "#!/bin/sh\ncase \"$1\" in --version) echo '2.1.332 (Claude Code)';; *) cat '{}';; esac\n",
            help("claude-2.1.332.txt")
        ),
    );
    env.script(
        "codex",
        &format!(
            "#!/bin/sh\ncase \"$1\" in --version) echo 'codex-cli 0.171.0';; *) cat '{}';; esac\n",
            help("codex-exec-0.171.0.txt")
        ),
    );
    let install = env.cmd().args(["install", "--yes"]).output().unwrap();
    assert_eq!(install.status.code(), Some(0), "{install:?}");
    let output = env.cmd().arg("doctor").output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let exe = assert_cmd::cargo::cargo_bin("agentguard");
    let report = text(&output.stdout)
        .replace(&exe.display().to_string(), "[AGENTGUARD]")
        .replace(
            &exe.parent().unwrap().display().to_string(),
            "[AGENTGUARD_DIR]",
        );
    insta::assert_snapshot!("doctor", without_tmp(&env, &report));
}
