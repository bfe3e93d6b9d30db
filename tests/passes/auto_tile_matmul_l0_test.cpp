// AutoTileMatmulL0: a matmul that fits L0 is unchanged; one whose operands overflow L0A / L0B
// gets a K loop of Mat → Left / Right extracts (the result keeps its variable); one whose result
// overflows L0C is computed and stored to GM block by block in an M / N loop nest carrying the
// tensor, or assembled block by block into a Mat tile; a matmul result narrowed with
// mode="rint" for another matmul is assembled into a Mat tile instead of cast on the vector core
// (other modes keep the cast); a larger-than-L0C result used otherwise than by one store or one
// Mat assemble is E501 at the matmul; an operand computed in Vec is moved to Mat and tiled there;
// a tile-level matmul on Mat tiles (before InferTileMemorySpace moves them) is tiled alike, also
// with a transpose view operand.
#include "ir/verify_util.h"
#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr tile(const ir::ProgramPtr& p) { return pass_test::run(passes::auto_tile_matmul_l0_pass(), p); }
}  // namespace

TEST_CASE("a matmul that fits L0 is unchanged", "[AutoTileMatmulL0]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        am: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        l: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        r: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r, out_dtype=pl.FP32)
        o_1: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], o)
        return o_1
)");
  CHECK(tile(p) == p);
}

TEST_CASE("operands overflowing L0A / L0B: a K loop of extracts; the result keeps its variable", "[AutoTileMatmulL0]") {
  // [64, 1024] FP16 is 128 KiB (L0A 64 KiB): m = n = 64, k = 512 (64 x 512 FP16 fills L0A).
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 1024], pl.FP16], b: pl.Tensor[[1024, 64], pl.FP16], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        am: pl.Tile[[64, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 1024], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[1024, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 64], target_memory=pl.Mem.Mat)
        l: pl.Tile[[64, 1024], pl.FP16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        r: pl.Tile[[1024, 64], pl.FP16, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r, out_dtype=pl.FP32)
        o_1: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], o)
        return o_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 1024], pl.FP16], b: pl.Tensor[[1024, 64], pl.FP16], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        am: pl.Tile[[64, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 1024], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[1024, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 64], target_memory=pl.Mem.Mat)
        l0: pl.Tile[[64, 512], pl.FP16, pl.Mem.Left] = pl.tile.extract(am, 0, 0, [64, 512], target_memory=pl.Mem.Left)
        r0: pl.Tile[[512, 64], pl.FP16, pl.Mem.Right] = pl.tile.extract(bm, 0, 0, [512, 64], target_memory=pl.Mem.Right)
        c0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l0, r0, out_dtype=pl.FP32)
        for kb, (acc,) in pl.range(1, 2, init_values=(c0,)):
            lk: pl.Tile[[64, 512], pl.FP16, pl.Mem.Left] = pl.tile.extract(am, 0, kb * 512, [64, 512], target_memory=pl.Mem.Left)
            rk: pl.Tile[[512, 64], pl.FP16, pl.Mem.Right] = pl.tile.extract(bm, kb * 512, 0, [512, 64], target_memory=pl.Mem.Right)
            nxt: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, lk, rk)
            c = pl.yield_(nxt)
        o_1: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], o)
        return o_1
)");
  pass_test::require_equal(tile(before), expected);
}

