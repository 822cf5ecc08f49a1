//! How the config judges a text: the judged window, the deadline, the scanned tail and the
//! backend. Every caller that judges as the Stop hook would (`hook stop`, `judge`,
//! `logs replay`, `doctor --probe`) goes through [`Judge::from_config`], so they cannot drift
//! apart.

use std::time::Duration;

use crate::backends::{self, Backend};
use crate::config::Config;
use crate::error::Result;

use super::{Cascade, Judgement, Pipeline, Window};

/// The judge settings of one config, for any number of texts.
pub struct Judge<'c> {
    config: &'c Config,
    /// `--backend`, overriding `judge.backend`.
    backend: Option<&'c str>,
    window: Window,
    timeout: Duration,
    /// Only the last this many bytes are judged (`None`: all of it).
    scan_bytes: Option<usize>,
    /// How the rules judge and the backend combine (`judge.cascade`).
    cascade: Cascade,
}

impl<'c> Judge<'c> {
    /// Stop texts: the config's window and scanned tail (`[stop]`), its deadline and backend
    /// (or `backend` instead, from `--backend`).
    pub fn from_config(config: &'c Config, backend: Option<&'c str>) -> Judge<'c> {
        Judge {
            config,
            backend,
            window: Window {
                bytes: config.stop.window_bytes,
                ..Window::default()
            },
            timeout: Duration::from_millis(config.judge.deadline_ms),
            scan_bytes: Some(config.stop.scan_bytes),
            cascade: config.judge.cascade,
        }
    }

    /// Shell commands (PreToolUse): the default window over the whole command.
    pub fn for_command(config: &'c Config) -> Judge<'c> {
        Judge {
            config,
            backend: None,
            window: Window::default(),
            timeout: Duration::from_millis(config.judge.deadline_ms),
            scan_bytes: None,
            cascade: config.judge.cascade,
        }
    }

    /// Every hit to the backend, whatever `judge.cascade` says (`doctor`'s probe is for the
    /// backend: the rules judge must not answer it first).
    pub fn llm_only(mut self) -> Judge<'c> {
        self.cascade = Cascade::LlmOnly;
        self
    }

    /// The backend, built now: to fail on a wrong name before judging anything.
    pub fn backend(&self) -> Result<Box<dyn Backend>> {
        backends::select(self.config, self.backend)
    }

    /// Judges `text` with `pipeline`, on its words alone; the backend is built only if Layer 1
    /// hits.
    pub fn judge(&self, pipeline: &Pipeline, text: &str) -> Result<Judgement> {
        self.judge_with_evidence(pipeline, text, &crate::evidence::Lazy::none())
    }

    /// Judges `text` and the turn's `evidence` (read only if Layer 1 hits) with `pipeline`.
    /// The part of `text` the detectors read: its last `stop.scan_bytes`, never cut inside a
    /// secret.
    pub fn judged_part<'a>(&self, text: &'a str) -> &'a str {
        match self.scan_bytes {
            Some(bytes) => crate::redact::tail_outside_secrets(text, bytes),
            None => text,
        }
    }

    pub fn judge_with_evidence(
        &self,
        pipeline: &Pipeline,
        text: &str,
        evidence: &crate::evidence::Lazy,
    ) -> Result<Judgement> {
        let text = self.judged_part(text);
        pipeline.judge_with(
            text,
            self.window,
            self.cascade,
            || self.backend(),
            self.timeout,
            evidence,
        )
    }
}
