//! `grep_content` through the server: the grep_content contract's hint format, the grep_content contract's hint rules, the
//! structured result, the cursor, bad input, and freshness between calls.

use serde_json::{Value, json};

use crate::common::{Answer, Fixture, text_of};

/// The `File: ...` header lines of a grep answer.
fn headers(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("File: ")).collect()
}

/// the grep_content contract's example: a [DECISION] entry at line 120, the next [LOG- at 145, no header after.
fn work_md() -> String {
    let mut lines = vec!["# Work".to_string(), "## Log".to_string()];
    let mut n = 0;
    while lines.len() < 119 {
        if lines.len() % 2 == 0 {
            n += 1;
            lines.push(format!("[LOG-{n:03}] - [2026-01-27] - [NOTE] - Task: T"));
        } else {
            lines.push("body".into());
        }
    }
    lines.push("[LOG-015] - [2026-01-27 10:00] - [DECISION] - Task: MODEL-A".into());
    for i in 121..=144 {
        lines.push(format!("decision body {i}"));
    }
    lines.push("[LOG-016] - [2026-01-27 11:00] - [NOTE] - Task: MODEL-B".into());
    lines.push("last".into());
    lines.join("\n") + "\n"
}

#[tokio::test]
async fn spec_000_example_hint_format() {
    let fx = Fixture::new();
    let text = work_md();
    assert_eq!(
        text.lines().nth(119).unwrap(),
        "[LOG-015] - [2026-01-27 10:00] - [DECISION] - Task: MODEL-A"
    );
    assert!(text.lines().nth(144).unwrap().starts_with("[LOG-016]"));
    let (decision, next) = (120, 145);
    fx.write("WORK.md", &text);
    let srv = fx.serve().await;
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": r"\[DECISION\]", "search_path": "WORK.md"}),
        )
        .await;
    assert!(!g.is_error, "{}", g.text);
    // the grep_content contract's line, and (a markdown file) the heading section the entry sits in.
    let want = "File: WORK.md, Line: 120, Section-End-Hint: 144 (next: ^\\[LOG-), Section: #log (lines 2-146)\n---\n[LOG-015] - [2026-01-27 10:00] - [DECISION] - Task: MODEL-A\n---\n";
    assert!(g.text.starts_with(want), "{}", g.text);
    let m = &g.structured["matches"][0];
    assert_eq!(m["line"], decision);
    assert_eq!(m["section_end_hint"]["end_line"], next - 1);
    assert_eq!(m["section_end_hint"]["next"], r"^\[LOG-");
    srv.shutdown().await;
}

/// Lines: 1 "# Title", 2 "intro", 3 "## A", 4 "[LOG-1] x DECISION", 5 "body",
/// 6 "[LOG-2] y", 7 "## B", 8 "[LOG-3] DECISION", 9 "body".
const SECTIONED: &str =
    "# Title\nintro\n## A\n[LOG-1] x DECISION\nbody\n[LOG-2] y\n## B\n[LOG-3] DECISION\nbody\n";

