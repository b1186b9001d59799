//! Hostile files in every language through the real server (issue 35): blocks nested far past
//! the nesting limit, a file over the size limit, a long one-line file, an expression nested
//! deep, a huge name. Each is generated here, at test time (never committed): every tool
//! answers in time, a file past a limit is read as text and the answer says why, the other
//! files' definitions are still found, non-identifiers are refused at once, and a cancelled or
//! cut lookup says how far it got. (`scripts/hostile_files.py` and
//! `scripts/hostile_server.py` make and measure the full-size set on the release build.)

use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::Fixture;

/// Levels of nesting: past the limit (100), cheap to generate and parse.
const DEPTH: usize = 400;

/// A block nested `DEPTH` deep in each language, a function `inner` at the bottom.
fn nested(lang: &str) -> (String, String) {
    let (ext, open, close, inner): (&str, &str, &str, &str) = match lang {
        "rust" => ("rs", "mod m{i} {\n", "}\n", "fn inner() {}\n"),
        "cpp" => (
            "cpp",
            "namespace n{i} {\n",
            "}\n",
            "int inner() { return 0; }\n",
        ),
        "java" => ("java", "class C{i} {\n", "}\n", "void inner() {}\n"),
        "csharp" => ("cs", "class C{i} {\n", "}\n", "void inner() {}\n"),
        "kotlin" => ("kt", "class C{i} {\n", "}\n", "fun inner() {}\n"),
        "scala" => ("scala", "object O{i} {\n", "}\n", "def inner(): Int = 1\n"),
        "swift" => ("swift", "struct S{i} {\n", "}\n", "func inner() {}\n"),
        "php" => ("php", "class C{i} {\n", "}\n", "function inner() {}\n"),
        "ruby" => ("rb", "module M{i}\n", "end\n", "def inner; end\n"),
        "typescript" => ("ts", "namespace N{i} {\n", "}\n", "function inner() {}\n"),
        "javascript" => ("js", "class C{i} {\n", "}\n", "inner() {}\n"),
        "c" => ("c", "struct s{i} {\n", "};\n", "int inner;\n"),
        _ => unreachable!("{lang}"),
    };
    let mut text = String::new();
    if lang == "php" {
        text.push_str("<?php\n");
    }
    for i in 0..DEPTH {
        text.push_str(&open.replace("{i}", &i.to_string()));
    }
    text.push_str(inner);
    text.push_str(&close.repeat(DEPTH));
    (format!("nested/{lang}.{ext}"), text)
}

/// Python nests by indentation, one space a level.
fn nested_python() -> (String, String) {
    let mut text = String::new();
    for i in 0..DEPTH {
        text.push_str(&" ".repeat(i));
        text.push_str(&format!("class C{i}:\n"));
    }
    text.push_str(&" ".repeat(DEPTH));
    text.push_str("def inner(self): pass\n");
    ("nested/python.py".into(), text)
}

fn hostile_root() -> Fixture {
    let fx = Fixture::new();
    for lang in [
        "rust",
        "cpp",
        "java",
        "csharp",
        "kotlin",
        "scala",
        "swift",
        "php",
        "ruby",
        "typescript",
        "javascript",
        "c",
    ] {
        let (rel, text) = nested(lang);
        fx.write(&rel, text);
    }
    let (rel, text) = nested_python();
    fx.write(&rel, text);
    // Over the size limit (8 MiB): read as text, never parsed.
    fx.write("big/z.c", "void z(void){}\n".repeat((9 << 20) / 15));
    // 128 KiB on one line: linear in its definitions.
    fx.write("oneline/z.c", "void z(void){}".repeat((128 << 10) / 14));
    // An expression nested 20,000 parentheses deep, then a function after it.
    let deep = format!(
        "int deep(void) {{ return {}1{}; }}\nint after(void) {{ return 2; }}\n",
        "(".repeat(20_000),
        ")".repeat(20_000)
    );
    fx.write("deep/parens.c", deep);
    fx.write("normal.c", "int normal_function(void) { return 0; }\n");
    fx.write("bash/nested.sh", nested_bash());
    fx
}

