//! `install.sh`, run from this checkout in a temporary HOME: with a pre-built binary (no second
//! cargo build), and in release mode against a loopback server with `SHA256SUMS`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::release_fixture::{self, ReleaseServer};
use crate::support::{Env, text};

const RELEASE: &str = "99.0.0";

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("install.sh")
}

fn install_dir(env: &Env) -> PathBuf {
    env.dir.path().join("local-bin")
}

/// `sh install.sh ARGS` with the isolated environment of `Env::cmd`, installing into
/// `install_dir(env)`.
fn run_install_sh(env: &Env, args: &[&str]) -> Output {
    run_install_sh_with_path(env, args, &env.path_var())
}

fn run_install_sh_with_path(env: &Env, args: &[&str], path: &str) -> Output {
    env.isolated("/bin/sh", &[])
        .arg(script())
        .args(args)
        .env("PATH", path)
        .env("AGENTGUARD_INSTALL_DIR", install_dir(env))
        .output()
        .unwrap()
}

fn built_binary() -> String {
    assert_cmd::cargo::cargo_bin("agentguard")
        .display()
        .to_string()
}

/// Every hook command registered for `event` in a Claude Code settings document.
fn hook_commands(settings: &serde_json::Value, event: &str) -> Vec<String> {
    settings["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|group| group["hooks"].as_array().cloned().unwrap_or_default())
        .filter_map(|hook| hook["command"].as_str().map(str::to_string))
        .collect()
}

// Depends on `agentguard install` (built separately): until it lands, the hook step fails.
#[test]
fn from_a_checkout_installs_binary_and_hooks_and_a_second_run_changes_nothing() {
    let mut env = Env::new();
    env.set("AGENTGUARD_PREBUILT", built_binary());

    let first = run_install_sh(&env, &[]);
    assert_eq!(
        first.status.code(),
        Some(0),
        "stderr: {}",
        text(&first.stderr)
    );
    let dest = install_dir(&env).join("agentguard");
    let stdout = text(&first.stdout);
    assert!(stdout.contains(&format!(
        "Installed agentguard {}",
        env!("CARGO_PKG_VERSION")
    )));
    assert!(stdout.contains(&format!(
        "To undo: {0} uninstall --yes && rm {0}",
        dest.display()
    )));
    assert!(
        text(&first.stderr).contains("is not on your PATH"),
        "{}",
        text(&first.stderr)
    );

    // A working agentguard on that PATH.
    let on_path = Command::new("/bin/sh")
        .args(["-c", "agentguard --version"])
        .env_clear()
        .env(
            "PATH",
            format!("{}:{}", install_dir(&env).display(), env.path_var()),
        )
        .output()
        .unwrap();
    assert!(on_path.status.success(), "{}", text(&on_path.stderr));
    assert_eq!(
        text(&on_path.stdout).trim(),
        format!("agentguard {}", env!("CARGO_PKG_VERSION"))
    );

    // Hooks in the user settings point at the installed binary.
    let settings_path = env.home().join(".claude/settings.json");
    let settings_bytes = std::fs::read(&settings_path).expect("~/.claude/settings.json written");
    let settings: serde_json::Value = serde_json::from_slice(&settings_bytes).unwrap();
    for event in ["Stop", "PreToolUse"] {
        let commands = hook_commands(&settings, event);
        assert!(
            commands
                .iter()
                .any(|c| c.contains(&dest.display().to_string())),
            "no {event} hook runs {}: {commands:?}",
            dest.display()
        );
    }

    let binary_bytes = std::fs::read(&dest).unwrap();
    let second = run_install_sh(&env, &[]);
    assert_eq!(
        second.status.code(),
        Some(0),
        "stderr: {}",
        text(&second.stderr)
    );
    let stdout = text(&second.stdout);
    assert!(stdout.contains("already up to date"), "{stdout}");
    assert!(stdout.contains("Nothing changed"), "{stdout}");
    assert_eq!(
        std::fs::read(&settings_path).unwrap(),
        settings_bytes,
        "settings changed"
    );
    assert_eq!(
        std::fs::read(&dest).unwrap(),
        binary_bytes,
        "binary changed"
    );
}

const HOST: &str = "x86_64-unknown-linux-gnu";

/// Stand-ins for the build: `rustc -vV` names the host; `cargo` records its arguments and
/// RUSTFLAGS and "builds" by copying the real binary; `cc -print-file-name=libc.a` answers
/// `libc_a` (a bare name is cc's answer when the library is not installed).
fn stand_in_toolchain(env: &mut Env, libc_a: &str) {
    let target_dir = env.dir.path().join("cargo-target");
    env.set("CARGO_TARGET_DIR", target_dir.display().to_string());
    env.script(
        "rustc",
        &format!("#!/bin/sh\necho 'rustc 1.95.0'\necho 'host: {HOST}'\n"),
    );
    env.script("cc", &format!("#!/bin/sh\necho '{libc_a}'\n"));
    env.script(
        "cargo",
        &format!(
            "#!/bin/sh\necho \"$PWD $* RUSTFLAGS=$RUSTFLAGS\" > \"$HOME/cargo-calls\"\n\
             mkdir -p \"$CARGO_TARGET_DIR/{HOST}/release\"\n\
             cp '{}' \"$CARGO_TARGET_DIR/{HOST}/release/agentguard\"\n",
            built_binary()
        ),
    );
}

fn assert_installed_build(env: &Env, output: &Output, rustflags: &str) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        text(&output.stderr)
    );
    let calls = std::fs::read_to_string(env.home().join("cargo-calls")).unwrap();
    assert_eq!(
        calls.trim(),
        format!(
            "{} build --release --locked --target {HOST} RUSTFLAGS={rustflags}",
            env!("CARGO_MANIFEST_DIR")
        )
        .trim()
    );
    let dest = install_dir(env).join("agentguard");
    assert_eq!(
        std::fs::read(dest).unwrap(),
        std::fs::read(built_binary()).unwrap()
    );
}

