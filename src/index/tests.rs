//! The index against the scan: same files, same candidates for what matches; indexed
//! search against the scan (and ripgrep where it is installed) over generated trees and
//! patterns; a tree edited in a loop while a watched index serves searches.

use std::path::Path;

use super::*;

fn tree(dir: &Path) {
    let w = |p: &str, s: &[u8]| {
        let p = dir.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, s).unwrap();
    };
    w("a.c", b"int PM_RESUME = 1;\nwakeup_source x;\n");
    w("sub/b.c", b"PM_SUSPEND here\n");
    w("sub/deeper/c.txt", b"nothing to see\n");
    w("bin.dat", b"PM_RESUME\0binary\n");
    w("ignored/x.c", b"PM_RESUME ignored\n");
    w(".gitignore", b"ignored/\n");
    w(".hidden/h.c", b"PM_RESUME hidden\n");
}

fn ids_for(ix: &TrigramIndex, p: &str) -> Vec<String> {
    let hir = line_hir(p, false).unwrap();
    let q = plan(&hir);
    ix.candidates(&q)
        .unwrap()
        .into_iter()
        .map(|i| String::from_utf8_lossy(&ix.file(i as usize).path).into_owned())
        .collect()
}

#[test]
fn built_in_memory_and_on_disk_the_index_answers_alike() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    std::fs::create_dir(root.join(".git")).unwrap();
    tree(&root);
    let cache = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(cache.path(), &root).unwrap());
    let p = BuildProgress::default();
    let mem = TrigramIndex::build(&root, None, 1 << 20, Shape::default(), &p)
        .unwrap()
        .unwrap();
    // A tiny budget: one block per file or so.
    let disk = TrigramIndex::build(&root, Some(&store), 64, Shape::default(), &p)
        .unwrap()
        .unwrap();
    assert!(disk.segments()[0].blocks.len() > 1);
    let names: Vec<_> = mem
        .files()
        .map(|f| String::from_utf8_lossy(&f.path).into_owned())
        .collect();
    assert_eq!(names, ["a.c", "bin.dat", "sub/b.c", "sub/deeper/c.txt"]);
    assert_eq!(mem.file(1).flags & FLAG_BINARY, FLAG_BINARY);
    for ix in [&mem, &disk] {
        assert_eq!(ids_for(ix, "PM_RESUME"), ["a.c"]);
        assert_eq!(ids_for(ix, "PM_RESUME|PM_SUSPEND"), ["a.c", "sub/b.c"]);
        assert_eq!(ids_for(ix, "[A-Z]+_SUSPEND"), ["sub/b.c"]);
        assert!(ids_for(ix, "zzzz").is_empty());
        assert_eq!(ix.under(b"sub"), 2..4);
        assert!(ix.walked_dir(b"sub/deeper"));
        assert!(!ix.walked_dir(b"ignored"));
    }
    // The files are private, and reopening them gives the same answers.
    let mode = |p: &Path| crate::platform::test_support::mode(&std::fs::metadata(p).unwrap());
    if crate::platform::test_support::supported() {
        for e in std::fs::read_dir(store.dir()).unwrap().flatten() {
            if e.file_type().unwrap().is_file() {
                assert_eq!(mode(&e.path()), 0o600, "{e:?}");
            }
        }
        assert_eq!(mode(store.dir()), 0o700);
    }
    let again = TrigramIndex::open(&store, None).unwrap().unwrap();
    assert_eq!(ids_for(&again, "PM_SUSPEND"), ["sub/b.c"]);
}

