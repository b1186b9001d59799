//! Structure-aware code reading (docs/file_read.md): a file's symbols, imports, exports, comments,
//! directives and gaps from a tree-sitter parse, and the reads `file_read` offers on them —
//! a symbol by name, the skeleton of a file, and line ranges with symbols collapsed to stubs.

pub mod answer;
mod build;
mod builder;
pub(crate) mod cfamily;
mod cmask;
mod cmask_cond;
mod cmask_head;
mod cmask_types;
mod cmask_words;
mod declaration;
mod describe;
mod detect;
mod detect_header;
pub mod idents;
mod idents_words;
mod jsdoc;
pub mod lang;
mod lang_a;
mod lang_b;
mod lang_b_names;
mod lang_id;
pub mod limits;
mod macro_items;
pub mod package;
mod package_a;
mod package_b;
mod partition;
mod preproc;
mod ranges;
pub mod render;
mod shell;
pub(crate) mod skim;
mod skim_macros;
pub mod structure;
#[cfg(test)]
mod tests;
mod walk_c;

use std::sync::Arc;

pub use declaration::{SHOWN_LINE, forward_declarations, forward_declared};
pub use lang::Lang;
pub use limits::{Stop, Unparsed};
pub use structure::{Block, Category, FileStructure, GapKind, Item, Symbol};

use crate::error::Error;
use crate::lines::LineIndex;
use crate::source::Source;
use crate::workspace::Workspace;

/// A file opened for `file_read`: its bytes, line index and (for a code file) structure.
pub struct CodeFile {
    source: Source,
    index: Arc<LineIndex>,
    total_lines: u32,
    structure: Option<Arc<FileStructure>>,
    /// Why a file of a parsed language has no structure (read as text).
    as_text: Option<Unparsed>,
}

/// The code structure of an opened source in `lang`, cached in the workspace by file
/// identity; `None` if the file is read as text (see [`parse_of`]); `Err(Changed)` if a
/// mapped file shrank while it was parsed.
pub fn structure_of(
    ws: &Workspace,
    source: &crate::source::Source,
    lang: Lang,
) -> Result<Option<Arc<FileStructure>>, Error> {
    Ok(parse_of(ws, source, lang, &Stop::never())?.ok())
}

/// A read of a file from this size on gives the memory of its parse back to the system:
/// a tree takes up to ~40 bytes per byte, freed into the allocator when the structure is
/// built. (Giving memory back costs the system a TLB flush on every core: once per call,
/// not once per file.)
const RELEASE_AFTER: usize = 1 << 20;

/// Why a file is read as text, remembered with its version like a structure.
struct Text(Unparsed);

/// The code structure of an opened source in `lang`, or why it is read as text (beyond the
/// [`limits`], no grammar, or stopped by `stop`), cached by file identity: a structure and
/// a final reason alike, so a file is parsed once per version. The parse reads a copy of a
/// mapped file (the structure's builder keeps string views into its input). `Err(Changed)`
/// if a mapped file shrank while it was parsed.
pub fn parse_of(
    ws: &Workspace,
    source: &crate::source::Source,
    lang: Lang,
    stop: &Stop,
) -> Result<Result<Arc<FileStructure>, Unparsed>, Error> {
    if let Some(text) = ws.cached_parse::<Text>(source) {
        return Ok(Err(text.0));
    }
    if source.bytes().len() > limits::MAX_PARSE_BYTES {
        return Ok(Err(Unparsed::TooLarge));
    }
    let mut why = Unparsed::NoGrammar;
    let built = ws.parsed(source, true, |bytes| {
        match FileStructure::build_with(lang, bytes, stop) {
            Ok(mut structure) => {
                if declaration::in_declaration_file(source.path()) {
                    structure
                        .symbols
                        .iter_mut()
                        .for_each(|s| s.declaration = true);
                }
                let cost = structure.heap_bytes();
                Some((structure, cost))
            }
            Err(e) => {
                why = e;
                None
            }
        }
    })?;
    Ok(match built {
        Some(structure) => Ok(structure),
        None => {
            if why.is_final() {
                ws.remember_parse(source, Text(why), std::mem::size_of::<Text>());
            }
            Err(why)
        }
    })
}

impl CodeFile {
    /// Opens `path` inside the workspace's roots; parses it (cached by file identity) when
    /// its extension names a language of this build.
    pub fn open(ws: &Workspace, path: &str) -> Result<CodeFile, Error> {
        CodeFile::open_with(ws, path, &Stop::never())
    }

