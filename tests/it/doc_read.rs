//! The document read tools through the MCP server: docs/doc_tools.md, "Addressing a section"'s assertions, every
//! addressing tier, Unicode titles (Chinese, Japanese, Cyrillic, full-width), duplicate,
//! setext and code-fenced headings, include_children, doc_read_many, doc_find and doc_toc.

use serde_json::{Value, json};

use crate::common::{Fixture, Server, doc_view, text_of};

const DOC: &str = "\
---
title: front matter
# not a heading
---
# Plan

Intro.

## Phase B

Phase B text.

## 6.1 Phase B: Design

```bash
# not a heading either
```

~~~
## nor this
~~~

    # indented code

<!--
# commented out
-->

## 6.2 Phase B 验证计划

Verification plan.

### Notes

first notes

### Notes

second notes

## 日本語の見出し

Japanese.

## Проверка данных

Cyrillic.

## ＦＵＬＬ　ＷＩＤＴＨ Title

Full width.

Straße und Weg
--------------

Setext level 2.

Appendix
========

Setext level 1.

## 2.1 Written number

Not at position 2.1.

## Notes

third notes
";

/// `doc_read` → (slug, matched_by), or the error text.
async fn read(srv: &Server, section: &str) -> Result<(String, String), String> {
    let r = srv
        .call("doc_read", json!({"path": "plan.md", "section": section}))
        .await
        .expect("doc_read answers");
    if r.is_error == Some(true) {
        return Err(text_of(&r));
    }
    let s = &doc_view("doc_read", &r)["section"];
    Ok((
        s["slug"].as_str().unwrap().to_string(),
        s["matched_by"].as_str().unwrap().to_string(),
    ))
}

fn section(v: &Value) -> &Value {
    &v["section"]
}

#[tokio::test]
async fn spec_004_acceptance_and_every_addressing_tier() {
    let fx = Fixture::new();
    fx.write("plan.md", DOC);
    let srv = fx.serve().await;

    // docs/doc_tools.md, "Addressing a section".
    let (slug, _) = read(&srv, "验证计划").await.unwrap();
    assert_eq!(slug, "62-phase-b-验证计划");
    assert_eq!(read(&srv, "phase b").await.unwrap().0, "phase-b");
    assert_eq!(read(&srv, "PhaseB").await.unwrap().0, "phase-b");

    let cases: &[(&str, &str, &str)] = &[
        ("phase-b", "phase-b", "slug"),
        ("#phase-b", "phase-b", "slug"),
        ("user-content-phase-b", "phase-b", "slug"),
        ("notes-1", "notes-1", "slug"),
        // The numbering written in a title wins over the position in the outline...
        (
            "6.2",
            "62-phase-b-验证计划",
            "index path (the numbering written in the title)",
        ),
        (
            "2.1",
            "21-written-number",
            "index path (the numbering written in the title)",
        ),
        // ...and a path no title carries is a position: 1.3.1 is the first "Notes".
        ("1.3.1", "notes", "index path (position in the outline)"),
        // Line 38 is inside the second "### Notes".
        (
            "38",
            "notes-1",
            "line number (innermost section containing it)",
        ),
        ("Phase B", "phase-b", "exact title"),
        ("ＰＨＡＳＥ　Ｂ", "phase-b", "normalized title"),
        ("STRASSE UND WEG", "straße-und-weg", "normalized title"),
        ("日本語", "日本語の見出し", "part of the normalized title"),
        (
            "проверка",
            "проверка-данных",
            "part of the normalized title",
        ),
        (
            "full width",
            "ｆｕｌｌｗｉｄｔｈ-title",
            "part of the normalized title",
        ),
        (
            "number written",
            "21-written-number",
            "all words of the title",
        ),
    ];
    for (query, slug, tier) in cases {
        let got = read(&srv, query).await;
        assert_eq!(
            got,
            Ok((slug.to_string(), tier.to_string())),
            "query {query:?}"
        );
    }

    // Duplicates: ambiguous, no guess, candidates listed.
    let err = read(&srv, "Notes").await.unwrap_err();
    assert!(err.starts_with("Error: Ambiguous section"), "{err}");
    for slug in ["#notes,", "#notes-1,", "#notes-2,"] {
        assert!(err.contains(slug), "{slug} in {err}");
    }
    assert!(err.contains("no guess"), "{err}");

    // A line before the first heading or past the end is in no section, and says why.
    for line in ["3", "999"] {
        let err = read(&srv, line).await.unwrap_err();
        assert!(
            err.contains(&format!(
                "Line {line} is in no section: the document has 69 lines and its first heading is at line 5."
            )),
            "{err}"
        );
    }

    // Not found: suggestions.
    let err = read(&srv, "Phsae B Desgin").await.unwrap_err();
    assert!(err.starts_with("Error: Section not found"), "{err}");
    assert!(
        err.contains("Did you mean") && err.contains("#61-phase-b-design"),
        "{err}"
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn outline_skips_code_comments_and_front_matter_and_counts_setext() {
    let fx = Fixture::new();
    fx.write("plan.md", DOC);
    let srv = fx.serve().await;
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
    srv.shutdown().await;
}

#[tokio::test]
async fn section_text_children_hash_and_changes() {
    let fx = Fixture::new();
    let path = fx.write("plan.md", DOC);
    let srv = fx.serve().await;
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
    srv.shutdown().await;
}

#[tokio::test]
async fn read_many_and_find() {
    let fx = Fixture::new();
    fx.write("plan.md", DOC);
    fx.write("image.bin", b"\x00\x01binary");
    let srv = fx.serve().await;

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

    let find = |args: Value| {
        let srv = &srv;
        async move {
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
        }
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
            .starts_with("Error: Invalid content_pattern")
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
    srv.shutdown().await;
}
