//! `mapgrep map [PATH]`: the most important definitions of a tree, ranked by how the rest
//! of the code uses them (the `repo_map` tool), from the symbol index.

use std::io::Write;
use std::process::ExitCode;

use crate::error::RequestError;
use crate::repomap::{MapBudget, MapQuery, map_tree};
use crate::roots::Roots;

#[derive(Debug, clap::Args)]
pub struct MapArgs {
    /// The directory or file to map (default: the current directory). Its root's index must
    /// hold its symbols (`mapgrep index ROOT`).
    pub path: Option<String>,
    /// Files or names the map is about: their neighbourhood ranks higher (repeatable).
    #[arg(long = "focus", value_name = "FILE_OR_NAME")]
    pub focus: Vec<String>,
    /// Bytes of the map at most.
    #[arg(long, default_value_t = 8_000)]
    pub max_bytes: usize,
    /// Lines of the map at most.
    #[arg(long, default_value_t = 200)]
    pub max_lines: usize,
}

/// The map of `args` on standard output; exit 0, or 2 on an error.
pub fn run(args: MapArgs) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    let ws = super::errors::workspace(Roots::new([cwd.as_path(), std::path::Path::new("/")])?);
    let target = args.path.clone().unwrap_or_else(|| ".".into());
    super::index::use_persisted(&ws, std::slice::from_ref(&target));
    // One map and the process ends: nothing is worth keeping (nor a thread to let it go).
    ws.state::<crate::repomap::HeldMaps>()
        .min_files
        .store(usize::MAX, std::sync::atomic::Ordering::Relaxed);
    let q = MapQuery {
        path: Some(target),
        focus: args.focus,
    };
    let budget = MapBudget {
        max_bytes: args.max_bytes,
        max_lines: args.max_lines,
    };
    match map_tree(&ws, &q, budget) {
        Ok(m) => {
            let mut out = std::io::stdout().lock();
            out.write_all(m.map.text.as_bytes())?;
            out.flush()?;
            if m.unrecorded > 0 {
                eprintln!(
                    "mapgrep: {} files changed since the index recorded them are left out (`mapgrep index` brings it up to date)",
                    m.unrecorded
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(RequestError::Param(e)) => {
            eprintln!("{e}");
            Ok(ExitCode::from(2))
        }
        Err(RequestError::File(e)) => {
            eprintln!("mapgrep: {e}");
            Ok(ExitCode::from(2))
        }
    }
}
