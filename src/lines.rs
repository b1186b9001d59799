//! `LineIndex`: line number ↔ byte offset for one file's bytes, in bounded memory.
//!
//! The index is a checkpoint scheme: the file is cut into fixed 64 KiB blocks and the index
//! stores, for every block, how many newlines come before it (8 bytes per 64 KiB, so a 1 GiB
//! file costs 128 KiB of index whatever its line count). Line N is found by a binary search
//! over the checkpoints and one memchr scan inside a single block, so no lookup ever touches
//! more than 64 KiB of the file. Building the index counts newlines with memchr's vectorized
//! counter, in parallel blocks for large files.
//!
//! Lines are numbered from 1. A file's lines are its `\n`-terminated runs plus a final run
//! without a terminator, if any: `"a\nb\n"` has 2 lines, `"a\nb"` has 2 lines, `""` has 0.

use std::ops::Range;

use rayon::prelude::*;

/// Bytes per checkpoint block.
pub const BLOCK: usize = 64 * 1024;

/// Files at least this large have their blocks counted in parallel.
const PARALLEL_MIN: usize = 8 * 1024 * 1024;

/// How many bytes before the indexed end are fingerprinted to recognise a file that grew.
const FINGERPRINT_LEN: usize = 4096;

/// Newline checkpoints for one version of a file's bytes.
#[derive(Clone, Debug)]
pub struct LineIndex {
    len: usize,
    /// `before[i]`: newlines in `bytes[..i * BLOCK]`; one entry per block plus a final total.
    before: Vec<u64>,
    /// Fingerprint of the bytes just before `len`, to check that a longer file only grew.
    tail_fingerprint: u64,
}

fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

