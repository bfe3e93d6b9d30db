// pypto CPU runtime: data-movement and generation instructions on Vec tiles — TCONCAT, TGATHER
// (index and mask-pattern forms), TGATHERB, TSCATTER (index and mask-pattern forms), TTRI,
// TFILLPAD / TFILLPAD_INPLACE / TFILLPAD_EXPAND, TPARTADD / TPARTMUL / TPARTMAX / TPARTMIN,
// TSUBVIEW, TRANDOM.
//
// "Flat index" below means the element's position in the tile's dense row-major storage,
// r * Cols + c (see pto_tile.hpp), which is also its offset in pto-isa's row-major tiles.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "pto_ops_vector.hpp"
#include "pto_tile.hpp"

namespace pto {
namespace detail {

// Same-width element types are bit-copied, others converted.
template <typename To, typename From>
inline To bit_or_convert(From v) {
    if constexpr (std::is_same_v<To, From>) return v;
    else if constexpr (sizeof(To) == sizeof(From)) {
        To out;
        std::memcpy(&out, &v, sizeof(To));
        return out;
    } else return cvt::to<To>(v);
}

inline bool mask_pattern_selects(MaskPattern p, unsigned i) {
    switch (p) {
        case MaskPattern::P0101: return i % 2 == 0;
        case MaskPattern::P1010: return i % 2 == 1;
        case MaskPattern::P0001: return i % 4 == 0;
        case MaskPattern::P0010: return i % 4 == 1;
        case MaskPattern::P0100: return i % 4 == 2;
        case MaskPattern::P1000: return i % 4 == 3;
        case MaskPattern::P1111: return true;
    }
    return true;
}

template <typename T>
T& flat_at(T* base, std::size_t numel, std::size_t i, const char* name) {
    if (i >= numel)
        sim::fail(std::string(name) + ": flat index " + std::to_string(i) + " outside the tile's " +
                  std::to_string(numel) + " elements");
    return base[i];
}

}  // namespace detail

// ---- TCONCAT ----
// dst row r = the first n0 columns of src0 row r followed by the first n1 columns of src1 row r.
// Basic form: n0 / n1 are the sources' valid widths. Indexed forms: n0 = src0Idx(r, 0) /
// sizeof(index type), n1 likewise (the index tiles hold counts scaled by their own element size,
// as on the NPU); the 6-operand form also writes dstIdx(r, 0) = min(n0 + n1, dst valid cols) *
// sizeof(index type). Columns past dst's valid width are dropped.
namespace detail {
template <typename D, typename A, typename B, typename N>
void concat_rows(D& dst, A& src0, B& src1, N counts) {
    static_assert(std::is_same_v<typename D::DType, typename A::DType> &&
                      std::is_same_v<typename D::DType, typename B::DType>,
                  "TCONCAT: dst, src0 and src1 must have the same element type");
    const unsigned rows = dst.GetValidRow(), dcols = dst.GetValidCol();
    for (unsigned r = 0; r < rows; ++r) {
        const auto [n0, n1] = counts(r);
        if (n0 > static_cast<unsigned>(A::Cols) || n1 > static_cast<unsigned>(B::Cols))
            sim::fail("TCONCAT: row " + std::to_string(r) + " column count exceeds a source tile's width");
        // Read both rows first so that dst may alias a source.
        std::vector<typename D::DType> row;
        row.reserve(n0 + n1);
        for (unsigned c = 0; c < n0; ++c) row.push_back(src0.at(r, c));
        for (unsigned c = 0; c < n1; ++c) row.push_back(src1.at(r, c));
        for (unsigned c = 0; c < row.size() && c < dcols; ++c) dst.at(r, c) = row[c];
    }
}
}  // namespace detail

template <typename D, typename A, typename B, typename... W>
    requires(is_tile_v<D> && is_tile_v<A> && is_tile_v<B> && all_events_v<W...>)
RecordEvent TCONCAT(D& dst, A& src0, B& src1, W&...) {
    const unsigned n0 = src0.GetValidCol(), n1 = src1.GetValidCol();
    detail::concat_rows(dst, src0, src1, [&](unsigned) { return std::pair<unsigned, unsigned>{n0, n1}; });
    return {};
}
template <typename D, typename A, typename B, typename AI, typename BI, typename... W>
    requires(is_tile_v<D> && is_tile_v<A> && is_tile_v<B> && is_tile_v<AI> && is_tile_v<BI> && all_events_v<W...>)
RecordEvent TCONCAT(D& dst, A& src0, B& src1, AI& src0Idx, BI& src1Idx, W&...) {
    using TI = typename AI::DType;
    static_assert(std::is_integral_v<TI> && std::is_same_v<TI, typename BI::DType>,
                  "TCONCAT: src0Idx and src1Idx must have the same integer type");
    detail::concat_rows(dst, src0, src1, [&](unsigned r) {
        return std::pair<unsigned, unsigned>{static_cast<unsigned>(src0Idx.at(r, 0)) / sizeof(TI),
                                             static_cast<unsigned>(src1Idx.at(r, 0)) / sizeof(TI)};
    });
    return {};
}
template <typename D, typename A, typename B, typename DI, typename AI, typename BI, typename... W>
    requires(is_tile_v<D> && is_tile_v<A> && is_tile_v<B> && is_tile_v<DI> && is_tile_v<AI> && is_tile_v<BI> &&
             all_events_v<W...>)
RecordEvent TCONCAT(D& dst, A& src0, B& src1, DI& dstIdx, AI& src0Idx, BI& src1Idx, W&...) {
    using TI = typename AI::DType;
    static_assert(std::is_integral_v<TI> && std::is_same_v<TI, typename BI::DType> &&
                      std::is_same_v<TI, typename DI::DType>,
                  "TCONCAT: dstIdx, src0Idx and src1Idx must have the same integer type");
    detail::concat_rows(dst, src0, src1, [&](unsigned r) {
        const unsigned n0 = static_cast<unsigned>(src0Idx.at(r, 0)) / sizeof(TI);
        const unsigned n1 = static_cast<unsigned>(src1Idx.at(r, 0)) / sizeof(TI);
        dstIdx.at(r, 0) = static_cast<TI>(std::min(n0 + n1, dst.GetValidCol()) * sizeof(TI));
        return std::pair<unsigned, unsigned>{n0, n1};
    });
    return {};
}

// ---- TGATHER ----
// Index form: dst(r, c) = src0 element at flat index src1(r, c) (32-bit indices, over src0's whole
// Rows x Cols storage); an index outside [0, Rows*Cols) yields 0. The tmp tile is unused.
template <typename D, typename S0, typename S1, typename Tmp, typename... W>
    requires(is_tile_v<D> && is_tile_v<S0> && is_tile_v<S1> && is_tile_v<Tmp> && all_events_v<W...>)
RecordEvent TGATHER(D& dst, S0& src0, S1& src1, Tmp&, W&...) {
    using TI = typename S1::DType;
    static_assert(sizeof(TI) == 4 && std::is_integral_v<TI>, "TGATHER: indices must be 32-bit integers");
    static_assert(std::is_same_v<typename D::DType, typename S0::DType>, "TGATHER: dst and src0 types differ");
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    const auto src = detail::snapshot(src0, S0::Rows, S0::Cols);  // dst may alias src0
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c) {
            const int64_t i = static_cast<int64_t>(src1.at(r, c));
            dst.at(r, c) = i >= 0 && i < S0::Numel ? src[static_cast<std::size_t>(i)] : typename D::DType(0);
        }
    return {};
}

