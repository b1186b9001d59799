//! Every operating-system call of mapgrep, behind one small API: the rest of the crate is
//! portable Rust and names no `std::os::unix`, `std::os::windows`, `libc`, `rustix` or `/proc`
//! (`scripts/check_platform.py`, in CI, holds it to that). The crate's `unsafe` code is here
//! too, and only here (`map.rs`): the memory map, its fault guard, glibc's allocator
//! tunables and the processor's prefetch hint.
//!
//! The API, by what it is for:
//!
//! - **Opening inside the roots** — [`open_read`] opens a canonical path (already checked to
//!   lie inside a root by `roots`) for reading, never blocking on a FIFO and never following
//!   a link swapped in after the check; [`register_root`] gives the sandbox a root's handle
//!   (held by `Roots`); [`Dir`] is an opened directory whose `*at` steps make the atomic
//!   replace ([`Dir::create_new`], [`Dir::rename`]) and the cheap one-component stat
//!   ([`Dir::stamp_at`]). [`Opener`] opens many files the way [`open_read`] does, each
//!   directory opened once for the files in it.
//! - **File identity** — [`FileId`] and [`stamp`]: device, inode (Windows: volume and file
//!   index where the system gives them), size, modification and change times.
//! - **The memory map** — [`map`] and its [`Mapping`]: a read-only map registered with a
//!   fault guard, so a file truncated under it reads as zeros plus a "changed" flag, not a
//!   crash.
//! - **Owners and modes** — [`owner_write_bit`], [`may_write`], [`copy_owner`],
//!   [`set_mode`]: what the atomic replace keeps of the file it replaces.
//! - **Private directories** — [`private_dir`], [`private_file`], [`create_private`],
//!   [`check_private`]: the cache directory's "owned by this user and closed to others, or
//!   refused" rule.
//! - **Locks** — [`try_lock`]: an OS file lock that dies with its process (std's
//!   `File::try_lock`: `flock` on Unix, `LockFileEx` on Windows); [`EditMutex`]: edits of
//!   one file by mapgrep processes serialised through the rename (a named mutex on Windows).
//! - **Paths** — [`native_path`]: a caller's path as the system reads it (Windows: `/` a
//!   separator, `..` lexical in a verbatim path); [`not_a_directory`]: a file's name with a
//!   trailing separator refused alike everywhere.
//! - **Memory** — [`release_free_memory`], [`map_large_allocations`]: glibc's `malloc_trim`
//!   and `mallopt` (nothing on other allocators); [`prefetch`]: bytes asked into the
//!   processor's caches ahead of their use (x86_64; nothing elsewhere).
//! - **Errors** — [`os_error`]: a system error code as the kind the engine words its
//!   message by (a link refused, a name too long, a directory, not writable).
//! - **Signals** — [`termination`]: a request to end the process (SIGTERM, SIGINT…), awaited
//!   by a server so that it removes its own files first (feature "server": tokio's).
//! - **The rest** — [`stdin_has_input`], [`os_str_from_bytes`], [`cache_dir`],
//!   [`file_kind`]; [`test_support`] for tests (links, modes, owners).
//!
//! Two implementations of the sandbox: `linux.rs` (Linux's fast paths: `openat2` with
//! `RESOLVE_NO_SYMLINKS`, `O_NOFOLLOW` before 5.6) and `portable.rs` (cap-std, for every other
//! system, and for Linux built with `RUSTFLAGS="--cfg mapgrep_portable"`, which is how CI
//! runs the portable code here). The calls that differ only between Unix and Windows are in
//! `unix.rs` and `windows.rs`. SECURITY.md has the table of what each guarantees where.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

#[allow(unsafe_code)]
mod map;
pub use map::{Mapping, map, map_large_allocations, prefetch, release_free_memory};

#[cfg(all(target_os = "linux", not(mapgrep_portable)))]
#[path = "linux.rs"]
mod sandbox;
#[cfg(any(not(target_os = "linux"), mapgrep_portable))]
#[path = "portable.rs"]
mod sandbox;
pub use sandbox::{Dir, RootHandle, open_dir, open_read, register_root};

#[cfg(unix)]
#[path = "unix.rs"]
mod os;
#[cfg(windows)]
#[path = "windows.rs"]
mod os;
pub use os::{
    check_private, copy_owner, create_private, file_kind, may_write, native_path, os_error,
    os_str_from_bytes, owner_of, owner_write_bit, private_dir, private_file, set_mode, stamp,
    stdin_has_input,
};

