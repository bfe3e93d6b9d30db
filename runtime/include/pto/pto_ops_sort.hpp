// pypto CPU runtime: sorting instructions on Vec tiles — TSORT32 and the TMRGSORT forms.
//
// Both work on 8-byte (score, index) records laid out in a row:
//   4-byte scores (float, int32_t): [score][uint32 index]            = 2 elements per record
//   2-byte scores (half, bfloat16_t, int16_t): [score][0][uint32 index] = 4 elements per record
// Sort order is descending by score; equal scores keep ascending index order (TSORT32) or the
// lower-numbered list first (TMRGSORT).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "pto_ops_vector.hpp"
#include "pto_tile.hpp"

namespace pto {
namespace detail {

template <typename T>
inline constexpr unsigned record_elems_v = 8 / sizeof(T);

template <typename T>
struct SortRecord {
    T score;
    uint32_t index;
};

template <typename T>
inline float sort_key(T v) {
    if constexpr (is_float_like_v<T>) return cvt::to_f32(v);
    else return static_cast<float>(v);
}

template <typename T>
inline void store_record(T* p, const SortRecord<T>& rec) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 2, "sort records need 2- or 4-byte scores");
    std::memset(p, 0, 8);
    p[0] = rec.score;
    std::memcpy(reinterpret_cast<uint8_t*>(p) + 4, &rec.index, 4);
}
template <typename T>
inline SortRecord<T> load_record(const T* p) {
    SortRecord<T> rec{p[0], 0};
    std::memcpy(&rec.index, reinterpret_cast<const uint8_t*>(p) + 4, 4);
    return rec;
}

template <typename T>
inline bool score_greater(T a, T b) {
    if constexpr (std::is_integral_v<T>) return a > b;
    else return sort_key(a) > sort_key(b);
}

}  // namespace detail

// TSORT32(dst, src, idx[, tmp]): for every row r of src's valid region and every block of 32
// columns (the last block may be shorter), sorts the (src(r, c), idx(r, c)) pairs of the block by
// descending score (ties: ascending index) and writes them as records to dst row r, block b
// starting at byte 256*b (element 64*b for 4-byte scores, 128*b for 2-byte scores). idx is
// uint32_t. (The pto-isa CPU simulator starts 2-byte-score blocks at element 64*b, overlapping
// the previous block; the record layout above is the NPU's.) Takes no wait events, as in pto-isa.
template <typename D, typename S, typename I>
    requires(is_tile_v<D> && is_tile_v<S> && is_tile_v<I>)
RecordEvent TSORT32(D& dst, S& src, I& idx) {
    using T = typename S::DType;
    static_assert(std::is_same_v<typename D::DType, T>, "TSORT32: dst and src must have the same element type");
    static_assert(std::is_same_v<typename I::DType, uint32_t>, "TSORT32: idx must be uint32_t");
    constexpr unsigned kRec = detail::record_elems_v<T>;
    const unsigned rows = src.GetValidRow(), cols = src.GetValidCol();
    if (idx.GetValidRow() != rows || idx.GetValidCol() != cols) sim::fail("TSORT32: src and idx valid shapes differ");
    for (unsigned r = 0; r < rows; ++r) {
        std::vector<detail::SortRecord<T>> recs;
        for (unsigned c = 0; c < cols; ++c) recs.push_back({src.at(r, c), idx.at(r, c)});
        for (unsigned b = 0; b * 32 < cols; ++b) {
            const auto first = recs.begin() + b * 32, last = recs.begin() + std::min(cols, (b + 1) * 32);
            std::stable_sort(first, last, [](const auto& x, const auto& y) {
                if (detail::score_greater(x.score, y.score)) return true;
                if (detail::score_greater(y.score, x.score)) return false;
                return x.index < y.index;
            });
        }
        if (static_cast<std::size_t>(cols) * kRec > static_cast<std::size_t>(D::Cols))
            sim::fail("TSORT32: sorted records do not fit the destination row");
        for (unsigned c = 0; c < cols; ++c) detail::store_record(&dst.at(r, 0) + c * kRec, recs[c]);
    }
    return {};
}
template <typename D, typename S, typename I, typename Tmp>
    requires(is_tile_v<D> && is_tile_v<S> && is_tile_v<I> && is_tile_v<Tmp>)
RecordEvent TSORT32(D& dst, S& src, I& idx, Tmp&) {
    return TSORT32(dst, src, idx);
}

