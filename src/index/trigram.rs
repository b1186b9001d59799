//! Trigrams and posting lists: the distinct 3-byte sequences of a text, and the compact
//! lists of file ids (ascending; delta + varint encoded, or a bitmap where that is smaller)
//! that say which files hold each one.
//!
//! Trigrams that hold a newline are never indexed: a match is found within one line, so no
//! match ever contains one, and the query planner never asks for them.
//!
//! A large document's postings also carry a *next mask*: one bit per byte that follows the
//! trigram somewhere in it (the byte ASCII-lowercased and hashed to one of 8 bits; a newline
//! sets none). A query that knows the byte after a trigram (`pm_r` after `pm_`) then rules
//! out documents where the trigram never comes before it, even though they hold every
//! trigram of the literal apart: files with `pm_runtime_resume` hold all of `pm_resume`'s.

/// Three bytes packed big-endian into the low 24 bits.
pub type Trigram = u32;

/// Packs three bytes into a [`Trigram`].
pub fn pack(a: u8, b: u8, c: u8) -> Trigram {
    (u32::from(a) << 16) | (u32::from(b) << 8) | u32::from(c)
}

/// Whether a trigram is ever indexed (it holds no newline).
pub fn indexable(t: Trigram) -> bool {
    let [_, a, b, c] = t.to_be_bytes();
    a != b'\n' && b != b'\n' && c != b'\n'
}

/// The bit of a next mask that byte `b` sets when it follows a trigram (0 for a newline,
/// which no match holds). Case variants of a letter share their bit.
pub fn next_bit(b: u8) -> u8 {
    NEXT_BITS[b as usize]
}

const NEXT_BITS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        if b != b'\n' as usize {
            t[b] = 1 << ((b as u8).to_ascii_lowercase().wrapping_mul(0x9d) >> 5);
        }
        b += 1;
    }
    t
};

/// Slots of the table a text's next masks are gathered in (a trigram's slot is a hash of
/// it): 2 MiB, so that it stays in cache beside the 2 MiB bit set. Two trigrams of one text
/// that share a slot get the union of their masks: never a byte missing (the mask stays
/// sound), rarely one too many (a 64 KiB text holds some 20,000 distinct trigrams: 1% of the
/// slots).
const NEXT_SLOTS: usize = 1 << 21;

fn next_slot(t: Trigram) -> usize {
    (t.wrapping_mul(0x9E37_79B1) >> (32 - NEXT_SLOTS.trailing_zeros())) as usize % NEXT_SLOTS
}

/// Finds the distinct trigrams of texts, reusing one 2 MiB bit set (one per thread), and a
/// table of next masks once a text asks for them.
pub struct Extractor {
    seen: Box<[u64; SEEN_WORDS]>,
    next: Option<Box<[u8; NEXT_SLOTS]>>,
}

/// Words of the bit set of trigrams seen in the current text.
const SEEN_WORDS: usize = (1 << 24) / 64;

/// A zeroed table on the heap.
fn table<T: Copy + Default, const N: usize>() -> Box<[T; N]> {
    vec![T::default(); N]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("N elements"))
}

impl Default for Extractor {
    fn default() -> Extractor {
        Extractor::new()
    }
}

impl Extractor {
    pub fn new() -> Extractor {
        Extractor {
            seen: table(),
            next: None,
        }
    }

    /// Replaces `out` with the distinct indexable trigrams of `bytes`, sorted.
    pub fn extract(&mut self, bytes: &[u8], out: &mut Vec<Trigram>) {
        out.clear();
        if bytes.len() < 3 {
            return;
        }
        let mut t = pack(0, bytes[0], bytes[1]);
        for &b in &bytes[2..] {
            t = ((t << 8) | u32::from(b)) & 0x00ff_ffff;
            let (word, bit) = ((t >> 6) as usize, 1u64 << (t & 63));
            if self.seen[word] & bit == 0 {
                self.seen[word] |= bit;
                out.push(t);
            }
        }
        for &t in out.iter() {
            self.seen[(t >> 6) as usize] = 0;
        }
        out.retain(|&t| indexable(t));
        out.sort_unstable();
    }

