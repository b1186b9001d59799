#!/usr/bin/env python3
"""Symbols in the index (issue 36), measured as an agent waits for them: the stdio server
spoken to by the Python `mcp` client with its default answer budget.

1. A fresh index directory: the time until the trigram index is ready and until every file's
   symbols are recorded, the server's CPU for each (from /proc), the index directory's size
   (segments, side files).
2. Warm lookups (`find_definition`, default parameters) of common and rare names: each name
   asked --runs times, its median; then the median and the worst over all names, and
   whether each answer came from the records alone.
3. Greps: `grep_content` of a selective pattern (warm), and of many matches (`TODO:|XXX:`):
   time, matches shown, whether the answer was cut.
4. With --restart: the server stopped and started again on the same index directory: the
   time until the first lookup answers from the records, and the first grep. With
   --changes N, N C files that use kmalloc_array get a new function appended while no
   server runs (restored afterwards): from 2 s after the restart, the selective grep and
   lookups (20 of the added functions, which must be found, and common names), timed.

Usage: python3 scripts/bench_symbols.py [--tree corpora/linux] [--mapgrep target/release/mapgrep]
       [--index-dir DIR (default: a fresh one under target/bench-symbols)] [--runs 3]
       [--names a,b,c] [--restart [--changes 60 [--changed-ago S]]] [--json FILE]
Needs: a release build, the Linux tree (corpora/fetch_linux.sh), Python `mcp`.
"""

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The most common words of the tree first (thousands of files hold them), then rarer names:
# functions, macros, types, members.
NAMES = [
    "current", "page", "data", "lock", "init", "kfree", "container_of", "kmalloc_array",
    "task_struct", "struct task_struct", "spin_lock", "mutex_lock", "list_add", "printk",
    "dev_err", "ext4_fill_super", "schedule", "copy_from_user", "PAGE_SIZE", "i",
    "net_device", "sk_buff", "file_operations", "module_init", "EXPORT_SYMBOL", "bpf_prog_run",
]


def server_pid(binary):
    """The pid of the server this script started (a child of this process)."""
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                st = f.read()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
        except OSError:
            continue
        ppid = int(st.rsplit(")", 1)[1].split()[1])
        if ppid == me and cmd and os.path.basename(cmd[0].decode()) == os.path.basename(binary):
            return int(pid)
    return None


def cpu_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick


def status_mb(pid, field):
    """A memory field of /proc/PID/status (`VmHWM`, `VmRSS`) in MB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0


def rss_peak_mb(pid):
    return status_mb(pid, "VmHWM")


def size_of(dir):
    total, by_ext = 0, {}
    for base, _, files in os.walk(dir):
        for name in files:
            n = os.path.getsize(os.path.join(base, name))
            total += n
            ext = name.rsplit(".", 1)[-1] if "." in name else "(none)"
            by_ext[ext] = by_ext.get(ext, 0) + n
    return total, by_ext


def summary(text):
    for line in text.splitlines():
        if line.startswith(("Found", "No definition")):
            return line
    return text.splitlines()[0] if text else ""


class Session:
    def __init__(self, s, pid, log):
        self.s, self.pid, self.log = s, pid, log

    async def call(self, tool, args):
        t = time.perf_counter()
        r = await self.s.call_tool(tool, args)
        dt = (time.perf_counter() - t) * 1000
        text = "".join(c.text for c in r.content if getattr(c, "type", "") == "text")
        return dt, text, r

    def log_has(self, *words):
        with open(self.log, errors="replace") as f:
            text = f.read()
        return any(w in text for w in words)


async def with_server(args, index_dir, log, body):
    params = StdioServerParameters(
        command=args.mapgrep, args=["serve", "--index-dir", index_dir, args.tree])
    # Line-buffered: the client copies the server's log into it, and the script reads it.
    with open(log, "w", buffering=1) as err:
        async with stdio_client(params, errlog=err) as (r, w):
            async with ClientSession(r, w) as s:
                await s.initialize()
                # As a client does when a session starts (its model needs the tools): the
                # Python client would otherwise list them inside the first call of a tool
                # (to check its answer against the output schema), and that round trip and
                # its parsing would count as the first call's time.
                await s.list_tools()
                pid = server_pid(args.mapgrep)
                return await body(Session(s, pid, log))


async def first_run(args, index_dir, out):
    async def body(sv):
        t0 = time.time()
        while not sv.log_has("index of", "built", "loaded"):
            await asyncio.sleep(0.2)
        while not sv.log_has(" built (", " loaded from "):
            await asyncio.sleep(0.2)
        ready, cpu_ready = time.time() - t0, cpu_of(sv.pid)
        print(f"index ready after {ready:.1f} s, server CPU {cpu_ready:.1f} s", flush=True)
        while True:
            _, text, _ = await sv.call("find_definition", {"name": "kmalloc_array", "code": False})
            line = summary(text)
            if "symbol index" in line and "not indexed yet" not in line:
                break
            await asyncio.sleep(5)
        done, cpu_done = time.time() - t0, cpu_of(sv.pid)
        print(f"records complete after {done:.1f} s, server CPU {cpu_done:.1f} s "
              f"(symbols {cpu_done - cpu_ready:.1f} s); peak RSS {rss_peak_mb(sv.pid):.0f} MB",
              flush=True)
        total, by_ext = size_of(index_dir)
        print(f"index directory: {total / 1e6:.0f} MB "
              + ", ".join(f"{k} {v / 1e6:.0f} MB" for k, v in sorted(by_ext.items())), flush=True)
        out["build"] = {"index_ready_s": ready, "index_cpu_s": cpu_ready, "records_s": done,
                        "records_cpu_s": cpu_done - cpu_ready, "disk_mb": total / 1e6,
                        "by_ext_mb": {k: v / 1e6 for k, v in by_ext.items()}}
        await lookups(args, sv, out)
        await greps(sv, out)
    await with_server(args, index_dir, os.path.join(os.path.dirname(index_dir), "log1"), body)


async def lookups(args, sv, out):
    rows, all_ms = [], []
    for name in args.names:
        times, line = [], ""
        for _ in range(args.runs + 1):
            dt, text, _ = await sv.call("find_definition", {"name": name})
            times.append(dt)
            line = summary(text)
        warm = times[1:]
        all_ms.extend(warm)
        med = statistics.median(warm)
        rows.append({"name": name, "median_ms": med, "max_ms": max(warm), "summary": line})
        print(f"  {name:24} median {med:7.1f} ms  max {max(warm):7.1f} ms  {line[:110]}",
              flush=True)
    meds = [r["median_ms"] for r in rows]
    print(f"lookups: median of medians {statistics.median(meds):.1f} ms, worst call "
          f"{max(all_ms):.1f} ms ({len(all_ms)} calls)", flush=True)
    out["lookups"] = rows


async def greps(sv, out):
    res = {}
    for pat in ["kmalloc_array", "TODO:|XXX:", r"spin_unlock_irqrestore\(&\w+->lock"]:
        times, text = [], ""
        for _ in range(3):
            dt, text, _ = await sv.call("grep_content", {"pattern": pat})
            times.append(dt)
        shown = len(re.findall(r"^\s*\d+[:-]", text, re.M))
        cut = "cut" in text.lower() or "next page" in text.lower() or "more" in text.lower()
        print(f"grep {pat!r}: {times[0]:.0f} ms first, {statistics.median(times[1:]):.1f} ms "
              f"warm; {len(text)} bytes, ~{shown} lines shown, cut: {cut}", flush=True)
        res[pat] = {"first_ms": times[0], "warm_ms": statistics.median(times[1:])}
    out["greps"] = res


def change_files(tree, n):
    """Appends a new function to `n` C files of `tree` that use kmalloc_array (while no server
    runs); returns what restores them, and the names added."""
    out = subprocess.run(["git", "grep", "-l", "--no-index", "kmalloc_array", "--", "*.c"],
                         cwd=tree, capture_output=True, text=True).stdout.split()
    if len(out) < n:
        out = [os.path.relpath(os.path.join(d, f), tree)
               for d, _, fs in os.walk(os.path.join(tree, "drivers")) for f in sorted(fs)
               if f.endswith(".c")]
    picked = sorted(out)[:: max(1, len(out) // n)][:n]
    saved, names = {}, []
    for k, rel in enumerate(picked):
        path = os.path.join(tree, rel)
        with open(path, "rb") as f:
            saved[path] = f.read()
        name = f"mg_restart_added_{k}"
        names.append(name)
        with open(path, "ab") as f:
            f.write(f"\nstatic int {name}(void)\n{{\n\treturn {k};\n}}\n".encode())

    def restore():
        for path, data in saved.items():
            with open(path, "wb") as f:
                f.write(data)
    return restore, names


async def restart(args, index_dir, out):
    names = []
    restore = None
    if args.changes:
        restore, names = change_files(args.tree, args.changes)
        print(f"restart: {len(names)} files changed while no server ran, "
              f"{args.changed_ago:g} s before it starts", flush=True)
        time.sleep(args.changed_ago)

    async def body(sv):
        t0 = time.time()
        if names:
            # From 2 s after start: greps and lookups, the changed files' definitions found.
            await asyncio.sleep(max(0.0, 2.0 - (time.time() - t0)))
            greps = [(await sv.call("grep_content", {"pattern": "kmalloc_array"}))[0]
                     for _ in range(5)]
            looks, missing = [], []
            for name in names[:20] + ["kmalloc_array", "kfree", "current"]:
                dt, text, _ = await sv.call("find_definition", {"name": name, "code": False})
                looks.append(dt)
                if not summary(text).startswith("Found"):
                    missing.append(name)
            print(f"restart after {len(names)} changes, from 2 s: grep kmalloc_array "
                  f"{greps[0]:.1f} ms first, median {statistics.median(greps):.1f} ms, max "
                  f"{max(greps):.1f} ms; lookups median {statistics.median(looks):.1f} ms, max "
                  f"{max(looks):.1f} ms; added definitions not found: {missing}", flush=True)
            out["restart_changes"] = {"grep_ms": greps, "lookup_ms": looks, "missing": missing}
        while True:
            dt, text, _ = await sv.call("find_definition", {"name": "kmalloc_array", "code": False})
            line = summary(text)
            if "symbol index" in line and "not indexed yet" not in line:
                break
            await asyncio.sleep(0.1)
        print(f"restart: lookups from the records {time.time() - t0:.2f} s after start "
              f"({dt:.1f} ms)", flush=True)
        dt, _, _ = await sv.call("grep_content", {"pattern": "kmalloc_array"})
        dt2, _, _ = await sv.call("grep_content", {"pattern": "kmalloc_array"})
        print(f"restart: grep kmalloc_array {dt:.0f} ms, then {dt2:.1f} ms", flush=True)
        out["restart"] = {"records_s": time.time() - t0, "grep_ms": [dt, dt2]}
    try:
        await with_server(args, index_dir, os.path.join(os.path.dirname(index_dir), "log2"),
                          body)
    finally:
        if restore:
            restore()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default=os.path.join(ROOT, "corpora/linux"))
    ap.add_argument("--mapgrep", default=os.path.join(ROOT, "target/release/mapgrep"))
    ap.add_argument("--index-dir")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--names", default=",".join(NAMES))
    ap.add_argument("--restart", action="store_true")
    ap.add_argument("--changes", type=int, default=0,
                    help="with --restart: change this many C files before the restart")
    ap.add_argument("--changed-ago", type=float, default=0.0,
                    help="with --changes: seconds between the changes and the restart (a "
                         "file changed less than 2 s before it is read waits for the upkeep)")
    ap.add_argument("--json")
    args = ap.parse_args()
    args.names = [n for n in args.names.split(",") if n]
    args.tree = os.path.realpath(args.tree)
    base = os.path.join(ROOT, "target/bench-symbols")
    os.makedirs(base, exist_ok=True)
    index_dir = args.index_dir
    if not index_dir:
        index_dir = tempfile.mkdtemp(dir=base, prefix="run-")
        index_dir = os.path.join(index_dir, "index")
    os.makedirs(os.path.dirname(index_dir), exist_ok=True)
    out = {"tree": args.tree}
    asyncio.run(first_run(args, index_dir, out))
    if args.restart:
        asyncio.run(restart(args, index_dir, out))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    if not args.index_dir:
        shutil.rmtree(os.path.dirname(index_dir), ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
