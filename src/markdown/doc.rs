//! The document operations behind the doc tools (docs/doc_tools.md), on a [`Workspace`]: open a markdown file
//! with its (cached) [`Outline`], list it ([`toc`]), read sections by what the caller knows
//! ([`read_section`]), find sections by title, level, size or content ([`find`]), and replace
//! one section safely ([`replace`]).
//!
//! Sections are byte ranges of the file; a read slices them out of the mapped or read bytes.
//! Every read carries the section's [`content_hash`], which an edit must hand back: an edit
//! applies only to the bytes the caller saw.

use std::fmt::Write as _;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use super::outline::{Outline, Section, content_hash};
use super::resolve::{Candidate, Resolution, Suggestion, Tier, resolve};
use crate::error::Error;
use crate::error::ParamError;
use crate::source::{FileId, Source};
use crate::words::{Term, Words};
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
    pub(super) fn open_resolved(
        ws: &Workspace,
        path: &str,
        resolved: &Path,
    ) -> Result<Document, Error> {
        let source = ws.open_resolved(resolved)?;
        source.refuse_binary(path)?;
        let outline = super::outline_of(ws, &source)?;
        source.check_intact()?;
        Ok(Document { source, outline })
    }

    /// The document whose opened bytes are `source` (its outline cached by file identity).
    pub fn of_source(ws: &Workspace, source: Source) -> Result<Document, Error> {
        let outline = super::outline_of(ws, &source)?;
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
    pub fn to_param_error(&self, provided: &str, w: &dyn Words) -> ParamError {
        match self {
            SectionError::Empty => ParamError::new(
                "Empty section",
                provided.into(),
                "The section to read is empty.".into(),
                &format!(
                    "Name a section by slug (\"phase-b\"), index path (\"6.2\"), line number (\"120\") or title (\"Phase B\"); call {} to see them.",
                    w.name(Term::Toc)
                ),
            ),
            SectionError::Ambiguous {
                query,
                tier,
                candidates,
            } => ambiguous(provided, w, query, *tier, candidates),
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
                ParamError {
                    short: "Section not found".into(),
                    provided: provided.into(),
                    problem,
                    fix: not_found_fix(w, suggestions, *sections),
                    tip: None,
                }
            }
        }
    }
}

/// [`SectionError::Ambiguous`]: the candidates (up to [`MAX_LISTED`]), no guess.
fn ambiguous(
    provided: &str,
    w: &dyn Words,
    query: &str,
    tier: Tier,
    candidates: &[Candidate],
) -> ParamError {
    let mut fix = String::from(
        "Pass one of these instead (a slug or an index path names exactly one section):",
    );
    for c in candidates.iter().take(MAX_LISTED) {
        let _ = write!(fix, "\n  - {}", candidate_line(c));
    }
    if candidates.len() > MAX_LISTED {
        let _ = write!(
            fix,
            "\n  ... and {} more ({} narrows by title, level or content)",
            candidates.len() - MAX_LISTED,
            w.name(Term::FindSection)
        );
    }
    ParamError {
        short: "Ambiguous section".into(),
        provided: provided.into(),
        problem: format!(
            "{query:?} matches {} sections by {}; no guess was made.",
            candidates.len(),
            tier_name(tier)
        ),
        fix,
        tip: None,
    }
}

/// The fix of [`SectionError::NotFound`]: the suggestions, or where to look.
fn not_found_fix(w: &dyn Words, suggestions: &[Suggestion], sections: usize) -> String {
    if !suggestions.is_empty() {
        let mut fix = String::from("Did you mean one of these?");
        for s in suggestions {
            let _ = write!(fix, "\n  - {}", candidate_line(&s.candidate));
        }
        return fix;
    }
    if sections == 0 {
        format!("Read the file with {} instead.", w.name(Term::ReadLines))
    } else {
        format!(
            "Call {} to list the sections, or {} to search titles and content.",
            w.name(Term::Toc),
            w.name(Term::FindSection)
        )
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
