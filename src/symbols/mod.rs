//! Symbols in the index: every file's definitions (name, qualified name with the package its
//! file declares, kind, lines, declaration or not), computed once per file version beside
//! the trigram index and read by the queries that need them: where a name is defined
//! (`crate::define`), what a grep hit sits in (`crate::annotate`).
//!
//! The records of a root are side files of its index store ([`crate::index::SideFile`]):
//! written, published, shared with the other servers on the root, checked and pruned as
//! its segments are. A recorder ([`recorder`]) keeps them up with the index: once the
//! trigram index is ready (grep never waits for symbols), it parses, in path order, every
//! indexed file whose current version has no record, and after each upkeep round the files
//! that round took in; it writes a side file per batch and merges them as they pile up.
//! A file's record holds while the index's entry for its path has the identity recorded
//! (or, for bytes in hand, the content checksum recorded): a file whose record does not
//! hold (not recorded yet, changed, dirty) is parsed on demand by the query, so an answer
//! is never wrong or missing because the records are behind.
//!
//! Layout: `format.rs` the bytes of a side file, `extract.rs` a file's record from its
//! parse, `read.rs` one side file read in place, `view.rs` the records of a root and their
//! freshness, `recorder.rs` the thread that keeps them.

mod encode;
mod extract;
mod facts;
mod format;
mod merge;
mod read;
pub mod recorder;
mod state;
#[cfg(test)]
mod tests;
mod view;

pub use extract::{content_hash, record};
pub use facts::{Facts, FileFacts, Version, Versions, facts, facts_of, versions};
pub use recorder::{record_index, start, wait_recorded};
pub use view::{
    Definition, Enclosing, Held, Lookup, NameIds, NameInFile, RecordedUses, UseCounts, definitions,
    definitions_in_file, enclosing, held, name_in_file, unrecorded_count,
};

use crate::index::Ident;

/// One file's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRecord {
    /// Relative to the root, `/`-separated.
    pub path: String,
    /// The identity of the version recorded.
    pub ident: Ident,
    /// The checksum of the bytes recorded ([`content_hash`]).
    pub hash: u64,
    /// Its language: a position in [`crate::code::lang::ALL`] (`u8::MAX`: none).
    pub lang: u8,
    /// 0 when parsed; else why it is read as text ([`status_of`]).
    pub status: u8,
    /// The package, namespace or module its symbols are in, components joined by `.`.
    pub package: String,
    /// In document order (parents before their children).
    pub symbols: Vec<SymbolRecord>,
    /// The names its code uses and does not define (outside comments and strings), sorted,
    /// each with its number of uses (a reference search counts them without reading the
    /// file) and of those on a line that only declares it (C's `struct NAME;`: set aside).
    pub uses: Uses,
}

/// Names with their counts, in one buffer (a file uses hundreds of names: one allocation,
/// not hundreds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Uses {
    text: String,
    /// Each name's end in `text`, its count of uses, and of those set aside.
    ends: Vec<(u32, u32, u32)>,
    /// Some names the file uses are not listed (too many names, or the file not scanned):
    /// a name's absence says nothing.
    pub partial: bool,
}

impl Uses {
    pub fn push(&mut self, name: &str, n: u32) {
        self.push_aside(name, n, 0);
    }

    /// A name with `n` uses and `aside` more on lines that only declare it.
    pub fn push_aside(&mut self, name: &str, n: u32, aside: u32) {
        self.text.push_str(name);
        self.ends.push((self.text.len() as u32, n, aside));
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Each name and its count, in the order pushed.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u32)> + '_ {
        self.iter_aside().map(|(name, n, _)| (name, n))
    }

    /// Each name, its count, and its uses set aside, in the order pushed.
    pub fn iter_aside(&self) -> impl Iterator<Item = (&str, u32, u32)> + '_ {
        let mut start = 0usize;
        self.ends.iter().map(move |&(end, n, aside)| {
            let name = &self.text[start..end as usize];
            start = end as usize;
            (name, n, aside)
        })
    }
}

impl<S: AsRef<str>> FromIterator<(S, u32)> for Uses {
    fn from_iter<I: IntoIterator<Item = (S, u32)>>(it: I) -> Uses {
        let mut u = Uses::default();
        for (name, n) in it {
            u.push(name.as_ref(), n);
        }
        u
    }
}

/// One definition (or declaration) as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolRecord {
    pub name: String,
    /// In the file: `Class.method` (the package apart).
    pub qualified: String,
    /// What `file_read` takes as `target` to read exactly this symbol.
    pub address: String,
    pub kind: &'static str,
    pub declaration: bool,
    /// Its parent's position in the file's list.
    pub parent: Option<u32>,
    /// First line with its doc comment and attributes; the definition's own first line;
    /// its last line (1-based).
    pub start_line: u32,
    pub def_line: u32,
    pub end_line: u32,
}

/// The status of a file whose record took longer than the recorder gives one file.
pub const SLOW: u8 = 6;

/// The status byte of a file read as text for `why`.
pub fn status_of(why: crate::code::Unparsed) -> u8 {
    use crate::code::Unparsed::*;
    match why {
        NoGrammar => 1,
        TooLarge => 2,
        TooManySymbols => 3,
        TooDeep => 4,
        Stopped => 5,
    }
}

/// Why a file with status `status` is read as text (`None`: parsed).
pub fn unparsed_of(status: u8) -> Option<crate::code::Unparsed> {
    use crate::code::Unparsed::*;
    Some(match status {
        0 => return None,
        1 => NoGrammar,
        2 => TooLarge,
        3 => TooManySymbols,
        4 => TooDeep,
        _ => Stopped,
    })
}
