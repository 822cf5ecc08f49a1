//! `agentguard hook stop|pre-tool`: the entry points the agent host calls.
//!
//! A hook always exits 0 and answers on stdout; every failure is answered in its direction:
//! Stop fails open (the stop goes through, and the user is told why in one line), PreToolUse
//! fails safe (`ask` on Claude Code, `deny` on Codex). A panic obeys the same rule.

use std::io::Write;

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::backends;
use crate::cli::{HookArgs, HookCommand, Host};
use crate::config::Config;
use crate::detectors::{Detectors, Event};
use crate::error::Result;
use crate::hook::{self, HookInput, Permission};
use crate::log::Record;
use crate::loopguard::{self, Guard, LoopGuard};
use crate::pipeline::{self, Judgement, Verdict, Window};
use crate::redact::Redactor;
use crate::shell::{self, ReadOnlyVerdict};

/// Set by agentguard on every judge subprocess: a hook that sees it allows at once.
const JUDGE_ACTIVE: &str = backends::process::JUDGE_ACTIVE_VAR;
/// The user's kill switch.
const DISABLE: &str = "AGENTGUARD_DISABLE";
/// Fault injection for tests of the failure direction: `panic` makes the hook panic.
const FAULT: &str = "AGENTGUARD_FAULT";
/// Marks the hook's own process as a read-only reviewer (set by `agentguard launch`).
const ROLE: &str = "AGENTGUARD_ROLE";

const READONLY_RULE: &str = include_str!("../../assets/readonly-rule.md");

pub fn run(hook: HookCommand) -> Result<u8> {
    let (kind, args) = match hook {
        HookCommand::Stop(args) => (Kind::Stop, args),
        HookCommand::PreTool(args) => (Kind::PreTool, args),
    };
    if env_is(JUDGE_ACTIVE, "1") || env_is(DISABLE, "1") {
        return Ok(0);
    }
    let answer = guarded(kind, &args);
    if let Some(answer) = answer {
        let mut stdout = std::io::stdout().lock();
        // The host may have gone away; there is no one left to tell.
        let _ = writeln!(stdout, "{answer}");
        let _ = stdout.flush();
    }
    Ok(0)
}

#[derive(Clone, Copy)]
enum Kind {
    Stop,
    PreTool,
}

fn env_is(var: &str, value: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == value)
}

/// Runs the hook, turning a panic into the failure direction's answer.
fn guarded(kind: Kind, args: &HookArgs) -> Option<Value> {
    std::panic::set_hook(Box::new(|_| {}));
    let host = args.host;
    let result = std::panic::catch_unwind(|| {
        if env_is(FAULT, "panic") {
            panic!("fault injected by {FAULT}=panic");
        }
        let input = hook::read_input(std::io::stdin().lock());
        match kind {
            Kind::Stop => stop(host, input),
            Kind::PreTool => pre_tool(host, input),
        }
    });
    result.unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let why = format!("internal error ({what})");
        Some(match kind {
            Kind::Stop => hook::system_message(&unjudged_stop(&why)),
            Kind::PreTool => hook::pre_tool(host, Permission::Ask, &unjudged_tool(&why)),
        })
    })
}

fn unjudged_stop(why: &str) -> String {
    format!("agentguard: this stop went through unjudged: {why}")
}

fn unjudged_tool(why: &str) -> String {
    format!("agentguard could not check this tool call ({why}), so it needs your approval")
}

fn host_name(host: Host) -> &'static str {
    match host {
        Host::Claude => "claude",
        Host::Codex => "codex",
    }
}

fn event_name(input: &HookInput, default: &str) -> String {
    input
        .hook_event_name
        .clone()
        .unwrap_or_else(|| default.to_string())
}

/// The config for the hook's project; a broken config is reported, not fatal to the host.
fn load(input: &HookInput) -> std::result::Result<(Config, Detectors), String> {
    let config = Config::load(input.cwd.as_deref()).map_err(|err| err.message)?;
    let detectors = Detectors::load(&config).map_err(|err| err.message)?;
    Ok((config, detectors))
}

fn base_record(host: Host, event: &str, input: &HookInput) -> Record {
    let mut record = Record::now(host_name(host), event);
    record.session = input.session_id.clone();
    record.turn = input.turn().map(str::to_string);
    record.cwd = input.cwd.as_ref().map(|p| p.display().to_string());
    record.tool = input.tool_name.clone();
    record.agent_type = input.agent_type.clone();
    record
}

