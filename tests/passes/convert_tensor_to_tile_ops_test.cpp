// ConvertTensorToTileOps: tensor ops in InCore functions → tile ops (entry loads, table mapping,
// scratch tiles for row reductions and tile transposes written without one, matmul through Mat/Left/Right, tensor.assemble → tile.store,
// returned results → new Out params allocated by callers, written In params → Out/InOut, a
// [1, C] / [R, 1] broadcast operand → the row / col expand form, mrgsort's two formats,
// create_l1 in Mat) and the "not supported yet"
// rejections (too large, attributes without a tile form, element writes into GM, dynamic
// tensor.dim, broadcasts the expand forms cannot express).
#include "pass_test_util.h"

using namespace pypto;

namespace {

ir::ProgramPtr convert(const ir::ProgramPtr& p) { return pass_test::run(passes::convert_tensor_to_tile_ops_pass(), p); }

std::string error_of(const std::string& text) {
  auto p = pass_test::parse(text);
  return pass_test::compile_error_of([&] { convert(p); });
}

}  // namespace

TEST_CASE("square_tensor: entry load, tile op, assemble into the Out param → tile.store", "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.mul(x, x)
        z: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(y, 1.0)
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, z, [0, 0])
        return o_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        xt: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16])
        y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.mul(xt, xt)
        z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.adds(y, 1.0)
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(z, [0, 0], o)
        return o_1
)");
  pass_test::require_equal(convert(before), expected);
}

TEST_CASE("a returned result gets an Out param; the caller allocates it with tensor.create; row_sum gets a scratch tile",
          "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
        s: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.row_sum(x)
        return s

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
        r: pl.Tensor[[16, 1], pl.FP32] = self.k(x)
        return r
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], s: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        xt: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32])
        tmp: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32)
        st: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(xt, tmp)
        s_1: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(st, [0, 0], s)
        return s_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 1], pl.FP32]:
        s: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.create([16, 1], dtype=pl.FP32)
        r: pl.Tensor[[16, 1], pl.FP32] = self.k(x, s)
        return r
)");
  pass_test::require_equal(convert(before), expected);
}

TEST_CASE("tensor.matmul loads its operands into Mat and moves them to Left / Right", "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        c: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, c, [0, 0])
        return o_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 32], pl.FP16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[32, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br, out_dtype=pl.FP32)
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], o)
        return o_1
)");
  pass_test::require_equal(convert(before), expected);
}

TEST_CASE("b_trans / a_trans: the natural Mat load viewed as its transpose (tile.transpose_view), then moved",
          "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 16], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        c: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32, a_trans=True, b_trans=True)
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.assemble(o, c, [0, 0])
        return o_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 16], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        am: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        at: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(am)
        al: pl.Tile[[16, 32], pl.FP16, pl.Mem.Left] = pl.tile.move(at, target_memory=pl.Mem.Left)
        bt: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(bm)
        br: pl.Tile[[32, 64], pl.FP16, pl.Mem.Right] = pl.tile.move(bt, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br, out_dtype=pl.FP32)
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(c, [0, 0], o)
        return o_1
)");
  pass_test::require_equal(convert(before), expected);
}

