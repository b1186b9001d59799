//! Every recorded file of a subtree as the repo map takes it: its definitions (declarations
//! left out) and the names its code uses, from the records that hold for the files the index
//! has now (a file changed since its record, or not recorded yet, is left out and counted).

use std::path::Path;
use std::sync::Arc;

use crate::fasthash::FastMap;
use crate::index::Ident;
use crate::workspace::Workspace;

use super::format::{FileEntry, class_uses, uses_class};
use super::read::BlockCache;

/// One file's facts, its names as idents of [`Facts::names`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileFacts {
    /// Relative to the root, `/`-separated.
    pub path: String,
    /// Name, kind, the definition's own first line, its last line.
    pub defs: Vec<(u32, &'static str, u32, u32)>,
    /// Name and count of uses (the least of its recorded class), in the record's order (by
    /// name), each name once.
    pub uses: Vec<(u32, u32)>,
    /// The version of the file recorded.
    pub version: Version,
}

/// The facts of a subtree's files, their names interned once: each distinct string of each
/// side file is decoded and hashed once, not once per file that uses it (on the whole Linux
/// tree that was tens of millions of strings).
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// Ident -> name.
    pub names: Vec<Arc<str>>,
    /// Name -> ident (what interned them: a map kept between calls interns the names of
    /// files recorded again with it).
    pub ids: FastMap<Arc<str>, u32>,
    /// By path.
    pub files: Vec<FileFacts>,
}

/// Names interned across parts: each part's string ids translated to idents once.
#[derive(Default)]
struct Interner {
    ids: FastMap<Arc<str>, u32>,
}

impl Interner {
    fn ident(&mut self, name: String) -> u32 {
        let next = u32::try_from(self.ids.len()).expect("fewer than 2^32 names");
        *self.ids.entry(Arc::from(name)).or_insert(next)
    }

    /// Ident -> name.
    fn into_names(self) -> (Vec<Arc<str>>, FastMap<Arc<str>, u32>) {
        let empty: Arc<str> = Arc::from("");
        let mut names: Vec<Arc<str>> = vec![empty; self.ids.len()];
        for (name, &id) in &self.ids {
            names[id as usize] = Arc::clone(name);
        }
        (names, self.ids)
    }
}

/// The facts of the files under `under` (root-relative, `/`-separated; empty: all) of the
/// indexed root `root`, by path, and how many files there the records do not cover now;
/// `None` when the root has no index or records yet.
pub fn facts(ws: &Workspace, root: &Path, under: &str) -> Option<(Facts, usize)> {
    let view = crate::index::root_view(ws, root, true)?;
    let state = super::state::root_state(ws, root)?;
    let recs = state.records();
    let newest = newest_inside(&recs, &inside(under));
    let mut reader = Reader::new(&recs, newest.len());
    let mut out = Vec::new();
    let mut missing = 0;
    let unrecorded = each_standing(&view, &recs, under, newest, |path, i, standing| {
        match standing {
            Standing::Current(f) => out.extend(reader.read(i, &f, path)),
            Standing::Stale => missing += 1,
            // Deleted: not there any more, so not missing from the map.
            Standing::Gone | Standing::Skipped => {}
        }
    });
    Some((reader.into_facts(out), missing + unrecorded))
}

/// The version a file's facts come from: its record's file identity and content checksum.
pub type Version = (Ident, u64);

/// Where the files under a path stand against the records now ([`versions`]).
#[derive(Debug, Default)]
pub struct Versions {
    /// The files whose record holds (those [`facts`] takes), with its version, by path.
    pub current: Vec<(String, Version)>,
    /// The files the index has whose newest record is of another version (changed since,
    /// not recorded again yet).
    pub stale: Vec<String>,
    /// Files there the records do not cover now (as [`facts`] counts them).
    pub missing: usize,
}

/// Where each file under `under` of `root` stands: what a map kept between calls compares
/// with the versions it was made from. `None` as for [`facts`].
pub fn versions(ws: &Workspace, root: &Path, under: &str) -> Option<Versions> {
    let view = crate::index::root_view(ws, root, true)?;
    let state = super::state::root_state(ws, root)?;
    let recs = state.records();
    let newest = newest_inside(&recs, &inside(under));
    let mut v = Versions::default();
    let unrecorded = each_standing(
        &view,
        &recs,
        under,
        newest,
        |path, _, standing| match standing {
            Standing::Current(f) => v.current.push((path.to_string(), (f.ident, f.hash))),
            Standing::Stale => {
                v.stale.push(path.to_string());
                v.missing += 1;
            }
            Standing::Gone | Standing::Skipped => {}
        },
    );
    v.missing += unrecorded;
    Some(v)
}

