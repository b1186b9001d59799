//! The read tools: `read_files` (docs/read_files.md) and `read_text_file` (docs/read_text_file.md).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

use rmcp::handler::server::common::schema_for_output;
use rmcp::model::{CallToolResult, ErrorCode};
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use rmcp::RoleServer;
use rmcp::service::RequestContext;

use super::answer::{Answer, output_schema};
use super::params::Parameters;
use super::words::MCP_WORDS;
use super::{MapgrepServer, budget};
use crate::error::Error;
use crate::quote;
use crate::read::{self, Excerpt, ReadRequest, clip};
use crate::workspace::Workspace;

const READ_FILES_DESCRIPTION: &str = r###"Read files, or exact parts of them, in one call: step 2 of grep -> read. Each entry is a whole file, head/tail N lines, start_line (+ end_line), or start_line + read_to_next_pattern: read up to the line before the next line matching the regex, so you never compute end_line:
  grep_content(pattern="\[DECISION\]") -> File: WORK.md, Line: 120
  read_files(files=[{"path": "WORK.md", "start_line": 120, "read_to_next_pattern": "^\\[LOG-"}]) -> lines 120-144
Boundaries: "^#+ " any heading, "^## " level 2, "^\\[LOG-" log entry, "^$" blank line. No match: reads to end of file with a Note.
A bad entry gets Error/Problem/Fix; the others are still read. A cut read's Note names the start_line that continues it. Whole JSON/YAML files over 256 KiB need large_file_passthrough."###;

const READ_TEXT_FILE_DESCRIPTION: &str = "Read complete or partial content of a text file with optional pagination. \
Result: content and _meta {total_lines, returned_lines, has_more, next_line}; while has_more, call again with line = next_line.";

/// Below this many bytes of remaining budget, later batch entries are refused as over the
/// response limit instead of returning a fragment.
const MIN_ENTRY_BUDGET: usize = 256;

/// One entry of a `read_files` batch.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileReadRequest {
    /// Relative to the first root, or absolute inside a root.
    pub path: String,
    /// First N lines.
    pub head: Option<i64>,
    /// Last N lines.
    pub tail: Option<i64>,
    /// First line (1-indexed).
    pub start_line: Option<i64>,
    /// Last line (inclusive).
    pub end_line: Option<i64>,
    /// Regex: read from start_line to the line before the next match.
    pub read_to_next_pattern: Option<String>,
}

/// Parameters of `read_files`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFilesParams {
    /// The reads; a path alone reads the whole file.
    pub files: Vec<FileReadRequest>,
    /// Allow whole reads of large JSON/YAML files.
    #[serde(default)]
    pub large_file_passthrough: bool,
    pub max_output_bytes: Option<u32>,
}

/// Parameters of `read_text_file` (docs/read_text_file.md).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadTextFileParams {
    /// Absolute path to the file
    pub path: String,
    /// Starting line number (1-indexed). If omitted, read from line 1
    #[schemars(range(min = 1))]
    #[serde(alias = "start_line")]
    pub line: Option<i64>,
    /// Maximum number of lines to return. If omitted, return all remaining lines
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
    /// The last line to return, as the other tools' line ranges end (`start_line` is
    /// accepted for `line`): instead of `limit`. Accepted, not listed in the schema.
    #[schemars(skip)]
    pub end_line: Option<i64>,
}

/// `_meta` of a `read_text_file` result: where this page lies in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReadTextFileMeta {
    /// Total lines in file
    pub total_lines: u64,
    /// Lines in this response
    pub returned_lines: u64,
    /// True if more lines are available
    pub has_more: bool,
    /// Starting line for the next request (if has_more)
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub next_line: Option<u64>,
    /// A line longer than the response limit, cut (only its first bytes are in content).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cut_line: Option<u64>,
}

/// Result of `read_text_file` (docs/read_text_file.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReadTextFileResult {
    /// File content (with newlines preserved)
    pub content: String,
    #[serde(rename = "_meta")]
    pub meta: ReadTextFileMeta,
}

impl From<FileReadRequest> for ReadRequest {
    fn from(r: FileReadRequest) -> ReadRequest {
        ReadRequest {
            path: r.path,
            head: r.head,
            tail: r.tail,
            start_line: r.start_line,
            end_line: r.end_line,
            read_to_next_pattern: r.read_to_next_pattern,
            large_file_passthrough: false,
        }
    }
}

