// Compatibility probe (hand-written, not generated): a vector kernel in the layout pypto emits
// (output-format.md §2) that touches the pto-isa tile API surface the emitter and our CPU runtime
// share: Vec tiles (row-major, [R,1] column vectors, [1,C] rows), static and dynamic GlobalTensor
// windows, elementwise / scalar / unary / reduction / broadcast ops, casts, fills, transposes,
// reshapes, sub-tile extract/insert, TCI, scalar element access, atomic-add stores, intrinsic.h;
// compare/select masks, bitwise/remainder ops, arg reductions, gather/scatter/concat/fill/part ops,
// TTRI, TSUBVIEW, TRANDOM, TSORT32 and TMRGSORT.
// compat_test compiles it (-fsyntax-only) against the real pto-isa + simpler and against ours.
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
#include "intrinsic.h"
using namespace pto;

using Blk = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                 CompactMode::Null>;
using BlkH = Tile<TileType::Vec, half, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                  CompactMode::Null>;
using BlkT = Tile<TileType::Vec, float, 64, 16, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                  CompactMode::Null>;
using Half = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                  CompactMode::Null>;
using Flat = Tile<TileType::Vec, float, 8, 128, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                  CompactMode::Null>;
using Col = Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                 CompactMode::Null>;
using Row = Tile<TileType::Vec, float, 1, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                 CompactMode::Null>;
using Idx = Tile<TileType::Vec, int32_t, 1, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                 CompactMode::Null>;
using Mask = Tile<TileType::Vec, uint8_t, 16, 32, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                  CompactMode::Null>;
using BlkI = Tile<TileType::Vec, int32_t, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                  CompactMode::Null>;
using ColI = Tile<TileType::Vec, int32_t, 16, 1, BLayout::ColMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                  CompactMode::Null>;
using BlkPad = Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Max,
                    CompactMode::Null>;
using HalfU = Tile<TileType::Vec, uint32_t, 8, 64, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, PadValue::Null,
                   CompactMode::Null>;
using GBlk = GlobalTensor<float, pto::Shape<1, 1, 1, 16, 64>, pto::Stride<1024, 1024, 1024, 64, 1>, pto::Layout::ND>;
using GDyn = GlobalTensor<float, pto::Shape<1, 1, 1, -1, 64>, pto::Stride<-1, -1, -1, 64, 1>, pto::Layout::ND>;

