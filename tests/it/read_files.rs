//! `read_files` through the MCP server: docs/read_files.md (read_to_next_pattern and its Testing
//! Checklist), docs/read_files.md (scan start, note text, error layout), and the plain read modes.

use serde_json::json;

use crate::common::{
    Fixture, block_content, blocks, continue_line, lines, one_block, parse_error_block, read_block,
    snapshot_settings,
};

/// A session log: entries start with `[LOG-`.
const WORK: &str = "\
# Work

[LOG-001] - first
body 1a
body 1b
[LOG-002] - second
body 2a
[LOG-003] - [DECISION] third
body 3a
body 3b
";

/// A markdown document with level-1/2/3 headings and a blank line in the last section.
const README: &str = "\
# Title
intro
## Install
step 1
### Sub
sub text
## Usage
use it

more usage
";

/// The formats of `read_files`, one snapshot per case (`it__read_files__NAME.snap`, each
/// headed by the request it answers): whole, head, tail and range reads, sections read to the
/// next pattern (docs/read_files.md, section reads and their edge cases: the scan starts after
/// start_line, the pattern on the next line, not found, blank-line patterns), files without a
/// trailing newline, empty files and files with a byte-order mark, large structured files,
/// and errors in the Error/Problem/Fix layout beside good entries of the same batch. The
/// parameter combinations are checked one by one in the engine (`src/read/tests.rs`); here
/// the server's wording of them.
#[tokio::test]
async fn formats() {
    let fx = Fixture::new();
    fx.write("WORK.md", WORK);
    fx.write("README.md", README);
    fx.write(
        "para.md",
        "## Notes\nfirst para a\nfirst para b\n\nsecond para\n\nthird\n",
    );
    fx.write("empty.md", "");
    fx.write("nonl.md", "## A\nalpha\n## B\nbeta");
    fx.write("bom.md", "\u{FEFF}# Title\nbody\n## Next\nmore\n");
    fx.write("data.json", big_json().0);
    let srv = fx.serve().await;
    let _guard = snapshot_settings(&fx).bind_to_scope();
    let log = r"^\[LOG-";
    let cases: Vec<(&str, serde_json::Value)> = vec![
        // Plain reads.
        (
            "whole",
            json!([{"path": "WORK.md"}, {"path": fx.abs("WORK.md")}]),
        ),
        (
            "head_tail",
            json!([{"path": "WORK.md", "head": 3}, {"path": "WORK.md", "tail": 3}]),
        ),
        (
            "head_tail_past_the_end",
            json!([{"path": "WORK.md", "head": 1000}, {"path": "WORK.md", "tail": 1000}]),
        ),
        (
            "ranges",
            json!([
                {"path": "WORK.md", "start_line": 4, "end_line": 6},
                {"path": "WORK.md", "start_line": 9},
                {"path": "WORK.md", "end_line": 2},
                {"path": "WORK.md", "start_line": 5, "end_line": 5},
            ]),
        ),
        (
            "end_line_past_the_end",
            json!([{"path": "WORK.md", "start_line": 9, "end_line": 99}]),
        ),
        // Sections read to the next pattern: the boundary line is not read.
        (
            "to_next_found",
            json!([{"path": "WORK.md", "start_line": 3, "read_to_next_pattern": log}]),
        ),
        // Each log entry by its start line (grep found [DECISION] on line 8: read line 6's
        // entry); from a line inside an entry, the rest of it.
        (
            "to_next_each_entry",
            json!([
                {"path": "WORK.md", "start_line": 1, "read_to_next_pattern": log},
                {"path": "WORK.md", "start_line": 3, "read_to_next_pattern": log},
                {"path": "WORK.md", "start_line": 6, "read_to_next_pattern": log},
                {"path": "WORK.md", "start_line": 7, "read_to_next_pattern": log},
            ]),
        ),
        // Not found after the start line (or anywhere): read to the end, with the note.
        (
            "to_next_not_found",
            json!([
                {"path": "WORK.md", "start_line": 8, "read_to_next_pattern": log},
                {"path": "WORK.md", "start_line": 2, "read_to_next_pattern": "^NOPE"},
            ]),
        ),
        // `### Sub` is not a level-2 header: the Install section runs through it.
        (
            "to_next_level_2_header",
            json!([{"path": "README.md", "start_line": 3, "read_to_next_pattern": "^## "}]),
        ),
        (
            "to_next_any_header",
            json!([
                {"path": "README.md", "start_line": 3, "read_to_next_pattern": "^#+ "},
                {"path": "README.md", "start_line": 5, "read_to_next_pattern": "^#+ "},
                {"path": "README.md", "start_line": 1, "read_to_next_pattern": "^#+ "},
            ]),
        ),
        // The pattern on the very next line: one line.
        (
            "to_next_on_the_next_line",
            json!([{"path": "WORK.md", "start_line": 5, "read_to_next_pattern": log}]),
        ),
        // In the last section, or on the last line: to the end, with the note.
        (
            "to_next_in_the_last_section",
            json!([
                {"path": "README.md", "start_line": 7, "read_to_next_pattern": "^## "},
                {"path": "README.md", "start_line": 10, "read_to_next_pattern": "^## "},
            ]),
        ),
        // The scan starts after start_line: line 4 matches `^body` itself and is read, the
        // boundary is line 5; line 8 is the only DECISION line, so that read runs to the end.
        (
            "to_next_scan_starts_after_start_line",
            json!([
                {"path": "WORK.md", "start_line": 4, "read_to_next_pattern": "^body"},
                {"path": "WORK.md", "start_line": 8, "read_to_next_pattern": "DECISION"},
            ]),
        ),
        // `^$`: one paragraph; starting on a blank line includes it.
        (
            "to_next_blank_line",
            json!([
                {"path": "para.md", "start_line": 1, "read_to_next_pattern": "^$"},
                {"path": "para.md", "start_line": 5, "read_to_next_pattern": "^$"},
                {"path": "para.md", "start_line": 4, "read_to_next_pattern": "^$"},
            ]),
        ),
        // Odd files. The content always ends with a newline before the closing dashes.
        (
            "no_trailing_newline",
            json!([
                {"path": "nonl.md"},
                {"path": "nonl.md", "tail": 1},
                {"path": "nonl.md", "start_line": 3, "read_to_next_pattern": "^## "},
                {"path": "nonl.md", "start_line": 1, "read_to_next_pattern": "^## "},
            ]),
        ),
        (
            "empty_file",
            json!([{"path": "empty.md"}, {"path": "empty.md", "head": 5}, {"path": "empty.md", "tail": 5}]),
        ),
        // A section read of an empty file has no start line to start from.
        (
            "empty_file_to_next",
            json!([{"path": "empty.md", "start_line": 1, "read_to_next_pattern": "^## "}]),
        ),
        // The byte-order mark is not in the output (checked below as well).
        (
            "bom",
            json!([
                {"path": "bom.md"},
                {"path": "bom.md", "head": 1},
                {"path": "bom.md", "start_line": 1, "read_to_next_pattern": "^#+ "},
            ]),
        ),
        // A large structured file: parts of it are read, the whole of it is refused without
        // large_file_passthrough (and none of its content leaks into the refusal).
        (
            "large_json_parts",
            json!([
                {"path": "data.json", "head": 3},
                {"path": "data.json", "tail": 2},
                {"path": "data.json", "start_line": 2, "end_line": 2},
            ]),
        ),
        ("large_json_whole", json!([{"path": "data.json"}])),
        // Errors: past the end (with the tip, also for a plain start_line read), an invalid
        // regex, and every invalid combination of line parameters in the server's words.
        (
            "start_line_past_the_end",
            json!([
                {"path": "WORK.md", "start_line": 11, "read_to_next_pattern": log},
                {"path": "WORK.md", "start_line": 99},
            ]),
        ),
        (
            "invalid_regex",
            json!([{"path": "WORK.md", "start_line": 3, "read_to_next_pattern": "^[LOG-("}]),
        ),
        (
            "invalid_parameters",
            json!([
                {"path": "WORK.md", "read_to_next_pattern": log},
                {"path": "WORK.md", "start_line": 3, "end_line": 5, "read_to_next_pattern": log},
                {"path": "WORK.md", "start_line": 3, "head": 2, "read_to_next_pattern": log},
                {"path": "WORK.md", "start_line": 3, "tail": 2, "read_to_next_pattern": log},
                {"path": "WORK.md", "head": 1, "tail": 1},
                {"path": "WORK.md", "head": 0},
                {"path": "WORK.md", "start_line": 0},
                {"path": "WORK.md", "start_line": 5, "end_line": 4},
                {"path": "WORK.md", "head": 2, "start_line": 1},
                {"path": "WORK.md", "start_line": 1, "read_to_next_pattern": ""},
            ]),
        ),
        // One bad entry does not fail the others, and a partly good batch is no error.
        (
            "one_bad_entry",
            json!([
                {"path": "WORK.md", "start_line": 3, "read_to_next_pattern": log},
                {"path": "WORK.md", "read_to_next_pattern": log},
                {"path": "README.md", "head": 2},
            ]),
        ),
        (
            "missing_file_in_a_batch",
            json!([{"path": "README.md", "tail": 1}, {"path": "missing.md"}, {"path": "WORK.md", "head": 1}]),
        ),
        // Every entry bad: the call is flagged as an error.
        (
            "every_entry_bad",
            json!([{"path": "missing.md"}, {"path": "WORK.md", "head": 0}]),
        ),
        ("empty_batch", json!([])),
    ];
    for (name, files) in cases {
        let args = json!({ "files": files });
        let out = srv.read_files(args.clone()).await;
        // Every answer but the empty batch's is blocks in the layout.
        if name != "empty_batch" {
            let all = blocks(&out.text);
            assert_eq!(all.len(), files.as_array().unwrap().len(), "{name}");
            assert_eq!(
                out.is_error,
                all.iter().all(|b| b.error.is_some()),
                "{name}: an error exactly when every entry failed"
            );
        }
        assert!(!out.text.contains('\u{FEFF}'), "{name}: {:?}", out.text);
        let request = args
            .to_string()
            .replace(fx.base().to_str().unwrap(), "[TMP]");
        insta::with_settings!({description => request}, {
            insta::assert_snapshot!(name, format!("isError: {}\n{}", out.is_error, out.text));
        });
    }
    srv.shutdown().await;
}

