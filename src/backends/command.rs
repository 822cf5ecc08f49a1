//! Any program as a judge: the wrapped prompt on stdin, the reply on stdout.

use std::time::Instant;

use super::{Backend, BackendError, JudgeRequest, process, scratch_dir};
use crate::config::CommandBackendConfig;

pub struct CommandBackend {
    argv: Vec<String>,
}

impl CommandBackend {
    pub fn new(config: &CommandBackendConfig) -> Self {
        CommandBackend {
            argv: config.argv.clone(),
        }
    }
}

impl Backend for CommandBackend {
    fn name(&self) -> &'static str {
        "command"
    }

    fn model(&self) -> Option<String> {
        self.argv.first().cloned()
    }

    fn call(&self, request: &JudgeRequest, deadline: Instant) -> Result<String, BackendError> {
        let dir = scratch_dir()?;
        let output = process::run(
            &self.argv,
            Some(request.prompt.as_bytes()),
            dir.path(),
            deadline,
        )?;
        Ok(output.stdout)
    }
}
