//! The structure of a code file: symbols (a tree, with full line ranges grown over export
//! wrappers, decorators and the doc comment above), imports, exports, orphan comments,
//! directives, and a partition of every line into exactly one block of one category.

use std::cell::RefCell;
use std::collections::HashMap;

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Parser, QueryCursor};

use super::lang::{Compiled, Lang};

/// Files larger than this are not parsed (read raw): tree-sitter's tree of a multi-MiB
/// minified bundle costs more than it tells.
pub const MAX_PARSE_BYTES: usize = 16 << 20;

/// A named definition: function, class, method, type, constant…
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    /// `Class.method`, `Type.method` for Rust impl and Go receiver methods; the name itself
    /// at the top level.
    pub qualified: String,
    pub kind: &'static str,
    /// The name to pass as `target` to read exactly this symbol: the qualified name, unless
    /// several symbols share it — then `impl Trait for Type.method` (the parent's name and
    /// the symbol's), or `QUALIFIED@LINE`. Overloads (adjacent siblings of one name) share
    /// their qualified name and are read together.
    pub address: String,
    /// 1-based, inclusive: the whole definition with its export wrapper, decorators and doc
    /// comment.
    pub start_line: u32,
    pub end_line: u32,
    pub parent: Option<u32>,
    pub children: Vec<u32>,
}

impl Symbol {
    pub fn lines(&self) -> u32 {
        self.end_line + 1 - self.start_line
    }
}

/// An import, export, orphan comment or directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub name: String,
    pub kind: &'static str,
    pub start_line: u32,
    pub end_line: u32,
}

/// The category of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    /// A top-level symbol (index into [`FileStructure::symbols`]).
    Symbol(u32),
    Import,
    Export,
    Comment,
    Directive,
    /// Lines of no other category: blank lines, or top-level code that defines nothing
    /// (`app.listen(3000);`).
    Gap(GapKind),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GapKind {
    Blank,
    Unknown,
}

impl Category {
    /// The singular name of a non-symbol category (`import`, `gap`…).
    pub fn name(self) -> &'static str {
        match self {
            Category::Symbol(_) => "symbol",
            Category::Import => "import",
            Category::Export => "export",
            Category::Comment => "comment",
            Category::Directive => "directive",
            Category::Gap(_) => "gap",
        }
    }
}

/// A run of lines of one category: one top-level symbol, consecutive lines of imports (or
/// exports, comments, directives), one top-level statement, or a run of blank lines. Blocks
/// are atomic for range reads and partition the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub start_line: u32,
    pub end_line: u32,
    pub category: Category,
    /// Import/export/comment/directive items that start in the block.
    pub items: u32,
}

/// Everything `file_read` knows about a code file.
#[derive(Debug, Default)]
pub struct FileStructure {
    pub lang: Option<Lang>,
    pub total_lines: u32,
    /// Every symbol in document order (parents before their children).
    pub symbols: Vec<Symbol>,
    /// Top-level symbols.
    pub roots: Vec<u32>,
    pub imports: Vec<Item>,
    pub exports: Vec<Item>,
    pub comments: Vec<Item>,
    pub directives: Vec<Item>,
    /// The partition of lines `1..=total_lines`, in order.
    pub blocks: Vec<Block>,
}

/// Per-line owner while the partition is built.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Own {
    Unset,
    Symbol(u32),
    Item(ItemCat),
    Statement(u32),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ItemCat {
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
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64 ^ (n as u64 >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

#[derive(Clone, Copy)]
struct Links<'t> {
    parent: Node<'t>,
    prev: Option<Node<'t>>,
}

struct Candidate<'t> {
    node: Node<'t>,
    name: Option<Node<'t>>,
    kind: &'static str,
    pattern: usize,
}

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
}

impl FileStructure {
    /// The structure of `bytes` in `lang`; `None` if this build lacks the grammar or the
    /// file is too large to parse.
    pub fn build(lang: Lang, bytes: &[u8]) -> Option<FileStructure> {
        FileStructure::build_split(lang, bytes, SPLIT_MIN_BYTES)
    }