    /// [`CodeFile::open`], its parse stopped by `stop` (the file is then read as text).
    pub fn open_with(ws: &Workspace, path: &str, stop: &Stop) -> Result<CodeFile, Error> {
        let source = ws.open_source(path)?;
        source.refuse_binary(path)?;
        let parsed = match Lang::of_file(source.path(), source.bytes()) {
            Some(lang) => Some(parse_of(ws, &source, lang, stop)?),
            None => None,
        };
        if source.bytes().len() >= RELEASE_AFTER {
            crate::source::release_free_memory();
        }
        let as_text = parsed.as_ref().and_then(|p| p.as_ref().err().copied());
        let structure = parsed.and_then(Result::ok);
        let index = ws.index(&source);
        let total_lines = index.total_lines(source.bytes()) as u32;
        source.check_intact()?;
        Ok(CodeFile {
            source,
            index,
            total_lines,
            structure,
            as_text,
        })
    }

    /// Why a file of a parsed language has no structure (it is read as text).
    pub fn as_text(&self) -> Option<Unparsed> {
        self.as_text.filter(|u| *u != Unparsed::NoGrammar)
    }

    /// The structure, for a parsed code file.
    pub fn structure(&self) -> Option<&FileStructure> {
        self.structure.as_deref()
    }

    pub fn total_lines(&self) -> u32 {
        self.total_lines
    }

    pub fn bytes(&self) -> &[u8] {
        self.source.bytes()
    }

    /// The text of line `n` (1-based) without its line ending.
    pub fn line(&self, n: u32) -> &[u8] {
        let bytes = self.source.bytes();
        let range = self.index.line_range(bytes, n as u64, n as u64);
        let mut line = &bytes[range];
        if let Some(rest) = line.strip_suffix(b"\n") {
            line = rest;
        }
        if let Some(rest) = line.strip_suffix(b"\r") {
            line = rest;
        }
        line
    }

    /// Lines `first..=last` (1-based) without their line endings, split in one pass.
    pub fn lines(&self, first: u32, last: u32) -> impl Iterator<Item = &[u8]> {
        let bytes = self.source.bytes();
        let range = self.index.line_range(bytes, first as u64, last as u64);
        let mut text = &bytes[range];
        if let Some(rest) = text.strip_suffix(b"\n") {
            text = rest;
        }
        let n = (last + 1).saturating_sub(first) as usize;
        text.split(|&b| b == b'\n')
            .take(n)
            .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
    }

    /// `Err(Changed)` if the file changed under its mapping while it was read.
    pub fn check_intact(&self) -> Result<(), Error> {
        self.source.check_intact()
    }
}

/// What a `file_read` call asks for.
#[derive(Clone, Debug, Default)]
pub struct ReadQuery {
    pub targets: Vec<String>,
    pub recursive: bool,
    pub skeleton: bool,
    pub start_line: Option<i64>,
    pub end_line: Option<i64>,
}

/// The mode a query selects (docs/file_read.md, "Choosing the mode").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Target,
    Skeleton,
    Range,
    Whole,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Target => "target",
            Mode::Skeleton => "skeleton",
            Mode::Range => "range",
            Mode::Whole => "whole",
        }
    }
}

/// Why a query cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueryError {
    /// `target` together with `startLine`/`endLine`.
    TargetWithRange,
    StartAfterEnd {
        start: i64,
        end: i64,
    },
    StartPastEnd {
        start: i64,
        total: u32,
    },
    /// A range of an empty file.
    EmptyFile,
    /// A target on a file without a parsed structure.
    NoStructure,
    /// A target on a file of a parsed language read as text (beyond the parse limits).
    ReadAsText(Unparsed),
}

impl ReadQuery {
    /// The mode of the query, or why it is invalid (docs/file_read.md, "Choosing the mode").
    pub fn mode(&self) -> Result<Mode, QueryError> {
        let ranged = self.start_line.is_some() || self.end_line.is_some();
        if !self.targets.is_empty() && ranged {
            return Err(QueryError::TargetWithRange);
        }
        Ok(if !self.targets.is_empty() {
            Mode::Target
        } else if ranged {
            Mode::Range
        } else if self.skeleton {
            Mode::Skeleton
        } else {
            Mode::Whole
        })
    }

