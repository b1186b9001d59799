//! Engine tests of the search against a naive line-by-line reference, and of the code paths
//! against each other: parallel vs one thread, chunked vs whole-buffer, capped + cursor vs
//! uncapped.

use std::collections::BTreeSet;
use std::path::Path;

use super::file::PARALLEL_FILE_MIN;
use super::*;
use crate::roots::Roots;

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("src/deep/er")).unwrap();
    std::fs::create_dir_all(p.join("target")).unwrap();
    std::fs::create_dir_all(p.join(".hidden")).unwrap();
    std::fs::write(p.join(".ignore"), "target/\n").unwrap();
    for i in 0..40 {
        let mut s = String::new();
        for j in 0..(i * 7 % 50) {
            s.push_str(&format!("line {j} of file {i} PM_RESUME={}\n", j % 3 == 0));
        }
        std::fs::write(p.join(format!("src/f{i:02}.c")), &s).unwrap();
        std::fs::write(p.join(format!("src/deep/er/g{i:02}.h")), &s).unwrap();
    }
    std::fs::write(p.join("target/skip.c"), "PM_RESUME=true\n").unwrap();
    std::fs::write(p.join(".hidden/h.c"), "PM_RESUME=true\n").unwrap();
    std::fs::write(p.join("src/bin.o"), b"PM_RESUME=true\0\x01\x02").unwrap();
    dir
}

fn ws(dir: &Path) -> Workspace {
    Workspace::new(Roots::new([dir]).unwrap())
}

fn run(ws: &Workspace, q: &GrepQuery) -> GrepReport {
    search(ws, q, &Progress::default()).unwrap()
}

fn keys(r: &GrepReport) -> Vec<(String, u64)> {
    r.matches.iter().map(|m| (m.path.clone(), m.line)).collect()
}

/// Every (path, line) whose line matches, by reading each visible file line by line.
fn naive(dir: &Path, pattern: &str) -> Vec<(String, u64)> {
    let re = crate::matcher::build_line_regex(pattern, false).unwrap();
    let mut out = BTreeSet::new();
    for sub in ["src", "src/deep/er"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if !p.is_file() {
                continue;
            }
            let bytes = std::fs::read(&p).unwrap();
            if bytes.contains(&0) {
                continue;
            }
            let text = String::from_utf8(bytes).unwrap();
            for (i, l) in text.lines().enumerate() {
                if re.is_match(l) {
                    let rel = p.strip_prefix(dir).unwrap().to_string_lossy();
                    let rel = crate::platform::slashed(rel).into_owned();
                    out.insert((rel, i as u64 + 1));
                }
            }
        }
    }
    out.into_iter().collect()
}

#[test]
fn matches_a_naive_reference_and_is_sorted() {
    let dir = tree();
    let ws = ws(dir.path());
    for pattern in [r"PM_RESUME=true", r"^line 1\d ", r"file 3\d", r"=false$"] {
        let mut q = GrepQuery::new(pattern);
        q.max_results = 1_000_000;
        let r = run(&ws, &q);
        let want = naive(dir.path(), pattern);
        assert_eq!(keys(&r), want, "pattern {pattern}");
        assert_eq!(r.binary_skipped, 1);
        assert!(!r.truncated);
    }
}

#[test]
fn parallel_equals_one_thread() {
    let dir = tree();
    let ws = ws(dir.path());
    let mut q = GrepQuery::new("PM_RESUME");
    q.max_results = 1_000_000;
    let par = run(&ws, &q);
    q.threads = Some(1);
    let seq = run(&ws, &q);
    assert_eq!(keys(&par), keys(&seq));
    assert_eq!(par.files_searched, seq.files_searched);
}

#[test]
fn a_capped_search_continues_exactly_with_its_cursor() {
    let dir = tree();
    let ws = ws(dir.path());
    let mut q = GrepQuery::new("PM_RESUME=true");
    q.max_results = 1_000_000;
    let all = keys(&run(&ws, &q));
    for cap in [1, 7, 50, 333] {
        let mut got = Vec::new();
        let mut q = GrepQuery::new("PM_RESUME=true");
        q.max_results = cap;
        loop {
            let r = run(&ws, &q);
            assert!(r.matches.len() <= cap);
            got.extend(keys(&r));
            if !r.truncated {
                break;
            }
            q.cursor = r.next_cursor.clone();
            assert!(q.cursor.is_some());
        }
        assert_eq!(got, all, "cap {cap}");
    }
}

