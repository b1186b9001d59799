//! The calls every Unix system shares (Linux, macOS, the BSDs): identities from `stat`, the
//! error numbers, owners and modes, private directories, standard input's file type.

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use super::{FileId, OsError};

/// The identity of `md` (see [`FileId`]).
pub fn stamp(md: &Metadata) -> FileId {
    FileId {
        dev: md.dev(),
        ino: md.ino(),
        len: md.len(),
        mtime: md.modified().ok(),
        ctime: (md.ctime(), md.ctime_nsec()),
    }
}

/// A short human name for a file's type, used in error messages.
pub fn file_kind(md: &Metadata) -> &'static str {
    let ft = md.file_type();
    if ft.is_dir() {
        "directory"
    } else if ft.is_fifo() {
        "FIFO"
    } else if ft.is_socket() {
        "socket"
    } else if ft.is_char_device() {
        "character device"
    } else if ft.is_block_device() {
        "block device"
    } else if ft.is_symlink() {
        "symbolic link"
    } else if ft.is_file() {
        "regular file"
    } else {
        "special file"
    }
}

/// What a system error means to the engine (`None`: nothing it words specially).
pub fn os_error(e: &io::Error) -> Option<OsError> {
    match e.raw_os_error()? {
        libc::ELOOP => Some(OsError::Link),
        libc::ENAMETOOLONG => Some(OsError::NameTooLong),
        libc::EISDIR => Some(OsError::IsDirectory),
        libc::EPERM => Some(OsError::NotPermitted),
        libc::EACCES | libc::EROFS | libc::ETXTBSY => Some(OsError::NotWritable),
        _ => None,
    }
}

pub(super) fn link_refused() -> io::Error {
    io::Error::from_raw_os_error(libc::ELOOP)
}

pub(super) fn not_a_directory() -> io::Error {
    io::Error::from_raw_os_error(libc::ENOTDIR)
}

/// A caller's path as given: Unix reads `/`, `.` and `..` itself.
pub fn native_path(given: &Path) -> std::borrow::Cow<'_, Path> {
    std::borrow::Cow::Borrowed(given)
}

/// `Err(mode)` (the permission bits, for the message) when the file's mode gives its owner
/// no write permission; `Ok(mode)` otherwise.
pub fn owner_write_bit(md: &Metadata) -> Result<u32, u32> {
    let mode = md.mode() & 0o7777;
    if mode & 0o200 == 0 {
        Err(mode)
    } else {
        Ok(mode)
    }
}

/// Whether this process (its effective user and groups, ACLs, a read-only mount) may write
/// the file at `path`: `faccessat(W_OK, AT_EACCESS)`.
pub fn may_write(path: &Path) -> io::Result<()> {
    use rustix::fs::{Access, AtFlags, CWD, accessat};
    Ok(accessat(CWD, path, Access::WRITE_OK, AtFlags::EACCESS)?)
}

/// Gives `new` the owner and group of `old` (`fchown`) if they differ; the error says who
/// owns what when this process may not. Done before the mode is set: a change of owner
/// clears set-user-ID bits.
pub fn copy_owner(new: &File, old: &Metadata) -> Result<(), (io::Error, String)> {
    let made = new.metadata().map_err(|e| (e, String::new()))?;
    if (made.uid(), made.gid()) == (old.uid(), old.gid()) {
        return Ok(());
    }
    let to = (
        Some(rustix::fs::Uid::from_raw(old.uid())),
        Some(rustix::fs::Gid::from_raw(old.gid())),
    );
    rustix::fs::fchown(new, to.0, to.1).map_err(|e| {
        (
            e.into(),
            format!(
                "it belongs to uid {} gid {}, and this server's user (uid {} gid {}) cannot give a new file that owner and group",
                old.uid(),
                old.gid(),
                made.uid(),
                made.gid()
            ),
        )
    })
}

/// Sets `file`'s permission bits to `mode` exactly (a creation mode was filtered through the
/// umask).
pub fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

/// Owner and group of `md`, for messages.
pub fn owner_of(md: &Metadata) -> (u32, u32) {
    (md.uid(), md.gid())
}

