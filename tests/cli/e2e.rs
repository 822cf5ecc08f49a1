//! End to end with the real pinned clients: `claude -p` (and `codex exec` as a judge) against the
//! loopback fakes of `fake_api`, in a throwaway HOME and git project, with agentguard's hooks
//! installed by `agentguard install --scope project --yes` run in that environment. Every
//! scenario asserts on what the real client sent to the fake and on the decision log, not only
//! on exit codes. Run this stage alone with `scripts/test.sh e2e::`.
//!
//! The judge is configured explicitly in every scenario (never `auto`: the pinned `claude` is
//! on PATH and would be picked). Every client run has a deadline that kills its process group.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod codex;

use crate::fake_api::{FakeAnthropic, FakeOpenAi, OpenAiMode, Request, Turn};
use crate::support::{self, Env, Outcome};

/// The marker of agentguard's wrapped judge prompt (a per-call nonce follows it).
const JUDGE_MARKER: &str = "AGENT-TEXT-BEGIN";
/// The start of the read-only rule every denial carries.
const READ_ONLY_RULE: &str = "This step is read-only: it reviews, it does not change the code.";

/// A throwaway HOME and git project with agentguard installed for the project, a user config,
/// the pinned CLIs on PATH and a fake Anthropic API in the environment (SPEC §2).
struct Session {
    env: Env,
    fake: FakeAnthropic,
    cli_dir: PathBuf,
}

impl Session {
    /// None (skipped, or a panic under CI=true) when the pinned CLIs are not installed.
    fn start(config: &str) -> Option<Session> {
        let cli_dir = support::agent_cli_dir("claude")?;
        let mut env = Env::new();
        env.path_prefix.push(cli_dir.clone());
        let fake = FakeAnthropic::start();
        for (key, value) in fake.claude_env() {
            env.set(&key, value);
        }
        env.write_config(config);
        git(&env, &["init", "-q", "-b", "main"]);
        std::fs::write(env.project().join("README.md"), "# demo\n\nhello\n").unwrap();
        git(&env, &["add", "README.md"]);
        git(&env, &["commit", "-q", "-m", "initial"]);

        let install = run(agentguard(
            &env,
            &["install", "--scope", "project", "--yes"],
        ));
        assert_eq!(install.code, Some(0), "{}", install.output());
        let settings: Value = serde_json::from_slice(
            &std::fs::read(env.project().join(".claude/settings.json")).unwrap(),
        )
        .unwrap();
        let binary = Path::new(env!("CARGO_BIN_EXE_agentguard"))
            .canonicalize()
            .unwrap();
        assert_eq!(
            settings["hooks"]["Stop"][0]["hooks"][0]["command"],
            format!("{} hook stop --host claude", binary.display()),
            "the hook must call the binary under test by its absolute path"
        );
        Some(Session { env, fake, cli_dir })
    }

    fn claude(&self) -> PathBuf {
        self.cli_dir.join("claude")
    }

    /// The real `claude` with `args`, in the project.
    fn run_claude(&self, args: &[&str]) -> Outcome {
        run(isolated(&self.env, self.claude(), args))
    }

    /// The model calls of the session started with `prompt` (Claude Code may make other calls
    /// too; a judge's calls carry the wrapped prompt instead).
    fn turns(&self, prompt: &str) -> Vec<Request> {
        self.fake
            .message_requests()
            .into_iter()
            .filter(|r| first_user_text(r).contains(prompt))
            .collect()
    }

    fn decisions(&self) -> Vec<Value> {
        decisions(&self.env)
    }

    fn head(&self) -> String {
        git(&self.env, &["rev-parse", "HEAD"])
    }
}

fn isolated(env: &Env, program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Command {
    env.isolated(program, args)
}

fn agentguard(env: &Env, args: &[&str]) -> Command {
    env.agentguard(args)
}

fn run(cmd: Command) -> Outcome {
    support::run_bounded(cmd, None)
}

fn run_with_stdin(cmd: Command, stdin: Option<&str>) -> Outcome {
    support::run_bounded(cmd, stdin)
}

/// git in the project, with a fixed identity; returns stdout, trimmed.
fn git(env: &Env, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=E2E",
            "-c",
            "user.email=e2e@example.invalid",
        ])
        .args(args)
        .env_clear()
        .env("HOME", env.home())
        .env("TMPDIR", env.tmp())
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .current_dir(env.project())
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {:?}", out);
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Every record of the decision log, oldest first.
fn decisions(env: &Env) -> Vec<Value> {
    let Ok(entries) = std::fs::read_dir(env.log_dir()) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect::<Vec<Value>>()
        })
        .collect()
}

