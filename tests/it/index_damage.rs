//! The index's files through the real binary: a segment damaged in place under a watching
//! server (its size and modification time kept, as a write through a shared map leaves it)
//! is seen by the searches that read it — the command line's one-shot grep and the server's
//! `grep_content` answer as a scan — and the server rebuilds it; fifteen server starts
//! (ended by the end of their input, by SIGTERM, or killed) leave the index directory as
//! the first one left it; a writer killed while it writes leaves no temporary file once
//! the next process that may write the index has started.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{BIN, Fixture, Server, files_with, wait_for_log};

/// A repository (a `.git` directory) of `n` files dated back an hour (so that the index
/// trusts them at once), every third holding `PM_RESUME`.
fn repo(n: usize) -> Fixture {
    let fx = Fixture::new();
    std::fs::create_dir(fx.root.join(".git")).unwrap();
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    for i in 0..n {
        let body = if i % 3 == 0 {
            format!("int f{i}(void);\nPM_SUSPEND {i}\nx = PM_RESUME + {i};\n")
        } else {
            format!("int f{i}(void);\npm_runtime_resume({i});\n")
        };
        let p = fx.write(&format!("src/d{}/m{i}.c", i % 7), body);
        let f = std::fs::File::options().write(true).open(p).unwrap();
        f.set_modified(old).unwrap();
    }
    fx
}

/// The one segment file of the index directory `idx`.
fn segment(idx: &Path) -> PathBuf {
    let mut segs: Vec<PathBuf> = files_under(idx)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "seg"))
        .collect();
    assert_eq!(segs.len(), 1, "{segs:?}");
    segs.pop().unwrap()
}

/// Every file and directory under `dir`.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(e.path());
            }
            out.push(e.path());
        }
    }
    out.sort();
    out
}

/// Zeroes every posting list and table of the segment at `seg` through a shared map, then
/// sets its modification time back: its size and time are those it had.
fn zero_lists_in_place(seg: &Path) {
    let before = std::fs::metadata(seg).unwrap();
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(seg)
        .unwrap();
    // SAFETY: the file is this test's index, which no process truncates meanwhile (the
    // server only reads it).
    let mut m = unsafe { memmap2::MmapMut::map_mut(&f).unwrap() };
    let tail = m.len() - 32;
    let files_off = u64::from_le_bytes(m[tail..tail + 8].try_into().unwrap()) as usize;
    m[8..files_off].fill(0);
    m.flush().unwrap();
    drop(m);
    f.set_modified(before.modified().unwrap()).unwrap();
    let after = std::fs::metadata(seg).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap()),
        (before.len(), before.modified().unwrap())
    );
}

/// `mapgrep grep -n PATTERN` in `root` with `XDG_CACHE_HOME=cache`: the lines, sorted, and
/// what it said on stderr.
fn cli_grep(root: &Path, cache: &Path, pattern: &str) -> (Vec<String>, String) {
    let o = Command::new(BIN)
        .args(["grep", "-n", pattern])
        .current_dir(root)
        .env("XDG_CACHE_HOME", cache)
        .output()
        .unwrap();
    let mut lines: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(String::from)
        .collect();
    lines.sort();
    (lines, String::from_utf8_lossy(&o.stderr).into_owned())
}

