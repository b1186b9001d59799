//! `read_files` through the MCP server: docs/read_files.md (read_to_next_pattern and its Testing
//! Checklist), docs/read_files.md (scan start, note text, error layout), and the plain read modes.

use serde_json::json;

use crate::common::{Fixture, Server, block, block_content, continue_line, parse_error_block};

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

/// Lines `a..=b` (1-based) of `text`, terminators kept.
fn lines(text: &str, a: usize, b: usize) -> String {
    text.split_inclusive('\n')
        .skip(a - 1)
        .take(b + 1 - a)
        .collect()
}

async fn docs() -> (Fixture, Server) {
    let fx = Fixture::new();
    fx.write("WORK.md", WORK);
    fx.write("README.md", README);
    let srv = fx.serve().await;
    (fx, srv)
}

// ---- docs/read_files.md, section reads ------------------------------------------------------------

#[tokio::test]
async fn pattern_found_stops_at_the_line_before_the_match() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_one(json!({"path": "WORK.md", "start_line": 3, "read_to_next_pattern": "^\\[LOG-"}))
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(
        out.text,
        block("WORK.md", "3-5 of 10", &[], &lines(WORK, 3, 5))
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn pattern_not_found_reads_to_eof_with_the_spec_note() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_one(json!({"path": "WORK.md", "start_line": 8, "read_to_next_pattern": "^\\[LOG-"}))
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(
        out.text,
        block(
            "WORK.md",
            "8-10 of 10",
            &["Note: Pattern '^\\[LOG-' not found after line 8. Read to end of file."],
            &lines(WORK, 8, 10)
        )
    );
    // A pattern that matches nowhere at all.
    let out = srv
        .read_one(json!({"path": "WORK.md", "start_line": 2, "read_to_next_pattern": "^NOPE"}))
        .await;
    assert_eq!(
        out.text,
        block(
            "WORK.md",
            "2-10 of 10",
            &["Note: Pattern '^NOPE' not found after line 2. Read to end of file."],
            &lines(WORK, 2, 10)
        )
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn start_line_combined_with_pattern_reads_each_section() {
    let (_fx, srv) = docs().await;
    let p = "^\\[LOG-";
    let out = srv
        .read_files(json!({"files": [
            {"path": "WORK.md", "start_line": 1, "read_to_next_pattern": p},
            {"path": "WORK.md", "start_line": 3, "read_to_next_pattern": p},
            {"path": "WORK.md", "start_line": 6, "read_to_next_pattern": p},
            {"path": "WORK.md", "start_line": 7, "read_to_next_pattern": p},
        ]}))
        .await;
    assert!(!out.is_error, "{}", out.text);
    let expected = [
        block("WORK.md", "1-2 of 10", &[], &lines(WORK, 1, 2)),
        block("WORK.md", "3-5 of 10", &[], &lines(WORK, 3, 5)),
        block("WORK.md", "6-7 of 10", &[], &lines(WORK, 6, 7)),
        block("WORK.md", "7-7 of 10", &[], &lines(WORK, 7, 7)),
    ]
    .join("\n");
    assert_eq!(out.text, expected);
    srv.shutdown().await;
}

#[tokio::test]
async fn error_when_pattern_is_used_without_start_line() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_one(json!({"path": "WORK.md", "read_to_next_pattern": "^\\[LOG-"}))
        .await;
    assert!(out.is_error, "{}", out.text);
    assert!(out.text.starts_with("File: WORK.md\n"), "{}", out.text);
    let e = parse_error_block(&out.text);
    assert_eq!(
        e.short,
        "start_line is required when using read_to_next_pattern"
    );
    assert!(e.provided.contains("read_to_next_pattern"), "{e:?}");
    assert!(e.fix.contains("start_line"), "{e:?}");
    srv.shutdown().await;
}

#[tokio::test]
async fn error_when_pattern_is_used_with_end_line() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_one(json!({"path": "WORK.md", "start_line": 3, "end_line": 5,
                         "read_to_next_pattern": "^\\[LOG-"}))
        .await;
    assert!(out.is_error, "{}", out.text);
    let e = parse_error_block(&out.text);
    assert_eq!(
        e.short,
        "Cannot specify both end_line and read_to_next_pattern"
    );
    assert!(e.provided.contains("end_line=5"), "{e:?}");
    assert!(e.provided.contains("start_line=3"), "{e:?}");
    srv.shutdown().await;
}

