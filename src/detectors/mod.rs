//! Detectors as data: the built-ins are TOML files in `assets/detectors/`, turned into Rust at
//! build time (`build.rs`); users add or override detectors with `[[detectors]]` entries of the
//! same schema.
//!
//! Loading is cheap on purpose (a hook runs it on every call): no TOML is parsed for the
//! built-ins, the formula is parsed and the fields checked at load, and every regex is compiled
//! on first use. Layer 1 does not compile a trigger at all unless one of its gate literals
//! (`crate::gate`) occurs in the text. `Detectors::check_patterns` compiles everything, for
//! `judge`, `doctor` and `config show`.

mod cut;
mod hir_code;
mod leb128;
mod nfa_code;
mod spec;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use regex_automata::nfa::thompson::{WhichCaptures, backtrack::BoundedBacktracker, pikevm::PikeVM};
use regex_automata::{Input, Match, meta};
use regex_syntax::hir::Hir;

use crate::error::{Error, Result};
use crate::formula::Formula;
use crate::literals::{BitSet, GateIndex, Literal, LiteralIndex, TripleCandidate};
use cut::cut_to;
pub use spec::{DetectorSpec, Event, JudgeBy};

include!(concat!(env!("OUT_DIR"), "/builtin_detectors.rs"));

/// The gate of a trigger: clauses, every match contains a literal of each (at most
/// `gate::MAX_CLAUSES`).
#[derive(Debug)]
enum Gate {
    /// No literal is required: the trigger runs on every text.
    Always,
    /// A built-in pattern's, from build.rs, with its slot in `BUILTIN_TRIGGER_INDEX` if it is
    /// a built-in trigger.
    Builtin(&'static [&'static [Literal]], Option<u32>),
    /// A user trigger's, computed at load.
    Computed(Vec<Vec<Literal>>),
}

impl Gate {
    fn clauses(&self) -> Vec<&[Literal]> {
        match self {
            Gate::Always => Vec::new(),
            Gate::Builtin(clauses, _) => clauses.to_vec(),
            Gate::Computed(clauses) => clauses.iter().map(Vec::as_slice).collect(),
        }
    }
}

/// A built-in pattern's build-time facts: the pattern, its literal gate (none: always run),
/// whether every match starts and ends at a required word boundary, its slot in
/// `BUILTIN_TRIGGER_INDEX` (triggers only), and the pattern parsed, whole and cut to ASCII
/// texts (`cut_to`), encoded by `hir_code`. (The cut form's NFA is in `BUILTIN_NFAS`.)
type BuiltinFacts = (
    &'static str,
    Option<&'static [&'static [Literal]]>,
    (bool, bool),
    Option<u32>,
    &'static [u8],
    &'static [u8],
);

fn builtin(pattern: &str) -> Option<&'static BuiltinFacts> {
    builtin_index(pattern).map(|at| &BUILTIN_GATES[at])
}

fn builtin_index(pattern: &str) -> Option<usize> {
    BUILTIN_GATES
        .binary_search_by(|(builtin, ..)| (*builtin).cmp(pattern))
        .ok()
}

/// The gate of a pattern: the built-in table's for a built-in pattern, else computed now.
fn gate_of(pattern: &str) -> std::result::Result<Gate, String> {
    if let Some((_, gate, _, slot, ..)) = builtin(pattern) {
        return Ok(gate.map_or(Gate::Always, |clauses| Gate::Builtin(clauses, *slot)));
    }
    Ok(match crate::gate::needles(pattern)? {
        None => Gate::Always,
        Some(clauses) => Gate::Computed(
            clauses
                .into_iter()
                .map(|clause| clause.into_iter().map(Literal::from).collect())
                .collect(),
        ),
    })
}

#[derive(Debug)]
pub struct Detector {
    pub name: String,
    pub description: String,
    pub events: Vec<Event>,
    /// Who decides the fields after a Layer 1 hit.
    pub judge: JudgeBy,
    pub triggers: Vec<String>,
    pub skips: Vec<String>,
    pub fields: Vec<String>,
    pub block_when: String,
    pub formula: Formula,
    pub prompt: String,
    pub feedback: String,
    pub rules: Vec<(String, Vec<String>)>,
    pub rules_unsure: Vec<(String, Vec<String>)>,
    pub rules_against: Vec<(String, Vec<String>)>,
    /// The gate of each trigger (None: no gate, always run it); Err names an invalid trigger.
    gates: std::result::Result<Vec<Gate>, String>,
    /// A user wrote some of the patterns (a new detector, or overridden triggers, skips or
    /// rules): `Detectors::check_patterns` compiles them.
    user_patterns: bool,
    trigger_regexes: Vec<OnceLock<std::result::Result<Trigger, String>>>,
    /// The skips and every rule cue, gated like the triggers and compiled one by one (see
    /// [`Detector::cues`]).
    cues: OnceLock<CueSet>,
}

/// A trigger or cue, compiled on first use for the kind of text it searches: compiling, not
/// searching, is most of a Layer 1 hit's cost, and the Unicode classes and case folding of a
/// pattern (`\w{0,40}`, `[^.\n]{0,60}`, `(?i)`) are most of the compiling. A class can only
/// match a character the text holds, so the pattern is compiled with every class cut to the
/// text's alphabet (ASCII and the text's own non-ASCII characters) and every literal with a
/// character outside it made unmatchable: on that text (and on any part of it) the same
/// matches, at a fraction of the cost. On an ASCII text the alphabet is ASCII alone.
#[derive(Debug, Default)]
struct LazyRegex {
    /// As written, for any text.
    unicode: OnceLock<std::result::Result<meta::Regex, String>>,
    /// Cut to ASCII, for ASCII texts only.
    ascii: OnceLock<std::result::Result<meta::Regex, String>>,
    /// Cut to ASCII, for ASCII texts of at most `SHORT_TEXT` bytes (see `compile_for_search`).
    ascii_short: OnceLock<std::result::Result<meta::Regex, String>>,
    /// Cut to ASCII and a few non-ASCII characters (sorted), for texts within that alphabet.
    /// Filled in order; a text no slot covers takes the next one with the union of the last
    /// slot's alphabet and its own, so a process judging many texts compiles a few cuts at most
    /// before it falls back to `unicode`.
    cuts: [OnceLock<Cut>; CUT_SLOTS],
    /// The same for texts of at most `SHORT_TEXT` bytes, compiled as `ascii_short` is.
    short_cuts: [OnceLock<Cut>; CUT_SLOTS],
}

/// A pattern compiled, or the regex crate's error.
type Compiled = std::result::Result<meta::Regex, String>;

/// An alphabet (sorted non-ASCII characters) and the pattern compiled cut to it (None: the
/// alphabet is too large to be worth a cut).
type Cut = (Box<[char]>, Option<Compiled>);

/// How many alphabets a pattern is compiled for before texts outside them take the pattern as
/// written.
const CUT_SLOTS: usize = 4;
/// A text (or alphabet union) with more distinct non-ASCII characters than this, or longer than
/// `CUT_MAX_BYTES`, takes the pattern as written: past that the cut saves little and checking
/// the alphabet on every search would cost more than compiling once.
const CUT_MAX_CHARS: usize = 512;
const CUT_MAX_BYTES: usize = 16 << 10;

/// The text's alphabet for cutting patterns: its distinct non-ASCII characters, sorted (empty
/// for an ASCII text), or None when it is too large or the text too long to be worth a cut.
fn alphabet(text: &str) -> Option<Vec<char>> {
    if text.is_ascii() {
        return Some(Vec::new());
    }
    if text.len() > CUT_MAX_BYTES {
        return None;
    }
    let mut chars: Vec<char> = Vec::new();
    for c in text.chars().filter(|c| !c.is_ascii()) {
        if let Err(at) = chars.binary_search(&c) {
            if chars.len() == CUT_MAX_CHARS {
                return None;
            }
            chars.insert(at, c);
        }
    }
    Some(chars)
}

/// Whether every character of the sorted `inner` is in the sorted `outer`.
fn is_subset(inner: &[char], outer: &[char]) -> bool {
    let mut rest = outer;
    inner.iter().all(|c| match rest.binary_search(c) {
        Ok(at) => {
            rest = &rest[at + 1..];
            true
        }
        Err(_) => false,
    })
}

/// The sorted union of two sorted alphabets.
fn union(a: &[char], b: &[char]) -> Vec<char> {
    let mut all = [a, b].concat();
    all.sort_unstable();
    all.dedup();
    all
}