#[test]
fn a_damaged_foreign_or_open_index_file_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    tree(&root);
    let cache = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(cache.path(), &root).unwrap());
    let ix = TrigramIndex::build(
        &root,
        Some(&store),
        1 << 20,
        Shape::default(),
        &BuildProgress::default(),
    )
    .unwrap()
    .unwrap();
    let file = store.segment_path(ix.segments()[0].number);
    drop(ix);
    let open = || TrigramIndex::open(&store, None).map(|ix| ix.unwrap().len());
    // Another root's index.
    let other = tempfile::tempdir().unwrap();
    let theirs =
        Arc::new(Store::open(cache.path(), &other.path().canonicalize().unwrap()).unwrap());
    std::fs::copy(store.dir().join("MANIFEST"), theirs.dir().join("MANIFEST")).unwrap();
    let e = TrigramIndex::open(&theirs, None).unwrap_err();
    assert!(e.to_string().contains("indexes"), "{e}");
    // One flipped byte.
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[20] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    let e = open().unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
    assert!(e.to_string().contains(&*file.to_string_lossy()), "{e}");
    // Writable by others.
    bytes[20] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    assert!(open().is_ok());
    let set_mode = crate::platform::test_support::set_mode;
    if crate::platform::test_support::supported() {
        set_mode(&file, 0o666).unwrap();
        let e = open().unwrap_err();
        assert!(e.to_string().contains("writable"), "{e}");
    }
    // Cut short.
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    set_mode(&file, 0o600).unwrap();
    assert!(open().is_err());
    // A damaged manifest.
    let m = store.dir().join("MANIFEST");
    let mut mb = std::fs::read(&m).unwrap();
    mb[9] ^= 1;
    std::fs::write(&m, &mb).unwrap();
    let e = open().unwrap_err();
    assert!(e.to_string().contains("MANIFEST"), "{e}");
}

#[test]
fn the_build_budget_bounds_the_heap_of_posting_lists() {
    let mut seg = build::SegmentBuilder::new(8);
    let tris: Vec<u32> = (0..5000).collect();
    let masks = vec![0x81u8; tris.len()];
    let mut w = persist::Writer::in_memory();
    let budget = 256 * 1024;
    let mut peak = 0;
    let mut flushed = 0;
    for id in 0..200 {
        // Every other file with next masks.
        seg.add(id, &tris, if id % 2 == 0 { &masks } else { &[] });
        peak = peak.max(seg.heap());
        if seg.heap() >= budget {
            seg.flush(&mut w, id + 1).unwrap();
            flushed += 1;
        }
    }
    assert!(flushed > 1);
    // One file's lists past the budget at most (a new list: its entry, a few bytes).
    assert!(peak < budget + 5000 * (build::ENTRY_COST + 16), "{peak}");
}

use std::sync::Arc;
use std::time::Duration;

use crate::grep::{GrepQuery, Progress, search};
use crate::roots::Roots;
use crate::workspace::{Workspace, WorkspaceBuilder};

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.below(v.len())]
    }
}

const WORDS: &[&str] = &[
    "PM_RESUME",
    "pm_resume",
    "Pm_Resume",
    "PM_SUSPEND",
    "wakeup_source",
    "wakeup_sources",
    "device_wakeup_enable",
    "XYZ_RESUME",
    "A_RESUME",
    "résumé",
    "RÉSUMÉ",
    "λόγος",
    "ΛΌΓΟΣ",
    "日本語",
    "foo",
    "foobar",
    "bar",
    "baz",
    "color",
    "colour",
    "int",
    "return",
    "0x1f",
    "a.c",
    "abc",
    "abbc",
    "_",
    "ſtrange",
    "KELVIN",
    "kelvin",
];

fn text(r: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..r.below(12) + 1 {
        for _ in 0..r.below(8) {
            s.push_str(r.pick(WORDS));
            s.push_str(r.pick(&[" ", " ", "(", ") ", ";", "", "\t", ", "]));
        }
        s.push_str(r.pick(&["\n", "\n", "\r\n", "\n\n"]));
    }
    s
}

