//! A multi-literal finder that costs next to nothing to build.
//!
//! A hook process lives for one short text, so an automaton that takes milliseconds to build
//! (Aho-Corasick, a regex set) costs more than the search it serves. This index is a few
//! bitsets keyed by a literal's first bytes: building it is a sort, searching it is a table
//! lookup per byte, with an exact check only where a literal may start. Literals are matched
//! ASCII-case-insensitively; a literal may require an ASCII word boundary on either side.
//!
//! An index can also be built by build.rs (which includes this file) and embedded as static
//! tables: the built-in triggers' index is then searched where it lies in the binary, with no
//! building and no allocation at all. Hence the `Cow` storage and the crate-visible fields.

use std::borrow::Cow;

use crate::gate::Needle;

/// One literal to find.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Literal {
    /// ASCII-lowercased (the search ignores ASCII case).
    pub bytes: Cow<'static, [u8]>,
    /// An ASCII word boundary must lie right before it.
    pub word_start: bool,
    /// An ASCII word boundary must lie right after it.
    pub word_end: bool,
}

impl Literal {
    /// A literal without boundary conditions; `bytes` is lowercased here.
    pub fn plain(bytes: &[u8]) -> Literal {
        Literal {
            bytes: Cow::Owned(bytes.to_ascii_lowercase()),
            word_start: false,
            word_end: false,
        }
    }
}

impl From<Needle> for Literal {
    fn from(needle: Needle) -> Literal {
        Literal {
            bytes: Cow::Owned(needle.bytes),
            word_start: needle.word_start,
            word_end: needle.word_end,
        }
    }
}

/// Bits indexed by a 16-bit key: `BITSET_WORDS` words.
#[derive(Clone)]
pub(crate) struct BitSet(pub(crate) Cow<'static, [u64]>);

pub(crate) const BITSET_WORDS: usize = 1024;

impl BitSet {
    fn new() -> BitSet {
        BitSet(Cow::Owned(vec![0; BITSET_WORDS]))
    }

    fn insert(&mut self, key: u16) {
        self.0.to_mut()[usize::from(key >> 6)] |= 1 << (key & 63);
    }

    #[inline]
    fn contains(&self, key: u16) -> bool {
        self.0[usize::from(key >> 6)] & (1 << (key & 63)) != 0
    }
}

/// ASCII lowercase of every byte, as a table.
static LOWER: [u8; 256] = {
    let mut table = [0; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = (i as u8).to_ascii_lowercase();
        i += 1;
    }
    table
};

#[inline]
fn pair_key(a: u8, b: u8) -> u16 {
    u16::from_le_bytes([LOWER[usize::from(a)], LOWER[usize::from(b)]])
}

/// Three bytes hashed to 16 bits (literals of three bytes or more are keyed by their first
/// three; a collision only costs an exact check). `| 0x20` folds ASCII case (and a few
/// punctuation pairs, which costs only checks), so the key is computed from one 32-bit load.
#[inline]
fn triple_key(a: u8, b: u8, c: u8) -> u16 {
    hash_triple(u32::from_le_bytes([a, b, c, 0]))
}

#[inline]
fn hash_triple(packed: u32) -> u16 {
    ((packed & 0x00FF_FFFF | 0x0020_2020).wrapping_mul(0x9E37_79B1) >> 16) as u16
}

/// Two bytes, ASCII case folded the same way.
#[inline]
fn folded_pair(a: u8, b: u8) -> u16 {
    u16::from_le_bytes([a, b]) | 0x2020
}

#[inline]
fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// Whether `c` continues a word for the boundary re-check of a match: ASCII letters, digits
/// and `_`, and the letters (and combining accents) of scripts written with spaces between
/// words: Latin with its accents, Greek, Cyrillic, Armenian, Hebrew, Arabic, Indic, Vietnamese.
/// Not Chinese, Japanese, Korean or Thai: those attach particles straight to a Latin word
/// ("PRを作成", "PR를"), so a letter of theirs next to `PR` still leaves `PR` a word.
pub fn continues_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    let code = u32::from(c);
    let spaced =
        matches!(code, 0x00C0..=0x0DFF | 0x1E00..=0x1FFF | 0x2C60..=0x2C7F | 0xA720..=0xA7FF);
    let combining = matches!(code, 0x0300..=0x036F);
    combining || (spaced && c.is_alphanumeric())
}