impl LazyRegex {
    /// `pattern` ready to search `text` or parts of it (errors are the regex crate's messages):
    /// for a short ASCII text, a built-in pattern's NFA from the build (see [`ShortSearch`]).
    fn searcher_for(&self, pattern: &str, text: &str) -> std::result::Result<Searcher<'_>, String> {
        if text.len() <= SHORT_TEXT
            && text.is_ascii()
            && let Some(short) = builtin_short(pattern)
        {
            return Ok(Searcher::Short(short));
        }
        self.for_text(pattern, text).map(Searcher::Meta)
    }

    /// `pattern` compiled for searching `text` or parts of it (errors are the regex crate's
    /// messages).
    fn for_text(&self, pattern: &str, text: &str) -> std::result::Result<&meta::Regex, String> {
        match alphabet(text) {
            Some(chars) if chars.is_empty() && text.len() <= SHORT_TEXT => {
                self.compiled_in(&self.ascii_short, pattern, CompiledFor::AsciiShort)
            }
            Some(chars) if chars.is_empty() => self.compiled(pattern, true),
            Some(chars) => self.cut_for(pattern, &chars, text.len() <= SHORT_TEXT),
            None => self.compiled(pattern, false),
        }
    }

    /// `pattern` compiled for any text, or (`ascii_text`) for ASCII texts only.
    fn compiled(
        &self,
        pattern: &str,
        ascii_text: bool,
    ) -> std::result::Result<&meta::Regex, String> {
        if ascii_text {
            self.compiled_in(&self.ascii, pattern, CompiledFor::Ascii)
        } else {
            self.compiled_in(&self.unicode, pattern, CompiledFor::Any)
        }
    }

    /// `pattern` compiled into `cell`, for any text, ASCII texts or short ASCII texts.
    fn compiled_in<'a>(
        &self,
        cell: &'a OnceLock<Compiled>,
        pattern: &str,
        compiled_for: CompiledFor,
    ) -> std::result::Result<&'a meta::Regex, String> {
        let short = compiled_for == CompiledFor::AsciiShort;
        let ascii_text = compiled_for != CompiledFor::Any;
        cell.get_or_init(|| {
            compile_once(pattern, compiled_for, || {
                compile_for_search(&parsed(pattern, ascii_text)?, pattern, short)
            })
        })
        .as_ref()
        .map_err(Clone::clone)
    }

    /// `pattern` compiled for texts whose non-ASCII characters are all in `chars` (sorted), or
    /// (`short`) for such texts of at most `SHORT_TEXT` bytes.
    fn cut_for(
        &self,
        pattern: &str,
        chars: &[char],
        short: bool,
    ) -> std::result::Result<&meta::Regex, String> {
        let mut covered: &[char] = &[];
        let slots = if short { &self.short_cuts } else { &self.cuts };
        for slot in slots {
            let (alphabet, regex) = slot.get_or_init(|| {
                let alphabet = union(covered, chars);
                let regex = (alphabet.len() <= CUT_MAX_CHARS).then(|| {
                    let compiled_for = if short {
                        CompiledFor::AlphabetShort(alphabet.clone())
                    } else {
                        CompiledFor::Alphabet(alphabet.clone())
                    };
                    compile_once(pattern, compiled_for, || {
                        parsed(pattern, false).and_then(|hir| {
                            compile_for_search(&cut_to(hir, &alphabet), pattern, short)
                        })
                    })
                });
                (alphabet.into_boxed_slice(), regex)
            });
            match regex {
                // Every later slot would be larger still.
                None => break,
                Some(regex) if is_subset(chars, alphabet) => {
                    return regex.as_ref().map_err(Clone::clone);
                }
                Some(_) => covered = alphabet,
            }
        }
        self.compiled(pattern, false)
    }
}

/// The texts a pattern is compiled for: any, ASCII ones, or those within an alphabet.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum CompiledFor {
    Any,
    Ascii,
    AsciiShort,
    Alphabet(Vec<char>),
    AlphabetShort(Vec<char>),
}

/// Up to this size an ASCII text is searched without the lazy DFA (see `compile_for_search`).
const SHORT_TEXT: usize = 1 << 10;

/// A pattern compiled for short ASCII texts as `compile_for_search` compiles it for them, but
/// from the NFA build.rs compiled (`nfa_code`): the same engines `meta::Regex` would pick (the
/// bounded backtracker, the PikeVM past the backtracker's reach) on the same NFA, so the same
/// matches, without decoding the syntax tree or compiling it (most of a Layer 1 hit's cost).
#[derive(Debug)]
struct ShortSearch {
    backtrack: BoundedBacktracker,
    pikevm: PikeVM,
}

impl ShortSearch {
    fn new(nfa: regex_automata::nfa::thompson::NFA) -> Option<ShortSearch> {
        Some(ShortSearch {
            backtrack: BoundedBacktracker::new_from_nfa(nfa.clone()).ok()?,
            pikevm: PikeVM::new_from_nfa(nfa).ok()?,
        })
    }

    /// The leftmost-first match in `input`, as `meta::Regex::search` finds it: the backtracker
    /// while the span is within what its visited set covers (meta's own rule), else the PikeVM.
    fn search(&self, input: &Input<'_>) -> Option<Match> {
        if input.get_span().len() < self.backtrack.max_haystack_len() {
            let mut cache = self.backtrack.create_cache();
            if let Ok(found) = self.backtrack.try_find(&mut cache, input.clone()) {
                return found;
            }
        }
        self.pikevm
            .find(&mut self.pikevm.create_cache(), input.clone())
    }
}

/// Built-in pattern `pattern`'s short-text search, decoded on first use, once per process (the
/// fix detectors share cues); None for a pattern that is no built-in one or did not compile.
fn builtin_short(pattern: &str) -> Option<&'static ShortSearch> {
    static DECODED: [OnceLock<Option<ShortSearch>>; BUILTIN_PATTERNS] =
        [const { OnceLock::new() }; BUILTIN_PATTERNS];
    let at = builtin_index(pattern)?;
    DECODED[at]
        .get_or_init(|| nfa_code::decode(builtin_nfa(at)).and_then(ShortSearch::new))
        .as_ref()
}

/// Built-in pattern `at`'s encoded NFA for short ASCII texts (empty: it does not compile).
fn builtin_nfa(at: usize) -> &'static [u8] {
    let start = at
        .checked_sub(1)
        .map_or(0, |before| BUILTIN_NFA_ENDS[before]);
    &BUILTIN_NFAS[start as usize..BUILTIN_NFA_ENDS[at] as usize]
}

/// A compiled pattern: for any text (`meta::Regex`) or a short ASCII one.
#[derive(Clone, Copy)]
enum Searcher<'a> {
    Meta(&'a meta::Regex),
    Short(&'a ShortSearch),
}

impl Searcher<'_> {
    fn search(&self, input: &Input<'_>) -> Option<Match> {
        match self {
            Searcher::Meta(regex) => regex.search(input),
            Searcher::Short(short) => short.search(input),
        }
    }
}

/// `build()`, or what it gave before in this process for the same pattern and texts. Detectors
/// share patterns (the fix detectors share cues), and compiling is most of a Layer 1 hit's cost,
/// so each is compiled once. The lock is not held while compiling: LLM judges run on threads
/// of their own, and a race only compiles a pattern twice.
fn compile_once(
    pattern: &str,
    compiled_for: CompiledFor,
    build: impl FnOnce() -> Compiled,
) -> Compiled {
    type Cache = BTreeMap<(CompiledFor, String), Compiled>;
    static COMPILED: Mutex<Cache> = Mutex::new(BTreeMap::new());
    let key = (compiled_for, pattern.to_string());
    let cached = |cache: &Cache| cache.get(&key).cloned();
    if let Some(found) = COMPILED.lock().ok().and_then(|cache| cached(&cache)) {
        return found;
    }
    let compiled = build();
    if let Ok(mut cache) = COMPILED.lock() {
        cache.insert(key, compiled.clone());
    }
    compiled
}

/// `pattern` parsed (`ascii`: and cut to ASCII texts): decoded from the build's table for a
/// built-in pattern, else parsed now.
fn parsed(pattern: &str, ascii: bool) -> std::result::Result<Hir, String> {
    match parsed_builtin(pattern, ascii) {
        Some(hir) => Ok(hir),
        None if ascii => parse(pattern).map(|hir| cut_to(hir, &[])),
        None => parse(pattern),
    }
}

/// A built-in pattern as build.rs parsed it (`ascii`: cut to ASCII texts), decoded: parsing
/// it here (case folding, Unicode classes) was most of what a Layer 1 hit cost.
fn parsed_builtin(pattern: &str, ascii: bool) -> Option<Hir> {
    let &(.., whole, cut) = builtin(pattern)?;
    hir_code::decode(if ascii { cut } else { whole }, BUILTIN_SHARED_CLASSES)
}

/// `pattern` parsed as the `regex` crate parses it.
fn parse(pattern: &str) -> std::result::Result<Hir, String> {
    regex_syntax::ParserBuilder::new()
        .utf8(true)
        .build()
        .parse(pattern)
        .map_err(|err| err.to_string())
}

