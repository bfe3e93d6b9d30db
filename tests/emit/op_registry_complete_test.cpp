// The registry completeness test: walks every registered op and fails when
//   * it has no positive and no negative type case below (a positive case must type-check and
//     build a call of that very op; a negative one must fail with a located diagnostic on its line);
//   * a tile op has no pipe fact (a pipe, a pipe rule, or the explicit no-instruction marker);
//   * a non-tensor op has no kernel emit row and no registry `kernel_deferred` marker, or both
//     (a `composite` op has neither);
//   * a tensor op has neither a tile form nor an orchestration row (unless deferred);
//   * an op marked `orchestration` has no orchestration row;
//   * any emit table names an op the registry does not know, or names one twice;
//   * the broadcast facts (same_shapes, row / col broadcast forms, commutative) of a tensor op
//     and its tile form disagree, or a form is not an interpreted, emitted [R, C] ∘ vector op.
// Then it proves that every instruction the kernel table names exists in the CPU runtime with
// the operand form the emitter writes: the positive case of every tile op with a kernel row is
// compiled through the whole pipeline into a kernel, and all kernels are compiled as one
// translation unit against runtime/include.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <functional>

#include "emit/kernel_emitter.h"
#include "emit/kernel_op_table.h"
#include "emit/orchestration_op_table.h"
#include "emit/emit_test_util.h"
#include "ir/op_registry.h"
#include "parser/frontend.h"

using namespace pypto;
using namespace pypto::ir;

