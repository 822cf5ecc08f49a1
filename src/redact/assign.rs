//! The assignment recognizer: one grammar of "secret-like key, operator, value" for the
//! languages and formats agents print (shell and `.env`, Make, INI, TOML, YAML, JSON, XML
//! elements and attributes, properties files, Go, Rust, Python, JS/TS, Java, C#, PHP, Ruby,
//! `setProperty("KEY", "…")`-style calls, command-line `--password=…`).
//!
//! It runs at the occurrences of its rule's keywords (the prefilter), widens each to the key
//! around it, classifies the key by its words (`DB_PASSWORD`, `adafruitToken`,
//! `secret_key_base`), reads the operator and the WHOLE value (quoted: to the matching quote,
//! escapes honoured; unquoted: to the end of the value), and keeps the value when it is
//! plausible as a secret: long enough, varied enough, not a placeholder (`${VAR}`,
//! `<password>`, `your-key-here`), not code (`self.token`, `getPassword()`). Which words make a
//! key secret-like and which values are placeholders is data (`[assignment]` in
//! `assets/redact/rules.toml`); the grammar is here.

use std::ops::Range;

use super::spec::AssignmentSpec;

/// How sensitive the key says its value is; passwords may be short and plain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyClass {
    Password,
    Secret,
    /// A key that only says "key" (`LOGGED_IN_KEY`, `NONCE_KEY`, `key`): a value is a secret
    /// only when it is unmistakably random, since most such keys hold names and ids.
    Weak,
}

/// A value that continues on the following lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pending {
    /// `<apiToken>` ended the line: the next line holds the value.
    Element(KeyClass),
    /// A label ended the line (`Password:`, a tool's prompt or a form printed): the next line
    /// holds the value when it is one token that reads as a secret.
    NextLine(KeyClass),
    /// `password: |` (a YAML block scalar): the following lines indented deeper than `indent`
    /// are the value. `redacted` says whether a line of it was replaced yet (counted once).
    BlockScalar { indent: usize, redacted: bool },
    /// The `data:` (base64 values) or `stringData:` map of a Kubernetes Secret: entries
    /// indented deeper than `indent`; `scalar` is the indentation of an entry whose block
    /// scalar (`.dockercfg: |`) is being read, and whether a line of it was replaced yet.
    DataMap {
        indent: usize,
        base64: bool,
        scalar: Option<(usize, bool)>,
    },
    /// The secret is the `value` field of what follows: the object opened by
    /// `"db_password": {` (Terraform's `output -json`), or the entry named by
    /// `- name: DB_PASSWORD` (a Kubernetes env list). Lines indented at least `min_indent`
    /// are looked at, `lines_left` of them at most.
    ValueField {
        min_indent: usize,
        class: KeyClass,
        lines_left: u8,
        field: ValueField,
    },
    /// The output of a command that prints a secret (`vault kv get -field=password …`): the
    /// next output lines, up to the next prompt, `lines_left` of them at most.
    CommandOutput { lines_left: u8 },
    /// `echo` printed several variables, one named as a secret (`echo "$DB_USER / $DB_PASS"`):
    /// the next output line holds `fields` values split at `separator` (a blank: at blanks),
    /// the secret's at `column`.
    EchoFields {
        fields: u8,
        column: u8,
        separator: u8,
        class: KeyClass,
    },
    /// A redacted base64 run that filled its line to a tool's wrap width (`base64` wraps at
    /// 76 columns, PEM and `openssl base64` at 64): the next lines of that width, and a shorter
    /// last one, are the rest of it. `indent` is where the run started on its line.
    Base64Lines { indent: usize, width: usize },
    /// The header row of a table printed by a database client or in Markdown names a secret
    /// column (`| id | username | password |`, psql's ` id | user | password`): the cell at
    /// `column` of each row below, split at `separator`, is a value; `ruled` says whether the
    /// header's rule line (`---+---`, `+----+`, `|---|`) was seen, which makes it a table.
    TableColumn {
        column: usize,
        separator: &'static [u8],
        class: KeyClass,
        ruled: bool,
        rows_left: u8,
    },
    /// A redacted JSON Web Token that ended its line before its last part (`eyJ….eyJ….`,
    /// wrapped by a terminal or a log formatter): the next lines of base64url and dots are
    /// the rest of it, until `dots` (the separators seen so far) reach a whole token's.
    JwtLines { dots: usize },
}

/// The field of an entry or block that holds its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueField {
    /// `value`: a Kubernetes env entry, Terraform's `output -json`, a name/value pair.
    Value,
    /// `default`: a Terraform variable block (`variable "db_password" { default = "…" }`).
    Default,
}

impl ValueField {
    pub(crate) fn name(self) -> &'static [u8] {
        match self {
            ValueField::Value => b"value",
            ValueField::Default => b"default",
        }
    }
}

/// How many rows of a table with a secret column are looked at.
pub(crate) const TABLE_ROWS_REACH: u8 = 64;

/// How many output lines of a command that prints a secret are its value.
pub(crate) const COMMAND_OUTPUT_REACH: u8 = 3;

/// How many lines after `"db_password": {` or `- name: DB_PASSWORD` may hold its `value`.
pub(crate) const VALUE_FIELD_REACH: u8 = 8;

/// What the recognizer found at one keyword.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    /// The value, in line coordinates.
    Value(Range<usize>),
    /// The value follows on the next lines.
    Pending(Pending),
    /// Several values, in line coordinates: a column's in each row of an SQL `INSERT`.
    Values(Vec<Range<usize>>),
}

/// The vocabulary of [`AssignmentSpec`], lower-cased.
pub(crate) struct Grammar {
    password_words: Vec<String>,
    secret_words: Vec<String>,
    secret_keys: Vec<String>,
    key_qualifiers: WordSet,
    non_secret_tails: WordSet,
    non_secret_words: WordSet,
    non_secret_qualifiers: WordSet,
    phrase_heads: WordSet,
    stop_values: Vec<String>,
    placeholder_words: WordSet,
    min_password_length: usize,
    min_secret_length: usize,
    min_entropy: f64,
    /// Longest first, so that "ist jetzt" is tried before "ist".
    prose_connectors: Vec<String>,
    prose_copulas: Vec<String>,
    sentence_words: Vec<String>,
}

/// Nouns this long also count at the end of a glued word (`dbpassword`, `authtoken`); shorter
/// ones (`pass`, `pwd`, `auth`) only as whole words, so `bypass` and `compass` are no keys.
const GLUED_NOUN_MIN: usize = 6;

/// Words read back before the last word of a prompt (`Enter your new API key:`).
const MAX_PROMPT_WORDS: usize = 4;

/// Operators, longest first: Make's `:::=`, `::=`, `?=`, `+=`; Go's `:=`; PHP's `.=`;
/// Ruby/JS `||=`, `??=`; comparisons (`if token == "…"`); hashes `=>`; R's `<-`; YAML/JSON `:`.
const OPERATORS: &[&[u8]] = &[
    b":::=", b"::=", b"||=", b"??=", b"===", b":=", b"?=", b"+=", b".=", b"==", b"=>", b"<-", b"=",
    b":",
];

fn lower_all(words: &[String]) -> Vec<String> {
    words.iter().map(|w| w.to_ascii_lowercase()).collect()
}

/// Whether `needle` occurs in `haystack`. Values and keys are short: a plain scan beats
/// building a `memmem` searcher for each (which showed in profiles of code transcripts).
fn contains_bytes(haystack: &[u8], needle: &[u8]) -> bool {
    find_bytes(haystack, needle).is_some()
}

fn find_bytes(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if haystack.len() > SHORT_HAYSTACK {
        return memchr::memmem::find(haystack, needle);
    }
    let (&first, rest) = needle.split_first()?;
    let last_start = haystack.len().checked_sub(needle.len())?;
    (0..=last_start).find(|&at| haystack[at] == first && haystack[at + 1..].starts_with(rest))
}

/// Past this length a haystack is searched with `memmem`.
const SHORT_HAYSTACK: usize = 256;

/// A list of words (lower-cased) to look words up in: a key is looked up in lists of a
/// hundred words and more for every keyword occurrence, and a scan of them showed in profiles.
pub(crate) struct WordSet {
    set: std::collections::HashSet<String>,
}

impl WordSet {
    fn new(words: &[String]) -> WordSet {
        WordSet {
            set: lower_all(words).into_iter().collect(),
        }
    }

    fn has(&self, word: &str) -> bool {
        self.set.contains(word)
    }
}

fn is_key_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'-')
}

fn is_quote(byte: u8) -> bool {
    matches!(byte, b'"' | b'\'' | b'`')
}

fn is_blank(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t')
}

fn skip_blanks(line: &[u8], mut at: usize) -> usize {
    while at < line.len() && is_blank(line[at]) {
        at += 1;
    }
    at
}

impl Grammar {
    pub(crate) fn new(spec: &AssignmentSpec) -> Grammar {
        Grammar {
            password_words: lower_all(&spec.password_words),
            secret_words: lower_all(&spec.secret_words),
            secret_keys: lower_all(&spec.secret_keys),
            key_qualifiers: WordSet::new(&spec.key_qualifiers),
            non_secret_tails: WordSet::new(&spec.non_secret_tails),
            non_secret_words: WordSet::new(&spec.non_secret_words),
            non_secret_qualifiers: WordSet::new(&spec.non_secret_qualifiers),
            phrase_heads: WordSet::new(&spec.phrase_heads),
            stop_values: lower_all(&spec.stop_values),
            placeholder_words: WordSet::new(&spec.placeholder_words),
            min_password_length: spec.min_password_length,
            min_secret_length: spec.min_secret_length,
            min_entropy: spec.min_entropy,
            prose_connectors: {
                let mut connectors = lower_all(&spec.prose_connectors);
                connectors.sort_by_key(|c| std::cmp::Reverse(c.len()));
                connectors
            },
            prose_copulas: lower_all(&spec.prose_copulas),
            sentence_words: lower_all(&spec.sentence_words),
        }
    }

    /// The words that make a following `key` secret-like.
    #[cfg(test)]
    pub(crate) fn key_qualifiers(&self) -> impl Iterator<Item = &String> {
        self.key_qualifiers.set.iter()
    }

