#!/usr/bin/env bash
# The independent end-to-end check with the official MCP Python SDK: installs it (pinned in
# requirements.txt) if missing, builds the server if needed, runs e2e_mcp.py.
#   bash tests/python/run.sh [path/to/mapgrep]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${1:-target/debug/mapgrep}"
if ! python3 - <<'PY' 2>/dev/null
import importlib.metadata as m, sys
want = open("tests/python/requirements.txt").read().split("==")[1].strip()
sys.exit(0 if m.version("mcp") == want else 1)
PY
then
  python3 -m pip install -q --disable-pip-version-check -r tests/python/requirements.txt
fi
[ -x "$bin" ] || cargo build --quiet
python3 tests/python/e2e_mcp.py "$bin"
