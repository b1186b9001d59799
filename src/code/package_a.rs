//! Packages of Python, Go, Rust, TypeScript and JavaScript files (see `package.rs`).

use tree_sitter::Node;

use super::Lang;

/// The package a file declares (Go's `package name`); empty for the others.
pub(super) fn of(_lang: Lang, _root: Node, _bytes: &[u8]) -> Vec<String> {
    Vec::new()
}

/// The module a file's path gives its symbols (Python, Rust).
pub(super) fn of_path(_lang: Lang, _rel: &str, _is_file: &dyn Fn(&str) -> bool) -> Vec<String> {
    Vec::new()
}