    /// [`FileStructure::build`], parsing files of at least `split_min` bytes in two halves
    /// on two threads when the file splits cleanly (see [`split_point`]).
    pub(crate) fn build_split(lang: Lang, bytes: &[u8], split_min: usize) -> Option<FileStructure> {
        let compiled = lang.compiled()?;
        if bytes.len() > MAX_PARSE_BYTES {
            return None;
        }
        if bytes.len() >= split_min
            && let Some(at) = split_point(lang, bytes)
        {
            let (head, tail) = bytes.split_at(at);
            let (a, b) = rayon::join(|| parse(compiled, head), || parse(compiled, tail));
            if let (Some(a), Some(b)) = (a, b)
                && !a.root_node().has_error()
                && !b.root_node().has_error()
            {
                let (first, second) = rayon::join(
                    || Builder::new(lang, compiled, head).run(a.root_node()),
                    || Builder::new(lang, compiled, tail).run(b.root_node()),
                );
                return Some(first.join(second));
            }
        }
        let tree = parse(compiled, bytes)?;
        Some(Builder::new(lang, compiled, bytes).run(tree.root_node()))
    }

    /// Appends `next`, the structure of the text right after this one's (which ends with a
    /// newline), renumbering its lines and symbols.
    fn join(mut self, next: FileStructure) -> FileStructure {
        let lines = self.total_lines;
        let base = self.symbols.len() as u32;
        for mut sym in next.symbols {
            sym.start_line += lines;
            sym.end_line += lines;
            sym.parent = sym.parent.map(|p| p + base);
            for c in &mut sym.children {
                *c += base;
            }
            self.symbols.push(sym);
        }
        self.roots.extend(next.roots.iter().map(|r| r + base));
        let shift = |items: Vec<Item>| {
            items.into_iter().map(|mut i| {
                i.start_line += lines;
                i.end_line += lines;
                i
            })
        };
        self.imports.extend(shift(next.imports));
        self.exports.extend(shift(next.exports));
        self.comments.extend(shift(next.comments));
        self.directives.extend(shift(next.directives));
        for (k, mut block) in next.blocks.into_iter().enumerate() {
            block.start_line += lines;
            block.end_line += lines;
            if let Category::Symbol(i) = &mut block.category {
                *i += base;
            }
            // The seam: a run of blank lines or of items of one kind continues.
            if k == 0
                && let Some(last) = self.blocks.last_mut()
                && last.category == block.category
                && !matches!(
                    block.category,
                    Category::Symbol(_) | Category::Gap(GapKind::Unknown)
                )
            {
                last.end_line = block.end_line;
                if !matches!(block.category, Category::Gap(_)) {
                    last.items += block.items;
                }
                continue;
            }
            self.blocks.push(block);
        }
        self.total_lines += next.total_lines;
        assign_addresses(&mut self.symbols, &self.roots);
        self
    }

    /// The partition property, checked (tests and fuzzing call it): blocks are in order,
    /// contiguous, cover `1..=total_lines` (the line count of the text) and never repeat a
    /// symbol; only top-level symbols own blocks, inside their ranges; every listed item owns
    /// a line of its category (lines it shares with an earlier entity go to that one);
    /// children lie inside their parents.
    pub fn check_partition(&self, total_lines: u32) -> Result<(), String> {
        let fail = |what: String| Err(what);
        if self.total_lines != total_lines {
            return fail(format!(
                "{} lines counted, {total_lines} in the text",
                self.total_lines
            ));
        }
        let mut next = 1;
        let mut seen = std::collections::HashSet::new();
        for b in &self.blocks {
            if b.start_line != next || b.end_line < b.start_line {
                return fail(format!("block {b:?} does not follow line {}", next - 1));
            }
            next = b.end_line + 1;
            if let Category::Symbol(i) = b.category {
                let sym = self.symbol(i);
                if !seen.insert(i) || sym.parent.is_some() {
                    return fail(format!(
                        "symbol {sym:?} owns a second block, or is a member"
                    ));
                }
                if b.start_line < sym.start_line || sym.end_line < b.end_line {
                    return fail(format!("block {b:?} outside its symbol {sym:?}"));
                }
            }
        }
        if next != total_lines + 1 {
            return fail(format!(
                "blocks end at line {}, the text at {total_lines}",
                next - 1
            ));
        }
        for cat in [
            Category::Import,
            Category::Export,
            Category::Comment,
            Category::Directive,
        ] {
            for item in self.items(cat) {
                let owns = (item.start_line..=item.end_line).any(|line| {
                    self.block_at(line)
                        .is_some_and(|b| self.blocks[b].category == cat)
                });
                if !owns {
                    return fail(format!("{cat:?} item {item:?} owns no line"));
                }
            }
        }
        for (i, sym) in self.symbols.iter().enumerate() {
            if sym.start_line < 1 || sym.end_line > total_lines.max(1) {
                return fail(format!("symbol {sym:?} outside the text"));
            }
            for &c in &sym.children {
                let child = self.symbol(c);
                if child.parent != Some(i as u32)
                    || child.start_line < sym.start_line
                    || sym.end_line < child.end_line
                {
                    return fail(format!("child {child:?} outside or not linked to {sym:?}"));
                }
            }
        }
        Ok(())
    }

