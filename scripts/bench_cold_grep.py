#!/usr/bin/env python3
"""Selective greps whose files are not in the system's page cache, as an agent waits for
them: the stdio server (raw JSON-RPC through scripts/mcp_client.py), index ready.

Each round, for each build given: the files that hold any of the patterns are dropped from
the page cache (`posix_fadvise(DONTNEED)`), a server starts on the index directory, and 3 s
after its index is ready each pattern is grepped once (cold: its files come from the disk),
then once again (warm). Then every build's servers run side by side and each pattern is
grepped --warm-rounds more times, the builds taking turns (warm, interleaved: the machine's
load falls on all alike). Prints per build the medians and the worst calls.

On the project's machine the page cache does not keep the Linux tree: most of its files are
not resident minutes after they were read (see `fincore`), so a server's first grep of a
pattern often reads from the disk.

Usage: python3 scripts/bench_cold_grep.py --index-dir DIR [--tree corpora/linux]
       [--rounds 4] [--warm-rounds 6] BUILD [BUILD...]
Needs: the Linux tree (corpora/fetch_linux.sh), an index directory whose index of the tree
is complete (scripts/bench_symbols.py --index-dir DIR makes one), rg on the PATH.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_client import Client  # noqa: E402

PATTERNS = [
    "kmalloc_array", "vmalloc_array", "kcalloc", "devm_kzalloc", "dma_alloc_coherent",
    "copy_to_user", "platform_get_irq", "of_property_read_u32",
]


def files_of(tree):
    args = ["rg", "-l", "-F"]
    for p in PATTERNS:
        args += ["-e", p]
    out = subprocess.run(args, cwd=tree, capture_output=True, check=False).stdout
    return [os.path.join(tree, line) for line in out.decode().splitlines()]


def drop(files):
    for p in files:
        try:
            fd = os.open(p, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def start(build, index_dir, tree):
    c = Client([build, "serve", "--index-dir", index_dir, tree])
    c.request("tools/list", {})
    c.wait_log(["ready"], 300)
    return c


def grep(c, pattern):
    secs, _, _ = c.request("tools/call", {"name": "grep_content", "arguments": {"pattern": pattern}})
    return secs * 1000


def summary(v):
    v = sorted(v)
    return f"median {statistics.median(v):.1f} ms, worst {v[-1]:.1f} ms ({len(v)} calls)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default=os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "corpora", "linux"))
    ap.add_argument("--index-dir", required=True)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--warm-rounds", type=int, default=6)
    ap.add_argument("builds", nargs="+")
    args = ap.parse_args()
    tree = os.path.realpath(args.tree)
    files = files_of(tree)
    cold = {b: [] for b in args.builds}
    warm = {b: [] for b in args.builds}
    for _ in range(args.rounds):
        for b in args.builds:
            drop(files)
            c = start(b, args.index_dir, tree)
            time.sleep(3)
            cold[b] += [grep(c, p) for p in PATTERNS]
            c.close()
    servers = {b: start(b, args.index_dir, tree) for b in args.builds}
    time.sleep(3)
    for b, c in servers.items():
        for p in PATTERNS:
            grep(c, p)
    for _ in range(args.warm_rounds):
        for b, c in servers.items():
            warm[b] += [grep(c, p) for p in PATTERNS]
    for c in servers.values():
        c.close()
    print(f"{len(files)} files hold the patterns")
    for b in args.builds:
        print(f"{b}: cold {summary(cold[b])}; warm {summary(warm[b])}")


if __name__ == "__main__":
    main()