#[tokio::test]
async fn crlf_file_with_blank_line_pattern() {
    let fx = Fixture::new();
    fx.write("crlf.md", "## A\r\nalpha\r\n\r\nbeta\r\n\r\ngamma\r\n");
    let srv = fx.serve().await;
    let out = srv
        .read_files(json!({"files": [
            {"path": "crlf.md", "start_line": 1, "read_to_next_pattern": "^$"},
            {"path": "crlf.md", "start_line": 4, "read_to_next_pattern": "^$"},
            {"path": "crlf.md", "start_line": 6, "read_to_next_pattern": "^$"},
            {"path": "crlf.md", "start_line": 1, "read_to_next_pattern": "^beta$"},
        ]}))
        .await;
    let expected = [
        read_block("crlf.md", "1-2 of 6", &[], "## A\r\nalpha\r\n"),
        read_block("crlf.md", "4-4 of 6", &[], "beta\r\n"),
        read_block(
            "crlf.md",
            "6-6 of 6",
            &["Note: Pattern '^$' not found after line 6. Read to end of file."],
            "gamma\r\n",
        ),
        // `$` matches before the `\r` of a CRLF line.
        read_block("crlf.md", "1-3 of 6", &[], "## A\r\nalpha\r\n\r\n"),
    ];
    assert_eq!(blocks(&out.text), expected);
    srv.shutdown().await;
}

