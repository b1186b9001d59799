//! The document operations behind the doc tools (docs/doc_tools.md), on a [`Workspace`]: open a markdown file
//! with its (cached) [`Outline`], list it ([`toc`]), read sections by what the caller knows
//! ([`read_section`]), find sections by title, level, size or content ([`find`]), and replace
//! one section safely ([`replace`]).
//!
//! Sections are byte ranges of the file; a read slices them out of the mapped or read bytes.
//! Every read carries the section's [`content_hash`], which an edit must hand back: an edit
//! applies only to the bytes the caller saw.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::Duration;

use regex_automata::meta::Regex;

use super::outline::{Outline, Section, content_hash};
use super::resolve::{Candidate, Resolution, Suggestion, Tier, resolve};
use crate::error::Error;
use crate::read::{ParamError, file_error_layout};
use crate::source::{Encoding, FileId, Source};
use crate::workspace::Workspace;

/// An opened markdown document and its outline.
pub struct Document {
    source: Source,
    outline: Arc<Outline>,
}

impl Document {
    /// Resolves `path` inside the roots, opens it (regular, non-binary files only) and gives
    /// its outline, cached by file identity.
    pub fn open(ws: &Workspace, path: &str) -> Result<Document, Error> {
        Document::open_resolved(ws, path, &ws.resolve(path)?)
    }

    /// [`Document::open`] of `path`, which [`Workspace::resolve`] resolved to `resolved`.
    fn open_resolved(ws: &Workspace, path: &str, resolved: &Path) -> Result<Document, Error> {
        let source = ws.open_resolved(resolved)?;
        if source.is_binary() {
            return Err(Error::Binary { path: path.into() });
        }
        let outline = super::outline_of(ws, &source)?;
        source.check_intact()?;
        Ok(Document { source, outline })
    }

    /// `Err(Changed)` if the file shrank under its mapping since it was opened: results
    /// computed from its bytes must be discarded (see [`Source::check_intact`]).
    pub fn check_intact(&self) -> Result<(), Error> {
        self.source.check_intact()
    }

    /// The document's text (after a UTF-8 byte-order mark).
    pub fn bytes(&self) -> &[u8] {
        self.source.bytes()
    }

    pub fn outline(&self) -> &Outline {
        &self.outline
    }

    pub fn id(&self) -> FileId {
        self.source.id()
    }

    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The bytes a read of `section` covers (see [`covered`]).
    pub fn range(&self, section: &Section, include_children: bool) -> Range<usize> {
        covered(&self.outline, section, include_children)
    }

    /// The last line such a read covers.
    pub fn last_line(&self, section: &Section, include_children: bool) -> u64 {
        match section.children.first() {
            Some(&child) if !include_children => {
                (self.outline.sections()[child].line_start - 1).max(section.heading_line_end)
            }
            _ => section.line_end,
        }
    }
}

/// The bytes a read of `section` covers: the whole section, or with `include_children` false
/// only its heading and text up to its first subsection.
pub fn covered(outline: &Outline, section: &Section, include_children: bool) -> Range<usize> {
    match section.children.first() {
        Some(&child) if !include_children => {
            section.bytes.start..outline.sections()[child].bytes.start
        }
        _ => section.bytes.clone(),
    }
}

/// How a rule that found a section reads to a person.
pub fn tier_name(tier: Tier) -> &'static str {
    match tier {
        Tier::Slug => "slug",
        Tier::TitleNumber => "index path (the numbering written in the title)",
        Tier::TreePosition => "index path (position in the outline)",
        Tier::Line => "line number (innermost section containing it)",
        Tier::ExactTitle => "exact title",
        Tier::FoldedTitle => "normalized title",
        Tier::TitleSubstring => "part of the normalized title",
        Tier::TitleTokens => "all words of the title",
    }
}

/// The depth of a section in the tree: 1 for top-level sections.
pub fn depth(section: &Section) -> usize {
    section.index_path.split('.').count()
}

