//! The builder of a [`FileStructure`] from a tree-sitter tree: the symbol tree with grown
//! ranges (export wrappers, decorators, the doc comment above), the items (imports, exports,
//! comments, directives) and their descriptions. The partition of lines into blocks is in
//! `partition.rs`.

use std::collections::HashMap;

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, QueryCursor};

use super::cfamily;
use super::lang::{Compiled, Lang, is_constant_name};
use super::limits::{self, MAX_NESTING, Stop, Unparsed};
use super::structure::{FileStructure, Symbol, assign_addresses};

/// Per-line owner while the partition is built.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Own {
    Unset,
    Symbol(u32),
    Item(ItemCat),
    Statement(u32),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum ItemCat {
    Import,
    Export,
    Comment,
    Directive,
}

/// Hashes node ids (addresses) with one multiplication: the maps of node ids are hot.
#[derive(Clone, Copy, Default)]
struct BuildIdHasher;

impl std::hash::BuildHasher for BuildIdHasher {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher(0)
    }
}

struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    /// Each number mixed into what came before (a key of two numbers hashes both), its
    /// high bits folded into the low ones the table indexes by (node addresses are aligned).
    fn write_usize(&mut self, n: usize) {
        let x = (self.0.rotate_left(5) ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = x ^ (x >> 32);
    }
}

#[derive(Clone, Copy)]
struct Links<'t> {
    parent: Node<'t>,
    prev: Option<Node<'t>>,
}

pub(super) struct Candidate<'t> {
    pub(super) node: Node<'t>,
    pub(super) name: Option<Node<'t>>,
    pub(super) kind: &'static str,
    pub(super) pattern: usize,
    /// The scope a C++ out-of-line definition names (`ns.Foo` of `void ns::Foo::bar()`).
    pub(super) qualifier: Option<String>,
    /// A definition the grammar leaves unparsed (an item written in a Rust macro's tokens).
    pub(super) written: Option<Written<'t>>,
}

/// Where a definition the grammar leaves unparsed stands: the structural node it is written
/// in, and its lines (0-based: first with its comments, first of the item with its
/// attributes, last).
#[derive(Clone, Copy)]
pub(super) struct Written<'t> {
    pub(super) anchor: Node<'t>,
    pub(super) start: u32,
    pub(super) def: u32,
    pub(super) end: u32,
    pub(super) declaration: bool,
}

pub(super) struct Builder<'a> {
    pub(super) lang: Lang,
    pub(super) compiled: &'a Compiled,
    pub(super) bytes: &'a [u8],
    /// Parent and previous named sibling of the nodes in the structural part of the tree
    /// (see [`Builder::link`]): tree-sitter's own `parent()` walks down from the root, which
    /// costs the width of every level above the node.
    links: HashMap<usize, Links<'a>, BuildIdHasher>,
    /// Byte offset where each line starts.
    pub(super) line_starts: Vec<usize>,
    /// Structural nodes the query is started again below (see [`Lang::reopens`]).
    pub(super) reopen: Vec<Node<'a>>,
    /// Structural nodes the walk looks into after the query: Rust's macro definitions and
    /// invocations (see `macro_items.rs`), Python's `if` and `try` statements (see
    /// `lang_a.rs`).
    pub(super) scan: Vec<Node<'a>>,
    /// JavaScript's module wrappers: the nodes from a statement or a declarator down to the
    /// body of a function written in parentheses or called at once (see
    /// [`Builder::wrapped_body`]), whose definitions are the module's.
    pub(super) wrap: std::collections::HashSet<usize>,
    /// The caller's stop, checked as the query runs.
    pub(super) stop: Stop<'a>,
}

