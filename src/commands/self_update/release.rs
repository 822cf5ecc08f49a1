//! Where releases come from, which one is newest, and what a failed update means.

use super::*;

/// Where to look for releases, from the defaults and the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ReleaseSource {
    pub(super) owner: String,
    pub(super) name: String,
    pub(super) api_url: String,
}

impl ReleaseSource {
    pub(super) fn from_env() -> Result<Self> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Self::new(var(REPO_ENV).as_deref(), var(API_URL_ENV).as_deref())
    }

    pub(super) fn new(repo: Option<&str>, api_url: Option<&str>) -> Result<Self> {
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

    pub(super) fn repo(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }

    pub(super) fn is_default_api(&self) -> bool {
        self.api_url == DEFAULT_API_URL
    }
}

/// The archive name for one release on one target.
pub fn archive_name(version: &str, target: &str) -> String {
    format!("{BIN_NAME}-{version}-{target}.tar.gz")
}

/// The release to offer: the highest version above `current`, skipping pre-releases
/// (`1.0.0-rc.1`) unless `current` is one itself.
pub(super) fn newest_release(releases: Vec<Release>, current: &str) -> Option<Release> {
    let take_prereleases = current.contains('-');
    releases
        .into_iter()
        .filter(|r| take_prereleases || !r.version().contains('-'))
        .filter(|r| version::bump_is_greater(current, r.version()).unwrap_or(false))
        .max_by(|a, b| {
            version::cmp_versions(a.version(), b.version()).unwrap_or(std::cmp::Ordering::Equal)
        })
}

/// Turns a self_update failure into a message that says what happened and what to do; in every
/// case the installed binary is untouched (self_update replaces it last, atomically).
pub(super) fn explain(err: self_update::Error, source: &ReleaseSource, target: &str) -> Error {
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
