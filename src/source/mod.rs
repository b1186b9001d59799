//! `Source`: the bytes of one opened regular file, memory-mapped or read, behind one type.
//!
//! The system calls behind it are the platform layer's ([`crate::platform`]: the open that
//! refuses links out of the roots, the memory map and its fault guard, identities); `write`
//! replaces a file safely ([`replace_file`], [`lock_file`]). Everything else sees a `&[u8]`. The module also
//! classifies the bytes once, at open time: binary (a NUL byte in the first 64 KiB), UTF-8
//! with a byte-order mark, or UTF-16 with a byte-order mark (transcoded to UTF-8 so that line
//! indexing and searching work on one encoding).

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::error::{Error, Result};
use crate::platform;
pub use crate::platform::{FileId, Opener};

/// How many leading bytes are inspected for a NUL byte to call a file binary.
pub const BINARY_PROBE_LEN: usize = 64 * 1024;

/// Whether a file whose bytes are `bytes` is binary: a NUL byte in its first
/// [`BINARY_PROBE_LEN`] bytes. The one test of every tool (reads, grep, the index).
#[inline]
pub fn looks_binary(bytes: &[u8]) -> bool {
    memchr::memchr(0, &bytes[..bytes.len().min(BINARY_PROBE_LEN)]).is_some()
}

/// How recent a modification makes a file's identity unreliable for caching.
pub const RACY_WINDOW: std::time::Duration = std::time::Duration::from_secs(2);

/// Files at least this large are memory-mapped by default; smaller ones are read.
pub const DEFAULT_MMAP_THRESHOLD: u64 = 256 * 1024;

impl FileId {
    /// The identity of `md` (the metadata of an opened file, or of a path).
    pub fn from_metadata(md: &Metadata) -> FileId {
        platform::stamp(md)
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
    Mapped(platform::Mapping),
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
            match platform::map(&file) {
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

    /// The file at `path` as a search read it, `text` being its bytes as [`Source::bytes`]
    /// gives them (after a UTF-8 byte-order mark, UTF-16 transcoded) and `id` its identity
    /// then: for a pass over bytes already in hand (they are copied; nothing is opened).
    pub fn adopt(path: &Path, id: FileId, text: &[u8]) -> Source {
        Source {
            path: path.to_path_buf(),
            id,
            encoding: if looks_binary(text) {
                Encoding::Binary
            } else {
                Encoding::Utf8
            },
            bytes: Bytes::Owned(text.to_vec()),
            start: 0,
        }
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
            if looks_binary(raw) {
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

    /// `Err` if the file is binary (shown as `path`): `Changed` when it only looked binary
    /// because it shrank under its mapping while it was sniffed (the pages past the new end
    /// read as zeros), else `Binary`.
    pub fn refuse_binary(&self, path: impl Into<PathBuf>) -> Result<()> {
        if !self.is_binary() {
            return Ok(());
        }
        self.check_intact()?;
        Err(Error::Binary { path: path.into() })
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
        self.intact_unless(platform::Mapping::faulted)
    }

    /// [`Source::check_intact`] for a file that is only ever replaced, never rewritten (an
    /// index segment): an unlink or a new link of the file is no change of its bytes.
    pub fn check_intact_immutable(&self) -> Result<()> {
        self.intact_unless(platform::Mapping::cut_or_rewritten)
    }

    fn intact_unless(&self, changed: fn(&platform::Mapping) -> bool) -> Result<()> {
        match &self.bytes {
            Bytes::Mapped(m) if changed(m) => Err(Error::Changed {
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
///
/// Only regex searches run under it (grep, a read up to a pattern, the section content
/// search): that is the panic it exists for. Parsers do not (see
/// [`crate::workspace::Workspace::parsed`]: a copy, or a parser that tolerates any bytes), so
/// a bug in a parse is never mistaken for a changed file.
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
    Mapped {
        map: platform::Mapping,
        start: usize,
    },
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
    load_from(open_nonblocking(path)?, path, opts, buf)
}

/// [`load`] for one of many files (a walk's): opened through `opener`, which keeps the last
/// file's directory open for the next file in it.
pub fn load_in<'a>(
    opener: &mut Opener,
    path: &Path,
    opts: &SourceOptions,
    buf: &'a mut Vec<u8>,
) -> Result<(Option<FileId>, Haystack<'a>)> {
    let file = opener.open_read(path).map_err(|e| open_error(path, e))?;
    load_from(file, path, opts, buf)
}

/// Loads the opened `file` (at `path`) as [`load`] says.
fn load_from<'a>(
    file: File,
    path: &Path,
    opts: &SourceOptions,
    buf: &'a mut Vec<u8>,
) -> Result<(Option<FileId>, Haystack<'a>)> {
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
        && let Ok(map) = platform::map(&file)
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
    // Every path the engine opens is canonical (resolved inside the roots), so a symbolic link
    // in it was swapped in after the check: the platform's open refuses it (see
    // `platform::open_read`).
    platform::open_read(path).map_err(|e| open_error(path, e))
}

/// The error of a failed open of `path`.
fn open_error(path: &Path, e: io::Error) -> Error {
    match std::fs::metadata(path) {
        // Sockets cannot be opened at all (ENXIO): say what they are.
        Ok(md) if !md.is_file() => Error::NotAFile {
            path: path.to_path_buf(),
            kind: file_kind(&md),
        },
        _ => Error::io(path, e),
    }
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
    platform::file_kind(md)
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

mod write;
pub use write::{FileLock, check_writable, lock_file, replace_file};

pub use crate::platform::{map_large_allocations, release_free_memory};

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer truncates and regrows a mapped file 1,000 times while readers map it and
    /// touch every page: the process survives (no SIGBUS death), and every read either saw
    /// only real bytes or reports the change.
    #[test]
    #[cfg(unix)] // Windows refuses to truncate a mapped file.
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
        let symlink = crate::platform::test_support::symlink;
        symlink(base.join("real"), base.join("link")).unwrap();
        symlink(base.join("real/f.txt"), base.join("flink")).unwrap();
        let opts = SourceOptions::default();
        assert!(Source::open(&base.join("real/f.txt"), &opts).is_ok());
        // Linux's `openat2(RESOLVE_NO_SYMLINKS)` refuses a link in any component; the portable
        // sandbox (cap-std) refuses a link as the last component (and any that leaves a root:
        // `roots::tests`, `tests/it/sandbox.rs`).
        let refused: &[&str] = if crate::platform::SANDBOX == "linux" {
            &["link/f.txt", "flink"]
        } else {
            &["flink"]
        };
        for &p in refused {
            match Source::open(&base.join(p), &opts) {
                Err(Error::InvalidPath { .. }) => {}
                other => panic!("{p}: expected a refusal, got {other:?}"),
            }
        }
    }

    #[test]
    #[cfg(unix)]
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
