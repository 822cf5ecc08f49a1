//! Secret redaction: replaces high-confidence secrets with `[REDACTED:<kind>]` before text is
//! sent to an LLM judge or written to the decision log.
//!
//! The formats are data (`assets/redact/rules.toml`, turned into Rust at build time). Speed
//! comes from a keyword prefilter: one pass of a literal index (`crate::literals`, next to free
//! to build, which matters to a hook that redacts one short text) finds the rules' keywords, and a rule's regex only runs on the
//! lines where one of its keywords occurs, so secret-free text costs one automaton pass whatever
//! the number of rules. Text is processed line by line, which lets [`Redactor::redact_stream`]
//! work in bounded memory; a private key block spanning lines is followed across lines.

mod argv;
mod assign;
mod escaped;
mod rules;
mod spec;
mod statement;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::sync::OnceLock;

use std::ops::Range;

use regex_automata::{Anchored, Input};

use crate::error::Result;
use crate::literals::{Literal, LiteralIndex};
use assign::{Found, Pending};
use rules::{Judgement, Prefilter, Recognizer, Rule, RuleTable};

/// Redactions per kind (the rule id), e.g. `{"github-pat": 2}`.
pub type RedactionCounts = BTreeMap<String, u64>;

/// The outcome of [`Redactor::redact`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted {
    pub text: String,
    pub counts: RedactionCounts,
}

/// One replacement of [`Redactor::redact_mapped`]: the `original` bytes became the marker at
/// `redacted`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub original: Range<usize>,
    pub redacted: Range<usize>,
    pub kind: String,
}

/// A redacted text with its replacements, to cut windows from it safely.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedactedText {
    pub text: String,
    pub counts: RedactionCounts,
    replacements: Vec<Replacement>,
}

impl RedactedText {
    /// The offset in the redacted text of an offset of the original. An offset inside a
    /// replaced secret maps to its marker's start (`Side::Start`) or end (`Side::End`).
    pub fn map(&self, original: usize, side: Side) -> usize {
        let mut shift: isize = 0;
        for replacement in &self.replacements {
            if original < replacement.original.start {
                break;
            }
            if original < replacement.original.end {
                return match side {
                    Side::Start => replacement.redacted.start,
                    Side::End => replacement.redacted.end,
                };
            }
            shift += replacement.redacted.len() as isize - replacement.original.len() as isize;
        }
        original.saturating_add_signed(shift).min(self.text.len())
    }

    /// `range` of the redacted text widened so that it cuts no marker in two and falls on
    /// character boundaries.
    pub fn widen(&self, range: Range<usize>) -> Range<usize> {
        let (mut start, mut end) = (
            range.start.min(self.text.len()),
            range.end.min(self.text.len()),
        );
        for replacement in &self.replacements {
            let marker = &replacement.redacted;
            if marker.start < start && start < marker.end {
                start = marker.start;
            }
            if marker.start < end && end < marker.end {
                end = marker.end;
            }
        }
        self.text.floor_char_boundary(start)..self.text.ceil_char_boundary(end)
    }

    /// Redactions per kind among the markers inside `ranges` of the redacted text.
    pub fn counts_within(&self, ranges: &[Range<usize>]) -> RedactionCounts {
        let mut counts = RedactionCounts::new();
        for replacement in &self.replacements {
            let marker = &replacement.redacted;
            if ranges
                .iter()
                .any(|range| range.start <= marker.start && marker.end <= range.end)
            {
                *counts.entry(replacement.kind.clone()).or_default() += 1;
            }
        }
        counts
    }

    /// The last `max_bytes` of the redacted text (a little more when the cut would fall inside
    /// a marker), with the counts of the markers it holds.
    pub fn tail(&self, max_bytes: usize) -> Redacted {
        let cut = self.widen(self.text.len().saturating_sub(max_bytes)..self.text.len());
        Redacted {
            text: self.text[cut.clone()].to_string(),
            counts: self.counts_within(&[cut]),
        }
    }
}

/// The last `max_bytes` of an already redacted text (a stored log text), starting on a
/// character boundary and never inside a `[REDACTED:<kind>]` marker.
pub fn tail_of_redacted(text: &str, max_bytes: usize) -> &str {
    let mut start = text.ceil_char_boundary(text.len().saturating_sub(max_bytes));
    if let Some(open) = text[..start].rfind('[')
        && text[open..].starts_with("[REDACTED:")
        && !text[open..start].contains(']')
    {
        start = open;
    }
    &text[start..]
}

/// How far before a cut a secret may start and still reach across it: more than a PEM block
/// of a 4096-bit key.
const CUT_REACH: usize = 16 * 1024;

/// The last `max_bytes` of `text`, unredacted, with the start moved past any secret (or any
/// assignment line of one) the plain cut would fall inside: a text cut to a scan bound keeps
/// no tail of a secret that only its whole would let the redactor recognise. Only the lines
/// around the cut are redacted, so this costs a few KiB of scanning whatever the text's size.
pub fn tail_outside_secrets(text: &str, max_bytes: usize) -> &str {
    let mut start = text.ceil_char_boundary(text.len().saturating_sub(max_bytes));
    if start == 0 {
        return text;
    }
    let reach_back = text.floor_char_boundary(start.saturating_sub(CUT_REACH));
    let from = text[..reach_back]
        .rfind('\n')
        .map_or(0, |newline| newline + 1);
    let reach_on = text.ceil_char_boundary(start.saturating_add(CUT_REACH));
    let to = text[reach_on..]
        .find('\n')
        .map_or(text.len(), |newline| reach_on + newline + 1);
    let around = &text[from..to];
    let cut = start - from;
    for replacement in Redactor::builtin().redact_mapped(around).replacements {
        let line_start = around[..replacement.original.start]
            .rfind('\n')
            .map_or(0, |newline| newline + 1);
        if line_start < cut && cut < replacement.original.end {
            start = from + replacement.original.end;
        }
    }
    &text[start..]
}

/// Which end of a marker an offset inside a replaced secret maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Start,
    End,
}

/// A compiled rule table with its keyword prefilter. Build it once and share it.
pub struct Redactor {
    /// The rules. The built-in table is only built when a text holds one of its keywords
    /// (most texts a hook logs hold none): the prefilter below comes from build.rs.
    table: OnceLock<RuleTable>,
    rule_count: usize,
    keywords: LiteralIndex,
    /// For each keyword (literal index of `keywords`), the rules it triggers.
    keyword_rules: Vec<Cow<'static, [u16]>>,
    /// The rules that run where a snowflake token stands (`Prefilter::SnowflakeToken`).
    shape_rules: Cow<'static, [u16]>,
}

/// Bytes handed to the scanner at once when streaming (then cut back to a line boundary).
const STREAM_CHUNK: usize = 64 * 1024;
/// A line longer than this is cut (at a separator if possible) so memory stays bounded.
const MAX_LINE: usize = 1024 * 1024;