#[test]
fn ignored_hidden_and_globs() {
    let dir = tree();
    let ws = ws(dir.path());
    let mut q = GrepQuery::new("PM_RESUME=true");
    q.max_results = 1_000_000;
    let base = run(&ws, &q);
    assert!(
        !keys(&base)
            .iter()
            .any(|(p, _)| p.starts_with("target") || p.starts_with(".hidden"))
    );
    q.include_ignored = true;
    q.include_hidden = true;
    let wide = keys(&run(&ws, &q));
    assert!(wide.contains(&("target/skip.c".into(), 1)));
    assert!(wide.contains(&(".hidden/h.c".into(), 1)));
    let mut q = GrepQuery::new("PM_RESUME=true");
    q.globs = vec!["*.h".into()];
    q.max_results = 1_000_000;
    assert!(keys(&run(&ws, &q)).iter().all(|(p, _)| p.ends_with(".h")));
    q.globs = vec!["!*.h".into()];
    assert!(keys(&run(&ws, &q)).iter().all(|(p, _)| p.ends_with(".c")));
}

#[test]
fn chunked_search_of_one_big_file_equals_the_plain_search() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = String::new();
    let mut n = 0u64;
    while s.len() < PARALLEL_FILE_MIN + 1_000_000 {
        n += 1;
        s.push_str(&format!(
            "row {n} {}\n",
            if n.is_multiple_of(9973) {
                "NEEDLE"
            } else {
                "hay"
            }
        ));
    }
    std::fs::write(dir.path().join("big.txt"), &s).unwrap();
    let ws = ws(dir.path());
    let mut q = GrepQuery::new("NEEDLE");
    q.search_paths = vec!["big.txt".into()];
    q.max_results = 1_000_000;
    q.section_patterns = Some(vec![]);
    let r = run(&ws, &q);
    let want: Vec<u64> = (1..=n).filter(|k| k.is_multiple_of(9973)).collect();
    let got: Vec<u64> = r.matches.iter().map(|m| m.line).collect();
    assert_eq!(got, want);
    assert!(
        r.matches
            .iter()
            .all(|m| m.text == format!("row {} NEEDLE", m.line))
    );
    // Capped, with the cursor, across chunk boundaries.
    q.max_results = 5;
    let r = run(&ws, &q);
    assert_eq!(r.matches.len(), 5);
    assert_eq!(r.next_cursor.as_ref().unwrap().line, want[5]);
    // Paging deep into the file continues exactly, whatever chunk the cursor falls in.
    let mut got = Vec::new();
    let mut q = q.clone();
    q.max_results = 7;
    loop {
        let r = run(&ws, &q);
        got.extend(r.matches.iter().map(|m| m.line));
        match r.next_cursor {
            Some(c) => q.cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(got, want);
}

#[test]
fn section_hints_take_the_nearest_boundary() {
    let dir = tempfile::tempdir().unwrap();
    // 1 # Title / 2 text / 3 ## A / 4 [LOG-1] x DECISION / 5 body / 6 [LOG-2] / 7 ## B
    // 8 [LOG-3] DECISION / 9 body
    std::fs::write(
        dir.path().join("WORK.md"),
        "# Title\ntext\n## A\n[LOG-1] x DECISION\nbody\n[LOG-2]\n## B\n[LOG-3] DECISION\nbody\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("plain.c"), "int x; // DECISION\n").unwrap();
    let ws = ws(dir.path());
    let hint = |patterns: Option<Vec<String>>| {
        let mut q = GrepQuery::new("DECISION");
        q.section_patterns = patterns;
        run(&ws, &q)
            .matches
            .into_iter()
            .map(|m| (m.path, m.line, m.section_end_hint))
            .collect::<Vec<_>>()
    };
    let h = |start_line, end_line, next: Option<&str>| {
        Some(SectionHint {
            end_line,
            next: next.map(String::from),
            start_line: Some(start_line),
        })
    };
    // Defaults: the nearest boundary after the match ends its section ([LOG-2], line 6), the
    // nearest at or before starts it; the last section runs to end of file; an unsectioned
    // file gets none.
    assert_eq!(
        hint(None),
        vec![
            ("WORK.md".into(), 4, h(4, 5, Some(r"^\[LOG-"))),
            ("WORK.md".into(), 8, h(8, 9, None)),
            ("plain.c".into(), 1, None),
        ]
    );
    // A caller's list replaces the defaults.
    assert_eq!(
        hint(Some(vec![r"^## ".into()])),
        vec![
            ("WORK.md".into(), 4, h(3, 6, Some("^## "))),
            ("WORK.md".into(), 8, h(7, 9, None)),
            ("plain.c".into(), 1, None),
        ]
    );
    // [] disables hints.
    assert!(hint(Some(vec![])).iter().all(|(_, _, h)| h.is_none()));
}

#[test]
fn bad_input_is_a_parameter_error() {
    let dir = tree();
    let ws = ws(dir.path());
    let err = |q: GrepQuery| match search(&ws, &q, &Progress::default()) {
        Err(GrepError::Param(p)) => p.short,
        other => panic!(
            "expected a parameter error, got {:?}",
            other.map(|r| r.matches.len())
        ),
    };
    assert_eq!(err(GrepQuery::new("")), "Empty pattern");
    assert_eq!(err(GrepQuery::new("a(b")), "Invalid regex in pattern");
    assert_eq!(
        err(GrepQuery::new(r"\w{1000}{1000}")),
        "Regex too large in pattern"
    );
    let mut q = GrepQuery::new("x");
    q.search_paths = vec!["../".into()];
    assert_eq!(err(q), "search_path outside the allowed roots");
    let mut q = GrepQuery::new("x");
    q.search_paths = vec!["missing".into()];
    assert_eq!(err(q), "search_path not found");
    let mut q = GrepQuery::new("x");
    q.section_patterns = Some(vec!["(".into()]);
    assert_eq!(err(q), "Invalid regex in section_patterns");
    let mut q = GrepQuery::new("x");
    q.section_patterns = Some(vec![r"\w{1000}{1000}".into()]);
    assert_eq!(err(q), "Regex too large in section_patterns");
    let mut q = GrepQuery::new("");
    q.fixed_strings = true;
    assert_eq!(err(q), "Empty pattern");
    // A pattern that can only match across a line break would never match line by line.
    for pattern in ["\n", r"needle\na", "a\nb"] {
        assert_eq!(
            err(GrepQuery::new(pattern)),
            "Pattern needs a line break",
            "{pattern:?}"
        );
    }
    let mut q = GrepQuery::new("x");
    q.globs = vec!["a{b".into()];
    assert_eq!(err(q), "Invalid glob");
    // A newline that is optional is fine.
    assert!(search(&ws, &GrepQuery::new(r"needle\n?"), &Progress::default()).is_ok());
}

#[test]
fn cancellation_stops_the_walk() {
    let dir = tree();
    let ws = ws(dir.path());
    let p = Progress::default();
    p.cancel();
    let r = search(&ws, &GrepQuery::new("PM_RESUME"), &p).unwrap();
    assert!(r.cancelled);
    assert_eq!(r.files_searched, 0);
}

#[test]
fn context_lines_surround_the_match() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "1\n2\n3 hit\n4\n5\n").unwrap();
    let ws = ws(dir.path());
    let mut q = GrepQuery::new("hit");
    q.before_context = 5;
    q.after_context = 1;
    let m = &run(&ws, &q).matches[0];
    assert_eq!(
        m.before
            .iter()
            .map(|c| (c.line, c.text.as_str()))
            .collect::<Vec<_>>(),
        vec![(1, "1"), (2, "2")]
    );
    assert_eq!(
        m.after
            .iter()
            .map(|c| (c.line, c.text.as_str()))
            .collect::<Vec<_>>(),
        vec![(4, "4")]
    );
}

