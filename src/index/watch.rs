//! The watcher of a root and the dirty paths it reports, with the catch-up barrier of
//! numbered marks in a private directory (see the `live` module docs).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Dirty paths and the watcher's health.
#[derive(Default)]
pub(super) struct Dirty {
    pub(super) inner: Mutex<DirtyInner>,
    pub(super) cond: Condvar,
    pub(super) healthy: AtomicBool,
    /// Where searches leave marks for the watcher (the catch-up barrier); none: searches
    /// validate by metadata.
    pub(super) marks: std::sync::OnceLock<Marks>,
    /// The highest mark the watcher reported.
    pub(super) seen_mark: AtomicU64,
    /// The generation of the index these dirty paths go with (changed under `inner`'s
    /// lock, with the index).
    pub(super) generation: AtomicU64,
    /// The dirty paths were given by a watching server that had caught up with every change
    /// made before it was asked (see [`ask_watcher`]): no marks needed.
    pub(super) remote: AtomicBool,
}

/// A private directory of mark files (see the module docs), removed with the watcher. It
/// holds `lock`, locked by its owner for as long as the directory is in use: the OS lock dies
/// with the process, so a directory whose lock can be taken belongs to a process that ended.
pub(super) struct Marks {
    dir: PathBuf,
    next: AtomicU64,
    /// `lock`, held (released before the directory is removed where the system removes no
    /// open file: Windows).
    lock: std::sync::Mutex<Option<std::fs::File>>,
}

/// A marks directory younger than this without a lock file may be being created.
const MARKS_GRACE: Duration = Duration::from_secs(10);

