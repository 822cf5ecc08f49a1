//! Adding and removing agentguard's hook entries in agent-host settings, text in, text out.
//!
//! Real users have lost third-party hooks to careless installers, so every edit here keeps what
//! it does not own: every other key, value and key order, the file's indentation, line endings,
//! trailing newline, non-ASCII text and (TOML) comments. An entry is ours when its command runs
//! a program named `agentguard` with `hook stop` or `hook pre-tool`; nothing else is touched.
//! A JSON edit is a text edit (`json_span`): our entries are inserted after their siblings
//! with the same separators, and removed with exactly the text that joined them, so every
//! byte we do not own stays (compact objects stay compact, `1e3` stays `1e3`) and install then
//! uninstall gives back the same bytes. The text is returned as it was whenever nothing
//! changes.
//!
//! Shapes (Claude Code observed on 2.1.197 and 2.1.332; Codex from its hooks documentation at
//! developers.openai.com/codex/hooks and config-advanced, checked against the event names in the
//! Codex 0.171.0 binary, which knows Stop, SubagentStop and PreToolUse):
//!
//! ```json
//! {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "...", "timeout": 60}]}],
//!            "PreToolUse": [{"matcher": "Bash|Edit", "hooks": [{"type": "command", ...}]}]}}
//! ```
//!
//! Codex reads the same JSON shape from `hooks.json`, or the same structure inline in
//! `config.toml` as `[[hooks.Stop]]` tables with `[[hooks.Stop.hooks]]` handler tables (see
//! `tests/fixtures/install/codex_config.toml`). Codex's PreToolUse matches the tool names `Bash`,
//! `apply_patch` and MCP tools, so its matcher differs from Claude's.

pub use crate::hosts::{Format, HookSpec};
use crate::hosts::{HookEvent, event_key, is_agentguard_command};

/// What happened to one event's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Added,
    /// The entry existed with another command, timeout or matcher, or was duplicated.
    Updated,
    Unchanged,
    Removed,
    /// Uninstall found no entry of ours.
    Absent,
}

/// The result of an edit: the new text (the input itself when nothing changed) and what
/// happened per event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub text: String,
    pub changes: Vec<(HookEvent, Change)>,
}

impl Edit {
    pub fn changed(&self) -> bool {
        self.changes
            .iter()
            .any(|(_, c)| !matches!(c, Change::Unchanged | Change::Absent))
    }
}

/// A settings text that cannot be edited: it does not parse, or has an unexpected shape.
/// `line`/`column` are 1-based, when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsError {
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl SettingsError {
    fn shape(message: impl Into<String>) -> Self {
        SettingsError {
            message: message.into(),
            line: None,
            column: None,
        }
    }
}

/// Adds or updates our entries for `specs`; never duplicates one.
pub fn install(format: Format, text: &str, specs: &[HookSpec]) -> Result<Edit, SettingsError> {
    match format {
        Format::Json => json::install(text, specs),
        Format::Toml => toml::install(text, specs),
    }
}

/// Removes our entries for `events`, and the containers that our removal left empty: a group
/// with no hooks left, an event with no groups left, a `hooks` table with nothing left. So
/// install then uninstall gives back the original, except for a file that already held an
/// empty `"Stop": []` or `"hooks": {}` before the install: those go too (the host reads the
/// same settings either way).
pub fn uninstall(format: Format, text: &str, events: &[HookEvent]) -> Result<Edit, SettingsError> {
    match format {
        Format::Json => json::uninstall(text, events),
        Format::Toml => toml::uninstall(text, events),
    }
}

/// Whether the text holds any entry of ours, under any of agentguard's events.
pub fn has_agentguard_hooks(format: Format, text: &str) -> Result<bool, SettingsError> {
    Ok(uninstall(format, text, &HookEvent::ALL)?.changed())
}

/// One hook entry of ours in a settings text: the host's event key, as written (any key under
/// `hooks`, so doctor also sees an entry of ours under an event agentguard does not install),
/// its command, and the matcher of its group (which tools a PreToolUse hook sees).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookEntry {
    pub event: String,
    pub command: String,
    pub matcher: Option<String>,
}

/// agentguard's hook entries in a settings text, in file order; an error (with line and column
/// when the text does not parse) when the text cannot be read, the same error install and
/// uninstall give, so doctor and install agree on what is readable.
pub fn hook_entries(format: Format, text: &str) -> Result<Vec<HookEntry>, SettingsError> {
    match format {
        Format::Json => json::hook_entries(text),
        Format::Toml => toml::hook_entries(text),
    }
}

/// Whether a TOML text defines hooks in a `hooks` table (the user keeps Codex hooks in
/// config.toml). `hooks.state` alone is Codex's trust record, not a hook.
pub fn toml_has_hooks(text: &str) -> Result<bool, SettingsError> {
    let doc = toml::parse(text)?;
    Ok(doc
        .get("hooks")
        .and_then(toml_edit::Item::as_table_like)
        .is_some_and(|hooks| hooks.iter().any(|(key, _)| key != "state")))
}

/// Whether a Codex config.toml turns hooks off: `[features] hooks = false`, or the deprecated
/// alias `codex_hooks = false`. Hooks are on by default since Codex 0.124.
pub fn codex_hooks_disabled(config_toml: &str) -> Result<bool, SettingsError> {
    let doc = toml::parse(config_toml)?;
    let features = doc.get("features");
    let off = |key: &str| {
        features
            .and_then(|f| f.get(key))
            .and_then(toml_edit::Item::as_bool)
            == Some(false)
    };
    Ok(off("hooks") || off("codex_hooks"))
}

mod json {
    use serde_json::{Map, Value, json};

    use super::{
        Change, Edit, HookEntry, HookEvent, HookSpec, SettingsError, event_key,
        is_agentguard_command,
    };
    use crate::json_span::{self, Kind, Node};

