#!/usr/bin/env bash
# The test suite: Rust unit + integration + end-to-end tests (the rmcp client drives the real
# `mapgrep serve` binary), run twice: as built for this system, and on Linux again with the
# portable platform layer (`--cfg mapgrep_portable`: cap-std's sandbox, as macOS and Windows
# run it; its own target directory); then the independent checks with the official Python MCP
# client (over stdio, and on Linux over streamable HTTP with many sessions) and the MCP
# Inspector CLI. Installs what they need (the Python `mcp` package, the npm Inspector) on a
# fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test
if [ "$(uname -s)" = Linux ]; then
  RUSTFLAGS="${RUSTFLAGS:-} --cfg mapgrep_portable" cargo test --target-dir target/portable
fi
cargo build --quiet
bash tests/python/run.sh target/debug/mapgrep
# `serve --http`: 8 concurrent sessions of the Python client's streamable HTTP transport get
# stdio's answers, and the server's memory with 8 stays within 1.5x of its memory with one
# (read from /proc: Linux only).
if [ "$(uname -s)" = Linux ]; then
  python3 scripts/http_sessions.py --mapgrep target/debug/mapgrep
fi
bash tests/inspector/run.sh target/debug/mapgrep
