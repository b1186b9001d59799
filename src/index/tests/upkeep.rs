//! Upkeep against the scan: a tree edited step by step (writes, new files, renames,
//! deletes, ignore rules) while two workspaces share one store (one writes, the other
//! reads), with upkeep rounds and whole merges forced at random points and workspaces
//! restarted; after every step each indexed answer equals a fresh scan's (and ripgrep's
//! now and then, where it is installed).

use super::*;

/// One more kind of edit than the freshness test's: ignore rules and whole directories.
fn edit_more(root: &Path, r: &mut Rng, names: &mut Vec<String>) {
    match r.below(12) {
        0 => {
            let rules = r.pick(&["ignored/\n*.log\n", "ignored/\n", "*.log\nsrc/pm/\n"]);
            std::fs::write(root.join(".gitignore"), rules).unwrap();
        }
        1 => {
            let d = root.join(r.pick(&["new", "src/pm", "docs"]));
            let _ = std::fs::remove_dir_all(&d);
            names.retain(|n| !root.join(n).starts_with(&d));
        }
        _ => {
            edit(root, r, names);
        }
    }
}

fn options(dir: &Path) -> IndexOptions {
    IndexOptions {
        dir: Some(dir.to_path_buf()),
        watch: true,
        rebuild_after: Duration::from_millis(40),
        shape: Shape {
            piece: 48,
            masks_min_file: 100,
            masks_min_list: 3,
        },
        ..IndexOptions::default()
    }
}

fn open_ws(root: &Path, opts: &IndexOptions) -> Workspace {
    let ws = WorkspaceBuilder::new()
        .content_budget(1 << 20)
        .build(Roots::new([root]).unwrap());
    start(&ws, opts);
    assert!(wait_ready(&ws, Duration::from_secs(30)));
    ws
}

fn stepwise(steps: usize, seed: u64) {
    let mut r = Rng(seed);
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    write_tree(&root, &mut r, 30);
    let cache = tempfile::tempdir().unwrap();
    let opts = options(&cache.path().join("index"));
    let mut a = open_ws(&root, &opts);
    let mut b = open_ws(&root, &opts);
    let has_rg = super::has_rg();
    let pats = patterns(&mut r, 40);
    let mut names = Vec::new();
    for step in 0..steps {
        edit_more(&root, &mut r, &mut names);
        match r.below(16) {
            0 => upkeep_now(&a, &opts, false),
            1 => upkeep_now(&a, &opts, true),
            2 => upkeep_now(&b, &opts, false),
            3 => upkeep_now(&b, &opts, true),
            4 if step % 5 == 0 => {
                drop(a);
                a = open_ws(&root, &opts);
            }
            5 if step % 5 == 0 => {
                drop(b);
                b = open_ws(&root, &opts);
            }
            6 => std::thread::sleep(Duration::from_millis(60)),
            _ => {}
        }
        let scan = Workspace::new(Roots::new([&root]).unwrap());
        for _ in 0..2 {
            let (p, ci, word) = &pats[r.below(pats.len())];
            let want = run(&scan, p, *ci, *word, None);
            assert_eq!(run(&a, p, *ci, *word, None), want, "a: step {step}, {p}");
            assert_eq!(run(&b, p, *ci, *word, None), want, "b: step {step}, {p}");
            if has_rg && step % 50 == 0 {
                let (ours, rg) = against_rg(&root, p, *ci, *word, &want);
                assert_eq!(ours, rg, "rg: step {step}, {p}");
            }
        }
    }
    // Both ended on the same shared index, kept small by the merges.
    upkeep_now(&a, &opts, false);
    for ws in [&a, &b] {
        let st = status(ws);
        let IndexStatus::Ready { segments, .. } = st[0].1 else {
            panic!("{st:?}")
        };
        assert!(segments <= 24, "{st:?}");
    }
}

#[test]
fn every_step_of_edits_upkeep_merges_and_restarts_equals_the_scan() {
    stepwise(1000, 3);
}

/// The long run (`cargo test --lib -- --ignored upkeep_long`).
#[test]
#[ignore]
fn upkeep_long() {
    stepwise(10_000, 17);
}

#[test]
fn an_edit_costs_a_small_segment_not_a_rebuild() {
    let mut r = Rng(9);
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    write_tree(&root, &mut r, 200);
    let cache = tempfile::tempdir().unwrap();
    let opts = options(&cache.path().join("index"));
    let ws = open_ws(&root, &opts);
    let size = |ws: &Workspace| match status(ws)[0].1 {
        IndexStatus::Ready {
            bytes, segments, ..
        } => (bytes, segments),
        ref s => panic!("{s:?}"),
    };
    let (base, one) = size(&ws);
    assert_eq!(one, 1);
    std::fs::write(root.join("src/added.c"), "PM_RESUME added\n").unwrap();
    // Past the racy window (a file written just now waits for a later round).
    std::fs::File::options()
        .write(true)
        .open(root.join("src/added.c"))
        .unwrap()
        .set_modified(std::time::SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
    // A search waits for the watcher to report both changes.
    let q = GrepQuery::new("PM_RESUME added");
    assert_eq!(
        search(&ws, &q, &Progress::default()).unwrap().matches.len(),
        1
    );
    upkeep_now(&ws, &opts, false);
    let (bytes, segments) = size(&ws);
    assert_eq!(segments, 2);
    assert!(bytes - base < base / 10, "{base} -> {bytes}");
    // The delta was written as a segment of its own beside the base, which stays.
    let store = dir_for(opts.dir.as_ref().unwrap(), &root);
    let segs: Vec<_> = std::fs::read_dir(&store)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".seg"))
        .collect();
    assert_eq!(segs.len(), 2, "{segs:?}");
    let q = GrepQuery::new("PM_RESUME added");
    let found = search(&ws, &q, &Progress::default()).unwrap();
    assert_eq!(found.matches.len(), 1);
    // A forced merge leaves one segment and removes the merged files.
    upkeep_now(&ws, &opts, true);
    assert_eq!(size(&ws).1, 1);
    let left = std::fs::read_dir(&store)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".seg"))
        .count();
    assert_eq!(left, 1);
}

