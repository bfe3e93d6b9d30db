// ExpandMixedKernel: vector kernels → AIV, cube kernels → AIC (level + SubWorker role); a kernel
// mixing both → <f>_aic + <f>_aiv exchanging tiles through the cross-core FIFO (push / pop /
// release, slot windows, pipe init) and a Group <f> calling both, each half taking the Out
// parameters it does not write as In; what cannot be split is E504.
#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr prep(const std::string& text) {
  return pass_test::run(passes::infer_tile_memory_space_pass(), pass_test::parse(text));
}
}  // namespace

TEST_CASE("vector and cube kernels are retagged", "[ExpandMixedKernel]") {
  auto p = prep(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def vec(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32] = pl.exp(t)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], o)
        return o2

    @pl.function(type=pl.FunctionType.InCore)
    def cube(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32] = pl.matmul(al, br)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        return o2
)");
  auto q = pass_test::run(passes::expand_mixed_kernel_pass(), p);
  auto vec = q->find("vec");
  auto cube = q->find("cube");
  CHECK(vec->type == ir::FunctionType::AIV);
  CHECK(vec->level == ir::Level::AIV);
  CHECK(vec->role == ir::Role::SubWorker);
  CHECK(cube->type == ir::FunctionType::AIC);
  CHECK(cube->level == ir::Level::AIC);
  CHECK(cube->role == ir::Role::SubWorker);
}

// Cube → vector: the Acc → Vec move becomes a push on the AIC and a pop on the AIV, released
// after its last use; the AIV reserves the slot window (one 1 KiB slot: it holds one received
// tile at a time, while the ring is 2 deep), the AIC imports it; the vector-only load stays on the AIV.
TEST_CASE("a matmul with a vector epilogue splits into AIC + AIV + Group", "[ExpandMixedKernel]") {
  auto before = pass_test::parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        v: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.move(c, target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(v, t)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], o)
        return o2
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def k_aic(a: pl.Tensor[[16, 16], pl.FP16], x: pl.Tensor[[16, 16], pl.FP32], o: pl.Tensor[[16, 16], pl.FP32]):
        c2v_slots: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="k_c2v_slot_buffer", peer_func="k_aiv")
        pl.system.aic_initialize_pipe(c2v_slots, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024, local_slot_num=1)
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br)
        pl.tile.tpush_to_aiv(c)
        return

    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k_aiv(a: pl.Tensor[[16, 16], pl.FP16], x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        c2v_slots: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="k_c2v_slot_buffer", size=1024)
        pl.system.aiv_initialize_pipe(c2v_slots, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024, local_slot_num=1)
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16])
        v: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic()
        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(v, t)
        pl.system.tfree_to_aic(v)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(u, [0, 0], o)
        return o2

    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def k(a: pl.Tensor[[16, 16], pl.FP16], x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        self.k_aic(a, x, o)
        k_aiv_out: pl.Tensor[[16, 16], pl.FP32] = self.k_aiv(a, x, o)
        return k_aiv_out

)");
  pass_test::require_equal(pass_test::run(passes::expand_mixed_kernel_pass(), before), expected);
}

