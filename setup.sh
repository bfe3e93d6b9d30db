#!/usr/bin/env bash
# Installs what pypto needs to build and test on Debian 12, then fetches the pinned grammar.
#   Debian packages: g++ cmake ninja-build libtree-sitter-dev libcli11-dev libfmt-dev catch2 nodejs npm
#   npm (pinned in package-lock.json): tree-sitter-python, installed with --ignore-scripts
# Run as root to install missing packages; as another user it prints the apt-get command to run.
set -euo pipefail
cd "$(dirname "$0")"

pkgs=(g++ cmake ninja-build pkg-config libtree-sitter-dev libcli11-dev libfmt-dev catch2 nodejs npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
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
