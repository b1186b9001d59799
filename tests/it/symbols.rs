//! Symbols in the index (issue 36) through the real server: once the index is ready the
//! recorder writes every file's symbols beside it, and lookups answer from them (no search,
//! no parse); an edit is seen by the next lookup (the changed file parsed directly) and then
//! recorded; a restarted server and a second server on the same root use the records the
//! first wrote; records damaged in place are never trusted.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{Fixture, Server, summary, wait_recorded};

fn fixture() -> Fixture {
    let fx = Fixture::new();
    fx.write(
        "src/store.rs",
        "pub struct Memory;\n\nimpl Memory {\n    pub fn get(&self) -> u32 {\n        1\n    }\n}\n",
    );
    fx.write(
        "lib/util.c",
        "static int helper(void) { return 2; }\n\nint run(void)\n{\n\treturn helper();\n}\n",
    );
    fx.write(
        "app/main.py",
        "class App:\n    def run(self):\n        return 3\n",
    );
    fx.write("README.md", "run the app\n");
    // Dated back an hour: files written within two seconds of an index build are dirty to a
    // second server until the first stores them again; these tests are about the records.
    for p in ["src/store.rs", "lib/util.c", "app/main.py", "README.md"] {
        crate::common::date_back(&fx.root.join(p));
    }
    fx
}

fn sides(index: &Path) -> usize {
    walk_count(index, "side")
}

fn walk_count(dir: &Path, ext: &str) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            n += walk_count(&p, ext);
        } else if p.extension().is_some_and(|x| x == ext) {
            n += 1;
        }
    }
    n
}

#[tokio::test]
async fn lookups_answer_from_the_records_and_see_edits_at_once() {
    let fx = fixture();
    let (srv, _log) = fx.serve_indexed().await;
    let text = wait_recorded(&srv, "run").await;
    assert!(text.contains("lib/util.c:3-6: function run"), "{text}");
    assert!(
        text.contains("app/main.py:2-3: method main.App.run"),
        "{text}"
    );
    assert!(text.contains("from the symbol index of 4 files"), "{text}");
    assert!(sides(&fx.base().join("index")) >= 1);
    // A search path that is not there is the search's error, records or not.
    let e = srv
        .layout_err(
            "find_definition",
            json!({"name": "run", "search_path": "nowhere"}),
        )
        .await;
    assert_eq!(e.short, "search_path not found");
    // A new definition: found by the very next lookup (the file parsed directly)...
    fx.write(
        "lib/more.c",
        "int run_more(void) { return 4; }\nint run(int x) { return x; }\n",
    );
    let (text, line) = summary(&srv, "run").await;
    assert!(text.contains("lib/more.c:2-2: function run"), "{text}");
    assert!(line.contains("Found 3 definitions"), "{line}");
    // ...then recorded.
    let text = wait_recorded(&srv, "run").await;
    assert!(text.contains("lib/more.c:2-2: function run"), "{text}");
    // A definition removed is gone at once.
    fx.write("lib/more.c", "int run_more(void) { return 4; }\n");
    let (text, _) = summary(&srv, "run").await;
    assert!(!text.contains("lib/more.c"), "{text}");
    srv.shutdown().await;
}

#[tokio::test]
async fn a_restarted_server_and_a_second_one_use_the_records_written() {
    let fx = fixture();
    let (srv, _log) = fx.serve_indexed().await;
    wait_recorded(&srv, "helper").await;
    let idx = fx.base().join("index");
    let args = ["--index-dir", idx.to_str().unwrap()];
    // A second server on the same root reads them (the first writes).
    let second = Server::start(&[fx.root.as_path()], &args).await;
    let text = wait_recorded(&second, "helper").await;
    assert!(text.contains("lib/util.c:1-1: function helper"), "{text}");
    second.shutdown().await;
    srv.shutdown().await;
    // Restarted: the records are there at once, nothing parsed again.
    let again = Server::start(&[fx.root.as_path()], &args).await;
    let text = wait_recorded(&again, "Memory.get").await;
    assert!(
        text.contains("src/store.rs:4-6: method store.Memory.get"),
        "{text}"
    );
    again.shutdown().await;
}

#[tokio::test]
async fn records_damaged_in_place_are_not_trusted() {
    let fx = fixture();
    let (srv, _log) = fx.serve_indexed().await;
    wait_recorded(&srv, "helper").await;
    // Every side file zeroed past its header, size kept.
    let idx = fx.base().join("index");
    for dir in std::fs::read_dir(&idx).unwrap().flatten() {
        for f in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if f.path().extension().is_some_and(|x| x == "side") {
                let mut bytes = std::fs::read(f.path()).unwrap();
                let len = bytes.len();
                bytes[64..len - 24].fill(0);
                std::fs::write(f.path(), bytes).unwrap();
            }
        }
    }
    // The lookup still finds what the files define (they are read again, not the records).
    let (text, _) = summary(&srv, "helper").await;
    assert!(text.contains("lib/util.c:1-1: function helper"), "{text}");
    let a = srv
        .ok("grep_content", json!({"pattern": "return helper"}))
        .await;
    assert!(a.text.contains("Symbol: run (lines 3-6)"), "{}", a.text);
    srv.shutdown().await;
}

