#!/usr/bin/env bash
# Installs real source trees for file_read's property test and benchmarks into
# corpora/code/ (git-ignored): TypeScript/JavaScript packages from npm, Go's standard library
# from Debian's golang-1.19-src package, and a link to the system Python's standard library.
# Usage: bash corpora/fetch_code.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/code"
mkdir -p "$out/npm"

# TypeScript sources (rxjs, zod ship src/*.ts), declaration files, and big JS bundles.
if [ ! -d "$out/npm/node_modules/rxjs" ]; then
    npm install --prefix "$out/npm" --no-save --ignore-scripts --no-audit --no-fund \
        rxjs@7.8.1 zod@3.23.8 @types/node@22.10.0 typescript@5.6.3 lodash@4.17.21 >&2
fi

# Go's standard library sources.
go_src=""
for d in /usr/share/go-1.19/src /usr/lib/go-1.19/src; do
    [ -d "$d" ] && go_src="$d" && break
done
if [ -z "$go_src" ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get install -y golang-1.19-src >&2 || { apt-get update >&2 && apt-get install -y golang-1.19-src >&2; }
    else
        sudo apt-get install -y golang-1.19-src >&2
    fi
    for d in /usr/share/go-1.19/src /usr/lib/go-1.19/src; do
        [ -d "$d" ] && go_src="$d" && break
    done
fi
[ -n "$go_src" ] && ln -sfn "$go_src" "$out/go-src"

# The system Python's standard library.
py_lib="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
ln -sfn "$py_lib" "$out/python-stdlib"

echo "corpora/code ready:" >&2
for ext in ts tsx js rs py go; do
    n=$(find -L "$out" -name "*.$ext" -type f 2>/dev/null | wc -l)
    echo "  .$ext: $n files" >&2
done
