//! The markdown document tools of spec/004: `doc_toc`, `doc_read`, `doc_read_many`,
//! `doc_find` and `doc_replace`.

use rmcp::handler::server::common::schema_for_output;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::params::Parameters;
use super::{MapgrepServer, error_result, structured};
use crate::markdown::doc::{self, Document, FindQuery, ReplaceRequest, SectionRead, tier_name};
use crate::markdown::render;
use crate::markdown::{Candidate, Section};
use crate::read::{ParamError, clip, file_error_layout};
use crate::workspace::Workspace;

const DOC_TOC_DESCRIPTION: &str = r###"List the sections of a markdown file: its heading outline with index paths, levels, titles, slugs, line ranges and sizes. Use this INSTEAD of reading a whole document to see its structure; then read only the sections you need with doc_read / doc_read_many.

Each line: `1.2 ## 6.2 Phase B 验证计划  (#62-phase-b-验证计划, lines 9-20, 1.2 KB)` — index path (position in the outline), level, title, slug, lines, size.
Headings are ATX (`## x`) and setext (underlined) headings, also in lists and block quotes; `#` lines in code blocks, HTML comments and front matter are not headings.

Args:
    path: The markdown file (relative to the first root, or absolute inside a root).
    max_depth: Only sections this deep in the outline (1 = top level).
    section: Only this section and its subsections (addressed like doc_read)."###;

const DOC_READ_DESCRIPTION: &str = r###"Read one section of a markdown file by what you know about it. Use this INSTEAD of read_files with guessed line ranges when reading documentation, specs or plans.

`section` is tried as, in order (the first rule that finds anything wins):
  1. slug: "phase-b", "#phase-b", "user-content-phase-b"
  2. index path: "6.2" — the numbering written in a title ("6.2 Phase B") first, then the position in the outline (doc_toc's paths); the result says which
  3. line number: "120" — the innermost section containing line 120
  4. exact title: "Phase B"
  5. normalized title (Unicode NFKC, case folded, letters and digits only): "phase b", "PhaseB", "ＰＨＡＳＥ Ｂ", "STRASSE" for "Straße"
  6. part of the normalized title: "验证计划" finds "6.2 Phase B 验证计划"
  7. all words of the query, in any order: "plan phase"
If several sections match, nothing is guessed: the error lists the candidates (use a slug or index path). If none matches, it suggests similar titles.

The result gives the section's slug, lines and a content hash (needed by doc_replace), then its text (heading included). include_children: false reads only the text before the first subsection and lists the subsections left out.

Args:
    path: The markdown file.
    section: Slug, index path, line number or title (see above).
    include_children: Include subsections (default true)."###;

const DOC_READ_MANY_DESCRIPTION: &str = r###"Read several sections of one markdown file in one call. Use this INSTEAD of several doc_read calls: `doc_toc` then one `doc_read_many` reads any set of sections in two calls.

Each entry of `sections` is addressed like doc_read (slug, index path, line number or title). Every entry gets its own result block, or its own error (ambiguous / not found, with candidates) without failing the others. Results share the response size limit; a cut section says where to continue.

Args:
    path: The markdown file.
    sections: Sections to read, e.g. ["6-1-phase-b", "6.2", "Risks"].
    include_children: Include subsections (default true)."###;

const DOC_FIND_DESCRIPTION: &str = r###"Find sections of a markdown file by title, level, size or content; returns their outline lines (index path, title, slug, lines, size), and for a content search the first matching line of each. Use this INSTEAD of grep + guessing where a section starts and ends.

All filters given must hold:
    pattern: Glob on titles, case-insensitive: "*Phase*", "6.?*", "*验证*". Without * or ? it matches titles containing it.
    level: Heading level (1-6), e.g. 3 for all ### sections.
    content_pattern: Regex searched in each section's own text (its heading and text before its first subsection), e.g. "验证" or "TODO|FIXME".
    min_size: Sections of at least this many bytes (subsections included).
    max_depth: Only sections this deep in the outline (1 = top level).
Then read the hits with doc_read / doc_read_many by slug or index path."###;

const DOC_REPLACE_DESCRIPTION: &str = r###"Replace one section of a markdown file, safely. Only when the server runs with --allow-write (otherwise refused, nothing written).

Workflow: doc_read the section -> edit its text -> doc_replace with the `hash` doc_read returned as expected_hash. If the section changed since your read, the edit is refused with the current hash (no concurrent edit is lost): read again and redo it.

`content` is the section's new text. If it starts with a heading line, that heading replaces the section's (same level, unless allow_outline_change); otherwise the section's heading is kept and content replaces the text below it. Headings inside content must be deeper than the section's level (subsections), unless allow_outline_change. The file's line endings (LF/CRLF) and the blank line before the next heading are kept. The section must be named unambiguously (slug or index path are safest). The new file is checked before it is written: every other section must be unchanged (an unclosed code fence in content would swallow later headings and is refused). The write is atomic (temporary file + rename).

Args:
    path: The markdown file.
    section: The section, addressed like doc_read.
    content: New text of the section.
    expected_hash: The hash from the doc_read of this section.
    include_children: Replace the whole section with its subsections (default true), or only the text before its first subsection (false) — use the same value as the doc_read that gave the hash.
    allow_outline_change: Allow headings at or above the section's level in content, or a changed heading level (default false).
Returns the section's new lines and new hash (for a further edit)."###;

/// Parameters of `doc_toc`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocTocParams {
    /// The markdown file (relative to the first root, or absolute inside a root).
    pub path: String,
    /// Only sections this deep in the outline (1 = top level).
    pub max_depth: Option<i64>,
    /// Only this section and its subsections (addressed like doc_read).
    pub section: Option<String>,
}

