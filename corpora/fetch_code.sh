#!/usr/bin/env bash
# Installs real source trees for file_read's property test and benchmarks into
# corpora/code/ (git-ignored): TypeScript/JavaScript packages from npm, Go's standard library
# from Debian's golang-1.19-src package, and a link to the system Python's standard library;
# for the definition sets of benchmarks/defs/ also Rust crates from crates.io (serde,
# serde_derive, regex-automata, anyhow: their .crate tarballs, unpacked), plain-JavaScript
# npm packages (axios, express) and a Python source distribution from PyPI (requests).
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

# Rust crates: the .crate tarball of each, unpacked under crates/NAME-VERSION/.
mkdir -p "$out/crates"
for c in serde@1.0.215 serde_derive@1.0.215 regex-automata@0.4.9 anyhow@1.0.93; do
    name="${c%@*}"; ver="${c#*@}"
    if [ ! -d "$out/crates/$name-$ver" ]; then
        curl -sSfL "https://static.crates.io/crates/$name/$name-$ver.crate" | tar -xz -C "$out/crates"
    fi
done

# Plain JavaScript: ES modules with classes and exported functions (axios), CommonJS (express).
if [ ! -d "$out/npm-js/node_modules/axios" ]; then
    mkdir -p "$out/npm-js"
    npm install --prefix "$out/npm-js" --no-save --ignore-scripts --no-audit --no-fund \
        axios@1.7.9 express@4.21.2 >&2
fi

# A Python package's sources from its PyPI source distribution.
if [ ! -d "$out/pypi/requests" ]; then
    mkdir -p "$out/pypi"
    t="$(mktemp -d)"
    python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$t" requests==2.32.3 >&2
    mkdir -p "$out/pypi/requests"
    tar -xzf "$t"/requests-2.32.3.tar.gz -C "$out/pypi/requests" --strip-components=1
    rm -rf "$t"
fi

echo "corpora/code ready:" >&2
for ext in ts tsx js rs py go; do
    n=$(find -L "$out" -name "*.$ext" -type f 2>/dev/null | wc -l)
    echo "  .$ext: $n files" >&2
done
