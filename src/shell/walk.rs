//! Parse a command with brush-parser and flatten it into invocations and redirections. Each
//! compound piece also renders as text (words unquoted, single spaces), which is how a
//! process substitution's body reads as a word (`<(curl -s x)`).

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use brush_parser::ast::{
    Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect, Pipeline, SimpleCommand,
};
use brush_parser::word::WordPiece;
use brush_parser::{Parser, ParserOptions};

use super::DenyKind;
use super::places::{self, Cwd};
use super::rules;

/// Re-parses (`bash -c`, `eval`, `$(...)`, backticks, `xargs sh -c`...) allowed inside one
/// another. Real commands use two or three; beyond this we stop and deny.
const MAX_DEPTH: usize = 8;
/// Syntactic nesting (parentheses, braces, compound keywords) accepted before parsing. The
/// parser recurses per level and a stack overflow aborts the process (no unwinding), which would
/// turn a fail-safe hook into a fail-open one; and its backtracking grows exponentially with
/// unclosed parentheses. 16 levels stay far below either limit and above any real command.
const MAX_NESTING: usize = 16;
/// Longest command analysed. Hook commands that write whole files through here-documents reach
/// tens of kilobytes; parsing stays linear, this bounds the worst case.
const MAX_LEN: usize = 512 * 1024;
/// Words produced by splitting known values (`$@` repeated, `$W` with a long `W`) in one
/// command. Repeating `"$@"` multiplies the words (130 × 130 is 16,900): past this (2^14,
/// cc-safety-net's parser word limit too) the command is refused rather than analysed.
const MAX_EXPANDED_WORDS: usize = 16_384;
/// Function calls followed in one command. A function that calls itself, or calls that fan
/// out (`f1() { f0; f0; }; f2() { f1; f1; }; ...`), exhaust it and the command is refused.
const MAX_CALLS: usize = 64;

/// Why a command could not be analysed; `kind` is `Unparseable` or `TooDeep`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub kind: DenyKind,
    pub detail: String,
}

