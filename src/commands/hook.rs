//! `agentguard hook stop|pre-tool`: the entry points the agent host calls.
//!
//! This file does the I/O around `guard`: it reads stdin, the environment, the config and the
//! loop-guard state, asks `guard::stop` / `guard::pre_tool` for the decision, prints its answer
//! and appends the log record. A hook always exits 0; every failure (a panic included) is
//! answered in its direction (`guard::Decision::failed`).

use std::io::Write;
use std::time::{Duration, Instant};

use crate::backends;
use crate::cli::{HookArgs, HookCommand, Host};
use crate::config::{Config, OnBroken};
use crate::deadline::{Deadline, Expiry};
use crate::detectors::{Detectors, Event};
use crate::error::Result;
use crate::guard::stop::{Judged, StopText};
use crate::guard::{self, Action, Decision};
use crate::hook::{self, HookInput};
use crate::log::Record;
use crate::loopguard::{self, LoopGuard};
use crate::notices;
use crate::pipeline::Judge;
use crate::protected::Protected;
use crate::shell;

/// Set by agentguard on every judge subprocess: a hook that sees it allows at once.
const JUDGE_ACTIVE: &str = backends::process::JUDGE_ACTIVE_VAR;
/// The user's kill switch.
const DISABLE: &str = "AGENTGUARD_DISABLE";
/// Fault injection for tests of the failure direction: `panic` makes the hook panic, `stall`
/// makes the PreToolUse decision on a long or nested command never finish (its deadline
/// answers).
const FAULT: &str = "AGENTGUARD_FAULT";

pub fn run(hook: HookCommand) -> Result<u8> {
    let (event, args) = match hook {
        HookCommand::Stop(args) => (Event::Stop, args),
        HookCommand::PreTool(args) => (Event::PreTool, args),
    };
    if env_is(JUDGE_ACTIVE, "1") || env_is(DISABLE, "1") {
        return Ok(0);
    }
    if let Some(answer) = guarded(event, &args) {
        let mut stdout = std::io::stdout().lock();
        // The host may have gone away; there is no one left to tell.
        let _ = writeln!(stdout, "{answer}");
        let _ = stdout.flush();
    }
    Ok(0)
}

fn env_is(var: &str, value: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == value)
}

/// Runs the hook, turning a panic into the failure direction's answer.
fn guarded(event: Event, args: &HookArgs) -> Option<serde_json::Value> {
    std::panic::set_hook(Box::new(|_| {}));
    let host = args.host;
    let result = std::panic::catch_unwind(|| {
        if env_is(FAULT, "panic") {
            panic!("fault injected by {FAULT}=panic");
        }
        let started = Instant::now();
        let default_event = match event {
            Event::Stop => "Stop",
            Event::PreTool => "PreToolUse",
        };
        let input = match hook::read_input(std::io::stdin().lock()) {
            Ok(input) => input,
            Err(why) => {
                let decision = Decision::failed(event, host, why);
                return finish(
                    Record::now(host.name(), default_event),
                    None,
                    decision,
                    host,
                );
            }
        };
        let record = base_record(host, default_event, &input);
        let (config, detectors, notices) = match load(&input, event) {
            Ok(loaded) => loaded,
            Err(why) => return finish(record, None, Decision::failed(event, host, why), host),
        };
        let (mut record, decision) = match event {
            Event::Stop => stop(&input, &config, detectors.as_ref(), record),
            Event::PreTool => match &detectors {
                Some(detectors) => pre_tool(host, &input, &config, detectors, record),
                // `load` builds them for every PreToolUse; fail safe all the same.
                None => {
                    let why = "internal error (the detectors were not loaded)".to_string();
                    (record, Decision::failed(event, host, why))
                }
            },
        };
        record.latency_ms = started.elapsed().as_millis() as u64;
        let answer = notices::attach(finish(record, Some(&config), decision, host), &notices);
        // The process ends right after this answer: freeing the config and the built
        // detectors (thousands of allocations) would cost a tenth of the whole call.
        std::mem::forget((config, detectors));
        answer
    });
    result.unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Decision::failed(event, host, format!("internal error ({what})")).answer(host)
    })
}

/// Logs the decision (with `config`'s log settings, or the defaults when there is none) and
/// returns its answer.
fn finish(
    mut record: Record,
    config: Option<&Config>,
    decision: Decision,
    host: Host,
) -> Option<serde_json::Value> {
    let answer = decision.answer(host);
    record.set_decision(decision);
    crate::log::append_per_config(config.map(|c| &c.log), &record);
    answer
}

/// The config for the hook's project. A broken file falls back to its last good copy or the
/// layers below it; what was held back or broken is told once per session (`notices`).
///
/// A Stop whose config changes no detector gets no detectors here (`None`): the built-ins are
/// built only if Layer 1 may hit (`guard::stop::judge_builtins`).
fn load(
    input: &HookInput,
    event: Event,
) -> std::result::Result<(Config, Option<Detectors>, Vec<String>), String> {
    let loaded = Config::load_with(input.cwd.as_deref(), OnBroken::Fallback, |config| {
        if event == Event::Stop && config.detectors.is_empty() {
            return Ok(None);
        }
        let detectors = Detectors::load_for(&config.detectors, event)?;
        match detectors.trigger_error() {
            Some(err) => Err(crate::error::Error::config(err)),
            None => Ok(Some(detectors)),
        }
    })
    .map_err(|err| err.message)?;
    let messages: Vec<String> = loaded.notes.iter().map(|note| note.message()).collect();
    // The state dir as the load looked it up, only when there is a note to remember.
    let sessions = (!messages.is_empty())
        .then_some(loaded.state)
        .flatten()
        .map(|d| d.join("sessions"));
    let unseen = notices::unseen(sessions.as_deref(), input.session_id.as_deref(), messages);
    Ok((loaded.config, loaded.built, unseen))
}