    /// Heap bytes held (for the cache's budget).
    pub fn heap_bytes(&self) -> usize {
        let strings: usize = self
            .symbols
            .iter()
            .map(|s| s.name.len() + s.qualified.len() + s.children.len() * 4)
            .sum::<usize>()
            + [
                &self.imports,
                &self.exports,
                &self.comments,
                &self.directives,
            ]
            .iter()
            .flat_map(|list| list.iter())
            .map(|i| i.name.len() + std::mem::size_of::<Item>())
            .sum::<usize>();
        strings
            + self.symbols.len() * std::mem::size_of::<Symbol>()
            + self.blocks.len() * std::mem::size_of::<Block>()
            + self.roots.len() * 4
            + std::mem::size_of::<FileStructure>()
    }

    pub fn symbol(&self, index: u32) -> &Symbol {
        &self.symbols[index as usize]
    }

    /// The list of items of a non-symbol, non-gap category.
    pub fn items(&self, category: Category) -> &[Item] {
        match category {
            Category::Import => &self.imports,
            Category::Export => &self.exports,
            Category::Comment => &self.comments,
            Category::Directive => &self.directives,
            Category::Symbol(_) | Category::Gap(_) => &[],
        }
    }

    /// The gap blocks (lines of no other category).
    pub fn gaps(&self) -> impl Iterator<Item = (&Block, GapKind)> {
        self.blocks.iter().filter_map(|b| match b.category {
            Category::Gap(kind) => Some((b, kind)),
            _ => None,
        })
    }

    /// The index of the block holding `line` (1-based, within the file).
    pub fn block_at(&self, line: u32) -> Option<usize> {
        let i = self.blocks.partition_point(|b| b.end_line < line);
        (i < self.blocks.len() && self.blocks[i].start_line <= line).then_some(i)
    }

    /// The innermost symbol whose range holds `line`.
    pub fn innermost_at(&self, line: u32) -> Option<u32> {
        let mut found = None;
        let mut level: &[u32] = &self.roots;
        'descend: loop {
            for &i in level {
                let s = &self.symbols[i as usize];
                if s.start_line <= line && line <= s.end_line {
                    found = Some(i);
                    level = &s.children;
                    continue 'descend;
                }
            }
            return found;
        }
    }
}

struct Builder<'a> {
    lang: Lang,
    compiled: &'a Compiled,
    bytes: &'a [u8],
    /// Parent and previous named sibling of the nodes in the structural part of the tree
    /// (see [`Builder::link`]): tree-sitter's own `parent()` walks down from the root, which
    /// costs the width of every level above the node.
    links: HashMap<usize, Links<'a>, BuildIdHasher>,
    /// Byte offset where each line starts.
    line_starts: Vec<usize>,
}