    /// Recognizes an assignment whose key holds the keyword found at `at` in `line` (one line
    /// without its line ending).
    pub(crate) fn recognize(&self, line: &[u8], at: usize) -> Option<Found> {
        let (mut start, mut end) = (at, at);
        while start > 0 && is_key_byte(line[start - 1]) {
            start -= 1;
        }
        while end < line.len() && is_key_byte(line[end]) {
            end += 1;
        }
        let dashes = line[start..end].iter().take_while(|&&b| b == b'-').count();
        // A sentence's full stop or a trailing dash is no part of the key.
        while end > start + dashes && matches!(line[end - 1], b'.' | b'-') {
            end -= 1;
        }
        let key = &line[start + dashes..end];
        // A secret word inside a prompt's phrase (`Enter a secret value:`): its last word
        // holds the operator, and the phrase is read back from there.
        if dashes == 0
            && let Some(head) = self.prompt_head_after(line, end)
        {
            return self.recognize(line, head);
        }
        if let Some(pending) = data_map(line, start, end) {
            return Some(Found::Pending(pending));
        }
        // A column of an SQL `INSERT INTO t (…, password, …) VALUES (…)`.
        if dashes == 0
            && let Some(column) = insert_column(line, start, end)
        {
            return self.insert_values(line, column, key);
        }
        let before = start.checked_sub(1).map(|i| line[i]);
        // `name: DB_PASSWORD` / `{"Name": "DB_PASSWORD", "Value": "…"}`: the key is the value
        // of a name field, and the secret is in the `value` field that goes with it.
        if dashes == 0 && names_an_entry(line, start) {
            return self.named_entry_value(line, start, end, key);
        }
        // A config directive (`requirepass …`, `auth_pass …`: the key starts the line, one
        // word follows it) and a Markdown table row (`| Password | `…` |`).
        if dashes == 0
            && let Some((value, plain)) = directive_value(line, start, end)
                .or_else(|| table_cell_value(line, start, end).map(|value| (value, true)))
        {
            let class = self.classify_key(key)?;
            let text = &line[value.clone()];
            // Else the row may be a table's header (`| name | token | expires |`), below.
            if !looks_like_code(text) && self.plausible(text, class, plain) {
                return Some(Found::Value(value));
            }
            table_header(line, start, end)?;
        }
        // The header of a table with a secret column: its rows below hold the values.
        if dashes == 0
            && let Some((column, separator)) = table_header(line, start, end)
        {
            return match self.classify_key(key)? {
                KeyClass::Weak => None,
                class => Some(Found::Pending(Pending::TableColumn {
                    column,
                    separator,
                    class,
                    // A CLI's aligned table draws no rule under its header.
                    ruled: separator == ALIGNED,
                    rows_left: TABLE_ROWS_REACH,
                })),
            };
        }
        // Most keyword occurrences are no assignment (`next_token(`, `Option<Token>`): look
        // at what follows the key before classifying it.
        if dashes == 0 && before != Some(b'<') && !operator_may_follow(line, end) {
            return None;
        }
        // An element's name ends at `>` (else a type: `Option<Token>`).
        if before == Some(b'<') && line.get(end) != Some(&b'>') {
            return None;
        }
        // A value and no closing tag is text after a generic type (`Option<Token> { … }`), no
        // element (below), whatever the key: seen before the key is classified, which cost
        // more than the rest on such lines of code.
        if dashes == 0 && before == Some(b'<') {
            let value_start = skip_blanks(line, end + 1);
            if memchr::memmem::find(&line[value_start..], b"</").is_none()
                && !trim_end(line, value_start, line.len()).is_empty()
            {
                return None;
            }
        }
        // Classified once: a key classified again for the fallback was a tenth of a code
        // transcript's time (`"max_tokens": 4096` reaches here on every such line).
        let key_class = self.classify_key(key);
        let class = match key_class.or_else(|| self.classify_cookie_id(line, start, key)) {
            Some(KeyClass::Weak) | None if dashes == 0 => self
                .classify_prompt_phrase(line, start, end)
                .or(key_class)?,
            class => class?,
        };
        let mut pos = end;

        // Command-line flags: `--password=…`, `--password …`, and with one dash Go's
        // `-password …` and Java's and Gradle's properties (`-Ddb.password=…`,
        // `-PsigningPassword=…`).
        if dashes >= 1 {
            if before.is_some_and(|b| !is_blank(b) && !is_quote(b)) {
                return None;
            }
            let value_at = match line.get(pos) {
                Some(b'=') => pos + 1,
                Some(b' ' | b'\t') => skip_blanks(line, pos),
                // An argument list (JSON, YAML, Docker's exec form): `"--password", "…"`.
                Some(&quote) if before == Some(quote) => {
                    let comma = skip_blanks(line, pos + 1);
                    let value_at = skip_blanks(line, comma + 1);
                    if line.get(comma) != Some(&b',')
                        || line.get(value_at).is_none_or(|&b| b != quote)
                    {
                        return None;
                    }
                    return self.value_at(line, value_at, class, true, ValueEnds::Anywhere, None);
                }
                _ => return None,
            };
            // One dash before a blank and a `kind:…` value is a tool's own syntax (openssl's
            // `-pass pass:…`, jenkins-cli's `-auth user:…`), which its own rules read.
            if dashes == 1
                && line.get(pos) != Some(&b'=')
                && line[value_at..]
                    .iter()
                    .take_while(|&&b| !is_blank(b))
                    .any(|&b| b == b':')
            {
                return None;
            }
            // After a blank a `-` starts the next option; after `=` it is the value's.
            if line
                .get(value_at)
                .is_none_or(|&b| b == b'-' && value_at > pos + 1)
            {
                return None;
            }
            // A quote before the option opened the string the value ends with
            // (`["--db-password=…"]`).
            let opened_by = before.filter(|&b| is_quote(b));
            return self.value_at(line, value_at, class, false, ValueEnds::Anywhere, opened_by);
        }

        // XML element: `<password>…</password>`, the value possibly on the next line.
        if before == Some(b'<') {
            if line.get(pos) != Some(&b'>') {
                return None;
            }
            let value_start = skip_blanks(line, pos + 1);
            let closing = memchr::memmem::find(&line[value_start..], b"</");
            let value_end = closing.map_or(line.len(), |i| value_start + i);
            let value = trim_end(line, value_start, value_end);
            if value.is_empty() {
                return (value_end == line.len())
                    .then_some(Found::Pending(Pending::Element(class)));
            }
            // A value and no closing tag is text after a generic type (`Option<Token> { … }`).
            closing?;
            return self
                .plausible(&line[value.clone()], class, true)
                .then_some(Found::Value(value));
        }

        // A quoted key: `"password": …`, `['token']`, `setProperty("API_TOKEN", …)`, and the
        // escaped form inside a JSON string (`\"token\": \"…\"`).
        // A key right after a quote that does not close it opens a string value instead:
        // `"KEY=value\n…"`, `putenv("KEY=value")`.
        let mut quoted_key = false;
        if let Some(quote) = before.filter(|&b| is_quote(b)) {
            let escaped = start >= 2 && line[start - 2] == b'\\';
            let close = pos + usize::from(escaped && line.get(pos) == Some(&b'\\'));
            if line.get(close) == Some(&quote) {
                pos = close + 1;
                quoted_key = true;
                let opener = start.checked_sub(2 + usize::from(escaped)).map(|i| line[i]);
                if opener == Some(b'[') {
                    if line.get(pos) != Some(&b']') {
                        return None;
                    }
                    pos += 1;
                }
            }
        } else if before == Some(b'[') && line.get(pos) == Some(&b']') {
            pos += 1;
        } else if let Some(size_end) = array_size(line, pos) {
            // A C array: `char pass[] = "…"`, `char token[64] = "…"`.
            pos = size_end;
        }

        // The quote before an unquoted key opened a string the value may run to the end of;
        // so did a quote still open further back (`-H "Cookie: _app_session=…"`).
        // (Only looked for in a line's first KiBs: a minified line would make it quadratic.)
        let opened_by = before.filter(|&b| is_quote(b) && !quoted_key).or_else(|| {
            (!quoted_key && start <= OPEN_QUOTE_REACH)
                .then(|| open_quote(&line[..start]))
                .flatten()
        });
        let after_key = skip_blanks(line, pos);
        let blank_before_operator = after_key > pos;
        pos = after_key;

        // A type between key and `=`: Go `var token string = …`, Rust/TS/Kotlin/Python
        // `token: &str = …`.
        if let Some(equals) = typed_assignment(line, pos, blank_before_operator) {
            return self.value_at(
                line,
                skip_blanks(line, equals + 1),
                class,
                false,
                ValueEnds::Anywhere,
                opened_by,
            );
        }
        // Two strings side by side: a command's key and value arguments (`dotnet user-secrets
        // set "DbPassword" "…"`, `fly secrets set`-style wrappers, Tcl/nginx `set "KEY" "…"`).
        if quoted_key
            && blank_before_operator
            && line.get(pos).copied().is_some_and(is_quote)
            && !line[..start].contains(&b'=')
        {
            return self.value_at(line, pos, class, true, ValueEnds::Anywhere, None);
        }
        // A Terraform/HCL block labelled by the key: `variable "db_password" {`, its `default`
        // on this line or the next ones.
        if quoted_key && line.get(pos) == Some(&b'{') && labels_a_block(line, start) {
            let inside = pos + 1;
            if line[inside..].iter().all(|&b| is_blank(b) || b == b'\r') {
                return Some(value_field_below(line, class, ValueField::Default));
            }
            let field = find_value_field(line, inside, ValueField::Default)?;
            return self.field_value(line, field, class);
        }
        // An attribute pair: `<add key="ClearTextPassword" value="…" />`.
        if quoted_key && blank_before_operator && line[pos..].starts_with(b"value") {
            let equals = skip_blanks(line, pos + b"value".len());
            if line.get(equals) == Some(&b'=') {
                let value_at = skip_blanks(line, equals + 1);
                return self.value_at(line, value_at, class, true, ValueEnds::Anywhere, None);
            }
            return None;
        }
        // An element its `key` attribute names: `<entry key="password">…</entry>`.
        if quoted_key
            && line[..start.saturating_sub(1)].ends_with(b"key=")
            && let Some(value) = element_text(line, pos)
        {
            return self
                .plausible(&line[value.clone()], class, true)
                .then_some(Found::Value(value));
        }
        if quoted_key && line.get(pos) == Some(&b',') {
            // A call: `System.setProperty("KEY", "…")`, `define('AUTH_KEY', '…')`. Its value is
            // a string: anything else is an expression (`PasswordField("Password",
            // validators=[…])`, `setProperty("KEY", value)`).
            if !starts_string(line, skip_blanks(line, pos + 1)) {
                return None;
            }
            return self.value_at(
                line,
                skip_blanks(line, pos + 1),
                class,
                true,
                ValueEnds::Anywhere,
                None,
            );
        }
        if !quoted_key && line.get(pos) == Some(&b'(') {
            return self.call_argument(line, start, pos, key, class);
        }
        // The default of a reference: `${DB_PASSWORD:-…}` (shell), `${db.password:…}` (Spring),
        // to its closing brace.
        if line[..start].ends_with(b"${") {
            let default_at = [&b":-"[..], b":=", b"-", b"=", b":"]
                .iter()
                .find(|op| line[pos..].starts_with(op))
                .map(|op| pos + op.len())?;
            let close = default_at + memchr::memchr(b'}', &line[default_at..])?;
            let value = trim_end(line, default_at, close);
            let text = &line[value.clone()];
            return (!text.is_empty()
                && !looks_like_code(text)
                && self.plausible(text, class, true))
            .then_some(Found::Value(value));
        }
        // The default of a secret read by its name: Ruby's `ENV.fetch("DB_PASSWORD") { "…" }`,
        // Rust's `env::var("DB_PASSWORD").unwrap_or("…".into())`.
        if quoted_key && line.get(pos) == Some(&b')') {
            let value_at = default_after_lookup(line, pos + 1)?;
            if !starts_string(line, value_at) {
                return None;
            }
            return self.value_at(line, value_at, class, true, ValueEnds::Anywhere, None);
        }
        // A fallback after a secret read from the environment: `process.env.API_KEY || "…"`,
        // `?? "…"`.
        if (line[pos..].starts_with(b"||") || line[pos..].starts_with(b"??"))
            && line.get(pos + 2) != Some(&b'=')
        {
            let value_at = skip_blanks(line, pos + 2);
            if !starts_string(line, value_at) {
                return None;
            }
            return self.value_at(line, value_at, class, true, ValueEnds::Anywhere, None);
        }
        let operator = OPERATORS.iter().find(|op| line[pos..].starts_with(op))?;
        let operator_end = pos + operator.len();
        if *operator == b":" {
            // `a::b` is a path, not a key and a value.
            if line.get(operator_end) == Some(&b':') {
                return None;
            }
            // YAML needs a blank after the colon; JSON and JS keys are quoted or get quoted
            // values, so `io.jsonwebtoken:jjwt` (Maven coordinates) is no assignment.
            let next = line.get(operator_end).copied();
            let blank_after = next.is_none_or(is_blank);
            let quoted_value = next.is_some_and(is_quote);
            if !quoted_key && !blank_after && !quoted_value {
                return None;
            }
        }
        // Ruby's and Perl's match `token =~ /…/`, and comparisons, stand between blanks; glued
        // to the key they are an `=` and the value's first characters (`PASSWORD==xF=&~W`).
        let spaced =
            is_blank(line[pos - 1]) || line.get(operator_end).copied().is_some_and(is_blank);
        let (operator, operator_end): (&[u8], usize) =
            if matches!(*operator, b"==" | b"===") && !spaced {
                (b"=", pos + 1)
            } else {
                (operator, operator_end)
            };
        if operator == b"=" && line.get(operator_end) == Some(&b'~') && spaced {
            return None;
        }
        let value_at = skip_blanks(line, operator_end);
        // A comparison with a literal (`if token == "…"`) shows the secret; one with a name
        // (`if password == confirm_password:`) is code.
        if matches!(operator, b"==" | b"===") && !starts_string(line, value_at) {
            return None;
        }
        // In a query string (`?token=…&next=…`) the value ends at the next `&`.
        let in_query = matches!(before, Some(b'?' | b'&'));
        let ends = if in_query {
            ValueEnds::Query
        } else {
            ValueEnds::Anywhere
        };
        let config_line = is_config_line(line, start);
        // `"db_password": {` ending the line, or `{ "sensitive": true, "value": "…" }`.
        if line.get(value_at) == Some(&b'{') && operator != b"=>" {
            let inside = value_at + 1;
            if line[inside..].iter().all(|&b| is_blank(b) || b == b'\r') {
                return Some(value_field_below(line, class, ValueField::Value));
            }
            // `{ "sensitive": true, "value": "…" }`; without a `value` field the `{` is the
            // first character of the value (`password={Qr>D-]C7`).
            if let Some(field) = find_value_field(line, inside, ValueField::Value) {
                return self.field_value(line, field, class);
            }
        }
        if operator == b":" && line[value_at..].iter().all(|&b| is_blank(b) || b == b'\r') {
            return Some(Found::Pending(Pending::NextLine(class)));
        }
        if (operator == b":" || operator == b"=")
            && let Some(indent) = block_scalar(line, value_at)
        {
            return Some(Found::Pending(Pending::BlockScalar {
                indent,
                redacted: false,
            }));
        }
        self.value_at(line, value_at, class, config_line, ends, opened_by)
    }

    /// The string argument of a call named by the key at `start` whose `(` is at `open`: a
    /// setter or a builder's method (`setPassword("…")`, `.with_token("…")`, `.password("…")`)
    /// takes the value as its one argument; a call of user and password
    /// (`SetBasicAuth("admin", "…")`, `basic_auth("admin", Some("…"))`,
    /// `UsernamePasswordCredentials("admin", "…")`) as its last, after other strings. Getters,
    /// checks and hashes (`get_password("svc")`, `verify_token("…")`) name no value of theirs.
    fn call_argument(
        &self,
        line: &[u8],
        start: usize,
        open: usize,
        key: &[u8],
        class: KeyClass,
    ) -> Option<Found> {
        // The method's own name, after its receiver (`ds.setPassword`).
        let name = key.rsplit(|&b| b == b'.').next().unwrap_or(key);
        let words = split_words(name);
        let first = words.first()?.as_str();
        let setter = matches!(first, "set" | "with" | "use");
        let on_receiver = name.len() < key.len() || (start > 0 && line[start - 1] == b'.');
        // A builder's method is named by the field it sets (`.password("…")`,
        // `.apiKey("…")`); one whose name starts with a verb does something else with the
        // string (`.getApiKey("stripe")`, `.hasToken("id")`).
        let builder_method = on_receiver && (words.len() == 1 || !is_verb_of_lookup(first));
        let of_credentials = words
            .iter()
            .any(|word| matches!(word.as_str(), "auth" | "credential" | "credentials"))
            || class == KeyClass::Password;
        let mut at = skip_blanks(line, open + 1);
        let mut strings = 0;
        loop {
            let argument = wrapped_string(line, at).unwrap_or(at);
            if !starts_string(line, argument) {
                return None;
            }
            let (_, after) = quoted_value(line, argument, false);
            // A wrapper's own `)` (`Some("…")`) before the next argument or the call's end.
            let mut next = skip_blanks(line, after);
            if argument > at && line.get(next) == Some(&b')') {
                next = skip_blanks(line, next + 1);
            }
            strings += 1;
            match line.get(next) {
                Some(b',') => at = skip_blanks(line, next + 1),
                Some(b')') => {
                    let takes_it = if strings == 1 {
                        setter || builder_method
                    } else {
                        (setter || of_credentials) && strings <= 3 && !matches!(first, "get")
                    };
                    return if takes_it {
                        self.value_at(line, at, class, true, ValueEnds::Anywhere, None)
                    } else {
                        None
                    };
                }
                _ => return None,
            }
        }
    }

    /// The values of the column at `column` (its index, and where the column list ends) in
    /// the rows of the `VALUES` after it, kept where plausible as secrets of the key's class:
    /// quoted strings only (a number, `NULL`, `NOW()`, a `?` or `$1` parameter is no secret).
    fn insert_values(&self, line: &[u8], column: InsertColumn, key: &[u8]) -> Option<Found> {
        let class = self.classify_key(key)?;
        let mut at = skip_sql_blanks(line, column.list_end + 1);
        if !line
            .get(at..at + 6)
            .is_some_and(|word| word.eq_ignore_ascii_case(b"values"))
        {
            return None;
        }
        at = skip_sql_blanks(line, at + 6);
        let mut values = Vec::new();
        while line.get(at) == Some(&b'(') {
            let mut index = 0;
            at += 1;
            loop {
                at = skip_sql_blanks(line, at);
                let (value, quoted, after) = sql_value(line, at)?;
                if index == column.index
                    && quoted
                    && self.plausible(&line[value.clone()], class, true)
                {
                    values.push(value);
                }
                index += 1;
                at = skip_sql_blanks(line, after);
                match line.get(at) {
                    Some(b',') => at += 1,
                    Some(b')') => break,
                    _ => return (!values.is_empty()).then_some(Found::Values(values)),
                }
            }
            at = skip_sql_blanks(line, at + 1);
            if line.get(at) != Some(&b',') {
                break;
            }
            at = skip_sql_blanks(line, at + 1);
        }
        (!values.is_empty()).then_some(Found::Values(values))
    }

    /// Reads the value starting at `at` and keeps it when plausible.
    #[allow(clippy::too_many_arguments)]
    fn value_at(
        &self,
        line: &[u8],
        mut at: usize,
        class: KeyClass,
        config_line: bool,
        ends: ValueEnds,
        opened_by: Option<u8>,
    ) -> Option<Found> {
        // A string inside a wrapper: `String::from("…")`, `SecretStr("…")`, `Some("…")`.
        if let Some(inner) = wrapped_string(line, at) {
            at = inner;
        }
        // String prefixes: Python `b"…"`/`r"…"`/`f"…"`, C# `@"…"`/`$"…"`.
        if line.get(at).is_some_and(|b| b"bBrRfFuU@$".contains(b))
            && line.get(at + 1).copied().is_some_and(is_quote)
        {
            at += 1;
        }
        let escaped_quote =
            line.get(at) == Some(&b'\\') && line.get(at + 1).copied().is_some_and(is_quote);
        if escaped_quote {
            at += 1;
        }
        let first = *line.get(at)?;
        if is_quote(first) {
            let (inner, after) = quoted_value(line, at, escaped_quote);
            let mut value = trim_end(line, inner.start, inner.end);
            if !escaped_quote {
                value.end = shell_word_end(line, value.end, after);
            }
            return self
                .plausible(&line[value.clone()], class, true)
                .then_some(Found::Value(value));
        }
        let (mut value, mut stop) = unquoted_value(line, at, ends, opened_by.is_some());
        // A password with blanks in it on a config line (`password: kCbekA Nd0f0Rpz`): the
        // words after the first are its own when they look typed at random, not prose.
        if class == KeyClass::Password
            && stop.is_some_and(is_blank)
            && let Some(end) = random_words_after(line, value.end)
            && !self.is_sentence(&line[value.start..end])
        {
            value.end = end;
            stop = line.get(end).copied();
        } else if class == KeyClass::Password
            && stop.is_some_and(is_blank)
            && let Some(end) = self.passphrase_to_line_end(line, value.start)
        {
            // A passphrase of small words as the rest of a config line
            // (`app_password: xmvq plst hbrk qwoz`, `password: correct horse battery staple`).
            value.end = end;
            stop = line.get(end).copied();
        }
        // A connection string (`Server=db;User ID=app;Password=…;Encrypt=True`): the value
        // ends where the next `Key=` pair begins, and the string's quote may close it.
        let in_pairs =
            at >= 2 && line[..at].contains(&b';') || next_pair(&line[value.clone()]).is_some();
        if let Some(cut) = next_pair(&line[value.clone()]) {
            value.end = value.start + cut;
            stop = Some(b';');
        }
        // ODBC and ADO.NET quote a value holding `;` or `=` in braces (`Password={…};`): the
        // braces are no template there, the text inside is the password.
        if in_pairs && value.len() > 2 && line[value.start] == b'{' && line[value.end - 1] == b'}' {
            value = value.start + 1..value.end - 1;
        }
        // Text running into a string that it did not open is an expression:
        // `os.environ["X"]`, `getenv("X")` (but `putenv("KEY=value")` closes its own).
        if value.is_empty()
            || stop.is_some_and(|b| is_quote(b) && Some(b) != opened_by && !in_pairs)
        {
            return None;
        }
        let value_text = &line[value.clone()];
        let plain_allowed = config_line && value.end >= trim_end(line, at, line.len()).end;
        if looks_like_code(value_text) {
            return None;
        }
        (self.plausible(value_text, class, plain_allowed)).then_some(Found::Value(value))
    }