namespace {

// The kernel every case runs in: tiles of several dtypes and shapes in Vec (a, b: FP32 [16,16];
// ah: FP16; ai: INT32; au: UINT32; col: [16,1]; row: [1,16]; mk: a compare mask), the tensors
// they came from, and scalars n (INDEX) and f (FP32). Cube cases run in a second kernel with
// Mat / Left / Right / Acc / Bias tiles; batched cases in a third with rank-3 tiles.
const char* kVecPrelude =
    "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def k(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32],\n"
    "          xh: pl.Tensor[[16, 16], pl.FP16], xi: pl.Tensor[[16, 16], pl.INT32],\n"
    "          xc: pl.Tensor[[16, 1], pl.FP32], xr: pl.Tensor[[1, 16], pl.FP32],\n"
    "          xu: pl.Tensor[[16, 16], pl.UINT32],\n"
    "          n: pl.Scalar[pl.INDEX], f: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):\n"
    "        a = pl.load(x, [0, 0], [16, 16])\n"
    "        b = pl.load(y, [0, 0], [16, 16])\n"
    "        ah = pl.load(xh, [0, 0], [16, 16])\n"
    "        ai = pl.load(xi, [0, 0], [16, 16])\n"
    "        col = pl.load(xc, [0, 0], [16, 1])\n"
    "        row = pl.load(xr, [0, 0], [1, 16])\n"
    "        au = pl.load(xu, [0, 0], [16, 16])\n"
    "        mk = pl.tile.cmp(a, b, cmp_type=4)\n"
    "        ou = pl.load(xu, [0, 0], [16, 8])\n";
const char* kCubePrelude =
    "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def k(self, x: pl.Tensor[[16, 16], pl.FP16], y: pl.Tensor[[16, 16], pl.FP16],\n"
    "          zb: pl.Tensor[[1, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):\n"
    "        am = pl.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
    "        bm = pl.load(y, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
    "        l = pl.move(am, target_memory=pl.Mem.Left)\n"
    "        r = pl.move(bm, target_memory=pl.Mem.Right)\n"
    "        acc = pl.matmul(l, r)\n"
    "        zm = pl.load(zb, [0, 0], [1, 16], target_memory=pl.Mem.Mat)\n"
    "        bias = pl.move(zm, target_memory=pl.Mem.Bias)\n"
    "        am1 = pl.load(x, [0, 0], [1, 16], target_memory=pl.Mem.Mat)\n"
    "        l1 = pl.move(am1, target_memory=pl.Mem.Left)\n"
    "        acc1 = pl.tile.gemv(l1, r)\n";
const char* kBatchPrelude =
    "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def k(self, x3: pl.Tensor[[2, 16, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):\n"
    "        t3 = pl.load(x3, [0, 0, 0], [2, 16, 16])\n"
    "        acc3 = pl.tile.batch_matmul(t3, t3)\n";
// MX matmul operands (950): FP8 data and FP8E8M0 scales in Left / LeftScale / Right / RightScale,
// an FP32 accumulator and bias.
const char* kMxPrelude =
    "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def k(self, x: pl.Tensor[[16, 64], pl.FP8E4M3FN], xs: pl.Tensor[[16, 2], pl.FP8E8M0, pl.MX_A_ZZ],\n"
    "          y: pl.Tensor[[64, 32], pl.FP8E4M3FN], ys: pl.Tensor[[2, 32], pl.FP8E8M0, pl.MX_B_NN],\n"
    "          zb: pl.Tensor[[1, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):\n"
    "        l = pl.move(pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)\n"
    "        ls = pl.move(pl.load(xs, [0, 0], [16, 2], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)\n"
    "        r = pl.move(pl.load(y, [0, 0], [64, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)\n"
    "        rs = pl.move(pl.load(ys, [0, 0], [2, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.RightScale)\n"
    "        bias = pl.move(pl.load(zb, [0, 0], [1, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)\n"
    "        acc = pl.matmul_mx(l, ls, r, rs)\n";

enum class Ctx { Vec, Cube, Batch, Mx };
struct Case {
  std::string op, good, bad;
  Ctx ctx = Ctx::Vec;
};

std::vector<Case> make_cases() {
  std::vector<Case> c;
  auto both = [&](const std::string& name, const std::string& tile_args, const std::string& bad_tile_args,
                  const std::string& tensor_args, const std::string& bad_tensor_args) {
    c.push_back({"tile." + name, "v = pl.tile." + name + "(" + tile_args + ")", "v = pl.tile." + name + "(" + bad_tile_args + ")"});
    c.push_back({"tensor." + name, "v = pl.tensor." + name + "(" + tensor_args + ")",
                 "v = pl.tensor." + name + "(" + bad_tensor_args + ")"});
  };
  for (const char* b : {"add", "sub", "mul", "div", "maximum", "minimum"}) {
    both(b, "a, b", "a, ah", "x, y", "x, xh");  // operands of different dtypes
    both(std::string(b) + "s", "a, 2.0", "a, b", "x, 2.0", "x, y");  // the scalar form wants a scalar
  }
  for (const char* u : {"exp", "log", "sqrt", "neg", "abs", "relu", "recip", "rsqrt"}) both(u, "a", "n", "x", "n");
  both("cast", "a, pl.FP16", "a, pl.Mem.Vec", "x, pl.FP16", "x, pl.Mem.Vec");
  both("expands", "a, 1.5", "a, b", "x, 1.5", "x, y");
  for (const char* k : {"sum", "max", "min"}) {
    both(std::string("row_") + k, "a, b", "a", "x", "a");     // the tile form needs its tmp tile
    both(std::string("col_") + k, "a", "x", "x", "a");
  }
  for (const char* e : {"", "_add", "_sub", "_mul", "_div", "_max", "_min", "_expdif"}) {
    both(std::string("row_expand") + e, "a, col", "a, row", "x, xc", "x, xr");
    both(std::string("col_expand") + e, "a, row", "a, col", "x, xr", "x, xc");
  }
  both("full", "[16, 16], pl.FP32, 0.5", "[16, 16], pl.FP32", "[16, 16], pl.FP32, 0.5", "[16, 16], pl.FP32");
  both("reshape", "a, [32, 8]", "a, [32, 32]", "x, [32, 8]", "x, [32, 32]");
  both("slice", "a, [8, 16], [0, 0]", "a, [8, 16]", "x, [8, 16], [0, 0]", "x, [8, 16]");
  both("assemble", "a, col, [0, 0]", "a, x, [0, 0]", "x, xc, [0, 0]", "x, a, [0, 0]");
  both("read", "a, [0, 1]", "a, 3", "x, [0, 1]", "x, 3");
  both("write", "a, [0, 1], 2.0", "a, [0, 1], b", "x, [0, 1], 2.0", "x, [0, 1], y");
  both("transpose", "a, 0, 1, b", "n, 0, 1", "x, 0, 1", "n, 0, 1");
  c.push_back({"tile.create", "v = pl.tile.create([16, 16], dtype=pl.FP32)", "v = pl.tile.create(a, dtype=pl.FP32)"});
  c.push_back({"tile.load", "v = pl.tile.load(x, [0, 0], [8, 16])", "v = pl.tile.load(x, [0, 0], [8, 16, 4])"});
  c.push_back({"tile.store", "pl.tile.store(a, [0, 0], out)", "pl.tile.store(ah, [0, 0], out)"});
  c.push_back({"tile.move", "v = pl.tile.move(a, target_memory=pl.Mem.Vec)", "v = pl.tile.move(a)"});
  c.push_back({"tile.alloc", "v = pl.tile.alloc(memory_space=pl.Mem.Vec, size=1024)",
               "v = pl.tile.alloc(memory_space=pl.Mem.Vec, size=0)"});
  c.push_back({"tile.extract", "v = pl.tile.extract(am, 0, 0, [16, 16], target_memory=pl.Mem.Left)",
               "v = pl.tile.extract(am, 0, 0, [16, 16])", Ctx::Cube});
  c.push_back({"tile.matmul", "v = pl.tile.matmul(l, r)", "v = pl.tile.matmul(l, am, r)", Ctx::Cube});
  c.push_back({"tile.matmul_acc", "v = pl.tile.matmul_acc(acc, l, r)", "v = pl.tile.matmul_acc(acc, l)", Ctx::Cube});
  // Integer / bitwise, remainders, slopes, partial elementwise.
  for (const char* b : {"and", "or", "shl", "shr"}) {
    both(b, "ai, ai", "a, b", "xi, xi", "x, y");
    both(std::string(b) + "s", "ai, 3", "a, 3", "xi, 3", "x, 3");
  }
  c.push_back({"tile.xor", "v = pl.tile.xor(ai, ai, ai)", "v = pl.tile.xor(ai, ai)"});
  c.push_back({"tile.xors", "v = pl.tile.xors(ai, 3, ai)", "v = pl.tile.xors(ai, 3)"});
  c.push_back({"tensor.xor", "v = pl.tensor.xor(xi, xi)", "v = pl.tensor.xor(x, y)"});
  c.push_back({"tensor.xors", "v = pl.tensor.xors(xi, 3)", "v = pl.tensor.xors(x, 3)"});
  both("not", "ai", "a", "xi", "x");
  both("fmod", "a, b", "a, ah", "x, y", "x, xh");
  both("fmods", "a, 2.0", "a, b", "x, 2.0", "x, y");
  c.push_back({"tile.rem", "v = pl.tile.rem(a, b, b)", "v = pl.tile.rem(a, b)"});
  c.push_back({"tile.rems", "v = pl.tile.rems(a, 2.0, b)", "v = pl.tile.rems(a, 2.0)"});
  c.push_back({"tile.lrelu", "v = pl.tile.lrelu(a, 0.1)", "v = pl.tile.lrelu(ai, 1)"});
  c.push_back({"tile.prelu", "v = pl.tile.prelu(a, b, b)", "v = pl.tile.prelu(a, ah, b)"});
  for (const char* p : {"part_add", "part_mul", "part_max", "part_min"}) both(p, "a, b", "a, ah", "x, y", "x, xh");
  for (const char* u : {"sin", "cos"}) both(u, "a", "ai", "x", "xi");
  // Compare and select.
  c.push_back({"tile.cmp", "v = pl.tile.cmp(a, b, cmp_type=4)", "v = pl.tile.cmp(a, ah)"});
  c.push_back({"tile.cmps", "v = pl.tile.cmps(a, 0.0, cmp_type=2)", "v = pl.tile.cmps(a, 0.0, cmp_type=9)"});
  c.push_back({"tensor.cmp", "v = pl.tensor.cmp(x, y, cmp_type=4)", "v = pl.tensor.cmp(x, xh)"});
  c.push_back({"tile.sel", "v = pl.tile.sel(mk, a, b, mk)", "v = pl.tile.sel(a, a, b, mk)"});
  c.push_back({"tile.sels", "v = pl.tile.sels(mk, a, mk, 0.0)", "v = pl.tile.sels(a, a, mk, 0.0)"});
  // Products and arg reductions.
  both("row_prod", "a, b", "a", "x", "a");
  both("col_prod", "a", "x", "x", "a");
  for (const char* k : {"row_argmax", "row_argmin", "col_argmax", "col_argmin"}) both(k, "a, b", "a, col", "x", "n");
  // Gather / scatter / sort / concat.
  both("gather", "a, ai, ai", "a, a, ai", "x, xi", "x, x");
  both("scatter", "a, b, ai", "a, b, a", "x, xi, y", "x, x, y");
  both("sort32", "a, au", "ai, au", "x, xu", "xi, xu");
  both("concat", "a, b", "a, ah", "x, y", "x, xh");
  c.push_back({"tile.gather_row", "v = pl.tile.gather_row(a, x, [0, 0], [0, 0], [16, 16])",
               "v = pl.tile.gather_row(a, xh, [0, 0], [0, 0], [16, 16])"});
  c.push_back({"tensor.gather_row", "v = pl.tensor.gather_row(y, x, [0, 0], [0, 0], [16, 16])",
               "v = pl.tensor.gather_row(y, xh, [0, 0], [0, 0], [16, 16])"});
  // Views, valid shapes, pads, generators.
  c.push_back({"tile.transpose_view", "v = pl.tile.transpose_view(am)", "v = pl.tile.transpose_view(x)", Ctx::Cube});
  both("set_validshape", "a, 8, 8", "a, 32, 8", "x, 8, 8", "x, 32, 8");
  both("fillpad", "a", "x", "x", "a");
  c.push_back({"tile.fillpad_inplace", "v = pl.tile.fillpad_inplace(a)", "v = pl.tile.fillpad_inplace(x)"});
  both("fillpad_expand", "a, [32, 32]", "a, [8, 8]", "x, [32, 32]", "x, [8, 8]");
  both("ci", "0, [1, 16], dtype=pl.INT32", "0, [1, 16], dtype=pl.FP32", "0, [1, 16], dtype=pl.INT32",
       "0, [1, 16], dtype=pl.FP32");
  c.push_back({"tile.tri", "v = pl.tile.tri(0, [16, 16])", "v = pl.tile.tri(0, [16])"});
  c.push_back({"tile.random", "v = pl.tile.random(1, 2, 3, 4, 5, 6, [16, 16])", "v = pl.tile.random(1, 2, 3, 4, 5, 6, [16])"});
  for (const char* n : {"addc", "subc"})
    c.push_back({std::string("tile.") + n, std::string("v = pl.tile.") + n + "(a, b, b)", std::string("v = pl.tile.") + n + "(a, ah, b)"});
  for (const char* n : {"addsc", "subsc"})
    c.push_back({std::string("tile.") + n, std::string("v = pl.tile.") + n + "(a, 2.0, b)", std::string("v = pl.tile.") + n + "(a, 2.0, ah)"});
  c.push_back({"tile.gatherb", "v = pl.tile.gatherb(a, ou)", "v = pl.tile.gatherb(a, ai)"});
  c.push_back({"tile.gather_mask", "v = pl.tile.gather_mask(a, mask_pattern=1)", "v = pl.tile.gather_mask(a, mask_pattern=9)"});
  c.push_back({"tensor.gather_mask", "v = pl.tensor.gather_mask(x, mask_pattern=1)", "v = pl.tensor.gather_mask(x, mask_pattern=9)"});
  c.push_back({"tile.scatter_mask", "v = pl.tile.scatter_mask(a, b, mask_pattern=2)", "v = pl.tile.scatter_mask(a, ah, mask_pattern=2)"});
  c.push_back({"tensor.scatter_mask", "v = pl.tensor.scatter_mask(x, y, mask_pattern=7)",
               "v = pl.tensor.scatter_mask(x, y, mask_pattern=1)"});  // 16 columns spread by 2 are not 16
  // SPMD identity, AIC↔AIV boundary markers, L1 staging.
  for (const char* k : {"get_block_idx", "get_block_num", "get_subblock_idx"}) both(k, "", "a", "", "x");
  both("aiv_shard", "a, split=1", "a, split=5", "x, split=1", "x, split=5");
  both("aic_gather", "a, split=1", "a, split=7", "x, split=1", "x, split=7");
  c.push_back({"tensor.create_l1", "v = pl.tensor.create_l1([16, 16], pl.FP16)", "v = pl.tensor.create_l1([16], pl.FP16)"});
  // Extra cube ops.
  c.push_back({"tile.matmul_bias", "v = pl.tile.matmul_bias(l, r, bias)", "v = pl.tile.matmul_bias(l, r, l)", Ctx::Cube});
  c.push_back({"tile.matmul_mx", "v = pl.tile.matmul_mx(l, ls, r, rs)", "v = pl.tile.matmul_mx(l, rs, r, rs)", Ctx::Mx});
  c.push_back({"tile.matmul_mx_acc", "v = pl.tile.matmul_mx_acc(acc, l, ls, r, rs)",
               "v = pl.tile.matmul_mx_acc(bias, l, ls, r, rs)", Ctx::Mx});
  c.push_back({"tile.matmul_mx_bias", "v = pl.tile.matmul_mx_bias(l, ls, r, rs, bias)",
               "v = pl.tile.matmul_mx_bias(l, ls, r, rs, acc)", Ctx::Mx});
  c.push_back({"tile.tget_scale_addr", "v = pl.tile.tget_scale_addr(ls, l)", "v = pl.tile.tget_scale_addr(ls, r)", Ctx::Mx});
  c.push_back({"tile.gemv", "v = pl.tile.gemv(l1, r)", "v = pl.tile.gemv(l, r)", Ctx::Cube});
  c.push_back({"tile.gemv_acc", "v = pl.tile.gemv_acc(acc1, l1, r)", "v = pl.tile.gemv_acc(acc, l, r)", Ctx::Cube});
  c.push_back({"tile.batch_matmul", "v = pl.tile.batch_matmul(t3, t3)", "v = pl.tile.batch_matmul(t3)", Ctx::Batch});
  c.push_back({"tile.batch_matmul_acc", "v = pl.tile.batch_matmul_acc(acc3, t3, t3)",
               "v = pl.tile.batch_matmul_acc(acc3, t3)", Ctx::Batch});
  // System, array, prefetch, distributed.
  c.push_back({"system.syncall", "pl.system.syncall()", "pl.system.syncall(mode=\"fast\")"});
  c.push_back({"system.task_dummy", "v = pl.system.task_dummy(deps=[])", "v = pl.system.task_dummy(deps=[x])"});
  c.push_back({"system.task_invalid", "v = pl.system.task_invalid()", "v = pl.system.task_invalid(a)"});
  c.push_back({"system.task_is_valid", "v = pl.system.task_is_valid(pl.system.task_invalid())", "v = pl.system.task_is_valid(n)"});
  c.push_back({"system.available_cluster_count", "v = pl.system.available_cluster_count()", "v = pl.system.available_cluster_count(n)"});
  c.push_back({"system.available_aiv_count", "v = pl.system.available_aiv_count()", "v = pl.system.available_aiv_count(n)"});
  c.push_back({"system.fence", "pl.system.fence()", "pl.system.fence(a)"});
  c.push_back({"array.create", "v = pl.array.create(8, pl.INT32)", "v = pl.array.create(0, pl.INT32)"});
  c.push_back({"prefetch.make_context", "v = pl.prefetch.make_context()", "v = pl.prefetch.make_context(a)"});
  c.push_back({"prefetch.async_prefetch", "v = pl.prefetch.async_prefetch(xr, n)", "v = pl.prefetch.async_prefetch(x, n)"});
  c.push_back({"prefetch.session", "v = pl.prefetch.session(pl.prefetch.make_context())", "v = pl.prefetch.session()"});
  c.push_back({"prefetch.wait", "v = pl.prefetch.wait(pl.prefetch.make_context(), pl.prefetch.make_context())",
               "v = pl.prefetch.wait(n)"});
  c.push_back({"tensor.create", "v = pl.tensor.create([16, 16], dtype=pl.FP32)", "v = pl.tensor.create([16, 16], dtype=3)"});
  c.push_back({"tensor.dim", "v = pl.tensor.dim(x, 1)", "v = pl.tensor.dim(x, 2)"});
  c.push_back({"tensor.matmul", "v = pl.tensor.matmul(x, y)", "v = pl.tensor.matmul(x, xc, y)"});
  c.push_back({"tensor.matmul_acc", "v = pl.tensor.matmul_acc(x, y, y)", "v = pl.tensor.matmul_acc(x, y)"});
  c.push_back({"system.bar_v", "pl.system.bar_v()", "pl.system.bar_v(a)"});
  c.push_back({"system.bar_m", "pl.system.bar_m()", "pl.system.bar_m(a)"});
  c.push_back({"system.bar_all", "pl.system.bar_all()", "pl.system.bar_all(a)"});
  c.push_back({"system.cacheinvalid", "pl.system.cacheinvalid(x, [16, 16], [0, 0])", "pl.system.cacheinvalid(x, [16], [0, 0])"});
  c.push_back({"system.set_ffts", "pl.system.set_ffts(x)", "pl.system.set_ffts(n)"});
  for (const char* s : {"sync_set", "sync_wait"})
    c.push_back({std::string("system.") + s, std::string("pl.system.") + s + "(3, pipe=pl.PipeType.MTE3)",
                 std::string("pl.system.") + s + "(14, pipe=pl.PipeType.MTE3)"});
  // Cross-core FIFO: a push / pop / release needs its pipe initialised first (same line), a pop
  // its slot window reserved.
  const std::string vinit = "pl.system.aiv_initialize_pipe(0, 0, dir_mask=3, slot_size=1024); ";
  const std::string cinit = "pl.system.aic_initialize_pipe(0, 0, dir_mask=3, slot_size=1024); ";
  c.push_back({"tile.tpush_to_aic", vinit + "pl.tile.tpush_to_aic(a, split=0)", "pl.tile.tpush_to_aic(x, split=0)"});
  c.push_back({"tile.tpush_to_aiv", cinit + "pl.tile.tpush_to_aiv(acc, split=0)", "pl.tile.tpush_to_aiv(acc, split=7)", Ctx::Cube});
  c.push_back({"tile.tpop_from_aic",
               "s = pl.system.reserve_buffer(name=\"w\", size=2048); pl.system.aiv_initialize_pipe(s, 0, dir_mask=1, "
               "slot_size=1024); v = pl.tile.tpop_from_aic(shape=[16, 16], dtype=pl.FP32)",
               "v = pl.tile.tpop_from_aic(shape=[16, 16])"});
  c.push_back({"tile.tpop_from_aiv",
               "s = pl.system.reserve_buffer(name=\"w\", size=1024); pl.system.aic_initialize_pipe(0, s, dir_mask=2, "
               "slot_size=512); v = pl.tile.tpop_from_aiv(shape=[16, 16], dtype=pl.FP16)",
               "v = pl.tile.tpop_from_aiv(dtype=pl.FP16)", Ctx::Cube});
  c.push_back({"system.tfree_to_aic", vinit + "pl.system.tfree_to_aic(a)", "pl.system.tfree_to_aic(n)"});
  c.push_back({"system.tfree_to_aiv", cinit + "pl.system.tfree_to_aiv(am)", "pl.system.tfree_to_aiv(am, split=9)", Ctx::Cube});
  c.push_back({"system.aic_initialize_pipe", "pl.system.aic_initialize_pipe(0, 0, dir_mask=1, slot_size=1024)",
               "pl.system.aic_initialize_pipe(0, 0, dir_mask=5, slot_size=1024)", Ctx::Cube});
  c.push_back({"system.aiv_initialize_pipe", "pl.system.aiv_initialize_pipe(0, 0, dir_mask=2, slot_size=1024)",
               "pl.system.aiv_initialize_pipe(0, 0, dir_mask=1, slot_size=0)"});
  c.push_back({"system.reserve_buffer", "v = pl.system.reserve_buffer(name=\"w\", size=1024)",
               "v = pl.system.reserve_buffer(name=\"w\", size=0)"});
  c.push_back({"system.import_peer_buffer", "v = pl.system.import_peer_buffer(name=\"w\", peer_func=\"k2\")",
               "v = pl.system.import_peer_buffer(name=\"w\")"});
  c.push_back({"tile.mrgsort_format1", "v = pl.tile.mrgsort_format1(a, 64)", "v = pl.tile.mrgsort_format1(a, 48)"});
  c.push_back({"tile.mrgsort_format2", "v = pl.tile.mrgsort_format2(a, b, b)", "v = pl.tile.mrgsort_format2(a, ah, b)"});
  c.push_back({"tensor.mrgsort_format1", "v = pl.tensor.mrgsort_format1(x, 64)", "v = pl.tensor.mrgsort_format1(xi, 64)"});
  c.push_back({"tensor.mrgsort_format2", "v = pl.tensor.mrgsort_format2(x, y)", "v = pl.tensor.mrgsort_format2(x, xh)"});
  for (const char* s : {"sync_src", "sync_dst"})
    c.push_back({std::string("system.") + s,
                 std::string("pl.system.") + s + "(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)",
                 std::string("pl.system.") + s + "(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=9)"});
  return c;
}

// Distributed and array ops take operands the kernel preludes do not have (pld.DistributedTensor
// window tensors, communicators, window buffers, pl.Array values): their cases build the call
// directly. A bad case of a distributed op passes a plain tensor where a window tensor is needed.
struct IrCase {
  std::string op;
  std::function<std::vector<ExprPtr>()> good, bad;
  std::vector<std::pair<std::string, AttrValue>> kw = {};
};
ExprPtr tensor_arg(DataType dt = DataType::FP32, int rank = 2) {
  std::vector<ExprPtr> shape(rank, make_int(16));
  return make_var("t", std::make_shared<TensorType>(dt, shape));
}
ExprPtr dist_arg(DataType dt = DataType::FP32, int rank = 2) {
  std::vector<ExprPtr> shape(rank, make_int(16));
  return make_var("w", std::make_shared<TensorType>(dt, shape, std::nullopt, std::nullopt, true));
}
ExprPtr array_arg() { return make_var("arr", array_type(DataType::INT32, 4)); }
ExprPtr tile_arg(DataType dt = DataType::FP32) {
  return make_var("tile", std::make_shared<TileType>(dt, std::vector<ExprPtr>{make_int(16), make_int(16)}, MemorySpace::Vec));
}
ExprPtr idx_arg(std::vector<int64_t> v) {
  std::vector<ExprPtr> e;
  for (auto x : v) e.push_back(make_int(x));
  return std::make_shared<MakeTuple>(e, nullptr, Span{});
}
const std::vector<IrCase>& ir_cases() {
  using V = std::vector<ExprPtr>;
  static const std::vector<IrCase> c = {
      {"pld.system.notify", [] { return V{dist_arg(DataType::INT32), make_int(1), idx_arg({0, 0}), make_int(1)}; },
       [] { return V{tensor_arg(DataType::INT32), make_int(1), idx_arg({0, 0}), make_int(1)}; },
       {{"op", EnumLit{"pld.NotifyOp", "AtomicAdd"}}}},
      {"pld.system.wait", [] { return V{dist_arg(DataType::INT32), idx_arg({0, 0}), make_int(1)}; },
       [] { return V{dist_arg(DataType::INT32), idx_arg({0}), make_int(1)}; }, {{"cmp", EnumLit{"pld.WaitCmp", "Eq"}}}},
      {"pld.system.defer_wait", [] { return V{dist_arg(DataType::INT32), idx_arg({0, 0}), make_int(1)}; },
       [] { return V{dist_arg(DataType::FP32), idx_arg({0, 0}), make_int(1)}; }, {{"cmp", EnumLit{"pld.WaitCmp", "Ge"}}}},
      {"pld.system.world_size", [] { return V{}; }, [] { return V{make_int(1)}; }},
      {"pld.system.get_comm_ctx", [] { return V{dist_arg()}; }, [] { return V{tensor_arg()}; }},
      {"pld.system.rank", [] { return V{make_var("ctx", comm_ctx_type())}; }, [] { return V{dist_arg()}; }},
      {"pld.system.nranks", [] { return V{make_var("ctx", comm_ctx_type())}; }, [] { return V{dist_arg()}; }},
      {"pld.tensor.alloc_window_buffer", [] { return V{make_int(1024)}; }, [] { return V{make_int(0)}; }},
      {"pld.tensor.window", [] { return V{make_var("buf", ptr_type()), idx_arg({16})}; },
       [] { return V{tensor_arg(), idx_arg({16})}; }, {{"dtype", DataType::FP32}}},
      {"pld.tensor.put", [] { return V{dist_arg(), make_int(1), tensor_arg()}; },
       [] { return V{tensor_arg(), make_int(1), tensor_arg()}; }},
      {"pld.tensor.get", [] { return V{tensor_arg(), make_int(1), dist_arg()}; },
       [] { return V{tensor_arg(), make_int(1), tensor_arg()}; }},
      {"pld.tensor.barrier", [] { return V{dist_arg(DataType::INT32)}; }, [] { return V{tensor_arg(DataType::INT32)}; }},
      {"pld.tile.remote_load", [] { return V{dist_arg(), make_int(1), idx_arg({0, 0}), idx_arg({8, 16})}; },
       [] { return V{tensor_arg(), make_int(1), idx_arg({0, 0}), idx_arg({8, 16})}; }},
      {"pld.tile.remote_store", [] { return V{tile_arg(), dist_arg(), make_int(1), idx_arg({0, 0})}; },
       [] { return V{tile_arg(), tensor_arg(), make_int(1), idx_arg({0, 0})}; }},
      {"pld.tensor.remote_store", [] { return V{tensor_arg(), dist_arg(), make_int(1), idx_arg({0, 0})}; },
       [] { return V{tensor_arg(), tensor_arg(), make_int(1), idx_arg({0, 0})}; }},
      {"array.get_element", [] { return V{array_arg(), make_int(1)}; }, [] { return V{array_arg(), make_int(9)}; }},
      {"array.update_element", [] { return V{array_arg(), make_int(1), make_int(5)}; },
       [] { return V{array_arg(), make_int(1), make_float(0.5)}; }},
  };
  return c;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> c = make_cases();
  return c;
}

const char* prelude_of(const Case& c) {
  switch (c.ctx) {
    case Ctx::Cube: return kCubePrelude;
    case Ctx::Batch: return kBatchPrelude;
    case Ctx::Mx: return kMxPrelude;
    default: return kVecPrelude;
  }
}

std::string program_of(const Case& c, bool good) {
  return std::string(prelude_of(c)) + "        " + (good ? c.good : c.bad) + "\n        return\n";
}
// The 1-based line of the case statement: the one after the prelude.
int case_line(const Case& c) {
  const std::string_view p = prelude_of(c);
  return static_cast<int>(std::count(p.begin(), p.end(), '\n')) + 1;
}

ProgramPtr parse_case(const Case& c, bool good) {
  DiagnosticSink sink;
  auto file = std::make_shared<SourceFile>("case.py", program_of(c, good));
  return parser::parse_source(file, {}, sink);
}

// Tensor ops whose execution belongs to a later issue: registered with type rules, neither a tile
// form nor an orchestration row yet (the list can only shrink). Ops a kernel cannot hold yet say
// so in the registry (OpDef::kernel_deferred).
const std::map<std::string, std::string> kDeferred = {
    {"tensor.full", "lowered to tile.full in kernels; orchestration-level fill comes with the tensor-scale issue"},
};

const emit::KernelOpRow* kernel_row(const OpDef& op) { return emit::find_kernel_op(op); }

}  // namespace

