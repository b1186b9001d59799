//! A symbol's line range, grown from its definition node: to its export wrapper, decorated
//! definition or single-entry declaration, then over the decorators, attributes and doc
//! comment right above it.

use tree_sitter::Node;

use super::builder::Builder;
use super::cfamily;
use super::lang::Lang;

impl<'a> Builder<'a> {
    /// The node a symbol's range is taken from: the definition grown to its export wrapper,
    /// decorated definition, or single-entry declaration.
    pub(super) fn outer(&self, node: Node<'a>) -> Node<'a> {
        let mut outer = node;
        loop {
            let Some(parent) = self.parent(outer) else {
                return outer;
            };
            let grow = match (self.lang, parent.kind()) {
                (Lang::TypeScript | Lang::Tsx | Lang::JavaScript, "export_statement") => true,
                (
                    Lang::TypeScript | Lang::Tsx | Lang::JavaScript,
                    "lexical_declaration" | "variable_declaration",
                ) => parent.named_child_count() == 1,
                (Lang::Python, "decorated_definition") => true,
                // `app.listen = function () {…};` (not a chain's second assignment).
                (Lang::TypeScript | Lang::Tsx | Lang::JavaScript, "expression_statement") => {
                    outer.kind() == "assignment_expression"
                }
                (Lang::C | Lang::Cpp, _) => cfamily::grows_into(outer, parent),
                (Lang::Go, "type_declaration" | "const_declaration" | "var_declaration") => {
                    let mut walk = parent.walk();
                    parent
                        .named_children(&mut walk)
                        .filter(|c| !self.lang.is_comment(c.kind()))
                        .count()
                        == 1
                }
                _ => false,
            };
            if !grow {
                return outer;
            }
            outer = parent;
        }
    }

    /// The first line (0-based) of `outer` grown over the decorators, attributes and comments
    /// right above it (no blank line between, not trailing another statement), and the first
    /// line of the definition itself: `outer`'s, or its first attribute's or decorator's
    /// (`#[derive(..)]`, `#[inline]`, `@Input()`) when those stand above it as siblings.
    pub(super) fn grown_start(&self, outer: Node<'a>) -> (u32, u32) {
        let mut start = self.first(outer);
        let mut def = start;
        let mut at = self.prev_named(outer);
        while let Some(s) = at {
            let kind = s.kind();
            let comment = self.lang.is_comment(kind);
            if !(comment || self.lang.is_prefix(kind)) || self.last(s) + 1 < start {
                break;
            }
            if comment && self.is_inner_doc(s) {
                break;
            }
            let before = self.prev_named(s);
            if comment && before.is_some_and(|b| self.last(b) >= self.first(s)) {
                break; // a trailing comment of the statement before
            }
            start = start.min(self.first(s));
            if !comment {
                def = start;
            }
            at = before;
        }
        (start, def)
    }

    fn is_inner_doc(&self, comment: Node) -> bool {
        let t = self.text(comment);
        t.starts_with("//!") || t.starts_with("/*!")
    }
}
