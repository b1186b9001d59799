//! The producing side of the ordered visit ([`super::visit`]): the query's paths resolved,
//! and every file they name or contain numbered in path order and queued for the workers, in
//! batches, at most [`WINDOW`] files ahead of the sink. A directory's files come from a ready
//! trigram index (the files it cannot rule out, sorted), from a server's kept list of an
//! earlier walk (still fresh), or from the ordered walk ([`super::walk_ordered`]), which a
//! server records as the list of its next search.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, mpsc};

use super::collect::Display;
use super::walk::walk_builder;
use super::walk_ordered::{Hooks, walk_in_order};
use super::walklist::{WalkCache, WalkKey, WalkRecord};
use super::{GrepError, GrepQuery, Progress};
use crate::error::Error;
use crate::index::Known;
use crate::source;
use crate::workspace::Workspace;

/// How many files the walk may run ahead of the sink at most (four of the largest batches;
/// less while the batches are smaller, see `Queue::window_now`).
pub const WINDOW: u64 = 4 * MAX_BATCH as u64;

/// The largest batch of files handed to a worker at once. Each batch costs hand-overs
/// between threads (the sink wakes for each): 1,024 rather than 256 took a search of the
/// Linux tree from about 1,480 context switches to 900.
const MAX_BATCH: usize = 1024;

/// Where a visited file comes from, which decides how a server may keep its content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Origin {
    /// A query path that names a file.
    Given,
    /// A walk done for the first time (a one-off scan does not pay for caching).
    Walk,
    /// A walk done before, or a server's kept list of one.
    Listed,
    /// Picked by the trigram index (`evict`: all its picks fit in the content cache).
    Index { evict: bool },
    /// Ruled binary by the trigram index: not to be read.
    IndexBinary,
}

/// How a visit finds its files, beyond the query.
#[derive(Clone, Copy, Debug)]
pub(super) struct Plan {
    /// A ready trigram index may narrow the files (off when every file must be seen).
    pub(super) use_index: bool,
    /// Walks are listed and kept between searches (a server's [`WalkCache`]).
    pub(super) keep_lists: bool,
    /// A query path must be a directory or a regular file (the server's rule; the command
    /// line reads what it is given, as ripgrep does).
    pub(super) regular_only: bool,
}

/// A file to visit: its number in path order, the query path it was found under, its path,
/// display name, origin and what the index knows of it.
pub(super) struct Job {
    pub(super) seq: u64,
    pub(super) given: usize,
    pub(super) path: PathBuf,
    pub(super) name: Name,
    pub(super) origin: Origin,
    /// Boxed: most jobs have none, and a job's size is what the workers read per file.
    pub(super) known: Option<Box<Known>>,
}

/// Reading ahead of a visit whose files come slowly: once small files take longer to load
/// than [`SLOW_LOAD`] (their bytes come from the disk, not the system's cache: at least
/// [`SLOW_FILES`] of them and half of those loaded), the workers ask the system for the
/// next [`AHEAD`] files the index picked in their batch before reading each one, so that the
/// disk reads them together instead of one per worker at a time. A visit whose files are
/// cached (a few slow loads are the scheduler's) never reads ahead: that costs an open a file.
#[derive(Default)]
pub(super) struct ReadAhead {
    cold: AtomicBool,
    loads: AtomicUsize,
    slow: AtomicUsize,
}

/// How long a small file may take to load (open, read, close) before it counts as slow;
/// from the cache it takes tens of microseconds.
const SLOW_LOAD: std::time::Duration = std::time::Duration::from_micros(200);
/// The fewest slow loads that make a visit read ahead.
const SLOW_FILES: usize = 8;
/// The largest file whose load time says whether it came from the disk.
const SMALL_FILE: usize = 64 << 10;
/// How many picked files are asked for ahead of the one being read.
const AHEAD: usize = 32;

