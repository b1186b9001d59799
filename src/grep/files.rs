//! Files by name, as `rg --files -g GLOB` lists them: the files a search's walk would visit
//! (its paths, globs and ignore rules; no content is read, binary files included), in path
//! order. A directory's files come from a ready index's file list when the watcher vouches
//! for it (the dirty paths walked), else from a walk. From the index, the answer also counts
//! what the ignore rules hid: the entries of the walked directories the walk left out
//! (hidden or ignored) that the globs would list.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::overrides::Override;
use rayon::prelude::*;

use super::collect::{Display, below, join};
use super::produce::{Plan, Target, resolve};
use super::visit::{Flow, Sink, visit_in_order};
use super::{GrepError, GrepQuery, Progress};
use crate::fasthash::{FastMap, FastSet};
use crate::index::Listing;
use crate::workspace::Workspace;

/// The files found, by name.
#[derive(Clone, Debug, Default)]
pub struct FileList {
    /// Display names (as grep names files), in path order: component by component, as
    /// `rg --sort path` orders them.
    pub files: Vec<String>,
    /// What the ignore rules hid that the globs would list, when it was counted (a listing
    /// from the index; a walk does not see what it skips).
    pub hidden: Option<Hidden>,
    /// Whether a ready index gave the list.
    pub from_index: bool,
    /// Directories that could not be read.
    pub errors: Vec<String>,
}

/// Entries of the walked directories that the walk left out as hidden or ignored and the
/// globs would have listed (files) or entered (directories).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hidden {
    pub files: u64,
    pub dirs: u64,
}

impl FileList {
    /// Where a listing continues after `cursor` (the last name shown): the index of the
    /// first name after it in path order.
    pub fn after(&self, cursor: &str) -> usize {
        self.files
            .partition_point(|f| path_order(f, cursor) != Ordering::Greater)
    }
}

/// Path order: component by component (`a/b/c` before `a/b.c`), as a sorted walk goes: the
/// byte order with `/` below every other byte.
pub fn path_order(a: &str, b: &str) -> Ordering {
    let key = |c: &u8| if *c == b'/' { 0 } else { u16::from(*c) + 1 };
    a.as_bytes()
        .iter()
        .map(key)
        .cmp(b.as_bytes().iter().map(key))
}

/// The files of the query's paths whose names its globs select, by name (`q.pattern` is not
/// used). Path and glob errors come back before anything is listed.
pub fn find_files(
    ws: &Workspace,
    q: &GrepQuery,
    progress: &Progress,
) -> Result<Arc<FileList>, GrepError> {
    let plan = Plan {
        use_index: false,
        keep_lists: false,
        regular_only: true,
    };
    let targets = resolve(ws, q, &plan)?;
    let plain = q.types.is_empty()
        && q.types_not.is_empty()
        && !q.follow_links
        && !q.include_hidden
        && !q.include_ignored
        && q.max_filesize.is_none()
        && q.use_index;
    if plain
        && let [(_, Target::Dir(dir, display, wb))] = &targets[..]
        && let Some(listing) = crate::index::listing(ws, dir, wb)
    {
        // The same listing of the same state of the index is made once (pages, repeats).
        let key = (dir.clone(), q.globs.clone(), listing.stamp());
        let kept = ws.state::<ListCache>();
        if let Some(list) = kept.get(&key) {
            return Ok(list);
        }
        let list = Arc::new(from_index(ws, q, (dir, display, wb), &listing)?);
        kept.put(key, Arc::clone(&list));
        return Ok(list);
    }
    walked(ws, q, progress).map(Arc::new)
}

/// What identifies a listing from the index: its directory, globs and the index's state.
type ListKey = (PathBuf, Vec<String>, crate::index::Stamp);

/// The last listings from the index a workspace made ([`LIST_CACHE_ENTRIES`] and
/// [`LIST_CACHE_NAMES`] at most).
#[derive(Default)]
struct ListCache(Mutex<std::collections::VecDeque<(ListKey, Arc<FileList>)>>);

/// How many listings a workspace keeps.
const LIST_CACHE_ENTRIES: usize = 8;

/// How many names the kept listings hold at most together (about 60 bytes each).
const LIST_CACHE_NAMES: usize = 200_000;

impl ListCache {
    fn get(&self, key: &ListKey) -> Option<Arc<FileList>> {
        let kept = self.0.lock().expect("lists");
        kept.iter()
            .find(|(k, _)| k == key)
            .map(|(_, l)| Arc::clone(l))
    }