fn write_tree(root: &Path, r: &mut Rng, files: usize) {
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".gitignore"), "ignored/\n*.log\n").unwrap();
    for i in 0..files {
        let dir = r.pick(&[
            "",
            "src",
            "src/pm",
            "drivers/base",
            "ignored",
            ".hidden",
            "docs",
        ]);
        let ext = r.pick(&["c", "h", "txt", "log", "md"]);
        let p = root.join(dir).join(format!("f{i}.{ext}"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let mut body = text(r).into_bytes();
        if r.below(15) == 0 {
            body.insert(body.len() / 2, 0);
        }
        std::fs::write(p, body).unwrap();
    }
}

fn patterns(r: &mut Rng, n: usize) -> Vec<(String, bool, bool)> {
    let mut out = Vec::new();
    let fixed = [
        "PM_RESUME",
        "[A-Z]+_RESUME",
        "PM_SUSPEND|wakeup_source|device_wakeup_enable|XYZ_RESUME",
        r"\bwakeup_source\b",
        "^foo",
        "bar$",
        "colou?r",
        "ab+c",
        "a.c",
        "(foo|bar)baz",
        "résumé",
        "λόγος",
        "日本",
        r"\p{Greek}+",
        r"\w{5}\s+\w{3}",
        "[0-9]x[0-9a-f]+",
        "kelvin",
        "strange",
        "RESUME$",
        "^$",
    ];
    for p in fixed {
        out.push((p.to_string(), false, false));
        out.push((p.to_string(), true, false));
        out.push((p.to_string(), false, true));
    }
    while out.len() < n {
        let w = r.pick(WORDS);
        let mut cut = w.char_indices().map(|(i, _)| i).collect::<Vec<_>>();
        cut.push(w.len());
        let a = cut[r.below(cut.len())];
        let b = cut[r.below(cut.len())];
        let (a, b) = (a.min(b), a.max(b));
        let piece = regex_syntax::escape(&w[a..b]);
        let p = match r.below(7) {
            0 => piece,
            1 => format!("{piece}|{}", regex_syntax::escape(r.pick(WORDS))),
            2 => format!("[A-Z]+{piece}"),
            3 => format!("^{piece}"),
            4 => format!("{piece}.?{}", regex_syntax::escape(r.pick(WORDS))),
            5 => format!("(?:{piece})+_"),
            _ => format!("{piece}[a-z]*"),
        };
        if p.is_empty() {
            continue;
        }
        out.push((p, r.below(3) == 0, r.below(4) == 0));
    }
    out
}

fn run(
    ws: &Workspace,
    p: &str,
    ci: bool,
    word: bool,
    path: Option<&str>,
) -> Vec<(String, u64, String)> {
    let q = GrepQuery {
        case_insensitive: ci,
        word,
        max_results: 100_000,
        search_paths: path.map(|p| vec![p.to_string()]).unwrap_or_default(),
        section_patterns: Some(Vec::new()),
        ..GrepQuery::new(p)
    };
    let r = search(ws, &q, &Progress::default()).unwrap();
    r.matches
        .into_iter()
        .map(|m| (m.path, m.line, m.text))
        .collect()
}

fn indexed_ws(root: &Path, watch: bool) -> Workspace {
    let ws = WorkspaceBuilder::new()
        .content_budget(1 << 20)
        .build(Roots::new([root]).unwrap());
    let opts = IndexOptions {
        dir: None,
        watch,
        rebuild_after: Duration::from_millis(300),
        // Tiny pieces: most generated files are indexed in several, so every comparison
        // with the scan also checks searches restricted to the pieces that can match; and
        // next masks on about half the files and most lists, so that it checks searches
        // that use them, with and without.
        shape: Shape {
            piece: 48,
            masks_min_file: 100,
            masks_min_list: 3,
        },
        ..IndexOptions::default()
    };
    start(&ws, &opts);
    assert!(wait_ready(&ws, Duration::from_secs(30)));
    ws
}

#[path = "../../tests/support/rg_lines.rs"]
mod rg_lines;

/// Whether a ripgrep is at hand to compare with.
fn has_rg() -> bool {
    rg_lines::ripgrep().is_some()
}

/// ripgrep's `(path, line)` pairs for a search of `root` (paths below it), sorted.
fn rg_lines(root: &Path, p: &str, ci: bool, word: bool) -> Option<Vec<(String, u64)>> {
    let mut args = vec!["--no-config", "--crlf", "-H"];
    if ci {
        args.push("-i");
    }
    if word {
        args.push("-w");
    }
    args.extend(["-e", p, "."]);
    let found = rg_lines::matching_lines(root, &args)?;
    let below = |path: String| path.trim_start_matches("./").to_string();
    let mut v: Vec<_> = found.into_iter().map(|(f, l)| (below(f), l)).collect();
    v.sort();
    Some(v)
}

/// (path, line) pairs, sorted.
type Lines = Vec<(String, u64)>;

/// The (path, line) pairs of `ours` and of ripgrep for the same search, sorted. ripgrep
/// reports the lines before a NUL of a binary file; the scan skips the file: such files are
/// left out of ripgrep's side.
fn against_rg(
    root: &Path,
    p: &str,
    ci: bool,
    word: bool,
    ours: &[(String, u64, String)],
) -> (Lines, Lines) {
    let rg: Vec<_> = rg_lines(root, p, ci, word)
        .unwrap()
        .into_iter()
        .filter(|(f, _)| !std::fs::read(root.join(f)).unwrap_or_default().contains(&0))
        .collect();
    let mut ours: Vec<(String, u64)> = ours.iter().map(|(p, l, _)| (p.clone(), *l)).collect();
    ours.sort();
    (ours, rg)
}

#[test]
fn indexed_results_equal_the_scan_and_ripgrep_over_generated_trees() {
    let has_rg = has_rg();
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let mut checked = 0;
    for tree in 0..3 {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        write_tree(&root, &mut r, 40 + tree * 30);
        let scan = Workspace::new(Roots::new([&root]).unwrap());
        let ix = indexed_ws(&root, tree != 1);
        let mut used = 0;
        for (p, ci, word) in patterns(&mut r, 150) {
            let want = run(&scan, &p, ci, word, None);
            let got = run(&ix, &p, ci, word, None);
            assert_eq!(got, want, "pattern {p:?} ci={ci} word={word}");
            let sub = run(&ix, &p, ci, word, Some("src"));
            assert_eq!(sub, run(&scan, &p, ci, word, Some("src")), "{p:?} in src");
            if has_rg && !word {
                let (ours, rg) = against_rg(&root, &p, ci, word, &want);
                assert_eq!(ours, rg, "ripgrep differs for {p:?} ci={ci}");
            }
            let q = GrepQuery {
                case_insensitive: ci,
                word,
                ..GrepQuery::new(&p)
            };
            if search(&ix, &q, &Progress::default())
                .unwrap()
                .index
                .is_some()
            {
                used += 1;
            }
            checked += 1;
        }
        assert!(used > 50, "the index served {used} of the patterns");
    }
    assert!(checked >= 450);
}

#[test]
fn context_cursors_globs_and_caps_are_those_of_the_scan() {
    let mut r = Rng(42);
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    write_tree(&root, &mut r, 80);
    let scan = Workspace::new(Roots::new([&root]).unwrap());
    let ix = indexed_ws(&root, true);
    for p in ["PM_RESUME", "[A-Z]+_RESUME", "foo|wakeup_source"] {
        for q in [
            GrepQuery {
                before_context: 2,
                after_context: 1,
                ..GrepQuery::new(p)
            },
            GrepQuery {
                max_results: 3,
                ..GrepQuery::new(p)
            },
            GrepQuery {
                globs: vec!["*.c".into(), "!src/pm/**".into()],
                ..GrepQuery::new(p)
            },
            GrepQuery {
                include_hidden: true,
                include_ignored: true,
                ..GrepQuery::new(p)
            },
            GrepQuery {
                max_filesize: Some(200),
                ..GrepQuery::new(p)
            },
        ] {
            let mut a = search(&scan, &q, &Progress::default()).unwrap();
            let mut b = search(&ix, &q, &Progress::default()).unwrap();
            loop {
                assert_eq!(a.matches, b.matches, "{q:?}");
                assert_eq!(a.next_cursor, b.next_cursor);
                if !a.truncated {
                    // A cut scan stops before the files after the cut, binary ones too.
                    assert_eq!(a.binary_skipped, b.binary_skipped, "{q:?}");
                }
                let Some(c) = a.next_cursor.clone() else {
                    break;
                };
                let next = GrepQuery {
                    cursor: Some(c),
                    ..q.clone()
                };
                a = search(&scan, &next, &Progress::default()).unwrap();
                b = search(&ix, &next, &Progress::default()).unwrap();
            }
        }
    }
}

/// What an indexed answer (`a`) and the scan's (`b`) disagree on, in a few short lines: the
/// whole answers would push the message out of a log's tail.
fn mismatch<T: std::fmt::Debug + PartialEq>(a: &[T], b: &[T], what: &str) -> String {
    let only = |x: &[T], y: &[T]| -> Vec<String> {
        x.iter()
            .filter(|m| !y.contains(m))
            .take(4)
            .map(|m| format!("{m:?}"))
            .collect()
    };
    format!(
        "{what}: the index gave {} matches, the scan {}; only the index's: {:?}; only the scan's: {:?}",
        a.len(),
        b.len(),
        only(a, b),
        only(b, a)
    )
}

/// Makes one random edit under `root` and says what it did.
fn edit(root: &Path, r: &mut Rng, names: &mut Vec<String>) -> String {
    let dirs = ["", "src", "src/pm", "new", "ignored"];
    match r.below(6) {
        0 | 1 => {
            let n = format!("{}/e{}.c", r.pick(&dirs), r.next() % 1000);
            let p = root.join(n.trim_start_matches('/'));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text(r)).unwrap();
            names.push(n.trim_start_matches('/').to_string());
            format!("wrote new {n}")
        }
        2 if !names.is_empty() => {
            let n = names[r.below(names.len())].clone();
            let done = std::fs::write(root.join(&n), text(r));
            format!("rewrote {n}: {done:?}")
        }
        3 if !names.is_empty() => {
            let i = r.below(names.len());
            let to = format!("{}/m{}.h", r.pick(&dirs), r.next() % 1000);
            let to = to.trim_start_matches('/').to_string();
            let dest = root.join(&to);
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            let done = std::fs::rename(root.join(&names[i]), &dest);
            let what = format!("renamed {} to {to}: {done:?}", names[i]);
            if done.is_ok() {
                names[i] = to;
            }
            what
        }
        4 if !names.is_empty() => {
            let i = r.below(names.len());
            let n = names.swap_remove(i);
            let done = std::fs::remove_file(root.join(&n));
            format!("removed {n}: {done:?}")
        }
        _ => {
            // Appends keep size-only checks honest: same name, new bytes.
            let Some(n) = names.first() else {
                return "nothing".into();
            };
            use std::io::Write;
            let done = std::fs::OpenOptions::new()
                .append(true)
                .open(root.join(n))
                .and_then(|mut f| f.write_all(b"PM_RESUME appended\n"));
            format!("appended to {n}: {done:?}")
        }
    }
}

