//! `read::read` (the `read_files` engine: whole, head, tail, start/end line,
//! `read_to_next_pattern`) and `read::read_page` against a naive line split, through a file
//! in a temporary root, over the read and the mmap code paths and with small output budgets.

#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use mapgrep::read::{self, Note, ReadError};
use mapgrep::{Error, ReadRequest, Roots, WorkspaceBuilder};

/// One temporary root for the whole run; the file in it is overwritten by every exec.
fn root() -> &'static PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    static CANON: OnceLock<PathBuf> = OnceLock::new();
    CANON.get_or_init(|| {
        let dir = DIR.get_or_init(|| tempfile::tempdir().expect("a temporary directory"));
        dir.path().canonicalize().expect("canonical temp dir")
    })
}

/// Boundary patterns: the literal an anchored one needs at a line start (`None` for `^$`),
/// or the literal an unanchored one needs anywhere.
const PATTERNS: [(&str, Pat); 6] = [
    (r"^\[LOG-", Pat::Start(b"[LOG-")),
    (r"^## ", Pat::Start(b"## ")),
    (r"^#+ ", Pat::Hashes),
    (r"^$", Pat::Empty),
    (r"Phase", Pat::Anywhere(b"Phase")),
    (r"^```", Pat::Start(b"```")),
];

