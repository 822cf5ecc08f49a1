//! A compact byte encoding of a regex `Hir`, so that build.rs can hand a built-in pattern to the
//! hook already parsed: decoding is a walk over a few hundred bytes, where parsing the pattern
//! (case folding, Unicode classes, an AST with spans) was most of a Layer 1 hit's cost.
//!
//! The encoding is prefix notation: a tag byte per node, then its fields as LEB128 numbers
//! and its children. A large class (`\w`, `.` and their kin: hundreds of ranges) is written once
//! into a shared table and referred to by its index. Decoding rebuilds each node with `Hir`'s
//! own constructors, so the result is the `Hir` that was encoded (a unit test checks it for
//! every built-in pattern).

use super::leb128;
use regex_syntax::hir::{
    Capture, Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind,
    Literal, Look, Repetition,
};

const EMPTY: u8 = 0;
const LITERAL: u8 = 1;
const CLASS_UNICODE: u8 = 2;
const CLASS_BYTES: u8 = 3;
const LOOK: u8 = 4;
const REPETITION: u8 = 5;
const CAPTURE: u8 = 6;
const CONCAT: u8 = 7;
const ALTERNATION: u8 = 8;
const CLASS_SHARED: u8 = 9;

/// A class whose encoding is longer than this goes to the shared table.
const SHARED_CLASS_MIN_BYTES: usize = 32;

/// The large classes of several encodings, each once.
#[derive(Default)]
pub struct SharedClasses {
    pub encoded: Vec<Vec<u8>>,
    index: std::collections::BTreeMap<Vec<u8>, u32>,
}

/// Appends `hir`'s encoding to `out` (build.rs encodes; the crate only decodes).
#[allow(dead_code)]
pub fn encode(hir: &Hir, out: &mut Vec<u8>, shared: &mut SharedClasses) {
    match hir.kind() {
        HirKind::Empty => out.push(EMPTY),
        HirKind::Literal(Literal(bytes)) => {
            out.push(LITERAL);
            leb128::push(bytes.len() as u32, out);
            out.extend_from_slice(bytes);
        }
        HirKind::Class(Class::Unicode(class)) => {
            let mut encoded = vec![CLASS_UNICODE];
            leb128::push(class.ranges().len() as u32, &mut encoded);
            for range in class.ranges() {
                leb128::push(u32::from(range.start()), &mut encoded);
                leb128::push(u32::from(range.end()), &mut encoded);
            }
            if encoded.len() < SHARED_CLASS_MIN_BYTES {
                out.extend_from_slice(&encoded);
            } else {
                let next = shared.encoded.len() as u32;
                let at = *shared.index.entry(encoded.clone()).or_insert(next);
                if at == next {
                    shared.encoded.push(encoded);
                }
                out.push(CLASS_SHARED);
                leb128::push(at, out);
            }
        }
        HirKind::Class(Class::Bytes(class)) => {
            out.push(CLASS_BYTES);
            leb128::push(class.ranges().len() as u32, out);
            for range in class.ranges() {
                out.extend_from_slice(&[range.start(), range.end()]);
            }
        }
        HirKind::Look(look) => {
            out.push(LOOK);
            leb128::push(look.as_repr(), out);
        }
        HirKind::Repetition(repetition) => {
            out.push(REPETITION);
            leb128::push(repetition.min, out);
            // 0: unbounded, else the maximum plus one.
            leb128::push(repetition.max.map_or(0, |max| max + 1), out);
            out.push(u8::from(repetition.greedy));
            encode(&repetition.sub, out, shared);
        }
        HirKind::Capture(capture) => {
            out.push(CAPTURE);
            leb128::push(capture.index, out);
            // 0: unnamed, else the name's length plus one.
            match &capture.name {
                Some(name) => {
                    leb128::push(name.len() as u32 + 1, out);
                    out.extend_from_slice(name.as_bytes());
                }
                None => leb128::push(0, out),
            }
            encode(&capture.sub, out, shared);
        }
        HirKind::Concat(subs) => encode_list(CONCAT, subs, out, shared),
        HirKind::Alternation(subs) => encode_list(ALTERNATION, subs, out, shared),
    }
}

#[allow(dead_code)]
fn encode_list(tag: u8, subs: &[Hir], out: &mut Vec<u8>, shared: &mut SharedClasses) {
    out.push(tag);
    leb128::push(subs.len() as u32, out);
    for sub in subs {
        encode(sub, out, shared);
    }
}

/// The `Hir` that `encode` wrote into `bytes`, with the `shared` classes it wrote; None if
/// `bytes` is not such an encoding.
pub fn decode(bytes: &[u8], shared: &[&[u8]]) -> Option<Hir> {
    let mut reader = Reader {
        input: leb128::Bytes::new(bytes),
        shared,
    };
    let hir = reader.hir()?;
    reader.input.is_done().then_some(hir)
}

struct Reader<'a> {
    input: leb128::Bytes<'a>,
    shared: &'a [&'a [u8]],
}

impl Reader<'_> {
    fn subs(&mut self) -> Option<Vec<Hir>> {
        let count = self.input.number()?;
        (0..count).map(|_| self.hir()).collect()
    }

    fn hir(&mut self) -> Option<Hir> {
        Some(match self.input.byte()? {
            EMPTY => Hir::empty(),
            LITERAL => {
                let len = self.input.number()? as usize;
                Hir::literal(self.input.take(len)?)
            }
            CLASS_UNICODE => {
                let count = self.input.number()?;
                let ranges = (0..count)
                    .map(|_| {
                        let start = char::from_u32(self.input.number()?)?;
                        let end = char::from_u32(self.input.number()?)?;
                        Some(ClassUnicodeRange::new(start, end))
                    })
                    .collect::<Option<Vec<_>>>()?;
                Hir::class(Class::Unicode(ClassUnicode::new(ranges)))
            }
            CLASS_SHARED => {
                let class = self.shared.get(self.input.number()? as usize)?;
                decode(class, &[])?
            }
            CLASS_BYTES => {
                let count = self.input.number()?;
                let ranges = (0..count)
                    .map(|_| Some(ClassBytesRange::new(self.input.byte()?, self.input.byte()?)))
                    .collect::<Option<Vec<_>>>()?;
                Hir::class(Class::Bytes(ClassBytes::new(ranges)))
            }
            LOOK => Hir::look(Look::from_repr(self.input.number()?)?),
            REPETITION => {
                let min = self.input.number()?;
                let max = self.input.number()?.checked_sub(1);
                let greedy = self.input.byte()? != 0;
                Hir::repetition(Repetition {
                    min,
                    max,
                    greedy,
                    sub: Box::new(self.hir()?),
                })
            }
            CAPTURE => {
                let index = self.input.number()?;
                let name = match self.input.number()?.checked_sub(1) {
                    Some(len) => {
                        let name = std::str::from_utf8(self.input.take(len as usize)?).ok()?;
                        Some(Box::from(name))
                    }
                    None => None,
                };
                Hir::capture(Capture {
                    index,
                    name,
                    sub: Box::new(self.hir()?),
                })
            }
            CONCAT => Hir::concat(self.subs()?),
            ALTERNATION => Hir::alternation(self.subs()?),
            _ => return None,
        })
    }
}
