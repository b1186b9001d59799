//! One file's selected lines for a printer (the command line's standard, JSON and count
//! output): the compiled patterns and, for one file's bytes, the lines to print with their
//! matches. A pattern within a line goes through the engine's own line search
//! ([`crate::matcher::MatchingLines`], as `grep_content` does); a large file is searched in
//! pieces on all cores; inverted selection (-v) and matches over several lines (-U) are here
//! too. Printers take the selected lines and the bytes, and hold no matcher of their own.

use std::sync::Arc;

use rayon::prelude::*;
use regex_automata::Input;
use regex_automata::meta::{Cache, Regex};
use regex_automata::util::pool::Pool;

use super::{GrepError, GrepQuery};
use crate::index::Span;
use crate::workspace::Workspace;

/// The compiled patterns: a line regex, or with `-U` a regex that may match `\n`.
pub struct Selector {
    re: Arc<Regex>,
    multiline: bool,
    /// Search caches kept between files (a regex's cache is costly to make, and each worker
    /// thread needs its own while it searches): a pool whose fast path is a thread's own.
    caches: Pool<Cache, MakeCache>,
}

/// How the pool makes a search cache.
type MakeCache = Box<dyn Fn() -> Cache + Send + Sync>;

impl Selector {
    /// Compiles the query's pattern; errors (a bad regex, a pattern that needs a line break
    /// without `-U`) come worded by the engine in the command line's words.
    pub fn new(
        ws: &Workspace,
        q: &GrepQuery,
        pattern: &str,
        ci: bool,
        multiline: bool,
        crlf: bool,
    ) -> Result<Selector, GrepError> {
        if !multiline {
            let re = super::compile_check(ws, q)?;
            if crlf {
                return Ok(Selector::of(re, multiline));
            }
            // Without --crlf, `\n` alone ends a line, as in ripgrep (the engine's own line
            // regex, which compiled above, treats `\r\n` as one terminator).
            return match crate::matcher::build_lf_line_regex(pattern, ci) {
                Ok(re) => Ok(Selector::of(Arc::new(re), multiline)),
                Err(_) => Ok(Selector::of(re, multiline)),
            };
        }
        let re = Regex::builder()
            .syntax(
                regex_automata::util::syntax::Config::new()
                    .multi_line(true)
                    .crlf(crlf)
                    .case_insensitive(ci),
            )
            .build(pattern);
        match re {
            Ok(re) => Ok(Selector::of(Arc::new(re), multiline)),
            // The engine words a syntax error; its line-break complaint does not apply here.
            Err(_) => super::compile_check(ws, q).map(|re| Selector::of(re, multiline)),
        }
    }

    fn of(re: Arc<Regex>, multiline: bool) -> Selector {
        let made = re.clone();
        Selector {
            re,
            multiline,
            caches: Pool::new(Box::new(move || made.create_cache())),
        }
    }

    /// The matches in one line's text (empty ones only where they are not at its end).
    pub fn subs(&self, line: &[u8]) -> Vec<(usize, usize)> {
        self.re
            .find_iter(Input::new(line))
            .filter(|m| !m.is_empty() || line.is_empty() || m.start() < line.len())
            .map(|m| (m.start(), m.end()))
            .collect()
    }

    /// Every match in `text` (empty ones too): a printer's trailing context line past the
    /// last selected one shows its matches as ripgrep does.
    pub fn matches_in(&self, text: &[u8]) -> Vec<(usize, usize)> {
        self.re
            .find_iter(Input::new(text))
            .map(|m| (m.start(), m.end()))
            .collect()
    }

    /// The selected lines of `bytes`, up to `max` of them: the lines that match (or with
    /// `invert` those that do not). `spans`: the only parts of the bytes that can hold a
    /// match, as the index knows them (a search of lines, not inverted).
    pub fn select(
        &self,
        bytes: &[u8],
        invert: bool,
        max: Option<u64>,
        spans: Option<&[Span]>,
    ) -> Vec<Sel> {
        let limit = max.unwrap_or(u64::MAX);
        if limit == 0 {
            return Vec::new();
        }
        if invert {
            return self.inverted(bytes, limit);
        }
        if let Some(spans) = spans.filter(|_| !self.multiline) {
            return self.in_spans(bytes, spans, limit);
        }
        // A large file is searched in chunks (cut after a `\n`) on all cores, as the engine
        // searches one; a pattern that may span lines (-U) or a search that stops early (-m)
        // reads it in one pass.
        if bytes.len() >= CHUNKED && !self.multiline && max.is_none() {
            let bounds = crate::lines::piece_bounds(bytes, 0, CHUNK);
            let parts: Vec<(Vec<Sel>, u64)> = bounds
                .par_windows(2)
                .map(|w| {
                    let sels = self.lines(bytes, (w[0], w[1]), 1, u64::MAX);
                    let lines = memchr::memchr_iter(b'\n', &bytes[w[0]..w[1]]).count() as u64;
                    (sels, lines)
                })
                .collect();
            let mut out = Vec::new();
            let mut before = 0;
            for (sels, lines) in parts {
                out.extend(sels.into_iter().map(|mut s| {
                    s.line += before;
                    s
                }));
                before += lines;
            }
            return out;
        }
        if self.multiline {
            return self.spanning(bytes, limit);
        }
        self.lines(bytes, (0, bytes.len()), 1, limit)
    }

    /// The lines that do not match, up to `limit`.
    fn inverted(&self, bytes: &[u8], limit: u64) -> Vec<Sel> {
        let mut out = Vec::new();
        for (n, (start, end)) in (1..).zip(line_ranges(bytes)) {
            if !self.re.is_match(Input::new(&bytes[start..end])) {
                out.push(Sel {
                    line: n,
                    start,
                    end,
                    subs: Vec::new(),
                });
                if out.len() as u64 >= limit {
                    break;
                }
            }
        }
        out
    }

