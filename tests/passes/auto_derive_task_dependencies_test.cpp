// AutoDeriveTaskDependencies (with PassContext::auto_deps; off by default): Before/Expected
// programs in the form DeriveCallDirections leaves. A read after a write gets an edge to the
// writer and its input goes untracked (NoDep); a write after a read gets an edge to the reader, a
// write after writes one to each writer; two reads get none; deps= naming the producer covers the hazard without an edge; a manual scope is
// left alone; in a loop body the edge is added but a buffer the loop writes stays tracked (the
// previous iteration's tasks), while a buffer nothing writes is NoDep; a buffer another block also
// touches keeps its tracking; without auto_deps the program is unchanged.
#include <fmt/format.h>

#include "pass_test_util.h"

using namespace pypto;

namespace {

const char* kKernels = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def fill(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        return out

    @pl.function(type=pl.FunctionType.AIV)
    def bump(self, x: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], y: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
)";

std::string program(const std::string& body) { return std::string(kKernels) + body; }

std::string dirs(const char* a, const char* b) {
  return fmt::format("\"arg_directions\": [pl.adir.{}, pl.adir.{}]", a, b);
}

ir::ProgramPtr run(const ir::ProgramPtr& p, bool on = true) {
  passes::PassContext ctx;
  ctx.auto_deps = on;
  return passes::auto_derive_task_dependencies_pass().run(p, ctx);
}

void check(const std::string& before, const std::string& expected) {
  auto b = pass_test::parse(program(before));
  auto e = pass_test::parse(program(expected));
  REQUIRE(b);
  REQUIRE(e);
  pass_test::require_equal(run(b), e);
}

}  // namespace

TEST_CASE("read after write: an edge to the writer, the covered input untracked", "[AutoDeriveTaskDependencies]") {
  const std::string create = "        mid: pl.Tensor[[64], pl.FP32] = pl.tensor.create([64], dtype=pl.FP32)\n";
  check(create +
            "        m1: pl.Tensor[[64], pl.FP32] = self.fill(x, mid, attrs={" + dirs("input", "output_existing") + "})\n"
            "        o1: pl.Tensor[[64], pl.FP32] = self.fill(m1, out, attrs={" + dirs("input", "output_existing") + "})\n"
            "        return o1\n",
        create +
            "        m1: pl.Tensor[[64], pl.FP32] = self.fill(x, mid, attrs={" + dirs("no_dep", "output_existing") + "})\n"
            "        o1: pl.Tensor[[64], pl.FP32] = self.fill(m1, out, attrs={" + dirs("no_dep", "output_existing") +
            ", \"compiler_manual_dep_edges\": [m1]})\n"
            "        return o1\n");
}

TEST_CASE("write after read: an edge to the reader; two reads: none", "[AutoDeriveTaskDependencies]") {
  // o1 reads y, then bump writes y: bump waits for o1. Both read x: no edge between them.
  check("        o1: pl.Tensor[[64], pl.FP32] = self.fill(y, out, attrs={" + dirs("input", "output_existing") + "})\n"
        "        y1: pl.Tensor[[64], pl.FP32] = self.bump(y, attrs={\"arg_directions\": [pl.adir.inout]})\n"
        "        o2: pl.Tensor[[64], pl.FP32] = self.fill(x, o1, attrs={" + dirs("input", "output_existing") + "})\n"
        "        o3: pl.Tensor[[64], pl.FP32] = self.fill(x, o2, attrs={" + dirs("input", "output_existing") + "})\n"
        "        return o3\n",
        "        o1: pl.Tensor[[64], pl.FP32] = self.fill(y, out, attrs={" + dirs("no_dep", "output_existing") + "})\n"
        "        y1: pl.Tensor[[64], pl.FP32] = self.bump(y, attrs={\"arg_directions\": [pl.adir.output_existing], "
        "\"compiler_manual_dep_edges\": [o1]})\n"
        "        o2: pl.Tensor[[64], pl.FP32] = self.fill(x, o1, attrs={" + dirs("no_dep", "output_existing") +
        ", \"compiler_manual_dep_edges\": [o1]})\n"
        "        o3: pl.Tensor[[64], pl.FP32] = self.fill(x, o2, attrs={" + dirs("no_dep", "output_existing") +
        ", \"compiler_manual_dep_edges\": [o1, o2]})\n"
        "        return o3\n");
}

