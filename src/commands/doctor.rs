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
    let result =
        match fsutil::read_optional(path) {
            Ok(None) => None,
            Ok(Some(text)) => Some(Config::from_layers(&[
                (Source::Defaults, DEFAULT_CONFIG.to_string()),
                (Source::File(path.to_path_buf()), text),
            ])),
            Err(err) => Some(Err(Error::io_at("read", path, err)
                .with_hint(format!("make {} readable", path.display())))),
        };
    doctor::check_config_file(id, label, Some(path), result.as_ref())
}

/// Whether a backend is usable now, and why not.
fn availability(config: &Config, name: BackendName) -> Availability {
    let mut usable = backends::usable(config, name);
    let unusable = match name {
        BackendName::Command => match config.judge.command.argv.first() {
            None => "judge.command.argv is empty".to_string(),
            Some(program) if find_in_path(program).is_none() => {
                usable = None;
                format!("`{program}` (judge.command.argv) not found or not executable")
            }
            Some(_) => String::new(),
        },
        BackendName::OpenAi => format!("${} is not set", config.judge.openai.api_key_env),
        BackendName::Anthropic => format!("${} is not set", config.judge.anthropic.api_key_env),
        BackendName::Codex => format!("`{}` not found on PATH", config.judge.codex.binary),
        BackendName::Claude => format!("`{}` not found on PATH", config.judge.claude.binary),
        BackendName::Rules | BackendName::Auto => String::new(),
    };
    Availability {
        name: name.as_str().to_string(),
        usable,
        unusable,
    }
}

// ---------------------------------------------------------------------------------------------
// Settings

/// Checks every settings scope; returns the events of ours installed, per check id.
fn settings_checks(
    cwd: Option<&Path>,
    exe: &Path,
    checks: &mut Vec<Check>,
) -> BTreeMap<String, BTreeSet<String>> {
    let home = paths::home_dir().unwrap_or_default();
    let project = cwd.map(Path::to_path_buf).unwrap_or_default();
    let scopes: Vec<(CheckId, &str, Host, String, Vec<SettingsFile>)> = locations::SCOPES
        .into_iter()
        .filter_map(|(host, scope)| {
            let user_dir = locations::user_dir(host, Some(&home)).unwrap_or_default();
            let files = locations::location(host, scope)?
                .paths(&user_dir, &project)
                .into_iter()
                .map(|(path, format)| read_settings(path, format))
                .collect();
            Some((
                CheckId::Settings(host, scope),
                locations::scope_label(host, scope),
                host,
                locations::install_args(host, scope),
                files,
            ))
        })
        .collect();
    let program = |prog: &str| resolve_program(prog, cwd, exe);
    let mut installed = BTreeMap::new();
    // Run from the home directory, a project scope reads the user scope's own files: report
    // them once.
    let mut seen: Vec<(PathBuf, &str)> = Vec::new();
    for (id, label, host, install_args, files) in &scopes {
        let keys: Vec<PathBuf> = files.iter().map(|file| same_file_key(&file.path)).collect();
        let earlier = keys
            .iter()
            .map(|key| seen.iter().find(|(path, _)| path == key).map(|(_, l)| *l))
            .collect::<Option<Vec<_>>>()
            .and_then(|labels| labels.first().copied());
        if let Some(earlier) = earlier {
            checks.push(Check::ok(
                *id,
                format!(
                    "{label}: the same file as the {earlier} (the current directory is your \
                     home directory)"
                ),
            ));
            installed.insert(id.to_string(), BTreeSet::new());
            continue;
        }
        seen.extend(keys.into_iter().map(|key| (key, *label)));
        let hooks_off = files.iter().find_map(|file| {
            let text = file.text.as_ref()?.as_ref().ok()?;
            doctor::hooks_off(*host, file.format, &file.path, text)
        });
        let scope = doctor::Scope {
            id: *id,
            label,
            host: *host,
            install_args,
            files,
            hooks_off,
        };
        let (check, events) = doctor::check_settings_scope(&scope, &program);
        checks.push(check);
        installed.insert(id.to_string(), events);
    }
    installed
}

/// A path that is equal for two names of one file (symlinks, `.`), existing or not.
fn same_file_key(path: &Path) -> PathBuf {
    if let Ok(canonical) = path.canonicalize() {
        return canonical;
    }
    match (path.parent().map(Path::canonicalize), path.file_name()) {
        (Some(Ok(parent)), Some(name)) => parent.join(name),
        _ => path.to_path_buf(),
    }
}

fn read_settings(path: PathBuf, format: Format) -> SettingsFile {
    let text = fsutil::resolve_symlinks(&path)
        .and_then(|resolved| fsutil::read_optional(&resolved))
        .map_err(|err| err.to_string())
        .transpose();
    SettingsFile { path, format, text }
}

