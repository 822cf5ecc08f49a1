//! `agentguard self-update [--check] [--yes]`: replace this binary with the newest GitHub release.
//!
//! A release carries one archive per target, `agentguard-<version>-<target>.tar.gz` holding
//! `agentguard-<version>-<target>/agentguard`, and a `SHA256SUMS` file. The archive is always
//! verified against `SHA256SUMS` (and against GitHub's own per-asset digest when it publishes one)
//! before anything is replaced; a release without a usable entry is refused, never installed
//! unverified. Nothing here touches the network unless this command runs.
//!
//! Releases are tagged `v<version>`; pre-releases are only offered to pre-release builds.
//!
//! Exit codes: 0 updated or already up to date; with `--check`, 0 up to date and 1 a newer release
//! exists; 2 on any error (unreachable, checksum mismatch, no archive for this target).

use std::io::IsTerminal;
use std::time::Duration;

use self_update::backends::github;
use self_update::update::Release;
use self_update::version;

use crate::cli::SelfUpdateArgs;
use crate::error::{Error, ErrorKind, Result, exit};

/// The GitHub repository releases come from, `owner/name`.
pub const DEFAULT_REPO: &str = "agentguard/agentguard";
/// Overrides [`DEFAULT_REPO`] (a fork).
pub const REPO_ENV: &str = "AGENTGUARD_UPDATE_REPO";
/// Overrides the GitHub API base URL (a mirror, GitHub Enterprise, a test server).
pub const API_URL_ENV: &str = "AGENTGUARD_UPDATE_API_URL";
const DEFAULT_API_URL: &str = "https://api.github.com";
/// The checksum file every release must carry.
pub const SUMS_ASSET: &str = "SHA256SUMS";
const BIN_NAME: &str = "agentguard";
const CURRENT_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Where to look for releases, from the defaults and the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ReleaseSource {
    owner: String,
    name: String,
    api_url: String,
}

impl ReleaseSource {
    fn from_env() -> Result<Self> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Self::new(var(REPO_ENV).as_deref(), var(API_URL_ENV).as_deref())
    }

    fn new(repo: Option<&str>, api_url: Option<&str>) -> Result<Self> {
        let repo = repo.unwrap_or(DEFAULT_REPO).trim();
        let (owner, name) = repo
            .split_once('/')
            .filter(|(owner, name)| !owner.is_empty() && !name.is_empty() && !name.contains('/'))
            .ok_or_else(|| {
                Error::usage(format!("${REPO_ENV} is `{repo}`, not `owner/name`")).with_hint(
                    format!("unset it to use {DEFAULT_REPO}, or set e.g. `me/agentguard`"),
                )
            })?;
        let api_url = api_url
            .unwrap_or(DEFAULT_API_URL)
            .trim()
            .trim_end_matches('/');
        if !(api_url.starts_with("https://") || api_url.starts_with("http://")) {
            return Err(
                Error::usage(format!("${API_URL_ENV} is `{api_url}`, not an http(s) URL"))
                    .with_hint(format!("unset it to use {DEFAULT_API_URL}")),
            );
        }
        Ok(ReleaseSource {
            owner: owner.into(),
            name: name.into(),
            api_url: api_url.into(),
        })
    }

    fn repo(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }

    fn is_default_api(&self) -> bool {
        self.api_url == DEFAULT_API_URL
    }
}

/// The archive name for one release on one target.
pub fn archive_name(version: &str, target: &str) -> String {
    format!("{BIN_NAME}-{version}-{target}.tar.gz")
}

pub fn run(args: SelfUpdateArgs) -> Result<u8> {
    let source = ReleaseSource::from_env()?;
    let target = self_update::get_target();
    let explain = |err| explain(err, &source, target);

    let listing = build_updater(&source, target, None)?;
    let newer = listing.get_newer_releases().map_err(explain)?.into_vec();
    let Some(release) = newest_release(newer, CURRENT_VERSION) else {
        println!(
            "agentguard {CURRENT_VERSION} is up to date (newest release of {})",
            source.repo()
        );
        return Ok(exit::OK);
    };
    let version = release.version().to_string();
    if args.check {
        println!(
            "agentguard {version} is available (this is {CURRENT_VERSION}); \
             run `agentguard self-update` to install it"
        );
        return Ok(exit::FOUND);
    }

    let exe = std::env::current_exe()
        .map_err(|err| Error::io(format!("cannot locate the running binary: {err}")))?;
    if !args.yes && !confirm(&version, &exe)? {
        eprintln!("agentguard: nothing changed");
        return Ok(exit::OK);
    }
    eprintln!(
        "agentguard: downloading {} from {}",
        archive_name(&version, target),
        source.repo()
    );
    // Pinned to the tag just chosen (and confirmed), so what is installed is what was offered.
    let updater = build_updater(&source, target, Some(&format!("v{version}")))?;
    updater.update().map_err(explain)?;
    println!(
        "agentguard updated {CURRENT_VERSION} -> {version} at {} (checksum verified)",
        exe.display()
    );
    Ok(exit::OK)
}

