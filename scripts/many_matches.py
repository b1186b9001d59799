#!/usr/bin/env python3
"""Many matches, served whole (issue 23): a pattern with thousands of hits on a big tree, in
one run, median of N each:

  (a) `rg -n PATTERN` in the tree;
  (b) `mapgrep grep -n PATTERN` in the tree (the command line);
  (c) a warm `mapgrep serve TREE` answering `grep_content` over stdio JSON-RPC, timed from
      sending `tools/call` to reading the whole response line; with `--no-index` (every call
      scans) and with a ready trigram index (kept in a temporary directory, built by the
      server it measures).

Every answer is checked first: the set of (path, line) it names must be rg's. Outputs go to
a pipe read by this script (never /dev/null, which ripgrep treats as "quit at the first
match"). The server gets `max_results` 10000 (the contract's maximum) and
`--max-output-bytes` large enough for the whole answer, so nothing is cut.

Usage: python3 scripts/many_matches.py [--tree corpora/linux] [--mapgrep target/release/mapgrep]
       [--rg rg] [--runs 10] [--pattern REGEX] [--only cli,serve,serve-index]
       [--baseline OTHER_MAPGREP_BINARY]
With --baseline, every mapgrep row is measured for both binaries, alternated in one run.
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

DEFAULT_PATTERN = r"spin_unlock_irqrestore\(&\w+->lock"
HEADER = re.compile(r"^File: (.*?), Line: (\d+)(?:,|$)", re.M)


def lines_of(out):
    """The (path, line) set of `-n` output with paths."""
    found = set()
    for raw in out.split(b"\n"):
        if raw:
            path, line, _ = raw.split(b":", 2)
            found.add((path.decode(errors="replace"), int(line)))
    return found


def run_cli(cmd, cwd):
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr.decode(errors='replace')}")
    return dt, p.stdout


class Server(Client):
    """`mapgrep serve`, spoken to directly: one JSON-RPC message per line."""

    def __init__(self, cmd):
        super().__init__(cmd, "many_matches")

    def call(self, method, params):
        return self.request(method, params)

    def grep(self, pattern):
        dt, r, size = self.call("tools/call", {"name": "grep_content", "arguments": {
            "pattern": pattern, "max_results": 10000}})
        if "error" in r or r["result"].get("isError"):
            sys.exit(f"grep_content failed: {json.dumps(r)[:2000]}")
        return dt, r["result"], size

    def wait_index(self, timeout=900):
        t0 = time.time()
        while not any("index of" in l and ("built" in l or "loaded" in l) for l in self.log):
            if time.time() - t0 > timeout:
                sys.exit("no index in time:\n" + "\n".join(self.log[-20:]))
            time.sleep(0.2)
        # And every file's symbol records (built after the index, in the background): a
        # lookup says it answered from them.
        while True:
            _, r, _ = self.call("tools/call", {"name": "find_definition", "arguments": {
                "name": "kmalloc_array", "code": False}})
            text = r.get("result", {}).get("content", [{}])[0].get("text", "")
            if "symbol index" in text and "not indexed yet" not in text:
                return
            if time.time() - t0 > timeout:
                sys.exit("no symbol records in time: " + text[:400])
            time.sleep(0.5)


def served(result):
    """The (path, line) set of a grep_content answer, after checking it was not cut and that
    both views carry the same text."""
    text = result["content"][0]["text"]
    if result.get("structuredContent", {}).get("content") != text:
        sys.exit("the structured view differs from the text")
    if result.get("structuredContent", {}).get("truncated"):
        sys.exit("the answer was cut: " + text[-400:])
    return {(p, int(n)) for p, n in HEADER.findall(text)}, len(text)


def ms(ts):
    return "[" + ", ".join(f"{t * 1000:.0f}" for t in ts) + "]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default="corpora/linux")
    ap.add_argument("--mapgrep", default="target/release/mapgrep")
    ap.add_argument("--rg", default="rg")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--pattern", default=DEFAULT_PATTERN)
    ap.add_argument("--only", default="cli,serve,serve-index",
                    help="which mapgrep rows to measure (rg is always measured)")
    ap.add_argument("--max-output-bytes", type=int, default=64_000_000)
    ap.add_argument("--baseline", help="another mapgrep binary measured in the same run")
    a = ap.parse_args()
    tree = os.path.abspath(a.tree)
    mg = os.path.abspath(a.mapgrep)
    only = set(a.only.split(","))
    rg_cmd = [a.rg, "-n", a.pattern]
    cli_cmd = [mg, "grep", "-n", a.pattern]

    # Warm the page cache, take rg's answer as the reference.
    run_cli(rg_cmd, tree)
    _, out = run_cli(rg_cmd, tree)
    want = lines_of(out)
    print(f"pattern {a.pattern!r} in {os.path.basename(tree)}: rg -n finds {len(want)} matching "
          f"lines in {len({p for p, _ in want})} files ({len(out)} bytes of output)")
    if len(want) > 10000:
        sys.exit("more than 10000 matching lines: grep_content would cut at max_results")

    binaries = [("", mg)] + ([(" (baseline)", os.path.abspath(a.baseline))] if a.baseline else [])
    rows = {"rg -n": []}
    if "cli" in only:
        for tag, bin_ in binaries:
            _, out = run_cli([bin_, *cli_cmd[1:]], tree)
            got = lines_of(out)
            if got != want:
                sys.exit(f"mapgrep grep -n{tag} differs from rg: {len(got - want)} extra, "
                         f"{len(want - got)} missing")
        # Alternated, so that load on the machine falls on every row alike.
        for _ in range(a.runs):
            rows["rg -n"].append(run_cli(rg_cmd, tree)[0])
            for tag, bin_ in binaries:
                rows.setdefault(f"mapgrep grep -n{tag}", []).append(
                    run_cli([bin_, *cli_cmd[1:]], tree)[0])

    servers = []
    for tag, bin_ in binaries:
        base_cmd = [bin_, "serve", tree, "--max-output-bytes", str(a.max_output_bytes)]
        if "serve" in only:
            servers.append((f"serve --no-index{tag}", base_cmd + ["--no-index"], None))
        if "serve-index" in only:
            servers.append((f"serve, index ready{tag}", base_cmd, tempfile.TemporaryDirectory()))
    started = []
    for label, cmd, idx in servers:
        s = Server(cmd + (["--index-dir", idx.name] if idx else []))
        if idx:
            s.wait_index()
        # Warm-up calls: the first walks and fills the caches.
        for _ in range(3):
            _, r, size = s.grep(a.pattern)
        got, text_len = served(r)
        if got != want:
            sys.exit(f"{label}: differs from rg: {len(got - want)} extra, {len(want - got)} missing")
        print(f"{label}: {text_len} bytes of text, {size} bytes of JSON-RPC response")
        started.append((label, s))
    if started:
        for _ in range(a.runs):
            # rg beside each round of calls, so that all see the same load.
            rows["rg -n"].append(run_cli(rg_cmd, tree)[0])
            for label, s in started:
                rows.setdefault(f"{label}, grep_content", []).append(s.grep(a.pattern)[0])
    for _, s in started:
        s.close()
    for _, _, idx in servers:
        if idx:
            idx.cleanup()

    base = statistics.median(rows["rg -n"])
    print(f"\n| what | median | runs (ms) | / rg |\n|---|---|---|---|")
    for label, ts in rows.items():
        m = statistics.median(ts)
        print(f"| {label} | {m * 1000:.0f} ms | {ms(ts)} | {m / base:.2f} |")


if __name__ == "__main__":
    main()
