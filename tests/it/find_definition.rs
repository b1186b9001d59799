//! `find_definition` through the real server: the sites of a name in several languages
//! (definitions first, declarations only when asked, never a call), a qualified name with its
//! code, both views, the answer budget's cut, the parameter errors, an edit that adds, moves
//! and removes a definition seen by the next lookup of a server with a ready index and its
//! watcher, and `mapgrep def` on the command line.

use serde_json::json;

use crate::common::{BIN, Fixture, Server};

const STORE_RS: &str = "\
/// Where values are kept.
pub trait Store {
    fn get(&self, key: &str) -> Option<String>;
}

pub struct Memory {
    items: Vec<(String, String)>,
}

impl Store for Memory {
    fn get(&self, key: &str) -> Option<String> {
        self.items.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    }
}

pub fn lookup(s: &dyn Store) -> Option<String> {
    s.get(\"home\")
}
";

const CACHE_PY: &str = "\
class Cache:
    def get(self, key):
        return self._items.get(key)


def get(cache, key):
    \"\"\"Reads through the cache.\"\"\"
    return cache.get(key)
";

const CLIENT_TS: &str = "\
export class Client {
  get(path: string): Promise<string> {
    return fetch(path).then((r) => r.text());
  }
}

const c = new Client();
c.get('/');
";

fn fixture() -> Fixture {
    let fx = Fixture::new();
    fx.write("src/store.rs", STORE_RS);
    fx.write("py/cache.py", CACHE_PY);
    fx.write("web/client.ts", CLIENT_TS);
    fx.write("README.md", "Call get() to read a value.\n");
    fx
}