TEST_CASE("every op has a positive and a negative type case", "[ops][registry]") {
  std::set<std::string> have;
  for (const auto& c : cases()) {
    INFO(c.op);
    CHECK(OpRegistry::instance().find(c.op) != nullptr);  // a case for an unregistered op
    CHECK(have.insert(c.op).second);                      // one case per op
  }
  for (const auto& c : ir_cases()) {
    INFO(c.op);
    CHECK(OpRegistry::instance().find(c.op) != nullptr);
    CHECK(have.insert(c.op).second);
  }
  std::vector<std::string> missing;
  for (const OpDef* op : OpRegistry::instance().all())
    if (!have.count(op->name)) missing.push_back(op->name);
  INFO("ops without type cases: " << fmt::format("{}", fmt::join(missing, ", ")));
  CHECK(missing.empty());
}

TEST_CASE("positive type cases build a call of their op", "[ops][registry]") {
  for (const auto& c : cases()) {
    INFO(c.op << ": " << c.good);
    ProgramPtr p;
    try {
      p = parse_case(c, true);
    } catch (const CompileError& e) {
      FAIL_CHECK((e.diagnostics().empty() ? std::string("error") : e.diagnostics()[0].message));
      continue;
    }
    const auto body = flatten_body(p->find("k")->body);
    REQUIRE(body.size() >= 2);
    const StmtPtr& s = body[body.size() - 2];  // the case, before the trailing return
    const Call* call = nullptr;
    if (const auto* a = as<AssignStmt>(s)) call = as<Call>(a->value);
    else if (const auto* e = as<EvalStmt>(s)) call = as<Call>(e->expr);
    REQUIRE(call);
    CHECK(call->op);
    if (call->op) CHECK(call->op->name == c.op);
  }
}

