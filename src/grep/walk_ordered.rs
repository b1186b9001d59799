//! A directory's files in path order, walked by several threads: the directory's own entries
//! first (its ignore files, globs and types applied), then each subdirectory walked ahead by
//! a walker thread and read back in turn by the ordered visit ([`super::visit`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

use super::GrepQuery;
use super::walk::walk_builder_below;
use crate::workspace::Workspace;

/// Walks `dir` in path order, queueing its files: its own files and subdirectories in order,
/// each subdirectory walked ahead by its own walker thread (so the walk is not one thread's
/// pace on a large tree) and read back in turn. `false` once the queue stops.
#[allow(clippy::too_many_arguments)]
pub(super) fn walk_in_order(
    q: &GrepQuery,
    ws: &Workspace,
    dir: &Path,
    wb: &ignore::WalkBuilder,
    error: &(dyn Fn(String) + Sync),
    queue: &mut dyn FnMut(PathBuf) -> bool,
) -> bool {
    // The directory's own entries (its ignore files, globs and types applied).
    let mut top = wb.clone();
    top.max_depth(Some(1));
    let mut units: Vec<(PathBuf, bool)> = Vec::new();
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
    let dirs: Vec<&Path> = units
        .iter()
        .filter(|u| u.1)
        .map(|u| u.0.as_path())
        .collect();
    let (txs, mut rxs): (Vec<_>, Vec<_>) = dirs.iter().map(|_| mpsc::channel()).unzip();
    let txs: Vec<Mutex<Option<mpsc::Sender<Vec<PathBuf>>>>> =
        txs.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let ahead = Ahead {
        next: &next,
        reading: Mutex::new(0),
        moved: Condvar::new(),
        stop: &stop,
    };
    std::thread::scope(|s| {
        for _ in 0..WALKERS.min(dirs.len()) {
            s.spawn(|| walk_ahead(q, ws, dir, &dirs, &txs, &ahead, error));
        }
        let mut rxs = rxs.drain(..).enumerate();
        let mut kept = true;
        for (path, is_dir) in &units {
            let files: Box<dyn Iterator<Item = PathBuf>> = if *is_dir {
                let (i, rx) = rxs.next().expect("a walk per directory");
                ahead.read(i);
                Box::new(rx.into_iter().flatten())
            } else {
                Box::new(std::iter::once(path.clone()))
            };
            for f in files {
                if !queue(f) {
                    kept = false;
                    break;
                }
            }
            if !kept {
                break;
            }
        }
        ahead.stop();
        kept
    })
}

/// How many threads walk a directory's subdirectories ahead of the queue.
const WALKERS: usize = 2;

/// The largest batch of paths the streamed first subdirectory sends at once.
const STREAM_BATCH: usize = 64;

/// How many subdirectories past the one being read a walker may list (their paths wait in
/// memory).
const LOOKAHEAD: usize = 8;

/// The walkers' shared state: the next subdirectory to take, the one the queue reads, and
/// whether the walk is over.
struct Ahead<'a> {
    next: &'a std::sync::atomic::AtomicUsize,
    reading: Mutex<usize>,
    /// The queue moved on to another subdirectory, or the walk is over.
    moved: Condvar,
    stop: &'a AtomicBool,
}

impl Ahead<'_> {
    /// The queue reads subdirectory `i` now.
    fn read(&self, i: usize) {
        *self.reading.lock().expect("reading") = i;
        self.moved.notify_all();
    }

    /// The walk is over (done or stopped).
    fn stop(&self) {
        // Under the lock: a walker checks the flag and waits under it, so it cannot miss this.
        let _reading = self.reading.lock().expect("reading");
        self.stop.store(true, Ordering::Relaxed);
        self.moved.notify_all();
    }

    /// Waits until subdirectory `i` is at most [`LOOKAHEAD`] past the one read; `false` once
    /// the walk is over.
    fn wait_for(&self, i: usize) -> bool {
        let mut reading = self.reading.lock().expect("reading");
        while i > *reading + LOOKAHEAD && !self.stop.load(Ordering::Relaxed) {
            reading = self.moved.wait(reading).expect("reading");
        }
        !self.stop.load(Ordering::Relaxed)
    }
}

/// A walker thread: takes the next subdirectory not yet taken and sends its files, in path
/// order, to that subdirectory's channel, until none is left or the walk is stopped.
#[allow(clippy::too_many_arguments)]
fn walk_ahead(
    q: &GrepQuery,
    ws: &Workspace,
    dir: &Path,
    dirs: &[&Path],
    txs: &[Mutex<Option<mpsc::Sender<Vec<PathBuf>>>>],
    ahead: &Ahead<'_>,
    error: &(dyn Fn(String) + Sync),
) {
    let stop = ahead.stop;
    loop {
        let i = ahead.next.fetch_add(1, Ordering::Relaxed);
        if i >= dirs.len() || stop.load(Ordering::Relaxed) {
            return;
        }
        // Not too far ahead of the queue.
        if !ahead.wait_for(i) {
            return;
        }
        let Some(tx) = txs[i].lock().expect("walks").take() else {
            continue;
        };
        let Ok(mut wb) = walk_builder_below(q, dir, dirs[i], ws.words()) else {
            continue;
        };
        if i == 0 {
            // The first subdirectory streams, in order, as it is walked (the first lines of
            // the output wait for nothing else).
            // Sent in batches growing from one file, so the first goes at once and the rest
            // cost few hand-overs.
            wb.sort_by_file_name(|a, b| a.cmp(b));
            let mut batch = Vec::new();
            let mut cap = 1;
            for entry in wb.build() {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                match entry {
                    Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => {
                        batch.push(e.into_path());
                        if batch.len() >= cap {
                            cap = (cap * 2).min(STREAM_BATCH);
                            if tx.send(std::mem::take(&mut batch)).is_err() {
                                return;
                            }
                        }
                    }
                    Ok(_) => {}
                    Err(e) => error(e.to_string()),
                }
            }
            if !batch.is_empty() && tx.send(batch).is_err() {
                return;
            }
        } else {
            // The others are walked ahead of the queue: listed whole by ignore's parallel
            // walk (which learns of ignore files from the directory listing instead of
            // probing for five names in every directory), then sorted, and sent at once.
            if tx.send(listed(&wb, dirs[i], stop, error)).is_err() {
                return;
            }
        }
    }
}

/// Every file of a walk, in path order (components compared in turn, as a sorted walk
/// yields them).
fn listed(
    wb: &ignore::WalkBuilder,
    root: &Path,
    stop: &AtomicBool,
    error: &(dyn Fn(String) + Sync),
) -> Vec<PathBuf> {
    let found = Mutex::new(Vec::new());
    let mut wb = wb.clone();
    wb.threads(1).build_parallel().run(|| {
        Box::new(|entry| {
            if stop.load(Ordering::Relaxed) {
                return ignore::WalkState::Quit;
            }
            match entry {
                Ok(e) if e.depth() > 0 => match e.file_type() {
                    Some(t) if t.is_file() => {
                        found.lock().expect("found").push((e.into_path(), false))
                    }
                    Some(t) if t.is_dir() => {
                        found.lock().expect("found").push((e.into_path(), true))
                    }
                    _ => {}
                },
                Ok(_) => {}
                Err(e) => error(e.to_string()),
            }
            ignore::WalkState::Continue
        })
    });
    in_path_order(root, found.into_inner().expect("found"))
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
