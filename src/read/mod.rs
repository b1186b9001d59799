//! Line-range reads: whole file, `head`, `tail`, `start_line`/`end_line`, and
//! `start_line` + `read_to_next_pattern` (docs/read_files.md), plus the paginated
//! `line`/`limit` read of docs/read_text_file.md.
//!
//! A read resolves to a line range through the file's [`LineIndex`](crate::lines::LineIndex)
//! and slices the bytes of that range; nothing else of the file is copied. The result is an
//! [`Excerpt`]: the lines, where they are, and the notes a reader must see (pattern not found,
//! output cut).

mod params;

use std::ops::Range;

use bstr::ByteSlice;
use regex_automata::meta::Regex;

use crate::error::Error;
use crate::lines::LineIndex;
use crate::words::{Term, Words};
use crate::workspace::{OpenFile, Workspace};

pub use crate::error::{MAX_ECHO, ParamError, RequestError, clip, clip_to, file_error_layout};
pub use params::{ReadMode, ReadRequest};

/// Why a read failed: the caller's parameters, or the file.
pub type ReadError = RequestError;

/// Something a reader of an excerpt must be told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// `read_to_next_pattern` found no further match: the excerpt runs to end of file.
    PatternNotFound { pattern: String, start_line: u64 },
    /// `end_line` was past the end and was clamped.
    EndClamped { requested: u64, total: u64 },
    /// The response byte budget cut the excerpt; the rest starts at `next_line`.
    Cut { next_line: u64 },
    /// A single line longer than the budget was cut inside the line.
    LineCut { line: u64, shown: usize, len: usize },
}

impl Note {
    /// The note as a reader sees it, in the front-end's words `w`.
    pub fn text(&self, w: &dyn Words) -> String {
        match self {
            Note::PatternNotFound {
                pattern,
                start_line,
            } => format!(
                "Note: Pattern '{pattern}' not found after line {start_line}. Read to end of file."
            ),
            Note::EndClamped { requested, total } => format!(
                "Note: {} {requested} is past the end of the file ({total} lines). Read to end of file.",
                w.name(Term::EndLine)
            ),
            Note::Cut { next_line } => format!(
                "Note: Output cut at the response size limit. Continue with {}.",
                w.pair(Term::StartLine, &next_line.to_string())
            ),
            Note::LineCut { line, shown, len } => format!(
                "Note: Line {line} is {len} bytes long; only its first {shown} bytes are shown."
            ),
        }
    }
}

/// A run of lines of one file, ready to render.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Excerpt {
    /// The path as the caller gave it.
    pub path: String,
    /// First line returned (1-based); 0 with `last_line` 0 when nothing was returned.
    pub first_line: u64,
    /// Last line returned (inclusive).
    pub last_line: u64,
    /// The file's total number of lines (with `total_counted` false: the lines counted, up
    /// to the last one the read needed).
    pub total_lines: u64,
    /// False when a read of the first lines of a very large file stopped counting lines
    /// where it stopped reading.
    pub total_counted: bool,
    /// The text of the lines, terminators as in the file, decoded lossily.
    pub text: String,
    pub notes: Vec<Note>,
}

impl Excerpt {
    /// Lines in the excerpt.
    pub fn line_count(&self) -> u64 {
        if self.last_line == 0 {
            0
        } else {
            self.last_line - self.first_line + 1
        }
    }

    /// The next line after the excerpt when the budget cut it.
    pub fn cut_at(&self) -> Option<u64> {
        self.notes.iter().find_map(|n| match n {
            Note::Cut { next_line, .. } => Some(*next_line),
            _ => None,
        })
    }
}

