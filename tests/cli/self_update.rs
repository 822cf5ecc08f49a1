//! `agentguard self-update` against a fake GitHub release API on loopback: a copy of the built
//! binary is updated in place, and every failure leaves it byte-identical.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::release_fixture::{self, Archive, ReleaseServer};
use crate::support::{Env, text};

const NEW_VERSION: &str = "99.0.0";
const REPO: &str = "acme/agentguard";

struct Setup {
    env: Env,
    server: ReleaseServer,
    exe: PathBuf,
    original: Vec<u8>,
}

impl Setup {
    fn new() -> Self {
        let mut env = Env::new();
        let server = ReleaseServer::start();
        env.set("AGENTGUARD_UPDATE_API_URL", &server.base_url);
        env.set("AGENTGUARD_UPDATE_REPO", REPO);
        let exe = release_fixture::copy_of_agentguard(&env.dir.path().join("installed"));
        let original = std::fs::read(&exe).unwrap();
        Setup {
            env,
            server,
            exe,
            original,
        }
    }

    /// Publishes one release with `archive` and a `SHA256SUMS` with the given contents.
    fn publish(&self, archive: &Archive, sums: Option<&str>) {
        let base = &self.server.base_url;
        let mut assets = vec![serde_json::json!({
            "name": archive.name,
            "url": format!("{base}/download/{}", archive.name),
            "browser_download_url": format!("{base}/download/{}", archive.name),
        })];
        if let Some(sums) = sums {
            assets.push(serde_json::json!({
                "name": "SHA256SUMS",
                "url": format!("{base}/download/SHA256SUMS"),
                "browser_download_url": format!("{base}/download/SHA256SUMS"),
            }));
            self.server.serve("/download/SHA256SUMS", sums);
        }
        let release = serde_json::json!({
            "tag_name": format!("v{NEW_VERSION}"),
            "created_at": "2026-11-29T12:00:00Z",
            "name": format!("agentguard {NEW_VERSION}"),
            "body": "notes",
            "html_url": format!("{base}/release"),
            "assets": assets,
        });
        let listing = serde_json::json!([release]).to_string();
        self.server
            .serve(&format!("/repos/{REPO}/releases"), listing);
        let tag = format!("/repos/{REPO}/releases/tags/v{NEW_VERSION}");
        self.server.serve(&tag, release.to_string());
        self.server.serve(
            &format!("/download/{}", archive.name),
            archive.bytes.clone(),
        );
    }

    fn run(&self, args: &[&str]) -> Output {
        run_binary(&self.env, &self.exe, args)
    }

    fn assert_untouched(&self) {
        assert!(
            std::fs::read(&self.exe).unwrap() == self.original,
            "the installed binary changed although the update failed"
        );
    }
}

/// The copied binary with the same isolated environment `Env::cmd` gives the built one.
fn run_binary(env: &Env, exe: &Path, args: &[&str]) -> Output {
    env.isolated(exe, args).output().unwrap()
}

fn good_archive() -> Archive {
    release_fixture::archive(
        NEW_VERSION,
        release_fixture::host_target(),
        &release_fixture::fake_binary(NEW_VERSION),
    )
}

#[test]
fn update_replaces_the_binary_with_the_verified_release() {
    let setup = Setup::new();
    let archive = good_archive();
    setup.publish(
        &archive,
        Some(&release_fixture::sums(&[(&archive.name, &archive.bytes)])),
    );

    let output = setup.run(&["self-update", "--yes"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        text(&output.stderr)
    );
    let stdout = text(&output.stdout);
    assert!(stdout.contains(&format!("-> {NEW_VERSION}")), "{stdout}");
    assert!(stdout.contains("checksum verified"), "{stdout}");

    let replaced = run_binary(&setup.env, &setup.exe, &["--version"]);
    assert_eq!(
        text(&replaced.stdout).trim(),
        format!("agentguard {NEW_VERSION}")
    );
    let requests = setup.server.requests();
    assert!(
        requests.contains(&"/download/SHA256SUMS".to_string()),
        "{requests:?}"
    );
    // The install is pinned to the release that was offered.
    let pinned = format!("/repos/{REPO}/releases/tags/v{NEW_VERSION}");
    assert!(requests.contains(&pinned), "{requests:?}");
}

#[test]
fn a_checksum_mismatch_is_refused_and_the_binary_stays_byte_identical() {
    let setup = Setup::new();
    let archive = good_archive();
    let wrong = format!("{}  {}\n", "0".repeat(64), archive.name);
    setup.publish(&archive, Some(&wrong));

    let output = setup.run(&["self-update", "--yes"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("checksum mismatch"), "{stderr}");
    assert!(stderr.contains("not changed"), "{stderr}");
    setup.assert_untouched();
}

#[test]
fn a_release_without_sha256sums_is_refused() {
    let setup = Setup::new();
    setup.publish(&good_archive(), None);

    let output = setup.run(&["self-update", "--yes"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("refusing to install an unverified binary"),
        "{stderr}"
    );
    setup.assert_untouched();
}

#[test]
fn check_reports_a_newer_release_with_exit_1_and_downloads_nothing() {
    let setup = Setup::new();
    let archive = good_archive();
    setup.publish(
        &archive,
        Some(&release_fixture::sums(&[(&archive.name, &archive.bytes)])),
    );

    let output = setup.run(&["self-update", "--check"]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "stderr: {}",
        text(&output.stderr)
    );
    assert!(text(&output.stdout).contains(&format!("agentguard {NEW_VERSION} is available")));
    let requests = setup.server.requests();
    assert!(
        requests.iter().all(|path| !path.starts_with("/download/")),
        "{requests:?}"
    );
    setup.assert_untouched();
}

#[test]
fn check_says_up_to_date_with_exit_0_when_nothing_is_newer() {
    let setup = Setup::new();
    setup.server.serve(&format!("/repos/{REPO}/releases"), "[]");

    let output = setup.run(&["self-update", "--check"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        text(&output.stderr)
    );
    assert!(text(&output.stdout).contains("is up to date"));
}

#[test]
fn without_yes_and_without_a_terminal_nothing_is_replaced() {
    let setup = Setup::new();
    let archive = good_archive();
    setup.publish(
        &archive,
        Some(&release_fixture::sums(&[(&archive.name, &archive.bytes)])),
    );

    let output = setup.run(&["self-update"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("--yes"),
        "{}",
        text(&output.stderr)
    );
    setup.assert_untouched();
}

#[test]
fn an_unreachable_server_exits_2_with_a_network_hint() {
    let mut setup = Setup::new();
    // A port that was just free: nothing listens there.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    setup
        .env
        .set("AGENTGUARD_UPDATE_API_URL", format!("http://{closed}"));

    let output = setup.run(&["self-update", "--check"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("cannot reach the release server"),
        "{stderr}"
    );
    assert!(
        stderr.contains("hint:") && stderr.contains("network"),
        "{stderr}"
    );
    setup.assert_untouched();
}

#[test]
fn a_prerelease_is_not_offered_to_a_stable_build() {
    let setup = Setup::new();
    let listing = serde_json::json!([{
        "tag_name": "v100.0.0-rc.1",
        "created_at": "2026-11-29T12:00:00Z",
        "name": "agentguard 100.0.0-rc.1",
        "assets": [],
    }]);
    setup
        .server
        .serve(&format!("/repos/{REPO}/releases"), listing.to_string());

    let output = setup.run(&["self-update", "--check"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        text(&output.stderr)
    );
    assert!(
        text(&output.stdout).contains("is up to date"),
        "{}",
        text(&output.stdout)
    );
}
