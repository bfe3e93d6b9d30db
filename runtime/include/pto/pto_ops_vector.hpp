// pypto CPU runtime: vector (PIPE_V) instructions on Vec tiles — elementwise binary / scalar /
// unary / integer-bitwise / remainder / carry ops, TEXPANDS, TCVT, TCI, row / column reductions
// (incl. arg-max / arg-min) and broadcasts, TTRANS. Compare / select, layout / gather and sort
// instructions live in pto_ops_select.hpp, pto_ops_layout.hpp and pto_ops_sort.hpp.
//
// Numerics: each instruction computes in float for float-like element types (float, half,
// bfloat16_t) and in 64-bit integers for integer types, then rounds the result once to the
// destination type (RNE). CPU results may differ from the NPU in: transcendental accuracy (exp,
// log, sqrt, rsqrt via libm in float; the NPU uses its own approximations), division / reciprocal
// (exact IEEE here), and the summation order of reductions (sequential here, tree-shaped on the
// NPU; row reductions of half/bf16 accumulate in float). Integer division / remainder by zero
// yields 0 (the pto-isa CPU simulator asserts instead).
// Elementwise ops cover the destination's valid region; reductions the source's valid region.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "pto_ops_memory.hpp"
#include "pto_sim_fast.hpp"
#include "pto_tile.hpp"

namespace pto {
namespace detail {

template <typename T>
using compute_t = std::conditional_t<is_float_like_v<T>, float, int64_t>;

template <typename C, typename T>
inline C load_as(T v) {
    if constexpr (std::is_same_v<C, float>) return cvt::to_f32(v);
    else return static_cast<C>(v);
}

template <typename D, typename C>
inline typename D::DType store_as(C v) {
    using T = typename D::DType;
    if constexpr (std::is_same_v<C, float>) return cvt::to<T>(v);
    else return static_cast<T>(v);
}

template <typename D, typename A, typename F>
void map1(D& d, A& a, F f) {
    using C = compute_t<typename D::DType>;
    const unsigned rows = d.GetValidRow(), cols = d.GetValidCol();
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c) d.at(r, c) = store_as<D>(f(load_as<C>(a.at(r, c))));
}

template <typename D, typename A, typename B, typename F>
void map2(D& d, A& a, B& b, F f) {
    using C = compute_t<typename D::DType>;
    const unsigned rows = d.GetValidRow(), cols = d.GetValidCol();
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c)
            d.at(r, c) = store_as<D>(f(load_as<C>(a.at(r, c)), load_as<C>(b.at(r, c))));
}

template <typename D, typename A, typename B, typename E, typename F>
void map3(D& d, A& a, B& b, E& e, F f) {
    using C = compute_t<typename D::DType>;
    const unsigned rows = d.GetValidRow(), cols = d.GetValidCol();
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c)
            d.at(r, c) = store_as<D>(f(load_as<C>(a.at(r, c)), load_as<C>(b.at(r, c)), load_as<C>(e.at(r, c))));
}

// op(a(r,c), vec(r,0)) for row broadcasts, op(a(r,c), vec(0,c)) for column broadcasts.
template <bool kRow, typename D, typename A, typename V, typename F>
void map_bcast(D& d, A& a, V& v, F f) {
    using C = compute_t<typename D::DType>;
    const unsigned rows = d.GetValidRow(), cols = d.GetValidCol();
    std::vector<C> vec(kRow ? rows : cols);
    for (unsigned i = 0; i < vec.size(); ++i) vec[i] = load_as<C>(kRow ? v.at(i, 0) : v.at(0, i));
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c) d.at(r, c) = store_as<D>(f(load_as<C>(a.at(r, c)), vec[kRow ? r : c]));
}

template <typename C>
inline C div_op(C a, C b) {
    if constexpr (std::is_same_v<C, float>) return a / b;
    else return b == 0 ? C(0) : a / b;
}

inline constexpr auto kAdd = [](auto a, auto b) { return a + b; };
inline constexpr auto kSub = [](auto a, auto b) { return a - b; };
inline constexpr auto kMul = [](auto a, auto b) { return a * b; };
inline constexpr auto kDiv = [](auto a, auto b) { return div_op(a, b); };
inline constexpr auto kMax = [](auto a, auto b) { return a > b ? a : b; };
inline constexpr auto kMin = [](auto a, auto b) { return a < b ? a : b; };
inline constexpr auto kExpDif = [](auto a, auto b) { return std::exp(static_cast<float>(a - b)); };

