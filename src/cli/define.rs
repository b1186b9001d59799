//! `mapgrep def NAME [PATH...]`: where a symbol is defined (the `find_definition` lookup), for
//! people; and the hidden `mapgrep bench-def` that times lookups for scripts/bench_define.py.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use super::errors::CLI_WORDS;
use crate::define::render::{body, summary};
use crate::define::{DefineError, DefineQuery, Definitions, Site, lookup};
use crate::grep::{GrepQuery, Progress};
use crate::roots::Roots;

#[derive(Debug, clap::Args)]
pub struct DefArgs {
    /// The symbol: a name ("parse_config") or a qualified name ("Parser.parse", "Foo::new").
    pub name: String,
    /// Files or directories to look in (default: the current directory).
    pub paths: Vec<String>,
    /// Only symbols of this kind (function, method, class, struct, enum, interface, trait,
    /// type, macro, constant, variable…).
    #[arg(long)]
    pub kind: Option<String>,
    /// Only files of this language: its name ("rust") or an extension ("rs").
    #[arg(long)]
    pub lang: Option<String>,
    /// Include or exclude files and directories matching GLOB ("!" excludes), as `grep -g`.
    #[arg(short = 'g', long = "glob", value_name = "GLOB")]
    pub globs: Vec<String>,
    /// List declarations (prototypes, signatures) too.
    #[arg(long)]
    pub declarations: bool,
    /// Print the code of every site (by default only a single site's).
    #[arg(long)]
    pub code: bool,
    /// One JSON object per site.
    #[arg(long)]
    pub json: bool,
    /// Look in hidden files and directories too.
    #[arg(long = "hidden")]
    pub hidden: bool,
    /// Look in files the ignore files exclude too.
    #[arg(long = "no-ignore")]
    pub no_ignore: bool,
    /// Seconds the lookup may spend searching and parsing before it answers with what it
    /// found (0: no limit); a name in thousands of files is cut, and says so.
    #[arg(long, value_name = "SECS", default_value_t = 3.0)]
    pub time_limit: f64,
}

/// The lookup of `args`: sites on standard output, the summary on standard error; exit 0
/// when something was found, 1 when nothing, 2 on an error.
pub fn run(args: DefArgs) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    // Paths resolve against the current directory; any the user may read is allowed.
    let ws = super::errors::workspace(Roots::new([cwd.as_path(), std::path::Path::new("/")])?);
    super::index::use_persisted(&ws, &args.paths);
    let q = DefineQuery {
        name: args.name,
        kind: args.kind,
        lang: args.lang,
        declarations: args.declarations,
        code: args.code.then_some(true),
        all_signatures: true,
        time_limit: Some(if args.time_limit > 0.0 {
            Duration::from_secs_f64(args.time_limit)
        } else {
            Duration::MAX
        }),
        scope: GrepQuery {
            relative_to_root: args.paths.is_empty(),
            search_paths: args.paths,
            globs: args.globs,
            include_hidden: args.hidden,
            include_ignored: args.no_ignore,
            ..GrepQuery::default()
        },
    };
    let d = match lookup(&ws, &q, &Progress::default()) {
        Ok(d) => d,
        Err(DefineError::Param(e)) => {
            eprintln!("{e}");
            return Ok(ExitCode::from(2));
        }
        Err(DefineError::File(e)) => {
            eprintln!("mapgrep: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        for s in &d.sites {
            writeln!(out, "{}", site_json(s))?;
        }
    } else {
        out.write_all(body(&d, usize::MAX, &CLI_WORDS).text.as_bytes())?;
    }
    out.flush()?;
    eprint!("{}", summary(&d, &q.name, &CLI_WORDS));
    Ok(if d.sites.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// A site as one JSON object.
fn site_json(s: &Site) -> serde_json::Value {
    serde_json::json!({
        "path": s.path,
        "start_line": s.start_line,
        "end_line": s.end_line,
        "doc_line": s.doc_line,
        "kind": s.kind,
        "name": s.name,
        "qualified": s.qualified,
        "address": s.address,
        "signature": s.signature,
        "language": s.lang.name(),
        "declaration": s.declaration,
        "code": s.code,
    })
}

/// `mapgrep bench-def`: lookups timed in fresh workspaces (a server started on ROOT with its
/// index loaded and nothing parsed: the cold lookup), then repeated (warm); one JSON line
/// per name.
#[derive(Debug, clap::Args)]
pub struct BenchDefArgs {
    /// Timed warm lookups per name (after the cold one).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: u64,
    /// Use the trigram index kept in DIR (loaded and validated, or built there), as a server
    /// does once its index is ready; without it every lookup scans.
    #[arg(long, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,
    /// The tree to look in (the simulated server's root).
    pub root: PathBuf,
    /// The names to look up.
    #[arg(required = true)]
    pub names: Vec<String>,
}

pub fn bench(args: BenchDefArgs) -> anyhow::Result<ExitCode> {
    crate::source::map_large_allocations(super::LARGE_ALLOCATION);
    let root = std::fs::canonicalize(&args.root)?;
    for name in &args.names {
        let ws = super::errors::builder()
            .content_budget(super::DEFAULT_SERVER_CONTENT_CACHE)
            .build(Roots::new([root.as_path()])?);
        let loaded = Instant::now();
        if let Some(dir) = &args.index_dir {
            let opts = crate::index::IndexOptions {
                dir: Some(dir.clone()),
                ..Default::default()
            };
            crate::index::start_for(&ws, std::slice::from_ref(&root), &opts);
            crate::index::wait_ready(&ws, Duration::from_secs(1800));
        }
        let loaded = loaded.elapsed();
        let q = DefineQuery {
            name: name.clone(),
            code: Some(false),
            ..DefineQuery::default()
        };
        let timed = || -> anyhow::Result<(Duration, Definitions)> {
            let t = Instant::now();
            let d = lookup(&ws, &q, &Progress::default()).map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok((t.elapsed(), d))
        };
        let (cold, d) = timed()?;
        let mut warm = Vec::new();
        for _ in 0..args.runs {
            warm.push(timed()?.0);
        }
        warm.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let sites: Vec<String> = d
            .sites
            .iter()
            .map(|s| format!("{}:{}", s.path, s.start_line))
            .collect();
        let line = serde_json::json!({
            "name": name,
            "index_load_ms": ms(loaded),
            "indexed": d.index.is_some(),
            "cold_ms": ms(cold),
            "warm_median_ms": ms(warm[warm.len() / 2]),
            "warm_max_ms": ms(*warm.last().expect("one run at least")),
            "definitions": d.sites.iter().filter(|s| !s.declaration).count(),
            "declarations": d.hidden_declarations + d.sites.iter().filter(|s| s.declaration).count(),
            "sites": sites,
            "files_with_name": d.files_with_name,
            "files_parsed": d.files_parsed,
            "files_from_records": d.files_from_records,
            "bytes_parsed": d.bytes_parsed,
            "parse_cache_bytes": ws.parse_cache_bytes(),
        });
        println!("{line}");
        crate::index::finish(&ws);
    }
    Ok(ExitCode::SUCCESS)
}
