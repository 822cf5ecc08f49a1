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