template <typename C>
inline C fmod_op(C a, C b) {
    if constexpr (std::is_same_v<C, float>) return std::fmod(a, b);
    else return b == 0 ? C(0) : a % b;
}
template <typename C>
inline C rem_op(C a, C b) {
    C r = fmod_op(a, b);
    if (r != 0 && ((a >= 0) != (b >= 0))) r += b;
    return r;
}
// Shift counts outside [0, 63] are clamped (the 64-bit compute type makes narrower types exact).
template <typename C>
inline C shift_count(C b) {
    return b < 0 ? C(0) : b > 63 ? C(63) : b;
}
template <typename C>
inline C shl_op(C a, C b) {
    static_assert(std::is_integral_v<C>, "TSHL / TSHLS need integer tiles");
    return static_cast<C>(static_cast<uint64_t>(a) << shift_count(b));
}
template <typename C>
inline C shr_op(C a, C b) {
    static_assert(std::is_integral_v<C>, "TSHR / TSHRS need integer tiles");
    return a >> shift_count(b);  // arithmetic for signed elements, logical for unsigned (zero-extended)
}
inline constexpr auto kFmod = [](auto a, auto b) { return fmod_op(a, b); };
inline constexpr auto kRem = [](auto a, auto b) { return rem_op(a, b); };
inline constexpr auto kShl = [](auto a, auto b) { return shl_op(a, b); };
inline constexpr auto kShr = [](auto a, auto b) { return shr_op(a, b); };
inline constexpr auto kAnd = [](auto a, auto b) {
    static_assert(std::is_integral_v<decltype(a)>, "bitwise ops need integer tiles");
    return a & b;
};
inline constexpr auto kOr = [](auto a, auto b) {
    static_assert(std::is_integral_v<decltype(a)>, "bitwise ops need integer tiles");
    return a | b;
};
inline constexpr auto kXor = [](auto a, auto b) {
    static_assert(std::is_integral_v<decltype(a)>, "bitwise ops need integer tiles");
    return a ^ b;
};

// ---- FP32 fast paths (pto_sim_fast.hpp): the same results through the runtime's SIMD kernels ----
template <typename... T>
inline constexpr bool all_f32_v = ((std::is_same_v<typename T::DType, float> && !T::ColumnStored) && ...);
using sim::fast::Bin;
using sim::fast::Un;

// Row r of tile t (valid columns are contiguous: tiles are dense row-major).
template <typename T>
inline float* row_ptr(T& t, unsigned r) {
    return t.data() + static_cast<std::size_t>(r) * T::Cols;
}
// f(dst row, src rows..., n) over the valid rows; one call when the rows are back to back.
template <typename D, typename F, typename... S>
void for_rows(D& d, F f, S&... s) {
    const unsigned rows = d.GetValidRow(), cols = d.GetValidCol();
    if (rows == 0 || cols == 0) return;
    if (((cols == static_cast<unsigned>(D::Cols)) && ... && (cols == static_cast<unsigned>(S::Cols))))
        f(d.data(), s.data()..., static_cast<std::size_t>(rows) * cols);
    else
        for (unsigned r = 0; r < rows; ++r) f(row_ptr(d, r), row_ptr(s, r)..., cols);
}
template <Bin Op, typename D, typename A, typename B>
void fast_binary(D& d, A& a, B& b) {
    for_rows(d, [](float* o, float* x, float* y, std::size_t n) { sim::fast::binary_f32(Op, o, x, y, n); }, a, b);
}
template <Bin Op, typename D, typename A>
void fast_scalar(D& d, A& a, float s, bool scalar_first = false) {
    for_rows(d, [&](float* o, float* x, std::size_t n) { sim::fast::scalar_f32(Op, o, x, s, n, scalar_first); }, a);
}
template <Un Op, typename D, typename A>
void fast_unary(D& d, A& a) {
    for_rows(d, [](float* o, float* x, std::size_t n) { sim::fast::unary_f32(Op, o, x, n); }, a);
}
// Row / column broadcasts: op(a(r, c), v(r, 0)) per row through the scalar kernel, op(a(r, c),
// v(0, c)) per row through the binary one (v read first, as the element loop does).
template <bool kRow, Bin Op, bool kExp, typename D, typename A, typename V>
void fast_bcast(D& d, A& a, V& v) {
    const unsigned rows = d.GetValidRow(), cols = d.GetValidCol();
    if (rows == 0 || cols == 0) return;
    std::vector<float> vec(kRow ? rows : cols);
    for (unsigned i = 0; i < vec.size(); ++i) vec[i] = kRow ? v.at(i, 0) : v.at(0, i);
    for (unsigned r = 0; r < rows; ++r) {
        if constexpr (kRow) sim::fast::scalar_f32(Op, row_ptr(d, r), row_ptr(a, r), vec[r], cols);
        else sim::fast::binary_f32(Op, row_ptr(d, r), row_ptr(a, r), vec.data(), cols);
        if constexpr (kExp) sim::fast::unary_f32(Un::Exp, row_ptr(d, r), row_ptr(d, r), cols);
    }
}

}  // namespace detail

#define PTO_SIM_BINARY(NAME, OP)                                                                    \
    template <typename D, typename A, typename B, typename... W>                                    \
        requires(is_tile_v<D> && is_tile_v<A> && is_tile_v<B> && all_events_v<W...>)                \
    RecordEvent NAME(D& dst, A& src0, B& src1, W&...) {                                             \
        detail::map2(dst, src0, src1, OP);                                                          \
        return {};                                                                                  \
    }
