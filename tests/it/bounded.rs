//! Bounded work under hostile input: every call ends, memory stays within its budgets, and
//! the server goes away with its client.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{Fixture, proc_kb, text_of};

/// Heavy but admissible patterns, each compiling to megabytes: the regex cache keeps them
/// within its byte budget, however many distinct ones arrive.
#[tokio::test]
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
    // the cache: the searches' own lazy-DFA caches and what the allocator keeps of freed
    // memory.
    assert!(
        peak - before < budget_kb + 128 * 1024,
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
