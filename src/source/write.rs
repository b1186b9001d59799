//! Replacing a file safely: the edit lock other mapgrep processes honour, the writability
//! check, and the atomic replace through a directory handle.

use std::fs::{File, Metadata};
use std::io;
use std::path::Path;

use super::{FileId, file_kind, open_nonblocking, regular_identity};
use crate::error::{Error, Result};
use crate::platform::{self, OsError};

/// An exclusive advisory lock (`flock(LOCK_EX)`; `LockFileEx` on Windows) on one file, held
/// until it is dropped (its descriptor closed). Every mapgrep process takes it before it
/// reads a file it is about to replace; programs that do not ask for it are not stopped by it
/// (see [`lock_file`]).
pub struct FileLock {
    _file: File,
    md: Metadata,
}

impl FileLock {
    /// The locked file's metadata, taken once the lock was held.
    pub fn metadata(&self) -> &Metadata {
        &self.md
    }

    /// The locked file's identity.
    pub fn id(&self) -> FileId {
        FileId::from_metadata(&self.md)
    }
}

/// Takes an exclusive advisory lock on the regular file at `path` (canonical, inside the
/// roots), waiting up to `wait` for another holder to let go; `Ok(None)` if one held it all
/// that time.
///
/// The lock belongs to the file (the inode), not to the path: a holder that replaced the file
/// by rename released a lock on a file no longer at `path`. So once the lock is held, `path`
/// is checked to still name the locked file, and if it does not, the new file is locked
/// instead.
pub fn lock_file(path: &Path, wait: std::time::Duration) -> Result<Option<FileLock>> {
    use std::time::{Duration, Instant};
    let deadline = Instant::now() + wait;
    let mut pause = Duration::from_millis(1);
    loop {
        let file = open_nonblocking(path)?;
        regular_identity(&file, path)?;
        let mut locked = platform::try_lock(&file).map_err(|e| Error::io(path, e))?;
        while !locked {
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            std::thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(Duration::from_millis(20));
            if !platform::RENAME_REPLACES_OPEN_FILES {
                // Where an open file cannot be replaced, a waiter does not keep it open: the
                // holder's rename would fail. Opened again for the next try.
                break;
            }
            locked = platform::try_lock(&file).map_err(|e| Error::io(path, e))?;
        }
        if !locked {
            continue;
        }
        let md = file.metadata().map_err(|e| Error::io(path, e))?;
        let at_path = regular_identity(&open_nonblocking(path)?, path)?;
        if at_path.same_file(&FileId::from_metadata(&md)) {
            return Ok(Some(FileLock { _file: file, md }));
        }
    }
}

