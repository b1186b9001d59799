//! C's definitions and items found by a walk of the tree instead of the query: the same
//! matches `queries/c.scm` makes (its patterns are a node kind, for a few a named child),
//! at the same depths, for a fraction of what the query engine's general matching costs
//! (on a skimmed C file it cost half as much as the parse itself).

use std::sync::OnceLock;

use tree_sitter::{Language, Node};

use super::builder::{Builder, Candidate, ItemCat};

/// The node kinds and fields the walk tells apart, as the C grammar numbers them.
struct Ids {
    /// Definitions: node kind, the query's pattern index, the kind of definition.
    defs: [(u16, usize, &'static str); 8],
    /// `name` must be of this kind for each of `defs` from the 4th on (0: no name needed).
    names: [u16; 8],
    unit: u16,
    include: u16,
    ifdef: u16,
    comment: u16,
    name_field: u16,
    body_field: u16,
}

fn ids(language: &Language) -> &'static Ids {
    static IDS: OnceLock<Ids> = OnceLock::new();
    IDS.get_or_init(|| {
        let kind = |k: &str| language.id_for_node_kind(k, true);
        let field = |f: &str| language.field_id_for_name(f).map_or(0, |f| f.get());
        let (ty, ident) = (kind("type_identifier"), kind("identifier"));
        Ids {
            defs: [
                (kind("function_definition"), 0, "function"),
                (kind("declaration"), 1, "variable"),
                (kind("type_definition"), 2, "type"),
                (kind("struct_specifier"), 3, "struct"),
                (kind("union_specifier"), 4, "union"),
                (kind("enum_specifier"), 5, "enum"),
                (kind("preproc_def"), 6, "macro"),
                (kind("preproc_function_def"), 7, "macro"),
            ],
            names: [0, 0, 0, ty, ty, ty, ident, ident],
            unit: kind("translation_unit"),
            include: kind("preproc_include"),
            ifdef: kind("preproc_ifdef"),
            comment: kind("comment"),
            name_field: field("name"),
            body_field: field("body"),
        }
    })
}

impl<'a> Builder<'a> {
    /// What the C query matches from `top` (a match starting at most `max_depth` levels
    /// below it): each definition given to `found`, the root's items (includes, comments)
    /// added to `items` when `top` is the root.
    pub(super) fn walk_c(
        &self,
        top: Node<'a>,
        at_root: bool,
        max_depth: u32,
        items: &mut Vec<(Node<'a>, ItemCat)>,
        found: &mut dyn FnMut(Candidate<'a>) -> Result<(), super::limits::Unparsed>,
    ) -> Result<(), super::limits::Unparsed> {
        let ids = ids(&self.compiled.language);
        // The items' patterns start at a `translation_unit` (a root of errors has none).
        let at_root = at_root && top.kind_id() == ids.unit;
        let mut cursor = top.walk();
        let mut depth = 0u32;
        let mut seen = 0u32;
        loop {
            let node = cursor.node();
            seen = seen.wrapping_add(1);
            if seen.is_multiple_of(256) && self.stop.stopped() {
                return Err(super::limits::Unparsed::Stopped);
            }
            if let Some(candidate) = definition(ids, node) {
                found(candidate)?;
            } else if at_root && depth == 1 {
                root_item(ids, node, items);
            }
            if depth < max_depth && cursor.goto_first_child() {
                depth += 1;
                continue;
            }
            loop {
                if depth == 0 {
                    return Ok(());
                }
                if cursor.goto_next_sibling() {
                    break;
                }
                cursor.goto_parent();
                depth -= 1;
            }
        }
    }
}

/// The items of a node of the root: an include (one in an `#ifdef` too) or a comment.
fn root_item<'a>(ids: &Ids, node: Node<'a>, items: &mut Vec<(Node<'a>, ItemCat)>) {
    let k = node.kind_id();
    if k == ids.include {
        items.push((node, ItemCat::Import));
    } else if k == ids.comment {
        items.push((node, ItemCat::Comment));
    } else if k == ids.ifdef {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.kind_id() == ids.include {
                items.push((child, ItemCat::Import));
            }
        }
    }
}

/// The definition a node is by the C query's patterns.
fn definition<'a>(ids: &Ids, node: Node<'a>) -> Option<Candidate<'a>> {
    let k = node.kind_id();
    let at = ids.defs.iter().position(|d| d.0 == k)?;
    let (_, pattern, kind) = ids.defs[at];
    let mut name = None;
    if ids.names[at] != 0 {
        let n = node.child_by_field_id(ids.name_field)?;
        if n.kind_id() != ids.names[at] {
            return None;
        }
        // A struct, union or enum is a definition with its body.
        if at < 6 && !node.child_by_field_id(ids.body_field)?.is_named() {
            return None;
        }
        name = Some(n);
    }
    Some(Candidate {
        node,
        name,
        kind,
        pattern,
        qualifier: None,
        written: None,
    })
}

