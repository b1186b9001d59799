//! The `grep_content` tool (docs/grep_content.md): parallel search with section-end hints.

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::answer::{Answer, NEXT_CURSOR, TRUNCATED, output_schema, plural};
use super::params::Parameters;
use super::words::MCP_WORDS;
use super::{MapgrepServer, with_progress};
use crate::grep::{self, Cursor, GrepError, GrepQuery, GrepReport, Progress};
use crate::quote;
use crate::read::ParamError;

const GREP_CONTENT_DESCRIPTION: &str = r###"Regex search (Rust syntax) over the roots, a directory or a file: step 1 of grep -> read. Honours .gitignore; skips hidden and binary files. Matches sorted by path and line:
  File: WORK.md, Line: 120, Section-End-Hint: 144 (next: ^\[LOG-)
  ---
  [LOG-015] - [2026-01-27 10:00] - [DECISION] - Task: MODEL-A
  ---
Section-End-Hint: the match's section ends there, before the next line matching section_patterns (default "^## ", "^# ", "^\[LOG-"); read it with read_files start_line, end_line. Markdown hits name their section (`Section: #slug (lines A-B)`, for doc_read), code hits their enclosing symbol (`Symbol: App.start (lines 30-60)`, for file_read target). A cut result ends with a cursor to pass back."###;

/// Parameters of `grep_content`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepContentParams {
    /// Regex (Rust syntax).
    pub pattern: String,
    /// File or directory (default: the first root).
    #[serde(alias = "path")]
    pub search_path: Option<String>,
    #[serde(default)]
    pub case_insensitive: bool,
    /// Lines before and after each match.
    pub context_lines: Option<u32>,
    /// Boundary regexes for Section-End-Hint ([] disables).
    pub section_patterns: Option<Vec<String>>,
    /// Globs like "*.rs"; "!" excludes.
    pub glob: Option<Vec<String>>,
    // Pattern is literal text.
    #[serde(default)]
    pub fixed_strings: bool,
    // Whole words only.
    #[serde(default)]
    pub word: bool,
    /// Matching lines in all (default 100, at most 10000).
    pub max_results: Option<u32>,
    // The cursor of a cut result, to continue it.
    pub cursor: Option<String>,
    // Search .gitignored files too.
    #[serde(default)]
    pub include_ignored: bool,
    // Search hidden files too.
    #[serde(default)]
    pub include_hidden: bool,
    /// Skip files over this many bytes.
    pub max_filesize: Option<u64>,
    /// Name every skipped binary or unreadable file.
    #[serde(default)]
    pub list_skipped: bool,
    pub max_output_bytes: Option<u32>,
    /// "content" (default), "files_with_matches" (paths, rg -l) or "count" (path:N, rg -c);
    /// max_results then counts files.
    #[serde(default)]
    pub output_mode: OutputModeParam,
}

/// `output_mode` of `grep_content`, as Claude Code's Grep names them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputModeParam {
    #[default]
    Content,
    FilesWithMatches,
    Count,
}

const MAX_RESULTS_LIMIT: u32 = 10_000;

/// The most context lines shown on each side of a match.
const MAX_CONTEXT_LINES: u32 = 100;

#[tool_router(router = grep_router, vis = "pub(super)")]
impl MapgrepServer {
    #[tool(
        name = "grep_content",
        description = GREP_CONTENT_DESCRIPTION,
        annotations(title = "Search file contents", read_only_hint = true, open_world_hint = false),
        output_schema = output_schema(&[NEXT_CURSOR, TRUNCATED])
    )]
    pub async fn grep_content(
        &self,
        Parameters(p): Parameters<GrepContentParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (list_skipped, default_sections) = (p.list_skipped, p.section_patterns.is_none());
        let budget = self.budget(&context, p.max_output_bytes);
        let (q, notes) = match query(p, budget) {
            Ok(q) => q,
            Err(e) => return Ok(Answer::param_error(e).into()),
        };
        let ending = Ending {
            provided: q.provided(&MCP_WORDS),
            notes,
            list_skipped,
            limits: self.workspace().limits().clone(),
            budget,
            mode: q.output,
        };
        let progress = Arc::new(Progress::default());
        let worker = Arc::clone(&progress);
        let search = self.blocking(move |ws| {
            let hints = crate::annotate::SearchHints::new(ws, default_sections, &worker.cancelled);
            grep::search_hinted(ws, &q, &worker, Some(&hints))
        });
        let timeout = ending.limits.search_timeout;
        let outcome = with_progress(&context, Arc::clone(&progress), timeout, search).await;
        let searched = progress.files_searched.load(Ordering::Relaxed);
        Ok(ending.answer(outcome.transpose()?, searched)?.into())
    }
}

