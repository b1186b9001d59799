//! The index's upkeep through the real binary: links out of the root are never watched (a
//! server on a root with `link -> /` and `link -> /proc/self/root` answers at once, sets
//! watches only inside, and exits at the end of its input); writes no watcher reports
//! (another hard link, a shared map) are seen within the sweep's window; a damaged segment
//! is refused with its name and why, and searches scan meanwhile; a server killed at any
//! moment of its writes leaves an index that the next one uses (or rebuilds) without a
//! stale answer.

#[cfg(target_os = "linux")]
use mapgrep::platform::test_support as sys;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{BIN, Fixture, Server, files_with, wait_for_log};

/// Starts `mapgrep serve` on `root` with `args`, stderr to `log`; returns it once it has
/// answered `initialize`, and how long that took.
fn raw_server(root: &Path, args: &[&str], log: &Path) -> (Child, Duration) {
    let mut c = Command::new(BIN)
        .arg("serve")
        .args(args)
        .arg(root)
        .env(
            "XDG_CACHE_HOME",
            std::env::temp_dir().join("mapgrep-it-cache"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    let t = Instant::now();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    let stdin = c.stdin.as_mut().unwrap();
    writeln!(stdin, "{init}").unwrap();
    let mut line = String::new();
    BufReader::new(c.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("\"id\":1"), "{line}");
    (c, t.elapsed())
}

/// How many inotify watches process `pid` holds (Linux: from `/proc/PID/fdinfo`).
#[cfg(target_os = "linux")]
fn watches(pid: u32) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(format!("/proc/{pid}/fdinfo"))
        .unwrap()
        .flatten()
    {
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        n += text
            .lines()
            .filter(|l| l.starts_with("inotify wd:"))
            .count();
    }
    n
}

fn wait_exit(c: &mut Child, limit: Duration) -> bool {
    let t = Instant::now();
    while t.elapsed() < limit {
        if c.try_wait().unwrap().is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Linux only: it counts inotify watches and reads the memory in `/proc/PID`.
#[test]
#[cfg(target_os = "linux")]
fn links_out_of_the_root_are_never_watched() {
    let fx = Fixture::new();
    for i in 0..5 {
        fx.write(&format!("d{i}/f.c"), "int x;\n");
    }
    sys::symlink("/", fx.root.join("link")).unwrap();
    sys::symlink("/proc/self/root", fx.root.join("lnproc")).unwrap();
    let idx = fx.base().join("index");
    let log = fx.base().join("log");
    let (mut c, init) = raw_server(&fx.root, &["--index-dir", idx.to_str().unwrap()], &log);
    assert!(init < Duration::from_secs(2), "initialize took {init:?}");
    let pid = c.id();
    let t = Instant::now();
    while !std::fs::read_to_string(&log).unwrap().contains("built") {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "{}",
            std::fs::read_to_string(&log).unwrap()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The root, its five directories and the marks directory.
    let n = watches(pid);
    assert!(n <= 8, "{n} watches");
    let rss = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:").map(|v| v.trim().to_string()))
        .unwrap();
    let kb: u64 = rss.split_whitespace().next().unwrap().parse().unwrap();
    assert!(kb < 200_000, "{rss}");
    // The end of its input ends it, and its marks directory goes with it.
    let marks = || {
        std::fs::read_dir(&idx)
            .unwrap()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("mapgrep-marks-")
            })
            .count()
    };
    assert_eq!(marks(), 1);
    drop(c.stdin.take());
    assert!(wait_exit(&mut c, Duration::from_secs(5)), "still running");
    assert_eq!(marks(), 0);
}

/// Waits up to `limit` for a grep of `pattern` to name `want`.
async fn eventually(srv: &Server, pattern: &str, want: &[&str], limit: Duration) -> Duration {
    let t = Instant::now();
    loop {
        if files_with(srv, pattern).await == want {
            return t.elapsed();
        }
        assert!(t.elapsed() < limit, "{pattern}: not seen within {limit:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn writes_no_watcher_reports_are_seen_within_the_sweep_window() {
    let fx = repo(20, |i| (format!("src/m{i}.c"), format!("int f{i};\n")));
    let linked = fx.write("src/linked.c", "old text here\n");
    let mapped = fx.write("src/mapped.c", "0123456789 old\n");
    let outside = fx.base().join("outside-link.c");
    std::fs::hard_link(&linked, &outside).unwrap();
    let (srv, _log) = fx.serve_indexed().await;
    assert_eq!(files_with(&srv, "old text").await, ["src/linked.c"]);
    assert!(files_with(&srv, "HARDLINKED").await.is_empty());
    // Through the other link: no event for src/linked.c.
    std::fs::write(&outside, "HARDLINKED now\n").unwrap();
    // Through a shared map: no event at all.
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&mapped)
        .unwrap();
    // SAFETY: the file is this test's own, and nothing else maps or truncates it.
    let mut m = unsafe { memmap2::MmapMut::map_mut(&f).unwrap() };
    // Closed before the write (its close is reported, and the upkeep may read the file
    // before the write): the write itself reports nothing.
    drop(f);
    tokio::time::sleep(Duration::from_secs(4)).await;
    m[..10].copy_from_slice(b"MAPWRITTEN");
    m.flush().unwrap();
    drop(m);
    let window = Duration::from_secs(40);
    eventually(&srv, "HARDLINKED", &["src/linked.c"], window).await;
    eventually(&srv, "MAPWRITTEN", &["src/mapped.c"], window).await;
    srv.shutdown().await;
}

#[tokio::test]
async fn a_damaged_segment_is_refused_with_its_name_and_searches_scan() {
    let fx = repo(30, |i| {
        (
            format!("src/m{i}.c"),
            format!("int f{i};\nPM_SUSPEND {i}\n"),
        )
    });
    fx.write("src/hit.c", "PM_RESUME here\n");
    let idx = fx.base().join("index");
    let out = Command::new(BIN)
        .args(["index", "--index-dir", idx.to_str().unwrap()])
        .arg(&fx.root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let store = std::fs::read_dir(&idx)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let seg = std::fs::read_dir(&store)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "seg"))
        .unwrap();
    let mut bytes = std::fs::read(&seg).unwrap();
    bytes[40] ^= 0x10;
    std::fs::write(&seg, &bytes).unwrap();
    let log = fx.base().join("log");
    let srv = Server::start_logged(
        &[fx.root.as_path()],
        &["--index-dir", idx.to_str().unwrap()],
        &log,
    )
    .await;
    // Answered at once (by a scan while the index is rebuilt).
    assert_eq!(files_with(&srv, "PM_RESUME").await, ["src/hit.c"]);
    let refused = wait_for_log(&log, "refused");
    let name = seg.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        refused.contains(&name) && refused.contains("checksum"),
        "{refused}"
    );
    wait_for_log(&log, "built");
    assert_eq!(files_with(&srv, "PM_RESUME").await, ["src/hit.c"]);
    srv.shutdown().await;
}

/// A repository (a `.git` directory) of `n` files, `file(i)` giving each one's path and
/// contents.
fn repo(n: usize, file: impl Fn(usize) -> (String, String)) -> Fixture {
    let fx = Fixture::new();
    std::fs::create_dir(fx.root.join(".git")).unwrap();
    for i in 0..n {
        let (path, body) = file(i);
        fx.write(&path, body);
    }
    fx
}

/// A tiny xorshift for the kill times.
fn next(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

#[tokio::test]
async fn a_server_killed_while_it_writes_leaves_a_usable_index() {
    let fx = repo(200, |i| {
        (
            format!("src/d{}/m{i}.c", i % 10),
            format!("int f{i};\nBASE_{i}\n"),
        )
    });
    let idx = fx.base().join("index");
    let args = ["--index-dir", idx.to_str().unwrap()];
    let mut seed = 0x9e37_79b9_u64;
    for round in 0..6 {
        let log = fx.base().join(format!("log{round}"));
        let (mut c, _) = raw_server(&fx.root, &args, &log);
        // Edits that the upkeep turns into segments (and merges) after its pause.
        for k in 0..40 {
            let i = next(&mut seed) % 200;
            fx.write(
                &format!("src/d{}/m{i}.c", i % 10),
                format!("int f{i};\nEDIT_{round}_{k}\n"),
            );
        }
        std::thread::sleep(Duration::from_millis(2000 + next(&mut seed) % 2500));
        c.kill().unwrap();
        c.wait().unwrap();
    }
    // What every file holds now, against what a server finds through the index.
    let log = fx.base().join("final");
    let srv = Server::start_logged(&[fx.root.as_path()], &args, &log).await;
    let line = wait_for_log(&log, "mapgrep: index of");
    assert!(line.contains("loaded") || line.contains("built"), "{line}");
    let scan = Server::start(&[fx.root.as_path()], &["--no-index"]).await;
    for p in ["EDIT_5_", "EDIT_3_1", "BASE_1", r"EDIT_\d_3\b", "f17;"] {
        assert_eq!(files_with(&srv, p).await, files_with(&scan, p).await, "{p}");
    }
    srv.shutdown().await;
    scan.shutdown().await;
}

#[tokio::test]
async fn the_command_line_trusts_a_watching_server_and_sees_every_edit() {
    let fx = repo(40, |i| (format!("src/m{i}.c"), format!("int f{i};\n")));
    let cache = fx.base().join("cache");
    let log = fx.base().join("log");
    let file = std::fs::File::create(&log).unwrap();
    let mut srv = Command::new(BIN)
        .arg("serve")
        .arg(&fx.root)
        .env("XDG_CACHE_HOME", &cache)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(file)
        .spawn()
        .unwrap();
    wait_for_log(&log, "built");
    let grep = |cache: &Path| {
        let o = Command::new(BIN)
            .args(["grep", "-n", "EDITED"])
            .current_dir(&fx.root)
            .env("XDG_CACHE_HOME", cache)
            .output()
            .unwrap();
        let mut lines: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(String::from)
            .collect();
        lines.sort();
        (lines, String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let none = fx.base().join("no-cache");
    for k in 0..12 {
        // Each edit is searched at once: the server's dirty paths cover it.
        match k % 3 {
            0 => {
                fx.write(&format!("src/new{k}.c"), format!("EDITED {k}\n"));
            }
            1 => {
                fx.write(&format!("src/m{k}.c"), format!("EDITED in place {k}\n"));
            }
            _ => std::fs::remove_file(fx.root.join(format!("src/new{}.c", k - 2))).unwrap(),
        }
        let (ours, note) = grep(&cache);
        assert!(
            note.contains("kept fresh by a server watching the root"),
            "{note}"
        );
        assert_eq!(ours, grep(&none).0, "edit {k}");
        if k == 5 {
            // Let the upkeep take the edits in: the answers stay the scan's.
            std::thread::sleep(Duration::from_secs(4));
        }
    }
    drop(srv.stdin.take());
    assert!(wait_exit(&mut srv, Duration::from_secs(5)));
    // No server: validated by metadata again.
    let (_, note) = grep(&cache);
    assert!(note.contains("validated by metadata"), "{note}");
}

#[test]
fn a_server_start_prunes_the_indexes_of_roots_that_are_gone() {
    let fx = Fixture::new();
    let idx = fx.base().join("index");
    let index = |root: &Path| {
        let o = Command::new(BIN)
            .args(["index", "--index-dir", idx.to_str().unwrap()])
            .arg(root)
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
    };
    // Twenty temporary roots, indexed, then deleted; one that stays.
    for i in 0..20 {
        let r = fx.base().join(format!("tmp{i}"));
        std::fs::create_dir_all(r.join("src")).unwrap();
        std::fs::write(r.join("src/a.c"), format!("int x{i};\n")).unwrap();
        index(&r);
        std::fs::remove_dir_all(&r).unwrap();
    }
    let live = fx.base().join("live");
    std::fs::create_dir_all(&live).unwrap();
    std::fs::write(live.join("b.c"), "int y;\n").unwrap();
    index(&live);
    let list = || {
        let o = Command::new(BIN)
            .args(["index", "--list", "--index-dir", idx.to_str().unwrap()])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    assert_eq!(list().lines().count(), 21, "{}", list());
    fx.write("c.c", "int z;\n");
    let log = fx.base().join("log");
    let (mut c, _) = raw_server(&fx.root, &["--index-dir", idx.to_str().unwrap()], &log);
    wait_for_log(&log, "built");
    wait_for_log(&log, "removed 20 unused");
    // The live root's index and the server's own are left.
    let left = list();
    let roots: Vec<&str> = left
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    let mut want = vec![
        fx.root.to_string_lossy().into_owned(),
        live.canonicalize().unwrap().to_string_lossy().into_owned(),
    ];
    want.sort();
    assert_eq!(roots, want, "{left}");
    assert!(left.contains("in use"), "{left}");
    drop(c.stdin.take());
    assert!(wait_exit(&mut c, Duration::from_secs(5)));
    // The cap: the least recently used goes first, never the one in use.
    let o = Command::new(BIN)
        .args(["index", "--prune", "--index-cap-bytes", "1", "--index-dir"])
        .arg(&idx)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("2 removed"),
        "{o:?}"
    );
    assert_eq!(list().trim(), format!("no index in {}", idx.display()));
}
