//! The block formula of a detector: a boolean expression over judge fields, parsed once at load.
//!
//! Grammar: `expr := or; or := and ("||" and)*; and := unary ("&&" unary)*;
//! unary := "!" unary | "(" expr ")" | field`. Fields are `[A-Za-z_][A-Za-z0-9_]*`.

use std::collections::BTreeMap;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Formula {
    Field(String),
    Not(Box<Formula>),
    And(Box<Formula>, Box<Formula>),
    Or(Box<Formula>, Box<Formula>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormulaError {
    pub message: String,
    /// Byte offset into the formula text.
    pub offset: usize,
}

impl fmt::Display for FormulaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at character {})", self.message, self.offset + 1)
    }
}

/// How deep parentheses and `!` may nest: formulas are written by people, a deeper one is a
/// mistake (or a fuzzer), and recursion must stay bounded.
const MAX_DEPTH: usize = 64;

impl Formula {
    /// Parses `text` and checks that every field is one of `known_fields`.
    pub fn parse(text: &str, known_fields: &[String]) -> Result<Formula, FormulaError> {
        let mut parser = Parser {
            text,
            pos: 0,
            depth: 0,
        };
        let formula = parser.or()?;
        parser.skip_ws();
        if parser.pos < text.len() {
            return Err(parser.error("unexpected text after the expression"));
        }
        formula.check_fields(known_fields)?;
        Ok(formula)
    }

    fn check_fields(&self, known: &[String]) -> Result<(), FormulaError> {
        for field in self.fields() {
            if !known.iter().any(|k| k == field) {
                return Err(FormulaError {
                    message: format!(
                        "unknown field `{field}` (the detector's fields are: {})",
                        known.join(", ")
                    ),
                    offset: 0,
                });
            }
        }
        Ok(())
    }

    /// Every field the formula mentions.
    pub fn fields(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_fields(&mut out);
        out
    }

    fn collect_fields<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Formula::Field(name) => out.push(name),
            Formula::Not(inner) => inner.collect_fields(out),
            Formula::And(a, b) | Formula::Or(a, b) => {
                a.collect_fields(out);
                b.collect_fields(out);
            }
        }
    }

    /// Evaluates over the judge's fields; a missing field counts as false.
    pub fn eval(&self, fields: &BTreeMap<String, bool>) -> bool {
        match self {
            Formula::Field(name) => fields.get(name).copied().unwrap_or(false),
            Formula::Not(inner) => !inner.eval(fields),
            Formula::And(a, b) => a.eval(fields) && b.eval(fields),
            Formula::Or(a, b) => a.eval(fields) || b.eval(fields),
        }
    }

    /// Evaluates with three values (Kleene logic): `None` is a field nobody could decide
    /// (the offline judge's "unsure"). A missing field counts as false, as in [`Formula::eval`].
    /// The result is `None` only when the undecided fields change the outcome.
    pub fn eval_partial(&self, fields: &BTreeMap<String, Option<bool>>) -> Option<bool> {
        match self {
            Formula::Field(name) => fields.get(name).copied().unwrap_or(Some(false)),
            Formula::Not(inner) => inner.eval_partial(fields).map(|v| !v),
            Formula::And(a, b) => match (a.eval_partial(fields), b.eval_partial(fields)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            Formula::Or(a, b) => match (a.eval_partial(fields), b.eval_partial(fields)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
        }
    }
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> FormulaError {
        FormulaError {
            message: message.to_string(),
            offset: self.pos,
        }
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.text[self.pos..].chars().next() {
            if !c.is_whitespace() {
                break;
            }
            self.pos += c.len_utf8();
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.text[self.pos..].starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Formula, FormulaError> {
        let mut left = self.and()?;
        while self.eat("||") {
            let right = self.and()?;
            left = Formula::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Formula, FormulaError> {
        let mut left = self.unary()?;
        while self.eat("&&") {
            let right = self.unary()?;
            left = Formula::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Formula, FormulaError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("expression nested too deeply"));
        }
        let result = if self.eat("!") {
            self.unary().map(|inner| Formula::Not(Box::new(inner)))
        } else if self.eat("(") {
            let inner = self.or()?;
            if !self.eat(")") {
                return Err(self.error("expected `)`"));
            }
            Ok(inner)
        } else {
            self.field()
        };
        self.depth -= 1;
        result
    }

    fn field(&mut self) -> Result<Formula, FormulaError> {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        let len = rest
            .char_indices()
            .find(|&(i, c)| !(c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit())))
            .map_or(rest.len(), |(i, _)| i);
        if len == 0 {
            return Err(if rest.is_empty() {
                self.error("expected a field name, found the end of the formula")
            } else {
                self.error("expected a field name, `!` or `(`")
            });
        }
        self.pos += len;
        Ok(Formula::Field(rest[..len].to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Vec<String> {
        ["a", "b", "c", "new_proposal"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    fn eval(text: &str, trues: &[&str]) -> bool {
        let formula = Formula::parse(text, &known()).unwrap();
        let fields = trues.iter().map(|f| (f.to_string(), true)).collect();
        formula.eval(&fields)
    }

    #[test]
    fn partial_evaluation_is_unsure_only_when_it_matters() {
        let formula = Formula::parse("a && !b", &known()).unwrap();
        let fields = |a: Option<bool>, b: Option<bool>| {
            BTreeMap::from([("a".to_string(), a), ("b".to_string(), b)])
        };
        assert_eq!(
            formula.eval_partial(&fields(Some(true), Some(false))),
            Some(true)
        );
        assert_eq!(formula.eval_partial(&fields(None, Some(true))), Some(false));
        assert_eq!(
            formula.eval_partial(&fields(Some(false), None)),
            Some(false)
        );
        assert_eq!(formula.eval_partial(&fields(Some(true), None)), None);
        assert_eq!(formula.eval_partial(&fields(None, Some(false))), None);
        let either = Formula::parse("a || b", &known()).unwrap();
        assert_eq!(either.eval_partial(&fields(None, Some(true))), Some(true));
        assert_eq!(either.eval_partial(&BTreeMap::new()), Some(false));
    }

    #[test]
    fn precedence_and_negation() {
        assert!(eval("a || b && c", &["a"]));
        assert!(!eval("(a || b) && c", &["a"]));
        assert!(eval("!a", &[]));
        assert!(!eval("!!a", &[]));
        assert!(eval("new_proposal && !b && !c", &["new_proposal"]));
        assert!(!eval("new_proposal && !b && !c", &["new_proposal", "c"]));
    }

    #[test]
    fn missing_field_is_false() {
        assert!(!eval("a", &[]));
        assert!(eval("a || !b", &[]));
    }

    #[test]
    fn errors_name_the_problem() {
        let err = Formula::parse("a && zz", &known()).unwrap_err();
        assert!(err.message.contains("unknown field `zz`"), "{err}");
        let err = Formula::parse("a && (b", &known()).unwrap_err();
        assert!(err.message.contains("expected `)`"), "{err}");
        let err = Formula::parse("a b", &known()).unwrap_err();
        assert_eq!(err.offset, 2);
        assert!(Formula::parse("", &known()).is_err());
        assert!(Formula::parse("a &&", &known()).is_err());
        assert!(Formula::parse("a & b", &known()).is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let text = format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(Formula::parse(&text, &known()).is_err());
        let text = format!("{}a", "!".repeat(10_000));
        assert!(Formula::parse(&text, &known()).is_err());
    }
}