    /// Like [`Extractor::extract`], and `next` (beside `out`) gets each trigram's next mask
    /// (see the module docs).
    pub fn extract_next(&mut self, bytes: &[u8], out: &mut Vec<Trigram>, next: &mut Vec<u8>) {
        out.clear();
        next.clear();
        if bytes.len() < 3 {
            return;
        }
        let next_tab = self.next.get_or_insert_with(table);
        let seen = &mut self.seen;
        let mut see = |t: Trigram| {
            let (word, bit) = ((t >> 6) as usize % SEEN_WORDS, 1u64 << (t & 63));
            if seen[word] & bit == 0 {
                seen[word] |= bit;
                out.push(t);
            }
        };
        let mut t = pack(0, bytes[0], bytes[1]);
        // Each trigram but the last has a next byte.
        for (&b, &n) in bytes[2..].iter().zip(&bytes[3..]) {
            t = ((t << 8) | u32::from(b)) & 0x00ff_ffff;
            see(t);
            next_tab[next_slot(t)] |= NEXT_BITS[n as usize];
        }
        see(((t << 8) | u32::from(bytes[bytes.len() - 1])) & 0x00ff_ffff);
        // Each trigram with its mask in the low byte, so that one sort orders both. Every
        // mask is read before any slot is cleared: a slot may serve two trigrams.
        let mut both: Vec<u32> = Vec::with_capacity(out.len());
        for &t in out.iter() {
            self.seen[(t >> 6) as usize % SEEN_WORDS] = 0;
            if indexable(t) {
                both.push((t << 8) | u32::from(next_tab[next_slot(t)]));
            }
        }
        for &t in out.iter() {
            next_tab[next_slot(t)] = 0;
        }
        both.sort_unstable();
        out.clear();
        out.extend(both.iter().map(|&x| x >> 8));
        next.extend(both.iter().map(|&x| x as u8));
    }
}

/// Appends `v` as a LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A posting list as it is built: ids as deltas, each of a document with next masks followed
/// by its mask (the build knows which documents have them). Written (see
/// [`ListBuilder::write`]) with the documents that have masks apart from the others:
///
/// ```text
/// head     varint: how many documents have masks (0: the list has none) << 2, | 2 if
///          their ids are a bitmap, | 1 if the others' are
/// masked   their ids, ascending
/// plain    the other ids, likewise
/// masks    one byte per masked id, in order
/// ```
///
/// so that a query that needs no mask decodes two plain lists, and one that does reads the
/// masks beside the ids, with no per-document lookup. Each part of ids is stored the
/// smaller way: as varints (the first as is, then deltas), or as a bitmap (varint first id,
/// varint length in bytes, then bit `k % 8` of byte `k / 8` set for id `first + k`). A
/// trigram in most of a block's documents takes a bit per document instead of a byte.
#[derive(Debug, Default)]
pub struct ListBuilder {
    bytes: Vec<u8>,
    last: Option<u32>,
    count: u32,
    masked: u32,
}

/// Appends `id` to a list whose last id is `last`: its delta, as a varint.
fn put_delta(out: &mut Vec<u8>, last: &mut Option<u32>, id: u32) {
    put_varint(out, last.map_or(id, |p| id - p));
    *last = Some(id);
}