TEST_CASE("a GM window only matmuls read is loaded into Mat; one also read by vector ops into Vec and Mat",
          "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16], r: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]], e: pl.Out[pl.Tensor[[32, 16], pl.FP16]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[32, 16], pl.FP16]]:
        x: pl.Tensor[[16, 32], pl.FP16] = pl.tensor.slice(a, [16, 32], [r, 0])
        y: pl.Tensor[[32, 16], pl.FP16] = pl.tensor.slice(b, [32, 16], [0, r])
        c: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(x, y, out_dtype=pl.FP32)
        z: pl.Tensor[[32, 16], pl.FP16] = pl.tensor.exp(y)
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, c, [0, 0])
        e_1: pl.Tensor[[32, 16], pl.FP16] = pl.tensor.assemble(e, z, [0, 0])
        return o_1, e_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16], r: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]], e: pl.Out[pl.Tensor[[32, 16], pl.FP16]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[32, 16], pl.FP16]]:
        x: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [r, 0], [16, 32], target_memory=pl.Mem.Mat)
        y_mat: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, r], [32, 16], target_memory=pl.Mem.Mat)
        y: pl.Tile[[32, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(b, [0, r], [32, 16])
        cl: pl.Tile[[16, 32], pl.FP16, pl.Mem.Left] = pl.tile.move(x, target_memory=pl.Mem.Left)
        cr: pl.Tile[[32, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(y_mat, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(cl, cr, out_dtype=pl.FP32)
        z: pl.Tile[[32, 16], pl.FP16, pl.Mem.Vec] = pl.tile.exp(y)
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], o)
        e_1: pl.Tensor[[32, 16], pl.FP16] = pl.tile.store(z, [0, 0], e)
        return o_1, e_1
)");
  pass_test::require_equal(convert(before), expected);
}

TEST_CASE("an atomic assemble into GM is an atomic-add store (split-K)", "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 16], pl.FP16], s: pl.Scalar[pl.INDEX], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x: pl.Tensor[[16, 32], pl.FP16] = pl.tensor.slice(a, [16, 32], [0, s])
        y: pl.Tensor[[32, 16], pl.FP16] = pl.tensor.slice(b, [32, 16], [s, 0])
        c: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(x, y, out_dtype=pl.FP32)
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, c, [0, 0], atomic=pl.AtomicType.Add)
        return o_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 16], pl.FP16], s: pl.Scalar[pl.INDEX], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x: pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, s], [16, 32], target_memory=pl.Mem.Mat)
        y: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [s, 0], [32, 16], target_memory=pl.Mem.Mat)
        cl: pl.Tile[[16, 32], pl.FP16, pl.Mem.Left] = pl.tile.move(x, target_memory=pl.Mem.Left)
        cr: pl.Tile[[32, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(y, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(cl, cr, out_dtype=pl.FP32)
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], o, atomic=pl.AtomicType.Add)
        return o_1
)");
  pass_test::require_equal(convert(before), expected);
}

TEST_CASE("a written In param becomes Out, or InOut when it is also read", "[ConvertTensorToTileOps]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32], rw: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(x, rw)
        w_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(w, y, [0, 0])
        rw_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(rw, y, [0, 0])
        return w_1, rw_1
)");
  auto k = convert(p)->find("k");
  REQUIRE(k);
  CHECK(k->param_directions == std::vector<ir::ParamDirection>{ir::ParamDirection::In, ir::ParamDirection::Out,
                                                                ir::ParamDirection::InOut});
}

TEST_CASE("a caller's In param handed to a kernel param that becomes Out / InOut becomes InOut", "[ConvertTensorToTileOps]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], w: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(x, x)
        w_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(w, y, [0, 0])
        return w_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        r: pl.Tensor[[16, 16], pl.FP32] = self.k(a, b)
        return r
)");
  auto out = convert(p);
  CHECK(out->find("k")->param_directions == std::vector<ir::ParamDirection>{ir::ParamDirection::In, ir::ParamDirection::Out});
  // a is only read; b is written through the call.
  CHECK(out->find("main")->param_directions == std::vector<ir::ParamDirection>{ir::ParamDirection::In, ir::ParamDirection::InOut});
}

TEST_CASE("tile-level kernels and orchestration tensor ops are left alone", "[ConvertTensorToTileOps]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return o_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], pl.FP32)
        r: pl.Tensor[[16, 16], pl.FP32] = self.k(x, t)
        return r
)");
  CHECK(convert(p) == p);
}