/// A workspace over `root` that keeps file contents and walk lists, as a server does.
fn caching_ws(root: &Path) -> Workspace {
    crate::workspace::WorkspaceBuilder::new()
        .content_budget(1 << 20)
        .build(Roots::new([root]).unwrap())
}

/// A search for `needle` without section hints.
fn needle() -> GrepQuery {
    let mut q = GrepQuery::new("needle");
    q.section_patterns = Some(vec![]);
    q
}

#[test]
fn a_caching_workspace_sees_every_change_between_calls() {
    use std::time::{Duration, SystemTime};
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("d")).unwrap();
    let old = SystemTime::now() - Duration::from_secs(3600);
    let age = |path: &Path| crate::platform::test_support::set_mtime(path, old).unwrap();
    for (name, text) in [
        ("d/a.txt", "needle 1\n"),
        ("d/b.txt", "nothing\n"),
        ("d/c.txt", "needle 3\n"),
    ] {
        std::fs::write(p.join(name), text).unwrap();
        age(&p.join(name));
    }
    let ws = caching_ws(p);
    let found = |ws: &Workspace| keys(&run(ws, &needle()));
    let want = |v: &[(&str, u64)]| {
        v.iter()
            .map(|(p, l)| (p.to_string(), *l))
            .collect::<Vec<_>>()
    };
    assert_eq!(found(&ws), want(&[("d/a.txt", 1), ("d/c.txt", 1)]));
    // A file read once is not kept (a one-off scan does not pay for filling the cache).
    assert_eq!(ws.content_cache_bytes(), 0);
    assert_eq!(found(&ws), want(&[("d/a.txt", 1), ("d/c.txt", 1)]));
    // Cached now (old mtimes): same answer from the caches.
    assert_eq!(found(&ws), want(&[("d/a.txt", 1), ("d/c.txt", 1)]));
    assert!(ws.content_cache_bytes() > 0);
    // Same-size rewrite with the old mtime restored: the change time still differs.
    std::fs::write(p.join("d/b.txt"), "needle!\n").unwrap();
    age(&p.join("d/b.txt"));
    // A new file and a deleted one.
    std::fs::write(p.join("d/e.txt"), "x\nneedle 5\n").unwrap();
    std::fs::remove_file(p.join("d/c.txt")).unwrap();
    assert_eq!(
        found(&ws),
        want(&[("d/a.txt", 1), ("d/b.txt", 1), ("d/e.txt", 2)])
    );
}

