//! The map of a large path kept between calls: its graph (the files' definitions and the
//! tables) and its last ranking, brought up to date at the next call by the files whose
//! records changed (their rows replaced, [`super::Tables::replace`]), so that a second map
//! of the whole Linux tree costs the comparison of its files' versions and a ranking, not
//! the reading of every record again (about 9 s of the 12 s of a first map).
//!
//! One map is kept: the last one of a path of at least [`HOLD_FILES`] files (a smaller one
//! is made in well under a second), until no map is asked for in [`HOLD_IDLE_SECS`]. A file
//! that changed and is not recorded again yet keeps the facts it had, shown without reading
//! its lines; a file that left the path (or that the records read as text now) is taken out
//! of the graph ([`super::Tables::remove`]); changes to more than a quarter of the files
//! build the map again.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::workspace::Workspace;

use super::graph::{Graph, build, defs_named};
use super::{FileFacts, Ranking};

/// A path of at least this many indexed files has its map kept between calls (`fs/ext4`,
/// about 80 files, is mapped in 0.1–0.2 s; `drivers/net`, 5,700, in about 1 s).
pub const HOLD_FILES: usize = 2_000;

/// Seconds a kept map stays without a map call before it is let go (and its memory handed
/// back to the system).
pub const HOLD_IDLE_SECS: u64 = 600;

/// The map kept, per workspace.
pub struct HeldMaps {
    slot: Mutex<Option<Held>>,
    /// The fewest files of a path whose map is kept ([`HOLD_FILES`]; tests lower it).
    pub min_files: AtomicUsize,
    /// Seconds without a map call after which the kept map goes ([`HOLD_IDLE_SECS`]).
    pub idle_secs: AtomicU64,
    /// When a map was last asked for, and whether a thread watches for the idle time.
    last_used: Mutex<Instant>,
    watching: AtomicBool,
}

impl Default for HeldMaps {
    fn default() -> HeldMaps {
        HeldMaps {
            slot: Mutex::new(None),
            min_files: AtomicUsize::new(HOLD_FILES),
            idle_secs: AtomicU64::new(HOLD_IDLE_SECS),
            last_used: Mutex::new(Instant::now()),
            watching: AtomicBool::new(false),
        }
    }
}

/// A graph, and the last ranking made of it: for which focus and which generation.
struct Held {
    graph: Arc<Graph>,
    ranked: Option<(Vec<String>, u64, Arc<Ranking>)>,
}

impl HeldMaps {
    /// Whether the map of a path of `files` indexed files is kept.
    pub(super) fn takes(&self, files: usize) -> bool {
        files >= self.min_files.load(Ordering::Relaxed)
    }

    /// The map of `rel` in `root` for `focus`: the one kept, brought up to date, else built
    /// (and kept): the graph, its ranking, and the files there the records do not cover
    /// now. Calls wait for each other: a second call finds the first one's map. `None` when
    /// the root has no index or records yet.
    pub(super) fn prepare(
        self: &Arc<Self>,
        ws: &Workspace,
        root: &Path,
        rel: &str,
        focus: &[String],
    ) -> Option<(Arc<Graph>, Arc<Ranking>, usize)> {
        *self.last_used.lock().expect("held maps") = Instant::now();
        let mut slot = self.slot.lock().expect("held maps");
        if let Some(h) = slot
            .as_mut()
            .filter(|h| h.graph.root == root && h.graph.rel == rel)
            && let Some(unrecorded) = h.catch_up(ws)
        {
            let ranking = h.ranking(focus);
            return Some((Arc::clone(&h.graph), ranking, unrecorded));
        }
        // The old map goes before the new one is built: both may be large.
        *slot = None;
        let (graph, unrecorded) = build(ws, root, rel)?;
        let mut h = Held {
            graph: Arc::new(graph),
            ranked: None,
        };
        let ranking = h.ranking(focus);
        let graph = Arc::clone(&h.graph);
        *slot = Some(h);
        drop(slot);
        // Idle from when the map was made, not from when it was asked for.
        *self.last_used.lock().expect("held maps") = Instant::now();
        self.watch_idle();
        Some((graph, ranking, unrecorded))
    }

    /// Lets the kept map go once no map was asked for in [`HeldMaps::idle_secs`]: a thread
    /// looks now and then while a map is kept (one at a time).
    fn watch_idle(self: &Arc<Self>) {
        if self.watching.swap(true, Ordering::AcqRel) {
            return;
        }
        let me = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("mapgrep-map-idle".into())
            .spawn(move || {
                loop {
                    let idle = Duration::from_secs(me.idle_secs.load(Ordering::Relaxed));
                    std::thread::sleep(
                        (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(30)),
                    );
                    if me.let_go_if_idle(idle) {
                        break;
                    }
                }
                me.watching.store(false, Ordering::Release);
                // A map kept while this thread was ending is watched again.
                if me.slot.lock().expect("held maps").is_some() {
                    me.watch_idle();
                }
            });
        if spawned.is_err() {
            self.watching.store(false, Ordering::Release);
        }
    }

    /// Drops the kept map if none was asked for in `idle`, and hands the memory back; whether
    /// no map is kept now.
    fn let_go_if_idle(&self, idle: Duration) -> bool {
        if self.last_used.lock().expect("held maps").elapsed() < idle {
            return false;
        }
        let gone = self.slot.lock().expect("held maps").take();
        if gone.is_some() {
            drop(gone);
            crate::source::release_free_memory();
        }
        true
    }
}

