#!/usr/bin/env python3
"""Symbol upkeep while an agent edits (issue 36): a server on the Linux tree with its index
ready and every file's symbols recorded; then EDITS one-line edits INTERVAL seconds apart,
each appending a new function to a random C file, and right after each a `find_definition`
of the new name, which must find it (the next lookup sees every edit).

Prints: how many lookups found their function, their latencies (median, worst), and the
server's CPU seconds and bytes written (/proc/PID/io write_bytes) over the edit session;
then 2 s and 10 s after the last edit, whether every new function is answered from the
records alone (recorded, not parsed at query time). Every edit is undone at the end.

Usage: python3 scripts/symbol_upkeep.py [--tree corpora/linux] [--mapgrep target/release/mapgrep]
       [--index-dir DIR (reused when given: a ready index and records)] [--edits 60]
       [--interval 2] [--seed 1] [--perf FILE (perf record of the server over the edits)]
Needs: a release build and the tree (corpora/fetch_linux.sh).
"""

import argparse
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from mcp_client import Client  # noqa: E402


def lookup(c, name):
    args = {"name": name, "code": False}
    dt, r, _ = c.request("tools/call", {"name": "find_definition", "arguments": args})
    text = r["result"]["content"][0]["text"]
    line = next((x for x in text.splitlines() if x.startswith(("Found", "No definition"))), "")
    return dt * 1000, text, line


def recorded(line):
    return "symbol index" in line and "not indexed yet" not in line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default="corpora/linux")
    ap.add_argument("--mapgrep", default="target/release/mapgrep")
    ap.add_argument("--index-dir")
    ap.add_argument("--edits", type=int, default=60)
    ap.add_argument("--interval", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--perf")
    a = ap.parse_args()
    tree = os.path.realpath(a.tree)
    work = None
    idx = a.index_dir
    if not idx:
        work = tempfile.mkdtemp(prefix="mapgrep-symbol-upkeep-")
        idx = os.path.join(work, "index")
    c = Client([os.path.realpath(a.mapgrep), "serve", tree, "--index-dir", idx], "symbol-upkeep")
    c.wait_log(["loaded from", "built"])
    t = time.time()
    while not recorded(lookup(c, "kmalloc_array")[2]):
        time.sleep(2)
    print(f"records complete {time.time() - t:.0f} s after the index was ready (not counted)")
    time.sleep(3)
    rnd = random.Random(a.seed)
    files = []
    for d in ("drivers/net", "fs", "kernel", "mm", "net/ipv4", "sound/core"):
        for base, _, names in os.walk(os.path.join(tree, d)):
            files += [os.path.join(base, n) for n in names if n.endswith(".c")]
    files.sort()
    saved = {}
    perf = None
    if a.perf:
        perf = subprocess.Popen(["perf", "record", "-q", "--call-graph", "dwarf", "-F", "499", "-o", a.perf, "-p", str(c.p.pid)])
        time.sleep(1)
    cpu0, io0 = c.cpu(), c.io()
    found, times, names = 0, [], []
    try:
        for i in range(a.edits):
            path = rnd.choice(files)
            if path not in saved:
                with open(path, "rb") as f:
                    saved[path] = (f.read(), os.stat(path))
            name = f"mapgrep_upkeep_{a.seed}_{i}"
            with open(path, "ab") as f:
                f.write(f"int {name}(void) {{ return {i}; }}\n".encode())
            names.append((name, os.path.relpath(path, tree)))
            dt, text, line = lookup(c, name)
            times.append(dt)
            if os.path.relpath(path, tree) in text:
                found += 1
            else:
                print(f"  MISSED {name} in {path}: {line}")
            time.sleep(a.interval)
        cpu1, io1 = c.cpu(), c.io()
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait()
        print(f"{found}/{a.edits} lookups found their new function; latency median "
              f"{statistics.median(times):.1f} ms, worst {max(times):.1f} ms")
        print(f"server over the session: {cpu1 - cpu0:.2f} s CPU, "
              f"{(io1['write_bytes'] - io0['write_bytes']) / 1e6:.1f} MB written "
              f"({(io1['wchar'] - io0['wchar']) / 1e6:.1f} MB by write calls)")
        for wait in (2, 10):
            time.sleep(wait if wait == 2 else 8)
            n = sum(recorded(lookup(c, name)[2]) for name, _ in names[-5:])
            print(f"{wait} s after the last edit: {n}/5 of the last new functions answered "
                  f"from the records alone")
    finally:
        for path, (data, st) in saved.items():
            with open(path, "wb") as f:
                f.write(data)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        c.p.terminate()
        c.p.wait()
        if work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
