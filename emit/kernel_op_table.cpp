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
    // broadcasts
    {"tile.row_expand", "TROWEXPAND", F::DstDropFirst}, {"tile.col_expand", "TCOLEXPAND", F::DstDropFirst},
    {"tile.row_expand_add", "TROWEXPANDADD", F::DstArgs}, {"tile.row_expand_sub", "TROWEXPANDSUB", F::DstArgs},
    {"tile.row_expand_mul", "TROWEXPANDMUL", F::DstArgs}, {"tile.row_expand_div", "TROWEXPANDDIV", F::DstArgs},
    {"tile.col_expand_add", "TCOLEXPANDADD", F::DstArgs}, {"tile.col_expand_sub", "TCOLEXPANDSUB", F::DstArgs},
    {"tile.col_expand_mul", "TCOLEXPANDMUL", F::DstArgs}, {"tile.col_expand_div", "TCOLEXPANDDIV", F::DstArgs},
    {"tile.transpose", "TTRANS", F::Transpose},
    // data movement
    {"tile.load", "TLOAD", F::Load}, {"tile.store", "TSTORE", F::Store},
    {"tile.move", "TMOV", F::DstArgs}, {"tile.extract", "TEXTRACT", F::Extract},
    {"tile.assemble", "TINSERT", F::Assemble}, {"tile.reshape", "TRESHAPE", F::View},
    {"tile.create", "", F::DeclareOnly}, {"tile.alloc", "", F::Planned},
    // element access
    {"tile.read", "", F::Read}, {"tile.write", "", F::Write},
    // cube
    {"tile.matmul", "TMATMUL", F::DstArgs}, {"tile.matmul_acc", "TMATMUL_ACC", F::MatmulAcc},
    // synchronisation
    {"system.bar_v", "pipe_barrier(PIPE_V)", F::Barrier}, {"system.bar_m", "pipe_barrier(PIPE_M)", F::Barrier},
    {"system.bar_all", "pipe_barrier(PIPE_ALL)", F::Barrier},
    {"system.sync_src", "set_flag", F::Flag}, {"system.sync_dst", "wait_flag", F::Flag},
};
}  // namespace

const ir::OpInfoTable<KernelOpRow>& kernel_op_table() {
  static const ir::OpInfoTable<KernelOpRow> table{std::span<const KernelOpRow>(kRows)};
  return table;
}

}  // namespace pypto::emit
