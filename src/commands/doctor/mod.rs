//! `agentguard doctor [--json] [--probe]`: reads everything a failure could hide behind and
//! reports one line per check (the checks themselves are in `crate::doctor`). Doctor changes
//! nothing, and makes no network call except the probe, and only with `--probe`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::backends::{self, find_in_path};
use crate::cli::DoctorArgs;
use crate::config::{BackendName, Config, ConfigFiles, DEFAULT_CONFIG, Source};
use crate::detectors::Detectors;
use crate::doctor::{
    self, Availability, Check, CheckId, CliFacts, LogDir, Program, Report, SettingsFile,
};
use crate::error::{Error, Result, exit};
use crate::fsutil;
use crate::hosts::{Host, locations};
use crate::log::Record;
use crate::paths;
use crate::pipeline::{Judge, Judgement, Pipeline};
use crate::settings::Format;

mod agent_cli;
mod codex_trust;
mod log;
mod settings;

use agent_cli::cli_facts;
use log::{log_dir_state, probe, recent_records};
use settings::settings_checks;

/// `--version` and `--help` of an agent CLI must answer within this.
const CLI_DEADLINE: Duration = Duration::from_secs(15);

pub fn run(args: DoctorArgs) -> Result<u8> {
    let cwd = std::env::current_dir().ok();
    let exe = running_binary();
    let mut checks = Vec::new();

    let on_path = find_in_path("agentguard").map(|p| p.canonicalize().unwrap_or(p));
    checks.push(doctor::check_binary(
        &exe,
        env!("CARGO_PKG_VERSION"),
        on_path.as_deref(),
    ));

    let files = ConfigFiles::discover(cwd.as_deref());
    checks.push(config_file_check(
        CheckId::ConfigUser,
        "user",
        files.user.as_deref(),
    ));
    let project_file = files
        .project
        .clone()
        .or_else(|| cwd.as_ref().map(|d| d.join(paths::PROJECT_CONFIG_FILE)));
    checks.push(config_file_check(
        CheckId::ConfigProject,
        "project",
        project_file.as_deref(),
    ));
    let env_backend = std::env::var("AGENTGUARD_BACKEND")
        .ok()
        .filter(|v| !v.is_empty());
    checks.extend(crate::doctor::trust::doctor_checks(
        &files,
        env_backend.as_deref(),
        paths::state_dir().as_deref(),
    ));
    let effective = Config::load(cwd.as_deref());
    let env: Vec<(&str, Option<String>)> = [
        "AGENTGUARD_CONFIG",
        "AGENTGUARD_BACKEND",
        "AGENTGUARD_DISABLE",
    ]
    .into_iter()
    .map(|name| (name, std::env::var(name).ok().filter(|v| !v.is_empty())))
    .collect();
    checks.push(doctor::check_config_env(&env, &effective));
    let config = effective.ok();
    checks.push(doctor::check_detectors(config.as_ref()));

    let chosen = match &config {
        Some(config) => {
            let availability: Vec<Availability> = BackendName::BACKENDS
                .into_iter()
                .map(|name| availability(config, name))
                .collect();
            let (auto, reason) = backends::resolve_auto(config);
            let auto_order: Vec<String> = config
                .judge
                .auto_order
                .iter()
                .map(|b| b.as_str().to_string())
                .collect();
            let (check, chosen) = doctor::check_backend(
                config.judge.backend.as_str(),
                &auto_order,
                &(auto.as_str().to_string(), reason),
                &availability,
            );
            checks.push(check);
            Some(chosen)
        }
        None => {
            checks.push(Check::warn(
                CheckId::Backend,
                "judge backend: not resolved, the configuration does not load",
                "fix the configuration first (see the config checks)",
            ));
            None
        }
    };

    let installed = settings_checks(cwd.as_deref(), &exe, &mut checks);
    checks.extend(codex_trust::codex_trust_check(cwd.as_deref()));
    checks.push(doctor::check_hooks_installed(&installed));
    let hooked = |prefix: &str| {
        installed
            .iter()
            .any(|(id, events)| id.starts_with(prefix) && !events.is_empty())
    };

    let defaults = Config::defaults();
    let cli_config = config.as_ref().unwrap_or(&defaults);
    for (host, binary, help_args, required) in [
        (
            Host::Claude,
            &cli_config.judge.claude.binary,
            &["--help"][..],
            doctor::CLAUDE_FLAGS,
        ),
        (
            Host::Codex,
            &cli_config.judge.codex.binary,
            &["exec", "--help"][..],
            doctor::CODEX_EXEC_FLAGS,
        ),
    ] {
        let facts = cli_facts(host, binary, help_args);
        checks.push(doctor::check_cli(
            &facts,
            required,
            chosen.as_deref() == Some(host.name()),
            hooked(&format!("settings.{}.", host.name())),
        ));
    }

    if args.probe {
        checks.push(match (&config, &chosen) {
            (Some(config), Some(chosen)) => doctor::check_probe(chosen, &probe(config)),
            _ => Check::fail(
                CheckId::Probe,
                "probe: not sent, the configuration does not load",
                "fix the configuration first (see the config checks)",
            ),
        });
    }

    let log_config = config.as_ref().unwrap_or(&defaults);
    let log_dir = log_config.log.dir.clone().or_else(paths::log_dir);
    checks.push(doctor::check_log_dir(
        log_config.log.enabled,
        log_dir.as_deref(),
        &log_dir_state(log_dir.as_deref()),
    ));
    const STOP_EVENTS: [&str; 2] = ["Stop", "SubagentStop"];
    const PRE_TOOL_EVENTS: [&str; 1] = ["PreToolUse"];
    let log_checks = [
        (CheckId::LogJudgeFailures, "judge failures"),
        (CheckId::HooksStopActivity, "Stop hook activity"),
        (CheckId::HooksPreToolActivity, "PreToolUse hook activity"),
    ];
    if !log_config.log.enabled {
        checks.extend(
            log_checks
                .iter()
                .map(|(id, what)| doctor::check_not_logged(*id, what)),
        );
    } else {
        let now = jiff::Timestamp::now();
        let records = log_dir
            .as_deref()
            .map(|dir| recent_records(dir, now))
            .unwrap_or_default();
        let any_event = |events: &[&str]| {
            installed
                .values()
                .any(|installed| events.iter().any(|e| installed.contains(*e)))
        };
        checks.push(doctor::check_judge_failures(&records, now));
        checks.push(doctor::check_hook_activity(
            log_checks[1].0,
            "Stop",
            &STOP_EVENTS,
            any_event(&STOP_EVENTS),
            &records,
            now,
        ));
        checks.push(doctor::check_hook_activity(
            log_checks[2].0,
            "PreToolUse",
            &PRE_TOOL_EVENTS,
            any_event(&PRE_TOOL_EVENTS),
            &records,
            now,
        ));
    }

    let report = Report::new(checks);
    let mut out = std::io::stdout().lock();
    if args.json {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|err| Error::io(format!("cannot write the report: {err}")))?;
        writeln!(out, "{text}")?;
    } else {
        let color = out.is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        out.write_all(report.render(color).as_bytes())?;
    }
    out.flush()?;
    Ok(if report.healthy {
        exit::OK
    } else {
        exit::FOUND
    })
}

