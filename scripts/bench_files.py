#!/usr/bin/env python3
"""find_files (issue 38) against `rg --files -g`, measured as an agent waits for it: the
stdio server spoken to by the Python `mcp` client with its default answer budget, on a tree
whose index is ready.

For each glob (and optional search path): every page followed by its cursor, the names
checked against `rg --files --sort path -g GLOB [PATH]` run in the tree (equal, or the
differences printed); the first page's time (first call of that glob, then the median and
worst of --runs more calls), and the hidden/ignored count the answer states.

Usage: python3 scripts/bench_files.py --index-dir DIR [--tree corpora/linux]
       [--mapgrep target/release/mapgrep] [--globs 'a;b,c'] [--runs 5] [--rg rg]
Globs are separated by ';' (one call each); ',' separates the globs of one call; a glob
written PATH:GLOB lists PATH.
"""

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_symbols as bs  # noqa: E402

GLOBS = ["*.c", "**/Makefile", "fs/ext4/*.h", "Kconfig*", "*.rs,!rust/**", "drivers:*.dts",
         "*.gitignore", ".*", "**/*test*", "fs:!*.c", "*.S"]


def parse(spec):
    path, _, globs = spec.rpartition(":") if ":" in spec else ("", "", spec)
    return path or None, globs.split(",")


def rg_files(rg, tree, path, globs):
    cmd = [rg, "--files", "--sort", "path"]
    for g in globs:
        cmd += ["-g", g]
    if path:
        cmd.append(path)
    out = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, errors="replace")
    return [l for l in out.stdout.splitlines() if l]


def names_of(text):
    out = []
    for line in text.splitlines():
        if line.startswith(("Files ", "No files", "Hidden or", "More files", "Could not")) \
                or line.endswith(" match.") or not line:
            continue
        out.append(line)
    return out


async def pages(sv, args):
    names, cursor, n, t = [], None, 0, time.perf_counter()
    while True:
        a = dict(args)
        if cursor:
            a["cursor"] = cursor
        _, text, r = await sv.call("find_files", a)
        n += 1
        names += names_of(text)
        cursor = (getattr(r, "structured_content", None) or {}).get("next_cursor")
        if not cursor:
            return names, n, (time.perf_counter() - t) * 1000, text


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default=os.path.join(bs.ROOT, "corpora/linux"))
    ap.add_argument("--mapgrep", default=os.path.join(bs.ROOT, "target/release/mapgrep"))
    ap.add_argument("--index-dir", required=True)
    ap.add_argument("--globs", default=";".join(GLOBS))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rg", default="rg")
    args = ap.parse_args()
    args.tree = os.path.abspath(args.tree)

    async def body(sv):
        while not sv.log_has(" built (", " loaded from "):
            await asyncio.sleep(0.2)
        await sv.call("grep_content", {"pattern": "kmalloc_array", "max_results": 1})
        firsts, warm, bad = [], [], 0
        for spec in args.globs.split(";"):
            path, globs = parse(spec)
            call = {"pattern": globs}
            if path:
                call["path"] = path
            times = []
            for _ in range(args.runs + 1):
                dt, text, _ = await sv.call("find_files", call)
                times.append(dt)
            firsts.append(times[0])
            warm += times[1:]
            got, n, total_ms, last = await pages(sv, call)
            want = rg_files(args.rg, args.tree, path, globs)
            same = got == want
            bad += not same
            hidden = [l for l in last.splitlines() if l.startswith("Hidden or")]
            print(f"  {spec:22} first {times[0]:6.1f} ms, again median "
                  f"{statistics.median(times[1:]):6.1f} max {max(times[1:]):6.1f}; "
                  f"{len(got)} files in {n} pages ({total_ms:.0f} ms); rg {len(want)}: "
                  f"{'equal' if same else 'DIFFERENT'}; {hidden[0] if hidden else ''}",
                  flush=True)
            if not same:
                a, b = set(got), set(want)
                print(f"    only mapgrep: {sorted(a - b)[:5]}; only rg: {sorted(b - a)[:5]}; "
                      f"order differs: {a == b}")
        print(f"first calls: median {statistics.median(firsts):.1f} ms, worst {max(firsts):.1f}; "
              f"again: median {statistics.median(warm):.1f} ms, worst {max(warm):.1f}; "
              f"{bad} of {len(firsts)} differ from rg")
    log = os.path.join(os.path.dirname(os.path.abspath(args.index_dir)), "log-files")
    await bs.with_server(args, args.index_dir, log, body)


if __name__ == "__main__":
    asyncio.run(main())
