//! File operations that must never leave a user's file half-written: atomic replacement,
//! an advisory lock to serialize concurrent writers, timestamped backups.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
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

/// Why a file or directory cannot be written, named by its real cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteBlock {
    /// No write bit at all: the user made it read-only (`chmod u+w` undoes that).
    ReadOnlyMode,
    /// Write bits set, yet the kernel refuses with EPERM: an attribute such as immutable
    /// (`chattr +i`) or append-only, which no chmod changes.
    Immutable,
    /// Not writable for this user (another owner, EACCES).
    NoPermission,
}

impl WriteBlock {
    /// What to tell the user, and how to fix it, for `path`.
    pub fn describe(self, path: &Path) -> (String, String) {
        let shown = path.display();
        match self {
            WriteBlock::ReadOnlyMode => (
                format!("{shown} is read-only"),
                format!(
                    "agentguard does not replace a file you made read-only; make it writable \
                     (chmod u+w {shown}) and run again"
                ),
            ),
            WriteBlock::Immutable => (
                format!(
                    "{shown} is immutable or append-only (a file attribute: lsattr {shown} shows \
                     it), so no one can change it, root included"
                ),
                format!(
                    "if you set that on purpose, leave it; else clear it (sudo chattr -i -a \
                     {shown}) and run again"
                ),
            ),
            WriteBlock::NoPermission => (
                format!("{shown} is not writable for this user"),
                format!(
                    "it belongs to someone else or its permissions exclude you (ls -l {shown}); \
                     run as its owner, or fix its owner/permissions"
                ),
            ),
        }
    }
}

/// Why `path` cannot be written, if it cannot: the mode bits, then the kernel's own answer.
pub fn write_block(path: &Path) -> io::Result<Option<WriteBlock>> {
    let meta = fs::metadata(path)?;
    let c_path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))?;
    // SAFETY: c_path is a valid NUL-terminated string for the duration of the call.
    let errno = if unsafe { libc::access(c_path.as_ptr(), libc::W_OK) } == 0 {
        None
    } else {
        io::Error::last_os_error().raw_os_error()
    };
    let mut block = classify_write_block(meta.permissions().mode(), errno);
    if block.is_none() && meta.is_file() && has_immutable_attribute(path) {
        block = Some(WriteBlock::Immutable);
    }
    Ok(block)
}

/// The cause from the mode bits and the errno of `access(W_OK)` (None: access allowed).
pub fn classify_write_block(mode: u32, access_errno: Option<i32>) -> Option<WriteBlock> {
    if mode & 0o222 == 0 {
        return Some(WriteBlock::ReadOnlyMode);
    }
    match access_errno {
        None => None,
        Some(libc::EPERM) => Some(WriteBlock::Immutable),
        Some(libc::EROFS) => Some(WriteBlock::Immutable),
        Some(_) => Some(WriteBlock::NoPermission),
    }
}

/// Whether the file has the immutable or append-only attribute (Linux `FS_IOC_GETFLAGS`):
/// `access(2)` reports an immutable file as writable on some kernels, the rename over it then
/// fails with EPERM.
fn has_immutable_attribute(path: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        const FS_IOC_GETFLAGS: libc::c_ulong = 0x8008_6601;
        const FS_IMMUTABLE_FL: libc::c_long = 0x10;
        const FS_APPEND_FL: libc::c_long = 0x20;
        let Ok(file) = File::open(path) else {
            return false;
        };
        let mut flags: libc::c_long = 0;
        // SAFETY: the descriptor is open for the call; the ioctl writes one long into flags.
        let done = unsafe { libc::ioctl(file.as_raw_fd(), FS_IOC_GETFLAGS as _, &mut flags) };
        done == 0 && flags & (FS_IMMUTABLE_FL | FS_APPEND_FL) != 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = path;
        false
    }
}

/// The hint for a file that could not be read, by its real cause.
pub fn read_hint(path: &Path, err: &io::Error) -> String {
    let shown = path.display();
    if path.is_dir() {
        return format!(
            "{shown} is a directory, where a file is expected: move it away (or put the file \
             there), then run again"
        );
    }
    match err.kind() {
        io::ErrorKind::PermissionDenied => format!("make {shown} readable (chmod u+r {shown})"),
        io::ErrorKind::InvalidData => {
            format!("{shown} is not UTF-8 text; restore it from a backup or rewrite it as UTF-8")
        }
        _ => format!("check {shown} (ls -l {shown})"),
    }
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

/// Writes a file only the user may read (0600), atomically (temp file in the same directory,
/// synced, renamed), creating its directory (0700) first: agentguard's own state, where a
/// trust record or a config copy must not be readable or half-written.
pub fn write_private(path: &Path, contents: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if !dir.exists() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    // tempfile creates the file 0600.
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(contents)?;
    temp.as_file()
        .set_permissions(fs::Permissions::from_mode(0o600))?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|err| err.error)?;
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

/// Removes all but the newest `keep` backups of `path` (the names [`backup`] writes sort by
/// time). Returns the removed paths.
pub fn prune_backups(path: &Path, keep: usize) -> io::Result<Vec<PathBuf>> {
    let mut backups = list_backups(path)?;
    let excess = backups.len().saturating_sub(keep);
    let old: Vec<PathBuf> = backups.drain(..excess).collect();
    for file in &old {
        fs::remove_file(file)?;
    }
    Ok(old)
}

/// The backups [`backup`] wrote for `path`, oldest first.
pub fn list_backups(path: &Path) -> io::Result<Vec<PathBuf>> {
    let target = resolve_symlinks(path)?;
    let Some(dir) = target.parent() else {
        return Ok(Vec::new());
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!("{name}.agentguard-backup-");
    let entries = match fs::read_dir(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(err),
    };
    let mut found: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let file = e.file_name().to_string_lossy().into_owned();
            let stamp = file.strip_prefix(&prefix)?.to_string();
            Some((backup_sort_key(&stamp), e.path()))
        })
        .collect();
    found.sort();
    Ok(found.into_iter().map(|(_, p)| p).collect())
}

