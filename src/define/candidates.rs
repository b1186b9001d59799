//! The files a lookup may parse: those of a parsed language that hold the name as a whole
//! word, found by grep's ordered visit (its paths, sandbox, ignore rules, globs, and the
//! trigram index when it is ready), each kept as one small record (never its lines: a
//! common word fills millions of them), ranked so that the likeliest definers are parsed
//! first. The visit stops at the lookup's deadline: what it found by then is ranked and
//! parsed, and the answer says how far it got.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::code::Lang;
use crate::grep::{self, Flow, GrepQuery, Progress, Sink, VisitedFile};
use crate::workspace::Workspace;

use super::shape;

/// A file that holds the name.
#[derive(Clone, Debug)]
pub(super) struct Candidate {
    /// As a search displays it.
    pub path: String,
    pub lang: Lang,
    /// Lines where the name stands in a definition's place ([`shape::could_define`]).
    pub likely_lines: u32,
    pub bytes: u64,
}

impl Candidate {
    pub(super) fn likely(&self) -> bool {
        self.likely_lines > 0
    }
}

/// What the visit found.
#[derive(Debug, Default)]
pub(super) struct Found {
    /// In path order.
    pub files: Vec<Candidate>,
    /// Files of any language that hold the name (the candidates among them).
    pub with_name: usize,
    pub searched: u64,
    pub index: Option<crate::index::IndexUse>,
    pub errors: Vec<String>,
    /// The visit stopped at the deadline: files after the last one found were not searched.
    pub cut: bool,
}

/// Lines of one file tested for a definition's shape; a file with more lines holding the
/// name counts as likely (it is worth a parse, and testing them all would cost more).
const MAX_LINES_TESTED: u32 = 1_000;

/// Bytes of a line tested around the name (a one-line file of a megabyte is tested in
/// windows, not whole once per occurrence).
const WINDOW: usize = 512;

struct Collect<'a> {
    found: &'a mut Found,
}

impl Sink<Option<Option<Candidate>>> for Collect<'_> {
    fn file(&mut self, result: Option<Option<Candidate>>) -> Flow {
        if let Some(candidate) = result {
            self.found.with_name += 1;
            self.found.files.extend(candidate);
        }
        Flow::Continue
    }
}

/// The files `scope` covers that hold `name` as a whole word (fixed string; whole word when
/// it starts and ends with a word character), of language `lang` when given; searched
/// until `deadline` or the caller's cancellation.
pub(super) fn find(
    ws: &Workspace,
    scope: &GrepQuery,
    name: &str,
    lang: Option<Lang>,
    caller: &Progress,
    deadline: Instant,
) -> Result<Found, super::DefineError> {
    let q = search(scope, name);
    let visit = Progress::default();
    let word = q.word;
    let finder = memchr::memmem::Finder::new(name.as_bytes());
    let work = |f: VisitedFile<'_>| -> Option<Option<Candidate>> {
        caller.files_searched.fetch_add(1, Ordering::Relaxed);
        if caller.cancelled.load(Ordering::Relaxed) || Instant::now() >= deadline {
            visit.cancel();
            return None;
        }
        scan(f.bytes, name, &finder, word, None)?;
        let path = f.name();
        let file_lang =
            Lang::of_file(Path::new(&path), f.bytes).filter(|l| lang.is_none_or(|w| w == *l));
        Some(file_lang.map(|lang| Candidate {
            likely_lines: scan(f.bytes, name, &finder, word, Some(lang)).unwrap_or(0),
            path,
            lang,
            bytes: f.bytes.len() as u64,
        }))
    };
    let mut found = Found::default();
    let visited = grep::visit_in_order(
        ws,
        &q,
        &visit,
        grep::Reading::Bytes,
        &work,
        &mut Collect { found: &mut found },
    )?;
    found.searched = visited.files;
    found.index = visited.index;
    found.errors = visited.errors;
    found.cut = visit.cancelled.load(Ordering::Relaxed);
    Ok(found)
}

/// The search for the files that hold `name` (as a whole word where it starts and ends with
/// a word character), over `scope`'s paths and walk.
pub(crate) fn search(scope: &GrepQuery, name: &str) -> GrepQuery {
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    GrepQuery {
        pattern: name.to_string(),
        fixed_strings: true,
        word: edge(name.chars().next()) && edge(name.chars().last()),
        case_insensitive: false,
        before_context: 0,
        after_context: 0,
        section_patterns: Some(Vec::new()),
        max_results: usize::MAX,
        cursor: None,
        ..scope.clone()
    }
}

/// `None` if `bytes` do not hold `name` (as a whole word when `word`); else, with a
/// language, the number of lines where it could be defined ([`MAX_LINES_TESTED`] when there
/// are more lines to test), and without one, 0.
fn scan(
    bytes: &[u8],
    name: &str,
    finder: &memchr::memmem::Finder<'_>,
    word: bool,
    lang: Option<Lang>,
) -> Option<u32> {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let mut seen = false;
    let mut likely = 0u32;
    let mut tested = 0u32;
    // The end of the line last tested: further occurrences on it are skipped (a one-line file
    // holds the name tens of thousands of times).
    let mut line_end = 0;
    for at in finder.find_iter(bytes) {
        let end = at + name.len();
        if word && (at > 0 && is_word(bytes[at - 1]) || end < bytes.len() && is_word(bytes[end])) {
            continue;
        }
        seen = true;
        let Some(lang) = lang else {
            return Some(0);
        };
        if at < line_end {
            continue;
        }
        let line_start =
            memchr::memrchr(b'\n', &bytes[line_end..at]).map_or(line_end, |i| line_end + i + 1);
        tested += 1;
        if tested > MAX_LINES_TESTED {
            return Some(likely.max(MAX_LINES_TESTED));
        }
        line_end = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |i| end + i);
        let from = if at - line_start <= WINDOW {
            line_start
        } else {
            at - WINDOW
        };
        let to = line_end.min(end + WINDOW);
        line_end += 1;
        let text = String::from_utf8_lossy(&bytes[from..to]);
        if shape::could_define(&text, name, lang) {
            likely += 1;
        }
    }
    seen.then_some(likely)
}

/// The candidates in the order they are parsed: likely definers first, then the others;
/// smaller files first in each (a parse costs about its file's size, so a lookup cut by its
/// budget has parsed as many files as it could).
pub(super) fn ranked(files: &[Candidate]) -> Vec<&Candidate> {
    let mut order: Vec<&Candidate> = files.iter().collect();
    order.sort_by(|a, b| {
        b.likely()
            .cmp(&a.likely())
            .then(a.bytes.cmp(&b.bytes))
            .then(a.path.cmp(&b.path))
    });
    order
}
