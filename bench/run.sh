#!/usr/bin/env bash
# Prints the benchmark figures: front-end time vs raw tree-sitter parse (issue: foundation),
# `pypto build --emit-only` time per program, and bin/run time beside a plain C++ loop
# (issue: vertical slice). Usage: bench/run.sh [build-dir]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
cmake --build "$build" --target pypto pypto_bench_frontend >/dev/null
echo "== front end vs raw tree-sitter parse (best of 5)"
"$build/bench/pypto_bench_frontend" "$root"/tests/programs/*.py
if [ -x "$root/bench/build_bench.sh" ]; then "$root/bench/build_bench.sh" "$build"; fi