#[tokio::test]
async fn spec_001_hint_rules() {
    let fx = Fixture::new();
    fx.write("WORK.md", SECTIONED);
    fx.write("plain.c", "int x; /* DECISION */\n");
    let srv = fx.serve().await;

    // Defaults: the nearest boundary after the match ends its section: [LOG-2] on line 6,
    // before "## B" on line 7. The markdown file's hits name their heading sections.
    let g = srv
        .answer("grep_content", json!({"pattern": "DECISION"}))
        .await;
    assert_eq!(
        headers(&g.text),
        vec![
            "File: WORK.md, Line: 4, Section-End-Hint: 5 (next: ^\\[LOG-), Section: #a (lines 3-6)",
            "File: WORK.md, Line: 8, Section-End-Hint: 9 (end of file), Section: #b (lines 7-9)",
            // No boundary in a C file: no section hint; C is parsed, so its symbol is named.
            "File: plain.c, Line: 1, Symbol: x (lines 1-1)",
        ]
    );
    assert_eq!(g.structured["matches"][2]["section_end_hint"], Value::Null);

    // A caller's list replaces the defaults.
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "DECISION", "section_patterns": [r"^\[LOG-"]}),
        )
        .await;
    assert_eq!(
        headers(&g.text)[0],
        "File: WORK.md, Line: 4, Section-End-Hint: 5 (next: ^\\[LOG-), Section: #a (lines 3-6)"
    );

    // The nearest boundary wins, whatever its place in the list; when several patterns match
    // that line, the first in list order is credited.
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "DECISION", "section_patterns": ["^## ", r"^\[LOG-\d", r"^\[LOG-"]}),
        )
        .await;
    assert_eq!(
        headers(&g.text)[0],
        "File: WORK.md, Line: 4, Section-End-Hint: 5 (next: ^\\[LOG-\\d), Section: #a (lines 3-6)"
    );

    // [] disables hints.
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "DECISION", "section_patterns": []}),
        )
        .await;
    assert!(!g.text.contains("Section-End-Hint"), "{}", g.text);
    assert!(
        g.structured["matches"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["section_end_hint"].is_null())
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn results_are_sorted_filtered_and_structured() {
    let fx = Fixture::new();
    fx.write(".ignore", "skipped/\n");
    fx.write("b/two.rs", "fn needle() {}\nneedle again\n");
    fx.write("a/one.md", "x\nNeedle\nneedle\n");
    fx.write("skipped/three.rs", "needle\n");
    fx.write(".hidden/four.rs", "needle\n");
    fx.write("bin.dat", b"needle\0\x01".as_slice());
    let srv = fx.serve().await;

    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "needle", "section_patterns": []}),
        )
        .await;
    let keys: Vec<(String, u64)> = g.structured["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["path"].as_str().unwrap().to_string(),
                m["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        keys,
        vec![
            ("a/one.md".into(), 3),
            ("b/two.rs".into(), 1),
            ("b/two.rs".into(), 2)
        ]
    );
    assert_eq!(g.structured["binary_skipped"], 1);
    assert!(
        g.text
            .contains("Skipped 1 binary file (e.g. bin.dat; list_skipped: true names them all)."),
        "{}",
        g.text
    );

    let count = |g: &Answer| g.structured["matches"].as_array().unwrap().len();
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "needle", "case_insensitive": true}),
        )
        .await;
    assert_eq!(count(&g), 4);
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "needle", "include_ignored": true, "include_hidden": true}),
        )
        .await;
    assert_eq!(count(&g), 5);
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "needle", "glob": ["*.rs"]}),
        )
        .await;
    assert_eq!(count(&g), 2);
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "needle", "glob": ["!*.rs"]}),
        )
        .await;
    assert_eq!(count(&g), 1);
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "needle", "word": true, "search_path": "b"}),
        )
        .await;
    assert_eq!(count(&g), 2);
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "fn needle()", "fixed_strings": true}),
        )
        .await;
    assert_eq!(count(&g), 1);
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "Needle", "context_lines": 1}),
        )
        .await;
    let m = &g.structured["matches"][0];
    assert_eq!(m["context"]["before"], json!([{"line": 1, "text": "x"}]));
    assert_eq!(
        m["context"]["after"],
        json!([{"line": 3, "text": "needle"}])
    );
    assert!(
        g.text.contains("1- x\n2: Needle\n3- needle\n"),
        "{}",
        g.text
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn a_cut_result_continues_exactly_with_its_cursor() {
    let fx = Fixture::new();
    for f in 0..5 {
        let body: String = (1..=30).map(|i| format!("hit {f}-{i}\n")).collect();
        fx.write(&format!("f{f}.txt"), body);
    }
    let srv = fx.serve().await;
    let all = srv
        .answer(
            "grep_content",
            json!({"pattern": "hit", "max_results": 1000}),
        )
        .await;
    assert_eq!(all.structured["truncated"], false);
    let want: Vec<Value> = all.structured["matches"].as_array().unwrap().clone();
    assert_eq!(want.len(), 150);

    let mut got = Vec::new();
    let mut cursor: Option<String> = None;
    let mut calls = 0;
    loop {
        let mut args = json!({"pattern": "hit", "max_results": 40});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let g = srv.answer("grep_content", args).await;
        calls += 1;
        got.extend(g.structured["matches"].as_array().unwrap().iter().cloned());
        if g.structured["truncated"] == true {
            let c = g.structured["next_cursor"].as_str().unwrap().to_string();
            assert!(g.text.contains(&format!("cursor: \"{c}\"")), "{}", g.text);
            cursor = Some(c);
        } else {
            break;
        }
    }
    assert_eq!(calls, 4);
    assert_eq!(got, want);
    srv.shutdown().await;
}

#[tokio::test]
async fn bad_input_gets_the_spec_001_layout_and_the_server_keeps_serving() {
    let fx = Fixture::new();
    fx.write("a.txt", "needle\n");
    let srv = fx.serve().await;
    for (args, short) in [
        (json!({"pattern": "a(b"}), "Error: Invalid regex in pattern"),
        (
            json!({"pattern": r"\w{1000}{1000}"}),
            "Error: Regex too large in pattern",
        ),
        (json!({"pattern": ""}), "Error: Empty pattern"),
        (
            json!({"pattern": "x", "search_path": "../"}),
            "Error: search_path outside the allowed roots",
        ),
        (
            json!({"pattern": "x", "search_path": "missing"}),
            "Error: search_path not found",
        ),
        (
            json!({"pattern": "x", "section_patterns": ["("]}),
            "Error: Invalid regex in section_patterns",
        ),
        (
            json!({"pattern": "x", "cursor": "nonsense"}),
            "Error: Invalid cursor",
        ),
    ] {
        let g = srv.answer("grep_content", args.clone()).await;
        assert!(g.is_error, "{args}: {}", g.text);
        assert!(
            g.text.starts_with(&format!("{short}\n\nYou provided: ")),
            "{args}: {}",
            g.text
        );
        assert!(
            g.text.contains("\nProblem: ") && g.text.contains("\nFix: "),
            "{}",
            g.text
        );
    }
    let g = srv
        .answer("grep_content", json!({"pattern": "needle"}))
        .await;
    assert_eq!(headers(&g.text), vec!["File: a.txt, Line: 1"]);
    srv.shutdown().await;
}

#[tokio::test]
async fn every_change_between_calls_shows_in_the_next_call() {
    let fx = Fixture::new();
    fx.write("keep.txt", "needle 1\n");
    fx.write("gone.txt", "needle 2\n");
    fx.write("edit.txt", "nothing\n");
    let srv = fx.serve().await;
    let names = |g: &Answer| -> Vec<String> {
        g.structured["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| format!("{}:{}", m["path"].as_str().unwrap(), m["line"]))
            .collect()
    };
    for _ in 0..2 {
        let g = srv
            .answer("grep_content", json!({"pattern": "needle"}))
            .await;
        assert_eq!(names(&g), vec!["gone.txt:1", "keep.txt:1"]);
    }
    fx.write("new.txt", "x\nneedle 3\n");
    fx.write("edit.txt", "needle!\n");
    std::fs::remove_file(fx.root.join("gone.txt")).unwrap();
    for _ in 0..2 {
        let g = srv
            .answer("grep_content", json!({"pattern": "needle"}))
            .await;
        assert_eq!(names(&g), vec!["edit.txt:1", "keep.txt:1", "new.txt:2"]);
    }
    srv.shutdown().await;
}

#[tokio::test]
async fn two_million_matches_come_back_bounded_and_cut() {
    let fx = Fixture::new();
    fx.write("many.txt", "x\n".repeat(2_000_000));
    let srv = fx.serve().await;
    let g = srv.answer("grep_content", json!({"pattern": "x"})).await;
    assert_eq!(g.structured["matches"].as_array().unwrap().len(), 100);
    assert_eq!(g.structured["truncated"], true);
    assert_eq!(g.structured["next_cursor"], "101:many.txt");
    assert!(g.text.len() < 64 * 1024);
    srv.shutdown().await;
}

#[tokio::test]
async fn matches_in_code_name_their_enclosing_symbol() {
    let fx = Fixture::new();
    fx.write(
        "src/app.ts",
        "import { a } from 'a';\n\nexport class App {\n  run() {\n    return a; // MARK\n  }\n}\n// MARK at top level\n",
    );
    fx.write(
        "src/lib.rs",
        "impl Foo {\n    fn new() -> Foo {\n        Foo // MARK\n    }\n}\n",
    );
    fx.write("notes.txt", "MARK in text\n");
    let srv = fx.serve().await;
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "MARK", "section_patterns": []}),
        )
        .await;
    assert!(!g.is_error, "{}", g.text);
    assert_eq!(
        headers(&g.text),
        [
            "File: notes.txt, Line: 1",
            "File: src/app.ts, Line: 5, Symbol: App.run (lines 4-6)",
            "File: src/app.ts, Line: 8",
            "File: src/lib.rs, Line: 3, Symbol: Foo.new (lines 2-4)",
        ]
    );
    let m = &g.structured["matches"];
    assert_eq!(m[0]["symbol"], Value::Null);
    assert_eq!(
        m[1]["symbol"],
        json!({"name": "App.run", "start_line": 4, "end_line": 6})
    );
    assert_eq!(m[2]["symbol"], Value::Null);
    assert_eq!(m[3]["symbol"]["name"], "Foo.new");
    // The name reads exactly that symbol.
    let r = srv
        .call(
            "file_read",
            json!({"file": "src/app.ts", "target": "App.run"}),
        )
        .await
        .unwrap();
    assert!(text_of(&r).contains("  run() {\n    return a; // MARK\n  }\n"));
    srv.shutdown().await;
}