TEST_CASE("rejected: a tensor larger than the Vec budget, attributes without a tile form, dynamic extents (element writes into GM are kept)",
          "[ConvertTensorToTileOps]") {
  auto big = error_of(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[512, 512], pl.FP32], o: pl.Out[pl.Tensor[[512, 512], pl.FP32]]) -> pl.Tensor[[512, 512], pl.FP32]:
        y: pl.Tensor[[512, 512], pl.FP32] = pl.tensor.exp(x)
        o_1: pl.Tensor[[512, 512], pl.FP32] = pl.tensor.assemble(o, y, [0, 0])
        return o_1
)");
  CHECK(big.find("tensor 'x' of shape [512, 512] FP32 needs 1048576 bytes") != std::string::npos);
  CHECK(big.find("automatic tiling of tensor-level code is not supported yet") != std::string::npos);

  auto attr = error_of(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        c: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32, c_matrix_nz=True)
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, c, [0, 0])
        return o_1
)");
  CHECK(attr.find("'pl.tensor.matmul' with attribute 'c_matrix_nz' is not supported yet") != std::string::npos);

  // A transposed operand must come from GM: its Mat tile is viewed in the dual layout.
  auto trans = error_of(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        e: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.exp(b)
        c: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(a, e, out_dtype=pl.FP32, b_trans=True)
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, c, [0, 0])
        return o_1
)");
  CHECK(trans.find("with b_trans=True on an operand computed in the kernel is not supported yet") != std::string::npos);

  auto op = error_of(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.write(x, [0, 0], 1.0)
        return x_1
)");
  CHECK(op.empty());  // an element write into GM stays a scalar store (registry kernel_gm_scalar), as a read does


  auto dim = error_of(R"(
import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[M, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [pl.tensor.dim(x, 0) - 16, 0], [16, 16])
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return o_1
)");
  CHECK(dim.find("'pl.tensor.dim' of a dynamic extent inside a kernel is not supported yet") != std::string::npos);
}

TEST_CASE("the span of the rejected op is reported", "[ConvertTensorToTileOps]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1024, 1024], pl.FP32], o: pl.Out[pl.Tensor[[1024, 1024], pl.FP32]]) -> pl.Tensor[[1024, 1024], pl.FP32]:
        y: pl.Tensor[[1024, 1024], pl.FP32] = pl.add(x, x)
        return y
)");
  try {
    convert(p);
    FAIL("expected an error");
  } catch (const ir::CompileError& e) {
    CHECK(e.diagnostics().at(0).span.line == 8);
    CHECK(e.diagnostics().at(0).hint.find("tile level") != std::string::npos);
  }
}

TEST_CASE("tensor.cmp becomes a bit mask selecting 1 or 0", "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        m: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.cmp(x, 0.0, cmp_type=4)
        r: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.assemble(o, m, [0, 0])
        return r
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x_tile: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32])
        m_mask: pl.Tile[[16, 32], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[16, 4])] = pl.tile.cmps(x_tile, 0.0, cmp_type=4)
        m_one: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 32], dtype=pl.FP32, value=1.0)
        m_zero: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 32], dtype=pl.FP32, value=0.0)
        m_seltmp: pl.Tile[[1, 32], pl.UINT8, pl.Mem.Vec] = pl.tile.create([1, 32], dtype=pl.UINT8)
        m: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.sel(m_mask, m_one, m_zero, m_seltmp)
        r: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(m, [0, 0], o)
        return r
)");
  pass_test::require_equal(pass_test::run(passes::convert_tensor_to_tile_ops_pass(), before), expected);
}

