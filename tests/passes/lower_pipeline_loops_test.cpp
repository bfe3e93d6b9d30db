// LowerPipelineLoops: a pl.pipeline(stage=F) loop's body is replicated F times per iteration
// (clone k at i + k*step, carried values threaded clone to clone); leftover iterations follow as
// constant-index clones (constant bounds) or an if-cascade on the leftover count (runtime bounds,
// with the span clamped at zero unless it is known not to be negative); stage=1 loops and other
// loops are left alone; a loop with a runtime step runs its stages one after another, with W501;
// a loop whose stages' tiles do not all fit on chip gets the stages that fit (W503), or one.
#include "pass_test_util.h"

using namespace pypto;

namespace {

const std::string kHead =
    "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(strict_ssa=True)\n";

ir::ProgramPtr lower(const ir::ProgramPtr& p, passes::PassContext& ctx) {
  return passes::lower_pipeline_loops_pass().run(p, ctx);
}

}  // namespace

TEST_CASE("constant bounds: F clones per iteration, the leftover clones after the loop", "[LowerPipelineLoops]") {
  const std::string sig = "    def main(self, s0: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n";
  auto before = pass_test::parse(kHead + sig +
                                 "        for i, (a,) in pl.pipeline(2, 23, 3, stage=3, init_values=(s0,)):\n"
                                 "            b: pl.Scalar[pl.INDEX] = a + i\n"
                                 "            r = pl.yield_(b)\n"
                                 "        return r\n");
  // 7 iterations (2, 5, ..., 20): two groups of three, then i = 20.
  auto expected = pass_test::parse(kHead + sig +
                                   "        for i, (a,) in pl.pipeline(2, 20, 9, stage=3, init_values=(s0,)):\n"
                                   "            b: pl.Scalar[pl.INDEX] = a + i\n"
                                   "            b1: pl.Scalar[pl.INDEX] = b + (i + 3)\n"
                                   "            b2: pl.Scalar[pl.INDEX] = b1 + (i + 6)\n"
                                   "            r_main = pl.yield_(b2)\n"
                                   "        b3: pl.Scalar[pl.INDEX] = r_main + 20\n"
                                   "        r: pl.Scalar[pl.INDEX] = b3\n"
                                   "        return r\n");
  passes::PassContext ctx;
  pass_test::require_equal(lower(before, ctx), expected);
  CHECK(ctx.diagnostics.diagnostics().empty());
}

TEST_CASE("fewer iterations than stages: only clones, seeded by the init values", "[LowerPipelineLoops]") {
  const std::string sig = "    def main(self, s0: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n";
  auto before = pass_test::parse(kHead + sig +
                                 "        for i, (a,) in pl.pipeline(0, 2, 1, stage=4, init_values=(s0,)):\n"
                                 "            b: pl.Scalar[pl.INDEX] = a * i\n"
                                 "            r = pl.yield_(b)\n"
                                 "        for j in pl.pipeline(0, 0, 1, stage=4):\n"
                                 "            c: pl.Scalar[pl.INDEX] = j\n"
                                 "        return r\n");
  auto expected = pass_test::parse(kHead + sig +
                                   "        b: pl.Scalar[pl.INDEX] = s0 * 0\n"
                                   "        b1: pl.Scalar[pl.INDEX] = b * 1\n"
                                   "        r: pl.Scalar[pl.INDEX] = b1\n"
                                   "        for j in pl.range(0, 0, 1):\n"  // no iteration: just demoted
                                   "            c: pl.Scalar[pl.INDEX] = j\n"
                                   "        return r\n");
  passes::PassContext ctx;
  pass_test::require_equal(lower(before, ctx), expected);
}

