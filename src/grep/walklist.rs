//! The file list of a walk, kept by a long-lived server between searches and revalidated on
//! every use: a directory whose modification time changed (an entry was created, deleted or
//! renamed in it) or an ignore file that changed invalidates the list, and the next search
//! walks again. The ignore files are every source the walk reads: `.gitignore`, `.ignore` and
//! `.rgignore` in each walked directory and in the root's ancestors, `.git/info/exclude` of
//! each repository among them, and git's global excludes file and the configs that name it.
//! File contents are not part of the list; they are checked file by file.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use rayon::prelude::*;

/// Ignore files whose changes invalidate a list (checked in every walked directory and in
/// the search root's ancestors).
const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".rgignore"];

/// What identifies a walk: where, and with which filters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WalkKey {
    pub dir: PathBuf,
    pub include_hidden: bool,
    pub include_ignored: bool,
    pub globs: Vec<String>,
    pub max_filesize: Option<u64>,
    /// File types selected and negated.
    pub types: (Vec<String>, Vec<String>),
    pub follow_links: bool,
}

impl WalkKey {
    /// The walk of `dir` that `q` makes.
    pub fn of(q: &super::GrepQuery, dir: &Path) -> WalkKey {
        WalkKey {
            dir: dir.to_path_buf(),
            include_hidden: q.include_hidden,
            include_ignored: q.include_ignored,
            globs: q.globs.clone(),
            max_filesize: q.max_filesize,
            types: (q.types.clone(), q.types_not.clone()),
            follow_links: q.follow_links,
        }
    }
}

type Stamp = Option<(u64, Option<SystemTime>)>;

fn is_recent(m: Option<SystemTime>, now: SystemTime) -> bool {
    m.is_none_or(|m| {
        now.duration_since(m)
            .map_or(true, |age| age < crate::source::RACY_WINDOW)
    })
}

/// A watched directory: its path, its own stamp (`None` for an ancestor of the root) and its
/// ignore files' stamps.
type WatchEntry = (PathBuf, Option<Stamp>, [Stamp; 3]);

/// What a list watches of directory `d`: its stamp (if `own`: walked, not an ancestor)
/// and those of its ignore files.
fn watch_entry(d: PathBuf, own: bool) -> WatchEntry {
    let s = own.then(|| stamp(&d));
    let ig = IGNORE_FILES.map(|f| stamp(&d.join(f)));
    (d, s, ig)
}

fn stamp(path: &Path) -> Stamp {
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.len(), m.modified().ok()))
}

/// How many walk file lists a workspace keeps.
const WALK_CACHE_ENTRIES: usize = 32;

/// The walk lists a workspace keeps between searches ([`crate::workspace::Workspace::state`]).
#[derive(Default)]
pub struct WalkCache {
    lists: Mutex<std::collections::HashMap<WalkKey, std::sync::Arc<WalkList>>>,
    /// Walks done once without keeping a list.
    seen: Mutex<std::collections::HashSet<WalkKey>>,
}

impl WalkCache {
    /// Whether a walk of `key` was done before: a list is kept from a walk's second time
    /// on, so a one-off walk (a fresh server's first search) does not pay for one.
    pub fn walked_before(&self, key: &WalkKey) -> bool {
        let mut seen = self.seen.lock().expect("walk cache lock");
        if seen.len() >= WALK_CACHE_ENTRIES {
            seen.clear();
        }
        !seen.insert(key.clone())
    }

    /// The kept file list of a walk, if nothing it depends on changed.
    pub fn fresh(&self, key: &WalkKey) -> Option<std::sync::Arc<WalkList>> {
        let cached = self
            .lists
            .lock()
            .expect("walk cache lock")
            .get(key)
            .cloned();
        cached.filter(|list| list.is_fresh())
    }

    /// Keeps `list` for the next walk of `key` (a few dozen lists at most).
    pub fn keep(&self, key: WalkKey, list: WalkList) {
        let mut walks = self.lists.lock().expect("walk cache lock");
        if walks.len() >= WALK_CACHE_ENTRIES {
            walks.clear();
        }
        walks.insert(key, std::sync::Arc::new(list));
    }
}

