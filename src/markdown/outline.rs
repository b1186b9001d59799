//! [`Outline`]: the heading tree of a markdown document, with slugs, index paths, and the
//! line and byte range of every section.
//!
//! Headings are what pulldown-cmark (CommonMark plus GFM tables, strikethrough and task
//! lists) parses as headings: ATX and setext, also inside lists and block quotes; never `#`
//! lines in code, HTML blocks or comments, or front matter at the start of the document. The
//! parser reads the document's [skeleton](super::skeleton), so building the outline of a
//! large file costs little more than finding its newlines.

use std::ops::Range;
use std::sync::OnceLock;

use rayon::prelude::*;

use super::headings::{MAX_PARTS, PARALLEL_MIN, RawHeading, headings};
use super::skeleton::{self, Prepared};
use super::slug::{Slugger, fold, slug};

/// One heading and the lines it governs: from its own line to the line before the next
/// heading of the same or a higher level (a lower number), or to the end of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Position in document order; index into [`Outline::sections`].
    pub id: usize,
    /// 1 to 6.
    pub level: u8,
    /// The heading's plain text: code spans' text and links' text kept, emphasis markers,
    /// images and HTML tags dropped, line breaks as spaces, trimmed.
    pub title: String,
    /// GitHub's anchor for the heading, unique within the document (see [`super::slug`]).
    pub slug: String,
    /// Position in the heading tree, like `2` or `2.1.3`; the top level counts from 1 whatever
    /// its heading level.
    pub index_path: String,
    /// 1-based line of the heading (the first line of a setext heading's text).
    pub line_start: u64,
    /// Last line of the section.
    pub line_end: u64,
    /// Last line of the heading itself (a setext heading's underline).
    pub heading_line_end: u64,
    /// The section's bytes: from the start of its heading line to the start of the next
    /// heading of the same or a higher level, or the end of the file.
    pub bytes: Range<usize>,
    /// `bytes.len()`.
    pub size: usize,
    /// The enclosing section.
    pub parent: Option<usize>,
    /// Directly nested sections, in document order.
    pub children: Vec<usize>,
}

impl Section {
    /// The section's bytes in `doc`, the document the outline was built from.
    pub fn text<'d>(&self, doc: &'d [u8]) -> &'d [u8] {
        &doc[self.bytes.clone()]
    }

    /// [`content_hash`] of the section's bytes in `doc`.
    pub fn content_hash(&self, doc: &[u8]) -> String {
        content_hash(self.text(doc))
    }
}

