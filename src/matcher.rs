//! Line-oriented regex matching over whole buffers: compile a pattern with mapgrep's line
//! semantics, and find matching *lines* with one forward search, never splitting the buffer
//! into lines first.
//!
//! A line matches when the regex matches inside it (without its terminator). The search runs
//! over the whole buffer for speed; a match that spans a newline (possible with `\s` or
//! negated classes) is re-checked against its line alone, so results are exactly those of a
//! line-by-line search.

use std::sync::atomic::{AtomicBool, Ordering};

use regex_automata::meta::{Cache, Regex};
use regex_automata::{Input, util::syntax};
use regex_syntax::hir::{
    Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Look,
    Repetition,
};

/// Bytes a pattern's automaton may take (its NFA, as regex-automata counts it). Search time
/// on a long line grows with the automaton, so patterns that compile to huge ones
/// (`a{1000}{1000}`, `\w{600}`) are refused up front; ordinary patterns take kilobytes and
/// even `\w{5}\s+\w{5}\s+\w{5}` under 1 MiB.
pub const NFA_SIZE_LIMIT: usize = 4 * 1024 * 1024;

/// Compiles `pattern`: `^`/`$` match at line boundaries (CRLF-aware), Unicode on. As in
/// ripgrep, `\n` is removed from every character class (`\s`, `[^a]`, `\W`…), so a match can
/// only cross a line through an explicit `\n`; such matches are re-checked per line anyway.
///
/// Lines end at `\n` only, as `ripgrep --crlf` has them: `.` matches neither `\r` nor `\n`,
/// `$` matches before `\n` (also before the `\r` of `\r\n`) and `^` only after `\n`. A bare
/// `\r` inside a line is no boundary: regex-syntax's CRLF mode would let `^`/`$` match around
/// it, so its anchors are rewritten (`^` → start of line, `$` → `\r??` then end of line).
pub fn build_line_regex(
    pattern: &str,
    case_insensitive: bool,
) -> Result<Regex, Box<regex_automata::meta::BuildError>> {
    let builder = {
        let mut b = Regex::builder();
        b.syntax(
            syntax::Config::new()
                .multi_line(true)
                .crlf(true)
                .case_insensitive(case_insensitive),
        )
        .configure(
            Regex::config()
                .nfa_size_limit(Some(NFA_SIZE_LIMIT))
                .hybrid_cache_capacity(8 * 1024 * 1024),
        );
        b
    };
    let hir = regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .crlf(true)
        .case_insensitive(case_insensitive)
        .build()
        .parse(pattern);
    match hir {
        Ok(hir) => builder
            .build_from_hir(&strip_newlines(hir))
            .map_err(Box::new),
        // The meta builder reports the same syntax error, in the type callers expect.
        Err(_) => builder.build(pattern).map_err(Box::new),
    }
}

/// Whether `pattern` can match inside a single line: false when every way it could match
/// needs a literal newline (`foo\nbar`), which a line never contains. Syntax errors count as
/// matching (the compiler reports them).
pub fn can_match_within_a_line(pattern: &str, case_insensitive: bool) -> bool {
    let Ok(hir) = regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .crlf(true)
        .case_insensitive(case_insensitive)
        .build()
        .parse(pattern)
    else {
        return true;
    };
    without_newline_literals(strip_newlines(hir))
        .properties()
        .minimum_len()
        .is_some()
}

/// `hir` with every literal that holds a newline replaced by a match that always fails.
fn without_newline_literals(hir: Hir) -> Hir {
    match hir.kind() {
        HirKind::Literal(l) if l.0.contains(&b'\n') => return Hir::fail(),
        HirKind::Repetition(_) | HirKind::Capture(_) | HirKind::Concat(_) => {}
        HirKind::Alternation(_) => {}
        _ => return hir,
    }
    match hir.into_kind() {
        HirKind::Repetition(mut r) => {
            let sub = without_newline_literals(*r.sub);
            // A repetition that may occur zero times still matches without its part.
            if sub.properties().minimum_len().is_none() {
                return if r.min == 0 {
                    Hir::empty()
                } else {
                    Hir::fail()
                };
            }
            r.sub = Box::new(sub);
            Hir::repetition(r)
        }
        HirKind::Capture(mut c) => {
            c.sub = Box::new(without_newline_literals(*c.sub));
            Hir::capture(c)
        }
        HirKind::Concat(subs) => {
            Hir::concat(subs.into_iter().map(without_newline_literals).collect())
        }
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.into_iter().map(without_newline_literals).collect())
        }
        _ => unreachable!("the kinds above"),
    }
}

