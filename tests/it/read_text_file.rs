//! `read_text_file` through the MCP server: the read_text_file contract's TC1–TC6, its error table, and paging.

use rmcp::ErrorData;
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use crate::common::{Fixture, numbered};

/// The docs/read_text_file.md result of a successful call: `(content, _meta)` from structuredContent, after
/// checking that the call is not flagged as an error and that a text block carries the content.
fn page(result: Result<CallToolResult, ErrorData>) -> (String, Value) {
    let result = result.unwrap_or_else(|e| panic!("read_text_file failed: {e:?}"));
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let structured = result
        .structured_content
        .clone()
        .expect("read_text_file returns structuredContent");
    let content = structured["content"]
        .as_str()
        .expect("structuredContent.content is a string")
        .to_string();
    let meta = structured["_meta"].clone();
    assert!(meta.is_object(), "structuredContent._meta: {structured}");
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect();
    assert!(!texts.is_empty(), "a text content block exists: {result:?}");
    assert!(
        texts.contains(&content.as_str()),
        "a text block carries the content {content:?}: {texts:?}"
    );
    (content, meta)
}

fn assert_meta(meta: &Value, total: u64, returned: u64, has_more: bool, next: Option<u64>) {
    assert_eq!(meta["total_lines"], json!(total), "total_lines in {meta}");
    assert_eq!(
        meta["returned_lines"],
        json!(returned),
        "returned_lines in {meta}"
    );
    assert_eq!(meta["has_more"], json!(has_more), "has_more in {meta}");
    match next {
        Some(n) => assert_eq!(meta["next_line"], json!(n), "next_line in {meta}"),
        None => assert!(
            meta.get("next_line").is_none(),
            "next_line must be absent: {meta}"
        ),
    }
}

#[tokio::test]
async fn tc1_read_entire_file() {
    let fx = Fixture::new();
    fx.write("hello.txt", "Hello\nWorld\n");
    let srv = fx.serve().await;
    let (content, meta) = page(
        srv.read_text_file(json!({"path": fx.abs("hello.txt")}))
            .await,
    );
    assert_eq!(content, "Hello\nWorld\n");
    assert_meta(&meta, 2, 2, false, None);
    srv.shutdown().await;
}

#[tokio::test]
async fn tc2_read_with_pagination() {
    let fx = Fixture::new();
    fx.write("numbers.txt", numbered("", 100));
    let srv = fx.serve().await;
    let (content, meta) = page(
        srv.read_text_file(json!({"path": fx.abs("numbers.txt"), "line": 10, "limit": 5}))
            .await,
    );
    assert_eq!(content, "10\n11\n12\n13\n14\n");
    assert_meta(&meta, 100, 5, true, Some(15));
    srv.shutdown().await;
}

#[tokio::test]
async fn tc3_file_not_found() {
    let fx = Fixture::new();
    let srv = fx.serve().await;
    let path = fx.abs("missing.txt");
    let (code, message) = srv.rpc_err("read_text_file", json!({"path": path})).await;
    assert_eq!(code, -32001);
    assert_eq!(message, format!("File not found: {path}"));
    srv.shutdown().await;
}

#[tokio::test]
async fn tc4_relative_path_is_invalid() {
    let fx = Fixture::new();
    fx.write("relative/path.txt", "x\n");
    let srv = fx.serve().await;
    let (code, message) = srv
        .rpc_err("read_text_file", json!({"path": "relative/path.txt"}))
        .await;
    assert_eq!(code, -32600);
    assert_eq!(message, "Path must be absolute: relative/path.txt");
    srv.shutdown().await;
}

#[tokio::test]
async fn tc5_binary_file() {
    let fx = Fixture::new();
    let png: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89";
    fx.write("image.png", png);
    let srv = fx.serve().await;
    let path = fx.abs("image.png");
    let (code, message) = srv.rpc_err("read_text_file", json!({"path": path})).await;
    assert_eq!(code, -32004);
    assert_eq!(message, format!("Cannot read binary file: {path}"));
    srv.shutdown().await;
}

#[tokio::test]
async fn tc6_empty_file() {
    let fx = Fixture::new();
    fx.write("empty.txt", "");
    let srv = fx.serve().await;
    let (content, meta) = page(
        srv.read_text_file(json!({"path": fx.abs("empty.txt")}))
            .await,
    );
    assert_eq!(content, "");
    assert_meta(&meta, 0, 0, false, None);
    srv.shutdown().await;
}

