// BindKernelParamDims: a computed extent of a kernel's tensor parameter becomes a symbol the
// kernel reads from the descriptor (the same expression in the kernel's types and scalar
// expressions with it, one symbol per distinct expression); pl.tensor.dim of a symbol or constant
// extent inside a kernel becomes that extent; a program-level dynamic dim the kernel reads but no
// tensor parameter carries becomes a trailing scalar parameter that every call passes;
// orchestration functions and kernels without any of these are unchanged.
#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr run(const ir::ProgramPtr& p) { return pass_test::run(passes::bind_kernel_param_dims_pass(), p); }

ir::ProgramPtr parse(const std::string& text) {
  auto p = pass_test::parse(text);
  REQUIRE(p);
  return p;
}
}  // namespace

TEST_CASE("a computed extent of a kernel parameter becomes one descriptor symbol everywhere in the kernel",
          "[BindKernelParamDims]") {
  auto before = parse(R"(
import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[N * 4, 64], pl.FP32], o: pl.Out[pl.Tensor[[N * 4, 64], pl.FP32]]) -> pl.Tensor[[N * 4, 64], pl.FP32]:
        rows: pl.Scalar[pl.INDEX] = pl.tensor.dim(a, 0)
        for i, (acc,) in pl.range(0, N * 4, 16, init_values=(o,)):
            t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i, 0], [16, 64], valid_shape=[pl.min(16, rows - i), 64])
            acc_1: pl.Tensor[[N * 4, 64], pl.FP32] = pl.store(t, [i, 0], acc)
            acc_2 = pl.yield_(acc_1)
        return acc_2
)");
  // The new symbol joins the program's dynamic dims.
  auto expected = parse(R"(
import pypto.language as pl

N = pl.dynamic("N")
A0 = pl.dynamic("a_dim0")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[A0, 64], pl.FP32], o: pl.Out[pl.Tensor[[A0, 64], pl.FP32]]) -> pl.Tensor[[A0, 64], pl.FP32]:
        rows: pl.Scalar[pl.INDEX] = A0
        for i, (acc,) in pl.range(0, A0, 16, init_values=(o,)):
            t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [i, 0], [16, 64], valid_shape=[pl.min(16, rows - i), 64])
            acc_1: pl.Tensor[[A0, 64], pl.FP32] = pl.store(t, [i, 0], acc)
            acc_2 = pl.yield_(acc_1)
        return acc_2
)");
  auto got = run(before);
  pass_test::require_equal(got, expected);
  const auto& prm = got->find("k")->params;
  const auto* a = ir::as_tensor(prm[0]->type);
  const auto* o = ir::as_tensor(prm[1]->type);
  REQUIRE(a);
  REQUIRE(o);
  const auto* sym = ir::as<ir::Var>(a->shape[0]);
  REQUIRE(sym);
  CHECK(sym->name == "a_dim0");
  CHECK(o->shape[0] == a->shape[0]);  // one symbol for the one expression
  CHECK(run(got) == got);             // nothing left to bind
}

TEST_CASE("pl.tensor.dim of a dynamic or constant extent in a kernel becomes the extent", "[BindKernelParamDims]") {
  const std::string text = R"(
import pypto.language as pl

T = pl.dynamic("T")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[T, 64], pl.FP32], o: pl.Out[pl.Tensor[[T, 64], pl.FP32]]) -> pl.Tensor[[T, 64], pl.FP32]:
        rows: pl.Scalar[pl.INDEX] = ROWS
        cols: pl.Scalar[pl.INDEX] = COLS
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [16, 64], valid_shape=[pl.min(16, rows), cols])
        o_1: pl.Tensor[[T, 64], pl.FP32] = pl.store(t, [0, 0], o)
        return o_1
)";
  auto with = [&](const std::string& rows, const std::string& cols) {
    std::string s = text;
    s.replace(s.find("ROWS"), 4, rows);
    s.replace(s.find("COLS"), 4, cols);
    return parse(s);
  };
  // (The front end folds the read of a dim that is a symbol already; the pass folds the rest.)
  pass_test::require_equal(run(with("pl.tensor.dim(a, 0)", "pl.tensor.dim(a, -1)")), with("pl.tensor.dim(a, 0)", "64"));
  pass_test::require_equal(run(with("pl.tensor.dim(a, 0)", "pl.tensor.dim(a, 1)")), with("pl.tensor.dim(a, 0)", "64"));
  // Orchestration functions keep their dim reads (the orchestration reads the descriptor itself).
  auto orch = parse(R"(
import pypto.language as pl

T = pl.dynamic("T")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[T, 64], pl.FP32]) -> pl.Scalar[pl.INDEX]:
        n: pl.Scalar[pl.INDEX] = pl.tensor.dim(a, 0)
        return n
)");
  CHECK(run(orch) == orch);
}

TEST_CASE("a dynamic dim the kernel reads but no tensor parameter carries becomes a parameter its callers pass",
          "[BindKernelParamDims]") {
  const std::string head = R"(
import pypto.language as pl

B = pl.dynamic("B")

@pl.program
class P:
)";
  auto before = parse(head + R"(
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64], valid_shape=[pl.min(16, B), 64])
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.store(t, [0, 0], o)
        return o_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, t: pl.Tensor[[B, 8], pl.INT32], x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        o_1: pl.Tensor[[16, 64], pl.FP32] = self.k(x, o)
        return o_1
)");
  auto expected = parse(head + R"(
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]], b: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 64], valid_shape=[pl.min(16, b), 64])
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.store(t, [0, 0], o)
        return o_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, t: pl.Tensor[[B, 8], pl.INT32], x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        o_1: pl.Tensor[[16, 64], pl.FP32] = self.k(x, o, B)
        return o_1
)");
  auto got = run(before);
  pass_test::require_equal(got, expected);
  const auto& k = *got->find("k");
  REQUIRE(k.params.size() == 3);
  CHECK(k.params[2]->name == "B");
  CHECK(k.param_directions.size() == 3);
  CHECK(k.params[2] != before->dynamic_dims[0]);  // the kernel's own parameter, not the module symbol
}
