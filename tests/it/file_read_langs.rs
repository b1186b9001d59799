//! `file_read` (docs/file_read.md) on Rust, Python and Go through the MCP server: targets with each
//! language's qualified names, what grows into a symbol's range (docs, attributes,
//! decorators), directives, comments and gaps, skeletons and structured ranges.

use serde_json::json;

use crate::common::lines;

use crate::file_read::{
    after_header, assert_stub_spacing, assert_stubs_resolve, range_text, read_err, read_ok,
    read_text, serve, stub, sym, symbols,
};

// ---------------------------------------------------------------------------------------------
// Rust
// ---------------------------------------------------------------------------------------------

const RUST: &str = r#"//! Crate docs.
#![allow(dead_code)]

use std::fmt::{self, Display};
use std::collections::HashMap;

/// A foo.
#[derive(Debug, Clone)]
pub struct Foo {
    x: i32,
}

impl Foo {
    /// Makes one.
    pub fn new() -> Self {
        Foo { x: 0 }
    }
    pub fn get(&self) -> i32 { self.x }
}

impl Display for Foo {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.x)
    }
}

pub trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> String {
        "shape".into()
    }
}

const MAX: usize = 3;
#[cfg(test)]
mod tests {
    #[test]
    fn works() {}
}
"#;

#[tokio::test]
async fn rust_impl_method_is_type_dot_method() {
    let (_fx, srv) = serve(&[("lib.rs", RUST)]).await;
    for t in ["Foo.new", "Foo::new", "new"] {
        let (text, v) = read_ok(&srv, json!({"file": "lib.rs", "target": t})).await;
        assert_eq!(symbols(&v), vec![sym("Foo.new", "method", 14, 17)], "{t}");
        assert_eq!(
            after_header(&text, "lib.rs"),
            format!(
                "### Foo.new (method, lines 14-17)\n\n{}",
                lines(RUST, 14, 17)
            ),
            "the `///` doc comment is part of the method"
        );
    }
    let (_, v) = read_ok(&srv, json!({"file": "lib.rs", "target": "Foo.get"})).await;
    assert_eq!(symbols(&v), vec![sym("Foo.get", "method", 18, 18)]);
    // `Foo` is the struct, not its impl.
    let (_, v) = read_ok(&srv, json!({"file": "lib.rs", "target": "Foo"})).await;
    assert_eq!(symbols(&v), vec![sym("Foo", "struct", 7, 11)]);
}

#[tokio::test]
async fn rust_derive_and_doc_comments_grow_into_the_range() {
    let (_fx, srv) = serve(&[("lib.rs", RUST)]).await;
    let text = read_text(&srv, json!({"file": "lib.rs", "target": "Foo"})).await;
    assert_eq!(
        after_header(&text, "lib.rs"),
        "### Foo (struct, lines 7-11)\n\n/// A foo.\n#[derive(Debug, Clone)]\npub struct Foo {\n    x: i32,\n}\n"
    );
    let (text, v) = read_ok(&srv, json!({"file": "lib.rs", "target": "tests"})).await;
    assert_eq!(symbols(&v), vec![sym("tests", "module", 35, 39)]);
    assert_eq!(
        after_header(&text, "lib.rs"),
        format!(
            "### tests (module, lines 35-39)\n\n#[cfg(test)]\nmod tests {{\n\n{}\n}}\n",
            stub("tests.works", "function", 37, 38)
        ),
        "#[cfg(test)] belongs to the module; #[test] to the function"
    );
}