#[tokio::test]
async fn line_below_one_is_invalid() {
    let fx = Fixture::new();
    fx.write("f.txt", "a\n");
    let srv = fx.serve().await;
    for line in [0, -3] {
        let (code, message) = srv
            .rpc_err(
                "read_text_file",
                json!({"path": fx.abs("f.txt"), "line": line}),
            )
            .await;
        assert_eq!(code, -32600);
        assert_eq!(message, format!("Line number must be >= 1: {line}"));
    }
    srv.shutdown().await;
}

#[tokio::test]
async fn limit_below_one_is_invalid() {
    let fx = Fixture::new();
    fx.write("f.txt", "a\n");
    let srv = fx.serve().await;
    for limit in [0, -1] {
        let (code, message) = srv
            .rpc_err(
                "read_text_file",
                json!({"path": fx.abs("f.txt"), "limit": limit}),
            )
            .await;
        assert_eq!(code, -32600);
        assert_eq!(message, format!("Limit must be >= 1: {limit}"));
    }
    srv.shutdown().await;
}

#[tokio::test]
async fn line_past_the_end_is_empty_not_an_error() {
    let fx = Fixture::new();
    fx.write("hello.txt", "Hello\nWorld\n");
    let srv = fx.serve().await;
    for args in [
        json!({"path": fx.abs("hello.txt"), "line": 3}),
        json!({"path": fx.abs("hello.txt"), "line": 50, "limit": 5}),
    ] {
        let (content, meta) = page(srv.read_text_file(args).await);
        assert_eq!(content, "");
        assert_meta(&meta, 2, 0, false, None);
    }
    srv.shutdown().await;
}

#[tokio::test]
async fn directory_is_not_a_file() {
    let fx = Fixture::new();
    fx.write("sub/inner.txt", "x\n");
    let srv = fx.serve().await;
    let path = fx.abs("sub");
    let (code, message) = srv.rpc_err("read_text_file", json!({"path": path})).await;
    assert_eq!(code, -32003);
    assert_eq!(message, format!("{path} is not a file"));
    srv.shutdown().await;
}

#[tokio::test]
async fn last_page_and_exact_end_have_no_more() {
    let fx = Fixture::new();
    fx.write("numbers.txt", numbered("", 100));
    let srv = fx.serve().await;
    let path = fx.abs("numbers.txt");
    // A limit that runs past the end returns what is left.
    let (content, meta) = page(
        srv.read_text_file(json!({"path": path, "line": 96, "limit": 10}))
            .await,
    );
    assert_eq!(content, "96\n97\n98\n99\n100\n");
    assert_meta(&meta, 100, 5, false, None);
    // A limit that ends exactly on the last line: nothing more.
    let (content, meta) = page(
        srv.read_text_file(json!({"path": path, "line": 91, "limit": 10}))
            .await,
    );
    assert_eq!(content, numbered("", 100)[numbered("", 90).len()..]);
    assert_meta(&meta, 100, 10, false, None);
    // From a line to the end without a limit.
    let (content, meta) = page(srv.read_text_file(json!({"path": path, "line": 99})).await);
    assert_eq!(content, "99\n100\n");
    assert_meta(&meta, 100, 2, false, None);
    // Only a limit: the first lines.
    let (content, meta) = page(srv.read_text_file(json!({"path": path, "limit": 3})).await);
    assert_eq!(content, "1\n2\n3\n");
    assert_meta(&meta, 100, 3, true, Some(4));
    srv.shutdown().await;
}

#[tokio::test]
async fn following_next_line_reads_the_whole_file() {
    let fx = Fixture::new();
    let text = numbered("row ", 23);
    fx.write("rows.txt", &text);
    let srv = fx.serve().await;
    let path = fx.abs("rows.txt");
    let mut line = 1;
    let mut assembled = String::new();
    for _ in 0..10 {
        let (content, meta) = page(
            srv.read_text_file(json!({"path": path, "line": line, "limit": 5}))
                .await,
        );
        assembled.push_str(&content);
        if meta["has_more"] == json!(false) {
            break;
        }
        line = meta["next_line"].as_u64().expect("next_line when has_more");
    }
    assert_eq!(assembled, text);
    srv.shutdown().await;
}

