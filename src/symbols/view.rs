//! The two queries on a root's records (see [`super::state`]): the definitions of a name,
//! and the symbols around lines of a file; each says which files it could not answer from
//! the records (not recorded yet, or changed since).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::index::RootView;
use crate::workspace::Workspace;

use super::format::{FileEntry, RawSymbol};
use super::read::BlockCache;
use super::state::Records;

/// A definition as the records hold it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    /// Absolute.
    pub path: PathBuf,
    pub lang: Option<crate::code::Lang>,
    pub kind: &'static str,
    pub name: String,
    /// The package and the qualified name in the file, in components.
    pub package: String,
    pub qualified: String,
    pub address: String,
    /// The name of the symbol it sits in (a Rust method's `impl Trait for Type`); empty at
    /// the top level.
    pub parent: String,
    pub start_line: u32,
    pub def_line: u32,
    pub end_line: u32,
    pub declaration: bool,
}

/// What the records of the roots under some directories say of a name.
#[derive(Debug, Default)]
pub struct Lookup {
    /// Definitions in files whose records hold, under the directories asked.
    pub definitions: Vec<Definition>,
    /// Files under the directories whose records do not hold (not recorded yet, changed,
    /// dirty): absolute paths, to be looked at directly.
    pub unrecorded: Vec<PathBuf>,
    /// Dirty paths under the directories (what is there is not what the index says).
    pub dirty: Vec<PathBuf>,
    /// Files under the directories whose records hold.
    pub recorded: usize,
}

/// The definitions of `name` under `dirs` (canonical directories or files), from the
/// records of the indexed roots covering them; `None` when a directory has no ready index
/// with records, or its watcher cannot vouch for the index now (the caller searches as
/// without records). Files whose records do not hold are listed (at most `max_unrecorded`;
/// `None` past it).
pub fn definitions(
    ws: &Workspace,
    dirs: &[PathBuf],
    name: &str,
    max_unrecorded: usize,
) -> Option<Lookup> {
    let mut out = Lookup::default();
    for dir in dirs {
        let view = crate::index::root_view(ws, dir, true)?;
        if !view.trusted {
            return None;
        }
        let state = super::state::root_state(ws, &view.root)?;
        let recs = state.records();
        let rel = dir.strip_prefix(&view.root).ok()?;
        let rel = rel.to_str()?.replace(std::path::MAIN_SEPARATOR, "/");
        let prefix = format!("{rel}/");
        let under = |p: &str| rel.is_empty() || p == rel || p.starts_with(&prefix);
        {
            let mut fresh = state.fresh.lock().expect("fresh");
            fresh.update(&view.index, &recs);
            let files = view.index.under(rel.as_bytes()).len();
            let mut n = 0;
            let from: Box<str> = rel.as_str().into();
            let inside = fresh
                .unrecorded
                .range(from..)
                .take_while(|p| rel.is_empty() || p.starts_with(rel.as_str()))
                .filter(|p| under(p));
            for p in inside {
                n += 1;
                if out.unrecorded.len() + n > max_unrecorded {
                    return None;
                }
                out.unrecorded
                    .push(crate::platform::join_slashed(&view.root, &**p));
            }
            out.recorded += files.saturating_sub(n);
        }
        out.dirty.extend(
            view.dirty
                .iter()
                .filter(|d| d.starts_with(dir) || dir.starts_with(d))
                .cloned(),
        );
        collect(&recs, &view, name, &under, &mut out.definitions);
        if recs.parts.iter().any(|p| p.0.side.is_damaged()) {
            // What was read is not what was written: nothing of it is used (the recorder
            // drops the side file and records its files again).
            return None;
        }
    }
    Some(out)
}

/// The definitions named `name` in records that hold, under `under`.
fn collect(
    recs: &Records,
    view: &RootView,
    name: &str,
    under: &dyn Fn(&str) -> bool,
    out: &mut Vec<Definition>,
) {
    for (pi, p) in recs.parts.iter().enumerate() {
        let part = &p.0;
        let Some(hits) = part.named(name) else {
            continue;
        };
        // The hits come file by file: each file is checked and decoded once (a file may
        // define one name a hundred thousand times).
        let mut file: Option<(u32, Option<Usable>)> = None;
        // Each block of strings decoded once (one of them may be a megabyte long).
        let mut strings = BlockCache::kept(part);
        for (k, si) in hits {
            if file.as_ref().is_none_or(|f| f.0 != k) {
                file = Some((k, usable(recs, view, &mut strings, pi, k, under)));
            }
            let Some((_, Some((f, abs, syms)))) = &file else {
                continue;
            };
            if let Some(d) = definition(&mut strings, f, syms, si as usize, abs.clone()) {
                out.push(d);
            }
        }
    }
}