/// Parameters of `doc_read`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocReadParams {
    /// The markdown file.
    pub path: String,
    /// Slug, index path ("6.2"), line number ("120") or title (exact, normalized or partial).
    pub section: String,
    /// Include subsections (default true).
    pub include_children: Option<bool>,
}

/// Parameters of `doc_read_many`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocReadManyParams {
    /// The markdown file.
    pub path: String,
    /// Sections to read, each addressed like doc_read.
    pub sections: Vec<String>,
    /// Include subsections (default true).
    pub include_children: Option<bool>,
}

/// Parameters of `doc_find`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocFindParams {
    /// The markdown file.
    pub path: String,
    /// Glob on titles ("*Phase*"), case-insensitive; without * or ? a substring.
    pub pattern: Option<String>,
    /// Heading level, 1 to 6.
    pub level: Option<i64>,
    /// Regex searched in each section's own text.
    pub content_pattern: Option<String>,
    /// Least section size in bytes (subsections included).
    pub min_size: Option<i64>,
    /// Only sections this deep in the outline (1 = top level).
    pub max_depth: Option<i64>,
}

/// Parameters of `doc_replace`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocReplaceParams {
    /// The markdown file.
    pub path: String,
    /// The section to replace, addressed like doc_read (must match exactly one).
    pub section: String,
    /// The section's new text (starting with its heading line, or only the text below it).
    pub content: String,
    /// The hash doc_read returned for this section.
    pub expected_hash: String,
    /// Replace subsections too (default true); the same value as the doc_read that gave the hash.
    pub include_children: Option<bool>,
    /// Allow headings at or above the section's level in content (default false).
    #[serde(default)]
    pub allow_outline_change: bool,
}

/// One section in an outline listing.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TocEntry {
    /// Position in the outline, like "2.1".
    pub index_path: String,
    /// Heading level, 1 to 6.
    pub level: u8,
    pub title: String,
    /// GitHub-compatible anchor, unique in the document.
    pub slug: String,
    pub line_start: u64,
    pub line_end: u64,
    /// Bytes of the section, subsections included.
    pub size: usize,
}

impl TocEntry {
    fn of(s: &Section) -> TocEntry {
        TocEntry {
            index_path: s.index_path.clone(),
            level: s.level,
            title: s.title.clone(),
            slug: s.slug.clone(),
            line_start: s.line_start,
            line_end: s.line_end,
            size: s.size,
        }
    }

    fn of_candidate(c: &Candidate) -> TocEntry {
        TocEntry {
            index_path: c.index_path.clone(),
            level: c.level,
            title: c.title.clone(),
            slug: c.slug.clone(),
            line_start: c.line_start,
            line_end: c.line_end,
            size: 0,
        }
    }
}

/// Structured result of `doc_toc`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DocTocResult {
    pub path: String,
    pub total_lines: u64,
    /// Sections in the document.
    pub total_sections: usize,
    /// The sections listed.
    pub sections: Vec<TocEntry>,
    /// True when the response size limit cut the list.
    pub truncated: bool,
}

