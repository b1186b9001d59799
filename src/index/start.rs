//! How a root's index starts: in a server, [`start`] sets up the index thread (the watcher,
//! the first index, then the upkeep rounds and the sweep described in the [`super::live`]
//! docs); for a one-shot search, [`load_persisted`] takes the persisted index and, when a
//! server watches the root, its word on what changed.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::TrigramIndex;
use super::live::{IndexOptions, Indexes, RootState, SWEEP_PACE_FILES, new_state, outside_ignores};
use super::store::{Stamp, Store};
use super::watch::{MAX_DIRTY, watch};
use crate::workspace::Workspace;

/// Starts indexing every root of `ws` in the background (watcher first, then the persisted
/// index validated against the tree, or a new build). Searches scan until it is ready.
pub fn start(ws: &Workspace, opts: &IndexOptions) {
    start_for(ws, ws.roots().as_slice(), opts);
}

/// [`start`] for some directories of the workspace (canonical), each indexed as a root.
pub fn start_for(ws: &Workspace, roots: &[PathBuf], opts: &IndexOptions) {
    for root in roots {
        let mut opts = opts.clone();
        if opts.dir.as_ref().is_some_and(|d| !usable_dir(d, roots)) {
            opts.dir = None;
        }
        let store = opts.dir.as_ref().and_then(|d| open_store(d, root));
        if let Some(s) = &store {
            s.touch_used();
        }
        let st = Arc::new(new_state(ws, root, store));
        ws.state::<Indexes>().add(Arc::clone(&st));
        if let (Some(rules), Some(d)) = (opts.prune, &opts.dir) {
            prune_beside(d.clone(), rules, root.clone());
        }
        // The marks directory lies outside the roots: in the index directory (checked
        // above) or the temporary directory; if the latter is inside a root, there are no
        // marks and searches validate by metadata.
        let tmp = std::fs::canonicalize(std::env::temp_dir()).ok();
        let marks = opts
            .dir
            .clone()
            .or_else(|| tmp.filter(|t| !roots.iter().any(|x| t.starts_with(x))));
        // The watch is set up on the index thread: a server answers at once, and searches
        // validate by metadata until the watch is complete.
        std::thread::Builder::new()
            .name("mapgrep-index".into())
            .spawn(move || run(st, &opts, marks))
            .expect("spawn the index thread");
    }
}

/// Whether the index directory `d` may hold index files: outside the roots (never write
/// inside one) and private (0700, created so before anything is put in it, marks
/// included). Says why not; the index is then kept in memory only.
fn usable_dir(d: &Path, roots: &[PathBuf]) -> bool {
    let real = std::path::absolute(d).ok().map(|d| {
        d.ancestors()
            .find_map(|a| {
                let rest = d.strip_prefix(a).ok()?;
                std::fs::canonicalize(a).ok().map(|c| c.join(rest))
            })
            .unwrap_or(d.clone())
    });
    if real.is_none_or(|r| roots.iter().any(|x| r.starts_with(x))) {
        eprintln!(
            "mapgrep: the index directory {} is inside the roots (or unknown); the index is kept in memory only",
            d.display()
        );
        return false;
    }
    if let Err(e) = super::persist::private_dir(d) {
        eprintln!(
            "mapgrep: cannot use the index directory {} ({e}); the index is kept in memory only",
            d.display()
        );
        return false;
    }
    true
}

/// The store of `root` in the index directory `d`, or `None` (said why: the index is then
/// kept in memory only).
fn open_store(d: &Path, root: &Path) -> Option<Arc<Store>> {
    match Store::open(d, root) {
        Ok(s) => Some(Arc::new(s)),
        Err(e) => {
            eprintln!(
                "mapgrep: cannot use the index directory {} ({e}); the index of {} is kept in memory only",
                d.display(),
                root.display()
            );
            None
        }
    }
}

/// Removes unused indexes of other roots from `d`, bounded in time, beside the index's own
/// start.
fn prune_beside(d: PathBuf, rules: super::PruneRules, root: PathBuf) {
    std::thread::spawn(move || {
        let removed = super::prune(&d, rules, Some(&root), Duration::from_secs(2));
        if !removed.is_empty() {
            eprintln!(
                "mapgrep: removed {} unused index(es) from {}",
                removed.len(),
                d.display()
            );
        }
    });
}