    /// The requested lines, validated and clamped to `1..=total`: a missing start reads from
    /// line 1, a missing end to the last line.
    pub fn range(&self, total: u32) -> Result<(u32, u32), QueryError> {
        if total == 0 {
            return Err(QueryError::EmptyFile);
        }
        let start = self.start_line.unwrap_or(1);
        if let (Some(start), Some(end)) = (self.start_line, self.end_line)
            && start > end
        {
            return Err(QueryError::StartAfterEnd { start, end });
        }
        if start > i64::from(total) {
            return Err(QueryError::StartPastEnd { start, total });
        }
        let clamp = |v: i64| v.clamp(1, i64::from(total)) as u32;
        let (first, last) = (
            clamp(start),
            clamp(self.end_line.unwrap_or(i64::from(total))),
        );
        if first > last {
            // Only a start given with an end below line 1 (clamped to 1) gets here.
            return Err(QueryError::StartAfterEnd {
                start,
                end: self.end_line.unwrap_or(i64::from(total)),
            });
        }
        Ok((first, last))
    }
}

/// One piece of a structured read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Lines shown as they are.
    Raw { first: u32, last: u32 },
    /// A symbol collapsed to its stub.
    Stub(u32),
    /// A block of imports, exports, comments or directives collapsed to one line (skeleton
    /// with a range).
    Collapsed(Block),
}

/// A structured range read: the range widened to whole non-symbol blocks, and its pieces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeRead {
    pub first: u32,
    pub last: u32,
    pub pieces: Vec<Piece>,
}

/// Lines `first..=last` of a parsed file: symbols become stubs (once each, whatever part of
/// them the range covers), other lines are raw; a range touching part of a non-symbol block
/// is widened to the whole block. With `collapse`, import/export/comment/directive blocks
/// become one-line stubs too and only gaps stay raw.
pub fn structured_range(s: &FileStructure, first: u32, last: u32, collapse: bool) -> RangeRead {
    let mut pieces: Vec<Piece> = Vec::new();
    let (Some(b0), Some(b1)) = (s.block_at(first), s.block_at(last)) else {
        return RangeRead {
            first,
            last,
            pieces,
        };
    };
    let widened = |b: &Block, line: u32, start: bool| match b.category {
        Category::Symbol(_) => line,
        _ if start => b.start_line,
        _ => b.end_line,
    };
    let first_out = widened(&s.blocks[b0], first, true);
    let last_out = widened(&s.blocks[b1], last, false);
    for block in &s.blocks[b0..=b1] {
        let from = block.start_line.max(first_out);
        let to = block.end_line.min(last_out);
        match block.category {
            Category::Symbol(i) => {
                pieces.push(Piece::Stub(i));
                // Symbols declared on the lines of this one (`const a = 1, b = 2;`) have no
                // block of their own: stub them here.
                let from = s
                    .roots
                    .partition_point(|&r| s.symbol(r).start_line < block.start_line);
                for &r in &s.roots[from..] {
                    let sym = s.symbol(r);
                    if sym.start_line > block.end_line {
                        break;
                    }
                    if r != i && sym.end_line <= block.end_line {
                        pieces.push(Piece::Stub(r));
                    }
                }
            }
            Category::Gap(_) => push_raw(&mut pieces, from, to),
            _ if collapse => pieces.push(Piece::Collapsed(*block)),
            _ => push_raw(&mut pieces, from, to),
        }
    }
    RangeRead {
        first: first_out,
        last: last_out,
        pieces,
    }
}

fn push_raw(pieces: &mut Vec<Piece>, first: u32, last: u32) {
    if let Some(Piece::Raw { last: l, .. }) = pieces.last_mut()
        && *l + 1 == first
    {
        *l = last;
        return;
    }
    pieces.push(Piece::Raw { first, last });
}

/// A symbol's lines: raw, with its member symbols of more than one line collapsed to stubs
/// unless `recursive`.
pub fn symbol_pieces(s: &FileStructure, index: u32, recursive: bool) -> Vec<Piece> {
    let sym = s.symbol(index);
    let mut pieces = Vec::new();
    let mut line = sym.start_line;
    if !recursive {
        for &c in &sym.children {
            let child = s.symbol(c);
            if child.lines() < 2 || child.start_line < line {
                continue;
            }
            if child.start_line > line {
                push_raw(&mut pieces, line, child.start_line - 1);
            }
            pieces.push(Piece::Stub(c));
            line = child.end_line + 1;
        }
    }
    if line <= sym.end_line {
        push_raw(&mut pieces, line, sym.end_line);
    }
    pieces
}