impl Redactor {
    /// The built-in rules, compiled on first use.
    pub fn builtin() -> &'static Redactor {
        static BUILTIN: OnceLock<Redactor> = OnceLock::new();
        BUILTIN.get_or_init(|| Redactor {
            table: OnceLock::new(),
            rule_count: rules::BUILTIN_RULE_COUNT,
            // Embedded, built by build.rs: cloning it copies references, not tables.
            keywords: rules::BUILTIN_KEYWORD_INDEX.clone(),
            keyword_rules: rules::BUILTIN_KEYWORDS
                .iter()
                .map(|&(_, rules)| Cow::Borrowed(rules))
                .collect(),
            shape_rules: Cow::Borrowed(rules::BUILTIN_SHAPE_RULES),
        })
    }

    /// The rule table; a table not given at construction is the built-in one, built now.
    fn table(&self) -> &RuleTable {
        self.table.get_or_init(|| match rules::builtin() {
            Ok(table) => table,
            // The embedded table is checked by the unit tests; reaching this is a build defect.
            Err(err) => panic!("built-in redaction rules are invalid: {err}"),
        })
    }

    fn rule(&self, index: u16) -> &Rule {
        &self.table().rules[usize::from(index)]
    }

    /// The rules a hit of `scan` triggers: a keyword's, or past the keywords the shape
    /// prefilter's (see [`Redactor::hits`]).
    fn triggered_by(&self, hit: usize) -> &[u16] {
        self.keyword_rules
            .get(hit)
            .map_or(&self.shape_rules, |rules| rules)
    }

    /// The keyword occurrences in `text` and, when a rule runs at the shape prefilter, the
    /// snowflake tokens (as hit `keyword_rules.len()`), in order of position.
    fn hits<'t>(&'t self, text: &'t [u8]) -> impl Iterator<Item = (usize, usize)> + 't {
        let shape_hit = self.keyword_rules.len();
        let mut keywords = self.keywords.find_iter(text).peekable();
        let mut tokens = SnowflakeTokens {
            text,
            dots_from: if self.shape_rules.is_empty() {
                text.len()
            } else {
                0
            },
        };
        std::iter::from_fn(move || {
            // Tokens are looked for only up to the next keyword: `scan` restarts after each
            // value read on the next lines, and a search to the end of the text each time
            // would read the rest of a dense text once per secret.
            let keyword = keywords.peek().map(|&(_, at)| at);
            match tokens.next_before(keyword.unwrap_or(text.len())) {
                Some(at) => Some((shape_hit, at)),
                None => keywords.next(),
            }
        })
    }

    /// Compiles a rule table in the format of `assets/redact/rules.toml`; `origin` names it
    /// in error messages.
    pub fn from_toml(origin: &str, text: &str) -> Result<Redactor> {
        rules::parse(origin, text, rules::Validation::Compile).map(Redactor::from_table)
    }

    fn from_table(table: RuleTable) -> Redactor {
        let (keywords, keyword_rules): (Vec<String>, Vec<Vec<u16>>) =
            spec::keyword_table(table.rules.iter().map(|rule| rule.keywords.as_slice()))
                .into_iter()
                .unzip();
        let keywords = LiteralIndex::new(
            keywords
                .into_iter()
                .map(|keyword| Literal::plain(keyword.as_bytes()))
                .collect(),
        );
        let shape_rules = spec::shape_rules(
            table
                .rules
                .iter()
                .map(|rule| rule.prefilter.map(|_| rule.id.as_str())),
        );
        Redactor {
            shape_rules: Cow::Owned(shape_rules),
            rule_count: table.rules.len(),
            table: OnceLock::from(table),
            keywords,
            keyword_rules: keyword_rules.into_iter().map(Cow::Owned).collect(),
        }
    }

    /// The kinds this redactor knows, in priority order.
    pub fn kinds(&self) -> impl Iterator<Item = &str> {
        self.table().rules.iter().map(|rule| rule.id.as_str())
    }

    /// Redacts a whole string.
    pub fn redact(&self, text: &str) -> Redacted {
        let mut scanner = Scanner::new(self);
        let mut output = Vec::with_capacity(text.len());
        // Writing into a Vec cannot fail.
        let _ = scanner.process(text.as_bytes(), &mut output);
        let _ = scanner.finish(&mut output);
        // Replacements are ASCII and matches end on character boundaries, so this is UTF-8;
        // the lossy path only guards against a defect, never panicking.
        let text = String::from_utf8(output)
            .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned());
        Redacted {
            text,
            counts: scanner.counts,
        }
    }

    /// Redacts a whole string and keeps where each replacement is, so that a window, a tail
    /// or an excerpt can be cut from the redacted text at offsets of the original
    /// ("redact, then cut": a cut can then never fall inside a secret).
    pub fn redact_mapped(&self, text: &str) -> RedactedText {
        let mut scanner = Scanner::new(self);
        scanner.replacements = Some(Vec::new());
        let mut output = Vec::with_capacity(text.len());
        let _ = scanner.process(text.as_bytes(), &mut output);
        let _ = scanner.finish(&mut output);
        let redacted = String::from_utf8(output)
            .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned());
        let mut replacements = Vec::new();
        // Output offsets follow from the input ranges and the markers' lengths.
        let mut shift: isize = 0;
        for (input, rule) in scanner.replacements.take().unwrap_or_default() {
            let kind = self.rule(rule).id.clone();
            let marker_len = "[REDACTED:]".len() + kind.len();
            let start = input.start.saturating_add_signed(shift);
            shift += marker_len as isize - input.len() as isize;
            replacements.push(Replacement {
                original: input,
                redacted: start..start + marker_len,
                kind,
            });
        }
        RedactedText {
            text: redacted,
            counts: scanner.counts,
            replacements,
        }
    }

    /// Redacts `input` into `output` line by line in bounded memory (about 64 KiB plus the
    /// lines read ahead and the longest line, capped at 1 MiB). Bytes that are not UTF-8 pass
    /// through unchanged.
    pub fn redact_stream(
        &self,
        mut input: impl BufRead,
        mut output: impl Write,
    ) -> io::Result<RedactionCounts> {
        let mut scanner = Scanner::new(self);
        let mut pending: Vec<u8> = Vec::with_capacity(2 * STREAM_CHUNK);
        loop {
            let available = match input.fill_buf() {
                Ok(available) => available,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if available.is_empty() {
                break;
            }
            let taken = available.len().min(STREAM_CHUNK);
            pending.extend_from_slice(&available[..taken]);
            input.consume(taken);
            if pending.len() < STREAM_CHUNK {
                continue;
            }
            let Some(newline) = memchr::memrchr(b'\n', &pending) else {
                if pending.len() >= MAX_LINE {
                    let cut = forced_cut(&pending);
                    scanner.process(&pending[..cut], &mut output)?;
                    pending.drain(..cut);
                }
                continue;
            };
            // The last lines are only read ahead (a statement or a wrapped run that starts
            // above the cut goes on there) and processed with the next chunk.
            let lines = &pending[..newline + 1];
            let cut = match read_ahead_cut(lines) {
                0 if pending.len() < MAX_LINE => continue,
                0 => lines.len(),
                cut => cut,
            };
            scanner.process_lines(lines, cut, &mut output)?;
            pending.drain(..cut);
        }
        scanner.process(&pending, &mut output)?;
        scanner.finish(&mut output)?;
        output.flush()?;
        Ok(scanner.counts)
    }
}

/// How many lines below a stream chunk's cut are read with it: as far as the scanner looks
/// below a line (a statement's continuation lines, a wrapped base64 run).
const READ_AHEAD_LINES: usize = if statement::JOIN_REACH > WRAPPED_BASE64_REACH {
    statement::JOIN_REACH
} else {
    WRAPPED_BASE64_REACH
};

/// Where the processed part of `lines` (whole lines) ends so that [`READ_AHEAD_LINES`] lines
/// stay below it; 0 when there are not that many.
fn read_ahead_cut(lines: &[u8]) -> usize {
    memchr::memrchr_iter(b'\n', lines)
        .nth(READ_AHEAD_LINES)
        .map_or(0, |newline| newline + 1)
}

/// Adds `span` to `spans` (in order, none overlapping another); spans it overlaps become one
/// with it, named by the rule listed first, counted where the added span was.
fn merge_span(spans: &mut Vec<Span>, span: Span) {
    let first = spans.partition_point(|other| other.end <= span.start);
    let last = first
        + spans[first..]
            .iter()
            .take_while(|other| other.start < span.end)
            .count();
    if first == last {
        spans.insert(first, span);
        return;
    }
    let overlapped = &spans[first..last];
    let merged = Span {
        start: span.start.min(overlapped[0].start),
        end: span.end.max(overlapped[overlapped.len() - 1].end),
        rule: overlapped
            .iter()
            .map(|other| other.rule)
            .fold(span.rule, u16::min),
        opens_block: overlapped.iter().any(|other| other.opens_block),
        counted_apart: span.counted_apart,
    };
    spans.splice(first..last, [merged]);
}

/// Where to cut an over-long line: after the last separator a secret would not contain, else
/// at a UTF-8 character boundary.
fn forced_cut(line: &[u8]) -> usize {
    if let Some(at) = line.iter().rposition(|b| b" \t,;\"'<>".contains(b)) {
        return at + 1;
    }
    // Cut before the last character, which may be incomplete; its bytes stay for the next part.
    let last_char_start = line.iter().rposition(|&b| (b & 0xC0) != 0x80).unwrap_or(0);
    if last_char_start == 0 {
        line.len()
    } else {
        last_char_start
    }
}

/// A match to replace, in line coordinates.
struct Span {
    start: usize,
    end: usize,
    rule: u16,
    /// The span opens a multi-line block that continues on the next lines.
    opens_block: bool,
    /// The secret was counted where it was found: in the decoded text of an escaped string.
    counted_apart: bool,
}

impl Span {
    /// A one-line secret at `start..end` of `text`, widened to whole characters.
    fn secret(text: &[u8], start: usize, end: usize, rule: u16) -> Span {
        let (start, end) = widen_to_characters(text, start, end);
        Span {
            start,
            end,
            rule,
            opens_block: false,
            counted_apart: false,
        }
    }
}

struct OpenBlock {
    rule: u16,
    /// Where the block started in the input, and where its last line's content ends so far
    /// (the replaced range, see `Scanner::replacements`).
    start: usize,
    content_end: usize,
    /// The line ending of the block's last line so far, written when the block ends unclosed.
    line_ending: Vec<u8>,
}

/// The state of one redaction pass.
struct Scanner<'r> {
    redactor: &'r Redactor,
    counts: RedactionCounts,
    open_block: Option<OpenBlock>,
    /// An assignment whose value continues on the next lines, with the rule that found it.
    pending_value: Option<(u16, Pending)>,
    /// Every replacement as (input range, rule), in order; input positions are offsets into
    /// the text given to `process`, so this is only kept for a single call (`redact_mapped`).
    replacements: Option<Vec<(Range<usize>, u16)>>,
    /// Set by `find_spans`: the lines above the current one (from this offset of the text not
    /// yet written) are the start of a wrapped base64 run redacted on it, by this rule.
    base64_run_above: Option<(usize, u16)>,
    /// Rules triggered on the current line, deduplicated through `rule_seen`.
    triggered: Vec<u16>,
    /// Every keyword occurrence on the current line: (rule, position in the text).
    keyword_starts: Vec<(u16, usize)>,
    /// Search rules whose matches start at a keyword only there (see `Rule::anchored`).
    anchoring: bool,
    rule_seen: Vec<u64>,
    /// Buffers reused from line to line.
    candidates: Vec<Span>,
    spans: Vec<Span>,
    line_number: u64,
    /// How many levels of string escaping the text given to `process` is inside (see
    /// [`Scanner::add_escaped_secrets`]).
    escape_depth: u8,
    /// Secrets on the lines below the current one, found by reading a statement that spans
    /// lines as one (see [`Scanner::add_joined_secrets`]): (input range, rule), in order;
    /// input positions are offsets into the text given to `process`.
    carried: Vec<(Range<usize>, u16)>,
}

/// Strings inside strings are decoded this deep: a transcript line (one) holding a tool's JSON
/// output (two) whose field holds a file (three).
const MAX_ESCAPE_DEPTH: u8 = 3;

impl<'r> Scanner<'r> {
    fn new(redactor: &'r Redactor) -> Self {
        Scanner::with_anchoring(redactor, true)
    }

    fn with_anchoring(redactor: &'r Redactor, anchoring: bool) -> Self {
        Scanner {
            redactor,
            keyword_starts: Vec::new(),
            anchoring,
            counts: RedactionCounts::new(),
            open_block: None,
            pending_value: None,
            replacements: None,
            base64_run_above: None,
            triggered: Vec::new(),
            rule_seen: vec![0; redactor.rule_count],
            candidates: Vec::new(),
            spans: Vec::new(),
            line_number: 0,
            escape_depth: 0,
            carried: Vec::new(),
        }
    }

    /// Processes whole lines (the last may lack its newline at the end of input or on a
    /// forced cut).
    fn process(&mut self, text: &[u8], output: &mut impl Write) -> io::Result<()> {
        self.process_lines(text, text.len(), output)
    }

    /// Processes the lines of `text` before `end` (a line boundary); the lines from `end` on
    /// are only read ahead, and processed by the next call, whose text starts with them.
    fn process_lines(
        &mut self,
        text: &[u8],
        end: usize,
        output: &mut impl Write,
    ) -> io::Result<()> {
        let mut position = 0;
        while position < end {
            position = if self.open_block.is_some() {
                self.continue_block(&text[..end], position, output)?
            } else if self.pending_value.is_some() {
                self.continue_value(&text[..end], position, output)?
            } else if !self.carried.is_empty() {
                self.continue_joined(text, position, output)?
            } else {
                self.scan(text, end, position, output)?
            };
        }
        // Secrets carried down onto the lines read ahead: offsets into the next call's text.
        self.carried.retain(|(secret, _)| secret.start >= end);
        for (secret, _) in &mut self.carried {
            *secret = secret.start - end..secret.end - end;
        }
        Ok(())
    }

