//! `file_read` (docs/file_read.md) on TypeScript and JavaScript through the MCP server: every row of
//! the spec's edge-case table, Phase D validation, non-symbol block snapping, stub spacing,
//! skeleton + range, the enhanced skeleton, target reads and the structured content.
//!
//! The helpers here are shared with `file_read_langs.rs` (Rust, Python, Go).

use serde_json::{Value, json};

use crate::common::{Fixture, Layout, Server, layout, lines, text_of};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A successful `file_read`: its text and the facts that text gives ([`facts`]). The
/// structured view must carry the same text.
pub(crate) async fn read_ok(srv: &Server, args: Value) -> (String, Value) {
    // The facts are read from the text both views carry (`common::view`).
    srv.ok("file_read", args).await.pair()
}

/// What a `file_read` answer tells the model, read back from its text: `file`, `mode`
/// (`range`, `skeleton` or `target`), `language` and `total_lines` (a skeleton's header), the
/// range shown (`start_line`, `end_line`, `total_lines`), `truncated`, and `symbols` (a
/// skeleton's symbol list, a target read's `### NAME (KIND, lines A-B)` headers, or a range's
/// stubs).
pub(crate) fn facts(text: &str) -> Value {
    let file = text
        .strip_prefix("## file_read: ")
        .and_then(|r| r.lines().next())
        .unwrap_or_else(|| panic!("an answer starts with its file:\n{text}"));
    let mut f = json!({"file": file, "language": null, "start_line": null, "end_line": null});
    let span = |s: &str| -> (u64, u64) {
        match s.split_once('-') {
            Some((a, b)) => (
                a.parse().expect("first line"),
                b.parse().expect("last line"),
            ),
            None => {
                let a = s.parse().expect("line");
                (a, a)
            }
        }
    };
    let mut symbols = Vec::new();
    if let Some(rest) = text.split("\n**Range:** lines ").nth(1) {
        let range = rest.lines().next().unwrap();
        let (lines, total) = range.split_once(" of ").expect("`A-B of N`");
        let (a, b) = span(lines);
        f["mode"] = "range".into();
        f["start_line"] = a.into();
        f["end_line"] = b.into();
        f["total_lines"] = total.parse::<u64>().expect("total").into();
        for l in text.lines() {
            if let Some(stub) = l
                .strip_prefix("--- symbol: ")
                .and_then(|l| l.strip_suffix(" ---"))
            {
                symbols.extend(named(stub, &span));
            }
        }
    } else if let Some(rest) = text.split("**Skeleton Mode**").nth(1) {
        f["mode"] = "skeleton".into();
        let header = rest.lines().nth(1).expect("the line after the mode");
        let (total, lang) = header.split_once(" lines, ").expect("`N lines, LANG`");
        f["total_lines"] = total.parse::<u64>().expect("total").into();
        f["language"] = lang.into();
        if let Some(list) = text.split("**Symbols (").nth(1) {
            for l in list.lines().skip(1).take_while(|l| l.starts_with("  ")) {
                let (lines, rest) = l
                    .trim()
                    .strip_prefix('[')
                    .unwrap()
                    .split_once("] ")
                    .unwrap();
                let (kind, name) = rest.split_once(": ").expect("`kind: name`");
                let (a, b) = span(lines);
                symbols.push(json!([name, kind, a, b]));
            }
        }
    } else {
        f["mode"] = "target".into();
        for l in text.lines() {
            if let Some(h) = l.strip_prefix("### ") {
                symbols.extend(named(h, &span));
            }
        }
    }
    f["truncated"] = text.contains("[cut").into();
    f["symbols"] = symbols.into();
    f
}

/// `[NAME, KIND, A, B]` of `NAME (KIND, lines A-B)` (`None` for another heading, such as
/// `nope: not found`).
fn named(s: &str, span: &dyn Fn(&str) -> (u64, u64)) -> Option<Value> {
    let (name, rest) = s.rsplit_once(" (")?;
    let (kind, lines) = rest.strip_suffix(')')?.rsplit_once(", ")?;
    let lines = lines
        .strip_prefix("lines ")
        .or_else(|| lines.strip_prefix("line "))?;
    let (a, b) = span(lines);
    Some(json!([name, kind, a, b]))
}

/// The text of a successful `file_read`.
pub(crate) async fn read_text(srv: &Server, args: Value) -> String {
    read_ok(srv, args).await.0
}

/// A failed `file_read` (a tool result flagged isError, not a JSON-RPC error), parsed as
/// the Error/Problem/Fix layout.
pub(crate) async fn read_err(srv: &Server, args: Value) -> Layout {
    layout(&srv.err("file_read", args).await)
}

/// A structured range read split into its header and body.
#[derive(Debug)]
pub(crate) struct RangeText {
    pub first: u32,
    pub last: u32,
    pub total: u32,
    pub body: String,
}

/// Splits `## file_read: FILE\n\n**Range:** lines A-B of N\n\n` off a range answer.
pub(crate) fn range_text(text: &str, file: &str) -> RangeText {
    let head = format!("## file_read: {file}\n\n**Range:** lines ");
    let rest = text
        .strip_prefix(&head)
        .unwrap_or_else(|| panic!("a range answer starts with {head:?}:\n{text}"));
    let (range, body) = rest
        .split_once("\n\n")
        .unwrap_or_else(|| panic!("a blank line follows the Range line:\n{text}"));
    let (lines, total) = range.split_once(" of ").expect("`A-B of N`");
    let (first, last) = lines.split_once('-').expect("`A-B`");
    RangeText {
        first: first.parse().expect("first line"),
        last: last.parse().expect("last line"),
        total: total.parse().expect("total lines"),
        body: body.to_string(),
    }
}

/// The answer without its `## file_read: FILE\n\n` header.
pub(crate) fn after_header<'a>(text: &'a str, file: &str) -> &'a str {
    let head = format!("## file_read: {file}\n\n");
    text.strip_prefix(&head)
        .unwrap_or_else(|| panic!("an answer starts with {head:?}:\n{text}"))
}

/// The two lines of a symbol stub.
pub(crate) fn stub(name: &str, kind: &str, a: u32, b: u32) -> String {
    format!(
        "--- symbol: {name} ({kind}, lines {a}-{b}) ---\nUse {{ target: \"{name}\" }} to read this symbol\n"
    )
}

