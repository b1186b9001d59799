#!/usr/bin/env python3
"""Every relative link in the repository's Markdown files, and every the contract files named in
a source comment (docs/ followed by a file name), resolves to a file inside the repository.

Usage: python3 scripts/check_links.py   (exit status 1 and the broken links when any)
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
broken = []
for f in files:
    path = os.path.join(ROOT, f)
    if not os.path.isfile(path):
        continue
    if f.endswith(".md"):
        text = open(path, encoding="utf-8", errors="replace").read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            target = target.split("#")[0]
            if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(path), target))):
                broken.append(f"{f}: {target}")
    if f.endswith((".rs", ".py", ".sh", ".md")):
        text = open(path, encoding="utf-8", errors="replace").read()
        for target in re.findall(r"\bdocs/[A-Za-z_]+\.md", text):
            if not os.path.exists(os.path.join(ROOT, target)):
                broken.append(f"{f}: {target}")
        if "shared/spec" in text and f != "scripts/check_links.py":
            broken.append(f"{f}: points outside the repository (shared/spec)")
for b in broken:
    print(b)
sys.exit(1 if broken else 0)
