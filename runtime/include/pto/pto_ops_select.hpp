// pypto CPU runtime: compare / select instructions on Vec tiles — TCMP, TCMPS (scalar and tile
// forms), TSEL, TSELS.
//
// Predicate mask format (what TCMP / TCMPS write and TSEL / TSELS read), as the NPU lays it out:
// one packed bit per source element, PER ROW. Mask element (r, w) of a uint8_t mask holds the
// results of source columns 8w .. 8w+7 of row r, column 8w+b in bit b (LSB first); a uint32_t
// mask (A5) packs 32 columns per element the same way. Bits for columns at or beyond the source's
// valid width are 0. TCMP / TCMPS write mask rows [0, src valid rows) and mask columns
// [0, dst valid cols); nothing else of dst is touched.
// (The pto-isa CPU simulator differs in corner cases: it zeroes the whole mask tile, and its
// TSEL / TCMPS stream bits across rows when a row's width is not a whole number of mask
// elements; the NPU code and this runtime restart every row at bit 0 of mask column 0.)
#pragma once

#include <cstdint>
#include <type_traits>

#include "pto_ops_vector.hpp"
#include "pto_tile.hpp"

namespace pto {
namespace detail {

template <typename C>
inline bool cmp_op(C a, C b, CmpMode mode) {
    switch (mode) {
        case CmpMode::EQ: return a == b;
        case CmpMode::NE: return a != b;
        case CmpMode::LT: return a < b;
        case CmpMode::LE: return a <= b;
        case CmpMode::GT: return a > b;
        case CmpMode::GE: return a >= b;
    }
    return a == b;
}

template <typename M>
inline constexpr unsigned mask_bits_v = sizeof(M) * 8;

// Writes the packed mask of pred(r, c) over rows x cols into dst.
template <typename D, typename P>
void write_mask(D& dst, unsigned rows, unsigned cols, P pred) {
    using M = typename D::DType;
    static_assert(std::is_same_v<M, uint8_t> || std::is_same_v<M, uint32_t>,
                  "TCMP / TCMPS: the destination mask tile must be uint8_t (A2/A3) or uint32_t (A5)");
    constexpr unsigned B = mask_bits_v<M>;
    const unsigned words = dst.GetValidCol();
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned w = 0; w < words; ++w) {
            M word = 0;
            for (unsigned b = 0; b < B && w * B + b < cols; ++b)
                if (pred(r, w * B + b)) word = static_cast<M>(word | (M(1) << b));
            dst.at(r, w) = word;
        }
}

template <typename Mk>
inline bool mask_bit(const Mk& mask, unsigned r, unsigned c) {
    using M = typename Mk::DType;
    static_assert(std::is_integral_v<M> && std::is_unsigned_v<M>, "TSEL / TSELS: the mask tile must be unsigned");
    constexpr unsigned B = mask_bits_v<M>;
    return (mask.at(r, c / B) >> (c % B)) & 1u;
}

template <typename D, typename S>
void check_cmp_rows(const D& dst, const S& src, const char* name) {
    if (dst.GetValidRow() != src.GetValidRow())
        sim::fail(std::string(name) + ": mask valid rows " + std::to_string(dst.GetValidRow()) +
                  " differ from the source's " + std::to_string(src.GetValidRow()));
}

}  // namespace detail

// TCMP: mask bit (r, c) = src0(r, c) <cmpMode> src1(r, c). Compared exactly in the element type
// (float-like types via float; NaN compares unequal). Note: A2/A3 hardware ignores cmpMode for
// int32_t sources and always tests EQ; this runtime honours cmpMode for every type.
template <typename D, typename A, typename B, typename... W>
    requires(is_tile_v<D> && is_tile_v<A> && is_tile_v<B> && all_events_v<W...>)
RecordEvent TCMP(D& dst, A& src0, B& src1, CmpMode cmpMode, W&...) {
    static_assert(std::is_same_v<typename A::DType, typename B::DType>, "TCMP: src0 and src1 must have the same type");
    using C = detail::compute_t<typename A::DType>;
    detail::check_cmp_rows(dst, src0, "TCMP");
    detail::write_mask(dst, src0.GetValidRow(), src0.GetValidCol(), [&](unsigned r, unsigned c) {
        return detail::cmp_op(detail::load_as<C>(src0.at(r, c)), detail::load_as<C>(src1.at(r, c)), cmpMode);
    });
    return {};
}

// TCMPS: mask bit (r, c) = src0(r, c) <mode> scalar.
template <typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TCMPS(D& dst, S& src0, typename S::DType src1, CmpMode mode, W&...) {
    using C = detail::compute_t<typename S::DType>;
    const C x = detail::load_as<C>(src1);
    detail::check_cmp_rows(dst, src0, "TCMPS");
    detail::write_mask(dst, src0.GetValidRow(), src0.GetValidCol(), [&](unsigned r, unsigned c) {
        return detail::cmp_op(detail::load_as<C>(src0.at(r, c)), x, mode);
    });
    return {};
}
// Tile form: the scalar is element (0, 0) of src1 (as the NPU reads it; the pto-isa CPU simulator
// compares elementwise instead).
template <typename D, typename A, typename B, typename... W>
    requires(is_tile_v<D> && is_tile_v<A> && is_tile_v<B> && all_events_v<W...>)
RecordEvent TCMPS(D& dst, A& src0, B& src1, CmpMode mode, W&...) {
    static_assert(std::is_same_v<typename A::DType, typename B::DType>, "TCMPS: src0 and src1 must have the same type");
    return TCMPS(dst, src0, src1.at(0, 0), mode);
}

// TSEL: dst(r, c) = mask bit (r, c) ? src0(r, c) : src1(r, c) over dst's valid region.
template <typename T, typename Mk, typename Tmp, typename... W>
    requires(is_tile_v<T> && is_tile_v<Mk> && is_tile_v<Tmp> && all_events_v<W...>)
RecordEvent TSEL(T& dst, Mk& selMask, T& src0, T& src1, Tmp&, W&...) {
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c)
            dst.at(r, c) = detail::mask_bit(selMask, r, c) ? src0.at(r, c) : src1.at(r, c);
    return {};
}

// TSELS: dst(r, c) = mask bit (r, c) ? src(r, c) : scalar.
template <typename D, typename Mk, typename S, typename Tmp, typename... W>
    requires(is_tile_v<D> && is_tile_v<Mk> && is_tile_v<S> && is_tile_v<Tmp> && all_events_v<W...>)
RecordEvent TSELS(D& dst, Mk& mask, S& src, Tmp&, typename S::DType scalar, W&...) {
    static_assert(std::is_same_v<typename D::DType, typename S::DType>, "TSELS: dst and src must have the same type");
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c) dst.at(r, c) = detail::mask_bit(mask, r, c) ? src.at(r, c) : scalar;
    return {};
}

}  // namespace pto
