//! The roots sandbox through both read tools: every escape is refused promptly with a clear
//! error, nothing outside the root leaks, and the server keeps answering afterwards.

use mapgrep::platform::test_support as sys;
use std::path::Path;
use std::time::Instant;

use serde_json::json;

#[cfg(unix)]
use crate::common::blocks;
use crate::common::{CALL_TIMEOUT, Fixture, Server, one_block, parse_error_block, read_block};

const SECRET: &str = "TOP SECRET outside the root\n";

/// A root `base/repo` with a good file, and around it: `base/outside/secret.txt`,
/// `base/repo-evil/secret.txt` (a sibling sharing the root's name as a prefix), symlinks in the
/// root to a file and a directory outside, a FIFO (where the system has them) and a directory
/// in the root.
fn sandbox_fixture() -> Fixture {
    let fx = Fixture::new();
    fx.write("good.md", "# Good\nline 2\n");
    fx.write("sub/inner.md", "inner\n");
    fx.write_outside("outside/secret.txt", SECRET);
    fx.write_outside("repo-evil/secret.txt", SECRET);
    sys::symlink(
        fx.base().join("outside/secret.txt"),
        fx.root.join("link.txt"),
    )
    .expect("symlink to a file");
    sys::symlink(fx.base().join("outside"), fx.root.join("outdir"))
        .expect("symlink to a directory");
    sys::symlink(fx.root.join("good.md"), fx.root.join("inlink.md")).expect("symlink inside");
    if sys::supported() {
        let status = std::process::Command::new("mkfifo")
            .arg(fx.root.join("pipe"))
            .status()
            .expect("run mkfifo");
        assert!(status.success(), "mkfifo failed");
    }
    fx
}

