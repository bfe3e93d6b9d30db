#!/usr/bin/env bash
# Prints the benchmark figures (nothing here is a pass/fail test):
#  1. front end vs raw tree-sitter parse, per test program and for a generated ~10,000-line
#     program at 1x/2x/4x size (target: within 2x of the raw parse, linear in size);
#  2. `pypto build --emit-only` time per end-to-end program (best of 5);
#  3. bin/run wall time (executor, best of 5) beside the plain C++ reference loop doing the same
#     math (best of 20).
# Usage: bench/run.sh [build-dir]   (default: build). Run on an otherwise idle machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
cmake --build "$build" --target pypto refcheck pypto_bench_frontend pypto_bench_reference >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== 1. front end vs raw tree-sitter parse (best of 5)"
"$build/bench/pypto_bench_frontend" "$root"/tests/programs/*.py

best_of() {  # best_of N cmd...: best wall time in ms of N runs
  local n=$1; shift; local best=
  for _ in $(seq "$n"); do
    local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
    local ms=$(( (t1 - t0) / 1000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  printf "%d.%03d" $((best / 1000)) $((best % 1000))
}

echo
echo "== 2. pypto build --emit-only (best of 5)   3. bin/run vs plain C++ loop"
printf "%-20s %14s %16s %18s\n" program "emit-only ms" "bin/run ms" "C++ loop ms"
while read -r name file scalars; do
  out="$work/$name"
  emit=$(best_of 5 "$build/pypto" build "$root/tests/programs/$file" -o "$out" --emit-only)
  "$build/pypto" build "$root/tests/programs/$file" -o "$out" >/dev/null
  best_run=
  for _ in 1 2 3 4 5; do
    # shellcheck disable=SC2086  # $scalars is a list of --scalar K=V words
    ms=$("$out/bin/run" --seed 1 --outputs "$out/results" $scalars | sed -n 's/.*, \([0-9.]*\) ms$/\1/p')
    if [ -z "$best_run" ] || awk "BEGIN{exit !($ms < $best_run)}"; then best_run=$ms; fi
  done
  ref=$("$build/bench/pypto_bench_reference" "$name" "$out/results")
  printf "%-20s %14s %16s %18s\n" "$name" "$emit" "$best_run" "$ref"
done < <("$build/tests/refcheck" --list)