/// `(qualified_name, kind, start_line, end_line)` of the symbols an answer names
/// ([`facts`]).
pub(crate) fn symbols(v: &Value) -> Vec<(String, String, u64, u64)> {
    v["symbols"]
        .as_array()
        .unwrap_or_else(|| panic!("symbols is an array: {v}"))
        .iter()
        .map(|s| {
            (
                s[0].as_str().expect("name").into(),
                s[1].as_str().expect("kind").into(),
                s[2].as_u64().expect("start_line"),
                s[3].as_u64().expect("end_line"),
            )
        })
        .collect()
}

pub(crate) fn sym(q: &str, kind: &str, a: u64, b: u64) -> (String, String, u64, u64) {
    (q.into(), kind.into(), a, b)
}

/// Spec/003's stub spacing: every symbol stub has a blank line above (unless it opens the
/// body) and below (unless it ends the body), and the stubs never add a second blank line.
pub(crate) fn assert_stub_spacing(body: &str) {
    let ls: Vec<&str> = body.lines().collect();
    for (i, l) in ls.iter().enumerate() {
        if !l.starts_with("--- symbol: ") {
            continue;
        }
        assert!(
            ls.get(i + 1)
                .is_some_and(|n| n.starts_with("Use { target: ")),
            "the stub's second line follows it:\n{body}"
        );
        if i > 0 {
            assert_eq!(ls[i - 1], "", "a blank line above the stub {l:?}:\n{body}");
            if i > 1 {
                assert_ne!(
                    ls[i - 2],
                    "",
                    "one blank line above the stub {l:?}:\n{body}"
                );
            }
        }
        if i + 2 < ls.len() {
            assert_eq!(ls[i + 2], "", "a blank line below the stub {l:?}:\n{body}");
            if i + 3 < ls.len() {
                assert_ne!(
                    ls[i + 3],
                    "",
                    "one blank line below the stub {l:?}:\n{body}"
                );
            }
        }
    }
}

/// Every `Use { target: "NAME" }` of a text must read a symbol whose heading is the stub's
/// `NAME (KIND, lines A-B)`.
pub(crate) async fn assert_stubs_resolve(srv: &Server, file: &str, text: &str) {
    let ls: Vec<&str> = text.lines().collect();
    for (i, l) in ls.iter().enumerate() {
        let Some(rest) = l.strip_prefix("--- symbol: ") else {
            continue;
        };
        let described = rest.strip_suffix(" ---").expect("stub ends with ---");
        let name = ls[i + 1]
            .strip_prefix("Use { target: \"")
            .and_then(|r| r.strip_suffix("\" } to read this symbol"))
            .unwrap_or_else(|| panic!("stub instruction: {:?}", ls[i + 1]));
        let r = srv
            .call("file_read", json!({"file": file, "target": name}))
            .await
            .expect("file_read answers");
        let got = text_of(&r);
        assert_ne!(
            r.is_error,
            Some(true),
            "the stub's own instruction {{ target: {name:?} }} must work:\n{got}"
        );
        assert!(
            got.contains(&format!("### {described}\n")),
            "target {name:?} reads the stubbed symbol {described:?}:\n{got}"
        );
    }
}

/// A fixture with `files` and a server on it.
pub(crate) async fn serve(files: &[(&str, &str)]) -> (Fixture, Server) {
    let fx = Fixture::new();
    for (rel, contents) in files {
        fx.write(rel, contents);
    }
    let srv = fx.serve().await;
    (fx, srv)
}

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

/// A TypeScript file with one of everything (line numbers matter to the tests).
const APP: &str = r#""use client";
import { foo } from 'bar';
import baz from 'qux';

// Orphan comment

/** The config. */
export const CONFIG = {
  a: 1,
};
const logger = createLogger();
export function initializeApp(x: number): void {
  logger.info(x);
}

type Id = string;
interface Shape {
  area(): number;
}
enum Color { Red, Green }
namespace NS {
  export const inner = 1;
}
@Component({ selector: 'x' })
export abstract class Base {
  abstract run(): void;
  handler = (e: Event) => {
    console.log(e);
  };
  start(): void {
    this.run();
  }
  stop() {}
}
export default function main() {
  return 1;
}

app.listen(3000);
export { logger };
"#;

/// Two functions with an import block, a blank line, a comment and a blank line between them:
/// the file_read contract's "Line 6-10" example.
const SNAP: &str = "\
function first() {
  const a = 1;
  const b = 2;
  return a + b;
}
import { A } from 'a';
import { B } from 'b';

// comment

function second() {
  return 2;
}
";

/// JavaScript with CommonJS imports, directives and a class.
const LIB_JS: &str = "\
#!/usr/bin/env node
'use strict';
const fs = require('fs');
const { join } = require('path');

// helpers

/**
 * Reads a file.
 */
function readIt(p) {
  return fs.readFileSync(join(p));
}
class Store {
  constructor() {
    this.items = [];
  }
  add(x) { this.items.push(x); }
  get size() {
    return this.items.length;
  }
}
const MAX = 10;
const helper = () => 1;
module.exports = { readIt, Store };
";

// ---------------------------------------------------------------------------------------------
// docs/file_read.md "Edge Cases" table, one test per row
// ---------------------------------------------------------------------------------------------

const PARTIAL: &str = "\
import { x } from 'x';

function work(a: number) {
  const b = a + 1;
  const c = b * 2;
  const d = c - 3;
  return d;
}

x();
";

#[tokio::test]
async fn edge_range_covering_part_of_a_symbol_stubs_the_full_range() {
    let (_fx, srv) = serve(&[("p.ts", PARTIAL)]).await;
    let (text, v) = read_ok(&srv, json!({"file": "p.ts", "startLine": 5, "endLine": 6})).await;
    let r = range_text(&text, "p.ts");
    // Symbols are not widened: the header keeps the requested lines; the stub tells the
    // symbol's full extent.
    assert_eq!((r.first, r.last, r.total), (5, 6, 10));
    assert_eq!(r.body, stub("work", "function", 3, 8));
    assert_eq!(symbols(&v), vec![sym("work", "function", 3, 8)]);
    assert_eq!(
        (v["start_line"].as_u64(), v["end_line"].as_u64()),
        (Some(5), Some(6))
    );
}

