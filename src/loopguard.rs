//! The loop guard: a block must never loop forever.
//!
//! Claude Code ends a turn only after 8 consecutive blocks, and `stop_hook_active` is one bit.
//! So agentguard keeps per-session state: a finding (detector + fingerprint of the passage) is
//! blocked at most once, and at most `max_blocks_per_turn` blocks happen in one turn (the Stop
//! input's `prompt_id`, or Codex's `turn_id`). A release is logged and shown to the user.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

/// Session state files untouched for this long are removed.
const STATE_MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    /// Findings already blocked once in this session: `detector:fingerprint`.
    blocked: BTreeSet<String>,
    /// Blocks per turn.
    turns: BTreeMap<String, u32>,
    /// The synthetic turn used when the host sends no turn id.
    #[serde(default)]
    synthetic_turn: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Guard {
    /// Block: at least one finding is new and the turn has blocks left.
    Block,
    /// Let the stop through although the judge found a violation.
    Release(Release),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Release {
    /// Every finding was already blocked once in this session.
    Repeated,
    /// The turn already had this many blocks.
    TurnLimit(u32),
}

impl Release {
    pub fn message(&self) -> String {
        match self {
            Release::Repeated => "agentguard let this stop through: the same finding was already \
                                  blocked once in this session, and blocking it again would only \
                                  make the agent rephrase"
                .into(),
            Release::TurnLimit(n) => format!(
                "agentguard let this stop through: it already blocked {n} time(s) in this turn \
                 (stop.max_blocks_per_turn), and the finding still stands — please review the \
                 agent's last message yourself"
            ),
        }
    }

    pub fn label(&self) -> &'static str {
        match self {
            Release::Repeated => "repeated",
            Release::TurnLimit(_) => "turn-limit",
        }
    }
}

pub struct LoopGuard {
    path: Option<PathBuf>,
    state: State,
    turn: String,
}

impl LoopGuard {
    /// Loads the state of `session` from `dir` (a missing or unreadable file is a fresh state:
    /// the guard must never be the reason a hook fails).
    pub fn load(
        dir: Option<&Path>,
        session: Option<&str>,
        turn: Option<&str>,
        stop_hook_active: bool,
    ) -> LoopGuard {
        let path = dir
            .zip(session)
            .map(|(dir, session)| dir.join(format!("{}.json", file_safe(session))));
        let mut state: State = path
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        let turn = match turn {
            Some(turn) => turn.to_string(),
            None => {
                // Without a turn id, a stop that is not the continuation of a block starts a turn.
                if !stop_hook_active {
                    state.synthetic_turn += 1;
                }
                format!("synthetic-{}", state.synthetic_turn)
            }
        };
        LoopGuard { path, state, turn }
    }

    /// Whether to block for these findings (`detector:fingerprint` each).
    pub fn check(&self, findings: &[String], max_blocks_per_turn: u32) -> Guard {
        let blocks = self.state.turns.get(&self.turn).copied().unwrap_or(0);
        if blocks >= max_blocks_per_turn {
            return Guard::Release(Release::TurnLimit(blocks));
        }
        if findings.iter().all(|f| self.state.blocked.contains(f)) {
            return Guard::Release(Release::Repeated);
        }
        Guard::Block
    }

    pub fn record_block(&mut self, findings: &[String]) {
        self.state.blocked.extend(findings.iter().cloned());
        *self.state.turns.entry(self.turn.clone()).or_default() += 1;
    }

    /// Writes the state like the rest of agentguard's state (0600, atomically). Errors are returned
    /// for the caller to log, not to fail on.
    pub fn save(&self) -> std::io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let bytes = serde_json::to_vec(&self.state).map_err(std::io::Error::other)?;
        crate::fsutil::write_private(path, &bytes)
    }
}

/// Removes session state files older than a week.
pub fn clean_old_state(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|modified| now.duration_since(modified).unwrap_or_default() > STATE_MAX_AGE);
        if old && entry.path().extension().is_some_and(|e| e == "json") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// A session id as a file name: anything but [A-Za-z0-9-_] becomes `_`.
pub fn file_safe(session: &str) -> String {
    let safe: String = session
        .chars()
        .take(128)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() { "_".into() } else { safe }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(dir: &Path, turn: &str) -> LoopGuard {
        LoopGuard::load(Some(dir), Some("s1"), Some(turn), false)
    }

    #[test]
    fn same_finding_is_blocked_once() {
        let dir = tempfile::tempdir().unwrap();
        let findings = vec!["commit:abc".to_string()];
        let mut g = guard(dir.path(), "t1");
        assert_eq!(g.check(&findings, 2), Guard::Block);
        g.record_block(&findings);
        g.save().unwrap();
        let g = guard(dir.path(), "t1");
        assert_eq!(g.check(&findings, 2), Guard::Release(Release::Repeated));
        // A new finding in the same turn is still blocked.
        assert_eq!(g.check(&["commit:def".to_string()], 2), Guard::Block);
    }

    #[test]
    fn turn_limit_and_new_turn() {
        let dir = tempfile::tempdir().unwrap();
        for (i, finding) in ["a", "b"].iter().enumerate() {
            let mut g = guard(dir.path(), "t1");
            assert_eq!(
                g.check(&[finding.to_string()], 2),
                Guard::Block,
                "block {i}"
            );
            g.record_block(&[finding.to_string()]);
            g.save().unwrap();
        }
        let g = guard(dir.path(), "t1");
        assert_eq!(
            g.check(&["c".to_string()], 2),
            Guard::Release(Release::TurnLimit(2))
        );
        let g = guard(dir.path(), "t2");
        assert_eq!(g.check(&["c".to_string()], 2), Guard::Block);
    }

    #[test]
    fn synthetic_turns_without_a_turn_id() {
        let dir = tempfile::tempdir().unwrap();
        let mut g = LoopGuard::load(Some(dir.path()), Some("s"), None, false);
        g.record_block(&["a".into()]);
        g.save().unwrap();
        let g = LoopGuard::load(Some(dir.path()), Some("s"), None, true);
        assert_eq!(
            g.check(&["b".into()], 1),
            Guard::Release(Release::TurnLimit(1))
        );
        g.save().unwrap();
        let g = LoopGuard::load(Some(dir.path()), Some("s"), None, false);
        assert_eq!(g.check(&["b".into()], 1), Guard::Block);
    }

    #[test]
    fn corrupt_state_is_a_fresh_start_and_ids_are_file_safe() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s1.json"), "garbage").unwrap();
        assert_eq!(guard(dir.path(), "t").check(&["x".into()], 2), Guard::Block);
        assert_eq!(file_safe("../../etc/passwd"), "______etc_passwd");
    }
}