impl ParseError {
    fn unparseable(detail: impl Into<String>) -> Self {
        ParseError {
            kind: DenyKind::Unparseable,
            detail: detail.into(),
        }
    }
    fn too_deep(detail: impl Into<String>) -> Self {
        ParseError {
            kind: DenyKind::TooDeep,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

impl std::error::Error for ParseError {}

/// One simple command as it would run: words unquoted, wrappers not yet stripped.
#[derive(Debug, Clone, Default)]
pub struct Invocation {
    pub argv: Vec<String>,
    /// Per word: its value is only known at run time (parameter or command substitution).
    pub dynamic: Vec<bool>,
    /// Per word: it holds the known value of a variable (`$W` with `W` assigned earlier).
    pub expanded: Vec<bool>,
    /// `NAME=value` words before the command.
    pub assignments: Vec<(String, String)>,
    /// The here-document or here-string fed to the command, if any.
    pub stdin_text: Option<String>,
    /// Variables exported or assigned earlier in the command line (`export PAGER=x; git log`,
    /// `GIT_SSH_COMMAND=x; git fetch`): in force for this command too.
    pub in_force: Vec<(String, String)>,
    /// The working directory it runs in, as far as `cd`s before it tell.
    pub cwd: Cwd,
    /// Its stdin is the output of an earlier stage of a pipeline.
    pub piped: bool,
    /// An earlier stage of its pipeline downloads (`curl ... | sh`).
    pub pipe_downloads: bool,
    /// Per word: read from stdin by `xargs`/`parallel` (appended, or replacing `-I {}`).
    pub from_input: Vec<bool>,
    /// Found inside a command substitution or process substitution.
    pub substituted: bool,
    /// Found in shell code run by another command (`sh -c`, `eval`, a here-document fed to
    /// a shell): a program named by a variable there runs code chosen at run time.
    pub in_script: bool,
    /// Run by a wrapper (`env`, `sudo`, `builtin`, `command`...), not named by the shell.
    pub wrapped: bool,
    /// Has redirections of its own (`eval "$X" > out`).
    pub redirected: bool,
    /// Its words read against its program's spec, once for every policy that asks
    /// ([`Invocation::parsed`]).
    pub(super) parsed: Cached<Option<super::programs::Parsed>>,
    /// The read-only verdict on it alone, once for every policy that asks.
    pub(super) read_verdict: Cached<Option<(super::DenyKind, String)>>,
}

/// A value computed once from an invocation's words. A copy starts empty: a copied invocation
/// is usually edited (`git` aliases expanded, `xargs` input appended) before it is read.
#[derive(Debug, Default)]
pub(super) struct Cached<T>(std::cell::OnceCell<T>);

impl<T> Clone for Cached<T> {
    fn clone(&self) -> Self {
        Cached(std::cell::OnceCell::new())
    }
}

impl<T> Cached<T> {
    pub(super) fn get_or_init(&self, init: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(init)
    }
}

impl Invocation {
    fn nested(&self, from: usize) -> Invocation {
        Invocation {
            argv: self.argv.get(from..).unwrap_or_default().to_vec(),
            dynamic: self.dynamic.get(from..).unwrap_or_default().to_vec(),
            expanded: self.expanded.get(from..).unwrap_or_default().to_vec(),
            assignments: Vec::new(),
            stdin_text: self.stdin_text.clone(),
            in_force: self.in_force.clone(),
            cwd: self.cwd.clone(),
            piped: self.piped,
            pipe_downloads: self.pipe_downloads,
            from_input: self.from_input.get(from..).unwrap_or_default().to_vec(),
            substituted: self.substituted,
            in_script: self.in_script,
            wrapped: true,
            redirected: false,
            parsed: Cached::default(),
            read_verdict: Cached::default(),
        }
    }

    fn from_words(
        argv: Vec<String>,
        stdin_text: Option<String>,
        parent: &Invocation,
    ) -> Invocation {
        let dynamic = vec![false; argv.len()];
        Invocation {
            argv,
            dynamic,
            stdin_text,
            ..parent.nested(usize::MAX)
        }
    }

    /// Its words read against its program's spec; None when the specs do not describe it.
    /// Read once and shared by the dangerous gate, the read-only policy and the write targets.
    pub fn parsed(&self) -> Option<&super::programs::Parsed> {
        self.parsed
            .get_or_init(|| {
                let (program, args) = self.argv.split_first()?;
                let spec = super::programs::lookup(program)?;
                Some(super::programs::parse(
                    spec,
                    args,
                    self.dynamic.get(1..).unwrap_or_default(),
                ))
            })
            .as_ref()
    }

    /// Every variable assignment that applies to this command: the ones in force, then its
    /// own prefix assignments.
    pub fn environment(&self) -> impl Iterator<Item = &(String, String)> {
        self.in_force.iter().chain(&self.assignments)
    }
}

/// The word standing for what `xargs`/`parallel` read from stdin and `find` finds (`{}`):
/// a parameter, so its value reads as unknown everywhere.
pub const INPUT_WORD: &str = "${input}";

/// One redirection: `2>&1`, `> out.txt`, `&>> log`.
#[derive(Debug, Clone)]
pub struct Redirect {
    pub fd: Option<i32>,
    pub op: &'static str,
    pub target: String,
    /// Opens `target` as a file for writing (as opposed to reading or duplicating a descriptor).
    pub opens_for_write: bool,
    /// The working directory a relative `target` is opened in, as far as `cd`s tell.
    pub cwd: Cwd,
}

/// Targets output may go to without writing anything in the project.
const HARMLESS_SINKS: &[&str] = &[
    "/dev/null",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/tty",
    "/dev/fd/1",
    "/dev/fd/2",
];

impl Redirect {
    pub fn writes_file(&self) -> bool {
        self.opens_for_write && !HARMLESS_SINKS.contains(&self.target.as_str())
    }

    pub fn render(&self) -> String {
        let fd = self.fd.map(|fd| fd.to_string()).unwrap_or_default();
        if self.op.ends_with('&') {
            format!("{fd}{}{}", self.op, self.target)
        } else {
            format!("{fd}{} {}", self.op, self.target)
        }
    }
}

/// Everything the detectors need from one command.
#[derive(Debug, Default)]
pub struct Analysis {
    pub invocations: Vec<Invocation>,
    pub redirects: Vec<Redirect>,
    /// Commands that run shell code known only at run time (`parallel` reading commands
    /// from stdin): what they do cannot be told.
    pub dynamic_code: Vec<String>,
}

/// How long one command may take to analyse. The parser backtracks: on some inputs (a run of
/// unclosed parentheses) its time grows exponentially with the nesting, and a hook that does not
/// answer before the host's timeout lets the tool call through. Past this budget the command is
/// refused as unparseable (fail-safe) and the parse is abandoned on its thread.
pub const TIME_BUDGET: std::time::Duration = std::time::Duration::from_secs(2);

/// Parses `command` and walks it completely, within [`TIME_BUDGET`]. Never panics: a parser
/// panic becomes `Unparseable`.
///
/// Under a process [`deadline`](crate::deadline) (the pre-tool hook arms one) the analysis runs
/// on the calling thread: the deadline answers for the process if it takes too long.
pub fn analyze(command: &str) -> Result<Analysis, ParseError> {
    if is_short_and_flat(command) || crate::deadline::armed() {
        return analyze_now(command);
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    let owned = command.to_string();
    let worker = std::thread::Builder::new().spawn(move || {
        let _ = sender.send(analyze_now(&owned));
    });
    if worker.is_err() {
        // No thread to spare: analyse here, without the budget.
        return analyze_now(command);
    }
    receiver.recv_timeout(TIME_BUDGET).unwrap_or_else(|_| {
        Err(ParseError::unparseable(format!(
            "the command took more than {} s to analyse",
            TIME_BUDGET.as_secs()
        )))
    })
}

/// Longest command [`is_short_and_flat`] accepts.
const FLAT_MAX_LEN: usize = 512;

/// Whether `command` is short and has no grouping, substitution, function body or test
/// bracket: the parser's exponential backtracking comes from nesting, so such a command parses
/// in microseconds and is parsed on the calling thread. Starting the budget's thread costs
/// about 0.2 ms, a fifth of spawning `/bin/true`, on every `git status` and `cargo test`.
pub fn is_short_and_flat(command: &str) -> bool {
    command.len() <= FLAT_MAX_LEN
        && !command
            .bytes()
            .any(|b| matches!(b, b'(' | b')' | b'{' | b'}' | b'[' | b']' | b'`'))
}

fn analyze_now(command: &str) -> Result<Analysis, ParseError> {
    let mut walker = Walker {
        analysis: Analysis::default(),
        options: ParserOptions::default(),
        state: State::default(),
        functions: std::collections::HashMap::new(),
        calls: 0,
        expanded_words: 0,
        substitution_depth: 0,
        pending_values: Vec::new(),
        script_depth: 0,
    };
    walker.script(command, 0)?;
    Ok(walker.analysis)
}

/// What the shell knows at a point of the command: scoped like the shell scopes it (a
/// subshell or command substitution gets a copy and loses its changes).
#[derive(Debug, Clone, Default)]
struct State {
    /// Variables assigned without a command (`W='rm -rf ~'`), with their static values.
    vars: std::collections::HashMap<String, String>,
    /// Variables exported or assigned: in force for every later command.
    in_force: Vec<(String, String)>,
    cwd: Cwd,
    /// The directories `pushd` left, for `popd` to return to.
    pushed: Vec<Cwd>,
}

struct Walker {
    analysis: Analysis,
    options: ParserOptions,
    state: State,
    /// Function definitions seen so far; a call walks the body.
    functions: std::collections::HashMap<String, brush_parser::ast::FunctionBody>,
    calls: usize,
    /// Words produced by splitting so far (bounded by [`MAX_EXPANDED_WORDS`]).
    expanded_words: usize,
    /// Inside how many `$(...)`, backticks or `<(...)`.
    substitution_depth: usize,
    /// Assignments of the simple command being read: (name, value, dynamic); they become
    /// known variables when the command turns out to be assignments only.
    pending_values: Vec<(String, String, bool)>,
    /// Inside how many shell payloads (`sh -c`, `eval`, here-documents fed to a shell).
    script_depth: usize,
}

/// A word with quotes removed, as the shell would pass it (expansions left as written).
struct Unquoted {
    text: String,
    dynamic: bool,
    /// Contains an unquoted variable expansion that the shell would split into words.
    split: bool,
    /// Contains the value of a variable assigned earlier (`"$1"` in `sh -c '"$1"' _ x`).
    expanded: bool,
}

impl Walker {
    /// Parses and walks a whole script: the command itself (depth 0) or a nested payload.
    fn script(&mut self, source: &str, depth: usize) -> Result<(), ParseError> {
        if depth > MAX_DEPTH {
            return Err(ParseError::too_deep(format!(
                "commands nested more than {MAX_DEPTH} levels deep"
            )));
        }
        if source.len() > MAX_LEN {
            return Err(ParseError::unparseable(format!(
                "command longer than {} KiB",
                MAX_LEN / 1024
            )));
        }
        if nesting_estimate(source) > MAX_NESTING {
            return Err(ParseError::too_deep(format!(
                "syntax nested more than {MAX_NESTING} levels deep"
            )));
        }
        let program = parse_program(source, &self.options)?;
        for list in &program.complete_commands {
            self.compound_list(list, depth)?;
        }
        Ok(())
    }

    fn compound_list(&mut self, list: &CompoundList, depth: usize) -> Result<String, ParseError> {
        let mut rendered = Vec::new();
        for item in &list.0 {
            let and_or = &item.0;
            rendered.push(self.pipeline(&and_or.first, depth)?);
            for next in &and_or.additional {
                let (brush_parser::ast::AndOr::And(pipeline)
                | brush_parser::ast::AndOr::Or(pipeline)) = next;
                rendered.push(self.pipeline(pipeline, depth)?);
            }
        }
        Ok(rendered.join("; "))
    }

    fn pipeline(&mut self, pipeline: &Pipeline, depth: usize) -> Result<String, ParseError> {
        let mut parts = Vec::with_capacity(pipeline.seq.len());
        let mut downloads = false;
        for (stage, command) in pipeline.seq.iter().enumerate() {
            let start = self.analysis.invocations.len();
            let after_time = (stage == 0 && pipeline.timed.is_some())
                .then(|| after_time_dashdash(command))
                .flatten();
            parts.push(self.command(after_time.as_ref().unwrap_or(command), depth)?);
            let stage_invocations = &mut self.analysis.invocations[start..];
            if stage > 0 {
                for invocation in stage_invocations.iter_mut() {
                    invocation.piped = true;
                    invocation.pipe_downloads |= downloads;
                }
            }
            downloads |= stage_invocations.iter().any(rules::downloads);
        }
        Ok(parts.join(" | "))
    }

    fn command(&mut self, command: &Command, depth: usize) -> Result<String, ParseError> {
        match command {
            Command::Simple(simple) => self.simple(simple, depth),
            Command::Compound(compound, redirects) => {
                let body = self.compound(compound, depth)?;
                let mut rendered = body;
                for redirect in redirects.iter().flat_map(|list| &list.0) {
                    let (redirect, _) = self.redirect(redirect, depth)?;
                    rendered.push(' ');
                    rendered.push_str(&redirect);
                }
                Ok(rendered)
            }
            Command::Function(function) => {
                // Defining runs nothing; a call walks the body (the latest definition wins).
                let name = remove_quotes(&function.fname.value);
                self.functions.insert(name.clone(), function.body.clone());
                Ok(format!("{name}() {{ ... }}"))
            }
            Command::ExtendedTest(test, redirects) => {
                self.extended_test(&test.expr, depth)?;
                for redirect in redirects.iter().flat_map(|list| &list.0) {
                    self.redirect(redirect, depth)?;
                }
                Ok("[[ ]]".to_string())
            }
        }
    }

    fn extended_test(
        &mut self,
        expr: &brush_parser::ast::ExtendedTestExpr,
        depth: usize,
    ) -> Result<(), ParseError> {
        use brush_parser::ast::ExtendedTestExpr as E;
        match expr {
            E::And(a, b) | E::Or(a, b) => {
                self.extended_test(a, depth)?;
                self.extended_test(b, depth)
            }
            E::Not(a) | E::Parenthesized(a) => self.extended_test(a, depth),
            E::UnaryTest(_, word) => self.unquote(&word.value, depth).map(drop),
            E::BinaryTest(_, left, right) => {
                self.unquote(&left.value, depth)?;
                self.unquote(&right.value, depth).map(drop)
            }
        }
    }

    fn compound(&mut self, compound: &CompoundCommand, depth: usize) -> Result<String, ParseError> {
        Ok(match compound {
            CompoundCommand::Arithmetic(arithmetic) => {
                self.arithmetic(&arithmetic.expr.value, &[]);
                self.unquote(&arithmetic.expr.value, depth)?;
                format!("(( {} ))", arithmetic.expr.value)
            }
            CompoundCommand::ArithmeticForClause(clause) => {
                let exprs: Vec<&str> = [&clause.initializer, &clause.condition, &clause.updater]
                    .into_iter()
                    .flatten()
                    .map(|expr| expr.value.as_str())
                    .collect();
                for expr in &exprs {
                    // `for ((i=0; i<n; i++))`: what the initializer assigns is known after it.
                    self.arithmetic(expr, &exprs);
                    self.unquote(expr, depth)?;
                }
                let body = self.compound_list(&clause.body.list, depth)?;
                format!("for (( )); do {body}; done")
            }
            CompoundCommand::BraceGroup(group) => {
                format!("{{ {}; }}", self.compound_list(&group.list, depth)?)
            }
            CompoundCommand::Subshell(subshell) => {
                let saved = (self.state.clone(), self.functions.clone());
                let body = self.compound_list(&subshell.list, depth);
                (self.state, self.functions) = saved;
                format!("( {} )", body?)
            }
            CompoundCommand::ForClause(clause) => {
                let mut values = Vec::new();
                for value in clause.values.iter().flatten() {
                    values.push(self.unquote(&value.value, depth)?.text);
                }
                let body = self.compound_list(&clause.body.list, depth)?;
                format!(
                    "for {} in {}; do {body}; done",
                    clause.variable_name,
                    values.join(" ")
                )
            }
            CompoundCommand::CaseClause(clause) => {
                self.unquote(&clause.value.value, depth)?;
                let mut bodies = Vec::new();
                for case in &clause.cases {
                    for pattern in &case.patterns {
                        self.unquote(&pattern.value, depth)?;
                    }
                    if let Some(list) = &case.cmd {
                        bodies.push(self.compound_list(list, depth)?);
                    }
                }
                format!("case; {}; esac", bodies.join("; "))
            }
            CompoundCommand::IfClause(clause) => {
                let mut parts = vec![
                    self.compound_list(&clause.condition, depth)?,
                    self.compound_list(&clause.then, depth)?,
                ];
                for branch in clause.elses.iter().flatten() {
                    if let Some(condition) = &branch.condition {
                        parts.push(self.compound_list(condition, depth)?);
                    }
                    parts.push(self.compound_list(&branch.body, depth)?);
                }
                format!("if {}; fi", parts.join("; "))
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => {
                let condition = self.compound_list(&clause.0, depth)?;
                let body = self.compound_list(&clause.1.list, depth)?;
                format!("while {condition}; do {body}; done")
            }
            CompoundCommand::Coprocess(coprocess) => self.command(&coprocess.body, depth)?,
        })
    }

    fn simple(&mut self, simple: &SimpleCommand, depth: usize) -> Result<String, ParseError> {
        let mut invocation = Invocation::default();
        let mut rendered_redirects = Vec::new();
        let mut words = Vec::new();
        let prefix = simple.prefix.iter().flat_map(|prefix| &prefix.0);
        let suffix = simple.suffix.iter().flat_map(|suffix| &suffix.0);
        for item in prefix {
            self.simple_item(
                item,
                &mut invocation,
                &mut words,
                &mut rendered_redirects,
                depth,
            )?;
        }
        if let Some(word) = &simple.word_or_name {
            words.push(self.unquote(&word.value, depth)?);
        }
        for item in suffix {
            if let CommandPrefixOrSuffixItem::AssignmentWord(_, word) = item {
                // After the command name, `NAME=value` is an argument (`dd of=x`, `make V=1`).
                words.push(self.unquote(&word.value, depth)?);
                continue;
            }
            self.simple_item(
                item,
                &mut invocation,
                &mut words,
                &mut rendered_redirects,
                depth,
            )?;
        }
        for word in words {
            if word.split && !word.dynamic {
                // `$W` with `W='rm -rf ~'`: the shell splits the value into words, at the
                // characters of `IFS` when it was set in this command line (`IFS=,; $*`).
                let separators = self.state.vars.get("IFS");
                let is_separator = |c: char| match separators {
                    Some(ifs) => ifs.contains(c),
                    None => c.is_ascii_whitespace(),
                };
                for part in word
                    .text
                    .split(is_separator)
                    .filter(|part| !part.is_empty())
                {
                    invocation.expanded.push(true);
                    self.expanded_words += 1;
                    if self.expanded_words > MAX_EXPANDED_WORDS {
                        return Err(ParseError::too_deep(format!(
                            "expansions produce more than {MAX_EXPANDED_WORDS} words"
                        )));
                    }
                    invocation.argv.push(part.to_string());
                    invocation.dynamic.push(false);
                }
                continue;
            }
            invocation.argv.push(word.text);
            invocation.dynamic.push(word.dynamic);
            invocation.expanded.push(word.expanded);
        }
        // `<(SETUP=1 kubectl completion bash)` reads as it was written: assignments first.
        let mut view: String = invocation
            .assignments
            .iter()
            .map(|(name, value)| format!("{name}={} ", rules::quoted(value)))
            .collect();
        view.push_str(&invocation.argv.join(" "));
        for redirect in &rendered_redirects {
            if !view.is_empty() {
                view.push(' ');
            }
            view.push_str(redirect);
        }
        if invocation.argv.is_empty() {
            // Only assignments and redirections (`x=$(cmd)`, `> file`): nothing runs by name,
            // but the variables are set for the rest of the command line.
            for (name, value) in &invocation.assignments {
                self.state.in_force.push((name.clone(), value.clone()));
            }
            for (name, value, dynamic) in std::mem::take(&mut self.pending_values) {
                if dynamic {
                    self.state.vars.remove(&name);
                } else {
                    self.state.vars.insert(name, value);
                }
            }
            return Ok(view);
        }
        self.pending_values.clear();
        invocation.redirected = !rendered_redirects.is_empty();
        invocation.in_force = self.state.in_force.clone();
        invocation.cwd = self.state.cwd.clone();
        invocation.substituted = self.substitution_depth > 0;
        invocation.in_script = self.script_depth > 0;
        self.invocation(invocation, depth)?;
        Ok(view)
    }

    fn simple_item(
        &mut self,
        item: &CommandPrefixOrSuffixItem,
        invocation: &mut Invocation,
        words: &mut Vec<Unquoted>,
        rendered_redirects: &mut Vec<String>,
        depth: usize,
    ) -> Result<(), ParseError> {
        match item {
            CommandPrefixOrSuffixItem::IoRedirect(redirect) => {
                let (rendered, stdin_text) = self.redirect(redirect, depth)?;
                rendered_redirects.push(rendered);
                if stdin_text.is_some() {
                    invocation.stdin_text = stdin_text;
                }
            }
            CommandPrefixOrSuffixItem::Word(word) => {
                words.push(self.unquote(&word.value, depth)?);
            }
            CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                let unquoted = self.unquote(&word.value, depth)?;
                let (name, value) = unquoted
                    .text
                    .split_once('=')
                    .unwrap_or((unquoted.text.as_str(), ""));
                self.pending_values
                    .push((name.to_string(), value.to_string(), unquoted.dynamic));
                invocation
                    .assignments
                    .push((name.to_string(), value.to_string()));
            }
            CommandPrefixOrSuffixItem::ProcessSubstitution(kind, subshell) => {
                let body =
                    self.substitution(|walker| walker.compound_list(&subshell.list, depth))?;
                let sigil = match kind {
                    brush_parser::ast::ProcessSubstitutionKind::Read => '<',
                    brush_parser::ast::ProcessSubstitutionKind::Write => '>',
                };
                words.push(Unquoted {
                    text: format!("{sigil}({body})"),
                    dynamic: true,
                    split: false,
                    expanded: false,
                });
            }
        }
        Ok(())
    }

    /// Walks a command or process substitution: a subshell, whose changes do not leak.
    fn substitution<T>(
        &mut self,
        walk: impl FnOnce(&mut Walker) -> Result<T, ParseError>,
    ) -> Result<T, ParseError> {
        let saved = (
            self.state.clone(),
            self.functions.clone(),
            std::mem::take(&mut self.pending_values),
        );
        self.substitution_depth += 1;
        let result = walk(self);
        self.substitution_depth -= 1;
        (self.state, self.functions, self.pending_values) = saved;
        result
    }

    /// Records an invocation and everything it runs in turn.
    fn invocation(&mut self, invocation: Invocation, depth: usize) -> Result<(), ParseError> {
        let name = rules::program_name(&invocation.argv[0]).to_string();
        let static_name = !invocation.dynamic.first().copied().unwrap_or(true);
        let function = (static_name && !invocation.wrapped)
            .then(|| self.functions.get(&name).cloned())
            .flatten();
        if let Some(body) = function {
            // A call of a function defined earlier: what runs is its body. A wrapper (`env`,
            // `sudo`, `/usr/bin/time`, `xargs`) runs a program of that name instead.
            self.calls += 1;
            if self.calls > MAX_CALLS {
                return Err(ParseError::too_deep(format!(
                    "more than {MAX_CALLS} function calls"
                )));
            }
            self.compound(&body.0, depth)?;
            for redirect in body.1.iter().flat_map(|list| &list.0) {
                self.redirect(redirect, depth)?;
            }
            return Ok(());
        }
        if static_name && matches!(name.as_str(), "cd" | "pushd" | "popd" | "chdir") {
            let target = invocation
                .argv
                .iter()
                .zip(&invocation.dynamic)
                .skip(1)
                .find(|(arg, _)| !arg.starts_with('-') || arg.as_str() == "-");
            let plain = invocation.argv.len() == 1;
            self.state.cwd = match name.as_str() {
                // A bare `popd` returns to where the matching `pushd` left; with options or
                // a stack entry (`+1`), somewhere the analysis does not follow.
                "popd" if plain => self.state.pushed.pop().unwrap_or(Cwd::Unknown),
                "popd" => Cwd::Unknown,
                // A bare `pushd` swaps the top two directories.
                "pushd" if target.is_none() => Cwd::Unknown,
                _ => {
                    let changed = places::change_dir(
                        target.map(|(arg, _)| arg.as_str()),
                        target.is_some_and(|(_, dynamic)| *dynamic),
                        &self.state.cwd,
                    );
                    if name == "pushd" {
                        self.state.pushed.push(self.state.cwd.clone());
                    }
                    changed
                }
            };
        }
        if static_name
            && matches!(
                name.as_str(),
                "export" | "declare" | "typeset" | "local" | "readonly"
            )
        {
            for arg in invocation.argv.iter().skip(1) {
                if let Some((var, value)) = arg.split_once('=') {
                    self.state
                        .in_force
                        .push((var.to_string(), value.to_string()));
                }
            }
        }
        let nested = rules::nested(&invocation);
        if matches!(nested, rules::Nested::None) {
            // Most commands run nothing else: recorded without a copy.
            self.analysis.invocations.push(invocation);
            return Ok(());
        }
        self.analysis.invocations.push(invocation.clone());
        match nested {
            rules::Nested::None => Ok(()),
            rules::Nested::Argv(from) => {
                let mut inner = invocation.nested(from);
                // `env NAME=value cmd`, `sudo NAME=value cmd`: assignments for the command.
                for word in invocation.argv.iter().take(from).skip(1) {
                    if rules::is_assignment(word)
                        && let Some((name, value)) = word.split_once('=')
                    {
                        inner
                            .assignments
                            .push((name.to_string(), value.to_string()));
                    }
                }
                if let Some((dir, dynamic)) = rules::wrapper_chdir(&invocation) {
                    // `env -C dir`, `sudo -D dir`: the command runs there.
                    inner.cwd = places::change_dir(Some(&dir), dynamic, &invocation.cwd);
                }
                if inner.argv.is_empty() {
                    return Ok(());
                }
                self.invocation(inner, depth)
            }
            rules::Nested::Commands(commands) => {
                for words in commands {
                    if words.argv.is_empty() {
                        continue;
                    }
                    let mut inner = Invocation::from_words(words.argv, None, &invocation);
                    inner.dynamic = words.dynamic;
                    inner.from_input = words.from_input;
                    self.invocation(inner, depth)?;
                }
                Ok(())
            }
            rules::Nested::Script(script) if !rules::runs_shell_code(&invocation) => {
                // `env -S 'a b'`: words to split, not shell code run by a shell.
                self.script(&script, depth + 1)
            }
            rules::Nested::Script(script) => match rules::shell_arguments(&invocation) {
                Some(arguments) => {
                    // `bash -c 'SCRIPT' name a b`: `$0`, `$1`, `$@` are known where static. A
                    // new shell knows none of this one's functions.
                    let saved = self.state.clone();
                    let functions = std::mem::take(&mut self.functions);
                    self.state.vars.clear();
                    for (at, (value, dynamic)) in arguments.iter().enumerate() {
                        if !dynamic {
                            self.state.vars.insert(at.to_string(), value.clone());
                        }
                    }
                    if arguments.iter().skip(1).all(|(_, dynamic)| !dynamic) {
                        let all: Vec<&str> = arguments
                            .iter()
                            .skip(1)
                            .map(|(value, _)| value.as_str())
                            .collect();
                        self.state.vars.insert("@".into(), all.join(" "));
                        self.state.vars.insert("*".into(), all.join(" "));
                    }
                    self.script_depth += 1;
                    let result = self.script(&script, depth + 1);
                    self.script_depth -= 1;
                    self.state = saved;
                    self.functions = functions;
                    result
                }
                None => {
                    self.script_depth += 1;
                    let result = self.script(&script, depth + 1);
                    self.script_depth -= 1;
                    result
                }
            },
            rules::Nested::Input { from, replace } => {
                let mut inner = invocation.nested(from);
                if inner.argv.is_empty() {
                    // `xargs` alone runs `echo`.
                    return Ok(());
                }
                inner.from_input = vec![false; inner.argv.len()];
                match replace {
                    // `-I{}` without `{}` in the command: the input is not used.
                    Some(token)
                        if token.is_empty()
                            || !inner.argv.iter().any(|word| word.contains(token.as_str())) => {}
                    Some(token) => {
                        for at in 0..inner.argv.len() {
                            if inner.argv[at].contains(token.as_str()) {
                                inner.argv[at] = inner.argv[at].replace(token.as_str(), INPUT_WORD);
                                inner.dynamic[at] = true;
                                inner.from_input[at] = true;
                            }
                        }
                    }
                    None => {
                        inner.argv.push(INPUT_WORD.to_string());
                        inner.dynamic.push(true);
                        inner.from_input.push(true);
                    }
                }
                self.invocation(inner, depth)
            }
            rules::Nested::Unknown(what) => {
                self.analysis.dynamic_code.push(what);
                Ok(())
            }
        }
    }

    /// Walks a redirection; returns how it renders and, for here-documents and here-strings,
    /// the text fed to the command.
    fn redirect(
        &mut self,
        redirect: &IoRedirect,
        depth: usize,
    ) -> Result<(String, Option<String>), ParseError> {
        let (record, stdin_text) = match redirect {
            IoRedirect::File(fd, kind, target) => {
                let op = match kind {
                    IoFileRedirectKind::Read => "<",
                    IoFileRedirectKind::Write => ">",
                    IoFileRedirectKind::Append => ">>",
                    IoFileRedirectKind::ReadAndWrite => "<>",
                    IoFileRedirectKind::Clobber => ">|",
                    IoFileRedirectKind::DuplicateInput => "<&",
                    IoFileRedirectKind::DuplicateOutput => ">&",
                };
                let (target, is_file) = match target {
                    IoFileRedirectTarget::Filename(word) => {
                        (self.unquote(&word.value, depth)?.text, true)
                    }
                    IoFileRedirectTarget::Fd(fd) => (fd.to_string(), false),
                    IoFileRedirectTarget::Duplicate(word) => {
                        let text = self.unquote(&word.value, depth)?.text;
                        // `>&file` is bash for `&> file`; `>&2`, `>&-` duplicate or close.
                        let is_descriptor =
                            text == "-" || text.trim_end_matches('-').parse::<u32>().is_ok();
                        (text, !is_descriptor)
                    }
                    IoFileRedirectTarget::ProcessSubstitution(_, subshell) => (
                        format!(
                            "({})",
                            self.substitution(|walker| walker.compound_list(&subshell.list, depth))?
                        ),
                        false,
                    ),
                };
                let writes = match kind {
                    IoFileRedirectKind::Read | IoFileRedirectKind::DuplicateInput => false,
                    _ => is_file,
                };
                (
                    Redirect {
                        fd: *fd,
                        op,
                        target,
                        opens_for_write: writes,
                        cwd: self.state.cwd.clone(),
                    },
                    None,
                )
            }
            IoRedirect::OutputAndError(word, append) => {
                let target = self.unquote(&word.value, depth)?.text;
                let op = if *append { "&>>" } else { "&>" };
                (
                    Redirect {
                        fd: None,
                        op,
                        target,
                        opens_for_write: true,
                        cwd: self.state.cwd.clone(),
                    },
                    None,
                )
            }
            IoRedirect::HereDocument(fd, heredoc) => {
                // Only `$(...)` and backticks run anything inside a here-document.
                if heredoc.requires_expansion && runs_commands(&heredoc.doc.value) {
                    let pieces = guarded(|| {
                        brush_parser::word::parse_heredoc(&heredoc.doc.value, &self.options)
                    })
                    .map_err(|err| ParseError::unparseable(format!("here-document: {err}")))?;
                    let mut scratch = Unquoted {
                        text: String::new(),
                        dynamic: false,
                        split: false,
                        expanded: false,
                    };
                    for piece in &pieces {
                        self.piece(&heredoc.doc.value, piece, true, &mut scratch, depth)?;
                    }
                }
                let op = if heredoc.remove_tabs { "<<-" } else { "<<" };
                let record = Redirect {
                    fd: *fd,
                    op,
                    target: heredoc.here_end.value.clone(),
                    opens_for_write: false,
                    cwd: self.state.cwd.clone(),
                };
                (record, Some(heredoc.doc.value.clone()))
            }
            IoRedirect::HereString(fd, word) => {
                let text = self.unquote(&word.value, depth)?.text;
                let record = Redirect {
                    fd: *fd,
                    op: "<<<",
                    target: text.clone(),
                    opens_for_write: false,
                    cwd: self.state.cwd.clone(),
                };
                (record, Some(text))
            }
        };
        let rendered = record.render();
        self.analysis.redirects.push(record);
        Ok((rendered, stdin_text))
    }

    /// `(( n + 1 ))` in shell code run by another command (`bash -c`, `eval`): bash evaluates
    /// a variable's value as an expression, array subscripts and their `$(...)` included, so
    /// a variable whose value is not known (assigned neither in this command line nor in the
    /// expressions given, `together`) can run anything. Recorded as code known only at run
    /// time. At the top of the command line a variable comes from the agent's own shell.
    fn arithmetic(&mut self, expr: &str, together: &[&str]) {
        static NAME: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r"(^|[^A-Za-z0-9_$#{])([A-Za-z_][A-Za-z0-9_]*)")
                .expect("arithmetic name pattern compiles")
        });
        static ASSIGNED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=[^=]|[-+*/%&|^]=|<<=|>>=)")
                .expect("arithmetic assignment pattern compiles")
        });
        if self.script_depth == 0 {
            return;
        }
        let assigned: Vec<&str> = std::iter::once(expr)
            .chain(together.iter().copied())
            .flat_map(|text| ASSIGNED.captures_iter(text))
            .filter_map(|found| found.get(1).map(|name| name.as_str()))
            .collect();
        let unknown = NAME
            .captures_iter(expr)
            .filter_map(|found| found.get(2).map(|name| name.as_str()))
            .find(|name| !assigned.contains(name) && !self.state.vars.contains_key(*name));
        if let Some(name) = unknown {
            self.analysis.dynamic_code.push(format!(
                "(( {} )) evaluating the value of `{name}` as an expression",
                expr.trim()
            ));
        }
    }

    /// Removes quoting from one word and walks the command substitutions inside it.
    fn unquote(&mut self, word: &str, depth: usize) -> Result<Unquoted, ParseError> {
        // Every case for the word parser but a backtick has a `$`: most words have neither,
        // and a byte search is far cheaper than the substring searches.
        let needs_parser = word.contains('`')
            || (word.contains('$')
                && (word.contains("$(")
                    || word.contains("$'")
                    || word.contains("$\"")
                    || !self.state.vars.is_empty()
                    || word.contains("SHELL")));
        if !needs_parser {
            // Nothing runs and nothing needs decoding: quote removal alone, without the (slower)
            // word parser. A `$` left in the text is a parameter: its value is not known.
            return Ok(Unquoted {
                text: remove_quotes(word),
                dynamic: expands_parameter(word),
                split: false,
                expanded: false,
            });
        }
        let pieces = guarded(|| brush_parser::word::parse(word, &self.options))
            .map_err(|err| ParseError::unparseable(format!("word {word:?}: {err}")))?;
        let mut out = Unquoted {
            text: String::with_capacity(word.len()),
            dynamic: false,
            split: false,
            expanded: false,
        };
        for piece in &pieces {
            self.piece(word, piece, false, &mut out, depth)?;
        }
        Ok(out)
    }

    fn piece(
        &mut self,
        source: &str,
        piece: &brush_parser::word::WordPieceWithSource,
        in_double_quotes: bool,
        out: &mut Unquoted,
        depth: usize,
    ) -> Result<(), ParseError> {
        let raw = source
            .get(piece.start_index..piece.end_index)
            .unwrap_or_default();
        match &piece.piece {
            WordPiece::Text(text) | WordPiece::SingleQuotedText(text) => out.text.push_str(text),
            WordPiece::AnsiCQuotedText(text) => match decode_ansi_c(text) {
                Some(decoded) => out.text.push_str(&decoded),
                None => {
                    return Err(ParseError::unparseable(format!(
                        "invalid escape in $'{text}'"
                    )));
                }
            },
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                for inner_piece in inner {
                    self.piece(source, inner_piece, true, out, depth)?;
                }
            }
            WordPiece::TildeExpansion(_) => out.text.push_str(raw),
            WordPiece::EscapeSequence(escape) => {
                let escaped = escape.strip_prefix('\\').unwrap_or(escape);
                let keeps_backslash =
                    in_double_quotes && !escaped.starts_with(['$', '`', '"', '\\', '\n']);
                if keeps_backslash {
                    out.text.push('\\');
                }
                if escaped != "\n" {
                    out.text.push_str(escaped);
                }
            }
            WordPiece::ParameterExpansion(_) => {
                let name = raw
                    .strip_prefix("${")
                    .and_then(|r| r.strip_suffix('}'))
                    .or_else(|| raw.strip_prefix('$'))
                    .filter(|name| {
                        matches!(*name, "@" | "*")
                            || name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    });
                if let Some(value) = name.and_then(|name| self.state.vars.get(name)) {
                    // Assigned earlier in this command line: its value is known. `"$@"` is
                    // one word per argument even in double quotes.
                    out.text.push_str(value);
                    out.expanded = true;
                    out.split |= !in_double_quotes || name == Some("@");
                    return Ok(());
                }
                if name == Some("SHELL") {
                    // The user's shell: which one is unknown, that it is a shell is certain.
                    out.text.push_str("sh");
                    return Ok(());
                }
                out.dynamic = true;
                out.text.push_str(raw);
                // `${x:-$(cmd)}` runs `cmd`: walk what is inside the braces as a word.
                if let Some(inner) = raw.strip_prefix("${").and_then(|r| r.strip_suffix('}'))
                    && inner.contains(['$', '`'])
                {
                    self.unquote(inner, depth)?;
                }
            }
            WordPiece::CommandSubstitution(script) => {
                out.dynamic = true;
                out.text.push_str(raw);
                self.substitution(|walker| walker.script(script, depth + 1))?;
            }
            WordPiece::BackquotedCommandSubstitution(script) => {
                out.dynamic = true;
                out.text.push_str(raw);
                let script = unescape_backquoted(script);
                self.substitution(|walker| walker.script(&script, depth + 1))?;
            }
            WordPiece::ArithmeticExpression(expr) => {
                out.dynamic = true;
                out.text.push_str(raw);
                self.arithmetic(&expr.value, &[]);
                if expr.value.contains(['$', '`']) {
                    self.unquote(&expr.value, depth)?;
                }
            }
        }
        Ok(())
    }
}

