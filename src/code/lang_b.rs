//! The per-language tables of Kotlin, Ruby, PHP, Swift and Scala (the other languages' are
//! in `lang.rs`): file names, transparent and container nodes, symbol kinds of their own.

use std::path::Path;

use tree_sitter::Node;

use super::builder::{Builder, ItemCat};
use super::describe::short;
use super::lang::Lang;

/// Symbol kinds these languages add to `lang.rs`'s: Kotlin and Scala `object`s, Swift
/// protocols and extensions.
pub(crate) const KINDS: [&str; 3] = ["object", "protocol", "extension"];

/// The language of a file by its extension (lower case).
pub(crate) fn from_extension(ext: &str) -> Option<Lang> {
    Some(match ext {
        "kt" | "kts" => Lang::Kotlin,
        "rb" | "rake" | "gemspec" | "ru" => Lang::Ruby,
        "php" => Lang::Php,
        "swift" => Lang::Swift,
        "scala" | "sc" => Lang::Scala,
        _ => return None,
    })
}

/// The language of a file known by its whole name (`Rakefile`, `Gemfile`).
pub(crate) fn from_file_name(path: &Path) -> Option<Lang> {
    let name = path.file_name()?.to_str()?;
    matches!(name, "Rakefile" | "Gemfile" | "Guardfile" | "Podfile").then_some(Lang::Ruby)
}

/// Node kinds a kept symbol may sit in without being a member of another symbol.
pub(crate) fn transparent(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Kotlin => matches!(kind, "source_file" | "class_body" | "enum_class_body"),
        // `class << self` holds singleton methods of the class around it.
        Lang::Ruby => matches!(kind, "program" | "body_statement" | "singleton_class"),
        Lang::Php => matches!(
            kind,
            "program" | "declaration_list" | "enum_declaration_list" | "compound_statement"
        ),
        Lang::Swift => matches!(
            kind,
            "source_file" | "class_body" | "enum_class_body" | "protocol_body"
        ),
        Lang::Scala => matches!(
            kind,
            "compilation_unit" | "template_body" | "enum_body" | "extension_definition"
        ),
        _ => false,
    }
}

/// Node kinds of definitions whose bodies hold member symbols.
pub(crate) fn is_container_node(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Kotlin => matches!(
            kind,
            "class_declaration" | "object_declaration" | "companion_object"
        ),
        Lang::Ruby => matches!(kind, "module" | "class"),
        Lang::Php => matches!(
            kind,
            "class_declaration"
                | "interface_declaration"
                | "trait_declaration"
                | "enum_declaration"
                | "namespace_definition"
        ),
        Lang::Swift => matches!(kind, "class_declaration" | "protocol_declaration"),
        Lang::Scala => matches!(
            kind,
            "class_definition" | "object_definition" | "trait_definition" | "enum_definition"
        ),
        _ => false,
    }
}

/// Symbol kinds whose members are symbols too, beyond the ones every language has.
pub(crate) fn is_container_kind(lang: Lang, kind: &str) -> bool {
    is_b(lang)
        && matches!(
            kind,
            "object" | "protocol" | "extension" | "struct" | "enum"
        )
}

/// Whether `lang` is one of this file's languages.
pub(crate) fn is_b(lang: Lang) -> bool {
    matches!(
        lang,
        Lang::Kotlin | Lang::Ruby | Lang::Php | Lang::Swift | Lang::Scala
    )
}

/// Line starts where a large file may be cut in two for parsing (see `build::split_point`).
pub(crate) fn split_starts(lang: Lang) -> &'static [&'static [u8]] {
    match lang {
        Lang::Kotlin => &[b"fun ", b"class ", b"data class ", b"object ", b"/**"],
        Lang::Ruby => &[b"def ", b"class ", b"module "],
        // A PHP half without its `<?php` would read as HTML text: never cut.
        Lang::Php => &[],
        Lang::Swift => &[b"func ", b"struct ", b"class ", b"extension ", b"///"],
        Lang::Scala => &[b"def ", b"class ", b"object ", b"trait ", b"/**"],
        _ => &[],
    }
}

