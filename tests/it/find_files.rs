//! `find_files` through the real server: the lists `rg --files -g` gives (globs that include,
//! exclude, anchor and match at any depth; ignored and hidden files; a glob that includes a
//! hidden name), the same from a ready index as from a walk, what the ignore rules hid,
//! pages that make the whole list, files created and deleted seen at once, both views, and
//! the errors.

use serde_json::json;

use crate::common::{Fixture, Server, date_back};

fn fixture() -> Fixture {
    let fx = Fixture::new();
    std::fs::create_dir_all(fx.root.join(".git")).unwrap();
    let files = [
        (".gitignore", "build/\n*.log\n"),
        ("Makefile", "all:\n"),
        ("README.md", "# r\n"),
        ("src/main.rs", "fn main() {}\n"),
        ("src/lib.rs", "pub fn f() {}\n"),
        ("src/util/mod.rs", "pub mod x;\n"),
        ("src/util/x.rs", "pub fn x() {}\n"),
        ("src/util.rs.bak", "old\n"),
        ("src/Makefile", "x:\n"),
        ("vendor/dep/lib.rs", "pub fn d() {}\n"),
        ("build/out.rs", "// built\n"),
        ("run.log", "log\n"),
        (".hidden/secret.rs", "fn s() {}\n"),
        ("manual/.gitignore", "*.tmp\n"),
        ("manual/guide.md", "# g\n"),
        ("manual/draft.tmp", "tmp\n"),
        ("data/blob.bin", "\0\0\0binary"),
    ];
    for (rel, text) in files {
        let p = fx.write(rel, text);
        date_back(&p);
    }
    fx
}

/// The paths of an answer (its lines before the summary).
fn paths(text: &str) -> Vec<String> {
    text.lines()
        .take_while(|l| {
            !(l.ends_with(" match.") || l.starts_with("Files ") || l.starts_with("No files"))
        })
        .map(String::from)
        .collect()
}

async fn list(srv: &Server, args: serde_json::Value) -> Vec<String> {
    let a = srv.ok("find_files", args).await;
    assert_eq!(
        a.structured["content"].as_str(),
        Some(a.text.as_str()),
        "both views"
    );
    paths(&a.text)
}

/// Each case: the call's arguments and the files `rg --files -g` lists for them (sorted by
/// path, component by component).
fn cases() -> Vec<(serde_json::Value, Vec<&'static str>)> {
    vec![
        (
            json!({"pattern": "*.rs"}),
            vec![
                "src/lib.rs",
                "src/main.rs",
                "src/util/mod.rs",
                "src/util/x.rs",
                "vendor/dep/lib.rs",
            ],
        ),
        (
            json!({"pattern": ["*.rs", "!vendor/**"]}),
            vec![
                "src/lib.rs",
                "src/main.rs",
                "src/util/mod.rs",
                "src/util/x.rs",
            ],
        ),
        (
            json!({"pattern": "Makefile"}),
            vec!["Makefile", "src/Makefile"],
        ),
        (
            json!({"pattern": "src/*.rs"}),
            vec!["src/lib.rs", "src/main.rs"],
        ),
        (
            json!({"pattern": "*.rs", "path": "src/util"}),
            vec!["src/util/mod.rs", "src/util/x.rs"],
        ),
        (
            json!({"pattern": ["!*.rs"], "path": "src"}),
            vec!["src/Makefile", "src/util.rs.bak"],
        ),
        (json!({"pattern": "*.bin"}), vec!["data/blob.bin"]),
        // A glob that includes a hidden name lists it, as ripgrep's overrides do.
        (
            json!({"pattern": ".gitignore"}),
            vec![".gitignore", "manual/.gitignore"],
        ),
        // An ignored file a glob includes is listed; in an ignored directory, it is not.
        (json!({"pattern": "*.log"}), vec!["run.log"]),
        (json!({"pattern": "out.rs"}), vec![]),
        (
            json!({"pattern": "*.rs", "include_ignored": true}),
            vec![
                "build/out.rs",
                "src/lib.rs",
                "src/main.rs",
                "src/util/mod.rs",
                "src/util/x.rs",
                "vendor/dep/lib.rs",
            ],
        ),
        (
            json!({"pattern": "*.rs", "include_hidden": true, "path": "."}),
            vec![
                ".hidden/secret.rs",
                "src/lib.rs",
                "src/main.rs",
                "src/util/mod.rs",
                "src/util/x.rs",
                "vendor/dep/lib.rs",
            ],
        ),
        (
            json!({"pattern": "*.md"}),
            vec!["README.md", "manual/guide.md"],
        ),
        // `*` includes every name, directories too: the hidden and ignored ones are entered.
        (
            json!({"pattern": "*"}),
            vec![
                ".gitignore",
                ".hidden/secret.rs",
                "Makefile",
                "README.md",
                "build/out.rs",
                "data/blob.bin",
                "manual/.gitignore",
                "manual/draft.tmp",
                "manual/guide.md",
                "run.log",
                "src/Makefile",
                "src/lib.rs",
                "src/main.rs",
                "src/util/mod.rs",
                "src/util/x.rs",
                "src/util.rs.bak",
                "vendor/dep/lib.rs",
            ],
        ),
    ]
}

