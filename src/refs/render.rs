//! The text of a references answer, the same for every front-end: a summary line, then the
//! uses grouped by file and by the symbol they sit in, fitted to the room the caller has
//! (a page), with a cursor to the first use not shown.

use std::fmt::Write as _;

use super::{Reference, References};
use crate::words::{Term, Words};

/// Where a cut answer continues: the first use not shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefCursor {
    pub path: String,
    pub line: u64,
    pub column: u32,
}

impl RefCursor {
    /// `LINE:COLUMN:PATH` (the numbers first, so paths with colons survive).
    pub fn encode(&self) -> String {
        format!("{}:{}:{}", self.line, self.column, self.path)
    }

    pub fn decode(s: &str) -> Option<RefCursor> {
        let mut parts = s.splitn(3, ':');
        let line = parts.next()?.parse().ok()?;
        let column = parts.next()?.parse().ok()?;
        let path = parts.next()?.to_string();
        (!path.is_empty()).then_some(RefCursor { path, line, column })
    }

    fn of(r: &Reference) -> RefCursor {
        RefCursor {
            path: r.path.clone(),
            line: r.line,
            column: r.column,
        }
    }
}

/// A rendered page.
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    pub text: String,
    /// Uses after the last shown were left out for room.
    pub truncated: bool,
    pub next_cursor: Option<String>,
    /// The uses shown: from the `first`-th (0-based) of the answer, `shown` of them.
    pub first: usize,
    pub shown: usize,
}

/// Where the page from `cursor` starts: the cursor's use, or the first after it (by path,
/// then line and column) when that one is gone.
fn start(refs: &[Reference], cursor: Option<&RefCursor>) -> usize {
    let Some(c) = cursor else {
        return 0;
    };
    refs.iter()
        .position(|r| r.path == c.path && (r.line, r.column) >= (c.line, c.column))
        .or_else(|| refs.iter().position(|r| r.path > c.path))
        .unwrap_or(refs.len())
}

/// The summary line of `r`.
fn summary(r: &References) -> String {
    let mut s = format!(
        "{} uses of `{}` in {} files (matched by name, not by type; comments and strings left out; {} on definition lines set aside)",
        r.total(),
        r.word,
        r.files,
        r.set_aside
    );
    if let Some(q) = &r.qualifier {
        let _ = write!(
            s,
            "; the qualifier `{q}` is not checked: every use of `{}` is listed",
            r.word
        );
    }
    if r.unparsed > 0 {
        let _ = write!(
            s,
            "; {} files not yet in the symbol index and past the parse budget: their uses have no enclosing symbol and lines shaped like a definition were set aside",
            r.unparsed
        );
    }
    if r.timed_out {
        s.push_str("; STOPPED at the time limit: files after the last one shown were not searched, narrow the search");
    }
    s.push('.');
    s
}

/// The text shown for the uses on `u`'s line after `prev` (the use shown before it): its
/// file's name when the file changes, its symbol's line when the symbol does, then the line.
fn chunk(u: &Reference, prev: Option<&Reference>) -> String {
    let mut chunk = String::new();
    let new_file = prev.is_none_or(|p| p.path != u.path);
    if new_file {
        let _ = writeln!(chunk, "\n{}", u.path);
    }
    let moved = prev.is_some_and(|p| {
        p.enclosing.as_ref().map(|e| &e.name) != u.enclosing.as_ref().map(|e| &e.name)
    });
    if new_file || moved {
        match &u.enclosing {
            Some(e) => {
                let _ = writeln!(
                    chunk,
                    "  in {} {} ({}-{}):",
                    e.kind, e.name, e.start_line, e.end_line
                );
            }
            None => chunk.push_str("  (top level):\n"),
        }
    }
    let _ = writeln!(chunk, "    {}: {}", u.line, u.text);
    chunk
}

/// The bytes and lines one file's uses take on a page (as [`render`] shows them).
pub(super) fn file_size(refs: &[Reference]) -> (usize, usize) {
    let (mut bytes, mut lines) = (0, 0);
    let mut prev: Option<&Reference> = None;
    for (k, u) in refs.iter().enumerate() {
        if k > 0 && refs[k - 1].line == u.line {
            continue;
        }
        let c = chunk(u, prev);
        bytes += c.len();
        lines += c.matches('\n').count();
        prev = Some(u);
    }
    (bytes, lines)
}

/// The page of `r` from `cursor` that fits in `room` bytes (at least one line of uses is
/// shown; the uses on one line are shown together).
pub fn render(r: &References, cursor: Option<&RefCursor>, room: usize, w: &dyn Words) -> Rendered {
    let first = start(&r.refs, cursor);
    let mut text = summary(r);
    text.push('\n');
    if r.total() == 0 {
        text.push_str("No uses found.\n");
        return Rendered {
            text,
            ..Rendered::default()
        };
    }
    // Room kept for the closing line of a cut page.
    let closing = 160 + r.refs.last().map_or(0, |l| l.path.len());
    let mut shown = 0;
    let mut prev: Option<&Reference> = None;
    let rest = &r.refs[first..];
    while shown < rest.len() {
        let u = &rest[shown];
        // The uses on one line are shown as that line once.
        let same = rest[shown..]
            .iter()
            .take_while(|v| v.path == u.path && v.line == u.line)
            .count();
        let chunk = chunk(u, prev);
        if shown > 0 && text.len() + chunk.len() + closing > room {
            break;
        }
        text.push_str(&chunk);
        prev = Some(u);
        shown += same;
    }
    let next = first + shown;
    let next_cursor = next_cursor(r, next);
    close(&mut text, r, (first, next), next_cursor.as_deref(), w);
    Rendered {
        text,
        truncated: next_cursor.is_some(),
        next_cursor,
        first,
        shown,
    }
}

/// Where the page after the uses before `next` starts: the next use listed, or, when the
/// uses after were only counted, the place just after the last one shown.
fn next_cursor(r: &References, next: usize) -> Option<String> {
    if let Some(u) = r.refs.get(next) {
        return Some(RefCursor::of(u).encode());
    }
    let last = r.refs.last().filter(|_| r.counted > 0)?;
    let after = RefCursor {
        column: last.column.saturating_add(1),
        ..RefCursor::of(last)
    };
    Some(after.encode())
}

/// The closing line of a page showing uses `first..next` (0-based).
fn close(
    text: &mut String,
    r: &References,
    (first, next): (usize, usize),
    cursor: Option<&str>,
    w: &dyn Words,
) {
    if let Some(c) = cursor {
        let _ = write!(
            text,
            "\n[uses {}-{} of {} shown; pass {} \"{c}\" for the next]\n",
            first + 1,
            next,
            r.total(),
            w.name(Term::Cursor)
        );
    } else if first > 0 {
        let _ = write!(
            text,
            "\n[uses {}-{} of {} shown: the last page]\n",
            first + 1,
            next,
            r.total()
        );
    }
}