/// `time -- CMD`, `time -p -- ! CMD`: bash's `time` keyword takes `--` (unquoted) and
/// then the pipeline, which may be negated; the parser leaves both in the command's words.
fn after_time_dashdash(command: &Command) -> Option<Command> {
    let Command::Simple(simple) = command else {
        return None;
    };
    if simple.prefix.is_some() || simple.word_or_name.as_ref()?.value != "--" {
        return None;
    }
    let mut items = simple.suffix.as_ref()?.0.iter().peekable();
    while items.peek().is_some_and(
        |item| matches!(item, CommandPrefixOrSuffixItem::Word(word) if word.value == "!"),
    ) {
        items.next();
    }
    let Some(CommandPrefixOrSuffixItem::Word(name)) = items.next() else {
        return None;
    };
    let rest: Vec<CommandPrefixOrSuffixItem> = items.cloned().collect();
    Some(Command::Simple(SimpleCommand {
        prefix: None,
        word_or_name: Some(name.clone()),
        suffix: (!rest.is_empty()).then_some(brush_parser::ast::CommandSuffix(rest)),
    }))
}

/// Whether a shell would accept `source` at all (a line it rejects runs nothing).
pub(super) fn is_shell_syntax(source: &str) -> bool {
    parse_program(source, &ParserOptions::default()).is_ok()
}