fn freshness(cycles: usize, seed: u64) {
    let mut r = Rng(seed);
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    write_tree(&root, &mut r, 30);
    let ix = indexed_ws(&root, true);
    let mut names = Vec::new();
    let pats = [
        "PM_RESUME",
        "[A-Z]+_RESUME",
        "wakeup_source|foobar",
        "résumé",
    ];
    for cycle in 0..cycles {
        let edited = edit(&root, &mut r, &mut names);
        let scan = Workspace::new(Roots::new([&root]).unwrap());
        let p = pats[cycle % pats.len()];
        let (a, b) = (
            run(&ix, p, cycle % 3 == 0, false, None),
            run(&scan, p, cycle % 3 == 0, false, None),
        );
        if a != b {
            panic!(
                "{}",
                mismatch(&a, &b, &format!("cycle {cycle} ({edited}), pattern {p}"))
            );
        }
        if cycle % 50 == 25 {
            // Let a background rebuild take the dirty files in now and then.
            std::thread::sleep(Duration::from_millis(400));
        }
    }
    let st = status(&ix);
    assert!(
        matches!(st[0].1, IndexStatus::Ready { watched: true, .. }),
        "{st:?}"
    );
}

#[test]
fn every_search_during_edits_equals_a_fresh_scan() {
    freshness(120, 7);
}