    /// How the file is laid out, so inserted text looks like the user's.
    #[derive(Debug, PartialEq, Eq)]
    pub(super) struct Style {
        /// The indentation unit of a multi-line file; None when the file is one line.
        pub indent: Option<String>,
        pub crlf: bool,
    }

    pub(super) fn detect_style(text: &str) -> Style {
        let body = text.trim_start_matches('\u{feff}');
        let crlf = body.contains("\r\n");
        let indent = if body.trim().contains('\n') {
            let unit = body
                .lines()
                .skip(1)
                .map(|line| &line[..line.len() - line.trim_start().len()])
                .find(|lead| !lead.is_empty())
                .map(|lead| {
                    if lead.starts_with('\t') {
                        "\t".to_string()
                    } else {
                        lead.to_string()
                    }
                });
            Some(unit.unwrap_or_else(|| "  ".into()))
        } else {
            None
        };
        Style { indent, crlf }
    }

    /// Checks that the text is a JSON object (serde_json's errors name line and column), and
    /// returns its spans. A comment gets its own message: the hosts read settings as strict
    /// JSON (checked on Claude Code 2.1.332: a settings file with a `//` comment is skipped
    /// whole, its hooks do not run; Codex 0.171.0 parses hooks.json with serde_json and skips
    /// it with a warning), so agentguard must not add hooks to a file the host ignores.
    fn parse(text: &str) -> Result<Node, SettingsError> {
        let body = text.trim_start_matches('\u{feff}');
        if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(body) {
            if let Some(offset) = json_span::first_comment(body) {
                let (line, column) = line_column(body, offset);
                return Err(SettingsError {
                    message: "a comment: the agent host reads its settings as strict JSON and \
                              ignores a file with comments (Claude Code runs none of its hooks); \
                              remove the comments"
                        .into(),
                    line: Some(line),
                    column: Some(column),
                });
            }
            let full = err.to_string();
            let message = match full.rfind(" at line ") {
                Some(cut) => full[..cut].to_string(),
                None => full,
            };
            return Err(SettingsError {
                message,
                line: Some(err.line()),
                column: Some(err.column()),
            });
        }
        let root = json_span::parse(text).map_err(|err| {
            let (line, column) = line_column(text, err.offset);
            SettingsError {
                message: err.message.to_string(),
                line: Some(line),
                column: Some(column),
            }
        })?;
        if root.members().is_none() {
            return Err(SettingsError::shape("the top level is not a JSON object"));
        }
        Ok(root)
    }

    /// The spans of a text [`parse`] accepted before and agentguard's own edits kept valid.
    fn spans(text: &str) -> Result<Node, SettingsError> {
        json_span::parse(text).map_err(|err| {
            let (line, column) = line_column(text, err.offset);
            SettingsError {
                message: err.message.to_string(),
                line: Some(line),
                column: Some(column),
            }
        })
    }

    fn line_column(text: &str, offset: usize) -> (usize, usize) {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        (line, column)
    }

    /// The whitespace that starts the line `offset` is on.
    fn line_indent(text: &str, offset: usize) -> &str {
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line = &text[line_start..];
        &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
    }

    /// A new value's text: pretty with the file's indent unit, each new line continuing from
    /// `base` (the indentation of the line it starts on), or on one line in a one-line file.
    fn render(value: &Value, style: &Style, inline_spaced: bool, base: &str) -> String {
        match &style.indent {
            Some(unit) => {
                let mut buf = Vec::new();
                let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
                let mut serializer = serde_json::Serializer::with_formatter(&mut buf, formatter);
                serde::Serialize::serialize(value, &mut serializer)
                    .expect("serializing a serde_json::Value into memory cannot fail");
                let text = String::from_utf8(buf).expect("serde_json writes UTF-8");
                let newline = if style.crlf { "\r\n" } else { "\n" };
                // A raw newline cannot occur inside a JSON string: this only touches breaks.
                text.replace('\n', &format!("{newline}{base}"))
            }
            None if inline_spaced => inline(value),
            None => value.to_string(),
        }
    }