#[tokio::test]
async fn error_when_pattern_is_used_with_head_or_tail() {
    let (_fx, srv) = docs().await;
    for extra in ["head", "tail"] {
        let mut entry = json!({"path": "WORK.md", "start_line": 3,
                               "read_to_next_pattern": "^\\[LOG-"});
        entry[extra] = json!(2);
        let out = srv.read_one(entry).await;
        assert!(out.is_error, "{extra}: {}", out.text);
        let e = parse_error_block(&out.text);
        assert_eq!(
            e.short, "Cannot mix head/tail with read_to_next_pattern",
            "{extra}"
        );
        assert!(e.provided.contains(&format!("{extra}=2")), "{e:?}");
    }
    srv.shutdown().await;
}

#[tokio::test]
async fn works_with_the_log_entry_pattern() {
    let (_fx, srv) = docs().await;
    // docs/read_files.md, section reads: grep found [DECISION] on line 8; read that whole entry.
    let out = srv
        .read_one(json!({"path": "WORK.md", "start_line": 6, "read_to_next_pattern": "^\\[LOG-"}))
        .await;
    assert_eq!(
        out.text,
        block("WORK.md", "6-7 of 10", &[], "[LOG-002] - second\nbody 2a\n")
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn works_with_the_level_2_header_pattern() {
    let (_fx, srv) = docs().await;
    // `### Sub` is not a level-2 header: the Install section runs through it.
    let out = srv
        .read_one(json!({"path": "README.md", "start_line": 3, "read_to_next_pattern": "^## "}))
        .await;
    assert_eq!(
        out.text,
        block("README.md", "3-6 of 10", &[], &lines(README, 3, 6))
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn works_with_the_any_header_pattern() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_files(json!({"files": [
            {"path": "README.md", "start_line": 3, "read_to_next_pattern": "^#+ "},
            {"path": "README.md", "start_line": 5, "read_to_next_pattern": "^#+ "},
            {"path": "README.md", "start_line": 1, "read_to_next_pattern": "^#+ "},
        ]}))
        .await;
    let expected = [
        block("README.md", "3-4 of 10", &[], &lines(README, 3, 4)),
        block("README.md", "5-6 of 10", &[], &lines(README, 5, 6)),
        block("README.md", "1-2 of 10", &[], &lines(README, 1, 2)),
    ]
    .join("\n");
    assert_eq!(out.text, expected);
    srv.shutdown().await;
}

// ---- docs/read_files.md edge cases, docs/read_files.md decisions -------------------------------------------------

#[tokio::test]
async fn pattern_on_the_immediate_next_line_reads_a_single_line() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_one(json!({"path": "WORK.md", "start_line": 5, "read_to_next_pattern": "^\\[LOG-"}))
        .await;
    assert_eq!(out.text, block("WORK.md", "5-5 of 10", &[], "body 1b\n"));
    srv.shutdown().await;
}

#[tokio::test]
async fn start_line_in_the_last_section_reads_to_eof() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_one(json!({"path": "README.md", "start_line": 7, "read_to_next_pattern": "^## "}))
        .await;
    assert_eq!(
        out.text,
        block(
            "README.md",
            "7-10 of 10",
            &["Note: Pattern '^## ' not found after line 7. Read to end of file."],
            &lines(README, 7, 10)
        )
    );
    // Starting on the very last line.
    let out = srv
        .read_one(json!({"path": "README.md", "start_line": 10, "read_to_next_pattern": "^## "}))
        .await;
    assert_eq!(
        out.text,
        block(
            "README.md",
            "10-10 of 10",
            &["Note: Pattern '^## ' not found after line 10. Read to end of file."],
            "more usage\n"
        )
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn start_line_past_the_end_is_a_layout_error_with_the_tip() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_one(json!({"path": "WORK.md", "start_line": 11, "read_to_next_pattern": "^\\[LOG-"}))
        .await;
    assert!(out.is_error, "{}", out.text);
    let e = parse_error_block(&out.text);
    assert_eq!(e.short, "start_line is past the end of the file");
    assert!(e.provided.contains("start_line=11"), "{e:?}");
    assert!(
        e.problem.contains("11") && e.problem.contains("10"),
        "{e:?}"
    );
    assert!(e.fix.contains("between 1 and 10"), "{e:?}");
    assert_eq!(
        e.tip.as_deref(),
        Some("Tip: Use grep_content to find valid line numbers first")
    );
    // The same holds for a plain start_line read.
    let out = srv
        .read_one(json!({"path": "WORK.md", "start_line": 99}))
        .await;
    assert!(out.is_error, "{}", out.text);
    let e = parse_error_block(&out.text);
    assert_eq!(e.short, "start_line is past the end of the file");
    assert!(e.tip.is_some(), "{e:?}");
    srv.shutdown().await;
}

#[tokio::test]
async fn the_scan_starts_after_start_line() {
    let (_fx, srv) = docs().await;
    // Line 4 matches `^body` itself; it is included and the boundary is line 5.
    let out = srv
        .read_one(json!({"path": "WORK.md", "start_line": 4, "read_to_next_pattern": "^body"}))
        .await;
    assert_eq!(out.text, block("WORK.md", "4-4 of 10", &[], "body 1a\n"));
    // Line 8 is the only line containing DECISION: it is not a boundary, so the read runs to
    // the end of the file and says the pattern was not found after line 8.
    let out = srv
        .read_one(json!({"path": "WORK.md", "start_line": 8, "read_to_next_pattern": "DECISION"}))
        .await;
    assert_eq!(
        out.text,
        block(
            "WORK.md",
            "8-10 of 10",
            &["Note: Pattern 'DECISION' not found after line 8. Read to end of file."],
            &lines(WORK, 8, 10)
        )
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn blank_line_pattern_reads_one_paragraph() {
    let fx = Fixture::new();
    fx.write(
        "para.md",
        "## Notes\nfirst para a\nfirst para b\n\nsecond para\n\nthird\n",
    );
    let srv = fx.serve().await;
    let out = srv
        .read_files(json!({"files": [
            {"path": "para.md", "start_line": 1, "read_to_next_pattern": "^$"},
            {"path": "para.md", "start_line": 5, "read_to_next_pattern": "^$"},
            {"path": "para.md", "start_line": 4, "read_to_next_pattern": "^$"},
        ]}))
        .await;
    let expected = [
        block(
            "para.md",
            "1-3 of 7",
            &[],
            "## Notes\nfirst para a\nfirst para b\n",
        ),
        block("para.md", "5-5 of 7", &[], "second para\n"),
        // Starting on a blank line: it is included, the next blank line ends the read.
        block("para.md", "4-5 of 7", &[], "\nsecond para\n"),
    ]
    .join("\n");
    assert_eq!(out.text, expected);
    srv.shutdown().await;
}

#[tokio::test]
async fn invalid_regex_is_a_layout_error() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_one(json!({"path": "WORK.md", "start_line": 3, "read_to_next_pattern": "^[LOG-("}))
        .await;
    assert!(out.is_error, "{}", out.text);
    let e = parse_error_block(&out.text);
    assert_eq!(e.short, "Invalid regex in read_to_next_pattern");
    assert!(e.problem.contains("^[LOG-("), "{e:?}");
    assert!(!e.fix.is_empty());
    srv.shutdown().await;
}

#[tokio::test]
async fn one_bad_entry_does_not_fail_the_others() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_files(json!({"files": [
            {"path": "WORK.md", "start_line": 3, "read_to_next_pattern": "^\\[LOG-"},
            {"path": "WORK.md", "read_to_next_pattern": "^\\[LOG-"},
            {"path": "README.md", "head": 2},
        ]}))
        .await;
    assert!(
        !out.is_error,
        "a partly good batch is not an error: {}",
        out.text
    );
    let first = block("WORK.md", "3-5 of 10", &[], &lines(WORK, 3, 5)) + "\n";
    let last = block("README.md", "1-2 of 10", &[], &lines(README, 1, 2));
    assert!(out.text.starts_with(&first), "{}", out.text);
    assert!(out.text.ends_with(&last), "{}", out.text);
    let middle = &out.text[first.len()..out.text.len() - last.len()];
    let middle = middle.strip_suffix('\n').expect("blocks are separated");
    assert!(middle.starts_with("File: WORK.md\nError: "), "{middle}");
    let e = parse_error_block(middle);
    assert_eq!(
        e.short,
        "start_line is required when using read_to_next_pattern"
    );

    // A missing file in the middle of a batch behaves the same way.
    let out = srv
        .read_files(json!({"files": [
            {"path": "README.md", "tail": 1},
            {"path": "missing.md"},
            {"path": "WORK.md", "head": 1},
        ]}))
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert!(
        out.text
            .starts_with(&(block("README.md", "10-10 of 10", &[], "more usage\n") + "\n")),
        "{}",
        out.text
    );
    assert!(
        out.text
            .ends_with(&block("WORK.md", "1-1 of 10", &[], "# Work\n")),
        "{}",
        out.text
    );
    assert!(
        out.text
            .contains("File: missing.md\nError: File not found\n"),
        "{}",
        out.text
    );

    // Every entry bad: the call is flagged as an error.
    let out = srv
        .read_files(json!({"files": [{"path": "missing.md"}, {"path": "WORK.md", "head": 0}]}))
        .await;
    assert!(out.is_error, "{}", out.text);
    srv.shutdown().await;
}

// ---- plain read modes ------------------------------------------------------------------------

#[tokio::test]
async fn whole_file_read() {
    let (fx, srv) = docs().await;
    let out = srv.read_one(json!({"path": "WORK.md"})).await;
    assert!(!out.is_error);
    assert_eq!(out.text, block("WORK.md", "1-10 of 10", &[], WORK));
    // An absolute path inside the root reads the same file (and echoes the path given).
    let abs = fx.abs("WORK.md");
    let out = srv.read_one(json!({"path": abs})).await;
    assert_eq!(out.text, block(&abs, "1-10 of 10", &[], WORK));
    srv.shutdown().await;
}

#[tokio::test]
async fn head_and_tail_reads() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_files(json!({"files": [
            {"path": "WORK.md", "head": 3},
            {"path": "WORK.md", "tail": 3},
        ]}))
        .await;
    let expected = [
        block("WORK.md", "1-3 of 10", &[], &lines(WORK, 1, 3)),
        block("WORK.md", "8-10 of 10", &[], &lines(WORK, 8, 10)),
    ]
    .join("\n");
    assert_eq!(out.text, expected);
    srv.shutdown().await;
}

#[tokio::test]
async fn head_and_tail_larger_than_the_file_read_it_all() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_files(json!({"files": [
            {"path": "WORK.md", "head": 1000},
            {"path": "WORK.md", "tail": 1000},
        ]}))
        .await;
    let expected = [
        block("WORK.md", "1-10 of 10", &[], WORK),
        block("WORK.md", "1-10 of 10", &[], WORK),
    ]
    .join("\n");
    assert_eq!(out.text, expected);
    srv.shutdown().await;
}

