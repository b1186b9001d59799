#!/usr/bin/env python3
"""Every operating-system call lives in the platform layer (src/platform/): fails when
`std::os::unix`, `std::os::windows`, `libc::`, `rustix::` or `/proc` appear in a Rust file of
src/ outside it, code, tests and comments alike (a comment naming `/proc` is how a path to it
starts).

Tests: unit tests in src/ follow the same rule and use `platform::test_support` (links, modes,
owners, sockets). The integration tests, benches and fuzz targets use
`mapgrep::platform::test_support` too, so that they compile on every system: `std::os::`,
`libc::` and `rustix::` fail there as well; `/proc` may appear there (Linux-only measurements
of a child's memory, and `/proc/self/environ` as an attack path, which skip or are refused
where it does not exist).

Usage: python3 scripts/check_platform.py   (exit status 1 when a call is out of place)
"""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PLATFORM = os.path.join("src", "platform") + os.sep
PATTERN = re.compile(r"std::os::unix|std::os::windows|\blibc::|\brustix::|/proc\b")
# Outside src/: the same, `/proc` aside (see the docs above).
CALLS = re.compile(r"std::os::unix|std::os::windows|\blibc::|\brustix::")
CHECKED = ["src", "tests", "benches", os.path.join("fuzz", "fuzz_targets")]

found = []
for top in CHECKED:
    for root, _, files in os.walk(os.path.join(ROOT, top)):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, ROOT)
            if rel.startswith(PLATFORM):
                continue
            pattern = PATTERN if top == "src" else CALLS
            for n, line in enumerate(open(path, encoding="utf-8"), 1):
                if pattern.search(line):
                    found.append(f"{rel}:{n}: {line.strip()}")

if found:
    print("operating-system calls outside src/platform/ (move them behind its API):")
    print("\n".join(found))
    sys.exit(1)
print("check_platform: no operating-system call outside src/platform/")