TEST_CASE("distributed ops: positive cases type-check, negative ones fail naming the op", "[ops][registry]") {
  for (const auto& c : ir_cases()) {
    INFO(c.op);
    const Span at{std::make_shared<SourceFile>("case.py", "x\n"), 1, 1, 1, 2};
    auto call = make_call(c.op, c.good(), c.kw, at);
    CHECK(call->op->name == c.op);
    try {
      make_call(c.op, c.bad(), c.kw, at);
      FAIL_CHECK("accepted");
    } catch (const CompileError& e) {
      REQUIRE(!e.diagnostics().empty());
      CHECK(e.diagnostics()[0].span.valid());
      CHECK(e.diagnostics()[0].message.find(c.op) != std::string::npos);
    }
  }
  // Through the front end a plain tensor where a window tensor is needed fails at its line.
  Case front{"pld.tensor.put", "", "pld.tensor.put(x, 1, y)"};
  try {
    parse_case(front, false);
    FAIL_CHECK("pld call on plain tensors accepted");
  } catch (const CompileError& e) {
    CHECK(e.diagnostics()[0].message.find("must be a pld.DistributedTensor") != std::string::npos);
    CHECK(e.diagnostics()[0].span.line == case_line(front));
  }
}

TEST_CASE("negative type cases fail with a located diagnostic naming the op", "[ops][registry]") {
  for (const auto& c : cases()) {
    INFO(c.op << ": " << c.bad);
    try {
      parse_case(c, false);
      FAIL_CHECK("accepted");
    } catch (const CompileError& e) {
      REQUIRE(!e.diagnostics().empty());
      const auto& d = e.diagnostics()[0];
      INFO(d.message);
      CHECK(d.span.valid());
      CHECK(d.span.line == case_line(c));
      const std::string short_name = c.op.substr(c.op.find('.') + 1);
      CHECK(d.message.find(short_name) != std::string::npos);
    }
  }
}

