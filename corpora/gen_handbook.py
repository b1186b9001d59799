#!/usr/bin/env python3
"""Deterministic generator of a large markdown handbook, `HANDBOOK.md`, for mapgrep's document
tool benchmarks (doc_toc, doc_read, doc_read_many).

The handbook is a realistic long document: `# Part N` chapters, `## N.M` sections and
`### N.M.K` subsections with English, Chinese, Japanese, Cyrillic and full-width titles (some
repeated, so slugs get `-1`, `-2` suffixes), setext headings, and bodies of paragraphs,
bullet lists, tables, block quotes and fenced code blocks whose lines start with `#` (which
are not headings). A heading about every 25 lines. The same arguments always produce the same
bytes (fixed seed, no clock).

Usage: python3 corpora/gen_handbook.py [--size-mb 60] [--out corpora/generated/HANDBOOK.md] [--force]
"""

import argparse
import os
import random
import sys

WORDS = (
    "index mmap offset newline section boundary agent token cache regex parser walker "
    "budget cursor latency throughput monorepo kernel driver module header entry phase "
    "review merge branch commit rollback migrate schema query vector buffer chunk shard "
    "verify plan decide measure benchmark baseline regression fixture corpus median ratio "
    "验证计划 设计 性能 日志 検証 設計 résumé naïve café straße данные поиск"
).split()

TOPICS = [
    "Phase B", "Phase A", "验证计划", "设计原则", "性能测试", "検証計画", "設計方針",
    "Проверка данных", "Поиск и индекс", "ＦＵＬＬ　ＷＩＤＴＨ Ｔｉｔｌｅ", "Straße und Weg",
    "Overview", "Design", "Rollout", "Risks", "Metrics", "Open questions",
]
REPEATED = ["Notes", "Examples", "Summary"]


def words(rng, lo, hi):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def paragraph(rng, out):
    for _ in range(rng.randint(2, 6)):
        out.append(words(rng, 8, 16).capitalize() + ".")
    out.append("")


def bullets(rng, out):
    for _ in range(rng.randint(3, 8)):
        out.append("- " + words(rng, 4, 12))
        if rng.random() < 0.2:
            out.append("  - " + words(rng, 3, 8))
    out.append("")


def table(rng, out):
    out.append("| name | value | note |")
    out.append("|------|-------|------|")
    for i in range(rng.randint(2, 6)):
        out.append(f"| {rng.choice(WORDS)} | {rng.randint(0, 99999)} | {words(rng, 2, 5)} |")
    out.append("")


def code(rng, out):
    lang = rng.choice(["bash", "python", "toml", "text"])
    out.append("```" + lang)
    for _ in range(rng.randint(3, 10)):
        if rng.random() < 0.3:
            out.append("# " + words(rng, 2, 6))
        else:
            out.append("    " + words(rng, 2, 6).replace(" ", "_") + "()")
    out.append("```")
    out.append("")


def quote(rng, out):
    for _ in range(rng.randint(1, 3)):
        out.append("> " + words(rng, 6, 12))
    out.append("")


BLOCKS = [paragraph, paragraph, paragraph, bullets, bullets, table, code, quote]


def body(rng, out, blocks):
    for _ in range(blocks):
        rng.choice(BLOCKS)(rng, out)


def title(rng, number):
    if rng.random() < 0.15:
        return rng.choice(REPEATED)
    return f"{number} {rng.choice(TOPICS)} {rng.choice(WORDS)}"


def generate(path, size):
    rng = random.Random(20261123)
    written = 0
    part = 0
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        head = ["---", "title: Handbook", "generated: true", "---", "", "# Handbook", ""]
        body(rng, head, 2)
        f.write("\n".join(head) + "\n")
        while written < size:
            part += 1
            out = []
            if part % 10 == 0:
                out += [f"Part {part}: {rng.choice(TOPICS)}", "=" * 20, ""]
            else:
                out += [f"# Part {part}: {rng.choice(TOPICS)}", ""]
            body(rng, out, 2)
            for s in range(1, rng.randint(6, 12)):
                if rng.random() < 0.1:
                    out += [title(rng, f"{part}.{s}"), "-" * 12, ""]
                else:
                    out += ["## " + title(rng, f"{part}.{s}"), ""]
                body(rng, out, rng.randint(3, 6))
                for k in range(1, rng.randint(1, 5)):
                    out += ["### " + title(rng, f"{part}.{s}.{k}"), ""]
                    body(rng, out, rng.randint(2, 5))
            text = "\n".join(out) + "\n"
            f.write(text)
            written += len(text.encode("utf-8"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=float, default=60)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "generated", "HANDBOOK.md"))
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    size = int(args.size_mb * 1_000_000)
    if os.path.exists(args.out) and not args.force and os.path.getsize(args.out) >= size:
        print(f"{args.out} exists ({os.path.getsize(args.out)} bytes); --force to rebuild", file=sys.stderr)
        return
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    tmp = args.out + ".tmp"
    generate(tmp, size)
    os.replace(tmp, args.out)
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