fn parse_program(
    source: &str,
    options: &ParserOptions,
) -> Result<brush_parser::ast::Program, ParseError> {
    let parse = |source: &str| {
        catch_unwind(AssertUnwindSafe(|| {
            Parser::new(std::io::Cursor::new(source.as_bytes()), options).parse_program()
        }))
        .map_err(|_| None)?
        .map_err(Some)
    };
    let failed = |err: Option<brush_parser::ParseError>| {
        let detail = err.map_or_else(|| PARSER_PANICKED.to_string(), |err| err.to_string());
        ParseError::unparseable(format!("shell syntax: {detail}"))
    };
    let mut err = match parse(source) {
        Ok(program) => return Ok(program),
        Err(err) => err,
    };
    // bash ends a here-document left open at the end of the input (with a warning):
    // read it the same way.
    if let Some(delimiter) = open_heredoc_delimiter(source) {
        return parse(&format!("{source}\n{delimiter}\n")).map_err(failed);
    }
    // A quote left open at the end of the input is a syntax error to bash, which then runs
    // nothing from the line it opens on: only the complete lines before it run. Read with the
    // quote closed, the text holds those lines unchanged and the open one as the widest thing
    // it could have meant, so holding what that reading holds is on the safe side of bash.
    let mut closed = source.to_string();
    for _ in 0..MAX_CLOSERS {
        let Some(closer) = err.as_ref().and_then(|err| open_to_the_end(err, &closed)) else {
            break;
        };
        closed.push(closer);
        match parse(&closed) {
            Ok(program) => return Ok(program),
            Err(next) => err = next,
        }
    }
    Err(failed(err))
}