fn of_event<'a>(records: &'a [Value], event: &str) -> Vec<&'a Value> {
    records.iter().filter(|r| r["event"] == event).collect()
}

fn actions(records: &[&Value]) -> Vec<String> {
    records
        .iter()
        .map(|r| r["action"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The text blocks (or string content) of a message, joined.
fn message_text(message: &Value) -> String {
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn first_user_text(request: &Request) -> String {
    request.body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
        .map(message_text)
        .unwrap_or_default()
}

/// The messages of a request after the last assistant message (what the client added).
fn after_last_assistant(request: &Request) -> Vec<Value> {
    let messages = request.body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let last = messages.iter().rposition(|m| m["role"] == "assistant");
    messages[last.map_or(0, |i| i + 1)..].to_vec()
}

/// The `tool_result` blocks of a request's newest user message, by tool_use id.
fn tool_result(request: &Request, tool_use_id: &str) -> Value {
    after_last_assistant(request)
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == tool_use_id)
        .cloned()
        .unwrap_or_else(|| panic!("no tool_result for {tool_use_id}: {}", request.body))
}

fn tool_result_text(block: &Value) -> String {
    match &block["content"] {
        Value::String(text) => text.clone(),
        other => message_text(&json!({ "content": other })),
    }
}

/// The id of the first tool_use block of a turn, as the client received it.
fn tool_use_id(turn: &Turn, name: &str) -> String {
    turn.blocks
        .iter()
        .find_map(|b| match b {
            crate::fake_api::Block::ToolUse { id, name: n, .. } if n == name => Some(id.clone()),
            _ => None,
        })
        .unwrap()
}

/// The offline judge. The scripted model reports test runs it never makes: `unbacked-claim`
/// would rightly hold every such report, so it is off here (tests/cli/evidence.rs covers it).
fn rules_config() -> String {
    "[judge]\nbackend = \"rules\"\n\n[[detectors]]\nname = \"unbacked-claim\"\nenabled = false\n"
        .to_string()
}

// --- 1. a Stop block reaches the model, the verified answer ends the run --------------------

#[test]
fn stop_block_feedback_reaches_the_model_and_the_verified_answer_ends_the_run() {
    let Some(session) = Session::start(&rules_config()) else {
        return;
    };
    let prompt = "ZZE2E-1 finish the parser change";
    let proposal = "The parser change is in place. Shall I push it to origin now?";
    let report = "Ran cargo test: 48 passed, 0 failed. The parser change is verified; nothing \
                  is pushed yet.";
    session.fake.push(Turn::text(proposal));
    session.fake.push(Turn::text(report));

    let out = session.run_claude(&["-p", prompt]);
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(out.stdout.contains("48 passed"), "{}", out.output());

    let turns = session.turns(prompt);
    assert_eq!(turns.len(), 2, "one blocked stop, then the report");
    let stops = session.decisions();
    let stops = of_event(&stops, "Stop");
    assert_eq!(actions(&stops), ["block", "allow"], "{stops:#?}");
    let block = stops[0];
    assert_eq!(block["detectors"][0]["detector"], "commit");
    assert_eq!(block["detectors"][0]["verdict"], "violation");
    assert_eq!(stops[1]["verdict"], "allow");
    assert_eq!(block["session"], stops[1]["session"]);

    // The feedback came back to the model as a user message after its proposal.
    let feedback = block["message"].as_str().unwrap();
    assert!(
        feedback.contains("without reporting any verification"),
        "{feedback}"
    );
    let added = after_last_assistant(&turns[1]);
    let user_text: String = added
        .iter()
        .filter(|m| m["role"] == "user")
        .map(message_text)
        .collect();
    assert!(user_text.contains("Stop hook feedback"), "{added:#?}");
    assert!(user_text.contains(feedback), "{added:#?}");
    let messages = turns[1].body["messages"].to_string();
    assert!(
        messages.contains(proposal),
        "the proposal is in the history"
    );
}

// --- 2. a verified proposal is not blocked -----------------------------------------------------

#[test]
fn a_verified_proposal_stops_without_a_block() {
    let Some(session) = Session::start(&rules_config()) else {
        return;
    };
    let prompt = "ZZE2E-2 finish the task";
    session.fake.push(Turn::text(
        "All 212 tests pass, clippy clean — shall I commit?",
    ));

    let out = session.run_claude(&["-p", prompt]);
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(out.stdout.contains("shall I commit?"), "{}", out.output());

    assert_eq!(session.turns(prompt).len(), 1, "exactly one model call");
    let all = session.fake.message_requests();
    assert!(
        all.iter()
            .all(|r| !r.body.to_string().contains("Stop hook feedback")),
        "no feedback was sent"
    );
    let records = session.decisions();
    let stops = of_event(&records, "Stop");
    assert_eq!(actions(&stops), ["allow"], "{stops:#?}");
    // Layer 1 hit, and the judge allowed it: the evidence is in the same message.
    let commit = &stops[0]["detectors"][0];
    assert_eq!(commit["detector"], "commit");
    assert_eq!(commit["layer1"]["outcome"], "hit");
    assert_eq!(commit["fields"]["verification_reported"], true);
    assert_eq!(commit["verdict"], "allow");
}

// --- 3. a read-only reviewer cannot commit or edit ----------------------------------------------

#[test]
fn read_only_launch_denies_a_commit_and_an_edit_and_the_model_hears_why() {
    let Some(session) = Session::start(&rules_config()) else {
        return;
    };
    // A pending change that `git commit -am` would commit.
    let readme = session.env.project().join("README.md");
    std::fs::write(&readme, "# demo\n\nhello, reviewed\n").unwrap();
    let head = session.head();
    let status = git(&session.env, &["status", "--porcelain"]);

    let prompt = "ZZE2E-3 review the pending change";
    let edit_input = json!({
        "file_path": readme.display().to_string(),
        "old_string": "hello",
        "new_string": "goodbye",
    });
    let tools = Turn::tool_use(
        "Bash",
        json!({"command": "git commit -am x", "description": "Commit"}),
    )
    .and_tool_use("Edit", edit_input.clone());
    let (bash_id, edit_id) = (tool_use_id(&tools, "Bash"), tool_use_id(&tools, "Edit"));
    session.fake.push(tools);
    session
        .fake
        .push(Turn::text("Review: README.md line 3 reads well."));

    let out = run(agentguard(
        &session.env,
        &["launch", "--read-only", "claude", "--", "-p", prompt],
    ));
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(out.stdout.contains("Review: README.md"), "{}", out.output());

    let turns = session.turns(prompt);
    assert_eq!(turns.len(), 2, "the tool calls, then the review");
    let bash = tool_result(&turns[1], &bash_id);
    assert_eq!(bash["is_error"], true, "{bash}");
    let bash_text = tool_result_text(&bash);
    for expected in [
        "agentguard denied this call: `git commit` changes git state",
        "AGENTGUARD_ROLE=read-only",
        READ_ONLY_RULE,
        "not an obstacle to route around",
    ] {
        assert!(bash_text.contains(expected), "{expected}: {bash_text}");
    }
    // The launch took Edit away from the model; Claude Code itself refuses the call.
    let edit = tool_result(&turns[1], &edit_id);
    assert_eq!(edit["is_error"], true, "{edit}");
    assert!(tool_result_text(&edit).contains("Edit"), "{edit}");
    assert!(!turns[0].tool_names().iter().any(|t| t == "Edit"));

    // The hook alone (role from the environment, Edit still offered) denies the edit with our
    // explanation.
    let prompt_hook = "ZZE2E-3b review the pending change";
    let edit_turn = Turn::tool_use("Edit", edit_input);
    let hook_edit_id = tool_use_id(&edit_turn, "Edit");
    session.fake.push(edit_turn);
    session.fake.push(Turn::text("Review: nothing to add."));
    let mut cmd = isolated(&session.env, session.claude(), &["-p", prompt_hook]);
    cmd.env("AGENTGUARD_ROLE", "read-only");
    let out = run(cmd);
    assert_eq!(out.code, Some(0), "{}", out.output());
    let turns = session.turns(prompt_hook);
    assert_eq!(turns.len(), 2);
    assert!(turns[0].tool_names().iter().any(|t| t == "Edit"));
    let edit = tool_result(&turns[1], &hook_edit_id);
    assert_eq!(edit["is_error"], true, "{edit}");
    let edit_text = tool_result_text(&edit);
    for expected in [
        "agentguard denied this call: `Edit` writes files",
        READ_ONLY_RULE,
    ] {
        assert!(edit_text.contains(expected), "{expected}: {edit_text}");
    }

    // Nothing changed: not the file, not the index, not the history.
    assert_eq!(
        std::fs::read_to_string(&readme).unwrap(),
        "# demo\n\nhello, reviewed\n"
    );
    assert_eq!(session.head(), head);
    assert_eq!(git(&session.env, &["status", "--porcelain"]), status);
    assert_eq!(git(&session.env, &["rev-list", "--count", "HEAD"]), "1");

    let records = session.decisions();
    let denials: Vec<(String, String)> = of_event(&records, "PreToolUse")
        .iter()
        .map(|r| {
            (
                r["action"].as_str().unwrap().to_string(),
                r["rule"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        denials,
        [
            ("deny".to_string(), "read-only:git-write".to_string()),
            ("deny".to_string(), "read-only:edit-tool".to_string()),
        ]
    );
}

/// The real Claude Code with both tools allowed by its own rules: the agent's writes to its
/// guard (the project's `.agentguard.toml`, the user config) are held by the hook alone, and the
/// model hears why. (Claude Code guards its own `.claude/settings*.json` too, with its own
/// message, so those are covered by the hook-level tests in `trust.rs`.)
#[test]
fn the_agent_cannot_write_its_guard_even_where_the_tools_are_allowed() {
    let Some(session) = Session::start(&rules_config()) else {
        return;
    };
    let project_config = session.env.project().join(".agentguard.toml");
    let user_config = session.env.config_file();
    let user_config_before = std::fs::read_to_string(&user_config).unwrap();
    let prompt = "ZZE2E-T1 make the hooks quieter";
    let tools = Turn::tool_use(
        "Write",
        json!({"file_path": project_config.display().to_string(),
               "content": "[pretool]\ndestructive = false\n"}),
    )
    .and_tool_use(
        "Bash",
        json!({"command": "printf '[pretool]\\ndestructive = false\\n' >> ~/.config/agentguard/config.toml",
               "description": "Quieter hooks"}),
    );
    let (write_id, bash_id) = (tool_use_id(&tools, "Write"), tool_use_id(&tools, "Bash"));
    session.fake.push(tools);
    session
        .fake
        .push(Turn::text("I left the hooks as they are."));
    let out = session.run_claude(&["-p", prompt, "--allowedTools", "Bash,Write"]);
    assert_eq!(out.code, Some(0), "{}", out.output());
    let turns = session.turns(prompt);
    assert_eq!(turns.len(), 2, "the tool calls, then the answer");
    for id in [&write_id, &bash_id] {
        let result = tool_result(&turns[1], id);
        assert_eq!(result["is_error"], true, "{result}");
        let text = tool_result_text(&result);
        assert!(text.contains("does not edit its own guard"), "{text}");
    }
    assert!(!project_config.exists());
    assert_eq!(
        std::fs::read_to_string(&user_config).unwrap(),
        user_config_before
    );
    let held: Vec<String> = of_event(&session.decisions(), "PreToolUse")
        .iter()
        .map(|r| {
            format!(
                "{}:{}",
                r["action"].as_str().unwrap(),
                r["rule"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(held, ["ask:protected-file", "ask:protected-file"]);
}

/// A stdio MCP server with two tools, `search` and `publish`; every call it receives is appended
/// to `calls`.
const MCP_SERVER: &str = r#"
import json, sys
calls = sys.argv[1]
for line in sys.stdin:
    message = json.loads(line)
    method, id_ = message.get("method"), message.get("id")
    if id_ is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "docs", "version": "1"}}
    elif method == "tools/list":
        schema = {"type": "object", "properties": {"q": {"type": "string"}}}
        result = {"tools": [{"name": name, "description": name + " the docs", "inputSchema": schema}
                            for name in ("search", "publish")]}
    elif method == "tools/call":
        with open(calls, "a") as f:
            f.write(message["params"]["name"] + "\n")
        result = {"content": [{"type": "text", "text": "MCP-RESULT " + message["params"]["name"]}]}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": id_, "result": result}) + "\n")
    sys.stdout.flush()
"#;

/// MCP tools reach the hook through the matcher `install` writes (a regex Claude Code reads
/// unanchored, so it is anchored): in a read-only role the real Claude Code runs the MCP tool the
/// user listed in `[readonly] mcp_readers`, and the hook denies the other with the read-only rule.
#[test]
fn a_read_only_role_calls_only_the_mcp_tools_the_user_listed() {
    let Some(mut session) = Session::start(&format!(
        "{}[readonly]\nmcp_readers = [\"mcp__docs__search\"]\n",
        rules_config()
    )) else {
        return;
    };
    let calls = session.env.dir.path().join("mcp-calls");
    let server = session.env.write("mcp-server.py", MCP_SERVER);
    let mcp_config = session.env.write(
        "mcp.json",
        json!({"mcpServers": {"docs": {"command": "/usr/bin/python3",
            "args": [server.display().to_string(), calls.display().to_string()]}}})
        .to_string(),
    );
    session.env.set("AGENTGUARD_ROLE", "read-only");
    let prompt = "ZZE2E-M1 look it up";
    let tools = Turn::tool_use("mcp__docs__search", json!({"q": "hooks"}))
        .and_tool_use("mcp__docs__publish", json!({"q": "hooks"}));
    let (search_id, publish_id) = (
        tool_use_id(&tools, "mcp__docs__search"),
        tool_use_id(&tools, "mcp__docs__publish"),
    );
    session.fake.push(tools);
    session.fake.push(Turn::text("Looked it up."));
    let config = mcp_config.display().to_string();
    let out = session.run_claude(&[
        "-p",
        prompt,
        "--mcp-config",
        &config,
        "--strict-mcp-config",
        "--allowedTools",
        "mcp__docs__search,mcp__docs__publish",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.output());
    let turns = session.turns(prompt);
    assert_eq!(turns.len(), 2, "the tool calls, then the answer");
    let search = tool_result(&turns[1], &search_id);
    assert!(
        tool_result_text(&search).contains("MCP-RESULT search"),
        "{search}"
    );
    let publish = tool_result(&turns[1], &publish_id);
    assert_eq!(publish["is_error"], true, "{publish}");
    let text = tool_result_text(&publish);
    assert!(
        text.contains("not listed in [readonly] mcp_readers"),
        "{text}"
    );
    assert!(text.contains(READ_ONLY_RULE), "{text}");
    assert_eq!(std::fs::read_to_string(&calls).unwrap(), "search\n");
    let rules: Vec<String> = of_event(&session.decisions(), "PreToolUse")
        .iter()
        .map(|r| {
            format!(
                "{}:{}",
                r["action"].as_str().unwrap(),
                r["rule"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(rules, ["allow:", "deny:read-only:mcp-tool"]);
}

// --- 4. the loop guard ends a blocking loop before Claude Code's cap -----------------------------

/// Runs a session whose model proposes each of `proposals` in turn, unverified, with stream-json
/// output; returns the run, the model calls and the Stop records.
fn loop_session(
    max_blocks: u32,
    proposals: &[&str],
) -> Option<(Outcome, Vec<Request>, Vec<Value>)> {
    let config = format!(
        "{}\n[stop]\nmax_blocks_per_turn = {max_blocks}\n",
        rules_config()
    );
    let session = Session::start(&config)?;
    for proposal in proposals {
        session.fake.push(Turn::text(*proposal));
    }
    let prompt = format!("ZZE2E-4 finish the refactor ({max_blocks})");
    let out = session.run_claude(&["-p", &prompt, "--output-format", "stream-json", "--verbose"]);
    assert_eq!(out.code, Some(0), "{}", out.output());
    let turns = session.turns(&prompt);
    let stops = of_event(&session.decisions(), "Stop")
        .into_iter()
        .cloned()
        .collect();
    Some((out, turns, stops))
}

/// The lines Claude Code showed the user from hooks' `systemMessage`, in its stream-json.
fn shown_hook_messages(stream: &str) -> Vec<String> {
    stream
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "system" && e["subtype"] == "informational")
        .filter_map(|e| e["content"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn loop_guard_releases_a_rephrased_proposal_at_the_turn_limit() {
    // Eight different unverified proposals: without the loop guard, Claude Code would end the
    // turn only at its own cap of 8 blocks.
    let proposals = [
        "The refactor is complete. Shall I commit it now?",
        "Ready to push the branch to origin?",
        "Let me go ahead and deploy it to staging.",
        "Shall I merge the pull request now?",
        "I can publish the release now, ok?",
        "Shall I tag the release now?",
        "Ready to push to main?",
        "Let me commit this right away.",
        "Shall I deploy to production?",
    ];
    let Some((out, turns, stops)) = loop_session(3, &proposals) else {
        return;
    };
    assert_eq!(turns.len(), 4, "limit + 1 model calls");
    assert_eq!(
        actions(&stops.iter().collect::<Vec<_>>()),
        ["block", "block", "block", "release"]
    );
    let release = &stops[3];
    assert_eq!(release["release"], "turn-limit");
    assert_eq!(release["verdict"], "violation");
    let message = release["message"].as_str().unwrap();
    assert!(message.contains("already blocked 3 time(s)"), "{message}");
    // Claude Code showed it to the user, as a line from the Stop hook.
    let shown = shown_hook_messages(&out.stdout);
    assert_eq!(shown, [format!("Stop says: {message}")], "{}", out.stdout);
    // The run ended on the fourth proposal, the result says so.
    let result = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "result")
        .expect("a result event");
    assert_eq!(result["result"], proposals[3], "{result}");
}

#[test]
fn loop_guard_releases_the_same_proposal_repeated_after_one_block() {
    let proposal = "The refactor is complete. Shall I commit it now?";
    let Some((out, turns, stops)) = loop_session(3, &[proposal; 9]) else {
        return;
    };
    assert_eq!(turns.len(), 2, "one block, then the release");
    assert_eq!(
        actions(&stops.iter().collect::<Vec<_>>()),
        ["block", "release"]
    );
    assert_eq!(stops[1]["release"], "repeated");
    let message = stops[1]["message"].as_str().unwrap();
    let shown = shown_hook_messages(&out.stdout);
    assert_eq!(shown, [format!("Stop says: {message}")], "{}", out.stdout);
}

// --- 5. a claude judge does not run our hook again ------------------------------------------------

#[test]
fn a_claude_judge_does_not_run_the_hook_again_and_its_verdict_comes_back() {
    let Some(cli_dir) = support::agent_cli_dir("claude") else {
        return;
    };
    let Some(session) = Session::start(&rules_config()) else {
        return;
    };
    // The judge's own isolation (`--setting-sources ""`, hooks disabled) would hide a broken
    // recursion guard: these args load the project's settings again, with our hooks in them,
    // so only AGENTGUARD_JUDGE_ACTIVE stands between the judge's Stop and our hook.
    let settings = session.env.project().join(".claude/settings.json");
    session.env.write_config(&format!(
        "[judge]\nbackend = \"claude\"\ncascade = \"llm-only\"\ndeadline_ms = 60000\n\n[judge.claude]\nbinary = \"{}\"\n\
         args = [\"--settings\", \"{}\"]\n",
        cli_dir.join("claude").display(),
        settings.display()
    ));
    let prompt = "ZZE2E-5 finish the branch";
    let text = "Both branches are ready. Shall I push now, or keep it local until you review?";
    session.fake.push(Turn::text(text));
    // The judge answers through the StructuredOutput tool that `--json-schema` offers it; the
    // rules judge would call this text a violation, the scripted judge says it asks the user.
    session.fake.push_when(
        JUDGE_MARKER,
        Turn::tool_use(
            "StructuredOutput",
            json!({
                "new_proposal": true,
                "verification_reported": false,
                "direction_query": true,
                "future_step_description": false,
                "reason": "ZZJUDGE asks the user to choose"
            }),
        ),
    );

    let out = session.run_claude(&["-p", prompt]);
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert_eq!(session.turns(prompt).len(), 1);

    let judge_calls: Vec<Request> = session
        .fake
        .message_requests()
        .into_iter()
        .filter(|r| r.body.to_string().contains(JUDGE_MARKER))
        .collect();
    assert_eq!(judge_calls.len(), 1, "one judge call, no recursion");
    let judge_call = &judge_calls[0];
    let wrapped = first_user_text(judge_call);
    let begin = wrapped.find(JUDGE_MARKER).expect("begin marker");
    let end = wrapped.find("AGENT-TEXT-END").expect("end marker");
    assert!(wrapped[begin..end].contains(text), "{wrapped}");
    assert!(
        judge_call
            .tool_names()
            .iter()
            .any(|t| t == "StructuredOutput")
    );
    let judge_session = session_id(judge_call);

    let records = session.decisions();
    let stops = of_event(&records, "Stop");
    assert_eq!(stops.len(), 1, "{records:#?}");
    let outer_session = session_id(&session.turns(prompt)[0]);
    assert_eq!(stops[0]["session"], outer_session.as_str());
    assert_ne!(judge_session, outer_session);
    assert!(
        records
            .iter()
            .all(|r| r["session"] != judge_session.as_str()),
        "the judge's session ran our hook: {records:#?}"
    );
    // The verdict came back from the claude judge.
    let commit = &stops[0]["detectors"][0];
    assert_eq!(commit["backend"], "claude");
    assert_eq!(commit["fields"]["direction_query"], true);
    assert_eq!(commit["reason"], "ZZJUDGE asks the user to choose");
    assert_eq!(stops[0]["action"], "allow");
}

/// The session id Claude Code puts in the request metadata.
fn session_id(request: &Request) -> String {
    let user: Value =
        serde_json::from_str(request.body["metadata"]["user_id"].as_str().unwrap()).unwrap();
    user["session_id"].as_str().unwrap().to_string()
}

// --- 6. the codex judge ----------------------------------------------------------------------------

const VIOLATION: &str = r#"{"new_proposal": true, "verification_reported": false, "direction_query": false, "future_step_description": false, "reason": "ZZCODEX unverified push"}"#;
const ALLOWED: &str = r#"{"new_proposal": true, "verification_reported": true, "direction_query": false, "future_step_description": false, "reason": "ZZCODEX evidence given"}"#;

/// `agentguard judge --backend codex --json` on a push proposal, codex pointed at `fake`.
fn codex_judge(env: &Env, fake: &FakeOpenAi, codex: &Path, deadline_ms: u64) -> (Outcome, Value) {
    let args: Vec<String> = fake
        .codex_provider_args()
        .iter()
        .map(|a| format!("{a:?}"))
        .collect();
    env.write_config(&format!(
        "[judge]\nbackend = \"rules\"\ncascade = \"llm-only\"\ndeadline_ms = {deadline_ms}\n\n[judge.codex]\nbinary = \"{}\"\nargs = [{}]\n",
        codex.display(),
        args.join(", ")
    ));
    let out = run_with_stdin(
        agentguard(
            env,
            &[
                "judge",
                "--backend",
                "codex",
                "--detector",
                "commit",
                "--json",
            ],
        ),
        Some("The branch is ready. Let me push it to origin now."),
    );
    let report = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|err| panic!("not JSON ({err}): {}", out.output()));
    (out, report)
}

/// Processes still running with this HOME in their environment.
fn processes_with_home(home: &Path) -> Vec<String> {
    let needle = format!("HOME={}", home.display());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| {
            std::fs::read_to_string(e.path().join("stat"))
                .map(|stat| !stat.contains(") Z "))
                .unwrap_or(false)
        })
        .filter(|e| {
            std::fs::read(e.path().join("environ"))
                .map(|env| env.split(|b| *b == 0).any(|v| v == needle.as_bytes()))
                .unwrap_or(false)
        })
        .map(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).replace('\0', " ")
        })
        .collect()
}

/// SIGKILL is asynchronous: give the kernel a moment before calling a process a survivor.
fn assert_no_process_left(home: &Path) {
    let gone_by = Instant::now() + Duration::from_secs(5);
    let mut left = processes_with_home(home);
    while !left.is_empty() && Instant::now() < gone_by {
        std::thread::sleep(Duration::from_millis(50));
        left = processes_with_home(home);
    }
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn codex_judge_verdicts_failures_and_no_process_left_behind() {
    let Some(cli_dir) = support::agent_cli_dir("codex") else {
        return;
    };
    let codex = cli_dir.join("codex");
    let mut env = Env::new();
    env.set("FAKE_KEY", "dummy");
    // The leftover check sees a process of this HOME while it runs.
    let mut sleeper = isolated(&env, "sleep", &["30"]).spawn().unwrap();
    let seen = processes_with_home(&env.home());
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
    assert!(seen.iter().any(|p| p.starts_with("sleep 30")), "{seen:?}");
    let fake = FakeOpenAi::start(OpenAiMode::Reply(VIOLATION.into()));

    let (out, report) = codex_judge(&env, &fake, &codex, 60000);
    assert_eq!(out.code, Some(1), "{}", out.output());
    let commit = &report["detectors"][0];
    assert_eq!(report["verdict"], "violation", "{report}");
    assert_eq!(commit["backend"], "codex");
    assert_eq!(commit["reason"], "ZZCODEX unverified push");
    let request = fake.model_requests().pop().expect("codex called the fake");
    let body = request.body.to_string();
    assert!(
        body.contains(JUDGE_MARKER) && body.contains("Let me push it to origin now."),
        "the wrapped prompt: {body}"
    );
    let schema = &request.body["text"]["format"];
    assert_eq!(schema["type"], "json_schema", "{}", request.body["text"]);
    assert!(
        schema["schema"]["properties"]["verification_reported"].is_object(),
        "{schema}"
    );
    assert_no_process_left(&env.home());

    fake.set_mode(OpenAiMode::Reply(ALLOWED.into()));
    let (out, report) = codex_judge(&env, &fake, &codex, 60000);
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert_eq!(report["verdict"], "allow", "{report}");
    assert_eq!(report["detectors"][0]["reason"], "ZZCODEX evidence given");

    // A 5xx fails at once: with retries off codex exits after one call, well before a deadline
    // (15 s, roomy for a loaded machine) that its default retries (~25 s) would have hit.
    fake.set_mode(OpenAiMode::ServerError(500));
    let calls = fake.model_requests().len();
    let (out, report) = codex_judge(&env, &fake, &codex, 15000);
    assert_eq!(out.code, Some(3), "could not judge: {}", out.output());
    assert_eq!(report["verdict"], "fail", "{report}");
    assert_eq!(report["detectors"][0]["error_cause"], "exit", "{report}");
    assert_eq!(fake.model_requests().len(), calls + 1, "one call, no retry");
    assert_no_process_left(&env.home());

    // A hang is cut at the deadline, and the whole codex process group with it.
    fake.set_mode(OpenAiMode::Slow(Duration::from_secs(90), ALLOWED.into()));
    let calls = fake.model_requests().len();
    let (out, report) = codex_judge(&env, &fake, &codex, 5000);
    assert_eq!(out.code, Some(3), "could not judge: {}", out.output());
    assert_eq!(report["verdict"], "fail", "{report}");
    assert_eq!(report["detectors"][0]["error_cause"], "timeout", "{report}");
    assert!(
        fake.model_requests().len() > calls,
        "codex reached the fake"
    );
    assert_no_process_left(&env.home());
}

// --- 7. a settings file with comments: what the real Claude Code does with it -----------------

/// Evidence for refusing `//` comments: the pinned Claude Code (2.1.332) ignores a settings
/// file that holds one (its Stop hook does not run), while the same file without the comment
/// runs it. So agentguard refuses to add hooks there, and says why.
#[test]
fn claude_ignores_a_settings_file_with_comments_so_install_refuses_it() {
    let Some(cli_dir) = support::agent_cli_dir("claude") else {
        return;
    };
    let mut env = Env::new();
    env.path_prefix.push(cli_dir.clone());
    let fake = FakeAnthropic::start();
    for (key, value) in fake.claude_env() {
        env.set(&key, value);
    }
    let marker = env.dir.path().join("stop-hook-ran");
    let hook = format!(
        "\"hooks\": {{\"Stop\": [{{\"hooks\": [{{\"type\": \"command\", \"command\": \"touch {}\"}}]}}]}}",
        marker.display()
    );
    let settings = env.project().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let claude = cli_dir.join("claude");

    std::fs::write(
        &settings,
        format!("{{\n  // the team's hooks\n  {hook}\n}}\n"),
    )
    .unwrap();
    let out = run(isolated(&env, &claude, &["-p", "ZZCOMMENT-1 hello"]));
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(
        !marker.exists(),
        "Claude Code ran a hook from a settings file with a comment"
    );
    let refused = run(agentguard(
        &env,
        &["install", "--scope", "project", "--yes"],
    ));
    assert_eq!(refused.code, Some(2), "{}", refused.output());
    assert!(
        refused
            .stderr
            .contains("settings.json:2:3: invalid JSON: a comment")
            && refused.stderr.contains("ignores a file with comments"),
        "{}",
        refused.output()
    );

    std::fs::write(&settings, format!("{{\n  {hook}\n}}\n")).unwrap();
    let out = run(isolated(&env, &claude, &["-p", "ZZCOMMENT-2 hello"]));
    assert_eq!(out.code, Some(0), "{}", out.output());
    assert!(
        marker.exists(),
        "the control run, without the comment, runs the hook"
    );
}