impl<'a> Builder<'a> {
    pub(super) fn new(
        lang: Lang,
        compiled: &'a Compiled,
        bytes: &'a [u8],
        stop: Stop<'a>,
    ) -> Builder<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        if line_starts.last() == Some(&bytes.len()) {
            line_starts.pop();
        }
        if bytes.is_empty() {
            line_starts.clear();
        }
        Builder {
            lang,
            compiled,
            bytes,
            links: HashMap::default(),
            line_starts,
            reopen: Vec::new(),
            scan: Vec::new(),
            wrap: std::collections::HashSet::new(),
            stop,
        }
    }

    pub(super) fn total_lines(&self) -> u32 {
        self.line_starts.len() as u32
    }

    /// 0-based first line of a node.
    pub(super) fn first(&self, node: Node) -> u32 {
        node.start_position().row as u32
    }

    /// 0-based last line of a node (a node ending at column 0 ends on the line before).
    pub(super) fn last(&self, node: Node) -> u32 {
        if self.lang == Lang::Scala {
            return self.last_trimmed(node);
        }
        let end = node.end_position();
        let row = if end.column == 0 && end.row > node.start_position().row {
            end.row - 1
        } else {
            end.row
        } as u32;
        row.min(self.total_lines().saturating_sub(1))
    }

    /// A node's text; invalid UTF-8 ends it (names and descriptions are made of text).
    pub(super) fn text(&self, node: Node) -> &'a str {
        let bytes = &self.bytes[node.byte_range()];
        match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
        }
    }

    /// Records parent and previous named sibling of every node in the structural part of the
    /// tree: the root's children and the insides of transparent and container nodes, never
    /// function bodies.
    fn link(&mut self, root: Node<'a>) -> Result<(), Unparsed> {
        let mut cursor = root.walk();
        let mut parents: Vec<Node<'a>> = Vec::new();
        let mut prev: Vec<Option<Node<'a>>> = Vec::new();
        let mut node = root;
        loop {
            let descend = parents.is_empty()
                || self.lang.transparent(node.kind())
                || (self.lang.is_container_node(node.kind()) && self.opens(node))
                || self.wrap.contains(&node.id());
            if descend && cursor.goto_first_child() {
                parents.push(node);
                prev.push(None);
                // Containers nest through a few transparent levels each (a body, a list).
                if parents.len() > 4 * MAX_NESTING {
                    return Err(Unparsed::TooDeep);
                }
            } else {
                loop {
                    if cursor.goto_next_sibling() {
                        break;
                    }
                    if !cursor.goto_parent() {
                        return Ok(());
                    }
                    parents.pop();
                    prev.pop();
                }
            }
            node = cursor.node();
            let Some(&parent) = parents.last() else {
                return Ok(());
            };
            let last = prev.last_mut().expect("a sibling slot per parent");
            self.links.insert(
                node.id(),
                Links {
                    parent,
                    prev: *last,
                },
            );
            if node.is_named() {
                *last = Some(node);
            }
            if self.lang.reopens(node.kind()) {
                self.reopen.push(node);
            }
            if self.scans(node.kind()) {
                self.scan.push(node);
            }
            self.note_wrapper(node);
        }
    }

    pub(super) fn parent(&self, node: Node<'a>) -> Option<Node<'a>> {
        match self.links.get(&node.id()) {
            Some(l) => Some(l.parent),
            None => node.parent(),
        }
    }

    pub(super) fn prev_named(&self, node: Node<'a>) -> Option<Node<'a>> {
        match self.links.get(&node.id()) {
            Some(l) => l.prev,
            None => node.prev_named_sibling(),
        }
    }

    /// The file's structure: the query's definitions as a symbol tree, the items, the blocks;
    /// or why it has none (the caller stopped it, or it is beyond the [`limits`]).
    pub(super) fn run(mut self, root: Node<'a>) -> Result<FileStructure, Unparsed> {
        self.link(root)?;
        let (mut candidates, items) = self.search(root)?;
        if !self.scan.is_empty() {
            match self.lang {
                Lang::Rust => self.macro_items(&mut candidates),
                Lang::Python => self.branch_assignments(&mut candidates),
                Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
                    self.script_definitions(&mut candidates)
                }
                _ => {}
            }
        }
        self.keep_symbols(&mut candidates, &items);
        let (symbols, roots) = self.symbol_tree(&candidates)?;
        if self.stop.stopped() {
            return Err(Unparsed::Stopped);
        }
        Ok(self.partition(root, symbols, roots, items))
    }

    /// Runs the query from the root, then again below each container it finds and each node
    /// [`Lang::reopens`]: the definitions (per node, the lowest pattern's) and the root's items.
    #[allow(clippy::type_complexity)]
    fn search(
        &mut self,
        root: Node<'a>,
    ) -> Result<(Vec<Candidate<'a>>, Vec<(Node<'a>, ItemCat)>), Unparsed> {
        let mut cursor = QueryCursor::new();
        // Symbols sit near the top of the tree or of a container's body: the query starts
        // matches at most QUERY_DEPTH levels below the root, then below each container
        // (class, namespace, impl…) found, so function bodies are never searched.
        cursor.set_max_start_depth(Some(QUERY_DEPTH));
        let mut candidates: Vec<Candidate> = Vec::new();
        // By node and (Go's `var a, b = …`: several names in one spec) name.
        let mut by_node: HashMap<(usize, usize), usize, BuildIdHasher> = HashMap::default();
        let mut items: Vec<(Node, ItemCat)> = Vec::new();
        let mut queue = std::mem::take(&mut self.reopen);
        queue.push(root);
        let mut searched = std::collections::HashSet::new();
        while let Some(top) = queue.pop() {
            if !searched.insert(top.id()) {
                continue;
            }
            let mut found = |candidate: Candidate<'a>| {
                let (node, kind) = (candidate.node, candidate.kind);
                let key = match (self.lang, candidate.name) {
                    (Lang::Go, Some(name)) => (node.id(), name.id()),
                    _ => (node.id(), 0),
                };
                match by_node.get(&key) {
                    Some(&at) if candidates[at].pattern <= candidate.pattern => {}
                    Some(&at) => candidates[at] = candidate,
                    None if candidates.len() >= self.stop.symbol_limit() => {
                        return Err(Unparsed::TooManySymbols);
                    }
                    None => {
                        by_node.insert(key, candidates.len());
                        candidates.push(candidate);
                        if self.holds_members(kind, node) && node != top {
                            queue.push(node);
                        }
                    }
                }
                Ok(())
            };
            if self.lang == Lang::C {
                self.walk_c(top, top == root, QUERY_DEPTH, &mut items, &mut found)?;
                continue;
            }
            let mut matches = cursor.matches(&self.compiled.query, top, self.bytes);
            let mut seen = 0u32;
            while let Some(m) = matches.next() {
                seen = seen.wrapping_add(1);
                if seen.is_multiple_of(256) && self.stop.stopped() {
                    return Err(Unparsed::Stopped);
                }
                if let Some(candidate) = self.read_match(m, top == root, &mut items) {
                    found(candidate)?;
                }
            }
        }
        Ok((candidates, items))
    }

    /// One query match: its definition as a candidate, if it captured one; the items it
    /// captured are added to `items` when the query ran from the root.
    pub(super) fn read_match(
        &self,
        m: &tree_sitter::QueryMatch<'_, 'a>,
        at_root: bool,
        items: &mut Vec<(Node<'a>, ItemCat)>,
    ) -> Option<Candidate<'a>> {
        let c = self.compiled;
        let item_captures = [
            (c.import, ItemCat::Import),
            (c.export, ItemCat::Export),
            (c.comment, ItemCat::Comment),
            (c.directive, ItemCat::Directive),
        ];
        let (mut name, mut def) = (None, None);
        for cap in m.captures() {
            let i = cap.index;
            if Some(i) == c.name {
                name = Some(cap.node);
            } else if let Some(&(_, kind)) = c.definitions.iter().find(|(d, _)| *d == i) {
                def = Some((cap.node, kind));
            } else if at_root
                && let Some(&(_, cat)) = item_captures.iter().find(|(k, _)| *k == Some(i))
            {
                items.push((cap.node, cat));
            }
        }
        let (node, kind) = def?;
        Some(Candidate {
            node,
            name,
            kind,
            pattern: m.pattern_index,
            qualifier: None,
            written: None,
        })
    }

    /// Drops the candidates that are never symbols: definitions outside the structural part of
    /// the tree (in a function body or an expression) or in an import (`const x = require('x')`).
    /// Names the C/C++ ones from their declarators; sorts by start, an enclosing one first.
    fn keep_symbols(&self, candidates: &mut Vec<Candidate<'a>>, items: &[(Node<'a>, ItemCat)]) {
        let imports: std::collections::HashSet<usize> = items
            .iter()
            .filter(|(_, cat)| *cat == ItemCat::Import)
            .map(|(n, _)| n.id())
            .collect();
        candidates.retain(|cand| {
            let node = cand.written.map_or(cand.node, |w| w.anchor);
            self.links.contains_key(&node.id())
                && self.parent(node).is_none_or(|p| !imports.contains(&p.id()))
        });
        self.name_declarators(candidates);
        candidates.sort_by_key(|cand| (cand.node.start_byte(), usize::MAX - cand.node.end_byte()));
    }

    /// The symbols of the sorted candidates, each under the container it sits in (one in a
    /// function body or an expression is dropped), with their addresses; and the roots.
    /// A symbol nested deeper than [`MAX_NESTING`] makes the file text.
    fn symbol_tree(
        &self,
        candidates: &[Candidate<'a>],
    ) -> Result<(Vec<Symbol>, Vec<u32>), Unparsed> {
        // node id → candidate index
        let by_node: HashMap<usize, usize, BuildIdHasher> =
            candidates.iter().map(|c| c.node.id()).zip(0..).collect();
        let mut symbols: Vec<Symbol> = Vec::with_capacity(candidates.len());
        // candidate index → symbol index
        let mut kept: Vec<Option<u32>> = vec![None; candidates.len()];
        let mut scopes: Vec<String> = Vec::with_capacity(candidates.len());
        let mut depths: Vec<u32> = Vec::with_capacity(candidates.len());
        for (ci, cand) in candidates.iter().enumerate() {
            let at = cand.written.map_or(cand.node, |w| w.anchor);
            let Some(parent) = self.parent_of(at, &by_node, &kept, &symbols) else {
                continue;
            };
            let depth = parent.map_or(0, |p| depths[p as usize] + 1);
            if depth as usize >= MAX_NESTING {
                return Err(Unparsed::TooDeep);
            }
            depths.push(depth);
            let index = symbols.len() as u32;
            let (symbol, scope) = self.symbol(cand, parent, &symbols, &scopes);
            if let Some(p) = parent {
                symbols[p as usize].children.push(index);
            }
            symbols.push(symbol);
            scopes.push(scope);
            kept[ci] = Some(index);
        }
        let roots: Vec<u32> = (0..symbols.len() as u32)
            .filter(|&i| symbols[i as usize].parent.is_none())
            .collect();
        assign_addresses(&mut symbols, &roots);
        Ok((symbols, roots))
    }

    /// `Some(parent)` if the definition at `node` is kept (`Some(None)` at the top level),
    /// `None` if it sits inside a function body or an expression.
    fn parent_of(
        &self,
        node: Node,
        by_node: &HashMap<usize, usize, BuildIdHasher>,
        kept: &[Option<u32>],
        symbols: &[Symbol],
    ) -> Option<Option<u32>> {
        let mut at = self.parent(node);
        while let Some(n) = at {
            if let Some(&ci) = by_node.get(&n.id())
                && !(matches!(self.lang, Lang::C | Lang::Cpp) && cfamily::sees_through(n.kind()))
                && !self.chained(n)
            {
                let sym = kept[ci]?;
                return self
                    .holds_members(symbols[sym as usize].kind, n)
                    .then_some(Some(sym));
            }
            if !self.lang.transparent(n.kind()) && !self.wrap.contains(&n.id()) {
                return None;
            }
            at = self.parent(n);
        }
        Some(None)
    }

    /// The symbol of a kept candidate and the scope its members are qualified with.
    fn symbol(
        &self,
        cand: &Candidate,
        parent: Option<u32>,
        symbols: &[Symbol],
        scopes: &[String],
    ) -> (Symbol, String) {
        let node = cand.node;
        let mut kind = cand.kind;
        let mut name = self.candidate_name(cand);
        let mut scope = None;
        let mut owner = parent.map(|p| scopes[p as usize].clone());
        if let Some(q) = &cand.qualifier {
            owner = Some(match owner {
                Some(o) if !o.is_empty() => format!("{o}.{q}"),
                _ => q.clone(),
            });
        }
        if self.lang.is_b() {
            let parent_kind = parent.map(|p| symbols[p as usize].kind);
            let naming = (kind, name, owner, scope);
            (kind, name, owner, scope) = self.name_b(node, parent_kind, naming);
        } else {
            (kind, name, owner, scope) = self.name_a(node, (kind, name, owner, scope));
        }
        kind = self.refine_kind(kind, node, &name, parent, symbols);
        let qualified = limits::bounded(match &owner {
            Some(o) if !o.is_empty() => format!("{o}.{name}"),
            _ => name.clone(),
        });
        let scope = limits::bounded(scope.unwrap_or_else(|| qualified.clone()));
        let (start, def, end, declaration) = match cand.written {
            Some(w) => (w.start, w.def, w.end, w.declaration),
            None => {
                let outer = self.outer(node);
                // Kotlin: annotations on lines of their own before the definition.
                let first = self.first_b(outer);
                let (start, def) = self.grown_start(first);
                let end = self.last(outer).max(self.last(node));
                let declaration = super::declaration::is_declaration(node, kind, self.bytes)
                    || self.declared_only(node, parent, symbols)
                    || self.declared_b(node, parent.map(|p| &symbols[p as usize]))
                    || (matches!(self.lang, Lang::C | Lang::Cpp)
                        && cfamily::is_extern_declaration(node, self.parent(node), self.bytes));
                (start, def, end, declaration)
            }
        };
        (
            Symbol {
                address: String::new(),
                name,
                qualified,
                kind,
                start_line: start + 1,
                end_line: end + 1,
                def_line: def + 1,
                declaration,
                parent,
                children: Vec::new(),
            },
            scope,
        )
    }

    /// A candidate's name as written (quotes trimmed); `default` for an unnamed default
    /// export, `anonymous` for an empty name.
    fn candidate_name(&self, cand: &Candidate) -> String {
        let name = match cand.name {
            Some(n) => self.text(n).trim_matches(['"', '\'', '`']).trim(),
            None => "default",
        };
        if name.is_empty() {
            "anonymous".to_string()
        } else {
            name.to_string()
        }
    }

    /// C/C++: names and kinds of definitions come from their declarators.
    fn name_declarators(&self, candidates: &mut Vec<Candidate<'a>>) {
        if !matches!(self.lang, Lang::C | Lang::Cpp) {
            return;
        }
        candidates.retain_mut(|cand| {
            let named = cfamily::name_of(cand.node, cand.name, cand.kind, |n| self.text(n));
            let Some((name, kind, qualifier)) = named else {
                return false;
            };
            (cand.name, cand.kind, cand.qualifier) = (Some(name), kind, qualifier);
            true
        });
    }

    /// A function in a class-like symbol is a method; an all-capitals variable declared
    /// constant is a constant.
    fn refine_kind(
        &self,
        mut kind: &'static str,
        node: Node<'a>,
        name: &str,
        parent: Option<u32>,
        symbols: &[Symbol],
    ) -> &'static str {
        if kind == "function"
            && parent.is_some_and(|p| {
                matches!(
                    symbols[p as usize].kind,
                    "class" | "impl" | "trait" | "interface" | "struct" | "enum" | "record"
                )
            })
        {
            kind = "method";
        }
        kind = self.refine_kind_a(kind, node, parent);
        if kind == "variable" && is_constant_name(name) {
            let declared_const = match self.lang {
                Lang::TypeScript | Lang::Tsx | Lang::JavaScript => self
                    .parent(node)
                    .is_some_and(|p| self.text(p).starts_with("const")),
                _ => self.lang == Lang::Python,
            };
            if declared_const {
                kind = "constant";
            }
        }
        kind
    }
}

/// How deep below the root or a container the query starts matches: deep enough for
/// `namespace N { export const x = … }` (statement block, export, declaration, declarator).
pub(super) const QUERY_DEPTH: u32 = 4;

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    use super::BuildIdHasher;

    /// A key of two numbers hashes both: keys that differ only in the first spread over
    /// the table (when only the last counted, 130,000 definitions of one name on one line
    /// took 17 s, all in one bucket chain).
    #[test]
    fn pairs_hash_both_numbers() {
        let h = |a: usize, b: usize| BuildIdHasher.hash_one((a, b));
        let hashes: std::collections::HashSet<u64> = (0..10_000).map(|a| h(a * 32, 7)).collect();
        assert_eq!(hashes.len(), 10_000);
        // Aligned addresses still use the low bits the table indexes by.
        let low: std::collections::HashSet<u64> =
            (0..4_096).map(|a| h(a * 32, 0) & 4_095).collect();
        assert!(low.len() > 2_000, "{}", low.len());
    }
}
