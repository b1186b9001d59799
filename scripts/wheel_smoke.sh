#!/usr/bin/env bash
# The Python package as a user gets it: pip builds the wheel from this checkout (PEP 517,
# maturin, which pip installs into its own build environment from PyPI; the release profile,
# the same cargo settings as the caller's, so .ci/run's CARGO_* exports apply), the wheel is
# installed into a fresh venv with the pinned MCP Python SDK (tests/python/requirements.txt),
# and scripts/wheel_smoke.py drives the installed `mapgrep serve` through it. Needs PyPI.
# Everything it makes is in a temporary directory, removed at the end.
#   bash scripts/wheel_smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
py="$tmp/venv/bin/python"
pip=("$py" -m pip --disable-pip-version-check --quiet)
"${pip[@]}" wheel --no-deps --wheel-dir "$tmp/dist" .
wheel=("$tmp"/dist/mapgrep-*.whl)
# The wheel carries the binary and the license files, and no Python code.
"$py" - "${wheel[0]}" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
data = [n for n in names if ".data/scripts/" in n]
licenses = sorted(n.rsplit("/", 1)[1] for n in names if "/licenses/" in n)
assert [n.rsplit("/", 1)[1] for n in data] in (["mapgrep"], ["mapgrep.exe"]), names
assert licenses == ["LICENSE-APACHE", "LICENSE-MIT"], names
assert not [n for n in names if n.endswith(".py")], names
PY
echo "wheel_smoke: built $(basename "${wheel[0]}") ($(du -k "${wheel[0]}" | cut -f1) KiB)"
"${pip[@]}" install "${wheel[0]}" -r tests/python/requirements.txt
"$py" scripts/wheel_smoke.py