// With an FP32 fast path (the same IEEE results through pto_sim_fast.hpp).
#define PTO_SIM_BINARY_F(NAME, OP, FAST)                                                            \
    template <typename D, typename A, typename B, typename... W>                                    \
        requires(is_tile_v<D> && is_tile_v<A> && is_tile_v<B> && all_events_v<W...>)                \
    RecordEvent NAME(D& dst, A& src0, B& src1, W&...) {                                             \
        if constexpr (detail::all_f32_v<D, A, B>) detail::fast_binary<detail::Bin::FAST>(dst, src0, src1); \
        else detail::map2(dst, src0, src1, OP);                                                     \
        return {};                                                                                  \
    }
PTO_SIM_BINARY_F(TADD, detail::kAdd, Add)
PTO_SIM_BINARY_F(TSUB, detail::kSub, Sub)
PTO_SIM_BINARY_F(TMUL, detail::kMul, Mul)
PTO_SIM_BINARY_F(TDIV, detail::kDiv, Div)
PTO_SIM_BINARY_F(TMAX, detail::kMax, Max)
PTO_SIM_BINARY_F(TMIN, detail::kMin, Min)
#undef PTO_SIM_BINARY_F
PTO_SIM_BINARY(TAND, [](auto a, auto b) {
    static_assert(std::is_integral_v<decltype(a)>, "TAND needs integer tiles");
    return a & b;
})
PTO_SIM_BINARY(TOR, [](auto a, auto b) {
    static_assert(std::is_integral_v<decltype(a)>, "TOR needs integer tiles");
    return a | b;
})
PTO_SIM_BINARY(TSHL, detail::kShl)
PTO_SIM_BINARY(TSHR, detail::kShr)
#undef PTO_SIM_BINARY

// TXOR only has the form with a scratch tile in pto-isa (the CPU does not need it).
template <typename D, typename A, typename B, typename Tmp, typename... W>
    requires(is_tile_v<D> && is_tile_v<A> && is_tile_v<B> && is_tile_v<Tmp> && all_events_v<W...>)
RecordEvent TXOR(D& dst, A& src0, B& src1, Tmp&, W&...) {
    detail::map2(dst, src0, src1, detail::kXor);
    return {};
}

// TREM: remainder with the sign of the divisor (Python `%`; floats: fmod, then + divisor when the
// signs differ and the result is non-zero). TFMOD: C fmod / `%` (sign of the dividend).
template <auto PrecisionType = RemAlgorithm::DEFAULT, typename D, typename A, typename B, typename Tmp,
          typename... W>
    requires(is_tile_v<D> && is_tile_v<A> && is_tile_v<B> && is_tile_v<Tmp> && all_events_v<W...>)
RecordEvent TREM(D& dst, A& src0, B& src1, Tmp&, W&...) {
    detail::map2(dst, src0, src1, detail::kRem);
    return {};
}
template <auto PrecisionType = FmodAlgorithm::DEFAULT, typename D, typename A, typename B, typename... W>
    requires(is_tile_v<D> && is_tile_v<A> && is_tile_v<B> && all_events_v<W...>)
RecordEvent TFMOD(D& dst, A& src0, B& src1, W&...) {
    detail::map2(dst, src0, src1, detail::kFmod);
    return {};
}

// TPRELU: dst = src0 > 0 ? src0 : src0 * src1 (per-element slope).
template <typename D, typename A, typename B, typename Tmp, typename... W>
    requires(is_tile_v<D> && is_tile_v<A> && is_tile_v<B> && is_tile_v<Tmp> && all_events_v<W...>)
RecordEvent TPRELU(D& dst, A& src0, B& src1, Tmp&, W&...) {
    detail::map2(dst, src0, src1, [](auto a, auto b) { return a > 0 ? a : a * b; });
    return {};
}

// Three-operand forms (one rounding): TADDC = src0 + src1 + src2, TSUBC = src0 - src1 + src2,
// TADDSC = src0 + scalar + src1, TSUBSC = src0 - scalar + src1.
template <typename T, typename... W>
    requires(is_tile_v<T> && all_events_v<W...>)
RecordEvent TADDC(T& dst, T& src0, T& src1, T& src2, W&...) {
    detail::map3(dst, src0, src1, src2, [](auto a, auto b, auto c) { return a + b + c; });
    return {};
}
template <typename T, typename... W>
    requires(is_tile_v<T> && all_events_v<W...>)
RecordEvent TSUBC(T& dst, T& src0, T& src1, T& src2, W&...) {
    detail::map3(dst, src0, src1, src2, [](auto a, auto b, auto c) { return a - b + c; });
    return {};
}
template <typename T, typename... W>
    requires(is_tile_v<T> && all_events_v<W...>)
