//! The rule table: `assets/redact/rules.toml` (turned into Rust at build time) or a user's
//! table in the same format, validated and compiled.

use aho_corasick::AhoCorasick;
use std::sync::OnceLock;

use regex::bytes::{Regex, RegexBuilder};
use regex_automata::util::syntax;
use regex_automata::{PatternID, meta};

use super::assign::Grammar;
use super::spec::{AllowSection, AssignmentSpec, RuleSpec, RulesFile};
use crate::error::{Error, Result};
use crate::literals::{BitSet, Literal, LiteralIndex, TripleCandidate};
use std::borrow::Cow;

include!(concat!(env!("OUT_DIR"), "/builtin_redaction.rs"));

/// Keywords shorter than this would make the prefilter fire on most lines.
const MIN_KEYWORD_LEN: usize = 3;

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
    pub allow: LazyMatcher,
    pub reject_secret: Vec<LazyRegex>,
    pub reject_match: Vec<LazyRegex>,
    pub block: Option<Block>,
    /// `marker` and `shape`: see [`Rule::disowns`].
    pub format: Option<(LazyRegex, LazyRegex)>,
    /// The rule is a built-in recognizer rather than its regex (which is then empty).
    pub recognizer: Option<Recognizer>,
    /// See [`Rule::anchored`].
    pub anchored: OnceLock<Option<Anchored>>,
    /// How the assignment grammar must also judge the secret, if at all.
    pub judged_as: Option<Judgement>,
    /// The shape the rule runs at instead of keywords, if any.
    pub prefilter: Option<Prefilter>,
}

/// A rule's `prefilter`: a token shape found without a literal keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prefilter {
    /// Three dot-separated base64url parts whose first is the base64 of a decimal id (a
    /// Discord bot token: the bot's snowflake id, a timestamp, an HMAC); see
    /// `super::is_snowflake_token`.
    SnowflakeToken,
}

/// A rule's `judged_as`: the secret is also judged as the assignment grammar judges a password.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Judgement {
    /// The secret is the password (quotes around it aside).
    Password,
    /// The secret is base64 of `user:password` (HTTP Basic): the password is judged.
    BasicCredentials,
}

/// Built-in recognizers a rule can name (`recognizer = "…"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recognizer {
    /// "secret-like key, operator, value" (`super::assign`).
    Assignment,
    /// "password word, connector, value" in prose, in any language (`super::assign`).
    Prose,
    /// The same for tokens and keys ("the API key for staging is …"): only a value that is
    /// unmistakably generated, since "the token is expired" goes on with words.
    ProseGenerated,
    /// Base64 that decodes to text holding secrets: a credential file dumped encoded.
    Base64,
    /// The output lines after a command line (the rule's regex) that prints a secret:
    /// `$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d`.
    CommandOutput,
    /// The cookies of a `Cookie:` / `Set-Cookie:` header after the rule's keyword: its regex
    /// matches one `name=value` pair (the `secret` group the value), and every pair it
    /// accepts is redacted.
    CookieHeader,
}

/// A rule's regex for searches anchored at a keyword.
pub(crate) struct Anchored {
    pub regex: meta::Regex,
    pub secret_group: Option<usize>,
}

impl Rule {
    /// Whether `value` is written in this rule's format (its marker) without the format's
    /// documented shape: a made-up token, not a secret.
    pub fn disowns(&self, value: &[u8]) -> bool {
        self.format
            .as_ref()
            .is_some_and(|(marker, shape)| marker.is_match(value) && !shape.is_match(value))
    }

