//! A file's record from its parse: the structure `file_read` reads (`crate::code`), kept to
//! what the queries need (symbols, the package), or why the file is read as text.

use std::path::Path;

use crate::code::{self, FileStructure, Lang, Stop};
use crate::index::Ident;

use super::{FileRecord, SymbolRecord, Uses, status_of};

/// The checksum of a file's bytes as its record holds it.
pub fn content_hash(bytes: &[u8]) -> u64 {
    crate::index::content_checksum(bytes)
}

/// The language a file's record is made in: by its name, then by what it holds.
pub fn lang_of(path: &str, bytes: &[u8]) -> Option<Lang> {
    Lang::of_file(Path::new(path), bytes)
}

/// The record of the file at `path` (relative to its root, `/`-separated), of identity
/// `ident`, whose bytes are `bytes`; `is_file` tells whether a path beside it exists (a
/// Python package's `__init__.py`). A parse that `stop` stops gives a record with the
/// status "stopped" (which is not kept).
pub fn record(
    path: &str,
    is_file: &dyn Fn(&str) -> bool,
    ident: Ident,
    bytes: &[u8],
    stop: &Stop,
) -> FileRecord {
    let lang = lang_of(path, bytes);
    let mut rec = FileRecord {
        path: path.to_string(),
        ident,
        hash: content_hash(bytes),
        lang: lang.map_or(u8::MAX, |l| {
            code::lang::ALL.iter().position(|x| *x == l).unwrap_or(0) as u8
        }),
        status: 0,
        package: String::new(),
        symbols: Vec::new(),
        uses: Uses::default(),
    };
    let Some(lang) = lang else {
        rec.status = status_of(code::Unparsed::NoGrammar);
        return rec;
    };
    if crate::source::looks_binary(bytes) {
        rec.status = status_of(code::Unparsed::NoGrammar);
        return rec;
    }
    // Preprocessor lines only (register headers by the thousand, some larger than a parse
    // takes): their `#define`s read line by line, as the parse makes them.
    if matches!(lang, Lang::C | Lang::Cpp)
        && bytes.len() <= MAX_DIRECTIVE_BYTES
        && code::skim::directive_only(bytes)
    {
        rec.symbols = records_of(code::skim::macros(bytes));
        return rec;
    }
    match FileStructure::build_with(lang, bytes, stop) {
        Ok(s) => {
            rec.package = if s.package.is_empty() {
                code::package::of_path(lang, path, is_file).join(".")
            } else {
                s.package.join(".")
            };
            rec.symbols = records_of(s.symbols);
        }
        Err(why) => rec.status = status_of(why),
    }
    rec.uses = uses_of(lang, bytes, &rec.symbols);
    rec
}

/// A file's uses kept at most: its most used names (a generated file of a million distinct
/// names is not a million references worth keeping).
const MAX_USES: usize = 8192;

/// The names `bytes` uses and does not define among `symbols`, sorted, with their counts.
fn uses_of(lang: Lang, bytes: &[u8], symbols: &[SymbolRecord]) -> Uses {
    let defined: crate::fasthash::FastSet<&[u8]> =
        symbols.iter().map(|s| s.name.as_bytes()).collect();
    let mut uses: Vec<(&str, u32)> = code::idents::identifiers(lang, bytes)
        .into_iter()
        .filter(|(name, _)| !defined.contains(name))
        .filter_map(|(name, n)| Some((std::str::from_utf8(name).ok()?, n)))
        .collect();
    if uses.len() > MAX_USES {
        uses.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        uses.truncate(MAX_USES);
        uses.sort_unstable();
    }
    uses.into_iter().collect()
}

/// Files of preprocessor lines only are read for their `#define`s up to this size.
const MAX_DIRECTIVE_BYTES: usize = 64 << 20;

/// The records of `symbols` (their strings moved, not copied).
fn records_of(symbols: Vec<code::Symbol>) -> Vec<SymbolRecord> {
    symbols
        .into_iter()
        .map(|sym| SymbolRecord {
            name: sym.name,
            qualified: sym.qualified,
            address: sym.address,
            kind: sym.kind,
            declaration: sym.declaration,
            parent: sym.parent,
            start_line: sym.start_line,
            def_line: sym.def_line,
            end_line: sym.end_line,
        })
        .collect()
}

/// The language of a record's `lang` byte.
pub fn lang_of_byte(b: u8) -> Option<Lang> {
    code::lang::ALL.get(usize::from(b)).copied()
}
