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

use std::ops::Range;

use rayon::prelude::*;

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

/// Splits `bytes` at `\n`: `(start, end)` of each line, terminator excluded.
fn lines(bytes: &[u8], from: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut pos = from;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        let end = crate::lines::line_end(bytes, pos);
        pos = end + 1;
        Some((start, end))
    })
}

/// A line without its trailing `\r`.
fn content(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Blanks that may end a setext underline as pulldown-cmark reads the skeleton: spaces, tabs,
/// vertical tabs, form feeds, and bare `\r` (given to it as a blank, see the module docs).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\x0b' | b'\x0c' | b'\r')
}

/// A blank line: blanks and bare `\r` only. Not vertical tabs or form feeds: pulldown-cmark
/// lets a paragraph run on over a line of them.
fn is_blank(line: &[u8]) -> bool {
    content(line)
        .iter()
        .all(|&b| matches!(b, b' ' | b'\t' | b'\r'))
}

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

/// Appends `bytes` lossily decoded, each bare `\r` (one followed by neither `\n` nor the end
/// of `bytes`) as a blank. A line passed without its `\n` keeps its final `\r`.
fn push_lossy(text: &mut String, bytes: &[u8]) {
    let last = bytes.len().saturating_sub(1);
    let mut bare = memchr::memchr_iter(b'\r', bytes).filter(|&i| i < last && bytes[i + 1] != b'\n');
    if let Some(first) = bare.next() {
        let mut owned = bytes.to_vec();
        owned[first] = b' ';
        for i in bare {
            owned[i] = b' ';
        }
        return push_decoded(text, &owned);
    }
    push_decoded(text, bytes);
}

fn push_decoded(text: &mut String, bytes: &[u8]) {
    // The strict check is the fast path: lossy decoding walks chunk by chunk.
    match std::str::from_utf8(bytes) {
        Ok(s) => text.push_str(s),
        Err(_) => text.push_str(&String::from_utf8_lossy(bytes)),
    }
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

/// What a builder carries across blank lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct State {
    html_end: Option<HtmlEnd>,
    fence: Option<(u8, usize)>,
}

/// The skeleton of a range of whole lines, numbered from 1.
struct Part {
    text: String,
    checkpoints: Vec<(u64, u64)>,
    offsets: Vec<usize>,
    text_lines: u64,
    doc_lines: u64,
    cuts: Vec<usize>,
    /// The state after the last line.
    end: State,
}

impl Part {
    fn build(
        bytes: &[u8],
        range: Range<usize>,
        fm_lines: u64,
        has_cr: bool,
        cut_spacing: usize,
        state: State,
    ) -> Part {
        let mut b = Builder {
            bytes,
            text: String::with_capacity(range.len() / 8 + 64),
            checkpoints: vec![(1, 1)],
            offsets: Vec::with_capacity(range.len() / 64),
            next_text_line: 1,
            run: None,
            run_full: false,
            ref_zone: false,
            block_zone: false,
            html_end: state.html_end,
            collapse_prefix: None,
            has_cr,
            fence: state.fence,
            cuts: Vec::new(),
            cut_spacing,
        };
        let mut doc_line = 0;
        for (s, e) in lines(&bytes[..range.end], range.start) {
            doc_line += 1;
            if doc_line <= fm_lines {
                b.emit(doc_line, s, b"");
            } else {
                b.line(doc_line, s, e);
            }
        }
        Part {
            text_lines: b.next_text_line - 1,
            doc_lines: doc_line,
            end: State {
                html_end: b.html_end,
                fence: b.fence,
            },
            text: b.text,
            checkpoints: b.checkpoints,
            offsets: b.offsets,
            cuts: b.cuts,
        }
    }
}

/// Where the current run of non-blank lines started, to re-emit it whole.
#[derive(Clone, Copy)]
struct RunStart {
    doc_line: u64,
    offset: usize,
    text_len: usize,
    text_line: u64,
    checkpoints: usize,
}

/// End markers of HTML blocks that may span blank lines (CommonMark types 1 to 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HtmlEnd {
    /// `</script>`, `</pre>`, `</style>` or `</textarea>`, any case.
    RawTag,
    Marker(&'static [u8]),
}