    /// The value of the entry whose name field holds the secret-like `key` (at `start..end`
    /// in `line`): on this line after a comma (`"Name": "DB_PASSWORD", "Value": "…"`,
    /// `ParameterKey=DbPassword,ParameterValue=…`), or on the lines below.
    fn named_entry_value(
        &self,
        line: &[u8],
        start: usize,
        end: usize,
        key: &[u8],
    ) -> Option<Found> {
        let class = self.classify_key(key)?;
        let mut pos = end;
        if line.get(pos).copied().is_some_and(is_quote) {
            pos += 1;
        }
        pos = skip_blanks(line, pos);
        // The name ends the line from `from` on: its value field is on the lines below.
        let value_field_below = |from: usize| {
            line[from..]
                .iter()
                .all(|&b| is_blank(b) || b == b'\r')
                .then(|| {
                    Found::Pending(Pending::ValueField {
                        min_indent: indentation(line[..start].trim_ascii_end()),
                        class,
                        lines_left: VALUE_FIELD_REACH,
                        field: ValueField::Value,
                    })
                })
        };
        if line.get(pos) == Some(&b',') {
            // `"name": "db-password",` ending the line: the `value` field is below (Azure Key
            // Vault's and SSM's JSON).
            let Some(field) = find_value_field(line, pos + 1, ValueField::Value) else {
                return value_field_below(pos + 1);
            };
            return self.field_value(line, field, class);
        }
        // XML: `<property name="db.password" value="…"/>`, `<property name="password">…<`.
        if let Some(field) = find_value_field(line, pos, ValueField::Value)
            .filter(|&end| end == pos + b"value".len())
        {
            return self.field_value(line, field, class);
        }
        if let Some(value) = element_text(line, pos) {
            return self
                .plausible(&line[value.clone()], class, true)
                .then_some(Found::Value(value));
        }
        value_field_below(pos)
    }

    /// The value after a `value` field name that ends at `at` (its closing quote, if any,
    /// not yet passed): `value: …`, `"value": "…"`, `Value=…`.
    pub(crate) fn field_value(&self, line: &[u8], at: usize, class: KeyClass) -> Option<Found> {
        let mut pos = at;
        if line.get(pos).copied().is_some_and(is_quote) {
            pos += 1;
        }
        pos = skip_blanks(line, pos);
        if !matches!(line.get(pos), Some(b':' | b'=')) {
            return None;
        }
        let value_at = skip_blanks(line, pos + 1);
        self.value_at(line, value_at, class, true, ValueEnds::Anywhere, None)
    }

    /// An `echo` at the start of a command that prints several variables, one named as a
    /// secret, the same separator between each two (`$ echo "$DB_USER / $DB_PASS"`, `source
    /// .env; echo $USER:$PASSWORD`): what its output line holds ([`Pending::EchoFields`]).
    pub(crate) fn echo_fields(&self, line: &[u8]) -> Option<Pending> {
        let at = memchr::memmem::find(line, b"echo ")?;
        let before = line[..at].trim_ascii_end();
        let in_call = before.ends_with(b"Bash(");
        // After a prompt, or after another command of the same line (`source .env; echo …`).
        let after_prompt = before.is_empty()
            || before.ends_with(b"Ran terminal command:")
            || in_call
            || before.ends_with(b"&&")
            || (matches!(before.last(), Some(b'$' | b'#' | b'%' | b'>' | b';'))
                && at > before.len());
        if !after_prompt {
            return None;
        }
        let mut args = line[at + 5..].trim_ascii();
        if in_call {
            args = args.strip_suffix(b")")?;
        }
        if let [b'"', inner @ .., b'"'] = args {
            args = inner;
        }
        let mut names = Vec::new();
        let mut separator = None;
        let mut rest = args;
        loop {
            rest = rest.strip_prefix(b"$")?;
            let braced = rest.first() == Some(&b'{');
            let name_start = usize::from(braced);
            let name_len = rest[name_start..]
                .iter()
                .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
                .count();
            if name_len == 0 {
                return None;
            }
            names.push(&rest[name_start..name_start + name_len]);
            rest = &rest[name_start + name_len..];
            if braced {
                rest = rest.strip_prefix(b"}")?;
            }
            if rest.is_empty() {
                break;
            }
            let next = memchr::memchr(b'$', rest)?;
            let between = rest[..next].trim_ascii();
            let this = match between {
                [] if next > 0 => b' ',
                [byte] if byte.is_ascii_punctuation() && !b"\"'`$".contains(byte) => *byte,
                _ => return None,
            };
            if separator.is_some_and(|seen| seen != this) {
                return None;
            }
            separator = Some(this);
            rest = &rest[next..];
        }
        if names.len() < 2 || names.len() > usize::from(u8::MAX) {
            return None;
        }
        let (column, class) =
            names
                .iter()
                .enumerate()
                .find_map(|(column, name)| match self.classify_key(name) {
                    Some(class @ (KeyClass::Password | KeyClass::Secret)) => Some((column, class)),
                    _ => None,
                })?;
        Some(Pending::EchoFields {
            fields: names.len() as u8,
            column: column as u8,
            separator: separator?,
            class,
        })
    }

    /// Whether `key` (without quotes or dashes) names a secret, and which kind.
    pub(crate) fn classify_key(&self, key: &[u8]) -> Option<KeyClass> {
        // A short key's words are read where they lie, lower-cased on the stack: a string
        // allocated for each (`split_words`) was half the cost of classifying, and most
        // keyword occurrences in code are classified (`"max_tokens": 4096`).
        if key.len() <= SHORT_KEY {
            let mut lower = [0u8; SHORT_KEY];
            let lower = &mut lower[..key.len()];
            lower.copy_from_slice(key);
            lower.make_ascii_lowercase();
            let lower: &[u8] = lower;
            let mut words = [""; SHORT_KEY_WORDS];
            let mut count = 0;
            let mut all_read = true;
            for_each_word(key, |range| match words.get_mut(count) {
                Some(word) => {
                    // ASCII letters and digits only: always UTF-8.
                    *word = std::str::from_utf8(&lower[range]).unwrap_or_default();
                    count += 1;
                }
                None => all_read = false,
            });
            if all_read {
                return self.classify_words(key, &words[..count]);
            }
        }
        let owned = split_words(key);
        let words: Vec<&str> = owned.iter().map(String::as_str).collect();
        self.classify_words(key, &words)
    }

    /// [`Grammar::classify_key`] given the key's words.
    fn classify_words(&self, key: &[u8], mut words: &[&str]) -> Option<KeyClass> {
        // A version or index ends no name: `PuTTY-User-Key-File-3` ends in `file`.
        while words.len() > 1
            && words
                .last()
                .is_some_and(|w| w.bytes().all(|b| b.is_ascii_digit()))
        {
            words = &words[..words.len() - 1];
        }
        let last = *words.last()?;
        let before_last = words.len().checked_sub(2).map(|i| words[i]);
        // A documented key is one whatever its words say (`ASP.NET_SessionId` ends in `id`).
        if self
            .secret_keys
            .iter()
            .any(|k| k.as_bytes().eq_ignore_ascii_case(key))
        {
            // redis.conf's `requirepass` is a password, judged as one (a documented key may
            // glue a short password word: `pass`, kickstart's `rootpw`).
            let names_a_password = words.iter().any(|w| {
                self.password_words
                    .iter()
                    .any(|noun| w.ends_with(noun.as_str()))
            });
            return Some(if names_a_password {
                KeyClass::Password
            } else {
                KeyClass::Secret
            });
        }
        if before_last.is_some_and(|before| self.non_secret_qualifiers.has(before))
            || self.non_secret_tails.has(last)
            || words.iter().any(|word| self.non_secret_words.has(word))
        {
            return None;
        }
        let mut class = None;
        for (index, &word) in words.iter().enumerate() {
            // A short password word glued to what it is for (`dbpass`, `rootpwd`, keytool's
            // `storepass`): the qualifier says it is no other word (`bypass`, `compass`).
            let glued_password = self.password_words.iter().any(|noun| {
                word.len() > noun.len()
                    && word.ends_with(noun.as_str())
                    && self.key_qualifiers.has(&word[..word.len() - noun.len()])
            });
            if noun_in(word, &self.password_words) || glued_password {
                return Some(KeyClass::Password);
            }
            let qualified_key =
                word == "key" && index > 0 && self.key_qualifiers.has(words[index - 1]);
            let glued_key = word.len() > 3
                && word.ends_with("key")
                && self.key_qualifiers.has(&word[..word.len() - 3]);
            if noun_in(word, &self.secret_words) || qualified_key || glued_key {
                class = Some(KeyClass::Secret);
            }
        }
        if class.is_none() && (last == "key" || last == "keys") {
            return Some(KeyClass::Weak);
        }
        class
    }

    /// A key written as words before `:` (a prompt echoed with what was typed, a label):
    /// `Enter the API key:`, `? Enter a secret value:`. Its last word alone (`key`, `value`)
    /// says too little; the phrase, read back over single blanks, says what it names.
    fn classify_prompt_phrase(&self, line: &[u8], start: usize, end: usize) -> Option<KeyClass> {
        // The colon first: most keys have none, and the head need not be copied.
        if line.get(end) != Some(&b':')
            || !self
                .phrase_heads
                .has(&String::from_utf8_lossy(&line[start..end]).to_ascii_lowercase())
        {
            return None;
        }
        let mut phrase_start = start;
        for _ in 0..MAX_PROMPT_WORDS {
            let word_end = match phrase_start.checked_sub(1) {
                Some(blank) if line[blank] == b' ' => blank,
                _ => break,
            };
            let word_start = line[..word_end]
                .iter()
                .rposition(|b| !b.is_ascii_alphabetic())
                .map_or(0, |i| i + 1);
            if word_start == word_end {
                break;
            }
            phrase_start = word_start;
        }
        match self.classify_key(&line[phrase_start..end])? {
            KeyClass::Weak => None,
            class => Some(class),
        }
    }

    /// Where the last word of a prompt starts when the key ending at `end` is one of its
    /// words: single blanks and words follow, up to a phrase head right before `:`.
    fn prompt_head_after(&self, line: &[u8], end: usize) -> Option<usize> {
        let mut at = end;
        for _ in 0..MAX_PROMPT_WORDS {
            if line.get(at) != Some(&b' ') {
                return None;
            }
            let word_start = at + 1;
            let word_end = word_start
                + line[word_start..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphabetic())
                    .count();
            if word_end == word_start {
                return None;
            }
            let word = String::from_utf8_lossy(&line[word_start..word_end]).to_ascii_lowercase();
            if line.get(word_end) == Some(&b':') {
                return self.phrase_heads.has(&word).then_some(word_start);
            }
            at = word_end;
        }
        None
    }

    /// A cookie's `…_id` named by a secret word (`session_id`, `auth_id`) is the session
    /// itself: in a `Cookie:` header, `Set-Cookie:`, `document.cookie`, curl's `--cookie` /
    /// `-b`, though elsewhere a session id names a session (a hook payload's `session_id`).
    fn classify_cookie_id(&self, line: &[u8], start: usize, key: &[u8]) -> Option<KeyClass> {
        // The key first: most keys reaching here end in no `id`, and the line need not be read.
        let stem = key
            .strip_suffix(b"_id")
            .or_else(|| key.strip_suffix(b"_ID"))
            .or_else(|| key.strip_suffix(b"Id"))
            .filter(|stem| !stem.is_empty())?;
        let before = &line[..start];
        let in_cookie = before
            .windows(b"cookie".len())
            .any(|window| window.eq_ignore_ascii_case(b"cookie"))
            || contains_bytes(before, b" -b ");
        in_cookie.then(|| self.classify_key(stem))?
    }

    /// Whether a value is plausible as a secret. `plain` says a value of letters alone may be
    /// one (a quoted string or the rest of a config line, not an identifier in code).
    pub(crate) fn plausible(&self, value: &[u8], class: KeyClass, plain: bool) -> bool {
        let length = value.len();
        let minimum = match class {
            KeyClass::Password => self.min_password_length,
            KeyClass::Secret => self.min_secret_length,
            KeyClass::Weak => WEAK_KEY_MIN_LENGTH,
        };
        if length < minimum || is_masked_or_templated(value) || has_alphabet_run(value) {
            return false;
        }
        if is_rule_list(value) || is_prose_of_another_script(value) {
            return false;
        }
        // A value SOPS encrypted (`ENC[AES256_GCM,data:…,type:str]`) is ciphertext.
        if value.starts_with(b"ENC[") && value.ends_with(b"]") {
            return false;
        }
        // Vendor documentation keys end in `EXAMPLE` (`AKIAIOSFODNN7EXAMPLE`).
        if value.ends_with(b"EXAMPLE") || value.ends_with(b"EXAMPLEKEY") {
            return false;
        }
        if value.iter().any(|&b| is_blank(b)) && !self.plausible_with_blanks(value, class) {
            return false;
        }
        let lower = value.to_ascii_lowercase();
        if self
            .stop_values
            .iter()
            .any(|stop| stop.as_bytes() == lower.as_slice())
        {
            return false;
        }
        let words = split_words(value);
        if !words.is_empty() && words.iter().all(|word| self.placeholder_words.has(word)) {
            return false;
        }
        // Numbers, versions, times; a long run of varied digits is an id or secret (numeric
        // client secrets exist).
        let is_long_number = value.iter().all(u8::is_ascii_digit)
            && length >= 12
            && (b'0'..=b'9').filter(|d| value.contains(d)).count() >= 6;
        if (value
            .iter()
            .all(|b| b.is_ascii_digit() || b".:_-+".contains(b))
            && !is_long_number)
            || is_path(value)
            || contains_bytes(value, b"://")
        {
            return false;
        }
        if value
            .iter()
            .all(|b| b.is_ascii_alphabetic() || b"_-.".contains(b))
            && is_identifier_shaped(value)
            && !(class == KeyClass::Password && is_passphrase(value))
        {
            return false;
        }
        // Words of a language: a label or its translation in a locale file (`"password":
        // "Kennwort"`, `"Contraseña"`, `"Reset your password"`), not a password.
        if is_label(value) && !self.could_be_a_password_word(value) {
            return false;
        }
        let classes = CharClasses::of(value);
        // One word of letters: a password in a string or config line, else a name.
        if classes.only_letters() && classes.count() == 1 {
            return class == KeyClass::Password && plain && length >= 8;
        }
        match class {
            // A value naming a secret (`DbPassword,ParameterValue=…`) is no secret itself.
            // WordPress's `LOGGED_IN_KEY` holds a salt of every printable character, blanks
            // among them.
            KeyClass::Weak => {
                (is_unmistakably_random(value) || is_generated_with_blanks(value))
                    && !words.iter().any(|word| {
                        self.password_words.contains(word) || self.secret_words.contains(word)
                    })
            }
            KeyClass::Password => classes.count() >= 2 || length >= 8,
            KeyClass::Secret if is_long_number => true,
            // Mostly words (`clm00427:AgencyIdentificationCodeContentType`): a name.
            KeyClass::Secret if is_wordy(value) => false,
            KeyClass::Secret => {
                super::shannon_entropy(value) >= self.min_entropy
                    && (classes.count() >= 2 || length >= 20)
            }
        }
    }
}

impl Grammar {
    /// Whether `value` only restates its `key` (`data-name1: data-value1`, `password:
    /// db-password`, `key1: value1`): it repeats a word of the key, and every word of it is a
    /// word of the key or a placeholder word, as in documentation and templates. A real secret
    /// holds some word or run of characters of its own.
    pub(crate) fn restates_key(&self, key: &[u8], value: &[u8]) -> bool {
        let key_words = split_words(key);
        let value_words = split_words(value);
        // Only a value of words and separators: any other byte is a character of its own.
        let only_words = value
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"-_. ".contains(&b));
        only_words
            && value_words.iter().any(|word| key_words.contains(word))
            && value_words
                .iter()
                .all(|word| key_words.contains(word) || self.placeholder_words.has(word))
    }
}

