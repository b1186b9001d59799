//! The files a search would read, handed in path order to a front-end that matches and prints
//! by itself (the command line: every ripgrep mode). The same paths, ignore rules, globs,
//! types, size limit and binary rule as [`super::search`].
//!
//! The pipeline streams: one thread numbers the files in path order, as the ordered walk
//! ([`super::walk_ordered`]) hands them over, or the sorted files a ready trigram index cannot
//! rule out; worker threads load and process them in parallel (`work`), in batches of files
//! numbered in a row; the calling thread hands the results to the sink in that numbering. The walk stays at most [`WINDOW`] files ahead of
//! the sink, so memory holds a bounded number of results whatever the tree's size, and a sink
//! that stops (a closed pipe, a cap reached) stops the walk and the workers at once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

use super::collect::Display;
use super::walk::walk_builder;
use super::walk_ordered::walk_in_order;
use super::{GrepError, GrepQuery, Progress};
use crate::error::Error;
use crate::source::{self, SourceOptions};
use crate::workspace::Workspace;

/// How many files the walk may run ahead of the sink.
pub const WINDOW: u64 = 1024;

/// How long the sink waits for the next result before it is told it is idle.
const IDLE: std::time::Duration = std::time::Duration::from_millis(10);

/// What a visit went through.
#[derive(Clone, Debug, Default)]
pub struct Visited {
    /// Text files handed to the visitor.
    pub files: u64,
    /// Files skipped as binary (a NUL in their first 64 KiB).
    pub binary_skipped: u64,
    /// Files or directories that could not be read: messages, sorted.
    pub errors: Vec<String>,
    /// How the trigram index narrowed the files read (`None`: every file was read).
    pub index: Option<crate::index::IndexUse>,
}

impl Visited {
    /// Adds another visit's counts and errors to these.
    pub fn add(&mut self, v: Visited) {
        self.files += v.files;
        self.binary_skipped += v.binary_skipped;
        self.errors.extend(v.errors);
        self.index = self.index.take().or(v.index);
    }
}

/// One text file: its bytes (a UTF-8 BOM skipped, UTF-16 transcoded) and display name.
pub struct VisitedFile<'a> {
    /// Which of the query's paths it was found under (0-based).
    pub given: usize,
    pub bytes: &'a [u8],
    path: &'a Path,
    name: &'a Name,
    display: Option<&'a Display>,
}

impl VisitedFile<'_> {
    /// Its display name, made on demand (most files of a search print nothing, and a name
    /// costs an allocation).
    pub fn name(&self) -> String {
        match (self.name, self.display) {
            (Name::Given(n), _) => n.clone(),
            (Name::Below, Some(d)) => d.of(self.path),
            (Name::Below, None) => self.path.to_string_lossy().into_owned(),
        }
    }
}

/// Whether a sink wants more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// Where the processed files go, one at a time, in path order, on the calling thread.
pub trait Sink<T> {
    /// The next file's result.
    fn file(&mut self, result: T) -> Flow;
    /// No result is ready yet: a moment to flush what is buffered.
    fn idle(&mut self) -> Flow {
        Flow::Continue
    }
}

/// A file to visit: its number in path order, the query path it was found under, its path and
/// display name.
struct Job {
    seq: u64,
    given: usize,
    path: PathBuf,
    name: Name,
}

/// How a file's display name is made: given, or from the path below its search directory
/// (by the worker, off the walk's thread, with that directory's [`Display`]).
pub(super) enum Name {
    Given(String),
    Below,
}

/// A query path, resolved: one file, or a directory and its walk.
enum Target {
    File(PathBuf, String),
    Dir(PathBuf, std::sync::Arc<Display>, Box<ignore::WalkBuilder>),
}

/// What the sink has taken so far; the walk waits on it when it is [`WINDOW`] files ahead.
struct Window {
    taken: Mutex<u64>,
    moved: Condvar,
    /// The walk waits on `moved` (so a move is worth a wake-up).
    waiting: AtomicBool,
}

/// Counts shared by the threads of a visit.
#[derive(Default)]
pub(super) struct Tally {
    files: AtomicU64,
    binary: AtomicU64,
    errors: Mutex<Vec<String>>,
    index: Mutex<Option<crate::index::IndexUse>>,
}

impl Tally {
    pub(super) fn error(&self, e: impl ToString) {
        self.errors.lock().expect("errors").push(e.to_string());
    }
}