#[tokio::test]
async fn edge_range_starting_mid_symbol_opens_with_its_stub() {
    let (_fx, srv) = serve(&[("p.ts", PARTIAL)]).await;
    let r = range_text(
        &read_text(&srv, json!({"file": "p.ts", "startLine": 6, "endLine": 10})).await,
        "p.ts",
    );
    assert_eq!((r.first, r.last), (6, 10));
    assert_eq!(
        r.body,
        format!("{}\nx();\n", stub("work", "function", 3, 8)),
        "the stub at the first line of the symbol inside the range, then the rest raw"
    );
}

#[tokio::test]
async fn edge_range_ending_mid_symbol_closes_with_its_stub() {
    let (_fx, srv) = serve(&[("p.ts", PARTIAL)]).await;
    let r = range_text(
        &read_text(&srv, json!({"file": "p.ts", "startLine": 1, "endLine": 4})).await,
        "p.ts",
    );
    assert_eq!((r.first, r.last), (1, 4));
    assert_eq!(
        r.body,
        format!(
            "import {{ x }} from 'x';\n\n{}",
            stub("work", "function", 3, 8)
        )
    );
    assert_stub_spacing(&r.body);
}

#[tokio::test]
async fn edge_adjacent_symbols_give_back_to_back_stubs() {
    let src = "\
function one() {
  return 1;
}
function two() {
  return 2;
}
const three = 3;
";
    let (_fx, srv) = serve(&[("adj.ts", src)]).await;
    let (text, v) = read_ok(
        &srv,
        json!({"file": "adj.ts", "startLine": 1, "endLine": 7}),
    )
    .await;
    let r = range_text(&text, "adj.ts");
    assert_eq!(
        r.body,
        format!(
            "{}\n{}\n{}",
            stub("one", "function", 1, 3),
            stub("two", "function", 4, 6),
            stub("three", "variable", 7, 7)
        )
    );
    assert_stub_spacing(&r.body);
    assert_eq!(
        symbols(&v),
        vec![
            sym("one", "function", 1, 3),
            sym("two", "function", 4, 6),
            sym("three", "variable", 7, 7),
        ]
    );
}

#[tokio::test]
async fn edge_single_line_symbol_gets_a_normal_stub() {
    let src = "const a = 1;\nexport type Id = string;\nfoo();\n";
    let (_fx, srv) = serve(&[("one.ts", src)]).await;
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "one.ts", "startLine": 2, "endLine": 3}),
        )
        .await,
        "one.ts",
    );
    assert_eq!(r.body, format!("{}\nfoo();\n", stub("Id", "type", 2, 2)));
}

#[tokio::test]
async fn edge_file_without_symbols_is_all_raw() {
    let src = "\
import { a } from 'a';
import b from 'b';

// Just wiring, no definitions.
a(b);
export { a };
";
    let (_fx, srv) = serve(&[("wire.ts", src)]).await;
    let (text, v) = read_ok(
        &srv,
        json!({"file": "wire.ts", "startLine": 1, "endLine": 6}),
    )
    .await;
    let r = range_text(&text, "wire.ts");
    assert_eq!(r.body, lines(src, 1, 6));
    assert!(!r.body.contains("--- "), "no stubs at all:\n{text}");
    assert_eq!(symbols(&v), vec![]);
    let (_, v) = read_ok(&srv, json!({"file": "wire.ts", "skeleton": true})).await;
    assert_eq!(v["language"], "typescript");
    // A part of it: still raw (and snapped to whole blocks).
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "wire.ts", "startLine": 4, "endLine": 5}),
        )
        .await,
        "wire.ts",
    );
    assert_eq!(r.body, lines(src, 4, 5));
}

#[tokio::test]
async fn edge_non_code_files_are_raw_lines() {
    let txt = "alpha\n\n  beta  \n# gamma\n\tdelta\nfunction notCode() {\nlast";
    let md = "# Title\n\n## Section\n\n```ts\nfunction f() {}\n```\n";
    let (_fx, srv) = serve(&[("notes.txt", txt), ("README.md", md)]).await;

    let (text, v) = read_ok(
        &srv,
        json!({"file": "notes.txt", "startLine": 2, "endLine": 7}),
    )
    .await;
    let r = range_text(&text, "notes.txt");
    assert_eq!((r.first, r.last, r.total), (2, 7, 7));
    // Identical to the file's lines; the last one, which has none, ends with a newline.
    assert_eq!(r.body, lines(txt, 2, 7) + "\n");
    assert_eq!(v["language"], Value::Null);
    assert_eq!(v["mode"], "range");
    assert_eq!(symbols(&v), vec![]);

    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "README.md", "startLine": 3, "endLine": 7}),
        )
        .await,
        "README.md",
    );
    assert_eq!(r.body, lines(md, 3, 7));
    assert!(!r.body.contains("--- symbol"), "{}", r.body);

    // skeleton + range on a raw file is the same raw range.
    let with_skeleton = read_text(
        &srv,
        json!({"file": "README.md", "startLine": 3, "endLine": 7, "skeleton": true}),
    )
    .await;
    assert_eq!(range_text(&with_skeleton, "README.md").body, r.body);
}

#[tokio::test]
async fn edge_start_equal_to_end_reads_one_line_raw_or_stub() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    // A gap line: itself, raw.
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "app.ts", "startLine": 39, "endLine": 39}),
        )
        .await,
        "app.ts",
    );
    assert_eq!((r.first, r.last), (39, 39));
    assert_eq!(r.body, "app.listen(3000);\n");
    // A blank gap line.
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "app.ts", "startLine": 4, "endLine": 4}),
        )
        .await,
        "app.ts",
    );
    assert_eq!(r.body, "\n");
    // A line inside a symbol: its stub.
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "app.ts", "startLine": 13, "endLine": 13}),
        )
        .await,
        "app.ts",
    );
    assert_eq!((r.first, r.last), (13, 13));
    assert_eq!(r.body, stub("initializeApp", "function", 12, 14));
}

#[tokio::test]
async fn edge_start_line_alone_reads_to_the_end() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    let (text, v) = read_ok(&srv, json!({"file": "app.ts", "startLine": 35})).await;
    let r = range_text(&text, "app.ts");
    assert_eq!((r.first, r.last, r.total), (35, 40, 40));
    assert_eq!(
        r.body,
        format!(
            "{}\napp.listen(3000);\nexport {{ logger }};\n",
            stub("main", "function", 35, 37)
        )
    );
    assert_eq!(v["end_line"], 40);
}

