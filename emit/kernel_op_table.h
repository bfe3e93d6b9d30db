// The emit table of kernel code generation: one row per tile op saying which pto-isa call it
// becomes and how its operands are laid out (output-format.md §6), keyed by the op's registry
// entry (ir/op_table.h). Ops without a row are rejected before emission ("not supported yet");
// the registry test checks that every tile instruction has one.
#pragma once

#include <string_view>

#include "ir/op_table.h"

namespace pypto::emit {

enum class OpForm : unsigned char {
  DstArgs,        // CALL(dst, every IR operand in order)            tile.add, tile.row_sum, ...
  DstDropFirst,   // CALL(dst, operands 1..)                         tile.expands, tile.row_expand
  DstFirstOnly,   // CALL(dst, operand 0)                            tile.col_max with a tmp
  ColSum,         // CALL(dst, src) or CALL(dst, src, tmp, true) (tmp selects the binary tree)
  Transpose,      // CALL(dst, src, tmp)                             tile.transpose
  Full,           // CALL(dst, value kwarg)                          tile.full
  Cast,           // CALL(dst, src, RoundMode::X): pto-isa's per-type saturation default, as the reference
  Extract,        // CALL(dst, src, row, col)                        tile.extract
  Assemble,       // CALL(dst, source, row, col), dst shares target  tile.assemble
  MatmulAcc,      // CALL(dst, acc, lhs, rhs)                        tile.matmul_acc
  Load,           // GlobalTensor view + TLOAD(dst, view)
  Store,          // GlobalTensor view + TSTORE(view, tile)
  Read,           // scalar = tile.GetValue(flat)
  Write,          // dst.SetValue(flat, value), dst shares the tile
  DeclareOnly,    // a Tile declaration, no instruction              tile.create
  GatherRow,      // dst declared; a window of it (dst's Tile at GetTileOffset of dst_offset) TLOADed from a GlobalTensor view  tile.gather_row
  View,           // CALL(dst, src) where dst shares src's bytes     tile.reshape
  GmRead,         // T v = gm[flat index]: a scalar load from a GM tensor   tensor.read
  GmWrite,        // gm[flat index] = v: a scalar store into a GM tensor    tensor.write
  SubView,        // no call: dst is declared at src's address + its start_offset  tile.slice
  Cmp,            // CALL(dst, operands, CmpMode::X)                 tile.cmp / tile.cmps
  Ci,             // CALL<DstTile, T, descending>(dst, start)        tile.ci
  Tri,            // CALL<DstTile, upper>(dst, diagonal)             tile.tri
  MaskGather,     // CALL<DstTile, SrcTile, MaskPattern::P>(dst, src) tile.gather_mask
  MaskScatter,    // CALL<MaskPattern::P>(dst, src), dst shares dst  tile.scatter_mask
  MergeLists,     // MrgSortExecutedNumList n; CALL<Dst, Tmp, Src0.., exhausted>(dst, n, tmp, src0, ..)
                  //                                                 tile.mrgsort_format2 (its last operand is tmp)
  Planned,        // nothing: the address is already planned         tile.alloc
  Barrier,        // CALL;                                           system.bar_v
  Flag,           // CALL(PIPE_src, PIPE_dst, EVENT_IDn)             system.sync_src / sync_dst
  SyncAll,        // CALL<SyncCoreType::X>() (hard), or a GlobalTensor view of the workspace +
                  // CALL<SyncAllMode::Soft, SyncCoreType::X>(view, used_cores)   system.syncall
  LaunchId,       // v = a trailing compute-function parameter kernel_entry fills from CALL(args)
                  //                                                 tile.get_block_idx / num, get_subblock_idx
  PipeInit,       // using P = TPipe<id, DIR, slot_size, slot_num, local_slot_num, no_split>; P p(nullptr, c2v, v2c);
                  //                                                 system.aic_initialize_pipe / aiv_initialize_pipe
  BufferAddr,     // const int32_t v = base (the address AllocateMemoryAddr placed)  system.reserve_buffer / import
  FifoPush,       // CALL<P, TileT, TileSplitAxis::X>(p, tile)       tile.tpush_to_aiv / to_aic
  FifoPop,        // declare dst; CALL<P, TileT, TileSplitAxis::X>(p, dst)  tile.tpop_from_aic / from_aiv
  FifoFree,       // CALL<P, TileSplitAxis::X>(p)                    system.tfree_to_aic / to_aiv
  PrefetchContext,  // pto::PrefetchAsyncContext v = CALL(workspace) prefetch.make_context
  Prefetch,         // GlobalTensor view of the whole source; pto::comm::AsyncEvent v = CALL(view, ctx)
                    //                                               prefetch.async_prefetch
  PrefetchSession,  // pto::comm::AsyncSession v = ctx.session       prefetch.session
  PrefetchWait,     // bool v = event.Wait(session)                  prefetch.wait
};

struct KernelOpRow {
  std::string_view op;    // registry name
  std::string_view call;  // pto-isa function ("" for forms that need none)
  OpForm form;
};

// The table, resolved against the op registry on first use.
const ir::OpInfoTable<KernelOpRow>& kernel_op_table();
// The row of `op`, nullptr when the op has none.
inline const KernelOpRow* find_kernel_op(const ir::OpDef& op) { return kernel_op_table().find(op); }

}  // namespace pypto::emit