// Vector → cube inside a loop: the AIV pushes each exp tile, the AIC pops it into Mat and moves
// it to Left as the original move said; the loop and its index arithmetic run on both sides, the
// output carry only on the AIC (which stores, so it returns the result and the AIV returns none;
// for the AIV, which does not write it, the output is an In parameter).
TEST_CASE("a vector prologue feeding a matmul in a loop splits the other way", "[ExpandMixedKernel]") {
  auto before = pass_test::parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        wm: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        wr: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(wm, target_memory=pl.Mem.Right)
        for i, (o_i,) in pl.range(2, init_values=(o,)):
            r: pl.Scalar[pl.INDEX] = i * 16
            t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.load(x, [r, 0], [16, 16])
            e: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.exp(t)
            el: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(e, target_memory=pl.Mem.Left)
            acc: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(el, wr)
            o_n: pl.Tensor[[32, 16], pl.FP32] = pl.store(acc, [r, 0], o_i)
            o_o = pl.yield_(o_n)
        return o_o
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def k_aic(x: pl.Tensor[[32, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        v2c_slots: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="k_v2c_slot_buffer", size=512)
        pl.system.aic_initialize_pipe(pl.const(0, pl.INT32), v2c_slots, dir_mask=2, slot_size=512, local_slot_num=1)
        wm: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        wr: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(wm, target_memory=pl.Mem.Right)
        for i, (o_i,) in pl.range(2, init_values=(o,)):
            r: pl.Scalar[pl.INDEX] = i * 16
            el_mat: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.tpop_from_aiv()
            el: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(el_mat, target_memory=pl.Mem.Left)
            pl.system.tfree_to_aiv(el_mat)
            acc: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(el, wr)
            o_n: pl.Tensor[[32, 16], pl.FP32] = pl.tile.store(acc, [r, 0], o_i)
            o_o = pl.yield_(o_n)
        return o_o

    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k_aiv(x: pl.Tensor[[32, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], o: pl.Tensor[[32, 16], pl.FP32]):
        v2c_slots: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="k_v2c_slot_buffer", peer_func="k_aic")
        pl.system.aiv_initialize_pipe(pl.const(0, pl.INT32), v2c_slots, dir_mask=2, slot_size=512, local_slot_num=1)
        for i in pl.range(2):
            r: pl.Scalar[pl.INDEX] = i * 16
            t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [r, 0], [16, 16])
            e: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.exp(t)
            pl.tile.tpush_to_aic(e)
        return

    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def k(x: pl.Tensor[[32, 16], pl.FP16], w: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        k_aic_out: pl.Tensor[[32, 16], pl.FP32] = self.k_aic(x, w, o)
        self.k_aiv(x, w, o)
        return k_aic_out

)");
  pass_test::require_equal(pass_test::run(passes::expand_mixed_kernel_pass(), before), expected);
}

TEST_CASE("a received tile carried out of its block is rejected", "[ExpandMixedKernel]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        v: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.move(c, target_memory=pl.Mem.Vec)
        for i, (s,) in pl.range(2, init_values=(v,)):
            s2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.exp(s)
            s3 = pl.yield_(s2)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(s3, [0, 0], o)
        return o2
)");
  const auto d = pass_test::first_diagnostic_of([&] { pass_test::run(passes::expand_mixed_kernel_pass(), p); });
  CHECK(d.code == "E504");
  CHECK(d.message.find("the tile 'v' received from the cube side leaves the block") != std::string::npos);
  CHECK(d.span.line == 13);
}

TEST_CASE("a cube statement reading a vector value without a crossing is rejected", "[ExpandMixedKernel]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        n: pl.Scalar[pl.INDEX] = pl.tile.read(t, [0, 0])
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [n, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.exp(t)
        o3: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], o2)
        return o3
)");
  const auto d = pass_test::first_diagnostic_of([&] { pass_test::run(passes::expand_mixed_kernel_pass(), p); });
  CHECK(d.code == "E504");
  CHECK(d.message.find("this cube statement reads") != std::string::npos);
}

// pl.at's mixed-kernel options reach the split: cross_core_slot(slot_num=4) deepens the ring,
// pl.split stays an attribute of the halves (SplitVectorKernel applies it).
TEST_CASE("pl.cross_core_slot sets the ring depth; pl.split reaches the halves", "[ExpandMixedKernel]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)], name_hint="mm"):
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            o = pl.assemble(o, pl.exp(c), [0, 0])
        return o
)");
  passes::PassContext ctx;
  std::vector<std::string> names;
  for (const auto& pass : passes::default_pipeline()) {
    names.push_back(pass.name);
    if (pass.name == "ExpandMixedKernel") break;
  }
  auto q = passes::run_passes(p, names, ctx);
  CHECK(ctx.diagnostics.take().empty());
  const std::string text = ir::print_program(*q);
  CHECK(text.find("pl.system.aiv_initialize_pipe(c2v_slots, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024, slot_num=4, local_slot_num=1)") != std::string::npos);
  CHECK(text.find("pl.func_attr({\"split\": pl.SplitMode.UP_DOWN, \"cross_core_slot_num\": 4})") != std::string::npos);
  CHECK(q->find("mm")->type == ir::FunctionType::Group);
}

