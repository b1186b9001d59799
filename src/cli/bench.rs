//! `mapgrep bench-grep`: the engine's search repeated in one process with one workspace, as
//! a long-lived server runs it.

use std::process::ExitCode;
use std::time::Instant;

use crate::grep::{self, GrepQuery, Progress};
use crate::roots::Roots;

/// `mapgrep bench-grep`: the same search repeated inside one process with one workspace, as a
/// long-lived server runs it; prints the median wall time in seconds.
#[derive(Debug, clap::Args)]
pub struct BenchGrepArgs {
    /// How many timed runs (after one warm-up).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: u64,
    /// Content-cache budget of the simulated server (as `serve --content-cache-bytes`).
    #[arg(long, default_value_t = super::DEFAULT_SERVER_CONTENT_CACHE)]
    pub content_cache_bytes: usize,
    /// Cap on the hits returned, as `grep_content`'s `max_results` (default: no cap, every
    /// hit collected).
    #[arg(long)]
    pub max_results: Option<usize>,
    /// The regex to search for.
    pub pattern: String,
    /// Files or directories to search.
    pub paths: Vec<String>,
    /// Case-insensitive search.
    #[arg(short = 'i', long)]
    pub ignore_case: bool,
    /// Only whole-word matches.
    #[arg(short = 'w', long)]
    pub word_regexp: bool,
    /// Line numbers (accepted for the benchmark script's argument lists; no effect).
    #[arg(short = 'n', long = "line-number")]
    pub line_number: bool,
    /// Use the trigram index kept in DIR (loaded and validated, or built there, with the
    /// watcher on), as a server does once its index is ready.
    #[arg(long, value_name = "DIR")]
    pub index_dir: Option<std::path::PathBuf>,
}

pub fn run(args: BenchGrepArgs) -> anyhow::Result<ExitCode> {
    crate::source::map_large_allocations(super::LARGE_ALLOCATION);
    let cwd = std::env::current_dir()?;
    let ws = super::errors::builder()
        .content_budget(args.content_cache_bytes)
        .build(Roots::new([cwd.as_path(), std::path::Path::new("/")])?);
    let q = GrepQuery {
        relative_to_root: args.paths.is_empty(),
        search_paths: args.paths.clone(),
        case_insensitive: args.ignore_case,
        word: args.word_regexp,
        section_patterns: Some(Vec::new()),
        max_results: args.max_results.unwrap_or(u32::MAX as usize),
        ..GrepQuery::new(args.pattern.clone())
    };
    if let Some(dir) = &args.index_dir {
        let opts = crate::index::IndexOptions {
            dir: Some(dir.clone()),
            ..Default::default()
        };
        let dirs: Vec<std::path::PathBuf> = args
            .paths
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .filter(|p| p.is_dir())
            .collect();
        crate::index::start_for(&ws, &dirs, &opts);
        crate::index::wait_ready(&ws, std::time::Duration::from_secs(600));
    }
    let mut times = Vec::new();
    let mut found = 0;
    for i in 0..=args.runs {
        let t = Instant::now();
        let r = grep::search(&ws, &q, &Progress::default()).map_err(|e| anyhow::anyhow!("{e}"))?;
        if i > 0 {
            times.push(t.elapsed().as_secs_f64());
        } else {
            // The warm-up is a fresh server's first search (caches empty).
            eprintln!("first run: {:.6} s", t.elapsed().as_secs_f64());
        }
        found = r.matches.len();
    }
    times.sort_by(f64::total_cmp);
    for (root, st) in crate::index::status(&ws) {
        eprintln!("index of {}: {st:?}", root.display());
    }
    println!("matches {found} median_s {:.6}", times[times.len() / 2]);
    // Its watcher's marks directory and advertisement go with it.
    crate::index::finish(&ws);
    Ok(ExitCode::SUCCESS)
}
