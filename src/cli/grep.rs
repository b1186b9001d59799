//! `mapgrep grep`: the search engine with output close to ripgrep's.

use std::io::Write;
use std::process::ExitCode;

use crate::grep::{self, GrepError, GrepMatch, GrepQuery, Progress};
use crate::roots::Roots;

#[derive(Debug, clap::Args)]
pub struct GrepArgs {
    /// The regex to search for (Rust regex syntax).
    pub pattern: String,
    /// Files or directories to search (default: the current directory).
    pub paths: Vec<String>,
    /// Show line numbers (the default when printing to a terminal, as in ripgrep).
    #[arg(short = 'n', long = "line-number", overrides_with = "no_line_number")]
    pub line_number: bool,
    /// Hide line numbers.
    #[arg(short = 'N', long)]
    pub no_line_number: bool,
    /// Case-insensitive search.
    #[arg(short = 'i', long)]
    pub ignore_case: bool,
    /// Only whole-word matches.
    #[arg(short = 'w', long)]
    pub word_regexp: bool,
    /// Treat the pattern as a literal string.
    #[arg(short = 'F', long)]
    pub fixed_strings: bool,
    /// Lines of context before and after each match.
    #[arg(short = 'C', long, value_name = "N")]
    pub context: Option<usize>,
    /// Lines of context after each match.
    #[arg(short = 'A', long, value_name = "N")]
    pub after_context: Option<usize>,
    /// Lines of context before each match.
    #[arg(short = 'B', long, value_name = "N")]
    pub before_context: Option<usize>,
    /// Include or exclude files (`!` excludes), as ripgrep's -g.
    #[arg(short = 'g', long = "glob", value_name = "GLOB")]
    pub globs: Vec<String>,
    /// Search hidden files and directories.
    #[arg(long = "hidden")]
    pub hidden: bool,
    /// Do not honour .gitignore/.ignore files.
    #[arg(long = "no-ignore")]
    pub no_ignore: bool,
    /// Stop after this many matching lines in total (the output says where to continue).
    #[arg(short = 'm', long = "max-results", value_name = "N")]
    pub max_results: Option<usize>,
    /// Skip files larger than this many bytes.
    #[arg(long, value_name = "BYTES")]
    pub max_filesize: Option<u64>,
    /// Show section-end hints (default patterns `^## `, `^# `, `^\[LOG-`).
    #[arg(long)]
    pub hints: bool,
    /// Print one JSON object per match (and a summary object last).
    #[arg(long)]
    pub json: bool,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,
}

/// The engine query for command-line arguments.
fn query(args: &GrepArgs) -> GrepQuery {
    GrepQuery {
        pattern: args.pattern.clone(),
        relative_to_root: args.paths.is_empty(),
        search_paths: args.paths.clone(),
        case_insensitive: args.ignore_case,
        fixed_strings: args.fixed_strings,
        word: args.word_regexp,
        before_context: args.before_context.or(args.context).unwrap_or(0),
        after_context: args.after_context.or(args.context).unwrap_or(0),
        section_patterns: if args.hints { None } else { Some(Vec::new()) },
        globs: args.globs.clone(),
        include_ignored: args.no_ignore,
        include_hidden: args.hidden,
        max_filesize: args.max_filesize,
        max_results: args.max_results.unwrap_or(u32::MAX as usize),
        cursor: None,
        threads: args.threads,
    }
}