/// Whether byte offset `at` of the UTF-8 `text` is a word boundary: the characters on either
/// side disagree on [`continues_word`] (the text's ends count as non-word).
pub fn is_word_boundary(text: &[u8], at: usize) -> bool {
    let before = text
        .get(..at)
        .and_then(last_char)
        .is_some_and(continues_word);
    let after = text
        .get(at..)
        .and_then(first_char)
        .is_some_and(continues_word);
    before != after
}

fn first_char(bytes: &[u8]) -> Option<char> {
    let len = bytes.first().map(|&b| utf8_len(b))?;
    std::str::from_utf8(bytes.get(..len)?).ok()?.chars().next()
}

fn last_char(bytes: &[u8]) -> Option<char> {
    let start = (bytes.len().saturating_sub(4)..bytes.len())
        .rev()
        .find(|&i| bytes[i] & 0xC0 != 0x80)?;
    std::str::from_utf8(&bytes[start..]).ok()?.chars().next()
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

/// The literals, searchable together. Cloning an embedded index copies no table.
#[derive(Clone)]
pub struct LiteralIndex {
    pub(crate) needles: Cow<'static, [Literal]>,
    /// First bytes of one-byte literals (256 entries).
    pub(crate) singles: Cow<'static, [bool]>,
    /// Whether there are one- and two-byte literals at all (most indexes have neither).
    pub(crate) has_singles: bool,
    pub(crate) has_pairs: bool,
    /// First two bytes of two-byte literals.
    pub(crate) pairs: BitSet,
    /// Hashed first three bytes of longer literals.
    pub(crate) triples: BitSet,
    /// The byte pairs at offsets 0 and 1 of the longer literals, case-folded by `| 0x2020`:
    /// sampled at every other byte, one of them lies under any occurrence (see
    /// [`LiteralIndex::next_possible`]).
    pub(crate) triple_pairs: BitSet,
    /// Tagged key << 32 | literal index, sorted: the one- and two-byte literals to check where
    /// a key is present. The tag (key bits 16..) tells the key kinds apart: 1 single, 2 pair.
    pub(crate) candidates: Cow<'static, [u64]>,
    /// The longer literals grouped by the low bits of their key: bucket `b` is
    /// `triple_candidates[triple_buckets[b]..triple_buckets[b + 1]]`. A table lookup instead
    /// of a binary search, since common prefixes (`con`, `tok`, `pas`) reach this check at
    /// several percent of a text's bytes.
    pub(crate) triple_buckets: Cow<'static, [u32]>,
    pub(crate) triple_candidates: Cow<'static, [TripleCandidate]>,
}

/// The literals of several gates in one index (the detectors' triggers and cues): a gate is up
/// to 8 clauses, each a set of literals, and a pattern may match a text only where a literal
/// of each of its clauses occurs.
pub struct GateIndex {
    pub(crate) index: LiteralIndex,
    /// For each literal: the pattern and the bit of its clause. A `u32` index: tens of
    /// thousands of entries are built at every Stop, and each page of them is a page fault.
    pub(crate) gated: Cow<'static, [(u32, u8)]>,
    /// For each pattern: the bits of all its clauses (0: no gate, run it on every text).
    pub(crate) clauses: Cow<'static, [u8]>,
}

impl GateIndex {
    pub fn new(gates: &[Vec<&[Literal]>]) -> GateIndex {
        let literal_count = gates.iter().flatten().map(|c| c.len()).sum();
        let mut needles = Vec::with_capacity(literal_count);
        let mut gated = Vec::with_capacity(literal_count);
        let mut clauses = Vec::with_capacity(gates.len());
        for (pattern, gate) in gates.iter().enumerate() {
            let mut all = 0u8;
            for (c, clause) in gate.iter().enumerate() {
                let bit = 1u8 << c;
                all |= bit;
                needles.extend(clause.iter().cloned());
                gated.extend(clause.iter().map(|_| (pattern as u32, bit)));
            }
            clauses.push(all);
        }
        GateIndex {
            index: LiteralIndex::new(needles),
            gated: Cow::Owned(gated),
            clauses: Cow::Owned(clauses),
        }
    }

    /// Which patterns may match `text`: those whose gate clauses all occur (or without gate).
    pub fn candidates(&self, text: &str) -> Vec<bool> {
        let mut seen = vec![0u8; self.clauses.len()];
        // Gate literals are case-folded (`gate::fold_non_ascii`); so is the text searched.
        let folded = crate::gate::fold_non_ascii(text);
        let text = folded.as_deref().unwrap_or(text);
        for (needle, _) in self.index.find_iter(text.as_bytes()) {
            let (pattern, bit) = self.gated[needle];
            let pattern = pattern as usize;
            seen[pattern] |= bit;
        }
        seen.iter()
            .zip(self.clauses.iter())
            .map(|(s, c)| s == c)
            .collect()
    }
}

/// A literal of three bytes or more, with what rules it out before the exact comparison.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TripleCandidate {
    pub(crate) key: u16,
    /// The lowercased fourth byte, if the literal has one: most literals sharing a prefix
    /// (`contraseña`, `config:get`, `convertto-…`) differ there.
    pub(crate) fourth: Option<u8>,
    pub(crate) index: u32,
}

