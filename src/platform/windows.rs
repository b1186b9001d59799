//! The Windows side of the calls that differ between Unix and Windows. Windows has no mode
//! bits, owners as numbers or `stat` identities in std's stable API, so:
//!
//! - **identity**: size and last-write time (`FileId::dev`, `ino` and `ctime` are 0: std's
//!   metadata gives no volume serial or file index on stable Rust). A rewrite that keeps the
//!   size within one tick of the write time (100 ns) goes unnoticed, as on Unix within one
//!   tick of the filesystem clock.
//! - **writable**: the read-only attribute ([`owner_write_bit`], [`may_write`]); access
//!   control lists are what the system enforces when the file is opened.
//! - **private**: the cache directory is under `%LOCALAPPDATA%`, whose access control list
//!   (inherited by what mapgrep creates there) admits only its user, administrators and
//!   SYSTEM; mapgrep neither sets nor reads ACLs, so [`check_private`] accepts what it finds
//!   and refuses only a link in place of a directory.
//! - **owner**: a new file gets the directory's inherited ACL; [`copy_owner`] changes nothing.

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io;
use std::path::Path;

use super::{FileId, OsError};

// Windows system error codes (winerror.h).
const ERROR_ACCESS_DENIED: i32 = 5;
const ERROR_WRITE_PROTECT: i32 = 19;
const ERROR_SHARING_VIOLATION: i32 = 32;
const ERROR_LOCK_VIOLATION: i32 = 33;
const ERROR_INVALID_NAME: i32 = 123;
const ERROR_DIRECTORY: i32 = 267;
const ERROR_FILENAME_EXCED_RANGE: i32 = 206;
const ERROR_PRIVILEGE_NOT_HELD: i32 = 1314;
const ERROR_CANT_RESOLVE_FILENAME: i32 = 1921;
const ERROR_STOPPED_ON_SYMLINK: i32 = 681;

/// The identity of `md` (see the module docs).
pub fn stamp(md: &Metadata) -> FileId {
    FileId {
        dev: 0,
        ino: 0,
        len: md.len(),
        mtime: md.modified().ok(),
        ctime: (0, 0),
    }
}

/// A short human name for a file's type, used in error messages.
pub fn file_kind(md: &Metadata) -> &'static str {
    let ft = md.file_type();
    if ft.is_dir() {
        "directory"
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
        ERROR_CANT_RESOLVE_FILENAME | ERROR_STOPPED_ON_SYMLINK => Some(OsError::Link),
        ERROR_FILENAME_EXCED_RANGE => Some(OsError::NameTooLong),
        ERROR_DIRECTORY => Some(OsError::IsDirectory),
        ERROR_PRIVILEGE_NOT_HELD => Some(OsError::NotPermitted),
        ERROR_ACCESS_DENIED
        | ERROR_WRITE_PROTECT
        | ERROR_SHARING_VIOLATION
        | ERROR_LOCK_VIOLATION => Some(OsError::NotWritable),
        _ => None,
    }
}

pub(super) fn link_refused() -> io::Error {
    io::Error::from_raw_os_error(ERROR_CANT_RESOLVE_FILENAME)
}

/// What Windows answers for a file's name followed by a separator (`good.txt\`).
pub(super) fn not_a_directory() -> io::Error {
    io::Error::from_raw_os_error(ERROR_INVALID_NAME)
}

/// A caller's path as Windows reads it: `/` is a separator (no name holds one, but a
/// verbatim `\\?\` path would pass it on as part of a name), and in a verbatim path `.`
/// and `..` are taken lexically, as Windows takes them in every other path (a verbatim path
/// passes them on as names, so `\\?\C:\repo\..\x` would be "not found", not `C:\x`).
pub fn native_path(given: &Path) -> std::borrow::Cow<'_, Path> {
    use std::borrow::Cow;
    use std::path::{Component, PathBuf};
    let slashed: Cow<'_, Path> = match given.to_str() {
        Some(s) if s.contains('/') => Cow::Owned(PathBuf::from(s.replace('/', "\\"))),
        _ => Cow::Borrowed(given),
    };
    let verbatim = matches!(
        slashed.components().next(),
        Some(Component::Prefix(p)) if p.kind().is_verbatim()
    );
    let dotted = slashed
        .components()
        .any(|c| matches!(c, Component::CurDir | Component::ParentDir));
    if !verbatim || !dotted {
        return slashed;
    }
    let mut parts: Vec<Component<'_>> = Vec::new();
    for c in slashed.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(parts.last(), Some(Component::Normal(_))) {
                    parts.pop();
                }
            }
            c => parts.push(c),
        }
    }
    Cow::Owned(parts.iter().collect())
}

