//! Building a [`FileStructure`]: parse the file (in two halves on two threads when it is large
//! and splits cleanly), run the [`Builder`](super::builder) over the tree, and join halves.

use std::cell::RefCell;

use tree_sitter::Parser;

use super::builder::Builder;
use super::lang::{Compiled, Lang};
use super::limits::{self, MAX_PARSE_BYTES, Stop, Unparsed};
use super::structure::{Category, FileStructure, GapKind, Item, assign_addresses};

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
}

impl FileStructure {
    /// The structure of `bytes` in `lang`; `None` if this build lacks the grammar or the
    /// file is beyond the limits of [`limits`] (read as text).
    pub fn build(lang: Lang, bytes: &[u8]) -> Option<FileStructure> {
        FileStructure::build_with(lang, bytes, &Stop::never()).ok()
    }

    /// [`FileStructure::build`] that `stop` can stop, saying why a file has no structure.
    pub fn build_with(lang: Lang, bytes: &[u8], stop: &Stop) -> Result<FileStructure, Unparsed> {
        FileStructure::build_parts(lang, bytes, SPLIT_MIN_BYTES, stop)
    }

    /// [`FileStructure::build`], parsing files of at least `split_min` bytes in two halves
    /// on two threads when the file splits cleanly (see [`split_point`]).
    #[cfg(test)]
    pub(crate) fn build_split(lang: Lang, bytes: &[u8], split_min: usize) -> Option<FileStructure> {
        FileStructure::build_parts(lang, bytes, split_min, &Stop::never()).ok()
    }

    fn build_parts(
        lang: Lang,
        bytes: &[u8],
        split_min: usize,
        stop: &Stop,
    ) -> Result<FileStructure, Unparsed> {
        let compiled = lang.compiled().ok_or(Unparsed::NoGrammar)?;
        if bytes.len() > MAX_PARSE_BYTES {
            return Err(Unparsed::TooLarge);
        }
        // Stopped already (a grep's hint budget spent): not even the masking passes run.
        if stop.stopped() {
            return Err(Unparsed::Stopped);
        }
        let _permit = limits::enter(bytes.len(), stop).ok_or(Unparsed::Stopped)?;
        // What tree-sitter reads: the file itself, or for C/C++ the file with its attribute
        // macros blanked out and read only outside its function bodies and initializers
        // (masked only there), for shell with the words its lexer misreads blanked (every
        // byte in its place: the builder reads names from `bytes`).
        let mut masked = None;
        if matches!(lang, Lang::C | Lang::Cpp) {
            let (parsed, skipped) = super::cmask::mask_outside_bodies(lang, bytes);
            // In C, fields and enumerators are no symbols: a plain record body is left out too.
            let c = lang == Lang::C;
            let (parsed, ranges) = match super::skim::outside_bodies_and(&parsed, &skipped, c) {
                Some(ranges) => (parsed, Some(ranges)),
                // The pass went past nothing: the text is masked whole.
                None if skipped.is_empty() => (parsed, None),
                None => {
                    let whole = super::cmask::mask(lang, bytes);
                    let ranges = super::skim::outside_bodies(&whole, c);
                    (whole, ranges)
                }
            };
            if let Some(ranges) = ranges {
                let tree = parse(compiled, &parsed, &ranges, stop).ok_or(Unparsed::Stopped)?;
                return Builder::new(lang, compiled, bytes, *stop).run(tree.root_node());
            }
            masked = Some(parsed);
        }
        let parsed: std::borrow::Cow<[u8]> = match lang {
            Lang::C | Lang::Cpp => masked.unwrap_or_else(|| super::cmask::mask(lang, bytes)),
            Lang::Bash => super::shell::mask(bytes),
            Lang::Kotlin => super::lang_b::mask_annotations(bytes),
            Lang::CSharp => super::preproc::first_branches(bytes),
            _ => bytes.into(),
        };
        if bytes.len() >= split_min
            && let Some(at) = split_point(lang, bytes)
        {
            let (head, tail) = bytes.split_at(at);
            let (parse_head, parse_tail) = parsed.split_at(at);
            let (a, b) = rayon::join(
                || parse(compiled, parse_head, &[], stop),
                || parse(compiled, parse_tail, &[], stop),
            );
            if let (Some(a), Some(b)) = (&a, &b)
                && !a.root_node().has_error()
                && !b.root_node().has_error()
            {
                let (first, second) = rayon::join(
                    || Builder::new(lang, compiled, head, *stop).run(a.root_node()),
                    || Builder::new(lang, compiled, tail, *stop).run(b.root_node()),
                );
                let mut joined = first?.join(second?);
                limits::check_symbols(&joined, stop)?;
                super::lang_a::finish(lang, &mut joined);
                return Ok(joined);
            }
            if stop.stopped() {
                return Err(Unparsed::Stopped);
            }
        }
        let tree = parse(compiled, &parsed, &[], stop).ok_or(Unparsed::Stopped)?;
        let mut whole = Builder::new(lang, compiled, bytes, *stop).run(tree.root_node())?;
        super::lang_a::finish(lang, &mut whole);
        Ok(whole)
    }

