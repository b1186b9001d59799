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

mod hints;
mod query;
mod walklist;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use bstr::ByteSlice;
use ignore::{WalkBuilder, WalkState};
use rayon::prelude::*;
use regex_automata::meta::{Cache, Regex};

use crate::error::Error;
use crate::matcher::MatchingLines;
use crate::read::ParamError;
use crate::source::{self, FileId, SourceOptions};
use crate::workspace::Workspace;

pub use hints::{DEFAULT_SECTION_PATTERNS, SectionHint, compute as section_hints};
pub use query::{Cursor, GrepQuery};
pub use walklist::{WalkCache, WalkKey, WalkList};

/// Longest line text returned for one match; longer lines are cut (and marked).
pub const MAX_LINE_BYTES: usize = 1000;

/// Bytes checked for a NUL before a file is searched.
const BINARY_PROBE: usize = source::BINARY_PROBE_LEN;

/// A worker's read buffer is dropped after a file that grew it past this.
const SCRATCH_KEEP: usize = 4 << 20;

/// Files at least this large are mapped during a walk; smaller ones are read.
const WALK_MMAP_MIN: u64 = 64 * 1024 * 1024;

/// A file this large, searched on its own, is split into chunks searched in parallel.
const PARALLEL_FILE_MIN: usize = 32 * 1024 * 1024;

/// One line of context.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
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

