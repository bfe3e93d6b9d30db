// The CPU runtime's checkers on generated projects, as `bin/run` reports them: --check-races
// catching a deliberately unordered pair of tasks (a write after a read) and passing its ordered
// twin, --check-syncs catching a kernel with one wait_flag removed, and the always-on GM bounds
// check stopping a load past the end of a tensor, and deps= ordering a write after a read that
// its undeclared twin leaves unordered — each message naming tasks, kernels and DSL
// source lines through the program table. Two project builds (one per entry) and one rebuild of
// a copied project with an edited kernel.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <string>

#include "cli/cli_util.h"

namespace fs = std::filesystem;
using namespace clitest;

namespace {

// `racy` overwrites tmp (refill) while nothing orders it after the task reading tmp (use);
// `ordered` makes refill read what use wrote, which orders it. `peek` loads 16 rows from a
// runtime row offset: past row 48 it leaves x.
const char* const kProgram = R"(# Programs of tests/e2e/run_checkers_test.cpp.
import pypto.language as pl

R = 64
C = 128
B = 16


@pl.jit.incore
def fill(x: pl.Tensor[[R, C], pl.FP32], tmp: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
    t = pl.load(x, [0, 0], [R, C])  # fill-load
    pl.store(pl.mul(t, 2.0), [0, 0], tmp)  # fill-store
    return tmp


@pl.jit.incore
def use(tmp: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
    t = pl.load(tmp, [0, 0], [R, C])  # use-load
    pl.store(pl.add(t, 1.0), [0, 0], out)
    return out


@pl.jit.incore
def refill(src: pl.Tensor[[R, C], pl.FP32], tmp: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
    t = pl.load(src, [0, 0], [R, C])
    pl.store(pl.mul(t, 3.0), [0, 0], tmp)  # refill-store
    return tmp


@pl.jit.incore
def peek(x: pl.Tensor[[R, C], pl.FP32], row: pl.Scalar[pl.INDEX], part: pl.Out[pl.Tensor[[B, C], pl.FP32]]):
    t = pl.load(x, [row, 0], [B, C])  # peek-load
    pl.store(t, [0, 0], part)
    return part


@pl.jit
def racy(
    x: pl.Tensor[[R, C], pl.FP32],
    row: pl.Scalar[pl.INDEX],
    out: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    out2: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    part: pl.Out[pl.Tensor[[B, C], pl.FP32]],
):
    tmp = pl.create_tensor([R, C], pl.FP32)
    tmp = fill(x, tmp)
    out = use(tmp, out)  # racy-use
    tmp = refill(x, tmp)  # racy-refill: nothing orders it after use
    out2 = use(tmp, out2)
    part = peek(x, row, part)  # racy-peek
    return out, out2, part


@pl.jit
def ordered(
    x: pl.Tensor[[R, C], pl.FP32],
    out: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    out2: pl.Out[pl.Tensor[[R, C], pl.FP32]],
):
    tmp = pl.create_tensor([R, C], pl.FP32)
    tmp = fill(x, tmp)
    out = use(tmp, out)
    tmp = refill(out, tmp)  # reads what use wrote, so it runs after it
    out2 = use(tmp, out2)
    return out, out2
)";

// "checkers.py:<line of the program line containing `marker`>".
std::string at(const std::string& marker) {
  const std::string text(kProgram);
  const size_t pos = text.find(marker);
  REQUIRE(pos != std::string::npos);
  return fmt::format("checkers.py:{}", 1 + std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

const fs::path& source() {
  static const fs::path p = [] {
    fs::path d = work("checkers");
    fs::create_directories(d);
    std::ofstream(d / "checkers.py") << kProgram;
    return d / "checkers.py";
  }();
  return p;
}

fs::path build(const std::string& entry, const std::string& extra = "") {
  fs::path out = work("proj_" + entry);
  if (!fs::exists(out / ".pypto-project")) fs::remove_all(out);
  auto r = pypto(fmt::format("build '{}' --entry {} {} -o '{}'", source().string(), entry, extra, out.string()));
  INFO(r.out);
  REQUIRE(r.code == 0);
  return out;
}

const fs::path& racy() {
  static const fs::path p = build("racy", "--scalar row=runtime");
  return p;
}
const fs::path& ordered() {
  static const fs::path p = build("ordered");
  return p;
}

Run run(const fs::path& proj, const std::string& args) {
  return shell(fmt::format("'{}/bin/run' --seed 3 {} 2>&1", proj.string(), args));
}

// A test program and its twin without `dependency` (a deps= entry), each built into a project:
// {as written, twin}.
std::pair<fs::path, fs::path> with_and_without(const std::string& program, const std::string& dependency) {
  const std::string text = slurp(fs::path(PYPTO_TEST_PROGRAMS) / (program + ".py"));
  const size_t pos = text.find(dependency);
  REQUIRE(pos != std::string::npos);
  fs::path d = work(program);
  fs::create_directories(d);
  std::ofstream(d / "stated.py") << text;
  std::ofstream(d / "dropped.py") << text.substr(0, pos) + text.substr(pos + dependency.size());
  auto project = [&](const std::string& name) {
    fs::path out = work(program + "_" + name);
    if (!fs::exists(out / ".pypto-project")) fs::remove_all(out);
    auto r = pypto(fmt::format("build '{}' -o '{}'", (d / (name + ".py")).string(), out.string()));
    INFO(r.out);
    REQUIRE(r.code == 0);
    return out;
  };
  return {project("stated"), project("dropped")};
}

}  // namespace

TEST_CASE("--check-races catches an unordered write-after-read and passes its ordered twin", "[checkers]") {
  auto plain = run(racy(), "--scalar row=0");
  INFO(plain.out);
  CHECK(plain.code == 0);  // our executor orders write-after-read: the numbers are right on the CPU

  auto r = run(racy(), "--scalar row=0 --check-races");
  INFO(r.out);
  CHECK(r.code != 0);
  CHECK_THAT(r.out, Catch::Contains("run: check-races: task 1 (submitted at " + at("# racy-use") +
                                    ", orchestration/racy.cpp:") &&
                        Catch::Contains(") reads 'tmp' (INPUT argument 0 of kernel 'use') in TLOAD at " + at("# use-load") +
                                        " (kernels/aiv/use.cpp:") &&
                        Catch::Contains("; task 2 (submitted at " + at("# racy-refill")) &&
                        Catch::Contains(") writes 'tmp' (INOUT argument 1 of kernel 'refill') in TSTORE at " +
                                        at("# refill-store") + " (kernels/aiv/refill.cpp:") &&
                        Catch::Contains("a write after a read is never ordered by tensor regions"));
  CHECK_THAT(r.out, Catch::Contains("run: error: --check-races found 1 problem"));

  auto twin = run(ordered(), "--check-races --check-syncs");
  INFO(twin.out);
  CHECK(twin.code == 0);
  CHECK_THAT(twin.out, !Catch::Contains("check-races:"));
}

TEST_CASE("GM bounds: a load past the end of a tensor stops the run", "[checkers]") {
  auto ok = run(racy(), "--scalar row=48");  // rows 48..63: the last block inside x
  INFO(ok.out);
  CHECK(ok.code == 0);
  auto bad = run(racy(), "--scalar row=56");
  INFO(bad.out);
  CHECK(bad.code != 0);
  CHECK_THAT(bad.out, Catch::Contains("run: error: pto-sim error in task 4 (submitted at " + at("# racy-peek")) &&
                          Catch::Contains("kernel 'peek' (func_id 3, " + at("def peek")) &&
                          Catch::Contains("TLOAD at " + at("# peek-load") + " (kernels/aiv/peek.cpp:") &&
                          Catch::Contains("TLOAD reads GM outside the tensors the kernel was given") &&
                          Catch::Contains("elements [7168, 9216) (a [16, 128] block) of the buffer of tensor argument 0 'x'") &&
                          Catch::Contains("FLOAT32 [64, 128] = elements [0, 8192) of its 8192-element buffer"));
  CHECK_THAT(bad.out, !Catch::Contains("Segmentation") && !Catch::Contains("fatal signal"));
}

TEST_CASE("--check-syncs catches a kernel with one wait_flag removed", "[checkers]") {
  // A copy of the ordered project whose fill kernel lost the wait_flag before its TMULS.
  const fs::path proj = work("proj_ordered_nowait");
  fs::remove_all(proj);
  REQUIRE(shell(fmt::format("cp -a '{}' '{}' 2>&1", ordered().string(), proj.string())).code == 0);
  const fs::path kernel = proj / "kernels/aiv/fill.cpp";
  std::string text = slurp(kernel);
  const std::string wait = "    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n";
  const size_t pos = text.find(wait);
  REQUIRE(pos != std::string::npos);
  text.erase(pos, wait.size());
  std::ofstream(kernel) << text;
  auto rebuilt = shell(fmt::format("ninja -C '{}' 2>&1", proj.string()));
  INFO(rebuilt.out);
  REQUIRE(rebuilt.code == 0);
  CHECK_THAT(rebuilt.out, Catch::Contains("fill.cpp") && !Catch::Contains("use.cpp"));  // only the edited kernel

  auto plain = run(proj, "");
  INFO(plain.out);
  CHECK(plain.code == 0);  // in program order on the CPU the missing wait changes nothing
  auto r = run(proj, "--check-syncs");
  INFO(r.out);
  CHECK(r.code != 0);
  CHECK_THAT(r.out, Catch::Contains("run: check-syncs: kernel 'fill': TMULS on PIPE_V at " + at("# fill-store") +
                                    " (kernels/aiv/fill.cpp:") &&
                        Catch::Contains(" reads UB bytes [") &&
                        Catch::Contains("written by TLOAD on PIPE_MTE2 at " + at("# fill-load")) &&
                        Catch::Contains("no set_flag(PIPE_MTE2, PIPE_V, ...) / wait_flag pair orders it after the write"));
  CHECK_THAT(r.out, Catch::Contains("set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0) at " + at("# fill-load")) &&
                        Catch::Contains("is never waited for before the kernel ends"));
  CHECK_THAT(r.out, Catch::Contains("run: error: --check-syncs found"));
}

TEST_CASE("deps=: a task graph ordered only by a declared dependency, and its undeclared twin", "[checkers]") {
  // task_deps.py: `clobber` overwrites what `reader` reads; only deps=[reader] orders the two.
  const auto [declared, undeclared] = with_and_without("task_deps", ", deps=[reader]");
  // The submit of clobber waits on the reader's TaskId.
  const std::string o = slurp(declared / "orchestration" / "main.cpp");
  CHECK_THAT(o, Catch::Contains("= rt_submit_aiv_task(1, params_t1).task_id();") &&
                    Catch::Contains(".set_dependencies(params_t2_deps, params_t2_ndeps);"));
  auto ok = run(declared, "--check-races --check-syncs");
  INFO(ok.out);
  CHECK(ok.code == 0);
  CHECK_THAT(ok.out, !Catch::Contains("check-races:"));
  auto racy_twin = run(undeclared, "--check-races");
  INFO(racy_twin.out);
  CHECK(racy_twin.code != 0);
  CHECK_THAT(racy_twin.out, Catch::Contains("reads 'tmp_1' (INPUT argument 0 of kernel 'reader')") &&
                                Catch::Contains("writes 'tmp_1' (INOUT argument 1 of kernel 'clobber')") &&
                                Catch::Contains("a write after a read is never ordered by tensor regions"));
}

TEST_CASE("pl.manual_scope: tasks ordered only by the deps= of pl.submit; one dropped is a race", "[checkers]") {
  // manual_deps.py: inside the manual scope no edge comes from tensors; add1 reads tmp after fill
  // only because of deps=[t_fill].
  const auto [stated, dropped] = with_and_without("manual_deps", ", deps=[t_fill]");
  const std::string o = slurp(stated / "orchestration" / "main.cpp");
  CHECK_THAT(o, Catch::Contains("PTO2_SCOPE(PTO2ScopeMode::MANUAL) {") && Catch::Contains("add_no_dep(ext_x);"));
  auto ok = run(stated, "--check-races");
  INFO(ok.out);
  CHECK(ok.code == 0);
  auto racy = run(dropped, "--check-races");
  INFO(racy.out);
  CHECK(racy.code != 0);
  CHECK_THAT(racy.out, Catch::Contains("writes 't' (OUTPUT_EXISTING argument 1 of kernel 'fill')") &&
                           Catch::Contains("reads 't' (INPUT argument 0 of kernel 'add1')") &&
                           Catch::Contains("in a MANUAL scope) looks up no writer"));
}

TEST_CASE("pl.system.task_dummy: a fan-in TaskId orders its consumer after both producers; without it, a race",
          "[checkers]") {
  const auto [stated, dropped] = with_and_without("task_fanin", ", deps=[both]");
  const std::string o = slurp(stated / "orchestration" / "main.cpp");
  CHECK_THAT(o, Catch::Contains("rt_submit_dummy_task(params_t2).task_id()") &&
                    Catch::Contains("PTO2TaskId::invalid()") && Catch::Contains(".is_valid()) params_t2_deps["));
  auto ok = run(stated, "--check-races");
  INFO(ok.out);
  CHECK(ok.code == 0);
  auto racy = run(dropped, "--check-races");
  INFO(racy.out);
  CHECK(racy.code != 0);
  CHECK_THAT(racy.out, Catch::Contains("reads 'a' (INPUT argument 0 of kernel 'combine')"));
}

TEST_CASE("TaskId arrays: a whole-array dependency and slot dependencies order their consumers; each dropped is a race",
          "[checkers]") {
  // task_arrays.py: `half` reads all of `out` after the four tasks whose ids fill `done`
  // (deps=[done]); each stage-2 task reads its block of tmp after every id in `tids`.
  const auto [stated, whole_dropped] = with_and_without("task_arrays", ", deps=[done]");
  const std::string o = slurp(stated / "orchestration" / "main.cpp");
  CHECK_THAT(o, Catch::Contains("PTO2TaskId tids[4];") && Catch::Contains("tids[k] = PTO2TaskId::invalid();") &&
                    Catch::Contains("tids[b] = tid;") &&
                    Catch::Contains("for (int64_t k = 0; k < 4; ++k) if (done[k].is_valid())"));
  auto ok = run(stated, "--check-races");
  INFO(ok.out);
  CHECK(ok.code == 0);
  auto racy = run(whole_dropped, "--check-races");
  INFO(racy.out);
  CHECK(racy.code != 0);
  CHECK_THAT(racy.out, Catch::Contains("reads 'x' (INPUT argument 0 of kernel 'half')"));
  const auto [stated2, slots_dropped] = with_and_without("task_arrays", ",\n                                  deps=[tids[i] for i in range(NB)]");
  auto racy2 = run(slots_dropped, "--check-races");
  INFO(racy2.out);
  CHECK(racy2.code != 0);
  CHECK_THAT(racy2.out, Catch::Contains("reads 'x' (INPUT argument 0 of kernel 'scale')"));
}
