// SplitVectorKernel: pl.split on a mixed kernel puts its AIV half on both lanes, each on half of
// the tiles spanning the split axis (loads / stores moved by the lane offset, FIFO calls stamped
// with the split, the AIV half marked aiv_lanes = 2); what it cannot split stays on one lane with
// warning W502.
#include "pass_test_util.h"

using namespace pypto;

namespace {
const char* kBefore = R"(
import pypto.language as pl

@pl.program
class f:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def k_aic(x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        c2v_slots: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="k_c2v_slot_buffer", peer_func="k_aiv")
        pl.system.aic_initialize_pipe(c2v_slots, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024, local_slot_num=1)
        x_mat: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        w_mat: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc_lhs: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(x_mat, target_memory=pl.Mem.Left)
        acc_rhs: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(w_mat, target_memory=pl.Mem.Right)
        acc: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(acc_lhs, acc_rhs, out_dtype=pl.FP32)
        pl.tile.tpush_to_aiv(acc)
        return

    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k_aiv(x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        c2v_slots: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="k_c2v_slot_buffer", size=1024)
        pl.system.aiv_initialize_pipe(c2v_slots, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024, local_slot_num=1)
        b_tile: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [1, 16])
        acc_Vec: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic()
        add: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(acc_Vec, b_tile)
        pl.system.tfree_to_aic(acc_Vec)
        y_1: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(add, [0, 0], y)
        return y_1

    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def k(x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        self.k_aic(x, w, b, y)
        k_aiv_out: pl.Tensor[[16, 16], pl.FP32] = self.k_aiv(x, w, b, y)
        return k_aiv_out

    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y_1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, w, b, y)
        return y_1)";
}  // namespace

// UP_DOWN: the [16, 16] tiles the cube hands over become [8, 16] per lane; the [1, 16] bias row
// stays whole (every lane adds it); the store moves down by lane * 8 rows.
TEST_CASE("UP_DOWN halves the vector half's tiles by rows", "[SplitVectorKernel]") {
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class f:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def k_aic(x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        c2v_slots: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="k_c2v_slot_buffer", peer_func="k_aiv")
        pl.system.aic_initialize_pipe(c2v_slots, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024, local_slot_num=1, split=1)
        x_mat: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        w_mat: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc_lhs: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(x_mat, target_memory=pl.Mem.Left)
        acc_rhs: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(w_mat, target_memory=pl.Mem.Right)
        acc: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(acc_lhs, acc_rhs, out_dtype=pl.FP32)
        pl.tile.tpush_to_aiv(acc, split=1)
        return

    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k_aiv(x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "aiv_lanes": 2})
        lane: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        lane_offset: pl.Scalar[pl.INDEX] = lane * 8
        c2v_slots: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="k_c2v_slot_buffer", size=1024)
        pl.system.aiv_initialize_pipe(c2v_slots, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024, local_slot_num=1, split=1)
        b_tile: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [1, 16])
        acc_Vec: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)
        add: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(acc_Vec, b_tile)
        pl.system.tfree_to_aic(acc_Vec, split=1)
        y_1: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(add, [0 + lane_offset, 0], y)
        return y_1

    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def k(x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        self.k_aic(x, w, b, y)
        k_aiv_out: pl.Tensor[[16, 16], pl.FP32] = self.k_aiv(x, w, b, y)
        return k_aiv_out

    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y_1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, w, b, y)
        return y_1
)");
  passes::PassContext ctx;
  auto got = passes::split_vector_kernel_pass().run(pass_test::parse(kBefore), ctx);
  pass_test::require_equal(got, expected);
  CHECK(ctx.diagnostics.take().empty());
}

TEST_CASE("a split the vector half cannot take is W502 and one lane", "[SplitVectorKernel]") {
  // A row sum reduces across LEFT_RIGHT's axis: no split.
  std::string text = kBefore;
  for (std::string::size_type at; (at = text.find("pl.SplitMode.UP_DOWN")) != std::string::npos;)
    text.replace(at, std::string("pl.SplitMode.UP_DOWN").size(), "pl.SplitMode.LEFT_RIGHT");
  const std::string add = "pl.tile.col_expand_add(acc_Vec, b_tile)";
  text.replace(text.find(add), add.size(), "pl.tile.col_expand_add(acc_Vec, b_tile)\n        s: pl.Scalar[pl.FP32] = pl.tile.read(add, [0, 0])");
  passes::PassContext ctx;
  auto p = pass_test::parse(text);
  auto got = passes::split_vector_kernel_pass().run(p, ctx);
  CHECK(got == p);
  const auto d = ctx.diagnostics.take();
  REQUIRE(d.size() == 1);
  CHECK(d[0].code == "W502");
  CHECK(d[0].message.find("is not applied to 'k': pl.tile.read") != std::string::npos);
}