/// `Err(ReadOnly)` unless the regular file at `path`, whose metadata is `md`, may be replaced:
/// its mode must give its owner write permission (a file made read-only is not written, even
/// by root), and this process must be allowed to write it (its effective user and groups,
/// ACLs, a read-only mount). Renaming a new file over `path` needs neither — only the
/// directory's write permission — so without this check a read-only file would be replaced.
pub fn check_writable(path: &Path, md: &Metadata) -> Result<()> {
    let mode = platform::owner_write_bit(md).map_err(|mode| Error::ReadOnly {
        path: path.to_path_buf(),
        reason: format!("its mode is {mode:04o}, which gives its owner no write permission"),
    })?;
    match platform::may_write(path) {
        Ok(()) => Ok(()),
        Err(e)
            if matches!(
                platform::os_error(&e),
                Some(OsError::NotWritable | OsError::NotPermitted)
            ) =>
        {
            let (uid, gid) = platform::owner_of(md);
            Err(Error::ReadOnly {
                path: path.to_path_buf(),
                reason: format!(
                    "this server's user may not write it (mode {mode:04o}, owner uid {uid} gid {gid}): {e}"
                ),
            })
        }
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Replaces the contents of the regular file at `path` (canonical, inside the roots) with
/// `bytes`, atomically: the bytes go to a new temporary file in the same directory (same
/// owner, group and permission bits, flushed to disk), which is then renamed over `path`. A
/// reader sees the old file or the new one, never a mix.
///
/// `expected` is the identity of the file the new contents were computed from; if the file at
/// `path` no longer has it just before the rename (another writer got there first), nothing is
/// replaced and the error is [`Error::Changed`]. A file that may not be written
/// ([`check_writable`]; unless `allow_read_only`), or whose owner and group the new file could not be given (this
/// process is neither privileged nor its owner), is not replaced: [`Error::ReadOnly`]. The
/// directory is opened without following symbolic links and every later step works relative
/// to it, so swapping a symbolic link into the path during the write cannot redirect it
/// outside the roots. Returns the new file's identity.
///
/// Writers that must not lose each other's updates hold [`lock_file`] from before they read
/// the file until this returns.
pub fn replace_file(
    path: &Path,
    bytes: &[u8],
    expected: FileId,
    allow_read_only: bool,
) -> Result<FileId> {
    use std::io::Write;

    let io_err = |e: io::Error| Error::io(path, e);
    let (Some(dir_path), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(Error::InvalidPath {
            path: path.display().to_string(),
            reason: "not a file path".into(),
        });
    };
    let dir = platform::open_dir(dir_path).map_err(io_err)?;
    let md = still_expected(&dir, name, path, expected, allow_read_only)?;
    // The permission bits to keep (a read-only file's too, when it may be replaced).
    let mode = platform::owner_write_bit(&md).unwrap_or_else(|mode| mode);
    let tmp_name = temp_name(name);
    let tmp_name = tmp_name.as_os_str();
    let mut tmp = dir.create_new(tmp_name, mode).map_err(io_err)?;
    let written = (|| -> Result<Metadata> {
        tmp.write_all(bytes).map_err(io_err)?;
        // The owner and group first: changing them clears set-user-ID and set-group-ID bits.
        match platform::copy_owner(&tmp, &md) {
            Ok(()) => {}
            Err((e, why)) if platform::os_error(&e) == Some(OsError::NotPermitted) => {
                return Err(Error::ReadOnly {
                    path: path.to_path_buf(),
                    reason: format!("{why}: replacing it would change who owns it"),
                });
            }
            Err((e, _)) => return Err(io_err(e)),
        }
        // The creation mode was filtered through the umask: set the original bits exactly.
        platform::set_mode(&tmp, mode).map_err(io_err)?;
        tmp.sync_all().map_err(io_err)?;
        // Last look before the rename: another writer that does not take the lock (an editor)
        // may have replaced the file since it was read.
        // (Closed before the rename: Windows does not replace a file that is open.)
        let now = (dir.open_read(name).and_then(|f| f.metadata())).map_err(io_err)?;
        if FileId::from_metadata(&now) != expected {
            return Err(Error::Changed {
                path: path.to_path_buf(),
            });
        }
        rename_over(&dir, tmp_name, name).map_err(io_err)?;
        let _ = dir.sync();
        // The identity as it is now (a rename may touch the change time).
        dir.open_read(name)
            .and_then(|f| f.metadata())
            .map_err(io_err)
    })();
    match written {
        Ok(md) => Ok(FileId::from_metadata(&md)),
        Err(e) => {
            let _ = dir.remove(tmp_name);
            Err(e)
        }
    }
}

/// Renames `from` over `to` in `dir`. Where a rename cannot replace a file that is open
/// (Windows' older rename), a reader that has it open for a moment (a search, the index, a
/// waiting writer) makes it fail with "access denied": tried again for up to a second.
fn rename_over(
    dir: &platform::Dir,
    from: &std::ffi::OsStr,
    to: &std::ffi::OsStr,
) -> io::Result<()> {
    let mut pause = std::time::Duration::from_millis(1);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    loop {
        match dir.rename(from, to) {
            Err(e)
                if !platform::RENAME_REPLACES_OPEN_FILES
                    && e.kind() == io::ErrorKind::PermissionDenied
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(20));
            }
            done => return done,
        }
    }
}

/// The metadata of the file `name` in `dir` (`path`), opened through the directory, once it
/// is seen to be a regular file that still has the identity `expected` and (unless
/// `allow_read_only`) may be written.
fn still_expected(
    dir: &platform::Dir,
    name: &std::ffi::OsStr,
    path: &Path,
    expected: FileId,
    allow_read_only: bool,
) -> Result<Metadata> {
    let io_err = |e: io::Error| Error::io(path, e);
    let current = dir.open_read(name).map_err(io_err)?;
    let md = current.metadata().map_err(io_err)?;
    if !md.is_file() {
        return Err(Error::NotAFile {
            path: path.to_path_buf(),
            kind: file_kind(&md),
        });
    }
    if FileId::from_metadata(&md) != expected {
        return Err(Error::Changed {
            path: path.to_path_buf(),
        });
    }
    if !allow_read_only {
        check_writable(path, &md)?;
    }
    Ok(md)
}

/// A temporary name beside `name`, hidden, and unique in this process and among processes.
fn temp_name(name: &std::ffi::OsStr) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(
        ".mapgrep-{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::path::PathBuf::from(tmp_name)
}