#[tokio::test]
async fn rust_impl_blocks_and_traits() {
    let (_fx, srv) = serve(&[("lib.rs", RUST)]).await;
    let (text, v) = read_ok(
        &srv,
        json!({"file": "lib.rs", "target": "impl Display for Foo"}),
    )
    .await;
    assert_eq!(
        symbols(&v),
        vec![sym("impl Display for Foo", "impl", 21, 25)]
    );
    assert_eq!(
        after_header(&text, "lib.rs"),
        format!(
            "### impl Display for Foo (impl, lines 21-25)\n\nimpl Display for Foo {{\n\n{}\n}}\n",
            stub("Foo.fmt", "method", 22, 24)
        )
    );
    let (_, v) = read_ok(&srv, json!({"file": "lib.rs", "target": "Foo.fmt"})).await;
    assert_eq!(symbols(&v), vec![sym("Foo.fmt", "method", 22, 24)]);
    let (text, _) = read_ok(&srv, json!({"file": "lib.rs", "target": "impl Foo"})).await;
    assert_eq!(
        after_header(&text, "lib.rs"),
        format!(
            "### impl Foo (impl, lines 13-19)\n\nimpl Foo {{\n\n{}\n    pub fn get(&self) -> i32 {{ self.x }}\n}}\n",
            stub("Foo.new", "method", 14, 17)
        )
    );
    // A trait: the provided method collapses, the one-line signature stays.
    let (text, v) = read_ok(&srv, json!({"file": "lib.rs", "target": "Shape"})).await;
    assert_eq!(symbols(&v), vec![sym("Shape", "trait", 27, 32)]);
    assert_eq!(
        after_header(&text, "lib.rs"),
        format!(
            "### Shape (trait, lines 27-32)\n\n{}\n{}\n}}\n",
            lines(RUST, 27, 28),
            stub("Shape.name", "method", 29, 31)
        )
    );
    let text = read_text(
        &srv,
        json!({"file": "lib.rs", "target": "Shape", "recursive": true}),
    )
    .await;
    assert_eq!(
        after_header(&text, "lib.rs"),
        format!("### Shape (trait, lines 27-32)\n\n{}", lines(RUST, 27, 32))
    );
}

#[tokio::test]
async fn rust_skeleton_directives_comments_and_range() {
    let (_fx, srv) = serve(&[("lib.rs", RUST)]).await;
    let (text, v) = read_ok(&srv, json!({"file": "lib.rs", "skeleton": true})).await;
    assert_eq!(v["language"], "rust");
    for part in [
        "**Imports (2):**\n  [4] use: std::fmt::{self, Display}\n  [5] use: std::collections::HashMap\n",
        "**Comments (1):**\n  [1] doc-comment: Crate docs.\n",
        "**Directives (1):**\n  [2] inner-attribute: #![allow(dead_code)]\n",
        "  [21-25] impl: impl Display for Foo\n    [22-24] method: Foo.fmt\n",
    ] {
        assert!(text.contains(part), "{part:?} in:\n{text}");
    }
    insta::assert_snapshot!("skeleton_rust", text);

    let (text, v) = read_ok(
        &srv,
        json!({"file": "lib.rs", "startLine": 1, "endLine": 39}),
    )
    .await;
    let r = range_text(&text, "lib.rs");
    assert_eq!(
        r.body,
        [
            lines(RUST, 1, 6),
            stub("Foo", "struct", 7, 11),
            "\n".into(),
            stub("impl Foo", "impl", 13, 19),
            "\n".into(),
            stub("impl Display for Foo", "impl", 21, 25),
            "\n".into(),
            stub("Shape", "trait", 27, 32),
            "\n".into(),
            stub("MAX", "constant", 34, 34),
            "\n".into(),
            stub("tests", "module", 35, 39),
        ]
        .concat()
    );
    assert_stub_spacing(&r.body);
    assert_eq!(symbols(&v).len(), 6, "top-level symbols only");
    assert_stubs_resolve(&srv, "lib.rs", &text).await;

    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "lib.rs", "startLine": 2, "endLine": 9, "skeleton": true}),
        )
        .await,
        "lib.rs",
    );
    assert_eq!((r.first, r.last), (2, 9));
    assert_eq!(
        r.body,
        format!(
            "--- directive (line 2) ---\n\n--- imports (2 items, lines 4-5) ---\n\n{}",
            stub("Foo", "struct", 7, 11)
        )
    );
}