    /// The next line after one whose statement was read with the lines below it (see
    /// [`Scanner::add_joined_secrets`]): scanned as any line, with the secrets found for it
    /// there; returns where scanning resumes.
    fn continue_joined(
        &mut self,
        text: &[u8],
        start: usize,
        output: &mut impl Write,
    ) -> io::Result<usize> {
        // Lines a block or a value below took over are past.
        self.carried.retain(|(secret, _)| secret.start >= start);
        if self.carried.is_empty() {
            return Ok(start);
        }
        let redactor = self.redactor;
        let line_end =
            memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |newline| start + newline + 1);
        self.line_number += 1;
        self.triggered.clear();
        self.keyword_starts.clear();
        for (keyword, at) in redactor.hits(&text[start..line_end]) {
            for &rule in redactor.triggered_by(keyword) {
                self.keyword_starts.push((rule, start + at));
                let seen = &mut self.rule_seen[usize::from(rule)];
                if *seen != self.line_number {
                    *seen = self.line_number;
                    self.triggered.push(rule);
                }
            }
        }
        let mut written = start;
        if self.redact_line(text, start, line_end, &mut written, output)? {
            return Ok(line_end);
        }
        output.write_all(&text[written..line_end])?;
        Ok(line_end)
    }

    fn finish(&mut self, output: &mut impl Write) -> io::Result<()> {
        if let Some(block) = self.open_block.take() {
            self.replaced(block.start..block.content_end, block.rule);
            output.write_all(&block.line_ending)?;
        }
        Ok(())
    }

    /// Scans from `start` to `end` (a line boundary of `text`, which goes on below only to be
    /// read ahead), or until a line opens a block; returns where it stopped.
    fn scan(
        &mut self,
        text: &[u8],
        end: usize,
        start: usize,
        output: &mut impl Write,
    ) -> io::Result<usize> {
        let redactor = self.redactor;
        let mut written = start;
        let mut line: Option<(usize, usize)> = None;
        for (keyword, at) in redactor.hits(&text[start..end]) {
            let at = start + at;
            match line {
                Some((_, line_end)) if at < line_end => {}
                _ => {
                    if let Some((line_start, line_end)) = line
                        && self.redact_line(text, line_start, line_end, &mut written, output)?
                    {
                        return Ok(line_end);
                    }
                    let line_start = memchr::memrchr(b'\n', &text[start..at])
                        .map_or(start, |newline| start + newline + 1);
                    let line_end = memchr::memchr(b'\n', &text[at..])
                        .map_or(text.len(), |newline| at + newline + 1);
                    line = Some((line_start, line_end));
                    self.line_number += 1;
                    self.triggered.clear();
                    self.keyword_starts.clear();
                }
            }
            for &rule in redactor.triggered_by(keyword) {
                self.keyword_starts.push((rule, at));
                let seen = &mut self.rule_seen[usize::from(rule)];
                if *seen != self.line_number {
                    *seen = self.line_number;
                    self.triggered.push(rule);
                }
            }
        }
        if let Some((line_start, line_end)) = line
            && self.redact_line(text, line_start, line_end, &mut written, output)?
        {
            return Ok(line_end);
        }
        output.write_all(&text[written..end])?;
        Ok(end)
    }

    /// Runs the triggered rules on one line and writes it out if anything was found (with the
    /// unchanged text before it). Returns true when the line opened a multi-line block.
    fn redact_line(
        &mut self,
        text: &[u8],
        line_start: usize,
        line_end: usize,
        written: &mut usize,
        output: &mut impl Write,
    ) -> io::Result<bool> {
        let line = &text[line_start..line_end];
        let content = strip_line_ending(line);
        self.base64_run_above = None;
        self.find_spans(
            content,
            line_start,
            &text[*written..line_start],
            &text[line_end..],
        );
        let redactor = self.redactor;
        self.spans.retain(|span| {
            !span.opens_block
                || !redactor.block_is_template(span.rule, &text[line_start + span.start..])
        });
        if self.carried.is_empty()
            && self.pending_value.is_none()
            && !self.keyword_starts.is_empty()
            && !self.spans.iter().any(|span| span.opens_block)
        {
            self.add_joined_secrets(text, line_start, content.len(), line_end);
        }
        // Secrets of this line found with the line above it (carried down).
        let content_end = line_start + content.len();
        while let Some((secret, rule)) = self
            .carried
            .first()
            .filter(|(secret, _)| secret.start < content_end)
            .cloned()
        {
            self.carried.remove(0);
            if secret.end <= content_end {
                merge_span(
                    &mut self.spans,
                    Span {
                        start: secret.start - line_start,
                        end: secret.end - line_start,
                        rule,
                        opens_block: false,
                        counted_apart: false,
                    },
                );
            }
        }
        if self.escape_depth < MAX_ESCAPE_DEPTH && memchr::memchr(b'\\', content).is_some() {
            self.add_escaped_secrets(content, line_start);
        }
        if self.escape_depth < MAX_ESCAPE_DEPTH
            && !self.keyword_starts.is_empty()
            && memchr::memchr(b'[', content).is_some()
        {
            self.add_argv_secrets(content, line_start);
        }
        if self.spans.is_empty() {
            // A value that starts on the next line: scanning continues in `continue_value`
            // (or, for secrets carried down, `continue_joined`).
            if self.pending_value.is_some() || !self.carried.is_empty() {
                output.write_all(&text[*written..line_end])?;
                *written = line_end;
                return Ok(true);
            }
            return Ok(false);
        }
        let spans = std::mem::take(&mut self.spans);
        match self.base64_run_above.take() {
            // The lines of the same wrapped base64 run above this one, not written yet: each
            // is a piece of the secret found here (counted once, with this line's).
            Some((run_start, rule)) => {
                let run_start = *written + run_start;
                output.write_all(&text[*written..run_start])?;
                let mut at = run_start;
                for piece in text[run_start..line_start].split_inclusive(|&b| b == b'\n') {
                    let body = strip_line_ending(piece);
                    let indent = body
                        .iter()
                        .take_while(|&&b| b == b' ' || b == b'\t')
                        .count();
                    self.write_redacted_piece(text, at, indent, body.len() - indent, rule, output)?;
                    output.write_all(&piece[body.len()..])?;
                    at += piece.len();
                }
            }
            None => output.write_all(&text[*written..line_start])?,
        }
        let mut cursor = 0;
        let mut opened = None;
        for span in &spans {
            output.write_all(&content[cursor..span.start])?;
            let id = &self.redactor.rule(span.rule).id;
            write!(output, "[REDACTED:{id}]")?;
            if !span.counted_apart {
                self.count(span.rule);
            }
            cursor = span.end;
            if span.opens_block {
                opened = Some((span.rule, line_start + span.start));
            } else {
                self.replaced(line_start + span.start..line_start + span.end, span.rule);
            }
        }
        if opened.is_none()
            && self.pending_value.is_none()
            && let Some(last) = spans.last()
            && let Some(width) = base64_wrap_width(&content[last.start..last.end])
            && last.end == content.len()
        {
            self.pending_value = Some((
                last.rule,
                Pending::Base64Lines {
                    indent: last.start,
                    width,
                },
            ));
        }
        if opened.is_none()
            && self.pending_value.is_none()
            && let Some(last) = spans.last()
            && last.end == content.len()
            && let Some(dots) = unfinished_jwt(&content[last.start..last.end])
        {
            self.pending_value = Some((last.rule, Pending::JwtLines { dots }));
        }
        self.spans = spans;
        *written = line_end;
        match opened {
            Some((rule, start)) => {
                self.open_block = Some(OpenBlock {
                    rule,
                    start,
                    content_end: line_start + content.len(),
                    line_ending: line[content.len()..].to_vec(),
                });
                Ok(true)
            }
            None => {
                output.write_all(&line[cursor..])?;
                Ok(self.pending_value.is_some() || !self.carried.is_empty())
            }
        }
    }

    /// Carries down the secrets of a statement that the line at `line_start` (`content_len`
    /// bytes before its line ending, which ends at `line_end`) opens and leaves open: a call
    /// whose arguments go on below (`new PDO(` then `'mysql:…',` `'user',` `'…'`), an `INSERT`
    /// whose `VALUES` follows; or of an `INSERT` opened a few lines above whose column list
    /// this line is part of (`INSERT INTO users (` then `email,` `password` `) VALUES (…)`).
    /// The statement's lines (down to [`statement::JOIN_REACH`] below this one), their
    /// indentation dropped, are read as one line with this line's keywords, and what is found
    /// on this line or a line below is redacted there.
    fn add_joined_secrets(
        &mut self,
        text: &[u8],
        line_start: usize,
        content_len: usize,
        line_end: usize,
    ) {
        let content = &text[line_start..line_start + content_len];
        // A line longer than a joined statement may be is no statement's start (minified code).
        if content_len >= statement::JOIN_MAX_BYTES {
            return;
        }
        let (opener_start, mut statement) = match statement::Statement::opened_by(content) {
            Some(statement) => (line_start, statement),
            None => match statement::insert_above(text, line_start, content) {
                Some(found) => found,
                None => return,
            },
        };
        let opener_end = memchr::memchr(b'\n', &text[opener_start..])
            .map_or(text.len(), |newline| opener_start + newline + 1);
        let opener = strip_line_ending(&text[opener_start..opener_end]);
        let mut joined = opener.to_vec();
        // Each line of the statement in the joined text: (offset there, offset in `text`,
        // length); the first is the opening line, whole.
        let mut pieces: Vec<(usize, usize, usize)> = vec![(0, opener_start, opener.len())];
        let mut position = opener_end;
        // Lines joined below this one.
        let mut below = 0;
        while below < statement::JOIN_REACH
            && position < text.len()
            && (statement.continues() || position <= line_start)
        {
            let end = memchr::memchr(b'\n', &text[position..])
                .map_or(text.len(), |newline| position + newline + 1);
            let body = strip_line_ending(&text[position..end]);
            let indent = body.len() - body.trim_ascii_start().len();
            let piece = body[indent..].trim_ascii_end();
            if piece.is_empty() || joined.len() + 1 + piece.len() > statement::JOIN_MAX_BYTES {
                break;
            }
            joined.push(b' ');
            pieces.push((joined.len(), position + indent, piece.len()));
            joined.extend_from_slice(piece);
            statement.extend(piece);
            below += usize::from(position >= line_end);
            position = end;
        }
        // Nothing joined to this line: its own scan has read it.
        if position < line_end || (opener_start == line_start && below == 0) {
            return;
        }
        // This line's keywords where they stand in the joined text.
        let keyword_starts = std::mem::take(&mut self.keyword_starts);
        self.keyword_starts = keyword_starts
            .iter()
            .filter_map(|&(rule, at)| {
                pieces
                    .iter()
                    .find(|&&(_, source, length)| source <= at && at < source + length)
                    .map(|&(joined_at, source, _)| (rule, joined_at + at - source))
            })
            .collect();
        let line_spans = std::mem::take(&mut self.spans);
        let base64_run_above = self.base64_run_above.take();
        self.find_spans(&joined, 0, &[], &[]);
        // What the joined text opens or leaves pending belongs to no line of it.
        self.pending_value = None;
        self.base64_run_above = base64_run_above;
        self.keyword_starts = keyword_starts;
        let found = std::mem::replace(&mut self.spans, line_spans);
        for span in found.iter().filter(|span| !span.opens_block) {
            let Some(&(at, source, _)) = pieces
                .iter()
                .find(|&&(at, _, length)| at <= span.start && span.end <= at + length)
            else {
                continue;
            };
            let source = source + span.start - at..source + span.end - at;
            if source.start >= line_end {
                self.carried.push((source, span.rule));
            } else if source.start >= line_start && opener_start < line_start {
                // On this line, below the statement's first line (the direct case finds this
                // line's secrets with the line itself).
                merge_span(
                    &mut self.spans,
                    Span {
                        start: source.start - line_start,
                        end: source.end - line_start,
                        rule: span.rule,
                        opens_block: false,
                        counted_apart: false,
                    },
                );
            }
        }
    }

    /// Adds to `self.spans` the secrets of the line's escaped strings that hold a keyword
    /// (`"content": "db:\n  password: |\n    …"`): the string's decoded text is redacted as text
    /// of its own, so a form that spans lines is followed there, and each secret found maps
    /// back to the escaped bytes it came from. A span of the line's own scan that overlaps one
    /// becomes one span with it, as wide as both, so neither leaves a piece of the other.
    fn add_escaped_secrets(&mut self, content: &[u8], line_start: usize) {
        // Keyword occurrences are in order of position, as are the strings.
        let mut keywords = self
            .keyword_starts
            .iter()
            .map(|&(_, at)| at - line_start)
            .peekable();
        let strings: Vec<Range<usize>> = escaped::escaped_strings(content)
            .into_iter()
            .filter(|string| {
                while keywords.next_if(|&at| at < string.start).is_some() {}
                keywords.peek().is_some_and(|&at| at < string.end)
            })
            .collect();
        if strings.is_empty() {
            return;
        }
        // The decoded text is the string as its writer meant it: what the line's own scan
        // found inside it (a value read on past a `\n`, a quote or the string's end) gives
        // way. A value starting at the string's start is kept: a key outside named it.
        let inside = |at: usize| {
            let next = strings.partition_point(|string| string.end <= at);
            strings.get(next).is_some_and(|string| string.start < at)
        };
        self.spans.retain(|span| !inside(span.start));
        let mut found = Vec::new();
        for string in &strings {
            let decoded = escaped::decode(&content[string.clone()]);
            found.extend(self.secrets_of_view(&decoded.text, |secret| {
                let source = decoded.source(secret);
                string.start + source.start..string.start + source.end
            }));
        }
        for span in found {
            merge_span(&mut self.spans, span);
        }
    }

    /// The secrets of a view of the line (a JSON string decoded, an array of strings joined)
    /// redacted as text of its own, as spans of the line through `source`, which maps a range
    /// of the view back to the line's bytes; their counts are added to this scanner's.
    fn secrets_of_view(
        &mut self,
        view: &[u8],
        source: impl Fn(Range<usize>) -> Range<usize>,
    ) -> Vec<Span> {
        let mut inner = Scanner::with_anchoring(self.redactor, self.anchoring);
        inner.escape_depth = self.escape_depth + 1;
        inner.replacements = Some(Vec::new());
        // Only where the secrets are matters here; the sink cannot fail.
        let _ = inner.process(view, &mut io::sink());
        let _ = inner.finish(&mut io::sink());
        for (kind, count) in std::mem::take(&mut inner.counts) {
            *self.counts.entry(kind).or_default() += count;
        }
        inner
            .replacements
            .take()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(secret, rule)| {
                let source = source(secret);
                (!source.is_empty()).then_some(Span {
                    start: source.start,
                    end: source.end,
                    rule,
                    opens_block: false,
                    counted_apart: true,
                })
            })
            .collect()
    }

    /// Adds to `self.spans` the secrets of the line's command lines written as arrays of
    /// strings that hold a keyword (`["CMD", "redis-cli", "-a", "…", "ping"]`): the elements
    /// joined by blanks are redacted as a command line of their own, and each secret found maps
    /// back to the element it came from.
    fn add_argv_secrets(&mut self, content: &[u8], line_start: usize) {
        let keywords: Vec<usize> = self
            .keyword_starts
            .iter()
            .map(|&(_, at)| at - line_start)
            .collect();
        let mut found = Vec::new();
        for (array, joined) in argv::argv_arrays(content) {
            if !keywords.iter().any(|at| array.contains(at)) {
                continue;
            }
            found.extend(self.secrets_of_view(&joined.text, |secret| joined.source(secret)));
        }
        for span in found {
            merge_span(&mut self.spans, span);
        }
    }

    /// After a line whose assignment's value continues below (`<apiToken>` ending the line,
    /// `password: |`): redacts the value lines; returns where normal scanning resumes.
    fn continue_value(
        &mut self,
        text: &[u8],
        start: usize,
        output: &mut impl Write,
    ) -> io::Result<usize> {
        let grammar = self.redactor.table().assignment.as_ref();
        let mut position = start;
        while position < text.len() {
            let Some((rule, pending)) = self.pending_value else {
                return Ok(position);
            };
            let line_end = memchr::memchr(b'\n', &text[position..])
                .map_or(text.len(), |newline| position + newline + 1);
            let content = strip_line_ending(&text[position..line_end]);
            let indent = assign::indentation(content);
            let body = &content[indent..];
            let value_end = memchr::memmem::find(body, b"</").unwrap_or(body.len());
            let value = body[..value_end].trim_ascii_end();
            match pending {
                Pending::NextLine(class) => {
                    self.pending_value = None;
                    // One token, no key of a nested map (`password:` then `  file: x`), no
                    // list item; typed at random, since a word may be any next line.
                    let mut token = body.trim_ascii_end();
                    let mut indent = indent;
                    // A quoted value (JSON's `"password":` then `"…"`): what is inside.
                    if token.len() > 2
                        && matches!(token[0], b'"' | b'\'')
                        && token.last() == Some(&token[0])
                    {
                        token = &token[1..token.len() - 1];
                        indent += 1;
                    }
                    let is_value = !token.is_empty()
                        && !token.iter().any(|&b| b == b' ' || b == b'\t')
                        && !token.ends_with(b":")
                        && !token.starts_with(b"-")
                        && !token.starts_with(b"#")
                        && grammar.is_some_and(|g| g.plausible(token, class, false));
                    if !is_value {
                        return Ok(position);
                    }
                    self.write_redacted_line(text, position, indent, token.len(), rule, output)?;
                    return Ok(position + indent + token.len());
                }
                Pending::Element(class) => {
                    self.pending_value = None;
                    let is_value = !value.is_empty()
                        && !value.starts_with(b"<")
                        && grammar.is_some_and(|g| g.plausible(value, class, true));
                    if !is_value {
                        return Ok(position);
                    }
                    self.write_redacted_line(text, position, indent, value.len(), rule, output)?;
                    return Ok(position + indent + value.len());
                }
                Pending::BlockScalar {
                    indent: key_indent,
                    redacted,
                } => {
                    if body.is_empty() {
                        output.write_all(&text[position..line_end])?;
                        position = line_end;
                        continue;
                    }
                    if indent <= key_indent {
                        self.pending_value = None;
                        return Ok(position);
                    }
                    let kept = &body[..body.trim_ascii_end().len()];
                    // A sentence under the key is a note about the secret, not the secret
                    // (`password: |` then `Use the vault entry.`).
                    if !redacted && grammar.is_some_and(|g| g.is_sentence(kept)) {
                        self.pending_value = None;
                        return Ok(position);
                    }
                    if !redacted {
                        self.count(rule);
                    }
                    self.pending_value = Some((
                        rule,
                        Pending::BlockScalar {
                            indent: key_indent,
                            redacted: true,
                        },
                    ));
                    self.write_redacted_piece(text, position, indent, kept.len(), rule, output)?;
                    output.write_all(&text[position + indent + kept.len()..line_end])?;
                    position = line_end;
                }
                Pending::Base64Lines {
                    indent: run_indent,
                    width,
                } => {
                    // The rest starts at the left margin or where the run started.
                    let run = body.trim_ascii_end();
                    let continues = indent <= run_indent
                        && run.len() <= width
                        && run.len() == body.len()
                        && is_base64_line(run)
                        && (run.len() == width || looks_like_base64_tail(run));
                    if !continues {
                        self.pending_value = None;
                        return Ok(position);
                    }
                    // Each wrapped line is a piece of one secret: counted once, with the run.
                    let length = content.len() - indent;
                    self.write_redacted_piece(text, position, indent, length, rule, output)?;
                    output.write_all(&text[position + content.len()..line_end])?;
                    if run.len() < width || run.ends_with(b"=") {
                        self.pending_value = None;
                        return Ok(line_end);
                    }
                    position = line_end;
                }
                Pending::JwtLines { dots } => {
                    let run = body.trim_ascii_end();
                    let is_jwt_piece = !run.is_empty()
                        && run
                            .iter()
                            .all(|&b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
                    if !is_jwt_piece {
                        self.pending_value = None;
                        return Ok(position);
                    }
                    // Each wrapped line is a piece of one token: counted once, with its start.
                    self.write_redacted_piece(text, position, indent, run.len(), rule, output)?;
                    output.write_all(&text[position + indent + run.len()..line_end])?;
                    let dots = dots + run.iter().filter(|&&b| b == b'.').count();
                    if (dots >= JWT_DOTS && !run.ends_with(b".")) || dots >= JWE_DOTS {
                        self.pending_value = None;
                        return Ok(line_end);
                    }
                    self.pending_value = Some((rule, Pending::JwtLines { dots }));
                    position = line_end;
                }
                Pending::TableColumn {
                    column,
                    separator,
                    class,
                    ruled,
                    rows_left,
                } => {
                    if assign::is_table_rule(content) {
                        output.write_all(&text[position..line_end])?;
                        self.pending_value = Some((
                            rule,
                            Pending::TableColumn {
                                column,
                                separator,
                                class,
                                ruled: true,
                                rows_left,
                            },
                        ));
                        position = line_end;
                        continue;
                    }
                    let cells = assign::table_cells(content, separator);
                    // Past the table: no rule under the header, a line of no cells, the end.
                    if !ruled || rows_left == 0 || cells.len() <= column || cells.len() < 2 {
                        self.pending_value = None;
                        return Ok(position);
                    }
                    let cell = &cells[column];
                    let cell_text = &content[cell.clone()];
                    let value_start =
                        cell.start + (cell_text.len() - cell_text.trim_ascii_start().len());
                    let value = content[value_start..cell.end].trim_ascii_end();
                    let secret = !value.is_empty()
                        && !value.iter().any(|&b| b == b' ' || b == b'\t')
                        && grammar.is_some_and(|g| g.plausible(value, class, true));
                    self.pending_value = Some((
                        rule,
                        Pending::TableColumn {
                            column,
                            separator,
                            class,
                            ruled,
                            rows_left: rows_left - 1,
                        },
                    ));
                    // The row's other cells are redacted as the line would be outside the
                    // table (a token in another column, a `KEY=value` in this one).
                    let mut spans = self.secrets_of_view(content, |secret| secret);
                    let end = value_start + value.len();
                    // A secret found inside the cell (`PGPASSWORD=…`) is the finer answer.
                    if secret && !spans.iter().any(|s| s.start < end && value_start < s.end) {
                        self.count(rule);
                        merge_span(
                            &mut spans,
                            Span {
                                start: value_start,
                                end,
                                rule,
                                opens_block: false,
                                counted_apart: true,
                            },
                        );
                    }
                    let mut cursor = 0;
                    for span in &spans {
                        output.write_all(&content[cursor..span.start])?;
                        write!(output, "[REDACTED:{}]", self.redactor.rule(span.rule).id)?;
                        self.replaced(position + span.start..position + span.end, span.rule);
                        cursor = span.end;
                    }
                    output.write_all(&text[position + cursor..line_end])?;
                    position = line_end;
                }
                Pending::CommandOutput { lines_left } => {
                    // A transcript's output marker before the first line (Claude Code's `⎿`).
                    let marker = output_marker_len(body);
                    let (indent, body) = (indent + marker, &body[marker..]);
                    let value = body.trim_ascii_end();
                    // What a transcript puts between a command and its output (Cursor's blank
                    // line, Codex's ` succeeded in 471ms:`) is passed over once; so is a
                    // sentence the tool prints before the secret (`Password for the [elastic]
                    // user successfully reset.`).
                    let between = lines_left == assign::COMMAND_OUTPUT_REACH
                        && (value.is_empty() || is_exec_status(value));
                    let sentence = lines_left > 1
                        && value.ends_with(b".")
                        && value.contains(&b' ')
                        && memchr::memchr(b':', value).is_none()
                        && !is_prompt(body);
                    if between || sentence {
                        output.write_all(&text[position..line_end])?;
                        position = line_end;
                        self.pending_value = Some((
                            rule,
                            Pending::CommandOutput {
                                lines_left: lines_left - 1,
                            },
                        ));
                        continue;
                    }
                    if value.is_empty() || lines_left == 0 || is_prompt(body) {
                        self.pending_value = None;
                        return Ok(position);
                    }
                    // The tool's label before it (`New value: …`, `Generated password: …`):
                    // the value after it is the secret, when no word of letters.
                    let (indent, value) = match output_label_len(value) {
                        Some(label) => (indent + label, &value[label..]),
                        None => (indent, value),
                    };
                    let labelled = value.len() < body.trim_ascii_end().len();
                    let labelled_word = labelled && value.iter().all(u8::is_ascii_alphabetic);
                    let secret = !labelled_word
                        && !value.iter().any(|&b| b == b' ' || b == b'\t')
                        && grammar
                            .is_some_and(|g| g.plausible(value, assign::KeyClass::Password, true));
                    self.pending_value = None;
                    if !secret {
                        return Ok(position);
                    }
                    self.write_redacted_line(text, position, indent, value.len(), rule, output)?;
                    output.write_all(&text[position + indent + value.len()..line_end])?;
                    // A file encoded as base64 goes on at its wrap width, however long.
                    let next = match base64_wrap_width(value) {
                        Some(width) => Pending::Base64Lines { indent, width },
                        None => Pending::CommandOutput {
                            lines_left: lines_left - 1,
                        },
                    };
                    self.pending_value = Some((rule, next));
                    position = line_end;
                }
                Pending::EchoFields {
                    fields,
                    column,
                    separator,
                    class,
                } => {
                    self.pending_value = None;
                    let marker = output_marker_len(body);
                    let (indent, body) = (indent + marker, &body[marker..]);
                    let value = body.trim_ascii_end();
                    if value.is_empty() || is_prompt(body) {
                        return Ok(position);
                    }
                    let Some(secret) = echoed_field(value, fields, column, separator) else {
                        return Ok(position);
                    };
                    let field = &value[secret.clone()];
                    if !grammar.is_some_and(|g| g.plausible(field, class, true)) {
                        return Ok(position);
                    }
                    let at = position + indent;
                    output.write_all(&text[position..at + secret.start])?;
                    self.write_redacted_line(
                        text,
                        at + secret.start,
                        0,
                        field.len(),
                        rule,
                        output,
                    )?;
                    output.write_all(&text[at + secret.end..line_end])?;
                    position = line_end;
                }
                Pending::ValueField {
                    min_indent,
                    class,
                    lines_left,
                    field,
                } => {
                    if body.is_empty() {
                        output.write_all(&text[position..line_end])?;
                        position = line_end;
                        continue;
                    }
                    // Past the entry: dedented, the next list item, the object's end.
                    if indent < min_indent
                        || lines_left == 0
                        || body.starts_with(b"- ")
                        || body.starts_with(b"}")
                    {
                        self.pending_value = None;
                        return Ok(position);
                    }
                    let field_end =
                        assign::find_value_field(content, indent, field).filter(|&end| {
                            let before_field = &content[indent..end - field.name().len()];
                            before_field.is_empty() || before_field == b"\""
                        });
                    let value = field_end.and_then(|end| {
                        match grammar.and_then(|g| g.field_value(content, end, class)) {
                            Some(assign::Found::Value(value)) => Some(value),
                            _ => None,
                        }
                    });
                    if let Some(value) = value {
                        self.pending_value = None;
                        self.write_redacted_line(
                            text,
                            position,
                            value.start,
                            value.len(),
                            rule,
                            output,
                        )?;
                        return Ok(position + value.end);
                    }
                    if field_end.is_some() {
                        // The entry's value is there and no secret (`value: ""`, `${X}`).
                        self.pending_value = None;
                        return Ok(position);
                    }
                    // Another field of the entry is scanned as any line (`"AccessKey": {`
                    // holds `"SecretAccessKey": …`); a value or block it opens comes first.
                    self.pending_value = None;
                    let resumed = self.scan(&text[..line_end], line_end, position, output)?;
                    if self.open_block.is_some() || self.pending_value.is_some() {
                        return Ok(resumed);
                    }
                    self.pending_value = Some((
                        rule,
                        Pending::ValueField {
                            min_indent,
                            class,
                            lines_left: lines_left - 1,
                            field,
                        },
                    ));
                    position = line_end;
                }
                Pending::DataMap {
                    indent: map_indent,
                    base64,
                    scalar,
                } => {
                    if body.is_empty() || body.starts_with(b"#") {
                        output.write_all(&text[position..line_end])?;
                        position = line_end;
                        continue;
                    }
                    if indent <= map_indent {
                        self.pending_value = None;
                        return Ok(position);
                    }
                    let kept = body.trim_ascii_end().len();
                    let mut next_scalar = None;
                    match scalar {
                        // A line of an entry's block scalar: all of it is the value.
                        Some((entry_indent, redacted)) if indent > entry_indent => {
                            if !redacted {
                                self.count(rule);
                            }
                            next_scalar = Some((entry_indent, true));
                            self.write_redacted_piece(text, position, indent, kept, rule, output)?;
                            output.write_all(&text[position + indent + kept..line_end])?;
                        }
                        _ => {
                            let entry = data_entry(body);
                            match entry {
                                Some(DataEntry::Scalar) => {
                                    next_scalar = Some((indent, false));
                                    output.write_all(&text[position..line_end])?;
                                }
                                Some(DataEntry::Value(value)) => {
                                    let value_text = &body[value.clone()];
                                    let key = entry_key(body);
                                    let secret = if base64 {
                                        assign::is_base64_value(value_text)
                                            && !decode_base64(value_text).is_some_and(|decoded| {
                                                grammar
                                                    .is_some_and(|g| g.restates_key(key, &decoded))
                                            })
                                    } else if grammar
                                        .is_some_and(|g| g.restates_key(key, value_text))
                                    {
                                        false
                                    } else {
                                        grammar.is_some_and(|g| {
                                            g.plausible(
                                                value_text,
                                                assign::KeyClass::Password,
                                                true,
                                            )
                                        })
                                    };
                                    let value_at = position + indent + value.start;
                                    if secret {
                                        self.write_redacted_line(
                                            text,
                                            position,
                                            indent + value.start,
                                            value.len(),
                                            rule,
                                            output,
                                        )?;
                                        output
                                            .write_all(&text[value_at + value.len()..line_end])?;
                                    } else {
                                        output.write_all(&text[position..line_end])?;
                                    }
                                }
                                // A key opening a map of its own: a Secret's data map never
                                // nests, so this `data:` is another file's (Spring's
                                // `spring.data.mongodb`), scanned as any text from here.
                                None if body.trim_ascii_end().ends_with(b":") => {
                                    self.pending_value = None;
                                    return Ok(position);
                                }
                                None => output.write_all(&text[position..line_end])?,
                            }
                        }
                    }
                    self.pending_value = Some((
                        rule,
                        Pending::DataMap {
                            indent: map_indent,
                            base64,
                            scalar: next_scalar,
                        },
                    ));
                    position = line_end;
                }
            }
        }
        Ok(position)
    }

    /// Writes `indent` bytes from `at`, then the redaction of the next `length` bytes, and
    /// counts it as one secret.
    fn write_redacted_line(
        &mut self,
        text: &[u8],
        at: usize,
        indent: usize,
        length: usize,
        rule: u16,
        output: &mut impl Write,
    ) -> io::Result<()> {
        self.count(rule);
        self.write_redacted_piece(text, at, indent, length, rule, output)
    }

    /// [`Self::write_redacted_line`] for a further piece of a secret already counted (a line
    /// of a wrapped key, a block scalar, a base64 run).
    fn write_redacted_piece(
        &mut self,
        text: &[u8],
        at: usize,
        indent: usize,
        length: usize,
        rule: u16,
        output: &mut impl Write,
    ) -> io::Result<()> {
        debug_assert!(at + indent + length <= text.len());
        output.write_all(&text[at..at + indent])?;
        let id = &self.redactor.rule(rule).id;
        write!(output, "[REDACTED:{id}]")?;
        self.replaced(at + indent..at + indent + length, rule);
        Ok(())
    }

    fn replaced(&mut self, input: Range<usize>, rule: u16) {
        if let Some(replacements) = &mut self.replacements {
            replacements.push((input, rule));
        }
    }

    /// Inside a multi-line block: drops body lines until the closing line; returns where normal
    /// scanning resumes (after the closing marker, or at a line that is not part of the block).
    fn continue_block(
        &mut self,
        text: &[u8],
        start: usize,
        output: &mut impl Write,
    ) -> io::Result<usize> {
        let redactor = self.redactor;
        let Some(open) = &mut self.open_block else {
            return Ok(start);
        };
        let Some(block) = &redactor.rule(open.rule).block else {
            self.open_block = None;
            return Ok(start);
        };
        let mut position = start;
        while position < text.len() {
            let line_end = memchr::memchr(b'\n', &text[position..])
                .map_or(text.len(), |newline| position + newline + 1);
            let content = strip_line_ending(&text[position..line_end]);
            if let Some(end) = block.end.find(content) {
                let (rule, start) = (open.rule, open.start);
                self.open_block = None;
                self.replaced(start..position + end.end(), rule);
                return Ok(position + end.end());
            }
            if !block.line.is_match(content) {
                // The block was cut short: end it and treat this line as ordinary text.
                if let Some(open) = self.open_block.take() {
                    self.replaced(open.start..open.content_end, open.rule);
                    output.write_all(&open.line_ending)?;
                }
                return Ok(position);
            }
            // The block now ends where this line ends, should the input stop here.
            open.content_end = position + content.len();
            open.line_ending.clear();
            open.line_ending
                .extend_from_slice(&text[position + content.len()..line_end]);
            position = line_end;
        }
        Ok(position)
    }

    fn count(&mut self, rule: u16) {
        let id = &self.redactor.rule(rule).id;
        match self.counts.get_mut(id) {
            Some(count) => *count += 1,
            None => {
                self.counts.insert(id.clone(), 1);
            }
        }
    }

    /// Fills `self.spans` with the accepted, non-overlapping matches of the triggered rules in
    /// one line, in order.
    /// `above` is the text before the line not written out yet, `below` the text after it (a
    /// wrapped base64 run goes on there).
    fn find_spans(&mut self, content: &[u8], line_start: usize, above: &[u8], below: &[u8]) {
        let redactor = self.redactor;
        let candidates = &mut self.candidates;
        candidates.clear();
        let keyword_starts = &self.keyword_starts;
        for &rule_index in &self.triggered {
            let rule = redactor.rule(rule_index);
            if rule.recognizer == Some(Recognizer::Assignment) {
                let Some(grammar) = redactor.table().assignment.as_ref() else {
                    continue;
                };
                for &(_, at) in keyword_starts.iter().filter(|(r, _)| *r == rule_index) {
                    match grammar.recognize(content, at - line_start) {
                        Some(Found::Value(value))
                            if redactor
                                .table()
                                .rules
                                .iter()
                                .any(|format| format.disowns(&content[value.clone()])) => {}
                        Some(Found::Value(value)) => {
                            candidates.push(Span::secret(
                                content,
                                value.start,
                                value.end,
                                rule_index,
                            ));
                        }
                        Some(Found::Pending(pending)) => {
                            self.pending_value = Some((rule_index, pending));
                        }
                        Some(Found::Values(values)) => {
                            for value in values {
                                if !redactor
                                    .table()
                                    .rules
                                    .iter()
                                    .any(|format| format.disowns(&content[value.clone()]))
                                {
                                    candidates.push(Span::secret(
                                        content,
                                        value.start,
                                        value.end,
                                        rule_index,
                                    ));
                                }
                            }
                        }
                        None => {}
                    }
                }
                continue;
            }
            if rule.recognizer == Some(Recognizer::CommandOutput) {
                if rule.regex.is_match(content) {
                    self.pending_value = Some((
                        rule_index,
                        Pending::CommandOutput {
                            lines_left: assign::COMMAND_OUTPUT_REACH,
                        },
                    ));
                } else if let Some(fields) = redactor
                    .table()
                    .assignment
                    .as_ref()
                    .and_then(|grammar| grammar.echo_fields(content))
                {
                    self.pending_value = Some((rule_index, fields));
                }
                continue;
            }
            if rule.recognizer == Some(Recognizer::CookieHeader) {
                for &(_, at) in keyword_starts.iter().filter(|(r, _)| *r == rule_index) {
                    let header = at - line_start;
                    let pairs = &content[header..];
                    for captures in rule.regex.captures_iter(pairs) {
                        let (Some(whole), Some(secret)) =
                            (captures.get(0), captures.name("secret"))
                        else {
                            continue;
                        };
                        if redactor.accepts(rule, whole.as_bytes(), secret.as_bytes()) {
                            candidates.push(Span::secret(
                                content,
                                header + secret.start(),
                                header + secret.end(),
                                rule_index,
                            ));
                        }
                    }
                }
                continue;
            }
            if rule.recognizer == Some(Recognizer::Base64) {
                for &(_, at) in keyword_starts.iter().filter(|(r, _)| *r == rule_index) {
                    let run = base64_run(content, at - line_start);
                    let seen = candidates
                        .iter()
                        .any(|span| span.rule == rule_index && span.start == run.start);
                    // A run that fills its line to a wrap width is one piece of a dump
                    // wrapped over lines: the secret may begin here and end below.
                    // The same run may have begun on the lines above, at the same indent.
                    let (above_start, above_run) = if run.start
                        == content
                            .iter()
                            .take_while(|&&b| b == b' ' || b == b'\t')
                            .count()
                        && run.end == content.len()
                    {
                        base64_run_above(above, run.start, run.len())
                    } else {
                        (above.len(), Vec::new())
                    };
                    let encoded = match base64_wrap_width(&content[run.clone()]) {
                        Some(width) if run.end == content.len() => Cow::Owned(
                            [
                                above_run.as_slice(),
                                &wrapped_base64(&content[run.clone()], run.start, width, below),
                            ]
                            .concat(),
                        ),
                        _ if !above_run.is_empty() => {
                            Cow::Owned([above_run.as_slice(), &content[run.clone()]].concat())
                        }
                        _ => Cow::Borrowed(&content[run.clone()]),
                    };
                    if !seen && redactor.decodes_to_secrets(&encoded) {
                        if above_start < above.len() {
                            self.base64_run_above = Some((above_start, rule_index));
                        }
                        candidates.push(Span {
                            start: run.start,
                            end: run.end,
                            rule: rule_index,
                            opens_block: false,
                            counted_apart: false,
                        });
                    }
                }
                continue;
            }
            if let Some(recognizer @ (Recognizer::Prose | Recognizer::ProseGenerated)) =
                rule.recognizer
            {
                let generated_only = recognizer == Recognizer::ProseGenerated;
                let Some(grammar) = redactor.table().assignment.as_ref() else {
                    continue;
                };
                for &(_, at) in keyword_starts.iter().filter(|(r, _)| *r == rule_index) {
                    if let Some(value) = grammar.recognize_prose(
                        content,
                        at - line_start,
                        &rule.keywords,
                        generated_only,
                    ) {
                        candidates.push(Span::secret(content, value.start, value.end, rule_index));
                    }
                }
                continue;
            }
            let first_of_rule = candidates.len();
            let mut consider = |whole: Range<usize>, secret: Range<usize>| {
                if redactor.accepts(rule, &content[whole], &content[secret.clone()]) {
                    candidates.push(Span::secret(content, secret.start, secret.end, rule_index));
                }
            };
            match (
                rule.anchored().filter(|_| self.anchoring),
                rule.secret_group(),
            ) {
                // Every match starts at one of this rule's keywords: search only there, in
                // order, as `find_iter` would (the next search starts where a match ended).
                (Some(anchored), _) => {
                    let mut captures = anchored.regex.create_captures();
                    let mut free_from = 0;
                    for &(_, at) in keyword_starts.iter().filter(|(r, _)| *r == rule_index) {
                        let at = at - line_start;
                        if at < free_from || at >= content.len() {
                            continue;
                        }
                        let input = Input::new(content).range(at..).anchored(Anchored::Yes);
                        anchored.regex.search_captures(&input, &mut captures);
                        let Some(whole) = captures.get_match().filter(|m| !m.is_empty()) else {
                            continue;
                        };
                        free_from = whole.end();
                        let secret = match anchored.secret_group {
                            Some(group) => captures.get_group(group),
                            None => Some(whole.span()),
                        };
                        if let Some(secret) = secret {
                            consider(whole.range(), secret.range());
                        }
                    }
                }
                // Without a secret group the cheaper match-only search suffices.
                (None, None) => rule
                    .regex
                    .find_iter(content)
                    .for_each(|whole| consider(whole.range(), whole.range())),
                // The capture engines are slower than the DFA behind `is_match`, and most
                // triggered lines hold no match at all.
                (None, Some(group)) if rule.regex.is_match(content) => {
                    for captures in rule.regex.captures_iter(content) {
                        if let (Some(whole), Some(secret)) = (captures.get(0), captures.get(group))
                        {
                            consider(whole.range(), secret.range());
                        }
                    }
                }
                (None, Some(_)) => {}
            }
            if let Some(block) = &rule.block {
                // A block opens at a marker whose end is not on the same line (when it is, the
                // one-line regex above decided).
                let opening = block.begin.find_iter(content).find(|begin| {
                    !candidates[first_of_rule..]
                        .iter()
                        .any(|span| span.start <= begin.start() && begin.start() < span.end)
                        && !block.end.is_match(&content[begin.end()..])
                });
                if let Some(begin) = opening {
                    candidates.push(Span {
                        start: begin.start(),
                        end: content.len(),
                        rule: rule_index,
                        opens_block: true,
                        counted_apart: false,
                    });
                }
            }
        }
        // A match inside a larger value the assignment grammar read (whose ends are its
        // quotes or the syntax around it) is part of that secret: the `sig=` of a SAS token
        // assigned whole to a key. The whole value goes, so no piece of it is left.
        let contained = |span: &Span, all: &[Span]| {
            all.iter().any(|other| {
                other.start <= span.start
                    && span.end <= other.end
                    && other.end - other.start > span.end - span.start
                    && redactor.rule(other.rule).recognizer == Some(Recognizer::Assignment)
            })
        };
        let inner: Vec<bool> = candidates
            .iter()
            .map(|span| contained(span, candidates))
            .collect();
        let mut index = 0;
        candidates.retain(|_| {
            index += 1;
            !inner[index - 1]
        });
        // Earlier rules win overlaps: specific formats are listed before the catch-alls.
        candidates.sort_unstable_by_key(|span| (span.rule, span.start));
        self.spans.clear();
        for span in candidates.drain(..) {
            if !self
                .spans
                .iter()
                .any(|other| span.start < other.end && other.start < span.end)
            {
                self.spans.push(span);
            }
        }
        self.spans.sort_unstable_by_key(|span| span.start);
        // A match that stops inside a run of letters and digits stopped inside the token (a
        // format's length met before the token's end): the rest of the run is the secret's too.
        for index in 0..self.spans.len() {
            let limit = self
                .spans
                .get(index + 1)
                .map_or(content.len(), |next| next.start);
            let span = &mut self.spans[index];
            if span.end > span.start && content[span.end - 1].is_ascii_alphanumeric() {
                while span.end < limit && content[span.end].is_ascii_alphanumeric() {
                    span.end += 1;
                }
            }
        }
    }
}

