//! The partition of a file's lines into blocks, each owned by one top-level symbol, one run
//! of items of one kind, or a gap (blank, unknown) — the map a skeleton read is drawn from.

use tree_sitter::Node;

use super::builder::{Builder, ItemCat, Own};
use super::structure::{Block, Category, FileStructure, GapKind, Item, Symbol};

impl<'a> Builder<'a> {
    /// The file's structure: each line goes to the first owner that claims it — the
    /// top-level symbols, then the items (directives, imports, exports, comments, in that
    /// order), then the root's other statements — and runs of one owner become blocks.
    pub(super) fn partition(
        self,
        root: Node,
        symbols: Vec<Symbol>,
        roots: Vec<u32>,
        items: Vec<(Node, ItemCat)>,
    ) -> FileStructure {
        let total = self.total_lines();
        let mut owners = Owners(vec![Own::Unset; total as usize]);
        for &r in &roots {
            let s = &symbols[r as usize];
            owners.claim(s.start_line - 1, s.end_line - 1, Own::Symbol(r));
        }
        let [imports, exports, comments, directives] = self.claim_items(&items, &mut owners);
        let mut walk = root.walk();
        for (k, child) in root.named_children(&mut walk).enumerate() {
            owners.claim(
                self.first(child),
                self.last(child),
                Own::Statement(k as u32),
            );
        }
        let blocks = self.blocks(&owners.0);
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
            package: super::package::of(self.lang, root, self.bytes),
        };
        count_items(&mut structure);
        structure
    }

    /// Claims the items' lines a category at a time (directives, imports, exports, comments);
    /// an item that gets a line is listed. The lists are in [`ItemCat`] order, sorted by line.
    fn claim_items(&self, items: &[(Node, ItemCat)], owners: &mut Owners) -> [Vec<Item>; 4] {
        let mut lists: [Vec<Item>; 4] = Default::default();
        for cat in [
            ItemCat::Directive,
            ItemCat::Import,
            ItemCat::Export,
            ItemCat::Comment,
        ] {
            for &(node, c) in items {
                if self.category(c, node) != cat {
                    continue;
                }
                let (first, last) = (self.first(node), self.last(node));
                if owners.claim(first, last, Own::Item(cat)) {
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
        for list in &mut lists {
            list.sort_by_key(|i| (i.start_line, i.end_line));
        }
        lists
    }

    /// The blocks: a run of lines of one owner is one block; a run of unowned lines is split
    /// where blank lines turn to unknown ones or back.
    fn blocks(&self, own: &[Own]) -> Vec<Block> {
        let mut blocks: Vec<Block> = Vec::new();
        for (line, &owner) in own.iter().enumerate() {
            let line = line as u32 + 1;
            let category = self.line_category(owner, line);
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
        blocks
    }

    /// The block category of (1-based) `line` owned by `owner`: a statement no symbol or
    /// item took is an unknown gap.
    fn line_category(&self, owner: Own, line: u32) -> Category {
        match owner {
            Own::Symbol(i) => Category::Symbol(i),
            Own::Item(ItemCat::Import) => Category::Import,
            Own::Item(ItemCat::Export) => Category::Export,
            Own::Item(ItemCat::Comment) => Category::Comment,
            Own::Item(ItemCat::Directive) => Category::Directive,
            Own::Statement(_) => Category::Gap(GapKind::Unknown),
            Own::Unset if self.is_blank(line - 1) => Category::Gap(GapKind::Blank),
            Own::Unset => Category::Gap(GapKind::Unknown),
        }
    }

    /// The category of a captured item: a `#!` comment on the first line is a directive.
    pub(super) fn category(&self, cat: ItemCat, node: Node) -> ItemCat {
        if cat == ItemCat::Comment && node.start_byte() == 0 && self.text(node).starts_with("#!") {
            ItemCat::Directive
        } else {
            cat
        }
    }

    pub(super) fn is_blank(&self, line: u32) -> bool {
        let start = self.line_starts[line as usize];
        let end = self
            .line_starts
            .get(line as usize + 1)
            .copied()
            .unwrap_or(self.bytes.len());
        self.bytes[start..end].iter().all(u8::is_ascii_whitespace)
    }
}

/// The owner of each (0-based) line while the partition is built.
struct Owners(Vec<Own>);

impl Owners {
    /// Gives lines `first..=last` (0-based, cut at the file's end) that have no owner yet to
    /// `owner`; true if `owner` holds any of them afterwards.
    fn claim(&mut self, first: u32, last: u32, owner: Own) -> bool {
        let total = self.0.len() as u32;
        let mut got = false;
        for line in first..=last.min(total.saturating_sub(1)) {
            let slot = &mut self.0[line as usize];
            if *slot == Own::Unset {
                *slot = owner;
                got = true;
            } else if *slot == owner {
                got = true;
            }
        }
        got
    }
}

/// Sets each block's item count: the items of its category starting in it, at least 1.
fn count_items(structure: &mut FileStructure) {
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
}
