#!/usr/bin/env bash
# The test suite: Rust unit + integration + end-to-end tests (the rmcp client drives the real
# `mapgrep serve` binary), then the independent check with the official Python MCP client.
# Installs what it needs (the Python `mcp` package) on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test
cargo build --quiet
bash tests/python/run.sh target/debug/mapgrep
