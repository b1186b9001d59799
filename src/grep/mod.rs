//! Parallel regex search over the roots: the engine of `grep_content` and `mapgrep grep`.
//!
//! Files are visited in path order ([`visit`]): walked by `ignore` (`.gitignore`/`.ignore`
//! honoured, hidden files skipped, symlinks never followed, so it cannot leave the roots),
//! taken from a server's kept list of an earlier walk, or narrowed by a ready trigram index.
//! Worker threads keep their own read buffer and regex cache; small files are read into the
//! buffer, large ones mapped, unchanged ones taken from a server's content cache. A file is
//! searched as one buffer and line numbers are counted lazily up to each match. A file with a
//! NUL byte in its first 64 KiB is skipped as binary and counted (the same test as the read
//! tools': a later NUL is a byte of a text file). One large file named on its own is cut at
//! newlines into chunks searched in parallel.
//!
//! Results are deterministic: in path order (directory by directory, names compared byte by
//! byte, as `rg --sort path`), then line, whatever the thread timing, and capped in total by
//! `max_results` with a cursor that continues exactly where the cut was. Once the cap and one
//! more hit are in hand the visit stops: later files are not read at all.
//!
//! Layout: this module holds the result types and `search` (compile, visit, collect);
//! `visit.rs` the ordered visit, `produce.rs` its files in order, `walk_ordered.rs` its walk,
//! `walk.rs` the walk's settings and `walklist.rs` a server's kept file lists; `file.rs` the
//! search of one file; `collect.rs` display names, counts and the capped collector;
//! `query.rs` the query and its parameter errors; `hints.rs` the section-end hints.

mod collect;
mod file;
mod files;
mod hints;
mod produce;
mod query;
mod select;
mod visit;
mod walk;
mod walk_ordered;
mod walklist;

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use regex_automata::meta::{Cache, Regex};

use crate::error::ParamError;
use crate::matcher::MatchingLines;
use crate::source::FileId;
use crate::words::Term;
use crate::workspace::Workspace;

pub use collect::MAX_NAMED;
pub(crate) use collect::join as join_shown;
pub use files::{FileList, Hidden, find_files, path_order};
pub use hints::{DEFAULT_SECTION_PATTERNS, SectionHint, SectionPatterns};
pub use query::{Bound, Cursor, GrepQuery, OutputMode, patterns_regex};
pub use select::{Sel, Selector, lines_before};
pub use visit::{Flow, Reading, Sink, Visited, VisitedFile, visit_in_order, visit_picked};

/// A file the index picked, before it is read: the identity the index's selection vouched
/// for (the file on disk now).
pub struct PickedFile<'a> {
    /// As the walk reached it (absolute under an absolute root).
    pub path: &'a Path,
    pub id: &'a crate::index::Ident,
}

/// What may answer for a picked file without reading it (`None`: read it).
pub type Picked<'a, T> = dyn Fn(PickedFile<'_>) -> Option<T> + Sync + 'a;
pub use walklist::{WalkCache, WalkKey, WalkList};

use collect::{Collector, FileResult, Resume, Stats};
use file::{Admit, Ctx, Named, Scratch, search_one_file};
use produce::Plan;
use visit::{Counts, Entry, Origin};

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
    /// Its file was not parsed within the hint budget: its symbol, if any, is not known.
    pub symbol_left_out: bool,
    /// The markdown section around the match, in markdown files (filled by
    /// [`crate::annotate`]).
    pub section: Option<EnclosingSection>,
    pub before: Vec<ContextLine>,
    pub after: Vec<ContextLine>,
    /// In the files and count modes ([`OutputMode`]) a match stands for its file: `line` is
    /// its first matching line, `count` how many of its lines match (the count mode; 1 in
    /// the files mode); 0 in the content mode.
    pub count: u64,
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
    /// The result was cut at `max_results` (or `max_result_bytes`); `next_cursor` continues
    /// it.
    pub truncated: bool,
    /// It was cut at `max_result_bytes`, before `max_results`.
    pub cut_by_size: bool,
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
    re: std::sync::Arc<Regex>,
    sliced: Option<crate::matcher::Sliced>,
    hints: SectionPatterns,
}