#[test]
fn without_a_prebuilt_binary_it_builds_a_static_binary_with_cargo_release_locked() {
    let mut env = Env::new();
    let libc_a = env.dir.path().join("libc.a");
    std::fs::write(&libc_a, "").unwrap();
    stand_in_toolchain(&mut env, &libc_a.display().to_string());
    let output = run_install_sh(&env, &["--no-hooks"]);
    assert_installed_build(
        &env,
        &output,
        " -C target-feature=+crt-static -C relocation-model=static",
    );
    assert!(
        text(&output.stderr).contains(&format!("Building agentguard for {HOST} (static)")),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn agentguard_pie_builds_a_static_pie_instead() {
    let mut env = Env::new();
    let libc_a = env.dir.path().join("libc.a");
    std::fs::write(&libc_a, "").unwrap();
    stand_in_toolchain(&mut env, &libc_a.display().to_string());
    let output = env
        .isolated("/bin/sh", &[])
        .arg(script())
        .arg("--no-hooks")
        .env("PATH", env.path_var())
        .env("AGENTGUARD_INSTALL_DIR", install_dir(&env))
        .env("AGENTGUARD_PIE", "1")
        .output()
        .unwrap();
    assert_installed_build(&env, &output, " -C target-feature=+crt-static");
    assert!(
        text(&output.stderr).contains("(static PIE)"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn without_static_glibc_it_builds_dynamically_and_says_how_to_get_the_fast_build() {
    let mut env = Env::new();
    stand_in_toolchain(&mut env, "libc.a");
    let output = run_install_sh(&env, &["--no-hooks"]);
    assert_installed_build(&env, &output, "");
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("libc.a") && stderr.contains("glibc-static"),
        "{stderr}"
    );
}

#[test]
fn without_cargo_it_says_how_to_get_it() {
    let env = Env::new();
    let path = only_tools(&env, &["grep", "mktemp", "rm"]);
    let output = run_install_sh_with_path(&env, &["--no-hooks"], &path);
    assert_eq!(
        output.status.code(),
        Some(2),
        "stdout: {}",
        text(&output.stdout)
    );
    assert!(
        text(&output.stderr).contains("https://rustup.rs"),
        "{}",
        text(&output.stderr)
    );
}

/// A PATH holding only links to the named system tools.
fn only_tools(env: &Env, names: &[&str]) -> String {
    let tools = env.dir.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    for tool in names {
        let found = ["/usr/bin", "/bin"]
            .iter()
            .map(|d| Path::new(d).join(tool))
            .find(|p| p.exists());
        let found = found.unwrap_or_else(|| panic!("the test needs `{tool}` in /usr/bin or /bin"));
        std::os::unix::fs::symlink(found, tools.join(tool)).unwrap();
    }
    tools.display().to_string()
}

#[test]
fn no_hooks_installs_only_the_binary_and_says_how_to_undo() {
    let env = Env::new();
    let output = run_install_sh(&env, &["--no-hooks", "--binary", &built_binary()]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        text(&output.stderr)
    );
    let dest = install_dir(&env).join("agentguard");
    assert_eq!(
        std::fs::read(&dest).unwrap(),
        std::fs::read(built_binary()).unwrap()
    );
    assert!(text(&output.stdout).contains(&format!("To undo: rm {}", dest.display())));
    assert!(
        !env.home().join(".claude").exists(),
        "--no-hooks touched ~/.claude"
    );

    let again = run_install_sh(&env, &["--no-hooks", "--binary", &built_binary()]);
    assert_eq!(again.status.code(), Some(0));
    assert!(
        text(&again.stdout).contains("Nothing changed"),
        "{}",
        text(&again.stdout)
    );
}

#[test]
fn no_path_warning_when_the_install_dir_is_on_path() {
    let env = Env::new();
    let path = format!("{}:{}", install_dir(&env).display(), env.path_var());
    let output =
        run_install_sh_with_path(&env, &["--no-hooks", "--binary", &built_binary()], &path);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        text(&output.stderr)
    );
    assert!(
        !text(&output.stderr).contains("not on your PATH"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn help_documents_the_modes_and_unknown_arguments_are_usage_errors() {
    let env = Env::new();
    let help = run_install_sh(&env, &["--help"]);
    assert_eq!(help.status.code(), Some(0));
    let help = text(&help.stdout);
    for needle in [
        "--binary",
        "AGENTGUARD_PREBUILT",
        "--version",
        "--no-hooks",
        "SHA256SUMS",
    ] {
        assert!(help.contains(needle), "--help lacks {needle}");
    }
    let bad = run_install_sh(&env, &["--frobnicate"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("unknown argument: --frobnicate"));
}

/// A release `RELEASE` on a loopback server: the archive for this machine and a SHA256SUMS.
fn serve_release(env: &mut Env, sums_for: impl FnOnce(&release_fixture::Archive) -> String) {
    let server = ReleaseServer::start();
    let archive = release_fixture::archive(
        RELEASE,
        release_fixture::host_target(),
        &release_fixture::fake_binary(RELEASE),
    );
    server.serve(
        &format!("/v{RELEASE}/{}", archive.name),
        archive.bytes.clone(),
    );
    server.serve(&format!("/v{RELEASE}/SHA256SUMS"), sums_for(&archive));
    env.set("AGENTGUARD_RELEASE_BASE_URL", &server.base_url);
}

fn correct_sums(archive: &release_fixture::Archive) -> String {
    let other = release_fixture::sums(&[("agentguard-99.0.0-other-target.tar.gz", b"other")]);
    other + &release_fixture::sums(&[(&archive.name, &archive.bytes)])
}

#[test]
fn release_mode_installs_the_verified_archive_and_runs_install() {
    let mut env = Env::new();
    serve_release(&mut env, correct_sums);
    let path = format!("{}:{}", install_dir(&env).display(), env.path_var());

    let output = run_install_sh_with_path(&env, &["--version", RELEASE], &path);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        text(&output.stderr)
    );
    let stdout = text(&output.stdout);
    assert!(stdout.contains("Checksum verified"), "{stdout}");
    let dest = install_dir(&env).join("agentguard");
    let undo = format!(
        "To undo: agentguard uninstall --yes && rm {}",
        dest.display()
    );
    assert!(stdout.contains(&undo), "{stdout}");
    let installed = Command::new(&dest).arg("--version").output().unwrap();
    assert_eq!(
        text(&installed.stdout).trim(),
        format!("agentguard {RELEASE}")
    );
    let calls = std::fs::read_to_string(env.home().join("fake-agentguard-calls")).unwrap();
    assert_eq!(calls.trim(), "install --yes");

    let again = run_install_sh(&env, &["--version", &format!("v{RELEASE}")]);
    assert_eq!(
        again.status.code(),
        Some(0),
        "stderr: {}",
        text(&again.stderr)
    );
    assert!(
        text(&again.stdout).contains("Nothing changed"),
        "{}",
        text(&again.stdout)
    );
}

#[test]
fn release_mode_refuses_a_checksum_mismatch() {
    let mut env = Env::new();
    serve_release(&mut env, |archive| {
        format!("{}  {}\n", "ab".repeat(32), archive.name)
    });

    let output = run_install_sh(&env, &["--version", RELEASE]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("checksum mismatch"), "{stderr}");
    assert!(
        !install_dir(&env).join("agentguard").exists(),
        "installed despite the mismatch"
    );
    assert!(!env.home().join("fake-agentguard-calls").exists());
}

#[test]
fn release_mode_refuses_an_archive_missing_from_sha256sums() {
    let mut env = Env::new();
    serve_release(&mut env, |_| {
        release_fixture::sums(&[("unrelated.tar.gz", b"x")])
    });

    let output = run_install_sh(&env, &["--version", RELEASE]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("has no entry for"),
        "{}",
        text(&output.stderr)
    );
    assert!(!install_dir(&env).join("agentguard").exists());
}

#[test]
fn release_mode_fails_without_a_sha256_tool_instead_of_skipping_the_check() {
    let mut env = Env::new();
    serve_release(&mut env, correct_sums);
    // A PATH with everything the script needs except sha256sum and shasum.
    let path = only_tools(
        &env,
        &[
            "uname", "mktemp", "rm", "curl", "mkdir", "tr", "tar", "gzip", "cmp", "cp", "chmod",
            "mv",
        ],
    );

    let output = run_install_sh_with_path(&env, &["--version", RELEASE], &path);
    assert_eq!(
        output.status.code(),
        Some(2),
        "stdout: {}",
        text(&output.stdout)
    );
    let stderr = text(&output.stderr);
    assert!(stderr.contains("neither sha256sum nor shasum"), "{stderr}");
    assert!(!install_dir(&env).join("agentguard").exists());
}

#[test]
fn release_mode_refuses_plain_http_off_loopback() {
    let mut env = Env::new();
    env.set("AGENTGUARD_RELEASE_BASE_URL", "http://example.com/releases");
    let output = run_install_sh(&env, &["--version", RELEASE]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("insecure URL"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn a_packaged_release_round_trips_through_install_sh() {
    let mut env = Env::new();
    let out = env.dir.path().join("dist");
    // A small stand-in keeps the archive small; the script reads the version from it.
    let binary = env.script("agentguard-build", &release_fixture::fake_binary(RELEASE));
    let package = Command::new("/bin/sh")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/package-release.sh"))
        .arg("--binary")
        .arg(&binary)
        .args(["--target", release_fixture::host_target()])
        .arg("--out")
        .arg(&out)
        .env_clear()
        .env("PATH", env.path_var())
        .output()
        .unwrap();
    assert!(package.status.success(), "{}", text(&package.stderr));

    let version = RELEASE;
    let archive = format!(
        "agentguard-{version}-{}.tar.gz",
        release_fixture::host_target()
    );
    let server = ReleaseServer::start();
    for file in [archive.as_str(), "SHA256SUMS"] {
        server.serve(
            &format!("/v{version}/{file}"),
            std::fs::read(out.join(file)).unwrap(),
        );
    }
    env.set("AGENTGUARD_RELEASE_BASE_URL", &server.base_url);

    let output = run_install_sh(&env, &["--version", version, "--no-hooks"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        text(&output.stderr)
    );
    let dest = install_dir(&env).join("agentguard");
    assert_eq!(
        std::fs::read(dest).unwrap(),
        std::fs::read(&binary).unwrap()
    );
}

#[test]
fn release_mode_works_with_wget_when_curl_is_missing() {
    let mut env = Env::new();
    serve_release(&mut env, correct_sums);
    let path = only_tools(
        &env,
        &[
            "uname",
            "mktemp",
            "rm",
            "wget",
            "mkdir",
            "tr",
            "tar",
            "gzip",
            "cmp",
            "cp",
            "chmod",
            "mv",
            "sha256sum",
        ],
    );

    let output = run_install_sh_with_path(&env, &["--version", RELEASE, "--no-hooks"], &path);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        text(&output.stderr)
    );
    let installed = Command::new(install_dir(&env).join("agentguard"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        text(&installed.stdout).trim(),
        format!("agentguard {RELEASE}")
    );
}
