#!/usr/bin/env python3
"""How the index scales: the tree served 1x, 2x and 4x (a root holding 1, 2 or 4 copies of
it, each its own subtree). At each size: the index build (time, from the server's log), the server's memory
once the index is ready, and each query's latency seen by the client, for a server with the
index and for one without (--no-index: every call scans; timed after two warm-up calls).
The indexed query should grow with the candidates, not with the corpus.

Usage: python3 scripts/scaling.py [--tree corpora/linux] [--sizes 1,2,4] [--rounds 5]
The copies are hard links made once under corpora/generated/scaling/ (git-ignored) and kept
for the next run.
"""

import argparse
import os
import re
import subprocess
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from server_memory import Server, fmt  # noqa: E402

# Every match asked for (the largest max_results), so that a scan cannot stop early and
# both sides return the same, whole answer.
ALL = {"max_results": 10000}
QUERIES = [
    ("PM_RESUME", ALL),
    ("pm_resume", {"case_insensitive": True, **ALL}),
    ("PM_SUSPEND|PM_HIBERNATION_PREPARE|wakeup_source_register|device_wakeup_enable", ALL),
    (r"\bwakeup_source\b", ALL),
    ("[A-Z]+_RESUME", ALL),
]


def copies(tree, n, real=False):
    """A root holding n copies of the tree (c0 .. c{n-1}), made once and kept. Hard-linked:
    the files are distinct paths to the walk, the index and the caches, and cost no disk.
    Real copies (real=True, under edit-xN/) for runs that edit files: an edit through one
    hard link would change every copy."""
    where = f"edit-x{n}" if real else os.path.join("scaling", f"x{n}")
    base = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "corpora", "generated", where)
    for i in range(n):
        dst = os.path.join(base, f"c{i}")
        if not os.path.isdir(dst):
            print(f"copying the tree to {os.path.relpath(dst)} ...", flush=True)
            os.makedirs(base, exist_ok=True)
            subprocess.run(["cp", "-r" if real else "-al", tree, dst + ".part"], check=True)
            os.rename(dst + ".part", dst)
    return base


def latencies(s, rounds):
    out = {}
    for q, extra in QUERIES:
        ts = []
        for _ in range(rounds):
            dt, r = s.grep(q, extra)
            if "error" in r or r["result"].get("isError"):
                sys.exit(f"{q}: {r}")
            ts.append(dt)
        out[q] = statistics.median(ts)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default="corpora/linux")
    ap.add_argument("--mapgrep", default="target/release/mapgrep")
    ap.add_argument("--sizes", default="1,2,4")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    tree = os.path.abspath(a.tree)
    mg = os.path.abspath(a.mapgrep)
    sizes = [int(x) for x in a.sizes.split(",")]
    rows = []
    for n in sizes:
        root = copies(tree, n)
        with tempfile.TemporaryDirectory() as idx:
            t0 = time.time()
            s = Server([mg, "serve", root, "--index-dir", idx])
            while not any("index of" in l and "built" in l for l in s.log):
                if time.time() - t0 > 3600:
                    sys.exit("no index after an hour:\n" + "\n".join(s.log[-20:]))
                time.sleep(0.5)
            build = time.time() - t0
            secs = [float(m.group(1)) for l in s.log for m in [re.search(r"; ([0-9.]+) s\)", l)] if m]
            mem = s.memory()
            idx_bytes = sum(os.path.getsize(os.path.join(idx, f)) for f in os.listdir(idx)
                            if f.endswith(".idx"))
            lat_i = latencies(s, a.rounds)
            s.close()
        s = Server([mg, "serve", root, "--no-index"])
        for q, extra in QUERIES[:1]:
            s.grep(q, extra)
            s.grep(q, extra)
        lat_s = latencies(s, max(3, a.rounds // 2))
        scan_mem = s.memory()
        s.close()
        rows.append((n, build, secs, idx_bytes, mem, lat_i, lat_s, scan_mem))
        print(f"{n}x: index ready in {build:.1f} s (builds {', '.join(f'{x:.1f}' for x in secs)} s), "
              f"{idx_bytes / 1e6:.0f} MB; memory with the index ready: {fmt(mem)}; "
              f"scanning server after the queries: {fmt(scan_mem)}", flush=True)
        for q, _ in QUERIES:
            print(f"    {q[:50]:<50} indexed {lat_i[q] * 1000:8.1f} ms   scan {lat_s[q] * 1000:8.1f} ms",
                  flush=True)
    print()
    print("| copies | index ready | index size | heap (index ready) | " +
          " | ".join(f"`{q[:24]}` indexed / scan".replace("|", "\\|") for q, _ in QUERIES) + " |")
    print("|---" * (4 + len(QUERIES)) + "|")
    for n, build, secs, size, mem, li, ls, _ in rows:
        cells = [f"{n}x", f"{build:.1f} s", f"{size / 1e6:.0f} MB", f"{mem['Anonymous'] / 2**20:.0f} MiB"]
        cells += [f"{li[q] * 1000:.1f} / {ls[q] * 1000:.0f} ms" for q, _ in QUERIES]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
