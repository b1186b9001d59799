//! The files below a directory as a ready index lists them, for a listing by name (no
//! content is read): the index's entries, trusted as the watcher vouches for them, with the
//! dirty paths walked by the caller's walker instead, as a search's selection has them
//! ([`super::select`]); and the directories the index's walk entered, whose other entries
//! are what the walk left out (hidden or ignored entries, and what is not a file).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::TrigramIndex;
use super::build::rel_bytes;
use super::live::{Indexes, WalkFound};
use super::persist::os_str;
use super::select::{check_outside, dirty_in_scope, walk_relevant, within};
use super::watch::MAX_DIRTY;
use crate::workspace::Workspace;

/// The index's files below a directory, with the dirty paths walked.
pub struct Listing {
    ix: Arc<TrigramIndex>,
    root: PathBuf,
    range: std::ops::Range<usize>,
    /// Beside each entry of `range`: under a dirty path (walked instead).
    skip: Vec<bool>,
    walked: WalkFound,
    /// The paths walked instead of the index's entries (dirty, or unreadable to the index).
    dirty: Vec<PathBuf>,
    stamp: Stamp,
}

impl Listing {
    /// The root of the index.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The index's files below the directory and outside the dirty paths: paths relative
    /// to the root (`/`-separated bytes), in the index's (byte) order.
    pub fn indexed(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let start = self.range.start;
        self.range
            .clone()
            .filter(move |&i| !self.skip[i - start])
            .map(|i| &*self.ix.file(i).path)
    }

    /// The files the walk of the dirty paths found (absolute), and what it could not read.
    pub fn walked(&self) -> (&[PathBuf], &[String]) {
        (&self.walked.0, &self.walked.1)
    }

    /// Whether the index lists `rel` (relative to the root) as a file.
    pub fn lists(&self, rel: &[u8]) -> bool {
        self.ix.find(rel).is_some()
    }

    /// Every file the index lists (relative to the root), whether dirty or not.
    pub fn all_files(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.ix.files().map(|f| &*f.path)
    }

    /// Whether `path` (absolute) is at or under a path walked instead of the index's
    /// entries.
    pub fn is_dirty(&self, path: &Path) -> bool {
        self.dirty.iter().any(|d| within(path, d))
    }

    /// The directories below the directory (itself included) that the index's walk entered,
    /// relative to the root.
    pub fn dirs(&self, rel: &[u8]) -> Vec<Box<[u8]>> {
        let mut dirs = self.ix.dirs_under(rel);
        dirs.insert(0, rel.into());
        dirs
    }

    /// What identifies the listing's state: the index's (its generation, and the view
    /// itself: an index built again may count generations from the start again) and the
    /// dirty paths' sequence number (which changes with any change the watcher reported).
    pub fn stamp(&self) -> Stamp {
        self.stamp.clone()
    }

    /// The absolute path of `rel` (relative to the root).
    pub fn path(&self, rel: &[u8]) -> PathBuf {
        crate::platform::join_slashed(&self.root, os_str(rel))
    }
}

/// What identifies a [`Listing`]'s state.
#[derive(Clone, Debug)]
pub struct Stamp {
    pub generation: u64,
    /// The index view (a new view per change), held weakly: its allocation, and so its
    /// identity, is not reused while a cache keyed by it holds the stamp.
    pub view: std::sync::Weak<TrigramIndex>,
    pub dirty: u64,
}

impl PartialEq for Stamp {
    fn eq(&self, other: &Stamp) -> bool {
        self.generation == other.generation
            && self.dirty == other.dirty
            && std::sync::Weak::ptr_eq(&self.view, &other.view)
    }
}

impl Eq for Stamp {}

/// The listing of `dir` (walked by `wb` where the watcher reports changes): `None` when its
/// root has no ready index, the watcher cannot vouch for it (then the caller walks), or the
/// index's walk did not enter `dir`.
pub fn listing(ws: &Workspace, dir: &Path, wb: &ignore::WalkBuilder) -> Option<Listing> {
    let st = ws.state::<Indexes>().for_dir(dir)?;
    st.current()?;
    check_outside(&st);
    if !st.dirty.sync() {
        return None;
    }
    let (ix, dirty, seq) = {
        let d = st.dirty.inner.lock().expect("dirty");
        let ix = st.current()?;
        (ix, d.paths.keys().cloned().collect::<Vec<PathBuf>>(), d.seq)
    };
    let rel = rel_bytes(&st.root, dir);
    let rel = &rel[..];
    if !ix.walked_dir(rel) || dirty.len() > MAX_DIRTY {
        return None;
    }
    let range = ix.under(rel);
    let (skip, relevant) = dirty_in_scope(&st, &ix, dir, range.clone(), dirty);
    // Walked with the caller's globs: not the walk a search keeps (that one has none).
    let walked = if relevant.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        walk_relevant(wb, &relevant)
    };
    let dirty = relevant;
    Some(Listing {
        root: st.root.clone(),
        stamp: Stamp {
            generation: ix.generation(),
            view: Arc::downgrade(&ix),
            dirty: seq,
        },
        ix,
        range,
        skip,
        walked,
        dirty,
    })
}

/// `rel` (`/`-separated bytes, as the index keeps paths) as a path.
pub fn os_path(rel: &[u8]) -> &Path {
    Path::new(os_str(rel))
}

/// The files under `paths` (each at or below the directory `wb` walks) as `wb` finds them,
/// and what it could not read.
pub fn walk_paths(wb: &ignore::WalkBuilder, paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
    walk_relevant(wb, paths)
}
