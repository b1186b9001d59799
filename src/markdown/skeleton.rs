//! The text the outline parser reads: a document's lines, front matter blanked, and (for
//! speed) most paragraph text replaced by a stand-in that leaves the block structure intact.
//!
//! pulldown-cmark's block pass costs about 8 ns a byte, far too slow for a 50 MB document,
//! and nearly all of it goes into text the outline never looks at. So before parsing,
//! [`skeleton`] rewrites each line whose block role cannot depend on more than its prefix: a
//! line whose text, after its container prefix (blanks, `>` and list markers, kept verbatim),
//! starts with a letter or with punctuation that opens no block becomes that prefix plus `x`;
//! and a line with the same prefix as the reduced line just before it is dropped, since it
//! plays the same role (it continues the same paragraph or code block, or opens a sibling list
//! item, which no heading depends on). Lines are kept whole wherever more than that matters:
//!
//! - every line that may open or close a block: `#`, fences, `<`, `-`/`*`/`+`/`_`/`=` lines,
//!   digits, blank lines, `[` lines that may define a link reference;
//! - the whole run of non-blank lines before a possible setext underline or table delimiter
//!   row (a line of only `=`, `-`, `|`, `:` and blanks), so heading text and table headers
//!   stay exact, and the rest of that run — except after the delimiter row of a plain
//!   top-level table, where the body rows start a new run and reduce like a paragraph;
//! - a run from a line that may open a link reference definition to the next blank line;
//! - HTML blocks: from a line starting with `<` to the blank line, or for comments, `<?`,
//!   `<!X`, CDATA and `<script>`-like blocks, to the line holding their end marker;
//! - lines holding a bare `\r`.
//!
//! Lines end at `\n` only, as everywhere in mapgrep ([`crate::LineIndex`]): a bare `\r` (one
//! followed by neither `\n` nor the end of the text), which pulldown-cmark would read as a
//! line break, is given to it as a blank instead, so two headings never share a line. Vertical
//! tabs and form feeds may follow a setext underline; the skeleton's underline test counts
//! them as blanks.
//!
//! A [`LineMap`] of checkpoints turns a skeleton line number back into the document's (lines
//! are never split or merged, only dropped). [`verbatim`] gives the unreduced text with the
//! same front-matter handling; tests check that both parse to the same headings. The skeleton
//! also notes where the parse may cut it into chunks to run in parallel ([`Prepared::cuts`]).

use rayon::prelude::*;

use super::line_start::lines;
#[cfg(test)]
use super::reduce::push_lossy;
use super::reduce::{Part, State};

/// The text to parse and how its lines map back to the document's.
#[derive(Debug)]
pub(super) struct Prepared {
    pub text: String,
    pub map: LineMap,
    /// Where each line of `text` starts in the document (by text line, from 0).
    pub offsets: Vec<usize>,
    /// Lines in the document (as [`crate::LineIndex`] counts them).
    pub total_lines: u64,
    /// Offsets in `text` where the outline parse may cut it into chunks: starts of ATX heading
    /// lines in the first column that seem to be outside fenced code and HTML blocks, at least
    /// [`CUT_SPACING`] apart. The parse checks each cut it uses.
    pub cuts: Vec<usize>,
}

/// Least distance between two offsets in [`Prepared::cuts`].
const CUT_SPACING: usize = 64 * 1024;

/// Maps line numbers of a [`Prepared`] text to the document's (both 1-based).
#[derive(Debug)]
pub(super) struct LineMap {
    /// `(text line, document line)`: from each checkpoint on, lines correspond one to one.
    checkpoints: Vec<(u64, u64)>,
}

impl LineMap {
    #[cfg(test)]
    fn identity() -> LineMap {
        LineMap {
            checkpoints: vec![(1, 1)],
        }
    }

    /// A cursor for looking up non-decreasing line numbers.
    #[cfg(test)]
    pub fn cursor(&self) -> LineMapCursor<'_> {
        LineMapCursor {
            checkpoints: &self.checkpoints,
            at: 0,
        }
    }

    /// A cursor for looking up non-decreasing line numbers from text line `line` on.
    pub fn cursor_at(&self, line: u64) -> LineMapCursor<'_> {
        LineMapCursor {
            checkpoints: &self.checkpoints,
            at: self.checkpoints.partition_point(|&(t, _)| t <= line).max(1) - 1,
        }
    }
}

/// Looks up text lines in non-decreasing order, in amortised constant time.
pub(super) struct LineMapCursor<'a> {
    checkpoints: &'a [(u64, u64)],
    at: usize,
}

