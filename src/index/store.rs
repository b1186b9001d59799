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
//!                     what changed), valid while that server holds `w-<pid>-<n>.lock`;
//!                     both removed when it exits, or by the next process that looks if it
//!                     died
//!     damaged         a segment a search found damaged (written by any process that finds
//!                     one), for the writer, which rebuilds the index and removes it
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

use super::checksum::checksum;
use super::persist::{self, IndexFileError};

const MAGIC: &[u8; 8] = b"MGMANIF2";
const END: &[u8; 8] = b"MGMANEND";

/// The number of a side file's name (`y<number>.side`).
pub(super) fn side_number(name: &std::ffi::OsStr) -> Option<u64> {
    let n = name.to_str()?.strip_prefix('y')?.strip_suffix(".side")?;
    u64::from_str_radix(n, 16).ok()
}

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
    /// The side files ([`super::side`]), in the order their writer gave.
    pub(super) sides: Vec<SegRef>,
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
        for list in [&self.segments, &self.sides] {
            b.extend_from_slice(&(list.len() as u32).to_le_bytes());
            for s in list {
                b.extend_from_slice(&s.number.to_le_bytes());
                b.extend_from_slice(&s.sum.to_le_bytes());
            }
        }
        let sum = checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b.extend_from_slice(END);
        b
    }

    pub(super) fn decode(b: &[u8], path: &Path) -> Result<Manifest, IndexFileError> {
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
        let mut list = || -> Result<Vec<SegRef>, IndexFileError> {
            let count = u32_at(i).ok_or_else(layout)? as usize;
            i += 4;
            if count > body.len().saturating_sub(i) / 16 {
                return Err(layout());
            }
            let mut refs = Vec::with_capacity(count);
            for _ in 0..count {
                refs.push(SegRef {
                    number: u64_at(i).ok_or_else(layout)?,
                    sum: u64_at(i + 8).ok_or_else(layout)?,
                });
                i += 16;
            }
            Ok(refs)
        };
        let segments = list()?;
        let sides = list()?;
        if i != body.len() {
            return Err(layout());
        }
        Ok(Manifest {
            generation,
            root,
            files,
            segments,
            sides,
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
    /// Held while a manifest is read, changed and replaced (the segments' upkeep and the
    /// side files' writer publish in turn), and the side files written but not published
    /// yet (never removed as unlisted meanwhile).
    publishing: Mutex<Vec<u64>>,
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
            publishing: Mutex::new(Vec::new()),
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
            publishing: Mutex::new(Vec::new()),
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

    pub(super) fn side_path(&self, number: u64) -> PathBuf {
        self.dir.join(format!("y{number:016x}.side"))
    }

    /// Side file `number` is written: it is not removed as unlisted until published.
    pub(super) fn side_pending(&self, number: u64) {
        self.publishing.lock().expect("publishing").push(number);
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

    /// Replaces the manifest with `m` (atomically, synced), keeping the side files the
    /// current one lists; then removes the segment files it no longer lists. Only the writer
    /// calls this.
    pub(super) fn publish(&self, m: &Manifest) -> std::io::Result<()> {
        let segments = m.segments.clone();
        let (generation, files) = (m.generation, m.files);
        self.publish_with(move |current| {
            current.segments = segments;
            current.generation = generation;
            current.files = files;
        })
    }

    /// Reads the current manifest (an empty one when there is none), changes it with
    /// `change` and replaces it, in turn with every other publish of this process.
    pub(super) fn publish_with(&self, change: impl FnOnce(&mut Manifest)) -> std::io::Result<()> {
        let mut pending = self.publishing.lock().expect("publishing");
        let mut m = self.manifest().ok().flatten().unwrap_or(Manifest {
            generation: 0,
            root: self.root.clone(),
            files: 0,
            segments: Vec::new(),
            sides: Vec::new(),
        });
        change(&mut m);
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
        pending.retain(|n| !m.sides.iter().any(|s| s.number == *n));
        self.remove_unlisted(&m, &pending);
        if self
            .damage_reported()
            .is_some_and(|(r, _)| !m.segments.contains(&r))
        {
            self.clear_damage();
        }
        Ok(())
    }

    /// Removes segment and side files `m` does not list (merged away, or left by a writer
    /// that died before publishing them), but side files written and not published yet.
    fn remove_unlisted(&self, m: &Manifest, pending: &[u64]) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            if let Some(n) = side_number(&name) {
                if !m.sides.iter().any(|s| s.number == n) && !pending.contains(&n) {
                    let _ = std::fs::remove_file(e.path());
                }
                continue;
            }
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
    /// other is left by a writer that died), but those of a watching server's
    /// advertisement being written (see [`Store::advertise`]).
    fn remove_temps(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for e in entries.flatten() {
            let n = e.file_name();
            let n = n.to_string_lossy();
            if !(n.starts_with('.') && n.ends_with(".tmp")) {
                continue;
            }
            if let Some(base) = advert_of_temp(&n)
                && self.advert_live(base)
            {
                continue;
            }
            let _ = std::fs::remove_file(e.path());
        }
    }

    /// Removes the temporary files this process made here: at a clean exit, what a writer
    /// still writing left ([`persist::remove_own_temps`]).
    pub(super) fn remove_own_temps(&self) {
        persist::remove_own_temps(&self.dir);
    }

    /// Advertises this process's watch of the root through its marks directory `marks`
    /// (`w-<pid>-<n>`, valid while this process holds `w-<pid>-<n>.lock`), after removing
    /// the advertisements of processes that ended. Removed when the returned value is
    /// dropped (a server's exit).
    pub(super) fn advertise(&self, marks: &Path) -> Option<Advert> {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        self.adverts();
        for _ in 0..4 {
            let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let name = format!("w-{}-{n}", std::process::id());
            let lock_path = self.dir.join(format!("{name}.lock"));
            let lock = persist::private_file(&lock_path).ok()?;
            if !crate::platform::try_lock(&lock).ok()? {
                continue;
            }
            // Another process may have found the lock free just before we took it, and
            // removed it as a dead server's: then it is not ours to advertise with.
            if !lock_path.exists() {
                continue;
            }
            let advert = Advert {
                files: [self.dir.join(&name), lock_path],
                lock: Some(lock),
            };
            let (tmp, mut f) = persist::temp_file(&advert.files[0]).ok()?;
            let written = f.write_all(marks.as_os_str().as_encoded_bytes());
            if written
                .and_then(|()| std::fs::rename(&tmp, &advert.files[0]))
                .is_err()
            {
                let _ = std::fs::remove_file(&tmp);
                return None;
            }
            return Some(advert);
        }
        None
    }

    /// The marks directories of the servers watching the root now.
    pub(super) fn watchers(&self) -> Vec<PathBuf> {
        self.adverts()
    }

    /// The marks directories the live advertisements name; the advertisements of
    /// processes that ended (their lock free or gone), their locks and their temporary
    /// files are removed.
    fn adverts(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(base) = name.strip_suffix(".lock").filter(|b| b.starts_with("w-")) {
                // A lock whose advertisement is gone (a server that died before writing it).
                if !self.dir.join(base).exists() {
                    self.advert_live(base);
                }
                continue;
            }
            if let Some(base) = advert_of_temp(&name) {
                if !self.advert_live(base) {
                    let _ = std::fs::remove_file(e.path());
                }
                continue;
            }
            if !name.starts_with("w-") || !self.advert_live(&name) {
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

    /// Whether the advertisement `base` (`w-<pid>-<n>`) is a live process's: its lock is
    /// held. If not, it and its lock are removed (under the lock, so that a server that
    /// takes that name now sees its lock file gone).
    fn advert_live(&self, base: &str) -> bool {
        let lock_path = self.dir.join(format!("{base}.lock"));
        let lock = std::fs::OpenOptions::new().write(true).open(&lock_path);
        match lock.as_ref().map(crate::platform::try_lock) {
            Ok(Ok(false)) => true,
            _ => {
                let _ = std::fs::remove_file(self.dir.join(base));
                let _ = std::fs::remove_file(&lock_path);
                false
            }
        }
    }

    /// Reports segment `number` (checksum `sum`) damaged: a file `damaged` naming it, which
    /// the process that writes the store acts on (any process may report; see
    /// [`Store::damage_reported`]).
    pub(super) fn report_damage(&self, number: u64, sum: u64) {
        let Ok(mut f) = persist::private_file(&self.dir.join("damaged")) else {
            return;
        };
        let mut b = number.to_le_bytes().to_vec();
        b.extend_from_slice(&sum.to_le_bytes());
        let _ = f.write_all(&b).and_then(|()| f.set_len(16));
    }

    /// The segment reported damaged, if one is, and when it was reported.
    pub(super) fn damage_reported(&self) -> Option<(SegRef, std::time::SystemTime)> {
        let path = self.dir.join("damaged");
        persist::check_owner(&path).ok()?;
        let b = std::fs::read(&path).ok()?;
        let at = std::fs::metadata(&path).ok()?.modified().ok()?;
        let word = |i: usize| Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?));
        let r = SegRef {
            number: word(0)?,
            sum: word(8)?,
        };
        Some((r, at))
    }

    /// Removes the report of a damaged segment (it is no longer listed, or not damaged).
    pub(super) fn clear_damage(&self) {
        let _ = std::fs::remove_file(self.dir.join("damaged"));
    }

    /// Records a use of the index now (the `used` file's time), for pruning.
    pub fn touch_used(&self) {
        if let Ok(f) = persist::private_file(&self.dir.join("used")) {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
    }
}

/// A watching server's advertisement in the store (see [`Store::advertise`]): removed,
/// with its lock, when dropped.
pub(super) struct Advert {
    /// `w-<pid>-<n>` and `w-<pid>-<n>.lock`.
    files: [PathBuf; 2],
    lock: Option<std::fs::File>,
}

impl Drop for Advert {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.files[0]);
        // The lock file is removed while still held where the system allows it (Unix), so
        // that no one finds it free first; elsewhere once released.
        let gone = std::fs::remove_file(&self.files[1]).is_ok();
        drop(self.lock.take());
        if !gone {
            let _ = std::fs::remove_file(&self.files[1]);
        }
    }
}

/// The advertisement (`w-<pid>-<n>`) whose temporary file `name` is, if it is one.
fn advert_of_temp(name: &str) -> Option<&str> {
    let base = name
        .strip_prefix('.')?
        .strip_suffix(".tmp")?
        .split('.')
        .next()?;
    base.starts_with("w-").then_some(base)
}

/// `dir`'s `use.lock`, locked shared (see the module docs).
fn using(dir: &Path) -> Option<std::fs::File> {
    let f = persist::private_file(&dir.join("use.lock")).ok()?;
    f.lock_shared().ok()?;
    Some(f)
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
            sides: vec![SegRef { number: 2, sum: 22 }],
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
