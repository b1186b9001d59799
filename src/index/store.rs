//! Where a root's index lives: one private directory per root in the cache directory,
//! holding immutable segment files and the manifest that lists the current ones, shared by
//! every process that indexes or searches that root.
//!
//! ```text
//! <index dir>/<hash of the root>/   mode 0700
//!     MANIFEST        the current generation: root, segment files in order (oldest first)
//!                     with their checksums; replaced atomically (temporary file, rename)
//!     s<number>.seg   a segment file (see `persist`), never changed once written
//!     lock            held (an OS file lock, released when its process dies) by the one
//!                     process that writes: builds, adds segments, merges, removes files
//!     use.lock        held shared by every process that uses the index: pruning never
//!                     removes an index in use
//!     used            its modification time is the index's last use (for pruning)
//!     w-<pid>-<n>     a watching server's marks directory (how a one-shot search asks it
//!                     what changed), valid while that server holds `w-<pid>-<n>.lock`
//!     .*.tmp          a file being written (removed by the next writer if its writer died)
//! ```
//!
//! A process that does not hold the lock only reads: it maps the segments the manifest
//! lists and picks up a new manifest when one appears. A segment the writer removed after a
//! merge stays readable to a process that has it mapped (on Unix; elsewhere its removal is
//! retried by a later writer).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::persist::{self, IndexFileError, checksum};

const MAGIC: &[u8; 8] = b"MGMANIF1";
const END: &[u8; 8] = b"MGMANEND";

/// The default directory of index files: `mapgrep/index` in the user's cache directory
/// (`$XDG_CACHE_HOME`, else `~/.cache` on Linux; `~/Library/Caches` on macOS;
/// `%LOCALAPPDATA%` on Windows: [`crate::platform::cache_dir`]).
pub fn default_dir() -> Option<PathBuf> {
    Some(crate::platform::cache_dir()?.join("mapgrep").join("index"))
}

/// The directory that holds the index of `root` in `dir`: named by a hash of the root's
/// path.
pub fn dir_for(dir: &Path, root: &Path) -> PathBuf {
    let h = checksum(root.as_os_str().as_encoded_bytes());
    dir.join(format!("{h:016x}"))
}

/// One segment as a manifest lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SegRef {
    /// Its file is `s<number>.seg`.
    pub(super) number: u64,
    /// The checksum in its tail: a file replaced under the same name is refused.
    pub(super) sum: u64,
}

/// The current generation of a root's index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Manifest {
    pub(super) generation: u64,
    pub(super) root: PathBuf,
    /// Files in the index (for listings).
    pub(super) files: u64,
    /// Oldest first: a path's entry in a later segment replaces the earlier ones.
    pub(super) segments: Vec<SegRef>,
}

impl Manifest {
    fn encode(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&self.generation.to_le_bytes());
        b.extend_from_slice(&self.files.to_le_bytes());
        let root = self.root.as_os_str().as_encoded_bytes();
        b.extend_from_slice(&(root.len() as u32).to_le_bytes());
        b.extend_from_slice(root);
        b.extend_from_slice(&(self.segments.len() as u32).to_le_bytes());
        for s in &self.segments {
            b.extend_from_slice(&s.number.to_le_bytes());
            b.extend_from_slice(&s.sum.to_le_bytes());
        }
        let sum = checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b.extend_from_slice(END);
        b
    }

    fn decode(b: &[u8], path: &Path) -> Result<Manifest, IndexFileError> {
        let bad = |why: &str| persist::refused(path, why);
        if b.len() < 8 + 8 + 8 + 4 + 4 + 16 || &b[..8] != MAGIC {
            return Err(bad("not a mapgrep manifest of this version"));
        }
        if &b[b.len() - 8..] != END {
            return Err(bad("cut short"));
        }
        let body = &b[..b.len() - 16];
        let sum = u64::from_le_bytes(b[b.len() - 16..b.len() - 8].try_into().expect("8"));
        if checksum(body) != sum {
            return Err(bad("checksum mismatch (damaged or altered)"));
        }
        let u32_at = |i: usize| -> Option<u32> {
            Some(u32::from_le_bytes(body.get(i..i + 4)?.try_into().ok()?))
        };
        let u64_at = |i: usize| -> Option<u64> {
            Some(u64::from_le_bytes(body.get(i..i + 8)?.try_into().ok()?))
        };
        let layout = || bad("inconsistent layout");
        let generation = u64_at(8).ok_or_else(layout)?;
        let files = u64_at(16).ok_or_else(layout)?;
        let n = u32_at(24).ok_or_else(layout)? as usize;
        let root = body.get(28..28 + n).ok_or_else(layout)?;
        let root = PathBuf::from(persist::os_str(root));
        let mut i = 28 + n;
        let count = u32_at(i).ok_or_else(layout)? as usize;
        i += 4;
        if count > (body.len() - i) / 16 || body.len() - i != count * 16 {
            return Err(layout());
        }
        let mut segments = Vec::with_capacity(count);
        for _ in 0..count {
            segments.push(SegRef {
                number: u64_at(i).ok_or_else(layout)?,
                sum: u64_at(i + 8).ok_or_else(layout)?,
            });
            i += 16;
        }
        Ok(Manifest {
            generation,
            root,
            files,
            segments,
        })
    }
}

