//! The sandbox's guarantees, run in both builds (`cargo test`, and again with
//! `RUSTFLAGS="--cfg mapgrep_portable"`: scripts/test.sh): links swapped in after the check,
//! escapes through a directory link, hard links.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::test_support::symlink;
use crate::error::Error;
use crate::roots::Roots;
use crate::workspace::Workspace;

const SECRET: &str = "SECRET outside the root\n";
const INSIDE: &str = "inside\n";

/// `base/root/d/f.txt` (inside) and `base/outside/f.txt` (the secret), canonical.
fn fixture() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (root, outside) = (base.join("root"), base.join("outside"));
    std::fs::create_dir_all(root.join("d")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("d/f.txt"), INSIDE).unwrap();
    std::fs::write(outside.join("f.txt"), SECRET).unwrap();
    (dir, root, outside)
}

/// A link to a directory outside, or to a file, is refused by the open itself (as when it
/// was swapped in after the path was checked), in both sandboxes.
#[test]
fn the_open_refuses_links_out_of_the_root() {
    let (_dir, root, outside) = fixture();
    let roots = Roots::new([&root]).unwrap();
    symlink(&outside, root.join("out")).unwrap();
    symlink(outside.join("f.txt"), root.join("out.txt")).unwrap();
    symlink(root.join("d/f.txt"), root.join("in.txt")).unwrap();
    for p in ["out/f.txt", "out.txt", "in.txt"] {
        let e = super::open_read(&root.join(p)).expect_err(p);
        assert!(
            matches!(Error::io(Path::new(p), e), Error::InvalidPath { .. }),
            "{p}"
        );
    }
    assert!(super::open_dir(&root.join("out")).is_err());
    let d = super::open_dir(&root.join("d")).unwrap();
    assert!(d.open_read("f.txt".as_ref()).is_ok());
    drop(roots);
}

/// One thread swaps `root/d` between the real directory and a link to a directory outside
/// the root while others resolve and open `d/f.txt` through the workspace, load it as a
/// search does, and open `d` as the atomic replace does: nothing outside is ever read, and
/// every directory opened is the real one.
#[test]
fn a_directory_swapped_for_a_link_never_leaks() {
    let (_dir, root, outside) = fixture();
    let ws = Workspace::new(Roots::new([&root]).unwrap());
    let real_ino = super::stamp(&std::fs::metadata(root.join("d/f.txt")).unwrap()).ino;
    let done = AtomicBool::new(false);
    // Reads that succeeded; refusals of the resolver or the open; loads (no resolver: the
    // open alone stands between the search and the link) the open refused as a link.
    let (read, refused, open_refused) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let mut buf = Vec::new();
                let mut kept = super::Opener::default();
                while !done.load(Ordering::Relaxed) {
                    match ws.open_source("d/f.txt") {
                        Ok(src) => {
                            assert_eq!(src.bytes(), INSIDE.as_bytes(), "read outside the root");
                            read.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(_) => {
                            refused.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    let canonical = root.join("d/f.txt");
                    match crate::source::load(
                        &canonical,
                        &crate::source::SourceOptions::for_search(u64::MAX, false),
                        &mut buf,
                    ) {
                        Ok((_, hay)) => {
                            assert_eq!(&*hay, INSIDE.as_bytes(), "searched outside the root")
                        }
                        Err(Error::InvalidPath { .. }) => {
                            open_refused.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(_) => {}
                    }
                    // A walk's opener, fresh (it meets the link) and kept across the swaps (it
                    // reads through the directory it opened, wherever it is now).
                    for opener in [&mut super::Opener::default(), &mut kept] {
                        let opts = crate::source::SourceOptions::for_search(u64::MAX, false);
                        if let Ok((_, hay)) =
                            crate::source::load_in(opener, &canonical, &opts, &mut buf)
                        {
                            assert_eq!(&*hay, INSIDE.as_bytes(), "opened outside the root");
                        }
                    }
                    if let Ok(d) = super::open_dir(&root.join("d")) {
                        let id = d.stamp_at("f.txt".as_ref()).unwrap();
                        if cfg!(unix) {
                            assert_eq!(id.ino, real_ino, "a directory outside was opened");
                        }
                    }
                }
            });
        }
        let parked = root.join("parked");
        for _ in 0..2000 {
            std::fs::rename(root.join("d"), &parked).unwrap();
            symlink(&outside, root.join("d")).unwrap();
            std::thread::yield_now();
            std::fs::remove_file(root.join("d")).unwrap();
            std::fs::rename(&parked, root.join("d")).unwrap();
            std::thread::yield_now();
        }
        done.store(true, Ordering::Relaxed);
    });
    let (read, refused) = (read.into_inner(), refused.into_inner());
    let open_refused = open_refused.into_inner();
    eprintln!(
        "{read} reads, {refused} refused or not found; {open_refused} loads refused by the open"
    );
    assert!(read > 0);
    assert!(open_refused > 0, "the open never met the link");
}

