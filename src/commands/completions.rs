//! `agentguard completions <shell|man>`: shell completions and the man page, generated from the
//! one clap definition in `cli.rs` so they can never disagree with `--help`.
//!
//! Copies are committed under `completions/` and `man/` for packagers; `tests/cli/completions.rs`
//! regenerates them and fails when they are stale. Refresh them with
//! `UPDATE_COMPLETIONS=1 cargo test --test cli completions::`.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::roff::{Inline, Roff, bold, italic, roman};

use crate::cli::{Cli, CompletionTarget, CompletionsArgs};
use crate::error::Result;

pub fn run(args: CompletionsArgs) -> Result<u8> {
    let mut out = Vec::new();
    render(args.shell, &mut out)?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(crate::error::exit::OK)
}

/// Writes the completion script (or the man page) for `target` into `out`.
pub fn render(target: CompletionTarget, out: &mut dyn Write) -> Result<()> {
    let shell = match target {
        CompletionTarget::Bash => Shell::Bash,
        CompletionTarget::Zsh => Shell::Zsh,
        CompletionTarget::Fish => Shell::Fish,
        CompletionTarget::Powershell => Shell::PowerShell,
        CompletionTarget::Elvish => Shell::Elvish,
        CompletionTarget::Man => return render_man(out),
    };
    let mut cmd = Cli::command();
    clap_complete::generate(shell, &mut cmd, "agentguard", out);
    Ok(())
}

/// One man page for the whole tool: clap_mangen's page for the top level, then every command with
/// its own options (clap_mangen alone would point at one page per subcommand, which we don't ship),
/// then the exit status.
fn render_man(out: &mut dyn Write) -> Result<()> {
    let mut cmd = Cli::command();
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;

    let mut roff = Roff::default();
    roff.control("SH", ["COMMANDS"]);
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        render_command(&mut roff, sub, "agentguard");
    }
    roff.control("SH", ["EXIT STATUS"]);
    for (code, meaning) in [
        ("0", "Success; nothing found; up to date."),
        (
            "1",
            "Something was found: a violation, a secret (redact --check), an unhealthy check \
             (doctor), a newer release (self-update --check).",
        ),
        (
            "2",
            "Usage, configuration, input or network error; the message says how to fix it.",
        ),
    ] {
        roff.control("TP", [])
            .text([bold(code)])
            .text([roman(meaning)]);
    }
    roff.to_writer(&mut page)?;
    man.render_version_section(&mut page)?;

    // Every render call starts with the same two-line roff preamble; keep only the first.
    let page = String::from_utf8_lossy(&page).into_owned();
    let preamble = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";
    let body = page
        .strip_prefix(preamble)
        .unwrap_or(&page)
        .replace(preamble, "");
    out.write_all(preamble.as_bytes())?;
    out.write_all(body.as_bytes())?;
    Ok(())
}

/// A `.SS` block per command (recursing into nested subcommands): usage line, description, options.
fn render_command(roff: &mut Roff, cmd: &clap::Command, parent: &str) {
    let path = format!("{parent} {}", cmd.get_name());
    let subcommands: Vec<&clap::Command> = cmd
        .get_subcommands()
        .filter(|s| s.get_name() != "help")
        .collect();

    let mut usage = path.clone();
    if cmd
        .get_arguments()
        .any(|a| !a.is_positional() && !a.is_hide_set() && !is_builtin(a))
    {
        usage.push_str(" [OPTIONS]");
    }
    for arg in cmd.get_arguments().filter(|a| a.is_positional()) {
        usage.push(' ');
        usage.push_str(&positional_name(arg));
    }
    if !subcommands.is_empty() {
        let optional = cmd.is_args_conflicts_with_subcommands_set();
        usage.push_str(if optional { " [COMMAND]" } else { " <COMMAND>" });
    }
    roff.control("SS", [usage.as_str()]);
    if let Some(about) = cmd.get_long_about().or_else(|| cmd.get_about()) {
        roff.text([roman(about.to_string())]);
    }
    for arg in cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !is_builtin(a))
    {
        roff.control("TP", []).text(arg_heading(arg));
        roff.text([roman(arg_help(arg))]);
    }
    if let Some(after) = cmd.get_after_long_help().or_else(|| cmd.get_after_help()) {
        for line in after.to_string().lines().filter(|l| !l.trim().is_empty()) {
            roff.control("PP", []).text([roman(line)]);
        }
    }
    for sub in subcommands {
        render_command(roff, sub, &path);
    }
}