/// `20261201T093000`, `20261201T093000-2`, ... `-10` sort after `-9`.
fn backup_sort_key(stamp: &str) -> String {
    match stamp.split_once('-') {
        Some((time, n)) => format!("{time}-{:>10}", n),
        None => format!("{stamp}-{:>10}", 1),
    }
}

/// Writes `contents` (the file as it was before our change) to
/// `<file>.agentguard-backup-YYYYMMDDTHHMMSS` (local time) next to the file, with the file's
/// permissions; `-2`, `-3`... after the highest suffix of that second already there (not the
/// first free one: pruning frees old names, and a reused one would sort as the oldest).
/// Returns the backup's path.
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
    let prefix = format!("{name}.agentguard-backup-{stamp}");
    let highest = list_backups(&target)?
        .iter()
        .filter_map(|p| {
            let file = p.file_name()?.to_string_lossy().into_owned();
            match file.strip_prefix(&prefix)? {
                "" => Some(1),
                rest => rest.strip_prefix('-')?.parse::<u32>().ok(),
            }
        })
        .max()
        .unwrap_or(0);
    for attempt in highest + 1.. {
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
        // A freed older name is not reused: the next backup still sorts as the newest.
        fs::remove_file(&first).unwrap();
        let third = backup(&file, b"three").unwrap();
        assert_eq!(list_backups(&file).unwrap().last(), Some(&third));
        let name = first.file_name().unwrap().to_string_lossy().into_owned();
        let stamp = name
            .strip_prefix("settings.json.agentguard-backup-")
            .unwrap();
        assert_eq!(stamp.len(), 15, "{stamp}");
        assert_eq!(&stamp[8..9], "T");
    }

    #[test]
    fn pruning_keeps_the_newest_backups() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        fs::write(&file, "current").unwrap();
        for stamp in [
            "20261201T090000",
            "20261201T090000-2",
            "20261201T090000-10",
            "20261130T235959",
            "20261201T100000",
        ] {
            fs::write(
                dir.path()
                    .join(format!("settings.json.agentguard-backup-{stamp}")),
                stamp,
            )
            .unwrap();
        }
        fs::write(
            dir.path()
                .join("other.json.agentguard-backup-20200101T000000"),
            "x",
        )
        .unwrap();
        let removed = prune_backups(&file, 3).unwrap();
        let names = |paths: Vec<PathBuf>| -> Vec<String> {
            paths
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(
            names(removed),
            [
                "settings.json.agentguard-backup-20261130T235959",
                "settings.json.agentguard-backup-20261201T090000"
            ]
        );
        assert_eq!(
            names(list_backups(&file).unwrap()),
            [
                "settings.json.agentguard-backup-20261201T090000-2",
                "settings.json.agentguard-backup-20261201T090000-10",
                "settings.json.agentguard-backup-20261201T100000"
            ]
        );
        assert!(
            dir.path()
                .join("other.json.agentguard-backup-20200101T000000")
                .exists()
        );
    }

    #[test]
    fn write_blocks_are_named_by_their_cause() {
        assert_eq!(
            classify_write_block(0o444, None),
            Some(WriteBlock::ReadOnlyMode)
        );
        assert_eq!(
            classify_write_block(0o644, Some(libc::EPERM)),
            Some(WriteBlock::Immutable)
        );
        assert_eq!(
            classify_write_block(0o644, Some(libc::EACCES)),
            Some(WriteBlock::NoPermission)
        );
        assert_eq!(classify_write_block(0o644, None), None);
        let (what, fix) = WriteBlock::Immutable.describe(Path::new("/x/s.json"));
        assert!(
            what.contains("immutable") && fix.contains("chattr -i"),
            "{what} {fix}"
        );
        assert!(!fix.contains("chmod"));
    }

    #[test]
    fn read_hints_name_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        let err = fs::read(dir.path()).unwrap_err();
        assert!(read_hint(dir.path(), &err).contains("is a directory"));
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