/// What a search's answer is made from besides its report.
struct Ending {
    provided: String,
    notes: Vec<String>,
    list_skipped: bool,
    limits: crate::workspace::Limits,
    budget: super::budget::Budget,
    mode: grep::OutputMode,
}

impl Ending {
    /// The answer to a search that ended with `outcome` (`None`: still running past its
    /// deadline, after `searched` files).
    fn answer(
        self,
        outcome: Option<Result<GrepReport, GrepError>>,
        searched: u64,
    ) -> Result<Answer, ErrorData> {
        let limit = self.limits.search_timeout.unwrap_or_default();
        let budget = self.budget;
        Ok(super::budget::hold(
            budget,
            match outcome {
                None => timed_out(searched, &self.provided, limit),
                Some(Ok(r)) if r.timed_out => timed_out(r.files_searched, &self.provided, limit),
                Some(Ok(r)) if r.cancelled => {
                    return Err(ErrorData::internal_error(
                        "grep_content was cancelled",
                        None,
                    ));
                }
                Some(Ok(r)) => super::budget::fit(self.budget, |room| {
                    render(&r, self.mode, room, self.list_skipped, &self.notes)
                }),
                Some(Err(GrepError::Param(e))) => Answer::param_error(e),
                Some(Err(GrepError::File(e))) => Answer::error(e.to_string()),
            },
        ))
    }
}

/// The error of a search stopped at the server's deadline.
fn timed_out(files_searched: u64, provided: &str, limit: std::time::Duration) -> Answer {
    Answer::error(format!(
        "Error: Search timed out\n\nYou provided: {provided}\nProblem: The search ran past the server's time limit of {} s (--search-timeout) and was stopped after {} had been searched; its matches are not shown, being incomplete.\nFix: Narrow the search: a more specific pattern (a literal word, fewer repetitions such as \\w{{n}} or nested {{n}}, fewer .*), a search_path or a glob.",
        limit.as_secs(),
        plural(files_searched, "file"),
    ))
}

/// The engine query of a call's parameters (with a note for each value brought into its
/// range), or the error for a cursor that is not one.
fn query(
    p: GrepContentParams,
    budget: super::budget::Budget,
) -> Result<(GrepQuery, Vec<String>), ParamError> {
    let mut notes = Vec::new();
    let mut q = GrepQuery::new(p.pattern);
    // Both views carry the text: a page holds about half the budget of matches.
    q.max_result_bytes = Some(budget.bytes / 2);
    q.search_paths = p.search_path.into_iter().collect();
    q.case_insensitive = p.case_insensitive;
    let asked = p.context_lines.unwrap_or(0);
    let ctx = asked.min(MAX_CONTEXT_LINES);
    if ctx != asked {
        notes.push(format!(
            "Note: context_lines={asked} is over {MAX_CONTEXT_LINES}; {ctx} lines of context are shown."
        ));
    }
    let ctx = ctx as usize;
    q.before_context = ctx;
    q.after_context = ctx;
    q.section_patterns = p.section_patterns;
    q.globs = p.glob.unwrap_or_default();
    q.fixed_strings = p.fixed_strings;
    q.word = p.word;
    let asked = p.max_results.unwrap_or(100);
    let max = asked.clamp(1, MAX_RESULTS_LIMIT);
    if max != asked {
        notes.push(format!(
            "Note: max_results={asked} is outside 1-{MAX_RESULTS_LIMIT}; {max} was used."
        ));
    }
    q.max_results = max as usize;
    q.include_ignored = p.include_ignored;
    q.include_hidden = p.include_hidden;
    q.max_filesize = p.max_filesize;
    q.output = match p.output_mode {
        OutputModeParam::Content => grep::OutputMode::Content,
        OutputModeParam::FilesWithMatches => grep::OutputMode::FilesWithMatches,
        OutputModeParam::Count => grep::OutputMode::Count,
    };
    if let Some(c) = &p.cursor {
        q.cursor = Some(Cursor::decode(c).ok_or_else(|| {
            ParamError::new(
                "Invalid cursor",
                format!("cursor={c:?}"),
                "A cursor has the form LINE:PATH, as returned in next_cursor.".into(),
                "Pass the next_cursor of the previous grep_content result unchanged, or omit cursor to start from the beginning.",
            )
        })?);
    }
    Ok((q, notes))
}