/// The long run of the freshness test (`cargo test --lib -- --ignored freshness_long`).
#[test]
#[ignore]
fn freshness_long() {
    freshness(1000, 11);
}

#[test]
fn a_restarted_workspace_uses_its_persisted_index() {
    let mut r = Rng(5);
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    write_tree(&root, &mut r, 50);
    let cache = tempfile::tempdir().unwrap();
    let opts = IndexOptions {
        dir: Some(cache.path().join("index")),
        ..IndexOptions::default()
    };
    let file = dir_for(opts.dir.as_ref().unwrap(), &root).join("MANIFEST");
    {
        let ws = WorkspaceBuilder::new().build(Roots::new([&root]).unwrap());
        start(&ws, &opts);
        assert!(wait_ready(&ws, Duration::from_secs(30)));
    }
    let written = std::fs::metadata(&file).unwrap().modified().unwrap();
    // A change while no server ran: found by validation, searched directly.
    std::fs::write(root.join("src/late.c"), "PM_RESUME late\n").unwrap();
    let ws = Arc::new(WorkspaceBuilder::new().build(Roots::new([&root]).unwrap()));
    let t = std::time::Instant::now();
    start(&ws, &opts);
    assert!(wait_ready(&ws, Duration::from_secs(30)));
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    assert_eq!(
        std::fs::metadata(&file).unwrap().modified().unwrap(),
        written,
        "not rebuilt"
    );
    let scan = Workspace::new(Roots::new([&root]).unwrap());
    assert_eq!(
        run(&ws, "PM_RESUME", false, false, None),
        run(&scan, "PM_RESUME", false, false, None)
    );
    let q = GrepQuery::new("PM_RESUME");
    assert!(
        search(&ws, &q, &Progress::default())
            .unwrap()
            .index
            .is_some()
    );
}

