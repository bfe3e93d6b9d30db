// FlattenTileNdTo2D: 2-D tiles pass unchanged; a rank-3 tile becomes [prod(leading), last] —
// its load keeps the 3-D window, its store states it, row-wise ops act on the stacked rows,
// creations get 2-D shapes; with unit leading dims the leading index entries are dropped; a
// column reduction over stacked leading dims is E502.
#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr flatten(const ir::ProgramPtr& p) { return pass_test::run(passes::flatten_tile_nd_to_2d_pass(), p); }
}  // namespace

TEST_CASE("2-D tiles are unchanged", "[FlattenTileNdTo2D]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32] = pl.exp(t)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], o)
        return o2
)");
  CHECK(flatten(p) == p);
}

TEST_CASE("a rank-3 tile becomes [prod(leading), last]: the load keeps its window, the store states it",
          "[FlattenTileNdTo2D]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 16, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 16, 16], pl.FP32]]) -> pl.Tensor[[4, 16, 16], pl.FP32]:
        t: pl.Tile[[2, 16, 16], pl.FP32] = pl.load(x, [2, 0, 0], [2, 16, 16])
        tmp: pl.Tile[[2, 16, 16], pl.FP32] = pl.tile.create([2, 16, 16], dtype=pl.FP32)
        m: pl.Tile[[2, 16, 1], pl.FP32] = pl.tile.row_max(t, tmp)
        u: pl.Tile[[2, 16, 16], pl.FP32] = pl.tile.row_expand_sub(t, m)
        o2: pl.Tensor[[4, 16, 16], pl.FP32] = pl.store(u, [2, 0, 0], o)
        return o2
)");
  // (The front end types a load by its window, so the expected program is checked piece by piece.)
  auto after = flatten(before);
  const auto stmts = ir::flatten_body(after->functions[0]->body);
  REQUIRE(stmts.size() == 6);
  const std::vector<std::vector<int64_t>> shapes = {{32, 16}, {32, 16}, {32, 1}, {32, 16}};
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto* a = ir::as<ir::AssignStmt>(stmts[i]);
    REQUIRE(a);
    INFO(a->var->name);
    CHECK(ir::static_shape(ir::as_tile(a->var->type)->shape) == shapes[i]);
    CHECK(ir::static_shape(ir::as_tile(a->value->type)->shape) == shapes[i]);
  }
  const auto* load = ir::as<ir::Call>(ir::as<ir::AssignStmt>(stmts[0])->value);
  CHECK(ir::as<ir::MakeTuple>(load->args[2])->elems.size() == 3);  // the 3-D window stays
  const auto* create = ir::as<ir::Call>(ir::as<ir::AssignStmt>(stmts[1])->value);
  CHECK(ir::as<ir::MakeTuple>(create->args[0])->elems.size() == 2);
  const auto* store = ir::as<ir::Call>(ir::as<ir::AssignStmt>(stmts[4])->value);
  REQUIRE(store->args.size() == 4);
  CHECK(ir::as<ir::MakeTuple>(store->args[3])->elems.size() == 3);  // the window it fills: [2, 16, 16]
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::TypeChecked}, sink));
}

TEST_CASE("unit leading dims: any op, the leading index entries dropped", "[FlattenTileNdTo2D]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 16, 16], pl.FP32], o: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]:
        t: pl.Tile[[1, 16, 16], pl.FP32] = pl.load(x, [1, 0, 0], [1, 16, 16])
        s: pl.Scalar[pl.FP32] = pl.tile.read(t, [0, 3, 4])
        tmp: pl.Tile[[1, 16, 16], pl.FP32] = pl.tile.create([1, 16, 16], dtype=pl.FP32)
        c: pl.Tile[[1, 1, 16], pl.FP32] = pl.tile.col_sum(t, tmp)
        o2: pl.Tensor[[2, 16, 16], pl.FP32] = pl.store(c, [0, 0, 0], o)
        return o2
)");
  auto after = flatten(before);
  const auto stmts = ir::flatten_body(after->functions[0]->body);
  const auto* read = ir::as<ir::Call>(ir::as<ir::AssignStmt>(stmts[1])->value);
  CHECK(ir::as<ir::MakeTuple>(read->args[1])->elems.size() == 2);
  const auto* col = ir::as<ir::AssignStmt>(stmts[3]);
  CHECK(ir::static_shape(ir::as_tile(col->var->type)->shape) == std::vector<int64_t>{1, 16});
}

TEST_CASE("a column reduction over stacked leading dims is not supported yet", "[FlattenTileNdTo2D]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 16, 16], pl.FP32], o: pl.Out[pl.Tensor[[2, 1, 16], pl.FP32]]) -> pl.Tensor[[2, 1, 16], pl.FP32]:
        t: pl.Tile[[2, 16, 16], pl.FP32] = pl.load(x, [0, 0, 0], [2, 16, 16])
        tmp: pl.Tile[[2, 16, 16], pl.FP32] = pl.tile.create([2, 16, 16], dtype=pl.FP32)
        c: pl.Tile[[2, 1, 16], pl.FP32] = pl.tile.col_sum(t, tmp)
        o2: pl.Tensor[[2, 1, 16], pl.FP32] = pl.store(c, [0, 0, 0], o)
        return o2
)");
  std::string err = pass_test::compile_error_of([&] { flatten(p); });
  CHECK(err.find("pl.tile.col_sum on a tile of rank above 2 with leading dims other than 1 is not supported yet") !=
        std::string::npos);
}
