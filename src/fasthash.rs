//! A fast hash for in-memory maps keyed by short strings or numbers (names, ids) that no
//! untrusted party chooses to collide: word at a time, multiply and rotate. The standard
//! SipHash showed in the profiles of recording a tree's symbols.

use std::hash::{BuildHasherDefault, Hasher};

/// The hasher (see the module docs).
#[derive(Default, Clone, Copy)]
pub struct WordHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl WordHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last) ^ ((bytes.len() as u64) << 56));
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` with [`WordHasher`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// A set with the fast hash.
pub type FastSet<K> = std::collections::HashSet<K, BuildHasherDefault<WordHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_keys_stay_distinct() {
        let mut m: FastMap<&str, usize> = FastMap::default();
        let words = ["", "a", "ab", "abcdefgh", "abcdefghi", "abcdefgh\0", "b"];
        for (i, w) in words.iter().enumerate() {
            m.insert(w, i);
        }
        for (i, w) in words.iter().enumerate() {
            assert_eq!(m[w], i);
        }
        let mut h1 = WordHasher::default();
        h1.write(b"abcdefgh");
        let mut h2 = WordHasher::default();
        h2.write(b"abcdefgh\0");
        assert_ne!(h1.finish(), h2.finish());
    }
}
