//! Snapshots of the text the tools return, so that every change of format is reviewed
//! (compare the `.snap` files under `tests/it/snapshots/`; each is headed by the request it
//! answers). One table of cases per server: a case is a name (the snapshot's), a tool and its
//! arguments. `read_files`' own formats are in `read_files.rs`, `file_read`'s in `file_read.rs`.

use serde_json::{Value, json};

use crate::common::{Fixture, snapshot_settings, text_of};

const WORK: &str = "# Work\n## Log\n[LOG-001] - [2026-01-27 09:00] - [PLAN] - Task: A\nplan body\n[LOG-002] - [2026-01-27 10:00] - [DECISION] - Task: MODEL-A\ndecided\nbecause\n[LOG-003] - [2026-01-27 11:00] - [NOTE] - Task: B\nlast\n";

/// A document for the doc tools: levels, a numbered title, repeated titles.
const GUIDE: &str = "\
# Guide

Intro.

## Install

Install text.

### From source

Build it.

## 2.1 Configure

Configure text.

## Notes

first notes

## Notes

second notes
";

#[tokio::test]
async fn tool_text_formats() {
    let fx = Fixture::new();
    fx.write("WORK.md", WORK);
    fx.write("guide.md", GUIDE);
    let srv = fx.serve().await;
    let _guard = snapshot_settings(&fx).bind_to_scope();
    let cases: Vec<(&str, &'static str, Value)> = vec![
        (
            "read_files_batch",
            "read_files",
            json!({"files": [
                {"path": "WORK.md", "start_line": 5, "read_to_next_pattern": r"^\[LOG-"},
                {"path": "WORK.md", "start_line": 8, "read_to_next_pattern": r"^\[LOG-"},
                {"path": "WORK.md", "tail": 2},
                {"path": "WORK.md", "read_to_next_pattern": "^## "},
                {"path": "WORK.md", "start_line": 99},
                {"path": "missing.md", "head": 1},
            ]}),
        ),
        (
            "grep_content_hints",
            "grep_content",
            json!({"pattern": r"\[DECISION\]|last", "search_path": "WORK.md"}),
        ),
        (
            "grep_content_cut_with_context",
            "grep_content",
            // One file: how many files a cut search got to is not fixed.
            json!({"pattern": "LOG", "max_results": 2, "context_lines": 1, "search_path": "WORK.md"}),
        ),
        (
            "read_text_file_page",
            "read_text_file",
            json!({"path": fx.abs("WORK.md"), "line": 3, "limit": 2}),
        ),
        ("doc_toc", "doc_toc", json!({"path": "guide.md"})),
        (
            "doc_read_without_children",
            "doc_read",
            json!({"path": "guide.md", "section": "install", "include_children": false}),
        ),
        (
            "doc_read_by_title_number",
            "doc_read",
            json!({"path": "guide.md", "section": "2.1"}),
        ),
        (
            "doc_read_ambiguous",
            "doc_read",
            json!({"path": "guide.md", "section": "Notes"}),
        ),
        (
            "doc_read_not_found",
            "doc_read",
            json!({"path": "guide.md", "section": "Instalation"}),
        ),
        (
            "doc_read_many",
            "doc_read_many",
            json!({"path": "guide.md", "sections": ["from-source", "notes-1", "nothing like it"]}),
        ),
        (
            "doc_find",
            "doc_find",
            json!({"path": "guide.md", "content_pattern": "notes$"}),
        ),
    ];
    for (name, tool, args) in cases {
        let r = srv
            .call(tool, args.clone())
            .await
            .unwrap_or_else(|e| panic!("{name}: JSON-RPC error {e:?}"));
        let request = format!("{tool} {args}").replace(fx.base().to_str().unwrap(), "[TMP]");
        insta::with_settings!({description => request}, {
            insta::assert_snapshot!(name, text_of(&r));
        });
    }
    srv.shutdown().await;
}
