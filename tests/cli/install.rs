//! `agentguard install` / `uninstall`: the settings file is never damaged.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use predicates::prelude::*;
use serde_json::Value;

use crate::support::{Env, fixture};

/// The absolute path the hooks point at (what `install` writes into commands).
fn binary() -> String {
    let path = assert_cmd::cargo::cargo_bin("agentguard");
    path.canonicalize().unwrap().to_str().unwrap().to_string()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap()
}

/// An expected file from `tests/fixtures/install/`, with the binary path filled in.
fn expected(name: &str) -> String {
    read(&fixture(&format!("install/{name}"))).replace("@AGENTGUARD@", &binary())
}

fn original(name: &str) -> String {
    read(&fixture(&format!("install/{name}")))
}

fn claude_settings(env: &Env) -> PathBuf {
    env.home().join(".claude/settings.json")
}

/// Names of the files in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn backups(dir: &Path) -> Vec<PathBuf> {
    names(dir)
        .into_iter()
        .filter(|n| n.contains(".agentguard-backup-"))
        .map(|n| dir.join(n))
        .collect()
}

/// Every agentguard command per event, in a parsed settings document.
fn our_commands(settings: &Value, event: &str) -> Vec<String> {
    let mut found = Vec::new();
    for group in settings["hooks"][event].as_array().into_iter().flatten() {
        for hook in group["hooks"].as_array().into_iter().flatten() {
            let command = hook["command"].as_str().unwrap_or_default();
            if command.contains("agentguard hook") {
                found.push(command.to_string());
            }
        }
    }
    found
}

