#!/usr/bin/env python3
"""First pages of references (issue 37) as an agent waits for them: the stdio server spoken
to directly (`scripts/mcp_client.py`, raw JSON-RPC, the client's name choosing its answer
budget), on a tree whose index and symbol records are complete. The names are asked in
turn, round after round; there are more of them than the server keeps answers for (4), so
every call is a new search. Prints each name's count of uses and its calls' times; then the
median over names of each name's median after the first round, and the worst call after it.

Usage: python3 scripts/refs_first_pages.py --index-dir DIR [--mapgrep target/release/mapgrep]
       [--tree corpora/linux] [--names a,b,c] [--rounds 4] [--client bench|codex|claude-code]
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_client import Client  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = ("ext4_fill_super,pci_enable_device,ktime_get,copy_from_user,kmalloc_array,"
         "file_operations,module_init,task_struct,current,spin_lock_irqsave,mutex_lock,kfree")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mapgrep", default=os.path.join(ROOT, "target/release/mapgrep"))
    ap.add_argument("--tree", default=os.path.join(ROOT, "corpora/linux"))
    ap.add_argument("--index-dir", required=True)
    ap.add_argument("--names", default=NAMES)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--client", default="bench")
    args = ap.parse_args()
    names = args.names.split(",")
    c = Client([args.mapgrep, "serve", "--index-dir", args.index_dir, args.tree],
               name=args.client)
    c.wait_log([" built (", " loaded from "])
    t0 = time.time()
    while True:
        _, m, _ = c.request("tools/call", {"name": "find_definition",
                                           "arguments": {"name": "kmalloc_array", "code": False}})
        text = m["result"]["content"][0]["text"]
        if "symbol index" in text and "not indexed yet" not in text:
            break
        if time.time() - t0 > 900:
            sys.exit("the records were not complete after 15 minutes")
        time.sleep(5)
    times = {n: [] for n in names}
    for r in range(args.rounds):
        for n in names:
            dt, m, size = c.request("tools/call", {"name": "find_references",
                                                   "arguments": {"name": n}})
            times[n].append(dt * 1000)
            if r == 0:
                text = m["result"]["content"][0]["text"]
                head = next((l for l in text.splitlines() if " uses of `" in l), "?")
                print(f"{n:20} {head.split(' (')[0]}; answer {size} bytes", flush=True)
    medians = []
    for n in names:
        later = times[n][1:]
        medians.append(statistics.median(later))
        print(f"{n:20} " + " ".join(f"{x:6.1f}" for x in times[n]) + " ms", flush=True)
    worst = max(x for n in names for x in times[n][1:])
    print(f"client {args.client}: median over names {statistics.median(medians):.1f} ms, "
          f"worst call after the first round {worst:.1f} ms", flush=True)


if __name__ == "__main__":
    main()
