//! `file_read`, grep's enclosing-symbol hint and `mapgrep outline`/`symbol` on C, C++, Java,
//! C# and Bash: one small file per language in its own idioms, its skeleton (snapshot), a
//! target read, and a grep hit named by its function.

use std::process::Command;

use serde_json::json;

use crate::common::{BIN, lines};
use crate::file_read::{after_header, read_ok, serve, sym, symbols};

const C: &str = "\
/* Counters kept per CPU. */
#include <linux/percpu.h>
#include \"stats.h\"

#define STAT_SLOTS 8
#define stat_slot(id) ((id) % STAT_SLOTS)

struct stat_bank {
\tunsigned long hits[STAT_SLOTS];
};

int stat_bump(struct stat_bank *b, int id);

/**
 * stat_bump - count one hit.
 */
static inline __must_check int stat_bump(struct stat_bank *b, int id)
{
\treturn ++b->hits[stat_slot(id)]; // MARK
}

#ifdef CONFIG_STATS_RESET
void stat_reset(struct stat_bank *b)
{
\tmemset(b, 0, sizeof(*b));
}
#endif
";

const CPP: &str = "\
#include <vector>

namespace ring {

/// A fixed-size ring of values.
template <typename T>
class Buffer {
public:
    explicit Buffer(std::size_t n) : slots_(n) {}
    void push(const T &v);
    std::size_t size() const { return count_; }

private:
    std::vector<T> slots_;
    std::size_t head_ = 0, count_ = 0;
};

template <typename T>
void Buffer<T>::push(const T &v) {
    slots_[head_] = v; // MARK
    head_ = (head_ + 1) % slots_.size();
}

}  // namespace ring
";

const JAVA: &str = "\
package org.example.ring;

import java.util.Arrays;

/** A ring of ints. */
public final class IntRing {
    private final int[] slots;
    private int head;

    public IntRing(int size) {
        slots = new int[size];
    }

    public void push(int v) {
        slots[head] = v; // MARK
        head = (head + 1) % slots.length;
    }

    public void push(int... vs) {
        Arrays.stream(vs).forEach(this::push);
    }
}
";

const CSHARP: &str = "\
using System;

namespace Ring
{
    /// <summary>A ring of ints.</summary>
    public sealed class IntRing
    {
        private readonly int[] slots;
        private int head;

        public IntRing(int size) => slots = new int[size];

        public void Push(int v)
        {
            slots[head] = v; // MARK
            head = (head + 1) % slots.Length;
        }
    }
}
";

const BASH: &str = "\
#!/bin/sh
# Rotates log files.
. ./rotate.conf

# Keeps the newest N files.
prune() {
    ls -1t \"$1\" | tail -n +\"$2\" | xargs -r rm -- # MARK
}

function rotate {
    mv \"$1\" \"$1.1\"
}

rotate \"$LOG\" && prune \"$DIR\" 5
";

/// (file, source, target, its kind and lines, the symbol of the MARK line)
const CASES: [(&str, &str, &str, &str, u64, u64, &str); 5] = [
    ("stats.h", C, "stat_bump", "function", 14, 20, "stat_bump"),
    (
        "ring.hpp",
        CPP,
        "ring::Buffer::push",
        "function",
        18,
        22,
        "ring.Buffer.push",
    ),
    (
        "IntRing.java",
        JAVA,
        "IntRing.push",
        "method",
        14,
        17,
        "IntRing.push",
    ),
    (
        "IntRing.cs",
        CSHARP,
        "Push",
        "method",
        13,
        17,
        "Ring.IntRing.Push",
    ),
    ("rotate.sh", BASH, "prune", "function", 5, 8, "prune"),
];

#[tokio::test]
async fn skeleton_and_target_of_each_language() {
    for (file, src, target, kind, a, b, _) in CASES {
        let (_fx, srv) = serve(&[(file, src)]).await;
        let (text, _) = read_ok(&srv, json!({"file": file, "skeleton": true})).await;
        let name = format!("skeleton_{}", file.replace('.', "_"));
        insta::assert_snapshot!(name, text);
        let (text, v) = read_ok(&srv, json!({"file": file, "target": target})).await;
        let found = symbols(&v);
        assert!(
            found.iter().any(|s| s.1 == kind && (s.2, s.3) == (a, b)),
            "{file} {target}: {found:?}"
        );
        assert!(
            after_header(&text, file).contains(&lines(src, a, b)),
            "{file}: {text}"
        );
    }
}

#[tokio::test]
async fn c_prototype_and_definition_both_listed_the_definition_read() {
    let (_fx, srv) = serve(&[("stats.h", C)]).await;
    let (_, v) = read_ok(&srv, json!({"file": "stats.h", "skeleton": true})).await;
    let all = symbols(&v);
    // The prototype's address is its name and line: the name reads the definition.
    assert!(
        all.contains(&sym("stat_bump@12", "prototype", 12, 12)),
        "{all:?}"
    );
    assert!(
        all.contains(&sym("stat_bump", "function", 14, 20)),
        "{all:?}"
    );
    assert!(all.contains(&sym("STAT_SLOTS", "macro", 5, 5)), "{all:?}");
    assert!(
        all.contains(&sym("stat_reset", "function", 23, 26)),
        "{all:?}"
    );
    let (_, v) = read_ok(&srv, json!({"file": "stats.h", "target": "stat_bump"})).await;
    assert_eq!(symbols(&v), vec![sym("stat_bump", "function", 14, 20)]);
}

#[tokio::test]
async fn grep_names_the_enclosing_symbol_in_each_language() {
    for (file, src, .., hint) in CASES {
        let (_fx, srv) = serve(&[(file, src)]).await;
        let g = srv
            .answer(
                "grep_content",
                json!({"pattern": "MARK", "section_patterns": []}),
            )
            .await;
        assert!(!g.is_error, "{}", g.text);
        let m = &g.structured["matches"][0];
        assert_eq!(m["symbol"]["name"], hint, "{file}: {}", g.text);
        // The hint's name reads that symbol (with its overloads).
        let line = m["line"].as_u64().unwrap();
        let (_, v) = read_ok(&srv, json!({"file": file, "target": hint})).await;
        assert!(
            symbols(&v).iter().any(|s| s.2 <= line && line <= s.3),
            "{file}: {hint}"
        );
    }
}

#[test]
fn outline_and_symbol_commands_in_each_language() {
    let fx = crate::common::Fixture::new();
    for (file, src, target, kind, a, b, _) in CASES {
        let path = fx.write(file, src);
        let o = Command::new(BIN)
            .args(["outline", path.to_str().unwrap()])
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success() && out.contains("**Skeleton Mode**"),
            "{file}: {out}"
        );
        let o = Command::new(BIN)
            .args(["symbol", path.to_str().unwrap(), target])
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            out.contains(&format!("({kind}, lines {a}-{b})")),
            "{file}: {out}"
        );
    }
}
