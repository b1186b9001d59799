#!/usr/bin/env python3
"""Grep benchmark: `mapgrep grep` against ripgrep on the Linux kernel tree, same run.

For each of ripgrep's standard Linux queries, checks that both tools report the same set of
(path, line) matches, then times both with hyperfine (warm page cache) and prints a markdown
table of medians and the ratio mapgrep/rg. Also times the engine inside one long-lived process
(what a server does on repeated calls) via `mapgrep bench-grep`.

With --indexed, measures the trigram index instead (issue 15), in one run: the index build
(`mapgrep index`) against codesearch's `cindex` (time, size), then for each query the
median of rg, csearch, the warm unindexed server and the warm server with a ready index
(`bench-grep --index-dir`), after checking that the indexed answer is rg's (path, line) set.

Usage: python3 scripts/bench_grep.py [--tree corpora/linux] [--bigfile corpora/generated/linux-all-c.txt]
       [--runs 10] [--rg rg] [--mapgrep target/release/mapgrep] [--old OLDER_BINARY] [--only NAME]
       [--indexed]
With --old, an older build is timed in the same hyperfine runs (before and after a change).
Needs: hyperfine and rg on PATH (the script says so and skips rg when it is missing), the
corpora from corpora/fetch_linux.sh, and a release build (`cargo build --release`).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

QUERIES = [
    ("literal", ["PM_RESUME"]),
    ("literal_n", ["-n", "PM_RESUME"]),
    ("literal_casei", ["-n", "-i", "PM_RESUME"]),
    ("word", ["-n", "-w", "PM_RESUME"]),
    ("re_suffix", ["-n", "[A-Z]+_RESUME"]),
    ("unicode_greek", ["-n", r"\p{Greek}"]),
    ("no_literal", ["-n", r"\w{5}\s+\w{5}\s+\w{5}"]),
    ("alternates", ["-n", "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT"]),
]


def matches(cmd, cwd, single=False, env=None):
    """The set of (path, line) a tool prints with -n (just line numbers for one file, where
    neither tool prints the path)."""
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, env=env)
    if out.returncode not in (0, 1):
        sys.exit(f"failed: {' '.join(cmd)}\n{out.stderr.decode(errors='replace')}")
    found = set()
    for raw in out.stdout.split(b"\n"):
        if not raw:
            continue
        parts = raw.split(b":", 2)
        if single and parts[0].isdigit():
            found.add((b"", int(parts[0])))
        elif len(parts) >= 2 and parts[1].isdigit():
            found.add((parts[0], int(parts[1])))
    return found


def hyperfine(cmds, runs, cwd):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        args = ["hyperfine", "-N", "--warmup", "2", "--runs", str(runs), "--export-json", f.name]
        args += ["-i"]  # exit code 1 (no match) is not a failure
        args += [" ".join(shlex_quote(a) for a in c) for c in cmds]
        subprocess.run(args, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        data = json.load(open(f.name))
    return [r["median"] for r in data["results"]]


# The queries of issue 15 (indexed search).
INDEXED_QUERIES = [
    ("literal", ["PM_RESUME"]),
    ("literal_casei", ["-i", "pm_resume"]),
    ("alternates4", ["PM_SUSPEND|PM_HIBERNATION_PREPARE|wakeup_source_register|device_wakeup_enable"]),
    ("word", [r"\bwakeup_source\b"]),
    ("re_suffix", ["[A-Z]+_RESUME"]),
    ("unicode_greek", [r"\p{Greek}"]),
    ("no_literal", [r"\w{5}\s+\w{5}\s+\w{5}"]),
]


def timed(cmd, cwd, env=None):
    """Wall seconds and peak RSS (KiB) of one run, by /usr/bin/time."""
    with tempfile.NamedTemporaryFile(mode="r", suffix=".time") as t:
        out = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", t.name] + cmd, cwd=cwd,
                             capture_output=True, text=True, env=env)
        if out.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{out.stderr}")
        secs, rss = t.read().split()[-2:]
    return float(secs), int(rss), out.stdout


def warm(mg, args, cwd, runs, extra=()):
    """Median seconds of a search repeated in one process, and that process's peak RSS."""
    secs, rss, out = timed([mg, "bench-grep", "--runs", str(runs), *extra] + args + ["."], cwd)
    return float(out.strip().split()[-1]), rss


