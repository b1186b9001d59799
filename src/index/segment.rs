//! One segment of an index: the files of a part of the tree at one time (the whole tree
//! for a build, the changed paths for an update, the union of several for a merge), with
//! their posting lists, mapped from its file (or held in memory) and never changed.
//!
//! A segment's entries replace those of older segments for the same paths: a file entry
//! (present, or "gone" for a path that no longer holds an indexed file) and a directory
//! entry (walked, or gone). A [`super::TrigramIndex`] is the view of a list of segments.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::checksum;
use super::checksum::Reads;
use super::persist::{self, IndexFileError};
use super::{Block, Candidate, FileEntry, Span, TriQuery, mapped};
use crate::source::{Source, SourceOptions};

pub(super) enum Data {
    Owned(Vec<u8>),
    Mapped(Source),
}

/// One segment (see the module docs).
pub struct Segment {
    /// Sorted by path.
    pub(super) files: Vec<FileEntry>,
    /// The first document (posting id) of each file, and the total at the end.
    pub(super) docs: Vec<u32>,
    /// Directories, sorted: walked (true) or gone.
    pub(super) dirs: Vec<(Box<[u8]>, bool)>,
    pub(super) blocks: Vec<Block>,
    pub(super) data: Data,
    /// The checksum in its tail (what a manifest records of it).
    pub(super) sum: u64,
    /// Its number in the store (0: in memory only).
    pub(super) number: u64,
    /// Where its page sums start: the bytes before are checked against them as read.
    sums_off: usize,
    /// A search found bytes of it that are not those written (see [`Segment::check`]).
    damaged: AtomicBool,
    /// The positions of its binary and unread files (what every search reads or lists).
    pub(super) special: Vec<u32>,
}

impl std::fmt::Debug for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Segment")
            .field("number", &self.number)
            .field("files", &self.files.len())
            .field("blocks", &self.blocks.len())
            .field("bytes", &self.bytes().len())
            .finish()
    }
}

impl Segment {
    /// Opens the segment file at `path` for `root`, refusing it unless every check holds
    /// (see [`persist`]) and, when `sum` is given, its checksum is that one.
    pub(super) fn open(
        path: &Path,
        root: &Path,
        number: u64,
        sum: Option<u64>,
        verify: bool,
    ) -> Result<Segment, IndexFileError> {
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
        let parsed = mapped::guard(&source, || persist::parse(source.bytes(), path, verify))
            .map_err(|()| persist::refused(path, "changed while it was read"))??;
        if parsed.root != root {
            return Err(persist::refused(
                path,
                format!(
                    "it indexes {}, not {}",
                    parsed.root.display(),
                    root.display()
                ),
            ));
        }
        if sum.is_some_and(|s| s != parsed.sum) {
            return Err(persist::refused(
                path,
                "not the segment its manifest lists (checksum)",
            ));
        }
        Ok(Segment::from_parsed(parsed, Data::Mapped(source), number))
    }

    /// A segment from bytes written in memory.
    pub(super) fn in_memory(bytes: Vec<u8>) -> std::io::Result<Segment> {
        let parsed =
            persist::parse(&bytes, Path::new("(memory)"), true).map_err(std::io::Error::other)?;
        Ok(Segment::from_parsed(parsed, Data::Owned(bytes), 0))
    }

    fn from_parsed(p: persist::Parsed, data: Data, number: u64) -> Segment {
        let special = (0..p.files.len() as u32)
            .filter(|&k| p.files[k as usize].flags & (super::FLAG_BINARY | super::FLAG_UNREAD) != 0)
            .collect();
        Segment {
            special,
            docs: p.docs,
            files: p.files,
            dirs: p.dirs,
            blocks: p.blocks,
            data,
            sum: p.sum,
            number,
            sums_off: p.sums_off,
            damaged: AtomicBool::new(false),
        }
    }

    /// The paths of its file entries (gone ones included), in path order.
    pub fn paths(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.files.iter().map(|f| &*f.path)
    }

    /// The file it was opened from, for messages.
    pub(super) fn path(&self) -> &Path {
        match &self.data {
            Data::Owned(_) => Path::new("(memory)"),
            Data::Mapped(s) => s.path(),
        }
    }