/// A file's entry, absolute path and symbols.
type Usable = (FileEntry, PathBuf, Vec<RawSymbol>);

/// File `k` of part `pi`, its absolute path and symbols, when its record is the newest of
/// its path, under `under`, of the version the index holds and not dirty.
fn usable(
    recs: &Records,
    view: &RootView,
    strings: &mut BlockCache<'_>,
    pi: usize,
    k: u32,
    under: &dyn Fn(&str) -> bool,
) -> Option<Usable> {
    let part = strings.part;
    let f = part.file(k)?;
    let path = strings.get(f.path)?;
    if !under(&path) || recs.newest(&path).map(|n| n.0) != Some(pi) {
        return None;
    }
    let abs = crate::platform::join_slashed(&view.root, &path);
    let live = view
        .index
        .find(path.as_bytes())
        .map(|i| view.index.file(i).id);
    if live != Some(f.ident) || view.is_dirty(&abs) {
        return None;
    }
    let syms = part.symbols(&f)?;
    Some((f, abs, syms))
}

fn definition(
    strings: &mut BlockCache<'_>,
    f: &FileEntry,
    syms: &[RawSymbol],
    k: usize,
    path: PathBuf,
) -> Option<Definition> {
    let s = syms.get(k)?;
    let qualified = strings.qualified(syms, k)?;
    let address = match s.address {
        Some(a) => strings.get(a)?,
        None => qualified.clone(),
    };
    Some(Definition {
        path,
        lang: super::extract::lang_of_byte(f.lang),
        kind: strings.part.kind(s.kind),
        name: strings.get(s.name)?,
        package: strings.get(f.package)?,
        qualified,
        address,
        parent: match s.parent {
            Some(p) => strings.get(syms.get(p as usize)?.name)?,
            None => String::new(),
        },
        start_line: s.start,
        def_line: s.def,
        end_line: s.end,
        declaration: s.declaration,
    })
}

/// The symbol a line sits in, as the records hold it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enclosing {
    pub address: String,
    pub kind: &'static str,
    pub start_line: u32,
    pub end_line: u32,
}

/// The innermost recorded symbol around each of `lines` of the file at `abs`, in the
/// `version` a search read: `None` when no record of that version exists (the caller
/// parses).
pub fn enclosing(
    ws: &Workspace,
    abs: &Path,
    version: Held<impl FnOnce() -> u64>,
    lines: &[u64],
) -> Option<Vec<Option<Enclosing>>> {
    let (held, f) = file_record(ws, abs, version)?;
    let part = &held.0;
    let syms = part.symbols(&f)?;
    let mut strings = BlockCache::kept(part);
    let found = lines
        .iter()
        .map(|&l| innermost(&mut strings, &syms, l))
        .collect();
    (!part.side.is_damaged()).then_some(found)
}

/// What the records hold of one file for the uses of a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameInFile {
    /// The lines (from its own first line to its last) of each symbol of that name.
    pub definitions: Vec<(u32, u32)>,
    /// The innermost symbol around each line asked about.
    pub enclosing: Vec<Option<Enclosing>>,
    /// How many times its code uses the name, set-aside uses included, when the record
    /// keeps it (not when the file defines the name, nor when its uses are not all kept).
    pub uses: Option<u32>,
}

/// The string id of one name in each part of the records, looked up once per part for a
/// search that asks about that name in many files (a lookup decodes string blocks).
#[derive(Default)]
pub struct NameIds {
    ids: std::sync::Mutex<Vec<(std::sync::Arc<super::state::PartPaths>, Option<u32>)>>,
}

impl NameIds {
    fn get(
        &self,
        part: &std::sync::Arc<super::state::PartPaths>,
        name: &str,
    ) -> Option<Option<u32>> {
        let known = self.ids.lock().expect("name ids");
        if let Some((_, id)) = known.iter().find(|(p, _)| std::sync::Arc::ptr_eq(p, part)) {
            return Some(*id);
        }
        drop(known);
        let id = part.0.find_string(name)?;
        let mut known = self.ids.lock().expect("name ids");
        // The parts of a tree are few (batches merge as they pile up).
        if known.len() < 256 {
            known.push((std::sync::Arc::clone(part), id));
        }
        Some(id)
    }
}