pub fn run(args: GrepArgs) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    // People at a shell search whatever their user may read: relative paths resolve against
    // the current directory, and `/` is a root too.
    let ws = super::errors::workspace(Roots::new([cwd.as_path(), std::path::Path::new("/")])?);
    let q = query(&args);
    let report = match grep::search(&ws, &q, &Progress::default()) {
        Ok(r) => r,
        Err(GrepError::Param(p)) => {
            eprintln!("{p}");
            return Ok(ExitCode::from(2));
        }
        Err(GrepError::File(e)) => {
            eprintln!("mapgrep: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let single_file = args.paths.len() == 1 && std::path::Path::new(&args.paths[0]).is_file();
    let numbers = args.line_number
        || (!args.no_line_number && std::io::IsTerminal::is_terminal(&std::io::stdout()));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    if args.json {
        for m in &report.matches {
            serde_json::to_writer(&mut out, &json_match(m))?;
            out.write_all(b"\n")?;
        }
        let summary = serde_json::json!({
            "type": "summary",
            "matches": report.matches.len(),
            "files_searched": report.files_searched,
            "files_matched": report.files_matched,
            "binary_skipped": report.binary_skipped,
            "truncated": report.truncated,
            "next_cursor": report.next_cursor.as_ref().map(|c| c.encode()),
        });
        serde_json::to_writer(&mut out, &summary)?;
        out.write_all(b"\n")?;
    } else {
        let with_context = q.before_context + q.after_context > 0;
        let mut last: Option<(&str, u64)> = None;
        for m in &report.matches {
            let first = m.before.first().map_or(m.line, |c| c.line);
            if with_context
                && let Some((p, l)) = last
                && (p != m.path || first > l + 1)
            {
                out.write_all(b"--\n")?;
            }
            let skip_to = match last {
                Some((p, l)) if p == m.path => l,
                _ => 0,
            };
            let prefix = |sep: char, line: u64| {
                let mut s = String::new();
                if !single_file {
                    s.push_str(&m.path);
                    s.push(sep);
                }
                if numbers {
                    s.push_str(&line.to_string());
                    s.push(sep);
                }
                s
            };
            for c in m.before.iter().filter(|c| c.line > skip_to) {
                writeln!(out, "{}{}", prefix('-', c.line), c.text)?;
            }
            if m.line > skip_to {
                writeln!(out, "{}{}", prefix(':', m.line), m.text)?;
            }
            let mut end = m.line;
            for c in &m.after {
                writeln!(out, "{}{}", prefix('-', c.line), c.text)?;
                end = c.line;
            }
            last = Some((&m.path, end));
        }
    }
    out.flush()?;
    if report.truncated
        && let Some(c) = &report.next_cursor
    {
        eprintln!(
            "mapgrep: stopped at {} matches; the next is {}:{}",
            report.matches.len(),
            c.path,
            c.line
        );
    }
    if report.binary_skipped > 0 {
        eprintln!("mapgrep: skipped {} binary files", report.binary_skipped);
    }
    Ok(if report.matches.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn json_match(m: &GrepMatch) -> serde_json::Value {
    serde_json::json!({
        "type": "match",
        "path": m.path,
        "line": m.line,
        "text": m.text,
    })
}

/// `mapgrep bench-grep`: the same search repeated inside one process with one workspace, as a
/// long-lived server runs it; prints the median wall time in seconds.
#[derive(Debug, clap::Args)]
pub struct BenchGrepArgs {
    /// How many timed runs (after one warm-up).
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
    /// Content-cache budget of the simulated server (as `serve --content-cache-bytes`).
    #[arg(long, default_value_t = super::DEFAULT_SERVER_CONTENT_CACHE)]
    pub content_cache_bytes: usize,
    #[command(flatten)]
    pub grep: GrepArgs,
}

pub fn bench(args: BenchGrepArgs) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    let ws = super::errors::builder()
        .content_budget(args.content_cache_bytes)
        .build(Roots::new([cwd.as_path(), std::path::Path::new("/")])?);
    let q = query(&args.grep);
    let mut times = Vec::with_capacity(args.runs);
    let mut found = 0;
    for i in 0..=args.runs {
        let t = std::time::Instant::now();
        let r = grep::search(&ws, &q, &Progress::default()).map_err(|e| anyhow::anyhow!("{e}"))?;
        if i > 0 {
            times.push(t.elapsed().as_secs_f64());
        }
        found = r.matches.len();
    }
    times.sort_by(f64::total_cmp);
    println!("matches {found} median_s {:.6}", times[times.len() / 2]);
    Ok(ExitCode::SUCCESS)
}
