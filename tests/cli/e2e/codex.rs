//! End to end with the real pinned Codex CLI as the hook HOST: `codex exec` against a scripted
//! Responses API on loopback, with agentguard's hooks installed by `agentguard install --host
//! codex --yes` in a throwaway HOME and trusted the way Codex's own /hooks screen does it,
//! through `codex app-server` (`hooks/list`, then `config/batchWrite`). Every scenario asserts
//! on what Codex sent to the model, on the repository and on the decision log.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

use serde_json::{Value, json};

use crate::fake_api::{FakeOpenAi, OpenAiMode, ResponsesTurn};
use crate::support::{self, CLIENT_DEADLINE, Env, Outcome};

/// A throwaway HOME and git project (README.md committed, then changed in the work tree),
/// agentguard installed for Codex, the fake model API, the pinned codex on PATH.
struct CodexSession {
    env: Env,
    fake: FakeOpenAi,
    codex: PathBuf,
}

impl CodexSession {
    /// None (skipped, or a panic under CI=true) when the pinned CLIs are not installed.
    fn start() -> Option<CodexSession> {
        let cli_dir = support::agent_cli_dir("codex")?;
        let mut env = Env::new();
        env.path_prefix.push(cli_dir.clone());
        env.set("FAKE_KEY", "dummy");
        // The scripted model reports test runs it never makes: `unbacked-claim` would rightly
        // hold every such report, so it is off here (tests/cli/evidence.rs covers it).
        env.write_config(
            "[judge]\nbackend = \"rules\"\n\n[[detectors]]\nname = \"unbacked-claim\"\nenabled = false\n",
        );
        super::git(&env, &["init", "-q", "-b", "main"]);
        std::fs::write(env.project().join("README.md"), "# demo\n\nhello\n").unwrap();
        super::git(&env, &["add", "README.md"]);
        super::git(&env, &["commit", "-q", "-m", "initial"]);
        // A change in the work tree, so that `git commit -am x` would have something to commit.
        std::fs::write(
            env.project().join("README.md"),
            "# demo\n\nhello, changed\n",
        )
        .unwrap();

        let install = super::run(env.agentguard(&["install", "--host", "codex", "--yes"]));
        assert_eq!(install.code, Some(0), "{}", install.output());
        assert!(
            install
                .stdout
                .contains("`codex exec` skips an untrusted one"),
            "install says the fresh hooks are not trusted yet: {}",
            install.output()
        );
        let fake = FakeOpenAi::start(OpenAiMode::Reply("Done.".into()));
        Some(CodexSession {
            env,
            fake,
            codex: cli_dir.join("codex"),
        })
    }

    fn hooks_json(&self) -> PathBuf {
        self.env.home().join(".codex/hooks.json")
    }