/// Processes every text file the query's paths name or contain with `work` (on several
/// threads) and hands the results to `sink` in path order: the query's paths in turn, each
/// directory in the order of its sorted walk. With `names_only` the files are not read (nor
/// tested for binary content) and `work` gets empty bytes. Path errors come back before any
/// file is visited.
pub fn visit_in_order<T: Send>(
    ws: &Workspace,
    q: &GrepQuery,
    progress: &Progress,
    names_only: bool,
    work: &(dyn Fn(VisitedFile<'_>) -> T + Sync),
    sink: &mut dyn Sink<T>,
) -> Result<Visited, GrepError> {
    let targets = resolve(ws, q)?;
    // Each search directory's display, by the number of its query path.
    let mut displays: Vec<Option<std::sync::Arc<Display>>> = Vec::new();
    for (given, t) in &targets {
        if let Target::Dir(_, d, _) = t {
            displays.resize(displays.len().max(given + 1), None);
            displays[*given] = Some(d.clone());
        }
    }
    let displays = &displays;
    let tally = Tally::default();
    let window = Window {
        taken: Mutex::new(0),
        moved: Condvar::new(),
        waiting: AtomicBool::new(false),
    };
    let (job_tx, job_rx) = mpsc::channel::<Vec<Job>>();
    let job_rx = Mutex::new(job_rx);
    let (done_tx, done_rx) = mpsc::channel::<Vec<(u64, Option<T>)>>();
    let workers = q.threads.unwrap_or_else(rayon::current_num_threads).max(1);
    let worker = Worker {
        q,
        displays,
        names_only,
        tally: &tally,
        progress,
        work,
    };
    std::thread::scope(|s| {
        let (tally, window, job_rx) = (&tally, &window, &job_rx);
        s.spawn(move || {
            let mut queue = Queue::new(job_tx, window, progress);
            produce(ws, q, targets, names_only, tally, &mut queue);
            queue.flush();
        });
        for _ in 0..workers {
            let (done_tx, worker) = (done_tx.clone(), &worker);
            s.spawn(move || worker.run(job_rx, &done_tx));
        }
        drop(done_tx);
        consume(done_rx, window, progress, sink);
    });
    let mut errors = tally.errors.into_inner().expect("errors");
    errors.sort();
    Ok(Visited {
        files: tally.files.into_inner(),
        binary_skipped: tally.binary.into_inner(),
        errors,
        index: tally.index.into_inner().expect("index"),
    })
}

/// The query's paths, resolved and checked, with each directory's walk built (a bad glob or
/// type is reported here, before anything is visited).
fn resolve(ws: &Workspace, q: &GrepQuery) -> Result<Vec<(usize, Target)>, GrepError> {
    let w = ws.words();
    let mut targets = Vec::new();
    for (index, given) in q.paths().into_iter().enumerate() {
        let resolved = ws
            .resolve(&given)
            .map_err(|e| GrepError::Param(q.path_error(w, &given, &e)))?;
        let md = std::fs::metadata(&resolved).map_err(|e| {
            GrepError::Param(q.path_error(w, &given, &Error::io(Path::new(&given), e)))
        })?;
        let display = Display::new(ws, q, &given, &resolved);
        let target = if md.is_dir() {
            let mut wb = walk_builder(q, &resolved, w)?;
            wb.sort_by_file_name(|a, b| a.cmp(b));
            Target::Dir(resolved, std::sync::Arc::new(display), Box::new(wb))
        } else {
            let name = display.of(&resolved);
            Target::File(resolved, name)
        };
        targets.push((index, target));
    }
    Ok(targets)
}

/// The files in path order, handed to the workers in batches (growing from one file to
/// [`MAX_BATCH`], so the first file goes out at once and later ones cost few hand-overs),
/// at most [`WINDOW`] files ahead of the sink.
struct Queue<'a> {
    seq: u64,
    /// What the sink had taken when last looked at (it only grows).
    taken: u64,
    batch: Vec<Job>,
    cap: usize,
    jobs: mpsc::Sender<Vec<Job>>,
    window: &'a Window,
    progress: &'a Progress,
}

/// The largest batch of files handed to a worker at once.
const MAX_BATCH: usize = 256;

impl<'a> Queue<'a> {
    fn new(jobs: mpsc::Sender<Vec<Job>>, window: &'a Window, progress: &'a Progress) -> Queue<'a> {
        Queue {
            seq: 0,
            taken: 0,
            batch: Vec::new(),
            cap: 1,
            jobs,
            window,
            progress,
        }
    }

    fn cancelled(&self) -> bool {
        self.progress.cancelled.load(Ordering::Relaxed)
    }

    /// Numbers and queues one file; `false` once the visit is cancelled.
    fn push(&mut self, given: usize, path: PathBuf, name: Name) -> bool {
        if self.seq >= self.taken + WINDOW {
            self.taken = *self.window.taken.lock().expect("window");
        }
        if self.seq >= self.taken + WINDOW {
            // The sink waits for what is batched here: hand it over before waiting.
            if !self.flush() {
                return false;
            }
            let mut taken = self.window.taken.lock().expect("window");
            self.window.waiting.store(true, Ordering::Relaxed);
            while self.seq >= *taken + WINDOW && !self.cancelled() {
                taken = self.window.moved.wait(taken).expect("window");
            }
            self.taken = *taken;
            self.window.waiting.store(false, Ordering::Relaxed);
        }
        if self.cancelled() {
            return false;
        }
        self.batch.push(Job {
            seq: self.seq,
            given,
            path,
            name,
        });
        self.seq += 1;
        if self.batch.len() >= self.cap {
            self.cap = (self.cap * 2).min(MAX_BATCH);
            return self.flush();
        }
        true
    }

    /// Hands the batch over; `false` once nobody takes it.
    fn flush(&mut self) -> bool {
        self.batch.is_empty() || self.jobs.send(std::mem::take(&mut self.batch)).is_ok()
    }
}

