//! `agentguard launch --read-only`: the printed and exec'd launches, then the real pinned CLIs
//! started through it. Where a CLI can run against a loopback fake model API (claude, codex,
//! opencode, the npm grok) the test reads the request the CLI sent and checks the read-only
//! effect there, next to a control run of the same user arguments without agentguard. Where it
//! cannot (gemini, xAI Grok Build: their APIs are not faked), the test checks that the real
//! parser accepts the produced argv: the CLI gets past argument parsing and stops at sign-in.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::fake_api::{DEFAULT_REPLY, FakeAnthropic, FakeOpenAi, OpenAiMode, Turn};
use crate::support::{self, Env, Outcome};

const RULE_START: &str = "This step is read-only";

fn isolated(env: &Env, program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Command {
    env.isolated(program, args)
}

fn agentguard(env: &Env, args: &[&str]) -> Command {
    env.agentguard(args)
}

fn run(cmd: Command) -> Outcome {
    support::run_bounded(cmd, None)
}

fn launch_args<'a>(cli: &'a str, mode: &[&'a str], user_args: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["launch", "--read-only", cli];
    args.extend(mode);
    args.push("--");
    args.extend(user_args);
    args
}

fn strs(strings: &[String]) -> Vec<&str> {
    strings.iter().map(String::as_str).collect()
}

/// A stand-in CLI that prints a pinned help text on `--help`, else its role and arguments.
fn stand_in(env: &Env, name: &str, help_fixture: &str) -> PathBuf {
    let help = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/cli-help")
        .join(help_fixture);
    env.script(
        name,
        &format!(
            "#!/bin/sh\nif [ \"$1\" = --help ]; then cat '{}'; exit 0; fi\necho \"role=$AGENTGUARD_ROLE\"\nfor a in \"$@\"; do echo \"arg=$a\"; done\n",
            help.display()
        ),
    )
}

#[test]
fn json_reports_argv_env_and_notes() {
    let env = Env::new();
    stand_in(&env, "codex", "codex-0.171.0.txt");
    let out = run(agentguard(
        &env,
        &launch_args("codex", &["--json"], &["--yolo", "exec", "hi"]),
    ));
    assert_eq!(out.code, Some(0), "{}", out.output());
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let argv: Vec<&str> = report["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        &argv[..5],
        [
            "codex",
            "--sandbox",
            "read-only",
            "--ask-for-approval",
            "never"
        ]
    );
    assert_eq!(&argv[argv.len() - 2..], ["exec", "hi"]);
    assert!(!argv.contains(&"--yolo"));
    assert_eq!(report["env"]["AGENTGUARD_ROLE"], "read-only");
    assert!(report["notes"][0].as_str().unwrap().contains("--yolo"));
    assert!(out.stderr.contains("agentguard: note: removed `--yolo`"));
}

#[test]
fn print_is_one_shell_line_that_runs_the_same_argv_and_env() {
    let env = Env::new();
    stand_in(&env, "claude", "claude-2.1.332.txt");
    let prompt = "it's a \"review\" of $HOME\tand `x`";
    let args = launch_args("claude", &["--json"], &["-p", prompt]);
    let report: Value = serde_json::from_str(&run(agentguard(&env, &args)).stdout).unwrap();
    let out = run(agentguard(
        &env,
        &launch_args("claude", &["--print"], &["-p", prompt]),
    ));
    assert_eq!(out.code, Some(0), "{}", out.output());
    let line = out.stdout.strip_suffix('\n').unwrap();
    assert!(!line.contains('\n'), "{line}");

    // bash runs the line with `claude` as a function that prints its role and arguments.
    let script = format!("claude() {{ printf '%s\\0' \"$AGENTGUARD_ROLE\" \"$@\"; }}\n{line}");
    let ran = run(isolated(&env, "bash", &["-c", &script]));
    assert_eq!(ran.code, Some(0), "{}", ran.output());
    let words: Vec<&str> = ran.stdout.strip_suffix('\0').unwrap().split('\0').collect();
    assert_eq!(words[0], "read-only");
    let argv: Vec<&str> = report["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(words[1..], argv[1..]);
    assert_eq!(&argv[1..3], ["-p", prompt]);
    assert!(argv[4].starts_with(&format!("--append-system-prompt={RULE_START}")));
}

#[test]
fn exec_starts_the_cli_with_the_role_and_merged_args() {
    let env = Env::new();
    stand_in(&env, "gemini", "gemini-0.61.0.txt");
    let out = run(agentguard(
        &env,
        &launch_args("gemini", &[], &["--yolo", "-p", "hi"]),
    ));
    assert_eq!(out.code, Some(0), "{}", out.output());
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        &lines[..4],
        [
            "role=read-only",
            "arg=--approval-mode",
            "arg=plan",
            "arg=--prompt"
        ]
    );
    assert!(lines[4].starts_with(&format!("arg={RULE_START}")));
    assert!(!out.stdout.contains("--yolo"));
}

#[test]
fn a_missing_cli_is_a_usage_error() {
    let env = Env::new();
    let out = run(agentguard(&env, &launch_args("opencode", &[], &[])));
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr.contains("`opencode` was not found on PATH"),
        "{}",
        out.stderr
    );
}

