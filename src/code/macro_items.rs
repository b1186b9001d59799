//! Rust items written literally in macro tokens, which the grammar leaves unparsed: the
//! bodies of `macro_rules!` (`pub struct Regex<A> { … }` in a macro that defines it once
//! per `cfg`) but those exported and not invoked in the file (their items are the other
//! crates' that invoke them), and item-level invocations (`bitflags! { pub struct Flags: u32 { … } }`,
//! `thread_local!(static KEY: … = …)`, `cfg_if! { if #[cfg(unix)] { fn imp() {} } }`).
//! An item is a keyword (`struct`, `enum`, `union`, `trait`, `fn`, `type`, `const`,
//! `static`, `mod`, `macro_rules!`) followed by a name: a `$name` metavariable is not one, and the bodies of
//! items (an `impl` block's too) are not looked into. Each token is visited once.

use tree_sitter::Node;

use super::builder::{Builder, Candidate, Written};

/// Token trees nested deeper than this (below the macro's own) are not looked into.
const MAX_DEPTH: usize = 8;

/// The symbol kind an item keyword makes.
fn item_kind(keyword: &str) -> Option<&'static str> {
    Some(match keyword {
        "struct" => "struct",
        "enum" => "enum",
        "union" => "union",
        "trait" => "trait",
        "fn" => "function",
        "type" => "type",
        "const" => "constant",
        "static" => "static",
        "mod" => "module",
        _ => return None,
    })
}

/// Whether the item of `kind` ends at its first `{…}` (a body) rather than at a `;`.
fn has_body(kind: &str) -> bool {
    matches!(
        kind,
        "struct" | "enum" | "union" | "trait" | "function" | "module" | "macro"
    )
}

/// Tokens that may stand before an item's keyword as part of it: visibility, qualifiers,
/// an ABI string, a metavariable (`$vis`), a repetition of attributes (`$(#[$doc])*`).
fn is_item_prefix(kind: &str) -> bool {
    matches!(
        kind,
        "pub"
            | "unsafe"
            | "async"
            | "extern"
            | "default"
            | "const"
            | "string_literal"
            | "metavariable"
            | "token_repetition"
    )
}

fn opens_with(tree: Node, bracket: &str) -> bool {
    tree.child(0).is_some_and(|c| c.kind() == bracket)
}

impl<'a> Builder<'a> {
    /// Adds the items written in the token trees of the macros of the structural part of
    /// the tree (see the module's doc) to `candidates`.
    pub(super) fn macro_items(&self, candidates: &mut Vec<Candidate<'a>>) {
        let invoked: std::collections::HashSet<&str> = self
            .scan
            .iter()
            .filter_map(|&n| self.invocation(n))
            .filter_map(|m| m.child_by_field_name("macro"))
            .map(|name| self.text(name))
            .collect();
        for &node in &self.scan {
            match node.kind() {
                // A macro's items are the invoking module's: this file's when it invokes it,
                // the crate's when it is not exported (other crates' when it is).
                "macro_definition"
                    if !self.exported(node)
                        || node
                            .child_by_field_name("name")
                            .is_some_and(|n| invoked.contains(self.text(n))) =>
                {
                    let mut walk = node.walk();
                    for rule in node.named_children(&mut walk) {
                        if let Some(right) = rule.child_by_field_name("right") {
                            self.items_in(node, right, candidates);
                        }
                    }
                }
                _ => {
                    let mut walk = node.walk();
                    let tree = self.invocation(node).and_then(|m| {
                        m.named_children(&mut walk)
                            .find(|c| c.kind() == "token_tree")
                    });
                    if let Some(tree) = tree {
                        self.items_in(node, tree, candidates);
                    }
                }
            }
        }
    }

    /// Whether the `macro_rules!` at `node` is `#[macro_export]`ed.
    fn exported(&self, node: Node<'a>) -> bool {
        let mut at = self.prev_named(node);
        while let Some(p) = at {
            match p.kind() {
                "attribute_item" if self.text(p).contains("macro_export") => return true,
                "attribute_item" | "line_comment" | "block_comment" => at = self.prev_named(p),
                _ => break,
            }
        }
        false
    }

