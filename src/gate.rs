//! Literal gates: for a regex, a few sets of literals (clauses) such that every match of the
//! regex contains a literal of each set. A text that misses one clause cannot match, so the
//! regex need not be compiled at all: that is how a hook skips building its Layer 1 automaton
//! on most calls. (`bug … fix` needs both a bug word and a fix word, not just one.)
//!
//! Gates are computed from the pattern's syntax tree (regex-syntax), for the built-in
//! detectors at build time (`build.rs` includes this file) and for a user's patterns at load.
//! A gate must be sound, never selective at the cost of a missed match: literals are compared
//! ASCII-case-insensitively (so they are stored ASCII-lowercased), other characters exactly,
//! and a required ASCII word boundary `(?-u:\b)` on either side of a literal is kept with it.
//! Anything this analysis does not understand makes it give up (no gate: always compile).

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// One gate literal.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Needle {
    /// ASCII-lowercased bytes (non-ASCII bytes as in the pattern).
    pub bytes: Vec<u8>,
    /// An ASCII word boundary lies right before the literal in every such match.
    pub word_start: bool,
    /// An ASCII word boundary lies right after it.
    pub word_end: bool,
}

/// A set of exact strings grows by cross product in a concatenation; past this it stops
/// growing (the run so far becomes a candidate gate).
const MAX_EXACT: usize = 256;
/// A class of at most this many characters is expanded into one string per character (case
/// variants such as `[kK\u{212A}]`); a larger class matches "anything".
const MAX_CLASS: u32 = 8;
/// No clause with more literals than this (a clause that large would not pay back).
const MAX_REQUIRED: usize = 1024;
/// At most this many clauses per gate, the most selective ones.
pub const MAX_CLAUSES: usize = 4;

/// The gate of `pattern` in the syntax of the `regex` crate, as clauses (every match contains
/// a literal of each): `Ok(None)` when no literal is required (the pattern must always run),
/// `Err` when it does not parse.
pub fn needles(pattern: &str) -> Result<Option<Vec<Vec<Needle>>>, String> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(|err| err.to_string())?;
    let facts = analyze(&hir);
    let mut clauses = facts.required;
    clauses.extend(facts.exact);
    // Case variants of one word (`[дД][еЕ]…` under `(?i)`: up to 2^n strings) fold into one
    // literal; the text is folded the same way before the search (`fold_non_ascii`).
    let folded = clauses
        .into_iter()
        .map(|clause| clause.into_iter().map(fold_needle).collect())
        .collect();
    let clauses = strongest(folded);
    Ok((!clauses.is_empty()).then_some(clauses))
}

/// The representative of a non-ASCII character's case class (its simple case folding orbit,
/// what `(?i)` matches for it): the smallest member, when it is another character. ASCII is
/// left to the literal index (it ignores ASCII case itself), and so is a class with an ASCII
/// member (`K` KELVIN SIGN, `ſ` LONG S): mapping them to ASCII would change what the index counts
/// as a word byte next to a literal.
fn fold_char(c: char) -> Option<char> {
    if c.is_ascii() || !has_case(c) {
        return None;
    }
    use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};
    let mut class = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
    class.case_fold_simple();
    let mut members = class.iter().flat_map(|range| range.start()..=range.end());
    let smallest = members.next()?;
    (!smallest.is_ascii() && smallest != c).then_some(smallest)
}

/// Whether `c` has other case forms at all (CJK, Thai and most symbols do not).
fn has_case(c: char) -> bool {
    c.is_lowercase() || c.is_uppercase() || c.to_lowercase().ne([c]) || c.to_uppercase().ne([c])
}

/// `text` with its non-ASCII characters folded by [`fold_char`], one at a time, the mapping
/// gate literals went through: a folded text contains a folded literal wherever the text held
/// the literal in any case `(?i)` allows, and no byte changes between ASCII and not. `None`
/// when nothing changes (ASCII, CJK, text already in its folded form).
pub fn fold_non_ascii(text: &str) -> Option<String> {
    if text.is_ascii() {
        return None;
    }
    let first = text
        .char_indices()
        .find(|&(_, c)| fold_char(c).is_some())?
        .0;
    let mut folded = String::with_capacity(text.len());
    folded.push_str(&text[..first]);
    // Texts repeat their letters: each distinct one is folded once.
    let mut seen: Vec<(char, char)> = Vec::new();
    for c in text[first..].chars() {
        // Uncased characters (CJK, Thai, symbols: most distinct characters of a text) need
        // no lookup; the cased ones of a text are few.
        if c.is_ascii() || !has_case(c) {
            folded.push(c);
            continue;
        }
        let to = match seen.iter().find(|(from, _)| *from == c) {
            Some(&(_, to)) => to,
            None => {
                let to = fold_char(c).unwrap_or(c);
                seen.push((c, to));
                to
            }
        };
        folded.push(to);
    }
    Some(folded)
}

