#!/usr/bin/env python3
"""Two or more builds of mapgrep on the same arguments, run in alternation (A B C, C B A, ...)
so that a noisy machine weighs on all alike: the median wall time and CPU time (user +
system) of each, and each one's ratio to A.

Usage: python3 scripts/ab_runs.py --runs 11 <build A> <build B> [<build C> ...] -- <mapgrep arguments>
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
    ap.add_argument("rest", nargs=argparse.REMAINDER, help="builds, then -- and arguments")
    a = ap.parse_args()
    if "--" not in a.rest or a.rest.index("--") < 2:
        ap.error("give two builds or more, then -- and mapgrep's arguments")
    cut = a.rest.index("--")
    builds, args = a.rest[:cut], a.rest[cut + 1 :]
    runs = {b: [] for b in builds}
    for i in range(a.runs):
        for build in builds if i % 2 == 0 else builds[::-1]:
            runs[build].append(once([build, *args]))
    first = None
    for k, build in enumerate(builds):
        wall = statistics.median(w for w, _ in runs[build])
        cpu = statistics.median(c for _, c in runs[build])
        label = chr(ord("A") + k)
        ratio = "" if first is None else f", {label} / A wall {wall / first[0]:.3f} cpu {cpu / first[1]:.3f}"
        first = first or (wall, cpu)
        print(f"{label} {build}: wall {wall * 1000:.1f} ms, cpu {cpu * 1000:.1f} ms{ratio}")

if __name__ == "__main__":
    main()