/// The value of a config directive: the key at `start..end` starts the line (after its
/// indentation, or a Dockerfile's `ENV`), blanks follow, then one word that ends the line
/// (`requirepass …`, `auth_pass …`, `ENV DB_PASSWORD …`), perhaps behind options (kickstart's
/// `rootpw --plaintext …`). A word starting with an operator is an assignment's.
/// Also says whether the value is plain data (after `ENV` or a setting command), where a word of
/// letters may be a password.
fn directive_value(line: &[u8], start: usize, end: usize) -> Option<(Range<usize>, bool)> {
    let lead = &line[indentation(line).min(start)..start];
    let dockerfile_env = lead.len() > 3
        && lead[..3].eq_ignore_ascii_case(b"env")
        && lead[3..].iter().all(|&b| is_blank(b));
    // A command that sets a key to a value: `aws configure set aws_secret_access_key …`,
    // `CONFIG SET requirepass …`, `git config --global github.token …`, csh's `setenv`, fish's
    // `set -gx`, Apache's `SetEnv`, nginx's `fastcgi_param`, C's `#define`. The setter's own
    // options (`-gx`, `--global`) may stand between it and the key.
    let setter = lead
        .last()
        .copied()
        .is_some_and(is_blank)
        .then(|| {
            lead.trim_ascii_end()
                .rsplit(|&b| is_blank(b))
                .find(|word| !word.is_empty() && !word.starts_with(b"-"))
        })
        .flatten()
        .filter(|word| {
            SETTING_COMMAND_WORDS
                .iter()
                .any(|setter| word.eq_ignore_ascii_case(setter))
        });
    let sets_a_key = setter.is_some();
    // nginx ends its directives with `;`, which is no part of the value.
    let ends_with_semicolon = setter.is_some_and(|word| word.ends_with(b"_param"));
    if !(lead.is_empty() || dockerfile_env || sets_a_key)
        || !line.get(end).copied().is_some_and(is_blank)
    {
        return None;
    }
    let mut value_start = skip_blanks(line, end);
    while line[value_start..].starts_with(b"--") {
        let option_end = line[value_start..]
            .iter()
            .position(|&b| is_blank(b))
            .map_or(line.len(), |offset| value_start + offset);
        value_start = skip_blanks(line, option_end);
    }
    let mut value_end = trim_end(line, value_start, line.len()).end;
    if ends_with_semicolon && value_end > value_start && line[value_end - 1] == b';' {
        value_end -= 1;
    }
    let value = &line[value_start..value_end];
    // A line starting with a key word is often prose ("Password combination."): a word of
    // letters, perhaps ending a sentence, is no value.
    let core_len = value.len()
        - value
            .iter()
            .rev()
            .take_while(|b| b".,;:!?".contains(b))
            .count();
    let plain = dockerfile_env || sets_a_key;
    (!value.is_empty()
        && !value.iter().any(|&b| is_blank(b))
        && !b"=:|#;".contains(&value[0])
        && (plain || !value[..core_len].iter().all(u8::is_ascii_alphabetic)))
    .then_some((value_start..value_end, plain))
}

/// The last word of a command before the key it sets and the value it gives it (past its
/// options).
const SETTING_COMMAND_WORDS: &[&[u8]] = &[
    b"set",
    b"config",
    b"setenv",
    b"fastcgi_param",
    b"uwsgi_param",
    b"scgi_param",
    b"#define",
];

/// The value in the next cell of a table row whose cell holds only the key at `start..end`:
/// Markdown (`| Password | `…` |`, `| **DB_PASSWORD** | … |`) or drawn with box characters as
/// CLIs print tables (`│ DB_PASSWORD │ … │`). Code marks and emphasis around either are no
/// part of them.
fn table_cell_value(line: &[u8], start: usize, end: usize) -> Option<Range<usize>> {
    const SEPARATORS: [&[u8]; 4] = [b"|", "│".as_bytes(), "┃".as_bytes(), "║".as_bytes()];
    let separator_at = |at: usize| {
        SEPARATORS
            .iter()
            .find(|sep| line[at..].starts_with(sep))
            .map(|sep| sep.len())
    };
    let separator_before = |at: usize| {
        SEPARATORS
            .iter()
            .find(|sep| line[..at].ends_with(sep))
            .map(|sep| sep.len())
    };
    let is_mark = |b: u8| is_blank(b) || b == b'`' || b == b'*';
    let mut before = start;
    while before > 0 && is_mark(line[before - 1]) {
        before -= 1;
    }
    let opening = separator_before(before)?;
    if !line[..before - opening].iter().all(|&b| is_blank(b)) {
        return None;
    }
    let mut after = end;
    while after < line.len() && is_mark(line[after]) {
        after += 1;
    }
    let value_start = after + separator_at(after)?;
    let cell_end = (value_start..line.len())
        .find(|&at| separator_at(at).is_some() && !is_escaped_pipe(line, at))?;
    let mut value_start = value_start;
    let mut value_end = cell_end;
    while value_start < value_end && is_mark(line[value_start]) {
        value_start += 1;
    }
    while value_end > value_start && is_mark(line[value_end - 1]) {
        value_end -= 1;
    }
    let value = &line[value_start..value_end];
    (!value.is_empty() && !value.iter().any(|&b| is_blank(b))).then_some(value_start..value_end)
}

/// Whether `line[at]` is a pipe escaped with a backslash: Markdown's way of writing `|` inside
/// a cell (`Md\|pass`), so it separates no cells.
fn is_escaped_pipe(line: &[u8], at: usize) -> bool {
    line[at] == b'|' && at > 0 && line[at - 1] == b'\\'
}

/// The separators of the tables that database clients and Markdown print.
const TABLE_SEPARATORS: [&[u8]; 2] = [b"|", "│".as_bytes()];

/// The separator of a table a CLI prints aligned with blanks (`influx auth list`, `kubectl get`):
/// a tab, or two blanks or more.
pub(crate) const ALIGNED: &[u8] = b"\t";

/// The cells of a table row split at `separator`, as ranges of `line`.
pub(crate) fn table_cells(line: &[u8], separator: &[u8]) -> Vec<Range<usize>> {
    if separator == ALIGNED {
        return aligned_cells(line);
    }
    let mut cells = Vec::new();
    let mut cell_start = 0;
    for at in memchr::memmem::find_iter(line, separator) {
        if is_escaped_pipe(line, at) {
            continue;
        }
        cells.push(cell_start..at);
        cell_start = at + separator.len();
    }
    cells.push(cell_start..line.len());
    cells
}

/// The cells of a row aligned with blanks: the runs of text between tabs or two blanks or more
/// (one blank stays inside a cell: `User Name`).
fn aligned_cells(line: &[u8]) -> Vec<Range<usize>> {
    let mut cells = Vec::new();
    let mut at = 0;
    while at < line.len() {
        while at < line.len() && is_blank(line[at]) {
            at += 1;
        }
        if at == line.len() {
            break;
        }
        let start = at;
        while at < line.len()
            && line[at] != b'\t'
            && !(line[at] == b' ' && line.get(at + 1).copied().is_some_and(is_blank))
        {
            at += 1;
        }
        cells.push(start..trim_end(line, start, at).end);
    }
    cells
}

/// The column of the key at `start..end` in the header of a table aligned with blanks: three
/// cells or more, each a name (letters, digits, single blanks, `_ - .`), the key one of them.
fn aligned_table_header(line: &[u8], start: usize, end: usize) -> Option<usize> {
    // The key is a cell of its own: a tab or two blanks (or the line's edge) on either side.
    // Most keys are not, and the line is not split for them.
    let gap = |pair: &[u8]| pair.contains(&b'\t') || pair == b"  ";
    let before = start == indentation(line) || start >= 2 && gap(&line[start - 2..start]);
    let after = end == line.len() || line.len() >= end + 2 && gap(&line[end..end + 2]);
    if !before || !after {
        return None;
    }
    let cells = aligned_cells(line);
    let column = cells.iter().position(|cell| *cell == (start..end))?;
    let is_name = |cell: &Range<usize>| {
        let text = &line[cell.clone()];
        text.first().is_some_and(u8::is_ascii_alphabetic)
            && text
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b" _-.".contains(&b))
    };
    (cells.len() >= 3 && cells.iter().all(is_name)).then_some(column)
}

/// A block opened by the key at the end of `line`: its `field` comes on the next lines, more
/// indented than the key's line.
fn value_field_below(line: &[u8], class: KeyClass, field: ValueField) -> Found {
    Found::Pending(Pending::ValueField {
        min_indent: indentation(line) + 1,
        class,
        lines_left: VALUE_FIELD_REACH,
        field,
    })
}

/// A header row whose cell holds only the key at `start..end`, among three cells at least
/// (`| id | username | password |`, ` id | user | password`): the column of the key.
fn table_header(line: &[u8], start: usize, end: usize) -> Option<(usize, &'static [u8])> {
    // A printed table's rows are short; a long line (minified code) is split no further.
    const MAX_TABLE_ROW: usize = 1024;
    if line.len() > MAX_TABLE_ROW {
        return None;
    }
    // A header cell holding only the key has a separator next to it (past blanks) on one side
    // at least: the first or last byte of `|` or `│`. Most keys have none, and the line is not
    // searched for one.
    let before = line[..start].iter().rev().find(|&&b| !is_blank(b));
    let after = line[end..].iter().find(|&&b| !is_blank(b));
    let edge = |byte: Option<&u8>, of: fn(&[u8]) -> Option<&u8>| {
        byte.is_some_and(|byte| TABLE_SEPARATORS.iter().any(|sep| of(sep) == Some(byte)))
    };
    if !edge(before, <[u8]>::last) && !edge(after, <[u8]>::first) {
        return aligned_table_header(line, start, end).map(|column| (column, ALIGNED));
    }
    let separator = TABLE_SEPARATORS
        .iter()
        .copied()
        .find(|sep| memchr::memmem::find(line, sep).is_some())?;
    let cells = table_cells(line, separator);
    let column = cells
        .iter()
        .position(|cell| cell.start <= start && end <= cell.end)?;
    let cell = trim_end(line, cells[column].start, cells[column].end);
    let named = cells.iter().filter(|cell| {
        let cell = trim_end(line, cell.start, cell.end);
        !cell.is_empty()
    });
    (cell == (start..end) && named.count() >= 3).then_some((column, separator))
}

/// A table's rule line: dashes with `+`, `|`, `:` or box characters between them.
pub(crate) fn is_table_rule(line: &[u8]) -> bool {
    let is_box = |c: char| ('\u{2500}'..='\u{257F}').contains(&c);
    std::str::from_utf8(line.trim_ascii()).is_ok_and(|text| {
        text.chars().any(|c| c == '-' || is_box(c))
            && text
                .chars()
                .all(|c| matches!(c, '-' | '+' | '|' | ':' | '=' | ' ') || is_box(c))
    })
}

/// Whether a string literal starts at `at`, possibly behind a prefix (`b"…"`, `@"…"`) or
/// an escape (`\"…\"` inside JSON).
fn starts_string(line: &[u8], at: usize) -> bool {
    let at = at
        + usize::from(
            line.get(at).is_some_and(|b| b"bBrRfFuU@$\\".contains(b))
                && line.get(at + 1).copied().is_some_and(is_quote),
        );
    line.get(at).copied().is_some_and(is_quote)
}

/// How far into a line a key may start for the quotes before it to be followed.
const OPEN_QUOTE_REACH: usize = 4096;

/// The quote of the string still open at the end of `text`, if any: quotes pair up left to
/// right, a backslash escapes the next byte, and the other quote kinds inside a string are
/// text.
fn open_quote(text: &[u8]) -> Option<u8> {
    let mut open = None;
    let mut escaped = false;
    for &byte in text {
        if escaped {
            escaped = false;
        } else if byte == b'\\' {
            escaped = true;
        } else if is_quote(byte) {
            match open {
                None => open = Some(byte),
                Some(quote) if quote == byte => open = None,
                Some(_) => {}
            }
        }
    }
    open
}

/// A value under a key that only says "key" is this long at least (WordPress salts are 64,
/// Laravel and Rails keys 32 bytes and more).
const WEAK_KEY_MIN_LENGTH: usize = 24;

/// Generated, not typed or named: mixed-case letters and digits, high entropy, no words.
/// Hex digests, UUIDs and names fail it; random keys, salts and passwords pass.
pub(crate) fn is_unmistakably_random(value: &[u8]) -> bool {
    let classes = CharClasses::of(value);
    value.len() >= 16
        && classes.lower
        && classes.upper
        && classes.digit
        && !value.iter().any(|&b| is_blank(b))
        && super::shannon_entropy(value) >= 4.0
        && !is_wordy(value)
        && !is_path(value)
}

/// Generated text that counts the blank as one more symbol: WordPress's salts and keys (64
/// characters of all printable ASCII, `'Xk3:m9Qp X2vL|Y7w…'`). Long, every class of
/// character, blanks as rare as any other symbol, of high entropy and no words: a sentence
/// or an expression has words, few symbols or low entropy.
fn is_generated_with_blanks(value: &[u8]) -> bool {
    let blanks = value.iter().filter(|&&b| is_blank(b)).count();
    let symbols = value
        .iter()
        .filter(|&&b| !b.is_ascii_alphanumeric() && !is_blank(b))
        .count();
    let classes = CharClasses::of(value);
    value.len() >= GENERATED_WITH_BLANKS_MIN
        && value.is_ascii()
        && blanks * 12 <= value.len()
        && symbols * 6 >= value.len()
        && classes.lower
        && classes.upper
        && classes.digit
        && super::shannon_entropy(value) >= 4.5
        && !is_wordy(value)
}

/// WordPress salts are 64 characters; shorter text with blanks is more likely a phrase.
const GENERATED_WITH_BLANKS_MIN: usize = 32;

/// At most this many connectors stand between a password word and its value ("was changed to").
const MAX_PROSE_CONNECTORS: usize = 4;

/// A token or key given in prose is this long at least.
const MIN_PROSE_TOKEN: usize = 16;

/// At most this many words qualify a password word before its copula ("mật khẩu của tài
/// khoản `admin` trên máy chủ thử nghiệm là …" has nine).
const MAX_QUALIFIER_WORDS: usize = 10;

/// What ends a clause of prose after a value: a dash, a comma, a semicolon.
const CLAUSE_BREAKS: &[&str] = &[" – ", " — ", " - ", ", ", "; ", " (", "\t"];

/// Separators between a password word and its value in prose: ASCII `:`/`=`/`-`/`,`, the
/// full-width colon and comma, and the dashes.
/// Not `=`: an assignment is the assignment recognizer's to judge.
/// Arrows (`new password → …`) and Markdown emphasis (`**Password:** …`) too.
const PROSE_SEPARATORS: &[&str] = &[
    "**", "->", "=>", ":", "-", ",", "：", "，", "、", "–", "—", "→", "⇒",
];

/// Whether `text` starts with `word`, ASCII case-insensitively, as a whole word: a word ending
/// in an ASCII letter or digit may not run on into another one (`is` is no prefix of `isolated`).
fn starts_with_word(text: &[u8], word: &[u8]) -> bool {
    text.len() >= word.len()
        && text[..word.len()].eq_ignore_ascii_case(word)
        && !(word.last().is_some_and(u8::is_ascii_alphanumeric)
            && text.get(word.len()).is_some_and(u8::is_ascii_alphanumeric))
}

