//! A directory's files in path order, walked by threads ahead of the ordered visit
//! ([`super::visit`]): the directory's own entries first (its ignore files, globs and types
//! applied); its first subdirectory streamed by a sorted walk, so the first lines wait for
//! nothing; the others listed by two more walks, each taking the next subdirectory no walk
//! took, each handed over whole, sorted, as soon as it is complete.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

use super::GrepQuery;
use super::walk::walk_builder_below;
use crate::workspace::Workspace;

/// What a walk in order tells its caller besides the files, and asks it.
pub(super) struct Hooks<'a> {
    /// Whether the visit is over (its sink stopped, or it was cancelled): the walks end at
    /// once, not when the subdirectory they list is complete.
    pub(super) over: &'a (dyn Fn() -> bool + Sync),
    /// A directory or file that could not be read.
    pub(super) error: &'a (dyn Fn(String) + Sync),
    /// Every directory the walk enters (`dir` included), for a list that must know when it
    /// goes stale.
    pub(super) dir: Option<&'a (dyn Fn(&Path) + Sync)>,
}

/// Walks `dir` in path order, queueing its files: its own files and subdirectories in order,
/// the subdirectories walked ahead (the first streamed, the others listed by two threads)
/// and read back in turn. `false` once the
/// queue stops. The queue is told `None` when the walk is about to wait for more files (so
/// that it hands over the files it holds first).
pub(super) fn walk_in_order(
    q: &GrepQuery,
    ws: &Workspace,
    dir: &Path,
    wb: &ignore::WalkBuilder,
    hooks: &Hooks<'_>,
    queue: &mut dyn FnMut(Option<PathBuf>) -> bool,
) -> bool {
    let error = hooks.error;
    if let Some(seen) = hooks.dir {
        seen(dir);
    }
    let units = own_entries(wb, error);
    let dirs: Vec<&Path> = units
        .iter()
        .filter(|u| u.1)
        .map(|u| u.0.as_path())
        .collect();
    let (txs, mut rxs): (Vec<_>, Vec<_>) = dirs.iter().map(|_| mpsc::channel()).unzip();
    let stop = AtomicBool::new(false);
    let ahead = Ahead {
        place: Mutex::new(Place::default()),
        moved: Condvar::new(),
        stop: &stop,
        over: hooks.over,
        dir: hooks.dir,
    };
    let walk = |start: &Path| walk_builder_below(q, dir, start, ws.words()).ok();
    let mut txs = txs.into_iter();
    let first = txs.next();
    // The subdirectories after the first, each taken by the first listing walk free for it.
    let rest: Vec<Claim<'_>> = (dirs.iter().copied().enumerate().skip(1).zip(txs))
        .map(|((i, dir), tx)| Claim {
            i,
            dir,
            tx: Mutex::new(Some(tx)),
        })
        .collect();
    std::thread::scope(|s| {
        let mut listing = 0;
        if let (Some(d), Some(tx)) = (dirs.first(), first) {
            let wb = walk(d);
            let ahead = &ahead;
            s.spawn(move || wb.map(|wb| stream(wb, &tx, ahead, error)));
            // Every listing walk covers the same subdirectories: one build, cloned.
            if let Some(wb) = rest.first().and_then(|c| walk(c.dir)) {
                for _ in 0..LISTERS.min(rest.len()) {
                    let (wb, rest) = (wb.clone(), &rest);
                    s.spawn(move || list(wb, rest, ahead, error));
                    listing += 1;
                }
            }
        }
        // Without a listing walk (none could be built), the subdirectories after the first
        // end at once.
        if listing == 0 {
            Claim::release(&rest);
        }
        let mut rxs = rxs.drain(..).enumerate();
        let mut kept = true;
        for (path, is_dir) in &units {
            kept = if *is_dir {
                let (i, rx) = rxs.next().expect("a walk per directory");
                ahead.read(i);
                read_back(&rx, &ahead, queue)
            } else {
                queue(Some(path.clone()))
            };
            if !kept {
                break;
            }
        }
        ahead.stop();
        kept
    })
}

