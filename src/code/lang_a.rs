//! What Python, Go, Rust, TypeScript and JavaScript add to the tree walk of `builder.rs`:
//! the names of Rust `impl` blocks and Go methods (by their type), the symbols that hold
//! members (a JavaScript object literal bound to a name), the names of
//! CommonJS and prototype assignments (`app.listen = function`, `Foo.prototype.bar =`,
//! `exports.foo =`), TypeScript's ambient declarations (`declare class`, `declare module`),
//! the kind of a module-level method, and the Python assignments that only rebind a name
//! defined by `def` or `class`.

use tree_sitter::Node;

use std::collections::HashSet;

use super::builder::{Builder, Candidate};
use super::lang::{Lang, is_container};
use super::structure::Symbol;

/// A symbol's kind, name, owner (what qualifies it) and the scope it gives its members.
pub(super) type Naming = (&'static str, String, Option<String>, Option<String>);

impl<'a> Builder<'a> {
    fn is_script(&self) -> bool {
        matches!(self.lang, Lang::TypeScript | Lang::Tsx | Lang::JavaScript)
    }

    /// The kind, name, owner and member scope of a symbol at `node` from what the walk gave
    /// (`naming`): a Rust `impl` block is named `impl Trait for Type` and qualifies its
    /// members with `Type`; a Go method is its receiver type's; a JavaScript assignment to a
    /// member is its object's (see [`Builder::assigned`]).
    pub(super) fn name_a(&self, node: Node<'a>, naming: Naming) -> Naming {
        let (kind, mut name, mut owner, mut scope) = naming;
        match (self.lang, node.kind()) {
            (Lang::Rust, "impl_item") => {
                let ty = node
                    .child_by_field_name("type")
                    .map(|t| self.base_type(t))
                    .unwrap_or_default();
                name = match node.child_by_field_name("trait") {
                    Some(tr) => format!("impl {} for {ty}", self.text(tr)),
                    None => format!("impl {ty}"),
                }
                .trim()
                .to_string();
                scope = Some(ty);
            }
            (Lang::Go, "method_declaration") => {
                owner = node
                    .child_by_field_name("receiver")
                    .and_then(|r| r.named_child(0))
                    .and_then(|p| p.child_by_field_name("type"))
                    .map(|t| self.base_type(t));
            }
            (Lang::TypeScript | Lang::Tsx | Lang::JavaScript, "assignment_expression") => {
                let (kind, owner) = self.assigned(node, kind, owner);
                return (kind, name, owner, scope);
            }
            _ => {}
        }
        (kind, name, owner, scope)
    }

    /// A type's name without generics, references, pointers or path (`Foo<T>` → `Foo`,
    /// `std::result::Result<T, E>` → `Result`, `dyn Error + Send` → `Error`).
    fn base_type(&self, ty: Node) -> String {
        let mut t = ty;
        loop {
            let inner = match t.kind() {
                "generic_type" | "reference_type" | "pointer_type" => {
                    t.child_by_field_name("type").or_else(|| t.named_child(0))
                }
                "scoped_type_identifier" => t.child_by_field_name("name"),
                // `dyn Error + Send + Sync`: the trait object's trait.
                "bounded_type" => t.named_child(0),
                "dynamic_type" => t.child_by_field_name("trait"),
                _ => None,
            };
            match inner {
                Some(inner) => t = inner,
                None => return self.text(t).to_string(),
            }
        }
    }

    /// Whether the symbol of `kind` at `node` holds member symbols: a container kind, or in
    /// TypeScript and JavaScript an object literal bound to a name (`const utils = {
    /// forEach() {} }`, `Foo.prototype = { bar: function () {} }`).
    pub(super) fn holds_members(&self, kind: &str, node: Node<'a>) -> bool {
        is_container(self.lang, kind) || (self.is_script() && self.object_value(node).is_some())
    }

    /// The object literal a declarator or an assignment binds, if it binds one.
    fn object_value(&self, node: Node<'a>) -> Option<Node<'a>> {
        let value = match node.kind() {
            "variable_declarator" => node.child_by_field_name("value"),
            "assignment_expression" => node.child_by_field_name("right"),
            _ => None,
        }?;
        (value.kind() == "object").then_some(value)
    }

    /// Whether `node` is the first of chained assignments (`req.get = req.header = function
    /// header() {}`): the ones it assigns are its siblings, not its members.
    pub(super) fn chained(&self, node: Node<'a>) -> bool {
        self.is_script()
            && node.kind() == "assignment_expression"
            && node
                .child_by_field_name("right")
                .is_some_and(|r| r.kind() == "assignment_expression")
    }

    /// The kind and owner of a definition by assignment to a member: `app.listen = function`
    /// is the method `app.listen`, `Foo.prototype.bar = function` the method
    /// `Foo.prototype.bar`; `exports.foo =` and `module.exports.foo =` define the module's
    /// `foo`.
    pub(super) fn assigned(
        &self,
        node: Node<'a>,
        kind: &'static str,
        owner: Option<String>,
    ) -> (&'static str, Option<String>) {
        let Some(object) = node
            .child_by_field_name("left")
            .and_then(|l| l.child_by_field_name("object"))
        else {
            return (kind, owner);
        };
        let text = self.text(object);
        let own = ["module.exports", "exports"]
            .iter()
            .find_map(|m| {
                let rest = text.strip_prefix(m)?;
                if rest.is_empty() {
                    Some(None)
                } else {
                    rest.strip_prefix('.').map(Some)
                }
            })
            .unwrap_or(Some(text));
        let own = own.map(|o| o.split_whitespace().collect::<String>());
        let kind = match (kind, &own) {
            ("method", None) => "function",
            _ => kind,
        };
        let owner = match (owner, own) {
            (Some(o), Some(w)) if !o.is_empty() => Some(format!("{o}.{w}")),
            (o, None) => o,
            (_, w) => w,
        };
        (kind, owner)
    }

    /// Whether a symbol declares without defining: in TypeScript, anything under `declare`
    /// (`declare class`, `declare function`, `declare module 'x' {…}`, `declare global`) and
    /// the members of a declaration.
    pub(super) fn declared_only(
        &self,
        node: Node<'a>,
        parent: Option<u32>,
        symbols: &[Symbol],
    ) -> bool {
        if !matches!(self.lang, Lang::TypeScript | Lang::Tsx) {
            return false;
        }
        if parent.is_some_and(|p| symbols[p as usize].declaration) {
            return true;
        }
        let mut at = self.parent(node);
        while let Some(n) = at {
            if n.kind() == "ambient_declaration" {
                return true;
            }
            if !self.lang.transparent(n.kind()) {
                return false;
            }
            at = self.parent(n);
        }
        false
    }

    /// A JavaScript or TypeScript method outside any class or object (a member of
    /// `module.exports = {…}`, `export default {…}`) is a function.
    pub(super) fn refine_kind_a(
        &self,
        kind: &'static str,
        node: Node<'a>,
        parent: Option<u32>,
    ) -> &'static str {
        match self.lang {
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript
                if kind == "method"
                    && parent.is_none()
                    && node.kind() != "assignment_expression" =>
            {
                "function"
            }
            _ => kind,
        }
    }

    /// Python: drops the assignments of a name that the same scope defines with `def` or
    /// `class` (`Enum = Flag = None` before `class Enum`, `f = wrap(f)` after `def f`):
    /// placeholders and rebindings, not definitions.
    pub(super) fn drop_rebindings(&self, candidates: &mut Vec<Candidate<'a>>) {
        let scope = |node: Node<'a>| {
            let mut at = self.parent(node);
            while let Some(n) = at.filter(|n| self.lang.transparent(n.kind())) {
                at = self.parent(n);
            }
            at.map_or(0, |n| n.id())
        };
        let name = |c: &Candidate<'a>| c.name.map(|n| self.text(n));
        let defined: HashSet<(usize, &str)> = candidates
            .iter()
            .filter(|c| matches!(c.kind, "function" | "class"))
            .filter_map(|c| Some((scope(c.node), name(c)?)))
            .collect();
        if defined.is_empty() {
            return;
        }
        candidates.retain(|c| {
            c.kind != "variable" || name(c).is_none_or(|n| !defined.contains(&(scope(c.node), n)))
        });
    }
}
