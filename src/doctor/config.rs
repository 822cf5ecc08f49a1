//! Binary and configuration: the running binary, the config files and the environment, the detectors.

use std::path::Path;

use crate::hosts::{self};

use super::{Check, CheckId};

/// The running binary: its path, version, and whether `agentguard` on PATH is this one.
pub fn check_binary(exe: &Path, version: &str, on_path: Option<&Path>) -> Check {
    let id = CheckId::Binary;
    let name = exe.file_name().map(|n| n.to_string_lossy().into_owned());
    if !name.as_deref().is_some_and(hosts::is_binary_name) {
        return Check::warn(
            id,
            format!(
                "agentguard {version} runs as {}, but its hook entries are recognized by the \
                 program name `agentguard`",
                exe.display()
            ),
            "install the binary as `agentguard`",
        );
    }
    let message = format!("agentguard {version} at {}", exe.display());
    match on_path {
        Some(found) if found == exe => Check::ok(id, message),
        Some(found) => Check::warn(
            id,
            format!("{message}; but `agentguard` on PATH is {}", found.display()),
            "remove the other copy, or put this binary's directory first on PATH",
        ),
        None => Check::warn(
            id,
            format!("{message}; not on PATH"),
            format!(
                "add {} to PATH (hooks use the full path, but your shell does not find it)",
                exe.parent().unwrap_or(Path::new("/")).display()
            ),
        ),
    }
}

/// A config file checked on its own (against the defaults): None when there is none.
/// `result` is what loading the defaults plus this one file gave.
pub fn check_config_file(
    id: CheckId,
    label: &str,
    path: Option<&Path>,
    result: Option<&crate::error::Result<crate::config::Config>>,
) -> Check {
    match (path, result) {
        (None, _) => Check::ok(id, format!("{label} config: none applies (defaults)")),
        (Some(path), None) => Check::ok(
            id,
            format!("{label} config: {} not present (defaults)", path.display()),
        ),
        (Some(path), Some(Ok(_))) => {
            Check::ok(id, format!("{label} config: {} parses", path.display()))
        }
        (Some(_), Some(Err(err))) => Check::fail(
            id,
            format!("{label} config: {}", err.message),
            err.hint.clone().unwrap_or_else(|| {
                "fix the file, or see `agentguard config init` for every key".into()
            }),
        ),
    }
}

/// The environment overrides and the effective (merged) configuration.
pub fn check_config_env(
    env: &[(&str, Option<String>)],
    effective: &crate::error::Result<crate::config::Config>,
) -> Check {
    let id = CheckId::ConfigEnv;
    if let Err(err) = effective {
        return Check::fail(
            id,
            format!("the effective configuration does not load: {}", err.message),
            err.hint
                .clone()
                .unwrap_or_else(|| "fix the value named above".into()),
        );
    }
    let set: Vec<String> = env
        .iter()
        .filter_map(|(name, value)| value.as_ref().map(|v| format!("{name}={v}")))
        .collect();
    if env
        .iter()
        .any(|(name, value)| *name == "AGENTGUARD_DISABLE" && value.as_deref() == Some("1"))
    {
        return Check::warn(
            id,
            "AGENTGUARD_DISABLE=1 is set: every hook allows at once, nothing is judged",
            "unset AGENTGUARD_DISABLE (in your shell profile, and wherever the agent is started)",
        );
    }
    if set.is_empty() {
        Check::ok(id, "environment: no overrides; the configuration loads")
    } else {
        Check::ok(
            id,
            format!("environment: {}; the configuration loads", set.join(", ")),
        )
    }
}

/// The detectors load (formulas, fields) and every pattern compiles.
pub fn check_detectors(config: Option<&crate::config::Config>) -> Check {
    let id = CheckId::Detectors;
    let Some(config) = config else {
        return Check::warn(
            id,
            "detectors: not checked, the configuration does not load",
            "fix the configuration first (see the config checks)",
        );
    };
    let loaded = crate::detectors::Detectors::load(&config.detectors)
        .and_then(|d| d.check_patterns().map(|()| d));
    match loaded {
        Ok(detectors) => {
            let names: Vec<&str> = detectors.list.iter().map(|d| d.name.as_str()).collect();
            if names.is_empty() {
                Check::warn(
                    id,
                    "detectors: every detector is disabled, nothing is judged",
                    "remove `enabled = false` from a [[detectors]] entry",
                )
            } else {
                Check::ok(
                    id,
                    format!(
                        "detectors: {} load and compile ({})",
                        names.len(),
                        names.join(", ")
                    ),
                )
            }
        }
        Err(err) => Check::fail(
            id,
            format!("detectors: {}", err.message),
            err.hint
                .unwrap_or_else(|| "fix the [[detectors]] entry named above".into()),
        ),
    }
}
