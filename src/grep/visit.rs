//! The ordered visit: every file a search reads, processed in parallel and handed to a sink
//! in path order. It is the one pipeline of both front-ends: the command line's printers are
//! sinks of [`visit_in_order`] (every ripgrep mode), and the server's search
//! ([`super::search`]) is [`visit`] with its collector as the sink.
//!
//! The pipeline streams: one thread numbers the files in path order and queues them
//! ([`super::produce`]: the ordered walk, a server's kept list, or the sorted files a ready
//! trigram index cannot rule out); worker threads process them in parallel (`work`, with a
//! state of their own), in batches of files numbered in a row (a worker with nothing queued
//! takes the rest of a batch another started); the calling thread hands the
//! results to the sink in that numbering. The walk stays at most
//! [`WINDOW`](super::produce::WINDOW) files ahead of the sink, so memory holds a bounded
//! number of results whatever the tree's size, and a sink that stops (a closed pipe, a cap
//! reached) stops the walk and the workers at once.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};

use super::collect::Display;
use super::produce::{Job, Name, Over, Plan, Producer, Queue, Tally, Target, Window, resolve};
use super::{GrepError, GrepQuery, Progress};
use crate::error::Error;
use crate::source::{self, FileId, Opener, SourceOptions};
use crate::workspace::Workspace;

pub(super) use super::produce::Origin;

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
    /// The identity of the bytes as read (`None` for names only, and for a small file read
    /// as [`Reading::Bytes`]).
    pub id: Option<FileId>,
    pub bytes: &'a [u8],
    /// The only parts of the bytes that can hold a match, as the index knows this version
    /// (`None`: all of them).
    pub spans: Option<&'a [crate::index::Span]>,
    entry: Entry<'a>,
}

impl VisitedFile<'_> {
    /// Its display name, made on demand (most files of a search print nothing, and a name
    /// costs an allocation).
    pub fn name(&self) -> String {
        self.entry.name()
    }

    /// Where it is (as the walk reached it: absolute under an absolute root).
    pub fn path(&self) -> &Path {
        self.entry.path()
    }
}

/// A file as a worker gets it: where it is, where it came from, and its display name on
/// demand.
#[derive(Clone, Copy)]
pub(super) struct Entry<'a> {
    job: &'a Job,
    display: Option<&'a Display>,
}

impl<'a> Entry<'a> {
    /// Which of the query's paths it was found under (0-based).
    pub(super) fn given(&self) -> usize {
        self.job.given
    }