// ---- large files and the response budget -----------------------------------------------------

/// A JSON file of just over 300 KiB, one small object per line.
fn big_json() -> (String, usize) {
    let mut s = String::from("[\n");
    let mut n = 1;
    while s.len() < 300 * 1024 {
        s.push_str(&format!(
            "  {{\"id\": {n:06}, \"name\": \"item-{n:06}\"}},\n"
        ));
        n += 1;
    }
    s.push_str("  {}\n]\n");
    let total = s.lines().count();
    (s, total)
}

#[tokio::test]
async fn large_json_whole_read_is_allowed_with_passthrough() {
    let fx = Fixture::new();
    let (json_text, total) = big_json();
    fx.write("data.json", &json_text);
    // Over the response limit as well (and over 1 MiB).
    let huge: String = (1..=40_000)
        .map(|n| format!("{{\"id\": {n:06}, \"name\": \"item-{n:06}\"}}\n"))
        .collect();
    assert!(huge.len() > 1024 * 1024);
    fx.write("huge.jsonl", &huge);
    let srv = fx.serve().await;

    // Allowed, and cut at the response limit: following the continuations reads the whole
    // file, nothing lost or repeated.
    // The .jsonl is over 1 MiB.
    let jsonl_total = huge.lines().count();
    for (path, whole, total) in [
        ("data.json", &json_text, total),
        ("huge.jsonl", &huge, jsonl_total),
    ] {
        let mut start = 1;
        let mut read = String::new();
        loop {
            let out = srv
            .read_files(json!({"files": [{"path": path, "start_line": start}], "large_file_passthrough": true}))
            .await;
            assert!(!out.is_error, "{}", &out.text[..out.text.len().min(500)]);
            assert!(out.text.len() <= 80_000 + 256, "{}", out.text.len());
            read.push_str(block_content(&out.text));
            match continue_line(&out.text) {
                Some(next) => start = next,
                None => {
                    assert!(out.text.contains(&format!(" of {total}\n")));
                    break;
                }
            }
        }
        assert_eq!(&read, whole, "{path}");
    }

    // Without passthrough the .jsonl is refused; with it, the read is cut at the response
    // limit and says where to continue.
    let out = srv.read_one(json!({"path": "huge.jsonl"})).await;
    assert!(out.is_error);
    assert_eq!(
        parse_error_block(&out.text).short,
        "Large structured data file"
    );
    let out = srv
        .read_files(json!({"files": [{"path": "huge.jsonl"}], "large_file_passthrough": true}))
        .await;
    assert!(!out.is_error, "{}", &out.text[..out.text.len().min(500)]);
    // Equal-length lines: as many whole lines as fit in the limit, which counts the whole
    // answer (the structured view's JSON escapes the lines' quotes).
    let line_len = huge.find('\n').unwrap() + 1;
    let fit = continue_line(&out.text).expect("a continuation") as usize - 1;
    let json = serde_json::to_string(&json!({"content": out.text}))
        .unwrap()
        .len();
    assert!(
        json <= 80_000 && json + 2 * line_len > 80_000,
        "{fit} lines, {json} bytes"
    );
    let header = format!(
        "File: huge.jsonl\nLines: 1-{fit} of 40000\nNote: Output cut at the response size limit. Continue with start_line: {}.\n---\n",
        fit + 1
    );
    assert!(out.text.starts_with(&header), "{}", &out.text[..300]);
    assert_eq!(block_content(&out.text), lines(&huge, 1, fit));
    srv.shutdown().await;
}

