//! The schema of a redaction rule table (`assets/redact/rules.toml`). Shared with `build.rs`,
//! which turns the built-in table into Rust at build time (so a hook parses no TOML to redact
//! what it logs), hence no `crate::` paths here.

use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    pub default_entropy: f64,
    pub allow: AllowSection,
    pub rule: Vec<RuleSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllowSection {
    pub placeholders: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    pub id: String,
    #[allow(dead_code)] // documentation for readers of the table
    pub description: String,
    pub keywords: Vec<String>,
    pub regex: String,
    pub entropy: Option<f64>,
    #[serde(default)]
    pub allow: Vec<String>,
    #[serde(default)]
    pub reject_secret: Vec<String>,
    #[serde(default)]
    pub reject_match: Vec<String>,
    pub block_begin: Option<String>,
    pub block_end: Option<String>,
    pub block_line: Option<String>,
}
