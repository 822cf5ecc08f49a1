//! Lines the user should read once per session, not on every hook call: which keys of an
//! untrusted project file were ignored, which config file does not load and what stands in for
//! it. The messages already shown in a session are kept (as hashes) in agentguard's state dir,
//! next to the loop guard's state, and cleaned up with it.

use std::path::{Path, PathBuf};

use serde_json::Value;

fn state_file(sessions_dir: &Path, session: &str) -> PathBuf {
    sessions_dir.join(format!(
        "{}.notices.json",
        crate::loopguard::file_safe(session)
    ))
}

/// The `messages` not yet shown in `session`, now recorded as shown. Without a session id (or a
/// state dir) nothing can be remembered, so every message is new.
pub fn unseen(
    sessions_dir: Option<&Path>,
    session: Option<&str>,
    messages: Vec<String>,
) -> Vec<String> {
    if messages.is_empty() {
        return messages;
    }
    let (Some(dir), Some(session)) = (sessions_dir, session) else {
        return messages;
    };
    let path = state_file(dir, session);
    let mut shown: Vec<String> = std::fs::read(&path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    let fresh: Vec<String> = messages
        .into_iter()
        .filter(|message| !shown.contains(&crate::text::short_hash(message)))
        .collect();
    if !fresh.is_empty() {
        shown.extend(fresh.iter().map(|m| crate::text::short_hash(m)));
        if let Ok(bytes) = serde_json::to_vec(&shown) {
            // A notice that cannot be remembered is shown again next time: better than never.
            let _ = crate::fsutil::write_private(&path, &bytes);
        }
    }
    fresh
}

/// Adds `messages` to a hook's answer as its `systemMessage` (after one already there).
pub fn attach(answer: Option<Value>, messages: &[String]) -> Option<Value> {
    if messages.is_empty() {
        return answer;
    }
    let mut answer = answer.unwrap_or_else(|| Value::Object(Default::default()));
    let mut lines: Vec<String> = answer
        .get("systemMessage")
        .and_then(Value::as_str)
        .map(str::to_string)
        .into_iter()
        .collect();
    lines.extend(messages.iter().cloned());
    if let Some(object) = answer.as_object_mut() {
        object.insert("systemMessage".into(), Value::from(lines.join("\n")));
    }
    Some(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_message_once_per_session() {
        let dir = tempfile::tempdir().unwrap();
        let msgs = || vec!["a".to_string(), "b".to_string()];
        assert_eq!(unseen(Some(dir.path()), Some("s/1"), msgs()), msgs());
        assert!(unseen(Some(dir.path()), Some("s/1"), msgs()).is_empty());
        assert_eq!(
            unseen(Some(dir.path()), Some("s/1"), vec!["a".into(), "c".into()]),
            ["c"]
        );
        assert_eq!(unseen(Some(dir.path()), Some("s2"), msgs()), msgs());
        assert_eq!(unseen(Some(dir.path()), None, msgs()), msgs());
    }

    #[test]
    fn attach_joins_with_an_existing_message_and_keeps_the_decision() {
        assert_eq!(attach(None, &[]), None);
        assert_eq!(
            attach(None, &["x".into()]),
            Some(json!({"systemMessage": "x"}))
        );
        let answer = json!({"decision": "block", "reason": "r", "systemMessage": "first"});
        assert_eq!(
            attach(Some(answer), &["x".into()]),
            Some(json!({"decision": "block", "reason": "r", "systemMessage": "first\nx"}))
        );
    }
}