#[tool_router(router = read_router, vis = "pub(super)")]
impl MapgrepServer {
    #[tool(
        name = "read_files",
        description = READ_FILES_DESCRIPTION,
        annotations(title = "Read files", read_only_hint = true, open_world_hint = false),
        output_schema = output_schema(&[])
    )]
    pub async fn read_files(
        &self,
        Parameters(params): Parameters<ReadFilesParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let budget = self.budget(&context, params.max_output_bytes);
        self.fitted(budget, move |ws, room| read_batch(ws, &params, room))
            .await
    }

    #[tool(
        name = "read_text_file",
        description = READ_TEXT_FILE_DESCRIPTION,
        annotations(title = "Read text file", read_only_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<ReadTextFileResult>()
    )]
    pub async fn read_text_file(
        &self,
        Parameters(params): Parameters<ReadTextFileParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let budget = self.budget(&context, None);
        let (path, start, limit) = page_params(params)?;
        let answer = self
            .blocking(move |ws| {
                let mut failed = None;
                let answer = budget::fit(budget, |room| {
                    match read::read_page(ws, &path, start, limit, room) {
                        Ok(page) => page_answer(page_result(page, start)),
                        Err(e) => {
                            failed = Some(file_rpc_error(&e, &path));
                            Answer::default()
                        }
                    }
                });
                failed.map_or(Ok(answer), Err)
            })
            .await??;
        Ok(answer.into())
    }
}

/// Reads a `read_files` batch within the response limit: one block per entry, and once the
/// limit is spent one block refusing the entries left.
fn read_batch(ws: &Workspace, params: &ReadFilesParams, limit: usize) -> Answer {
    let count = params.files.len();
    if count == 0 {
        return Answer::error("Error: No files requested\n\nYou provided: files=[]\nProblem: The batch is empty.\nFix: Pass at least one request, e.g. {\"files\": [{\"path\": \"README.md\", \"head\": 20}]}.".into());
    }
    let mut out = String::new();
    let mut failures = 0;
    let mut files = params.files.iter().cloned().enumerate();
    while let Some((i, entry)) = files.next() {
        let mut req = ReadRequest::from(entry);
        req.large_file_passthrough = params.large_file_passthrough;
        if !out.is_empty() {
            out.push('\n');
        }
        // The blocks before (file text, headers, notes and errors) count against the limit.
        // With less than a useful remainder left, the rest of the batch is refused in one
        // block rather than returned as scraps.
        let budget = limit.saturating_sub(out.len());
        if budget < MIN_ENTRY_BUDGET.min(limit) {
            let rest: Vec<String> = std::iter::once(req.path)
                .chain(files.map(|(_, e)| e.path))
                .collect();
            failures += rest.len();
            render_batch_cut(&mut out, i, count, &rest, limit);
            break;
        }
        match read::read(ws, &req, budget) {
            Ok(excerpt) => render_excerpt(&mut out, &excerpt),
            Err(e) => {
                failures += 1;
                let _ = write!(
                    out,
                    "File: {}\n{}\n---\n",
                    quote::name(&clip(&req.path)),
                    e.to_param_error(&req.provided(&MCP_WORDS), &MCP_WORDS)
                );
            }
        }
    }
    Answer::ok(out).failed(failures == count)
}

/// The read_text_file contract's checks of `read_text_file`'s parameters: the path, first line and line limit.
fn page_params(p: ReadTextFileParams) -> Result<(String, u64, Option<u64>), ErrorData> {
    let ReadTextFileParams {
        path,
        line,
        limit,
        end_line,
    } = p;
    let clipped = clip(&path);
    let shown = quote::name(&clipped);
    let spelled = crate::roots::spelled_path(&path)
        .map_err(|e| rpc_error(-32600, format!("Invalid path: {shown}: {e}")))?;
    if !Path::new(spelled.as_ref()).is_absolute() {
        return Err(rpc_error(-32600, format!("Path must be absolute: {shown}")));
    }
    if let Some(l) = line
        && l < 1
    {
        return Err(rpc_error(-32600, format!("Line number must be >= 1: {l}")));
    }
    if let Some(l) = limit
        && l < 1
    {
        return Err(rpc_error(-32600, format!("Limit must be >= 1: {l}")));
    }
    let first = line.unwrap_or(1);
    let limit = match (limit, end_line) {
        (Some(_), Some(_)) => {
            return Err(rpc_error(
                -32600,
                "Give limit or end_line, not both".to_string(),
            ));
        }
        (None, Some(e)) if e < first => {
            return Err(rpc_error(
                -32600,
                format!("end_line must be >= the first line ({first}): {e}"),
            ));
        }
        (None, Some(e)) => Some(e - first + 1),
        (l, None) => l,
    };
    Ok((path, first as u64, limit.map(|l| l as u64)))
}

/// A page as the read_text_file contract's result: the text view is the content and a summary line, the
/// structured view `{content, _meta}`.
fn page_answer(result: ReadTextFileResult) -> Answer {
    let m = &result.meta;
    let mut summary = match m.next_line {
        Some(next) => format!(
            "[{} lines returned of {} total; more from line {next}: call again with line: {next}]",
            m.returned_lines, m.total_lines
        ),
        None => format!(
            "[{} lines returned of {} total; end of file]",
            m.returned_lines, m.total_lines
        ),
    };
    if let Some(n) = m.cut_line {
        summary.push_str(&format!(
            "\n[line {n} is longer than the response size limit and was cut: only its first bytes are shown]"
        ));
    }
    Answer::ok(result.content)
        .field("_meta", &result.meta)
        .trailer(summary)
}

