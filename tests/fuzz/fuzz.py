#!/usr/bin/env python3
"""Runs pypto's libFuzzer targets and turns their findings into regression inputs.

  fuzz.py run TARGET|all [--time SECONDS] [--runs N]   fuzz, one target after the other, one job each
  fuzz.py replay                                       every regression input through the fuzz binaries

TARGET is `frontend` (the front end on arbitrary bytes) or `pipeline` (the whole compiler up to
emission, on grammar-aware mutations of the test programs). The binaries come from the `fuzz`
CMake preset (`cmake --preset fuzz && cmake --build --preset fuzz`, build-fuzz/). Each target keeps
its growing corpus in WORK/corpus-TARGET (default WORK: build-fuzz/fuzz-work), seeded with
tests/fuzz/seeds/ and tests/programs/. After a run, every crash / leak / timeout / out-of-memory
input libFuzzer saved is minimised (crashes) and copied to tests/fuzz/regressions/TARGET-<sha1>.py,
which ctest's fuzz_regressions_test replays with the normal compiler; fix the compiler, then commit
the input. The run's figures (executions, coverage, corpus, findings) are printed and appended to
WORK/history.tsv. Exit status: 0 without findings, 1 with findings, 2 on usage errors.
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FUZZ_DIR = ROOT / "tests" / "fuzz"
TARGETS = {
    # name: (max input length, extra libFuzzer flags)
    "frontend": (4096, []),
    "pipeline": (32768, []),
}
FINDING_PREFIXES = ("crash-", "leak-", "timeout-", "oom-", "slow-unit-")


def binary(build: Path, target: str) -> Path:
    b = build / "tests" / "fuzz" / f"fuzz_{target}"
    if not b.exists():
        sys.exit(f"fuzz.py: {b} not found; build it with: cmake --preset fuzz && cmake --build --preset fuzz")
    return b


def last(pattern: str, text: str, default: str = "?") -> str:
    found = re.findall(pattern, text)
    return found[-1] if found else default


def run(target: str, args) -> int:
    build, work = Path(args.build).resolve(), Path(args.work).resolve()
    exe = binary(build, target)
    max_len, extra = TARGETS[target]
    corpus = work / f"corpus-{target}"
    artifacts = work / f"artifacts-{target}"
    logs = work / f"logs-{target}"
    for d in (corpus, artifacts, logs):
        d.mkdir(parents=True, exist_ok=True)
    cmd = [str(exe), "-jobs=1", "-workers=1", f"-dict={FUZZ_DIR / 'pypto.dict'}", f"-max_len={max_len}",
           f"-timeout={args.timeout}", f"-rss_limit_mb={args.rss_limit_mb}", "-print_final_stats=1",
           f"-artifact_prefix={artifacts}/", *extra]
    if args.time:
        cmd.append(f"-max_total_time={args.time}")
    if args.runs:
        cmd.append(f"-runs={args.runs}")
    cmd += [str(corpus), str(FUZZ_DIR / "seeds"), str(ROOT / "tests" / "programs")]
    stamp = time.strftime("%Y%m%d-%H%M%S")
    print(f"fuzz.py: {target}: " + " ".join(cmd), flush=True)
    before = {p.name for p in artifacts.iterdir()}
    start = time.time()
    # -jobs=1: libFuzzer runs one worker process and writes its output to fuzz-0.log in the cwd.
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    subprocess.run(cmd, cwd=logs, env=env)
    seconds = time.time() - start
    log_path = logs / "fuzz-0.log"
    log = log_path.read_text(errors="replace") if log_path.exists() else ""
    kept_log = logs / f"{stamp}.log"
    if log_path.exists():
        shutil.move(str(log_path), kept_log)
    execs = last(r"stat::number_of_executed_units:\s*(\d+)", log)
    per_sec = last(r"stat::average_exec_per_sec:\s*(\d+)", log)
    cov = last(r"\bcov: (\d+)", log)
    ft = last(r"\bft: (\d+)", log)
    corp = last(r"\bcorp: (\d+/\S+)", log)
    new = sorted(p for p in artifacts.iterdir() if p.name not in before and p.name.startswith(FINDING_PREFIXES))
    saved = [s for p in new for s in save_finding(target, exe, p, logs)]
    print(f"fuzz.py: {target}: {seconds:.0f} s, {execs} executions ({per_sec}/s), cov {cov}, ft {ft}, corpus {corp}, "
          f"{len(saved)} finding(s); log {kept_log}", flush=True)
    for s in saved:
        print(f"fuzz.py: {target}: finding -> {s.relative_to(ROOT)}")
    with open(work / "history.tsv", "a") as h:
        h.write(f"{stamp}\t{target}\t{seconds:.0f}s\t{execs}\t{per_sec}/s\tcov={cov}\tft={ft}\tcorp={corp}\t"
                f"findings={len(saved)}\t{' '.join(s.name for s in saved)}\n")
    return 1 if saved else 0


def signature(exe: Path, path: Path, logs: Path) -> str:
    """What a finding is: the sanitizer's SUMMARY line or the target's own finding line (digits and
    addresses dropped), so a minimised input can be checked to fail the same way."""
    r = subprocess.run([str(exe), str(path)], cwd=logs, capture_output=True, text=True, errors="replace")
    for line in (r.stderr + r.stdout).splitlines():
        if line.startswith(("SUMMARY:", "pypto fuzz finding")):
            return re.sub(r"0x[0-9a-f]+|\d+", "N", line)
    return f"exit status {r.returncode}"


def save_finding(target: str, exe: Path, artifact: Path, logs: Path) -> list:
    """Copies a finding into tests/fuzz/regressions/. A crash is minimised; libFuzzer keeps any
    crashing input while minimising, so a smaller input that fails differently is a second finding
    and both are kept."""
    inputs = [artifact.read_bytes()]
    if artifact.name.startswith(("crash-", "leak-")):
        minimized = logs / f"min-{artifact.name}"
        subprocess.run([str(exe), "-minimize_crash=1", "-max_total_time=120", f"-exact_artifact_path={minimized}",
                        str(artifact)], cwd=logs, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if minimized.exists() and minimized.stat().st_size > 0:
            if signature(exe, minimized, logs) == signature(exe, artifact, logs):
                inputs = [minimized.read_bytes()]
            else:
                inputs.append(minimized.read_bytes())
    out = []
    for data in inputs:
        path = FUZZ_DIR / "regressions" / f"{target}-{hashlib.sha1(data).hexdigest()[:12]}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        out.append(path)
    return out


def replay(args) -> int:
    build = Path(args.build).resolve()
    bad = 0
    for target in TARGETS:
        # The front end replays every input (the regression test does too), the pipeline its own.
        inputs = sorted(p for p in (FUZZ_DIR / "regressions").glob("*-*.py")
                        if target == "frontend" or p.name.startswith("pipeline-"))
        if not inputs:
            continue
        r = subprocess.run([str(binary(build, target)), *map(str, inputs)])
        print(f"fuzz.py: replay {target}: {len(inputs)} input(s), {'ok' if r.returncode == 0 else 'FAILED'}")
        bad += r.returncode != 0
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=str(ROOT / "build-fuzz"), help="the fuzz preset's build directory")
    ap.add_argument("--work", default=None, help="corpora, artifacts and logs (default BUILD/fuzz-work)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("target", choices=[*TARGETS, "all"])
    r.add_argument("--time", type=int, default=0, help="seconds per target (-max_total_time)")
    r.add_argument("--runs", type=int, default=0, help="executions per target (-runs)")
    r.add_argument("--timeout", type=int, default=30, help="seconds one input may take (-timeout)")
    r.add_argument("--rss-limit-mb", type=int, default=4096)
    sub.add_parser("replay")
    args = ap.parse_args()
    if args.work is None:
        args.work = str(Path(args.build) / "fuzz-work")
    if args.cmd == "replay":
        return replay(args)
    if not args.time and not args.runs:
        ap.error("give --time SECONDS and/or --runs N")
    status = 0
    for t in (TARGETS if args.target == "all" else [args.target]):
        status |= run(t, args)
    return status


if __name__ == "__main__":
    sys.exit(main())