    fn put(&self, key: ListKey, list: Arc<FileList>) {
        let mut kept = self.0.lock().expect("lists");
        // A listing of another state of the index will not be asked for again.
        kept.retain(|(k, _)| k.2 == key.2);
        kept.push_back((key, list));
        let names = |kept: &std::collections::VecDeque<(ListKey, Arc<FileList>)>| {
            kept.iter().map(|(_, l)| l.files.len()).sum::<usize>()
        };
        while kept.len() > LIST_CACHE_ENTRIES || (kept.len() > 1 && names(&kept) > LIST_CACHE_NAMES)
        {
            kept.pop_front();
        }
    }
}

/// The list a walk makes (every file of the query's paths, names only).
fn walked(ws: &Workspace, q: &GrepQuery, progress: &Progress) -> Result<FileList, GrepError> {
    struct Names(Vec<String>);
    impl Sink<String> for Names {
        fn file(&mut self, name: String) -> Flow {
            self.0.push(name);
            Flow::Continue
        }
    }
    let mut names = Names(Vec::new());
    let visited = visit_in_order(
        ws,
        q,
        progress,
        super::Reading::Names,
        &|f| f.name(),
        &mut names,
    )?;
    Ok(FileList {
        files: names.0,
        hidden: None,
        from_index: false,
        errors: visited.errors,
    })
}

/// The list of directory `dir` (walked by `wb`) from the index's `listing`; the directories
/// the index's walk left out that the globs select are walked.
fn from_index(
    ws: &Workspace,
    q: &GrepQuery,
    (dir, display, wb): (&Path, &Display, &ignore::WalkBuilder),
    listing: &Listing,
) -> Result<FileList, GrepError> {
    let ov = overrides(q, dir, ws)?;
    // As the index names it: `/` between the parts.
    let rel_dir = crate::platform::slashed_bytes(below(dir, listing.root()));
    let scope = Scope {
        rel_dir: &rel_dir,
        prefix: &display.prefix,
    };
    // The files the dirty paths' walk found (with the globs and the ignore rules applied).
    let (walked, errors) = listing.walked();
    let mut files: Vec<String> = walked.iter().map(|p| display.of(p)).collect();
    let mut errors = errors.to_vec();
    let (found, hidden, enter) = left_out_selected(ws, listing, &scope, &ov);
    files.extend(found);
    if !enter.is_empty() {
        let (more, errs) = crate::index::walk_paths(wb, &enter);
        files.extend(more.iter().map(|p| display.of(p)));
        errors.extend(errs);
    }
    let indexed: Vec<&[u8]> = listing.indexed().collect();
    let selected: Vec<String> = if q.globs.is_empty() {
        indexed
            .par_iter()
            .filter_map(|r| scope.below(r))
            .map(|b| scope.name(b))
            .collect()
    } else {
        // A matcher per part: one shared by the threads makes them wait on its regex
        // pools (a third of the time of a listing of the Linux tree).
        let part = indexed
            .len()
            .div_ceil(2 * rayon::current_num_threads())
            .max(4096);
        let chosen = indexed.par_chunks(part).map(|chunk| {
            let ov = overrides(q, dir, ws).unwrap_or_else(|_| ov.clone());
            let mut judge = Judge::new(&ov);
            let mut out = Vec::new();
            for b in chunk.iter().filter_map(|r| scope.below(r)) {
                let m = ov.matched(crate::index::os_path(b), false);
                if !m.is_ignore() && judge.parent_ok(b) {
                    out.push(scope.name(b));
                }
            }
            out
        });
        chosen.flatten().collect()
    };
    files.extend(selected);
    files.par_sort_unstable_by(|a, b| path_order(a, b));
    files.dedup();
    Ok(FileList {
        files,
        hidden: Some(hidden),
        from_index: true,
        errors,
    })
}

/// The search directory as the index names it, and as the answer names it.
struct Scope<'a> {
    /// Relative to the index's root (`""`: the root).
    rel_dir: &'a [u8],
    prefix: &'a str,
}

impl Scope<'_> {
    /// `rel` (relative to the root) relative to the directory, if it is below it.
    fn below<'r>(&self, rel: &'r [u8]) -> Option<&'r [u8]> {
        if self.rel_dir.is_empty() {
            return Some(rel);
        }
        rel.strip_prefix(self.rel_dir)?.strip_prefix(b"/")
    }

    /// The display name of `b` (relative to the directory).
    fn name(&self, b: &[u8]) -> String {
        join(self.prefix, b)
    }
}

