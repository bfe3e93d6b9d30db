// FlattenTileNdTo2D (class a): 2-D tiles pass; rank > 2 tiles are rejected.
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("rank-3 tile is not supported yet", "[FlattenTileNdTo2D]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 16, 16], pl.FP32], o: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]:
        t: pl.Tile[[2, 16, 16], pl.FP32] = pl.load(x, [0, 0, 0], [2, 16, 16])
        o2: pl.Tensor[[2, 16, 16], pl.FP32] = pl.store(t, [0, 0, 0], o)
        return o2
)");
  std::string err = pass_test::compile_error_of([&] { pass_test::run(passes::flatten_tile_nd_to_2d_pass(), p); });
  CHECK(err.find("tile 't' has rank 3; tiles of rank > 2 are not supported yet") != std::string::npos);
}
