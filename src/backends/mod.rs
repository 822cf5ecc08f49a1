//! Judge backends: where a wrapped prompt goes and a reply comes back.
//!
//! Every backend returns the judge's raw reply text; the pipeline extracts the JSON object.
//! Subprocess backends run through [`process::run`] (own process group, hard deadline, the
//! recursion guard, an empty temp cwd); HTTP backends use ureq with the same deadline.

mod anthropic;
mod cli;
mod command;
mod openai;
pub mod process;
pub mod rules;

use std::time::Instant;

use crate::config::{BackendName, Config};
use crate::detectors::Detector;
use crate::error::{Error, Result};

/// What a backend gets for one detector.
pub struct JudgeRequest<'a> {
    pub detector: &'a Detector,
    /// The full prompt: the detector's question and the wrapped, redacted text.
    pub prompt: &'a str,
    /// The redacted text alone (for the offline rules judge).
    pub text: &'a str,
    /// JSON schema of the expected reply.
    pub schema: &'a serde_json::Value,
    /// The turn's tool calls, when the transcript was read (the offline judge takes them over
    /// the words; an LLM judge already has their summary in `prompt`).
    pub evidence: Option<&'a crate::evidence::Evidence>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendError {
    /// The deadline passed; the call was abandoned (and its processes killed).
    Timeout,
    /// The judge could not be started (missing CLI, bad command).
    Spawn(String),
    /// The judge process exited non-zero.
    Exit { code: Option<i32>, stderr: String },
    /// An HTTP judge failed: connection, status, body.
    Http(String),
    /// The reply was not what the backend promises (no output file, bad envelope).
    Reply(String),
}

impl BackendError {
    /// A short cause label for logs and stats.
    pub fn cause(&self) -> &'static str {
        match self {
            BackendError::Timeout => "timeout",
            BackendError::Spawn(_) => "spawn",
            BackendError::Exit { .. } => "exit",
            BackendError::Http(_) => "http",
            BackendError::Reply(_) => "reply",
        }
    }
}

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BackendError::Timeout => write!(f, "the judge did not answer before the deadline"),
            BackendError::Spawn(msg) | BackendError::Http(msg) | BackendError::Reply(msg) => {
                write!(f, "{msg}")
            }
            BackendError::Exit { code, stderr } => {
                match code {
                    Some(code) => write!(f, "the judge exited with status {code}")?,
                    None => write!(f, "the judge was killed by a signal")?,
                }
                if !stderr.is_empty() {
                    write!(f, ": {stderr}")?;
                }
                Ok(())
            }
        }
    }
}

pub trait Backend: Send + Sync {
    fn name(&self) -> &'static str;
    fn model(&self) -> Option<String>;
    /// Asks the judge; returns its raw reply text.
    fn call(&self, request: &JudgeRequest, deadline: Instant) -> Result<String, BackendError>;
}

/// The backend to use: `name` if given (`--backend`), else the config's, resolving `auto`.
pub fn select(config: &Config, name: Option<&str>) -> Result<Box<dyn Backend>> {
    let name = match name {
        Some(name) => BackendName::parse(name).ok_or_else(|| BackendName::unknown(name))?,
        None => config.judge.backend,
    };
    let name = match name {
        BackendName::Auto => resolve_auto(config).0,
        name => name,
    };
    build(config, name)
}

/// The first usable backend of `judge.auto_order`, and why it was chosen.
pub fn resolve_auto(config: &Config) -> (BackendName, String) {
    for &name in &config.judge.auto_order {
        if let Some(reason) = usable(config, name) {
            return (name, reason);
        }
    }
    (BackendName::Rules, "no other backend is usable".into())
}

/// Why `name` is usable right now, or None.
pub fn usable(config: &Config, name: BackendName) -> Option<String> {
    let key_set = |var: &str| std::env::var(var).is_ok_and(|v| !v.trim().is_empty());
    match name {
        BackendName::Rules => Some("built in, offline".into()),
        BackendName::Command => (!config.judge.command.argv.is_empty())
            .then(|| format!("judge.command.argv = {:?}", config.judge.command.argv)),
        BackendName::OpenAi => key_set(&config.judge.openai.api_key_env)
            .then(|| format!("${} is set", config.judge.openai.api_key_env)),
        BackendName::Anthropic => key_set(&config.judge.anthropic.api_key_env)
            .then(|| format!("${} is set", config.judge.anthropic.api_key_env)),
        BackendName::Codex => {
            find_in_path(&config.judge.codex.binary).map(|p| format!("found {}", p.display()))
        }
        BackendName::Claude => {
            find_in_path(&config.judge.claude.binary).map(|p| format!("found {}", p.display()))
        }
        BackendName::Auto => None,
    }
}

/// Why `name` cannot judge right now (the CLI is missing, the key is not set, ...), or None
/// when it can; what `doctor` and `config set judge.backend` report.
pub fn unusable_reason(config: &Config, name: BackendName) -> Option<String> {
    let reason = match name {
        BackendName::Command => match config.judge.command.argv.first() {
            None => "judge.command.argv is empty".to_string(),
            Some(program) if find_in_path(program).is_none() => {
                format!("`{program}` (judge.command.argv) not found or not executable")
            }
            Some(_) => return None,
        },
        BackendName::OpenAi => format!("${} is not set", config.judge.openai.api_key_env),
        BackendName::Anthropic => format!("${} is not set", config.judge.anthropic.api_key_env),
        BackendName::Codex => format!("`{}` not found on PATH", config.judge.codex.binary),
        BackendName::Claude => format!("`{}` not found on PATH", config.judge.claude.binary),
        BackendName::Rules | BackendName::Auto => return None,
    };
    usable(config, name).is_none().then_some(reason)
}

fn build(config: &Config, name: BackendName) -> Result<Box<dyn Backend>> {
    Ok(match name {
        BackendName::Rules => Box::new(rules::Rules),
        BackendName::Command => {
            if config.judge.command.argv.is_empty() {
                return Err(
                    Error::config("the `command` backend needs judge.command.argv").with_hint(
                        "e.g. `agentguard config set judge.command.argv '[\"my-judge\"]'`",
                    ),
                );
            }
            Box::new(command::CommandBackend::new(&config.judge.command))
        }
        BackendName::Codex => Box::new(cli::Codex::new(&config.judge.codex)),
        BackendName::Claude => Box::new(cli::Claude::new(&config.judge.claude)),
        BackendName::OpenAi => Box::new(openai::OpenAi::new(&config.judge.openai)),
        BackendName::Anthropic => Box::new(anthropic::Anthropic::new(&config.judge.anthropic)),
        // `resolve_auto` never returns `auto` (it is not usable as such).
        BackendName::Auto => return build(config, resolve_auto(config).0),
    })
}

/// The executable `binary` resolves to: a path as given, else the first match on PATH.
pub fn find_in_path(binary: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let is_executable = |p: &std::path::Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if binary.contains('/') {
        let path = std::path::PathBuf::from(binary);
        return is_executable(&path).then_some(path);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(binary))
            .find(|p| is_executable(p))
    })
}

/// An empty temporary directory for a judge subprocess to run in.
fn scratch_dir() -> Result<tempfile::TempDir, BackendError> {
    tempfile::Builder::new()
        .prefix("agentguard-judge-")
        .tempdir()
        .map_err(|err| BackendError::Spawn(format!("cannot create a temp dir: {err}")))
}
