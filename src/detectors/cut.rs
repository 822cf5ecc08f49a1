//! Patterns cut to a text's alphabet: what a pattern matches in a text made only of ASCII and
//! a few given characters (`super::LazyRegex` compiles a pattern cut for the text it searches).

use regex_syntax::hir::{
    self, Capture, Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir,
    HirKind, Look, Repetition,
};

/// `hir` restricted to haystacks whose characters are ASCII or in `chars` (sorted): what it
/// matches in such a text.
pub fn cut_to(hir: Hir, chars: &[char]) -> Hir {
    match hir.into_kind() {
        HirKind::Literal(hir::Literal(bytes)) => {
            let within = match std::str::from_utf8(&bytes) {
                Ok(text) => text
                    .chars()
                    .all(|c| c.is_ascii() || chars.binary_search(&c).is_ok()),
                // Not UTF-8 (a byte literal): left as it is, which is always sound.
                Err(_) => true,
            };
            if within {
                Hir::literal(bytes)
            } else {
                Hir::fail()
            }
        }
        HirKind::Class(Class::Unicode(class)) => {
            // The ASCII part as it is; of the rest, every range that holds one of `chars`,
            // whole: it agrees with the class on the alphabet, and a whole range (a script's
            // block) compiles to a few UTF-8 sequences where its scattered characters would
            // make one each.
            let mut ranges = Vec::new();
            for range in class.ranges() {
                if range.start() <= '\x7f' {
                    ranges.push(ClassUnicodeRange::new(
                        range.start(),
                        range.end().min('\x7f'),
                    ));
                }
                let start = range.start().max('\u{80}');
                let first = chars.partition_point(|&c| c < start);
                if start <= range.end() && chars.get(first).is_some_and(|&c| c <= range.end()) {
                    ranges.push(ClassUnicodeRange::new(start, range.end()));
                }
            }
            Hir::class(Class::Unicode(ClassUnicode::new(ranges)))
        }
        HirKind::Class(Class::Bytes(mut class)) => {
            // A UTF-8 pattern's byte classes hold only ASCII bytes anyway.
            class.intersect(&ClassBytes::new([ClassBytesRange::new(0, 0x7f)]));
            Hir::class(Class::Bytes(class))
        }
        HirKind::Repetition(repetition) => Hir::repetition(Repetition {
            sub: Box::new(cut_to(*repetition.sub, chars)),
            ..repetition
        }),
        HirKind::Capture(capture) => Hir::capture(Capture {
            sub: Box::new(cut_to(*capture.sub, chars)),
            ..capture
        }),
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(|h| cut_to(h, chars)).collect()),
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.into_iter().map(|h| cut_to(h, chars)).collect())
        }
        HirKind::Empty => Hir::empty(),
        HirKind::Look(look) if chars.is_empty() => Hir::look(ascii_look(look)),
        HirKind::Look(look) => Hir::look(look),
    }
}

/// A Unicode word boundary as its ASCII counterpart: in an ASCII text the word characters are
/// the same (letters, digits, `_`), and the ASCII look is a byte test where the Unicode one
/// decodes the characters around every position it is asked about.
fn ascii_look(look: Look) -> Look {
    match look {
        Look::WordUnicode => Look::WordAscii,
        Look::WordUnicodeNegate => Look::WordAsciiNegate,
        Look::WordStartUnicode => Look::WordStartAscii,
        Look::WordEndUnicode => Look::WordEndAscii,
        Look::WordStartHalfUnicode => Look::WordStartHalfAscii,
        Look::WordEndHalfUnicode => Look::WordEndHalfAscii,
        other => other,
    }
}
