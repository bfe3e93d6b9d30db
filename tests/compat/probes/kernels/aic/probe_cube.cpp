// Compatibility probe (hand-written, not generated): a cube kernel in the layout pypto emits
// (output-format.md §2): Mat/Left/Right/Acc/Bias tiles with the 910B layouts, GM→Mat loads,
// Mat→Left/Right moves and extracts, TMATMUL / 4-operand TMATMUL_ACC / TMATMUL_BIAS / TGEMV,
// Acc→GM stores. (The 3-operand TMATMUL_ACC(acc, l, r) is absent from pto-isa's CPU simulator at
// cd4a3d3f, so it is deliberately not used.) compat_test compiles it against both header sets.
#include <cstdint>
#ifndef __gm__
#define __gm__
#endif
#ifndef __aicore__
#if defined(__CPU_SIM)
#define __aicore__
#else
#define __aicore__ [aicore]
#endif
#endif
#include <pto/pto-inst.hpp>
#include "tensor.h"
using namespace pto;

static __aicore__ void probe_cube(__gm__ half* a, __gm__ half* b, __gm__ float* bias, __gm__ float* c) {
#if defined(__DAV_CUBE__)
  using MatT = Tile<TileType::Mat, half, 32, 64, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null,
                    CompactMode::Null>;
  using MatBias = Tile<TileType::Mat, float, 1, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                       CompactMode::Null>;
  using LeftT = Tile<TileType::Left, half, 32, 32, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512, PadValue::Null,
                     CompactMode::Null>;
  using RightT = Tile<TileType::Right, half, 32, 32, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512,
                      PadValue::Null, CompactMode::Null>;
  using AccT = Tile<TileType::Acc, float, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024, PadValue::Null,
                    CompactMode::Null>;
  using BiasT = Tile<TileType::Bias, float, 1, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                     CompactMode::Null>;
  using GIn = GlobalTensor<half, pto::Shape<1, 1, 1, 32, 64>, pto::Stride<2048, 2048, 2048, 64, 1>, pto::Layout::ND>;
  using GBias = GlobalTensor<float, pto::Shape<1, 1, 1, 1, 32>, pto::Stride<32, 32, 32, 32, 1>, pto::Layout::ND>;
  using GOut = GlobalTensor<float, pto::Shape<1, 1, 1, 32, 32>, pto::Stride<1024, 1024, 1024, 32, 1>, pto::Layout::ND>;
  MatT ma(32, 64);
  TASSIGN(ma, (uint64_t)0);
  MatT mb(32, 64);
  TASSIGN(mb, (uint64_t)4096);
  MatBias mbias(1, 32);
  TASSIGN(mbias, (uint64_t)8192);
  LeftT l(32, 32);
  TASSIGN(l, (uint64_t)0);
  RightT r(32, 32);
  TASSIGN(r, (uint64_t)0);
  AccT acc(32, 32);
  TASSIGN(acc, (uint64_t)0);
  AccT acc2(32, 32);
  TASSIGN(acc2, (uint64_t)4096);
  BiasT bt(1, 32);
  TASSIGN(bt, (uint64_t)0);
  GIn ga(a), gb(b);
  GBias gbias(bias);
  GOut gc(c);
  TLOAD(ma, ga);
  TLOAD(mb, gb);
  TLOAD(mbias, gbias);
  set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  TEXTRACT(l, ma, 0, 0);
  TEXTRACT(r, mb, 0, 32);
  TMOV(bt, mbias);
  set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
  wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
  TMATMUL(acc, l, r);
  TMATMUL_ACC(acc2, acc, l, r);
  TMATMUL_BIAS(acc, l, r, bt);
  TGEMV(acc2, l, r);
  set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
  wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
  TSTORE(gc, acc2);
#endif
  pipe_barrier(PIPE_ALL);
  return;
}

extern "C" __aicore__ __attribute__((always_inline)) void kernel_entry(__gm__ int64_t* args) {
#if !defined(__CPU_SIM) && !defined(__COSTMODEL)
  set_atomic_none();
#endif
  __gm__ ChipTensor* a_d = reinterpret_cast<__gm__ ChipTensor*>(args[0]);
  __gm__ ChipTensor* b_d = reinterpret_cast<__gm__ ChipTensor*>(args[1]);
  __gm__ ChipTensor* bias_d = reinterpret_cast<__gm__ ChipTensor*>(args[2]);
  __gm__ ChipTensor* c_d = reinterpret_cast<__gm__ ChipTensor*>(args[3]);
  probe_cube(reinterpret_cast<__gm__ half*>(a_d->buffer.addr) + a_d->start_offset,
             reinterpret_cast<__gm__ half*>(b_d->buffer.addr) + b_d->start_offset,
             reinterpret_cast<__gm__ float*>(bias_d->buffer.addr) + bias_d->start_offset,
             reinterpret_cast<__gm__ float*>(c_d->buffer.addr) + c_d->start_offset);
}