/// Quotes left open at the end of one input that are closed to read it (`"$(echo 'x` takes
/// two, the second found only once the first is closed).
const MAX_CLOSERS: usize = 4;

/// The quote character that `err` reports open at the end of `text`, when the text confirms
/// it: that character stands where the parser says the quote opens and never comes again.
fn open_to_the_end(err: &brush_parser::ParseError, text: &str) -> Option<char> {
    use brush_parser::TokenizerError as Open;
    let brush_parser::ParseError::Tokenizing { inner, .. } = err else {
        return None;
    };
    let (quote, at) = match inner {
        Open::UnterminatedSingleQuote(at) => ('\'', at),
        Open::UnterminatedDoubleQuote(at) => ('"', at),
        Open::UnterminatedBackquote(at) => ('`', at),
        _ => return None,
    };
    let mut rest = text.chars().skip(at.index);
    (rest.next() == Some(quote) && !rest.any(|c| c == quote)).then_some(quote)
}

/// The delimiter of the last here-document operator (`<<EOF`, `<<-'EOF'`) whose delimiter
/// line never comes.
fn open_heredoc_delimiter(source: &str) -> Option<String> {
    static HEREDOC: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"<<-?\s*(?:'([^'\n]+)'|"([^"\n]+)"|\\?([A-Za-z_][A-Za-z0-9_]*))"#)
            .expect("here-document pattern compiles")
    });
    let found = HEREDOC.captures_iter(source).last()?;
    let delimiter = found.get(1).or(found.get(2)).or(found.get(3))?.as_str();
    let closed = source
        .lines()
        .any(|line| line.trim_start_matches('\t') == delimiter);
    (!closed).then(|| delimiter.to_string())
}

