#!/usr/bin/env bash
# End-to-end check with the MCP Inspector CLI (npm `@modelcontextprotocol/inspector`, `--cli`),
# the client that reads tool schemas most literally: installs the pinned version under
# target/ if missing (and Node.js with apt when npm is absent and we are root), then calls
# every tool with every kind of optional parameter through `--tool-arg`.
#   bash tests/inspector/run.sh [path/to/mapgrep]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${1:-target/debug/mapgrep}"
version=0.15.0
prefix=target/inspector-cli
if ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null
  else
    echo "tests/inspector: npm is needed (install Node.js)" >&2
    exit 1
  fi
fi
if [ "$(node -p "require('./$prefix/node_modules/@modelcontextprotocol/inspector/package.json').version" 2>/dev/null)" != "$version" ]; then
  mkdir -p "$prefix"
  npm install --silent --no-audit --no-fund --prefix "$prefix" "@modelcontextprotocol/inspector@$version" >/dev/null
fi
[ -x "$bin" ] || cargo build --quiet
python3 tests/inspector/inspector_cli.py "$bin" "$prefix/node_modules/.bin/mcp-inspector"