TEST_CASE("tensor.gather along the last axis offsets each row's column indices into flat ones", "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], i: pl.Tensor[[16, 8], pl.INT32], o: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        g: pl.Tensor[[16, 8], pl.FP32] = pl.tensor.gather(x, i, dim=1)
        r: pl.Tensor[[16, 8], pl.FP32] = pl.tensor.assemble(o, g, [0, 0])
        return r
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], i: pl.Tensor[[16, 8], pl.INT32], o: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        x_tile: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32])
        i_tile: pl.Tile[[16, 8], pl.INT32, pl.Mem.Vec] = pl.tile.load(i, [0, 0], [16, 8])
        g_seq: pl.Tile[[1, 128], pl.INT32, pl.Mem.Vec] = pl.tile.ci(0, [1, 128])
        g_pos: pl.Tile[[16, 8], pl.INT32, pl.Mem.Vec] = pl.tile.reshape(g_seq, [16, 8])
        g_row: pl.Tile[[16, 8], pl.INT32, pl.Mem.Vec] = pl.tile.divs(g_pos, pl.const(8, pl.INT32))
        g_base: pl.Tile[[16, 8], pl.INT32, pl.Mem.Vec] = pl.tile.muls(g_row, pl.const(32, pl.INT32))
        g_flat: pl.Tile[[16, 8], pl.INT32, pl.Mem.Vec] = pl.tile.add(g_base, i_tile)
        g_gtmp: pl.Tile[[16, 8], pl.INT32, pl.Mem.Vec] = pl.tile.create([16, 8], dtype=pl.INT32)
        g: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.gather(x_tile, g_flat, g_gtmp)
        r: pl.Tensor[[16, 8], pl.FP32] = pl.tile.store(g, [0, 0], o)
        return r
)");
  pass_test::require_equal(pass_test::run(passes::convert_tensor_to_tile_ops_pass(), before), expected);
}

TEST_CASE("tensor.scatter along the last axis: values and a 1-mask scattered into zeroed tiles, the input kept by a select",
          "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], i: pl.Tensor[[16, 8], pl.INT32], s: pl.Tensor[[16, 8], pl.FP32], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        y: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.scatter(x, i, s, dim=-1)
        r: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.assemble(o, y, [0, 0])
        return r
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], i: pl.Tensor[[16, 8], pl.INT32], s: pl.Tensor[[16, 8], pl.FP32], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x_tile: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32])
        i_tile: pl.Tile[[16, 8], pl.INT32, pl.Mem.Vec] = pl.tile.load(i, [0, 0], [16, 8])
        s_tile: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(s, [0, 0], [16, 8])
        y_seq: pl.Tile[[1, 128], pl.INT32, pl.Mem.Vec] = pl.tile.ci(0, [1, 128])
        y_pos: pl.Tile[[16, 8], pl.INT32, pl.Mem.Vec] = pl.tile.reshape(y_seq, [16, 8])
        y_row: pl.Tile[[16, 8], pl.INT32, pl.Mem.Vec] = pl.tile.divs(y_pos, pl.const(8, pl.INT32))
        y_base: pl.Tile[[16, 8], pl.INT32, pl.Mem.Vec] = pl.tile.muls(y_row, pl.const(32, pl.INT32))
        y_flat: pl.Tile[[16, 8], pl.INT32, pl.Mem.Vec] = pl.tile.add(y_base, i_tile)
        y_zero: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 32], dtype=pl.FP32, value=0.0)
        y_values: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.scatter(y_zero, s_tile, y_flat)
        y_ones: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 8], dtype=pl.FP32, value=1.0)
        y_hzero: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 32], dtype=pl.FP32, value=0.0)
        y_hit: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.scatter(y_hzero, y_ones, y_flat)
        y_mask: pl.Tile[[16, 32], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[16, 4])] = pl.tile.cmps(y_hit, 0.0, cmp_type=1)
        y_seltmp: pl.Tile[[1, 32], pl.UINT8, pl.Mem.Vec] = pl.tile.create([1, 32], dtype=pl.UINT8)
        y: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.sel(y_mask, y_values, x_tile, y_seltmp)
        r: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(y, [0, 0], o)
        return r
)");
  pass_test::require_equal(convert(before), expected);

  // 16-bit elements scatter with INT16 flat indices and an FP16 mask; 8-bit ones are not lowered yet.
  auto half = convert(pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 32], pl.BF16], i: pl.Tensor[[4, 8], pl.INT16], s: pl.Tensor[[4, 8], pl.BF16], o: pl.Out[pl.Tensor[[4, 32], pl.BF16]]) -> pl.Tensor[[4, 32], pl.BF16]:
        y: pl.Tensor[[4, 32], pl.BF16] = pl.tensor.scatter(x, i, s)
        r: pl.Tensor[[4, 32], pl.BF16] = pl.tensor.assemble(o, y, [0, 0])
        return r
)"));
  const std::string text = ir::print_program(*half);
  INFO(text);
  CHECK(text.find("pl.tile.ci(0, [1, 32], dtype=pl.INT16)") != std::string::npos);
  CHECK(text.find("pl.tile.full([4, 8], dtype=pl.FP16, value=1.0)") != std::string::npos);
  CHECK(text.find("pl.tile.cmps(y_hit, pl.const(0.0, pl.FP16), cmp_type=1)") != std::string::npos);
  auto i8 = error_of(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 32], pl.INT8], i: pl.Tensor[[4, 8], pl.INT16], s: pl.Tensor[[4, 8], pl.INT8], o: pl.Out[pl.Tensor[[4, 32], pl.INT8]]) -> pl.Tensor[[4, 32], pl.INT8]:
        y: pl.Tensor[[4, 32], pl.INT8] = pl.tensor.scatter(x, i, s)
        r: pl.Tensor[[4, 32], pl.INT8] = pl.tensor.assemble(o, y, [0, 0])
        return r
)");
  CHECK(i8.find("'pl.tensor.scatter' of INT8 elements is not supported yet inside a kernel") != std::string::npos);
}