#[tokio::test]
async fn start_and_end_line_read() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_files(json!({"files": [
            {"path": "WORK.md", "start_line": 4, "end_line": 6},
            {"path": "WORK.md", "start_line": 9},
            {"path": "WORK.md", "end_line": 2},
            {"path": "WORK.md", "start_line": 5, "end_line": 5},
        ]}))
        .await;
    let expected = [
        block("WORK.md", "4-6 of 10", &[], &lines(WORK, 4, 6)),
        block("WORK.md", "9-10 of 10", &[], &lines(WORK, 9, 10)),
        block("WORK.md", "1-2 of 10", &[], &lines(WORK, 1, 2)),
        block("WORK.md", "5-5 of 10", &[], &lines(WORK, 5, 5)),
    ]
    .join("\n");
    assert_eq!(out.text, expected);
    srv.shutdown().await;
}

#[tokio::test]
async fn end_line_past_eof_is_clamped_with_a_note() {
    let (_fx, srv) = docs().await;
    let out = srv
        .read_one(json!({"path": "WORK.md", "start_line": 9, "end_line": 99}))
        .await;
    assert!(!out.is_error);
    assert_eq!(
        out.text,
        block(
            "WORK.md",
            "9-10 of 10",
            &["Note: end_line 99 is past the end of the file (10 lines). Read to end of file."],
            &lines(WORK, 9, 10)
        )
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn invalid_line_parameters_are_layout_errors() {
    let (_fx, srv) = docs().await;
    let cases = [
        (
            json!({"path": "WORK.md", "head": 1, "tail": 1}),
            "Cannot specify both head and tail",
        ),
        (
            json!({"path": "WORK.md", "head": 0}),
            "head must be at least 1",
        ),
        (
            json!({"path": "WORK.md", "start_line": 0}),
            "start_line must be at least 1",
        ),
        (
            json!({"path": "WORK.md", "start_line": 5, "end_line": 4}),
            "end_line is before start_line",
        ),
        (
            json!({"path": "WORK.md", "head": 2, "start_line": 1}),
            "Cannot mix head/tail with start_line/end_line",
        ),
        (
            json!({"path": "WORK.md", "start_line": 1, "read_to_next_pattern": ""}),
            "read_to_next_pattern is empty",
        ),
    ];
    for (entry, short) in cases {
        let out = srv.read_one(entry.clone()).await;
        assert!(out.is_error, "{entry}: {}", out.text);
        let e = parse_error_block(&out.text);
        assert_eq!(e.short, short, "{entry}");
    }
    srv.shutdown().await;
}

#[tokio::test]
async fn empty_file_reads() {
    let fx = Fixture::new();
    fx.write("empty.md", "");
    let srv = fx.serve().await;
    let out = srv
        .read_files(json!({"files": [
            {"path": "empty.md"},
            {"path": "empty.md", "head": 5},
            {"path": "empty.md", "tail": 5},
        ]}))
        .await;
    assert!(!out.is_error, "{}", out.text);
    let empty = "File: empty.md\nLines: none (empty file)\n---\n---\n";
    assert_eq!(out.text, [empty, empty, empty].join("\n"));
    // A section read of an empty file has no start line to start from.
    let out = srv
        .read_one(json!({"path": "empty.md", "start_line": 1, "read_to_next_pattern": "^## "}))
        .await;
    assert!(out.is_error, "{}", out.text);
    let e = parse_error_block(&out.text);
    assert_eq!(e.short, "start_line is past the end of the file");
    srv.shutdown().await;
}

#[tokio::test]
async fn file_without_a_trailing_newline() {
    let fx = Fixture::new();
    fx.write("nonl.md", "## A\nalpha\n## B\nbeta");
    let srv = fx.serve().await;
    let out = srv
        .read_files(json!({"files": [
            {"path": "nonl.md"},
            {"path": "nonl.md", "tail": 1},
            {"path": "nonl.md", "start_line": 3, "read_to_next_pattern": "^## "},
            {"path": "nonl.md", "start_line": 1, "read_to_next_pattern": "^## "},
        ]}))
        .await;
    let expected = [
        // The renderer ends the content with a newline before the closing dashes.
        block("nonl.md", "1-4 of 4", &[], "## A\nalpha\n## B\nbeta\n"),
        block("nonl.md", "4-4 of 4", &[], "beta\n"),
        block(
            "nonl.md",
            "3-4 of 4",
            &["Note: Pattern '^## ' not found after line 3. Read to end of file."],
            "## B\nbeta\n",
        ),
        block("nonl.md", "1-2 of 4", &[], "## A\nalpha\n"),
    ]
    .join("\n");
    assert_eq!(out.text, expected);
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
        block("crlf.md", "1-2 of 6", &[], "## A\r\nalpha\r\n"),
        block("crlf.md", "4-4 of 6", &[], "beta\r\n"),
        block(
            "crlf.md",
            "6-6 of 6",
            &["Note: Pattern '^$' not found after line 6. Read to end of file."],
            "gamma\r\n",
        ),
        // `$` matches before the `\r` of a CRLF line.
        block("crlf.md", "1-3 of 6", &[], "## A\r\nalpha\r\n\r\n"),
    ]
    .join("\n");
    assert_eq!(out.text, expected);
    srv.shutdown().await;
}

#[tokio::test]
async fn utf8_bom_is_not_in_the_output() {
    let fx = Fixture::new();
    fx.write("bom.md", "\u{FEFF}# Title\nbody\n## Next\nmore\n");
    let srv = fx.serve().await;
    let out = srv
        .read_files(json!({"files": [
            {"path": "bom.md"},
            {"path": "bom.md", "head": 1},
            {"path": "bom.md", "start_line": 1, "read_to_next_pattern": "^#+ "},
        ]}))
        .await;
    assert!(!out.text.contains('\u{FEFF}'), "{:?}", out.text);
    let expected = [
        block("bom.md", "1-4 of 4", &[], "# Title\nbody\n## Next\nmore\n"),
        block("bom.md", "1-1 of 4", &[], "# Title\n"),
        block("bom.md", "1-2 of 4", &[], "# Title\nbody\n"),
    ]
    .join("\n");
    assert_eq!(out.text, expected);
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
async fn large_json_whole_read_is_refused_without_passthrough() {
    let fx = Fixture::new();
    let (json_text, _) = big_json();
    fx.write("data.json", &json_text);
    let srv = fx.serve().await;
    let out = srv.read_one(json!({"path": "data.json"})).await;
    assert!(out.is_error, "{}", &out.text[..out.text.len().min(500)]);
    let e = parse_error_block(&out.text);
    assert_eq!(e.short, "Large structured data file");
    assert!(e.fix.contains("head") && e.fix.contains("tail"), "{e:?}");
    assert!(e.fix.contains("large_file_passthrough"), "{e:?}");
    assert!(
        !out.text.contains("item-000001"),
        "no content leaks into the refusal"
    );
    srv.shutdown().await;
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
    // Equal-length lines: as many whole lines as fit in the limit.
    let line_len = huge.find('\n').unwrap() + 1;
    let fit = continue_line(&out.text).expect("a continuation") as usize - 1;
    assert!(
        fit * line_len <= 80_000 && (fit + 2) * line_len > 80_000,
        "{fit}"
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
async fn large_json_head_read_is_allowed_without_passthrough() {
    let fx = Fixture::new();
    let (json_text, total) = big_json();
    fx.write("data.json", &json_text);
    let srv = fx.serve().await;
    let out = srv
        .read_files(json!({"files": [
            {"path": "data.json", "head": 3},
            {"path": "data.json", "tail": 2},
            {"path": "data.json", "start_line": 2, "end_line": 2},
        ]}))
        .await;
    assert!(!out.is_error, "{}", out.text);
    let expected = [
        block(
            "data.json",
            &format!("1-3 of {total}"),
            &[],
            &lines(&json_text, 1, 3),
        ),
        block(
            "data.json",
            &format!("{}-{total} of {total}", total - 1),
            &[],
            "  {}\n]\n",
        ),
        block(
            "data.json",
            &format!("2-2 of {total}"),
            &[],
            "  {\"id\": 000001, \"name\": \"item-000001\"},\n",
        ),
    ]
    .join("\n");
    assert_eq!(out.text, expected);
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
    assert_eq!(
        out.text,
        block(
            "big.txt",
            "1-111 of 500",
            &["Note: Output cut at the response size limit. Continue with start_line: 112."],
            &lines(&text, 1, 111)
        )
    );

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
    assert_eq!(calls, 5);

    // A read_to_next_pattern section larger than the budget is cut the same way.
    let out = srv
        .read_one(json!({"path": "big.txt", "start_line": 10, "read_to_next_pattern": "^line 300"}))
        .await;
    assert!(
        out.text
            .starts_with("File: big.txt\nLines: 10-120 of 500\n"),
        "{}",
        out.text
    );
    assert_eq!(continue_line(&out.text), Some(121));
    srv.shutdown().await;
}

#[tokio::test]
async fn a_line_longer_than_the_budget_is_cut_with_a_note() {
    let fx = Fixture::new();
    fx.write("long.txt", format!("{}\nb\n", "x".repeat(300)));
    let srv = fx.serve_with(&["--max-output-bytes", "100"]).await;
    let out = srv.read_one(json!({"path": "long.txt"})).await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(
        out.text,
        block(
            "long.txt",
            "1-1 of 2",
            &[
                "Note: Line 1 is 301 bytes long; only its first 100 bytes are shown.",
                "Note: Output cut at the response size limit. Continue with start_line: 2.",
            ],
            &format!("{}\n", "x".repeat(100))
        )
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn response_budget_is_shared_across_a_batch() {
    let fx = Fixture::new();
    // 500 lines of 10 bytes: exactly 100 lines fit in 1000 bytes.
    let text: String = (1..=500).map(|i| format!("line {i:04}\n")).collect();
    fx.write("big.txt", &text);
    let srv = fx.serve_with(&["--max-output-bytes", "1000"]).await;
    let out = srv
        .read_files(json!({"files": [
            {"path": "big.txt", "head": 60},
            {"path": "big.txt", "head": 60},
            {"path": "big.txt", "head": 60},
        ]}))
        .await;
    // 600 bytes of text in a 641-byte block, then what is left of the 1000 bytes after it
    // and the blank line between blocks (358 bytes: 35 lines), then nothing left.
    assert!(!out.is_error, "{}", out.text);
    let first = block("big.txt", "1-60 of 500", &[], &lines(&text, 1, 60)) + "\n";
    assert!(out.text.starts_with(&first), "{}", out.text);
    let rest = &out.text[first.len()..];
    // The second read gets what is left; its note says where to continue.
    assert!(
        rest.starts_with("File: big.txt\nLines: 1-35 of 500\nNote: Output cut at the "),
        "{rest}"
    );
    assert_eq!(continue_line(rest), Some(36));
    let second_end = rest.find("---\n").unwrap() + 4;
    let second_end = second_end + rest[second_end..].find("---\n").unwrap() + 4;
    assert_eq!(block_content(&rest[..second_end]), lines(&text, 1, 35));
    let rest = rest[second_end..]
        .strip_prefix('\n')
        .expect("blocks are separated");
    let e = parse_error_block(rest);
    assert_eq!(e.short, "Response limit reached", "{rest}");
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
    assert_eq!(out.text, block("live.md", "1-2 of 2", &[], "one\ntwo\n"));
    // Appended to (the index is extended).
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(&mut f, b"three\n").unwrap();
    drop(f);
    let out = srv.read_one(json!({"path": "live.md", "tail": 2})).await;
    assert_eq!(out.text, block("live.md", "2-3 of 3", &[], "two\nthree\n"));
    // Rewritten shorter.
    std::fs::write(&path, "solo\n").unwrap();
    let out = srv.read_one(json!({"path": "live.md"})).await;
    assert_eq!(out.text, block("live.md", "1-1 of 1", &[], "solo\n"));
    // Replaced by a new file (new inode) of the same length.
    let tmp = fx.write("live.tmp", "s\nol\n");
    std::fs::rename(&tmp, &path).unwrap();
    let out = srv.read_one(json!({"path": "live.md"})).await;
    assert_eq!(out.text, block("live.md", "1-2 of 2", &[], "s\nol\n"));
    srv.shutdown().await;
}

#[tokio::test]
async fn a_same_size_rewrite_with_restored_mtime_is_not_served_stale() {
    let fx = Fixture::new();
    let path = fx.write("f.txt", "abc\n");
    let srv = fx.serve().await;
    let out = srv.read_one(json!({"path": "f.txt"})).await;
    assert_eq!(out.text, block("f.txt", "1-1 of 1", &[], "abc\n"));
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, "a\nb\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let out = srv.read_one(json!({"path": "f.txt"})).await;
    assert_eq!(out.text, block("f.txt", "1-2 of 2", &[], "a\nb\n"));
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

#[tokio::test]
async fn empty_batch_is_an_error() {
    let fx = Fixture::new();
    let srv = fx.serve().await;
    let out = srv.read_files(json!({"files": []})).await;
    assert!(out.is_error, "{}", out.text);
    assert!(
        out.text
            .starts_with("Error: No files requested\n\nYou provided: files=[]\nProblem: "),
        "{}",
        out.text
    );
    assert!(out.text.contains("\nFix: "), "{}", out.text);
    srv.shutdown().await;
}
