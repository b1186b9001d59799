#!/usr/bin/env bash
# Validates every GitHub workflow in .github/workflows/ offline: each file must be YAML that
# matches the GitHub workflow schema vendored in check-jsonschema (PyPI `check-jsonschema`,
# `--builtin-schema vendor.github-workflows`: the schema ships inside the package, nothing is
# fetched at check time). Installs check-jsonschema with pip when it is missing (that step
# needs PyPI). Then checks that every script a workflow runs with `bash PATH` exists.
#   bash scripts/check_workflows.sh
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s nullglob
files=(.github/workflows/*.yml .github/workflows/*.yaml)
if [ ${#files[@]} -eq 0 ]; then
  echo "check_workflows: no workflow in .github/workflows/" >&2
  exit 1
fi
if ! python3 -m check_jsonschema --version >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check check-jsonschema
fi
python3 -m check_jsonschema --builtin-schema vendor.github-workflows "${files[@]}"
missing=0
for f in "${files[@]}"; do
  while read -r script; do
    if [ ! -f "$script" ]; then
      echo "check_workflows: $f runs $script, which does not exist" >&2
      missing=1
    fi
  done < <(grep -oE 'bash [A-Za-z0-9_./-]+' "$f" | awk '{print $2}' | sort -u)
done
[ "$missing" = 0 ]
echo "check_workflows: ${#files[@]} workflow files valid"
