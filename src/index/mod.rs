//! A trigram index of the roots: which files hold which 3-byte sequences, so that a search
//! reads only the files that can match.
//!
//! A [`TrigramIndex`] covers one root: the files the scan's default walk finds (ignore files
//! honoured, hidden files skipped), each with its identity (device, inode, size, times) and
//! flags (binary by the scan's rule, unreadable), and posting lists of document ids (files,
//! or pieces of large ones) per trigram, with next masks for large documents ([`trigram`]),
//! written in segments (each within the build's memory budget) into one file that is mapped
//! when used. A query is planned from the pattern's HIR ([`plan`]): the trigram AND/OR every
//! match satisfies; its candidate files are searched by the grep engine as usual, so results
//! are those of a scan.
//!
//! Freshness ([`live`]): a server watches its roots (notify); files created, changed,
//! renamed or deleted since the build are "dirty" and searched directly until the upkeep
//! takes them into a new segment ([`upkeep`]). Without a working watcher (none, or its queue overflowed), every
//! file's identity is checked against the index before it is trusted (metadata
//! validation), which is also how a persisted index is used by a one-shot search.
//!
//! Its files, one line each: ARCHITECTURE.md, "Modules".

mod build;
mod check;
mod checksum;
mod eval;
mod list;
mod live;
mod persist;
pub mod plan;
mod prune;
mod searching;
mod segment;
mod select;
pub mod side;
mod start;
mod store;
pub mod trigram;
mod upkeep;
mod view;
mod watch;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use build::BuildProgress;
pub use list::{Listing, Stamp, listing, os_path, walk_paths};
#[cfg(test)]
use live::upkeep_now;
pub use live::{
    IndexOptions, IndexStatus, IndexUse, Indexes, quiet_for, searching, status, wait_ready,
};
pub use persist::IndexFileError;
pub use plan::{TriQuery, plan};
pub use prune::{DEFAULT_CAP, DEFAULT_MAX_AGE, Listed, PruneRules, list, prune};
pub use searching::Searching;
pub use select::{SelectQuery, Selection, select};
pub use side::SideFile;
pub use start::{finish, load_persisted, start, start_for};
pub use store::{Store, default_dir, dir_for};
pub use view::{RootView, indexed_roots, root_view, searches_running};

use crate::source::FileId;
use segment::Segment;

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
/// The path no longer holds an indexed file (an entry of a later segment that hides the
/// earlier segments' entries for it).
pub(crate) const FLAG_GONE: u8 = 8;

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

/// Where one block of a segment's posting lists lies, and the documents it covers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Block {
    table_off: u64,
    entries: u64,
    post_off: u64,
    post_len: u64,
    first: u32,
    end: u32,
}

/// The index of one root: the view of its segments (see the module docs), oldest first, in
/// which a path's entry in a later segment replaces the earlier ones. Files are numbered in
/// path order over the view (ids valid for this view only).
pub struct TrigramIndex {
    root: PathBuf,
    segs: Vec<Arc<Segment>>,
    /// The live files in path order: (segment, local id).
    order: Vec<(u32, u32)>,
    /// Per segment: its local ids' view ids (`u32::MAX`: replaced or gone).
    view_of: Vec<Vec<u32>>,
    /// The manifest generation it is (0: not stored).
    generation: u64,
    /// Where it is stored (`None`: in memory only).
    store: Option<Arc<Store>>,
    /// Paths its walks could not read (a loaded index's come from the walk that validates
    /// it).
    pub(crate) unreadable: Vec<PathBuf>,
    /// The view ids of its binary and unread files, in order (a search reads or lists them
    /// whatever it looks for).
    special: Vec<u32>,
}

impl std::fmt::Debug for TrigramIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrigramIndex")
            .field("root", &self.root)
            .field("files", &self.order.len())
            .field("segments", &self.segs.len())
            .field("generation", &self.generation)
            .finish()
    }
}

