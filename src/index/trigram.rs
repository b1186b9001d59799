//! Trigrams and posting lists: the distinct 3-byte sequences of a text, and the compact
//! lists of file ids (ascending, delta + varint encoded) that say which files hold each one.
//!
//! Trigrams that hold a newline are never indexed: a match is found within one line, so no
//! match ever contains one, and the query planner never asks for them.

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

/// Finds the distinct trigrams of texts, reusing one 2 MiB bit set (one per thread).
pub struct Extractor {
    seen: Vec<u64>,
}

impl Default for Extractor {
    fn default() -> Extractor {
        Extractor::new()
    }
}

impl Extractor {
    pub fn new() -> Extractor {
        Extractor {
            seen: vec![0; (1 << 24) / 64],
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
}

/// Appends `v` as a LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Decodes a posting list of `count` ascending ids (the first as is, then deltas) into `out`.
/// A list that runs past its bytes ends there (a damaged index is refused earlier by its
/// checksum; this only keeps a bad list from panicking).
pub fn decode_postings(bytes: &[u8], count: usize, out: &mut Vec<u32>) {
    out.clear();
    out.reserve(count);
    let mut prev: u32 = 0;
    let mut i = 0;
    for n in 0..count {
        let mut v: u32 = 0;
        let mut shift = 0;
        loop {
            let Some(&b) = bytes.get(i) else {
                return;
            };
            i += 1;
            v |= u32::from(b & 0x7f).wrapping_shl(shift);
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        prev = if n == 0 { v } else { prev.wrapping_add(v) };
        out.push(prev);
    }
}

/// Encodes ascending `ids` as a posting list (what [`decode_postings`] reads).
pub fn encode_postings(ids: &[u32], out: &mut Vec<u8>) {
    let mut prev = None;
    for &id in ids {
        put_varint(out, prev.map_or(id, |p| id - p));
        prev = Some(id);
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
    fn posting_lists_round_trip() {
        let ids = vec![0, 1, 5, 127, 128, 300, 70_000, 4_000_000_000];
        let mut bytes = Vec::new();
        encode_postings(&ids, &mut bytes);
        let mut back = Vec::new();
        decode_postings(&bytes, ids.len(), &mut back);
        assert_eq!(back, ids);
        // A truncated list stops, it does not panic.
        decode_postings(&bytes[..bytes.len() - 1], ids.len(), &mut back);
        assert_eq!(back, ids[..ids.len() - 1]);
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