/// The 3,001-line work log of the report: a hit inside a `[LOG-` entry ends before the next
/// entry, not at the `## ` heading at the end of the file, and the entry's start is given.
#[tokio::test]
async fn hints_take_the_nearest_boundary_and_give_the_section_start() {
    let fx = Fixture::new();
    let mut lines: Vec<String> = vec![
        "# Work Log".into(),
        String::new(),
        "## 1. Current Understanding".into(),
        "text".into(),
        String::new(),
        "## 2. Key Events".into(),
        String::new(),
        "intro".into(),
        String::new(),
    ];
    let mut k = 0;
    while lines.len() < 3000 {
        lines.push(format!("[LOG-{k:06}] - [2026-01-27] - [NOTE] - Task: T{k}"));
        for j in 1..12 {
            if lines.len() < 3000 {
                lines.push(if k == 92 && j == 4 {
                    "NEEDLE here".into()
                } else {
                    format!("body {k}.{j}")
                });
            }
        }
        k += 1;
    }
    lines.push("## 4. Next Steps".into());
    assert_eq!(lines.len(), 3001);
    assert_eq!(
        lines[1113],
        "[LOG-000092] - [2026-01-27] - [NOTE] - Task: T92"
    );
    let text = lines.join("\n") + "\n";
    fx.write("WORK.md", &text);
    fx.write("work.log", &text);
    let srv = fx.serve().await;
    let g = srv
        .answer("grep_content", json!({"pattern": "NEEDLE"}))
        .await;
    // In a plain file and in a markdown file alike (its section named there too).
    assert_eq!(
        headers(&g.text),
        [
            r"File: WORK.md, Line: 1118, Section-End-Hint: 1125 (next: ^\[LOG-), Section-Start: 1114, Section: #2-key-events (lines 6-3000)",
            r"File: work.log, Line: 1118, Section-End-Hint: 1125 (next: ^\[LOG-), Section-Start: 1114",
        ],
        "{}",
        g.text
    );
    srv.shutdown().await;
}