/// One section read (structured).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DocSection {
    pub slug: String,
    pub title: String,
    pub level: u8,
    pub index_path: String,
    /// First line of the text returned (the heading).
    pub line_start: u64,
    /// Last line of the text returned.
    pub line_end: u64,
    /// Lines in the file.
    pub total_lines: u64,
    /// Content hash of the section's bytes: pass it to doc_replace as expected_hash.
    pub hash: String,
    /// Which addressing rule found the section.
    pub matched_by: String,
    pub include_children: bool,
    /// The section's text.
    pub content: String,
    /// Set when the response limit cut the text: the section's real last line.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cut_section_end: Option<u64>,
    /// Subsections left out (include_children: false).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub omitted_children: Vec<TocEntry>,
}

impl DocSection {
    fn of(r: &SectionRead) -> DocSection {
        let s = &r.section;
        DocSection {
            slug: s.slug.clone(),
            title: s.title.clone(),
            level: s.level,
            index_path: s.index_path.clone(),
            line_start: r.first_line,
            line_end: r.last_line,
            total_lines: r.total_lines,
            hash: r.hash.clone(),
            matched_by: tier_name(r.tier).into(),
            include_children: r.include_children,
            content: r.text.clone(),
            cut_section_end: r.cut_of,
            omitted_children: r
                .omitted_children
                .iter()
                .map(TocEntry::of_candidate)
                .collect(),
        }
    }
}

/// Structured result of `doc_read`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DocReadResult {
    pub path: String,
    pub section: DocSection,
}

/// One entry of `doc_read_many`: the section, or the error for this entry.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DocReadManyEntry {
    /// The `sections` entry as given.
    pub request: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub section: Option<DocSection>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
}

/// The error block of a `doc_read_many` entry, appended to `text`, and its structured entry.
fn error_entry(text: &mut String, query: &str, e: &ParamError) -> DocReadManyEntry {
    let message = e.to_string();
    text.push_str(&message);
    text.push_str("\n---\n");
    DocReadManyEntry {
        request: clip(query).into_owned(),
        section: None,
        error: Some(message),
    }
}

/// Why the sections of a `doc_read_many` batch from `first` (0-based) on were not read.
fn batch_cut(path: &str, sections: &[String], first: usize) -> ParamError {
    const NAMED: usize = 20;
    let count = sections.len();
    let n = count - first;
    if n == 1 {
        return ParamError::new(
            "Response limit reached",
            format!("path={path:?}, section={:?}", clip(&sections[first])),
            "Earlier sections of this batch used the whole response size limit.".into(),
            "Read this section in a separate doc_read call.",
        );
    }
    let shown: Vec<String> = sections[first..]
        .iter()
        .take(NAMED)
        .map(|q| format!("{:?}", clip(q)))
        .collect();
    let more = if n > NAMED {
        format!(" and {} more", n - NAMED)
    } else {
        String::new()
    };
    ParamError::new(
        "Response limit reached",
        format!(
            "path={path:?}, sections {}-{count} of {count}: {}{more}",
            first + 1,
            shown.join(", ")
        ),
        format!(
            "Earlier sections of this batch used the whole response size limit: this section and the {} after it were not read.",
            n - 1
        ),
        "Read these sections in a separate doc_read_many call (or one by one with doc_read).",
    )
}

/// Structured result of `doc_read_many`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DocReadManyResult {
    pub path: String,
    /// One entry per requested section, in order; once the response size limit is reached,
    /// one last entry (its error naming the entries) stands for all the sections not read.
    pub results: Vec<DocReadManyEntry>,
}

/// One `doc_find` hit (structured).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DocFindHit {
    #[serde(flatten)]
    pub section: TocEntry,
    /// For a content search: the first matching line and its text.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub matched_line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub matched_text: Option<String>,
}

/// Structured result of `doc_find`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DocFindResult {
    pub path: String,
    /// Sections matching every filter.
    pub total_matches: usize,
    pub matches: Vec<DocFindHit>,
    /// True when the response size limit cut the list.
    pub truncated: bool,
}

/// Structured result of `doc_replace`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DocReplaceResult {
    pub path: String,
    /// The section as it is now.
    pub section: TocEntry,
    /// Its new content hash (for a further edit).
    pub hash: String,
    /// Its lines before the edit.
    pub old_line_start: u64,
    pub old_line_end: u64,
    /// Lines in the file now.
    pub total_lines: u64,
}