#[tokio::test]
async fn edge_end_line_alone_reads_from_line_one() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    let (text, v) = read_ok(&srv, json!({"file": "app.ts", "endLine": 5})).await;
    let r = range_text(&text, "app.ts");
    assert_eq!((r.first, r.last), (1, 5));
    assert_eq!(r.body, lines(APP, 1, 5));
    assert_eq!(v["start_line"], 1);
}

// ---------------------------------------------------------------------------------------------
// Phase D: validation
// ---------------------------------------------------------------------------------------------

/// The server's wording of the refused parameter combinations (`startLine`, `file=`); the
/// matrix itself is an engine test (`src/code/tests.rs`, `parameters_are_validated_or_clamped`).
#[tokio::test]
async fn invalid_parameters_are_errors_in_the_tool_words() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    for args in [
        json!({"file": "app.ts", "target": "CONFIG", "startLine": 1}),
        json!({"file": "app.ts", "target": "CONFIG", "endLine": 9}),
        json!({"file": "app.ts", "target": ["CONFIG", "Base"], "startLine": 1, "endLine": 9}),
        json!({"file": "app.ts", "target": "CONFIG", "startLine": 1, "skeleton": true}),
    ] {
        let e = read_err(&srv, args.clone()).await;
        assert_eq!(e.short, "target and startLine/endLine together", "{args}");
        assert!(e.provided.contains("target="), "{e:?}");
        assert!(
            e.provided.contains("startLine=") || e.provided.contains("endLine="),
            "{e:?}"
        );
        assert!(e.problem.contains("mutually exclusive"), "{e:?}");
        assert!(
            e.fix.contains("target") && e.fix.contains("startLine"),
            "{e:?}"
        );
    }
    let e = read_err(
        &srv,
        json!({"file": "app.ts", "startLine": 9, "endLine": 3}),
    )
    .await;
    assert_eq!(e.short, "startLine after endLine");
    assert_eq!(e.provided, "file=\"app.ts\", startLine=9, endLine=3");
    assert!(e.problem.contains('9') && e.problem.contains('3'), "{e:?}");
    for args in [
        json!({"file": "app.ts", "startLine": 41, "endLine": 50}),
        json!({"file": "app.ts", "startLine": 41}),
    ] {
        let e = read_err(&srv, args.clone()).await;
        assert_eq!(e.short, "startLine past the end of the file", "{args}");
        assert!(e.problem.contains("40 lines"), "{e:?}");
        assert!(e.fix.contains("1 to 40"), "{e:?}");
    }
}

#[tokio::test]
async fn out_of_range_values_are_clamped() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    let expect = lines(APP, 1, 3);
    for start in [0, -4] {
        let (text, v) = read_ok(
            &srv,
            json!({"file": "app.ts", "startLine": start, "endLine": 3}),
        )
        .await;
        let r = range_text(&text, "app.ts");
        assert_eq!((r.first, r.last), (1, 3), "startLine {start}");
        assert_eq!(r.body, expect, "startLine {start}");
        assert_eq!(v["start_line"], 1);
    }
    let (text, v) = read_ok(
        &srv,
        json!({"file": "app.ts", "startLine": 39, "endLine": 999}),
    )
    .await;
    let r = range_text(&text, "app.ts");
    assert_eq!((r.first, r.last, r.total), (39, 40, 40));
    assert_eq!(r.body, lines(APP, 39, 40));
    assert_eq!(v["end_line"], 40);
    // Both ends out of the file on either side: the whole file.
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "app.ts", "startLine": -1, "endLine": 1000}),
        )
        .await,
        "app.ts",
    );
    assert_eq!((r.first, r.last), (1, 40));
}

#[tokio::test]
async fn recursive_is_ignored_with_a_range() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    for (a, b) in [(1, 40), (24, 34), (20, 30)] {
        let plain = read_ok(
            &srv,
            json!({"file": "app.ts", "startLine": a, "endLine": b}),
        )
        .await;
        let recursive = read_ok(
            &srv,
            json!({"file": "app.ts", "startLine": a, "endLine": b, "recursive": true}),
        )
        .await;
        assert_eq!(plain.0, recursive.0, "lines {a}-{b}");
        assert_eq!(plain.1, recursive.1, "lines {a}-{b}");
    }
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "app.ts", "startLine": 25, "endLine": 30, "recursive": true}),
        )
        .await,
        "app.ts",
    );
    assert_eq!(r.body, stub("Base", "class", 24, 34), "members never show");
}

// ---------------------------------------------------------------------------------------------
// Non-symbol block snapping and stub spacing
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn spec_line_6_to_10_example_snaps_to_the_touched_block_only() {
    let (_fx, srv) = serve(&[("snap.ts", SNAP)]).await;
    let read = |a: u32, b: u32| {
        let srv = &srv;
        async move {
            range_text(
                &read_text(
                    srv,
                    json!({"file": "snap.ts", "startLine": a, "endLine": b}),
                )
                .await,
                "snap.ts",
            )
        }
    };
    // Line 7 → the whole import block (6-7), not the gap (8), comment (9) or gap (10).
    let r = read(7, 7).await;
    assert_eq!((r.first, r.last), (6, 7));
    assert_eq!(r.body, "import { A } from 'a';\nimport { B } from 'b';\n");
    let r = read(6, 6).await;
    assert_eq!((r.first, r.last), (6, 7));
    // Each of the other blocks alone.
    let r = read(8, 8).await;
    assert_eq!(((r.first, r.last), r.body.as_str()), ((8, 8), "\n"));
    let r = read(9, 9).await;
    assert_eq!(
        ((r.first, r.last), r.body.as_str()),
        ((9, 9), "// comment\n")
    );
    let r = read(10, 10).await;
    assert_eq!(((r.first, r.last), r.body.as_str()), ((10, 10), "\n"));
    // 7-9: imports widened backwards, gap and comment as they are.
    let r = read(7, 9).await;
    assert_eq!((r.first, r.last), (6, 9));
    assert_eq!(r.body, lines(SNAP, 6, 9));
    // The whole stretch between the symbols, with the symbols it touches.
    let r = read(5, 11).await;
    assert_eq!((r.first, r.last), (5, 11));
    assert_eq!(
        r.body,
        format!(
            "{}\n{}{}",
            stub("first", "function", 1, 5),
            lines(SNAP, 6, 10),
            stub("second", "function", 11, 13)
        )
    );
    assert_stub_spacing(&r.body);
}

