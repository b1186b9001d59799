//! Kotlin, Ruby, PHP, Swift and Scala: how the tree walk names their symbols (nested,
//! qualified, companions, extensions, singleton methods) and describes their items.

use tree_sitter::Node;

use super::builder::{Builder, ItemCat};
use super::describe::short;
use super::lang_id::Lang;
use super::structure::Symbol;

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

impl<'a> Builder<'a> {
    /// Names a symbol of these languages: Kotlin companion objects (`Companion` unless
    /// named; their members are the class's) and extension functions (`String.slugify`),
    /// Ruby `class A::B` (`B` in `A`) and `def obj.x`, Swift extensions (`extension A.B` is
    /// `B` in `A`, and its members are `A.B`'s), PHP braced namespaces (their members are
    /// `App.Http.x`), Scala package objects and braced packages; functions inside a type
    /// are its methods.
    pub(super) fn name_b(
        &self,
        node: Node<'a>,
        parent_kind: Option<&str>,
        (kind, name, owner, scope): NamingParts,
    ) -> NamingParts {
        let mut n = Naming {
            kind,
            name,
            owner,
            scope,
        };
        match self.lang {
            Lang::Kotlin => self.name_kotlin(node, parent_kind, &mut n),
            Lang::Ruby => self.name_ruby(node, &mut n),
            Lang::Swift => self.name_swift(node, &mut n),
            Lang::Php if node.kind() == "namespace_definition" => {
                n.scope = Some(super::package_b::split(&n.name, "\\").join("."));
            }
            Lang::Scala => self.name_scala(node, parent_kind, &mut n),
            _ => {}
        }
        let in_type = parent_kind.is_some_and(|k| k != "namespace");
        if n.kind == "function" && in_type {
            n.kind = "method";
        }
        if n.kind == "property" && parent_kind.is_none() {
            n.kind = "variable";
        }
        (n.kind, n.name, n.owner, n.scope)
    }

    fn name_kotlin(&self, node: Node<'a>, parent_kind: Option<&str>, n: &mut Naming) {
        match node.kind() {
            "companion_object" => {
                if let Some(name) = node.child_by_field_name("name") {
                    n.name = self.text(name).to_string();
                } else {
                    n.name = "Companion".to_string();
                }
                n.scope = Some(n.owner.clone().unwrap_or_default());
            }
            // `fun <T> Iterable<T>.joinToString()` is `Iterable.joinToString`, and `val
            // String.lastIndex` is `String.lastIndex`: the receiver type qualifies them as a
            // class would (in the file's package: `kotlin.collections.Iterable.joinToString`,
            // which `kotlin.collections.joinToString` finds too, loosely).
            "function_declaration" | "property_declaration" if parent_kind.is_none() => {
                if let Some(receiver) = self.kotlin_receiver(node) {
                    n.owner = Some(receiver);
                }
            }
            _ => {}
        }
    }