/// Buckets of the triple candidates (a power of two): a few KiB, next to free to fill.
const TRIPLE_BUCKETS: usize = 1024;

impl LiteralIndex {
    /// Empty literals are ignored (they would match everywhere; callers treat a gate with an
    /// empty literal as no gate).
    pub fn new(needles: Vec<Literal>) -> LiteralIndex {
        let mut singles = [false; 256];
        let mut pairs = BitSet::new();
        let mut triples = BitSet::new();
        let mut triple_pairs = BitSet::new();
        let mut candidates = Vec::with_capacity(needles.len());
        for (index, needle) in needles.iter().enumerate() {
            let tagged = match needle.bytes[..] {
                [] => continue,
                [a] => {
                    let key = LOWER[usize::from(a)];
                    singles[usize::from(key)] = true;
                    1 << 16 | u64::from(key)
                }
                [a, b] => {
                    let key = pair_key(a, b);
                    pairs.insert(key);
                    2 << 16 | u64::from(key)
                }
                [a, b, c, ..] => {
                    let key = triple_key(a, b, c);
                    triples.insert(key);
                    triple_pairs.insert(folded_pair(a, b));
                    triple_pairs.insert(folded_pair(b, c));
                    3 << 16 | u64::from(key)
                }
            };
            candidates.push(tagged << 32 | index as u64);
        }
        let (triples_tagged, mut candidates): (Vec<u64>, Vec<u64>) =
            candidates.into_iter().partition(|&c| c >> 48 == 3);
        radix_sort_by_key(&mut candidates);
        let (triple_buckets, triple_candidates) = bucket_triples(&needles, &triples_tagged);
        LiteralIndex {
            has_singles: needles.iter().any(|n| n.bytes.len() == 1),
            has_pairs: needles.iter().any(|n| n.bytes.len() == 2),
            needles: Cow::Owned(needles),
            singles: Cow::Owned(singles.to_vec()),
            pairs,
            triples,
            triple_pairs,
            candidates: Cow::Owned(candidates),
            triple_buckets: Cow::Owned(triple_buckets.into_vec()),
            triple_candidates: Cow::Owned(triple_candidates),
        }
    }

    #[cfg(test)]
    pub(crate) fn literals(&self) -> &[Literal] {
        &self.needles
    }

    /// Every occurrence of every literal as (literal index, start), in order of start
    /// (overlapping occurrences included).
    pub fn find_iter<'a>(&'a self, text: &'a [u8]) -> Matches<'a> {
        Matches {
            index: self,
            text,
            next_start: 0,
            found: Vec::new(),
            found_taken: 0,
            found_at: 0,
        }
    }

    /// Whether any literal occurs in `text`.
    #[cfg(test)]
    pub(crate) fn any_match(&self, text: &[u8]) -> bool {
        self.find_iter(text).next().is_some()
    }

