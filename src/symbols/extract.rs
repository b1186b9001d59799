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
    // takes): their `#define`s read line by line, as the parse makes them; the uses of the
    // small ones (a header of macros), not of the register tables.
    if matches!(lang, Lang::C | Lang::Cpp)
        && bytes.len() <= MAX_DIRECTIVE_BYTES
        && code::skim::directive_only(bytes)
    {
        rec.symbols = records_of(code::skim::macros(bytes));
        if bytes.len() <= MAX_DIRECTIVE_USES {
            rec.uses = uses_of(lang, bytes, &rec.symbols);
        } else {
            rec.uses.partial = true;
        }
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

/// The names `bytes` uses and does not define among `symbols`, sorted, with their counts
/// (those on a C or C++ forward declaration's line apart: a reference search sets them
/// aside).
fn uses_of(lang: Lang, bytes: &[u8], symbols: &[SymbolRecord]) -> Uses {
    let defined: crate::fasthash::FastSet<&[u8]> =
        symbols.iter().map(|s| s.name.as_bytes()).collect();
    let mut uses: Vec<(&str, u32)> = code::idents::identifiers(lang, bytes)
        .into_iter()
        .filter(|(name, _)| !defined.contains(name))
        .filter_map(|(name, n)| Some((std::str::from_utf8(name).ok()?, n)))
        .collect();
    let partial = uses.len() > MAX_USES;
    if partial {
        uses.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        uses.truncate(MAX_USES);
        uses.sort_unstable();
    }
    let aside = declared_aside(lang, bytes);
    let mut out = Uses::default();
    for (name, n) in uses {
        let a = aside.get(name).copied().unwrap_or(0).min(n);
        out.push_aside(name, n - a, a);
    }
    out.partial = partial;
    out
}

/// In C and C++: per forward-declared name, its uses (as the scan finds them) on the lines
/// of its forward declarations.
fn declared_aside(lang: Lang, bytes: &[u8]) -> crate::fasthash::FastMap<&str, u32> {
    let mut out = crate::fasthash::FastMap::default();
    if !matches!(lang, Lang::C | Lang::Cpp) {
        return out;
    }
    let mut lines = code::forward_declarations(bytes);
    lines.sort_unstable();
    lines.dedup();
    for (k, &(name, _)) in lines.iter().enumerate() {
        if k > 0 && lines[k - 1].0 == name {
            continue;
        }
        let starts: Vec<usize> = lines[k..]
            .iter()
            .take_while(|l| l.0 == name)
            .map(|l| l.1)
            .collect();
        let n = code::idents::occurrences(lang, bytes, name.as_bytes())
            .into_iter()
            .filter(|&at| {
                let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
                starts.binary_search(&start).is_ok()
            })
            .count();
        if n > 0 {
            out.insert(name, n as u32);
        }
    }
    out
}

/// Files of preprocessor lines only are scanned for their uses up to this size.
const MAX_DIRECTIVE_USES: usize = 64 << 10;

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
