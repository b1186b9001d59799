#!/usr/bin/env bash
# Installs Debian's linux-source-6.1 package and unpacks the Linux kernel tree into
# corpora/linux (git-ignored), the corpus of ripgrep's own benchmarks. Idempotent.
#
#   bash corpora/fetch_linux.sh            # the tree
#   bash corpora/fetch_linux.sh --concat   # also corpora/generated/linux-all-c.txt (>= 1 GiB)
#
# The tree becomes its own git repository (`git init`, nothing committed), as a kernel clone
# is, so that the kernel's .gitignore files apply inside it and this repository's .gitignore
# (which ignores corpora/linux) does not. Debian appends "ignore everything at the top
# level" rules to the top-level .gitignore for its packaging; they are removed so that the
# ignore rules are the kernel's own.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tree="$here/linux"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

if [ ! -f "$tree/Makefile" ]; then
  tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1 || true)
  if [ -z "$tarball" ]; then
    if ! apt-cache policy linux-source-6.1 | grep -q 'Candidate: [0-9]'; then
      $sudo apt-get update -qq
    fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-source-6.1 >/dev/null
    tarball=$(ls /usr/src/linux-source-6.1.tar.* | head -n 1)
  fi
  echo "unpacking $tarball into corpora/linux ..." >&2
  rm -rf "$tree.tmp"
  mkdir -p "$tree.tmp"
  tar -xf "$tarball" -C "$tree.tmp" --strip-components=1
  python3 - "$tree.tmp/.gitignore" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
i = s.find("#\n# Debian packaging")
if i >= 0:
    open(p, "w").write(s[:i])
PY
  git -C "$tree.tmp" init -q .
  mv "$tree.tmp" "$tree"
fi
echo "corpora/linux: $(find "$tree" -type f -not -path '*/.git/*' | wc -l) files" >&2

if [ "${1:-}" = "--concat" ]; then
  out="$here/generated/linux-all-c.txt"
  if [ ! -f "$out" ] || [ "$(stat -c %s "$out")" -lt $((1024 * 1024 * 1024)) ]; then
    mkdir -p "$here/generated"
    list=$(mktemp)
    (cd "$tree" && find . -name '*.c' -type f | LC_ALL=C sort) > "$list"
    : > "$out.tmp"
    # Repeat the sorted .c files until the file passes 1 GiB (deterministic).
    while [ "$(stat -c %s "$out.tmp")" -lt $((1024 * 1024 * 1024)) ]; do
      (cd "$tree" && xargs -d '\n' cat < "$list") >> "$out.tmp"
    done
    rm -f "$list"
    mv "$out.tmp" "$out"
  fi
  echo "corpora/generated/linux-all-c.txt: $(stat -c %s "$out") bytes" >&2
fi