/// In a markdown file a hit's section ends at the next heading of the same or a higher level
/// than the section it is in (a deeper heading is a subsection); `#` lines in code are no
/// headings.
#[tokio::test]
async fn markdown_hints_follow_heading_levels() {
    let fx = Fixture::new();
    let doc = "# A\n## B\n### C\nhit one\n```\n## not a heading\n```\n#### D\nx\n### E\nhit two\n## F\ntext\n# G\nhit three\n";
    fx.write("doc.md", doc);
    fx.write("doc.txt", doc);
    let srv = fx.serve().await;
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "^hit", "search_path": "doc.md"}),
        )
        .await;
    assert_eq!(
        headers(&g.text),
        [
            "File: doc.md, Line: 4, Section-End-Hint: 9 (next: ^#{1,3} ), Section-Start: 3, Section: #c (lines 3-9)",
            "File: doc.md, Line: 11, Section-End-Hint: 11 (next: ^#{1,3} ), Section-Start: 10, Section: #e (lines 10-11)",
            "File: doc.md, Line: 15, Section-End-Hint: 15 (end of file), Section-Start: 14, Section: #g (lines 14-15)",
        ],
        "{}",
        g.text
    );
    // A plain file: the nearest line matching a default pattern (`## ` inside the fence too).
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "^hit one", "search_path": "doc.txt"}),
        )
        .await;
    assert_eq!(
        headers(&g.text),
        ["File: doc.txt, Line: 4, Section-End-Hint: 5 (next: ^## ), Section-Start: 2"]
    );
    // The caller's patterns apply as given, in markdown files too.
    let g = srv
        .answer(
            "grep_content",
            json!({"pattern": "^hit one", "search_path": "doc.md", "section_patterns": ["^#### "]}),
        )
        .await;
    assert_eq!(
        headers(&g.text),
        ["File: doc.md, Line: 4, Section-End-Hint: 7 (next: ^#### ), Section: #c (lines 3-9)"]
    );
    srv.shutdown().await;
}

