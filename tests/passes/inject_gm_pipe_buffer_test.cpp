// InjectGMPipeBuffer: on 910B a mixed Group and both halves get the trailing gm_pipe_buffer
// workspace (slot_num × slot_size bytes per direction), the pipe inits receive it, and each
// orchestration call creates one; the 950 is left alone.
#include "pass_test_util.h"

using namespace pypto;

namespace {
const char* kBefore = R"(
import pypto.language as pl

@pl.program
class f:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def k_aic(x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
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
        self.k_aic(x, w, b, y)
        k_aiv_out: pl.Tensor[[16, 16], pl.FP32] = self.k_aiv(x, w, b, y)
        return k_aiv_out

    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y_1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, w, b, y)
        return y_1)";
}  // namespace

// The C2V pipe of 2 slots of 1 KiB: a 2 KiB ring in GM.
TEST_CASE("a mixed kernel gets its GM slot ring on 910B", "[InjectGMPipeBuffer]") {
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class f:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def k_aic(x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]], gm_pipe_buffer: pl.Tensor[[2048], pl.INT8]):
        c2v_slots: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="k_c2v_slot_buffer", peer_func="k_aiv")
        pl.system.aic_initialize_pipe(c2v_slots, pl.const(0, pl.INT32), gm_pipe_buffer, dir_mask=1, slot_size=1024, local_slot_num=1)
        x_mat: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        w_mat: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc_lhs: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(x_mat, target_memory=pl.Mem.Left)
        acc_rhs: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(w_mat, target_memory=pl.Mem.Right)
        acc: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(acc_lhs, acc_rhs, out_dtype=pl.FP32)
        pl.tile.tpush_to_aiv(acc)
        return

    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k_aiv(x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]], gm_pipe_buffer: pl.Tensor[[2048], pl.INT8]) -> pl.Tensor[[16, 16], pl.FP32]:
        c2v_slots: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="k_c2v_slot_buffer", size=1024)
        pl.system.aiv_initialize_pipe(c2v_slots, pl.const(0, pl.INT32), gm_pipe_buffer, dir_mask=1, slot_size=1024, local_slot_num=1)
        b_tile: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [1, 16])
        acc_Vec: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic()
        add: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(acc_Vec, b_tile)
        pl.system.tfree_to_aic(acc_Vec)
        y_1: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(add, [0, 0], y)
        return y_1

    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def k(x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]], gm_pipe_buffer: pl.Tensor[[2048], pl.INT8]) -> pl.Tensor[[16, 16], pl.FP32]:
        self.k_aic(x, w, b, y, gm_pipe_buffer)
        k_aiv_out: pl.Tensor[[16, 16], pl.FP32] = self.k_aiv(x, w, b, y, gm_pipe_buffer)
        return k_aiv_out

    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[16, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[1, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        k_pipe_buffer: pl.Tensor[[2048], pl.INT8] = pl.tensor.create([2048], dtype=pl.INT8)
        y_1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, w, b, y, k_pipe_buffer)
        return y_1
)");
  pass_test::require_equal(pass_test::run(passes::inject_gm_pipe_buffer_pass(), pass_test::parse(kBefore)), expected);
}

TEST_CASE("the 950 needs no GM slot ring", "[InjectGMPipeBuffer]") {
  auto p = pass_test::parse(kBefore);
  CHECK(pass_test::run(passes::inject_gm_pipe_buffer_pass(), p, ir::Soc::Ascend950) == p);
}