#[test]
fn binary_means_a_nul_in_the_first_64_kib_on_every_path() {
    // The read tools' test: a later NUL is a byte of a text file, searched whole, also in the
    // chunked path of one large file.
    let dir = tempfile::tempdir().unwrap();
    let mut late = vec![b'a'; 70_000];
    late.extend_from_slice(b"\nneedle\n\0\nneedle\n");
    std::fs::write(dir.path().join("late.txt"), &late).unwrap();
    let mut big = b"filler line\n".repeat(PARALLEL_FILE_MIN / 12 + 1);
    big.extend_from_slice(b"needle\n\0\nneedle\n");
    std::fs::write(dir.path().join("big.txt"), &big).unwrap();
    std::fs::write(dir.path().join("early.bin"), b"needle\0\n").unwrap();
    let ws = ws(dir.path());
    let mut q = GrepQuery::new("needle");
    q.max_results = 10_000_000;
    let r = run(&ws, &q);
    assert_eq!(r.binary_skipped, 1);
    let count = |name: &str| r.matches.iter().filter(|m| m.path == name).count();
    assert_eq!(count("late.txt"), 2);
    assert_eq!(count("big.txt"), 2);
}

#[test]
fn files_read_and_files_mapped_are_searched_alike() {
    // A walk reads files below WALK_MMAP_MIN and maps the others: on both sides of it, with
    // and without a byte-order mark, the server's search and the command line's visit see
    // the same bytes and lines as a line-by-line reading.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("src/deep/er")).unwrap();
    let min = super::file::WALK_MMAP_MIN as usize;
    let body = |n: usize| {
        let mut s = String::new();
        let mut i = 0;
        while s.len() < n {
            s.push_str(&format!("line {i} PM_RESUME={}\n", i % 7 == 0));
            i += 1;
        }
        s.truncate(n);
        s.into_bytes()
    };
    let mut files = Vec::new();
    for (name, size) in [
        ("small", min / 2),
        ("below", min - 1),
        ("at", min),
        ("above", min * 3),
    ] {
        files.push((format!("src/{name}.c"), body(size)));
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend(body(size));
        files.push((format!("src/deep/er/{name}_bom.c"), bom));
    }
    for (name, bytes) in &files {
        std::fs::write(p.join(name), bytes).unwrap();
    }
    let ws = ws(p);
    let mut q = GrepQuery::new("PM_RESUME=true");
    q.max_results = 1_000_000;
    assert_eq!(keys(&run(&ws, &q)), naive(p, "PM_RESUME=true"));
    let mut seen = Collected::default();
    visit_in_order(
        &ws,
        &q,
        &Progress::default(),
        Reading::Bytes,
        &|f| (f.name(), f.bytes.to_vec()),
        &mut seen,
    )
    .unwrap();
    let mut seen = seen.0;
    seen.sort();
    let mut want: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .map(|(n, b)| (n, b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&b).to_vec()))
        .collect();
    want.sort();
    assert_eq!(seen, want);
}

