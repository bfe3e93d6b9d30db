// ResolveBackendOpLayouts (class a): reductions / broadcasts on [N,1] tiles pass; an elementwise
// op on column tiles runs on [1, N] reshapes of them, a column window of a wider tile gathered
// first by a one-column row_max; a column tile mixed with another shape is reported as not
// supported yet.
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

TEST_CASE("an elementwise op on column tiles runs on [1, N] reshapes of them", "[ResolveBackendOpLayouts]") {
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
        q: pl.Tile[[16, 1], pl.FP32] = pl.sqrt(s)
        u: pl.Tile[[16, 1], pl.FP32] = pl.add(q, m)
        y: pl.Tile[[16, 16], pl.FP32] = pl.row_expand_mul(t, u)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(y, [0, 0], o)
        return o2
)");
  auto expected = prep(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        tmp: pl.Tile[[16, 16], pl.FP32] = pl.create_tile([16, 16], pl.FP32)
        m: pl.Tile[[16, 1], pl.FP32] = pl.row_sum(t, tmp)
        m_row: pl.Tile[[1, 16], pl.FP32] = pl.tile.reshape(m, [1, 16])
        s_row: pl.Tile[[1, 16], pl.FP32] = pl.muls(m_row, 0.5)
        s: pl.Tile[[16, 1], pl.FP32] = pl.tile.reshape(s_row, [16, 1])
        s_row2: pl.Tile[[1, 16], pl.FP32] = pl.tile.reshape(s, [1, 16])
        q_row: pl.Tile[[1, 16], pl.FP32] = pl.sqrt(s_row2)
        q: pl.Tile[[16, 1], pl.FP32] = pl.tile.reshape(q_row, [16, 1])
        q_row2: pl.Tile[[1, 16], pl.FP32] = pl.tile.reshape(q, [1, 16])
        m_row2: pl.Tile[[1, 16], pl.FP32] = pl.tile.reshape(m, [1, 16])
        u_row: pl.Tile[[1, 16], pl.FP32] = pl.add(q_row2, m_row2)
        u: pl.Tile[[16, 1], pl.FP32] = pl.tile.reshape(u_row, [16, 1])
        y: pl.Tile[[16, 16], pl.FP32] = pl.row_expand_mul(t, u)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(y, [0, 0], o)
        return o2
)");
  pass_test::require_equal(pass_test::run(passes::resolve_backend_op_layouts_pass(), p), expected);
}

TEST_CASE("a column window of a wider tile is gathered by a one-column row_max before the reshape",
          "[ResolveBackendOpLayouts]") {
  // DeepSeek-V4's sparse HCA attention keeps per-head maxima 32-byte aligned in [H, 8] tiles and
  // reads column 0: the window's rows are 8 elements apart, so it cannot be viewed as [1, H].
  auto p = prep(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, m: pl.Tensor[[16, 1], pl.FP32], x: pl.Tensor[[16, 8], pl.FP32], o: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        mt: pl.Tile[[16, 1], pl.FP32] = pl.load(m, [0, 0], [16, 1])
        a: pl.Tile[[16, 8], pl.FP32] = pl.load(x, [0, 0], [16, 8])
        w: pl.Tile[[16, 1], pl.FP32] = pl.tile.slice(a, [16, 1], [0, 0])
        r: pl.Tile[[16, 1], pl.FP32] = pl.maximum(mt, w)
        o2: pl.Tensor[[16, 1], pl.FP32] = pl.store(r, [0, 0], o)
        return o2
)");
  auto expected = prep(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, m: pl.Tensor[[16, 1], pl.FP32], x: pl.Tensor[[16, 8], pl.FP32], o: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        mt: pl.Tile[[16, 1], pl.FP32] = pl.load(m, [0, 0], [16, 1])
        a: pl.Tile[[16, 8], pl.FP32] = pl.load(x, [0, 0], [16, 8])
        w: pl.Tile[[16, 1], pl.FP32] = pl.tile.slice(a, [16, 1], [0, 0])
        mt_row: pl.Tile[[1, 16], pl.FP32] = pl.tile.reshape(mt, [1, 16])
        w_tmp: pl.Tile[[16, 1], pl.FP32] = pl.create_tile([16, 1], pl.FP32)
        w_col: pl.Tile[[16, 1], pl.FP32] = pl.row_max(w, w_tmp)
        w_row: pl.Tile[[1, 16], pl.FP32] = pl.tile.reshape(w_col, [1, 16])
        r_row: pl.Tile[[1, 16], pl.FP32] = pl.maximum(mt_row, w_row)
        r: pl.Tile[[16, 1], pl.FP32] = pl.tile.reshape(r_row, [16, 1])
        o2: pl.Tensor[[16, 1], pl.FP32] = pl.store(r, [0, 0], o)
        return o2
)");
  pass_test::require_equal(pass_test::run(passes::resolve_backend_op_layouts_pass(), p), expected);
}

TEST_CASE("a column tile mixed with another shape is not supported yet", "[ResolveBackendOpLayouts]") {
  auto p = prep(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        tmp: pl.Tile[[16, 16], pl.FP32] = pl.create_tile([16, 16], pl.FP32)
        m: pl.Tile[[16, 1], pl.FP32] = pl.row_sum(t, tmp)
        y: pl.Tile[[16, 16], pl.FP32] = pl.add(t, m)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(y, [0, 0], o)
        return o2
)");
  std::string err = pass_test::compile_error_of([&] { pass_test::run(passes::resolve_backend_op_layouts_pass(), p); });
  CHECK(err.find("'pl.tile.add' on a [N, 1] column tile together with tiles of another shape") != std::string::npos);
}