    /// When every match of the rule starts with one of its keywords (checked on the regex's
    /// syntax, `gate::prefixes`), the rule need not scan a whole triggered line: a search
    /// anchored at each keyword occurrence finds the same matches. A rule run at a shape
    /// prefilter is searched at the tokens it finds. None for other rules and for multi-line
    /// blocks.
    pub fn anchored(&self) -> Option<&Anchored> {
        self.anchored
            .get_or_init(|| {
                if self.block.is_some() || self.recognizer.is_some() {
                    return None;
                }
                if self.prefilter.is_none() {
                    let prefixes = crate::gate::prefixes(&self.regex.pattern, false).ok()??;
                    let starts_with_a_keyword = prefixes.iter().all(|prefix| {
                        self.keywords
                            .iter()
                            .any(|keyword| prefix.starts_with(keyword.as_bytes()))
                    });
                    if !starts_with_a_keyword {
                        return None;
                    }
                }
                let regex = meta::Builder::new()
                    .syntax(syntax::Config::new().unicode(false).utf8(false))
                    .configure(meta::Config::new().utf8_empty(false))
                    .build(&self.regex.pattern)
                    .ok()?;
                let secret_group = regex.group_info().to_index(PatternID::ZERO, "secret");
                Some(Anchored {
                    regex,
                    secret_group,
                })
            })
            .as_ref()
    }

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
    pub placeholders: LazyMatcher,
    /// The assignment recognizer's vocabulary, when the table has an `[assignment]` section.
    pub assignment: Option<Grammar>,
}

/// The built-in table; its patterns are compiled on first use (the unit tests compile them all).
pub(crate) fn builtin() -> Result<RuleTable> {
    from_file(
        "assets/redact/rules.toml",
        builtin_rules_file(),
        Validation::Trusted,
    )
}

/// Parses and compiles a rule table; `origin` names it in error messages.
pub(crate) fn parse(origin: &str, text: &str, validation: Validation) -> Result<RuleTable> {
    let file: RulesFile = toml_edit::de::from_str(text).map_err(|err| {
        Error::config(format!("{origin}: invalid redaction rules: {err}"))
            .with_hint("see the field reference at the top of assets/redact/rules.toml")
    })?;
    from_file(origin, file, validation)
}