/// Queues a subdirectory's files as its walk sends them, telling the queue before it waits
/// for more; `false` once the queue stops.
fn read_back(
    rx: &mpsc::Receiver<Vec<PathBuf>>,
    ahead: &Ahead<'_>,
    queue: &mut dyn FnMut(Option<PathBuf>) -> bool,
) -> bool {
    loop {
        let files = match rx.try_recv() {
            Ok(files) => files,
            Err(mpsc::TryRecvError::Disconnected) => return true,
            Err(mpsc::TryRecvError::Empty) => {
                if !queue(None) {
                    return false;
                }
                match rx.recv() {
                    Ok(files) => files,
                    Err(_) => return true,
                }
            }
        };
        ahead.taken(files.len());
        for f in files {
            if !queue(Some(f)) {
                return false;
            }
        }
    }
}

/// The directory's own entries, files and subdirectories (is a directory), in the walk's
/// order (`wb` sorts by name), its ignore files, globs and types applied.
fn own_entries(wb: &ignore::WalkBuilder, error: &dyn Fn(String)) -> Vec<(PathBuf, bool)> {
    let mut top = wb.clone();
    top.max_depth(Some(1));
    let mut units = Vec::new();
    for entry in top.build() {
        match entry {
            Ok(e) if e.depth() == 0 => {}
            Ok(e) => match e.file_type() {
                Some(t) if t.is_file() => units.push((e.into_path(), false)),
                Some(t) if t.is_dir() => units.push((e.into_path(), true)),
                _ => {}
            },
            Err(e) => error(e.to_string()),
        }
    }
    units
}

/// How many walks list the subdirectories after the first (each taking the next one free).
const LISTERS: usize = 2;

/// The largest batch of paths the streamed first subdirectory sends at once.
const STREAM_BATCH: usize = 64;

/// How many paths listed ahead may wait in memory for the queue: a listing walk does not
/// start another subdirectory past the one read while more wait (about 100 bytes each). The
/// library's tests use a small bound, so that their trees make the walks wait.
const WAITING: usize = if cfg!(test) { 64 } else { 1 << 16 };

/// Where the queue is: the subdirectory it reads, and how many paths sent to it it has not
/// read yet.
#[derive(Default)]
struct Place {
    reading: usize,
    waiting: usize,
}

/// The walk's shared state: where the queue is, and whether the walk is over.
struct Ahead<'a> {
    place: Mutex<Place>,
    /// The queue moved on to another subdirectory, or the walk is over.
    moved: Condvar,
    stop: &'a AtomicBool,
    /// The visit is over ([`Hooks::over`]).
    over: &'a (dyn Fn() -> bool + Sync),
    /// Told of every directory walked ([`Hooks::dir`]).
    dir: Option<&'a (dyn Fn(&Path) + Sync)>,
}

impl Ahead<'_> {
    /// The queue reads subdirectory `i` now.
    fn read(&self, i: usize) {
        self.place.lock().expect("place").reading = i;
        self.moved.notify_all();
    }

    /// `n` more paths were sent to the queue.
    fn sent(&self, n: usize) {
        self.place.lock().expect("place").waiting += n;
    }

    /// The queue took `n` of the paths sent.
    fn taken(&self, n: usize) {
        let mut place = self.place.lock().expect("place");
        place.waiting -= n;
        if place.waiting < WAITING {
            self.moved.notify_all();
        }
    }

    /// Whether the walks should end now.
    fn over(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || (self.over)()
    }

    /// A directory was entered.
    fn entered(&self, d: &Path) {
        if let Some(seen) = self.dir {
            seen(d);
        }
    }

    /// The walk is over (done or stopped).
    fn stop(&self) {
        // Under the lock: a walker checks the flag and waits under it, so it cannot miss this.
        let _place = self.place.lock().expect("place");
        self.stop.store(true, Ordering::Relaxed);
        self.moved.notify_all();
    }

    /// Waits until subdirectory `i` may be listed: it is the one read (or one before), or
    /// fewer than [`WAITING`] paths wait for the queue; `false` once the walk is over.
    fn wait_for(&self, i: usize) -> bool {
        let mut place = self.place.lock().expect("place");
        while i > place.reading && place.waiting >= WAITING && !self.stop.load(Ordering::Relaxed) {
            place = self.moved.wait(place).expect("place");
        }
        !self.stop.load(Ordering::Relaxed)
    }
}

