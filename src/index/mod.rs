//! A trigram index of the roots: which files hold which 3-byte sequences, so that a search
//! reads only the files that can match.
//!
//! An [`Index`] covers one root: the files the scan's default walk finds (ignore files
//! honoured, hidden files skipped), each with its identity (device, inode, size, times) and
//! flags (binary by the scan's rule, unreadable), and posting lists of document ids (files,
//! or pieces of large ones) per trigram, with next masks for large documents ([`trigram`]),
//! written in segments (each within the build's memory budget) into one file that is mapped
//! when used. A query is planned from the pattern's HIR ([`plan`]): the trigram AND/OR every
//! match satisfies; its candidate files are searched by the grep engine as usual, so results
//! are those of a scan.
//!
//! Freshness ([`live`]): a server watches its roots (notify); files created, changed,
//! renamed or deleted since the build are "dirty" and searched directly until a background
//! rebuild takes them in. Without a working watcher (none, or its queue overflowed), every
//! file's identity is checked against the index before it is trusted (metadata
//! validation), which is also how a persisted index is used by a one-shot search.
//!
//! Layout: `trigram.rs` (extraction, posting lists), `plan.rs` (query planning), `eval.rs`
//! (a planned query over the lists), `build.rs` (walk and build), `persist.rs` (file format,
//! location, checks), `live.rs` (the per-root state a workspace keeps, selection of files
//! for a search), `watch.rs` (the watcher).

mod build;
mod eval;
mod live;
mod persist;
pub mod plan;
pub mod trigram;
mod watch;

use std::path::{Path, PathBuf};

pub use build::BuildProgress;
pub use live::{
    IndexOptions, IndexStatus, IndexUse, Indexes, Searching, SelectQuery, Selection,
    load_persisted, searching, select, start, start_for, status, wait_ready,
};
pub use persist::{IndexFileError, default_dir, file_for};
pub use plan::{TriQuery, plan};

use crate::source::{FileId, Source, SourceOptions};

/// Default heap budget of the posting lists held while building (a segment is written each
/// time they reach it).
pub const DEFAULT_BUILD_BUDGET: usize = 128 * 1024 * 1024;

/// Default size of the pieces a large file is indexed in: a file of more than twice this is
/// cut after the first newline past every this many bytes, and each piece has its own posting
/// lists, so a search reads only the pieces of a large file that can hold a match.
pub const DEFAULT_PIECE_BYTES: usize = 64 * 1024;

/// How a build cuts files into documents and which postings carry next masks (see
/// [`trigram`]). A mask costs a byte per posting and saves reading a document, so only large
/// documents earn one (on the Linux tree, files of 16 KiB and more hold two thirds of the
/// bytes and half of the postings), and only in lists long enough not to be selective by
/// themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Files larger than twice this are indexed in pieces of about this many bytes.
    pub piece: usize,
    /// Files at least this large have next masks.
    pub masks_min_file: usize,
    /// Posting lists at least this long keep their documents' masks.
    pub masks_min_list: u32,
}

impl Default for Shape {
    fn default() -> Shape {
        Shape {
            piece: DEFAULT_PIECE_BYTES,
            masks_min_file: DEFAULT_PIECE_BYTES / 4,
            masks_min_list: 1024,
        }
    }
}

/// The file is binary by the scan's rule (a NUL in its first 64 KiB).
pub(crate) const FLAG_BINARY: u8 = 1;
/// The file could not be read at build time: always searched.
pub(crate) const FLAG_UNREAD: u8 = 2;
/// The file changed within the racy window before it was read: its identity cannot vouch
/// for its contents, so a validating search reads it.
pub(crate) const FLAG_RACY: u8 = 4;

/// A file's identity as recorded: what must be unchanged for its entry to hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ident {
    pub dev: u64,
    pub ino: u64,
    pub len: u64,
    pub mtime: (i64, u32),
    pub ctime: (i64, u32),
}

impl Ident {
    pub(crate) fn from_id(id: &FileId) -> Ident {
        let mtime = id
            .mtime
            .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or((0, 0), |d| (d.as_secs() as i64, d.subsec_nanos()));
        Ident {
            dev: id.dev,
            ino: id.ino,
            len: id.len,
            mtime,
            ctime: (id.ctime.0, id.ctime.1 as u32),
        }
    }

    pub fn from_metadata(md: &std::fs::Metadata) -> Ident {
        Ident::from_id(&FileId::from_metadata(md))
    }
}

/// One indexed file.
#[derive(Clone, Debug)]
pub struct FileEntry {
    /// Relative to the root, `/`-separated bytes.
    pub path: Box<[u8]>,
    pub id: Ident,
    pub flags: u8,
    /// Where its pieces start, when it was indexed in pieces (empty: one document).
    pub pieces: Box<[Piece]>,
}

/// The start of one piece of a file indexed in pieces: a line start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Byte offset in the file (as the search loads it).
    pub start: u64,
    /// Its first line's number (1-based).
    pub line: u64,
}