/// Renders a report as the grep_content contract's text blocks within `budget` bytes (a cut moves the cursor
/// back to the first match not shown).
fn render(
    report: &GrepReport,
    mode: grep::OutputMode,
    budget: usize,
    list_skipped: bool,
    notes: &[String],
) -> Answer {
    let mut text = String::new();
    let shown = results(&mut text, report, mode, budget);
    let cut_by_budget = shown.cut.is_some();
    let next = shown.cut.clone().or_else(|| report.next_cursor.clone());
    let truncated = report.truncated || cut_by_budget;
    summary(&mut text, report, &shown, mode);
    skipped(&mut text, report, budget, list_skipped);
    if truncated && let Some(c) = &next {
        let why = if cut_by_budget || report.cut_by_size {
            "the response size limit".to_string()
        } else {
            format!("max_results={}", shown.results)
        };
        let _ = writeln!(
            text,
            "Results cut at {why}. More {} follow: call grep_content again with the same arguments and cursor: {}.",
            if mode == grep::OutputMode::Content {
                "matches"
            } else {
                "files"
            },
            quote::json(&c.encode())
        );
    }
    if shown.left_out > 0 {
        let _ = writeln!(
            text,
            "Note: {} shown without {} enclosing symbol: {} could not be parsed within this search's time for hints (file_read gives a file's symbols).",
            plural(shown.left_out, "hit"),
            if shown.left_out == 1 { "its" } else { "their" },
            if shown.left_out == 1 {
                "its file"
            } else {
                "their files"
            },
        );
    }
    for n in notes {
        text.push_str(n);
        text.push('\n');
    }
    Answer::ok(text)
        .field("next_cursor", truncated.then(|| next.map(|c| c.encode())))
        .field("truncated", truncated)
}

/// What [`results`] wrote: results (lines, or files), matching lines and files shown, and
/// where the budget cut.
#[derive(Default)]
struct Shown {
    results: u64,
    matches: u64,
    files: u64,
    /// Hits shown without their enclosing symbol (left out by the hint budget).
    left_out: u64,
    cut: Option<Cursor>,
}

/// Writes the results while they fit `budget` (the first always does): a block per match,
/// or in the files and count modes a line per file (a path, or `path:count`, as `rg -l` and
/// `rg -c` print them).
fn results(text: &mut String, report: &GrepReport, mode: grep::OutputMode, budget: usize) -> Shown {
    let mut shown = Shown::default();
    let mut last_path: Option<&str> = None;
    for m in &report.matches {
        // Each result is written in place and taken back if it passes the budget.
        let mark = text.len();
        match mode {
            grep::OutputMode::Content => block(text, m),
            grep::OutputMode::Count => {
                let _ = writeln!(text, "{}:{}", quote::name(&m.path), m.count);
            }
            grep::OutputMode::FilesWithMatches => {
                let _ = writeln!(text, "{}", quote::name(&m.path));
            }
        }
        if shown.results > 0 && text.len() > budget {
            text.truncate(mark);
            shown.cut = Some(Cursor {
                path: m.path.clone(),
                line: m.line,
            });
            break;
        }
        shown.results += 1;
        shown.matches += m.count.max(1);
        shown.left_out += u64::from(m.symbol_left_out);
        if last_path != Some(m.path.as_str()) {
            shown.files += 1;
            last_path = Some(&m.path);
        }
    }
    shown
}