TEST_CASE("a result overflowing L0C is stored block by block, the GM tensor carried", "[AutoTileMatmulL0]") {
  // [256, 256] FP32 is 256 KiB (L0C 128 KiB): m = 128, n = 256; K = 32 in one step.
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 32], pl.FP32], b: pl.Tensor[[32, 256], pl.FP32], o: pl.Out[pl.Tensor[[512, 256], pl.FP32]]) -> pl.Tensor[[512, 256], pl.FP32]:
        am: pl.Tile[[256, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [256, 32], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[32, 256], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 256], target_memory=pl.Mem.Mat)
        l: pl.Tile[[256, 32], pl.FP32, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        r: pl.Tile[[32, 256], pl.FP32, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c: pl.Tile[[256, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r, out_dtype=pl.FP32)
        o_1: pl.Tensor[[512, 256], pl.FP32] = pl.tile.store(c, [256, 0], o)
        return o_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 32], pl.FP32], b: pl.Tensor[[32, 256], pl.FP32], o: pl.Out[pl.Tensor[[512, 256], pl.FP32]]) -> pl.Tensor[[512, 256], pl.FP32]:
        am: pl.Tile[[256, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [256, 32], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[32, 256], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 256], target_memory=pl.Mem.Mat)
        for mb, (oi,) in pl.range(0, 2, init_values=(o,)):
            l0: pl.Tile[[128, 32], pl.FP32, pl.Mem.Left] = pl.tile.extract(am, mb * 128, 0, [128, 32], target_memory=pl.Mem.Left)
            r0: pl.Tile[[32, 256], pl.FP32, pl.Mem.Right] = pl.tile.extract(bm, 0, 0, [32, 256], target_memory=pl.Mem.Right)
            blk: pl.Tile[[128, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l0, r0, out_dtype=pl.FP32)
            st: pl.Tensor[[512, 256], pl.FP32] = pl.tile.store(blk, [256 + mb * 128, 0], oi)
            o_1 = pl.yield_(st)
        return o_1
)");
  pass_test::require_equal(tile(before), expected);
}