/// What a refusal must look like.
#[derive(Clone, Copy, Debug)]
enum Refusal {
    /// Outside the roots: read_files "Path outside the allowed roots", read_text_file -32002.
    Outside,
    /// Not a regular file (`kind` appears in the problem): read_files "Not a regular file",
    /// read_text_file -32003 "{path} is not a file".
    NotAFile(&'static str),
}

/// Asserts that `read_files` refuses `path` the way `refusal` says, promptly.
async fn assert_read_files_refuses(srv: &Server, path: &str, refusal: Refusal) {
    let started = Instant::now();
    let out = srv.read_one(json!({"path": path})).await;
    assert!(started.elapsed() < CALL_TIMEOUT);
    assert!(out.is_error, "read_files {path}: {}", out.text);
    assert!(
        out.text.starts_with(&format!("File: {path}\nError: ")),
        "{}",
        out.text
    );
    assert!(!out.text.contains("TOP SECRET"), "{}", out.text);
    let e = parse_error_block(&out.text);
    match refusal {
        Refusal::Outside => {
            assert_eq!(e.short, "Path outside the allowed roots", "{path}: {e:?}");
            assert!(e.problem.contains("outside the allowed roots"), "{e:?}");
        }
        Refusal::NotAFile(kind) => {
            assert_eq!(e.short, "Not a regular file", "{path}: {e:?}");
            assert!(e.problem.contains(kind), "{path}: {e:?}");
        }
    }
    assert!(!e.fix.is_empty());
    // Section reads are refused the same way.
    let out = srv
        .read_one(json!({"path": path, "start_line": 1, "read_to_next_pattern": "^#"}))
        .await;
    assert!(out.is_error, "read_files {path} (section): {}", out.text);
    assert!(!out.text.contains("TOP SECRET"), "{}", out.text);
}

/// Asserts that `read_text_file` refuses the absolute `path` the way `refusal` says, promptly.
async fn assert_read_text_file_refuses(srv: &Server, path: &str, refusal: Refusal) {
    let started = Instant::now();
    let result = srv.read_text_file(json!({"path": path})).await;
    assert!(started.elapsed() < CALL_TIMEOUT);
    let e = match result {
        Ok(r) => panic!("read_text_file {path} should fail, got {r:?}"),
        Err(e) => e,
    };
    assert!(!e.message.contains("TOP SECRET"), "{e:?}");
    match refusal {
        Refusal::Outside => {
            assert_eq!(e.code.0, -32002, "{path}: {e:?}");
            assert!(
                e.message.starts_with(&format!("Permission denied: {path}")),
                "{e:?}"
            );
            assert!(e.message.contains("outside the allowed roots"), "{e:?}");
        }
        Refusal::NotAFile(_) => {
            assert_eq!(e.code.0, -32003, "{path}: {e:?}");
            assert_eq!(e.message, format!("{path} is not a file"));
        }
    }
}

/// A good read still works (and the server is alive).
async fn assert_good_read(srv: &Server, fx: &Fixture) {
    let out = srv.read_one(json!({"path": "good.md"})).await;
    assert_eq!(
        one_block(&out.text),
        read_block("good.md", "1-2 of 2", &[], "# Good\nline 2\n")
    );
    let r = srv
        .read_text_file(json!({"path": fx.abs("good.md")}))
        .await
        .expect("good read_text_file");
    assert_eq!(
        r.structured_content.as_ref().unwrap()["content"],
        json!("# Good\nline 2\n")
    );
}

fn s(p: &Path) -> String {
    p.to_str().expect("utf-8 path").to_string()
}

#[tokio::test]
async fn absolute_path_outside_the_root() {
    let fx = sandbox_fixture();
    let srv = fx.serve().await;
    let p = s(&fx.base().join("outside/secret.txt"));
    assert_read_files_refuses(&srv, &p, Refusal::Outside).await;
    assert_read_text_file_refuses(&srv, &p, Refusal::Outside).await;
    // (On Windows `/etc/passwd` is not an absolute path.)
    if cfg!(unix) {
        assert_read_files_refuses(&srv, "/etc/passwd", Refusal::Outside).await;
        assert_read_text_file_refuses(&srv, "/etc/passwd", Refusal::Outside).await;
    }
    assert_good_read(&srv, &fx).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn dotdot_escape() {
    let fx = sandbox_fixture();
    let srv = fx.serve().await;
    assert_read_files_refuses(&srv, "../outside/secret.txt", Refusal::Outside).await;
    assert_read_files_refuses(&srv, "sub/../../outside/secret.txt", Refusal::Outside).await;
    let p = format!("{}/../outside/secret.txt", s(&fx.root));
    assert_read_files_refuses(&srv, &p, Refusal::Outside).await;
    assert_read_text_file_refuses(&srv, &p, Refusal::Outside).await;
    // `..` that stays inside the root is fine.
    let out = srv.read_one(json!({"path": "sub/../good.md"})).await;
    assert!(!out.is_error, "{}", out.text);
    assert_good_read(&srv, &fx).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn sibling_directory_sharing_the_root_prefix() {
    let fx = sandbox_fixture();
    let srv = fx.serve().await;
    let p = s(&fx.base().join("repo-evil/secret.txt"));
    assert!(p.starts_with(&s(&fx.root)), "the fixture shares the prefix");
    assert_read_files_refuses(&srv, &p, Refusal::Outside).await;
    assert_read_text_file_refuses(&srv, &p, Refusal::Outside).await;
    assert_read_files_refuses(&srv, "../repo-evil/secret.txt", Refusal::Outside).await;
    assert_good_read(&srv, &fx).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn symlink_to_a_file_outside() {
    let fx = sandbox_fixture();
    let srv = fx.serve().await;
    assert_read_files_refuses(&srv, "link.txt", Refusal::Outside).await;
    assert_read_text_file_refuses(&srv, &fx.abs("link.txt"), Refusal::Outside).await;
    // A symlink that stays inside the root is followed.
    let out = srv.read_one(json!({"path": "inlink.md"})).await;
    assert_eq!(
        one_block(&out.text),
        read_block("inlink.md", "1-2 of 2", &[], "# Good\nline 2\n")
    );
    assert_good_read(&srv, &fx).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn symlink_to_a_directory_outside() {
    let fx = sandbox_fixture();
    let srv = fx.serve().await;
    assert_read_files_refuses(&srv, "outdir/secret.txt", Refusal::Outside).await;
    assert_read_text_file_refuses(&srv, &fx.abs("outdir/secret.txt"), Refusal::Outside).await;
    // Even a missing file under the escaping link is "outside", not "not found".
    assert_read_files_refuses(&srv, "outdir/missing.txt", Refusal::Outside).await;
    assert_read_text_file_refuses(&srv, &fx.abs("outdir/missing.txt"), Refusal::Outside).await;
    assert_good_read(&srv, &fx).await;
    srv.shutdown().await;
}

/// Unix: devices and FIFOs.
#[tokio::test]
#[cfg(unix)]
async fn dev_zero_outside_the_root() {
    let fx = sandbox_fixture();
    let srv = fx.serve().await;
    assert_read_files_refuses(&srv, "/dev/zero", Refusal::Outside).await;
    assert_read_text_file_refuses(&srv, "/dev/zero", Refusal::Outside).await;
    assert_good_read(&srv, &fx).await;
    srv.shutdown().await;
}

/// Unix: devices and FIFOs.
#[tokio::test]
#[cfg(unix)]
async fn devices_inside_a_root_are_not_read() {
    // With /dev itself as the root, /dev/zero is inside it: it must be refused as a device,
    // without reading (an endless read would hang or exhaust memory).
    let srv = Server::start(&[Path::new("/dev")], &[]).await;
    for dev in ["/dev/zero", "/dev/null", "/dev/urandom"] {
        assert_read_files_refuses(&srv, dev, Refusal::NotAFile("device")).await;
        assert_read_text_file_refuses(&srv, dev, Refusal::NotAFile("device")).await;
    }
    assert_read_files_refuses(&srv, "zero", Refusal::NotAFile("device")).await;
    srv.shutdown().await;
}

/// Unix: devices and FIFOs.
#[tokio::test]
#[cfg(unix)]
async fn fifo_inside_the_root() {
    let fx = sandbox_fixture();
    let srv = fx.serve().await;
    assert_read_files_refuses(&srv, "pipe", Refusal::NotAFile("FIFO")).await;
    assert_read_text_file_refuses(&srv, &fx.abs("pipe"), Refusal::NotAFile("FIFO")).await;
    assert_good_read(&srv, &fx).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn directory_inside_the_root() {
    let fx = sandbox_fixture();
    let srv = fx.serve().await;
    assert_read_files_refuses(&srv, "sub", Refusal::NotAFile("directory")).await;
    assert_read_files_refuses(&srv, ".", Refusal::NotAFile("directory")).await;
    assert_read_text_file_refuses(&srv, &fx.abs("sub"), Refusal::NotAFile("directory")).await;
    assert_good_read(&srv, &fx).await;
    srv.shutdown().await;
}

/// Unix: devices and FIFOs.
#[tokio::test]
#[cfg(unix)]
async fn the_server_survives_every_refusal_in_one_session() {
    let fx = sandbox_fixture();
    let srv = fx.serve().await;
    let outside = s(&fx.base().join("outside/secret.txt"));
    let evil = s(&fx.base().join("repo-evil/secret.txt"));
    // One batch with every bad path and a good one at the end.
    let out = srv
        .read_files(json!({"files": [
            {"path": outside},
            {"path": "../outside/secret.txt"},
            {"path": evil},
            {"path": "link.txt"},
            {"path": "outdir/secret.txt"},
            {"path": "/dev/zero"},
            {"path": "pipe"},
            {"path": "sub"},
            {"path": "good.md"},
        ]}))
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert!(!out.text.contains("TOP SECRET"), "{}", out.text);
    assert_eq!(out.text.matches("\nError: ").count(), 8, "{}", out.text);
    assert_eq!(
        blocks(&out.text).last(),
        Some(&read_block("good.md", "1-2 of 2", &[], "# Good\nline 2\n")),
        "{}",
        out.text
    );
    for p in [
        outside,
        evil,
        fx.abs("link.txt"),
        fx.abs("outdir/secret.txt"),
        "/dev/zero".to_string(),
        fx.abs("pipe"),
        fx.abs("sub"),
    ] {
        assert!(srv.read_text_file(json!({"path": p})).await.is_err(), "{p}");
    }
    assert_good_read(&srv, &fx).await;
    srv.shutdown().await;
}
