//! Merging side files: the records of some of a root's side files (a path's newest), decoded
//! back into records to be written as one.

use std::collections::BTreeMap;

use super::format::RawSymbol;
use super::read::{BlockCache, Part};
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
    // One cache of decoded string blocks a side file (merged side files are small).
    let mut caches: Vec<Option<BlockCache<'_>>> = recs.parts.iter().map(|_| None).collect();
    newest
        .into_iter()
        .filter_map(|(_, (i, k))| {
            let part = &recs.parts[i].0;
            record(
                part,
                k,
                caches[i].get_or_insert_with(|| BlockCache::new(part)),
            )
        })
        .collect()
}

/// File `k` of `part` as a record, its strings read through `strings`.
fn record(part: &Part, k: u32, strings: &mut BlockCache<'_>) -> Option<FileRecord> {
    let f = part.file(k)?;
    let syms = part.symbols(&f)?;
    let symbols = (0..syms.len())
        .map(|i| symbol(strings, &syms, i))
        .collect::<Option<Vec<SymbolRecord>>>()?;
    let mut uses = super::Uses::default();
    for u in part.uses(&f)? {
        uses.push_aside(&strings.get(u.id)?, u.uses, u.aside);
    }
    uses.partial = f.uses_partial;
    Some(FileRecord {
        path: strings.get(f.path)?,
        ident: f.ident,
        hash: f.hash,
        lang: f.lang,
        status: f.status,
        package: strings.get(f.package)?,
        symbols,
        uses,
    })
}

fn symbol(strings: &mut BlockCache<'_>, syms: &[RawSymbol], i: usize) -> Option<SymbolRecord> {
    let s = &syms[i];
    let qualified = strings.qualified(syms, i)?;
    Some(SymbolRecord {
        name: strings.get(s.name)?,
        address: match s.address {
            Some(a) => strings.get(a)?,
            None => qualified.clone(),
        },
        qualified,
        kind: strings.part.kind(s.kind),
        declaration: s.declaration,
        parent: s.parent,
        start_line: s.start,
        def_line: s.def,
        end_line: s.end,
    })
}
