#!/usr/bin/env python3
"""Two builds of mapgrep on the same arguments, run in alternation (A B, B A, ...) so that a
noisy machine weighs on both alike: the median wall time and CPU time (user + system) of
each, and the ratio B / A.

Usage: python3 scripts/ab_runs.py --runs 11 <build A> <build B> -- <mapgrep arguments>
e.g.   (in corpora/linux) python3 ../../scripts/ab_runs.py old/mapgrep new/mapgrep -- def task_struct .
"""

import argparse
import resource
import statistics
import subprocess
import time


def once(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    runs = {a.a: [], a.b: []}
    for i in range(a.runs):
        for build in (a.a, a.b) if i % 2 == 0 else (a.b, a.a):
            runs[build].append(once([build, *args]))
    medians = {}
    for build, label in ((a.a, "A"), (a.b, "B")):
        wall = statistics.median(w for w, _ in runs[build])
        cpu = statistics.median(c for _, c in runs[build])
        medians[label] = wall
        print(f"{label} {build}: wall {wall * 1000:.1f} ms, cpu {cpu * 1000:.1f} ms")
    print(f"B / A wall: {medians['B'] / medians['A']:.3f}")


if __name__ == "__main__":
    main()
