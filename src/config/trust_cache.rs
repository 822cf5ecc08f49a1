//! What an untrusted project file comes to, cached in agentguard's state dir, so the hook does
//! not parse and restrict the same file on every stop and tool call (SPEC §7: the boundary may
//! cost the hook only a few microseconds).
//!
//! An entry holds the effective configuration (defaults, user file, the project file's safe
//! part) and the keys it left out, for one project file location. It applies only to exactly
//! what it was computed from: the project file's content, the user file's content and this
//! binary (its version and the file it runs from, so a new build or install recomputes it).
//! An entry that is unreadable, corrupt, not the user's own private file or computed from
//! anything else is ignored: the hook then restricts the file again, as without a cache, so the
//! cache can make the hook faster but never looser than the restriction itself.

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::trust::Ignored;

/// The directory of the entries, in agentguard's state dir.
pub const DIR: &str = "trust-cache";

/// An entry larger than this is not one we wrote.
const MAX_ENTRY_BYTES: u64 = 1 << 20;

/// What an entry was computed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Key {
    pub project_sha256: String,
    /// None without a user file.
    pub user_sha256: Option<String>,
    /// [`binary_id`] of the binary that computed it.
    pub binary: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    key: Key,
    config: Config,
    ignored: Vec<Ignored>,
}

/// This binary: its version and the identity of the file it runs from (device, inode, size,
/// modification time), which any rebuild or reinstall changes. None when the running file
/// cannot be told (then nothing is cached).
pub fn binary_id() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(exe).ok()?;
    Some(format!(
        "{}:{}:{}:{}:{}.{}",
        env!("CARGO_PKG_VERSION"),
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec()
    ))
}

/// Where the entry of the project file at (canonical) `project` is kept: one per location, so
/// the cache grows with the projects, not with their edits.
pub fn entry_path(state: &Path, project: &Path) -> PathBuf {
    state.join(DIR).join(format!(
        "{}.json",
        crate::text::short_hash(&project.to_string_lossy())
    ))
}

/// The configuration and left-out keys cached for `project` under `key`, if the entry is the
/// user's own private file and was computed from exactly `key`.
pub fn load(state: &Path, project: &Path, key: &Key) -> Option<(Config, Vec<Ignored>)> {
    let mut file = std::fs::File::open(entry_path(state, project)).ok()?;
    let meta = file.metadata().ok()?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let own = meta.uid() == unsafe { libc::geteuid() };
    if !meta.is_file() || !own || meta.mode() & 0o077 != 0 || meta.len() > MAX_ENTRY_BYTES {
        return None;
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes).ok()?;
    let entry: Entry = serde_json::from_slice(&bytes).ok()?;
    (entry.key == *key).then_some((entry.config, entry.ignored))
}

/// Keeps what `project` under `key` came to (0600, written atomically).
pub fn save(
    state: &Path,
    project: &Path,
    key: &Key,
    config: &Config,
    ignored: &[Ignored],
) -> std::io::Result<()> {
    let entry = Entry {
        key: key.clone(),
        config: config.clone(),
        ignored: ignored.to_vec(),
    };
    let bytes = serde_json::to_vec(&entry).map_err(std::io::Error::other)?;
    crate::fsutil::write_private(&entry_path(state, project), &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn key(project: &str) -> Key {
        Key {
            project_sha256: project.into(),
            user_sha256: Some("user".into()),
            binary: binary_id().unwrap(),
        }
    }

    fn ignored() -> Vec<Ignored> {
        vec![Ignored {
            key: "judge.backend".into(),
            value: "\"command\"".into(),
            why: "runs a program".into(),
        }]
    }

    #[test]
    fn an_entry_applies_only_to_what_it_was_computed_from() {
        let state = tempfile::tempdir().unwrap();
        let project = Path::new("/p/.agentguard.toml");
        let mut config = Config::defaults();
        config.stop.max_blocks_per_turn = 1;
        save(state.path(), project, &key("a"), &config, &ignored()).unwrap();
        let (cached, left_out) = load(state.path(), project, &key("a")).unwrap();
        assert_eq!(cached.stop.max_blocks_per_turn, 1);
        assert_eq!(left_out, ignored());
        let mode = std::fs::metadata(entry_path(state.path(), project))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        // Another content, another user file, another binary, another location: no entry.
        assert!(load(state.path(), project, &key("b")).is_none());
        let other_user = Key {
            user_sha256: None,
            ..key("a")
        };
        assert!(load(state.path(), project, &other_user).is_none());
        let other_binary = Key {
            binary: "0.0.0:1:2:3:4.5".into(),
            ..key("a")
        };
        assert!(load(state.path(), project, &other_binary).is_none());
        assert!(load(state.path(), Path::new("/q/.agentguard.toml"), &key("a")).is_none());
    }

    #[test]
    fn a_corrupt_foreign_or_shared_entry_is_ignored() {
        let state = tempfile::tempdir().unwrap();
        let project = Path::new("/p/.agentguard.toml");
        let path = entry_path(state.path(), project);
        save(state.path(), project, &key("a"), &Config::defaults(), &[]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        // Readable by others: not the private file we write.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(load(state.path(), project, &key("a")).is_none());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(load(state.path(), project, &key("a")).is_some());
        for corrupt in [
            "garbage".to_string(),
            text[..text.len() / 2].to_string(),
            text.replace("\"ignored\"", "\"extra\":1,\"ignored\""),
            text.replace("\"pretool\":{", "\"pretool\":{\"unknown\":true,"),
        ] {
            std::fs::write(&path, corrupt).unwrap();
            assert!(load(state.path(), project, &key("a")).is_none());
        }
    }

    #[test]
    fn the_binary_id_names_this_version() {
        assert!(binary_id().unwrap().starts_with(env!("CARGO_PKG_VERSION")));
    }
}
