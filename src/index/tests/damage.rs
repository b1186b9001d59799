//! A segment damaged in place (its size and modification time kept, as a write through a
//! shared map or `dd conv=notrunc` and `touch` leave it): the search that reads a damaged
//! table entry or list sees it and scans (its answer the scan's), the damage is reported
//! for the writer, which rebuilds; a one-shot open refuses a damaged file list; a merge does
//! not pass damage on. And the store's directory stays clean: advertisements of watching
//! servers are removed with them (or by the next process, when they died), temporary files
//! of a dead writer by the next writer.

use std::io::{Seek, SeekFrom, Write};

use super::*;
use crate::index::store::SegRef;

/// Writes `bytes` at `at` in the file at `path`, in place, and sets its modification time
/// back: size and time as they were.
fn damage(path: &Path, at: u64, bytes: &[u8]) {
    let before = std::fs::metadata(path).unwrap();
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(SeekFrom::Start(at)).unwrap();
    f.write_all(bytes).unwrap();
    f.sync_all().unwrap();
    f.set_modified(before.modified().unwrap()).unwrap();
    drop(f);
    let after = std::fs::metadata(path).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap()),
        (before.len(), before.modified().unwrap())
    );
}

/// A generated tree, dated back an hour (past the racy window).
fn aged_tree(seed: u64, files: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    let mut r = Rng(seed);
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    write_tree(&root, &mut r, files);
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
    (d, root)
}

fn shape() -> Shape {
    Shape {
        piece: 48,
        masks_min_file: 100,
        masks_min_list: 3,
    }
}

/// Where `t`'s table entry and list lie in segment `seg`'s first block (file offsets).
fn places(seg: &Segment, t: trigram::Trigram) -> (u64, u64) {
    let b = &seg.blocks[0];
    let mut reads = checksum::Reads::default();
    let i = (0..b.entries)
        .find(|&i| seg.table_entry(b, i, &mut reads).0 == t)
        .expect("the trigram is indexed");
    let (_, off, _) = seg.table_entry(b, i, &mut reads);
    (
        b.table_off + i * persist::ENTRY as u64,
        b.post_off + u64::from(off),
    )
}

#[test]
fn a_table_entry_or_list_damaged_after_opening_is_seen_by_the_search_that_reads_it() {
    let (_d, root) = aged_tree(31, 80);
    let cache = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(cache.path(), &root).unwrap());
    TrigramIndex::build(
        &root,
        Some(&store),
        1 << 20,
        shape(),
        &BuildProgress::default(),
    )
    .unwrap()
    .unwrap();
    let q = plan(&line_hir("PM_RESUME", false).unwrap());
    let pm = trigram::pack(b'P', b'M', b'_');
    // Each: what is changed, at which offset, from the file's bytes and the places of the
    // trigram's entry and list.
    type Hit = fn(&[u8], u64, u64) -> (u64, Vec<u8>);
    let cases: [(&str, Hit); 4] = [
        ("a table entry zeroed", |_, entry, _| (entry, vec![0; 12])),
        ("a list zeroed", |_, _, list| (list, vec![0; 6])),
        ("one bit of a list", |f, _, list| {
            (list + 1, vec![f[list as usize + 1] ^ 0x40])
        }),
        ("a count", |_, entry, _| {
            (entry + 8, vec![0xff, 0xff, 0xff, 0x7f])
        }),
    ];
    for (what, hit) in cases {
        let ix = TrigramIndex::open(&store, None).unwrap().unwrap();
        let want = ix.candidates(&q).unwrap();
        assert!(!want.is_empty());
        let seg = Arc::clone(&ix.segments()[0]);
        let path = store.segment_path(seg.number);
        let (entry, list) = places(&seg, pm);
        let file = std::fs::read(&path).unwrap();
        let (at, bytes) = hit(&file, entry, list);
        let good = file[at as usize..][..bytes.len()].to_vec();
        assert_ne!(good, bytes, "{what}: a change");
        damage(&path, at, &bytes);
        assert_eq!(ix.candidates(&q), None, "{what}");
        assert!(ix.is_damaged(), "{what}");
        assert_eq!(
            store.damage_reported().map(|r| r.0),
            Some(SegRef {
                number: seg.number,
                sum: seg.sum
            }),
            "{what}"
        );
        // From then on the index answers nothing (its searches scan), whatever they read.
        let other = plan(&line_hir("wakeup_source", false).unwrap());
        assert_eq!(ix.candidates(&other), None, "{what}");
        // Opened in full, the file is refused; a one-shot open (pages checked as read)
        // takes it and the search sees the damage.
        let e = TrigramIndex::open(&store, None).unwrap_err();
        assert!(e.to_string().contains("checksum"), "{what}: {e}");
        let oneshot = Arc::new(Store::existing(cache.path(), &root).unwrap());
        let ix1 = TrigramIndex::open(&oneshot, None).unwrap().unwrap();
        assert_eq!(ix1.candidates(&q), None, "{what}");
        damage(&path, at, &good);
        store.clear_damage();
        let ix = TrigramIndex::open(&store, None).unwrap().unwrap();
        assert_eq!(ix.candidates(&q).unwrap(), want, "{what}: repaired");
    }
}