impl Marks {
    /// Creates a new private directory under `base` (which must lie outside every root).
    fn create(base: &Path) -> std::io::Result<Marks> {
        static N: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(base)?;
        // Directories a process that ended left behind (it cannot remove its own at exit).
        for e in std::fs::read_dir(base)?.flatten() {
            let name = e.file_name();
            if name
                .to_str()
                .is_some_and(|n| n.starts_with("mapgrep-marks-"))
                && Marks::abandoned(&e.path())
            {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        let mut last = None;
        for _ in 0..16 {
            let dir = base.join(format!(
                "mapgrep-marks-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            match crate::platform::private_dir(&dir, true) {
                Ok(()) => {
                    let lock = crate::platform::private_file(&dir.join("lock")).and_then(|f| {
                        match crate::platform::try_lock(&f)? {
                            true => Ok(f),
                            false => Err(std::io::Error::other("lock held by another process")),
                        }
                    });
                    match lock {
                        Ok(f) => {
                            return Ok(Marks {
                                dir,
                                next: AtomicU64::new(0),
                                lock: std::sync::Mutex::new(Some(f)),
                            });
                        }
                        Err(e) => {
                            let _ = std::fs::remove_dir_all(&dir);
                            last = Some(e);
                        }
                    }
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last.expect("tried"))
    }

    /// Whether the marks directory `dir` belongs to a process that ended: its lock file is
    /// free, or there is none and the directory is not new.
    fn abandoned(dir: &Path) -> bool {
        let lock = dir.join("lock");
        if lock.exists() {
            return crate::platform::lock_is_free(&lock);
        }
        std::fs::symlink_metadata(dir)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > MARKS_GRACE))
    }

    /// The mark number of `p`, if it is one of ours.
    fn number(&self, p: &Path) -> Option<u64> {
        if p.parent() != Some(&self.dir) {
            return None;
        }
        p.file_name()?.to_str()?.strip_prefix('m')?.parse().ok()
    }

    /// Whether `p` lies in the marks directory.
    fn owns(&self, p: &Path) -> bool {
        p.parent() == Some(&self.dir)
    }

    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Marks {
    /// Removes the directory: at once where the system removes an open file (Unix: under
    /// the lock, so that no other process takes it for abandoned first); elsewhere once the
    /// lock is released and the watcher has let go of the directory (notify's thread closes
    /// its handle soon after the watcher is dropped), tried for up to a second.
    fn remove(&self) {
        if std::fs::remove_dir_all(&self.dir).is_ok() {
            return;
        }
        drop(
            self.lock
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take(),
        );
        let deadline = Instant::now() + Duration::from_secs(1);
        while std::fs::remove_dir_all(&self.dir).is_err()
            && self.dir.exists()
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Marks {
    fn drop(&mut self) {
        drop(
            self.lock
                .get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take(),
        );
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[derive(Default)]
pub(super) struct DirtyInner {
    pub(super) paths: HashMap<PathBuf, u64>,
    pub(super) seq: u64,
    /// When the last change came.
    pub(super) last: Option<Instant>,
    /// When the oldest dirty path came (since the set was last empty).
    pub(super) first: Option<Instant>,
}

/// Dirty paths beyond this make a search validate by metadata (and the rebuild start).
pub(super) const MAX_DIRTY: usize = 2000;

impl Dirty {
    pub(super) fn mark(&self, root: &Path, p: &Path) {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let target = if matches!(name, ".gitignore" | ".ignore" | ".rgignore") {
            p.parent().unwrap_or(root)
        } else if p.ends_with(".git/info/exclude") {
            root
        } else {
            p
        };
        let mut d = self.inner.lock().expect("dirty");
        d.seq += 1;
        let seq = d.seq;
        let now = Instant::now();
        if d.paths.is_empty() {
            d.first = Some(now);
        }
        d.paths.insert(target.to_path_buf(), seq);
        d.last = Some(now);
        drop(d);
        self.cond.notify_all();
    }

    /// Removes the marks directory (at a clean exit; searches then validate by metadata).
    pub(super) fn remove_marks(&self) {
        self.healthy.store(false, Ordering::Relaxed);
        if let Some(m) = self.marks.get() {
            m.remove();
        }
    }

    pub(super) fn lost(&self, root: &Path, why: &str) {
        if self.healthy.swap(false, Ordering::Relaxed) {
            eprintln!(
                "mapgrep: watching {} stopped ({why}); the index is used after validating files by metadata",
                root.display()
            );
        }
        self.cond.notify_all();
    }

    /// Waits until the watcher has reported every change made before the call (see the
    /// module docs). False when it cannot tell: then the caller validates by metadata.
    pub(super) fn sync(&self) -> bool {
        if self.remote.load(Ordering::Relaxed) {
            return true;
        }
        let Some(m) = self.marks.get() else {
            return false;
        };
        if !self.healthy.load(Ordering::Relaxed) {
            return false;
        }
        let deadline = Instant::now() + Duration::from_millis(200);
        (0..crate::platform::WATCH_MARKS).all(|_| self.mark_seen(m, deadline))
    }

    /// Creates the next mark in `m` and waits (until `deadline`) for the watcher to report
    /// it.
    fn mark_seen(&self, m: &Marks, deadline: Instant) -> bool {
        let n = m.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mark = m.dir.join(format!("m{n}"));
        if std::fs::File::create(&mark).is_err() {
            return false;
        }
        let _ = std::fs::remove_file(&mark);
        let mut d = self.inner.lock().expect("dirty");
        while self.seen_mark.load(Ordering::Acquire) < n {
            let now = Instant::now();
            if now >= deadline || !self.healthy.load(Ordering::Relaxed) {
                return false;
            }
            d = self.cond.wait_timeout(d, deadline - now).expect("dirty").0;
        }
        true
    }
}

/// Watches `root` (and a new marks directory under `marks_base`, if given) for `dirty`.
pub(super) fn watch(
    root: &Path,
    dirty: &Arc<Dirty>,
    marks_base: Option<&Path>,
) -> Result<notify::RecommendedWatcher, String> {
    use notify::Watcher;
    use notify::event::{AccessKind, AccessMode, EventKind};
    let (r, d) = (root.to_path_buf(), Arc::clone(dirty));
    // Changes only: no event for the opens and reads of searches (or of the build).
    let kinds = notify::EventKindMask::CORE | notify::EventKindMask::ACCESS_CLOSE;
    // Links are never followed: only the root's own directories are watched (a link to the
    // filesystem's root, or to the process's view of it, would watch the system, or loop
    // without end).
    let config = notify::Config::default()
        .with_event_kinds(kinds)
        .with_follow_symlinks(false);
    let handler = move |res: notify::Result<notify::Event>| match res {
        Ok(ev) => {
            if ev.need_rescan() {
                d.lost(&r, "the event queue overflowed");
                return;
            }
            if let Some(m) = d.marks.get()
                && ev.paths.iter().any(|p| m.owns(p))
            {
                if let Some(n) = ev.paths.iter().filter_map(|p| m.number(p)).max() {
                    d.seen_mark.fetch_max(n, Ordering::Release);
                    let _g = d.inner.lock().expect("dirty");
                    d.cond.notify_all();
                } else if ev.kind.is_create() {
                    // Another process (a one-shot search) asks what is dirty.
                    for p in &ev.paths {
                        if let Some(nonce) =
                            p.file_name().and_then(|n| n.to_str()?.strip_prefix('c'))
                        {
                            answer_request(&d, m.dir(), nonce);
                        }
                    }
                }
                return;
            }
            match ev.kind {
                EventKind::Access(AccessKind::Close(AccessMode::Write)) | EventKind::Any => {
                    ev.paths.iter().for_each(|p| d.mark(&r, p))
                }
                EventKind::Access(_) => {}
                _ => {
                    if ev.paths.contains(&r) && ev.kind.is_remove() {
                        d.lost(&r, "the root was removed");
                    }
                    ev.paths.iter().for_each(|p| d.mark(&r, p));
                }
            }
        }
        Err(e) => d.lost(&r, &e.to_string()),
    };
    let mut w = notify::RecommendedWatcher::new(handler, config).map_err(|e| e.to_string())?;
    w.watch(root, notify::RecursiveMode::Recursive)
        .map_err(|e| e.to_string())?;
    match marks_base.map(Marks::create) {
        Some(Ok(m)) => match w.watch(&m.dir, notify::RecursiveMode::NonRecursive) {
            Ok(()) => {
                let _ = dirty.marks.set(m);
            }
            Err(e) => eprintln!(
                "mapgrep: cannot watch {} ({e}); searches of {} validate files by metadata",
                m.dir.display(),
                root.display()
            ),
        },
        Some(Err(e)) => eprintln!(
            "mapgrep: cannot create a marks directory under {} ({e}); searches of {} validate files by metadata",
            marks_base.map_or(Path::new(""), |b| b).display(),
            root.display()
        ),
        None => {}
    }
    dirty.healthy.store(true, Ordering::Relaxed);
    Ok(w)
}

/// Answers a request `c<nonce>` left in the marks directory `dir` by another process: the
/// watcher has reported it, so every change made before it was created has been reported
/// too. The answer, `s<nonce>` (renamed into place): the index generation the dirty paths
/// go with, whether the watch is healthy, and the dirty paths.
fn answer_request(d: &Dirty, dir: &Path, nonce: &str) {
    let mut b = Vec::new();
    {
        let inner = d.inner.lock().expect("dirty");
        b.extend_from_slice(&d.generation.load(Ordering::Relaxed).to_le_bytes());
        b.push(u8::from(d.healthy.load(Ordering::Relaxed)));
        b.extend_from_slice(&(inner.paths.len() as u64).to_le_bytes());
        for p in inner.paths.keys() {
            let p = p.as_os_str().as_encoded_bytes();
            b.extend_from_slice(&(p.len() as u32).to_le_bytes());
            b.extend_from_slice(p);
        }
    }
    let tmp = dir.join(format!(".t{nonce}"));
    if std::fs::write(&tmp, &b).is_ok() {
        let _ = std::fs::rename(&tmp, dir.join(format!("s{nonce}")));
    }
}

/// Asks the server watching through marks directory `dir` for its dirty paths (see
/// [`answer_request`]): `Some((generation, dirty paths))` when it answered within `limit`
/// with a healthy watch.
pub(super) fn ask_watcher(dir: &Path, limit: Duration) -> Option<(u64, Vec<PathBuf>)> {
    static N: AtomicU64 = AtomicU64::new(0);
    let nonce = format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    let req = dir.join(format!("c{nonce}"));
    let answer = dir.join(format!("s{nonce}"));
    super::persist::private_file(&req).ok()?;
    let t = Instant::now();
    let bytes = loop {
        if let Ok(b) = std::fs::read(&answer) {
            break Some(b);
        }
        if t.elapsed() >= limit {
            break None;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let _ = std::fs::remove_file(&req);
    let _ = std::fs::remove_file(&answer);
    let b = bytes?;
    let u64_at = |i: usize| Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?));
    let generation = u64_at(0)?;
    if *b.get(8)? != 1 {
        return None;
    }
    let n = u64_at(9)? as usize;
    let mut i = 17;
    let mut paths = Vec::with_capacity(n.min(b.len() / 4));
    for _ in 0..n {
        let len = u32::from_le_bytes(b.get(i..i + 4)?.try_into().ok()?) as usize;
        let p = b.get(i + 4..i + 4 + len)?;
        paths.push(PathBuf::from(super::persist::os_str(p)));
        i += 4 + len;
    }
    Some((generation, paths))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A marks directory whose lock file is free belongs to a process that ended and is
    /// removed by the next server; one whose lock is held (a live server's) is kept.
    #[test]
    fn dead_marks_directories_are_known_by_their_free_lock() {
        let base = tempfile::tempdir().unwrap();
        let dead = base.path().join("mapgrep-marks-4000000000-0");
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("lock"), "").unwrap();
        let live = Marks::create(base.path()).unwrap();
        assert!(!dead.exists(), "a dead server's marks directory is removed");
        let other = Marks::create(base.path()).unwrap();
        assert!(live.dir().exists(), "a live one is kept");
        assert_ne!(live.dir(), other.dir());
        let gone = live.dir().to_path_buf();
        drop(live);
        assert!(!gone.exists());
        drop(other);
    }
}