/// Install into a rich user settings file: the result is the original plus exactly our
/// entries (compared with an expected file: key order and indentation kept); a second install
/// changes nothing; uninstall restores the original byte for byte.
fn claude_round_trip(fixture_name: &str, expected_name: &str) {
    let env = Env::new();
    let path = env.write("home/.claude/settings.json", original(fixture_name));

    env.cmd()
        .args(["install", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Stop          added"))
        .stdout(predicate::str::contains("PreToolUse    added"))
        .stdout(predicate::str::contains("Backup of the previous file:"));
    let installed = read(&path);
    assert_eq!(installed, expected(expected_name));
    let saved = backups(&env.home().join(".claude"));
    assert_eq!(saved.len(), 1, "{saved:?}");
    // No temp or lock file is left behind: the backup is the only new file.
    assert_eq!(names(&env.home().join(".claude")).len(), 2);
    assert_eq!(read(&saved[0]), original(fixture_name));

    env.cmd()
        .args(["install", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "already installed, nothing to change",
        ));
    assert_eq!(read(&path), installed);
    assert_eq!(backups(&env.home().join(".claude")).len(), 1);

    env.cmd()
        .args(["uninstall", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Stop          removed"));
    let restored = read(&path);
    assert_eq!(restored, original(fixture_name));
    let restored: Value = serde_json::from_str(&restored).unwrap();
    let before: Value = serde_json::from_str(&original(fixture_name)).unwrap();
    assert_eq!(restored, before);

    env.cmd()
        .args(["uninstall", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "no agentguard hooks, nothing to remove",
        ));
}

#[test]
fn claude_round_trip_two_space_settings() {
    claude_round_trip(
        "claude_rich_2space.json",
        "claude_rich_2space.expected.json",
    );
}

#[test]
fn claude_round_trip_four_space_settings_without_trailing_newline() {
    assert!(!original("claude_rich_4space.json").ends_with('\n'));
    claude_round_trip(
        "claude_rich_4space.json",
        "claude_rich_4space.expected.json",
    );
}

#[test]
fn fresh_install_creates_the_settings_file() {
    let env = Env::new();
    env.cmd().args(["install", "--yes"]).assert().success();
    let settings: Value = serde_json::from_str(&read(&claude_settings(&env))).unwrap();
    let stop = format!("{} hook stop --host claude", binary());
    assert_eq!(our_commands(&settings, "Stop"), std::slice::from_ref(&stop));
    assert_eq!(our_commands(&settings, "SubagentStop"), [stop]);
    assert_eq!(
        settings["hooks"]["PreToolUse"][0]["matcher"],
        "^(Bash|Edit|Write|MultiEdit|NotebookEdit|mcp__.+)$"
    );
    assert_eq!(settings["hooks"]["Stop"][0]["hooks"][0]["timeout"], 60);
    assert!(
        backups(&env.home().join(".claude")).is_empty(),
        "nothing to back up"
    );

    env.cmd()
        .args(["uninstall", "--dry-run"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "(the file goes: agentguard install created it)",
        ));
    env.cmd()
        .args(["uninstall", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("agentguard install created it"));
    assert!(
        !env.home().join(".claude").exists(),
        "the file and the directory install created are gone"
    );
}

#[test]
fn only_selected_events_are_installed() {
    let env = Env::new();
    env.cmd()
        .args(["install", "--yes", "--events", "pre-tool"])
        .assert()
        .success();
    let settings: Value = serde_json::from_str(&read(&claude_settings(&env))).unwrap();
    assert_eq!(
        settings["hooks"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["PreToolUse"]
    );
}

#[test]
fn moved_binary_is_updated_in_place_never_duplicated() {
    let env = Env::new();
    let path = env.write(
        "home/.claude/settings.json",
        r#"{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {"type": "command", "command": "notify-send done"},
          {"type": "command", "command": "/old/place/agentguard hook stop --host claude", "timeout": 60}
        ]
      }
    ]
  }
}
"#,
    );
    env.cmd()
        .args(["install", "--yes", "--events", "stop"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Stop          updated"));
    let settings: Value = serde_json::from_str(&read(&path)).unwrap();
    let stop = &settings["hooks"]["Stop"];
    assert_eq!(stop.as_array().unwrap().len(), 1, "{stop}");
    assert_eq!(stop[0]["hooks"][0]["command"], "notify-send done");
    assert_eq!(
        stop[0]["hooks"][1]["command"],
        format!("{} hook stop --host claude", binary())
    );
}

#[test]
fn malformed_settings_are_refused_with_line_and_column() {
    let env = Env::new();
    let broken = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n";
    let path = env.write("home/.claude/settings.json", broken);
    env.cmd()
        .args(["install", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "{}:4:14: invalid JSON",
            path.display()
        )))
        .stderr(predicate::str::contains("nothing was written"))
        .stderr(predicate::str::contains(
            "hint: fix the file at that line and column",
        ));
    assert_eq!(read(&path), broken);
    assert_eq!(names(&env.home().join(".claude")), ["settings.json"]);

    env.cmd().args(["uninstall", "--yes"]).assert().code(2);
    assert_eq!(read(&path), broken);
}

#[test]
fn symlinked_settings_edit_the_target_and_keep_the_link() {
    let env = Env::new();
    let target = env.write(
        "home/dotfiles/claude-settings.json",
        original("claude_rich_2space.json"),
    );
    fs::create_dir_all(env.home().join(".claude")).unwrap();
    let link = claude_settings(&env);
    std::os::unix::fs::symlink("../dotfiles/claude-settings.json", &link).unwrap();

    env.cmd()
        .args(["install", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("(a link to"));
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read(&target), expected("claude_rich_2space.expected.json"));
    assert_eq!(backups(&env.home().join("dotfiles")).len(), 1);

    env.cmd().args(["uninstall", "--yes"]).assert().success();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read(&target), original("claude_rich_2space.json"));
}

#[test]
fn read_only_file_is_left_alone() {
    let env = Env::new();
    let path = env.write(
        "home/.claude/settings.json",
        original("claude_rich_2space.json"),
    );
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    env.cmd()
        .args(["install", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is read-only; nothing was changed",
        ))
        .stderr(predicate::str::contains("chmod u+w"));
    assert_eq!(read(&path), original("claude_rich_2space.json"));
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o444
    );
    assert_eq!(names(&env.home().join(".claude")), ["settings.json"]);
}

