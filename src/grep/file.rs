//! Searching one file: loading it (read, mapped or from the content cache), the binary
//! test, the regex over its bytes (in parallel chunks for one large file), and turning its
//! matching lines into matches with context and section hints.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};

use bstr::ByteSlice;
use rayon::prelude::*;

use super::collect::{FileResult, Stats};
use super::{Caches, Compiled, ContextLine, GrepMatch, GrepQuery, Hit, MAX_LINE_BYTES, Progress};
use crate::index::{Ident, Known, Span};
use crate::source::{self, FileId, Opener, SourceOptions};
use crate::workspace::Workspace;

/// A worker's read buffer is dropped after a file that grew it past this.
pub(super) const SCRATCH_KEEP: usize = 4 << 20;

/// Files at least this large are mapped during a walk (also by the command line's visit);
/// smaller ones are read into a worker's buffer. Reading a large file whole costs twice the
/// kernel time of mapping it: the copy's destination is a buffer as large as the file, far
/// out of the core's cache (on the Linux tree, whose 714 files of 128 KiB or more hold 512 MB
/// of its 1.3 GB, a scan's system time fell by a third). A file the index names parts of was
/// indexed in pieces from this size too, and only those parts are then touched.
pub(super) const WALK_MMAP_MIN: u64 = 128 * 1024;

/// A file this large, searched on its own, is split into chunks searched in parallel.
pub(super) const PARALLEL_FILE_MIN: usize = 32 * 1024 * 1024;

/// A search path that names one file: mapped if large, and split into parallel chunks.
/// `None` when it could not be read or changed while searched (reported).
pub(super) fn search_one_file(ctx: &Ctx<'_>, path: &Path, name: &Named<'_>) -> Option<FileResult> {
    let limit = ctx.file_limit();
    let mut buf = Vec::new();
    let mut cache = ctx.compiled.caches();
    let found = match source::load(path, &SourceOptions::default(), &mut buf) {
        Ok((_, hay)) if !hay.intact() => Err(changed(path)),
        Ok((id, hay)) if hay.len() >= PARALLEL_FILE_MIN => {
            // One large file: chunks searched in parallel, numbered through the line index
            // (cached in a server, so paging with a cursor jumps straight to its line).
            search_loaded(path, &hay, || {
                if source::looks_binary(&hay) {
                    return FileResult::Binary;
                }
                let index = match id {
                    Some(id) => ctx.ws.index_bytes(path, id, &hay),
                    None => std::sync::Arc::new(crate::lines::LineIndex::build(&hay)),
                };
                let from_line = cursor_line(ctx.q, name);
                let start = index.line_start(&hay, from_line).unwrap_or(hay.len());
                let lines = search_chunks(&hay, ctx.compiled, limit, start, &index, ctx.progress);
                finish(&hay, lines, ctx, name, Where::walk(path, id, None))
            })
            .ok_or_else(|| changed(path))
        }
        Ok((id, hay)) => search_loaded(path, &hay, || {
            search_bytes(&hay, &mut cache, ctx, name, Where::walk(path, id, None))
        })
        .ok_or_else(|| changed(path)),
        Err(e) => Err(e.to_string()),
    };
    ctx.progress.files_searched.fetch_add(1, Ordering::Relaxed);
    ctx.stats.searched.fetch_add(1, Ordering::Relaxed);
    found.map_err(|e| ctx.stats.error(e)).ok()
}

/// A file's display name, made when first needed: most files of a search have no hit, and a
/// name costs an allocation.
pub(super) struct Named<'a> {
    name: std::cell::OnceCell<String>,
    make: &'a dyn Fn() -> String,
}

impl<'a> Named<'a> {
    pub(super) fn new(make: &'a dyn Fn() -> String) -> Named<'a> {
        Named {
            name: std::cell::OnceCell::new(),
            make,
        }
    }

    pub(super) fn get(&self) -> &str {
        self.name.get_or_init(self.make)
    }

    pub(super) fn into_string(self) -> String {
        self.name.into_inner().unwrap_or_else(self.make)
    }
}

/// How a file reaches [`search_bytes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// Just read (found by a walk, or the one file a search path named).
    Walk,
    /// From the content cache, which holds only files whose first 64 KiB have no NUL.
    CachedText,
}

