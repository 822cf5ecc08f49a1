//! `agentguard completions`: the committed completion scripts and man page are exactly what the
//! binary generates. When a flag changes, refresh them with
//! `UPDATE_COMPLETIONS=1 cargo test --test cli completions::` and commit the result.

use std::path::Path;

use crate::support::Env;

const COMMITTED: [(&str, &str); 6] = [
    ("bash", "completions/agentguard.bash"),
    ("zsh", "completions/_agentguard"),
    ("fish", "completions/agentguard.fish"),
    ("powershell", "completions/_agentguard.ps1"),
    ("elvish", "completions/agentguard.elv"),
    ("man", "man/agentguard.1"),
];

#[test]
fn committed_completions_and_man_page_are_current() {
    let env = Env::new();
    let update = std::env::var("UPDATE_COMPLETIONS").is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    for (target, file) in COMMITTED {
        let output = env.cmd().args(["completions", target]).output().unwrap();
        assert!(
            output.status.success(),
            "completions {target} failed: {output:?}"
        );
        assert!(
            !output.stdout.is_empty(),
            "completions {target} printed nothing"
        );
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &output.stdout).unwrap();
            continue;
        }
        let committed = std::fs::read(&path).unwrap_or_default();
        if committed != output.stdout {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files: {stale:?}\nregenerate them with \
         `UPDATE_COMPLETIONS=1 cargo test --test cli completions::` and commit the result"
    );
}

#[test]
fn bash_completion_offers_subcommands_and_flags() {
    let env = Env::new();
    let output = env.cmd().args(["completions", "bash"]).output().unwrap();
    let script = String::from_utf8(output.stdout).unwrap();
    for word in ["install", "self-update", "--check", "--yes", "redact"] {
        assert!(script.contains(word), "bash completion lacks {word}");
    }
}

#[test]
fn unknown_shell_is_a_usage_error() {
    let env = Env::new();
    let output = env.cmd().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("possible values"), "{stderr}");
}