/// `--print` needs no CLI: it shows the command for the pinned version and says the flags
/// were not checked; the same command a stand-in with that version's help gets.
#[test]
fn print_without_the_cli_shows_the_pinned_command_and_says_it_is_unchecked() {
    let env = Env::new();
    let out = run(agentguard(
        &env,
        &launch_args("claude", &["--print"], &["-p", "review the diff"]),
    ));
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(
        out.stderr.contains(
            "`claude` is not on PATH, so its flags could not be checked against its --help"
        ),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("claude 2.1.332"), "{}", out.stderr);
    assert!(
        out.stdout.starts_with("AGENTGUARD_ROLE=read-only claude "),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("--disallowedTools"), "{}", out.stdout);

    let with_cli = Env::new();
    stand_in(&with_cli, "claude", "claude-2.1.332.txt");
    let checked = run(agentguard(
        &with_cli,
        &launch_args("claude", &["--print"], &["-p", "review the diff"]),
    ));
    assert_eq!(checked.code, Some(0), "{}", checked.output());
    assert_eq!(checked.stdout, out.stdout);
    assert!(
        !checked.stderr.contains("not on PATH"),
        "{}",
        checked.stderr
    );

    let json = run(agentguard(&env, &launch_args("codex", &["--json"], &[])));
    assert_eq!(json.code, Some(0), "{}", json.output());
    assert!(json.stderr.contains("codex 0.171.0"), "{}", json.stderr);
}

