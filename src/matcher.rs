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
    build_lines(pattern, case_insensitive, true)
}

/// One line regex that matches a line when any of `patterns` matches it (their alternation,
/// each parsed as [`build_line_regex`] parses it): for the section boundaries, so a file is
/// scanned once for all of them. A syntax error is the first pattern's that has one.
pub fn build_line_regex_any(
    patterns: &[String],
    case_insensitive: bool,
) -> Result<Regex, Box<regex_automata::meta::BuildError>> {
    if let [one] = patterns {
        return build_line_regex(one, case_insensitive);
    }
    let mut hirs = Vec::with_capacity(patterns.len());
    for p in patterns {
        match line_hir(p, case_insensitive) {
            Some(hir) => hirs.push(hir),
            None => return build_line_regex(p, case_insensitive),
        }
    }
    line_builder(case_insensitive, true)
        .build_from_hir(&Hir::alternation(hirs))
        .map_err(Box::new)
}

/// [`build_line_regex`] with `\n` alone as the line terminator, as ripgrep has it without
/// `--crlf`: `$` does not match before the `\r` of `\r\n`, and `.` matches `\r`.
pub fn build_lf_line_regex(
    pattern: &str,
    case_insensitive: bool,
) -> Result<Regex, Box<regex_automata::meta::BuildError>> {
    build_lines(pattern, case_insensitive, false)
}

fn build_lines(
    pattern: &str,
    case_insensitive: bool,
    crlf: bool,
) -> Result<Regex, Box<regex_automata::meta::BuildError>> {
    let builder = line_builder(case_insensitive, crlf);
    match line_hir_with(pattern, case_insensitive, crlf) {
        Some(hir) => builder.build_from_hir(&hir).map_err(Box::new),
        // The meta builder reports the same syntax error, in the type callers expect.
        None => builder.build(pattern).map_err(Box::new),
    }
}

/// The builder of line regexes: multi-line, the automaton's size bounded.
fn line_builder(case_insensitive: bool, crlf: bool) -> regex_automata::meta::Builder {
    let mut b = Regex::builder();
    b.syntax(
        syntax::Config::new()
            .multi_line(true)
            .crlf(crlf)
            .case_insensitive(case_insensitive),
    )
    .configure(
        Regex::config()
            .nfa_size_limit(Some(NFA_SIZE_LIMIT))
            .hybrid_cache_capacity(8 * 1024 * 1024),
    );
    b
}

/// `pattern` parsed for line search: multi-line, CRLF-aware anchors, `\n` out of every class.
/// `None` for a syntax error (the regex builder reports it).
pub fn line_hir(pattern: &str, case_insensitive: bool) -> Option<Hir> {
    line_hir_with(pattern, case_insensitive, true)
}

fn line_hir_with(pattern: &str, case_insensitive: bool, crlf: bool) -> Option<Hir> {
    regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .crlf(crlf)
        .case_insensitive(case_insensitive)
        .build()
        .parse(pattern)
        .ok()
        .map(strip_newlines)
}