/// Why a search could not run.
#[derive(Debug, thiserror::Error)]
pub enum GrepError {
    #[error("{0}")]
    Param(ParamError),
    #[error(transparent)]
    File(#[from] Error),
}

/// A compiled search: the matcher (sliced for a large automaton) and the section-hint
/// patterns.
struct Compiled {
    re: std::sync::Arc<Regex>,
    sliced: Option<crate::matcher::Sliced>,
    hints: Vec<(String, std::sync::Arc<Regex>)>,
}

/// Runs `query` in `ws`.
pub fn search(ws: &Workspace, q: &GrepQuery, progress: &Progress) -> Result<GrepReport, GrepError> {
    let compiled = compile(ws, q)?;
    let mut targets = Vec::new();
    for given in q.paths() {
        let resolved = ws
            .resolve(&given)
            .map_err(|e| GrepError::Param(q.path_error(&given, &e)))?;
        let md = std::fs::metadata(&resolved).map_err(|e| {
            let e = Error::io(Path::new(&given), e);
            GrepError::Param(q.path_error(&given, &e))
        })?;
        if !md.is_dir() && !md.is_file() {
            let e = Error::NotAFile {
                path: resolved.clone(),
                kind: source::file_kind(&md),
            };
            return Err(GrepError::Param(q.path_error(&given, &e)));
        }
        targets.push((given, resolved, md.is_dir()));
    }
    let collector = Mutex::new(Collector::new(q.max_results, q.cursor.clone()));
    let stats = Stats::default();
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

/// A search path that names one file: mapped if large, and split into parallel chunks.
fn search_one_file(ctx: &Ctx<'_>, path: &Path) {
    let name = ctx.display.of(path);
    let limit = {
        let c = ctx.collector.lock().expect("collector");
        if !c.wants(&name) {
            return;
        }
        c.limit()
    };
    let mut buf = Vec::new();
    let mut cache = ctx.compiled.caches();
    match source::load(path, &SourceOptions::default(), &mut buf) {
        Ok((_, hay)) if !hay.intact() => ctx.stats.error(changed(path)),
        Ok((id, hay)) if hay.len() >= PARALLEL_FILE_MIN => {
            // One large file: chunks searched in parallel, numbered through the line index
            // (cached in a server, so paging with a cursor jumps straight to its line).
            let found = search_loaded(path, &hay, || {
                if memchr::memchr(0, &hay[..BINARY_PROBE]).is_some() {
                    return FileResult::Binary;
                }
                let index = match id {
                    Some(id) => ctx.ws.index_bytes(path, id, &hay),
                    None => std::sync::Arc::new(crate::lines::LineIndex::build(&hay)),
                };
                let from_line = cursor_line(ctx.q, &name);
                let start = index.line_start(&hay, from_line).unwrap_or(hay.len());
                let lines = search_chunks(&hay, ctx.compiled, limit, start, &index, ctx.progress);
                finish(&hay, lines, ctx, &name)
            });
            match found {
                Some(found) => record(ctx.collector, ctx.stats, &name, found),
                None => ctx.stats.error(changed(path)),
            }
        }
        Ok((_, hay)) => {
            let found = search_loaded(path, &hay, || {
                search_bytes(&hay, &mut cache, ctx, &name, limit, Mode::Walk)
            });
            match found {
                Some(found) => record(ctx.collector, ctx.stats, &name, found),
                None => ctx.stats.error(changed(path)),
            }
        }
        Err(e) => ctx.stats.error(e.to_string()),
    }
    ctx.progress.files_searched.fetch_add(1, Ordering::Relaxed);
    ctx.stats.searched.fetch_add(1, Ordering::Relaxed);
}

fn compile(ws: &Workspace, q: &GrepQuery) -> Result<Compiled, GrepError> {
    let pattern = q.regex_source().map_err(GrepError::Param)?;
    let re = ws
        .regex(&pattern, q.case_insensitive)
        .map_err(|e| GrepError::Param(q.regex_error("pattern", &q.pattern, &e)))?;
    if !crate::matcher::can_match_within_a_line(&pattern, q.case_insensitive) {
        return Err(GrepError::Param(q.multiline_error()));
    }
    let mut hints = Vec::new();
    for p in q.section_patterns() {
        if p.is_empty() {
            return Err(GrepError::Param(ParamError::new(
                "Empty pattern in section_patterns",
                q.provided(),
                "An empty boundary pattern matches every line, so every section would end at once."
                    .into(),
                "Remove the empty entry; pass [] to disable Section-End-Hint.",
            )));
        }
        let r = ws
            .regex(&p, false)
            .map_err(|e| GrepError::Param(q.regex_error("section_patterns", &p, &e)))?;
        hints.push((p, r));
    }
    let sliced = crate::matcher::Sliced::for_pattern(&pattern, q.case_insensitive, &re);
    Ok(Compiled { re, sliced, hints })
}

/// How walked paths are displayed: the caller's spelling of the search path, joined with the
/// path below it (or relative to the first root when the caller gave none).
struct Display {
    root: PathBuf,
    prefix: String,
}

impl Display {
    fn new(ws: &Workspace, q: &GrepQuery, given: &str, resolved: &Path) -> Display {
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

    fn of(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        let rel = rel.to_string_lossy();
        match (self.prefix.as_str(), rel.as_ref()) {
            (p, "") => p.to_string(),
            ("", r) => r.to_string(),
            (p, r) if p.ends_with('/') => format!("{p}{r}"),
            (p, r) => format!("{p}/{r}"),
        }
    }
}

/// Skipped binary files and read errors named in a report (beyond this, only counted).
pub const MAX_NAMED: usize = 10_000;

#[derive(Default)]
struct Stats {
    searched: AtomicU64,
    binary: AtomicU64,
    binary_examples: Mutex<Vec<String>>,
    errors: Mutex<Vec<String>>,
    error_count: AtomicU64,
}

impl Stats {
    fn error(&self, msg: String) {
        self.error_count.fetch_add(1, Ordering::Relaxed);
        let mut e = self.errors.lock().expect("stats");
        if e.len() < MAX_NAMED {
            e.push(msg);
        }
    }

    /// Fills the report; names come sorted, so the examples a summary shows are the same
    /// whatever order the parallel walk met the files in.
    fn fill(self, r: &mut GrepReport) {
        r.files_searched = self.searched.into_inner();
        r.binary_skipped = self.binary.into_inner();
        r.binary_examples = self.binary_examples.into_inner().expect("stats");
        r.binary_examples.sort();
        r.errors = self.errors.into_inner().expect("stats");
        r.errors.sort();
        r.error_count = self.error_count.into_inner();
    }
}

/// A matching line: its number and the byte range of its text.
type Hit = (u64, usize, usize);

/// How a file reaches [`search_bytes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Just read (found by a walk, or the one file a search path named).
    Walk,
    /// From the content cache, which holds only files whose first 64 KiB have no NUL.
    CachedText,
}

/// What searching one file gave.
enum FileResult {
    Binary,
    Matches(Vec<GrepMatch>),
}

fn record(collector: &Mutex<Collector>, stats: &Stats, name: &str, found: FileResult) {
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

/// A worker thread's reusable state: the read buffer and the regex cache (whose lazy DFA
/// keeps the states it built across files).
struct Scratch {
    buf: Vec<u8>,
    cache: Caches,
}

impl Scratch {
    fn new(c: &Compiled) -> Scratch {
        Scratch {
            buf: Vec::new(),
            cache: c.caches(),
        }
    }
}

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

/// Everything a search of one file needs besides the file.
struct Ctx<'a> {
    ws: &'a Workspace,
    q: &'a GrepQuery,
    compiled: &'a Compiled,
    display: &'a Display,
    collector: &'a Mutex<Collector>,
    stats: &'a Stats,
    progress: &'a Progress,
}

impl Ctx<'_> {
    /// Searches one walked file, from the content cache when it is unchanged.
    fn search_file(&self, path: &Path, name: Option<&str>, scratch: &mut Scratch) {
        self.search_file_in(path, name, scratch);
        // A buffer grown by one large file (up to the 64 MiB read limit) is not kept: many
        // concurrent searches, each with a worker per core, would each hold one.
        if scratch.buf.capacity() > SCRATCH_KEEP {
            scratch.buf = Vec::new();
        }
    }

    fn search_file_in(&self, path: &Path, name: Option<&str>, scratch: &mut Scratch) {
        let Scratch { buf, cache } = scratch;
        let owned;
        let name = match name {
            Some(n) => n,
            None => {
                owned = self.display.of(path);
                &owned
            }
        };
        let limit = {
            let c = self.collector.lock().expect("collector");
            if !c.wants(name) {
                return;
            }
            c.limit()
        };
        // A warm server searches unchanged files from its content cache: one stat instead
        // of open + read + close.
        let ws = self.ws;
        let cached = ws.caches_contents().then(|| {
            std::fs::metadata(path)
                .ok()
                .map(|md| FileId::from_metadata(&md))
                .and_then(|id| ws.cached_content(path, &id))
        });
        let found = if let Some(Some(bytes)) = cached {
            // Only text files (no NUL in the first 64 KiB) are cached: skip that probe.
            search_bytes(&bytes, cache, self, name, limit, Mode::CachedText)
        } else {
            // Reading beats mapping for the many small files of a walk (no map/unmap, no
            // page faults); only very large files are mapped.
            let opts = SourceOptions::for_search(WALK_MMAP_MIN, ws.caches_contents());
            match source::load(path, &opts, buf) {
                Ok((id, hay)) => {
                    if let Some(id) = id
                        && memchr::memchr(0, &hay[..hay.len().min(BINARY_PROBE)]).is_none()
                    {
                        ws.cache_content(path, id, &hay);
                    }
                    let found = search_loaded(path, &hay, || {
                        search_bytes(&hay, cache, self, name, limit, Mode::Walk)
                    });
                    match found {
                        Some(found) => found,
                        None => {
                            // A search cut short by a panic may leave its cache unusable.
                            *cache = self.compiled.caches();
                            self.stats.error(changed(path));
                            return;
                        }
                    }
                }
                Err(e) => {
                    self.stats.error(e.to_string());
                    return;
                }
            }
        };
        record(self.collector, self.stats, name, found);
        self.stats.searched.fetch_add(1, Ordering::Relaxed);
        self.progress.files_searched.fetch_add(1, Ordering::Relaxed);
    }
}

/// `search` over a loaded file, guarded against a mapping that a concurrent rewrite tears
/// (see [`source::guard_mapped`]): `None` when the file changed during the search.
fn search_loaded(
    path: &Path,
    hay: &source::Haystack<'_>,
    search: impl FnOnce() -> FileResult,
) -> Option<FileResult> {
    match source::guard_mapped(hay.is_mapped(), path, search) {
        Ok(found) if hay.intact() => Some(found),
        _ => None,
    }
}

/// The error of a file that shrank under its mapping during the search.
fn changed(path: &Path) -> String {
    crate::error::Error::Changed {
        path: path.to_path_buf(),
    }
    .to_string()
}

fn walk_builder(q: &GrepQuery, dir: &Path) -> Result<WalkBuilder, GrepError> {
    let mut wb = WalkBuilder::new(dir);
    let standard = !q.include_ignored;
    wb.hidden(!q.include_hidden)
        .ignore(standard)
        .git_ignore(standard)
        .git_global(standard)
        .git_exclude(standard)
        .parents(standard)
        .follow_links(false)
        .max_filesize(q.max_filesize)
        .threads(q.threads.unwrap_or_else(rayon::current_num_threads));
    if !q.globs.is_empty() {
        let mut ob = ignore::overrides::OverrideBuilder::new(dir);
        for g in &q.globs {
            ob.add(g)
                .map_err(|e| GrepError::Param(q.glob_error(g, &e.to_string())))?;
        }
        let ov = ob
            .build()
            .map_err(|e| GrepError::Param(q.glob_error(&q.globs.join(", "), &e.to_string())))?;
        wb.overrides(ov);
    }
    Ok(wb)
}

/// Searches every file under `dir`: inline with the parallel walk, or — in a server that
/// keeps file lists — over the cached, revalidated list with rayon.
fn walk(ctx: &Ctx<'_>, dir: &Path) -> Result<(), GrepError> {
    let wb = walk_builder(ctx.q, dir)?;
    if ctx.ws.caches_contents() {
        let key = WalkKey {
            dir: dir.to_path_buf(),
            include_hidden: ctx.q.include_hidden,
            include_ignored: ctx.q.include_ignored,
            globs: ctx.q.globs.clone(),
            max_filesize: ctx.q.max_filesize,
            display_prefix: ctx.display.prefix.clone(),
        };
        let list = ctx
            .ws
            .state::<WalkCache>()
            .list(&key, || WalkList::build(&wb, &key, |p| ctx.display.of(p)));
        for e in &list.errors {
            ctx.stats.error(e.clone());
        }
        ctx.progress
            .files_total
            .fetch_add(list.files.len() as u64, Ordering::Relaxed);
        // A fixed set of workers pulling files from a shared counter: each keeps one scratch
        // (buffer + regex cache) for the whole call, so the lazy DFA is built once per thread.
        let next = AtomicU64::new(0);
        let threads = ctx
            .q
            .threads
            .unwrap_or_else(rayon::current_num_threads)
            .max(1);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let mut scratch = Scratch::new(ctx.compiled);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                        if i >= list.files.len() || ctx.progress.is_cancelled() {
                            break;
                        }
                        ctx.search_file(&list.files[i], Some(&list.names[i]), &mut scratch);
                    }
                });
            }
        });
        return Ok(());
    }
    let roots = ctx.ws.roots();
    wb.build_parallel().run(|| {
        let mut scratch = Scratch::new(ctx.compiled);
        Box::new(move |entry| {
            if ctx.progress.is_cancelled() {
                return WalkState::Quit;
            }
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    ctx.stats.error(e.to_string());
                    return WalkState::Continue;
                }
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let path = entry.path();
            // The walk starts inside a root and never follows links; a final check costs
            // nothing and keeps the invariant local.
            if roots.contains(path) || path.starts_with(dir) {
                ctx.search_file(path, None, &mut scratch);
            }
            WalkState::Continue
        })
    });
    Ok(())
}

