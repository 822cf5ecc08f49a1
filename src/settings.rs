//! Adding and removing agentguard's hook entries in agent-host settings, text in, text out.
//!
//! Real users have lost third-party hooks to careless installers, so every edit here keeps what
//! it does not own: every other key, value and key order, the file's indentation, line endings,
//! trailing newline, non-ASCII text and (TOML) comments. An entry is ours when its command runs
//! a program named `agentguard` with `hook stop` or `hook pre-tool`; nothing else is touched.
//! A JSON file is parsed and written again, so a number is written in its canonical form
//! (`1e3` becomes `1000.0`, the same value for every JSON reader); the text is returned as it
//! was whenever nothing changes.
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

/// Whether a TOML text has a `hooks` table (the user keeps Codex hooks in config.toml).
pub fn toml_has_hooks(text: &str) -> Result<bool, SettingsError> {
    let doc = toml::parse(text)?;
    Ok(doc.as_table().contains_key("hooks"))
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
    use serde::Serialize;
    use serde_json::{Map, Value, json};

    use super::{
        Change, Edit, HookEvent, HookSpec, SettingsError, event_key, is_agentguard_command,
    };

    /// How the file is laid out, so the rewrite looks like the original.
    #[derive(Debug, PartialEq, Eq)]
    pub(super) struct Style {
        /// None: the whole document on one line.
        pub indent: Option<String>,
        pub crlf: bool,
        pub trailing_newline: bool,
        pub bom: bool,
    }

    pub(super) fn detect_style(text: &str) -> Style {
        let bom = text.starts_with('\u{feff}');
        let body = text.trim_start_matches('\u{feff}');
        if body.trim().is_empty() {
            return Style {
                indent: Some("  ".into()),
                crlf: false,
                trailing_newline: true,
                bom,
            };
        }
        let crlf = body.contains("\r\n");
        let trailing_newline = body.ends_with('\n');
        let multiline = body.trim().contains('\n');
        let indent = if multiline {
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
        } else if body.trim() == "{}" {
            // An empty object gains nested entries: lay them out like a fresh file.
            Some("  ".into())
        } else {
            None
        };
        Style {
            indent,
            crlf,
            trailing_newline,
            bom,
        }
    }

    fn parse(text: &str) -> Result<Value, SettingsError> {
        let body = text.trim_start_matches('\u{feff}');
        if body.trim().is_empty() {
            return Ok(Value::Object(Map::new()));
        }
        let value: Value = serde_json::from_str(body).map_err(|err| {
            let full = err.to_string();
            let message = match full.rfind(" at line ") {
                Some(cut) => full[..cut].to_string(),
                None => full,
            };
            SettingsError {
                message,
                line: Some(err.line()),
                column: Some(err.column()),
            }
        })?;
        if !value.is_object() {
            return Err(SettingsError::shape("the top level is not a JSON object"));
        }
        Ok(value)
    }

    fn render(value: &Value, style: &Style) -> String {
        let mut buf = Vec::new();
        let written = match &style.indent {
            Some(indent) => {
                let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
                let mut serializer = serde_json::Serializer::with_formatter(&mut buf, formatter);
                value.serialize(&mut serializer)
            }
            None => serde_json::to_writer(&mut buf, value),
        };
        // A Value always serializes, and serde_json writes UTF-8 only.
        written.expect("serializing a serde_json::Value into memory cannot fail");
        let mut text = String::from_utf8(buf).expect("serde_json writes UTF-8");
        // A raw newline cannot occur inside a JSON string, so this only touches line breaks.
        if style.crlf {
            text = text.replace('\n', "\r\n");
        }
        if style.trailing_newline {
            text.push_str(if style.crlf { "\r\n" } else { "\n" });
        }
        if style.bom {
            text.insert(0, '\u{feff}');
        }
        text
    }

    fn finish(text: &str, root: &Value, changes: Vec<(HookEvent, Change)>) -> Edit {
        let edit = Edit {
            text: String::new(),
            changes,
        };
        if edit.changed() {
            Edit {
                text: render(root, &detect_style(text)),
                ..edit
            }
        } else {
            Edit {
                text: text.to_string(),
                ..edit
            }
        }
    }

    /// (group index, hook index) of every entry of ours in an event array, in file order.
    fn find_ours(groups: &[Value]) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        for (g, group) in groups.iter().enumerate() {
            let Some(hooks) = group.get("hooks").and_then(Value::as_array) else {
                continue;
            };
            for (h, hook) in hooks.iter().enumerate() {
                if hook
                    .get("command")
                    .and_then(Value::as_str)
                    .is_some_and(is_agentguard_command)
                {
                    found.push((g, h));
                }
            }
        }
        found
    }

    /// Removes the given entries (file order) and the groups that the removal left empty.
    fn remove_entries(groups: &mut Vec<Value>, entries: &[(usize, usize)]) {
        for &(g, h) in entries.iter().rev() {
            let Some(hooks) = groups[g].get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            hooks.remove(h);
            if hooks.is_empty() {
                groups.remove(g);
            }
        }
    }

    fn upsert(groups: &mut Vec<Value>, spec: &HookSpec) -> Change {
        let wanted = json!({"type": "command", "command": spec.command, "timeout": spec.timeout});
        let found = find_ours(groups);
        let Some(&(g, h)) = found.first() else {
            let mut group = Map::new();
            if let Some(matcher) = spec.matcher {
                group.insert("matcher".into(), Value::from(matcher));
            }
            group.insert("hooks".into(), Value::Array(vec![wanted]));
            groups.push(Value::Object(group));
            return Change::Added;
        };
        // Later duplicates go; the first entry (always before them) keeps its indices.
        let mut changed = found.len() > 1;
        remove_entries(groups, &found[1..]);
        let group = &mut groups[g];
        if let Some(hook) = group["hooks"][h].as_object_mut()
            && let Value::Object(wanted) = wanted
        {
            for (key, value) in wanted {
                if hook.get(&key) != Some(&value) {
                    hook.insert(key, value);
                    changed = true;
                }
            }
        }
        // We own the matcher only of a group that holds nothing but our entries.
        let only_ours = group["hooks"].as_array().is_some_and(|hooks| {
            hooks.iter().all(|hook| {
                hook.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(is_agentguard_command)
            })
        });
        if let (true, Some(matcher), Some(group)) = (only_ours, spec.matcher, group.as_object_mut())
            && group.get("matcher").and_then(Value::as_str) != Some(matcher)
        {
            group.insert("matcher".into(), Value::from(matcher));
            changed = true;
        }
        if changed {
            Change::Updated
        } else {
            Change::Unchanged
        }
    }

    pub(super) fn install(text: &str, specs: &[HookSpec]) -> Result<Edit, SettingsError> {
        let mut root = parse(text)?;
        let mut changes = Vec::new();
        {
            let object = root.as_object_mut().expect("parse returns an object");
            let hooks = object
                .entry("hooks")
                .or_insert_with(|| Value::Object(Map::new()));
            let Some(hooks) = hooks.as_object_mut() else {
                return Err(SettingsError::shape("\"hooks\" is not an object"));
            };
            for spec in specs {
                let key = event_key(spec.event);
                let groups = hooks.entry(key).or_insert_with(|| Value::Array(Vec::new()));
                let Some(groups) = groups.as_array_mut() else {
                    return Err(SettingsError::shape(format!(
                        "\"hooks.{key}\" is not an array"
                    )));
                };
                changes.push((spec.event, upsert(groups, spec)));
            }
        }
        Ok(finish(text, &root, changes))
    }

    pub(super) fn uninstall(text: &str, events: &[HookEvent]) -> Result<Edit, SettingsError> {
        let mut root = parse(text)?;
        let mut changes = Vec::new();
        let object = root.as_object_mut().expect("parse returns an object");
        if let Some(hooks) = object.get_mut("hooks").and_then(Value::as_object_mut) {
            for &event in events {
                let key = event_key(event);
                let Some(groups) = hooks.get_mut(key).and_then(Value::as_array_mut) else {
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
                    hooks.shift_remove(key);
                }
                changes.push((event, Change::Removed));
            }
            let removed = changes.iter().any(|(_, c)| *c == Change::Removed);
            if removed && hooks.is_empty() {
                object.shift_remove("hooks");
            }
        } else {
            changes.extend(events.iter().map(|&e| (e, Change::Absent)));
        }
        Ok(finish(text, &root, changes))
    }
}

mod toml {
    use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, Value};

    use super::{
        Change, Edit, HookEvent, HookSpec, SettingsError, event_key, is_agentguard_command,
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
        assert!(two.trailing_newline && !two.crlf);
        let four = json::detect_style("{\r\n    \"a\": 1\r\n}");
        assert_eq!(four.indent.as_deref(), Some("    "));
        assert!(four.crlf && !four.trailing_newline);
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
    }
}
