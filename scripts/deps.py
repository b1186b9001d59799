#!/usr/bin/env python3
"""Which top-level modules of src/ each module uses (`crate::NAME` or `super::` leaving its
directory), and any import circle between them; then, inside each module directory, which
sibling files each file uses, and any circle between files. A directory's `mod.rs` is its
facade (it declares and re-exports the files) and is not a sibling. Test code (`#[cfg(test)]`
modules and the files only tests include) is left out: it may use anything.

Usage: python3 scripts/deps.py   (exit status 1 when a circle is found)
"""

import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")


def module_of(path):
    rel = os.path.relpath(path, SRC)
    head = rel.split(os.sep)[0]
    return head[:-3] if head.endswith(".rs") else head


def strip_tests(text):
    i = text.find("#[cfg(test)]\nmod tests {")
    return text if i < 0 else text[:i]


edges = {}
for root, _, files in os.walk(SRC):
    for f in files:
        if not f.endswith(".rs") or f in ("tests.rs", "changing_files_tests.rs", "main.rs", "lib.rs"):
            continue
        path = os.path.join(root, f)
        m = module_of(path)
        text = strip_tests(open(path, encoding="utf-8").read())
        # Doc comments link anywhere; code is what depends.
        text = "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("//"))
        for used in re.findall(r"crate::([a-z_]+)", text):
            if used != m:
                edges.setdefault(m, set()).add(used)

for m in sorted(edges):
    print(f"{m:10} -> {', '.join(sorted(edges[m]))}")


def cycles():
    found = []
    def visit(node, stack):
        for n in sorted(edges.get(node, ())):
            if n in stack:
                found.append(stack[stack.index(n):] + [n])
            elif len(stack) < 12:
                visit(n, stack + [n])
    for start in sorted(edges):
        visit(start, [start])
    return {" -> ".join(c) for c in found}

cs = cycles()
for c in sorted(cs):
    print("circle:", c)

# File level: siblings inside each module directory.
top_edges = edges
for d in sorted(os.listdir(SRC)):
    dpath = os.path.join(SRC, d)
    if not os.path.isdir(dpath):
        continue
    files = sorted(f[:-3] for f in os.listdir(dpath) if f.endswith(".rs") and f not in ("mod.rs", "tests.rs"))
    edges = {}
    for f in files:
        text = strip_tests(open(os.path.join(dpath, f + ".rs"), encoding="utf-8").read())
        text = "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("//"))
        used = set(re.findall(r"super::([a-z_]+)", text))
        used |= set(re.findall(r"crate::" + d + r"::([a-z_]+)", text))
        for group in re.findall(r"super::\{([^}]*)\}", text):
            used |= set(re.findall(r"\b([a-z_]+)::", group))
            used |= {x.strip() for x in group.split(",")}
        edges[f] = {u for u in used if u in files and u != f}
    for f in files:
        if edges[f]:
            print(f"{d + '/' + f:22} -> {', '.join(sorted(edges[f]))}")
    file_cs = cycles()
    for c in sorted(file_cs):
        print(f"circle in {d}/:", c)
    cs |= file_cs
sys.exit(1 if cs else 0)
