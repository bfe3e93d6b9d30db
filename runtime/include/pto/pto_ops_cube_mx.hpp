// pypto CPU runtime: the 950's MX (microscaling) cube instruction TMATMUL_MX, in its three forms
//   TMATMUL_MX(c, a, aScale, b, bScale)          c = A*B (scaled)
//   TMATMUL_MX(cOut, cIn, a, aScale, b, bScale)  cOut = cIn + A*B (scaled)
//   TMATMUL_MX(c, a, aScale, b, bScale, bias)    c = A*B (scaled) + bias[0][j]
// a / b: Left / Right tiles of float8_e4m3_t; aScale / bScale: ScaleLeft [M, K/32] /
// ScaleRight [K/32, N] tiles of float8_e8m0_t; c: an Acc float tile; bias: a [1, N] float Bias tile.
//
// m = a valid rows, k = a valid cols, n = b valid cols;
//   C[i][j] = sum over kk < k, in ascending kk, of A[i][kk] * B[kk][j] * SA[i][kk/32] * SB[kk/32][j]
// with SA, SB the e8m0 scales (2^(e-127); e = 255 is NaN and makes the term NaN). As pto-isa's CPU
// model computes it: each term in double (exact here: FP8 significands and power-of-two scales),
// added to a float accumulator (float(acc + term), no fma); the accumulate form then adds cIn
// (float), the bias form adds bias[0][j] (float) to the finished sum.
//
// The cube does not read the scale operands: it takes a Left tile's scales from the ScaleL (L0A
// scale) buffer at the Left tile's L0A byte offset >> 4, and a Right tile's from ScaleR at its
// L0B offset >> 4. The scale tiles passed must sit exactly there (TMOV them to those addresses);
// otherwise the run stops with both offsets named.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "pto_tile.hpp"