fn from_file(origin: &str, file: RulesFile, validation: Validation) -> Result<RuleTable> {
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
    let assignment = file.assignment.as_ref().map(Grammar::new);
    if assignment.is_none()
        && let Some(rule) = rules
            .iter()
            .find(|rule| rule.recognizer.is_some() || rule.judged_as.is_some())
    {
        return Err(Error::config(format!(
            "{origin}: rule `{}` uses a built-in recognizer but there is no [assignment] section",
            rule.id
        ))
        .with_hint("add the [assignment] section of assets/redact/rules.toml"));
    }
    let AllowSection { placeholders } = file.allow;
    let placeholders = LazyMatcher::new(origin, "allow.placeholders", placeholders, validation)?;
    Ok(RuleTable {
        rules,
        placeholders,
        assignment,
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
    let prefilter = match spec.prefilter.as_deref() {
        None => None,
        Some("snowflake-token") => Some(Prefilter::SnowflakeToken),
        Some(other) => {
            return Err(Error::config(format!(
                "{origin}: rule `{id}` names an unknown prefilter `{other}`"
            ))
            .with_hint("the built-in prefilter is `snowflake-token`"));
        }
    };
    if spec.keywords.is_empty() && prefilter.is_none() {
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
    let recognizer = match spec.recognizer.as_deref() {
        None if spec.regex.is_empty() => {
            return Err(Error::config(format!("{origin}: rule `{id}` has no regex"))
                .with_hint("set `regex`, or `recognizer = \"assignment\"`"));
        }
        None => None,
        Some("assignment") if spec.regex.is_empty() => Some(Recognizer::Assignment),
        Some("prose") if spec.regex.is_empty() => Some(Recognizer::Prose),
        Some("base64") if spec.regex.is_empty() => Some(Recognizer::Base64),
        Some("prose-generated") if spec.regex.is_empty() => Some(Recognizer::ProseGenerated),
        Some("command-output") if !spec.regex.is_empty() => Some(Recognizer::CommandOutput),
        Some("cookie-header") if !spec.regex.is_empty() => Some(Recognizer::CookieHeader),
        Some("cookie-header") => {
            return Err(Error::config(format!(
                "{origin}: rule `{id}` (recognizer `cookie-header`) has no regex"
            ))
            .with_hint("its regex matches one `name=value` pair of the header"));
        }
        Some("command-output") => {
            return Err(Error::config(format!(
                "{origin}: rule `{id}` (recognizer `command-output`) has no regex"
            ))
            .with_hint("its regex matches the command line whose output is the secret"));
        }
        Some("assignment" | "prose" | "prose-generated" | "base64") => {
            return Err(Error::config(format!(
                "{origin}: rule `{id}` sets both `regex` and `recognizer`"
            ))
            .with_hint("a rule is either a pattern or a built-in recognizer"));
        }
        Some(other) => {
            return Err(Error::config(format!(
                "{origin}: rule `{id}` names an unknown recognizer `{other}`"
            ))
            .with_hint(
                "the built-in recognizers are `assignment`, `prose`, `prose-generated`, `base64`, \
                 `command-output` and `cookie-header`",
            ));
        }
    };
    let regex = if recognizer.is_some()
        && !matches!(
            recognizer,
            Some(Recognizer::CommandOutput | Recognizer::CookieHeader)
        ) {
        LazyRegex::new("")
    } else {
        compile_regex("regex", &spec.regex)?
    };
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
    let judged_as =
        match spec.judged_as.as_deref() {
            None => None,
            Some("password") => Some(Judgement::Password),
            Some("basic-credentials") => Some(Judgement::BasicCredentials),
            Some(other) => {
                return Err(Error::config(format!(
                    "{origin}: rule `{id}` has judged_as = `{other}`"
                ))
                .with_hint("a rule can be `judged_as = \"password\"` or `\"basic-credentials\"`"));
            }
        };
    let format = match (spec.marker, spec.shape) {
        (None, None) => None,
        (Some(marker), Some(shape)) => Some((
            compile_regex("marker", &marker)?,
            compile_regex("shape", &shape)?,
        )),
        _ => {
            return Err(Error::config(format!(
                "{origin}: rule `{id}` sets only one of marker, shape"
            ))
            .with_hint("a format's marker says a value is written in it, its shape when it is real: set both"));
        }
    };
    Ok(Rule {
        format,
        keywords: lowercase_all(spec.keywords),
        regex,
        min_entropy: spec.entropy.unwrap_or(default_entropy),
        allow: LazyMatcher::new(
            origin,
            &format!("rule `{id}`, field `allow`"),
            spec.allow,
            validation,
        )?,
        reject_secret,
        reject_match,
        block,
        recognizer,
        anchored: OnceLock::new(),
        judged_as,
        prefilter,
        id,
    })
}

/// Rules are ASCII formats: compiling them without Unicode classes is ten times faster and
/// lets the regex engines stay on their DFAs for non-ASCII text. Matches are widened to
/// character boundaries by the scanner.
fn build_regex(pattern: &str) -> std::result::Result<Regex, regex::Error> {
    RegexBuilder::new(pattern).unicode(false).build()
}

/// Placeholder substrings in one automaton, built the first time a candidate secret needs
/// checking (most texts hold none).
pub(crate) struct LazyMatcher {
    words: Vec<String>,
    built: OnceLock<Option<AhoCorasick>>,
}

impl LazyMatcher {
    fn new(
        origin: &str,
        field: &str,
        words: Vec<String>,
        validation: Validation,
    ) -> Result<LazyMatcher> {
        let matcher = LazyMatcher {
            words,
            built: OnceLock::new(),
        };
        if validation == Validation::Compile {
            let built = substring_matcher(&matcher.words).map_err(|err| {
                Error::config(format!(
                    "{origin}: {field}: cannot build the matcher: {err}"
                ))
            })?;
            let _ = matcher.built.set(built);
        }
        Ok(matcher)
    }

    /// Whether one of the words occurs in `text` (ASCII case-insensitive).
    pub fn is_match(&self, text: &[u8]) -> bool {
        self.built
            .get_or_init(|| {
                substring_matcher(&self.words).expect("placeholder lists are checked when loaded")
            })
            .as_ref()
            .is_some_and(|matcher| matcher.is_match(text))
    }
}

/// One automaton for a list of substrings; None for an empty list.
fn substring_matcher(
    words: &[String],
) -> std::result::Result<Option<AhoCorasick>, aho_corasick::BuildError> {
    if words.is_empty() {
        return Ok(None);
    }
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(words)
        .map(Some)
}

fn lowercase_all(words: Vec<String>) -> Vec<String> {
    words.into_iter().map(|w| w.to_ascii_lowercase()).collect()
}
