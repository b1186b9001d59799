//! Bounded work under hostile input: every call ends, memory stays within its budgets, and
//! the server goes away with its client.

use std::time::{Duration, Instant};

use serde_json::json;

#[cfg(target_os = "linux")]
use crate::common::proc_kb;
use crate::common::{Fixture, text_of};

/// Heavy but admissible patterns, each compiling to megabytes: the regex cache keeps them
/// within its byte budget, however many distinct ones arrive. (Linux: the heap is read from
/// `/proc/PID/status`.)
#[tokio::test]
#[cfg(target_os = "linux")]
async fn distinct_heavy_patterns_keep_the_regex_cache_within_its_budget() {
    let fx = Fixture::new();
    fx.write("a.txt", "some text\n");
    let srv = fx.serve().await;
    let pid = srv.pid().expect("server pid");
    let before = proc_kb(pid, "RssAnon").expect("RssAnon");
    let mut peak = before;
    for i in 0..256 {
        let r = srv
            .call("grep_content", json!({"pattern": format!(r"\w{{40}}Q{i}")}))
            .await
            .expect("answer");
        assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
        peak = peak.max(proc_kb(pid, "RssAnon").unwrap_or(0));
    }
    let budget_kb = (mapgrep::workspace::REGEX_CACHE_BYTES / 1024) as u64;
    eprintln!(
        "heap (RssAnon) before {before} kB, peak {peak} kB over 256 patterns; regex budget {budget_kb} kB"
    );
    // Each pattern holds ~2 MB of automata: 256 of them kept would be over 500 MB. Beside
    // the cache: the searches' own lazy-DFA caches (up to 8 MiB a thread, for the regex and
    // for the sliced search) and what the allocator keeps of freed memory.
    assert!(
        peak - before < budget_kb + 192 * 1024,
        "heap grew by {} kB",
        peak - before
    );
    srv.shutdown().await;
}

/// A pattern whose automaton would be huge is refused at once, with what to do.
#[tokio::test]
async fn a_huge_automaton_is_refused_at_once() {
    let fx = Fixture::new();
    fx.write("a.txt", "a".repeat(1 << 20));
    let srv = fx.serve().await;
    for pattern in ["a{1000}{1000}", "(((a{100}){100}){100})", r"\w{600}Q7"] {
        let t = Instant::now();
        let r = srv
            .call("grep_content", json!({"pattern": pattern}))
            .await
            .expect("answer");
        let text = text_of(&r);
        assert_eq!(r.is_error, Some(true), "{pattern}: {text}");
        assert!(
            text.starts_with("Error: Regex too large in pattern"),
            "{text}"
        );
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "{pattern}: {:?}",
            t.elapsed()
        );
    }
    srv.shutdown().await;
}

/// Eight lines of a megabyte of `a`, and a pattern that never matches them but costs about a
/// second per line.
fn slow_fixture() -> (Fixture, &'static str) {
    let fx = Fixture::new();
    let line = "a".repeat(1 << 20) + "\n";
    fx.write("a.txt", line.repeat(8));
    (fx, "a{100}{100}b")
}

/// User plus system CPU time of process `pid`, in clock ticks (1/100 s), from
/// `/proc/PID/stat` (Linux only).
#[cfg(target_os = "linux")]
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// A search that runs past the server's deadline is stopped, and says so and what to do.
#[tokio::test]
async fn a_search_past_the_deadline_ends_with_a_clear_error() {
    let (fx, slow) = slow_fixture();
    // Without the index: its build and the symbol recorder are background work that a
    // loaded machine may still be doing after the answer; the CPU figure below is about
    // the search alone.
    let srv = fx
        .serve_with(&[
            "--search-timeout",
            "1",
            "--content-cache-bytes",
            "0",
            "--no-index",
        ])
        .await;
    let t = Instant::now();
    let r = srv
        .call("grep_content", json!({"pattern": slow}))
        .await
        .expect("answer");
    let took = t.elapsed();
    let text = text_of(&r);
    assert_eq!(r.is_error, Some(true), "{text}");
    assert!(text.starts_with("Error: Search timed out\n"), "{text}");
    assert!(
        text.contains("time limit of 1 s (--search-timeout)"),
        "{text}"
    );
    assert!(text.contains("\nFix: Narrow the search"), "{text}");
    eprintln!("stopped after {took:?}");
    assert!(took < Duration::from_secs(4), "{took:?}");
    // And the search itself has stopped: the server uses no CPU afterwards (measured on
    // Linux, where `/proc` has the figure).
    #[cfg(target_os = "linux")]
    {
        let pid = srv.pid().expect("pid");
        std::thread::sleep(Duration::from_millis(100));
        let before = cpu_ticks(pid);
        std::thread::sleep(Duration::from_millis(500));
        let used = cpu_ticks(pid) - before;
        assert!(
            used <= 5,
            "{used} ticks of CPU in the 500 ms after the answer"
        );
    }
    srv.shutdown().await;
}