namespace pto {
namespace detail {

template <typename Acc, typename L, typename LS, typename R, typename RS>
void check_mad_mx() {
    static_assert(Acc::Loc == TileType::Acc && std::is_same_v<typename Acc::DType, float>,
                  "TMATMUL_MX: the result must be an Acc tile of float");
    static_assert(L::Loc == TileType::Left && std::is_same_v<typename L::DType, float8_e4m3_t>,
                  "TMATMUL_MX: the first operand must be a Left tile of float8_e4m3_t");
    static_assert(R::Loc == TileType::Right && std::is_same_v<typename R::DType, float8_e4m3_t>,
                  "TMATMUL_MX: the second operand must be a Right tile of float8_e4m3_t");
    static_assert(LS::Loc == TileType::ScaleLeft && std::is_same_v<typename LS::DType, float8_e8m0_t>,
                  "TMATMUL_MX: the Left operand's scales must be a ScaleLeft tile of float8_e8m0_t");
    static_assert(RS::Loc == TileType::ScaleRight && std::is_same_v<typename RS::DType, float8_e8m0_t>,
                  "TMATMUL_MX: the Right operand's scales must be a ScaleRight tile of float8_e8m0_t");
    static_assert(L::Cols % 64 == 0, "TMATMUL_MX: the Left tile's Cols (K) must be a multiple of 64");
}

// The scale tile `st` must be at (data tile's offset) >> 4 in its buffer.
template <typename DataT, typename ScaleT>
void check_scale_address(const DataT& dt, const ScaleT& st) {
    (void)dt.data();  // both placed (fails naming the tile otherwise)
    (void)st.data();
    const uint64_t want = dt.address() >> 4;
    if (st.address() == want) return;
    const sim::Space ds = sim::space_of(DataT::Loc), ss = sim::space_of(ScaleT::Loc);
    sim::fail(std::string("TMATMUL_MX: the ") + sim::tile_type_name(DataT::Loc) + " tile at " + sim::space_name(ds) +
              " offset " + std::to_string(dt.address()) + " takes its scales from " + sim::space_name(ss) +
              " offset " + std::to_string(want) + ", but the " + sim::tile_type_name(ScaleT::Loc) +
              " tile is at " + std::to_string(st.address()) +
              " (the cube reads the scales at the data tile's offset >> 4)");
}

template <typename T>
void check_covers(const T& t, unsigned rows, unsigned cols, const char* what) {
    if (t.GetValidRow() < rows || t.GetValidCol() < cols)
        sim::fail(std::string("TMATMUL_MX: the ") + what + " tile's valid shape " + std::to_string(t.GetValidRow()) +
                  "x" + std::to_string(t.GetValidCol()) + " does not cover the " + std::to_string(rows) + "x" +
                  std::to_string(cols) + " scales the product needs");
}

template <typename Acc, typename L, typename LS, typename R, typename RS, typename Bias>
void mad_mx(Acc& out, const Acc* in, L& a, LS& as, R& b, RS& bs, const Bias* bias) {
    check_mad_mx<Acc, L, LS, R, RS>();
    const unsigned M = a.GetValidRow(), K = a.GetValidCol(), N = b.GetValidCol();
    if (b.GetValidRow() != K)
        sim::fail("TMATMUL_MX: left valid cols (K=" + std::to_string(K) + ") != right valid rows (" +
                  std::to_string(b.GetValidRow()) + ")");
    if (M > static_cast<unsigned>(Acc::Rows) || N > static_cast<unsigned>(Acc::Cols))
        sim::fail("TMATMUL_MX: result " + std::to_string(M) + "x" + std::to_string(N) + " exceeds the Acc tile " +
                  std::to_string(Acc::Rows) + "x" + std::to_string(Acc::Cols));
    check_scale_address(a, as);
    check_scale_address(b, bs);
    const unsigned G = (K + 31) / 32;  // scale groups along k
    check_covers(as, M, G, "ScaleLeft");
    check_covers(bs, G, N, "ScaleRight");
    if (bias && bias->GetValidCol() < N)
        sim::fail("TMATMUL_MX: the Bias tile's " + std::to_string(bias->GetValidCol()) + " valid cols do not cover N=" +
                  std::to_string(N));

    // A[i][kk] * SA[i][kk/32] and B[kk][j] * SB[kk/32][j] in double (exact), B transposed so the
    // k loop walks both contiguously; (a*sa)*(b*sb) equals pto-isa's (a*b)*(sa*sb) exactly.
    std::vector<double> ad(static_cast<std::size_t>(M) * K), bd(static_cast<std::size_t>(N) * K);
    for (unsigned i = 0; i < M; ++i)
        for (unsigned kk = 0; kk < K; ++kk)
            ad[static_cast<std::size_t>(i) * K + kk] =
                static_cast<double>(static_cast<float>(a.at(i, kk))) * static_cast<float>(as.at(i, kk / 32));
    for (unsigned kk = 0; kk < K; ++kk)
        for (unsigned j = 0; j < N; ++j)
            bd[static_cast<std::size_t>(j) * K + kk] =
                static_cast<double>(static_cast<float>(b.at(kk, j))) * static_cast<float>(bs.at(kk / 32, j));

    std::vector<float> res(static_cast<std::size_t>(M) * N);
    for (unsigned i = 0; i < M; ++i) {
        const double* ar = ad.data() + static_cast<std::size_t>(i) * K;
        for (unsigned j = 0; j < N; ++j) {
            const double* br = bd.data() + static_cast<std::size_t>(j) * K;
            float s = 0.0f;
            for (unsigned kk = 0; kk < K; ++kk) s = static_cast<float>(static_cast<double>(s) + ar[kk] * br[kk]);
            if (in) s = in->at(i, j) + s;
            if (bias) s = s + static_cast<float>(bias->at(0, j));
            res[static_cast<std::size_t>(i) * N + j] = s;
        }
    }
    for (unsigned i = 0; i < M; ++i)
        for (unsigned j = 0; j < N; ++j) out.at(i, j) = res[static_cast<std::size_t>(i) * N + j];
}

}  // namespace detail

template <typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight, typename TileRightScale,
          typename... W>
    requires(is_tile_v<TileRes> && is_tile_v<TileLeft> && is_tile_v<TileLeftScale> && is_tile_v<TileRight> &&
             is_tile_v<TileRightScale> && all_events_v<W...>)
RecordEvent TMATMUL_MX(TileRes& c, TileLeft& a, TileLeftScale& aScale, TileRight& b, TileRightScale& bScale, W&...) {
    detail::mad_mx(c, static_cast<const TileRes*>(nullptr), a, aScale, b, bScale, static_cast<const TileRes*>(nullptr));
    return {};
}

// cOut = cIn + a * b (on the NPU cOut and cIn are one L0C buffer)
template <typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight, typename TileRightScale,
          typename... W>
    requires(is_tile_v<TileRes> && is_tile_v<TileLeft> && is_tile_v<TileLeftScale> && is_tile_v<TileRight> &&
             is_tile_v<TileRightScale> && all_events_v<W...>)
RecordEvent TMATMUL_MX(TileRes& cOut, TileRes& cIn, TileLeft& a, TileLeftScale& aScale, TileRight& b,
                       TileRightScale& bScale, W&...) {
    detail::mad_mx(cOut, &cIn, a, aScale, b, bScale, static_cast<const TileRes*>(nullptr));
    return {};
}

// c = a * b + bias (bias: a [1, N] Bias tile of float)
template <typename TileRes, typename TileLeft, typename TileLeftScale, typename TileRight, typename TileRightScale,
          typename TileBias, typename... W>
    requires(is_tile_v<TileRes> && is_tile_v<TileLeft> && is_tile_v<TileLeftScale> && is_tile_v<TileRight> &&
             is_tile_v<TileRightScale> && is_tile_v<TileBias> && !std::is_same_v<TileRes, TileLeft> &&
             all_events_v<W...>)
RecordEvent TMATMUL_MX(TileRes& c, TileLeft& a, TileLeftScale& aScale, TileRight& b, TileRightScale& bScale,
                       TileBias& bias, W&...) {
    static_assert(TileBias::Loc == TileType::Bias && TileBias::Rows == 1 &&
                      std::is_same_v<typename TileBias::DType, float>,
                  "TMATMUL_MX: the bias must be a one-row Bias tile of float");
    detail::mad_mx(c, static_cast<const TileRes*>(nullptr), a, aScale, b, bScale, &bias);
    return {};
}

}  // namespace pto
