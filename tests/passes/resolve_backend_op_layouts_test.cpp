// ResolveBackendOpLayouts (class a): reductions / broadcasts on [N,1] tiles pass; an elementwise
// op on a column tile is reported as not supported yet.
#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr prep(const std::string& text) {
  return pass_test::run(passes::infer_tile_memory_space_pass(), pass_test::parse(text));
}
}  // namespace

TEST_CASE("row reduction and row broadcast pass", "[ResolveBackendOpLayouts]") {
  auto p = prep(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        tmp: pl.Tile[[16, 16], pl.FP32] = pl.create_tile([16, 16], pl.FP32)
        m: pl.Tile[[16, 1], pl.FP32] = pl.row_max(t, tmp)
        y: pl.Tile[[16, 16], pl.FP32] = pl.row_expand_sub(t, m)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(y, [0, 0], o)
        return o2
)");
  CHECK(pass_test::run(passes::resolve_backend_op_layouts_pass(), p) == p);
}

TEST_CASE("elementwise op on a column tile is not supported yet", "[ResolveBackendOpLayouts]") {
  auto p = prep(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        tmp: pl.Tile[[16, 16], pl.FP32] = pl.create_tile([16, 16], pl.FP32)
        m: pl.Tile[[16, 1], pl.FP32] = pl.row_sum(t, tmp)
        s: pl.Tile[[16, 1], pl.FP32] = pl.muls(m, 0.5)
        y: pl.Tile[[16, 16], pl.FP32] = pl.row_expand_mul(t, s)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(y, [0, 0], o)
        return o2
)");
  std::string err = pass_test::compile_error_of([&] { pass_test::run(passes::resolve_backend_op_layouts_pass(), p); });
  CHECK(err.find("'pl.tile.muls' on a [N, 1] column tile is not supported yet") != std::string::npos);
}