TEST_CASE("tensor.read of a GM tensor stays a scalar load; of a computed tensor it is tile.read; tensor.write into a "
          "computed tensor is tile.write",
          "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        v: pl.Scalar[pl.FP32] = pl.tensor.read(x, [3, 5])
        f: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.full([16, 16], dtype=pl.FP32, value=0.0)
        w: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.write(f, [2, 7], v)
        u: pl.Scalar[pl.FP32] = pl.tensor.read(w, [2, 7])
        w2: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(w, u)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, w2, [0, 0])
        return r
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        v: pl.Scalar[pl.FP32] = pl.tensor.read(x, [3, 5])
        f: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
        w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.write(f, [2, 7], v)
        u: pl.Scalar[pl.FP32] = pl.tile.read(w, [2, 7])
        w2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.adds(w, u)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(w2, [0, 0], o)
        return r
)");
  pass_test::require_equal(convert(before), expected);
}

TEST_CASE("tensor.gather_mask is tile.gather_mask; tensor.scatter_mask scatters values and a 1-mask into zeroed tiles and "
          "keeps dst by a select", "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], d: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        ev: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.gather_mask(x, mask_pattern=1)
        y: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.scatter_mask(ev, d, mask_pattern=2)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.assemble(o, y, [0, 0])
        return r
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], d: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        x_tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        d_tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(d, [0, 0], [16, 64])
        ev: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.gather_mask(x_tile, mask_pattern=1)
        y_zero: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        y_values: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_mask(y_zero, ev, mask_pattern=2)
        y_ones: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 32], dtype=pl.FP32, value=1.0)
        y_hzero: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        y_hit: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_mask(y_hzero, y_ones, mask_pattern=2)
        y_mask: pl.Tile[[16, 32], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[16, 8])] = pl.tile.cmps(y_hit, 0.0, cmp_type=1)
        y_seltmp: pl.Tile[[1, 32], pl.UINT8, pl.Mem.Vec] = pl.tile.create([1, 32], dtype=pl.UINT8)
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sel(y_mask, y_values, d_tile, y_seltmp)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(y, [0, 0], o)
        return r
)");
  pass_test::require_equal(convert(before), expected);
}

TEST_CASE("tensor.rsqrt(high_precision=True) is tile.rsqrt with a scratch tile (pto-isa's high-precision form)",
          "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.rsqrt(x, high_precision=True)
        b: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.rsqrt(a)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.assemble(o, b, [0, 0])
        return r
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        x_tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        tmp: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32)
        a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.rsqrt(x_tile, tmp)
        b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.rsqrt(a)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(b, [0, 0], o)
        return r
)");
  pass_test::require_equal(convert(before), expected);
}