/// What a parser panic is reported as.
const PARSER_PANICKED: &str = "the shell parser failed on this input";

/// Runs a brush-parser entry point; a panic inside it becomes an error like any other parse
/// failure (the hook must fail safe, never crash).
fn guarded<T, E: fmt::Display>(parse: impl FnOnce() -> Result<T, E>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(parse)) {
        Ok(Ok(parsed)) => Ok(parsed),
        Ok(Err(err)) => Err(err.to_string()),
        Err(_) => Err(PARSER_PANICKED.to_string()),
    }
}

/// An estimate of how deeply `source` nests, computed without parsing so that pathological
/// input never reaches the recursive parser. A small lexer keeps a stack of open contexts
/// (parentheses, `$(`, braces, backticks, double quotes) so that a `)` inside quotes neither
/// hides nor closes a real level; compound keywords (`if`, `while`, `for`, `case`...) count as
/// levels too.
fn nesting_estimate(source: &str) -> usize {
    #[derive(PartialEq)]
    enum Open {
        Paren,
        Brace,
        Backtick,
        Double,
    }
    let bytes = source.as_bytes();
    let mut stack: Vec<Open> = Vec::new();
    let mut keywords: usize = 0;
    let mut max_depth: usize = 0;
    let mut index = 0;
    let mut word_start = true;
    while index < bytes.len() {
        let byte = bytes[index];
        let next = bytes.get(index + 1).copied();
        if stack.last() == Some(&Open::Double) {
            match byte {
                b'"' => {
                    stack.pop();
                }
                b'\\' => index += 1,
                b'$' if next == Some(b'(') => {
                    stack.push(Open::Paren);
                    index += 1;
                }
                b'`' => stack.push(Open::Backtick),
                _ => {}
            }
            index += 1;
            word_start = false;
            max_depth = max_depth.max(stack.len() + keywords);
            continue;
        }
        match byte {
            b'\'' => {
                index = bytes[index + 1..]
                    .iter()
                    .position(|&b| b == b'\'')
                    .map_or(bytes.len(), |offset| index + 1 + offset);
            }
            b'\\' => index += 1,
            b'"' => stack.push(Open::Double),
            b'(' => stack.push(Open::Paren),
            b'{' => stack.push(Open::Brace),
            b')' if stack.last() == Some(&Open::Paren) => {
                stack.pop();
            }
            b'}' if stack.last() == Some(&Open::Brace) => {
                stack.pop();
            }
            b'`' if stack.last() == Some(&Open::Backtick) => {
                stack.pop();
            }
            b'`' => stack.push(Open::Backtick),
            _ if word_start && byte.is_ascii_alphabetic() => {
                let end = bytes[index..]
                    .iter()
                    .position(|b| !b.is_ascii_alphabetic())
                    .map_or(bytes.len(), |offset| index + offset);
                match &source[index..end] {
                    "if" | "while" | "until" | "for" | "case" | "select" => keywords += 1,
                    "fi" | "done" | "esac" => keywords = keywords.saturating_sub(1),
                    _ => {}
                }
                index = end;
                word_start = false;
                max_depth = max_depth.max(stack.len() + keywords);
                continue;
            }
            _ => {}
        }
        max_depth = max_depth.max(stack.len() + keywords);
        word_start = matches!(
            byte,
            b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b'{'
        );
        index += 1;
    }
    max_depth
}

