//! The index against the scan: same files, same candidates for what matches.

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

fn ids_for(ix: &Index, p: &str) -> Vec<String> {
    let hir = line_hir(p, false).unwrap();
    let q = plan(&hir);
    ix.candidates(&q)
        .unwrap()
        .into_iter()
        .map(|i| String::from_utf8_lossy(&ix.files()[i as usize].path).into_owned())
        .collect()
}

#[test]
fn built_in_memory_and_on_disk_the_index_answers_alike() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    std::fs::create_dir(root.join(".git")).unwrap();
    tree(&root);
    let cache = tempfile::tempdir().unwrap();
    let file = file_for(cache.path(), &root);
    let p = BuildProgress::default();
    let mem = Index::build(&root, None, 1 << 20, &p).unwrap().unwrap();
    // A tiny budget: one segment per file or so.
    let disk = Index::build(&root, Some(&file), 64, &p).unwrap().unwrap();
    assert!(disk.segments.len() > 1);
    let names: Vec<_> = mem
        .files()
        .iter()
        .map(|f| String::from_utf8_lossy(&f.path).into_owned())
        .collect();
    assert_eq!(names, ["a.c", "bin.dat", "sub/b.c", "sub/deeper/c.txt"]);
    assert_eq!(mem.files()[1].flags & FLAG_BINARY, FLAG_BINARY);
    for ix in [&mem, &disk] {
        assert_eq!(ids_for(ix, "PM_RESUME"), ["a.c"]);
        assert_eq!(ids_for(ix, "PM_RESUME|PM_SUSPEND"), ["a.c", "sub/b.c"]);
        assert_eq!(ids_for(ix, "[A-Z]+_SUSPEND"), ["sub/b.c"]);
        assert!(ids_for(ix, "zzzz").is_empty());
        assert_eq!(ix.under(b"sub"), 2..4);
        assert!(ix.walked_dir(b"sub/deeper"));
        assert!(!ix.walked_dir(b"ignored"));
    }
    // The file is private, and reopening it gives the same answers.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let again = Index::open(&file, &root).unwrap();
    assert_eq!(ids_for(&again, "PM_SUSPEND"), ["sub/b.c"]);
}

#[test]
fn a_damaged_foreign_or_open_index_file_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    tree(&root);
    let cache = tempfile::tempdir().unwrap();
    let file = file_for(cache.path(), &root);
    Index::build(&root, Some(&file), 1 << 20, &BuildProgress::default())
        .unwrap()
        .unwrap();
    // Another root's index.
    let other = tempfile::tempdir().unwrap();
    let e = Index::open(&file, &other.path().canonicalize().unwrap()).unwrap_err();
    assert!(e.to_string().contains("indexes"), "{e}");
    // One flipped byte.
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[20] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    let e = Index::open(&file, &root).unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
    // Writable by others.
    bytes[20] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    assert!(Index::open(&file, &root).is_ok());
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    let e = Index::open(&file, &root).unwrap_err();
    assert!(e.to_string().contains("writable"), "{e}");
    // Cut short.
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(Index::open(&file, &root).is_err());
}

#[test]
fn the_build_budget_bounds_the_heap_of_posting_lists() {
    let mut seg = build::SegmentBuilder::default();
    let tris: Vec<u32> = (0..5000).collect();
    let mut w = persist::Writer::in_memory();
    let budget = 256 * 1024;
    let mut peak = 0;
    for id in 0..200 {
        seg.add(id, &tris);
        peak = peak.max(seg.heap());
        if seg.heap() >= budget {
            seg.flush(&mut w, id + 1).unwrap();
        }
    }
    // One file's lists past the budget at most.
    assert!(peak < budget + 5000 * 64, "{peak}");
}
