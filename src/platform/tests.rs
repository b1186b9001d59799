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