RecordEvent TADDSC(T& dst, T& src0, typename T::DType scalar, T& src1, W&...) {
    using C = detail::compute_t<typename T::DType>;
    const C x = detail::load_as<C>(scalar);
    detail::map2(dst, src0, src1, [&](C a, C b) { return a + x + b; });
    return {};
}
template <typename T, typename... W>
    requires(is_tile_v<T> && all_events_v<W...>)
RecordEvent TSUBSC(T& dst, T& src0, typename T::DType scalar, T& src1, W&...) {
    using C = detail::compute_t<typename T::DType>;
    const C x = detail::load_as<C>(scalar);
    detail::map2(dst, src0, src1, [&](C a, C b) { return a - x + b; });
    return {};
}

#define PTO_SIM_SCALAR(NAME, OP)                                                                    \
    template <typename D, typename S, typename... W>                                                \
        requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)                                 \
    RecordEvent NAME(D& dst, S& src, typename S::DType scalar, W&...) {                             \
        using C = detail::compute_t<typename D::DType>;                                             \
        const C x = detail::load_as<C>(scalar);                                                     \
        detail::map1(dst, src, [&](C a) { return OP(a, x); });                                      \
        return {};                                                                                  \
    }
#define PTO_SIM_SCALAR_F(NAME, OP, FAST)                                                            \
    template <typename D, typename S, typename... W>                                                \
        requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)                                 \
    RecordEvent NAME(D& dst, S& src, typename S::DType scalar, W&...) {                             \
        using C = detail::compute_t<typename D::DType>;                                             \
        const C x = detail::load_as<C>(scalar);                                                     \
        if constexpr (detail::all_f32_v<D, S>) detail::fast_scalar<detail::Bin::FAST>(dst, src, x); \
        else detail::map1(dst, src, [&](C a) { return OP(a, x); });                                 \
        return {};                                                                                  \
    }
PTO_SIM_SCALAR_F(TADDS, detail::kAdd, Add)
PTO_SIM_SCALAR_F(TSUBS, detail::kSub, Sub)
PTO_SIM_SCALAR_F(TMULS, detail::kMul, Mul)
PTO_SIM_SCALAR_F(TDIVS, detail::kDiv, Div)
PTO_SIM_SCALAR_F(TMAXS, detail::kMax, Max)
PTO_SIM_SCALAR_F(TMINS, detail::kMin, Min)
PTO_SIM_SCALAR(TLRELU, [](auto a, auto slope) { return a > 0 ? a : a * slope; })
#undef PTO_SIM_SCALAR_F
#undef PTO_SIM_SCALAR

// Integer scalar forms; pto-isa types the scalar as the destination's element type.
#define PTO_SIM_SCALAR_D(NAME, OP)                                                                  \
    template <typename D, typename S, typename... W>                                                \
        requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)                                 \
    RecordEvent NAME(D& dst, S& src, typename D::DType scalar, W&...) {                             \
        using C = detail::compute_t<typename D::DType>;                                             \
        const C x = detail::load_as<C>(scalar);                                                     \
        detail::map1(dst, src, [&](C a) { return OP(a, x); });                                      \
        return {};                                                                                  \
    }
PTO_SIM_SCALAR_D(TANDS, detail::kAnd)
PTO_SIM_SCALAR_D(TORS, detail::kOr)
PTO_SIM_SCALAR_D(TSHLS, detail::kShl)
PTO_SIM_SCALAR_D(TSHRS, detail::kShr)
#undef PTO_SIM_SCALAR_D

template <typename D, typename S, typename Tmp, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && is_tile_v<Tmp> && all_events_v<W...>)
RecordEvent TXORS(D& dst, S& src0, typename S::DType scalar, Tmp&, W&...) {
    using C = detail::compute_t<typename D::DType>;
    const C x = detail::load_as<C>(scalar);
    detail::map1(dst, src0, [&](C a) { return detail::kXor(a, x); });
    return {};
}
template <auto PrecisionType = RemSAlgorithm::DEFAULT, typename D, typename S, typename Tmp, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && is_tile_v<Tmp> && all_events_v<W...>)
RecordEvent TREMS(D& dst, S& src, typename S::DType scalar, Tmp&, W&...) {
    using C = detail::compute_t<typename D::DType>;
    const C x = detail::load_as<C>(scalar);
    detail::map1(dst, src, [&](C a) { return detail::kRem(a, x); });
    return {};
}
template <auto PrecisionType = FmodSAlgorithm::DEFAULT, typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TFMODS(D& dst, S& src, typename S::DType scalar, W&...) {
    using C = detail::compute_t<typename D::DType>;
    const C x = detail::load_as<C>(scalar);
    detail::map1(dst, src, [&](C a) { return detail::kFmod(a, x); });
    return {};
}

