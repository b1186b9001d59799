//! The command line: `mapgrep serve` (the MCP server), and `read`, `grep`, `toc`, `def` and
//! `section` for people. Parsing and rendering only; the work is the engine's.

mod bench;
mod code;
mod define;
mod doc;
mod errors;
mod grep;
mod index;
mod json;
mod map;
mod output;
mod printer;
mod read;
mod refs;
mod zip;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};

use crate::roots::Roots;
use crate::workspace::WorkspaceBuilder;

/// mapgrep: memory-mapped grep/read engine for AI agents (MCP server and CLI).
#[derive(Debug, Parser)]
#[command(name = "mapgrep", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the tools over MCP (stdio, or streamable HTTP with --http) for the files under
    /// ROOT... (default: the current directory).
    Serve(ServeArgs),
    /// Print a line range of a file, with line numbers.
    Read(read::ReadArgs),
    /// Search files for a regex (output close to ripgrep's).
    Grep(grep::GrepArgs),
    /// Print the outline of a markdown file: index paths, titles, slugs, lines, sizes.
    Toc(doc::TocArgs),
    /// Print sections of a markdown file by slug, index path (6.2), line or title.
    Section(doc::SectionArgs),
    /// Print the skeleton of a code file: imports, exports, comments, the symbol tree, gaps.
    Outline(code::OutlineArgs),
    /// Print symbols of a code file by name ("initializeApp") or qualified name ("App.start").
    Symbol(code::SymbolArgs),
    /// Print where a symbol is defined across a tree: `path:start-end: kind name — signature`
    /// per site (and the code of a single site), by name ("parse") or qualified name
    /// ("Parser.parse", "Foo::new").
    #[command(alias = "definition")]
    Def(define::DefArgs),
    /// Print every use of a name in code across a tree (calls, types, macros, imports, member
    /// accesses; not comments, strings or its definitions), grouped by file and by the
    /// symbol each use sits in. By name, not by type.
    #[command(alias = "references")]
    Refs(refs::RefsArgs),
    /// Print the most important definitions of a tree (a repo map): ranked by how the rest
    /// of the code uses them, one signature line each under its file, within a size.
    Map(map::MapArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to standard
    /// output, e.g. `mapgrep completions bash > ~/.local/share/bash-completion/completions/mapgrep`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to standard output, e.g. `mapgrep man > mapgrep.1`.
    Man,
    /// Build the persisted trigram index of ROOT (in the user's cache directory), which
    /// `serve` and `grep` use when it is valid.
    Index(index::IndexArgs),
    /// Time a search repeated in one process (a warm server); for scripts/bench_grep.py.
    #[command(hide = true)]
    BenchGrep(bench::BenchGrepArgs),
    /// Time definition lookups (cold, then warm) in one process; for scripts/bench_define.py.
    #[command(hide = true)]
    BenchDef(define::BenchDefArgs),
}

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Directories the server may read (default: the current directory). Relative tool paths
    /// resolve against the first.
    pub roots: Vec<PathBuf>,
    /// Bytes one tool answer may carry (text, notes and cursor; also the structured view's
    /// JSON) before it is cut and says where to go on. Default: chosen from the client's
    /// name (Codex and Copilot CLI 9,000 bytes and 200 lines, OpenCode 48,000, Claude Code
    /// 100,000, others 80,000); a call's max_output_bytes overrides it.
    #[arg(long)]
    pub max_output_bytes: Option<usize>,
    /// Byte budget of the line-index cache.
    #[arg(long, default_value_t = crate::workspace::DEFAULT_INDEX_BUDGET)]
    pub index_cache_bytes: usize,
    /// Byte budget of the file-content cache that makes repeated searches fast (files are
    /// re-read whenever their size or modification time changes); 0 disables it.
    #[arg(long, default_value_t = DEFAULT_SERVER_CONTENT_CACHE)]
    pub content_cache_bytes: usize,
    /// Byte budget of the parse cache: markdown outlines (the doc tools) and code structures
    /// (file_read), by file identity.
    #[arg(long, default_value_t = crate::workspace::DEFAULT_OUTLINE_BUDGET)]
    pub outline_cache_bytes: usize,
    /// Seconds one search may run before it is stopped with an error that says how to narrow
    /// it; 0: no limit.
    #[arg(long, default_value_t = crate::workspace::DEFAULT_SEARCH_TIMEOUT.as_secs())]
    pub search_timeout: u64,
    /// Let doc_replace write files (atomically, and only when the caller's hash matches).
    /// Without it the server never writes.
    #[arg(long)]
    pub allow_write: bool,
    /// Keep the repo map of a path of at least N indexed files between calls, brought up to
    /// date by the files that changed (a second map of the whole Linux tree then takes a
    /// fraction of a second instead of 12 s, and holds about 1.2 GB). One map is kept.
    #[arg(long, value_name = "N", default_value_t = crate::repomap::HOLD_FILES)]
    pub map_hold_files: usize,
    /// Let the kept repo map go (and its memory) after this many seconds without a map call.
    #[arg(long, value_name = "SECS", default_value_t = crate::repomap::HOLD_IDLE_SECS)]
    pub map_hold_secs: u64,
    #[command(flatten)]
    pub index: index::ServeIndexArgs,
    /// Serve MCP over streamable HTTP at ADDR (an IP address and port, e.g. 127.0.0.1:8765;
    /// port 0 takes a free one, which the log says), endpoint /mcp, instead of stdio: many
    /// sessions share one index and one set of caches. A loopback address unless
    /// MAPGREP_HTTP_TOKEN is set in the environment; with it, clients must send
    /// `Authorization: Bearer <token>`.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// With --http: the most sessions held at once; a client that opens one more gets status
    /// 503.
    #[arg(long, requires = "http", default_value_t = crate::mcp::http::DEFAULT_MAX_SESSIONS)]
    pub max_sessions: usize,
    /// With --http: seconds a session may go without a message before it is closed (its
    /// client then gets 404 and initializes again).
    #[arg(long, value_name = "SECS", requires = "http",
        default_value_t = crate::mcp::http::DEFAULT_IDLE_SECS)]
    pub session_idle_timeout: u64,
}