TEST_CASE("every tile op has a pipe fact; an op kernels may hold has a kernel row unless the registry defers it",
          "[ops][registry]") {
  for (const OpDef* op : OpRegistry::instance().all()) {
    if (op->family() == "tensor") {  // lowered to tile ops in kernels (ConvertTensorToTileOps)
      INFO(op->name);
      CHECK(op->kernel_deferred.empty());
      // ... but a scalar load from a GM tensor, which kernels keep and the kernel table spells.
      CHECK(op->kernel_gm_scalar == (kernel_row(*op) != nullptr));
      continue;
    }
    INFO(op->name);
    if (op->family() == "tile") CHECK(op->pipe_rule != PipeRule::Unset);
    // The registry's kernel_deferred marker (CheckKernelForms rejects the op at its line) and the
    // kernel table agree: implemented means a row and no marker. A composite op has neither: a
    // pass expands it first (its rule table: lower_composite_ops_test).
    if (op->composite) {
      CHECK(op->kernel_deferred.empty());
      CHECK(kernel_row(*op) == nullptr);
      continue;
    }
    CHECK(op->kernel_deferred.empty() == (kernel_row(*op) != nullptr));
    if (op->pipe_rule == PipeRule::Fixed) CHECK(op->pipe != Pipe::None);
  }
}

