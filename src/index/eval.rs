//! Evaluating a planned query over an index's segments: the documents whose posting lists
//! satisfy it.
//!
//! A trigram's list is decoded once per query (a case-insensitive plan names each trigram
//! several times) and kept in two parts, the documents with next masks and the others
//! (see [`super::trigram::ListBuilder`]). Results stay unions of such parts until an AND
//! needs them merged, so that a long list is never copied or merged whole only to be
//! intersected with a few documents. An AND takes its children from the cheapest (by list
//! lengths, read from the table alone) and stops before a list far longer than the
//! documents it has left (see [`DECODE_PER_DOC`]).
//!
//! Every byte a query reads through the mapping (table entries, lists) is recorded, and
//! checked against the segment's page sums once the query has read them all: a byte changed
//! in place after the segment was opened is seen by the query that read it, which then uses
//! nothing it read. A query pays for the pages it read, not for the segment.

use std::collections::HashMap;
use std::rc::Rc;

use super::checksum::Reads;
use super::segment::{Data, Segment};
use super::trigram::{Postings, Trigram, intersect, union};
use super::{Block, TriQuery, mapped, persist};

/// An AND stops decoding its remaining (longer) lists once the next one has more postings
/// than this many times the documents left: decoding a posting costs a few nanoseconds,
/// reading a document microseconds, and once few documents are left the trigrams of the
/// same words rarely rule out more of them. Skipping a list is sound (more candidates,
/// never fewer).
const DECODE_PER_DOC: usize = 256;

/// Sorted, duplicate-free document ids: a decoded list's part, or ids computed from one.
enum Part {
    Masked(Rc<Postings>),
    Plain(Rc<Postings>),
    Owned(Vec<u32>),
}

impl Part {
    fn ids(&self) -> &[u32] {
        match self {
            Part::Masked(p) => &p.masked,
            Part::Plain(p) => &p.plain,
            Part::Owned(v) => v,
        }
    }
}

/// What a (sub)query admits: every document, or the union of sorted parts.
enum Ids {
    All,
    Union(Vec<Part>),
}

impl Ids {
    fn owned(v: Vec<u32>) -> Ids {
        Ids::Union(vec![Part::Owned(v)])
    }
}

/// The union of sorted lists, merged pairwise (each id is moved about log(parts) times).
fn merge(parts: &[Part]) -> Vec<u32> {
    let mut lists: Vec<Vec<u32>> = match parts {
        [] => return Vec::new(),
        [one] => return one.ids().to_vec(),
        _ => parts
            .chunks(2)
            .map(|c| match c {
                [a, b] => union(a.ids(), b.ids()),
                [a] => a.ids().to_vec(),
                _ => unreachable!("chunks of two"),
            })
            .collect(),
    };
    while lists.len() > 1 {
        lists = lists
            .chunks(2)
            .map(|c| match c {
                [a, b] => union(a, b),
                [a] => a.clone(),
                _ => unreachable!("chunks of two"),
            })
            .collect();
    }
    lists.pop().unwrap_or_default()
}

/// Each trigram's decoded list, once per query.
type Memo = HashMap<Trigram, Rc<Postings>>;

impl Segment {
    /// The documents (ascending) that may hold a match of a pattern planned as `q`; `Err`
    /// (why) when the bytes read are not those written (changed in place, cut): then
    /// nothing read is used.
    pub(super) fn candidate_docs(&self, q: &TriQuery) -> Result<Vec<u32>, String> {
        // The blocks are independent (each its own documents and lists): evaluated in
        // parallel, the ids concatenated in block order.
        let block = |s: &Block| {
            let mut reads = Reads::default();
            let ids = match self.eval(s, q, &mut Memo::new(), &mut reads) {
                Ids::All => (s.first..s.end).collect(),
                Ids::Union(parts) => merge(&parts),
            };
            (ids, reads)
        };
        let run = || {
            use rayon::prelude::*;
            let found: Vec<(Vec<u32>, Reads)> = self.blocks.par_iter().map(block).collect();
            let mut out = Vec::with_capacity(found.iter().map(|f| f.0.len()).sum());
            let mut reads = Reads::default();
            for (ids, r) in found {
                out.extend(ids);
                reads.extend(r);
            }
            self.check(&reads).map(|()| out)
        };
        match &self.data {
            Data::Owned(_) => run(),
            Data::Mapped(src) => mapped::guard(src, run)
                .map_err(|()| "changed while it was read (cut or rewritten)".to_string())?,
        }
    }

    /// Entry `i` of block `s`'s table: trigram, offset of its list, its length.
    pub(super) fn table_entry(&self, s: &Block, i: u64, reads: &mut Reads) -> (u32, u32, u32) {
        let bytes = self.bytes();
        let at = s.table_off as usize + i as usize * persist::ENTRY;
        reads.add(at as u64, (at + persist::ENTRY) as u64);
        let e = &bytes[at..][..persist::ENTRY];
        let w = |k: usize| u32::from_le_bytes(e[k..k + 4].try_into().expect("4"));
        (w(0), w(4), w(8))
    }

