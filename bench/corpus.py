#!/usr/bin/env python3
"""Real-program corpus figures (opt-in; nothing here runs in CI): how many of the programs people
write pypto takes. Prints, side by side with the figures the issues were filed with:

  1. the reference's example entry points (hw-native-sys/pypto examples/, with the shapes their
     __main__ uses, from ../shared/reference/examples.json): `pypto check`, and `pypto build
     --emit-only`, each entry typed with --arg / --scalar, or built by its factory;
  2. pypto-lib's DSL files (examples/ + models/, not *_draft.py): `pypto check` of every entry,
     with -I for the repository root (its PYTHONPATH) and, for a value a file reads from sys.argv,
     -D with the default a run without that flag gets (ARGV_DEFAULTS); then `pypto build
     --emit-only` of every entry that checks (-v: the most common first errors of the others);
  3. with --peer DIR (the output of ../shared/tools/peer_extract.py): the parser/pass replay;
  4. with --test: `pypto test` on every reference example that emits (its numbers on the CPU
     runtime against the interpreter);
  5. with --lib-test: `pypto test` on every pypto-lib entry that emits (seeded random inputs:
     an entry whose inputs must be valid indices, such as block tables, stops at the
     interpreter's bounds check, and is counted by that error).

Usage: bench/corpus.py BUILD_DIR --ref PYPTO_CHECKOUT --lib PYPTO_LIB_CHECKOUT [--peer DIR] [-v]
Anchors: pypto e2d0f78ae, pypto-lib 634e77bd.
"""
import argparse
import json
import os
import collections
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES_JSON = os.path.join(HERE, "..", "..", "shared", "reference", "examples.json")

# Figures in the issue (issue 8) for the anchor commits, before this work.
ANCHOR = {"examples_check": "0/53", "examples_emit": "0/53", "lib_check": "7/147", "peer_accept": "168/684",
          "peer_reject": "247/252"}

# Programs built by a factory: the factory and the arguments their __main__ passes.
FACTORIES = {
    "PagedAttentionProgram": ("build_paged_attention_program",
                              "batch=64 num_heads=16 head_dim=128 block_size=128 max_num_blocks_per_req=256"),
    "BatchPagedAttentionProgram": ("BuildBatchPagedAttentionProgram",
                                   "batch=1 num_heads=16 head_dim=16 block_size=16 max_num_blocks_per_req=16"),
    "DynamicPagedAttentionProgram": ("build_dynamic_paged_attention_program", "q_tile=16 head_dim=128 block_size=128"),
    "PagedAttentionMultiConfigProgram": ("build_paged_attention_multi_config_program",
                                         "head_dim=HEAD_DIM block_size=BLOCK_SIZE"),
    "LlamaMiniProgram": ("build_llama_mini_program", ""),
    "SpmdPagedAttentionProgram": ("build_paged_attention_spmd_program",
                                  "batch=4 num_heads=16 head_dim=128 block_size=128 max_num_blocks_per_req=256"),
}
# Module values that pypto-lib files read from sys.argv or the environment (pypto evaluates
# neither): the value a run without that command-line flag / environment variable gets, as an
# expression over the module's own constants.
ARGV_DEFAULTS = {"ACTIVE_VARIANT": "pro", "TP_SIZE": "_TP_DEFAULT", "DP_SIZE": "TP_SIZE", "CP_SIZE": "CP_DEFAULT",
                 "HC_PRE_IMPL": "'separate'", "EP": "_EP_DEFAULT", "READBACK_ROW_TILE": "16",
                 "DSV4_DISABLE_MOE_RETIRE": "False", "MAX_SEQ": "M.max_seq"}

# The tolerance an example's own __main__ checks its result with, where it is looser than pypto
# test's dtype defaults (a bf16 intermediate: the FP32 accumulation order decides a few roundings).
TOLERANCES = {name: ["--rtol", "2e-2", "--atol", "2e-2"]
              for name in ("_jit_mat_split_k", "_jit_mat_full_k", "_jit_fits_l0c_full_k", "_jit_fits_l0c_split_k")}


def input_flags(inputs, d):
    """Writes `inputs` (INPUTS entries) as .npy files in the new directory d: pypto test --inputs."""
    if not inputs:
        return []
    os.makedirs(d)
    for pname, (descr, values) in inputs.items():
        write_npy_1d(os.path.join(d, pname + ".npy"), descr, values)
    return ["--inputs", d]


def test_flags(label):
    name = label.rsplit(":", 1)[-1]
    out = list(TOLERANCES.get(name, []))
    for sh in SHAPES.get(name, []):
        out += ["--shape", sh]
    return out


