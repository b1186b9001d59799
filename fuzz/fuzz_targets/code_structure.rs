//! `code::FileStructure::build` on arbitrary bytes in each language (the first byte picks
//! it): the line partition property (`FileStructure::check_partition`),
//! a consistent symbol tree, `structured_range` over ranges that `ReadQuery::range` accepts,
//! `symbol_pieces`, `innermost_at`, and `resolve_target` on every symbol's address.

#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use mapgrep::LineIndex;
use mapgrep::code::lang::ALL;
use mapgrep::code::{
    FileStructure, Piece, ReadQuery, TargetMatch, resolve_target, structured_range, symbol_pieces,
};

/// `FileStructure::check_partition` (the property the tests and the real-tree run check too).
fn assert_partition(s: &FileStructure, bytes: &[u8]) {
    let total = LineIndex::build(bytes).total_lines(bytes) as u32;
    if let Err(what) = s.check_partition(total) {
        panic!("partition broken: {what}");
    }
}

/// The symbol tree: roots are the parentless symbols, every parent lists its children,
/// parents come before children.
fn assert_tree(s: &FileStructure) {
    let parentless: Vec<u32> = (0..s.symbols.len() as u32)
        .filter(|&i| s.symbol(i).parent.is_none())
        .collect();
    assert_eq!(
        s.roots, parentless,
        "roots are the parentless symbols in order"
    );
    for (i, sym) in s.symbols.iter().enumerate() {
        assert!(sym.start_line <= sym.end_line, "{sym:?}");
        if let Some(p) = sym.parent {
            assert!((p as usize) < i, "parent after child: {sym:?}");
            assert!(
                s.symbol(p).children.contains(&(i as u32)),
                "{sym:?} not listed by its parent"
            );
        }
        assert!(
            sym.children.windows(2).all(|w| w[0] < w[1]),
            "children out of order: {sym:?}"
        );
    }
}

/// `hits` are consecutive siblings (the same parent, nothing between them).
fn adjacent_siblings(s: &FileStructure, hits: &[u32]) -> bool {
    let parent = s.symbol(hits[0]).parent;
    if hits.iter().any(|&h| s.symbol(h).parent != parent) {
        return false;
    }
    let siblings = match parent {
        Some(p) => &s.symbol(p).children,
        None => &s.roots,
    };
    siblings
        .iter()
        .position(|&x| x == hits[0])
        .is_some_and(|at| siblings[at..].starts_with(hits))
}