TEST_CASE("a loop carry the body computes, started from a tensor parameter, is a tile loaded at entry", "[ConvertTensorToTileOps]") {
  // Found by mutation: `acc` made by one pl.at scope and accumulated in a loop of the next one.
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], acc: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        for i, (a,) in pl.range(4, init_values=(acc,)):
            a2: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(a, x)
            r = pl.yield_(a2)
        out_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(out, r, [0, 0])
        return out_1
)");
  auto k = convert(p)->find("k");
  REQUIRE(k);
  const auto body = ir::flatten_body(k->body);
  const ir::ForStmt* loop = nullptr;
  for (const auto& st : body)
    if (const auto* f = ir::as<ir::ForStmt>(st)) loop = f;
  REQUIRE(loop);
  REQUIRE(loop->iter_args.size() == 1);
  CHECK(ir::as_tile(loop->iter_args[0]->type));                      // the carry is a tile ...
  const auto* init = ir::as<ir::Var>(loop->iter_args[0]->init);
  REQUIRE(init);
  CHECK(init->name == "acc_tile");                                    // ... started from acc's entry load
  CHECK(ir::as_tile(loop->return_vars[0]->type));
}

TEST_CASE("a loop carry an if replaces (one arm a GM window, the other computed) is a tile, and the result an Out param",
          "[ConvertTensorToTileOps]") {
  // qwen3_14b's online softmax: `if lane == 0: oi = oi_sb else: oi = f(oi, oi_sb)`. The carry
  // stayed a tensor while the if yielded tiles (E505 at NormalizeReturnOrder).
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, acc: pl.Tensor[[16, 64], pl.FP32], chunk: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        for lane, (a,) in pl.range(4, init_values=(acc,)):
            sb: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.slice(chunk, [16, 64], [lane * 16, 0])
            if lane == 0:
                a1: pl.Tensor[[16, 64], pl.FP32] = sb
                a3 = pl.yield_(a1)
            else:
                a2: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(a, sb)
                a3 = pl.yield_(a2)
            r = pl.yield_(a3)
        return r
)");
  auto k = convert(p)->find("k");
  REQUIRE(k);
  REQUIRE(k->params.size() == 3);  // the returned result's new Out param
  CHECK(k->param_directions[2] == ir::ParamDirection::Out);
  const ir::ForStmt* loop = nullptr;
  const ir::IfStmt* branch = nullptr;
  for (const auto& st : ir::flatten_body(k->body))
    if (const auto* f = ir::as<ir::ForStmt>(st)) loop = f;
  REQUIRE(loop);
  for (const auto& st : ir::flatten_body(loop->body))
    if (const auto* i = ir::as<ir::IfStmt>(st)) branch = i;
  REQUIRE(branch);
  CHECK(ir::as_tile(loop->iter_args[0]->type));
  const auto* init = ir::as<ir::Var>(loop->iter_args[0]->init);
  REQUIRE(init);
  CHECK(init->name == "acc_tile");
  CHECK(ir::as_tile(branch->return_vars[0]->type));
  CHECK(ir::as_tile(loop->return_vars[0]->type));
  const auto* ret = ir::as<ir::ReturnStmt>(ir::flatten_body(k->body).back());
  REQUIRE(ret);
  const auto* rv = ir::as<ir::Var>(ret->values[0]);
  REQUIRE(rv);
  CHECK(ir::as_tensor(rv->type));  // the tile stored into the Out param
}