fn fingerprint(bytes: &[u8]) -> u64 {
    // FNV-1a over at most FINGERPRINT_LEN bytes: cheap and good enough to tell "appended to"
    // from "rewritten" together with the file identity (dev, inode) that must also match.
    let tail = &bytes[bytes.len().saturating_sub(FINGERPRINT_LEN)..];
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in tail {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl LineIndex {
    /// Indexes `bytes`.
    pub fn build(bytes: &[u8]) -> LineIndex {
        let mut index = LineIndex {
            len: 0,
            before: vec![0],
            tail_fingerprint: 0,
        };
        index.extend_from(bytes, 0);
        index
    }

    /// If `bytes` starts with exactly the bytes this index was built from (checked by a
    /// fingerprint of the indexed tail) returns an index of `bytes` that reuses every complete
    /// block; otherwise `None`.
    pub fn extended(&self, bytes: &[u8]) -> Option<LineIndex> {
        if bytes.len() < self.len || fingerprint(&bytes[..self.len]) != self.tail_fingerprint {
            return None;
        }
        let full_blocks = self.len / BLOCK;
        let mut index = LineIndex {
            len: 0,
            before: self.before[..=full_blocks].to_vec(),
            tail_fingerprint: 0,
        };
        index.extend_from(bytes, full_blocks);
        Some(index)
    }

    /// Recounts blocks `first_block..` of `bytes`, keeping `self.before[..=first_block]`.
    fn extend_from(&mut self, bytes: &[u8], first_block: usize) {
        self.before.truncate(first_block + 1);
        let rest = &bytes[first_block * BLOCK..];
        let counts: Vec<u64> = if rest.len() >= PARALLEL_MIN {
            rest.par_chunks(BLOCK).map(count_newlines).collect()
        } else {
            rest.chunks(BLOCK).map(count_newlines).collect()
        };
        let mut total = *self.before.last().expect("at least one checkpoint");
        self.before.reserve(counts.len());
        for c in counts {
            total += c;
            self.before.push(total);
        }
        self.len = bytes.len();
        self.tail_fingerprint = fingerprint(bytes);
    }

    /// Length in bytes of the indexed text.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of `\n` bytes.
    pub fn newlines(&self) -> u64 {
        *self.before.last().expect("at least one checkpoint")
    }

    /// Number of lines (a final line without `\n` counts).
    pub fn total_lines(&self, bytes: &[u8]) -> u64 {
        debug_assert_eq!(bytes.len(), self.len);
        let n = self.newlines();
        if bytes.last().is_some_and(|&b| b != b'\n') {
            n + 1
        } else {
            n
        }
    }

    /// Memory held by the index, in bytes.
    pub fn heap_bytes(&self) -> usize {
        self.before.capacity() * std::mem::size_of::<u64>()
    }

    /// Byte offset of the `k`-th newline (1-based), if there are that many.
    pub fn nth_newline(&self, bytes: &[u8], k: u64) -> Option<usize> {
        if k == 0 || k > self.newlines() {
            return None;
        }
        // The block containing newline k is the last block whose checkpoint is < k.
        let block = self.before.partition_point(|&c| c < k) - 1;
        let start = block * BLOCK;
        let end = (start + BLOCK).min(self.len);
        let skip = (k - self.before[block] - 1) as usize;
        memchr::memchr_iter(b'\n', &bytes[start..end])
            .nth(skip)
            .map(|i| start + i)
    }

    /// Byte offset where line `n` (1-based) starts; `n == total_lines + 1` gives the length
    /// (the empty position after the last line). `None` past that.
    pub fn line_start(&self, bytes: &[u8], n: u64) -> Option<usize> {
        if n == 0 {
            return None;
        }
        if n == 1 {
            return Some(0);
        }
        let total = self.total_lines(bytes);
        if n > total + 1 {
            return None;
        }
        match self.nth_newline(bytes, n - 1) {
            Some(i) => Some(i + 1),
            // Line total+1 of a file without trailing newline: the end.
            None => Some(self.len),
        }
    }

    /// Bytes of lines `first..=last` (1-based, clamped to the file), terminators included.
    pub fn line_range(&self, bytes: &[u8], first: u64, last: u64) -> Range<usize> {
        let total = self.total_lines(bytes);
        let last = last.min(total);
        if first == 0 || first > last {
            return self.len..self.len;
        }
        let start = self.line_start(bytes, first).unwrap_or(self.len);
        let end = self.line_start(bytes, last + 1).unwrap_or(self.len);
        start..end
    }

    /// The 1-based line number containing byte `offset` (an offset equal to the length gives
    /// the line after the last newline).
    pub fn line_of_offset(&self, bytes: &[u8], offset: usize) -> u64 {
        let offset = offset.min(self.len);
        let block = offset / BLOCK;
        let base = self.before[block.min(self.before.len() - 1)];
        base + count_newlines(&bytes[block * BLOCK..offset]) + 1
    }
}

/// The offset of the newline that ends the line holding `start` (or the end of `bytes`).
#[inline]
pub fn line_end(bytes: &[u8], start: usize) -> usize {
    memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i)
}

/// The offset just past the first newline at or after `want` (or the end of `bytes`): where
/// a cut of `bytes` into pieces of about `want` bytes falls on a line boundary.
#[inline]
pub fn cut_after_newline(bytes: &[u8], want: usize) -> usize {
    memchr::memchr(b'\n', &bytes[want..]).map_or(bytes.len(), |i| want + i + 1)
}

/// Where to cut `bytes[start..]` (`start` begins a line) into pieces of about `size` bytes
/// searched in parallel: `start`, the offset just after the first `\n` at or past each
/// piece's size, and the length. Consecutive pairs bound whole lines.
pub fn piece_bounds(bytes: &[u8], start: usize, size: usize) -> Vec<usize> {
    let mut bounds = vec![start];
    let mut at = start;
    while at < bytes.len() {
        at = cut_after_newline(bytes, (at + size.max(1)).min(bytes.len()));
        bounds.push(at);
    }
    if bounds.len() == 1 {
        bounds.push(bytes.len());
    }
    bounds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_whole_lines_of_about_the_size_asked() {
        let text = b"aaaa\nbb\ncccccc\nd\n";
        assert_eq!(piece_bounds(text, 0, 3), vec![0, 5, 15, 17]);
        assert_eq!(piece_bounds(text, 5, 100), vec![5, 17]);
        assert_eq!(piece_bounds(b"no newline", 0, 4), vec![0, 10]);
        assert_eq!(piece_bounds(b"", 0, 4), vec![0, 0]);
        // Every piece ends after a newline or at the end.
        let bounds = piece_bounds(text, 0, 1);
        for w in bounds.windows(2) {
            assert!(w[1] == text.len() || text[w[1] - 1] == b'\n');
        }
    }

    fn naive_lines(bytes: &[u8]) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' {
                out.push(start..i + 1);
                start = i + 1;
            }
        }
        if start < bytes.len() {
            out.push(start..bytes.len());
        }
        out
    }

    fn check(bytes: &[u8]) {
        let idx = LineIndex::build(bytes);
        let naive = naive_lines(bytes);
        assert_eq!(idx.total_lines(bytes), naive.len() as u64);
        // Every line of small inputs; a stride through big ones (each lookup scans a block).
        let stride = (naive.len() / 2000).max(1);
        for (i, r) in naive.iter().enumerate().step_by(stride) {
            let n = i as u64 + 1;
            assert_eq!(idx.line_range(bytes, n, n), r.clone(), "line {n}");
            assert_eq!(idx.line_of_offset(bytes, r.start), n);
        }
        assert_eq!(
            idx.line_start(bytes, naive.len() as u64 + 1),
            Some(bytes.len())
        );
        assert_eq!(idx.line_start(bytes, naive.len() as u64 + 2), None);
    }

    /// A deterministic pseudo-random byte stream with newlines at varying density.
    fn sample(len: usize, seed: u64, density: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x.is_multiple_of(density) {
                    b'\n'
                } else {
                    b'a' + (x % 26) as u8
                }
            })
            .collect()
    }

    #[test]
    fn matches_naive_on_small_inputs() {
        for s in [
            &b""[..],
            b"\n",
            b"\n\n",
            b"a",
            b"a\n",
            b"a\nb",
            b"a\nb\n",
            b"\na\n\nb",
        ] {
            check(s);
        }
    }

    #[test]
    fn matches_naive_across_blocks() {
        for (len, density) in [
            (BLOCK * 3 + 17, 40),
            (BLOCK * 2, 3),
            (BLOCK + 1, 100_000),
            (PARALLEL_MIN + BLOCK + 5, 60),
        ] {
            let bytes = sample(len, len as u64, density);
            check(&bytes);
        }
    }

    #[test]
    fn newline_exactly_at_block_edges() {
        let mut bytes = vec![b'x'; BLOCK * 2 + 1];
        bytes[BLOCK - 1] = b'\n';
        bytes[BLOCK] = b'\n';
        bytes[2 * BLOCK - 1] = b'\n';
        check(&bytes);
    }

    #[test]
    fn extends_when_the_file_only_grew() {
        let mut bytes = sample(BLOCK * 2 + 300, 7, 50);
        let idx = LineIndex::build(&bytes);
        bytes.extend_from_slice(&sample(BLOCK + 11, 9, 30));
        let grown = idx.extended(&bytes).expect("an append is recognised");
        let fresh = LineIndex::build(&bytes);
        assert_eq!(grown.before, fresh.before);
        assert_eq!(grown.total_lines(&bytes), fresh.total_lines(&bytes));
    }

    #[test]
    fn a_rewrite_is_not_an_append() {
        let bytes = sample(BLOCK + 300, 7, 50);
        let idx = LineIndex::build(&bytes);
        let mut changed = bytes.clone();
        let last = changed.len() - 1;
        changed[last] ^= 1;
        changed.extend_from_slice(b"more\n");
        assert!(idx.extended(&changed).is_none());
        assert!(idx.extended(&bytes[..100]).is_none());
    }

    #[test]
    fn memory_is_bounded_by_blocks_not_lines() {
        let bytes = vec![b'\n'; BLOCK * 8];
        let idx = LineIndex::build(&bytes);
        assert_eq!(idx.total_lines(&bytes), (BLOCK * 8) as u64);
        assert!(idx.heap_bytes() <= 16 * 8);
    }
}
