#!/usr/bin/env python3
"""Size rules of the source tree: no file under src/ longer than 800 lines (its unit-test module
and test-only files not counted; generated tables exempt), and no MCP tool handler (a
`#[tool(...)]` function in src/mcp/) longer than 30 lines.

Usage: python3 scripts/check_sizes.py   (prints the sizes; exit status 1 when a rule is broken)
"""

import glob
import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
MAX_FILE = 800
MAX_HANDLER = 30
GENERATED = {"markdown/slug_table.rs"}
TEST_FILES = ("tests.rs", "changing_files_tests.rs")

broken = []
for path in sorted(glob.glob(os.path.join(SRC, "**", "*.rs"), recursive=True)):
    rel = os.path.relpath(path, SRC)
    if rel in GENERATED or os.path.basename(path) in TEST_FILES:
        continue
    text = open(path, encoding="utf-8").read()
    cut = text.find("#[cfg(test)]\nmod tests {")
    lines = (text if cut < 0 else text[:cut]).count("\n")
    if lines > MAX_FILE:
        broken.append(f"src/{rel}: {lines} lines (over {MAX_FILE})")

for path in sorted(glob.glob(os.path.join(SRC, "mcp", "*.rs"))):
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        if not line.strip().startswith("#[tool("):
            continue
        j = i
        while not re.match(r"\s*(pub )?(async )?fn ", lines[j]):
            j += 1
        depth, k, opened = 0, j, False
        while True:
            depth += lines[k].count("{") - lines[k].count("}")
            opened |= "{" in lines[k]
            if opened and depth == 0:
                break
            k += 1
        name = re.search(r"fn (\w+)", lines[j]).group(1)
        size = k - j + 1
        print(f"handler {name}: {size} lines")
        if size > MAX_HANDLER:
            broken.append(f"{os.path.relpath(path, os.path.dirname(SRC))}: handler {name} is {size} lines (over {MAX_HANDLER})")

for b in broken:
    print(b, file=sys.stderr)
sys.exit(1 if broken else 0)