/// The walk: every file of the query's paths in path order, queued; stops when the queue
/// does (the visit is cancelled).
fn produce(
    ws: &Workspace,
    q: &GrepQuery,
    targets: Vec<(usize, Target)>,
    names_only: bool,
    tally: &Tally,
    queue: &mut Queue<'_>,
) {
    let cancelled = &queue.progress.cancelled;
    let mut queue = |given: usize, path: PathBuf, name: Name| queue.push(given, path, name);
    for (given, target) in targets {
        match target {
            Target::File(path, name) => {
                if !queue(given, path, Name::Given(name)) {
                    return;
                }
            }
            Target::Dir(dir, _, wb) => {
                if let Some(sel) = indexed(ws, q, &dir, &wb, names_only) {
                    tally
                        .binary
                        .fetch_add(sel.binary.len() as u64, Ordering::Relaxed);
                    tally.files.fetch_add(sel.used.ruled_out, Ordering::Relaxed);
                    let mut used = tally.index.lock().expect("index");
                    let u = used.get_or_insert_with(Default::default);
                    u.in_scope += sel.used.in_scope;
                    u.searched += sel.used.searched;
                    u.validated |= sel.used.validated;
                    drop(used);
                    for f in sel.search {
                        if !queue(given, f, Name::Below) {
                            return;
                        }
                    }
                    continue;
                }
                let error = |e: String| tally.error(e);
                let mut each = |f: PathBuf| queue(given, f, Name::Below);
                if !walk_in_order(q, ws, &dir, &wb, cancelled, &error, &mut each) {
                    return;
                }
            }
        }
    }
}

/// Hands the results to the sink in their numbering; tells the walk how far the sink is.
fn consume<T>(
    done: mpsc::Receiver<Vec<(u64, Option<T>)>>,
    window: &Window,
    progress: &Progress,
    sink: &mut dyn Sink<T>,
) {
    let mut next = 0;
    // Batches done ahead of their turn, by their first file's number (a batch's files are
    // numbered in a row, so a batch is handed over whole when its turn comes).
    let mut early: HashMap<u64, Vec<(u64, Option<T>)>> = HashMap::new();
    let stop = || {
        progress.cancel();
        // Under the lock: the walk checks the flag and waits under it, so it cannot miss this.
        let _taken = window.taken.lock().expect("window");
        window.moved.notify_all();
    };
    loop {
        let batch = match done.try_recv() {
            Ok(r) => r,
            Err(mpsc::TryRecvError::Empty) => match done.recv_timeout(IDLE) {
                Ok(r) => r,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if sink.idle() == Flow::Stop {
                        return stop();
                    }
                    match done.recv() {
                        Ok(r) => r,
                        Err(_) => return,
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            },
            Err(mpsc::TryRecvError::Disconnected) => return,
        };
        let Some(&(first, _)) = batch.first() else {
            continue;
        };
        early.insert(first, batch);
        let before = next;
        while let Some(batch) = early.remove(&next) {
            next += batch.len() as u64;
            for (_, out) in batch {
                if let Some(t) = out
                    && sink.file(t) == Flow::Stop
                {
                    return stop();
                }
            }
        }
        if next != before {
            let mut taken = window.taken.lock().expect("window");
            *taken = next;
            if window.waiting.load(Ordering::Relaxed) {
                drop(taken);
                window.moved.notify_all();
            }
        }
    }
}

/// A worker's counts over one batch.
#[derive(Default)]
struct Counts {
    /// Files handed to `work` (read or, names only, not).
    files: u64,
    /// Of them, files read.
    read: u64,
    binary: u64,
}

impl Counts {
    fn add_to(self, tally: &Tally, progress: &Progress) {
        if self.files > 0 {
            tally.files.fetch_add(self.files, Ordering::Relaxed);
        }
        if self.read > 0 {
            progress
                .files_searched
                .fetch_add(self.read, Ordering::Relaxed);
        }
        if self.binary > 0 {
            tally.binary.fetch_add(self.binary, Ordering::Relaxed);
        }
    }
}

/// What the worker threads of a visit share.
struct Worker<'a, T> {
    q: &'a GrepQuery,
    /// Each search directory's display, by the number of its query path.
    displays: &'a [Option<std::sync::Arc<Display>>],
    names_only: bool,
    tally: &'a Tally,
    progress: &'a Progress,
    work: &'a (dyn Fn(VisitedFile<'_>) -> T + Sync),
}

