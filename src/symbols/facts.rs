//! Every recorded file of a subtree as the repo map takes it: its definitions (declarations
//! left out) and the names its code uses, from the records that hold for the files the index
//! has now (a file changed since its record, or not recorded yet, is left out and counted).

use std::path::Path;

use crate::workspace::Workspace;

use super::read::BlockCache;

/// One file's facts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileFacts {
    /// Relative to the root, `/`-separated.
    pub path: String,
    /// Name, kind, the definition's own first line, its last line.
    pub defs: Vec<(String, &'static str, u32, u32)>,
    /// Name and count of uses (the least of its recorded class), sorted by name.
    pub uses: Vec<(String, u32)>,
}

/// The facts of the files under `under` (root-relative, `/`-separated; empty: all) of the
/// indexed root `root`, by path, and how many files there the records do not cover now;
/// `None` when the root has no index or records yet.
pub fn facts(ws: &Workspace, root: &Path, under: &str) -> Option<(Vec<FileFacts>, usize)> {
    let view = crate::index::root_view(ws, root, true)?;
    let state = super::state::root_state(ws, root)?;
    let recs = state.records();
    let inside = |p: &str| {
        under.is_empty() || p == under || p.strip_prefix(under).is_some_and(|r| r.starts_with('/'))
    };
    // Each path's newest record: the parts from the newest.
    let mut newest: std::collections::BTreeMap<&str, (usize, u32)> = Default::default();
    for (i, p) in recs.parts.iter().enumerate().rev() {
        for (path, &k) in &p.1 {
            if inside(path) {
                newest.entry(path).or_insert((i, k));
            }
        }
    }
    let mut caches: Vec<Option<BlockCache<'_>>> = recs.parts.iter().map(|_| None).collect();
    let mut out = Vec::new();
    let mut missing = 0;
    for (path, (i, k)) in newest {
        let part = &recs.parts[i].0;
        let Some(f) = part.file(k) else { continue };
        let live = view
            .index
            .find(path.as_bytes())
            .map(|x| view.index.file(x).id);
        if live != Some(f.ident) || view.is_dirty(&crate::platform::join_slashed(root, path)) {
            missing += 1;
            continue;
        }
        if f.status != 0 {
            continue;
        }
        let strings = caches[i].get_or_insert_with(|| BlockCache::new(part));
        let (Some(syms), Some(uses)) = (part.symbols(&f), part.uses(&f)) else {
            continue;
        };
        let defs = syms
            .iter()
            .filter(|s| !s.declaration)
            .filter_map(|s| Some((strings.get(s.name)?, part.kind(s.kind), s.def, s.end)))
            .collect();
        let uses = uses
            .into_iter()
            .filter_map(|(id, class)| Some((strings.get(id)?, super::format::class_uses(class))))
            .collect();
        out.push(FileFacts {
            path: path.to_string(),
            defs,
            uses,
        });
    }
    // Files the index holds that no record covers.
    missing += view
        .index
        .files()
        .filter_map(|f| std::str::from_utf8(&f.path).ok())
        .filter(|p| inside(p) && recs.newest(p).is_none())
        .count();
    Some((out, missing))
}