/// Removes `\n` from every class of `hir`, and makes its line anchors see `\n` only (see
/// [`build_line_regex`]).
fn strip_newlines(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Class(Class::Unicode(mut c)) => {
            c.difference(&ClassUnicode::new([ClassUnicodeRange::new('\n', '\n')]));
            Hir::class(Class::Unicode(c))
        }
        HirKind::Class(Class::Bytes(mut c)) => {
            c.difference(&ClassBytes::new([ClassBytesRange::new(b'\n', b'\n')]));
            Hir::class(Class::Bytes(c))
        }
        HirKind::Repetition(mut r) => {
            r.sub = Box::new(strip_newlines(*r.sub));
            Hir::repetition(r)
        }
        HirKind::Capture(mut c) => {
            c.sub = Box::new(strip_newlines(*c.sub));
            Hir::capture(c)
        }
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(strip_newlines).collect()),
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.into_iter().map(strip_newlines).collect())
        }
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(l) => Hir::literal(l.0),
        HirKind::Look(Look::StartCRLF) => Hir::look(Look::StartLF),
        HirKind::Look(Look::EndCRLF) => Hir::concat(vec![
            Hir::repetition(Repetition {
                min: 0,
                max: Some(1),
                greedy: false,
                sub: Box::new(Hir::literal(*b"\r")),
            }),
            Hir::look(Look::EndLF),
        ]),
        HirKind::Look(l) => Hir::look(l),
    }
}

/// A regex syntax error in one line: its `error: ...` line without the caret diagram.
/// Why a pattern did not compile: `Ok(syntax error summary)` for a syntax error,
/// `Err(message)` for a pattern over the compiled size limit.
pub fn build_error_kind(e: &regex_automata::meta::BuildError) -> Result<String, String> {
    match e.syntax_error() {
        Some(s) => Ok(syntax_error_summary(s)),
        None => Err(e.to_string()),
    }
}

pub fn syntax_error_summary(e: &impl std::fmt::Display) -> String {
    let full = e.to_string();
    full.lines()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .unwrap_or_else(|| full.lines().next().unwrap_or(""))
        .to_string()
}

/// A matching line: the byte range of its text (without terminator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineMatch {
    pub start: usize,
    pub end: usize,
}

/// The first line starting at or after byte `from` (which must be a line start) that
/// matches, searching with `cache`.
pub fn next_line_match(
    re: &Regex,
    cache: &mut Cache,
    bytes: &[u8],
    from: usize,
) -> Option<LineMatch> {
    let mut at = from;
    while at < bytes.len() {
        let m = re.search_with(cache, &Input::new(bytes).range(at..))?;
        let start = memchr::memrchr(b'\n', &bytes[at..m.start()]).map_or(at, |i| at + i + 1);
        if start >= bytes.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        // Re-check a match that ran past the line against the line alone; the range keeps
        // the surrounding bytes visible to `^`/`$`, so anchors behave as in the whole buffer.
        if m.end() <= end
            || re
                .search_with(cache, &Input::new(bytes).range(start..end).earliest(true))
                .is_some()
        {
            return Some(LineMatch { start, end });
        }
        at = end + 1;
    }
    None
}

/// Counts `\n` bytes.
pub fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

/// Bytes searched by one regex call before [`MatchingLines`] checks its stop flag: a search
/// of a large file can be cancelled within one window's time.
pub const SEARCH_WINDOW: usize = 1 << 20;

/// Iterates the matching lines of `bytes[from..]` with their 1-based line numbers, counting
/// newlines lazily (only up to each match). `first_line` is the number of the line at `from`.
/// The bytes are searched in windows of about [`SEARCH_WINDOW`] cut at newlines (a match never
/// spans lines, so nothing is lost), checking an optional stop flag between windows.
pub struct MatchingLines<'a> {
    re: &'a Regex,
    cache: &'a mut Cache,
    bytes: &'a [u8],
    at: usize,
    counted_to: usize,
    line: u64,
    window: usize,
    stop: Option<&'a AtomicBool>,
}

impl<'a> MatchingLines<'a> {
    pub fn new(
        re: &'a Regex,
        cache: &'a mut Cache,
        bytes: &'a [u8],
        from: usize,
        first_line: u64,
    ) -> MatchingLines<'a> {
        MatchingLines {
            re,
            cache,
            bytes,
            at: from,
            counted_to: from,
            line: first_line,
            window: SEARCH_WINDOW,
            stop: None,
        }
    }

    /// Stops the iteration (between windows) once `flag` is set.
    pub fn stop_on(mut self, flag: &'a AtomicBool) -> MatchingLines<'a> {
        self.stop = Some(flag);
        self
    }

    /// Searches windows of about `bytes` bytes (tests use tiny ones).
    pub fn window(mut self, bytes: usize) -> MatchingLines<'a> {
        self.window = bytes.max(1);
        self
    }
}