TEST_CASE("pl.split on a kernel using one unit has no effect (W502)", "[ExpandMixedKernel]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)], name_hint="v"):
            o = pl.assemble(o, pl.exp(a), [0, 0])
        return o
)");
  passes::PassContext ctx;
  std::vector<std::string> names;
  for (const auto& pass : passes::default_pipeline()) {
    names.push_back(pass.name);
    if (pass.name == "ExpandMixedKernel") break;
  }
  passes::run_passes(p, names, ctx);
  const auto diags = ctx.diagnostics.take();
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "W502");
  CHECK(diags[0].message.find("has no effect on 'v': it uses only the vector unit") != std::string::npos);
  CHECK(diags[0].span.line == 8);
}

TEST_CASE("a half that returns an Out parameter it does not write keeps it Out", "[ExpandMixedKernel]") {
  // The vector side stores into o as a statement and the kernel returns o itself: both halves
  // return o (a parameter is available to both), so the cube half, which writes nothing, keeps it
  // Out; the vector half, which stores into it, too.
  auto got = pass_test::run(passes::expand_mixed_kernel_pass(), pass_test::parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        v: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.move(c, target_memory=pl.Mem.Vec)
        pl.store(v, [0, 0], o)
        return o
)"));
  for (const char* half : {"k_aic", "k_aiv"}) {
    INFO(half);
    auto f = got->find(half);
    REQUIRE(f);
    REQUIRE(f->param_directions.size() == 2);
    CHECK(f->param_directions[1] == ir::ParamDirection::Out);
  }
}

// Both halves write one output, each its own rows (a block's result from the cube, zeros for an
// empty block from the vector side): on each side the other side's store is the tensor it
// updated, so each half keeps the loop, the branch and its own store; no tiles cross, so there is
// no pipe; W504 says that nothing orders the two halves' writes.
TEST_CASE("both halves writing one output each keep their own stores, with W504", "[ExpandMixedKernel]") {
  auto before = pass_test::parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], m: pl.Tensor[[2], pl.INT32], o: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        for i, (o1,) in pl.range(2, init_values=(o,)):
            f: pl.Scalar[pl.INT32] = pl.tensor.read(m, [i])
            r: pl.Scalar[pl.INDEX] = i * 16
            if f > 0:
                am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
                al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
                br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
                c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
                o2: pl.Tensor[[32, 16], pl.FP32] = pl.store(c, [r, 0], o1)
                o4: pl.Tensor[[32, 16], pl.FP32] = pl.yield_(o2)
            else:
                z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
                o3: pl.Tensor[[32, 16], pl.FP32] = pl.store(z, [r, 0], o1)
                o4: pl.Tensor[[32, 16], pl.FP32] = pl.yield_(o3)
            o5: pl.Tensor[[32, 16], pl.FP32] = pl.yield_(o4)
        return o5
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def k_aic(a: pl.Tensor[[16, 16], pl.FP16], m: pl.Tensor[[2], pl.INT32], o: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        for i, (o1,) in pl.range(2, init_values=(o,)):
            f: pl.Scalar[pl.INT32] = pl.tensor.read(m, [i])
            r: pl.Scalar[pl.INDEX] = i * 16
            if f > 0:
                am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
                al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
                br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(am, target_memory=pl.Mem.Right)
                c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br)
                o2: pl.Tensor[[32, 16], pl.FP32] = pl.tile.store(c, [r, 0], o1)
                o4: pl.Tensor[[32, 16], pl.FP32] = pl.yield_(o2)
            else:
                o4: pl.Tensor[[32, 16], pl.FP32] = pl.yield_(o1)
            o5: pl.Tensor[[32, 16], pl.FP32] = pl.yield_(o4)
        return o5

    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k_aiv(a: pl.Tensor[[16, 16], pl.FP16], m: pl.Tensor[[2], pl.INT32], o: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        for i, (o1,) in pl.range(2, init_values=(o,)):
            f: pl.Scalar[pl.INT32] = pl.tensor.read(m, [i])
            r: pl.Scalar[pl.INDEX] = i * 16
            if f > 0:
                o4: pl.Tensor[[32, 16], pl.FP32] = pl.yield_(o1)
            else:
                z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
                o3: pl.Tensor[[32, 16], pl.FP32] = pl.tile.store(z, [r, 0], o1)
                o4: pl.Tensor[[32, 16], pl.FP32] = pl.yield_(o3)
            o5: pl.Tensor[[32, 16], pl.FP32] = pl.yield_(o4)
        return o5

    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def k(a: pl.Tensor[[16, 16], pl.FP16], m: pl.Tensor[[2], pl.INT32], o: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        k_aic_out: pl.Tensor[[32, 16], pl.FP32] = self.k_aic(a, m, o)
        k_aiv_out: pl.Tensor[[32, 16], pl.FP32] = self.k_aiv(a, m, o)
        return k_aic_out
)");
  passes::PassContext ctx;
  auto after = passes::expand_mixed_kernel_pass().run(prep(ir::print_program(*before)), ctx);
  pass_test::require_equal(after, expected);
  REQUIRE(ctx.diagnostics.diagnostics().size() == 1);
  CHECK(ctx.diagnostics.diagnostics()[0].code == "W504");
  CHECK(ctx.diagnostics.diagnostics()[0].message.find("both halves of mixed kernel 'k' write 'o'") != std::string::npos);
  // Its notes point at a write of each half.
  REQUIRE(ctx.diagnostics.diagnostics()[0].notes.size() == 2);
  CHECK(ctx.diagnostics.diagnostics()[0].notes[0].second == "the cube half writes it here");
  CHECK(ctx.diagnostics.diagnostics()[0].notes[1].second == "the vector half writes it here");
}