    /// One line with a space after `:` and `,`, for a one-line file written that way.
    fn inline(value: &Value) -> String {
        match value {
            Value::Object(map) => {
                let members: Vec<String> = map
                    .iter()
                    .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), inline(v)))
                    .collect();
                format!("{{{}}}", members.join(", "))
            }
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(inline).collect();
                format!("[{}]", items.join(", "))
            }
            other => other.to_string(),
        }
    }

    /// The new text after replacing `start..end`.
    fn splice(text: &str, start: usize, end: usize, with: &str) -> String {
        let mut out = String::with_capacity(text.len() + with.len());
        out.push_str(&text[..start]);
        out.push_str(with);
        out.push_str(&text[end..]);
        out
    }

    /// Adds `item` as the last member (`key` Some) of an object or element (`key` None) of
    /// an array, laid out like its siblings: the same separator before it, the same spacing
    /// around `:`. In an empty container it goes on a line of its own in a multi-line file.
    fn append(text: &str, container: &Node, key: Option<&str>, item: &Value) -> String {
        let mut style = detect_style(text);
        let is_empty = container.members().is_some_and(<[_]>::is_empty)
            || container.elements().is_some_and(<[_]>::is_empty);
        if is_empty
            && style.indent.is_none()
            && text[..container.start]
                .trim_start_matches('\u{feff}')
                .is_empty()
        {
            // An empty file `{}` gains nested entries: lay them out like a fresh file (removing
            // them again gives back `{}`).
            style.indent = Some("  ".into());
        }
        // A one-line container of the user's (`"Stop": [{...}]` in an expanded file) gets its
        // new item on that line too.
        if !is_empty && !text[container.start..container.end].contains('\n') {
            style.indent = None;
        }
        let spaced = text[container.start..container.end].contains(": ")
            || text[container.start..container.end].contains(", ")
            || text.contains(": ")
            || style.indent.is_some();
        let render_item = |base: &str, colon: &str| {
            let value = render(item, &style, spaced, base);
            match key {
                Some(key) => format!("{}{colon}{value}", Value::from(key)),
                None => value,
            }
        };
        // (end of the last sibling, start of the last sibling's text, its key's end if a member)
        let last = match &container.kind {
            Kind::Object(members) => members
                .last()
                .map(|m| (m.value.end, m.key_start, Some((m.key_end, m.value.start)))),
            Kind::Array(elements) => elements.last().map(|e| (e.end, e.start, None)),
            Kind::Scalar => None,
        };
        match last {
            Some((after, sibling_start, colon_span)) => {
                // The whitespace between the sibling and the `{`, `[` or `,` before it.
                let before = &text[..sibling_start];
                let mut gap = &before[before.trim_end().len()..];
                let only_child = container.members().is_some_and(|m| m.len() == 1)
                    || container.elements().is_some_and(|e| e.len() == 1);
                if only_child && style.indent.is_none() && spaced {
                    // `[{...}]`: the space after a comma cannot be read off the bracket.
                    gap = " ";
                }
                let colon = colon_span
                    .map(|(key_end, value_start)| &text[key_end..value_start])
                    .unwrap_or(if spaced { ": " } else { ":" });
                let base = line_indent(text, sibling_start);
                splice(
                    text,
                    after,
                    after,
                    &format!(",{gap}{}", render_item(base, colon)),
                )
            }
            None => {
                let interior = (container.start + 1, container.end - 1);
                match &style.indent {
                    Some(unit) => {
                        let outer = line_indent(text, container.start);
                        let inner = format!("{outer}{unit}");
                        let newline = if style.crlf { "\r\n" } else { "\n" };
                        let colon = if spaced { ": " } else { ":" };
                        let body = format!(
                            "{newline}{inner}{}{newline}{outer}",
                            render_item(&inner, colon)
                        );
                        splice(text, interior.0, interior.1, &body)
                    }
                    None => {
                        let colon = if spaced { ": " } else { ":" };
                        splice(text, interior.0, interior.1, &render_item("", colon))
                    }
                }
            }
        }
    }

    /// Removes member or element `index` of `container` with the separator that joined it to
    /// its siblings, so a removal undoes an [`append`] byte for byte.
    fn remove(text: &str, container: &Node, index: usize) -> String {
        let spans: Vec<(usize, usize)> = match &container.kind {
            Kind::Object(members) => members.iter().map(|m| (m.key_start, m.value.end)).collect(),
            Kind::Array(elements) => elements.iter().map(|e| (e.start, e.end)).collect(),
            Kind::Scalar => return text.to_string(),
        };
        let (start, end) = match (index, spans.len()) {
            (_, 1) => (container.start + 1, container.end - 1),
            (0, _) => (spans[0].0, spans[1].0),
            (i, _) => (spans[i - 1].1, spans[i].1),
        };
        splice(text, start, end, "")
    }

    /// The node at a path of member keys and element indices from the root.
    #[derive(Clone, Copy)]
    enum Step<'a> {
        Key(&'a str),
        Index(usize),
    }

    fn at<'n>(root: &'n Node, path: &[Step]) -> Option<&'n Node> {
        path.iter().try_fold(root, |node, step| match step {
            Step::Key(key) => node.get(key),
            Step::Index(i) => node.elements()?.get(*i),
        })
    }

    fn command_of(text: &str, hook: &Node) -> Option<String> {
        hook.get("command")?.value(text)?.as_str().map(String::from)
    }

    /// (group index, hook index) of every entry of ours in an event array, in file order.
    fn find_ours(text: &str, groups: &Node) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        for (g, group) in groups.elements().unwrap_or(&[]).iter().enumerate() {
            let Some(hooks) = group.get("hooks").and_then(Node::elements) else {
                continue;
            };
            for (h, hook) in hooks.iter().enumerate() {
                if command_of(text, hook).is_some_and(|c| is_agentguard_command(&c)) {
                    found.push((g, h));
                }
            }
        }
        found
    }

    /// Removes hook `h` of group `g` of the event array at `event`, and the group when that
    /// left it empty.
    fn remove_entry(
        text: &str,
        event: &[Step],
        g: usize,
        h: usize,
    ) -> Result<String, SettingsError> {
        let root = spans(text)?;
        let hooks_path = [event, &[Step::Index(g), Step::Key("hooks")]].concat();
        let hooks = at(&root, &hooks_path).ok_or_else(lost)?;
        if hooks.elements().is_some_and(|e| e.len() == 1) {
            let groups = at(&root, event).ok_or_else(lost)?;
            return Ok(remove(text, groups, g));
        }
        Ok(remove(text, hooks, h))
    }

    fn lost() -> SettingsError {
        SettingsError::shape("the settings changed shape while being edited")
    }

    fn wanted_hook(spec: &HookSpec) -> Map<String, Value> {
        let Value::Object(hook) =
            json!({"type": "command", "command": spec.command, "timeout": spec.timeout})
        else {
            unreachable!("a json! object literal is an object");
        };
        hook
    }

    /// Adds our entry for `spec`, or brings the existing one up to date in place; later
    /// duplicates are removed. One text edit per round, each on a fresh parse.
    fn upsert(text: &mut String, spec: &HookSpec) -> Result<Change, SettingsError> {
        let key = event_key(spec.event);
        let event = [Step::Key("hooks"), Step::Key(key)];
        let mut changed = false;
        loop {
            let root = spans(text)?;
            let Some(hooks) = root.get("hooks") else {
                let mut group = Map::new();
                if let Some(matcher) = spec.matcher {
                    group.insert("matcher".into(), Value::from(matcher));
                }
                group.insert(
                    "hooks".into(),
                    Value::Array(vec![Value::Object(wanted_hook(spec))]),
                );
                let value = json!({ key: [Value::Object(group)] });
                *text = append(text, &root, Some("hooks"), &value);
                return Ok(Change::Added);
            };
            if hooks.members().is_none() {
                return Err(SettingsError::shape("\"hooks\" is not an object"));
            }
            let Some(groups) = hooks.get(key) else {
                let value = json!([new_group(spec)]);
                *text = append(text, hooks, Some(key), &value);
                return Ok(Change::Added);
            };
            if groups.elements().is_none() {
                return Err(SettingsError::shape(format!(
                    "\"hooks.{key}\" is not an array"
                )));
            }
            let found = find_ours(text, groups);
            let Some(&(g, h)) = found.first() else {
                *text = append(text, groups, None, &new_group(spec));
                return Ok(Change::Added);
            };
            if let Some(&(dg, dh)) = found.get(1..).and_then(|rest| rest.last()) {
                *text = remove_entry(text, &event, dg, dh)?;
                changed = true;
                continue;
            }
            let group = &groups.elements().unwrap_or(&[])[g];
            let hook = &group.get("hooks").and_then(Node::elements).unwrap_or(&[])[h];
            if let Some(edited) = update_members(text, hook, &wanted_hook(spec)) {
                *text = edited;
                changed = true;
                continue;
            }
            // We own the matcher only of a group that holds nothing but our entries.
            let only_ours = group
                .get("hooks")
                .and_then(Node::elements)
                .is_some_and(|hooks| {
                    hooks.iter().all(|hook| {
                        command_of(text, hook).is_some_and(|c| is_agentguard_command(&c))
                    })
                });
            if let (true, Some(matcher)) = (only_ours, spec.matcher) {
                let mut wanted = Map::new();
                wanted.insert("matcher".into(), Value::from(matcher));
                if let Some(edited) = update_members(text, group, &wanted) {
                    *text = edited;
                    changed = true;
                    continue;
                }
            }
            return Ok(if changed {
                Change::Updated
            } else {
                Change::Unchanged
            });
        }
    }

    fn new_group(spec: &HookSpec) -> Value {
        let mut group = Map::new();
        if let Some(matcher) = spec.matcher {
            group.insert("matcher".into(), Value::from(matcher));
        }
        group.insert(
            "hooks".into(),
            Value::Array(vec![Value::Object(wanted_hook(spec))]),
        );
        Value::Object(group)
    }

    /// The text with the first member of `object` that differs from `wanted` set in place
    /// (or added at the end when missing); None when every wanted member already holds.
    fn update_members(text: &str, object: &Node, wanted: &Map<String, Value>) -> Option<String> {
        for (key, value) in wanted {
            match object.get(key) {
                Some(node) if node.value(text).as_ref() == Some(value) => {}
                Some(node) => return Some(splice(text, node.start, node.end, &value.to_string())),
                None => return Some(append(text, object, Some(key), value)),
            }
        }
        None
    }

    pub(super) fn install(text: &str, specs: &[HookSpec]) -> Result<Edit, SettingsError> {
        let mut edited = if text.trim_start_matches('\u{feff}').trim().is_empty() {
            // A missing or empty file becomes a fresh one, laid out as people write JSON.
            "{\n}\n".to_string()
        } else {
            text.to_string()
        };
        parse(&edited)?;
        let mut changes = Vec::new();
        for spec in specs {
            changes.push((spec.event, upsert(&mut edited, spec)?));
        }
        Ok(finish(text, edited, changes))
    }

    pub(super) fn hook_entries(text: &str) -> Result<Vec<HookEntry>, SettingsError> {
        if text.trim_start_matches('\u{feff}').trim().is_empty() {
            return Ok(Vec::new());
        }
        let root = parse(text)?;
        let mut entries = Vec::new();
        for event in root.get("hooks").and_then(Node::members).unwrap_or(&[]) {
            for (g, h) in find_ours(text, &event.value) {
                let path = [Step::Index(g), Step::Key("hooks"), Step::Index(h)];
                if let Some(command) = at(&event.value, &path).and_then(|n| command_of(text, n)) {
                    let matcher = at(&event.value, &[Step::Index(g), Step::Key("matcher")])
                        .and_then(|n| n.value(text))
                        .and_then(|v| v.as_str().map(String::from));
                    entries.push(HookEntry {
                        event: event.key.clone(),
                        command,
                        matcher,
                    });
                }
            }
        }
        Ok(entries)
    }

    pub(super) fn uninstall(text: &str, events: &[HookEvent]) -> Result<Edit, SettingsError> {
        if text.trim_start_matches('\u{feff}').trim().is_empty() {
            return Ok(finish(
                text,
                text.to_string(),
                events.iter().map(|&e| (e, Change::Absent)).collect(),
            ));
        }
        let mut edited = text.to_string();
        let root = parse(&edited)?;
        let mut changes = Vec::new();
        if root.get("hooks").and_then(Node::members).is_none() {
            changes.extend(events.iter().map(|&e| (e, Change::Absent)));
            return Ok(finish(text, edited, changes));
        }
        for &event_name in events {
            let key = event_key(event_name);
            let event = [Step::Key("hooks"), Step::Key(key)];
            let mut removed = false;
            loop {
                let root = spans(&edited)?;
                let Some(groups) = at(&root, &event).filter(|g| g.elements().is_some()) else {
                    break;
                };
                let Some(&(g, h)) = find_ours(&edited, groups).last() else {
                    if removed && groups.elements().is_some_and(<[Node]>::is_empty) {
                        let hooks = root.get("hooks").ok_or_else(lost)?;
                        let index = hooks.member_index(key).ok_or_else(lost)?;
                        edited = remove(&edited, hooks, index);
                    }
                    break;
                };
                edited = remove_entry(&edited, &event, g, h)?;
                removed = true;
            }
            changes.push((
                event_name,
                if removed {
                    Change::Removed
                } else {
                    Change::Absent
                },
            ));
        }
        let removed = changes.iter().any(|(_, c)| *c == Change::Removed);
        let root = spans(&edited)?;
        if removed
            && let Some(hooks) = root.get("hooks")
            && hooks.members().is_some_and(<[_]>::is_empty)
        {
            let index = root.member_index("hooks").ok_or_else(lost)?;
            edited = remove(&edited, &root, index);
        }
        Ok(finish(text, edited, changes))
    }

    fn finish(original: &str, edited: String, changes: Vec<(HookEvent, Change)>) -> Edit {
        let edit = Edit {
            text: String::new(),
            changes,
        };
        let text = if edit.changed() {
            edited
        } else {
            original.to_string()
        };
        Edit { text, ..edit }
    }
}

