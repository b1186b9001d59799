//! Keeping an index fresh at the cost of the edits: what changed under the dirty paths
//! ([`changes`]), a small segment of just that ([`delta`]), and merges of segments by a
//! size-tiered policy ([`plan_merge`], [`merge`]) so that their number stays small and the
//! bytes rewritten stay a small multiple of the bytes changed.

use std::borrow::Cow;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::build::{self, BuildProgress, Walked, error_path, rel_bytes, walker};
use super::checksum::Reads;
use super::persist::{Writer, os_str};
use super::segment::Segment;
use super::store::{Manifest, SegRef, Store};
use super::trigram::{Trigram, encode_list};
use super::{Block, FLAG_GONE, FLAG_RACY, FileEntry, Ident, Shape, TrigramIndex};

/// Where a segment is written: its file (buffered) or memory.
pub(super) enum Sink {
    File(std::io::BufWriter<std::fs::File>),
    Mem(Vec<u8>),
}

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::File(f) => f.write(b),
            Sink::Mem(v) => v.write(b),
        }
    }
    fn write_all(&mut self, b: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::File(f) => f.write_all(b),
            Sink::Mem(v) => v.write_all(b),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::File(f) => f.flush(),
            Sink::Mem(_) => Ok(()),
        }
    }
}

/// Writes a segment of `root` with directories `dirs`: `fill` writes its blocks and returns
/// its files (`None`: stopped). Into `store` as segment `number` (then mapped), or memory.
pub(super) fn write_segment(
    root: &Path,
    store: Option<&Arc<Store>>,
    number: u64,
    dirs: &[(Box<[u8]>, bool)],
    fill: impl FnOnce(&mut Writer<Sink>) -> std::io::Result<Option<Vec<FileEntry>>>,
) -> std::io::Result<Option<Segment>> {
    let Some(store) = store else {
        let mut w = Writer::new(Sink::Mem(Vec::new()))?;
        let Some(files) = fill(&mut w)? else {
            return Ok(None);
        };
        let Sink::Mem(bytes) = w.finish(&files, dirs, root)? else {
            unreachable!("written to memory")
        };
        return Segment::in_memory(bytes).map(Some);
    };
    let mut stopped = false;
    let path = store.write_segment(number, |f| {
        let mut w = Writer::new(Sink::File(std::io::BufWriter::with_capacity(1 << 20, f)))?;
        let Some(files) = fill(&mut w)? else {
            stopped = true;
            return Err(std::io::Error::other("stopped"));
        };
        match w.finish(&files, dirs, root)? {
            Sink::File(b) => b.into_inner().map_err(|e| e.into_error()),
            Sink::Mem(_) => unreachable!("written to a file"),
        }
    });
    match path {
        Ok(p) => Segment::open(&p, root, number, None, true)
            .map(Some)
            .map_err(std::io::Error::other),
        Err(_) if stopped => Ok(None),
        Err(e) => Err(e),
    }
}

/// What changed under some dirty paths, against an index: the files to read again (and the
/// paths whose files are gone) as a walk for [`build::build`], and the directories walked
/// or gone.
pub(super) struct Changes {
    pub(super) walked: Walked,
    /// Paths the walk could not read.
    pub(super) unreadable: Vec<PathBuf>,
    /// The dirty paths with a change at or under them (the others the index holds as
    /// they are).
    pub(super) unclean: HashSet<PathBuf>,
    /// Changed files left for a later round: written within the racy window, they would be
    /// read now only to be read again (their identity cannot vouch for what was read).
    pub(super) deferred: Vec<PathBuf>,
    /// The dirty paths these changes were found under.
    dirty: Arc<HashSet<PathBuf>>,
}

impl Changes {
    pub(super) fn is_empty(&self) -> bool {
        self.walked.files.is_empty() && self.walked.dirs.is_empty()
    }
}