#[test]
fn a_cli_whose_help_prints_nothing_is_an_error() {
    let env = Env::new();
    env.script("grok", "#!/bin/sh\nexit 0\n");
    let out = run(agentguard(&env, &launch_args("grok", &["--print"], &[])));
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr.contains("--help printed nothing"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_cli_whose_help_fails_is_an_error_with_its_status_and_last_words() {
    let env = Env::new();
    env.script(
        "grok",
        "#!/bin/sh\necho usage >&2\necho 'grok: broken install' >&2\nexit 4\n",
    );
    let out = run(agentguard(&env, &launch_args("grok", &["--print"], &[])));
    assert_eq!(out.code, Some(2), "{}", out.output());
    assert!(
        out.stderr
            .contains("--help exited with status 4: grok: broken install"),
        "{}",
        out.stderr
    );
}

#[test]
fn print_and_json_exclude_each_other() {
    let env = Env::new();
    let out = run(agentguard(
        &env,
        &["launch", "--read-only", "claude", "--print", "--json"],
    ));
    assert_eq!(out.code, Some(2), "{}", out.output());
    assert!(
        out.stderr.contains("--print and --json exclude each other"),
        "{}",
        out.stderr
    );
}

#[test]
fn an_inherited_opencode_config_that_is_not_json_is_a_config_error() {
    let mut env = Env::new();
    stand_in(&env, "opencode", "opencode-1.18.33.txt");
    env.set("OPENCODE_CONFIG_CONTENT", "{broken");
    let out = run(agentguard(&env, &launch_args("opencode", &["--json"], &[])));
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr.contains("OPENCODE_CONFIG_CONTENT"),
        "{}",
        out.stderr
    );
}

// --- the real CLIs -------------------------------------------------------------------------

/// Puts the pinned CLI's directory on the test's PATH; None (skip, or panic under CI) when the
/// CLIs are not installed.
fn with_real_cli(env: &mut Env, var: &str, cli: &str) -> Option<PathBuf> {
    let dir = support::cli_bin_dir(var, cli)?;
    env.path_prefix.push(dir.clone());
    Some(dir.join(cli))
}

fn contains_all(text: &str, needles: &[&str]) -> bool {
    needles.iter().all(|n| text.contains(n))
}

#[test]
fn claude_read_only_sends_no_edit_or_write_tool_to_the_model() {
    let mut env = Env::new();
    let Some(claude) = with_real_cli(&mut env, "AGENTGUARD_TEST_CLI_BIN", "claude") else {
        return;
    };
    let fake = FakeAnthropic::start();
    for (k, v) in fake.claude_env() {
        env.set(&k, v);
    }
    // The prompt first, then the user's own variadic deny list and a mode that approves edits.
    let user_args = [
        "-p",
        "review ZZPROMPT",
        "--permission-mode",
        "acceptEdits",
        "--append-system-prompt",
        "Be terse.",
        "--disallowedTools",
        "Agent",
    ];

    let control = run(isolated(&env, &claude, &user_args));
    assert_eq!(control.code, Some(0), "{}", control.output());
    let offered = fake
        .message_requests()
        .last()
        .expect("claude called the fake")
        .tool_names();
    assert!(
        offered.iter().any(|t| t == "Edit") && offered.iter().any(|t| t == "Write"),
        "{offered:?}"
    );

    let before = fake.message_requests().len();
    let out = run(agentguard(&env, &launch_args("claude", &[], &user_args)));
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(out.stdout.contains(DEFAULT_REPLY), "{}", out.output());
    assert!(
        out.stderr
            .contains("removed `--permission-mode acceptEdits`"),
        "{}",
        out.stderr
    );
    let requests = fake.message_requests();
    let request = requests[before..]
        .last()
        .expect("the launched claude called the fake");
    let tools = request.tool_names();
    assert!(
        tools.iter().any(|t| t == "Read") && tools.iter().any(|t| t == "Bash"),
        "{tools:?}"
    );
    for denied in ["Edit", "Write", "NotebookEdit", "Agent"] {
        assert!(
            !tools.iter().any(|t| t == denied),
            "{denied} offered: {tools:?}"
        );
    }
    let system = request.body["system"].to_string();
    assert!(
        contains_all(&system, &[RULE_START, "not an obstacle", "Be terse."]),
        "{system}"
    );
    assert!(
        request.body["messages"]
            .to_string()
            .contains("review ZZPROMPT"),
        "prompt swallowed"
    );
}

#[test]
fn codex_exec_read_only_runs_in_the_read_only_sandbox() {
    let mut env = Env::new();
    let Some(codex) = with_real_cli(&mut env, "AGENTGUARD_TEST_CLI_BIN", "codex") else {
        return;
    };
    let fake = FakeOpenAi::start(OpenAiMode::Reply("Reviewed ZZREPLY".into()));
    env.set("FAKE_KEY", "dummy");
    let provider = fake.codex_provider_args();
    let mut user_args = vec!["-a", "on-request", "-s", "workspace-write"];
    user_args.extend(strs(&provider));
    user_args.extend([
        "exec",
        "-s",
        "workspace-write",
        "--dangerously-bypass-approvals-and-sandbox",
        "--skip-git-repo-check",
        "--ephemeral",
        "review ZZPROMPT",
    ]);

    let control = run(isolated(&env, &codex, &user_args));
    assert_eq!(control.code, Some(0), "{}", control.output());
    let body = fake
        .model_requests()
        .last()
        .expect("codex called the fake")
        .body
        .to_string();
    assert!(
        body.contains("`sandbox_mode` is `danger-full-access`"),
        "control is not read-only"
    );

    let before = fake.model_requests().len();
    let out = run(agentguard(&env, &launch_args("codex", &[], &user_args)));
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(out.stdout.contains("Reviewed ZZREPLY"), "{}", out.output());
    let requests = fake.model_requests();
    let body = requests[before..]
        .last()
        .expect("the launched codex called the fake")
        .body
        .to_string();
    assert!(
        body.contains("`sandbox_mode` is `read-only`"),
        "not read-only: {body}"
    );
    assert!(
        body.contains("Approval policy is currently never"),
        "{body}"
    );
    assert!(!body.contains("danger-full-access") && !body.contains("workspace-write"));
    assert!(contains_all(
        &body,
        &[RULE_START, "not an obstacle", "review ZZPROMPT"]
    ));
    for removed in [
        "--dangerously-bypass-approvals-and-sandbox",
        "-s workspace-write",
        "-a on-request",
    ] {
        assert!(
            out.stderr.contains(&format!("removed `{removed}")),
            "{removed}: {}",
            out.stderr
        );
    }
}

#[test]
fn opencode_read_only_agent_gets_no_write_tool() {
    let mut env = Env::new();
    let Some(opencode) = with_real_cli(&mut env, "AGENTGUARD_TEST_CLI_BIN", "opencode") else {
        return;
    };
    let fake = FakeOpenAi::start(OpenAiMode::Reply("Reviewed ZZREPLY".into()));
    // The user's own inline config (a loopback provider) must survive the merge.
    let config = serde_json::json!({
        "provider": {"fake": {
            "npm": "@ai-sdk/openai-compatible", "name": "Fake",
            "options": {"baseURL": fake.base_url(), "apiKey": "dummy"},
            "models": {"m": {"name": "m"}}
        }},
        "model": "fake/m",
        "autoupdate": false
    });
    env.set("OPENCODE_CONFIG_CONTENT", config.to_string());
    env.set("OPENCODE_DISABLE_MODELS_FETCH", "1");
    env.set("OPENCODE_DISABLE_AUTOUPDATE", "1");
    let user_args = ["run", "--agent", "build", "-m", "fake/m", "review ZZPROMPT"];
    let with_tools = |fake: &FakeOpenAi, from: usize| {
        fake.model_requests()[from..]
            .iter()
            .rev()
            .find(|r| !r.tool_names().is_empty())
            .cloned()
    };

    let control = run(isolated(&env, &opencode, &user_args));
    assert_eq!(control.code, Some(0), "{}", control.output());
    let offered = with_tools(&fake, 0)
        .expect("opencode offered tools")
        .tool_names();
    assert!(
        offered.iter().any(|t| t == "edit") && offered.iter().any(|t| t == "write"),
        "{offered:?}"
    );

    let before = fake.model_requests().len();
    let out = run(agentguard(&env, &launch_args("opencode", &[], &user_args)));
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(out.stdout.contains("Reviewed ZZREPLY"), "{}", out.output());
    assert!(
        out.stderr.contains("removed `--agent build`"),
        "{}",
        out.stderr
    );
    let request = with_tools(&fake, before).expect("the launched opencode offered tools");
    let tools = request.tool_names();
    assert!(
        tools.iter().any(|t| t == "read") && tools.iter().any(|t| t == "bash"),
        "{tools:?}"
    );
    for denied in ["edit", "write", "patch", "multiedit", "apply_patch", "task"] {
        assert!(
            !tools.iter().any(|t| t == denied),
            "{denied} offered: {tools:?}"
        );
    }
    let body = request.body.to_string();
    assert!(
        contains_all(&body, &[RULE_START, "review ZZPROMPT"]),
        "{body}"
    );
}

#[test]
fn npm_grok_has_no_read_only_mode_and_gets_the_rule_in_its_prompt() {
    let mut env = Env::new();
    let Some(_) = with_real_cli(&mut env, "AGENTGUARD_TEST_VIBE_GROK_BIN", "grok") else {
        return;
    };
    let fake = FakeOpenAi::start(OpenAiMode::Reply("Reviewed ZZREPLY".into()));
    env.set("GROK_API_KEY", "dummy");
    env.set("GROK_BASE_URL", fake.base_url());
    let out = run(agentguard(
        &env,
        &launch_args("grok", &[], &["-p", "review ZZPROMPT"]),
    ));
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(out.stdout.contains("Reviewed ZZREPLY"), "{}", out.output());
    assert!(
        out.stderr.contains("has no read-only mode"),
        "{}",
        out.stderr
    );
    let request = fake.model_requests().pop().expect("grok called the fake");
    let user_message = request.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    assert!(
        contains_all(&user_message, &[RULE_START, "review ZZPROMPT"]),
        "{user_message}"
    );
}

/// The real parser accepted the argv when the CLI got as far as asking for credentials.
fn assert_parsed(out: &Outcome, reached: &str, parse_errors: &[&str]) {
    let output = out.output();
    assert!(
        output.contains(reached),
        "did not get past parsing:\n{output}"
    );
    for error in parse_errors {
        assert!(!output.contains(error), "{error}:\n{output}");
    }
}

#[test]
fn gemini_parser_accepts_the_read_only_argv() {
    let mut env = Env::new();
    let Some(gemini) = with_real_cli(&mut env, "AGENTGUARD_TEST_CLI_BIN", "gemini") else {
        return;
    };
    let user_args = ["-y", "--approval-mode", "yolo", "-p", "review"];
    let parse_errors = [
        "Invalid approval mode",
        "Cannot use both",
        "Unknown argument",
    ];

    // Control: adding plan without removing the user's flags is rejected by gemini.
    let mut naive = user_args.to_vec();
    naive.extend(["--approval-mode", "plan"]);
    let control = run(isolated(&env, &gemini, &naive));
    assert!(
        parse_errors.iter().any(|e| control.output().contains(e)),
        "{}",
        control.output()
    );

    let out = run(agentguard(&env, &launch_args("gemini", &[], &user_args)));
    assert_parsed(&out, "Auth method", &parse_errors);
    assert!(out.stderr.contains("removed `-y`"), "{}", out.stderr);
}

#[test]
fn xai_grok_parser_accepts_the_read_only_argv() {
    let mut env = Env::new();
    let Some(grok) = with_real_cli(&mut env, "AGENTGUARD_TEST_CLI_BIN", "grok") else {
        return;
    };
    let user_args = [
        "--rules",
        "Be brief.",
        "--always-approve",
        "--permission-mode",
        "bypassPermissions",
        "-p",
        "review",
    ];
    let parse_errors = [
        "cannot be used multiple times",
        "unsupported tool prefix",
        "malformed rule",
        "error:",
    ];

    // Control: a second --rules, as a naive merge would add, is rejected by Grok Build.
    let mut naive = user_args.to_vec();
    naive.extend(["--rules", RULE_START]);
    let control = run(isolated(&env, &grok, &naive));
    assert!(
        control.output().contains("cannot be used multiple times"),
        "{}",
        control.output()
    );

    let out = run(agentguard(&env, &launch_args("grok", &[], &user_args)));
    assert_parsed(&out, "Not signed in", &parse_errors);
    assert!(
        out.stderr.contains("removed `--always-approve`"),
        "{}",
        out.stderr
    );
}

/// The model asks for a Write anyway: the plain CLI (with the user's acceptEdits) writes the
/// file, the read-only launch answers the call with an error and the file never appears.
#[test]
fn claude_read_only_refuses_a_write_the_model_asks_for() {
    let mut env = Env::new();
    let Some(claude) = with_real_cli(&mut env, "AGENTGUARD_TEST_CLI_BIN", "claude") else {
        return;
    };
    let fake = FakeAnthropic::start();
    for (k, v) in fake.claude_env() {
        env.set(&k, v);
    }
    let write_turn = |path: &std::path::Path| {
        Turn::tool_use(
            "Write",
            serde_json::json!({"file_path": path, "content": "changed\n"}),
        )
    };
    let user_args = [
        "-p",
        "review the project",
        "--permission-mode",
        "acceptEdits",
    ];

    let control_file = env.project().join("control.txt");
    fake.push(write_turn(&control_file))
        .push(Turn::text("wrote it"));
    let control = run(isolated(&env, &claude, &user_args));
    assert_eq!(control.code, Some(0), "{}", control.output());
    assert!(
        control_file.exists(),
        "the control run did not write: {}",
        control.output()
    );

    let guarded_file = env.project().join("guarded.txt");
    fake.push(write_turn(&guarded_file))
        .push(Turn::text("could not write"));
    let before = fake.message_requests().len();
    let out = run(agentguard(&env, &launch_args("claude", &[], &user_args)));
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(
        !guarded_file.exists(),
        "the read-only launch wrote the file"
    );
    let requests = fake.message_requests();
    let answer = requests[before..]
        .iter()
        .flat_map(|r| r.body["messages"].as_array().cloned().unwrap_or_default())
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find(|block| block["type"] == "tool_result")
        .expect("claude answered the Write call");
    assert_eq!(answer["is_error"], true, "{answer}");
}
