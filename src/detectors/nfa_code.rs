//! A compact byte encoding of a compiled Thompson NFA, so that build.rs can hand a built-in
//! pattern to the hook already compiled for short ASCII texts (the usual final message):
//! rebuilding the NFA state by state is a fraction of decoding its syntax tree and compiling
//! that (the Hir's node-by-node allocation and the compiler's intermediate states were most of
//! a Layer 1 hit's cost).
//!
//! The encoding lists the NFA's final states in order, a tag byte each and its fields as LEB128
//! numbers; a state's targets are written relative to the state (zigzag), since most point
//! to a neighbour. Decoding adds the same states, in the same order, to a `thompson::Builder`:
//! the final NFA has no empty states left to remove, so every state keeps its ID and the
//! result is the NFA that was encoded (a unit test checks it for every built-in pattern).

use super::leb128;
use std::sync::Arc;

use regex_automata::nfa::thompson::{Builder, NFA, State, Transition};
use regex_automata::util::look::{Look, LookMatcher};
use regex_automata::util::primitives::{PatternID, StateID};

const BYTE_RANGE: u8 = 0;
const SPARSE: u8 = 1;
const LOOK: u8 = 2;
const UNION: u8 = 3;
const BINARY_UNION: u8 = 4;
const CAPTURE_START: u8 = 5;
const CAPTURE_END: u8 = 6;
const FAIL: u8 = 7;
const MATCH: u8 = 8;

/// `nfa` encoded (build.rs encodes; the crate only decodes). None for what this encoding does
/// not cover: more than one pattern, a reverse NFA, a dense state (the compiler makes none).
#[allow(dead_code)]
pub fn encode(nfa: &NFA) -> Option<Vec<u8>> {
    if nfa.pattern_len() != 1 || nfa.is_reverse() {
        return None;
    }
    let mut out = Vec::new();
    out.push(u8::from(nfa.is_utf8()));
    out.push(nfa.look_matcher().get_line_terminator());
    leb128::push(nfa.states().len() as u32, &mut out);
    leb128::push(nfa.start_anchored().as_u32(), &mut out);
    leb128::push(nfa.start_unanchored().as_u32(), &mut out);
    leb128::push(nfa.start_pattern(PatternID::ZERO)?.as_u32(), &mut out);
    let groups = nfa.group_info();
    for (at, state) in nfa.states().iter().enumerate() {
        let target = |id: StateID, out: &mut Vec<u8>| relative(at, id, out);
        match state {
            State::ByteRange { trans } => {
                out.push(BYTE_RANGE);
                transition(at, trans, &mut out);
            }
            State::Sparse(sparse) => {
                out.push(SPARSE);
                leb128::push(sparse.transitions.len() as u32, &mut out);
                for trans in sparse.transitions.iter() {
                    transition(at, trans, &mut out);
                }
            }
            State::Dense(_) => return None,
            State::Look { look, next } => {
                out.push(LOOK);
                leb128::push(look.as_repr(), &mut out);
                target(*next, &mut out);
            }
            State::Union { alternates } => {
                out.push(UNION);
                leb128::push(alternates.len() as u32, &mut out);
                for &alternate in alternates.iter() {
                    target(alternate, &mut out);
                }
            }
            State::BinaryUnion { alt1, alt2 } => {
                out.push(BINARY_UNION);
                target(*alt1, &mut out);
                target(*alt2, &mut out);
            }
            State::Capture {
                next,
                group_index,
                slot,
                ..
            } => {
                // A group's start slot is even, its end slot odd.
                let start = slot.as_usize() % 2 == 0;
                out.push(if start { CAPTURE_START } else { CAPTURE_END });
                leb128::push(group_index.as_u32(), &mut out);
                if start {
                    // 0: unnamed, else the name's length plus one.
                    match groups.to_name(PatternID::ZERO, group_index.as_usize()) {
                        Some(name) => {
                            leb128::push(name.len() as u32 + 1, &mut out);
                            out.extend_from_slice(name.as_bytes());
                        }
                        None => leb128::push(0, &mut out),
                    }
                }
                target(*next, &mut out);
            }
            State::Fail => out.push(FAIL),
            State::Match { .. } => out.push(MATCH),
        }
    }
    Some(out)
}

#[allow(dead_code)]
fn transition(at: usize, trans: &Transition, out: &mut Vec<u8>) {
    out.extend_from_slice(&[trans.start, trans.end]);
    relative(at, trans.next, out);
}

