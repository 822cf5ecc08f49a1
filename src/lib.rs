//! agentguard: guards autonomous coding agents through their hooks.
//!
//! The binary is a thin shell around this library: `cli` holds the flags, `commands` one module
//! per subcommand, and everything else is the shared core that the commands call.

pub mod backends;
pub mod cli;
pub mod codex_trust;
pub mod commands;
pub mod config;
pub mod deadline;
pub mod detectors;
pub mod doctor;
pub mod error;
pub mod eval;
pub mod evidence;
pub mod formula;
pub mod fsutil;
pub mod gate;
pub mod guard;
pub mod hook;
pub mod hosts;
pub mod json_span;
pub mod lastgood;
pub mod launch;
pub mod literals;
pub mod log;
pub mod logview;
pub mod loopguard;
pub mod notices;
pub mod paths;
pub mod pipeline;
pub mod protected;
pub mod redact;
pub mod settings;
pub mod shell;
pub mod text;
pub mod transcript;
pub mod trust;

use std::process::ExitCode;

use clap::Parser;

/// Parse the command line, run the command, map the outcome to an exit code.
pub fn run() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let command = match cli::Cli::parse_hook_line(&args) {
        Some(hook) => cli::Command::Hook(hook),
        None => match cli::Cli::try_parse_from(&args) {
            Ok(cli) => cli.command,
            Err(err) => {
                let code = if err.use_stderr() {
                    error::exit::USAGE
                } else {
                    error::exit::OK
                };
                let _ = err.print();
                return ExitCode::from(code);
            }
        },
    };
    match commands::run(command) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            if err.kind != error::ErrorKind::BrokenPipe {
                eprintln!("agentguard: error: {}", err.message);
                if let Some(hint) = &err.hint {
                    eprintln!("  hint: {hint}");
                }
            }
            ExitCode::from(err.exit_code())
        }
    }
}
