#!/usr/bin/env python3
"""The engine's text names no front-end: outside src/mcp/ and src/cli/, no line of code (comments
and test modules aside) names an MCP tool or a command-line flag of ours. The engine words its
advice through `crate::words` (each front-end gives its own words).

Usage: python3 scripts/check_engine_words.py   (exit status 1, listing the lines, on a hit)
"""

import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
FRONT_ENDS = ("mcp", "cli")
TOOLS = r"doc_toc|doc_read|doc_find|doc_replace|read_files|grep_content|read_text_file|file_read"
# Our flags as a front-end spells them in text ("--to-next", the server's "--allow-write").
FLAGS = r"--to-next|--start\b|--end\b|--no-children|--allow-read-only|--allow-write|--section-pattern"
PATTERN = re.compile(r"\b(" + TOOLS + r")\b|(" + FLAGS + r")")

hits = []
for root, dirs, files in os.walk(SRC):
    rel = os.path.relpath(root, SRC)
    if rel.split(os.sep)[0] in FRONT_ENDS or rel == "words.rs":
        continue
    for f in files:
        if not f.endswith(".rs") or f.endswith("tests.rs") or f in ("main.rs", "words.rs"):
            continue
        path = os.path.join(root, f)
        text = open(path, encoding="utf-8").read()
        cut = text.find("#[cfg(test)]\nmod tests {")
        if cut >= 0:
            text = text[:cut]
        for n, line in enumerate(text.split("\n"), 1):
            code = line.split("//")[0] if not line.lstrip().startswith("//") else ""
            if PATTERN.search(code):
                hits.append(f"{os.path.relpath(path, os.path.dirname(SRC))}:{n}: {line.strip()}")

for h in hits:
    print(h)
if hits:
    print("the engine names a front-end's tool or flag; word it through crate::words", file=sys.stderr)
sys.exit(1 if hits else 0)
