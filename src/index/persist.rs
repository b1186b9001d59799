//! The segment files: their layout, how one is written (a private temporary file renamed
//! into place) and how it is opened (mapped, checked before use). The directory that holds
//! a root's segments and their manifest is in [`super::store`].
//!
//! Layout of a segment file, little-endian:
//!
//! ```text
//! magic "MGTRIDX6"
//! blocks        each: its posting lists, then its table (trigram u32, offset u32, count
//!               u32)…; a list holds document ids (a file is one document, or one per
//!               piece): the ids with next masks, the others, then the masks (see
//!               `trigram::ListBuilder`)
//! files         count, then per file: path (relative), identity, flags, piece count,
//!               then each piece's start offset and first line (u64 each); a file with
//!               the flag "gone" says the path no longer holds an indexed file
//! dirs          count, then per directory (relative): path, then 1 (walked) or 0 (gone)
//! root          the canonical root the segment describes
//! block list    count, then per block: table offset and entries, postings offset and
//!               length, first and end document
//! page sums     a checksum (u32) of every 256-byte page of the bytes before them
//! tail          offset of `files`, offset of the page sums, checksum of every byte before
//!               the checksum, "MGTRIEND"
//! ```
//!
//! A file is refused (and the index rebuilt) unless: it is a regular file owned by this
//! user and writable by no one else, both magics are there, the checksum of all its bytes
//! matches, every offset is in bounds, every path is relative and stays inside the root
//! (no `..`, `.`, empty or absolute component), and its root is the root asked for. The
//! checksum is not a signature: the protection against a planted file is the private
//! directory and the owner and mode checks; the checksum catches a damaged or cut file.
//! Whatever an index says, the files it names are only searched after the usual path
//! checks, and a file whose identity differs from the one recorded is searched directly.
//!
//! What is read of a segment after it was opened (the tables and posting lists a search
//! reads through the mapping) is checked against the page sums by the search that read it
//! (see `eval`): a byte changed in place after the segment was checked is seen there.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::checksum::{self, Hasher, PageSums, checksum};
use super::{Block, FileEntry, Ident, Piece};

pub(super) const MAGIC: &[u8; 8] = b"MGTRIDX6";
const END_MAGIC: &[u8; 8] = b"MGTRIEND";
const TAIL: usize = 8 + 8 + 8 + 8;
/// Bytes of one trigram table entry.
pub(super) const ENTRY: usize = 12;

/// Why an index file was not used.
#[derive(Debug, thiserror::Error)]
pub enum IndexFileError {
    #[error("cannot read index file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("index file {path} refused: {why}")]
    Refused { path: PathBuf, why: String },
}

pub(super) fn refused(path: &Path, why: impl Into<String>) -> IndexFileError {
    IndexFileError::Refused {
        path: path.to_path_buf(),
        why: why.into(),
    }
}

/// Writes a segment: blocks as they are built, then the file list and the tail.
pub(super) struct Writer<W: Write> {
    out: W,
    pos: u64,
    hash: Hasher,
    pages: PageSums,
    blocks: Vec<Block>,
}

#[cfg(test)]
impl Writer<Vec<u8>> {
    pub(super) fn in_memory() -> Writer<Vec<u8>> {
        Writer::new(Vec::new()).expect("writing to memory")
    }
}

impl<W: Write> Writer<W> {
    pub(super) fn new(out: W) -> std::io::Result<Writer<W>> {
        let mut w = Writer {
            out,
            pos: 0,
            hash: Hasher::default(),
            pages: PageSums::default(),
            blocks: Vec::new(),
        };
        w.put(MAGIC)?;
        Ok(w)
    }

    fn put(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.pages.update(b);
        self.put_unpaged(b)
    }

    /// Writes bytes that no page sum covers (the sums and the tail).
    fn put_unpaged(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.out.write_all(b)?;
        self.hash.update(b);
        self.pos += b.len() as u64;
        Ok(())
    }

