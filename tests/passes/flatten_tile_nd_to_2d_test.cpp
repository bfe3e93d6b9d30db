// FlattenTileNdTo2D: 2-D tiles pass unchanged; a rank-3 tile becomes [prod(leading), last] and a
// rank-1 tile [1, N] —
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

TEST_CASE("a rank-1 tile becomes the one-row tile [1, N]: its valid extent [1, v], element access at row 0",
          "[FlattenTileNdTo2D]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, w: pl.Tensor[[256], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[256], pl.FP32]]) -> pl.Tensor[[256], pl.FP32]:
        t: pl.Tile[[64], pl.FP32] = pl.load(w, [64], [64], valid_shape=[n])
        u: pl.Tile[[64], pl.FP32] = pl.exp(t)
        e: pl.Scalar[pl.FP32] = pl.tile.read(u, [3])
        v: pl.Tile[[64], pl.FP32] = pl.tile.adds(u, e)
        r: pl.Tile[[1, 64], pl.FP32] = pl.tile.reshape(v, [1, 64])
        o2: pl.Tensor[[256], pl.FP32] = pl.store(v, [64], o)
        return o2
)");
  auto after = flatten(before);
  const auto stmts = ir::flatten_body(after->functions[0]->body);
  REQUIRE(stmts.size() == 7);
  for (size_t i : {0, 1, 3, 4}) {
    const auto* a = ir::as<ir::AssignStmt>(stmts[i]);
    REQUIRE(a);
    INFO(a->var->name);
    CHECK(ir::static_shape(ir::as_tile(a->var->type)->shape) == std::vector<int64_t>{1, 64});
  }
  // The load keeps its 1-D window; its tile's valid extent [n] is [1, n].
  const auto* load = ir::as<ir::AssignStmt>(stmts[0]);
  CHECK(ir::as<ir::MakeTuple>(ir::as<ir::Call>(load->value)->args[2])->elems.size() == 1);
  const auto& valid = ir::as_tile(load->var->type)->view->valid_shape;
  REQUIRE(valid.size() == 2);
  CHECK(ir::const_int_value(valid[0]) == 1);
  CHECK(ir::as<ir::Var>(valid[1]));
  // tile.read of element [3] reads row 0, column 3.
  const auto* read = ir::as<ir::Call>(ir::as<ir::AssignStmt>(stmts[2])->value);
  const auto* idx = ir::as<ir::MakeTuple>(read->args[1]);
  REQUIRE(idx->elems.size() == 2);
  CHECK(ir::const_int_value(idx->elems[0]) == 0);
  CHECK(ir::const_int_value(idx->elems[1]) == 3);
  // The store states the 1-D window it fills.
  const auto* store = ir::as<ir::Call>(ir::as<ir::AssignStmt>(stmts[5])->value);
  REQUIRE(store->args.size() == 4);
  CHECK(ir::as<ir::MakeTuple>(store->args[3])->elems.size() == 1);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::TypeChecked}, sink));
}