async fn check_cases(srv: &Server, how: &str) {
    for (args, want) in cases() {
        let got = list(srv, args.clone()).await;
        assert_eq!(got, want, "{how}: {args}");
    }
}

#[tokio::test]
async fn the_lists_rg_files_gives_from_a_walk_and_from_the_index() {
    let fx = fixture();
    let srv = fx.serve_with(&["--no-index"]).await;
    check_cases(&srv, "walked").await;
    let walked = srv.ok("find_files", json!({"pattern": "*.rs"})).await;
    assert!(walked.text.contains("5 files match."), "{}", walked.text);
    assert!(!walked.text.contains("Hidden"), "{}", walked.text);
    srv.shutdown().await;

    let (srv, _log) = fx.serve_indexed().await;
    check_cases(&srv, "from the index").await;
    // What the ignore rules hid: `.git`, `.hidden` and `build` kept the walk out; `run.log`,
    // `manual/draft.tmp` and the `.gitignore` files match no glob of this call.
    let a = srv.ok("find_files", json!({"pattern": "*.rs"})).await;
    assert!(
        a.text
            .contains("Hidden or .gitignored, not listed: 3 directories not entered"),
        "{}",
        a.text
    );
    let a = srv.ok("find_files", json!({"pattern": "!*.rs"})).await;
    assert!(
        a.text.contains(
            "Hidden or .gitignored, not listed: 4 files that match, 3 directories not entered"
        ),
        "{}",
        a.text
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn pages_make_the_whole_list_and_edits_show_at_once() {
    let fx = fixture();
    for k in 0..120 {
        date_back(&fx.write(&format!("many/file{k:03}.txt"), "x\n"));
    }
    let (srv, _log) = fx.serve_indexed().await;
    let whole = list(&srv, json!({"pattern": "many/*.txt"})).await;
    assert_eq!(whole.len(), 120);
    let (mut seen, mut cursor, mut pages) = (Vec::new(), None::<String>, 0);
    loop {
        let mut args = json!({"pattern": "many/*.txt", "max_output_bytes": 1000});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let a = srv.ok("find_files", args).await;
        assert!(a.text.len() <= 1000, "{}", a.text);
        seen.extend(paths(&a.text));
        pages += 1;
        match a.structured["next_cursor"].as_str() {
            Some(c) => {
                assert_eq!(a.structured["truncated"], json!(true));
                assert!(a.text.contains(&format!("cursor: \"{c}\"")), "{}", a.text);
                cursor = Some(c.to_string());
            }
            None => break,
        }
    }
    assert!(pages > 2, "{pages} pages");
    assert_eq!(seen, whole);

    // A file created and one deleted: the next call has them, before the index updates.
    fx.write("src/new.rs", "fn n() {}\n");
    std::fs::remove_file(fx.root.join("src/lib.rs")).unwrap();
    let got = list(&srv, json!({"pattern": "src/**/*.rs"})).await;
    assert_eq!(
        got,
        [
            "src/main.rs",
            "src/new.rs",
            "src/util/mod.rs",
            "src/util/x.rs"
        ]
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn bad_globs_and_paths_are_explained() {
    let fx = fixture();
    let srv = fx.serve_with(&["--no-index"]).await;
    let e = srv.err("find_files", json!({"pattern": "src/{a"})).await;
    assert!(e.contains("Invalid glob"), "{e}");
    let e = srv
        .err("find_files", json!({"pattern": "*", "path": "../.."}))
        .await;
    assert!(e.contains("outside the allowed roots"), "{e}");
    let a = srv.ok("find_files", json!({"pattern": "*.nothing"})).await;
    assert!(a.text.starts_with("No files match."), "{}", a.text);
    // The contract's alias names.
    let a = list(&srv, json!({"glob": ["Makefile"], "search_path": "src"})).await;
    assert_eq!(a, ["src/Makefile"]);
    srv.shutdown().await;
}
