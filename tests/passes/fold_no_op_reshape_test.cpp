// FoldNoOpReshape: after memory planning a tile.reshape onto its own buffer at its own signature
// becomes `t2 = t1` (Before/Expected through the same planning passes); a reshape to another
// shape, into another buffer, or with another valid shape stays; orchestration code is not
// visited; a second run changes nothing.
#include "pass_test_util.h"

#include "ir/printer.h"

using namespace pypto;

namespace {

const std::vector<std::string> kPlan = {"convert_to_ssa", "outline_incore_scopes", "flatten_tile_nd_to_2d",
                                        "infer_tile_memory_space", "init_mem_ref", "memory_reuse", "allocate_memory_addr"};

ir::ProgramPtr plan(const std::string& text) { return pass_test::run_named(kPlan, pass_test::parse(text)); }
ir::ProgramPtr fold(const ir::ProgramPtr& p) { return pass_test::run(passes::fold_no_op_reshape_pass(), p); }

std::string kernel(const std::string& line) {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n"
         "    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def k(self, a: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
         "        t: pl.Tile[[16, 64], pl.FP32, pl.MemorySpace.Vec] = pl.load(a, [0, 0], [16, 64])\n" +
         line +
         "        r: pl.Tensor[[16, 64], pl.FP32] = pl.store(u, [0, 0], o)\n"
         "        return r\n";
}

}  // namespace

TEST_CASE("a reshape onto its own buffer at its own shape becomes a copy", "[FoldNoOpReshape]") {
  auto before = plan(kernel("        u: pl.Tile[[16, 64], pl.FP32, pl.MemorySpace.Vec] = pl.tile.reshape(t, [16, 64])\n"));
  auto expected = plan(kernel("        u: pl.Tile[[16, 64], pl.FP32, pl.MemorySpace.Vec] = t\n"));
  auto after = fold(before);
  pass_test::require_equal(after, expected);
  CHECK(fold(after) == after);
}

TEST_CASE("a reshape that changes the shape stays", "[FoldNoOpReshape]") {
  auto before = plan(kernel(
      "        w: pl.Tile[[32, 32], pl.FP32, pl.MemorySpace.Vec] = pl.tile.reshape(t, [32, 32])\n"
      "        u: pl.Tile[[16, 64], pl.FP32, pl.MemorySpace.Vec] = pl.tile.reshape(w, [16, 64])\n"));
  CHECK(fold(before) == before);
}

TEST_CASE("a reshape into another buffer, or to another valid shape, stays", "[FoldNoOpReshape]") {
  // Written with its MemRefs: the result in a second Vec buffer.
  const std::string two_buffers = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], o: pl.Out[pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[16, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=4096)
        mem_vec_3: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=4096)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64])
        u: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.reshape(t, [16, 64])
        r: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 4096)] = pl.tile.store(u, [0, 0], o)
        return r
)";
  auto p = pass_test::parse(two_buffers);
  REQUIRE(p);
  CHECK(fold(p) == p);
  // Same buffer, but the result's valid shape differs from the source's.
  std::string valid = two_buffers;
  valid.replace(valid.find("MemRef(mem_vec_3"), 16, "MemRef(mem_vec_2");
  valid.replace(valid.find("pl.Mem.Vec] = pl.tile.reshape"), 10, "pl.Mem.Vec, pl.TileView(valid_shape=[8, 64])");
  auto q = pass_test::parse(valid);
  REQUIRE(q);
  CHECK(ir::print_program(*fold(q)).find("pl.tile.reshape(t, [16, 64])") != std::string::npos);
  // With the valid shape taken away, the same program folds.
  std::string same = two_buffers;
  same.replace(same.find("MemRef(mem_vec_3"), 16, "MemRef(mem_vec_2");
  CHECK(ir::print_program(*fold(pass_test::parse(same))).find("pl.tile.reshape") == std::string::npos);
}