# Scalar values their __main__ passes (the rest stay runtime arguments).
SCALARS = {"dyn_valid_shape": {"scale": "0.5", "vlen": "64"}, "dyn_valid_shape_1": {"scale": "0.5", "vlen": "32"}}

# A second specialisation of the same entry (the reference names its output dir NAME_1).
ALIASES = {"dyn_valid_shape_1": "dyn_valid_shape"}

# Input tensors whose values must make sense (the config tensors their __main__ builds), given to
# `pypto test --inputs`: descr and values of a 1-D .npy.
INPUTS = {"_jit_dyn_valid_shape_if_else": {"cfg": ("<i8", [1, 48, 64])},
          "_jit_dyn_valid_shape_loop": {"cfg": ("<i8", [2, 48, 64])}}


def _block_table(n, blocks):  # a fixed permutation-like spread of block ids in [0, blocks)
    return [(i * 7919 + 13) % blocks for i in range(n)]


# Paged attention: block tables inside the caches and context lengths inside the tables; the
# dynamic examples at a small size (--shape below), the factory-built static ones in TEST_FACTORY.
INPUTS.update({
    "DynamicPagedAttentionProgram": {"block_table": ("<i4", _block_table(8, 8)), "context_lens": ("<i4", [300, 449])},
    # 07 reads its block table 64 entries at a time (N_UNROLL): 64 blocks of 64 rows per request.
    "PagedAttentionMultiConfigProgram": {"block_table": ("<i4", _block_table(128, 128)), "context_lens": ("<i4", [200, 1000])},
})
# `pypto test` of a factory-built example at the reference's own size can need gigabytes of
# inputs (04's KV caches are 2M rows): such an example is tested at a smaller size of the same
# program (its factory arguments and the matching inputs here); its build counts use the size above.
# config: [batch, num_heads, kv_head_num, head_dim, block_size, block_num, scale bits (1/sqrt(128)) or
# the active block count (09)].
TEST_FACTORY = {
    "PagedAttentionProgram": ("batch=2 num_heads=16 head_dim=128 block_size=128 max_num_blocks_per_req=4",
                              {"config": ("<i8", [2, 16, 1, 128, 128, 4, 1035273459]),
                               "block_table": ("<i4", _block_table(8, 8)), "context_lens": ("<i4", [256, 512])}),
    "SpmdPagedAttentionProgram": ("batch=4 num_heads=16 head_dim=128 block_size=128 max_num_blocks_per_req=4",
                                  {"config": ("<i8", [4, 16, 1, 128, 128, 4, 4]), "scale": ("<f4", [0.08838834764831845]),
                                   "block_table": ("<i4", _block_table(16, 16)),
                                   "context_lens": ("<i4", [512, 384, 256, 512])}),
}
# Not run by `pypto test` (the reason is printed): inputs too large for a routine run.
TEST_SKIP = {"_jit_qwen3_decode": "not run: 1.6 GB of BF16 weights (an 8192-wide decoder layer)"}


def test_command(label, flags, inputs):
    """The flags and inputs `pypto test` gets for an example (TEST_FACTORY, TOLERANCES, SHAPES)."""
    name = label.rsplit(":", 1)[-1]
    if name in TEST_FACTORY:
        fargs, inputs = TEST_FACTORY[name]
        kept, skip = [], False
        for f in flags:
            if skip:
                skip = False
                continue
            if f == "--factory-arg":
                skip = True
                continue
            kept.append(f)
        flags = kept + [x for a in fargs.split() for x in ("--factory-arg", a)]
    return flags + test_flags(label), inputs


# The extents of dynamically shaped entry tensors, for `pypto test --shape`.
SHAPES = {
    "DynamicPagedAttentionProgram": ["query=[32,128]", "key_cache=[1024,128]", "value_cache=[1024,128]", "out=[32,128]"],
    "PagedAttentionMultiConfigProgram": ["query=[32,128]", "key_cache=[8192,128]", "value_cache=[8192,128]", "out=[32,128]"],
}


def write_npy_1d(path, descr, values):
    import struct
    header = "{{'descr': '{}', 'fortran_order': False, 'shape': ({},), }}".format(descr, len(values))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    fmt = {"<i8": "q", "<i4": "i", "<f4": "f"}[descr]
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<{}{}".format(len(values), fmt), *values))


DTYPES = {"fp32": "FP32", "fp16": "FP16", "bfloat16": "BF16", "int32": "INT32", "int64": "INT64", "index": "INDEX",
          "int8": "INT8", "uint8": "UINT8", "bool": "BOOL"}