/// Whether `pattern` can match inside a single line: false when every way it could match
/// needs a literal newline (`foo\nbar`), which a line never contains. Syntax errors count as
/// matching (the compiler reports them).
pub fn can_match_within_a_line(pattern: &str, case_insensitive: bool) -> bool {
    let Some(hir) = line_hir(pattern, case_insensitive) else {
        return true;
    };
    without_newline_literals(hir)
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
        let end = crate::lines::line_end(bytes, start);
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

/// Automata at least this large are searched in slices ([`Sliced`]): a single regex call
/// over a window can then take seconds (a{100}{100}b over a long line of `a`: 85 s per MiB),
/// and only a search that stops between slices can be cancelled or run out of time promptly.
pub const SLICED_MIN_AUTOMATON: usize = 256 * 1024;

/// Bytes searched between two looks at the stop flag in a sliced search. Small: a pattern
/// whose states do not fit the DFA's cache rebuilds them byte after byte, and 1,024 such bytes
/// took over 100 ms in a debug build (a cancelled search ran on past its tenth of a second);
/// one relaxed load per 64 bytes is nothing next to stepping the DFA a byte at a time.
const SLICE: usize = 64;

/// A pattern's lazy DFA, stepped byte by byte so that a search looks at its stop flag every
/// [`SLICE`] bytes whatever the pattern costs. It never gives up (the cache is cleared and
/// refilled instead), so a thrashing pattern costs time, not correctness; where it cannot
/// search (a Unicode word boundary next to non-ASCII text) the caller falls back to the
/// regex engine.
pub struct Sliced {
    dfa: regex_automata::hybrid::dfa::DFA,
}

/// What a sliced search found.
enum Step {
    /// The first match ends at this offset.
    MatchEnd(usize),
    NoMatch,
    /// The stop flag was set.
    Stopped,
    /// The DFA cannot search this text: use the regex engine.
    Quit,
}

impl Sliced {
    /// The sliced searcher for `pattern` if its compiled form `re` is large enough to need one
    /// (and it cannot match a newline, so every match lies within one line).
    pub fn for_pattern(pattern: &str, case_insensitive: bool, re: &Regex) -> Option<Sliced> {
        if re.memory_usage() < SLICED_MIN_AUTOMATON {
            return None;
        }
        Sliced::build(pattern, case_insensitive)
    }

    /// The sliced searcher for `pattern`, whatever its size (`None` if it can match a newline
    /// or does not compile).
    fn build(pattern: &str, case_insensitive: bool) -> Option<Sliced> {
        use regex_automata::{hybrid, nfa::thompson};
        let hir = line_hir(pattern, case_insensitive)?;
        if without_newline_literals(hir.clone()) != hir {
            return None;
        }
        let nfa = thompson::Compiler::new()
            .configure(thompson::Config::new().nfa_size_limit(Some(NFA_SIZE_LIMIT)))
            .build_from_hir(&hir)
            .ok()?;
        let dfa = hybrid::dfa::DFA::builder()
            .configure(
                hybrid::dfa::DFA::config()
                    .cache_capacity(8 * 1024 * 1024)
                    .minimum_cache_clear_count(None)
                    .unicode_word_boundary(true),
            )
            .build_from_nfa(nfa)
            .ok()?;
        Some(Sliced { dfa })
    }

    pub fn create_cache(&self) -> regex_automata::hybrid::dfa::Cache {
        self.dfa.create_cache()
    }

    /// Where the first match in `bytes[from..]` ends.
    fn first_match_end(
        &self,
        cache: &mut regex_automata::hybrid::dfa::Cache,
        bytes: &[u8],
        from: usize,
        stop: Option<&AtomicBool>,
    ) -> Step {
        let input = Input::new(bytes).range(from..);
        let Ok(mut sid) = self.dfa.start_state_forward(cache, &input) else {
            return Step::Quit;
        };
        let mut at = from;
        while at < bytes.len() {
            let slice_end = (at + SLICE).min(bytes.len());
            while at < slice_end {
                sid = match self.dfa.next_state(cache, sid, bytes[at]) {
                    Ok(sid) => sid,
                    Err(_) => return Step::Quit,
                };
                at += 1;
                if sid.is_tagged() {
                    if sid.is_match() {
                        // Match states come one byte late: the match ended before this one.
                        return Step::MatchEnd(at - 1);
                    }
                    if sid.is_dead() {
                        return Step::NoMatch;
                    }
                    if sid.is_quit() {
                        return Step::Quit;
                    }
                }
            }
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return Step::Stopped;
            }
        }
        match self.dfa.next_eoi_state(cache, sid) {
            Ok(sid) if sid.is_match() => Step::MatchEnd(bytes.len()),
            Ok(_) => Step::NoMatch,
            Err(_) => Step::Quit,
        }
    }
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
    sliced: Option<(&'a Sliced, &'a mut regex_automata::hybrid::dfa::Cache)>,
    /// The sliced search stopped on the flag: the iteration is over.
    stopped: bool,
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
            sliced: None,
            stopped: false,
        }
    }

    /// Searches with `sliced` (and its cache) where it can, so that the stop flag is seen
    /// every few kilobytes, not only between windows.
    pub fn sliced(
        mut self,
        sliced: Option<(&'a Sliced, &'a mut regex_automata::hybrid::dfa::Cache)>,
    ) -> MatchingLines<'a> {
        self.sliced = sliced;
        self
    }

    /// The first matching line in `bytes[self.at..end]`: by the sliced DFA if there is one
    /// (`Err` when the stop flag ended it), else (or where it cannot) by the regex.
    fn find_in(&mut self, end: usize) -> Result<Option<LineMatch>, ()> {
        let window = &self.bytes[..end];
        if let Some((sliced, cache)) = self.sliced.as_mut() {
            match sliced.first_match_end(cache, window, self.at, self.stop) {
                Step::MatchEnd(e) => {
                    // The match lies within the line holding its last byte (an empty match:
                    // the line at its position).
                    let p = if e > self.at && window[e - 1] != b'\n' {
                        e - 1
                    } else {
                        e
                    };
                    if p >= window.len() {
                        return Ok(None);
                    }
                    let start = memchr::memrchr(b'\n', &window[..p]).map_or(0, |i| i + 1);
                    let start = start.max(self.at);
                    let stop = crate::lines::line_end(window, start);
                    return Ok(Some(LineMatch { start, end: stop }));
                }
                Step::NoMatch => return Ok(None),
                Step::Stopped => return Err(()),
                Step::Quit => {}
            }
        }
        Ok(next_line_match(self.re, self.cache, window, self.at))
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
        if self.stopped {
            return None;
        }
        let len = self.bytes.len();
        while self.at < len {
            let end = if len - self.at <= self.window {
                len
            } else {
                let want = self.at + self.window;
                crate::lines::cut_after_newline(self.bytes, want)
            };
            let found = match self.find_in(end) {
                Ok(found) => found,
                Err(()) => {
                    self.stopped = true;
                    return None;
                }
            };
            if let Some(m) = found {
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

    /// Patterns the window and slice tests run over their texts.
    const WINDOW_PATTERNS: &[&str] = &[
        "beta",
        "^$",
        "^",
        "$",
        r"\s+",
        r"^\s",
        "a$",
        r"\bbeta\b",
        "end$",
    ];

    #[test]
    fn windows_cut_at_newlines_lose_nothing() {
        let text = "alpha beta\n\ngamma\n  delta\nbeta\r\nend\nxx beta yy\n";
        for &p in WINDOW_PATTERNS {
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

    /// The matching lines with the sliced DFA (if the pattern allows one).
    fn sliced_lines(pattern: &str, text: &str) -> Option<Vec<u64>> {
        let re = build_line_regex(pattern, false).unwrap();
        let sliced = Sliced::build(pattern, false)?;
        let mut cache = re.create_cache();
        let mut dfa_cache = sliced.create_cache();
        Some(
            MatchingLines::new(&re, &mut cache, text.as_bytes(), 0, 1)
                .sliced(Some((&sliced, &mut dfa_cache)))
                .window(7)
                .map(|(n, _)| n)
                .collect(),
        )
    }

    #[test]
    fn the_sliced_search_agrees_with_a_line_by_line_search() {
        let text =
            "alpha beta\n\ngamma\n  delta\nbeta\r\nend\nxx beta yy\nκόσμε beta\n## h\nx\ry\n";
        let more = [
            "^beta$", "^## ", "(?i)BETA", r"\w+$", "x.y", "^y", "κό", r"[^a-z]+", "a{1,3}",
        ];
        for p in WINDOW_PATTERNS.iter().chain(&more) {
            let got = sliced_lines(p, text).unwrap_or_else(|| panic!("{p}: no sliced DFA"));
            assert_eq!(got, naive(p, text), "pattern {p}");
        }
        // A pattern that may match a newline keeps the regex engine.
        assert!(Sliced::build(r"a\n?b", false).is_none());
    }

    #[test]
    fn a_sliced_search_stops_inside_a_long_line() {
        let text = "a".repeat(1 << 20) + "\n";
        let re = build_line_regex("a{100}{100}b", false).unwrap();
        let sliced = Sliced::for_pattern("a{100}{100}b", false, &re).expect("a large automaton");
        let mut cache = re.create_cache();
        let mut dfa_cache = sliced.create_cache();
        let stop = AtomicBool::new(false);
        let t = std::time::Instant::now();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(50));
                stop.store(true, Ordering::Relaxed);
            });
            let found: Vec<_> = MatchingLines::new(&re, &mut cache, text.as_bytes(), 0, 1)
                .sliced(Some((&sliced, &mut dfa_cache)))
                .stop_on(&stop)
                .collect();
            assert!(found.is_empty());
        });
        // The regex engine alone takes over a minute on this line.
        assert!(
            t.elapsed() < std::time::Duration::from_millis(500),
            "{:?}",
            t.elapsed()
        );
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