/// How a target name resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetMatch {
    /// One symbol, or adjacent siblings of one name read together (overloads, get/set
    /// pairs).
    Found(Vec<u32>),
    /// Several symbols of that name: their indexes.
    Ambiguous(Vec<u32>),
    /// Nothing: similar names, best first.
    NotFound(Vec<u32>),
}

/// Resolves a target: a symbol's address (what stubs print: the qualified name, or for one of
/// several members of one name `impl Trait for Type.method` / `name@LINE`), the qualified
/// name (`Class.method`; `::` and Ruby's `Class#method` work as `.`), the plain name at any
/// depth, the end of a qualified name (`Inner.method` for `Outer.Inner.method`), then the
/// first two ignoring case. Where a name has both, definitions win over prototypes
/// (declarations).
pub fn resolve_target(s: &FileStructure, target: &str) -> TargetMatch {
    let want = norm(target.trim());
    let all = 0..s.symbols.len() as u32;
    let address: Vec<u32> = all
        .clone()
        .filter(|&i| norm(&s.symbol(i).address) == want)
        .collect();
    if !address.is_empty() {
        return TargetMatch::Found(address);
    }
    // The end of a qualified name: `Invoice.total` finds `Billing.Invoice.total`.
    let tail = |sym: &Symbol| {
        want.contains('.')
            && norm(&sym.qualified)
                .strip_suffix(want.as_ref())
                .is_some_and(|outer| outer.ends_with('.'))
    };
    let tiers: [&dyn Fn(&Symbol) -> bool; 5] = [
        &|sym| norm(&sym.qualified) == want,
        &|sym| norm(&sym.name) == want,
        &tail,
        &|sym| norm(&sym.qualified).eq_ignore_ascii_case(&want),
        &|sym| norm(&sym.name).eq_ignore_ascii_case(&want),
    ];
    for tier in tiers {
        let mut hits: Vec<u32> = all.clone().filter(|&i| tier(s.symbol(i))).collect();
        // A C/C++ prototype and the definition of that name: the definition.
        if hits.len() > 1 && hits.iter().any(|&i| s.symbol(i).kind != "prototype") {
            hits.retain(|&i| s.symbol(i).kind != "prototype");
        }
        match hits.len() {
            0 => continue,
            1 => return TargetMatch::Found(hits),
            _ if adjacent_siblings(s, &hits) => return TargetMatch::Found(hits),
            _ => return TargetMatch::Ambiguous(hits),
        }
    }
    TargetMatch::NotFound(similar(s, &want))
}

/// `::` read as `.` (Rust, Ruby and PHP paths), so `Foo::new` finds `Foo.new`; Ruby's
/// `Class#method` (an instance method) is `Class.method` too.
fn norm(name: &str) -> std::borrow::Cow<'_, str> {
    if !name.contains("::") && !name.contains('#') {
        return name.into();
    }
    let name = name.replace("::", ".");
    let chars: Vec<char> = name.chars().collect();
    let word = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_');
    let letter = |c: Option<&char>| c.is_some_and(|c| c.is_alphabetic() || *c == '_');
    (0..chars.len())
        .map(|i| {
            let ruby =
                chars[i] == '#' && i > 0 && word(chars.get(i - 1)) && letter(chars.get(i + 1));
            if ruby { '.' } else { chars[i] }
        })
        .collect::<String>()
        .into()
}

fn adjacent_siblings(s: &FileStructure, hits: &[u32]) -> bool {
    structure::adjacent_siblings(&s.symbols, &s.roots, hits)
}

/// Up to eight symbols whose names are close to `want`.
fn similar(s: &FileStructure, want: &str) -> Vec<u32> {
    let want_lower = want.to_lowercase();
    let last = want_lower
        .rsplit('.')
        .next()
        .unwrap_or(&want_lower)
        .to_string();
    let mut scored: Vec<(usize, u32)> = (0..s.symbols.len() as u32)
        .filter_map(|i| {
            let name = s.symbol(i).name.to_lowercase();
            let score = if name.contains(&last) || (!name.is_empty() && last.contains(&name)) {
                0
            } else {
                let d = edit_distance(&name, &last);
                if d > 2.max(last.len() / 3) {
                    return None;
                }
                d
            };
            Some((score, i))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(8).map(|(_, i)| i).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(row[j]).min(cur)
            };
            prev = cur;
        }
    }
    row[b.len()]
}
