//! The read tools: `read_files` (spec/000, spec/001) and `read_text_file` (spec/002).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

use rmcp::handler::server::common::schema_for_output;
use rmcp::model::{CallToolResult, ContentBlock, ErrorCode};
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::MapgrepServer;
use super::params::Parameters;
use crate::error::Error;
use crate::read::{self, Excerpt, ReadRequest, clip};

const READ_FILES_DESCRIPTION: &str = r###"Read the contents of multiple files simultaneously.
Returns, for each file, its path, the lines returned and the file's total line count, then the content between dashes. Prefer relative paths (they resolve against the first root).

**Workflow Synergy with `grep_content`:**
This tool is the second step in the efficient "grep -> read" workflow. After finding relevant files and line numbers, use this tool to perform a targeted read of only those specific sections.

**SECTION-AWARE READING (RECOMMENDED):**
When reading structured markdown files (session logs, documentation, etc.), use `read_to_next_pattern` to read until the next section boundary. This eliminates the need to calculate end_line yourself.

Example - Reading a log entry:
  grep_content(pattern="\[DECISION\]", search_path="WORK.md")   -> File: WORK.md, Line: 120
  read_files([{"path": "WORK.md", "start_line": 120, "read_to_next_pattern": "^\\[LOG-"}])
  -> reads lines 120-144 (stops because line 145 matches ^\[LOG-)

Example - Reading a markdown section:
  grep_content(pattern="^## Implementation", search_path="README.md")  -> Line: 45
  read_files([{"path": "README.md", "start_line": 45, "read_to_next_pattern": "^## "}])
  -> reads the whole "## Implementation" section

The scan starts at the line after start_line (start_line itself is always included); the matching line is NOT included (it begins the next section). A line matches when the regex matches anywhere in it; anchor with ^ for line starts. If nothing matches, the read runs to end of file and says so in a Note.

**Common boundary patterns:**
- Markdown headers (any level): "^#+ "
- Level 2 headers only: "^## "
- Log entries: "^\\[LOG-"
- XML-style tags: "</section>"
- Blank line (paragraph boundary): "^$"

**When NOT to use `read_to_next_pattern`:**
- When you already know the exact end_line
- When reading entire small files (omit all line parameters)
- When using head/tail for sampling

**LARGE FILE HANDLING:**
Whole-file reads of large JSON/YAML files are refused unless large_file_passthrough is true: read them with head/tail/start_line, or grep first. Every response has a byte limit; a read that hits it is cut at a line boundary and a Note says which start_line continues it.

Args:
    files: A list of file read requests. Each request can include:
        - path (required): File path to read
        - start_line: Line number to start reading from (1-indexed)
        - end_line: Line number to stop reading at (inclusive)
        - read_to_next_pattern: Regex pattern - read until a line matches this (needs start_line; not with end_line, head or tail)
        - head: Read first N lines
        - tail: Read last N lines
    large_file_passthrough: If False (default), blocks whole-file reads of large JSON/YAML files.
One invalid request does not fail the others: it gets an Error block with what you provided, the problem and the fix."###;

const READ_TEXT_FILE_DESCRIPTION: &str = "Read complete or partial content of a text file with optional pagination. \
`path` must be absolute. `line` (1-indexed, default 1) and `limit` (default: all remaining lines) select lines; \
the result carries `content` and `_meta {total_lines, returned_lines, has_more, next_line}`: when has_more is true, \
call again with line = next_line. Binary files are refused (-32004).";

/// Below this many bytes of remaining budget, later batch entries are refused as over the
/// response limit instead of returning a fragment.
const MIN_ENTRY_BUDGET: usize = 256;

/// One entry of a `read_files` batch.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileReadRequest {
    /// File path to read (relative to the first root, or absolute inside a root).
    pub path: String,
    /// Read the first N lines.
    pub head: Option<i64>,
    /// Read the last N lines.
    pub tail: Option<i64>,
    /// Line number to start reading from (1-indexed).
    pub start_line: Option<i64>,
    /// Line number to stop reading at (inclusive).
    pub end_line: Option<i64>,
    /// Regex: read from start_line until the line before the next line that matches it.
    pub read_to_next_pattern: Option<String>,
}

/// Parameters of `read_files`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFilesParams {
    /// The files to read; each entry is read independently.
    pub files: Vec<FileReadRequest>,
    /// If false (default), whole-file reads of large JSON/YAML files are refused.
    #[serde(default)]
    pub large_file_passthrough: bool,
}