impl<'a> Builder<'a> {
    fn new(lang: Lang, compiled: &'a Compiled, bytes: &'a [u8]) -> Builder<'a> {
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
        }
    }

    fn total_lines(&self) -> u32 {
        self.line_starts.len() as u32
    }

    /// 0-based first line of a node.
    fn first(&self, node: Node) -> u32 {
        node.start_position().row as u32
    }

    /// 0-based last line of a node (a node ending at column 0 ends on the line before).
    fn last(&self, node: Node) -> u32 {
        let end = node.end_position();
        let row = if end.column == 0 && end.row > node.start_position().row {
            end.row - 1
        } else {
            end.row
        } as u32;
        row.min(self.total_lines().saturating_sub(1))
    }

    /// A node's text; invalid UTF-8 ends it (names and descriptions are made of text).
    fn text(&self, node: Node) -> &'a str {
        let bytes = &self.bytes[node.byte_range()];
        match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
        }
    }

    /// Records parent and previous named sibling of every node in the structural part of the
    /// tree: the root's children and the insides of transparent and container nodes, never
    /// function bodies.
    fn link(&mut self, root: Node<'a>) {
        let mut cursor = root.walk();
        let mut parents: Vec<Node<'a>> = Vec::new();
        let mut prev: Vec<Option<Node<'a>>> = Vec::new();
        let mut node = root;
        loop {
            let descend = parents.is_empty()
                || self.lang.transparent(node.kind())
                || self.lang.is_container_node(node.kind());
            if descend && cursor.goto_first_child() {
                parents.push(node);
                prev.push(None);
            } else {
                loop {
                    if cursor.goto_next_sibling() {
                        break;
                    }
                    if !cursor.goto_parent() {
                        return;
                    }
                    parents.pop();
                    prev.pop();
                }
            }
            node = cursor.node();
            let Some(&parent) = parents.last() else {
                return;
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
        }
    }

    fn parent(&self, node: Node<'a>) -> Option<Node<'a>> {
        match self.links.get(&node.id()) {
            Some(l) => Some(l.parent),
            None => node.parent(),
        }
    }

    fn prev_named(&self, node: Node<'a>) -> Option<Node<'a>> {
        match self.links.get(&node.id()) {
            Some(l) => l.prev,
            None => node.prev_named_sibling(),
        }
    }

    fn run(mut self, root: Node<'a>) -> FileStructure {
        self.link(root);
        let c = self.compiled;
        let mut cursor = QueryCursor::new();
        // Symbols sit near the top of the tree or of a container's body: the query starts
        // matches at most QUERY_DEPTH levels below the root, then below each container
        // (class, namespace, impl…) found, so function bodies are never searched.
        cursor.set_max_start_depth(Some(QUERY_DEPTH));
        let mut candidates: Vec<Candidate> = Vec::new();
        let mut by_node: HashMap<usize, usize, BuildIdHasher> = HashMap::default();
        let mut items: Vec<(Node, ItemCat)> = Vec::new();
        let mut queue = vec![root];
        let mut searched = std::collections::HashSet::new();
        while let Some(top) = queue.pop() {
            if !searched.insert(top.id()) {
                continue;
            }
            let mut matches = cursor.matches(&c.query, top, self.bytes);
            while let Some(m) = matches.next() {
                let mut name = None;
                let mut def = None;
                for cap in m.captures() {
                    let i = cap.index;
                    if Some(i) == c.name {
                        name = Some(cap.node);
                    } else if let Some(&(_, kind)) = c.definitions.iter().find(|(d, _)| *d == i) {
                        def = Some((cap.node, kind));
                    } else if top == root {
                        let cat = if Some(i) == c.import {
                            ItemCat::Import
                        } else if Some(i) == c.export {
                            ItemCat::Export
                        } else if Some(i) == c.comment {
                            ItemCat::Comment
                        } else if Some(i) == c.directive {
                            ItemCat::Directive
                        } else {
                            continue;
                        };
                        items.push((cap.node, cat));
                    }
                }
                let Some((node, kind)) = def else { continue };
                let candidate = Candidate {
                    node,
                    name,
                    kind,
                    pattern: m.pattern_index,
                };
                match by_node.get(&node.id()) {
                    Some(&at) if candidates[at].pattern <= m.pattern_index => {}
                    Some(&at) => candidates[at] = candidate,
                    None => {
                        by_node.insert(node.id(), candidates.len());
                        candidates.push(candidate);
                        if is_container(kind) && node != top {
                            queue.push(node);
                        }
                    }
                }
            }
        }
        // `const x = require('x')` is an import, not a symbol.
        let imports: std::collections::HashSet<usize> = items
            .iter()
            .filter(|(_, cat)| *cat == ItemCat::Import)
            .map(|(n, _)| n.id())
            .collect();
        // A definition outside the structural part of the tree (inside a function body or an
        // expression) is never a symbol.
        candidates.retain(|cand| {
            self.links.contains_key(&cand.node.id())
                && self
                    .parent(cand.node)
                    .is_none_or(|p| !imports.contains(&p.id()))
        });
        candidates.sort_by_key(|cand| (cand.node.start_byte(), usize::MAX - cand.node.end_byte()));
        by_node = candidates
            .iter()
            .enumerate()
            .map(|(i, cand)| (cand.node.id(), i))
            .collect();

        let mut symbols: Vec<Symbol> = Vec::with_capacity(candidates.len());
        // candidate index → symbol index
        let mut kept: Vec<Option<u32>> = vec![None; candidates.len()];
        let mut scopes: Vec<String> = Vec::with_capacity(candidates.len());
        for (ci, cand) in candidates.iter().enumerate() {
            let Some(parent) = self.parent_of(cand.node, &by_node, &kept, &symbols) else {
                continue;
            };
            let index = symbols.len() as u32;
            let (symbol, scope) = self.symbol(cand, parent, &symbols, &scopes);
            if let Some(p) = parent {
                symbols[p as usize].children.push(index);
            }
            symbols.push(symbol);
            scopes.push(scope);
            kept[ci] = Some(index);
        }
        let roots: Vec<u32> = symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| s.parent.is_none())
            .map(|(i, _)| i as u32)
            .collect();
        assign_addresses(&mut symbols, &roots);
        self.partition(root, symbols, roots, items)
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
            if let Some(&ci) = by_node.get(&n.id()) {
                let sym = kept[ci]?;
                return is_container(symbols[sym as usize].kind).then_some(Some(sym));
            }
            if !self.lang.transparent(n.kind()) {
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
        let mut name = match cand.name {
            Some(n) => self
                .text(n)
                .trim_matches(['"', '\'', '`'])
                .trim()
                .to_string(),
            None => "default".to_string(),
        };
        if name.is_empty() {
            name = "anonymous".to_string();
        }
        let mut scope = None;
        let mut owner = parent.map(|p| scopes[p as usize].clone());
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
            _ => {}
        }
        if kind == "function"
            && parent.is_some_and(|p| {
                matches!(
                    symbols[p as usize].kind,
                    "class" | "impl" | "trait" | "interface"
                )
            })
        {
            kind = "method";
        }
        if kind == "variable" && is_constant_name(&name) {
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
        let qualified = match &owner {
            Some(o) if !o.is_empty() => format!("{o}.{name}"),
            _ => name.clone(),
        };
        let scope = scope.unwrap_or_else(|| qualified.clone());
        let outer = self.outer(node);
        let start = self.grown_start(outer);
        let end = self.last(outer).max(self.last(node));
        (
            Symbol {
                address: String::new(),
                name,
                qualified,
                kind,
                start_line: start + 1,
                end_line: end + 1,
                parent,
                children: Vec::new(),
            },
            scope,
        )
    }

    /// A type's name without generics, references or pointers (`Foo<T>` → `Foo`).
    fn base_type(&self, ty: Node) -> String {
        let mut t = ty;
        while matches!(t.kind(), "generic_type" | "reference_type" | "pointer_type")
            && let Some(inner) = t.child_by_field_name("type").or_else(|| t.named_child(0))
        {
            t = inner;
        }
        self.text(t).to_string()
    }

    /// The node a symbol's range is taken from: the definition grown to its export wrapper,
    /// decorated definition, or single-entry declaration.
    fn outer(&self, node: Node<'a>) -> Node<'a> {
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
    /// right above it (no blank line between, not trailing another statement).
    fn grown_start(&self, outer: Node<'a>) -> u32 {
        let mut start = self.first(outer);
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
            at = before;
        }
        start
    }

    fn is_inner_doc(&self, comment: Node) -> bool {
        let t = self.text(comment);
        t.starts_with("//!") || t.starts_with("/*!")
    }

    fn partition(
        self,
        root: Node,
        symbols: Vec<Symbol>,
        roots: Vec<u32>,
        items: Vec<(Node, ItemCat)>,
    ) -> FileStructure {
        let total = self.total_lines();
        let mut own = vec![Own::Unset; total as usize];
        let claim = |first: u32, last: u32, owner: Own, own: &mut Vec<Own>| -> bool {
            let mut got = false;
            for line in first..=last.min(total.saturating_sub(1)) {
                let slot = &mut own[line as usize];
                if *slot == Own::Unset {
                    *slot = owner;
                    got = true;
                } else if *slot == owner {
                    got = true;
                }
            }
            got
        };
        for &r in &roots {
            let s = &symbols[r as usize];
            claim(s.start_line - 1, s.end_line - 1, Own::Symbol(r), &mut own);
        }
        let mut lists: [Vec<Item>; 4] = Default::default();
        for cat in [
            ItemCat::Directive,
            ItemCat::Import,
            ItemCat::Export,
            ItemCat::Comment,
        ] {
            for &(node, c) in &items {
                if self.category(c, node) != cat {
                    continue;
                }
                let (first, last) = (self.first(node), self.last(node));
                if claim(first, last, Own::Item(cat), &mut own) {
                    let (kind, name) = self.describe(node, cat);
                    lists[cat as usize].push(Item {
                        name,
                        kind,
                        start_line: first + 1,
                        end_line: last + 1,
                    });
                }
            }
        }
        let mut walk = root.walk();
        for (k, child) in root.named_children(&mut walk).enumerate() {
            claim(
                self.first(child),
                self.last(child),
                Own::Statement(k as u32),
                &mut own,
            );
        }
        for list in &mut lists {
            list.sort_by_key(|i| (i.start_line, i.end_line));
        }
        let [imports, exports, comments, directives] = lists;

        // Runs of one owner become blocks.
        let mut blocks: Vec<Block> = Vec::new();
        for (line, &owner) in own.iter().enumerate() {
            let line = line as u32 + 1;
            let category = match owner {
                Own::Symbol(i) => Category::Symbol(i),
                Own::Item(ItemCat::Import) => Category::Import,
                Own::Item(ItemCat::Export) => Category::Export,
                Own::Item(ItemCat::Comment) => Category::Comment,
                Own::Item(ItemCat::Directive) => Category::Directive,
                Own::Statement(_) => Category::Gap(GapKind::Unknown),
                Own::Unset if self.is_blank(line - 1) => Category::Gap(GapKind::Blank),
                Own::Unset => Category::Gap(GapKind::Unknown),
            };
            let continues = line > 1 && {
                let prev = own[line as usize - 2];
                match (prev, owner) {
                    (Own::Unset, Own::Unset) => {
                        blocks.last().is_some_and(|b| b.category == category)
                    }
                    (a, b) => a == b,
                }
            };
            if continues {
                blocks.last_mut().expect("a block before").end_line = line;
            } else {
                blocks.push(Block {
                    start_line: line,
                    end_line: line,
                    category,
                    items: 0,
                });
            }
        }
        let mut structure = FileStructure {
            lang: Some(self.lang),
            total_lines: total,
            symbols,
            roots,
            imports,
            exports,
            comments,
            directives,
            blocks,
        };
        let counts: Vec<u32> = structure
            .blocks
            .iter()
            .map(|b| {
                structure
                    .items(b.category)
                    .iter()
                    .filter(|i| b.start_line <= i.start_line && i.start_line <= b.end_line)
                    .count() as u32
            })
            .collect();
        for (block, n) in structure.blocks.iter_mut().zip(counts) {
            block.items = n.max(1);
        }
        structure
    }

    /// The category of a captured item: a `#!` comment on the first line is a directive.
    fn category(&self, cat: ItemCat, node: Node) -> ItemCat {
        if cat == ItemCat::Comment && node.start_byte() == 0 && self.text(node).starts_with("#!") {
            ItemCat::Directive
        } else {
            cat
        }
    }

    fn is_blank(&self, line: u32) -> bool {
        let start = self.line_starts[line as usize];
        let end = self
            .line_starts
            .get(line as usize + 1)
            .copied()
            .unwrap_or(self.bytes.len());
        self.bytes[start..end].iter().all(u8::is_ascii_whitespace)
    }

    /// The kind and display name of an item.
    fn describe(&self, node: Node, cat: ItemCat) -> (&'static str, String) {
        let text = self.text(node);
        match cat {
            ItemCat::Import => self.describe_import(node, text),
            ItemCat::Export if node.kind() == "expression_statement" => {
                let left = node
                    .named_child(0)
                    .and_then(|a| a.child_by_field_name("left"))
                    .map_or(text, |l| self.text(l));
                ("commonjs-export", short(left))
            }
            ItemCat::Export => {
                let body = text.trim_start_matches("export").trim_start();
                if let Some(rest) = body.strip_prefix("default") {
                    ("default-export", short(rest.trim_end_matches(';')))
                } else if body.starts_with('*') || node.child_by_field_name("source").is_some() {
                    ("re-export", short(body.trim_end_matches(';')))
                } else {
                    ("named-export", short(body.trim_end_matches(';')))
                }
            }
            ItemCat::Comment => {
                let kind = if node.kind() == "expression_statement" {
                    "docstring"
                } else if text.starts_with("/**")
                    || text.starts_with("///")
                    || text.starts_with("//!")
                    || text.starts_with("/*!")
                {
                    "doc-comment"
                } else if text.starts_with("/*") {
                    "block-comment"
                } else {
                    "line-comment"
                };
                (kind, comment_title(text))
            }
            ItemCat::Directive => match node.kind() {
                "hash_bang_line" | "comment" => ("shebang", short(text)),
                "inner_attribute_item" => ("inner-attribute", short(text)),
                "package_clause" => (
                    "package",
                    short(text.trim_start_matches("package").trim_start()),
                ),
                _ => (
                    "directive",
                    short(text.trim_end_matches(';').trim_matches(['"', '\''])),
                ),
            },
        }
    }

    fn describe_import(&self, node: Node, text: &str) -> (&'static str, String) {
        match (self.lang, node.kind()) {
            (_, "import_statement") if matches!(self.lang, Lang::Python) => (
                "import",
                short(text.trim_start_matches("import").trim_start()),
            ),
            (_, "import_statement") => {
                let mut walk = node.walk();
                let clause = node
                    .named_children(&mut walk)
                    .find(|c| c.kind() == "import_clause");
                let Some(clause) = clause else {
                    return match node.child_by_field_name("source") {
                        Some(src) => ("side-effect-import", short(self.text(src))),
                        None => ("import", short(text.trim_start_matches("import"))),
                    };
                };
                let first = clause.named_child(0).map(|n| n.kind()).unwrap_or("");
                let kind = match first {
                    "named_imports" => "named-import",
                    "namespace_import" => "namespace-import",
                    _ => "default-import",
                };
                (kind, short(self.text(clause)))
            }
            (_, "import_from_statement") => (
                "from-import",
                short(text.trim_start_matches("from").trim_start()),
            ),
            (_, "future_import_statement") => (
                "future-import",
                short(text.trim_start_matches("from").trim_start()),
            ),
            (_, "use_declaration") => (
                "use",
                short(
                    node.child_by_field_name("argument")
                        .map(|a| self.text(a))
                        .unwrap_or(text),
                ),
            ),
            (_, "extern_crate_declaration") => ("extern-crate", short(text)),
            (_, "import_declaration") => {
                let mut paths = Vec::new();
                collect_kind(node, "import_spec", &mut |spec| {
                    paths.push(self.text(spec).to_string());
                });
                ("import", short(&paths.join(", ")))
            }
            (_, "lexical_declaration" | "variable_declaration") => {
                let name = node
                    .named_child(0)
                    .and_then(|d| d.child_by_field_name("name"))
                    .map(|n| self.text(n))
                    .unwrap_or(text);
                ("require", short(name))
            }
            _ => ("import", short(text)),
        }
    }
}

/// Files from this size on are parsed in two halves on two threads (when they split cleanly).
pub const SPLIT_MIN_BYTES: usize = 96 << 10;

fn parse(compiled: &Compiled, bytes: &[u8]) -> Option<tree_sitter::Tree> {
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser.set_language(&compiled.language).ok()?;
        parser.parse(bytes, None)
    })
}

/// Where a file may be cut in two for parsing: the start of a line near the middle that
/// follows a blank line and opens a top-level declaration (`export `, `fn `, `def `…) at
/// column 0. The cut is only a guess — inside a template string it would be wrong — so both
/// halves must parse without an error node, or the file is parsed whole.
pub(crate) fn split_point(lang: Lang, bytes: &[u8]) -> Option<usize> {
    let starts: &[&[u8]] = match lang {
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => &[
            b"export ",
            b"function ",
            b"async function ",
            b"class ",
            b"interface ",
            b"/**",
        ],
        Lang::Rust => &[
            b"pub ", b"fn ", b"impl", b"struct ", b"enum ", b"///", b"#[",
        ],
        Lang::Python => &[b"def ", b"class ", b"async def "],
        Lang::Go => &[b"func ", b"type "],
    };
    let mid = bytes.len() / 2;
    // Look in the second and then the first half of the middle third.
    for (from, to) in [(mid, bytes.len() * 2 / 3), (bytes.len() / 3, mid)] {
        let mut at = from;
        while let Some(found) = memchr::memmem::find(&bytes[at..to], b"\n\n") {
            let line = at + found + 2;
            if starts.iter().any(|s| bytes[line..].starts_with(s)) {
                return Some(line);
            }
            at += found + 1;
        }
    }
    None
}

/// Gives every symbol its target address (see [`Symbol::address`]).
fn assign_addresses(symbols: &mut [Symbol], roots: &[u32]) {
    let mut groups: HashMap<&str, Vec<u32>> = HashMap::new();
    for (i, sym) in symbols.iter().enumerate() {
        groups
            .entry(sym.qualified.as_str())
            .or_default()
            .push(i as u32);
    }
    let mut addresses: Vec<(u32, String)> = Vec::new();
    for (qualified, group) in groups {
        if group.len() == 1 || adjacent_siblings(symbols, roots, &group) {
            addresses.extend(group.iter().map(|&i| (i, qualified.to_string())));
            continue;
        }
        let by_parent: Vec<Option<String>> = group
            .iter()
            .map(|&i| {
                let sym = &symbols[i as usize];
                sym.parent
                    .map(|p| format!("{}.{}", symbols[p as usize].name, sym.name))
            })
            .collect();
        for (k, &i) in group.iter().enumerate() {
            let unique = by_parent[k]
                .as_ref()
                .filter(|a| by_parent.iter().filter(|b| b.as_ref() == Some(a)).count() == 1);
            let sym = &symbols[i as usize];
            let same_line = group
                .iter()
                .filter(|&&j| symbols[j as usize].start_line == sym.start_line)
                .count();
            let address = match unique {
                Some(a) if *a != sym.qualified => a.clone(),
                // Several of one name on one line: their order on it tells them apart.
                _ if same_line > 1 => {
                    let nth = group[..k]
                        .iter()
                        .filter(|&&j| symbols[j as usize].start_line == sym.start_line)
                        .count();
                    format!("{}@{}#{}", sym.qualified, sym.start_line, nth + 1)
                }
                _ => format!("{}@{}", sym.qualified, sym.start_line),
            };
            addresses.push((i, address));
        }
    }
    for (i, address) in addresses {
        symbols[i as usize].address = address;
    }
}

/// Whether `hits` are consecutive siblings (nothing else between them).
pub(crate) fn adjacent_siblings(symbols: &[Symbol], roots: &[u32], hits: &[u32]) -> bool {
    let parent = symbols[hits[0] as usize].parent;
    if hits.iter().any(|&h| symbols[h as usize].parent != parent) {
        return false;
    }
    let siblings: &[u32] = match parent {
        Some(p) => &symbols[p as usize].children,
        None => roots,
    };
    let Some(at) = siblings.iter().position(|&x| x == hits[0]) else {
        return false;
    };
    siblings[at..].starts_with(hits)
}

/// How deep below the root or a container the query starts matches: deep enough for
/// `namespace N { export const x = … }` (statement block, export, declaration, declarator).
const QUERY_DEPTH: u32 = 4;

/// Symbol kinds whose members are symbols too.
fn is_container(kind: &str) -> bool {
    matches!(
        kind,
        "class" | "interface" | "namespace" | "module" | "impl" | "trait"
    )
}

fn collect_kind<'t>(node: Node<'t>, kind: &str, f: &mut impl FnMut(Node<'t>)) {
    if node.kind() == kind {
        f(node);
        return;
    }
    let mut walk = node.walk();
    for child in node.named_children(&mut walk) {
        collect_kind(child, kind, f);
    }
}

/// `MAX_RETRIES`, `API_URL`: all capitals, digits and underscores, with a letter.
fn is_constant_name(name: &str) -> bool {
    name.bytes().any(|b| b.is_ascii_uppercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// Whitespace collapsed, cut at 80 characters.
fn short(text: &str) -> String {
    const MAX: usize = 80;
    let mut out = String::new();
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > MAX {
            let cut: String = out.chars().take(MAX).collect();
            return cut + "…";
        }
    }
    out
}

/// The first line of a comment's text without its markers.
fn comment_title(text: &str) -> String {
    let line = text
        .lines()
        .map(|l| {
            let l = l.trim().trim_end_matches("*/");
            let l = ["///", "//!", "//", "/**", "/*!", "/*", "*", "#"]
                .iter()
                .find_map(|m| l.strip_prefix(m))
                .unwrap_or(l);
            l.trim_matches(['"', '\'']).trim()
        })
        .find(|l| !l.is_empty())
        .unwrap_or("");
    short(line)
}