/// Searches one file's bytes for up to `limit` matching lines (from the cursor line if the
/// cursor names this file).
fn search_bytes(
    bytes: &[u8],
    cache: &mut Caches,
    ctx: &Ctx<'_>,
    name: &str,
    limit: usize,
    mode: Mode,
) -> FileResult {
    let (c, q) = (ctx.compiled, ctx.q);
    // Binary: a NUL in the first 64 KiB, as `source` classifies files for the read tools.
    let head = &bytes[..bytes.len().min(BINARY_PROBE)];
    if mode != Mode::CachedText && memchr::memchr(0, head).is_some() {
        return FileResult::Binary;
    }
    let from_line = cursor_line(q, name);
    let mut lines: Vec<Hit> = c
        .lines(cache, bytes, 0, 1, &ctx.progress.cancelled)
        .skip_while(|(n, _)| *n < from_line)
        .take(limit)
        .map(|(n, m)| (n, m.start, m.end))
        .collect();
    lines.truncate(limit);
    if lines.is_empty() {
        return FileResult::Matches(Vec::new());
    }
    finish(bytes, lines, ctx, name)
}

/// The line where the cursor resumes in file `name` (1 when the cursor is elsewhere).
fn cursor_line(q: &GrepQuery, name: &str) -> u64 {
    q.cursor
        .as_ref()
        .filter(|cur| cur.path == name)
        .map_or(1, |cur| cur.line)
}

