//! The rule table: `assets/redact/rules.toml` parsed, validated and compiled.

use aho_corasick::AhoCorasick;
use regex::bytes::{Regex, RegexBuilder};
use serde::Deserialize;

use crate::error::{Error, Result};

/// Keywords shorter than this would make the prefilter fire on most lines.
const MIN_KEYWORD_LEN: usize = 3;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    default_entropy: f64,
    allow: AllowSection,
    rule: Vec<RuleSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowSection {
    placeholders: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    id: String,
    #[allow(dead_code)] // documentation for readers of the table
    description: String,
    keywords: Vec<String>,
    regex: String,
    entropy: Option<f64>,
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    reject_secret: Vec<String>,
    #[serde(default)]
    reject_match: Vec<String>,
    block_begin: Option<String>,
    block_end: Option<String>,
    block_line: Option<String>,
}

/// One compiled rule.
pub(crate) struct Rule {
    pub id: String,
    pub keywords: Vec<String>,
    pub regex: Regex,
    /// Index of the `secret` capture group, if the regex has one.
    pub secret_group: Option<usize>,
    pub min_entropy: f64,
    /// Placeholder substrings specific to this rule (ASCII case-insensitive).
    pub allow: Option<AhoCorasick>,
    pub reject_secret: Vec<Regex>,
    pub reject_match: Vec<Regex>,
    pub block: Option<Block>,
}

/// A secret that spans lines (a PEM private key): opening line, body lines, closing line.
pub(crate) struct Block {
    pub begin: Regex,
    pub end: Regex,
    pub line: Regex,
}

pub(crate) struct RuleTable {
    pub rules: Vec<Rule>,
    /// Placeholder substrings that exempt a secret under every rule (ASCII case-insensitive).
    pub placeholders: Option<AhoCorasick>,
}

/// Parses and compiles a rule table; `origin` names it in error messages.
pub(crate) fn parse(origin: &str, text: &str) -> Result<RuleTable> {
    let file: RulesFile = toml_edit::de::from_str(text).map_err(|err| {
        Error::config(format!("{origin}: invalid redaction rules: {err}"))
            .with_hint("see the field reference at the top of assets/redact/rules.toml")
    })?;
    let mut rules: Vec<Rule> = Vec::with_capacity(file.rule.len());
    for spec in file.rule {
        let rule = compile(origin, spec, file.default_entropy)?;
        if rules.iter().any(|other| other.id == rule.id) {
            return Err(
                Error::config(format!("{origin}: rule `{}` is defined twice", rule.id))
                    .with_hint("rule ids are the redaction kinds and must be unique"),
            );
        }
        rules.push(rule);
    }
    if rules.len() > usize::from(u16::MAX) {
        return Err(Error::config(format!(
            "{origin}: more than {} rules",
            u16::MAX
        )));
    }
    let placeholders = substring_matcher(origin, "allow.placeholders", &file.allow.placeholders)?;
    Ok(RuleTable {
        rules,
        placeholders,
    })
}

fn compile(origin: &str, spec: RuleSpec, default_entropy: f64) -> Result<Rule> {
    let id = spec.id;
    let is_kebab = !id.is_empty()
        && id.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        });
    if !is_kebab {
        return Err(
            Error::config(format!("{origin}: rule id `{id}` is not kebab-case"))
                .with_hint("use lower-case words joined by `-`, e.g. `github-pat`"),
        );
    }
    if spec.keywords.is_empty() {
        return Err(
            Error::config(format!("{origin}: rule `{id}` has no keywords"))
                .with_hint("a rule's regex only runs on lines containing one of its keywords"),
        );
    }
    if let Some(short) = spec.keywords.iter().find(|k| k.len() < MIN_KEYWORD_LEN) {
        return Err(Error::config(format!(
            "{origin}: rule `{id}` has keyword `{short}`, shorter than {MIN_KEYWORD_LEN} characters"
        ))
        .with_hint("short keywords match most lines and defeat the prefilter"));
    }
    if let Some(multi_line) = spec.keywords.iter().find(|k| k.contains('\n')) {
        return Err(Error::config(format!(
            "{origin}: rule `{id}` has keyword {multi_line:?} spanning lines"
        ))
        .with_hint("rules match one line at a time; use a `block_*` rule for multi-line secrets"));
    }
    let regex = compile_regex(origin, &id, "regex", &spec.regex)?;
    let secret_group = regex
        .capture_names()
        .position(|name| name == Some("secret"));
    let compile_all = |field: &str, patterns: &[String]| -> Result<Vec<Regex>> {
        patterns
            .iter()
            .map(|p| compile_regex(origin, &id, field, p))
            .collect()
    };
    let reject_secret = compile_all("reject_secret", &spec.reject_secret)?;
    let reject_match = compile_all("reject_match", &spec.reject_match)?;
    let block = match (spec.block_begin, spec.block_end, spec.block_line) {
        (None, None, None) => None,
        (Some(begin), Some(end), Some(line)) => Some(Block {
            begin: compile_regex(origin, &id, "block_begin", &begin)?,
            end: compile_regex(origin, &id, "block_end", &end)?,
            line: compile_regex(origin, &id, "block_line", &line)?,
        }),
        _ => {
            return Err(Error::config(format!(
                "{origin}: rule `{id}` sets only some of block_begin, block_end, block_line"
            ))
            .with_hint("a multi-line block needs all three"));
        }
    };
    Ok(Rule {
        keywords: lowercase_all(spec.keywords),
        regex,
        secret_group,
        min_entropy: spec.entropy.unwrap_or(default_entropy),
        allow: substring_matcher(origin, &format!("rule `{id}`, field `allow`"), &spec.allow)?,
        reject_secret,
        reject_match,
        block,
        id,
    })
}

/// Rules are ASCII formats: compiling them without Unicode classes is ten times faster and
/// lets the regex engines stay on their DFAs for non-ASCII text. Matches are widened to
/// character boundaries by the scanner.
fn compile_regex(origin: &str, id: &str, field: &str, pattern: &str) -> Result<Regex> {
    RegexBuilder::new(pattern)
        .unicode(false)
        .build()
        .map_err(|err| {
            Error::config(format!(
                "{origin}: rule `{id}`, field `{field}`: invalid regex: {err}"
            ))
            .with_hint("the syntax is that of the Rust `regex` crate")
        })
}

/// One automaton for a list of placeholder substrings; None for an empty list.
fn substring_matcher(origin: &str, field: &str, words: &[String]) -> Result<Option<AhoCorasick>> {
    if words.is_empty() {
        return Ok(None);
    }
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(words)
        .map(Some)
        .map_err(|err| {
            Error::config(format!(
                "{origin}: {field}: cannot build the matcher: {err}"
            ))
        })
}

fn lowercase_all(words: Vec<String>) -> Vec<String> {
    words.into_iter().map(|w| w.to_ascii_lowercase()).collect()
}
