//! Replacing one section of a document safely (docs/doc_tools.md, the replace operation): the
//! caller's hash must match the bytes on disk, the new text keeps the outline it promises, and
//! the file is replaced atomically under a per-file edit lock.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::Duration;

use super::doc::{Document, SectionError, covered, find_section};
use super::outline::{Outline, Section, content_hash};
use super::resolve::Candidate;
use crate::error::{Error, ParamError, file_error_layout};
use crate::source::Encoding;
use crate::words::{Term, Words};
use crate::workspace::Workspace;

/// An edit of one section.
#[derive(Clone, Debug)]
pub struct ReplaceRequest {
    /// The section, addressed like a read; it must name exactly one section.
    pub section: String,
    /// The new text. If it starts with a heading line, that heading replaces the section's
    /// (same level unless `allow_outline_change`); otherwise the section's heading is kept and
    /// `content` replaces the text below it.
    pub content: String,
    /// The hash the read of this section returned.
    pub expected_hash: String,
    /// Replace the whole section with its subsections (true), or only its heading and text up
    /// to the first subsection — the same choice as the read that gave the hash.
    pub include_children: bool,
    /// Allow content whose headings change the outline beyond this section: a heading at or
    /// above the section's level, or a changed level of its own heading.
    pub allow_outline_change: bool,
    /// Replace the file even if it is read-only (its mode bits stay as they are).
    pub allow_read_only: bool,
}