#[tokio::test]
async fn newlines_are_preserved_and_bom_dropped() {
    let fx = Fixture::new();
    fx.write("crlf.txt", "a\r\nb\r\n");
    fx.write("nonl.txt", "a\nb");
    fx.write("bom.txt", "\u{FEFF}first\nsecond\n");
    let srv = fx.serve().await;
    let (content, meta) = page(
        srv.read_text_file(json!({"path": fx.abs("crlf.txt")}))
            .await,
    );
    assert_eq!(content, "a\r\nb\r\n");
    assert_meta(&meta, 2, 2, false, None);
    let (content, meta) = page(
        srv.read_text_file(json!({"path": fx.abs("nonl.txt")}))
            .await,
    );
    assert_eq!(content, "a\nb");
    assert_meta(&meta, 2, 2, false, None);
    let (content, meta) = page(srv.read_text_file(json!({"path": fx.abs("bom.txt")})).await);
    assert_eq!(content, "first\nsecond\n");
    assert_meta(&meta, 2, 2, false, None);
    srv.shutdown().await;
}

#[tokio::test]
async fn response_budget_sets_has_more() {
    let fx = Fixture::new();
    // 500 lines of 9 bytes: 111 lines fit in 1000 bytes.
    let text: String = (1..=500).map(|i| format!("line {i:03}\n")).collect();
    fx.write("big.txt", &text);
    let srv = fx.serve_with(&["--max-output-bytes", "1000"]).await;
    let path = fx.abs("big.txt");
    let (content, meta) = page(srv.read_text_file(json!({"path": path})).await);
    // The page's summary and `_meta` count against the budget too.
    let k = meta["returned_lines"].as_u64().unwrap();
    assert!(k > 70 && k < 111, "{k}");
    assert_eq!(content, text[..k as usize * 9]);
    assert_meta(&meta, 500, k, true, Some(k + 1));
    let mut assembled = content;
    let mut next = meta["next_line"].as_u64();
    let mut calls = 1;
    while let Some(line) = next {
        let (content, meta) = page(
            srv.read_text_file(json!({"path": path, "line": line}))
                .await,
        );
        assert!(content.starts_with(&format!("line {line:03}\n")));
        assembled.push_str(&content);
        next = meta["next_line"].as_u64();
        calls += 1;
        assert!(calls < 20);
    }
    assert_eq!(assembled, text);
    srv.shutdown().await;
}

#[tokio::test]
async fn a_line_longer_than_the_budget_is_not_lost_silently() {
    let fx = Fixture::new();
    let text = format!("{}\nb\n", "x".repeat(300));
    fx.write("long.txt", &text);
    let srv = fx.serve_with(&["--max-output-bytes", "100"]).await;
    let path = fx.abs("long.txt");
    // Paging with next_line must give back the whole file, unless the response says that
    // something was cut.
    let mut line = 1;
    let mut assembled = String::new();
    let mut announced = false;
    for _ in 0..20 {
        let result = srv
            .read_text_file(json!({"path": path, "line": line}))
            .await
            .expect("read_text_file");
        let all_text = crate::common::text_of(&result).to_lowercase();
        announced |= all_text.contains("cut") || all_text.contains("truncat");
        let (content, meta) = page(Ok(result));
        assembled.push_str(&content);
        match meta["next_line"].as_u64() {
            Some(n) => line = n,
            None => break,
        }
    }
    assert!(
        assembled == text || announced,
        "paging lost bytes without notice: got {} of {} bytes",
        assembled.len(),
        text.len()
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn start_line_and_end_line_name_a_range_as_the_other_tools_do() {
    let fx = Fixture::new();
    fx.write("numbers.txt", numbered("", 100));
    let srv = fx.serve().await;
    let (content, meta) = page(
        srv.read_text_file(
            json!({"path": fx.abs("numbers.txt"), "start_line": 10, "end_line": 14}),
        )
        .await,
    );
    assert_eq!(content, "10\n11\n12\n13\n14\n");
    assert_meta(&meta, 100, 5, true, Some(15));
    // end_line alone counts from line 1.
    let (content, _) = page(
        srv.read_text_file(json!({"path": fx.abs("numbers.txt"), "end_line": 2}))
            .await,
    );
    assert_eq!(content, "1\n2\n");
    for (args, said) in [
        (
            json!({"path": fx.abs("numbers.txt"), "line": 5, "end_line": 4}),
            "end_line must be >= the first line (5): 4",
        ),
        (
            json!({"path": fx.abs("numbers.txt"), "limit": 2, "end_line": 4}),
            "Give limit or end_line, not both",
        ),
    ] {
        let (code, message) = srv.rpc_err("read_text_file", args).await;
        assert_eq!((code, message.as_str()), (-32600, said));
    }
    srv.shutdown().await;
}
