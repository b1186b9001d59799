//! The command line's matching and printing, as ripgrep prints: `path:line:text` lines with
//! `-` for context and `--` between groups, headings and colour, counts, file lists, only the
//! matches, vimgrep lines, and ripgrep's JSON Lines events (with mapgrep's section and symbol
//! as extra fields). Each file is rendered on its own (files are searched in parallel) and
//! [`Printer::write_all`] writes them in order.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use regex_automata::Input;
use regex_automata::meta::Regex;

use crate::grep::{GrepError, GrepQuery};
use crate::workspace::Workspace;

/// The compiled patterns: a line regex, or with `-U` a regex that may match `\n`.
pub struct Matcher {
    pub(super) re: Arc<Regex>,
    multiline: bool,
}

impl Matcher {
    /// Compiles the query's pattern; errors (a bad regex, a pattern that needs a line break
    /// without `-U`) come worded by the engine in the command line's words.
    pub fn new(
        ws: &Workspace,
        q: &GrepQuery,
        pattern: &str,
        ci: bool,
        multiline: bool,
        crlf: bool,
    ) -> Result<Matcher, GrepError> {
        if !multiline {
            let re = crate::grep::compile_check(ws, q)?;
            if crlf {
                return Ok(Matcher { re, multiline });
            }
            // Without --crlf, `\n` alone ends a line, as in ripgrep (the engine's own line
            // regex, which compiled above, treats `\r\n` as one terminator).
            return match crate::matcher::build_lf_line_regex(pattern, ci) {
                Ok(re) => Ok(Matcher {
                    re: Arc::new(re),
                    multiline,
                }),
                Err(_) => Ok(Matcher { re, multiline }),
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
            Ok(re) => Ok(Matcher {
                re: Arc::new(re),
                multiline,
            }),
            // The engine words a syntax error; its line-break complaint does not apply here.
            Err(_) => crate::grep::compile_check(ws, q).map(|re| Matcher { re, multiline }),
        }
    }
}

/// mapgrep's extras for one hit (`--hints`): the section's end and start, the markdown
/// section, the enclosing symbol.
#[derive(Clone, Debug, Default)]
pub struct Extras {
    /// The section's last line and the boundary pattern after it.
    pub section_end: Option<(u64, Option<String>)>,
    pub section_start: Option<u64>,
    /// Markdown: slug, first and last line.
    pub section: Option<(String, u64, u64)>,
    /// Code: name, kind, first and last line.
    pub symbol: Option<(String, String, u64, u64)>,
}

/// Counts, per file and in total.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub matches: u64,
    pub matched_lines: u64,
    pub files_with_match: u64,
    pub files_printed: u64,
    pub bytes_searched: u64,
    pub bytes_printed: u64,
}

/// One file's rendered output.
pub struct FileOut {
    /// The position of its path among those given (files print in that order, then by name).
    pub order: usize,
    pub name: String,
    pub out: Vec<u8>,
    /// Each selected line's number and where its group ends in `out` (for a total cap).
    pub selected: Vec<(u64, usize)>,
    /// The output has groups separated like context groups (so files are too).
    pub stats: Stats,
    pub(super) elapsed_nanos: u128,
}

/// How to print.
pub struct Printer<'a> {
    pub matcher: &'a Matcher,
    pub invert: bool,
    pub only_matching: bool,
    pub count: bool,
    pub count_matches: bool,
    pub files_with_matches: bool,
    pub files_without_match: bool,
    pub quiet: bool,
    pub max_count: Option<u64>,
    pub before: usize,
    pub after: usize,
    pub line_numbers: bool,
    pub with_filename: bool,
    pub heading: bool,
    pub color: bool,
    pub vimgrep: bool,
    pub max_columns: Option<usize>,
    pub json: bool,
    pub extras: &'a HashMap<(String, u64), Extras>,
}

/// A selected line: its number, byte range (without `\n`), and its matches in it.
pub(super) struct Sel {
    pub(super) line: u64,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) subs: Vec<(usize, usize)>,
}