#[test]
fn a_damaged_file_list_is_refused_by_a_one_shot_open() {
    let (_d, root) = aged_tree(32, 40);
    let cache = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(cache.path(), &root).unwrap());
    let ix = TrigramIndex::build(
        &root,
        Some(&store),
        1 << 20,
        shape(),
        &BuildProgress::default(),
    )
    .unwrap()
    .unwrap();
    let path = store.segment_path(ix.segments()[0].number);
    drop(ix);
    let bytes = std::fs::read(&path).unwrap();
    let tail = bytes.len() - 32;
    let files_off = u64::from_le_bytes(bytes[tail..tail + 8].try_into().unwrap());
    // A path's byte, changed to another valid one: only a checksum sees it.
    let at = files_off + 8 + 4;
    damage(&path, at, &[bytes[at as usize] ^ 0x01]);
    let oneshot = Arc::new(Store::existing(cache.path(), &root).unwrap());
    let e = TrigramIndex::open(&oneshot, None).unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
    let e = TrigramIndex::open(&store, None).unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
}

#[test]
fn searches_over_a_damaged_segment_answer_as_the_scan_and_the_writer_rebuilds_it() {
    let (_d, root) = aged_tree(33, 120);
    let cache = tempfile::tempdir().unwrap();
    let opts = IndexOptions {
        dir: Some(cache.path().join("index")),
        watch: true,
        shape: shape(),
        ..IndexOptions::default()
    };
    let ws = WorkspaceBuilder::new()
        .content_budget(1 << 20)
        .build(Roots::new([&root]).unwrap());
    start(&ws, &opts);
    assert!(wait_ready(&ws, Duration::from_secs(30)));
    let scan = Workspace::new(Roots::new([&root]).unwrap());
    let st = ws.state::<Indexes>().for_dir(&root).unwrap();
    let ix = st.current().unwrap();
    let store = Arc::clone(ix.store().unwrap());
    let path = store.segment_path(ix.segments()[0].number);
    let generation = ix.generation();
    drop(ix);
    let pats = patterns(&mut Rng(7), 30);
    for (p, ci, word) in &pats {
        assert_eq!(
            run(&ws, p, *ci, *word, None),
            run(&scan, p, *ci, *word, None),
            "{p}"
        );
    }
    // Every posting list and table zeroed, the file list and tail kept.
    let bytes = std::fs::read(&path).unwrap();
    let tail = bytes.len() - 32;
    let files_off = u64::from_le_bytes(bytes[tail..tail + 8].try_into().unwrap());
    damage(&path, 8, &vec![0; files_off as usize - 8]);
    for (p, ci, word) in &pats {
        assert_eq!(
            run(&ws, p, *ci, *word, None),
            run(&scan, p, *ci, *word, None),
            "{p}"
        );
    }
    // The writer rebuilds it; searches go through the new one.
    let t = std::time::Instant::now();
    let rebuilt = loop {
        if let Some(ix) = st.current()
            && ix.generation() > generation
            && !ix.is_damaged()
        {
            break ix;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "not rebuilt");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!path.exists(), "the damaged segment is removed");
    assert!(store.damage_reported().is_none());
    let q = GrepQuery::new("PM_RESUME");
    let found = search(&ws, &q, &Progress::default()).unwrap();
    let used = found.index.expect("searched through the rebuilt index");
    assert!(used.searched < used.in_scope, "{used:?}");
    assert!(
        rebuilt
            .candidates(&plan(&line_hir("PM_RESUME", false).unwrap()))
            .is_some()
    );
    for (p, ci, word) in &pats {
        assert_eq!(
            run(&ws, p, *ci, *word, None),
            run(&scan, p, *ci, *word, None),
            "{p}"
        );
    }
}