/// The sections of a table of contents: all of them, or those under `under` (itself
/// included), down to `max_depth` levels of the tree (counted from the top of the document).
pub fn toc<'o>(
    outline: &'o Outline,
    under: Option<&Section>,
    max_depth: Option<usize>,
) -> Vec<&'o Section> {
    let deep_enough = |s: &Section| max_depth.is_none_or(|d| depth(s) <= d);
    match under {
        None => outline
            .sections()
            .iter()
            .filter(|s| deep_enough(s))
            .collect(),
        Some(top) => {
            // A section's descendants follow it directly in document order.
            let end = top.id
                + outline.sections()[top.id..]
                    .iter()
                    .skip(1)
                    .take_while(|s| s.bytes.start < top.bytes.end)
                    .count();
            outline.sections()[top.id..=end]
                .iter()
                .filter(|s| deep_enough(s))
                .collect()
        }
    }
}

/// A section that a query could not name, and why.
#[derive(Clone, Debug, PartialEq)]
pub enum SectionError {
    /// The query was empty or blank.
    Empty,
    /// The first rule that matched matched several sections.
    Ambiguous {
        query: String,
        tier: Tier,
        candidates: Vec<Candidate>,
    },
    /// No rule matched.
    NotFound {
        query: String,
        suggestions: Vec<Suggestion>,
        sections: usize,
        /// Lines in the document and the line of its first heading, for line queries.
        total_lines: u64,
        first_heading: Option<u64>,
    },
}

/// A candidate section as one line: index path, level, title, slug and lines.
pub fn candidate_line(c: &Candidate) -> String {
    format!(
        "{} {} {} (#{}, lines {}-{})",
        c.index_path,
        "#".repeat(c.level as usize),
        c.title,
        c.slug,
        c.line_start,
        c.line_end
    )
}

impl SectionError {
    /// The error in the read_files contract's Error / You provided / Problem / Fix layout.
    pub fn to_param_error(&self, provided: &str) -> ParamError {
        match self {
            SectionError::Empty => ParamError::new(
                "Empty section",
                provided.into(),
                "The section to read is empty.".into(),
                "Name a section by slug (\"phase-b\"), index path (\"6.2\"), line number (\"120\") or title (\"Phase B\"); call doc_toc to see them.",
            ),
            SectionError::Ambiguous {
                query,
                tier,
                candidates,
            } => {
                let mut fix = String::from(
                    "Pass one of these instead (a slug or an index path names exactly one section):",
                );
                for c in candidates.iter().take(MAX_LISTED) {
                    let _ = write!(fix, "\n  - {}", candidate_line(c));
                }
                if candidates.len() > MAX_LISTED {
                    let _ = write!(
                        fix,
                        "\n  ... and {} more (doc_find narrows by title, level or content)",
                        candidates.len() - MAX_LISTED
                    );
                }
                ParamError {
                    short: "Ambiguous section".into(),
                    provided: provided.into(),
                    problem: format!(
                        "{query:?} matches {} sections by {}; no guess was made.",
                        candidates.len(),
                        tier_name(*tier)
                    ),
                    fix,
                    tip: None,
                }
            }
            SectionError::NotFound {
                query,
                suggestions,
                sections,
                total_lines,
                first_heading,
            } => {
                let is_line = !query.is_empty() && query.bytes().all(|b| b.is_ascii_digit());
                let problem = if *sections == 0 {
                    format!("The document has no headings, so no section matches {query:?}.")
                } else if is_line {
                    format!(
                        "Line {query} is in no section: the document has {total_lines} lines and its first heading is at line {}.",
                        first_heading.unwrap_or(1)
                    )
                } else {
                    format!(
                        "No section matches {query:?} by slug, index path, line number or title (exact, normalized, part, or all words)."
                    )
                };
                let fix = if suggestions.is_empty() {
                    if *sections == 0 {
                        "Read the file with read_files instead.".to_string()
                    } else {
                        "Call doc_toc to list the sections, or doc_find to search titles and content.".to_string()
                    }
                } else {
                    let mut fix = String::from("Did you mean one of these?");
                    for s in suggestions {
                        let _ = write!(fix, "\n  - {}", candidate_line(&s.candidate));
                    }
                    fix
                };
                ParamError {
                    short: "Section not found".into(),
                    provided: provided.into(),
                    problem,
                    fix,
                    tip: None,
                }
            }
        }
    }
}

