//! A pattern of the evidence tables, compiled on first use, and only once its literal gate
//! (computed by build.rs with `crate::gate`) occurs in a text: a command line or an output
//! rarely contains the literals of more than a few of them.

use std::sync::OnceLock;

use regex::Regex;

/// Clauses of lowercased literals (ASCII, and non-ASCII by `gate::fold_non_ascii`): every
/// match contains one literal of each clause.
type Gate = &'static [&'static [&'static [u8]]];

include!(concat!(env!("OUT_DIR"), "/evidence-gates.rs"));

pub struct Gated {
    pattern: String,
    gate: Option<Gate>,
    regex: OnceLock<Regex>,
}

impl Gated {
    pub fn new(pattern: String) -> Gated {
        // Every pattern of the tables has its gate from build.rs; none means "always run".
        let gate = EVIDENCE_GATES
            .binary_search_by(|(gated, _)| (*gated).cmp(pattern.as_str()))
            .ok()
            .and_then(|at| EVIDENCE_GATES[at].1);
        Gated {
            pattern,
            gate,
            regex: OnceLock::new(),
        }
    }

    /// The regex; build.rs checked its syntax and a unit test compiles every one.
    pub fn regex(&self) -> &Regex {
        self.regex
            .get_or_init(|| Regex::new(&self.pattern).expect("evidence patterns compile"))
    }

    /// Whether the pattern can match a text whose ASCII-lowercased bytes are `lower`.
    fn may_match(&self, lower: &[u8]) -> bool {
        self.gate.is_none_or(|clauses| {
            clauses.iter().all(|clause| {
                clause
                    .iter()
                    .any(|literal| memchr::memmem::find(lower, literal).is_some())
            })
        })
    }

    pub fn is_match(&self, text: &Lowered) -> bool {
        self.may_match(&text.lower) && self.regex().is_match(text.text)
    }
}

/// A text with its lowercased bytes (as the gates are), for the gates.
pub struct Lowered<'t> {
    pub text: &'t str,
    lower: Vec<u8>,
}

impl<'t> Lowered<'t> {
    pub fn new(text: &'t str) -> Lowered<'t> {
        Lowered {
            text,
            // The gate literals are folded the same way (`gate::fold_non_ascii`).
            lower: crate::gate::fold_non_ascii(text).map_or_else(
                || text.as_bytes().to_ascii_lowercase(),
                |folded| folded.into_bytes().to_ascii_lowercase(),
            ),
        }
    }

    /// The matches of `pattern` (none when its gate is closed).
    pub fn captures<'p>(
        &'p self,
        pattern: &'p Gated,
    ) -> impl Iterator<Item = regex::Captures<'t>> + 'p {
        pattern
            .may_match(&self.lower)
            .then(|| pattern.regex().captures_iter(self.text))
            .into_iter()
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pattern build.rs gated is found by its lookup, with its own gate: a pattern it
    /// missed would silently run on every text.
    #[test]
    fn every_embedded_gate_is_found_by_its_pattern() {
        assert!(EVIDENCE_GATES.windows(2).all(|w| w[0].0 < w[1].0));
        let gated = EVIDENCE_GATES.iter().filter(|(_, gate)| gate.is_some());
        assert!(gated.count() > 20);
        for (pattern, gate) in EVIDENCE_GATES {
            assert_eq!(Gated::new(pattern.to_string()).gate, *gate, "{pattern}");
        }
    }
}
