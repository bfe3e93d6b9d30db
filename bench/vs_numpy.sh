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

numpy_script() {  # numpy_script CASE: the numpy side, reading $1 (inputs dir), writing $2 (outputs dir)
  echo 'import sys, numpy as np'
  echo 'i, o = sys.argv[1], sys.argv[2]'
  case $1 in
    elementwise) echo 'a = np.load(i + "/a.npy"); b = np.load(i + "/b.npy")'
                 echo 'np.save(o + "/y.npy", np.exp(a) * b + a)' ;;
    row_reduce) echo 'a = np.load(i + "/a.npy")'
                echo 'np.save(o + "/s.npy", a.sum(axis=1, keepdims=True)); np.save(o + "/m.npy", a.max(axis=1, keepdims=True))' ;;
    softmax) echo 'a = np.load(i + "/a.npy")'
             echo 'e = np.exp(a - a.max(axis=1, keepdims=True)); np.save(o + "/y.npy", e / e.sum(axis=1, keepdims=True))' ;;
    gemm) echo 'a = np.load(i + "/a.npy").astype(np.float32); b = np.load(i + "/b.npy").astype(np.float32)'
          echo 'np.save(o + "/c.npy", a @ b)' ;;
    task_chain) echo 'x = np.load(i + "/x.npy")'
                echo 'y = x.copy()'
                echo 'for _ in range(2000): y = y + np.float32(1.0)'
                echo 'np.save(o + "/y.npy", y)' ;;
  esac
}
outputs_of() {
  case $1 in row_reduce) echo "s m" ;; gemm) echo c ;; *) echo y ;; esac
}

printf "%-12s %12s %12s %8s %14s %s\n" case "bin/run ms" "numpy ms" ratio "max err/|y|" "bin/run's own execution (no I/O)"
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
  tasks=$("$d/bin/run" --inputs "$d/in" --outputs "$d/out_run" | sed -n 's/.* \([0-9]*\) tasks.*/\1/p')
  "$py" - "$d" "$c" "$exec_ms" "${tasks:-0}" $(outputs_of "$c") <<'EOF'
import json, sys, numpy as np
d, case, exec_ms, tasks, outs = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
t = json.load(open(d + "/t.json"))["results"]
run_ms, np_ms = t[0]["mean"] * 1e3, t[1]["mean"] * 1e3
err = 0.0  # max |bin/run - numpy| relative to the largest |numpy| value of that output
for o in outs:
    x = np.load(f"{d}/out_run/{o}.npy").astype(np.float64); y = np.load(f"{d}/out_np/{o}.npy").astype(np.float64)
    err = max(err, float(np.max(np.abs(x - y)) / max(float(np.max(np.abs(y))), 1e-30)))
extra = f"{exec_ms:.1f} ms"
if tasks:
    extra += f", {tasks} tasks, {exec_ms * 1e3 / tasks:.1f} us/task"
print(f"{case:<12} {run_ms:12.1f} {np_ms:12.1f} {run_ms / np_ms:7.2f}x {err:14.2e} {extra}")
EOF
done
