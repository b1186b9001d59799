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

    // read_text_file: spec/002's inputs and an output schema with `_meta`.
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