/// `--help` / `--version`, which every command has and the top-level OPTIONS already explain.
fn is_builtin(arg: &clap::Arg) -> bool {
    matches!(arg.get_id().as_str(), "help" | "version")
}

fn value_name(arg: &clap::Arg) -> String {
    arg.get_value_names()
        .and_then(|names| names.first())
        .map(|n| n.to_string())
        .unwrap_or_else(|| arg.get_id().as_str().to_uppercase())
}

fn positional_name(arg: &clap::Arg) -> String {
    let name = value_name(arg);
    let dots = if matches!(arg.get_action(), clap::ArgAction::Append) {
        "..."
    } else {
        ""
    };
    if arg.is_required_set() {
        format!("<{name}>{dots}")
    } else {
        format!("[{name}]{dots}")
    }
}

fn arg_heading(arg: &clap::Arg) -> Vec<Inline> {
    if arg.is_positional() {
        return vec![italic(positional_name(arg))];
    }
    let mut parts = Vec::new();
    if let Some(short) = arg.get_short() {
        parts.push(bold(format!("-{short}")));
        parts.push(roman(", "));
    }
    if let Some(long) = arg.get_long() {
        parts.push(bold(format!("--{long}")));
    }
    if arg.get_action().takes_values() {
        parts.push(roman(" "));
        parts.push(italic(format!("<{}>", value_name(arg))));
    }
    parts
}

fn arg_help(arg: &clap::Arg) -> String {
    let mut help = arg
        .get_long_help()
        .or_else(|| arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_string())
        .collect();
    if !values.is_empty() {
        help.push_str(&format!(" [possible values: {}]", values.join(", ")));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        help.push_str(&format!(" [default: {}]", defaults.join(",")));
    }
    help.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn man_page() -> String {
        let mut out = Vec::new();
        render(CompletionTarget::Man, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn man_page_documents_every_command_and_its_flags() {
        let page = man_page();
        for needle in [
            ".TH agentguard 1",
            "agentguard install [OPTIONS]",
            "agentguard hook stop",
            "agentguard logs replay [OPTIONS]",
            "agentguard self-update [OPTIONS]",
            "\\-\\-check",
            "[possible values: claude, codex]",
            "[default: user]",
            "AGENTGUARD_UPDATE_API_URL",
            ".SH \"EXIT STATUS\"",
        ] {
            assert!(page.contains(needle), "man page lacks {needle:?}:\n{page}");
        }
    }

    #[test]
    fn man_page_has_one_preamble_and_no_usage_for_help_only_commands() {
        let page = man_page();
        assert_eq!(page.matches(".ds Aq \\(aq").count(), 1, "{page}");
        assert!(page.contains(".SS \"agentguard hook <COMMAND>\""), "{page}");
    }

    #[test]
    fn every_shell_gets_a_script_naming_the_binary() {
        for target in [
            CompletionTarget::Bash,
            CompletionTarget::Zsh,
            CompletionTarget::Fish,
            CompletionTarget::Powershell,
            CompletionTarget::Elvish,
        ] {
            let mut out = Vec::new();
            render(target, &mut out).unwrap();
            let script = String::from_utf8(out).unwrap();
            assert!(script.contains("agentguard"), "{target:?}");
            assert!(
                script.contains("self-update"),
                "{target:?} lacks a subcommand"
            );
        }
    }
}