TEST_CASE("a larger-than-L0C result read on chip is not supported yet", "[AutoTileMatmulL0]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 32], pl.FP32], b: pl.Tensor[[32, 256], pl.FP32], o: pl.Out[pl.Tensor[[256, 256], pl.FP32]]) -> pl.Tensor[[256, 256], pl.FP32]:
        am: pl.Tile[[256, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [256, 32], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[32, 256], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 256], target_memory=pl.Mem.Mat)
        l: pl.Tile[[256, 32], pl.FP32, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        r: pl.Tile[[32, 256], pl.FP32, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c: pl.Tile[[256, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r, out_dtype=pl.FP32)
        v: pl.Tile[[256, 256], pl.FP32, pl.Mem.Mat] = pl.tile.move(c, target_memory=pl.Mem.Mat)
        o_1: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(c, [0, 0], o)
        return o_1
)");
  const std::string err = pass_test::compile_error_of([&] { tile(p); });
  CHECK(err.find("does not fit one Acc tile (131072 bytes) and is used other than by one store to GM or one assemble into a Mat tile") !=
        std::string::npos);
}

namespace {
// (a @ b) narrowed to BF16 for a second matmul with e; `mode` is the cast's rounding.
std::string chain(int M, int K, const std::string& mode) {
  const std::string m = std::to_string(M), k = std::to_string(K);
  return R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[)" + m + ", " + k + R"(], pl.BF16], b: pl.Tensor[[)" + k + ", " + m + R"(], pl.BF16], e: pl.Tensor[[)" + m +
         R"(, 32], pl.BF16], o: pl.Out[pl.Tensor[[)" + m + R"(, 32], pl.FP32]]) -> pl.Tensor[[)" + m + R"(, 32], pl.FP32]:
        am: pl.Tile[[)" + m + ", " + k + R"(], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [)" + m + ", " + k + R"(], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[)" + k + ", " + m + R"(], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [)" + k + ", " + m + R"(], target_memory=pl.Mem.Mat)
        em: pl.Tile[[)" + m + R"(, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(e, [0, 0], [)" + m + R"(, 32], target_memory=pl.Mem.Mat)
        l: pl.Tile[[)" + m + ", " + k + R"(], pl.BF16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        r: pl.Tile[[)" + k + ", " + m + R"(], pl.BF16, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c: pl.Tile[[)" + m + ", " + m + R"(], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r, out_dtype=pl.FP32)
        cb: pl.Tile[[)" + m + ", " + m + R"(], pl.BF16, pl.Mem.Vec] = pl.tile.cast(c, target_type=pl.BF16, mode=")" + mode + R"(")
        l2: pl.Tile[[)" + m + ", " + m + R"(], pl.BF16, pl.Mem.Left] = pl.tile.move(cb, target_memory=pl.Mem.Left)
        r2: pl.Tile[[)" + m + R"(, 32], pl.BF16, pl.Mem.Right] = pl.tile.move(em, target_memory=pl.Mem.Right)
        d: pl.Tile[[)" + m + R"(, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l2, r2, out_dtype=pl.FP32)
        o_1: pl.Tensor[[)" + m + R"(, 32], pl.FP32] = pl.tile.store(d, [0, 0], o)
        return o_1
)";
}
}  // namespace

TEST_CASE("a matmul result narrowed with rint for the next matmul is assembled into a Mat tile", "[AutoTileMatmulL0]") {
  // [64, 64]: everything fits L0; only the cast folds.
  const std::string before = chain(64, 32, "rint");
  std::string expected = before;
  const std::string cast_line =
      R"(cb: pl.Tile[[64, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(c, target_type=pl.BF16, mode="rint"))";
  expected.replace(expected.find(cast_line), cast_line.size(),
                   "cb_mat: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.create([64, 64], dtype=pl.BF16, target_memory=pl.Mem.Mat)\n"
                   "        cb: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.assemble(cb_mat, c, [0, 0])");
  pass_test::require_equal(tile(pass_test::parse(before)), pass_test::parse(expected));
  // Rounding half away from zero is not the cube's: the vector cast stays.
  auto round = pass_test::parse(chain(64, 32, "round"));
  CHECK(tile(round) == round);
}

TEST_CASE("a larger-than-L0C result narrowed for the next matmul is assembled block by block into a Mat tile",
          "[AutoTileMatmulL0]") {
  // [256, 256] FP32 overflows L0C: [128, 256] blocks, each assembled at its row into the BF16
  // scratch the M loop carries; the second matmul ([256, 256] BF16 operand overflows L0A) reads
  // the scratch through L0 extracts.
  auto got = tile(pass_test::parse(chain(256, 32, "rint")));
  const std::string text = ir::print_program(*got);
  INFO(text);
  CHECK(text.find("pl.tile.cast") == std::string::npos);
  CHECK(text.find("cb_mat: pl.Tile[[256, 256], pl.BF16, pl.Mem.Mat] = pl.tile.create([256, 256], dtype=pl.BF16, target_memory=pl.Mem.Mat)") !=
        std::string::npos);
  CHECK(text.find("pl.tile.assemble(") != std::string::npos);
  CHECK(text.find("mb * 128, 0]") != std::string::npos);  // each block at its row offset
  CHECK(text.find("pl.tile.extract(cb") != std::string::npos);  // the consumer reads the scratch
  CHECK(text.find("does not fit") == std::string::npos);
}

TEST_CASE("a matmul_acc whose operands overflow L0 accumulates every K block into its accumulator", "[AutoTileMatmulL0]") {
  // [16, 512] x [512, 256] BF16: the right operand is 256 KiB (L0B 64 KiB): k = 128 blocks, all
  // matmul_acc, the first one into the incoming accumulator.
  auto got = tile(pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 512], pl.BF16], b: pl.Tensor[[512, 256], pl.BF16], o: pl.Out[pl.Tensor[[16, 256], pl.FP32]]) -> pl.Tensor[[16, 256], pl.FP32]:
        am: pl.Tile[[16, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 512], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[512, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 256], target_memory=pl.Mem.Mat)
        l: pl.Tile[[16, 512], pl.BF16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        r: pl.Tile[[512, 256], pl.BF16, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c0: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r, out_dtype=pl.FP32)
        l2: pl.Tile[[16, 512], pl.BF16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        r2: pl.Tile[[512, 256], pl.BF16, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c0, l2, r2)
        o_1: pl.Tensor[[16, 256], pl.FP32] = pl.tile.store(c, [0, 0], o)
        return o_1
)"));
  const std::string text = ir::print_program(*got);
  INFO(text);
  CHECK(text.find("pl.tile.move(bm") == std::string::npos);  // no whole-operand move is left
  CHECK(text.find("c_k0: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c0, c_l0a, c_l0b)") != std::string::npos);
  CHECK(text.find("pl.tile.matmul_acc(c_acc, ") != std::string::npos);
}

TEST_CASE("an operand the vector core computes is moved to Mat and its blocks extracted from there", "[AutoTileMatmulL0]") {
  // e [32, 128] BF16 is computed in Vec; w [128, 512] BF16 is 128 KiB (L0B 64 KiB): m = 32,
  // n = 512, k = 64. e's move to Left becomes a move to Mat (ExpandMixedKernel pops it there).
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 128], pl.FP32], w: pl.Tensor[[128, 512], pl.BF16], o: pl.Out[pl.Tensor[[32, 512], pl.FP32]]) -> pl.Tensor[[32, 512], pl.FP32]:
        xv: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 128])
        e: pl.Tile[[32, 128], pl.BF16, pl.Mem.Vec] = pl.tile.cast(xv, target_type=pl.BF16, mode="rint")
        wm: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
        l: pl.Tile[[32, 128], pl.BF16, pl.Mem.Left] = pl.tile.move(e, target_memory=pl.Mem.Left)
        r: pl.Tile[[128, 512], pl.BF16, pl.Mem.Right] = pl.tile.move(wm, target_memory=pl.Mem.Right)
        c: pl.Tile[[32, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r, out_dtype=pl.FP32)
        o_1: pl.Tensor[[32, 512], pl.FP32] = pl.tile.store(c, [0, 0], o)
        return o_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 128], pl.FP32], w: pl.Tensor[[128, 512], pl.BF16], o: pl.Out[pl.Tensor[[32, 512], pl.FP32]]) -> pl.Tensor[[32, 512], pl.FP32]:
        xv: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 128])
        e: pl.Tile[[32, 128], pl.BF16, pl.Mem.Vec] = pl.tile.cast(xv, target_type=pl.BF16, mode="rint")
        wm: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
        em: pl.Tile[[32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.move(e, target_memory=pl.Mem.Mat)
        l0: pl.Tile[[32, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(em, 0, 0, [32, 64], target_memory=pl.Mem.Left)
        r0: pl.Tile[[64, 512], pl.BF16, pl.Mem.Right] = pl.tile.extract(wm, 0, 0, [64, 512], target_memory=pl.Mem.Right)
        c0: pl.Tile[[32, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l0, r0, out_dtype=pl.FP32)
        for kb, (acc,) in pl.range(1, 2, init_values=(c0,)):
            lk: pl.Tile[[32, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(em, 0, kb * 64, [32, 64], target_memory=pl.Mem.Left)
            rk: pl.Tile[[64, 512], pl.BF16, pl.Mem.Right] = pl.tile.extract(wm, kb * 64, 0, [64, 512], target_memory=pl.Mem.Right)
            nxt: pl.Tile[[32, 512], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, lk, rk)
            c = pl.yield_(nxt)
        o_1: pl.Tensor[[32, 512], pl.FP32] = pl.tile.store(c, [0, 0], o)
        return o_1
)");
  pass_test::require_equal(tile(before), expected);
}

TEST_CASE("an operand with valid rows is tiled in whole blocks; valid columns short of K are E501", "[AutoTileMatmulL0]") {
  // am [64, 1024] FP16 with 20 valid rows (128 KiB: L0A is 64 KiB): the K loop extracts whole
  // blocks, as for a fully valid operand. The same operand with 1000 valid columns (of K = 1024)
  // would sum the garbage columns: rejected at the matmul.
  auto program = [](const std::string& valid) {
    return R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 1024], pl.FP16], b: pl.Tensor[[1024, 64], pl.FP16], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        am: pl.Tile[[64, 1024], pl.FP16, pl.Mem.Mat, pl.TileView(valid_shape=)" + valid + R"()] = pl.tile.load(a, [0, 0], [64, 1024], )" + valid + R"(, target_memory=pl.Mem.Mat)
        bm: pl.Tile[[1024, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 64], target_memory=pl.Mem.Mat)
        l: pl.Tile[[64, 1024], pl.FP16, pl.Mem.Left, pl.TileView(valid_shape=)" + valid + R"()] = pl.tile.move(am, target_memory=pl.Mem.Left)
        r: pl.Tile[[1024, 64], pl.FP16, pl.Mem.Right] = pl.tile.move(bm, target_memory=pl.Mem.Right)
        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, r, out_dtype=pl.FP32)
        o_1: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], o)
        return o_1
)";
  };
  auto rows = tile(pass_test::parse(program("[20, 1024]")));
  const std::string text = ir::print_program(*rows);
  INFO(text);
  CHECK(text.find("pl.tile.extract(am, 0, 0, [64, 512], target_memory=pl.Mem.Left)") != std::string::npos);
  CHECK(text.find("pl.tile.matmul_acc(") != std::string::npos);
  auto cols = pass_test::parse(program("[64, 1000]"));
  const std::string msg = pass_test::compile_error_of([&] { tile(cols); });
  CHECK(msg.find("automatic L0 tiling of a matmul whose operands have a valid shape short of K is not supported yet") !=
        std::string::npos);
}