/// How many candidates an ambiguity error lists.
const MAX_LISTED: usize = 20;

/// Finds the one section `query` names (see [`resolve`]).
pub fn find_section<'o>(
    outline: &'o Outline,
    query: &str,
) -> Result<(&'o Section, Tier), SectionError> {
    if query.trim().is_empty() {
        return Err(SectionError::Empty);
    }
    match resolve(outline, query) {
        Resolution::Found(s, tier) => Ok((s, tier)),
        Resolution::Ambiguous(tier, candidates) => Err(SectionError::Ambiguous {
            query: query.trim().to_string(),
            tier,
            candidates,
        }),
        Resolution::NotFound(suggestions) => Err(SectionError::NotFound {
            query: query.trim().to_string(),
            suggestions,
            sections: outline.len(),
            total_lines: outline.total_lines(),
            first_heading: outline.sections().first().map(|s| s.line_start),
        }),
    }
}

/// One section as read.
#[derive(Clone, Debug)]
pub struct SectionRead {
    pub section: Section,
    /// The rule that found it.
    pub tier: Tier,
    /// Whether subsections are included.
    pub include_children: bool,
    /// Lines of the text returned (`first..=last`); `last` is the section's last line unless
    /// the read was cut.
    pub first_line: u64,
    pub last_line: u64,
    /// Lines in the file.
    pub total_lines: u64,
    /// [`content_hash`] of the bytes covered (the whole covered range, even when cut).
    pub hash: String,
    /// The text (lossily decoded).
    pub text: String,
    /// Set when the response budget cut the text: the last line the read covers (the text
    /// stops at `last_line`).
    pub cut_of: Option<u64>,
    /// Subsections left out (with `include_children` false).
    pub omitted_children: Vec<Candidate>,
}

/// Reads the section `query` names, its text cut at a line boundary if it is longer than
/// `budget` bytes.
pub fn read_section(
    doc: &Document,
    query: &str,
    include_children: bool,
    budget: usize,
) -> Result<SectionRead, SectionError> {
    let (section, tier) = find_section(doc.outline(), query)?;
    Ok(read_found(doc, section, tier, include_children, budget))
}

/// Reads a section already found.
pub fn read_found(
    doc: &Document,
    section: &Section,
    tier: Tier,
    include_children: bool,
    budget: usize,
) -> SectionRead {
    let range = doc.range(section, include_children);
    let bytes = &doc.bytes()[range];
    let last = doc.last_line(section, include_children);
    let (text, last_line, cut_of) = if bytes.len() <= budget {
        (bytes, last, None)
    } else {
        // Keep whole lines within the budget (at least the heading's first line).
        let cut = match memchr::memrchr(b'\n', &bytes[..budget]) {
            Some(i) => i + 1,
            // One line longer than the budget: its first bytes, at a character boundary.
            None => (0..=budget)
                .rev()
                .find(|&i| i == 0 || bytes.get(i).is_none_or(|&b| (b as i8) >= -0x40))
                .unwrap_or(0),
        };
        let lines = memchr::memchr_iter(b'\n', &bytes[..cut]).count() as u64;
        let shown = lines.max(1);
        (&bytes[..cut], section.line_start + shown - 1, Some(last))
    };
    let omitted_children = if include_children {
        Vec::new()
    } else {
        let sections = doc.outline().sections();
        section
            .children
            .iter()
            .map(|&c| Candidate::of(&sections[c]))
            .collect()
    };
    SectionRead {
        section: section.clone(),
        tier,
        include_children,
        first_line: section.line_start,
        last_line,
        total_lines: doc.outline().total_lines(),
        hash: content_hash(bytes),
        text: String::from_utf8_lossy(text).into_owned(),
        cut_of,
        omitted_children,
    }
}