/// A needle folded like the text it is searched in. Needles of Unicode-mode patterns are
/// whole characters; bytes that are not UTF-8 are kept.
fn fold_needle(needle: Needle) -> Needle {
    let folded = std::str::from_utf8(&needle.bytes)
        .ok()
        .and_then(fold_non_ascii);
    match folded {
        Some(text) => Needle {
            bytes: text.into_bytes(),
            ..needle
        },
        None => needle,
    }
}

/// Whether every match of `pattern` begins, and whether it ends, at an ASCII word boundary
/// `(?-u:\b)` the pattern requires there (the matcher re-checks those edges for Unicode letters).
pub fn word_edges(pattern: &str) -> Result<(bool, bool), String> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .map_err(|err| err.to_string())?;
    Ok((edge_boundary(&hir, true), edge_boundary(&hir, false)))
}

/// Every match of `hir` starts (`first`) or ends (`!first`) with an ASCII word boundary.
fn edge_boundary(hir: &Hir, first: bool) -> bool {
    match hir.kind() {
        HirKind::Look(look) => matches!(
            look,
            Look::WordAscii | Look::WordStartAscii | Look::WordEndAscii
        ),
        HirKind::Capture(capture) => edge_boundary(&capture.sub, first),
        HirKind::Repetition(repetition) => {
            repetition.min >= 1 && edge_boundary(&repetition.sub, first)
        }
        HirKind::Alternation(branches) => branches.iter().all(|b| edge_boundary(b, first)),
        HirKind::Concat(parts) => {
            let edge = if first { parts.first() } else { parts.last() };
            edge.is_some_and(|part| edge_boundary(part, first))
        }
        _ => false,
    }
}

/// Strings (ASCII-lowercased) one of which every match of `pattern` starts with, or None when
/// the analysis cannot tell (an unbounded or large part first, too many variants). `unicode`
/// is the syntax mode the pattern is compiled in (the redaction rules compile without it).
pub fn prefixes(pattern: &str, unicode: bool) -> Result<Option<Vec<Vec<u8>>>, String> {
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(unicode)
        .utf8(unicode)
        .build()
        .parse(pattern)
        .map_err(|err| err.to_string())?;
    Ok(prefix(&hir).map(|set| {
        let mut strings: Vec<Vec<u8>> = set.into_iter().map(|needle| needle.bytes).collect();
        strings.sort();
        strings.dedup();
        strings
    }))
}

/// Every match of `hir` starts with one of these (each possibly a whole match).
fn prefix(hir: &Hir) -> Option<Vec<Needle>> {
    match hir.kind() {
        HirKind::Capture(capture) => prefix(&capture.sub),
        HirKind::Repetition(repetition) if repetition.min >= 1 => prefix(&repetition.sub),
        HirKind::Alternation(branches) => {
            let sets = branches.iter().map(prefix).collect::<Option<Vec<_>>>()?;
            let union = sets.concat();
            (union.len() <= MAX_EXACT).then_some(union)
        }
        HirKind::Concat(parts) => {
            let mut run = vec![empty(false)];
            for part in parts {
                match analyze(part).exact {
                    Some(exact) => match cross(&run, &exact) {
                        Some(product) => run = product,
                        // Too many variants: the strings so far are still prefixes.
                        None => return Some(run),
                    },
                    None => {
                        return Some(prefix(part).and_then(|p| cross(&run, &p)).unwrap_or(run));
                    }
                }
            }
            Some(run)
        }
        _ => analyze(hir).exact,
    }
}

