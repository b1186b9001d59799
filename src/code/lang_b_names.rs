//! Kotlin, Ruby, PHP, Swift and Scala: how the tree walk names their symbols (nested,
//! qualified, companions, extensions, singleton methods) and describes their items.

use tree_sitter::Node;

use super::builder::{Builder, ItemCat};
use super::describe::short;
use super::lang_id::Lang;

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
        if !self.lang.is_b() {
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