    /// The structure of a C or C++ file parsed whole, its function bodies and initializers
    /// included (what the skim must give the same symbols as).
    #[cfg(test)]
    pub(crate) fn build_unskimmed(lang: Lang, bytes: &[u8]) -> Option<FileStructure> {
        let compiled = lang.compiled()?;
        let parsed = super::cmask::mask(lang, bytes);
        let tree = parse(compiled, &parsed, &[], &Stop::never())?;
        let mut whole = Builder::new(lang, compiled, bytes, Stop::never())
            .run(tree.root_node())
            .ok()?;
        super::lang_a::finish(lang, &mut whole);
        Some(whole)
    }

    /// Appends `next`, the structure of the text right after this one's (which ends with a
    /// newline), renumbering its lines and symbols.
    fn join(mut self, next: FileStructure) -> FileStructure {
        let lines = self.total_lines;
        let base = self.symbols.len() as u32;
        for mut sym in next.symbols {
            sym.start_line += lines;
            sym.end_line += lines;
            sym.def_line += lines;
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
}

/// Files from this size on are parsed in two halves on two threads (when they split cleanly).
pub const SPLIT_MIN_BYTES: usize = 96 << 10;

/// The tree of `bytes` (of only `ranges` of it when some are given); `None` if `stop`
/// stopped the parse (checked by tree-sitter's progress callback as it goes).
fn parse(
    compiled: &Compiled,
    bytes: &[u8],
    ranges: &[tree_sitter::Range],
    stop: &Stop,
) -> Option<tree_sitter::Tree> {
    if stop.stopped() {
        return None;
    }
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser.set_language(&compiled.language).ok()?;
        // A parser reused by this thread reads the whole text unless told otherwise.
        parser.set_included_ranges(ranges).ok()?;
        let mut input = |at: usize, _| bytes.get(at..).unwrap_or_default();
        let mut check = |_: &tree_sitter::ParseState| {
            if stop.stopped() {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        };
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut check);
        let tree = parser.parse_with_options(&mut input, None, Some(options));
        if tree.is_none() {
            // A stopped parse would resume where it stopped on the next call.
            parser.reset();
        }
        tree
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
        Lang::C | Lang::Cpp => &[
            b"static ",
            b"struct ",
            b"int ",
            b"void ",
            b"/**",
            b"#define ",
            b"extern ",
        ],
        Lang::Bash => &[b"function ", b"# "],
        // A class or namespace holds the whole file.
        Lang::Java | Lang::CSharp => &[],
        Lang::Kotlin | Lang::Ruby | Lang::Php | Lang::Swift | Lang::Scala => {
            super::lang_b::split_starts(lang)
        }
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