/// Uses persisted indexes for a one-shot search of `dirs` (canonical): for each, the index
/// in `index_dir` of the nearest ancestor that has one. No watcher: each search validates
/// files by metadata. Says per root found what happened.
pub fn load_persisted(
    ws: &Workspace,
    index_dir: &Path,
    dirs: &[PathBuf],
) -> Vec<(PathBuf, Result<usize, String>)> {
    let mut out = Vec::new();
    for d in dirs {
        for root in d.ancestors() {
            let Some(store) = Store::existing(index_dir, root) else {
                continue;
            };
            if out.iter().any(|(r, _): &(PathBuf, _)| r == root) {
                break;
            }
            let store = Arc::new(store);
            match TrigramIndex::open(&store, None) {
                Ok(Some(ix)) => {
                    store.touch_used();
                    let ix = trust_watcher(&store, ix);
                    let st = new_state(ws, root, Some(Arc::clone(&store)));
                    if let Some(paths) = &ix.1 {
                        // A watching server vouches for the rest: no file is statted.
                        st.dirty.remote.store(true, Ordering::Relaxed);
                        for p in paths {
                            st.dirty.mark(root, p);
                        }
                    }
                    let ix = ix.0;
                    let n = ix.len();
                    *st.index.write().expect("index") = Some(Arc::new(ix));
                    ws.state::<Indexes>().add(Arc::new(st));
                    out.push((root.to_path_buf(), Ok(n)));
                }
                Ok(None) => {}
                Err(e) => out.push((root.to_path_buf(), Err(e.to_string()))),
            }
            break;
        }
    }
    out
}

/// How long a one-shot search waits for a watching server's answer.
const ASK_LIMIT: Duration = Duration::from_millis(200);

/// The index for a one-shot search, and the dirty paths a server watching the root gives
/// for it (`None`: no watching server answered for this generation; validate by metadata).
fn trust_watcher(store: &Arc<Store>, ix: TrigramIndex) -> (TrigramIndex, Option<Vec<PathBuf>>) {
    let mut ix = ix;
    // An ignore file outside the root changed since the index was published: a server
    // notices that only at its next search, so its word does not cover it.
    let published = store.stamp().map(|s| s.2);
    let outside = outside_ignores(store.root())
        .into_iter()
        .filter_map(|(_, st)| st.and_then(|s| s.1))
        .max();
    if outside.is_some_and(|o| published.is_none_or(|p| o >= p)) {
        return (ix, None);
    }
    for marks in store.watchers() {
        let Some((generation, paths)) = super::watch::ask_watcher(&marks, ASK_LIMIT) else {
            continue;
        };
        if generation != ix.generation() {
            // A newer generation than the one loaded: load it and ask again.
            match TrigramIndex::open(store, Some(&ix)) {
                Ok(Some(next)) if next.generation() == generation => ix = next,
                _ => continue,
            }
        }
        return (ix, Some(paths));
    }
    (ix, None)
}

/// How often the upkeep thread wakes while nothing is dirty (a sweep slice, a look for a
/// newer generation).
const TICK: Duration = Duration::from_millis(500);

/// Whether the dirty paths are due for the upkeep: edits paused for `after`, or the oldest
/// waited four times as long, or too many piled up.
fn due(d: &super::watch::DirtyInner, after: Duration) -> bool {
    let quiet = d.last.is_some_and(|l| l.elapsed() >= after);
    let waited = d.first.is_some_and(|f| f.elapsed() >= after * 4);
    !d.paths.is_empty() && (quiet || waited || d.paths.len() > MAX_DIRTY)
}