/// Parameters of `read_text_file` (spec/002).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadTextFileParams {
    /// Absolute path to the file
    pub path: String,
    /// Starting line number (1-indexed). If omitted, read from line 1
    #[schemars(range(min = 1))]
    pub line: Option<i64>,
    /// Maximum number of lines to return. If omitted, return all remaining lines
    #[schemars(range(min = 1))]
    pub limit: Option<i64>,
}

/// `_meta` of a `read_text_file` result.
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
    /// Set when a single line was longer than the response limit: that line's number. Only
    /// its first bytes are in `content`; read it in full with read_files or a larger limit.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cut_line: Option<u64>,
}

/// Result of `read_text_file` (spec/002).
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
        annotations(title = "Read files", read_only_hint = true, open_world_hint = false)
    )]
    pub async fn read_files(
        &self,
        Parameters(params): Parameters<ReadFilesParams>,
    ) -> Result<CallToolResult, ErrorData> {
        self.blocking(move |ws| {
            let limit = ws.limits().max_output_bytes;
            let mut out = String::new();
            let mut failures = 0;
            let count = params.files.len();
            let mut files = params.files.into_iter().enumerate();
            while let Some((i, entry)) = files.next() {
                let mut req = ReadRequest::from(entry);
                req.large_file_passthrough = params.large_file_passthrough;
                if !out.is_empty() {
                    out.push('\n');
                }
                // The blocks before (file text, headers, notes and errors) count against the
                // limit. With less than a useful remainder left, the rest of the batch is
                // refused in one block rather than returned as scraps.
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
                            clip(&req.path),
                            e.to_param_error(&req.provided())
                        );
                    }
                }
            }
            if count == 0 {
                failures = 1;
                out = "Error: No files requested\n\nYou provided: files=[]\nProblem: The batch is empty.\nFix: Pass at least one request, e.g. {\"files\": [{\"path\": \"README.md\", \"head\": 20}]}.".into();
            }
            let content = vec![ContentBlock::text(out)];
            if failures == count.max(1) {
                CallToolResult::error(content)
            } else {
                CallToolResult::success(content)
            }
        })
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
    ) -> Result<CallToolResult, ErrorData> {
        let ReadTextFileParams { path, line, limit } = params;
        if !Path::new(&path).is_absolute() {
            return Err(rpc_error(-32600, format!("Path must be absolute: {path}")));
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
        let start = line.unwrap_or(1) as u64;
        let limit = limit.map(|l| l as u64);
        let result = self
            .blocking(move |ws| {
                read::read_page(ws, &path, start, limit, ws.limits().max_output_bytes)
                    .map_err(|e| file_rpc_error(&e, &path))
            })
            .await??;
        let result = page_result(result, start);
        let mut content = vec![ContentBlock::text(result.content.clone())];
        let m = &result.meta;
        let summary = match m.next_line {
            Some(next) => format!(
                "[{} lines returned of {} total; more from line {next}: call again with line: {next}]",
                m.returned_lines, m.total_lines
            ),
            None => format!(
                "[{} lines returned of {} total; end of file]",
                m.returned_lines, m.total_lines
            ),
        };
        let mut summary = summary;
        if let Some(n) = m.cut_line {
            summary.push_str(&format!(
                "\n[line {n} is longer than the response size limit and was cut: only its first bytes are shown]"
            ));
        }
        content.push(ContentBlock::text(summary));
        let structured = serde_json::to_value(&result)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let mut out = CallToolResult::success(content);
        out.structured_content = Some(structured);
        Ok(out)
    }
}

/// Builds spec/002's result from an excerpt that started at line `start`.
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

/// spec/002's error table.
fn file_rpc_error(e: &Error, path: &str) -> ErrorData {
    match e {
        Error::NotFound { .. } => rpc_error(-32001, format!("File not found: {path}")),
        Error::PermissionDenied { .. } => rpc_error(-32002, format!("Permission denied: {path}")),
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
        Error::Changed { .. } | Error::Io { .. } => ErrorData::internal_error(e.to_string(), None),
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
        clip(&rest[0]),
        list.join(", "),
    );
}

/// Renders one excerpt as a `read_files` block.
fn render_excerpt(out: &mut String, e: &Excerpt) {
    let _ = writeln!(out, "File: {}", clip(&e.path));
    if e.line_count() == 0 {
        if e.total_lines == 0 {
            out.push_str("Lines: none (empty file)\n");
        } else {
            let _ = writeln!(out, "Lines: none of {}", e.total_lines);
        }
    } else {
        let _ = writeln!(
            out,
            "Lines: {}-{} of {}",
            e.first_line, e.last_line, e.total_lines
        );
    }
    for note in &e.notes {
        let _ = writeln!(out, "{note}");
    }
    out.push_str("---\n");
    out.push_str(&e.text);
    if !e.text.is_empty() && !e.text.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("---\n");
}
