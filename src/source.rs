//! `Source`: the bytes of one opened regular file, memory-mapped or read, behind one type.
//!
//! This is the only module of mapgrep that contains `unsafe` code: the memory map, the
//! `openat2` call that refuses symbolic links, and the system calls that replace a file
//! ([`replace_file`], [`lock_file`]). Everything else sees a `&[u8]`. The module also
//! classifies the bytes once, at open time: binary (a NUL byte in the first 64 KiB), UTF-8
//! with a byte-order mark, or UTF-16 with a byte-order mark (transcoded to UTF-8 so that line
//! indexing and searching work on one encoding).

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::error::{Error, Result};

/// How many leading bytes are inspected for a NUL byte to call a file binary.
pub const BINARY_PROBE_LEN: usize = 64 * 1024;

/// How recent a modification makes a file's identity unreliable for caching.
pub const RACY_WINDOW: std::time::Duration = std::time::Duration::from_secs(2);

/// Files at least this large are memory-mapped by default; smaller ones are read.
pub const DEFAULT_MMAP_THRESHOLD: u64 = 256 * 1024;

/// The identity of a file's contents as `fstat` tells it. Two equal identities mean "the same
/// bytes" for caching purposes; a changed length, modification or change time means a new
/// identity.
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

impl FileId {
    pub fn from_metadata(md: &Metadata) -> FileId {
        FileId {
            dev: md.dev(),
            ino: md.ino(),
            len: md.len(),
            mtime: md.modified().ok(),
            ctime: (md.ctime(), md.ctime_nsec()),
        }
    }

    /// Whether the file changed so recently (within [`RACY_WINDOW`] of `now`) that a later
    /// change could leave size and timestamps as they are: file timestamps advance in coarse
    /// ticks, so caches do not keep values derived from such files (git's "racy" rule).
    pub fn is_racy(&self, now: SystemTime) -> bool {
        match self.mtime {
            Some(m) => now.duration_since(m).map_or(true, |age| age < RACY_WINDOW),
            None => true,
        }
    }

    /// The same file (device and inode), whatever its contents now.
    pub fn same_file(&self, other: &FileId) -> bool {
        self.dev == other.dev && self.ino == other.ino
    }
}

/// What the bytes of a file are, decided once when it is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 or anything ASCII-compatible (decoded lossily at output time).
    Utf8,
    /// UTF-8 with a leading byte-order mark (the three BOM bytes are skipped).
    Utf8Bom,
    /// UTF-16 (little or big endian) with a byte-order mark, transcoded to UTF-8 on open.
    Utf16,
    /// A NUL byte in the first 64 KiB and no UTF-16 byte-order mark.
    Binary,
}

enum Bytes {
    Mapped(sys::Mapping),
    Owned(Vec<u8>),
}

/// Options for opening a [`Source`].
#[derive(Clone, Debug)]
pub struct SourceOptions {
    /// Map files at least this large; read smaller ones. `u64::MAX` never maps.
    pub mmap_threshold: u64,
    /// [`load`] must return the file's identity (an fstat per file); without it, small
    /// files are read with a single `read`.
    pub identity: bool,
}

impl Default for SourceOptions {
    fn default() -> SourceOptions {
        SourceOptions {
            mmap_threshold: DEFAULT_MMAP_THRESHOLD,
            identity: true,
        }
    }
}

/// An opened regular file's bytes.
pub struct Source {
    path: PathBuf,
    id: FileId,
    encoding: Encoding,
    bytes: Bytes,
    /// Offset of the text within `bytes` (3 after a UTF-8 BOM, else 0).
    start: usize,
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("path", &self.path)
            .field("id", &self.id)
            .field("encoding", &self.encoding)
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

impl Source {
    /// Opens `path`, which must name a regular file. Directories, FIFOs, sockets and devices
    /// are refused by `fstat` before any byte is read, and the open itself never blocks.
    pub fn open(path: &Path, opts: &SourceOptions) -> Result<Source> {
        let file = open_nonblocking(path)?;
        let id = regular_identity(&file, path)?;
        let bytes = if id.len >= opts.mmap_threshold && id.len > 0 {
            match sys::map(&file) {
                Ok(m) => Bytes::Mapped(m),
                Err(_) => Bytes::Owned(read_all(&file, id.len, path)?),
            }
        } else {
            Bytes::Owned(read_all(&file, id.len, path)?)
        };
        let mut source = Source {
            path: path.to_path_buf(),
            id,
            encoding: Encoding::Utf8,
            bytes,
            start: 0,
        };
        source.classify();
        // A truncation caught while classifying would pass zeros off as a binary file.
        source.check_intact()?;
        Ok(source)
    }

