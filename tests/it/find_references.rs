//! `find_references` through the real server: the uses of a name in several languages
//! (comments, strings and definitions left out) with their enclosing symbols, both views,
//! pages within a small budget that together are the whole answer, an edit seen by the next
//! call, the parameter errors, and `mapgrep refs` on the command line.

use serde_json::json;

use crate::common::{BIN, Fixture, date_back, wait_recorded, walk_files};

const LIB_RS: &str = "\
/// Doubles a value: double_it is documented here.
pub fn double_it(x: u64) -> u64 {
    x * 2
}

pub fn quad(x: u64) -> u64 {
    double_it(double_it(x))
}
";

const MAIN_GO: &str = "\
package main

// double_it is called below
func main() {
\tprintln(lib.double_it(3), \"double_it\")
}
";

fn fixture() -> Fixture {
    let fx = Fixture::new();
    fx.write("src/lib.rs", LIB_RS);
    fx.write("cmd/main.go", MAIN_GO);
    for k in 0..30 {
        fx.write(
            &format!("many/m{k:02}.py"),
            format!("from lib import double_it\n\n\ndef use{k}(v):\n    return double_it(v)\n"),
        );
    }
    fx
}

/// The `N: text` lines of an answer, with the file above each.
fn uses(text: &str) -> Vec<String> {
    let mut file = String::new();
    let mut out = Vec::new();
    for l in text.lines() {
        if !l.starts_with(' ') && l.contains('.') && !l.contains(' ') {
            file = l.to_string();
        } else if let Some(rest) = l.strip_prefix("    ")
            && rest
                .split(':')
                .next()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        {
            out.push(format!("{file}:{rest}"));
        }
    }
    out
}

#[tokio::test]
async fn uses_with_callers_both_views_and_pages_that_make_the_whole() {
    let fx = fixture();
    let srv = fx.serve().await;
    let a = srv
        .ok("find_references", json!({"name": "double_it"}))
        .await;
    assert!(
        a.text
            .starts_with("## find_references: double_it\n\n63 uses of `double_it` in 32 files"),
        "{}",
        a.text
    );
    assert!(
        a.text.contains("1 on definition lines set aside"),
        "{}",
        a.text
    );
    assert!(
        a.text
            .contains("  in function quad (6-8):\n    7: double_it(double_it(x))"),
        "{}",
        a.text
    );
    assert!(
        a.text
            .contains("  in function main (3-6):\n    5: println(lib.double_it(3), \"double_it\")"),
        "{}",
        a.text
    );
    assert!(!a.text.contains("documented here"), "{}", a.text);
    assert_eq!(a.structured["content"], a.text.as_str());
    assert!(a.structured.get("next_cursor").is_none());
    let whole = uses(&a.text);
    // 63 uses on 62 lines: two on one line are shown as that line once.
    assert_eq!(whole.len(), 62, "{whole:?}");
    // Small pages, followed by their cursors.
    let mut paged = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let mut args = json!({"name": "double_it", "max_output_bytes": 1200});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let p = srv.ok("find_references", args).await;
        assert!(p.text.len() <= 1200, "{}", p.text.len());
        assert_eq!(p.structured["content"], p.text.as_str());
        paged.extend(uses(&p.text));
        match p.structured.get("next_cursor").and_then(|c| c.as_str()) {
            Some(c) => {
                assert!(
                    p.text.contains(&format!("pass cursor \"{c}\"")),
                    "{}",
                    p.text
                );
                cursor = Some(c.to_string());
            }
            None => break,
        }
    }
    assert_eq!(paged, whole);
    // An edit is seen by the next call.
    fx.write(
        "cmd/extra.go",
        "package main\n\nfunc extra() int { return double_it(1) }\n",
    );
    let b = srv
        .ok(
            "find_references",
            json!({"name": "double_it", "lang": "go"}),
        )
        .await;
    assert_eq!(uses(&b.text).len(), 2, "{}", b.text);
    let e = srv
        .layout_err("find_references", json!({"name": "a b"}))
        .await;
    assert_eq!(e.short, "Invalid name");
    let e = srv
        .layout_err("find_references", json!({"name": "x", "cursor": "nope"}))
        .await;
    assert_eq!(e.short, "Invalid cursor");
}