impl Iterator for MatchingLines<'_> {
    type Item = (u64, LineMatch);

    fn next(&mut self) -> Option<(u64, LineMatch)> {
        let len = self.bytes.len();
        while self.at < len {
            let end = if len - self.at <= self.window {
                len
            } else {
                let want = self.at + self.window;
                memchr::memchr(b'\n', &self.bytes[want..]).map_or(len, |i| want + i + 1)
            };
            if let Some(m) = next_line_match(self.re, self.cache, &self.bytes[..end], self.at) {
                self.line += count_newlines(&self.bytes[self.counted_to..m.start]);
                self.counted_to = m.start;
                self.at = m.end + 1;
                return Some((self.line, m));
            }
            if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return None;
            }
            self.at = end;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(pattern: &str, text: &str) -> Vec<u64> {
        let re = build_line_regex(pattern, false).unwrap();
        let mut cache = re.create_cache();
        MatchingLines::new(&re, &mut cache, text.as_bytes(), 0, 1)
            .map(|(n, _)| n)
            .collect()
    }

    fn naive(pattern: &str, text: &str) -> Vec<u64> {
        let re = build_line_regex(pattern, false).unwrap();
        // Each line on its own (split on `\n` only: a `\r` belongs to the line, as in
        // ripgrep), with the rest of the text visible to the anchors.
        let mut out = Vec::new();
        let mut start = 0;
        for (i, line) in text
            .strip_suffix('\n')
            .unwrap_or(text)
            .split('\n')
            .enumerate()
        {
            let input = Input::new(text).range(start..start + line.len());
            if re.is_match(input) {
                out.push(i as u64 + 1);
            }
            start += line.len() + 1;
        }
        out
    }

    #[test]
    fn agrees_with_a_line_by_line_search() {
        let text = "alpha beta\n\ngamma\n  delta\nbeta\r\nend";
        for p in [
            "beta", "^$", "^", "$", r"\s+", r"a\s+g", r"^\s", "a$", r"[^x]+", "end$", "^beta$",
        ] {
            assert_eq!(lines(p, text), naive(p, text), "pattern {p}");
        }
    }

    #[test]
    fn windows_cut_at_newlines_lose_nothing() {
        let text = "alpha beta\n\ngamma\n  delta\nbeta\r\nend\nxx beta yy\n";
        for p in [
            "beta",
            "^$",
            "^",
            "$",
            r"\s+",
            r"^\s",
            "a$",
            r"\bbeta\b",
            "end$",
        ] {
            let re = build_line_regex(p, false).unwrap();
            for w in [1, 3, 8, 1000] {
                let mut cache = re.create_cache();
                let got: Vec<u64> = MatchingLines::new(&re, &mut cache, text.as_bytes(), 0, 1)
                    .window(w)
                    .map(|(n, _)| n)
                    .collect();
                assert_eq!(got, naive(p, text), "pattern {p} window {w}");
            }
        }
    }

    #[test]
    fn a_set_stop_flag_ends_the_search_between_windows() {
        let text = "x\n".repeat(100) + "hit\n";
        let re = build_line_regex("hit", false).unwrap();
        let mut cache = re.create_cache();
        let stop = AtomicBool::new(true);
        let mut it = MatchingLines::new(&re, &mut cache, text.as_bytes(), 0, 1)
            .window(10)
            .stop_on(&stop);
        assert_eq!(it.next(), None);
    }

    #[test]
    fn a_pattern_that_needs_a_newline_is_known() {
        for p in [r"a\nb", r"\n", r"x(\n)+y", r"(?:a\n|b\n)", "a\nb"] {
            assert!(!can_match_within_a_line(p, false), "{p}");
        }
        for p in ["a", r"a|\n", r"a\n?b", r"\s+", r"(?:\n)*x", "a(b"] {
            assert!(can_match_within_a_line(p, false), "{p}");
        }
    }

    #[test]
    fn a_match_across_a_newline_does_not_count() {
        assert_eq!(lines(r"a\s+g", "alpha\ngamma\n"), Vec::<u64>::new());
        assert_eq!(lines(r"a\s+g", "alpha\ngamma\nsa ga\n"), vec![3]);
    }

    #[test]
    fn a_bare_cr_is_no_line_boundary_but_crlf_ends_a_line() {
        // As `rg --crlf`: `^` only after `\n`, `$` before `\n` or `\r\n`, `.` stops at `\r`.
        let text = "a\r## b\n\u{94}\r\n\nx\ry\nend\r\n## c\r\n";
        assert_eq!(lines("^## ", text), vec![6]);
        assert_eq!(lines("^$", text), vec![3]);
        assert_eq!(lines("x$", text), Vec::<u64>::new());
        assert_eq!(lines("end$", text), vec![5]);
        assert_eq!(lines("^y", text), Vec::<u64>::new());
        assert_eq!(lines("x.y", text), Vec::<u64>::new());
        assert_eq!(lines(r"\u{94}$", text), vec![2]);
        assert_eq!(lines("(b|c)$", text), vec![1, 6]);
        for p in ["^## ", "^$", "x$", "end$", "^y", r"(?:b|c)$", "^.*$"] {
            assert_eq!(lines(p, text), naive(p, text), "pattern {p}");
        }
    }
}