TEST_CASE("a tile-level matmul reading Mat tiles itself is tiled; a transpose view operand too; the Mat tiles stay",
          "[AutoTileMatmulL0]") {
  // DeepSeek-V4's sparse HCA scores: [32, 512] x [128, 512]^T in BF16; the [512, 128] Right
  // operand is 128 KiB (L0B 64): k = 256. The Mat tiles have other readers, so they are kept.
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, q: pl.Tensor[[32, 512], pl.BF16], kv: pl.Tensor[[128, 512], pl.BF16], o: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:
        kvm: pl.Tile[[128, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(kv, [0, 0], [128, 512], target_memory=pl.Mem.Mat)
        kvt: pl.Tile[[512, 128], pl.BF16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(kvm)
        qm: pl.Tile[[32, 512], pl.BF16, pl.Mem.Mat] = pl.tile.load(q, [0, 0], [32, 512], target_memory=pl.Mem.Mat)
        s: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(qm, kvt, out_dtype=pl.FP32)
        o_1: pl.Tensor[[32, 128], pl.FP32] = pl.tile.store(s, [0, 0], o)
        return o_1
)");
  auto after = tile(before);
  const auto k = after->find("k");
  REQUIRE(k);
  int extracts_left = 0, extracts_right = 0, loops = 0;
  ir::verify_detail::for_each_stmt(k->body, [&](const ir::Stmt& st) {
    if (ir::as<ir::ForStmt>(&st)) ++loops;
    const auto* a = ir::as<ir::AssignStmt>(&st);
    const auto* c = a ? ir::as<ir::Call>(a->value) : nullptr;
    if (!c || !c->is_op("tile.extract")) return;
    const auto* t = ir::as_tile(a->var->type);
    REQUIRE(t);
    const auto shape = ir::static_shape(t->shape);
    REQUIRE(shape);
    if (t->space == ir::MemorySpace::Left) {
      ++extracts_left;
      CHECK(*shape == std::vector<int64_t>{32, 256});
    }
    if (t->space == ir::MemorySpace::Right) {
      ++extracts_right;
      CHECK(*shape == std::vector<int64_t>{256, 128});
      const auto* src = ir::as<ir::Var>(c->args[0]);
      REQUIRE(src);
      CHECK(src->name == "kvt");  // extracted from the transpose view
    }
  });
  CHECK(extracts_left == 2);  // the first K block, and one in the K loop
  CHECK(extracts_right == 2);
  CHECK(loops == 1);
}
