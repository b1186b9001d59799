#!/usr/bin/env bash
# Unpacks OpenJDK 17's java.base module sources (Debian's openjdk-17-source package: its
# lib/src.zip) into corpora/openjdk/java.base (git-ignored): the Java corpus of issue 37's
# references check (`scripts/bench_refs.py --tree corpora/openjdk`). Idempotent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tree="$here/openjdk"
if [ -d "$tree/java.base/java/lang" ]; then
  [ -d "$tree/.git" ] || git -C "$tree" init -q
  echo "corpora/openjdk is there" >&2
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
zip=/usr/lib/jvm/openjdk-17/lib/src.zip
if [ ! -f "$zip" ]; then
  if ! apt-cache policy openjdk-17-source | grep -q 'Candidate: [0-9]'; then
    apt-get update -qq
  fi
  (cd "$work" && apt-get download -qq openjdk-17-source)
  dpkg-deb -x "$work"/openjdk-17-source_*.deb "$work/deb"
  zip="$(find "$work/deb" -name src.zip | head -n 1)"
fi
rm -rf "$tree.tmp"
mkdir -p "$tree.tmp"
python3 - "$zip" "$tree.tmp" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith("java.base/")])
PY
rm -rf "$tree"
mv "$tree.tmp" "$tree"
# Its own repository (nothing committed), so that this repository's .gitignore, which
# ignores corpora/openjdk, does not hide it from rg and mapgrep run inside it.
git -C "$tree" init -q
echo "unpacked $(find "$tree" -type f | wc -l) files into corpora/openjdk/java.base" >&2
