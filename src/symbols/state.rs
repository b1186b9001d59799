//! The records of each indexed root as this process holds them: its side files read
//! ([`Records`]), the files of its index whose current version has no record ([`Fresh`],
//! kept up as the index and the records change, by the paths that changed), shared by the
//! recorder that writes them and the queries that read them ([`root_state`]).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Mutex};

use crate::index::{Ident, SideFile, TrigramIndex};
use crate::workspace::Workspace;

use super::format::FileEntry;
use super::read::Part;

/// A side file read, and its paths to their file index.
pub(super) type PartPaths = (Part, crate::fasthash::FastMap<Box<str>, u32>);

/// The records of one root: its side files, oldest first (a path's record in a later one
/// replaces the earlier ones), each with its paths mapped to their file index.
#[derive(Default)]
pub(super) struct Records {
    pub(super) parts: Vec<Arc<PartPaths>>,
}

impl Records {
    pub(super) fn new(sides: &[Arc<SideFile>]) -> Records {
        Records::after(&Records::default(), sides)
    }

    /// The records of `sides`, reusing what `old` read of the side files they share.
    pub(super) fn after(old: &Records, sides: &[Arc<SideFile>]) -> Records {
        let parts = sides
            .iter()
            .filter_map(|s| {
                if let Some(p) = old.parts.iter().find(|p| Arc::ptr_eq(&p.0.side, s)) {
                    return Some(Arc::clone(p));
                }
                let p = Part::open(Arc::clone(s))?;
                let map = paths_of(&p);
                Some(Arc::new((p, map)))
            })
            .collect();
        Records { parts }
    }

    pub(super) fn sides(&self) -> Vec<Arc<SideFile>> {
        self.parts.iter().map(|p| Arc::clone(&p.0.side)).collect()
    }

    /// The newest record of `path`: its part and file index.
    pub(super) fn newest(&self, path: &str) -> Option<(usize, u32)> {
        self.parts
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, p)| p.1.get(path).map(|&k| (i, k)))
    }

    /// The identity and content checksum of the newest record of `path`.
    pub(super) fn newest_version(&self, path: &str) -> Option<(Ident, u64)> {
        let (i, k) = self.newest(path)?;
        let f = self.parts[i].0.file(k)?;
        Some((f.ident, f.hash))
    }

    /// The newest record of `path` if it holds for the version `ident`.
    pub(super) fn current(&self, path: &str, ident: &Ident) -> Option<(usize, FileEntry)> {
        let (i, k) = self.newest(path)?;
        let f = self.parts[i].0.file(k)?;
        (f.ident == *ident).then_some((i, f))
    }
}

/// Every path of a part, to its file index (the files are sorted by path, and so are the
/// strings: each block of strings is decoded once).
fn paths_of(p: &Part) -> crate::fasthash::FastMap<Box<str>, u32> {
    let mut m =
        crate::fasthash::FastMap::with_capacity_and_hasher(p.files() as usize, Default::default());
    let mut block: Option<(u32, super::format::Block)> = None;
    for k in 0..p.files() {
        let Some(f) = p.file(k) else { continue };
        let b = f.path / super::format::BLOCK;
        if block.as_ref().is_none_or(|x| x.0 != b) {
            block = p.block_all(b).map(|all| (b, all));
        }
        let Some((_, all)) = &block else { continue };
        let s = all.get(f.path % super::format::BLOCK);
        if let Some(path) = s.and_then(|s| std::str::from_utf8(s).ok()) {
            m.insert(path.into(), k);
        }
    }
    m
}

/// Which files of an index have no record that holds, for the index and records it was
/// computed for; kept up by the paths that changed between them.
#[derive(Default)]
pub(super) struct Fresh {
    index: Option<Arc<TrigramIndex>>,
    sides: Vec<Arc<SideFile>>,
    /// Root-relative paths.
    pub(super) unrecorded: BTreeSet<Box<str>>,
}

impl Fresh {
    /// Brings the set up to `ix` and `recs`: whole when it was for no index (or another
    /// root), else for the paths of the index's new segments and of the new side files.
    pub(super) fn update(&mut self, ix: &Arc<TrigramIndex>, recs: &Records) {
        let sides = recs.sides();
        let same_index = self.index.as_ref().is_some_and(|o| Arc::ptr_eq(o, ix));
        let same_sides = sides.len() == self.sides.len()
            && sides
                .iter()
                .zip(&self.sides)
                .all(|(a, b)| Arc::ptr_eq(a, b));
        if same_index && same_sides {
            return;
        }
        let Some(old) = self.index.clone().filter(|o| o.root() == ix.root()) else {
            self.unrecorded = ix
                .files()
                .filter_map(|f| {
                    let path = std::str::from_utf8(&f.path).ok()?;
                    recs.current(path, &f.id).is_none().then(|| path.into())
                })
                .collect();
            self.index = Some(Arc::clone(ix));
            self.sides = sides;
            return;
        };
        let mut touched: BTreeSet<Box<str>> = BTreeSet::new();
        for seg in ix.segments() {
            if !old.segments().iter().any(|o| Arc::ptr_eq(o, seg)) {
                touched.extend(
                    seg.paths()
                        .filter_map(|p| std::str::from_utf8(p).ok().map(Into::into)),
                );
            }
        }
        for p in &recs.parts {
            if !self.sides.iter().any(|s| Arc::ptr_eq(s, &p.0.side)) {
                touched.extend(p.1.keys().cloned());
            }
        }
        for path in touched {
            let live = ix.find(path.as_bytes()).map(|i| ix.file(i).id);
            match live {
                Some(id) if recs.current(&path, &id).is_none() => {
                    self.unrecorded.insert(path);
                }
                _ => {
                    self.unrecorded.remove(&path);
                }
            }
        }
        self.index = Some(Arc::clone(ix));
        self.sides = sides;
    }
}

/// A root's records and freshness, shared by the recorder and the queries.
#[derive(Default)]
pub(super) struct RootRecords {
    pub(super) records: Mutex<Arc<Records>>,
    pub(super) fresh: Mutex<Fresh>,
}

impl RootRecords {
    pub(super) fn records(&self) -> Arc<Records> {
        Arc::clone(&self.records.lock().expect("records"))
    }
}

/// The symbol records of a workspace: per root.
#[derive(Default)]
pub struct Symbols {
    pub(super) roots: Mutex<HashMap<PathBuf, Arc<RootRecords>>>,
    /// Files recorded so far by this process (for progress and tests).
    pub recorded: AtomicUsize,
    /// Set to stop the recorders.
    pub(super) stop: AtomicBool,
}

/// The records of `root` (canonical) in `ws`: those the recorder keeps, else (a one-shot
/// command) the ones its store holds, read once.
pub(super) fn root_state(ws: &Workspace, root: &Path) -> Option<Arc<RootRecords>> {
    let symbols = ws.state::<Symbols>();
    let mut roots = symbols.roots.lock().expect("symbols");
    if let Some(r) = roots.get(root) {
        return Some(Arc::clone(r));
    }
    let view = crate::index::root_view(ws, root, false)?;
    let state = Arc::new(RootRecords::default());
    if let Some(store) = &view.store {
        let sides = store.side_files(&[]).ok()?;
        *state.records.lock().expect("records") = Arc::new(Records::new(&sides));
    }
    roots.insert(root.to_path_buf(), Arc::clone(&state));
    Some(state)
}
