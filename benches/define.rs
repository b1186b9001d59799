//! The definition lookup (`find_definition`): cold (a new workspace with its index ready and
//! nothing parsed) and warm (the same workspace again: structures cached by file identity),
//! for a few names of a tree, beside a naive baseline measured in the same run: reading every
//! candidate file the index names and finding the name in it (what a lookup costs before
//! any parse).
//!
//! Run: `cargo bench --bench define`. The tree is this repository unless `MAPGREP_BENCH_TREE`
//! names another (the Linux tree: `corpora/linux`, once C is parsed); the names are
//! `MAPGREP_BENCH_NAMES` (comma-separated) or a few of this repository's. The index is built
//! in memory once per workspace. `scripts/bench_define.py` measures the Linux tree against
//! ripgrep and universal-ctags.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{BatchSize, Criterion};
use mapgrep::define::{DefineQuery, lookup};
use mapgrep::grep::{GrepQuery, Progress};
use mapgrep::{Roots, Workspace};

fn tree() -> PathBuf {
    std::env::var_os("MAPGREP_BENCH_TREE")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf())
}

fn names() -> Vec<String> {
    match std::env::var("MAPGREP_BENCH_NAMES") {
        Ok(list) => list.split(',').map(|s| s.trim().to_string()).collect(),
        Err(_) => [
            "lookup",
            "structure_of",
            "GrepQuery",
            "Workspace.open",
            "search",
        ]
        .map(String::from)
        .to_vec(),
    }
}

/// A workspace on `root` with its trigram index built in memory and ready.
fn indexed(root: &Path) -> Workspace {
    let ws = Workspace::new(Roots::new([root]).expect("root"));
    let opts = mapgrep::index::IndexOptions {
        dir: None,
        watch: false,
        sweep: None,
        ..Default::default()
    };
    mapgrep::index::start_for(&ws, &[root.to_path_buf()], &opts);
    assert!(
        mapgrep::index::wait_ready(&ws, Duration::from_secs(1800)),
        "the index of {} is not ready",
        root.display()
    );
    ws
}

fn query(name: &str) -> DefineQuery {
    DefineQuery {
        name: name.to_string(),
        code: Some(false),
        ..DefineQuery::default()
    }
}

fn bench(c: &mut Criterion) {
    let root = std::fs::canonicalize(tree()).expect("the bench tree");
    let names = names();
    let warm = indexed(&root);
    let mut group = c.benchmark_group("define");
    group.sample_size(10);
    for name in &names {
        let q = query(name);
        let d = lookup(&warm, &q, &Progress::default()).expect("lookup");
        eprintln!(
            "{name}: {} sites, {} files hold the word, {} parsed",
            d.sites.len(),
            d.files_with_name,
            d.files_parsed
        );
        group.bench_function(format!("warm/{name}"), |b| {
            b.iter(|| black_box(lookup(&warm, &q, &Progress::default()).unwrap()))
        });
        // Cold: a new workspace per run, its index built in the setup (not timed), nothing
        // parsed yet.
        group.bench_function(format!("cold/{name}"), |b| {
            b.iter_batched(
                || indexed(&root),
                |ws| black_box(lookup(&ws, &q, &Progress::default()).unwrap()),
                BatchSize::PerIteration,
            )
        });
        // The baseline: the whole-word search that names the candidates, alone.
        let search = GrepQuery {
            pattern: name.rsplit(['.', ':']).next().unwrap_or(name).to_string(),
            fixed_strings: true,
            word: true,
            section_patterns: Some(Vec::new()),
            max_results: usize::MAX,
            ..GrepQuery::default()
        };
        group.bench_function(format!("search-only/{name}"), |b| {
            b.iter(|| {
                black_box(mapgrep::grep::search(&warm, &search, &Progress::default()).unwrap())
            })
        });
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