/// What a hook command's program resolves to. A bare name is looked up on doctor's PATH, the
/// closest guess at the PATH the host gives its hooks.
fn resolve_program(program: &str, cwd: Option<&Path>, exe: &Path) -> Program {
    use std::os::unix::fs::PermissionsExt;
    let path = if program.contains('/') {
        let path = PathBuf::from(program);
        match cwd {
            Some(cwd) if path.is_relative() => cwd.join(path),
            _ => path,
        }
    } else {
        match find_in_path(program) {
            Some(found) => found,
            None => return Program::Missing,
        }
    };
    match std::fs::metadata(&path) {
        Err(_) => Program::Missing,
        Ok(meta) if !meta.is_file() => Program::Missing,
        Ok(meta) if meta.permissions().mode() & 0o111 == 0 => Program::NotExecutable,
        Ok(_) => {
            let canonical = path.canonicalize().unwrap_or(path);
            if canonical == exe {
                Program::Running
            } else {
                Program::Other(canonical)
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Agent CLIs

fn cli_facts(host: Host, binary: &str, help_args: &[&str]) -> CliFacts {
    let name = host.name();
    let path = find_in_path(binary);
    let help_command = format!("{name} {}", help_args.join(" "));
    let (version, help) = match &path {
        None => (Err("not found".to_string()), Err("not found".to_string())),
        Some(path) => (
            run_cli(name, path, &["--version"]).map(|out| {
                out.lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .unwrap_or("(no output)")
                    .to_string()
            }),
            run_cli(name, path, help_args),
        ),
    };
    CliFacts {
        host,
        binary: binary.to_string(),
        path,
        version,
        help,
        help_command,
    }
}

/// Runs an agent CLI for its version or help text: own process group, deadline, stdin closed,
/// an empty temp dir as cwd (so no project config of the user's is read). Codex unpacks helper
/// binaries into its home on every start: it gets the temp dir as CODEX_HOME, so doctor
/// leaves the user's ~/.codex as it was.
fn run_cli(name: &str, path: &Path, args: &[&str]) -> std::result::Result<String, String> {
    let dir = tempfile::Builder::new()
        .prefix("agentguard-doctor-")
        .tempdir()
        .map_err(|err| format!("cannot create a temp dir: {err}"))?;
    let mut argv = Vec::new();
    if name == "codex" {
        argv.push("/usr/bin/env".to_string());
        argv.push(format!("CODEX_HOME={}", dir.path().display()));
    }
    argv.push(path.display().to_string());
    argv.extend(args.iter().map(|a| a.to_string()));
    backends::process::run(&argv, None, dir.path(), Instant::now() + CLI_DEADLINE)
        .map(|out| out.stdout)
        .map_err(|err| err.to_string())
}

// ---------------------------------------------------------------------------------------------
// Probe

/// Sends the probe text through the configured backend with the `commit` detector (enabled for
/// the probe even if the user turned it off, with the user's overrides kept).
fn probe(config: &Config) -> Result<Judgement> {
    let mut probe_config = config.clone();
    for entry in probe_config
        .detectors
        .iter_mut()
        .filter(|d| d.name == "commit")
    {
        entry.enabled = Some(true);
    }
    let detectors = Detectors::load(&probe_config.detectors)?;
    let commit = detectors.named(&["commit".to_string()])?;
    Judge::from_config(config, None).judge(&Pipeline::new(commit)?, doctor::PROBE_TEXT)
}

// ---------------------------------------------------------------------------------------------
// Decision log

/// The log directory's state; a missing one is judged by its nearest existing ancestor.
fn log_dir_state(dir: Option<&Path>) -> LogDir {
    use std::os::unix::fs::PermissionsExt;
    let Some(dir) = dir else {
        return LogDir::Unknown;
    };
    let writable = |p: &Path| fsutil::is_read_only(p).is_ok_and(|read_only| !read_only);
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => LogDir::Exists {
            writable: writable(dir),
            mode: meta.permissions().mode(),
        },
        Ok(_) => LogDir::NotADirectory,
        Err(_) => {
            let ancestor = dir
                .ancestors()
                .skip(1)
                .find(|a| a.exists())
                .unwrap_or(Path::new("/"));
            LogDir::Missing {
                ancestor: ancestor.to_path_buf(),
                writable: ancestor.is_dir() && writable(ancestor),
            }
        }
    }
}

/// The records of the last day, and enough older ones to know when each hook last ran: day
/// files are read newest first until both a Stop and a PreToolUse record have been seen.
fn recent_records(dir: &Path, now: jiff::Timestamp) -> Vec<Record> {
    let yesterday = now
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .date()
        .yesterday()
        .ok();
    let mut records = Vec::new();
    let (mut seen_stop, mut seen_pre_tool) = (false, false);
    for (day, path) in crate::log::day_files(dir).into_iter().rev() {
        let within_day = yesterday.is_some_and(|y| day >= y);
        if !within_day && seen_stop && seen_pre_tool {
            break;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for line in text.lines() {
            let Ok(record) = serde_json::from_str::<Record>(line) else {
                continue;
            };
            seen_stop |= matches!(record.event.as_str(), "Stop" | "SubagentStop");
            seen_pre_tool |= record.event == "PreToolUse";
            records.push(record);
        }
    }
    records
}
