//! The structure-aware code reading tool of docs/file_read.md: `file_read`.

use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use rmcp::RoleServer;
use rmcp::service::RequestContext;

use std::sync::Arc;

use super::answer::{Answer, TRUNCATED, output_schema};
use super::params::Parameters;
use super::words::MCP_WORDS;
use super::{MapgrepServer, with_progress};
use crate::code::answer::answer;
use crate::code::{CodeFile, ReadQuery};
use crate::grep::Progress;
use crate::read::file_error_layout;

const FILE_READ_DESCRIPTION: &str = r###"Read code by its structure instead of guessed line numbers (TS/JS, Rust, Python, Go, C/C++, Java, C#, Kotlin, Ruby, PHP, Swift, Scala, Bash; others come back raw). Map, then read exactly what you need:
- skeleton: true -> the map: imports, exports, comments, every symbol with kind and lines (`[12-28] function: initializeApp`, members as Class.method), gaps verbatim.
- target: ["initializeApp"] or ["App.start", "CONFIG"] -> those symbols in full with doc comments and decorators (members collapsed to stubs unless recursive: true). Ambiguous names list candidates.
- startLine/endLine -> the range with every symbol collapsed to a stub naming its target (not with target).
For plain line ranges use read_files."###;

/// Parameters of `file_read`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileReadParams {
    /// Relative to the first root, or absolute inside a root.
    #[serde(alias = "path")]
    pub file: String,
    /// Symbol names ("initializeApp") or qualified names ("App.start"); one name may be a string.
    pub target: Option<Vec<String>>,
    /// With target: members in full instead of stubs.
    pub recursive: Option<bool>,
    /// Alone: the file's map. With a range: collapse import/export/comment blocks too.
    pub skeleton: Option<bool>,
    /// First line (1-based) of a range.
    #[serde(rename = "startLine", alias = "start_line")]
    pub start_line: Option<i64>,
    /// Last line of a range.
    #[serde(rename = "endLine", alias = "end_line")]
    pub end_line: Option<i64>,
    pub max_output_bytes: Option<u32>,
}

impl FileReadParams {
    fn query(&self) -> ReadQuery {
        ReadQuery {
            targets: self.target.clone().unwrap_or_default(),
            recursive: self.recursive.unwrap_or(false),
            skeleton: self.skeleton.unwrap_or(false),
            start_line: self.start_line,
            end_line: self.end_line,
        }
    }

    fn provided(&self, q: &ReadQuery) -> String {
        let mut p = format!("file={:?}", self.file);
        if !q.targets.is_empty() {
            p.push_str(&format!(", target={:?}", q.targets));
        }
        for (name, v) in [("startLine", self.start_line), ("endLine", self.end_line)] {
            if let Some(v) = v {
                p.push_str(&format!(", {name}={v}"));
            }
        }
        if q.skeleton {
            p.push_str(", skeleton=true");
        }
        if q.recursive {
            p.push_str(", recursive=true");
        }
        p
    }
}

#[tool_router(router = code_router, vis = "pub(super)")]
impl MapgrepServer {
    #[tool(
        name = "file_read",
        description = FILE_READ_DESCRIPTION,
        annotations(title = "Read code by structure", read_only_hint = true, open_world_hint = false),
        output_schema = output_schema(&[TRUNCATED])
    )]
    pub async fn file_read(
        &self,
        Parameters(p): Parameters<FileReadParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let budget = self.budget(&context, p.max_output_bytes);
        let progress = Arc::new(Progress::default());
        let cancel = Arc::clone(&progress);
        let work = self.fitted(budget, move |ws, room| read(ws, &p, room, &cancel));
        let timeout = self.workspace().limits().search_timeout;
        match with_progress(&context, progress, timeout, work).await {
            Some(answered) => answered,
            None => Ok(Answer::error(
                "Error: file_read timed out\n\nProblem: parsing the file ran past the server's time limit (--search-timeout).\nFix: Read a line range with startLine/endLine.".to_string(),
            )
            .into()),
        }
    }
}

/// One `file_read` answer within `room` bytes, its parse stopped by `progress`'s cancel.
fn read(
    ws: &crate::workspace::Workspace,
    p: &FileReadParams,
    room: usize,
    progress: &Progress,
) -> Answer {
    let query = p.query();
    let provided = p.provided(&query);
    let stop = crate::code::Stop::new(Some(&progress.cancelled), None);
    let file = match CodeFile::open_with(ws, &p.file, &stop) {
        Ok(file) => file,
        Err(e) => return Answer::param_error(file_error_layout(&e, &provided, &MCP_WORDS)),
    };
    let shown = crate::quote::name(&p.file);
    match answer(&file, &shown, &query, &provided, room, &MCP_WORDS) {
        Ok(a) => Answer::ok(a.text).field("truncated", a.truncated),
        Err(e) => Answer::param_error(e),
    }
}
