//! The MCP server: mapgrep's engine exposed as tools with rmcp, over stdio (one session) or
//! streamable HTTP (many sessions over one workspace, [`http`]).
//!
//! Handlers are thin: parse parameters, run one engine call off the async threads, render.
//! Logs go to stderr; over stdio, stdout is the protocol.

mod answer;
pub mod budget;
mod code;
mod define;
mod doc;
mod files;
mod grep;
pub mod http;
mod http_guard;
mod map;
mod params;
mod read;
mod refs;
pub mod schema;
mod sessions;
pub mod transport;
pub mod words;

use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::grep::Progress;
use crate::workspace::Workspace;
use answer::Answer;
use budget::{Budget, Budgets};

pub use code::FileReadParams;
pub use define::FindDefinitionParams;
pub use grep::GrepContentParams;
pub use read::{
    FileReadRequest, ReadFilesParams, ReadTextFileMeta, ReadTextFileParams, ReadTextFileResult,
};

/// What the server tells a client about how to use it (each tool's description says more).
pub const INSTRUCTIONS: &str = "\
mapgrep reads the files under its roots fast and exactly (relative paths resolve against the \
first root). Find, then read only what you need: grep_content gives each hit its line, the end \
of its section (Section-End-Hint) and, in code, its enclosing symbol; then read_files reads \
that range (or start_line + read_to_next_pattern), doc_toc/doc_read read markdown sections by \
title or slug, and file_read reads code symbols by name; find_definition finds where a symbol \
is defined across the roots; find_files finds files by name or glob.";

/// The tool that writes: listed only when the server may write.
const WRITING_TOOL: &str = "doc_replace";

/// The MCP server type: one session's service over the state every session shares (the
/// [`Workspace`]: roots, index, watcher, caches; and the tools). [`MapgrepServer::session`]
/// makes the service of another session over the same state.
#[derive(Clone)]
pub struct MapgrepServer {
    ws: Arc<Workspace>,
    tools: Arc<Tools>,
    /// Each client's answer budget.
    budgets: Budgets,
    /// The session's client name as `initialize` gave it ([`budget::client_name`]): set
    /// once, so a second `initialize` is refused. A server value serves one session.
    client: Arc<OnceLock<String>>,
}

/// The tools, built once per process and shared by its sessions.
struct Tools {
    router: ToolRouter<MapgrepServer>,
    /// What `tools/list` answers: portable schemas, the writing tool only when allowed.
    listed: Vec<Tool>,
}

/// The key under which Claude Code reads a tool's largest result size (in characters).
const MAX_RESULT_SIZE_KEY: &str = "anthropic/maxResultSizeChars";

impl MapgrepServer {
    /// A server whose answer budgets come from each client's name (docs/README.md).
    pub fn new(ws: Arc<Workspace>) -> MapgrepServer {
        MapgrepServer::with_budgets(ws, Budgets::new(None))
    }

    /// A server with the answer budgets `budgets`.
    pub fn with_budgets(ws: Arc<Workspace>, budgets: Budgets) -> MapgrepServer {
        let mut tool_router = MapgrepServer::read_router()
            + MapgrepServer::grep_router()
            + MapgrepServer::doc_router()
            + MapgrepServer::code_router()
            + MapgrepServer::define_router()
            + MapgrepServer::refs_router()
            + MapgrepServer::map_router()
            + MapgrepServer::files_router();
        for route in tool_router.map.values_mut() {
            let tool = &mut route.attr;
            tool.input_schema = schema::portable_object(&tool.input_schema);
            tool.output_schema = tool.output_schema.as_ref().map(schema::portable_object);
            if tool.name != WRITING_TOOL {
                let mut meta = rmcp::model::JsonObject::new();
                meta.insert(MAX_RESULT_SIZE_KEY.into(), budgets.declared().into());
                tool.meta = Some(meta.into());
            }
        }
        let listed = tool_router
            .list_all()
            .into_iter()
            .filter(|t| ws.allows_write() || t.name != WRITING_TOOL)
            .collect();
        MapgrepServer {
            ws,
            tools: Arc::new(Tools {
                router: tool_router,
                listed,
            }),
            budgets,
            client: Arc::default(),
        }
    }

    /// The service of a new session: the same workspace and tools, its own client name
    /// (and so its own answer budget).
    pub fn session(&self) -> MapgrepServer {
        MapgrepServer {
            ws: Arc::clone(&self.ws),
            tools: Arc::clone(&self.tools),
            budgets: self.budgets,
            client: Arc::default(),
        }
    }

    /// The answer budget of a call from `context`'s client that asked for `asked` bytes: the
    /// client named in the request's own `_meta`, else the session's.
    fn budget(&self, context: &RequestContext<RoleServer>, asked: Option<u32>) -> Budget {
        let named = context.meta.client_info().map(|c| c.name);
        let client = named.as_deref().or(self.client.get().map(String::as_str));
        self.budgets.of(client, asked)
    }

    pub fn workspace(&self) -> &Arc<Workspace> {
        &self.ws
    }

