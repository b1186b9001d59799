//! `tools/list` and the initialization handshake.

use crate::common::Fixture;

#[tokio::test]
async fn list_tools_shows_both_read_tools_read_only_with_schemas() {
    let fx = Fixture::new();
    let srv = fx.serve().await;
    let tools = tokio::time::timeout(crate::common::CALL_TIMEOUT, srv.client().list_all_tools())
        .await
        .expect("tools/list timed out")
        .expect("tools/list failed");
    let find = |name: &str| {
        tools.iter().find(|t| t.name == name).unwrap_or_else(|| {
            panic!(
                "{name} is not listed; tools: {:?}",
                tools.iter().map(|t| &t.name).collect::<Vec<_>>()
            )
        })
    };
    let read_files = find("read_files");
    let read_text_file = find("read_text_file");

    for tool in [read_files, read_text_file] {
        let ann = tool
            .annotations
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no annotations", tool.name));
        assert_eq!(
            ann.read_only_hint,
            Some(true),
            "{} read_only_hint",
            tool.name
        );
        assert!(
            tool.description.as_deref().is_some_and(|d| !d.is_empty()),
            "{} has a description",
            tool.name
        );
    }

    // read_files: the batch parameter and the section-aware option are in its schema and docs.
    let input = serde_json::Value::Object((*read_files.input_schema).clone()).to_string();
    assert!(
        input.contains("\"files\""),
        "read_files input schema: {input}"
    );
    assert!(
        input.contains("read_to_next_pattern"),
        "read_files input schema: {input}"
    );
    assert!(
        input.contains("large_file_passthrough"),
        "read_files input schema: {input}"
    );
    assert!(
        read_files
            .description
            .as_deref()
            .unwrap()
            .contains("read_to_next_pattern")
    );

    // read_text_file: the read_text_file contract's inputs and an output schema with `_meta`.
    let props = read_text_file
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
        .expect("read_text_file input properties");
    for p in ["path", "line", "limit"] {
        assert!(props.contains_key(p), "read_text_file input lacks {p}");
    }
    let required = read_text_file
        .input_schema
        .get("required")
        .expect("required");
    assert_eq!(required, &serde_json::json!(["path"]));
    let output = read_text_file
        .output_schema
        .as_ref()
        .expect("read_text_file has an outputSchema");
    let out_props = output
        .get("properties")
        .and_then(|p| p.as_object())
        .expect("outputSchema properties");
    assert!(out_props.contains_key("_meta"), "outputSchema: {output:?}");
    assert!(
        out_props.contains_key("content"),
        "outputSchema: {output:?}"
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn server_instructions_mention_read_to_next_pattern() {
    let fx = Fixture::new();
    let srv = fx.serve().await;
    let instructions = srv.instructions().expect("the server sends instructions");
    assert!(
        instructions.contains("read_to_next_pattern"),
        "instructions: {instructions}"
    );
    assert!(
        instructions.contains("read_files"),
        "instructions: {instructions}"
    );
    srv.shutdown().await;
}

/// Every schema a client reads is in the portable subset (no `$ref`, `$defs`, `$schema`,
/// `anyOf`, type arrays or non-standard formats), and the whole list stays light.
#[tokio::test]
async fn schemas_are_portable_and_the_list_is_lean() {
    let fx = Fixture::new();
    for (extra, writing) in [(&[][..], false), (&["--allow-write"][..], true)] {
        let srv = fx.serve_with(extra).await;
        let tools = srv.client().list_all_tools().await.expect("tools/list");
        for t in &tools {
            let input = serde_json::Value::Object((*t.input_schema).clone());
            assert_eq!(
                mapgrep::mcp::schema::violations(&input),
                Vec::<String>::new(),
                "{} input",
                t.name
            );
            assert_eq!(input["type"], "object", "{}", t.name);
            if let Some(out) = &t.output_schema {
                let out = serde_json::Value::Object((**out).clone());
                assert_eq!(
                    mapgrep::mcp::schema::violations(&out),
                    Vec::<String>::new(),
                    "{} output",
                    t.name
                );
            }
        }
        let listed = tools.iter().any(|t| t.name == "doc_replace");
        assert_eq!(
            listed, writing,
            "doc_replace is listed only when the server may write"
        );
        let bytes = serde_json::to_vec(&tools).unwrap().len();
        eprintln!(
            "tools/list ({}): {bytes} bytes of compact JSON",
            if writing {
                "--allow-write"
            } else {
                "read-only"
            }
        );
        if !writing {
            // 12 tools, within 16 KiB.
            assert!(bytes <= 16_384, "tools/list is {bytes} bytes");
            for t in &tools {
                let d = t.description.as_deref().unwrap_or_default();
                assert!(
                    d.len() <= 1_024,
                    "{}: {} bytes of description",
                    t.name,
                    d.len()
                );
            }
        }
        srv.shutdown().await;
    }
}

/// Each tool's structured view alone carries its text view's answer, and its JSON is at
/// most 1.1 times the text's bytes on ordinary calls (printed as a table with
/// `--nocapture`).
#[tokio::test]
async fn both_views_carry_the_answer_at_about_the_same_size() {
    let fx = Fixture::new();
    // A code file, a work log and a markdown document of ordinary shape.
    let mut ts = String::new();
    for i in 0..40 {
        ts.push_str(&format!(
            "/** Handles request {i}. */\nexport function handle{i}(req: Request, res: Response): void {{\n  const id = req.params.id;\n  if (!id) {{\n    res.status(400).send(\"missing id\");\n    return;\n  }}\n  res.json({{ id, step: {i} }});\n}}\n\n"
        ));
    }
    fx.write("src/app.ts", &ts);
    let mut log = String::from("# Work\n\n## Log\n\n");
    for i in 0..200 {
        log.push_str(&format!(
            "[LOG-{i:06}] - [2026-01-27 10:00] - [{}] - Task: MODEL-{i}\nThe model was retrained with the new split; accuracy rose by {i} basis points.\nNext: compare against the baseline run and write up the results.\n\n",
            if i % 10 == 3 { "DECISION" } else { "NOTE" }
        ));
    }
    fx.write("WORK.md", &log);
    let mut doc = String::from("# Handbook\n\n");
    for i in 0..12 {
        doc.push_str(&format!("## {i}. Chapter {i}\n\n"));
        for j in 0..3 {
            doc.push_str(&format!(
                "### {i}.{j} Part\n\nThis part explains step {j} of chapter {i} in plain words, with enough text to read like documentation.\nIt continues on a second line and ends here.\n\n"
            ));
        }
    }
    fx.write("HANDBOOK.md", &doc);
    let srv = fx.serve().await;
    let abs = fx.abs("WORK.md");
    let calls = [
        (
            "read_files",
            serde_json::json!({"files": [{"path": "WORK.md", "start_line": 1, "end_line": 120}]}),
        ),
        (
            "read_text_file",
            serde_json::json!({"path": abs, "line": 1, "limit": 120}),
        ),
        (
            "grep_content",
            serde_json::json!({"pattern": "MODEL-", "max_results": 100}),
        ),
        (
            "doc_read",
            serde_json::json!({"path": "HANDBOOK.md", "section": "3. Chapter 3"}),
        ),
        (
            "doc_read_many",
            serde_json::json!({"path": "HANDBOOK.md", "sections": ["1.2", "5. Chapter 5"]}),
        ),
        (
            "file_read",
            serde_json::json!({"file": "src/app.ts", "startLine": 1, "endLine": 60}),
        ),
        (
            "file_read",
            serde_json::json!({"file": "src/app.ts", "target": ["handle3", "handle4"]}),
        ),
        ("doc_toc", serde_json::json!({"path": "HANDBOOK.md"})),
        ("find_definition", serde_json::json!({"name": "handle7"})),
        ("find_references", serde_json::json!({"name": "res"})),
        (
            "doc_find",
            serde_json::json!({"path": "HANDBOOK.md", "pattern": "*Part*"}),
        ),
    ];
    eprintln!("| call | text bytes | structuredContent JSON bytes | ratio |\n|---|---:|---:|---:|");
    for (tool, args) in calls {
        let r = srv.call(tool, args.clone()).await.expect("answer");
        assert_ne!(r.is_error, Some(true), "{tool} {args}");
        let text: String = r
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let sc = r.structured_content.clone().expect("structured content");
        let content = sc["content"].as_str().expect("content");
        if tool == "read_text_file" {
            // The page, and its summary as `_meta`.
            assert!(text.starts_with(content));
            let m = &sc["_meta"];
            assert!(text.contains(&format!(
                "{} lines returned of {} total",
                m["returned_lines"], m["total_lines"]
            )));
            assert!(text.contains(&format!("call again with line: {}", m["next_line"])));
        } else {
            assert_eq!(
                content, text,
                "{tool}: the structured view carries the text view"
            );
        }
        let json = serde_json::to_vec(&sc).unwrap().len();
        let ratio = json as f64 / text.len() as f64;
        eprintln!("| {tool} {args} | {} | {json} | {ratio:.3} |", text.len());
        assert!(ratio <= 1.1, "{tool}: {json} / {} bytes", text.len());
    }
    srv.shutdown().await;
}