/// Asks the system to start reading the file at canonical `path` into its cache, opened as
/// [`open_read`] opens it (never blocking, no link followed), and returns at once: a search
/// that found the files it reads slow to come (not cached) reads ahead of itself.
pub fn read_ahead(path: &Path) {
    if let Ok(f) = open_read(path) {
        os::will_need(&f);
    }
}

#[doc(hidden)]
pub mod test_support;

/// Opens files for reading as [`open_read`] does (canonical paths, never blocking, no link
/// followed), one directory at a time: the directory of the last file is kept open, and a
/// file in the same directory is opened relative to it, one component to resolve where a
/// full path resolves them all. For a walk's files, which come directory by directory.
///
/// The directory is opened with no link in its path, and the file's name without following
/// a link: what [`open_read`] checks of the whole path at once. Keep an opener for one pass
/// only (a search): a directory replaced after it was opened is still read through the old
/// one until the opener moves on.
#[derive(Debug, Default)]
pub struct Opener {
    last: Option<(PathBuf, Dir)>,
}

impl Opener {
    /// Opens the file at canonical `path` for reading (see the type's docs).
    pub fn open_read(&mut self, path: &Path) -> io::Result<File> {
        let Some((dir, name)) = os::split_name(path).filter(|(d, _)| !d.as_os_str().is_empty())
        else {
            return open_read(path);
        };
        if let Some((kept, d)) = &self.last
            && kept.as_os_str() == dir.as_os_str()
        {
            return d.open_read(name);
        }
        match open_dir(dir) {
            Ok(d) => {
                let file = d.open_read(name);
                self.last = Some((dir.to_path_buf(), d));
                file
            }
            // The whole path's own open says what was wrong (no such directory, a link).
            Err(_) => {
                self.last = None;
                open_read(path)
            }
        }
    }
}

/// Which build this is: `"linux"` (Linux's own calls) or `"portable"` (cap-std), for logs
/// and tests.
pub const SANDBOX: &str = sandbox::NAME;

/// The identity of a file's contents as the system tells it (`fstat`). Two equal identities
/// mean "the same bytes" for caching purposes; a changed length, modification or change time
/// means a new identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId {
    pub dev: u64,
    pub ino: u64,
    pub len: u64,
    pub mtime: Option<SystemTime>,
    /// Inode change time (seconds, nanoseconds): unlike mtime it cannot be set back by a
    /// writer (`touch -r`, `cp -p`), so a same-size rewrite is still a new identity.
    pub ctime: (i64, i64),
}

/// A system error, as the engine words it (see [`os_error`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OsError {
    /// A symbolic link where none may be (a loop, or a link swapped in after the check; the
    /// portable sandbox's "led outside the root" is this too).
    Link,
    /// A name longer than the filesystem allows.
    NameTooLong,
    /// A directory where a file was asked for.
    IsDirectory,
    /// This process may not write the file (permissions, a read-only filesystem, a running
    /// executable).
    NotWritable,
    /// The operation needs privileges this process lacks (e.g. giving a file another owner).
    NotPermitted,
}

/// Whether a rename may replace a file that is held open (Unix: yes). Windows is taken as no:
/// where it renames the old way (wine, older Windows, and, unverified here, some of today's
/// file systems), a rename over a file that any handle holds open is refused with "access
/// denied".
pub const RENAME_REPLACES_OPEN_FILES: bool = cfg!(unix);

/// How many marks a search waits for, one after another, before it trusts that the file
/// watcher has reported every change made before the search began (see `index::live`).
/// Linux's inotify queues all of a watcher's events in one order: one mark. Where each watched
/// directory reports through its own handle and is re-armed after each report (Windows'
/// `ReadDirectoryChangesW`, also under wine), a change to the root made just before the first
/// mark can be reported after it, never after a second mark created once the first one came.
/// macOS (FSEvents, not verified here) takes two as well: one more mark costs a round trip.
pub const WATCH_MARKS: u64 = if cfg!(target_os = "linux") { 1 } else { 2 };