#[test]
fn a_merge_does_not_pass_damage_on() {
    let (_d, root) = aged_tree(34, 40);
    let cache = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(cache.path(), &root).unwrap());
    assert!(store.try_write());
    let ix = TrigramIndex::build(
        &root,
        Some(&store),
        1 << 20,
        shape(),
        &BuildProgress::default(),
    )
    .unwrap()
    .unwrap();
    let seg = Arc::clone(&ix.segments()[0]);
    let (_, list) = places(&seg, trigram::pack(b'P', b'M', b'_'));
    let path = store.segment_path(seg.number);
    damage(&path, list, &[0; 4]);
    let e = crate::index::upkeep::merge(&ix, 0..1, shape()).unwrap_err();
    assert!(e.to_string().contains("damaged"), "{e}");
    assert!(ix.is_damaged());
    // Nothing was published over the damaged generation.
    assert_eq!(
        store.manifest().unwrap().unwrap().generation,
        ix.generation()
    );
}

#[test]
fn advertisements_go_with_their_server_and_dead_ones_with_the_next() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let store = Store::open(cache.path(), &root).unwrap();
    let dir = store.dir().to_path_buf();
    let names = || {
        let mut v: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let clean = names();
    // What dead processes left: an advertisement with its lock, a lock alone, and the
    // temporary file of an advertisement being written.
    for f in [
        "w-4000000000-0",
        "w-4000000000-0.lock",
        "w-4000000000-1.lock",
        ".w-4000000000-2.4000000000.0.tmp",
    ] {
        std::fs::write(dir.join(f), "/nowhere").unwrap();
    }
    let marks = cache.path().join("marks");
    let ad = store.advertise(&marks).unwrap();
    let mine: Vec<String> = names().into_iter().filter(|n| !clean.contains(n)).collect();
    assert_eq!(mine.len(), 2, "{mine:?}");
    assert!(
        mine.iter()
            .all(|n| n.contains(&format!("w-{}-", std::process::id())))
    );
    // Another process (here: another store of the same root) sees the live one.
    let other = Store::open(cache.path(), &root).unwrap();
    assert_eq!(other.watchers(), vec![marks.clone()]);
    drop(ad);
    assert_eq!(names(), clean);
    assert!(other.watchers().is_empty());
}

#[test]
fn the_next_writer_removes_a_dead_writers_temporary_files_but_not_a_live_advertisement() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let reader = Store::open(cache.path(), &root).unwrap();
    let ad = reader.advertise(&cache.path().join("marks")).unwrap();
    let dir = reader.dir().to_path_buf();
    let dead = [
        ".s00000000000000ff.seg.4000000000.0.tmp",
        ".MANIFEST.4000000000.3.tmp",
        ".w-4000000000-0.4000000000.0.tmp",
    ];
    for f in dead {
        std::fs::write(dir.join(f), "half written").unwrap();
    }
    // A live server's advertisement being written.
    let mine = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("w-") && !n.ends_with(".lock"))
        .unwrap();
    let live = format!(".{mine}.{}.0.tmp", std::process::id());
    std::fs::write(dir.join(&live), "/marks").unwrap();
    let writer = Store::open(cache.path(), &root).unwrap();
    assert!(writer.try_write());
    for f in dead {
        assert!(!dir.join(f).exists(), "{f}");
    }
    assert!(dir.join(&live).exists());
    std::fs::remove_file(dir.join(&live)).unwrap();
    drop(ad);
}

#[test]
fn an_exit_removes_its_own_temporary_files_only() {
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let store = Store::open(cache.path(), root.path()).unwrap();
    let (own, f) = super::super::persist::temp_file(&store.segment_path(3)).unwrap();
    let dir = store.segment_path(3).parent().unwrap().to_path_buf();
    let other = dir.join(format!(".s3.seg.{}.0.tmp", std::process::id() + 1));
    std::fs::write(&other, "another writer's").unwrap();
    // Removed while its writer holds it open (on Windows the name goes when the handle
    // is closed, at the latest when the process ends).
    store.remove_own_temps();
    drop(f);
    assert!(!own.exists());
    assert!(other.exists());
}