    fn classify(&mut self) {
        let raw = self.raw();
        if raw.starts_with(b"\xEF\xBB\xBF") {
            self.encoding = Encoding::Utf8Bom;
            self.start = 3;
        } else if raw.starts_with(b"\xFF\xFE") || raw.starts_with(b"\xFE\xFF") {
            let utf8 = transcode_utf16(raw);
            self.bytes = Bytes::Owned(utf8);
            self.encoding = Encoding::Utf16;
            self.start = 0;
        } else {
            let probe = &raw[..raw.len().min(BINARY_PROBE_LEN)];
            if memchr::memchr(0, probe).is_some() {
                self.encoding = Encoding::Binary;
            }
        }
    }

    fn raw(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }

    /// The text bytes (after a UTF-8 BOM; UTF-8 after transcoding a UTF-16 file).
    pub fn bytes(&self) -> &[u8] {
        &self.raw()[self.start..]
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn id(&self) -> FileId {
        self.id
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    pub fn is_binary(&self) -> bool {
        self.encoding == Encoding::Binary
    }

    pub fn is_mapped(&self) -> bool {
        matches!(self.bytes, Bytes::Mapped(_))
    }

    /// Asks the kernel to map every page of a mapped file now, in one call, before a pass
    /// that reads all of it: far cheaper than taking the page faults one by one. Nothing for
    /// a file that was read; ignored where the kernel lacks it (before Linux 5.14).
    pub fn prefault(&self) {
        if let Bytes::Mapped(m) = &self.bytes {
            m.populate();
        }
    }

    /// `Err(Changed)` if the file shrank under its mapping while it was read: the pages past
    /// the new end read as zeros (instead of killing the process with SIGBUS), so whatever was
    /// computed from these bytes must be thrown away. Check after a pass over the bytes.
    pub fn check_intact(&self) -> Result<()> {
        match &self.bytes {
            Bytes::Mapped(m) if m.faulted() => Err(Error::Changed {
                path: self.path.clone(),
            }),
            _ => Ok(()),
        }
    }
}

/// Runs `f`, which reads bytes that are a mapping of `path` when `mapped`.
///
/// Another process may rewrite a mapped file while it is read, and code that checks its own
/// consistency over the bytes then panics: regex-automata asserts that its reverse scan finds
/// the match its forward scan found, which fails when the bytes changed in between. Over a
/// mapping such a panic means the file changed during the read, and is answered as
/// [`Error::Changed`] (retry); over bytes we own it is a bug and unwinds on.
pub fn guard_mapped<T>(mapped: bool, path: &Path, f: impl FnOnce() -> T) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => Ok(v),
        Err(_) if mapped => Err(Error::Changed {
            path: path.to_path_buf(),
        }),
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// The bytes of one file for a search: mapped, or read into a caller's reusable buffer (the
/// fast path for the many small files of a tree walk). UTF-8 BOMs are skipped and UTF-16 files
/// transcoded, as [`Source`] does.
pub enum Haystack<'a> {
    Mapped { map: sys::Mapping, start: usize },
    Buffer(&'a [u8]),
}

impl Haystack<'_> {
    pub fn is_mapped(&self) -> bool {
        matches!(self, Haystack::Mapped { .. })
    }

    /// False if the file shrank under its mapping while it was searched (see
    /// [`Source::check_intact`]).
    pub fn intact(&self) -> bool {
        match self {
            Haystack::Mapped { map, .. } => !map.faulted(),
            Haystack::Buffer(_) => true,
        }
    }
}

impl std::ops::Deref for Haystack<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Haystack::Mapped { map, start } => &map[*start..],
            Haystack::Buffer(b) => b,
        }
    }
}

