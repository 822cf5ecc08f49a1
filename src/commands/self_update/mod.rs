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

mod release;
#[cfg(test)]
mod tests;

pub use release::archive_name;
use release::{ReleaseSource, explain, newest_release};

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
