//! Merging side files: the records of some of a root's side files (a path's newest), decoded
//! back into records to be written as one.

use std::collections::BTreeMap;

use super::format::RawSymbol;
use super::read::Part;
use super::state::Records;
use super::{FileRecord, SymbolRecord};

/// The records the side files `range` of `recs` hold, a path's newest, sorted by path.
pub(super) fn records_of(recs: &Records, range: std::ops::Range<usize>) -> Vec<FileRecord> {
    let mut newest: BTreeMap<&str, (usize, u32)> = BTreeMap::new();
    for i in range {
        for (path, &k) in &recs.parts[i].1 {
            newest.insert(path, (i, k));
        }
    }
    newest
        .into_iter()
        .filter_map(|(_, (i, k))| record(&recs.parts[i].0, k))
        .collect()
}

/// File `k` of `part` as a record.
fn record(part: &Part, k: u32) -> Option<FileRecord> {
    let f = part.file(k)?;
    let syms = part.symbols(&f)?;
    let symbols = (0..syms.len())
        .map(|i| symbol(part, &syms, i))
        .collect::<Option<Vec<SymbolRecord>>>()?;
    Some(FileRecord {
        path: part.string(f.path)?,
        ident: f.ident,
        hash: f.hash,
        lang: f.lang,
        status: f.status,
        package: part.string_or_empty(f.package)?,
        symbols,
    })
}

fn symbol(part: &Part, syms: &[RawSymbol], i: usize) -> Option<SymbolRecord> {
    let s = &syms[i];
    let qualified = part.qualified(syms, i)?;
    Some(SymbolRecord {
        name: part.string(s.name)?,
        address: match s.address {
            Some(a) => part.string(a)?,
            None => qualified.clone(),
        },
        qualified,
        kind: part.kind(s.kind),
        declaration: s.declaration,
        parent: s.parent,
        start_line: s.start,
        def_line: s.def,
        end_line: s.end,
    })
}