def indexed(a, mg, rg, tree):
    cindex, csearch = shutil.which("cindex"), shutil.which("csearch")
    work = tempfile.mkdtemp(prefix="mapgrep-bench-")
    idx_dir = os.path.join(work, "mapgrep", "index")
    env = dict(os.environ, CSEARCHINDEX=os.path.join(work, "csearchindex"))
    print("| build | time | peak RSS | size |")
    print("|---|---|---|---|")
    secs, rss, _ = timed([mg, "index", "--index-dir", idx_dir, "."], tree)
    size = sum(os.path.getsize(os.path.join(idx_dir, f)) for f in os.listdir(idx_dir))
    print(f"| mapgrep index | {secs:.1f} s | {rss // 1024} MiB | {size / 1e6:.1f} MB |", flush=True)
    if cindex:
        secs, rss, _ = timed([cindex, tree], tree, env)
        size = os.path.getsize(env["CSEARCHINDEX"])
        print(f"| cindex | {secs:.1f} s | {rss // 1024} MiB | {size / 1e6:.1f} MB |", flush=True)
    print()
    print("| query | args | matches | indexed == rg | rg | csearch | server, no index | server, index | vs rg | vs csearch | vs no index | index RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, args in INDEXED_QUERIES:
        if a.only and a.only != name:
            continue
        numbered = ["-n"] + args
        # `mapgrep grep` finds the index in $XDG_CACHE_HOME/mapgrep/index (validated by metadata).
        ours = matches([mg, "grep"] + numbered + ["."], tree, env=dict(os.environ, XDG_CACHE_HOME=work))
        same = "-"
        if rg:
            theirs = matches([rg] + numbered + ["."], tree)
            same = "yes" if ours == theirs else f"NO ({len(theirs)} in rg)"
        cmds, labels = [], []
        if rg:
            cmds.append([rg] + args + ["."])
            labels.append("rg")
        if csearch:
            cs_args = ["-i" if x == "-i" else x for x in args]
            cmds.append(["env", f"CSEARCHINDEX={env['CSEARCHINDEX']}", csearch, "-n"] + cs_args)
            labels.append("csearch")
        med = dict(zip(labels, hyperfine(cmds, a.runs, tree))) if cmds else {}
        plain, _ = warm(mg, args, tree, a.runs)
        fast, rss = warm(mg, args, tree, a.runs, ["--index-dir", idx_dir])
        ms = lambda v: f"{v * 1000:.1f} ms" if v is not None else "-"
        ratio = lambda v: f"{v / fast:.0f}x" if v else "-"
        row = [name, "`" + " ".join(args).replace("|", "\\|") + "`", str(len(ours)), same,
               ms(med.get("rg")), ms(med.get("csearch")), ms(plain), ms(fast),
               ratio(med.get("rg")), ratio(med.get("csearch")), f"{fast / plain:.3f}", f"{rss // 1024} MiB"]
        print("| " + " | ".join(row) + " |", flush=True)
    shutil.rmtree(work, ignore_errors=True)


def shlex_quote(s):
    import shlex

    return shlex.quote(s)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default="corpora/linux")
    ap.add_argument("--bigfile", default="corpora/generated/linux-all-c.txt")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--rg", default="rg")
    ap.add_argument("--mapgrep", default="target/release/mapgrep")
    ap.add_argument("--old", help="an older mapgrep binary, timed in the same hyperfine runs")
    ap.add_argument("--only")
    ap.add_argument("--indexed", action="store_true")
    a = ap.parse_args()
    mg = os.path.join(root, a.mapgrep)
    # `mapgrep grep` uses a persisted index from the user's cache directory when one exists:
    # point it at an empty one, so the plain rows time the scan.
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="mapgrep-bench-cache-")
    rg = shutil.which(a.rg)
    if not shutil.which("hyperfine"):
        sys.exit("hyperfine is not on PATH (apt-get install hyperfine)")
    if not rg:
        print(f"note: {a.rg} is not on PATH; timing mapgrep alone", file=sys.stderr)
    else:
        ver = subprocess.run([rg, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
        print(f"ripgrep: {ver}")
    print(f"cores: {os.cpu_count()}")
    print()
    if a.indexed:
        indexed(a, mg, rg, os.path.join(root, a.tree))
        return
    old = os.path.abspath(a.old) if a.old else None
    before = " | older mapgrep | new/older" if old else ""
    print(f"| query | args | corpus | matches | same as rg | mapgrep median | rg median | ratio | in-process (warm server) | ratio{before} |")
    print("|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if old else ""))
    # The tree is searched from inside it (as ripgrep's benchmark does), so that the
    # repository's own .gitignore, which ignores corpora/, does not apply.
    tree = os.path.join(root, a.tree)
    targets = [(".", "tree", tree)]
    if os.path.exists(os.path.join(root, a.bigfile)):
        targets.append((os.path.join(root, a.bigfile), "1 file", root))
    else:
        print(f"note: {a.bigfile} missing (corpora/fetch_linux.sh --concat); skipping", file=sys.stderr)
    for target, kind, cwd in targets:
        for name, args in QUERIES:
            if a.only and a.only != name:
                continue
            if kind == "1 file" and name not in ("literal_n", "literal", "alternates"):
                continue
            numbered = args if "-n" in args else ["-n"] + args
            single = kind == "1 file"
            ours = matches([mg, "grep"] + numbered + [target], cwd, single)
            same = "-"
            if rg:
                theirs = matches([rg] + numbered + [target], cwd, single)
                same = "yes" if ours == theirs else f"NO ({len(theirs)} in rg)"
            cmds = [[mg, "grep"] + args + [target]]
            if rg:
                cmds.append([rg] + args + [target])
            if old:
                cmds.append([old, "grep"] + args + [target])
            med = hyperfine(cmds, a.runs, cwd)
            inproc = subprocess.run(
                [mg, "bench-grep", "--runs", str(a.runs)] + args + [target],
                cwd=cwd, capture_output=True, text=True,
            )
            warm = float(inproc.stdout.strip().split()[-1]) if inproc.returncode == 0 else None
            row = [name, "`" + " ".join(args).replace("|", "\\|") + "`", kind, str(len(ours)), same, f"{med[0]*1000:.1f} ms"]
            if rg:
                row += [f"{med[1]*1000:.1f} ms", f"{med[0]/med[1]:.2f}"]
            else:
                row += ["-", "-"]
            if warm is not None:
                row += [f"{warm*1000:.1f} ms", f"{warm/med[1]:.2f}" if rg else "-"]
            else:
                row += ["-", "-"]
            if old:
                row += [f"{med[-1]*1000:.1f} ms", f"{med[0]/med[-1]:.2f}"]
            print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