/// Opens `path` (a regular file, never blocking) and loads its bytes for searching, reusing
/// `buf` for files below the mmap threshold.
pub fn load<'a>(
    path: &Path,
    opts: &SourceOptions,
    buf: &'a mut Vec<u8>,
) -> Result<(Option<FileId>, Haystack<'a>)> {
    let file = open_nonblocking(path)?;
    // Without a need for the identity, a small file costs open + one read + close: a read
    // shorter than asked is the end of a regular file. A full read (a larger file, or a
    // device that never ends) falls through to fstat, which also refuses non-regular files.
    let mut have = 0;
    if !opts.identity {
        if buf.len() < FIRST_READ {
            buf.resize(FIRST_READ, 0);
        }
        have = read_some(&file, &mut buf[..FIRST_READ]).map_err(|e| Error::io(path, e))?;
        if have < FIRST_READ {
            return Ok((None, text_of(buf, have)));
        }
    }
    let id = regular_identity(&file, path)?;
    if id.len >= opts.mmap_threshold
        && let Ok(map) = sys::map(&file)
    {
        if map.starts_with(b"\xFF\xFE") || map.starts_with(b"\xFE\xFF") {
            *buf = transcode_utf16(&map);
            return Ok((Some(id), Haystack::Buffer(buf)));
        }
        let start = if map.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        return Ok((Some(id), Haystack::Mapped { map, start }));
    }
    let n = read_exact_size(&file, id.len, have, buf).map_err(|e| Error::io(path, e))?;
    Ok((Some(id), text_of(buf, n)))
}

/// Opens `path` for reading without ever blocking: a FIFO swapped in for a file opens at once
/// (and is then refused by [`regular_identity`]).
fn open_nonblocking(path: &Path) -> Result<File> {
    let flags = libc::O_RDONLY | libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY;
    // Every path the engine opens is canonical (resolved inside the roots), so a symbolic link
    // anywhere in it was swapped in after the check: refuse it (openat2 RESOLVE_NO_SYMLINKS;
    // on kernels without openat2, O_NOFOLLOW guards the last component).
    let opened = match sys::open_no_symlinks(path, flags) {
        Some(r) => r,
        None => std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags | libc::O_NOFOLLOW)
            .open(path),
    };
    opened.map_err(|e| match std::fs::metadata(path) {
        // Sockets cannot be opened at all (ENXIO): say what they are.
        Ok(md) if !md.is_file() => Error::NotAFile {
            path: path.to_path_buf(),
            kind: file_kind(&md),
        },
        _ => Error::io(path, e),
    })
}

/// The identity of an opened file, which must be a regular file.
fn regular_identity(file: &File, path: &Path) -> Result<FileId> {
    let md = file.metadata().map_err(|e| Error::io(path, e))?;
    if !md.is_file() {
        return Err(Error::NotAFile {
            path: path.to_path_buf(),
            kind: file_kind(&md),
        });
    }
    Ok(FileId::from_metadata(&md))
}

/// The first read of [`load`]'s fast path.
const FIRST_READ: usize = 64 * 1024;

/// `buf[..n]` as text: UTF-8 BOM skipped, UTF-16 transcoded (into `buf`).
fn text_of(buf: &mut Vec<u8>, n: usize) -> Haystack<'_> {
    let data = &buf[..n];
    if data.starts_with(b"\xFF\xFE") || data.starts_with(b"\xFE\xFF") {
        *buf = transcode_utf16(data);
        return Haystack::Buffer(buf);
    }
    let start = if data.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    Haystack::Buffer(&buf[start..n])
}

/// One `read`, retried on EINTR.
fn read_some(mut file: &File, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match file.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}

impl SourceOptions {
    /// Options for searching many files: read (never map) below `mmap_threshold`, and fstat
    /// only when `identity` is needed or the file is large.
    pub fn for_search(mmap_threshold: u64, identity: bool) -> SourceOptions {
        SourceOptions {
            mmap_threshold,
            identity,
        }
    }
}