    /// Appends one block: its posting bytes and sorted table, for documents `first..end`.
    pub(super) fn block(
        &mut self,
        table: &[(u32, u32, u32)],
        postings: &[u8],
        first: u32,
        end: u32,
    ) -> std::io::Result<()> {
        let post_off = self.postings(postings)?;
        self.end_block(table, post_off, first, end)
    }

    /// Appends posting bytes of the block being streamed (see [`Writer::end_block`]).
    pub(super) fn postings(&mut self, bytes: &[u8]) -> std::io::Result<u64> {
        let at = self.pos;
        self.put(bytes)?;
        Ok(at)
    }

    /// Ends a block whose posting lists were streamed from `post_off` by
    /// [`Writer::postings`] (the table, offsets relative to `post_off`, follows them).
    pub(super) fn end_block(
        &mut self,
        table: &[(u32, u32, u32)],
        post_off: u64,
        first: u32,
        end: u32,
    ) -> std::io::Result<()> {
        let post_len = self.pos - post_off;
        let table_off = self.pos;
        let mut buf = Vec::with_capacity(table.len() * ENTRY);
        for &(t, off, n) in table {
            buf.extend_from_slice(&t.to_le_bytes());
            buf.extend_from_slice(&off.to_le_bytes());
            buf.extend_from_slice(&n.to_le_bytes());
        }
        self.put(&buf)?;
        self.blocks.push(Block {
            table_off,
            entries: table.len() as u64,
            post_off,
            post_len,
            first,
            end,
        });
        Ok(())
    }