thread_local! {
    /// This worker's last small file load, if any since the last look: whether it was slow.
    static LOADED: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// Told by the per-file search, on the worker's thread, that it loaded `len` bytes in `took`.
pub(super) fn loaded(len: usize, took: std::time::Duration) {
    if len <= SMALL_FILE {
        LOADED.set(Some(took >= SLOW_LOAD));
    }
}

impl ReadAhead {
    /// Before reading `jobs[i]`: once the visit is slow, the files up to [`AHEAD`] after it
    /// that no worker asked for yet (`asked`: how far the batch's files were asked for).
    pub(super) fn before(&self, jobs: &[Job], i: usize, asked: &AtomicUsize) {
        if !self.cold.load(Ordering::Relaxed) {
            return;
        }
        let end = (i + 1 + AHEAD).min(jobs.len());
        let from = asked.fetch_max(end, Ordering::Relaxed).max(i + 1);
        for j in jobs.get(from..end).unwrap_or_default() {
            if matches!(j.origin, Origin::Index { .. }) {
                crate::platform::read_ahead(&j.path);
            }
        }
    }

    /// After a file was read on this thread: counts its load, and whether the loads so far
    /// say the files come slowly.
    pub(super) fn after(&self) {
        let Some(slow) = LOADED.take() else {
            return;
        };
        let loads = self.loads.fetch_add(1, Ordering::Relaxed) + 1;
        if !slow {
            return;
        }
        let slow = self.slow.fetch_add(1, Ordering::Relaxed) + 1;
        if slow >= SLOW_FILES && slow * 2 >= loads {
            self.cold.store(true, Ordering::Relaxed);
        }
    }
}

/// How a file's display name is made: given, or from the path below its search directory
/// (by the worker, off the walk's thread, with that directory's [`Display`]).
pub(super) enum Name {
    Given(Box<str>),
    Below,
}

/// A query path, resolved: one file, or a directory and its walk.
pub(super) enum Target {
    File(PathBuf, String),
    Dir(PathBuf, Arc<Display>, Box<ignore::WalkBuilder>),
}

/// The query's paths, resolved and checked, with each directory's walk built (a bad glob or
/// type is reported here, before anything is visited).
pub(super) fn resolve(
    ws: &Workspace,
    q: &GrepQuery,
    plan: &Plan,
) -> Result<Vec<(usize, Target)>, GrepError> {
    let w = ws.words();
    let mut targets = Vec::new();
    for (index, given) in q.paths().into_iter().enumerate() {
        let resolved = ws
            .resolve(&given)
            .map_err(|e| GrepError::Param(q.path_error(w, &given, &e)))?;
        let md = std::fs::metadata(&resolved).map_err(|e| {
            GrepError::Param(q.path_error(w, &given, &Error::io(Path::new(&given), e)))
        })?;
        if plan.regular_only && !md.is_dir() && !md.is_file() {
            let e = Error::NotAFile {
                path: resolved.clone(),
                kind: source::file_kind(&md),
            };
            return Err(GrepError::Param(q.path_error(w, &given, &e)));
        }
        let display = Display::new(ws, q, &given, &resolved);
        let target = if md.is_dir() {
            let mut wb = walk_builder(q, &resolved, w)?;
            wb.sort_by_file_name(|a, b| a.cmp(b));
            Target::Dir(resolved, Arc::new(display), Box::new(wb))
        } else {
            let name = display.of(&resolved);
            Target::File(resolved, name)
        };
        targets.push((index, target));
    }
    Ok(targets)
}

/// Counts shared by the threads of a visit.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) files: AtomicU64,
    pub(super) binary: AtomicU64,
    pub(super) errors: Mutex<Vec<String>>,
    pub(super) index: Mutex<Option<crate::index::IndexUse>>,
}

impl Tally {
    pub(super) fn error(&self, e: impl ToString) {
        self.errors.lock().expect("errors").push(e.to_string());
    }

    /// Adds what the index did for one search directory (files it ruled out count as
    /// visited: the index searched them).
    pub(super) fn used_index(&self, u: &crate::index::IndexUse) {
        self.files.fetch_add(u.ruled_out, Ordering::Relaxed);
        let mut used = self.index.lock().expect("index");
        let t = used.get_or_insert_with(Default::default);
        t.in_scope += u.in_scope;
        t.searched += u.searched;
        t.validated |= u.validated;
        t.ruled_out += u.ruled_out;
    }
}

/// What the sink has taken so far; the walk waits on it when it is as far ahead as the queue
/// allows.
pub(super) struct Window {
    pub(super) taken: Mutex<u64>,
    pub(super) moved: Condvar,
    /// The walk waits on `moved` (so a move is worth a wake-up).
    pub(super) waiting: AtomicBool,
}

/// Whether a visit is over: its sink stopped (`halt`) or its caller cancelled it.
pub(super) struct Over<'a> {
    pub(super) halt: AtomicBool,
    pub(super) progress: &'a Progress,
}

impl Over<'_> {
    pub(super) fn is(&self) -> bool {
        self.halt.load(Ordering::Relaxed) || self.progress.is_cancelled()
    }
}

/// The files in path order, handed to the workers in batches (growing from one file to
/// [`MAX_BATCH`], so the first file goes out at once and later ones cost few hand-overs;
/// each a quarter of the files queued before it, so the front batch is never much of the
/// work), at most four batches (and 1,024 files or more) ahead of the sink.
pub(super) struct Queue<'a> {
    seq: u64,
    /// What the sink had taken when last looked at (it only grows).
    taken: u64,
    batch: Vec<Job>,
    cap: usize,
    jobs: mpsc::Sender<Vec<Job>>,
    window: &'a Window,
    over: &'a Over<'a>,
}

