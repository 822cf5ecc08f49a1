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

/// The keyword prefilter of a rule table: every keyword once (ASCII-lowercased, in order of
/// first use) with the indexes of the rules it triggers. Shared by `build.rs` (the built-in
/// table) and `Redactor::from_table` (a user's table).
pub fn keyword_table<'a>(
    rule_keywords: impl IntoIterator<Item = &'a [String]>,
) -> Vec<(String, Vec<u16>)> {
    let mut table: Vec<(String, Vec<u16>)> = Vec::new();
    for (index, keywords) in rule_keywords.into_iter().enumerate() {
        // Rule tables are capped at u16::MAX rules when parsed.
        let index = u16::try_from(index).unwrap_or(u16::MAX);
        for keyword in keywords {
            let keyword = keyword.to_ascii_lowercase();
            match table.iter_mut().find(|(k, _)| *k == keyword) {
                Some((_, rules)) if !rules.contains(&index) => rules.push(index),
                Some(_) => {}
                None => table.push((keyword, vec![index])),
            }
        }
    }
    table
}