/// Whether shell text may contain a command substitution (`$(...)`, `$((...))` or backticks).
fn runs_commands(text: &str) -> bool {
    text.contains("$(") || text.contains('`')
}

/// Whether a word has a `$` outside single quotes (a parameter the shell expands).
fn expands_parameter(word: &str) -> bool {
    let mut in_single = false;
    let mut in_double = false;
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' if !in_double => in_single = !in_single,
            '"' if !in_single => in_double = !in_double,
            '\\' if !in_single => {
                chars.next();
            }
            '$' if !in_single => return true,
            _ => {}
        }
    }
    false
}

/// Quote removal for a word without expansions: `'a b'`, `"a b"`, `a\ b` all give `a b`.
fn remove_quotes(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars();
    let mut in_double = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' if !in_double => out.extend(chars.by_ref().take_while(|&c| c != '\'')),
            '"' => in_double = !in_double,
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(next) if in_double && !matches!(next, '"' | '\\') => {
                    out.push('\\');
                    out.push(next);
                }
                Some(next) => out.push(next),
            },
            _ => out.push(c),
        }
    }
    out
}

/// Inside backticks, `\``, `\\` and `\$` stand for the bare character.
fn unescape_backquoted(script: &str) -> String {
    let mut out = String::with_capacity(script.len());
    let mut chars = script.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && matches!(next, '`' | '\\' | '$')
        {
            out.push(next);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

/// Decodes the body of `$'...'` (`$'\x72m'` is `rm`); None for an escape that names no
/// character (`\UFFFFFFFF`, a lone surrogate): what the shell makes of it is not certain.
fn decode_ansi_c(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(escape) = chars.next() else {
            out.push('\\');
            break;
        };
        let simple = match escape {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(escape),
            _ => None,
        };
        if let Some(decoded) = simple {
            out.push(decoded);
            continue;
        }
        let (radix, max_digits, mut value) = match escape {
            'x' => (16, 2, 0),
            'u' => (16, 4, 0),
            'U' => (16, 8, 0),
            '0'..='7' => (8, 2, escape.to_digit(8).unwrap_or(0)),
            _ => {
                out.push('\\');
                out.push(escape);
                continue;
            }
        };
        let mut digits = 0;
        while digits < max_digits
            && let Some(digit) = chars.peek().and_then(|d| d.to_digit(radix))
        {
            value = value * radix + digit;
            chars.next();
            digits += 1;
        }
        out.push(char::from_u32(value)?);
    }
    Some(out)
}