#[tokio::test]
async fn multi_line_blocks_are_atomic() {
    let src = "\
import {
  a,
  b,
} from 'ab';
// one
// two
// three
app.use(
  a,
  b,
);
export {
  a,
};
";
    let (_fx, srv) = serve(&[("multi.ts", src)]).await;
    for (a, b, want) in [
        (2, 2, (1, 4)),     // inside a multi-line import
        (3, 5, (1, 7)),     // import end + the start of a comment run
        (6, 6, (5, 7)),     // consecutive line comments are one block
        (10, 10, (8, 11)),  // a multi-line top-level statement (gap)
        (13, 13, (12, 14)), // a multi-line export
        (11, 12, (8, 14)),
    ] {
        let r = range_text(
            &read_text(
                &srv,
                json!({"file": "multi.ts", "startLine": a, "endLine": b}),
            )
            .await,
            "multi.ts",
        );
        assert_eq!((r.first, r.last), want, "lines {a}-{b}");
        assert_eq!(
            r.body,
            lines(src, want.0 as usize, want.1 as usize),
            "lines {a}-{b}"
        );
    }
}

#[tokio::test]
async fn stubs_have_one_blank_line_above_and_below() {
    let src = "\
const x = 42;
function handleRequest() {
  return x;
}
export default x;

function spaced() {
  return 1;
}

foo();
";
    let (_fx, srv) = serve(&[("sp.ts", src)]).await;
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "sp.ts", "startLine": 1, "endLine": 11}),
        )
        .await,
        "sp.ts",
    );
    // Blank lines are added around a stub between raw lines, and not doubled next to the
    // file's own blank lines.
    assert_eq!(
        r.body,
        format!(
            "{}\n{}\nexport default x;\n\n{}\nfoo();\n",
            stub("x", "variable", 1, 1),
            stub("handleRequest", "function", 2, 4),
            stub("spaced", "function", 7, 9),
        )
    );
    assert!(
        !r.body.contains("\n\n\n"),
        "never two blank lines:\n{}",
        r.body
    );
    assert_stub_spacing(&r.body);
    // Raw line right before and right after a stub.
    let r = range_text(
        &read_text(&srv, json!({"file": "sp.ts", "startLine": 4, "endLine": 5})).await,
        "sp.ts",
    );
    assert_eq!(
        r.body,
        format!(
            "{}\nexport default x;\n",
            stub("handleRequest", "function", 2, 4)
        )
    );

    let (_fx2, srv2) = serve(&[("app.ts", APP)]).await;
    let r = range_text(
        &read_text(
            &srv2,
            json!({"file": "app.ts", "startLine": 1, "endLine": 40}),
        )
        .await,
        "app.ts",
    );
    assert!(
        !r.body.contains("\n\n\n"),
        "never two blank lines:\n{}",
        r.body
    );
    assert_stub_spacing(&r.body);
}

// ---------------------------------------------------------------------------------------------
// skeleton + range
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn skeleton_with_range_collapses_imports_exports_comments_and_directives() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    let (text, v) = read_ok(
        &srv,
        json!({"file": "app.ts", "startLine": 1, "endLine": 40, "skeleton": true}),
    )
    .await;
    assert_eq!(v["mode"], "range");
    let r = range_text(&text, "app.ts");
    assert_eq!((r.first, r.last), (1, 40));
    let expected = [
        "--- directive (line 1) ---\n".to_string(),
        "--- imports (2 items, lines 2-3) ---\n".into(),
        "\n".into(),
        "--- comment (line 5) ---\n".into(),
        "\n".into(),
        stub("CONFIG", "constant", 7, 10),
        "\n".into(),
        stub("logger", "variable", 11, 11),
        "\n".into(),
        stub("initializeApp", "function", 12, 14),
        "\n".into(),
        stub("Id", "type", 16, 16),
        "\n".into(),
        stub("Shape", "interface", 17, 19),
        "\n".into(),
        stub("Color", "enum", 20, 20),
        "\n".into(),
        stub("NS", "namespace", 21, 23),
        "\n".into(),
        stub("Base", "class", 24, 34),
        "\n".into(),
        stub("main", "function", 35, 37),
        "\n".into(),
        "app.listen(3000);\n".into(),
        "--- export (line 40) ---\n".into(),
    ]
    .concat();
    assert_eq!(r.body, expected);
    assert_stub_spacing(&r.body);
    // Only gaps are raw: no import/export/comment text shows.
    for hidden in ["import ", "// Orphan", "export {", "use client"] {
        assert!(
            !r.body.contains(hidden),
            "{hidden:?} collapsed:\n{}",
            r.body
        );
    }
}

#[tokio::test]
async fn skeleton_with_range_collapses_whole_blocks_it_touches() {
    let src = "\
#!/usr/bin/env node
'use strict';
import a from 'a';
import b from 'b';
import c from 'c';
// first
// second
export { a };
export { b };
run();
";
    let (_fx, srv) = serve(&[("col.js", src)]).await;
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "col.js", "startLine": 4, "endLine": 6, "skeleton": true}),
        )
        .await,
        "col.js",
    );
    assert_eq!((r.first, r.last), (3, 7), "snapped to the touched blocks");
    assert_eq!(
        r.body,
        "--- imports (3 items, lines 3-5) ---\n--- comments (2 items, lines 6-7) ---\n"
    );
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "col.js", "skeleton": true, "endLine": 10}),
        )
        .await,
        "col.js",
    );
    assert_eq!(
        r.body,
        "--- directives (2 items, lines 1-2) ---\n\
         --- imports (3 items, lines 3-5) ---\n\
         --- comments (2 items, lines 6-7) ---\n\
         --- exports (2 items, lines 8-9) ---\n\
         run();\n"
    );
}

