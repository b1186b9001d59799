//! Packages of Java, C#, Kotlin, Scala, Swift, Ruby and PHP files (see `package.rs`).
//!
//! The rules, one per language:
//! - Java `package java.util;`, Kotlin `package kotlinx.coroutines`: the file's package.
//! - Scala: the package clauses without a body that open the file, joined (`package scala`
//!   then `package collection` is `scala.collection`). A clause with a body (`package
//!   collection { ... }`) qualifies only what it holds (see `lang_b_names.rs`); a `package
//!   object p` is a symbol `p` holding the object `package`.
//! - C#: a file-scoped `namespace A.B;` is the file's package; a block `namespace A.B { }` is
//!   a container symbol, which qualifies its members (`A.B.Class.Method`).
//! - PHP: the first `namespace App\Http;` statement (one per file, as PSR-4 has it); a braced
//!   `namespace App\Http { }` is a container symbol, which qualifies its members.
//! - Swift declares none (a module is a build target); Ruby neither: its modules are nested
//!   containers (`module ActiveSupport; module Inflector` and `class ActiveSupport::Inflector`
//!   both qualify as `ActiveSupport.Inflector`).

use tree_sitter::Node;

use super::Lang;

/// The package or namespace a file declares for all its symbols (`package a.b;`,
/// `namespace A.B;`, `namespace App\\Http;`); empty when it declares none.
pub(super) fn of(lang: Lang, root: Node, bytes: &[u8]) -> Vec<String> {
    if matches!(lang, Lang::Swift | Lang::Ruby) {
        return Vec::new();
    }
    let text = |n: Node| std::str::from_utf8(&bytes[n.byte_range()]).unwrap_or("");
    let mut walk = root.walk();
    let mut package = Vec::new();
    for child in root.named_children(&mut walk) {
        match (lang, child.kind()) {
            (Lang::Java, "package_declaration") => {
                let mut w = child.walk();
                let name = child
                    .named_children(&mut w)
                    .find(|c| matches!(c.kind(), "scoped_identifier" | "identifier"));
                return name.map_or_else(Vec::new, |n| split(text(n), "."));
            }
            (Lang::Kotlin, "package_header") => {
                return child
                    .named_child(0)
                    .map_or_else(Vec::new, |n| split(text(n), "."));
            }
            (Lang::CSharp, "file_scoped_namespace_declaration") => {
                return child
                    .child_by_field_name("name")
                    .map_or_else(Vec::new, |n| split(text(n), "."));
            }
            (Lang::Php, "namespace_definition") if child.child_by_field_name("body").is_none() => {
                return child
                    .child_by_field_name("name")
                    .map_or_else(Vec::new, |n| split(text(n), "\\"));
            }
            // Chained clauses (`package scala` `package collection`) add up; one with a body
            // holds its own definitions, and ends the file's.
            (Lang::Scala, "package_clause") => {
                if child.child_by_field_name("body").is_some() {
                    break;
                }
                if let Some(n) = child.child_by_field_name("name") {
                    package.extend(split(text(n), "."));
                }
            }
            (Lang::Scala, kind) if lang.is_comment(kind) => {}
            (Lang::Scala, _) => break,
            _ => {}
        }
    }
    package
}

/// A package path split into its components, whitespace and backticks dropped.
pub(super) fn split(path: &str, separator: &str) -> Vec<String> {
    path.split(separator)
        .map(|part| {
            part.chars()
                .filter(|c| !c.is_whitespace() && *c != '`')
                .collect::<String>()
        })
        .filter(|part| !part.is_empty())
        .collect()
}
