#!/usr/bin/env python3
"""Writes a large, realistic TypeScript file for file_read's benchmarks.

Deterministic (fixed seed, no clock): the same arguments give the same bytes. Default output:
corpora/generated/big_service.ts, about 200 KB: imports, interfaces, type aliases, enums,
namespaces, decorated classes with methods and arrow-function fields, functions with doc
comments, constants, and top-level statements.
Usage: python3 corpora/gen_ts.py [--size-kb N] [--out PATH]
"""
import argparse
import os
import random

WORDS = ("user order invoice cart item price stock ship route token cache queue event "
         "report audit policy rule quota limit batch retry session account ledger").split()


def camel(rng, n=2, upper=False):
    parts = [rng.choice(WORDS) for _ in range(n)]
    s = parts[0] + "".join(p.title() for p in parts[1:])
    return s[0].upper() + s[1:] if upper else s


def body(rng, indent, lines):
    pad = " " * indent
    out = []
    for i in range(lines):
        k = rng.randrange(6)
        v = camel(rng)
        if k == 0:
            out.append(f"{pad}const {v}{i} = await this.{camel(rng)}({rng.randrange(100)});")
        elif k == 1:
            out.append(f"{pad}if ({v}{i % 3} > {rng.randrange(10)}) {{")
            out.append(f"{pad}  logger.debug('{v} over limit', {{ id: {i} }});")
            out.append(f"{pad}}}")
        elif k == 2:
            out.append(f"{pad}// {rng.choice(WORDS)} {rng.choice(WORDS)} handling")
        elif k == 3:
            out.append(f"{pad}for (const x of items) {{ total += x.{camel(rng)}; }}")
        elif k == 4:
            out.append(f"{pad}result.push({{ {v}: {i}, at: Date.now() }});")
        else:
            out.append("")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-kb", type=int, default=200)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "generated", "big_service.ts"))
    a = ap.parse_args()
    rng = random.Random(20261123)
    out = ['"use strict";', "import { Injectable, Inject } from '@core/di';",
           "import * as path from 'node:path';", "import type { Logger } from './logger';",
           "import config, { Env } from './config';", "", "const logger: Logger = config.logger;", ""]
    n = 0
    while sum(len(l) + 1 for l in out) < a.size_kb * 1000:
        n += 1
        kind = n % 7
        name = camel(rng, 2, upper=True) + str(n)
        if kind == 0:
            out.append(f"/** The {name} contract. */")
            out.append(f"export interface I{name} {{")
            for j in range(rng.randrange(3, 8)):
                out.append(f"  {camel(rng)}{j}: {rng.choice(['string', 'number', 'boolean', 'Date'])};")
            out.append(f"  run(input: string): Promise<void>;")
            out.append("}")
        elif kind == 1:
            out.append(f"export type {name}Id = string | number;")
        elif kind == 2:
            out.append(f"export enum {name}State {{ Idle, Running, Done, Failed }}")
        elif kind == 3:
            out.append(f"export namespace {name}Ns {{")
            out.append(f"  export const LIMIT_{n} = {rng.randrange(1000)};")
            out.append(f"  export function check(v: number): boolean {{ return v < LIMIT_{n}; }}")
            out.append("}")
        elif kind == 4:
            out.append("@Injectable()")
            out.append(f"export class {name}Service {{")
            out.append(f"  private readonly cache = new Map<string, number>();")
            out.append(f"  private onEvent = (e: Event): void => {{ logger.info(String(e)); }};")
            out.append(f"  constructor(@Inject('db') private db: unknown) {{}}")
            for j in range(rng.randrange(2, 6)):
                out.append("")
                out.append(f"  /** {camel(rng)} step {j}. */")
                out.append(f"  async {camel(rng)}{j}(items: number[]): Promise<number> {{")
                out.append("    let total = 0;")
                out.append("    const result: object[] = [];")
                out.extend(body(rng, 4, rng.randrange(4, 14)))
                out.append("    return total;")
                out.append("  }")
            out.append("}")
        elif kind == 5:
            out.append(f"/**\n * Computes {name}.\n * @param items the input\n */")
            out.append(f"export function compute{name}(items: number[]): number {{")
            out.append("  let total = 0;")
            out.append("  const result: object[] = [];")
            out.extend(body(rng, 2, rng.randrange(5, 20)))
            out.append("  return total;")
            out.append("}")
        else:
            out.append(f"export const {name.upper()}_DEFAULTS = {{ retries: {rng.randrange(9)}, timeoutMs: {rng.randrange(9000)} }};")
            out.append(f"const handle{name} = async (id: string): Promise<void> => {{")
            out.extend(body(rng, 2, rng.randrange(2, 6)))
            out.append("};")
        out.append("")
    out.append("export default logger;")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {a.out}: {os.path.getsize(a.out)} bytes, {len(out)} lines")


if __name__ == "__main__":
    main()