def run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "error: timed out after {} s".format(timeout)
    return p.returncode, p.stdout


def first_error(out):
    for line in out.splitlines():
        if line.startswith("error") or line.startswith("internal error"):
            return line[:140]
    return out.strip().splitlines()[-1][:140] if out.strip() else ""


def example_commands(ref):
    with open(EXAMPLES_JSON) as f:
        data = json.load(f)
    for key, ex in sorted(data.items()):
        src = os.path.join(ref, ex["source"])
        for prog in ex["programs"]:
            name = prog["dir"]
            flags = []
            if name in FACTORIES:
                factory, fargs = FACTORIES[name]
                flags += ["--entry", factory]
                for a in fargs.split():
                    flags += ["--factory-arg", a]
            else:
                entry = name[len("_jit_"):] if name.startswith("_jit_") else name
                scalars = SCALARS.get(entry, {})
                flags += ["--entry", ALIASES.get(entry, entry)]
                for p in prog["params"]:
                    if p["shape"] is None:
                        flags += ["--scalar", "{}={}".format(p["name"], scalars.get(p["name"], "runtime"))]
                    else:
                        dims = ",".join("?" if d < 0 else str(d) for d in p["shape"])
                        flags += ["--arg", "{}={}[{}]".format(p["name"], DTYPES.get(p["dtype"], p["dtype"]), dims)]
            yield "{}:{}".format(ex["source"], name), src, flags, INPUTS.get(name, {})


