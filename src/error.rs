//! One error type for every command, mapped to an exit code in one place.

use std::fmt;

/// Exit codes are part of the interface (README, "Exit codes").
pub mod exit {
    pub const OK: u8 = 0;
    /// A violation was found, something is unhealthy, `--check` found a secret.
    pub const FOUND: u8 = 1;
    /// Usage, configuration or input error.
    pub const USAGE: u8 = 2;
    /// `judge` could not judge (verdict `fail`: the backend timed out, failed or gave no
    /// usable reply): neither clean nor a violation, so a CI gate must not read it as 0.
    pub const UNJUDGED: u8 = 3;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Wrong arguments or input the user can fix.
    Usage,
    /// A configuration file or detector definition is invalid.
    Config,
    /// A file or process could not be read, written or started.
    Io,
    /// Something the command needs is not installed here (a CLI to launch).
    Unavailable,
    /// Writing to stdout failed because the reader went away (`| head`).
    BrokenPipe,
}

#[derive(Debug)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    pub hint: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            hint: None,
        }
    }
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Usage, message)
    }
    pub fn config(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Config, message)
    }
    pub fn io(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Io, message)
    }
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// An I/O error on `path`, with what we were doing.
    pub fn io_at(action: &str, path: &std::path::Path, err: std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            return Self::new(ErrorKind::BrokenPipe, "broken pipe");
        }
        Self::io(format!("cannot {action} {}: {err}", path.display()))
    }

    pub fn exit_code(&self) -> u8 {
        match self.kind {
            ErrorKind::BrokenPipe => exit::OK,
            ErrorKind::Usage | ErrorKind::Config | ErrorKind::Unavailable => exit::USAGE,
            ErrorKind::Io => exit::USAGE,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            Self::new(ErrorKind::BrokenPipe, "broken pipe")
        } else {
            Self::io(err.to_string())
        }
    }
}