/// git's global excludes file is an ignore source like the others: a line added to it while
/// the server runs hides the file from the next search.
#[tokio::test]
async fn a_running_server_honours_a_changed_global_excludes_file() {
    let fx = Fixture::new();
    std::fs::create_dir_all(fx.root.join(".git")).unwrap();
    fx.write("a.txt", "needle\n");
    fx.write("b.txt", "needle\n");
    let config = fx.base().join("config");
    std::fs::create_dir_all(config.join("git")).unwrap();
    std::fs::write(config.join("git/ignore"), "").unwrap();
    // Everything old: the server's file list is trusted, not rebuilt on every call.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let age = |p: &std::path::Path| mapgrep::platform::test_support::set_mtime(p, old).unwrap();
    for p in [
        fx.root.join("a.txt"),
        fx.root.join("b.txt"),
        fx.root.join(".git"),
        fx.root.clone(),
    ] {
        age(&p);
    }
    age(&config.join("git/ignore"));
    let srv = crate::common::Server::start_env(
        &[fx.root.as_path()],
        &[],
        &[("XDG_CONFIG_HOME", config.as_path()), ("HOME", fx.base())],
    )
    .await;
    let files = |g: &Answer| -> Vec<String> {
        headers(&g.text)
            .iter()
            .map(|h| h.split(',').next().unwrap().to_string())
            .collect()
    };
    let g = srv
        .answer("grep_content", json!({"pattern": "needle"}))
        .await;
    assert_eq!(files(&g), ["File: a.txt", "File: b.txt"]);
    let g = srv
        .answer("grep_content", json!({"pattern": "needle"}))
        .await;
    assert_eq!(files(&g), ["File: a.txt", "File: b.txt"]);
    std::fs::write(config.join("git/ignore"), "a.txt\n").unwrap();
    age(&config.join("git/ignore"));
    let g = srv
        .answer("grep_content", json!({"pattern": "needle"}))
        .await;
    assert_eq!(files(&g), ["File: b.txt"], "{}", g.text);
    srv.shutdown().await;
}

