#!/usr/bin/env python3
"""Size rules of the source tree (src/), test code aside:

- no file longer than 600 lines;
- no function longer than 80 lines (from its `fn` line to its closing brace);
- no MCP tool handler (a `#[tool(...)]` function in src/mcp/) longer than 30 lines.

Test code does not count: a file a parent declares as `#[cfg(test)] mod NAME;`, and in
other files the lines of a `#[cfg(test)] mod NAME { ... }` block. Generated tables are exempt
(GENERATED below).

A piece may stay longer when it says why where a reader sees it:

- a file: a line `//! Size: <reason>` among its first 20 lines exempts it from the file
  rule (its functions are still measured);
- a function: a line `// Size: <reason>` just above it (among its doc comments and
  attributes) exempts it from the function rule.

The reason must be words, not empty. Functions are found by a small Rust tokenizer that
skips comments (nested block comments too), strings (raw, byte, C), and character literals
(told apart from lifetimes), then matches each `fn NAME ... {` with its closing brace.

Usage: python3 scripts/check_sizes.py [--all]
  prints the functions over 60 lines (every function with --all) and the broken rules;
  exit status 1 when a rule is broken.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
MAX_FILE = 600
MAX_FN = 80
MAX_HANDLER = 30
HEAD_LINES = 20
GENERATED = {"src/markdown/slug_table.rs"}
FILE_MARKER = re.compile(r"^//! Size: \S")
FN_MARKER = re.compile(r"^\s*// Size: \S")


def blank(text):
    """The text with comments, strings and character literals replaced by spaces (newlines
    kept), so that braces and `fn` are only the code's."""
    out = list(text)
    i, n = 0, len(text)

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            wipe(i, j)
            i = j
        elif (m := re.compile(r'(?:b|c)?r(#*)"').match(text, i)) and not _ident_before(text, i):
            end = text.find('"' + m.group(1), m.end())
            j = n if end < 0 else end + 1 + len(m.group(1))
            wipe(i, j)
            i = j
        elif c == '"' or (c in "bc" and text.startswith('"', i + 1) and not _ident_before(text, i)):
            j = i + (1 if c == '"' else 2)
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            wipe(i, j + 1)
            i = j + 1
        elif c == "'" or (c == "b" and text.startswith("'", i + 1) and not _ident_before(text, i)):
            q = i if c == "'" else i + 1
            m = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'").match(text, q)
            if m:  # a character literal; otherwise a lifetime or a label
                wipe(i, m.end())
                i = m.end()
            else:
                i = q + 1
        else:
            i += 1
    return "".join(out)


def _ident_before(text, i):
    return i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")


def close_of(code, open_at):
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code) - 1


def test_ranges(code):
    """Character ranges of `#[cfg(test)] mod NAME { ... }` blocks."""
    ranges = []
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", code):
        ranges.append((m.start(), close_of(code, m.end() - 1) + 1))
    return ranges


def functions(code, skip):
    """(name, first line, last line) of every function with a body, outside `skip`."""
    found = []
    for m in re.finditer(r"\bfn\s+(\w+)", code):
        if any(a <= m.start() < b for a, b in skip):
            continue
        # The body opens at the first `{` at bracket depth 0 after the name; a `;` first
        # means a declaration without a body (a trait's, or an extern one).
        depth, k = 0, m.end()
        while k < len(code):
            ch = code[k]
            if ch in "([<":
                depth += 1
            elif ch in ")]>" and not (ch == ">" and code[k - 1] == "-"):
                depth -= 1
            elif ch == ";" and depth <= 0:
                k = -1
                break
            elif ch == "{" and depth <= 0:
                break
            k += 1
        if k < 0 or k >= len(code):
            continue
        end = close_of(code, k)
        found.append((m.group(1), code.count("\n", 0, m.start()) + 1, code.count("\n", 0, end) + 1))
    return found


def fn_exempt(lines, first):
    """A `// Size: reason` line among the comments and attributes just above line `first`."""
    k = first - 2
    while k >= 0:
        s = lines[k].strip()
        if FN_MARKER.match(lines[k]):
            return True
        if not (s.startswith("//") or s.startswith("#[") or s.startswith("#!")):
            return False
        k -= 1
    return False


def test_files(paths):
    """Files their parent declares as `#[cfg(test)] mod NAME;` (and whatever is below them)."""
    tests = set()
    for path in paths:
        text = open(path, encoding="utf-8").read()
        here = os.path.dirname(path)
        if os.path.basename(path) not in ("mod.rs", "lib.rs", "main.rs"):
            here = os.path.join(here, os.path.basename(path)[:-3])
        for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text):
            tests.add(os.path.join(here, m.group(1) + ".rs"))
            tests.add(os.path.join(here, m.group(1)) + os.sep)
    return tests


def main():
    show_all = "--all" in sys.argv[1:]
    paths = sorted(
        os.path.join(d, f) for d, _, fs in os.walk(SRC) for f in fs if f.endswith(".rs")
    )
    tests = test_files(paths)
    broken = []
    for path in paths:
        rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
        if rel in GENERATED or path in tests or any(path.startswith(t) for t in tests if t.endswith(os.sep)):
            continue
        text = open(path, encoding="utf-8").read()
        lines = text.split("\n")
        code = blank(text)
        skip = test_ranges(code)
        test_lines = sum(code.count("\n", a, b) + 1 for a, b in skip)
        size = text.count("\n") - test_lines
        marked = any(FILE_MARKER.match(l) for l in lines[:HEAD_LINES])
        if size > MAX_FILE and not marked:
            broken.append(f"{rel}: {size} lines (over {MAX_FILE}): split it, or say why at its top with `//! Size: <reason>`")
        for name, first, last in functions(code, skip):
            length = last - first + 1
            if show_all or length > 60:
                print(f"{rel}:{first}: fn {name}: {length} lines")
            if length > MAX_FN and not fn_exempt(lines, first):
                broken.append(f"{rel}:{first}: fn {name} is {length} lines (over {MAX_FN}): split it, or say why just above it with `// Size: <reason>`")
        if rel.startswith("src/mcp/"):
            fns = functions(code, skip)
            for at in (i + 1 for i, l in enumerate(lines) if l.strip().startswith("#[tool(")):
                name, first, last = next(f for f in fns if f[1] > at)
                if last - first + 1 > MAX_HANDLER:
                    broken.append(f"{rel}:{first}: handler {name} is {last - first + 1} lines (over {MAX_HANDLER})")
    for b in broken:
        print(b, file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
