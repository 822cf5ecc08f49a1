//! `agentguard redact`: stdin and files, the summary on stderr, `--json`, `--check`, errors and
//! a reader that goes away.

use std::io::Read;

use crate::support::Env;

/// A token of `len` characters after `prefix`, spelled out at run time so no secret-looking
/// literal lives in the source.
fn token(prefix: &str, len: usize, seed: usize) -> String {
    const ALPHABET: &[u8] = b"aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zC";
    let tail: String = (0..len)
        .map(|i| char::from(ALPHABET[(i * 7 + seed * 13) % ALPHABET.len()]))
        .collect();
    format!("{prefix}{tail}")
}

fn aws_key() -> String {
    // AWS key ids are base32: upper-case letters and 2-7.
    let tail: String = (0..16)
        .map(|i| char::from(b"QWERTYUPZXCVBNM234567"[i * 5 % 21]))
        .collect();
    format!("AKIA{tail}")
}

fn sample() -> (String, String) {
    let github = token("ghp_", 36, 1);
    let aws = aws_key();
    let text = format!(
        "deploy log — état: ok\nexport GITHUB_TOKEN={github}\naws id {aws} and again {github}\nplain line\n"
    );
    let redacted = "deploy log — état: ok\nexport GITHUB_TOKEN=[REDACTED:github-pat]\naws id [REDACTED:aws-access-key] and again [REDACTED:github-pat]\nplain line\n";
    (text, redacted.to_string())
}

#[test]
fn redacts_stdin_to_stdout_with_a_summary_on_stderr() {
    let env = Env::new();
    let (text, redacted) = sample();
    let output = env.cmd().arg("redact").write_stdin(text).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout), redacted);
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "redacted 3: aws-access-key 1, github-pat 2\n"
    );
}

#[test]
fn reads_a_file_and_dash_means_stdin() {
    let env = Env::new();
    let (text, redacted) = sample();
    let path = env.write("project/notes.txt", &text);
    let output = env.cmd().arg("redact").arg(&path).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout), redacted);

    let output = env
        .cmd()
        .args(["redact", "-"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout), redacted);
}

#[test]
fn clean_text_passes_unchanged_and_quietly() {
    let env = Env::new();
    let text = "commit 3f786850e387550fdab836ed7e6dc881de23001b\nrequest 0f8fad5b-d9cb-469f-a165-70867728950e\nno trailing newline";
    let output = env.cmd().arg("redact").write_stdin(text).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout), text);
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn json_puts_total_and_counts_on_stderr() {
    let env = Env::new();
    let (text, redacted) = sample();
    let output = env
        .cmd()
        .args(["redact", "--json"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout), redacted);
    let report: serde_json::Value = serde_json::from_slice(&output.stderr).unwrap();
    assert_eq!(
        report,
        serde_json::json!({"total": 3, "counts": {"aws-access-key": 1, "github-pat": 2}})
    );

    let output = env
        .cmd()
        .args(["redact", "--json"])
        .write_stdin("nothing here\n")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stderr).unwrap();
    assert_eq!(report, serde_json::json!({"total": 0, "counts": {}}));
}

#[test]
fn check_exits_1_when_something_was_redacted_and_0_otherwise() {
    let env = Env::new();
    let (text, redacted) = sample();
    let output = env
        .cmd()
        .args(["redact", "--check"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&output.stdout), redacted);

    let output = env
        .cmd()
        .args(["redact", "--check"])
        .write_stdin("all clear\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "all clear\n");
}

#[test]
fn multi_line_private_key_from_a_file() {
    let env = Env::new();
    let body: String = (0..30).map(|i| format!("{}\n", token("", 64, i))).collect();
    let text = format!(
        "config:\n-----BEGIN OPENSSH PRIVATE KEY-----\n{body}-----END OPENSSH PRIVATE KEY-----\ndone\n"
    );
    let path = env.write("project/id_ed25519", &text);
    let output = env
        .cmd()
        .args(["redact", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "config:\n[REDACTED:private-key]\ndone\n"
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stderr).unwrap();
    assert_eq!(report["counts"]["private-key"], 1);
}

#[test]
fn a_missing_file_is_a_usage_error_naming_it() {
    let env = Env::new();
    let missing = env.project().join("nope.txt");
    let output = env.cmd().arg("redact").arg(&missing).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&missing.display().to_string()), "{stderr}");
    assert!(stderr.contains("hint:"), "{stderr}");
}

#[test]
fn a_reader_that_goes_away_ends_it_quietly_with_0() {
    // `agentguard redact big | head`: stdout closes after a few bytes.
    let env = Env::new();
    let line = format!("log line with {} inside\n", token("ghp_", 36, 2));
    let big = env.write("project/big.log", line.repeat(200_000));
    let mut child = env.agentguard(&["redact"]).arg(&big).spawn().unwrap();
    let mut head = [0u8; 100];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // Dropping the handle above closed the pipe; the writer now gets EPIPE.
    let output = child.wait_with_output().unwrap();
    assert!(String::from_utf8_lossy(&head).starts_with("log line with [REDACTED:github-pat]"));
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A private key block of `lines` body lines, spelled out at run time.
fn private_key(lines: usize, seed: usize) -> (String, Vec<String>) {
    let body: Vec<String> = (0..lines)
        .map(|i| token("MII", 61, seed + i).replace(['_'], "+"))
        .collect();
    let block = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----",
        body.join("\n")
    );
    (block, body)
}

