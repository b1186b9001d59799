//! The trigram index on a large tree (the Linux 6.1 sources by default): its build, and the
//! issue-15 queries answered by a warm workspace with a ready index beside the same
//! workspace scanning (no index, warm content cache) and ripgrep (`rg -n`, when on the
//! PATH), all in the same run. Before timing, each query's indexed answer is checked to be
//! the scan's.
//!
//! Run: `cargo bench --bench index` (needs the tree: `bash corpora/fetch_linux.sh`, or set
//! `MAPGREP_TREE` to another directory).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::Criterion;
use mapgrep::grep::{self, GrepQuery, Progress};
use mapgrep::index::{self, BuildProgress, IndexOptions, TrigramIndex};
use mapgrep::{Roots, Workspace, WorkspaceBuilder};

/// (row name, pattern, case-insensitive).
const QUERIES: [(&str, &str, bool); 7] = [
    ("literal", "PM_RESUME", false),
    ("case_insensitive", "pm_resume", true),
    (
        "alternation",
        "PM_SUSPEND|PM_HIBERNATION_PREPARE|wakeup_source_register|device_wakeup_enable",
        false,
    ),
    ("word", r"\bwakeup_source\b", false),
    ("class", "[A-Z]+_RESUME", false),
    ("no_trigram_greek", r"\p{Greek}", false),
    ("no_trigram_words", r"\w{5}\s+\w{5}\s+\w{5}", false),
];

fn tree() -> Option<PathBuf> {
    let dir = match std::env::var_os("MAPGREP_TREE") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/linux"),
    };
    dir.is_dir().then(|| dir.canonicalize().unwrap())
}

fn workspace(root: &Path) -> Workspace {
    WorkspaceBuilder::new()
        .content_budget(256 << 20)
        .build(Roots::new([root]).unwrap())
}

fn query(pattern: &str, ci: bool) -> GrepQuery {
    GrepQuery {
        case_insensitive: ci,
        section_patterns: Some(Vec::new()),
        max_results: u32::MAX as usize,
        ..GrepQuery::new(pattern.to_string())
    }
}

/// The (file, line) pairs of an answer.
fn found(ws: &Workspace, q: &GrepQuery) -> Vec<(String, u64)> {
    let r = grep::search(ws, q, &Progress::default()).unwrap();
    let mut v: Vec<(String, u64)> = r.matches.iter().map(|m| (m.path.clone(), m.line)).collect();
    v.sort();
    v
}

fn main() {
    let Some(root) = tree() else {
        eprintln!("no tree to index: run `bash corpora/fetch_linux.sh` or set MAPGREP_TREE");
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let mut c = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));

    // The build, into a file outside the tree (as the server's cache directory).
    {
        let mut g = c.benchmark_group("index_build");
        g.sample_size(10);
        g.measurement_time(Duration::from_secs(60));
        let store =
            std::sync::Arc::new(index::Store::open(&work.path().join("build"), &root).unwrap());
        g.bench_function("build", |b| {
            b.iter(|| {
                let p = BuildProgress::default();
                black_box(
                    TrigramIndex::build(
                        &root,
                        Some(&store),
                        index::DEFAULT_BUILD_BUDGET,
                        index::Shape::default(),
                        &p,
                    )
                    .unwrap()
                    .unwrap()
                    .size(),
                )
            })
        });
        g.finish();
    }

    let scan = workspace(&root);
    let indexed = workspace(&root);
    let opts = IndexOptions {
        dir: Some(work.path().join("index")),
        ..IndexOptions::default()
    };
    let t = Instant::now();
    index::start(&indexed, &opts);
    assert!(index::wait_ready(&indexed, Duration::from_secs(900)));
    eprintln!("index ready in {:.1} s", t.elapsed().as_secs_f64());
    let rg = std::process::Command::new("rg")
        .arg("--version")
        .output()
        .is_ok();

    for (name, pattern, ci) in QUERIES {
        let q = query(pattern, ci);
        let (a, b) = (found(&indexed, &q), found(&scan, &q));
        assert_eq!(a, b, "{name}: the indexed answer differs from the scan's");
        eprintln!("{name}: {} matching lines", a.len());
        let mut g = c.benchmark_group(name);
        g.sample_size(10);
        g.bench_function("indexed", |b| b.iter(|| black_box(found(&indexed, &q))));
        g.bench_function("scan", |b| b.iter(|| black_box(found(&scan, &q))));
        if rg {
            g.bench_function("rg", |b| {
                b.iter(|| {
                    let mut cmd = std::process::Command::new("rg");
                    cmd.arg("-n");
                    if ci {
                        cmd.arg("-i");
                    }
                    black_box(cmd.arg(pattern).current_dir(&root).output().unwrap())
                })
            });
        }
        g.finish();
    }
    c.final_summary();
}