/// What identifies one version of the manifest file cheaply (a stat): a new one was
/// renamed into place when it differs.
pub(super) type Stamp = Option<(u64, u64, std::time::SystemTime)>;

/// The directory of one root's index.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    root: PathBuf,
    /// The lock file, held: this process is the writer.
    lock: Mutex<Option<std::fs::File>>,
    /// `use.lock`, held shared while the store is open.
    _using: Option<std::fs::File>,
    /// Segments are opened with the checksum of all their bytes computed (a server: else
    /// a one-shot search, see [`persist::parse`]).
    verify: bool,
}

impl Store {
    /// The store of `root` in `index_dir`, its directories created private (or checked to
    /// be).
    pub fn open(index_dir: &Path, root: &Path) -> std::io::Result<Store> {
        persist::private_dir(index_dir)?;
        let dir = dir_for(index_dir, root);
        persist::private_dir(&dir)?;
        Ok(Store {
            verify: true,
            _using: using(&dir),
            dir,
            root: root.to_path_buf(),
            lock: Mutex::new(None),
        })
    }

    /// The store of `root` in `index_dir` if it exists, for a one-shot search (nothing
    /// created; segments opened without computing every byte's checksum).
    pub fn existing(index_dir: &Path, root: &Path) -> Option<Store> {
        let dir = dir_for(index_dir, root);
        dir.join("MANIFEST").is_file().then(|| Store {
            verify: false,
            _using: using(&dir),
            dir,
            root: root.to_path_buf(),
            lock: Mutex::new(None),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether segments are opened with every byte's checksum computed.
    pub(super) fn verifies(&self) -> bool {
        self.verify
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn manifest_path(&self) -> PathBuf {
        self.dir.join("MANIFEST")
    }

    pub(super) fn segment_path(&self, number: u64) -> PathBuf {
        self.dir.join(format!("s{number:016x}.seg"))
    }

    /// Takes the writer's lock if no other process holds it; true if this process holds it
    /// (now or already). When taken, what a writer that died left half-written is removed.
    pub fn try_write(&self) -> bool {
        let mut l = self.lock.lock().expect("store lock");
        if l.is_some() {
            return true;
        }
        let Ok(f) = persist::private_file(&self.dir.join("lock")) else {
            return false;
        };
        if !crate::platform::try_lock(&f).unwrap_or(false) {
            return false;
        }
        *l = Some(f);
        drop(l);
        self.remove_temps();
        true
    }

    /// Whether this process holds the writer's lock.
    pub fn is_writer(&self) -> bool {
        self.lock.lock().expect("store lock").is_some()
    }

    /// The manifest file's stamp now.
    pub(super) fn stamp(&self) -> Stamp {
        let md = std::fs::metadata(self.manifest_path()).ok()?;
        let id = crate::source::FileId::from_metadata(&md);
        Some((id.ino, id.len, md.modified().ok()?))
    }

    /// The current manifest (`None` when there is none yet).
    pub(super) fn manifest(&self) -> Result<Option<Manifest>, IndexFileError> {
        let path = self.manifest_path();
        if !path.exists() {
            return Ok(None);
        }
        persist::check_owner(&path)?;
        let bytes = std::fs::read(&path).map_err(|e| IndexFileError::Io {
            path: path.clone(),
            source: e,
        })?;
        let m = Manifest::decode(&bytes, &path)?;
        if m.root != self.root {
            return Err(persist::refused(
                &path,
                format!(
                    "it indexes {}, not {}",
                    m.root.display(),
                    self.root.display()
                ),
            ));
        }
        Ok(Some(m))
    }

    /// Writes a new segment file with `write` (given a private temporary file), synced and
    /// renamed into place; returns its path. Only the writer calls this.
    pub(super) fn write_segment(
        &self,
        number: u64,
        write: impl FnOnce(std::fs::File) -> std::io::Result<std::fs::File>,
    ) -> std::io::Result<PathBuf> {
        let target = self.segment_path(number);
        let (tmp, f) = persist::temp_file(&target)?;
        let r = write(f).and_then(|f| f.sync_all());
        match r.and_then(|()| std::fs::rename(&tmp, &target)) {
            Ok(()) => Ok(target),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(e)
            }
        }
    }

    /// Replaces the manifest with `m` (atomically, synced); then removes the segment files
    /// it no longer lists. Only the writer calls this.
    pub(super) fn publish(&self, m: &Manifest) -> std::io::Result<()> {
        let target = self.manifest_path();
        let (tmp, mut f) = persist::temp_file(&target)?;
        let r = f
            .write_all(&m.encode())
            .and_then(|()| f.sync_all())
            .and_then(|()| std::fs::rename(&tmp, &target));
        if let Err(e) = r {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        if let Ok(d) = std::fs::File::open(&self.dir) {
            let _ = d.sync_all();
        }
        self.remove_unlisted(m);
        Ok(())
    }

    /// Removes segment files `m` does not list (merged away, or left by a writer that died
    /// before publishing them).
    fn remove_unlisted(&self, m: &Manifest) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(n) = name
                .to_str()
                .and_then(|n| n.strip_prefix('s'))
                .and_then(|n| n.strip_suffix(".seg"))
                .and_then(|n| u64::from_str_radix(n, 16).ok())
            else {
                continue;
            };
            if !m.segments.iter().any(|s| s.number == n) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }

    /// Removes temporary files (only the writer writes them: when it holds the lock, any
    /// other is left by a writer that died).
    fn remove_temps(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for e in entries.flatten() {
            let n = e.file_name();
            let n = n.to_string_lossy();
            if n.starts_with('.') && n.ends_with(".tmp") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }

    /// Advertises this process's watch of the root through its marks directory `marks`:
    /// valid while the returned lock is held (it dies with the process).
    pub(super) fn advertise(&self, marks: &Path) -> Option<std::fs::File> {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!("w-{}-{n}", std::process::id());
        let lock = persist::private_file(&self.dir.join(format!("{name}.lock"))).ok()?;
        crate::platform::try_lock(&lock).ok()?.then_some(())?;
        let (tmp, mut f) = persist::temp_file(&self.dir.join(&name)).ok()?;
        f.write_all(marks.as_os_str().as_encoded_bytes()).ok()?;
        std::fs::rename(&tmp, self.dir.join(&name)).ok()?;
        Some(lock)
    }

    /// The marks directories of the servers watching the root now (records of servers
    /// that are gone are removed).
    pub(super) fn watchers(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with("w-") || name.ends_with(".lock") {
                continue;
            }
            let lock = self.dir.join(format!("{name}.lock"));
            let live = std::fs::OpenOptions::new()
                .write(true)
                .open(&lock)
                .is_ok_and(|f| matches!(crate::platform::try_lock(&f), Ok(false)));
            if !live {
                let _ = std::fs::remove_file(e.path());
                let _ = std::fs::remove_file(&lock);
                continue;
            }
            if persist::check_owner(&e.path()).is_ok()
                && let Ok(b) = std::fs::read(e.path())
            {
                let marks = PathBuf::from(super::persist::os_str(&b));
                if marks.is_absolute() {
                    out.push(marks);
                }
            }
        }
        out
    }

    /// Records a use of the index now (the `used` file's time), for pruning.
    pub fn touch_used(&self) {
        if let Ok(f) = persist::private_file(&self.dir.join("used")) {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
    }
}

/// `dir`'s `use.lock`, locked shared (see the module docs).
fn using(dir: &Path) -> Option<std::fs::File> {
    let f = persist::private_file(&dir.join("use.lock")).ok()?;
    f.lock_shared().ok()?;
    Some(f)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_round_trips_and_refuses_damage() {
        let m = Manifest {
            generation: 7,
            root: PathBuf::from("/some/root"),
            files: 3,
            segments: vec![SegRef { number: 1, sum: 11 }, SegRef { number: 5, sum: 55 }],
        };
        let b = m.encode();
        let p = Path::new("MANIFEST");
        assert_eq!(Manifest::decode(&b, p).unwrap(), m);
        for i in [0, 9, 20, b.len() - 17, b.len() - 1] {
            let mut c = b.clone();
            c[i] ^= 1;
            assert!(Manifest::decode(&c, p).is_err(), "{i}");
        }
        assert!(Manifest::decode(&b[..b.len() - 3], p).is_err());
    }
}