/// `output_mode`: paths (as `rg -l`) and `path:count` (as `rg -c`), one result per file,
/// `max_results` counting files, and cursors that lose no file and count each one whole.
#[tokio::test]
async fn output_modes_list_files_and_counts() {
    let fx = Fixture::new();
    fx.write("a.txt", "hit 1\nno\nhit 2\nhit 3\n");
    fx.write("b/c.rs", "// hit in a comment\nfn main() {}\n");
    fx.write("d.md", "nothing here\n");
    fx.write("e.txt", "x\nhit\nhit again\n");
    let srv = fx.serve().await;
    let files = srv
        .answer(
            "grep_content",
            json!({"pattern": "hit", "output_mode": "files_with_matches"}),
        )
        .await;
    assert!(!files.is_error, "{}", files.text);
    assert!(
        files
            .text
            .starts_with("a.txt\nb/c.rs\ne.txt\nFound 3 files with matches"),
        "{}",
        files.text
    );
    let counts = srv
        .answer(
            "grep_content",
            json!({"pattern": "hit", "output_mode": "count"}),
        )
        .await;
    assert!(
        counts
            .text
            .starts_with("a.txt:3\nb/c.rs:1\ne.txt:2\nFound 6 matching lines in 3 files"),
        "{}",
        counts.text
    );
    // Pages of one file each: every file once, each counted whole.
    let (mut seen, mut cursor) = (Vec::new(), None::<String>);
    for _ in 0..5 {
        let mut args = json!({"pattern": "hit", "output_mode": "count", "max_results": 1});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = srv.answer("grep_content", args).await;
        seen.push(page.text.lines().next().unwrap().to_string());
        match page.structured["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, ["a.txt:3", "b/c.rs:1", "e.txt:2"]);
    let bad = srv
        .answer(
            "grep_content",
            json!({"pattern": "hit", "output_mode": "lines"}),
        )
        .await;
    assert!(
        bad.is_error && bad.text.contains("output_mode"),
        "{}",
        bad.text
    );
    srv.shutdown().await;
}

/// The names agents bring from other tools: `path` for the search path of every tool that
/// searches (Claude Code's `Grep`), `start_line`/`end_line` for `file_read`'s range (as
/// `read_files` names it); the contract's names stay, and the answers are the same.
#[tokio::test]
async fn path_and_snake_case_line_names_are_accepted_as_aliases() {
    let fx = Fixture::new();
    fx.write(
        "src/lib.rs",
        "pub fn alpha() -> u32 {\n    beta()\n}\n\nfn beta() -> u32 {\n    2\n}\n",
    );
    fx.write("notes/alpha.md", "alpha is documented here\n");
    // No index: one that becomes ready between the two calls of a pair changes what the
    // second says of where it looked.
    let srv = fx.serve_with(&["--no-index"]).await;
    let pairs = [
        (
            "grep_content",
            json!({"pattern": "alpha", "search_path": "src"}),
            json!({"pattern": "alpha", "path": "src"}),
        ),
        (
            "find_definition",
            json!({"name": "beta", "search_path": "src"}),
            json!({"name": "beta", "path": "src"}),
        ),
        (
            "find_references",
            json!({"name": "beta", "search_path": "src"}),
            json!({"name": "beta", "path": "src"}),
        ),
        (
            "file_read",
            json!({"file": "src/lib.rs", "startLine": 5, "endLine": 7}),
            json!({"path": "src/lib.rs", "start_line": 5, "end_line": 7}),
        ),
    ];
    for (tool, contract, alias) in pairs {
        let a = srv.answer(tool, contract).await;
        let b = srv.answer(tool, alias).await;
        assert!(!a.is_error && !b.is_error, "{tool}: {}\n{}", a.text, b.text);
        assert_eq!(a.text, b.text, "{tool}");
    }
    let a = srv
        .answer("grep_content", json!({"pattern": "alpha", "path": "src"}))
        .await;
    assert!(!a.text.contains("notes/alpha.md"), "{}", a.text);
    srv.shutdown().await;
}