/// Runs one read request against the workspace, with `budget` bytes of output at most.
pub fn read(ws: &Workspace, req: &ReadRequest, budget: usize) -> Result<Excerpt, ReadError> {
    let mode = req.mode(ws.words()).map_err(ReadError::Param)?;
    // Compile the pattern before touching the file: a bad regex is the caller's error
    // whatever the file.
    let regex = match &mode {
        ReadMode::ToNext { pattern, .. } => {
            let w = ws.words();
            let param = crate::workspace::RegexParam {
                name: w.name(crate::words::Term::ToNextPattern),
                pattern,
                source: pattern,
                case_insensitive: false,
                fix: "Fix the regex (Rust regex syntax; escape literal brackets as \\[ ), e.g. \"^\\\\[LOG-\" or \"^## \".",
                line_fix: "Match the boundary line alone: ^ for its start, $ for its end, e.g. \"^## \" or \"^$\" for a blank line.",
            };
            let re = ws.regex_param(&param, &|| req.provided(w));
            Some(re.map_err(ReadError::Param)?)
        }
        _ => None,
    };
    let (open, total, counted) = open_for(ws, &req.path, &mode)?;
    if matches!(mode, ReadMode::Whole)
        && !req.large_file_passthrough
        && is_structured_data(&req.path)
        && open.source.id().len > ws.limits().large_structured_file
    {
        return Err(ReadError::Param(params::large_structured(
            req,
            open.source.id().len,
            ws.words(),
        )));
    }
    let (range, mut notes) = resolve_lines(ws, &open, req, &mode, regex.as_deref(), total)?;
    let mut excerpt = excerpt_of(&open, &req.path, range, budget, total);
    excerpt.total_counted = counted;
    open.source.check_intact()?;
    notes.append(&mut excerpt.notes);
    excerpt.notes = notes;
    Ok(excerpt)
}

/// Files at least this large whose lines are not indexed yet are read by `head` and
/// `start_line`/`end_line` without counting all their lines: such a read costs what it returns.
pub const LAZY_INDEX_BYTES: u64 = 64 * 1024 * 1024;

/// Opens `path` for a read in `mode`: its lines indexed, and their total. A head or bounded
/// range read of a large file whose index is not cached indexes only the lines up to its last
/// one (`false`: the total is then a lower bound).
fn open_for(ws: &Workspace, path: &str, mode: &ReadMode) -> Result<(OpenFile, u64, bool), Error> {
    let source = ws.open_source(path)?;
    source.refuse_binary(path)?;
    let last_needed = match *mode {
        ReadMode::Head(n) => Some(n),
        ReadMode::Range { end: Some(e), .. } => Some(e),
        _ => None,
    };
    if let Some(n) = last_needed
        && source.id().len >= LAZY_INDEX_BYTES
        && !ws.has_index(&source)
    {
        let bytes = source.bytes();
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|k| memchr::memchr_iter(b'\n', bytes).nth(k))
            .map_or(bytes.len(), |i| i + 1);
        let prefix = &bytes[..end];
        let index = LineIndex::build(prefix);
        let total = index.total_lines(prefix);
        let counted = end == bytes.len();
        return Ok((
            OpenFile {
                source,
                index: std::sync::Arc::new(index),
                prefix: Some(end),
            },
            total,
            counted,
        ));
    }
    let index = ws.index(&source);
    let open = OpenFile {
        source,
        index,
        prefix: None,
    };
    let total = open.total_lines();
    Ok((open, total, true))
}

/// The first and last line a mode selects (`last < first` when it selects nothing).
fn resolve_lines(
    ws: &Workspace,
    open: &OpenFile,
    req: &ReadRequest,
    mode: &ReadMode,
    regex: Option<&Regex>,
    total: u64,
) -> Result<(Range<u64>, Vec<Note>), ReadError> {
    let mut notes = Vec::new();
    let check_start = |start: u64| {
        if start > total {
            Err(ReadError::Param(params::start_past_end(
                req,
                start,
                total,
                ws.words(),
            )))
        } else {
            Ok(())
        }
    };
    let lines = match *mode {
        ReadMode::Whole => 1..total + 1,
        ReadMode::Head(n) => 1..n.min(total) + 1,
        ReadMode::Tail(n) => total - n.min(total) + 1..total + 1,
        ReadMode::Range { start, end } => {
            // `end_line` alone starts at line 1 implicitly: an empty file is just empty.
            if req.start_line.is_some() {
                check_start(start)?;
            }
            let end = match end {
                Some(e) if e > total => {
                    notes.push(Note::EndClamped {
                        requested: e,
                        total,
                    });
                    total
                }
                Some(e) => e,
                None => total,
            };
            start..end + 1
        }
        ReadMode::ToNext { start, ref pattern } => {
            check_start(start)?;
            let re = regex.expect("compiled above");
            let bytes = open.bytes();
            let from = open
                .index
                .line_start(bytes, start + 1)
                .unwrap_or(bytes.len());
            // A mapped file rewritten under the search may trip the regex engine's checks.
            let found =
                crate::source::guard_mapped(open.source.is_mapped(), open.source.path(), || {
                    next_matching_line(re, bytes, &open.index, from)
                })?;
            match found {
                Some(line) => start..line,
                None => {
                    notes.push(Note::PatternNotFound {
                        pattern: pattern.clone(),
                        start_line: start,
                    });
                    start..total + 1
                }
            }
        }
    };
    Ok((lines, notes))
}