impl Grammar {
    /// Recognizes "password word, connector, value" in prose ("the password is X", "Passwort
    /// lautet X", "密码是 X", "비밀번호는 X"): `at` is where one of `keywords` (the rule's,
    /// lower-cased) starts in `line`. The value is one token of printable ASCII (or a quoted
    /// string), judged as a password by [`Grammar::plausible`], but never a plain word: prose
    /// goes on with words ("the password is required").
    pub(crate) fn recognize_prose(
        &self,
        line: &[u8],
        at: usize,
        keywords: &[String],
        generated_only: bool,
    ) -> Option<Range<usize>> {
        // A word of prose, not part of a name (`hash_password`, `${DB_PASSWORD}`). A word of a
        // script written without spaces may follow any letter (`root密码为 …`).
        let ascii_word = line.get(at).is_some_and(u8::is_ascii);
        // A capitalised noun after a hyphen is the last part of a compound of prose
        // (`WLAN-Passwort`, `VPN-Kennwort`), not of a name in code (`db-password`).
        let compound = at >= 2
            && line[at - 1] == b'-'
            && line[at - 2].is_ascii_alphanumeric()
            && line[at].is_ascii_uppercase()
            && line[at + 1..].first().is_some_and(u8::is_ascii_lowercase);
        if at > 0
            && !compound
            && ((ascii_word && is_key_byte(line[at - 1])) || b"${/\\".contains(&line[at - 1]))
        {
            return None;
        }
        // The first byte rules out nearly every keyword of the rule's long list at once.
        let first = line.get(at)?.to_ascii_lowercase();
        let keyword = keywords
            .iter()
            .filter(|k| {
                k.as_bytes()
                    .first()
                    .is_some_and(|b| b.to_ascii_lowercase() == first)
                    && line[at..].len() >= k.len()
                    && line[at..][..k.len()].eq_ignore_ascii_case(k.as_bytes())
            })
            .max_by_key(|k| k.len())?;
        let after_keyword = at + keyword.len();
        match line.get(after_keyword) {
            None => return None,
            // Markdown emphasis may close around the word (`**Password**: …`).
            Some(&next) if next.is_ascii() && !is_blank(next) && !b":*".contains(&next) => {
                return None;
            }
            Some(_) => {}
        }
        let direct = self.skip_prose_connectors(line, after_keyword);
        // A colon introduces a value of several words as a form's label does ("password:
        // correct horse battery staple"), and so does a copula of a script without capitals
        // before ASCII words ("密码是 correct horse …"); after an ASCII copula or right after
        // the word they may go on with any sentence ("password hashing uses bcrypt", "parola
        // este obligatorie pentru …").
        let between = &line[after_keyword..direct];
        let introduced = between.contains(&b':')
            || between.windows(3).any(|w| w == "：".as_bytes())
            || !between.is_ascii();
        // Tokens and keys are long; short generated-looking words are names (`cl100k_base`).
        let long_enough = |value: &Range<usize>| !generated_only || value.len() >= MIN_PROSE_TOKEN;
        if let Some(value) = self
            .prose_value(line, direct, generated_only, false, introduced)
            .filter(long_enough)
        {
            return Some(value);
        }
        // A qualifier between the word and its value: "the password FOR THE STAGING DATABASE
        // is …", "la contraseña DEL USUARIO `root` EN EL SERVIDOR es: …". Only a copula (or a
        // word ending with a colon) after a few words introduces the value, and only a value
        // that is unmistakably generated counts after a copula: the words between could be any
        // sentence.
        let mut pos = after_keyword;
        for index in 0..MAX_QUALIFIER_WORDS {
            pos = skip_blanks(line, pos);
            let word_end = line[pos..]
                .iter()
                .position(|&b| is_blank(b))
                .map_or(line.len(), |offset| pos + offset);
            if word_end == pos {
                return None;
            }
            let word = &line[pos..word_end];
            let core = word
                .strip_suffix(b":")
                .or_else(|| word.strip_suffix("：".as_bytes()))
                .unwrap_or(word);
            // "the password POLICY for … is", "the token FILE of … is": the sentence is about
            // something else than the secret.
            if index == 0
                && std::str::from_utf8(core)
                    .is_ok_and(|w| self.non_secret_tails.has(&w.to_ascii_lowercase()))
            {
                return None;
            }
            // In a script without spaces the copula ends the qualifier's last word
            // (`รหัสผ่านของเซิร์ฟเวอร์คือ …`).
            let copula = self.prose_copulas.iter().any(|c| {
                c.as_bytes().eq_ignore_ascii_case(core)
                    || (!c.is_ascii() && core.len() > c.len() && core.ends_with(c.as_bytes()))
            });
            if copula || core.len() < word.len() {
                // A label ending with a colon ("Password for user deploy: …") introduces its
                // value as a form does; a copula may go on with any sentence, so only a
                // generated value counts after one.
                let labelled = !copula && core.len() < word.len();
                let value_at = self.skip_prose_connectors(line, word_end);
                let value = self
                    .prose_value(
                        line,
                        value_at,
                        generated_only || !labelled,
                        !generated_only,
                        labelled,
                    )
                    .filter(long_enough);
                // A copula that gives no value may begin the qualifier ("a temporary password
                // IS generated for root@localhost: …"): a label may still follow.
                if value.is_some() || labelled {
                    return value;
                }
                // Small words as a passphrase, marked as typed by a number among them and a
                // symbol at their end, to the end of the clause ("… is velvet dahlia 22! —
                // please rotate it").
                if copula
                    && !generated_only
                    && let Some(value) = self.marked_passphrase(line, value_at)
                {
                    return Some(value);
                }
            }
            // The sentence ended without giving a value.
            if word.ends_with(b".")
                || word.ends_with(b"!")
                || word.ends_with(b"?")
                || word.ends_with(b";")
                || word.ends_with("。".as_bytes())
            {
                return None;
            }
            pos = word_end;
        }
        None
    }

    /// A passphrase of small words from `at` to the end of its clause (the line's end or a
    /// dash, comma or semicolon between blanks), marked as typed: a number among the words and
    /// a symbol or two ending the last (`nougat caramel 99 sparrow!`). A sentence after a copula
    /// ("is changed every 90 days.") ends with a full stop alone, and holds words of sentences.
    fn marked_passphrase(&self, line: &[u8], at: usize) -> Option<Range<usize>> {
        let rest = &line[at..];
        let clause_end = CLAUSE_BREAKS
            .iter()
            .filter_map(|separator| memchr::memmem::find(rest, separator.as_bytes()))
            .min()
            .unwrap_or(rest.len());
        let value = rest[..clause_end].trim_ascii_end();
        let tail = value
            .iter()
            .rev()
            .take_while(|&&b| b"!?#$%&*@+=~^".contains(&b))
            .count();
        let has_number = value[..value.len() - tail]
            .split(|&b| is_blank(b))
            .any(|word| !word.is_empty() && word.iter().all(u8::is_ascii_digit));
        (tail > 0 && has_number && self.is_passphrase_of_words(value, 4))
            .then_some(at..at + value.len())
    }

    /// Past the separators and connectors after a password word ("is", "— ", "lautet").
    fn skip_prose_connectors(&self, line: &[u8], mut at: usize) -> usize {
        for _ in 0..=MAX_PROSE_CONNECTORS {
            loop {
                at = skip_blanks(line, at);
                match PROSE_SEPARATORS
                    .iter()
                    .find(|sep| line[at..].starts_with(sep.as_bytes()))
                {
                    Some(separator) => at += separator.len(),
                    None => break,
                }
            }
            match self
                .prose_connectors
                .iter()
                .find(|c| starts_with_word(&line[at..], c.as_bytes()))
            {
                Some(connector) => at += connector.len(),
                None => break,
            }
        }
        at
    }

    /// The password at `at` in prose: one token of printable ASCII, or a quoted string
    /// (ASCII quotes, `« … »`, `“ … ”`), judged as a password, never a plain word or a version.
    /// `generated` asks for a value no sentence would hold: three character classes.
    /// `phrase` lets the value be a passphrase of words to the line's end.
    fn prose_value(
        &self,
        line: &[u8],
        at: usize,
        generated: bool,
        typed_password_counts: bool,
        phrase: bool,
    ) -> Option<Range<usize>> {
        let mut at = at;
        let mut closing: Option<&[u8]> = None;
        for (open, close) in [
            ("«", "»"),
            ("“", "”"),
            ("„", "“"),
            ("「", "」"),
            ("『", "』"),
            ("【", "】"),
        ] {
            if line[at..].starts_with(open.as_bytes()) {
                at = skip_blanks(line, at + open.len());
                closing = Some(close.as_bytes());
                break;
            }
        }
        let value = match line.get(at) {
            Some(&quote) if closing.is_none() && is_quote(quote) => {
                // A quote escaped inside the value is the value's (`"h7#K\"x;Lq9"`).
                let end =
                    (at + 1..line.len()).find(|&i| line[i] == quote && line[i - 1] != b'\\')?;
                at + 1..end
            }
            Some(_) => {
                // To a blank, a non-ASCII character, or an escape sequence (`\n` inside a
                // JSON string); letters of another script are a password's own when it mixes
                // them with typed digits and symbols.
                let end = (at..line.len())
                    .find(|&i| {
                        let b = line[i];
                        b <= b' '
                            || b >= 0x80
                            || (b == b'\\'
                                && line.get(i + 1).is_some_and(|n| b"nrt\"'\\".contains(n)))
                    })
                    .unwrap_or(line.len());
                let end = typed_in_another_script(line, at, end);
                // Sentence punctuation and Markdown emphasis after the value are prose.
                // A bracket that closes one opened in the value is part of it
                // (`Optional[str]`, `(known_password)`).
                let mut end = end;
                let closes_own = |end: usize, open: u8, close: u8| {
                    let value = &line[at..end];
                    let count = |b: u8| value.iter().filter(|&&c| c == b).count();
                    value.last() == Some(&close) && count(open) >= count(close)
                };
                // A `!` ends an exclamation after a word, but a password of digits or symbols
                // ends with it (`Sommer2024!`): leaving it out would leave a tail.
                let exclaims = |end: usize| {
                    line[end - 1] == b'!'
                        && line[at..end - 1]
                            .iter()
                            .all(|&b| b.is_ascii_alphabetic() || b == b'!')
                };
                loop {
                    if end > at
                        && (b".,;:?)]".contains(&line[end - 1]) || exclaims(end))
                        && !closes_own(end, b'(', b')')
                        && !closes_own(end, b'[', b']')
                    {
                        end -= 1;
                    } else if end >= at + 2 && &line[end - 2..end] == b"**" {
                        end -= 2;
                    } else {
                        break;
                    }
                }
                if phrase
                    && !generated
                    && closing.is_none()
                    && line.get(end).is_some_and(|&b| is_blank(b))
                {
                    let mut phrase_end = line.len();
                    while phrase_end > at
                        && (is_blank(line[phrase_end - 1])
                            || b".,;!".contains(&line[phrase_end - 1]))
                    {
                        phrase_end -= 1;
                    }
                    if self.is_passphrase_of_words(&line[at..phrase_end], 3) {
                        return Some(at..phrase_end);
                    }
                }
                if let Some(close) = closing {
                    let rest = &line[skip_blanks(line, end)..];
                    if !rest.starts_with(close) {
                        return None;
                    }
                }
                at..end
            }
            None => return None,
        };
        let text = &line[value.clone()];
        if text.is_empty() {
            return None;
        }
        let classes = CharClasses::of(text);
        let plain_word = classes.only_letters()
            && (classes.count() == 1 || text[1..].iter().all(u8::is_ascii_lowercase));
        let version = text
            .strip_prefix(b"v")
            .unwrap_or(text)
            .iter()
            .all(|b| b.is_ascii_digit() || *b == b'.');
        let quoted = value.start > 0 && is_quote(line[value.start - 1]);
        // Letters broken by digits (`TNF66L9498`) are generated as well as three classes are:
        // names and words keep their digits at the end (`Server2019`, `wifi5`).
        let letters_then_digits = text
            .windows(2)
            .filter(|pair| pair[0].is_ascii_alphabetic() && pair[1].is_ascii_digit())
            .count();
        // Capitals, small letters, digits and a symbol: typed as a password, even when made of
        // words (`Caju#Doce2022`, `Sonnenblume!88`), as people choose them; no word of prose
        // mixes all four. (A token is generated: `clm00427:AgencyIdentification…` is a name.)
        let typed_password = typed_password_counts && classes.count() >= 4 && text.len() >= 8;
        let generated_enough = !generated
            || typed_password
            || !is_wordy(text)
                && ((classes.count() >= 3 && text.len() >= 10)
                    || (classes.count() >= 2
                        && text.len() >= 12
                        && !is_identifier_shaped(text)
                        && super::shannon_entropy(text) >= 3.0)
                    || (text.len() >= 10
                        && letters_then_digits >= 2
                        && super::shannon_entropy(text) >= 2.5));
        (!plain_word
            && !version
            && generated_enough
            && !looks_like_code(text)
            && (quoted || !text.iter().any(|&b| is_blank(b)))
            && self.plausible(text, KeyClass::Password, false))
        .then_some(value)
    }
}

impl Grammar {
    /// A value with blanks is a passphrase at most: never a token, never text with an
    /// assignment or a command in it (`"telegram_token = "`, `` `vault read x` ``).
    fn plausible_with_blanks(&self, value: &[u8], class: KeyClass) -> bool {
        if class != KeyClass::Password {
            return is_generated_with_blanks(value);
        }
        let has_operator = value
            .windows(2)
            .any(|pair| matches!(pair, [b'=' | b':', b' ' | b'\t']));
        let words = value
            .split(|&b| is_blank(b))
            .filter(|w| !w.is_empty())
            .count();
        !has_operator && (words <= 3 || self.is_passphrase_of_words(value, 4))
    }

    /// Whether `value` is a passphrase of `min_words` words or more, as people choose them
    /// (`correct horse battery staple`, `my cat is fluffy 42`): a few small words in small
    /// letters (any script) or numbers, one blank apart, none naming a secret and none of a
    /// sentence about one ("must be at least 12 characters", "see the vault"). A capital or a
    /// full stop makes it a label or a sentence (`Mot de passe`, `Stored in Vault.`).
    fn is_passphrase_of_words(&self, value: &[u8], min_words: usize) -> bool {
        let Ok(text) = std::str::from_utf8(value) else {
            return false;
        };
        let mut words: Vec<&str> = text.split(' ').collect();
        // People end a passphrase with a symbol or two (`… upland!!`, `… blizzard?`).
        if let Some(last) = words.last_mut() {
            let core = last.trim_end_matches(|c: char| "!?#$%&*@+=~^.".contains(c));
            if last.len() - core.len() <= MAX_PASSPHRASE_TAIL {
                *last = core;
            }
        }
        (min_words..=MAX_PASSPHRASE_WORDS).contains(&words.len())
            && words.iter().all(|word| {
                let letters = word.chars().all(char::is_lowercase);
                let number = word.bytes().all(|b| b.is_ascii_digit());
                let lower = word.to_lowercase();
                (1..=MAX_PASSPHRASE_WORD).contains(&word.chars().count())
                    && (letters || number)
                    && !self.sentence_words.contains(&lower)
                    && !self
                        .password_words
                        .iter()
                        .chain(&self.secret_words)
                        .any(|noun| {
                            (noun.len() >= 4 && lower.contains(noun.as_str())) || lower == *noun
                        })
            })
            && words.iter().any(|word| word.chars().count() >= 4)
    }
}

impl Grammar {
    /// Whether `text` is a sentence: words of letters (sentence punctuation after them), at
    /// least two, one of them a word of sentences about secrets (`Use the vault entry.`,
    /// `see 1Password`). No passphrase holds such a word (see
    /// [`Grammar::is_passphrase_of_words`]).
    pub(crate) fn is_sentence(&self, text: &[u8]) -> bool {
        let Ok(text) = std::str::from_utf8(text) else {
            return false;
        };
        let words: Vec<&str> = text
            .split_whitespace()
            .map(|word| word.trim_end_matches(|c: char| ".,;:!?".contains(c)))
            .collect();
        words.len() >= 2
            && words.iter().all(|word| {
                !word.is_empty() && word.chars().all(|c| c.is_alphanumeric() || c == '\'')
            })
            && words
                .iter()
                .any(|word| self.sentence_words.contains(&word.to_lowercase()))
    }
}

impl Grammar {
    /// Where a passphrase of four words or more that runs from `start` to the end of the line
    /// (or to a comment) ends.
    fn passphrase_to_line_end(&self, line: &[u8], start: usize) -> Option<usize> {
        let rest_end = comment_or_line_end(line, start);
        let rest = trim_end(line, start, rest_end);
        self.is_passphrase_of_words(&line[rest.clone()], 4)
            .then_some(rest.end)
    }
}

/// A passphrase of words has at most this many, each this many characters at most (diceware
/// draws 4 to 7 words of up to 9 letters).
const MAX_PASSPHRASE_WORDS: usize = 8;
const MAX_PASSPHRASE_WORD: usize = 12;
/// At most this many symbols may end a passphrase (`… upland!!`).
const MAX_PASSPHRASE_TAIL: usize = 3;

impl Grammar {
    /// Whether a one-word ASCII label could as well be a real password (`Sunshine`): only a
    /// word holding one of the password words (`Password`, `Passphrase`) is surely the label.
    /// Leaving a real password visible is worse than redacting a locale file's label.
    fn could_be_a_password_word(&self, value: &[u8]) -> bool {
        let one_word = !value.contains(&b' ') && !value.ends_with(b"?") && !value.ends_with(b".");
        if !one_word || !value.is_ascii() {
            return false;
        }
        let lower = value.to_ascii_lowercase();
        !self
            .password_words
            .iter()
            .filter(|word| word.len() >= 4)
            .any(|word| contains_bytes(&lower, word.as_bytes()))
    }
}

/// Whether `value` is a sentence of a script written without blanks (`とプライベートキーのルールは
/// …、別チケットに分けます。`): one of its sentence marks, or a run of its letters longer than
/// anyone types into a password. A key word before such text (`JWT とプライベートキー…`) gives it
/// no value.
fn is_prose_of_another_script(value: &[u8]) -> bool {
    const SENTENCE_MARKS: [&str; 6] = ["。", "、", "，", "！", "？", "："];
    const MAX_TYPED_RUN: usize = 8;
    let Ok(text) = std::str::from_utf8(value) else {
        return false;
    };
    if SENTENCE_MARKS.iter().any(|mark| text.contains(mark)) {
        return true;
    }
    let mut run = 0;
    for c in text.chars() {
        run = if c.is_alphabetic() && !c.is_ascii() {
            run + 1
        } else {
            0
        };
        if run > MAX_TYPED_RUN {
            return true;
        }
    }
    false
}

/// Whether `value` is words as a label is written: a capitalised word (`Kennwort`), words
/// with a capitalised one or ending a sentence (`Mot de passe`, `Forgot password?`), or letters
/// of another script (`Пароль`, `密码`). A passphrase of small words
/// (`correct horse battery`) is none.
fn is_label(value: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(value) else {
        return false;
    };
    let text = text.trim_end_matches(['?', '.', '!', ':']);
    let ends_sentence = text.len() < value.len();
    let words: Vec<&str> = text.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
    if words.is_empty()
        || !words.iter().all(|word| {
            word.chars()
                .all(|c| c.is_alphabetic() || c == '\'' || c == '-')
        })
    {
        return false;
    }
    let capitalised = |word: &str| {
        let mut chars = word.chars();
        chars.next().is_some_and(char::is_uppercase) && chars.all(|c| !c.is_uppercase())
    };
    let other_script = !text.is_ascii();
    other_script || ends_sentence || words.iter().any(|word| capitalised(word))
}