/// Whole lines of a file that a search must read: `start..end`, the first being `line`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: u64,
    pub end: u64,
    pub line: u64,
}

/// A candidate file as the index knows it: the identity it recorded, which the selection
/// found to be the file's current one (so a copy of that version may be used without
/// another look at the file), and the parts of it that can hold a match (`None`: all of
/// it), valid while the file keeps that identity (else the whole file is searched).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Known {
    pub id: Ident,
    pub spans: Option<Box<[Span]>>,
}

/// A file a search must read, and where (`None`: all of it).
pub type Candidate = (u32, Option<Box<[Span]>>);

#[derive(Clone, Copy, Debug)]
pub(crate) struct SegmentMeta {
    table_off: u64,
    entries: u64,
    post_off: u64,
    post_len: u64,
    first: u32,
    end: u32,
}

enum Data {
    Owned(Vec<u8>),
    Mapped(Source),
}

/// The index of one root (see the module docs).
pub struct Index {
    root: PathBuf,
    files: Vec<FileEntry>,
    /// The first document (posting id) of each file, and the total at the end.
    docs: Vec<u32>,
    dirs: Vec<Box<[u8]>>,
    segments: Vec<SegmentMeta>,
    data: Data,
    /// Where it is stored (`None`: in memory only).
    path: Option<PathBuf>,
    /// Paths its build's walk could not read (in memory only: a loaded index's come from
    /// the walk that validates it).
    pub(crate) unreadable: Vec<PathBuf>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("root", &self.root)
            .field("files", &self.files.len())
            .field("segments", &self.segments.len())
            .field("bytes", &self.bytes().len())
            .finish()
    }
}

impl Index {
    /// Builds the index of `root` (canonical), written to `file` if given (replacing it
    /// atomically), else held in memory. `None` if `progress.stop` was set.
    pub fn build(
        root: &Path,
        file: Option<&Path>,
        budget: usize,
        shape: Shape,
        progress: &BuildProgress,
    ) -> std::io::Result<Option<Index>> {
        let mut walked = build::walk(root, progress);
        let unreadable = std::mem::take(&mut walked.unreadable);
        let dirs = walked.dirs.clone();
        match file {
            None => {
                let mut w = persist::Writer::in_memory();
                let Some(files) = build::build(root, &walked, &mut w, budget, shape, progress)?
                else {
                    return Ok(None);
                };
                let bytes = w.finish(&files, &dirs, root)?;
                let parsed =
                    persist::parse(&bytes, Path::new("(memory)")).map_err(std::io::Error::other)?;
                let mut ix = Index::from_parsed(parsed, Data::Owned(bytes), None);
                ix.unreadable = unreadable;
                Ok(Some(ix))
            }
            Some(file) => {
                if let Some(dir) = file.parent() {
                    persist::private_dir(dir)?;
                }
                let (tmp, f) = persist::temp_file(file)?;
                let result = (|| {
                    let mut w =
                        persist::Writer::new(std::io::BufWriter::with_capacity(1 << 20, f))?;
                    let Some(files) = build::build(root, &walked, &mut w, budget, shape, progress)?
                    else {
                        return Ok(false);
                    };
                    let out = w.finish(&files, &dirs, root)?;
                    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
                    std::fs::rename(&tmp, file)?;
                    persist::remove_stale_temps(file);
                    Ok(true)
                })();
                // The build's lists go before the index is opened, so that the heap it
                // keeps is not interleaved with them.
                drop(walked);
                match result {
                    Ok(true) => Index::open(file, root)
                        .map(|mut ix| {
                            ix.unreadable = unreadable;
                            Some(ix)
                        })
                        .map_err(std::io::Error::other),
                    Ok(false) => {
                        let _ = std::fs::remove_file(&tmp);
                        Ok(None)
                    }
                    Err(e) => {
                        let _ = std::fs::remove_file(&tmp);
                        Err(e)
                    }
                }
            }
        }
    }

    /// Opens the index file at `path` for `root`, refusing it unless every check holds (see
    /// [`persist`]).
    pub fn open(path: &Path, root: &Path) -> Result<Index, IndexFileError> {
        // The cache directory may be reached through a link (a home on another disk).
        let path = &std::fs::canonicalize(path).map_err(|e| IndexFileError::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        persist::check_owner(path)?;
        let opts = SourceOptions {
            mmap_threshold: 0,
            identity: true,
        };
        let source = Source::open(path, &opts).map_err(|e| IndexFileError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })?;
        let parsed =
            mapped::guard(&source, || persist::parse(source.bytes(), path)).map_err(|()| {
                IndexFileError::Refused {
                    path: path.to_path_buf(),
                    why: "changed while it was read".into(),
                }
            })??;
        if parsed.root != root {
            return Err(IndexFileError::Refused {
                path: path.to_path_buf(),
                why: format!(
                    "it indexes {}, not {}",
                    parsed.root.display(),
                    root.display()
                ),
            });
        }
        Ok(Index::from_parsed(
            parsed,
            Data::Mapped(source),
            Some(path.to_path_buf()),
        ))
    }

