#!/usr/bin/env python3
"""References (issue 37), measured as an agent waits for them: the stdio server spoken to by
the Python `mcp` client with its default answer budget, on a tree whose index and symbol
records are complete.

For each name: the first call's time (a new search), then the same call again (median and
worst of --runs calls: the answer the server keeps), the count of uses the answer gives; for the names with more than one page, every page followed by its
cursor, timed in all, and the pages' uses checked against the first answer's count. Then
the lines of the answer against `rg -n -w NAME` on the same files: lines the answer has and
rg has not (must be none), and rg's lines the answer left out, sorted into comment or
string lines, definition lines and the rest (printed: the rest is what to look at).

Usage: python3 scripts/bench_refs.py [--tree corpora/linux] [--mapgrep target/release/mapgrep]
       [--index-dir DIR (an index directory with complete records, e.g. bench_symbols.py's)]
       [--names a,b,c] [--runs 3] [--rg rg]
"""

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_symbols as bs  # noqa: E402

NAMES = ["ext4_fill_super", "kmalloc_array", "spin_lock_irqsave", "task_struct",
         "dev_err", "container_of"]


def summary_count(text):
    m = re.search(r"^(\d+) uses of `", text, re.M)
    return int(m.group(1)) if m else -1


def answer_lines(text):
    """(path, line) of every use line of a page."""
    out, path = set(), None
    for line in text.splitlines():
        if line and not line.startswith(" ") and not line.startswith(("[", "#")) \
                and " " not in line and line.strip():
            path = line
        m = re.match(r"^    (\d+): ", line)
        if m and path:
            out.add((path, int(m.group(1))))
    return out


async def all_pages(sv, name):
    seen, cursor, pages = set(), None, 0
    t = time.perf_counter()
    while True:
        args = {"name": name}
        if cursor:
            args["cursor"] = cursor
        _, text, r = await sv.call("find_references", args)
        pages += 1
        seen |= answer_lines(text)
        sc = getattr(r, "structured_content", None) or {}
        cursor = sc.get("next_cursor")
        if not cursor:
            break
    return (time.perf_counter() - t) * 1000, pages, seen


def rg_lines(rg, tree, name):
    out = subprocess.run([rg, "-n", "-w", "--no-heading", "-F", name, "-t", "c", "-t", "cpp",
                          "-t", "py", "-t", "rust", "-t", "sh", "-t", "java"],
                         cwd=tree, capture_output=True, text=True, errors="replace").stdout
    lines = {}
    for l in out.splitlines():
        p, n, text = l.split(":", 2)
        lines[(p, int(n))] = text
    return lines


def why_left_out(text, name):
    s = text.strip()
    if s.startswith(("*", "/*", "//", "#")) and not s.startswith(("#define", "#if", "#elif")):
        return "comment"
    code = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    code = re.sub(r"/\*.*?\*/|//.*$", "", code)
    if not re.search(r"\b%s\b" % re.escape(name), code):
        return "comment or string"
    return "definition or other"


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default=os.path.join(bs.ROOT, "corpora/linux"))
    ap.add_argument("--mapgrep", default=os.path.join(bs.ROOT, "target/release/mapgrep"))
    ap.add_argument("--index-dir", required=True)
    ap.add_argument("--names", default=",".join(NAMES))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rg", default="rg")
    args = ap.parse_args()
    args.tree = os.path.abspath(args.tree)

    async def body(sv):
        while True:
            _, text, _ = await sv.call("find_definition", {"name": "kmalloc_array", "code": False})
            if "symbol index" in bs.summary(text) and "not indexed yet" not in text:
                break
            await asyncio.sleep(3)
        firsts = []
        for name in args.names.split(","):
            times, text = [], ""
            for _ in range(args.runs + 1):
                dt, text, r = await sv.call("find_references", {"name": name})
                times.append(dt)
            warm = times[1:]
            firsts.extend(warm)
            n = summary_count(text)
            line = text.splitlines()[2] if len(text.splitlines()) > 2 else text
            print(f"  {name:20} first call {times[0]:7.1f} ms; again: median "
                  f"{statistics.median(warm):7.1f} ms max {max(warm):7.1f} ms  {n} uses; "
                  f"{line[:150]}", flush=True)
            ms, pages, seen = await all_pages(sv, name)
            print(f"  {'':20} all {pages} pages {ms:.0f} ms, {len(seen)} lines", flush=True)
            truth = rg_lines(args.rg, args.tree, name)
            extra = seen - set(truth)
            missing = {k: v for k, v in truth.items() if k not in seen}
            kinds = {}
            for k, v in missing.items():
                kinds.setdefault(why_left_out(v, name), []).append((k, v))
            print(f"  {'':20} rg -w lines {len(truth)}; in the answer, not rg's: {len(extra)}; "
                  + "; ".join(f"{k} {len(v)}" for k, v in sorted(kinds.items())), flush=True)
            for (p, n), v in kinds.get("definition or other", [])[:6]:
                print(f"  {'':22}{p}:{n}: {v.strip()[:110]}", flush=True)
        print(f"first pages: median {statistics.median(firsts):.1f} ms, worst "
              f"{max(firsts):.1f} ms ({len(firsts)} calls)", flush=True)

    log = os.path.join(os.path.dirname(os.path.abspath(args.index_dir)), "log-refs")
    await bs.with_server(args, args.index_dir, log, body)


if __name__ == "__main__":
    asyncio.run(main())
