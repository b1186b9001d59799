//! The index a workspace keeps per root: built (or loaded and validated) in the background,
//! kept fresh by a file watcher, and asked by a search which files to read.
//!
//! Freshness. The watcher (notify: inotify on Linux) is started before the build walks the
//! tree, so no change is lost. Every created, changed, renamed or deleted path is "dirty":
//! index entries at or below it are not trusted, and the search walks the dirty paths
//! themselves (with the scan's rules) and reads what it finds there. A change to an ignore
//! file dirties its whole directory. Before a search trusts the dirty set it makes sure the
//! watcher has caught up: it creates a numbered mark file in a private directory outside the
//! roots (mode 0700, in the index directory or the temporary directory) that the same
//! watcher watches, and waits for the watcher to report that mark. The kernel queues one
//! watcher's events in order, so every change made before the search began has been seen
//! by then; no other process writes there, so nothing else can end the wait early. (Where
//! each watched directory reports on its own, as on Windows, the search waits for two marks
//! in turn: [`crate::platform::WATCH_MARKS`].) Dirty paths are taken in by the upkeep
//! ([`super::upkeep`]) once edits pause: what changed under them goes into a small new
//! segment, and a dirty path is dropped once the index holds what is there (an index and
//! the dirty paths it goes with are read and changed together, under the dirty set's lock).
//! A process that does not hold its store's writer lock only picks up the segments the
//! writer publishes.
//!
//! A watcher sees no change made through another hard link of a file, or through a shared
//! memory map: a sweep compares every indexed file's identity with the file, a slice at a
//! time, so that the whole tree is checked within [`SWEEP_WINDOW`] (a tree of more than
//! [`SWEEP_PACE_FILES`] files at the same pace, so within a longer window). Only the writer of a
//! store sweeps: what it finds goes into the next generation, which the others pick up.
//!
//! Without a working watcher (none wanted, none available, or events lost to an overflow),
//! the index is used only after validating by metadata: the search walks its directory as
//! the scan does and trusts an entry only if the file's identity is the recorded one.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use super::TrigramIndex;
use super::build::BuildProgress;
use super::searching::{Searches, Searching};
use super::store::Store;
use super::upkeep;
use super::watch::Dirty;
use crate::workspace::Workspace;

/// How a workspace indexes its roots.
#[derive(Clone, Debug)]
pub struct IndexOptions {
    /// Where index files are kept (`None`: in memory only, nothing written).
    pub dir: Option<PathBuf>,
    /// Heap budget of the posting lists held while building.
    pub budget: usize,
    /// Watch the roots for changes (else every search validates by metadata).
    pub watch: bool,
    /// The upkeep takes dirty files in once no change came for this long (or once the
    /// oldest has waited four times as long).
    pub rebuild_after: Duration,
    /// How files are cut into documents, and which postings carry next masks.
    pub shape: super::Shape,
    /// Prune the index directory when the index starts (`None`: leave it).
    pub prune: Option<super::PruneRules>,
    /// The sweep compares every indexed file with its file within this long (`None`: no
    /// sweep; see the module docs).
    pub sweep: Option<Duration>,
}

impl Default for IndexOptions {
    fn default() -> IndexOptions {
        IndexOptions {
            dir: super::default_dir(),
            budget: super::DEFAULT_BUILD_BUDGET,
            watch: true,
            rebuild_after: Duration::from_millis(2500),
            shape: super::Shape::default(),
            prune: None,
            sweep: Some(SWEEP_WINDOW),
        }
    }
}

/// Where the index of a root stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexStatus {
    /// Being built: files read so far, of how many (0: still walking).
    Building {
        done: u64,
        total: u64,
    },
    Ready {
        files: usize,
        bytes: usize,
        /// Segments in the current view.
        segments: usize,
        /// Fresh by the watcher (else validated by metadata on every search).
        watched: bool,
        dirty: usize,
    },
    Failed(String),
}

/// How a search used the index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexUse {
    /// Files under the search path the index knows.
    pub in_scope: u64,
    /// Files read because the index could not rule them out (candidates, dirty, changed).
    pub searched: u64,
    /// Files checked by metadata (no watcher) rather than trusted from the watcher.
    pub validated: bool,
    /// Text files the index ruled out (counted as searched: the index searched them).
    pub ruled_out: u64,
}

