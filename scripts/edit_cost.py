#!/usr/bin/env python3
"""What index upkeep costs while an agent edits (issue 23): servers on a tree with a ready
index, a one-line edit to a random source file every INTERVAL seconds for DURATION seconds,
and a grep for the new text right after each edit, through one of the servers (in turn).

Prints, for the session: the servers' CPU seconds (user + system, from /proc, summed over
the servers) and bytes written (write_bytes and wchar from /proc/PID/io), how many greps
saw their edit (every one must), the grep latencies, and the index's segments at the end.
Every edit is undone at the end (the files are written back as they were).

Usage: python3 scripts/edit_cost.py [--tree corpora/linux] [--mapgrep target/release/mapgrep]
       [--interval 2] [--duration 300] [--servers 1] [--seed 1] [--rg rg]
       [--serve-arg=--index-sweep-secs=0 ...] [--copies 4]
--copies N serves a root holding N full copies of the tree (real copies, not hard links: an
edit must change one path only), made once under corpora/generated/edit-xN/ (git-ignored);
the edits go to random files of all the copies.
Needs: a release build and the tree (corpora/fetch_linux.sh). The index is built first in a
fresh temporary index directory (`mapgrep index`), outside the measured session.
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from mcp_client import Client  # noqa: E402
from scaling import copies  # noqa: E402


class Server(Client):
    def __init__(self, cmd):
        super().__init__(cmd, "edit-cost")

    def grep(self, pattern):
        args = {"pattern": pattern, "max_results": 1000, "section_patterns": []}
        dt, r, _ = self.request("tools/call", {"name": "grep_content", "arguments": args})
        return dt, r["result"]["content"][0]["text"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default="corpora/linux")
    ap.add_argument("--mapgrep", default="target/release/mapgrep")
    ap.add_argument("--interval", type=float, default=2.0)
    ap.add_argument("--duration", type=float, default=300.0)
    ap.add_argument("--servers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rg", default="rg")
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--serve-arg", action="append", default=[],
                    help="an extra argument for mapgrep serve (repeat for more)")
    a = ap.parse_args()
    tree = os.path.realpath(a.tree)
    parts = [tree]
    if a.copies > 1:
        tree = copies(tree, a.copies, real=True)
        parts = [os.path.join(tree, f"c{i}") for i in range(a.copies)]
    mg = os.path.realpath(a.mapgrep)
    work = tempfile.mkdtemp(prefix="mapgrep-edit-cost-")
    idx = os.path.join(work, "index")
    try:
        t = time.time()
        subprocess.run([mg, "index", tree, "--index-dir", idx], check=True,
                       stdout=subprocess.DEVNULL)
        print(f"index built in {time.time() - t:.1f} s (not counted)")
        servers = [Server([mg, "serve", tree, "--index-dir", idx, *a.serve_arg])
                   for _ in range(a.servers)]
        for s in servers:
            s.wait_log(["loaded from", "built"])
        time.sleep(1)
        rnd = random.Random(a.seed)
        sources = []
        for part in parts:
            for d in ("drivers/net", "fs", "kernel", "mm", "net/ipv4", "sound/core"):
                for base, _, files in os.walk(os.path.join(part, d)):
                    sources += [os.path.join(base, f) for f in files if f.endswith(".c")]
        sources.sort()
        saved = {}
        cpu0 = [s.cpu() for s in servers]
        io0 = [s.io() for s in servers]
        t0 = time.time()
        seen, steps, lat = 0, 0, []
        while time.time() - t0 < a.duration:
            step_t = time.time()
            path = rnd.choice(sources)
            if path not in saved:
                with open(path, "rb") as f:
                    saved[path] = f.read()
            token = f"EDITMARK_{a.seed}_{steps}_{rnd.randrange(1 << 30)}"
            with open(path, "ab") as f:
                f.write(f"/* {token} */\n".encode())
            s = servers[steps % len(servers)]
            dt, text = s.grep(token)
            lat.append(dt)
            rel = os.path.relpath(path, tree)
            if f"File: {rel}" in text:
                seen += 1
            else:
                print(f"step {steps}: the grep for {token} did not find {rel}:\n{text[:500]}")
            steps += 1
            time.sleep(max(0.0, a.interval - (time.time() - step_t)))
        # The upkeep of the last edits, counted: wait until the servers are idle.
        time.sleep(6)
        cpu = sum(s.cpu() - c for s, c in zip(servers, cpu0))
        wb = sum(s.io()["write_bytes"] - i["write_bytes"] for s, i in zip(servers, io0))
        wc = sum(s.io()["wchar"] - i["wchar"] for s, i in zip(servers, io0))
        # Every grep for a unique token found exactly its file; rg agrees on the last one.
        if shutil.which(a.rg):
            out = subprocess.run([a.rg, "-l", token, "."], cwd=tree, capture_output=True,
                                 text=True).stdout.split()
            ok = [p.removeprefix("./") for p in out] == [os.path.relpath(path, tree)]
            print(f"rg finds the last edit's token in the same file: {ok}")
        lat.sort()
        print(f"{len(servers)} server(s), an edit every {a.interval:g} s for {a.duration:g} s: "
              f"{steps} edits, {seen} greps saw their edit")
        if len(servers) > 1:
            each = ", ".join(f"{s.cpu() - c:.2f}" for s, c in zip(servers, cpu0))
            print(f"CPU per server (pids {', '.join(str(s.p.pid) for s in servers)}): {each} s")
        print(f"server CPU {cpu:.2f} s; written {wb / 1e6:.2f} MB to storage "
              f"({wc / 1e6:.2f} MB through write calls)")
        print(f"grep latency median {lat[len(lat) // 2] * 1000:.1f} ms, "
              f"max {lat[-1] * 1000:.1f} ms")
        segs = [f for f in os.listdir(os.path.join(idx, os.listdir(idx)[0]))
                if f.endswith(".seg")] if os.listdir(idx) else []
        print(f"segment files at the end: {len(segs)}")
        for s in servers:
            s.close()
        for line in servers[0].log[-5:]:
            print("log:", line)
    finally:
        for path, data in locals().get("saved", {}).items():
            with open(path, "wb") as f:
                f.write(data)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
