#!/usr/bin/env python3
"""The installed wheel answers over MCP: run with the Python of the venv the wheel was
installed into (scripts/wheel_smoke.sh makes it). Checks that `mapgrep` on PATH is the venv's
own (what `pip install`, `pipx` and `uvx` give a user), that its `--version` is the installed
package's version, then starts that `mapgrep serve DIR` with the official MCP Python client
(stdio) and asks `grep_content` for a word in a small temporary directory: the answer must
name the one matching line of the one file that holds it.

Usage: VENV/bin/python scripts/wheel_smoke.py
"""

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def fail(message):
    print(f"wheel_smoke: {message}", file=sys.stderr)
    sys.exit(1)


def installed_binary():
    """The `mapgrep` that PATH finds once the venv's scripts directory leads it, as an
    activated venv (or pipx's and uv's tool directories) puts it."""
    scripts = os.path.dirname(sys.executable)
    found = shutil.which("mapgrep", path=scripts + os.pathsep + os.environ.get("PATH", ""))
    if found is None:
        fail(f"no mapgrep on PATH with {scripts} first")
    if os.path.dirname(os.path.realpath(found)) != os.path.realpath(scripts):
        fail(f"mapgrep on PATH is {found}, not the venv's ({scripts})")
    return found


async def grep(binary, root):
    params = StdioServerParameters(command=binary, args=["serve", root])
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write) as session:
            with anyio.fail_after(30):
                await session.initialize()
                tools = {t.name for t in (await session.list_tools()).tools}
                result = await session.call_tool("grep_content", {"pattern": "needle"})
    text = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    return tools, result.is_error, text


def main():
    binary = installed_binary()
    version = importlib.metadata.version("mapgrep")
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
    if out.strip() != f"mapgrep {version}":
        fail(f"`mapgrep --version` says {out.strip()!r}; the installed package is {version}")
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "notes.txt"), "w") as f:
            f.write("a line of hay\nthe needle is here\nmore hay\n")
        with open(os.path.join(root, "other.txt"), "w") as f:
            f.write("nothing to find\n")
        tools, is_error, text = anyio.run(grep, binary, root)
    expected = (
        "File: notes.txt, Line: 2\n---\nthe needle is here\n---\n"
        "Found 1 matching line in 1 file (searched 2 files)."
    )
    if "grep_content" not in tools:
        fail(f"grep_content is not listed: {sorted(tools)}")
    if is_error or not text.startswith(expected):
        fail(f"grep_content answered (error: {is_error}):\n{text}")
    print(f"wheel_smoke: {binary} ({out.strip()}) answered grep_content over MCP: "
          f"{len(tools)} tools, 1 match in notes.txt line 2")


if __name__ == "__main__":
    main()