/// How a file reaches [`search_bytes`], which parts of it to search (`None`: all), and
/// which file it is (for the hints of its matches).
#[derive(Clone, Copy, Debug)]
pub(super) struct Where<'a> {
    pub(super) mode: Mode,
    pub(super) spans: Option<&'a [Span]>,
    pub(super) path: &'a Path,
    /// Its identity when read (known when the hints need it).
    pub(super) id: Option<FileId>,
}

impl<'a> Where<'a> {
    /// A file just read, searched in `spans` (`None`: all of it).
    pub(super) fn walk(path: &'a Path, id: Option<FileId>, spans: Option<&'a [Span]>) -> Where<'a> {
        Where {
            mode: Mode::Walk,
            spans,
            path,
            id,
        }
    }
}

/// A worker thread's reusable state for one search: the read buffer, the regex cache (whose
/// lazy DFA keeps the states it built across files) and the opener (which keeps the last
/// file's directory open).
pub(super) struct Scratch {
    pub(super) buf: Vec<u8>,
    pub(super) cache: Caches,
    pub(super) opener: Opener,
}

/// How the files a search reads may enter the content cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Admit {
    /// Not at all: a walk done for the first time (a one-off scan does not pay for it).
    Never,
    /// Into free room only: a scan, which would otherwise evict everything in turn.
    IfRoom,
    /// Evicting the least recently used: files the index picked, when all of them fit in
    /// the cache (a larger set would evict itself on every repeat).
    Evict,
}

impl Scratch {
    pub(super) fn new(c: &Compiled) -> Scratch {
        Scratch {
            buf: Vec::new(),
            cache: c.caches(),
            opener: Opener::default(),
        }
    }
}

/// Everything a search of one file needs besides the file.
#[derive(Clone, Copy)]
pub(super) struct Ctx<'a> {
    pub(super) ws: &'a Workspace,
    pub(super) q: &'a GrepQuery,
    pub(super) compiled: &'a Compiled,
    pub(super) stats: &'a Stats,
    pub(super) progress: &'a Progress,
    pub(super) admit: Admit,
    /// At most this many matches of one file are kept (the cap plus one, to know there is
    /// more).
    pub(super) limit: usize,
    /// Completes each file's matches in the worker (enclosing symbols, markdown sections).
    pub(super) hints: Option<&'a dyn super::FileHints>,
}

