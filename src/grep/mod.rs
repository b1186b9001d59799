//! Parallel regex search over the roots: the engine of `grep_content` and `mapgrep grep`.
//!
//! The walk is `ignore`'s parallel walker (`.gitignore`/`.ignore` honoured, hidden files
//! skipped, symlinks never followed, so it cannot leave the roots). Each worker thread keeps
//! its own read buffer and regex cache; small files are read into the buffer, large ones
//! mapped. A file is searched as one buffer and line numbers are counted lazily up to each
//! match. A file with a NUL byte in its first 64 KiB is skipped as binary and counted (the same
//! test as the read tools': a later NUL is a byte of a text file). One large file is cut at
//! newlines into chunks searched in parallel.
//!
//! Results are deterministic: sorted by path, then line, whatever the thread timing, and
//! capped in total by `max_results` with a cursor that continues exactly where the cut was.
//! While the cap is full, files that sort after every kept match are not searched at all.
//!
//! Layout: this module holds the result types and `search` (resolve the paths, compile, walk
//! or search one file, collect); `walk.rs` the walk and `walklist.rs` a server's cached file
//! lists; `file.rs` the search of one file; `collect.rs` the ordered, capped collector;
//! `query.rs` the query and its parameter errors; `hints.rs` the section-end hints;
//! `visit.rs` the ordered visit a front-end that prints by itself streams through, and
//! `walk_ordered.rs` its walk in path order.

mod collect;
mod file;
mod hints;
mod query;
mod visit;
mod walk;
mod walk_ordered;
mod walklist;

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use regex_automata::meta::{Cache, Regex};

use crate::error::Error;
use crate::error::ParamError;
use crate::matcher::MatchingLines;
use crate::source;
use crate::words::Term;
use crate::workspace::Workspace;

pub use collect::MAX_NAMED;
pub use hints::{DEFAULT_SECTION_PATTERNS, SectionHint, SectionPatterns};
pub use query::{Cursor, GrepQuery};
pub use visit::{Flow, Sink, Visited, VisitedFile, visit_in_order};
pub use walklist::{WalkCache, WalkKey, WalkList};

use collect::{Collector, Display, Stats};
use file::{Ctx, search_one_file};
use walk::walk;

/// Longest line text returned for one match; longer lines are cut (and marked).
pub const MAX_LINE_BYTES: usize = 1000;

/// One line of context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextLine {
    pub line: u64,
    pub text: String,
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrepMatch {
    /// The path as displayed (relative to the first root, or as the caller wrote it).
    pub path: String,
    pub line: u64,
    /// The line's text, decoded lossily, cut at [`MAX_LINE_BYTES`].
    pub text: String,
    pub text_cut: bool,
    pub section_end_hint: Option<SectionHint>,
    /// The innermost symbol around the match, in files `file_read` parses (filled by
    /// [`crate::annotate`]).
    pub symbol: Option<EnclosingSymbol>,
    /// The markdown section around the match, in markdown files (filled by
    /// [`crate::annotate`]).
    pub section: Option<EnclosingSection>,
    pub before: Vec<ContextLine>,
    pub after: Vec<ContextLine>,
}

/// The markdown section a match sits in: its slug (an address for section reads) and lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnclosingSection {
    pub slug: String,
    pub start_line: u64,
    pub end_line: u64,
}

/// The symbol a match sits in: what to pass to `file_read { target }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnclosingSymbol {
    /// The name to pass to `file_read { target }` (`Class.method`).
    pub name: String,
    pub kind: String,
    pub start_line: u64,
    pub end_line: u64,
}

/// What a search found.
#[derive(Clone, Debug, Default)]
pub struct GrepReport {
    pub matches: Vec<GrepMatch>,
    pub files_searched: u64,
    pub files_matched: u64,
    /// Files skipped because they have a NUL byte in their first 64 KiB (binary, as the read
    /// tools have it too).
    pub binary_skipped: u64,
    /// The binary files skipped, sorted (up to [`MAX_NAMED`]).
    pub binary_examples: Vec<String>,
    /// Files or directories that could not be read: messages, sorted (up to [`MAX_NAMED`]).
    pub errors: Vec<String>,
    pub error_count: u64,
    /// The result was cut at `max_results`; `next_cursor` continues it.
    pub truncated: bool,
    pub next_cursor: Option<Cursor>,
    /// The search was cancelled before it finished; the results are partial.
    pub cancelled: bool,
    /// It was cancelled because it ran past its deadline ([`Progress::time_out`]).
    pub timed_out: bool,
    /// How the trigram index narrowed the search (`None`: every file was scanned).
    pub index: Option<crate::index::IndexUse>,
}

/// Progress and cancellation shared with a caller on another thread.
#[derive(Debug, Default)]
pub struct Progress {
    pub files_searched: AtomicU64,
    /// Files the search will look at, once known (0: not known yet).
    pub files_total: AtomicU64,
    pub cancelled: AtomicBool,
    /// Set with `cancelled` when the search ran out of time.
    pub timed_out: AtomicBool,
    /// Why the search scans although the roots are being indexed, for progress messages.
    pub note: Mutex<Option<String>>,
}

impl Progress {
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Stops the search because it ran past its deadline.
    pub fn time_out(&self) {
        self.timed_out.store(true, Ordering::Relaxed);
        self.cancel();
    }

    fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

/// Why a search could not run: its parameters, or a file or directory it names.
pub type GrepError = crate::error::RequestError;

/// A compiled search: the matcher (sliced for a large automaton) and the section-hint
/// patterns.
struct Compiled {
    /// The regex source (after `fixed_strings` and `word`), for the index's query plan.
    pattern: String,
    re: std::sync::Arc<Regex>,
    sliced: Option<crate::matcher::Sliced>,
    hints: SectionPatterns,
}

/// Runs `query` in `ws`.
pub fn search(ws: &Workspace, q: &GrepQuery, progress: &Progress) -> Result<GrepReport, GrepError> {
    let compiled = compile(ws, q)?;
    let w = ws.words();
    let mut targets = Vec::new();
    for given in q.paths() {
        let resolved = ws
            .resolve(&given)
            .map_err(|e| GrepError::Param(q.path_error(w, &given, &e)))?;
        let md = std::fs::metadata(&resolved).map_err(|e| {
            let e = Error::io(Path::new(&given), e);
            GrepError::Param(q.path_error(w, &given, &e))
        })?;
        if !md.is_dir() && !md.is_file() {
            let e = Error::NotAFile {
                path: resolved.clone(),
                kind: source::file_kind(&md),
            };
            return Err(GrepError::Param(q.path_error(w, &given, &e)));
        }
        targets.push((given, resolved, md.is_dir()));
    }
    let collector = Mutex::new(Collector::new(q.max_results, q.cursor.clone()));
    let stats = Stats::default();
    // An index build in the background waits while this search runs.
    let _running = crate::index::searching(ws);
    for (given, resolved, is_dir) in &targets {
        let display = Display::new(ws, q, given, resolved);
        let ctx = Ctx {
            ws,
            q,
            compiled: &compiled,
            display: &display,
            collector: &collector,
            stats: &stats,
            progress,
            admit: file::Admit::IfRoom,
        };
        if *is_dir {
            walk(&ctx, resolved)?;
        } else {
            search_one_file(&ctx, resolved);
        }
    }
    let collector = collector.into_inner().expect("collector");
    let mut report = collector.finish();
    stats.fill(&mut report);
    report.cancelled = progress.is_cancelled();
    report.timed_out = progress.timed_out.load(Ordering::Relaxed);
    Ok(report)
}

/// Compiles the query's pattern as a search would (its errors worded the same way): for a
/// front-end that matches by itself over [`visit_in_order`].
pub fn compile_check(
    ws: &Workspace,
    q: &GrepQuery,
) -> Result<std::sync::Arc<regex_automata::meta::Regex>, GrepError> {
    compile(ws, q).map(|c| c.re)
}

fn compile(ws: &Workspace, q: &GrepQuery) -> Result<Compiled, GrepError> {
    let w = ws.words();
    let pattern = q.regex_source(w).map_err(GrepError::Param)?;
    let re = ws
        .regex(&pattern, q.case_insensitive)
        .map_err(|e| GrepError::Param(q.regex_error(w, Term::Pattern, &q.pattern, &e)))?;
    if !crate::matcher::can_match_within_a_line(&pattern, q.case_insensitive) {
        return Err(GrepError::Param(q.multiline_error(w)));
    }
    let hints = section_patterns(ws, q)?;
    let sliced = crate::matcher::Sliced::for_pattern(&pattern, q.case_insensitive, &re);
    Ok(Compiled {
        pattern,
        re,
        sliced,
        hints,
    })
}

/// The query's section patterns (or the default ones), compiled, with the parameter errors of
/// an empty or a bad pattern.
pub fn section_patterns(ws: &Workspace, q: &GrepQuery) -> Result<SectionPatterns, GrepError> {
    let w = ws.words();
    let list = q.section_patterns();
    for p in &list {
        if p.is_empty() {
            return Err(GrepError::Param(ParamError::new(
                &format!("Empty pattern in {}", w.name(Term::SectionPatterns)),
                q.provided(w),
                "An empty boundary pattern matches every line, so every section would end at once."
                    .into(),
                "Remove the empty entry; pass [] to disable Section-End-Hint.",
            )));
        }
    }
    SectionPatterns::compile(ws, &list)
        .map_err(|(p, e)| GrepError::Param(q.regex_error(w, Term::SectionPatterns, &p, &e)))
}

/// A matching line: its number and the byte range of its text.
type Hit = (u64, usize, usize);

/// A search thread's caches: the regex engine's, and the sliced DFA's if there is one.
struct Caches {
    re: Cache,
    sliced: Option<regex_automata::hybrid::dfa::Cache>,
}

impl Compiled {
    fn caches(&self) -> Caches {
        Caches {
            re: self.re.create_cache(),
            sliced: self.sliced.as_ref().map(|s| s.create_cache()),
        }
    }

    /// The matching lines of `bytes[from..]` (`first_line` numbers the line at `from`),
    /// stopping when `stop` is set.
    fn lines<'a>(
        &'a self,
        caches: &'a mut Caches,
        bytes: &'a [u8],
        from: usize,
        first_line: u64,
        stop: &'a AtomicBool,
    ) -> MatchingLines<'a> {
        let sliced = self.sliced.as_ref().zip(caches.sliced.as_mut());
        MatchingLines::new(&self.re, &mut caches.re, bytes, from, first_line)
            .stop_on(stop)
            .sliced(sliced)
    }
}

#[cfg(test)]
mod tests;
