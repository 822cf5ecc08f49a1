//! File operations that must never leave a user's file half-written: atomic replacement,
//! an advisory lock to serialize concurrent writers, timestamped backups.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Follows a chain of symlinks to the file it finally names (which may not exist yet), so
/// that edits replace the target and keep the link.
pub fn resolve_symlinks(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if target.is_relative() => parent.join(target),
                    _ => target,
                };
            }
            Ok(_) => return Ok(current),
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(err) => return Err(err),
        }
    }
    Err(io::Error::other(format!(
        "too many levels of symbolic links at {}",
        path.display()
    )))
}

/// The file's text, or None when it does not exist.
pub fn read_optional(path: &Path) -> io::Result<Option<String>> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "the file is not UTF-8 text")),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(err),
    }
}

/// Whether the user means `path` to stay unmodified: no write permission for us, or no write
/// bit at all (which root would otherwise override).
pub fn is_read_only(path: &Path) -> io::Result<bool> {
    let meta = fs::metadata(path)?;
    if meta.permissions().mode() & 0o222 == 0 {
        return Ok(true);
    }
    let c_path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))?;
    // SAFETY: c_path is a valid NUL-terminated string for the duration of the call.
    let writable = unsafe { libc::access(c_path.as_ptr(), libc::W_OK) } == 0;
    Ok(!writable)
}

/// An exclusive advisory lock (flock) on a directory, released on drop.
///
/// The directory itself is locked, not the edited file: a lock on the file would be lost on
/// every rename over it (a waiter would then hold a lock on the replaced inode while the next
/// writer locks the new one), and a separate lock file would litter directories such as a
/// project's committed `.claude/`.
#[derive(Debug)]
pub struct DirLock {
    _dir: File,
}

/// Takes the exclusive lock of `dir`, calling `on_wait` once if another process holds it.
pub fn lock_dir(dir: &Path, on_wait: impl FnOnce()) -> io::Result<DirLock> {
    let handle = File::open(dir)?;
    if !flock(&handle, libc::LOCK_EX | libc::LOCK_NB)? {
        on_wait();
        while !flock(&handle, libc::LOCK_EX)? {}
    }
    Ok(DirLock { _dir: handle })
}

/// One flock call: Ok(false) when it would block (non-blocking) or was interrupted.
fn flock(file: &File, operation: libc::c_int) -> io::Result<bool> {
    // SAFETY: the descriptor is owned by `file` and open for the duration of the call.
    if unsafe { libc::flock(file.as_raw_fd(), operation) } == 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    match err.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(false),
        _ => Err(err),
    }
}

/// Replaces the file `path` names (through symlinks) with `contents`, all or nothing: a temp
/// file in the same directory is written, given the original's permissions and owner, synced,
/// then renamed over the target. On any error the temp file is removed and the target is
/// untouched. A new file gets 0666 minus the umask, like any file the user creates.
pub fn atomic_write(path: &Path, contents: &[u8]) -> io::Result<()> {
    let target = resolve_symlinks(path)?;
    let dir = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let existing = match fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(err) if err.kind() == io::ErrorKind::NotFound => None,
        Err(err) => return Err(err),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".agentguard-tmp")
        .tempfile_in(dir)?;
    temp.write_all(contents)?;
    let mode = match &existing {
        Some(meta) => meta.permissions().mode() & 0o7777,
        None => 0o666 & !current_umask(),
    };
    temp.as_file()
        .set_permissions(fs::Permissions::from_mode(mode))?;
    if let Some(meta) = &existing
        && (meta.uid(), meta.gid())
            != (
                temp.as_file().metadata()?.uid(),
                temp.as_file().metadata()?.gid(),
            )
    {
        std::os::unix::fs::fchown(temp.as_file(), Some(meta.uid()), Some(meta.gid()))?;
    }
    temp.as_file().sync_all()?;
    temp.persist(&target).map_err(|err| err.error)?;
    // The rename is durable only once the directory entry is; not every filesystem lets a
    // directory be synced, and the file itself is already complete either way.
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

// mode_t is u32 on Linux but u16 on macOS, hence the conversion clippy sees as useless here.
#[allow(clippy::useless_conversion)]
fn current_umask() -> u32 {
    // SAFETY: umask only swaps the process mask; it is restored at once. agentguard calls this
    // from its single main thread before writing.
    let mask = unsafe { libc::umask(0o022) };
    unsafe { libc::umask(mask) };
    u32::from(mask)
}

/// Writes `contents` (the file as it was before our change) to
/// `<file>.agentguard-backup-YYYYMMDDTHHMMSS` (local time) next to the file, with the file's
/// permissions; `-2`, `-3`... when that name is taken. Returns the backup's path.
pub fn backup(path: &Path, contents: &[u8]) -> io::Result<PathBuf> {
    let target = resolve_symlinks(path)?;
    let mode = fs::metadata(&target)
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or(0o600);
    let stamp = jiff::ZonedDateTime::now()
        .strftime("%Y%m%dT%H%M%S")
        .to_string();
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for attempt in 1u32.. {
        let suffix = if attempt == 1 {
            String::new()
        } else {
            format!("-{attempt}")
        };
        let candidate = target.with_file_name(format!("{name}.agentguard-backup-{stamp}{suffix}"));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&candidate)
        {
            Ok(mut file) => {
                file.write_all(contents)?;
                file.sync_all()?;
                return Ok(candidate);
            }
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(err) => return Err(err),
        }
    }
    unreachable!("the attempt counter runs until a free name is found")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_keeps_permissions_and_follows_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("real.json", &link).unwrap();

        atomic_write(&link, b"new").unwrap();

        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o640
        );
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".agentguard-tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn dangling_symlink_resolves_to_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("sub/file", &link).unwrap();
        assert_eq!(
            resolve_symlinks(&link).unwrap(),
            dir.path().join("sub/file")
        );
    }

    #[test]
    fn failed_write_leaves_target_and_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("missing-dir/file.json");
        assert!(atomic_write(&target, b"x").is_err());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn backups_never_overwrite_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        fs::write(&file, "current").unwrap();
        let first = backup(&file, b"one").unwrap();
        let second = backup(&file, b"two").unwrap();
        assert_ne!(first, second);
        assert_eq!(fs::read_to_string(&first).unwrap(), "one");
        assert_eq!(fs::read_to_string(&second).unwrap(), "two");
        let name = first.file_name().unwrap().to_string_lossy().into_owned();
        let stamp = name
            .strip_prefix("settings.json.agentguard-backup-")
            .unwrap();
        assert_eq!(stamp.len(), 15, "{stamp}");
        assert_eq!(&stamp[8..9], "T");
    }

    #[test]
    fn read_only_by_mode_bits_even_for_root() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        fs::write(&file, "x").unwrap();
        assert!(!is_read_only(&file).unwrap());
        fs::set_permissions(&file, fs::Permissions::from_mode(0o444)).unwrap();
        assert!(is_read_only(&file).unwrap());
    }

    #[test]
    fn second_lock_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock_dir(dir.path(), || panic!("the first lock must not wait")).unwrap();
        let path = dir.path().to_path_buf();
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let _lock = lock_dir(&path, || tx.send(()).unwrap()).unwrap();
        });
        rx.recv().unwrap();
        drop(first);
        waiter.join().unwrap();
    }
}