/// Whether `value` is a list of validation rules (Laravel's `required|string|min:8`): names of
/// lower-case letters, each perhaps with `:` arguments, joined by `|`.
fn is_rule_list(value: &[u8]) -> bool {
    let is_rule = |rule: &[u8]| {
        let name_len = rule
            .iter()
            .take_while(|&&b| b.is_ascii_lowercase() || b == b'_')
            .count();
        name_len >= 3
            && (name_len == rule.len()
                || (rule[name_len] == b':'
                    && rule[name_len + 1..]
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b",._".contains(&b))))
    };
    memchr::memchr(b'|', value).is_some() && value.split(|&b| b == b'|').all(is_rule)
}

/// Whether most of `value` is pronounceable words of four letters or more: an identifier or
/// prose (`AgencyIdentificationCodeContentType`), where random text breaks into fragments.
/// A word of a language has a vowel in every six letters at least (`string`, `struct`),
/// where random small letters often have fewer (`skwqxt`); and names seldom break their words with digits, where random
/// small letters and digits (`zgeiw1xf266ccifu6fd6yibehmi5sk`) do every few characters.
fn is_wordy(value: &[u8]) -> bool {
    let letters_then_digits = value
        .windows(2)
        .filter(|pair| pair[0].is_ascii_alphabetic() && pair[1].is_ascii_digit())
        .count();
    if letters_then_digits >= 3 {
        return false;
    }
    let is_vowel = |c: u8| b"aeiou".contains(&c);
    let word_letters: usize = split_words(value)
        .iter()
        .filter(|word| {
            let bytes = word.as_bytes();
            // `y` is a vowel at the end of a word (`key`, `party`); inside one it is mostly a
            // consonant's place in random text (`rybq`).
            let vowels = bytes.iter().filter(|&&c| is_vowel(c)).count()
                + usize::from(bytes.last() == Some(&b'y'));
            bytes.len() >= 4
                && bytes.iter().all(u8::is_ascii_lowercase)
                && vowels * 6 >= bytes.len()
                && !bytes
                    .windows(4)
                    .any(|run| run.iter().all(|&c| !is_vowel(c) && c != b'y'))
        })
        .map(String::len)
        .sum();
    word_letters * 10 >= value.len() * 6
}

/// Where an unquoted value ends besides blanks, quotes and escapes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ValueEnds {
    Anywhere,
    /// In a query string: also at `&`.
    Query,
}

fn noun_in(word: &str, nouns: &[String]) -> bool {
    nouns
        .iter()
        .any(|noun| word == noun || (noun.len() >= GLUED_NOUN_MIN && word.ends_with(noun.as_str())))
}

/// Keys this long at most are classified without allocating, in as many words at most.
const SHORT_KEY: usize = 64;
const SHORT_KEY_WORDS: usize = 16;

/// The words of an identifier, lower-cased: split at `_ - .`, at lower-to-upper case changes
/// (`apiToken`), before the last capital of an acronym (`APIKey` → api, key) and between
/// letters and digits (`token4` → token, 4).
pub(crate) fn split_words(text: &[u8]) -> Vec<String> {
    let mut words = Vec::new();
    for_each_word(text, |range| {
        words.push(
            text[range]
                .iter()
                .map(|&byte| char::from(byte.to_ascii_lowercase()))
                .collect(),
        );
    });
    words
}

/// Calls `word` with where each word of [`split_words`] lies in `text`, in order.
fn for_each_word(text: &[u8], mut word: impl FnMut(Range<usize>)) {
    let mut current: Option<usize> = None;
    for (index, &byte) in text.iter().enumerate() {
        if !byte.is_ascii_alphanumeric() {
            if let Some(start) = current.take() {
                word(start..index);
            }
            continue;
        }
        if let Some(&previous) = index.checked_sub(1).and_then(|i| text.get(i)) {
            let next = text.get(index + 1).copied().unwrap_or(b' ');
            let boundary = (previous.is_ascii_lowercase() && byte.is_ascii_uppercase())
                || (previous.is_ascii_uppercase()
                    && byte.is_ascii_uppercase()
                    && next.is_ascii_lowercase())
                || (previous.is_ascii_alphabetic() && byte.is_ascii_digit())
                || (previous.is_ascii_digit() && byte.is_ascii_alphabetic());
            if boundary && let Some(start) = current.take() {
                word(start..index);
            }
        }
        current.get_or_insert(index);
    }
    if let Some(start) = current {
        word(start..text.len());
    }
}

/// Where the default value starts after the `)` of a lookup by name (at `after_call`): a
/// Ruby block (`{ "…" }`) or a Rust `.unwrap_or("…")` / `.unwrap_or_else(|| "…")`.
fn default_after_lookup(line: &[u8], after_call: usize) -> Option<usize> {
    const DEFAULTS: [&[u8]; 4] = [b"{", b".unwrap_or(", b".unwrap_or_else(||", b".or("];
    let at = skip_blanks(line, after_call);
    DEFAULTS
        .iter()
        .find(|default| line[at..].starts_with(default))
        .map(|default| skip_blanks(line, at + default.len()))
}

/// Whether an operator (or a type, or an attribute's `value=`) may follow the key ending at
/// `end`: past a closing quote or bracket and blanks comes `=`, `:`, `,`, `?=`, `+=`, `.=`,
/// `||=`, `??=`, or, after a blank, a word.
fn operator_may_follow(line: &[u8], end: usize) -> bool {
    let mut probe = end;
    if line.get(probe) == Some(&b'\\') {
        probe += 1;
    }
    if line.get(probe).copied().is_some_and(is_quote) {
        probe += 1;
    }
    if line.get(probe) == Some(&b']') {
        probe += 1;
    }
    let after_blanks = skip_blanks(line, probe);
    let next = line.get(after_blanks).copied();
    let then = line.get(after_blanks + 1).copied();
    match next {
        Some(b'=' | b':' | b',') => true,
        // The end of a start tag after a quoted attribute (`<entry key="password">…`).
        Some(b'>') => probe > end && after_blanks == probe,
        // `?=`, `+=`, `.=`, and a fallback: `process.env.API_KEY ?? "…"`.
        Some(b'?' | b'+' | b'.') => then == Some(b'=') || then == Some(b'?'),
        Some(b'|') => then == Some(b'|'),
        Some(b'<') => then == Some(b'-'),
        // A quoted key, a blank, a string: `set "DbPassword" "…"`.
        Some(b) if is_quote(b) => after_blanks > probe && probe > end,
        // A quoted block label, a blank, the block: `variable "db_password" {`.
        Some(b'{') => after_blanks > probe && probe > end,
        // A call with a string argument: `setPassword("…")`, `.with_token(Some("…"))`.
        Some(b'(') => {
            after_blanks == end && {
                let argument = skip_blanks(line, end + 1);
                starts_string(line, wrapped_string(line, argument).unwrap_or(argument))
            }
        }
        // A C array: `char pass[] = …`.
        Some(b'[') => array_size(line, after_blanks).is_some(),
        // A lookup by name with a default: `ENV.fetch("DB_PASSWORD") { "…" }`.
        Some(b')') => {
            probe > end
                && default_after_lookup(line, after_blanks + 1)
                    .is_some_and(|value_at| starts_string(line, value_at))
        }
        Some(b) => after_blanks > probe && (b.is_ascii_alphabetic() || b"&*[".contains(&b)),
        None => false,
    }
}

/// A line that is only `data:` or `stringData:` (the maps of a Kubernetes Secret; a ConfigMap's
/// plain values are not base64 and stay).
fn data_map(line: &[u8], start: usize, end: usize) -> Option<Pending> {
    let key = &line[start..end];
    let base64 = match key {
        b"data" | b"binaryData" => true,
        b"stringData" => false,
        _ => return None,
    };
    let rest = &line[end..];
    let only_key = line[..start].iter().all(|&b| is_blank(b))
        && rest.first() == Some(&b':')
        && rest[1..].iter().all(|&b| is_blank(b) || b == b'\r');
    only_key.then_some(Pending::DataMap {
        indent: start,
        base64,
        scalar: None,
    })
}

/// A value of a Secret's `data:` map: base64 long enough and varied enough not to be a word.
/// Unpadded base64 of random bytes lacks a digit one time in thirty (`qqGsjTCSzcicEwpdMjUE`):
/// mixed case that is no camel-case name is enough from 16 characters on.
pub(crate) fn is_base64_value(value: &[u8]) -> bool {
    let body_len = value.len() - value.iter().rev().take_while(|&&b| b == b'=').count();
    let body = &value[..body_len];
    let classes = CharClasses::of(body);
    value.len() >= 12
        && value.len().is_multiple_of(4)
        && value.len() - body_len <= 2
        && body
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
        && (body_len < value.len()
            || classes.lower
                && classes.upper
                && (classes.digit || (body_len >= 16 && !is_identifier_shaped(body))))
}

/// The blanks a line starts with.
/// A line's indentation: its gutter (see [`gutter`]) and the blanks after it.
pub(crate) fn indentation(line: &[u8]) -> usize {
    let gutter = gutter(line);
    gutter + line[gutter..].iter().take_while(|&&b| is_blank(b)).count()
}

