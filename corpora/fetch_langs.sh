#!/usr/bin/env bash
# Installs real source trees in C++, Java, C# and shell for file_read's checks (the parse and
# partition test over real trees, parse speed per language) into corpora/langs/ (git-ignored).
# C comes from the Linux tree (corpora/fetch_linux.sh).
#   cpp/boost      Boost 1.81 headers (Debian's libboost1.81-dev, unpacked, not installed)
#   cpp/libstdc++  the system's libstdc++ headers (a link; Debian's libstdc++-12-dev)
#   java/          OpenJDK 17's java.base sources (Debian's openjdk-17-source src.zip)
#   csharp/        pythonnet's C# runtime (its source distribution on PyPI)
#   sh/            bash-completion's scripts (Debian's bash-completion, unpacked), each
#                  copied with a .bash name, since completion scripts have no extension
#   sh-raw/        the same scripts under their real names, without extension
#                  (bash_completion, completions/ssh...), and initramfs-tools' shell files
#                  (Debian's initramfs-tools-core, unpacked): hook-functions, scripts/functions,
#                  init, mkinitramfs, update-initramfs; the shapes a lookup must know without
#                  an extension (a `#!` line, or none for a sourced file)
# Usage: bash corpora/fetch_langs.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/langs"
tmp="$out/.debs"
mkdir -p "$out"/{cpp,java,csharp,sh,sh-raw} "$tmp"

apt_download() { # package → its .deb in $tmp
    (cd "$tmp" && { ls "$1"_*.deb >/dev/null 2>&1 || apt-get download "$1" >&2 ||
        { apt-get update >&2 && apt-get download "$1" >&2; }; })
    ls "$tmp/$1"_*.deb | head -1
}

if [ ! -d "$out/cpp/boost" ]; then
    deb="$(apt_download libboost1.81-dev)"
    dpkg-deb -x "$deb" "$tmp/boost"
    mv "$tmp/boost/usr/include/boost" "$out/cpp/boost"
fi
for d in /usr/include/c++/*/; do
    [ -d "$d" ] && ln -sfn "$d" "$out/cpp/libstdc++" && break
done

if [ ! -d "$out/java/java.base" ]; then
    deb="$(apt_download openjdk-17-source)"
    dpkg-deb -x "$deb" "$tmp/jdk"
    zip="$(find "$tmp/jdk" -name src.zip | head -1)"
    python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith("java.base/")])' "$zip" "$out/java"
fi

if [ ! -d "$out/csharp/pythonnet" ]; then
    python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$tmp" pythonnet==3.0.5 >&2
    mkdir -p "$out/csharp/pythonnet"
    tar -xzf "$tmp"/pythonnet-3.0.5.tar.gz -C "$out/csharp/pythonnet" --strip-components=1
fi

if [ ! -d "$out/sh/completions" ]; then
    deb="$(apt_download bash-completion)"
    dpkg-deb -x "$deb" "$tmp/bc"
    mkdir -p "$out/sh/completions"
    for f in "$tmp"/bc/usr/share/bash-completion/completions/*; do
        [ -f "$f" ] && [ ! -L "$f" ] && cp "$f" "$out/sh/completions/$(basename "$f").bash"
    done
    cp "$tmp/bc/usr/share/bash-completion/bash_completion" "$out/sh/bash_completion.bash"
fi
if [ ! -d "$out/sh-raw/bash-completion" ]; then
    [ -d "$tmp/bc" ] || dpkg-deb -x "$(apt_download bash-completion)" "$tmp/bc"
    mkdir -p "$out/sh-raw/bash-completion/completions"
    for f in "$tmp"/bc/usr/share/bash-completion/completions/*; do
        [ -f "$f" ] && [ ! -L "$f" ] && cp "$f" "$out/sh-raw/bash-completion/completions/"
    done
    cp "$tmp/bc/usr/share/bash-completion/bash_completion" "$out/sh-raw/bash-completion/"
fi

if [ ! -d "$out/sh-raw/initramfs-tools" ]; then
    deb="$(apt_download initramfs-tools-core)"
    dpkg-deb -x "$deb" "$tmp/itc"
    it="$out/sh-raw/initramfs-tools"
    mkdir -p "$it/sbin"
    cp -r "$tmp/itc/usr/share/initramfs-tools/." "$it/"
    for f in mkinitramfs update-initramfs unmkinitramfs lsinitramfs; do
        [ -f "$tmp/itc/usr/sbin/$f" ] && cp "$tmp/itc/usr/sbin/$f" "$it/sbin/"
    done
fi
rm -rf "$tmp"

echo "corpora/langs ready:" >&2
for ext in h hpp java cs bash; do
    n=$(find -L "$out" -name "*.$ext" -type f 2>/dev/null | wc -l)
    echo "  .$ext: $n files" >&2
done
n=$(find -L "$out/sh-raw" -type f ! -name "*.*" 2>/dev/null | wc -l)
echo "  sh-raw, no extension: $n files" >&2