TEST_CASE("a half reading a tensor the other half writes is rejected", "[ExpandMixedKernel]") {
  // The vector side reloads what the cube stored: nothing orders the cube's store before the load.
  auto p = prep(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(o, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.exp(t)
        o3: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], o2)
        return o3
)");
  try {
    pass_test::run(passes::expand_mixed_kernel_pass(), p);
    FAIL("expected E504");
  } catch (const ir::CompileError& e) {
    CHECK(e.diagnostics().at(0).code == "E504");
  }
  const std::string err = pass_test::compile_error_of([&] { pass_test::run(passes::expand_mixed_kernel_pass(), p); });
  CHECK(err.find("this vector statement reads 'o', which the cube side writes") != std::string::npos);
}

TEST_CASE("a read under the other branch of a kernel-uniform if than the other half's write is admitted",
          "[ExpandMixedKernel]") {
  // `s` is a scalar parameter: both halves, on every block, take the same branch, so the cube's
  // store (s == 0) and the vector's read-modify-write (else) never run in one launch; the task
  // graph orders the launches. No E504, and no W504 for the two halves' stores either.
  auto before = pass_test::parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], s: pl.Scalar[pl.INDEX], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        if s == 0:
            am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
            al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
            br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
            c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
            o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
            o4: pl.Tensor[[16, 16], pl.FP32] = pl.yield_(o2)
        else:
            t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(o, [0, 0], [16, 16])
            u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.exp(t)
            o3: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], o)
            o4: pl.Tensor[[16, 16], pl.FP32] = pl.yield_(o3)
        return o4
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def k_aic(a: pl.Tensor[[16, 16], pl.FP16], s: pl.Scalar[pl.INDEX], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        if s == 0:
            am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
            al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
            br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(am, target_memory=pl.Mem.Right)
            c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br)
            o2: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], o)
            o4 = pl.yield_(o2)
        else:
            o4 = pl.yield_(o)
        return o4

    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k_aiv(a: pl.Tensor[[16, 16], pl.FP16], s: pl.Scalar[pl.INDEX], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        if s == 0:
            o4 = pl.yield_(o)
        else:
            t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(o, [0, 0], [16, 16])
            u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
            o3: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(u, [0, 0], o)
            o4 = pl.yield_(o3)
        return o4

    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def k(a: pl.Tensor[[16, 16], pl.FP16], s: pl.Scalar[pl.INDEX], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        k_aic_out: pl.Tensor[[16, 16], pl.FP32] = self.k_aic(a, s, o)
        k_aiv_out: pl.Tensor[[16, 16], pl.FP32] = self.k_aiv(a, s, o)
        return k_aic_out
)");
  passes::PassContext ctx;
  auto after = passes::expand_mixed_kernel_pass().run(prep(ir::print_program(*before)), ctx);
  pass_test::require_equal(after, expected);
  CHECK(ctx.diagnostics.diagnostics().empty());
}

