//! `codex.trust`: Codex skips untrusted hooks silently, so doctor says whether it trusts ours.

use std::path::Path;

use super::{Check, CheckId};

/// `codex.trust`: whether Codex will run agentguard's Codex hooks, from their trust status
/// against the user's `config.toml` (`codex_trust::check`). `codex exec` skips an untrusted
/// or modified hook silently, so anything but all-trusted is a warning. None when no Codex
/// hook of ours is installed.
pub fn check_codex_trust(
    statuses: &[(crate::codex_trust::CodexHook, crate::codex_trust::Trust)],
    config_toml: &Path,
) -> Option<Check> {
    let id = CheckId::CodexTrust;
    if statuses.is_empty() {
        return None;
    }
    Some(match crate::codex_trust::skipped_summary(statuses) {
        None => Check::ok(
            id,
            format!(
                "Codex trusts agentguard's {} hook(s) ({}): Codex runs them",
                statuses.len(),
                config_toml.display()
            ),
        ),
        Some(skipped) => Check::warn(
            id,
            format!(
                "Codex hooks not trusted: {skipped}; `codex exec` skips them without a word, so \
                 agentguard does not run in Codex"
            ),
            crate::codex_trust::TRUST_FIX,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::Status;
    use crate::hosts::Format;

    #[test]
    fn codex_trust_check_on_trusted_untrusted_and_modified_hooks() {
        use crate::codex_trust::{self, Trust};
        let hooks_json = r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/x/agentguard hook stop --host codex", "timeout": 60}]}],
            "PreToolUse": [{"matcher": "Bash|apply_patch", "hooks": [{"type": "command", "command": "/x/agentguard hook pre-tool --host codex", "timeout": 30}]}]}}"#;
        let hooks =
            codex_trust::our_hooks("/h/.codex/hooks.json", Format::Json, hooks_json).unwrap();
        let config = Path::new("/h/.codex/config.toml");
        let trust_all: String = hooks
            .iter()
            .map(|h| {
                format!(
                    "[hooks.state.\"{}\"]\ntrusted_hash = \"{}\"\n",
                    h.key, h.current_hash
                )
            })
            .collect();

        let trusted = check_codex_trust(&codex_trust::check(&trust_all, &hooks), config).unwrap();
        assert_eq!(trusted.status, Status::Ok, "{trusted:?}");
        assert!(trusted.message.contains("Codex runs them"));

        let untrusted = check_codex_trust(&codex_trust::check("", &hooks), config).unwrap();
        assert_eq!(untrusted.status, Status::Warn);
        assert!(
            untrusted
                .message
                .contains("PreToolUse (not trusted yet), Stop (not trusted yet)"),
            "{}",
            untrusted.message
        );
        assert!(untrusted.message.contains("`codex exec` skips them"));
        assert!(untrusted.fix.as_deref().unwrap().contains("open /hooks"));

        // The binary moved: the command changed, the trusted hash no longer matches.
        let moved = hooks_json.replace("/x/agentguard", "/y/agentguard");
        let moved = codex_trust::our_hooks("/h/.codex/hooks.json", Format::Json, &moved).unwrap();
        let statuses = codex_trust::check(&trust_all, &moved);
        assert!(statuses.iter().all(|(_, t)| *t == Trust::Modified));
        let modified = check_codex_trust(&statuses, config).unwrap();
        assert_eq!(modified.status, Status::Warn);
        assert!(
            modified
                .message
                .contains("Stop (changed since you trusted it)"),
            "{}",
            modified.message
        );

        assert_eq!(
            check_codex_trust(&[], config),
            None,
            "no Codex hooks: no check"
        );
    }
}