impl Redactor {
    /// Whether base64 (standard or URL-safe) decodes to text in which this redactor finds a
    /// secret: a `.env` or credentials file dumped encoded (`env_file_b64: "REJfUEFTU1dP…"`).
    fn decodes_to_secrets(&self, encoded: &[u8]) -> bool {
        if encoded.len() < MIN_BASE64_DUMP {
            return false;
        }
        let Some(decoded) = decode_base64(encoded) else {
            return false;
        };
        let printable = decoded
            .iter()
            .filter(|&&b| b >= b' ' || b"\n\r\t".contains(&b))
            .count();
        match std::str::from_utf8(&decoded) {
            Ok(text) if printable * 20 >= decoded.len() * 19 => self.redact(text).text != text,
            _ => false,
        }
    }

    /// Whether the block opening at the start of `rest` closes, within `rest`, around a body
    /// too short to be key material (`-----BEGIN PRIVATE KEY-----\nanything\n-----END …`, as
    /// in templates and tests). A block whose end is not in `rest` (a stream chunk ends
    /// first) is taken as a key.
    fn block_is_template(&self, rule: u16, rest: &[u8]) -> bool {
        let Some(block) = &self.rule(rule).block else {
            return false;
        };
        let mut body = 0;
        let mut lines = rest.split(|&b| b == b'\n');
        let Some(first) = lines.next() else {
            return false;
        };
        let after_begin = block.begin.find(first).map_or(first.len(), |m| m.end());
        for (index, line) in std::iter::once(&first[after_begin..])
            .chain(lines)
            .enumerate()
        {
            let content = strip_line_ending(line);
            let (body_part, closes) = match block.end.find(content) {
                Some(end) => (&content[..end.start()], true),
                None => (content, false),
            };
            if index > 0 && !closes && !block.line.is_match(content) {
                return false;
            }
            // Header lines (`Proc-Type: 4,ENCRYPTED`) are no key material.
            if memchr::memmem::find(body_part, b": ").is_none() {
                body += body_part
                    .iter()
                    .filter(|&&b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
                    .count();
            }
            if closes {
                return body < MIN_KEY_BODY;
            }
            if body >= MIN_KEY_BODY {
                return false;
            }
        }
        false
    }

    /// Whether a regex match is a secret rather than a placeholder or a look-alike.
    fn accepts(&self, rule: &Rule, whole: &[u8], secret: &[u8]) -> bool {
        if secret.is_empty()
            || (rule.min_entropy > 0.0 && shannon_entropy(secret) < rule.min_entropy)
        {
            return false;
        }
        // A run like `abcdefghij` is typed, not generated: documentation fills a format's
        // shape with the alphabet (`AIzaSyabcdefghijklmnopqrstuvwxyz1234567`).
        if rule.prefilter == Some(Prefilter::SnowflakeToken) && !is_snowflake_token(secret) {
            return false;
        }
        if self.table().placeholders.is_match(secret)
            || assign::is_masked_or_templated(secret)
            || rule.allow.is_match(secret)
            || assign::has_alphabet_run(secret)
        {
            return false;
        }
        // A word or a default as a password (`postgres://user:password@…`, HTTP Basic of
        // `admin:admin`).
        if let Some(judgement) = rule.judged_as {
            let password = match judgement {
                Judgement::Password => Some(unquoted(secret).to_vec()),
                Judgement::BasicCredentials => match decode_base64(secret) {
                    // With no password the user is the credential (an API key as user name,
                    // `sk_live_…:`): no word list judges it.
                    Some(decoded) if decoded.ends_with(b":") => None,
                    Some(decoded) if memchr::memchr(b':', &decoded).is_some() => {
                        let colon = memchr::memchr(b':', &decoded).unwrap_or(0);
                        Some(decoded[colon + 1..].to_vec())
                    }
                    // Base64 that is no `user:password` is judged as it stands.
                    _ => Some(secret.to_vec()),
                },
            };
            if let Some(password) = password
                && !self.table().assignment.as_ref().is_some_and(|grammar| {
                    grammar.plausible(&password, assign::KeyClass::Password, false)
                })
            {
                return false;
            }
        }
        !rule
            .reject_secret
            .iter()
            .any(|reject| reject.is_match(secret))
            && !rule
                .reject_match
                .iter()
                .any(|reject| reject.is_match(whole))
    }
}

/// The parts of a snowflake token: the id in base64 (17 to 20 digits), a timestamp, an HMAC.
const SNOWFLAKE_ID_PART: std::ops::RangeInclusive<usize> = 23..=27;
const SNOWFLAKE_TIME_PART: usize = 6;
const SNOWFLAKE_HMAC_PART: std::ops::RangeInclusive<usize> = 27..=38;
const SNOWFLAKE_ID_DIGITS: std::ops::RangeInclusive<usize> = 17..=20;

fn is_base64url(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-'
}

/// Whether `token` is a snowflake token whole: `id.time.hmac` in base64url, the id part the
/// base64 of a decimal id (Discord's documented bot token; nothing made up decodes to digits).
fn is_snowflake_token(token: &[u8]) -> bool {
    let mut parts = token.split(|&b| b == b'.');
    let (Some(id), Some(time), Some(hmac), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let all_base64url = |part: &[u8]| part.iter().all(|&b| is_base64url(b));
    SNOWFLAKE_ID_PART.contains(&id.len())
        && time.len() == SNOWFLAKE_TIME_PART
        && SNOWFLAKE_HMAC_PART.contains(&hmac.len())
        && all_base64url(id)
        && all_base64url(time)
        && all_base64url(hmac)
        && decode_base64(id).is_some_and(|digits| {
            SNOWFLAKE_ID_DIGITS.contains(&digits.len())
                && digits[0] != b'0'
                && digits.iter().all(u8::is_ascii_digit)
        })
}

/// The snowflake tokens of a text, in order, looked for only as far as asked. The prefilter
/// looks at each dot only: a token's time part is six characters between two dots, which most
/// dots (sentences, paths, calls) fail at once.
struct SnowflakeTokens<'t> {
    text: &'t [u8],
    /// Dots before this were looked at.
    dots_from: usize,
}

impl SnowflakeTokens<'_> {
    /// Where the next token starts, if its dot comes before `limit` (so the token starts before
    /// it too).
    fn next_before(&mut self, limit: usize) -> Option<usize> {
        let limit = limit.min(self.text.len());
        while self.dots_from < limit {
            let Some(dot) = memchr::memchr(b'.', &self.text[self.dots_from..limit]) else {
                self.dots_from = limit;
                return None;
            };
            let dot = self.dots_from + dot;
            self.dots_from = dot + 1;
            if let Some(start) = snowflake_token_at(self.text, dot) {
                return Some(start);
            }
        }
        None
    }
}