fn check_range(s: &FileStructure, first: u32, last: u32, collapse: bool) {
    let r = structured_range(s, first, last, collapse);
    let total = s.total_lines;
    if first < 1 || last > total || first > last {
        // Outside the file: no block holds an end, nothing is read.
        if s.block_at(first).is_none() || s.block_at(last).is_none() {
            assert!(r.pieces.is_empty(), "pieces outside the file: {r:?}");
        }
        return;
    }
    assert!(
        r.first <= first && r.last >= last,
        "range {first}-{last} narrowed to {r:?}"
    );
    assert!(r.first >= 1 && r.last <= total, "{r:?} outside 1-{total}");
    // The lines of the blocks that hold the range's ends.
    let (b0, b1) = (s.block_at(first).unwrap(), s.block_at(last).unwrap());
    let touched = (s.blocks[b0].start_line, s.blocks[b1].end_line);
    let mut stubs = HashSet::new();
    let mut raw_end = 0;
    for p in &r.pieces {
        match *p {
            Piece::Stub(i) => {
                assert!(
                    (i as usize) < s.symbols.len(),
                    "stub of a missing symbol {i}"
                );
                assert!(s.symbol(i).parent.is_none(), "stub of a member {i}");
                assert!(stubs.insert(i), "symbol {i} stubbed twice in {r:?}");
                // A stub is of a symbol the range touches, or of one declared on the lines of
                // such a symbol's block (`e = {\n} a = 1`: a range of line 1 stubs `e` and `a`).
                let sym = s.symbol(i);
                assert!(
                    sym.start_line <= touched.1 && sym.end_line >= touched.0,
                    "stub of {sym:?} outside the blocks {touched:?} of {r:?}"
                );
            }
            Piece::Raw { first: a, last: b } => {
                assert!(
                    a <= b && a >= r.first && b <= r.last,
                    "raw {a}-{b} in {r:?}"
                );
                assert!(a > raw_end, "raw pieces overlap or go back in {r:?}");
                raw_end = b;
            }
            Piece::Collapsed(block) => {
                assert!(collapse, "collapsed block without collapse");
                assert!(s.blocks.contains(&block), "collapsed {block:?} is no block");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let lang = ALL[sel as usize % ALL.len()];
    // The last bytes (when present) choose ranges; the whole rest is the source.
    let picks: Vec<u8> = rest.iter().rev().take(8).copied().collect();
    let Some(s) = FileStructure::build(lang, rest) else {
        return;
    };
    assert_eq!(s.lang, Some(lang));
    assert_partition(&s, rest);
    assert_tree(&s);
    let total = s.total_lines;

    // Ranges as `file_read` validates them, and raw ones around the edges.
    let pick = |k: usize| i64::from(picks.get(k).copied().unwrap_or(0));
    let queries = [
        (Some(pick(0)), Some(pick(0) + pick(1))),
        (Some(pick(2) - 3), None),
        (None, Some(pick(3))),
        (Some(1), Some(i64::from(total))),
    ];
    for (k, (start_line, end_line)) in queries.into_iter().enumerate() {
        let q = ReadQuery {
            start_line,
            end_line,
            ..ReadQuery::default()
        };
        if let Ok((first, last)) = q.range(total) {
            assert!(1 <= first && first <= last && last <= total);
            check_range(&s, first, last, k % 2 == 0);
            check_range(&s, first, last, k % 2 == 1);
        }
    }
    for (first, last) in [
        (0, 0),
        (0, 1),
        (1, total + 1),
        (total + 1, total + 2),
        (total, total),
    ] {
        check_range(&s, first, last, false);
    }

    // Symbols: pieces of each, the innermost symbol at a line, and addresses.
    for (i, sym) in s.symbols.iter().enumerate().take(64) {
        let i = i as u32;
        for recursive in [false, true] {
            for p in symbol_pieces(&s, i, recursive) {
                match p {
                    Piece::Raw { first, last } => {
                        assert!(sym.start_line <= first && first <= last && last <= sym.end_line)
                    }
                    Piece::Stub(c) => {
                        assert!(
                            !recursive && sym.children.contains(&c),
                            "stub {c} of {sym:?}"
                        )
                    }
                    Piece::Collapsed(b) => panic!("collapsed {b:?} in a symbol read"),
                }
            }
        }
        let inner = s
            .innermost_at(sym.start_line)
            .expect("a symbol holds its first line");
        let found = s.symbol(inner);
        assert!(found.start_line <= sym.start_line && sym.start_line <= found.end_line);
        assert!(
            found.children.iter().all(
                |&c| !(s.symbol(c).start_line..=s.symbol(c).end_line).contains(&sym.start_line)
            ),
            "innermost_at({}) gave {found:?}, which has a child there",
            sym.start_line
        );

        match resolve_target(&s, &sym.address) {
            TargetMatch::Found(hits) => {
                assert!(
                    hits.contains(&i),
                    "address {:?} of {sym:?} found {hits:?}",
                    sym.address
                );
                if hits.len() > 1 {
                    // Only overloads (adjacent siblings of one qualified name) share an address.
                    assert!(
                        hits.iter().all(|&h| s.symbol(h).qualified == sym.qualified)
                            && adjacent_siblings(&s, &hits),
                        "address {:?} names several symbols: {:?}",
                        sym.address,
                        hits.iter().map(|&h| s.symbol(h)).collect::<Vec<_>>()
                    );
                }
            }
            other => panic!("address {:?} of {sym:?} resolved to {other:?}", sym.address),
        }
    }
    for line in [0, 1, total / 2, total, total + 1] {
        if let Some(i) = s.innermost_at(line) {
            let sym = s.symbol(i);
            assert!(sym.start_line <= line && line <= sym.end_line);
        }
    }
});
