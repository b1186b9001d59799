#!/usr/bin/env bash
# Type-checks mapgrep for the systems this Linux machine cannot run: Windows (x86_64, GNU ABI)
# and macOS (arm64). `cargo check` compiles every Rust line of the library, the binary, the
# tests and the benches for that target, but links nothing. Needs the Rust targets
# (`rustup target add x86_64-pc-windows-gnu aarch64-apple-darwin`) and, for Windows, MinGW's C
# compiler (Debian: gcc-mingw-w64-x86-64) for tree-sitter's C. For macOS, whose C needs an
# Apple SDK that Linux does not have, a stand-in compiler writes empty objects: the C is not
# checked there (the GitHub workflows build it on macOS). A target that is not installed is
# skipped, and said so.
set -euo pipefail
cd "$(dirname "$0")/.."
installed=$(rustup target list --installed)
if grep -qx x86_64-pc-windows-gnu <<<"$installed" && command -v x86_64-w64-mingw32-gcc >/dev/null; then
  cargo check --target x86_64-pc-windows-gnu --all-targets
else
  echo "cross_check: skipped Windows (needs the x86_64-pc-windows-gnu target and x86_64-w64-mingw32-gcc)"
fi
if grep -qx aarch64-apple-darwin <<<"$installed"; then
  stub=$(mktemp -d)
  trap 'rm -rf "$stub"' EXIT
  cat >"$stub/cc" <<'STUB'
#!/bin/sh
# Writes an empty object where one is asked for (-o FILE, -oFILE, -FoFILE).
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2 ;;
    -o*) out="${1#-o}"; shift ;;
    -Fo*) out="${1#-Fo}"; shift ;;
    *) shift ;;
  esac
done
[ -n "$out" ] && : >"$out"
exit 0
STUB
  chmod +x "$stub/cc"
  CC_aarch64_apple_darwin="$stub/cc" AR_aarch64_apple_darwin=ar CRATE_CC_NO_DEFAULTS=1 \
    cargo check --target aarch64-apple-darwin --all-targets
else
  echo "cross_check: skipped macOS (needs the aarch64-apple-darwin target)"
fi
