//! A directory's files in path order, walked by several threads: the directory's own entries
//! first (its ignore files, globs and types applied), then each subdirectory walked ahead by
//! a walker thread and read back in turn by the ordered visit ([`super::visit`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

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
    let txs: Vec<Mutex<Option<mpsc::Sender<PathBuf>>>> =
        txs.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let reading = std::sync::atomic::AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let ahead = Ahead {
        next: &next,
        reading: &reading,
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
                reading.store(i, Ordering::Relaxed);
                Box::new(rx.into_iter())
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
        stop.store(true, Ordering::Relaxed);
        kept
    })
}

/// How many threads walk a directory's subdirectories ahead of the queue.
const WALKERS: usize = 2;

/// How many subdirectories past the one being read a walker may list (their paths wait in
/// memory).
const LOOKAHEAD: usize = 8;

/// The walkers' shared state: the next subdirectory to take, the one the queue reads, and
/// whether the walk is over.
struct Ahead<'a> {
    next: &'a std::sync::atomic::AtomicUsize,
    reading: &'a std::sync::atomic::AtomicUsize,
    stop: &'a AtomicBool,
}

/// A walker thread: takes the next subdirectory not yet taken and sends its files, in path
/// order, to that subdirectory's channel, until none is left or the walk is stopped.
#[allow(clippy::too_many_arguments)]
fn walk_ahead(
    q: &GrepQuery,
    ws: &Workspace,
    dir: &Path,
    dirs: &[&Path],
    txs: &[Mutex<Option<mpsc::Sender<PathBuf>>>],
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
        while i > ahead.reading.load(Ordering::Relaxed) + LOOKAHEAD {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
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
            wb.sort_by_file_name(|a, b| a.cmp(b));
            for entry in wb.build() {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                match entry {
                    Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => {
                        if tx.send(e.into_path()).is_err() {
                            return;
                        }
                    }
                    Ok(_) => {}
                    Err(e) => error(e.to_string()),
                }
            }
        } else {
            // The others are walked ahead of the queue: listed whole by ignore's parallel
            // walk (which learns of ignore files from the directory listing instead of
            // probing for five names in every directory), then sorted.
            for f in listed(&wb, stop, error) {
                if tx.send(f).is_err() {
                    return;
                }
            }
        }
    }
}

/// Every file of a walk, in path order (components compared in turn, as a sorted walk
/// yields them).
fn listed(
    wb: &ignore::WalkBuilder,
    stop: &AtomicBool,
    error: &(dyn Fn(String) + Sync),
) -> Vec<PathBuf> {
    let files = Mutex::new(Vec::new());
    let mut wb = wb.clone();
    wb.threads(1).build_parallel().run(|| {
        Box::new(|entry| {
            if stop.load(Ordering::Relaxed) {
                return ignore::WalkState::Quit;
            }
            match entry {
                Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => {
                    files.lock().expect("files").push(e.into_path());
                }
                Ok(_) => {}
                Err(e) => error(e.to_string()),
            }
            ignore::WalkState::Continue
        })
    });
    let mut files = files.into_inner().expect("files");
    // A separator sorts before every other byte: `a/b` before `a.c`, as components do.
    let key = |p: &PathBuf| -> Vec<u8> {
        let bytes = p.as_os_str().as_encoded_bytes();
        let sep = |b: u8| std::path::is_separator(char::from(b));
        bytes.iter().map(|&b| if sep(b) { 0 } else { b }).collect()
    };
    files.sort_by_cached_key(key);
    files
}
