// CanonicalizeTileSlice: a slice of a Mat tile moved to Left / Right becomes one tile.extract of
// that block and the slice goes; a slice something else also reads stays beside the extract; an
// off-grid or runtime offset, a Vec source, or a move elsewhere is left alone.
#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr run(const ir::ProgramPtr& p) { return pass_test::run(passes::canonicalize_tile_slice_pass(), p); }

std::string kernel(const std::string& body) {
  return R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def k(self, a: pl.Tensor[[32, 64], pl.BF16], b: pl.Tensor[[64, 128], pl.BF16], o: pl.Out[pl.Tensor[[32, 64], pl.FP32]], c: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 64], pl.FP32]:
        am: pl.Tile[[32, 64], pl.BF16, pl.Mem.Mat] = pl.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[64, 128], pl.BF16, pl.Mem.Mat] = pl.load(b, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        al: pl.Tile[[32, 64], pl.BF16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
)" + body + R"(        r: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br, out_dtype=pl.FP32)
        o1: pl.Tensor[[32, 64], pl.FP32] = pl.store(r, [0, 0], o)
        return o1
)";
}

ir::ProgramPtr parse(const std::string& body) {
  auto p = pass_test::parse(kernel(body));
  REQUIRE(p);
  return p;
}
}  // namespace

TEST_CASE("a Mat slice moved to Right becomes one extract of that block", "[CanonicalizeTileSlice]") {
  auto before = parse(
      "        s: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(bm, [64, 64], [0, 64])\n"
      "        br: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(s, target_memory=pl.Mem.Right)\n");
  auto expected = parse(
      "        br: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(bm, 0, 64, [64, 64], target_memory=pl.Mem.Right)\n");
  auto after = run(before);
  pass_test::require_equal(after, expected);
  CHECK(run(after) == after);
}

TEST_CASE("a Mat slice something else reads too stays beside the extract", "[CanonicalizeTileSlice]") {
  auto before = parse(
      "        s: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(bm, [64, 64], [0, 64])\n"
      "        br: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.move(s, target_memory=pl.Mem.Right)\n"
      "        bl: pl.Tile[[64, 64], pl.BF16, pl.Mem.Left] = pl.tile.move(s, target_memory=pl.Mem.Left)\n"
      "        bv: pl.Tile[[64, 64], pl.BF16, pl.Mem.Vec] = pl.tile.move(s, target_memory=pl.Mem.Vec)\n");
  auto expected = parse(
      "        s: pl.Tile[[64, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(bm, [64, 64], [0, 64])\n"
      "        br: pl.Tile[[64, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(bm, 0, 64, [64, 64], target_memory=pl.Mem.Right)\n"
      "        bl: pl.Tile[[64, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(bm, 0, 64, [64, 64], target_memory=pl.Mem.Left)\n"
      "        bv: pl.Tile[[64, 64], pl.BF16, pl.Mem.Vec] = pl.tile.move(s, target_memory=pl.Mem.Vec)\n");
  pass_test::require_equal(run(before), expected);
}

TEST_CASE("slices off the fractal grid, at runtime offsets or outside Mat are left alone", "[CanonicalizeTileSlice]") {
  for (const char* slice : {"pl.tile.slice(bm, [64, 64], [0, 8])",      // 16 bytes into a row
                            "pl.tile.slice(bv, [64, 64], [0, 64])",     // a Vec tile
                            "pl.tile.slice(bm, [64, 64], [0, c])"}) {   // runtime column
    INFO(slice);
    const std::string shape = "[64, 64]";
    const std::string space = std::string(slice).find("bv") != std::string::npos ? "Vec" : "Mat";
    auto p = parse("        bv: pl.Tile[[64, 128], pl.BF16, pl.Mem.Vec] = pl.load(b, [0, 0], [64, 128])\n"
                   "        s: pl.Tile[" + shape + ", pl.BF16, pl.Mem." + space + "] = " + slice + "\n"
                   "        br: pl.Tile[" + shape + ", pl.BF16, pl.Mem.Right] = pl.tile.move(s, target_memory=pl.Mem.Right)\n");
    CHECK(run(p) == p);
  }
}