const PATH: &str = "\x1b[0m\x1b[35m";
const LINE: &str = "\x1b[0m\x1b[32m";
const MATCH: &str = "\x1b[0m\x1b[1m\x1b[31m";
const RESET: &str = "\x1b[0m";

impl Printer<'_> {
    pub(super) fn counting(&self) -> bool {
        self.count
            || self.count_matches
            || self.files_with_matches
            || self.files_without_match
            || self.quiet
    }

    fn context(&self) -> bool {
        (self.before > 0 || self.after > 0) && !self.counting()
    }

    /// Renders one file.
    pub fn file(&self, order: usize, name: &str, bytes: &[u8]) -> FileOut {
        let started = Instant::now();
        let sels = self.select(bytes);
        let mut f = FileOut {
            order,
            name: name.to_string(),
            out: Vec::new(),
            selected: Vec::new(),
            stats: Stats {
                bytes_searched: bytes.len() as u64,
                ..Stats::default()
            },
            elapsed_nanos: 0,
        };
        f.stats.matched_lines = sels.len() as u64;
        // A search stopped by -m read the file only up to its last selected line.
        if let (Some(max), Some(last)) = (self.max_count, sels.last())
            && sels.len() as u64 >= max
        {
            f.stats.bytes_searched = (last.end + 1).min(bytes.len()) as u64;
        }
        f.stats.matches = if self.invert {
            0
        } else {
            sels.iter().map(|s| s.subs.len().max(1) as u64).sum()
        };
        f.stats.files_with_match = u64::from(!sels.is_empty());
        if self.json {
            self.json_file(&mut f, bytes, &sels);
        } else if self.counting() {
            self.counts(&mut f);
        } else if !sels.is_empty() {
            self.lines(&mut f, bytes, &sels);
        }
        f.elapsed_nanos = started.elapsed().as_nanos();
        f
    }

    /// The selected lines, up to `-m` of them.
    fn select(&self, bytes: &[u8]) -> Vec<Sel> {
        let re = &*self.matcher.re;
        let max = self.max_count.unwrap_or(u64::MAX);
        let mut out = Vec::new();
        if max == 0 {
            return out;
        }
        if self.invert {
            for (n, (start, end)) in (1..).zip(line_ranges(bytes)) {
                if !re.is_match(Input::new(&bytes[start..end])) {
                    out.push(Sel {
                        line: n,
                        start,
                        end,
                        subs: Vec::new(),
                    });
                    if out.len() as u64 >= max {
                        break;
                    }
                }
            }
            return out;
        }
        // A large file is searched in chunks (cut after a `\n`) on all cores, as the engine
        // searches one; a pattern that may span lines (-U) or a search that stops early (-m)
        // reads it in one pass.
        if bytes.len() >= CHUNKED && !self.matcher.multiline && self.max_count.is_none() {
            let bounds = chunk_bounds(bytes, CHUNK);
            let parts: Vec<(Vec<Sel>, u64)> = bounds
                .par_windows(2)
                .map(|w| {
                    let sels = self.select_in(bytes, w[0], w[1], u64::MAX);
                    let lines = memchr::memchr_iter(b'\n', &bytes[w[0]..w[1]]).count() as u64;
                    (sels, lines)
                })
                .collect();
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
        self.select_in(bytes, 0, bytes.len(), max)
    }

    /// The selected lines of `bytes[from..to]` (`from` starts a line, `to` ends one or the
    /// text), up to `max`; line numbers count from 1 at `from`.
    fn select_in(&self, bytes: &[u8], from: usize, to: usize, max: u64) -> Vec<Sel> {
        let re = &*self.matcher.re;
        let mut out = Vec::new();
        let subs_of = |line: &[u8]| -> Vec<(usize, usize)> {
            re.find_iter(Input::new(line))
                .filter(|m| !m.is_empty() || line.is_empty() || m.start() < line.len())
                .map(|m| (m.start(), m.end()))
                .collect()
        };
        let mut counter = LineCounter { pos: from, line: 0 };
        let mut pos = from;
        while pos < to {
            let Some(m) = re.search(&Input::new(bytes).range(pos..to)) else {
                break;
            };
            // The empty text after the last `\n` is no line (and an empty match at a chunk's
            // end is the next chunk's).
            if m.start() == to && (to < bytes.len() || bytes.ends_with(b"\n")) {
                break;
            }
            let ls = memchr::memrchr(b'\n', &bytes[from..m.start()]).map_or(from, |i| from + i + 1);
            let last = if self.matcher.multiline && m.end() > m.start() {
                m.end() - 1
            } else {
                m.start()
            };
            let le = crate::lines::line_end(bytes, last);
            let mut line = counter.line_at(bytes, ls);
            let mut s = ls;
            // A match over several lines (-U) selects each of them.
            loop {
                let e = memchr::memchr(b'\n', &bytes[s..le]).map_or(le, |i| s + i);
                let subs = if self.matcher.multiline {
                    clip(m.start(), m.end(), s, e)
                } else {
                    subs_of(&bytes[s..e])
                };
                out.push(Sel {
                    line,
                    start: s,
                    end: e,
                    subs,
                });
                if out.len() as u64 >= max || e >= le {
                    break;
                }
                s = e + 1;
                line += 1;
            }
            if out.len() as u64 >= max {
                break;
            }
            pos = le + 1;
        }
        out
    }

    fn counts(&self, f: &mut FileOut) {
        let name = f.name.clone();
        let n = if self.count_matches || self.only_matching {
            f.stats.matches
        } else {
            f.stats.matched_lines
        };
        let has = f.stats.matched_lines > 0;
        if self.quiet {
            return;
        }
        if self.files_with_matches && has || self.files_without_match && !has {
            self.path(&mut f.out, &name);
            f.out.push(b'\n');
            f.stats.files_printed = 1;
        } else if (self.count || self.count_matches)
            && !self.files_with_matches
            && !self.files_without_match
            && has
        {
            if self.with_filename {
                self.path(&mut f.out, &name);
                f.out.push(b':');
            }
            let _ = writeln!(f.out, "{n}");
            f.stats.files_printed = 1;
        }
    }

    /// The text lines: selected lines with their context, `--` between groups.
    fn lines(&self, f: &mut FileOut, bytes: &[u8], sels: &[Sel]) {
        let name = f.name.clone();
        if self.heading && self.with_filename {
            self.path(&mut f.out, &name);
            f.out.push(b'\n');
        }
        // The last line printed: its number and the byte after it.
        let mut last: Option<(u64, usize)> = None;
        let mut after_left = 0;
        for sel in sels {
            // The previous selected line's trailing context, up to this one.
            if let Some((n, end)) = last {
                let mut n = n;
                let mut pos = end;
                while after_left > 0 && n + 1 < sel.line && pos < bytes.len() {
                    let e = crate::lines::line_end(bytes, pos);
                    self.line(&mut f.out, &name, n + 1, &bytes[pos..e], &[], b'-');
                    n += 1;
                    pos = e + 1;
                    after_left -= 1;
                }
                last = Some((n, pos));
            }
            // This one's leading context, after what is already printed.
            let floor = last.map_or(1, |(n, _)| n + 1);
            let mut starts = Vec::new();
            let mut s = sel.start;
            let mut n = sel.line;
            while n > floor && starts.len() < self.before && s > 0 {
                let ps = memchr::memrchr(b'\n', &bytes[..s - 1]).map_or(0, |i| i + 1);
                starts.push((n - 1, ps, s - 1));
                s = ps;
                n -= 1;
            }
            let first = starts.last().map_or(sel.line, |t| t.0);
            if self.context()
                && let Some((ln, _)) = last
                && first > ln + 1
            {
                f.out.extend_from_slice(b"--\n");
            }
            for &(n, s, e) in starts.iter().rev() {
                self.line(&mut f.out, &name, n, &bytes[s..e], &[], b'-');
            }
            self.selected(&mut f.out, &name, bytes, sel);
            f.selected.push((sel.line, f.out.len()));
            last = Some((sel.line, (sel.end + 1).min(bytes.len() + 1)));
            after_left = self.after;
        }
        // After the last selected line (-m stops the search there), a line of the trailing
        // context that matches is shown as a match, as ripgrep shows it.
        if let Some((mut n, mut pos)) = last {
            while after_left > 0 && pos < bytes.len() {
                let e = crate::lines::line_end(bytes, pos);
                let text = &bytes[pos..e];
                let re = &*self.matcher.re;
                if !self.invert && re.is_match(Input::new(text)) {
                    let subs: Vec<_> = re
                        .find_iter(Input::new(text))
                        .map(|m| (m.start(), m.end()))
                        .collect();
                    self.line(&mut f.out, &name, n + 1, text, &subs, b':');
                } else {
                    self.line(&mut f.out, &name, n + 1, text, &[], b'-');
                }
                n += 1;
                pos = e + 1;
                after_left -= 1;
            }
        }
        f.stats.files_printed = 1;
    }

    /// A selected line: whole, only its matches (-o), or one line per match (--vimgrep).
    fn selected(&self, out: &mut Vec<u8>, name: &str, bytes: &[u8], sel: &Sel) {
        let text = &bytes[sel.start..sel.end];
        if self.only_matching || self.vimgrep {
            for &(s, e) in &sel.subs {
                if s == e {
                    continue;
                }
                self.prefix(out, name, sel.line, b':');
                if self.vimgrep {
                    if self.color {
                        let _ = write!(out, "{RESET}{}{RESET}:", s + 1);
                    } else {
                        let _ = write!(out, "{}:", s + 1);
                    }
                    self.text(out, text, &sel.subs);
                } else {
                    self.text(out, &text[s..e], &[(0, e - s)]);
                }
                out.push(b'\n');
            }
        } else {
            self.line(out, name, sel.line, text, &sel.subs, b':');
        }
        if let Some(x) = self.extras.get(&(name.to_string(), sel.line)) {
            hint_line(out, x);
        }
    }

    fn line(
        &self,
        out: &mut Vec<u8>,
        name: &str,
        n: u64,
        text: &[u8],
        subs: &[(usize, usize)],
        sep: u8,
    ) {
        self.prefix(out, name, n, sep);
        match self.max_columns {
            // ripgrep counts the line terminator in the line's length.
            Some(max) if text.len() >= max => {
                if sep == b':' {
                    out.extend_from_slice(b"[Omitted long matching line]");
                } else {
                    out.extend_from_slice(b"[Omitted long context line]");
                }
            }
            _ => self.text(out, text, subs),
        }
        out.push(b'\n');
    }

    fn prefix(&self, out: &mut Vec<u8>, name: &str, n: u64, sep: u8) {
        if self.with_filename && !self.heading {
            self.path(out, name);
            out.push(sep);
        }
        if self.line_numbers {
            if self.color {
                let _ = write!(out, "{LINE}{n}{RESET}");
            } else {
                let _ = write!(out, "{n}");
            }
            out.push(sep);
        }
    }

    fn path(&self, out: &mut Vec<u8>, name: &str) {
        if self.color {
            let _ = write!(out, "{PATH}{name}{RESET}");
        } else {
            out.extend_from_slice(name.as_bytes());
        }
    }

    /// A line's text, its matches highlighted when colouring.
    fn text(&self, out: &mut Vec<u8>, text: &[u8], subs: &[(usize, usize)]) {
        if !self.color || subs.is_empty() {
            out.extend_from_slice(text);
            return;
        }
        let mut at = 0;
        for &(s, e) in subs {
            if s < at || s == e {
                continue;
            }
            out.extend_from_slice(&text[at..s]);
            out.extend_from_slice(MATCH.as_bytes());
            out.extend_from_slice(&text[s..e]);
            out.extend_from_slice(RESET.as_bytes());
            at = e;
        }
        out.extend_from_slice(&text[at..]);
    }

    /// Writes the files' outputs in order, separated as ripgrep separates them, up to `cap`
    /// selected lines in all; returns the totals.
    pub fn write_all(
        &self,
        out: &mut impl Write,
        files: &[FileOut],
        cap: Option<u64>,
    ) -> std::io::Result<Stats> {
        let mut total = Stats::default();
        let mut first = true;
        let mut left = cap.unwrap_or(u64::MAX);
        for f in files {
            total.matches += f.stats.matches;
            total.bytes_searched += f.stats.bytes_searched;
            total.files_with_match += f.stats.files_with_match;
            if f.out.is_empty() {
                continue;
            }
            if left == 0 {
                if let Some(&(line, _)) = f.selected.first() {
                    eprintln!(
                        "mapgrep: stopped at {} matching lines; the next is {}:{line}",
                        total.matched_lines, f.name
                    );
                }
                break;
            }
            if !first && !self.json && !self.counting() {
                if self.heading {
                    out.write_all(b"\n")?;
                    total.bytes_printed += 1;
                } else if self.context() {
                    out.write_all(b"--\n")?;
                    total.bytes_printed += 3;
                }
            }
            first = false;
            let mut text = &f.out[..];
            let mut lines = f.stats.matched_lines;
            if !self.json && !self.counting() && lines > left {
                let (next, _) = f.selected[left as usize];
                text = &f.out[..f.selected[left as usize - 1].1];
                lines = left;
                eprintln!(
                    "mapgrep: stopped at {} matching lines; the next is {}:{next}",
                    total.matched_lines + lines,
                    f.name
                );
                out.write_all(text)?;
                total.matched_lines += lines;
                total.bytes_printed += text.len() as u64;
                total.files_printed += f.stats.files_printed;
                break;
            }
            left = left.saturating_sub(lines);
            out.write_all(text)?;
            if self.json {
                self.json_end(out, f)?;
            }
            total.matched_lines += lines;
            total.bytes_printed += text.len() as u64;
            total.files_printed += f.stats.files_printed;
        }
        // Files without output still count as searched and matched (for -L, -q, counts).
        if cap.is_none() {
            total.matched_lines = files.iter().map(|f| f.stats.matched_lines).sum();
        }
        Ok(total)
    }
}