    /// The first position from `from` on where a literal may start (its first bytes are in
    /// the tables), None past the end. This loop is the whole cost on a text without literals.
    #[inline]
    fn next_possible(&self, text: &[u8], from: usize) -> Option<usize> {
        if self.has_singles || self.has_pairs {
            return (from..text.len()).find(|&at| self.possible_at(text, at));
        }
        // Three-byte keys only (the redaction keywords). An occurrence at `at` covers the
        // pairs at `at` and `at + 1`, so testing the pair at every other byte misses none:
        // where the sampled pair is one of a literal's first two pairs, the literal may start
        // there or one byte before, and the three-byte hash decides. Half the bytes cost a
        // bit test, and few of them a hash: the scan is the whole cost of secret-free text.
        let may_start = |at: usize| {
            at >= from
                && text
                    .get(at + 2)
                    .is_some_and(|&c| self.triples.contains(triple_key(text[at], text[at + 1], c)))
        };
        let mut sample = from;
        while sample + 1 < text.len() {
            if self
                .triple_pairs
                .contains(folded_pair(text[sample], text[sample + 1]))
            {
                if sample > 0 && may_start(sample - 1) {
                    return Some(sample - 1);
                }
                if may_start(sample) {
                    return Some(sample);
                }
            }
            sample += 2;
        }
        None
    }

    fn possible_at(&self, text: &[u8], at: usize) -> bool {
        let a = text[at];
        if self.has_singles && self.singles[usize::from(LOWER[usize::from(a)])] {
            return true;
        }
        let Some(&b) = text.get(at + 1) else {
            return false;
        };
        if self.has_pairs && self.pairs.contains(pair_key(a, b)) {
            return true;
        }
        text.get(at + 2)
            .is_some_and(|&c| self.triples.contains(triple_key(a, b, c)))
    }

    /// Pushes the literals that occur at `at` onto `found`.
    #[inline]
    fn collect_at(&self, text: &[u8], at: usize, found: &mut Vec<usize>) {
        let a = text[at];
        let lower = LOWER[usize::from(a)];
        if self.has_singles && self.singles[usize::from(lower)] {
            self.check(text, at, 1 << 16 | u32::from(lower), found);
        }
        if let Some(&b) = text.get(at + 1) {
            let pair = pair_key(a, b);
            if self.has_pairs && self.pairs.contains(pair) {
                self.check(text, at, 2 << 16 | u32::from(pair), found);
            }
            if let Some(&c) = text.get(at + 2) {
                let triple = triple_key(a, b, c);
                if self.triples.contains(triple) {
                    self.check_triple(text, at, triple, found);
                }
            }
        }
    }

    #[cold]
    fn check(&self, text: &[u8], at: usize, key: u32, found: &mut Vec<usize>) {
        let key = u64::from(key) << 32;
        let first = self.candidates.partition_point(|&c| c < key);
        for &candidate in self.candidates[first..]
            .iter()
            .take_while(|&&c| c >> 32 == key >> 32)
        {
            let index = (candidate & 0xFFFF_FFFF) as usize;
            if self.matches_at(&self.needles[index], text, at) {
                found.push(index);
            }
        }
    }

    /// Pushes the literals of three bytes or more whose hashed first bytes are `key` and that
    /// occur at `at`.
    #[inline]
    fn check_triple(&self, text: &[u8], at: usize, key: u16, found: &mut Vec<usize>) {
        let bucket = usize::from(key) & (TRIPLE_BUCKETS - 1);
        let range = self.triple_buckets[bucket] as usize..self.triple_buckets[bucket + 1] as usize;
        let fourth = text.get(at + 3).map(|&b| LOWER[usize::from(b)]);
        for candidate in &self.triple_candidates[range] {
            let index = candidate.index as usize;
            if candidate.key == key
                && (candidate.fourth.is_none() || candidate.fourth == fourth)
                && self.matches_at(&self.needles[index], text, at)
            {
                found.push(index);
            }
        }
    }

