//! The structure of a code file: symbols (a tree, with full line ranges grown over export
//! wrappers, decorators and the doc comment above), imports, exports, orphan comments,
//! directives, and a partition of every line into exactly one block of one category.

use std::collections::HashMap;

use super::lang::Lang;
use crate::fasthash::FastMap;

pub use super::limits::MAX_PARSE_BYTES;

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
    /// the symbol's), or `QUALIFIED@LINE` (a C/C++ definition keeps the qualified name, its
    /// prototypes take `@LINE`). Overloads (adjacent siblings of one name) share
    /// their qualified name and are read together.
    pub address: String,
    /// 1-based, inclusive: the whole definition with its export wrapper, decorators and doc
    /// comment.
    pub start_line: u32,
    pub end_line: u32,
    /// 1-based first line of the definition itself (its export wrapper or decorators
    /// included): `start_line` without the doc comment and attributes above it.
    pub def_line: u32,
    /// A declaration without a body: a prototype, a signature (a trait's or an abstract
    /// method, an overload signature), a forward declaration.
    pub declaration: bool,
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
    /// The package, namespace or module the file declares for all its symbols, outermost
    /// first (`["java", "util"]` for `package java.util;`); empty when it declares none, or
    /// declares them as blocks around its symbols (those are containers, in `qualified`).
    /// Languages whose module is the file's path (Python, Rust) have theirs from
    /// [`super::package::of_path`].
    pub package: Vec<String>,
}

impl FileStructure {
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
        // What the allocator hands out for a string: its bytes rounded up, and a header.
        let string = |s: &String| {
            if s.capacity() == 0 {
                0
            } else {
                s.capacity().max(24) + 8
            }
        };
        let vec = |n: usize, each: usize| if n == 0 { 0 } else { (n * each).max(24) + 8 };
        let symbols: usize = self
            .symbols
            .iter()
            .map(|s| {
                string(&s.name)
                    + string(&s.qualified)
                    + string(&s.address)
                    + vec(s.children.capacity(), 4)
            })
            .sum();
        let items: usize = [
            &self.imports,
            &self.exports,
            &self.comments,
            &self.directives,
        ]
        .iter()
        .map(|list| {
            list.iter().map(|i| string(&i.name)).sum::<usize>()
                + vec(list.capacity(), std::mem::size_of::<Item>())
        })
        .sum();
        symbols
            + items
            + vec(self.symbols.capacity(), std::mem::size_of::<Symbol>())
            + vec(self.blocks.capacity(), std::mem::size_of::<Block>())
            + vec(self.roots.capacity(), 4)
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

/// Gives every symbol its target address (see [`Symbol::address`]).
pub(super) fn assign_addresses(symbols: &mut [Symbol], roots: &[u32]) {
    // Most names occur once: they are their address, with no group built.
    let mut count: FastMap<&str, u32> = FastMap::default();
    count.reserve(symbols.len());
    for sym in symbols.iter() {
        *count.entry(sym.qualified.as_str()).or_default() += 1;
    }
    let mut groups: FastMap<&str, Vec<u32>> = FastMap::default();
    let mut addresses: Vec<(u32, String)> = Vec::with_capacity(symbols.len());
    for (i, sym) in symbols.iter().enumerate() {
        let q = sym.qualified.as_str();
        if count[q] == 1 {
            addresses.push((i as u32, q.to_string()));
        } else {
            groups.entry(q).or_default().push(i as u32);
        }
    }
    for (qualified, group) in groups {
        // One definition and its prototypes (C/C++): the definition keeps the plain name.
        let definitions: Vec<u32> = group
            .iter()
            .copied()
            .filter(|&i| symbols[i as usize].kind != "prototype")
            .collect();
        if let [definition] = definitions[..]
            && group.len() > 1
        {
            addresses.push((definition, qualified.to_string()));
            for &i in group.iter().filter(|&&i| i != definition) {
                let line = symbols[i as usize].start_line;
                addresses.push((i, format!("{qualified}@{line}")));
            }
            continue;
        }
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
        // How often each parent-qualified name and each start line occurs in the group
        // (counted once: a group may hold a whole file's symbols).
        let mut parent_names: HashMap<&str, usize> = HashMap::new();
        for a in by_parent.iter().flatten() {
            *parent_names.entry(a.as_str()).or_default() += 1;
        }
        let mut on_line: HashMap<u32, usize> = HashMap::new();
        for &i in &group {
            *on_line.entry(symbols[i as usize].start_line).or_default() += 1;
        }
        let mut seen_on_line: HashMap<u32, usize> = HashMap::new();
        for (k, &i) in group.iter().enumerate() {
            let unique = by_parent[k]
                .as_ref()
                .filter(|a| parent_names.get(a.as_str()) == Some(&1));
            let sym = &symbols[i as usize];
            let same_line = on_line[&sym.start_line];
            let nth = seen_on_line.entry(sym.start_line).or_default();
            *nth += 1;
            let address = match unique {
                Some(a) if *a != sym.qualified => a.clone(),
                // Several of one name on one line: their order on it tells them apart.
                _ if same_line > 1 => format!("{}@{}#{}", sym.qualified, sym.start_line, *nth),
                _ => format!("{}@{}", sym.qualified, sym.start_line),
            };
            addresses.push((i, address));
        }
    }
    for (i, address) in addresses {
        symbols[i as usize].address = address;
    }
}