fn base_record(host: Host, default_event: &str, input: &HookInput) -> Record {
    let event = input.hook_event_name.as_deref().unwrap_or(default_event);
    let mut record = Record::now(host.name(), event);
    record.session = input.session_id.clone();
    record.turn = input.turn().map(str::to_string);
    record.cwd = input.cwd.as_ref().map(|p| p.display().to_string());
    record.tool = input.tool_name.clone();
    record.agent_type = input.agent_type.clone();
    record
}

fn stop(
    input: &HookInput,
    config: &Config,
    detectors: Option<&Detectors>,
    mut record: Record,
) -> (Record, Decision) {
    let transcript = input.judged_transcript().map(|path| {
        crate::transcript::current_turn_text(path, config.stop.scan_bytes)
            .map_err(|err| format!("cannot read the transcript {}: {err}", path.display()))
    });
    let last_message = input.last_assistant_message.as_deref();
    let text = match guard::stop::select_text(transcript, last_message, config.stop.scan_bytes) {
        StopText::Judge(text) => text,
        StopText::Nothing(decision) => return (record, decision),
    };
    record.store_text(&text, config.log.store_text);
    // The turn's tool calls, read only if a detector hits.
    let evidence = crate::evidence::Lazy::new(|| {
        crate::evidence::from_transcript(input.judged_transcript()?, last_message)
    });
    let judge = Judge::from_config(config, None);
    let judged = match detectors {
        Some(detectors) => guard::stop::judge(&text, &judge, detectors, &evidence),
        None => guard::stop::judge_builtins(&text, &judge, &evidence),
    };
    record.evidence = evidence
        .loaded()
        .map(crate::evidence::Evidence::log_summary);
    let violation = match judged {
        Judged::Decided(decision) => return (record, decision),
        Judged::Violation(violation) => violation,
    };
    // The loop-guard state is read only for a violation: most stops never need it.
    let state_dir = crate::paths::state_dir().map(|d| d.join("sessions"));
    let mut loop_guard = LoopGuard::load(
        state_dir.as_deref(),
        input.session_id.as_deref(),
        input.turn(),
        input.stop_hook_active.unwrap_or(false),
    );
    let mut decision = violation.decide(&mut loop_guard, config.stop.max_blocks_per_turn);
    if decision.action == Action::Block {
        if let Err(err) = loop_guard.save() {
            decision.error = Some(format!("cannot save the loop-guard state: {err}"));
        }
        if let Some(dir) = &state_dir
            && rand_percent() < 2
        {
            loopguard::clean_old_state(dir);
        }
    }
    (record, decision)
}

fn pre_tool(
    host: Host,
    input: &HookInput,
    config: &Config,
    detectors: &Detectors,
    mut record: Record,
) -> (Record, Decision) {
    if let Some(command) = input.command() {
        record.store_text(command, config.log.store_text);
    }
    let role = std::env::var(guard::pre_tool::ROLE_VAR).ok();
    let cwd = input.cwd.clone().or_else(|| std::env::current_dir().ok());
    let protected = Protected::locate(cwd.unwrap_or_default(), config.log.dir.clone());
    // A short flat command is analysed in microseconds; any other gets the analysis budget,
    // kept for the whole decision by a deadline (the analysis then runs on this thread). With
    // `[pretool] judge`, one judge call under its own deadline may follow the analysis.
    let long_or_nested = input.command().filter(|c| !shell::is_short_and_flat(c));
    let deadline = long_or_nested.map(|_| {
        let (budget, why) = if config.pretool.judge {
            let budget = shell::TIME_BUDGET + Duration::from_millis(config.judge.deadline_ms);
            let why = format!(
                "the command took more than {:.1} s to analyse and judge",
                budget.as_secs_f64()
            );
            (budget, why)
        } else {
            let secs = shell::TIME_BUDGET.as_secs();
            let why = format!("the command took more than {secs} s to analyse");
            (shell::TIME_BUDGET, why)
        };
        let decision = Decision::failed(Event::PreTool, host, why);
        let answer = decision
            .answer(host)
            .map(|a| a.to_string())
            .unwrap_or_default();
        let mut expired = record.clone();
        expired.latency_ms = budget.as_millis() as u64;
        expired.set_decision(decision);
        let mut expiry = Expiry::new(&answer);
        if let Some(log) = crate::log::prepare_per_config(Some(&config.log), &expired) {
            expiry = expiry.with_log(&log.dir, &log.path, log.line);
        }
        Deadline::arm(budget, expiry)
    });
    if env_is(FAULT, "stall") {
        loop {
            std::thread::park();
        }
    }
    let analysis = guard::pre_tool::analyse(input);
    let decision = guard::pre_tool::decide(
        host,
        input,
        &analysis,
        role.as_deref(),
        config,
        detectors,
        &protected,
    );
    drop(deadline);
    // The process ends right after this answer: freeing the analysis (each word, redirection
    // and reading of every command) would cost a twentieth of a compound command's call.
    std::mem::forget(analysis);
    (record, decision)
}

/// A cheap 0..100 draw, to spread housekeeping over hook calls.
fn rand_percent() -> u64 {
    u64::from_str_radix(&crate::pipeline::wrap::nonce()[..4], 16).unwrap_or(0) % 100
}