impl Ctx<'_> {
    /// The matching lines to find in one file: the collector's limit, the first alone (files
    /// mode) or all (count mode).
    pub(super) fn file_limit(&self) -> usize {
        match self.q.output {
            super::OutputMode::Content => self.limit,
            super::OutputMode::FilesWithMatches => 1,
            super::OutputMode::Count => usize::MAX,
        }
    }

    /// Searches one walked file, displayed as `name` (only the spans the index `known`
    /// names, while the file keeps the identity they were recorded with), from the content
    /// cache when it is unchanged. `None` when it could not be read or changed while it was
    /// searched (reported).
    pub(super) fn search_file(
        &self,
        path: &Path,
        name: &Named<'_>,
        known: Option<&Known>,
        scratch: &mut Scratch,
    ) -> Option<FileResult> {
        let Scratch { buf, cache, opener } = scratch;
        let found = match self.cached(path, known) {
            Some((id, bytes)) => {
                // Only text files (no NUL in the first 64 KiB) are cached: skip that probe.
                let at = Where {
                    mode: Mode::CachedText,
                    spans: spans_for(known, &id),
                    path,
                    id: Some(id),
                };
                Some(search_bytes(&bytes, cache, self, name, at))
            }
            None => self.read_and_search(path, name, known, (buf, opener), cache),
        };
        // A buffer grown by one large file (up to the 64 MiB read limit) is not kept: many
        // concurrent searches, each with a worker per core, would each hold one.
        if buf.capacity() > SCRATCH_KEEP {
            *buf = Vec::new();
        }
        if found.is_some() {
            self.stats.searched.fetch_add(1, Ordering::Relaxed);
            self.progress.files_searched.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// A warm server searches unchanged files from its content cache: one stat instead of
    /// open + read + close. The cached bytes of `path`, if they are its current version.
    fn cached(&self, path: &Path, known: Option<&Known>) -> Option<(FileId, Arc<[u8]>)> {
        let cached = self.ws.cached_version(path)?;
        let current = match known {
            // The selection just vouched for the file's identity: no need to look again.
            Some(k) => Ident::from_id(&cached.0) == k.id,
            // A file not cached costs no stat here (a cold scan reads it at once).
            None => std::fs::metadata(path).is_ok_and(|md| FileId::from_metadata(&md) == cached.0),
        };
        current.then_some(cached)
    }

    /// Reads `path` (keeping it in the content cache when admitted) and searches it; `None`
    /// when it could not be read or changed while it was searched (both reported).
    fn read_and_search(
        &self,
        path: &Path,
        name: &Named<'_>,
        known: Option<&Known>,
        (buf, opener): (&mut Vec<u8>, &mut Opener),
        cache: &mut Caches,
    ) -> Option<FileResult> {
        let ws = self.ws;
        // A file the index picked is kept when read a second time; a scan's file when the
        // walk is not a first.
        let admit = match (self.admit, known) {
            (Admit::Never, _) => false,
            (_, Some(_)) => ws.admits_content(path),
            (_, None) => ws.caches_contents(),
        };
        // Reading beats mapping for the many small files of a walk (no map/unmap, no page
        // faults); large files are mapped (see WALK_MMAP_MIN).
        // The hints need the identity (the parse of a file with no symbol records is cached
        // by it): one fstat.
        let opts = SourceOptions::for_search(WALK_MMAP_MIN, admit || self.hints.is_some());
        let started = std::time::Instant::now();
        let (id, hay) = match source::load_in(opener, path, &opts, buf) {
            Ok(loaded) => {
                super::produce::loaded(loaded.1.len(), started.elapsed());
                loaded
            }
            Err(e) => {
                self.stats.error(e.to_string());
                return None;
            }
        };
        let spans = id.as_ref().and_then(|id| spans_for(known, id));
        if let Some(id) = id
            && admit
            && !source::looks_binary(&hay)
        {
            ws.cache_content(path, id, &hay, self.admit == Admit::Evict);
        }
        let at = Where::walk(path, id, spans);
        let found = search_loaded(path, &hay, || search_bytes(&hay, cache, self, name, at));
        if found.is_none() {
            // A search cut short by a panic may leave its cache unusable.
            *cache = self.compiled.caches();
            self.stats.error(changed(path));
        }
        found
    }
}

/// The index's spans of a file hold for the version it recorded, not for another.
pub(super) fn spans_for<'k>(known: Option<&'k Known>, id: &FileId) -> Option<&'k [Span]> {
    known
        .filter(|k| k.id == Ident::from_id(id))
        .and_then(|k| k.spans.as_deref())
}