/// The index thread of a root: the watcher, the first index, then upkeep rounds when the
/// dirty paths are due or another process published a newer generation, and a sweep slice
/// every tick; a free writer's lock taken over, and a damaged index rebuilt. Ends when the
/// workspace is gone (this thread holds the last reference).
fn run(st: Arc<RootState>, opts: &IndexOptions, marks: Option<PathBuf>) {
    if opts.watch {
        start_watch(&st, marks.as_deref());
    }
    let alive = || Arc::strong_count(&st) > 1;
    if st.first(opts, alive).is_none() {
        return;
    }
    let mut keeper = Keeper {
        sweep_pos: 0,
        swept: Instant::now(),
        failures: 0,
        retry_at: None,
        last_error: String::new(),
        last_stamp: st.store.as_ref().map(|s| s.stamp()),
        waiting_for: None,
        report_seen: None,
    };
    // Files that changed while no server watched (the load's validation found them) are not
    // edits in progress: taken in at once, not after the quiet period edits wait for.
    if !st.dirty.inner.lock().expect("dirty").paths.is_empty() {
        keeper.round(&st, opts);
    }
    while alive() {
        let due = keeper.wait(&st, opts);
        // A writer that ended left the lock free: this process takes it over (and removes
        // what that writer left half-written).
        if let Some(s) = &st.store
            && !s.is_writer()
        {
            s.try_write();
        }
        if keeper.damaged(&st, opts) {
            continue;
        }
        keeper.sweep(&st, opts);
        let stamp = st.store.as_ref().map(|s| s.stamp());
        let newer = stamp != keeper.last_stamp;
        if !(due || newer) || keeper.retry_at.is_some_and(|t| Instant::now() < t) {
            continue;
        }
        keeper.last_stamp = stamp;
        keeper.round(&st, opts);
    }
}

/// Starts the root's watcher, and tells one-shot searches of the root that they may ask it
/// what changed; or says why there is none.
fn start_watch(st: &RootState, marks: Option<&Path>) {
    match watch(&st.root, &st.dirty, marks) {
        Ok(w) => {
            *st._watcher.lock().expect("watcher") = Some(w);
            if let (Some(store), Some(m)) = (&st.store, st.dirty.marks.get()) {
                *st.advertised.lock().expect("advertised") = store.advertise(m.dir());
            }
        }
        Err(e) => eprintln!(
            "mapgrep: cannot watch {} ({e}); the index is used after validating files by metadata",
            st.root.display()
        ),
    }
}

/// What the index thread carries from one tick to the next.
struct Keeper {
    /// Where the sweep goes on.
    sweep_pos: usize,
    /// When the last sweep slice ran.
    swept: Instant,
    /// Upkeep rounds failed in a row.
    failures: u32,
    /// No round before then (a failure's back-off, or files within the racy window).
    retry_at: Option<Instant>,
    /// The last failure said (said once).
    last_error: String,
    /// The store's stamp at the last round: another changes when a generation is published.
    last_stamp: Option<Stamp>,
    /// The dirty set's sequence number at a round that left changes only the writer can
    /// take in: nothing to do until it moves.
    waiting_for: Option<u64>,
    /// The time of the last report of a damaged segment looked at.
    report_seen: Option<std::time::SystemTime>,
}

impl Keeper {
    /// Waits up to a tick for the dirty paths to be due; says whether they are.
    fn wait(&self, st: &RootState, opts: &IndexOptions) -> bool {
        // After a failure nothing is retried before its time: no spinning on a full disk.
        // A process that waits for the writer does nothing until the writer publishes or
        // another change comes.
        let blocked = |d: &super::watch::DirtyInner| {
            self.retry_at.is_some_and(|t| Instant::now() < t) || self.waiting_for == Some(d.seq)
        };
        let d = st.dirty.inner.lock().expect("dirty");
        let d = if due(&d, opts.rebuild_after) && !blocked(&d) {
            d
        } else {
            st.dirty.cond.wait_timeout(d, TICK).expect("dirty").0
        };
        due(&d, opts.rebuild_after) && !blocked(&d)
    }

    /// A slice of the sweep, sized to the ticks since the last one, when this process writes
    /// the store (one sweep per store: what the writer finds it publishes, and the others
    /// pick it up with the next generation).
    fn sweep(&mut self, st: &RootState, opts: &IndexOptions) {
        if self.swept.elapsed() < TICK {
            return;
        }
        let ticks = (self.swept.elapsed().as_millis() / TICK.as_millis()).min(4);
        self.swept = Instant::now();
        let writes = st.store.as_ref().is_none_or(|s| s.is_writer());
        if writes
            && st.dirty.healthy.load(Ordering::Relaxed)
            && let Some(window) = opts.sweep
            && let Some(ix) = st.current()
        {
            // A larger tree takes longer at the same CPU per second.
            let len = ix.len().min(SWEEP_PACE_FILES) as u128;
            let n = len * ticks * TICK.as_millis() / window.as_millis().max(1);
            st.sweep(&ix, &mut self.sweep_pos, (n as usize).max(1));
        }
    }

