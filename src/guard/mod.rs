//! The hook's decisions, without I/O: what a Stop or a tool call gets, and why.
//!
//! `commands/hook.rs` reads the input, the config and the loop-guard state, calls `stop` or
//! `pre_tool`, prints the `Decision`'s answer and logs it. Everything between is here, and
//! unit-tested next to the code.

pub mod pre_tool;
pub mod stop;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::detectors::Event;
use crate::hook::{self, Permission};
use crate::hosts::Host;
use crate::pipeline::{Judgement, Verdict};

/// What the hook did. Serialized as the log's `action` strings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    #[default]
    Allow,
    /// The stop was refused; the agent reads the reason and continues.
    Block,
    /// The loop guard let a violation through.
    Release,
    /// The tool call waits for the user's approval.
    Ask,
    /// The tool call was refused.
    Deny,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Allow => "allow",
            Action::Block => "block",
            Action::Release => "release",
            Action::Ask => "ask",
            Action::Deny => "deny",
        }
    }
}

/// One hook decision: what to answer, and what the log keeps of it.
#[derive(Debug, Clone, Default)]
pub struct Decision {
    pub action: Action,
    pub verdict: Verdict,
    /// What the agent or the user is shown.
    pub message: Option<String>,
    /// For PreToolUse decisions made by rule (read-only role, destructive gate).
    pub rule: Option<String>,
    /// The loop guard's release label.
    pub release: Option<&'static str>,
    /// Why the hook could not judge.
    pub error: Option<String>,
    /// The enabled detectors that looked at the text.
    pub detectors_run: Vec<String>,
    pub judgement: Option<Judgement>,
    /// The tool call needs the user's approval: Claude Code asks; Codex, which cannot ask
    /// from a hook, denies with a reason that says how to approve.
    approval: bool,
}

impl Decision {
    /// Let it through, saying nothing.
    pub fn allow() -> Decision {
        Decision::default()
    }

    /// The failure direction: a Stop fails open (allowed, the user told why in one line), a
    /// tool call fails safe (ask on Claude Code, deny on Codex).
    pub fn failed(event: Event, host: Host, why: String) -> Decision {
        match event {
            Event::Stop => Decision::failed_open(why),
            Event::PreTool => Decision::failed_safe(host, why),
        }
    }

    /// A Stop that could not be judged goes through, and the user is told why.
    fn failed_open(why: String) -> Decision {
        Decision {
            action: Action::Allow,
            verdict: Verdict::Fail,
            message: Some(unjudged_stop(&why)),
            error: Some(why),
            ..Decision::default()
        }
    }

    /// A tool call that could not be checked waits for the user's approval.
    fn failed_safe(host: Host, why: String) -> Decision {
        Decision {
            verdict: Verdict::Fail,
            message: Some(unjudged_tool(&why)),
            error: Some(why),
            ..Decision::approval(host)
        }
    }

    /// A tool call that needs the user's approval (`ask`, or `deny` on Codex).
    fn approval(host: Host) -> Decision {
        Decision {
            action: match host {
                Host::Claude => Action::Ask,
                Host::Codex => Action::Deny,
            },
            approval: true,
            ..Decision::default()
        }
    }

    /// The JSON the host reads on stdout; None answers nothing (an allow).
    pub fn answer(&self, host: Host) -> Option<Value> {
        let message = self.message.as_deref().unwrap_or("");
        if self.approval {
            return Some(hook::pre_tool(host, Permission::Ask, message));
        }
        match self.action {
            Action::Allow | Action::Release => self.message.as_deref().map(hook::system_message),
            Action::Block => Some(hook::stop_block(message, None)),
            Action::Ask => Some(hook::pre_tool(host, Permission::Ask, message)),
            Action::Deny => Some(hook::pre_tool(host, Permission::Deny, message)),
        }
    }
}

/// The one line a user sees when a stop could not be judged.
pub fn unjudged_stop(why: &str) -> String {
    format!("agentguard: this stop went through unjudged: {why}")
}

/// The reason a tool call that could not be checked waits for approval.
pub fn unjudged_tool(why: &str) -> String {
    format!("agentguard could not check this tool call ({why}), so it needs your approval")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_direction_per_event_and_host() {
        let stop = Decision::failed(Event::Stop, Host::Claude, "boom".into());
        assert_eq!((stop.action, stop.verdict), (Action::Allow, Verdict::Fail));
        let answer = stop.answer(Host::Claude).unwrap();
        assert!(
            answer["systemMessage"]
                .as_str()
                .unwrap()
                .contains("unjudged: boom")
        );
        assert!(answer.get("decision").is_none());

        let claude = Decision::failed(Event::PreTool, Host::Claude, "boom".into());
        assert_eq!(claude.action, Action::Ask);
        let answer = claude.answer(Host::Claude).unwrap();
        assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "ask");

        let codex = Decision::failed(Event::PreTool, Host::Codex, "boom".into());
        assert_eq!(codex.action, Action::Deny);
        let answer = codex.answer(Host::Codex).unwrap();
        assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
        let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap();
        assert!(reason.contains("could not check this tool call (boom)"));
        assert!(reason.contains("To approve it"));
        // The log keeps the reason as decided, without Codex's approval note.
        assert!(!codex.message.unwrap().contains("To approve it"));
    }

    #[test]
    fn allow_answers_nothing_and_actions_keep_their_log_names() {
        assert!(Decision::allow().answer(Host::Claude).is_none());
        for action in [
            Action::Allow,
            Action::Block,
            Action::Release,
            Action::Ask,
            Action::Deny,
        ] {
            let json = serde_json::to_value(action).unwrap();
            assert_eq!(json, action.as_str());
            assert_eq!(serde_json::from_value::<Action>(json).unwrap(), action);
        }
    }
}