/// The gutter before a line's text in what agents print: the line number of a file read
/// (`    12→`, `cat -n`'s `    12\t`) or a diff's `+`/`-` (not `+++`/`---`). Indentation
/// and the start of a line are measured after it, so that `password: |` and its value, a
/// Dockerfile's `ENV` and a Terraform block read the same numbered or in a diff.
pub(crate) fn gutter(line: &[u8]) -> usize {
    let blanks = line.iter().take_while(|&&b| b == b' ').count();
    let digits = line[blanks..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits > 0 {
        let after = &line[blanks + digits..];
        if after.starts_with("→".as_bytes()) {
            return blanks + digits + "→".len();
        }
        if after.first() == Some(&b'\t') {
            return blanks + digits + 1;
        }
        return 0;
    }
    match line {
        [b'+' | b'-', next, ..] if !matches!(next, b'+' | b'-') => 1,
        [b'+' | b'-'] => 1,
        _ => 0,
    }
}

/// Whether the key starting at `start` is the value of a name field: `name: `, `- name: `,
/// `"Name": "`, `name = "`, `ParameterKey=`.
fn names_an_entry(line: &[u8], start: usize) -> bool {
    let mut pos = start;
    // A name that is a path, the key its last part (`"Name": "/prod/db/password"`).
    let mut in_path = pos;
    while in_path > 0 && (is_key_byte(line[in_path - 1]) || line[in_path - 1] == b'/') {
        in_path -= 1;
    }
    if in_path < pos
        && line[in_path..pos].contains(&b'/')
        && in_path > 0
        && is_quote(line[in_path - 1])
    {
        pos = in_path;
    }
    if pos > 0 && is_quote(line[pos - 1]) {
        pos -= 1;
    }
    while pos > 0 && is_blank(line[pos - 1]) {
        pos -= 1;
    }
    if pos == 0 || !matches!(line[pos - 1], b':' | b'=') {
        return false;
    }
    pos -= 1;
    while pos > 0 && is_blank(line[pos - 1]) {
        pos -= 1;
    }
    if pos > 0 && is_quote(line[pos - 1]) {
        pos -= 1;
    }
    let name_end = pos;
    while pos > 0 && line[pos - 1].is_ascii_alphabetic() {
        pos -= 1;
    }
    let name = &line[pos..name_end];
    name.eq_ignore_ascii_case(b"name") || name.eq_ignore_ascii_case(b"parameterkey")
}

/// Where a prose value that stopped at a non-ASCII character at `end` really ends: a password
/// may hold letters of any script (`Щука0549!Лес`, `さくら0074!`, `0RaZ猫7092狗`), and the token
/// from `at` runs on through letters to a blank, punctuation or an escape. It is taken only
/// when it mixes those letters with ASCII digits and another ASCII class: a word of the script
/// after a password word is prose (`пароль: обязательно`, `密码：至少8位`).
fn typed_in_another_script(line: &[u8], at: usize, end: usize) -> usize {
    const MAX_OTHER_SCRIPT_PASSWORD: usize = 256;
    if line.get(end).is_none_or(|&b| b < 0x80) {
        return end;
    }
    // A password is short: its first bytes are enough, read up to their last whole character.
    let window = &line[at..line.len().min(at + MAX_OTHER_SCRIPT_PASSWORD)];
    let rest = match std::str::from_utf8(window) {
        Ok(text) => text,
        Err(error) => std::str::from_utf8(&window[..error.valid_up_to()]).unwrap_or_default(),
    };
    let mut token_end = at;
    // Where the token's last run of letters of a script written without blanks began: after
    // a value typed in ASCII such a run is a particle glued to it (`…입니다`, `…に変更`, `…了`).
    let mut unspaced_run_start = None;
    for c in rest.chars() {
        let escape = c == '\\'
            && line
                .get(token_end + 1)
                .is_some_and(|n| b"nrt\"'\\".contains(n));
        if c.is_whitespace() || c.is_control() || escape || (!c.is_ascii() && !c.is_alphabetic()) {
            break;
        }
        if !is_written_without_blanks(c) {
            unspaced_run_start = None;
        } else if unspaced_run_start.is_none() {
            unspaced_run_start = Some(token_end);
        }
        token_end += c.len_utf8();
    }
    if line[at].is_ascii()
        && let Some(run_start) = unspaced_run_start
    {
        token_end = run_start;
    }
    let token = &line[at..token_end];
    let other_letters = !token.is_ascii();
    let digits = token.iter().filter(|b| b.is_ascii_digit()).count();
    let ascii_other = token
        .iter()
        .any(|b| b.is_ascii_alphabetic() || b.is_ascii_punctuation());
    if other_letters && digits > 0 && ascii_other {
        token_end
    } else {
        end
    }
}

/// Letters of the scripts that write words without blanks between them (Chinese, Japanese,
/// Thai) and Korean, whose particles glue to the word before.
fn is_written_without_blanks(c: char) -> bool {
    matches!(c,
        '\u{0E00}'..='\u{0E7F}'   // Thai
        | '\u{1100}'..='\u{11FF}' // Hangul Jamo
        | '\u{3040}'..='\u{30FF}' // Hiragana, Katakana
        | '\u{3130}'..='\u{318F}' // Hangul compatibility Jamo
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{AC00}'..='\u{D7AF}' // Hangul syllables
    )
}

/// The end of a C array's size after a key (`[]`, `[64]`) at `at`, if one is there.
fn array_size(line: &[u8], at: usize) -> Option<usize> {
    if line.get(at) != Some(&b'[') {
        return None;
    }
    let digits = line[at + 1..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    (line.get(at + 1 + digits) == Some(&b']')).then_some(at + 2 + digits)
}

/// Whether the quoted key whose text starts at `start` is an HCL block's label: one word
/// starts the line before it (`variable "db_password" {`).
fn labels_a_block(line: &[u8], start: usize) -> bool {
    let Some(quote_at) = start.checked_sub(1) else {
        return false;
    };
    let before = line[..quote_at].trim_ascii_end();
    let word_start = indentation(line);
    before.len() > word_start
        && before.len() < quote_at
        && before[word_start..]
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b == b'_')
}

/// The text of an XML element whose start tag ends at `at` (`>…</`), when it is on this line.
fn element_text(line: &[u8], at: usize) -> Option<Range<usize>> {
    if line.get(at) != Some(&b'>') {
        return None;
    }
    let value_start = skip_blanks(line, at + 1);
    let value_end = memchr::memmem::find(&line[value_start..], b"</").map(|i| value_start + i)?;
    let value = trim_end(line, value_start, value_end);
    (!value.is_empty()).then_some(value)
}

/// Where the name of a `field` (`value`, `"Value"`, `ParameterValue`; `default`) ends in
/// `line` at or after `from`, when it is one: followed by its quote or blanks and `:`/`=`.
pub(crate) fn find_value_field(line: &[u8], from: usize, field: ValueField) -> Option<usize> {
    let name = field.name();
    let mut search = from;
    while let Some(offset) = line[search..]
        .windows(name.len())
        .position(|w| w.eq_ignore_ascii_case(name))
    {
        let at = search + offset;
        let end = at + name.len();
        let before = at.checked_sub(1).map(|i| line[i]);
        let starts_field = before.is_none_or(|b| !b.is_ascii_alphanumeric() && b != b'_')
            || line[..at].ends_with(b"Parameter");
        let mut pos = end;
        if line.get(pos).copied().is_some_and(is_quote) {
            pos += 1;
        }
        pos = skip_blanks(line, pos);
        if starts_field && matches!(line.get(pos), Some(b':' | b'=')) {
            return Some(end);
        }
        search = end;
    }
    None
}

/// `token string =` or `token: &str =` at `at`: the position of the `=`.
fn typed_assignment(line: &[u8], at: usize, blank_before: bool) -> Option<usize> {
    let mut pos = at;
    let colon = line.get(pos) == Some(&b':');
    if colon {
        if line.get(pos + 1) == Some(&b':') {
            return None;
        }
        pos = skip_blanks(line, pos + 1);
    } else if !blank_before {
        return None;
    }
    // Up to three words after a colon (`&'static str`, `&mut String`); one without (Go's
    // `var token string =`), since words after a key are prose ("password is X7=…"). A Rust
    // lifetime is the only quote a type holds.
    for word in 0..if colon { 3 } else { 1 } {
        let type_start = pos;
        while pos < line.len()
            && (line[pos].is_ascii_alphanumeric()
                || b"_&*[]<>.:?|".contains(&line[pos])
                || (line[pos] == b'\'' && pos > type_start && line[pos - 1] == b'&'))
        {
            pos += 1;
        }
        if pos == type_start || !line[type_start..pos].iter().any(u8::is_ascii_alphabetic) {
            if word == 0 {
                return None;
            }
            break;
        }
        // A type is written in names (`Option<String>`, `i32`); a word starting with a digit
        // or of random case is a password holding `=` (`password: OB1eL6=fYp:1HX`).
        let type_word = &line[type_start..pos];
        if type_word[0].is_ascii_digit()
            || !type_word
                .split(|b| !b.is_ascii_alphanumeric())
                .filter(|name| !name.is_empty())
                .all(is_name)
        {
            return None;
        }
        pos = skip_blanks(line, pos);
        if line.get(pos) == Some(&b'=') {
            break;
        }
    }
    let is_plain_equals =
        line.get(pos) == Some(&b'=') && !matches!(line.get(pos + 1), Some(b'=' | b'>' | b'~'));
    is_plain_equals.then_some(pos)
}

/// `password: |` or `token: >-` ending the line: the line's indentation.
fn block_scalar(line: &[u8], at: usize) -> Option<usize> {
    let rest = line.get(at..)?;
    let (&indicator, tail) = rest.split_first()?;
    if indicator != b'|' && indicator != b'>' {
        return None;
    }
    // A comment needs a blank before it: `|#%><kD>` is a password.
    let tail_end = tail
        .windows(2)
        .position(|pair| is_blank(pair[0]) && pair[1] == b'#')
        .unwrap_or(tail.len());
    tail[..tail_end]
        .iter()
        .all(|&b| b == b'-' || b == b'+' || b.is_ascii_digit() || is_blank(b))
        .then(|| indentation(line))
}

/// After `String::from(`, `SecretString::new(`, `Some(`…: the position of the quote.
fn wrapped_string(line: &[u8], at: usize) -> Option<usize> {
    let mut pos = at;
    if line[pos..].starts_with(b"new ") {
        pos += 4;
    }
    let name_start = pos;
    // Go's conversion `[]byte("…")` is a wrapper too.
    while pos < line.len() && (line[pos].is_ascii_alphanumeric() || b"_:.[]".contains(&line[pos])) {
        pos += 1;
    }
    if pos == name_start || line.get(pos) != Some(&b'(') {
        return None;
    }
    let inner = skip_blanks(line, pos + 1);
    line.get(inner)
        .copied()
        .filter(|&b| is_quote(b))
        .map(|_| inner)
}

/// The inside of the string starting with the quote at `at` (to the matching quote, with
/// backslash escapes; to the end of the line when it is not closed there), and where the
/// string ends.
fn quoted_value(line: &[u8], at: usize, escaped_quote: bool) -> (Range<usize>, usize) {
    let quote = line[at];
    let start = at + 1;
    let mut pos = start;
    while pos < line.len() {
        let byte = line[pos];
        if escaped_quote {
            // Inside a JSON string: the value ends at `\"`. A quote of the value itself is
            // escaped twice (`\\\"`: an escaped backslash, then an escaped quote).
            if byte == b'\\' {
                let run = line[pos..].iter().take_while(|&&b| b == b'\\').count();
                if line.get(pos + run) == Some(&quote) && run % 4 == 1 {
                    return (start..pos + run - 1, pos + run + 1);
                }
                pos += run + usize::from(line.get(pos + run) == Some(&quote));
                continue;
            }
        } else if byte == b'\\' && quote != b'\'' {
            pos += 2;
            continue;
        } else if byte == b'\\' && line.get(pos + 1) == Some(&quote) {
            // `\'` in a single-quoted string escapes the quote in code (Python, JS, PHP) but
            // ends a shell word (`'C:\'`): it is the value's when the value goes on after it.
            let next = line.get(pos + 2);
            if next.is_some_and(|&b| !is_blank(b) && !b",;)]}".contains(&b)) {
                pos += 2;
                continue;
            }
            return (start..pos + 1, pos + 2);
        } else if byte == quote {
            return (start..pos, pos + 1);
        }
        pos += 1;
    }
    (start..line.len(), line.len())
}

/// An unquoted value from `at`: to a blank, a quote, an escape sequence (`\n` inside a JSON
/// string), or a closing tag; then without trailing `;`/`,` and unbalanced closing brackets.
fn unquoted_value(
    line: &[u8],
    at: usize,
    ends: ValueEnds,
    in_string: bool,
) -> (Range<usize>, Option<u8>) {
    let mut end = at;
    while end < line.len() {
        let byte = line[end];
        // Outside a string a backslash is a character of the value (`pass\tword`), and so is
        // a quote inside it that closes nothing (a generated salt's `` ` `` or `"`: `…644`A~_]…`):
        // one that ends the value is followed by a blank, punctuation or the line's end, and
        // one after a bracket opens an index (`os.environ["DB_PASSWORD"]`).
        let inner_quote = !in_string
            && end > at
            && !b"[({=,".contains(&line[end - 1])
            && line.get(end + 1).is_some_and(|&next| {
                !is_blank(next) && !is_quote(next) && !b",;)]}>".contains(&next)
            });
        let stops = is_blank(byte)
            || (is_quote(byte) && !inner_quote)
            || (in_string
                && byte == b'\\'
                && line.get(end + 1).is_some_and(|b| b"nrt\"'\\".contains(b)))
            || (byte == b'<' && closing_tag_at(line, end))
            || (byte == b'&' && matches!(ends, ValueEnds::Query));
        if stops {
            break;
        }
        end += 1;
    }
    let stop = line.get(end).copied();
    while let Some(&last) = line[at..end].last() {
        let unbalanced = |open: u8| {
            let opens = line[at..end].iter().filter(|&&b| b == open).count();
            let closes = line[at..end].iter().filter(|&&b| b == last).count();
            closes > opens
        };
        let drop = match last {
            b',' | b';' => true,
            b')' => unbalanced(b'('),
            b']' => unbalanced(b'['),
            b'}' => unbalanced(b'{'),
            _ => false,
        };
        if !drop {
            break;
        }
        end -= 1;
    }
    (at..end, stop)
}

/// Whether a closing tag (`</password>`, `</ns:key>`) starts at `at`: a `<` inside a random
/// value (`t</vU/Z]{N`) is a character of it.
fn closing_tag_at(line: &[u8], at: usize) -> bool {
    let Some(name) = line
        .get(at + 2..)
        .filter(|_| line.get(at + 1) == Some(&b'/'))
    else {
        return false;
    };
    let length = name
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b"_-.:".contains(&b))
        .count();
    length > 0 && name[0].is_ascii_alphabetic() && name.get(length) == Some(&b'>')
}

/// Where a shell word that began with a quoted piece ending at `end` (its closing quote ends at
/// `after`) ends: pieces glued to it belong to the same word (`'abc'\''def'`, `"abc"'def'`,
/// YAML's `'it''s'`). Returns `end` when nothing is glued on.
fn shell_word_end(line: &[u8], end: usize, after: usize) -> usize {
    let (mut end, mut pos) = (end, after);
    loop {
        match line.get(pos) {
            Some(&quote) if is_quote(quote) => {
                let (piece, next) = quoted_value(line, pos, false);
                if next > line.len() || piece.end == line.len() {
                    return end;
                }
                end = piece.end;
                pos = next;
            }
            Some(b'\\') if line.get(pos + 1).copied().is_some_and(is_quote) => {
                end = pos + 2;
                pos += 2;
            }
            _ => return end,
        }
    }
}

/// Where the value that starts at `from` may end at the latest: a comment after a blank
/// (` # …`), else the line's end.
fn comment_or_line_end(line: &[u8], from: usize) -> usize {
    memchr::memmem::find(&line[from..], b" #").map_or(line.len(), |i| from + i)
}

/// The end of the blank-separated words after a value ending at `end` when they are all that
/// is left of the line (a comment aside), at most two, and each looks typed at random
/// (digits, or capitals after its first letter): `kCbekA Nd0f0Rpz`, not `then press enter`.
fn random_words_after(line: &[u8], end: usize) -> Option<usize> {
    let rest_end = comment_or_line_end(line, end);
    let rest = &line[end..rest_end];
    let words: Vec<&[u8]> = rest
        .split(|&b| is_blank(b))
        .filter(|word| !word.is_empty())
        .collect();
    let random = |word: &[u8]| {
        word.len() >= 4
            && word.iter().all(|&b| b.is_ascii_graphic() && !is_quote(b))
            && (word.iter().any(u8::is_ascii_digit) || word[1..].iter().any(u8::is_ascii_uppercase))
            && !word.iter().any(|&b| b"=:".contains(&b))
    };
    (!words.is_empty() && words.len() <= 2 && words.iter().all(|word| random(word)))
        .then(|| trim_end(line, end, rest_end).end)
}

/// Where `;Key=` (the next pair of a connection string) starts in `value`: a `;` followed by
/// a name of letters, digits, blanks or `_` and an `=`. A `;` inside a password
/// (`k9;Xq2(vL7]`) is followed by no such name.
fn next_pair(value: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b';', value).find(|&at| {
        let rest = &value[at + 1..];
        let name = rest
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || b" _".contains(b))
            .count();
        name > 0 && rest[0].is_ascii_alphabetic() && rest.get(name) == Some(&b'=')
    })
}

fn trim_end(line: &[u8], start: usize, mut end: usize) -> Range<usize> {
    let mut start = start.min(end);
    while start < end && is_blank(line[start]) {
        start += 1;
    }
    while end > start && (is_blank(line[end - 1]) || line[end - 1] == b'\r') {
        end -= 1;
    }
    start..end
}

/// What may stand before the key of a line of settings: shell's `export`, a YAML list dash,
/// a Dockerfile's `ENV` and `ARG`, cmd.exe's `set`.
const CONFIG_LINE_STARTS: &[&[u8]] = &[b"export ", b"- ", b"ENV ", b"ARG ", b"set ", b"SET "];

/// The key starts the line (after indentation, `export`, a YAML list dash, `ENV`) and so the
/// value is data, not an expression.
fn is_config_line(line: &[u8], key_start: usize) -> bool {
    let mut prefix = &line[gutter(line).min(key_start)..key_start];
    while let Some((&first, rest)) = prefix.split_first() {
        if is_blank(first) {
            prefix = rest;
        } else {
            break;
        }
    }
    let prefix = CONFIG_LINE_STARTS
        .iter()
        .find_map(|start| prefix.strip_prefix(*start))
        .unwrap_or(prefix);
    prefix.iter().all(|&b| is_blank(b))
}

/// Unquoted text that is an expression: a variable, a call, a member chain, a path of a
/// language with `::`.
fn looks_like_code(value: &[u8]) -> bool {
    // A sigil before a name (`$token`, `@secret`, `&config.key`, `!isSet`, `*ptr`) or a bracket
    // that opens an expression; a sigil before random text is the first character of a
    // password (`@LjnOHP,~FoAC`, `!KCO8Ba30`).
    if let Some(&first) = value.first() {
        // A bracket that opens an expression closes in it (`[DataRequired()]`, `{ x: 1 }`,
        // `(a, b)`); one that never closes starts a password (`(mtG9mo]j>}y~`).
        if b"([{<".contains(&first) {
            return closes_first_bracket(value);
        }
        if b"$@%&*!".contains(&first) {
            let rest = &value[value.iter().take_while(|b| b"$@%&*!".contains(b)).count()..];
            return rest.is_empty()
                || (rest[0].is_ascii_alphabetic() || rest[0] == b'_')
                    && rest
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b"_.()[]:'\"".contains(&b))
                    && !is_unmistakably_random(rest);
        }
    }
    // A method called on a number: Ruby's `6.hours`, `30.minutes`, `1.5.days`.
    let digits = value.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0 && value.get(digits) == Some(&b'.') {
        let mut parts = value[digits + 1..].split(|&b| b == b'.');
        let method = parts.next_back().unwrap_or_default();
        if parts.all(|part| !part.is_empty() && part.iter().all(u8::is_ascii_digit))
            && method.len() >= 2
            && method.iter().all(|&b| b.is_ascii_lowercase() || b == b'_')
        {
            return true;
        }
    }
    let identifier_end = value
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
        .unwrap_or(value.len());
    if identifier_end == 0 || !value[0].is_ascii_alphabetic() && value[0] != b'_' {
        return false;
    }
    match value.get(identifier_end) {
        // `getPassword()`, `os.getenv(` (the value stops at the quote), `args[0]`; but not
        // `a1b2[c3]d4e5`.
        // A call of a named function, whose arguments the blank after the first one cut
        // (`crypt($1, …)`).
        Some(b'(')
            if identifier_end >= 3
                && value[..identifier_end]
                    .iter()
                    .all(|&b| b.is_ascii_lowercase() || b == b'_') =>
        {
            true
        }
        Some(b'(' | b'[') => closes_first_bracket(&value[identifier_end..]),
        // A generic type, perhaps cut at a blank: `Map<String,`, `Option<Vec<u8>>`.
        Some(b'<') => {
            let arguments = &value[identifier_end..];
            is_name(&value[..identifier_end])
                && arguments
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || b"_<>,:[]&' ".contains(&b))
                && arguments
                    .split(|b| !b.is_ascii_alphanumeric())
                    .filter(|name| !name.is_empty())
                    .all(is_name)
        }
        // A path `a::b` goes on with a name (`n::@q|` is a password), and its first part is a
        // name (`xVPqSPdNL::Lefvw` is typed at random).
        Some(b':') => {
            value.get(identifier_end + 1) == Some(&b':')
                && value
                    .get(identifier_end + 2)
                    .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
                && is_name(&value[..identifier_end])
        }
        Some(b'.') => {
            // A chain of identifiers only: `process.env.TOKEN`, `self.token`, perhaps with type
            // arguments after it (`typing.Optional[str]`, `java.util.List<String>`).
            // Names are words; a part with many digits (`pat.qmzj8f2wfa4i2i861.…`) is a token,
            // a part of random case (`ZnoQLs.NNjld`) a password.
            let arguments = value
                .iter()
                .position(|b| b"[<".contains(b))
                .unwrap_or(value.len());
            let (chain, arguments) = value.split_at(arguments);
            let type_arguments = arguments
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b"_.,:[]<> ".contains(&b));
            type_arguments
                && chain.split(|&b| b == b'.').all(|part| {
                    let part = part.split(|&b| b == b'(').next().unwrap_or(part);
                    let digits = part.iter().filter(|b| b.is_ascii_digit()).count();
                    !part.is_empty()
                        && (part[0].is_ascii_alphabetic() || part[0] == b'_')
                        && part.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
                        && digits * 5 < part.len()
                        && !is_unmistakably_random(part)
                        && is_name(part)
                })
        }
        _ => false,
    }
}

/// Masks and templates: `${VAR}`, `{{ secrets.X }}`, `$(cmd)`, `<password>`, `[PASSWORD]`,
/// `%s`, `****`, `xxxx`, `…`, and redaction markers (this redactor's own included).
/// Whether a mask or a redaction marker stands somewhere in `value`. A mask is a run of mask
/// characters (`****`, `sk-****abcd`; `@***26` inside a password is none), an ellipsis, `###`,
/// or `xxxx` in one case (`Xxxx` is four letters of a token); a marker is `[redacted…` or
/// `<redacted…` in any case. One pass that looks further only at a byte that can start one:
/// values are judged at every keyword of a dense text.
fn holds_a_mask(value: &[u8]) -> bool {
    const MARKER_WORD: &[u8] = b"redacted";
    (0..value.len()).any(|at| {
        let rest = &value[at..];
        match rest[0] {
            b'*' => rest.starts_with(b"****"),
            b'.' => rest.starts_with(b"..."),
            b'#' => rest.starts_with(b"###"),
            b'x' => rest.starts_with(b"xxxx"),
            b'X' => rest.starts_with(b"XXXX"),
            // The first byte of `…` and of `•`.
            0xE2 => rest.starts_with("…".as_bytes()) || rest.starts_with("•".as_bytes()),
            b'[' | b'<' => rest
                .get(1..=MARKER_WORD.len())
                .is_some_and(|word| word.eq_ignore_ascii_case(MARKER_WORD)),
            _ => false,
        }
    })
}

