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
mod select;
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
    /// Serve the tools over MCP (stdio) for the files under ROOT... (default: the current
    /// directory).
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
    #[command(flatten)]
    pub index: index::ServeIndexArgs,
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
    // A long-lived process: large blocks (an index build's posting lists, cached files) go
    // back to the system when freed.
    crate::source::map_large_allocations(LARGE_ALLOCATION);
    let roots = if args.roots.is_empty() {
        vec![std::env::current_dir().context("reading the current directory")?]
    } else {
        args.roots
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
    index::start(&ws, &args.index);
    eprintln!(
        "mapgrep {}: serving MCP on stdio for {} ({})",
        env!("CARGO_PKG_VERSION"),
        ws.roots().describe(),
        if args.allow_write {
            "doc_replace may write"
        } else {
            "read-only"
        }
    );
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        // Run by hand: say what this is waiting for, and how a client runs it.
        eprintln!(
            "mapgrep serve speaks MCP over standard input and output: it waits for an MCP client, \
             which starts it itself. Configure your client to run it, for example:\n  \
             Claude Code:  claude mcp add mapgrep -- mapgrep serve /path/to/repo\n  \
             JSON config:  {{\"mcpServers\": {{\"mapgrep\": {{\"command\": \"mapgrep\", \"args\": [\"serve\", \"/path/to/repo\"]}}}}}}\n\
             Press Ctrl-D to quit (it exits 0 when its input ends)."
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let ws = Arc::new(ws);
    // Symbols follow the index: recorded in the background once it is ready.
    crate::symbols::start(&ws);
    let budgets = crate::mcp::budget::Budgets::new(args.max_output_bytes);
    // Served until the input ends, or until the process is asked to end (SIGTERM, Ctrl-C):
    // either way it leaves its files in order.
    let served = runtime.block_on(async {
        tokio::select! {
            r = crate::mcp::serve_stdio(Arc::clone(&ws), budgets) => r.map(|()| None),
            status = crate::platform::termination() => Ok(Some(status)),
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