impl<'a> Queue<'a> {
    pub(super) fn new(
        jobs: mpsc::Sender<Vec<Job>>,
        window: &'a Window,
        over: &'a Over<'a>,
    ) -> Queue<'a> {
        Queue {
            seq: 0,
            taken: 0,
            batch: Vec::new(),
            cap: 1,
            jobs,
            window,
            over,
        }
    }

    /// Numbers and queues one file; `false` once the visit is over.
    fn push(&mut self, job: (usize, PathBuf, Name, Origin, Option<Known>)) -> bool {
        let window = self.window_now();
        if self.seq >= self.taken + window {
            self.taken = *self.window.taken.lock().expect("window");
        }
        if self.seq >= self.taken + window {
            // The sink waits for what is batched here: hand it over before waiting.
            if !self.flush() {
                return false;
            }
            let mut taken = self.window.taken.lock().expect("window");
            self.window.waiting.store(true, Ordering::Relaxed);
            while self.seq >= *taken + window && !self.over.is() {
                taken = self.window.moved.wait(taken).expect("window");
            }
            self.taken = *taken;
            self.window.waiting.store(false, Ordering::Relaxed);
        }
        if self.over.is() {
            return false;
        }
        let (given, path, name, origin, known) = job;
        self.batch.push(Job {
            seq: self.seq,
            given,
            path,
            name,
            origin,
            known: known.map(Box::new),
        });
        self.seq += 1;
        if self.batch.len() >= self.cap {
            // A quarter of the files queued so far: the batch at the front, which one worker
            // may be left doing alone while the other starts the next, stays a small part of
            // the work (a search that stops at a cap stops inside it).
            self.cap = (self.seq as usize / 4).clamp(1, MAX_BATCH);
            return self.flush();
        }
        true
    }

    /// How far ahead of the sink the walk may be now: four batches of the current size, and
    /// at least 1,024 files (at most [`WINDOW`]).
    fn window_now(&self) -> u64 {
        (4 * self.cap as u64).clamp(1024, WINDOW)
    }

    /// Hands the batch over; `false` once nobody takes it.
    pub(super) fn flush(&mut self) -> bool {
        self.batch.is_empty() || self.jobs.send(std::mem::take(&mut self.batch)).is_ok()
    }
}

/// The producing thread's state: the query, the visit's counts and the queue.
pub(super) struct Producer<'q, 'a> {
    pub(super) ws: &'a Workspace,
    pub(super) q: &'a GrepQuery,
    pub(super) plan: Plan,
    pub(super) tally: &'a Tally,
    pub(super) queue: &'q mut Queue<'a>,
}

impl Producer<'_, '_> {
    /// Every file of the query's paths in path order, queued; stops when the queue does (the
    /// visit is over).
    pub(super) fn run(&mut self, targets: Vec<(usize, Target)>) {
        for (given, target) in targets {
            let go_on = match target {
                Target::File(path, name) => {
                    let job = (given, path, Name::Given(name.into()), Origin::Given, None);
                    self.queue.push(job)
                }
                Target::Dir(dir, _, wb) => {
                    let sel = self.plan.use_index.then(|| self.indexed(&dir, &wb));
                    match sel.flatten() {
                        Some(sel) => self.selection(given, sel),
                        None if self.plan.keep_lists => self.walk_listed(given, &dir, &wb),
                        None => self.walk(given, &dir, &wb, Origin::Walk, None),
                    }
                }
            };
            if !go_on {
                return;
            }
        }
        self.queue.flush();
    }

    /// Queues the files a ready trigram index picked (its binary files first, not to be read).
    fn selection(&mut self, given: usize, sel: crate::index::Selection) -> bool {
        for e in sel.errors {
            self.tally.error(e);
        }
        self.tally.used_index(&sel.used);
        let progress = self.queue.over.progress;
        let total = sel.search.len() + sel.binary.len();
        progress
            .files_total
            .fetch_add(total as u64, Ordering::Relaxed);
        // The files picked may evict others when they all fit (half the budget, so that a few
        // queries' picks stay together).
        let evict = sel.bytes <= self.ws.content_budget() as u64 / 2;
        let queue = &mut self.queue;
        sel.binary
            .into_iter()
            .all(|b| queue.push((given, b, Name::Below, Origin::IndexBinary, None)))
            && (sel.search.into_iter().zip(sel.known))
                .all(|(f, k)| queue.push((given, f, Name::Below, Origin::Index { evict }, k)))
    }