struct Builder<'a> {
    bytes: &'a [u8],
    text: String,
    checkpoints: Vec<(u64, u64)>,
    /// Document offset of each emitted line.
    offsets: Vec<usize>,
    next_text_line: u64,
    run: Option<RunStart>,
    /// The current run is being kept whole.
    run_full: bool,
    /// A link reference definition may be open: keep lines whole to the next blank line.
    ref_zone: bool,
    /// An HTML block that ends at a blank line may be open.
    block_zone: bool,
    /// An HTML block that ends at a marker may be open.
    html_end: Option<HtmlEnd>,
    /// Prefix `(start, end)` of the last line if it was reduced.
    collapse_prefix: Option<(usize, usize)>,
    /// The document holds a `\r` somewhere.
    has_cr: bool,
    /// A top-level fenced code block seems open: its fence character and length.
    fence: Option<(u8, usize)>,
    /// See [`Prepared::cuts`].
    cuts: Vec<usize>,
    cut_spacing: usize,
}

impl Builder<'_> {
    /// Appends one text line standing for document line `doc_line`.
    fn emit(&mut self, doc_line: u64, offset: usize, line: &[u8]) {
        let &(t, d) = self.checkpoints.last().expect("at least one checkpoint");
        if doc_line - d != self.next_text_line - t {
            self.checkpoints.push((self.next_text_line, doc_line));
        }
        self.offsets.push(offset);
        push_lossy(&mut self.text, line);
        self.text.push('\n');
        self.next_text_line += 1;
    }

    fn emit_reduced(&mut self, doc_line: u64, prefix: (usize, usize)) {
        let &(t, d) = self.checkpoints.last().expect("at least one checkpoint");
        if doc_line - d != self.next_text_line - t {
            self.checkpoints.push((self.next_text_line, doc_line));
        }
        self.offsets.push(prefix.0);
        // The prefix is ASCII: blanks, `>` and list markers.
        for &b in &self.bytes[prefix.0..prefix.1] {
            self.text.push(char::from(b));
        }
        self.text.push_str("x\n");
        self.next_text_line += 1;
    }

    /// Replaces what the current run emitted so far by its lines, whole.
    fn rewind_run(&mut self, upto: usize) {
        let Some(run) = self.run else { return };
        // The run's first line comes back where it was; later lines move.
        self.cuts.retain(|&c| c <= run.text_len);
        self.text.truncate(run.text_len);
        self.checkpoints.truncate(run.checkpoints);
        self.offsets.truncate(run.text_line as usize - 1);
        self.next_text_line = run.text_line;
        for (doc_line, (s, e)) in (run.doc_line..).zip(lines(&self.bytes[..upto], run.offset)) {
            self.emit(doc_line, s, &self.bytes[s..e]);
        }
    }

    fn line(&mut self, doc_line: u64, start: usize, end: usize) {
        let bytes = self.bytes;
        let line = &bytes[start..end];
        if is_blank(line) {
            self.run = None;
            self.run_full = false;
            self.ref_zone = false;
            self.block_zone = false;
            self.collapse_prefix = None;
            self.emit(doc_line, start, b"");
            return;
        }
        if self.run.is_none() {
            self.run = Some(RunStart {
                doc_line,
                offset: start,
                text_len: self.text.len(),
                text_line: self.next_text_line,
                checkpoints: self.checkpoints.len(),
            });
        }
        // A bare `\r` is a blank to the parser (see the module docs): look at the line so.
        let raw_body = content(line);
        let normalized: Vec<u8>;
        let body: &[u8] = if self.has_cr && memchr::memchr(b'\r', raw_body).is_some() {
            normalized = raw_body
                .iter()
                .map(|&b| if b == b'\r' { b' ' } else { b })
                .collect();
            &normalized
        } else {
            raw_body
        };
        let (skip, has_marker) = prefix_len(body);
        let rest = &body[skip..];
        if skip <= 3 && !has_marker && body[..skip].iter().all(|&b| b == b' ') {
            self.track_fence(rest);
            if skip == 0
                && rest.first() == Some(&b'#')
                && self.fence.is_none()
                && self.html_end.is_none()
                && !self.block_zone
                && opens_atx_heading(rest)
                && self
                    .cuts
                    .last()
                    .is_none_or(|&c| self.text.len() >= c + self.cut_spacing)
            {
                self.cuts.push(self.text.len());
            }
        }
        let mut whole = self.run_full || self.ref_zone || self.block_zone;
        if let Some(end_marker) = self.html_end {
            whole = true;
            if html_end_in(body, end_marker) {
                self.html_end = None;
            }
        } else {
            match rest.first() {
                Some(b'[') if may_open_reference(rest) => self.ref_zone = true,
                Some(b'<') => match html_start(rest) {
                    Some(end_marker) => {
                        if !html_end_in(&rest[1..], end_marker) {
                            self.html_end = Some(end_marker);
                        }
                    }
                    None => self.block_zone = true,
                },
                _ => {}
            }
        }
        // `-` and blanks underline a setext heading although they also read as a list marker.
        let lead = body
            .iter()
            .take_while(|&&b| matches!(b, b' ' | b'\t' | b'>'))
            .count();
        let underline_like = is_underline_like(rest) || is_underline_like(&body[lead..]);
        if !self.run_full && underline_like {
            self.rewind_run(start);
            self.run_full = true;
        }
        let reducible = !whole
            && !self.run_full
            && !self.ref_zone
            && !self.block_zone
            && self.html_end.is_none()
            && plain_start(rest, has_marker)
            && !underline_like
            && !(self.has_cr && memchr::memchr(b'\r', raw_body).is_some());
        if !reducible {
            self.collapse_prefix = None;
            self.emit(doc_line, start, line);
            if underline_like && self.is_table_delimiter(start, body) {
                // The body rows of a top-level table can only be heading text if a later
                // underline follows them, which rewinds to here: start a new run, so table
                // bodies reduce like paragraphs.
                self.run = None;
                self.run_full = false;
            }
            return;
        }
        let prefix = (start, start + skip);
        if self
            .collapse_prefix
            .is_some_and(|(s, e)| bytes[s..e] == bytes[prefix.0..prefix.1])
        {
            // Same prefix, same role as the line before (continuing the same leaf, or opening
            // a sibling list item): drop it.
            return;
        }
        self.collapse_prefix = Some(prefix);
        self.emit_reduced(doc_line, prefix);
    }
}