impl<T> Worker<'_, T> {
    /// Takes batches of files until there are none, and sends back their results.
    fn run(
        &self,
        jobs: &Mutex<mpsc::Receiver<Vec<Job>>>,
        done: &mpsc::Sender<Vec<(u64, Option<T>)>>,
    ) {
        let mut buf = Vec::new();
        loop {
            let Ok(batch) = jobs.lock().expect("jobs").recv() else {
                return;
            };
            // Counted per batch: one shared update for many files.
            let mut counts = Counts::default();
            let outs = batch
                .iter()
                .map(|job| {
                    let out = if self.progress.cancelled.load(Ordering::Relaxed) {
                        None
                    } else {
                        one(self, job, &mut counts, &mut buf)
                    };
                    (job.seq, out)
                })
                .collect();
            counts.add_to(self.tally, self.progress);
            if done.send(outs).is_err() {
                return;
            }
        }
    }
}

/// Loads one file and processes it with `work`: `None` when it is binary or unreadable
/// (counted or reported).
fn one<T>(w: &Worker<'_, T>, job: &Job, counts: &mut Counts, buf: &mut Vec<u8>) -> Option<T> {
    let (q, names_only, tally, work) = (w.q, w.names_only, w.tally, w.work);
    let display = w.displays.get(job.given).and_then(|d| d.as_deref());
    let file = |bytes| VisitedFile {
        given: job.given,
        bytes,
        path: &job.path,
        name: &job.name,
        display,
    };
    if names_only {
        counts.files += 1;
        return Some(work(file(&[][..])));
    }
    // Files are opened by canonical path (no link in it); a walk that follows links reaches
    // them through links, so it opens what the link leads to.
    let path = job.path.as_path();
    let canonical;
    let open = if q.follow_links {
        match std::fs::canonicalize(path) {
            Ok(p) => {
                canonical = p;
                canonical.as_path()
            }
            Err(e) => {
                tally.error(Error::io(path, e));
                return None;
            }
        }
    } else {
        path
    };
    let opts = SourceOptions::for_search(super::file::WALK_MMAP_MIN, false);
    let hay = match source::load(open, &opts, buf) {
        Ok((_, hay)) => hay,
        Err(e) => {
            tally.error(e);
            return None;
        }
    };
    if source::looks_binary(&hay) {
        counts.binary += 1;
        return None;
    }
    let done = source::guard_mapped(hay.is_mapped(), path, || work(file(&hay)));
    counts.files += 1;
    counts.read += 1;
    match done {
        Ok(t) if hay.intact() => Some(t),
        _ => {
            tally.error(Error::Changed {
                path: path.to_path_buf(),
            });
            None
        }
    }
}

/// The files of `dir` a ready trigram index cannot rule out (sorted by path), if the query
/// may use one.
fn indexed(
    ws: &Workspace,
    q: &GrepQuery,
    dir: &Path,
    wb: &ignore::WalkBuilder,
    names_only: bool,
) -> Option<crate::index::Selection> {
    if names_only || !q.use_index {
        return None;
    }
    let pattern = q.regex_source(ws.words()).ok()?;
    let sq = super::walk::select_query(q, &pattern);
    crate::index::select(ws, dir, &sq, wb, &mut None)
}
