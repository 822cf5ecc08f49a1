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

/// Who decides a detector's fields after a Layer 1 hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JudgeBy {
    /// The configured judge backend (an LLM, or the offline `rules` judge).
    Backend,
    /// The evidence of the turn's tool calls, offline, without a backend: the `[rules]` cues
    /// decide the `<kind>_claimed` fields on the final message, the turn's runs and edits the
    /// `<kind>_backed` fields (`src/evidence/`).
    Evidence,
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
    /// Who decides the fields after a hit (default: the backend).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeBy>,
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
    /// Cue patterns per field, for the offline `rules` judge: a match makes the field true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<BTreeMap<String, Vec<String>>>,
    /// Cues that make the `rules` judge unsure of a field no `rules` cue settled (a hedge, a
    /// weaker shape of the behaviour): with an LLM configured, that hit goes to the LLM.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules_unsure: Option<BTreeMap<String, Vec<String>>>,
    /// Cues that speak against a field (admissions and negations: "not run", "0 ran", "will
    /// run"): alone they make it false, next to a `rules` cue they make it unsure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules_against: Option<BTreeMap<String, Vec<String>>>,
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
            judge,
            triggers,
            skips,
            fields,
            block_when,
            prompt,
            feedback,
            rules,
            rules_unsure,
            rules_against
        );
    }
}

/// Joins the lines of each paragraph: feedback is wrapped for reading in TOML, but the agent
/// and the user should get whole sentences.
pub fn reflow(text: &str) -> String {
    text.trim()
        .split("\n\n")
        .map(|paragraph| paragraph.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// `text` reflowed, without the work when it already is (build.rs reflows the built-ins).
pub fn reflowed(text: String) -> String {
    let paragraph_is_flowed = |paragraph: &str| {
        !paragraph.starts_with(' ')
            && !paragraph.ends_with(' ')
            && !paragraph.contains("  ")
            && !paragraph.chars().any(|c| c.is_whitespace() && c != ' ')
    };
    if text.trim() == text && text.split("\n\n").all(paragraph_is_flowed) {
        text
    } else {
        reflow(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflowed_is_reflow() {
        for text in [
            "One sentence.",
            "Two lines\nof one paragraph.\n\nA second  paragraph. ",
            "  leading",
            "a\n\n\n\nb",
            "a\n\n\nb",
            "tab\there",
            "already flowed.\n\nTwo paragraphs.",
            "",
        ] {
            assert_eq!(reflowed(text.to_string()), reflow(text), "{text:?}");
        }
    }
}
