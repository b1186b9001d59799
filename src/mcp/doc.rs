//! The markdown document tools of docs/doc_tools.md: `doc_toc`, `doc_read`, `doc_read_many`,
//! `doc_find` and `doc_replace`.

use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use rmcp::RoleServer;
use rmcp::service::RequestContext;

use super::answer::{Answer, TRUNCATED, output_schema};
use super::params::Parameters;
use super::words::MCP_WORDS;
use super::{MapgrepServer, budget};
use crate::markdown::doc::{self, Document};
use crate::markdown::edit::{self, ReplaceRequest};
use crate::markdown::find::{self, FindQuery};
use crate::markdown::render;
use crate::read::{ParamError, clip, file_error_layout};
use crate::workspace::Workspace;

const DOC_TOC_DESCRIPTION: &str = r###"Outline of a markdown file: per section its index path, level, title, slug, lines and size, e.g. `1.2 ## 6.2 Phase B 验证计划  (#62-phase-b-验证计划, lines 9-20, 1.2 KB)`. Look here first, then read only the sections you need with doc_read / doc_read_many. Headings are CommonMark's (ATX, setext, in lists and quotes; never `#` lines in code or front matter)."###;

const DOC_READ_DESCRIPTION: &str = r###"Read one markdown section (its heading to the next heading of the same or a higher level) by what you know of it, tried in order: slug ("phase-b"), index path ("6.2"), line ("120"), exact title, title in any case/width/script ("phase b", "验证计划"), all words in any order. Several matches: the candidates, no guess; none: similar titles. Returns slug, lines, hash (for doc_replace) and the text; include_children: false stops at the first subsection."###;

const DOC_READ_MANY_DESCRIPTION: &str = r###"Read several sections of one markdown file in one call, each addressed as in doc_read (e.g. ["installation", "6.2", "Risks"]). Each entry gets its text or its own error; the others are still read."###;

const DOC_FIND_DESCRIPTION: &str = r###"Find sections of a markdown file; every filter given must hold: title glob (pattern "*Phase*", case-insensitive; no wildcard = substring), heading level, content_pattern (regex in the section's own text; the first matching line is shown), min_size (bytes), max_depth. Returns outline lines to read with doc_read."###;

const DOC_REPLACE_DESCRIPTION: &str = r###"Replace one markdown section, safely: doc_read it, edit, then doc_replace with the hash doc_read returned as expected_hash. A section changed since your read is refused with its current hash (read again, redo the edit). content replaces the section's text; if it starts with a heading, that heading replaces the section's. Headings at or above the section's level need allow_outline_change; every other section must stay unchanged. Keeps line endings; writes atomically. Returns the new lines and hash."###;

/// Parameters of `doc_toc`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocTocParams {
    /// The markdown file.
    pub path: String,
    /// Only sections this deep (1 = top level).
    pub max_depth: Option<i64>,
    /// Only this section and its subsections.
    pub section: Option<String>,
    pub max_output_bytes: Option<u32>,
}

/// Parameters of `doc_read`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocReadParams {
    /// The markdown file.
    pub path: String,
    /// Slug, index path, line or title.
    pub section: String,
    /// Include subsections (default true).
    pub include_children: Option<bool>,
    pub max_output_bytes: Option<u32>,
}

/// Parameters of `doc_read_many`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocReadManyParams {
    /// The markdown file.
    pub path: String,
    /// Slugs, index paths, lines or titles.
    pub sections: Vec<String>,
    /// Include subsections (default true).
    pub include_children: Option<bool>,
    pub max_output_bytes: Option<u32>,
}

/// Parameters of `doc_find`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocFindParams {
    /// The markdown file.
    pub path: String,
    /// Title glob.
    pub pattern: Option<String>,
    /// Heading level, 1-6.
    pub level: Option<i64>,
    /// Regex in the section's own text.
    pub content_pattern: Option<String>,
    /// Least size in bytes.
    pub min_size: Option<i64>,
    /// Only sections this deep (1 = top level).
    pub max_depth: Option<i64>,
    pub max_output_bytes: Option<u32>,
}

/// Parameters of `doc_replace`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocReplaceParams {
    /// The markdown file.
    pub path: String,
    /// The section, addressed as in doc_read (one match).
    pub section: String,
    /// The section's new text.
    pub content: String,
    /// The hash doc_read gave.
    pub expected_hash: String,
    /// As in the doc_read that gave the hash (default true).
    pub include_children: Option<bool>,
    /// Allow headings at or above the section's level.
    #[serde(default)]
    pub allow_outline_change: bool,
    /// Replace a read-only file anyway (its mode is kept).
    #[serde(default)]
    pub allow_read_only: bool,
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
        .map_err(|e| file_error_layout(&e, provided, &MCP_WORDS))
}

fn open(ws: &Workspace, path: &str, provided: &str) -> Result<Document, ParamError> {
    Document::open(ws, path).map_err(|e| file_error_layout(&e, provided, &MCP_WORDS))
}

