//! Answers that fit each client (docs/README.md, "Answers that fit each client"): the
//! budget is chosen from the client's name at initialize, counts every byte the client
//! receives (text blocks and the structured view's JSON, which Claude Code and Codex give
//! the model), and a cut answer's cursor continues it with nothing skipped.

use std::collections::BTreeSet;
use std::process::Stdio;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::common::{BIN, CALL_TIMEOUT, Fixture, text_of};

/// A `mapgrep serve` child whose client says it is `name`.
struct Client {
    service: RunningService<RoleClient, ClientConfig>,
}

impl Client {
    async fn start(fx: &Fixture, name: &str, extra: &[&str]) -> Client {
        let cmd = tokio::process::Command::new(BIN).configure(|cmd| {
            cmd.arg("serve").args(extra).arg(&fx.root);
            cmd.env(
                "XDG_CACHE_HOME",
                std::env::temp_dir().join("mapgrep-it-cache"),
            );
        });
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mapgrep serve");
        let info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new(name, "1.0.0"),
        );
        let service = tokio::time::timeout(CALL_TIMEOUT, info.serve(transport))
            .await
            .expect("initialize in time")
            .expect("initialize");
        Client { service }
    }

    /// A tool's result (a JSON-RPC error fails the test).
    async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let params = CallToolRequestParams::new(tool.to_string())
            .with_arguments(args.as_object().expect("object").clone());
        tokio::time::timeout(CALL_TIMEOUT, self.service.call_tool(params))
            .await
            .expect("answer in time")
            .unwrap_or_else(|e| panic!("{tool} {args}: {e}"))
    }

    async fn shutdown(self) {
        let _ = tokio::time::timeout(CALL_TIMEOUT, self.service.cancel()).await;
    }
}

/// What a client receives of `r`, measured as mapgrep measures it: the text blocks' bytes
/// (joined by newlines), their lines, and the structured view's compact JSON bytes.
fn measure(r: &CallToolResult) -> (usize, usize, usize) {
    let text = text_of(r);
    let lines = text.lines().count();
    let json = r
        .structured_content
        .as_ref()
        .map_or(0, |v| serde_json::to_string(v).unwrap().len());
    (text.len(), lines, json)
}

/// Asserts `r` fits `bytes` and `lines` in both views, and that both carry the answer.
fn assert_fits(what: &str, r: &CallToolResult, bytes: usize, lines: usize) {
    let (text, n, json) = measure(r);
    assert!(
        text <= bytes && json <= bytes && n <= lines,
        "{what}: {text} text bytes, {json} JSON bytes, {n} lines (budget {bytes} bytes, {lines} lines)"
    );
    let sc = r.structured_content.as_ref().expect("structured view");
    assert!(
        text_of(r).starts_with(sc["content"].as_str().expect("content")),
        "{what}: the structured view carries the text"
    );
}

/// A tree with many matches of `needle`: lines with quotes, backslashes and tabs (which the
/// structured view's JSON escapes) and long lines.
fn many_matches(fx: &Fixture) {
    for f in 0..24 {
        let mut text = format!("# File {f}\n\n");
        for i in 0..90 {
            match i % 3 {
                0 => text.push_str(&format!("needle {i}: \"quoted\" \\path\\to\tx\n")),
                1 => text.push_str(&format!(
                    "plain line {i} with a needle and {}\n",
                    "words ".repeat(i % 20)
                )),
                _ => text.push_str("no match here\n"),
            }
        }
        fx.write(&format!("src/f{f:02}.md"), text);
    }
}

/// The matches `(path, line)` of `needle` under the root by ripgrep (`MAPGREP_RG`, `rg` on
/// PATH or `~/.cargo/bin/rg`), or by a naive scan where there is no ripgrep.
fn reference_matches(fx: &Fixture) -> BTreeSet<(String, u64)> {
    let mut naive = BTreeSet::new();
    for e in std::fs::read_dir(fx.root.join("src")).unwrap() {
        let p = e.unwrap().path();
        let rel = format!("src/{}", p.file_name().unwrap().to_str().unwrap());
        for (i, l) in std::fs::read_to_string(&p).unwrap().lines().enumerate() {
            if l.contains("needle") {
                naive.insert((rel.clone(), i as u64 + 1));
            }
        }
    }
    if let Some(found) = crate::rg::matching_lines(&fx.root, &["--sort", "path", "needle", "src"]) {
        assert_eq!(found, naive, "ripgrep and the naive scan agree");
        return found;
    }
    eprintln!("no ripgrep found: comparing with a naive scan");
    naive
}

