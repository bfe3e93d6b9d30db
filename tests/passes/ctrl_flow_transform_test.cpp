// CtrlFlowTransform: `if c: break / continue` takes the rest of its block into its other branch
// (explicit carries: the if yields them), exits the folding cannot take get flags and guarded
// ifs; a loop that breaks becomes a while loop, its pl.range variable counted by hand and
// advanced under `not brk`; orchestration loops as kernel loops; loops without exits unchanged.
// The interpreter checks that every shape computes what its source computes.
#include "pass_test_util.h"

#include "ir/interp/interpreter.h"

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

TEST_CASE("a pl.range loop that breaks becomes a while loop over `cond and not brk`; the rest folds into the else",
          "[CtrlFlowTransform]") {
  auto before = pass_test::parse(kernel(
      "        for i in pl.range(0, n, 2):\n"
      "            t = pl.adds(t, 1.0)\n"
      "            if i > 5:\n"
      "                break\n"
      "            t = pl.muls(t, 2.0)\n"));
  // The advance is guarded: after a break, i is the iteration that broke, as in Python.
  auto expected = pass_test::parse(kernel(
      "        i: pl.Scalar[pl.INDEX] = 0\n"
      "        brk: pl.Scalar[pl.BOOL] = False\n"
      "        while i < n and not brk:\n"
      "            t = pl.adds(t, 1.0)\n"
      "            if i > 5:\n"
      "                brk = True\n"
      "            else:\n"
      "                t = pl.muls(t, 2.0)\n"
      "            if not brk:\n"
      "                i = i + 2\n"));
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("continue: the rest of the block folds into the other branch; no flag, the loop stays a for loop",
          "[CtrlFlowTransform]") {
  auto before = pass_test::parse(kernel(
      "        for i in pl.range(4):\n"
      "            if i == 1:\n"
      "                t = pl.adds(t, 5.0)\n"
      "                continue\n"
      "            else:\n"
      "                t = pl.adds(t, 3.0)\n"
      "            t = pl.muls(t, 2.0)\n"));
  auto expected = pass_test::parse(kernel(
      "        for i in pl.range(4):\n"
      "            if i == 1:\n"
      "                t = pl.adds(t, 5.0)\n"
      "            else:\n"
      "                t = pl.adds(t, 3.0)\n"
      "                t = pl.muls(t, 2.0)\n"));
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("an elif that breaks folds again; statements after an unconditional exit are dropped", "[CtrlFlowTransform]") {
  auto before = pass_test::parse(kernel(
      "        m: pl.Scalar[pl.INDEX] = n\n"
      "        while m > 0:\n"
      "            m = m - 1\n"
      "            if m == 3:\n"
      "                continue\n"
      "            elif m == 1:\n"
      "                break\n"
      "                t = pl.adds(t, 9.0)\n"
      "            t = pl.adds(t, 1.0)\n"));
  auto expected = pass_test::parse(kernel(
      "        m: pl.Scalar[pl.INDEX] = n\n"
      "        brk: pl.Scalar[pl.BOOL] = False\n"
      "        while m > 0 and not brk:\n"
      "            m = m - 1\n"
      "            if m == 3:\n"
      "                pass\n"
      "            else:\n"
      "                if m == 1:\n"
      "                    brk = True\n"
      "                else:\n"
      "                    t = pl.adds(t, 1.0)\n"));
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("an exit nested in ifs whose other branches would each need the rest: flags, not copies",
          "[CtrlFlowTransform]") {
  auto before = pass_test::parse(kernel(
      "        for i in pl.range(8):\n"
      "            if i > 2:\n"
      "                if i > 5:\n"
      "                    continue\n"
      "            t = pl.adds(t, 1.0)\n"));
  auto expected = pass_test::parse(kernel(
      "        for i in pl.range(8):\n"
      "            skip: pl.Scalar[pl.BOOL] = False\n"
      "            if i > 2:\n"
      "                if i > 5:\n"
      "                    skip = True\n"
      "            if not skip:\n"
      "                t = pl.adds(t, 1.0)\n"));
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("explicit carries: each folded if yields the carries (the iteration-start values where it exits)",
          "[CtrlFlowTransform]") {
  auto before = pass_test::parse(kernel(
      "        for i, (a, b) in pl.range(8, init_values=(t, t)):\n"
      "            if i > n:\n"
      "                break\n"
      "            a_new: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(a, b)\n"
      "            a, b = pl.yield_(b, a_new)\n"
      "        t = a\n"));
  auto expected = pass_test::parse(std::string(kHead) + R"(        i: pl.Scalar[pl.INDEX] = 0
        brk: pl.Scalar[pl.BOOL] = False
        for (a, b) in pl.while_(init_values=(t, t)):
            pl.cond(i < 8 and not brk)
            if i > n:
                brk = True
                a_phi, b_phi = pl.yield_(a, b)
            else:
                a_new: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(a, b)
                a_phi, b_phi = pl.yield_(b, a_new)
            if not brk:
                i = i + 1
            a_out, b_out = pl.yield_(a_phi, b_phi)
        t = a_out
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return r
)");
  pass_test::require_equal(run(before), expected);
}

// Every shape, folded or flagged, computes what the source loop computes: the interpreter runs
// the program before the pass, after it and after ConvertToSSA, for trip counts around each exit.
// (Among them the shapes whose folding is easy to get wrong: an exit two ifs deep, a continue
// beside a break in an elif, a continue before a nested loop with its own continue, a carry
// computed in both branches of an if before the continue.)
TEST_CASE("folded and flagged loops compute what the source computes", "[CtrlFlowTransform][interp]") {
  const std::vector<std::string> bodies = {
      // exit two ifs deep, explicit carry
      "        for i, (a,) in pl.range(0, 10, 1, init_values=(t,)):\n"
      "            if i > 1:\n"
      "                if i > n:\n"
      "                    break\n"
      "            y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.adds(a, 1.0)\n"
      "            a = pl.yield_(y)\n"
      "        t = a\n",
      // continue two ifs deep
      "        for i, (a,) in pl.range(0, 10, 1, init_values=(t,)):\n"
      "            if i > 1:\n"
      "                if i < n:\n"
      "                    continue\n"
      "            y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.muls(a, 2.0)\n"
      "            a = pl.yield_(y)\n"
      "        t = a\n",
      // continue, then an elif that breaks, after a computed value
      "        for i, (a,) in pl.range(0, 10, 1, init_values=(t,)):\n"
      "            y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.adds(a, 3.0)\n"
      "            if i < 2:\n"
      "                continue\n"
      "            elif i > n:\n"
      "                break\n"
      "            a = pl.yield_(y)\n"
      "        t = a\n",
      // an outer continue before an inner loop with its own continue
      "        for i, (a,) in pl.range(0, 4, 1, init_values=(t,)):\n"
      "            if i < 1:\n"
      "                continue\n"
      "            for j, (b,) in pl.range(0, 6, 1, init_values=(a,)):\n"
      "                if j < n:\n"
      "                    continue\n"
      "                y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.adds(b, 1.0)\n"
      "                b = pl.yield_(y)\n"
      "            a = pl.yield_(b)\n"
      "        t = a\n",
      // a value set in both branches of an if, then a continue
      "        for i, (a,) in pl.range(0, 10, 1, init_values=(t,)):\n"
      "            if i < 5:\n"
      "                y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.adds(a, 1.0)\n"
      "            else:\n"
      "                y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.muls(a, 2.0)\n"
      "            if i == n:\n"
      "                continue\n"
      "            a = pl.yield_(y)\n"
      "        t = a\n",
      // names rebound before a break keep their values after the loop
      "        for i in pl.range(0, 12, 3):\n"
      "            t = pl.adds(t, 1.0)\n"
      "            if i >= n:\n"
      "                break\n"
      "            t = pl.muls(t, 3.0)\n",
  };
  for (const auto& body : bodies) {
    auto src = pass_test::parse(kernel(body));
    REQUIRE(src);
    auto after = run(src);
    auto ssa = pass_test::run(passes::convert_to_ssa_pass(), after);
    for (int n : {-1, 0, 1, 2, 3, 5, 7, 9, 12}) {
      ir::interp::EvalInputs in;
      ir::interp::Array x = ir::interp::Array::zeros(ir::DataType::FP32, {16, 16});
      for (int64_t e = 0; e < x.numel(); ++e) x.set(e, 0.25 * double(e % 7));
      in.tensors["x"] = x;
      in.scalars["n"] = n;
      INFO(body << "n = " << n);
      const auto want = ir::interp::evaluate(*src, *src->find("k"), in);
      for (const auto& p : {after, ssa}) {
        const auto got = ir::interp::evaluate(*p, *p->find("k"), in);
        REQUIRE(got.size() == want.size());
        for (size_t o = 0; o < want.size(); ++o)
          for (int64_t e = 0; e < want[o].value.numel(); ++e) REQUIRE(got[o].value.at(e) == want[o].value.at(e));
      }
    }
  }
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
        i: pl.Scalar[pl.INDEX] = 0
        brk: pl.Scalar[pl.BOOL] = False
        while i < 4 and not brk:
            if i > 1:
                brk = True
            else:
                o = self.k(x, o)
            if not brk:
                i = i + 1
        return o
)";
  pass_test::require_equal(run(pass_test::parse(before)), pass_test::parse(expected));
}
