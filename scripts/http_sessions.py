#!/usr/bin/env python3
"""Many sessions over one `mapgrep serve --http` (issue 39), with the MCP Python SDK's
streamable HTTP client: N concurrent sessions (default 8) get the same answers as a stdio
session for a set of tool calls, and the server's resident memory (VmRSS) with N sessions
stays within 1.5x of its memory with one.

Both protocol eras are checked: sessions opened with `initialize` (2025-11-25, each an HTTP
session of the server) and requests negotiated with `server/discover` (2026-07-28, no
session). Memory is measured on the sessions: after one session has made every call ROUNDS
times, then while N sessions make them at once, each VmRSS read from the status file of the
server's process.

Usage: python3 scripts/http_sessions.py [--mapgrep target/debug/mapgrep] [--root .]
       [--sessions 8] [--rounds 3] [--deadline 600]
Loopback only (127.0.0.1, a port the system picks); every call has a timeout and the whole
run at most --deadline seconds; the servers are killed at the end. The index is kept in a
temporary directory. Exit status 1 when an answer differs or memory grows more than 1.5x.
"""

import argparse
import difflib
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

CALL_TIMEOUT = 60
RATIO = 1.5

# The calls compared, over the repository itself (the default root).
CALLS = [
    ("grep_content", {"pattern": r"fn serve_http|struct Sessions"}),
    ("grep_content", {"pattern": "MAPGREP_HTTP_TOKEN", "section_patterns": []}),
    ("doc_read", {"path": "ARCHITECTURE.md", "section": "Layers"}),
    ("doc_toc", {"path": "SECURITY.md"}),
    ("find_definition", {"name": "MapgrepServer"}),
    ("find_definition", {"name": "Sessions.create_session"}),
    ("file_read", {"file": "src/mcp/http.rs", "skeleton": True}),
    ("read_files", {"files": [{"path": "Cargo.toml", "head": 30}]}),
]


def answer(result):
    """What a call gave: its text blocks and whether it is an error."""
    texts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
    return (bool(result.is_error), "\n".join(texts))


async def run_calls(session, rounds=1):
    out = []
    for _ in range(rounds):
        out = []
        for name, args in CALLS:
            with anyio.fail_after(CALL_TIMEOUT):
                out.append(answer(await session.call_tool(name, args)))
    return out


async def handshake(session, era):
    with anyio.fail_after(CALL_TIMEOUT):
        if era == "2025-11-25":
            await session.initialize()
        else:
            await session.discover()
        if session.protocol_version != era:
            sys.exit(f"negotiated {session.protocol_version}, not {era}")


def settled(answers):
    """Whether the symbol index answered every lookup (none searched files not indexed yet)."""
    defs = [t for (n, _), (_, t) in zip(CALLS, answers) if n == "find_definition"]
    return all("from the symbol index" in t and "not indexed yet" not in t for t in defs)


async def settle(open_session, what, limit=300):
    """The answers of one session of `open_session` once the index and the symbol records are
    ready (asked again every second until they are)."""
    t = time.time()
    async with open_session() as s:
        while True:
            got = await run_calls(s)
            if settled(got):
                # Asked again: a server's first searches may go another way (a walk, before
                # its file lists are kept) than the warm ones every session meets later.
                return await run_calls(s, 2)
            if time.time() - t > limit:
                sys.exit(f"{what}: the symbol index was not ready after {limit} s")
            await anyio.sleep(1)