    /// A server's walk of `dir`: its kept list if still fresh; else walked in order, and the
    /// list kept (from the walk's second time on, so a one-off walk does not pay for one)
    /// when the walk went to its end.
    fn walk_listed(&mut self, given: usize, dir: &Path, wb: &ignore::WalkBuilder) -> bool {
        let key = WalkKey::of(self.q, dir);
        let cache = self.ws.state::<WalkCache>();
        if let Some(list) = cache.fresh(&key) {
            for e in &list.errors {
                self.tally.error(e);
            }
            let progress = self.queue.over.progress;
            let total = list.files.len() as u64;
            progress.files_total.fetch_add(total, Ordering::Relaxed);
            let queue = &mut self.queue;
            return (list.files.iter())
                .all(|f| queue.push((given, f.clone(), Name::Below, Origin::Listed, None)));
        }
        if !cache.walked_before(&key) {
            return self.walk(given, dir, wb, Origin::Walk, None);
        }
        let record = WalkRecord::default();
        let mut files = Vec::new();
        if !self.walk(given, dir, wb, Origin::Listed, Some((&record, &mut files))) {
            return false;
        }
        if !self.queue.over.is() {
            let list = record.finish(&key, files);
            cache.keep(key, list);
        }
        true
    }

    /// Walks `dir` in path order, queueing its files (and recording the walk if asked: its
    /// directories and errors, and its files in order).
    fn walk(
        &mut self,
        given: usize,
        dir: &Path,
        wb: &ignore::WalkBuilder,
        origin: Origin,
        mut record: Option<(&WalkRecord, &mut Vec<PathBuf>)>,
    ) -> bool {
        let over = self.queue.over;
        let tally = self.tally;
        let seen = record.as_ref().map(|(r, _)| *r);
        let error = |e: String| {
            if let Some(r) = seen {
                r.error(&e);
            }
            tally.error(e);
        };
        let dir_seen = seen.map(|r| move |d: &Path| r.dir(d));
        let hooks = Hooks {
            over: &|| over.is(),
            error: &error,
            dir: dir_seen.as_ref().map(|f| f as &(dyn Fn(&Path) + Sync)),
        };
        let queue = &mut self.queue;
        let mut each = |f: Option<PathBuf>| {
            // The walk waits for more: the workers get what is batched meanwhile.
            let Some(f) = f else {
                return queue.flush();
            };
            if let Some((_, files)) = &mut record {
                files.push(f.clone());
            }
            queue.push((given, f, Name::Below, origin, None))
        };
        walk_in_order(self.q, self.ws, dir, wb, &hooks, &mut each)
    }

    /// The files of `dir` a ready trigram index cannot rule out (sorted by path), if there is
    /// one; why not, when an index is building, goes to the progress note.
    fn indexed(&self, dir: &Path, wb: &ignore::WalkBuilder) -> Option<crate::index::Selection> {
        let (ws, q) = (self.ws, self.q);
        let pattern = q.regex_source(ws.words()).ok()?;
        let sq = super::walk::select_query(q, &pattern);
        let mut note = None;
        let sel = crate::index::select(ws, dir, &sq, wb, &mut note);
        if let Some(n) = note {
            *self.queue.over.progress.note.lock().expect("note") = Some(n);
        }
        sel
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(seq: u64) -> Job {
        Job {
            seq,
            given: 0,
            path: PathBuf::from(format!("/nonexistent-mapgrep-ahead/{seq}.c")),
            name: Name::Below,
            origin: Origin::Index { evict: false },
            known: None,
        }
    }

    #[test]
    fn a_visit_reads_ahead_only_once_small_files_load_slowly() {
        let ahead = ReadAhead::default();
        let jobs: Vec<Job> = (0..100).map(job).collect();
        let asked = AtomicUsize::new(0);
        let asked_now = |i: usize| {
            ahead.before(&jobs, i, &asked);
            asked.load(Ordering::Relaxed)
        };
        let load = |len: usize, micros: u64| {
            loaded(len, std::time::Duration::from_micros(micros));
            ahead.after();
        };
        assert_eq!(asked_now(0), 0);
        // Quick small files, slow large ones (their time is their size's), and a few slow
        // small ones among many quick ones (the scheduler's) say nothing.
        for _ in 0..20 {
            load(4_000, 20);
        }
        for _ in 0..5 {
            load(4 << 20, 5_000);
        }
        for _ in 0..7 {
            load(4_000, 900);
        }
        assert_eq!(asked_now(1), 0);
        // Half the loads slow: the files after the next are asked for, each once.
        for _ in 0..20 {
            load(4_000, 900);
        }
        assert_eq!(asked_now(2), 3 + AHEAD);
        assert_eq!(asked_now(3), 4 + AHEAD);
        assert_eq!(asked_now(1), 4 + AHEAD);
        assert_eq!(asked_now(90), 100);
        assert_eq!(asked_now(99), 100);
    }
}