// Mask-pattern form: keeps the source elements whose column (GATHER_ROW) or row (GATHER_COL)
// index the pattern selects (P0101: even, P1010: odd, P0001..P1000: index % 4 == 0..3, P1111:
// all), over src's valid region. GATHER_ROW packs the kept elements densely, row after row, into
// dst's flat storage from element 0; GATHER_COL writes kept row k to dst row k. Same-width
// element types are bit-copied.
template <typename D, typename S, MaskPattern maskPattern = MaskPattern::P1111,
          auto gatherType = GatherAxis::GATHER_ROW, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TGATHER(D& dst, S& src, W&...) {
    sim::instr_unwrapped<sim::InstrKind::Vector, 0>("TGATHER", dst, src);  // kernels call TGATHER<..., MaskPattern>(...)
    static_assert(sizeof(typename D::DType) == sizeof(typename S::DType),
                  "TGATHER: dst and src element sizes must match");
    using T = typename D::DType;
    const unsigned rows = src.GetValidRow(), cols = src.GetValidCol();
    const auto v = detail::snapshot(src, rows, cols);
    if constexpr (gatherType == GatherAxis::GATHER_ROW) {
        std::size_t k = 0;
        for (unsigned r = 0; r < rows; ++r)
            for (unsigned c = 0; c < cols; ++c)
                if (detail::mask_pattern_selects(maskPattern, c))
                    detail::flat_at(dst.data(), D::Numel, k++, "TGATHER") =
                        detail::bit_or_convert<T>(v[static_cast<std::size_t>(r) * cols + c]);
    } else {
        unsigned k = 0;
        for (unsigned r = 0; r < rows; ++r) {
            if (!detail::mask_pattern_selects(maskPattern, r)) continue;
            if (k >= static_cast<unsigned>(D::Rows) || cols > static_cast<unsigned>(D::Cols))
                sim::fail("TGATHER: gathered rows do not fit the destination tile");
            for (unsigned c = 0; c < cols; ++c)
                dst.at(k, c) = detail::bit_or_convert<T>(v[static_cast<std::size_t>(r) * cols + c]);
            ++k;
        }
    }
    return {};
}

