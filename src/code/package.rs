//! The package, namespace or module a file's symbols are qualified with, as its language
//! writes it: declared in the file (`package java.util;`, `namespace App\\Http;`, `package
//! main`), or given by the file's path (a Python module `kunit_parser`, a Rust module
//! `crate::index::store`). Each group of languages has its own file: `package_a.rs` (Python,
//! Go, Rust, TypeScript, JavaScript), `package_b.rs` (Java, C#, Kotlin, Scala, Swift, Ruby,
//! PHP); C, C++ and shell declare none (C++ namespaces are containers of their symbols).

use tree_sitter::Node;

use super::Lang;

/// The package the file whose tree is `root` declares for its symbols, outermost first.
pub(super) fn of(lang: Lang, root: Node, bytes: &[u8]) -> Vec<String> {
    match lang {
        Lang::C | Lang::Cpp | Lang::Bash => Vec::new(),
        Lang::Python | Lang::Go | Lang::Rust | Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
            super::package_a::of(lang, root, bytes)
        }
        Lang::Java
        | Lang::CSharp
        | Lang::Kotlin
        | Lang::Scala
        | Lang::Swift
        | Lang::Ruby
        | Lang::Php => super::package_b::of(lang, root, bytes),
    }
}

/// The module a file's path gives its symbols in languages whose modules are files or
/// directories (Python: the dotted path below the topmost directory with an `__init__.py`;
/// Rust: the crate and the path below its `src/`; Go: the import path; TypeScript and
/// JavaScript: the file's stem), outermost first; empty for the others. `rel` is the file's path
/// below the root as a search shows it (on Windows with `\\`: read as `/`); `is_file` tells
/// whether a path beside it (`/`-separated) exists.
pub fn of_path(lang: Lang, rel: &str, is_file: &dyn Fn(&str) -> bool) -> Vec<String> {
    match lang {
        Lang::Python | Lang::Rust | Lang::Go | Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
            let rel = crate::platform::slashed(rel.into());
            super::package_a::of_path(lang, &rel, is_file)
        }
        _ => Vec::new(),
    }
}
