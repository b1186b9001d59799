//! Building an index: walk the root with the scan's rules, read every file once (in
//! parallel), record its identity and trigrams, and write posting lists segment by segment so
//! that the memory held while building stays within a budget.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::persist::Writer;
use super::trigram::{Extractor, ListBuilder, Trigram};
use super::{FLAG_BINARY, FLAG_GONE, FLAG_RACY, FLAG_UNREAD, FileEntry, Ident, Piece, Shape};
use crate::source::{self, SourceOptions};

/// A hasher for trigram keys (already well spread in 24 bits: one multiply).
#[derive(Default)]
pub(super) struct TriHasher(u64);

impl Hasher for TriHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = u64::from(v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type TriMap<V> = HashMap<Trigram, V, BuildHasherDefault<TriHasher>>;

/// Posting lists of a run of files, in memory until they are written as a segment.
#[derive(Default)]
pub(super) struct SegmentBuilder {
    lists: TriMap<ListBuilder>,
    heap: usize,
    /// The first file id of this segment (the end of the previous one).
    first: u32,
    /// Lists shorter than this are written without next masks.
    masks_min_list: u32,
    /// One bit per document of the segment (from `first`): added with next masks.
    masked: Vec<u64>,
}

/// Heap bytes one map entry costs besides its list's bytes (key, value, control byte,
/// load factor).
pub(super) const ENTRY_COST: usize = 64;

/// Lists encoded at a time (in parallel) when a segment is written.
const FLUSH_CHUNK: usize = 4096;

impl SegmentBuilder {
    /// A builder that keeps the masks of lists of at least `masks_min_list` documents.
    pub(super) fn new(masks_min_list: u32) -> SegmentBuilder {
        SegmentBuilder {
            masks_min_list,
            ..SegmentBuilder::default()
        }
    }

    /// Records that document `id` (ids ascend across calls) holds `trigrams`, with their
    /// next masks beside them when `next` is not empty.
    pub(super) fn add(&mut self, id: u32, trigrams: &[Trigram], next: &[u8]) {
        if !next.is_empty() {
            let d = (id - self.first) as usize;
            if self.masked.len() <= d / 64 {
                let before = self.masked.capacity();
                self.masked.resize(d / 64 + 1, 0);
                self.heap += 8 * (self.masked.capacity() - before);
            }
            self.masked[d / 64] |= 1 << (d % 64);
        }
        for (k, &t) in trigrams.iter().enumerate() {
            let b = self.lists.entry(t).or_insert_with(|| {
                self.heap += ENTRY_COST;
                ListBuilder::default()
            });
            let before = b.heap();
            b.push(id, next.get(k).copied());
            self.heap += b.heap() - before;
        }
    }

    /// Heap bytes held now.
    pub(super) fn heap(&self) -> usize {
        self.heap
    }

    /// The first file id the next segment covers.
    pub(super) fn first(&self) -> u32 {
        self.first
    }

    /// Writes the segment (files `first..end`) and empties the builder. Lists are encoded
    /// in parallel, a chunk at a time, each freed once encoded.
    pub(super) fn flush<W: Write>(&mut self, w: &mut Writer<W>, end: u32) -> std::io::Result<()> {
        let lists = std::mem::take(&mut self.lists);
        let first = std::mem::replace(&mut self.first, end);
        let masked_docs = std::mem::take(&mut self.masked);
        self.heap = 0;
        let masked = |id: u32| {
            let d = (id - first) as usize;
            masked_docs
                .get(d / 64)
                .is_some_and(|w| w & (1 << (d % 64)) != 0)
        };
        let mut keys: Vec<(Trigram, ListBuilder)> = lists.into_iter().collect();
        keys.sort_unstable_by_key(|(t, _)| *t);
        let total: usize = keys.iter().map(|(_, b)| b.heap()).sum();
        let mut postings = Vec::with_capacity(total);
        let mut table = Vec::with_capacity(keys.len());
        let mut keys = keys.into_iter();
        loop {
            let chunk: Vec<(Trigram, ListBuilder)> = keys.by_ref().take(FLUSH_CHUNK).collect();
            if chunk.is_empty() {
                break;
            }
            let encoded: Vec<Vec<u8>> = chunk
                .par_iter()
                .map(|(_, b)| {
                    let mut out = Vec::with_capacity(b.heap() + 1);
                    b.write(&mut out, b.count() >= self.masks_min_list, masked);
                    out
                })
                .collect();
            for ((t, b), bytes) in chunk.iter().zip(encoded) {
                table.push((*t, postings.len() as u32, b.count()));
                postings.extend_from_slice(&bytes);
            }
        }
        w.block(&table, &postings, first, end)
    }
}

/// How a build went, for progress reports.
#[derive(Debug, Default)]
pub struct BuildProgress {
    pub files_done: AtomicU64,
    /// Files to index (0 until the walk is done).
    pub files_total: AtomicU64,
    pub stop: AtomicBool,
    /// Searches running in the workspace: the build gives them the cores.
    pub searches: Arc<AtomicUsize>,
    /// Until when the build goes on without yielding, after it yielded as long as it may.
    no_yield_until: Mutex<Option<Instant>>,
}

/// The longest a build waits for running searches before it reads its next files (so it
/// still progresses under constant load).
const YIELD_MAX: Duration = Duration::from_secs(1);

impl BuildProgress {
    /// Progress of a build that yields to the searches `searches` counts.
    pub fn yielding_to(searches: Arc<AtomicUsize>) -> BuildProgress {
        BuildProgress {
            searches,
            ..BuildProgress::default()
        }
    }

    /// Waits while a search runs: a fresh server's first searches scan the tree on the
    /// cores the build would take. A wait lasts at most [`YIELD_MAX`], and is followed by
    /// as long without waiting, so the build keeps half the time under constant load.
    pub(super) fn yield_to_searches(&self) {
        if self.searches.load(Ordering::Relaxed) == 0 {
            return;
        }
        let t = Instant::now();
        let mut until = self.no_yield_until.lock().expect("yield");
        if until.is_some_and(|u| t < u) {
            return;
        }
        while self.searches.load(Ordering::Relaxed) > 0 && !self.stop.load(Ordering::Relaxed) {
            if t.elapsed() >= YIELD_MAX {
                *until = Some(Instant::now() + YIELD_MAX);
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// What a walk of the root found: files and directories, relative and sorted; for an
/// update, also the paths that no longer hold an indexed file (in `files`, marked in
/// `gone`) and the directories no longer walked.
#[derive(Default)]
pub(super) struct Walked {
    pub(super) files: Vec<PathBuf>,
    pub(super) gone: std::collections::HashSet<PathBuf>,
    pub(super) dirs: Vec<(Box<[u8]>, bool)>,
    /// Paths the walk could not read (a directory without permission): a search walks them
    /// again, so that it reports them as the scan does.
    pub(super) unreadable: Vec<PathBuf>,
}

/// The path an error of a walk is about, if it names one.
pub(super) fn error_path(e: &ignore::Error) -> Option<&Path> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Partial(errs) => errs.iter().find_map(error_path),
        _ => None,
    }
}

/// The walker configured as the scan's default walk: ignore files honoured, hidden files
/// skipped, links not followed.
pub(super) fn walker(dir: &Path) -> ignore::WalkBuilder {
    let mut wb = ignore::WalkBuilder::new(dir);
    wb.hidden(true)
        .ignore(true)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .parents(true)
        .follow_links(false)
        .threads(rayon::current_num_threads());
    wb
}

/// Walks `root` with the scan's default rules (pausing while searches run).
pub(super) fn walk(root: &Path, progress: &BuildProgress) -> Walked {
    let files = Mutex::new(Vec::new());
    let dirs = Mutex::new(Vec::new());
    let unreadable = Mutex::new(Vec::new());
    walker(root).build_parallel().run(|| {
        Box::new(|entry| {
            progress.yield_to_searches();
            match entry {
                Ok(e) => match e.file_type() {
                    Some(t) if t.is_file() => files.lock().expect("walk").push(e.into_path()),
                    Some(t) if t.is_dir() => dirs.lock().expect("walk").push(e.into_path()),
                    _ => {}
                },
                Err(e) => {
                    if let Some(p) = error_path(&e) {
                        unreadable.lock().expect("walk").push(p.to_path_buf());
                    }
                }
            }
            ignore::WalkState::Continue
        })
    });
    let mut files = files.into_inner().expect("walk");
    files.sort_unstable_by(|a, b| rel_bytes(root, a).cmp(&rel_bytes(root, b)));
    let mut dirs: Vec<(Box<[u8]>, bool)> = dirs
        .into_inner()
        .expect("walk")
        .iter()
        .map(|d| rel_bytes(root, d))
        .filter(|d| !d.is_empty())
        .map(|d| (d.into(), true))
        .collect();
    dirs.sort_unstable();
    let mut unreadable = unreadable.into_inner().expect("walk");
    unreadable.sort_unstable();
    unreadable.dedup();
    Walked {
        files,
        gone: Default::default(),
        dirs,
        unreadable,
    }
}

/// `path` relative to `root`, as bytes with `/` between its parts (`""` for the root itself).
pub(super) fn rel_bytes<'a>(root: &Path, path: &'a Path) -> std::borrow::Cow<'a, [u8]> {
    let rel = path.strip_prefix(root).unwrap_or(path).as_os_str();
    // The index keeps `/` between a path's parts on every system (Windows writes `\\`).
    crate::platform::slashed_bytes(rel.as_encoded_bytes())
}

thread_local! {
    /// A thread's read buffer and trigram tables, kept between the files of a build.
    static SCRATCH: std::cell::RefCell<Option<(Vec<u8>, Extractor)>> =
        const { std::cell::RefCell::new(None) };
}

/// Drops every pool thread's [`SCRATCH`] (a build is over: a long-lived server should not
/// keep them).
fn drop_scratch() {
    rayon::broadcast(|_| SCRATCH.with(|s| s.borrow_mut().take()));
}

/// One file read for the index: identity, flags, the starts of its pieces (none when it is
/// one document) and each document's trigrams, with their next masks beside them when the
/// file is large enough to have them (else empty).
pub(super) struct ReadFile {
    pub(super) id: Ident,
    pub(super) flags: u8,
    pub(super) pieces: Box<[Piece]>,
    pub(super) docs: Vec<(Vec<Trigram>, Vec<u8>)>,
}

/// Reads one file for the index; a file of more than twice `shape.piece` bytes is cut into
/// pieces of whole lines (see [`pieces`]), each its own document, and a file of at least
/// `shape.masks_min_file` bytes gets next masks.
pub(super) fn read_file(
    path: &Path,
    (buf, opener): (&mut Vec<u8>, &mut source::Opener),
    x: &mut Extractor,
    now: std::time::SystemTime,
    shape: Shape,
) -> ReadFile {
    let opts = SourceOptions::for_search(64 * 1024 * 1024, true);
    let unread = |id| ReadFile {
        id,
        flags: FLAG_UNREAD,
        pieces: Box::new([]),
        docs: vec![Default::default()],
    };
    match source::load_in(opener, path, &opts, buf) {
        Ok((Some(id), hay)) => {
            let ident = Ident::from_id(&id);
            let mut flags = if id.is_racy(now) { FLAG_RACY } else { 0 };
            let mut found = (Vec::new(), Vec::new());
            let intact = source::guard_mapped(hay.is_mapped(), path, || {
                if source::looks_binary(&hay) {
                    flags |= FLAG_BINARY;
                    found.1.push(Default::default());
                    return;
                }
                let masks = hay.len() >= shape.masks_min_file.max(1);
                found.0 = pieces(&hay, shape.piece);
                let mut bounds: Vec<usize> = found.0.iter().map(|p| p.start as usize).collect();
                if bounds.is_empty() {
                    bounds.push(0);
                }
                bounds.push(hay.len());
                for w in bounds.windows(2) {
                    let (mut tris, mut next) = (Vec::new(), Vec::new());
                    if masks {
                        x.extract_next(&hay[w[0]..w[1]], &mut tris, &mut next);
                    } else {
                        x.extract(&hay[w[0]..w[1]], &mut tris);
                    }
                    found.1.push((tris, next));
                }
            });
            if intact.is_err() || !hay.intact() {
                return unread(ident);
            }
            ReadFile {
                id: ident,
                flags,
                pieces: found.0.into(),
                docs: found.1,
            }
        }
        _ => unread(Ident::default()),
    }
}

/// Where the pieces of `hay` start when it is larger than twice `piece` bytes: at 0, then
/// after the first newline at or past every `piece` bytes from the previous start (so each
/// piece is whole lines, and no match, which lies within a line, crosses two). Empty when
/// the file is one document.
pub(super) fn pieces(hay: &[u8], piece: usize) -> Vec<Piece> {
    let piece = piece.max(1);
    if hay.len() <= 2 * piece {
        return Vec::new();
    }
    let mut out = vec![Piece { start: 0, line: 1 }];
    let (mut pos, mut line) = (0usize, 1u64);
    while pos + piece < hay.len() {
        let Some(nl) = memchr::memchr(b'\n', &hay[pos + piece - 1..]) else {
            break;
        };
        let cut = pos + piece + nl;
        if cut >= hay.len() {
            break;
        }
        line += memchr::memchr_iter(b'\n', &hay[pos..cut]).count() as u64;
        out.push(Piece {
            start: cut as u64,
            line,
        });
        pos = cut;
    }
    if out.len() == 1 {
        out.clear();
    }
    out
}

/// Builds the index of `root` into `w` within `budget` heap bytes of posting lists (a
/// segment is written whenever they reach it), its documents as `shape` says. Returns the
/// file list, or `None` if stopped.
pub(super) fn build<W: Write + Send>(
    root: &Path,
    walked: &Walked,
    w: &mut Writer<W>,
    budget: usize,
    shape: Shape,
    progress: &BuildProgress,
) -> std::io::Result<Option<Vec<FileEntry>>> {
    let built = segments(root, walked, w, (budget, shape), progress);
    drop_scratch();
    built
}

fn segments<W: Write + Send>(
    root: &Path,
    walked: &Walked,
    w: &mut Writer<W>,
    (budget, shape): (usize, Shape),
    progress: &BuildProgress,
) -> std::io::Result<Option<Vec<FileEntry>>> {
    progress
        .files_total
        .store(walked.files.len() as u64, Ordering::Relaxed);
    let now = std::time::SystemTime::now();
    let mut seg = SegmentBuilder::new(shape.masks_min_list);
    let mut entries = Vec::with_capacity(walked.files.len());
    let mut doc: u32 = 0;
    let read = |chunk: &[PathBuf]| read_chunk(chunk, walked, now, shape);
    // The posting lists are filled by one thread: while it adds a chunk's files, the pool
    // reads and extracts the next chunk.
    let mut add = |chunk: &[PathBuf], files: Vec<ReadFile>| -> std::io::Result<()> {
        for (path, r) in chunk.iter().zip(files) {
            for (tris, next) in &r.docs {
                seg.add(doc, tris, next);
                doc = doc.checked_add(1).ok_or_else(|| {
                    std::io::Error::other("more than 4 billion documents to index")
                })?;
            }
            entries.push(FileEntry {
                path: rel_bytes(root, path).into_owned().into(),
                id: r.id,
                flags: r.flags,
                pieces: r.pieces,
            });
            if seg.heap() >= budget {
                seg.flush(w, doc)?;
            }
        }
        progress
            .files_done
            .fetch_add(chunk.len() as u64, Ordering::Relaxed);
        Ok(())
    };
    const CHUNK: usize = 256;
    let mut pending: Option<(&[PathBuf], Vec<ReadFile>)> = None;
    for chunk in walked.files.chunks(CHUNK) {
        progress.yield_to_searches();
        if progress.stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let (files, added) = rayon::join(
            || read(chunk),
            || pending.take().map_or(Ok(()), |(c, f)| add(c, f)),
        );
        added?;
        pending = Some((chunk, files));
    }
    if let Some((c, f)) = pending {
        add(c, f)?;
    }
    if doc > seg.first() || entries.is_empty() {
        seg.flush(w, doc)?;
    }
    Ok(Some(entries))
}

/// Reads and extracts the trigrams of a chunk of files, in parallel (a gone path is an
/// entry with [`FLAG_GONE`] and no trigrams).
fn read_chunk(
    chunk: &[PathBuf],
    walked: &Walked,
    now: std::time::SystemTime,
    shape: Shape,
) -> Vec<ReadFile> {
    // An opener per piece of the chunk rayon splits off (the paths are sorted, so a piece's
    // files come directory by directory), for this chunk only.
    chunk
        .par_iter()
        .map_init(source::Opener::default, |opener, p| {
            if walked.gone.contains(p) {
                return ReadFile {
                    id: Ident::default(),
                    flags: FLAG_GONE,
                    pieces: Box::new([]),
                    docs: vec![Default::default()],
                };
            }
            SCRATCH.with(|s| {
                let mut s = s.borrow_mut();
                let (buf, x) = s.get_or_insert_with(|| (Vec::new(), Extractor::new()));
                let r = read_file(p, (buf, opener), x, now, shape);
                if buf.capacity() > 4 << 20 {
                    *buf = Vec::new();
                }
                r
            })
        })
        .collect()
}
