#!/usr/bin/env python3
"""Recall of the definition lookup (`mapgrep def`, MCP `find_definition`) against the
hand-checked sets of benchmarks/defs/<lang>.json.

Usage:
    python3 scripts/def_recall.py [--mapgrep BIN] [--lang L]... [--mcp] [--verbose]
                                  [--json OUT]

    --mapgrep BIN  the mapgrep binary (default: target/release/mapgrep, then `mapgrep` on PATH)
    --lang L       only the set of language L (repeatable; default: every set)
    --mcp          also run each case through the stdio MCP server (`BIN serve corpora/`,
                   tool `find_definition` with `name` and `search_path`), with the official
                   `mcp` Python client; its sites are scored the same way
    --verbose      print every case: the sites expected, found, missed and extra
    --json OUT     write the per-case results as JSON to OUT
    --time-limit S pass `--time-limit S` to `mapgrep def` (0: no budget)

The trees must be in place first (bash corpora/fetch_linux.sh, fetch_langs.sh,
fetch_langs_b.sh, fetch_code.sh; see corpora/README.md): every path of a set is relative to
corpora/, and each lookup runs with corpora/ as its working directory (CLI:
`BIN def QUERY SCOPE --json`, SCOPE = the case's `path_scope`, else the set's `scope`) or
root (MCP), so the paths it returns are corpora/-relative too.

A set file: {"_about": "...", "lang": "c", "scope": "linux", "cases": [CASE...]}, where
CASE = {"query": "std::vector", "form": "simple|class|package", "lang": "cpp",
        "path_scope": "langs/cpp/libstdc++" (optional), "class": "<shape tag>",
        "expect": [{"path", "line", "end_line", "kind", "note"}...],
        "not_expected_default": [{"path", "line"}...] (optional: declarations that the
        default lookup must not show; matched within two lines of their first line),
        "also_ok": [{"path", "line"}...] (optional: sites neither required nor wrong, such
        as a class's constructors for a query naming the class)}.

What is reported, per language, per class and in total:
  recall      expected sites returned with the same path and start line (±0), and within
              one line (±1); a site returned with the expected end line but a start further
              off (an attribute block left out) is listed apart, neither found nor extra;
  end exact   of the sites found (±1), those whose end line is the expected one;
  decl shown  sites of `not_expected_default` that the default lookup returned (must be 0);
  extra       returned sites that are neither expected nor listed declarations (printed:
              a human judges whether the set is incomplete or the lookup wrong);
  latency     of each call, median and worst (the CLI's includes the process start).
Misses are listed by class at the end.
"""

import argparse
import asyncio
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CORPORA = os.path.join(REPO, "corpora")
SETS = os.path.join(REPO, "benchmarks", "defs")


def load_sets(langs):
    out = []
    for p in sorted(glob.glob(os.path.join(SETS, "*.json"))):
        with open(p) as f:
            s = json.load(f)
        lang = s.get("lang") or os.path.splitext(os.path.basename(p))[0]
        if langs and lang not in langs:
            continue
        for c in s["cases"]:
            c.setdefault("lang", lang)
            scope = c.get("path_scope") or s.get("scope") or "."
            c["_scope"] = os.path.normpath(scope)
        out.append((lang, s))
    return out


def norm(p):
    return os.path.normpath(p)


def anchor(scope):
    """The deepest link on the way from corpora/ to SCOPE (corpora/-relative), or '.'."""
    parts = [] if scope == "." else scope.split(os.sep)
    best = "."
    for i in range(1, len(parts) + 1):
        rel = os.path.join(*parts[:i])
        if os.path.islink(os.path.join(CORPORA, rel)):
            best = rel
    return best


# ---- the two ways of asking ------------------------------------------------------------

TIME_LIMIT = []


def run_cli(binary, case):
    cmd = [binary, "def", case["query"], case["_scope"], "--json"] + TIME_LIMIT
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=CORPORA, capture_output=True, text=True)
    dt = time.perf_counter() - t
    sites = []
    for line in p.stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        o = json.loads(line)
        sites.append({"path": norm(o["path"]), "line": o["start_line"], "end_line": o["end_line"],
                      "kind": o.get("kind"), "qualified": o.get("qualified"),
                      "declaration": bool(o.get("declaration")), "language": o.get("language")})
    err = None
    if p.returncode not in (0, 1):
        err = " ".join(p.stderr.split())[:200]
    return sites, dt, err