impl Builder<'_> {
    /// Whether `body`, an underline-like line starting at `start` inside the current run, is
    /// the delimiter row of a plain top-level table: both it and the line before it (the
    /// header) have pipes and no container prefix or indentation.
    fn is_table_delimiter(&self, start: usize, body: &[u8]) -> bool {
        let Some(run) = self.run else { return false };
        if run.offset >= start || !body.contains(&b'|') || body.first() == Some(&b' ') {
            return false;
        }
        let prev_end = start - 1;
        let prev_start = memchr::memrchr(b'\n', &self.bytes[..prev_end]).map_or(0, |i| i + 1);
        let header = content(&self.bytes[prev_start..prev_end]);
        let (skip, _) = prefix_len(header);
        // (A header holding a bare `\r` keeps the run whole: the parser sees a blank there.)
        skip == 0
            && header.contains(&b'|')
            && !header.contains(&b'\r')
            && plain_start(header, false)
    }
}

impl Builder<'_> {
    /// Follows top-level fences, roughly: lines of three or more backticks or tildes with at
    /// most three blanks before them open a fence, and close it with the same character, at
    /// least as many times, and nothing else.
    fn track_fence(&mut self, rest: &[u8]) {
        let Some(&c) = rest.first().filter(|&&c| c == b'`' || c == b'~') else {
            return;
        };
        let run = rest.iter().take_while(|&&b| b == c).count();
        if run < 3 {
            return;
        }
        match self.fence {
            None => {
                if c == b'~' || !rest[run..].contains(&b'`') {
                    self.fence = Some((c, run));
                }
            }
            Some((open, len)) => {
                if c == open && run >= len && rest[run..].iter().all(|&b| b == b' ' || b == b'\t') {
                    self.fence = None;
                }
            }
        }
    }
}

/// Whether `line` starts with 1 to 6 `#` followed by a blank or the line's end.
pub(super) fn opens_atx_heading(line: &[u8]) -> bool {
    let hashes = line.iter().take(7).take_while(|&&b| b == b'#').count();
    (1..=6).contains(&hashes) && matches!(line.get(hashes), None | Some(b' ' | b'\t' | b'\r'))
}