/// `Err(why)` unless `md` is private to this user: owned by it and writable by no one else.
pub fn check_private(md: &Metadata) -> Result<(), &'static str> {
    if md.uid() != rustix::process::getuid().as_raw() {
        return Err("owned by another user");
    }
    if md.mode() & 0o022 != 0 {
        return Err("writable by other users");
    }
    Ok(())
}

/// Creates `dir` (and its parents) private to this user (mode 0700), or checks that an
/// existing one is a directory owned by this user and not writable by others. With `new`,
/// creates exactly `dir`, which must not exist yet.
pub fn private_dir(dir: &Path, new: bool) -> io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(!new)
        .mode(0o700)
        .create(dir)?;
    let md = std::fs::symlink_metadata(dir)?;
    if !md.is_dir() || check_private(&md).is_err() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is not a directory owned by this user and closed to others",
                dir.display()
            ),
        ));
    }
    Ok(())
}

/// Opens `path` for writing, created private (mode 0600) if missing, never truncated (a lock
/// file, a stamp).
pub fn private_file(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(path)
}

/// Creates `path` exclusively (it must not exist), private (mode 0600), for writing.
pub fn create_private(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

/// Asks the system to start reading `file` into its page cache (`posix_fadvise` with
/// `WILLNEED`), without waiting for it; nothing where the system has no such call.
pub fn will_need(file: &File) {
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    let _ = rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::WillNeed);
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    let _ = file;
}

/// Whether standard input is a pipe or a file (as ripgrep decides to search it when no path
/// is given): not a terminal, and not a device such as `/dev/null`.
pub fn stdin_has_input() -> bool {
    use rustix::fs::FileType;
    match rustix::fs::fstat(std::io::stdin()) {
        Ok(st) => matches!(
            FileType::from_raw_mode(st.st_mode),
            FileType::Fifo | FileType::RegularFile
        ),
        Err(_) => false,
    }
}

/// Bytes read from an index file (a path as `as_encoded_bytes` wrote it) as an `OsStr`: any
/// bytes on Unix.
pub fn os_str_from_bytes(b: &[u8]) -> &OsStr {
    use std::os::unix::ffi::OsStrExt;
    OsStr::from_bytes(b)
}

/// `path`'s directory and last name, split at its last `/` (bytes, no parsing of
/// components: the opener does it for every file of a walk); `None` for a path without a
/// name to open (no `/`, or ending in `/`, `.` or `..`).
pub fn split_name(path: &Path) -> Option<(&Path, &OsStr)> {
    use std::os::unix::ffi::OsStrExt;
    let b = path.as_os_str().as_bytes();
    let sep = memchr::memrchr(b'/', b)?;
    let (dir, name) = (&b[..sep], &b[sep + 1..]);
    if matches!(name, b"" | b"." | b"..") {
        return None;
    }
    let dir = if dir.is_empty() { &b[..1] } else { dir };
    Some((Path::new(OsStr::from_bytes(dir)), OsStr::from_bytes(name)))
}

/// See [`super::termination`]: SIGTERM, SIGINT and SIGHUP, through tokio (registered at the
/// call).
#[cfg(feature = "server")]
pub fn termination() -> impl std::future::Future<Output = u8> {
    use tokio::signal::unix::{Signal, SignalKind, signal};
    async fn recv(s: &mut Option<Signal>) {
        match s {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending().await,
        }
    }
    let mut term = signal(SignalKind::terminate()).ok();
    let mut int = signal(SignalKind::interrupt()).ok();
    let mut hup = signal(SignalKind::hangup()).ok();
    async move {
        tokio::select! {
            () = recv(&mut term) => 128 + 15,
            () = recv(&mut int) => 128 + 2,
            () = recv(&mut hup) => 128 + 1,
        }
    }
}

/// Nothing to hold on Unix: a rename replaces a file that is open, so an edit keeps its
/// `flock` on the file through the rename (see [`super::EditMutex`]).
pub struct EditMutex;

impl EditMutex {
    /// Always taken at once.
    pub fn acquire(_path: &Path, _wait: std::time::Duration) -> io::Result<Option<EditMutex>> {
        Ok(Some(EditMutex))
    }
}
