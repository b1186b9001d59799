//! The trigram index through the server: a restarted server uses the index its predecessor
//! left in the index directory (outside the root, private), finds the files changed while
//! it was down and those written since, and writes nothing into the root.

use mapgrep::platform::test_support as sys;
use std::path::{Path, PathBuf};

use crate::common::{Fixture, Server, files_with, wait_for_log};

/// Every path under `dir`, relative and sorted.
fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.push(p.strip_prefix(dir).unwrap().to_path_buf());
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn a_restarted_server_uses_its_persisted_index() {
    let fx = Fixture::new();
    std::fs::create_dir(fx.root.join(".git")).unwrap();
    for i in 0..60 {
        crate::common::date_back(&fx.write(
            &format!("src/m{i}.c"),
            format!("int f{i}(void);\nPM_SUSPEND {i}\n"),
        ));
    }
    crate::common::date_back(&fx.write("src/hit.c", "x\nPM_RESUME here\n"));
    let before = listing(&fx.root);
    let idx = fx.base().join("cache").join("index");
    let args = ["--index-dir", idx.to_str().unwrap()];

    let log1 = fx.base().join("first.log");
    let srv = Server::start_logged(&[fx.root.as_path()], &args, &log1).await;
    let built = wait_for_log(&log1, "built");
    assert!(built.contains("61 files"), "{built}");
    assert_eq!(files_with(&srv, "PM_RESUME").await, ["src/hit.c"]);
    srv.shutdown().await;

    // What was written, where, and how: one private store directory (a manifest and one
    // segment file, private) in a private directory.
    let stores: Vec<_> = std::fs::read_dir(&idx)
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with("mapgrep-marks"))
        .collect();
    assert_eq!(stores.len(), 1, "{stores:?}");
    let store = stores[0].path();
    // (Mode bits where the system has them: Windows has only a read-only attribute.)
    let private = sys::supported();
    let mode = |p: &Path| sys::mode(&std::fs::metadata(p).unwrap());
    if private {
        assert_eq!(mode(&idx), 0o700);
        assert_eq!(mode(&store), 0o700);
    }
    let names: Vec<String> = std::fs::read_dir(&store)
        .unwrap()
        .flatten()
        .map(|e| {
            if private {
                assert_eq!(mode(&e.path()), 0o600, "{e:?}");
            }
            e.file_name().to_string_lossy().into_owned()
        })
        .collect();
    assert!(names.iter().any(|n| n == "MANIFEST"), "{names:?}");
    assert_eq!(
        names.iter().filter(|n| n.ends_with(".seg")).count(),
        1,
        "{names:?}"
    );
    assert_eq!(listing(&fx.root), before, "the server wrote into the root");

    // Changed while no server ran.
    fx.write("src/m3.c", "int f3(void);\nPM_RESUME added while down\n");
    let log2 = fx.base().join("second.log");
    let srv = Server::start_logged(&[fx.root.as_path()], &args, &log2).await;
    let loaded = wait_for_log(&log2, "loaded from");
    assert!(loaded.contains("61 files, 1 changed since"), "{loaded}");
    let ms: u64 = loaded
        .split("ready in ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{loaded}"));
    assert!(ms < 1000, "{loaded}");
    assert!(
        !std::fs::read_to_string(&log2).unwrap().contains("built"),
        "the restarted server rebuilt its index"
    );
    assert_eq!(
        files_with(&srv, "PM_RESUME").await,
        ["src/hit.c", "src/m3.c"]
    );
    // Written while it runs: the next search sees it, and a deleted file is gone.
    fx.write("src/new.c", "PM_RESUME new\n");
    std::fs::remove_file(fx.root.join("src/hit.c")).unwrap();
    assert_eq!(
        files_with(&srv, "PM_RESUME").await,
        ["src/m3.c", "src/new.c"]
    );
    srv.shutdown().await;
    let mut want = before.clone();
    want.retain(|p| p != Path::new("src/hit.c"));
    want.push("src/new.c".into());
    want.sort();
    assert_eq!(listing(&fx.root), want, "the server wrote into the root");
}