#[test]
fn the_merge_policy_bounds_segments_and_rewrites() {
    // Edits of 10 KB each onto a 200 MB base: merges stay among the small ones.
    let mut sizes = vec![200 << 20];
    let mut rewritten = 0usize;
    for _ in 0..2000 {
        sizes.push(10 << 10);
        while let Some(r) = crate::index::upkeep::plan_merge(&sizes) {
            let merged: usize = sizes[r.clone()].iter().sum();
            rewritten += merged;
            sizes.splice(r, [merged]);
        }
        assert!(sizes.len() <= 24, "{sizes:?}");
    }
    let changed = 2000 * (10 << 10);
    assert!(rewritten < 8 * changed, "{rewritten} for {changed}");
    // Newer segments heavier than a quarter of the base: everything is merged.
    assert_eq!(crate::index::upkeep::plan_merge(&[100, 20, 10]), Some(0..3));
}

#[test]
fn a_forged_absolute_or_parent_path_in_a_segment_is_refused() {
    for bad in [
        &b"/etc/passwd"[..],
        b"../outside",
        b"a/../../b",
        b"a//b",
        b"./a",
        b"",
    ] {
        assert!(!persist::inside(bad), "{bad:?}");
        let entry = FileEntry {
            path: bad.into(),
            id: Ident::default(),
            flags: 0,
            pieces: Box::new([]),
        };
        let mut w = persist::Writer::in_memory();
        w.block(&[], &[], 0, 1).unwrap();
        let bytes = w.finish(&[entry], &[], Path::new("/root")).unwrap();
        let e = persist::parse(&bytes, Path::new("forged.seg"), true)
            .err()
            .unwrap();
        assert!(e.to_string().contains("forged.seg"), "{e}");
    }
    for good in [&b"a"[..], b"a/b.c", b"..a/b", b"a.."] {
        assert!(persist::inside(good), "{good:?}");
    }
}

/// A reader keeps searching through the index while it still maps segments the writer
/// merged and unlinked (an unlink moves a file's change time, not its bytes): it once took
/// them for changed and scanned the whole tree after every merge.
#[test]
fn a_reader_searches_through_segments_the_writer_merged_away() {
    let mut r = Rng(21);
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    write_tree(&root, &mut r, 60);
    // Past the racy window, so that the reader is left with no dirty path of its own.
    let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                dirs.push(e.path());
            } else {
                let f = std::fs::File::options().write(true).open(e.path()).unwrap();
                f.set_modified(hour_ago).unwrap();
            }
        }
    }
    let cache = tempfile::tempdir().unwrap();
    let opts = IndexOptions {
        // Upkeep rounds only when the test asks (the background thread would otherwise
        // pick up the merged generation before the reader's search).
        rebuild_after: Duration::from_secs(3600),
        ..options(&cache.path().join("index"))
    };
    let writer = open_ws(&root, &opts);
    let reader = open_ws(&root, &opts);
    let q = GrepQuery::new("PM_RESUME_more");
    for i in 0..3 {
        std::fs::write(root.join(format!("src/more{i}.c")), "int PM_RESUME_more;\n").unwrap();
        let f = std::fs::File::options()
            .write(true)
            .open(root.join(format!("src/more{i}.c")))
            .unwrap();
        f.set_modified(hour_ago).unwrap();
        search(&writer, &q, &Progress::default()).unwrap();
        upkeep_now(&writer, &opts, false);
        upkeep_now(&reader, &opts, false);
    }
    let segments = |ws: &Workspace| match status(ws)[0].1 {
        IndexStatus::Ready { segments, .. } => segments,
        ref s => panic!("{s:?}"),
    };
    assert!(segments(&reader) > 1, "the reader maps several segments");
    let before = segments(&reader);
    // Past the clock's tick, so that the unlinks move the change time.
    std::thread::sleep(Duration::from_millis(50));
    upkeep_now(&writer, &opts, true);
    assert_eq!(segments(&writer), 1);
    // The reader still holds the generation whose segments are unlinked now.
    assert_eq!(segments(&reader), before);
    let scan = Workspace::new(Roots::new([&root]).unwrap());
    let found = search(&reader, &q, &Progress::default()).unwrap();
    let used = found
        .index
        .as_ref()
        .expect("the reader's search went through its index");
    assert!(used.searched < used.in_scope, "{used:?}");
    let want = search(&scan, &q, &Progress::default()).unwrap();
    assert_eq!(found.matches.len(), 3);
    assert_eq!(want.matches.len(), 3);
}