/// Turns a file's matching lines into matches: text, context and section hints.
fn finish(bytes: &[u8], lines: Vec<Hit>, ctx: &Ctx<'_>, name: &str) -> FileResult {
    let (c, q) = (ctx.compiled, ctx.q);
    let hints = hints::compute(bytes, &c.hints, &lines);
    let matches = lines
        .iter()
        .zip(hints)
        .map(|(&(line, start, end), hint)| {
            let (text, text_cut) = line_text(&bytes[start..end]);
            let (before, after) = context(bytes, line, start, end, q.before(), q.after());
            GrepMatch {
                path: name.to_string(),
                line,
                text,
                text_cut,
                section_end_hint: hint,
                symbol: None,
                section: None,
                before,
                after,
            }
        })
        .collect();
    FileResult::Matches(matches)
}

/// Splits `bytes[start..]` (a line start) at newlines and searches the pieces in parallel,
/// each numbering its lines from the line index.
fn search_chunks(
    bytes: &[u8],
    c: &Compiled,
    limit: usize,
    start: usize,
    index: &crate::lines::LineIndex,
    progress: &Progress,
) -> Vec<Hit> {
    let pieces = (rayon::current_num_threads() * 8).max(2);
    let target = (bytes.len() - start) / pieces + 1;
    let mut bounds = vec![start];
    while let Some(&last) = bounds.last() {
        if last >= bytes.len() {
            break;
        }
        let want = (last + target).min(bytes.len());
        let cut = memchr::memchr(b'\n', &bytes[want..]).map_or(bytes.len(), |i| want + i + 1);
        bounds.push(cut);
    }
    let results: Vec<Vec<Hit>> = bounds
        .par_windows(2)
        .map(|w| {
            if progress.is_cancelled() {
                return Vec::new();
            }
            let piece = &bytes[..w[1]];
            let mut cache = c.caches();
            let first_line = index.line_of_offset(bytes, w[0]);
            c.lines(&mut cache, piece, w[0], first_line, &progress.cancelled)
                .take(limit)
                .map(|(n, m)| (n, m.start, m.end))
                .collect()
        })
        .collect();
    let mut out: Vec<Hit> = results.into_iter().flatten().collect();
    out.truncate(limit);
    out
}