/// Walks the `dirty` paths (absolute, under `ix`'s root) with the scan's rules and compares
/// what is there with `ix`: a file is changed unless its entry has its identity (and was not
/// read within the racy window); an entry at or under a dirty path that the walk did not
/// find is gone; likewise directories.
pub(super) fn changes(ix: &TrigramIndex, dirty: &[PathBuf]) -> Changes {
    let root = ix.root().to_path_buf();
    let dirty: Arc<HashSet<PathBuf>> = Arc::new(
        dirty
            .iter()
            .filter(|p| p.starts_with(&root))
            .cloned()
            .collect(),
    );
    let found = walk_dirty(&root, &dirty);
    let mut out = Walked::default();
    let (seen, deferred) = changed_files(ix, &root, &found.files, &mut out);
    let seen_dirs: Seen<'_> = found.dirs.iter().map(|d| rel_bytes(&root, d)).collect();
    for d in &found.dirs {
        let rel = rel_bytes(&root, d);
        if !rel.is_empty() && !ix.walked_dir(&rel) {
            out.dirs.push((rel.into_owned().into(), true));
        }
    }
    for d in dirty.iter() {
        gone_under(
            ix,
            &root,
            &rel_bytes(&root, d),
            (&seen, &seen_dirs),
            &mut out,
        );
    }
    out.files
        .sort_unstable_by(|a, b| rel_bytes(&root, a).cmp(&rel_bytes(&root, b)));
    out.files.dedup();
    out.dirs.sort_unstable();
    out.dirs.dedup_by(|a, b| a.0 == b.0);
    let mut unreadable = found.unreadable;
    unreadable.sort_unstable();
    unreadable.dedup();
    let changed = out.files.iter().chain(&deferred).cloned().chain(
        out.dirs
            .iter()
            .map(|d| crate::platform::join_slashed(&root, os_str(&d.0))),
    );
    let unclean = covering(&dirty, &root, changed);
    Changes {
        walked: out,
        unreadable,
        unclean,
        deferred,
        dirty,
    }
}

/// What a walk of the dirty paths found.
struct Found {
    /// Files, with their identity when it could be read.
    files: Vec<(PathBuf, Option<Ident>)>,
    dirs: Vec<PathBuf>,
    /// Paths the walk could not read.
    unreadable: Vec<PathBuf>,
}

/// Walks the `dirty` paths with the scan's rules: from `root`, entering only their ancestors
/// and what is at or under them.
fn walk_dirty(root: &Path, dirty: &Arc<HashSet<PathBuf>>) -> Found {
    let mut ancestors = HashSet::new();
    for d in dirty.iter() {
        for a in d.ancestors().skip(1) {
            if !a.starts_with(root) || !ancestors.insert(a.to_path_buf()) {
                break;
            }
        }
    }
    let covered = {
        let (dirty, root) = (Arc::clone(dirty), root.to_path_buf());
        move |p: &Path| {
            p.ancestors()
                .take_while(|a| a.starts_with(&root))
                .any(|a| dirty.contains(a))
        }
    };
    let mut wb = walker(root);
    {
        let covered = covered.clone();
        wb.filter_entry(move |e| ancestors.contains(e.path()) || covered(e.path()));
    }
    let files = Mutex::new(Vec::new());
    let dirs = Mutex::new(Vec::new());
    let unreadable = Mutex::new(Vec::new());
    if !dirty.is_empty() {
        wb.build_parallel().run(|| {
            Box::new(|e| {
                match e {
                    Ok(e) if covered(e.path()) => match e.file_type() {
                        Some(t) if t.is_file() => {
                            let id = e.metadata().ok().map(|m| Ident::from_metadata(&m));
                            files.lock().expect("walk").push((e.into_path(), id));
                        }
                        Some(t) if t.is_dir() => dirs.lock().expect("walk").push(e.into_path()),
                        _ => {}
                    },
                    Ok(_) => {}
                    Err(e) => {
                        if let Some(p) = error_path(&e) {
                            unreadable.lock().expect("walk").push(p.to_path_buf());
                        }
                    }
                }
                ignore::WalkState::Continue
            })
        });
    }
    Found {
        files: files.into_inner().expect("walk"),
        dirs: dirs.into_inner().expect("walk"),
        unreadable: unreadable.into_inner().expect("walk"),
    }
}

/// The relative paths (index bytes) a walk found.
type Seen<'a> = HashSet<Cow<'a, [u8]>>;