#[test]
fn read_only_directory_is_left_alone() {
    let env = Env::new();
    let path = env.write(
        "home/.claude/settings.json",
        original("claude_rich_2space.json"),
    );
    let dir = env.home().join(".claude");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o555)).unwrap();
    let assert = env.cmd().args(["install", "--yes"]).assert();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    assert.code(2).stderr(predicate::str::contains(
        "is read-only; nothing was changed",
    ));
    assert_eq!(read(&path), original("claude_rich_2space.json"));
    assert_eq!(names(&dir), ["settings.json"]);
}

#[test]
fn permissions_are_kept() {
    let env = Env::new();
    let path = env.write("home/.claude/settings.json", "{}\n");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    env.cmd().args(["install", "--yes"]).assert().success();
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let env = Env::new();
    let path = env.write(
        "home/.claude/settings.json",
        original("claude_rich_2space.json"),
    );
    env.cmd()
        .args(["install", "--dry-run"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("--- {}", path.display())))
        .stdout(predicate::str::contains(format!(
            "+++ {} (after install)",
            path.display()
        )))
        .stdout(predicate::str::contains(format!(
            "+            \"command\": \"{} hook pre-tool --host claude\",",
            binary()
        )))
        .stdout(predicate::str::contains("(dry run: nothing written)"));
    assert_eq!(read(&path), original("claude_rich_2space.json"));
    assert_eq!(names(&env.home().join(".claude")), ["settings.json"]);

    // Nothing exists yet: the dry run creates no directory either.
    let fresh = Env::new();
    fresh
        .cmd()
        .args(["install", "--dry-run"])
        .assert()
        .success();
    assert!(!fresh.home().join(".claude").exists());
}

#[test]
fn without_a_terminal_it_asks_for_yes() {
    let env = Env::new();
    let path = env.write(
        "home/.claude/settings.json",
        original("claude_rich_2space.json"),
    );
    env.cmd()
        .arg("install")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no terminal to confirm on"))
        .stderr(predicate::str::contains("pass --yes"));
    assert_eq!(read(&path), original("claude_rich_2space.json"));
}

