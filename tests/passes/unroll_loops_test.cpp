// UnrollLoops: pl.unroll bodies repeated with the loop variable as a constant.
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("unroll with constant bounds", "[UnrollLoops]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 16], pl.FP32], o: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        for i in pl.unroll(0, 32, 16):
            t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [i, 0], [16, 16])
            o = pl.store(t, [i, 0], o)
        return o
)");
  auto after = pass_test::run(passes::unroll_loops_pass(), before);
  auto stmts = ir::flatten_body(after->functions[0]->body);
  REQUIRE(stmts.size() == 5);
  std::vector<int64_t> rows;
  for (const auto& s : stmts)
    if (const auto* a = ir::as<ir::AssignStmt>(s))
      if (const auto* c = ir::as<ir::Call>(a->value); c && c->is_op("tile.load"))
        rows.push_back(*ir::const_int_value(ir::as<ir::MakeTuple>(c->args[1])->elems[0]));
  CHECK(rows == std::vector<int64_t>{0, 16});
  // The result converts to SSA like hand-written straight-line code.
  auto ssa = pass_test::run(passes::convert_to_ssa_pass(), after);
  CHECK(ir::flatten_body(ssa->functions[0]->body).size() == 5);
}