    /// Checks the bytes `reads` recorded (read since) against their page sums: `Err` says
    /// why when one differs. Bytes held in memory are not checked (only a mapped file may
    /// change under us).
    pub(super) fn check(&self, reads: &Reads) -> Result<(), String> {
        let Data::Mapped(_) = &self.data else {
            return Ok(());
        };
        let mut pages: Vec<std::ops::Range<u64>> = reads
            .ranges()
            .iter()
            .map(|&(a, b)| checksum::pages_of(a, b))
            .collect();
        pages.sort_unstable_by_key(|r| r.start);
        let mut done = 0;
        for r in pages {
            let r = r.start.max(done)..r.end;
            if let Some(k) = checksum::first_mismatch(self.bytes(), self.sums_off, r.clone()) {
                return Err(format!(
                    "the checksum of bytes {}..{} differs",
                    k * checksum::PAGE as u64,
                    (k + 1) * checksum::PAGE as u64
                ));
            }
            done = done.max(r.end);
        }
        Ok(())
    }

    /// Checks every page against its sum (a merge, which reads all of it; a report of
    /// damage by another process).
    pub(super) fn check_all(&self) -> Result<(), String> {
        let mut reads = Reads::default();
        reads.add(0, self.sums_off as u64);
        match &self.data {
            Data::Owned(_) => Ok(()),
            Data::Mapped(src) => super::mapped::guard(src, || self.check(&reads))
                .map_err(|()| "changed while it was read (cut or rewritten)".to_string())?,
        }
    }

    /// Whether a search found it damaged.
    pub(super) fn is_damaged(&self) -> bool {
        self.damaged.load(Ordering::Relaxed)
    }

    /// Marks it damaged; true the first time.
    pub(super) fn set_damaged(&self) -> bool {
        !self.damaged.swap(true, Ordering::Relaxed)
    }

    pub(super) fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Owned(v) => v,
            Data::Mapped(s) => s.bytes(),
        }
    }

    /// Heap bytes it holds besides its (mapped) data.
    pub(super) fn heap_bytes(&self) -> usize {
        let files: usize = self
            .files
            .iter()
            .map(|f| {
                std::mem::size_of::<FileEntry>() + f.path.len() + std::mem::size_of_val(&*f.pieces)
            })
            .sum::<usize>()
            + 4 * self.docs.len();
        let dirs: usize = self.dirs.iter().map(|d| 17 + d.0.len()).sum();
        let owned = match &self.data {
            Data::Owned(v) => v.capacity(),
            Data::Mapped(_) => 0,
        };
        files + dirs + owned
    }

    /// The local id of the entry for `rel`, if it has one.
    pub(super) fn find(&self, rel: &[u8]) -> Option<usize> {
        self.files.binary_search_by(|f| (*f.path).cmp(rel)).ok()
    }

    /// Its entry for directory `rel`: walked (true) or gone (false).
    pub(super) fn dir(&self, rel: &[u8]) -> Option<bool> {
        self.dirs
            .binary_search_by(|d| (*d.0).cmp(rel))
            .ok()
            .map(|i| self.dirs[i].1)
    }

    /// Its directory entries under `rel`.
    pub(super) fn dirs_under(&self, rel: &[u8]) -> &[(Box<[u8]>, bool)] {
        &self.dirs[range_under(&self.dirs, rel, |d| &d.0)]
    }

    /// The local files (ascending) that may hold a match of `q`, each with the spans of it
    /// that may when it was indexed in pieces and not all of them can; `Err` (why) when the
    /// bytes read are not those written (changed in place, cut).
    pub(super) fn candidate_spans(&self, q: &TriQuery) -> Result<Vec<Candidate>, String> {
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
        Ok(out)
    }
}

/// The range of `items` (sorted by `key`) that lie under directory `rel` (all for `""`).
pub(super) fn range_under<T>(
    items: &[T],
    rel: &[u8],
    key: impl Fn(&T) -> &[u8],
) -> std::ops::Range<usize> {
    if rel.is_empty() {
        return 0..items.len();
    }
    let mut lo = rel.to_vec();
    lo.push(b'/');
    let mut hi = rel.to_vec();
    hi.push(b'/' + 1);
    let a = items.partition_point(|f| key(f) < &lo[..]);
    let b = items.partition_point(|f| key(f) < &hi[..]);
    a..b
}
