//! One part of a document reduced to its skeleton, line by line (the rules are the module
//! docs of [`super::skeleton`]): the lines kept whole, the plain ones reduced to their
//! prefix or dropped, and where the outline parse may cut the text.

use std::borrow::Cow;
use std::ops::Range;

use super::line_start::{
    HtmlEnd, content, html_end_in, html_start, is_blank, is_underline_like, lines,
    may_open_reference, opens_atx_heading, plain_start, prefix_len,
};

/// What a builder carries across blank lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct State {
    html_end: Option<HtmlEnd>,
    fence: Option<(u8, usize)>,
}

/// The skeleton of a range of whole lines, numbered from 1.
pub(super) struct Part {
    pub text: String,
    pub checkpoints: Vec<(u64, u64)>,
    pub offsets: Vec<usize>,
    pub text_lines: u64,
    pub doc_lines: u64,
    pub cuts: Vec<usize>,
    /// The state after the last line.
    pub end: State,
}

impl Part {
    pub(super) fn build(
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
    /// See [`Prepared::cuts`](super::skeleton::Prepared::cuts).
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

    /// Reads one document line: a blank line ends the run; a line that may open, close or
    /// name a block is kept whole; a plain one is reduced to its prefix, or dropped when the
    /// line before had the same prefix.
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
        let has_cr = self.has_cr && memchr::memchr(b'\r', raw_body).is_some();
        let body: Cow<[u8]> = if has_cr {
            raw_body
                .iter()
                .map(|&b| if b == b'\r' { b' ' } else { b })
                .collect()
        } else {
            Cow::Borrowed(raw_body)
        };
        let (skip, has_marker) = prefix_len(&body);
        let rest = &body[skip..];
        if skip <= 3 && !has_marker && body[..skip].iter().all(|&b| b == b' ') {
            self.track_fence(rest);
            self.note_cut(skip, rest);
        }
        let whole = self.track_zones(&body, rest);
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
            && !has_cr;
        if reducible {
            self.reduce(doc_line, (start, start + skip));
            return;
        }
        self.collapse_prefix = None;
        self.emit(doc_line, start, line);
        if underline_like && self.is_table_delimiter(start, &body) {
            // The body rows of a top-level table can only be heading text if a later
            // underline follows them, which rewinds to here: start a new run, so table
            // bodies reduce like paragraphs.
            self.run = None;
            self.run_full = false;
        }
    }

    /// Records the start of the text as a cut candidate when the line (in the first column,
    /// `rest` after no prefix) opens an ATX heading outside fences and HTML blocks, far
    /// enough from the last cut.
    fn note_cut(&mut self, skip: usize, rest: &[u8]) {
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

    /// Follows the zones kept whole (an HTML block to its end marker, a possible link
    /// reference definition or HTML block to the next blank line), and says whether this
    /// line is in one that was open before it.
    fn track_zones(&mut self, body: &[u8], rest: &[u8]) -> bool {
        let whole = self.run_full || self.ref_zone || self.block_zone;
        if let Some(end_marker) = self.html_end {
            if html_end_in(body, end_marker) {
                self.html_end = None;
            }
            return true;
        }
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
        whole
    }

    /// Emits a plain line as its container prefix and `x`, or drops it when the line before
    /// was reduced with the same prefix (it continues the same leaf, or opens a sibling
    /// list item: the same role).
    fn reduce(&mut self, doc_line: u64, prefix: (usize, usize)) {
        let bytes = self.bytes;
        if self
            .collapse_prefix
            .is_some_and(|(s, e)| bytes[s..e] == bytes[prefix.0..prefix.1])
        {
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

/// Appends `bytes` lossily decoded, each bare `\r` (one followed by neither `\n` nor the end
/// of `bytes`) as a blank. A line passed without its `\n` keeps its final `\r`.
pub(super) fn push_lossy(text: &mut String, bytes: &[u8]) {
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