/// Of the entries the index's walk left out below the directory (outside the dirty paths,
/// whose walk saw them): the files the globs include (a walk lists them), what the globs
/// would list or enter if the ignore rules allowed, and the directories the globs include
/// (a walk enters them).
fn left_out_selected(
    ws: &Workspace,
    listing: &Listing,
    scope: &Scope<'_>,
    ov: &Override,
) -> (Vec<String>, Hidden, Vec<PathBuf>) {
    let mut judge = Judge::new(ov);
    let (mut files, mut hidden, mut enter) = (Vec::new(), Hidden::default(), Vec::new());
    for (rel, kind) in left_out(ws, listing).iter() {
        let Some(b) = scope.below(rel) else { continue };
        if !judge.parent_ok(b) || listing.is_dirty(&listing.path(rel)) {
            continue;
        }
        let m = ov.matched(crate::index::os_path(b), *kind == Kind::Dir);
        match kind {
            Kind::Dir if m.is_whitelist() => enter.push(listing.path(rel)),
            Kind::Dir if !m.is_ignore() => hidden.dirs += 1,
            Kind::File if m.is_whitelist() => files.push(scope.name(b)),
            Kind::File if !m.is_ignore() => hidden.files += 1,
            _ => {}
        }
    }
    (files, hidden, enter)
}

/// The query's globs as the walk of `dir` applies them (relative to `dir`).
fn overrides(q: &GrepQuery, dir: &Path, ws: &Workspace) -> Result<Override, GrepError> {
    if q.globs.is_empty() {
        return Ok(Override::empty());
    }
    let w = ws.words();
    let mut ob = ignore::overrides::OverrideBuilder::new(dir);
    for g in &q.globs {
        ob.add(g)
            .map_err(|e| GrepError::Param(q.glob_error(w, g, &e.to_string())))?;
    }
    ob.build()
        .map_err(|e| GrepError::Param(q.glob_error(w, &q.globs.join(", "), &e.to_string())))
}

/// Whether the directories above a file (below the search directory) are entered by the
/// walk as the globs decide: none of them excluded by a glob (`!dir`). Remembers each.
struct Judge<'o> {
    ov: &'o Override,
    seen: HashMap<Vec<u8>, bool>,
}

impl<'o> Judge<'o> {
    fn new(ov: &'o Override) -> Judge<'o> {
        Judge {
            ov,
            seen: HashMap::new(),
        }
    }

    /// Whether the directories above `rel` (relative to the search directory) are entered.
    fn parent_ok(&mut self, rel: &[u8]) -> bool {
        match rel.iter().rposition(|&b| b == b'/') {
            None => true,
            Some(i) => self.dir_ok(&rel[..i]),
        }
    }

    fn dir_ok(&mut self, d: &[u8]) -> bool {
        if self.ov.is_empty() {
            return true;
        }
        if let Some(&ok) = self.seen.get(d) {
            return ok;
        }
        let ok = self.parent_ok(d) && !self.ov.matched(crate::index::os_path(d), true).is_ignore();
        self.seen.insert(d.to_vec(), ok);
        ok
    }
}

/// What an entry left out of a walk is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    File,
    Dir,
}

