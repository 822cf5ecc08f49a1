//! Statements that span lines and are read as one line: a call whose arguments go on below
//! (`new PDO(` then `'mysql:…',` `'user',` `'…'` `);`), an SQL `INSERT` whose `VALUES` tuple
//! is on the next lines. The scanner joins such a line to the lines below only when the line
//! holds a keyword and leaves the statement open at its end, or (for an `INSERT` whose column
//! list goes over lines) when a line with a keyword has the shape of a column list and an
//! `INSERT` opens a few lines above: text without a keyword costs nothing.

/// At most this many lines below are joined to the line that opened the statement.
pub(crate) const JOIN_REACH: usize = 8;

/// A joined statement stops growing past this many bytes.
pub(crate) const JOIN_MAX_BYTES: usize = 4096;

/// How far a statement read so far is open: parentheses, a string, an `INSERT` without its
/// values.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Statement {
    depth: usize,
    quote: Option<u8>,
    /// The last byte outside blanks.
    last: u8,
    insert: bool,
    /// `VALUES` was met (outside strings and parentheses).
    values: bool,
    /// A tuple after `VALUES` was closed.
    values_closed: bool,
    /// A `)` closed more than was opened: not a statement of this text.
    unbalanced: bool,
}

impl Statement {
    /// The statement a line opens and leaves open at its end, if any.
    pub(crate) fn opened_by(line: &[u8]) -> Option<Statement> {
        let last = *line.trim_ascii_end().last()?;
        // An `INSERT` names its columns in parentheses (looked for first: `(` is rare in prose,
        // `i` is not).
        let insert = last != b';' && memchr::memchr(b'(', line).is_some() && starts_insert(line);
        if !insert && !matches!(last, b'(' | b',') {
            return None;
        }
        let mut statement = Statement {
            insert,
            ..Statement::default()
        };
        statement.extend(line);
        // A call opened on this line (not a line inside a long literal or a list).
        (statement.continues() && (statement.depth > 0 || insert)).then_some(statement)
    }

    /// Reads `piece`, the next line (its blanks around trimmed).
    pub(crate) fn extend(&mut self, piece: &[u8]) {
        let mut index = 0;
        while index < piece.len() {
            let byte = piece[index];
            match self.quote {
                Some(quote) => {
                    if byte == b'\\' {
                        index += 1;
                    } else if byte == quote {
                        self.quote = None;
                    }
                }
                None => match byte {
                    b'"' | b'\'' | b'`' => self.quote = Some(byte),
                    b'(' | b'[' => self.depth += 1,
                    b')' | b']' => {
                        if self.depth == 0 {
                            self.unbalanced = true;
                        } else {
                            self.depth -= 1;
                            if self.depth == 0 && self.values {
                                self.values_closed = true;
                            }
                        }
                    }
                    b'v' | b'V'
                        if self.insert
                            && self.depth == 0
                            && piece[index..].len() >= 6
                            && piece[index..index + 6].eq_ignore_ascii_case(b"values")
                            && (index == 0 || !is_word_byte(piece[index - 1]))
                            && piece.get(index + 6).is_none_or(|&b| !is_word_byte(b)) =>
                    {
                        self.values = true;
                    }
                    _ => {}
                },
            }
            index += 1;
        }
        // A string is quoted on one line: one left open is not one of these statements.
        if let Some(&last) = piece.trim_ascii_end().last() {
            self.last = last;
        }
    }

    /// Whether the statement goes on to the next line.
    pub(crate) fn continues(&self) -> bool {
        if self.quote.is_some() || self.unbalanced || self.last == b';' {
            return false;
        }
        self.depth > 0 || matches!(self.last, b',' | b'(') || (self.insert && !self.values_closed)
    }
}

/// The `INSERT` that `line` (at `line_start` in `text`) continues as part of its column list,
/// opened at most [`JOIN_REACH`] lines above (`INSERT INTO users (` … `  password,`): where its
/// first line starts, and the statement as that line leaves it. Only a line that can be part
/// of a column list (names, quotes, commas, brackets, up to a `VALUES`) looks above.
pub(crate) fn insert_above(
    text: &[u8],
    line_start: usize,
    line: &[u8],
) -> Option<(usize, Statement)> {
    let columns = &line[..values_at(line).unwrap_or(line.len())];
    if !columns
        .iter()
        .all(|&b| is_word_byte(b) || b" \t,()[].`\"'".contains(&b))
    {
        return None;
    }
    // `end` is where the line above the one looked at ends (after its newline).
    let mut end = line_start;
    for _ in 0..JOIN_REACH {
        if end == 0 {
            return None;
        }
        let start = memchr::memrchr(b'\n', &text[..end - 1]).map_or(0, |newline| newline + 1);
        let above = text[start..end].trim_ascii_end();
        if above.is_empty() || above.ends_with(b";") {
            return None;
        }
        if starts_insert(above) {
            let mut statement = Statement {
                insert: true,
                ..Statement::default()
            };
            statement.extend(above);
            return statement.continues().then_some((start, statement));
        }
        end = start;
    }
    None
}

/// Where the word `VALUES` (any case) starts in `line`, if it does.
fn values_at(line: &[u8]) -> Option<usize> {
    (0..line.len().saturating_sub(5)).find(|&at| {
        line[at..at + 6].eq_ignore_ascii_case(b"values")
            && (at == 0 || !is_word_byte(line[at - 1]))
            && line.get(at + 6).is_none_or(|&b| !is_word_byte(b))
    })
}

fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// Whether `line` holds an SQL `INSERT INTO` (any case).
fn starts_insert(line: &[u8]) -> bool {
    let mut from = 0;
    while let Some(found) = memchr::memchr2(b'i', b'I', &line[from..]) {
        let at = from + found;
        from = at + 1;
        let rest = &line[at..];
        if rest.len() >= 11
            && rest[..6].eq_ignore_ascii_case(b"insert")
            && (at == 0 || !is_word_byte(line[at - 1]))
        {
            let after = &rest[6..];
            let blanks = after.iter().take_while(|b| b.is_ascii_whitespace()).count();
            let word = &after[blanks..];
            if blanks > 0
                && word.len() >= 4
                && word[..4].eq_ignore_ascii_case(b"into")
                && word.get(4).is_none_or(|&b| !is_word_byte(b))
            {
                return true;
            }
        }
    }
    false
}