/// Reads a file whose size fstat gave into `buf` with the fewest system calls and returns how
/// many bytes it read: one `read` for the size fstat reported (the bytes as of that moment; a
/// concurrent append is not chased), where `read_to_end` would stat and seek again and issue
/// a final empty read. A file that reports size 0 gets one read anyway (pseudo files). `buf`
/// is kept fully initialised and only ever grows, so a buffer reused across files is never
/// zeroed again; the file's bytes are `buf[..n]`.
fn read_exact_size(file: &File, len: u64, have: usize, buf: &mut Vec<u8>) -> io::Result<usize> {
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    let want = if len == 0 { 64 * 1024 } else { len.max(have) };
    if buf.len() < want {
        buf.resize(want, 0);
    }
    let mut n = have;
    while n < want {
        match read_some(file, &mut buf[n..want])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

fn read_all(mut file: &File, len: u64, path: &Path) -> Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(usize::try_from(len).unwrap_or(0).saturating_add(1));
    file.read_to_end(&mut buf).map_err(|e| Error::io(path, e))?;
    Ok(buf)
}

/// A short human name for a non-regular file type, used in error messages.
pub fn file_kind(md: &Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
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

fn transcode_utf16(raw: &[u8]) -> Vec<u8> {
    let little = raw.starts_with(b"\xFF\xFE");
    let units = raw[2..].chunks(2).map(|c| {
        let pair = [c[0], *c.get(1).unwrap_or(&0)];
        if little {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    let mut out = String::with_capacity(raw.len() / 2);
    for ch in char::decode_utf16(units) {
        out.push(ch.unwrap_or(char::REPLACEMENT_CHARACTER));
    }
    out.into_bytes()
}

/// An exclusive advisory lock (`flock(LOCK_EX)`) on one file, held until it is dropped (its
/// descriptor closed). Every mapgrep process takes it before it reads a file it is about to
/// replace; programs that do not ask for it are not stopped by it (see [`lock_file`]).
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
        while !sys::try_lock_exclusive(&file).map_err(|e| Error::io(path, e))? {
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            std::thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(Duration::from_millis(20));
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
    let mode = md.mode() & 0o7777;
    if mode & 0o200 == 0 {
        return Err(Error::ReadOnly {
            path: path.to_path_buf(),
            reason: format!("its mode is {mode:04o}, which gives its owner no write permission"),
        });
    }
    match sys::access_write(path) {
        Ok(()) => Ok(()),
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::EACCES | libc::EPERM | libc::EROFS | libc::ETXTBSY)
            ) =>
        {
            Err(Error::ReadOnly {
                path: path.to_path_buf(),
                reason: format!(
                    "this server's user may not write it (mode {mode:04o}, owner uid {} gid {}): {e}",
                    md.uid(),
                    md.gid()
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
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);

    let io_err = |e: io::Error| Error::io(path, e);
    let (Some(dir_path), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(Error::InvalidPath {
            path: path.display().to_string(),
            reason: "not a file path".into(),
        });
    };
    let dir_flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
    let dir = match sys::open_no_symlinks(dir_path, dir_flags) {
        Some(r) => r,
        None => std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(dir_flags | libc::O_NOFOLLOW)
            .open(dir_path),
    }
    .map_err(io_err)?;
    let read_flags = libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // The file as it is now, opened through the directory: it must still be the one read.
    let current = sys::open_at(&dir, name, read_flags, 0).map_err(io_err)?;
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
    let mode = md.mode() & 0o7777;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(
        ".mapgrep-{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let tmp_name = std::path::PathBuf::from(tmp_name);
    let tmp_name = tmp_name.as_os_str();
    let mut tmp = sys::open_at(
        &dir,
        tmp_name,
        libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        mode,
    )
    .map_err(io_err)?;
    let written = (|| -> Result<Metadata> {
        tmp.write_all(bytes).map_err(io_err)?;
        // The owner and group first: changing them clears set-user-ID and set-group-ID bits.
        let made = tmp.metadata().map_err(io_err)?;
        if (made.uid(), made.gid()) != (md.uid(), md.gid()) {
            match sys::fchown(&tmp, md.uid(), md.gid()) {
                Ok(()) => {}
                Err(e) if e.raw_os_error() == Some(libc::EPERM) => {
                    return Err(Error::ReadOnly {
                        path: path.to_path_buf(),
                        reason: format!(
                            "it belongs to uid {} gid {}, and this server's user (uid {} gid {}) cannot give a new file that owner and group: replacing it would change who owns it",
                            md.uid(),
                            md.gid(),
                            made.uid(),
                            made.gid()
                        ),
                    });
                }
                Err(e) => return Err(io_err(e)),
            }
        }
        // The creation mode was filtered through the umask: set the original bits exactly.
        tmp.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(mode))
            .map_err(io_err)?;
        tmp.sync_all().map_err(io_err)?;
        // Last look before the rename: another writer that does not take the lock (an editor)
        // may have replaced the file since it was read.
        let now = sys::open_at(&dir, name, read_flags, 0).map_err(io_err)?;
        if FileId::from_metadata(&now.metadata().map_err(io_err)?) != expected {
            return Err(Error::Changed {
                path: path.to_path_buf(),
            });
        }
        sys::rename_at(&dir, tmp_name, name).map_err(io_err)?;
        let _ = dir.sync_all();
        // The identity as it is now (a rename may touch the change time).
        sys::open_at(&dir, name, read_flags, 0)
            .and_then(|f| f.metadata())
            .map_err(io_err)
    })();
    match written {
        Ok(md) => Ok(FileId::from_metadata(&md)),
        Err(e) => {
            let _ = sys::unlink_at(&dir, tmp_name);
            Err(e)
        }
    }
}

#[allow(unsafe_code)]
mod sys {
    //! System calls that need `unsafe`: the memory map (and the SIGBUS guard that keeps a
    //! truncated mapping from killing the process), `openat2`, the `*at` calls, `fchown` and
    //! `faccessat` of [`super::replace_file`], and the `flock` of [`super::lock_file`]. The
    //! crate's only `unsafe` code.

    use std::ffi::CString;
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    use std::sync::Once;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use memmap2::{Advice, Mmap};

    /// Opens `path` with `flags`, failing with ELOOP if any component is a symbolic link.
    /// `None` when the kernel has no `openat2` (before Linux 5.6).
    pub(super) fn open_no_symlinks(path: &Path, flags: i32) -> Option<io::Result<File>> {
        let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) else {
            return Some(Err(io::Error::from(io::ErrorKind::InvalidInput)));
        };
        // SAFETY: `open_how` is a plain C struct of integers, for which all-zero is valid.
        let mut how: libc::open_how = unsafe { std::mem::zeroed() };
        how.flags = flags as u64;
        how.resolve = libc::RESOLVE_NO_SYMLINKS;
        // SAFETY: the path is a NUL-terminated string and `how` a valid `open_how` that both
        // outlive the call; the size passed is the size of that struct.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                libc::AT_FDCWD,
                c_path.as_ptr(),
                &how as *const libc::open_how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if fd < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::ENOSYS) | Some(libc::EPERM) => None,
                _ => Some(Err(e)),
            };
        }
        // SAFETY: `fd` is a new descriptor that nothing else owns.
        Some(Ok(unsafe { File::from_raw_fd(fd as i32) }))
    }

    fn c_name(name: &std::ffi::OsStr) -> io::Result<CString> {
        CString::new(name.as_bytes()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
    }

    /// `openat(dir, name, flags, mode)`: opens a name inside an opened directory.
    pub(super) fn open_at(
        dir: &File,
        name: &std::ffi::OsStr,
        flags: i32,
        mode: u32,
    ) -> io::Result<File> {
        let c_name = c_name(name)?;
        // SAFETY: `dir` is an open descriptor and `c_name` a NUL-terminated string, both alive
        // for the call; `mode` is passed as the variadic `mode_t` argument openat expects.
        let fd = unsafe {
            libc::openat(
                dir.as_raw_fd(),
                c_name.as_ptr(),
                flags,
                mode as libc::c_uint,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is a new descriptor that nothing else owns.
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    /// `renameat(dir, from, dir, to)`: atomically replaces `to` with `from` in one directory.
    pub(super) fn rename_at(
        dir: &File,
        from: &std::ffi::OsStr,
        to: &std::ffi::OsStr,
    ) -> io::Result<()> {
        let (c_from, c_to) = (c_name(from)?, c_name(to)?);
        // SAFETY: `dir` is an open descriptor and both names NUL-terminated strings alive for
        // the call.
        let rc = unsafe {
            libc::renameat(
                dir.as_raw_fd(),
                c_from.as_ptr(),
                dir.as_raw_fd(),
                c_to.as_ptr(),
            )
        };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// `flock(file, LOCK_EX | LOCK_NB)`: `Ok(true)` if the exclusive lock is now held through
    /// this descriptor, `Ok(false)` if another descriptor holds a lock on the file.
    pub(super) fn try_lock_exclusive(file: &File) -> io::Result<bool> {
        loop {
            // SAFETY: `file` is an open descriptor for the duration of the call; flock takes
            // no pointers.
            let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if rc == 0 {
                return Ok(true);
            }
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EWOULDBLOCK) => return Ok(false),
                Some(libc::EINTR) => {}
                _ => return Err(e),
            }
        }
    }

    /// `fchown(file, uid, gid)`.
    pub(super) fn fchown(file: &File, uid: u32, gid: u32) -> io::Result<()> {
        // SAFETY: `file` is an open descriptor for the duration of the call; fchown takes no
        // pointers.
        let rc = unsafe { libc::fchown(file.as_raw_fd(), uid, gid) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// `faccessat(AT_FDCWD, path, W_OK, AT_EACCESS)`: whether this process (its effective
    /// user and groups) may write the file at `path`.
    pub(super) fn access_write(path: &Path) -> io::Result<()> {
        let c_path = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        // SAFETY: `c_path` is a NUL-terminated string alive for the call.
        let rc = unsafe {
            libc::faccessat(
                libc::AT_FDCWD,
                c_path.as_ptr(),
                libc::W_OK,
                libc::AT_EACCESS,
            )
        };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// `unlinkat(dir, name, 0)`: removes a file from an opened directory.
    pub(super) fn unlink_at(dir: &File, name: &std::ffi::OsStr) -> io::Result<()> {
        let c_name = c_name(name)?;
        // SAFETY: `dir` is an open descriptor and `c_name` a NUL-terminated string alive for
        // the call.
        let rc = unsafe { libc::unlinkat(dir.as_raw_fd(), c_name.as_ptr(), 0) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// How many mappings may be alive at once; beyond that files are read instead.
    const SLOTS: usize = 1024;

    /// One live mapping's address range, and whether a truncation hit it.
    struct Slot {
        start: AtomicUsize,
        end: AtomicUsize,
        faulted: AtomicBool,
    }

    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY: Slot = Slot {
        start: AtomicUsize::new(0),
        end: AtomicUsize::new(0),
        faulted: AtomicBool::new(false),
    };

    /// The live mappings, read by the SIGBUS handler (atomics only: async-signal-safe).
    static MAPPINGS: [Slot; SLOTS] = [EMPTY; SLOTS];
    static PAGE: AtomicUsize = AtomicUsize::new(4096);
    static INSTALL: Once = Once::new();
    /// The SIGBUS disposition before ours, to hand faults that are not ours to.
    static mut PREVIOUS: Option<libc::sigaction> = None;

    /// A read-only file mapping registered with the SIGBUS guard.
    ///
    /// If the file is truncated while mapped, reading a page past its new end raises SIGBUS.
    /// The guard's handler checks that the faulting address lies in a registered mapping,
    /// maps an anonymous zero page over that page (so the read retries and sees zeros), marks
    /// the mapping as faulted and returns; [`Mapping::faulted`] tells the reader to discard
    /// what it computed. A fault anywhere else goes to the previous handler (or the default
    /// action), as if the guard were not there.
    pub struct Mapping {
        // Field order matters: the map is unmapped before its slot is released.
        map: Mmap,
        slot: SlotGuard,
        /// The mapped file and its identity when mapped, to see whether it changed.
        file: File,
        id: super::FileId,
    }

    struct SlotGuard(usize);

    impl Drop for SlotGuard {
        fn drop(&mut self) {
            let slot = &MAPPINGS[self.0];
            slot.end.store(0, Ordering::Release);
            slot.faulted.store(false, Ordering::Release);
            slot.start.store(0, Ordering::Release);
        }
    }

    impl Mapping {
        /// Whether the file changed under this mapping since it was made: a page past a new
        /// end was read (caught by the guard), or the file's identity (size, modification and
        /// change time) is no longer the one it had when mapped — a shrink that did not fault
        /// shows up as zeros in the tail of the last page.
        pub fn faulted(&self) -> bool {
            MAPPINGS[self.slot.0].faulted.load(Ordering::Acquire)
                || self
                    .file
                    .metadata()
                    .map_or(true, |md| super::FileId::from_metadata(&md) != self.id)
        }

        /// Populates the page tables of the whole mapping in one call (see
        /// [`super::Source::prefault`]).
        pub fn populate(&self) {
            let _ = self.map.advise(Advice::PopulateRead);
        }
    }

    impl std::ops::Deref for Mapping {
        type Target = [u8];
        fn deref(&self) -> &[u8] {
            &self.map
        }
    }

    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for a handler installed with SA_SIGINFO.
        let addr = unsafe { (*info).si_addr() } as usize;
        let page = PAGE.load(Ordering::Relaxed);
        for slot in &MAPPINGS {
            let start = slot.start.load(Ordering::Acquire);
            if start == 0 || addr < start || addr >= slot.end.load(Ordering::Acquire) {
                continue;
            }
            let at = addr & !(page - 1);
            // SAFETY: `at` is a page inside a live read-only mapping of ours (the slot is
            // released only after the map is unmapped); replacing that page with an anonymous
            // zero page changes what the reader sees, never memory anything else owns. mmap is
            // a plain system call, safe to make in a signal handler.
            let p = unsafe {
                libc::mmap(
                    at as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if p != libc::MAP_FAILED {
                slot.faulted.store(true, Ordering::Release);
                return;
            }
        }
        // Not ours: behave as if we were not installed.
        // SAFETY: PREVIOUS is written once, before the handler is installed.
        let previous = unsafe { *std::ptr::addr_of!(PREVIOUS) };
        match previous {
            Some(prev)
                if prev.sa_sigaction != libc::SIG_DFL && prev.sa_sigaction != libc::SIG_IGN =>
            {
                if prev.sa_flags & libc::SA_SIGINFO != 0 {
                    // SAFETY: a handler installed with SA_SIGINFO has this signature.
                    let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                        unsafe { std::mem::transmute(prev.sa_sigaction) };
                    f(sig, info, ctx);
                } else {
                    // SAFETY: a plain handler takes the signal number.
                    let f: extern "C" fn(libc::c_int) =
                        unsafe { std::mem::transmute(prev.sa_sigaction) };
                    f(sig);
                }
            }
            _ => {
                // Restore the default action; returning re-runs the access, which now kills
                // the process as a SIGBUS would have.
                // SAFETY: a zeroed sigaction with SIG_DFL is a valid disposition.
                unsafe {
                    let mut dfl: libc::sigaction = std::mem::zeroed();
                    dfl.sa_sigaction = libc::SIG_DFL;
                    libc::sigaction(libc::SIGBUS, &dfl, std::ptr::null_mut());
                }
            }
        }
    }

    fn install() -> bool {
        static OK: AtomicBool = AtomicBool::new(false);
        INSTALL.call_once(|| {
            // SAFETY: sysconf has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            if page > 0 {
                PAGE.store(page as usize, Ordering::Relaxed);
            }
            // SAFETY: a zeroed sigaction is a valid starting value; the handler has the
            // SA_SIGINFO signature; `old` receives the previous disposition, stored before
            // any fault can reach our handler that reads it (Once orders the writes).
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old) != 0 {
                    return;
                }
                *std::ptr::addr_of_mut!(PREVIOUS) = Some(old);
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = on_sigbus as *const () as usize;
                act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
                libc::sigemptyset(&mut act.sa_mask);
                if libc::sigaction(libc::SIGBUS, &act, std::ptr::null_mut()) == 0 {
                    OK.store(true, Ordering::Release);
                }
            }
        });
        OK.load(Ordering::Acquire)
    }

    /// Maps `file` read-only, registered with the SIGBUS guard (see [`Mapping`]). Fails (and
    /// the caller reads the file instead) if the guard cannot be installed or every slot is
    /// taken.
    ///
    /// # Safety
    ///
    /// This function is safe to call, but it wraps `Mmap::map`, whose contract is that the
    /// mapped file must not be modified or truncated while the map is alive: a write shows up
    /// in the slice (the bytes are not a snapshot) and a truncation makes access past the new
    /// end raise SIGBUS. mapgrep accepts the first (every reader re-checks the file identity
    /// and tolerates arbitrary bytes) and turns the second into zeros plus a "changed" flag
    /// with the guard; it maps only regular files, for the duration of one call.
    pub(super) fn map(file: &File) -> io::Result<Mapping> {
        let file = file.try_clone()?;
        let id = super::FileId::from_metadata(&file.metadata()?);
        if !install() {
            return Err(io::Error::other("no SIGBUS guard"));
        }
        // SAFETY: `file` is an open regular file (checked by the caller with fstat) and the
        // map is read-only and private to this process; see the function docs for the
        // concurrent-modification contract.
        let map = unsafe { Mmap::map(&file)? };
        let _ = map.advise(Advice::Sequential);
        let start = map.as_ptr() as usize;
        let end = start + map.len();
        for (i, slot) in MAPPINGS.iter().enumerate() {
            if slot
                .start
                .compare_exchange(0, usize::MAX, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                // Claimed (start = MAX matches no address); publish the range.
                slot.faulted.store(false, Ordering::Release);
                slot.end.store(end, Ordering::Release);
                slot.start.store(start, Ordering::Release);
                return Ok(Mapping {
                    map,
                    slot: SlotGuard(i),
                    file,
                    id,
                });
            }
        }
        Err(io::Error::other("too many live mappings"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer truncates and regrows a mapped file 1,000 times while readers map it and
    /// touch every page: the process survives (no SIGBUS death), and every read either saw
    /// only real bytes or reports the change.
    #[test]
    fn truncation_under_a_mapping_is_caught_not_fatal() {
        use std::io::Write;
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        let full: Vec<u8> = (0..100_000)
            .flat_map(|i| format!("line {i:06}\n").into_bytes())
            .collect();
        std::fs::write(&path, &full).unwrap();
        let opts = SourceOptions {
            mmap_threshold: 1,
            identity: true,
        };
        let done = AtomicBool::new(false);
        let (caught, clean, reads) = (
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        );
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    while !done.load(Ordering::Relaxed) {
                        let Ok(src) = Source::open(&path, &opts) else {
                            continue;
                        };
                        // Touch every page, as a search or an outline parse does.
                        let zeros = src.bytes().iter().filter(|&&b| b == 0).count();
                        reads.fetch_add(1, Ordering::Relaxed);
                        match src.check_intact() {
                            Err(Error::Changed { .. }) => {
                                caught.fetch_add(1, Ordering::Relaxed);
                            }
                            Err(e) => panic!("unexpected error {e}"),
                            Ok(()) => {
                                assert_eq!(zeros, 0, "zeros served from a mapping not flagged");
                                clean.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                });
            }
            for _ in 0..1000 {
                let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                f.set_len(4096).unwrap();
                std::thread::yield_now();
                let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                f.write_all(&full).unwrap();
            }
            done.store(true, Ordering::Relaxed);
        });
        let (caught, clean) = (caught.into_inner(), clean.into_inner());
        eprintln!(
            "{} reads: {clean} clean, {caught} caught a truncation",
            reads.into_inner()
        );
        assert!(clean > 0);
        // A fresh open after the writer stopped sees the whole file again.
        let src = Source::open(&path, &opts).unwrap();
        assert_eq!(src.bytes(), &full[..]);
        assert!(src.check_intact().is_ok());
    }

    #[test]
    fn a_symlink_anywhere_in_an_opened_path_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("real")).unwrap();
        std::fs::write(base.join("real/f.txt"), "x\n").unwrap();
        std::os::unix::fs::symlink(base.join("real"), base.join("link")).unwrap();
        std::os::unix::fs::symlink(base.join("real/f.txt"), base.join("flink")).unwrap();
        let opts = SourceOptions::default();
        assert!(Source::open(&base.join("real/f.txt"), &opts).is_ok());
        for p in ["link/f.txt", "flink"] {
            match Source::open(&base.join(p), &opts) {
                Err(Error::InvalidPath { .. }) => {}
                other => panic!("{p}: expected a refusal, got {other:?}"),
            }
        }
    }

    #[test]
    fn non_regular_files_are_refused_without_blocking() {
        let opts = SourceOptions::default();
        for p in ["/dev/zero", "/dev/null", "/"] {
            assert!(matches!(
                Source::open(Path::new(p), &opts),
                Err(Error::NotAFile { .. })
            ));
        }
    }

    #[test]
    fn a_panic_over_a_mapping_is_a_changed_file_over_owned_bytes_a_bug() {
        let path = Path::new("f.txt");
        assert_eq!(guard_mapped(true, path, || 7).unwrap(), 7);
        // (Each panic below prints its message: expected.)
        let e = guard_mapped(true, path, || -> u32 {
            panic!("reverse search must match if forward search does")
        })
        .unwrap_err();
        assert!(matches!(e, Error::Changed { .. }), "{e:?}");
        let unwound = std::panic::catch_unwind(|| {
            let _ = guard_mapped(false, path, || -> u32 { panic!("a bug") });
        });
        assert!(unwound.is_err());
    }
}
