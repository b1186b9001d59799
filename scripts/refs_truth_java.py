#!/usr/bin/env python3
"""References (issue 37) on Java against the lexical truth: every whole-word occurrence of a
name in code (outside comments, string and char literals and text blocks, by a small Java
lexer written here), against `mapgrep refs --json NAME` on the same tree.

For each name: the truth's lines, the answer's, the answer's lines the truth has not (the
precision check: must be none), and the truth's lines the answer left out; of those, the
ones that do not look like a definition or declaration of the name (a class, method,
constructor or field of that name, which references set aside by design) are printed, to
be read by hand.

Usage: python3 scripts/refs_truth_java.py --tree corpora/openjdk --mapgrep target/release/mapgrep
       --cache DIR (an XDG cache directory whose mapgrep/index holds the tree's index and records)
       [--names a,b,c | --sample N [--seed S]]
"""

import argparse
import collections
import json
import os
import random
import re
import subprocess

KEYWORDS = set("""abstract assert boolean break byte case catch char class const continue default
do double else enum extends final finally float for goto if implements import instanceof int
interface long native new package private protected public return short static strictfp super
switch synchronized this throw throws transient try void volatile while true false null var
record yield sealed permits""".split())
WORD = re.compile(r"[A-Za-z0-9_$]")


def code_lines(src, name):
    """The lines where `name` occurs as a whole word in code."""
    out, i, n, line = set(), 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i) or src.startswith('"""', i):
            end = "*/" if c == "/" else '"""'
            j = src.find(end, i + len(end))
            while end == '"""' and j > 0 and src[j - 1] == "\\":
                j = src.find(end, j + 1)
            j = n if j < 0 else j + len(end)
            line += src.count("\n", i, j)
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            i = j + 1
        elif WORD.match(c):
            j = i
            while j < n and WORD.match(src[j]):
                j += 1
            if src[i:j] == name:
                out.add(line)
            i = j
        else:
            i += 1
    return out


def java_files(tree, name=None):
    args = ["rg", "-l", "-t", "java"] + (["-w", "-F", name] if name else ["--files"])
    if not name:
        args = ["rg", "--files", "-t", "java"]
    return subprocess.run(args, cwd=tree, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL).stdout.split()


def sample(tree, k, seed):
    """`k` names of code with 5 to 10,000 occurrences in the tree, drawn at random."""
    counts = collections.Counter()
    for p in java_files(tree):
        with open(os.path.join(tree, p), encoding="utf-8", errors="replace") as f:
            counts.update(w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", f.read())
                          if w not in KEYWORDS)
    pool = sorted(n for n, c in counts.items() if 5 <= c <= 10000
                  and not re.fullmatch(r"u[0-9A-Fa-f]{4}", n))
    return random.Random(seed).sample(pool, k)


def check(args, name):
    truth = {}
    for p in java_files(args.tree, name):
        with open(os.path.join(args.tree, p), encoding="utf-8", errors="replace") as f:
            src = f.read()
        lines = src.split("\n")
        for ln in code_lines(src, name):
            truth[(p, ln)] = lines[ln - 1]
    env = dict(os.environ, XDG_CACHE_HOME=os.path.abspath(args.cache))
    out = subprocess.run([args.mapgrep, "refs", "--json", name], cwd=args.tree, env=env,
                         capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
    answer = {(o["path"], o["line"]) for o in map(json.loads, out.splitlines())}
    extra = answer - set(truth)
    missed = {k: v for k, v in truth.items() if k not in answer}
    n = re.escape(name)
    definition = re.compile(
        rf"(class|interface|enum|record)\s+{n}\b|\b{n}\s*\([^;]*(\)\s*(\{{|throws|;|$)|,\s*(//.*)?$)"
        rf"|\b{n}\s*(\[\s*\])?\s*(=|;|,)|\b{n}\s*\(\s*$")
    odd = {k: v for k, v in missed.items() if not definition.search(v)}
    return truth, answer, extra, missed, odd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", required=True)
    ap.add_argument("--mapgrep", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--names", default="")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    args.mapgrep = os.path.abspath(args.mapgrep)
    names = [n for n in args.names.split(",") if n]
    if args.sample:
        names += sample(args.tree, args.sample, args.seed)
    totals = collections.Counter()
    for name in names:
        truth, answer, extra, missed, odd = check(args, name)
        if not truth and not answer:
            continue
        totals.update(names=1, truth=len(truth), answer=len(answer), extra=len(extra),
                      missed=len(missed), odd=len(odd))
        print(f"{name}: truth {len(truth)} lines, answer {len(answer)}; not in the truth "
              f"{len(extra)}; left out {len(missed)}, of which not definition-like {len(odd)}",
              flush=True)
        for (p, ln), v in list(odd.items())[:6]:
            print(f"    left out {p}:{ln}: {v.strip()[:120]}", flush=True)
        for p, ln in sorted(extra)[:6]:
            print(f"    not in the truth {p}:{ln}", flush=True)
    print(f"{totals['names']} names: truth {totals['truth']} lines, answer {totals['answer']}; "
          f"not in the truth {totals['extra']}; left out {totals['missed']}, of which not "
          f"definition-like {totals['odd']} (read them: a definition split over lines is one)")


if __name__ == "__main__":
    main()