/// Appends the record; a log that cannot be written must not break the hook.
fn write_log(config: Option<&Config>, record: &Record) {
    let enabled = config.is_none_or(|c| c.log.enabled);
    if !enabled {
        return;
    }
    let dir = config
        .and_then(|c| c.log.dir.clone())
        .or_else(crate::paths::log_dir);
    let retention = config.map_or(30, |c| c.log.retention_days);
    if let Some(dir) = dir {
        let _ = crate::log::append(&dir, record, retention);
    }
}

/// The log keeps at most this much of a judged text (its end, where the final words are):
/// enough to replay a decision, small enough that a day of stops stays a few MB.
const LOG_TEXT_MAX_BYTES: usize = 32 * 1024;

/// Records the text's hash and, with `log.store_text`, its redacted end.
fn store_text(config: &Config, record: &mut Record, text: &str) {
    record.text_sha256 = Some(crate::text::sha256_hex(text));
    if config.log.store_text {
        let redacted = Redactor::builtin().redact(crate::text::tail(text, LOG_TEXT_MAX_BYTES));
        for (kind, count) in &redacted.counts {
            *record.redactions.entry(kind.clone()).or_default() += count;
        }
        record.text = Some(redacted.text);
    }
}

// ---------------------------------------------------------------------------------------------
// Stop

fn stop(host: Host, input: std::result::Result<HookInput, String>) -> Option<Value> {
    let started = Instant::now();
    let input = match input {
        Ok(input) => input,
        Err(why) => {
            let message = unjudged_stop(&why);
            let mut record = Record::now(host_name(host), "Stop");
            record.verdict = "fail".into();
            record.action = "allow".into();
            record.error = Some(why);
            record.message = Some(message.clone());
            write_log(None, &record);
            return Some(hook::system_message(&message));
        }
    };
    let event = event_name(&input, "Stop");
    let mut record = base_record(host, &event, &input);
    let (config, detectors) = match load(&input) {
        Ok(loaded) => loaded,
        Err(why) => {
            let message = unjudged_stop(&why);
            record.verdict = "fail".into();
            record.action = "allow".into();
            record.error = Some(why);
            record.message = Some(message.clone());
            write_log(None, &record);
            return Some(hook::system_message(&message));
        }
    };
    let answer = judge_stop(&input, &config, &detectors, &mut record);
    record.latency_ms = started.elapsed().as_millis() as u64;
    write_log(Some(&config), &record);
    answer
}

fn judge_stop(
    input: &HookInput,
    config: &Config,
    detectors: &Detectors,
    record: &mut Record,
) -> Option<Value> {
    let (turn_text, transcript_error) = match input.judged_transcript() {
        Some(path) => match crate::transcript::current_turn_text(path, config.stop.scan_bytes) {
            Ok(text) => (Some(text), None),
            Err(err) => (
                None,
                Some(format!(
                    "cannot read the transcript {}: {err}",
                    path.display()
                )),
            ),
        },
        None => (None, None),
    };
    let text = crate::transcript::stop_text(turn_text, input.last_assistant_message.as_deref());
    let text = crate::text::tail(&text, config.stop.scan_bytes).to_string();
    if text.trim().is_empty() {
        record.verdict = "allow".into();
        record.action = "allow".into();
        if let Some(why) = transcript_error {
            // Nothing to judge and no transcript: say so, once, instead of judging nothing.
            let message = unjudged_stop(&why);
            record.verdict = "fail".into();
            record.error = Some(why);
            record.message = Some(message.clone());
            return Some(hook::system_message(&message));
        }
        return None;
    }
    store_text(config, record, &text);
    let selected = match detectors.select(Event::Stop, &[]) {
        Ok(selected) => selected,
        Err(err) => return Some(stop_failed(record, err.message)),
    };
    record.detectors_run = selected.iter().map(|d| d.name.clone()).collect();
    let window = Window {
        bytes: config.stop.window_bytes,
        ..Window::default()
    };
    let timeout = Duration::from_millis(config.judge.deadline_ms);
    let judged = pipeline::Pipeline::new(selected).and_then(|pipeline| {
        pipeline.judge(&text, window, || backends::select(config, None), timeout)
    });
    let judgement = match judged {
        Ok(judgement) => judgement,
        Err(err) => return Some(stop_failed(record, err.message)),
    };
    record.set_judgement(&judgement);
    decide_stop(input, config, detectors, &judgement, &text, record)
}

fn stop_failed(record: &mut Record, why: String) -> Value {
    let message = unjudged_stop(&why);
    record.verdict = "fail".into();
    record.action = "allow".into();
    record.error = Some(why);
    record.message = Some(message.clone());
    hook::system_message(&message)
}