/// The site lines of an answer (`path:a-b: kind name (...) — signature`), up to the ` (`.
fn sites(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            let mut parts = l.splitn(3, ':');
            let (path, lines) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            !path.is_empty()
                && !path.contains(' ')
                && lines
                    .split_once('-')
                    .is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok())
        })
        .map(|l| l.split(" (").next().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn every_site_ranked_with_both_views_and_no_call() {
    let fx = fixture();
    let srv = fx.serve().await;
    let a = srv.ok("find_definition", json!({"name": "get"})).await;
    assert!(
        a.text.starts_with("## find_definition: get\n\n"),
        "{}",
        a.text
    );
    assert_eq!(
        sites(&a.text),
        [
            "py/cache.py:2-3: method cache.Cache.get",
            "py/cache.py:6-8: function cache.get",
            "src/store.rs:11-13: method store.Memory.get",
            "web/client.ts:2-4: method client.Client.get",
        ]
    );
    assert!(
        a.text.contains(
            "Note: 1 declaration (prototypes, signatures) not shown; declarations: true lists them."
        ),
        "{}",
        a.text
    );
    assert_eq!(a.structured["content"], a.text.as_str());
    assert!(a.structured.get("truncated").is_none());
    // Declarations after the definitions.
    let all = srv
        .ok(
            "find_definition",
            json!({"name": "get", "declarations": "true"}),
        )
        .await;
    assert_eq!(
        sites(&all.text).last().unwrap(),
        "src/store.rs:3-3: method store.Store.get"
    );
    // A qualified name: one site, with its code.
    let one = srv
        .ok("find_definition", json!({"name": "Memory::get"}))
        .await;
    assert_eq!(
        sites(&one.text),
        ["src/store.rs:11-13: method store.Memory.get"]
    );
    assert!(
        one.text
            .contains("--- src/store.rs:11-13: method store.Memory.get ---\n    fn get(&self"),
        "{}",
        one.text
    );
    // Kind, language, search_path and glob narrow it.
    for (args, want) in [
        (
            json!({"name": "get", "kind": "function"}),
            vec!["py/cache.py:6-8: function cache.get"],
        ),
        (
            json!({"name": "get", "lang": "ts"}),
            vec!["web/client.ts:2-4: method client.Client.get"],
        ),
        (
            json!({"name": "get", "search_path": "src"}),
            vec!["src/store.rs:11-13: method store.Memory.get"],
        ),
        (
            json!({"name": "get", "glob": "*.py", "code": false}),
            vec![
                "py/cache.py:2-3: method cache.Cache.get",
                "py/cache.py:6-8: function cache.get",
            ],
        ),
    ] {
        let a = srv.ok("find_definition", args.clone()).await;
        assert_eq!(sites(&a.text), want, "{args}");
    }
    srv.shutdown().await;
}

#[tokio::test]
async fn errors_use_the_layout() {
    let fx = fixture();
    let srv = fx.serve().await;
    let e = srv.layout_err("find_definition", json!({"name": ""})).await;
    assert_eq!(e.short, "Empty name");
    let e = srv
        .layout_err("find_definition", json!({"name": "get", "kind": "func"}))
        .await;
    assert_eq!(e.short, "Unknown kind");
    assert_eq!(e.provided, "name=\"get\", kind=\"func\"");
    assert!(e.fix.contains("function, method, class"), "{}", e.fix);
    let e = srv
        .layout_err(
            "find_definition",
            json!({"name": "get", "search_path": "nowhere"}),
        )
        .await;
    assert_eq!(e.short, "search_path not found");
    srv.shutdown().await;
}

#[tokio::test]
async fn a_long_definition_is_cut_to_the_budget_and_says_how_to_read_the_rest() {
    let fx = Fixture::new();
    let body: String = (0..400)
        .map(|i| format!("    let v{i} = {i} * 2;\n"))
        .collect();
    fx.write("src/big.rs", format!("pub fn huge() {{\n{body}}}\n"));
    let srv = fx.serve().await;
    let a = srv
        .ok(
            "find_definition",
            json!({"name": "huge", "max_output_bytes": 2000}),
        )
        .await;
    let bytes = a.text.len();
    assert!(bytes <= 2000, "{bytes}");
    assert_eq!(a.structured["truncated"], true);
    assert!(a.text.contains("left out (response size limit). Read them with read_files {\"path\": \"src/big.rs\", \"start_line\": "), "{}", a.text);
    assert!(a.text.contains("\"end_line\": 402}, or the symbol with file_read {\"path\": \"src/big.rs\", \"target\": \"huge\"}"), "{}", a.text);
    assert!(
        a.text.contains("Found 1 definition in 1 file"),
        "{}",
        a.text
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn an_edit_that_adds_moves_or_removes_a_definition_is_seen_at_once_with_the_index() {
    let fx = fixture();
    let (srv, _log) = fx.serve_indexed().await;
    assert_eq!(
        lookup(&srv).await,
        ["web/client.ts:2-4: method client.Client.get"]
    );
    // Added: a second class of that name in a new file.
    fx.write(
        "web/other.ts",
        "export class Client {\n  get() {\n    return 1;\n  }\n}\n",
    );
    assert_eq!(
        lookup(&srv).await,
        [
            "web/client.ts:2-4: method client.Client.get",
            "web/other.ts:2-4: method other.Client.get"
        ]
    );
    // Moved: three lines further down.
    fx.write("web/client.ts", format!("// one\n// two\n\n{CLIENT_TS}"));
    assert_eq!(
        lookup(&srv).await,
        [
            "web/client.ts:5-7: method client.Client.get",
            "web/other.ts:2-4: method other.Client.get"
        ]
    );
    // Removed: the file deleted.
    std::fs::remove_file(fx.root.join("web/other.ts")).unwrap();
    assert_eq!(
        lookup(&srv).await,
        ["web/client.ts:5-7: method client.Client.get"]
    );
    srv.shutdown().await;
}

async fn lookup(srv: &Server) -> Vec<String> {
    let a = srv
        .ok(
            "find_definition",
            json!({"name": "Client.get", "code": false}),
        )
        .await;
    sites(&a.text)
}

#[test]
fn the_command_line_prints_one_line_per_site() {
    let fx = fixture();
    let out = std::process::Command::new(BIN)
        .args(["def", "get", "--kind", "method"])
        .current_dir(&fx.root)
        .env("XDG_CACHE_HOME", fx.base().join("cache"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout,
        "py/cache.py:2-3: method cache.Cache.get (python) — def get(self, key):\n\
         src/store.rs:11-13: method store.Memory.get (rust) — fn get(&self, key: &str) -> Option<String> {\n\
         web/client.ts:2-4: method client.Client.get (typescript) — get(path: string): Promise<string> {\n"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("Found 3 definitions in 3 files"),
        "{stderr}"
    );
    assert!(stderr.contains("--declarations lists them"), "{stderr}");
    let json = std::process::Command::new(BIN)
        .args(["definition", "Memory.get", "--json", "src"])
        .current_dir(&fx.root)
        .env("XDG_CACHE_HOME", fx.base().join("cache"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["path"], "src/store.rs");
    assert_eq!(v["language"], "rust");
    assert_eq!(v["address"], "Memory.get");
    assert!(v["code"].as_str().unwrap().contains("self.items.iter()"));
    let none = std::process::Command::new(BIN)
        .args(["def", "nothing_here"])
        .current_dir(&fx.root)
        .env("XDG_CACHE_HOME", fx.base().join("cache"))
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(1));
}