/// A symbol's kind, name, owner and scope (see [`Naming`]).
pub(super) type NamingParts = (&'static str, String, Option<String>, Option<String>);

/// A symbol's naming while it is built: what [`Builder::name_b`] may change.
struct Naming {
    kind: &'static str,
    name: String,
    /// The qualified name of the symbol's owner (`None` at the top level).
    owner: Option<String>,
    /// The scope its members are qualified with (`None`: its qualified name).
    scope: Option<String>,
}

impl Builder<'_> {
    /// Names a symbol of these languages: Kotlin companion objects (`Companion` unless
    /// named; their members are the class's) and extension functions (`String.slugify`),
    /// Ruby `class A::B` (`B` in `A`) and `def obj.x`, Swift extensions (`extension T`,
    /// whose members are `T`'s); functions inside a type are its methods.
    pub(super) fn name_b(
        &self,
        node: Node,
        parent_kind: Option<&str>,
        (kind, name, owner, scope): NamingParts,
    ) -> NamingParts {
        let mut n = Naming {
            kind,
            name,
            owner,
            scope,
        };
        let n = &mut n;
        match (self.lang, node.kind()) {
            (Lang::Kotlin, "companion_object") => {
                if let Some(name) = node.child_by_field_name("name") {
                    n.name = self.text(name).to_string();
                } else {
                    n.name = "Companion".to_string();
                }
                n.scope = Some(n.owner.clone().unwrap_or_default());
            }
            (Lang::Kotlin, "function_declaration") if parent_kind.is_none() => {
                if let Some(receiver) = self.kotlin_receiver(node) {
                    n.owner = Some(receiver);
                }
            }
            (Lang::Ruby, "class" | "module") if n.name.contains("::") => {
                let path: Vec<&str> = n.name.split("::").filter(|s| !s.is_empty()).collect();
                if let Some((last, outer)) = path.split_last() {
                    let mut owner = n.owner.take().unwrap_or_default();
                    for part in outer {
                        if !owner.is_empty() {
                            owner.push('.');
                        }
                        owner.push_str(part);
                    }
                    n.owner = Some(owner);
                    n.name = last.to_string();
                }
            }
            (Lang::Ruby, "singleton_method") => {
                let object = node.child_by_field_name("object");
                if let Some(o) = object.filter(|o| o.kind() != "self") {
                    n.owner = Some(self.text(o).replace("::", "."));
                }
            }
            (Lang::Swift, "protocol_property_declaration" | "property_declaration") => {
                let bare = n.name.trim_start_matches("var ").trim_start_matches("let ");
                n.name = bare.trim().to_string();
            }
            (Lang::Swift, "class_declaration") if n.kind == "extension" => {
                let ty = node
                    .child_by_field_name("name")
                    .map(|t| base_name(self.text(t)))
                    .unwrap_or_default();
                n.name = format!("extension {ty}");
                n.scope = Some(match &n.owner {
                    Some(o) if !o.is_empty() => format!("{o}.{ty}"),
                    _ => ty.to_string(),
                });
            }
            _ => {}
        }
        let in_type = parent_kind.is_some_and(|k| k != "namespace");
        if n.kind == "function" && in_type {
            n.kind = "method";
        }
        if n.kind == "property" && parent_kind.is_none() {
            n.kind = "variable";
        }
        (
            n.kind,
            std::mem::take(&mut n.name),
            n.owner.take(),
            n.scope.take(),
        )
    }

    /// The last line (0-based) of a node without its trailing whitespace and comments:
    /// Scala's grammar ends an indented body where the next definition starts, comments
    /// between included.
    pub(super) fn last_trimmed(&self, node: Node) -> u32 {
        let mut end = node;
        while let Some(last) = end.child(end.child_count().saturating_sub(1)) {
            let mut at = Some(last);
            while let Some(c) = at.filter(|c| self.lang.is_comment(c.kind())) {
                at = c.prev_sibling();
            }
            match at {
                Some(c) => end = c,
                None => break,
            }
        }
        let start = node.start_byte();
        let text = &self.bytes[start..end.end_byte().max(start)];
        let end = start + text.trim_ascii_end().len().max(1) - 1;
        let row = self
            .line_starts
            .partition_point(|&s| s <= end)
            .saturating_sub(1);
        (row as u32).max(self.first(node))
    }

    /// The receiver type of a Kotlin extension function (`fun <T> List<T>.x()` → `List`).
    fn kotlin_receiver(&self, node: Node) -> Option<String> {
        let name = node.child_by_field_name("name")?;
        let mut walk = node.walk();
        let receiver = node
            .named_children(&mut walk)
            .take_while(|c| c.start_byte() < name.start_byte())
            .find(|c| !matches!(c.kind(), "modifiers" | "type_parameters"))?;
        Some(base_name(self.text(receiver)).to_string())
    }

    /// The kind and display name of an import or directive of these languages; `None`
    /// leaves the item to the shared descriptions.
    pub(super) fn describe_b(&self, node: Node, cat: ItemCat) -> Option<(&'static str, String)> {
        if !is_b(self.lang) {
            return None;
        }
        let text = self.text(node);
        let after = |word: &str| short(text.trim_start_matches(word).trim().trim_end_matches(';'));
        Some(match (cat, node.kind()) {
            (ItemCat::Import, "call") => {
                let kind = match node.child_by_field_name("method").map(|m| self.text(m)) {
                    Some("require_relative") => "require-relative",
                    Some("load") => "load",
                    Some("autoload") => "autoload",
                    _ => "require",
                };
                let args = node
                    .child_by_field_name("arguments")
                    .map_or(text, |a| self.text(a));
                (kind, short(args.trim_matches(['(', ')', '"', '\''])))
            }
            (ItemCat::Import, "namespace_use_declaration") => ("use", after("use")),
            (ItemCat::Import, "expression_statement") => {
                ("require", short(text.trim_end_matches(';')))
            }
            // `@testable import X` (Swift): what follows the keyword.
            (ItemCat::Import, _) => {
                let rest = text.split_once("import ").map_or(text, |(_, r)| r);
                ("import", short(rest.trim_end_matches(';')))
            }
            (ItemCat::Directive, "package_header" | "package_clause") => {
                ("package", after("package"))
            }
            (ItemCat::Directive, "file_annotation") => ("file-annotation", short(text)),
            (ItemCat::Directive, "shebang") => ("shebang", short(text)),
            (ItemCat::Directive, "php_tag") => ("php-tag", short(text)),
            (ItemCat::Directive, "declare_statement") => ("declare", after("declare")),
            (ItemCat::Directive, "namespace_definition") => ("namespace", after("namespace")),
            (ItemCat::Directive, "comment") if !text.starts_with("#!") => {
                ("magic-comment", short(text.trim_start_matches('#')))
            }
            _ => return None,
        })
    }
}

/// A type's name without generics, optionality or a `where` clause (`List<T>?` → `List`).
fn base_name(text: &str) -> &str {
    let end = text.find(['<', '?', '[', ' ', '(']).unwrap_or(text.len());
    text[..end].trim()
}