/// Puts in `out` the found files whose entry in `ix` is missing, of another identity or
/// racy; returns every found file's relative path, and the changed files written within
/// the racy window (left for a later round).
fn changed_files<'f>(
    ix: &TrigramIndex,
    root: &Path,
    found: &'f [(PathBuf, Option<Ident>)],
    out: &mut Walked,
) -> (Seen<'f>, Vec<PathBuf>) {
    let mut seen: Seen<'f> = HashSet::with_capacity(found.len());
    let mut deferred = Vec::new();
    let now = std::time::SystemTime::now();
    for (p, id) in found {
        let rel = rel_bytes(root, p);
        let same = ix.find(&rel).is_some_and(|i| {
            let f = ix.file(i);
            Some(f.id) == *id && f.flags & FLAG_RACY == 0
        });
        seen.insert(rel);
        if same {
            continue;
        }
        if id.as_ref().is_some_and(|id| racy(id, now)) {
            deferred.push(p.clone());
        } else {
            out.files.push(p.clone());
        }
    }
    (seen, deferred)
}

/// Puts in `out` the entries of `ix` at or under the dirty path `rel` that the walk did not
/// see (`seen`: files, directories): files as gone, directories as no longer walked.
fn gone_under(
    ix: &TrigramIndex,
    root: &Path,
    rel: &[u8],
    (seen, seen_dirs): (&Seen<'_>, &Seen<'_>),
    out: &mut Walked,
) {
    for i in ix.find(rel).into_iter().chain(ix.under(rel)) {
        let f = ix.file(i);
        if !seen.contains(&*f.path) {
            let p = crate::platform::join_slashed(root, os_str(&f.path));
            out.gone.insert(p.clone());
            out.files.push(p);
        }
    }
    let mut gone_dirs = ix.dirs_under(rel);
    if !rel.is_empty() && ix.walked_dir(rel) {
        gone_dirs.push(rel.into());
    }
    for g in gone_dirs {
        if !seen_dirs.contains(&*g) {
            out.dirs.push((g, false));
        }
    }
}

/// The paths of `dirty` at or above any of `changed`.
fn covering(
    dirty: &HashSet<PathBuf>,
    root: &Path,
    changed: impl Iterator<Item = PathBuf>,
) -> HashSet<PathBuf> {
    let mut out = HashSet::new();
    for p in changed {
        for a in p.ancestors().take_while(|a| a.starts_with(root)) {
            if dirty.contains(a) {
                out.insert(a.to_path_buf());
            }
        }
    }
    out
}

impl Changes {
    /// Once `ix` holds these changes (a delta of them was installed): the dirty paths still
    /// with something to do, those over deferred files and over files read within the racy
    /// window (a later round reads them again). Found without walking the paths again: a
    /// change made since the walk came with a newer mark, which keeps its path dirty.
    pub(super) fn taken_in(&self, ix: &TrigramIndex) -> HashSet<PathBuf> {
        let root = ix.root();
        let racy = self.walked.files.iter().filter(|p| {
            ix.find(&rel_bytes(root, p))
                .is_some_and(|i| ix.file(i).flags & FLAG_RACY != 0)
        });
        covering(&self.dirty, root, racy.chain(&self.deferred).cloned())
    }
}

/// Whether a file of identity `id` was written within the racy window before `now`.
fn racy(id: &Ident, now: std::time::SystemTime) -> bool {
    let m = std::time::UNIX_EPOCH
        + std::time::Duration::new(id.mtime.0.max(0) as u64, id.mtime.1.min(999_999_999));
    now.duration_since(m)
        .map_or(true, |age| age < crate::source::RACY_WINDOW)
}

/// Writes `c` as a new segment after `ix`'s (into its store, as the next generation, when
/// it has one) and returns the view with it. `None` if stopped.
pub(super) fn delta(
    ix: &TrigramIndex,
    c: &Changes,
    budget: usize,
    shape: Shape,
    progress: &BuildProgress,
) -> std::io::Result<Option<TrigramIndex>> {
    let root = ix.root();
    let generation = ix.generation() + 1;
    let Some(seg) = write_segment(root, ix.store(), generation, &c.walked.dirs, |w| {
        build::build(root, &c.walked, w, budget, shape, progress)
    })?
    else {
        return Ok(None);
    };
    let mut segs = ix.segments().to_vec();
    segs.push(Arc::new(seg));
    let next = ix.with_segments(segs, generation);
    publish(&next)?;
    Ok(Some(next))
}

/// Publishes `ix` as its store's current generation (nothing without a store).
pub(super) fn publish(ix: &TrigramIndex) -> std::io::Result<()> {
    let Some(store) = ix.store() else {
        return Ok(());
    };
    store.publish(&Manifest {
        generation: ix.generation(),
        root: ix.root().to_path_buf(),
        files: ix.len() as u64,
        segments: ix
            .segments()
            .iter()
            .map(|s| SegRef {
                number: s.number,
                sum: s.sum,
            })
            .collect(),
        sides: Vec::new(),
    })
}