/// Follows `grep_content`'s cursors for `needle` as `client`: every page must fit `bytes`
/// and `lines`; returns the matches of all pages and the page count.
async fn all_pages(client: &Client, bytes: usize, lines: usize) -> (Vec<(String, u64)>, usize) {
    let mut found = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut args = json!({"pattern": "needle", "max_results": 10000});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let r = client.call("grep_content", args).await;
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        pages += 1;
        assert_fits(&format!("page {pages}"), &r, bytes, lines);
        let (t, n, j) = measure(&r);
        eprintln!("page {pages}: {t} text bytes, {n} lines, {j} JSON bytes");
        let text = text_of(&r);
        for l in text.lines() {
            if let Some(h) = l.strip_prefix("File: ") {
                let (path, rest) = h.split_once(", Line: ").unwrap();
                let line = rest.split(',').next().unwrap().parse().unwrap();
                found.push((path.to_string(), line));
            }
        }
        let sc = r.structured_content.unwrap();
        match sc.get("next_cursor").and_then(Value::as_str) {
            Some(c) => {
                // The cursor is in the text too, whole (a client that shows the text alone
                // can continue).
                assert!(text.contains(&format!("cursor: \"{c}\"")), "{text}");
                cursor = Some(c.to_string());
            }
            None => break,
        }
        assert!(pages < 1000, "the cursors do not end");
    }
    (found, pages)
}

/// Codex keeps 10 KiB / 256 lines of a tool's output (head and tail): each page of a long
/// grep survives whole, and the pages together are exactly ripgrep's matches.
#[tokio::test]
async fn codex_gets_pages_that_survive_its_cut_and_miss_nothing() {
    let fx = Fixture::new();
    many_matches(&fx);
    let expected = reference_matches(&fx);
    let codex = Client::start(&fx, "codex-mcp-client", &[]).await;
    let (found, pages) = all_pages(&codex, 10 * 1024, 256).await;
    assert!(pages > 5, "{pages} pages");
    let unique: BTreeSet<_> = found.iter().cloned().collect();
    assert_eq!(unique.len(), found.len(), "no match is shown twice");
    assert_eq!(unique, expected, "the pages hold exactly ripgrep's matches");
    codex.shutdown().await;
}

/// Claude Code reads `_meta["anthropic/maxResultSizeChars"]` from `tools/list`: every tool
/// whose answer can be long declares it, each page fits it, and the pages miss nothing.
#[tokio::test]
async fn claude_code_gets_the_declared_size() {
    let fx = Fixture::new();
    many_matches(&fx);
    let expected = reference_matches(&fx);
    let claude = Client::start(&fx, "claude-code", &["--allow-write"]).await;
    let tools = claude.service.list_all_tools().await.expect("tools/list");
    let mut declared = 0;
    for t in &tools {
        let size = t
            .meta
            .as_ref()
            .and_then(|m| m.get("anthropic/maxResultSizeChars"))
            .and_then(Value::as_u64);
        if t.name == "doc_replace" {
            continue;
        }
        let size = size.unwrap_or_else(|| panic!("{} declares no size", t.name));
        assert!((50_000..=500_000).contains(&size), "{}: {size}", t.name);
        declared = size as usize;
    }
    let (found, pages) = all_pages(&claude, declared, usize::MAX).await;
    assert!(pages >= 2, "{pages} pages");
    let unique: BTreeSet<_> = found.iter().cloned().collect();
    assert_eq!(unique.len(), found.len());
    assert_eq!(unique, expected);
    claude.shutdown().await;
}