/// A compact line after a hit: its section (start, end, the boundary after it) and its
/// enclosing symbol.
fn hint_line(out: &mut Vec<u8>, x: &Extras) {
    let mut parts = Vec::new();
    if let Some((slug, a, b)) = &x.section {
        parts.push(format!("section #{slug} (lines {a}-{b})"));
    } else if let Some((end, next)) = &x.section_end {
        let from = x
            .section_start
            .map_or(String::new(), |s| format!("from line {s} "));
        match next {
            Some(p) => parts.push(format!("section {from}to line {end} (next {p})")),
            None => parts.push(format!("section {from}to line {end} (end of file)")),
        }
    }
    if let Some((name, kind, a, b)) = &x.symbol {
        parts.push(format!("in {kind} {name} (lines {a}-{b})"));
    }
    if !parts.is_empty() {
        let _ = writeln!(out, "    ↳ {}", parts.join("; "));
    }
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

/// `0`, the offsets just after the first `\n` at or past each multiple of `size`, and the
/// length: consecutive pairs bound whole lines.
fn chunk_bounds(bytes: &[u8], size: usize) -> Vec<usize> {
    let mut bounds = vec![0];
    let mut at = size;
    while at < bytes.len() {
        match memchr::memchr(b'\n', &bytes[at..]) {
            Some(i) if at + i + 1 < bytes.len() => {
                bounds.push(at + i + 1);
                at += i + 1 + size;
            }
            _ => break,
        }
    }
    bounds.push(bytes.len());
    bounds
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

/// `-z`: the text of a compressed file (by its extension), through the format's own tool;
/// `None` for other files or when the tool fails.
pub fn decompress(name: &str, bytes: &[u8]) -> Option<Vec<u8>> {
    let tool = [
        (".gz", "gzip"),
        (".tgz", "gzip"),
        (".bz2", "bzip2"),
        (".xz", "xz"),
        (".lzma", "xz"),
        (".zst", "zstd"),
        (".lz4", "lz4"),
        (".br", "brotli"),
    ]
    .iter()
    .find(|(ext, _)| name.ends_with(ext))?
    .1;
    let mut child = std::process::Command::new(tool)
        .args(["-d", "-c"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    out.status.success().then_some(out.stdout)
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