TEST_CASE("every tensor op has a tile form or an orchestration row", "[ops][registry]") {
  for (const OpDef* op : OpRegistry::instance().all()) {
    if (op->family() != "tensor") continue;
    INFO(op->name);
    const bool orch = emit::find_orchestration_op(*op) != nullptr;
    CHECK(op->orchestration == orch);  // the marker and the table agree
    if (op->tile_op) CHECK(op->lowering != TileLowering::None);
    if (op->lowering == TileLowering::Scalar) continue;
    const bool deferred = kDeferred.count(op->name) > 0;
    if (!deferred) CHECK((op->tile_op != nullptr || orch));
  }
  for (const auto& [name, why] : kDeferred) {
    INFO(name << " (" << why << ")");
    const OpDef* op = OpRegistry::instance().find(name);
    REQUIRE(op != nullptr);
    // A listed op that gained its orchestration row leaves the list (it only shrinks).
    CHECK(emit::find_orchestration_op(*op) == nullptr);
  }
}

TEST_CASE("an op marked orchestration has an orchestration row, and only such an op", "[ops][registry]") {
  for (const OpDef* op : OpRegistry::instance().all()) {
    INFO(op->name);
    CHECK(op->orchestration == (emit::find_orchestration_op(*op) != nullptr));
  }
}