    /// A damaged index (a search here found it so, or another process reported a segment
    /// of it, which is then checked whole): rebuilt when this process writes the store
    /// (true: the tick went to it). Otherwise searches scan until the writer publishes a new
    /// generation, which a later round loads.
    fn damaged(&mut self, st: &RootState, opts: &IndexOptions) -> bool {
        let Some(ix) = st.current() else {
            return false;
        };
        if let Some(store) = &st.store
            && let Some((r, at)) = store.damage_reported()
            && self.report_seen != Some(at)
        {
            self.report_seen = Some(at);
            let seg = ix
                .segments()
                .iter()
                .find(|s| s.number == r.number && s.sum == r.sum);
            match seg.map(|s| (s, s.check_all())) {
                Some((s, Err(why))) => ix.report_damage(s, &why),
                Some((_, Ok(()))) if store.is_writer() => store.clear_damage(),
                _ => {}
            }
        }
        if !ix.is_damaged() || !st.store.as_ref().is_none_or(|s| s.try_write()) {
            return false;
        }
        if self.retry_at.is_some_and(|t| Instant::now() < t) {
            return true;
        }
        if st.build(opts).is_some() {
            self.failures = 0;
            self.retry_at = None;
        } else {
            self.failures += 1;
            self.retry_at = Some(Instant::now() + Duration::from_secs(1 << self.failures.min(8)));
        }
        true
    }

    /// One upkeep round, and when the next may run.
    fn round(&mut self, st: &RootState, opts: &IndexOptions) {
        let seq = st.dirty.inner.lock().expect("dirty").seq;
        match st.upkeep(opts, false) {
            Ok(round) => {
                self.failures = 0;
                // Files written within the racy window wait until they are past it.
                self.retry_at = round
                    .deferred
                    .then(|| Instant::now() + crate::source::RACY_WINDOW);
                self.waiting_for = round.waiting.then_some(seq);
            }
            Err(e) => {
                // Keep the index and the dirty paths; try again later, and say so once.
                self.failures += 1;
                let wait = Duration::from_secs(1 << self.failures.min(8));
                self.retry_at = Some(Instant::now() + wait);
                let msg = e.to_string();
                if msg != self.last_error {
                    eprintln!(
                        "mapgrep: cannot update the index of {} ({msg}); changed files are searched directly until it can (next try in {} s)",
                        st.root.display(),
                        wait.as_secs()
                    );
                    self.last_error = msg;
                }
            }
        }
    }
}

/// How long [`end_upkeep`] waits for a build and an upkeep round that are writing.
const FINISH_WAIT: Duration = Duration::from_secs(2);

/// Stops watching every root of `ws` and removes the watchers' marks directories and
/// advertisements (a server's clean exit: its index threads end with the process).
pub fn finish(ws: &Workspace) {
    let roots = ws.state::<Indexes>().roots.lock().expect("indexes").clone();
    for r in roots {
        end_upkeep(&r);
        r.advertised.lock().expect("advertised").take();
        r._watcher.lock().expect("watcher").take();
        r.dirty.remove_marks();
    }
}

/// At a clean exit ([`finish`]): what `st`'s threads are writing ends first, within
/// [`FINISH_WAIT`], so that the exit leaves no temporary file behind. A build or an upkeep
/// round's delta is told to stop (its temporary file removed); a merge is waited for (its
/// file renamed into place). No upkeep round starts after (its lock stays taken until the
/// process ends). What is still being written after the wait is removed.
fn end_upkeep(st: &RootState) {
    end_writers(st);
    if let Some(s) = &st.store {
        s.remove_own_temps();
    }
}

/// Tells `st`'s build and upkeep delta to stop, waits for them and for a merge (within
/// [`FINISH_WAIT`]), and keeps the upkeep lock.
fn end_writers(st: &RootState) {
    for p in [&st.building, &st.delta] {
        if let Some(p) = p.lock().expect("progress").as_ref() {
            p.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
    let t = Instant::now();
    while st.building.lock().expect("building").is_some() && t.elapsed() < FINISH_WAIT {
        std::thread::sleep(Duration::from_millis(10));
    }
    loop {
        match st.upkeep.try_lock() {
            Ok(held) => {
                std::mem::forget(held);
                return;
            }
            Err(std::sync::TryLockError::WouldBlock) if t.elapsed() < FINISH_WAIT => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(_) => return,
        }
    }
}