/// The indexes of a workspace's roots ([`Workspace::state`]).
#[derive(Default)]
pub struct Indexes {
    pub(super) roots: Mutex<Vec<Arc<RootState>>>,
    /// Searches running (see [`searching`]).
    searches: Searches,
}

/// How long ago the last search of `ws` ended (zero while one runs; long ago when none
/// ran): background work that would take the cores waits for a quiet moment.
pub fn quiet_for(ws: &Workspace) -> std::time::Duration {
    ws.state::<Indexes>().searches.quiet_for()
}

/// Marks a search of `ws` as running while the guard lives: a build in the background
/// pauses between batches of files meanwhile, so a fresh server's first searches (scans)
/// have the cores.
pub fn searching(ws: &Workspace) -> Searching {
    ws.state::<Indexes>().searches.start()
}

pub(super) struct RootState {
    pub(super) root: PathBuf,
    pub(super) index: RwLock<Option<Arc<TrigramIndex>>>,
    pub(super) building: Mutex<Option<Arc<BuildProgress>>>,
    /// The delta an upkeep round is writing, if one is: stopped at a clean exit
    /// ([`super::finish`]).
    pub(super) delta: Mutex<Option<Arc<BuildProgress>>>,
    /// The workspace's running searches ([`Indexes::searches`]).
    pub(super) searches: Arc<AtomicUsize>,
    pub(super) failed: Mutex<Option<String>>,
    pub(super) dirty: Arc<Dirty>,
    /// Where its index is stored (`None`: in memory only).
    pub(super) store: Option<Arc<Store>>,
    /// Held by an upkeep round (one at a time).
    pub(super) upkeep: Mutex<()>,
    /// This process's watch as advertised in the store (removed when dropped).
    pub(super) advertised: Mutex<Option<super::store::Advert>>,
    /// The ignore sources outside the root as the last search saw them.
    pub(super) outside: Mutex<Option<Stamps>>,
    /// The watcher, kept alive while the state lives.
    pub(super) _watcher: Mutex<Option<notify::RecommendedWatcher>>,
    /// The last walk of dirty paths a search made, for the next search of the same dirty
    /// set (what it found changes only with a new mark).
    pub(super) walked: Mutex<Option<DirtyWalk>>,
}

impl Indexes {
    pub(super) fn for_dir(&self, dir: &Path) -> Option<Arc<RootState>> {
        let roots = self.roots.lock().expect("indexes");
        roots.iter().find(|r| dir.starts_with(&r.root)).cloned()
    }

    pub(super) fn roots(&self) -> Vec<PathBuf> {
        let roots = self.roots.lock().expect("indexes");
        roots.iter().map(|r| r.root.clone()).collect()
    }

    pub(super) fn running(&self) -> usize {
        self.searches.running.load(Ordering::Relaxed)
    }

    pub(super) fn add(&self, r: Arc<RootState>) {
        let mut roots = self.roots.lock().expect("indexes");
        roots.retain(|x| x.root != r.root);
        roots.push(r);
    }
}

pub(super) fn new_state(ws: &Workspace, root: &Path, store: Option<Arc<Store>>) -> RootState {
    RootState {
        root: root.to_path_buf(),
        index: RwLock::new(None),
        building: Mutex::new(None),
        delta: Mutex::new(None),
        searches: Arc::clone(&ws.state::<Indexes>().searches.running),
        failed: Mutex::new(None),
        dirty: Arc::new(Dirty::default()),
        store,
        upkeep: Mutex::new(()),
        advertised: Mutex::new(None),
        outside: Mutex::new(Some(outside_ignores(root))),
        _watcher: Mutex::new(None),
        walked: Mutex::new(None),
    }
}

