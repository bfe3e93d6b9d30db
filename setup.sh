#!/usr/bin/env bash
# Installs what pypto needs to build and test on Debian 12, then fetches the pinned grammar.
#   Debian packages: g++ cmake ninja-build make pkg-config libtree-sitter-dev libcli11-dev libfmt-dev
#                    catch2 nlohmann-json3-dev libdtl-dev libhwy-dev libopenblas0 npm (which brings nodejs)
#   npm (pinned in package-lock.json): tree-sitter-python, installed with --ignore-scripts
# Run as root to install missing packages; as another user it prints the apt-get command to run.
set -euo pipefail
cd "$(dirname "$0")"

# Each requirement: how to tell it is there, and the Debian package that provides it. Tools are
# checked by command (a Node.js from another source that brings its own npm is fine), libraries
# by package.
missing=()
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" || missing+=("$1"); }
need_cmd g++ g++
need_cmd cmake cmake
need_cmd ninja ninja-build
need_cmd make make  # tests/integration/make
need_cmd pkg-config pkg-config
need_cmd npm npm
need_pkg libtree-sitter-dev
need_pkg libcli11-dev
need_pkg libfmt-dev
need_pkg catch2
need_pkg nlohmann-json3-dev
need_pkg libdtl-dev    # the build report's diffs (header-only)
need_pkg libhwy-dev    # the CPU runtime's SIMD tile kernels
need_pkg libopenblas0  # the CPU runtime's TMATMUL (loaded at run time)
if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if [ ! -f node_modules/tree-sitter-python/src/parser.c ]; then
  echo "setup: npm ci --ignore-scripts (tree-sitter-python grammar)"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
fi
echo "setup: ok"