/// What [`find`] filters on; every filter given must hold.
#[derive(Clone, Debug, Default)]
pub struct FindQuery {
    /// Glob on the title (`*` any run, `?` one character; case-insensitive). Without a
    /// wildcard it matches any title containing it.
    pub pattern: Option<String>,
    /// Heading level (1 to 6).
    pub level: Option<u8>,
    /// A regex found in the section's own text (its heading and the text before its first
    /// subsection).
    pub content: Option<Arc<Regex>>,
    /// Least size of the whole section in bytes.
    pub min_size: Option<usize>,
    /// Deepest level of the tree (1 = top-level sections only).
    pub max_depth: Option<usize>,
}

/// A section [`find`] found, with the first line its content pattern matched.
#[derive(Clone, Debug)]
pub struct FindHit<'o> {
    pub section: &'o Section,
    pub matched_line: Option<(u64, String)>,
}

/// The sections matching `query`, in document order. A mapped file rewritten during the
/// content search is [`Error::Changed`] (see [`crate::source::guard_mapped`]).
pub fn find<'o>(doc: &'o Document, query: &FindQuery) -> Result<Vec<FindHit<'o>>, Error> {
    let source = doc.source();
    crate::source::guard_mapped(source.is_mapped(), source.path(), || find_in(doc, query))
}

fn find_in<'o>(doc: &'o Document, query: &FindQuery) -> Vec<FindHit<'o>> {
    let glob = query.pattern.as_deref().map(TitleGlob::new);
    let bytes = doc.bytes();
    doc.outline()
        .sections()
        .iter()
        .filter(|s| query.level.is_none_or(|l| s.level == l))
        .filter(|s| query.min_size.is_none_or(|m| s.size >= m))
        .filter(|s| query.max_depth.is_none_or(|d| depth(s) <= d))
        .filter(|s| glob.as_ref().is_none_or(|g| g.matches(&s.title)))
        .filter_map(|s| {
            let Some(re) = &query.content else {
                return Some(FindHit {
                    section: s,
                    matched_line: None,
                });
            };
            let own = doc.range(s, false);
            let m = re.find(&bytes[own.clone()])?;
            let at = own.start + m.start();
            let line =
                s.line_start + memchr::memchr_iter(b'\n', &bytes[own.start..at]).count() as u64;
            let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
            let line_end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
            let text = String::from_utf8_lossy(&bytes[line_start..line_end]);
            Some(FindHit {
                section: s,
                matched_line: Some((line, text.trim_end_matches('\r').to_string())),
            })
        })
        .collect()
}

/// A case-insensitive glob over titles.
struct TitleGlob {
    pattern: Vec<char>,
}

impl TitleGlob {
    fn new(pattern: &str) -> TitleGlob {
        let mut p: String = pattern.trim().to_lowercase();
        if !p.contains(['*', '?']) {
            p = format!("*{p}*");
        }
        TitleGlob {
            pattern: p.chars().collect(),
        }
    }

    fn matches(&self, title: &str) -> bool {
        let text: Vec<char> = title.to_lowercase().chars().collect();
        glob_match(&self.pattern, &text)
    }
}

/// Iterative wildcard matching with backtracking to the last `*` (linear in practice).
fn glob_match(p: &[char], t: &[char]) -> bool {
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

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
    /// The file is not to be written (see [`crate::source::check_writable`]); why.
    ReadOnlyFile(String),
    /// Another process held the file's edit lock for all of [`EDIT_LOCK_WAIT`].
    Locked,
}

