//! `LineIndex` against a naive line split.
//!
//! The input is expanded before indexing so that small inputs reach the 64 KiB checkpoint
//! blocks: `0xFF hi lo` inserts `hi << 8 | lo` bytes of `x`, `0xFE n` inserts `n` newlines,
//! any other byte is itself. (Newline runs are kept short: each lookup scans its block newline
//! by newline, which costs much under the fuzzer's instrumentation.) The last two input bytes (when present) choose where
//! the text is cut for the `extended` check and seed the sampled lookups.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mapgrep::LineIndex;
use mapgrep::lines::BLOCK;

/// Largest expanded text (a few blocks, so every exec stays cheap).
const MAX_LEN: usize = 3 * BLOCK + 1024;

/// Most newlines `0xFE` runs insert in all.
const MAX_INSERTED_NEWLINES: usize = 1024;

fn expand(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut inserted = 0;
    let mut i = 0;
    while i < data.len() && out.len() < MAX_LEN {
        match data[i] {
            0xFF if i + 2 < data.len() => {
                let n = usize::from(data[i + 1]) << 8 | usize::from(data[i + 2]);
                out.resize(out.len() + n.min(MAX_LEN - out.len()), b'x');
                i += 3;
            }
            0xFE if i + 1 < data.len() => {
                let n = usize::from(data[i + 1]).min(MAX_INSERTED_NEWLINES - inserted);
                inserted += n;
                out.resize(out.len() + n.min(MAX_LEN - out.len()), b'\n');
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// Each line's byte range, terminator included.
fn naive_lines(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
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

/// xorshift64, for sampling lines and offsets deterministically from the input.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
}

fuzz_target!(|data: &[u8]| {
    let bytes = expand(data);
    let naive = naive_lines(&bytes);
    let total = naive.len() as u64;
    let newlines: Vec<usize> = bytes
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .map(|(i, _)| i)
        .collect();
    let idx = LineIndex::build(&bytes);

    assert_eq!(idx.len(), bytes.len());
    assert_eq!(idx.is_empty(), bytes.is_empty());
    assert_eq!(idx.newlines(), newlines.len() as u64);
    assert_eq!(idx.total_lines(&bytes), total);

    // The line holding each offset, naively: 1 + newlines before it.
    let line_of = |offset: usize| -> u64 {
        let offset = offset.min(bytes.len());
        newlines.partition_point(|&n| n < offset) as u64 + 1
    };
    // Lines `first..=last` clamped as `line_range` documents.
    let naive_range = |first: u64, last: u64| -> std::ops::Range<usize> {
        let last = last.min(total);
        if first == 0 || first > last {
            return bytes.len()..bytes.len();
        }
        naive[first as usize - 1].start..naive[last as usize - 1].end
    };

    let seed = data
        .iter()
        .rev()
        .take(8)
        .fold(0x9E37_79B9_7F4A_7C15u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    let mut rng = Rng(seed | 1);

    // Lines to check: the first and last few, those around every block edge, some at random.
    let mut lines: Vec<u64> = (0..=3).chain(total.saturating_sub(3)..=total + 2).collect();
    let mut edge = BLOCK;
    while edge <= bytes.len() + 1 {
        for off in [edge.saturating_sub(1), edge, edge + 1] {
            lines.push(line_of(off));
        }
        edge += BLOCK;
    }
    for _ in 0..24 {
        lines.push(rng.below(total + 3));
    }

    for &n in &lines {
        // line_start
        let want_start = match n {
            0 => None,
            n if n <= total => Some(naive[n as usize - 1].start),
            n if n == total + 1 => Some(bytes.len()),
            _ => None,
        };
        assert_eq!(idx.line_start(&bytes, n), want_start, "line_start({n})");
        // A single line, and a run from it.
        assert_eq!(
            idx.line_range(&bytes, n, n),
            naive_range(n, n),
            "line_range({n},{n})"
        );
        let last = n + rng.below(5);
        assert_eq!(
            idx.line_range(&bytes, n, last),
            naive_range(n, last),
            "line_range({n},{last})"
        );
        // nth_newline
        let want_nl = match n {
            0 => None,
            k => newlines.get(k as usize - 1).copied(),
        };
        assert_eq!(idx.nth_newline(&bytes, n), want_nl, "nth_newline({n})");
        if (1..=total).contains(&n) {
            let r = &naive[n as usize - 1];
            assert_eq!(idx.line_of_offset(&bytes, r.start), n);
            assert_eq!(idx.line_of_offset(&bytes, r.end - 1), n);
        }
    }
    // Whole-file and clamped ranges.
    assert_eq!(
        idx.line_range(&bytes, 1, u64::MAX),
        naive_range(1, u64::MAX)
    );
    assert_eq!(
        idx.line_range(&bytes, 0, u64::MAX),
        bytes.len()..bytes.len()
    );
    assert_eq!(
        idx.line_range(&bytes, total + 1, total + 5),
        bytes.len()..bytes.len()
    );
    assert_eq!(idx.line_start(&bytes, u64::MAX), None);
    assert_eq!(idx.nth_newline(&bytes, u64::MAX), None);

    // line_of_offset at block edges, at random, at and past the end.
    let mut offsets = vec![0, bytes.len(), bytes.len() + 1, usize::MAX];
    let mut edge = BLOCK;
    while edge <= bytes.len() + 1 {
        offsets.extend([edge - 1, edge, edge + 1]);
        edge += BLOCK;
    }
    for _ in 0..16 {
        offsets.push(rng.below(bytes.len() as u64 + 1) as usize);
    }
    for off in offsets {
        assert_eq!(
            idx.line_of_offset(&bytes, off),
            line_of(off),
            "line_of_offset({off})"
        );
    }

    // `extended`: index a prefix, then the whole text.
    let cut = if bytes.is_empty() {
        0
    } else {
        rng.below(bytes.len() as u64 + 1) as usize
    };
    let fresh = format!("{idx:?}");
    let prefix = LineIndex::build(&bytes[..cut]);
    let grown = prefix
        .extended(&bytes)
        .expect("an append to the indexed bytes is recognised");
    assert_eq!(
        format!("{grown:?}"),
        fresh,
        "extended from {cut} differs from a fresh build"
    );
    assert_eq!(grown.total_lines(&bytes), total);
    // Extending to the same bytes is a no-op.
    let same = idx.extended(&bytes).expect("same bytes");
    assert_eq!(format!("{same:?}"), fresh);
    // Shorter bytes, or one changed byte among the fingerprinted tail, are not an append.
    if cut > 0 {
        assert!(prefix.extended(&bytes[..cut - 1]).is_none());
        let mut changed = bytes.clone();
        let at = cut - 1 - rng.below(cut.min(4096) as u64) as usize;
        changed[at] ^= 1 << rng.below(8);
        assert!(
            prefix.extended(&changed).is_none(),
            "a change at {at} within the fingerprinted tail of {cut} bytes was taken for an append"
        );
    }
});
