//! `mapgrep read`, `outline` and `symbol` on the command line.

use std::process::{Command, Output};

use crate::common::{BIN, Fixture, walk_files};

const LOG: &str = "\
# Log
[LOG-001] - first
body a
body b
[LOG-002] - second
body c
";

fn read(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("read")
        .args(args)
        .output()
        .expect("run mapgrep read")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 stderr")
}

#[test]
fn read_to_next_pattern_prints_numbered_lines() {
    let fx = Fixture::new();
    let f = fx.abs("log.md");
    fx.write("log.md", LOG);
    let o = read(&[&f, "--start", "2", "--to-next", r"^\[LOG-"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "2  [LOG-001] - first\n3  body a\n4  body b\n");
    assert_eq!(stderr(&o), "");
}

#[test]
fn read_to_next_pattern_not_found_notes_on_stderr() {
    let fx = Fixture::new();
    let f = fx.abs("log.md");
    fx.write("log.md", LOG);
    let o = read(&[&f, "--start", "5", "--to-next", r"^\[LOG-"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "5  [LOG-002] - second\n6  body c\n");
    assert_eq!(
        stderr(&o),
        "Note: Pattern '^\\[LOG-' not found after line 5. Read to end of file.\n"
    );
}

#[test]
fn plain_reads_and_no_line_numbers() {
    let fx = Fixture::new();
    let text: String = (1..=12).map(|i| format!("l{i}\n")).collect();
    fx.write("twelve.txt", &text);
    let f = fx.abs("twelve.txt");
    // Numbers are right-aligned to the width of the last line number.
    let o = read(&[&f, "--start", "8", "--end", "10"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), " 8  l8\n 9  l9\n10  l10\n");
    let o = read(&[&f, "--head", "2", "-N"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "l1\nl2\n");
    let o = read(&[&f, "--tail", "1"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "12  l12\n");
    // A path relative to the current directory.
    let o = Command::new(BIN)
        .args(["read", "twelve.txt", "--head", "1"])
        .current_dir(&fx.root)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "1  l1\n");
}

#[test]
fn start_past_the_end_exits_2_with_a_message() {
    let fx = Fixture::new();
    let f = fx.abs("log.md");
    fx.write("log.md", LOG);
    let o = read(&[&f, "--start", "999", "--to-next", r"^\[LOG-"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert!(
        err.starts_with("Error: --start is past the end of the file\n"),
        "{err}"
    );
    // The command line speaks its own words: flags and commands, never a tool or a parameter.
    assert!(
        err.ends_with("Tip: Use `mapgrep grep` to find valid line numbers first\n"),
        "{err}"
    );
    assert!(err.contains("Problem: "), "{err}");
    assert!(err.contains("Fix: "), "{err}");
    let o = read(&[&f, "--start", "999"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--start is past the end"));
}

#[test]
fn head_with_tail_exits_2_with_a_message() {
    let fx = Fixture::new();
    let f = fx.abs("log.md");
    fx.write("log.md", LOG);
    let o = read(&[&f, "--head", "1", "--tail", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert!(err.contains("--head") && err.contains("--tail"), "{err}");
}

#[test]
fn other_bad_input_exits_2_with_a_message() {
    let fx = Fixture::new();
    let f = fx.abs("log.md");
    fx.write("log.md", LOG);
    let cases: [&[&str]; 5] = [
        &[&f, "--to-next", "^#"],                // needs --start
        &[&f, "--start", "2", "--to-next", "("], // bad regex
        &[&f, "--start", "3", "--end", "2"],     // end before start
        &[&f, "--head", "0"],                    // not a count
        &["/nonexistent/mapgrep/file.txt"],      // missing file
    ];
    for args in cases {
        let o = read(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "", "{args:?}");
        assert!(!stderr(&o).trim().is_empty(), "{args:?}");
        assert_speaks_cli(&stderr(&o));
    }
    let o = read(&[&f, "--start", "2", "--to-next", "("]);
    assert!(
        stderr(&o).starts_with("Error: Invalid regex in --to-next"),
        "{}",
        stderr(&o)
    );
    let o = read(&["/nonexistent/mapgrep/file.txt"]);
    assert!(stderr(&o).contains("file not found"), "{}", stderr(&o));
}

const CODE_TS: &str = "\
import { a } from 'a';

/** Starts it. */
export function start() {
  return a;
}

export class App {
  run() {
    start();
  }
}
";

fn code_cmd(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run mapgrep")
}

#[test]
fn outline_prints_the_skeleton() {
    let fx = Fixture::new();
    let path = fx.write("app.ts", CODE_TS);
    let o = code_cmd(&["outline", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("**Skeleton Mode** (3 symbols)"), "{out}");
    assert!(out.contains("  [1] named-import: { a }\n"), "{out}");
    assert!(
        out.contains("  [3-6] function: start\n  [8-12] class: App\n    [9-11] method: App.run\n"),
        "{out}"
    );
}

#[test]
fn symbol_prints_symbols_and_refuses_unknown_names() {
    let fx = Fixture::new();
    let path = fx.write("app.ts", CODE_TS);
    let path = path.to_str().unwrap();
    let o = code_cmd(&["symbol", path, "App.run", "start"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("### App.run (method, lines 9-11)\n\n  run() {\n    start();\n  }\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "### start (function, lines 3-6)\n\n/** Starts it. */\nexport function start() {"
        ),
        "{out}"
    );
    // Members longer than a line are stubs unless -r.
    let o = code_cmd(&["symbol", path, "App"]);
    assert!(stdout(&o).contains("--- symbol: App.run (method, lines 9-11) ---"));
    let o = code_cmd(&["symbol", path, "App", "-r"]);
    assert!(stdout(&o).contains("    start();"));
    let o = code_cmd(&["symbol", path, "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("Error: Symbol not found"),
        "{}",
        stderr(&o)
    );
}

/// A command-line message names no MCP tool and no JSON parameter.
fn assert_speaks_cli(text: &str) {
    for word in [
        "grep_content",
        "read_files",
        "doc_toc",
        "doc_read",
        "doc_find",
        "file_read",
        "start_line",
        "end_line",
        "read_to_next_pattern",
        "fixed_strings",
        "search_path",
        ": true",
    ] {
        assert!(!text.contains(word), "{word:?} in a CLI message:\n{text}");
    }
}

#[test]
fn engine_errors_speak_cli() {
    let fx = Fixture::new();
    fx.write("app.py", "def main():\n    return 1\n");
    fx.write("notes.md", "# Intro\n\ntext\n");
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .current_dir(&fx.root)
            .output()
            .unwrap()
    };
    let cases: [(&[&str], &str); 4] = [
        (
            &["grep", "("],
            "or pass -F to search for the text literally",
        ),
        (&["grep", "x", "no/such/dir"], "Error: PATH not found"),
        (&["symbol", "app.py", "nosuch"], "`mapgrep outline`"),
        (&["section", "notes.md", "nosuch"], "`mapgrep toc`"),
    ];
    for (args, expected) in cases {
        let o = run(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_speaks_cli(&err);
    }
}

#[test]
fn completions_and_man_page_come_from_the_flag_definitions() {
    for shell in ["bash", "zsh", "fish"] {
        let o = Command::new(BIN)
            .args(["completions", shell])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let script = stdout(&o);
        assert!(script.contains("files-without-match"), "{shell}");
        assert!(script.contains("vimgrep"), "{shell}");
    }
    let o = Command::new(BIN).arg("man").output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let page = stdout(&o);
    assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{page}");
    assert!(page.contains(".TH mapgrep 1"), "{page}");
}

#[test]
fn grep_uses_a_persisted_index_and_says_so() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("tree");
    let cache = d.path().join("cache");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/a.c"), "int PM_RESUME;\n").unwrap();
    std::fs::write(root.join("src/b.c"), "nothing\n").unwrap();
    // Files written within two seconds of the build are never trusted: date them back.
    for f in ["src/a.c", "src/b.c"] {
        crate::common::date_back(&root.join(f));
    }
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .current_dir(&root)
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap()
    };
    // No index yet: a scan, and nothing said about an index.
    let o = run(&["grep", "-n", "PM_RESUME"]);
    assert_eq!(stdout(&o), "src/a.c:1:int PM_RESUME;\n");
    assert!(!stderr(&o).contains("index"), "{}", stderr(&o));
    let o = run(&["index"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("indexed 2 files"), "{}", stdout(&o));
    let o = run(&["grep", "-n", "PM_RESUME"]);
    assert_eq!(stdout(&o), "src/a.c:1:int PM_RESUME;\n");
    assert!(
        stderr(&o).contains("used the trigram index: read 1 of 2"),
        "{}",
        stderr(&o)
    );
    // A file changed after indexing is found (validated by metadata).
    std::fs::write(root.join("src/b.c"), "PM_RESUME now\n").unwrap();
    let o = run(&["grep", "-n", "PM_RESUME"]);
    assert_eq!(
        stdout(&o),
        "src/a.c:1:int PM_RESUME;\nsrc/b.c:1:PM_RESUME now\n"
    );
    // An index directory inside the tree is refused.
    let o = run(&["index", "--index-dir", "src/idx"]);
    assert!(!o.status.success());
}

#[test]
fn grep_reads_only_the_parts_of_a_large_file_the_index_names_and_numbers_them_right() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("tree");
    let cache = d.path().join("cache");
    std::fs::create_dir_all(&root).unwrap();
    // 600 KiB of lines, the word on two of them: the index names parts of such a file.
    let mut text = String::new();
    for n in 1..=3000 {
        match n {
            1500 | 2999 => text.push_str(&format!("line {n} holds PM_SUSPEND_FREEZE here\n")),
            _ => text.push_str(&format!("line {n} {}\n", "filler text ".repeat(16))),
        }
    }
    std::fs::write(root.join("big.txt"), &text).unwrap();
    crate::common::date_back(&root.join("big.txt"));
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .current_dir(&root)
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap()
    };
    let o = run(&["index"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["grep", "-n", "PM_SUSPEND_FREEZE"]);
    assert!(
        stderr(&o).contains("used the trigram index"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        stdout(&o),
        "big.txt:1500:line 1500 holds PM_SUSPEND_FREEZE here\nbig.txt:2999:line 2999 holds PM_SUSPEND_FREEZE here\n"
    );
    let o = run(&["grep", "-c", "PM_SUSPEND_FREEZE"]);
    assert_eq!(stdout(&o), "big.txt:2\n");
    // An inverted search must see every line.
    let o = run(&["grep", "-c", "-v", "PM_SUSPEND_FREEZE"]);
    assert_eq!(stdout(&o), "big.txt:2998\n");
}

/// `mapgrep index` records every file's symbols beside the trigram index (what a server's
/// lookups and grep hints read), once: a second run records nothing new; `--no-symbols`
/// builds the trigram index alone.
#[test]
fn index_records_the_symbols_once() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("tree");
    let cache = d.path().join("cache");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/a.c"),
        "int helper(void)\n{\n\treturn 1;\n}\n",
    )
    .unwrap();
    std::fs::write(root.join("src/b.txt"), "nothing\n").unwrap();
    for f in ["src/a.c", "src/b.txt"] {
        crate::common::date_back(&root.join(f));
    }
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .current_dir(&root)
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap()
    };
    let sides = || {
        walk_files(&cache)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "side"))
            .count()
    };
    let o = run(&["index", "--no-symbols"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).contains("recorded"), "{}", stdout(&o));
    assert_eq!(sides(), 0);
    let o = run(&["index"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("recorded the symbols of 2 files"),
        "{}",
        stdout(&o)
    );
    assert_eq!(sides(), 1);
    let o = run(&["index"]);
    assert!(
        stdout(&o).contains("recorded the symbols of 0 files"),
        "{}",
        stdout(&o)
    );
    assert_eq!(sides(), 1);
    let o = run(&["def", "helper"]);
    assert_eq!(
        stdout(&o).lines().next(),
        Some("src/a.c:1-4: function helper (c) — int helper(void)")
    );
}
