#!/usr/bin/env bash
# Installs real Kotlin, Ruby, PHP, Swift and Scala trees into corpora/langs-b/ (git-ignored)
# for file_read's parse check (`cargo test --release --lib langs_b_parse_real_trees --
# --ignored --nocapture` and the definition sets of benchmarks/defs/): Debian source
# packages (kotlin, scala, ruby3.1, rails, php-symfony, kotlinx-coroutines; `apt-get
# source`, with a deb-src entry added beside the system's Debian entry when there is none)
# and npm packages that ship iOS Swift and Android Kotlin sources (expo-modules-core,
# react-native-screens, @capacitor/ios, react-native-vision-camera).
# Usage: bash corpora/fetch_langs_b.sh   (as root, or with sudo)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/langs-b"
mkdir -p "$out/debian" "$out/npm"
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"

# deb-src: `apt-get source` needs source indexes; add them for the Debian suites in use.
if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    src=/etc/apt/sources.list.d/debian.sources
    if [ -f "$src" ]; then
        sed 's/^Types: deb$/Types: deb-src/' "$src" | $sudo tee /etc/apt/sources.list.d/mapgrep-deb-src.sources >/dev/null
    else
        grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
            | $sudo tee /etc/apt/sources.list.d/mapgrep-deb-src.list >/dev/null
    fi
    $sudo apt-get update >&2
fi
command -v dpkg-source >/dev/null || $sudo apt-get install -y dpkg-dev >&2

# Source packages: Kotlin's compiler and standard library, Scala's, Ruby's standard library,
# Rails and Symfony; kotlinx.coroutines (1.0.1).
cd "$out/debian"
# (Source package names: Symfony's is `symfony`, whose binaries are php-symfony-*.)
for pkg in kotlin scala ruby3.1 rails symfony kotlinx-coroutines; do
    if ! ls -d "$pkg"-*/ >/dev/null 2>&1; then
        # The security suite's pool may lack a source the index lists: then bookworm's own.
        # When only the packaging part is missing from the pool (kotlinx-coroutines' Debian
        # tarball), the upstream tarball alone is unpacked.
        if apt-get source --download-only "$pkg" >&2 \
            || apt-get source --download-only "$pkg/bookworm" >&2; then
            dsc="$(ls "$pkg"_*.dsc | tail -n 1)"
            dpkg-source --no-check -x "$dsc" >&2
        elif orig="$(ls "$pkg"_*.orig.tar.* 2>/dev/null | tail -n 1)" && [ -n "$orig" ]; then
            ver="${orig#"$pkg"_}"; ver="${ver%.orig.tar.*}"
            mkdir -p "$pkg-$ver"
            tar -xf "$orig" -C "$pkg-$ver" --strip-components=1
        else
            echo "warning: no source package for $pkg" >&2; continue
        fi
        rm -f "$pkg"_*.tar.* "$pkg"_*.dsc "$pkg"_*.diff.gz
    fi
done

# Swift (and more Kotlin): React Native modules with iOS and Android sources.
cd "$out/npm"
for pkg in expo-modules-core@2.2.3 react-native-screens@4.4.0 @capacitor/ios@6.2.0 \
    react-native-vision-camera@4.6.3; do
    name="${pkg%@*}"
    name="${name#@}"; name="${name//\//-}"  # @capacitor/ios → capacitor-ios
    if [ ! -d "$name" ]; then
        tgz="$(npm pack --silent "$pkg")"
        mkdir -p "$name"
        tar -xzf "$tgz" -C "$name" --strip-components=1
        rm -f "$tgz"
    fi
done

echo "corpora/langs-b ready:" >&2
for ext in kt kts rb php swift scala sc; do
    n=$(find -L "$out" -name "*.$ext" -type f 2>/dev/null | wc -l)
    echo "  .$ext: $n files" >&2
done
