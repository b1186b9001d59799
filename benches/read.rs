//! Section reads on the generated ≥ 250 MB `WORK.md` log, cold (new workspace: the line index
//! is built on first touch) and warm (index cached), beside a naive baseline measured in the
//! same run (read the whole file, split it into lines, slice).
//!
//! Run: `cargo bench --bench read` (generates the corpus with `corpora/gen_worklog.py` if it
//! is missing; set `MAPGREP_WORKLOG` to use another file).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use criterion::{BatchSize, Criterion};
use mapgrep::read::{self, ReadRequest};
use mapgrep::{Roots, Workspace};

fn corpus() -> PathBuf {
    if let Ok(p) = std::env::var("MAPGREP_WORKLOG") {
        return PathBuf::from(p);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("corpora/generated/WORK.md");
    if !path.exists() {
        eprintln!("generating {} ...", path.display());
        let status = std::process::Command::new("python3")
            .arg(root.join("corpora/gen_worklog.py"))
            .status()
            .expect("running python3 corpora/gen_worklog.py");
        assert!(status.success(), "corpus generation failed");
    }
    path
}

fn workspace(path: &Path) -> Workspace {
    Workspace::new(Roots::new([path.parent().unwrap()]).unwrap())
}

/// The requests measured: (name, request).
fn requests(ws: &Workspace, name: &str) -> Vec<(&'static str, ReadRequest)> {
    let open = ws.open(name).unwrap();
    let total = open.total_lines();
    // A log entry 1% before the end of the file.
    let near_end = total - total / 100;
    let re = ws.regex(r"^\[LOG-", false).unwrap();
    let from = open.index.line_start(open.bytes(), near_end).unwrap();
    let entry = read::next_matching_line(&re, open.bytes(), &open.index, from).unwrap();
    let mut section = ReadRequest::new(name);
    section.start_line = Some(entry as i64);
    section.read_to_next_pattern = Some(r"^\[LOG-".into());
    let mut range = ReadRequest::new(name);
    range.start_line = Some((total / 2) as i64);
    range.end_line = Some((total / 2 + 4) as i64);
    let mut tail = ReadRequest::new(name);
    tail.tail = Some(5);
    eprintln!(
        "corpus: {} bytes, {total} lines; section read at line {entry}",
        open.source.id().len
    );
    vec![
        ("section_to_next_log", section),
        ("range_5_lines", range),
        ("tail_5", tail),
    ]
}

/// The naive baseline: what a simple server does for the same request.
fn naive(path: &Path, req: &ReadRequest) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (a, b) = if let Some(n) = req.tail {
        (lines.len() - n as usize, lines.len())
    } else if let Some(p) = &req.read_to_next_pattern {
        let re = regex_automata::meta::Regex::new(p).unwrap();
        let s = req.start_line.unwrap() as usize - 1;
        let e = (s + 1..lines.len())
            .find(|&i| re.is_match(lines[i]))
            .unwrap_or(lines.len());
        (s, e)
    } else {
        let s = req.start_line.unwrap() as usize - 1;
        (s, req.end_line.map_or(lines.len(), |e| e as usize))
    };
    lines[a..b].join("\n")
}

fn vm_status(field: &str) -> String {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "?".into())
}

fn main() {
    let path = corpus();
    let name = path.file_name().unwrap().to_str().unwrap().to_string();
    let size = std::fs::metadata(&path).unwrap().len();

    // Memory: the engine never copies the file into the heap. Measured before the naive
    // baseline runs (it reads the whole file) so the peak belongs to the engine alone.
    let ws = Arc::new(workspace(&path));
    let reqs = requests(&ws, &name);
    for (_, r) in &reqs {
        black_box(read::read(&ws, r, usize::MAX).unwrap());
    }
    black_box(read::read_page(&ws, &name, 1_000_000, Some(50), usize::MAX).unwrap());
    eprintln!(
        "memory after engine reads of a {} MiB file: VmRSS {}, VmHWM {}, index cache {} bytes",
        size >> 20,
        vm_status("VmRSS:"),
        vm_status("VmHWM:"),
        ws.index_cache_bytes()
    );
    // The engine's excerpts equal the naive reference.
    for (label, r) in &reqs {
        let got = read::read(&ws, r, usize::MAX).unwrap().text;
        assert_eq!(got.trim_end_matches('\n'), naive(&path, r), "{label}");
    }

    let mut c = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));

    for (label, r) in &reqs {
        let mut g = c.benchmark_group(*label);
        g.bench_function("warm", |b| {
            b.iter(|| black_box(read::read(&ws, r, usize::MAX).unwrap()))
        });
        g.sample_size(10);
        g.bench_function("cold", |b| {
            b.iter_batched(
                || workspace(&path),
                |fresh| black_box(read::read(&fresh, r, usize::MAX).unwrap()),
                BatchSize::PerIteration,
            )
        });
        g.bench_function("naive", |b| b.iter(|| black_box(naive(&path, r))));
        g.finish();
    }

    let mut g = c.benchmark_group("read_text_file_line_limit");
    g.bench_function("warm", |b| {
        b.iter(|| black_box(read::read_page(&ws, &name, 1_000_000, Some(50), usize::MAX).unwrap()))
    });
    g.sample_size(10);
    g.bench_function("cold", |b| {
        b.iter_batched(
            || workspace(&path),
            |fresh| {
                black_box(read::read_page(&fresh, &name, 1_000_000, Some(50), usize::MAX).unwrap())
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("naive", |b| {
        b.iter(|| {
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            black_box(lines[999_999..1_000_049].join("\n"))
        })
    });
    g.finish();
    c.final_summary();
}