// TDIVS(dst, scalar, src): dst = scalar / src.
template <typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TDIVS(D& dst, typename D::DType scalar, S& src, W&...) {
    using C = detail::compute_t<typename D::DType>;
    const C x = detail::load_as<C>(scalar);
    if constexpr (detail::all_f32_v<D, S>) detail::fast_scalar<detail::Bin::Div>(dst, src, x, true);
    else detail::map1(dst, src, [&](C a) { return detail::div_op(x, a); });
    return {};
}

// Unary instructions: dst and src share one element type, and each takes the element types
// pto-isa accepts (a kernel the NPU build would reject does not compile here either).
namespace detail {
template <typename T, typename... Ok>
inline constexpr bool one_of_v = (std::is_same_v<T, Ok> || ...);
template <typename T>
inline constexpr bool float_half_v = one_of_v<T, float, half>;
#if defined(PYPTO_SOC_950)
template <typename T>
inline constexpr bool abs_type_v = one_of_v<T, float, half, int8_t, int16_t, int32_t>;
#else
template <typename T>
inline constexpr bool abs_type_v = one_of_v<T, float, half>;
#endif
template <typename T>
inline constexpr bool any_element_v = true;
template <typename T>
inline constexpr bool relu_type_v = one_of_v<T, float, half, int32_t>;
template <typename T>
inline constexpr bool recip_type_v = one_of_v<T, float, half, int32_t, int16_t>;  // TDIVS(dst, 1, src)
}  // namespace detail

#define PTO_SIM_UNARY(NAME, FAST, TYPES_OK, TYPES, OP)                                                   \
    template <typename D, typename S, typename... W>                                                \
        requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)                                 \
    RecordEvent NAME(D& dst, S& src, W&...) {                                                       \
        static_assert(std::is_same_v<typename D::DType, typename S::DType>,                         \
                      #NAME ": dst and src must have one element type");                            \
        static_assert(TYPES_OK<typename D::DType>, #NAME ": pto-isa takes " TYPES " elements only"); \
        if constexpr (FAST >= 0 && detail::all_f32_v<D, S>) detail::fast_unary<static_cast<detail::Un>(FAST)>(dst, src); \
        else detail::map1(dst, src, OP);                                                            \
        return {};                                                                                  \
    }
// FAST: the pto_sim_fast.hpp kernel for FP32 tiles (-1: none).
PTO_SIM_UNARY(TEXP, 0, detail::float_half_v, "float / half", [](auto a) { return std::exp(static_cast<float>(a)); })
PTO_SIM_UNARY(TLOG, -1, detail::float_half_v, "float / half", [](auto a) { return std::log(static_cast<float>(a)); })
PTO_SIM_UNARY(TSQRT, 1, detail::float_half_v, "float / half", [](auto a) { return std::sqrt(static_cast<float>(a)); })
PTO_SIM_UNARY(TRECIP, 2, detail::recip_type_v, "float / half / int32 / int16", [](auto a) { return detail::div_op(decltype(a)(1), a); })
PTO_SIM_UNARY(TNEG, 3, detail::any_element_v, "any", [](auto a) { return -a; })
PTO_SIM_UNARY(TABS, 4, detail::abs_type_v, "float / half (950: also int8 / int16 / int32)", [](auto a) { return a < 0 ? -a : a; })
PTO_SIM_UNARY(TRELU, 5, detail::relu_type_v, "float / half / int32", [](auto a) { return a > 0 ? a : decltype(a)(0); })
PTO_SIM_UNARY(TNOT, -1, detail::any_element_v, "integer", [](auto a) {
    static_assert(std::is_integral_v<decltype(a)>, "TNOT needs integer tiles");
    return ~a;
})
#undef PTO_SIM_UNARY

// TRSQRT = 1 / sqrt(x), computed in double and rounded once to the element type (as pto-isa's
// CPU simulator does); the form with a scratch tile is pto-isa's high-precision path.
template <typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TRSQRT(D& dst, S& src, W&...) {
    static_assert(std::is_same_v<typename D::DType, typename S::DType>, "TRSQRT: dst and src must have one element type");
    static_assert(detail::float_half_v<typename D::DType>, "TRSQRT: pto-isa takes float / half elements only");
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c)
            dst.at(r, c) = cvt::from_double<typename D::DType>(1.0 / std::sqrt(static_cast<double>(cvt::to_f32(src.at(r, c)))));
    return {};
}
template <typename D, typename S, typename Tmp, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && is_tile_v<Tmp> && all_events_v<W...>)
RecordEvent TRSQRT(D& dst, S& src, Tmp&, W&...) {
    return TRSQRT(dst, src);
}

// ---- fill, index, conversion ----

template <typename D, typename... W>
    requires(is_tile_v<D> && all_events_v<W...>)
RecordEvent TEXPANDS(D& dst, typename D::DType scalar, W&...) {
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c) dst.at(r, c) = scalar;
    return {};
}

