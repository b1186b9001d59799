#!/usr/bin/env python3
"""The command line as a pipe's writer: time to the first line, peak memory, equal output.

On the Linux tree, in one run, for mapgrep (and optionally an older mapgrep binary) and ripgrep:
- `TOOL grep -n static . | head -1`: wall time until `head` has its line and the writer is
  gone (median of --runs);
- a full `TOOL grep -n static .` into a file: wall time (median) and peak resident memory
  (the largest of the runs, from GNU time's %M);
- the full output of mapgrep byte for byte against `rg --sort path -n static .` (ripgrep's
  path order is mapgrep's).

Usage: python3 scripts/stream_cost.py [--tree corpora/linux] [--runs 7]
       [--mapgrep target/release/mapgrep] [--old PATH] [--rg rg] [--pattern static]
"""

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def timed(argv, cwd, stdout):
    """Runs argv under GNU time; returns (seconds, peak resident memory in KB)."""
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], cwd=cwd, stdout=stdout,
                       stderr=subprocess.PIPE)
    secs = time.perf_counter() - t
    if p.returncode not in (0, 1):
        sys.exit(f"failed ({p.returncode}): {' '.join(argv)}")
    return secs, int(p.stderr.decode().strip().splitlines()[-1])


def first_line(tool, args, cwd):
    """Seconds until `tool ... | head -1` is over: head has its line and the writer exited."""
    t = time.perf_counter()
    writer = subprocess.Popen([tool, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    head = subprocess.run(["head", "-1"], stdin=writer.stdout, capture_output=True)
    writer.stdout.close()
    writer.wait()
    return time.perf_counter() - t, head.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default="corpora/linux")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--mapgrep", default="target/release/mapgrep")
    ap.add_argument("--old", help="an older mapgrep binary to compare in the same run")
    ap.add_argument("--rg", default="rg")
    ap.add_argument("--pattern", default="static")
    a = ap.parse_args()
    tree = os.path.abspath(a.tree)
    tools = [("mapgrep", [os.path.abspath(a.mapgrep), "grep"])]
    if a.old:
        tools.append(("mapgrep (before)", [os.path.abspath(a.old), "grep"]))
    if shutil.which(a.rg):
        tools.append(("rg", [a.rg]))
    else:
        print(f"{a.rg} not found: ripgrep left out", file=sys.stderr)
    args = ["-n", a.pattern, "."]
    rows = []
    digests = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        # Warm the page cache (and check the outputs) first.
        for name, cmd in tools:
            extra = ["--sort", "path"] if name == "rg" else []
            with open(out, "wb") as f:
                timed([*cmd, *extra, *args], tree, f)
            with open(out, "rb") as f:
                digests[name] = hashlib.sha256(f.read()).hexdigest()
        heads, fulls, rss = {}, {}, {}
        for _ in range(a.runs):
            for name, cmd in tools:
                secs, line = first_line(cmd[0], [*cmd[1:], *args], tree)
                heads.setdefault(name, []).append(secs)
                with open(out, "wb") as f:
                    secs, kb = timed([*cmd, *args], tree, f)
                fulls.setdefault(name, []).append(secs)
                rss[name] = max(rss.get(name, 0), kb)
        for name, _ in tools:
            rows.append((name, statistics.median(heads[name]) * 1000,
                         statistics.median(fulls[name]), rss[name] / 1024))
    print(f"`grep -n {a.pattern} .` on {a.tree}, {a.runs} runs, medians (peak memory: the largest)\n")
    print("| tool | `\\| head -1` ms | full run s | full run peak MB |")
    print("|---|---:|---:|---:|")
    for name, head, full, mb in rows:
        print(f"| {name} | {head:.0f} | {full:.2f} | {mb:.1f} |")
    same = digests.get("rg") is None or digests["mapgrep"] == digests["rg"]
    print(f"\nmapgrep's full output equals `rg --sort path`'s: {'yes' if same else 'NO'}")
    if a.old:
        print(f"equals the older binary's: {'yes' if digests['mapgrep'] == digests['mapgrep (before)'] else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