/// Redact, then cut: a private key straddling the start of the judge's window, another one
/// straddling the edge of the excerpt around an early Layer 1 hit, and a token straddling the
/// start of the 32 KiB log tail reach neither the judge (a command backend saving its stdin)
/// nor the decision log.
#[test]
fn a_secret_straddling_every_cut_is_redacted_in_what_is_sent_and_stored() {
    let env = Env::new();
    let sent = env.dir.path().join("sent.txt");
    let judge = env.script(
        "save-prompt",
        &format!(
            "#!/bin/sh\ncat > {}\necho '{{\"new_proposal\": true}}'\n",
            sent.display()
        ),
    );
    let window = 1000;
    env.write_config(&format!(
        "[judge]\nbackend = \"command\"\ncascade = \"llm-only\"\n[judge.command]\nargv = [\"{}\"]\n[stop]\nwindow_bytes = {window}\n",
        judge.display()
    ));
    let (early_key, early_body) = private_key(26, 1);
    let (late_key, late_body) = private_key(26, 40);
    let github = token("ghp_", 36, 7);
    let filler =
        |bytes: usize| "the build is green and the docs are updated.\n".repeat(bytes / 45 + 1);
    // From the end: the late key's middle sits at the window's start; the token at the log
    // tail's start (32 KiB from the end); the early key right after the hit, where the
    // excerpt's edge (300 bytes past the hit) falls.
    let tail_after_key = "\nAll tests pass.\n";
    let late_part = format!("{late_key}{tail_after_key}");
    let mut end = filler(32 * 1024 - late_part.len() - 20);
    end.truncate(32 * 1024 - late_part.len() - 20);
    let text = format!(
        "Shall I commit now?\n{early_key}\n{}\ntoken {github}\n{end}{late_part}",
        filler(8000)
    );
    let tail_start = text.len() - 32 * 1024;
    let token_at = text.find(&github).unwrap();
    assert!(token_at < tail_start && tail_start < token_at + github.len());
    let late_at = text.find(&late_key).unwrap();
    assert!(late_at < text.len() - window && text.len() - window < late_at + late_key.len());

    let payload = serde_json::json!({
        "session_id": "cut-test",
        "transcript_path": env.dir.path().join("none.jsonl"),
        "cwd": env.project(),
        "hook_event_name": "Stop",
        "stop_hook_active": false,
        "last_assistant_message": text,
    });
    let output = env
        .cmd()
        .args(["hook", "stop"])
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("block"),
        "{output:?}"
    );

    let sent = std::fs::read_to_string(&sent).expect("the judge was called");
    let log: String = std::fs::read_dir(env.log_dir())
        .unwrap()
        .flatten()
        .map(|entry| std::fs::read_to_string(entry.path()).unwrap())
        .collect();
    assert!(sent.contains("Shall I commit now?"), "the excerpt is sent");
    assert!(sent.contains("[REDACTED:private-key]"), "{sent}");
    assert!(
        log.contains("[REDACTED:github-pat]"),
        "the token's marker is kept whole"
    );
    for (what, place) in [("sent to the judge", &sent), ("logged", &log)] {
        for line in early_body.iter().chain(&late_body) {
            assert!(
                !place.contains(line.as_str()),
                "a key line was {what}: {line}"
            );
        }
        assert!(
            !place.contains(&github[github.len() - 20..]),
            "the token's tail was {what}"
        );
    }
}

/// Commands with credentials on their command line are logged by the pre-tool hook with each
/// whole value redacted.
#[test]
fn pre_tool_logs_commands_with_their_passwords_redacted() {
    let env = Env::new();
    let password = "Zx8:pQ3,mN6;rT5";
    let commands = [
        format!("PGPASSWORD='{password}' psql -h db.internal -U app -c 'select 1'"),
        format!("mysqldump --password='{password}' shop > shop.sql"),
        format!("export DB_PASSWORD='{password}' && ./migrate"),
        format!("docker run -e POSTGRES_PASSWORD=\"{password}\" postgres:16"),
    ];
    for command in &commands {
        let payload = serde_json::json!({"session_id": "s", "cwd": env.project(),
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": "t"});
        let output = env
            .cmd()
            .args(["hook", "pre-tool"])
            .write_stdin(payload.to_string())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
    }
    let log: String = std::fs::read_dir(env.log_dir())
        .unwrap()
        .flatten()
        .map(|entry| std::fs::read_to_string(entry.path()).unwrap())
        .collect();
    assert_eq!(
        log.matches("[REDACTED:generic-secret]").count(),
        commands.len(),
        "{log}"
    );
    for piece in password.split([':', ',', ';']) {
        assert!(
            !log.contains(piece),
            "`{piece}` of the password was logged: {log}"
        );
    }
}

#[test]
fn binary_input_gets_a_warning_and_passes_through() {
    let env = Env::new();
    let input = b"\x1f\x8b\x08\x00\x00\x00compressed".to_vec();
    let output = env
        .cmd()
        .arg("redact")
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(output.stdout, input);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("stdin is binary, not text"), "{stderr}");

    let text = env
        .cmd()
        .arg("redact")
        .write_stdin("plain grüße\n")
        .output()
        .unwrap();
    assert!(
        text.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&text.stderr)
    );
}