    /// The matching lines in the index's `spans` of `bytes` (the parts that can hold a
    /// match, as the server's search reads them: each starts a line, whose number it
    /// knows), up to `limit`.
    fn in_spans(&self, bytes: &[u8], spans: &[Span], limit: u64) -> Vec<Sel> {
        let mut out = Vec::new();
        for s in spans {
            let (start, end) = (s.start as usize, (s.end as usize).min(bytes.len()));
            if out.len() as u64 >= limit || start >= end {
                break;
            }
            let left = limit - out.len() as u64;
            out.extend(self.lines(bytes, (start, end), s.line, left));
        }
        out
    }

    /// The matching lines of `bytes[from..to]` (`from` starts a line, `to` ends one or the
    /// text), up to `limit`; line numbers count from `first` at `from`.
    fn lines(&self, bytes: &[u8], (from, to): (usize, usize), first: u64, limit: u64) -> Vec<Sel> {
        let mut cache = self.caches.get();
        crate::matcher::MatchingLines::new(&self.re, &mut cache, &bytes[..to], from, first)
            .take(usize::try_from(limit).unwrap_or(usize::MAX))
            .map(|(line, m)| Sel {
                line,
                start: m.start,
                end: m.end,
                subs: self.subs(&bytes[m.start..m.end]),
            })
            .collect()
    }

    /// -U: the lines each match covers (a match over several lines selects each of them),
    /// up to `limit`.
    fn spanning(&self, bytes: &[u8], limit: u64) -> Vec<Sel> {
        let mut out = Vec::new();
        let mut counter = LineCounter::default();
        let mut pos = 0;
        while pos < bytes.len() {
            let Some(m) = self.re.search(&Input::new(bytes).range(pos..)) else {
                break;
            };
            // The empty text after the last `\n` is no line.
            if m.start() == bytes.len() && bytes.ends_with(b"\n") {
                break;
            }
            let ls = memchr::memrchr(b'\n', &bytes[..m.start()]).map_or(0, |i| i + 1);
            let last = if m.end() > m.start() {
                m.end() - 1
            } else {
                m.start()
            };
            let le = crate::lines::line_end(bytes, last);
            let mut line = counter.line_at(bytes, ls);
            let mut s = ls;
            loop {
                let e = memchr::memchr(b'\n', &bytes[s..le]).map_or(le, |i| s + i);
                out.push(Sel {
                    line,
                    start: s,
                    end: e,
                    subs: clip(m.start(), m.end(), s, e),
                });
                if out.len() as u64 >= limit {
                    return out;
                }
                if e >= le {
                    break;
                }
                s = e + 1;
                line += 1;
            }
            pos = le + 1;
        }
        out
    }
}

/// A selected line: its number, byte range (without `\n`), and its matches in it.
pub struct Sel {
    pub line: u64,
    pub start: usize,
    pub end: usize,
    pub subs: Vec<(usize, usize)>,
}

/// The part of the match `[ms, me)` inside the line `[ls, le)`, relative to the line.
fn clip(ms: usize, me: usize, ls: usize, le: usize) -> Vec<(usize, usize)> {
    let (s, e) = (ms.max(ls), me.min(le));
    if s <= e {
        vec![(s - ls, e - ls)]
    } else {
        Vec::new()
    }
}

/// Files at least this large are searched in chunks on all cores.
const CHUNKED: usize = 16 << 20;
/// The size of one chunk (cut at the next `\n`).
const CHUNK: usize = 8 << 20;

/// The lines before the line `line` that starts at `start`, top down: up to `max` of them,
/// none above line `floor` (what a printer already showed); each `(number, start, end)`, the
/// end before its `\n`. The context before a hit, for every printer and `grep_content`.
pub fn lines_before(
    bytes: &[u8],
    start: usize,
    line: u64,
    floor: u64,
    max: usize,
) -> Vec<(u64, usize, usize)> {
    let mut out = Vec::new();
    let (mut s, mut n) = (start, line);
    while n > floor && out.len() < max && s > 0 {
        let ps = memchr::memrchr(b'\n', &bytes[..s - 1]).map_or(0, |i| i + 1);
        out.push((n - 1, ps, s - 1));
        s = ps;
        n -= 1;
    }
    out.reverse();
    out
}

/// `(start, end)` of every line (without its `\n`); a final line without `\n` counts, an
/// empty text after the last `\n` does not.
fn line_ranges(bytes: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let end = crate::lines::line_end(bytes, pos);
        let r = (pos, end);
        pos = end + 1;
        Some(r)
    })
}

/// Line numbers of increasing offsets, counted incrementally.
#[derive(Default)]
struct LineCounter {
    pos: usize,
    line: u64,
}

impl LineCounter {
    /// The line number of the line starting at `at` (offsets only grow).
    fn line_at(&mut self, bytes: &[u8], at: usize) -> u64 {
        if at < self.pos {
            self.pos = 0;
            self.line = 0;
        }
        self.line += memchr::memchr_iter(b'\n', &bytes[self.pos..at]).count() as u64;
        self.pos = at;
        self.line + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ranges_skip_the_empty_text_after_the_last_newline() {
        let r: Vec<_> = line_ranges(b"a\n\nb").collect();
        assert_eq!(r, vec![(0, 1), (2, 2), (3, 4)]);
        assert_eq!(line_ranges(b"a\n").count(), 1);
    }
}
