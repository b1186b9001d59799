//! The `grep_content` tool (spec/000, spec/001): parallel search with section-end hints.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::common::schema_for_output;
use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::MapgrepServer;
use super::params::Parameters;
use crate::grep::{
    self, ContextLine, Cursor, EnclosingSymbol, GrepError, GrepQuery, GrepReport, Progress,
    SectionHint,
};

const GREP_CONTENT_DESCRIPTION: &str = r###"Search file contents with a regex, in parallel, across the roots (or one file/directory). Honours .gitignore, skips hidden and binary files (counted in the summary). Results are sorted by path then line.

This is the first step of the "grep -> read" workflow: find the line, then read exactly its section with read_files (start_line + read_to_next_pattern).

Each match is reported as:
  File: WORK.md, Line: 120, Section-End-Hint: 144 (next: ^\[LOG-)
  ---
  [LOG-015] - [2026-01-27 10:00] - [DECISION] - Task: MODEL-A
  ---

**Section-End-Hint:** where the match's section probably ends. The server looks for the next line after the match that matches one of `section_patterns`, tried in order; default [r"^## ", r"^# ", r"^\[LOG-"] (level-2 header, level-1 header, log entry). The first pattern with a later match wins: hint = that line - 1, so you can read_files with start_line = Line and end_line = hint directly. "(end of file)" means the section runs to the end. Pass your own list (e.g. ["^### "]) to change the boundaries, or [] to disable hints.

**Symbol:** in TypeScript/TSX, JavaScript, Rust, Python and Go files a match also names its innermost enclosing symbol: `File: src/app.ts, Line: 42, Section-End-Hint: 310 (end of file), Symbol: App.start (lines 30-60)`. Read exactly that symbol with file_read { file, target: "App.start" }.

Example:
  grep_content(pattern="\[DECISION\]", search_path="WORK.md")
  -> File: WORK.md, Line: 120, Section-End-Hint: 144 (next: ^\[LOG-)
  read_files([{"path": "WORK.md", "start_line": 120, "end_line": 144}])

Args:
    pattern: Regex (Rust syntax; use fixed_strings for literal text).
    search_path: File or directory to search (default: the first root).
    case_insensitive: Case-insensitive match (default false).
    context_lines: Lines of context before and after each match (default 0).
    section_patterns: Boundary regexes for Section-End-Hint ([] disables).
    glob: Include/exclude globs like ["*.rs", "!target/**"].
    fixed_strings, word: Literal pattern / whole-word matches.
    max_results: Total matching lines returned across all files (default 100). A cut result says so and gives a cursor.
    cursor: Pass the cursor of a cut result to continue exactly where it stopped.
    include_ignored, include_hidden, max_filesize: Widen or narrow the file set.
    list_skipped: Name every binary file skipped and every file that could not be read (default: a count and examples)."###;

/// Parameters of `grep_content`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepContentParams {
    /// Regex to search for (Rust regex syntax).
    pub pattern: String,
    /// File or directory to search, relative to the first root or absolute inside a root (default: the first root).
    pub search_path: Option<String>,
    /// Case-insensitive matching.
    #[serde(default)]
    pub case_insensitive: bool,
    /// Lines of context before and after each match.
    pub context_lines: Option<u32>,
    /// Boundary regexes for Section-End-Hint, tried in order (default ["^## ", "^# ", "^\\[LOG-"]; [] disables hints).
    pub section_patterns: Option<Vec<String>>,
    /// Globs selecting files ("*.md", "src/**"); a leading "!" excludes.
    pub glob: Option<Vec<String>>,
    /// Treat the pattern as literal text.
    #[serde(default)]
    pub fixed_strings: bool,
    /// Match whole words only.
    #[serde(default)]
    pub word: bool,
    /// Maximum matching lines returned in total (default 100, at most 10000).
    pub max_results: Option<u32>,
    /// Continue a cut result: the `next_cursor` it returned.
    pub cursor: Option<String>,
    /// Also search files ignored by .gitignore/.ignore.
    #[serde(default)]
    pub include_ignored: bool,
    /// Also search hidden files and directories.
    #[serde(default)]
    pub include_hidden: bool,
    /// Skip files larger than this many bytes.
    pub max_filesize: Option<u64>,
    /// Name every skipped binary file and every file that could not be read (default: a
    /// count and three examples).
    #[serde(default)]
    pub list_skipped: bool,
}

/// One match in structured output.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MatchOut {
    pub path: String,
    pub line: u64,
    pub text: String,
    pub section_end_hint: Option<SectionHint>,
    /// The innermost symbol around the match (TypeScript, JavaScript, Rust, Python, Go
    /// files): read it with file_read { target: name }.
    pub symbol: Option<EnclosingSymbol>,
    pub context: ContextOut,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ContextOut {
    pub before: Vec<ContextLine>,
    pub after: Vec<ContextLine>,
}

/// Structured result of `grep_content`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GrepContentResult {
    pub matches: Vec<MatchOut>,
    /// Matching lines returned.
    pub total_matches: u64,
    pub files_searched: u64,
    pub files_matched: u64,
    /// Files skipped as binary (a NUL byte in the first 64 KiB).
    pub binary_skipped: u64,
    /// Files that could not be read.
    pub errors: u64,
    /// With list_skipped: the binary files skipped, by path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_binary: Option<Vec<String>>,
    /// With list_skipped: why each unreadable file or directory could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<Vec<String>>,
    /// True when the result was cut (max_results or the response size limit).
    pub truncated: bool,
    /// Pass as `cursor` to continue a cut result.
    pub next_cursor: Option<String>,
}