// ---------------------------------------------------------------------------------------------
// Enhanced skeleton
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn enhanced_skeleton_lists_every_category_and_the_gaps() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    let (text, v) = read_ok(&srv, json!({"file": "app.ts", "skeleton": true})).await;
    let body = after_header(&text, "app.ts");
    assert!(
        body.starts_with("**Skeleton Mode** (14 symbols)\n"),
        "{body}"
    );
    let section = |title: &str| -> Vec<String> {
        let start = body
            .find(&format!("\n{title}"))
            .unwrap_or_else(|| panic!("no {title} section:\n{body}"));
        body[start + 1..]
            .lines()
            .skip(1)
            .take_while(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        section("**Imports (2):**"),
        ["  [2] named-import: { foo }", "  [3] default-import: baz"]
    );
    assert_eq!(
        section("**Exports (1):**"),
        ["  [40] named-export: { logger }"]
    );
    assert_eq!(
        section("**Comments (1):**"),
        ["  [5] line-comment: Orphan comment"]
    );
    assert_eq!(
        section("**Directives (1):**"),
        ["  [1] directive: use client"]
    );
    assert_eq!(
        section("**Symbols (14):**"),
        [
            "  [7-10] constant: CONFIG",
            "  [11-11] variable: logger",
            "  [12-14] function: initializeApp",
            "  [16-16] type: Id",
            "  [17-19] interface: Shape",
            "  [20-20] enum: Color",
            "  [21-23] namespace: NS",
            "    [22-22] variable: NS.inner",
            "  [24-34] class: Base",
            "    [26-26] method: Base.run",
            "    [27-29] method: Base.handler",
            "    [30-32] method: Base.start",
            "    [33-33] method: Base.stop",
            "  [35-37] function: main",
        ]
    );
    assert_eq!(
        section("**Gaps:**"),
        [
            "  [4] (blank)",
            "  [6] (blank)",
            "  [15] (blank)",
            "  [38] (blank)",
            "  [39] app.listen(3000);",
        ]
    );
    assert_eq!(v["mode"], "skeleton");
    assert_eq!(v["start_line"], Value::Null);
    assert_eq!(symbols(&v).len(), 14, "every symbol, members too");
}

#[tokio::test]
async fn enhanced_skeleton_gap_formats() {
    let src = "\
import a from 'a';



a.start();
app.use(
  cors(),
);
;

function f() {}
";
    let (_fx, srv) = serve(&[("gaps.ts", src)]).await;
    let text = read_text(&srv, json!({"file": "gaps.ts", "skeleton": true})).await;
    let gaps = text
        .split_once("\n**Gaps:**\n")
        .unwrap_or_else(|| panic!("a Gaps section:\n{text}"))
        .1;
    assert_eq!(
        gaps,
        "  [2-4] (3 blank lines)\n\
         \x20 [5] a.start();\n\
         \x20 [6-8]\n\
         \x20   app.use(\n\
         \x20     cors(),\n\
         \x20   );\n\
         \x20 [9] ;\n\
         \x20 [10] (blank)\n"
    );
}

// ---------------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn target_by_name_includes_export_decorators_and_doc_comment() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    let (text, v) = read_ok(&srv, json!({"file": "app.ts", "target": "CONFIG"})).await;
    assert_eq!(
        after_header(&text, "app.ts"),
        format!("### CONFIG (constant, lines 7-10)\n\n{}", lines(APP, 7, 10))
    );
    assert!(
        text.contains("/** The config. */\nexport const CONFIG"),
        "{text}"
    );
    assert_eq!(v["mode"], "target");
    assert_eq!(symbols(&v), vec![sym("CONFIG", "constant", 7, 10)]);

    let text = read_text(
        &srv,
        json!({"file": "app.ts", "target": "Base", "recursive": true}),
    )
    .await;
    assert_eq!(
        after_header(&text, "app.ts"),
        format!("### Base (class, lines 24-34)\n\n{}", lines(APP, 24, 34))
    );
    assert!(
        text.contains("@Component({ selector: 'x' })\nexport abstract class Base {"),
        "decorator and export grown in:\n{text}"
    );

    // A doc comment separated by a blank line is not the symbol's.
    let src = "/** Orphan. */\n\nfunction f() {}\n// Owned.\nfunction g() {}\n";
    let (_fx2, srv2) = serve(&[("d.ts", src)]).await;
    let (_, v) = read_ok(&srv2, json!({"file": "d.ts", "target": ["f", "g"]})).await;
    assert_eq!(
        symbols(&v),
        vec![sym("f", "function", 3, 3), sym("g", "function", 4, 5)]
    );
}

#[tokio::test]
async fn target_qualified_member_name() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    let (text, v) = read_ok(&srv, json!({"file": "app.ts", "target": "Base.start"})).await;
    assert_eq!(
        after_header(&text, "app.ts"),
        format!(
            "### Base.start (method, lines 30-32)\n\n{}",
            lines(APP, 30, 32)
        )
    );
    assert_eq!(symbols(&v), vec![sym("Base.start", "method", 30, 32)]);
    // A unique member name works unqualified too; so does `::`.
    for t in ["start", "Base::start"] {
        let (_, v) = read_ok(&srv, json!({"file": "app.ts", "target": t})).await;
        assert_eq!(
            symbols(&v),
            vec![sym("Base.start", "method", 30, 32)],
            "{t}"
        );
    }
    let (_, v) = read_ok(&srv, json!({"file": "app.ts", "target": "NS.inner"})).await;
    assert_eq!(symbols(&v), vec![sym("NS.inner", "variable", 22, 22)]);
}

#[tokio::test]
async fn several_targets_in_one_call() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    let (text, v) = read_ok(
        &srv,
        json!({"file": "app.ts", "target": ["Base.start", "CONFIG", "nope"]}),
    )
    .await;
    assert_eq!(
        after_header(&text, "app.ts"),
        format!(
            "### Base.start (method, lines 30-32)\n\n{}\n### CONFIG (constant, lines 7-10)\n\n{}\n### nope: not found\nTop-level symbols: CONFIG, logger, initializeApp, Id, Shape, Color, NS, Base, main.\n",
            lines(APP, 30, 32),
            lines(APP, 7, 10)
        )
    );
    assert_eq!(
        symbols(&v),
        vec![
            sym("Base.start", "method", 30, 32),
            sym("CONFIG", "constant", 7, 10)
        ]
    );
}

const AMB: &str = "\
class A {
  run() {
    return 1;
  }
}
class B {
  run() {
    return 2;
  }
}
";