/// A non-negative integer parameter, or the error saying it is not one.
fn count_param(
    name: &str,
    value: Option<i64>,
    min: i64,
    max: i64,
    provided: &str,
) -> Result<Option<i64>, ParamError> {
    match value {
        Some(v) if v < min || v > max => Err(ParamError::new(
            &format!("Invalid {name}"),
            provided.into(),
            format!("{name} must be between {min} and {max}; got {v}."),
            &format!("Pass a {name} from {min} to {max}, or leave it out."),
        )),
        v => Ok(v),
    }
}

/// The "file changed during read, retry" error if the document shrank while it was read.
fn intact(doc: &Document, provided: &str) -> Result<(), ParamError> {
    doc.check_intact()
        .map_err(|e| file_error_layout(&e, provided))
}

fn open(ws: &Workspace, path: &str, provided: &str) -> Result<Document, ParamError> {
    Document::open(ws, path).map_err(|e| file_error_layout(&e, provided))
}

#[tool_router(router = doc_router, vis = "pub(super)")]
impl MapgrepServer {
    #[tool(
        name = "doc_toc",
        description = DOC_TOC_DESCRIPTION,
        annotations(title = "Markdown outline", read_only_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<DocTocResult>()
    )]
    pub async fn doc_toc(
        &self,
        Parameters(p): Parameters<DocTocParams>,
    ) -> Result<CallToolResult, ErrorData> {
        self.blocking(move |ws| {
            let provided = format!(
                "path={:?}, max_depth={}, section={}",
                p.path,
                p.max_depth.map_or("none".into(), |d| d.to_string()),
                p.section.as_deref().map_or("none".into(), |s| format!("{s:?}"))
            );
            let run = || -> Result<(String, DocTocResult), ParamError> {
                let max_depth = count_param("max_depth", p.max_depth, 1, 64, &provided)?;
                let doc = open(ws, &p.path, &provided)?;
                let outline = doc.outline();
                let under = match &p.section {
                    Some(q) => Some(
                        doc::find_section(outline, q)
                            .map_err(|e| e.to_param_error(&provided))?
                            .0,
                    ),
                    None => None,
                };
                let listed = doc::toc(outline, under, max_depth.map(|d| d as usize));
                let mut text = format!(
                    "File: {} · {} lines · {} sections",
                    p.path,
                    outline.total_lines(),
                    outline.len()
                );
                if listed.len() != outline.len() {
                    text.push_str(&format!(" (listing {})", listed.len()));
                }
                text.push('\n');
                if outline.is_empty() {
                    text.push_str("No headings: read the file with read_files.\n");
                }
                let n = render::toc_lines(&mut text, &listed, ws.limits().max_output_bytes);
                let shown: Vec<TocEntry> = listed[..n].iter().map(|s| TocEntry::of(s)).collect();
                let truncated = shown.len() < listed.len();
                if truncated {
                    text.push_str(&format!(
                        "[cut: {} of {} sections listed (response size limit). Narrow with max_depth, or list one part with section: \"{}\".]\n",
                        shown.len(),
                        listed.len(),
                        listed[shown.len()].index_path
                    ));
                }
                let result = DocTocResult {
                    path: p.path.clone(),
                    total_lines: outline.total_lines(),
                    total_sections: outline.len(),
                    sections: shown,
                    truncated,
                };
                Ok((text, result))
            };
            match run() {
                Ok((text, result)) => structured(text, &result),
                Err(e) => Ok(error_result(e)),
            }
        })
        .await?
    }

    #[tool(
        name = "doc_read",
        description = DOC_READ_DESCRIPTION,
        annotations(title = "Read a markdown section", read_only_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<DocReadResult>()
    )]
    pub async fn doc_read(
        &self,
        Parameters(p): Parameters<DocReadParams>,
    ) -> Result<CallToolResult, ErrorData> {
        self.blocking(move |ws| {
            let include_children = p.include_children.unwrap_or(true);
            let provided = format!(
                "path={:?}, section={:?}, include_children={include_children}",
                p.path, p.section
            );
            let run = || -> Result<(String, DocReadResult), ParamError> {
                let doc = open(ws, &p.path, &provided)?;
                let r = doc::read_section(
                    &doc,
                    &p.section,
                    include_children,
                    ws.limits().max_output_bytes,
                )
                .map_err(|e| e.to_param_error(&provided))?;
                intact(&doc, &provided)?;
                let mut text = String::new();
                render::section_block(&mut text, &p.path, &r);
                Ok((
                    text,
                    DocReadResult {
                        path: p.path.clone(),
                        section: DocSection::of(&r),
                    },
                ))
            };
            match run() {
                Ok((text, result)) => structured(text, &result),
                Err(e) => Ok(error_result(e)),
            }
        })
        .await?
    }

    #[tool(
        name = "doc_read_many",
        description = DOC_READ_MANY_DESCRIPTION,
        annotations(title = "Read markdown sections", read_only_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<DocReadManyResult>()
    )]
    pub async fn doc_read_many(
        &self,
        Parameters(p): Parameters<DocReadManyParams>,
    ) -> Result<CallToolResult, ErrorData> {
        self.blocking(move |ws| {
            let include_children = p.include_children.unwrap_or(true);
            let provided = format!(
                "path={:?}, sections={:?}, include_children={include_children}",
                p.path, p.sections
            );
            if p.sections.is_empty() {
                return Ok(error_result(ParamError::new(
                    "No sections requested",
                    provided,
                    "The sections list is empty.".into(),
                    "Pass at least one section, e.g. {\"path\": \"README.md\", \"sections\": [\"installation\", \"2.1\"]}; doc_toc lists them.",
                )));
            }
            let doc = match open(ws, &p.path, &provided) {
                Ok(doc) => doc,
                Err(e) => return Ok(error_result(e)),
            };
            let limit = ws.limits().max_output_bytes;
            let mut text = String::new();
            let mut structured_len = 0;
            let mut results: Vec<DocReadManyEntry> = Vec::with_capacity(p.sections.len());
            let mut failures = 0;
            let count = p.sections.len();
            for (i, query) in p.sections.iter().enumerate() {
                if i > 0 {
                    text.push('\n');
                }
                // Earlier blocks (sections, headers, errors) and their structured entries count
                // against the limit; once it is spent, one block refuses the rest.
                let budget = limit.saturating_sub(text.len() + structured_len);
                if budget < 256.min(limit) {
                    failures += count - i;
                    text.push_str(&format!("[{}-{count}/{count}] sections not read\n", i + 1));
                    let e = batch_cut(&p.path, &p.sections, i);
                    results.push(error_entry(&mut text, query, &e));
                    break;
                }
                text.push_str(&format!("[{}/{count}] section: {:?}\n", i + 1, clip(query)));
                let entry_provided = format!("path={:?}, section={query:?}", p.path);
                match doc::read_section(&doc, query, include_children, budget)
                    .map_err(|e| e.to_param_error(&entry_provided))
                {
                    Ok(r) => {
                        render::section_block(&mut text, &p.path, &r);
                        results.push(DocReadManyEntry {
                            request: clip(query).into_owned(),
                            section: Some(DocSection::of(&r)),
                            error: None,
                        });
                    }
                    Err(e) => {
                        failures += 1;
                        results.push(error_entry(&mut text, query, &e));
                    }
                }
                structured_len += results
                    .last()
                    .and_then(|r| serde_json::to_string(r).ok())
                    .map_or(0, |j| j.len());
            }
            if let Err(e) = intact(&doc, &provided) {
                return Ok(error_result(e));
            }
            if failures == count {
                return Ok(CallToolResult::error(vec![ContentBlock::text(text)]));
            }
            structured(
                text,
                &DocReadManyResult {
                    path: p.path.clone(),
                    results,
                },
            )
        })
        .await?
    }

    #[tool(
        name = "doc_find",
        description = DOC_FIND_DESCRIPTION,
        annotations(title = "Find markdown sections", read_only_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<DocFindResult>()
    )]
    pub async fn doc_find(
        &self,
        Parameters(p): Parameters<DocFindParams>,
    ) -> Result<CallToolResult, ErrorData> {
        self.blocking(move |ws| {
            let provided = format!(
                "path={:?}, pattern={:?}, level={:?}, content_pattern={:?}, min_size={:?}, max_depth={:?}",
                p.path, p.pattern, p.level, p.content_pattern, p.min_size, p.max_depth
            );
            let run = || -> Result<(String, DocFindResult), ParamError> {
                let level = count_param("level", p.level, 1, 6, &provided)?;
                let min_size = count_param("min_size", p.min_size, 0, i64::MAX, &provided)?;
                let max_depth = count_param("max_depth", p.max_depth, 1, 64, &provided)?;
                let content = match &p.content_pattern {
                    Some(re) if re.is_empty() => {
                        return Err(ParamError::new(
                            "Empty content_pattern",
                            provided.clone(),
                            "content_pattern is empty; it would match every section.".into(),
                            "Pass a regex such as \"TODO|FIXME\", or leave content_pattern out.",
                        ));
                    }
                    Some(re) => Some(ws.regex(re, false).map_err(|e| {
                        match crate::matcher::build_error_kind(&e) {
                            Ok(detail) => ParamError::new(
                                "Invalid content_pattern",
                                provided.clone(),
                                format!("content_pattern is not a valid regex: {detail}"),
                                "Fix the regex (Rust syntax; escape special characters like \\[ or \\().",
                            ),
                            Err(detail) => ParamError::new(
                                "Regex too large in content_pattern",
                                provided.clone(),
                                format!("content_pattern compiles to more than the size limit: {detail}"),
                                "Simplify the regex: fewer alternatives, smaller repetition counts ({n} bounds).",
                            ),
                        }
                    })?),
                    None => None,
                };
                let doc = open(ws, &p.path, &provided)?;
                let query = FindQuery {
                    pattern: p.pattern.clone().filter(|s| !s.trim().is_empty()),
                    level: level.map(|l| l as u8),
                    content,
                    min_size: min_size.map(|m| m as usize),
                    max_depth: max_depth.map(|d| d as usize),
                };
                let hits = doc::find(&doc, &query).map_err(|e| file_error_layout(&e, &provided))?;
                intact(&doc, &provided)?;
                let mut text = format!(
                    "File: {} · {} of {} sections match\n",
                    p.path,
                    hits.len(),
                    doc.outline().len()
                );
                let budget = ws.limits().max_output_bytes;
                let mut matches = Vec::with_capacity(hits.len());
                for hit in &hits {
                    let before = text.len();
                    render::find_hit(&mut text, hit);
                    if text.len() > budget {
                        text.truncate(before);
                        break;
                    }
                    matches.push(DocFindHit {
                        section: TocEntry::of(hit.section),
                        matched_line: hit.matched_line.as_ref().map(|m| m.0),
                        matched_text: hit.matched_line.as_ref().map(|m| m.1.clone()),
                    });
                }
                let truncated = matches.len() < hits.len();
                if truncated {
                    text.push_str(&format!(
                        "[cut: {} of {} matches listed (response size limit); add filters to narrow.]\n",
                        matches.len(),
                        hits.len()
                    ));
                }
                if hits.is_empty() {
                    text.push_str("No section matches every filter. Call doc_toc to see the outline.\n");
                }
                Ok((
                    text,
                    DocFindResult {
                        path: p.path.clone(),
                        total_matches: hits.len(),
                        matches,
                        truncated,
                    },
                ))
            };
            match run() {
                Ok((text, result)) => structured(text, &result),
                Err(e) => Ok(error_result(e)),
            }
        })
        .await?
    }

    #[tool(
        name = "doc_replace",
        description = DOC_REPLACE_DESCRIPTION,
        annotations(
            title = "Replace a markdown section",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        ),
        output_schema = schema_for_output::<DocReplaceResult>()
    )]
    pub async fn doc_replace(
        &self,
        Parameters(p): Parameters<DocReplaceParams>,
    ) -> Result<CallToolResult, ErrorData> {
        self.blocking(move |ws| {
            let include_children = p.include_children.unwrap_or(true);
            let provided = format!(
                "path={:?}, section={:?}, expected_hash={:?}, include_children={include_children}, allow_outline_change={}, content: {} bytes",
                p.path,
                p.section,
                p.expected_hash,
                p.allow_outline_change,
                p.content.len()
            );
            let req = ReplaceRequest {
                section: p.section.clone(),
                content: p.content,
                expected_hash: p.expected_hash,
                include_children,
                allow_outline_change: p.allow_outline_change,
            };
            match doc::replace(ws, &p.path, &req) {
                Ok(r) => {
                    let mut text = String::new();
                    render::replaced(&mut text, &p.path, &r);
                    structured(
                        text,
                        &DocReplaceResult {
                            path: p.path.clone(),
                            section: TocEntry::of_candidate(&r.new),
                            hash: r.hash.clone(),
                            old_line_start: r.old.line_start,
                            old_line_end: r.old.line_end,
                            total_lines: r.total_lines,
                        },
                    )
                }
                Err(e) => Ok(error_result(e.to_param_error(&provided))),
            }
        })
        .await?
    }
}