/// Where the snowflake token whose first dot is at `dot` starts, if one is there.
fn snowflake_token_at(text: &[u8], dot: usize) -> Option<usize> {
    let time_end = dot + 1 + SNOWFLAKE_TIME_PART;
    if text.get(time_end) != Some(&b'.')
        || !text[dot + 1..time_end].iter().all(|&b| is_base64url(b))
    {
        return None;
    }
    let id_len = text[..dot]
        .iter()
        .rev()
        .take(*SNOWFLAKE_ID_PART.end() + 1)
        .take_while(|&&b| is_base64url(b))
        .count();
    let start = dot - id_len;
    let hmac_len = text[time_end + 1..]
        .iter()
        .take(*SNOWFLAKE_HMAC_PART.end() + 1)
        .take_while(|&&b| is_base64url(b))
        .count();
    is_snowflake_token(&text[start..time_end + 1 + hmac_len]).then_some(start)
}

/// `secret` without the quotes around it, when a rule's match includes them (`'…'`, a code
/// span's backticks).
fn unquoted(secret: &[u8]) -> &[u8] {
    match secret {
        [open @ (b'\'' | b'"' | b'`'), inner @ .., close] if open == close => inner,
        _ => secret,
    }
}

/// Where the value at `column` of `fields` lies in an `echo`'s output `line`, split at
/// `separator` (a blank: at runs of blanks), blanks around it left out. A last field takes
/// the rest of the line (a value may hold the separator); a line with fewer fields is none.
fn echoed_field(line: &[u8], fields: u8, column: u8, separator: u8) -> Option<Range<usize>> {
    let is_separator = |b: &u8| {
        if separator == b' ' {
            b.is_ascii_whitespace()
        } else {
            *b == separator
        }
    };
    let mut start = 0;
    for _ in 0..column {
        let end = start + line[start..].iter().position(is_separator)?;
        start = end + line[end..].iter().take_while(|b| is_separator(b)).count();
    }
    let end = if column + 1 == fields {
        line.len()
    } else {
        start + line[start..].iter().position(is_separator)?
    };
    let field = &line[start..end];
    let leading = field.len() - field.trim_ascii_start().len();
    let kept = field.trim_ascii().len();
    (kept > 0).then_some(start + leading..start + leading + kept)
}

