// The tile op table, second half: gather / scatter / sort / concat, views and valid shapes, pads,
// generators, SPMD block indices and the AIC↔AIV boundary markers (`tile.aiv_shard`,
// `tile.aic_gather`, rewritten by the mixed-kernel split). Rules live in op_deduce_data.cpp.
#include <fmt/format.h>

#include "ir/op_deduce.h"

namespace pypto::ir {
namespace {

using namespace deduce;
using MS = MemorySpace;

// A row is built by a chain of setters on a temporary (an lvalue reference to it by the end of
// the chain), which lives until the end of the full expression: it is moved from, not copied.
// add consumes the row: a named row passed here is empty afterwards.
void add(OpRegistry& r, OpRow&& row) { r.add(std::move(row).build()); }
void add(OpRegistry& r, OpRow& row) { add(r, std::move(row)); }

// tpush: (tile; split=, id=) → no value; split is 0 (whole), 1 (up-down) or 2 (left-right).
TypePtr fifo_push(const Ctx& c) {
  c.shaped(0);
  if (auto s = c.kw_int("split"); s && (*s < 0 || *s > 4)) c.fail(fmt::format("split = {} is not 0..4", *s));
  return void_type();
}

// tpop: the received tile's type from shape= and dtype=, in the consumer's receive space (an AIV
// pops into Vec, the AIC into Mat); without them the result is typed by the annotation of the
// assignment (`t: pl.Tile[[64], pl.FP32] = pl.tile.tpop_from_aic()`), null here.
Rule fifo_pop(MemorySpace space) {
  return [space](const Ctx& c) -> TypePtr {
    auto dt = c.kw_dtype("dtype");
    if (!c.has(0) && !dt) return nullptr;
    if (!c.has(0) || !dt) c.fail("give both shape= and dtype= (or neither, and annotate the assignment)");
    if (auto s = c.kw_int("split"); s && (*s < 0 || *s > 4)) c.fail(fmt::format("split = {} is not 0..4", *s));
    return std::make_shared<TileType>(*dt, c.list(0), space);
  };
}

// Metadata only: the result is operand 0's buffer seen differently.
OpRow view(std::string name, std::vector<ArgSpec> args, Rule rule) {
  OpRow row(std::move(name), std::move(args), std::move(rule));
  row.inherit_memory(0).reuses_input(0).no_instruction();
  return row;
}

}  // namespace

void register_tile_data_ops(OpRegistry& r) {
  // Gather / scatter / sort / concat.
  add(r, vec_row("tile.gather", {tile("src"), tile("indices"), tmp_tile("tmp")}, gather).not_inplace_safe());
  add(r, vec_row("tile.scatter", {tile("dst"), tile("src"), tile("indexes")}, scatter).reuses_input(0));
  add(r, vec_row("tile.sort32", {tile("src"), tile("idx")}, sort32).not_inplace_safe());
  add(r, vec_row("tile.mrgsort_format1", {tile("src"), scalar("block_len")}, mrgsort1).not_inplace_safe());
  // (src0, src1, [src2, [src3,]] tmp): the last operand is the merge destination's scratch.
  add(r, vec_row("tile.mrgsort_format2", {tile("src0"), tile("src1"), tile("src2_or_tmp"), tile("src3_or_tmp", true),
                                          tile("tmp", true)}, mrgsort2)
             .kw("exhausted", AttrKind::Bool, false).not_inplace_safe());
  add(r, vec_row("tile.concat", {tile("src0"), tile("src1")}, concat).not_inplace_safe());
  add(r, OpRow("tile.gather_row", {tile("dst"), tensor("src"), indices("dst_offset"), indices("src_offset"),
                                   indices("shapes"), indices("valid_shape", true)}, gather_row)
             .kw("transpose", AttrKind::Bool, false).inherit_memory(0).reuses_input(0).pipe(Pipe::MTE2)
             .affinity_by_space());
  add(r, vec_row("tile.gatherb", {tile("src"), tile("offset")}, gatherb).kw("output_dtype", AttrKind::DType)
             .not_inplace_safe());
  add(r, vec_row("tile.gather_mask", {tile("src")}, gather_mask).kw("mask_pattern", AttrKind::Int)
             .kw("output_dtype", AttrKind::DType).not_inplace_safe());
  add(r, vec_row("tile.scatter_mask", {tile("dst"), tile("src")}, scatter_mask).kw("mask_pattern", AttrKind::Int)
             .reuses_input(0));
  // Views and valid shapes.
  add(r, view("tile.transpose_view", {tile("tile")}, transpose_view));
  add(r, view("tile.set_validshape", {tile("tile"), scalar("valid_rows"), scalar("valid_cols")}, set_validshape));
  // Pads outside the valid region: the result is valid over its whole shape, and its type carries
  // the pad value (the destination Tile's PadVal, which TFILLPAD fills with).
  add(r, vec_row("tile.fillpad", {tile("tile")}, fillpad).kw("pad_value", AttrKind::PadValue, PadValue::zero)
             .not_inplace_safe());
  add(r, vec_row("tile.fillpad_inplace", {tile("tile")}, fillpad).kw("pad_value", AttrKind::PadValue, PadValue::zero)
             .reuses_input(0));
  add(r, vec_row("tile.fillpad_expand", {tile("tile"), indices("shape")}, fillpad_expand)
             .kw("pad_value", AttrKind::PadValue, PadValue::zero).not_inplace_safe());
  // Generators.
  add(r, vec_row("tile.ci", {scalar("start"), indices("shape")}, ci).kw("dtype", AttrKind::DType, DataType::INT32)
             .kw("descending", AttrKind::Bool, false).inherit_memory(-1).out_memory(MS::Vec).alias("arange")
             .alias("tile.arange"));
  add(r, vec_row("tile.tri", {scalar("diagonal"), indices("shape"), indices("valid_shape", true)}, tri)
             .kw("dtype", AttrKind::DType, DataType::INT32).kw("upper", AttrKind::Bool, false)
             .inherit_memory(-1).out_memory(MS::Vec));
  add(r, vec_row("tile.random", {scalar("key0"), scalar("key1"), scalar("counter0"), scalar("counter1"),
                                 scalar("counter2"), scalar("counter3"), indices("shape"), indices("valid_shape", true)},
                 random)
             .kw("dtype", AttrKind::DType, DataType::UINT32).kw("rounds", AttrKind::Int, int64_t{10})
             .inherit_memory(-1).out_memory(MS::Vec)
             .kernel_deferred("tensor-scale issue: TRANDOM takes key / counter structs the emitter does not build yet"));
  // SPMD identity: launch geometry, read from the kernel's arguments.
  for (const char* n : {"tile.get_block_idx", "tile.get_block_num", "tile.get_subblock_idx"})
    add(r, OpRow(n, {}, block_index).no_instruction());
  // AIC↔AIV boundary markers (ExpandMixedKernel rewrites them into cross-core push / pop).
  add(r, OpRow("tile.aiv_shard", {tile("tile")}, shard).kw("split", AttrKind::Int).kw("lane_stride", AttrKind::Int)
             .inherit_memory(0).no_instruction()
             .kernel_deferred("cube issue: ExpandMixedKernel rewrites it into cross-core push / pop"));
  add(r, OpRow("tile.aic_gather", {tile("tile")}, shard).kw("split", AttrKind::Int).out_memory(MS::Mat)
             .no_instruction().kernel_deferred("cube issue: ExpandMixedKernel rewrites it into cross-core push / pop"));
  // Cross-core FIFO between the AIC and its AIV lanes: push a tile, pop it on the peer (the slot
  // is released by system.tfree_to_*). Both sides initialise the pipe first (system.*_initialize_pipe).
  add(r, OpRow("tile.tpush_to_aiv", {tile("tile")}, fifo_push).kw("split", AttrKind::Int, int64_t{0})
             .kw("lane_stride", AttrKind::Int).kw("id", AttrKind::Int, int64_t{0}).affinity(CoreAffinity::Cube)
             .pipe(Pipe::FIX).cross_core());
  add(r, OpRow("tile.tpush_to_aic", {tile("tile")}, fifo_push).kw("split", AttrKind::Int, int64_t{0})
             .kw("id", AttrKind::Int, int64_t{0}).affinity(CoreAffinity::Vector).pipe(Pipe::MTE3).cross_core());
  add(r, OpRow("tile.tpop_from_aic", {indices("shape", true)}, fifo_pop(MS::Vec)).kw("dtype", AttrKind::DType)
             .kw("split", AttrKind::Int, int64_t{0}).kw("lane_stride", AttrKind::Int).kw("id", AttrKind::Int, int64_t{0})
             .out_memory(MS::Vec).affinity(CoreAffinity::Vector).pipe(Pipe::MTE2).cross_core());
  add(r, OpRow("tile.tpop_from_aiv", {indices("shape", true)}, fifo_pop(MS::Mat)).kw("dtype", AttrKind::DType)
             .kw("split", AttrKind::Int, int64_t{0}).kw("lane_stride", AttrKind::Int).kw("id", AttrKind::Int, int64_t{0})
             .out_memory(MS::Mat).affinity(CoreAffinity::Cube).pipe(Pipe::MTE2).cross_core());
  // Range-reduced trigonometry: LowerCompositeOps turns them into primitive ops.
  for (const char* n : {"tile.sin", "tile.cos"})
    add(r, vec_row(n, {tile("x")}, fp32_unary).composite());
}

}  // namespace pypto::ir