TEST_CASE("emit tables name only registered ops, each once", "[ops][registry]") {
  INFO("kernel table: " << fmt::format("{}", fmt::join(emit::kernel_op_table().unknown(), ", ")));
  CHECK(emit::kernel_op_table().unknown().empty());
  INFO("orchestration table: " << fmt::format("{}", fmt::join(emit::orchestration_op_table().unknown(), ", ")));
  CHECK(emit::orchestration_op_table().unknown().empty());
}

TEST_CASE("the CPU runtime has every instruction the kernel table names (one translation unit)", "[ops][registry][runtime]") {
  // Every positive case of a tile op with a kernel row, through the whole pipeline into a kernel.
  // The headers first, so that each kernel's own includes are no-ops inside its namespace.
  std::string tu = "#include <cstdint>\n#define __gm__\n#define __aicore__\n#include <pto/pto-inst.hpp>\n#include \"tensor.h\"\n#include \"intrinsic.h\"\n";
  int n = 0;
  std::set<std::string> calls;
  for (const auto& c : cases()) {
    const OpDef* op = OpRegistry::instance().find(c.op);
    if (!op || op->family() != "tile" || !kernel_row(*op)) continue;
    INFO(c.op << ": " << c.good);
    emit::EmitOptions opts;
    ProgramPtr p;
    try {
      // MX matmuls are the 950's.
      p = emit_test::compile_text(program_of(c, true), "case.py", c.ctx == Ctx::Mx ? Soc::Ascend950 : Soc::Ascend910B);
    } catch (const CompileError& e) {
      FAIL_CHECK((e.diagnostics().empty() ? std::string("error") : e.diagnostics()[0].message));
      continue;
    }
    for (const auto& f : p->functions) {
      if (f->type != FunctionType::AIV && f->type != FunctionType::AIC) continue;
      tu += fmt::format("#define kernel_entry kernel_entry_{0}\nnamespace case_{0} {{\n", n);
      tu += emit::emit_kernel(*f, opts);
      tu += fmt::format("}}  // namespace case_{0}\n#undef kernel_entry\n", n);
      ++n;
    }
    calls.insert(std::string(kernel_row(*op)->call));
  }
  REQUIRE(n > 0);
  const std::filesystem::path dir = PYPTO_TEST_WORK_DIR;
  std::filesystem::create_directories(dir);
  const auto file = dir / "all_instructions.cpp";
  std::ofstream(file) << tu;
  const char* cxx = std::getenv("CXX");
  const std::string cmd = fmt::format(
      "{} -std=c++20 -fsyntax-only -D__CPU_SIM -D__DAV_VEC__ -D__DAV_CUBE__ -Wno-attributes -I{}/runtime/include {} "
      "> {} 2>&1",
      cxx && *cxx ? cxx : "c++", PYPTO_SOURCE_DIR, file.string(), (dir / "compile.log").string());
  INFO(cmd << "\n" << emit_test::read_file((dir / "compile.log").string()));
  CHECK(std::system(cmd.c_str()) == 0);
  CHECK(calls.size() > 40);
}

