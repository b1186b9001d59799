#!/usr/bin/env python3
"""Drives `mapgrep serve` with the MCP Inspector CLI, as a user of that client would.

Every tool is called, and every optional integer, boolean and array parameter is passed the
only way the Inspector CLI can: as `--tool-arg name=value` text, which it converts by the
tool's input schema. Each call must succeed, and its two views must agree: the text block
alone and `structuredContent` alone each carry the answer.

Prints `ok - NAME` / `not ok - NAME: DETAIL` per check and a closing `N passed, M failed`.

Usage: python3 tests/inspector/inspector_cli.py path/to/mapgrep path/to/mcp-inspector
"""

import json
import os
import subprocess
import sys
import tempfile

RESULTS = []


def check(name, cond, detail=""):
    RESULTS.append(bool(cond))
    print(("ok - " if cond else "not ok - ") + name + ("" if cond else f": {detail}"), flush=True)


def fixtures(root):
    def w(name, data):
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)

    log = ["# Work", "## Log"]
    for i in range(1, 6):
        log.append(f"[LOG-{i:03d}] - [2026-01-27] - [{'DECISION' if i == 3 else 'NOTE'}] - Task: T{i}")
        log += [f"body {i}.{j}" for j in range(i)]
    w("WORK.md", "\n".join(log) + "\n")
    w("hello.txt", "Hello\nWorld\n")
    w("plan.md", "# Plan\n\n## Phase A\n\na\n\n## Phase B\n\nb TODO\n\n### B.1 Detail\n\nd\n")
    w("app.ts", "\n".join([
        'import { readFile } from "fs";',
        "",
        "export const CONFIG = { port: 8080 };",
        "",
        "export function initializeApp(name: string): number {",
        "  return name.length + CONFIG.port;",
        "}",
        "",
        "export class App {",
        "  start(): void {",
        '    console.log("start");',
        "  }",
        "}",
    ]) + "\n")
    w(".hidden/secret.md", "## Hidden\nTODO hidden\n")
    w(".gitignore", "ignored.md\n")
    w("ignored.md", "TODO ignored\n")
    w("image.bin", b"\x89PNG\x00\x00TODO")


