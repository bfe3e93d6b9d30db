// NormalizeReturnOrder: kernels return their Out/InOut params in parameter order; callers'
// tuple indices follow; a parameter returned twice is returned once (callers' indices of both
// name it); returning a non-Out value is an error; run by name with property checks, it needs no
// earlier pass (an InCore kernel not yet split by ExpandMixedKernel is normalised too).
#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("store result is replaced by the Out parameter", "[NormalizeReturnOrder]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return s
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return o
)");
  pass_test::require_equal(pass_test::run(passes::normalize_return_order_pass(), before), expected);
  // The same kernel as InCore, through the property-checking runner: no required property fails.
  auto incore = [](std::string t) { return t.replace(t.find("FunctionType.AIV"), 16, "FunctionType.InCore"); };
  const std::string text = ir::print_program(*before);
  pass_test::require_equal(pass_test::run_named({"normalize_return_order"}, pass_test::parse(incore(text))),
                           pass_test::parse(incore(ir::print_program(*expected))));
}

TEST_CASE("results are reordered to parameter order and callers remapped", "[NormalizeReturnOrder]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], b: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> tuple[pl.Tensor[[16, 16], pl.FP16], pl.Tensor[[16, 16], pl.FP32]]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        h: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.cast(t, pl.FP16)
        sa: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], a)
        sb: pl.Tensor[[16, 16], pl.FP16] = pl.store(h, [0, 0], b)
        return sb, sa

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], b: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        r: pl.Tuple[pl.Tensor[[16, 16], pl.FP16], pl.Tensor[[16, 16], pl.FP32]] = self.k(x, a, b)
        hb: pl.Tensor[[16, 16], pl.FP16] = r[0]
        return hb
)");
  auto after = pass_test::run(passes::normalize_return_order_pass(), before);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::ReturnParamsExplicit}, sink));
  auto k = after->find("k");
  const auto* ret = ir::as<ir::ReturnStmt>(ir::flatten_body(k->body).back());
  REQUIRE(ret->values.size() == 2);
  CHECK(ret->values[0] == k->params[1]);
  CHECK(ret->values[1] == k->params[2]);
  CHECK(ir::as_tensor(k->return_types[0])->dtype == ir::DataType::FP32);
  auto main = after->find("main");
  const auto* hb = ir::as<ir::AssignStmt>(ir::flatten_body(main->body).at(1));
  CHECK(ir::as<ir::TupleGetItem>(hb->value)->index == 1);  // b is now the second result
}

TEST_CASE("returning an input tensor is rejected", "[NormalizeReturnOrder]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        return x
)");
  std::string err = pass_test::compile_error_of([&] { pass_test::run(passes::normalize_return_order_pass(), before); });
  CHECK(err.find("not one of its Out/InOut tensor parameters") != std::string::npos);
}

TEST_CASE("a parameter returned twice is returned once; callers' indices of both name it", "[NormalizeReturnOrder]") {
  // An outlined scope's live-outs can be both a loop's result and the tensor it writes in place.
  const std::string head = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
)";
  auto before = pass_test::parse(head + R"(    def k(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        sb: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], b)
        sa: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], a)
        return sb, sa, b

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        r: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.k(x, a, b)
        b1: pl.Tensor[[16, 16], pl.FP32] = r[0]
        a1: pl.Tensor[[16, 16], pl.FP32] = r[1]
        b2: pl.Tensor[[16, 16], pl.FP32] = r[2]
        return a1, b1, b2
)");
  auto expected = pass_test::parse(head + R"(    def k(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        sb: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], b)
        sa: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], a)
        return a, b

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        r: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.k(x, a, b)
        b1: pl.Tensor[[16, 16], pl.FP32] = r[1]
        a1: pl.Tensor[[16, 16], pl.FP32] = r[0]
        b2: pl.Tensor[[16, 16], pl.FP32] = r[1]
        return a1, b1, b2
)");
  auto after = pass_test::run(passes::normalize_return_order_pass(), before);
  pass_test::require_equal(after, expected);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::ReturnParamsExplicit, ir::Property::TypeChecked}, sink));

  // Folded into one result: the call returns that tensor itself, and each index is it.
  auto one = pass_test::parse(head + R"(    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return o2, o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        r: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.k(x, o)
        o3: pl.Tensor[[16, 16], pl.FP32] = r[1]
        return o3
)");
  auto one_expected = pass_test::parse(head + R"(    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        r: pl.Tensor[[16, 16], pl.FP32] = self.k(x, o)
        o3: pl.Tensor[[16, 16], pl.FP32] = r
        return o3
)");
  pass_test::require_equal(pass_test::run(passes::normalize_return_order_pass(), one), one_expected);
}

TEST_CASE("a Group returning one parameter through both halves returns it once; callers follow",
          "[NormalizeReturnOrder]") {
  // ExpandMixedKernel's split of an outlined scope whose live-outs were both the tensor an if
  // writes and that tensor itself (pypto-lib's gate): the AIC half returns b unwritten, the AIV
  // half writes a and b. Before: the Group returned three results for two Out parameters.
  const std::string head = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Tensor[[16, 16], pl.FP32], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        return b

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        a2: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], a)
        b2: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], b)
        return a, b

)";
  auto before = pass_test::parse(head + R"(    @pl.function(type=pl.FunctionType.Group)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        c: pl.Tensor[[16, 16], pl.FP32] = self.k_aic(x, a, b)
        v: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.k_aiv(x, a, b)
        return v[0], v[1], c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        r: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.k(x, a, b)
        a1: pl.Tensor[[16, 16], pl.FP32] = r[0]
        b1: pl.Tensor[[16, 16], pl.FP32] = r[2]
        return a1, b1
)");
  auto expected = pass_test::parse(head + R"(    @pl.function(type=pl.FunctionType.Group)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        c: pl.Tensor[[16, 16], pl.FP32] = self.k_aic(x, a, b)
        v: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.k_aiv(x, a, b)
        return a, b

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        r: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.k(x, a, b)
        a1: pl.Tensor[[16, 16], pl.FP32] = r[0]
        b1: pl.Tensor[[16, 16], pl.FP32] = r[1]
        return a1, b1
)");
  pass_test::require_equal(pass_test::run(passes::normalize_return_order_pass(), before), expected);
}