/// The length of a transcript's marker of command output at the start of `body` (Claude
/// Code's `⎿` and the blanks after it), or 0.
fn output_marker_len(body: &[u8]) -> usize {
    const MARKER: &[u8] = "⎿".as_bytes();
    if !body.starts_with(MARKER) {
        return 0;
    }
    MARKER.len()
        + body[MARKER.len()..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count()
}

/// The length of a tool's label before a value on an output line (`New value: `,
/// `Generated password: `, `Token: `): one to three words of letters, a colon, blanks.
fn output_label_len(line: &[u8]) -> Option<usize> {
    let colon = memchr::memchr(b':', line)?;
    let label = &line[..colon];
    let words = label.split(|&b| b == b' ').collect::<Vec<_>>();
    let blanks = line[colon + 1..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    ((1..=3).contains(&words.len())
        && words
            .iter()
            .all(|word| !word.is_empty() && word.iter().all(u8::is_ascii_alphabetic))
        && blanks > 0
        && colon + 1 + blanks < line.len())
    .then_some(colon + 1 + blanks)
}

/// Codex's status line between a command and its output: `succeeded in 471ms:`,
/// `exited 1 in 12ms:`.
fn is_exec_status(value: &[u8]) -> bool {
    (value.starts_with(b"succeeded in ") || value.starts_with(b"exited "))
        && value.ends_with(b"ms:")
}

/// A shell prompt starting a line of a terminal transcript: `$ `, `# `, `% `, `> `, `PS C:\> `.
fn is_prompt(body: &[u8]) -> bool {
    matches!(body, [b'$' | b'#' | b'%' | b'>', b' ', ..])
        || (body.starts_with(b"PS ") && memchr::memchr(b'>', body).is_some())
}

/// The separators of a JSON Web Token (header, payload, signature) and of its encrypted form
/// (JWE: header, key, iv, ciphertext, tag).
const JWT_DOTS: usize = 2;
const JWE_DOTS: usize = 4;

/// When a redacted value is a JSON Web Token cut short by its line's end (its last part not
/// begun, or the token a header and a payload at most), the dots it holds: the next lines
/// continue it.
fn unfinished_jwt(value: &[u8]) -> Option<usize> {
    let is_token = value.starts_with(b"eyJ")
        && value
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
    let dots = value.iter().filter(|&&b| b == b'.').count();
    (is_token && (dots < JWT_DOTS || value.ends_with(b".")) && dots < JWE_DOTS).then_some(dots)
}

/// The widths tools wrap base64 at: `base64` and MIME 76 columns, PEM and `openssl base64` 64.
const BASE64_WRAP_WIDTHS: [usize; 2] = [64, 76];

/// The wrap width a redacted run fills, when it is base64 of one (not hex: a digest of that
/// length is no wrapped dump) and so may go on over the next lines.
fn base64_wrap_width(run: &[u8]) -> Option<usize> {
    let width = BASE64_WRAP_WIDTHS
        .contains(&run.len())
        .then_some(run.len())?;
    let hex_only = run.iter().all(u8::is_ascii_hexdigit);
    (is_base64_line(run) && !hex_only && !run.ends_with(b"=")).then_some(width)
}

/// Whether a line shorter than the wrap width is the last piece of a base64 run rather than
/// a word after it (`Done`): padded, mixing cases with digits or `+/`, or whole 4-character
/// groups that decode to text, as the end of an encoded text file does (`MWRuZDQK`).
fn looks_like_base64_tail(line: &[u8]) -> bool {
    let has = |test: fn(&u8) -> bool| line.iter().any(test);
    let decodes_to_text = || {
        line.len().is_multiple_of(4)
            && decode_base64(line).is_some_and(|decoded| {
                std::str::from_utf8(&decoded).is_ok_and(|text| {
                    text.chars()
                        .all(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t'))
                })
            })
    };
    line.ends_with(b"=")
        || (has(u8::is_ascii_uppercase)
            && has(u8::is_ascii_lowercase)
            && has(|b| b.is_ascii_digit() || b"+/".contains(b)))
        || decodes_to_text()
}

/// The wrapped base64 run that ends right above a line whose own run (at `indent`, `length`
/// long) goes on with it: lines of one wrap width at that indent, the current one no longer.
/// Returns where the run starts in `above` (its length when there is none) and its base64.
fn base64_run_above(above: &[u8], indent: usize, length: usize) -> (usize, Vec<u8>) {
    let mut start = above.len();
    let mut width = None;
    let mut pieces = Vec::new();
    while start > 0 && pieces.len() < WRAPPED_BASE64_REACH {
        let line_start = memchr::memrchr(b'\n', &above[..start - 1]).map_or(0, |at| at + 1);
        let body = strip_line_ending(&above[line_start..start]);
        let line_indent = body
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        let run = &body[line_indent..];
        let fits = line_indent == indent
            && is_base64_line(run)
            && !run.ends_with(b"=")
            && !run.iter().all(u8::is_ascii_hexdigit)
            && width.is_none_or(|width| run.len() == width)
            && BASE64_WRAP_WIDTHS.contains(&run.len())
            && length <= run.len();
        if !fits {
            break;
        }
        width = Some(run.len());
        pieces.push(run);
        start = line_start;
    }
    pieces.reverse();
    (start, pieces.concat())
}

/// At most this many lines of a base64 run wrapped over lines are decoded together to judge
/// its first (a credentials file is a few KiB: a hundred lines of 76 columns).
const WRAPPED_BASE64_REACH: usize = 128;

/// `first` (a base64 run filling its line to `width`, starting at column `indent`) joined with
/// the lines of the same run in `below`, as `Pending::Base64Lines` follows them.
fn wrapped_base64(first: &[u8], indent: usize, width: usize, below: &[u8]) -> Vec<u8> {
    let mut joined = first.to_vec();
    for line in below.split(|&b| b == b'\n').take(WRAPPED_BASE64_REACH) {
        let content = strip_line_ending(line);
        let line_indent = content
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        let run = content[line_indent..].trim_ascii_end();
        let continues = line_indent <= indent
            && !run.is_empty()
            && run.len() <= width
            && run.len() == content.len() - line_indent
            && is_base64_line(run)
            && (run.len() == width || looks_like_base64_tail(run));
        if !continues {
            break;
        }
        joined.extend_from_slice(run);
        if run.len() < width || run.ends_with(b"=") {
            break;
        }
    }
    joined
}

/// Whether a line is nothing but base64 (either alphabet), padding at its end at most.
fn is_base64_line(line: &[u8]) -> bool {
    let body = line
        .strip_suffix(b"==")
        .or_else(|| line.strip_suffix(b"="))
        .unwrap_or(line);
    !body.is_empty()
        && body
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"+/_-".contains(&b))
}

/// The shortest private key body in base64 a block rule knows: the private part of a PuTTY
/// Ed25519 key (36 bytes; a PKCS#8 Ed25519 PEM body is 48).
const MIN_KEY_BODY: usize = 48;

/// Base64 shorter than this (18 bytes decoded) holds no credential file worth decoding.
const MIN_BASE64_DUMP: usize = 24;

/// The run of base64 characters (either alphabet, with its padding) around `at`.
fn base64_run(line: &[u8], at: usize) -> Range<usize> {
    let is_base64 = |b: u8| b.is_ascii_alphanumeric() || b"+/_-".contains(&b);
    let mut start = at.min(line.len());
    while start > 0 && is_base64(line[start - 1]) {
        start -= 1;
    }
    let mut end = at.min(line.len());
    while end < line.len() && is_base64(line[end]) {
        end += 1;
    }
    for _ in 0..2 {
        if line.get(end) == Some(&b'=') {
            end += 1;
        }
    }
    start..end
}

/// Decodes base64 in the standard or the URL-safe alphabet, padded or not; None when the
/// text is not base64.
fn decode_base64(encoded: &[u8]) -> Option<Vec<u8>> {
    let body = &encoded[..encoded.len() - encoded.iter().rev().take_while(|&&b| b == b'=').count()];
    if body.len() % 4 == 1 {
        return None;
    }
    let mut decoded = Vec::with_capacity(body.len() * 3 / 4);
    let mut bits: u32 = 0;
    let mut count = 0;
    for &byte in body {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(value);
        count += 6;
        if count >= 8 {
            count -= 8;
            decoded.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    Some(decoded)
}

/// An entry of a Secret's data map.
enum DataEntry {
    /// `key: value`: the value's range in the line's body, quotes excluded.
    Value(Range<usize>),
    /// `key: |` or `key: >`: the value is the block below.
    Scalar,
}

/// The key of a data map entry (`data-name1: …` → `data-name1`), quotes excluded.
fn entry_key(body: &[u8]) -> &[u8] {
    let colon = memchr::memchr(b':', body).unwrap_or(body.len());
    let key = body[..colon].trim_ascii();
    let is_quote = |b: Option<&u8>| matches!(b, Some(b'"' | b'\''));
    if key.len() >= 2 && is_quote(key.first()) && is_quote(key.last()) {
        &key[1..key.len() - 1]
    } else {
        key
    }
}

fn data_entry(body: &[u8]) -> Option<DataEntry> {
    let colon = memchr::memmem::find(body, b": ")
        .or_else(|| body.ends_with(b":").then(|| body.len() - 1))?;
    let mut start = colon + 1;
    while start < body.len() && matches!(body[start], b' ' | b'\t') {
        start += 1;
    }
    let mut end = body.trim_ascii_end().len();
    if start >= end {
        return None;
    }
    if matches!(body[start], b'|' | b'>') {
        return Some(DataEntry::Scalar);
    }
    if end - start >= 2 && matches!(body[start], b'"' | b'\'') && body[end - 1] == body[start] {
        start += 1;
        end -= 1;
    }
    Some(DataEntry::Value(start..end))
}

/// Widens `start..end` so it neither starts nor ends inside a UTF-8 encoded character.
fn widen_to_characters(text: &[u8], mut start: usize, mut end: usize) -> (usize, usize) {
    let is_continuation = |byte: u8| (byte & 0xC0) == 0x80;
    while start > 0 && is_continuation(text[start]) {
        start -= 1;
    }
    while end < text.len() && is_continuation(text[end]) {
        end += 1;
    }
    (start, end)
}

fn strip_line_ending(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Shannon entropy in bits per byte.
fn shannon_entropy(bytes: &[u8]) -> f64 {
    let mut frequencies = [0u32; 256];
    for &byte in bytes {
        frequencies[usize::from(byte)] += 1;
    }
    let total = bytes.len() as f64;
    frequencies
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            let p = f64::from(n) / total;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests;
