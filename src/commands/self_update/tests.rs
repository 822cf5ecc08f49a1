//! Release selection, the source from the environment, and error explanations.

use super::*;

#[test]
fn source_defaults_to_the_project_repo_on_github() {
    let source = ReleaseSource::new(None, None).unwrap();
    assert_eq!(source.repo(), DEFAULT_REPO);
    assert_eq!(source.api_url, "https://api.github.com");
    assert!(source.is_default_api());
}

#[test]
fn source_takes_overrides_and_trims_the_trailing_slash() {
    let source = ReleaseSource::new(Some("me/fork"), Some("http://127.0.0.1:8080/")).unwrap();
    assert_eq!(
        (source.owner.as_str(), source.name.as_str()),
        ("me", "fork")
    );
    assert_eq!(source.api_url, "http://127.0.0.1:8080");
    assert!(!source.is_default_api());
}

#[test]
fn source_rejects_malformed_overrides_with_a_hint() {
    for repo in ["agentguard", "/x", "a/", "a/b/c"] {
        let err = ReleaseSource::new(Some(repo), None).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Usage, "{repo}");
        assert!(err.message.contains(REPO_ENV), "{}", err.message);
        assert!(err.hint.is_some());
    }
    let err = ReleaseSource::new(None, Some("ftp://mirror")).unwrap_err();
    assert!(err.message.contains(API_URL_ENV), "{}", err.message);
}

fn release(version: &str) -> Release {
    Release::builder().version(version).build().unwrap()
}

fn offered(versions: &[&str], current: &str) -> Option<String> {
    let releases = versions.iter().map(|v| release(v)).collect();
    newest_release(releases, current).map(|r| r.version().to_string())
}

#[test]
fn the_highest_newer_version_is_offered_whatever_the_listing_order() {
    assert_eq!(
        offered(&["0.2.0", "0.10.0", "0.3.1"], "0.1.0").as_deref(),
        Some("0.10.0")
    );
    assert_eq!(offered(&["0.1.0", "0.0.9"], "0.1.0"), None);
    assert_eq!(offered(&[], "0.1.0"), None);
}

#[test]
fn prereleases_are_offered_only_to_prerelease_builds() {
    assert_eq!(
        offered(&["1.0.0-rc.1", "0.2.0"], "0.1.0").as_deref(),
        Some("0.2.0")
    );
    assert_eq!(offered(&["1.0.0-rc.1"], "0.1.0"), None);
    assert_eq!(
        offered(&["1.0.0-rc.2", "1.0.0-rc.1"], "1.0.0-rc.1").as_deref(),
        Some("1.0.0-rc.2")
    );
}

#[test]
fn archive_names_follow_the_release_convention() {
    assert_eq!(
        archive_name("1.2.3", "x86_64-unknown-linux-gnu"),
        "agentguard-1.2.3-x86_64-unknown-linux-gnu.tar.gz"
    );
}

#[test]
fn an_unreachable_server_names_it_and_hints_at_the_network() {
    let source = ReleaseSource::new(None, Some("http://127.0.0.1:9")).unwrap();
    let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
    let err = explain(
        self_update::Error::Transport(Box::new(refused)),
        &source,
        "t",
    );
    assert!(
        err.message.contains("http://127.0.0.1:9"),
        "{}",
        err.message
    );
    assert!(err.message.contains("not changed"), "{}", err.message);
    assert!(err.hint.as_deref().is_some_and(|h| h.contains("network")));
    assert_eq!(err.exit_code(), exit::USAGE);
}
