//! `mapgrep refs NAME [PATH...]`: who uses a name (the `find_references` search), for people
//! and scripts.

use std::io::Write;
use std::process::ExitCode;

use super::errors::CLI_WORDS;
use crate::error::RequestError;
use crate::grep::{GrepQuery, Progress};
use crate::refs::{RefsQuery, find, render};
use crate::roots::Roots;

#[derive(Debug, clap::Args)]
pub struct RefsArgs {
    /// The name ("kmalloc_array"); a qualified name ("Parser.parse") is searched by its last
    /// part.
    pub name: String,
    /// Files or directories to look in (default: the current directory).
    pub paths: Vec<String>,
    /// Only files of this language: its name ("rust") or an extension ("rs").
    #[arg(long)]
    pub lang: Option<String>,
    /// Include or exclude files and directories matching GLOB ("!" excludes), as `grep -g`.
    #[arg(short = 'g', long = "glob", value_name = "GLOB")]
    pub globs: Vec<String>,
    /// One JSON object per use.
    #[arg(long)]
    pub json: bool,
    /// Look in hidden files and directories too.
    #[arg(long = "hidden")]
    pub hidden: bool,
    /// Look in files the ignore files exclude too.
    #[arg(long = "no-ignore")]
    pub no_ignore: bool,
}

/// The search of `args`: uses on standard output (grouped by file and enclosing symbol, or
/// JSON lines); exit 0 when some were found, 1 when none, 2 on an error.
pub fn run(args: RefsArgs) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    // Paths resolve against the current directory; any the user may read is allowed.
    let ws = super::errors::workspace(Roots::new([cwd.as_path(), std::path::Path::new("/")])?);
    super::index::use_persisted(&ws, &args.paths);
    let q = RefsQuery {
        name: args.name,
        lang: args.lang,
        scope: GrepQuery {
            relative_to_root: args.paths.is_empty(),
            search_paths: args.paths,
            globs: args.globs,
            include_hidden: args.hidden,
            include_ignored: args.no_ignore,
            ..GrepQuery::default()
        },
    };
    let r = match find(&ws, &q, &Progress::default()) {
        Ok(r) => r,
        Err(RequestError::Param(e)) => {
            eprintln!("{e}");
            return Ok(ExitCode::from(2));
        }
        Err(RequestError::File(e)) => {
            eprintln!("mapgrep: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        for u in &r.refs {
            let v = serde_json::json!({
                "path": u.path,
                "line": u.line,
                "column": u.column,
                "text": u.text,
                "enclosing": u.enclosing.as_ref().map(|e| serde_json::json!({
                    "name": e.name, "kind": e.kind,
                    "start_line": e.start_line, "end_line": e.end_line,
                })),
            });
            writeln!(out, "{v}")?;
        }
    } else {
        out.write_all(render(&r, None, usize::MAX, &CLI_WORDS).text.as_bytes())?;
    }
    out.flush()?;
    for e in &r.errors {
        eprintln!("mapgrep: {e}");
    }
    Ok(if r.refs.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
