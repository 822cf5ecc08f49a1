//! Whether Codex will run agentguard's hooks: Codex runs a user or project hook only once the
//! user trusted that exact hook, and `codex exec` skips an untrusted one without a word.
//!
//! Observed on Codex 0.171.0 (`codex app-server` `hooks/list`, and its source): trust lives in
//! the user's `config.toml` as
//!
//! ```toml
//! [hooks.state."/home/me/.codex/hooks.json:pre_tool_use:0:0"]
//! trusted_hash = "sha256:…"
//! ```
//!
//! keyed by the hooks file, the event (snake case), the group's index in the event's list and
//! the handler's index in the group. The hash is SHA-256 over a canonical JSON identity of the
//! handler (sorted keys, no spaces): `{"event_name":…,"hooks":[{"async":…,"command":…,
//! "timeout":…,"type":"command"}],"matcher":…}` (matcher only for events that have one,
//! `timeout` defaulting to 600, `statusMessage` when set). Any change of the command, timeout or
//! matcher makes a trusted hook `modified`: untrusted again. The E2E tests hold this function
//! to the hashes the real `codex app-server` reports.
//!
//! Pure: texts in, statuses and texts out.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use toml_edit::{DocumentMut, Item};

use crate::hosts::{self, HookEvent};
use crate::settings::{self, Format};

/// What Codex makes of one of our hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// Trusted with this exact command, timeout and matcher: Codex runs it.
    Trusted,
    /// Never trusted: Codex skips it.
    Untrusted,
    /// Trusted once, changed since (a moved binary, a new timeout): Codex skips it.
    Modified,
    /// Switched off by the user (`enabled = false`): Codex skips it.
    Disabled,
}

/// One of our hook handlers as Codex identifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexHook {
    /// `<hooks file>:<event>:<group>:<handler>`, the key of its `[hooks.state]` entry.
    pub key: String,
    pub event: HookEvent,
    pub current_hash: String,
}

/// Codex's snake-case name of an event, as used in trust keys.
pub fn event_label(event: HookEvent) -> &'static str {
    match event {
        HookEvent::Stop => "stop",
        HookEvent::SubagentStop => "subagent_stop",
        HookEvent::PreTool => "pre_tool_use",
    }
}