# A site line of find_definition's text:
#   PATH:START-END: KIND QUALIFIED (LANGUAGE[, declaration][, doc from D]) — SIGNATURE
SITE = re.compile(r"^(?P<path>.+?):(?P<start>\d+)-(?P<end>\d+): (?P<kind>\S+) (?P<q>\S+) "
                  r"\((?P<meta>[^)]*)\)")


class Mcp:
    """The stdio MCP server, spoken to with the official client in one event loop."""

    def __init__(self, binary, cases):
        self.binary = binary
        # corpora/'s trees are links (to a shared checkout, to system directories), and the
        # server keeps to the real paths under its roots: each case's scope is sent as a real
        # path, under a root that is the real path of the deepest link on the way to it, and
        # the paths answered (relative to the first root, or absolute) are mapped back.
        self.anchors = {}  # real path -> corpora/-relative path
        for c in cases:
            rel = anchor(c["_scope"])
            self.anchors[os.path.realpath(os.path.join(CORPORA, rel))] = rel
        self.roots = [os.path.realpath(CORPORA)] + sorted(
            r for r in self.anchors if r != os.path.realpath(CORPORA))

    def back(self, path):
        """A path from the server, corpora/-relative."""
        if not os.path.isabs(path):
            return norm(path)
        best = max((r for r in self.anchors if path == r or path.startswith(r + os.sep)),
                   key=len, default=None)
        if best is None:
            return norm(os.path.relpath(path, CORPORA))
        return norm(os.path.join(self.anchors[best], os.path.relpath(path, best)))

    async def __aenter__(self):
        from contextlib import AsyncExitStack
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client
        self.stack = AsyncExitStack()
        params = StdioServerParameters(
            command=self.binary,
            args=["serve", "--no-index", "--max-output-bytes", "4000000", *self.roots],
            cwd=CORPORA)
        streams = await self.stack.enter_async_context(
            stdio_client(params, errlog=open(os.devnull, "w")))
        read, write = streams[0], streams[1]
        self.session = await self.stack.enter_async_context(ClientSession(read, write))
        await self.session.initialize()
        # Listed at the start, as a client does for its model (the Python client would
        # otherwise list the tools inside the first call, and time it as that call's).
        await self.session.list_tools()
        return self

    async def __aexit__(self, *a):
        await self.stack.aclose()

    async def ask(self, case):
        args = {"name": case["query"], "code": False}
        if case["_scope"] != ".":
            args["search_path"] = os.path.realpath(os.path.join(CORPORA, case["_scope"]))
        t = time.perf_counter()
        r = await self.session.call_tool("find_definition", args)
        dt = time.perf_counter() - t
        text = "".join(getattr(c, "text", "") for c in r.content)
        sites = []
        for line in text.splitlines():
            m = SITE.match(line)
            if not m:
                continue
            sites.append({"path": self.back(m.group("path")), "line": int(m.group("start")),
                          "end_line": int(m.group("end")), "kind": m.group("kind"),
                          "qualified": m.group("q"),
                          "declaration": "declaration" in m.group("meta").split(", ")})
        err = " ".join(text.split())[:200] if getattr(r, "is_error", False) or text.startswith("Error:") else None
        return sites, dt, err


# ---- scoring ---------------------------------------------------------------------------

