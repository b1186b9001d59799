//! The engine under files that change while it reads them: reads, greps and section reads
//! against a writer that truncates, grows, renames over and deletes the file (a test across
//! modules, kept beside the crate root rather than in one of them).

use crate::error::Error;
use crate::roots::Roots;
use crate::workspace::*;

/// Every line of a version: `## v NNNNNN` (the same length in every version, so a read
/// that overlaps a rewrite still sees whole lines).
fn version(v: char, lines: usize) -> Vec<u8> {
    (1..=lines)
        .flat_map(|i| format!("## {v} {i:06}\n").into_bytes())
        .collect()
}

/// Whether `line` is line `n` of some version (or, as the last line of a file caught
/// while a writer was still writing it, the start of one).
fn well_formed(line: &str, n: u64, last: bool) -> bool {
    let whole = format!("## x {n:06}");
    let b = line.as_bytes();
    let fits = |len: usize| {
        b.iter()
            .zip(whole.as_bytes())
            .enumerate()
            .take(len)
            .all(|(i, (&c, &w))| {
                if i == 3 {
                    c.is_ascii_lowercase()
                } else {
                    c == w
                }
            })
    };
    if last && b.len() < whole.len() {
        fits(b.len())
    } else {
        b.len() == whole.len() && fits(whole.len())
    }
}

/// Issue 6's changing files: a writer truncates, grows, replaces (rename over) and deletes
/// a mapped file 1,000 times while reads, searches and section reads run against it. No
/// crash, only clear errors (changed, not found), and afterwards nothing stale is served
/// from the caches. Answers torn by an in-place rewrite in flight (possible when the
/// rewrite leaves size and timestamps as they were within one clock tick) are counted and
/// printed, not failed: see SECURITY.md's known limits.
#[test]
fn files_changing_under_reads_greps_and_doc_reads() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.md");
    let (a, b) = (version('a', 100_000), version('b', 60_000));
    std::fs::write(&path, &a).unwrap();
    let ws = Workspace::new(Roots::new([dir.path()]).unwrap());
    let done = AtomicBool::new(false);
    let (ok, errors, torn) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let check = |good: bool| {
        if !good {
            torn.fetch_add(1, Ordering::Relaxed);
        }
    };
    // A rewrite in flight can also show a page that is still zeros (the writer's copy not
    // done yet, the file's size already grown) to the binary sniff: a clear error, which a
    // retry answers (seen in two of five CI runs of one day on a loaded 2-core machine).
    let allowed = |e: &Error| {
        matches!(
            e,
            Error::Changed { .. } | Error::NotFound { .. } | Error::Binary { .. }
        )
    };
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                let mut req = crate::read::ReadRequest::new("log.md");
                req.tail = Some(3);
                match crate::read::read(&ws, &req, 1 << 20) {
                    Ok(e) => {
                        let n = e.text.lines().count();
                        for (i, line) in e.text.lines().enumerate() {
                            let last = i + 1 == n && e.last_line == e.total_lines;
                            check(well_formed(line, e.first_line + i as u64, last));
                        }
                        ok.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(crate::read::ReadError::File(e)) if allowed(&e) => {
                        errors.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(e) => panic!("read: {e:?}"),
                }
            }
        });
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                let mut q = crate::grep::GrepQuery::new("^## b 0000[0-4]");
                q.search_paths = vec!["log.md".into()];
                if let Ok(r) = crate::grep::search(&ws, &q, &crate::grep::Progress::default()) {
                    for m in &r.matches {
                        check(well_formed(&m.text, m.line, true));
                    }
                    ok.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                match crate::markdown::doc::Document::open(&ws, "log.md") {
                    Ok(doc) => {
                        if let Ok(r) = crate::markdown::doc::read_section(&doc, "3", true, 1 << 20)
                            && doc.check_intact().is_ok()
                        {
                            check(well_formed(r.text.trim_end(), r.first_line, true));
                            ok.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    Err(e) if allowed(&e) => {
                        errors.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(e) => panic!("doc: {e}"),
                }
            }
        });
        let tmp = dir.path().join("log.md.tmp");
        for cycle in 0..1000 {
            match cycle % 4 {
                // Truncate, then grow back in place.
                0 => {
                    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                    f.set_len(4096).unwrap();
                    std::fs::write(&path, &a).unwrap();
                }
                // Shrink to the other version in place.
                1 => std::fs::write(&path, &b).unwrap(),
                // Replace by rename.
                2 => {
                    std::fs::write(&tmp, &a).unwrap();
                    std::fs::rename(&tmp, &path).unwrap();
                }
                // Delete and recreate.
                _ => {
                    std::fs::remove_file(&path).unwrap();
                    std::fs::write(&path, &b).unwrap();
                }
            }
        }
        done.store(true, Ordering::Relaxed);
    });
    eprintln!(
        "changing files: {} answers, {} clear errors, {} torn by a rewrite in flight",
        ok.load(Ordering::Relaxed),
        errors.load(Ordering::Relaxed),
        torn.load(Ordering::Relaxed)
    );
    assert!(ok.load(Ordering::Relaxed) > 0);
    // The last version is what every tool sees now, cached or not.
    let last = version('c', 70_000);
    std::fs::write(&path, &last).unwrap();
    for _ in 0..2 {
        let mut req = crate::read::ReadRequest::new("log.md");
        req.tail = Some(1);
        assert_eq!(
            crate::read::read(&ws, &req, 1 << 20).unwrap().text,
            "## c 070000\n"
        );
        let doc = crate::markdown::doc::Document::open(&ws, "log.md").unwrap();
        assert_eq!(doc.outline().len(), 70_000);
        let mut q = crate::grep::GrepQuery::new("^## . 069999");
        q.search_paths = vec!["log.md".into()];
        let r = crate::grep::search(&ws, &q, &crate::grep::Progress::default()).unwrap();
        assert_eq!(r.matches[0].text, "## c 069999");
    }
}
