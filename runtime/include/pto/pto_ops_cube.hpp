// pypto CPU runtime: cube (PIPE_M) instructions — TMATMUL, TMATMUL_ACC (4- and 3-operand forms),
// TMATMUL_BIAS, TGEMV.
//
// M = left valid rows, K = left valid cols, N = right valid cols. Products accumulate in the Acc
// element type: float for half / bf16 / float inputs, through OpenBLAS sgemm in its blocked k
// order (pto_sim_fast.hpp, runtime/src/gemm.cpp); int32 for int8, in a k-order loop. The NPU
// accumulates in fp32 too but in another order, so expect ~1e-6 relative differences.
#pragma once

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "pto_sim_fast.hpp"
#include "pto_tile.hpp"

namespace pto {
namespace detail {

template <typename Acc, typename L, typename R>
void check_mad() {
    static_assert(Acc::Loc == TileType::Acc, "TMATMUL: result must be an Acc tile");
    static_assert(L::Loc == TileType::Left, "TMATMUL: first operand must be a Left tile");
    static_assert(R::Loc == TileType::Right, "TMATMUL: second operand must be a Right tile");
    using A = typename L::DType;
    using B = typename R::DType;
    using C = typename Acc::DType;
    static_assert((std::is_same_v<A, int8_t> && std::is_same_v<B, int8_t> && std::is_same_v<C, int32_t>) ||
                      (std::is_same_v<A, half> && std::is_same_v<B, half> && std::is_same_v<C, float>) ||
                      (std::is_same_v<A, bfloat16_t> && std::is_same_v<B, bfloat16_t> && std::is_same_v<C, float>) ||
                      (std::is_same_v<A, float> && std::is_same_v<B, float> && std::is_same_v<C, float>),
                  "TMATMUL: unsupported (left, right, acc) element types");
}

// out(i,j) = (in ? in(i,j) : 0) + bias(j) + sum_k l(i,k) r(k,j)
template <typename Acc, typename L, typename R, typename In, typename Bias>
void mad(Acc& out, const In* in, L& l, R& r, const Bias* bias) {
    check_mad<Acc, L, R>();
    using C = typename Acc::DType;
    const unsigned M = l.GetValidRow(), K = l.GetValidCol(), N = r.GetValidCol();
    if (r.GetValidRow() != K)
        sim::fail("TMATMUL: left valid cols (K=" + std::to_string(K) + ") != right valid rows (" +
                  std::to_string(r.GetValidRow()) + ")");
    if (M > static_cast<unsigned>(Acc::Rows) || N > static_cast<unsigned>(Acc::Cols))
        sim::fail("TMATMUL: result " + std::to_string(M) + "x" + std::to_string(N) + " exceeds the Acc tile " +
                  std::to_string(Acc::Rows) + "x" + std::to_string(Acc::Cols));
    if constexpr (!std::is_same_v<C, int32_t> && !L::ColumnStored && !R::ColumnStored && !Acc::ColumnStored) {
        // Floating point: OpenBLAS sgemm on the dense row-major tiles (pto_sim_fast.hpp); `in` or
        // the bias is placed in the result first and accumulated onto.
        using A = typename L::DType;
        C* o = out.data();
        bool accumulate = false;
        if (in && static_cast<const void*>(in->data()) != static_cast<const void*>(o)) {
            for (unsigned i = 0; i < M; ++i)
                std::memmove(o + static_cast<std::size_t>(i) * Acc::Cols, &in->at(i, 0), N * sizeof(C));
        }
        if (bias)
            for (unsigned i = 0; i < M; ++i)
                for (unsigned j = 0; j < N; ++j) o[static_cast<std::size_t>(i) * Acc::Cols + j] = static_cast<C>(bias->at(0, j));
        accumulate = in != nullptr || bias != nullptr;
        const int m = static_cast<int>(M), n = static_cast<int>(N), k = static_cast<int>(K);
        if constexpr (std::is_same_v<A, float>)
            sim::fast::gemm_f32(m, n, k, l.data(), L::Cols, r.data(), R::Cols, o, Acc::Cols, accumulate);
        else if constexpr (std::is_same_v<A, half>)
            sim::fast::gemm_f16(m, n, k, &l.data()->bits, L::Cols, &r.data()->bits, R::Cols, o, Acc::Cols, accumulate);
        else
            sim::fast::gemm_bf16(m, n, k, &l.data()->bits, L::Cols, &r.data()->bits, R::Cols, o, Acc::Cols, accumulate);
        return;
    }
    std::vector<C> res(static_cast<std::size_t>(M) * N);
    for (unsigned i = 0; i < M; ++i)
        for (unsigned j = 0; j < N; ++j) {
            C s = 0;
            for (unsigned k = 0; k < K; ++k) {
                if constexpr (std::is_same_v<C, float>)
                    s = std::fma(static_cast<float>(l.at(i, k)), static_cast<float>(r.at(k, j)), s);
                else
                    s += static_cast<C>(l.at(i, k)) * static_cast<C>(r.at(k, j));
            }
            if (bias) s += static_cast<C>(bias->at(0, j));
            if (in) s = in->at(i, j) + s;
            res[static_cast<std::size_t>(i) * N + j] = s;
        }
    for (unsigned i = 0; i < M; ++i)
        for (unsigned j = 0; j < N; ++j) out.at(i, j) = res[static_cast<std::size_t>(i) * N + j];
}

}  // namespace detail

template <typename TileRes, typename TileLeft, typename TileRight, typename... W>
    requires(is_tile_v<TileRes> && is_tile_v<TileLeft> && is_tile_v<TileRight> && all_events_v<W...>)
RecordEvent TMATMUL(TileRes& c, TileLeft& a, TileRight& b, W&...) {
    detail::mad(c, static_cast<const TileRes*>(nullptr), a, b, static_cast<const TileRes*>(nullptr));
    return {};
}

// cOut = cIn + a * b
template <typename TileRes, typename TileLeft, typename TileRight, typename... W>
    requires(is_tile_v<TileRes> && is_tile_v<TileLeft> && is_tile_v<TileRight> && all_events_v<W...>)
RecordEvent TMATMUL_ACC(TileRes& cOut, TileRes& cIn, TileLeft& a, TileRight& b, W&...) {
    detail::mad(cOut, &cIn, a, b, static_cast<const TileRes*>(nullptr));
    return {};
}

// c += a * b
template <typename TileRes, typename TileLeft, typename TileRight, typename... W>
    requires(is_tile_v<TileRes> && is_tile_v<TileLeft> && is_tile_v<TileRight> && all_events_v<W...>)
RecordEvent TMATMUL_ACC(TileRes& c, TileLeft& a, TileRight& b, W&...) {
    detail::mad(c, &c, a, b, static_cast<const TileRes*>(nullptr));
    return {};
}

// c = a * b + bias (bias is a [1, N] Bias tile of the Acc element type)
template <typename TileRes, typename TileLeft, typename TileRight, typename TileBias, typename... W>
    requires(is_tile_v<TileRes> && is_tile_v<TileLeft> && is_tile_v<TileRight> && is_tile_v<TileBias> &&
             all_events_v<W...>)
RecordEvent TMATMUL_BIAS(TileRes& c, TileLeft& a, TileRight& b, TileBias& bias, W&...) {
    static_assert(std::is_same_v<typename TileBias::DType, typename TileRes::DType>,
                  "TMATMUL_BIAS: bias element type must equal the Acc element type");
    detail::mad(c, static_cast<const TileRes*>(nullptr), a, b, &bias);
    return {};
}

template <typename TileRes, typename TileLeft, typename TileRight, typename... W>
    requires(is_tile_v<TileRes> && is_tile_v<TileLeft> && is_tile_v<TileRight> && all_events_v<W...>)
RecordEvent TGEMV(TileRes& c, TileLeft& a, TileRight& b, W&...) {
    return TMATMUL(c, a, b);
}

}  // namespace pto
