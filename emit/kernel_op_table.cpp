// Kernel emit table rows (kernel_op_table.h); the pto-isa names follow output-format.md §6.
#include "emit/kernel_op_table.h"

namespace pypto::emit {

namespace {
using F = OpForm;
constexpr KernelOpRow kRows[] = {
    // elementwise, tile ⊕ tile and tile ⊕ scalar
    {"tile.add", "TADD", F::DstArgs}, {"tile.sub", "TSUB", F::DstArgs}, {"tile.mul", "TMUL", F::DstArgs},
    {"tile.div", "TDIV", F::DstArgs}, {"tile.maximum", "TMAX", F::DstArgs}, {"tile.minimum", "TMIN", F::DstArgs},
    {"tile.adds", "TADDS", F::DstArgs}, {"tile.subs", "TSUBS", F::DstArgs}, {"tile.muls", "TMULS", F::DstArgs},
    {"tile.divs", "TDIVS", F::DstArgs}, {"tile.maximums", "TMAXS", F::DstArgs}, {"tile.minimums", "TMINS", F::DstArgs},
    // integer / bitwise, remainders, activations with a slope, partial elementwise
    {"tile.and", "TAND", F::DstArgs}, {"tile.or", "TOR", F::DstArgs}, {"tile.xor", "TXOR", F::DstArgs},
    {"tile.shl", "TSHL", F::DstArgs}, {"tile.shr", "TSHR", F::DstArgs}, {"tile.not", "TNOT", F::DstArgs},
    {"tile.ands", "TANDS", F::DstArgs}, {"tile.ors", "TORS", F::DstArgs}, {"tile.xors", "TXORS", F::DstArgs},
    {"tile.shls", "TSHLS", F::DstArgs}, {"tile.shrs", "TSHRS", F::DstArgs},
    {"tile.fmod", "TFMOD", F::DstArgs}, {"tile.fmods", "TFMODS", F::DstArgs},
    {"tile.rem", "TREM", F::DstArgs}, {"tile.rems", "TREMS", F::DstArgs},
    {"tile.lrelu", "TLRELU", F::DstArgs}, {"tile.prelu", "TPRELU", F::DstArgs},
    {"tile.part_add", "TPARTADD", F::DstArgs}, {"tile.part_mul", "TPARTMUL", F::DstArgs},
    {"tile.part_max", "TPARTMAX", F::DstArgs}, {"tile.part_min", "TPARTMIN", F::DstArgs},
    // compare into a packed mask, select by a mask
    {"tile.cmp", "TCMP", F::Cmp}, {"tile.cmps", "TCMPS", F::Cmp},
    {"tile.sel", "TSEL", F::DstArgs}, {"tile.sels", "TSELS", F::DstArgs},
    // unary
    {"tile.exp", "TEXP", F::DstArgs}, {"tile.log", "TLOG", F::DstArgs}, {"tile.sqrt", "TSQRT", F::DstArgs},
    {"tile.rsqrt", "TRSQRT", F::DstArgs}, {"tile.recip", "TRECIP", F::DstArgs}, {"tile.neg", "TNEG", F::DstArgs},
    {"tile.abs", "TABS", F::DstArgs}, {"tile.relu", "TRELU", F::DstArgs},
    {"tile.cast", "TCVT", F::Cast},
    // fills
    {"tile.expands", "TEXPANDS", F::DstDropFirst}, {"tile.full", "TEXPANDS", F::Full},
    // reductions
    {"tile.row_sum", "TROWSUM", F::DstArgs}, {"tile.row_max", "TROWMAX", F::DstArgs},
    {"tile.row_min", "TROWMIN", F::DstArgs},
    {"tile.col_sum", "TCOLSUM", F::ColSum}, {"tile.col_max", "TCOLMAX", F::DstFirstOnly},
    {"tile.col_min", "TCOLMIN", F::DstFirstOnly},
    {"tile.row_prod", "TROWPROD", F::DstArgs}, {"tile.col_prod", "TCOLPROD", F::DstFirstOnly},
    {"tile.row_argmax", "TROWARGMAX", F::DstArgs}, {"tile.row_argmin", "TROWARGMIN", F::DstArgs},
    {"tile.col_argmax", "TCOLARGMAX", F::DstArgs}, {"tile.col_argmin", "TCOLARGMIN", F::DstArgs},
    // broadcasts
    {"tile.row_expand", "TROWEXPAND", F::DstDropFirst}, {"tile.col_expand", "TCOLEXPAND", F::DstDropFirst},
    {"tile.row_expand_add", "TROWEXPANDADD", F::DstArgs}, {"tile.row_expand_sub", "TROWEXPANDSUB", F::DstArgs},
    {"tile.row_expand_mul", "TROWEXPANDMUL", F::DstArgs}, {"tile.row_expand_div", "TROWEXPANDDIV", F::DstArgs},
    {"tile.col_expand_add", "TCOLEXPANDADD", F::DstArgs}, {"tile.col_expand_sub", "TCOLEXPANDSUB", F::DstArgs},
    {"tile.col_expand_mul", "TCOLEXPANDMUL", F::DstArgs}, {"tile.col_expand_div", "TCOLEXPANDDIV", F::DstArgs},
    {"tile.row_expand_max", "TROWEXPANDMAX", F::DstArgs}, {"tile.row_expand_min", "TROWEXPANDMIN", F::DstArgs},
    {"tile.row_expand_expdif", "TROWEXPANDEXPDIF", F::DstArgs},
    {"tile.col_expand_max", "TCOLEXPANDMAX", F::DstArgs}, {"tile.col_expand_min", "TCOLEXPANDMIN", F::DstArgs},
    {"tile.col_expand_expdif", "TCOLEXPANDEXPDIF", F::DstArgs},
    // gather / scatter / sort / concat, generators
    {"tile.gather", "TGATHER", F::DstArgs}, {"tile.scatter", "TSCATTER", F::DstDropFirst},
    {"tile.sort32", "TSORT32", F::DstArgs}, {"tile.mrgsort_format1", "TMRGSORT", F::DstArgs},
    {"tile.mrgsort_format2", "TMRGSORT", F::MergeLists}, {"tile.concat", "TCONCAT", F::DstArgs},
    {"tile.ci", "TCI", F::Ci}, {"tile.tri", "TTRI", F::Tri},
    {"tile.gatherb", "TGATHERB", F::DstArgs}, {"tile.gather_mask", "TGATHER", F::MaskGather},
    {"tile.scatter_mask", "TSCATTER", F::MaskScatter},
    {"tile.addc", "TADDC", F::DstArgs}, {"tile.subc", "TSUBC", F::DstArgs},
    {"tile.addsc", "TADDSC", F::DstArgs}, {"tile.subsc", "TSUBSC", F::DstArgs},
    {"tile.transpose", "TTRANS", F::Transpose},
    // data movement
    {"tile.load", "TLOAD", F::Load}, {"tile.store", "TSTORE", F::Store},
    {"tile.fillpad", "TFILLPAD", F::DstArgs}, {"tile.fillpad_inplace", "TFILLPAD_INPLACE", F::DstArgs},
    {"tile.fillpad_expand", "TFILLPAD_EXPAND", F::DstFirstOnly},
    {"tile.move", "TMOV", F::DstArgs}, {"tile.extract", "TEXTRACT", F::Extract},
    {"tile.get_block_idx", "get_block_idx", F::LaunchId}, {"tile.get_block_num", "get_block_num", F::LaunchId},
    {"tile.get_subblock_idx", "get_sub_block_id", F::LaunchId}, {"tile.assemble", "TINSERT", F::Assemble}, {"tile.reshape", "TRESHAPE", F::View},
    {"tile.transpose_view", "TRESHAPE", F::View},
    {"tile.slice", "", F::SubView}, {"tile.set_validshape", "", F::SubView},
    {"tile.create", "", F::DeclareOnly}, {"tile.gather_row", "TLOAD", F::GatherRow}, {"tile.alloc", "", F::Planned},
    // element access
    {"tile.read", "", F::Read}, {"tile.write", "", F::Write},
    {"tensor.read", "", F::GmRead}, {"tensor.write", "", F::GmWrite},
    // cube
    {"tile.matmul", "TMATMUL", F::DstArgs}, {"tile.matmul_acc", "TMATMUL_ACC", F::MatmulAcc},
    {"tile.matmul_bias", "TMATMUL_BIAS", F::DstArgs}, {"tile.gemv", "TGEMV", F::DstArgs},
    {"tile.matmul_mx", "TMATMUL_MX", F::DstArgs}, {"tile.matmul_mx_acc", "TMATMUL_MX", F::DstArgs},
    {"tile.matmul_mx_bias", "TMATMUL_MX", F::DstArgs},
    {"tile.tget_scale_addr", "", F::DeclareOnly},  // the memory plan placed the scale at its data tile's address / 16
    // synchronisation
    {"system.bar_v", "pipe_barrier(PIPE_V)", F::Barrier}, {"system.bar_m", "pipe_barrier(PIPE_M)", F::Barrier},
    {"system.bar_all", "pipe_barrier(PIPE_ALL)", F::Barrier},
    {"system.sync_src", "set_flag", F::Flag}, {"system.sync_dst", "wait_flag", F::Flag},
    {"system.syncall", "pto::SYNCALL", F::SyncAll},
    // cross-core FIFO between the halves of a mixed kernel
    {"system.aic_initialize_pipe", "TPipe", F::PipeInit}, {"system.aiv_initialize_pipe", "TPipe", F::PipeInit},
    {"system.reserve_buffer", "", F::BufferAddr}, {"system.import_peer_buffer", "", F::BufferAddr},
    {"tile.tpush_to_aiv", "TPUSH", F::FifoPush}, {"tile.tpush_to_aic", "TPUSH", F::FifoPush},
    {"tile.tpop_from_aic", "TPOP", F::FifoPop}, {"tile.tpop_from_aiv", "TPOP", F::FifoPop},
    {"system.tfree_to_aic", "TFREE", F::FifoFree}, {"system.tfree_to_aiv", "TFREE", F::FifoFree},
    // asynchronous GM -> L2 prefetch (SDMA), from a vector kernel
    {"prefetch.make_context", "pto::PrefetchAsyncContext", F::PrefetchContext},
    {"prefetch.async_prefetch", "TPREFETCH_ASYNC", F::Prefetch},
    {"prefetch.session", "", F::PrefetchSession}, {"prefetch.wait", "", F::PrefetchWait},
};
}  // namespace

const ir::OpInfoTable<KernelOpRow>& kernel_op_table() {
  static const ir::OpInfoTable<KernelOpRow> table{std::span<const KernelOpRow>(kRows)};
  return table;
}

}  // namespace pypto::emit