/// A hard link inside a root to a file outside it is read: it is the same file under a name
/// inside the root (SECURITY.md), in both sandboxes.
#[test]
fn a_hard_link_inside_the_root_is_read() {
    let (_dir, root, outside) = fixture();
    std::fs::hard_link(outside.join("f.txt"), root.join("linked.txt")).unwrap();
    let ws = Workspace::new(Roots::new([&root]).unwrap());
    let src = ws.open_source("linked.txt").unwrap();
    assert_eq!(src.bytes(), SECRET.as_bytes());
}

/// The opener opens what the whole path's open does, through the directory it keeps: files
/// of two directories in turn, a missing file, a link in the last component or in the
/// directory's path, in both sandboxes.
#[test]
fn the_opener_opens_what_the_path_opens() {
    let (_dir, root, outside) = fixture();
    std::fs::create_dir_all(root.join("e")).unwrap();
    std::fs::write(root.join("e/g.txt"), "g\n").unwrap();
    symlink(outside.join("f.txt"), root.join("d/link.txt")).unwrap();
    symlink(&outside, root.join("out")).unwrap();
    let _roots = Roots::new([&root]).unwrap();
    let mut opener = super::Opener::default();
    let read = |opener: &mut super::Opener, p: &Path| std::io::read_to_string(opener.open_read(p)?);
    for _ in 0..2 {
        assert_eq!(read(&mut opener, &root.join("d/f.txt")).unwrap(), INSIDE);
        assert_eq!(read(&mut opener, &root.join("d/f.txt")).unwrap(), INSIDE);
        assert_eq!(read(&mut opener, &root.join("e/g.txt")).unwrap(), "g\n");
    }
    let missing = read(&mut opener, &root.join("e/none.txt")).unwrap_err();
    assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
    for link in [root.join("d/link.txt"), root.join("out/f.txt")] {
        let whole = super::open_read(&link).unwrap_err();
        let e = read(&mut opener, &link).unwrap_err();
        assert_eq!(
            super::os_error(&e),
            Some(super::OsError::Link),
            "{link:?}: {e}"
        );
        assert_eq!(
            super::os_error(&whole),
            Some(super::OsError::Link),
            "{link:?}"
        );
    }
}

/// A path's directory and name, as the opener splits them.
#[cfg(unix)]
#[test]
fn a_path_splits_at_its_last_separator() {
    use std::ffi::OsStr;
    fn split(p: &str) -> Option<(&Path, &std::ffi::OsStr)> {
        super::os::split_name(Path::new(p))
    }
    assert_eq!(
        split("/a/b/c.txt"),
        Some((Path::new("/a/b"), OsStr::new("c.txt")))
    );
    assert_eq!(split("/c.txt"), Some((Path::new("/"), OsStr::new("c.txt"))));
    assert_eq!(
        split("./c.txt"),
        Some((Path::new("."), OsStr::new("c.txt")))
    );
    for none in ["c.txt", "/a/", "/a/.", "/a/..", ""] {
        assert_eq!(split(none), None, "{none}");
    }
}