/// The number of the first line at or after byte `from` (a line start) that contains a match
/// of `re`, judged line by line (see [`crate::matcher`]).
pub fn next_matching_line(re: &Regex, bytes: &[u8], index: &LineIndex, from: usize) -> Option<u64> {
    let mut cache = re.create_cache();
    crate::matcher::next_line_match(re, &mut cache, bytes, from)
        .map(|m| index.line_of_offset(bytes, m.start))
}

/// Slices lines `lines` (1-based, half-open) of `open` into an excerpt of at most `budget`
/// bytes of text, cutting at a line boundary (or inside a single over-long line) and saying so.
pub fn excerpt_of(
    open: &OpenFile,
    path: &str,
    lines: Range<u64>,
    budget: usize,
    total: u64,
) -> Excerpt {
    let bytes = open.bytes();
    let mut excerpt = Excerpt {
        path: path.to_string(),
        first_line: 0,
        last_line: 0,
        total_lines: total,
        total_counted: true,
        text: String::new(),
        notes: Vec::new(),
    };
    if lines.start >= lines.end || lines.start > total {
        return excerpt;
    }
    let first = lines.start;
    let mut last = (lines.end - 1).min(total);
    let mut range = open.index.line_range(bytes, first, last);
    if range.len() > budget {
        // Find the last line that still fits; at least one (possibly cut) line is returned.
        let limit = range.start + budget;
        let fit_end = memchr::memrchr(b'\n', &bytes[range.start..limit]).map(|i| range.start + i);
        match fit_end {
            Some(end) => {
                last = open.index.line_of_offset(bytes, end);
                range = range.start..end + 1;
            }
            None => {
                let line = open.index.line_range(bytes, first, first);
                let cut = floor_char_boundary(&bytes[line.clone()], budget);
                excerpt.notes.push(Note::LineCut {
                    line: first,
                    shown: cut,
                    len: line.len(),
                });
                last = first;
                range = line.start..line.start + cut;
            }
        }
        if last < (lines.end - 1).min(total) {
            excerpt.notes.push(Note::Cut {
                next_line: last + 1,
            });
        }
    }
    excerpt.first_line = first;
    excerpt.last_line = last;
    excerpt.text = bytes[range].to_str_lossy().into_owned();
    excerpt
}

/// The largest prefix length ≤ `max` that does not split a UTF-8 sequence.
fn floor_char_boundary(bytes: &[u8], max: usize) -> usize {
    let mut cut = max.min(bytes.len());
    while cut > 0 && cut < bytes.len() && (bytes[cut] & 0xC0) == 0x80 {
        cut -= 1;
    }
    cut
}

fn is_structured_data(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".json", ".jsonl", ".ndjson", ".yaml", ".yml"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// The paginated read of docs/read_text_file.md: `limit` lines from `line` (both 1-based, validated by the
/// caller), cut by `budget` bytes. Returns the excerpt; `has_more`/`next_line` derive from it.
pub fn read_page(
    ws: &Workspace,
    path: &str,
    line: u64,
    limit: Option<u64>,
    budget: usize,
) -> Result<Excerpt, Error> {
    let open = ws.open(path)?;
    let end = match limit {
        Some(l) => line.saturating_add(l),
        None => u64::MAX,
    };
    let total = open.total_lines();
    let excerpt = excerpt_of(&open, path, line..end, budget, total);
    open.source.check_intact()?;
    Ok(excerpt)
}

#[cfg(test)]
mod tests;