/// The server's default content-cache budget: 256 MiB (with a ready trigram index most
/// searches read a few files; see benchmarks/2026-history.md for what the cache gains and
/// costs).
pub const DEFAULT_SERVER_CONTENT_CACHE: usize = 256 << 20;

/// Blocks from this size get their own mapping in a server (see
/// [`crate::source::map_large_allocations`]).
pub const LARGE_ALLOCATION: usize = 1 << 20;

/// Parses the process arguments and runs the command.
pub fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => serve(args),
        Command::Read(args) => read::run(args),
        Command::Grep(args) => grep::run(args),
        Command::Toc(args) => doc::toc(args),
        Command::Section(args) => doc::section(args),
        Command::Outline(args) => code::outline(args),
        Command::Symbol(args) => code::symbol(args),
        Command::Def(args) => define::run(args),
        Command::Refs(args) => refs::run(args),
        Command::Map(args) => map::run(args),
        Command::BenchDef(args) => define::bench(args),
        Command::Index(args) => index::run(args),
        Command::BenchGrep(args) => bench::run(args),
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, "mapgrep", &mut script);
            std::io::Write::write_all(&mut std::io::stdout(), &script)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            let cmd = <Cli as clap::CommandFactory>::command();
            clap_mangen::Man::new(cmd).render(&mut std::io::stdout())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    // Refused before anything starts: an HTTP address other machines reach, without a token.
    let http = args.http.map(|addr| crate::mcp::http::HttpOptions {
        addr,
        token: std::env::var(crate::mcp::http::TOKEN_VAR).ok(),
        max_sessions: args.max_sessions,
        idle: Duration::from_secs(args.session_idle_timeout.max(1)),
    });
    if let Some(opts) = &http {
        opts.check().map_err(anyhow::Error::msg)?;
    }
    // A long-lived process: large blocks (an index build's posting lists, cached files) go
    // back to the system when freed.
    crate::source::map_large_allocations(LARGE_ALLOCATION);
    let ws = serve_workspace(&args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    // Asked to end from here on, the server leaves its files in order (registered before the
    // index starts: a request that came once the index said it was loaded used to end the
    // process at once).
    let asked_to_end = {
        let _in = runtime.enter();
        crate::platform::termination()
    };
    index::start(&ws, &args.index);
    eprintln!(
        "mapgrep {}: serving MCP on {} for {} ({})",
        env!("CARGO_PKG_VERSION"),
        if http.is_some() { "HTTP" } else { "stdio" },
        ws.roots().describe(),
        if args.allow_write {
            "doc_replace may write"
        } else {
            "read-only"
        }
    );
    if http.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        explain_stdio();
    }
    let ws = Arc::new(ws);
    // Symbols follow the index: recorded in the background once it is ready.
    crate::symbols::start(&ws);
    let budgets = crate::mcp::budget::Budgets::new(args.max_output_bytes);
    // Served until the input ends (stdio), or until the process is asked to end (SIGTERM,
    // Ctrl-C): either way it leaves its files in order.
    let served = runtime.block_on(async {
        let serving = async {
            match http {
                Some(opts) => {
                    let server = crate::mcp::MapgrepServer::with_budgets(Arc::clone(&ws), budgets);
                    crate::mcp::http::serve_http(server, opts).await
                }
                None => crate::mcp::serve_stdio(Arc::clone(&ws), budgets).await,
            }
        };
        tokio::select! {
            r = serving => r.map(|()| None),
            status = asked_to_end => Ok(Some(status)),
        }
    });
    // A clean exit leaves no marks directory or advertisement behind.
    crate::symbols::recorder::stop(&ws);
    crate::index::finish(&ws);
    // The client is gone: leave at once, even if a search is still running on a blocking
    // thread (its answer has no one to go to).
    runtime.shutdown_timeout(Duration::from_millis(100));
    match served? {
        Some(status) => {
            eprintln!("mapgrep: asked to end; exiting");
            Ok(ExitCode::from(status))
        }
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The workspace `serve` keeps: its roots (default: the current directory) and caches.
fn serve_workspace(args: &ServeArgs) -> anyhow::Result<crate::workspace::Workspace> {
    let roots = if args.roots.is_empty() {
        vec![std::env::current_dir().context("reading the current directory")?]
    } else {
        args.roots.clone()
    };
    let roots = Roots::new(&roots).context("checking the roots")?;
    let ws = WorkspaceBuilder::new()
        .words(&crate::mcp::words::MCP_WORDS)
        .max_output_bytes(
            args.max_output_bytes
                .unwrap_or(crate::workspace::DEFAULT_MAX_OUTPUT_BYTES),
        )
        .index_budget(args.index_cache_bytes)
        .content_budget(args.content_cache_bytes)
        .outline_budget(args.outline_cache_bytes)
        .allow_write(args.allow_write)
        .search_timeout((args.search_timeout > 0).then(|| Duration::from_secs(args.search_timeout)))
        .build(roots);
    // The repo map a server keeps between calls.
    let held = ws.state::<crate::repomap::HeldMaps>();
    held.min_files
        .store(args.map_hold_files, std::sync::atomic::Ordering::Relaxed);
    held.idle_secs
        .store(args.map_hold_secs, std::sync::atomic::Ordering::Relaxed);
    Ok(ws)
}

/// Run by hand at a terminal over stdio: says what the server waits for, and how a client
/// runs it.
fn explain_stdio() {
    eprintln!(
        "mapgrep serve speaks MCP over standard input and output: it waits for an MCP client, \
         which starts it itself. Configure your client to run it, for example:\n  \
         Claude Code:  claude mcp add mapgrep -- mapgrep serve /path/to/repo\n  \
         JSON config:  {{\"mcpServers\": {{\"mapgrep\": {{\"command\": \"mapgrep\", \"args\": [\"serve\", \"/path/to/repo\"]}}}}}}\n\
         Press Ctrl-D to quit (it exits 0 when its input ends). For many sessions over one \
         index, serve over HTTP instead: mapgrep serve --http 127.0.0.1:8765 /path/to/repo"
    );
}