TEST_CASE("runtime bounds: a main loop to unroll_main_end, then an if-cascade on the leftover count",
          "[LowerPipelineLoops]") {
  SECTION("a tensor extent from 0: the span needs no clamp; each cascade level passes the carry on") {
    const std::string sig =
        "    def main(self, x: pl.Tensor[[N, 64], pl.FP32], s0: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n";
    const std::string head = "import pypto.language as pl\n\nN = pl.dynamic(\"N\")\n\n@pl.program\nclass P:\n"
                             "    @pl.function(strict_ssa=True)\n";
    auto before = pass_test::parse(head + sig +
                                   "        for i, (a,) in pl.pipeline(0, N, 1, stage=3, init_values=(s0,)):\n"
                                   "            b: pl.Scalar[pl.INDEX] = a + i\n"
                                   "            r = pl.yield_(b)\n"
                                   "        return r\n");
    auto expected = pass_test::parse(head + sig +
                                     "        end: pl.Scalar[pl.INDEX] = 0 + (N - 0) // 3 * 3\n"
                                     "        for i, (a,) in pl.pipeline(0, end, 3, stage=3, init_values=(s0,)):\n"
                                     "            b: pl.Scalar[pl.INDEX] = a + i\n"
                                     "            b1: pl.Scalar[pl.INDEX] = b + (i + 1)\n"
                                     "            b2: pl.Scalar[pl.INDEX] = b1 + (i + 2)\n"
                                     "            r_main = pl.yield_(b2)\n"
                                     "        rem: pl.Scalar[pl.INDEX] = N - end\n"
                                     "        if rem == 1:\n"
                                     "            c: pl.Scalar[pl.INDEX] = r_main + end\n"
                                     "            r = pl.yield_(c)\n"
                                     "        else:\n"
                                     "            if rem == 2:\n"
                                     "                d: pl.Scalar[pl.INDEX] = r_main + end\n"
                                     "                d1: pl.Scalar[pl.INDEX] = d + (end + 1)\n"
                                     "                r2 = pl.yield_(d1)\n"
                                     "            else:\n"
                                     "                r2 = pl.yield_(r_main)\n"
                                     "            r = pl.yield_(r2)\n"
                                     "        return r\n");
    passes::PassContext ctx;
    pass_test::require_equal(lower(before, ctx), expected);
  }
  SECTION("a scalar stop may lie below start: the span is clamped at 0; a step of 2 counts iterations") {
    const std::string sig = "    def main(self, n: pl.Scalar[pl.INDEX]):\n";
    auto before = pass_test::parse(kHead + sig +
                                   "        for i in pl.pipeline(1, n, 2, stage=2):\n"
                                   "            y: pl.Scalar[pl.INDEX] = i\n");
    auto expected = pass_test::parse(kHead + sig +
                                     "        end: pl.Scalar[pl.INDEX] = 1 + (pl.max(n - 1, 0) + 1) // 2 // 2 * 4\n"
                                     "        for i in pl.pipeline(1, end, 4, stage=2):\n"
                                     "            y: pl.Scalar[pl.INDEX] = i\n"
                                     "            y1: pl.Scalar[pl.INDEX] = i + 2\n"
                                     "        rem: pl.Scalar[pl.INDEX] = (pl.max(n - 1, 0) + 1) // 2 - (pl.max(n - 1, 0) + 1) // 2 // 2 * 2\n"
                                     "        if rem == 1:\n"
                                     "            y2: pl.Scalar[pl.INDEX] = end\n");
    passes::PassContext ctx;
    pass_test::require_equal(lower(before, ctx), expected);
  }
}

TEST_CASE("nested pipelines: the inner loop is lowered first, each outer clone holds a fresh copy",
          "[LowerPipelineLoops]") {
  const std::string sig = "    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n";
  auto before = pass_test::parse(kHead + sig +
                                 "        for i in pl.pipeline(0, 4, 1, stage=2):\n"
                                 "            for j in pl.pipeline(0, 2, 1, stage=2):\n"
                                 "                y: pl.Scalar[pl.INDEX] = i + j\n"
                                 "        return x\n");
  auto expected = pass_test::parse(kHead + sig +
                                   "        for i in pl.pipeline(0, 4, 2, stage=2):\n"
                                   "            for j in pl.pipeline(0, 2, 2, stage=2):\n"
                                   "                y: pl.Scalar[pl.INDEX] = i + j\n"
                                   "                y1: pl.Scalar[pl.INDEX] = i + (j + 1)\n"
                                   "            for j2 in pl.pipeline(0, 2, 2, stage=2):\n"
                                   "                y2: pl.Scalar[pl.INDEX] = i + 1 + j2\n"
                                   "                y3: pl.Scalar[pl.INDEX] = i + 1 + (j2 + 1)\n"
                                   "        return x\n");
  passes::PassContext ctx;
  pass_test::require_equal(lower(before, ctx), expected);
}