#[tool_router(router = doc_router, vis = "pub(super)")]
impl MapgrepServer {
    #[tool(
        name = "doc_toc",
        description = DOC_TOC_DESCRIPTION,
        annotations(title = "Markdown outline", read_only_hint = true, open_world_hint = false),
        output_schema = output_schema(&[TRUNCATED])
    )]
    pub async fn doc_toc(
        &self,
        Parameters(p): Parameters<DocTocParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let budget = self.budget(&context, p.max_output_bytes);
        self.fitted(budget, move |ws, room| settle(toc(ws, &p, room)))
            .await
    }

    #[tool(
        name = "doc_read",
        description = DOC_READ_DESCRIPTION,
        annotations(title = "Read a markdown section", read_only_hint = true, open_world_hint = false),
        output_schema = output_schema(&[HASH, TRUNCATED])
    )]
    pub async fn doc_read(
        &self,
        Parameters(p): Parameters<DocReadParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let budget = self.budget(&context, p.max_output_bytes);
        self.fitted(budget, move |ws, room| settle(read_one(ws, &p, room)))
            .await
    }

    #[tool(
        name = "doc_read_many",
        description = DOC_READ_MANY_DESCRIPTION,
        annotations(title = "Read markdown sections", read_only_hint = true, open_world_hint = false),
        output_schema = output_schema(&[])
    )]
    pub async fn doc_read_many(
        &self,
        Parameters(p): Parameters<DocReadManyParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let budget = self.budget(&context, p.max_output_bytes);
        self.fitted(budget, move |ws, room| settle(read_many(ws, &p, room)))
            .await
    }

    #[tool(
        name = "doc_find",
        description = DOC_FIND_DESCRIPTION,
        annotations(title = "Find markdown sections", read_only_hint = true, open_world_hint = false),
        output_schema = output_schema(&[TRUNCATED])
    )]
    pub async fn doc_find(
        &self,
        Parameters(p): Parameters<DocFindParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let budget = self.budget(&context, p.max_output_bytes);
        self.fitted(budget, move |ws, room| settle(find(ws, &p, room)))
            .await
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
        output_schema = output_schema(&[HASH])
    )]
    pub async fn doc_replace(
        &self,
        Parameters(p): Parameters<DocReplaceParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        // A write runs once: its answer is held to the budget, never rendered again.
        let budget = self.budget(&context, None);
        self.answer(move |ws| budget::hold(budget, settle(replace(ws, p))))
            .await
    }
}

/// The `hash` field: the section's content hash, for doc_replace.
const HASH: (&str, &str, &str) = ("hash", "string", "Content hash, for doc_replace");

/// An answer, or the parameter error as one.
fn settle(r: Result<Answer, ParamError>) -> Answer {
    r.unwrap_or_else(Answer::param_error)
}

fn toc(ws: &Workspace, p: &DocTocParams, room: usize) -> Result<Answer, ParamError> {
    let provided = format!(
        "path={:?}, max_depth={}, section={}",
        p.path,
        p.max_depth.map_or("none".into(), |d| d.to_string()),
        p.section
            .as_deref()
            .map_or("none".into(), |s| format!("{s:?}"))
    );
    let max_depth = count_param("max_depth", p.max_depth, 1, 64, &provided)?;
    let doc = open(ws, &p.path, &provided)?;
    let outline = doc.outline();
    let under = match &p.section {
        Some(q) => Some(
            doc::find_section(outline, q)
                .map_err(|e| e.to_param_error(&provided, &MCP_WORDS))?
                .0,
        ),
        None => None,
    };
    let listed = doc::toc(outline, under, max_depth.map(|d| d as usize));
    let mut text = format!(
        "File: {} · {} lines · {} sections",
        crate::quote::name(&p.path),
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
    let n = render::toc_lines(&mut text, &listed, room);
    let truncated = n < listed.len();
    if truncated {
        text.push_str(&format!(
            "[cut: {n} of {} sections listed (response size limit). Narrow with max_depth, or list one part with section: \"{}\".]\n",
            listed.len(),
            listed[n].index_path
        ));
    }
    Ok(Answer::ok(text).field("truncated", truncated))
}

fn read_one(ws: &Workspace, p: &DocReadParams, limit: usize) -> Result<Answer, ParamError> {
    let include_children = p.include_children.unwrap_or(true);
    let provided = format!(
        "path={:?}, section={:?}, include_children={include_children}",
        p.path, p.section
    );
    let doc = open(ws, &p.path, &provided)?;
    let r = doc::read_section(&doc, &p.section, include_children, limit)
        .map_err(|e| e.to_param_error(&provided, &MCP_WORDS))?;
    intact(&doc, &provided)?;
    let mut text = String::new();
    render::section_block(&mut text, &p.path, &r, &MCP_WORDS);
    Ok(Answer::ok(text)
        .field("hash", &r.hash)
        .field("truncated", r.cut_of.is_some()))
}

fn read_many(ws: &Workspace, p: &DocReadManyParams, limit: usize) -> Result<Answer, ParamError> {
    let include_children = p.include_children.unwrap_or(true);
    let provided = format!(
        "path={:?}, sections={:?}, include_children={include_children}",
        p.path, p.sections
    );
    if p.sections.is_empty() {
        return Err(ParamError::new(
            "No sections requested",
            provided,
            "The sections list is empty.".into(),
            "Pass at least one section, e.g. {\"path\": \"README.md\", \"sections\": [\"installation\", \"2.1\"]}; doc_toc lists them.",
        ));
    }
    let doc = open(ws, &p.path, &provided)?;
    let mut text = String::new();
    let mut failures = 0;
    let count = p.sections.len();
    for (i, query) in p.sections.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        // Earlier blocks (sections, headers, errors) count against the limit; once it is
        // spent, one block refuses the rest.
        let budget = limit.saturating_sub(text.len());
        if budget < 256.min(limit) {
            failures += count - i;
            text.push_str(&format!("[{}-{count}/{count}] sections not read\n", i + 1));
            error_block(&mut text, &batch_cut(&p.path, &p.sections, i));
            break;
        }
        text.push_str(&format!("[{}/{count}] section: {:?}\n", i + 1, clip(query)));
        let entry_provided = format!("path={:?}, section={query:?}", p.path);
        match doc::read_section(&doc, query, include_children, budget) {
            Ok(r) => render::section_block(&mut text, &p.path, &r, &MCP_WORDS),
            Err(e) => {
                failures += 1;
                error_block(&mut text, &e.to_param_error(&entry_provided, &MCP_WORDS));
            }
        }
    }
    intact(&doc, &provided)?;
    Ok(Answer::ok(text).failed(failures == count))
}

