//! The agent CLIs as judges, each launched read-only and isolated from the user's setup.

use std::time::Instant;

use super::{Backend, BackendError, JudgeRequest, process, scratch_dir};
use crate::config::CliBackendConfig;

/// `codex exec` in a read-only sandbox, stdin closed, reply through `--output-schema` and `-o`.
pub struct Codex {
    config: CliBackendConfig,
}

impl Codex {
    pub fn new(config: &CliBackendConfig) -> Self {
        Codex {
            config: config.clone(),
        }
    }
}

impl Backend for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn model(&self) -> Option<String> {
        self.config.model.clone()
    }

    fn call(&self, request: &JudgeRequest, deadline: Instant) -> Result<String, BackendError> {
        let dir = scratch_dir()?;
        let schema_file = dir.path().join("schema.json");
        let reply_file = dir.path().join("reply.txt");
        std::fs::write(&schema_file, request.schema.to_string())
            .map_err(|err| BackendError::Spawn(format!("cannot write the schema file: {err}")))?;
        let workdir = dir.path().join("work");
        std::fs::create_dir(&workdir)
            .map_err(|err| BackendError::Spawn(format!("cannot create a temp dir: {err}")))?;
        let argv = codex_argv(&self.config, &schema_file, &reply_file, request.prompt);
        // codex reads a non-TTY stdin to EOF and appends it to the prompt: keep it closed.
        process::run(&argv, None, &workdir, deadline)?;
        std::fs::read_to_string(&reply_file)
            .map_err(|err| BackendError::Reply(format!("codex wrote no reply file ({err})")))
    }
}

fn codex_argv(
    config: &CliBackendConfig,
    schema_file: &std::path::Path,
    reply_file: &std::path::Path,
    prompt: &str,
) -> Vec<String> {
    let mut argv: Vec<String> = vec![
        config.binary.clone(),
        "exec".into(),
        "--sandbox".into(),
        "read-only".into(),
        "--skip-git-repo-check".into(),
        "--ephemeral".into(),
    ];
    if let Some(model) = &config.model {
        argv.extend(["-m".into(), model.clone()]);
    }
    argv.extend([
        "--output-schema".into(),
        schema_file.display().to_string(),
        "-o".into(),
        reply_file.display().to_string(),
    ]);
    argv.extend(config.args.iter().cloned());
    argv.push(prompt.to_string());
    argv
}

/// `claude -p` with no tools, no settings, no hooks, no MCP servers, no session on disk.
pub struct Claude {
    config: CliBackendConfig,
}

impl Claude {
    pub fn new(config: &CliBackendConfig) -> Self {
        Claude {
            config: config.clone(),
        }
    }
}

impl Backend for Claude {
    fn name(&self) -> &'static str {
        "claude"
    }

    fn model(&self) -> Option<String> {
        self.config.model.clone()
    }

    fn call(&self, request: &JudgeRequest, deadline: Instant) -> Result<String, BackendError> {
        let dir = scratch_dir()?;
        let argv = claude_argv(&self.config, request);
        let output = process::run(&argv, None, dir.path(), deadline)?;
        claude_reply(&output.stdout)
    }
}

fn claude_argv(config: &CliBackendConfig, request: &JudgeRequest) -> Vec<String> {
    // The prompt comes right after -p: the variadic `--tools` would swallow a later positional.
    let mut argv: Vec<String> = vec![config.binary.clone(), "-p".into(), request.prompt.into()];
    if let Some(model) = &config.model {
        argv.extend(["--model".into(), model.clone()]);
    }
    argv.extend([
        "--output-format".into(),
        "json".into(),
        "--json-schema".into(),
        request.schema.to_string(),
        // Isolation: none of the user's settings (so none of their hooks, ours included) and no
        // MCP servers; hooks disabled outright as a second guard; nothing saved to disk.
        "--setting-sources".into(),
        String::new(),
        "--settings".into(),
        r#"{"disableAllHooks":true}"#.into(),
        "--strict-mcp-config".into(),
        "--no-session-persistence".into(),
    ]);
    argv.extend(config.args.iter().cloned());
    argv.extend(["--tools".into(), String::new()]);
    argv
}

/// `--output-format json` prints one result object; the verdict is in `structured_output`
/// (with `--json-schema`) or, failing that, in the `result` text.
fn claude_reply(stdout: &str) -> Result<String, BackendError> {
    let envelope: serde_json::Value = serde_json::from_str(stdout.trim())
        .map_err(|err| BackendError::Reply(format!("claude printed no JSON result ({err})")))?;
    if envelope.get("is_error").and_then(|v| v.as_bool()) == Some(true) {
        let message = envelope
            .get("result")
            .and_then(|v| v.as_str())
            .unwrap_or("unknown error");
        return Err(BackendError::Reply(format!(
            "claude reported an error: {message}"
        )));
    }
    if let Some(structured) = envelope.get("structured_output").filter(|v| v.is_object()) {
        return Ok(structured.to_string());
    }
    envelope
        .get("result")
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .ok_or_else(|| {
            BackendError::Reply("claude's result has neither structured_output nor result".into())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_envelope_prefers_structured_output() {
        let out =
            r#"{"type":"result","is_error":false,"result":"text","structured_output":{"a":true}}"#;
        assert_eq!(claude_reply(out).unwrap(), r#"{"a":true}"#);
        let out = r#"{"type":"result","is_error":false,"result":"{\"a\": false}"}"#;
        assert_eq!(claude_reply(out).unwrap(), r#"{"a": false}"#);
        assert!(claude_reply(r#"{"is_error":true,"result":"Invalid API key"}"#).is_err());
        assert!(claude_reply("not json").is_err());
    }

    #[test]
    fn codex_argv_is_read_only_and_puts_the_prompt_last() {
        let config = CliBackendConfig {
            binary: "codex".into(),
            model: Some("m".into()),
            args: vec!["-c".into(), "x=1".into()],
        };
        let argv = codex_argv(&config, "/s.json".as_ref(), "/r.txt".as_ref(), "PROMPT");
        assert_eq!(
            argv.join(" "),
            "codex exec --sandbox read-only --skip-git-repo-check --ephemeral -m m \
             --output-schema /s.json -o /r.txt -c x=1 PROMPT"
        );
    }
}
