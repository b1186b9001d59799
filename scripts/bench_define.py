#!/usr/bin/env python3
"""Definition lookup benchmark (issue 26): `find_definition` on the Linux kernel tree against
the regex an agent would write for ripgrep and against universal-ctags, in one run.

For each name (unique functions, functions defined per architecture, macros, struct types):
- mapgrep: `mapgrep bench-def --index-dir DIR` looks it up in a fresh in-process server with
  its trigram index loaded and nothing parsed (the cold lookup), then again --runs times
  (warm: structures cached by file identity); definitions, declarations, candidate files;
- rg: `rg -n '^\\s*(static\\s+)?(inline\\s+)?\\w[\\w\\s\\*]*\\bNAME\\s*\\('` over the tree,
  its time and the lines it prints;
- ctags: `ctags -R` on the tree once (time and peak memory; the tags file is kept in the cache
  directory and reused), then `readtags -t TAGS NAME` per name: its time, the tags found and
  their kinds.
Prints a markdown table, then the medians and maxima against the targets (median <= 20 ms,
each <= 200 ms warm) and the cold figures.

The tree is read only. The index and the tags file go to --cache (default
target/bench-define/). Page caches are warm after the first pass: "cold" means a fresh
process with nothing parsed, not a cold disk.

Usage: python3 scripts/bench_define.py [--tree corpora/linux] [--mapgrep target/release/mapgrep]
       [--runs 5] [--cache target/bench-define] [--no-ctags] [--no-rg] [--names a,b,c]
Needs: a release build (`cargo build --release`), the Linux tree (corpora/fetch_linux.sh),
rg and universal-ctags (Debian `universal-ctags`, with `readtags`) on PATH for the peers.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Unique functions, functions defined per architecture, macros, struct types.
NAMES = [
    "kmalloc_array", "copy_from_user", "vfs_read", "vfs_write", "schedule", "mutex_lock",
    "kfree", "printk", "do_fork", "wake_up_process", "setup_arch", "arch_setup",
    "arch_cpu_idle", "flush_tlb_all", "ARRAY_SIZE", "container_of", "BUG_ON", "list_for_each_entry",
    "task_struct", "inode", "file_operations", "sk_buff", "pm_runtime_resume",
]

AGENT_REGEX = r"^\s*(static\s+)?(inline\s+)?\w[\w\s\*]*\b{}\s*\("


def run_mapgrep(exe, tree, index_dir, names, runs):
    """One JSON object per name from `mapgrep bench-def`."""
    cmd = [exe, "bench-def", "--runs", str(runs), "--index-dir", index_dir, tree] + names
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out.stderr}")
    rows = {}
    for line in out.stdout.splitlines():
        row = json.loads(line)
        rows[row["name"]] = row
    return rows


def run_rg(tree, name):
    """(seconds, lines printed) of the regex an agent would write."""
    t = time.perf_counter()
    out = subprocess.run(
        ["rg", "-n", "--no-heading", "-e", AGENT_REGEX.format(name), tree],
        capture_output=True,
    )
    secs = time.perf_counter() - t
    return secs, len([l for l in out.stdout.split(b"\n") if l])


def ctags_file(tree, cache):
    """The tags file of the tree (built once), and (seconds, peak MiB) of the build, or None
    for a reused file."""
    tags = os.path.join(cache, "tags")
    if os.path.exists(tags):
        return tags, None
    os.makedirs(cache, exist_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    subprocess.run(["ctags", "-R", "-f", tags + ".tmp", "."], cwd=tree, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    secs = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    os.replace(tags + ".tmp", tags)
    with open(os.path.join(cache, "tags.build.json"), "w") as f:
        json.dump({"seconds": secs, "peak_mib": max(peak, before) / 1024}, f)
    return tags, (secs, max(peak, before) / 1024)


def run_readtags(tags, name):
    """(seconds, tags found, their kinds) of a lookup in the tags file."""
    t = time.perf_counter()
    out = subprocess.run(["readtags", "-t", tags, "-e", name], capture_output=True, text=True)
    secs = time.perf_counter() - t
    kinds = {}
    lines = [l for l in out.stdout.splitlines() if l]
    for l in lines:
        # NAME<TAB>FILE<TAB>PATTERN;"<TAB>kind:K<TAB>... (the pattern may hold tabs).
        fields = l.split(';"\t', 1)[-1].split("\t")
        kind = next((f[5:] for f in fields if f.startswith("kind:")), fields[0] or "?")
        kinds[kind] = kinds.get(kind, 0) + 1
    return secs, len(lines), kinds


def ms(secs):
    return f"{secs * 1000:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", default=os.path.join(ROOT, "corpora", "linux"))
    ap.add_argument("--mapgrep", default=os.path.join(ROOT, "target", "release", "mapgrep"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cache", default=os.path.join(ROOT, "target", "bench-define"))
    ap.add_argument("--names", help="comma-separated names (default: the built-in set of 23)")
    ap.add_argument("--no-ctags", action="store_true")
    ap.add_argument("--no-rg", action="store_true")
    args = ap.parse_args()
    tree = os.path.abspath(args.tree)
    if not os.path.isdir(tree):
        sys.exit(f"no tree at {tree} (corpora/fetch_linux.sh fetches the Linux tree)")
    names = args.names.split(",") if args.names else NAMES
    use_rg = not args.no_rg and shutil.which("rg")
    use_ctags = not args.no_ctags and shutil.which("ctags") and shutil.which("readtags")
    if not use_rg:
        print("rg: skipped (not on PATH or --no-rg)", file=sys.stderr)
    if not use_ctags:
        print("ctags: skipped (ctags/readtags not on PATH or --no-ctags)", file=sys.stderr)

    index_dir = os.path.join(args.cache, "index")
    os.makedirs(index_dir, exist_ok=True)
    print(f"mapgrep: bench-def on {tree} (the first run builds the index in {index_dir})",
          file=sys.stderr)
    rows = run_mapgrep(args.mapgrep, tree, index_dir, names, args.runs)

    tags, built = (None, None)
    if use_ctags:
        print("ctags: tagging the tree (once; cached)", file=sys.stderr)
        tags, built = ctags_file(tree, os.path.join(args.cache, "ctags"))
        if built is None:
            with open(os.path.join(args.cache, "ctags", "tags.build.json")) as f:
                b = json.load(f)
            built = (b["seconds"], b["peak_mib"])

    print("| name | cold ms | warm median ms | warm max ms | definitions | declarations "
          "| files with the word | parsed | rg ms | rg lines | readtags ms | ctags tags (kinds) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name in names:
        r = rows[name]
        rg = run_rg(tree, name) if use_rg else None
        ct = run_readtags(tags, name) if use_ctags else None
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(ct[2].items())) if ct else ""
        print(f"| {name} | {r['cold_ms']:.1f} | {r['warm_median_ms']:.1f} | {r['warm_max_ms']:.1f} "
              f"| {r['definitions']} | {r['declarations']} | {r['files_with_name']} | {r['files_parsed']} "
              f"| {ms(rg[0]) if rg else '-'} | {rg[1] if rg else '-'} "
              f"| {ms(ct[0]) if ct else '-'} | {f'{ct[1]} ({kinds})' if ct else '-'} |")

    warm = [rows[n]["warm_median_ms"] for n in names]
    worst = [rows[n]["warm_max_ms"] for n in names]
    cold = [rows[n]["cold_ms"] for n in names]
    found = sum(1 for n in names if rows[n]["definitions"] + rows[n]["declarations"] > 0)
    print()
    print(f"mapgrep warm: median {statistics.median(warm):.1f} ms (target <= 20), "
          f"max {max(worst):.1f} ms (target <= 200)")
    print(f"mapgrep cold (fresh server, index loaded, nothing parsed): median "
          f"{statistics.median(cold):.1f} ms, max {max(cold):.1f} ms")
    print(f"mapgrep: index loaded in {statistics.median(r['index_load_ms'] for r in rows.values()):.0f} ms "
          f"(median per fresh server); indexed: {all(r['indexed'] for r in rows.values())}; "
          f"names with a site: {found} of {len(names)}")
    last = rows[names[-1]]
    print(f"mapgrep: parse cache after the last name's lookups: {last['parse_cache_bytes'] / 2**20:.1f} MiB "
          f"for {last['bytes_parsed'] / 2**20:.1f} MiB of candidate files ({last['files_parsed']} files); "
          f"the cache's budget is --outline-cache-bytes (256 MiB)")
    total = sum(r["bytes_parsed"] for r in rows.values())
    print(f"mapgrep: candidate files parsed over all names: {total / 2**20:.1f} MiB")
    if built:
        print(f"ctags -R: {built[0]:.1f} s, peak {built[1]:.0f} MiB (built once; the tags file is "
              f"stale after the first edit)")
    if found == 0:
        print("note: no site found: this build parses no C (the lookups above time the search "
              "for candidates only)")


if __name__ == "__main__":
    main()