#[test]
fn a_large_file_is_indexed_in_pieces_of_whole_lines() {
    let mut text = String::new();
    for i in 0..400 {
        text.push_str(&format!("line {i} of filler text\n"));
    }
    let b = text.as_bytes();
    assert!(
        build::pieces(b, b.len()).is_empty(),
        "a small file is one document"
    );
    let ps = build::pieces(b, 1000);
    assert!(ps.len() > 4, "{ps:?}");
    assert_eq!(ps[0], Piece { start: 0, line: 1 });
    for w in ps.windows(2) {
        let (a, z) = (w[0].start as usize, w[1].start as usize);
        assert!(z - a >= 1000, "each piece holds at least the piece size");
        assert_eq!(b[z - 1], b'\n', "pieces start at line starts");
        let lines = b[a..z].iter().filter(|&&c| c == b'\n').count() as u64;
        assert_eq!(w[1].line, w[0].line + lines);
    }
    // A file without newlines cannot be cut.
    assert!(build::pieces(&[b'x'; 10_000], 100).is_empty());
}

#[test]
fn a_search_reads_only_the_pieces_of_a_large_file_that_can_match() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    std::fs::create_dir(root.join(".git")).unwrap();
    let mut big = String::new();
    for i in 0..2000 {
        if i == 1500 {
            big.push_str("here is PM_RESUME\n");
        }
        big.push_str(&format!("PM_ filler {i} RESUME elsewhere\n"));
    }
    std::fs::write(root.join("big.c"), &big).unwrap();
    let shape = Shape {
        piece: 4096,
        ..Shape::default()
    };
    let ix = TrigramIndex::build(&root, None, 1 << 20, shape, &BuildProgress::default())
        .unwrap()
        .unwrap();
    assert!(ix.file(0).pieces.len() > 10);
    let cands = ix
        .candidate_spans(&plan(&line_hir("PM_RESUME", false).unwrap()))
        .unwrap();
    let [(0, Some(spans))] = &cands[..] else {
        panic!("{cands:?}")
    };
    assert_eq!(spans.len(), 1, "{spans:?}");
    let s = spans[0];
    let found = &big[s.start as usize..s.end as usize];
    assert!(found.contains("here is PM_RESUME"));
    assert_eq!(
        s.line,
        1 + big[..s.start as usize].matches('\n').count() as u64
    );
    // Every piece holds the trigrams of `RESUME`: the whole file is read.
    let all = ix
        .candidate_spans(&plan(&line_hir("RESUME", false).unwrap()))
        .unwrap();
    assert_eq!(all, vec![(0, None)]);
    // Through a workspace, with context reaching into the neighbouring pieces.
    let ws = indexed_ws(&root, true);
    let scan = Workspace::new(Roots::new([&root]).unwrap());
    let q = GrepQuery {
        before_context: 3,
        after_context: 3,
        ..GrepQuery::new("PM_RESUME")
    };
    let a = search(&ws, &q, &Progress::default()).unwrap();
    let b = search(&scan, &q, &Progress::default()).unwrap();
    assert!(a.index.is_some());
    assert_eq!(format!("{:?}", a.matches), format!("{:?}", b.matches));
    assert_eq!(a.matches[0].line, 1501);
}