    fn name_ruby(&self, node: Node<'a>, n: &mut Naming) {
        match node.kind() {
            "class" | "module" if n.name.contains("::") => {
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
            // `Point = Struct.new(:x) do ... end`, `Error = Class.new(StandardError)`.
            "assignment" => {
                let made = node
                    .child_by_field_name("right")
                    .filter(|r| r.kind() == "call")
                    .and_then(|call| {
                        let receiver = self.text(call.child_by_field_name("receiver")?);
                        let method = self.text(call.child_by_field_name("method")?);
                        Some((receiver, method))
                    });
                n.kind = match made {
                    Some(("Struct" | "Class", "new") | ("Data", "define")) => "class",
                    Some(("Module", "new")) => "module",
                    _ => n.kind,
                };
            }
            "singleton_method" => {
                let object = node.child_by_field_name("object");
                if let Some(o) = object.filter(|o| o.kind() != "self") {
                    n.owner = Some(self.text(o).replace("::", "."));
                }
            }
            _ => {}
        }
    }

    fn name_swift(&self, node: Node<'a>, n: &mut Naming) {
        match node.kind() {
            // A function or an operator (`static func ==`): the token after `func`.
            "function_declaration" | "protocol_function_declaration" => {
                let mut walk = node.walk();
                let mut after_func = node.children(&mut walk).skip_while(|c| c.kind() != "func");
                if let Some(op) = after_func.nth(1) {
                    n.name = self.text(op).to_string();
                }
            }
            "protocol_property_declaration" | "property_declaration" => {
                let bare = n.name.trim_start_matches("var ").trim_start_matches("let ");
                n.name = bare.trim().to_string();
            }
            // `extension AVCaptureDevice.Format` is a site of `AVCaptureDevice.Format`: named
            // `Format` in `AVCaptureDevice`, as the type itself.
            "class_declaration" if n.kind == "extension" => {
                let ty = node
                    .child_by_field_name("name")
                    .map(|t| base_name(self.text(t)))
                    .unwrap_or_default();
                let ty: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
                let (outer, last) = match ty.rsplit_once('.') {
                    Some((outer, last)) => (Some(outer), last),
                    None => (None, ty.as_str()),
                };
                let owner = match (n.owner.take().filter(|o| !o.is_empty()), outer) {
                    (Some(o), Some(outer)) => Some(format!("{o}.{outer}")),
                    (o, outer) => o.or(outer.map(str::to_string)),
                };
                n.name = if last.is_empty() { "anonymous" } else { last }.to_string();
                n.scope = Some(match &owner {
                    Some(o) => format!("{o}.{}", n.name),
                    None => n.name.clone(),
                });
                n.owner = owner;
            }
            _ => {}
        }
    }

    /// Scala: the body of `package object p` is the object `package` (`scala.package`),
    /// whose members are `p`'s; a definition in `package a.b { ... }` is qualified `a.b.x`.
    fn name_scala(&self, node: Node<'a>, parent_kind: Option<&str>, n: &mut Naming) {
        if node.kind() == "template_body" {
            n.name = "package".to_string();
            n.scope = Some(n.owner.clone().unwrap_or_default());
            return;
        }
        if parent_kind.is_some() {
            return;
        }
        // Up through the transparent nodes around a top-level definition: the braced
        // package clauses it sits in, innermost first.
        let mut packages: Vec<&str> = Vec::new();
        let mut at = self.parent(node);
        while let Some(p) = at.filter(|p| self.lang.transparent(p.kind())) {
            if p.kind() == "package_clause"
                && let Some(name) = p.child_by_field_name("name")
            {
                packages.push(self.text(name));
            }
            at = self.parent(p);
        }
        if !packages.is_empty() {
            packages.reverse();
            let path = super::package_b::split(&packages.join("."), ".").join(".");
            n.owner = Some(match n.owner.take().filter(|o| !o.is_empty()) {
                Some(o) => format!("{path}.{o}"),
                None => path,
            });
        }
    }

    /// Whether a symbol is a declaration beyond what `declaration.rs` tells: a Kotlin
    /// `expect` declaration (its `actual` ones are the definitions), and each member of an
    /// `expect` class.
    pub(super) fn declared_b(&self, node: Node, parent: Option<&Symbol>) -> bool {
        if self.lang != Lang::Kotlin {
            return false;
        }
        if parent.is_some_and(|p| p.declaration) {
            return true;
        }
        let mut walk = node.walk();
        let modifiers = node
            .named_children(&mut walk)
            .find(|c| c.kind() == "modifiers");
        modifiers.is_some_and(|m| {
            let mut walk = m.walk();
            m.named_children(&mut walk)
                .any(|c| c.kind() == "platform_modifier" && self.text(c) == "expect")
        })
    }

    /// The node a definition's first line is taken from: `outer`, or for Kotlin the
    /// top-level annotations right above it, which the parse read as comments (see
    /// `lang_b::mask_annotations`).
    pub(super) fn first_b(&self, outer: Node<'a>) -> Node<'a> {
        let mut first = outer;
        if self.lang != Lang::Kotlin {
            return first;
        }
        while let Some(prev) = self.prev_named(first).filter(|p| {
            self.lang.is_comment(p.kind())
                && self.text(*p).starts_with('@')
                && self.annotation_last(*p) + 1 >= self.first(first)
        }) {
            first = prev;
        }
        first
    }

    /// The last line (0-based) of the annotations a masked comment stands for: arguments
    /// over several lines were blanked after the first.
    fn annotation_last(&self, comment: Node) -> u32 {
        let end = super::lang_b::annotation_run(self.bytes, comment.start_byte())
            .unwrap_or(comment.end_byte());
        let row = self.line_starts.partition_point(|&s| s < end);
        (row.saturating_sub(1) as u32).max(self.last(comment))
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
    /// (`val <T> List<T>.lastIndex` → `List` too).
    fn kotlin_receiver(&self, node: Node) -> Option<String> {
        let mut walk = node.walk();
        let name = match node.child_by_field_name("name") {
            Some(name) => name,
            None => node
                .named_children(&mut walk)
                .find(|c| c.kind() == "variable_declaration")?,
        };
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
            // A braced `package p { ... }` by its name alone.
            (ItemCat::Directive, "package_clause") => match node.child_by_field_name("name") {
                Some(name) => ("package", short(self.text(name))),
                None => ("package", after("package")),
            },
            (ItemCat::Directive, "package_header") => ("package", after("package")),
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
