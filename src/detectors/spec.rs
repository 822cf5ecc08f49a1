//! The schema of a detector, as written in `assets/detectors/*.toml` and in `[[detectors]]`
//! entries of the config. Shared with `build.rs`, which turns the built-in TOML files into
//! Rust at build time (so a hook parses no TOML for them), hence no `crate::` paths here.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The hook event a detector reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Event {
    /// Stop and SubagentStop: the agent's final words.
    Stop,
    /// PreToolUse: a shell command about to run.
    PreTool,
}

/// One detector as written in TOML. In a user `[[detectors]]` entry only `name` is required:
/// for a built-in name the given keys override the built-in's, `enabled = false` disables it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectorSpec {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<Event>>,
    /// Layer 1: any match is a hit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<String>>,
    /// Layer 1: a match allows without the judge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skips: Option<Vec<String>>,
    /// The boolean fields the judge returns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<String>>,
    /// Formula over `fields`; true blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_when: Option<String>,
    /// What the judge must decide (wrapped by the pipeline with the anti-injection frame).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// What the agent is told on a block: what was found and what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    /// Cue patterns per field, for the offline `rules` judge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<BTreeMap<String, Vec<String>>>,
}

impl DetectorSpec {
    pub fn override_with(&mut self, other: &DetectorSpec) {
        macro_rules! take {
            ($($field:ident),*) => { $( if other.$field.is_some() { self.$field = other.$field.clone(); } )* };
        }
        take!(
            enabled,
            description,
            events,
            triggers,
            skips,
            fields,
            block_when,
            prompt,
            feedback,
            rules
        );
    }
}