impl LineMapCursor<'_> {
    /// The document line of text line `line`.
    pub fn map(&mut self, line: u64) -> u64 {
        while self.at + 1 < self.checkpoints.len() && self.checkpoints[self.at + 1].0 <= line {
            self.at += 1;
        }
        if self.checkpoints[self.at].0 > line {
            // Out of order: start over (never happens for the outline's lookups).
            self.at = self.checkpoints.partition_point(|&(t, _)| t <= line) - 1;
        }
        let (text_line, doc_line) = self.checkpoints[self.at];
        doc_line + (line - text_line)
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Where the body starts (after a byte order mark) and how many lines of front matter open
/// the document: a first line `---` (YAML) or `+++` (TOML), a non-blank second line, and a
/// closing `---`/`...` or `+++` line, as pulldown-cmark's metadata blocks — but only at the
/// very start, where front matter lives (pulldown-cmark also takes them mid-document).
fn front_matter(bytes: &[u8]) -> (usize, u64) {
    let start = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    let mut it = lines(bytes, start).map(|(s, e)| trim_end(&bytes[s..e]));
    let delim: &[u8] = match it.next() {
        Some(b"---") => b"---",
        Some(b"+++") => b"+++",
        _ => return (start, 0),
    };
    let closes = |l: &[u8]| l == delim || (delim == b"---" && l == b"...");
    match it.next() {
        Some(l) if !l.is_empty() && !closes(l) => {}
        _ => return (start, 0),
    }
    for (i, l) in it.enumerate() {
        if closes(l) {
            return (start, i as u64 + 3);
        }
    }
    (start, 0)
}

fn trim_end(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b' ' | b'\t' | b'\r') {
        end -= 1;
    }
    &line[..end]
}

#[cfg(test)]
fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', bytes).count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// The whole document as text (lossily decoded), front matter blanked.
#[cfg(test)]
pub(super) fn verbatim(bytes: &[u8]) -> Prepared {
    let (start, fm_lines) = front_matter(bytes);
    let mut text = String::with_capacity(bytes.len());
    let mut pos = start;
    for (_, end) in lines(bytes, start).take(fm_lines as usize) {
        text.push('\n');
        pos = end + 1;
    }
    if pos < bytes.len() {
        push_lossy(&mut text, &bytes[pos..]);
    }
    Prepared {
        text,
        map: LineMap::identity(),
        offsets: lines(bytes, start).map(|(s, _)| s).collect(),
        total_lines: count_lines(bytes),
        cuts: Vec::new(),
    }
}

/// Documents at least this long have their skeleton built in parallel parts.
const PARALLEL_MIN: usize = 1 << 20;

/// The skeleton of the document (see the module docs).
pub(super) fn skeleton(bytes: &[u8]) -> Prepared {
    let parts = (bytes.len() / PARALLEL_MIN).min(256);
    skeleton_with(bytes, CUT_SPACING, parts)
}