#[test]
fn a_large_document_holding_a_literals_trigrams_apart_is_ruled_out_by_its_next_masks() {
    use trigram::next_bit;
    // `ABC` then `x`, never `ABC` then `D`, though `BCD` is there too.
    assert_ne!(next_bit(b'x'), next_bit(b'D'));
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    std::fs::create_dir(root.join(".git")).unwrap();
    let apart = "ABCx BCD\n";
    std::fs::write(root.join("large_apart.txt"), apart.repeat(4)).unwrap();
    std::fs::write(root.join("large_match.txt"), apart.repeat(3) + "xABCD\n").unwrap();
    std::fs::write(root.join("small_apart.txt"), apart).unwrap();
    // Files of 16 bytes and more carry next masks, in lists of any length.
    let shape = Shape {
        piece: 64,
        masks_min_file: 16,
        masks_min_list: 1,
    };
    let ix = TrigramIndex::build(&root, None, 1 << 20, shape, &BuildProgress::default())
        .unwrap()
        .unwrap();
    // large_apart (0) and large_match (1) have masks, small_apart (2) has none.
    let abc = ix.first_postings(trigram::pack(b'A', b'B', b'C'));
    assert_eq!((&abc.masked[..], &abc.plain[..]), (&[0, 1][..], &[2][..]));
    assert_eq!(abc.masks, [next_bit(b'x'), next_bit(b'x') | next_bit(b'D')]);
    // The small file has no masks: it stays a candidate, and the search rules it out.
    assert_eq!(ids_for(&ix, "ABCD"), ["large_match.txt", "small_apart.txt"]);
    // A case-insensitive search asks for either case of the next byte (one bit).
    let ci = |p: &str| {
        let q = plan(&line_hir(p, true).unwrap());
        ix.candidates(&q).unwrap()
    };
    assert_eq!(ci("abcd"), [1, 2]);
    // Without a next byte to ask for, every file with the trigrams is a candidate.
    assert_eq!(ids_for(&ix, "ABC").len(), 3);
    // Through a workspace: the answer is the scan's.
    let ws = indexed_ws(&root, false);
    let scan = Workspace::new(Roots::new([&root]).unwrap());
    for p in ["ABCD", "BCD", "ABC.", "(?i)abcd"] {
        let q = GrepQuery::new(p);
        let a = search(&ws, &q, &Progress::default()).unwrap();
        let b = search(&scan, &q, &Progress::default()).unwrap();
        assert!(a.index.is_some(), "{p}");
        assert_eq!(
            format!("{:?}", a.matches),
            format!("{:?}", b.matches),
            "{p}"
        );
    }
}