// TGATHERB: block gather. Each 32-byte block b of dst row r (b < validCol * sizeof(T) / 32) is
// copied from the 32 bytes at byte offset offset(r, b) of src's storage; a block whose source
// bytes would run past src's storage is left unchanged.
template <typename D, typename S, typename O, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && is_tile_v<O> && all_events_v<W...>)
RecordEvent TGATHERB(D& dst, S& src, O& offset, W&...) {
    constexpr std::size_t kBlock = 32;
    const unsigned rows = dst.GetValidRow();
    const std::size_t blocks = dst.GetValidCol() * sizeof(typename D::DType) / kBlock;
    const auto* s = reinterpret_cast<const uint8_t*>(src.data());
    std::vector<uint8_t> sv(s, s + S::Bytes);  // dst may alias src
    for (unsigned r = 0; r < rows; ++r)
        for (std::size_t b = 0; b < blocks; ++b) {
            const uint64_t off = static_cast<uint64_t>(offset.at(r, static_cast<unsigned>(b)));
            if (off + kBlock > S::Bytes) continue;
            std::memcpy(reinterpret_cast<uint8_t*>(&dst.at(r, 0)) + b * kBlock, sv.data() + off, kBlock);
        }
    return {};
}

// ---- TSCATTER ----
// Both forms write the whole destination tile: the NPU first clears all of dst's storage (its
// previous contents are not kept, on 910B and 950 alike), then writes the scattered elements.
// Index form: dst element at flat index indexes(i, j) = src(i, j), over indexes' valid region
// (later elements win on duplicate indices; an index outside dst's storage is an error).
template <typename D, typename S, typename I, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && is_tile_v<I> && all_events_v<W...>)
RecordEvent TSCATTER(D& dst, S& src, I& indexes, W&...) {
    static_assert(std::is_integral_v<typename I::DType>, "TSCATTER: indexes must be an integral type");
    static_assert(std::is_same_v<typename D::DType, typename S::DType>, "TSCATTER: dst and src must have one element type");
    static_assert((sizeof(typename D::DType) >= 4 && sizeof(typename I::DType) == 4) ||
                      (sizeof(typename D::DType) <= 2 && sizeof(typename I::DType) == 2),
                  "TSCATTER: 32- and 64-bit elements take 32-bit indexes, 16- and 8-bit elements 16-bit ones");
    const unsigned rows = indexes.GetValidRow(), cols = indexes.GetValidCol();
    const auto v = detail::snapshot(src, rows, cols);  // dst may alias src or indexes
    const auto k = detail::snapshot(indexes, rows, cols);
    std::fill(dst.data(), dst.data() + D::Numel, typename D::DType{});
    for (std::size_t n = 0; n < k.size(); ++n) {
        const int64_t at = static_cast<int64_t>(k[n]);
        if (at < 0) sim::fail("TSCATTER: negative index " + std::to_string(at));
        detail::flat_at(dst.data(), D::Numel, static_cast<std::size_t>(at), "TSCATTER") = cvt::to<typename D::DType>(v[n]);
    }
    return {};
}