#[test]
fn the_command_line_prints_the_same_uses() {
    let fx = fixture();
    let out = std::process::Command::new(BIN)
        .args(["refs", "double_it", "src", "cmd"])
        .current_dir(&fx.root)
        .env("XDG_CACHE_HOME", fx.base().join("cache"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("3 uses of `double_it` in 2 files"),
        "{text}"
    );
    assert!(text.contains("    7: double_it(double_it(x))"), "{text}");
    let none = std::process::Command::new(BIN)
        .args(["refs", "no_such_name_here", "src"])
        .current_dir(&fx.root)
        .env("XDG_CACHE_HOME", fx.base().join("cache"))
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(1));
}

#[tokio::test]
async fn a_kept_answer_gives_way_to_an_edit_with_the_index() {
    let fx = fixture();
    let (srv, _log) = fx.serve_indexed().await;
    let count = |t: &str| t.lines().nth(2).unwrap_or("").to_string();
    let a = srv
        .ok("find_references", json!({"name": "double_it"}))
        .await;
    assert!(count(&a.text).starts_with("63 uses"), "{}", a.text);
    // The same search again: the kept answer, the same text.
    let again = srv
        .ok("find_references", json!({"name": "double_it"}))
        .await;
    assert_eq!(again.text, a.text);
    // An edit adds a use, another removes two: each next call sees it.
    fx.write(
        "cmd/extra.go",
        "package main\n\nfunc extra() int { return double_it(1) }\n",
    );
    let b = srv
        .ok("find_references", json!({"name": "double_it"}))
        .await;
    assert!(count(&b.text).starts_with("64 uses"), "{}", b.text);
    std::fs::remove_file(fx.root.join("many/m00.py")).unwrap();
    let c = srv
        .ok("find_references", json!({"name": "double_it"}))
        .await;
    assert!(count(&c.text).starts_with("62 uses"), "{}", c.text);
    srv.shutdown().await;
}