#[test]
fn project_and_local_scopes_write_into_the_project() {
    let env = Env::new();
    env.cmd()
        .args(["install", "--yes", "--scope", "project"])
        .assert()
        .success();
    assert!(env.project().join(".claude/settings.json").is_file());

    let other = env.dir.path().join("other");
    fs::create_dir_all(&other).unwrap();
    env.cmd()
        .args(["install", "--yes", "--scope", "local", "--project-dir"])
        .arg(&other)
        .assert()
        .success();
    assert!(other.join(".claude/settings.local.json").is_file());
    assert!(!claude_settings(&env).exists());

    env.cmd()
        .args([
            "install",
            "--yes",
            "--scope",
            "local",
            "--project-dir",
            "does-not-exist",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does not exist"));
}

#[test]
fn uninstall_without_settings_creates_nothing() {
    let env = Env::new();
    env.cmd()
        .args(["uninstall", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("nothing to remove"));
    assert!(!env.home().join(".claude").exists());
}

#[test]
fn codex_config_toml_round_trip_keeps_everything_outside_our_tables() {
    let env = Env::new();
    let path = env.write("home/.codex/config.toml", original("codex_config.toml"));
    env.cmd()
        .args(["install", "--host", "codex", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "Installed agentguard hooks in {}",
            path.display()
        )))
        .stdout(predicate::str::contains("open /hooks, review and trust"))
        .stdout(predicate::str::contains("Stop (not trusted yet)"));
    assert_eq!(read(&path), expected("codex_config.expected.toml"));
    assert!(
        !env.home().join(".codex/hooks.json").exists(),
        "hooks stay where the user keeps them"
    );

    env.cmd()
        .args(["install", "--host", "codex", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("already installed"));
    env.cmd()
        .args(["uninstall", "--host", "codex", "--yes"])
        .assert()
        .success();
    assert_eq!(read(&path), original("codex_config.toml"));
}

#[test]
fn codex_hooks_json_round_trip() {
    let env = Env::new();
    let path = env.write("home/.codex/hooks.json", original("codex_hooks.json"));
    let config = env.write("home/.codex/config.toml", "model = \"o3\"\n");
    env.cmd()
        .args(["install", "--host", "codex", "--yes"])
        .assert()
        .success();
    assert_eq!(read(&path), expected("codex_hooks.expected.json"));
    assert_eq!(read(&config), "model = \"o3\"\n");
    env.cmd()
        .args(["uninstall", "--host", "codex", "--yes"])
        .assert()
        .success();
    assert_eq!(read(&path), original("codex_hooks.json"));
    assert_eq!(read(&config), "model = \"o3\"\n");
}

#[test]
fn codex_without_hooks_gets_a_hooks_json_of_its_own() {
    let mut env = Env::new();
    let config = env.write("home/.codex/config.toml", "# mine\nmodel = \"o3\"\n");
    env.cmd()
        .args(["install", "--host", "codex", "--yes", "--events", "stop"])
        .assert()
        .success();
    let hooks: Value = serde_json::from_str(&read(&env.home().join(".codex/hooks.json"))).unwrap();
    assert_eq!(
        our_commands(&hooks, "Stop"),
        [format!("{} hook stop --host codex", binary())]
    );
    assert_eq!(read(&config), "# mine\nmodel = \"o3\"\n");

    let codex_home = env.dir.path().join("codex-home");
    fs::create_dir_all(&codex_home).unwrap();
    env.set("CODEX_HOME", codex_home.to_str().unwrap());
    env.cmd()
        .args(["install", "--host", "codex", "--yes"])
        .assert()
        .success();
    assert!(env.dir.path().join("codex-home/hooks.json").is_file());
}

#[test]
fn codex_install_warns_when_hooks_are_switched_off() {
    let env = Env::new();
    env.write("home/.codex/config.toml", "[features]\nhooks = false\n");
    env.cmd()
        .args(["install", "--host", "codex", "--yes"])
        .assert()
        .success()
        .stderr(predicate::str::contains("turns Codex hooks off"));
    assert_eq!(
        read(&env.home().join(".codex/config.toml")),
        "[features]\nhooks = false\n"
    );
}

#[test]
fn codex_has_no_local_scope() {
    let env = Env::new();
    env.cmd()
        .args(["install", "--host", "codex", "--scope", "local", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "Codex has no local settings scope",
        ));
    env.cmd()
        .args(["install", "--host", "codex", "--scope", "project", "--yes"])
        .assert()
        .success();
    assert!(env.project().join(".codex/hooks.json").is_file());
}

/// The real binary as a child process (assert_cmd cannot spawn and kill).
fn spawn_install(env: &Env, home: &Path) -> Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("agentguard"))
        .env_clear()
        .env("HOME", home)
        .env("TMPDIR", env.tmp())
        .env("PATH", env.path_var())
        .current_dir(env.project())
        .args(["install", "--yes"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn twenty_concurrent_installs_leave_one_valid_file() {
    let env = Env::new();
    let path = env.write(
        "home/.claude/settings.json",
        original("claude_rich_2space.json"),
    );
    let children: Vec<Child> = (0..20).map(|_| spawn_install(&env, &env.home())).collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // Exactly one process changed the file; it holds every foreign entry and one of ours per
    // event, which is what a single install writes.
    assert_eq!(read(&path), expected("claude_rich_2space.expected.json"));
    let settings: Value = serde_json::from_str(&read(&path)).unwrap();
    for event in ["Stop", "SubagentStop", "PreToolUse"] {
        assert_eq!(our_commands(&settings, event).len(), 1, "{event}");
    }
    assert_eq!(backups(&env.home().join(".claude")).len(), 1);
}

/// A settings file big enough that reading, rewriting and writing it takes a while, so kills
/// land in every phase of the write path.
fn large_settings() -> String {
    let mut settings: Value = serde_json::from_str(&original("claude_rich_2space.json")).unwrap();
    let history: Vec<Value> = (0..1500)
        .map(|i| serde_json::json!({"id": i, "command": format!("Bash(make target-{i})"), "ok": i % 3 == 0}))
        .collect();
    settings["someLargeHistory"] = Value::Array(history);
    serde_json::to_string_pretty(&settings).unwrap() + "\n"
}

#[test]
fn killed_installs_leave_the_old_or_the_new_file_never_a_partial_one() {
    let env = Env::new();
    // On tmpfs an fsync costs nothing, so a run is short and steady and 100 kills fit in a few
    // seconds; rename atomicity, which is what a kill tests, is the same on every filesystem.
    let shm = tempfile::Builder::new()
        .prefix("agentguard-kill-")
        .tempdir_in("/dev/shm")
        .ok();
    let home = shm
        .as_ref()
        .map_or_else(|| env.home(), |dir| dir.path().to_path_buf());
    let dir = home.join(".claude");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("settings.json");
    let old = large_settings();
    fs::write(&path, &old).unwrap();

    // One undisturbed run gives the new version and the span to spread the kills over.
    let started = std::time::Instant::now();
    let output = spawn_install(&env, &home).wait_with_output().unwrap();
    let mut span = started.elapsed();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let new = read(&path);
    assert_ne!(new, old);

    // The kills are spread deterministically over 0..1.2 runs: start, parse, backup, write,
    // sync, rename. A loaded machine runs the later installs slower than the measured one, so
    // a sweep that never reached the rename is repeated over a doubled span (one that never
    // missed it, over a halved one): the check is that
    // kills land on both sides of the rename, whatever the machine's speed.
    let trials = 100u32;
    let (mut saw_old, mut saw_new) = (0, 0);
    for _sweep in 0..5 {
        for trial in 0..trials {
            fs::write(&path, &old).unwrap();
            let mut child = spawn_install(&env, &home);
            std::thread::sleep(span.mul_f64(1.2 * f64::from(trial) / f64::from(trials)));
            let _ = child.kill();
            let _ = child.wait();
            let now = fs::read_to_string(&path).unwrap();
            if now == old {
                saw_old += 1;
            } else if now == new {
                saw_new += 1;
            } else {
                panic!(
                    "trial {trial}: the file is neither the old nor the new version ({} bytes)",
                    now.len()
                );
            }
            // A SIGKILL leaves the temp file behind (no code runs to remove it); tidy up so the
            // next trial starts clean.
            for name in names(&dir) {
                if name != "settings.json" {
                    fs::remove_file(dir.join(name)).unwrap();
                }
            }
        }
        match (saw_old, saw_new) {
            (0, _) => span /= 2,
            (_, 0) => span *= 2,
            _ => break,
        }
    }
    assert!(
        saw_old > 0 && saw_new > 0,
        "kills must hit both sides: old {saw_old}, new {saw_new}"
    );
}

/// The pinned Codex CLI loads a config.toml holding our tables: the layout is the one Codex
/// reads, not just one that parses as TOML. Codex checks hook tables when it loads its
/// config, as the broken control shows.
#[test]
fn real_codex_accepts_the_installed_config_toml() {
    let Some(cli_dir) = crate::support::agent_cli_dir("codex") else {
        return;
    };
    let mut env = Env::new();
    env.path_prefix.push(cli_dir);
    let config = env.write("home/.codex/config.toml", original("codex_config.toml"));
    env.cmd()
        .args(["install", "--host", "codex", "--yes"])
        .assert()
        .success();
    assert!(read(&config).contains("hook pre-tool --host codex"));

    let codex = |env: &Env| {
        let mut cmd = std::process::Command::new("codex");
        cmd.env_clear()
            .env("HOME", env.home())
            .env("TMPDIR", env.tmp())
            .env("CODEX_HOME", env.home().join(".codex"))
            .env("PATH", env.path_var())
            .current_dir(env.project())
            .args(["features", "list"]);
        cmd.output().unwrap()
    };
    let accepted = codex(&env);
    assert!(
        accepted.status.success(),
        "{}",
        String::from_utf8_lossy(&accepted.stderr)
    );

    let mut broken = read(&config);
    broken.push_str("\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = 5\n");
    fs::write(&config, broken).unwrap();
    let refused = codex(&env);
    assert!(
        !refused.status.success(),
        "Codex must reject a malformed hook table"
    );
}

/// The issue's case: a compact object with non-ASCII text comes back byte for byte, on a
/// file that ends without a newline and on one that ends with one.
#[test]
fn install_then_uninstall_gives_back_the_same_bytes_on_a_compact_file() {
    for text in [
        "{ \"env\": { \"FOO\": \"bär\" } }",
        "{ \"env\": { \"FOO\": \"bär\" }, \"n\": 1e3 }\n",
    ] {
        let env = Env::new();
        let path = env.write("home/.claude/settings.json", text);
        env.cmd().args(["install", "--yes"]).assert().success();
        let installed = read(&path);
        assert!(
            installed.starts_with("{ \"env\": { \"FOO\": \"bär\" }"),
            "{installed}"
        );
        assert!(!installed.contains('\n') || text.ends_with('\n'));
        env.cmd().args(["uninstall", "--yes"]).assert().success();
        assert_eq!(read(&path), text);
    }
}

#[test]
fn backups_are_pruned_to_the_last_three() {
    let env = Env::new();
    let path = env.write("home/.claude/settings.json", "{\"model\": \"opus\"}\n");
    for _ in 0..4 {
        env.cmd().args(["install", "--yes"]).assert().success();
        env.cmd().args(["uninstall", "--yes"]).assert().success();
    }
    let dir = env.home().join(".claude");
    let kept = backups(&dir);
    assert_eq!(kept.len(), 3, "{kept:?}");
    assert_eq!(read(&path), "{\"model\": \"opus\"}\n");
    // The newest backup is the state right before the last uninstall.
    assert!(read(kept.last().unwrap()).contains("agentguard"));
}

#[test]
fn uninstall_says_what_stays_and_purge_removes_it() {
    let env = Env::new();
    let settings = env.write("home/.claude/settings.json", "{\"model\": \"opus\"}\n");
    env.write_config("[judge]\nbackend = \"rules\"\n");
    env.cmd().args(["install", "--yes"]).assert().success();
    env.write(env.log_dir().join("2026-12-01.jsonl"), "{}\n");
    let state = env.home().join(".local/state/agentguard");
    fs::create_dir_all(&state).unwrap();
    fs::write(state.join("loop-guard-x.json"), "{}").unwrap();

    env.cmd()
        .args(["uninstall", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Kept (agentguard uninstall --purge removes them):",
        ))
        .stdout(predicate::str::contains(format!(
            "config: {}",
            env.home().join(".config/agentguard").display()
        )))
        .stdout(predicate::str::contains(format!(
            "state (loop guard, trust store): {}",
            state.display()
        )))
        .stdout(predicate::str::contains(format!(
            "decision logs: {}",
            env.home().join(".local/share/agentguard").display()
        )))
        .stdout(predicate::str::contains("2 settings backup(s)"));

    // No terminal and no --yes: nothing is removed.
    env.cmd()
        .args(["uninstall", "--purge"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "agentguard uninstall --purge removes:",
        ))
        .stderr(predicate::str::contains("no terminal to confirm on"));
    assert!(env.config_file().exists() && state.exists());

    env.cmd()
        .args(["uninstall", "--purge", "--dry-run"])
        .assert()
        .success()
        .stdout(predicate::str::contains("settings backup:"))
        .stdout(predicate::str::contains("(dry run: nothing removed)"));
    assert!(env.config_file().exists());

    env.cmd()
        .args(["uninstall", "--purge", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Removed"));
    assert!(!env.home().join(".config/agentguard").exists());
    assert!(!state.exists());
    assert!(!env.home().join(".local/share/agentguard").exists());
    assert_eq!(names(&env.home().join(".claude")), ["settings.json"]);
    assert_eq!(read(&settings), "{\"model\": \"opus\"}\n");
    env.cmd()
        .args(["uninstall", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Nothing else of agentguard is left",
        ));
}

#[test]
fn a_settings_path_that_is_a_directory_is_named_as_such() {
    let env = Env::new();
    fs::create_dir_all(env.home().join(".claude/settings.json")).unwrap();
    env.cmd()
        .args(["install", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is a directory, where a file is expected",
        ))
        .stderr(predicate::str::contains("readable").not());
}

/// chattr needs root and a filesystem with attributes; elsewhere the cause is covered by
/// fsutil's unit test of the classification.
#[test]
fn an_immutable_file_is_not_called_read_only() {
    let env = Env::new();
    let path = env.write("home/.claude/settings.json", "{}\n");
    let set = std::process::Command::new("chattr")
        .args(["+i"])
        .arg(&path)
        .output();
    if !set.is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED: chattr +i is not possible here (not root, or no attributes)");
        return;
    }
    let assert = env.cmd().args(["install", "--yes"]).assert();
    std::process::Command::new("chattr")
        .args(["-i"])
        .arg(&path)
        .status()
        .unwrap();
    assert
        .code(2)
        .stderr(predicate::str::contains("immutable or append-only"))
        .stderr(predicate::str::contains("chattr -i"))
        .stderr(predicate::str::contains("chmod").not());
    assert_eq!(read(&path), "{}\n");
}

#[test]
fn codex_uninstall_removes_its_trust_entries_and_the_emptied_hooks_json() {
    let env = Env::new();
    let config = env.write("home/.codex/config.toml", "# mine\nmodel = \"o3\"\n");
    env.cmd()
        .args(["install", "--host", "codex", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "`codex exec` skips an untrusted one",
        ));
    let hooks_path = env.home().join(".codex/hooks.json");
    let hooks: Value = serde_json::from_str(&read(&hooks_path)).unwrap();
    // Trust them as Codex's /hooks screen does: the key and hash of each handler.
    let key = |event: &str| format!("{}:{event}:0:0", hooks_path.display());
    let mut trusted = read(&config);
    for (event, label, matcher) in [
        ("Stop", "stop", None),
        ("SubagentStop", "subagent_stop", None),
        (
            "PreToolUse",
            "pre_tool_use",
            Some(agentguard::hosts::CODEX_PRE_TOOL_MATCHER),
        ),
    ] {
        let handler = &hooks["hooks"][event][0]["hooks"][0];
        let hash = codex_hash(
            label,
            matcher,
            handler["command"].as_str().unwrap(),
            handler["timeout"].as_u64().unwrap(),
        );
        trusted.push_str(&format!(
            "\n[hooks.state.\"{}\"]\ntrusted_hash = \"{hash}\"\n",
            key(label)
        ));
    }
    trusted.push_str(
        "\n[hooks.state.\"/elsewhere/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:other\"\n",
    );
    fs::write(&config, &trusted).unwrap();
    env.cmd()
        .args(["install", "--host", "codex", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Codex trusts these hooks"));

    env.cmd()
        .args(["uninstall", "--host", "codex", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "a Codex hooks.json with no hooks left",
        ))
        .stdout(predicate::str::contains("Removed the Codex trust entries"));
    assert!(!hooks_path.exists());
    let left = read(&config);
    assert!(left.starts_with("# mine\nmodel = \"o3\"\n"), "{left}");
    assert!(!left.contains(&key("stop")), "{left}");
    assert!(left.contains("/elsewhere/hooks.json:stop:0:0"), "{left}");
}

/// Codex 0.171.0's trust hash of a command handler, written out independently of the crate
/// (sorted keys, no spaces, SHA-256): the E2E tests check the crate's against the real Codex.
fn codex_hash(event: &str, matcher: Option<&str>, command: &str, timeout: u64) -> String {
    use sha2::Digest;
    let matcher = matcher
        .map(|m| format!(",\"matcher\":{}", serde_json::Value::from(m)))
        .unwrap_or_default();
    let identity = format!(
        "{{\"event_name\":\"{event}\",\"hooks\":[{{\"async\":false,\"command\":{},\"timeout\":{timeout},\"type\":\"command\"}}]{matcher}}}",
        serde_json::Value::from(command)
    );
    let digest = sha2::Sha256::digest(identity.as_bytes());
    format!(
        "sha256:{}",
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    )
}