/// Compiles one trigger or cue for the leftmost searches of a hook's one text: `regex::Regex`'s
/// engine and match semantics, minus what such a search does not pay back: the literal
/// prefilter's case-folded extraction costs more than the search it speeds up, and no caller
/// reads a capture group, so only the whole match is tracked (a smaller NFA to build).
///
/// For a `short` text the lazy DFA is left out too: it needs a reverse NFA compiled beside the
/// forward one, and each of the few positions of a short text it visits is a new state to
/// build, so the bounded backtracker searches a text under `SHORT_TEXT` for less than the lazy
/// DFA's construction alone (measured: a Layer 1 hit on an 80-byte answer 84 M -> 59 M
/// instructions; past about 1 KiB the lazy DFA wins, 4 KiB: 117 M against 203 M). That holds
/// for a pattern cut to a short text's alphabet too (a Layer 1 hit with the rules judge on an
/// 81-byte Chinese answer: 59.1 M -> 38.9 M instructions, a Russian one 41.3 M -> 28.6 M).
fn compile_for_search(
    hir: &Hir,
    pattern: &str,
    short: bool,
) -> std::result::Result<meta::Regex, String> {
    // `nfa_code::short_text_config` is this NFA configuration: keep them alike.
    let config = meta::Config::new()
        .nfa_size_limit(Some(nfa_code::NFA_SIZE_LIMIT))
        .hybrid_cache_capacity(2 << 20)
        .utf8_empty(true)
        .which_captures(WhichCaptures::Implicit)
        .auto_prefilter(false)
        .hybrid(!short)
        .onepass(!short);
    meta::Builder::new()
        .configure(config)
        .build_from_hir(hir)
        .map_err(|err| {
            // The regex crate's wording for a pattern too large to compile.
            match err.size_limit() {
                Some(limit) => format!("Compiled regex exceeds size limit of {limit} bytes."),
                None => format!("`{pattern}`: {err}"),
            }
        })
}

/// What a skip or rule cue is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CueRole {
    /// A Layer 1 skip.
    Skip,
    /// `[rules]`: the field (an index into `fields`) is true.
    For(usize),
    /// `[rules_unsure]`: the rules judge cannot settle the field.
    Unsure(usize),
    /// `[rules_against]`: evidence against the field (an admission, a negation).
    Against(usize),
}

/// One cue that matched: its role, its pattern and its leftmost match.
#[derive(Debug, Clone)]
pub struct CueMatch<'a> {
    pub role: CueRole,
    pub pattern: &'a str,
    pub start: usize,
    pub end: usize,
}

/// A compiled trigger. Its word boundaries are ASCII `(?-u:\b)` (a Unicode `\b` sends the
/// search to a slow engine on any non-ASCII text), so a match is re-checked at its edges with
/// [`crate::literals::is_word_boundary`]: `PR` in "Próximos" or `todo` in "Método" is not a word.
#[derive(Debug)]
pub struct Trigger {
    pattern: String,
    regex: LazyRegex,
    /// Every match begins (ends) at a required word boundary.
    word_start: bool,
    word_end: bool,
}

impl Trigger {
    /// With `check`, first checks that the pattern compiles for any text (a search does not
    /// report errors: it would miss silently); each text then compiles it cut to its alphabet.
    /// The built-in patterns need no check (the unit tests compile every one of them): for them
    /// that compile was an eighth of an ASCII hit's cost.
    fn new(pattern: &str, check: bool) -> std::result::Result<Trigger, String> {
        // A built-in pattern's edges come from the build: parsing it again costs as much as
        // compiling it.
        let (word_start, word_end) = match builtin(pattern) {
            Some(&(_, _, edges, ..)) => edges,
            None => crate::gate::word_edges(pattern)?,
        };
        let regex = LazyRegex::default();
        if check {
            regex.compiled(pattern, false)?;
        }
        Ok(Trigger {
            pattern: pattern.to_string(),
            regex,
            word_start,
            word_end,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// The leftmost match at or after `start` whose edges are word boundaries.
    pub fn find_at(&self, text: &str, start: usize) -> Option<Match> {
        let mut at = start;
        while at <= text.len() {
            // `new` compiled the pattern for any text (or it is a built-in one); cut to the
            // text's alphabet it only gets smaller.
            let found = self
                .regex
                .searcher_for(&self.pattern, text)
                .ok()?
                .search(&Input::new(text).range(at..))?;
            let bytes = text.as_bytes();
            let start_ok =
                !self.word_start || crate::literals::is_word_boundary(bytes, found.start());
            let end_ok = !self.word_end || crate::literals::is_word_boundary(bytes, found.end());
            if start_ok && end_ok {
                return Some(found);
            }
            at = text.ceil_char_boundary(found.start() + 1);
        }
        None
    }

    pub fn find(&self, text: &str) -> Option<Match> {
        self.find_at(text, 0)
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.find(text).is_some()
    }

    /// Every match, left to right, without overlaps.
    pub fn find_iter<'t>(&'t self, text: &'t str) -> impl Iterator<Item = Match> + 't {
        let mut at = 0;
        std::iter::from_fn(move || {
            let found = self.find_at(text, at)?;
            at = if found.end() > found.start() {
                found.end()
            } else {
                text.ceil_char_boundary(found.end() + 1)
            };
            Some(found)
        })
    }
}

/// Patterns with literal gates, compiled one by one when their gate occurs in a text: a Layer 1
/// hit with the rules judge compiles only the few cues that can match (compiling all of a
/// detector's cues costs tens of milliseconds).
pub struct CueSet {
    patterns: Vec<(CueRole, String)>,
    /// Err names the first pattern whose gate could not be computed (it does not parse).
    gates: std::result::Result<Vec<Gate>, String>,
    regexes: Vec<LazyRegex>,
    /// The gates as one index: the build's for a built-in detector's own cues, else built on
    /// first use.
    builtin_index: Option<&'static GateIndex>,
    index: OnceLock<GateIndex>,
}

impl std::fmt::Debug for CueSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CueSet")
            .field("patterns", &self.patterns)
            .finish_non_exhaustive()
    }
}

impl CueSet {
    fn new(patterns: Vec<(CueRole, String)>, detector: &str) -> CueSet {
        let builtin_index = builtin_cue_index(detector, &patterns);
        let gates = patterns
            .iter()
            .map(|(role, pattern)| {
                gate_of(pattern).map_err(|err| {
                    format!(
                        "detector `{detector}`: invalid {} pattern `{pattern}`: {err}",
                        role_kind(*role)
                    )
                })
            })
            .collect();
        let regexes = patterns.iter().map(|_| LazyRegex::default()).collect();
        CueSet {
            patterns,
            gates,
            regexes,
            builtin_index,
            index: OnceLock::new(),
        }
    }

    /// Cue `index` ready to search `text`.
    fn searcher(
        &self,
        index: usize,
        detector: &str,
        text: &str,
    ) -> std::result::Result<Searcher<'_>, String> {
        let (role, pattern) = &self.patterns[index];
        self.regexes[index]
            .searcher_for(pattern, text)
            .map_err(|err| invalid_cue(detector, *role, pattern, &err))
    }

    /// Cue `index` compiled for searching `text` (None: any text).
    fn regex(
        &self,
        index: usize,
        detector: &str,
        text: Option<&str>,
    ) -> std::result::Result<&meta::Regex, String> {
        let (role, pattern) = &self.patterns[index];
        let regex = &self.regexes[index];
        match text {
            Some(text) => regex.for_text(pattern, text),
            None => regex.compiled(pattern, false),
        }
        .map_err(|err| invalid_cue(detector, *role, pattern, &err))
    }

    /// The leftmost match of every cue with a role `wanted` accepts, compiling only the cues
    /// whose gate occurs in `text`.
    fn matches<'s>(
        &'s self,
        text: &str,
        detector: &str,
        wanted: impl Fn(CueRole) -> bool,
    ) -> std::result::Result<Vec<CueMatch<'s>>, String> {
        let mut found = Vec::new();
        for i in self.candidates(text, wanted)? {
            if let Some(m) = self.searcher(i, detector, text)?.search(&Input::new(text)) {
                let (role, pattern) = &self.patterns[i];
                found.push(CueMatch {
                    role: *role,
                    pattern,
                    start: m.start(),
                    end: m.end(),
                });
            }
        }
        Ok(found)
    }

    /// The index and compiled regex of every cue with a role `wanted` accepts whose gate occurs
    /// in `text` (only those are compiled).
    fn gated<'s>(
        &'s self,
        text: &str,
        detector: &str,
        wanted: impl Fn(CueRole) -> bool,
    ) -> std::result::Result<Vec<(usize, &'s meta::Regex)>, String> {
        self.candidates(text, wanted)?
            .into_iter()
            .map(|i| Ok((i, self.regex(i, detector, Some(text))?)))
            .collect()
    }

    /// Every cue with a role `wanted` accepts whose gate occurs in `text`.
    fn candidates(
        &self,
        text: &str,
        wanted: impl Fn(CueRole) -> bool,
    ) -> std::result::Result<Vec<usize>, String> {
        let gates = self.gates.as_ref().map_err(Clone::clone)?;
        let index = match self.builtin_index {
            Some(index) => index,
            None => self.index.get_or_init(|| {
                let clauses: Vec<Vec<&[Literal]>> = gates.iter().map(Gate::clauses).collect();
                GateIndex::new(&clauses)
            }),
        };
        let candidates = index.candidates(text);
        Ok(self
            .patterns
            .iter()
            .enumerate()
            .filter(|(i, (role, _))| candidates[*i] && wanted(*role))
            .map(|(i, _)| i)
            .collect())
    }

    fn compile_all(&self, detector: &str) -> std::result::Result<(), String> {
        self.gates.as_ref().map_err(Clone::clone)?;
        (0..self.patterns.len()).try_for_each(|i| self.regex(i, detector, None).map(|_| ()))
    }
}