/// Segments merged at once by the policy (and the size ratio of a tier).
const MERGE_FACTOR: usize = 8;
/// Segments smaller than this are all of the lowest tier.
const TIER_FLOOR: usize = 64 * 1024;
/// More segments than this are merged whatever their sizes.
const MAX_SEGMENTS: usize = 24;

/// The size tier of a segment of `bytes`: log base [`MERGE_FACTOR`] of its size over
/// [`TIER_FLOOR`].
fn tier(bytes: usize) -> u32 {
    let mut t = 0;
    let mut s = bytes.max(TIER_FLOOR) / TIER_FLOOR;
    while s >= MERGE_FACTOR {
        s /= MERGE_FACTOR;
        t += 1;
    }
    t
}

/// Which segments to merge (a range of newest ones), given their sizes oldest first:
/// [`MERGE_FACTOR`] newest segments of one tier, merged into one of the next tier (each
/// byte is rewritten once per tier: log of the total over the floor, a handful of times);
/// all of them once the newer segments outweigh a quarter of the oldest (the base, whose
/// replaced entries then cost more than rewriting it); the newest half when there are more
/// than [`MAX_SEGMENTS`].
pub(super) fn plan_merge(sizes: &[usize]) -> Option<std::ops::Range<usize>> {
    let n = sizes.len();
    if n < 2 {
        return None;
    }
    let newer: usize = sizes[1..].iter().sum();
    if newer > sizes[0] / 4 {
        return Some(0..n);
    }
    let t = tier(sizes[n - 1]);
    let run = sizes.iter().rev().take_while(|&&s| tier(s) <= t).count();
    if run >= MERGE_FACTOR {
        return Some(n - run.min(n - 1)..n).filter(|r| r.len() >= 2);
    }
    (n > MAX_SEGMENTS).then_some(n / 2..n)
}

/// Merges segments `range` of `ix` into one (written into its store as the next
/// generation, when it has one) and returns the view with it in their place. Entries that
/// a later segment replaces are dropped, and so are "gone" entries when the range starts at
/// the oldest segment (nothing older is left for them to hide).
pub(super) fn merge(
    ix: &TrigramIndex,
    range: std::ops::Range<usize>,
    shape: Shape,
) -> std::io::Result<TrigramIndex> {
    let segs = ix.segments();
    let from_base = range.start == 0;
    let replaced = |s: usize, path: &[u8]| segs[s + 1..].iter().any(|x| x.find(path).is_some());
    // The entries kept, in path order, with where they come from.
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut dirs: Vec<(Box<[u8]>, bool)> = Vec::new();
    for s in range.clone() {
        for (k, f) in segs[s].files.iter().enumerate() {
            let dropped = f.flags & FLAG_GONE != 0 && from_base;
            if !dropped && !replaced(s, &f.path) {
                kept.push((s, k));
            }
        }
        for (d, walked) in &segs[s].dirs {
            let later = segs[s + 1..].iter().any(|x| x.dir(d).is_some());
            if !later && (*walked || !from_base) {
                dirs.push((d.clone(), *walked));
            }
        }
    }
    kept.sort_unstable_by(|a, b| segs[a.0].files[a.1].path.cmp(&segs[b.0].files[b.1].path));
    dirs.sort_unstable();
    // Each source document's new number.
    let mut map: HashMap<usize, Vec<u32>> = range
        .clone()
        .map(|s| {
            (
                s,
                vec![u32::MAX; *segs[s].docs.last().unwrap_or(&0) as usize],
            )
        })
        .collect();
    let mut files = Vec::with_capacity(kept.len());
    let mut next: u32 = 0;
    for &(s, k) in &kept {
        let seg = &segs[s];
        let f = &seg.files[k];
        let m = map.get_mut(&s).expect("a source");
        for d in seg.docs[k]..seg.docs[k + 1] {
            m[d as usize] = next;
            next += 1;
        }
        files.push(f.clone());
    }
    let generation = ix.generation() + 1;
    let sources: Vec<&Segment> = range.clone().map(|s| &*segs[s]).collect();
    let maps: Vec<&[u32]> = range.clone().map(|s| &map[&s][..]).collect();
    let seg = write_segment(ix.root(), ix.store(), generation, &dirs, |w| {
        merge_lists(&sources, &maps, w, next, shape)?;
        Ok(Some(files))
    })?
    .expect("a merge is not stopped");
    // What the merge read of its sources is checked now that it has read it: damage must
    // not pass into a segment whose checksums would vouch for it.
    for s in &sources {
        if let Err(why) = s.check_all() {
            ix.report_damage(s, &why);
            return Err(std::io::Error::other(format!(
                "a segment file merged is damaged ({why})"
            )));
        }
    }
    let mut out: Vec<Arc<Segment>> = segs[..range.start].to_vec();
    out.push(Arc::new(seg));
    out.extend(segs[range.end..].iter().cloned());
    let view = ix.with_segments(out, generation);
    publish(&view)?;
    Ok(view)
}