// Mask-pattern form, the inverse of TGATHER's: over dst's valid region, positions whose column
// (SCATTER_ROW) or row (SCATTER_COL) the pattern selects take the next source element (SCATTER_ROW:
// src read densely in flat order; SCATTER_COL: the next src row); everything else of dst is 0.
// P1111 is a plain copy.
template <MaskPattern maskPattern = MaskPattern::P1111, auto ScatterType = ScatterAxis::SCATTER_ROW,
          typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TSCATTER(D& dst, S& src, W&...) {
    sim::instr_unwrapped<sim::InstrKind::Vector, 0>("TSCATTER", dst, src);  // kernels call TSCATTER<MaskPattern>(...)
    static_assert(sizeof(typename D::DType) == sizeof(typename S::DType),
                  "TSCATTER: dst and src element sizes must match");
    using T = typename D::DType;
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    const std::vector<typename S::DType> sv(src.data(), src.data() + S::Numel);  // dst may alias src
    std::fill(dst.data(), dst.data() + D::Numel, T{});
    if constexpr (ScatterType == ScatterAxis::SCATTER_ROW) {
        std::size_t k = 0;
        for (unsigned r = 0; r < rows; ++r)
            for (unsigned c = 0; c < cols; ++c)
                if (detail::mask_pattern_selects(maskPattern, c))
                    dst.at(r, c) = detail::bit_or_convert<T>(detail::flat_at(sv.data(), sv.size(), k++, "TSCATTER"));
    } else {
        unsigned k = 0;
        for (unsigned r = 0; r < rows; ++r) {
            if (!detail::mask_pattern_selects(maskPattern, r)) continue;
            if (k >= static_cast<unsigned>(S::Rows)) sim::fail("TSCATTER: source rows exhausted");
            for (unsigned c = 0; c < cols; ++c) dst.at(r, c) = detail::bit_or_convert<T>(sv[static_cast<std::size_t>(k) * S::Cols + c]);
            ++k;
        }
    }
    return {};
}

// TTRI<TileData, isUpperOrLower>(dst, diagonal): triangular 0/1 mask over dst's valid region.
// Lower (0): dst(r, c) = c <= r + diagonal; upper (1): dst(r, c) = c >= r + diagonal.
template <typename D, int isUpperOrLower, typename... W>
    requires(is_tile_v<D> && all_events_v<W...>)
RecordEvent TTRI(D& dst, int diagonal, W&...) {
    sim::instr_unwrapped<sim::InstrKind::Vector, 0>("TTRI", dst);  // kernels call TTRI<...>(...)
    static_assert(isUpperOrLower == 0 || isUpperOrLower == 1, "TTRI: isUpperOrLower must be 0 or 1");
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c) {
            const int64_t d = static_cast<int64_t>(c) - static_cast<int64_t>(r);
            const bool one = isUpperOrLower == 0 ? d <= diagonal : d >= diagonal;
            dst.at(r, c) = static_cast<typename D::DType>(one ? 1 : 0);
        }
    return {};
}

