//! What a reader of records kept beside the index (the symbols of `crate::symbols`) needs
//! of a root's index: its current view with the paths changed since (read together, as a
//! search reads them), and whether the watcher vouches for the rest; the store the records
//! are kept in; whether searches run (record keeping waits for them).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::live::Indexes;
use super::watch::MAX_DIRTY;
use super::{Store, TrigramIndex};
use crate::workspace::Workspace;

/// A root's index as a reader of records sees it.
#[derive(Clone)]
pub struct RootView {
    /// The root (canonical).
    pub root: PathBuf,
    pub index: Arc<TrigramIndex>,
    /// The paths changed since (absolute): what is at or under them is not what the index
    /// says.
    pub dirty: Vec<PathBuf>,
    /// The watcher has caught up with every change made before this view was taken, so an
    /// entry outside the dirty paths is the file (else each must be checked).
    pub trusted: bool,
    /// Where the index is kept (`None`: in memory only).
    pub store: Option<Arc<Store>>,
}

impl RootView {
    /// Whether `abs` (under the root) lies at or under a dirty path.
    pub fn is_dirty(&self, abs: &Path) -> bool {
        self.dirty.iter().any(|d| abs.starts_with(d))
    }
}

/// The view of the root whose index covers `dir`, once its index is ready (`None` before,
/// or when no root of `ws` is indexed there). `sync` waits for the watcher to catch up
/// first (a mark, a few milliseconds), as a search does; without it, `trusted` says only
/// whether the watcher is healthy.
pub fn root_view(ws: &Workspace, dir: &Path, sync: bool) -> Option<RootView> {
    let st = ws.state::<Indexes>().for_dir(dir)?;
    st.current()?;
    let synced = if sync {
        st.dirty.sync()
    } else {
        st.dirty.remote.load(Ordering::Relaxed) || st.dirty.healthy.load(Ordering::Relaxed)
    };
    let (index, dirty) = {
        let d = st.dirty.inner.lock().expect("dirty");
        let ix = st.current()?;
        (ix, d.paths.keys().cloned().collect::<Vec<PathBuf>>())
    };
    Some(RootView {
        root: st.root.clone(),
        trusted: synced && dirty.len() <= MAX_DIRTY,
        index,
        dirty,
        store: st.store.clone(),
    })
}

/// The roots of `ws` that are indexed (ready or not), canonical.
pub fn indexed_roots(ws: &Workspace) -> Vec<PathBuf> {
    ws.state::<Indexes>().roots()
}

/// Searches running in `ws` now (see [`super::searching`]): background work waits for them.
pub fn searches_running(ws: &Workspace) -> usize {
    ws.state::<Indexes>().running()
}