    /// The tools as `tools/list` gives them.
    pub fn tools(&self) -> &[Tool] {
        &self.tools.listed
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

    /// [`Self::blocking`] for an answer.
    async fn answer<F>(&self, f: F) -> Result<rmcp::model::CallToolResult, ErrorData>
    where
        F: FnOnce(&Workspace) -> Answer + Send + 'static,
    {
        self.blocking(f).await.map(Into::into)
    }

    /// An answer rendered by `f(ws, room)` until it fits `budget` ([`budget::fit`]): `room`
    /// is the bytes of file text the engine may put in.
    async fn fitted<F>(
        &self,
        budget: Budget,
        f: F,
    ) -> Result<rmcp::model::CallToolResult, ErrorData>
    where
        F: Fn(&Workspace, usize) -> Answer + Send + 'static,
    {
        self.answer(move |ws| budget::fit(budget, |room| f(ws, room)))
            .await
    }
}

/// Runs `work` (a search counting into `progress`), reporting the count every 100 ms when
/// the client sent a progress token (values strictly increase: an unchanged count is not sent
/// again; the total once the file list is known), turning the client's cancellation into
/// `progress.cancel()` and stopping the search at `deadline` (`progress.time_out()`). `None`
/// when the search did not stop within [`DEADLINE_GRACE`] of its deadline: the call is
/// answered anyway and the search left to stop at its next check.
async fn with_progress<T>(
    context: &RequestContext<RoleServer>,
    progress: Arc<Progress>,
    deadline: Option<Duration>,
    work: impl Future<Output = T>,
) -> Option<T> {
    let token = context.meta.get_progress_token();
    let peer = context.peer.clone();
    let ct = context.ct.clone();
    let reporter = tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        tick.tick().await;
        let mut sent = 0;
        let expire = async {
            match deadline {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(expire);
        loop {
            tokio::select! {
                _ = ct.cancelled() => {
                    progress.cancel();
                    break;
                }
                _ = &mut expire => {
                    progress.time_out();
                    break;
                }
                _ = tick.tick() => {
                    let n = progress.files_searched.load(Ordering::Relaxed);
                    let Some(token) = token.as_ref().filter(|_| n > sent) else { continue };
                    sent = n;
                    let total = progress.files_total.load(Ordering::Relaxed);
                    let note = progress.note.lock().expect("note").clone();
                    let message = match note {
                        Some(why) => format!("{n} files searched ({why})"),
                        None => format!("{n} files searched"),
                    };
                    let mut p = ProgressNotificationParam::new(token.clone(), n as f64)
                        .with_message(message);
                    p.total = (total >= n).then_some(total as f64);
                    let _ = peer.notify_progress(p).await;
                }
            }
        }
    });
    let out = match deadline {
        Some(d) => tokio::time::timeout(d + DEADLINE_GRACE, work).await.ok(),
        None => Some(work.await),
    };
    reporter.abort();
    out
}

/// How long a search that ran out of time may take to stop before its call is answered
/// without it.
const DEADLINE_GRACE: Duration = Duration::from_millis(500);

impl ServerHandler for MapgrepServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = Implementation::new("mapgrep", env!("CARGO_PKG_VERSION"));
        info.title = Some("mapgrep".into());
        info.description = Some(env!("CARGO_PKG_DESCRIPTION").into());
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(info)
            .with_instructions(INSTRUCTIONS)
    }

    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, ErrorData> {
        let name = budget::client_name(&request.client_info.name);
        let shown = crate::quote::json(&name);
        if self.client.set(name).is_err() {
            log(format_args!(
                "refused a second initialize (client {shown}): the session keeps its first"
            ));
            return Err(ErrorData::invalid_request(
                "initialize was already received in this session (the MCP lifecycle allows one per session); the session continues as first initialized",
                None,
            ));
        }
        let b = self.budgets.of(self.client.get().map(String::as_str), None);
        let lines = match b.lines {
            usize::MAX => String::new(),
            n => format!(" and {n} lines"),
        };
        log(format_args!(
            "client {shown}: answers of at most {} bytes{lines}",
            b.bytes
        ));
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut result = ListToolsResult::with_all_items(self.tools.listed.clone());
        // Cache hints as rmcp's generated handler gives them.
        if context
            .protocol_version()
            .is_some_and(|v| v >= rmcp::model::ProtocolVersion::V_2026_07_28)
        {
            result.ttl_ms = Some(0);
            result.cache_scope = Some(rmcp::model::CacheScope::Public);
        }
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.listed.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A call in flight pauses background work (the symbol recorder) until it is answered.
        let _calling = crate::index::searching(&self.ws);
        let call = ToolCallContext::new(self, request, context);
        let mut response = self.tools.router.call(call).await?;
        if let CallToolResponse::Complete(result) = &mut response {
            answer::complete_views(result);
        }
        Ok(response)
    }
}

/// Logs a line on stderr (stdout is the protocol).
fn log(message: impl std::fmt::Display) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "mapgrep: {message}");
}

/// Serves `ws` over stdin/stdout until the client closes its end. Calls still running
/// then get a moment to answer; the caller should not wait for more ([`transport`] says when
/// the input ended, rmcp alone would wait seconds for them).
pub async fn serve_stdio(ws: Arc<Workspace>, budgets: Budgets) -> anyhow::Result<()> {
    let server = MapgrepServer::with_budgets(ws, budgets);
    let io = transport::stdio();
    let closed = Arc::clone(&io.closed);
    let running = match server.serve((io.read, io.write)).await {
        Ok(running) => running,
        // The input ended before a client said hello: nothing to serve, nothing went wrong.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
            log("the input closed before an MCP client connected");
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    tokio::select! {
        done = running.waiting() => {
            done?;
        }
        _ = async {
            closed.notified().await;
            tokio::time::sleep(Duration::from_millis(200)).await;
        } => {}
    }
    Ok(())
}