/// What is known about the strings a sub-expression matches.
struct Facts {
    /// Every string it can match, when there are few.
    exact: Option<Vec<Needle>>,
    /// Clauses: every match contains a literal of each.
    required: Vec<Vec<Needle>>,
}

impl Facts {
    fn nothing() -> Facts {
        Facts {
            exact: None,
            required: Vec::new(),
        }
    }

    fn exactly(set: Vec<Needle>) -> Facts {
        Facts {
            exact: Some(set),
            required: Vec::new(),
        }
    }

    /// The best single set of literals one of which every match contains.
    fn gate(self) -> Option<Vec<Needle>> {
        self.required
            .into_iter()
            .chain(self.exact)
            .filter(|set| score(set).is_some())
            .max_by_key(|set| score(set))
    }

    /// Every clause known, exact strings included.
    fn clauses(self) -> Vec<Vec<Needle>> {
        let mut clauses = self.required;
        clauses.extend(self.exact);
        clauses
    }
}

/// The useful clauses, most selective first, deduplicated, at most `MAX_CLAUSES`.
fn strongest(clauses: Vec<Vec<Needle>>) -> Vec<Vec<Needle>> {
    let mut clauses: Vec<Vec<Needle>> = clauses
        .into_iter()
        .filter(|set| score(set).is_some())
        .map(|mut set| {
            set.sort();
            set.dedup();
            without_implied(set)
        })
        .collect();
    clauses.sort_by_key(|set| std::cmp::Reverse(score(set)));
    let mut kept: Vec<Vec<Needle>> = Vec::new();
    for clause in clauses {
        if kept.len() < MAX_CLAUSES && !kept.contains(&clause) {
            kept.push(clause);
        }
    }
    kept
}

/// The clause without the literals another one of it implies: wherever `added` occurs, `add`
/// does, so a clause holding both is satisfied exactly when one without `added` is. (A
/// literal implies a longer one only where its word boundaries, if it needs any, are those of
/// the longer one's edges.) Fewer literals make the index cheaper to build.
fn without_implied(clause: Vec<Needle>) -> Vec<Needle> {
    let implies = |short: &Needle, long: &Needle| {
        if short.bytes.len() >= long.bytes.len() {
            return false;
        }
        let last = long.bytes.len() - short.bytes.len();
        (0..=last).any(|at| {
            long.bytes[at..].starts_with(&short.bytes)
                && (!short.word_start || (at == 0 && long.word_start))
                && (!short.word_end || (at == last && long.word_end))
        })
    };
    let kept: Vec<bool> = clause
        .iter()
        .map(|long| !clause.iter().any(|short| implies(short, long)))
        .collect();
    clause
        .into_iter()
        .zip(kept)
        .filter_map(|(needle, keep)| keep.then_some(needle))
        .collect()
}

fn empty(word_boundary: bool) -> Needle {
    Needle {
        bytes: Vec::new(),
        word_start: word_boundary,
        word_end: word_boundary,
    }
}

fn analyze(hir: &Hir) -> Facts {
    match hir.kind() {
        HirKind::Empty => Facts::exactly(vec![empty(false)]),
        HirKind::Literal(literal) => Facts::exactly(vec![Needle {
            bytes: literal.0.to_ascii_lowercase(),
            word_start: false,
            word_end: false,
        }]),
        HirKind::Class(class) => class_strings(class).map_or_else(Facts::nothing, Facts::exactly),
        HirKind::Look(look) => {
            let boundary = matches!(
                look,
                Look::WordAscii | Look::WordStartAscii | Look::WordEndAscii
            );
            Facts::exactly(vec![empty(boundary)])
        }
        HirKind::Capture(capture) => analyze(&capture.sub),
        HirKind::Repetition(repetition) => {
            let sub = analyze(&repetition.sub);
            match (repetition.min, repetition.max) {
                (1, Some(1)) => sub,
                (0, Some(1)) => Facts {
                    exact: sub.exact.and_then(|mut set| {
                        set.push(empty(false));
                        (set.len() <= MAX_EXACT).then_some(set)
                    }),
                    required: Vec::new(),
                },
                (0, _) => Facts::nothing(),
                (min, max) => {
                    let exact = match (&sub.exact, max) {
                        (Some(set), Some(max)) if max == min => {
                            let mut product = vec![empty(false)];
                            for _ in 0..min {
                                product = cross(&product, set).unwrap_or_default();
                            }
                            (!product.is_empty()).then_some(product)
                        }
                        _ => None,
                    };
                    Facts {
                        exact,
                        required: strongest(sub.clauses()),
                    }
                }
            }
        }
        HirKind::Concat(parts) => concat(parts),
        HirKind::Alternation(branches) => {
            let facts: Vec<Facts> = branches.iter().map(analyze).collect();
            let exact = facts
                .iter()
                .map(|f| f.exact.clone())
                .collect::<Option<Vec<_>>>()
                .map(|sets| sets.concat())
                .filter(|set| set.len() <= MAX_EXACT);
            // A match contains a literal of one branch's best clause: their union is a clause.
            let required = facts
                .into_iter()
                .map(Facts::gate)
                .collect::<Option<Vec<_>>>()
                .map(|sets| sets.concat())
                .filter(|set| set.len() <= MAX_REQUIRED);
            Facts {
                exact,
                required: required.into_iter().collect(),
            }
        }
    }
}

