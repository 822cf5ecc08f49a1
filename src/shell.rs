//! Placeholder until the shell-analysis branch lands (replaced wholesale at merge).

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DenyKind {
    Unparseable,
    GitWrite,
    FileWrite,
    Redirection,
    TooDeep,
}

impl DenyKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DenyKind::Unparseable => "unparseable",
            DenyKind::GitWrite => "git-write",
            DenyKind::FileWrite => "file-write",
            DenyKind::Redirection => "redirection",
            DenyKind::TooDeep => "too-deep",
        }
    }
}

impl fmt::Display for DenyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOnlyVerdict {
    Allow,
    Deny { kind: DenyKind, detail: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

pub fn classify_read_only(command: &str) -> ReadOnlyVerdict {
    let Some(words) = shlex::split(command) else {
        return ReadOnlyVerdict::Deny {
            kind: DenyKind::Unparseable,
            detail: command.into(),
        };
    };
    if words.first().map(String::as_str) == Some("git")
        && words
            .get(1)
            .is_some_and(|w| ["commit", "push", "add"].contains(&w.as_str()))
    {
        return ReadOnlyVerdict::Deny {
            kind: DenyKind::GitWrite,
            detail: words[..2].join(" "),
        };
    }
    if words.iter().any(|w| w == ">") {
        return ReadOnlyVerdict::Deny {
            kind: DenyKind::Redirection,
            detail: ">".into(),
        };
    }
    ReadOnlyVerdict::Allow
}

pub fn command_views(command: &str) -> Result<Vec<String>, ParseError> {
    shlex::split(command)
        .map(|words| vec![words.join(" ")])
        .ok_or_else(|| ParseError("unbalanced quotes".into()))
}