#[tokio::test]
async fn response_budget_cuts_at_a_line_and_says_where_to_continue() {
    let fx = Fixture::new();
    // 500 lines of 9 bytes: 111 lines (999 bytes) fit in 1000 bytes.
    let text: String = (1..=500).map(|i| format!("line {i:03}\n")).collect();
    fx.write("big.txt", &text);
    let srv = fx.serve_with(&["--max-output-bytes", "1000"]).await;

    let out = srv.read_one(json!({"path": "big.txt"})).await;
    assert!(!out.is_error, "{}", out.text);
    // The whole answer counts (header, note, and the structured view's escaped newlines):
    // as many whole lines as fit in it.
    let k = continue_line(&out.text).expect("a continuation") - 1;
    assert_eq!(
        one_block(&out.text),
        read_block(
            "big.txt",
            &format!("1-{k} of 500"),
            &[&format!(
                "Note: Output cut at the response size limit. Continue with start_line: {}.",
                k + 1
            )],
            &lines(&text, 1, k)
        )
    );
    let json = serde_json::to_string(&json!({"content": out.text}))
        .unwrap()
        .len();
    assert!(json <= 1000 && json + 10 > 1000, "{k} lines, {json} bytes");

    // Following the notes reassembles the file exactly.
    let mut assembled = block_content(&out.text).to_string();
    let mut next = continue_line(&out.text);
    let mut calls = 1;
    while let Some(n) = next {
        let out = srv
            .read_one(json!({"path": "big.txt", "start_line": n}))
            .await;
        assert!(!out.is_error, "{}", out.text);
        assert!(
            out.text.starts_with(&format!("File: big.txt\nLines: {n}-")),
            "continues at {n}: {}",
            out.text
        );
        assert!(
            block_content(&out.text).starts_with(&format!("line {n:03}\n")),
            "{}",
            out.text
        );
        assembled.push_str(block_content(&out.text));
        next = continue_line(&out.text);
        calls += 1;
        assert!(calls < 20, "the continuation does not end");
    }
    assert_eq!(assembled, text);
    assert!(calls <= 7, "{calls}");

    // A read_to_next_pattern section larger than the budget is cut the same way.
    let out = srv
        .read_one(json!({"path": "big.txt", "start_line": 10, "read_to_next_pattern": "^line 300"}))
        .await;
    let k = continue_line(&out.text).expect("a continuation") - 1;
    assert!(k > 80, "{}", out.text);
    assert!(
        out.text
            .starts_with(&format!("File: big.txt\nLines: 10-{k} of 500\n")),
        "{}",
        out.text
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn a_line_longer_than_the_budget_is_cut_with_a_note() {
    let fx = Fixture::new();
    fx.write("long.txt", format!("{}\nb\n", "x".repeat(3000)));
    let srv = fx.serve_with(&["--max-output-bytes", "1000"]).await;
    let out = srv.read_one(json!({"path": "long.txt"})).await;
    assert!(!out.is_error, "{}", out.text);
    // The header and notes count against the budget: the line's first bytes fill the rest.
    let shown = one_block(&out.text).content.len() - 1;
    assert!(shown > 700 && shown < 1000, "{shown}");
    assert!(out.text.len() <= 1000, "{}", out.text.len());
    assert_eq!(
        one_block(&out.text),
        read_block(
            "long.txt",
            "1-1 of 2",
            &[
                &format!(
                    "Note: Line 1 is 3001 bytes long; only its first {shown} bytes are shown."
                ),
                "Note: Output cut at the response size limit. Continue with start_line: 2.",
            ],
            &format!("{}\n", "x".repeat(shown))
        )
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn response_budget_is_shared_across_a_batch() {
    let fx = Fixture::new();
    // 500 lines of 10 bytes.
    let text: String = (1..=500).map(|i| format!("line {i:04}\n")).collect();
    fx.write("big.txt", &text);
    let srv = fx.serve_with(&["--max-output-bytes", "1600"]).await;
    let out = srv
        .read_files(json!({"files": [
            {"path": "big.txt", "head": 60},
            {"path": "big.txt", "head": 60},
            {"path": "big.txt", "head": 60},
        ]}))
        .await;
    // The first block whole, the second cut where the 1,600 bytes (the whole answer, its
    // structured view included) run out, the third refused.
    assert!(!out.is_error, "{}", out.text);
    let json = serde_json::to_string(&json!({"content": out.text}))
        .unwrap()
        .len();
    assert!(json <= 1600, "{json}");
    let all = blocks(&out.text);
    assert_eq!(all.len(), 3, "{}", out.text);
    assert_eq!(
        all[0],
        read_block("big.txt", "1-60 of 500", &[], &lines(&text, 1, 60))
    );
    // The second read gets what is left; its note says where to continue.
    let k = continue_line(&out.text).expect("the second read is cut") - 1;
    assert!(k > 10 && k < 60, "{k}");
    assert_eq!(
        all[1],
        read_block(
            "big.txt",
            &format!("1-{k} of 500"),
            &[&format!(
                "Note: Output cut at the response size limit. Continue with start_line: {}.",
                k + 1
            )],
            &lines(&text, 1, k)
        )
    );
    let e = all[2].error.as_ref().expect("the third entry is refused");
    assert_eq!(e.short, "Response limit reached", "{}", out.text);
    assert_eq!(e.fix, "Request this file in a separate read_files call.");
    assert_eq!(e.provided, "entry 3 of 3: path=\"big.txt\"");
    srv.shutdown().await;
}

// ---- changing files and concurrency --------------------------------------------------------

#[tokio::test]
async fn a_changed_file_is_read_fresh() {
    let fx = Fixture::new();
    let path = fx.write("live.md", "one\ntwo\n");
    let srv = fx.serve().await;
    let out = srv.read_one(json!({"path": "live.md"})).await;
    assert_eq!(
        one_block(&out.text),
        read_block("live.md", "1-2 of 2", &[], "one\ntwo\n")
    );
    // Appended to (the index is extended).
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut f, b"three\n").unwrap();
    drop(f);
    let out = srv.read_one(json!({"path": "live.md", "tail": 2})).await;
    assert_eq!(
        one_block(&out.text),
        read_block("live.md", "2-3 of 3", &[], "two\nthree\n")
    );
    // Rewritten shorter.
    std::fs::write(&path, "solo\n").unwrap();
    let out = srv.read_one(json!({"path": "live.md"})).await;
    assert_eq!(
        one_block(&out.text),
        read_block("live.md", "1-1 of 1", &[], "solo\n")
    );
    // Replaced by a new file (new inode) of the same length.
    let tmp = fx.write("live.tmp", "s\nol\n");
    std::fs::rename(&tmp, &path).unwrap();
    let out = srv.read_one(json!({"path": "live.md"})).await;
    assert_eq!(
        one_block(&out.text),
        read_block("live.md", "1-2 of 2", &[], "s\nol\n")
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn a_same_size_rewrite_with_restored_mtime_is_not_served_stale() {
    let fx = Fixture::new();
    let path = fx.write("f.txt", "abc\n");
    let srv = fx.serve().await;
    let out = srv.read_one(json!({"path": "f.txt"})).await;
    assert_eq!(
        one_block(&out.text),
        read_block("f.txt", "1-1 of 1", &[], "abc\n")
    );
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, "a\nb\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let out = srv.read_one(json!({"path": "f.txt"})).await;
    assert_eq!(
        one_block(&out.text),
        read_block("f.txt", "1-2 of 2", &[], "a\nb\n")
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn concurrent_calls_on_one_session() {
    let fx = Fixture::new();
    for i in 0..8 {
        let text: String = (1..=50).map(|j| format!("f{i} line {j}\n")).collect();
        fx.write(&format!("f{i}.txt"), text);
    }
    let srv = fx.serve().await;
    let mut tasks = tokio::task::JoinSet::new();
    for k in 0..32u64 {
        let peer = srv.client().peer().clone();
        let abs = fx.abs(&format!("f{}.txt", k % 8));
        tasks.spawn(async move {
            let i = k % 8;
            let start = 1 + k % 40;
            let args = if k % 2 == 0 {
                json!({"files": [{"path": format!("f{i}.txt"), "start_line": start, "end_line": start + 3}]})
            } else {
                json!({"path": abs, "line": start, "limit": 4})
            };
            let tool = if k % 2 == 0 { "read_files" } else { "read_text_file" };
            let params = rmcp::model::CallToolRequestParams::new(tool)
                .with_arguments(args.as_object().unwrap().clone());
            let result = tokio::time::timeout(crate::common::CALL_TIMEOUT, peer.call_tool(params))
                .await
                .expect("timely")
                .expect("call ok");
            let text = crate::common::text_of(&result);
            let want: String = (start..start + 4).map(|j| format!("f{i} line {j}\n")).collect();
            assert!(text.contains(&want), "call {k}: {text}");
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("task");
    }
    srv.shutdown().await;
}
