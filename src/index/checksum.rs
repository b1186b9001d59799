//! The checksums of the index's files: one over all of a file's bytes (checked when a
//! segment is opened in full, and recorded by the manifest), and one per page of a segment
//! (checked for the pages a search reads, after it read them), so that a byte changed in
//! place after a segment was mapped is seen by the search that reads it, at a cost in
//! proportion to the bytes it reads.

/// Bytes of one checked page of a segment: a search that reads a few bytes checks a page
/// (about 20 ns); the sums cost 4 bytes a page (1.6% of a segment).
pub(super) const PAGE: usize = 256;

/// A 64-bit checksum (multiply-rotate over 8-byte words in four lanes): fast enough to check
/// a 200 MB file in a fraction of a second, and any damaged or cut byte changes it.
pub(super) fn checksum(bytes: &[u8]) -> u64 {
    let mut h = Hasher::default();
    h.update(bytes);
    h.finish()
}

const K: u64 = 0x9E37_79B9_7F4A_7C15;

fn mix(lanes: &mut [u64; 4], c: &[u8]) {
    for (i, lane) in lanes.iter_mut().enumerate() {
        let w = u64::from_le_bytes(c[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        *lane = (*lane ^ w).wrapping_mul(K).rotate_left(29);
    }
}

fn fold(lanes: &[u64; 4], rest: &[u8], len: u64) -> u64 {
    let h = lanes;
    let mut last = h[0] ^ h[1].rotate_left(17) ^ h[2].rotate_left(31) ^ h[3].rotate_left(47);
    for &b in rest {
        last = (last ^ u64::from(b)).wrapping_mul(K).rotate_left(29);
    }
    (last ^ len).wrapping_mul(K)
}

/// The checksum of page `k` of a segment (`bytes`: the page, shorter for the last one).
/// The page's number is part of it, so a page moved or copied elsewhere does not pass, and
/// a page of zeros does not have a sum of zeros.
pub(super) fn page_sum(k: u64, bytes: &[u8]) -> u32 {
    let mut lanes = [K ^ k, K ^ !k, K ^ k.rotate_left(32), K ^ 0x5a5a];
    let mut chunks = bytes.chunks_exact(32);
    for c in &mut chunks {
        mix(&mut lanes, c);
    }
    let h = fold(&lanes, chunks.remainder(), bytes.len() as u64);
    (h ^ (h >> 32)) as u32
}

/// The streaming form of [`checksum`].
pub(super) struct Hasher {
    lanes: [u64; 4],
    pending: Vec<u8>,
    len: u64,
}

impl Default for Hasher {
    fn default() -> Hasher {
        Hasher {
            lanes: [K, K ^ 1, K ^ 2, K ^ 3],
            pending: Vec::with_capacity(32),
            len: 0,
        }
    }
}

impl Hasher {
    pub(super) fn update(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len() as u64;
        if !self.pending.is_empty() {
            let n = (32 - self.pending.len()).min(bytes.len());
            self.pending.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            if self.pending.len() < 32 {
                return;
            }
            let p = std::mem::take(&mut self.pending);
            mix(&mut self.lanes, &p);
            self.pending = p;
            self.pending.clear();
        }
        let mut chunks = bytes.chunks_exact(32);
        for c in &mut chunks {
            mix(&mut self.lanes, c);
        }
        self.pending.extend_from_slice(chunks.remainder());
    }

    pub(super) fn finish(&self) -> u64 {
        fold(&self.lanes, &self.pending, self.len)
    }
}

/// The page sums of bytes written in order (see [`page_sum`]).
#[derive(Default)]
pub(super) struct PageSums {
    /// The bytes of the page being filled.
    page: Vec<u8>,
    pub(super) sums: Vec<u32>,
}

impl PageSums {
    pub(super) fn update(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.page.is_empty() && bytes.len() >= PAGE {
                let k = self.sums.len() as u64;
                self.sums.push(page_sum(k, &bytes[..PAGE]));
                bytes = &bytes[PAGE..];
                continue;
            }
            let n = (PAGE - self.page.len()).min(bytes.len());
            self.page.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            if self.page.len() == PAGE {
                let k = self.sums.len() as u64;
                self.sums.push(page_sum(k, &self.page));
                self.page.clear();
            }
        }
    }

    /// The sums of every page, the last one (shorter) included.
    pub(super) fn finish(mut self) -> Vec<u32> {
        if !self.page.is_empty() {
            let k = self.sums.len() as u64;
            self.sums.push(page_sum(k, &self.page));
        }
        self.sums
    }
}

/// The pages (numbers) that hold bytes `start..end`.
pub(super) fn pages_of(start: u64, end: u64) -> std::ops::Range<u64> {
    if end <= start {
        return 0..0;
    }
    start / PAGE as u64..(end - 1) / PAGE as u64 + 1
}

/// The first of the pages `pages` of `data` (whose first `covered` bytes are paged, their
/// sums following at `covered` as little-endian u32s) that does not match its sum.
pub(super) fn first_mismatch(
    data: &[u8],
    covered: usize,
    pages: std::ops::Range<u64>,
) -> Option<u64> {
    pages.into_iter().find(|&k| {
        let start = k as usize * PAGE;
        let page = data.get(start..(start + PAGE).min(covered));
        let at = covered + k as usize * 4;
        let sum = data.get(at..at + 4);
        match (page, sum) {
            (Some(p), Some(s)) if start < covered => {
                page_sum(k, p) != u32::from_le_bytes(s.try_into().expect("4"))
            }
            _ => true,
        }
    })
}

/// Whether every page of `pages` matches its sum (see [`first_mismatch`]).
pub(super) fn pages_match(data: &[u8], covered: usize, pages: std::ops::Range<u64>) -> bool {
    first_mismatch(data, covered, pages).is_none()
}

/// The byte ranges of a segment's data read since they were last checked (see eval's module
/// docs), or nothing when the reader checks all of it anyway (a merge).
pub(super) struct Reads {
    ranges: Vec<(u64, u64)>,
    record: bool,
}

impl Default for Reads {
    fn default() -> Reads {
        Reads {
            ranges: Vec::new(),
            record: true,
        }
    }
}

impl Reads {
    /// Reads that are not recorded: the caller checks the whole segment.
    pub(super) fn unrecorded() -> Reads {
        Reads {
            ranges: Vec::new(),
            record: false,
        }
    }

    /// Records that bytes `start..end` were read.
    pub(super) fn add(&mut self, start: u64, end: u64) {
        if !self.record || end <= start {
            return;
        }
        match self.ranges.last_mut() {
            Some(last) if start >= last.0 && start <= last.1 => last.1 = last.1.max(end),
            _ => self.ranges.push((start, end)),
        }
    }

    /// Adds the reads of `other` (recorded elsewhere, for the same segment).
    pub(super) fn extend(&mut self, other: Reads) {
        if self.record {
            self.ranges.extend(other.ranges);
        }
    }

    pub(super) fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checksum_sees_every_byte() {
        let a = vec![7u8; 1000];
        let base = checksum(&a);
        for i in [0, 31, 32, 500, 999] {
            let mut b = a.clone();
            b[i] ^= 1;
            assert_ne!(checksum(&b), base, "{i}");
        }
        assert_ne!(checksum(&a[..999]), base);
        let mut h = Hasher::default();
        for c in a.chunks(7) {
            h.update(c);
        }
        assert_eq!(h.finish(), base);
    }

    #[test]
    fn page_sums_see_every_byte_and_where_a_page_is() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut p = PageSums::default();
        for c in data.chunks(100) {
            p.update(c);
        }
        let sums = p.finish();
        assert_eq!(sums.len(), 4);
        let mut file = data.clone();
        file.extend(sums.iter().flat_map(|s| s.to_le_bytes()));
        assert!(pages_match(&file, 1000, 0..4));
        for i in [0, 255, 256, 700, 999] {
            let mut f = file.clone();
            f[i] ^= 0x20;
            assert!(
                !pages_match(&f, 1000, pages_of(i as u64, i as u64 + 1)),
                "{i}"
            );
            assert!(pages_match(&f, 1000, 0..(i / PAGE) as u64), "{i}");
        }
        // Zeros with zeroed sums, and a page copied over another, do not pass.
        let mut f = file.clone();
        f[256..512].fill(0);
        f[1004..1008].fill(0);
        assert!(!pages_match(&f, 1000, 1..2));
        let mut f = file.clone();
        f.copy_within(0..256, 256);
        f.copy_within(1000..1004, 1004);
        assert!(!pages_match(&f, 1000, 1..2));
        // Past the paged bytes: no page.
        assert!(!pages_match(&file, 1000, 4..5));
        assert_eq!(pages_of(0, 0), 0..0);
        assert_eq!(pages_of(255, 257), 0..2);
    }
}
