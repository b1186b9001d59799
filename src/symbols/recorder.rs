//! The recorder: one thread per indexed root that keeps its symbol records up with its
//! index. Once the trigram index is ready it records, in path order and in batches, every
//! indexed file whose current version has no record (the whole tree the first time, then
//! the files each upkeep round took in), skipping dirty ones (the upkeep brings them). A
//! file written within the racy window is recorded as *unvouched* (see [`unvouched`]): its
//! identity cannot vouch for what was read, so the record holds only where the bytes in
//! hand have its checksum (a lookup's candidate, a search's match), and a round after the
//! window records it again. Each batch is a side file of the store, published as soon as
//! it is written, so lookups use what is recorded while the rest is; small side files are
//! merged as they pile up. Searches come first: the recorder waits while one runs. A
//! process that does not hold the store's writer lock only reads the side files the writer
//! publishes.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::code::Stop;
use crate::index::{Ident, SideFile, Store, TrigramIndex};
use crate::source::{self, SourceOptions};
use crate::workspace::Workspace;

use super::FileRecord;
use super::state::{Records, RootRecords, Symbols};

/// A batch is written once it holds this many files, or this many bytes of them.
const BATCH_FILES: usize = 8_192;
const BATCH_BYTES: u64 = 96 << 20;
/// A batch that read at least this much hands the heap its parses freed back to the system.
const RELEASE_AFTER_BYTES: u64 = 8 << 20;

/// More side files than this are merged whatever their sizes (the newest half).
const MAX_PARTS: usize = 32;

/// The identity a record made from a read inside the racy window carries: the file's, with
/// a nanosecond count no file time has, so that no live identity equals it. The file stays
/// unrecorded for the index (a later round records it once its identity can vouch), and the
/// record is used only by its content checksum, from the bytes a lookup or search holds.
fn unvouched(ident: Ident) -> Ident {
    Ident {
        mtime: (ident.mtime.0, u32::MAX),
        ..ident
    }
}

/// The longest a file's record may take (its parse): past it the file is read as text.
const FILE_BUDGET: Duration = Duration::from_secs(3);

/// The recorder's threads: all cores but one (one at least).
fn pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        rayon::ThreadPoolBuilder::new()
            .num_threads(n.saturating_sub(1).max(1))
            .thread_name(|i| format!("mapgrep-record-{i}"))
            .build()
            .expect("the recorder's thread pool")
    })
}

/// How long the recorder waits between looks when nothing is to be done.
const IDLE: Duration = Duration::from_millis(200);

/// Starts recording the symbols of every indexed root of `ws` in the background (after
/// [`crate::index::start`]).
pub fn start(ws: &Arc<Workspace>) {
    for root in crate::index::indexed_roots(ws) {
        let ws = Arc::clone(ws);
        let state = Arc::new(RootRecords::default());
        ws.state::<Symbols>()
            .roots
            .lock()
            .expect("symbols")
            .insert(root.clone(), Arc::clone(&state));
        std::thread::Builder::new()
            .name("mapgrep-symbols".into())
            .spawn(move || run(&ws, &root, &state))
            .expect("spawn the symbol recorder");
    }
}