/// By hand over a real tree (`bash corpora/fetch_linux.sh`, or `MAPGREP_TREE`): patterns of
/// every kind, each answered alike by the index, the scan and ripgrep.
/// `cargo test --release --lib indexed_results_equal_the_scan_and_ripgrep_over_the_linux_tree -- --ignored --nocapture`
#[test]
#[ignore]
fn indexed_results_equal_the_scan_and_ripgrep_over_the_linux_tree() {
    let tree = std::env::var_os("MAPGREP_TREE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/linux"));
    let Ok(root) = tree.canonicalize() else {
        eprintln!("no tree at {}", tree.display());
        return;
    };
    let scan = Workspace::new(Roots::new([&root]).unwrap());
    let ix = WorkspaceBuilder::new()
        .content_budget(256 << 20)
        .build(Roots::new([&root]).unwrap());
    start(&ix, &IndexOptions::default());
    assert!(wait_ready(&ix, Duration::from_secs(600)));
    // (pattern, case-insensitive, word)
    let patterns: &[(&str, bool, bool)] = &[
        ("PM_RESUME", false, false),
        ("pm_resume", true, false),
        (
            "PM_SUSPEND|PM_HIBERNATION_PREPARE|wakeup_source_register|device_wakeup_enable",
            false,
            false,
        ),
        (r"\bwakeup_source\b", false, false),
        ("[A-Z]+_RESUME", false, false),
        ("wakeup_source", false, true),
        ("EXPORT_SYMBOL_GPL\\(pm_", false, false),
        ("static int __init [a-z_]+_init\\(void\\)", false, false),
        ("spin_lock_irqsave", false, false),
        ("#include <linux/suspend.h>", false, false),
        ("kmalloc|kzalloc|kcalloc", false, false),
        ("0x[0-9a-f]{8}UL", false, false),
        ("[a-z]+_probe\\(struct platform_device", false, false),
        ("CONFIG_[A-Z0-9_]+_DEBUG_[A-Z]+", false, false),
        ("^static void [a-z_]+_resume", false, false),
        ("^#define [A-Z_]+_RESUME\\b", false, false),
        ("resume\\);$", false, false),
        ("copyright \\(c\\) 19[0-9]{2}", true, false),
        ("mutex_lock_nested", true, false),
        ("irq", false, true),
        ("Torvalds", false, false),
        ("Müller|Möller", false, false),
        ("ä", true, false),
        ("\\p{Greek}", false, false),
        ("μs", false, false),
        ("ﬁ|ﬂ", false, false),
        ("(foo|bar)_?baz", false, false),
        ("a{3}b{2}", false, false),
        ("x86_64|aarch64", false, true),
        ("TODO|FIXME|XXX", false, false),
        ("\\bgoto (out|err)_[a-z]+_unlock;", false, false),
        ("[[:upper:]]{4}_[[:digit:]]{3}", false, false),
        (
            "\\w{5}\\s+\\w{5}\\s+\\w{5}\\s+\\w{5}\\s+\\w{5}\\s+\\w{5}",
            false,
            false,
        ),
        ("nonexistent_symbol_xyzzy", false, false),
        ("qzx|jqv", true, false),
    ];
    let has_rg = has_rg();
    let mut served = 0;
    for &(p, ci, word) in patterns {
        let want = run(&scan, p, ci, word, None);
        let got = run(&ix, p, ci, word, None);
        assert_eq!(got.len(), want.len(), "{p:?} ci={ci} word={word}");
        assert!(
            got == want,
            "{p:?} ci={ci} word={word}: indexed differs from the scan"
        );
        let q = GrepQuery {
            case_insensitive: ci,
            word,
            ..GrepQuery::new(p)
        };
        let used = search(&ix, &q, &Progress::default()).unwrap().index;
        served += usize::from(used.is_some());
        if has_rg {
            let (ours, rg) = against_rg(&root, p, ci, word, &want);
            assert!(
                ours == rg,
                "{p:?} ci={ci} word={word}: ripgrep has {} lines, we {}",
                rg.len(),
                ours.len()
            );
        }
        eprintln!(
            "{p:?} ci={ci} word={word}: {} lines, {}",
            want.len(),
            match used {
                Some(u) => format!("index read {} of {} files", u.searched, u.in_scope),
                None => "scanned (no trigram required)".into(),
            }
        );
    }
    assert!(
        served >= patterns.len() - 6,
        "the index served {served} patterns"
    );
}

#[test]
fn a_build_yields_to_searches_but_keeps_half_the_time_under_constant_load() {
    let searches = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let p = BuildProgress::yielding_to(Arc::clone(&searches));
    // No search: no wait.
    let t = std::time::Instant::now();
    for _ in 0..1000 {
        p.yield_to_searches();
    }
    assert!(t.elapsed() < Duration::from_millis(100));
    // A search that never ends: the build waits a second, then goes on for a second.
    searches.store(1, std::sync::atomic::Ordering::Relaxed);
    let t = std::time::Instant::now();
    for _ in 0..1000 {
        p.yield_to_searches();
    }
    let waited = t.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_millis(2500),
        "{waited:?}"
    );
    // A search that ends releases a waiting build at once.
    let p = Arc::new(BuildProgress::yielding_to(Arc::clone(&searches)));
    let q = Arc::clone(&p);
    let t = std::time::Instant::now();
    let h = std::thread::spawn(move || q.yield_to_searches());
    std::thread::sleep(Duration::from_millis(50));
    searches.store(0, std::sync::atomic::Ordering::Relaxed);
    h.join().unwrap();
    assert!(t.elapsed() < Duration::from_millis(500));
}

mod damage;
mod upkeep;