/// `Err(0o444)` for a read-only file, `Ok(0o666)` otherwise (the modes Unix would show).
pub fn owner_write_bit(md: &Metadata) -> Result<u32, u32> {
    if md.permissions().readonly() {
        Err(0o444)
    } else {
        Ok(0o666)
    }
}

/// Whether the file at `path` may be written: not read-only (ACLs are checked at open).
pub fn may_write(path: &Path) -> io::Result<()> {
    if std::fs::metadata(path)?.permissions().readonly() {
        return Err(io::Error::from_raw_os_error(ERROR_ACCESS_DENIED));
    }
    Ok(())
}

/// Nothing to copy: the new file has its directory's inherited ACL (see the module docs).
pub fn copy_owner(_new: &File, _old: &Metadata) -> Result<(), (io::Error, String)> {
    Ok(())
}

/// Sets the read-only attribute when `mode` gives the owner no write permission.
pub fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    let mut p = file.metadata()?.permissions();
    p.set_readonly(mode & 0o200 == 0);
    file.set_permissions(p)
}

/// Owner and group, for messages: unknown (0, 0).
pub fn owner_of(_md: &Metadata) -> (u32, u32) {
    (0, 0)
}

/// Accepts what it finds (see the module docs: privacy is the profile's ACL).
pub fn check_private(_md: &Metadata) -> Result<(), &'static str> {
    Ok(())
}

/// Creates `dir` (and its parents; with `new`, exactly `dir`, which must not exist), and
/// checks that it is a directory, not a link or junction.
pub fn private_dir(dir: &Path, new: bool) -> io::Result<()> {
    if new {
        std::fs::create_dir(dir)?;
    } else {
        std::fs::create_dir_all(dir)?;
    }
    let md = std::fs::symlink_metadata(dir)?;
    if !md.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{} is not a directory", dir.display()),
        ));
    }
    Ok(())
}

/// Opens `path` for writing, created if missing, never truncated (a lock file, a stamp).
pub fn private_file(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
}

/// Creates `path` exclusively (it must not exist) for writing.
pub fn create_private(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

/// Reading ahead is left to the system here.
pub fn will_need(file: &File) {
    let _ = file;
}

/// Whether standard input is a pipe or a file (not a console, not the NUL device).
#[allow(unsafe_code)]
pub fn stdin_has_input() -> bool {
    use std::os::windows::io::AsRawHandle;
    const FILE_TYPE_DISK: u32 = 1;
    const FILE_TYPE_PIPE: u32 = 3;
    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn GetFileType(file: *mut std::ffi::c_void) -> u32;
    }
    let handle = std::io::stdin().as_raw_handle();
    if handle.is_null() {
        return false;
    }
    // A pipe or a file is input; a console or the NUL device (what a program started without
    // standard input gets) is not, as on Unix only a FIFO or a regular file is.
    // SAFETY: GetFileType reads the type of the handle it is given and nothing else; a handle
    // that is not valid gives FILE_TYPE_UNKNOWN.
    let kind = unsafe { GetFileType(handle) };
    matches!(kind, FILE_TYPE_DISK | FILE_TYPE_PIPE)
}

/// Bytes read from an index file (a path as `as_encoded_bytes` wrote it) as an `OsStr`:
/// UTF-8 names as they are; a name that is not (an unpaired surrogate) as a name no file has,
/// so the index entry only ever counts as changed.
pub fn os_str_from_bytes(b: &[u8]) -> &OsStr {
    OsStr::new(std::str::from_utf8(b).unwrap_or("\u{FFFD}\u{FFFD}mapgrep-unreadable-name"))
}