impl Held {
    /// The ranking for `focus`, made again only when the focus or the facts changed: after
    /// a change of the facts, its walk starts from the last ranking's ranks for that focus
    /// (the whole Linux tree's after 31 files changed: 29 steps from the start, fewer from
    /// there).
    fn ranking(&mut self, focus: &[String]) -> Arc<Ranking> {
        let generation = self.graph.generation;
        let last = self
            .ranked
            .as_ref()
            .filter(|(f, _, _)| f.as_slice() == focus);
        if let Some((_, g, r)) = last
            && *g == generation
        {
            return Arc::clone(r);
        }
        let start = last.map(|(_, _, r)| Arc::clone(r));
        let r = Arc::new(
            self.graph
                .rank_from(focus, start.as_ref().map(|r| r.file_rank.as_slice())),
        );
        self.ranked = Some((focus.to_vec(), generation, Arc::clone(&r)));
        r
    }

    /// Brings the graph up to the records: the rows of the files recorded again replaced, new
    /// files added, files gone taken out, files changed since their record marked stale. The
    /// files the records do not cover now; `None` when the map must be built again (more than
    /// a quarter of the files changed, the records are gone, or another call still renders
    /// this graph).
    fn catch_up(&mut self, ws: &Workspace) -> Option<usize> {
        let g = &*self.graph;
        let now = crate::symbols::versions(ws, &g.root, &g.rel)?;
        // Per file: seen in the records now (removed files count as seen).
        let mut seen: Vec<bool> = (0..g.files.len()).map(|i| g.tables.is_gone(i)).collect();
        let mut changed: Vec<String> = Vec::new();
        let mut stale = vec![false; g.files.len()];
        for (path, version) in now.current {
            match g.index_of.get(path.as_str()) {
                Some(&i) => {
                    let i = i as usize;
                    if g.tables.is_gone(i) || g.versions[i] != version {
                        changed.push(path);
                    }
                    seen[i] = true;
                }
                None => changed.push(path),
            }
        }
        for path in &now.stale {
            if let Some(&i) = g.index_of.get(path.as_str())
                && !g.tables.is_gone(i as usize)
            {
                seen[i as usize] = true;
                stale[i as usize] = true;
            }
        }
        let left: Vec<usize> = (0..seen.len()).filter(|&i| !seen[i]).collect();
        if changed.len() + left.len() > g.files.len() / 4 {
            return None;
        }
        if changed.is_empty() && left.is_empty() && stale == g.stale {
            return Some(now.missing);
        }
        let g = Arc::get_mut(&mut self.graph)?;
        g.stale = stale;
        for &i in &left {
            g.remove(i);
        }
        if !changed.is_empty() {
            // A file recorded again and changed once more since `versions` looked keeps its
            // facts, as stale: those read now are put back fresh.
            for path in &changed {
                if let Some(&i) = g.index_of.get(path.as_str()) {
                    g.stale[i as usize] = true;
                }
            }
            let facts = crate::symbols::facts_of(ws, &g.root, &changed)?;
            for f in facts.files {
                g.put(&facts.names, f);
            }
        }
        if !changed.is_empty() || !left.is_empty() {
            g.generation += 1;
        }
        Some(now.missing)
    }
}

impl Graph {
    /// Takes file `i` out (it left the path): no definitions, no uses, no rank, and a path no
    /// focus names.
    fn remove(&mut self, i: usize) {
        self.tables.remove(i);
        self.files[i] = FileFacts::default();
        self.stale[i] = false;
    }

    /// Replaces (or adds) the facts of one file, as the records give them now.
    fn put(&mut self, names: &[Arc<str>], f: crate::symbols::FileFacts) {
        let facts = FileFacts {
            defs: defs_named(names, f.defs),
            uses: f
                .uses
                .iter()
                .map(|&(id, n)| (names[id as usize].to_string(), n))
                .collect(),
            path: f.path,
        };
        let i = match self.index_of.get(facts.path.as_str()) {
            Some(&i) => i as usize,
            None => {
                let i = self.files.len();
                self.index_of.insert(facts.path.as_str().into(), i as u32);
                self.files.push(FileFacts::default());
                self.versions.push(f.version);
                self.stale.push(false);
                i
            }
        };
        self.tables.replace(i, &facts);
        self.versions[i] = f.version;
        self.stale[i] = false;
        self.files[i] = FileFacts {
            uses: Vec::new(),
            ..facts
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_graph() -> Graph {
        Graph {
            root: std::path::PathBuf::from("/r"),
            rel: String::new(),
            files: Vec::new(),
            versions: Vec::new(),
            stale: Vec::new(),
            index_of: Default::default(),
            tables: super::super::Tables::default(),
            generation: 0,
        }
    }

    #[test]
    fn a_kept_map_goes_only_once_idle() {
        let held = HeldMaps::default();
        *held.slot.lock().unwrap() = Some(Held {
            graph: Arc::new(empty_graph()),
            ranked: None,
        });
        *held.last_used.lock().unwrap() = Instant::now();
        assert!(!held.let_go_if_idle(Duration::from_secs(60)));
        assert!(held.slot.lock().unwrap().is_some(), "kept while in use");
        assert!(held.let_go_if_idle(Duration::ZERO));
        assert!(held.slot.lock().unwrap().is_none(), "let go once idle");
    }
}
