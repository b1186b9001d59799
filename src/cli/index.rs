//! `mapgrep index`: build the persisted trigram index of a root, and the index flags of
//! `mapgrep serve`; `mapgrep grep` uses a persisted index through [`use_persisted`].

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use anyhow::Context;

use crate::index::{self, BuildProgress, Index, IndexOptions};
use crate::workspace::Workspace;

#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    /// The directory to index (default: the current directory).
    pub root: Option<PathBuf>,
    /// Heap budget in bytes of the posting lists held while building.
    #[arg(long, default_value_t = index::DEFAULT_BUILD_BUDGET)]
    pub index_budget_bytes: usize,
    /// Where index files are kept (default: $XDG_CACHE_HOME/mapgrep/index or
    /// ~/.cache/mapgrep/index).
    #[arg(long, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,
}

/// The index flags of `mapgrep serve`.
#[derive(Debug, clap::Args)]
pub struct ServeIndexArgs {
    /// Do not index the roots: every search scans.
    #[arg(long)]
    pub no_index: bool,
    /// Keep the index in memory only (nothing written to the cache directory).
    #[arg(long)]
    pub no_index_file: bool,
    /// Where index files are kept (default: $XDG_CACHE_HOME/mapgrep/index or
    /// ~/.cache/mapgrep/index; never inside the roots).
    #[arg(long, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,
    /// Heap budget in bytes of the posting lists held while building the index.
    #[arg(long, default_value_t = index::DEFAULT_BUILD_BUDGET)]
    pub index_budget_bytes: usize,
}

impl ServeIndexArgs {
    /// The engine's options, or `None` when indexing is off.
    pub fn options(&self) -> Option<IndexOptions> {
        if self.no_index {
            return None;
        }
        let mut o = IndexOptions {
            budget: self.index_budget_bytes,
            ..IndexOptions::default()
        };
        if self.no_index_file {
            o.dir = None;
        } else if let Some(d) = &self.index_dir {
            o.dir = Some(d.clone());
        }
        Some(o)
    }
}

/// Starts indexing the roots of a server in the background (unless turned off).
pub fn start(ws: &Workspace, args: &ServeIndexArgs) {
    if let Some(o) = args.options() {
        index::start(ws, &o);
    }
}

/// Uses persisted indexes for a search of `paths` (those that are directories); says on
/// stderr which index it uses or why it refused one.
pub fn use_persisted(ws: &Workspace, paths: &[String]) {
    let Some(dir) = index::default_dir() else {
        return;
    };
    if !dir.is_dir() {
        return;
    }
    let paths: Vec<String> = if paths.is_empty() {
        vec![".".into()]
    } else {
        paths.to_vec()
    };
    let dirs: Vec<PathBuf> = paths
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .filter(|p| p.is_dir())
        .collect();
    for (root, r) in index::load_persisted(ws, &dir, &dirs) {
        if let Err(e) = r {
            eprintln!(
                "mapgrep: not using the index of {}: {e} (`mapgrep index {}` rebuilds it)",
                root.display(),
                root.display()
            );
        }
    }
}

pub fn run(args: IndexArgs) -> anyhow::Result<ExitCode> {
    let root = args.root.unwrap_or_else(|| PathBuf::from("."));
    let root =
        std::fs::canonicalize(&root).with_context(|| format!("resolving {}", root.display()))?;
    let dir = args
        .index_dir
        .or_else(index::default_dir)
        .context("no cache directory (set XDG_CACHE_HOME or HOME, or pass --index-dir)")?;
    let dir = std::path::absolute(&dir)?;
    let real = dir
        .ancestors()
        .find_map(|a| std::fs::canonicalize(a).ok().map(|c| (a, c)))
        .map(|(a, c)| c.join(dir.strip_prefix(a).unwrap_or(Path::new(""))));
    if dir.starts_with(&root) || real.is_some_and(|r| r.starts_with(&root)) {
        anyhow::bail!(
            "the index directory {} is inside the indexed tree; choose one outside it",
            dir.display()
        );
    }
    let file = index::file_for(&dir, &root);
    let progress = BuildProgress::default();
    let t = std::time::Instant::now();
    let done = std::sync::atomic::AtomicBool::new(false);
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let ix = std::thread::scope(|s| {
        s.spawn(|| {
            while tty && !done.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(500));
                eprint!(
                    "\rmapgrep: indexing {} of {} files",
                    progress.files_done.load(Ordering::Relaxed),
                    progress.files_total.load(Ordering::Relaxed)
                );
            }
        });
        let r = Index::build(
            &root,
            Some(&file),
            args.index_budget_bytes,
            crate::index::Shape::default(),
            &progress,
        );
        done.store(true, Ordering::Relaxed);
        if tty {
            eprintln!();
        }
        r
    })
    .with_context(|| format!("indexing {}", root.display()))?
    .context("indexing stopped")?;
    let binary = ix.files().iter().filter(|f| f.flags & 1 != 0).count();
    println!(
        "indexed {} files ({binary} binary) of {} in {:.2} s: {} ({} bytes)",
        ix.files().len(),
        root.display(),
        t.elapsed().as_secs_f64(),
        file.display(),
        ix.size()
    );
    Ok(ExitCode::SUCCESS)
}