/// Codex's trust hash of one command handler.
pub fn handler_hash(
    event: HookEvent,
    matcher: Option<&str>,
    command: &str,
    timeout_sec: u64,
    is_async: bool,
    status_message: Option<&str>,
) -> String {
    let mut handler = json!({
        "type": "command",
        "command": command,
        "timeout": timeout_sec,
        "async": is_async,
    });
    if let Some(message) = status_message {
        handler["statusMessage"] = Value::from(message);
    }
    let mut identity = json!({"event_name": event_label(event), "hooks": [handler]});
    // Codex keeps a matcher only for the tool events; Stop matchers are ignored.
    if let (HookEvent::PreTool, Some(matcher)) = (event, matcher) {
        identity["matcher"] = Value::from(matcher);
    }
    let canonical = canonical(&identity).to_string();
    let digest = Sha256::digest(canonical.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The same value with every object's keys sorted (serde_json keeps insertion order here).
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let sorted: BTreeMap<&String, Value> =
                map.iter().map(|(k, v)| (k, canonical(v))).collect();
            Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// Our handlers in a Codex hooks file (`hooks.json`, or `config.toml` with `[[hooks.<Event>]]`
/// tables) found at `source_path`, with their trust keys and current hashes.
pub fn our_hooks(
    source_path: &str,
    format: Format,
    text: &str,
) -> Result<Vec<CodexHook>, settings::SettingsError> {
    let hooks: Value = match format {
        Format::Json => {
            let body = text.trim_start_matches('\u{feff}');
            if body.trim().is_empty() {
                return Ok(Vec::new());
            }
            let root: Value =
                serde_json::from_str(body).map_err(|err| settings::SettingsError {
                    message: err.to_string(),
                    line: Some(err.line()),
                    column: Some(err.column()),
                })?;
            root.get("hooks").cloned().unwrap_or(Value::Null)
        }
        Format::Toml => {
            let doc: DocumentMut =
                text.parse()
                    .map_err(|err: toml_edit::TomlError| settings::SettingsError {
                        message: err.message().trim().to_string(),
                        line: None,
                        column: None,
                    })?;
            let Some(hooks) = doc.get("hooks") else {
                return Ok(Vec::new());
            };
            toml_item_to_json(hooks)
        }
    };
    let mut found = Vec::new();
    for event in [HookEvent::PreTool, HookEvent::SubagentStop, HookEvent::Stop] {
        let Some(groups) = hooks.get(hosts::event_key(event)).and_then(Value::as_array) else {
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            let matcher = group.get("matcher").and_then(Value::as_str);
            let Some(handlers) = group.get("hooks").and_then(Value::as_array) else {
                continue;
            };
            for (h, handler) in handlers.iter().enumerate() {
                let Some(command) = handler.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if !hosts::is_agentguard_command(command) {
                    continue;
                }
                let timeout = handler
                    .get("timeout")
                    .or_else(|| handler.get("timeoutSec"))
                    .and_then(Value::as_u64)
                    .unwrap_or(600)
                    .max(1);
                let is_async = handler
                    .get("async")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let status = handler.get("statusMessage").and_then(Value::as_str);
                found.push(CodexHook {
                    key: format!("{source_path}:{}:{g}:{h}", event_label(event)),
                    event,
                    current_hash: handler_hash(event, matcher, command, timeout, is_async, status),
                });
            }
        }
    }
    Ok(found)
}

fn toml_item_to_json(item: &Item) -> Value {
    match item {
        Item::None => Value::Null,
        Item::Value(value) => toml_value_to_json(value),
        Item::Table(table) => Value::Object(
            table
                .iter()
                .map(|(k, v)| (k.to_string(), toml_item_to_json(v)))
                .collect(),
        ),
        Item::ArrayOfTables(tables) => Value::Array(
            tables
                .iter()
                .map(|t| toml_item_to_json(&Item::Table(t.clone())))
                .collect(),
        ),
    }
}

fn toml_value_to_json(value: &toml_edit::Value) -> Value {
    use toml_edit::Value as T;
    match value {
        T::String(s) => Value::from(s.value().as_str()),
        T::Integer(i) => Value::from(*i.value()),
        T::Float(f) => Value::from(*f.value()),
        T::Boolean(b) => Value::from(*b.value()),
        T::Datetime(d) => Value::from(d.value().to_string()),
        T::Array(items) => Value::Array(items.iter().map(toml_value_to_json).collect()),
        T::InlineTable(table) => Value::Object(
            table
                .iter()
                .map(|(k, v)| (k.to_string(), toml_value_to_json(v)))
                .collect(),
        ),
    }
}

/// The trust status of each hook, read from the user's Codex `config.toml` text (a missing
/// file is an empty text). An unreadable config makes every hook untrusted: Codex would not
/// read its trust entries either.
pub fn check(config_toml: &str, hooks: &[CodexHook]) -> Vec<(CodexHook, Trust)> {
    let doc: Option<DocumentMut> = config_toml.parse().ok();
    let states = doc
        .as_ref()
        .and_then(|d| d.get("hooks"))
        .and_then(|h| h.get("state"));
    hooks
        .iter()
        .map(|hook| {
            let state = states.and_then(|s| s.get(&hook.key));
            let enabled = state.and_then(|s| s.get("enabled")).and_then(Item::as_bool);
            let trusted = state
                .and_then(|s| s.get("trusted_hash"))
                .and_then(Item::as_str);
            let trust = match (enabled, trusted) {
                (Some(false), _) => Trust::Disabled,
                (_, Some(hash)) if hash == hook.current_hash => Trust::Trusted,
                (_, Some(_)) => Trust::Modified,
                (_, None) => Trust::Untrusted,
            };
            (hook.clone(), trust)
        })
        .collect()
}

impl Trust {
    /// Why Codex skips a hook with this status (None: it runs it).
    pub fn skipped_because(self) -> Option<&'static str> {
        match self {
            Trust::Trusted => None,
            Trust::Untrusted => Some("not trusted yet"),
            Trust::Modified => Some("changed since you trusted it"),
            Trust::Disabled => Some("disabled in /hooks"),
        }
    }
}

/// `Stop (not trusted yet), PreToolUse (changed since you trusted it)`: the hooks Codex will
/// skip, or None when it runs them all.
pub fn skipped_summary(statuses: &[(CodexHook, Trust)]) -> Option<String> {
    let skipped: Vec<String> = statuses
        .iter()
        .filter_map(|(hook, trust)| {
            let why = trust.skipped_because()?;
            Some(format!("{} ({why})", hosts::event_key(hook.event)))
        })
        .collect();
    (!skipped.is_empty()).then(|| skipped.join(", "))
}

/// The fix for hooks Codex skips.
pub const TRUST_FIX: &str = "start `codex`, open /hooks, review and trust agentguard's hooks \
     (automation that vets its hooks itself can pass --dangerously-bypass-hook-trust instead)";

/// The config text without the `[hooks.state."<key>"]` entries of `keys` (and without the
/// `hooks.state` / `hooks` tables when that emptied them); None when there was none to remove.
/// Everything else, comments included, stays.
pub fn remove_entries(config_toml: &str, keys: &[String]) -> Option<String> {
    let mut doc: DocumentMut = config_toml.parse().ok()?;
    let hooks = doc.get_mut("hooks")?.as_table_like_mut()?;
    let states = hooks.get_mut("state")?.as_table_like_mut()?;
    let mut removed = false;
    for key in keys {
        removed |= states.remove(key).is_some();
    }
    if !removed {
        return None;
    }
    if states.is_empty() {
        hooks.remove("state");
    }
    if hooks.is_empty() {
        doc.remove("hooks");
    }
    Some(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hashes reported by the real `codex app-server` 0.171.0 `hooks/list` for a hooks.json
    /// holding these two handlers (recorded 2026-12-01).
    #[test]
    fn hashes_match_what_codex_reports() {
        assert_eq!(
            handler_hash(
                HookEvent::Stop,
                None,
                "/x/agentguard hook stop --host codex",
                60,
                false,
                None
            ),
            "sha256:f87a7eb0e170980d0ad6944e6014aea4323bd7fad52349b4469b2bd7103cd10f"
        );
        assert_eq!(
            handler_hash(
                HookEvent::PreTool,
                Some("Bash|apply_patch"),
                "/x/agentguard hook pre-tool --host codex",
                30,
                false,
                None
            ),
            "sha256:7ee8038d61d84dbe9379175f91239d1157761da9b9a830326b67a39e79c552e2"
        );
    }

    const HOOKS: &str = r#"{"hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify"},
                            {"type": "command", "command": "/x/agentguard hook stop --host codex", "timeout": 60}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]},
                       {"matcher": "Bash|apply_patch", "hooks": [{"type": "command", "command": "/x/agentguard hook pre-tool --host codex", "timeout": 30}]}]
    }}"#;

    #[test]
    fn keys_name_file_event_group_and_handler_of_our_entries_only() {
        let hooks = our_hooks("/h/.codex/hooks.json", Format::Json, HOOKS).unwrap();
        let keys: Vec<&str> = hooks.iter().map(|h| h.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "/h/.codex/hooks.json:pre_tool_use:1:0",
                "/h/.codex/hooks.json:stop:0:1"
            ]
        );
        let toml = "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"/x/agentguard hook stop --host codex\"\ntimeout = 60\n";
        let from_toml = our_hooks("/h/.codex/config.toml", Format::Toml, toml).unwrap();
        assert_eq!(from_toml[0].key, "/h/.codex/config.toml:stop:0:0");
        assert_eq!(from_toml[0].current_hash, hooks[1].current_hash);
    }

    #[test]
    fn trusted_untrusted_modified_and_disabled() {
        let hooks = our_hooks("/h/.codex/hooks.json", Format::Json, HOOKS).unwrap();
        let (pre, stop) = (&hooks[0], &hooks[1]);
        let config = format!(
            "model = \"o3\"\n\n[hooks.state.\"{}\"]\ntrusted_hash = \"{}\"\n",
            stop.key, stop.current_hash
        );
        let statuses: Vec<Trust> = check(&config, &hooks).into_iter().map(|(_, t)| t).collect();
        assert_eq!(statuses, [Trust::Untrusted, Trust::Trusted]);

        let config = format!(
            "[hooks.state.\"{}\"]\ntrusted_hash = \"sha256:old\"\n[hooks.state.\"{}\"]\nenabled = false\ntrusted_hash = \"{}\"\n",
            stop.key, pre.key, pre.current_hash
        );
        let statuses: Vec<Trust> = check(&config, &hooks).into_iter().map(|(_, t)| t).collect();
        assert_eq!(statuses, [Trust::Disabled, Trust::Modified]);
        assert!(
            check("not toml [", &hooks)
                .iter()
                .all(|(_, t)| *t == Trust::Untrusted)
        );
    }

    #[test]
    fn removing_entries_keeps_the_rest_and_drops_emptied_tables() {
        let config = "# mine\nmodel = \"o3\"\n\n[hooks.state]\n\n[hooks.state.\"/h/a:stop:0:0\"]\ntrusted_hash = \"x\"\n";
        let out = remove_entries(config, &["/h/a:stop:0:0".into()]).unwrap();
        assert_eq!(out, "# mine\nmodel = \"o3\"\n");
        let other = "[hooks.state.\"/h/a:stop:0:0\"]\ntrusted_hash = \"x\"\n\n[hooks.state.\"/h/b:stop:0:0\"]\ntrusted_hash = \"y\"\n";
        let out = remove_entries(other, &["/h/a:stop:0:0".into()]).unwrap();
        assert!(
            out.contains("/h/b:stop:0:0") && !out.contains("/h/a:"),
            "{out}"
        );
        assert_eq!(remove_entries("model = 1\n", &["k".into()]), None);
    }
}
