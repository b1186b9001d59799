//! Packages of Java, C#, Kotlin, Scala, Swift, Ruby and PHP files (see `package.rs`).

use tree_sitter::Node;

use super::Lang;

/// The package or namespace a file declares for all its symbols (`package a.b;`,
/// `namespace A.B;`, `namespace App\\Http;`); empty when it declares none.
pub(super) fn of(_lang: Lang, _root: Node, _bytes: &[u8]) -> Vec<String> {
    Vec::new()
}
