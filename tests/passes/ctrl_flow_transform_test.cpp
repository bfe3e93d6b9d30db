// CtrlFlowTransform: break / continue in kernel loops become flags and guarded ifs (a loop that
// breaks becomes a while loop, its pl.range variable counted by hand; explicit carries become
// guarded assignments and an unconditional yield), in orchestration loops as in kernels; loops
// without exits are unchanged (break outside a loop, in pl.parallel / pl.unroll loops: the front end's errors).
#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr run(const ir::ProgramPtr& p) { return pass_test::run(passes::ctrl_flow_transform_pass(), p); }
const char* kHead = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
)";
std::string kernel(const std::string& body) {
  return std::string(kHead) + body + "        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)\n        return r\n";
}
}  // namespace

TEST_CASE("a pl.range loop that breaks becomes a while loop over `cond and not broke`", "[CtrlFlowTransform]") {
  auto before = pass_test::parse(kernel(
      "        for i in pl.range(0, n, 2):\n"
      "            t = pl.adds(t, 1.0)\n"
      "            if i > 5:\n"
      "                break\n"
      "            t = pl.muls(t, 2.0)\n"));
  auto expected = pass_test::parse(kernel(
      "        broke: pl.Scalar[pl.BOOL] = False\n"
      "        i: pl.Scalar[pl.INDEX] = 0\n"
      "        while i < n and not broke:\n"
      "            t = pl.adds(t, 1.0)\n"
      "            if i > 5:\n"
      "                broke = True\n"
      "            if not broke:\n"
      "                t = pl.muls(t, 2.0)\n"
      "            i = i + 2\n"));
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("continue: a per-iteration flag guards the rest; the loop stays a for loop", "[CtrlFlowTransform]") {
  auto before = pass_test::parse(kernel(
      "        for i in pl.range(4):\n"
      "            if i == 1:\n"
      "                continue\n"
      "            else:\n"
      "                t = pl.adds(t, 3.0)\n"
      "            t = pl.muls(t, 2.0)\n"));
  auto expected = pass_test::parse(kernel(
      "        for i in pl.range(4):\n"
      "            skip: pl.Scalar[pl.BOOL] = False\n"
      "            if i == 1:\n"
      "                skip = True\n"
      "            else:\n"
      "                t = pl.adds(t, 3.0)\n"
      "            if not skip:\n"
      "                t = pl.muls(t, 2.0)\n"));
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("a while loop with break and continue; statements after an unconditional exit are dropped",
          "[CtrlFlowTransform]") {
  auto before = pass_test::parse(kernel(
      "        m: pl.Scalar[pl.INDEX] = n\n"
      "        while m > 0:\n"
      "            m = m - 1\n"
      "            if m == 3:\n"
      "                continue\n"
      "            if m == 1:\n"
      "                break\n"
      "                t = pl.adds(t, 9.0)\n"
      "            t = pl.adds(t, 1.0)\n"));
  auto expected = pass_test::parse(kernel(
      "        m: pl.Scalar[pl.INDEX] = n\n"
      "        broke: pl.Scalar[pl.BOOL] = False\n"
      "        while m > 0 and not broke:\n"
      "            skip: pl.Scalar[pl.BOOL] = False\n"
      "            m = m - 1\n"
      "            if m == 3:\n"
      "                skip = True\n"
      "            if not (broke or skip):\n"
      "                if m == 1:\n"
      "                    broke = True\n"
      "                if not (broke or skip):\n"
      "                    t = pl.adds(t, 1.0)\n"));
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("explicit carries: guarded assignments to the iter_args, an unconditional yield", "[CtrlFlowTransform]") {
  auto before = pass_test::parse(kernel(
      "        for i, (a, b) in pl.range(8, init_values=(t, t)):\n"
      "            if i > n:\n"
      "                break\n"
      "            a_new: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(a, b)\n"
      "            a, b = pl.yield_(b, a_new)\n"
      "        t = a\n"));
  // The pass assigns the iter_args themselves (the front end would read `a = ...` in a loop body
  // as a new name), so Expected is the program after ConvertToSSA too: a break leaves a and b at
  // their iteration-start values.
  auto expected = pass_test::parse(std::string(kHead) + R"(        broke: pl.Scalar[pl.BOOL] = False
        i: pl.Scalar[pl.INDEX] = 0
        for (a, b, broke_1, i_1) in pl.while_(init_values=(t, t, broke, i)):
            pl.cond(i_1 < 8 and not broke_1)
            if i_1 > n:
                broke_2: pl.Scalar[pl.BOOL] = True
                broke_3 = pl.yield_(broke_2)
            else:
                broke_3 = pl.yield_(broke_1)
            if not broke_3:
                a_new: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, b)
                a_next: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = b
                b_next: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = a_new
                a_1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = a_next
                b_1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = b_next
                a_2, b_2 = pl.yield_(a_1, b_1)
            else:
                a_2, b_2 = pl.yield_(a, b)
            i_2: pl.Scalar[pl.INDEX] = i_1 + 1
            a_3, b_3, broke_4, i_3 = pl.yield_(a_2, b_2, broke_3, i_2)
        t_1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = a_3
        r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(t_1, [0, 0], o)
        return r
)");
  pass_test::require_equal(pass_test::run(passes::convert_to_ssa_pass(), run(before)), expected);
}

TEST_CASE("loops without exits are unchanged; orchestration loops are rewritten like kernel loops", "[CtrlFlowTransform]") {
  const std::string kernel = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        for i in pl.range(4):
            t = pl.adds(t, 1.0)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return r
)";
  pass_test::require_equal(run(pass_test::parse(kernel)), pass_test::parse(kernel));
  const std::string before = kernel + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        for i in pl.range(4):
            if i > 1:
                break
            o = self.k(x, o)
        return o
)";
  const std::string expected = kernel + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        broke: pl.Scalar[pl.BOOL] = False
        i: pl.Scalar[pl.INDEX] = 0
        while i < 4 and not broke:
            if i > 1:
                broke = True
            if not broke:
                o = self.k(x, o)
            i = i + 1
        return o
)";
  pass_test::require_equal(run(pass_test::parse(before)), pass_test::parse(expected));
}