/// The running binary, through symlinks, as hooks would name it after `agentguard install`.
fn running_binary() -> PathBuf {
    std::env::current_exe()
        .map(|exe| exe.canonicalize().unwrap_or(exe))
        .unwrap_or_else(|_| PathBuf::from("agentguard"))
}

/// One config file checked alone over the defaults, so an error names that file.
fn config_file_check(id: CheckId, label: &str, path: Option<&Path>) -> Check {
    let Some(path) = path else {
        return doctor::check_config_file(id, label, None, None);
    };
    let result = match fsutil::read_optional(path) {
        Ok(None) => None,
        Ok(Some(text)) => Some(Config::from_layers(&[
            (Source::Defaults, DEFAULT_CONFIG.to_string()),
            (Source::File(path.to_path_buf()), text),
        ])),
        Err(err) => {
            let hint = fsutil::read_hint(path, &err);
            Some(Err(Error::io_at("read", path, err).with_hint(hint)))
        }
    };
    doctor::check_config_file(id, label, Some(path), result.as_ref())
}

/// Whether a backend is usable now, and why not.
fn availability(config: &Config, name: BackendName) -> Availability {
    let unusable = backends::unusable_reason(config, name);
    Availability {
        name: name.as_str().to_string(),
        usable: if unusable.is_some() {
            None
        } else {
            backends::usable(config, name)
        },
        unusable: unusable.unwrap_or_default(),
    }
}
