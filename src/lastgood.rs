//! The last copy of each config file that loaded, kept in agentguard's state dir (0600): when
//! the file stops loading, the hook falls back to that copy instead of to nothing, so a typo
//! never switches a protection off (SPEC §7).
//!
//! A copy is named `<hash of the file's path>-<hash of its content>.toml`, so checking that the
//! copy of a file that loads is current costs one `stat`, not a read.

use std::io;
use std::path::{Path, PathBuf};

use crate::text::short_hash;

/// The directory of the copies, in agentguard's state dir.
pub fn dir(state: &Path) -> PathBuf {
    state.join("last-good")
}

fn prefix(path: &Path) -> String {
    format!("{}-", short_hash(&path.to_string_lossy()))
}

/// Where the copy of `text` as the content of `path` is kept.
pub fn copy_path(state: &Path, path: &Path, text: &str) -> PathBuf {
    dir(state).join(format!("{}{}.toml", prefix(path), short_hash(text)))
}

/// Keeps `text` as the last good copy of `path` (nothing to do when it already is), and removes
/// the older copies of that file.
pub fn save(state: &Path, path: &Path, text: &str) -> io::Result<()> {
    let target = copy_path(state, path, text);
    if target.exists() {
        return Ok(());
    }
    crate::fsutil::write_private(&target, text.as_bytes())?;
    let prefix = prefix(path);
    for entry in std::fs::read_dir(dir(state))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(&prefix) && entry.path() != target {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

/// The last good copy of `path`: where it is kept and its text.
pub fn find(state: &Path, path: &Path) -> Option<(PathBuf, String)> {
    let prefix = prefix(path);
    let entries = std::fs::read_dir(dir(state)).ok()?;
    let copy = entries
        .flatten()
        .filter(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.starts_with(&prefix) && name.ends_with(".toml")
        })
        .max_by_key(|entry| entry.metadata().and_then(|m| m.modified()).ok())?
        .path();
    let text = std::fs::read_to_string(&copy).ok()?;
    Some((copy, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn one_private_copy_per_file_the_latest() {
        let state = tempfile::tempdir().unwrap();
        let file = Path::new("/home/u/.config/agentguard/config.toml");
        assert!(find(state.path(), file).is_none());
        save(state.path(), file, "a = 1\n").unwrap();
        save(state.path(), file, "a = 2\n").unwrap();
        save(state.path(), Path::new("/other.toml"), "b = 1\n").unwrap();
        let (copy, text) = find(state.path(), file).unwrap();
        assert_eq!(text, "a = 2\n");
        assert_eq!(copy, copy_path(state.path(), file, "a = 2\n"));
        let mode = std::fs::metadata(&copy).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(std::fs::read_dir(dir(state.path())).unwrap().count(), 2);
    }
}