/// Writes one block holding the posting lists of `sources` with their documents renumbered
/// by `maps` (`u32::MAX`: dropped), `docs` documents in all.
fn merge_lists<W: Write>(
    sources: &[&Segment],
    maps: &[&[u32]],
    w: &mut Writer<W>,
    docs: u32,
    shape: Shape,
) -> std::io::Result<()> {
    // Not recorded: the caller checks every byte of the sources once they are read.
    let reads = &mut Reads::unrecorded();
    // One cursor per (source, block) over its sorted table.
    let cursors: Vec<(usize, &Block)> = sources
        .iter()
        .enumerate()
        .flat_map(|(i, s)| s.blocks.iter().map(move |b| (i, b)))
        .collect();
    let mut heap: BinaryHeap<std::cmp::Reverse<(Trigram, usize, u64)>> = cursors
        .iter()
        .enumerate()
        .filter(|(_, (_, b))| b.entries > 0)
        .map(|(c, (i, b))| std::cmp::Reverse((sources[*i].table_entry(b, 0, reads).0, c, 0)))
        .collect();
    let post_off = w.postings(&[])?;
    let mut table: Vec<(u32, u32, u32)> = Vec::new();
    let (mut masked, mut plain): (Vec<(u32, u8)>, Vec<u32>) = (Vec::new(), Vec::new());
    let mut buf = Vec::new();
    let mut at: u64 = 0;
    while let Some(&std::cmp::Reverse((t, _, _))) = heap.peek() {
        masked.clear();
        plain.clear();
        while let Some(&std::cmp::Reverse((t2, c, pos))) = heap.peek() {
            if t2 != t {
                break;
            }
            heap.pop();
            let (i, b) = cursors[c];
            let (_, off, n) = sources[i].table_entry(b, pos, reads);
            let p = sources[i].list(b, off, n, reads);
            let map = maps[i];
            let new = |id: u32| map.get(id as usize).copied().filter(|&d| d != u32::MAX);
            masked.extend(
                p.masked
                    .iter()
                    .zip(&p.masks)
                    .filter_map(|(&id, &m)| Some((new(id)?, m))),
            );
            plain.extend(p.plain.iter().filter_map(|&id| new(id)));
            if pos + 1 < b.entries {
                let nt = sources[i].table_entry(b, pos + 1, reads).0;
                heap.push(std::cmp::Reverse((nt, c, pos + 1)));
            }
        }
        let count = masked.len() + plain.len();
        if count == 0 {
            continue;
        }
        masked.sort_unstable();
        plain.sort_unstable();
        buf.clear();
        encode_list(
            &mut buf,
            &masked,
            &plain,
            count as u32 >= shape.masks_min_list,
        );
        let off = u32::try_from(at)
            .map_err(|_| std::io::Error::other("a merged block's lists exceed 4 GiB"))?;
        table.push((t, off, count as u32));
        w.postings(&buf)?;
        at += buf.len() as u64;
    }
    w.end_block(&table, post_off, 0, docs)
}

/// The store's current generation when it is not `current`'s (a writer published since):
/// read as [`TrigramIndex::open`] reads it, with `current`'s segments kept. Only the
/// manifest is read when nothing was published.
pub(super) fn open_other(
    store: &Arc<Store>,
    current: &TrigramIndex,
) -> Result<Option<TrigramIndex>, super::persist::IndexFileError> {
    match store.manifest()? {
        Some(m) if m.generation != current.generation() => {
            let next = TrigramIndex::open(store, Some(current))?;
            Ok(next.filter(|n| n.generation() != current.generation()))
        }
        _ => Ok(None),
    }
}