const MAX_RESULTS_LIMIT: u32 = 10_000;

#[tool_router(router = grep_router, vis = "pub(super)")]
impl MapgrepServer {
    #[tool(
        name = "grep_content",
        description = GREP_CONTENT_DESCRIPTION,
        annotations(title = "Search file contents", read_only_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<GrepContentResult>()
    )]
    pub async fn grep_content(
        &self,
        Parameters(p): Parameters<GrepContentParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut q = GrepQuery::new(p.pattern);
        q.search_paths = p.search_path.into_iter().collect();
        q.case_insensitive = p.case_insensitive;
        let ctx = p.context_lines.unwrap_or(0).min(100) as usize;
        q.before_context = ctx;
        q.after_context = ctx;
        q.section_patterns = p.section_patterns;
        q.globs = p.glob.unwrap_or_default();
        q.fixed_strings = p.fixed_strings;
        q.word = p.word;
        q.max_results = p.max_results.unwrap_or(100).clamp(1, MAX_RESULTS_LIMIT) as usize;
        q.include_ignored = p.include_ignored;
        q.include_hidden = p.include_hidden;
        q.max_filesize = p.max_filesize;
        if let Some(c) = &p.cursor {
            match Cursor::decode(c) {
                Some(c) => q.cursor = Some(c),
                None => {
                    return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                        "Error: Invalid cursor\n\nYou provided: cursor={c:?}\nProblem: A cursor has the form LINE:PATH, as returned in next_cursor.\nFix: Pass the next_cursor of the previous grep_content result unchanged, or omit cursor to start from the beginning."
                    ))]));
                }
            }
        }

        let progress = Arc::new(Progress::default());
        let token = context.meta.get_progress_token();
        let peer = context.peer.clone();
        let ct = context.ct.clone();
        // Report progress while the search runs, and turn a cancellation into a stop flag.
        let ticker = {
            let progress = Arc::clone(&progress);
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(Duration::from_millis(100));
                tick.tick().await;
                loop {
                    tokio::select! {
                        _ = ct.cancelled() => {
                            progress.cancel();
                            break;
                        }
                        _ = tick.tick() => {
                            if let Some(token) = &token {
                                let n = progress.files_searched.load(std::sync::atomic::Ordering::Relaxed);
                                let _ = peer
                                    .notify_progress(
                                        ProgressNotificationParam::new(token.clone(), n as f64)
                                            .with_message(format!("{n} files searched")),
                                    )
                                    .await;
                            }
                        }
                    }
                }
            })
        };
        let worker_progress = Arc::clone(&progress);
        let budget = self.workspace().limits().max_output_bytes;
        let result = self
            .blocking(move |ws| {
                let mut report = grep::search(ws, &q, &worker_progress)?;
                grep::annotate_symbols(ws, &mut report);
                Ok(report)
            })
            .await;
        ticker.abort();
        let report = match result? {
            Ok(r) => r,
            Err(GrepError::Param(e)) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(
                    e.to_string(),
                )]));
            }
            Err(GrepError::File(e)) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(
                    e.to_string(),
                )]));
            }
        };
        if report.cancelled {
            return Err(ErrorData::internal_error(
                "grep_content was cancelled",
                None,
            ));
        }
        let (text, structured) = render(report, budget, p.list_skipped);
        let mut out = CallToolResult::success(vec![ContentBlock::text(text)]);
        out.structured_content = Some(
            serde_json::to_value(&structured)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?,
        );
        Ok(out)
    }
}

