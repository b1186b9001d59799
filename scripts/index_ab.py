#!/usr/bin/env python3
"""Warm server greps of two or more builds, each on its own index directory (builds whose
index formats differ cannot share one), as an agent waits for them: the stdio server (raw
JSON-RPC through scripts/mcp_client.py), index ready, the default answer budget. The
servers run side by side and take turns on every pattern, round after round, so that the
machine's load falls on all alike. Prints per pattern each build's median and worst call,
and checks that every build gives the same answer size.

The patterns range from selective (a few hundred files) to dense ones whose trigrams are in
most files (their posting lists are the longest the index holds).

Usage: python3 scripts/index_ab.py [--tree corpora/linux] [--rounds 10]
       BUILD=INDEX_DIR BUILD=INDEX_DIR [...]
Needs: the Linux tree (corpora/fetch_linux.sh) and, per build, an index directory that
build made (`BUILD index --index-dir DIR corpora/linux`).
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_cold_grep import start  # noqa: E402

PATTERNS = [
    "kmalloc_array", "PM_RESUME", "copy_to_user", r"spin_unlock_irqrestore\(&\w+->lock",
    "TODO:|XXX:", "static int", "return -EINVAL", "EXPORT_SYMBOL_GPL", "struct device \\*dev",
    "#include <linux/module.h>",
]


def grep(c, pattern):
    secs, m, size = c.request("tools/call", {"name": "grep_content",
                                             "arguments": {"pattern": pattern}})
    if "error" in m or m.get("result", {}).get("isError"):
        sys.exit(f"{pattern}: {m}")
    return secs * 1000, size


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default=os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "corpora", "linux"))
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("pairs", nargs="+", help="BUILD=INDEX_DIR")
    args = ap.parse_args()
    tree = os.path.realpath(args.tree)
    pairs = [p.split("=", 1) for p in args.pairs]
    servers = [start(b, d, tree) for b, d in pairs]
    times = {(k, p): [] for k in range(len(pairs)) for p in PATTERNS}
    sizes = {}
    for p in PATTERNS:
        for c in servers:
            grep(c, p)
    for r in range(args.rounds):
        order = list(range(len(servers)))
        if r % 2:
            order.reverse()
        for p in PATTERNS:
            for k in order:
                ms, size = grep(servers[k], p)
                times[(k, p)].append(ms)
                sizes.setdefault(p, {})[k] = size
    for c in servers:
        c.close()
    meds = [[] for _ in pairs]
    for p in PATTERNS:
        cells = []
        for k in range(len(pairs)):
            v = sorted(times[(k, p)])
            meds[k].append(statistics.median(v))
            cells.append(f"{statistics.median(v):7.1f} ms (worst {v[-1]:6.1f})")
        same = "" if len(set(sizes[p].values())) == 1 else "  ANSWERS DIFFER IN SIZE"
        print(f"{p[:34]:34} " + "  ".join(cells) + same)
    for k, (b, _) in enumerate(pairs):
        print(f"{b}: median of the patterns' medians {statistics.median(meds[k]):.1f} ms")


if __name__ == "__main__":
    main()