/// `id` relative to state `at`, zigzag-encoded (forward and backward jumps are both short).
#[allow(dead_code)]
fn relative(at: usize, id: StateID, out: &mut Vec<u8>) {
    let delta = id.as_usize() as i64 - at as i64;
    leb128::push(((delta << 1) ^ (delta >> 63)) as u32, out);
}

/// The NFA that `encode` wrote into `bytes`; None if `bytes` is not such an encoding.
pub fn decode(bytes: &[u8]) -> Option<NFA> {
    let mut reader = Reader {
        input: leb128::Bytes::new(bytes),
    };
    let utf8 = reader.input.byte()? != 0;
    let line_terminator = reader.input.byte()?;
    let len = reader.input.number()? as usize;
    let start_anchored = reader.id()?;
    let start_unanchored = reader.id()?;
    let start_pattern = reader.id()?;
    let mut builder = Builder::new();
    builder.set_utf8(utf8);
    let mut looks = LookMatcher::new();
    looks.set_line_terminator(line_terminator);
    builder.set_look_matcher(looks);
    builder.start_pattern().ok()?;
    for at in 0..len {
        let added = match reader.input.byte()? {
            BYTE_RANGE => builder.add_range(reader.transition(at)?),
            SPARSE => {
                let count = reader.input.number()? as usize;
                let mut transitions = Vec::with_capacity(count);
                for _ in 0..count {
                    transitions.push(reader.transition(at)?);
                }
                builder.add_sparse(transitions)
            }
            LOOK => {
                let look = Look::from_repr(reader.input.number()?)?;
                let next = reader.relative(at)?;
                builder.add_look(next, look)
            }
            UNION => {
                let count = reader.input.number()? as usize;
                let mut alternates = Vec::with_capacity(count);
                for _ in 0..count {
                    alternates.push(reader.relative(at)?);
                }
                builder.add_union(alternates)
            }
            BINARY_UNION => {
                let alternates = vec![reader.relative(at)?, reader.relative(at)?];
                builder.add_union(alternates)
            }
            CAPTURE_START => {
                let group_index = reader.input.number()?;
                let name = match reader.input.number()?.checked_sub(1) {
                    Some(len) => {
                        let name = std::str::from_utf8(reader.input.take(len as usize)?).ok()?;
                        Some(Arc::from(name))
                    }
                    None => None,
                };
                let next = reader.relative(at)?;
                builder.add_capture_start(next, group_index, name)
            }
            CAPTURE_END => {
                let group_index = reader.input.number()?;
                let next = reader.relative(at)?;
                builder.add_capture_end(next, group_index)
            }
            FAIL => builder.add_fail(),
            MATCH => builder.add_match(),
            _ => return None,
        };
        // Every state keeps its ID: the encoding is the final NFA, nothing is left to remove.
        (added.ok()?.as_usize() == at).then_some(())?;
    }
    builder.finish_pattern(start_pattern).ok()?;
    let nfa = builder.build(start_anchored, start_unanchored).ok()?;
    // Freeing the builder's states one by one was a seventh of a decode; a process decodes each
    // built-in pattern once at most (`builtin_short`), so what is left is bounded.
    std::mem::forget(builder);
    reader.input.is_done().then_some(nfa)
}

struct Reader<'a> {
    input: leb128::Bytes<'a>,
}

impl Reader<'_> {
    fn id(&mut self) -> Option<StateID> {
        StateID::new(self.input.number()? as usize).ok()
    }

    fn relative(&mut self, at: usize) -> Option<StateID> {
        let zigzag = self.input.number()?;
        let delta = i64::from(zigzag >> 1) ^ -i64::from(zigzag & 1);
        let id = usize::try_from(at as i64 + delta).ok()?;
        StateID::new(id).ok()
    }

    fn transition(&mut self, at: usize) -> Option<Transition> {
        let start = self.input.byte()?;
        let end = self.input.byte()?;
        let next = self.relative(at)?;
        Some(Transition { start, end, next })
    }
}

/// The largest NFA a trigger or cue may compile to (the regex crate's default).
pub const NFA_SIZE_LIMIT: usize = 10 << 20;

/// How a pattern is compiled for a short ASCII text: what `meta::Regex` would compile for the
/// configuration of `compile_for_search` (the regex crate's match semantics, only the whole
/// match tracked).
#[allow(dead_code)]
pub fn short_text_config() -> regex_automata::nfa::thompson::Config {
    regex_automata::nfa::thompson::Config::new()
        .utf8(true)
        .reverse(false)
        .nfa_size_limit(Some(NFA_SIZE_LIMIT))
        .shrink(false)
        .which_captures(regex_automata::nfa::thompson::WhichCaptures::Implicit)
}