class Inspector:
    def __init__(self, inspector, server, root, extra=()):
        self.inspector = inspector
        self.target = [server, "serve", *extra, root]

    def run(self, method, tool=None, **args):
        cmd = [self.inspector, "--cli", *self.target, "--method", method]
        if tool:
            cmd += ["--tool-name", tool]
        for k, v in args.items():
            cmd += ["--tool-arg", f"{k}={v}"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise RuntimeError(f"exit {p.returncode}: {p.stderr[-2000:]}")
        return json.loads(p.stdout)


def call(ins, name, tool, expect=None, /, **args):
    """Calls `tool`; checks success, both views and that `expect` is in each; returns the text."""
    try:
        r = ins.run("tools/call", tool, **args)
    except Exception as e:  # noqa: BLE001 - a failed run is a failed check
        check(name, False, str(e))
        return ""
    text = "\n".join(c["text"] for c in r.get("content", []) if c.get("type") == "text")
    sc = r.get("structuredContent")
    ok = not r.get("isError") and isinstance(sc, dict) and isinstance(sc.get("content"), str)
    both = ok and (expect is None or (expect in text and expect in sc["content"]))
    # The structured view alone carries the answer: its content is the text view's
    # (read_text_file keeps its summary in `_meta`).
    same = ok and (sc["content"] == text or (tool == "read_text_file" and text.startswith(sc["content"])))
    check(name, ok and both and same, json.dumps(r)[:1500])
    return text


def main():
    server, inspector = sys.argv[1], sys.argv[2]
    server = os.path.abspath(server)
    with tempfile.TemporaryDirectory() as root:
        root = os.path.realpath(root)
        fixtures(root)
        ins = Inspector(inspector, server, root)

        listed = ins.run("tools/list")["tools"]
        names = sorted(t["name"] for t in listed)
        check("tools/list: the read-only tools, no doc_replace",
              names == ["doc_find", "doc_read", "doc_read_many", "doc_toc", "file_read",
                        "find_definition", "find_files", "find_references", "grep_content", "read_files",
                        "read_text_file", "repo_map"], names)

        # read_files: an array of objects, a bare path list, a boolean.
        call(ins, "read_files section read", "read_files", "Lines: 8-11 of 22",
             files=json.dumps([{"path": "WORK.md", "start_line": 8, "read_to_next_pattern": "^\\[LOG-"}]))
        call(ins, "read_files head/tail/range", "read_files", "Lines: 2-2 of 2",
             files=json.dumps([{"path": "hello.txt", "head": 1}, {"path": "hello.txt", "tail": 1},
                               {"path": "WORK.md", "start_line": 1, "end_line": 2}]))
        call(ins, "read_files bare paths", "read_files", "Hello", files='["hello.txt"]')
        call(ins, "read_files large_file_passthrough", "read_files", "World",
             files='[{"path": "hello.txt"}]', large_file_passthrough="true")

        # read_text_file: integers.
        call(ins, "read_text_file line+limit", "read_text_file", "World",
             path=os.path.join(root, "hello.txt"), line="2", limit="1")

        # grep_content: every optional kind.
        text = call(ins, "grep_content max_results + cursor", "grep_content", "cursor",
                    pattern="body", max_results="2", context_lines="1", case_insensitive="true")
        cursor = text.rsplit('cursor: "', 1)[-1].split('"', 1)[0] if 'cursor: "' in text else ""
        call(ins, "grep_content continues with the cursor", "grep_content", "Line: 7,",
             pattern="body", max_results="2", cursor=cursor)
        call(ins, "grep_content section_patterns/glob/word/fixed", "grep_content", "Section-End-Hint",
             pattern="[LOG-003]", fixed_strings="true", word="false",
             section_patterns='["^\\\\[LOG-"]', glob='["*.md"]', search_path=".")
        call(ins, "grep_content hidden/ignored/max_filesize/list_skipped", "grep_content", "ignored.md",
             pattern="TODO", include_hidden="true", include_ignored="true",
             max_filesize="100000", list_skipped="true")
        call(ins, "grep_content one glob as a string", "grep_content", "plan.md", pattern="TODO", glob="*.md")

        # The markdown tools.
        call(ins, "doc_toc max_depth + section", "doc_toc", "Phase B", path="plan.md", max_depth="3",
             section="phase-b")
        text = call(ins, "doc_read include_children", "doc_read", "Phase B", path="plan.md",
                    section="Phase B", include_children="false")
        call(ins, "doc_read_many sections", "doc_read_many", "Phase A", path="plan.md",
             sections='["phase-a", "2.2"]', include_children="true")
        call(ins, "doc_read_many one section as a string", "doc_read_many", "Phase A", path="plan.md",
             sections="phase-a")
        call(ins, "doc_find filters", "doc_find", "Phase B", path="plan.md", pattern="*Phase*",
             level="2", content_pattern="TODO", min_size="1", max_depth="2")

        # file_read: a string target, a list, booleans, integers.
        call(ins, "file_read target as a string", "file_read", "return name.length", file="app.ts",
             target="initializeApp")
        call(ins, "file_read target list + recursive", "file_read", 'console.log("start")', file="app.ts",
             target='["App", "CONFIG"]', recursive="true")
        call(ins, "file_read skeleton", "file_read", "initializeApp", file="app.ts", skeleton="true")
        call(ins, "file_read range", "file_read", "symbol: initializeApp", file="app.ts", startLine="1",
             endLine="7")

        # find_definition: a name, a boolean as a string, a glob as a string.
        call(ins, "find_definition", "find_definition", "app.ts:", name="initializeApp",
             declarations="true", glob="*.ts")

        # doc_replace, listed and callable with --allow-write.
        writer = Inspector(inspector, server, root, ["--allow-write"])
        names = [t["name"] for t in writer.run("tools/list")["tools"]]
        check("tools/list with --allow-write lists doc_replace", "doc_replace" in names, names)
        read = writer.run("tools/call", "doc_read", path="plan.md", section="phase-a")
        digest = read["structuredContent"].get("hash", "")
        call(writer, "doc_replace", "doc_replace", "hash", path="plan.md", section="phase-a",
             content="## Phase A\n\nnew a\n", expected_hash=digest, include_children="true",
             allow_outline_change="false")
        with open(os.path.join(root, "plan.md")) as f:
            check("doc_replace wrote the section", "new a" in f.read())

    failed = RESULTS.count(False)
    print(f"{len(RESULTS) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