/// [`skeleton`], with cut candidates at least `cut_spacing` bytes apart, built in up to
/// `parts` parts.
///
/// The parts start after blank lines, where a builder's state is empty but for an HTML block
/// that runs to a marker and the fence it tracks; they are built in parallel from an empty
/// state, and a part whose predecessor ended with either open is built again, after it, from
/// the right state.
pub(super) fn skeleton_with(bytes: &[u8], cut_spacing: usize, parts: usize) -> Prepared {
    let (start, fm_lines) = front_matter(bytes);
    let has_cr = memchr::memchr(b'\r', bytes).is_some();
    // Where the front matter ends: parts may not start before.
    let body = lines(bytes, start)
        .take(fm_lines as usize)
        .last()
        .map_or(start, |(_, e)| (e + 1).min(bytes.len()));
    let mut bounds = vec![start];
    for i in 1..parts.max(1) {
        let target = body
            .max(bytes.len() / parts * i)
            .max(bounds[bounds.len() - 1]);
        match memchr::memmem::find(&bytes[target..], b"\n\n") {
            Some(j) if target + j + 2 < bytes.len() => bounds.push(target + j + 2),
            _ => break,
        }
    }
    bounds.push(bytes.len());
    let build = |k: usize, state: State| {
        let fm = if k == 0 { fm_lines } else { 0 };
        Part::build(
            bytes,
            bounds[k]..bounds[k + 1],
            fm,
            has_cr,
            cut_spacing,
            state,
        )
    };
    let mut built: Vec<Part> = (0..bounds.len() - 1)
        .into_par_iter()
        .map(|k| build(k, State::default()))
        .collect();
    for k in 1..built.len() {
        let end = built[k - 1].end;
        if end != State::default() {
            built[k] = build(k, end);
        }
    }
    let mut text = String::with_capacity(built.iter().map(|p| p.text.len()).sum());
    let mut checkpoints = Vec::new();
    let mut offsets = Vec::with_capacity(built.iter().map(|p| p.offsets.len()).sum());
    let mut cuts = Vec::new();
    let (mut text_lines, mut doc_lines) = (0, 0);
    for part in built {
        cuts.extend(part.cuts.iter().map(|c| c + text.len()));
        checkpoints.extend(
            part.checkpoints
                .iter()
                .map(|&(t, d)| (t + text_lines, d + doc_lines)),
        );
        text.push_str(&part.text);
        offsets.extend_from_slice(&part.offsets);
        text_lines += part.text_lines;
        doc_lines += part.doc_lines;
    }
    Prepared {
        text,
        map: LineMap { checkpoints },
        offsets,
        // A document that is only a byte order mark is one (empty) line, as LineIndex has it.
        total_lines: doc_lines.max(u64::from(!bytes.is_empty())),
        cuts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(p: &Prepared) -> Vec<&str> {
        p.text.lines().collect()
    }

    #[test]
    fn reduces_paragraph_text_and_keeps_structure() {
        let doc = "# Title\n\nSome text here.\nMore text.\nEven more.\n\n- item one\n  continued\n  again\n\n> quoted\n> more\n";
        let p = skeleton(doc.as_bytes());
        assert_eq!(
            lines_of(&p),
            ["# Title", "", "x", "", "- x", "  x", "", "> x",]
        );
        let mut m = p.map.cursor();
        assert_eq!(m.map(1), 1);
        assert_eq!(m.map(3), 3);
        assert_eq!(m.map(4), 6);
        assert_eq!(m.map(5), 7);
        assert_eq!(m.map(6), 8);
        assert_eq!(m.map(7), 10);
        assert_eq!(m.map(8), 11);
        assert_eq!(p.total_lines, 12);
    }

    #[test]
    fn keeps_runs_before_underlines_whole() {
        let doc = "Intro line\nA heading\n=========\nafter\n";
        let p = skeleton(doc.as_bytes());
        assert_eq!(
            lines_of(&p),
            ["Intro line", "A heading", "=========", "after"]
        );
        // A table's header and delimiter rows stay; its body reduces like a paragraph...
        let doc = "| a | b |\n|---|---|\n| c | d |\n| e | f |\n";
        assert_eq!(
            lines_of(&skeleton(doc.as_bytes())),
            ["| a | b |", "|---|---|", "x"]
        );
        // ...unless an underline follows, which may make it heading text.
        let doc = "| a | b |\n|---|---|\n| c | d |\n---\n";
        assert_eq!(
            lines_of(&skeleton(doc.as_bytes())),
            ["| a | b |", "|---|---|", "| c | d |", "---"]
        );
    }

    #[test]
    fn keeps_reference_definitions_and_html_whole() {
        let doc = "[foo]: /url\n  \"title\"\nbar\n\n<!--\ncomment\n\nstill -->\nafter\n";
        let p = skeleton(doc.as_bytes());
        assert_eq!(
            lines_of(&p),
            [
                "[foo]: /url",
                "  \"title\"",
                "bar",
                "",
                "<!--",
                "comment",
                "",
                "still -->",
                "x"
            ]
        );
    }

    #[test]
    fn front_matter_is_blanked_only_at_the_start() {
        let doc = "---\ntitle: x\n# not a heading\n---\n# Real\n";
        let p = verbatim(doc.as_bytes());
        assert_eq!(p.text, "\n\n\n\n# Real\n");
        let p = skeleton(doc.as_bytes());
        assert_eq!(lines_of(&p), ["", "", "", "", "# Real"]);
        // No closing line, or a blank second line: not front matter.
        assert_eq!(front_matter(b"---\ntitle: x\n# H\n"), (0, 0));
        assert_eq!(front_matter(b"---\n\n# H\n---\n"), (0, 0));
        assert_eq!(front_matter(b"\xEF\xBB\xBF+++\na = 1\n+++\n"), (3, 3));
        assert_eq!(front_matter(b"---\na: 1\n...\n"), (0, 3));
    }
}
