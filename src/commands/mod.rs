//! One module per subcommand: parse inputs, call the core, render output.

use crate::cli::Command;
use crate::error::Result;

mod completions;
mod config;
mod doctor;
mod hook;
mod install;
mod judge;
mod launch;
mod logs;
mod redact;
mod self_update;
mod trust;

/// Runs one command and returns its exit code.
pub fn run(command: Command) -> Result<u8> {
    match command {
        Command::Install(args) => install::run_install(args),
        Command::Uninstall(args) => install::run_uninstall(args),
        Command::Hook(hook) => hook::run(hook),
        Command::Judge(args) => judge::run(args),
        Command::Redact(args) => redact::run(args),
        Command::Logs(args) => logs::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Config(cmd) => config::run(cmd),
        Command::Launch(args) => launch::run(args),
        Command::Trust(args) => trust::run(args),
        Command::Completions(args) => completions::run(args),
        Command::SelfUpdate(args) => self_update::run(args),
    }
}
