#!/usr/bin/env python3
"""Hostile source files for every language mapgrep parses (issue 35): generated, never
committed. Each is what a `git clone` can bring into a root: blocks nested tens of thousands
of levels deep, a megabyte on one line, sixteen megabytes of definitions of one name,
expressions nested deeper than any parser stack, and long names.

    python3 scripts/hostile_files.py DIR [--scale 1.0] [--only KIND,...] [--list]

writes the files under DIR (made if missing) and prints one line per file (its path relative
to DIR, its size, what it is). `--scale` shrinks every count (0.01 for quick unit runs). The
kinds: nested, oneline, samename, deepexpr, longname. The output is deterministic.

The acceptance sizes of issue 35: nesting of 50,000 levels in Rust, C++ and Java (3,000 in
Python), a 1 MiB one-line C file, 16 MiB of same-name definitions, one-line files of 512 KiB
(`mapgrep def`) and outlines at depth 30,000 (`mapgrep outline`).
"""

import argparse
import os
import sys

# Per language: file extension, a block that opens a nested named scope (format with {i}),
# what closes it, and a definition of the name `inner` inside.
NESTED = {
    "rust": ("rs", "mod m{i} {{\n", "}\n", "fn inner() {}\n"),
    "cpp": ("cpp", "namespace n{i} {{\n", "}\n", "int inner() { return 0; }\n"),
    "java": ("java", "class C{i} {{\n", "}\n", "void inner() {}\n"),
    "csharp": ("cs", "class C{i} {{\n", "}\n", "void inner() {}\n"),
    "kotlin": ("kt", "class C{i} {{\n", "}\n", "fun inner() {}\n"),
    "scala": ("scala", "object O{i} {{\n", "}\n", "def inner(): Int = 1\n"),
    "swift": ("swift", "struct S{i} {{\n", "}\n", "func inner() {}\n"),
    "php": ("php", "class C{i} {{ function f{i}() {{\n", "}}\n", "function inner() {}\n"),
    "ruby": ("rb", "module M{i}\n", "end\n", "def inner; end\n"),
    "typescript": ("ts", "namespace N{i} {{\n", "}\n", "function inner() {}\n"),
    "javascript": ("js", "class C{i} {{ m{i}() {{\n", "}}\n", "function inner() {}\n"),
    "go": ("go", "func f{i}() {{\n", "}\n", "inner := 1\n_ = inner\n"),
    "c": ("c", "struct s{i} {{\n", "};\n", "int inner;\n"),
    "bash": ("sh", "f{i}() {{\n", "}\n", "inner() { :; }\n"),
}

# One definition of `z` per language (for one-line and same-name files).
ONE_DEF = {
    "c": ("c", "void z(void){}"),
    "cpp": ("cpp", "void z(){}"),
    "rust": ("rs", "fn z(){}"),
    "python": ("py", "def z(): pass;"),
    "go": ("go", "func z(){};"),
    "java": ("java", "class Z{void z(){}}"),
    "csharp": ("cs", "class Z{void z(){}}"),
    "kotlin": ("kt", "fun z(){};"),
    "scala": ("scala", "object Z{def z()=1};"),
    "swift": ("swift", "func z(){};"),
    "php": ("php", "function z(){}"),
    "ruby": ("rb", "def z; end;"),
    "typescript": ("ts", "function z(){}"),
    "javascript": ("js", "function z(){}"),
    "bash": ("sh", "z(){ :; };"),
}


def nested(lang, depth):
    ext, open_, close, inner = NESTED[lang]
    parts = []
    if lang == "php":
        parts.append("<?php\n")
    if lang == "go":
        parts.append("package p\n")
    parts.extend(open_.format(i=i) for i in range(depth))
    parts.append(inner)
    parts.append(close * depth)
    return ext, "".join(parts)


def nested_python(depth):
    # One space per level: `def f0():` / ` def f1():` ... `inner` at the bottom.
    lines = []
    for i in range(depth):
        lines.append(" " * i + f"def f{i}():\n")
    lines.append(" " * depth + "def inner(): pass\n")
    return "py", "".join(lines)


def one_line(lang, size):
    ext, d = ONE_DEF[lang]
    prefix = "<?php " if lang == "php" else ("package p;" if lang == "go" else "")
    n = max(1, (size - len(prefix)) // len(d))
    return ext, prefix + d * n + "\n"


def same_name(lang, size):
    ext, d = ONE_DEF[lang]
    prefix = "<?php\n" if lang == "php" else ("package p\n" if lang == "go" else "")
    line = d.rstrip(";") + "\n"
    n = max(1, (size - len(prefix)) // len(line))
    return ext, prefix + line * n


def deep_expression(depth):
    # A C function whose body holds an expression nested `depth` parentheses deep.
    return "c", "int deep(void) { return " + "(" * depth + "1" + ")" * depth + "; }\nint after(void) { return 2; }\n"


def long_name(length):
    name = "n" * length
    return "c", f"int {name}(void) {{ return 0; }}\nint short_one(void) {{ return 1; }}\n"


def files(scale):
    s = lambda n: max(2, int(n * scale))
    out = []
    for lang in NESTED:
        depth = s(50_000)
        ext, text = nested(lang, depth)
        out.append((f"nested/{lang}_{depth}.{ext}", text, "nested", f"{depth} nested scopes, `inner` at the bottom"))
    ext, text = nested_python(s(3_000))
    out.append((f"nested/python_{s(3_000)}.{ext}", text, "nested", "nested defs, one space per level"))
    for lang in ONE_DEF:
        ext, text = one_line(lang, s(1 << 20))
        out.append((f"oneline/{lang}_1mib.{ext}", text, "oneline", "definitions of `z` on one line"))
    ext, text = one_line("c", s(512 << 10))
    out.append(("oneline/c_512kib.c", text, "oneline", "512 KiB on one line"))
    ext, text = same_name("c", s(16 << 20))
    out.append(("samename/c_16mib.c", text, "samename", "16 MiB of `void z(void){}` lines"))
    for lang in ("python", "java", "ruby", "typescript"):
        ext, text = same_name(lang, s(4 << 20))
        out.append((f"samename/{lang}_4mib.{ext}", text, "samename", "4 MiB of definitions of `z`"))
    ext, text = deep_expression(s(100_000))
    out.append(("deepexpr/c_parens.c", text, "deepexpr", "an expression nested 100,000 parentheses deep"))
    ext, text = long_name(s(1 << 20))
    out.append(("longname/c_1mib_name.c", text, "longname", "a function whose name is 1 MiB long"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    for rel, text, kind, what in files(args.scale):
        if only and kind not in only:
            continue
        path = os.path.join(args.dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        print(f"{rel}\t{len(text)}\t{what}")


if __name__ == "__main__":
    sys.exit(main())