type Files = mpsc::Sender<Vec<PathBuf>>;

/// The first subdirectory, streamed in order as it is walked (ignore's sorted walk), in
/// batches growing from one file: the first goes at once, the rest cost few hand-overs.
fn stream(mut wb: ignore::WalkBuilder, tx: &Files, ahead: &Ahead<'_>, error: &dyn Fn(String)) {
    wb.sort_by_file_name(|a, b| a.cmp(b));
    let mut batch = Vec::new();
    let mut cap = 1;
    for entry in wb.build() {
        if ahead.over() {
            return;
        }
        match entry {
            Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => {
                batch.push(e.into_path());
                if batch.len() >= cap {
                    cap = (cap * 2).min(STREAM_BATCH);
                    ahead.sent(batch.len());
                    if tx.send(std::mem::take(&mut batch)).is_err() {
                        return;
                    }
                }
            }
            Ok(e) if e.file_type().is_some_and(|t| t.is_dir()) => ahead.entered(e.path()),
            Ok(_) => {}
            Err(e) => error(e.to_string()),
        }
    }
    if !batch.is_empty() {
        ahead.sent(batch.len());
        let _ = tx.send(batch);
    }
}

/// A subdirectory after the first, to be listed by one of the listing walks.
struct Claim<'a> {
    /// Its number among the directory's subdirectories.
    i: usize,
    dir: &'a Path,
    /// Where its files go, taken by the walk that lists it.
    tx: Mutex<Option<Files>>,
}

impl Claim<'_> {
    /// Ends the channels of the subdirectories no walk took.
    fn release(rest: &[Claim<'_>]) {
        for c in rest {
            drop(c.tx.lock().expect("claim").take());
        }
    }
}

/// The subdirectories after the first, listed by one sequential walk of them all, so that
/// the walk finishes each before it starts the next, in the order given. Sequential, not
/// ignore's parallel walk on one thread: that one compiles the ignore files above a
/// subdirectory again for every subdirectory (it keeps the compiled rules only while a walk
/// below them lives), where the sequential walk still holds them when it starts the next:
/// the Linux tree's top `.gitignore` was compiled 51 times per search, and a search of `fs`
/// took 3.7 times as long as one walk-and-search. Each walk takes the next subdirectory no
/// other walk took (a large one keeps one walk busy while the other lists the ones after it)
/// and skips the rest (their tops are read, nothing below them). Each is sent, sorted, when
/// the next one begins; the walk waits when it is [`WAITING`] paths ahead of the queue.
fn list(
    mut wb: ignore::WalkBuilder,
    rest: &[Claim<'_>],
    ahead: &Ahead<'_>,
    error: &(dyn Fn(String) + Sync),
) {
    for c in &rest[1..] {
        wb.add(c.dir);
    }
    // Whether the subdirectory walked now is this walk's: below another walk's, every entry
    // is filtered out (its top is read, nothing under it).
    let mine = Arc::new(AtomicBool::new(false));
    let flag = mine.clone();
    wb.filter_entry(move |_| flag.load(Ordering::Relaxed));
    let number: HashMap<&Path, usize> = rest.iter().enumerate().map(|(k, c)| (c.dir, k)).collect();
    let mut sent = Sent {
        current: None,
        found: Vec::new(),
    };
    for entry in wb.build() {
        if ahead.over() {
            break;
        }
        match entry {
            Ok(e) if e.depth() == 0 => {
                sent.finish(ahead);
                let claimed = number
                    .get(e.path())
                    .and_then(|&k| Some((k, rest[k].tx.lock().expect("claim").take()?)));
                // Another walk lists it (or it is none of ours).
                let Some((k, tx)) = claimed else {
                    mine.store(false, Ordering::Relaxed);
                    continue;
                };
                if !ahead.wait_for(rest[k].i) {
                    break;
                }
                mine.store(true, Ordering::Relaxed);
                sent.current = Some((rest[k].dir, tx));
                ahead.entered(e.path());
            }
            Ok(e) => {
                let is_dir = match e.file_type() {
                    Some(t) if t.is_file() => false,
                    Some(t) if t.is_dir() => true,
                    _ => continue,
                };
                if is_dir {
                    ahead.entered(e.path());
                }
                if !sent.in_current(e.path()) {
                    // The depth-first order this relies on did not hold: say so rather
                    // than lose the file in silence.
                    error(format!(
                        "{}: listed out of order by the walk, not searched",
                        e.path().display()
                    ));
                    continue;
                }
                sent.found.push((e.into_path(), is_dir));
            }
            // Below another walk's subdirectory (its top cannot be read), the error is that
            // walk's to report.
            Err(e) if mine.load(Ordering::Relaxed) => error(e.to_string()),
            Err(_) => {}
        }
    }
    sent.finish(ahead);
    // A walk that went to its end took or skipped every subdirectory; one that stopped leaves
    // some untaken: they end now, so that the queue never waits for them.
    Claim::release(rest);
}

/// A listing walk's progress: the subdirectory it is in (and where its files go) and what
/// it found there so far.
struct Sent<'a> {
    current: Option<(&'a Path, Files)>,
    found: Vec<(PathBuf, bool)>,
}

impl Sent<'_> {
    /// Whether `path` lies below the subdirectory walked now.
    fn in_current(&self, path: &Path) -> bool {
        self.current.as_ref().is_some_and(|(root, _)| {
            let root = root.as_os_str().as_encoded_bytes();
            let p = path.as_os_str().as_encoded_bytes();
            p.strip_prefix(root)
                .and_then(|rest| rest.first())
                .is_some_and(|&b| std::path::is_separator(char::from(b)))
        })
    }

    /// The subdirectory walked so far is complete: its files go out, in path order (the
    /// queue's end of its channel then ends).
    fn finish(&mut self, ahead: &Ahead<'_>) {
        if let Some((root, tx)) = self.current.take() {
            let files = in_path_order(root, std::mem::take(&mut self.found));
            ahead.sent(files.len());
            let _ = tx.send(files);
        }
    }
}