// The broadcast facts of the binary elementwise ops (OpDef::same_shapes, row_broadcast /
// col_broadcast, commutative), which ConvertTensorToTileOps lowers by and CheckKernelForms
// rejects by: a tensor op and its tile form agree on them, every form applies an [R, 1] (row
// form) / a [1, C] (col form) tile to an [R, C] one, and the interpreter defines them all.
TEST_CASE("broadcast forms: tensor and tile rows agree, each form takes a full tile and a vector", "[ops][registry]") {
  auto tile = [](std::vector<int64_t> shape) {
    std::vector<ExprPtr> s;
    for (auto d : shape) s.push_back(make_int(d));
    return make_var("t", std::make_shared<TileType>(DataType::FP32, s, MemorySpace::Vec));
  };
  int with_forms = 0;
  for (const OpDef* op : OpRegistry::with_semantics().all()) {
    INFO(op->name);
    CHECK((op->row_broadcast == nullptr) == (op->col_broadcast == nullptr));
    if (op->commutative) CHECK(op->row_broadcast != nullptr);
    if (!op->row_broadcast) continue;
    ++with_forms;
    CHECK(op->semantics != nullptr);
    if (op->family() == "tensor") {
      REQUIRE(op->tile_op != nullptr);
      CHECK(op->tile_op->same_shapes);
      CHECK(op->tile_op->row_broadcast == op->row_broadcast);
      CHECK(op->tile_op->col_broadcast == op->col_broadcast);
      CHECK(op->tile_op->commutative == op->commutative);
    } else {
      CHECK(op->family() == "tile");
      CHECK(op->same_shapes);
    }
    for (const OpDef* form : {op->row_broadcast, op->col_broadcast}) {
      INFO(form->name);
      CHECK(form->semantics != nullptr);
      CHECK(emit::find_kernel_op(*form) != nullptr);
    }
    CHECK_NOTHROW(make_call(*op->row_broadcast, {tile({16, 32}), tile({16, 1})}, {}, Span{}));
    CHECK_NOTHROW(make_call(*op->col_broadcast, {tile({16, 32}), tile({1, 32})}, {}, Span{}));
    CHECK_THROWS(make_call(*op->row_broadcast, {tile({16, 32}), tile({1, 32})}, {}, Span{}));
  }
  CHECK(with_forms == 12);  // add sub mul div maximum minimum, tensor and tile
}