/// The build's gate index of `detector`'s cues when `patterns` are exactly the built-in
/// detector's (a user's override of its skips or rules makes them differ): building it is a
/// good part of what a Layer 1 hit costs.
fn builtin_cue_index(detector: &str, patterns: &[(CueRole, String)]) -> Option<&'static GateIndex> {
    let at = BUILTIN_EVENTS
        .iter()
        .position(|(name, _)| *name == detector)?;
    let (slots, index) = &BUILTIN_CUE_INDEXES[at];
    let same = slots.len() == patterns.len()
        && slots
            .iter()
            .zip(patterns)
            .all(|(&slot, (_, pattern))| BUILTIN_GATES[slot as usize].0 == pattern);
    same.then_some(index)
}

fn invalid_cue(detector: &str, role: CueRole, pattern: &str, err: &str) -> String {
    format!(
        "detector `{detector}`: invalid {} pattern `{pattern}`: {err}",
        role_kind(role)
    )
}

fn role_kind(role: CueRole) -> &'static str {
    match role {
        CueRole::Skip => "skip",
        CueRole::For(_) => "rules",
        CueRole::Unsure(_) => "rules_unsure",
        CueRole::Against(_) => "rules_against",
    }
}

impl Detector {
    /// `user_patterns`: a user wrote some of the patterns (see `Detectors::check_patterns`).
    fn from_spec(spec: DetectorSpec, user_patterns: bool) -> Result<Detector> {
        let name = spec.name.clone();
        let missing = |key: &str| {
            Error::config(format!("detector `{name}`: missing `{key}`"))
                .with_hint("a new detector needs triggers, fields, block_when, prompt and feedback")
        };
        let fields = spec.fields.ok_or_else(|| missing("fields"))?;
        if fields.is_empty() {
            return Err(missing("fields"));
        }
        let block_when = spec.block_when.ok_or_else(|| missing("block_when"))?;
        let formula = Formula::parse(&block_when, &fields).map_err(|err| {
            Error::config(format!(
                "detector `{name}`: block_when `{block_when}`: {err}"
            ))
        })?;
        let rule_table = |table: &str, map: Option<BTreeMap<String, Vec<String>>>| {
            let rules: Vec<(String, Vec<String>)> = map.unwrap_or_default().into_iter().collect();
            match rules.iter().find(|(field, _)| !fields.contains(field)) {
                Some((field, _)) => Err(Error::config(format!(
                    "detector `{name}`: [{table}] names unknown field `{field}` (fields: {})",
                    fields.join(", ")
                ))),
                None => Ok(rules),
            }
        };
        let rules = rule_table("rules", spec.rules)?;
        let rules_unsure = rule_table("rules_unsure", spec.rules_unsure)?;
        let rules_against = rule_table("rules_against", spec.rules_against)?;
        let skips = spec.skips.unwrap_or_default();
        let triggers = spec.triggers.ok_or_else(|| missing("triggers"))?;
        if triggers.is_empty() {
            return Err(missing("triggers"));
        }
        let gates = triggers
            .iter()
            .map(|trigger| {
                gate_of(trigger).map_err(|err| {
                    format!("detector `{name}`: invalid trigger pattern `{trigger}`: {err}")
                })
            })
            .collect();
        let trigger_regexes = triggers.iter().map(|_| OnceLock::new()).collect();
        let judge = spec.judge.unwrap_or(JudgeBy::Backend);
        // An evidence-judged detector asks no model: it needs no prompt.
        let prompt = match (spec.prompt, judge) {
            (Some(prompt), _) => prompt,
            (None, JudgeBy::Evidence) => String::new(),
            (None, JudgeBy::Backend) => return Err(missing("prompt")),
        };
        Ok(Detector {
            description: spec.description.unwrap_or_default(),
            events: spec.events.unwrap_or_else(|| vec![Event::Stop]),
            judge,
            triggers,
            skips,
            fields,
            block_when,
            formula,
            prompt,
            feedback: spec::reflowed(spec.feedback.ok_or_else(|| missing("feedback"))?),
            rules,
            rules_unsure,
            rules_against,
            gates,
            user_patterns,
            trigger_regexes,
            cues: OnceLock::new(),
            name,
        })
    }

    /// The skips and rule cues, gated, built on first use: a Stop without a Layer 1 hit never
    /// looks at them, and working out their gates is a good part of loading a detector.
    fn cues(&self) -> &CueSet {
        self.cues.get_or_init(|| {
            let field_index = |field: &String| self.fields.iter().position(|f| f == field);
            let mut patterns: Vec<(CueRole, String)> = self
                .skips
                .iter()
                .map(|skip| (CueRole::Skip, skip.clone()))
                .collect();
            for (table, role) in [
                (&self.rules, CueRole::For as fn(usize) -> CueRole),
                (&self.rules_unsure, CueRole::Unsure),
                (&self.rules_against, CueRole::Against),
            ] {
                for (field, cues) in table {
                    // `from_spec` checked that every table names a field of the detector.
                    let index = field_index(field).unwrap_or(0);
                    patterns.extend(cues.iter().map(|cue| (role(index), cue.clone())));
                }
            }
            CueSet::new(patterns, &self.name)
        })
    }