#[cfg(test)]
mod tests {
    use streaming_iterator::StreamingIterator;

    use super::super::builder::{Builder, ItemCat};
    use super::super::lang::Lang;
    use super::super::limits::Stop;

    type Found = (
        Vec<(usize, Option<usize>, &'static str, usize)>,
        Vec<(usize, ItemCat)>,
    );

    /// What the query and the walk find from the root of `text`'s tree (every node below
    /// `max_depth` as a top too), as (node, name, kind, pattern) and (node, item).
    fn both(text: &str, max_depth: u32) -> (Found, Found) {
        let compiled = Lang::C.compiled().unwrap();
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&compiled.language).unwrap();
        let tree = parser.parse(text, None).unwrap();
        let root = tree.root_node();
        let b = Builder::new(Lang::C, compiled, text.as_bytes(), Stop::never());
        let mut tops = vec![root];
        let mut cursor = root.walk();
        for child in root.named_children(&mut cursor) {
            tops.push(child);
        }
        let (mut by_query, mut by_walk): (Found, Found) = Default::default();
        for top in tops {
            let at_root = top == root;
            let mut qc = tree_sitter::QueryCursor::new();
            qc.set_max_start_depth(Some(max_depth));
            let mut items = Vec::new();
            let mut matches = qc.matches(&compiled.query, top, text.as_bytes());
            while let Some(m) = matches.next() {
                if let Some(c) = b.read_match(m, at_root, &mut items) {
                    let key = (c.node.id(), c.name.map(|n| n.id()), c.kind, c.pattern);
                    by_query.0.push(key);
                }
            }
            by_query.1.extend(items.iter().map(|(n, c)| (n.id(), *c)));
            let mut items = Vec::new();
            b.walk_c(top, at_root, max_depth, &mut items, &mut |c| {
                by_walk
                    .0
                    .push((c.node.id(), c.name.map(|n| n.id()), c.kind, c.pattern));
                Ok(())
            })
            .unwrap();
            by_walk.1.extend(items.iter().map(|(n, c)| (n.id(), *c)));
        }
        for f in [&mut by_query, &mut by_walk] {
            f.0.sort_unstable();
            f.1.sort_unstable_by_key(|i| i.0);
        }
        (by_query, by_walk)
    }

    const SAMPLE: &str = r#"// a header
#include <stdio.h>
#ifdef CONFIG_X
#include "x.h"
struct inner_cfg { int on; };
#endif
#define LIMIT 16
#define MAX(a, b) ((a) > (b) ? (a) : (b))
/* the table */
typedef struct pair { int left, right; } pair_t;
union word { unsigned u; float f; };
enum mode { OFF, ON };
struct forward;
static int counter = 3, *where;
int add(int a, int b) { struct local { int x; } l = {a}; return l.x + b; }
void (*handler)(int);
#if defined(A)
static inline int stub(void) { return 0; }
#else
int stub(void);
#endif
struct outer {
    struct nested { int deep; } n;
    union { int a; } anon;
    enum kind { K1 } k;
};
int broken( { ;
"#;

    /// The walk finds what the query finds, at every depth the builder searches from.
    #[test]
    fn the_walk_matches_what_the_query_matches() {
        for depth in [1, 2, 4] {
            let (q, w) = both(SAMPLE, depth);
            assert!(!q.0.is_empty() && !q.1.is_empty());
            assert_eq!(q, w, "depth {depth}");
        }
    }

    /// The same on a tree of real C (`MAPGREP_C_TREE`).
    #[test]
    #[ignore = "compares on a tree: MAPGREP_C_TREE=dir cargo test --release --lib walk_matches_the_query_on_a_tree -- --ignored"]
    fn the_walk_matches_the_query_on_a_tree() {
        let tree = std::env::var_os("MAPGREP_C_TREE").expect("MAPGREP_C_TREE");
        let mut files = 0;
        for e in ignore::WalkBuilder::new(tree).build().flatten() {
            let p = e.path();
            if !p.extension().is_some_and(|x| x == "c" || x == "h") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(p) else {
                continue;
            };
            let (q, w) = both(&text, super::super::builder::QUERY_DEPTH);
            assert_eq!(q, w, "{}", p.display());
            files += 1;
        }
        println!("{files} files");
    }
}
