//! The markdown document tools on the generated ≥ 50 MB `HANDBOOK.md`: `doc_toc` cold (new
//! workspace: the outline is parsed on first touch) and warm (outline cached), a cached
//! `doc_read`, and — through the real MCP server over stdio — one `doc_read_many` of three
//! sections against three sequential `doc_read` calls, measured in the same run.
//!
//! Run: `cargo bench --bench doc` (generates the corpus with `corpora/gen_handbook.py` if it
//! is missing; set `MAPGREP_HANDBOOK` to use another file).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion};
use mapgrep::markdown::doc::{self, Document};
use mapgrep::markdown::render;
use mapgrep::{Roots, Workspace};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};

fn corpus() -> PathBuf {
    if let Ok(p) = std::env::var("MAPGREP_HANDBOOK") {
        return PathBuf::from(p);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("corpora/generated/HANDBOOK.md");
    if !path.exists() {
        eprintln!("generating {} ...", path.display());
        let status = std::process::Command::new("python3")
            .arg(root.join("corpora/gen_handbook.py"))
            .status()
            .expect("running python3 corpora/gen_handbook.py");
        assert!(status.success(), "corpus generation failed");
    }
    path
}

fn workspace(path: &Path) -> Workspace {
    Workspace::new(Roots::new([path.parent().unwrap()]).unwrap())
}

/// What `doc_toc` does: open, outline, render the listing up to the response budget.
fn toc(ws: &Workspace, name: &str) -> usize {
    let doc = Document::open(ws, name).unwrap();
    let mut text = String::new();
    let listed = doc::toc(doc.outline(), None, None);
    render::toc_lines(&mut text, &listed, ws.limits().max_output_bytes);
    text.len()
}

/// Slugs of three level-2 sections at a quarter, half and three quarters of the document.
fn three_sections(ws: &Workspace, name: &str) -> Vec<String> {
    let doc = Document::open(ws, name).unwrap();
    let level2: Vec<_> = doc
        .outline()
        .sections()
        .iter()
        .filter(|s| s.level == 2)
        .collect();
    [1, 2, 3]
        .iter()
        .map(|q| level2[level2.len() * q / 4].slug.clone())
        .collect()
}

/// The naive baseline: what a simple server does for `doc_read` — read the whole file, find
/// the heading whose slug-like form matches (ignoring code fences), take lines until the next
/// heading of the same or a higher level.
fn naive_read(path: &Path, title: &str) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let mut in_fence = false;
    let mut start: Option<(usize, usize)> = None;
    let mut taken = 0;
    for line in text.lines() {
        if line.starts_with("```") {
            in_fence = !in_fence;
        }
        let level = line.bytes().take_while(|&b| b == b'#').count();
        let heading = !in_fence && level > 0 && line.as_bytes().get(level) == Some(&b' ');
        match start {
            None if heading && line[level + 1..].trim() == title => start = Some((level, 0)),
            Some((l, _)) if heading && level <= l => break,
            Some(_) => taken += line.len() + 1,
            None => {}
        }
    }
    taken
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Three sequential `doc_read` calls against one `doc_read_many` of the same three sections,
/// through `mapgrep serve` over stdio, alternating so both see the same machine state.
fn mcp_read_many_vs_sequential(path: &Path, sections: &[String]) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let dir = path.parent().unwrap().to_path_buf();
        let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mapgrep")).configure(|c| {
            c.arg("serve").arg(&dir);
        });
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let client = ().serve(transport).await.unwrap();
        let name = path.file_name().unwrap().to_str().unwrap();
        let call = |tool: &'static str, args: serde_json::Value| {
            let params =
                CallToolRequestParams::new(tool).with_arguments(args.as_object().unwrap().clone());
            client.call_tool(params)
        };
        // Cold call for the outline, then checks that both forms return the same texts.
        let t = Instant::now();
        let toc = call("doc_toc", serde_json::json!({"path": name}))
            .await
            .unwrap();
        eprintln!("mcp doc_toc cold (server just started): {:?}", t.elapsed());
        assert_ne!(toc.is_error, Some(true));
        let many = call(
            "doc_read_many",
            serde_json::json!({"path": name, "sections": sections}),
        )
        .await
        .unwrap();
        let many = many.structured_content.unwrap();
        for (i, s) in sections.iter().enumerate() {
            let one = call("doc_read", serde_json::json!({"path": name, "section": s}))
                .await
                .unwrap()
                .structured_content
                .unwrap();
            assert_eq!(one["section"], many["results"][i]["section"], "{s}");
        }
        let (mut seq, mut batch, mut toc_warm) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..200 {
            let t = Instant::now();
            for s in sections {
                let r = call("doc_read", serde_json::json!({"path": name, "section": s}))
                    .await
                    .unwrap();
                black_box(r);
            }
            seq.push(t.elapsed());
            let t = Instant::now();
            let r = call(
                "doc_read_many",
                serde_json::json!({"path": name, "sections": sections}),
            )
            .await
            .unwrap();
            black_box(r);
            batch.push(t.elapsed());
            let t = Instant::now();
            let r = call("doc_toc", serde_json::json!({"path": name, "max_depth": 1}))
                .await
                .unwrap();
            black_box(r);
            toc_warm.push(t.elapsed());
        }
        let (seq, batch) = (median(seq), median(batch));
        eprintln!(
            "mcp 3 x doc_read (sequential): median {seq:?}\n\
             mcp doc_read_many of 3:        median {batch:?}\n\
             ratio read_many / sequential:  {:.2}\n\
             mcp doc_toc warm (max_depth 1): median {:?}",
            batch.as_secs_f64() / seq.as_secs_f64(),
            median(toc_warm)
        );
        client.cancel().await.unwrap();
    });
}

fn main() {
    let path = corpus();
    let name = path.file_name().unwrap().to_str().unwrap().to_string();
    let ws = workspace(&path);
    let sections = three_sections(&ws, &name);
    {
        let doc = Document::open(&ws, &name).unwrap();
        eprintln!(
            "corpus: {} bytes, {} lines, {} sections; reading {sections:?}",
            doc.bytes().len(),
            doc.outline().total_lines(),
            doc.outline().len()
        );
        eprintln!(
            "outline cache: {} bytes for this document",
            ws.parse_cache_bytes()
        );
    }
    let mut c = Criterion::default()
        .configure_from_args()
        .measurement_time(Duration::from_secs(8));
    let mut g = c.benchmark_group("doc");
    g.sample_size(20);
    g.bench_function("toc_cold", |b| {
        b.iter_batched(
            || workspace(&path),
            // The workspace is returned, so dropping its caches is not timed.
            |ws| {
                black_box(toc(&ws, &name));
                ws
            },
            BatchSize::PerIteration,
        )
    });
    g.sample_size(100);
    g.bench_function("toc_warm", |b| b.iter(|| black_box(toc(&ws, &name))));
    g.bench_function("read_cached", |b| {
        b.iter(|| {
            let doc = Document::open(&ws, &name).unwrap();
            black_box(doc::read_section(&doc, &sections[1], true, 1 << 20).unwrap())
        })
    });
    let title = {
        let doc = Document::open(&ws, &name).unwrap();
        let (s, _) = doc::find_section(doc.outline(), &sections[1]).unwrap();
        s.title.clone()
    };
    assert!(
        naive_read(&path, &title) > 0,
        "the naive read finds {title:?}"
    );
    g.sample_size(20);
    g.bench_function("naive_read", |b| {
        b.iter(|| black_box(naive_read(&path, &title)))
    });
    g.finish();
    mcp_read_many_vs_sequential(&path, &sections);
    c.final_summary();
}