/// `search` over a loaded file, guarded against a mapping that a concurrent rewrite tears
/// (see [`source::guard_mapped`]): `None` when the file changed during the search.
pub(super) fn search_loaded(
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
pub(super) fn changed(path: &Path) -> String {
    crate::error::Error::Changed {
        path: path.to_path_buf(),
    }
    .to_string()
}

/// Searches one file's bytes (or only `at.spans` of them) for up to `ctx.limit` matching
/// lines (from the cursor line if the cursor names this file).
pub(super) fn search_bytes(
    bytes: &[u8],
    cache: &mut Caches,
    ctx: &Ctx<'_>,
    name: &Named<'_>,
    at: Where<'_>,
) -> FileResult {
    let (c, q, limit) = (ctx.compiled, ctx.q, ctx.file_limit());
    // Binary: a NUL in the first 64 KiB, as `source` classifies files for the read tools.
    if at.mode != Mode::CachedText && source::looks_binary(bytes) {
        return FileResult::Binary;
    }
    let from_line = cursor_line(q, name);
    let whole = [Span {
        start: 0,
        end: bytes.len() as u64,
        line: 1,
    }];
    let mut lines: Vec<Hit> = Vec::new();
    for s in at.spans.unwrap_or(&whole) {
        let (start, end) = (s.start as usize, (s.end as usize).min(bytes.len()));
        if lines.len() >= limit || start >= end {
            break;
        }
        let want = limit - lines.len();
        lines.extend(
            c.lines(cache, &bytes[..end], start, s.line, &ctx.progress.cancelled)
                .skip_while(|(n, _)| *n < from_line)
                .take(want)
                .map(|(n, m)| (n, m.start, m.end)),
        );
    }
    lines.truncate(limit);
    if lines.is_empty() {
        return FileResult::Matches(Vec::new());
    }
    finish(bytes, lines, ctx, name, at)
}

/// The line where the cursor resumes in file `name` (1 when the cursor is elsewhere).
pub(super) fn cursor_line(q: &GrepQuery, name: &Named<'_>) -> u64 {
    q.cursor
        .as_ref()
        .filter(|cur| cur.path == name.get())
        .map_or(1, |cur| cur.line)
}

/// Turns a file's matching lines into matches: text, context and section hints.
pub(super) fn finish(
    bytes: &[u8],
    lines: Vec<Hit>,
    ctx: &Ctx<'_>,
    name: &Named<'_>,
    at: Where<'_>,
) -> FileResult {
    let name = name.get();
    let (c, q) = (ctx.compiled, ctx.q);
    if q.output != super::OutputMode::Content {
        // One result for the file: its first matching line and how many match.
        return FileResult::Matches(vec![GrepMatch {
            path: name.to_string(),
            line: lines[0].0,
            text: String::new(),
            text_cut: false,
            section_end_hint: None,
            symbol: None,
            symbol_left_out: false,
            section: None,
            before: Vec::new(),
            after: Vec::new(),
            count: lines.len() as u64,
        }]);
    }
    let hints = c.hints.hints(bytes, &lines);
    let mut matches: Vec<GrepMatch> = lines
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
                symbol_left_out: false,
                section: None,
                before,
                after,
                count: 0,
            }
        })
        .collect();
    if let Some((hints, id)) = ctx.hints.zip(at.id) {
        hints.fill(at.path, id, bytes, &mut matches);
    }
    FileResult::Matches(matches)
}

/// Splits `bytes[start..]` (a line start) at newlines and searches the pieces in parallel,
/// each numbering its lines from the line index.
pub(super) fn search_chunks(
    bytes: &[u8],
    c: &Compiled,
    limit: usize,
    start: usize,
    index: &crate::lines::LineIndex,
    progress: &Progress,
) -> Vec<Hit> {
    let pieces = (rayon::current_num_threads() * 8).max(2);
    let target = (bytes.len() - start) / pieces + 1;
    let bounds = crate::lines::piece_bounds(bytes, start, target);
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

pub(super) fn line_text(line: &[u8]) -> (String, bool) {
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

pub(super) fn context(
    bytes: &[u8],
    line: u64,
    start: usize,
    end: usize,
    before: usize,
    after: usize,
) -> (Vec<ContextLine>, Vec<ContextLine>) {
    let b = super::lines_before(bytes, start, line, 1, before)
        .into_iter()
        .map(|(n, s, e)| ContextLine {
            line: n,
            text: line_text(&bytes[s..e]).0,
        })
        .collect();
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
        let next_end = crate::lines::line_end(bytes, next_start);
        a.push(ContextLine {
            line: line + k as u64,
            text: line_text(&bytes[next_start..next_end]).0,
        });
        e = next_end;
    }
    (b, a)
}

/// How many bytes of mapped files the workers of a command line's visit search at once (one
/// larger file is searched alone).
const MAPPED_BUDGET: usize = 32 << 20;

/// The bytes of mapped files being searched. A mapped file's pages count in the process's
/// memory as they are read: without a bound, workers that reach a run of the largest files
/// together would hold several at once.
#[derive(Default)]
pub(super) struct Mapped {
    held: Mutex<usize>,
    freed: Condvar,
}

impl Mapped {
    /// Waits until `n` more bytes fit in [`MAPPED_BUDGET`] (or nothing else is held), and
    /// holds them until the guard is dropped.
    pub(super) fn hold(&self, n: usize) -> Held<'_> {
        let mut held = self.held.lock().expect("mapped");
        while *held > 0 && *held + n > MAPPED_BUDGET {
            held = self.freed.wait(held).expect("mapped");
        }
        *held += n;
        Held { of: self, n }
    }
}

/// Bytes held in [`Mapped`] while a file is searched.
pub(super) struct Held<'a> {
    of: &'a Mapped,
    n: usize,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        *self.of.held.lock().expect("mapped") -= self.n;
        self.of.freed.notify_all();
    }
}
