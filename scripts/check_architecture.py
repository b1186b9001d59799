#!/usr/bin/env python3
"""ARCHITECTURE.md against the tree: the page is the single statement of the modules and their
layers, and this check holds the code to it.

1. The module list (the section "## Modules") names every module of src/: each top-level
   module (`src/NAME.rs`, or a directory `src/NAME/`) on a bullet line `- `src/NAME/` — ...`,
   and each file of a module directory on a nested bullet `  - `src/NAME/FILE.rs` — ...`
   (its `mod.rs` aside: the directory's line stands for it; test-only files aside too: those a parent declares `#[cfg(test)] mod NAME;`, and what is
   under them). Every path the list names exists.
2. The layer rule. The table in the section "## Layers" has one row a layer, the highest
   first, and names its modules in backticks in its second column. Every top-level module is
   in one row; a module's code (test modules aside, and `lib.rs`/`main.rs`, the crate root)
   names another top-level module (`crate::NAME`, or `super::NAME` from a top-level file)
   only when that module's layer is its own or lower.

Each failure names the file and line to fix, and the line to add to ARCHITECTURE.md.

Usage: python3 scripts/check_architecture.py   (exit status 1 when the page and the tree disagree)
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from check_sizes import blank, test_files, test_ranges  # noqa: E402

ROOT = os.path.dirname(HERE)
SRC = os.path.join(ROOT, "src")
DOC = os.path.join(ROOT, "ARCHITECTURE.md")
CRATE_ROOT = {"lib", "main"}


def section(lines, title):
    """(line number, text) of the lines of the section `## title` (to the next `## `)."""
    out, inside = [], False
    for n, line in enumerate(lines, 1):
        if line.startswith("## "):
            inside = line[3:].strip() == title
            continue
        if inside:
            out.append((n, line))
    return out


def tree():
    """The module paths the list must name: `src/NAME/` or `src/NAME.rs` for a top-level
    module, `src/NAME/FILE.rs` for a file of a module directory (test-only files aside)."""
    paths = sorted(
        os.path.join(d, f) for d, _, fs in os.walk(SRC) for f in fs if f.endswith(".rs")
    )
    tests = test_files(paths)
    wanted = set()
    for p in paths:
        if p in tests or any(p.startswith(t) for t in tests if t.endswith(os.sep)):
            continue
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        parts = rel.split("/")
        if len(parts) == 2:
            wanted.add(rel)
        else:
            # A directory's `mod.rs` is the directory's own line.
            wanted.add("/".join(parts[:2]) + "/")
            if parts[-1] != "mod.rs":
                wanted.add(rel)
    return wanted, paths, tests


def top_name(rel):
    """`grep` for `src/grep/`, `src/grep/walk.rs` or `src/grep.rs`."""
    name = rel.split("/")[1]
    return name[:-3] if name.endswith(".rs") else name


def addition(rel):
    """The line of the module list that names `rel`."""
    if rel.endswith("/") or rel.count("/") == 1:
        return f"- `{rel}` — <what it holds>"
    return f"  - `{rel}` — <what it holds>"


def main():
    lines = open(DOC, encoding="utf-8").read().split("\n")
    problems = []

    # 1. The module list.
    listed = {}
    for n, line in section(lines, "Modules"):
        m = re.match(r"\s*[-*] `(src/[^`]+)`", line)
        if m:
            listed[m.group(1)] = n
    if not listed:
        problems.append('ARCHITECTURE.md: no module list (bullets "- `src/...` — ..." under "## Modules")')
    wanted, paths, tests = tree()
    for rel in sorted(wanted - set(listed)):
        if rel.endswith("/") or rel.count("/") == 1:
            where = 'among the top-level modules under "## Modules"'
        else:
            where = f"under the line of `{'/'.join(rel.split('/')[:2])}/`"
        problems.append(f"{rel} is not in ARCHITECTURE.md's module list: add the line\n    {addition(rel)}\n  {where}")
    for rel, n in sorted(listed.items()):
        if rel not in wanted and not os.path.exists(os.path.join(ROOT, rel)):
            problems.append(f"ARCHITECTURE.md:{n}: lists {rel}, which does not exist: remove the line or fix the path")

    # 2. The layer table.
    rank, layer_of_row = {}, []
    for n, line in section(lines, "Layers"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|") or len(cells) < 2 or set(cells[0]) <= set("-: "):
            continue
        mods = re.findall(r"`([a-z_]+)`", cells[1])
        if not mods:
            continue  # the header row
        layer_of_row.append(cells[0])
        for m in mods:
            if m in rank:
                problems.append(f"ARCHITECTURE.md:{n}: `{m}` is in two layers")
            rank[m] = len(layer_of_row) - 1  # 0 = the highest layer
    if not rank:
        problems.append('ARCHITECTURE.md: no layer table ("| layer | modules | ... |" under "## Layers")')
    names = lambda r: layer_of_row[rank[r]]  # noqa: E731
    modules = {top_name(r) for r in wanted} - CRATE_ROOT
    for m in sorted(modules - set(rank)):
        problems.append(
            f"`{m}` is in no layer: add `{m}` to the modules of its layer's row in the table under "
            '"## Layers" in ARCHITECTURE.md (a module may use only its own layer and those below)'
        )
    for m in sorted(set(rank) - modules):
        problems.append(f"ARCHITECTURE.md: the layer table names `{m}`, which is no module of src/: remove it")
    for p in paths:
        if p in tests or any(p.startswith(t) for t in tests if t.endswith(os.sep)):
            continue
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        me = top_name(rel)
        if me in CRATE_ROOT or me not in rank:
            continue
        text = open(p, encoding="utf-8").read()
        code = blank(text)
        for a, b in test_ranges(code):
            code = code[:a] + re.sub(r"[^\n]", " ", code[a:b]) + code[b:]
        # `super::` names a top-level module from `src/NAME.rs` and `src/NAME/mod.rs`.
        top_file = rel.count("/") == 1 or (rel.count("/") == 2 and rel.endswith("/mod.rs"))
        pattern = r"\b(?:crate|super)::([a-z_]+)" if top_file else r"\bcrate::([a-z_]+)"
        for m in re.finditer(pattern, code):
            used = m.group(1)
            if used == me or used not in rank or rank[used] >= rank[me]:
                continue
            line = code.count("\n", 0, m.start()) + 1
            problems.append(
                f"{rel}:{line}: {me} ({names(me)}) uses {used} ({names(used)}), a higher layer: a module "
                "may use only its own layer and those below (move the code down, or change the layer "
                "table in ARCHITECTURE.md if the design changed)"
            )
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print(f"ARCHITECTURE.md: {len(listed)} modules and files listed, {len(rank)} modules in {len(layer_of_row)} layers; the tree agrees")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