/// For the file at `abs` in `version`: the symbols named `name`
/// and the innermost symbol around each of `lines`; `None` when no record of that version
/// exists (the caller parses). Only the strings shown are decoded; `ids` keeps the name's
/// string id of each part across the files of one search.
pub fn name_in_file(
    ws: &Workspace,
    abs: &Path,
    version: Held<impl FnOnce() -> u64>,
    name: &str,
    lines: &[u64],
    ids: &NameIds,
) -> Option<NameInFile> {
    let (held, f) = file_record(ws, abs, version)?;
    let part = &held.0;
    let syms = part.symbols(&f)?;
    let id = ids.get(&held, name)?;
    let definitions = syms
        .iter()
        .filter(|s| Some(s.name) == id)
        .map(|s| (s.def, s.end))
        .collect();
    let mut strings = BlockCache::kept(part);
    let enclosing = lines
        .iter()
        .map(|&l| innermost(&mut strings, &syms, l))
        .collect();
    let uses = match id {
        Some(id) if !f.uses_partial => part.use_of(&f, id)?.map(|u| u.uses + u.aside),
        _ => None,
    };
    (!part.side.is_damaged()).then_some(NameInFile {
        definitions,
        enclosing,
        uses,
    })
}

/// The definitions named `name` in the record of the file at `abs` in `version` (the
/// bytes a lookup holds of a file whose identity the records cannot
/// vouch for: changed, dirty, or recorded from a read inside the racy window); `None` when
/// no parsed record of that version exists (the caller parses).
pub fn definitions_in_file(
    ws: &Workspace,
    abs: &Path,
    version: Held<impl FnOnce() -> u64>,
    name: &str,
) -> Option<Vec<Definition>> {
    let (held, f) = file_record(ws, abs, version)?;
    let part = &held.0;
    let syms = part.symbols(&f)?;
    let mut strings = BlockCache::kept(part);
    let found = match part.find_string(name)? {
        Some(id) => (0..syms.len())
            .filter(|&k| syms[k].name == id)
            .map(|k| definition(&mut strings, &f, &syms, k, abs.to_path_buf()))
            .collect::<Option<Vec<_>>>()?,
        None => Vec::new(),
    };
    (!part.side.is_damaged()).then_some(found)
}

/// The version of a file a caller holds: the identity its bytes were read with, when known,
/// and the checksum of those bytes, computed only when the identity cannot tell (no
/// identity, or one within the racy window) and a record of the path exists.
pub struct Held<F: FnOnce() -> u64> {
    pub id: Option<crate::source::FileId>,
    pub hash: F,
}

/// The version of `bytes`, read with the identity `id` when known.
pub fn held(id: Option<crate::source::FileId>, bytes: &[u8]) -> Held<impl FnOnce() -> u64 + '_> {
    Held {
        id,
        hash: move || super::content_hash(bytes),
    }
}

impl<F: FnOnce() -> u64> Held<F> {
    /// Whether the record `f` is of this version: its identity is the record's (a record
    /// is vouched for only when made outside the racy window, and an unvouched one has an
    /// identity no file has), else the checksums are equal.
    fn is(self, f: &FileEntry) -> bool {
        let now = std::time::SystemTime::now();
        match self.id {
            Some(id) if !id.is_racy(now) && crate::index::Ident::from_id(&id) == f.ident => true,
            _ => f.hash == (self.hash)(),
        }
    }
}

/// What the record of a file says of one name's uses (read without the file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordedUses {
    /// Uses of the name in code.
    pub uses: u32,
    /// Uses on lines that only declare it (C's `struct NAME;`), which a search sets aside.
    pub aside: u32,
    pub lang: Option<crate::code::Lang>,
}

/// The uses of one name counted file by file from the records, for one search (the roots'
/// records taken once, as they are when it starts).
pub struct UseCounts {
    name: String,
    roots: Vec<(PathBuf, std::sync::Arc<Records>)>,
    ids: NameIds,
    /// Per part, the files that define the name (sorted).
    defining: std::sync::Mutex<Vec<Defining>>,
}

/// A part of the records, and its files that define a name.
type Defining = (Arc<super::state::PartPaths>, Arc<[u32]>);

impl UseCounts {
    pub fn new(ws: &Workspace, name: &str) -> UseCounts {
        let roots = crate::index::indexed_roots(ws)
            .into_iter()
            .filter_map(|root| {
                let recs = super::state::root_state(ws, &root)?.records();
                Some((root, recs))
            })
            .collect();
        UseCounts {
            name: name.to_string(),
            roots,
            ids: NameIds::default(),
            defining: Default::default(),
        }
    }