class HttpServer:
    def __init__(self, binary, root, index_dir):
        self.p = subprocess.Popen(
            [binary, "serve", "--http", "127.0.0.1:0", "--index-dir", index_dir, root],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env={k: v for k, v in os.environ.items() if k != "MAPGREP_HTTP_TOKEN"})
        self.log = []
        threading.Thread(target=self._drain, daemon=True).start()
        self.url = None
        t = time.time()
        while self.url is None and time.time() - t < 60 and self.p.poll() is None:
            for line in list(self.log):
                if "at http://" in line:
                    self.url = "http://" + line.split("at http://")[1].split()[0]
            time.sleep(0.05)
        if not self.url or not self.url.startswith("http://127.0.0.1:"):
            self.close()
            sys.exit(f"the server did not say where it listens (or not on loopback): {self.url}\n"
                     + "".join(self.log[-20:]))

    def _drain(self):
        for line in self.p.stderr:
            self.log.append(line.decode(errors="replace"))

    def rss_kib(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def session(self, era, name):
        """An async context manager: a client session of `era` as client `name`."""
        return Opened(lambda: streamable_http_client(self.url), name, era)

    def close(self):
        self.p.kill()
        self.p.wait()


class Opened:
    """An async context manager: a client session of `era` as client `name` over the
    transport `transport()` makes (the HTTP and the stdio client alike)."""

    def __init__(self, transport, name, era):
        self.make, self.name, self.era = transport, name, era

    async def __aenter__(self):
        self.transport = self.make()
        read, write = await self.transport.__aenter__()
        self.session = ClientSession(read, write, client_info=Implementation(name=self.name, version="1"))
        await self.session.__aenter__()
        await handshake(self.session, self.era)
        return self.session

    async def __aexit__(self, *exc):
        await self.session.__aexit__(*exc)
        await self.transport.__aexit__(*exc)


async def stdio_answers(binary, root, index_dir, era):
    params = StdioServerParameters(command=binary, args=["serve", "--index-dir", index_dir, root])
    transport = lambda: stdio_client(params, errlog=open(os.devnull, "w"))  # noqa: E731
    return await settle(lambda: Opened(transport, "stdio", era), f"stdio ({era})")


def compare(what, got, want):
    bad = 0
    for (name, args), g, w in zip(CALLS, got, want):
        if g != w:
            bad += 1
            diff = difflib.unified_diff(w[1].splitlines(), g[1].splitlines(), "stdio", "http", n=1, lineterm="")
            shown = "\n".join(list(diff)[:30])
            print(f"not ok - {what}: {name} {args} differs from stdio (error: {g[0]} vs {w[0]}):\n{shown}")
    return bad


async def main_async(a, index_dir, srv):
    failures = 0
    for era in ("2025-11-25", "2026-07-28"):
        first = await settle(lambda: srv.session(era, "probe"), f"http ({era})")
        want = await stdio_answers(a.mapgrep, a.root, index_dir, era)
        failures += compare(f"one http session ({era})", first, want)

        # One session, every call ROUNDS times: the memory with one.
        if era == "2025-11-25":
            async with srv.session(era, "one") as s:
                await run_calls(s, a.rounds)
                rss_one = srv.rss_kib()

        results = [None] * a.sessions
        rss_many = [0]

        async def one(i):
            async with srv.session(era, f"client-{i}") as s:
                results[i] = await run_calls(s, a.rounds)
                rss_many[0] = max(rss_many[0], srv.rss_kib())
                # Held open until every session has answered, so all N are there at once.
                await done.wait()

        done = anyio.Event()
        async with anyio.create_task_group() as tg:
            for i in range(a.sessions):
                tg.start_soon(one, i)
            while any(r is None for r in results):
                await anyio.sleep(0.05)
            rss_many[0] = max(rss_many[0], srv.rss_kib())
            done.set()
        same = 0
        for i, r in enumerate(results):
            bad = compare(f"session {i} of {a.sessions} ({era})", r, want)
            failures += bad
            same += bad == 0
        print(f"{'ok' if same == a.sessions else 'not ok'} - {era}: {same} of {a.sessions} concurrent "
              f"sessions got the stdio answers to {len(CALLS)} calls ({a.rounds} rounds each)")
        if era == "2025-11-25":
            ratio = rss_many[0] / max(rss_one, 1)
            ok = ratio <= RATIO
            failures += not ok
            print(f"{'ok' if ok else 'not ok'} - VmRSS with 1 session {rss_one / 1024:.1f} MiB, with "
                  f"{a.sessions} sessions {rss_many[0] / 1024:.1f} MiB: {ratio:.2f}x (at most {RATIO}x)")
    return failures


def main():
    # The SDK warns when a DELETE that ends a session is answered 202 (rmcp's answer) rather
    # than 200 or 204; the session is ended all the same.
    logging.getLogger("mcp.client.streamable_http").setLevel(logging.ERROR)
    ap = argparse.ArgumentParser()
    ap.add_argument("--mapgrep", default="target/debug/mapgrep")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--deadline", type=int, default=600)
    a = ap.parse_args()
    a.mapgrep = os.path.abspath(a.mapgrep)
    a.root = os.path.realpath(a.root)
    if not 1 <= a.sessions <= 32:
        sys.exit("--sessions: 1 to 32")
    with tempfile.TemporaryDirectory() as tmp:
        index_dir = os.path.join(tmp, "index")
        srv = HttpServer(a.mapgrep, a.root, index_dir)
        try:
            async def bounded():
                with anyio.fail_after(a.deadline):
                    return await main_async(a, index_dir, srv)
            failures = anyio.run(bounded)
        finally:
            srv.close()
    print(f"{'ok' if failures == 0 else 'not ok'} - {failures} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
