//! The document read tools through the MCP server on one document with Unicode titles
//! (Chinese, Japanese, Cyrillic, full-width), duplicate, setext and code-fenced headings:
//! doc_toc, include_children, hashes, doc_read_many and doc_find.

use serde_json::{Value, json};

use crate::common::{Fixture, Server, doc_view, text_of};

const DOC: &str = include_str!("../data/plan_doc.md");

fn section(v: &Value) -> &Value {
    &v["section"]
}

/// One server over the document: its outline, its sections' text, children and hashes (the
/// file changes last), doc_read_many and doc_find. The addressing tiers on this document are
/// an engine test (`src/markdown/tests.rs`,
/// `every_addressing_tier_past_front_matter_code_and_setext`).
#[tokio::test]
async fn one_document_through_every_read_tool() {
    let fx = Fixture::new();
    fx.write("plan.md", DOC);
    fx.write("image.bin", b"\x00\x01binary");
    let srv = fx.serve().await;
    outline_skips_code_comments_and_front_matter_and_counts_setext(&srv).await;
    read_many_and_find(&srv).await;
    section_text_children_hash_and_changes(&fx, &srv).await;
    srv.shutdown().await;
}

async fn outline_skips_code_comments_and_front_matter_and_counts_setext(srv: &Server) {
    let r = srv
        .call("doc_toc", json!({"path": "plan.md"}))
        .await
        .unwrap();
    let text = text_of(&r);
    let toc = doc_view("doc_toc", &r);
    let titles: Vec<(u64, &str)> = toc["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["level"].as_u64().unwrap(), s["title"].as_str().unwrap()))
        .collect();
    assert_eq!(
        titles,
        [
            (1, "Plan"),
            (2, "Phase B"),
            (2, "6.1 Phase B: Design"),
            (2, "6.2 Phase B 验证计划"),
            (3, "Notes"),
            (3, "Notes"),
            (2, "日本語の見出し"),
            (2, "Проверка данных"),
            (2, "ＦＵＬＬ　ＷＩＤＴＨ Title"),
            (2, "Straße und Weg"),
            (1, "Appendix"),
            (2, "2.1 Written number"),
            (2, "Notes"),
        ]
    );
    assert_eq!(toc["total_sections"], 13);
    assert!(
        text.contains("  1.3 ## 6.2 Phase B 验证计划  (#62-phase-b-验证计划, lines 29-40, "),
        "{text}"
    );
    // max_depth and a subtree.
    let r = srv
        .call("doc_toc", json!({"path": "plan.md", "max_depth": 1}))
        .await
        .unwrap();
    assert_eq!(
        doc_view("doc_toc", &r)["sections"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let r = srv
        .call("doc_toc", json!({"path": "plan.md", "section": "6.2"}))
        .await
        .unwrap();
    let slugs: Vec<String> = doc_view("doc_toc", &r)["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["slug"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(slugs, ["62-phase-b-验证计划", "notes", "notes-1"]);
}

async fn section_text_children_hash_and_changes(fx: &Fixture, srv: &Server) {
    let path = fx.root.join("plan.md");
    let lines: Vec<&str> = DOC.lines().collect();
    let slice = |a: usize, b: usize| lines[a - 1..b].join("\n") + "\n";

    let r = srv
        .call("doc_read", json!({"path": "plan.md", "section": "6.2"}))
        .await
        .unwrap();
    let v = doc_view("doc_read", &r);
    let s = section(&v);
    assert_eq!(
        (s["line_start"].as_u64(), s["line_end"].as_u64()),
        (Some(29), Some(40))
    );
    assert_eq!(s["content"].as_str().unwrap(), slice(29, 40));
    let hash = s["hash"].as_str().unwrap().to_string();
    assert_eq!(hash.len(), 16);

    let r = srv
        .call(
            "doc_read",
            json!({"path": "plan.md", "section": "6.2", "include_children": false}),
        )
        .await
        .unwrap();
    let text = text_of(&r);
    let v = doc_view("doc_read", &r);
    let s = section(&v);
    assert_eq!(s["content"].as_str().unwrap(), slice(29, 32));
    assert_eq!(s["line_end"], 32);
    assert_eq!(s["omitted_children"].as_array().unwrap().len(), 2);
    assert!(text.contains("2 subsection(s) not included"), "{text}");
    assert_ne!(s["hash"].as_str().unwrap(), hash);

    // The same read gives the same hash; a changed file a new one and the new text.
    let again = srv
        .call("doc_read", json!({"path": "plan.md", "section": "6.2"}))
        .await
        .unwrap();
    assert_eq!(
        section(&doc_view("doc_read", &again))["hash"],
        hash.as_str()
    );
    std::fs::write(&path, DOC.replace("Verification plan.", "Changed plan.")).unwrap();
    let changed = srv
        .call("doc_read", json!({"path": "plan.md", "section": "6.2"}))
        .await
        .unwrap();
    let v = doc_view("doc_read", &changed);
    assert_ne!(section(&v)["hash"], hash.as_str());
    assert!(
        section(&v)["content"]
            .as_str()
            .unwrap()
            .contains("Changed plan.")
    );
}

async fn read_many_and_find(srv: &Server) {
    let r = srv
        .call(
            "doc_read_many",
            json!({"path": "plan.md", "sections": ["phase-b", "6.2", "Notes", "nothing like it"]}),
        )
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true));
    let text = text_of(&r);
    assert!(
        text.contains("[3/4] section: \"Notes\"\nError: Ambiguous section"),
        "{text}"
    );
    let results = doc_view("doc_read_many", &r)["results"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(results.len(), 4);
    assert_eq!(results[0]["section"]["slug"], "phase-b");
    assert_eq!(results[1]["section"]["slug"], "62-phase-b-验证计划");
    assert!(results[2]["error"].as_str().unwrap().contains("Ambiguous"));
    assert!(results[3]["error"].as_str().unwrap().contains("not found"));
    let r = srv
        .call(
            "doc_read_many",
            json!({"path": "plan.md", "sections": ["zzz", "Notes"]}),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    let r = srv
        .call("doc_read_many", json!({"path": "plan.md", "sections": []}))
        .await
        .unwrap();
    assert!(r.is_error == Some(true) && text_of(&r).contains("No sections requested"));

    let find = |args: Value| async move {
        let mut a = args;
        a["path"] = json!("plan.md");
        let r = srv.call("doc_find", a).await.unwrap();
        if r.is_error == Some(true) {
            return Err(text_of(&r));
        }
        let v = doc_view("doc_find", &r);
        Ok(v["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["slug"].as_str().unwrap().to_string())
            .collect::<Vec<_>>())
    };
    assert_eq!(
        find(json!({"pattern": "*Phase*"})).await.unwrap(),
        ["phase-b", "61-phase-b-design", "62-phase-b-验证计划"]
    );
    assert_eq!(
        find(json!({"pattern": "phase b", "level": 2, "min_size": 60}))
            .await
            .unwrap(),
        ["61-phase-b-design", "62-phase-b-验证计划"]
    );
    assert_eq!(
        find(json!({"level": 3})).await.unwrap(),
        ["notes", "notes-1"]
    );
    assert_eq!(
        find(json!({"content_pattern": "notes$"})).await.unwrap(),
        ["notes", "notes-1", "notes-2"]
    );
    assert_eq!(
        find(json!({"pattern": "*notes*", "max_depth": 2}))
            .await
            .unwrap(),
        ["notes-2"]
    );
    let r = srv
        .call(
            "doc_find",
            json!({"path": "plan.md", "content_pattern": "second"}),
        )
        .await
        .unwrap();
    let m = &doc_view("doc_find", &r)["matches"][0];
    assert_eq!(
        (m["slug"].as_str(), m["matched_line"].as_u64()),
        (Some("notes-1"), Some(39))
    );
    assert!(
        find(json!({"content_pattern": "("}))
            .await
            .unwrap_err()
            .starts_with("Error: Invalid regex in content_pattern")
    );
    assert!(
        find(json!({"level": 9}))
            .await
            .unwrap_err()
            .starts_with("Error: Invalid level")
    );

    // File errors in the the Error/Problem/Fix layout.
    for (path, short) in [
        ("missing.md", "Error: File not found"),
        ("../outside.md", "Error: Path outside the allowed roots"),
        ("image.bin", "Error: Binary file"),
    ] {
        let r = srv.call("doc_toc", json!({"path": path})).await.unwrap();
        assert_eq!(r.is_error, Some(true));
        assert!(text_of(&r).starts_with(short), "{path}: {}", text_of(&r));
    }
}
