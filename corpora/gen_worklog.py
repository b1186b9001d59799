#!/usr/bin/env python3
"""Deterministic generator of a large markdown work log, `WORK.md`, for mapgrep's read benchmarks.

The log has a title, a "Current Understanding" section, a "Key Events Index", then entries
`[LOG-nnnnnn] - [YYYY-MM-DD HH:MM] - [KIND] - Task: TASK-NAME` of 3 to 20 lines each, with a
`## Phase N` header every 5000 entries (and `### Sub-phase N.M` headers in between), so both
`^\\[LOG-` and `^## ` boundaries exist. Body lines never start with `[LOG-` or `#`. The same
arguments always produce the same bytes (fixed seed, no clock).

Usage: python3 corpora/gen_worklog.py [--size-mb 260] [--out corpora/generated/WORK.md] [--force]
"""

import argparse
import os
import random
import sys

KINDS = ["DECISION", "DISCOVERY", "PLAN", "EXEC", "VERIFY", "BLOCKER", "NOTE"]
WORDS = (
    "index mmap offset newline section boundary agent token cache regex parser walker "
    "budget cursor latency throughput monorepo kernel driver module header entry phase "
    "review merge branch commit rollback migrate schema query vector buffer chunk shard "
    "verify plan decide measure benchmark baseline regression fixture corpus median ratio "
    "验证计划 设计 性能 日志 résumé naïve café straße данные поиск"
).split()
TASKS = ["MODEL-A", "INDEX-B", "GREP-C", "READ-D", "DOC-E", "CODE-F", "HARDEN-G", "BENCH-H"]


def body_line(rng):
    kind = rng.random()
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14)))
    if kind < 0.35:
        return "- " + words
    if kind < 0.45:
        return "  - " + words
    if kind < 0.52:
        return "    `" + words.replace(" ", "_")[:60] + "()`"
    if kind < 0.56:
        return ""
    return words.capitalize() + "."


def generate(out, size_mb, seed=20260127):
    rng = random.Random(seed)
    target = size_mb * 1024 * 1024
    tmp = out + ".tmp"
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    lines = entries = written = 0
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        head = ["# Work Log", "", "## 1. Current Understanding", ""]
        head += ["- " + " ".join(rng.choice(WORDS) for _ in range(8)) for _ in range(30)]
        head += ["", "## 2. Key Events Index", ""]
        head += [f"- LOG-{i:06d}: {rng.choice(KINDS)}" for i in range(1, 21)]
        head += ["", "## 3. Log", ""]
        chunk = "\n".join(head) + "\n"
        f.write(chunk)
        written += len(chunk.encode())
        lines += len(head)
        buf = []
        minute = 0
        phase = 0
        while written < target:
            entries += 1
            if entries % 5000 == 1:
                phase += 1
                buf.append(f"## Phase {phase}")
                buf.append("")
            elif entries % 1250 == 1:
                buf.append(f"### Sub-phase {phase}.{(entries % 5000) // 1250}")
            minute += rng.randint(1, 30)
            day, rest = divmod(minute, 24 * 60)
            year = 2026 + day // 336
            month = (day // 28) % 12 + 1
            date = f"{year:04d}-{month:02d}-{day % 28 + 1:02d} {rest // 60:02d}:{rest % 60:02d}"
            buf.append(
                f"[LOG-{entries:06d}] - [{date}] - [{rng.choice(KINDS)}] - Task: {rng.choice(TASKS)}"
            )
            for _ in range(rng.randint(2, 19)):
                buf.append(body_line(rng))
            if len(buf) > 20000:
                chunk = "\n".join(buf) + "\n"
                f.write(chunk)
                written += len(chunk.encode())
                lines += len(buf)
                buf = []
        if buf:
            chunk = "\n".join(buf) + "\n"
            f.write(chunk)
            written += len(chunk.encode())
            lines += len(buf)
    os.replace(tmp, out)
    print(f"wrote {out}: {written} bytes, {lines} lines, {entries} entries", file=sys.stderr)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-mb", type=int, default=260)
    ap.add_argument("--out", default=os.path.join(here, "generated", "WORK.md"))
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    if os.path.exists(a.out) and not a.force and os.path.getsize(a.out) >= a.size_mb * 1024 * 1024:
        print(f"{a.out} exists ({os.path.getsize(a.out)} bytes); --force to rebuild", file=sys.stderr)
        return
    generate(a.out, a.size_mb)


if __name__ == "__main__":
    main()
