//! The read-only policy (SPEC §3): an allowlist. A command passes only when every simple
//! command in it is a program the specs describe as reading (or building and testing), with
//! no option, subcommand or check that makes it write; every redirection goes to `/dev/null`
//! or a descriptor; and no assignment or `export` in force can make a reader run a program.

use super::programs::{self, Effect};
use super::walk::{Analysis, INPUT_WORD, Invocation};
use super::{DenyKind, ReadOnlyVerdict, rules};

/// Pagers that only display.
const DISPLAY_PAGERS: &[&str] = &[
    "", "cat", "less", "more", "head", "tail", "bat", "delta", "most",
];

/// `gate`: the dangerous gate's answer for the same analysis.
pub fn verdict(analysis: &Analysis, gate: impl FnOnce() -> Option<super::Hold>) -> ReadOnlyVerdict {
    if let Some(what) = analysis.dynamic_code.first() {
        return deny(DenyKind::DynamicCommand, what.clone());
    }
    for invocation in &analysis.invocations {
        if let Some((kind, detail)) = invocation_verdict(invocation) {
            return deny(kind, detail);
        }
    }
    // What the gate holds is no read: the same analysis, the same specs.
    if let Some(hold) = gate() {
        return deny(DenyKind::Destructive, hold.rule);
    }
    // A reviewer has no use for a here-document that would be destructive as commands, and
    // what reads it may run it (`custom-tool <<EOF`): refused whatever consumes it.
    for text in analysis
        .invocations
        .iter()
        .filter_map(|i| i.stdin_text.as_deref())
    {
        let held = super::walk::analyze(text)
            .ok()
            .and_then(|inner| super::dangerous::gate(&inner));
        if let Some(hold) = held {
            return deny(
                DenyKind::Destructive,
                format!("here-document: {}", hold.rule),
            );
        }
    }

    match analysis
        .redirects
        .iter()
        .find(|redirect| redirect.writes_file())
    {
        Some(redirect) => deny(DenyKind::Redirection, redirect.render()),
        None => ReadOnlyVerdict::Allow,
    }
}

fn deny(kind: DenyKind, detail: String) -> ReadOnlyVerdict {
    ReadOnlyVerdict::Deny { kind, detail }
}

/// Why `invocation` alone is not known to only read, if it is not (computed once per
/// invocation).
pub(super) fn invocation_verdict(invocation: &Invocation) -> Option<(DenyKind, String)> {
    invocation
        .read_verdict
        .get_or_init(|| verdict_now(invocation))
        .clone()
}

fn verdict_now(invocation: &Invocation) -> Option<(DenyKind, String)> {
    let argv = &invocation.argv;
    if invocation.dynamic.first().copied().unwrap_or(false) {
        return Some((DenyKind::DynamicCommand, argv[0].clone()));
    }
    // `{rm,-rf,x}` and `/bin/r?` become other commands after brace and glob expansion.
    let expands = |word: &str| {
        !matches!(word, "[" | "[[")
            && (word.contains(['*', '?', '[']) || (word.contains('{') && word.contains([',', '.'])))
    };
    if expands(&argv[0]) {
        return Some((DenyKind::DynamicCommand, argv[0].clone()));
    }
    for (name, value) in invocation.environment() {
        if programs::runs_code_env(name) && !harmless_setting(name, value) {
            return Some((DenyKind::Environment, format!("{name}={value}")));
        }
    }
    let name = rules::program_name(&argv[0]);
    let Some(parsed) = invocation.parsed() else {
        return Some((DenyKind::UnknownProgram, name.to_string()));
    };
    let spec = parsed.path[0];
    let (effect, cause) = parsed.effect_and_cause(&argv[0]);
    let kind = match effect {
        Effect::Read | Effect::Build => None,
        Effect::Write => Some(DenyKind::FileWrite),
        Effect::State if name.eq_ignore_ascii_case("git") => Some(DenyKind::GitWrite),
        Effect::State => Some(DenyKind::StateChange),
        Effect::Exec => Some(DenyKind::RunsCode),
    };
    if let Some(kind) = kind {
        // Named only for a denial: most commands read.
        let shown = cause.unwrap_or_else(|| parsed.display_name(&argv[0]));
        return Some((kind, shown));
    }
    if parsed.prints_only() {
        // `wget -h`, `7z -h`: help or version is printed and nothing else runs.
        return None;
    }
    if let Some(denial) = parsed
        .path
        .iter()
        .filter_map(|command| command.check)
        .find_map(|check| rules::check(check, invocation))
    {
        return Some(denial);
    }
    // `xargs -I{} git reflog --{}`: words read at run time pick an option or subcommand
    // (before `--`, or before a shell's or interpreter's code is fixed).
    let base_name = rules::program_name(&argv[0]);
    let boundary = if spec.check == Some("interpreter")
        || rules::is_shell(base_name)
        || rules::is_awk(base_name)
    {
        rules::code_fixed_at(base_name, invocation)
    } else {
        argv.iter()
            .position(|arg| arg == "--")
            .unwrap_or(argv.len())
    };
    let picks = invocation.from_input.iter().enumerate().any(|(at, input)| {
        *input
            && at < boundary
            && (argv[at].starts_with(INPUT_WORD)
                || (argv[at].starts_with('-') && argv[at].contains(INPUT_WORD)))
            && at > 0
            // The options of the subcommand reached (`xargs git status`), not of the whole
            // program: words after `status` cannot pick `git log --output`.
            && parsed.path.last().is_none_or(|spec| {
                !spec.value_options.contains(&argv[at - 1].as_str()) && options_can_write(spec)
            })
    });
    picks.then(|| {
        (
            DenyKind::DynamicCommand,
            format!("{} with words read at run time", argv[0]),
        )
    })
}

/// Whether some option or subcommand of the program does more than read: an input word
/// that becomes an option could then make it write (`xargs sort` given `-o f`).
fn options_can_write(command: &programs::Command) -> bool {
    command.check.is_some()
        || command.single_dash_long
        || !command.holds.is_empty()
        || command
            .options
            .iter()
            .any(|option| option.effect > Effect::Build)
        || command.subs.iter().any(options_can_write)
        || (!command.subs.is_empty())
}

/// `GIT_PAGER=cat`, `PAGER=less`: settings of a code-running variable that only display.
fn harmless_setting(name: &str, value: &str) -> bool {
    match name {
        "PAGER" | "GIT_PAGER" | "MANPAGER" | "SYSTEMD_PAGER" => {
            DISPLAY_PAGERS.contains(&value.split_whitespace().next().unwrap_or(""))
        }
        _ => false,
    }
}