/// Builds the read_text_file contract's result from an excerpt that started at line `start`.
fn page_result(excerpt: Excerpt, start: u64) -> ReadTextFileResult {
    let returned = excerpt.line_count();
    let next = if returned == 0 {
        start
    } else {
        excerpt.last_line + 1
    };
    let has_more = returned > 0 && next <= excerpt.total_lines;
    let cut_line = excerpt.notes.iter().find_map(|n| match n {
        read::Note::LineCut { line, .. } => Some(*line),
        _ => None,
    });
    ReadTextFileResult {
        content: excerpt.text,
        meta: ReadTextFileMeta {
            total_lines: excerpt.total_lines,
            returned_lines: returned,
            has_more,
            next_line: has_more.then_some(next),
            cut_line,
        },
    }
}

fn rpc_error(code: i32, message: String) -> ErrorData {
    ErrorData::new(ErrorCode(code), Cow::Owned(message), None)
}

/// The read_text_file contract's error table (the path echoed as answers show names).
fn file_rpc_error(e: &Error, path: &str) -> ErrorData {
    let clipped = clip(path);
    let path = quote::name(&clipped);
    match e {
        Error::NotFound { .. } => rpc_error(-32001, format!("File not found: {path}")),
        Error::PermissionDenied { .. } | Error::ReadOnly { .. } => {
            rpc_error(-32002, format!("Permission denied: {path}"))
        }
        Error::OutsideRoots { roots, .. } => rpc_error(
            -32002,
            format!("Permission denied: {path} is outside the allowed roots ({roots})"),
        ),
        Error::NoRoots => rpc_error(
            -32002,
            format!("Permission denied: {path} (the server has no allowed roots)"),
        ),
        Error::NotAFile { .. } => rpc_error(-32003, format!("{path} is not a file")),
        Error::Binary { .. } => rpc_error(-32004, format!("Cannot read binary file: {path}")),
        Error::InvalidPath { reason, .. } => {
            rpc_error(-32600, format!("Invalid path: {path}: {reason}"))
        }
        Error::Changed { .. } | Error::Io { .. } | Error::Unparsable { .. } => {
            ErrorData::internal_error(e.to_string(), None)
        }
    }
}

/// The block refusing the batch's entries from `first` (0-based) on: their paths are `rest`
/// (the first few distinct ones are named).
fn render_batch_cut(out: &mut String, first: usize, count: usize, rest: &[String], limit: usize) {
    const NAMED: usize = 20;
    let mut named: Vec<&str> = Vec::new();
    for p in rest {
        if named.len() == NAMED {
            break;
        }
        if !named.contains(&p.as_str()) {
            named.push(p);
        }
    }
    let distinct = rest.iter().collect::<std::collections::HashSet<_>>().len();
    let mut list: Vec<String> = named
        .iter()
        .map(|p| format!("path={:?}", clip(p)))
        .collect();
    if distinct > named.len() {
        list.push(format!("and {} more", distinct - named.len()));
    }
    let n = rest.len();
    let (entries, problem, fix) = if n == 1 {
        (
            format!("entry {} of {count}", first + 1),
            format!("Earlier files in this batch used the whole {limit}-byte response limit."),
            "Request this file in a separate read_files call.".to_string(),
        )
    } else {
        (
            format!("entries {}-{count} of {count}", first + 1),
            format!(
                "Earlier files in this batch used the whole {limit}-byte response limit: this entry and the {} after it were not read.",
                n - 1
            ),
            format!(
                "Request these {n} files (entries {}-{count} of this batch) in a separate read_files call.",
                first + 1
            ),
        )
    };
    let _ = write!(
        out,
        "File: {}\nError: Response limit reached\n\nYou provided: {entries}: {}\nProblem: {problem}\nFix: {fix}\n---\n",
        quote::name(&clip(&rest[0])),
        list.join(", "),
    );
}

/// Renders one excerpt as a `read_files` block.
fn render_excerpt(out: &mut String, e: &Excerpt) {
    let _ = writeln!(out, "File: {}", quote::name(&clip(&e.path)));
    if e.line_count() == 0 {
        if e.total_lines == 0 {
            out.push_str("Lines: none (empty file)\n");
        } else {
            let _ = writeln!(out, "Lines: none of {}", e.total_lines);
        }
    } else {
        let _ = write!(out, "Lines: {}-{} of ", e.first_line, e.last_line);
        if e.total_counted {
            let _ = writeln!(out, "{}", e.total_lines);
        } else {
            // A large file read at its start: its lines were counted only as far as needed.
            let _ = writeln!(
                out,
                "more than {} (a large file: lines not counted past the read)",
                e.total_lines
            );
        }
    }
    for note in &e.notes {
        let _ = writeln!(out, "{}", note.text(&MCP_WORDS));
    }
    out.push_str("---\n");
    out.push_str(&e.text);
    if !e.text.is_empty() && !e.text.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("---\n");
}