/// The edits of one file by mapgrep processes, serialised across the rename where the file's
/// own lock cannot be held through it ([`RENAME_REPLACES_OPEN_FILES`]): on Windows a named
/// mutex of the session, keyed by the canonical path, taken before the file is locked and
/// held until the edit is done; on Unix nothing (the `flock` on the file is held through the
/// rename). Owned by the thread that took it.
pub use os::EditMutex;

/// `root` joined with `rel`, a relative path with `/` between its parts (as the index, the
/// symbol records and the answers keep them). On Windows each `/` becomes `\\`: a verbatim
/// path (`\\\\?\\C:\\…`, which is what canonicalizing gives there, and so every root) takes a
/// `/` as part of a name.
pub fn join_slashed(root: &Path, rel: impl AsRef<std::ffi::OsStr>) -> PathBuf {
    let rel = rel.as_ref();
    if std::path::MAIN_SEPARATOR == '/' {
        return root.join(rel);
    }
    match rel.to_str() {
        Some(s) if s.contains('/') => root.join(s.replace('/', std::path::MAIN_SEPARATOR_STR)),
        _ => root.join(rel),
    }
}

/// [`slashed`] for the bytes of a path (as `as_encoded_bytes` gives them).
pub fn slashed_bytes(rel: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    const SEP: u8 = std::path::MAIN_SEPARATOR as u8;
    if SEP == b'/' || !rel.contains(&SEP) {
        return std::borrow::Cow::Borrowed(rel);
    }
    std::borrow::Cow::Owned(
        rel.iter()
            .map(|&b| if b == SEP { b'/' } else { b })
            .collect(),
    )
}

/// `rel`, a path below a root as this system writes it, with `/` between its parts: how
/// answers show paths on every system (Windows writes `\\`, which JSON doubles and agents
/// copy back either way; Windows takes `/` in a path as well).
pub fn slashed(rel: std::borrow::Cow<'_, str>) -> std::borrow::Cow<'_, str> {
    if std::path::MAIN_SEPARATOR == '/' || !rel.contains(std::path::MAIN_SEPARATOR) {
        return rel;
    }
    std::borrow::Cow::Owned(rel.replace(std::path::MAIN_SEPARATOR, "/"))
}

/// The error the sandbox answers for a link it refuses (what Linux's `ELOOP` is).
pub fn link_refused() -> io::Error {
    os::link_refused()
}

/// The error the system gives for a file's name followed by a separator (`good.txt/`): Linux's
/// `ENOTDIR`; Windows' "invalid name" (its path functions drop a trailing separator, so
/// [`crate::roots`] asks for it).
pub fn not_a_directory() -> io::Error {
    os::not_a_directory()
}

/// The cache directory of this user (`$XDG_CACHE_HOME`, else `~/.cache`, on Linux and other
/// Unix systems; `~/Library/Caches` on macOS; `%LOCALAPPDATA%` on Windows). An absolute
/// `XDG_CACHE_HOME` is honoured on every system (how tests and users redirect it).
pub fn cache_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            directories::BaseDirs::new()
                .map(|b| b.cache_dir().to_path_buf())
                .filter(|p| p.is_absolute())
        })
}

/// The home directory (`~`): `HOME` where it is set, else what the system says.
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .or_else(|| directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf()))
}

/// Takes an exclusive lock on `file` if no other open file description holds one: `Ok(true)`
/// when held now, `Ok(false)` when another holds it. The lock is the system's (`flock`,
/// `LockFileEx`): it is released when the file is closed, and so when its process dies.
pub fn try_lock(file: &File) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(std::fs::TryLockError::WouldBlock) => Ok(false),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Whether the lock file at `path` is held by no live process (its owner died): the liveness
/// test of directories owned by processes (a server's marks directory). A file that cannot
/// be opened is not taken for free.
pub fn lock_is_free(path: &Path) -> bool {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .is_ok_and(|f| matches!(try_lock(&f), Ok(true)))
}

/// Waits until the process is asked to end (SIGTERM, SIGINT or SIGHUP on Unix; Ctrl-C or
/// Ctrl-Break on Windows), so that a server can leave its files in order before it exits;
/// returns the exit status a shell expects of a process ended that way (128 + the signal's
/// number). Never returns where no such request can be received. From the call on (made
/// inside a tokio runtime), those requests no longer end the process by themselves, whether
/// or not the future is polled yet.
#[cfg(feature = "server")]
pub fn termination() -> impl std::future::Future<Output = u8> {
    os::termination()
}

#[cfg(test)]
mod tests;