TEST_CASE("a read after an all-core barrier is admitted and reads the kernel's parameter", "[ExpandMixedKernel]") {
  // pl.system.syncall (core_type "mix", in both halves) orders the cube's store before the
  // vector's load. The vector half has no version of `o` of its own (the cube's o2): it loads the
  // parameter, which it only reads (In).
  auto before = pass_test::parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        pl.system.syncall()
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(o2, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.exp(t)
        y2: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], y)
        return o2, y2
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def k_aic(a: pl.Tensor[[16, 16], pl.FP16], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]], y: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.tile.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(al, br)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], o)
        pl.system.syncall()
        return o2

    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def k_aiv(a: pl.Tensor[[16, 16], pl.FP16], o: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        pl.system.syncall()
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(o, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        y2: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(u, [0, 0], y)
        return y2

    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def k(a: pl.Tensor[[16, 16], pl.FP16], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        k_aic_out: pl.Tensor[[16, 16], pl.FP32] = self.k_aic(a, o, y)
        k_aiv_out: pl.Tensor[[16, 16], pl.FP32] = self.k_aiv(a, o, y)
        return k_aic_out, k_aiv_out
)");
  passes::PassContext ctx;
  auto after = passes::expand_mixed_kernel_pass().run(prep(ir::print_program(*before)), ctx);
  pass_test::require_equal(after, expected);
}

TEST_CASE("a read the other half's write may overlap is still rejected", "[ExpandMixedKernel]") {
  auto e504 = [](const std::string& text) {
    auto p = prep(text);
    return pass_test::compile_error_of([&] { pass_test::run(passes::expand_mixed_kernel_pass(), p); });
  };
  // A branch on the loop variable: iteration 1 reads what iteration 0's cube stored.
  CHECK(e504(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        for i, (o1,) in pl.range(2, init_values=(o,)):
            if i == 0:
                am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
                al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
                br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
                c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
                o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o1)
                o4: pl.Tensor[[16, 16], pl.FP32] = pl.yield_(o2)
            else:
                t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(o1, [0, 0], [16, 16])
                o3: pl.Tensor[[16, 16], pl.FP32] = pl.store(pl.exp(t), [0, 0], o1)
                o4: pl.Tensor[[16, 16], pl.FP32] = pl.yield_(o3)
            o5: pl.Tensor[[16, 16], pl.FP32] = pl.yield_(o4)
        return o5
)").find("this vector statement reads 'o', which the cube side writes") != std::string::npos);
  // A barrier of the vector cores only: the cube does not take part, so it orders nothing.
  CHECK(e504(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        pl.system.syncall(core_type="aiv_only")
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(o2, [0, 0], [16, 16])
        y2: pl.Tensor[[16, 16], pl.FP32] = pl.store(pl.exp(t), [0, 0], y)
        return o2, y2
)").find("this vector statement reads 'o', which the cube side writes") != std::string::npos);
  // The barrier comes after the read: the load and the store are in the same epoch.
  CHECK(e504(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(o2, [0, 0], [16, 16])
        pl.system.syncall()
        y2: pl.Tensor[[16, 16], pl.FP32] = pl.store(pl.exp(t), [0, 0], y)
        return o2, y2
)").find("this vector statement reads 'o', which the cube side writes") != std::string::npos);
}

TEST_CASE("a mixed kernel without a return statement splits into halves and a Group returning nothing",
          "[ExpandMixedKernel]") {
  // (Its Out tensor is written through the store; before, the Group's results were looked for in
  // the halves' returns and the pass failed with an internal error.)
  auto p = prep(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.move(c, target_memory=pl.Mem.Vec)
        y2: pl.Tensor[[16, 16], pl.FP32] = pl.store(pl.exp(t), [0, 0], y)
)");
  ir::ProgramPtr after;
  REQUIRE_NOTHROW(after = pass_test::run(passes::expand_mixed_kernel_pass(), p));
  REQUIRE(after->find("k_aic"));
  REQUIRE(after->find("k_aiv"));
  REQUIRE(after->find("k"));
  CHECK(after->find("k")->type == ir::FunctionType::Group);
  CHECK(ir::print_program(*after).find("return") == std::string::npos);
}
