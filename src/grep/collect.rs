//! Gathering results from the parallel search: display names, statistics, and the collector
//! that keeps the first matches in (path, line) order whatever order files finish in.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Cursor, GrepMatch, GrepQuery, GrepReport};
use crate::workspace::Workspace;

/// How walked paths are displayed: the caller's spelling of the search path, joined with the
/// path below it (or relative to the first root when the caller gave none).
pub(super) struct Display {
    pub(super) root: PathBuf,
    pub(super) prefix: String,
}

impl Display {
    pub(super) fn new(ws: &Workspace, q: &GrepQuery, given: &str, resolved: &Path) -> Display {
        let first_root = &ws.roots().as_slice()[0];
        let prefix = if q.display_relative_to_root() {
            match resolved.strip_prefix(first_root) {
                Ok(rel) => rel.to_string_lossy().into_owned(),
                Err(_) => resolved.to_string_lossy().into_owned(),
            }
        } else {
            given.to_string()
        };
        Display {
            root: resolved.to_path_buf(),
            prefix,
        }
    }

    pub(super) fn of(&self, path: &Path) -> String {
        let rel = below(path, &self.root);
        let rel = String::from_utf8_lossy(rel);
        match (self.prefix.as_str(), rel.as_ref()) {
            (p, "") => p.to_string(),
            ("", r) => r.to_string(),
            (p, r) => {
                let mut name = String::with_capacity(p.len() + 1 + r.len());
                name.push_str(p);
                if !p.ends_with('/') {
                    name.push('/');
                }
                name.push_str(r);
                name
            }
        }
    }
}

/// The bytes of `path` below `root` (all of `path` when it is not below it). Walked paths are
/// the root's bytes joined with more, so a byte comparison says it at once; anything else
/// goes through [`Path::strip_prefix`].
pub(super) fn below<'p>(path: &'p Path, root: &Path) -> &'p [u8] {
    let bytes = path.as_os_str().as_encoded_bytes();
    let root_bytes = root.as_os_str().as_encoded_bytes();
    let sep = |b: &u8| std::path::is_separator(char::from(*b));
    if let Some(rest) = bytes.strip_prefix(root_bytes) {
        if rest.is_empty() {
            return rest;
        }
        if root_bytes.last().is_some_and(sep) || rest.first().is_some_and(sep) {
            let start = rest.iter().position(|b| !sep(b)).unwrap_or(rest.len());
            if !rest[start..].split(sep).any(|c| c == b"." || c == b"..") {
                return &rest[start..];
            }
        }
    }
    match path.strip_prefix(root) {
        Ok(rel) => rel.as_os_str().as_encoded_bytes(),
        Err(_) => bytes,
    }
}

/// Skipped binary files and read errors named in a report (beyond this, only counted).
pub const MAX_NAMED: usize = 10_000;

#[derive(Default)]
pub(super) struct Stats {
    pub(super) searched: AtomicU64,
    pub(super) binary: AtomicU64,
    pub(super) binary_examples: Mutex<Vec<String>>,
    pub(super) errors: Mutex<Vec<String>>,
    pub(super) error_count: AtomicU64,
    pub(super) index: Mutex<Option<crate::index::IndexUse>>,
}

impl Stats {
    pub(super) fn error(&self, msg: String) {
        self.error_count.fetch_add(1, Ordering::Relaxed);
        let mut e = self.errors.lock().expect("stats");
        if e.len() < MAX_NAMED {
            e.push(msg);
        }
    }

    /// Fills the report; names come sorted, so the examples a summary shows are the same
    /// whatever order the parallel walk met the files in.
    pub(super) fn fill(self, r: &mut GrepReport) {
        r.files_searched = self.searched.into_inner();
        r.binary_skipped = self.binary.into_inner();
        r.binary_examples = self.binary_examples.into_inner().expect("stats");
        r.binary_examples.sort();
        r.errors = self.errors.into_inner().expect("stats");
        r.errors.sort();
        r.error_count = self.error_count.into_inner();
        r.index = self.index.into_inner().expect("stats");
    }

    /// Adds what the index did for one search directory.
    pub(super) fn used_index(&self, u: &crate::index::IndexUse) {
        let mut i = self.index.lock().expect("stats");
        let t = i.get_or_insert_with(Default::default);
        t.in_scope += u.in_scope;
        t.searched += u.searched;
        t.validated |= u.validated;
    }
}

/// What searching one file gave.
pub(super) enum FileResult {
    Binary,
    Matches(Vec<GrepMatch>),
}

pub(super) fn record(collector: &Mutex<Collector>, stats: &Stats, name: &str, found: FileResult) {
    match found {
        FileResult::Binary => {
            stats.binary.fetch_add(1, Ordering::Relaxed);
            let mut ex = stats.binary_examples.lock().expect("stats");
            if ex.len() < MAX_NAMED {
                ex.push(name.to_string());
            }
        }
        FileResult::Matches(m) if !m.is_empty() => {
            collector
                .lock()
                .expect("collector")
                .add(name.to_string(), m);
        }
        FileResult::Matches(_) => {}
    }
}

/// Keeps the first `cap` matches in (path, line) order, whatever order files arrive in, and
/// remembers whether anything was left out.
pub(super) struct Collector {
    pub(super) cap: usize,
    pub(super) files: BTreeMap<String, Vec<GrepMatch>>,
    pub(super) count: usize,
    pub(super) cursor: Option<Cursor>,
    pub(super) dropped: bool,
}

impl Collector {
    pub(super) fn new(cap: usize, cursor: Option<Cursor>) -> Collector {
        Collector {
            cap: cap.max(1),
            files: BTreeMap::new(),
            count: 0,
            cursor,
            dropped: false,
        }
    }

    /// Whether a file could contribute: not before the cursor, and not after every kept match
    /// once the cap (plus one, to know there is more) is full.
    pub(super) fn wants(&self, name: &str) -> bool {
        if let Some(c) = &self.cursor
            && name < c.path.as_str()
        {
            return false;
        }
        if self.count > self.cap
            && let Some(last) = self.files.keys().next_back()
        {
            return name < last.as_str();
        }
        true
    }

    /// At most this many matches of one file can be kept (cap + 1 to detect "more").
    pub(super) fn limit(&self) -> usize {
        self.cap.saturating_add(1)
    }

    pub(super) fn add(&mut self, name: String, matches: Vec<GrepMatch>) {
        self.count += matches.len();
        self.files.insert(name, matches);
        // Drop whole files from the end while the rest still holds more than cap matches.
        while self.count > self.cap.saturating_add(1) {
            let (last_name, last_len) = {
                let (k, v) = self.files.iter().next_back().expect("non-empty");
                (k.clone(), v.len())
            };
            if self.count - last_len > self.cap {
                self.files.remove(&last_name);
                self.count -= last_len;
                self.dropped = true;
            } else {
                let keep = last_len - (self.count - self.cap - 1);
                self.files
                    .get_mut(&last_name)
                    .expect("exists")
                    .truncate(keep);
                self.count = self.cap.saturating_add(1);
                self.dropped = true;
            }
        }
    }

    pub(super) fn finish(self) -> GrepReport {
        let files_matched = self.files.len() as u64;
        let mut matches: Vec<GrepMatch> = self.files.into_values().flatten().collect();
        let mut report = GrepReport {
            files_matched,
            ..GrepReport::default()
        };
        if matches.len() > self.cap {
            let next = &matches[self.cap];
            report.next_cursor = Some(Cursor {
                path: next.path.clone(),
                line: next.line,
            });
            report.truncated = true;
            matches.truncate(self.cap);
        }
        report.matches = matches;
        report
    }
}