    fn matches_at(&self, needle: &Literal, text: &[u8], at: usize) -> bool {
        let end = at + needle.bytes.len();
        let Some(window) = text.get(at..end) else {
            return false;
        };
        if !window
            .iter()
            .zip(needle.bytes.iter())
            .all(|(&t, &n)| LOWER[usize::from(t)] == n)
        {
            return false;
        }
        let boundary = |before: Option<&u8>, after: Option<&u8>| {
            before.is_some_and(|&b| is_word(b)) != after.is_some_and(|&b| is_word(b))
        };
        (!needle.word_start || boundary(at.checked_sub(1).and_then(|i| text.get(i)), text.get(at)))
            && (!needle.word_end
                || boundary(end.checked_sub(1).and_then(|i| text.get(i)), text.get(end)))
    }
}

/// Groups tagged triple candidates (tag 3 << 48 | key << 32 | index) by bucket, a counting
/// sort: the bucket offsets and the candidates, in literal order within a bucket (so matches
/// at one position come out in literal order, as before).
fn bucket_triples(needles: &[Literal], tagged: &[u64]) -> (Box<[u32]>, Vec<TripleCandidate>) {
    let key_of = |c: u64| (c >> 32) as u16;
    let mut starts = vec![0u32; TRIPLE_BUCKETS + 1];
    for &c in tagged {
        starts[usize::from(key_of(c)) % TRIPLE_BUCKETS + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut next = starts.clone();
    let mut grouped = vec![TripleCandidate::default(); tagged.len()];
    for &c in tagged {
        let slot = &mut next[usize::from(key_of(c)) % TRIPLE_BUCKETS];
        let index = (c & 0xFFFF_FFFF) as u32;
        grouped[*slot as usize] = TripleCandidate {
            key: key_of(c),
            fourth: needles[index as usize].bytes.get(3).copied(),
            index,
        };
        *slot += 1;
    }
    (starts.into_boxed_slice(), grouped)
}

/// Sorts candidates by their tagged key (bits 32..50) in linear time: a comparison sort of
/// the few thousand gate literals of the built-in detectors was most of a hook's Layer 1 cost.
fn radix_sort_by_key(candidates: &mut Vec<u64>) {
    let mut buffer = vec![0u64; candidates.len()];
    for shift in [32, 40, 48] {
        let mut counts = [0usize; 257];
        for &c in candidates.iter() {
            counts[((c >> shift) & 0xFF) as usize + 1] += 1;
        }
        for i in 1..257 {
            counts[i] += counts[i - 1];
        }
        for &c in candidates.iter() {
            let bucket = &mut counts[((c >> shift) & 0xFF) as usize];
            buffer[*bucket] = c;
            *bucket += 1;
        }
        std::mem::swap(candidates, &mut buffer);
    }
}

/// The iterator of [`LiteralIndex::find_iter`].
pub struct Matches<'a> {
    index: &'a LiteralIndex,
    text: &'a [u8],
    /// The next position to look at.
    next_start: usize,
    /// The literals found at `found_at`, and how many were handed out.
    found: Vec<usize>,
    found_taken: usize,
    found_at: usize,
}

impl Iterator for Matches<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        loop {
            if let Some(&literal) = self.found.get(self.found_taken) {
                self.found_taken += 1;
                return Some((literal, self.found_at));
            }
            let at = self.index.next_possible(self.text, self.next_start)?;
            self.next_start = at + 1;
            self.found.clear();
            self.found_taken = 0;
            self.found_at = at;
            self.index.collect_at(self.text, at, &mut self.found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needle(text: &str, word_start: bool, word_end: bool) -> Literal {
        Literal {
            word_start,
            word_end,
            ..Literal::plain(text.as_bytes())
        }
    }

    fn naive(needles: &[Literal], text: &[u8]) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        for at in 0..text.len() {
            for (index, n) in needles.iter().enumerate() {
                let end = at + n.bytes.len();
                if n.bytes.is_empty() || end > text.len() {
                    continue;
                }
                if text[at..end].to_ascii_lowercase() != *n.bytes {
                    continue;
                }
                let word =
                    |i: Option<usize>| i.and_then(|i| text.get(i)).is_some_and(|&b| is_word(b));
                let start_ok = word(at.checked_sub(1)) != word(Some(at));
                let end_ok = word(end.checked_sub(1)) != word(Some(end));
                if (!n.word_start || start_ok) && (!n.word_end || end_ok) {
                    found.push((index, at));
                }
            }
        }
        found.sort();
        found
    }

    #[test]
    fn finds_exactly_what_a_naive_search_finds() {
        let needles = vec![
            needle("pr", true, true),
            needle("commit", true, false),
            needle("ship", true, true),
            needle("x", false, false),
            needle("コミット", false, false),
            needle("api_key", false, false),
            needle("key", false, false),
            needle("ſ", false, false),
        ];
        let index = LiteralIndex::new(needles.clone());
        let texts = [
            "Open a PR? The prose about pr-42 and PR.",
            "relationship shipping ship; Ship it. COMMITTED recommit",
            "xXx コミットしますか api_KEY=1 monkey ſhip",
            "",
            "p",
            "pr",
            "_pr_ pr_ (pr)",
        ];
        for text in texts {
            let mut found: Vec<(usize, usize)> = index.find_iter(text.as_bytes()).collect();
            found.sort();
            assert_eq!(found, naive(&needles, text.as_bytes()), "{text}");
            assert_eq!(index.any_match(text.as_bytes()), !found.is_empty());
        }
    }

    /// An index of literals of three bytes or more takes the sampled scan; it must still find
    /// every occurrence, at either parity, at the text's ends and overlapping.
    #[test]
    fn the_sampled_scan_of_long_literals_finds_what_a_naive_search_finds() {
        let needles = vec![
            needle("key", false, false),
            needle("token", true, false),
            needle("pass", false, true),
            needle("://", false, false),
            needle("passwd", false, false),
            needle("鍵です", false, false),
        ];
        let index = LiteralIndex::new(needles.clone());
        assert!(!index.has_singles && !index.has_pairs);
        let alphabet = [
            "k", "e", "y", "t", "o", "K", "E", "n", "p", "a", "s", ":", "/", "鍵", "です", " ",
            "w", "d",
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for length in 0..40 {
            for _ in 0..50 {
                let text: String = (0..length)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        alphabet[(state % alphabet.len() as u64) as usize]
                    })
                    .collect();
                let mut found: Vec<(usize, usize)> = index.find_iter(text.as_bytes()).collect();
                found.sort();
                assert_eq!(found, naive(&needles, text.as_bytes()), "{text:?}");
            }
        }
    }

    #[test]
    fn radix_sort_sorts_by_key() {
        let mut keys: Vec<u64> = (0..2000u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 14) & 0x3_FFFF_0000_0000 | i)
            .collect();
        radix_sort_by_key(&mut keys);
        assert!(keys.windows(2).all(|w| w[0] >> 32 <= w[1] >> 32));
        assert_eq!(keys.len(), 2000);
    }

    #[test]
    fn unicode_letters_continue_words_but_cjk_and_thai_do_not() {
        let at = |text: &str, needle: &str, end: bool| {
            let start = text.find(needle).unwrap();
            is_word_boundary(
                text.as_bytes(),
                if end { start + needle.len() } else { start },
            )
        };
        assert!(!at("Próximos pasos", "Pr", true));
        assert!(!at("Método", "todo", false));
        assert!(!at("Me\u{301}todo", "todo", false));
        assert!(!at("Привет", "ривет", false));
        assert!(!at("việc", "c", false));
        assert!(at("PRを作成します", "PR", true));
        assert!(at("PR를 만들까요", "PR", true));
        assert!(at("提交PR吗", "PR", false));
        assert!(at("เปิดPRไหม", "PR", true));
        assert!(at("open a PR.", "PR", true));
        assert!(at("PR", "PR", false));
        assert!(at("«PR»", "PR", true));
    }

    #[test]
    fn word_boundaries_are_checked() {
        let index = LiteralIndex::new(vec![needle("pr", true, true)]);
        assert!(index.any_match(b"open a PR now"));
        assert!(index.any_match(b"PR"));
        assert!(index.any_match(b"(pr)"));
        assert!(!index.any_match(b"the prose"));
        assert!(!index.any_match(b"sprint"));
    }
}
