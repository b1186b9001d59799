//! The headings of a markdown text as pulldown-cmark parses them (CommonMark plus GFM
//! tables, strikethrough and task lists), with their lines in the text; a long text is
//! parsed in parallel chunks where that cannot change the answer (see [`headings`]).

use std::ops::Range;

use pulldown_cmark::{BrokenLink, CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd};
use rayon::prelude::*;

use super::slug::fold;

/// A heading as parsed: its raw text (soft breaks as `\n`) and lines of the parsed text.
pub(super) struct RawHeading {
    pub level: u8,
    pub text: String,
    pub first_line: u64,
    pub last_line: u64,
}

/// Texts at least twice this long are parsed in parallel chunks about this long.
pub(super) const PARALLEL_MIN: usize = 128 * 1024;

/// Most chunks one parse is cut into.
pub(super) const MAX_PARTS: usize = 1024;

/// Every heading of `text`, in order.
///
/// A long text is cut into `parts` chunks, each but the first starting at one of `cuts` (the
/// starts of ATX heading lines in the first column, outside fences and HTML blocks as far as
/// [`skeleton`](super::skeleton) could tell), and the chunks are parsed in parallel. Such a line starts a
/// top-level heading in the whole text too — it closes any list, quote, paragraph or table
/// before it — unless a top-level fenced code block or HTML block runs into it, and a
/// heading's text depends on the rest of the document only through link reference
/// definitions. So when a chunk ends inside such a block (or might), or a heading in one chunk
/// holds a reference that only another chunk defines, the text is parsed again in one piece.
pub(super) fn headings(text: &str, cuts: &[usize], parts: usize) -> Vec<RawHeading> {
    if parts > 1 {
        let cuts = pick_cuts(text.len(), cuts, parts);
        if cuts.len() > 2 {
            let chunks: Vec<&str> = cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect();
            let parsed: Vec<Chunk> = chunks.par_iter().map(|c| parse(c)).collect();
            if let Some(merged) = merge(parsed) {
                return merged;
            }
        }
    }
    parse(text).headings
}

/// 0, the first candidate at or after each `i * len / parts`, and `len`.
fn pick_cuts(len: usize, candidates: &[usize], parts: usize) -> Vec<usize> {
    let mut cuts = vec![0];
    for i in 1..parts {
        let target = len / parts * i;
        let at = candidates.partition_point(|&c| c < target);
        match candidates.get(at) {
            Some(&c) if c > cuts[cuts.len() - 1] && c < len => cuts.push(c),
            _ => {}
        }
    }
    cuts.push(len);
    cuts
}

/// What parsing one chunk found.
struct Chunk {
    headings: Vec<RawHeading>,
    /// Newlines in the chunk.
    newlines: u64,
    /// The chunk's last top-level block is a fenced code block or an HTML block.
    ends_in_raw_block: bool,
    /// Folded labels of references in headings that the chunk does not define.
    unresolved: Vec<String>,
    /// Folded labels of the chunk's link reference definitions.
    defined: Vec<String>,
}

/// The chunks' headings with document line numbers, or `None` if the chunks may not parse
/// like the whole (see [`headings`]).
fn merge(chunks: Vec<Chunk>) -> Option<Vec<RawHeading>> {
    let last = chunks.len() - 1;
    if chunks[..last].iter().any(|c| c.ends_in_raw_block) {
        return None;
    }
    let defined: std::collections::HashSet<&str> = chunks
        .iter()
        .flat_map(|c| c.defined.iter().map(String::as_str))
        .collect();
    if chunks
        .iter()
        .any(|c| c.unresolved.iter().any(|l| defined.contains(l.as_str())))
    {
        return None;
    }
    let mut out = Vec::with_capacity(chunks.iter().map(|c| c.headings.len()).sum());
    let mut base = 0;
    for chunk in chunks {
        out.extend(chunk.headings.into_iter().map(|h| RawHeading {
            first_line: h.first_line + base,
            last_line: h.last_line + base,
            ..h
        }));
        base += chunk.newlines;
    }
    Some(out)
}

/// Whether a fenced code block's text ends with a line that closes its opening fence.
fn fence_is_closed(block: &str) -> bool {
    let mut lines = block.trim_end_matches(['\n', '\r']).lines();
    let (Some(open), Some(close)) = (lines.next(), lines.next_back()) else {
        return false;
    };
    // A top-level fence and its closing line are indented by at most three spaces.
    let (Some(open), Some(close)) = (unindent(open), unindent(close)) else {
        return false;
    };
    let Some(c) = open.chars().next().filter(|c| matches!(c, '`' | '~')) else {
        return false;
    };
    let len = open.chars().take_while(|&x| x == c).count();
    let run = close.chars().take_while(|&x| x == c).count();
    run >= len && close[run..].trim_matches([' ', '\t']).is_empty()
}

/// `line` without up to three leading spaces; `None` if it has more.
fn unindent(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches(' ');
    (line.len() - rest.len() <= 3).then_some(rest)
}

#[cfg(test)]
pub(super) fn fence_is_closed_for_tests(block: &str) -> bool {
    fence_is_closed(block)
}