/// Renders a report as spec/000's text blocks plus the structured result, within `budget`
/// bytes of text (a cut moves the cursor back to the first match not shown).
fn render(report: GrepReport, budget: usize, list_skipped: bool) -> (String, GrepContentResult) {
    let mut text = String::new();
    let mut shown = Vec::new();
    let mut cut_cursor = None;
    for m in report.matches {
        let mut block = String::new();
        let _ = write!(block, "File: {}, Line: {}", m.path, m.line);
        if let Some(h) = &m.section_end_hint {
            match &h.next {
                Some(p) => {
                    let _ = write!(block, ", Section-End-Hint: {} (next: {p})", h.end_line);
                }
                None => {
                    let _ = write!(block, ", Section-End-Hint: {} (end of file)", h.end_line);
                }
            }
        }
        if let Some(sym) = &m.symbol {
            let _ = write!(
                block,
                ", Symbol: {} (lines {}-{})",
                sym.name, sym.start_line, sym.end_line
            );
        }
        block.push_str("\n---\n");
        let with_context = !m.before.is_empty() || !m.after.is_empty();
        for c in &m.before {
            let _ = writeln!(block, "{}- {}", c.line, c.text);
        }
        if with_context {
            let _ = write!(block, "{}: ", m.line);
        }
        block.push_str(&m.text);
        if m.text_cut {
            block.push_str(" […line cut]");
        }
        block.push('\n');
        for c in &m.after {
            let _ = writeln!(block, "{}- {}", c.line, c.text);
        }
        block.push_str("---\n");
        if !shown.is_empty() && text.len() + block.len() > budget {
            cut_cursor = Some(Cursor {
                path: m.path.clone(),
                line: m.line,
            });
            break;
        }
        text.push_str(&block);
        shown.push(MatchOut {
            path: m.path,
            line: m.line,
            text: m.text,
            section_end_hint: m.section_end_hint,
            symbol: m.symbol,
            context: ContextOut {
                before: m.before,
                after: m.after,
            },
        });
    }
    let cut_by_budget = cut_cursor.is_some();
    let next = cut_cursor.or(report.next_cursor);
    let truncated = report.truncated || cut_by_budget;
    let files_matched = {
        let mut paths: Vec<&str> = shown.iter().map(|m| m.path.as_str()).collect();
        paths.dedup();
        paths.len() as u64
    };
    if shown.is_empty() {
        let _ = writeln!(
            text,
            "No matches (searched {}).",
            plural(report.files_searched, "file")
        );
    } else {
        let _ = writeln!(
            text,
            "Found {} in {} (searched {}).",
            plural(shown.len() as u64, "matching line"),
            plural(files_matched, "file"),
            plural(report.files_searched, "file")
        );
    }
    if list_skipped {
        list_names(
            &mut text,
            budget,
            "Skipped binary files",
            report.binary_skipped,
            &report.binary_examples,
        );
        list_names(
            &mut text,
            budget,
            "Could not read",
            report.error_count,
            &report.errors,
        );
    } else if report.binary_skipped > 0 {
        let _ = writeln!(
            text,
            "Skipped {} (e.g. {}; list_skipped: true names them all).",
            plural(report.binary_skipped, "binary file"),
            report
                .binary_examples
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if report.error_count > 0 && !list_skipped {
        let _ = writeln!(
            text,
            "Could not read {} (e.g. {}).",
            plural(report.error_count, "file or directory"),
            report.errors.first().cloned().unwrap_or_default()
        );
    }
    if truncated && let Some(c) = &next {
        let why = if cut_by_budget {
            "the response size limit".to_string()
        } else {
            format!("max_results={}", shown.len())
        };
        let _ = writeln!(
            text,
            "Results cut at {why}. More matches follow: call grep_content again with the same arguments and cursor: \"{}\".",
            c.encode()
        );
    }
    let structured = GrepContentResult {
        total_matches: shown.len() as u64,
        matches: shown,
        files_searched: report.files_searched,
        files_matched,
        binary_skipped: report.binary_skipped,
        errors: report.error_count,
        skipped_binary: list_skipped.then(|| report.binary_examples.clone()),
        unreadable: list_skipped.then(|| report.errors.clone()),
        truncated,
        next_cursor: next.map(|c| c.encode()),
    };
    (text, structured)
}

/// `TITLE (N):` and one name per line, within the response budget.
fn list_names(text: &mut String, budget: usize, title: &str, count: u64, names: &[String]) {
    if count == 0 {
        return;
    }
    let _ = writeln!(text, "{title} ({count}):");
    for (i, name) in names.iter().enumerate() {
        if text.len() + name.len() + 2 > budget {
            let _ = writeln!(text, "  … {} more (response size limit)", names.len() - i);
            return;
        }
        let _ = writeln!(text, "  {name}");
    }
    if (names.len() as u64) < count {
        let _ = writeln!(text, "  … {} more not named", count - names.len() as u64);
    }
}

fn plural(n: u64, what: &str) -> String {
    match (n, what) {
        (1, w) => format!("1 {w}"),
        (n, "file or directory") => format!("{n} files or directories"),
        (n, w) => format!("{n} {w}s"),
    }
}