/// A concatenation: runs of exact parts multiply out into longer literals; every run and every
/// part's clause is a clause of the whole.
fn concat(parts: &[Hir]) -> Facts {
    let mut candidates: Vec<Vec<Needle>> = Vec::new();
    let mut run: Option<Vec<Needle>> = Some(vec![empty(false)]);
    let mut whole_is_exact = true;
    for part in parts {
        let facts = analyze(part);
        match facts.exact {
            Some(set) => {
                let current = run.take().unwrap_or_else(|| vec![empty(false)]);
                run = Some(match cross(&current, &set) {
                    Some(product) => product,
                    None => {
                        whole_is_exact = false;
                        candidates.push(current);
                        set
                    }
                });
            }
            None => {
                whole_is_exact = false;
                if let Some(current) = run.take() {
                    // The run goes on into what every match of the part starts with: `\b` then
                    // `(crash|hang)\w*` gives `crash`, `hang` with their word boundary, which
                    // "change" does not satisfy.
                    match prefix(part).and_then(|starts| cross(&current, &starts)) {
                        Some(longer) => candidates.push(longer),
                        None => candidates.push(current),
                    }
                }
                candidates.extend(facts.required);
            }
        }
    }
    let exact = if whole_is_exact { run.clone() } else { None };
    if let Some(current) = run {
        candidates.push(current);
    }
    Facts {
        exact,
        required: strongest(candidates),
    }
}

/// Every concatenation of a string of `left` with one of `right`; None past `MAX_EXACT`.
fn cross(left: &[Needle], right: &[Needle]) -> Option<Vec<Needle>> {
    if left.len().saturating_mul(right.len()) > MAX_EXACT {
        return None;
    }
    let mut product = Vec::with_capacity(left.len() * right.len());
    for a in left {
        for b in right {
            let mut bytes = a.bytes.clone();
            bytes.extend_from_slice(&b.bytes);
            product.push(Needle {
                word_start: if a.bytes.is_empty() {
                    a.word_start || b.word_start
                } else {
                    a.word_start
                },
                word_end: if b.bytes.is_empty() {
                    a.word_end || b.word_end
                } else {
                    b.word_end
                },
                bytes,
            });
        }
    }
    product.sort();
    product.dedup();
    Some(product)
}

/// The strings of a small class, one per member, ASCII-lowercased.
fn class_strings(class: &Class) -> Option<Vec<Needle>> {
    let mut strings: Vec<Vec<u8>> = Vec::new();
    match class {
        Class::Unicode(class) => {
            let size: u32 = class
                .ranges()
                .iter()
                .map(|r| u32::from(r.end()) - u32::from(r.start()) + 1)
                .sum();
            if size == 0 || size > MAX_CLASS {
                return None;
            }
            // Members are folded as the text will be (`fold_non_ascii`): the case variants of a
            // letter are one string, so `(?i)закоммитить` stays one literal instead of 2^11
            // variants past `MAX_EXACT` (which left the pattern without a gate).
            for range in class.ranges() {
                for c in range.start()..=range.end() {
                    let c = fold_char(c).unwrap_or(c);
                    let mut buffer = [0; 4];
                    strings.push(c.encode_utf8(&mut buffer).as_bytes().to_ascii_lowercase());
                }
            }
        }
        Class::Bytes(class) => {
            let size: u32 = class
                .ranges()
                .iter()
                .map(|r| u32::from(r.end()) - u32::from(r.start()) + 1)
                .sum();
            if size == 0 || size > MAX_CLASS {
                return None;
            }
            for range in class.ranges() {
                for b in range.start()..=range.end() {
                    strings.push(vec![b.to_ascii_lowercase()]);
                }
            }
        }
    }
    strings.sort();
    strings.dedup();
    Some(
        strings
            .into_iter()
            .map(|bytes| Needle {
                bytes,
                word_start: false,
                word_end: false,
            })
            .collect(),
    )
}

