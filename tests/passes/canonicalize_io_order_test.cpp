// CanonicalizeIOOrder: every pl.pipeline loop body is list-scheduled scalar → load → compute →
// store (source order among equals, the trailing yield last) and the loop becomes sequential;
// nothing moves past a statement it depends on: a value it reads, a GM tensor one of them writes
// (distinct parameters are distinct buffers), a tile an in-place op writes, a barrier (a nested
// loop, a function call); a body with a cross-core FIFO op keeps its order.
#include "pass_test_util.h"

using namespace pypto;

namespace {

const std::string kHead =
    "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(strict_ssa=True)\n";

ir::ProgramPtr canon(const ir::ProgramPtr& p) {
  passes::PassContext ctx;
  return passes::canonicalize_io_order_pass().run(p, ctx);
}

}  // namespace

TEST_CASE("two clones: both loads first, then the compute, the stores last; the loop is sequential",
          "[CanonicalizeIOOrder]") {
  const std::string sig =
      "    def main(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:\n";
  auto before = pass_test::parse(kHead + sig +
                                 "        for i, (acc,) in pl.pipeline(0, 64, 32, stage=2, init_values=(o,)):\n"
                                 "            t0: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [i, 0], [16, 64])\n"
                                 "            c0: pl.Tile[[16, 64], pl.FP32] = pl.tile.exp(t0)\n"
                                 "            o1: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c0, [i, 0], acc)\n"
                                 "            off: pl.Scalar[pl.INDEX] = i + 16\n"
                                 "            t1: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [off, 0], [16, 64])\n"
                                 "            c1: pl.Tile[[16, 64], pl.FP32] = pl.tile.exp(t1)\n"
                                 "            o2: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c1, [off, 0], o1)\n"
                                 "            r = pl.yield_(o2)\n"
                                 "        return r\n");
  auto expected = pass_test::parse(kHead + sig +
                                   "        for i, (acc,) in pl.range(0, 64, 32, init_values=(o,)):\n"
                                   "            off: pl.Scalar[pl.INDEX] = i + 16\n"
                                   "            t0: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [i, 0], [16, 64])\n"
                                   "            t1: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [off, 0], [16, 64])\n"
                                   "            c0: pl.Tile[[16, 64], pl.FP32] = pl.tile.exp(t0)\n"
                                   "            c1: pl.Tile[[16, 64], pl.FP32] = pl.tile.exp(t1)\n"
                                   "            o1: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c0, [i, 0], acc)\n"
                                   "            o2: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c1, [off, 0], o1)\n"
                                   "            r = pl.yield_(o2)\n"
                                   "        return r\n");
  pass_test::require_equal(canon(before), expected);
}

TEST_CASE("buffer dependencies hold: a load of the tensor a store writes, an in-place write of a tile",
          "[CanonicalizeIOOrder]") {
  const std::string sig =
      "    def main(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]):\n";
  // The second load reads o, which the store before it writes (the same parameter): it stays
  // after the store. The tile.write updates t in place: the exp of t before it stays before it,
  // and the load of a (another parameter) still rises above the store.
  auto before = pass_test::parse(kHead + sig +
                                 "        for i in pl.pipeline(0, 2, 1, stage=1):\n"
                                 "            t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [0, 0], [16, 64])\n"
                                 "            e: pl.Tile[[16, 64], pl.FP32] = pl.tile.exp(t)\n"
                                 "            pl.tile.write(t, [0, 0], 7.0)\n"
                                 "            pl.tile.store(e, [0, 0], o)\n"
                                 "            u: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(o, [0, 0], [16, 64])\n"
                                 "            v: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [16, 0], [16, 64])\n"
                                 "            w: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(u, v)\n");
  auto expected = pass_test::parse(kHead + sig +
                                   "        for i in pl.range(0, 2, 1):\n"
                                   "            t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [0, 0], [16, 64])\n"
                                   "            v: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [16, 0], [16, 64])\n"
                                   "            e: pl.Tile[[16, 64], pl.FP32] = pl.tile.exp(t)\n"
                                   "            pl.tile.write(t, [0, 0], 7.0)\n"
                                   "            pl.tile.store(e, [0, 0], o)\n"
                                   "            u: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(o, [0, 0], [16, 64])\n"
                                   "            w: pl.Tile[[16, 64], pl.FP32] = pl.tile.add(u, v)\n");
  pass_test::require_equal(canon(before), expected);
}

TEST_CASE("a cross-core body keeps its order; a nested loop is a barrier; inner loops first",
          "[CanonicalizeIOOrder]") {
  const std::string sig =
      "    def main(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]):\n";
  auto before = pass_test::parse(kHead + sig +
                                 "        for i in pl.pipeline(0, 2, 1, stage=1):\n"
                                 "            q: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [0, 0], [16, 64])\n"
                                 "            pl.tile.tpush_to_aic(q, split=0)\n"
                                 "            p: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [16, 0], [16, 64])\n"
                                 "        for j in pl.pipeline(0, 2, 1, stage=1):\n"
                                 "            x: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [0, 0], [16, 64])\n"
                                 "            pl.tile.store(x, [0, 0], o)\n"
                                 "            for k in pl.pipeline(0, 2, 1, stage=1):\n"
                                 "                y: pl.Tile[[16, 64], pl.FP32] = pl.tile.exp(x)\n"
                                 "                z: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [16, 0], [16, 64])\n"
                                 "            w: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [32, 0], [16, 64])\n");
  auto expected = pass_test::parse(kHead + sig +
                                   "        for i in pl.range(0, 2, 1):\n"
                                   "            q: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [0, 0], [16, 64])\n"
                                   "            pl.tile.tpush_to_aic(q, split=0)\n"
                                   "            p: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [16, 0], [16, 64])\n"
                                   "        for j in pl.range(0, 2, 1):\n"
                                   "            x: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [0, 0], [16, 64])\n"
                                   "            pl.tile.store(x, [0, 0], o)\n"
                                   "            for k in pl.range(0, 2, 1):\n"
                                   "                z: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [16, 0], [16, 64])\n"
                                   "                y: pl.Tile[[16, 64], pl.FP32] = pl.tile.exp(x)\n"
                                   "            w: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [32, 0], [16, 64])\n");
  auto after = canon(before);
  pass_test::require_equal(after, expected);
  CHECK(canon(after) == after);  // nothing left to do
}