const RUST_PATH_TRAITS: &str = "\
use std::fmt;
struct Foo;
impl fmt::Display for Foo {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, \"d\")
    }
}
impl fmt::Debug for Foo {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, \"g\")
    }
}
";

#[tokio::test]

async fn rust_impl_of_a_path_trait_is_readable_by_its_stub_name() {
    let (_fx, srv) = serve(&[("two.rs", RUST_PATH_TRAITS)]).await;
    let (_, v) = read_ok(
        &srv,
        json!({"file": "two.rs", "target": "impl fmt::Display for Foo"}),
    )
    .await;
    assert_eq!(
        symbols(&v),
        vec![sym("impl fmt::Display for Foo", "impl", 3, 7)]
    );
    let text = read_text(
        &srv,
        json!({"file": "two.rs", "startLine": 1, "endLine": 12}),
    )
    .await;
    assert_stubs_resolve(&srv, "two.rs", &text).await;
}

#[tokio::test]

async fn rust_ambiguous_trait_methods_have_a_usable_fix() {
    let (_fx, srv) = serve(&[("two.rs", RUST_PATH_TRAITS)]).await;
    let e = read_err(&srv, json!({"file": "two.rs", "target": "Foo.fmt"})).await;
    assert_eq!(e.short, "Ambiguous target");
    let suggested = e
        .fix
        .split_once("{ target: \"")
        .and_then(|(_, r)| r.split_once('"'))
        .map(|(name, _)| name.to_string())
        .unwrap_or_else(|| panic!("a suggested target in the Fix: {e:?}"));
    let (_, v) = read_ok(&srv, json!({"file": "two.rs", "target": suggested})).await;
    assert_eq!(symbols(&v).len(), 1, "the suggestion reads one symbol");
}

// ---------------------------------------------------------------------------------------------
// Python
// ---------------------------------------------------------------------------------------------

const PYTHON: &str = r#""""Module docstring."""
import os
from typing import List

# a comment

CONST = 1


@decorator
def top(a):
    return a


class C:
    """Doc."""

    @property
    def m(self):
        return 1

    def other(self):
        pass


if __name__ == "__main__":
    top(1)
"#;

#[tokio::test]
async fn python_decorated_functions_and_methods() {
    let (_fx, srv) = serve(&[("m.py", PYTHON)]).await;
    let (text, v) = read_ok(&srv, json!({"file": "m.py", "target": "top"})).await;
    assert_eq!(symbols(&v), vec![sym("top", "function", 10, 12)]);
    assert_eq!(
        after_header(&text, "m.py"),
        "### top (function, lines 10-12)\n\n@decorator\ndef top(a):\n    return a\n"
    );
    let (text, v) = read_ok(&srv, json!({"file": "m.py", "target": "C.m"})).await;
    assert_eq!(symbols(&v), vec![sym("C.m", "method", 18, 20)]);
    assert_eq!(
        after_header(&text, "m.py"),
        format!("### C.m (method, lines 18-20)\n\n{}", lines(PYTHON, 18, 20)),
        "the decorator is part of the method"
    );
    let (_, v) = read_ok(&srv, json!({"file": "m.py", "target": "other"})).await;
    assert_eq!(symbols(&v), vec![sym("C.other", "method", 22, 23)]);
    // The class: methods collapsed, its docstring and blank lines raw.
    let text = read_text(&srv, json!({"file": "m.py", "target": "C"})).await;
    assert_eq!(
        after_header(&text, "m.py"),
        format!(
            "### C (class, lines 15-23)\n\n{}{}\n{}",
            lines(PYTHON, 15, 17),
            stub("C.m", "method", 18, 20),
            stub("C.other", "method", 22, 23)
        )
    );
    let text = read_text(
        &srv,
        json!({"file": "m.py", "target": "C", "recursive": true}),
    )
    .await;
    assert_eq!(
        after_header(&text, "m.py"),
        format!("### C (class, lines 15-23)\n\n{}", lines(PYTHON, 15, 23))
    );
}