/// `Found N matching lines in M files (searched K files).`, `Found M files with matches
/// (...)`, or `No matches (...)`.
fn summary(text: &mut String, report: &GrepReport, shown: &Shown, mode: grep::OutputMode) {
    let searched = plural(report.files_searched, "file");
    if shown.files == 0 {
        let _ = writeln!(text, "No matches (searched {searched}).");
    } else if mode == grep::OutputMode::FilesWithMatches {
        let _ = writeln!(
            text,
            "Found {} with matches (searched {searched}).",
            plural(shown.files, "file"),
        );
    } else {
        let _ = writeln!(
            text,
            "Found {} in {} (searched {searched}).",
            plural(shown.matches, "matching line"),
            plural(shown.files, "file"),
        );
    }
}

/// The binary files skipped and the files that could not be read: every name with
/// `list_skipped`, else a count and a few examples.
fn skipped(text: &mut String, report: &GrepReport, budget: usize, list_skipped: bool) {
    if list_skipped {
        list_names(
            text,
            budget,
            "Skipped binary files",
            report.binary_skipped,
            &report.binary_examples,
            quote::name,
        );
        list_names(
            text,
            budget,
            "Could not read",
            report.error_count,
            &report.errors,
            quote::line,
        );
        return;
    }
    if report.binary_skipped > 0 {
        let _ = writeln!(
            text,
            "Skipped {} (e.g. {}; list_skipped: true names them all).",
            plural(report.binary_skipped, "binary file"),
            report
                .binary_examples
                .iter()
                .take(3)
                .map(|n| quote::name(n))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if report.error_count > 0 {
        let _ = writeln!(
            text,
            "Could not read {} (e.g. {}).",
            plural(report.error_count, "file or directory"),
            report.errors.first().map_or("".into(), |e| quote::line(e))
        );
    }
}

/// Appends one match's block: its header line, `---`, the line (with its context), `---`.
fn block(out: &mut String, m: &grep::GrepMatch) {
    let _ = write!(out, "File: {}, Line: {}", quote::name(&m.path), m.line);
    if let Some(h) = &m.section_end_hint {
        match &h.next {
            Some(p) => {
                let _ = write!(out, ", Section-End-Hint: {} (next: {p})", h.end_line);
            }
            None => {
                let _ = write!(out, ", Section-End-Hint: {} (end of file)", h.end_line);
            }
        }
    }
    if let Some(start) = m.section_end_hint.as_ref().and_then(|h| h.start_line)
        && start < m.line
    {
        let _ = write!(out, ", Section-Start: {start}");
    }
    if let Some(s) = &m.section {
        let _ = write!(
            out,
            ", Section: #{} (lines {}-{})",
            s.slug, s.start_line, s.end_line
        );
    }
    if let Some(sym) = &m.symbol {
        let _ = write!(
            out,
            ", Symbol: {} (lines {}-{})",
            quote::name(&sym.name),
            sym.start_line,
            sym.end_line
        );
    }
    out.push_str("\n---\n");
    let with_context = !m.before.is_empty() || !m.after.is_empty();
    for c in &m.before {
        let _ = writeln!(out, "{}- {}", c.line, c.text);
    }
    if with_context {
        let _ = write!(out, "{}: ", m.line);
    }
    out.push_str(&m.text);
    if m.text_cut {
        out.push_str(" […line cut]");
    }
    out.push('\n');
    for c in &m.after {
        let _ = writeln!(out, "{}- {}", c.line, c.text);
    }
    out.push_str("---\n");
}

/// `TITLE (N):` and one name per line (as `show` shows it), within the response budget.
fn list_names(
    text: &mut String,
    budget: usize,
    title: &str,
    count: u64,
    names: &[String],
    show: fn(&str) -> std::borrow::Cow<'_, str>,
) {
    if count == 0 {
        return;
    }
    let _ = writeln!(text, "{title} ({count}):");
    for (i, name) in names.iter().enumerate() {
        let name = show(name);
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