/// An entry's error block in a `doc_read_many` answer.
fn error_block(text: &mut String, e: &ParamError) {
    text.push_str(&e.to_string());
    text.push_str("\n---\n");
}

fn find(ws: &Workspace, p: &DocFindParams, budget: usize) -> Result<Answer, ParamError> {
    let provided = format!(
        "path={:?}, pattern={:?}, level={:?}, content_pattern={:?}, min_size={:?}, max_depth={:?}",
        p.path, p.pattern, p.level, p.content_pattern, p.min_size, p.max_depth
    );
    let level = count_param("level", p.level, 1, 6, &provided)?;
    let min_size = count_param("min_size", p.min_size, 0, i64::MAX, &provided)?;
    let max_depth = count_param("max_depth", p.max_depth, 1, 64, &provided)?;
    let content = match &p.content_pattern {
        Some(re) => Some(content_regex(ws, re, &provided)?),
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
    let hits =
        find::find(&doc, &query).map_err(|e| file_error_layout(&e, &provided, &MCP_WORDS))?;
    intact(&doc, &provided)?;
    let mut text = format!(
        "File: {} · {} of {} sections match\n",
        crate::quote::name(&p.path),
        hits.len(),
        doc.outline().len()
    );
    let mut listed = 0;
    for hit in &hits {
        let before = text.len();
        render::find_hit(&mut text, hit);
        if text.len() > budget {
            text.truncate(before);
            break;
        }
        listed += 1;
    }
    let truncated = listed < hits.len();
    if truncated {
        text.push_str(&format!(
            "[cut: {listed} of {} matches listed (response size limit); add filters to narrow.]\n",
            hits.len()
        ));
    }
    if hits.is_empty() {
        text.push_str("No section matches every filter. Call doc_toc to see the outline.\n");
    }
    Ok(Answer::ok(text).field("truncated", truncated))
}

/// `doc_find`'s content_pattern, compiled, or the error naming what is wrong with it.
fn content_regex(
    ws: &Workspace,
    re: &str,
    provided: &str,
) -> Result<std::sync::Arc<regex_automata::meta::Regex>, ParamError> {
    if re.is_empty() {
        return Err(ParamError::new(
            "Empty content_pattern",
            provided.into(),
            "content_pattern is empty; it would match every section.".into(),
            "Pass a regex such as \"TODO|FIXME\", or leave content_pattern out.",
        ));
    }
    let param = crate::workspace::RegexParam {
        name: "content_pattern",
        pattern: re,
        source: re,
        case_insensitive: false,
        fix: "Fix the regex (Rust syntax; escape special characters like \\[ or \\().",
        line_fix: "Match one line of the text (^ and $ match at line starts and ends).",
    };
    ws.regex_param(&param, &|| provided.into())
}

fn replace(ws: &Workspace, p: DocReplaceParams) -> Result<Answer, ParamError> {
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
        section: p.section,
        content: p.content,
        expected_hash: p.expected_hash,
        include_children,
        allow_outline_change: p.allow_outline_change,
        allow_read_only: p.allow_read_only,
    };
    let r =
        edit::replace(ws, &p.path, &req).map_err(|e| e.to_param_error(&provided, &MCP_WORDS))?;
    let mut text = String::new();
    render::replaced(&mut text, &p.path, &r);
    Ok(Answer::ok(text).field("hash", &r.hash))
}
