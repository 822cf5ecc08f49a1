//! Placeholder until the redaction branch lands (replaced wholesale at merge).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;

pub type RedactionCounts = BTreeMap<String, u64>;

pub struct Redacted {
    pub text: String,
    pub counts: RedactionCounts,
}

pub struct Redactor {
    rules: Vec<(&'static str, Regex)>,
}

impl Redactor {
    pub fn builtin() -> &'static Redactor {
        static REDACTOR: OnceLock<Redactor> = OnceLock::new();
        REDACTOR.get_or_init(|| Redactor {
            rules: vec![
                (
                    "aws-access-key",
                    Regex::new(r"\bAKIA[0-9A-Z]{16}\b").unwrap(),
                ),
                (
                    "github-pat",
                    Regex::new(r"\bghp_[0-9A-Za-z]{36}\b").unwrap(),
                ),
            ],
        })
    }

    pub fn redact(&self, text: &str) -> Redacted {
        let mut out = text.to_string();
        let mut counts = RedactionCounts::new();
        for (kind, regex) in &self.rules {
            let n = regex.find_iter(&out).count() as u64;
            if n > 0 {
                out = regex
                    .replace_all(&out, format!("[REDACTED:{kind}]"))
                    .into_owned();
                counts.insert(kind.to_string(), n);
            }
        }
        Redacted { text: out, counts }
    }
}
