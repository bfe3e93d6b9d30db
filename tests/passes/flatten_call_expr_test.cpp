// FlattenCallExpr: nested calls are hoisted into temporaries (args, return values).
#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("nested calls become temporaries", "[FlattenCallExpr]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        tx: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        return pl.store(pl.add(tx, pl.load(y, [0, 0], [16, 16])), [0, 0], o)
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        tx: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        l: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(y, [0, 0], [16, 16])
        a: pl.Tile[[16, 16], pl.FP32] = pl.add(tx, l)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(a, [0, 0], o)
        return s
)");
  auto after = pass_test::run(passes::flatten_call_expr_pass(), before);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::NoNestedCall}, sink));
  pass_test::require_equal(after, expected);
}

TEST_CASE("a scope's deps= element reads are hoisted before the scope", "[FlattenCallExpr]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.manual_scope():
            tids = pl.array.create(2, pl.TASK_ID)
            with pl.at(level=pl.Level.CORE_GROUP, deps=[tids[1]]):
                out = pl.add(x, x)
        return out
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.manual_scope():
            tids = pl.array.create(2, pl.TASK_ID)
            t: pl.Scalar[pl.TASK_ID] = pl.array.get_element(tids, 1)
            with pl.at(level=pl.Level.CORE_GROUP, deps=[t]):
                out = pl.add(x, x)
        return out
)");
  auto after = pass_test::run(passes::flatten_call_expr_pass(), before);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::NoNestedCall}, sink));
  pass_test::require_equal(after, expected);
}