/// A reference label folded for comparing across chunks.
fn fold_label(label: &str) -> String {
    let folded = fold(label);
    if folded.is_empty() {
        label.trim().to_owned()
    } else {
        folded
    }
}

/// Parses one text (a whole document or a chunk) for its headings.
fn parse(text: &str) -> Chunk {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_TASKLISTS);
    let mut broken: Vec<(usize, String)> = Vec::new();
    let record = |link: BrokenLink<'_>| -> Option<(CowStr<'_>, CowStr<'_>)> {
        broken.push((link.span.start, link.reference.to_string()));
        None
    };
    let parser = Parser::new_with_broken_link_callback(text, options, Some(record));
    let defined = parser
        .reference_definitions()
        .iter()
        .map(|(label, _)| fold_label(label))
        .collect();
    let mut reader = Reader {
        lines: LineCounter {
            bytes: text.as_bytes(),
            pos: 0,
            line: 1,
        },
        headings: Vec::new(),
        spans: Vec::new(),
        current: None,
        buf: String::new(),
        in_image: 0,
        depth: 0,
        last_raw: None,
    };
    for (event, range) in parser.into_offset_iter() {
        reader.track_block(&event, &range);
        reader.heading_event(event, range);
    }
    let newlines = reader.lines.line_of(text.len()) - 1;
    // A raw block with nothing but blanks after it may run on into the next chunk, unless it
    // is a fence ending in its closing line. (An HTML block that a blank line closed counts
    // too: a needless re-parse, never a wrong one.)
    let ends_in_raw_block = reader.last_raw.is_some_and(|(fenced, range)| {
        let at_end = text.as_bytes()[range.end.min(text.len())..]
            .iter()
            .all(u8::is_ascii_whitespace);
        at_end && !(fenced && fence_is_closed(&text[range]))
    });
    let spans = reader.spans;
    let unresolved = broken
        .into_iter()
        .filter(|(at, _)| {
            let i = spans.partition_point(|r| r.start <= *at);
            i > 0 && spans[i - 1].contains(at)
        })
        .map(|(_, label)| fold_label(&label))
        .collect();
    Chunk {
        headings: reader.headings,
        newlines,
        ends_in_raw_block,
        unresolved,
        defined,
    }
}

/// What [`parse`] follows through the parser's events.
struct Reader<'t> {
    lines: LineCounter<'t>,
    headings: Vec<RawHeading>,
    /// The byte range of each heading in `headings`.
    spans: Vec<Range<usize>>,
    /// The heading being read: level and byte range.
    current: Option<(u8, Range<usize>)>,
    /// Its text so far.
    buf: String,
    /// Images open inside it (their alt text is not the title's).
    in_image: u32,
    /// Blocks and inlines open.
    depth: usize,
    /// The last top-level block if it is a fenced code block (true) or an HTML block.
    last_raw: Option<(bool, Range<usize>)>,
}

impl Reader<'_> {
    /// Follows the nesting, to know whether the last top-level block is a raw one.
    fn track_block(&mut self, event: &Event<'_>, range: &Range<usize>) {
        match event {
            Event::Start(tag) => {
                if self.depth == 0 {
                    self.last_raw = match tag {
                        Tag::CodeBlock(CodeBlockKind::Fenced(_)) => Some((true, range.clone())),
                        Tag::HtmlBlock => Some((false, range.clone())),
                        _ => None,
                    };
                }
                self.depth += 1;
            }
            Event::End(_) => self.depth = self.depth.saturating_sub(1),
            _ if self.depth == 0 => self.last_raw = None,
            _ => {}
        }
    }

    /// Opens, fills and closes headings.
    fn heading_event(&mut self, event: Event<'_>, range: Range<usize>) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                self.current = Some((level as u8, range));
                self.buf.clear();
                self.in_image = 0;
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, range)) = self.current.take() {
                    let first_line = self.lines.line_of(range.start);
                    let last_line = self.lines.line_of(range.end.max(range.start + 1) - 1);
                    self.headings.push(RawHeading {
                        level,
                        text: std::mem::take(&mut self.buf),
                        first_line,
                        last_line,
                    });
                    self.spans.push(range);
                }
            }
            _ if self.current.is_none() => {}
            Event::Start(Tag::Image { .. }) => self.in_image += 1,
            Event::End(TagEnd::Image) => self.in_image = self.in_image.saturating_sub(1),
            Event::Text(t) | Event::Code(t) if self.in_image == 0 => self.buf.push_str(&t),
            Event::SoftBreak | Event::HardBreak if self.in_image == 0 => self.buf.push('\n'),
            _ => {}
        }
    }
}

/// Line numbers of non-decreasing byte offsets in one text.
struct LineCounter<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: u64,
}

impl LineCounter<'_> {
    fn line_of(&mut self, offset: usize) -> u64 {
        let offset = offset.min(self.bytes.len());
        if offset < self.pos {
            self.pos = 0;
            self.line = 1;
        }
        self.line += memchr::memchr_iter(b'\n', &self.bytes[self.pos..offset]).count() as u64;
        self.pos = offset;
        self.line
    }
}