    /// Whether file `k` of the part defines the name (its definitions read once a part).
    fn defines(&self, part: &std::sync::Arc<super::state::PartPaths>, k: u32) -> Option<bool> {
        let mut known = self.defining.lock().expect("defining");
        let files = match known.iter().find(|(p, _)| std::sync::Arc::ptr_eq(p, part)) {
            Some((_, files)) => Arc::clone(files),
            None => {
                let mut files: Vec<u32> =
                    part.0.named(&self.name)?.into_iter().map(|d| d.0).collect();
                files.sort_unstable();
                files.dedup();
                let files: Arc<[u32]> = files.into();
                known.push((std::sync::Arc::clone(part), Arc::clone(&files)));
                files
            }
        };
        Some(files.binary_search(&k).is_ok())
    }

    /// The uses of the name in the file at `abs` as its record counts them, when the record
    /// is of the version whose identity is `id` (as the index's selection vouched for it)
    /// and can tell: parsed, its uses all kept, and the name not defined there (a search
    /// reads such a file to set its definitions' lines aside). `None`: read the file.
    pub fn of(&self, abs: &Path, id: &crate::index::Ident) -> Option<RecordedUses> {
        let (root, recs) = self.roots.iter().find(|(r, _)| abs.starts_with(r))?;
        let (i, k) = recs.newest(&rel_of(root, abs)?)?;
        let held = &recs.parts[i];
        let part = &held.0;
        let f = part.file(k)?;
        if f.status != 0 || f.ident != *id || f.uses_partial {
            return None;
        }
        let mut found = RecordedUses {
            uses: 0,
            aside: 0,
            lang: super::extract::lang_of_byte(f.lang),
        };
        if let Some(id) = self.ids.get(held, &self.name)? {
            match part.use_of(&f, id)? {
                Some(u) => (found.uses, found.aside) = (u.uses, u.aside),
                // Not used: perhaps defined there.
                None if self.defines(held, k)? => return None,
                None => {}
            }
        }
        (!part.side.is_damaged()).then_some(found)
    }
}

/// The newest record of the file at `abs` and its part, when it records the version `held`
/// and was parsed.
fn file_record(
    ws: &Workspace,
    abs: &Path,
    held: Held<impl FnOnce() -> u64>,
) -> Option<(std::sync::Arc<super::state::PartPaths>, FileEntry)> {
    let root = crate::index::indexed_roots(ws)
        .into_iter()
        .find(|r| abs.starts_with(r))?;
    let state = super::state::root_state(ws, &root)?;
    let recs = state.records();
    let (i, k) = recs.newest(&rel_of(&root, abs)?)?;
    let part = std::sync::Arc::clone(&recs.parts[i]);
    let f = part.0.file(k)?;
    (f.status == 0 && held.is(&f)).then_some((part, f))
}

/// The path of `abs` under `root` as the records write it (`/`-separated).
fn rel_of<'p>(root: &Path, abs: &'p Path) -> Option<std::borrow::Cow<'p, str>> {
    let rel = abs.strip_prefix(root).ok()?.to_str()?;
    Some(crate::platform::slashed(rel.into()))
}

/// The innermost symbol whose lines hold `line`, as a structure finds it: the first top-level
/// symbol that holds it, then the first of its members that does, and so on.
fn innermost(strings: &mut BlockCache<'_>, syms: &[RawSymbol], line: u64) -> Option<Enclosing> {
    let line = u32::try_from(line).ok()?;
    // Symbols are in document order: only those starting at or before the line can hold it.
    let upto = syms.partition_point(|s| s.start <= line);
    let mut found: Option<usize> = None;
    loop {
        let parent = found.map(|k| k as u32);
        let from = found.map_or(0, |k| k + 1);
        let next = (from..upto).find(|&k| {
            let s = &syms[k];
            s.parent == parent && s.end >= line
        });
        match next {
            Some(k) => found = Some(k),
            None => break,
        }
    }
    let k = found?;
    let s = &syms[k];
    let address = match s.address {
        Some(a) => strings.get(a)?,
        None => strings.qualified(syms, k)?,
    };
    Some(Enclosing {
        address,
        kind: strings.part.kind(s.kind),
        start_line: s.start,
        end_line: s.end,
    })
}

/// Files of the indexed roots whose records do not hold now (0 once recording has caught
/// up), for status lines and tests.
pub fn unrecorded_count(ws: &Workspace) -> usize {
    let mut n = 0;
    for root in crate::index::indexed_roots(ws) {
        let (Some(view), Some(state)) = (
            crate::index::root_view(ws, &root, false),
            super::state::root_state(ws, &root),
        ) else {
            continue;
        };
        let recs = state.records();
        let mut fresh = state.fresh.lock().expect("fresh");
        fresh.update(&view.index, &recs);
        n += fresh.unrecorded.len();
    }
    n
}