// ---- TFILLPAD ----
// Over dst's valid region: dst(i, j) = src(i, j) inside src's valid region, else the pad value
// (Vec forms: dst's PadVal, which must not be Null; Mat form: the PadVal template argument).
// Elements are bit-copied (equal element sizes required). Normal / InPlace need equal static
// shapes, Expand a dst at least as large as src.
namespace detail {
template <typename D, typename S>
void fill_pad(D& dst, S& src, typename D::DType pad) {
    static_assert(sizeof(typename D::DType) == sizeof(typename S::DType), "TFILLPAD: element sizes must match");
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    const unsigned sr = src.GetValidRow(), sc = src.GetValidCol();
    const auto v = snapshot(src, sr, sc);
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c)
            dst.at(r, c) = r < sr && c < sc ? bit_or_convert<typename D::DType>(v[static_cast<std::size_t>(r) * sc + c])
                                            : pad;
}
}  // namespace detail

template <typename T, PadValue PadVal = PadValue::Zero, typename... W>
    requires(is_tile_v<T> && T::Loc == TileType::Mat && all_events_v<W...>)
RecordEvent TFILLPAD(T& dst, T& src, W&...) {
    detail::fill_pad(dst, src, pad_value<typename T::DType>(PadVal));
    return {};
}
template <TFillPadMode mode = TFillPadMode::Normal, typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && D::Loc == TileType::Vec && S::Loc == TileType::Vec &&
             all_events_v<W...>)
RecordEvent TFILLPAD(D& dst, S& src, W&...) {
    static_assert(D::PadVal != PadValue::Null, "TFILLPAD: the destination tile's PadVal must not be Null");
    if constexpr (mode == TFillPadMode::Expand)
        static_assert(D::Rows >= S::Rows && D::Cols >= S::Cols, "TFILLPAD_EXPAND: dst must not be smaller than src");
    else
        static_assert(D::Rows == S::Rows && D::Cols == S::Cols, "TFILLPAD: dst and src must have the same shape");
    detail::fill_pad(dst, src, pad_value<typename D::DType>(D::PadVal));
    return {};
}
template <typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TFILLPAD_INPLACE(D& dst, S& src, W&...) {
    return TFILLPAD<TFillPadMode::InPlace>(dst, src);
}
template <typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TFILLPAD_EXPAND(D& dst, S& src, W&...) {
    return TFILLPAD<TFillPadMode::Expand>(dst, src);
}

// ---- TPART* ----
// Over dst's valid region: op(src0, src1) where (i, j) is inside both sources' valid regions, the
// one source's value where it is inside only one, 0 where it is inside neither.
namespace detail {
template <typename D, typename A, typename B, typename F>
void part_op(D& dst, A& src0, B& src1, F f) {
    static_assert(std::is_same_v<typename D::DType, typename A::DType> &&
                      std::is_same_v<typename D::DType, typename B::DType>,
                  "TPART*: dst, src0 and src1 must have the same element type");
    using C = compute_t<typename D::DType>;
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    const unsigned r0 = src0.GetValidRow(), c0 = src0.GetValidCol(), r1 = src1.GetValidRow(), c1 = src1.GetValidCol();
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c) {
            const bool in0 = r < r0 && c < c0, in1 = r < r1 && c < c1;
            if (in0 && in1) dst.at(r, c) = store_as<D>(f(load_as<C>(src0.at(r, c)), load_as<C>(src1.at(r, c))));
            else if (in0) dst.at(r, c) = src0.at(r, c);
            else if (in1) dst.at(r, c) = src1.at(r, c);
            else dst.at(r, c) = typename D::DType(0);
        }
}
}  // namespace detail

#define PTO_SIM_PART(NAME, OP)                                                                      \
    template <typename D, typename A, typename B, typename... W>                                    \
        requires(is_tile_v<D> && is_tile_v<A> && is_tile_v<B> && all_events_v<W...>)               \
    RecordEvent NAME(D& dst, A& src0, B& src1, W&...) {                                             \
        detail::part_op(dst, src0, src1, OP);                                                       \
        return {};                                                                                  \
    }
