//! Gathering results from the parallel search: display names, statistics, and the collector
//! that keeps the first matches in (path, line) order whatever order files finish in.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Cursor, Flow, GrepMatch, GrepQuery, GrepReport, Sink};
use crate::platform;
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
                Ok(rel) => platform::slashed(rel.to_string_lossy()).into_owned(),
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
        join(&self.prefix, below(path, &self.root))
    }
}

/// `prefix/rest` as a display name (`prefix` alone for an empty `rest`), `rest` (a path below
/// `prefix`) with `/` between its parts on every system ([`platform::slashed`]).
pub(crate) fn join(prefix: &str, rest: &[u8]) -> String {
    let rest = platform::slashed(String::from_utf8_lossy(rest));
    match (prefix, rest.as_ref()) {
        (p, "") => p.to_string(),
        ("", r) => r.to_string(),
        (p, r) if p.ends_with('/') => format!("{p}{r}"),
        (p, r) => format!("{p}/{r}"),
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
}

impl Stats {
    pub(super) fn error(&self, msg: String) {
        self.error_count.fetch_add(1, Ordering::Relaxed);
        let mut e = self.errors.lock().expect("stats");
        if e.len() < MAX_NAMED {
            e.push(msg);
        }
    }

    /// A file skipped as binary.
    pub(super) fn binary(&self, name: String) {
        self.binary.fetch_add(1, Ordering::Relaxed);
        let mut ex = self.binary_examples.lock().expect("stats");
        if ex.len() < MAX_NAMED {
            ex.push(name);
        }
    }

    /// Fills the report; names come sorted, so the examples a summary shows are the same
    /// whatever order the parallel search met the files in.
    pub(super) fn fill(self, r: &mut GrepReport) {
        r.files_searched = self.searched.into_inner();
        r.binary_skipped = self.binary.into_inner();
        r.binary_examples = self.binary_examples.into_inner().expect("stats");
        r.binary_examples.sort();
        r.errors = self.errors.into_inner().expect("stats");
        r.errors.sort();
        r.error_count = self.error_count.into_inner();
    }
}

/// What searching one file gave.
pub(super) enum FileResult {
    Binary,
    Matches(Vec<GrepMatch>),
}

/// Keeps the first `cap` matches in the visit's order (path, then line), and one more to
/// know there is more: a sink of the ordered visit, which it stops once it has them (the
/// files after them are never read).
pub(super) struct Collector {
    cap: usize,
    files: Vec<Vec<GrepMatch>>,
    count: usize,
    /// The bytes the kept matches may take to show, and what they take so far.
    room: Option<usize>,
    used: usize,
    /// The room, not the cap, ended the collection.
    cut_by_size: bool,
}

/// About the bytes a match takes in an answer: its path, line number, text and context,
/// and the words around them.
fn shown_bytes(m: &GrepMatch) -> usize {
    let context: usize = m
        .before
        .iter()
        .chain(&m.after)
        .map(|c| c.text.len() + 10)
        .sum();
    m.path.len() + m.text.len() + context + 24
}

impl Collector {
    pub(super) fn new(cap: usize, room: Option<usize>) -> Collector {
        Collector {
            cap: cap.max(1),
            files: Vec::new(),
            count: 0,
            room,
            used: 0,
            cut_by_size: false,
        }
    }

    /// At most this many matches of one file can be kept (cap + 1 to detect "more").
    pub(super) fn limit(&self) -> usize {
        self.cap.saturating_add(1)
    }

    pub(super) fn finish(self) -> GrepReport {
        let files_matched = self.files.len() as u64;
        let mut matches: Vec<GrepMatch> = self.files.into_iter().flatten().collect();
        let mut report = GrepReport {
            files_matched,
            cut_by_size: self.cut_by_size,
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

impl Sink<Vec<GrepMatch>> for Collector {
    fn file(&mut self, mut matches: Vec<GrepMatch>) -> Flow {
        matches.truncate(self.limit() - self.count);
        if let Some(room) = self.room {
            // The matches that fit the room become the cap: the next one tells the cursor.
            for (k, m) in matches.iter().enumerate() {
                self.used += shown_bytes(m);
                if self.used > room && self.count + k > 0 {
                    if self.count + k < self.cap {
                        self.cap = self.count + k;
                        self.cut_by_size = true;
                    }
                    break;
                }
            }
            matches.truncate(self.limit() - self.count);
        }
        self.count += matches.len();
        if !matches.is_empty() {
            self.files.push(matches);
        }
        if self.count > self.cap {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
}

/// Where a cursor resumes: the number of the query path its file was found under, its path
/// and line.
pub(super) struct Resume<'a> {
    given: usize,
    cursor: &'a Cursor,
}

impl<'a> Resume<'a> {
    /// The query path a cursor's file lies under: the first whose display name is a prefix of
    /// the cursor's path, by components.
    pub(super) fn new(ws: &Workspace, q: &GrepQuery, cursor: &'a Cursor) -> Resume<'a> {
        let given = q
            .paths()
            .iter()
            .position(|g| {
                ws.resolve(g).is_ok_and(|r| {
                    let prefix = Display::new(ws, q, g, &r).prefix;
                    let mut at = components(&cursor.path);
                    components(&prefix).all(|c| c.is_empty() || at.next() == Some(c))
                })
            })
            .unwrap_or(0);
        Resume { given, cursor }
    }

    /// Whether the file `name`, found under query path `given`, comes before the cursor's
    /// file in the visit's order (then it holds no hit to return).
    pub(super) fn skips(&self, given: usize, name: &str) -> bool {
        given < self.given
            || (given == self.given && components(name).lt(components(&self.cursor.path)))
    }
}

/// A display name's components, compared in turn as the walk orders paths.
fn components(name: &str) -> impl Iterator<Item = &str> {
    name.split(std::path::is_separator)
}