    /// The macro invocation `node` is (or an expression statement holds).
    fn invocation(&self, node: Node<'a>) -> Option<Node<'a>> {
        match node.kind() {
            "expression_statement" => node.named_child(0),
            _ => Some(node),
        }
        .filter(|m| m.kind() == "macro_invocation")
    }

    /// The items of one token tree and the trees nested in it that no item owns.
    fn items_in(&self, anchor: Node<'a>, tree: Node<'a>, out: &mut Vec<Candidate<'a>>) {
        let mut stack = vec![(tree, 0usize)];
        while let Some((tree, depth)) = stack.pop() {
            let mut walk = tree.walk();
            let kids: Vec<Node<'a>> = tree.children(&mut walk).collect();
            let mut i = 0;
            while i < kids.len() {
                let k = kids[i];
                if let Some((candidate, next)) = self.item_at(anchor, &kids, i) {
                    out.push(candidate);
                    i = next;
                    continue;
                }
                if k.kind() == "impl" {
                    // An `impl` block's items are members of a type: skip its body.
                    i = (i + 1..kids.len())
                        .find(|&j| kids[j].kind() == "token_tree" && opens_with(kids[j], "{"))
                        .map_or(kids.len(), |j| j + 1);
                    continue;
                }
                let attribute = i > 0 && kids[i - 1].kind() == "#";
                if matches!(k.kind(), "token_tree" | "token_repetition")
                    && !attribute
                    && depth < MAX_DEPTH
                {
                    stack.push((k, depth + 1));
                }
                i += 1;
            }
        }
    }

    /// The item whose keyword is `kids[i]`, as a candidate, and the index after it.
    fn item_at(
        &self,
        anchor: Node<'a>,
        kids: &[Node<'a>],
        i: usize,
    ) -> Option<(Candidate<'a>, usize)> {
        let keyword = kids[i].kind();
        let macro_rules = keyword == "identifier"
            && self.text(kids[i]) == "macro_rules"
            && kids.get(i + 1).is_some_and(|k| k.kind() == "!");
        let (kind, mut at) = match macro_rules {
            true => ("macro", i + 2),
            false => (item_kind(keyword)?, i + 1),
        };
        if keyword == "static"
            && kids
                .get(at)
                .is_some_and(|k| matches!(k.kind(), "ref" | "mutable_specifier"))
        {
            at += 1;
        }
        let name = *kids.get(at).filter(|n| n.kind() == "identifier")?;
        // The end: a body's `{…}` (for items that have one) or the `;`.
        let end = (at + 1..kids.len())
            .find(|&j| {
                let k = kids[j];
                k.kind() == ";"
                    || (has_body(kind) && k.kind() == "token_tree" && opens_with(k, "{"))
            })
            .unwrap_or(at);
        let mut first = i;
        while first > 0 {
            let p = kids[first - 1];
            let before = first.checked_sub(2).map(|b| kids[b].kind());
            if is_item_prefix(p.kind()) {
                first -= 1;
            } else if p.kind() == "token_tree" && opens_with(p, "[") && before == Some("#") {
                first -= 2;
            } else if p.kind() == "token_tree" && opens_with(p, "(") && before == Some("pub") {
                first -= 1;
            } else {
                break;
            }
        }
        let def = self.first(kids[first]);
        let mut start = def;
        let mut c = first;
        while c > 0
            && self.lang.is_comment(kids[c - 1].kind())
            && self.last(kids[c - 1]) + 1 >= start
        {
            c -= 1;
            start = self.first(kids[c]);
        }
        let candidate = Candidate {
            node: kids[first],
            name: Some(name),
            kind,
            pattern: usize::MAX,
            qualifier: None,
            written: Some(Written {
                anchor,
                start,
                def,
                end: self.last(kids[end]),
                declaration: kind == "function" && kids[end].kind() == ";",
            }),
        };
        Some((candidate, end + 1))
    }
}