    fn from_parsed(p: persist::Parsed, data: Data, path: Option<PathBuf>) -> Index {
        Index {
            root: p.root,
            docs: p.docs,
            files: p.files,
            dirs: p.dirs,
            segments: p.segments,
            data,
            path,
            unreadable: Vec::new(),
        }
    }

    fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Owned(v) => v,
            Data::Mapped(s) => s.bytes(),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn files(&self) -> &[FileEntry] {
        &self.files
    }

    /// Where the index is stored, if it is.
    pub fn file(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Bytes of the index's data (file size, or memory when not stored).
    pub fn size(&self) -> usize {
        self.bytes().len()
    }

    /// Heap bytes the index holds besides its (mapped) data: the file list and directories.
    pub fn heap_bytes(&self) -> usize {
        let files: usize = self
            .files
            .iter()
            .map(|f| {
                std::mem::size_of::<FileEntry>() + f.path.len() + std::mem::size_of_val(&*f.pieces)
            })
            .sum::<usize>()
            + 4 * self.docs.len();
        let dirs: usize = self.dirs.iter().map(|d| 16 + d.len()).sum();
        let owned = match &self.data {
            Data::Owned(v) => v.capacity(),
            Data::Mapped(_) => 0,
        };
        files + dirs + owned
    }

    /// Whether the build's walk entered `rel` (a directory relative to the root; `""` is the
    /// root itself).
    pub fn walked_dir(&self, rel: &[u8]) -> bool {
        rel.is_empty() || self.dirs.binary_search_by(|d| (**d).cmp(rel)).is_ok()
    }

    /// The ids of the files under directory `rel` (all of them for `""`).
    pub fn under(&self, rel: &[u8]) -> std::ops::Range<usize> {
        if rel.is_empty() {
            return 0..self.files.len();
        }
        let mut lo = rel.to_vec();
        lo.push(b'/');
        let mut hi = rel.to_vec();
        hi.push(b'/' + 1);
        let a = self.files.partition_point(|f| *f.path < *lo);
        let b = self.files.partition_point(|f| *f.path < *hi);
        a..b
    }

    /// The id of the file at `rel`, if indexed.
    pub fn find(&self, rel: &[u8]) -> Option<usize> {
        self.files.binary_search_by(|f| (*f.path).cmp(rel)).ok()
    }

    /// The ids (ascending) of the files that may hold a match of a pattern planned as `q`;
    /// `None` when the mapped data changed under us (then nothing from it is used).
    pub fn candidates(&self, q: &TriQuery) -> Option<Vec<u32>> {
        Some(self.candidate_spans(q)?.into_iter().map(|c| c.0).collect())
    }

    /// The files (ascending ids) that may hold a match of a pattern planned as `q`, each
    /// with the spans of it that may, when it was indexed in pieces and not all of them can.
    pub fn candidate_spans(&self, q: &TriQuery) -> Option<Vec<Candidate>> {
        let docs = self.candidate_docs(q)?;
        let mut out: Vec<Candidate> = Vec::new();
        let mut i = 0;
        while i < docs.len() {
            let file = self.docs.partition_point(|&d| d <= docs[i]) - 1;
            let (first, end) = (self.docs[file], self.docs[file + 1]);
            let mut j = i;
            while j < docs.len() && docs[j] < end {
                j += 1;
            }
            let f = &self.files[file];
            let spans = (j - i < (end - first) as usize).then(|| {
                let mut spans: Vec<Span> = Vec::new();
                for &d in &docs[i..j] {
                    let k = (d - first) as usize;
                    let p = f.pieces[k];
                    let next = f.pieces.get(k + 1).map_or(f.id.len, |n| n.start);
                    match spans.last_mut() {
                        // Neighbouring pieces are read as one span.
                        Some(s) if s.end == p.start => s.end = next,
                        _ => spans.push(Span {
                            start: p.start,
                            end: next,
                            line: p.line,
                        }),
                    }
                }
                spans.into()
            });
            out.push((file as u32, spans));
            i = j;
        }
        Some(out)
    }
}

mod mapped {
    //! Reading a mapped index under the engine's guard against a file cut while mapped.
    pub(super) fn guard<T>(src: &crate::source::Source, f: impl FnOnce() -> T) -> Result<T, ()> {
        let out = crate::source::guard_mapped(src.is_mapped(), src.path(), f).map_err(|_| ())?;
        src.check_intact().map_err(|_| ())?;
        Ok(out)
    }
}

/// The line-search HIR of `pattern` (as grep compiles it), for planning.
pub fn line_hir(pattern: &str, case_insensitive: bool) -> Option<regex_syntax::hir::Hir> {
    crate::matcher::line_hir(pattern, case_insensitive)
}

#[cfg(test)]
mod tests;