/// A server on raw pipes, initialized, running the slow search as request 2.
struct RawSearch {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    _fx: Fixture,
}

impl RawSearch {
    fn start() -> RawSearch {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        let (fx, slow) = slow_fixture();
        let mut child = Command::new(crate::common::BIN)
            .args(["serve", "--content-cache-bytes", "0", "--no-index"])
            .arg(fx.base().join("repo"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut raw = RawSearch {
            child,
            stdin: Some(stdin),
            _fx: fx,
        };
        raw.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        );
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert!(line.contains("\"id\":1"), "{line}");
        raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        raw.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "grep_content", "arguments": {"pattern": slow}}}));
        std::thread::sleep(Duration::from_millis(500));
        raw
    }

    fn send(&mut self, v: serde_json::Value) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }
}

/// When the client closes the server's input, the process is gone within a second, even
/// while a search runs.
#[test]
fn the_server_exits_when_its_input_closes_mid_search() {
    let mut raw = RawSearch::start();
    drop(raw.stdin.take());
    let t = Instant::now();
    loop {
        if raw.child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(1),
            "still running {:?} after the input closed",
            t.elapsed()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    eprintln!("gone {:?} after the input closed", t.elapsed());
}

/// A cancelled search stops using the CPU within 100 ms, even inside one long line whose
/// pattern costs seconds per megabyte. (Linux: the CPU time is read from `/proc`.)
#[test]
#[cfg(target_os = "linux")]
fn a_cancelled_search_stops_within_a_tenth_of_a_second() {
    let mut raw = RawSearch::start();
    let pid = raw.child.id();
    // Running: 100 ms of CPU within 3 s (a loaded machine gives it less than a core).
    let busy = cpu_ticks(pid);
    let t = Instant::now();
    while cpu_ticks(pid) - busy < 10 && t.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(cpu_ticks(pid) - busy >= 10, "the search should be running");
    raw.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": 2, "reason": "test"}}),
    );
    std::thread::sleep(Duration::from_millis(100));
    let after = cpu_ticks(pid);
    std::thread::sleep(Duration::from_millis(500));
    let used = cpu_ticks(pid) - after;
    assert!(
        used <= 3,
        "{used} ticks of CPU from 100 ms after the cancel"
    );
    drop(raw.stdin.take());
    let _ = raw.child.wait();
}