TEST_CASE("stage=1, other loops and runtime steps are not replicated", "[LowerPipelineLoops]") {
  const std::string sig = "    def main(self, x: pl.Tensor[[64], pl.FP32], s: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:\n";
  auto before = pass_test::parse(kHead + sig +
                                 "        for i in pl.pipeline(0, 8, 1, stage=1):\n"
                                 "            y: pl.Scalar[pl.INDEX] = i\n"
                                 "        for j in pl.range(0, 8, 1):\n"
                                 "            z: pl.Scalar[pl.INDEX] = j\n"
                                 "        for k in pl.pipeline(0, 8, s, stage=2):\n"
                                 "            w: pl.Scalar[pl.INDEX] = k\n"
                                 "        return x\n");
  passes::PassContext ctx;
  auto after = lower(before, ctx);
  auto expected = pass_test::parse(kHead + sig +
                                   "        for i in pl.pipeline(0, 8, 1, stage=1):\n"
                                   "            y: pl.Scalar[pl.INDEX] = i\n"
                                   "        for j in pl.range(0, 8, 1):\n"
                                   "            z: pl.Scalar[pl.INDEX] = j\n"
                                   "        for k in pl.pipeline(0, 8, s, stage=1):\n"
                                   "            w: pl.Scalar[pl.INDEX] = k\n"
                                   "        return x\n");
  pass_test::require_equal(after, expected);
  const auto& d = ctx.diagnostics.diagnostics();
  REQUIRE(d.size() == 1);
  CHECK(d[0].severity == ir::Severity::Warning);
  CHECK(d[0].code == "W501");
  CHECK(d[0].span.line == 11);
  CHECK(d[0].message.find("step is not a positive constant") != std::string::npos);
  // Nothing left to lower: the program itself, no warnings.
  passes::PassContext again;
  CHECK(lower(after, again) == after);
  CHECK(again.diagnostics.diagnostics().empty());
}

TEST_CASE("the stages the on-chip memories hold: fewer clones and W503, or one stage", "[LowerPipelineLoops]") {
  // Each stage loads a [64, 256] FP32 tile (64 KiB) and computes one more of the same size in
  // Vec: 128 KiB a stage, 188416 bytes of Vec on 910B, a 64 KiB tile made before the loop and
  // read in it: (188416 - 65536) / 131072 = 0 → one stage; with [32, 256] tiles (32 KiB):
  // (188416 - 32768) / 65536 = 2 stages of the 4 asked for.
  auto program = [](int rows) {
    const std::string shape = "[" + std::to_string(rows) + ", 256]";
    return "import pypto.language as pl\n\n@pl.program\nclass P:\n"
           "    @pl.function(type=pl.FunctionType.InCore)\n"
           "    def k(self, x: pl.Tensor[[1024, 256], pl.FP32], o: pl.Out[pl.Tensor[[1024, 256], pl.FP32]]) -> pl.Tensor[[1024, 256], pl.FP32]:\n"
           "        bias: pl.Tile[" + shape + ", pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], " + shape + ")\n"
           "        for i, (oi,) in pl.pipeline(0, 8, 1, stage=4, init_values=(o,)):\n"
           "            t: pl.Tile[" + shape + ", pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [i * " + std::to_string(rows) + ", 0], " + shape + ")\n"
           "            u: pl.Tile[" + shape + ", pl.FP32, pl.Mem.Vec] = pl.tile.add(t, bias)\n"
           "            oo: pl.Tensor[[1024, 256], pl.FP32] = pl.tile.store(u, [i * " + std::to_string(rows) + ", 0], oi)\n"
           "            r = pl.yield_(oo)\n"
           "        return r\n";
  };
  {
    passes::PassContext ctx;
    auto got = lower(pass_test::parse(program(32)), ctx);
    const auto& d = ctx.diagnostics.diagnostics();
    REQUIRE(d.size() == 1);
    CHECK(d[0].code == "W503");
    CHECK(d[0].message.find("pl.pipeline(stage=4): 2 stages fit: each stage's tiles need 65536 bytes of Vec and 155648") !=
          std::string::npos);
    // Two clones per iteration, the loop stepping by 2.
    const std::string text = ir::print_program(*got);
    CHECK(text.find("pl.pipeline(0, 8, 2, stage=2") != std::string::npos);
  }
  {
    passes::PassContext ctx;
    auto before = pass_test::parse(program(64));
    auto got = lower(before, ctx);
    const auto& d = ctx.diagnostics.diagnostics();
    REQUIRE(d.size() == 1);
    CHECK(d[0].message.find("1 stage fits, so the iterations run one after another") != std::string::npos);
    CHECK(ir::print_program(*got).find("stage=1") != std::string::npos);  // not replicated
  }
}