pub(crate) fn is_masked_or_templated(value: &[u8]) -> bool {
    // `<password>`, `[PASSWORD]`, `{token}`, `%DB_PASS%`: a name in brackets, not random
    // symbols that happen to start and end with them (`<<ar7;7mc#=q>`).
    let wrapped = |open: u8, close: u8| {
        value.len() >= 2
            && value.first() == Some(&open)
            && value.last() == Some(&close)
            && value[1..value.len() - 1]
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b" _-.:|$".contains(&b))
    };
    if template_opens(value, b"${", |b| {
        b.is_ascii_alphabetic() || b"_{:".contains(&b)
    }) || template_opens(value, b"{{", |b| {
        b.is_ascii_alphabetic() || b" ._$-".contains(&b)
    }) || template_opens(value, b"$(", |b| b.is_ascii_alphabetic() || b == b'_')
        || python_format_field(value)
        || template_opens(value, b"<%", |b| b" =-#".contains(&b))
        || value == b"***"
        || holds_a_mask(value)
        || wrapped(b'<', b'>')
        || wrapped(b'[', b']')
        || wrapped(b'{', b'}')
        || wrapped(b'%', b'%')
    {
        return true;
    }
    // `$VAR`, `$HOME/.netrc`, `%s`; a `$` before random symbols starts a password (`$B-F?./g1;`).
    let is_variable = matches!(value, [b'$', next, ..] if next.is_ascii_alphabetic() || *next == b'_')
        && value[1..]
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"_/.:-".contains(&b));
    is_variable || matches!(value, [b'%', b's' | b'd' | b'v']) || has_angle_placeholder(value)
}

/// Whether `value` is one bracketed expression: the bracket it starts with closes, brackets
/// nesting by kind, at its end or before a call, index or member (`[DataRequired()]`,
/// `{ x: 1 }`, `(a).b`). A bracket that never closes, or closes early, is the first
/// character of a password (`(mtG9mo]j>}y~`, `<>?EzW)|4N`).
fn closes_first_bracket(value: &[u8]) -> bool {
    let closer = |open: u8| match open {
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        _ => b'>',
    };
    let mut expected: Vec<u8> = Vec::new();
    for (index, &byte) in value.iter().enumerate() {
        match byte {
            b'(' | b'[' | b'{' | b'<' => expected.push(closer(byte)),
            b')' | b']' | b'}' | b'>' => {
                if expected.pop() != Some(byte) {
                    return false;
                }
                if expected.is_empty() {
                    let inner = &value[1..index];
                    // Code inside: names, literals and separators (`[DataRequired()]`,
                    // `{ x: 1 }`); `{5@n_r$C=!lmG}` is a password.
                    let code_inside = inner.iter().any(|&b| is_blank(b))
                        || inner
                            .iter()
                            .all(|&b| b.is_ascii_alphanumeric() || b"_.,:()[]{}'\"".contains(&b));
                    return code_inside
                        && value
                            .get(index + 1)
                            .is_none_or(|next| b".([".contains(next));
                }
            }
            _ => {}
        }
    }
    false
}

/// `<word>` inside a value (`admin:<password>`, `sk-<your key>`): a placeholder to fill in.
fn has_angle_placeholder(value: &[u8]) -> bool {
    memchr::memchr_iter(b'<', value).any(|at| {
        let inner = &value[at + 1..];
        let length = inner
            .iter()
            .take_while(|&&b| b.is_ascii_alphabetic() || b" _-.".contains(&b))
            .count();
        // One case, as a placeholder is written (`<password>`, `<API_TOKEN>`); `<SZrnex>` is
        // a piece of a random password.
        let name = &inner[..length];
        let one_case =
            !name.iter().any(u8::is_ascii_uppercase) || !name.iter().any(u8::is_ascii_lowercase);
        // Of words: each part of two letters or more has a vowel (`<y_qkh>` is random).
        let words = name
            .split(|&b| b" _-.".contains(&b))
            .filter(|part| part.len() >= 2)
            .all(|part| part.iter().any(|b| b"aeiouAEIOU".contains(b)));
        let letters = name.iter().filter(|b| b.is_ascii_alphabetic()).count();
        letters >= 3 && one_case && words && inner.get(length) == Some(&b'>')
    })
}

/// Whether `opener` occurs in `value` followed by a byte that starts a template's content
/// (`${VAR}`, `{{ secrets.X }}`, `$(cat f)`, `<%= x %>`): the same two bytes inside random
/// text (`x${%/q`, `{{#`) are part of a password.
fn template_opens(value: &[u8], opener: &[u8], starts_content: impl Fn(u8) -> bool) -> bool {
    // The closer the opener's last byte calls for: `}` for `${`/`{{`, `)` for `$(`, `%` for `<%`.
    let closer: &[u8] = match opener {
        b"{{" => b"}}",
        b"<%" => b"%>",
        [.., b'('] => b")",
        _ => b"}",
    };
    // A command substitution holds blanks (`$(openssl rand -base64 32)`): a value cut at the
    // first one has no `)`, yet is the command's start, a command's name to the value's end
    // (`$(CkXD` in a password is none).
    let closer_may_follow = opener == b"$(";
    let is_command_name = |rest: &[u8]| {
        rest.iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-.".contains(&b))
    };
    memchr::memmem::find_iter(value, opener).any(|at| {
        let content = at + opener.len();
        value.get(content).is_some_and(|&next| starts_content(next))
            && (contains_bytes(&value[content..], closer)
                || (closer_may_follow && is_command_name(&value[content..])))
    })
}

/// A Python `%(name)s` field.
fn python_format_field(value: &[u8]) -> bool {
    memchr::memmem::find_iter(value, b"%(").any(|at| {
        let name = &value[at + 2..];
        let length = name
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        length > 0 && name.get(length) == Some(&b')')
    })
}

/// A run of ten consecutive letters of the alphabet (`abcdefghij…`): typed, not generated.
pub(crate) fn has_alphabet_run(value: &[u8]) -> bool {
    const RUN: usize = 10;
    let mut run = 1;
    for pair in value.windows(2) {
        let (a, b) = (pair[0].to_ascii_lowercase(), pair[1].to_ascii_lowercase());
        if a.is_ascii_lowercase() && b == a + 1 {
            run += 1;
            if run >= RUN {
                return true;
            }
        } else {
            run = 1;
        }
    }
    false
}

fn is_path(value: &[u8]) -> bool {
    // Names of files and directories; a symbol such as `*|;?[]` makes it a password (`/B*|-w;?`).
    let path_characters = value
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || b"/\\._-~+@:%=".contains(&b));
    // One name after a slash that mixes capitals, small letters and digits is typed at random
    // (`/uQy_W4z3n-qYI`), where directories and files have names.
    let classes = CharClasses::of(value);
    let random_name = value.starts_with(b"/")
        && !value[1..].contains(&b'/')
        && classes.upper
        && classes.lower
        && classes.digit;
    path_characters
        && !random_name
        && (value.starts_with(b"/")
            || value.starts_with(b"./")
            || value.starts_with(b"../")
            || value.starts_with(b"~/")
            || (value.len() > 2
                && value[0].is_ascii_alphabetic()
                && value[1] == b':'
                && matches!(value[2], b'\\' | b'/')))
}

/// Small words joined by hyphens as a password generator joins them (`velvet-orbit-tundra-maple`,
/// diceware): four words, or three of fifteen letters and more. Fewer or shorter words are a
/// setting's name (`not-set`, `read-only`); words of one to three letters are prose
/// (`set-by-the-installer`, `use-the-vault-entry`).
fn is_passphrase(value: &[u8]) -> bool {
    let words: Vec<&[u8]> = value.split(|&b| b == b'-').collect();
    let words_fit = words
        .iter()
        .all(|word| (3..=12).contains(&word.len()) && word.iter().all(u8::is_ascii_lowercase));
    let short_words = words.iter().filter(|word| word.len() == 3).count();
    words_fit && short_words <= 1 && (words.len() >= 4 || words.len() == 3 && value.len() >= 15)
}

/// One part of a code path written as names are: in one case (`env`, `TOKEN`, `os`), or
/// words that each start with a capital (`Optional`, `getPassword`, `HashMap`), digits kept
/// to the end of a word (`v1`, `utf8`). Random case (`ZnoQLs`, `xVPqSPdNL`) is typed.
fn is_name(part: &[u8]) -> bool {
    let letters: Vec<u8> = part
        .iter()
        .copied()
        .filter(u8::is_ascii_alphabetic)
        .collect();
    if letters.iter().all(u8::is_ascii_lowercase) || letters.iter().all(u8::is_ascii_uppercase) {
        return true;
    }
    // Mixed case: every capital starts a word of at least two letters (an acronym such as
    // `HTTPClient` or `IOError` ends with the capital that starts the next word), digits
    // only end the part (`Base64`, not `Rwr2jn`), and a word of two letters has a vowel
    // (`Id`, `Io`, not `Zm`).
    let digits_end = part
        .iter()
        .skip_while(|b| !b.is_ascii_digit())
        .all(u8::is_ascii_digit);
    let words = split_words(part);
    digits_end
        && words
            .iter()
            .filter(|word| word.bytes().all(|b| b.is_ascii_alphabetic()))
            .all(|word| {
                word.len() > 2 || word.len() == 2 && word.bytes().any(|b| b"aeiouy".contains(&b))
            })
}

/// Letters with optional `_ - .` separators shaped like a name: `camelCase`, `PascalCase`,
/// `snake_case`, `kebab-case`, `dotted.name`, `CONSTANT_CASE`.
fn is_identifier_shaped(value: &[u8]) -> bool {
    let parts: Vec<&[u8]> = value.split(|b| b"_-.".contains(b)).collect();
    if parts.iter().any(|part| part.is_empty()) {
        return false;
    }
    if parts.len() > 1 {
        // Every part one case-shape: `lower`, `UPPER` or `Capitalized`.
        return parts.iter().all(|part| {
            part.iter().all(u8::is_ascii_lowercase)
                || part.iter().all(u8::is_ascii_uppercase)
                || (part[0].is_ascii_uppercase() && part[1..].iter().all(u8::is_ascii_lowercase))
        });
    }
    // One part: camelCase / PascalCase words of at least two letters each.
    let words = split_words(value);
    words.len() > 1
        && words.iter().all(|w| w.len() >= 2)
        && value
            .windows(2)
            .all(|pair| !(pair[0].is_ascii_uppercase() && pair[1].is_ascii_uppercase()))
}

struct CharClasses {
    lower: bool,
    upper: bool,
    digit: bool,
    symbol: bool,
}

impl CharClasses {
    fn of(value: &[u8]) -> CharClasses {
        CharClasses {
            lower: value.iter().any(u8::is_ascii_lowercase),
            upper: value.iter().any(u8::is_ascii_uppercase),
            digit: value.iter().any(u8::is_ascii_digit),
            symbol: value.iter().any(|b| !b.is_ascii_alphanumeric()),
        }
    }

    fn count(&self) -> usize {
        [self.lower, self.upper, self.digit, self.symbol]
            .iter()
            .filter(|&&c| c)
            .count()
    }

    fn only_letters(&self) -> bool {
        !self.digit && !self.symbol
    }
}

/// The first word of a method that looks a string up, tests it or changes it rather than
/// setting a field to it.
fn is_verb_of_lookup(word: &str) -> bool {
    matches!(
        word,
        "get"
            | "find"
            | "fetch"
            | "load"
            | "read"
            | "lookup"
            | "has"
            | "is"
            | "remove"
            | "delete"
            | "del"
            | "clear"
            | "unset"
            | "validate"
            | "check"
            | "require"
            | "parse"
            | "format"
            | "mask"
            | "redact"
            | "resolve"
            | "rotate"
            | "revoke"
            | "contains"
            | "to"
            | "on"
            | "handle"
            | "log"
            | "print"
            | "assert"
            | "expect"
    )
}

/// A column named in the column list of an SQL `INSERT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct InsertColumn {
    /// Its position in the list, from 0.
    index: usize,
    /// Where the list's `)` is.
    list_end: usize,
}

/// The most columns of an `INSERT` looked through for the key's.
const INSERT_COLUMNS_REACH: usize = 256;

/// When the key at `start..end` of `line` is a column in the column list of an SQL
/// `INSERT INTO table (a, `b`, "c") …`: its index and the list's end.
fn insert_column(line: &[u8], start: usize, end: usize) -> Option<InsertColumn> {
    let is_name_byte = |b: u8| is_key_byte(b) || matches!(b, b'`' | b'"' | b'[' | b']');
    // Back over the columns before it, to the list's `(`.
    let mut at = start;
    let mut index = 0;
    loop {
        while at > 0 && is_name_byte(line[at - 1]) {
            at -= 1;
        }
        while at > 0 && line[at - 1].is_ascii_whitespace() {
            at -= 1;
        }
        match at.checked_sub(1).map(|i| line[i]) {
            Some(b',') if index < INSERT_COLUMNS_REACH => {
                index += 1;
                at -= 1;
                while at > 0 && line[at - 1].is_ascii_whitespace() {
                    at -= 1;
                }
                // A column's name, not a value (`VALUES ('a', 'b')`).
                if !line
                    .get(at.wrapping_sub(1))
                    .is_some_and(|&b| is_name_byte(b))
                {
                    return None;
                }
            }
            Some(b'(') => break,
            _ => return None,
        }
    }
    let open = at - 1;
    // Before it the table's name, `INTO` and, further back, `INSERT`.
    let mut before = open;
    while before > 0 && line[before - 1].is_ascii_whitespace() {
        before -= 1;
    }
    let table_end = before;
    while before > 0 && is_name_byte(line[before - 1]) {
        before -= 1;
    }
    if before == table_end {
        return None;
    }
    let into_end = {
        let mut at = before;
        while at > 0 && line[at - 1].is_ascii_whitespace() {
            at -= 1;
        }
        at
    };
    if into_end == before
        || into_end < 4
        || !line[into_end - 4..into_end].eq_ignore_ascii_case(b"into")
        || !contains_word_ignoring_case(&line[..into_end - 4], b"insert")
    {
        return None;
    }
    // On to the list's end: names and commas only.
    let mut close = end;
    while close < line.len()
        && (is_name_byte(line[close]) || line[close].is_ascii_whitespace() || line[close] == b',')
    {
        close += 1;
    }
    (line.get(close) == Some(&b')')).then_some(InsertColumn {
        index,
        list_end: close,
    })
}

/// Whether `word` stands in `text` as a word of its own, in any case.
fn contains_word_ignoring_case(text: &[u8], word: &[u8]) -> bool {
    text.windows(word.len()).enumerate().any(|(at, window)| {
        window.eq_ignore_ascii_case(word)
            && (at == 0 || !text[at - 1].is_ascii_alphanumeric())
            && text
                .get(at + word.len())
                .is_none_or(|b| !b.is_ascii_alphanumeric())
    })
}

fn skip_sql_blanks(line: &[u8], mut at: usize) -> usize {
    while at < line.len() && line[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// The SQL value at `at` of a `VALUES` tuple: its text (inside the quotes of a string),
/// whether it is a string, and where it ends. Strings double their quote or escape it with a
/// backslash (MySQL's dumps), and may be prefixed (`N'…'`); other values run to the `,` or `)`
/// outside parentheses.
fn sql_value(line: &[u8], mut at: usize) -> Option<(Range<usize>, bool, usize)> {
    // SQL Server's Unicode `N'…'`, PostgreSQL's escape string `E'…'`.
    if line.get(at).is_some_and(|b| b"NnEe".contains(b)) && line.get(at + 1) == Some(&b'\'') {
        at += 1;
    }
    let first = *line.get(at)?;
    if first == b'\'' || first == b'"' {
        let mut index = at + 1;
        while index < line.len() {
            match line[index] {
                b'\\' => index += 2,
                byte if byte == first => {
                    if line.get(index + 1) == Some(&first) {
                        index += 2;
                    } else {
                        return Some((at + 1..index, true, index + 1));
                    }
                }
                _ => index += 1,
            }
        }
        return None;
    }
    let mut depth = 0usize;
    let mut index = at;
    while index < line.len() {
        match line[index] {
            b'(' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            b',' if depth == 0 => break,
            b'\'' | b'"' => {
                let (_, _, after) = sql_value(line, index)?;
                index = after;
                continue;
            }
            _ => {}
        }
        index += 1;
    }
    Some((at..index, false, index))
}
