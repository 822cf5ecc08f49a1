//! OpenAI-compatible chat completions over HTTP (OpenAI, Groq, Cerebras, OpenRouter, Ollama,
//! llama.cpp, vLLM, LM Studio), with a JSON-schema response format.

use std::time::Instant;

use super::{Backend, BackendError, JudgeRequest};
use crate::config::HttpBackendConfig;

pub struct OpenAi {
    config: HttpBackendConfig,
}

impl OpenAi {
    pub fn new(config: &HttpBackendConfig) -> Self {
        OpenAi {
            config: config.clone(),
        }
    }
}

impl Backend for OpenAi {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn model(&self) -> Option<String> {
        Some(self.config.model.clone())
    }

    fn call(&self, request: &JudgeRequest, deadline: Instant) -> Result<String, BackendError> {
        let key = super::anthropic::api_key(&self.config.api_key_env)?;
        let url = format!(
            "{}/chat/completions",
            self.config.base_url.trim_end_matches('/')
        );
        let body = serde_json::json!({
            "model": self.config.model,
            "temperature": 0,
            "messages": [{"role": "user", "content": request.prompt}],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "verdict", "strict": true, "schema": request.schema},
            },
        });
        let reply = super::anthropic::post_json(
            &url,
            &[("authorization", format!("Bearer {key}"))],
            &body,
            deadline,
        )?;
        reply
            .pointer("/choices/0/message/content")
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .ok_or_else(|| {
                BackendError::Reply("the reply has no choices[0].message.content".into())
            })
    }
}