/// Waits until `what` is in the log `n` times.
fn wait_for_count(log: &Path, what: &str, n: usize) {
    let t = Instant::now();
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.matches(what).count() >= n {
            return;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "{what:?} not {n} times in the log:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test]
async fn a_segment_damaged_in_place_under_a_watching_server_never_changes_an_answer() {
    let fx = repo(300);
    let cache = fx.base().join("cache");
    let idx = cache.join("mapgrep").join("index");
    let log = fx.base().join("log");
    let srv = Server::start_logged(
        &[fx.root.as_path()],
        &["--index-dir", idx.to_str().unwrap()],
        &log,
    )
    .await;
    wait_for_log(&log, "built");
    let scan = Server::start(&[fx.root.as_path()], &["--no-index"]).await;
    let none = fx.base().join("no-cache");
    let (want, _) = cli_grep(&fx.root, &none, "PM_RESUME");
    assert_eq!(want.len(), 100);
    let (ours, note) = cli_grep(&fx.root, &cache, "PM_RESUME");
    assert_eq!(ours, want);
    assert!(note.contains("kept fresh by a server watching"), "{note}");
    let files = files_with(&scan, "PM_RESUME").await;
    assert_eq!(files_with(&srv, "PM_RESUME").await, files);

    zero_lists_in_place(&segment(&idx));
    // The one-shot search reads damaged lists: it sees it, says so, and scans.
    let (ours, note) = cli_grep(&fx.root, &cache, "PM_RESUME");
    assert_eq!(ours, want);
    assert!(note.contains("damaged"), "{note}");
    assert!(!note.contains("used the trigram index"), "{note}");
    // The server's answers are the scan's, before and after it rebuilt the index.
    assert_eq!(files_with(&srv, "PM_RESUME").await, files);
    assert_eq!(files_with(&srv, "PM_SUSPEND").await, files);
    wait_for_log(&log, "damaged");
    wait_for_count(&log, " built (", 2);
    assert_eq!(files_with(&srv, "PM_RESUME").await, files);
    // The rebuilt index is vouched for again (a loaded machine may take a few tries for the
    // server to answer the one-shot's request in time; each answer is right either way).
    let mut vouched = false;
    for _ in 0..10 {
        let (ours, note) = cli_grep(&fx.root, &cache, "PM_RESUME");
        assert_eq!(ours, want);
        if note.contains("kept fresh by a server watching") {
            vouched = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
    assert!(
        vouched,
        "the rebuilt index was never vouched for by the server"
    );
    srv.shutdown().await;
    scan.shutdown().await;
}

/// Starts `mapgrep serve --index-dir IDX ROOT`, stderr to `log`; returns it once it has
/// answered `initialize`.
fn raw_server(root: &Path, idx: &Path, log: &Path) -> Child {
    let mut c = Command::new(BIN)
        .arg("serve")
        .arg("--index-dir")
        .arg(idx)
        .arg(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    writeln!(c.stdin.as_mut().unwrap(), "{init}").unwrap();
    let mut line = String::new();
    BufReader::new(c.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("\"id\":1"), "{line}");
    c
}

fn wait_exit(c: &mut Child) -> std::process::ExitStatus {
    let t = Instant::now();
    loop {
        if let Some(s) = c.try_wait().unwrap() {
            return s;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "still running");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn fifteen_server_starts_leave_the_index_directory_as_the_first_left_it() {
    let fx = repo(20);
    let idx = fx.base().join("index");
    let mut first: Option<Vec<PathBuf>> = None;
    for i in 0..15 {
        let log = fx.base().join(format!("log{i}"));
        let mut c = raw_server(&fx.root, &idx, &log);
        wait_for_log(&log, "mapgrep: index of");
        // Ended by the end of its input, by SIGTERM (where there are signals), or killed.
        let killed = i % 5 == 3;
        let want = if killed {
            c.kill().unwrap();
            None
        } else if i % 2 == 1 && mapgrep::platform::test_support::supported() {
            mapgrep::platform::test_support::terminate(c.id()).unwrap();
            Some(143)
        } else {
            drop(c.stdin.take());
            Some(0)
        };
        let s = wait_exit(&mut c);
        if want.is_some() {
            assert_eq!(s.code(), want, "start {i}");
        }
        // A killed server's files are left to the next start.
        if !killed {
            let now = files_under(&idx);
            let want = first.get_or_insert_with(|| now.clone());
            assert_eq!(&now, want, "after start {i}");
        }
    }
    let names: Vec<String> = first
        .unwrap()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("w-") || n.starts_with("mapgrep-marks") || n.ends_with(".tmp")),
        "{names:?}"
    );
}

/// The temporary files in the index directory `idx`.
fn temps(idx: &Path) -> Vec<PathBuf> {
    files_under(idx)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".tmp"))
        .collect()
}

#[test]
fn a_writer_killed_while_it_writes_leaves_no_temporary_file_after_the_next_writer() {
    // Enough bytes that the build's write lasts a while.
    let fx = Fixture::new();
    std::fs::create_dir(fx.root.join(".git")).unwrap();
    for i in 0..1500 {
        let body: String = (0..60)
            .map(|k| format!("line {k} of file {i}: word{} other{}\n", i * 7 + k, k * i))
            .collect();
        fx.write(&format!("d{}/f{i}.txt", i % 13), body);
    }
    let idx = fx.base().join("index");
    let index = || {
        Command::new(BIN)
            .args(["index", "--index-dir"])
            .arg(&idx)
            .arg(&fx.root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    assert!(index().wait().unwrap().success());
    // A second build, killed once its segment file is being written.
    let mut caught = false;
    let mut pids = Vec::new();
    for _ in 0..5 {
        let mut c = index();
        pids.push(c.id());
        let t = Instant::now();
        while c.try_wait().unwrap().is_none() && t.elapsed() < Duration::from_secs(60) {
            if !temps(&idx).is_empty() {
                c.kill().unwrap();
                caught = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        c.wait().unwrap();
        if caught {
            break;
        }
    }
    assert!(caught, "the build never showed a temporary file");
    assert!(!temps(&idx).is_empty());
    // And one of a writer that died long ago.
    let store = segment(&idx).parent().unwrap().to_path_buf();
    std::fs::write(
        store.join(".s00000000000000ff.seg.4000000000.0.tmp"),
        "half",
    )
    .unwrap();
    // A server loads the index (nothing changed: nothing to write), takes over the free
    // writer's lock and removes what the dead writers left.
    let log = fx.base().join("log");
    let mut c = raw_server(&fx.root, &idx, &log);
    pids.push(c.id());
    let line = wait_for_log(&log, "mapgrep: index of");
    assert!(line.contains("loaded"), "{line}");
    let t = Instant::now();
    while !temps(&idx).is_empty() {
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", temps(&idx));
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(c.stdin.take());
    wait_exit(&mut c);
    assert!(
        temps(&idx).is_empty(),
        "{:?} after the server exited (pids of the builds, then the server's: {pids:?}); its log:\n{}",
        temps(&idx),
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    assert!(index().wait().unwrap().success());
    assert!(temps(&idx).is_empty(), "{:?}", temps(&idx));
}