#[test]
fn a_caching_workspace_honours_every_ignore_source() {
    use std::time::{Duration, SystemTime};
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join(".git/info")).unwrap();
    std::fs::create_dir_all(p.join("d")).unwrap();
    std::fs::write(p.join(".git/info/exclude"), "").unwrap();
    std::fs::write(p.join("d/a.txt"), "needle\n").unwrap();
    std::fs::write(p.join("d/b.txt"), "needle\n").unwrap();
    // Everything old: the walk list is trusted from the second call on.
    let old = SystemTime::now() - Duration::from_secs(3600);
    let age = |path: &Path| crate::platform::test_support::set_mtime(path, old).unwrap();
    for f in [
        ".git/info/exclude",
        "d/a.txt",
        "d/b.txt",
        "d",
        ".git/info",
        ".git",
        ".",
    ] {
        age(&p.join(f));
    }
    let ws = caching_ws(p);
    let found = |ws: &Workspace| {
        keys(&run(ws, &needle()))
            .into_iter()
            .map(|(p, _)| p)
            .collect::<Vec<_>>()
    };
    assert_eq!(found(&ws), ["d/a.txt", "d/b.txt"]);
    assert_eq!(found(&ws), ["d/a.txt", "d/b.txt"]);
    // A line added to the repository's exclude file: the next search honours it, as a fresh
    // server would.
    std::fs::write(p.join(".git/info/exclude"), "d/a.txt\n").unwrap();
    age(&p.join(".git/info/exclude"));
    assert_eq!(found(&ws), ["d/b.txt"]);
}

#[test]
fn the_content_cache_admits_a_file_read_twice_and_only_an_indexed_pick_evicts() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().canonicalize().unwrap();
    let (a, b) = (p.join("a.txt"), p.join("b.txt"));
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for f in [&a, &b] {
        std::fs::write(f, "x".repeat(600 << 10)).unwrap();
        // Files written just now are never cached (their change could be missed).
        let h = std::fs::File::options().write(true).open(f).unwrap();
        h.set_modified(old).unwrap();
    }
    let ws = caching_ws(&p);
    let put = |f: &Path, chosen: bool| {
        if ws.admits_content(f) {
            let id = crate::source::FileId::from_metadata(&std::fs::metadata(f).unwrap());
            ws.cache_content(f, id, &std::fs::read(f).unwrap(), chosen);
        }
    };
    put(&a, false);
    assert_eq!(ws.content_cache_bytes(), 0, "read once");
    put(&a, false);
    assert!(ws.cached_version(&a).is_some(), "read twice");
    // A scan's file that does not fit is not kept, and evicts nothing.
    put(&b, false);
    put(&b, false);
    assert!(ws.cached_version(&b).is_none());
    assert!(ws.cached_version(&a).is_some());
    // A file the index picked evicts the least recently used.
    put(&b, true);
    assert!(ws.cached_version(&b).is_some());
    assert!(ws.cached_version(&a).is_none());
}

/// A sink that keeps what it is given, and stops after `stop_after` items if set.
#[derive(Default)]
struct Collected<T>(Vec<T>, Option<usize>);