// tensor.add(a [R, C], bias [1, C]) was lowered to tile.add of unequal tiles, which TADD computes
// wrong. A [1, C] operand becomes the registry's col_broadcast form (tile.col_expand_<op>), an
// [R, 1] one its row_broadcast form; a broadcast lhs is swapped for commutative ops.
TEST_CASE("a broadcasting binary op becomes its row / col expand form; a commutative one is swapped",
          "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[1, 32], pl.FP32], s: pl.Tensor[[16, 1], pl.FP32], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.add(a, b)
        y: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.mul(x, s)
        z: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.add(b, y)
        w: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.minimum(s, z)
        v: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.sub(w, b)
        u: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.div(v, s)
        o_1: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.assemble(o, u, [0, 0])
        return o_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[1, 32], pl.FP32], s: pl.Tensor[[16, 1], pl.FP32], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        at: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        bt: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [1, 32])
        st: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(s, [0, 0], [16, 1])
        x: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(at, bt)
        y: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_mul(x, st)
        z: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(y, bt)
        w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_min(z, st)
        v: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_sub(w, bt)
        u: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_div(v, st)
        o_1: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(u, [0, 0], o)
        return o_1
)");
  pass_test::require_equal(convert(before), expected);
}

TEST_CASE("rejected: broadcasts the expand forms cannot express, at the op's line", "[ConvertTensorToTileOps]") {
  struct Case {
    std::string lhs, rhs, op, what, hint;
  };
  const std::vector<Case> cases = {
      {"[1, 32]", "[16, 32]", "sub", "'pl.tensor.sub' of shapes [1, 32] and [16, 32] (broadcasting) with the broadcast operand first",
       "broadcast a to the full shape first, pl.tensor.sub(pl.tensor.col_expand(b, a), b)"},
      {"[16, 1]", "[16, 32]", "div", "'pl.tensor.div' of shapes [16, 1] and [16, 32] (broadcasting) with the broadcast operand first",
       "pl.tensor.div(pl.tensor.row_expand(b, a), b)"},
      {"[16, 1]", "[1, 32]", "add", "'pl.tensor.add' of shapes [16, 1] and [1, 32] (broadcasting) other than [R, C] with [1, C] or [R, 1]",
       "pl.tile.row_expand_add(t, [R, 1] vector)"},
      {"[16, 32]", "[1, 1]", "mul", "'pl.tensor.mul' of shapes [16, 32] and [1, 1] (broadcasting) with a [1, 1] operand",
       "pass the element as a scalar"},
      {"[2, 16, 32]", "[1, 1, 32]", "add", "'pl.tensor.add' of shapes [2, 16, 32] and [1, 1, 32] (broadcasting) between operands that are not both 2-D",
       "[R, C] with [1, C] or [R, 1]"},
      {"[16, 32]", "[32]", "add", "'pl.tensor.add' of shapes [16, 32] and [32] (broadcasting) between operands that are not both 2-D",
       "pl.reshape a vector to [1, C]"},
      {"[16, 32]", "[1, 32]", "fmod", "'pl.tensor.fmod' of shapes [16, 32] and [1, 32] (broadcasting)", "has no broadcast form"},
  };
  for (const auto& c : cases) {
    const std::string src = "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
                            "    def k(self, a: pl.Tensor[" + c.lhs + ", pl.FP32], b: pl.Tensor[" + c.rhs + ", pl.FP32]):\n"
                            "        x = pl.tensor." + c.op + "(a, b)\n        return x\n";
    auto p = pass_test::parse(src);
    const auto d = pass_test::first_diagnostic_of([&] { convert(p); });
    INFO(src << "→ " << d.message << " / " << d.hint);
    CHECK(d.code == "E501");
    CHECK(d.message == c.what + " is not supported yet inside a kernel");
    CHECK(d.hint.find(c.hint) != std::string::npos);
    CHECK(d.span.line == 7);
  }
}

