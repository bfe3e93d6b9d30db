#!/usr/bin/env python3
"""Cube and mixed-kernel examples of the reference (opt-in; nothing here runs in CI): the example
entry points issue 11 names, each built with `pypto build --emit-only` with the shapes its
__main__ uses, and its kernels and orchestration submits counted the way
../shared/reference/examples.json counts the reference's output:

  kernels  aic / aiv — kernel sources outside mixed groups (a mixed group's halves count as one
                        mixed submit, not as kernels, as in the reference);
  submits  aic / aiv / mixed — rt_submit_aic_task / rt_submit_aiv_task / rt_submit_task call
                        sites in the orchestration source.

With --test, every entry that builds also runs `pypto test` (build, run on the CPU runtime,
compare with the interpreter). Prints one row per entry with ours next to the reference's.

Usage: bench/cube_examples.py BUILD_DIR --ref PYPTO_CHECKOUT [--test]   (anchor: pypto e2d0f78ae)
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402  (the example commands: entries, shapes, factories)

# The examples issue 11 lists (by source path; every program of each file).
SOURCES = [
    "examples/beginner/05_matmul.py",
    "examples/intermediate/01_fused_linear.py",
    "examples/intermediate/04_matmul_acc.py",
    "examples/intermediate/05_assemble.py",
    "examples/advanced/01_split_k.py",
    "examples/advanced/02_auto_tile_matmul.py",
    "examples/advanced/03_mixed_kernel.py",
    "examples/models/01_ffn.py",
    "examples/models/04_paged_attention.py",
    "examples/models/05_paged_attention_batch.py",
    "examples/models/06_paged_attention_dynamic.py",
    "examples/models/07_paged_attention_multi_config.py",
    "examples/models/08_llama_mini.py",
    "examples/models/09_paged_attention_spmd.py",
    "examples/models/qwen3_jit/qwen3_decode.py",
]


def counts(out_dir):
    orch_dir = os.path.join(out_dir, "orchestration")
    text = ""
    for f in sorted(os.listdir(orch_dir)):
        with open(os.path.join(orch_dir, f)) as fh:
            text += fh.read()
    mixed_ids = set()
    for m in re.finditer(r"MixedKernels \w+\{([^}]*)\}", text):
        for x in m.group(1).split(","):
            x = x.strip()
            if x.isdigit():
                mixed_ids.add(int(x))
    with open(os.path.join(out_dir, "kernel_config.py")) as fh:
        cfg = fh.read()
    k = {"aic": 0, "aiv": 0}
    for m in re.finditer(r'"func_id": (\d+),.*?"core_type": "(aic|aiv)"', cfg):
        if int(m.group(1)) not in mixed_ids:
            k[m.group(2)] += 1
    s = {"aic": len(re.findall(r"\brt_submit_aic_task\(", text)), "aiv": len(re.findall(r"\brt_submit_aiv_task\(", text)),
         "mixed": len(re.findall(r"\brt_submit_task\(", text))}
    return k, s


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--ref", required=True, help="hw-native-sys/pypto checkout (e2d0f78ae)")
    ap.add_argument("--test", action="store_true", help="also run `pypto test` on every entry that builds")
    a = ap.parse_args()
    pypto = os.path.join(os.path.abspath(a.build), "pypto")
    with open(corpus.EXAMPLES_JSON) as f:
        ref = json.load(f)
    ref_counts = {}
    for ex in ref.values():
        for prog in ex["programs"]:
            ref_counts["{}:{}".format(ex["source"], prog["dir"])] = (prog["kernels"], prog["submits"])

    rows, built, matched, tested, total = [], 0, 0, 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for label, src, flags, inputs in corpus.example_commands(a.ref):
            if label.split(":")[0] not in SOURCES:
                continue
            total += 1
            out_dir = os.path.join(tmp, "p{}".format(total))
            rc, out = corpus.run([pypto, "build", src, "--emit-only", "-o", out_dir] + flags)
            rk, rs = ref_counts[label]
            ref_txt = "{}/{} {}/{}/{}".format(rk["aic"], rk["aiv"], rs["aic"], rs["aiv"], rs["mixed"])
            if rc != 0:
                rows.append((label, "no", "-", ref_txt, "-", corpus.first_error(out)))
                continue
            built += 1
            k, s = counts(out_dir)
            ours = "{}/{} {}/{}/{}".format(k["aic"], k["aiv"], s["aic"], s["aiv"], s["mixed"])
            same = k == {"aic": rk["aic"], "aiv": rk["aiv"]} and s == rs
            matched += same
            result = "-"
            if a.test:
                if any(f.startswith("--scalar") and f.endswith("=runtime") for f in flags):
                    result = "runtime scalar"
                elif label.rsplit(":", 1)[-1] in corpus.TEST_SKIP:
                    result = corpus.TEST_SKIP[label.rsplit(":", 1)[-1]]
                else:
                    tflags, tinputs = corpus.test_command(label, flags, inputs)
                    rc2, out2 = corpus.run([pypto, "test", src, "-j", "2", "-o", os.path.join(tmp, "t{}".format(total))] +
                                           tflags + corpus.input_flags(tinputs, os.path.join(tmp, "in{}".format(total))),
                                           timeout=1800)
                    result = "PASS" if rc2 == 0 else "FAIL"
                    tested += rc2 == 0
                    if rc2 != 0:
                        bad = [l for l in out2.splitlines() if "MISMATCH" in l or l.startswith("error")]
                        result += ": " + (bad[0] if bad else corpus.first_error(out2))[:100]
            rows.append((label, "yes", ours, ref_txt, "same" if same else "DIFFERENT", result))
    print("{:<62} {:>5} {:>16} {:>16} {:>9}  {}".format("entry", "build", "ours k a/v s a/v/m", "reference",
                                                        "counts", "test" if a.test else "first error"))
    for label, b, ours, r, same, extra in rows:
        print("{:<62} {:>5} {:>16} {:>16} {:>9}  {}".format(label[len("examples/"):][:62], b, ours, r, same, extra))
    print("built {}/{}; kernel and submit counts as the reference's: {}/{}{}".format(
        built, total, matched, built, "; pypto test passes: {}/{}".format(tested, built) if a.test else ""))


if __name__ == "__main__":
    main()