// TCI<TileT, T, descending>(dst, start): a 1-row tile (pto-isa asserts Rows == 1), element k = start +- k.
template <typename D, typename T, int descending, typename... W>
    requires(is_tile_v<D> && all_events_v<W...>)
RecordEvent TCI(D& dst, T start, W&...) {
    static_assert(D::Rows == 1, "TCI only supports a 1-row tile (as pto-isa): ramp [1, R*C] and TRESHAPE it");
    sim::instr_unwrapped<sim::InstrKind::Vector, 0>("TCI", dst);  // kernels call TCI<...>(...)
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    int64_t k = 0;
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c, ++k)
            dst.at(r, c) = static_cast<typename D::DType>(descending ? static_cast<int64_t>(start) - k
                                                                      : static_cast<int64_t>(start) + k);
    return {};
}

namespace detail {
// The saturation mode TCVT uses when the call names none (pto-isa's per-type default): OFF for
// the narrowing conversions half -> uint8 / int8 / int16, float -> int16, int64 -> int32 and
// int32 -> int16 (the result keeps the low bits), ON for every other pair.
template <typename To, typename From>
inline constexpr SaturationMode kDefaultSat =
    (std::is_same_v<From, half> && (std::is_same_v<To, uint8_t> || std::is_same_v<To, int8_t> || std::is_same_v<To, int16_t>)) ||
            (std::is_same_v<From, float> && std::is_same_v<To, int16_t>) ||
            (std::is_same_v<From, int64_t> && std::is_same_v<To, int32_t>) ||
            (std::is_same_v<From, int32_t> && std::is_same_v<To, int16_t>)
        ? SaturationMode::OFF
        : SaturationMode::ON;
}  // namespace detail

template <typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TCVT(D& dst, S& src, RoundMode mode, SaturationMode sat, W&...) {
    const unsigned rows = dst.GetValidRow(), cols = dst.GetValidCol();
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c)
            dst.at(r, c) = cvt::round_to<typename D::DType>(src.at(r, c), mode, sat);
    return {};
}
template <typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TCVT(D& dst, S& src, RoundMode mode, W&...) {
    return TCVT(dst, src, mode, detail::kDefaultSat<typename D::DType, typename S::DType>);
}
template <typename D, typename S, typename Tmp, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && is_tile_v<Tmp> && all_events_v<W...>)
RecordEvent TCVT(D& dst, S& src, Tmp&, RoundMode mode, SaturationMode sat, W&...) {
    return TCVT(dst, src, mode, sat);
}
template <typename D, typename S, typename Tmp, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && is_tile_v<Tmp> && all_events_v<W...>)
RecordEvent TCVT(D& dst, S& src, Tmp&, RoundMode mode, W&...) {
    return TCVT(dst, src, mode, detail::kDefaultSat<typename D::DType, typename S::DType>);
}

// ---- reductions ----
namespace detail {

template <bool kRow, typename D, typename S, typename Init, typename F>
void reduce(D& dst, S& src, Init init, F f) {
    using C = compute_t<typename S::DType>;
    const unsigned rows = src.GetValidRow(), cols = src.GetValidCol();
    const unsigned n = kRow ? rows : cols;
    std::vector<C> acc(n);
    for (unsigned i = 0; i < n; ++i) {
        C a = init(load_as<C>(kRow ? src.at(i, 0) : src.at(0, i)));
        const unsigned m = kRow ? cols : rows;
        for (unsigned j = 1; j < m; ++j) a = f(a, load_as<C>(kRow ? src.at(i, j) : src.at(j, i)));
        acc[i] = a;
    }
    if (rows == 0 || cols == 0) return;
    for (unsigned i = 0; i < n; ++i) {
        if constexpr (kRow) dst.at(i, 0) = store_as<D>(acc[i]);
        else dst.at(0, i) = store_as<D>(acc[i]);
    }
}
inline constexpr auto kId = [](auto a) { return a; };

// FP32 reductions: rows through reduce_f32 (sum in lane-parallel order; max / min exact), columns
// row by row through binary_f32 (the element loop's order, so bit-identical).
template <bool kRow, sim::fast::Red Op, typename D, typename S>
void fast_reduce(D& dst, S& src) {
    const unsigned rows = src.GetValidRow(), cols = src.GetValidCol();
    if (rows == 0 || cols == 0) return;
    if constexpr (kRow) {
        std::vector<float> acc(rows);
        for (unsigned i = 0; i < rows; ++i) acc[i] = sim::fast::reduce_f32(Op, row_ptr(src, i), cols);
        for (unsigned i = 0; i < rows; ++i) dst.at(i, 0) = acc[i];
    } else {
        constexpr Bin op = Op == sim::fast::Red::Sum ? Bin::Add : Op == sim::fast::Red::Max ? Bin::Max : Bin::Min;
        std::vector<float> acc(row_ptr(src, 0), row_ptr(src, 0) + cols);
        for (unsigned r = 1; r < rows; ++r) sim::fast::binary_f32(op, acc.data(), acc.data(), row_ptr(src, r), cols);
        for (unsigned i = 0; i < cols; ++i) dst.at(0, i) = acc[i];
    }
}

}  // namespace detail

