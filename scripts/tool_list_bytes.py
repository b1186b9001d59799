#!/usr/bin/env python3
"""Bytes of `tools/list` (compact JSON of the tools: names, descriptions, schemas,
annotations) for mapgrep and two peers, measured in one run.

Peers: the official filesystem server (npm `@modelcontextprotocol/server-filesystem`) and
fs-mcp (PyPI `fs-mcp`), installed under target/peers/ on first use.

Usage: python3 scripts/tool_list_bytes.py [path/to/mapgrep]   (default target/release/mapgrep)
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.path.join(ROOT, "target", "peers")


def tools_list(cmd):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def send(o):
        p.stdin.write(json.dumps(o) + "\n")
        p.stdin.flush()

    def reply(want):
        while True:
            line = p.stdout.readline()
            if not line:
                raise RuntimeError(f"{cmd[0]} closed its output")
            try:
                m = json.loads(line)
            except ValueError:
                continue  # a banner some servers print on stdout
            if isinstance(m, dict) and m.get("id") == want:
                return m

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bytes", "version": "1"}}})
    reply(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    tools = reply(2)["result"]["tools"]
    p.kill()
    return tools


def install():
    npm = os.path.join(PEERS, "npm")
    if not os.path.exists(os.path.join(npm, "node_modules", ".bin", "mcp-server-filesystem")):
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", npm,
                        "@modelcontextprotocol/server-filesystem"], check=True)
    venv = os.path.join(PEERS, "venv")
    if not os.path.exists(os.path.join(venv, "bin", "fs-mcp")):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "fs-mcp"], check=True)
    return (os.path.join(npm, "node_modules", ".bin", "mcp-server-filesystem"),
            os.path.join(venv, "bin", "fs-mcp"))


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "mapgrep")
    fs_server, fs_mcp = install()
    with tempfile.TemporaryDirectory() as d:
        rows = [
            ("mapgrep (read-only)", [binary, "serve", d]),
            ("mapgrep --allow-write", [binary, "serve", "--allow-write", d]),
            ("@modelcontextprotocol/server-filesystem", [fs_server, d]),
            # Its stdio server runs when neither the web UI (--ui, which starts it despite its
            # help text) nor the HTTP server (off with --no-http) is asked for.
            ("fs-mcp", [fs_mcp, "--no-http", d]),
        ]
        print("| server | tools | bytes | bytes per tool |\n|---|---:|---:|---:|")
        for name, cmd in rows:
            tools = tools_list(cmd)
            n = len(json.dumps(tools, separators=(",", ":"), ensure_ascii=False).encode())
            print(f"| {name} | {len(tools)} | {n:,} | {n // len(tools):,} |")


if __name__ == "__main__":
    main()