def lib_files(lib):
    out = []
    for top in ("examples", "models"):
        for root, _, files in os.walk(os.path.join(lib, top)):
            for f in files:
                if f.endswith(".py") and not f.endswith("_draft.py"):
                    p = os.path.join(root, f)
                    with open(p, errors="replace") as fh:
                        if "pypto.language" in fh.read():
                            out.append(p)
    return sorted(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--ref", required=True, help="hw-native-sys/pypto checkout (e2d0f78ae)")
    ap.add_argument("--lib", required=True, help="hw-native-sys/pypto-lib checkout (634e77bd)")
    ap.add_argument("--peer", help="directory written by ../shared/tools/peer_extract.py")
    ap.add_argument("-v", action="store_true", help="print each failure's first error")
    ap.add_argument("--lib-test", action="store_true",
                    help="also run `pypto test` on every pypto-lib entry that emits")
    ap.add_argument("--test", action="store_true",
                    help="also run `pypto test` (build, run on the CPU runtime, compare with the interpreter) on "
                         "every example that emits (slow: one project build each)")
    a = ap.parse_args()
    pypto = os.path.join(os.path.abspath(a.build), "pypto")

    checked = emitted = tested = total = 0
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, src, flags, inputs in example_commands(a.ref):
            total += 1
            rc, out = run([pypto, "check", src] + flags)
            if rc != 0:
                fails.append((label, "check", first_error(out)))
                continue
            checked += 1
            rc, out = run([pypto, "build", src, "--emit-only", "-o", os.path.join(tmp, "p{}".format(total))] + flags)
            if rc == 0:
                emitted += 1
            else:
                fails.append((label, "emit", first_error(out)))
                continue
            if a.test:
                if any(f.endswith("=runtime") for f in flags):
                    fails.append((label, "test", "a runtime scalar: pypto test binds scalars at compile time"))
                    continue
                if label.rsplit(":", 1)[-1] in TEST_SKIP:
                    fails.append((label, "test", TEST_SKIP[label.rsplit(":", 1)[-1]]))
                    continue
                tflags, tinputs = test_command(label, flags, inputs)
                extra = input_flags(tinputs, os.path.join(tmp, "in{}".format(total)))
                rc, out = run([pypto, "test", src, "-j", "2", "-o", os.path.join(tmp, "t{}".format(total))] + tflags + extra,
                              timeout=600)
                if rc == 0:
                    tested += 1
                else:
                    bad = [l for l in out.splitlines() if "MISMATCH" in l or "disagrees" in l or l.startswith("error")]
                    fails.append((label, "test", (bad[0] if bad else first_error(out))[:140]))
    files = lib_files(a.lib)
    lib_ok = 0
    argv_files = 0
    lib_entries = lib_emitted = 0
    lib_blockers = collections.Counter()  # first errors of the entries that do not emit, by kind
    emitted_entries = []
    # pypto-lib runs its files with the repository root on PYTHONPATH (docs/get-started/installation.md):
    # `from contract.base import ...`, `from golden import ...` resolve there.
    lib_root = ["-I", os.path.abspath(a.lib)]
    for f in files:
        rc, out = run([pypto, "check", f] + lib_root)
        # A value read from sys.argv / the environment: -D with the default a run without the flag
        # gets (as the diagnostic asks), then check again; only for such values (deepseek_v4_pro's
        # decode_fwd.py / prefill_fwd.py read five: config, moe, lm_head, hc_pre and their own).
        flags = []
        for _ in range(8):
            m = re.search(r"its value comes from the command line or the environment; pass -D ([\w.]+)=VALUE", out)
            if rc == 0 or not m or m.group(1).split(".")[-1] not in ARGV_DEFAULTS:
                break
            flags += ["-D", "{}={}".format(m.group(1), ARGV_DEFAULTS[m.group(1).split(".")[-1]])]
            rc, out = run([pypto, "check", f] + lib_root + flags)
        argv_files += bool(flags)
        if rc == 0:
            lib_ok += 1
        else:
            fails.append((os.path.relpath(f, a.lib), "check", first_error(out)))
            continue
        # Each entry that checks, through the whole pipeline and the emitters.
        for entry in re.findall(r"^.*?: (\w+): ok", out, re.M):
            lib_entries += 1
            with tempfile.TemporaryDirectory() as tmp:
                rc2, out2 = run([pypto, "build", f, "--entry", entry, "--emit-only", "-o", os.path.join(tmp, "o")] +
                                lib_root + flags)
            if rc2 == 0:
                lib_emitted += 1
                emitted_entries.append((f, entry, flags))
            else:
                err = first_error(out2)
                lib_blockers[re.sub(r"'[^']*'|\d+", "_", err)[:90]] += 1
                fails.append(("{}:{}".format(os.path.relpath(f, a.lib), entry), "emit", err))

    print("{:<44} {:>10} {:>10}".format("corpus", "anchor", "now"))
    print("{:<44} {:>10} {:>10}".format("reference examples: pypto check", ANCHOR["examples_check"],
                                        "{}/{}".format(checked, total)))
    print("{:<44} {:>10} {:>10}".format("reference examples: build --emit-only", ANCHOR["examples_emit"],
                                        "{}/{}".format(emitted, total)))
    if a.test:
        print("{:<44} {:>10} {:>10}".format("reference examples: pypto test (numbers)", "0/53",
                                            "{}/{}".format(tested, total)))
    print("{:<44} {:>10} {:>10}".format("pypto-lib DSL files: pypto check", ANCHOR["lib_check"],
                                        "{}/{}".format(lib_ok, len(files))))
    print("  ({} of them with -D for a value their source reads from sys.argv or the environment)".format(argv_files))
    print("{:<44} {:>10} {:>10}".format("pypto-lib entries: build --emit-only", "-",
                                        "{}/{}".format(lib_emitted, lib_entries)))
    if a.v:
        for err, n in lib_blockers.most_common(25):
            print("  {:>4}  {}".format(n, err))
    if a.lib_test:
        passed = 0
        outcomes = []
        for f, entry, flags in emitted_entries:
            try:
                rc3, out3 = run([pypto, "test", f, "--entry", entry] + lib_root + flags, timeout=900)
            except subprocess.TimeoutExpired:
                rc3, out3 = 1, "error[timeout]: over 900 s"
            name = "{}:{}".format(os.path.relpath(f, a.lib), entry)
            if rc3 == 0:
                passed += 1
                outcomes.append((name, "PASS"))
            elif re.search(r"^test: .*: FAIL", out3, re.M):
                outcomes.append((name, "FAIL (numbers differ)"))
            else:
                outcomes.append((name, first_error(out3)))
        print("{:<44} {:>10} {:>10}".format("pypto-lib entries: pypto test (numbers)", "-",
                                            "{}/{}".format(passed, len(emitted_entries))))
        for name, what in outcomes:
            print("  {}: {}".format(name, what))
    if a.peer:
        tool = os.path.join(HERE, "..", "..", "shared", "tools", "peer_run.py")
        p = subprocess.run([sys.executable, tool, pypto, a.peer, "-j", "2"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        acc = re.search(r"accept: (\d+/\d+)", p.stdout)
        rej = re.search(r"reject: (\d+/\d+)", p.stdout)
        print("{:<44} {:>10} {:>10}".format("parser replay: accept", ANCHOR["peer_accept"], acc.group(1) if acc else "?"))
        print("{:<44} {:>10} {:>10}".format("parser replay: reject located", ANCHOR["peer_reject"],
                                            rej.group(1) if rej else "?"))
    if a.v:
        for label, stage, err in fails:
            print("  {} [{}] {}".format(label, stage, err))


if __name__ == "__main__":
    main()