/// Waits until every indexed root's records hold for all its files (or `limit` passes).
pub fn wait_recorded(ws: &Workspace, limit: Duration) -> bool {
    let t = Instant::now();
    loop {
        let ready = crate::index::indexed_roots(ws)
            .iter()
            .all(|r| crate::index::root_view(ws, r, false).is_some());
        if ready && super::unrecorded_count(ws) == 0 {
            return true;
        }
        if t.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The recorder of one root (see the module docs).
fn run(ws: &Workspace, root: &Path, state: &RootRecords) {
    let symbols = ws.state::<Symbols>();
    let pacer = Pacer::default();
    let mut loaded_refs: Option<Vec<(u64, u64)>> = None;
    while !symbols.stop.load(Ordering::Relaxed) {
        let Some(view) = crate::index::root_view(ws, root, false) else {
            std::thread::sleep(IDLE);
            continue;
        };
        let store = view.store.clone();
        // Take up what the store lists (a reader, or a writer that starts on a store).
        if let Some(s) = &store {
            let refs = s.side_refs();
            if loaded_refs.as_ref() != Some(&refs) {
                let old = state.records().sides();
                if let Ok(sides) = s.side_files(&old) {
                    let next = Records::after(&state.records(), &sides);
                    *state.records.lock().expect("records") = Arc::new(next);
                }
                loaded_refs = Some(refs);
            }
            if !s.try_write() {
                drop_damaged(state, None);
                std::thread::sleep(IDLE * 2);
                continue;
            }
        }
        drop_damaged(state, store.as_deref());
        let only_racy = dirty_files(&view);
        let todo = todo_of(state, &view, &only_racy);
        if todo.is_empty() {
            merge_if_due(state, store.as_deref());
            if let Some(s) = &store {
                loaded_refs = Some(s.side_refs());
            }
            std::thread::sleep(IDLE);
            continue;
        }
        let quiet = || pacer.wait(ws, &symbols.stop);
        let recs = state.records();
        let held = |p: &str| recs.newest_version(p);
        // On a pool of its own, short of one core: searches keep a core and the global pool.
        let (batch, _) = record_batch(
            Batch {
                root: &view.root,
                index: &view.index,
                held: &held,
                only_racy: &only_racy,
            },
            &todo,
            &symbols.stop,
            &quiet,
            Some(pool()),
        );
        drop(recs);
        if batch.is_empty() {
            // Every file of the batch was unreadable, or dirty and not racy (the upkeep's),
            // or racy and recorded from the same bytes already: a later round takes them.
            merge_if_due(state, store.as_deref());
            if let Some(s) = &store {
                loaded_refs = Some(s.side_refs());
            }
            let only_dirty = todo.iter().all(|p| only_racy.contains(p));
            std::thread::sleep(if only_dirty { IDLE } else { IDLE * 5 });
            continue;
        }
        symbols.recorded.fetch_add(batch.len(), Ordering::Relaxed);
        if add_part(state, store.as_deref(), &batch).is_err() {
            std::thread::sleep(IDLE * 5);
        }
        if let Some(s) = &store {
            loaded_refs = Some(s.side_refs());
        }
    }
}

/// What a round records: the dirty files `only_racy` (first), then the files of the index
/// whose records do not hold, outside the dirty paths.
fn todo_of(
    state: &RootRecords,
    view: &crate::index::RootView,
    only_racy: &std::collections::BTreeSet<Box<str>>,
) -> Vec<Box<str>> {
    let recs = state.records();
    let mut fresh = state.fresh.lock().expect("fresh");
    fresh.update(&view.index, &recs);
    let clean = fresh
        .unrecorded
        .iter()
        .filter(|p| !view.is_dirty(&crate::platform::join_slashed(&view.root, &***p)));
    only_racy.iter().chain(clean).cloned().collect()
}

/// Dirty paths past which the recorder leaves them all to the upkeep.
const MAX_DIRTY: usize = 1_000;

/// The dirty paths of `view`, relative to its root: changed files the upkeep takes once
/// past the racy window (a restart after edits, an agent's edit), which the recorder
/// records [`unvouched`] while they are inside it (the others it leaves to the upkeep).
fn dirty_files(view: &crate::index::RootView) -> std::collections::BTreeSet<Box<str>> {
    if view.dirty.len() > MAX_DIRTY {
        return Default::default();
    }
    view.dirty
        .iter()
        .filter_map(|d| {
            let rel = d.strip_prefix(&view.root).ok()?.to_str()?;
            (!rel.is_empty()).then(|| rel.replace(std::path::MAIN_SEPARATOR, "/").into())
        })
        .collect()
}

/// A search (or a tool call) that ended this recently still pauses the recorder: an
/// agent's next call, sent as soon as it read an answer, finds the cores free; short enough
/// that calls every half second still leave the recorder most of each gap.
const QUIET: Duration = Duration::from_millis(250);

/// Paces the recorder around the agent's calls (see [`Pacer::wait`]).
#[derive(Default)]
struct Pacer {
    state: std::sync::Mutex<Pace>,
}

#[derive(Default)]
struct Pace {
    /// Since when the recorder has waited for a quiet moment.
    waiting_since: Option<Instant>,
    /// Recording between calls until then (a stream of calls left no quiet moment).
    burst_until: Option<Instant>,
}

/// A recorder that waited this long for a quiet moment records anyway, for [`BURST`]:
/// calls back to back would otherwise keep it from ever recording (and every grep would
/// parse the same changed files again).
const MAX_PAUSE: Duration = Duration::from_millis(1_000);
const BURST: Duration = Duration::from_millis(150);

impl Pacer {
    /// Waits, before each file, until no search runs and none ended within [`QUIET`] (the
    /// calls of an agent have the cores first, and their answers come at once); after
    /// [`MAX_PAUSE`] without such a moment (calls back to back), records for [`BURST`]
    /// beside them (on its one thread), then waits again.
    fn wait(&self, ws: &Workspace, stop: &AtomicBool) {
        loop {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let now = Instant::now();
            if crate::index::quiet_for(ws) >= QUIET {
                self.state.lock().expect("pace").waiting_since = None;
                return;
            }
            {
                let mut p = self.state.lock().expect("pace");
                match p.burst_until {
                    Some(until) if now < until => return,
                    Some(_) => {
                        p.burst_until = None;
                        p.waiting_since = Some(now);
                    }
                    None => {}
                }
                let since = *p.waiting_since.get_or_insert(now);
                if now - since >= MAX_PAUSE {
                    p.burst_until = Some(now + BURST);
                    p.waiting_since = None;
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The identity and content checksum of the newest record of a path.
type Held<'a> = &'a (dyn Fn(&str) -> Option<(Ident, u64)> + Sync);

/// What a batch records from: the root, its index, the newest record of a path (`held`),
/// and the paths recorded only when racy (dirty ones).
struct Batch<'a> {
    root: &'a Path,
    index: &'a TrigramIndex,
    held: Held<'a>,
    only_racy: &'a std::collections::BTreeSet<Box<str>>,
}

/// Whether the file `rel` at `abs` is left alone this round without being read: a dirty
/// file past the racy window (the upkeep's), or a racy one whose newest record was made
/// unvouched from a version of the same identity (its change time included). Both are
/// looked at again each round until the window ends; a stat is all that costs, where a
/// read would cost the file (a file dated in the future stays racy for good).
fn skip_unread(
    abs: &Path,
    rel: &str,
    held: Held<'_>,
    only_racy: &std::collections::BTreeSet<Box<str>>,
    now: std::time::SystemTime,
) -> bool {
    let known = held(rel).filter(|k| k.0.mtime.1 == u32::MAX);
    let dirty = only_racy.contains(rel);
    if !dirty && known.is_none() {
        return false;
    }
    let Ok(md) = std::fs::metadata(abs) else {
        return true;
    };
    let id = source::FileId::from_metadata(&md);
    let racy = md.is_file() && id.is_racy(now);
    (dirty && !racy) || (racy && known.is_some_and(|k| k.0 == unvouched(Ident::from_id(&id))))
}

/// Records the first files of `todo` (a batch) of `at.index`, in parallel, calling `quiet`
/// before each file; files that cannot be read, and files changed within the racy window
/// whose newest record has their checksum already, are left for a later round (a racy file
/// is recorded [`unvouched`]). Returns the records, sorted by path, and how many files of
/// `todo` the batch took.
fn record_batch(
    at: Batch<'_>,
    todo: &[Box<str>],
    stop: &AtomicBool,
    quiet: &(dyn Fn() + Sync),
    on: Option<&rayon::ThreadPool>,
) -> (Vec<FileRecord>, usize) {
    let Batch {
        root,
        index,
        held,
        only_racy,
    } = at;
    let mut bytes = 0u64;
    let mut n = 0;
    for p in todo {
        if n >= BATCH_FILES || bytes >= BATCH_BYTES {
            break;
        }
        bytes += index.find(p.as_bytes()).map_or(0, |i| index.file(i).id.len);
        n += 1;
    }
    let now = std::time::SystemTime::now();
    let is_file = |rel: &str| crate::platform::join_slashed(root, rel).is_file();
    let stopped = super::status_of(crate::code::Unparsed::Stopped);
    let one = |rel: &str| -> Option<FileRecord> {
        quiet();
        let abs = crate::platform::join_slashed(root, rel);
        if skip_unread(&abs, rel, held, only_racy, now) {
            return None;
        }
        let mut buf = Vec::new();
        let (id, hay) = source::load(&abs, &SourceOptions::default(), &mut buf).ok()?;
        let id = id?;
        if !hay.intact() {
            return None;
        }
        let mut ident = Ident::from_id(&id);
        if id.is_racy(now) {
            if held(rel).map(|k| k.1) == Some(super::content_hash(&hay)) {
                return None;
            }
            ident = unvouched(ident);
        } else if only_racy.contains(rel) {
            return None;
        }
        // A file that takes longer than its budget is recorded as read as text (a hostile
        // file must not hold the recorder, nor be tried again each round).
        let parse_stop = Stop::new(Some(stop), Some(Instant::now() + FILE_BUDGET));
        let mut r = super::record(rel, &is_file, ident, &hay, &parse_stop);
        if r.status == stopped {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            r.status = super::SLOW;
            r.symbols.clear();
        }
        Some(r)
    };
    let all = || todo[..n].par_iter().filter_map(|p| one(p)).collect();
    let mut records: Vec<FileRecord> = match on {
        Some(pool) => pool.install(all),
        None => all(),
    };
    records.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    // The heap a large batch's parses freed goes back to the system; trimming after the
    // one-file batches of an editing session would cost more than they free.
    if bytes >= RELEASE_AFTER_BYTES {
        crate::source::release_free_memory();
    }
    (records, n)
}

/// Adds a side file of `batch` to the root's records (written into `store` and published,
/// or held in memory).
fn add_part(
    state: &RootRecords,
    store: Option<&Store>,
    batch: &[FileRecord],
) -> std::io::Result<()> {
    let payload = super::encode::encode(batch);
    let side = match store {
        Some(s) => s.write_side(s.next_side_number(), &payload)?,
        None => SideFile::in_memory(&payload),
    };
    let mut sides = state.records().sides();
    sides.push(Arc::new(side));
    if let Some(s) = store {
        s.publish_sides(&sides)?;
    }
    let next = Records::after(&state.records(), &sides);
    *state.records.lock().expect("records") = Arc::new(next);
    Ok(())
}

/// Drops the side files a read found damaged from the root's records (and, for the writer,
/// from its store): their files are then recorded again.
fn drop_damaged(state: &RootRecords, store: Option<&Store>) {
    let recs = state.records();
    if !recs.parts.iter().any(|p| p.0.side.is_damaged()) {
        return;
    }
    let sides: Vec<Arc<SideFile>> = recs
        .sides()
        .into_iter()
        .filter(|s| !s.is_damaged())
        .collect();
    if let Some(s) = store
        && s.publish_sides(&sides).is_err()
    {
        return;
    }
    let next = Records::after(&recs, &sides);
    *state.records.lock().expect("records") = Arc::new(next);
}

/// Which of the newest side files to merge, given their sizes oldest first. Side files of
/// [`BIG_PART`] bytes or more (a first build's batches) are never merged: merging them
/// would hold all their records at once, and lookups read a few dozen parts in a
/// millisecond. Of the newest run of smaller ones (an upkeep's): the newest run of
/// [`MERGE_RUN`] or more whose sizes are of the newest one's tier or below (factor 8 from
/// 64 KiB: a record is rewritten once per tier), or the newest half past [`MAX_PARTS`].
fn plan_merge(sizes: &[usize]) -> Option<std::ops::Range<usize>> {
    let tier = |b: usize| {
        let (mut t, mut s) = (0u32, b.max(64 << 10) / (64 << 10));
        while s >= 8 {
            s /= 8;
            t += 1;
        }
        t
    };
    let n = sizes.len();
    let small = sizes.iter().rev().take_while(|&&s| s < BIG_PART).count();
    let base = n - small;
    let last = tier(*sizes.last()?);
    let run = sizes[base..]
        .iter()
        .rev()
        .take_while(|&&s| tier(s) <= last)
        .count();
    if run >= MERGE_RUN && (run < small || base > 0) {
        return Some(n - run..n);
    }
    if run >= MERGE_RUN {
        return Some(1..n).filter(|r| r.len() >= 2);
    }
    (small > MAX_PARTS).then_some(n - small / 2..n)
}

/// Side files this large or larger are not merged (see [`plan_merge`]).
const BIG_PART: usize = 4 << 20;

/// Side files merged at once by the policy.
const MERGE_RUN: usize = 8;

/// Merges side files as [`plan_merge`] says; whether it did.
fn merge_if_due(state: &RootRecords, store: Option<&Store>) -> bool {
    let recs = state.records();
    let sizes: Vec<usize> = recs
        .parts
        .iter()
        .map(|p| p.0.side.payload().len())
        .collect();
    let Some(range) = plan_merge(&sizes) else {
        return false;
    };
    let from = range.start;
    let merged = super::merge::records_of(&recs, range);
    let payload = super::encode::encode(&merged);
    let side = match store {
        Some(s) => match s.write_side(s.next_side_number(), &payload) {
            Ok(side) => side,
            Err(_) => return false,
        },
        None => SideFile::in_memory(&payload),
    };
    let mut sides: Vec<Arc<SideFile>> = recs.sides()[..from].to_vec();
    sides.push(Arc::new(side));
    if let Some(s) = store
        && s.publish_sides(&sides).is_err()
    {
        return false;
    }
    let next = Records::after(&recs, &sides);
    *state.records.lock().expect("records") = Arc::new(next);
    true
}

/// Records, into `store`'s side files, every file of `ix` (its index, built or loaded)
/// whose current version has no record there: the one-shot `mapgrep index`, in batches
/// published as they are written, then merged as a server would. `done` counts the files
/// recorded as they are. Files changed within the racy window are recorded [`unvouched`]
/// (a server records them again).
/// Returns the number of files recorded.
pub fn record_index(
    ix: &Arc<TrigramIndex>,
    store: &Store,
    done: &std::sync::atomic::AtomicUsize,
) -> std::io::Result<usize> {
    let state = RootRecords::default();
    let sides = store.side_files(&[]).map_err(std::io::Error::other)?;
    *state.records.lock().expect("records") = Arc::new(Records::new(&sides));
    let never = AtomicBool::new(false);
    let mut left: std::collections::BTreeSet<Box<str>> = std::collections::BTreeSet::new();
    let mut recorded = 0;
    loop {
        let todo: Vec<Box<str>> = {
            let mut fresh = state.fresh.lock().expect("fresh");
            fresh.update(ix, &state.records());
            fresh.unrecorded.difference(&left).cloned().collect()
        };
        if todo.is_empty() {
            break;
        }
        // No search to yield to: on every core.
        let recs = state.records();
        let at = Batch {
            root: ix.root(),
            index: ix,
            held: &|p: &str| recs.newest_version(p),
            only_racy: &Default::default(),
        };
        let (batch, taken) = record_batch(at, &todo, &never, &|| {}, None);
        drop(recs);
        // What the batch tried and did not record (racy, unreadable) is not tried again.
        left.extend(
            todo.into_iter()
                .take(taken)
                .filter(|p| batch.binary_search_by(|r| r.path.as_str().cmp(p)).is_err()),
        );
        if batch.is_empty() {
            continue;
        }
        recorded += batch.len();
        done.fetch_add(batch.len(), Ordering::Relaxed);
        add_part(&state, Some(store), &batch)?;
        merge_if_due(&state, Some(store));
    }
    while merge_if_due(&state, Some(store)) {}
    Ok(recorded)
}

/// Stops the recorders of `ws` (they end within a batch's parse).
pub fn stop(ws: &Workspace) {
    ws.state::<Symbols>().stop.store(true, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::{BIG_PART, MERGE_RUN, plan_merge};

    #[test]
    fn large_side_files_are_never_merged() {
        // A first build's ten batches: left alone.
        let build = vec![BIG_PART * 3; 10];
        assert_eq!(plan_merge(&build), None);
        // Then an upkeep's small ones pile up: they merge among themselves.
        let mut sizes = build.clone();
        sizes.extend(vec![10_000; MERGE_RUN - 1]);
        assert_eq!(plan_merge(&sizes), None);
        sizes.push(10_000);
        assert_eq!(plan_merge(&sizes), Some(10..10 + MERGE_RUN));
        // Past the cap, the newest half of the small ones.
        let mut many = build;
        for k in 0..40 {
            many.push(1 << (16 + k % 6));
        }
        let r = plan_merge(&many).expect("a merge");
        assert!(r.start >= 10 && r.end == many.len(), "{r:?}");
    }

    #[test]
    fn small_side_files_alone_keep_the_oldest() {
        assert_eq!(plan_merge(&[100_000; MERGE_RUN]), Some(1..MERGE_RUN));
        assert_eq!(plan_merge(&[100_000; MERGE_RUN - 1]), None);
        // A larger oldest one and a run of the newest tier.
        let mut s = vec![2 << 20];
        s.extend([70_000; MERGE_RUN]);
        assert_eq!(plan_merge(&s), Some(1..MERGE_RUN + 1));
    }
}
