#!/usr/bin/env bash
# Prints the benchmark figures (nothing here is a pass/fail test):
#  1. front end vs raw tree-sitter parse, per test program and for a generated ~10,000-line
#     program at 1x/2x/4x size (target: within 2x of the raw parse, linear in size);
#  2. `pypto build --emit-only` time per end-to-end program (best of 5);
#  3. bin/run wall time (executor, best of 5) beside the plain C++ reference loop doing the same
#     math (best of 20);
#  4. generated-project build time, `ninja -j2` after `pypto build --emit-only` (best of 3), for a
#     chain of 1 and of 5 vector kernels: the one-kernel project and the cost of each further
#     kernel (targets on a 2-core machine: <= 1.5 s and <= 0.5 s). No launcher (ccache) is used;
#  5. whole-process bin/run beside numpy doing the same math (bench/vs_numpy.sh: elementwise, row
#     reductions, softmax, 1024^3 GEMM, per-task dispatch cost), where hyperfine and numpy exist;
#  6. the fast paths' rounding against the element loops they replaced, in ulps (simd_ulps.cpp).
# Compile speed on real programs needs their checkouts: bench/compile_speed.py.
# Usage: bench/run.sh [build-dir]   (default: build). Run on an otherwise idle machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
cmake --build "$build" --target pypto refcheck pypto_bench_frontend pypto_bench_reference pypto_bench_simd_ulps >/dev/null
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
done < <("$build/bench/refcheck" --list)

echo
echo "== 4. project build: ninja -j2 after pypto build --emit-only (best of 3, no launcher)"
chain_program() {  # chain_program K: K elementwise kernels, each reading the previous one's output
  local k=$1 i
  echo "import pypto.language as pl"
  for ((i = 0; i < k; i++)); do
    printf '\n\n@pl.jit.incore\ndef k%d(\n    x: pl.Tensor[[64, 128], pl.FP32],\n' "$i"
    printf '    y: pl.Out[pl.Tensor[[64, 128], pl.FP32]],\n):\n'
    printf '    t = pl.load(x, [0, 0], [64, 128])\n    pl.store(pl.add(pl.mul(t, %d.0), 1.0), [0, 0], y)\n    return y\n' "$((i + 2))"
  done
  printf '\n\n@pl.jit\ndef chain%d(\n    x: pl.Tensor[[64, 128], pl.FP32],\n' "$k"
  printf '    out: pl.Out[pl.Tensor[[64, 128], pl.FP32]],\n):\n    t0 = x\n'
  for ((i = 0; i < k; i++)); do
    if ((i + 1 < k)); then
      printf '    t%d = pl.create_tensor([64, 128], pl.FP32)\n    t%d = k%d(t%d, t%d)\n' "$((i + 1))" "$((i + 1))" "$i" "$i" "$((i + 1))"
    else
      printf '    out = k%d(t%d, out)\n' "$i" "$i"
    fi
  done
  echo "    return out"
}
project_build_ms() {  # project_build_ms K: best of 3 full builds of the K-kernel project, in ms
  local k=$1 best= t0 t1 ms
  chain_program "$k" >"$work/chain$k.py"
  for _ in 1 2 3; do
    rm -rf "$work/chain$k"  # a full build: no objects left from the previous round
    env -u PYPTO_COMPILER_LAUNCHER "$build/pypto" build "$work/chain$k.py" -o "$work/chain$k" --emit-only >/dev/null
    t0=$(date +%s%N); ninja -C "$work/chain$k" -j2 >/dev/null; t1=$(date +%s%N)
    ms=$(( (t1 - t0) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  "$work/chain$k/bin/run" --seed 1 >/dev/null  # the project works
  echo "$best"
}
one=$(project_build_ms 1)
five=$(project_build_ms 5)
pch=$(sed -n 's/^kernelpch = -include \([^ ]*\).*/\1/p' "$work/chain1/build.ninja")
printf "%-36s %8s ms\n" "1-kernel project" "$one" "5-kernel project" "$five" \
  "each further kernel ((5k - 1k) / 4)" "$(( (five - one) / 4 ))"
echo "kernel PCH: ${pch:-not used (\$CXX is not the compiler pypto was built with)}"

echo
echo "== 5. whole processes: bin/run vs numpy (bench/vs_numpy.sh)"
if command -v hyperfine >/dev/null && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  "$root/bench/vs_numpy.sh" "$build"
else
  echo "skipped: needs hyperfine and /usr/bin/python3 with numpy (Debian hyperfine, python3-numpy)"
fi

echo
echo "== 6. fast-path rounding vs the element loops"
"$build/bench/pypto_bench_simd_ulps"