impl TrigramIndex {
    /// Builds the index of `root` (canonical) as one segment, written to `store` (and
    /// published as its new generation) if given, else held in memory. `None` if
    /// `progress.stop` was set.
    pub fn build(
        root: &Path,
        store: Option<&Arc<Store>>,
        budget: usize,
        shape: Shape,
        progress: &BuildProgress,
    ) -> std::io::Result<Option<TrigramIndex>> {
        let mut walked = build::walk(root, progress);
        let unreadable = std::mem::take(&mut walked.unreadable);
        let generation = match store {
            Some(s) => s.manifest().ok().flatten().map_or(0, |m| m.generation) + 1,
            None => 0,
        };
        let Some(seg) = upkeep::write_segment(root, store, generation, &walked.dirs, |w| {
            build::build(root, &walked, w, budget, shape, progress)
        })?
        else {
            return Ok(None);
        };
        // The build's lists go before the index is installed, so that the heap it keeps
        // is not interleaved with them.
        drop(walked);
        let mut ix = TrigramIndex::of(root, vec![Arc::new(seg)], generation, store.cloned());
        upkeep::publish(&ix)?;
        ix.unreadable = unreadable;
        Ok(Some(ix))
    }

    /// Opens the current generation in `store` (`Ok(None)`: there is none), refusing it
    /// unless every file passes its checks (see [`persist`]). Segments of `reuse` (an
    /// older view of the same store) are kept rather than opened again.
    pub fn open(
        store: &Arc<Store>,
        reuse: Option<&TrigramIndex>,
    ) -> Result<Option<TrigramIndex>, IndexFileError> {
        // A writer may replace the manifest and remove merged segments between our reads:
        // then the manifest is read again.
        let mut last = None;
        for _ in 0..5 {
            let Some(m) = store.manifest()? else {
                return Ok(None);
            };
            let mut segs = Vec::with_capacity(m.segments.len());
            let mut failed = None;
            for r in &m.segments {
                if let Some(s) = reuse.and_then(|ix| {
                    ix.segs
                        .iter()
                        .find(|s| s.number == r.number && s.sum == r.sum && !s.is_damaged())
                }) {
                    segs.push(Arc::clone(s));
                    continue;
                }
                let path = store.segment_path(r.number);
                match Segment::open(&path, store.root(), r.number, Some(r.sum), store.verifies()) {
                    Ok(s) => segs.push(Arc::new(s)),
                    Err(e) => {
                        failed = Some((e, path.exists()));
                        break;
                    }
                }
            }
            match failed {
                None => {
                    return Ok(Some(TrigramIndex::of(
                        store.root(),
                        segs,
                        m.generation,
                        Some(Arc::clone(store)),
                    )));
                }
                // Present but refused: the index is bad.
                Some((e, true)) => return Err(e),
                Some((e, false)) => last = Some(e),
            }
        }
        Err(last.expect("tried"))
    }

    /// The view of `segs` (oldest first).
    fn of(
        root: &Path,
        segs: Vec<Arc<Segment>>,
        generation: u64,
        store: Option<Arc<Store>>,
    ) -> TrigramIndex {
        let mut view_of: Vec<Vec<u32>> = segs.iter().map(|s| vec![0; s.files.len()]).collect();
        // An entry is replaced when a later segment has one for the same path.
        for j in 1..segs.len() {
            for f in &segs[j].files {
                for i in 0..j {
                    if let Some(k) = segs[i].find(&f.path) {
                        view_of[i][k] = u32::MAX;
                    }
                }
            }
        }
        for (s, seg) in segs.iter().enumerate() {
            for (k, f) in seg.files.iter().enumerate() {
                if f.flags & FLAG_GONE != 0 {
                    view_of[s][k] = u32::MAX;
                }
            }
        }
        // The live entries in path order: those of the largest segment (the base, as a
        // rule) in their order, with the few of the others sorted and put in their places
        // by binary search (a rebuilt view costs a copy of the base's ids, not a merge).
        let big = (0..segs.len())
            .max_by_key(|&s| segs[s].files.len())
            .unwrap_or(0);
        let mut rest: Vec<(&[u8], u32, u32)> = Vec::new();
        for (s, seg) in segs.iter().enumerate() {
            if s != big {
                rest.extend(
                    (0..seg.files.len())
                        .filter(|&k| view_of[s][k] != u32::MAX)
                        .map(|k| (&*seg.files[k].path, s as u32, k as u32)),
                );
            }
        }
        rest.sort_unstable();
        let mut order = Vec::with_capacity(segs.get(big).map_or(0, |s| s.files.len()) + rest.len());
        let mut next_big = 0;
        let mut take_big =
            |upto: usize, order: &mut Vec<(u32, u32)>, view_of: &mut Vec<Vec<u32>>| {
                let from = next_big.min(upto);
                for (k, v) in view_of[big][from..upto].iter_mut().enumerate() {
                    if *v != u32::MAX {
                        *v = order.len() as u32;
                        order.push((big as u32, (from + k) as u32));
                    }
                }
                next_big = next_big.max(upto);
            };
        for &(path, s, k) in &rest {
            let at = segs[big].files.partition_point(|f| &*f.path < path);
            take_big(at, &mut order, &mut view_of);
            view_of[s as usize][k as usize] = order.len() as u32;
            order.push((s, k));
        }
        if let Some(seg) = segs.get(big) {
            take_big(seg.files.len(), &mut order, &mut view_of);
        }
        let special = select::special_ids(&segs, &view_of);
        TrigramIndex {
            root: root.to_path_buf(),
            segs,
            order,
            view_of,
            generation,
            store,
            unreadable: Vec::new(),
            special,
        }
    }