impl ReplaceError {
    /// The error in the Error/Problem/Fix layout.
    pub fn to_param_error(&self, provided: &str) -> ParamError {
        let e = |short: &str, problem: String, fix: &str| {
            ParamError::new(short, provided.into(), problem, fix)
        };
        match self {
            ReplaceError::ReadOnly => e(
                "Editing is disabled",
                "This server was started read-only: doc_replace writes only when the server runs with --allow-write.".into(),
                "Ask the user to restart the server as `mapgrep serve --allow-write ROOT...` if edits are wanted; the file was not changed.",
            ),
            ReplaceError::File(err) => file_error_layout(err, provided),
            ReplaceError::Section(err) => err.to_param_error(provided),
            ReplaceError::Stale { current } => e(
                "Stale hash",
                format!(
                    "The section changed since you read it (its hash is now {current}); replacing it would lose that change."
                ),
                "Read the section again with doc_read, redo the edit on what it returns, and pass the new hash.",
            ),
            ReplaceError::Encoding(what) => e(
                "File cannot be edited",
                format!("The file is {what}; doc_replace writes UTF-8 only."),
                "Edit this file with another tool.",
            ),
            ReplaceError::Outline(problem) => e(
                "Content would change the outline",
                problem.clone(),
                "Keep headings in content below the section's level (or pass allow_outline_change: true if the change is intended), and close every code fence you open.",
            ),
            ReplaceError::Changed => e(
                "File changed during the edit",
                "Another process changed the file while the edit was prepared; nothing was written.".into(),
                "Read the section again with doc_read and retry.",
            ),
            ReplaceError::LoneCr { line } => e(
                "Lone carriage return in content",
                format!(
                    "The content has a carriage return (\\r) not followed by a line feed (\\n) on its line {line}. CommonMark reads a lone \\r as a line ending, mapgrep's outline does not, so the headings the edit would make cannot be checked; nothing was written."
                ),
                "Use \\n or \\r\\n line endings in content (the file's own line endings are applied when it is written).",
            ),
            ReplaceError::ReadOnlyFile(reason) => e(
                "File is read-only",
                format!("The file is read-only: {reason}. doc_replace does not replace it; nothing was written."),
                "If the file should be edited, make it writable first (its owner can run `chmod u+w` on it; a file owned by another user is edited by that user or with another tool) and retry with the same expected_hash, or pass allow_read_only: true to replace it as it is (its mode stays read-only).",
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
    let canonical = ws.resolve(path)?;
    with_edit_lock(&canonical, || {
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
        replace_locked(&doc, req)
    })
}

/// [`replace`] of a document opened under the edit locks.
fn replace_locked(doc: &Document, req: &ReplaceRequest) -> Result<Replaced, ReplaceError> {
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
    let canonical = doc.source().path().to_path_buf();
    let expected = doc.id();
    crate::source::replace_file(&canonical, &written, expected, req.allow_read_only)?;
    let new_range = covered(&new_outline, edited, req.include_children);
    Ok(Replaced {
        old: Candidate::of(section),
        new: Candidate::of(edited),
        hash: content_hash(&written[written.len() - new_len..][new_range]),
        total_lines: new_outline.total_lines(),
        old_len,
        new_len,
    })
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
        if edited.level != section.level {
            return Err(ReplaceError::Outline(format!(
                "The section's heading would be {:?} at level {}; it is level {} now.",
                edited.title, edited.level, section.level
            )));
        }
        let mut inside = new.sections()[edited.id + 1..]
            .iter()
            .take_while(|s| inside_new(s));
        if let Some(h) = inside.find(|h| h.level <= section.level) {
            return Err(ReplaceError::Outline(format!(
                "The content would make {:?} a level-{} heading (line {} of the edited file): at or above the section's level {}, it would end this section and start a new one.",
                h.title, h.level, h.line_start, section.level
            )));
        }
    }
    Ok(edited.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_titles() {
        let m = |p: &str, t: &str| TitleGlob::new(p).matches(t);
        assert!(m("*Phase*", "6.1 Phase B: plan"));
        assert!(m("phase", "6.1 Phase B: plan"));
        assert!(m("6.?*", "6.1 Phase B"));
        assert!(!m("6.?", "6.1 Phase B"));
        assert!(m("*验证*", "6.2 Phase B 验证计划"));
        assert!(!m("*Gamma*", "Phase B"));
        assert!(m("*", "anything"));
    }
}