fn line_text(line: &[u8]) -> (String, bool) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() <= MAX_LINE_BYTES {
        (line.to_str_lossy().into_owned(), false)
    } else {
        let mut cut = MAX_LINE_BYTES;
        while cut > 0 && (line[cut] & 0xC0) == 0x80 {
            cut -= 1;
        }
        (line[..cut].to_str_lossy().into_owned(), true)
    }
}

fn context(
    bytes: &[u8],
    line: u64,
    start: usize,
    end: usize,
    before: usize,
    after: usize,
) -> (Vec<ContextLine>, Vec<ContextLine>) {
    let mut b = Vec::new();
    let mut s = start;
    for k in 1..=before {
        if s == 0 {
            break;
        }
        let prev_end = s - 1;
        let prev_start = memchr::memrchr(b'\n', &bytes[..prev_end]).map_or(0, |i| i + 1);
        b.push(ContextLine {
            line: line - k as u64,
            text: line_text(&bytes[prev_start..prev_end]).0,
        });
        s = prev_start;
    }
    b.reverse();
    let mut a = Vec::new();
    let mut e = end;
    for k in 1..=after {
        if e >= bytes.len() {
            break;
        }
        let next_start = e + 1;
        if next_start >= bytes.len() {
            break;
        }
        let next_end =
            memchr::memchr(b'\n', &bytes[next_start..]).map_or(bytes.len(), |i| next_start + i);
        a.push(ContextLine {
            line: line + k as u64,
            text: line_text(&bytes[next_start..next_end]).0,
        });
        e = next_end;
    }
    (b, a)
}

/// Keeps the first `cap` matches in (path, line) order, whatever order files arrive in, and
/// remembers whether anything was left out.
struct Collector {
    cap: usize,
    files: BTreeMap<String, Vec<GrepMatch>>,
    count: usize,
    cursor: Option<Cursor>,
    dropped: bool,
}

impl Collector {
    fn new(cap: usize, cursor: Option<Cursor>) -> Collector {
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
    fn wants(&self, name: &str) -> bool {
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
    fn limit(&self) -> usize {
        self.cap + 1
    }

    fn add(&mut self, name: String, matches: Vec<GrepMatch>) {
        self.count += matches.len();
        self.files.insert(name, matches);
        // Drop whole files from the end while the rest still holds more than cap matches.
        while self.count > self.cap + 1 {
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
                self.count = self.cap + 1;
                self.dropped = true;
            }
        }
    }

    fn finish(self) -> GrepReport {
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

#[cfg(test)]
mod tests;
