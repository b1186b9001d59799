//! Issue 6's bad-input catalogue, through the MCP server: every kind of bad input gets a
//! clear, bounded answer of a known kind — a the Error/Problem/Fix layout error (`Error:` / `You provided:`
//! / `Problem:` / `Fix:`), a docs/read_text_file.md JSON-RPC error code for `read_text_file`, or a success
//! whose notes say what was cut or skipped — promptly, and the server keeps serving.
//!
//! Items already covered elsewhere are referenced and re-asserted briefly: invalid regexes and
//! `Error: Empty pattern` (grep_tool.rs), line parameters and empty patterns of `read_files`
//! (read_files.rs), read_text_file's error table (read_text_file.rs), devices, FIFOs and
//! directories as refusals of the read tools (sandbox.rs).
//!
//! Tests marked `#[ignore = "BUG: ..."]` assert the right behaviour where the server is wrong.

use mapgrep::platform::test_support as sys;
use std::process::Stdio;
use std::time::{Duration, Instant};

use mapgrep::workspace::DEFAULT_MAX_OUTPUT_BYTES;
use rmcp::RoleClient;
use rmcp::ServiceExt;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

use crate::common::{Answer, BIN, Fixture, Server, call_on, layout_in, text_of};

/// Every call here must answer within this (a FIFO or a device must never block one).
const TIMEOUT: Duration = Duration::from_secs(20);

/// A generous bound for work that must stay linear (debug build, shared CPU).
const FAST: Duration = Duration::from_secs(10);

/// Slack over the response size limit for headers, notes and summaries.
const SLACK: usize = 64 * 1024;

/// The paths of a `grep_content` answer's structured matches, in order.
fn matched_paths(a: &Answer) -> Vec<&str> {
    a.structured["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .map(|m| m["path"].as_str().expect("path"))
        .collect()
}

/// Runs `f` and asserts it took less than [`FAST`].
async fn timed<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    let started = Instant::now();
    let out = f.await;
    let took = started.elapsed();
    assert!(took < FAST, "{what} took {took:?}");
    out
}

/// A good call after bad ones: the server still serves.
async fn still_serving(srv: &Server) {
    let a = srv
        .ok("read_files", json!({"files": [{"path": "ok.txt"}]}))
        .await;
    assert_eq!(
        a.text,
        "File: ok.txt\nLines: 1-1 of 1\n---\nneedle ok\n---\n"
    );
}

/// A fixture with `ok.txt` (for [`still_serving`]), a markdown file and a TypeScript file.
fn base_fixture() -> Fixture {
    let fx = Fixture::new();
    fx.write("ok.txt", "needle ok\n");
    fx.write("a.md", "# A\nneedle a\n## B\nbeta\n");
    fx.write("a.ts", "function f() {\n  return 1;\n}\n");
    fx
}

// ---- regexes -----------------------------------------------------------------------------------

#[tokio::test]
async fn invalid_regexes_are_layout_errors_in_every_regex_parameter() {
    // grep_tool.rs and read_files.rs test `a(b` / `^[LOG-(`; here every regex parameter.
    let fx = base_fixture();
    let srv = fx.serve().await;
    let cases = [
        (
            "grep_content",
            json!({"pattern": "a(b"}),
            "Invalid regex in pattern",
        ),
        (
            "grep_content",
            json!({"pattern": "x", "section_patterns": ["^## ", "[z"]}),
            "Invalid regex in section_patterns",
        ),
        (
            "read_files",
            json!({"files": [{"path": "a.md", "start_line": 1, "read_to_next_pattern": "(a"}]}),
            "Invalid regex in read_to_next_pattern",
        ),
        (
            "doc_find",
            json!({"path": "a.md", "content_pattern": "(a"}),
            "Invalid regex in content_pattern",
        ),
    ];
    for (tool, args, short) in cases {
        let e = srv.layout_err(tool, args.clone()).await;
        assert_eq!(e.short, short, "{tool} {args}");
        assert!(
            e.provided.contains("(a") || e.provided.contains("[z") || e.provided.contains("a(b"),
            "{e:?}"
        );
    }
    // The syntax error itself is named where the code says so.
    let e = srv
        .layout_err("grep_content", json!({"pattern": "a(b"}))
        .await;
    assert!(e.problem.contains("unclosed group"), "{e:?}");
    let e = srv
        .layout_err(
            "read_files",
            json!({"files": [{"path": "a.md", "start_line": 1, "read_to_next_pattern": "(a"}]}),
        )
        .await;
    assert!(e.problem.contains("unclosed group"), "{e:?}");
    let e = srv
        .layout_err("doc_find", json!({"path": "a.md", "content_pattern": "(a"}))
        .await;
    assert!(e.problem.contains("unclosed group"), "{e:?}");
    still_serving(&srv).await;
    srv.shutdown().await;
}

/// A regex that compiles past the NFA size limit.
const TOO_LARGE: &str = r"\w{1000}{1000}";