/// Whether a line whose text (after its container prefix) is `rest` cannot open or close
/// a block by its content: it starts with a letter, a non-ASCII character, or punctuation
/// that starts no block (backticks and tildes short of a fence; `[` when it cannot open a
/// link reference definition and is not a task list's box).
fn plain_start(rest: &[u8], has_marker: bool) -> bool {
    let Some(&c) = rest.first() else {
        return false;
    };
    match c {
        b'a'..=b'z' | b'A'..=b'Z' | 0x80..=0xFF => true,
        b'!' | b'"' | b'$' | b'%' | b'&' | b'\'' | b'(' | b')' | b',' | b'.' | b'/' | b':'
        | b';' | b'?' | b'@' | b'\\' | b'^' | b'{' | b'}' | b'|' => true,
        b'`' | b'~' => !rest.starts_with(&[c, c, c]),
        b'[' => !has_marker && !may_open_reference(rest),
        _ => false,
    }
}

/// For a line starting with `[`: whether it may open a link reference definition (its
/// label is not closed on the line, or is closed by `]:`).
fn may_open_reference(rest: &[u8]) -> bool {
    let mut i = 1;
    while i < rest.len() {
        match rest[i] {
            b'\\' => i += 2,
            b']' => return rest.get(i + 1) == Some(&b':'),
            b'[' => return false,
            _ => i += 1,
        }
    }
    true
}

/// Length of a line's container prefix (blanks, `>`, list markers followed by a blank) and
/// whether it holds a list marker.
fn prefix_len(line: &[u8]) -> (usize, bool) {
    let mut j = 0;
    let mut marker = false;
    loop {
        while j < line.len() && matches!(line[j], b' ' | b'\t' | b'>') {
            j += 1;
        }
        let blank_at = |k: usize| k < line.len() && matches!(line[k], b' ' | b'\t');
        if j < line.len() && matches!(line[j], b'-' | b'+' | b'*') && blank_at(j + 1) {
            j += 1;
            marker = true;
            continue;
        }
        let digits = line[j..]
            .iter()
            .take(10)
            .take_while(|b| b.is_ascii_digit())
            .count();
        if (1..=9).contains(&digits)
            && j + digits < line.len()
            && matches!(line[j + digits], b'.' | b')')
            && blank_at(j + digits + 1)
        {
            j += digits + 1;
            marker = true;
            continue;
        }
        return (j, marker);
    }
}

/// A line that could underline a setext heading or be a table's delimiter row.
fn is_underline_like(rest: &[u8]) -> bool {
    matches!(rest.first(), Some(b'=' | b'-' | b'|' | b':'))
        && rest
            .iter()
            .all(|&b| matches!(b, b'=' | b'-' | b'|' | b':') || is_space(b))
        && rest.iter().any(|&b| b == b'=' || b == b'-')
}

/// For a line starting with `<`: the end marker if it may open an HTML block that runs to a
/// marker (CommonMark types 1–5), `None` if it may open one that runs to a blank line.
fn html_start(rest: &[u8]) -> Option<HtmlEnd> {
    let after = &rest[1..];
    if after.starts_with(b"!--") {
        return Some(HtmlEnd::Marker(b"-->"));
    }
    if after.starts_with(b"?") {
        return Some(HtmlEnd::Marker(b"?>"));
    }
    if after.starts_with(b"![CDATA[") {
        return Some(HtmlEnd::Marker(b"]]>"));
    }
    if after.first() == Some(&b'!') && after.get(1).is_some_and(u8::is_ascii_alphabetic) {
        return Some(HtmlEnd::Marker(b">"));
    }
    for tag in [&b"script"[..], b"pre", b"style", b"textarea"] {
        if after.len() >= tag.len() && after[..tag.len()].eq_ignore_ascii_case(tag) {
            match after.get(tag.len()) {
                None | Some(b' ' | b'\t' | b'>' | b'\r') => return Some(HtmlEnd::RawTag),
                _ => {}
            }
        }
    }
    None
}

fn html_end_in(line: &[u8], end: HtmlEnd) -> bool {
    match end {
        HtmlEnd::Marker(m) => memchr::memmem::find(line, m).is_some(),
        HtmlEnd::RawTag => {
            let lower = line.to_ascii_lowercase();
            [&b"</script>"[..], b"</pre>", b"</style>", b"</textarea>"]
                .iter()
                .any(|m| memchr::memmem::find(&lower, m).is_some())
        }
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

    #[test]
    fn prefixes() {
        assert_eq!(prefix_len(b"> - 1. text"), (7, true));
        assert_eq!(prefix_len(b"    code"), (4, false));
        assert_eq!(prefix_len(b"-not a marker"), (0, false));
        assert_eq!(prefix_len(b"1234567890. x"), (0, false));
        assert_eq!(prefix_len(b"*\temph"), (2, true));
    }
}
