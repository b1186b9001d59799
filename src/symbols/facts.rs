//! Every recorded file of a subtree as the repo map takes it: its definitions (declarations
//! left out) and the names its code uses, from the records that hold for the files the index
//! has now (a file changed since its record, or not recorded yet, is left out and counted).

use std::path::Path;

use crate::fasthash::FastMap;
use crate::workspace::Workspace;

use super::read::BlockCache;

/// One file's facts, its names as idents of [`Facts::names`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileFacts {
    /// Relative to the root, `/`-separated.
    pub path: String,
    /// Name, kind, the definition's own first line, its last line.
    pub defs: Vec<(u32, &'static str, u32, u32)>,
    /// Name and count of uses (the least of its recorded class), in the record's order (by
    /// name), each name once.
    pub uses: Vec<(u32, u32)>,
}

/// The facts of a subtree's files, their names interned once: each distinct string of each
/// side file is decoded and hashed once, not once per file that uses it (on the whole Linux
/// tree that was tens of millions of strings).
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// Ident -> name.
    pub names: Vec<Box<str>>,
    /// By path.
    pub files: Vec<FileFacts>,
}

/// Names interned across parts: each part's string ids translated to idents once.
#[derive(Default)]
struct Interner {
    ids: FastMap<Box<str>, u32>,
}

impl Interner {
    fn ident(&mut self, name: String) -> u32 {
        let next = u32::try_from(self.ids.len()).expect("fewer than 2^32 names");
        *self.ids.entry(name.into_boxed_str()).or_insert(next)
    }

    /// Ident -> name.
    fn into_names(self) -> Vec<Box<str>> {
        let mut names: Vec<Box<str>> = vec![Box::from(""); self.ids.len()];
        for (name, id) in self.ids {
            names[id as usize] = name;
        }
        names
    }
}

/// The facts of the files under `under` (root-relative, `/`-separated; empty: all) of the
/// indexed root `root`, by path, and how many files there the records do not cover now;
/// `None` when the root has no index or records yet.
pub fn facts(ws: &Workspace, root: &Path, under: &str) -> Option<(Facts, usize)> {
    let view = crate::index::root_view(ws, root, true)?;
    let state = super::state::root_state(ws, root)?;
    let recs = state.records();
    let inside = |p: &str| {
        under.is_empty() || p == under || p.strip_prefix(under).is_some_and(|r| r.starts_with('/'))
    };
    let newest = newest_inside(&recs, &inside);
    let mut caches: Vec<Option<BlockCache<'_>>> = recs.parts.iter().map(|_| None).collect();
    // Per part, made when first read: its string ids to idents (`u32::MAX`: not met yet).
    let mut idents: Vec<Vec<u32>> = recs.parts.iter().map(|_| Vec::new()).collect();
    let mut names = Interner::default();
    // Grown once, not step by step (each step rehashes every name so far): about 40 new
    // names a file on the Linux tree, and no more than the parts hold.
    let strings: usize = recs.parts.iter().map(|p| p.0.strings() as usize).sum();
    names.ids.reserve(strings.min(newest.len() * 40));
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
        let (Some(syms), Some(uses)) = (part.symbols(&f), part.uses(&f)) else {
            continue;
        };
        let strings = caches[i].get_or_insert_with(|| BlockCache::new(part));
        let known = &mut idents[i];
        if known.is_empty() {
            *known = vec![u32::MAX; part.strings() as usize];
        }
        let mut ident = |id: u32| -> Option<u32> {
            let slot = known.get_mut(id as usize)?;
            if *slot == u32::MAX {
                *slot = names.ident(strings.get(id)?);
            }
            Some(*slot)
        };
        let defs = syms
            .iter()
            .filter(|s| !s.declaration)
            .filter_map(|s| Some((ident(s.name)?, part.kind(s.kind), s.def, s.end)))
            .collect();
        let uses = uses
            .into_iter()
            .filter_map(|(id, class)| Some((ident(id)?, super::format::class_uses(class))))
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
    let facts = Facts {
        names: names.into_names(),
        files: out,
    };
    Some((facts, missing))
}

/// Each path's newest record (its part and file index) of the paths `inside` takes, by path.
fn newest_inside<'r>(
    recs: &'r super::state::Records,
    inside: &dyn Fn(&str) -> bool,
) -> std::collections::BTreeMap<&'r str, (usize, u32)> {
    let mut newest: std::collections::BTreeMap<&str, (usize, u32)> = Default::default();
    // The parts from the newest: a path's first record found is its newest.
    for (i, p) in recs.parts.iter().enumerate().rev() {
        for (path, &k) in &p.1 {
            if inside(path) {
                newest.entry(path).or_insert((i, k));
            }
        }
    }
    newest
}