/// `path`'s directory and last name; `None` for a path without a name to open.
pub fn split_name(path: &Path) -> Option<(&Path, &OsStr)> {
    Some((path.parent()?, path.file_name()?))
}

/// See [`super::termination`]: Ctrl-C and Ctrl-Break, through tokio (registered at the call).
#[cfg(feature = "server")]
pub fn termination() -> impl std::future::Future<Output = u8> {
    use tokio::signal::windows::{ctrl_break, ctrl_c};
    let handlers = (ctrl_c(), ctrl_break());
    async move {
        match handlers {
            (Ok(mut c), Ok(mut b)) => tokio::select! {
                _ = c.recv() => 128 + 2,
                _ = b.recv() => 128 + 21,
            },
            (Ok(mut c), _) => {
                c.recv().await;
                128 + 2
            }
            _ => std::future::pending().await,
        }
    }
}

/// A named mutex of this session (`Local\mapgrep-edit-<hash of the path>`), owned by the
/// thread that took it until dropped; a holder that dies leaves it abandoned, which the next
/// waiter takes. See [`super::EditMutex`].
pub struct EditMutex {
    handle: *mut std::ffi::c_void,
}

#[allow(unsafe_code)]
#[link(name = "kernel32")]
unsafe extern "system" {
    fn CreateMutexW(
        attributes: *mut std::ffi::c_void,
        initial_owner: i32,
        name: *const u16,
    ) -> *mut std::ffi::c_void;
    fn WaitForSingleObject(handle: *mut std::ffi::c_void, millis: u32) -> u32;
    fn ReleaseMutex(handle: *mut std::ffi::c_void) -> i32;
    fn CloseHandle(handle: *mut std::ffi::c_void) -> i32;
}

impl EditMutex {
    /// Takes the mutex of `path`, waiting up to `wait`; `Ok(None)` if another held it all
    /// that time.
    #[allow(unsafe_code)]
    pub fn acquire(path: &Path, wait: std::time::Duration) -> io::Result<Option<EditMutex>> {
        use std::os::windows::ffi::OsStrExt;
        const WAIT_OBJECT_0: u32 = 0;
        const WAIT_ABANDONED: u32 = 0x80;
        const WAIT_TIMEOUT: u32 = 0x102;
        // FNV-1a over the path's UTF-16 units: the same name in every process and build.
        let hash = path
            .as_os_str()
            .encode_wide()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, u| {
                (h ^ u64::from(u)).wrapping_mul(0x0100_0000_01b3)
            });
        let name: Vec<u16> = format!("Local\\mapgrep-edit-{hash:016x}")
            .encode_utf16()
            .chain(std::iter::once(0))
            .collect();
        // SAFETY: the name is a NUL-terminated UTF-16 string that outlives the call; no
        // security attributes.
        let handle = unsafe { CreateMutexW(std::ptr::null_mut(), 0, name.as_ptr()) };
        if handle.is_null() {
            return Err(io::Error::last_os_error());
        }
        let held = EditMutex { handle };
        let millis = u32::try_from(wait.as_millis()).unwrap_or(u32::MAX - 1);
        // SAFETY: a valid mutex handle, owned by `held`.
        match unsafe { WaitForSingleObject(handle, millis) } {
            WAIT_OBJECT_0 | WAIT_ABANDONED => Ok(Some(held)),
            WAIT_TIMEOUT => {
                // Not owned: only closed.
                let held = std::mem::ManuallyDrop::new(held);
                // SAFETY: the handle is valid and closed once.
                unsafe { CloseHandle(held.handle) };
                Ok(None)
            }
            _ => {
                let e = io::Error::last_os_error();
                let held = std::mem::ManuallyDrop::new(held);
                // SAFETY: as above.
                unsafe { CloseHandle(held.handle) };
                Err(e)
            }
        }
    }
}

impl Drop for EditMutex {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: the handle is valid and owned by this thread (the type is not Send), which
        // releases the mutex it holds and closes the handle once.
        unsafe {
            ReleaseMutex(self.handle);
            CloseHandle(self.handle);
        }
    }
}