/// A directory's entry: where its name starts in its path, and its number in the walk's list.
type Entry = (usize, usize);

/// The files among a walk's entries (path, is a directory) in path order: each directory's
/// entries sorted by name, a subdirectory's files in its place. No sort of the whole list:
/// each directory's few entries are sorted among themselves.
pub(super) fn in_path_order(root: &Path, found: Vec<(PathBuf, bool)>) -> Vec<PathBuf> {
    fn bytes(p: &Path) -> &[u8] {
        p.as_os_str().as_encoded_bytes()
    }
    let mut order = Vec::with_capacity(found.len());
    {
        // Each directory's entries: (where its name starts, its number in `found`). A walk
        // hands a directory's entries mostly in a row, so the last directory is tried first.
        let mut children: HashMap<&[u8], Vec<Entry>> = HashMap::new();
        let mut last: Option<(&[u8], Vec<Entry>)> = None;
        for (i, (p, _)) in found.iter().enumerate() {
            let b = bytes(p);
            let sep = b
                .iter()
                .rposition(|&c| std::path::is_separator(char::from(c)))
                .unwrap_or(0);
            let parent = &b[..sep];
            let entry = ((sep + 1).min(b.len()), i);
            match &mut last {
                Some((p, kids)) if *p == parent => kids.push(entry),
                _ => {
                    if let Some((p, kids)) = last.take() {
                        children.entry(p).or_default().extend(kids);
                    }
                    last = Some((parent, vec![entry]));
                }
            }
        }
        if let Some((p, kids)) = last {
            children.entry(p).or_default().extend(kids);
        }
        let name = |&(start, i): &(usize, usize)| &bytes(&found[i].0)[start..];
        for kids in children.values_mut() {
            kids.sort_unstable_by(|a, b| name(a).cmp(name(b)));
        }
        let none: &[Entry] = &[];
        let of = |dir: &Path| children.get(bytes(dir)).map_or(none, Vec::as_slice).iter();
        let mut stack = vec![of(root)];
        while let Some(top) = stack.last_mut() {
            match top.next() {
                None => {
                    stack.pop();
                }
                Some(&(_, i)) if found[i].1 => stack.push(of(&found[i].0)),
                Some(&(_, i)) => order.push(i),
            }
        }
    }
    let mut slots: Vec<Option<PathBuf>> = found
        .into_iter()
        .map(|(p, dir)| (!dir).then_some(p))
        .collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}
