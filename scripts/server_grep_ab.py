#!/usr/bin/env python3
"""grep_content as an agent calls it (the default max_results, 100), through real servers
over stdio, for two builds in the same run: each build's server is started fresh, given one
warm-up call per query, then the queries are timed in alternation, round after round. The
index is off (`--no-index`), so every call scans: the pipeline itself is measured, not the
trigram index.

Usage: python3 scripts/server_grep_ab.py --old <build before> [--new target/release/mapgrep]
       [--tree corpora/linux] [--rounds 7]
Prints, per query, each build's median latency (first byte to last of the answer, as the
client sees it) and the ratio new / old.
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
from mcp_client import Client  # noqa: E402

QUERIES = [
    ("static", {}),
    ("PM_RESUME", {}),
    ("PM_RESUME", {"word": True}),
    ("kmalloc_array", {}),
    ("[A-Z]+_RESUME", {}),
    (r"\p{Greek}", {}),
]


def grep(server, pattern, extra):
    args = {"pattern": pattern, **extra}
    dt, r, _ = server.request("tools/call", {"name": "grep_content", "arguments": args})
    if "error" in r or r["result"].get("isError"):
        sys.exit(f"{pattern}: {r}")
    return dt, r["result"]["content"][0]["text"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", default="target/release/mapgrep")
    ap.add_argument("--tree", default="corpora/linux")
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    tree = os.path.abspath(a.tree)
    builds = {"new": os.path.abspath(a.new), "old": os.path.abspath(a.old)}
    servers = {k: Client([b, "serve", tree, "--no-index"], k) for k, b in builds.items()}
    times = {(k, i): [] for k in builds for i in range(len(QUERIES))}
    for i, (q, extra) in enumerate(QUERIES):
        answers = {k: grep(s, q, extra)[1] for k, s in servers.items()}
        if answers["new"] != answers["old"]:
            print(f"warning: the answers to {q!r} differ")
    for _ in range(a.rounds):
        for i, (q, extra) in enumerate(QUERIES):
            for k, s in servers.items():
                times[(k, i)].append(grep(s, q, extra)[0])
    print(f"{'query':<30} {'new ms':>9} {'old ms':>9} {'new/old':>8}")
    for i, (q, extra) in enumerate(QUERIES):
        new = statistics.median(times[("new", i)])
        old = statistics.median(times[("old", i)])
        label = q + (" " + str(extra) if extra else "")
        print(f"{label[:30]:<30} {new * 1000:9.1f} {old * 1000:9.1f} {new / old:8.2f}")
    for s in servers.values():
        s.p.kill()
        s.p.wait()


if __name__ == "__main__":
    main()