fn decide_stop(
    input: &HookInput,
    config: &Config,
    detectors: &Detectors,
    judgement: &Judgement,
    text: &str,
    record: &mut Record,
) -> Option<Value> {
    let violations: Vec<_> = judgement.violations().collect();
    if violations.is_empty() {
        record.action = "allow".into();
        let failures: Vec<_> = judgement.failures().collect();
        if failures.is_empty() {
            return None;
        }
        let why = failures
            .iter()
            .map(|o| {
                format!(
                    "the {} judge failed for `{}` ({})",
                    o.backend.as_deref().unwrap_or("configured"),
                    o.detector,
                    o.error.as_deref().unwrap_or("unknown error")
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        let message = unjudged_stop(&why);
        record.error = Some(why);
        record.message = Some(message.clone());
        return Some(hook::system_message(&message));
    }
    let findings: Vec<String> = violations
        .iter()
        .map(|o| {
            format!(
                "{}:{}",
                o.detector,
                detectors
                    .get(&o.detector)
                    .and_then(|d| o.passage_fingerprint(d, text))
                    .unwrap_or_default()
            )
        })
        .collect();
    let state_dir = crate::paths::state_dir().map(|d| d.join("sessions"));
    let mut guard = LoopGuard::load(
        state_dir.as_deref(),
        input.session_id.as_deref(),
        input.turn(),
        input.stop_hook_active.unwrap_or(false),
    );
    match guard.check(&findings, config.stop.max_blocks_per_turn) {
        Guard::Block => {
            guard.record_block(&findings);
            if let Err(err) = guard.save() {
                record.error = Some(format!("cannot save the loop-guard state: {err}"));
            }
            if let Some(dir) = &state_dir
                && rand_percent() < 2
            {
                loopguard::clean_old_state(dir);
            }
            let reason = violations
                .iter()
                .map(|o| {
                    detectors
                        .get(&o.detector)
                        .map(|d| d.feedback.trim().to_string())
                        .unwrap_or_else(|| format!("agentguard: `{}` found a problem.", o.detector))
                })
                .collect::<Vec<_>>()
                .join("\n\n");
            record.action = "block".into();
            record.message = Some(reason.clone());
            Some(hook::stop_block(&reason, None))
        }
        Guard::Release(release) => {
            let message = release.message();
            record.action = "release".into();
            record.release = Some(release.label().into());
            record.message = Some(message.clone());
            Some(hook::system_message(&message))
        }
    }
}

/// A cheap 0..100 draw, to spread housekeeping over hook calls.
fn rand_percent() -> u64 {
    u64::from_str_radix(&crate::pipeline::wrap::nonce()[..4], 16).unwrap_or(0) % 100
}

// ---------------------------------------------------------------------------------------------
// PreToolUse

/// Tools that write files directly.
const EDIT_TOOLS: [&str; 5] = ["Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"];

fn pre_tool(host: Host, input: std::result::Result<HookInput, String>) -> Option<Value> {
    let started = Instant::now();
    let input = match input {
        Ok(input) => input,
        Err(why) => {
            let reason = unjudged_tool(&why);
            let mut record = Record::now(host_name(host), "PreToolUse");
            record.verdict = "fail".into();
            record.action = fail_safe_action(host).into();
            record.error = Some(why);
            record.message = Some(reason.clone());
            write_log(None, &record);
            return Some(hook::pre_tool(host, Permission::Ask, &reason));
        }
    };
    let mut record = base_record(host, &event_name(&input, "PreToolUse"), &input);
    let (config, detectors) = match load(&input) {
        Ok(loaded) => loaded,
        Err(why) => {
            let reason = unjudged_tool(&why);
            record.verdict = "fail".into();
            record.action = fail_safe_action(host).into();
            record.error = Some(why);
            record.message = Some(reason.clone());
            write_log(None, &record);
            return Some(hook::pre_tool(host, Permission::Ask, &reason));
        }
    };
    let answer = decide_tool(host, &input, &config, &detectors, &mut record);
    record.latency_ms = started.elapsed().as_millis() as u64;
    write_log(Some(&config), &record);
    answer
}

fn fail_safe_action(host: Host) -> &'static str {
    match host {
        Host::Claude => "ask",
        Host::Codex => "deny",
    }
}

/// Whether the agent calling this tool is a read-only reviewer.
fn read_only_role(input: &HookInput, config: &Config) -> Option<String> {
    if env_is(ROLE, "read-only") {
        return Some(format!("{ROLE}=read-only"));
    }
    if let Some(agent_type) = &input.agent_type
        && config.readonly.agent_types.iter().any(|t| t == agent_type)
    {
        return Some(format!(
            "agent type `{agent_type}` is read-only in [readonly] agent_types"
        ));
    }
    config
        .readonly
        .project
        .then(|| "[readonly] project = true".to_string())
}

fn decide_tool(
    host: Host,
    input: &HookInput,
    config: &Config,
    detectors: &Detectors,
    record: &mut Record,
) -> Option<Value> {
    let tool = input.tool_name.as_deref().unwrap_or("");
    let command = input.command();
    if let Some(text) = command {
        store_text(config, record, text);
    }
    // One parse serves both the read-only verdict and the destructive views.
    let analysis = command.map(shell::analyze);
    if let Some(role) = read_only_role(input, config) {
        let verdict = if EDIT_TOOLS.contains(&tool) {
            Some(("edit-tool".to_string(), format!("`{tool}` writes files")))
        } else {
            let verdict = match &analysis {
                Some(Ok(analysis)) => analysis.read_only_verdict(),
                Some(Err(err)) => ReadOnlyVerdict::Deny {
                    kind: err.kind,
                    detail: err.detail.clone(),
                },
                None => ReadOnlyVerdict::Allow,
            };
            match verdict {
                ReadOnlyVerdict::Allow => None,
                ReadOnlyVerdict::Deny { kind, detail } => Some((
                    kind.as_str().to_string(),
                    format!("`{detail}` {}", kind.describe()),
                )),
            }
        };
        if let Some((rule, what)) = verdict {
            let reason = format!(
                "agentguard denied this call: {what}, and this step is read-only ({role}).\n\n{}",
                READONLY_RULE.trim()
            );
            record.verdict = "violation".into();
            record.action = "deny".into();
            record.rule = Some(format!("read-only:{rule}"));
            record.message = Some(reason.clone());
            return Some(hook::pre_tool(host, Permission::Deny, &reason));
        }
    }
    let Some(command) = command.filter(|_| config.pretool.destructive) else {
        record.verdict = "allow".into();
        record.action = "allow".into();
        return None;
    };
    // Layer 1 runs over each normalized view of the parsed command; a command that does not
    // parse is matched as written.
    let views = match &analysis {
        Some(Ok(analysis)) => analysis.views().to_vec(),
        _ => vec![command.to_string()],
    };
    gate_destructive(host, &views.join("\n"), config, detectors, record)
}

fn gate_destructive(
    host: Host,
    text: &str,
    config: &Config,
    detectors: &Detectors,
    record: &mut Record,
) -> Option<Value> {
    let selected = match detectors.select(Event::PreTool, &[]) {
        Ok(selected) if !selected.is_empty() => selected,
        _ => {
            record.verdict = "allow".into();
            record.action = "allow".into();
            return None;
        }
    };
    record.detectors_run = selected.iter().map(|d| d.name.clone()).collect();
    let result = pipeline::Pipeline::new(selected.clone()).and_then(|pipeline| {
        if config.pretool.judge {
            let timeout = Duration::from_millis(config.judge.deadline_ms);
            pipeline.judge(
                text,
                Window::default(),
                || backends::select(config, None),
                timeout,
            )
        } else {
            pipeline
                .layer1(text)
                .map(|layer1| layer1_only(&selected, layer1))
        }
    });
    let judgement = match result {
        Ok(judgement) => judgement,
        Err(err) => {
            let reason = unjudged_tool(&err.message);
            record.verdict = "fail".into();
            record.action = fail_safe_action(host).into();
            record.error = Some(err.message);
            record.message = Some(reason.clone());
            return Some(hook::pre_tool(host, Permission::Ask, &reason));
        }
    };
    record.set_judgement(&judgement);
    let flagged: Vec<_> = judgement
        .detectors
        .iter()
        .filter(|o| matches!(o.verdict, Verdict::Violation | Verdict::Fail))
        .collect();
    if flagged.is_empty() {
        record.action = "allow".into();
        return None;
    }
    let reason = flagged
        .iter()
        .map(|o| match o.verdict {
            Verdict::Fail => unjudged_tool(o.error.as_deref().unwrap_or("the judge failed")),
            _ => detectors
                .get(&o.detector)
                .map(|d| d.feedback.trim().to_string())
                .unwrap_or_default(),
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    record.action = fail_safe_action(host).into();
    record.rule = Some(
        flagged
            .iter()
            .map(|o| o.detector.as_str())
            .collect::<Vec<_>>()
            .join(","),
    );
    record.message = Some(reason.clone());
    Some(hook::pre_tool(host, Permission::Ask, &reason))
}

/// A judgement from Layer 1 alone: a hit is a violation (the gate asks), a skip allows.
fn layer1_only(
    detectors: &[&crate::detectors::Detector],
    layer1: Vec<pipeline::Layer1>,
) -> Judgement {
    let outcomes = detectors
        .iter()
        .zip(layer1)
        .map(|(detector, result)| pipeline::Outcome::from_layer1(detector, result))
        .collect();
    Judgement::from_outcomes(outcomes)
}