/// The release to offer: the highest version above `current`, skipping pre-releases
/// (`1.0.0-rc.1`) unless `current` is one itself.
fn newest_release(releases: Vec<Release>, current: &str) -> Option<Release> {
    let take_prereleases = current.contains('-');
    releases
        .into_iter()
        .filter(|r| take_prereleases || !r.version().contains('-'))
        .filter(|r| version::bump_is_greater(current, r.version()).unwrap_or(false))
        .max_by(|a, b| {
            version::cmp_versions(a.version(), b.version()).unwrap_or(std::cmp::Ordering::Equal)
        })
}

fn build_updater(
    source: &ReleaseSource,
    target: &str,
    tag: Option<&str>,
) -> Result<github::Update> {
    let suffix = format!("-{target}.tar.gz");
    let mut builder = github::Update::configure();
    builder
        .repo_owner(&source.owner)
        .repo_name(&source.name)
        .api_base_url(&source.api_url)
        .bin_name(BIN_NAME)
        .bin_path_in_archive("{{ bin }}-{{ version }}-{{ target }}/{{ bin }}")
        .target(target)
        // Exactly our archive: the default matcher takes any name containing the target, which
        // would also pick a `<archive>.sha256` side file.
        .asset_matcher(move |assets| {
            assets
                .iter()
                .find(|asset| {
                    let name = asset.name();
                    name.starts_with("agentguard-") && name.ends_with(&suffix)
                })
                .cloned()
        })
        .checksum_from_asset(SUMS_ASSET)
        .verify_release_digest(true)
        .current_version(CURRENT_VERSION)
        .timeout(Duration::from_secs(60))
        .show_output(false)
        .show_download_progress(false)
        .no_confirm(true);
    // A GitHub token lifts the rate limit; never send it to a host the user merely pointed us at.
    if source.is_default_api() {
        builder.auth_token_from_env();
    }
    if let Some(tag) = tag {
        builder.release_tag(tag);
    }
    builder.build().map_err(|err| explain(err, source, target))
}

/// Asks on a terminal; refuses to guess without one.
fn confirm(version: &str, exe: &std::path::Path) -> Result<bool> {
    if !std::io::stdin().is_terminal() {
        return Err(Error::usage(format!(
            "agentguard {version} is available, but stdin is not a terminal to confirm replacing {}",
            exe.display()
        ))
        .with_hint("pass --yes to update without asking"));
    }
    dialoguer::Confirm::new()
        .with_prompt(format!(
            "Replace {} ({CURRENT_VERSION}) with agentguard {version}?",
            exe.display()
        ))
        .default(true)
        .interact()
        .map_err(|err| Error::io(format!("cannot read the answer: {err}")))
}

/// Turns a self_update failure into a message that says what happened and what to do; in every
/// case the installed binary is untouched (self_update replaces it last, atomically).
fn explain(err: self_update::Error, source: &ReleaseSource, target: &str) -> Error {
    use self_update::Error as E;
    let unchanged = "the installed binary was not changed";
    let repo = source.repo();
    match err {
        E::Transport(inner) => Error::io(format!(
            "cannot reach the release server {}: {inner}; {unchanged}",
            source.api_url
        ))
        .with_hint(format!(
            "check the network connection and proxy (HTTPS_PROXY), or point ${API_URL_ENV} at a \
             mirror; `agentguard self-update` is the only command that goes online"
        )),
        E::ChecksumMismatch { expected, computed, .. } => Error::io(format!(
            "checksum mismatch for the downloaded archive: {SUMS_ASSET} says {expected}, the \
             download is {computed}; refusing to install it, {unchanged}"
        ))
        .with_hint("the download was corrupted or altered; try again later, and report it if it persists"),
        E::ChecksumSourceInvalid { asset, reason, .. } => Error::io(format!(
            "cannot verify `{asset}`: {reason}; refusing to install an unverified binary, {unchanged}"
        ))
        .with_hint(format!("every release of {repo} must publish {SUMS_ASSET} listing its archives")),
        E::NoReleaseFound { target: Some(_), .. } => Error::io(format!(
            "the newest release of {repo} has no archive for this platform ({}); {unchanged}",
            archive_name("<version>", target)
        ))
        .with_hint("build from source with ./install.sh from a checkout"),
        E::NoReleaseFound { target: None, .. } | E::NotFound { .. } => {
            Error::io(format!("no releases found for {repo} at {}", source.api_url)).with_hint(
                format!("check ${REPO_ENV} (default {DEFAULT_REPO}) and ${API_URL_ENV}"),
            )
        }
        E::RateLimited { .. } => Error::io(format!("GitHub's rate limit was reached; {unchanged}"))
            .with_hint("try again later, or set GH_TOKEN / GITHUB_TOKEN"),
        E::InstallPathNotWritable { path, .. } => {
            Error::io(format!("cannot replace {}: not writable; {unchanged}", path.display()))
                .with_hint("re-run as the user who owns it, or reinstall with ./install.sh")
        }
        other => Error::new(ErrorKind::Io, format!("self-update failed: {other}; {unchanged}")),
    }
}

#[cfg(test)]
mod tests {
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
}