#[tokio::test]
async fn ambiguous_target_lists_the_candidates() {
    let (_fx, srv) = serve(&[("amb.ts", AMB)]).await;
    // The only target: an error.
    let e = read_err(&srv, json!({"file": "amb.ts", "target": "run"})).await;
    assert_eq!(e.short, "Ambiguous target");
    assert_eq!(
        e.problem,
        "'run' names 2 symbols:\n  - A.run (method, lines 2-4)\n  - B.run (method, lines 7-9)"
    );
    assert!(e.fix.contains("{ target: \"A.run\" }"), "{e:?}");
    // The fix's suggestion works.
    let (_, v) = read_ok(&srv, json!({"file": "amb.ts", "target": "B.run"})).await;
    assert_eq!(symbols(&v), vec![sym("B.run", "method", 7, 9)]);
    // Among others: listed in the answer, the others read.
    let (text, v) = read_ok(&srv, json!({"file": "amb.ts", "target": ["run", "A"]})).await;
    assert!(
        after_header(&text, "amb.ts").starts_with(
            "### run: ambiguous (2 symbols)\n  - A.run (method, lines 2-4)\n  - B.run (method, lines 7-9)\n"
        ),
        "{text}"
    );
    assert_eq!(symbols(&v), vec![sym("A", "class", 1, 5)]);
}

#[tokio::test]
async fn unknown_target_suggests_names() {
    let (_fx, srv) = serve(&[("app.ts", APP), ("amb.ts", AMB)]).await;
    let e = read_err(&srv, json!({"file": "app.ts", "target": "initalizeApp"})).await;
    assert_eq!(e.short, "Symbol not found");
    assert_eq!(e.provided, "file=\"app.ts\", target=[\"initalizeApp\"]");
    assert_eq!(
        e.problem,
        "No symbol named 'initalizeApp'. Did you mean:\n  - initializeApp (function, lines 12-14)"
    );
    assert!(e.fix.contains("skeleton: true"), "{e:?}");
    // Nothing close: the top-level names.
    let e = read_err(&srv, json!({"file": "amb.ts", "target": "zzzzzz"})).await;
    assert_eq!(
        e.problem,
        "No symbol named 'zzzzzz'. Top-level symbols: A, B."
    );
    // Several targets, none found: one error naming each.
    let e = read_err(&srv, json!({"file": "amb.ts", "target": ["zzz", "run"]})).await;
    assert_eq!(e.short, "No target found");
    assert!(e.problem.contains("### zzz: not found"), "{e:?}");
    assert!(
        e.problem.contains("### run: ambiguous (2 symbols)"),
        "{e:?}"
    );
}

#[tokio::test]
async fn members_collapse_to_stubs_unless_recursive() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    let (text, v) = read_ok(&srv, json!({"file": "app.ts", "target": "Base"})).await;
    let body = after_header(&text, "app.ts");
    assert_eq!(
        body,
        format!(
            "### Base (class, lines 24-34)\n\n{}\n{}\n{}\n{}",
            lines(APP, 24, 26),
            stub("Base.handler", "method", 27, 29),
            stub("Base.start", "method", 30, 32),
            lines(APP, 33, 34),
        ),
        "members of more than one line collapse; one-line members stay raw"
    );
    assert_stub_spacing(body.split_once("\n\n").unwrap().1);
    assert_eq!(symbols(&v), vec![sym("Base", "class", 24, 34)]);
    assert_stubs_resolve(&srv, "app.ts", &text).await;

    let text = read_text(
        &srv,
        json!({"file": "app.ts", "target": "Base", "recursive": true}),
    )
    .await;
    assert!(!text.contains("--- symbol"), "{text}");
    assert!(text.contains(&lines(APP, 24, 34)), "{text}");
}

#[tokio::test]
async fn typescript_symbol_kinds() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    let cases: &[(&str, &str, u64, u64)] = &[
        ("Id", "type", 16, 16),
        ("Shape", "interface", 17, 19),
        ("Color", "enum", 20, 20),
        ("NS", "namespace", 21, 23),
        ("Base", "class", 24, 34),
        ("Base.handler", "method", 27, 29),
        ("Base.run", "method", 26, 26),
        ("main", "function", 35, 37),
    ];
    for &(name, kind, a, b) in cases {
        let (text, v) = read_ok(
            &srv,
            json!({"file": "app.ts", "target": name, "recursive": true}),
        )
        .await;
        assert_eq!(symbols(&v), vec![sym(name, kind, a, b)], "{name}");
        assert_eq!(
            after_header(&text, "app.ts"),
            format!(
                "### {name} ({kind}, lines {a}-{b})\n\n{}",
                lines(APP, a as usize, b as usize)
            )
        );
    }
    // An anonymous default export is named `default`.
    let src = "export default function () {\n  return 0;\n}\nexport const handler = async (r: R) => {\n  return r;\n};\n";
    let (_fx2, srv2) = serve(&[("d.ts", src)]).await;
    let (_, v) = read_ok(
        &srv2,
        json!({"file": "d.ts", "target": ["default", "handler"]}),
    )
    .await;
    assert_eq!(
        symbols(&v),
        vec![
            sym("default", "function", 1, 3),
            sym("handler", "function", 4, 6)
        ]
    );
    // Overloads are read together.
    let src = "function over(a: string): void;\nfunction over(a: number): void;\nfunction over(a: any) {}\n";
    let (_fx3, srv3) = serve(&[("o.ts", src)]).await;
    let (_, v) = read_ok(&srv3, json!({"file": "o.ts", "target": "over"})).await;
    assert_eq!(
        symbols(&v),
        vec![
            sym("over", "function", 1, 1),
            sym("over", "function", 2, 2),
            sym("over", "function", 3, 3),
        ]
    );
}

#[tokio::test]
async fn use_client_is_a_directive_in_tsx() {
    let src = "\"use client\";\nimport React from 'react';\n\nexport default function Page() {\n  return <div>hi</div>;\n}\n";
    let (_fx, srv) = serve(&[("page.tsx", src)]).await;
    let (text, v) = read_ok(&srv, json!({"file": "page.tsx", "skeleton": true})).await;
    assert_eq!(v["language"], "tsx");
    assert!(
        text.contains("**Directives (1):**\n  [1] directive: use client\n"),
        "{text}"
    );
    assert_eq!(symbols(&v), vec![sym("Page", "function", 4, 6)]);
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "page.tsx", "startLine": 1, "endLine": 6, "skeleton": true}),
        )
        .await,
        "page.tsx",
    );
    assert_eq!(
        r.body,
        format!(
            "--- directive (line 1) ---\n--- import (line 2) ---\n\n{}",
            stub("Page", "function", 4, 6)
        )
    );
}

