//! Snapshots of the text the tools return, so that every change of format is reviewed
//! (`cargo insta review`, or compare the `.snap` files under `tests/it/snapshots/`).

use serde_json::json;

use crate::common::{Fixture, snapshot_settings, text_of};

const WORK: &str = "# Work\n## Log\n[LOG-001] - [2026-01-27 09:00] - [PLAN] - Task: A\nplan body\n[LOG-002] - [2026-01-27 10:00] - [DECISION] - Task: MODEL-A\ndecided\nbecause\n[LOG-003] - [2026-01-27 11:00] - [NOTE] - Task: B\nlast\n";

#[tokio::test]
async fn tool_text_formats() {
    let fx = Fixture::new();
    fx.write("WORK.md", WORK);
    let srv = fx.serve().await;
    let _guard = snapshot_settings(&fx).bind_to_scope();

    let batch = srv
        .read_files(json!({"files": [
            {"path": "WORK.md", "start_line": 5, "read_to_next_pattern": r"^\[LOG-"},
            {"path": "WORK.md", "start_line": 8, "read_to_next_pattern": r"^\[LOG-"},
            {"path": "WORK.md", "tail": 2},
            {"path": "WORK.md", "read_to_next_pattern": "^## "},
            {"path": "WORK.md", "start_line": 99},
            {"path": "missing.md", "head": 1},
        ]}))
        .await;
    insta::assert_snapshot!("read_files_batch", batch.text);

    let grep = srv
        .call("grep_content", json!({"pattern": r"\[DECISION\]|last"}))
        .await
        .expect("grep_content");
    insta::assert_snapshot!("grep_content_hints", text_of(&grep));

    let grep = srv
        .call(
            "grep_content",
            json!({"pattern": "LOG", "max_results": 2, "context_lines": 1}),
        )
        .await
        .expect("grep_content");
    insta::assert_snapshot!("grep_content_cut_with_context", text_of(&grep));

    let page = srv
        .read_text_file(json!({"path": fx.abs("WORK.md"), "line": 3, "limit": 2}))
        .await
        .expect("read_text_file");
    insta::assert_snapshot!("read_text_file_page", text_of(&page));
    srv.shutdown().await;
}