/// A refused edit. The file is unchanged.
#[derive(Debug)]
pub enum ReplaceError {
    /// The server was started without `--allow-write`.
    ReadOnly,
    File(Error),
    Section(SectionError),
    Stale {
        current: String,
    },
    Encoding(&'static str),
    Outline(String),
    Changed,
    /// `content` holds a carriage return not followed by a line feed, on this line of it
    /// (lines counted by `\n`).
    LoneCr {
        line: u64,
    },
    /// `content` holds a NUL byte, on this line of it (lines counted by `\n`).
    Nul {
        line: u64,
    },
    /// The file is not to be written (see [`crate::source::check_writable`]); why.
    ReadOnlyFile(String),
    /// Another process held the file's edit lock for all of [`EDIT_LOCK_WAIT`].
    Locked,
}

impl ReplaceError {
    /// The error in the Error/Problem/Fix layout.
    pub fn to_param_error(&self, provided: &str, w: &dyn Words) -> ParamError {
        let (replace, read) = (w.name(Term::ReplaceSection), w.name(Term::ReadSection));
        let e = |short: &str, problem: String, fix: &str| {
            ParamError::new(short, provided.into(), problem, fix)
        };
        match self {
            ReplaceError::ReadOnly => e(
                "Editing is disabled",
                format!(
                    "This server was started read-only: {replace} writes only when the server runs with {}.",
                    w.name(Term::AllowWrite)
                ),
                &format!(
                    "Ask the user to restart the server as {} if edits are wanted; the file was not changed.",
                    w.name(Term::EnableWrites)
                ),
            ),
            ReplaceError::File(err) => file_error_layout(err, provided, w),
            ReplaceError::Section(err) => err.to_param_error(provided, w),
            ReplaceError::Stale { current } => e(
                "Stale hash",
                format!(
                    "The section changed since you read it (its hash is now {current}); replacing it would lose that change."
                ),
                &format!(
                    "Read the section again with {read}, redo the edit on what it returns, and pass the new hash."
                ),
            ),
            ReplaceError::Encoding(what) => e(
                "File cannot be edited",
                format!("The file is {what}; {replace} writes UTF-8 only."),
                "Edit this file with another tool.",
            ),
            ReplaceError::Outline(problem) => e(
                "Content would change the outline",
                problem.clone(),
                &format!(
                    "Keep headings in content below the section's level (or pass {} if the change is intended), and close every code fence you open.",
                    w.set(Term::AllowOutlineChange)
                ),
            ),
            ReplaceError::Changed => e(
                "File changed during the edit",
                "Another process changed the file while the edit was prepared; nothing was written.".into(),
                &format!("Read the section again with {read} and retry."),
            ),
            ReplaceError::LoneCr { line } => e(
                "Lone carriage return in content",
                format!(
                    "The content has a carriage return (\\r) not followed by a line feed (\\n) on its line {line}. CommonMark reads a lone \\r as a line ending, mapgrep's outline does not, so the headings the edit would make cannot be checked; nothing was written."
                ),
                "Use \\n or \\r\\n line endings in content (the file's own line endings are applied when it is written).",
            ),
            ReplaceError::Nul { line } => e(
                "NUL byte in content",
                format!(
                    "The content has a NUL byte (\\0) on its line {line}. A file with a NUL byte is binary: afterwards the document tools would refuse it and searches would skip it; nothing was written."
                ),
                "Remove the NUL byte from content (if it must be shown, write it as text, e.g. \\0 or \u{2400}).",
            ),
            ReplaceError::ReadOnlyFile(reason) => e(
                "File is read-only",
                format!("The file is read-only: {reason}. {replace} does not replace it; nothing was written."),
                &format!(
                    "If the file should be edited, make it writable first (its owner can run `chmod u+w` on it; a file owned by another user is edited by that user or with another tool) and retry with the same {}, or pass {} to replace it as it is (its mode stays read-only).",
                    w.name(Term::ExpectedHash),
                    w.set(Term::AllowReadOnly)
                ),
            ),
            ReplaceError::Locked => e(
                "File is locked",
                format!(
                    "Another process held this file's edit lock (flock) for over {} s: another edit of it is in progress or stuck; nothing was written.",
                    EDIT_LOCK_WAIT.as_secs()
                ),
                "Retry in a moment (reading the section again first if it may have changed).",
            ),
        }
    }
}

impl From<Error> for ReplaceError {
    fn from(e: Error) -> ReplaceError {
        match e {
            Error::Changed { .. } => ReplaceError::Changed,
            Error::ReadOnly { reason, .. } => ReplaceError::ReadOnlyFile(reason),
            e => ReplaceError::File(e),
        }
    }
}

/// What an edit did.
#[derive(Clone, Debug)]
pub struct Replaced {
    /// The section before the edit.
    pub old: Candidate,
    /// The edited section as it is now in the file.
    pub new: Candidate,
    /// Its new hash (pass it to a further edit).
    pub hash: String,
    /// Lines in the file now.
    pub total_lines: u64,
    /// Bytes of the file before and after.
    pub old_len: usize,
    pub new_len: usize,
}

/// How long an edit waits for another process's edit lock on the same file.
pub const EDIT_LOCK_WAIT: Duration = Duration::from_secs(5);

/// One mutex per file being edited (by canonical path), so that edits of one file in this
/// process run one at a time; an entry lives while an edit holds or awaits it.
static EDIT_LOCKS: LazyLock<Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Runs `f` holding this process's edit lock on the file at canonical `path`.
fn with_edit_lock<T>(path: &Path, f: impl FnOnce() -> T) -> T {
    let lock = Arc::clone(
        EDIT_LOCKS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(path.to_path_buf())
            .or_default(),
    );
    let result = {
        let _held = lock.lock().unwrap_or_else(PoisonError::into_inner);
        f()
    };
    let mut locks = EDIT_LOCKS.lock().unwrap_or_else(PoisonError::into_inner);
    // Only the table and this edit hold it: no one waits, the entry can go (a new edit can
    // only take it from the table, which is locked).
    if Arc::strong_count(&lock) == 2 {
        locks.remove(path);
    }
    result
}

/// The line (1-based, counted by `\n`) of the first carriage return in `content` that no line
/// feed follows.
fn lone_cr_line(content: &str) -> Option<u64> {
    let bytes = content.as_bytes();
    let at = memchr::memchr_iter(b'\r', bytes).find(|&i| bytes.get(i + 1) != Some(&b'\n'))?;
    Some(memchr::memchr_iter(b'\n', &bytes[..at]).count() as u64 + 1)
}

/// Replaces one section of the markdown file at `path` (see [`ReplaceRequest`]): only with
/// `--allow-write`, only if the section's hash is still `expected_hash`, only if the new
/// document's outline is the old one with only the section changed; written atomically.
///
/// Edits of one file are serialized: within the process by a mutex per canonical path, and
/// across mapgrep processes by an advisory `flock` on the file ([`crate::source::lock_file`]),
/// both held from before the file is read until it is replaced. So of several edits made from
/// the same read, the first wins and the others see its result and are refused as stale.
pub fn replace(ws: &Workspace, path: &str, req: &ReplaceRequest) -> Result<Replaced, ReplaceError> {
    if !ws.allows_write() {
        return Err(ReplaceError::ReadOnly);
    }
    if let Some(line) = lone_cr_line(&req.content) {
        return Err(ReplaceError::LoneCr { line });
    }
    if let Some(at) = memchr::memchr(0, req.content.as_bytes()) {
        let line = memchr::memchr_iter(b'\n', &req.content.as_bytes()[..at]).count() as u64 + 1;
        return Err(ReplaceError::Nul { line });
    }
    let canonical = ws.resolve(path)?;
    with_edit_lock(&canonical, || {
        // Other mapgrep processes' edits of the file wait for this one up to its rename
        // (Windows: the file's lock is let go before it, see below).
        let _edits = crate::platform::EditMutex::acquire(&canonical, EDIT_LOCK_WAIT)
            .map_err(|e| Error::io(&canonical, e))?
            .ok_or(ReplaceError::Locked)?;
        let lock =
            crate::source::lock_file(&canonical, EDIT_LOCK_WAIT)?.ok_or(ReplaceError::Locked)?;
        if !req.allow_read_only {
            crate::source::check_writable(&canonical, lock.metadata())?;
        }
        let doc = Document::open_resolved(ws, path, &canonical)?;
        if !doc.id().same_file(&lock.id()) {
            // Replaced between the lock and the read by a writer that does not lock.
            return Err(ReplaceError::Changed);
        }
        let (written, replaced) = replace_locked(&doc, req)?;
        let expected = doc.id();
        // The document (its mapping) goes before the rename: Windows does not replace a file
        // that is mapped. Where a rename cannot replace an open file, the lock goes too: the
        // identity check just before the rename still refuses a file another writer replaced
        // (this process's edits stay serialised by the edit lock above, and other mapgrep
        // processes' by the edit mutex).
        drop(doc);
        if !crate::platform::RENAME_REPLACES_OPEN_FILES {
            drop(lock);
        }
        crate::source::replace_file(&canonical, &written, expected, req.allow_read_only)?;
        Ok(replaced)
    })
}

/// [`replace`] of a document opened under the edit locks: the bytes to write in its place,
/// and what they replace.
fn replace_locked(
    doc: &Document,
    req: &ReplaceRequest,
) -> Result<(Vec<u8>, Replaced), ReplaceError> {
    match doc.source().encoding() {
        Encoding::Utf16 => return Err(ReplaceError::Encoding("UTF-16")),
        Encoding::Binary => return Err(ReplaceError::Encoding("binary")),
        Encoding::Utf8 | Encoding::Utf8Bom => {}
    }
    let outline = doc.outline();
    let (section, _) = find_section(outline, &req.section).map_err(ReplaceError::Section)?;
    let range = doc.range(section, req.include_children);
    let bytes = doc.bytes();
    let current = content_hash(&bytes[range.clone()]);
    if current != req.expected_hash.trim() {
        return Err(ReplaceError::Stale { current });
    }
    let new_text = new_section_text(bytes, section, range.clone(), req)?;
    let mut new_doc = Vec::with_capacity(bytes.len() - range.len() + new_text.len());
    new_doc.extend_from_slice(&bytes[..range.start]);
    new_doc.extend_from_slice(&new_text);
    new_doc.extend_from_slice(&bytes[range.end..]);
    let new_outline = Outline::build(&new_doc);
    let new_id = check_outline(
        outline,
        &new_outline,
        bytes,
        &new_doc,
        range.clone(),
        range.start + new_text.len(),
        section,
        req.allow_outline_change,
    )?;
    let edited = &new_outline.sections()[new_id];
    let old_len = bytes.len();
    let new_len = new_doc.len();
    let written = match doc.source().encoding() {
        Encoding::Utf8Bom => {
            let mut with_bom = b"\xEF\xBB\xBF".to_vec();
            with_bom.extend_from_slice(&new_doc);
            with_bom
        }
        _ => new_doc,
    };
    doc.check_intact()?;
    let new_range = covered(&new_outline, edited, req.include_children);
    let replaced = Replaced {
        old: Candidate::of(section),
        new: Candidate::of(edited),
        hash: content_hash(&written[written.len() - new_len..][new_range]),
        total_lines: new_outline.total_lines(),
        old_len,
        new_len,
    };
    Ok((written, replaced))
}

/// The line ending a document uses: CRLF if most of its line ends are.
fn uses_crlf(bytes: &[u8]) -> bool {
    let lf = memchr::memchr_iter(b'\n', bytes).count();
    let crlf = memchr::memmem::find_iter(bytes, b"\r\n").count();
    lf > 0 && crlf * 2 > lf
}

/// The bytes that replace `range`: the caller's content with the document's line endings, the
/// section's heading kept if the content has none, and the section's trailing newline or blank
/// line kept.
fn new_section_text(
    bytes: &[u8],
    section: &Section,
    range: Range<usize>,
    req: &ReplaceRequest,
) -> Result<Vec<u8>, ReplaceError> {
    let eol: &str = if uses_crlf(bytes) { "\r\n" } else { "\n" };
    let content = req.content.replace("\r\n", "\n");
    // Whether the content brings its own heading. Only that is read from the content alone:
    // the headings it makes are checked in the new document (see [`check_outline`]).
    let starts_with_heading = Outline::build(content.as_bytes())
        .sections()
        .first()
        .is_some_and(|h| h.line_start == 1);
    let mut text = String::new();
    if !starts_with_heading {
        // Keep the heading (and the blank line after it, if there was one).
        let heading_end = line_end_offset(
            bytes,
            section.bytes.start,
            section.heading_line_end - section.line_start + 1,
        );
        let heading = std::str::from_utf8(&bytes[section.bytes.start..heading_end])
            .map_err(|_| ReplaceError::Encoding("not valid UTF-8 in this section's heading"))?;
        text.push_str(&heading.replace("\r\n", "\n"));
        let blank_after = bytes[heading_end..range.end]
            .split(|&b| b == b'\n')
            .next()
            .is_some_and(|l| l.iter().all(|b| b.is_ascii_whitespace()))
            && heading_end < range.end;
        if blank_after && !content.starts_with('\n') && !content.is_empty() {
            text.push('\n');
        }
    }
    text.push_str(&content);
    // The end: as the old range ended (blank line, newline, or nothing at end of file).
    let old = &bytes[range.clone()];
    let at_eof = range.end == bytes.len();
    let trimmed_len = text.trim_end_matches(['\n', '\r']).len();
    text.truncate(trimmed_len);
    let ends_blank = old.ends_with(b"\n\n") || old.ends_with(b"\n\r\n");
    if ends_blank && !at_eof {
        text.push_str("\n\n");
    } else if old.ends_with(b"\n") || !at_eof {
        text.push('\n');
    }
    Ok(if eol == "\n" {
        text.into_bytes()
    } else {
        text.replace('\n', "\r\n").into_bytes()
    })
}

/// The offset after `lines` lines starting at `start`.
fn line_end_offset(bytes: &[u8], start: usize, lines: u64) -> usize {
    let mut pos = start;
    for _ in 0..lines {
        match memchr::memchr(b'\n', &bytes[pos..]) {
            Some(i) => pos += i + 1,
            None => return bytes.len(),
        }
    }
    pos
}

/// Checks the new document's outline against the old one: every heading outside the edited
/// range is still a heading with the same level, title and own text, and the edited section
/// starts where it did; unless `allow_outline_change`, its heading keeps its level and every
/// other heading inside the edited range is deeper than it. The outline is the one of the
/// document as it will be written, so content is judged by what it makes there (text that is
/// front matter alone is a thematic break and a setext heading after a heading). Returns the
/// edited section's id in the new outline.
#[allow(clippy::too_many_arguments)]
fn check_outline(
    old: &Outline,
    new: &Outline,
    old_bytes: &[u8],
    new_bytes: &[u8],
    range: Range<usize>,
    new_end: usize,
    section: &Section,
    allow_outline_change: bool,
) -> Result<usize, ReplaceError> {
    let shift = |at: usize| at + new_end - range.end;
    // A heading's own text: to the next heading of any level, or the end.
    let own = |o: &Outline, bytes: &[u8], s: &Section| -> String {
        let end = o
            .sections()
            .get(s.id + 1)
            .map_or(bytes.len(), |n| n.bytes.start);
        content_hash(&bytes[s.bytes.start..end])
    };
    let outside_old: Vec<&Section> = old
        .sections()
        .iter()
        .filter(|s| s.bytes.start < range.start || s.bytes.start >= range.end)
        .collect();
    let inside_new = |s: &Section| s.bytes.start >= range.start && s.bytes.start < new_end;
    let outside_new: Vec<&Section> = new.sections().iter().filter(|s| !inside_new(s)).collect();
    for (i, o) in outside_old.iter().enumerate() {
        let expected_start = if o.bytes.start < range.start {
            o.bytes.start
        } else {
            shift(o.bytes.start)
        };
        let same = outside_new.get(i).is_some_and(|n| {
            n.bytes.start == expected_start
                && n.level == o.level
                && n.title == o.title
                && own(new, new_bytes, n) == own(old, old_bytes, o)
        });
        if !same {
            return Err(ReplaceError::Outline(format!(
                "The heading {:?} (line {}) would no longer be the same heading after the edit (an unclosed code fence or HTML block in the content?).",
                o.title, o.line_start
            )));
        }
    }
    if outside_new.len() != outside_old.len() {
        let extra = outside_new[outside_old.len().min(outside_new.len())];
        return Err(ReplaceError::Outline(format!(
            "The edit would make {:?} (line {}) a heading.",
            extra.title, extra.line_start
        )));
    }
    let edited = new
        .sections()
        .iter()
        .find(|s| s.bytes.start == range.start && inside_new(s))
        .ok_or_else(|| {
            ReplaceError::Outline(format!(
                "After the edit no heading would start the section {:?} where it starts now.",
                section.title
            ))
        })?;
    if !allow_outline_change {
        keeps_levels(new, edited, section, inside_new)?;
    }
    Ok(edited.id)
}

/// The edited section's heading (`edited`, in the new outline `new`) keeps the level of
/// `section`'s, and every other heading the edit makes (`inside`) is deeper.
fn keeps_levels(
    new: &Outline,
    edited: &Section,
    section: &Section,
    inside: impl Fn(&Section) -> bool,
) -> Result<(), ReplaceError> {
    if edited.level != section.level {
        return Err(ReplaceError::Outline(format!(
            "The section's heading would be {:?} at level {}; it is level {} now.",
            edited.title, edited.level, section.level
        )));
    }
    let mut made = new.sections()[edited.id + 1..]
        .iter()
        .take_while(|s| inside(s));
    if let Some(h) = made.find(|h| h.level <= section.level) {
        return Err(ReplaceError::Outline(format!(
            "The content would make {:?} a level-{} heading (line {} of the edited file): at or above the section's level {}, it would end this section and start a new one.",
            h.title, h.level, h.line_start, section.level
        )));
    }
    Ok(())
}