/// Long inputs for every tool; each answer must fit the budget in force.
fn long_inputs(fx: &Fixture) -> Vec<(&'static str, Value)> {
    let mut md = String::from("# Big\n\n");
    for i in 0..300 {
        md.push_str(&format!(
            "## Part {i} \"q\"\n\nText of part {i}: \\back\\slashes\\ and \"quotes\" and\ttabs.\n\n"
        ));
    }
    fx.write("big.md", &md);
    let mut ts = String::new();
    for i in 0..300 {
        ts.push_str(&format!(
            "/** Doc {i}. */\nexport function handle{i}(s: string): string {{\n  return \"\\\"\" + s + \"{i}\";\n}}\n\n"
        ));
    }
    fx.write("big.ts", &ts);
    fx.write("short.txt", "a\n".repeat(5000));
    fx.write("quotes.txt", "\"\\\"\\\t\n".repeat(5000));
    fx.write("long_line.txt", format!("{}\nnext\n", "x\"".repeat(60_000)));
    let many: Vec<Value> = (0..80)
        .map(|i| json!({"path": format!("missing/{}{i}.txt", "n".repeat(200))}))
        .collect();
    let batch: Vec<Value> = (0..40).map(|_| json!({"path": "short.txt"})).collect();
    let sections: Vec<String> = (0..100).map(|i| format!("{}", i + 1)).collect();
    let targets: Vec<String> = (0..300).map(|i| format!("handle{i}")).collect();
    vec![
        ("read_files", json!({"files": [{"path": "short.txt"}]})),
        ("read_files", json!({"files": [{"path": "quotes.txt"}]})),
        ("read_files", json!({"files": [{"path": "long_line.txt"}]})),
        ("read_files", json!({"files": batch})),
        ("read_files", json!({"files": many})),
        ("read_text_file", json!({"path": fx.abs("quotes.txt")})),
        ("read_text_file", json!({"path": fx.abs("short.txt")})),
        ("read_text_file", json!({"path": fx.abs("long_line.txt")})),
        (
            "grep_content",
            json!({"pattern": "q", "context_lines": 3, "max_results": 10000}),
        ),
        (
            "grep_content",
            json!({"pattern": "x", "search_path": "long_line.txt"}),
        ),
        ("doc_toc", json!({"path": "big.md"})),
        ("doc_read", json!({"path": "big.md", "section": "big"})),
        (
            "doc_read_many",
            json!({"path": "big.md", "sections": sections}),
        ),
        ("doc_find", json!({"path": "big.md", "pattern": "*Part*"})),
        ("file_read", json!({"file": "big.ts"})),
        ("file_read", json!({"file": "big.ts", "skeleton": true})),
        ("file_read", json!({"file": "big.ts", "target": targets})),
        (
            "doc_replace",
            json!({"path": "big.md", "section": "part-1-q", "content": "x".repeat(100_000), "expected_hash": "nope"}),
        ),
    ]
}

/// No answer's text (nor its structured view) exceeds the budget in force: a client's, the
/// server option's, or a call's own.
#[tokio::test]
async fn no_answer_exceeds_the_budget_in_force() {
    let fx = Fixture::new();
    let calls = long_inputs(&fx);
    for (name, extra, bytes, lines) in [
        ("codex-mcp-client", &[][..], 10 * 1024, 256),
        ("github-copilot-developer", &[][..], 10 * 1024, usize::MAX),
        (
            "some-client",
            &["--max-output-bytes", "3000"][..],
            3000,
            usize::MAX,
        ),
        ("some-client", &[][..], 80_000, usize::MAX),
    ] {
        let client = Client::start(&fx, name, &[&["--allow-write"][..], extra].concat()).await;
        for (tool, args) in &calls {
            let r = client.call(tool, args.clone()).await;
            assert_fits(
                &format!("{name} {tool} {:.200}", args.to_string()),
                &r,
                bytes,
                lines,
            );
        }
        client.shutdown().await;
    }
    // A call's own budget overrides the client's (bytes; Codex's line limit stays).
    let client = Client::start(&fx, "some-client", &[]).await;
    let r = client
        .call(
            "read_files",
            json!({"files": [{"path": "big.md"}], "max_output_bytes": 2000}),
        )
        .await;
    assert_fits("max_output_bytes 2000", &r, 2000, usize::MAX);
    assert!(
        text_of(&r).contains("Continue with start_line"),
        "{}",
        text_of(&r)
    );
    client.shutdown().await;
    let codex = Client::start(&fx, "codex-mcp-client", &[]).await;
    let r = codex
        .call(
            "file_read",
            json!({"file": "long_line.txt", "max_output_bytes": 30000}),
        )
        .await;
    let (t, _, _) = measure(&r);
    assert!(t > 10 * 1024, "the call asked for more: {t} bytes");
    assert_fits("max_output_bytes 30000", &r, 30_000, 256);
    codex.shutdown().await;
}