fn nested_bash() -> String {
    let mut text = String::new();
    for i in 0..DEPTH {
        text.push_str(&format!("f{i}() {{\n"));
    }
    text.push_str("inner() { :; }\n");
    text.push_str(&"}\n".repeat(DEPTH));
    text
}

#[tokio::test]
async fn hostile_files_in_every_language_are_read_as_text_and_every_call_answers() {
    let fx = hostile_root();
    let server = fx.serve().await;
    for lang_file in [
        "nested/rust.rs",
        "nested/cpp.cpp",
        "nested/java.java",
        "nested/kotlin.kt",
        "nested/ruby.rb",
        "nested/typescript.ts",
        "big/z.c",
    ] {
        let t = Instant::now();
        let a = server
            .ok("file_read", json!({"file": lang_file, "skeleton": true}))
            .await;
        assert!(
            a.text.contains("read as text, not parsed"),
            "{lang_file}: {}",
            &a.text[..a.text.len().min(400)]
        );
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "{lang_file}: {:?}",
            t.elapsed()
        );
    }
    let a = server
        .ok("file_read", json!({"file": "big/z.c", "skeleton": true}))
        .await;
    assert!(a.text.contains("over 8 MiB"), "{}", &a.text[..400]);
    let a = server
        .ok(
            "file_read",
            json!({"file": "nested/rust.rs", "skeleton": true}),
        )
        .await;
    assert!(
        a.text.contains("nested over 100 levels"),
        "{}",
        &a.text[..400]
    );
    // A target in a file read as text says why.
    let e = server
        .err(
            "file_read",
            json!({"file": "nested/java.java", "target": ["inner"]}),
        )
        .await;
    assert!(e.contains("File read as text"), "{e}");

    // The ordinary file's definition is found; files past a limit are named in a note.
    let a = server
        .ok("find_definition", json!({"name": "normal_function"}))
        .await;
    assert!(
        a.text.contains("normal.c:1-1: function normal_function"),
        "{}",
        a.text
    );
    let a = server.ok("find_definition", json!({"name": "inner"})).await;
    assert!(a.text.contains("read as text, not parsed"), "{}", a.text);
    // Linear on one line: every definition of the one-line file, one signature each.
    let t = Instant::now();
    let a = server
        .ok(
            "find_definition",
            json!({"name": "z", "search_path": "oneline"}),
        )
        .await;
    assert!(
        a.text.contains("definitions in 1 file"),
        "{}",
        &a.text[a.text.len().saturating_sub(600)..]
    );
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    let a = server.ok("find_definition", json!({"name": "after"})).await;
    assert!(a.text.contains("deep/parens.c:2-2"), "{}", a.text);
    let a = server
        .ok(
            "grep_content",
            json!({"pattern": "inner", "max_results": 50}),
        )
        .await;
    assert!(
        a.text.contains("Found 14 matching lines"),
        "{}",
        &a.text[a.text.len().saturating_sub(600)..]
    );
    server.shutdown().await;
}

#[tokio::test]
async fn non_identifiers_are_refused_at_once() {
    let fx = Fixture::new();
    fx.write("a.c", "int a(void) { return 0; }\n");
    let server = fx.serve().await;
    let huge = "x.".repeat(1 << 19);
    for bad in ["(", ";", "*", "{", "=", "a b", "foo(", huge.as_str()] {
        let t = Instant::now();
        let e = server.err("find_definition", json!({"name": bad})).await;
        assert!(e.starts_with("Error: Invalid name"), "{bad:.20}: {e:.300}");
        assert!(e.len() < 2_000, "the error echoes {} bytes", e.len());
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "{bad:.20}: {:?}",
            t.elapsed()
        );
    }
    for good in ["::", "operator+", "struct a", "Matrix#*"] {
        let a = server
            .answer("find_definition", json!({"name": good}))
            .await;
        assert!(!a.text.starts_with("Error: Invalid"), "{good}: {}", a.text);
    }
    server.shutdown().await;
}