TEST_CASE("deps= naming the producer covers the hazard without an edge", "[AutoDeriveTaskDependencies]") {
  const std::string create = "        mid: pl.Tensor[[64], pl.FP32] = pl.tensor.create([64], dtype=pl.FP32)\n";
  auto body = [&](const char* in) {
    return create +
           "        m1, tid = pl.submit(self.fill, x, mid, attrs={" + dirs(in, "output_existing") + "})\n"
           "        o1, tid2 = pl.submit(self.fill, m1, out, deps=[tid], attrs={" + dirs(in, "output_existing") + "})\n"
           "        return o1\n";
  };
  check(body("input"), body("no_dep"));
}

TEST_CASE("a manual scope is its author's; without auto_deps nothing changes", "[AutoDeriveTaskDependencies]") {
  const std::string manual =
      "        mid: pl.Tensor[[64], pl.FP32] = pl.tensor.create([64], dtype=pl.FP32)\n"
      "        with pl.manual_scope():\n"
      "            m1: pl.Tensor[[64], pl.FP32] = self.fill(x, mid, attrs={" + dirs("input", "output_existing") + "})\n"
      "            o1: pl.Tensor[[64], pl.FP32] = self.fill(m1, out, attrs={" + dirs("input", "output_existing") + "})\n"
      "        return out\n";
  check(manual, manual);
  const std::string plain =
      "        mid: pl.Tensor[[64], pl.FP32] = pl.tensor.create([64], dtype=pl.FP32)\n"
      "        m1: pl.Tensor[[64], pl.FP32] = self.fill(x, mid, attrs={" + dirs("input", "output_existing") + "})\n"
      "        o1: pl.Tensor[[64], pl.FP32] = self.fill(m1, out, attrs={" + dirs("input", "output_existing") + "})\n"
      "        return o1\n";
  auto p = pass_test::parse(program(plain));
  pass_test::require_equal(run(p, false), pass_test::parse(program(plain)));
}

TEST_CASE("in a loop body the written buffer stays tracked; a buffer nothing writes is NoDep", "[AutoDeriveTaskDependencies]") {
  auto body = [&](const char* x_dir, const char* mid_dir, bool edge) {
    return std::string("        mid: pl.Tensor[[64], pl.FP32] = pl.tensor.create([64], dtype=pl.FP32)\n"
                       "        for i in pl.range(4):\n"
                       "            m1: pl.Tensor[[64], pl.FP32] = self.fill(x, mid, attrs={") +
           dirs(x_dir, "output_existing") + "})\n" +
           "            o1: pl.Tensor[[64], pl.FP32] = self.fill(m1, out, attrs={" + dirs(mid_dir, "output_existing") +
           (edge ? ", \"compiler_manual_dep_edges\": [m1]" : "") + "})\n" + "        return out\n";
  };
  check(body("input", "input", false), body("no_dep", "input", true));
}

TEST_CASE("a buffer another block touches keeps its tracking", "[AutoDeriveTaskDependencies]") {
  auto body = [&](const char* first, bool edge) {
    return std::string("        mid: pl.Tensor[[64], pl.FP32] = pl.tensor.create([64], dtype=pl.FP32)\n"
                       "        m1: pl.Tensor[[64], pl.FP32] = self.fill(x, mid, attrs={") +
           dirs("no_dep", "output_existing") + "})\n" +
           "        o1: pl.Tensor[[64], pl.FP32] = self.fill(m1, out, attrs={" + dirs(first, "output_existing") +
           (edge ? ", \"compiler_manual_dep_edges\": [m1]" : "") + "})\n" +
           "        if pl.tensor.dim(x, 0) > 8:\n"
           "            m2: pl.Tensor[[64], pl.FP32] = self.bump(mid, attrs={\"arg_directions\": [pl.adir.inout]})\n"
           "        return o1\n";
  };
  check(body("input", false), body("input", true));
}