/// The entries of the whole root's walked directories that the index's walk left out
/// (neither listed files nor walked directories; links and other non-files aside), relative
/// to the root: made once per index view and kept (the dirty paths, whose entries may
/// have changed since, are walked by each listing instead). The directories' entries are
/// kept too, and only a directory whose modification time changed is read again.
fn left_out(ws: &Workspace, listing: &Listing) -> Arc<Vec<(Box<[u8]>, Kind)>> {
    let stamp = listing.stamp();
    let key = LeftOutKey {
        root: listing.root().to_path_buf(),
        generation: stamp.generation,
        view: stamp.view,
    };
    let kept = ws.state::<LeftOutCache>();
    let mut read = {
        let mut st = kept.0.lock().expect("left out");
        if st.key.as_ref() == Some(&key) {
            return Arc::clone(&st.found);
        }
        if st.key.as_ref().is_some_and(|k| k.root != key.root) {
            st.dirs.clear();
        }
        std::mem::take(&mut st.dirs)
    };
    let dirs = listing.dirs(b"");
    let now = std::time::SystemTime::now();
    let fresh: Vec<(Box<[u8]>, Entries)> = dirs
        .par_iter()
        .map(|d| {
            let path = listing.path(d);
            let mtime = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
            let entries = match read.get(d) {
                Some(e) if mtime.is_some() && e.0 == mtime => Arc::clone(&e.1),
                _ => read_entries(&path),
            };
            // A directory changed within the racy window may change again within its
            // time's granularity: not trusted next time.
            let recent = mtime.is_none_or(|m| {
                now.duration_since(m)
                    .map_or(true, |age| age < crate::source::RACY_WINDOW)
            });
            (d.clone(), (if recent { None } else { mtime }, entries))
        })
        .collect();
    read = fresh.into_iter().collect();
    let walked: FastSet<&[u8]> = dirs.iter().map(|d| &**d).collect();
    let listed = files_per_dir(listing);
    let mut found = Vec::new();
    for (d, (_, entries)) in &read {
        let files = entries.iter().filter(|e| e.1 == Kind::File).count();
        // As many files as the index lists there: none left out (the dirty paths aside,
        // which a listing walks).
        let all_listed = listed.get(&**d).copied().unwrap_or(0) as usize == files;
        for (name, kind) in entries.iter() {
            if *kind == Kind::File && all_listed {
                continue;
            }
            let mut rel = Vec::with_capacity(d.len() + 1 + name.len());
            if !d.is_empty() {
                rel.extend_from_slice(d);
                rel.push(b'/');
            }
            rel.extend_from_slice(name);
            let known = match kind {
                Kind::Dir => walked.contains(&rel[..]),
                Kind::File => listing.lists(&rel),
            };
            if !known {
                found.push((rel.into_boxed_slice(), *kind));
            }
        }
    }
    found.sort_unstable();
    let found = Arc::new(found);
    let mut st = kept.0.lock().expect("left out");
    *st = LeftOutState {
        key: Some(key),
        found: Arc::clone(&found),
        dirs: read,
    };
    found
}

/// How many files the index lists directly in each directory (relative to the root).
fn files_per_dir(listing: &Listing) -> FastMap<&[u8], u32> {
    let mut per_dir: FastMap<&[u8], u32> = FastMap::default();
    let mut run: Option<(&[u8], u32)> = None;
    for f in listing.all_files() {
        let dir = &f[..f.iter().rposition(|&b| b == b'/').unwrap_or(0)];
        match &mut run {
            Some((d, n)) if *d == dir => *n += 1,
            _ => {
                if let Some((d, n)) = run.replace((dir, 1)) {
                    *per_dir.entry(d).or_default() += n;
                }
            }
        }
    }
    if let Some((d, n)) = run {
        *per_dir.entry(d).or_default() += n;
    }
    per_dir
}

/// A directory's files and subdirectories (names), as `read_dir` gives them.
fn read_entries(dir: &Path) -> Arc<[(Box<[u8]>, Kind)]> {
    let entries = std::fs::read_dir(dir).into_iter().flatten().flatten();
    entries
        .filter_map(|e| {
            let kind = match e.file_type().ok()? {
                t if t.is_dir() => Kind::Dir,
                t if t.is_file() => Kind::File,
                _ => return None,
            };
            Some((e.file_name().as_encoded_bytes().into(), kind))
        })
        .collect()
}

/// A directory's modification time when last read (`None`: not to be trusted) and entries.
type Entries = (Option<std::time::SystemTime>, Arc<[(Box<[u8]>, Kind)]>);

/// The last [`left_out`] entries a workspace made, with what identifies them, and the
/// directories' entries they were made from.
#[derive(Default)]
struct LeftOutCache(Mutex<LeftOutState>);

/// What a root's left-out entries were read for: the index view (held weakly, so that its
/// identity is not reused while kept here) and its generation; not the dirty paths.
struct LeftOutKey {
    root: PathBuf,
    generation: u64,
    view: std::sync::Weak<crate::index::TrigramIndex>,
}

impl PartialEq for LeftOutKey {
    fn eq(&self, other: &LeftOutKey) -> bool {
        self.root == other.root
            && self.generation == other.generation
            && std::sync::Weak::ptr_eq(&self.view, &other.view)
    }
}

#[derive(Default)]
struct LeftOutState {
    key: Option<LeftOutKey>,
    found: Arc<Vec<(Box<[u8]>, Kind)>>,
    dirs: HashMap<Box<[u8]>, Entries>,
}
