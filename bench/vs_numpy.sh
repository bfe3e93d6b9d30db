#!/usr/bin/env bash
# Prints, side by side, whole-process times of a generated project's bin/run and of numpy doing
# the same math (nothing here is a pass/fail test). Each case is a program in bench/programs/:
# bin/run reads the .npy inputs, computes and writes the outputs; numpy does np.load, the math
# and np.save. Timed with hyperfine (mean of 10 runs after 2 warm-ups); the outputs are compared
# (max |difference| over the largest |numpy value|) so that both sides provably did the same work.
#   elementwise   y = exp(a) * b + a          8192 x 512 FP32, 512 tasks
#   row_reduce    row sum and row max          8192 x 512 FP32, 512 tasks
#   softmax       row softmax                  8192 x 512 FP32, 512 tasks
#   gemm          c = a @ b, 1024^3            FP16 operands (numpy: widened to FP32, OpenBLAS
#                                              sgemm), FP32 result, 64 tasks of 128 x 128 x 1024
#   task_chain    2000 dependent tiny tasks    bin/run's own execution time / task = dispatch cost
# Needs: hyperfine, /usr/bin/python3 with numpy (Debian hyperfine, python3-numpy; numpy uses
# Debian's OpenBLAS). Usage: bench/vs_numpy.sh [build-dir] [case...]   (default: build, all cases)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
shift || true
cases=("$@")
((${#cases[@]})) || cases=(elementwise row_reduce softmax gemm task_chain)
py=/usr/bin/python3
command -v hyperfine >/dev/null || { echo "vs_numpy: needs hyperfine (Debian: hyperfine)" >&2; exit 1; }
"$py" -c 'import numpy' 2>/dev/null || { echo "vs_numpy: needs numpy for $py (Debian: python3-numpy)" >&2; exit 1; }
cmake --build "$build" --target pypto >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# numpy_script CASE: the numpy side, reading $1 (inputs dir), writing $2 (outputs dir); with a
# third argument it instead prints the math alone, in ms (best of 5, in process: no start-up, no
# I/O), the figure beside bin/run's own execution time.
numpy_script() {
  echo 'import sys, time, numpy as np'
  echo 'i, o = sys.argv[1], sys.argv[2]'
  case $1 in
    elementwise) echo 'a = np.load(i + "/a.npy"); b = np.load(i + "/b.npy")'
                 echo 'def math(): return {"y": np.exp(a) * b + a}' ;;
    row_reduce) echo 'a = np.load(i + "/a.npy")'
                echo 'def math(): return {"s": a.sum(axis=1, keepdims=True), "m": a.max(axis=1, keepdims=True)}' ;;
    softmax) echo 'a = np.load(i + "/a.npy")'
             echo 'def math():'
             echo '    e = np.exp(a - a.max(axis=1, keepdims=True)); return {"y": e / e.sum(axis=1, keepdims=True)}' ;;
    gemm) echo 'a16 = np.load(i + "/a.npy"); b16 = np.load(i + "/b.npy")'
          echo 'def math(): return {"c": a16.astype(np.float32) @ b16.astype(np.float32)}' ;;
    task_chain) echo 'x = np.load(i + "/x.npy")'
                echo 'def math():'
                echo '    y = x.copy()'
                echo '    for _ in range(2000): y = y + np.float32(1.0)'
                echo '    return {"y": y}' ;;
  esac
  echo 'if len(sys.argv) > 3:'
  echo '    best = 1e9'
  echo '    for _ in range(5): t = time.perf_counter(); math(); best = min(best, time.perf_counter() - t)'
  echo '    print(best * 1e3)'
  echo 'else:'
  echo '    for k, v in math().items(): np.save(o + "/" + k + ".npy", v)'
}
outputs_of() {
  case $1 in row_reduce) echo "s m" ;; gemm) echo c ;; *) echo y ;; esac
}

echo "whole processes (bin/run reads, computes, writes; numpy: start-up, np.load, math, np.save), then"
echo "the math alone (bin/run's own execution time vs numpy's math in process, best of 5):"
printf "%-12s %11s %10s %7s | %10s %10s %7s | %12s %s\n" case "bin/run ms" "numpy ms" ratio "exec ms" "math ms" ratio \
  "max err/|y|" "tasks, exec / task"

for c in "${cases[@]}"; do
  d="$work/$c"
  "$build/pypto" build "$root/bench/programs/$c.py" -o "$d" >/dev/null
  mkdir -p "$d/in" "$d/out_run" "$d/out_np"
  "$d/bin/run" --seed 1 --outputs "$d/in" >/dev/null  # generated inputs (and outputs) as .npy
  for o in $(outputs_of "$c"); do rm -f "$d/in/$o.npy"; done
  numpy_script "$c" >"$d/np.py"
  hyperfine -N --warmup 2 --runs 10 --export-json "$d/t.json" \
    "$d/bin/run --inputs $d/in --outputs $d/out_run" "$py $d/np.py $d/in $d/out_np" >/dev/null 2>&1
  exec_ms=$("$d/bin/run" --inputs "$d/in" --outputs "$d/out_run" | sed -n 's/.*, \([0-9.]*\) ms$/\1/p')
  for _ in 1 2 3 4; do  # best of 5
    ms=$("$d/bin/run" --inputs "$d/in" --outputs "$d/out_run" | sed -n 's/.*, \([0-9.]*\) ms$/\1/p')
    if awk "BEGIN{exit !($ms < $exec_ms)}"; then exec_ms=$ms; fi
  done
  tasks=$("$d/bin/run" --inputs "$d/in" --outputs "$d/out_run" | sed -n 's/.* \([0-9]*\) tasks.*/\1/p')
  math_ms=$("$py" "$d/np.py" "$d/in" "$d/out_np" time)
  "$py" - "$d" "$c" "$exec_ms" "${tasks:-0}" "$math_ms" $(outputs_of "$c") <<'EOF'
import json, sys, numpy as np
d, case, exec_ms, tasks, math_ms = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
outs = sys.argv[6:]
t = json.load(open(d + "/t.json"))["results"]
run_ms, np_ms = t[0]["mean"] * 1e3, t[1]["mean"] * 1e3
err = 0.0  # max |bin/run - numpy| relative to the largest |numpy| value of that output
for o in outs:
    x = np.load(f"{d}/out_run/{o}.npy").astype(np.float64); y = np.load(f"{d}/out_np/{o}.npy").astype(np.float64)
    err = max(err, float(np.max(np.abs(x - y)) / max(float(np.max(np.abs(y))), 1e-30)))
extra = f"{tasks} tasks, {exec_ms * 1e3 / tasks:.1f} us/task" if tasks else ""
print(f"{case:<12} {run_ms:11.1f} {np_ms:10.1f} {run_ms / np_ms:6.2f}x | {exec_ms:10.1f} {math_ms:10.1f} "
      f"{exec_ms / math_ms:6.2f}x | {err:12.2e} {extra}")
EOF
done