/// Runs `query` in `ws`: the ordered visit ([`visit`]) with the [`Collector`] as its sink,
/// which stops it once it holds `max_results` hits and one more.
pub fn search(ws: &Workspace, q: &GrepQuery, progress: &Progress) -> Result<GrepReport, GrepError> {
    search_hinted(ws, q, progress, None)
}

/// What a caller adds to one file's matches with the file's bytes in hand: the worker that
/// searched the file calls it before the matches leave it (enclosing symbols and markdown
/// sections, `crate::annotate`), so no later pass opens the file again.
pub trait FileHints: Sync {
    /// Fills in the hints of `matches` (one file's, in line order, their section hints by
    /// pattern already set) of the file at `path`, whose bytes as searched are `bytes` and
    /// whose identity when read was `id`.
    fn fill(&self, path: &Path, id: FileId, bytes: &[u8], matches: &mut [GrepMatch]);
}

/// [`search`], each file's matches completed by `hints` in the worker that found them.
pub fn search_hinted(
    ws: &Workspace,
    q: &GrepQuery,
    progress: &Progress,
    hints: Option<&dyn FileHints>,
) -> Result<GrepReport, GrepError> {
    let compiled = compile(ws, q)?;
    let stats = Stats::default();
    let mut collector = Collector::new(q.max_results, q.max_result_bytes);
    let resume = q.cursor.as_ref().map(|c| Resume::new(ws, q, c));
    // An index build in the background waits while this search runs.
    let _running = crate::index::searching(ws);
    let plan = Plan {
        use_index: q.use_index,
        keep_lists: ws.caches_contents(),
        regular_only: true,
    };
    let base = Ctx {
        ws,
        q,
        compiled: &compiled,
        stats: &stats,
        progress,
        admit: Admit::IfRoom,
        limit: collector.limit(),
        hints,
    };
    let work = |scratch: &mut Scratch, e: Entry<'_>, _: &mut Counts| {
        let make = || e.name();
        let name = Named::new(&make);
        if resume
            .as_ref()
            .is_some_and(|r| r.skips(e.given(), name.get()))
        {
            return None;
        }
        let admit = match e.origin() {
            Origin::Walk => Admit::Never,
            Origin::Index { evict: true } => Admit::Evict,
            _ => Admit::IfRoom,
        };
        let ctx = Ctx { admit, ..base };
        let found = match e.origin() {
            Origin::IndexBinary => FileResult::Binary,
            Origin::Given => search_one_file(&ctx, e.path(), &name)?,
            _ => ctx.search_file(e.path(), &name, e.known(), scratch)?,
        };
        match found {
            FileResult::Binary => {
                stats.binary(name.into_string());
                None
            }
            FileResult::Matches(m) => (!m.is_empty()).then_some(m),
        }
    };
    let scratch = || Scratch::new(&compiled);
    let visited = visit::visit(ws, q, progress, plan, &scratch, &work, &mut collector)?;
    let mut report = collector.finish();
    for e in visited.errors {
        stats.error(e);
    }
    stats.fill(&mut report);
    // Files the index ruled out were searched, through it.
    report.files_searched += visited.index.as_ref().map_or(0, |u| u.ruled_out);
    report.index = visited.index;
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
    let fix = format!(
        "Fix the regex (Rust regex syntax: escape literal ( [ {{ . * + ? with a backslash), or pass {} to search for the text literally.",
        w.set(Term::FixedStrings)
    );
    let param = crate::workspace::RegexParam {
        name: w.name(Term::Pattern),
        pattern: &q.pattern,
        source: &pattern,
        case_insensitive: q.case_insensitive,
        fix: &fix,
        line_fix: "Search for one line of it (^ and $ match at line starts and ends), then read the lines around the match.",
    };
    let re = ws
        .regex_param(&param, &|| q.provided(w))
        .map_err(GrepError::Param)?;
    let hints = section_patterns(ws, q)?;
    let sliced = crate::matcher::Sliced::for_pattern(&pattern, q.case_insensitive, &re);
    Ok(Compiled { re, sliced, hints })
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
        .map_err(|(p, e)| GrepError::Param(q.section_error(w, &p, &e)))
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