#[derive(Clone, Copy)]
enum Pat {
    Start(&'static [u8]),
    /// `#+ `
    Hashes,
    Empty,
    Anywhere(&'static [u8]),
}

/// Whether `pat` matches the line `line` (its terminator included): lines end at `\n` only,
/// and a pattern sees a line's content (without `\n` and one `\r` before it), so a bare `\r`
/// is no line boundary (found by this target: `^` used to match after one).
fn line_matches(pat: Pat, line: &[u8]) -> bool {
    let rest = content(line);
    match pat {
        Pat::Anywhere(lit) => rest.windows(lit.len()).any(|w| w == lit),
        Pat::Start(lit) => rest.starts_with(lit),
        Pat::Hashes => {
            let hashes = rest.iter().take_while(|&&b| b == b'#').count();
            hashes > 0 && rest.get(hashes) == Some(&b' ')
        }
        Pat::Empty => rest.is_empty(),
    }
}

/// A line number as the fuzzer picks it: mostly small, sometimes ≤ 0 or huge.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Num {
    Small(u8),
    Neg(i8),
    Huge(bool),
}

impl Num {
    fn get(self) -> i64 {
        match self {
            Num::Small(n) => i64::from(n),
            Num::Neg(n) => -i64::from(n.unsigned_abs()),
            Num::Huge(true) => i64::MAX,
            Num::Huge(false) => i64::from(u32::MAX) + 1,
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Kind {
    Whole,
    Head(Num),
    Tail(Num),
    Start(Num),
    End(Num),
    StartEnd(Num, Num),
    ToNext(Num, u8),
    Page(u8, Option<u8>),
}

#[derive(Arbitrary, Debug)]
struct Input {
    kind: Kind,
    mmap: bool,
    /// `None`: no budget; else a small one, to exercise cutting.
    budget: Option<u8>,
    text: Vec<u8>,
}

fn naive_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            out.push(&bytes[start..=i]);
            start = i + 1;
        }
    }
    if start < bytes.len() {
        out.push(&bytes[start..]);
    }
    out
}

/// A line's content: without `\n`, then without one `\r`.
fn content(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// What the naive model expects of a request.
enum Want {
    ParamError,
    /// 1-based inclusive lines (`last < first`: nothing) and notes.
    Lines(u64, u64, Vec<Note>),
}

fn model(kind: &Kind, lines: &[&[u8]]) -> Want {
    let total = lines.len() as u64;
    let bad = |v: i64| v < 1;
    match *kind {
        Kind::Whole => Want::Lines(1, total, vec![]),
        Kind::Head(n) => {
            let n = n.get();
            if bad(n) {
                return Want::ParamError;
            }
            Want::Lines(1, (n as u64).min(total), vec![])
        }
        Kind::Tail(n) => {
            let n = n.get();
            if bad(n) {
                return Want::ParamError;
            }
            Want::Lines(total - (n as u64).min(total) + 1, total, vec![])
        }
        Kind::Start(s) => {
            let s = s.get();
            if bad(s) || s as u64 > total {
                return Want::ParamError;
            }
            Want::Lines(s as u64, total, vec![])
        }
        Kind::End(e) => {
            let e = e.get();
            if bad(e) {
                return Want::ParamError;
            }
            range_end(1, e as u64, total)
        }
        Kind::StartEnd(s, e) => {
            let (s, e) = (s.get(), e.get());
            if bad(s) || bad(e) || e < s || s as u64 > total {
                return Want::ParamError;
            }
            range_end(s as u64, e as u64, total)
        }
        Kind::ToNext(s, p) => {
            let s = s.get();
            if bad(s) || s as u64 > total {
                return Want::ParamError;
            }
            let s = s as u64;
            let (pattern, pat) = PATTERNS[p as usize % PATTERNS.len()];
            // The first line after `s` that matches ends the read just before it.
            match (s as usize..lines.len()).find(|&i| line_matches(pat, lines[i])) {
                Some(i) => Want::Lines(s, i as u64, vec![]),
                None => Want::Lines(
                    s,
                    total,
                    vec![Note::PatternNotFound {
                        pattern: pattern.to_string(),
                        start_line: s,
                    }],
                ),
            }
        }
        Kind::Page(line, limit) => {
            let line = u64::from(line).max(1);
            let last = match limit {
                Some(l) => (line + u64::from(l)).saturating_sub(1),
                None => u64::MAX,
            };
            Want::Lines(line, last.min(total), vec![])
        }
    }
}

fn range_end(s: u64, e: u64, total: u64) -> Want {
    if e > total {
        Want::Lines(
            s,
            total,
            vec![Note::EndClamped {
                requested: e,
                total,
            }],
        )
    } else {
        Want::Lines(s, e, vec![])
    }
}

fn request(kind: &Kind) -> ReadRequest {
    let mut r = ReadRequest::new("f.txt");
    match *kind {
        Kind::Whole | Kind::Page(..) => {}
        Kind::Head(n) => r.head = Some(n.get()),
        Kind::Tail(n) => r.tail = Some(n.get()),
        Kind::Start(s) => r.start_line = Some(s.get()),
        Kind::End(e) => r.end_line = Some(e.get()),
        Kind::StartEnd(s, e) => {
            r.start_line = Some(s.get());
            r.end_line = Some(e.get());
        }
        Kind::ToNext(s, p) => {
            r.start_line = Some(s.get());
            r.read_to_next_pattern = Some(PATTERNS[p as usize % PATTERNS.len()].0.to_string());
        }
    }
    r
}

fuzz_target!(|input: Input| {
    let dir = root();
    std::fs::write(dir.join("f.txt"), &input.text).expect("write the file");
    // A fresh workspace per exec: nothing cached from an earlier version of the file.
    let ws = WorkspaceBuilder::new()
        .mmap_threshold(if input.mmap { 0 } else { u64::MAX })
        .build(Roots::new([dir]).expect("root"));
    let budget = input.budget.map_or(usize::MAX, usize::from);

    let raw = &input.text;
    let utf16 = raw.starts_with(b"\xFF\xFE") || raw.starts_with(b"\xFE\xFF");
    let utf8_bom = raw.starts_with(b"\xEF\xBB\xBF");
    // As `Source` classifies: a NUL in the first 64 KiB of a file without a byte-order mark.
    let binary = !utf16 && !utf8_bom && raw[..raw.len().min(64 * 1024)].contains(&0);

    let result = match &input.kind {
        Kind::Page(line, limit) => read::read_page(
            &ws,
            "f.txt",
            u64::from(*line).max(1),
            limit.map(u64::from),
            budget,
        )
        .map_err(ReadError::File),
        kind => read::read(&ws, &request(kind), budget),
    };

    if binary {
        // Parameter errors may come first; a valid request is refused as binary.
        match result {
            Err(ReadError::File(Error::Binary { .. })) | Err(ReadError::Param(_)) => {}
            other => panic!("a file with a NUL byte was read: {other:?}"),
        }
        return;
    }

    // The text as the engine reads it: after a UTF-8 BOM, UTF-16 transcoded.
    let text: Vec<u8> = if utf16 {
        let open = ws.open("f.txt").expect("open a UTF-16 file");
        open.bytes().to_vec()
    } else if utf8_bom {
        raw[3..].to_vec()
    } else {
        raw.clone()
    };
    let lines = naive_lines(&text);
    let total = lines.len() as u64;

    match (model(&input.kind, &lines), result) {
        (Want::ParamError, Err(ReadError::Param(_))) => {}
        (Want::ParamError, other) => panic!("expected a parameter error, got {other:?}"),
        (Want::Lines(..), Err(e)) => panic!("expected lines, got {e:?}"),
        (Want::Lines(first, last, notes), Ok(ex)) => {
            assert_eq!(ex.path, "f.txt");
            assert_eq!(ex.total_lines, total, "total_lines");
            if first > last || first > total {
                assert_eq!((ex.first_line, ex.last_line), (0, 0), "empty selection");
                assert_eq!(ex.text, "");
                assert_eq!(ex.notes, notes);
                return;
            }
            let want_bytes: Vec<u8> = lines[first as usize - 1..last as usize].concat();
            // Notes the range resolution adds come first, then those of the budget.
            assert!(
                ex.notes.starts_with(&notes),
                "notes {:?} want {notes:?}",
                ex.notes
            );
            let cut_notes = &ex.notes[notes.len()..];
            assert_eq!(ex.first_line, first, "first line");
            if want_bytes.len() <= budget {
                assert!(
                    cut_notes.is_empty(),
                    "cut notes without a cut: {cut_notes:?}"
                );
                assert_eq!(ex.last_line, last, "last line");
                assert_eq!(ex.text, String::from_utf8_lossy(&want_bytes), "text");
                return;
            }
            // Cut by the budget: whole lines that fit, or a prefix of the first line.
            assert!(ex.last_line >= first && ex.last_line <= last);
            let mut shown = lines[first as usize - 1..ex.last_line as usize].concat();
            let mut line_cut = false;
            for n in cut_notes {
                match *n {
                    Note::LineCut {
                        line,
                        shown: s,
                        len,
                    } => {
                        assert!(!line_cut, "two line cuts");
                        line_cut = true;
                        assert_eq!((line, ex.last_line), (first, first));
                        assert_eq!(len, lines[first as usize - 1].len());
                        assert!(s <= budget && s < len, "line cut shows {s} of {len}");
                        shown.truncate(s);
                    }
                    Note::Cut { next_line } => {
                        assert_eq!(next_line, ex.last_line + 1);
                    }
                    ref other => panic!("unexpected note {other:?}"),
                }
            }
            let has_cut = cut_notes.iter().any(|n| matches!(n, Note::Cut { .. }));
            assert_eq!(
                has_cut,
                ex.last_line < last,
                "Cut note iff lines were left out"
            );
            assert!(
                shown.len() <= budget,
                "{} bytes shown for a budget of {budget}",
                shown.len()
            );
            if !line_cut {
                // As many whole lines as fit.
                let next = lines[ex.last_line as usize].len();
                assert!(
                    shown.len() + next > budget,
                    "line {} would have fit",
                    ex.last_line + 1
                );
            }
            assert_eq!(
                ex.text,
                String::from_utf8_lossy(&shown),
                "text of a cut read"
            );
        }
    }
});