impl<T> Sink<T> for Collected<T> {
    fn file(&mut self, t: T) -> Flow {
        self.0.push(t);
        if self.1.is_some_and(|n| self.0.len() >= n) {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
}

/// A tree whose path order differs from a plain string sort: `a.c` sorts before `a/b` as a
/// string, after it by path components (as ripgrep's `--sort path` walks).
fn ordered_tree(p: &std::path::Path) -> Vec<String> {
    let mut names = vec![
        "a/b.txt".to_string(),
        "a.c".to_string(),
        "a-b/x.txt".to_string(),
        "z.txt".to_string(),
        "m/n/o.txt".to_string(),
        "m/n.txt".to_string(),
        "m/n-x/p.txt".to_string(),
        "m/n/q/r.txt".to_string(),
        "m/n/q.txt".to_string(),
    ];
    for i in 0..700 {
        names.push(format!("many/f{i:04}.txt"));
    }
    write_tree(p, &names)
}

/// Writes each of `names` (a line that says its name) below `p`; their path order.
fn write_tree(p: &std::path::Path, names: &[String]) -> Vec<String> {
    for n in names {
        let f = p.join(n);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, format!("line of {n}\n")).unwrap();
    }
    let mut paths: Vec<std::path::PathBuf> = names.iter().map(std::path::PathBuf::from).collect();
    paths.sort();
    paths
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect()
}

/// The names an ordered visit of `ws` for "line" hands over with `threads` workers, in its
/// order (with uneven work, so that files finish out of order), and the visit's counts.
fn visit_names(ws: &Workspace, threads: usize) -> (Vec<String>, Visited) {
    let mut q = GrepQuery::new("line");
    q.threads = Some(threads);
    let mut seen = Collected::default();
    let work = |f: VisitedFile<'_>| {
        let name = f.name();
        if name.ends_with('3') || name.len().is_multiple_of(7) {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        name
    };
    let v = visit_in_order(
        ws,
        &q,
        &Progress::default(),
        Reading::Bytes,
        &work,
        &mut seen,
    )
    .unwrap();
    (seen.0, v)
}

#[test]
fn the_ordered_visit_hands_files_over_in_path_order_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let want = ordered_tree(dir.path());
    let ws = ws(dir.path());
    for threads in [1, 2, 8] {
        let (seen, v) = visit_names(&ws, threads);
        assert_eq!(seen, want, "{threads} threads");
        assert_eq!(v.files, want.len() as u64);
    }
}

/// More subdirectories than the listing walks may run ahead of the queue, one of them large
/// and deep, others empty: the walks take them as they come free, and every file arrives once,
/// in path order, with no error.
#[test]
fn many_uneven_subdirectories_come_back_in_path_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for d in 0..30usize {
        let files = match d {
            4 => 0,
            7 => 600,
            _ => d % 5 + 1,
        };
        for f in 0..files {
            let deep = if f % 3 == 0 {
                format!("sub{}/", f % 4)
            } else {
                String::new()
            };
            names.push(format!("d{d:02}/{deep}f{f:03}.txt"));
        }
    }
    std::fs::create_dir_all(dir.path().join("d04")).unwrap();
    let want = write_tree(dir.path(), &names);
    let ws = ws(dir.path());
    for threads in [1, 2, 8] {
        let (seen, v) = visit_names(&ws, threads);
        assert_eq!(seen, want, "{threads} threads");
        assert!(v.errors.is_empty(), "{:?}", v.errors);
    }
}

#[test]
fn a_sink_that_stops_stops_the_walk() {
    let dir = tempfile::tempdir().unwrap();
    let want = ordered_tree(dir.path());
    let ws = ws(dir.path());
    let q = GrepQuery::new("line");
    let worked = std::sync::atomic::AtomicUsize::new(0);
    let mut seen = Collected(Vec::new(), Some(3));
    let progress = Progress::default();
    visit_in_order(
        &ws,
        &q,
        &progress,
        Reading::Bytes,
        &|f| {
            worked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            f.name()
        },
        &mut seen,
    )
    .unwrap();
    assert_eq!(seen.0, want[..3]);
    // The walk ran at most its window ahead of the sink.
    let worked = worked.into_inner() as u64;
    assert!(
        worked <= 3 + super::produce::WINDOW,
        "{worked} files processed"
    );
}