/// Waits until every root's index is ready or failed (or `limit` passes).
pub fn wait_ready(ws: &Workspace, limit: Duration) -> bool {
    let t = Instant::now();
    loop {
        let all = status(ws)
            .iter()
            .all(|(_, s)| !matches!(s, IndexStatus::Building { .. }));
        if all {
            return true;
        }
        if t.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Where the index of each root stands.
pub fn status(ws: &Workspace) -> Vec<(PathBuf, IndexStatus)> {
    let roots = ws.state::<Indexes>().roots.lock().expect("indexes").clone();
    roots.iter().map(|r| (r.root.clone(), r.status())).collect()
}

impl RootState {
    pub(super) fn status(&self) -> IndexStatus {
        if let Some(p) = self.building.lock().expect("building").as_ref()
            && self.index.read().expect("index").is_none()
        {
            return IndexStatus::Building {
                done: p.files_done.load(Ordering::Relaxed),
                total: p.files_total.load(Ordering::Relaxed),
            };
        }
        if let Some(ix) = self.index.read().expect("index").as_ref() {
            return IndexStatus::Ready {
                files: ix.len(),
                bytes: ix.size(),
                segments: ix.segments().len(),
                watched: self.dirty.healthy.load(Ordering::Relaxed),
                dirty: self.dirty.inner.lock().expect("dirty").paths.len(),
            };
        }
        match self.failed.lock().expect("failed").as_ref() {
            Some(e) => IndexStatus::Failed(e.clone()),
            None => IndexStatus::Building { done: 0, total: 0 },
        }
    }

    /// The current index.
    pub(super) fn current(&self) -> Option<Arc<TrigramIndex>> {
        self.index.read().expect("index").clone()
    }

    /// Installs `ix`; then drops the dirty paths of `clean` whose mark is still the one
    /// given (no change came since), both under the dirty set's lock, so that a search
    /// never pairs an index with dirty paths that belong to another.
    fn install(&self, ix: Arc<TrigramIndex>, clean: &[(PathBuf, u64)]) {
        let mut d = self.dirty.inner.lock().expect("dirty");
        self.dirty
            .generation
            .store(ix.generation(), Ordering::Relaxed);
        *self.index.write().expect("index") = Some(ix);
        for (p, seq) in clean {
            if d.paths.get(p) == Some(seq) {
                d.paths.remove(p);
            }
        }
        if d.paths.is_empty() {
            d.first = None;
        }
    }

    /// An index to start from: the persisted one (validated against the tree, its
    /// changes marked dirty), or a new build. `None` when none could be had (said why).
    pub(super) fn first(
        &self,
        opts: &IndexOptions,
        alive: impl Fn() -> bool,
    ) -> Option<Arc<TrigramIndex>> {
        let mut waited = false;
        while alive() {
            if let Some(store) = &self.store {
                let t = Instant::now();
                match TrigramIndex::open(store, None) {
                    Ok(Some(mut ix)) => {
                        let (changed, total, unreadable) = self.validate(&ix);
                        ix.unreadable = unreadable;
                        // A tree that changed this much is rebuilt (by the writer); else
                        // the changes stay dirty for the upkeep.
                        // A lock no one holds is taken over (its temporary files removed):
                        // this process then sweeps and takes changes in.
                        let writer = store.try_write();
                        let rebuild = changed * 2 > total.max(1) && writer;
                        if !rebuild {
                            eprintln!(
                                "mapgrep: index of {} loaded from {} ({total} files, {changed} changed since; ready in {} ms)",
                                self.root.display(),
                                store.dir().display(),
                                t.elapsed().as_millis()
                            );
                            let ix = Arc::new(ix);
                            self.install(Arc::clone(&ix), &[]);
                            return Some(ix);
                        }
                    }
                    Ok(None) => {}
                    Err(e) => {
                        if !store.try_write() {
                            // The writer will rebuild it: wait for a good one.
                            if !waited {
                                eprintln!("mapgrep: {e}; waiting for the process that writes it");
                                waited = true;
                            }
                            std::thread::sleep(Duration::from_millis(200));
                            continue;
                        }
                        eprintln!("mapgrep: {e}; rebuilding it");
                    }
                }
                if !store.try_write() {
                    // Another process builds it: searches scan meanwhile.
                    if !waited {
                        eprintln!(
                            "mapgrep: the index of {} is being built by another process; using it once it is written",
                            self.root.display()
                        );
                        waited = true;
                    }
                    std::thread::sleep(Duration::from_millis(200));
                    continue;
                }
            }
            return self.build(opts);
        }
        None
    }

    /// Builds the whole index (written to the store, which this process holds); the dirty
    /// paths seen before it began are taken in by it.
    pub(super) fn build(&self, opts: &IndexOptions) -> Option<Arc<TrigramIndex>> {
        let seq = self.dirty.inner.lock().expect("dirty").seq;
        let progress = Arc::new(BuildProgress::yielding_to(Arc::clone(&self.searches)));
        *self.building.lock().expect("building") = Some(Arc::clone(&progress));
        let t = Instant::now();
        let built = TrigramIndex::build(
            &self.root,
            self.store.as_ref(),
            opts.budget,
            opts.shape,
            &progress,
        );
        *self.building.lock().expect("building") = None;
        match built {
            Ok(Some(ix)) => {
                let line = format!(
                    "mapgrep: index of {} built ({} files, {} bytes{}; {:.1} s)",
                    self.root.display(),
                    ix.len(),
                    ix.size(),
                    ix.file_dir()
                        .map_or(String::from(", in memory"), |f| format!(
                            ", in {}",
                            f.display()
                        )),
                    t.elapsed().as_secs_f64()
                );
                let ix = Arc::new(ix);
                {
                    let mut d = self.dirty.inner.lock().expect("dirty");
                    self.dirty
                        .generation
                        .store(ix.generation(), Ordering::Relaxed);
                    *self.index.write().expect("index") = Some(Arc::clone(&ix));
                    d.paths.retain(|_, s| *s > seq);
                }
                // The build's posting lists are freed: give that heap back (before saying
                // the index is built, so that what one sees then is the server's footprint).
                crate::source::release_free_memory();
                eprintln!("{line}");
                Some(ix)
            }
            Ok(None) => None,
            Err(e) => {
                *self.failed.lock().expect("failed") = Some(e.to_string());
                eprintln!(
                    "mapgrep: cannot build the index of {}: {e}",
                    self.root.display()
                );
                None
            }
        }
    }

    /// A newer generation in the store, written by another process (none for the writer).
    fn newer(&self, ix: &Arc<TrigramIndex>) -> Option<Arc<TrigramIndex>> {
        let store = self.store.as_ref()?;
        if store.is_writer() || ix.store().is_none() {
            return None;
        }
        let mut next = upkeep::open_other(store, ix).ok()??;
        next.unreadable = ix.unreadable.clone();
        Some(Arc::new(next))
    }

    /// The segment of the changes `c` after `ix`, written while [`RootState::delta`] names
    /// its progress (so that an exit can stop it); `None` if the exit stopped it.
    fn write_delta(
        &self,
        ix: &TrigramIndex,
        c: &upkeep::Changes,
        opts: &IndexOptions,
    ) -> std::io::Result<Option<TrigramIndex>> {
        let progress = Arc::new(BuildProgress::yielding_to(Arc::clone(&self.searches)));
        *self.delta.lock().expect("delta") = Some(Arc::clone(&progress));
        let written = upkeep::delta(ix, c, opts.budget, opts.shape, &progress);
        *self.delta.lock().expect("delta") = None;
        written
    }

    /// One round of upkeep (see the module docs): a newer generation from the store, what
    /// changed under the dirty paths written as a segment (by the writer), merges the
    /// policy asks for, and the dirty paths the index now holds dropped.
    pub(super) fn upkeep(&self, opts: &IndexOptions, merge_all: bool) -> std::io::Result<Round> {
        let _one = self.upkeep.lock().expect("upkeep");
        let Some(mut ix) = self.current() else {
            return Ok(Round::default());
        };
        if let Some(next) = self.newer(&ix) {
            ix = next;
            self.install(Arc::clone(&ix), &[]);
        }
        let snap: Vec<(PathBuf, u64)> = {
            let d = self.dirty.inner.lock().expect("dirty");
            d.paths.iter().map(|(p, s)| (p.clone(), *s)).collect()
        };
        if snap.is_empty() && !merge_all {
            return Ok(Round::default());
        }
        let paths: Vec<PathBuf> = snap.iter().map(|p| p.0.clone()).collect();
        let mut c = upkeep::changes(&ix, &paths);
        let writer = self.store.as_ref().is_none_or(|s| s.try_write());
        if !c.is_empty() && writer {
            // A store taken over from a writer that died may hold a newer generation.
            if let Some(next) = self
                .store
                .as_ref()
                .and_then(|s| upkeep::open_other(s, &ix).ok().flatten())
            {
                let mut next = next;
                next.unreadable = ix.unreadable.clone();
                ix = Arc::new(next);
                self.install(Arc::clone(&ix), &[]);
                c = upkeep::changes(&ix, &paths);
            }
            if !c.is_empty() {
                let Some(mut next) = self.write_delta(&ix, &c, opts)? else {
                    // Stopped by the exit: nothing written, the dirty paths kept.
                    return Ok(Round::default());
                };
                next.unreadable.extend(c.unreadable.iter().cloned());
                next.unreadable.sort_unstable();
                next.unreadable.dedup();
                let mut next = Arc::new(next);
                self.install(Arc::clone(&next), &[]);
                while let Some(r) = upkeep::plan_merge(
                    &next
                        .segments()
                        .iter()
                        .map(|s| s.bytes().len())
                        .collect::<Vec<_>>(),
                ) {
                    let mut merged = upkeep::merge(&next, r, opts.shape)?;
                    merged.unreadable = next.unreadable.clone();
                    next = Arc::new(merged);
                    self.install(Arc::clone(&next), &[]);
                }
                ix = next;
                c.unclean = c.taken_in(&ix);
            }
        }
        if merge_all && writer && ix.segments().len() > 1 {
            let mut merged = upkeep::merge(&ix, 0..ix.segments().len(), opts.shape)?;
            merged.unreadable = ix.unreadable.clone();
            ix = Arc::new(merged);
        }
        let clean: Vec<(PathBuf, u64)> = snap
            .into_iter()
            .filter(|(p, _)| !c.unclean.contains(p))
            .collect();
        self.install(ix, &clean);
        Ok(Round {
            deferred: !c.deferred.is_empty(),
            waiting: !writer && !c.unclean.is_empty(),
        })
    }
}

/// By default, the whole tree is compared with the index by the sweep within this long; a
/// tree of more than SWEEP_PACE_FILES at the same pace, in a longer window (module docs).
pub const SWEEP_WINDOW: Duration = Duration::from_secs(30);
/// At most this many files per window: about 1,000 stats a second (the Linux tree's 78,000
/// files within 78 s), 0.1 s of CPU per 30 s on the 2-core machine of BENCHMARKS.md.
pub const SWEEP_PACE_FILES: usize = 30_000;

/// What an upkeep round left to a later one.
#[derive(Default)]
pub(super) struct Round {
    /// Changed files written within the racy window: read once they are past it.
    pub deferred: bool,
    /// Changes only the writer can take in: nothing to do before it publishes a newer
    /// generation or another change comes.
    pub waiting: bool,
}

/// Runs an upkeep round for every root of `ws` now (and with `merge_all`, merges all
/// segments into one): for tests that force merges at chosen points.
#[cfg(test)]
pub(crate) fn upkeep_now(ws: &Workspace, opts: &IndexOptions, merge_all: bool) {
    let roots = ws.state::<Indexes>().roots.lock().expect("indexes").clone();
    for r in roots {
        let _ = r.upkeep(opts, merge_all).expect("upkeep");
    }
}

/// Paths with their (size, modification time), `None` when absent.
pub(super) type Stamps = Vec<(PathBuf, Option<(u64, Option<std::time::SystemTime>)>)>;

/// Ignore sources outside the root that no watcher sees: git's global excludes file and the
/// configs that name it, and the ignore files of the root's ancestors, with their stamps.
pub(super) fn outside_ignores(root: &Path) -> Stamps {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let mut paths: Vec<PathBuf> = ignore::gitignore::gitconfig_excludes_path()
        .into_iter()
        .collect();
    paths.extend(home.map(|h| h.join(".gitconfig")));
    if let Some(x) = xdg {
        paths.push(x.join("git").join("config"));
        paths.push(x.join("git").join("ignore"));
    }
    for a in root.ancestors().skip(1) {
        for f in [".gitignore", ".ignore", ".rgignore"] {
            paths.push(a.join(f));
        }
    }
    paths
        .into_iter()
        .map(|p| {
            let st = std::fs::metadata(&p)
                .ok()
                .map(|m| (m.len(), m.modified().ok()));
            (p, st)
        })
        .collect()
}

/// What a walk of a search directory's dirty paths is for: the dirty set (its sequence
/// number), the directory, the paths walked and the size limit (the rest of a default walk
/// is fixed).
#[derive(Clone, PartialEq, Eq)]
pub(super) struct WalkKey {
    pub(super) seq: u64,
    pub(super) dir: PathBuf,
    pub(super) relevant: Vec<PathBuf>,
    pub(super) max_filesize: Option<u64>,
}

/// A walk of dirty paths and what it found (files, errors).
#[derive(Clone)]
pub(super) struct DirtyWalk {
    pub(super) key: WalkKey,
    pub(super) found: Arc<WalkFound>,
}

/// The files a walk of dirty paths found, and what it could not read.
pub(super) type WalkFound = (Vec<PathBuf>, Vec<String>);