mod toml {
    use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, Value};

    use super::{
        Change, Edit, HookEntry, HookEvent, HookSpec, SettingsError, event_key,
        is_agentguard_command,
    };

    pub(super) fn parse(text: &str) -> Result<DocumentMut, SettingsError> {
        text.parse::<DocumentMut>().map_err(|err| {
            let (line, column) = match err.span() {
                Some(span) => line_column(text, span.start),
                None => (None, None),
            };
            SettingsError {
                message: err.message().trim().to_string(),
                line,
                column,
            }
        })
    }

    fn line_column(text: &str, offset: usize) -> (Option<usize>, Option<usize>) {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        (Some(line), Some(column))
    }

    fn is_ours(hook: &Table) -> bool {
        hook.get("command")
            .and_then(Item::as_str)
            .is_some_and(is_agentguard_command)
    }

    fn find_ours(groups: &ArrayOfTables) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        for (g, group) in groups.iter().enumerate() {
            let Some(hooks) = group.get("hooks").and_then(Item::as_array_of_tables) else {
                continue;
            };
            for (h, hook) in hooks.iter().enumerate() {
                if is_ours(hook) {
                    found.push((g, h));
                }
            }
        }
        found
    }

    fn remove_entries(groups: &mut ArrayOfTables, entries: &[(usize, usize)]) {
        for &(g, h) in entries.iter().rev() {
            let Some(group) = groups.get_mut(g) else {
                continue;
            };
            let Some(hooks) = group
                .get_mut("hooks")
                .and_then(Item::as_array_of_tables_mut)
            else {
                continue;
            };
            hooks.remove(h);
            if hooks.is_empty() {
                groups.remove(g);
            }
        }
    }

    /// Sets `key` to `value` unless it already holds it, keeping the old value's comments.
    fn set(table: &mut Table, key: &str, value: Value) -> bool {
        match table.get_mut(key).and_then(Item::as_value_mut) {
            Some(old) if same_value(old, &value) => false,
            Some(old) => {
                let decor = old.decor().clone();
                *old = value;
                *old.decor_mut() = decor;
                true
            }
            None => {
                table.insert(key, Item::Value(value));
                true
            }
        }
    }

    fn same_value(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::String(a), Value::String(b)) => a.value() == b.value(),
            (Value::Integer(a), Value::Integer(b)) => a.value() == b.value(),
            _ => false,
        }
    }

    fn hook_table(spec: &HookSpec) -> Table {
        let mut hook = Table::new();
        hook.insert("type", toml_edit::value("command"));
        hook.insert("command", toml_edit::value(spec.command.as_str()));
        hook.insert("timeout", toml_edit::value(spec.timeout));
        hook
    }

    fn upsert(groups: &mut ArrayOfTables, spec: &HookSpec) -> Change {
        let found = find_ours(groups);
        let Some(&(g, h)) = found.first() else {
            let mut group = Table::new();
            if let Some(matcher) = spec.matcher {
                group.insert("matcher", toml_edit::value(matcher));
            }
            let mut hook = hook_table(spec);
            // Right under its group's header, as people write it.
            hook.decor_mut().set_prefix("");
            let mut hooks = ArrayOfTables::new();
            hooks.push(hook);
            group.insert("hooks", Item::ArrayOfTables(hooks));
            groups.push(group);
            return Change::Added;
        };
        let mut changed = found.len() > 1;
        remove_entries(groups, &found[1..]);
        let group = groups.get_mut(g).expect("found indices are valid");
        let hooks = group
            .get_mut("hooks")
            .and_then(Item::as_array_of_tables_mut)
            .expect("found indices point into an array of tables");
        let hook = hooks.get_mut(h).expect("found indices are valid");
        changed |= set(hook, "type", Value::from("command"));
        changed |= set(hook, "command", Value::from(spec.command.as_str()));
        changed |= set(hook, "timeout", Value::from(spec.timeout));
        let only_ours = hooks.iter().all(is_ours);
        if let (true, Some(matcher)) = (only_ours, spec.matcher) {
            changed |= set(group, "matcher", Value::from(matcher));
        }
        if changed {
            Change::Updated
        } else {
            Change::Unchanged
        }
    }

    fn finish(text: &str, doc: &DocumentMut, changes: Vec<(HookEvent, Change)>) -> Edit {
        let edit = Edit {
            text: String::new(),
            changes,
        };
        let text = if edit.changed() {
            doc.to_string()
        } else {
            text.to_string()
        };
        Edit { text, ..edit }
    }

    const INLINE_HINT: &str =
        "agentguard edits Codex hooks written as [[hooks.<Event>]] tables only";

    pub(super) fn install(text: &str, specs: &[HookSpec]) -> Result<Edit, SettingsError> {
        let mut doc = parse(text)?;
        let root = doc.as_table_mut();
        if !root.contains_key("hooks") {
            let mut hooks = Table::new();
            hooks.set_implicit(true);
            root.insert("hooks", Item::Table(hooks));
        }
        let Some(hooks) = root.get_mut("hooks").and_then(Item::as_table_mut) else {
            return Err(SettingsError::shape(format!(
                "`hooks` is not a table; {INLINE_HINT}"
            )));
        };
        let mut changes = Vec::new();
        for spec in specs {
            let key = event_key(spec.event);
            if !hooks.contains_key(key) {
                hooks.insert(key, Item::ArrayOfTables(ArrayOfTables::new()));
            }
            let Some(groups) = hooks.get_mut(key).and_then(Item::as_array_of_tables_mut) else {
                return Err(SettingsError::shape(format!(
                    "`hooks.{key}` is not an array of tables; {INLINE_HINT}"
                )));
            };
            changes.push((spec.event, upsert(groups, spec)));
        }
        Ok(finish(text, &doc, changes))
    }

    pub(super) fn hook_entries(text: &str) -> Result<Vec<HookEntry>, SettingsError> {
        let doc = parse(text)?;
        let mut entries = Vec::new();
        let Some(hooks) = doc.get("hooks").and_then(Item::as_table_like) else {
            return Ok(entries);
        };
        for (event, groups) in hooks.iter() {
            let Some(groups) = groups.as_array_of_tables() else {
                continue;
            };
            for (g, h) in find_ours(groups) {
                let command = groups
                    .get(g)
                    .and_then(|group| group.get("hooks"))
                    .and_then(Item::as_array_of_tables)
                    .and_then(|hooks| hooks.get(h))
                    .and_then(|hook| hook.get("command"))
                    .and_then(Item::as_str);
                if let Some(command) = command {
                    let matcher = groups
                        .get(g)
                        .and_then(|group| group.get("matcher"))
                        .and_then(Item::as_str)
                        .map(String::from);
                    entries.push(HookEntry {
                        event: event.to_string(),
                        command: command.to_string(),
                        matcher,
                    });
                }
            }
        }
        Ok(entries)
    }

    pub(super) fn uninstall(text: &str, events: &[HookEvent]) -> Result<Edit, SettingsError> {
        let mut doc = parse(text)?;
        let root = doc.as_table_mut();
        let mut changes = Vec::new();
        if let Some(hooks) = root.get_mut("hooks").and_then(Item::as_table_mut) {
            for &event in events {
                let key = event_key(event);
                let Some(groups) = hooks.get_mut(key).and_then(Item::as_array_of_tables_mut) else {
                    changes.push((event, Change::Absent));
                    continue;
                };
                let found = find_ours(groups);
                if found.is_empty() {
                    changes.push((event, Change::Absent));
                    continue;
                }
                remove_entries(groups, &found);
                if groups.is_empty() {
                    hooks.remove(key);
                }
                changes.push((event, Change::Removed));
            }
            let removed = changes.iter().any(|(_, c)| *c == Change::Removed);
            if removed && hooks.is_empty() {
                root.remove("hooks");
            }
        } else {
            changes.extend(events.iter().map(|&e| (e, Change::Absent)));
        }
        Ok(finish(text, &doc, changes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hosts::{CLAUDE_PRE_TOOL_MATCHER, CODEX_PRE_TOOL_MATCHER, Host, hook_specs};

    const ALL: [HookEvent; 3] = [HookEvent::Stop, HookEvent::SubagentStop, HookEvent::PreTool];

    fn specs(host: Host) -> Vec<HookSpec> {
        hook_specs(host, "/opt/agent guard/bin/agentguard", &ALL)
    }

    fn json_eq(a: &str, b: &str) -> bool {
        serde_json::from_str::<serde_json::Value>(a).unwrap()
            == serde_json::from_str::<serde_json::Value>(b).unwrap()
    }

    #[test]
    fn commands_quote_the_program_and_name_the_host() {
        let specs = specs(Host::Codex);
        assert_eq!(
            specs[0].command,
            "'/opt/agent guard/bin/agentguard' hook stop --host codex"
        );
        assert_eq!(
            specs[2].command,
            "'/opt/agent guard/bin/agentguard' hook pre-tool --host codex"
        );
        assert_eq!(specs[2].matcher, Some(CODEX_PRE_TOOL_MATCHER));
        assert!(specs.iter().all(|s| is_agentguard_command(&s.command)));
    }

    #[test]
    fn recognizes_only_agentguard_hook_commands() {
        assert!(is_agentguard_command(
            "/usr/local/bin/agentguard hook stop --host claude"
        ));
        assert!(is_agentguard_command("agentguard hook pre-tool"));
        assert!(!is_agentguard_command("agentguard judge"));
        assert!(!is_agentguard_command("/usr/bin/not-agentguard hook stop"));
        assert!(!is_agentguard_command("echo agentguard hook stop"));
        assert!(!is_agentguard_command("'unbalanced"));
    }

    #[test]
    fn detects_indentation_line_endings_and_trailing_newline() {
        let two = json::detect_style("{\n  \"a\": 1\n}\n");
        assert_eq!(two.indent.as_deref(), Some("  "));
        assert!(!two.crlf);
        let four = json::detect_style("{\r\n    \"a\": 1\r\n}");
        assert_eq!(four.indent.as_deref(), Some("    "));
        assert!(four.crlf);
        assert_eq!(
            json::detect_style("{\n\t\"a\": 1\n}").indent.as_deref(),
            Some("\t")
        );
        assert_eq!(json::detect_style("{\"a\":1}").indent, None);
    }

    #[test]
    fn install_keeps_style_and_non_ascii_and_adds_only_our_entries() {
        let text = "{\r\n\t\"model\": \"opus\",\r\n\t\"note\": \"grüße, 日本\"\r\n}";
        let edit = install(Format::Json, text, &specs(Host::Claude)).unwrap();
        assert!(edit.text.starts_with("{\r\n\t\"model\": \"opus\",\r\n\t\"note\": \"grüße, 日本\",\r\n\t\"hooks\": {\r\n\t\t\"Stop\": ["));
        assert!(!edit.text.ends_with('\n'));
        assert!(edit.changes.iter().all(|(_, c)| *c == Change::Added));
        let back = uninstall(Format::Json, &edit.text, &ALL).unwrap();
        assert_eq!(back.text, text);
    }

    #[test]
    fn compact_files_stay_compact() {
        let edit = install(Format::Json, "{\"a\":[1,2]}", &specs(Host::Claude)[..1]).unwrap();
        assert!(
            edit.text
                .starts_with("{\"a\":[1,2],\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\"")
        );
        assert!(!edit.text.contains('\n'));
    }

    /// Install then uninstall gives back the same bytes, whatever the layout (SPEC §6).
    #[test]
    fn install_then_uninstall_is_byte_identical() {
        let texts = [
            "{ \"env\": { \"FOO\": \"bär\" } }",
            "{ \"env\": { \"FOO\": \"bär\" } }\n",
            "{\"a\":[1,2],\"b\":{\"c\":null}}",
            "{\n  \"env\": { \"FOO\": \"bär\" },\n  \"list\": [1, 2, 3]\n}\n",
            "{\r\n    \"model\": \"opus\",\r\n    \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify\"}]}]}\r\n}",
            "\u{feff}{\n\t\"hooks\": {\n\t\t\"PreToolUse\": [\n\t\t\t{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"audit\"}]}\n\t\t]\n\t}\n}\n",
            "{}",
            "{\"n\": 1e3, \"s\": \"\\u00e9\\/\"}",
        ];
        for text in texts {
            let installed = install(Format::Json, text, &specs(Host::Claude)).unwrap();
            assert!(installed.changed(), "{text:?}");
            let value: serde_json::Value =
                serde_json::from_str(installed.text.trim_start_matches('\u{feff}')).unwrap();
            let ours = value["hooks"]["PreToolUse"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|group| {
                    group["hooks"][0]["command"]
                        .as_str()
                        .is_some_and(is_agentguard_command)
                });
            assert_eq!(ours.count(), 1, "{}", installed.text);
            assert!(has_agentguard_hooks(Format::Json, &installed.text).unwrap());
            let again = install(Format::Json, &installed.text, &specs(Host::Claude)).unwrap();
            assert!(
                !again.changed(),
                "reinstall on {text:?}:\n{}",
                installed.text
            );
            let removed = uninstall(Format::Json, &installed.text, &ALL).unwrap();
            assert_eq!(removed.text, text, "after install:\n{}", installed.text);
        }
    }

    #[test]
    fn compact_objects_of_the_user_stay_compact_in_an_expanded_file() {
        let text = "{\n  \"env\": { \"FOO\": \"bär\" }\n}\n";
        let installed = install(Format::Json, text, &specs(Host::Claude)).unwrap();
        assert!(
            installed.text.starts_with(
                "{\n  \"env\": { \"FOO\": \"bär\" },\n  \"hooks\": {\n    \"Stop\": [\n      {\n"
            ),
            "{}",
            installed.text
        );
    }

    #[test]
    fn a_one_line_array_in_an_expanded_file_gets_its_new_entry_on_that_line() {
        let text = "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"lint\"}]}]\n  }\n}\n";
        let installed = install(Format::Json, text, &specs(Host::Claude)[..1]).unwrap();
        let stop_line = installed.text.lines().nth(2).unwrap();
        assert!(
            stop_line.starts_with("    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"lint\"}]}, {\"hooks\": [{\"type\": \"command\", \"command\": ")
                && stop_line.ends_with("\"timeout\": 60}]}]"),
            "{}",
            installed.text
        );
        assert_eq!(
            uninstall(Format::Json, &installed.text, &ALL).unwrap().text,
            text
        );
    }

    #[test]
    fn comments_are_refused_with_the_reason() {
        let err = install(
            Format::Json,
            "{\n  // mine\n  \"model\": \"opus\"\n}\n",
            &specs(Host::Claude),
        )
        .unwrap_err();
        assert_eq!((err.line, err.column), (Some(2), Some(3)));
        assert!(
            err.message.contains("ignores a file with comments"),
            "{}",
            err.message
        );
    }

    #[test]
    fn empty_or_missing_text_becomes_a_fresh_file() {
        let edit = install(Format::Json, "", &specs(Host::Claude)).unwrap();
        assert!(
            edit.text
                .starts_with("{\n  \"hooks\": {\n    \"Stop\": [\n")
        );
        assert!(edit.text.ends_with("}\n"));
        assert_eq!(
            uninstall(Format::Json, &edit.text, &ALL).unwrap().text,
            "{}\n"
        );
    }

    #[test]
    fn reinstall_is_unchanged_and_returns_the_text_itself() {
        let once = install(Format::Json, "{ }", &specs(Host::Claude)).unwrap();
        let twice = install(Format::Json, &once.text, &specs(Host::Claude)).unwrap();
        assert!(!twice.changed());
        assert_eq!(twice.text, once.text);
    }

    #[test]
    fn moved_binary_and_duplicates_are_updated_in_place() {
        let text = r#"{"hooks": {"Stop": [
            {"hooks": [{"type": "command", "command": "lint"},
                       {"type": "command", "command": "/old/agentguard hook stop --host claude", "timeout": 5, "statusMessage": "judging"}]},
            {"hooks": [{"type": "command", "command": "/older/agentguard hook stop"}]}
        ]}}"#;
        let edit = install(Format::Json, text, &specs(Host::Claude)[..1]).unwrap();
        assert_eq!(edit.changes, vec![(HookEvent::Stop, Change::Updated)]);
        let value: serde_json::Value = serde_json::from_str(&edit.text).unwrap();
        let expected = serde_json::json!({"hooks": {"Stop": [
            {"hooks": [{"type": "command", "command": "lint"},
                       {"type": "command", "command": specs(Host::Claude)[0].command, "timeout": 60, "statusMessage": "judging"}]}
        ]}});
        assert_eq!(value, expected);
    }

    #[test]
    fn matcher_is_ours_only_in_a_group_of_our_own() {
        let ours = &specs(Host::Claude)[2];
        let shared = format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [{{"type": "command", "command": "audit"}}, {{"type": "command", "command": {:?}, "timeout": 30}}]}}]}}}}"#,
            ours.command
        );
        assert!(
            !install(Format::Json, &shared, std::slice::from_ref(ours))
                .unwrap()
                .changed()
        );
        let alone = format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [{{"type": "command", "command": {:?}, "timeout": 30}}]}}]}}}}"#,
            ours.command
        );
        let edit = install(Format::Json, &alone, std::slice::from_ref(ours)).unwrap();
        assert_eq!(edit.changes, vec![(HookEvent::PreTool, Change::Updated)]);
        assert!(edit.text.contains(CLAUDE_PRE_TOOL_MATCHER));
    }

    #[test]
    fn uninstall_removes_only_our_entries_and_emptied_containers() {
        let original = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}], "Custom": 1}, "x": true}"#;
        let installed = install(Format::Json, original, &specs(Host::Claude)).unwrap();
        let removed = uninstall(Format::Json, &installed.text, &ALL).unwrap();
        assert!(removed.changes.iter().all(|(_, c)| *c == Change::Removed));
        assert!(json_eq(&removed.text, original));
        let again = uninstall(Format::Json, &removed.text, &ALL).unwrap();
        assert!(!again.changed());
        assert_eq!(again.text, removed.text);
    }

    #[test]
    fn parse_errors_name_line_and_column() {
        let err = install(
            Format::Json,
            "{\n  \"a\": 1,\n  \"b\" 2\n}\n",
            &specs(Host::Claude),
        )
        .unwrap_err();
        assert_eq!((err.line, err.column), (Some(3), Some(7)));
        assert!(err.message.contains("expected `:`"), "{}", err.message);
        let err = install(Format::Toml, "a = 1\nb = = 2\n", &specs(Host::Codex)).unwrap_err();
        assert_eq!(err.line, Some(2));
        assert!(err.column.is_some());
    }

    #[test]
    fn wrong_shapes_are_refused() {
        let err = install(Format::Json, "[]", &specs(Host::Claude)).unwrap_err();
        assert!(err.message.contains("not a JSON object"));
        let err = install(
            Format::Json,
            r#"{"hooks": {"Stop": {}}}"#,
            &specs(Host::Claude),
        )
        .unwrap_err();
        assert!(err.message.contains("hooks.Stop"));
        let err =
            install(Format::Toml, "hooks = { Stop = [] }\n", &specs(Host::Codex)).unwrap_err();
        assert!(err.message.contains("[[hooks.<Event>]]"), "{}", err.message);
    }

    #[test]
    fn toml_round_trip_keeps_comments_and_other_tables() {
        let original = "# my Codex config\nmodel = \"o3\" # pinned\n\n[features]\nhooks = true\n\n# audit every stop\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"audit\" # keep\n\n[tui]\ntheme = \"dark\"\n";
        let installed = install(Format::Toml, original, &specs(Host::Codex)).unwrap();
        assert!(installed.changes.iter().all(|(_, c)| *c == Change::Added));
        let doc: toml_edit::DocumentMut = installed.text.parse().unwrap();
        assert_eq!(doc["hooks"]["Stop"].as_array_of_tables().unwrap().len(), 2);
        assert_eq!(
            doc["hooks"]["PreToolUse"][0]["matcher"].as_str(),
            Some(CODEX_PRE_TOOL_MATCHER)
        );
        assert!(
            !install(Format::Toml, &installed.text, &specs(Host::Codex))
                .unwrap()
                .changed()
        );
        assert!(has_agentguard_hooks(Format::Toml, &installed.text).unwrap());
        let removed = uninstall(Format::Toml, &installed.text, &ALL).unwrap();
        assert_eq!(removed.text, original);
    }

    #[test]
    fn toml_moved_binary_is_updated_keeping_comments() {
        let text = "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"/old/agentguard hook stop --host codex\" # ours\ntimeout = 60\n";
        let spec = &specs(Host::Codex)[0];
        let edit = install(Format::Toml, text, std::slice::from_ref(spec)).unwrap();
        assert_eq!(edit.changes, vec![(HookEvent::Stop, Change::Updated)]);
        assert_eq!(
            edit.text,
            text.replace(
                "\"/old/agentguard hook stop --host codex\"",
                &format!("{:?}", spec.command)
            )
        );
    }

    #[test]
    fn codex_feature_switch_is_read() {
        assert!(codex_hooks_disabled("[features]\nhooks = false\n").unwrap());
        assert!(codex_hooks_disabled("features.codex_hooks = false\n").unwrap());
        assert!(!codex_hooks_disabled("[features]\nhooks = true\n").unwrap());
        assert!(!codex_hooks_disabled("model = \"o3\"\n").unwrap());
    }

    #[test]
    fn toml_hooks_table_detection() {
        assert!(toml_has_hooks("[[hooks.Stop]]\n").unwrap());
        assert!(!toml_has_hooks("model = \"o3\"\n").unwrap());
        assert!(
            !toml_has_hooks(
                "[hooks.state.\"/h/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"x\"\n"
            )
            .unwrap()
        );
    }

    #[test]
    fn hook_entries_are_read_from_json_and_toml() {
        let json = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "lint"},
            {"type": "command", "command": "/x/agentguard hook stop --host claude"}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "agentguard hook pre-tool"}]}]}}"#;
        let entries = hook_entries(Format::Json, json).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].event, "Stop");
        assert_eq!(entries[1].command, "agentguard hook pre-tool");
        let toml = "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"/x/agentguard hook stop --host codex\"\n";
        assert_eq!(hook_entries(Format::Toml, toml).unwrap().len(), 1);
        assert!(hook_entries(Format::Json, "").unwrap().is_empty());
        let err = hook_entries(Format::Json, "{\n  \"a\": 1,\n  \"b\" 2\n}\n").unwrap_err();
        assert_eq!((err.line, err.column), (Some(3), Some(7)));
    }
}