// ---- TMRGSORT ----
// List forms: merges 2, 3 or 4 sorted record lists (row 0 of each source; a list holds
// validCol / record-size records) into dst row 0, at most dst validCol / record-size records, by
// repeatedly taking the head with the largest score (ties: lowest list number). With exhausted =
// true the merge stops as soon as one list is used up. executedNumList receives how many records
// were taken from each list (unused lists: 0). The tmp tile is unused on the CPU. Kernels call
// these with explicit template arguments, so they announce themselves (pto_instr_sites.hpp).
namespace detail {
template <bool exhausted, typename D, typename... L>
void merge_lists(D& dst, MrgSortExecutedNumList& done, L&... lists) {
    using T = typename D::DType;
    static_assert((std::is_same_v<typename L::DType, T> && ...), "TMRGSORT: all tiles must have the same type");
    constexpr unsigned kRec = record_elems_v<T>;
    constexpr std::size_t N = sizeof...(L);
    std::array<std::vector<SortRecord<T>>, N> in;
    std::size_t li = 0;
    auto read = [&](auto& t) {
        for (unsigned k = 0; k < t.GetValidCol() / kRec; ++k) in[li].push_back(load_record(&t.at(0, 0) + k * kRec));
        ++li;
    };
    (read(lists), ...);
    std::array<std::size_t, N> pos{};
    const unsigned outMax = dst.GetValidCol() / kRec;
    for (unsigned out = 0; out < outMax; ++out) {
        int pick = -1;
        for (std::size_t l = 0; l < N; ++l)
            if (pos[l] < in[l].size() &&
                (pick < 0 || score_greater(in[l][pos[l]].score, in[static_cast<std::size_t>(pick)][pos[pick]].score)))
                pick = static_cast<int>(l);
        if (pick < 0) break;
        store_record(&dst.at(0, 0) + out * kRec, in[static_cast<std::size_t>(pick)][pos[pick]++]);
        if constexpr (exhausted) {
            bool any_done = false;
            for (std::size_t l = 0; l < N; ++l) any_done = any_done || pos[l] == in[l].size();
            if (any_done) break;
        }
    }
    uint16_t* counts[4] = {&done.mrgSortList0, &done.mrgSortList1, &done.mrgSortList2, &done.mrgSortList3};
    for (std::size_t l = 0; l < 4; ++l) *counts[l] = l < N ? static_cast<uint16_t>(pos[l]) : uint16_t(0);
}
}  // namespace detail

template <typename D, typename Tmp, typename S0, typename S1, typename S2, typename S3, bool exhausted,
          typename... W>
    requires(is_tile_v<D> && all_events_v<W...>)
RecordEvent TMRGSORT(D& dst, MrgSortExecutedNumList& executedNumList, Tmp& tmp, S0& src0, S1& src1, S2& src2, S3& src3,
                     W&...) {
    sim::instr_unwrapped<sim::InstrKind::Vector, 0>("TMRGSORT", dst, executedNumList, tmp, src0, src1, src2, src3);
    detail::merge_lists<exhausted>(dst, executedNumList, src0, src1, src2, src3);
    return {};
}
template <typename D, typename Tmp, typename S0, typename S1, typename S2, bool exhausted, typename... W>
    requires(is_tile_v<D> && all_events_v<W...>)
RecordEvent TMRGSORT(D& dst, MrgSortExecutedNumList& executedNumList, Tmp& tmp, S0& src0, S1& src1, S2& src2, W&...) {
    sim::instr_unwrapped<sim::InstrKind::Vector, 0>("TMRGSORT", dst, executedNumList, tmp, src0, src1, src2);
    detail::merge_lists<exhausted>(dst, executedNumList, src0, src1, src2);
    return {};
}
template <typename D, typename Tmp, typename S0, typename S1, bool exhausted, typename... W>
    requires(is_tile_v<D> && all_events_v<W...>)
RecordEvent TMRGSORT(D& dst, MrgSortExecutedNumList& executedNumList, Tmp& tmp, S0& src0, S1& src1, W&...) {
    sim::instr_unwrapped<sim::InstrKind::Vector, 0>("TMRGSORT", dst, executedNumList, tmp, src0, src1);
    detail::merge_lists<exhausted>(dst, executedNumList, src0, src1);
    return {};
}

// Block form TMRGSORT(dst, src, blockLen): src row 0 holds sorted blocks of blockLen elements
// (records, so 64 for 32 float records); every group of 4 consecutive blocks that lies entirely
// within dst's valid width is merged into the same columns of dst. Columns of an incomplete
// trailing group are left unchanged.
template <typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TMRGSORT(D& dst, S& src, uint32_t blockLen, W&...) {
    using T = typename D::DType;
    static_assert(std::is_same_v<typename S::DType, T>, "TMRGSORT: dst and src must have the same type");
    constexpr unsigned kRec = detail::record_elems_v<T>;
    if (blockLen == 0 || blockLen % kRec != 0) return {};
    const unsigned per = blockLen / kRec, group = 4 * blockLen, width = dst.GetValidCol();
    if (width > static_cast<unsigned>(S::Cols)) sim::fail("TMRGSORT: dst valid width exceeds src");
    std::vector<T> sv(&src.at(0, 0), &src.at(0, 0) + S::Cols);  // dst may alias src
    for (unsigned base = 0; base + group <= width; base += group) {
        std::array<unsigned, 4> pos{};
        for (unsigned out = 0; out < 4 * per; ++out) {
            int pick = -1;
            for (unsigned b = 0; b < 4; ++b)
                if (pos[b] < per &&
                    (pick < 0 || detail::score_greater(sv[base + b * blockLen + pos[b] * kRec],
                                                       sv[base + pick * blockLen + pos[pick] * kRec])))
                    pick = static_cast<int>(b);
            const auto rec = detail::load_record(&sv[base + pick * blockLen + pos[pick]++ * kRec]);
            detail::store_record(&dst.at(0, 0) + base + out * kRec, rec);
        }
    }
    return {};
}

}  // namespace pto
