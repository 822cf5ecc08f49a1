//! `agentguard config path|show|init|get|set` and the layering of config files.

use crate::support::{Env, stdout_json};

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn works_with_no_file_at_all() {
    let env = Env::new();
    let output = env
        .cmd()
        .args(["config", "get", "judge.backend"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "rules\n");
    let output = env.cmd().args(["config", "path"]).output().unwrap();
    let text = stdout(&output);
    assert!(
        text.contains(".config/agentguard/config.toml (not created)"),
        "{text}"
    );
    let output = env
        .cmd()
        .args(["config", "show", "--json"])
        .output()
        .unwrap();
    assert_eq!(stdout_json(&output)["stop"]["window_bytes"], 4000);
}

#[test]
fn set_keeps_comments_and_layout_and_refuses_invalid_values() {
    let env = Env::new();
    let original = "# my agentguard settings\n\n[judge]\n# the judge I trust\nbackend = \"rules\"  # offline\n\n[stop]\nwindow_bytes = 4000\n";
    let path = env.write_config(original);
    let output = env
        .cmd()
        .args(["config", "set", "judge.backend", "codex"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let edited = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        edited,
        original.replace("backend = \"rules\"", "backend = \"codex\"")
    );
    let output = env
        .cmd()
        .args(["config", "set", "stop.max_blocks_per_turn", "3"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let output = env
        .cmd()
        .args(["config", "get", "stop.max_blocks_per_turn"])
        .output()
        .unwrap();
    assert_eq!(stdout(&output), "3\n");
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("# my agentguard settings\n")
    );

    let before = std::fs::read(&path).unwrap();
    for (key, value, needle) in [
        ("judge.backend", "gpt", "unknown judge backend `gpt`"),
        (
            "stop.window_bytes",
            "\"many\"",
            "would make the configuration invalid",
        ),
        ("judge.nope", "1", "would make the configuration invalid"),
    ] {
        let output = env
            .cmd()
            .args(["config", "set", key, value])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{key}={value}");
        assert!(
            stderr(&output).contains(needle),
            "{key}={value}: {}",
            stderr(&output)
        );
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "the file is left as it was"
        );
    }
}

#[test]
fn errors_name_file_line_and_column_and_exit_2() {
    let env = Env::new();
    let path = env.write_config("[judge]\nbackend = \"rules\"\ndeadline_ms = \"soon\"\n");
    let output = env.cmd().args(["config", "show"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains(&format!("{}:3:15", path.display())),
        "{message}"
    );
    // A hook with a broken config still answers in its failure direction.
    let output = env
        .cmd()
        .args(["hook", "stop"])
        .write_stdin(r#"{"session_id":"s","last_assistant_message":"Shall I push?"}"#)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let answer = stdout_json(&output);
    assert!(
        answer["systemMessage"].as_str().unwrap().contains(":3:15"),
        "{answer}"
    );
}

#[test]
fn project_file_overrides_user_file_and_env_overrides_both() {
    let mut env = Env::new();
    env.write_config("[judge]\nbackend = \"codex\"\n[stop]\nmax_blocks_per_turn = 3\n");
    // An untrusted project file applies where it tightens (README, "Trust").
    std::fs::write(
        env.project().join(".agentguard.toml"),
        "[stop]\nmax_blocks_per_turn = 1\n",
    )
    .unwrap();
    std::fs::create_dir_all(env.project().join("src/deep")).unwrap();
    let get = |env: &Env, key: &str| {
        let output = env
            .cmd()
            .current_dir(env.project().join("src/deep"))
            .args(["config", "get", key])
            .output()
            .unwrap();
        stdout(&output).trim().to_string()
    };
    assert_eq!(
        get(&env, "stop.max_blocks_per_turn"),
        "1",
        "the nearest .agentguard.toml above the cwd"
    );
    assert_eq!(get(&env, "judge.backend"), "codex");
    env.set("AGENTGUARD_BACKEND", "claude");
    assert_eq!(get(&env, "judge.backend"), "claude");
}

#[test]
fn init_writes_the_commented_defaults_once() {
    let env = Env::new();
    let output = env.cmd().args(["config", "init"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = std::fs::read_to_string(env.config_file()).unwrap();
    assert!(text.contains("# Who judges a Layer 1 hit"));
    let output = env.cmd().args(["config", "init"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--force"));
}

#[test]
fn user_detectors_override_disable_and_add() {
    let env = Env::new();
    env.write_config(
        "[judge]\nbackend = \"rules\"\n\n\
         [[detectors]]\nname = \"commit\"\nenabled = false\n\n\
         [[detectors]]\nname = \"todo\"\ntriggers = ['(?i)\\bTODO\\b']\nfields = [\"new_todo\"]\n\
         block_when = \"new_todo\"\nprompt = \"p\"\nfeedback = \"Finish the TODO.\"\n\
         [detectors.rules]\nnew_todo = ['(?i)left a TODO']\n",
    );
    let output = env
        .cmd()
        .args(["judge", "--json"])
        .write_stdin("I left a TODO in main.rs. Shall I push?")
        .output()
        .unwrap();
    let report = stdout_json(&output);
    let names: Vec<&str> = report["detectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["detector"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"commit"), "{names:?}");
    let todo = report["detectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["detector"] == "todo")
        .unwrap();
    assert_eq!(todo["verdict"], "violation");
    assert_eq!(output.status.code(), Some(1));

    env.write_config("[[detectors]]\nname = \"todo\"\ntriggers = ['x']\nfields = [\"a\"]\nblock_when = \"a && b\"\nprompt = \"p\"\nfeedback = \"f\"\n");
    let output = env.cmd().args(["judge"]).write_stdin("x").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("detector `todo`"),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("unknown field `b`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn setting_a_backend_whose_cli_is_missing_warns_and_keeps_it() {
    let env = Env::new();
    let output = env
        .cmd()
        .args(["config", "set", "judge.backend", "codex"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let warning = stderr(&output);
    assert!(
        warning.contains("judge.backend `codex` cannot judge here: `codex` not found on PATH"),
        "{warning}"
    );
    assert!(warning.contains("The setting is kept"), "{warning}");
    let get = env
        .cmd()
        .args(["config", "get", "judge.backend"])
        .output()
        .unwrap();
    assert!(stdout(&get).contains("codex"), "{}", stdout(&get));

    // Present on PATH: no warning. So is a backend that needs nothing.
    env.script("codex", "#!/bin/sh\nexit 0\n");
    for backend in ["codex", "rules"] {
        let output = env
            .cmd()
            .args(["config", "set", "judge.backend", backend])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        assert!(stderr(&output).is_empty(), "{backend}: {}", stderr(&output));
    }
}