def score_case(case, sites):
    """Per expected site: found at ±0, at ±1, end line exact; the declarations shown; the
    extra sites."""
    used = set()
    rows = []
    for e in case["expect"]:
        p = norm(e["path"])
        hit0 = next((i for i, s in enumerate(sites)
                     if s["path"] == p and s["line"] == e["line"]), None)
        hit1 = hit0 if hit0 is not None else next(
            (i for i, s in enumerate(sites) if s["path"] == p and abs(s["line"] - e["line"]) <= 1
             and i not in used), None)
        if hit1 is not None:
            used.add(hit1)
        end_ok = hit1 is not None and sites[hit1]["end_line"] == e["end_line"]
        rows.append({"site": e, "found0": hit0 is not None, "found1": hit1 is not None,
                     "end_ok": end_ok,
                     "got_end": sites[hit1]["end_line"] if hit1 is not None else None})
    # A site found with the same end line but a start more than one line off (an attribute
    # or decorator block the lookup left out, or took in): neither found nor extra.
    for r in rows:
        if r["found1"]:
            continue
        e = r["site"]
        p = norm(e["path"])
        hit = next((i for i, s in enumerate(sites) if i not in used and s["path"] == p
                    and s["end_line"] == e["end_line"] and abs(s["line"] - e["line"]) <= 8), None)
        if hit is not None:
            used.add(hit)
            r["other_start"] = sites[hit]["line"]
    decl = []
    for d in case.get("not_expected_default", []):
        p = norm(d["path"])
        for i, s in enumerate(sites):
            if i not in used and s["path"] == p and abs(s["line"] - d["line"]) <= 2:
                decl.append(s)
                used.add(i)
    for d in case.get("also_ok", []):
        p = norm(d["path"])
        for i, s in enumerate(sites):
            if i not in used and s["path"] == p and abs(s["line"] - d["line"]) <= 2:
                used.add(i)
    extra = [s for i, s in enumerate(sites) if i not in used]
    return rows, decl, extra


class Tally:
    def __init__(self):
        self.sites = self.f0 = self.f1 = self.end = 0
        self.cases = self.cases_full = 0
        self.decl = self.extra = 0
        self.lat = []

    def add(self, rows, decl, extra, dt):
        self.cases += 1
        self.sites += len(rows)
        self.f0 += sum(r["found0"] for r in rows)
        self.f1 += sum(r["found1"] for r in rows)
        self.end += sum(r["end_ok"] for r in rows)
        self.cases_full += all(r["found0"] for r in rows)
        self.decl += len(decl)
        self.extra += len(extra)
        self.lat.append(dt)

    def row(self, name):
        pct = lambda a, b: f"{100.0 * a / b:5.1f}%" if b else "   - "
        med = statistics.median(self.lat) * 1000 if self.lat else 0
        worst = max(self.lat) * 1000 if self.lat else 0
        return (f"{name:<26} {self.cases:>5} {self.sites:>5} {self.f0:>5} {pct(self.f0, self.sites)}"
                f" {pct(self.f1, self.sites)} {pct(self.end, self.f1)} {self.cases_full:>5}"
                f" {self.decl:>5} {self.extra:>5} {med:>8.0f} {worst:>8.0f}")


HEADER = (f"{'':<26} {'cases':>5} {'sites':>5} {'found':>5} {'±0':>6} {'±1':>6} {'end=':>6}"
          f" {'full':>5} {'decl':>5} {'extra':>5} {'med ms':>8} {'max ms':>8}")


def fmt_site(s):
    q = s.get("qualified") or ""
    k = s.get("kind") or ""
    d = " (declaration)" if s.get("declaration") else ""
    return f"{s['path']}:{s['line']}-{s['end_line']} {k} {q}{d}"