/// How selective a set is as a gate (higher is better); None when it is useless: one of its
/// literals is empty or a lone byte (whitespace, a slash: it occurs everywhere).
fn score(set: &[Needle]) -> Option<(usize, std::cmp::Reverse<usize>)> {
    let weakest = set
        .iter()
        .map(|n| n.bytes.len() + 2 * usize::from(n.word_start) + 2 * usize::from(n.word_end))
        .min()?;
    if weakest < 2 || set.iter().any(|n| n.bytes.is_empty()) {
        return None;
    }
    Some((weakest, std::cmp::Reverse(set.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_literal_implied_by_a_shorter_one_is_left_out() {
        let clauses = needles(r"(?-u:\b)(add|added|adding|padd)(?-u:\b)")
            .unwrap()
            .unwrap();
        let literals: Vec<(&[u8], bool, bool)> = clauses[0]
            .iter()
            .map(|n| (&n.bytes[..], n.word_start, n.word_end))
            .collect();
        // `added` needs the boundary after `add` that it does not have: kept.
        assert_eq!(
            literals,
            [
                (&b"add"[..], true, true),
                (&b"added"[..], true, true),
                (&b"adding"[..], true, true),
                (&b"padd"[..], true, true)
            ]
        );
        let unbounded = needles("(add|added|adding|padd)").unwrap().unwrap();
        let literals: Vec<&[u8]> = unbounded[0].iter().map(|n| &n.bytes[..]).collect();
        assert_eq!(literals, [&b"add"[..]]);
    }

    #[test]
    fn case_variants_of_a_word_fold_into_one_literal() {
        let clauses = needles("(?i)деплой").unwrap().unwrap();
        let literals: Vec<&[u8]> = clauses[0].iter().map(|n| &n.bytes[..]).collect();
        assert_eq!(literals, [fold_non_ascii("деплой").unwrap().as_bytes()]);
        let accented = needles("(?i)corrigé").unwrap().unwrap();
        assert_eq!(accented[0].len(), 1, "{accented:?}");
        // Eleven cased letters: 2^11 variants unfolded, past `MAX_EXACT`, which used to leave
        // the pattern without a gate (compiled and run on every text).
        let long = needles(r"(?i)(закоммитить|запушить)[^.?!\n]{0,40}\?")
            .unwrap()
            .unwrap();
        let literals: Vec<&[u8]> = long[0].iter().map(|n| &n.bytes[..]).collect();
        let folded = ["закоммитить", "запушить"].map(|w| fold_non_ascii(w).unwrap());
        assert_eq!(
            literals,
            folded.iter().map(|w| w.as_bytes()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_text_folds_like_the_literals_and_only_when_it_changes() {
        let deploy = fold_non_ascii("деплой на прод").unwrap();
        assert_eq!(fold_non_ascii("ДЕПЛОЙ на ПРОД").unwrap(), deploy);
        assert_eq!(
            fold_non_ascii("Corrigé: ÉTAT").unwrap(),
            fold_non_ascii("Corrigé: éTAT").unwrap()
        );
        // ASCII is left to the index (it ignores ASCII case); CJK has no case.
        assert_eq!(fold_non_ascii("DEPLOY"), None);
        assert_eq!(fold_non_ascii("已修复，部署完成"), None);
        // A case class with an ASCII member (KELVIN SIGN, k, K) is left as it is.
        assert_eq!(fold_non_ascii("\u{212A}elvin"), None);
        // Byte lengths may change (ẞ is 3 bytes, ß 2): the fold is a new string.
        assert_eq!(fold_non_ascii("GROẞ").as_deref(), Some("GROß"));
    }
}