PTO_SIM_PART(TPARTADD, detail::kAdd)
PTO_SIM_PART(TPARTMUL, detail::kMul)
PTO_SIM_PART(TPARTMAX, detail::kMax)
PTO_SIM_PART(TPARTMIN, detail::kMin)
#undef PTO_SIM_PART

// TSUBVIEW: rebinds dst to alias src's storage from element (rowIdx, colIdx) on (dst then indexes
// with its own Cols, so a view normally shares the parent's Cols). No data moves.
template <typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TSUBVIEW(D& dst, S& src, uint16_t rowIdx, uint16_t colIdx, W&...) {
    static_assert(D::Loc == S::Loc, "TSUBVIEW: dst and src must have the same TileType");
    const std::size_t off = (static_cast<std::size_t>(rowIdx) * S::Cols + colIdx) * sizeof(typename S::DType);
    TASSIGN(dst, src.address() + off);  // bounds-checked against the simulated buffer
    return {};
}

// TRANDOM<Rounds>(dst, key, counter): Philox-4x32 random bits (Rounds = 7 or 10) over dst's valid
// region, deterministic in (key, counter); int32_t / uint32_t tiles. Layout as pto-isa defines it:
// each row is produced in chunks of 256 columns (4 repeats x 64 lanes); lane l of a chunk runs
// Philox on counter + l (128-bit add) and its 4 output words go to columns chunk*256 + k*64 + l,
// k = 0..3. After every chunk the running counter advances by Cols / 4; it carries over from one
// row to the next. key and counter are not modified.
namespace detail {
inline void philox_add(std::array<uint32_t, 4>& ctr, uint64_t v) {
    for (auto& w : ctr) {
        v += w;
        w = static_cast<uint32_t>(v);
        v >>= 32;
        if (v == 0) break;
    }
}
template <uint16_t Rounds>
inline std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> x, uint32_t k0, uint32_t k1) {
    for (uint16_t i = 0; i < Rounds; ++i) {
        const uint64_t p0 = uint64_t{x[0]} * 0xD2511F53u, p1 = uint64_t{x[2]} * 0xCD9E8D57u;
        x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ k0, static_cast<uint32_t>(p1),
             static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ k1, static_cast<uint32_t>(p0)};
        k0 += 0x9E3779B9u;  // Weyl key schedule
        k1 += 0xBB67AE85u;
    }
    return x;
}
}  // namespace detail

template <uint16_t Rounds = 10, typename D, typename... W>
    requires(is_tile_v<D> && all_events_v<W...>)
RecordEvent TRANDOM(D& dst, TRandomKey& key, TRandomCounter& counter, W&...) {
    sim::instr_unwrapped<sim::InstrKind::Vector, 0>("TRANDOM", dst);  // called as TRANDOM<Rounds>(...)
    using T = typename D::DType;
    static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t>, "TRANDOM: int32_t or uint32_t tiles only");
    static_assert(Rounds == 7 || Rounds == 10, "TRANDOM: Rounds must be 7 or 10");
    constexpr unsigned kLanes = 64, kChunk = 4 * kLanes;
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    std::array<uint32_t, 4> ctr = {counter[0], counter[1], counter[2], counter[3]};
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned base = 0; base < cols; base += kChunk) {
            for (unsigned l = 0; l < kLanes; ++l) {
                auto x = ctr;
                detail::philox_add(x, l);
                const auto out = detail::philox4x32<Rounds>(x, key[0], key[1]);
                for (unsigned k = 0; k < 4; ++k) {
                    const unsigned c = base + k * kLanes + l;
                    if (c < cols) dst.at(r, c) = static_cast<T>(out[k]);
                }
            }
            detail::philox_add(ctr, D::Cols / 4);
        }
    return {};
}

}  // namespace pto