// FAST: the FP32 fast path's reduction (-1: none).
#define PTO_SIM_ROWRED(NAME, OP, FAST)                                                              \
    template <typename D, typename S, typename Tmp, typename... W>                                  \
        requires(is_tile_v<D> && is_tile_v<S> && is_tile_v<Tmp> && all_events_v<W...>)             \
    RecordEvent NAME(D& dst, S& src, Tmp&, W&...) {                                                 \
        if constexpr (FAST >= 0 && detail::all_f32_v<D, S>)                                         \
            detail::fast_reduce<true, static_cast<sim::fast::Red>(FAST)>(dst, src);                 \
        else detail::reduce<true>(dst, src, detail::kId, OP);                                       \
        return {};                                                                                  \
    }
PTO_SIM_ROWRED(TROWSUM, detail::kAdd, 0)
PTO_SIM_ROWRED(TROWMAX, detail::kMax, 1)
PTO_SIM_ROWRED(TROWMIN, detail::kMin, 2)
PTO_SIM_ROWRED(TROWPROD, detail::kMul, -1)
#undef PTO_SIM_ROWRED

#define PTO_SIM_COLRED(NAME, OP, FAST)                                                              \
    template <typename D, typename S, typename... W>                                                \
        requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)                                 \
    RecordEvent NAME(D& dst, S& src, W&...) {                                                       \
        if constexpr (FAST >= 0 && detail::all_f32_v<D, S>)                                         \
            detail::fast_reduce<false, static_cast<sim::fast::Red>(FAST)>(dst, src);                \
        else detail::reduce<false>(dst, src, detail::kId, OP);                                      \
        return {};                                                                                  \
    }
PTO_SIM_COLRED(TCOLSUM, detail::kAdd, 0)
PTO_SIM_COLRED(TCOLMAX, detail::kMax, 1)
PTO_SIM_COLRED(TCOLMIN, detail::kMin, 2)
PTO_SIM_COLRED(TCOLPROD, detail::kMul, -1)
#undef PTO_SIM_COLRED

template <typename D, typename S, typename Tmp, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && is_tile_v<Tmp> && all_events_v<W...>)
RecordEvent TCOLSUM(D& dst, S& src, Tmp&, bool /*isBinary*/, W&...) {
    return TCOLSUM(dst, src);
}

// ---- arg-max / arg-min ----
// Row forms write dstIdx(r, 0) (and dstVal(r, 0)); column forms write dstIdx(0, c) (and dstVal(0, c)).
// The index is the position inside the source's valid region; ties keep the first (lowest)
// position (strict comparison, so NaNs are never selected unless at position 0). Index tiles are
// int32_t or uint32_t; the tmp tile is unused on the CPU.
namespace detail {

template <bool kRow, bool kMax, typename DV, typename DI, typename S>
void arg_reduce(DV* dst_val, DI& dst_idx, S& src) {
    using TI = typename DI::DType;
    static_assert(std::is_same_v<TI, int32_t> || std::is_same_v<TI, uint32_t>,
                  "TROWARG* / TCOLARG*: the index tile must be int32_t or uint32_t");
    using C = compute_t<typename S::DType>;
    const unsigned rows = src.GetValidRow(), cols = src.GetValidCol();
    if (rows == 0 || cols == 0) return;
    const unsigned n = kRow ? rows : cols, m = kRow ? cols : rows;
    for (unsigned i = 0; i < n; ++i) {
        unsigned best = 0;
        C bv = load_as<C>(kRow ? src.at(i, 0) : src.at(0, i));
        for (unsigned j = 1; j < m; ++j) {
            const C v = load_as<C>(kRow ? src.at(i, j) : src.at(j, i));
            if (kMax ? v > bv : v < bv) {
                bv = v;
                best = j;
            }
        }
        (kRow ? dst_idx.at(i, 0) : dst_idx.at(0, i)) = static_cast<TI>(best);
        if constexpr (!std::is_same_v<DV, void>) {
            static_assert(std::is_same_v<typename DV::DType, typename S::DType>,
                          "TROWARG* / TCOLARG*: dstVal must have the source's element type");
            (kRow ? dst_val->at(i, 0) : dst_val->at(0, i)) = kRow ? src.at(i, best) : src.at(best, i);
        }
    }
}

}  // namespace detail