/// `mapgrep serve` whose input ends before any client spoke exits 0.
#[test]
fn serve_on_a_closed_input_exits_zero() {
    let fx = Fixture::new();
    let out = std::process::Command::new(crate::common::BIN)
        .arg("serve")
        .arg(fx.base().join("repo"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{:?} {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The highest heap (`RssAnon`) of process `pid`, read from `/proc` every 2 ms by a thread of
/// its own from [`HeapPeak::watch`] to [`HeapPeak::stop`]: a peak that the allocator gives
/// back before a call answers counts too. (Linux only.)
#[cfg(target_os = "linux")]
struct HeapPeak {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<u64>,
}

#[cfg(target_os = "linux")]
impl HeapPeak {
    fn watch(pid: u32) -> HeapPeak {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut peak = 0;
            loop {
                let done = stopped.load(Ordering::Acquire);
                peak = peak.max(proc_kb(pid, "RssAnon").unwrap_or(0));
                if done {
                    return peak;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        HeapPeak { stop, thread }
    }

    /// Stops the watch (after one last reading) and returns the peak, in kB.
    fn stop(self) -> u64 {
        self.stop.store(true, std::sync::atomic::Ordering::Release);
        self.thread.join().expect("the heap watch")
    }
}

/// Markdown text followed by a gigabyte of NUL bytes (a sparse file: nothing on disk). The
/// doc tools refuse it before copying anything, the other tools read it within bounds: the
/// server's heap stays under 64 MB through every tool, at every moment of every call (a
/// thread samples it every 2 ms). (Linux: the heap is read from `/proc`.)
///
/// Nothing in it depends on how fast the machine is: the server runs without an index, so no
/// background work (the index build and its symbol recorder, which read the same gigabyte)
/// competes with the calls for the CPU or adds its own memory to the figure at moments that
/// depend on the load, and `grep_content` always scans; it runs without a search deadline,
/// so a loaded machine cannot turn a slow but complete search into a timed-out error; and the
/// client waits for each answer as long as a hang would take to be plain (10 minutes), since
/// what is checked is memory (a loaded machine once took over 10 s for a file_read of 0.4 s
/// alone; time is checked alone by `head_of_a_five_gigabyte_file_is_fast`).
#[tokio::test]
#[cfg(target_os = "linux")]
async fn text_then_a_gigabyte_of_nul_keeps_every_tool_small() {
    let fx = Fixture::new();
    let mut text = String::from("# Title\n\n## Part\n\n");
    while text.len() < 70 * 1024 {
        text.push_str("some words of the document, needle, and more words\n");
    }
    let path = fx.write("big.md", &text);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(text.len() as u64 + (1 << 30))
        .unwrap();
    let srv = fx
        .serve_with(&[
            "--content-cache-bytes",
            "0",
            "--no-index",
            "--search-timeout",
            "0",
        ])
        .await;
    let pid = srv.pid().expect("pid");
    let before = proc_kb(pid, "RssAnon").unwrap();
    let heap = HeapPeak::watch(pid);
    let calls = [
        ("doc_toc", json!({"path": "big.md"})),
        ("doc_find", json!({"path": "big.md", "pattern": "*Part*"})),
        ("doc_read", json!({"path": "big.md", "section": "part"})),
        (
            "file_read",
            json!({"file": "big.md", "startLine": 1, "endLine": 3}),
        ),
        (
            "read_files",
            json!({"files": [{"path": "big.md", "head": 3}]}),
        ),
        (
            "grep_content",
            json!({"pattern": "needle", "max_results": 3}),
        ),
    ];
    for (tool, args) in calls {
        let t = Instant::now();
        let r = crate::common::call_on(srv.client(), tool, args.clone(), Duration::from_secs(600))
            .await
            .expect("answer");
        let text = text_of(&r);
        eprintln!(
            "{tool}: {:?}, heap {} kB after: {}",
            t.elapsed(),
            proc_kb(pid, "RssAnon").unwrap(),
            text.lines().next().unwrap_or("")
        );
        if tool.starts_with("doc_") {
            assert_eq!(r.is_error, Some(true), "{tool}: {text}");
            assert!(
                text.starts_with("Error: File not parsed\n"),
                "{tool}: {text}"
            );
        } else {
            assert_ne!(r.is_error, Some(true), "{tool}: {text}");
        }
    }
    let peak = heap.stop();
    eprintln!("heap before {before} kB, peak {peak} kB");
    assert!(
        peak.saturating_sub(before) < 64 * 1024,
        "heap grew by {} kB",
        peak - before
    );
    // Under the size limit, NUL bytes alone refuse the parse, and say so.
    let mut small = text.clone().into_bytes();
    small.extend(std::iter::repeat_n(0u8, 1 << 20));
    fx.write("nul.md", small);
    let r = srv
        .call("doc_toc", json!({"path": "nul.md"}))
        .await
        .expect("answer");
    assert!(
        text_of(&r).contains("holds NUL bytes (the first at byte"),
        "{}",
        text_of(&r)
    );
    srv.shutdown().await;
}

/// The first lines of a 5 GB file cost what they return: its lines are not all counted
/// first, and the answer says the total was not counted.
#[tokio::test]
async fn head_of_a_five_gigabyte_file_is_fast() {
    let fx = Fixture::new();
    // Text past the 64 KiB binary probe, then zeros (a sparse file: nothing on disk).
    let text: String = (1..=10_000).map(|i| format!("line {i}\n")).collect();
    let path = fx.write("huge.log", &text);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(5 << 30)
        .unwrap();
    let srv = fx.serve().await;
    // Warm the process (first call costs the handshake's laziness, not the read).
    srv.call(
        "read_files",
        json!({"files": [{"path": "huge.log", "head": 1}]}),
    )
    .await
    .unwrap();
    let t = Instant::now();
    let r = srv
        .call(
            "read_files",
            json!({"files": [{"path": "huge.log", "head": 3}]}),
        )
        .await
        .expect("answer");
    let took = t.elapsed();
    let text = text_of(&r);
    assert!(
        text.starts_with("File: huge.log\nLines: 1-3 of more than 3 (a large file: lines not counted past the read)\n---\nline 1\nline 2\nline 3\n---\n"),
        "{text}"
    );
    eprintln!("head 3 of a 5 GB file: {took:?}");
    assert!(took < Duration::from_millis(50), "{took:?}");
    let r = srv
        .call(
            "read_files",
            json!({"files": [{"path": "huge.log", "start_line": 9, "end_line": 10}]}),
        )
        .await
        .expect("answer");
    assert!(
        text_of(&r).contains("Lines: 9-10 of more than 10"),
        "{}",
        text_of(&r)
    );
    srv.shutdown().await;
}
