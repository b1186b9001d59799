#!/usr/bin/env python3
"""A real server over stdio on a big tree: the first grep of a fresh server against ripgrep,
then, once the trigram index is ready, the issue-15 query set (latency seen by the client)
and the server's memory after it (anonymous memory = heap, stacks and the content cache;
the index file is mapped, not counted). Everything in one run.

Usage: python3 scripts/server_memory.py [--tree corpora/linux] [--mapgrep target/release/mapgrep]
       [--rg rg] [--rounds 3] [--fresh 5] [-- extra serve flags, e.g. --content-cache-bytes 0]
The index is kept in a temporary directory (built by the server it measures), so the first
grep runs while that build is going on, as on a first start.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from mcp_client import Client  # noqa: E402

QUERIES = [
    ("PM_RESUME", {}),
    ("pm_resume", {"case_insensitive": True}),
    ("PM_SUSPEND|PM_HIBERNATION_PREPARE|wakeup_source_register|device_wakeup_enable", {}),
    (r"\bwakeup_source\b", {}),
    ("[A-Z]+_RESUME", {}),
    (r"\p{Greek}", {}),
    (r"\w{5}\s+\w{5}\s+\w{5}", {}),
]


class Server(Client):
    def __init__(self, cmd):
        super().__init__(cmd, "memory")

    def grep(self, pattern, extra):
        args = {"pattern": pattern, "max_results": 100, **extra}
        dt, r, _ = self.request("tools/call", {"name": "grep_content", "arguments": args})
        return dt, r

    def close(self):
        self.p.kill()
        self.p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default="corpora/linux")
    ap.add_argument("--mapgrep", default="target/release/mapgrep")
    ap.add_argument("--rg", default="rg")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--fresh", type=int, default=5, help="fresh servers timed on their first grep")
    ap.add_argument("serve_args", nargs="*")
    a = ap.parse_args()
    tree = os.path.abspath(a.tree)
    mg = os.path.abspath(a.mapgrep)
    # Warm the page cache; then, alternately, ripgrep's time and a fresh server's first grep
    # (each server with a new index directory, so its index build runs meanwhile).
    subprocess.run([a.rg, "-c", "PM_RESUME", tree], stdout=subprocess.DEVNULL)
    rg_times, firsts = [], []
    for i in range(a.fresh):
        t = time.perf_counter()
        subprocess.run([a.rg, "-n", "PM_RESUME", tree], stdout=subprocess.DEVNULL)
        rg_times.append(time.perf_counter() - t)
        idx = tempfile.TemporaryDirectory()
        s = Server([mg, "serve", tree, "--index-dir", idx.name, *a.serve_args])
        first, _ = s.grep("PM_RESUME", {})
        firsts.append(first)
        if i + 1 < a.fresh:
            s.close()
            idx.cleanup()
    rg_first, first = statistics.median(rg_times), statistics.median(firsts)
    print(f"first grep of a fresh server: median {first * 1000:.0f} ms of {ms(firsts)} "
          f"(rg -n: median {rg_first * 1000:.0f} ms of {ms(rg_times)}; ratio {first / rg_first:.2f}); "
          f"memory after it: {fmt(s.memory())}")
    with idx:
        t0 = time.time()
        while not any("index of" in l and ("built" in l or "loaded" in l) for l in s.log):
            if time.time() - t0 > 600:
                sys.exit("no index after 10 minutes:\n" + "\n".join(s.log[-20:]))
            time.sleep(0.2)
        built = [l for l in s.log if "index of" in l][-1]
        print(re.sub(r" \(.*?/", " (", built) if "/" in built else built)
        print(f"memory with the index ready: {fmt(s.memory())}")
        times = {q: [] for q, _ in QUERIES}
        for _ in range(a.rounds):
            for q, extra in QUERIES:
                dt, r = s.grep(q, extra)
                if "error" in r or r["result"].get("isError"):
                    sys.exit(f"{q}: {r}")
                times[q].append(dt)
        for q, _ in QUERIES:
            print(f"  {q[:60]:<60} median {statistics.median(times[q]) * 1000:8.1f} ms")
        print(f"memory after {a.rounds} rounds of the query set: {fmt(s.memory())}")
        s.close()


def ms(ts):
    return "[" + ", ".join(f"{t * 1000:.0f}" for t in ts) + "]"


def fmt(m):
    return ", ".join(f"{k} {v / 2**20:.0f} MiB" for k, v in m.items())


if __name__ == "__main__":
    main()