impl ListBuilder {
    /// Adds document `id` (ascending across calls), with its next mask if it has one.
    pub fn push(&mut self, id: u32, next: Option<u8>) {
        put_delta(&mut self.bytes, &mut self.last, id);
        if let Some(m) = next {
            self.bytes.push(m);
            self.masked += 1;
        }
        self.count += 1;
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    /// Heap bytes held.
    pub fn heap(&self) -> usize {
        self.bytes.capacity()
    }

    /// Appends the list to `out` as it is stored, `masked` saying which documents were
    /// pushed with a mask; without `keep_masks` (or with no masked document), one plain
    /// list of every id.
    pub fn write(&self, out: &mut Vec<u8>, keep_masks: bool, masked: impl Fn(u32) -> bool) {
        let (mut with, mut plain, mut i) = (Vec::new(), Vec::new(), 0);
        // The first id is its own delta from 0.
        let mut id = 0u32;
        for _ in 0..self.count {
            id += read_varint(&self.bytes, &mut i).expect("a list as pushed");
            if self.masked > 0 && masked(id) {
                with.push((id, self.bytes[i]));
                i += 1;
            } else {
                plain.push(id);
            }
        }
        encode_list(out, &with, &plain, keep_masks);
    }
}

/// The bytes ascending `ids` take as varint deltas, and as a bitmap.
fn part_sizes(ids: &[u32]) -> (usize, usize) {
    let len = |v: u32| (32 - v.leading_zeros()).max(1).div_ceil(7) as usize;
    let (Some(&first), Some(&last)) = (ids.first(), ids.last()) else {
        return (0, usize::MAX);
    };
    let deltas = len(first) + ids.windows(2).map(|w| len(w[1] - w[0])).sum::<usize>();
    let bytes = (last - first) / 8 + 1;
    (deltas, len(first) + len(bytes) + bytes as usize)
}

/// Appends ascending `ids` as a bitmap when that is smaller (true), as varint deltas
/// otherwise (see [`ListBuilder`]).
fn put_part(out: &mut Vec<u8>, ids: &[u32], bitmap: bool) {
    if !bitmap {
        let mut last = None;
        ids.iter().for_each(|&id| put_delta(out, &mut last, id));
        return;
    }
    let first = ids[0];
    let bytes = (ids[ids.len() - 1] - first) / 8 + 1;
    put_varint(out, first);
    put_varint(out, bytes);
    let at = out.len();
    out.resize(at + bytes as usize, 0);
    for &id in ids {
        let d = (id - first) as usize;
        out[at + d / 8] |= 1 << (d % 8);
    }
}

/// Whether ascending `ids` are stored as a bitmap.
fn as_bitmap(ids: &[u32]) -> bool {
    let (deltas, bitmap) = part_sizes(ids);
    bitmap < deltas
}

/// Appends a list to `out` as [`ListBuilder::write`] stores it, from its documents with next
/// masks (ascending, each with its mask) and those without (ascending, disjoint from the
/// former); with `keep_masks` false (or no masked document), one plain list of all of them.
pub fn encode_list(out: &mut Vec<u8>, masked: &[(u32, u8)], plain: &[u32], keep_masks: bool) {
    if !keep_masks || masked.is_empty() {
        let mut all = Vec::with_capacity(masked.len() + plain.len());
        let (mut i, mut j) = (0, 0);
        while i < masked.len() || j < plain.len() {
            if j == plain.len() || (i < masked.len() && masked[i].0 < plain[j]) {
                all.push(masked[i].0);
                i += 1;
            } else {
                all.push(plain[j]);
                j += 1;
            }
        }
        let bitmap = as_bitmap(&all);
        put_varint64(out, u64::from(bitmap));
        put_part(out, &all, bitmap);
        return;
    }
    let ids: Vec<u32> = masked.iter().map(|m| m.0).collect();
    let (a, b) = (as_bitmap(&ids), as_bitmap(plain));
    put_varint64(
        out,
        (ids.len() as u64) << 2 | u64::from(a) << 1 | u64::from(b),
    );
    put_part(out, &ids, a);
    put_part(out, plain, b);
    out.extend(masked.iter().map(|m| m.1));
}

/// Appends `v` as a LEB128 varint.
fn put_varint64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a LEB128 varint of up to 64 bits from `bytes` at `*i` (`None` past the end or
/// past ten bytes).
fn read_varint64(bytes: &[u8], i: &mut usize) -> Option<u64> {
    let mut v: u64 = 0;
    for shift in (0..64).step_by(7) {
        let &b = bytes.get(*i)?;
        *i += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Reads a LEB128 varint from `bytes` at `*i` (`None` past the end).
fn read_varint(bytes: &[u8], i: &mut usize) -> Option<u32> {
    let mut v: u32 = 0;
    let mut shift = 0;
    loop {
        let &b = bytes.get(*i)?;
        *i += 1;
        v |= u32::from(b & 0x7f).wrapping_shl(shift);
        if b & 0x80 == 0 {
            return Some(v);
        }
        shift += 7;
    }
}

/// Decodes a part of `n` ascending ids stored as [`put_part`] stores them from `bytes` at
/// `*i` into `out`.
fn decode_part(bytes: &[u8], i: &mut usize, n: usize, bitmap: bool, out: &mut Vec<u32>) {
    if bitmap {
        decode_bitmap(bytes, i, n, out);
    } else {
        decode_ids(bytes, i, n, out);
    }
}

/// Decodes up to `n` ids stored as a bitmap (see [`ListBuilder`]) from `bytes` at `*i`
/// into `out`; a bitmap cut short gives the ids of its bytes that are there.
fn decode_bitmap(bytes: &[u8], i: &mut usize, n: usize, out: &mut Vec<u32>) {
    out.clear();
    if n == 0 {
        return;
    }
    let (Some(first), Some(len)) = (read_varint(bytes, i), read_varint(bytes, i)) else {
        *i = bytes.len();
        return;
    };
    let end = i.saturating_add(len as usize).min(bytes.len());
    let bits = bytes.get(*i..end).unwrap_or(&[]);
    *i = end;
    out.reserve(n.min(bits.len() * 8));
    for (k, chunk) in bits.chunks(8).enumerate() {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let mut w = u64::from_le_bytes(word);
        while w != 0 {
            let bit = k * 64 + w.trailing_zeros() as usize;
            out.push(first.wrapping_add(bit as u32));
            if out.len() == n {
                return;
            }
            w &= w - 1;
        }
    }
}

/// Decodes `n` ascending ids (the first as is, then deltas) from `bytes` at `*i` into `out`.
/// Stops early at the end of `bytes` (a damaged index is refused earlier by its checksum;
/// this only keeps a bad list from panicking).
fn decode_ids(bytes: &[u8], i: &mut usize, n: usize, out: &mut Vec<u32>) {
    out.clear();
    out.reserve(n);
    // The first id is its own delta from 0.
    let mut prev: u32 = 0;
    while out.len() < n {
        // Common trigrams' lists are dense: eight one-byte deltas at a time.
        if n - out.len() >= 8
            && let Some(chunk) = bytes.get(*i..*i + 8)
            && u64::from_le_bytes(chunk.try_into().expect("8")) & 0x8080_8080_8080_8080 == 0
        {
            for &d in chunk {
                prev = prev.wrapping_add(u32::from(d));
                out.push(prev);
            }
            *i += 8;
            continue;
        }
        let Some(v) = read_varint(bytes, i) else {
            return;
        };
        prev = prev.wrapping_add(v);
        out.push(prev);
    }
}

/// A decoded posting list (see [`ListBuilder`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Postings {
    /// The documents with next masks, and their masks beside them.
    pub masked: Vec<u32>,
    pub masks: Vec<u8>,
    /// The documents without.
    pub plain: Vec<u32>,
}

impl Postings {
    /// Decodes a list of `count` documents written by [`ListBuilder::write`].
    pub fn decode(bytes: &[u8], count: usize) -> Postings {
        Postings::decode_len(bytes, count).0
    }

    /// [`Postings::decode`], and how many bytes of `bytes` the list took: every byte whose
    /// value went into the result lies within them.
    pub fn decode_len(bytes: &[u8], count: usize) -> (Postings, usize) {
        let mut p = Postings::default();
        let mut i = 0;
        // Each id takes a bit at least: a larger count is not that of this list.
        let count = count.min(bytes.len().saturating_mul(8));
        let head = read_varint64(bytes, &mut i).unwrap_or(0);
        let n = usize::try_from(head >> 2).unwrap_or(usize::MAX).min(count);
        decode_part(bytes, &mut i, n, head & 2 != 0, &mut p.masked);
        decode_part(bytes, &mut i, count - n, head & 1 != 0, &mut p.plain);
        let masks = bytes.get(i..).unwrap_or(&[]);
        p.masks = masks[..masks.len().min(p.masked.len())].to_vec();
        p.masked.truncate(p.masks.len());
        let used = (i + p.masks.len()).min(bytes.len());
        (p, used)
    }

    /// The documents with masks where the trigram is followed by a byte of next bit in
    /// `mask`.
    pub fn masked_followed_by(&self, mask: u8) -> Vec<u32> {
        self.masked
            .iter()
            .zip(&self.masks)
            .filter(|(_, m)| **m & mask != 0)
            .map(|(&id, _)| id)
            .collect()
    }

    /// Keeps only the documents `keep` accepts.
    pub fn retain(&mut self, keep: impl Fn(u32) -> bool) {
        let mut k = 0;
        for j in 0..self.masked.len() {
            if keep(self.masked[j]) {
                self.masked[k] = self.masked[j];
                self.masks[k] = self.masks[j];
                k += 1;
            }
        }
        self.masked.truncate(k);
        self.masks.truncate(k);
        self.plain.retain(|&id| keep(id));
    }
}

/// Ascending ids in both lists.
pub fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(small.len());
    if small.len() * 16 < large.len() {
        // Galloping: few ids against many.
        let mut rest = large;
        for &x in small {
            match rest.binary_search(&x) {
                Ok(i) => {
                    out.push(x);
                    rest = &rest[i + 1..];
                }
                Err(i) => rest = &rest[i..],
            }
        }
        return out;
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// Ascending ids in either list.
pub fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extraction_gives_each_trigram_once_without_newlines() {
        let mut x = Extractor::new();
        let mut out = Vec::new();
        x.extract(b"abcabc\nabd", &mut out);
        let mut want = vec![
            pack(b'a', b'b', b'c'),
            pack(b'b', b'c', b'a'),
            pack(b'c', b'a', b'b'),
            pack(b'a', b'b', b'd'),
        ];
        want.sort_unstable();
        assert_eq!(out, want);
        // The bit set is clean for the next text.
        x.extract(b"abc", &mut out);
        assert_eq!(out, vec![pack(b'a', b'b', b'c')]);
        x.extract(b"ab", &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn next_masks_hold_every_byte_after_each_trigram() {
        let mut x = Extractor::new();
        let (mut out, mut next) = (Vec::new(), Vec::new());
        x.extract_next(b"abcd abcX\nabc", &mut out, &mut next);
        let mut plain = Vec::new();
        x.extract(b"abcd abcX\nabc", &mut plain);
        assert_eq!(out, plain, "the same trigrams as without masks");
        let at = |t: &[u8]| next[out.binary_search(&pack(t[0], t[1], t[2])).unwrap()];
        // `abc` is followed by `d` and `X` (folded: `x`); the newline and the end set none.
        assert_eq!(at(b"abc"), next_bit(b'd') | next_bit(b'x'));
        assert_eq!(next_bit(b'X'), next_bit(b'x'));
        assert_eq!(at(b"bcd"), next_bit(b' '));
        assert_eq!(at(b"bcX"), 0);
        // The table is clean for the next text.
        x.extract_next(b"abcz", &mut out, &mut next);
        assert_eq!(next, vec![next_bit(b'z'), 0]);
        // Every byte but the newline sets a bit, and the bits spread over all eight.
        let bits: u8 = (0..=255u8).filter(|&b| b != b'\n').fold(0, |m, b| {
            assert_eq!(next_bit(b).count_ones(), 1);
            m | next_bit(b)
        });
        assert_eq!((bits, next_bit(b'\n')), (0xff, 0));
    }

    #[test]
    fn next_masks_never_miss_a_byte_when_slots_are_shared() {
        // 400,000 pseudo-random bytes of a small alphabet: some 100,000 distinct trigrams,
        // many sharing a slot of the table.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let text: Vec<u8> = (0..400_000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                b"abcdefghijklmnopqrstuvwxyz_ ();\nABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                    [(state % 67) as usize]
            })
            .collect();
        let mut exact = std::collections::HashMap::<Trigram, u8>::new();
        for w in text.windows(4) {
            *exact.entry(pack(w[0], w[1], w[2])).or_default() |= next_bit(w[3]);
        }
        let mut x = Extractor::new();
        let (mut out, mut next) = (Vec::new(), Vec::new());
        x.extract_next(&text, &mut out, &mut next);
        assert!(out.len() > 50_000, "{}", out.len());
        let mut same = 0;
        for (t, m) in out.iter().zip(&next) {
            let want = exact.get(t).copied().unwrap_or(0);
            assert_eq!(m & want, want, "a byte missing from the mask of {t:06x}");
            same += usize::from(*m == want);
        }
        assert!(same * 100 >= out.len() * 90, "{same} of {}", out.len());
    }

    #[test]
    fn posting_lists_round_trip() {
        let ids = [0, 1, 5, 127, 128, 300, 70_000, 4_000_000_000];
        let mut list = ListBuilder::default();
        let is_masked = |id: u32| id.is_multiple_of(5);
        for &id in &ids {
            list.push(id, is_masked(id).then_some(id as u8 | 1));
        }
        let masked = vec![0, 5, 300, 70_000, 4_000_000_000];
        let masks: Vec<u8> = masked.iter().map(|&id: &u32| id as u8 | 1).collect();
        let plain = vec![1, 127, 128];
        let mut bytes = Vec::new();
        list.write(&mut bytes, true, is_masked);
        let back = Postings::decode(&bytes, ids.len());
        assert_eq!(back.masked, masked);
        assert_eq!(back.masks, masks);
        assert_eq!(back.plain, plain);
        let all = |p: &Postings| union(&p.masked, &p.plain);
        assert_eq!(all(&back), ids);
        assert_eq!(back.masked_followed_by(0), Vec::<u32>::new());
        assert_eq!(back.masked_followed_by(32), vec![300, 70_000]);
        // Written without masks: one plain list.
        let mut bytes = Vec::new();
        list.write(&mut bytes, false, is_masked);
        let back = Postings::decode(&bytes, ids.len());
        assert_eq!((back.plain, back.masked.len()), (ids.to_vec(), 0));
        // A truncated list stops, it does not panic, and no id is left without its mask.
        let mut bytes = Vec::new();
        list.write(&mut bytes, true, is_masked);
        for cut in 0..bytes.len() {
            let back = Postings::decode(&bytes[..cut], ids.len());
            assert_eq!(back.masked.len(), back.masks.len());
        }
        let mut back = Postings::decode(&bytes, ids.len());
        back.retain(|id| id % 2 == 0);
        assert_eq!(all(&back), vec![0, 128, 300, 70_000, 4_000_000_000]);
        assert_eq!(back.masks, vec![1, 45, 113, 1]);
    }

    #[test]
    fn dense_and_sparse_lists_decode_alike() {
        // Runs of one-byte deltas (the eight-at-a-time path) between multi-byte ones, and
        // lists whose length is not a multiple of eight.
        for n in [1usize, 7, 8, 9, 63, 64, 65, 1000] {
            let ids: Vec<u32> = (0..n as u32)
                .scan(0u32, |id, k| {
                    *id += if k % 37 == 5 { 300 + k } else { 1 + k % 3 };
                    Some(*id)
                })
                .collect();
            let mut list = ListBuilder::default();
            ids.iter().for_each(|&id| list.push(id, None));
            let mut bytes = Vec::new();
            list.write(&mut bytes, true, |_| false);
            assert_eq!(Postings::decode(&bytes, n).plain, ids, "{n}");
            // Cut anywhere: a prefix of the ids, never a wrong one.
            for cut in 0..bytes.len() {
                let got = Postings::decode(&bytes[..cut], n).plain;
                assert_eq!(got[..], ids[..got.len()], "{n} cut at {cut}");
            }
        }
    }

    #[test]
    fn a_part_in_most_documents_is_a_bitmap_and_decodes_alike() {
        // Every other document with a mask, two of three without: both parts dense.
        let masked: Vec<(u32, u8)> = (1000..3000).step_by(2).map(|id| (id, id as u8)).collect();
        let plain: Vec<u32> = (1001..3000).step_by(2).filter(|id| id % 3 != 0).collect();
        let mut bytes = Vec::new();
        encode_list(&mut bytes, &masked, &plain, true);
        assert_eq!(bytes[0] & 3, 3, "both parts are bitmaps");
        let n = masked.len() + plain.len();
        // 2,000 ids and 1,000 masks: a bit per id, a byte per mask.
        assert!(bytes.len() < 1000 + 2 * 260, "{}", bytes.len());
        let (back, used) = Postings::decode_len(&bytes, n);
        assert_eq!(used, bytes.len());
        let ids: Vec<u32> = masked.iter().map(|m| m.0).collect();
        assert_eq!(back.masked, ids);
        assert_eq!(back.masks, masked.iter().map(|m| m.1).collect::<Vec<_>>());
        assert_eq!(back.plain, plain);
        // Without masks: one bitmap of all of them.
        let mut one = Vec::new();
        encode_list(&mut one, &masked, &plain, false);
        assert_eq!(one[0], 1);
        let all = union(&ids, &plain);
        assert_eq!(Postings::decode(&one, n).plain, all);
        // Cut anywhere: a prefix of the ids, never a wrong one; masks stay beside theirs.
        for cut in 0..bytes.len() {
            let got = Postings::decode(&bytes[..cut], n);
            assert_eq!(got.masked[..], ids[..got.masked.len()], "cut at {cut}");
            assert_eq!(got.masked.len(), got.masks.len());
            assert_eq!(got.plain[..], plain[..got.plain.len()], "cut at {cut}");
        }
        for cut in 0..one.len() {
            let got = Postings::decode(&one[..cut], n).plain;
            assert_eq!(got[..], all[..got.len()], "cut at {cut}");
        }
        // A sparse part stays deltas beside a dense one.
        let sparse = [5, 90_000, 4_000_000_000];
        let mut mixed = Vec::new();
        encode_list(&mut mixed, &masked, &sparse, true);
        assert_eq!(mixed[0] & 3, 2);
        let back = Postings::decode(&mixed, masked.len() + 3);
        assert_eq!((back.masked, back.plain), (ids, sparse.to_vec()));
    }

    #[test]
    fn set_operations() {
        let a = vec![1, 3, 5, 7, 9];
        let b: Vec<u32> = (0..200).map(|i| i * 3).collect();
        assert_eq!(intersect(&a, &b), vec![3, 9]);
        assert_eq!(intersect(&b, &a), vec![3, 9]);
        assert_eq!(intersect(&a, &[3, 4, 5]), vec![3, 5]);
        assert_eq!(union(&a, &[2, 3]), vec![1, 2, 3, 5, 7, 9]);
    }
}
