#!/usr/bin/env python3
"""Repo map quality (issue 37): does a 9,000-byte map of a subtree name the definitions that
the subtree's files use most? The truth is independent of mapgrep: universal-ctags lists the
subtree's definitions (functions, macros, structs, unions, enums, enumerators, typedefs,
global variables; prototypes and members left out), and a tokenizer counts, for each defined
name, the files of the subtree that hold it as a whole word outside comments and strings,
other than the files that define it. The 20 names used from the most files are the target;
a map names one when one of its definition lines under a file of the subtree holds it.

Subtrees: --paths, or --sample N directories of 50 to 2,000 C files drawn at random (--seed).

Usage: python3 scripts/map_quality.py --tree corpora/linux --mapgrep target/release/mapgrep
       --cache DIR (an XDG cache directory whose mapgrep/index holds the tree's records)
       [--paths fs/ext4,kernel/sched | --sample 8 --seed 1] [--max-bytes 9000]
"""

import argparse
import collections
import os
import random
import re
import subprocess

KINDS = {"function", "macro", "struct", "union", "enum", "enumerator", "typedef", "variable"}
TOKEN = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
NOISE = re.compile(rb'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def c_files(tree, path):
    out = subprocess.run(["rg", "--files", "-t", "c", path], cwd=tree, capture_output=True,
                         text=True, stdin=subprocess.DEVNULL).stdout.split()
    return sorted(out)


def truth(tree, path, top=20):
    files = c_files(tree, path)
    tags = subprocess.run(["ctags", "-x", "--languages=C", "--langmap=C:+.h", "--_xformat=%N\t%F\t%K", "-L", "-"],
                          cwd=tree, input="\n".join(files), capture_output=True,
                          text=True).stdout
    definers = collections.defaultdict(set)
    for line in tags.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[2] in KINDS:
            definers[parts[0]].add(parts[1])
    users = collections.Counter()
    for f in files:
        with open(os.path.join(tree, f), "rb") as h:
            code = NOISE.sub(b" ", h.read())
        for name in {t.decode() for t in TOKEN.findall(code)}:
            if name in definers and f not in definers[name]:
                users[name] += 1
    return files, users.most_common(top)


def map_text(args, path):
    env = dict(os.environ, XDG_CACHE_HOME=os.path.abspath(args.cache))
    return subprocess.run([args.mapgrep, "map", path, "--max-bytes", str(args.max_bytes),
                           "--max-lines", "200"], cwd=args.tree, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL).stdout


def named(text, name):
    return any(l.startswith("  ") and re.search(r"\b%s\b" % re.escape(name), l)
               for l in text.splitlines())


def sample(tree, k, seed):
    counts = collections.Counter()
    for f in c_files(tree, "."):
        d = os.path.dirname(f)
        while d:
            counts[d] += 1
            d = os.path.dirname(d)
    pool = sorted(d for d, n in counts.items() if 50 <= n <= 2000)
    return random.Random(seed).sample(pool, k)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", required=True)
    ap.add_argument("--mapgrep", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--paths", default="")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-bytes", type=int, default=9000)
    args = ap.parse_args()
    args.mapgrep = os.path.abspath(args.mapgrep)
    paths = [p for p in args.paths.split(",") if p]
    if args.sample:
        paths += sample(args.tree, args.sample, args.seed)
    met = 0
    for path in paths:
        files, top = truth(args.tree, path)
        text = map_text(args, path)
        hits = [n for n, _ in top if named(text, n)]
        ok = len(hits) * 2 >= len(top)
        met += ok
        print(f"{path} ({len(files)} C files, map {len(text.encode())} bytes): "
              f"{len(hits)} of the {len(top)} most used named"
              f"{'' if ok else '  (under half)'}", flush=True)
        print("    missing: " + ", ".join(f"{n} ({c})" for n, c in top if n not in hits),
              flush=True)
    print(f"{met} of {len(paths)} subtrees: at least half named")


if __name__ == "__main__":
    main()