    /// The view of these segments followed by `seg` (newer), as generation `generation`.
    pub(crate) fn with_segments(&self, segs: Vec<Arc<Segment>>, generation: u64) -> TrigramIndex {
        let mut ix = TrigramIndex::of(&self.root, segs, generation, self.store.clone());
        ix.unreadable = self.unreadable.clone();
        ix
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How many files it lists.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The file of view id `i`.
    pub fn file(&self, i: usize) -> &FileEntry {
        let (s, k) = self.order[i];
        &self.segs[s as usize].files[k as usize]
    }

    /// Its files in path order.
    pub fn files(&self) -> impl Iterator<Item = &FileEntry> + '_ {
        (0..self.order.len()).map(|i| self.file(i))
    }

    /// Its segments, oldest first.
    pub(crate) fn segments(&self) -> &[Arc<Segment>] {
        &self.segs
    }

    /// The manifest generation it is (0: not stored).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub(crate) fn store(&self) -> Option<&Arc<Store>> {
        self.store.as_ref()
    }

    /// Where it is stored, if it is: its store's directory.
    pub fn file_dir(&self) -> Option<&Path> {
        self.store.as_deref().map(Store::dir)
    }

    /// Bytes of the index's data (its segments' files, or memory when not stored).
    pub fn size(&self) -> usize {
        self.segs.iter().map(|s| s.bytes().len()).sum()
    }

    /// Heap bytes the index holds besides its (mapped) data: the file lists and directories.
    pub fn heap_bytes(&self) -> usize {
        self.segs.iter().map(|s| s.heap_bytes()).sum::<usize>()
            + 8 * self.order.len()
            + self.view_of.iter().map(|v| 4 * v.len()).sum::<usize>()
    }

    /// Whether the index's walks entered `rel` (a directory relative to the root; `""` is
    /// the root itself).
    pub fn walked_dir(&self, rel: &[u8]) -> bool {
        rel.is_empty()
            || self
                .segs
                .iter()
                .rev()
                .find_map(|s| s.dir(rel))
                .unwrap_or(false)
    }

    /// The directories under `rel` the view holds as walked.
    pub(crate) fn dirs_under(&self, rel: &[u8]) -> Vec<Box<[u8]>> {
        let mut seen: std::collections::HashMap<&[u8], bool> = std::collections::HashMap::new();
        for s in self.segs.iter().rev() {
            for (d, walked) in s.dirs_under(rel) {
                seen.entry(&**d).or_insert(*walked);
            }
        }
        let mut out: Vec<Box<[u8]>> = seen
            .into_iter()
            .filter(|e| e.1)
            .map(|e| e.0.into())
            .collect();
        out.sort_unstable();
        out
    }

    /// The view ids of the files under directory `rel` (all of them for `""`).
    pub fn under(&self, rel: &[u8]) -> std::ops::Range<usize> {
        if rel.is_empty() {
            return 0..self.order.len();
        }
        let mut lo = rel.to_vec();
        lo.push(b'/');
        let mut hi = rel.to_vec();
        hi.push(b'/' + 1);
        let a = self.partition(|p| p < &lo[..]);
        let b = self.partition(|p| p < &hi[..]);
        a..b
    }

    fn partition(&self, pred: impl Fn(&[u8]) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.order.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if pred(&self.file(mid).path) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The view id of the file at `rel`, if indexed.
    pub fn find(&self, rel: &[u8]) -> Option<usize> {
        let i = self.partition(|p| p < rel);
        (i < self.order.len() && &*self.file(i).path == rel).then_some(i)
    }

    /// The decoded list of `t` in the first block of the oldest segment.
    #[cfg(test)]
    pub(super) fn first_postings(&self, t: trigram::Trigram) -> std::rc::Rc<trigram::Postings> {
        self.segs[0].first_postings(t)
    }

    /// The ids (ascending) of the files that may hold a match of a pattern planned as `q`;
    /// `None` when the index cannot say (a segment is damaged: then the caller scans).
    pub fn candidates(&self, q: &TriQuery) -> Option<Vec<u32>> {
        Some(self.candidate_spans(q)?.into_iter().map(|c| c.0).collect())
    }

    /// The files (ascending view ids) that may hold a match of a pattern planned as `q`,
    /// each with the spans of it that may, when it was indexed in pieces and not all of
    /// them can; `None` when a segment is damaged (found so now or before: see
    /// [`TrigramIndex::report_damage`]).
    pub fn candidate_spans(&self, q: &TriQuery) -> Option<Vec<Candidate>> {
        if self.is_damaged() {
            return None;
        }
        let mut out: Vec<Candidate> = Vec::new();
        for (s, seg) in self.segs.iter().enumerate() {
            let found = match seg.candidate_spans(q) {
                Ok(found) => found,
                Err(why) => {
                    self.report_damage(seg, &why);
                    return None;
                }
            };
            for (k, spans) in found {
                let v = self.view_of[s][k as usize];
                if v != u32::MAX {
                    out.push((v, spans));
                }
            }
        }
        if self.segs.len() > 1 {
            out.sort_unstable_by_key(|c| c.0);
        }
        Some(out)
    }

    /// Whether a segment of it was found damaged: its searches scan until it is rebuilt.
    pub fn is_damaged(&self) -> bool {
        self.segs.iter().any(|s| s.is_damaged())
    }

    /// Marks `seg` damaged (`why`): said once on stderr, and recorded in the store, so that
    /// the process that writes it rebuilds it (see [`Store::report_damage`]).
    pub(crate) fn report_damage(&self, seg: &Segment, why: &str) {
        if !seg.set_damaged() {
            return;
        }
        eprintln!(
            "mapgrep: the index of {} is damaged ({}: {why}); searches scan until it is rebuilt",
            self.root.display(),
            seg.path().display()
        );
        if let Some(store) = &self.store {
            store.report_damage(seg.number, seg.sum);
        }
    }
}

mod mapped {
    //! Reading a mapped index under the engine's guard against a file cut while mapped.
    pub(super) fn guard<T>(src: &crate::source::Source, f: impl FnOnce() -> T) -> Result<T, ()> {
        let out = crate::source::guard_mapped(src.is_mapped(), src.path(), f).map_err(|_| ())?;
        // Segments are immutable: the writer unlinks those a merge replaced, which a
        // reader still maps (an unlink moves the change time, not the bytes).
        src.check_intact_immutable().map_err(|_| ())?;
        Ok(out)
    }
}

/// The index's checksum of `bytes` (fast, and any changed byte changes it): what records
/// kept beside the index hold of a file's content.
pub fn content_checksum(bytes: &[u8]) -> u64 {
    checksum::checksum(bytes)
}

/// The line-search HIR of `pattern` (as grep compiles it), for planning.
pub fn line_hir(pattern: &str, case_insensitive: bool) -> Option<regex_syntax::hir::Hir> {
    crate::matcher::line_hir(pattern, case_insensitive)
}

#[cfg(test)]
mod tests;
