//! The command line's matching and printing, as ripgrep prints: `path:line:text` lines with
//! `-` for context and `--` between groups, headings and colour, counts, file lists, only the
//! matches, vimgrep lines, and ripgrep's JSON Lines events (with mapgrep's section and symbol
//! as extra fields). Each file is rendered on its own (files are searched in parallel) and
//! [`Printer::write_all`] writes them in order.

use std::io::Write;
use std::time::Instant;

use std::path::Path;

use crate::annotate::{Hint, Hinter};
use crate::grep::{Sel, Selector};
use crate::index::Span;
use crate::source::FileId;
use crate::workspace::Workspace;

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
    pub matcher: &'a Selector,
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
    /// `--hints`: each hit's section and enclosing symbol, by the engine's one rule.
    pub hints: Option<(&'a Workspace, &'a Hinter)>,
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

    pub(super) fn context(&self) -> bool {
        (self.before > 0 || self.after > 0) && !self.counting()
    }

    /// Renders one file; `name` makes its display name, asked only when something is printed
    /// (most files of a search print nothing).
    /// `at`: where the bytes were read, their identity (for the hints) and the only parts of
    /// them that can hold a match as the index knows them; `None` for standard input and
    /// decompressed bytes.
    pub fn file(
        &self,
        order: usize,
        (name, bytes): (&dyn Fn() -> String, &[u8]),
        at: Option<(&Path, FileId, Option<&[Span]>)>,
    ) -> FileOut {
        // Only JSON's `end` event tells a file's time (a clock read per file is not free).
        let started = self.json.then(Instant::now);
        let spans = at.and_then(|a| a.2);
        let sels = self
            .matcher
            .select(bytes, self.invert, self.max_count, spans);
        let name = if sels.is_empty() && !self.counting() && !self.json {
            String::new()
        } else {
            name()
        };
        let hints = self.hints_of(at.map(|a| (a.0, a.1)), bytes, &sels);
        let mut f = FileOut {
            order,
            name,
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
            self.json_file(&mut f, bytes, &sels, &hints);
        } else if self.counting() {
            self.counts(&mut f);
        } else if !sels.is_empty() {
            self.lines(&mut f, bytes, &sels, &hints);
        }
        f.elapsed_nanos = started.map_or(0, |t| t.elapsed().as_nanos());
        f
    }

    /// `--hints`: the hints of the selected lines (empty without `--hints`).
    fn hints_of(&self, at: Option<(&Path, FileId)>, bytes: &[u8], sels: &[Sel]) -> Vec<Hint> {
        let Some((ws, hinter)) = self.hints.filter(|_| !sels.is_empty()) else {
            return Vec::new();
        };
        let lines: Vec<(u64, usize, usize)> =
            sels.iter().map(|s| (s.line, s.start, s.end)).collect();
        hinter.file(ws, at, bytes, &lines)
    }

    fn counts(&self, f: &mut FileOut) {
        // Shown once per file: quoted if it could pass for other lines or fields.
        let name = crate::quote::name(&f.name).into_owned();
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
    fn lines(&self, f: &mut FileOut, bytes: &[u8], sels: &[Sel], hints: &[Hint]) {
        // Shown once per file: quoted if it could pass for other lines or fields.
        let name = crate::quote::name(&f.name).into_owned();
        if self.heading && self.with_filename {
            self.path(&mut f.out, &name);
            f.out.push(b'\n');
        }
        // The last line printed: its number and the byte after it.
        let mut last: Option<(u64, usize)> = None;
        let mut after_left = 0;
        for (k, sel) in sels.iter().enumerate() {
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
            let starts = crate::grep::lines_before(bytes, sel.start, sel.line, floor, self.before);
            let first = starts.first().map_or(sel.line, |t| t.0);
            if self.context()
                && let Some((ln, _)) = last
                && first > ln + 1
            {
                f.out.extend_from_slice(b"--\n");
            }
            for &(n, s, e) in &starts {
                self.line(&mut f.out, &name, n, &bytes[s..e], &[], b'-');
            }
            self.selected(&mut f.out, &name, bytes, sel);
            if let Some(h) = hints.get(k) {
                hint_line(&mut f.out, h);
            }
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
                let subs = self.matcher.matches_in(text);
                if !self.invert && !subs.is_empty() {
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

    /// A file's name as shown: [`crate::quote::name`] of it (where ripgrep prints it raw).
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
}

/// A compact line after a hit: its section (first and last line, the boundary after it),
/// its markdown section and its enclosing symbol: the values `grep_content` gives.
fn hint_line(out: &mut Vec<u8>, h: &Hint) {
    let mut parts = Vec::new();
    if let Some(s) = &h.section_end_hint {
        let lines = match s.start_line {
            Some(a) => format!("lines {a}-{}", s.end_line),
            None => format!("to line {}", s.end_line),
        };
        match &s.next {
            Some(p) => parts.push(format!("section {lines} (next {p})")),
            None => parts.push(format!("section {lines} (end of file)")),
        }
    }
    if let Some(s) = &h.section {
        parts.push(format!(
            "#{} (lines {}-{})",
            s.slug, s.start_line, s.end_line
        ));
    }
    if let Some(s) = &h.symbol {
        parts.push(format!(
            "in {} {} (lines {}-{})",
            s.kind,
            crate::quote::name(&s.name),
            s.start_line,
            s.end_line
        ));
    }
    if !parts.is_empty() {
        let _ = writeln!(out, "    ↳ {}", parts.join("; "));
    }
}