#define PTO_SIM_ARGRED(NAME, ROW, MAX)                                                              \
    template <typename DI, typename S, typename Tmp, typename... W>                                 \
        requires(is_tile_v<DI> && is_tile_v<S> && is_tile_v<Tmp> && all_events_v<W...>)            \
    RecordEvent NAME(DI& dst, S& src, Tmp&, W&...) {                                                \
        detail::arg_reduce<ROW, MAX, void>(nullptr, dst, src);                                      \
        return {};                                                                                  \
    }                                                                                               \
    template <typename DV, typename DI, typename S, typename Tmp, typename... W>                    \
        requires(is_tile_v<DV> && is_tile_v<DI> && is_tile_v<S> && is_tile_v<Tmp> && all_events_v<W...>) \
    RecordEvent NAME(DV& dstVal, DI& dstIdx, S& src, Tmp&, W&...) {                                 \
        detail::arg_reduce<ROW, MAX>(&dstVal, dstIdx, src);                                         \
        return {};                                                                                  \
    }
PTO_SIM_ARGRED(TROWARGMAX, true, true)
PTO_SIM_ARGRED(TROWARGMIN, true, false)
PTO_SIM_ARGRED(TCOLARGMAX, false, true)
PTO_SIM_ARGRED(TCOLARGMIN, false, false)
#undef PTO_SIM_ARGRED

// ---- broadcasts ----

template <typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TROWEXPAND(D& dst, S& src, W&...) {
    detail::map_bcast<true>(dst, dst, src, [](auto, auto v) { return v; });
    return {};
}
template <typename D, typename S, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && all_events_v<W...>)
RecordEvent TCOLEXPAND(D& dst, S& src, W&...) {
    detail::map_bcast<false>(dst, dst, src, [](auto, auto v) { return v; });
    return {};
}

// FAST, EXP: the FP32 fast path's op, and whether exp follows it (EXPDIF = exp(a - v)).
#define PTO_SIM_EXPAND_OP(NAME, ROW, OP, FAST, EXP)                                                 \
    template <typename D, typename A, typename V, typename... W>                                    \
        requires(is_tile_v<D> && is_tile_v<A> && is_tile_v<V> && all_events_v<W...>)               \
    RecordEvent NAME(D& dst, A& src0, V& src1, W&...) {                                             \
        if constexpr (detail::all_f32_v<D, A, V>) detail::fast_bcast<ROW, detail::Bin::FAST, EXP>(dst, src0, src1); \
        else detail::map_bcast<ROW>(dst, src0, src1, OP);                                           \
        return {};                                                                                  \
    }
PTO_SIM_EXPAND_OP(TROWEXPANDADD, true, detail::kAdd, Add, false)
PTO_SIM_EXPAND_OP(TROWEXPANDSUB, true, detail::kSub, Sub, false)
PTO_SIM_EXPAND_OP(TROWEXPANDMUL, true, detail::kMul, Mul, false)
PTO_SIM_EXPAND_OP(TROWEXPANDDIV, true, detail::kDiv, Div, false)
PTO_SIM_EXPAND_OP(TROWEXPANDMAX, true, detail::kMax, Max, false)
PTO_SIM_EXPAND_OP(TROWEXPANDMIN, true, detail::kMin, Min, false)
PTO_SIM_EXPAND_OP(TROWEXPANDEXPDIF, true, detail::kExpDif, Sub, true)
PTO_SIM_EXPAND_OP(TCOLEXPANDADD, false, detail::kAdd, Add, false)
PTO_SIM_EXPAND_OP(TCOLEXPANDSUB, false, detail::kSub, Sub, false)
PTO_SIM_EXPAND_OP(TCOLEXPANDMUL, false, detail::kMul, Mul, false)
PTO_SIM_EXPAND_OP(TCOLEXPANDDIV, false, detail::kDiv, Div, false)
PTO_SIM_EXPAND_OP(TCOLEXPANDMAX, false, detail::kMax, Max, false)
PTO_SIM_EXPAND_OP(TCOLEXPANDMIN, false, detail::kMin, Min, false)
PTO_SIM_EXPAND_OP(TCOLEXPANDEXPDIF, false, detail::kExpDif, Sub, true)
#undef PTO_SIM_EXPAND_OP

// TTRANS: dst(c, r) = src(r, c) over src's valid region.
template <typename D, typename S, typename Tmp, typename... W>
    requires(is_tile_v<D> && is_tile_v<S> && is_tile_v<Tmp> && all_events_v<W...>)
RecordEvent TTRANS(D& dst, S& src, Tmp&, W&...) {
    const unsigned rows = src.GetValidRow(), cols = src.GetValidCol();
    if (cols > static_cast<unsigned>(D::Rows) || rows > static_cast<unsigned>(D::Cols))
        sim::fail("TTRANS: transposed " + std::to_string(rows) + "x" + std::to_string(cols) +
                  " region does not fit the destination tile");
    const auto v = detail::snapshot(src, rows, cols);
    for (unsigned r = 0; r < rows; ++r)
        for (unsigned c = 0; c < cols; ++c)
            dst.at(c, r) = cvt::to<typename D::DType>(v[static_cast<std::size_t>(r) * cols + c]);
    return {};
}

}  // namespace pto