    /// Trigger `index`, compiled on first use.
    pub fn trigger(&self, index: usize) -> std::result::Result<&Trigger, String> {
        self.trigger_regexes[index]
            .get_or_init(|| {
                let pattern = &self.triggers[index];
                Trigger::new(pattern, self.user_patterns).map_err(|err| {
                    format!(
                        "detector `{}`: invalid trigger pattern `{pattern}`: {err}",
                        self.name
                    )
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Every trigger, compiled.
    pub fn triggers_compiled(&self) -> std::result::Result<Vec<&Trigger>, String> {
        (0..self.triggers.len()).map(|i| self.trigger(i)).collect()
    }

    /// The triggers that may match `text`, compiled: those whose gate occurs in it (or that
    /// have none). A trigger whose gate is absent cannot match, so this finds every match
    /// `triggers_compiled` would, without compiling the detector's every trigger.
    pub fn triggers_for(&self, text: &str) -> std::result::Result<Vec<&Trigger>, String> {
        let set = TriggerSet::new(&[self]).map_err(|err| err.to_string())?;
        let candidates = set.candidates(text).map_err(|err| err.to_string())?;
        candidates
            .iter()
            .enumerate()
            .filter(|(_, candidate)| **candidate)
            .map(|(t, _)| self.trigger(t))
            .collect()
    }

    /// The first skip pattern that matches `text` (only skips whose gate occurs are compiled).
    pub fn skip_match(&self, text: &str) -> std::result::Result<Option<&str>, String> {
        if self.skips.is_empty() {
            return Ok(None);
        }
        Ok(self
            .cues()
            .matches(text, &self.name, |role| role == CueRole::Skip)?
            .into_iter()
            .next()
            .map(|m| m.pattern))
    }

    /// Every rule cue (`rules`, `rules_unsure`, `rules_against`) that matches `text`, with its
    /// leftmost match.
    pub fn rule_matches(&self, text: &str) -> std::result::Result<Vec<CueMatch<'_>>, String> {
        self.cues()
            .matches(text, &self.name, |role| role != CueRole::Skip)
    }

    /// The `[rules]` cues of each field that may match `text` (compiled only when their gate
    /// occurs in it), for a judge that applies them to parts of `text`: the evidence judge
    /// reads the message clause by clause.
    pub fn rule_cues(
        &self,
        text: &str,
    ) -> std::result::Result<Vec<(String, Vec<&meta::Regex>)>, String> {
        let cue_set = self.cues();
        let gated = cue_set.gated(text, &self.name, |role| matches!(role, CueRole::For(_)))?;
        Ok(self
            .fields
            .iter()
            .enumerate()
            .map(|(field, name)| {
                let cues = gated
                    .iter()
                    .filter(|(i, _)| cue_set.patterns[*i].0 == CueRole::For(field))
                    .map(|(_, regex)| *regex)
                    .collect();
                (name.clone(), cues)
            })
            .collect())
    }

    /// Compiles every skip and rule cue (for `check_patterns` and the tests).
    pub fn compile_cues(&self) -> std::result::Result<(), String> {
        self.cues().compile_all(&self.name)
    }

    /// The JSON schema of the judge's reply: every field a boolean, plus a short reason.
    pub fn reply_schema(&self) -> serde_json::Value {
        let mut properties = serde_json::Map::new();
        for field in &self.fields {
            properties.insert(field.clone(), serde_json::json!({"type": "boolean"}));
        }
        properties.insert("reason".into(), serde_json::json!({"type": "string"}));
        let mut required: Vec<&str> = self.fields.iter().map(String::as_str).collect();
        required.push("reason");
        serde_json::json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }
}

/// The built-in specs with `entries` applied (overrides by name, new detectors appended),
/// disabled ones included: what a config's detectors amount to before they are built.
pub fn effective_specs(entries: &[DetectorSpec]) -> Vec<DetectorSpec> {
    merged_specs(entries)
        .into_iter()
        .map(|(spec, _)| spec)
        .collect()
}

/// Each effective spec with whether a user wrote any of its patterns.
fn merged_specs(entries: &[DetectorSpec]) -> Vec<(DetectorSpec, bool)> {
    merged_specs_where(entries, |_| true)
}

/// [`merged_specs`] of the built-ins whose effective events (the last override's, else their
/// own) `wanted` accepts, and of every user detector: a hook does not copy the built-ins it
/// will not run.
fn merged_specs_where(
    entries: &[DetectorSpec],
    wanted: impl Fn(&[Event]) -> bool,
) -> Vec<(DetectorSpec, bool)> {
    let mut skipped: Vec<&str> = Vec::new();
    let mut specs: Vec<(DetectorSpec, bool)> = Vec::with_capacity(BUILTIN_EVENTS.len());
    for (index, &(name, events)) in BUILTIN_EVENTS.iter().enumerate() {
        let effective = entries
            .iter()
            .filter(|entry| entry.name == name)
            .filter_map(|entry| entry.events.as_deref())
            .next_back()
            .unwrap_or(events);
        if wanted(effective) {
            specs.push((builtin_spec(index), false));
        } else {
            skipped.push(name);
        }
    }
    for entry in entries
        .iter()
        .filter(|e| !skipped.contains(&e.name.as_str()))
    {
        match specs.iter_mut().find(|(s, _)| s.name == entry.name) {
            Some((existing, user_patterns)) => {
                existing.override_with(entry);
                *user_patterns |=
                    entry.triggers.is_some() || entry.skips.is_some() || entry.rules.is_some();
            }
            None => specs.push((entry.clone(), true)),
        }
    }
    specs
}

/// The enabled detectors, built-ins first, then user detectors in config order.
#[derive(Debug)]
pub struct Detectors {
    pub list: Vec<Detector>,
}

impl Detectors {
    pub fn load(entries: &[DetectorSpec]) -> Result<Detectors> {
        let list = merged_specs(entries)
            .into_iter()
            .filter(|(spec, _)| spec.enabled != Some(false))
            .map(|(spec, user_patterns)| Detector::from_spec(spec, user_patterns))
            .collect::<Result<Vec<_>>>()?;
        Ok(Detectors { list })
    }

    /// The enabled detectors that run on `event`: what one hook call needs. A pre-tool call
    /// builds no Stop detector, a Stop call no pre-tool one.
    pub fn load_for(entries: &[DetectorSpec], event: Event) -> Result<Detectors> {
        let list = merged_specs_where(entries, |events| events.contains(&event))
            .into_iter()
            .filter(|(spec, _)| spec.enabled != Some(false))
            .filter(|(spec, _)| {
                spec.events
                    .as_deref()
                    .map_or(event == Event::Stop, |events| events.contains(&event))
            })
            .map(|(spec, user_patterns)| Detector::from_spec(spec, user_patterns))
            .collect::<Result<Vec<_>>>()?;
        Ok(Detectors { list })
    }

    /// Layer 1 of the built-in detectors of `event` without building them, when the config
    /// changes none (`entries` is empty): the names of the detectors `load_for` would select,
    /// in its order, when no gate of their triggers occurs in `text` (then no trigger can
    /// match: each detector is a miss). None when that cannot be told without building them.
    /// Most Stops hit nothing, and building the detectors was most of what they cost.
    pub fn builtin_misses(
        entries: &[DetectorSpec],
        event: Event,
        text: &str,
    ) -> Option<Vec<&'static str>> {
        if !entries.is_empty() {
            return None;
        }
        let seen = BUILTIN_TRIGGER_INDEX.candidates(text);
        let mut names = Vec::new();
        for (&(name, events), slots) in BUILTIN_EVENTS.iter().zip(BUILTIN_TRIGGER_SLOTS) {
            if !events.contains(&event) {
                continue;
            }
            if slots
                .iter()
                .any(|slot| slot.is_none_or(|slot| seen[slot as usize]))
            {
                return None;
            }
            names.push(name);
        }
        Some(names)
    }

    pub fn get(&self, name: &str) -> Option<&Detector> {
        self.list.iter().find(|d| d.name == name)
    }

    /// The first trigger that does not parse (found at load, without compiling anything): a
    /// detector that would fail every call it runs on.
    pub fn trigger_error(&self) -> Option<&str> {
        self.list
            .iter()
            .find_map(|d| d.gates.as_ref().err().map(String::as_str))
    }

    /// The enabled detectors for `event`, optionally only those named in `only`.
    pub fn select(&self, event: Event, only: &[String]) -> Result<Vec<&Detector>> {
        self.named(only)?;
        Ok(self
            .list
            .iter()
            .filter(|d| d.events.contains(&event))
            .filter(|d| only.is_empty() || only.contains(&d.name))
            .collect())
    }

    /// The detectors named in `names`, in that order, whatever their event.
    pub fn named(&self, names: &[String]) -> Result<Vec<&Detector>> {
        names
            .iter()
            .map(|name| {
                self.get(name).ok_or_else(|| {
                    let known: Vec<&str> = self.list.iter().map(|d| d.name.as_str()).collect();
                    Error::usage(format!("no enabled detector named `{name}`"))
                        .with_hint(format!("enabled detectors: {}", known.join(", ")))
                })
            })
            .collect()
    }

    /// Compiles every pattern a user wrote, reporting the first error. The built-in patterns
    /// are compiled by the unit tests (and parsed by build.rs): compiling them all again would
    /// cost every `judge` call a fifth of a second.
    pub fn check_patterns(&self) -> Result<()> {
        for detector in self.list.iter().filter(|d| d.user_patterns) {
            detector.triggers_compiled().map_err(Error::config)?;
            detector.compile_cues().map_err(Error::config)?;
        }
        Ok(())
    }
}

/// The Layer 1 triggers of several detectors, searched together.
///
/// A hook judges one text per process, so building an automaton of every trigger (tens of
/// milliseconds for the built-ins) would cost far more than the search. Instead one cheap pass
/// looks for the triggers' gate literals, and only a trigger whose gate occurs (or that has no
/// gate) is compiled and run: most texts compile nothing. The same holds for a text of
/// megabytes: one automaton of every trigger was tried for those, and since the triggers grew
/// its lazy DFA gives up on them for the PikeVM (a minute per megabyte). The result is exactly
/// what a `regex::RegexSet` of every trigger would say (a unit test holds it to that).
pub struct TriggerSet<'d> {
    detectors: Vec<&'d Detector>,
    /// The gates of every trigger, in `owners` order.
    gates: TriggerGates,
    /// Every trigger as (detector, trigger), in detector then trigger order.
    owners: Vec<(usize, usize)>,
}

/// Where the gates of a set's triggers are searched.
enum TriggerGates {
    /// Every trigger is a built-in one: the index built at build time, and each trigger's slot
    /// in it (None: the trigger has no gate). Nothing to build, nothing to allocate: the index
    /// is read where it lies in the binary, a few pages of it per text.
    Builtin(Vec<Option<u32>>),
    /// Some trigger is a user's: an index of the set's own gates, built now.
    Built(Box<GateIndex>),
}

impl TriggerGates {
    fn new(gates: &[&[Gate]]) -> TriggerGates {
        let slots = gates
            .iter()
            .flat_map(|triggers| triggers.iter())
            .map(|gate| match gate {
                Gate::Always => Some(None),
                Gate::Builtin(_, slot) => slot.map(Some),
                Gate::Computed(_) => None,
            })
            .collect::<Option<Vec<Option<u32>>>>();
        slots.map_or_else(
            || {
                let flat: Vec<Vec<&[Literal]>> = gates
                    .iter()
                    .flat_map(|triggers| triggers.iter().map(Gate::clauses))
                    .collect();
                TriggerGates::Built(Box::new(GateIndex::new(&flat)))
            },
            TriggerGates::Builtin,
        )
    }

    /// Whether each trigger may match `text` (its gate clauses all occur, or it has none).
    fn candidates(&self, text: &str) -> Vec<bool> {
        match self {
            TriggerGates::Builtin(slots) => {
                let seen = BUILTIN_TRIGGER_INDEX.candidates(text);
                slots
                    .iter()
                    .map(|slot| slot.is_none_or(|slot| seen[slot as usize]))
                    .collect()
            }
            TriggerGates::Built(index) => index.candidates(text),
        }
    }
}

/// The first trigger (in order) of a detector that matches, and its leftmost match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TriggerHit {
    /// Index into the detectors given to `TriggerSet::new`.
    pub detector: usize,
    /// Index into that detector's triggers.
    pub trigger: usize,
    pub start: usize,
    pub end: usize,
}

// A trigger's clauses are bits of a u8.
const _: () = assert!(crate::gate::MAX_CLAUSES <= 8);

impl<'d> TriggerSet<'d> {
    /// Fails when a trigger does not parse, naming its detector.
    pub fn new(detectors: &[&'d Detector]) -> Result<TriggerSet<'d>> {
        let mut gates = Vec::with_capacity(detectors.len());
        for detector in detectors {
            let gate = detector
                .gates
                .as_ref()
                .map_err(|err| Error::config(err.clone()))?;
            gates.push(gate.as_slice());
        }
        let owners = gates
            .iter()
            .enumerate()
            .flat_map(|(d, triggers)| (0..triggers.len()).map(move |t| (d, t)))
            .collect();
        Ok(TriggerSet {
            detectors: detectors.to_vec(),
            gates: TriggerGates::new(&gates),
            owners,
        })
    }

    /// The detectors given to `new`, in that order.
    pub fn detectors(&self) -> &[&'d Detector] {
        &self.detectors
    }

    /// For each detector with at least one trigger match, in order: its first matching trigger.
    /// Fails when a trigger that had to run does not compile.
    pub fn hits(&self, text: &str) -> Result<Vec<TriggerHit>> {
        let candidates = self.candidates(text)?;
        let mut hits: Vec<TriggerHit> = Vec::new();
        for (flat, &(detector, trigger)) in self.owners.iter().enumerate() {
            if !candidates[flat] || hits.last().is_some_and(|hit| hit.detector == detector) {
                continue;
            }
            let regex = self.detectors[detector]
                .trigger(trigger)
                .map_err(Error::config)?;
            if let Some(found) = regex.find(text) {
                hits.push(TriggerHit {
                    detector,
                    trigger,
                    start: found.start(),
                    end: found.end(),
                });
            }
        }
        Ok(hits)
    }

    /// Which triggers (in `owners` order) may match `text`: those whose gate clauses all occur.
    fn candidates(&self, text: &str) -> Result<Vec<bool>> {
        Ok(self.gates.candidates(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use regex::RegexSetBuilder;

    fn config_with(detectors_toml: &str) -> Result<Config> {
        Config::from_layers(&[
            (
                crate::config::Source::Defaults,
                crate::config::DEFAULT_CONFIG.to_string(),
            ),
            (
                crate::config::Source::File("user.toml".into()),
                detectors_toml.to_string(),
            ),
        ])
    }

    #[test]
    fn a_hook_loads_only_its_events_detectors() {
        let config = config_with(
            r#"
[[detectors]]
name = "no-secrets-in-commands"
events = ["pre-tool"]
triggers = ['curl']
fields = ["bad"]
block_when = "bad"
prompt = "p"
feedback = "f"

[[detectors]]
name = "commit"
enabled = false

[[detectors]]
name = "scope-check"
events = ["stop", "pre-tool"]
"#,
        )
        .unwrap();
        let names = |event| -> Vec<String> {
            Detectors::load_for(&config.detectors, event)
                .unwrap()
                .list
                .into_iter()
                .map(|d| d.name)
                .collect()
        };
        assert_eq!(
            names(Event::PreTool),
            // A built-in whose events a user changed runs where the user put it.
            ["scope-check", "destructive", "no-secrets-in-commands"]
        );
        assert_eq!(
            names(Event::Stop),
            [
                "scope-check",
                "scope-change",
                "shallow-bugfix",
                "bugfix-without-reproduction",
                "unbacked-claim"
            ]
        );
    }

    #[test]
    fn builtins_load_and_compile() {
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        let names: Vec<_> = detectors.list.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "commit",
                "scope-check",
                "scope-change",
                "shallow-bugfix",
                "bugfix-without-reproduction",
                "unbacked-claim",
                "destructive"
            ]
        );
        for detector in &detectors.list {
            detector.triggers_compiled().unwrap();
            detector.compile_cues().unwrap();
        }
        let stop = detectors.select(Event::Stop, &[]).unwrap();
        assert_eq!(stop.len(), 6);
        TriggerSet::new(&stop).unwrap();
    }

    #[test]
    fn builtin_triggers_use_only_ascii_word_boundaries() {
        // A Unicode `\b` makes the whole trigger set fall back to a slow engine as soon as a
        // text holds one non-ASCII character (hundreds of times slower on Japanese text).
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        for detector in &detectors.list {
            for trigger in &detector.triggers {
                let bare = trigger.replace("(?-u:\\b)", "");
                assert!(
                    !bare.contains("\\b"),
                    "{}: Unicode \\b in {trigger}",
                    detector.name
                );
            }
        }
    }

    #[test]
    fn builtins_can_be_disabled_and_overridden() {
        let config = config_with(
            "[[detectors]]\nname = \"scope-check\"\nenabled = false\n\n\
             [[detectors]]\nname = \"commit\"\ntriggers = ['ship it']\n",
        )
        .unwrap();
        let detectors = Detectors::load(&config.detectors).unwrap();
        assert!(detectors.get("scope-check").is_none());
        let commit = detectors.get("commit").unwrap();
        assert_eq!(commit.triggers, ["ship it"]);
        assert!(commit.formula.fields().contains(&"verification_reported"));
    }

    #[test]
    fn user_detector_with_unknown_formula_field_is_a_load_error() {
        let config = config_with(
            "[[detectors]]\nname = \"todo\"\ntriggers = ['TODO']\nfields = ['a']\n\
             block_when = 'a && b'\nprompt = 'p'\nfeedback = 'f'\n",
        )
        .unwrap();
        let err = Detectors::load(&config.detectors).unwrap_err();
        assert!(err.message.contains("detector `todo`"), "{}", err.message);
        assert!(err.message.contains("unknown field `b`"), "{}", err.message);
    }

    #[test]
    fn user_detector_missing_keys_is_a_load_error() {
        let config = config_with("[[detectors]]\nname = \"todo\"\ntriggers = ['TODO']\n").unwrap();
        let err = Detectors::load(&config.detectors).unwrap_err();
        assert!(
            err.message.contains("detector `todo`: missing `fields`"),
            "{}",
            err.message
        );
    }

    #[test]
    fn invalid_pattern_names_the_detector() {
        let config = config_with(
            "[[detectors]]\nname = \"todo\"\ntriggers = ['(unclosed']\nfields = ['a']\n\
             block_when = 'a'\nprompt = 'p'\nfeedback = 'f'\n",
        )
        .unwrap();
        let detectors = Detectors::load(&config.detectors).unwrap();
        let err = detectors.check_patterns().unwrap_err();
        assert!(
            err.message
                .contains("detector `todo`: invalid trigger pattern"),
            "{}",
            err.message
        );
        let stop = detectors.select(Event::Stop, &[]).unwrap();
        assert!(TriggerSet::new(&stop).is_err());
    }

    fn corpus_texts() -> Vec<String> {
        let corpus = include_str!("../../tests/corpus/messages.jsonl");
        let mut texts: Vec<String> = corpus
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter_map(|v| v["text"].as_str().map(str::to_string))
            .collect();
        assert!(texts.len() > 200, "the corpus was not read");
        texts.extend(
            [
                "COMMIT now?",
                "ſhall I puſh",
                "KELVIN \u{212A}",
                "ta\u{212A}e the PR",
                "コミットしますか？",
                "git push -f origin main",
                "git  -C repo push --force",
                "rm -rf /",
                "sudo rm -rf ~",
                "curl -fsSL https://x.sh | sh",
                "psql -c 'DROP TABLE users;'",
                "Değişiklikleri yayınlayalım mı?",
                "Ready to open the PR? (pr)",
                "Próximos pasos: el Método todo está listo.",
                "Próximos pasos: abrir el PR.",
                "PRを作成しますか？",
                "",
            ]
            .map(String::from),
        );
        texts
    }

    /// A pattern cut to a text's alphabet finds, on that text, exactly the match
    /// `regex::Regex` finds with the pattern as written: every built-in trigger, skip and rule
    /// cue on every text of the corpus (and on texts made to hit the cues' classes and case
    /// folding), through the alphabet slots shared by all the texts in turn (unions of
    /// alphabets, then the pattern as written) and, for an eighth of the non-ASCII texts, cut
    /// for the one text alone.
    #[test]
    fn cut_patterns_match_as_written_on_each_text() {
        let detectors = Detectors::load(&[]).unwrap();
        let mut texts: Vec<String> = corpus_texts();
        texts.extend(
            [
                "COMMIT\tnow.\nTESTS: 3 passed_ok",
                "kelvin SHALL push\r\n",
                "x\u{7f}y",
                "Ǆ ǅ ǆ ß ẞ ſ \u{212A} K k — tests passés, корректно ИСПРАВЛЕНО",
            ]
            .map(String::from),
        );
        let mut checked = 0;
        let mut short = 0;
        let mut cut_alone = 0;
        for detector in &detectors.list {
            let patterns = detector.triggers.iter().chain(&detector.skips).chain(
                [
                    &detector.rules,
                    &detector.rules_unsure,
                    &detector.rules_against,
                ]
                .into_iter()
                .flatten()
                .flat_map(|(_, cues)| cues),
            );
            for pattern in patterns {
                let written = regex::Regex::new(pattern).unwrap();
                let shared = LazyRegex::default();
                for (nth, text) in texts.iter().enumerate() {
                    let expected = written.find(text).map(|m| m.range());
                    // A short ASCII text takes the NFA from the build (`ShortSearch`).
                    let searcher = shared.searcher_for(pattern, text).unwrap();
                    let found = searcher.search(&Input::new(text));
                    assert_eq!(
                        found.map(|m| m.range()),
                        expected,
                        "`{pattern}` on {text:?} (shared)"
                    );
                    if matches!(searcher, Searcher::Short(_)) {
                        // From the middle on, as `Trigger::find_at` searches after a rejected
                        // match.
                        let middle = text.len() / 2;
                        let rest = searcher.search(&Input::new(text).range(middle..));
                        assert_eq!(
                            rest.map(|m| m.range()),
                            written.find_at(text, middle).map(|m| m.range()),
                            "`{pattern}` on {text:?} from {middle}"
                        );
                        short += 1;
                    }
                    checked += 1;
                    // Every eighth text cut alone: a cut per text and pattern is slow to test.
                    if !text.is_ascii() && nth % 8 == 0 {
                        let alone = LazyRegex::default();
                        let found = alone.for_text(pattern, text).unwrap().find(text.as_str());
                        assert_eq!(
                            found.map(|m| m.range()),
                            expected,
                            "`{pattern}` on {text:?} (cut for the text alone)"
                        );
                        assert!(alone.unicode.get().is_none(), "`{pattern}` was not cut");
                        cut_alone += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "only {checked} searches were compared");
        assert!(
            short > 5_000,
            "only {short} short-text searches were compared"
        );
        assert!(cut_alone > 5_000, "only {cut_alone} cuts were compared");
    }

    /// The NFAs build.rs embeds decode to what compiling each built-in pattern for a short ASCII
    /// text gives now (the cut form, `nfa_code::short_text_config`): a short text is searched
    /// with exactly the automaton it would get without them. The encoding is checked both ways.
    #[test]
    fn every_embedded_nfa_decodes_to_the_nfa_compiled_now() {
        for (at, (pattern, ..)) in BUILTIN_GATES.iter().enumerate() {
            let embedded = builtin_nfa(at);
            let cut = parsed(pattern, true).unwrap();
            let compiled = regex_automata::nfa::thompson::Compiler::new()
                .configure(nfa_code::short_text_config())
                .build_from_hir(&cut)
                .unwrap();
            let encoded = nfa_code::encode(&compiled).unwrap();
            assert_eq!(&encoded[..], embedded, "{pattern}");
            let decoded = nfa_code::decode(embedded).unwrap();
            assert_eq!(format!("{decoded:?}"), format!("{compiled:?}"), "{pattern}");
            assert!(builtin_short(pattern).is_some(), "{pattern}");
        }
        assert_eq!(BUILTIN_GATES.len(), BUILTIN_PATTERNS);
    }

    /// Each built-in detector's cue index from the build is the one its cues' gates give now:
    /// same literals, same clauses, the same candidates on the tuning corpus; and a user's
    /// override of a detector's rules leaves the build's index unused.
    #[test]
    fn the_embedded_cue_indexes_are_the_ones_built_now() {
        let detectors = Detectors::load(&[]).unwrap();
        let texts = corpus_texts();
        for detector in &detectors.list {
            let cues = detector.cues();
            let embedded = cues
                .builtin_index
                .unwrap_or_else(|| panic!("{}: no embedded cue index", detector.name));
            let gates = cues.gates.as_ref().unwrap();
            let clauses: Vec<Vec<&[Literal]>> = gates.iter().map(Gate::clauses).collect();
            let built = GateIndex::new(&clauses);
            assert_eq!(embedded.index.literals(), built.index.literals());
            assert_eq!(embedded.gated, built.gated, "{}", detector.name);
            assert_eq!(embedded.clauses, built.clauses, "{}", detector.name);
            for text in &texts {
                assert_eq!(embedded.candidates(text), built.candidates(text));
            }
        }
        let mut overridden: DetectorSpec =
            toml_edit::de::from_str("name = \"commit\"\n[rules]\nnew_proposal = ['(?i)ship it']\n")
                .unwrap();
        overridden.events = None;
        let detectors = Detectors::load(&[overridden]).unwrap();
        let commit = detectors.list.iter().find(|d| d.name == "commit").unwrap();
        assert!(commit.cues().builtin_index.is_none());
        assert!(commit.cues().candidates("ship it", |_| true).unwrap().len() == 1);
    }

    #[test]
    fn alphabets_fill_slots_then_fall_back_to_the_pattern_as_written() {
        let cut = LazyRegex::default();
        let pattern = r"(?i)\w+ é";
        for text in ["à é", "ü é", "à ü é", "ï é", "ö é"] {
            cut.for_text(pattern, text).unwrap();
        }
        // Short texts: the short-text slots.
        assert!(cut.cuts.iter().all(|slot| slot.get().is_none()));
        let alphabets: Vec<String> = cut
            .short_cuts
            .iter()
            .map(|slot| slot.get().unwrap().0.iter().collect())
            .collect();
        // "à ü é" is covered by the union of the first two; "ö é" finds every slot taken.
        assert_eq!(alphabets, ["àé", "àéü", "àéïü", "àéïöü"]);
        assert!(cut.unicode.get().is_none());
        let found = cut.for_text(pattern, "ø é").unwrap().find("ø é");
        assert_eq!(found.map(|m| m.range()), Some(0..5));
        assert!(
            cut.unicode.get().is_some(),
            "a fifth alphabet takes the pattern as written"
        );
        // 513 distinct ideographs, one more than a cut takes.
        let huge: String = ('\u{4E00}'..='\u{5000}').collect();
        assert!(
            alphabet(&huge).is_none(),
            "too many characters to be worth a cut"
        );
        assert_eq!(alphabet("plain").as_deref(), Some(&[][..]));
    }

    /// The gated trigger set answers exactly what a `regex::RegexSet` of every trigger answers
    /// (less the matches whose edges fall inside a word of accented letters),
    /// on every message of the evaluation corpus, the shell command table's destructive
    /// commands and a few texts in other scripts and case foldings.
    #[test]
    fn trigger_set_hits_what_regex_set_hits() {
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        let mut all = detectors.select(Event::Stop, &[]).unwrap();
        all.extend(detectors.select(Event::PreTool, &[]).unwrap());
        let set = TriggerSet::new(&all).unwrap();
        let patterns: Vec<&str> = all
            .iter()
            .flat_map(|d| d.triggers.iter().map(String::as_str))
            .collect();
        let owner: Vec<(usize, usize)> = all
            .iter()
            .enumerate()
            .flat_map(|(i, d)| (0..d.triggers.len()).map(move |t| (i, t)))
            .collect();
        // The oracle compiles every trigger into one set, past the regex crate's default 10 MB
        // limit (about 10.5 MB today); the trigger set itself compiles only what a text needs.
        let full = RegexSetBuilder::new(&patterns)
            .size_limit(64 << 20)
            .build()
            .unwrap();
        let mut hits = 0;
        for text in &corpus_texts() {
            // What the set says, less the matches whose edges fall inside a Unicode word.
            let mut expected: Vec<usize> = full
                .matches(text)
                .iter()
                .map(|i| owner[i])
                .filter(|&(d, t)| all[d].trigger(t).unwrap().is_match(text))
                .map(|(d, _)| d)
                .collect();
            expected.dedup();
            hits += usize::from(!expected.is_empty());
            let got: Vec<usize> = set.hits(text).unwrap().iter().map(|h| h.detector).collect();
            assert_eq!(got, expected, "{text}");
        }
        assert!(
            hits > 100,
            "too few hits ({hits}) for the comparison to mean much"
        );
    }

    /// A text of a megabyte hits the same detectors, with the same first trigger and match, as
    /// running each trigger in order.
    #[test]
    fn large_texts_hit_what_small_ones_hit() {
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        let mut all = detectors.select(Event::Stop, &[]).unwrap();
        all.extend(detectors.select(Event::PreTool, &[]).unwrap());
        let set = TriggerSet::new(&all).unwrap();
        let texts = corpus_texts();
        let mut big = String::new();
        let filler = "A plain sentence that no trigger cares about, repeated. ";
        while big.len() < 1 << 20 {
            big.push_str(filler);
        }
        let hitting = texts.iter().filter(|t| !set.hits(t).unwrap().is_empty());
        let missing = texts.iter().filter(|t| set.hits(t).unwrap().is_empty());
        for text in hitting.step_by(60).chain(missing.take(1)) {
            let large = format!("{big}{text}");
            let expected: Vec<TriggerHit> = all
                .iter()
                .enumerate()
                .filter_map(|(d, detector)| {
                    (0..detector.triggers.len()).find_map(|t| {
                        detector
                            .trigger(t)
                            .unwrap()
                            .find(&large)
                            .map(|m| TriggerHit {
                                detector: d,
                                trigger: t,
                                start: m.start(),
                                end: m.end(),
                            })
                    })
                })
                .collect();
            assert_eq!(set.hits(&large).unwrap(), expected, "{text}");
            // Prefixed text hits what the text alone hits, except triggers anchored at the
            // start of the text (the pre-tool ones read a command from its first word).
            let unanchored = |h: &&TriggerHit| {
                let pattern = all[h.detector].triggers[h.trigger].as_str();
                let hir = regex_syntax::Parser::new().parse(pattern).unwrap();
                !hir.properties()
                    .look_set_prefix_any()
                    .contains(regex_syntax::hir::Look::Start)
            };
            let shifted: Vec<(usize, usize)> = set
                .hits(text)
                .unwrap()
                .iter()
                .filter(unanchored)
                .map(|h| (h.detector, h.trigger))
                .collect();
            let large_hits: Vec<(usize, usize)> = expected
                .iter()
                .filter(unanchored)
                .map(|h| (h.detector, h.trigger))
                .collect();
            assert_eq!(shifted, large_hits, "{text}");
        }
    }

    /// The index build.rs embeds says what an index of the same gates built now says, on texts
    /// in several scripts with and without trigger words.
    #[test]
    fn the_embedded_trigger_index_agrees_with_one_built_now() {
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        let all: Vec<&Detector> = detectors.list.iter().collect();
        let gates: Vec<&[Gate]> = all
            .iter()
            .map(|d| d.gates.as_ref().unwrap().as_slice())
            .collect();
        let embedded = TriggerGates::new(&gates);
        assert!(matches!(embedded, TriggerGates::Builtin(_)));
        let flat: Vec<Vec<&[Literal]>> = gates
            .iter()
            .flat_map(|triggers| triggers.iter().map(Gate::clauses))
            .collect();
        let built = TriggerGates::Built(Box::new(GateIndex::new(&flat)));
        let texts = [
            "",
            "I renamed `cfg` to `config`; nothing else moved.",
            "Should I commit and push this? Tests were not run.",
            "Let's continue in a new session, the context is getting long.",
            "Fixed the crash by adding a null check. Out of scope for now: the rest.",
            "要我提交并推送吗？剩下的下次再做。",
            "コミットしてプッシュしますか？残りは次回に回します。",
            "Исправил ошибку, деплой на прод? Остальное потом.",
            "¿Hago commit y push? Corregí el fallo añadiendo una comprobación.",
            "Voulez-vous que je commite ? J'ai corrigé le bug.",
        ];
        for text in texts {
            let expected = built.candidates(text);
            assert_eq!(embedded.candidates(text), expected, "{text}");
        }
        // Not a comparison of two empty answers: a commit proposal makes some triggers
        // candidates and leaves others out.
        let hit = embedded.candidates(texts[2]);
        assert!(hit.contains(&true) && hit.contains(&false), "{hit:?}");
    }

    /// The parsed patterns build.rs embeds decode to what parsing (and cutting) each built-in
    /// pattern gives now: a search is compiled from exactly what it would get without them.
    #[test]
    fn every_embedded_parse_decodes_to_the_pattern_parsed_now() {
        assert!(BUILTIN_GATES.len() > 100, "{}", BUILTIN_GATES.len());
        for (pattern, ..) in BUILTIN_GATES {
            let hir = parse(pattern).unwrap();
            assert_eq!(
                parsed_builtin(pattern, false).as_ref(),
                Some(&hir),
                "{pattern}"
            );
            let cut = cut_to(hir, &[]);
            assert_eq!(parsed_builtin(pattern, true), Some(cut), "{pattern}");
        }
    }

    /// A user's trigger has no slot in the embedded index: the set builds its own.
    #[test]
    fn a_user_trigger_makes_the_set_build_its_own_index() {
        let config = config_with(
            "[[detectors]]\nname = \"zebra\"\ntriggers = ['zebra']\nfields = ['a']\n\
             block_when = 'a'\nprompt = 'p'\nfeedback = 'f'\n",
        )
        .unwrap();
        let detectors = Detectors::load(&config.detectors).unwrap();
        let all: Vec<&Detector> = detectors.list.iter().collect();
        let set = TriggerSet::new(&all).unwrap();
        assert!(matches!(set.gates, TriggerGates::Built(_)));
        let zebra = all.iter().position(|d| d.name == "zebra").unwrap();
        let hits = set.hits("a zebra crossed").unwrap();
        assert!(hits.iter().any(|h| h.detector == zebra), "{hits:?}");
        let only_builtins: Vec<&Detector> =
            all.iter().copied().filter(|d| d.name != "zebra").collect();
        let set = TriggerSet::new(&only_builtins).unwrap();
        assert!(matches!(set.gates, TriggerGates::Builtin(_)));
    }

    /// `gate_of` finds a built-in gate by binary search: the table must be sorted, every
    /// built-in trigger must be in it, with the word edges its pattern has.
    #[test]
    fn builtin_gates_are_sorted_and_found() {
        assert!(BUILTIN_GATES.windows(2).all(|w| w[0].0 < w[1].0));
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        for detector in &detectors.list {
            for pattern in &detector.triggers {
                assert!(
                    matches!(gate_of(pattern), Ok(Gate::Builtin(_, Some(_)))),
                    "{pattern} is not in BUILTIN_GATES as a trigger"
                );
                assert_eq!(
                    builtin(pattern).map(|facts| facts.2),
                    crate::gate::word_edges(pattern).ok(),
                    "stale word edges for {pattern}"
                );
            }
        }
    }

    /// Each trigger's gate is sound on its own: wherever the trigger matches, one of its gate
    /// literals occurs. And every built-in trigger has a gate (or Layer 1 would compile it on
    /// every call).
    #[test]
    fn every_builtin_trigger_has_a_sound_gate() {
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        let texts = corpus_texts();
        let mut checked = 0;
        for detector in &detectors.list {
            let gates = detector.gates.as_ref().unwrap();
            for (index, pattern) in detector.triggers.iter().enumerate() {
                let gate = gates[index].clauses();
                assert!(!gate.is_empty(), "{}: no gate for {pattern}", detector.name);
                let computed: Vec<Vec<Literal>> = crate::gate::needles(pattern)
                    .unwrap()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|clause| clause.into_iter().map(Literal::from).collect())
                    .collect();
                assert_eq!(gate, computed, "the build-time gate is stale for {pattern}");
                let clauses: Vec<LiteralIndex> =
                    gate.iter().map(|c| LiteralIndex::new(c.to_vec())).collect();
                let regex = detector.trigger(index).unwrap();
                for text in &texts {
                    if regex.is_match(text) {
                        checked += 1;
                        // Searched as Layer 1 searches: case-folded.
                        let folded = crate::gate::fold_non_ascii(text);
                        let haystack = folded.as_deref().unwrap_or(text);
                        assert!(
                            clauses.iter().all(|c| c.any_match(haystack.as_bytes())),
                            "{pattern} matches {text:?} but its gate does not"
                        );
                    }
                }
            }
        }
        assert!(checked > 100, "only {checked} matches checked");
    }

    #[test]
    fn a_trigger_is_compiled_only_when_its_gate_occurs() {
        let detectors = Detectors::load(&Config::defaults().detectors).unwrap();
        let stop = detectors.select(Event::Stop, &[]).unwrap();
        let set = TriggerSet::new(&stop).unwrap();
        let innocent = "I renamed `cfg` to `config` in src/parser.rs; nothing else moved.";
        assert!(set.hits(innocent).unwrap().is_empty());
        let compiled: usize = stop
            .iter()
            .map(|d| {
                d.trigger_regexes
                    .iter()
                    .filter(|r| r.get().is_some())
                    .count()
            })
            .sum();
        assert_eq!(
            compiled, 0,
            "a text without gate literals compiled triggers"
        );
    }

    #[test]
    fn trigger_set_reports_detectors_once() {
        let config = config_with(
            "[[detectors]]\nname = \"todo\"\ntriggers = ['TODO', 'FIXME']\nfields = ['a']\n\
             block_when = 'a'\nprompt = 'p'\nfeedback = 'f'\n",
        )
        .unwrap();
        let detectors = Detectors::load(&config.detectors).unwrap();
        let only = detectors
            .select(Event::Stop, &["todo".to_string()])
            .unwrap();
        let set = TriggerSet::new(&only).unwrap();
        let hits = set.hits("TODO and FIXME").unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(
            (hits[0].detector, hits[0].trigger, hits[0].start),
            (0, 0, 0)
        );
        assert!(set.hits("nothing").unwrap().is_empty());
    }
}