#[tokio::test]
async fn javascript_require_imports_directives_and_class() {
    let (_fx, srv) = serve(&[("lib.js", LIB_JS)]).await;
    let (text, v) = read_ok(&srv, json!({"file": "lib.js", "skeleton": true})).await;
    assert_eq!(v["language"], "javascript");
    for part in [
        "**Imports (2):**\n  [3] require: fs\n  [4] require: { join }\n",
        "**Directives (2):**\n  [1] shebang: #!/usr/bin/env node\n  [2] directive: use strict\n",
        "**Comments (1):**\n  [6] line-comment: helpers\n",
        "**Exports (1):**\n  [25] commonjs-export: module.exports\n",
    ] {
        assert!(text.contains(part), "{part:?} in:\n{text}");
    }
    assert_eq!(
        symbols(&v),
        vec![
            sym("readIt", "function", 8, 13),
            sym("Store", "class", 14, 22),
            sym("Store.constructor", "method", 15, 17),
            sym("Store.add", "method", 18, 18),
            sym("Store.size", "method", 19, 21),
            sym("MAX", "constant", 23, 23),
            sym("helper", "function", 24, 24),
        ]
    );
    // `require`s are not symbols: a range shows them raw.
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "lib.js", "startLine": 1, "endLine": 8}),
        )
        .await,
        "lib.js",
    );
    assert_eq!(
        r.body,
        format!(
            "{}\n{}",
            lines(LIB_JS, 1, 6),
            stub("readIt", "function", 8, 13)
        )
    );
    let e = read_err(&srv, json!({"file": "lib.js", "target": "fs"})).await;
    assert_eq!(e.short, "Symbol not found", "{e:?}");
    // The JSDoc block is grown into the function.
    let text = read_text(&srv, json!({"file": "lib.js", "target": "readIt"})).await;
    assert_eq!(
        after_header(&text, "lib.js"),
        format!(
            "### readIt (function, lines 8-13)\n\n{}",
            lines(LIB_JS, 8, 13)
        )
    );
}

#[tokio::test]
async fn every_stub_of_a_full_range_resolves_as_a_target() {
    let (_fx, srv) = serve(&[("app.ts", APP), ("lib.js", LIB_JS)]).await;
    for (file, total) in [("app.ts", 40), ("lib.js", 25)] {
        let text = read_text(
            &srv,
            json!({"file": file, "startLine": 1, "endLine": total}),
        )
        .await;
        assert_stubs_resolve(&srv, file, &text).await;
    }
}

#[tokio::test]
async fn target_on_a_file_without_structure_is_an_error() {
    let (_fx, srv) = serve(&[("notes.txt", "function f() {}\n")]).await;
    let e = read_err(&srv, json!({"file": "notes.txt", "target": "f"})).await;
    assert_eq!(e.short, "No symbols in this file type");
    assert!(e.problem.contains(".ts"), "{e:?}");
}

#[tokio::test]
async fn path_is_an_alias_of_file() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;
    let (text, v) = read_ok(&srv, json!({"path": "app.ts", "target": "Id"})).await;
    assert!(text.starts_with("## file_read: app.ts\n"), "{text}");
    assert_eq!(v["file"], "app.ts");
    assert_eq!(symbols(&v), vec![sym("Id", "type", 16, 16)]);
}

// ---------------------------------------------------------------------------------------------
// Structured content, one call per mode
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn structured_content_of_each_mode() {
    let (_fx, srv) = serve(&[("app.ts", APP)]).await;

    let (_, v) = read_ok(
        &srv,
        json!({"file": "app.ts", "startLine": 3, "endLine": 14}),
    )
    .await;
    assert_eq!(v["file"], "app.ts");
    assert_eq!(v["mode"], "range");
    assert_eq!(v["total_lines"], 40);
    assert_eq!(
        (v["start_line"].as_u64(), v["end_line"].as_u64()),
        (Some(2), Some(14))
    );
    assert_eq!(
        symbols(&v),
        vec![
            sym("CONFIG", "constant", 7, 10),
            sym("logger", "variable", 11, 11),
            sym("initializeApp", "function", 12, 14),
        ]
    );
    assert_eq!(v["truncated"], false);

    let (_, v) = read_ok(&srv, json!({"file": "app.ts", "skeleton": true})).await;
    assert_eq!(v["mode"], "skeleton");
    assert_eq!(v["total_lines"], 40);
    let syms = symbols(&v);
    assert!(
        syms.contains(&sym("Base.handler", "method", 27, 29)),
        "{syms:?}"
    );
    assert_eq!(syms[7].0, "NS.inner");
    assert_eq!(v["language"], "typescript");

    let (_, v) = read_ok(&srv, json!({"file": "app.ts", "target": "Base.stop"})).await;
    assert_eq!(v["mode"], "target");
    assert_eq!(symbols(&v)[0].0, "Base.stop");
    assert_eq!(v["start_line"], Value::Null);

    // The whole file is the range of all its lines.
    let (text, v) = read_ok(&srv, json!({"file": "app.ts"})).await;
    assert_eq!(v["mode"], "range");
    assert_eq!(
        (v["start_line"].as_u64(), v["end_line"].as_u64()),
        (Some(1), Some(40))
    );
    assert_eq!(range_text(&text, "app.ts").body, APP, "the whole file, raw");
    assert_eq!(symbols(&v), vec![]);
}

// ---------------------------------------------------------------------------------------------
// Snapshots: one full output per format
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn snapshots_of_each_format() {
    let (_fx, srv) = serve(&[("app.ts", APP), ("lib.js", LIB_JS)]).await;
    let range = read_text(
        &srv,
        json!({"file": "app.ts", "startLine": 1, "endLine": 40}),
    )
    .await;
    insta::assert_snapshot!("range_ts", range);
    let skeleton_range = read_text(
        &srv,
        json!({"file": "app.ts", "startLine": 1, "endLine": 40, "skeleton": true}),
    )
    .await;
    insta::assert_snapshot!("skeleton_range_ts", skeleton_range);
    let skeleton = read_text(&srv, json!({"file": "app.ts", "skeleton": true})).await;
    insta::assert_snapshot!("skeleton_ts", skeleton);
    let target = read_text(
        &srv,
        json!({"file": "app.ts", "target": ["Base", "CONFIG"]}),
    )
    .await;
    insta::assert_snapshot!("target_collapsed_ts", target);
    let target = read_text(&srv, json!({"file": "lib.js", "target": "Store"})).await;
    insta::assert_snapshot!("target_collapsed_js", target);
    srv.shutdown().await;
}