#[tokio::test]
async fn python_docstring_is_a_comment_and_main_guard_a_gap() {
    let (_fx, srv) = serve(&[("m.py", PYTHON)]).await;
    let (text, v) = read_ok(&srv, json!({"file": "m.py", "skeleton": true})).await;
    assert_eq!(v["language"], "python");
    for part in [
        "**Imports (2):**\n  [2] import: os\n  [3] from-import: typing import List\n",
        "**Comments (2):**\n  [1] docstring: Module docstring.\n  [5] line-comment: a comment\n",
        "  [8-9] (2 blank lines)\n",
        "  [26-27]\n    if __name__ == \"__main__\":\n        top(1)\n",
    ] {
        assert!(text.contains(part), "{part:?} in:\n{text}");
    }
    assert_eq!(
        symbols(&v),
        vec![
            sym("CONST", "constant", 7, 7),
            sym("top", "function", 10, 12),
            sym("C", "class", 15, 23),
            sym("C.m", "method", 18, 20),
            sym("C.other", "method", 22, 23),
        ]
    );
    insta::assert_snapshot!("skeleton_python", text);

    // One line of the `if __name__` block reads the whole statement, raw.
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "m.py", "startLine": 27, "endLine": 27}),
        )
        .await,
        "m.py",
    );
    assert_eq!((r.first, r.last), (26, 27));
    assert_eq!(r.body, lines(PYTHON, 26, 27));
    // The docstring collapses as a comment with skeleton.
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "m.py", "startLine": 1, "endLine": 3, "skeleton": true}),
        )
        .await,
        "m.py",
    );
    assert_eq!(
        r.body,
        "--- comment (line 1) ---\n--- imports (2 items, lines 2-3) ---\n"
    );
}

#[tokio::test]
async fn python_range_stubs() {
    let (_fx, srv) = serve(&[("m.py", PYTHON)]).await;
    let (text, v) = read_ok(&srv, json!({"file": "m.py", "startLine": 5, "endLine": 16})).await;
    let r = range_text(&text, "m.py");
    assert_eq!((r.first, r.last), (5, 16));
    // The file's own blank lines (two between top-level definitions) stay as they are; the
    // stubs add none next to them.
    assert_eq!(
        r.body,
        [
            lines(PYTHON, 5, 6),
            stub("CONST", "constant", 7, 7),
            lines(PYTHON, 8, 9),
            stub("top", "function", 10, 12),
            lines(PYTHON, 13, 14),
            stub("C", "class", 15, 23),
        ]
        .concat()
    );
    assert_eq!(
        symbols(&v),
        vec![
            sym("CONST", "constant", 7, 7),
            sym("top", "function", 10, 12),
            sym("C", "class", 15, 23),
        ]
    );
    assert_stubs_resolve(&srv, "m.py", &text).await;
}

// ---------------------------------------------------------------------------------------------
// Go
// ---------------------------------------------------------------------------------------------

const GO: &str = "\
// Package main does things.
package main

import (
\t\"fmt\"
\t\"os\"
)

const (
\tA = 1
\tB = 2
)

// Server serves.
type Server struct {
\taddr string
}

// Start starts.
func (s *Server) Start() error {
\tfmt.Println(s.addr)
\treturn nil
}

func main() {
\tos.Exit(0)
}
";

