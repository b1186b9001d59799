//! `mapgrep index`: build the persisted trigram index of a root, and the index flags of
//! `mapgrep serve`; `mapgrep grep` uses a persisted index through [`use_persisted`].

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use anyhow::Context;

use crate::index::{self, BuildProgress, IndexOptions, TrigramIndex};
use crate::workspace::Workspace;

#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    /// The directory to index (default: the current directory).
    pub root: Option<PathBuf>,
    /// List the indexes in the cache directory (root, size, files, last use) instead.
    #[arg(long, conflicts_with = "prune")]
    pub list: bool,
    /// Remove the indexes of roots that no longer exist, those unused for 30 days, and the
    /// least recently used beyond the cap, instead of indexing (never one in use).
    #[arg(long)]
    pub prune: bool,
    /// The cache directory's size cap in bytes (for --prune; default 8 GiB).
    #[arg(long, default_value_t = index::DEFAULT_CAP)]
    pub index_cap_bytes: u64,
    /// Heap budget in bytes of the posting lists held while building.
    #[arg(long, default_value_t = index::DEFAULT_BUILD_BUDGET)]
    pub index_budget_bytes: usize,
    /// Where index files are kept (default: $XDG_CACHE_HOME/mapgrep/index or
    /// ~/.cache/mapgrep/index).
    #[arg(long, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,
    /// Build the trigram index only: leave recording every file's symbols (what
    /// `find_definition` and grep's hints read) to the first server.
    #[arg(long)]
    pub no_symbols: bool,
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
    /// Size cap in bytes of the index directory: at start the least recently used indexes
    /// of other roots are removed beyond it (as are those of roots that no longer exist or
    /// were unused for 30 days).
    #[arg(long, default_value_t = index::DEFAULT_CAP)]
    pub index_cap_bytes: u64,
    /// Every indexed file is compared with its file by metadata within this many seconds
    /// (catches writes no watcher reports: through another hard link, a shared map); a tree
    /// of more than 30,000 files is swept at the same pace, about 1,000 files a second
    /// (within a longer window); 0 turns the sweep off.
    #[arg(long, default_value_t = 30)]
    pub index_sweep_secs: u64,
}

impl ServeIndexArgs {
    /// The engine's options, or `None` when indexing is off.
    pub fn options(&self) -> Option<IndexOptions> {
        if self.no_index {
            return None;
        }
        let mut o = IndexOptions {
            budget: self.index_budget_bytes,
            prune: Some(index::PruneRules {
                cap: self.index_cap_bytes,
                ..index::PruneRules::default()
            }),
            sweep: (self.index_sweep_secs > 0)
                .then(|| std::time::Duration::from_secs(self.index_sweep_secs)),
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

fn index_dir(args: &IndexArgs) -> anyhow::Result<PathBuf> {
    let dir = args
        .index_dir
        .clone()
        .or_else(index::default_dir)
        .context("no cache directory (set XDG_CACHE_HOME or HOME, or pass --index-dir)")?;
    Ok(std::path::absolute(&dir)?)
}

/// `mapgrep index --list`: one line per index.
fn list(dir: &Path) -> ExitCode {
    let all = index::list(dir);
    if all.is_empty() {
        println!("no index in {}", dir.display());
    }
    for l in all {
        let age = l
            .used
            .and_then(|u| u.elapsed().ok())
            .map_or("unknown".into(), |a| ago(a.as_secs()));
        println!(
            "{}\t{} bytes\t{} files\t{} segments\tused {age}{}",
            l.root
                .as_ref()
                .map_or("(no readable manifest)".into(), |r| r.display().to_string()),
            l.bytes,
            l.files,
            l.segments,
            if l.in_use { "\tin use" } else { "" }
        );
    }
    ExitCode::SUCCESS
}

/// "3 days ago" and the like.
fn ago(secs: u64) -> String {
    match secs {
        0..60 => "just now".into(),
        60..3600 => format!("{} min ago", secs / 60),
        3600..86400 => format!("{} h ago", secs / 3600),
        _ => format!("{} days ago", secs / 86400),
    }
}

pub fn run(args: IndexArgs) -> anyhow::Result<ExitCode> {
    let dir = index_dir(&args)?;
    if args.list {
        return Ok(list(&dir));
    }
    if args.prune {
        prune(&dir, args.index_cap_bytes);
        return Ok(ExitCode::SUCCESS);
    }
    let root = args.root.clone().unwrap_or_else(|| PathBuf::from("."));
    let root =
        std::fs::canonicalize(&root).with_context(|| format!("resolving {}", root.display()))?;
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
    let store = std::sync::Arc::new(
        index::Store::open(&dir, &root)
            .with_context(|| format!("opening the index directory {}", dir.display()))?,
    );
    if !store.try_write() {
        anyhow::bail!(
            "another mapgrep process is writing the index of {} (a server keeps it up to date; nothing to do)",
            root.display()
        );
    }
    store.touch_used();
    let t = std::time::Instant::now();
    let ix = std::sync::Arc::new(build(&root, &store, args.index_budget_bytes)?);
    let binary = ix.files().filter(|f| f.flags & 1 != 0).count();
    println!(
        "indexed {} files ({binary} binary) of {} in {:.2} s: {} ({} bytes)",
        ix.len(),
        root.display(),
        t.elapsed().as_secs_f64(),
        store.dir().display(),
        ix.size()
    );
    if !args.no_symbols {
        let t = std::time::Instant::now();
        let n = record(&ix, &store)?;
        println!(
            "recorded the symbols of {n} files in {:.2} s ({} bytes of symbol records)",
            t.elapsed().as_secs_f64(),
            store.side_bytes()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Records the symbols of the files of `ix` that have no record yet, showing the progress
/// on a terminal.
fn record(ix: &std::sync::Arc<TrigramIndex>, store: &index::Store) -> anyhow::Result<usize> {
    let done = std::sync::atomic::AtomicUsize::new(0);
    let finished = std::sync::atomic::AtomicBool::new(false);
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    std::thread::scope(|s| {
        s.spawn(|| {
            while tty && !finished.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(500));
                eprint!(
                    "\rmapgrep: recording symbols: {} files",
                    done.load(Ordering::Relaxed)
                );
            }
        });
        let r = crate::symbols::record_index(ix, store, &done);
        finished.store(true, Ordering::Relaxed);
        if tty {
            eprintln!();
        }
        r
    })
    .context("recording the symbols")
}

/// `mapgrep index --prune`: removes the unused indexes and says which.
fn prune(dir: &Path, cap: u64) {
    let rules = index::PruneRules {
        cap,
        ..index::PruneRules::default()
    };
    let removed = index::prune(dir, rules, None, std::time::Duration::from_secs(60));
    for l in &removed {
        println!(
            "removed the index of {} ({} bytes)",
            l.root
                .as_ref()
                .map_or("(no readable manifest)".into(), |r| r.display().to_string()),
            l.bytes
        );
    }
    println!("{} removed", removed.len());
}

/// Builds the index of `root` into `store`, showing the progress on a terminal.
fn build(
    root: &Path,
    store: &std::sync::Arc<index::Store>,
    budget: usize,
) -> anyhow::Result<TrigramIndex> {
    let progress = BuildProgress::default();
    let done = std::sync::atomic::AtomicBool::new(false);
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    std::thread::scope(|s| {
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
        let r = TrigramIndex::build(
            root,
            Some(store),
            budget,
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
    .context("indexing stopped")
}
