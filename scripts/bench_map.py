#!/usr/bin/env python3
"""The repo map (issue 37) as an agent waits for it: the stdio server spoken to by the Python
`mcp` client as Codex (9,000-byte answers), on a tree whose index and symbol records are
complete.

1. `repo_map` of each --paths entry twice, then of the whole tree --whole times: first and
   next calls, and the server's resident memory after them.
2. Freshness: a new file under --fresh-dir defines a function and --callers of that
   directory's C files gain a function that calls it; `repo_map` of the directory is asked
   until its 9,000-byte map names the function (time from the edits), then the whole tree's
   map once (the kept map brought up to date).
3. The edits undone; the whole tree's map again (a file left: taken out of the kept map).
4. With --hold-secs S (passed to `serve --map-hold-secs`): the server's resident memory
   S + 10 s later, once the kept map was let go.

Usage: python3 scripts/bench_map.py --index-dir DIR [--tree corpora/linux]
       [--mapgrep target/release/mapgrep] [--paths fs/ext4,drivers/net] [--whole 3]
       [--fresh-dir fs/ext4] [--callers 30] [--hold-secs 30]
"""

import argparse
import asyncio
import os
import statistics
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import Implementation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_symbols as bs  # noqa: E402

PROBE = "mapgrep_probe_counter_bump"


def rss_mb(pid):
    return bs.status_mb(pid, "VmRSS")


def edit(tree, directory, callers):
    """Adds the probe's definition and its callers; returns the undo."""
    d = os.path.join(tree, directory)
    new = os.path.join(d, "zz_mapgrep_probe.c")
    with open(new, "w") as f:
        f.write(f"// SPDX-License-Identifier: GPL-2.0\n\nint {PROBE}(int n)\n{{\n"
                "\treturn n + 1;\n}\n")
    files = sorted(n for n in os.listdir(d) if n.endswith(".c") and n != "zz_mapgrep_probe.c")
    saved = {}
    for i, name in enumerate(files[:callers]):
        p = os.path.join(d, name)
        with open(p, "rb") as f:
            saved[p] = f.read()
        with open(p, "ab") as f:
            f.write(f"\nint mapgrep_probe_caller_{i}(int n)\n{{\n\treturn {PROBE}(n);\n}}\n"
                    .encode())

    def undo():
        os.remove(new)
        for p, data in saved.items():
            with open(p, "wb") as f:
                f.write(data)
    return undo, len(saved)


async def run(args):
    extra = ["--map-hold-secs", str(args.hold_secs)] if args.hold_secs else []
    params = StdioServerParameters(command=args.mapgrep,
                                   args=["serve", "--index-dir", args.index_dir] + extra
                                   + [args.tree])
    log = os.path.join(os.path.dirname(os.path.abspath(args.index_dir)), "log-map")
    with open(log, "w", buffering=1) as err:
        async with stdio_client(params, errlog=err) as (r, w):
            async with ClientSession(r, w, client_info=Implementation(
                    name="codex", version="1")) as s:
                await s.initialize()
                await s.list_tools()
                sv = bs.Session(s, bs.server_pid(args.mapgrep), log)
                await body(args, sv)


async def wait_ready(sv):
    while not sv.log_has(" built (", " loaded from "):
        await asyncio.sleep(0.2)
    while True:
        _, text, _ = await sv.call("find_definition", {"name": "kmalloc_array", "code": False})
        line = bs.summary(text)
        if "symbol index" in line and "not indexed yet" not in line:
            return
        await asyncio.sleep(1)


async def body(args, sv):
    await wait_ready(sv)
    print(f"ready; server RSS {rss_mb(sv.pid):.0f} MB", flush=True)
    for path in [p for p in args.paths.split(",") if p]:
        times = [(await sv.call("repo_map", {"path": path}))[0] for _ in range(2)]
        print(f"repo_map {path}: {times[0]:.0f} ms first, {times[1]:.0f} ms next", flush=True)
    times = []
    for _ in range(args.whole):
        dt, text, _ = await sv.call("repo_map", {"path": "."})
        times.append(dt)
    print(f"repo_map . : {times[0]:.0f} ms first, next {', '.join(f'{t:.0f}' for t in times[1:])}"
          f" ms (median {statistics.median(times[1:] or times):.0f}); {len(text.encode())} bytes;"
          f" server RSS {rss_mb(sv.pid):.0f} MB, peak {bs.rss_peak_mb(sv.pid):.0f} MB", flush=True)
    if not args.callers:
        return
    undo, n = edit(args.tree, args.fresh_dir, args.callers)
    t0 = time.time()
    try:
        while True:
            dt, text, _ = await sv.call("repo_map", {"path": args.fresh_dir})
            if PROBE in text:
                break
            if time.time() - t0 > 60:
                print(f"the probe is not in the map of {args.fresh_dir} after 60 s", flush=True)
                break
            await asyncio.sleep(0.2)
        print(f"{n} files of {args.fresh_dir} call a new function: in its map "
              f"{time.time() - t0:.1f} s after the edits ({dt:.0f} ms call)", flush=True)
        dt, text, _ = await sv.call("repo_map", {"path": "."})
        print(f"repo_map . after the edits (kept map brought up to date): {dt:.0f} ms", flush=True)
        dt, text, _ = await sv.call("repo_map", {"path": "."})
        print(f"repo_map . again: {dt:.0f} ms", flush=True)
    finally:
        undo()
    await asyncio.sleep(3)
    dt, _, _ = await sv.call("repo_map", {"path": "."})
    print(f"repo_map . after the edits were undone (a file left): {dt:.0f} ms", flush=True)
    if args.hold_secs:
        await asyncio.sleep(args.hold_secs + 10)
        print(f"{args.hold_secs + 10} s without a map call: server RSS {rss_mb(sv.pid):.0f} MB",
              flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default=os.path.join(bs.ROOT, "corpora", "linux"))
    ap.add_argument("--mapgrep", default=os.path.join(bs.ROOT, "target", "release", "mapgrep"))
    ap.add_argument("--index-dir", required=True)
    ap.add_argument("--paths", default="fs/ext4,drivers/net")
    ap.add_argument("--whole", type=int, default=3)
    ap.add_argument("--fresh-dir", default="fs/ext4")
    ap.add_argument("--callers", type=int, default=30)
    ap.add_argument("--hold-secs", type=int, default=0)
    args = ap.parse_args()
    args.mapgrep = os.path.abspath(args.mapgrep)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