#[tokio::test]
async fn go_receiver_methods_package_and_grouped_const() {
    let (_fx, srv) = serve(&[("main.go", GO)]).await;
    for t in ["Server.Start", "Start"] {
        let (text, v) = read_ok(&srv, json!({"file": "main.go", "target": t})).await;
        assert_eq!(
            symbols(&v),
            vec![sym("Server.Start", "method", 19, 23)],
            "{t}"
        );
        assert_eq!(
            after_header(&text, "main.go"),
            format!(
                "### Server.Start (method, lines 19-23)\n\n{}",
                lines(GO, 19, 23)
            ),
            "the doc comment is part of the method"
        );
    }
    let (text, v) = read_ok(&srv, json!({"file": "main.go", "target": "Server"})).await;
    assert_eq!(symbols(&v), vec![sym("Server", "struct", 14, 17)]);
    assert!(
        text.contains("// Server serves.\ntype Server struct {"),
        "{text}"
    );
    // Grouped constants: one symbol each.
    let (_, v) = read_ok(&srv, json!({"file": "main.go", "target": ["A", "B"]})).await;
    assert_eq!(
        symbols(&v),
        vec![sym("A", "constant", 10, 10), sym("B", "constant", 11, 11)]
    );

    let (text, v) = read_ok(&srv, json!({"file": "main.go", "skeleton": true})).await;
    assert_eq!(v["language"], "go");
    for part in [
        "**Imports (1):**\n  [4-7] import: \"fmt\", \"os\"\n",
        "**Comments (1):**\n  [1] line-comment: Package main does things.\n",
        "**Directives (1):**\n  [2] package: main\n",
        "  [9] const (\n",
        "  [12] )\n",
    ] {
        assert!(text.contains(part), "{part:?} in:\n{text}");
    }
    insta::assert_snapshot!("skeleton_go", text);
}

#[tokio::test]
async fn go_range_stubs() {
    let (_fx, srv) = serve(&[("main.go", GO)]).await;
    // The grouped const: its parentheses are raw gap lines around the stubs.
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "main.go", "startLine": 9, "endLine": 12}),
        )
        .await,
        "main.go",
    );
    assert_eq!(
        r.body,
        format!(
            "const (\n\n{}\n{}\n)\n",
            stub("A", "constant", 10, 10),
            stub("B", "constant", 11, 11)
        )
    );
    assert_stub_spacing(&r.body);
    // One line of the import block reads the whole block.
    let r = range_text(
        &read_text(
            &srv,
            json!({"file": "main.go", "startLine": 5, "endLine": 5}),
        )
        .await,
        "main.go",
    );
    assert_eq!((r.first, r.last), (4, 7));
    assert_eq!(r.body, lines(GO, 4, 7));
    // The whole file, collapsed.
    let (text, _) = read_ok(
        &srv,
        json!({"file": "main.go", "startLine": 1, "endLine": 27, "skeleton": true}),
    )
    .await;
    let r = range_text(&text, "main.go");
    assert_eq!(
        r.body,
        [
            "--- comment (line 1) ---\n--- directive (line 2) ---\n\n".to_string(),
            "--- import (lines 4-7) ---\n\nconst (\n\n".into(),
            stub("A", "constant", 10, 10),
            "\n".into(),
            stub("B", "constant", 11, 11),
            "\n)\n\n".into(),
            stub("Server", "struct", 14, 17),
            "\n".into(),
            stub("Server.Start", "method", 19, 23),
            "\n".into(),
            stub("main", "function", 25, 27),
        ]
        .concat()
    );
    assert_stubs_resolve(&srv, "main.go", &text).await;
}

#[tokio::test]
async fn go_grouped_var_declarations_are_symbols_like_grouped_consts() {
    let src = "package main\n\nconst (\n\tA = 1\n)\n\nvar (\n\tx = 1\n\ty = 2\n)\n";
    let (_fx, srv) = serve(&[("v.go", src)]).await;
    let (_, v) = read_ok(&srv, json!({"file": "v.go", "skeleton": true})).await;
    assert_eq!(
        symbols(&v),
        vec![
            // A declaration of one entry is the symbol's range, `const (` and `)` included.
            sym("A", "constant", 3, 5),
            sym("x", "variable", 8, 8),
            sym("y", "variable", 9, 9),
        ]
    );
    let (_, v) = read_ok(&srv, json!({"file": "v.go", "target": "x"})).await;
    assert_eq!(symbols(&v), vec![sym("x", "variable", 8, 8)]);
}
