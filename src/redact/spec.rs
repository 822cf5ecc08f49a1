//! The schema of a redaction rule table (`assets/redact/rules.toml`). Shared with `build.rs`,
//! which turns the built-in table into Rust at build time (so a hook parses no TOML to redact
//! what it logs), hence no `crate::` paths here.

use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    pub default_entropy: f64,
    pub allow: AllowSection,
    /// The vocabulary of the assignment recognizer; required when a rule uses it.
    pub assignment: Option<AssignmentSpec>,
    pub rule: Vec<RuleSpec>,
}

/// The words the assignment recognizer ("secret-like key, operator, value") works with. Its
/// grammar (operators, quoting, value ends) is code; what counts as a secret-like key and as a
/// placeholder value is this data.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssignmentSpec {
    /// Words naming a password; a key word equal to one (or, for those of 6 letters or more,
    /// ending with one: `dbpassword`) makes the key password-like.
    pub password_words: Vec<String>,
    /// Words naming another secret, matched the same way (`token`, `authtoken`).
    pub secret_words: Vec<String>,
    /// Whole keys (lower-cased) that are secret-like though no word of theirs is: session
    /// cookie names such as `sid` and `connect.sid`.
    pub secret_keys: Vec<String>,
    /// Words that make a following `key` secret-like (`api key`, `signing key`); also matched
    /// glued (`apikey`).
    pub key_qualifiers: Vec<String>,
    /// A key whose last word is one of these names something about a secret, not the secret
    /// (`password_file`, `token_count`).
    pub non_secret_tails: Vec<String>,
    /// A key holding one of these words anywhere is not a credential (`csrf_token`, `max_tokens`).
    pub non_secret_words: Vec<String>,
    /// A word right before a key's last word that makes the key no credential: `next token`
    /// (pagination), `primary key`, `sort key` (database keys).
    #[serde(default)]
    pub non_secret_qualifiers: Vec<String>,
    /// Last words of a key written as several words, as a prompt or a label before `:`
    /// (`Enter the API key:`, `? Enter a secret value:`): the words before them say whether
    /// it is secret-like.
    #[serde(default)]
    pub phrase_heads: Vec<String>,
    /// Whole values that are no secret (`null`, `required`, `changeme`), case-insensitive.
    pub stop_values: Vec<String>,
    /// A value made only of these words (and separators) is a placeholder (`your-api-key-here`).
    pub placeholder_words: Vec<String>,
    /// Minimum length of a password value, and of any other secret value.
    pub min_password_length: usize,
    pub min_secret_length: usize,
    /// Minimum Shannon entropy (bits per character) of a value that is not a password.
    pub min_entropy: f64,
    /// Short words that may stand between a password word in prose and its value ("is",
    /// "lautet", "est", "là", "は", "是"), in any language; matched ASCII case-insensitively.
    #[serde(default)]
    pub prose_connectors: Vec<String>,
    /// The verbs that end a phrase qualifying a password word in prose ("the password FOR THE
    /// STAGING DATABASE is …", "Passwort für den Server lautet …"): after up to a few words
    /// of qualifier, one of these (or a word ending with `:`) introduces the value.
    #[serde(default)]
    pub prose_copulas: Vec<String>,
    /// Words of a sentence about a password (a rule, an instruction, where it is kept), never
    /// of a passphrase of words (`correct horse battery staple`): "must be at least 12
    /// characters", "see the vault".
    #[serde(default)]
    pub sentence_words: Vec<String>,
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
    /// The pattern; empty when `recognizer` names a built-in recognizer instead.
    #[serde(default)]
    pub regex: String,
    /// `"assignment"`: the rule is the assignment recognizer (see `[assignment]`).
    pub recognizer: Option<String>,
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
    /// The rule's format as a whole value: a value the assignment recognizer finds that
    /// matches `marker` (the format's documented prefix) is written in this format, and is a
    /// secret only when it matches `shape` whole; a token of the format's look but not its
    /// shape is made up (`telegram_token = "6924:Ap7q…"`, 4 digits where bots have 8 to 10).
    pub marker: Option<String>,
    pub shape: Option<String>,
    /// `"password"`: the secret is also judged as the assignment recognizer judges a password
    /// (`[assignment]`): a word, a default or a placeholder (`postgres://user:password@…`,
    /// `amqp://guest:guest@…`) is none.
    pub judged_as: Option<String>,
    /// `"snowflake-token"`: the rule runs where a token of that shape stands (see
    /// `Prefilter::SnowflakeToken`) instead of at keywords: a token whose format has no
    /// literal prefix to look for (a Discord bot token), found by its documented structure.
    pub prefilter: Option<String>,
}

/// The rules (indexes) that run at a shape prefilter rather than at keywords. Shared by
/// `build.rs` (the built-in table) and `Redactor::from_table` (a user's table).
pub fn shape_rules<'a>(prefilters: impl IntoIterator<Item = Option<&'a str>>) -> Vec<u16> {
    prefilters
        .into_iter()
        .enumerate()
        .filter(|(_, prefilter)| prefilter.is_some())
        .map(|(index, _)| u16::try_from(index).unwrap_or(u16::MAX))
        .collect()
}

/// The keyword prefilter of a rule table: every keyword once (ASCII-lowercased, in order of
/// first use) with the indexes of the rules it triggers. Shared by `build.rs` (the built-in
/// table) and `Redactor::from_table` (a user's table). A keyword holding `/` is also looked
/// for as JSON may write it, each `/` escaped (`:\/\/`, PHP's `json_encode`): the line is then
/// scanned, and the string holding it is redacted decoded.
pub fn keyword_table<'a>(
    rule_keywords: impl IntoIterator<Item = &'a [String]>,
) -> Vec<(String, Vec<u16>)> {
    let mut table: Vec<(String, Vec<u16>)> = Vec::new();
    for (index, keywords) in rule_keywords.into_iter().enumerate() {
        // Rule tables are capped at u16::MAX rules when parsed.
        let index = u16::try_from(index).unwrap_or(u16::MAX);
        let escaped_solidus = keywords
            .iter()
            .filter(|keyword| keyword.contains('/'))
            .map(|keyword| keyword.replace('/', "\\/"));
        let keywords: Vec<String> = keywords.iter().cloned().chain(escaped_solidus).collect();
        for keyword in &keywords {
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