#[tokio::test]
async fn oversized_regexes_are_refused_promptly_in_every_regex_parameter() {
    let fx = base_fixture();
    let srv = fx.serve().await;
    let cases = [
        (
            "grep_content",
            json!({"pattern": TOO_LARGE}),
            "Regex too large in pattern",
        ),
        (
            "grep_content",
            json!({"pattern": "x", "section_patterns": [TOO_LARGE]}),
            "Regex too large in section_patterns",
        ),
        (
            "read_files",
            json!({"files": [{"path": "a.md", "start_line": 1, "read_to_next_pattern": TOO_LARGE}]}),
            "Regex too large in read_to_next_pattern",
        ),
        (
            "doc_find",
            json!({"path": "a.md", "content_pattern": TOO_LARGE}),
            "Regex too large in content_pattern",
        ),
    ];
    for (tool, args, short) in cases {
        let e = timed(tool, srv.layout_err(tool, args.clone())).await;
        assert_eq!(e.short, short, "{tool} {args}");
    }
    // A 1 MB literal is over the automaton limit: refused promptly, and its echo is clipped.
    let huge_literal = "a".repeat(1 << 20);
    let a = timed(
        "grep",
        srv.answer("grep_content", json!({"pattern": huge_literal})),
    )
    .await;
    assert!(a.is_error && a.text.starts_with("Error: Regex too large in pattern"));
    assert!(a.text.len() < 32 * 1024, "{} bytes", a.text.len());
    // A 64 KB literal compiles: it is answered promptly as an ordinary search.
    let big_literal = "a".repeat(64 << 10);
    for pattern in [big_literal.as_str()] {
        let a = timed("grep", srv.ok("grep_content", json!({"pattern": pattern}))).await;
        assert!(
            a.text.starts_with("No matches (searched 3 files)."),
            "{}",
            &a.text[..200.min(a.text.len())]
        );
        let a = timed(
            "doc_find",
            srv.ok(
                "doc_find",
                json!({"path": "a.md", "content_pattern": pattern}),
            ),
        )
        .await;
        assert_eq!(a.structured["total_matches"], 0);
        let a = timed(
            "read_files",
            srv.ok("read_files",
                json!({"files": [{"path": "a.md", "start_line": 1, "read_to_next_pattern": pattern}]}),
            ),
        )
        .await;
        assert!(
            a.text
                .starts_with("File: a.md\nLines: 1-4 of 4\nNote: Pattern '"),
            "{}",
            &a.text[..200]
        );
    }
    still_serving(&srv).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn pathological_regexes_stay_linear() {
    let fx = base_fixture();
    let a_line = format!("{}\n", "a".repeat(1 << 20));
    let x_line = format!("{}\n", "x".repeat(1 << 20));
    fx.write("as.txt", &a_line);
    fx.write("xs.txt", &x_line);
    fx.write("as.md", format!("# Head\n{a_line}## Next\nz\n"));
    let srv = fx.serve().await;
    // (pattern, file, matches): backtracking engines take exponential time on these.
    let cases = [
        ("(a*)*b", "as.txt", false),
        ("(a|a)*c", "as.txt", false),
        ("(a|aa)*c", "as.txt", false),
        (r"(\w+\s?)*!", "as.txt", false),
        ("^(a+)+$", "as.txt", true),
        ("(x+x+)+y", "xs.txt", false),
        ("(x*)*$", "xs.txt", true),
    ];
    for (pattern, file, matches) in cases {
        let a = timed(
            pattern,
            srv.ok(
                "grep_content",
                json!({"pattern": pattern, "search_path": file}),
            ),
        )
        .await;
        let n = a.structured["matches"].as_array().unwrap().len();
        assert_eq!(
            n,
            usize::from(matches),
            "{pattern}: {}",
            &a.text[..100.min(a.text.len())]
        );
        if matches {
            // The 1 MB line comes back cut to the match-text limit.
            assert!(a.text.contains(" […line cut]\n"), "{pattern}");
            assert!(a.text.len() < SLACK);
        }
        // The same regexes as section boundaries and as doc_find content filters.
        let a = timed(
            pattern,
            srv.ok("read_files",
                json!({"files": [{"path": "as.md", "start_line": 1, "read_to_next_pattern": pattern}]}),
            ),
        )
        .await;
        assert!(a.text.starts_with("File: as.md\nLines: 1-"), "{pattern}");
        timed(
            pattern,
            srv.ok(
                "doc_find",
                json!({"path": "as.md", "content_pattern": pattern}),
            ),
        )
        .await;
    }
    still_serving(&srv).await;
    srv.shutdown().await;
}

// ---- empty patterns ----------------------------------------------------------------------------

#[tokio::test]
async fn empty_patterns_get_a_clear_answer_not_a_dump() {
    let fx = base_fixture();
    fx.write("many.txt", "x\n".repeat(200_000));
    let srv = fx.serve().await;
    // Refused outright (grep_content "" is also in grep_tool.rs, read_to_next_pattern "" in
    // read_files.rs).
    for (tool, args, short) in [
        ("grep_content", json!({"pattern": ""}), "Empty pattern"),
        (
            "grep_content",
            json!({"pattern": "", "fixed_strings": true}),
            "Empty pattern",
        ),
        (
            "grep_content",
            json!({"pattern": "", "word": true, "case_insensitive": true}),
            "Empty pattern",
        ),
        (
            "read_files",
            json!({"files": [{"path": "a.md", "start_line": 1, "read_to_next_pattern": ""}]}),
            "read_to_next_pattern is empty",
        ),
        (
            "doc_find",
            json!({"path": "a.md", "content_pattern": ""}),
            "Empty content_pattern",
        ),
        (
            "doc_read",
            json!({"path": "a.md", "section": ""}),
            "Empty section",
        ),
        (
            "doc_read_many",
            json!({"path": "a.md", "sections": [""]}),
            "Empty section",
        ),
        (
            "doc_read_many",
            json!({"path": "a.md", "sections": []}),
            "No sections requested",
        ),
        (
            "doc_toc",
            json!({"path": "a.md", "section": ""}),
            "Empty section",
        ),
        ("read_files", json!({"files": []}), "No files requested"),
        (
            "read_files",
            json!({"files": [{"path": ""}]}),
            "Invalid path",
        ),
        ("file_read", json!({"file": ""}), "Invalid path"),
        (
            "grep_content",
            json!({"pattern": "x", "search_path": ""}),
            "search_path cannot be searched",
        ),
        (
            "grep_content",
            json!({"pattern": "x", "cursor": ""}),
            "Invalid cursor",
        ),
    ] {
        let e = srv.layout_err(tool, args.clone()).await;
        assert_eq!(e.short, short, "{tool} {args}");
    }
    let (code, message) = srv.rpc_err("read_text_file", json!({"path": ""})).await;
    assert_eq!(
        (code, message.as_str()),
        (-32600, "Path must be absolute: ")
    );
    // An empty doc_find title glob is no filter: every section.
    let a = srv
        .ok("doc_find", json!({"path": "a.md", "pattern": ""}))
        .await;
    assert_eq!(a.structured["total_matches"], 2);
    // Patterns that match the empty string match every line: the answer is capped at
    // max_results (default 100) with a cursor, never every line of every file.
    for pattern in ["^", "(?:)", "x*", "$"] {
        let a = timed(pattern, srv.ok("grep_content", json!({"pattern": pattern}))).await;
        assert_eq!(
            a.structured["matches"].as_array().unwrap().len(),
            100,
            "{pattern}"
        );
        assert_eq!(a.structured["truncated"], true, "{pattern}");
        assert!(a.structured["next_cursor"].is_string(), "{pattern}");
        assert!(
            a.text.contains("Results cut at max_results=100."),
            "{pattern}"
        );
        assert!(a.text.len() < SLACK, "{pattern}: {} bytes", a.text.len());
    }
    still_serving(&srv).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn an_empty_section_pattern_is_refused_like_every_other_empty_pattern() {
    let fx = base_fixture();
    let srv = fx.serve().await;
    srv.layout_err(
        "grep_content",
        json!({"pattern": "needle", "section_patterns": [""]}),
    )
    .await;
    srv.shutdown().await;
}

// ---- line numbers ------------------------------------------------------------------------------

#[tokio::test]
async fn zero_negative_and_huge_line_numbers_in_read_files() {
    let fx = base_fixture();
    let srv = fx.serve().await;
    let max = i64::MAX;
    let min = i64::MIN;
    // Refused with the field named (read_files.rs covers head 0 and start_line 0).
    for (entry, short) in [
        (json!({"start_line": 0}), "start_line must be at least 1"),
        (json!({"start_line": -1}), "start_line must be at least 1"),
        (json!({"start_line": min}), "start_line must be at least 1"),
        (json!({"end_line": 0}), "end_line must be at least 1"),
        (json!({"end_line": -1}), "end_line must be at least 1"),
        (
            json!({"start_line": 1, "end_line": min}),
            "end_line must be at least 1",
        ),
        (json!({"head": -1}), "head must be at least 1"),
        (json!({"tail": 0}), "tail must be at least 1"),
        (json!({"tail": min}), "tail must be at least 1"),
        (
            json!({"start_line": max}),
            "start_line is past the end of the file",
        ),
        (
            json!({"start_line": max, "read_to_next_pattern": "^## "}),
            "start_line is past the end of the file",
        ),
        (
            json!({"start_line": -1, "read_to_next_pattern": "^## "}),
            "start_line must be at least 1",
        ),
        (
            json!({"start_line": max, "end_line": 1}),
            "end_line is before start_line",
        ),
    ] {
        let mut entry = entry;
        entry["path"] = json!("a.md");
        let e = srv
            .layout_err("read_files", json!({"files": [entry.clone()]}))
            .await;
        assert_eq!(e.short, short, "{entry}");
        if short.contains("past the end") {
            assert!(e.problem.contains(&max.to_string()), "{e:?}");
            assert_eq!(e.fix, "Use a start_line between 1 and 4.");
        }
    }
    // Huge counts and ends read what there is.
    let whole = "File: a.md\nLines: 1-4 of 4\n---\n# A\nneedle a\n## B\nbeta\n---\n";
    for entry in [json!({"head": max}), json!({"tail": max})] {
        let mut entry = entry;
        entry["path"] = json!("a.md");
        let a = srv.ok("read_files", json!({"files": [entry]})).await;
        assert_eq!(a.text, whole);
    }
    for entry in [
        json!({"end_line": max}),
        json!({"start_line": 1, "end_line": max}),
    ] {
        let mut entry = entry;
        entry["path"] = json!("a.md");
        let a = srv.ok("read_files", json!({"files": [entry]})).await;
        assert_eq!(
            a.text,
            format!(
                "File: a.md\nLines: 1-4 of 4\nNote: end_line {max} is past the end of the file (4 lines). Read to end of file.\n---\n# A\nneedle a\n## B\nbeta\n---\n"
            )
        );
    }
    // Beyond i64 or not an integer: the parameters do not deserialize.
    for v in [json!(u64::MAX), json!(1.5), json!(2.0), json!(1e300)] {
        let a = srv
            .answer(
                "read_files",
                json!({"files": [{"path": "a.md", "start_line": v}]}),
            )
            .await;
        assert!(a.is_error, "{v}: {}", a.text);
        assert!(
            a.text.starts_with("failed to deserialize parameters: "),
            "{}",
            a.text
        );
        assert!(a.text.contains("expected an integer"), "{}", a.text);
    }
    still_serving(&srv).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn zero_negative_and_huge_line_numbers_in_read_text_file() {
    let fx = base_fixture();
    let srv = fx.serve().await;
    let path = fx.abs("a.md");
    // docs/read_text_file.md: -32600 (read_text_file.rs covers 0, -3 and -1; here the extremes).
    for line in [0, -1, i64::MIN] {
        let (code, message) = srv
            .rpc_err("read_text_file", json!({"path": path, "line": line}))
            .await;
        assert_eq!(
            (code, message),
            (-32600, format!("Line number must be >= 1: {line}"))
        );
    }
    for limit in [0, -1, i64::MIN] {
        let (code, message) = srv
            .rpc_err("read_text_file", json!({"path": path, "limit": limit}))
            .await;
        assert_eq!(
            (code, message),
            (-32600, format!("Limit must be >= 1: {limit}"))
        );
    }
    // Huge values: nothing overflows; past the end is empty, a huge limit is the rest.
    let max = i64::MAX;
    for (args, content, returned) in [
        (json!({"path": path, "line": max}), "", 0),
        (json!({"path": path, "line": max, "limit": max}), "", 0),
        (
            json!({"path": path, "limit": max}),
            "# A\nneedle a\n## B\nbeta\n",
            4,
        ),
        (json!({"path": path, "line": 4, "limit": max}), "beta\n", 1),
    ] {
        let a = srv.ok("read_text_file", args.clone()).await;
        assert_eq!(a.structured["content"], content, "{args}");
        assert_eq!(
            a.structured["_meta"],
            json!({"total_lines": 4, "returned_lines": returned, "has_more": false}),
            "{args}"
        );
    }
    still_serving(&srv).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn zero_negative_and_huge_line_numbers_in_file_read_and_the_doc_tools() {
    let fx = base_fixture();
    let srv = fx.serve().await;
    let (max, min) = (i64::MAX, i64::MIN);
    // file_read clamps startLine/endLine to 1..=total (docs/file_read.md "Values clamped to valid
    // range"), so 0, negatives and huge ends are read, not refused.
    for (args, first, last) in [
        (json!({"startLine": 0}), 1, 3),
        (json!({"startLine": -1}), 1, 3),
        (json!({"startLine": min, "endLine": max}), 1, 3),
        (json!({"endLine": max}), 1, 3),
        (json!({"startLine": 1, "endLine": max}), 1, 3),
        (json!({"endLine": 0}), 1, 1),
        (json!({"endLine": -5}), 1, 1),
    ] {
        let mut args = args;
        args["file"] = json!("a.ts");
        let a = srv.ok("file_read", args.clone()).await;
        assert_eq!(a.structured["mode"], "range", "{args}");
        assert_eq!(
            (
                a.structured["start_line"].clone(),
                a.structured["end_line"].clone()
            ),
            (json!(first), json!(last)),
            "{args}"
        );
        assert!(
            a.text
                .contains(&format!("**Range:** lines {first}-{last} of 3")),
            "{}",
            a.text
        );
    }
    // A start past the end, and start after end, are refused.
    let e = srv
        .layout_err("file_read", json!({"file": "a.ts", "startLine": max}))
        .await;
    assert_eq!(e.short, "startLine past the end of the file");
    assert!(e.problem.contains(&max.to_string()), "{e:?}");
    let e = srv
        .layout_err(
            "file_read",
            json!({"file": "a.ts", "startLine": 3, "endLine": 1}),
        )
        .await;
    assert_eq!(e.short, "startLine after endLine");

    // doc tools: numeric parameters are range-checked.
    for (tool, args, short) in [
        (
            "doc_toc",
            json!({"path": "a.md", "max_depth": 0}),
            "Invalid max_depth",
        ),
        (
            "doc_toc",
            json!({"path": "a.md", "max_depth": -1}),
            "Invalid max_depth",
        ),
        (
            "doc_toc",
            json!({"path": "a.md", "max_depth": max}),
            "Invalid max_depth",
        ),
        (
            "doc_find",
            json!({"path": "a.md", "level": 0}),
            "Invalid level",
        ),
        (
            "doc_find",
            json!({"path": "a.md", "level": 7}),
            "Invalid level",
        ),
        (
            "doc_find",
            json!({"path": "a.md", "level": min}),
            "Invalid level",
        ),
        (
            "doc_find",
            json!({"path": "a.md", "min_size": -1}),
            "Invalid min_size",
        ),
        (
            "doc_find",
            json!({"path": "a.md", "max_depth": 0}),
            "Invalid max_depth",
        ),
    ] {
        let e = srv.layout_err(tool, args.clone()).await;
        assert_eq!(e.short, short, "{tool} {args}");
    }
    // A line-number section address outside the document (0, huge, beyond u64) is not found.
    for section in ["0", "9223372036854775807", "99999999999999999999999", "-1"] {
        let e = srv
            .layout_err("doc_read", json!({"path": "a.md", "section": section}))
            .await;
        assert_eq!(e.short, "Section not found", "{section}");
    }
    // grep_content: max_results is clamped to 1..=10000, context_lines to 100.
    fx.write("x.txt", "x\n".repeat(20_000));
    let a = srv
        .ok("grep_content", json!({"pattern": "^x$", "max_results": 0}))
        .await;
    assert_eq!(a.structured["matches"].as_array().unwrap().len(), 1);
    assert_eq!(a.structured["truncated"], true);
    // At most 10,000 matching lines, in pages that fit the response limit: following the
    // cursors gives each of them once, in order.
    let mut args = json!({"pattern": "^x$", "max_results": u32::MAX});
    let mut lines = Vec::new();
    loop {
        let a = srv.ok("grep_content", args.clone()).await;
        assert!(
            a.text.len() <= DEFAULT_MAX_OUTPUT_BYTES + 1024,
            "{}",
            a.text.len()
        );
        assert!(
            a.text.contains("Results cut at "),
            "{}",
            &a.text[a.text.len() - 300..]
        );
        let page = a.structured["matches"].as_array().unwrap();
        lines.extend(page.iter().map(|m| m["line"].as_u64().unwrap()));
        if lines.len() >= 10_000 {
            break;
        }
        args["cursor"] = a.structured["next_cursor"].clone();
        args["max_results"] = json!(10_000 - lines.len());
    }
    assert_eq!(lines, (1..=10_000).collect::<Vec<u64>>());
    let a = srv
        .ok(
            "grep_content",
            json!({"pattern": "needle", "search_path": "a.md", "context_lines": u32::MAX}),
        )
        .await;
    assert_eq!(
        a.structured["matches"][0]["context"]["after"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    for args in [
        json!({"pattern": "x", "max_results": -1}),
        json!({"pattern": "x", "context_lines": -1}),
        json!({"pattern": "x", "max_results": u64::MAX}),
    ] {
        let a = srv.answer("grep_content", args.clone()).await;
        assert!(a.is_error, "{args}: {}", a.text);
        assert!(
            a.text.starts_with("failed to deserialize parameters: "),
            "{}",
            a.text
        );
    }
    still_serving(&srv).await;
    srv.shutdown().await;
}

// ---- wrong JSON types --------------------------------------------------------------------------

#[tokio::test]
async fn wrong_json_types_are_refused_and_the_server_keeps_serving() {
    let fx = base_fixture();
    let srv = fx.serve().await;
    let abs = fx.abs("a.md");
    let cases: Vec<(&'static str, Value)> = vec![
        // a string that is no number for a number
        (
            "read_files",
            json!({"files": [{"path": "a.md", "head": "five"}]}),
        ),
        ("read_text_file", json!({"path": abs, "line": "third"})),
        ("grep_content", json!({"pattern": "x", "max_results": "5x"})),
        ("doc_toc", json!({"path": "a.md", "max_depth": "two"})),
        ("doc_find", json!({"path": "a.md", "level": "3.5"})),
        ("file_read", json!({"file": "a.ts", "startLine": "one"})),
        // number for a string
        ("read_files", json!({"files": [{"path": 5}]})),
        ("read_text_file", json!({"path": 5})),
        ("grep_content", json!({"pattern": 5})),
        ("doc_read", json!({"path": "a.md", "section": 5})),
        (
            "doc_replace",
            json!({"path": "a.md", "section": "B", "content": 5, "expected_hash": "x"}),
        ),
        ("file_read", json!({"file": 5})),
        // array for a string
        ("read_files", json!({"files": [{"path": ["a.md"]}]})),
        ("read_text_file", json!({"path": [abs]})),
        ("grep_content", json!({"pattern": ["needle"]})),
        (
            "grep_content",
            json!({"pattern": "x", "search_path": ["a.md"]}),
        ),
        ("doc_read", json!({"path": "a.md", "section": ["B"]})),
        (
            "read_files",
            json!({"files": [{"path": "a.md", "start_line": 1, "read_to_next_pattern": ["^#"]}]}),
        ),
        // numbers for a list of strings
        ("doc_read_many", json!({"path": "a.md", "sections": [1]})),
        // null for a required field
        ("read_files", json!({"files": null})),
        ("read_files", json!({"files": [null]})),
        ("read_files", json!({"files": [{"path": null}]})),
        ("read_text_file", json!({"path": null})),
        ("grep_content", json!({"pattern": null})),
        ("doc_toc", json!({"path": null})),
        ("doc_read", json!({"path": "a.md", "section": null})),
        ("file_read", json!({"file": null})),
        // an object (or a number, or a list of numbers) for `target`
        (
            "file_read",
            json!({"file": "a.ts", "target": {"name": "f"}}),
        ),
        ("file_read", json!({"file": "a.ts", "target": 5})),
        ("file_read", json!({"file": "a.ts", "target": [1, 2]})),
        // strings that are no booleans for booleans
        (
            "read_files",
            json!({"files": [{"path": "a.md"}], "large_file_passthrough": "sure"}),
        ),
        (
            "grep_content",
            json!({"pattern": "x", "case_insensitive": "yes"}),
        ),
        ("file_read", json!({"file": "a.ts", "skeleton": "on"})),
        (
            "doc_read",
            json!({"path": "a.md", "section": "B", "include_children": 1}),
        ),
    ];
    for (tool, args) in cases {
        // rmcp turns a parameter deserialization failure into a tool error (isError) carrying
        // serde's message; a JSON-RPC invalid-params error would be acceptable too.
        match srv.call(tool, args.clone()).await {
            Ok(r) => {
                let a = Answer::of(tool, &r);
                assert!(a.is_error, "{tool} {args}: {}", a.text);
                assert!(
                    a.text.starts_with("failed to deserialize parameters: "),
                    "{tool} {args}: {}",
                    a.text
                );
                assert!(
                    [
                        "invalid type",
                        "invalid value",
                        "did not match",
                        "missing field"
                    ]
                    .iter()
                    .any(|k| a.text.contains(k)),
                    "{tool} {args}: {}",
                    a.text
                );
            }
            Err(e) => assert_eq!(e.code.0, -32602, "{tool} {args}: {e:?}"),
        }
    }
    // What models often send instead is read as they meant it: numbers and booleans as
    // strings, one value for a list, a bare path for a read request.
    for (tool, args) in [
        (
            "read_files",
            json!({"files": [{"path": "a.md", "head": "5"}]}),
        ),
        ("read_text_file", json!({"path": abs, "line": "3"})),
        ("grep_content", json!({"pattern": "x", "max_results": "5"})),
        ("doc_toc", json!({"path": "a.md", "max_depth": "2"})),
        ("doc_find", json!({"path": "a.md", "level": "3"})),
        ("file_read", json!({"file": "a.ts", "startLine": "1"})),
        ("read_files", json!({"files": "a.md"})),
        ("read_files", json!({"files": {"path": "a.md"}})),
        ("read_files", json!({"files": ["a.md"]})),
        ("doc_read_many", json!({"path": "a.md", "sections": "B"})),
        ("grep_content", json!({"pattern": "x", "glob": "*.md"})),
        (
            "grep_content",
            json!({"pattern": "x", "section_patterns": "^## "}),
        ),
        (
            "read_files",
            json!({"files": [{"path": "a.md"}], "large_file_passthrough": "true"}),
        ),
        (
            "grep_content",
            json!({"pattern": "x", "case_insensitive": "TRUE"}),
        ),
        ("file_read", json!({"file": "a.ts", "skeleton": "true"})),
        ("file_read", json!({"file": "a.ts", "target": "f"})),
    ] {
        srv.ok(tool, args).await;
    }
    // null for an optional field is the same as leaving it out.
    let a = srv
        .ok(
            "read_files",
            json!({"files": [{"path": "a.md", "head": null}]}),
        )
        .await;
    assert!(
        a.text.starts_with("File: a.md\nLines: 1-4 of 4\n"),
        "{}",
        a.text
    );
    let a = srv
        .ok("file_read", json!({"file": "a.ts", "target": null}))
        .await;
    assert_eq!(a.structured["mode"], "range");
    still_serving(&srv).await;
    srv.shutdown().await;
}

/// Each tool's required arguments (minimal, valid) for [`null_means_not_given_everywhere`].
fn required_args(fx: &Fixture, tool: &str) -> Value {
    match tool {
        "read_files" => json!({"files": [{"path": "a.md"}]}),
        "read_text_file" => json!({"path": fx.abs("a.md")}),
        "grep_content" => json!({"pattern": "needle"}),
        "doc_toc" => json!({"path": "a.md"}),
        "doc_read" => json!({"path": "a.md", "section": "b"}),
        "doc_read_many" => json!({"path": "a.md", "sections": ["b"]}),
        "doc_find" => json!({"path": "a.md"}),
        "doc_replace" => {
            json!({"path": "a.md", "section": "b", "content": "## B\nnew\n", "expected_hash": "0"})
        }
        "file_read" => json!({"file": "a.ts"}),
        "find_definition" => json!({"name": "f"}),
        "find_references" => json!({"name": "f"}),
        "repo_map" => json!({}),
        "find_files" => json!({"pattern": "*.md"}),
        other => panic!("a new tool, {other}: give it its required arguments here"),
    }
}

#[tokio::test]
async fn null_means_not_given_everywhere() {
    // Every optional parameter of every tool (read from tools/list, so a new one is covered)
    // accepts null as "not given": the answer is the one without it. Without an index: one
    // built in the background could become ready between the two calls of a pair and change
    // what the second answer says of where it looked.
    let fx = base_fixture();
    let srv = fx.serve_with(&["--allow-write", "--no-index"]).await;
    let tools = srv.client().list_all_tools().await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "doc_replace"));
    for tool in &tools {
        let name: &'static str = Box::leak(tool.name.to_string().into_boxed_str());
        let base = required_args(&fx, name);
        let schema = Value::Object((*tool.input_schema).clone());
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut nulls = base.clone();
        for (prop, _) in schema["properties"].as_object().expect("properties") {
            if !required.contains(&prop.as_str()) {
                nulls[prop] = Value::Null;
            }
        }
        // Inside the read_files entries too.
        if name == "read_files" {
            let item = &schema["properties"]["files"]["items"];
            for (prop, _) in item["properties"].as_object().expect("entry properties") {
                if prop != "path" {
                    nulls["files"][0][prop] = Value::Null;
                }
            }
        }
        assert_ne!(nulls, base, "{name} has optional parameters");
        let without = srv.call(name, base.clone()).await;
        let with = srv.call(name, nulls.clone()).await;
        match (without, with) {
            (Ok(a), Ok(b)) => {
                let (a, b) = (text_of(&a), text_of(&b));
                assert!(
                    !b.contains("failed to deserialize"),
                    "{name} {nulls}: null refused:\n{b}"
                );
                assert_eq!(
                    a, b,
                    "{name} {nulls}: null is not the same as leaving it out"
                );
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "{name} {nulls}"),
            (a, b) => panic!("{name}: {base} answered {a:?}, {nulls} answered {b:?}"),
        }
    }
    srv.shutdown().await;
}

#[tokio::test]
async fn wrong_type_errors_name_the_parameter() {
    let fx = base_fixture();
    let srv = fx.serve().await;
    for (tool, args, field) in [
        (
            "read_files",
            json!({"files": [{"path": "a.md", "head": "five"}]}),
            "files[0].head",
        ),
        (
            "grep_content",
            json!({"pattern": "x", "max_results": "5x"}),
            "max_results",
        ),
        (
            "doc_find",
            json!({"path": "a.md", "level": "third"}),
            "level",
        ),
        (
            "file_read",
            json!({"file": "a.ts", "target": {"name": "f"}}),
            "target[0]",
        ),
        (
            "read_text_file",
            json!({"path": fx.abs("a.md"), "line": "3rd"}),
            "line",
        ),
    ] {
        let a = srv.answer(tool, args.clone()).await;
        assert!(a.is_error);
        assert!(
            a.text.contains(&format!(
                " (parameter `{field}`)\nFix: send `{field}` with the type"
            )),
            "{tool} {args}: {}",
            a.text
        );
    }
    srv.shutdown().await;
}

// ---- large batches and oversized answers ------------------------------------------------------

/// 200 lines of 10 bytes.
fn rows() -> String {
    (1..=200).map(|i| format!("line {i:04}\n")).collect()
}

#[tokio::test]
async fn a_ten_thousand_entry_batch_is_answered_and_says_where_it_was_cut() {
    let fx = base_fixture();
    fx.write("f.txt", rows());
    let srv = fx.serve().await;
    let files: Vec<Value> = (0..10_000).map(|_| json!({"path": "f.txt"})).collect();
    let a = timed("batch", srv.ok("read_files", json!({"files": files}))).await;
    // Every entry is accounted for: read whole, read in part up to the limit (one, with a
    // note saying where to continue), then one block refusing the rest by entry numbers.
    let read = a.text.matches("\nLines: 1-200 of 200\n").count();
    let partial = a.text.matches("\nLines: ").count() - read;
    assert!(read > 0, "read {read}");
    assert!(partial <= 1, "read {read}, partial {partial}");
    assert_eq!(
        a.text
            .matches("Note: Output cut at the response size limit. Continue with start_line: ")
            .count(),
        partial
    );
    assert_eq!(
        a.text.matches("\nError: Response limit reached\n").count(),
        1
    );
    let first_cut = a.text.find("Error: Response limit reached").unwrap();
    assert!(!a.text[first_cut..].contains("\nLines: "));
    let e = layout_in(&a.text[first_cut..]);
    let first_unread = read + partial + 1;
    assert_eq!(
        e.provided,
        format!("entries {first_unread}-10000 of 10000: path=\"f.txt\"")
    );
    assert_eq!(
        e.fix,
        format!(
            "Request these {} files (entries {first_unread}-10000 of this batch) in a separate read_files call.",
            10_001 - first_unread
        )
    );
    // The whole answer stays within the limit (and one entry's headers).
    assert!(
        a.text.len() <= DEFAULT_MAX_OUTPUT_BYTES + 1024,
        "{}",
        a.text.len()
    );
    // An all-bad batch is an error, entry by entry until the limit, then one block.
    let files: Vec<Value> = (0..10_000)
        .map(|_| json!({"path": "missing.txt"}))
        .collect();
    let a = timed("batch", srv.answer("read_files", json!({"files": files}))).await;
    assert!(a.is_error);
    let missing = a.text.matches("\nError: File not found\n").count();
    assert!(missing > 100, "{missing}");
    let e = layout_in(&a.text[a.text.find("Error: Response limit reached").unwrap()..]);
    assert!(
        e.provided
            .starts_with(&format!("entries {}-10000 of 10000: ", missing + 1)),
        "{e:?}"
    );
    assert!(
        a.text.len() <= DEFAULT_MAX_OUTPUT_BYTES + 1024,
        "{}",
        a.text.len()
    );
    still_serving(&srv).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn a_ten_thousand_entry_batch_stays_within_the_response_size_limit() {
    let fx = base_fixture();
    fx.write("f.txt", rows());
    fx.write(&format!("{}.txt", "p".repeat(200)), "one line\n");
    let srv = fx.serve().await;
    for (entry, n, cut) in [
        (json!({"path": "f.txt"}), 10_000, true),
        (json!({"path": "missing.txt"}), 10_000, true),
        (json!({"path": "f.txt", "head": 1}), 10_000, true),
        (json!({"path": "f.txt", "head": 1}), 500, false),
        // Long names: the headers alone pass the limit.
        (
            json!({"path": format!("{}.txt", "p".repeat(200))}),
            10_000,
            true,
        ),
    ] {
        let files: Vec<Value> = (0..n).map(|_| entry.clone()).collect();
        let a = srv.answer("read_files", json!({"files": files})).await;
        assert!(
            a.text.len() <= DEFAULT_MAX_OUTPUT_BYTES + SLACK,
            "{entry}: {} bytes",
            a.text.len()
        );
        assert_eq!(
            a.text.contains("Error: Response limit reached"),
            cut,
            "{entry}: the cut is said, and only when there is one"
        );
        if !cut {
            assert_eq!(a.text.matches("\nLines: 1-1 of 200\n").count(), n);
        }
    }
    // doc_read_many: 10,000 sections, found and not found.
    for section in ["a", "nope"] {
        let sections: Vec<&str> = vec![section; 10_000];
        let a = srv
            .answer(
                "doc_read_many",
                json!({"path": "a.md", "sections": sections}),
            )
            .await;
        // The structured view is the same text, so the text's size is the answer's.
        assert!(
            a.text.len() <= DEFAULT_MAX_OUTPUT_BYTES + SLACK,
            "{section}: {} bytes",
            a.text.len()
        );
        assert!(a.text.contains("sections not read"), "{section}");
    }
    srv.shutdown().await;
}

#[tokio::test]
async fn oversized_parameter_values_are_not_echoed_back_unbounded() {
    let fx = base_fixture();
    let srv = fx.serve().await;
    let big = "y".repeat(2 << 20);
    let cases = [
        ("read_files", json!({"files": [{"path": big}]})),
        (
            "read_files",
            json!({"files": [{"path": "a.md", "start_line": 1, "read_to_next_pattern": big}]}),
        ),
        ("grep_content", json!({"pattern": format!("({big}")})),
        ("grep_content", json!({"pattern": "x", "search_path": big})),
        ("doc_read", json!({"path": "a.md", "section": big})),
        ("file_read", json!({"file": "a.ts", "target": big})),
    ];
    for (tool, args) in cases {
        let a = srv.answer(tool, args).await;
        assert!(
            a.text.len() <= DEFAULT_MAX_OUTPUT_BYTES + SLACK,
            "{tool}: {} bytes",
            a.text.len()
        );
    }
    srv.shutdown().await;
}

#[tokio::test]
async fn a_file_name_too_long_is_an_invalid_path_not_a_retryable_failure() {
    let fx = base_fixture();
    let srv = fx.serve().await;
    let name = "n".repeat(300);
    let e = srv
        .layout_err("read_files", json!({"files": [{"path": name}]}))
        .await;
    assert!(
        e.short == "Invalid path" || e.short == "File not found",
        "{e:?}"
    );
    assert!(!e.fix.contains("Retry"), "{e:?}");
    let (code, _) = srv
        .rpc_err("read_text_file", json!({"path": fx.abs(&name)}))
        .await;
    assert!(code == -32600 || code == -32001, "{code}");
    srv.shutdown().await;
}

// ---- encodings and line ends -------------------------------------------------------------------

/// `text` as UTF-16 with a byte-order mark.
fn utf16(text: &str, little_endian: bool) -> Vec<u8> {
    let mut out = if little_endian {
        vec![0xFF, 0xFE]
    } else {
        vec![0xFE, 0xFF]
    };
    for unit in text.encode_utf16() {
        let bytes = if little_endian {
            unit.to_le_bytes()
        } else {
            unit.to_be_bytes()
        };
        out.extend_from_slice(&bytes);
    }
    out
}

#[tokio::test]
async fn a_latin1_file_is_read_and_grepped_lossily_never_dropped() {
    let fx = base_fixture();
    fx.write(
        "latin1.md",
        b"# Caf\xe9\ncaf\xe9 au lait\nna\xefve needle\n".as_slice(),
    );
    let srv = fx.serve().await;
    let a = srv
        .ok("read_files", json!({"files": [{"path": "latin1.md"}]}))
        .await;
    assert_eq!(
        a.text,
        "File: latin1.md\nLines: 1-3 of 3\n---\n# Caf\u{FFFD}\ncaf\u{FFFD} au lait\nna\u{FFFD}ve needle\n---\n"
    );
    let a = srv
        .ok(
            "read_text_file",
            json!({"path": fx.abs("latin1.md"), "line": 3}),
        )
        .await;
    assert_eq!(a.structured["content"], "na\u{FFFD}ve needle\n");
    // grep: the file is searched (not skipped as binary) and its lines come back lossily.
    let a = srv.ok("grep_content", json!({"pattern": "needle"})).await;
    assert_eq!(a.structured["binary_skipped"], 0);
    let hits: Vec<(String, u64, String)> = a.structured["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["path"].as_str().unwrap().to_string(),
                m["line"].as_u64().unwrap(),
                m["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        hits.contains(&("latin1.md".into(), 3, "na\u{FFFD}ve needle".into())),
        "{hits:?}"
    );
    // The ASCII around an invalid byte matches; the invalid byte itself is matched by nothing
    // (`caf. au` finds no line, as in ripgrep; `(?-u:.)` is refused as able to match invalid
    // UTF-8).
    let a = srv
        .ok(
            "grep_content",
            json!({"pattern": "au lait", "search_path": "latin1.md"}),
        )
        .await;
    assert_eq!(a.structured["matches"][0]["line"], 2);
    let a = srv
        .ok(
            "grep_content",
            json!({"pattern": "caf. au", "search_path": "latin1.md"}),
        )
        .await;
    assert_eq!(a.structured["matches"], json!([]));
    // The doc and code tools read it too.
    let a = srv.ok("doc_toc", json!({"path": "latin1.md"})).await;
    assert_eq!(a.structured["sections"][0]["title"], "Caf\u{FFFD}");
    let a = srv.ok("file_read", json!({"file": "latin1.md"})).await;
    assert!(a.text.contains("na\u{FFFD}ve needle\n"), "{}", a.text);
    srv.shutdown().await;
}

#[tokio::test]
async fn utf16_files_with_a_bom_are_read_as_text() {
    let fx = base_fixture();
    let doc = "# Titré\nneedle one\n## B\nbeta 验证\n";
    fx.write("le.md", utf16(doc, true));
    fx.write("be.md", utf16(doc, false));
    let srv = fx.serve().await;
    for f in ["le.md", "be.md"] {
        let a = srv.ok("read_files", json!({"files": [{"path": f}]})).await;
        assert_eq!(
            a.text,
            format!("File: {f}\nLines: 1-4 of 4\n---\n{doc}---\n")
        );
        let a = srv
            .ok(
                "read_files",
                json!({"files": [{"path": f, "start_line": 1, "read_to_next_pattern": "^## "}]}),
            )
            .await;
        assert_eq!(
            a.text,
            format!("File: {f}\nLines: 1-2 of 4\n---\n# Titré\nneedle one\n---\n")
        );
        let a = srv
            .ok("read_text_file", json!({"path": fx.abs(f), "line": 4}))
            .await;
        assert_eq!(a.structured["content"], "beta 验证\n");
        assert_eq!(a.structured["_meta"]["total_lines"], 4);
        let a = srv
            .ok(
                "grep_content",
                json!({"pattern": "验证|needle", "search_path": f}),
            )
            .await;
        let lines: Vec<u64> = a.structured["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["line"].as_u64().unwrap())
            .collect();
        assert_eq!(lines, [2, 4], "{f}: {}", a.text);
        assert_eq!(a.structured["binary_skipped"], 0);
        let a = srv.ok("doc_read", json!({"path": f, "section": "B"})).await;
        assert_eq!(a.structured["section"]["content"], "## B\nbeta 验证\n");
        let a = srv.ok("file_read", json!({"file": f})).await;
        assert!(a.text.ends_with(doc), "{}", a.text);
    }
    // A walk finds both (not skipped as binary for their NUL bytes).
    let a = srv
        .ok("grep_content", json!({"pattern": "needle one"}))
        .await;
    assert_eq!(a.structured["matches"].as_array().unwrap().len(), 2);
    assert_eq!(a.structured["binary_skipped"], 0);
    srv.shutdown().await;
}

#[tokio::test]
async fn crlf_files_number_lines_right_and_each_tool_keeps_or_strips_cr() {
    let fx = base_fixture();
    fx.write("crlf.md", "# A\r\nalpha needle\r\n## B\r\nbeta\r\n");
    fx.write(
        "crlf.ts",
        "function f() {\r\n  return 1; // needle\r\n}\r\n",
    );
    let srv = fx.serve().await;
    // read_files, read_text_file and doc_read return the file's bytes: CRLF kept.
    let a = srv
        .ok("read_files", json!({"files": [{"path": "crlf.md"}]}))
        .await;
    assert_eq!(
        a.text,
        "File: crlf.md\nLines: 1-4 of 4\n---\n# A\r\nalpha needle\r\n## B\r\nbeta\r\n---\n"
    );
    // `$` matches before the `\r`, so an anchored boundary works on CRLF files.
    let a = srv.ok("read_files",
        json!({"files": [{"path": "crlf.md", "start_line": 1, "read_to_next_pattern": "^## B$"}]}),
    )
    .await;
    assert_eq!(
        a.text,
        "File: crlf.md\nLines: 1-2 of 4\n---\n# A\r\nalpha needle\r\n---\n"
    );
    let a = srv
        .ok(
            "read_text_file",
            json!({"path": fx.abs("crlf.md"), "line": 2, "limit": 2}),
        )
        .await;
    assert_eq!(a.structured["content"], "alpha needle\r\n## B\r\n");
    assert_eq!(a.structured["_meta"]["next_line"], 4);
    let a = srv
        .ok("doc_read", json!({"path": "crlf.md", "section": "B"}))
        .await;
    assert_eq!(a.structured["section"]["content"], "## B\r\nbeta\r\n");
    assert_eq!(a.structured["section"]["line_start"], 3);
    assert_eq!(a.structured["section"]["line_end"], 4);
    // grep_content strips the `\r` from match and context text; the hint's section end is
    // right.
    let a = srv
        .ok(
            "grep_content",
            json!({"pattern": "needle$", "search_path": "crlf.md", "context_lines": 1}),
        )
        .await;
    assert_eq!(
        a.text,
        "File: crlf.md, Line: 2, Section-End-Hint: 4 (end of file), Section-Start: 1, Section: #a (lines 1-4)\n---\n1- # A\n2: alpha needle\n3- ## B\n---\nFound 1 matching line in 1 file (searched 1 file).\n"
    );
    // doc_toc titles and doc_find matched text carry no `\r`.
    let a = srv.ok("doc_toc", json!({"path": "crlf.md"})).await;
    assert_eq!(a.structured["sections"][0]["title"], "A");
    assert_eq!(a.structured["sections"][1]["title"], "B");
    assert_eq!(a.structured["sections"][1]["line_start"], 3);
    assert_eq!(a.structured["sections"][1]["line_end"], 4);
    assert!(!a.text.contains('\r'));
    let a = srv
        .ok(
            "doc_find",
            json!({"path": "crlf.md", "content_pattern": "needle$"}),
        )
        .await;
    assert_eq!(a.structured["matches"][0]["matched_line"], 2);
    assert_eq!(a.structured["matches"][0]["matched_text"], "alpha needle");
    // file_read renders lines with LF only, numbered the same.
    let a = srv.ok("file_read", json!({"file": "crlf.md"})).await;
    assert!(
        a.text.ends_with("# A\nalpha needle\n## B\nbeta\n"),
        "{:?}",
        a.text
    );
    let a = srv
        .ok("file_read", json!({"file": "crlf.ts", "target": "f"}))
        .await;
    assert!(!a.text.contains('\r'), "{:?}", a.text);
    assert!(
        a.text
            .contains("### f (function, lines 1-3)\n\nfunction f() {\n  return 1; // needle\n}\n"),
        "{:?}",
        a.text
    );
    let a = srv
        .ok(
            "grep_content",
            json!({"pattern": "needle", "search_path": "crlf.ts"}),
        )
        .await;
    assert_eq!(a.structured["matches"][0]["symbol"]["name"], "f");
    assert_eq!(a.structured["matches"][0]["text"], "  return 1; // needle");
    srv.shutdown().await;
}

#[tokio::test]
async fn a_file_without_a_trailing_newline_reads_its_last_line_in_every_tool() {
    let fx = base_fixture();
    fx.write("nonl.md", "# A\nalpha\n## B\nlast needle");
    let srv = fx.serve().await;
    // read_files ends the block with a newline (read_files.rs has the section-read cases).
    let a = srv
        .ok(
            "read_files",
            json!({"files": [{"path": "nonl.md", "tail": 1}]}),
        )
        .await;
    assert_eq!(
        a.text,
        "File: nonl.md\nLines: 4-4 of 4\n---\nlast needle\n---\n"
    );
    // read_text_file returns the bytes as they are.
    let a = srv
        .ok(
            "read_text_file",
            json!({"path": fx.abs("nonl.md"), "line": 4}),
        )
        .await;
    assert_eq!(a.structured["content"], "last needle");
    assert_eq!(a.structured["_meta"]["total_lines"], 4);
    let a = srv
        .ok(
            "grep_content",
            json!({"pattern": "needle$", "search_path": "nonl.md"}),
        )
        .await;
    assert_eq!(a.structured["matches"][0]["line"], 4);
    assert_eq!(a.structured["matches"][0]["text"], "last needle");
    let a = srv
        .ok("doc_read", json!({"path": "nonl.md", "section": "B"}))
        .await;
    // The text view ends the read with a newline.
    assert_eq!(a.structured["section"]["content"], "## B\nlast needle\n");
    assert_eq!(a.structured["section"]["line_end"], 4);
    let a = srv
        .ok(
            "doc_find",
            json!({"path": "nonl.md", "content_pattern": "needle"}),
        )
        .await;
    assert_eq!(a.structured["matches"][0]["matched_line"], 4);
    let a = srv
        .ok("file_read", json!({"file": "nonl.md", "startLine": 4}))
        .await;
    assert!(a.text.ends_with("last needle\n"), "{:?}", a.text);
    srv.shutdown().await;
}

#[tokio::test]
async fn an_empty_file_gets_a_clear_answer_from_each_tool() {
    let fx = base_fixture();
    fx.write("empty.md", "");
    fx.write("empty.ts", "");
    let srv = fx.serve().await;
    // read_files.rs and read_text_file.rs (tc6) cover the read tools in more modes.
    let a = srv
        .ok("read_files", json!({"files": [{"path": "empty.md"}]}))
        .await;
    assert_eq!(
        a.text,
        "File: empty.md\nLines: none (empty file)\n---\n---\n"
    );
    let e = srv
        .layout_err(
            "read_files",
            json!({"files": [{"path": "empty.md", "start_line": 1}]}),
        )
        .await;
    assert_eq!(e.short, "start_line is past the end of the file");
    assert_eq!(
        e.problem,
        "start_line is 1, but the file is empty (0 lines)."
    );
    let a = srv
        .ok(
            "read_text_file",
            json!({"path": fx.abs("empty.md"), "line": 1}),
        )
        .await;
    assert_eq!(a.structured["content"], "");
    assert_eq!(
        a.structured["_meta"],
        json!({"total_lines": 0, "returned_lines": 0, "has_more": false})
    );
    let a = srv
        .ok(
            "grep_content",
            json!({"pattern": "x", "search_path": "empty.md"}),
        )
        .await;
    assert_eq!(a.text, "No matches (searched 1 file).\n");
    let a = srv.ok("doc_toc", json!({"path": "empty.md"})).await;
    assert_eq!(
        a.text,
        "File: empty.md · 0 lines · 0 sections\nNo headings: read the file with read_files.\n"
    );
    let e = srv
        .layout_err("doc_read", json!({"path": "empty.md", "section": "A"}))
        .await;
    assert_eq!(e.short, "Section not found");
    assert!(e.problem.contains("no headings"), "{e:?}");
    let a = srv
        .ok("doc_find", json!({"path": "empty.md", "pattern": "*"}))
        .await;
    assert_eq!(a.structured["total_matches"], 0);
    let a = srv.ok("file_read", json!({"file": "empty.ts"})).await;
    assert_eq!(a.text, "## file_read: empty.ts\n\n(empty file)\n");
    let a = srv
        .ok("file_read", json!({"file": "empty.ts", "skeleton": true}))
        .await;
    assert_eq!(a.structured["symbols"], json!([]));
    let e = srv
        .layout_err("file_read", json!({"file": "empty.ts", "startLine": 1}))
        .await;
    assert_eq!(e.short, "Empty file");
    let e = srv
        .layout_err("file_read", json!({"file": "empty.ts", "target": "f"}))
        .await;
    assert_eq!(e.short, "Symbol not found");
    srv.shutdown().await;
}

// ---- a 100 MB line -----------------------------------------------------------------------------

#[tokio::test]
async fn a_100_mb_single_line_file_is_capped_and_says_so() {
    let fx = base_fixture();
    let len = 100 * 1024 * 1024;
    let started = Instant::now();
    {
        use std::io::Write;
        let mut f =
            std::io::BufWriter::new(std::fs::File::create(fx.root.join("huge.txt")).unwrap());
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..99 {
            f.write_all(&chunk).unwrap();
        }
        f.write_all(&chunk[..(1 << 20) - 7]).unwrap();
        f.write_all(b"needle\n").unwrap();
        f.flush().unwrap();
    }
    eprintln!("wrote 100 MB in {:?}", started.elapsed());
    let srv = fx.serve().await;
    let max = DEFAULT_MAX_OUTPUT_BYTES;

    let a = timed(
        "read_files",
        srv.ok("read_files", json!({"files": [{"path": "huge.txt"}]})),
    )
    .await;
    assert!(a.text.len() <= max + SLACK, "{} bytes", a.text.len());
    // The whole answer counts against the budget: the line's first bytes less the header.
    let head = format!(
        "File: huge.txt\nLines: 1-1 of 1\nNote: Line 1 is {len} bytes long; only its first "
    );
    assert!(a.text.starts_with(&head), "{}", &a.text[..300]);
    let shown: usize = a.text[head.len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(shown <= max && shown > max - 1024, "{shown}");
    assert!(
        a.text[head.len()..].starts_with(&format!("{shown} bytes are shown.\n---\nxxxx")),
        "{}",
        &a.text[..300]
    );

    let a = timed(
        "read_text_file",
        srv.ok("read_text_file", json!({"path": fx.abs("huge.txt")})),
    )
    .await;
    assert!(a.text.len() <= max + SLACK, "{} bytes", a.text.len());
    assert!(a.structured["content"].as_str().unwrap().len() <= max);
    assert_eq!(
        a.structured["_meta"],
        json!({"total_lines": 1, "returned_lines": 1, "has_more": false, "cut_line": 1})
    );
    assert!(
        a.text.ends_with("[line 1 is longer than the response size limit and was cut: only its first bytes are shown]"),
        "{}",
        &a.text[a.text.len() - 300..]
    );

    for args in [
        json!({"pattern": "needle", "search_path": "huge.txt"}),
        json!({"pattern": "needle"}),
        json!({"pattern": "x+"}),
    ] {
        let a = timed("grep_content", srv.ok("grep_content", args.clone())).await;
        assert!(a.text.len() < SLACK, "{args}: {} bytes", a.text.len());
        let m = a.structured["matches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["path"] == "huge.txt")
            .unwrap_or_else(|| panic!("{args}: {}", a.text));
        assert_eq!(m["line"], 1);
        assert!(m["text"].as_str().unwrap().len() <= 1000);
        assert!(a.text.contains(" […line cut]\n"), "{args}");
    }

    // file_read and the doc tools stay bounded too (file_read's empty answer: see the ignored
    // test below).
    let a = timed(
        "file_read",
        srv.ok("file_read", json!({"file": "huge.txt"})),
    )
    .await;
    assert!(a.text.len() <= max + SLACK);
    assert_eq!(a.structured["truncated"], true);
    let a = timed("doc_toc", srv.ok("doc_toc", json!({"path": "huge.txt"}))).await;
    assert_eq!(a.structured["total_lines"], 1);
    still_serving(&srv).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn file_read_shows_part_of_a_line_longer_than_the_response_limit() {
    let fx = base_fixture();
    fx.write("long.txt", format!("{}\nb\n", "x".repeat(5000)));
    fx.write("long.ts", format!("const s = \"{}\";\n", "x".repeat(5000)));
    let srv = fx.serve_with(&["--max-output-bytes", "1000"]).await;
    for args in [
        json!({"file": "long.txt"}),
        json!({"file": "long.txt", "startLine": 1, "endLine": 1}),
        json!({"file": "long.ts"}),
        json!({"file": "long.ts", "target": "s"}),
    ] {
        let a = srv.ok("file_read", args.clone()).await;
        assert_eq!(a.structured["truncated"], true, "{args}");
        assert!(a.text.contains(&"x".repeat(100)), "{args}: {}", a.text);
    }
    srv.shutdown().await;
}

// ---- binary files ------------------------------------------------------------------------------

#[tokio::test]
async fn binary_files_are_refused_by_the_read_tools_and_counted_by_grep() {
    let fx = base_fixture();
    let names = ["b1.dat", "b2.png", "b3.bin", "b4.o", "b5.md"];
    for n in names {
        fx.write(n, b"needle\0\x01\x02 more\n".as_slice());
    }
    let srv = fx.serve().await;
    // Read tools refuse (read_text_file with the read_text_file contract's -32004).
    let e = srv
        .layout_err("read_files", json!({"files": [{"path": "b1.dat"}]}))
        .await;
    assert_eq!(e.short, "Binary file");
    let (code, message) = srv
        .rpc_err("read_text_file", json!({"path": fx.abs("b1.dat")}))
        .await;
    assert_eq!(
        (code, message),
        (
            -32004,
            format!("Cannot read binary file: {}", fx.abs("b1.dat"))
        )
    );
    for (tool, args) in [
        ("doc_toc", json!({"path": "b5.md"})),
        ("doc_read", json!({"path": "b5.md", "section": "x"})),
        ("doc_find", json!({"path": "b5.md"})),
        ("file_read", json!({"file": "b1.dat"})),
    ] {
        let e = srv.layout_err(tool, args).await;
        assert_eq!(e.short, "Binary file", "{tool}");
    }
    // grep_content counts them in the summary and names some; the text match is found.
    let a = srv.ok("grep_content", json!({"pattern": "needle"})).await;
    assert_eq!(a.structured["binary_skipped"], 5, "{}", a.text);
    assert!(
        a.text
            .contains("Skipped 5 binary files (e.g. b1.dat, b2.png, b3.bin; list_skipped: true names them all)."),
        "{}",
        a.text
    );
    let paths = matched_paths(&a);
    assert_eq!(paths, ["a.md", "ok.txt"]);
    // A binary file named as the search path is counted, not an error.
    let a = srv
        .ok(
            "grep_content",
            json!({"pattern": "needle", "search_path": "b4.o"}),
        )
        .await;
    assert_eq!(
        a.text,
        "No matches (searched 1 file).\nSkipped 1 binary file (e.g. b4.o; list_skipped: true names them all).\n"
    );
    assert_eq!(a.structured["binary_skipped"], 1);
    srv.shutdown().await;
}

#[tokio::test]
async fn every_skipped_binary_file_can_be_named() {
    let fx = base_fixture();
    let names = ["b1.dat", "b2.png", "b3.bin", "b4.o", "b5.md"];
    for n in names {
        fx.write(n, b"needle\0\x01\x02 more\n".as_slice());
    }
    let srv = fx.serve().await;
    let a = srv
        .ok(
            "grep_content",
            json!({"pattern": "needle", "list_skipped": true}),
        )
        .await;
    assert!(
        a.text
            .contains("Skipped binary files (5):\n  b1.dat\n  b2.png\n  b3.bin\n  b4.o\n  b5.md\n"),
        "{}",
        a.text
    );
    assert_eq!(a.structured["skipped_binary"], json!(names));
    srv.shutdown().await;
}

#[tokio::test]
async fn read_tools_and_grep_agree_whether_a_file_is_binary() {
    // Binary means a NUL byte in the first 64 KiB, for every tool: a later NUL is a byte of a
    // text file (read whole by the read tools, searched whole by grep).
    let fx = base_fixture();
    let mut bytes = vec![b'a'; 70_000];
    bytes.extend_from_slice(b"\nneedle late\n\0\n");
    fx.write("late.txt", &bytes);
    let srv = fx.serve().await;
    let read = srv
        .answer(
            "read_files",
            json!({"files": [{"path": "late.txt", "tail": 2}]}),
        )
        .await;
    let grep = srv
        .ok(
            "grep_content",
            json!({"pattern": "needle late", "search_path": "late.txt"}),
        )
        .await;
    let read_as_text = !read.is_error;
    let grep_as_text = grep.structured["binary_skipped"] == 0;
    assert_eq!(
        read_as_text, grep_as_text,
        "read_files: {}\ngrep_content: {}",
        read.text, grep.text
    );
    assert!(read_as_text, "{}", read.text);
    assert!(read.text.contains("needle late\n\0\n"), "{}", read.text);
    assert!(
        grep.text
            .contains("File: late.txt, Line: 2\n---\nneedle late\n"),
        "{}",
        grep.text
    );
    srv.shutdown().await;
}

// ---- non-regular files -------------------------------------------------------------------------

/// Unix: FIFOs, sockets and `/dev/zero`.
#[tokio::test]
#[cfg(unix)]
async fn fifos_sockets_devices_and_directories_never_hang() {
    let fx = base_fixture();
    fx.write("sub/inner.txt", "needle inner\n");
    let status = std::process::Command::new("mkfifo")
        .arg(fx.root.join("pipe"))
        .status()
        .expect("run mkfifo");
    assert!(status.success());
    let _listener = sys::bind_socket(fx.root.join("sock")).expect("bind");
    sys::symlink("/dev/zero", fx.root.join("zero")).expect("symlink");
    let srv = fx.serve().await;

    /// How a path is refused.
    enum Kind {
        NotAFile(&'static str),
        Outside,
    }
    for (name, kind) in [
        ("pipe", Kind::NotAFile("FIFO")),
        ("sock", Kind::NotAFile("socket")),
        ("sub", Kind::NotAFile("directory")),
        ("zero", Kind::Outside),
    ] {
        let read_tools: [(&'static str, Value); 5] = [
            ("read_files", json!({"files": [{"path": name}]})),
            ("doc_toc", json!({"path": name})),
            ("doc_read", json!({"path": name, "section": "x"})),
            ("doc_find", json!({"path": name, "content_pattern": "x"})),
            ("file_read", json!({"file": name})),
        ];
        for (tool, args) in read_tools {
            let e = timed(tool, srv.layout_err(tool, args)).await;
            match kind {
                Kind::NotAFile(k) => {
                    assert_eq!(e.short, "Not a regular file", "{tool} {name}");
                    assert!(
                        e.problem.contains(&format!("(it is a {k})")),
                        "{tool}: {e:?}"
                    );
                }
                Kind::Outside => assert_eq!(e.short, "Path outside the allowed roots", "{tool}"),
            }
        }
        let path = fx.abs(name);
        let (code, message) = timed(
            "read_text_file",
            srv.rpc_err("read_text_file", json!({"path": path})),
        )
        .await;
        match kind {
            Kind::NotAFile(_) => {
                assert_eq!((code, message), (-32003, format!("{path} is not a file")))
            }
            Kind::Outside => {
                assert_eq!(code, -32002);
                assert!(message.contains("outside the allowed roots"), "{message}");
            }
        }
        let args = json!({"pattern": "needle", "search_path": name});
        match kind {
            Kind::NotAFile("directory") => {
                let a = timed("grep", srv.ok("grep_content", args)).await;
                assert_eq!(a.structured["matches"][0]["path"], "sub/inner.txt");
            }
            Kind::NotAFile(k) => {
                let e = timed("grep", srv.layout_err("grep_content", args)).await;
                assert_eq!(e.short, "search_path cannot be searched");
                assert!(e.problem.contains(k), "{e:?}");
            }
            Kind::Outside => {
                let e = timed("grep", srv.layout_err("grep_content", args)).await;
                assert_eq!(e.short, "search_path outside the allowed roots");
            }
        }
    }
    // A walk over the root passes them by (no links followed, only regular files read).
    let a = timed("grep", srv.ok("grep_content", json!({"pattern": "needle"}))).await;
    let paths = matched_paths(&a);
    assert_eq!(paths, ["a.md", "ok.txt", "sub/inner.txt"]);
    // One batch with all of them and a good file.
    let a = timed(
        "batch",
        srv.ok("read_files",
            json!({"files": [{"path": "pipe"}, {"path": "sock"}, {"path": "zero"}, {"path": "sub"}, {"path": "ok.txt"}]}),
        ),
    )
    .await;
    assert_eq!(a.text.matches("\nError: ").count(), 4);
    assert!(
        a.text
            .ends_with("File: ok.txt\nLines: 1-1 of 1\n---\nneedle ok\n---\n")
    );
    still_serving(&srv).await;
    srv.shutdown().await;
}

// ---- permissions -------------------------------------------------------------------------------

/// A root with `locked.md` (mode 000), `lockdir/` (mode 000) holding a file, and `ok.txt`.
fn locked_fixture() -> Fixture {
    let fx = base_fixture();
    let locked = fx.write("locked.md", "# Locked\nneedle locked\n");
    fx.write("lockdir/in.txt", "needle in\n");
    sys::set_mode(&locked, 0o000).unwrap();
    sys::set_mode(fx.root.join("lockdir"), 0o000).unwrap();
    fx
}

/// What a server running as a user without read permission answers.
async fn assert_permission_denied(client: &RunningService<RoleClient, ()>, fx: &Fixture) {
    let a = Answer::of(
        "read_files",
        &call_on(
            client,
            "read_files",
            json!({"files": [{"path": "locked.md"}]}),
            TIMEOUT,
        )
        .await
        .unwrap(),
    );
    assert!(a.is_error, "{}", a.text);
    assert_eq!(layout_in(&a.text).short, "Permission denied");
    let path = fx.abs("locked.md");
    let e = call_on(client, "read_text_file", json!({"path": path}), TIMEOUT)
        .await
        .expect_err("read_text_file of an unreadable file");
    assert_eq!(
        (e.code.0, e.message.to_string()),
        (-32002, format!("Permission denied: {path}"))
    );
    for (tool, args) in [
        ("doc_toc", json!({"path": "locked.md"})),
        ("file_read", json!({"file": "locked.md"})),
        ("read_files", json!({"files": [{"path": "lockdir/in.txt"}]})),
    ] {
        let a = Answer::of(tool, &call_on(client, tool, args, TIMEOUT).await.unwrap());
        assert!(a.is_error, "{tool}: {}", a.text);
        assert_eq!(layout_in(&a.text).short, "Permission denied", "{tool}");
    }
    // grep_content reads what it can and says what it could not.
    let a = Answer::of(
        "grep_content",
        &call_on(
            client,
            "grep_content",
            json!({"pattern": "needle"}),
            TIMEOUT,
        )
        .await
        .unwrap(),
    );
    assert!(!a.is_error, "{}", a.text);
    assert_eq!(a.structured["errors"], 2, "{}", a.text);
    assert!(
        a.text
            .contains("Could not read 2 files or directories (e.g. "),
        "{}",
        a.text
    );
    let paths = matched_paths(&a);
    assert_eq!(paths, ["a.md", "ok.txt"]);
    let a = Answer::of(
        "grep_content",
        &call_on(
            client,
            "grep_content",
            json!({"pattern": "needle", "search_path": "locked.md"}),
            TIMEOUT,
        )
        .await
        .unwrap(),
    );
    assert_eq!(a.structured["errors"], 1, "{}", a.text);
    assert!(
        a.text
            .contains("Could not read 1 file or directory (e.g. permission denied: "),
        "{}",
        a.text
    );
}

/// Unix: mode 000 (Windows has only a read-only attribute, which does not stop reads).
#[tokio::test]
#[cfg(unix)]
async fn permission_denied_files() {
    let fx = locked_fixture();
    let root = sys::is_root();
    let srv = fx.serve().await;
    if root {
        // Tests may run as root, where mode 000 does not stop reads: the server reads the
        // file like any other.
        let a = srv
            .ok("read_files", json!({"files": [{"path": "locked.md"}]}))
            .await;
        assert!(
            a.text.ends_with("---\n# Locked\nneedle locked\n---\n"),
            "{}",
            a.text
        );
        let a = srv
            .ok("read_text_file", json!({"path": fx.abs("locked.md")}))
            .await;
        assert_eq!(a.structured["content"], "# Locked\nneedle locked\n");
        let a = srv
            .ok(
                "grep_content",
                json!({"pattern": "needle locked|needle in"}),
            )
            .await;
        assert_eq!(a.structured["matches"].as_array().unwrap().len(), 2);
        assert_eq!(a.structured["errors"], 0);
    } else {
        assert_permission_denied(srv.client(), &fx).await;
    }
    still_serving(&srv).await;
    srv.shutdown().await;
    unlock(&fx);
}

/// Gives the locked directory its permissions back so that the temporary directory can be
/// removed.
fn unlock(fx: &Fixture) {
    sys::set_mode(fx.root.join("lockdir"), 0o755).unwrap();
}

/// As root, the same checks against a server that runs as `nobody` (via `setpriv`), where
/// mode 000 does stop reads. Skipped (passes) when not root or without `setpriv`.
#[tokio::test]
async fn permission_denied_files_for_an_unprivileged_server() {
    if !sys::is_root() {
        return; // covered by `permission_denied_files`
    }
    let has_setpriv = std::process::Command::new("setpriv")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_setpriv {
        eprintln!("setpriv not found: unprivileged permission checks skipped");
        return;
    }
    let fx = locked_fixture();
    // The temporary directory is private to root: let `nobody` traverse it.
    sys::set_mode(fx.base(), 0o755).unwrap();
    let root = fx.root.clone();
    let cmd = tokio::process::Command::new("setpriv").configure(|cmd| {
        cmd.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            BIN,
            "serve",
        ])
        .arg(&root);
    });
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn setpriv mapgrep serve");
    let client = tokio::time::timeout(TIMEOUT, ().serve(transport))
        .await
        .expect("initialization timed out")
        .expect("initialization failed");
    assert_permission_denied(&client, &fx).await;
    let a = Answer::of(
        "read_files",
        &call_on(
            &client,
            "read_files",
            json!({"files": [{"path": "ok.txt"}]}),
            TIMEOUT,
        )
        .await
        .unwrap(),
    );
    assert_eq!(
        a.text,
        "File: ok.txt\nLines: 1-1 of 1\n---\nneedle ok\n---\n"
    );
    let _ = tokio::time::timeout(TIMEOUT, client.cancel()).await;
    unlock(&fx);
}

// ---- values brought into range, URIs, `~`, patterns that need a newline, dangling links ----

#[tokio::test]
async fn clamped_values_are_said() {
    let fx = base_fixture();
    let srv = fx.serve().await;
    let a = srv
        .ok(
            "grep_content",
            json!({"pattern": "needle", "max_results": 0}),
        )
        .await;
    assert!(
        a.text
            .contains("\nNote: max_results=0 is outside 1-10000; 1 was used.\n"),
        "{}",
        a.text
    );
    let a = srv
        .ok(
            "grep_content",
            json!({"pattern": "needle a", "context_lines": u32::MAX}),
        )
        .await;
    assert!(
        a.text.contains(
            "\nNote: context_lines=4294967295 is over 100; 100 lines of context are shown.\n"
        ),
        "{}",
        a.text
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn a_pattern_that_needs_a_newline_is_refused_with_the_reason() {
    let fx = base_fixture();
    let srv = fx.serve().await;
    for pattern in ["\n", r"needle\na", "a\nb"] {
        let e = srv
            .layout_err("grep_content", json!({"pattern": pattern}))
            .await;
        assert_eq!(e.short, "Pattern needs a line break", "{pattern:?}");
        assert!(e.problem.contains("would never match"), "{e:?}");
    }
    let e = srv
        .layout_err(
            "read_files",
            json!({"files": [{"path": "a.md", "start_line": 1, "read_to_next_pattern": r"x\ny"}]}),
        )
        .await;
    assert_eq!(e.short, "Pattern needs a line break");
    // doc_find's content pattern is matched line by line too: the same check, the same words.
    let e = srv
        .layout_err(
            "doc_find",
            json!({"path": "a.md", "content_pattern": r"x\ny"}),
        )
        .await;
    assert_eq!(e.short, "Pattern needs a line break");
    assert!(
        e.problem
            .contains("content_pattern is matched line by line"),
        "{e:?}"
    );
    // A newline that is optional, or one alternative among others, is fine.
    srv.ok("grep_content", json!({"pattern": r"needle\n?"}))
        .await;
    srv.shutdown().await;
}

#[tokio::test]
async fn file_uris_and_home_paths_are_understood_and_other_schemes_named() {
    let fx = base_fixture();
    let srv = fx.serve().await;
    let abs = fx.abs("a.md");
    // As a client on this system writes it: `file:///C:/…/a.md` on Windows.
    let plain = abs.strip_prefix(r"\\?\").unwrap_or(&abs).replace('\\', "/");
    let plain = if plain.starts_with('/') {
        plain
    } else {
        format!("/{plain}")
    };
    let uri = format!("file://{}", plain.replace(' ', "%20"));
    let a = srv
        .ok("read_files", json!({"files": [{"path": uri, "head": 1}]}))
        .await;
    assert!(a.text.contains("\n---\n# A\n---\n"), "{}", a.text);
    let a = srv
        .ok(
            "grep_content",
            json!({"pattern": "needle", "search_path": uri}),
        )
        .await;
    assert!(a.text.contains(", Line: 2"), "{}", a.text);
    let r = srv
        .read_text_file(json!({"path": uri, "limit": 1}))
        .await
        .expect("read_text_file");
    assert_eq!(text_of(&r).lines().next(), Some("# A"));
    let e = srv
        .layout_err(
            "read_files",
            json!({"files": [{"path": "https://example.org/a.md"}]}),
        )
        .await;
    assert!(
        e.problem.contains("only local paths and file:// URIs"),
        "{e:?}"
    );
    // `~` is the home directory: outside this root, so refused as such (not "not found").
    let e = srv
        .layout_err("read_files", json!({"files": [{"path": "~/a.md"}]}))
        .await;
    assert_eq!(e.short, "Path outside the allowed roots", "{e:?}");
    srv.shutdown().await;
}

#[tokio::test]
async fn a_dangling_symlink_to_outside_is_the_same_error_in_every_tool() {
    let fx = base_fixture();
    sys::symlink(fx.base().join("gone/secret.md"), fx.root.join("link.md")).unwrap();
    let srv = fx.serve().await;
    let from_read = srv
        .layout_err("read_files", json!({"files": [{"path": "link.md"}]}))
        .await;
    let from_grep = srv
        .layout_err(
            "grep_content",
            json!({"pattern": "x", "search_path": "link.md"}),
        )
        .await;
    // The same reason in both, each under its own tool's heading.
    for e in [&from_read, &from_grep] {
        assert!(
            e.problem.contains("a symbolic link that does not lead to a file inside the roots (a loop, a dangling link"),
            "{e:?}"
        );
    }
    srv.shutdown().await;
}
