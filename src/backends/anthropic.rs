//! The Anthropic Messages API over HTTP, the verdict forced through a tool call whose input
//! schema is the detector's reply schema. Also home of the small HTTP helpers both HTTP
//! backends share.

use std::time::Instant;

use super::{Backend, BackendError, JudgeRequest};
use crate::config::HttpBackendConfig;

pub struct Anthropic {
    config: HttpBackendConfig,
}

impl Anthropic {
    pub fn new(config: &HttpBackendConfig) -> Self {
        Anthropic {
            config: config.clone(),
        }
    }
}

impl Backend for Anthropic {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn model(&self) -> Option<String> {
        Some(self.config.model.clone())
    }

    fn call(&self, request: &JudgeRequest, deadline: Instant) -> Result<String, BackendError> {
        let key = api_key(&self.config.api_key_env)?;
        let url = format!("{}/v1/messages", self.config.base_url.trim_end_matches('/'));
        let body = serde_json::json!({
            "model": self.config.model,
            "max_tokens": 400,
            "temperature": 0,
            "messages": [{"role": "user", "content": request.prompt}],
            "tools": [{
                "name": "verdict",
                "description": "Report the verdict on the agent's text.",
                "input_schema": request.schema,
            }],
            "tool_choice": {"type": "tool", "name": "verdict"},
        });
        let reply = post_json(
            &url,
            &[
                ("x-api-key", key),
                ("anthropic-version", "2023-06-01".into()),
            ],
            &body,
            deadline,
        )?;
        let blocks = reply
            .get("content")
            .and_then(|v| v.as_array())
            .ok_or_else(|| BackendError::Reply("the reply has no content".into()))?;
        if let Some(input) = blocks
            .iter()
            .find(|b| b.get("type").and_then(|t| t.as_str()) == Some("tool_use"))
            .and_then(|b| b.get("input"))
        {
            return Ok(input.to_string());
        }
        let text: Vec<&str> = blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(|t| t.as_str()))
            .collect();
        Ok(text.join("\n"))
    }
}

pub(super) fn api_key(var: &str) -> Result<String, BackendError> {
    std::env::var(var)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| BackendError::Spawn(format!("${var} is not set")))
}

/// POSTs `body` as JSON and returns the JSON reply; every failure is a `BackendError::Http`
/// that names the status or the connection problem, never the key.
pub(super) fn post_json(
    url: &str,
    headers: &[(&str, String)],
    body: &serde_json::Value,
    deadline: Instant,
) -> Result<serde_json::Value, BackendError> {
    let remaining = deadline.saturating_duration_since(Instant::now());
    if remaining.is_zero() {
        return Err(BackendError::Timeout);
    }
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(remaining))
        .http_status_as_error(false)
        .build()
        .into();
    let mut call = agent.post(url).header("content-type", "application/json");
    for (name, value) in headers {
        call = call.header(*name, value.as_str());
    }
    let mut response = call
        .send(body.to_string())
        .map_err(|err| http_error(url, err))?;
    let status = response.status();
    let text = response
        .body_mut()
        .with_config()
        .limit(4 * 1024 * 1024)
        .read_to_string()
        .map_err(|err| http_error(url, err))?;
    if !status.is_success() {
        let snippet: String = text.chars().take(200).collect();
        return Err(BackendError::Http(format!(
            "{url} answered {status}: {snippet}"
        )));
    }
    serde_json::from_str(&text)
        .map_err(|err| BackendError::Reply(format!("{url} answered with invalid JSON ({err})")))
}

fn http_error(url: &str, err: ureq::Error) -> BackendError {
    match err {
        ureq::Error::Timeout(_) => BackendError::Timeout,
        other => BackendError::Http(format!("{url}: {other}")),
    }
}