    /// Where the posting list of `t` starts in block `s`'s postings, and its length.
    fn entry(&self, s: &Block, t: Trigram, reads: &mut Reads) -> Option<(u32, u32)> {
        let (mut lo, mut hi) = (0, s.entries);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.table_entry(s, mid, reads).0 < t {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo < s.entries)
            .then(|| self.table_entry(s, lo, reads))
            .filter(|e| e.0 == t)
            .map(|e| (e.1, e.2))
    }

    /// The list of `n` documents at `off` in block `s`'s postings.
    pub(super) fn list(&self, s: &Block, off: u32, n: u32, reads: &mut Reads) -> Postings {
        let post = &self.bytes()[s.post_off as usize..][..s.post_len as usize];
        let (mut p, used) =
            Postings::decode_len(post.get(off as usize..).unwrap_or(&[]), n as usize);
        let at = s.post_off + u64::from(off);
        reads.add(at, at + used as u64);
        // Ids outside the block come only from a damaged list: dropped.
        let outside = |id: &u32| *id < s.first || *id >= s.end;
        if p.masked.iter().chain(&p.plain).any(outside) {
            p.retain(|id| !outside(&id));
        }
        p
    }

    /// The documents of block `s` that hold `t`, decoded once per query.
    fn postings(&self, s: &Block, t: Trigram, memo: &mut Memo, reads: &mut Reads) -> Rc<Postings> {
        let mut decode = || {
            let Some((off, n)) = self.entry(s, t, reads) else {
                return Postings::default();
            };
            self.list(s, off, n, reads)
        };
        Rc::clone(memo.entry(t).or_insert_with(|| Rc::new(decode())))
    }

    /// The decoded list of `t` in the first block.
    #[cfg(test)]
    pub(super) fn first_postings(&self, t: Trigram) -> Rc<Postings> {
        self.postings(&self.blocks[0], t, &mut Memo::new(), &mut Reads::default())
    }

    /// At most how many documents of segment `s` the query `q` admits, from the table alone
    /// (its trigrams' list lengths): for a trigram, also what decoding its list costs.
    fn estimate(&self, s: &Block, q: &TriQuery, reads: &mut Reads) -> usize {
        match q {
            TriQuery::All => usize::MAX,
            TriQuery::None => 0,
            TriQuery::Tri(t) | TriQuery::Next(t, _) => {
                self.entry(s, *t, reads).map_or(0, |e| e.1 as usize)
            }
            TriQuery::And(v) => v
                .iter()
                .map(|q| self.estimate(s, q, reads))
                .min()
                .unwrap_or(usize::MAX),
            TriQuery::Or(v) => v
                .iter()
                .map(|q| self.estimate(s, q, reads))
                .fold(0, usize::saturating_add),
        }
    }

    /// The documents of segment `s` that `q` admits.
    fn eval(&self, s: &Block, q: &TriQuery, memo: &mut Memo, reads: &mut Reads) -> Ids {
        match q {
            TriQuery::All => Ids::All,
            TriQuery::None => Ids::Union(Vec::new()),
            TriQuery::Tri(t) => {
                let p = self.postings(s, *t, memo, reads);
                Ids::Union(vec![Part::Masked(Rc::clone(&p)), Part::Plain(p)])
            }
            TriQuery::Next(t, m) => {
                let p = self.postings(s, *t, memo, reads);
                let kept = p.masked_followed_by(*m);
                Ids::Union(vec![Part::Owned(kept), Part::Plain(p)])
            }
            TriQuery::And(v) => {
                let mut subs: Vec<(usize, &TriQuery)> =
                    v.iter().map(|q| (self.estimate(s, q, reads), q)).collect();
                subs.sort_by_key(|(n, _)| *n);
                let mut acc: Option<Vec<u32>> = None;
                for (n, sub) in subs {
                    if let Some(a) = &acc
                        && n > a.len().saturating_mul(DECODE_PER_DOC)
                    {
                        break;
                    }
                    let Ids::Union(parts) = self.eval(s, sub, memo, reads) else {
                        continue;
                    };
                    let a = match acc {
                        None => merge(&parts),
                        // Few documents against long parts: each part is intersected
                        // (galloping), only the small results are merged.
                        Some(a) => {
                            let hits: Vec<Part> = parts
                                .iter()
                                .map(|p| Part::Owned(intersect(&a, p.ids())))
                                .collect();
                            merge(&hits)
                        }
                    };
                    if a.is_empty() {
                        return Ids::owned(a);
                    }
                    acc = Some(a);
                }
                acc.map_or(Ids::All, Ids::owned)
            }
            TriQuery::Or(v) => {
                let mut parts = Vec::new();
                for sub in v {
                    match self.eval(s, sub, memo, reads) {
                        Ids::All => return Ids::All,
                        Ids::Union(p) => parts.extend(p),
                    }
                }
                Ids::Union(parts)
            }
        }
    }
}
