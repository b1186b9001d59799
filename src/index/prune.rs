//! The indexes of the cache directory as a whole: listing them, and pruning those of roots
//! that are gone, unused for long, unreadable, or beyond the size cap (never one in use).

use std::path::{Path, PathBuf};

use super::store::{Manifest, dir_for};

/// Whether some process uses the index in `dir` (holds its `use.lock`).
fn in_use(dir: &Path) -> bool {
    let Ok(f) = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("use.lock"))
    else {
        return false;
    };
    matches!(crate::platform::try_lock(&f), Ok(false))
}

/// One index in the cache directory, as listed.
#[derive(Clone, Debug)]
pub struct Listed {
    pub dir: PathBuf,
    /// The root it indexes (`None`: no readable manifest).
    pub root: Option<PathBuf>,
    pub bytes: u64,
    pub files: u64,
    pub segments: usize,
    /// Its last use (or its directory's time when it has none).
    pub used: Option<std::time::SystemTime>,
    /// A process uses it now.
    pub in_use: bool,
}

/// The indexes in `index_dir`.
pub fn list(index_dir: &Path) -> Vec<Listed> {
    let Ok(entries) = std::fs::read_dir(index_dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        let is_store = name.len() == 16
            && name
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_hexdigit()));
        if !is_store || !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let dir = e.path();
        let manifest = std::fs::read(dir.join("MANIFEST"))
            .ok()
            .and_then(|b| Manifest::decode(&b, &dir).ok());
        let bytes = std::fs::read_dir(&dir)
            .map(|d| {
                d.flatten()
                    .filter_map(|f| f.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0);
        let used = std::fs::metadata(dir.join("used"))
            .or_else(|_| std::fs::metadata(&dir))
            .and_then(|m| m.modified())
            .ok();
        out.push(Listed {
            in_use: in_use(&dir),
            root: manifest.as_ref().map(|m| m.root.clone()),
            files: manifest.as_ref().map_or(0, |m| m.files),
            segments: manifest.as_ref().map_or(0, |m| m.segments.len()),
            dir,
            bytes,
            used,
        });
    }
    out.sort_by(|a, b| a.root.cmp(&b.root));
    out
}

/// What [`prune`] keeps and removes.
#[derive(Clone, Copy, Debug)]
pub struct PruneRules {
    /// An index unused for this long is removed.
    pub max_age: std::time::Duration,
    /// The cache directory's total size: the least recently used indexes are removed
    /// until it fits.
    pub cap: u64,
}

/// Default [`PruneRules::max_age`]: 30 days.
pub const DEFAULT_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);
/// Default [`PruneRules::cap`]: 8 GiB.
pub const DEFAULT_CAP: u64 = 8 << 30;

impl Default for PruneRules {
    fn default() -> PruneRules {
        PruneRules {
            max_age: DEFAULT_MAX_AGE,
            cap: DEFAULT_CAP,
        }
    }
}

/// Removes from `index_dir` the indexes of roots that no longer exist, those unused for
/// longer than the rules allow, those without a readable manifest, files of older formats,
/// and then the least recently used until the rest fits the cap; never one that a process
/// uses, and never that of `keep`. Stops after `budget` (what is left waits for the next
/// time). Returns what it removed.
pub fn prune(
    index_dir: &Path,
    rules: PruneRules,
    keep: Option<&Path>,
    budget: std::time::Duration,
) -> Vec<Listed> {
    let t = std::time::Instant::now();
    // Files of the one-file format (`<hash>.idx`) and their temporaries.
    if let Ok(entries) = std::fs::read_dir(index_dir) {
        for e in entries.flatten() {
            let n = e.file_name();
            let n = n.to_string_lossy();
            let old = n.ends_with(".idx") || (n.contains(".idx.") && n.ends_with(".tmp"));
            if old && e.file_type().is_ok_and(|t| t.is_file()) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let keep_dir = keep.map(|k| dir_for(index_dir, k));
    let now = std::time::SystemTime::now();
    let mut all = list(index_dir);
    let mut removed = Vec::new();
    let removable = |l: &Listed| !l.in_use && Some(&l.dir) != keep_dir.as_ref();
    let mut rest = Vec::new();
    for l in all.drain(..) {
        let unused = l
            .used
            .and_then(|u| now.duration_since(u).ok())
            .is_some_and(|age| age > rules.max_age);
        let gone = l.root.as_ref().is_none_or(|r| !r.is_dir());
        if (gone || unused) && removable(&l) && t.elapsed() < budget {
            if std::fs::remove_dir_all(&l.dir).is_ok() {
                removed.push(l);
            }
        } else {
            rest.push(l);
        }
    }
    let mut total: u64 = rest.iter().map(|l| l.bytes).sum();
    rest.sort_by_key(|l| l.used);
    for l in rest {
        if total <= rules.cap || t.elapsed() >= budget {
            break;
        }
        if removable(&l) && std::fs::remove_dir_all(&l.dir).is_ok() {
            total -= l.bytes;
            removed.push(l);
        }
    }
    removed
}