def report(title, results, verbose):
    print(f"\n== {title} ==")
    by_lang = defaultdict(Tally)
    by_class = defaultdict(Tally)
    total = Tally()
    misses = defaultdict(list)
    for r in results:
        c = r["case"]
        for t in (by_lang[c["lang"]], by_class[c["class"]], total):
            t.add(r["rows"], r["decl"], r["extra"], r["dt"])
        missed = [x for x in r["rows"] if not x["found0"]]
        if missed:
            misses[c["class"]].append((c, missed, r))
    print(HEADER)
    for k in sorted(by_lang):
        print(by_lang[k].row(k))
    print(total.row("TOTAL"))
    print("\nby class:")
    print(HEADER)
    for k in sorted(by_class):
        print(by_class[k].row(k))

    print("\nmissed sites (start line ±0), by class:")
    for k in sorted(misses):
        print(f"  [{k}]")
        for c, missed, r in misses[k]:
            for x in missed:
                e = x["site"]
                how = ("found at ±1" if x["found1"] else
                       f"found from line {x['other_start']}" if x.get("other_start") else "not found")
                print(f"    {c['lang']:<10} '{c['query']}' → {e['path']}:{e['line']}-{e['end_line']}"
                      f" ({e.get('kind', '')}; {how})")
            if r.get("err"):
                print(f"      error: {r['err']}")
    wrong_end = [(r["case"], x) for r in results for x in r["rows"] if x["found1"] and not x["end_ok"]]
    if wrong_end:
        print("\nfound with another end line:")
        for c, x in wrong_end:
            e = x["site"]
            print(f"    {c['lang']:<10} '{c['query']}' → {e['path']}:{e['line']} end {e['end_line']},"
                  f" returned {x['got_end']}")
    other = [(r["case"], x) for r in results for x in r["rows"] if x.get("other_start")]
    if other:
        print("\nfound with another start line (same end; not counted as found):")
        for c, x in other:
            e = x["site"]
            print(f"    {c['lang']:<10} '{c['query']}' → {e['path']}:{e['line']}-{e['end_line']},"
                  f" returned from {x['other_start']}")
    decls = [(r["case"], s) for r in results for s in r["decl"]]
    if decls:
        print("\ndeclarations shown by default (must be none):")
        for c, s in decls:
            print(f"    {c['lang']:<10} '{c['query']}' → {fmt_site(s)}")
    extras = [(r["case"], r["extra"]) for r in results if r["extra"]]
    if extras:
        print("\nextra sites returned (not in the set: judge them):")
        for c, ex in extras:
            print(f"    {c['lang']:<10} '{c['query']}' in {c['_scope']}:")
            for s in ex[:12]:
                print(f"        {fmt_site(s)}")
            if len(ex) > 12:
                print(f"        … {len(ex) - 12} more")
    if verbose:
        print("\nevery case:")
        for r in results:
            c = r["case"]
            print(f"  {c['lang']:<10} '{c['query']}' [{c['class']}, {c['form']}] in {c['_scope']}"
                  f" ({r['dt'] * 1000:.0f} ms)")
            for x in r["rows"]:
                e = x["site"]
                mark = "ok " if x["found0"] else ("±1 " if x["found1"] else "MISS")
                end = "" if x["end_ok"] or not x["found1"] else f" (end returned {x['got_end']})"
                print(f"      {mark} {e['path']}:{e['line']}-{e['end_line']}{end}")
            for s in r["decl"]:
                print(f"      DECL {fmt_site(s)}")
            for s in r["extra"]:
                print(f"      extra {fmt_site(s)}")
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mapgrep", default=None)
    ap.add_argument("--lang", action="append", default=[])
    ap.add_argument("--mcp", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--time-limit", default=None,
                    help="pass `--time-limit SECS` to `mapgrep def` (0: none; recall without the "
                         "lookup's budget, whatever else runs on the machine)")
    a = ap.parse_args()
    if a.time_limit is not None:
        TIME_LIMIT.extend(["--time-limit", a.time_limit])
    binary = a.mapgrep
    if not binary:
        local = os.path.join(REPO, "target", "release", "mapgrep")
        binary = local if os.path.exists(local) else shutil.which("mapgrep")
    if not binary:
        sys.exit("no mapgrep binary: pass --mapgrep BIN")
    binary = os.path.abspath(binary)

    sets = load_sets(set(a.lang))
    if not sets:
        sys.exit("no set found in benchmarks/defs/")
    missing = sorted({c["_scope"] for _, s in sets for c in s["cases"]
                      if not os.path.exists(os.path.join(CORPORA, c["_scope"]))})
    if missing:
        sys.exit("missing trees (run the corpora/fetch_*.sh scripts): " + ", ".join(missing))
    cases = [c for _, s in sets for c in s["cases"]]
    print(f"{len(cases)} cases, {sum(len(c['expect']) for c in cases)} sites, "
          f"{len(sets)} languages; {binary}")

    out = {}
    results = []
    for c in cases:
        sites, dt, err = run_cli(binary, c)
        rows, decl, extra = score_case(c, sites)
        results.append({"case": c, "rows": rows, "decl": decl, "extra": extra, "dt": dt,
                        "err": err})
    report("CLI: mapgrep def QUERY SCOPE --json", results, a.verbose)
    out["cli"] = results

    if a.mcp:
        async def go():
            res = []
            async with Mcp(binary, cases) as m:
                for c in cases:
                    sites, dt, err = await m.ask(c)
                    rows, decl, extra = score_case(c, sites)
                    res.append({"case": c, "rows": rows, "decl": decl, "extra": extra,
                                "dt": dt, "err": err})
            return res
        results = asyncio.run(go())
        report("MCP: find_definition {name, search_path}", results, a.verbose)
        out["mcp"] = results

    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1, default=str)


if __name__ == "__main__":
    main()