    /// `codex exec` on `prompt` in the project, with `extra` flags, the fake as provider.
    fn exec(&self, prompt: &str, extra: &[&str]) -> Outcome {
        let mut args: Vec<String> = vec!["exec".into()];
        args.extend(self.fake.codex_provider_args());
        args.extend(
            [
                "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox",
            ]
            .map(String::from),
        );
        args.extend(extra.iter().map(|a| a.to_string()));
        args.push(prompt.to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        super::run(self.env.isolated(&self.codex, &args))
    }

    fn decisions(&self) -> Vec<Value> {
        super::decisions(&self.env)
    }

    fn head(&self) -> String {
        super::git(&self.env, &["rev-parse", "HEAD"])
    }
}

/// A JSON-RPC session with `codex app-server` on stdio.
struct AppServer {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    next_id: u64,
}

impl AppServer {
    fn start(session: &CodexSession) -> AppServer {
        let mut cmd = session.env.isolated(&session.codex, &["app-server"]);
        cmd.stdin(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn codex app-server");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        // Drain stderr so the server never blocks on a full pipe.
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || std::io::copy(&mut { stderr }, &mut std::io::sink()));
        let mut server = AppServer {
            child,
            lines,
            next_id: 1,
        };
        server.call(
            "initialize",
            json!({"clientInfo": {"name": "agentguard-e2e", "version": "1"}}),
        );
        server.send(&json!({"jsonrpc": "2.0", "method": "initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and waits for its result (notifications in between are skipped).
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let started = Instant::now();
        loop {
            let left = CLIENT_DEADLINE.saturating_sub(started.elapsed());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method} from codex app-server"));
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message["id"] == json!(id) {
                assert!(message["error"].is_null(), "{method}: {message}");
                return message["result"].clone();
            }
        }
    }

    /// Our hooks as Codex lists them for the project: (key, currentHash, trustStatus).
    fn hooks(&mut self, cwd: &Path) -> Vec<(String, String, String)> {
        let listed = self.call("hooks/list", json!({"cwds": [cwd]}));
        listed["data"][0]["hooks"]
            .as_array()
            .unwrap_or_else(|| panic!("hooks/list: {listed}"))
            .iter()
            .filter(|h| {
                h["command"]
                    .as_str()
                    .is_some_and(|c| c.contains("agentguard hook"))
            })
            .map(|h| {
                let text = |k: &str| h[k].as_str().unwrap_or_default().to_string();
                (text("key"), text("currentHash"), text("trustStatus"))
            })
            .collect()
    }

    /// Trusts `hooks` exactly as the TUI's review screen does.
    fn trust(&mut self, hooks: &[(String, String, String)]) {
        let states: serde_json::Map<String, Value> = hooks
            .iter()
            .map(|(key, hash, _)| (key.clone(), json!({"trusted_hash": hash})))
            .collect();
        let written = self.call(
            "config/batchWrite",
            json!({"edits": [{"keyPath": "hooks.state", "value": states, "mergeStrategy": "upsert"}],
                   "filePath": null, "expectedVersion": null, "reloadUserConfig": true}),
        );
        assert_eq!(written["status"], "ok", "{written}");
    }
}

impl Drop for AppServer {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        // SAFETY: signals only the process group this test started (isolated() gives it one).
        unsafe { libc::killpg(self.child.id() as libc::pid_t, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// The `function_call_output` texts Codex sent back to the model in `request`, by call id.
fn call_output(request: &crate::fake_api::Request, call_id: &str) -> String {
    request.body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|item| item["type"] == "function_call_output" && item["call_id"] == call_id)
        .map(|item| match &item["output"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
        .unwrap_or_else(|| panic!("no output for {call_id} in {}", request.body))
}

fn call_id(turn: &ResponsesTurn) -> String {
    turn.call_id().expect("a tool call turn").to_string()
}

fn doctor_trust(env: &Env) -> Value {
    let out = super::run(env.agentguard(&["doctor", "--json"]));
    let report: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|err| panic!("doctor --json ({err}): {}", out.output()));
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "codex.trust")
        .cloned()
        .unwrap_or_else(|| panic!("no codex.trust check: {report}"))
}

// --- trust: what Codex reports, what agentguard computes, what `codex exec` does ----------

/// Untrusted hooks are skipped by `codex exec` without a word, and doctor says so; after
/// trusting them through the app server, the same run is denied. agentguard's own trust keys
/// and hashes are the ones the real Codex reports.
#[test]
fn untrusted_hooks_are_skipped_and_reported_then_trusted_hooks_deny() {
    let Some(mut session) = CodexSession::start() else {
        return;
    };
    session.env.set("AGENTGUARD_ROLE", "read-only");
    let project = session.env.project();

    let mut server = AppServer::start(&session);
    let listed = server.hooks(&project);
    assert_eq!(
        listed.len(),
        3,
        "Stop, SubagentStop, PreToolUse: {listed:?}"
    );
    assert!(listed.iter().all(|(_, _, status)| status == "untrusted"));
    let text = std::fs::read_to_string(session.hooks_json()).unwrap();
    let ours = agentguard::codex_trust::our_hooks(
        &session.hooks_json().display().to_string(),
        agentguard::settings::Format::Json,
        &text,
    )
    .unwrap();
    let mut computed: Vec<(String, String)> = ours
        .iter()
        .map(|h| (h.key.clone(), h.current_hash.clone()))
        .collect();
    let mut reported: Vec<(String, String)> = listed
        .iter()
        .map(|(k, h, _)| (k.clone(), h.clone()))
        .collect();
    computed.sort();
    reported.sort();
    assert_eq!(
        computed, reported,
        "agentguard's trust keys and hashes are Codex's"
    );

    let untrusted = doctor_trust(&session.env);
    assert_eq!(untrusted["status"], "warn", "{untrusted}");
    assert!(
        untrusted["message"]
            .as_str()
            .unwrap()
            .contains("`codex exec` skips them"),
        "{untrusted}"
    );

    // Untrusted: the read-only role's `touch` runs, Codex skipped the hook silently.
    let prompt = "ZZCODEX-UNTRUSTED make a file";
    let touch = ResponsesTurn::shell("touch untrusted-ran");
    session.fake.push_when(prompt, touch);
    session
        .fake
        .push_when(prompt, ResponsesTurn::text("Made it."));
    let out = session.exec(prompt, &[]);
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(
        project.join("untrusted-ran").exists(),
        "an untrusted PreToolUse hook does not run"
    );
    std::fs::remove_file(project.join("untrusted-ran")).unwrap();
    assert!(
        session.decisions().is_empty(),
        "no hook ran: {:?}",
        session.decisions()
    );

    server.trust(&listed);
    let trusted = server.hooks(&project);
    assert!(
        trusted.iter().all(|(_, _, status)| status == "trusted"),
        "{trusted:?}"
    );
    drop(server);
    let report = doctor_trust(&session.env);
    assert_eq!(report["status"], "ok", "{report}");

    // Trusted: the same kind of call is denied.
    let prompt = "ZZCODEX-TRUSTED make a file";
    session
        .fake
        .push_when(prompt, ResponsesTurn::shell("touch trusted-ran"));
    session
        .fake
        .push_when(prompt, ResponsesTurn::text("Could not."));
    let out = session.exec(prompt, &[]);
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(
        !project.join("trusted-ran").exists(),
        "a trusted hook denies"
    );
    let pre = session.decisions();
    assert_eq!(
        super::actions(&super::of_event(&pre, "PreToolUse")),
        ["deny"],
        "{pre:#?}"
    );

    // A changed hook (a moved binary) is `modified`: untrusted again, and doctor says so.
    let moved = text.replace(
        "hook pre-tool --host codex\",\n            \"timeout\": 30",
        "hook pre-tool --host codex\",\n            \"timeout\": 31",
    );
    assert_ne!(moved, text, "the test edits the installed timeout");
    std::fs::write(session.hooks_json(), &moved).unwrap();
    let modified = doctor_trust(&session.env);
    assert_eq!(modified["status"], "warn", "{modified}");
    assert!(
        modified["message"]
            .as_str()
            .unwrap()
            .contains("PreToolUse (changed since you trusted it)"),
        "{modified}"
    );
    let mut server = AppServer::start(&session);
    let statuses: Vec<String> = server
        .hooks(&project)
        .into_iter()
        .map(|(key, _, status)| format!("{key} {status}"))
        .collect();
    assert!(
        statuses
            .iter()
            .any(|s| s.contains(":pre_tool_use:") && s.ends_with(" modified")),
        "Codex agrees: {statuses:?}"
    );
}

// --- deny: a read-only role cannot commit or touch, and the model hears why -----------------

#[test]
fn read_only_role_commit_and_touch_are_denied_and_the_repository_stays_unchanged() {
    let Some(mut session) = CodexSession::start() else {
        return;
    };
    session.env.set("AGENTGUARD_ROLE", "read-only");
    let project = session.env.project();
    let mut server = AppServer::start(&session);
    let listed = server.hooks(&project);
    server.trust(&listed);
    drop(server);
    let head = session.head();
    let status = super::git(&session.env, &["status", "--porcelain"]);

    let prompt = "ZZCODEX-DENY review the branch";
    let commit = ResponsesTurn::shell("git commit -am x");
    let touch = ResponsesTurn::shell("touch x");
    let (commit_id, touch_id) = (call_id(&commit), call_id(&touch));
    session.fake.push_when(prompt, commit);
    session.fake.push_when(prompt, touch);
    session.fake.push_when(
        prompt,
        ResponsesTurn::text("Review: README.md line 3 changed; nothing applied."),
    );
    let out = session.exec(prompt, &[]);
    assert_eq!(out.code, Some(0), "{}", out.output());

    assert_eq!(session.head(), head, "no commit was made");
    assert_eq!(
        super::git(&session.env, &["status", "--porcelain"]),
        status,
        "the work tree is as it was"
    );
    assert!(!project.join("x").exists(), "touch did not run");

    let requests = session.fake.requests_with(prompt);
    assert_eq!(requests.len(), 3, "two denied calls, then the final answer");
    let commit_output = call_output(&requests[1], &commit_id);
    assert!(
        commit_output.contains("Command blocked by PreToolUse hook")
            && commit_output.contains("`git commit` changes git state"),
        "{commit_output}"
    );
    assert!(
        commit_output.contains(super::READ_ONLY_RULE),
        "{commit_output}"
    );
    let touch_output = call_output(&requests[2], &touch_id);
    assert!(
        touch_output.contains("`touch` creates, changes or deletes files"),
        "{touch_output}"
    );

    let records = session.decisions();
    let pre: Vec<&Value> = super::of_event(&records, "PreToolUse");
    assert_eq!(super::actions(&pre), ["deny", "deny"], "{pre:#?}");
    let stops = super::of_event(&records, "Stop");
    assert_eq!(super::actions(&stops), ["allow"], "{stops:#?}");
}

// --- block: a Stop block makes Codex continue with agentguard's reason ----------------------

#[test]
fn stop_block_makes_codex_continue_with_the_reason_and_the_log_records_it() {
    let Some(session) = CodexSession::start() else {
        return;
    };
    // Where trust is not what is under test, the documented bypass flag runs the hooks.
    let prompt = "ZZCODEX-STOP is the branch ready?";
    session.fake.push_when(
        prompt,
        ResponsesTurn::text("Let's push it to main and deploy now."),
    );
    session.fake.push_when(
        prompt,
        ResponsesTurn::text(
            "I ran cargo test: 42 passed, 0 failed. The branch is ready; shall I push it to main?",
        ),
    );
    let out = session.exec(prompt, &["--dangerously-bypass-hook-trust"]);
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(out.stdout.contains("42 passed"), "{}", out.output());

    let requests = session.fake.requests_with(prompt);
    assert_eq!(
        requests.len(),
        2,
        "one blocked stop, then the verified answer"
    );
    let records = session.decisions();
    let stops = super::of_event(&records, "Stop");
    assert_eq!(super::actions(&stops), ["block", "allow"], "{stops:#?}");
    assert_eq!(stops[0]["detectors"][0]["detector"], "commit");
    let reason = stops[0]["message"].as_str().unwrap();
    let continued = input_texts(&requests[1]);
    assert!(continued.contains("<hook_prompt"), "{continued}");
    assert!(
        continued.contains(reason),
        "the model got agentguard's reason: {continued}"
    );
    assert!(
        reason.contains("without reporting any verification"),
        "{reason}"
    );
}

/// Every text of the input items Codex sent (messages' text parts), joined.
fn input_texts(request: &crate::fake_api::Request) -> String {
    request.body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|item| item["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|part| part["text"].as_str().map(String::from))
        .collect::<Vec<_>>()
        .join("\n")
}

// --- MCP: Codex sends MCP tool calls to the hook through the installed matcher -------------

/// Codex 0.171.0 offers MCP tools to the model inside its code-mode `exec` tool; each nested
/// call reaches PreToolUse as `mcp__<server>__<tool>`. Through the matcher `install` writes, a
/// read-only role runs the MCP tool the user listed in `[readonly] mcp_readers`, the hook
/// denies the other, and a shell call still reaches the hook through the same matcher.
#[test]
fn a_read_only_role_calls_only_the_mcp_tools_the_user_listed() {
    let Some(mut session) = CodexSession::start() else {
        return;
    };
    let config = session.env.config_file();
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("\n[readonly]\nmcp_readers = [\"mcp__docs__search\"]\n");
    std::fs::write(&config, text).unwrap();
    session.env.set("AGENTGUARD_ROLE", "read-only");
    let project = session.env.project();
    let mut server = AppServer::start(&session);
    let listed = server.hooks(&project);
    server.trust(&listed);
    drop(server);

    let calls = session.env.dir.path().join("mcp-calls");
    let mcp = session.env.write("mcp-server.py", super::MCP_SERVER);
    let prompt = "ZZCODEX-MCP look it up";
    let script = "const found = await tools.mcp__docs__search({q: \"hooks\"});\n\
                  text(JSON.stringify(found));\n\
                  const published = await tools.mcp__docs__publish({q: \"hooks\"});\n\
                  text(JSON.stringify(published));\n";
    let exec = ResponsesTurn::custom("exec", script);
    let touch = ResponsesTurn::shell("touch mcp-ran");
    let (exec_id, touch_id) = (call_id(&exec), call_id(&touch));
    session.fake.push_when(prompt, exec);
    session.fake.push_when(prompt, touch);
    session
        .fake
        .push_when(prompt, ResponsesTurn::text("Looked it up."));
    let command = "mcp_servers.docs.command=\"/usr/bin/python3\"".to_string();
    let args = format!(
        "mcp_servers.docs.args=[{:?}, {:?}]",
        mcp.display().to_string(),
        calls.display().to_string()
    );
    let out = session.exec(prompt, &["-c", &command, "-c", &args]);
    assert_eq!(out.code, Some(0), "{}", out.output());

    assert_eq!(
        std::fs::read_to_string(&calls).unwrap_or_default(),
        "search\n",
        "the listed reader ran, the other MCP tool did not"
    );
    assert!(!project.join("mcp-ran").exists(), "touch did not run");
    let requests = session.fake.requests_with(prompt);
    assert_eq!(requests.len(), 3, "{}", out.output());
    let exec_output = custom_call_output(&requests[1], &exec_id);
    assert!(exec_output.contains("MCP-RESULT search"), "{exec_output}");
    assert!(
        exec_output.contains("Tool call blocked by PreToolUse hook")
            && exec_output.contains("not listed in [readonly] mcp_readers"),
        "{exec_output}"
    );
    let touch_output = call_output(&requests[2], &touch_id);
    assert!(
        touch_output.contains("Command blocked by PreToolUse hook"),
        "{touch_output}"
    );
    let records = session.decisions();
    let pre: Vec<String> = super::of_event(&records, "PreToolUse")
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["tool"].as_str().unwrap_or_default(),
                r["action"].as_str().unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        pre,
        [
            "mcp__docs__search allow",
            "mcp__docs__publish deny",
            "Bash deny"
        ],
        "{records:#?}"
    );
}

/// The output Codex sent back to the model for the freeform call `call_id`, as text.
fn custom_call_output(request: &crate::fake_api::Request, call_id: &str) -> String {
    request.body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|item| item["type"] == "custom_tool_call_output" && item["call_id"] == call_id)
        .map(|item| item["output"].to_string())
        .unwrap_or_else(|| panic!("no output for {call_id} in {}", request.body))
}