/// Each recorded file of `newest` (those under `under`, by path) with its part and where it
/// stands, in path order; then how many files the index holds under `under` that no record
/// covers (see [`beside`]).
fn each_standing<'r>(
    view: &crate::index::RootView,
    recs: &'r super::state::Records,
    under: &str,
    newest: std::collections::BTreeMap<&'r str, (usize, u32)>,
    mut each: impl FnMut(&'r str, usize, Standing),
) -> usize {
    let ix = &view.index;
    let exact = ix.find(under.as_bytes()).filter(|_| !under.is_empty());
    let files = exact.into_iter().chain(ix.under(under.as_bytes()));
    let files = files.map(|id| (id, &*ix.file(id).path));
    beside(files, newest, |path, (i, k), live| {
        each(path, i, standing_of(view, recs, path, i, k, live));
    })
}

/// The index's files (id and path, in path order) beside the recorded paths (in path order,
/// each with `T`): `each` is given every recorded path with its file's id if the index has
/// it, in one pass (no search a file); returns how many of the index's files no record
/// names (those the records could name: a path that is not UTF-8 is not counted).
fn beside<'r, 'i, T>(
    files: impl Iterator<Item = (usize, &'i [u8])>,
    recorded: impl IntoIterator<Item = (&'r str, T)>,
    mut each: impl FnMut(&'r str, T, Option<usize>),
) -> usize {
    let mut files = files.peekable();
    let named = |p: &[u8]| usize::from(std::str::from_utf8(p).is_ok());
    let mut unrecorded = 0;
    for (path, t) in recorded {
        let mut live = None;
        while let Some(&(id, p)) = files.peek() {
            match p.cmp(path.as_bytes()) {
                std::cmp::Ordering::Less => unrecorded += named(p),
                std::cmp::Ordering::Equal => live = Some(id),
                std::cmp::Ordering::Greater => break,
            }
            files.next();
            if live.is_some() {
                break;
            }
        }
        each(path, t, live);
    }
    unrecorded + files.map(|(_, p)| named(p)).sum::<usize>()
}

/// The facts of those of `paths` whose record holds now (by path), their names interned
/// together. `None` as for [`facts`].
pub fn facts_of(ws: &Workspace, root: &Path, paths: &[String]) -> Option<Facts> {
    let view = crate::index::root_view(ws, root, true)?;
    let state = super::state::root_state(ws, root)?;
    let recs = state.records();
    let mut reader = Reader::new(&recs, paths.len());
    let mut out = Vec::new();
    let mut sorted: Vec<&str> = paths.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    sorted.dedup();
    for path in sorted {
        let Some((i, k)) = recs.newest(path) else {
            continue;
        };
        if let Standing::Current(f) = standing(&view, &recs, path, i, k) {
            out.extend(reader.read(i, &f, path));
        }
    }
    Some(reader.into_facts(out))
}

/// Whether a root-relative path is `under` (empty: everything).
fn inside(under: &str) -> impl Fn(&str) -> bool + '_ {
    move |p: &str| {
        under.is_empty() || p == under || p.strip_prefix(under).is_some_and(|r| r.starts_with('/'))
    }
}

/// A recorded file against the index now.
enum Standing {
    /// Its record holds and it was parsed.
    Current(FileEntry),
    /// The index has another version of it (or the watcher says it changed).
    Stale,
    /// The index does not have it.
    Gone,
    /// Its record holds, and says it is read as text (no symbols).
    Skipped,
}

fn standing(
    view: &crate::index::RootView,
    recs: &super::state::Records,
    path: &str,
    i: usize,
    k: u32,
) -> Standing {
    standing_of(view, recs, path, i, k, view.index.find(path.as_bytes()))
}

/// [`standing`], the file's place in the index (`live`) found already.
fn standing_of(
    view: &crate::index::RootView,
    recs: &super::state::Records,
    path: &str,
    i: usize,
    k: u32,
    live: Option<usize>,
) -> Standing {
    let Some(f) = recs.parts[i].0.file(k) else {
        return Standing::Skipped;
    };
    let Some(live) = live else {
        return Standing::Gone;
    };
    if view.index.file(live).id != f.ident
        || (!view.dirty.is_empty()
            && view.is_dirty(&crate::platform::join_slashed(&view.root, path)))
    {
        return Standing::Stale;
    }
    if f.status != 0 {
        return Standing::Skipped;
    }
    Standing::Current(f)
}

/// Reads files' facts from the records, each part's strings decoded and interned once.
struct Reader<'r> {
    recs: &'r super::state::Records,
    caches: Vec<Option<BlockCache<'r>>>,
    /// Per part, made when first read: its string ids to idents (`u32::MAX`: not met yet).
    idents: Vec<Vec<u32>>,
    names: Interner,
}

impl<'r> Reader<'r> {
    fn new(recs: &'r super::state::Records, files: usize) -> Reader<'r> {
        let mut names = Interner::default();
        // Grown once, not step by step (each step rehashes every name so far): about 40
        // new names a file on the Linux tree, and no more than the parts hold.
        let strings: usize = recs.parts.iter().map(|p| p.0.strings() as usize).sum();
        names.ids.reserve(strings.min(files * 40));
        Reader {
            recs,
            caches: recs.parts.iter().map(|_| None).collect(),
            idents: recs.parts.iter().map(|_| Vec::new()).collect(),
            names,
        }
    }

    /// The facts of file `f` of part `i`, at `path`.
    fn read(&mut self, i: usize, f: &FileEntry, path: &str) -> Option<FileFacts> {
        let part = &self.recs.parts[i].0;
        let (syms, uses) = (part.symbols(f)?, part.uses(f)?);
        let strings = self.caches[i].get_or_insert_with(|| BlockCache::new(part));
        let known = &mut self.idents[i];
        if known.is_empty() {
            *known = vec![u32::MAX; part.strings() as usize];
        }
        let names = &mut self.names;
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
        // Weighed by the class of the count (1, 2-3, 4-7, 8 or more), set-aside uses too.
        let uses = uses
            .into_iter()
            .filter_map(|u| {
                let n = u.uses + u.aside;
                Some((ident(u.id)?, class_uses(uses_class(n))))
            })
            .collect();
        Some(FileFacts {
            path: path.to_string(),
            defs,
            uses,
            version: (f.ident, f.hash),
        })
    }

    fn into_facts(self, files: Vec<FileFacts>) -> Facts {
        let (names, ids) = self.names.into_names();
        Facts { names, ids, files }
    }
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

#[cfg(test)]
mod tests {
    use super::beside;

    #[test]
    fn recorded_paths_meet_their_files_in_one_pass() {
        // Sibling prefixes (`fs/nfs` beside `fs/nfs.c`, `fs/nfsd`), a file no record names,
        // a record whose file is gone, a path that is not UTF-8, and files past the last
        // record.
        let index: Vec<&[u8]> = vec![
            b"fs/nfs",
            b"fs/nfs.c",
            b"fs/nfs/a.c",
            b"fs/nfs/b\xff.c",
            b"fs/nfs/c.c",
            b"fs/nfsd/x.c",
            b"fs/zz.c",
        ];
        let recorded = [
            ("fs/nfs", 10),
            ("fs/nfs.c", 11),
            ("fs/nfs/b.c", 12),
            ("fs/nfs/c.c", 13),
            ("fs/nfsd/x.c", 14),
        ];
        let mut met = Vec::new();
        let files = index.iter().enumerate().map(|(i, p)| (i, *p));
        let unrecorded = beside(files, recorded, |path, t, live| met.push((path, t, live)));
        assert_eq!(
            met,
            [
                ("fs/nfs", 10, Some(0)),
                ("fs/nfs.c", 11, Some(1)),
                ("fs/nfs/b.c", 12, None),
                ("fs/nfs/c.c", 13, Some(4)),
                ("fs/nfsd/x.c", 14, Some(5)),
            ]
        );
        // `fs/nfs/a.c` and `fs/zz.c`; not the path that is not UTF-8.
        assert_eq!(unrecorded, 2);
        // No record: every file the records could name; no file: every record gone.
        let files = index.iter().enumerate().map(|(i, p)| (i, *p));
        assert_eq!(beside(files, Vec::<(&str, u8)>::new(), |_, _, _| {}), 6);
        let mut gone = 0;
        let none = std::iter::empty();
        assert_eq!(
            beside(none, recorded, |_, _, live| gone +=
                usize::from(live.is_none())),
            0
        );
        assert_eq!(gone, recorded.len());
    }
}