TEST_CASE("a tile transpose written without its scratch tile gets one shaped like its operand",
          "[ConvertTensorToTileOps]") {
  const std::string head = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], o: pl.Out[pl.Tensor[[32, 16], pl.FP32]], r: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> tuple[pl.Tensor[[32, 16], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 32])
)";
  const std::string tail = R"(        o1: pl.Tensor[[32, 16], pl.FP32] = pl.store(u, [0, 0], o)
        r1: pl.Tensor[[16, 1], pl.FP32] = pl.store(s, [0, 0], r)
        return o1, r1
)";
  auto before = pass_test::parse(head +
                                 "        u: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, 0, 1)\n"
                                 "        w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32)\n"
                                 "        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(t, w)\n" +
                                 tail);
  auto expected = pass_test::parse(head +
                                   "        tmp: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32)\n"
                                   "        u: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, 0, 1, tmp)\n"
                                   "        w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32)\n"
                                   "        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(t, w)\n" +
                                   tail);
  REQUIRE(before);
  REQUIRE(expected);
  auto after = convert(before);
  pass_test::require_equal(after, expected);
  CHECK(convert(after) == after);  // written with their scratch: unchanged
}

TEST_CASE("mrgsort: format1 maps to its tile form; format2 gets a scratch tile as wide as the joined lists",
          "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 256], pl.FP32], o: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], pl.FP32]:
        s: pl.Tensor[[1, 256], pl.FP32] = pl.tensor.mrgsort_format1(a, 64)
        lo: pl.Tensor[[1, 128], pl.FP32] = pl.tensor.slice(s, [1, 128], [0, 0])
        hi: pl.Tensor[[1, 128], pl.FP32] = pl.tensor.slice(s, [1, 128], [0, 128])
        m: pl.Tensor[[1, 256], pl.FP32] = pl.tensor.mrgsort_format2(lo, hi, exhausted=True)
        o_1: pl.Tensor[[1, 256], pl.FP32] = pl.tensor.assemble(o, m, [0, 0])
        return o_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[1, 256], pl.FP32], o: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], pl.FP32]:
        a_tile: pl.Tile[[1, 256], pl.FP32] = pl.tile.load(a, [0, 0], [1, 256])
        s: pl.Tile[[1, 256], pl.FP32] = pl.tile.mrgsort_format1(a_tile, 64)
        lo: pl.Tile[[1, 128], pl.FP32] = pl.tile.slice(s, [1, 128], [0, 0])
        hi: pl.Tile[[1, 128], pl.FP32] = pl.tile.slice(s, [1, 128], [0, 128])
        tmp: pl.Tile[[1, 256], pl.FP32] = pl.tile.create([1, 256], dtype=pl.FP32)
        m: pl.Tile[[1, 256], pl.FP32] = pl.tile.mrgsort_format2(lo, hi, tmp, exhausted=True)
        o_1: pl.Tensor[[1, 256], pl.FP32] = pl.tile.store(m, [0, 0], o)
        return o_1
)");
  pass_test::require_equal(convert(before), expected);
}

TEST_CASE("create_l1: a Mat tile (L1 staging); transpose=True is not supported yet", "[ConvertTensorToTileOps]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        b: pl.Tensor[[32, 16], pl.FP16] = pl.tensor.create_l1([32, 16], dtype=pl.FP16)
        c: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, c, [0, 0])
        return o_1
)");
  auto out = convert(before);
  const std::string text = ir::print_program(*out);
  INFO(text);
  CHECK(text.find("pl.tile.create([32, 16], dtype=pl.FP16, target_memory=pl.Mem.Mat)") != std::string::npos);
  CHECK(text.find("tensor.create_l1") == std::string::npos);

  auto transposed = error_of(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, o: pl.Out[pl.Tensor[[16, 32], pl.FP16]]) -> pl.Tensor[[16, 32], pl.FP16]:
        b: pl.Tensor[[16, 32], pl.FP16] = pl.tensor.create_l1([16, 32], dtype=pl.FP16, transpose=True)
        o_1: pl.Tensor[[16, 32], pl.FP16] = pl.tensor.assemble(o, b, [0, 0])
        return o_1
)");
  CHECK(transposed.find("'pl.tensor.create_l1' with attribute 'transpose' is not supported yet") != std::string::npos);
}