static __aicore__ void probe_vector(__gm__ float* a, __gm__ float* out, float k, int64_t n, int32_t blk,
                                    int32_t nblk, int32_t lane) {
#if defined(__DAV_VEC__)
  set_mask_norm();
  set_vector_mask(-1, -1);
  Blk ta(16, 64);
  TASSIGN(ta, (uint64_t)0);
  Blk tb(16, 64);
  TASSIGN(tb, (uint64_t)4096);
  Col tc(16, 1);
  TASSIGN(tc, (uint64_t)8192);
  Row tr(1, 64);
  TASSIGN(tr, (uint64_t)8448);
  BlkH th(16, 64);
  TASSIGN(th, (uint64_t)8704);
  BlkT tt(64, 16);
  TASSIGN(tt, (uint64_t)10752);
  Half ts(8, 64);
  TASSIGN(ts, (uint64_t)14848);
  Flat tf(8, 128);
  TASSIGN(tf, (uint64_t)0);
  Idx ti(1, 64);
  TASSIGN(ti, (uint64_t)16896);
  for (int64_t i = 0; i < n; i += 1) {
    GBlk ga(a + (blk + i) * 1024);
    TLOAD(ta, ga);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    TMULS(tb, ta, k);
    pipe_barrier(PIPE_V);
    TADD(tb, tb, ta);
    TSUB(tb, tb, ta);
    TMUL(tb, tb, ta);
    TDIV(tb, tb, ta);
    TMAX(tb, tb, ta);
    TMIN(tb, tb, ta);
    TADDS(tb, tb, 1.0f);
    TSUBS(tb, tb, 1.0f);
    TDIVS(tb, tb, 2.0f);
    TMAXS(tb, tb, 0.0f);
    TMINS(tb, tb, 8.0f);
    TEXP(tb, tb);
    TLOG(tb, tb);
    TSQRT(tb, tb);
    TRSQRT(tb, tb);
    TRECIP(tb, tb);
    TNEG(tb, tb);
    TABS(tb, tb);
    TRELU(tb, tb);
    TROWMAX(tc, tb, ta);
    TROWMIN(tc, tb, ta);
    TROWSUM(tc, tb, ta);
    TROWEXPANDSUB(tb, tb, tc);
    TROWEXPANDADD(tb, tb, tc);
    TROWEXPANDMUL(tb, tb, tc);
    TROWEXPANDDIV(tb, tb, tc);
    TROWEXPAND(tb, tc);
    TCOLSUM(tr, tb);
    TCOLSUM(tr, tb, ta, true);
    TCOLMAX(tr, tb);
    TCOLMIN(tr, tb);
    TCOLEXPANDADD(tb, tb, tr);
    TCOLEXPANDSUB(tb, tb, tr);
    TCOLEXPANDMUL(tb, tb, tr);
    TCOLEXPANDDIV(tb, tb, tr);
    TCOLEXPAND(tb, tr);
    TCVT(th, tb, RoundMode::CAST_ROUND, SaturationMode::OFF);
    TCVT(tb, th, RoundMode::CAST_NONE, SaturationMode::OFF);
    TCVT(th, tb, RoundMode::CAST_RINT);
    TEXPANDS(ta, 0.5f);
    TTRANS(tt, tb, ta);
    TRESHAPE(tf, tb);
    TEXTRACT(ts, tb, 8, 0);
    TINSERT(tb, ts, 0, 0);
    TMOV(ta, tb);
    TCI<Idx, int32_t, 0>(ti, 0);
    {
      Mask tm(16, 8);
      TASSIGN(tm, (uint64_t)20480);
      BlkI tib(16, 64);
      TASSIGN(tib, (uint64_t)21504);
      ColI tci(16, 1);
      TASSIGN(tci, (uint64_t)25600);
      BlkPad tp(16, 64);
      TASSIGN(tp, (uint64_t)26624);
      HalfU tsi(8, 64);
      TASSIGN(tsi, (uint64_t)30720);
      TCMP(tm, ta, tb, CmpMode::GT);
      TCMPS(tm, ta, 0.0f, CmpMode::LT);
      TSEL(tb, tm, ta, tb, ta);
      TSELS(tb, tm, ta, ta, 1.0f);
      TXOR(tib, tib, tib, tib);
      TSHL(tib, tib, tib);
      TSHR(tib, tib, tib);
      TANDS(tib, tib, 3);
      TORS(tib, tib, 3);
      TXORS(tib, tib, 3, tib);
      TSHLS(tib, tib, 1);
      TSHRS(tib, tib, 1);
      TREM(tb, tb, ta, ta);
      TREMS(tb, tb, 3.0f, ta);
      TFMOD(tb, tb, ta);
      TFMODS(tb, tb, 3.0f);
      TPRELU(tb, tb, ta, ta);
      TADDC(tb, tb, ta, tb);
      TSUBC(tb, tb, ta, tb);
      TADDSC(tb, tb, 1.0f, ta);
      TSUBSC(tb, tb, 1.0f, ta);
      TROWARGMAX(tci, tb, ta);
      TROWARGMIN(tc, tci, tb, ta);
      TCOLARGMAX(ti, tb, ta);
      TCOLARGMIN(tr, ti, tb, ta);
      TCONCAT(tf, ts, ts);
      TGATHER(tb, ta, tib, ta);
      TGATHER<Blk, Blk, MaskPattern::P0101>(tb, ta);
      TGATHERB(tb, ta, tib);
      TSCATTER(tb, ta, tib);
      TSCATTER<MaskPattern::P0101>(tb, ta);
      TTRI<Blk, 0>(tb, 0);
      TFILLPAD(tp, ta);
      TFILLPAD_INPLACE(tp, ta);
      TFILLPAD_EXPAND(tp, ta);
      TPARTADD(tb, ta, tb);
      TPARTMUL(tb, ta, tb);
      TPARTMAX(tb, ta, tb);
      TPARTMIN(tb, ta, tb);
      TSUBVIEW(ts, tb, 8, 0);
      TRandomKey key = {1, 2};
      TRandomCounter ctr = {0, 0, 0, 0};
      TRANDOM(tib, key, ctr);
      TSORT32(tf, ts, tsi);
      TMRGSORT(tr, tr, 16);
      MrgSortExecutedNumList done;
      TMRGSORT<Row, Row, Row, Row, false>(tr, done, tr, tr, tr);
    }
    set_flag(PIPE_V, PIPE_S, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_S, EVENT_ID0);
    float v = tb.GetValue(3);
    tb.SetValue(4, v + static_cast<float>(nblk + lane));
    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
    GBlk go(out + (blk + i) * 1024);
    TSTORE(go, tb);
    GDyn gd(out, pto::Shape<1, 1, 1, -1, 64>(16), pto::Stride<-1, -1, -1, 64, 1>(1024, 1024, 1024));
    TSTORE<Blk, GDyn, AtomicType::AtomicAdd>(gd, tb);
    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);
  }
#endif
  pipe_barrier(PIPE_ALL);
  return;
}

extern "C" __aicore__ __attribute__((always_inline)) void kernel_entry(__gm__ int64_t* args) {
#if !defined(__CPU_SIM) && !defined(__COSTMODEL)
  set_atomic_none();
#endif
  __gm__ ChipTensor* a_d = reinterpret_cast<__gm__ ChipTensor*>(args[0]);
  __gm__ ChipTensor* out_d = reinterpret_cast<__gm__ ChipTensor*>(args[1]);
  __gm__ float* a = reinterpret_cast<__gm__ float*>(a_d->buffer.addr) + a_d->start_offset;
  __gm__ float* out = reinterpret_cast<__gm__ float*>(out_d->buffer.addr) + out_d->start_offset;
  union {
    uint64_t u64;
    float val;
  } k_bits;
  k_bits.u64 = static_cast<uint64_t>(args[2]);
  int64_t n = static_cast<int64_t>(a_d->shapes[0]) / 16;
  (void)get_dma_workspace(args, 0);
  probe_vector(a, out, k_bits.val, n, get_block_idx(args), get_block_num(args), get_sub_block_id(args));
}
