//! The rule table: `assets/redact/rules.toml` parsed, validated and compiled.

use aho_corasick::AhoCorasick;
use std::sync::OnceLock;

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

/// A regex compiled on first use. The rule table is loaded on every hook call (to redact the
/// text kept in the log) while most texts trigger no rule's keyword: compiling all ~200
/// regexes up front cost more than everything else a stop hook does. The pattern is checked
/// when the table is parsed (`Validation::Compile`) or by the unit tests (the built-in table).
pub(crate) struct LazyRegex {
    pattern: String,
    compiled: OnceLock<Regex>,
}

impl LazyRegex {
    fn new(pattern: &str) -> LazyRegex {
        LazyRegex {
            pattern: pattern.to_string(),
            compiled: OnceLock::new(),
        }
    }
}

impl std::ops::Deref for LazyRegex {
    type Target = Regex;

    fn deref(&self) -> &Regex {
        self.compiled.get_or_init(|| {
            build_regex(&self.pattern).expect("redaction patterns are checked when loaded")
        })
    }
}

/// Whether `parse` compiles every pattern now (a user's table: errors must surface at load)
/// or leaves them to first use (the built-in table, which the unit tests compile in full).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Validation {
    Compile,
    Trusted,
}

/// One compiled rule.
pub(crate) struct Rule {
    pub id: String,
    pub keywords: Vec<String>,
    pub regex: LazyRegex,
    pub min_entropy: f64,
    /// Placeholder substrings specific to this rule (ASCII case-insensitive).
    pub allow: Option<AhoCorasick>,
    pub reject_secret: Vec<LazyRegex>,
    pub reject_match: Vec<LazyRegex>,
    pub block: Option<Block>,
}

impl Rule {
    /// Index of the `secret` capture group, if the regex has one.
    pub fn secret_group(&self) -> Option<usize> {
        self.regex
            .capture_names()
            .position(|name| name == Some("secret"))
    }
}

/// A secret that spans lines (a PEM private key): opening line, body lines, closing line.
pub(crate) struct Block {
    pub begin: LazyRegex,
    pub end: LazyRegex,
    pub line: LazyRegex,
}

pub(crate) struct RuleTable {
    pub rules: Vec<Rule>,
    /// Placeholder substrings that exempt a secret under every rule (ASCII case-insensitive).
    pub placeholders: Option<AhoCorasick>,
}

/// Parses and compiles a rule table; `origin` names it in error messages.
pub(crate) fn parse(origin: &str, text: &str, validation: Validation) -> Result<RuleTable> {
    let file: RulesFile = toml_edit::de::from_str(text).map_err(|err| {
        Error::config(format!("{origin}: invalid redaction rules: {err}"))
            .with_hint("see the field reference at the top of assets/redact/rules.toml")
    })?;
    let mut rules: Vec<Rule> = Vec::with_capacity(file.rule.len());
    for spec in file.rule {
        let rule = compile(origin, spec, file.default_entropy, validation)?;
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

fn compile(
    origin: &str,
    spec: RuleSpec,
    default_entropy: f64,
    validation: Validation,
) -> Result<Rule> {
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
    let compile_regex = |field: &str, pattern: &str| -> Result<LazyRegex> {
        if validation == Validation::Compile {
            build_regex(pattern).map_err(|err| {
                Error::config(format!(
                    "{origin}: rule `{id}`, field `{field}`: invalid regex: {err}"
                ))
                .with_hint("the syntax is that of the Rust `regex` crate")
            })?;
        }
        Ok(LazyRegex::new(pattern))
    };
    let regex = compile_regex("regex", &spec.regex)?;
    let compile_all = |field: &str, patterns: &[String]| -> Result<Vec<LazyRegex>> {
        patterns.iter().map(|p| compile_regex(field, p)).collect()
    };
    let reject_secret = compile_all("reject_secret", &spec.reject_secret)?;
    let reject_match = compile_all("reject_match", &spec.reject_match)?;
    let block = match (spec.block_begin, spec.block_end, spec.block_line) {
        (None, None, None) => None,
        (Some(begin), Some(end), Some(line)) => Some(Block {
            begin: compile_regex("block_begin", &begin)?,
            end: compile_regex("block_end", &end)?,
            line: compile_regex("block_line", &line)?,
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
fn build_regex(pattern: &str) -> std::result::Result<Regex, regex::Error> {
    RegexBuilder::new(pattern).unicode(false).build()
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