    pub(super) fn path(&self) -> &'a Path {
        &self.job.path
    }

    pub(super) fn origin(&self) -> Origin {
        self.job.origin
    }

    /// What the trigram index knows of it (its identity and the only spans that can match).
    pub(super) fn known(&self) -> Option<&'a crate::index::Known> {
        self.job.known.as_deref()
    }

    /// Its display name (an allocation: made only when needed).
    pub(super) fn name(&self) -> String {
        match (&self.job.name, self.display) {
            (Name::Given(n), _) => n.to_string(),
            (Name::Below, Some(d)) => d.of(&self.job.path),
            (Name::Below, None) => self.job.path.to_string_lossy().into_owned(),
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

/// What a visit reads of each file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Names only: the files are not read (nor tested for binary content), and the bytes
    /// are empty.
    Names,
    /// The bytes (a small file's identity is not asked for: one system call fewer).
    Bytes,
    /// The bytes and their identity (for what is kept per file version: symbols, parses).
    Identified,
}

/// Processes every text file the query's paths name or contain with `work` (on several
/// threads) and hands the results to `sink` in path order: the query's paths in turn, each
/// directory in the order of its sorted walk, each file read as `reading` says. Path errors
/// come back before any file is visited.
pub fn visit_in_order<T: Send>(
    ws: &Workspace,
    q: &GrepQuery,
    progress: &Progress,
    reading: Reading,
    work: &(dyn Fn(VisitedFile<'_>) -> T + Sync),
    sink: &mut dyn Sink<T>,
) -> Result<Visited, GrepError> {
    visit_picked(ws, q, progress, reading, None, work, sink)
}

/// [`visit_in_order`], where `picked` may answer for a file the index picked before it is
/// read (from what the index knows of it): `Some` is its result, and it is not read.
pub fn visit_picked<T: Send>(
    ws: &Workspace,
    q: &GrepQuery,
    progress: &Progress,
    reading: Reading,
    picked: Option<&super::Picked<'_, T>>,
    work: &(dyn Fn(VisitedFile<'_>) -> T + Sync),
    sink: &mut dyn Sink<T>,
) -> Result<Visited, GrepError> {
    let plan = Plan {
        use_index: reading != Reading::Names && q.use_index,
        keep_lists: false,
        regular_only: false,
    };
    let mapped = super::file::Mapped::default();
    let load = |(buf, opener): &mut (Vec<u8>, Opener), e: Entry<'_>, counts: &mut Counts| {
        if e.origin() == Origin::IndexBinary {
            // The index saw its NUL: counted, not read again.
            counts.binary += 1;
            return None;
        }
        if let (Some(picked), Some(k)) = (picked, e.known()) {
            let file = super::PickedFile {
                path: e.path(),
                id: &k.id,
            };
            if let Some(t) = picked(file) {
                counts.files += 1;
                return Some(t);
            }
        }
        one(
            q,
            e.path(),
            reading,
            counts,
            (buf, opener, &mapped),
            |id, bytes| {
                work(VisitedFile {
                    given: e.given(),
                    id,
                    bytes,
                    spans: id.and_then(|id| super::file::spans_for(e.known(), &id)),
                    entry: e,
                })
            },
        )
    };
    visit(ws, q, progress, plan, &Default::default, &load, sink)
}

/// The per-file step of a visit: with the worker's own state `S`, a file's result (`None`:
/// nothing for the sink), its counts added to the visit's.
pub(super) type Work<'w, S, T> = dyn Fn(&mut S, Entry<'_>, &mut Counts) -> Option<T> + Sync + 'w;

/// The ordered visit: the files of the query's paths (found as `plan` says) processed by
/// `work` on several threads, each with a state made by `init`, and the results handed to
/// `sink` in path order on the calling thread. A sink that stops ends the visit at once.
pub(super) fn visit<S, T: Send>(
    ws: &Workspace,
    q: &GrepQuery,
    progress: &Progress,
    plan: Plan,
    init: &(dyn Fn() -> S + Sync),
    work: &Work<'_, S, T>,
    sink: &mut dyn Sink<T>,
) -> Result<Visited, GrepError> {
    let targets = resolve(ws, q, &plan)?;
    // Each search directory's display, by the number of its query path.
    let mut displays: Vec<Option<std::sync::Arc<Display>>> = Vec::new();
    for (given, t) in &targets {
        if let Target::Dir(_, d, _) = t {
            displays.resize(displays.len().max(given + 1), None);
            displays[*given] = Some(d.clone());
        }
    }
    let tally = Tally::default();
    let window = Window {
        taken: Mutex::new(0),
        moved: Condvar::new(),
        waiting: AtomicBool::new(false),
    };
    let over = Over {
        halt: AtomicBool::new(false),
        progress,
    };
    let (job_tx, job_rx) = mpsc::channel::<Vec<Job>>();
    let job_rx = Mutex::new(job_rx);
    let (done_tx, done_rx) = mpsc::channel::<Vec<(u64, Option<T>)>>();
    let workers = q.threads.unwrap_or_else(rayon::current_num_threads).max(1);
    let worker = Worker {
        displays: &displays,
        tally: &tally,
        over: &over,
        progress,
        init,
        work,
        active: Mutex::new(Vec::new()),
        ahead: super::produce::ReadAhead::default(),
    };
    std::thread::scope(|s| {
        let (tally, window, job_rx, over) = (&tally, &window, &job_rx, &over);
        s.spawn(move || {
            let mut queue = Queue::new(job_tx, window, over);
            let mut producer = Producer {
                ws,
                q,
                plan,
                tally,
                queue: &mut queue,
            };
            producer.run(targets);
        });
        for _ in 0..workers {
            let (done_tx, worker) = (done_tx.clone(), &worker);
            s.spawn(move || worker.run(job_rx, &done_tx));
        }
        drop(done_tx);
        consume(done_rx, window, over, sink);
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

/// Hands the results to the sink in their numbering; tells the walk how far the sink is, and
/// every part of the visit when it is over (the sink stopped, or the caller cancelled).
fn consume<T>(
    done: mpsc::Receiver<Vec<(u64, Option<T>)>>,
    window: &Window,
    over: &Over<'_>,
    sink: &mut dyn Sink<T>,
) {
    let mut next = 0;
    // Batches done ahead of their turn, by their first file's number (a batch's files are
    // numbered in a row, so a batch is handed over whole when its turn comes).
    let mut early: HashMap<u64, Vec<(u64, Option<T>)>> = HashMap::new();
    let stop = || {
        over.halt.store(true, Ordering::Relaxed);
        // Under the lock: the walk checks the flag and waits under it, so it cannot miss this.
        let _taken = window.taken.lock().expect("window");
        window.moved.notify_all();
    };
    let mut idle = false;
    let mut halted = false;
    loop {
        // Cancelled by the caller (or by a worker, as `-q` does on its first match): every
        // part stops, and what was done before still reaches the sink.
        if !halted && over.progress.is_cancelled() {
            stop();
            halted = true;
        }
        let batch = match done.try_recv() {
            Ok(r) => r,
            Err(mpsc::TryRecvError::Empty) => match done.recv_timeout(IDLE) {
                Ok(r) => r,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    // Told once per pause; the cancel flag is looked at every `IDLE`.
                    if !idle && sink.idle() == Flow::Stop {
                        return stop();
                    }
                    idle = true;
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            },
            Err(mpsc::TryRecvError::Disconnected) => return,
        };
        idle = false;
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
pub(super) struct Counts {
    /// Files handed to `work` (read or, names only, not).
    pub(super) files: u64,
    /// Of them, files read.
    pub(super) read: u64,
    pub(super) binary: u64,
    /// Files that could not be read.
    errors: Vec<String>,
}

impl Counts {
    pub(super) fn error(&mut self, e: impl ToString) {
        self.errors.push(e.to_string());
    }

    fn add_to(self, tally: &Tally, progress: &Progress) {
        if !self.errors.is_empty() {
            tally.errors.lock().expect("errors").extend(self.errors);
        }
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
struct Worker<'a, S, T> {
    /// Each search directory's display, by the number of its query path.
    displays: &'a [Option<std::sync::Arc<Display>>],
    tally: &'a Tally,
    over: &'a Over<'a>,
    progress: &'a Progress,
    init: &'a (dyn Fn() -> S + Sync),
    work: &'a Work<'a, S, T>,
    /// The batches started whose files are not all taken yet, oldest first.
    active: Mutex<Vec<Arc<Shared<T>>>>,
    ahead: super::produce::ReadAhead,
}

/// A batch being worked on. Its files are taken one at a time, so that a worker with
/// nothing queued helps with the rest of another's: a run of large files in one batch would
/// otherwise keep one worker busy while the others wait for the sink to move on.
struct Shared<T> {
    jobs: Vec<Job>,
    /// The next file to take.
    next: AtomicUsize,
    /// How far its files were asked for ahead (see [`super::produce::ReadAhead`]).
    asked: AtomicUsize,
    /// The results so far; the worker that adds the last one sends them all.
    outs: Mutex<Vec<(u64, Option<T>)>>,
}

impl<S, T> Worker<'_, S, T> {
    /// Takes files until there are none, and sends back each batch's results, whole.
    fn run(
        &self,
        jobs: &Mutex<mpsc::Receiver<Vec<Job>>>,
        done: &mpsc::Sender<Vec<(u64, Option<T>)>>,
    ) {
        let mut state = (self.init)();
        while let Some(batch) = self.next_batch(jobs) {
            if !self.take_from(&batch, &mut state, done) {
                return;
            }
        }
    }

    /// A batch to work on: a queued one if there is one; else the rest of a batch another
    /// worker started; else the next queued one, waited for. `None` once there are none.
    fn next_batch(&self, jobs: &Mutex<mpsc::Receiver<Vec<Job>>>) -> Option<Arc<Shared<T>>> {
        // A queue another worker holds is one it waits on: empty.
        let queued = match jobs.try_lock() {
            Ok(rx) => rx.try_recv(),
            Err(_) => Err(mpsc::TryRecvError::Empty),
        };
        let fresh = match queued {
            Ok(batch) => batch,
            Err(e) => {
                if let Some(started) = self.helpable() {
                    return Some(started);
                }
                if e == mpsc::TryRecvError::Disconnected {
                    return None;
                }
                jobs.lock().expect("jobs").recv().ok()?
            }
        };
        let batch = Arc::new(Shared {
            jobs: fresh,
            next: AtomicUsize::new(0),
            asked: AtomicUsize::new(0),
            outs: Mutex::new(Vec::new()),
        });
        self.active.lock().expect("active").push(batch.clone());
        Some(batch)
    }

    /// The oldest batch started with files still to take.
    fn helpable(&self) -> Option<Arc<Shared<T>>> {
        let mut active = self.active.lock().expect("active");
        active.retain(|b| b.next.load(Ordering::Relaxed) < b.jobs.len());
        active.first().cloned()
    }

    /// Takes `batch`'s files until none is left; `false` once nobody takes results.
    fn take_from(
        &self,
        batch: &Shared<T>,
        state: &mut S,
        done: &mpsc::Sender<Vec<(u64, Option<T>)>>,
    ) -> bool {
        // Counted per batch: one shared update for many files.
        let mut counts = Counts::default();
        let mut outs = Vec::new();
        loop {
            let i = batch.next.fetch_add(1, Ordering::Relaxed);
            let Some(job) = batch.jobs.get(i) else {
                break;
            };
            // The next file's path and the one after's job, written on other cores: asked
            // for now, they arrive while this file is read.
            if let Some(j) = batch.jobs.get(i + 2) {
                crate::platform::prefetch(j);
            }
            if let Some(j) = batch.jobs.get(i + 1) {
                crate::platform::prefetch(j.path.as_os_str().as_encoded_bytes());
            }
            let out = if self.over.is() {
                None
            } else {
                self.ahead.before(&batch.jobs, i, &batch.asked);
                let display = self.displays.get(job.given).and_then(|d| d.as_deref());
                let out = (self.work)(state, Entry { job, display }, &mut counts);
                self.ahead.after();
                out
            };
            outs.push((job.seq, out));
        }
        counts.add_to(self.tally, self.progress);
        if outs.is_empty() {
            return true;
        }
        let mut all = batch.outs.lock().expect("outs");
        all.extend(outs);
        if all.len() < batch.jobs.len() {
            return true;
        }
        let mut whole = std::mem::take(&mut *all);
        drop(all);
        whole.sort_unstable_by_key(|(seq, _)| *seq);
        done.send(whole).is_ok()
    }
}

/// Loads one file for the command line's visit and processes it with `work`: `None` when it
/// is binary or unreadable (counted or reported). Names only: nothing is read, and the bytes
/// are empty.
fn one<T>(
    q: &GrepQuery,
    path: &Path,
    reading: Reading,
    counts: &mut Counts,
    (buf, opener, mapped): (&mut Vec<u8>, &mut Opener, &super::file::Mapped),
    work: impl FnOnce(Option<FileId>, &[u8]) -> T,
) -> Option<T> {
    if reading == Reading::Names {
        counts.files += 1;
        return Some(work(None, &[][..]));
    }
    // Files are opened by canonical path (no link in it); a walk that follows links reaches
    // them through links, so it opens what the link leads to.
    let canonical;
    let open = if q.follow_links {
        match std::fs::canonicalize(path) {
            Ok(p) => {
                canonical = p;
                canonical.as_path()
            }
            Err(e) => {
                counts.error(Error::io(path, e));
                return None;
            }
        }
    } else {
        path
    };
    let opts =
        SourceOptions::for_search(super::file::WALK_MMAP_MIN, reading == Reading::Identified);
    let started = std::time::Instant::now();
    let (id, hay) = match source::load_in(opener, open, &opts, buf) {
        Ok((id, hay)) => {
            super::produce::loaded(hay.len(), started.elapsed());
            (id, hay)
        }
        Err(e) => {
            counts.error(e);
            return None;
        }
    };
    if source::looks_binary(&hay) {
        counts.binary += 1;
        return None;
    }
    let _held = hay.is_mapped().then(|| mapped.hold(hay.len()));
    let done = source::guard_mapped(hay.is_mapped(), path, || work(id, &hay));
    counts.files += 1;
    counts.read += 1;
    match done {
        Ok(t) if hay.intact() => Some(t),
        _ => {
            counts.error(Error::Changed {
                path: path.to_path_buf(),
            });
            None
        }
    }
}