#[test]
fn a_listed_walk_comes_back_in_path_order_whatever_order_it_was_met_in() {
    // Entries as a parallel walk may meet them: children before or after their siblings'
    // subtrees, names whose bytes sort before a separator (`-`, `.`) beside directories.
    let root = Path::new("/r/s");
    let files = [
        "a-b/x", "a.c", "a/b/c", "a/b.c", "a/b/d/e", "a/bb", "b", "z/y", "z.txt",
    ];
    let dirs = ["a-b", "a", "a/b", "a/b/d", "z"];
    let mut found: Vec<(std::path::PathBuf, bool)> = files
        .iter()
        .map(|f| (root.join(f), false))
        .chain(dirs.iter().map(|d| (root.join(d), true)))
        .collect();
    let mut want: Vec<std::path::PathBuf> = files.iter().map(|f| root.join(f)).collect();
    want.sort();
    for turn in 0..found.len() {
        found.rotate_left(1);
        if turn % 2 == 1 {
            found.reverse();
        }
        let got = super::walk_ordered::in_path_order(root, found.clone());
        assert_eq!(got, want, "met in the order {found:?}");
    }
}

#[test]
fn a_display_name_is_the_path_below_its_search_directory() {
    let below = |p: &str, root: &str| {
        String::from_utf8(super::collect::below(Path::new(p), Path::new(root)).to_vec()).unwrap()
    };
    assert_eq!(below("/r/s/a/b.c", "/r/s"), "a/b.c");
    assert_eq!(below("/r/s", "/r/s"), "");
    assert_eq!(below("/etc/x", "/"), "etc/x");
    // Not below it: a sibling that shares the root's first bytes, another tree.
    assert_eq!(below("/r/sx/a", "/r/s"), "/r/sx/a");
    assert_eq!(below("/q/a", "/r/s"), "/q/a");
    // What Path::strip_prefix would make of a `.` component.
    assert_eq!(below("/r/s/./a", "/r/s"), "a");
}

#[test]
fn the_search_is_in_path_order_pages_exactly_and_stops_once_the_cap_is_full() {
    let dir = tempfile::tempdir().unwrap();
    let want = ordered_tree(dir.path());
    // More files without a hit than the visit may run ahead of its sink.
    let quiet = 2 * super::produce::WINDOW as usize;
    std::fs::create_dir(dir.path().join("zzz")).unwrap();
    for i in 0..quiet {
        std::fs::write(dir.path().join(format!("zzz/{i}.txt")), "nothing\n").unwrap();
    }
    // A plain workspace, and a server's: its first walk, the walk that keeps a list, the list.
    let (plain, server) = (ws(dir.path()), caching_ws(dir.path()));
    for (label, ws) in [("plain", &plain), ("server", &server), ("server", &server)]
        .into_iter()
        .chain([("kept list", &server)])
    {
        let mut q = GrepQuery::new("line");
        q.max_results = 10_000;
        let all = keys(&run(ws, &q));
        let paths: Vec<&str> = all.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, want, "{label}");
        // Once the cap and one more hit are in hand, later files are not read (the visit
        // runs at most a window ahead).
        q.max_results = 1;
        let r = run(ws, &q);
        assert!(r.files_searched < (want.len() + quiet / 2) as u64, "{r:?}");
        for cap in [97, 333] {
            let mut got = Vec::new();
            q.max_results = cap;
            q.cursor = None;
            loop {
                let r = run(ws, &q);
                got.extend(keys(&r));
                if !r.truncated {
                    break;
                }
                q.cursor = r.next_cursor.clone();
            }
            assert_eq!(got, all, "{label}, cap {cap}");
        }
    }
}

#[test]
fn a_job_fits_in_a_few_words() {
    // A worker reads one job per file, written by another thread on another core: what the
    // index knows of a file is boxed, so that a job is no more than 72 bytes (80 where a
    // path is more than three words: Windows' keeps a flag beside its bytes).
    let path = std::mem::size_of::<std::path::PathBuf>();
    assert!(std::mem::size_of::<super::produce::Job>() <= 72 + (path - 24).next_multiple_of(8));
}