/// The map of a path `srv` keeps once every file there is recorded and `want` is in it.
async fn settled_map(srv: &crate::common::Server, want: &str) -> String {
    let mut text = String::new();
    for _ in 0..150 {
        text = srv.ok("repo_map", json!({})).await.text;
        if text.contains(want) && !text.contains("Note:") {
            return text;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("no settled map with {want}:\n{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_kept_map_follows_edits_and_equals_a_fresh_one() {
    let fx = fixture();
    let log = fx.base().join("log-kept");
    let idx = fx.base().join("index-kept");
    let kept = crate::common::Server::start_logged(
        &[fx.root.as_path()],
        &[
            "--index-dir",
            idx.to_str().unwrap(),
            "--map-hold-files",
            "0",
        ],
        &log,
    )
    .await;
    crate::common::wait_for_log(&log, "built");
    let before = settled_map(&kept, "double_it").await;
    assert_eq!(srv_map(&kept).await, before, "unchanged: the same map");
    // A new function that 20 files start to call, and a file that leaves.
    fx.write(
        "src/extra.rs",
        "pub fn triple_it(x: u64) -> u64 {\n    x * 3\n}\n",
    );
    for k in 0..20 {
        fx.write(
            &format!("many/m{k:02}.py"),
            format!("from lib import double_it, triple_it\n\n\ndef use{k}(v):\n    return triple_it(double_it(v))\n"),
        );
    }
    std::fs::remove_file(fx.root.join("many/m29.py")).unwrap();
    let after = settled_map(&kept, "triple_it").await;
    assert!(
        after.contains("  1: pub fn triple_it(x: u64) -> u64 {"),
        "{after}"
    );
    // A server that never held a map makes the same one.
    let fresh_idx = fx.base().join("index-fresh");
    let fresh_log = fx.base().join("log-fresh");
    let fresh = crate::common::Server::start_logged(
        &[fx.root.as_path()],
        &["--index-dir", fresh_idx.to_str().unwrap()],
        &fresh_log,
    )
    .await;
    crate::common::wait_for_log(&fresh_log, "built");
    assert_eq!(settled_map(&fresh, "triple_it").await, after);
    fresh.shutdown().await;
    kept.shutdown().await;
}

async fn srv_map(srv: &crate::common::Server) -> String {
    srv.ok("repo_map", json!({})).await.text
}

#[tokio::test]
async fn the_repo_map_ranks_the_used_definition_first_within_the_budget() {
    let fx = fixture();
    let (srv, _log) = fx.serve_indexed().await;
    // The records are made after the index: wait for them.
    let mut text = String::new();
    for _ in 0..100 {
        let a = srv.ok("repo_map", json!({})).await;
        text = a.text;
        if text.contains("double_it") {
            assert_eq!(a.structured["content"], text.as_str());
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(text.starts_with("## repo_map: .\n\n"), "{text}");
    // Used from 31 files: the first definition of the map.
    let first = text.lines().nth(2).unwrap_or("");
    assert_eq!(first, "src/lib.rs:", "{text}");
    assert!(
        text.contains("  2: pub fn double_it(x: u64) -> u64 {"),
        "{text}"
    );
    let small = srv.ok("repo_map", json!({"max_output_bytes": 1000})).await;
    assert!(small.text.len() <= 1000, "{}", small.text);
    assert!(small.text.contains("[map: "), "{}", small.text);
    assert_eq!(small.structured["truncated"], true);
    let e = srv
        .layout_err("repo_map", json!({"path": "../outside"}))
        .await;
    assert!(!e.short.is_empty());
    srv.shutdown().await;
}

#[tokio::test]
async fn a_first_page_counts_the_files_after_it_as_the_whole_search_does() {
    let fx = fixture();
    // C files: a forward declaration (set aside), a comment and two uses each.
    for k in 0..150 {
        fx.write(
            &format!("c/f{k:03}.c"),
            format!(
                "struct double_it;\n/* double_it, twice */\nint g{k}(void)\n{{\n\treturn double_it(1) + double_it(2);\n}}\n"
            ),
        );
    }
    // A header of macros only, using the name.
    fx.write(
        "c/macros.h",
        "#define TWICE(x) double_it(double_it(x))\n#define ONCE(x) double_it(x)\n",
    );
    for e in walk_files(&fx.root) {
        date_back(&e);
    }
    let (srv, _log) = fx.serve_indexed().await;
    wait_recorded(&srv, "double_it").await;
    let whole = srv
        .ok(
            "find_references",
            json!({"name": "double_it", "max_output_bytes": 100_000}),
        )
        .await;
    let head = whole.text.lines().nth(2).unwrap().to_string();
    assert!(
        head.starts_with("366 uses of `double_it` in 183 files")
            && head.contains("151 on definition lines set aside"),
        "{head}"
    );
    assert!(
        whole.structured.get("next_cursor").is_none(),
        "{}",
        whole.text
    );
    // Small first pages count the files after them; the pages after, followed by their
    // cursors, are the whole answer.
    for room in [700, 1500, 4000] {
        let mut paged = Vec::new();
        let mut cursor: Option<String> = None;
        for k in 0..1000 {
            let mut args = json!({"name": "double_it", "max_output_bytes": room});
            if let Some(c) = &cursor {
                args["cursor"] = json!(c);
            }
            let p = srv.ok("find_references", args).await;
            if k == 0 {
                assert_eq!(p.text.lines().nth(2).unwrap(), head, "{}", p.text);
                assert!(p.text.contains("of 366 shown; pass cursor"), "{}", p.text);
            }
            paged.extend(uses(&p.text));
            match p.structured.get("next_cursor").and_then(|c| c.as_str()) {
                Some(c) => cursor = Some(c.to_string()),
                None => break,
            }
        }
        assert_eq!(paged, uses(&whole.text), "pages of {room} bytes");
    }
    srv.shutdown().await;
}