/// A 64-bit FNV-1a hash of `bytes` as 16 lowercase hex digits: the version stamp a caller
/// hands back with an edit, so the edit applies only to the bytes it read.
pub fn content_hash(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The sections of one markdown document.
#[derive(Clone, Debug)]
pub struct Outline {
    sections: Vec<Section>,
    roots: Vec<usize>,
    doc_len: usize,
    total_lines: u64,
    /// Folded titles for fuzzy lookups, computed on first use.
    folded: OnceLock<Vec<String>>,
    /// `(hash of slug, id)` sorted, for slug lookups without walking every section; computed
    /// on first use.
    slug_hashes: OnceLock<Vec<(u64, u32)>>,
}

impl Outline {
    /// The outline of `doc` (UTF-8; invalid bytes are read as U+FFFD).
    pub fn build(doc: &[u8]) -> Outline {
        let prepared = skeleton::skeleton(doc);
        // Many small chunks rather than one per thread: each parse tree stays small (in cache,
        // its memory reused) and the threads balance.
        let parts = (prepared.text.len() / PARALLEL_MIN).min(MAX_PARTS);
        Outline::from_prepared(doc, prepared, parts)
    }

    /// [`Outline::build`], parsing the skeleton in (up to) `parts` parallel chunks whatever
    /// its size.
    #[cfg(test)]
    pub(super) fn build_in_parts(doc: &[u8], parts: usize) -> Outline {
        Outline::from_prepared(doc, skeleton::skeleton_with(doc, 1, parts), parts)
    }

    /// The outline parsed from the whole text rather than its skeleton: the reference the
    /// skeleton is tested against.
    #[cfg(test)]
    pub(super) fn build_verbatim(doc: &[u8]) -> Outline {
        Outline::from_prepared(doc, skeleton::verbatim(doc), 1)
    }

    fn from_prepared(doc: &[u8], prepared: Prepared, parts: usize) -> Outline {
        let raw = headings(&prepared.text, &prepared.cuts, parts);
        let mut placed = place(doc, &prepared, raw);
        let bases: Vec<String> = placed
            .iter_mut()
            .map(|h| std::mem::take(&mut h.base_slug))
            .collect();
        // Unique slugs and the tree do not depend on each other: make them side by side.
        let (slugs, (mut sections, roots)) = rayon::join(
            move || {
                let mut slugger = Slugger::with_capacity(bases.len());
                bases
                    .into_iter()
                    .map(|base| slugger.unique(base))
                    .collect::<Vec<_>>()
            },
            || link(placed, doc.len(), prepared.total_lines),
        );
        for (section, slug) in sections.iter_mut().zip(slugs) {
            section.slug = slug;
        }
        Outline {
            sections,
            roots,
            doc_len: doc.len(),
            total_lines: prepared.total_lines,
            folded: OnceLock::new(),
            slug_hashes: OnceLock::new(),
        }
    }

    /// All sections in document order.
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// The section with this id.
    pub fn get(&self, id: usize) -> Option<&Section> {
        self.sections.get(id)
    }

    /// Top-level sections, in document order.
    pub fn roots(&self) -> impl Iterator<Item = &Section> {
        self.roots.iter().map(|&id| &self.sections[id])
    }

    /// Sections nested directly in `section`.
    pub fn children<'a>(&'a self, section: &'a Section) -> impl Iterator<Item = &'a Section> {
        section.children.iter().map(|&id| &self.sections[id])
    }

    /// The innermost section containing `line` (1-based): the last heading at or before it.
    /// Every later heading starts after it, so that section reaches the line, and any earlier
    /// one still open contains it.
    pub fn innermost_at(&self, line: u64) -> Option<&Section> {
        if line == 0 || line > self.total_lines() {
            return None;
        }
        match self.sections.partition_point(|s| s.line_start <= line) {
            0 => None,
            n => Some(&self.sections[n - 1]),
        }
    }

    /// Number of sections.
    pub fn len(&self) -> usize {
        self.sections.len()
    }

    /// Whether the document has no heading.
    pub fn is_empty(&self) -> bool {
        self.sections.is_empty()
    }

    /// Length in bytes of the document the outline was built from.
    pub fn doc_len(&self) -> usize {
        self.doc_len
    }

    /// Number of lines in the document, as [`crate::LineIndex`] counts them.
    pub fn total_lines(&self) -> u64 {
        self.total_lines
    }

    /// The section whose slug is `slug` (slugs are unique within a document).
    pub fn by_slug(&self, slug: &str) -> Option<&Section> {
        let table = self.slug_hashes.get_or_init(|| {
            let mut t: Vec<(u64, u32)> = self
                .sections
                .iter()
                .map(|s| (slug_hash(&s.slug), s.id as u32))
                .collect();
            t.sort_unstable();
            t
        });
        let h = slug_hash(slug);
        let from = table.partition_point(|&(x, _)| x < h);
        table[from..]
            .iter()
            .take_while(|&&(x, _)| x == h)
            .map(|&(_, id)| &self.sections[id as usize])
            .find(|s| s.slug == slug)
    }

    /// Approximate heap bytes the outline holds (for cache budgets).
    pub fn heap_bytes(&self) -> usize {
        let per_section: usize = self
            .sections
            .iter()
            .map(|s| {
                std::mem::size_of::<Section>()
                    + s.title.len() * 2
                    + s.slug.len()
                    + s.index_path.len()
                    + s.children.len() * std::mem::size_of::<usize>()
                    + 12
            })
            .sum();
        per_section + self.roots.len() * std::mem::size_of::<usize>()
    }

    /// Each section's title folded for fuzzy matching ([`super::fold`]), by id.
    pub(super) fn folded_titles(&self) -> &[String] {
        self.folded
            .get_or_init(|| self.sections.iter().map(|s| fold(&s.title)).collect())
    }
}

/// A heading placed in the document: its lines and start offset, title and base slug.
struct Placed {
    level: u8,
    title: String,
    base_slug: String,
    first_line: u64,
    last_line: u64,
    start: usize,
}

/// Places parsed headings in the document, in parallel batches: maps their skeleton lines to
/// document lines and start offsets, and makes titles and base slugs (the per-heading work;
/// only making slugs unique and linking the tree stay sequential).
fn place(doc: &[u8], prepared: &Prepared, raw: Vec<RawHeading>) -> Vec<Placed> {
    let batches: Vec<Vec<Placed>> = raw
        .par_chunks(PLACE_BATCH)
        .map(|batch| {
            let mut map = prepared
                .map
                .cursor_at(batch.first().map_or(1, |h| h.first_line));
            batch
                .iter()
                .map(|h| {
                    let first_line = map.map(h.first_line);
                    let last_line = map.map(h.last_line);
                    // Line 1 starts the document (before a byte order mark, if any).
                    let start = if first_line == 1 {
                        0
                    } else {
                        prepared
                            .offsets
                            .get(h.first_line as usize - 1)
                            .copied()
                            .unwrap_or(doc.len())
                    };
                    Placed {
                        level: h.level,
                        title: plain_title(&h.text),
                        base_slug: slug(&h.text),
                        first_line,
                        last_line,
                        start,
                    }
                })
                .collect()
        })
        .collect();
    batches.into_iter().flatten().collect()
}

/// Links placed headings into the section tree (parents, children, index paths, ends);
/// slugs are left empty. Returns the sections and the ids of the top-level ones.
fn link(placed: Vec<Placed>, doc_len: usize, total_lines: u64) -> (Vec<Section>, Vec<usize>) {
    let mut sections: Vec<Section> = Vec::with_capacity(placed.len());
    let mut roots = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for (id, h) in placed.into_iter().enumerate() {
        while let Some(&top) = open.last() {
            if sections[top].level < h.level {
                break;
            }
            close(&mut sections[top], h.start, h.first_line - 1);
            open.pop();
        }
        let parent = open.last().copied();
        let siblings = match parent {
            Some(p) => &mut sections[p].children,
            None => &mut roots,
        };
        siblings.push(id);
        let ordinal = siblings.len();
        let index_path = match parent {
            Some(p) => {
                let parent_path = &sections[p].index_path;
                let mut path = String::with_capacity(parent_path.len() + 4);
                path.push_str(parent_path);
                path.push('.');
                push_number(&mut path, ordinal);
                path
            }
            None => {
                let mut path = String::with_capacity(4);
                push_number(&mut path, ordinal);
                path
            }
        };
        sections.push(Section {
            id,
            level: h.level,
            slug: String::new(),
            title: h.title,
            index_path,
            line_start: h.first_line,
            line_end: h.first_line,
            heading_line_end: h.last_line,
            bytes: h.start..h.start,
            size: 0,
            parent,
            children: Vec::new(),
        });
        open.push(id);
    }
    for id in open {
        close(&mut sections[id], doc_len, total_lines);
    }
    (sections, roots)
}

/// Appends `n` in decimal (without the formatting machinery: one call per section).
fn push_number(out: &mut String, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        out.push(char::from(d));
    }
}

/// FNV-1a of a slug, for [`Outline::by_slug`].
fn slug_hash(slug: &str) -> u64 {
    slug.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A heading's raw text as a title: line breaks as spaces, trimmed.
fn plain_title(text: &str) -> String {
    let trimmed = text.trim();
    if trimmed.contains('\n') {
        trimmed.replace('\n', " ")
    } else {
        trimmed.to_owned()
    }
}

fn close(section: &mut Section, end: usize, line_end: u64) {
    section.bytes.end = end;
    section.size = end - section.bytes.start;
    section.line_end = line_end.max(section.heading_line_end);
}

/// Headings placed (lines, byte offsets, titles, slugs) per parallel task.
const PLACE_BATCH: usize = 1024;