/// The files a walk found (in path order), and what must not change for them to stay valid.
#[derive(Debug)]
pub struct WalkList {
    pub files: Vec<PathBuf>,
    /// Every directory walked (with its stamp) and the ancestors of the root (`None`: only
    /// their ignore files matter), with the stamps of the ignore files in them.
    watched: Vec<WatchEntry>,
    /// Other ignore sources: `.git/info/exclude` of the repositories met, git's global
    /// excludes file and git's configs (which name it), with their stamps.
    sources: Vec<(PathBuf, Stamp)>,
    pub errors: Vec<String>,
    /// A watched directory changed within the racy window before the walk: its timestamp
    /// cannot vouch for the list, so the list is used once and never trusted again.
    racy: bool,
}

/// What a walk's list needs besides its files, gathered by the walk's threads as it goes:
/// every directory entered (stamped as it is entered), the repositories met and the errors.
#[derive(Default)]
pub(super) struct WalkRecord {
    dirs: Mutex<Vec<WatchEntry>>,
    repos: Mutex<Vec<PathBuf>>,
    errors: Mutex<Vec<String>>,
}

impl WalkRecord {
    /// A directory the walk entered (from any of its threads).
    pub(super) fn dir(&self, d: &Path) {
        if d.join(".git").is_dir() {
            let exclude = d.join(".git").join("info").join("exclude");
            self.repos.lock().expect("walk list").push(exclude);
        }
        let w = watch_entry(d.to_path_buf(), true);
        self.dirs.lock().expect("walk list").push(w);
    }

    /// What the walk could not read.
    pub(super) fn error(&self, e: &str) {
        self.errors.lock().expect("walk list").push(e.to_string());
    }

    /// The list of a walk of `key` that went to its end and found `files` (in path order).
    pub(super) fn finish(self, key: &WalkKey, files: Vec<PathBuf>) -> WalkList {
        let mut watched = self.dirs.into_inner().expect("walk list");
        // The root's ancestors: only their ignore files matter.
        let ancestors = key.dir.ancestors().skip(1);
        watched.extend(ancestors.map(|a| watch_entry(a.to_path_buf(), false)));
        let sources = ignore_sources(self.repos.into_inner().expect("walk list"), &watched);
        let now = SystemTime::now();
        let racy = watched.iter().any(|(_, s, ig)| {
            s.iter()
                .chain(ig.iter())
                .any(|st| st.is_some_and(|(_, m)| is_recent(m, now)))
        }) || sources
            .iter()
            .any(|(_, st)| st.is_some_and(|(_, m)| is_recent(m, now)));
        WalkList {
            files,
            watched,
            sources,
            errors: self.errors.into_inner().expect("walk list"),
            racy,
        }
    }
}

impl WalkList {
    /// Whether nothing the list depends on has changed.
    pub fn is_fresh(&self) -> bool {
        !self.racy
            && self.sources.iter().all(|(p, s)| stamp(p) == *s)
            && self.watched.par_iter().all(|(d, s, ig)| {
                s.is_none_or(|s| stamp(d) == s) && IGNORE_FILES.map(|f| stamp(&d.join(f))) == *ig
            })
    }
}

/// Git's global ignore sources: the excludes file (`core.excludesFile`, or git's default) and
/// the config files that may name it.
fn global_ignore_sources() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let mut out: Vec<PathBuf> = ignore::gitignore::gitconfig_excludes_path()
        .into_iter()
        .collect();
    out.extend(home.map(|h| h.join(".gitconfig")));
    if let Some(x) = xdg {
        out.push(x.join("git").join("config"));
        out.push(x.join("git").join("ignore"));
    }
    out.sort();
    out.dedup();
    out
}

/// The ignore files beyond the watched directories' own, stamped: the repositories'
/// `.git/info/exclude` (those found by the walk and those of the root's ancestors) and the
/// global ignore files.
fn ignore_sources(repos: Vec<PathBuf>, watched: &[WatchEntry]) -> Vec<(PathBuf, Stamp)> {
    let ancestors_excludes =
        watched
            .iter()
            .filter(|(_, s, _)| s.is_none())
            .filter_map(|(d, _, _)| {
                let git = d.join(".git");
                git.is_dir().then(|| git.join("info").join("exclude"))
            });
    repos
        .into_iter()
        .chain(ancestors_excludes)
        .chain(global_ignore_sources())
        .map(|p| {
            let s = stamp(&p);
            (p, s)
        })
        .collect()
}
