//! The MCP server: mapgrep's engine exposed as tools over stdio with rmcp.
//!
//! Handlers are thin: parse parameters, run one engine call off the async threads, render.
//! Logs go to stderr; stdout is the protocol.

mod code;
mod doc;
mod grep;
mod params;
mod read;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool_handler};

use crate::workspace::Workspace;

pub use code::{FileReadParams, FileReadResult, SymbolRef};
pub use doc::{
    DocFindResult, DocReadManyResult, DocReadResult, DocReplaceResult, DocSection, DocTocResult,
    TocEntry,
};
pub use grep::{GrepContentParams, GrepContentResult};
pub use read::{
    FileReadRequest, ReadFilesParams, ReadTextFileMeta, ReadTextFileParams, ReadTextFileResult,
};

/// What the server tells a client about how to use it.
pub const INSTRUCTIONS: &str = "\
mapgrep serves fast, exact reads of the files under its roots (relative paths resolve against \
the first root).

Workflow: find, then read exactly what you need.
1. Find the line with grep_content (regex, parallel, .gitignore-aware). Each match comes with \
a Section-End-Hint: the last line of its section (next `## `, `# ` or `[LOG-` boundary).
2. Read only that section with read_files: give start_line and read_to_next_pattern \
(e.g. \"^\\\\[LOG-\" for log entries, \"^## \" for level-2 sections, \"^#+ \" for any heading); \
the server stops right before the next matching line, so you never compute end_line yourself.
Use head/tail to sample a file, start_line/end_line when you know both ends, and read_text_file \
for line/limit pagination with has_more/next_line metadata. Every read says which lines it \
returned and the file's total; a cut read says where to continue.

Markdown documents: doc_toc lists a file's sections (index path, title, slug, lines); doc_read reads one section by slug (\"phase-b\"), index path (\"6.2\"), line (\"120\") or title in any script (\"验证计划\", \"phase b\"); doc_read_many reads several in one call; doc_find filters sections by title glob, level, size or content regex. Every section read carries a hash; doc_replace (only with --allow-write) edits one section if that hash still matches.

Code (TypeScript/TSX, JavaScript, Rust, Python, Go): file_read { file, skeleton: true } maps a file (imports, exports, comments, every symbol with its lines, gaps); file_read { file, target: \"initializeApp\" } (or \"App.start\", or several names) reads exactly that symbol; file_read { file, startLine, endLine } shows a range with every symbol collapsed to a one-line stub that names its target. grep_content matches in these files name their enclosing symbol.";

/// The MCP server type: one [`Workspace`] shared by every call.
#[derive(Clone)]
pub struct MapgrepServer {
    ws: Arc<Workspace>,
    tool_router: ToolRouter<MapgrepServer>,
}

impl MapgrepServer {
    pub fn new(ws: Arc<Workspace>) -> MapgrepServer {
        MapgrepServer {
            ws,
            tool_router: MapgrepServer::read_router()
                + MapgrepServer::grep_router()
                + MapgrepServer::doc_router()
                + MapgrepServer::code_router(),
        }
    }

    pub fn workspace(&self) -> &Arc<Workspace> {
        &self.ws
    }

    /// Runs blocking engine work on tokio's blocking pool.
    async fn blocking<T, F>(&self, f: F) -> Result<T, ErrorData>
    where
        T: Send + 'static,
        F: FnOnce(&Workspace) -> T + Send + 'static,
    {
        let ws = Arc::clone(&self.ws);
        tokio::task::spawn_blocking(move || f(&ws))
            .await
            .map_err(|e| ErrorData::internal_error(format!("engine task failed: {e}"), None))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for MapgrepServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("mapgrep", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}

/// An error result in spec/001's layout.
fn error_result(e: crate::read::ParamError) -> rmcp::model::CallToolResult {
    rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(e.to_string())])
}

/// A success with a text block and structured content.
fn structured<T: serde::Serialize>(
    text: String,
    value: &T,
) -> Result<rmcp::model::CallToolResult, ErrorData> {
    let mut out = rmcp::model::CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)]);
    out.structured_content = Some(
        serde_json::to_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))?,
    );
    Ok(out)
}

/// Serves `ws` over stdin/stdout until the client disconnects.
pub async fn serve_stdio(ws: Arc<Workspace>) -> anyhow::Result<()> {
    let server = MapgrepServer::new(ws);
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