    /// Writes the file list, directories (each walked or gone), root and tail.
    pub(super) fn finish(
        mut self,
        files: &[FileEntry],
        dirs: &[(Box<[u8]>, bool)],
        root: &Path,
    ) -> std::io::Result<W> {
        let files_off = self.pos;
        let mut b = Vec::new();
        b.extend_from_slice(&(files.len() as u64).to_le_bytes());
        for f in files {
            put_bytes(&mut b, &f.path);
            for v in [f.id.dev, f.id.ino, f.id.len, f.id.mtime.0 as u64] {
                b.extend_from_slice(&v.to_le_bytes());
            }
            b.extend_from_slice(&f.id.mtime.1.to_le_bytes());
            b.extend_from_slice(&(f.id.ctime.0 as u64).to_le_bytes());
            b.extend_from_slice(&f.id.ctime.1.to_le_bytes());
            b.push(f.flags);
            b.extend_from_slice(&(f.pieces.len() as u32).to_le_bytes());
            for p in &f.pieces {
                b.extend_from_slice(&p.start.to_le_bytes());
                b.extend_from_slice(&p.line.to_le_bytes());
            }
        }
        b.extend_from_slice(&(dirs.len() as u64).to_le_bytes());
        for (d, walked) in dirs {
            put_bytes(&mut b, d);
            b.push(u8::from(*walked));
        }
        put_bytes(&mut b, root.as_os_str().as_encoded_bytes());
        b.extend_from_slice(&(self.blocks.len() as u64).to_le_bytes());
        for s in &self.blocks {
            for v in [s.table_off, s.entries, s.post_off, s.post_len] {
                b.extend_from_slice(&v.to_le_bytes());
            }
            b.extend_from_slice(&s.first.to_le_bytes());
            b.extend_from_slice(&s.end.to_le_bytes());
        }
        self.put(&b)?;
        let sums_off = self.pos;
        let sums = std::mem::take(&mut self.pages).finish();
        let mut b: Vec<u8> = sums.iter().flat_map(|s| s.to_le_bytes()).collect();
        b.extend_from_slice(&files_off.to_le_bytes());
        b.extend_from_slice(&sums_off.to_le_bytes());
        self.put_unpaged(&b)?;
        let sum = self.hash.finish();
        let mut tail = Vec::with_capacity(16);
        tail.extend_from_slice(&sum.to_le_bytes());
        tail.extend_from_slice(END_MAGIC);
        self.put_unpaged(&tail)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

fn put_bytes(b: &mut Vec<u8>, s: &[u8]) {
    b.extend_from_slice(&(s.len() as u32).to_le_bytes());
    b.extend_from_slice(s);
}

/// Directories (relative paths, sorted), each with whether the walk entered it.
pub(super) type Dirs = Vec<(Box<[u8]>, bool)>;

/// Reads the parts of an index file's bytes after its checks.
pub(super) struct Parsed {
    pub(super) files: Vec<FileEntry>,
    /// The first document of each file, then the total.
    pub(super) docs: Vec<u32>,
    pub(super) dirs: Dirs,
    pub(super) root: PathBuf,
    pub(super) blocks: Vec<Block>,
    /// The checksum in its tail.
    pub(super) sum: u64,
    /// Where its page sums start (the bytes before are paged).
    pub(super) sums_off: usize,
}

struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cur<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.b.get(self.i..self.i.checked_add(n)?)?;
        self.i += n;
        Some(s)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn bytes(&mut self) -> Option<Box<[u8]>> {
        let n = self.u32()? as usize;
        Some(self.take(n)?.into())
    }
}

/// Checks and parses an index's bytes (`path` names it in messages).
/// With `verify` false the checksum of every byte is not computed (a one-shot search that
/// would spend more on it than on its answer): the pages it parses (the file list and what
/// follows it) are checked against their sums, the tail, bounds and paths too, and the
/// caller compares the tail's checksum with the one its manifest records.
pub(super) fn parse(bytes: &[u8], path: &Path, verify: bool) -> Result<Parsed, IndexFileError> {
    if bytes.len() < MAGIC.len() + TAIL || &bytes[..8] != MAGIC {
        return Err(refused(path, "not a mapgrep index of this version"));
    }
    let tail = &bytes[bytes.len() - TAIL..];
    if &tail[24..] != END_MAGIC {
        return Err(refused(path, "cut short"));
    }
    let word = |i: usize| u64::from_le_bytes(tail[i..i + 8].try_into().expect("8"));
    let (files_off, sums_off, sum) = (word(0), word(8), word(16));
    let bad = || refused(path, "inconsistent layout");
    // The page sums fill the bytes between the pages and the tail.
    let pages = checksum::pages_of(0, sums_off).end;
    let sums_len = (bytes.len() - TAIL) as u64;
    if files_off > sums_off || sums_off.checked_add(pages * 4) != Some(sums_len) {
        return Err(bad());
    }
    let (files_off, sums_off) = (files_off as usize, sums_off as usize);
    if verify && checksum(&bytes[..bytes.len() - 16]) != sum {
        return Err(refused(path, "checksum mismatch (damaged or altered)"));
    }
    let parsed = metadata(&bytes[..sums_off], files_off, path);
    // Checked after it was parsed (the bytes are in the processor's caches then, and what
    // was parsed is used only if they pass): damage is said as such, whatever it broke.
    let meta = checksum::pages_of(files_off as u64, sums_off as u64);
    if !verify && !checksum::pages_match(bytes, sums_off, meta) {
        return Err(refused(path, "checksum mismatch (damaged or altered)"));
    }
    Ok(Parsed {
        sum,
        sums_off,
        ..parsed?
    })
}

/// What follows the blocks in `body` (from `files_off`): the file list, the directories,
/// the root and the block list (the tail's values left at 0).
fn metadata(body: &[u8], files_off: usize, path: &Path) -> Result<Parsed, IndexFileError> {
    let bad = || refused(path, "inconsistent layout");
    let mut c = Cur {
        b: body,
        i: files_off,
    };
    let (files, docs) = file_list(&mut c, path)?;
    let total = docs[docs.len() - 1];
    let dirs = dir_list(&mut c, path)?;
    let root = PathBuf::from(os_str(&c.bytes().ok_or_else(bad)?));
    let blocks = block_list(&mut c, files_off as u64, total, path)?;
    Ok(Parsed {
        files,
        docs,
        dirs,
        root,
        blocks,
        sum: 0,
        sums_off: 0,
    })
}

/// The file list, sorted by path, and each file's first document id (then the total).
fn file_list(c: &mut Cur<'_>, path: &Path) -> Result<(Vec<FileEntry>, Vec<u32>), IndexFileError> {
    let bad = || refused(path, "inconsistent layout");
    let n = c.u64().ok_or_else(bad)? as usize;
    let mut files = Vec::with_capacity(n.min(c.b.len() / 40));
    let mut docs = Vec::with_capacity(n.min(c.b.len() / 40) + 1);
    let mut total: u64 = 0;
    for _ in 0..n {
        let file = file_entry(c, path)?;
        let n_docs = file.pieces.len().max(1) as u64;
        total = total
            .checked_add(n_docs)
            .filter(|&t| t <= u64::from(u32::MAX))
            .ok_or_else(bad)?;
        docs.push((total - n_docs) as u32);
        files.push(file);
    }
    docs.push(total as u32);
    if !files.windows(2).all(|w| w[0].path < w[1].path) {
        return Err(bad());
    }
    Ok((files, docs))
}

/// One entry of the file list: path, identity, flags and pieces.
fn file_entry(c: &mut Cur<'_>, path: &Path) -> Result<FileEntry, IndexFileError> {
    let bad = || refused(path, "inconsistent layout");
    let p = c.bytes().ok_or_else(bad)?;
    if !inside(&p) {
        return Err(refused(path, "a path in it leaves the root"));
    }
    let mut v = [0u64; 4];
    for x in &mut v {
        *x = c.u64().ok_or_else(bad)?;
    }
    let mns = c.u32().ok_or_else(bad)?;
    let cs = c.u64().ok_or_else(bad)?;
    let cns = c.u32().ok_or_else(bad)?;
    let flags = c.take(1).ok_or_else(bad)?[0];
    let np = c.u32().ok_or_else(bad)? as usize;
    if np == 1 || np > c.b.len().saturating_sub(c.i) / 16 {
        return Err(bad());
    }
    let mut pieces = Vec::with_capacity(np);
    for _ in 0..np {
        let start = c.u64().ok_or_else(bad)?;
        let line = c.u64().ok_or_else(bad)?;
        pieces.push(Piece { start, line });
    }
    // Pieces start at 0 on line 1 and ascend within the file.
    if np > 0
        && (pieces[0] != (Piece { start: 0, line: 1 })
            || !pieces
                .windows(2)
                .all(|w| w[0].start < w[1].start && w[0].line < w[1].line)
            || pieces[np - 1].start >= v[2])
    {
        return Err(bad());
    }
    Ok(FileEntry {
        path: p,
        id: Ident {
            dev: v[0],
            ino: v[1],
            len: v[2],
            mtime: (v[3] as i64, mns),
            ctime: (cs as i64, cns),
        },
        flags,
        pieces: pieces.into(),
    })
}

/// The directory list, sorted, each with whether the walk entered it.
fn dir_list(c: &mut Cur<'_>, path: &Path) -> Result<Dirs, IndexFileError> {
    let bad = || refused(path, "inconsistent layout");
    let n = c.u64().ok_or_else(bad)? as usize;
    let mut dirs = Vec::with_capacity(n.min(c.b.len() / 4));
    for _ in 0..n {
        let d = c.bytes().ok_or_else(bad)?;
        if !inside(&d) {
            return Err(refused(path, "a path in it leaves the root"));
        }
        let walked = c.take(1).ok_or_else(bad)?[0] != 0;
        dirs.push((d, walked));
    }
    if !dirs.windows(2).all(|w| w[0].0 < w[1].0) {
        return Err(bad());
    }
    Ok(dirs)
}

/// The blocks of posting lists, each inside the body (before `files_off`) and within the
/// `total` documents.
fn block_list(
    c: &mut Cur<'_>,
    files_off: u64,
    total: u32,
    path: &Path,
) -> Result<Vec<Block>, IndexFileError> {
    let bad = || refused(path, "inconsistent layout");
    let n = c.u64().ok_or_else(bad)? as usize;
    let mut blocks = Vec::new();
    for _ in 0..n.min(1 << 16) {
        let s = Block {
            table_off: c.u64().ok_or_else(bad)?,
            entries: c.u64().ok_or_else(bad)?,
            post_off: c.u64().ok_or_else(bad)?,
            post_len: c.u64().ok_or_else(bad)?,
            first: c.u32().ok_or_else(bad)?,
            end: c.u32().ok_or_else(bad)?,
        };
        let table_end = s
            .entries
            .checked_mul(ENTRY as u64)
            .and_then(|l| l.checked_add(s.table_off));
        let post_end = s.post_off.checked_add(s.post_len);
        if table_end.is_none_or(|e| e > files_off)
            || post_end.is_none_or(|e| e > files_off)
            || s.first > s.end
            || s.end > total
        {
            return Err(bad());
        }
        blocks.push(s);
    }
    Ok(blocks)
}

/// Whether `rel` (a path read from an index file) names something inside the root: not
/// empty, not absolute, no empty, `.` or `..` component, no NUL.
pub(super) fn inside(rel: &[u8]) -> bool {
    !rel.is_empty()
        && !rel.contains(&0)
        && rel
            .split(|&b| b == b'/' || (cfg!(windows) && b == b'\\'))
            .all(|c| !c.is_empty() && c != b"." && c != b"..")
        && (!cfg!(windows) || rel.get(1) != Some(&b':'))
}

/// `rel` (bytes read from an index, checked relative) as a path component string.
pub(super) fn os_str(rel: &[u8]) -> &std::ffi::OsStr {
    crate::platform::os_str_from_bytes(rel)
}

/// Creates `dir` (and its parents) private to this user, or checks that an existing one is
/// owned by this user and not writable by others (see [`crate::platform::private_dir`]).
pub(super) fn private_dir(dir: &Path) -> std::io::Result<()> {
    crate::platform::private_dir(dir, false)
}

/// Checks that an index file may be trusted as this user's own: a regular file (not a
/// link), owned by this user, writable by no one else.
pub(super) fn check_owner(path: &Path) -> Result<(), IndexFileError> {
    let md = std::fs::symlink_metadata(path).map_err(|e| IndexFileError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    if !md.is_file() {
        return Err(refused(path, "not a regular file"));
    }
    crate::platform::check_private(&md).map_err(|why| refused(path, why))
}

/// Opens `path` for writing, created private (mode 0600) if missing, never truncated (a
/// lock file, a stamp).
pub(super) fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    crate::platform::private_file(path)
}

/// Removes the temporary files this process made in `dir` (`.<name>.<pid>.<n>.tmp`, see
/// [`temp_file`]).
pub(super) fn remove_own_temps(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let pid = std::process::id().to_string();
    for e in entries.flatten() {
        let n = e.file_name();
        let n = n.to_string_lossy();
        let Some(stem) = n.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
            continue;
        };
        if stem.rsplit('.').nth(1) == Some(pid.as_str()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// A temporary file beside `target`, private (mode 0600), created exclusively.
pub(super) fn temp_file(target: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    let dir = target.parent().unwrap_or(Path::new("."));
    for n in 0..100u32 {
        let tmp = dir.join(format!(
            ".{}.{}.{n}.tmp",
            target.file_name().unwrap_or_default().to_string_lossy(),
            std::process::id()
        ));
        match crate::platform::create_private(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no temporary file name free"))
}