/// A file whose identity cannot vouch for what was read (dated in the future: inside the
/// racy window for as long as the test runs) is recorded all the same, and a lookup takes
/// its definitions from that record when the bytes it reads have the record's checksum;
/// bytes changed since are parsed.
#[tokio::test]
async fn a_file_changed_inside_the_racy_window_is_answered_from_a_record_of_its_bytes() {
    let fx = fixture();
    let (srv, _log) = fx.serve_indexed().await;
    wait_recorded(&srv, "helper").await;
    let future = std::time::SystemTime::now() + Duration::from_secs(3600);
    let date_ahead = |rel: &str| {
        let f = std::fs::File::options()
            .write(true)
            .open(fx.root.join(rel))
            .unwrap();
        f.set_modified(future).unwrap();
    };
    fx.write("lib/racy.c", "int racy_one(void) { return 5; }\n");
    date_ahead("lib/racy.c");
    let t = Instant::now();
    let text = loop {
        let (text, line) = summary(&srv, "racy_one").await;
        if line.contains("1 read from their records") {
            break text;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "never taken: {text}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    assert!(text.contains("lib/racy.c:1-1: function racy_one"), "{text}");
    assert!(text.contains("0 parsed"), "{text}");
    // Changed again, still inside the window: the record of the old bytes no longer holds
    // (the file is parsed, or read from a record of its new bytes if the recorder was first).
    fx.write("lib/racy.c", "int racy_two(void) { return 6; }\n");
    date_ahead("lib/racy.c");
    let (text, _) = summary(&srv, "racy_two").await;
    assert!(text.contains("lib/racy.c:1-1: function racy_two"), "{text}");
    let (text, _) = summary(&srv, "racy_one").await;
    assert!(text.contains("No definition of 'racy_one'"), "{text}");
    srv.shutdown().await;
}

/// A name defined tens of thousands of times, its string in the records beside a string a
/// megabyte long (decoded with it each time when the lookup decoded per site): answered in
/// seconds from the records, and the server idle after.
#[tokio::test]
async fn a_name_defined_everywhere_beside_a_huge_string_answers_at_once() {
    let fx = Fixture::new();
    // The strings of the side file sort as "a.c", "many.py", "yyy…" (a megabyte), "z": one
    // block, the long one before the name looked up.
    fx.write("a.c", format!("int {};\n", "y".repeat(1 << 20)));
    fx.write("many.py", "def z():\n    pass\n".repeat(20_000));
    for p in ["a.c", "many.py"] {
        crate::common::date_back(&fx.root.join(p));
    }
    let (srv, _log) = fx.serve_indexed().await;
    wait_recorded(&srv, "z").await;
    let t = Instant::now();
    let (text, line) = summary(&srv, "z").await;
    let took = t.elapsed();
    assert!(line.contains("Found 20000 definitions"), "{line}");
    assert!(line.contains("from the symbol index"), "{line}");
    assert!(
        text.contains("many.py:1-2: function many.z"),
        "{}",
        &text[..text.len().min(600)]
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    srv.shutdown().await;
}

#[tokio::test]
async fn a_python_module_alias_is_followed_from_the_index_s_file_list() {
    let fx = Fixture::new();
    fx.write(
        "pylib/ospkg.py",
        "import sys\nif sys.platform == 'win32':\n    import winpaths as path\nelse:\n    import unixpaths as path\n",
    );
    fx.write(
        "pylib/unixpaths.py",
        "def join(a, b):\n    return a + '/' + b\n",
    );
    fx.write(
        "pylib/winpaths.py",
        "def join(a, b):\n    return a + '\\\\' + b\n",
    );
    fx.write("other/paths.py", "import unixpaths as path\n");
    for p in [
        "pylib/ospkg.py",
        "pylib/unixpaths.py",
        "pylib/winpaths.py",
        "other/paths.py",
    ] {
        crate::common::date_back(&fx.root.join(p));
    }
    let (srv, _log) = fx.serve_indexed().await;
    wait_recorded(&srv, "join").await;
    let (text, line) = summary(&srv, "ospkg.path.join").await;
    assert!(
        line.starts_with("Found 2 definitions in 2 files (from the symbol index"),
        "{text}"
    );
    assert!(text.contains("pylib/unixpaths.py:1-2: function"), "{text}");
    assert!(text.contains("pylib/winpaths.py:1-2: function"), "{text}");
    assert!(
        text.contains(
            "winpaths.join (bound at pylib/ospkg.py:3), unixpaths.join (bound at pylib/ospkg.py:5)"
        ),
        "{text}"
    );
    // A module of another name binding the same word is not the one asked for.
    let (text, line) = summary(&srv, "paths.path.join").await;
    assert!(line.starts_with("Found 1 definition"), "{text}");
    assert!(
        text.contains("unixpaths.join (bound at other/paths.py:1)"),
        "{text}"
    );
    let (_, line) = summary(&srv, "ospkg.path.split").await;
    assert!(line.starts_with("No definition"), "{line}");
}
