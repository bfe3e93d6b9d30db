// Tests of the CPU runtime's MX (microscaling) matmul support for the Ascend 950: the FP8 element
// types float8_e4m3_t / float8_e8m0_t, TLOAD of the packed MX_A_ZZ / MX_B_NN scale layouts (full
// tensors and windows), TMOV into ScaleLeft / ScaleRight, TMATMUL_MX in its three forms against
// plain reference loops, its scale-address check, and the FP8 side of the runtime's .npy / --seed
// conventions.
#define PYPTO_SOC_950 1  // the kernels these tests mimic are compiled for the 950

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <pto/pto-inst.hpp>

#include "pypto_rt/npy.h"
#include "pypto_rt/random_fill.h"

using namespace pto;
using Catch::Matchers::Contains;

namespace {

// Make pto::sim::fail throw instead of aborting, for the duration of a test.
struct ThrowOnFail {
    ThrowOnFail() { sim::fail_handler() = [](const std::string& m) { throw std::runtime_error(m); }; }
    ~ThrowOnFail() { sim::fail_handler() = nullptr; }
};

uint8_t e4m3(float f) { return float8_e4m3_t(f).bits; }
uint8_t e8m0(float f) { return float8_e8m0_t(f).bits; }

// Byte offset of logical scale (r, c) in a full packed tensor ([M, G] for A, [G, N] for B).
std::size_t mx_a_offset(int r, int c, int g_full) {
    return static_cast<std::size_t>((r / 16) * g_full * 16 + (c / 2) * 32 + (r % 16) * 2 + c % 2);
}
std::size_t mx_b_offset(int r, int c, int g_full) {
    return static_cast<std::size_t>((c / 16) * g_full * 16 + (r / 2) * 32 + (c % 16) * 2 + r % 2);
}

// A distinct code per logical scale, so a misplaced element shows.
uint8_t scale_code(int r, int c) { return static_cast<uint8_t>((r * 13 + c * 7) % 251); }

}  // namespace

// ---- FP8 element types ----

TEST_CASE("float8_e4m3_t is OCP E4M3FN with RNE and NaN on overflow", "[types][mx]") {
    CHECK(sizeof(float8_e4m3_t) == 1);
    CHECK(e4m3(1.0f) == 0x38);
    CHECK(e4m3(0.5f) == 0x30);
    CHECK(e4m3(-2.0f) == 0xC0);
    CHECK(e4m3(448.0f) == 0x7E);
    CHECK(e4m3(std::ldexp(1.0f, -6)) == 0x08);  // smallest normal
    CHECK(e4m3(std::ldexp(1.0f, -9)) == 0x01);  // smallest subnormal
    CHECK(e4m3(7 * std::ldexp(1.0f, -9)) == 0x07);
    CHECK(e4m3(0.0f) == 0x00);
    CHECK(e4m3(-0.0f) == 0x80);
    // Ties to even: 1 + 1/16 lies halfway between 1 (0x38) and 1.125 (0x39); 1 + 3/16 between
    // 1.125 and 1.25 (0x3A); in the subnormals 2^-10 between 0 and 2^-9, 3*2^-10 between 2^-9 and 2^-8.
    CHECK(e4m3(1.0f + 1.0f / 16) == 0x38);
    CHECK(e4m3(1.0f + 3.0f / 16) == 0x3A);
    CHECK(e4m3(1.0f + 1.0f / 16 + 1.0f / 1024) == 0x39);  // just above halfway rounds up
    CHECK(e4m3(std::ldexp(1.0f, -10)) == 0x00);
    CHECK(e4m3(3 * std::ldexp(1.0f, -10)) == 0x02);
    CHECK(e4m3(1.9375f) == 0x40);  // 1 + 15/16: the tie rounds up into the next binade (2.0)
    // Overflow: 464 (halfway between 448 and the NaN code's 480) ties to 448; beyond is NaN.
    CHECK(e4m3(464.0f) == 0x7E);
    CHECK(e4m3(465.0f) == 0x7F);
    CHECK(e4m3(500.0f) == 0x7F);
    CHECK(e4m3(-500.0f) == 0xFF);
    CHECK(e4m3(std::numeric_limits<float>::infinity()) == 0x7F);
    CHECK(e4m3(-std::numeric_limits<float>::infinity()) == 0xFF);
    CHECK(e4m3(std::numeric_limits<float>::quiet_NaN()) == 0x7F);
    CHECK(e4m3(-std::numeric_limits<float>::quiet_NaN()) == 0xFF);
    // Decoding.
    CHECK(static_cast<float>(float8_e4m3_t::from_bits(0x7E)) == 448.0f);
    CHECK(static_cast<float>(float8_e4m3_t::from_bits(0x01)) == std::ldexp(1.0f, -9));
    CHECK(static_cast<float>(float8_e4m3_t::from_bits(0x07)) == 7 * std::ldexp(1.0f, -9));
    CHECK(static_cast<float>(float8_e4m3_t::from_bits(0x39)) == 1.125f);
    CHECK(static_cast<float>(float8_e4m3_t::from_bits(0xB8)) == -1.0f);
    CHECK(std::isnan(static_cast<float>(float8_e4m3_t::from_bits(0x7F))));
    CHECK(std::isnan(static_cast<float>(float8_e4m3_t::from_bits(0xFF))));
    CHECK(std::signbit(static_cast<float>(float8_e4m3_t::from_bits(0x80))));
    CHECK(static_cast<float>(float8_e4m3_t::from_bits(0x7D)) == 416.0f);
    // Every non-NaN code survives the round trip through float; pto-isa's spellings agree.
    for (int c = 0; c < 256; ++c) {
        if ((c & 0x7F) == 0x7F) continue;
        const float8_e4m3_t v = float8_e4m3_t::FromRaw(static_cast<uint8_t>(c));
        CHECK(v.RawData() == c);
        CHECK(float8_e4m3_t(static_cast<float>(v)).bits == c);
    }
    CHECK(float8_e4m3_t(0.5).bits == 0x30);  // from double
    CHECK(float8_e4m3_t(3).bits == 0x44);    // from int
}

TEST_CASE("float8_e8m0_t holds a power-of-two exponent", "[types][mx]") {
    CHECK(sizeof(float8_e8m0_t) == 1);
    CHECK(e8m0(1.0f) == 127);
    CHECK(e8m0(0.25f) == 125);
    CHECK(e8m0(3.0f) == 128);  // floor(log2 3) = 1: no rounding up
    CHECK(e8m0(0.3f) == 125);
    CHECK(e8m0(4.0f) == 129);
    CHECK(e8m0(std::ldexp(1.0f, -126)) == 1);
    CHECK(e8m0(std::ldexp(1.0f, -127)) == 0);  // a float subnormal
    CHECK(e8m0(std::ldexp(1.0f, 127)) == 254);
    CHECK(e8m0(std::numeric_limits<float>::max()) == 254);
    CHECK(e8m0(0.0f) == 255);
    CHECK(e8m0(-0.0f) == 255);
    CHECK(e8m0(-1.0f) == 255);
    CHECK(e8m0(std::numeric_limits<float>::infinity()) == 255);
    CHECK(e8m0(std::numeric_limits<float>::quiet_NaN()) == 255);
    CHECK(float8_e8m0_t(1e300).bits == 255);  // from double: beyond 2^127
    CHECK(float8_e8m0_t(std::ldexp(1.0, -130)).bits == 0);
    CHECK(float8_e8m0_t(6.0).bits == 129);
    CHECK(float8_e8m0_t(1).bits == 127);
    CHECK(static_cast<float>(float8_e8m0_t::from_bits(127)) == 1.0f);
    CHECK(static_cast<float>(float8_e8m0_t::from_bits(125)) == 0.25f);
    CHECK(static_cast<float>(float8_e8m0_t::from_bits(0)) == std::ldexp(1.0f, -127));
    CHECK(static_cast<float>(float8_e8m0_t::from_bits(254)) == std::ldexp(1.0f, 127));
    CHECK(std::isnan(static_cast<float>(float8_e8m0_t::from_bits(255))));
    CHECK(float8_e8m0_t::FromRaw(130).RawData() == 130);
    for (int c = 0; c < 255; ++c)
        CHECK(float8_e8m0_t(static_cast<float>(float8_e8m0_t::from_bits(static_cast<uint8_t>(c)))).bits == c);
}

TEST_CASE("the element conversions treat the FP8 types as floats", "[types][mx]") {
    CHECK(is_float_like_v<float8_e4m3_t>);
    CHECK(is_float_like_v<float8_e8m0_t>);
    CHECK(cvt::to<float8_e4m3_t>(0.5f).bits == 0x30);
    CHECK(cvt::to<float>(float8_e4m3_t::from_bits(0x39)) == 1.125f);
    CHECK(cvt::to<float8_e8m0_t>(3.0f).bits == 128);
    CHECK(cvt::round_to<float8_e4m3_t>(1.0f + 3.0f / 16, RoundMode::CAST_RINT, SaturationMode::ON).bits == 0x3A);
    CHECK(cvt::round_to<float8_e4m3_t>(int32_t{5}, RoundMode::CAST_RINT, SaturationMode::ON).bits == 0x4A);
}

// ---- TLOAD of the MX scale layouts ----

TEST_CASE("TLOAD unpacks MX_A_ZZ and MX_B_NN scale tensors", "[mx][tload]") {
    ThrowOnFail guard;
    constexpr int M = 32, G = 4, N = 48;
    std::vector<float8_e8m0_t> ga(M * G), gb(G * N);
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < G; ++c) ga[mx_a_offset(r, c, G)].bits = scale_code(r, c);
    for (int r = 0; r < G; ++r)
        for (int c = 0; c < N; ++c) gb[mx_b_offset(r, c, G)].bits = scale_code(r, c);

    using GmAS = GlobalTensor<float8_e8m0_t, Shape<1, M / 16, G / 2, 16, 2>, Stride<M * G, G * 16, 32, 2, 1>,
                              Layout::MX_A_ZZ>;
    using GmBS = GlobalTensor<float8_e8m0_t, Shape<1, N / 16, G / 2, 16, 2>, Stride<G * N, G * 16, 32, 2, 1>,
                              Layout::MX_B_NN>;
    Tile<TileType::Mat, float8_e8m0_t, M, G, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 32, PadValue::Null,
         CompactMode::Null>
        as(M, G);
    Tile<TileType::Mat, float8_e8m0_t, G, N, BLayout::ColMajor, -1, -1, SLayout::ColMajor, 32, PadValue::Null,
         CompactMode::Null>
        bs(G, N);
    TASSIGN(as, 0);
    TASSIGN(bs, 4096);
    GmAS gas(ga.data());
    GmBS gbs(gb.data());
    TLOAD(as, gas);
    TLOAD(bs, gbs);
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < G; ++c) CHECK(as.at(r, c).bits == scale_code(r, c));
    for (int r = 0; r < G; ++r)
        for (int c = 0; c < N; ++c) CHECK(bs.at(r, c).bits == scale_code(r, c));

    SECTION("uint8_t scales load the same bytes") {
        using GmU = GlobalTensor<uint8_t, Shape<1, M / 16, G / 2, 16, 2>, Stride<M * G, G * 16, 32, 2, 1>,
                                 Layout::MX_A_ZZ>;
        Tile<TileType::Mat, uint8_t, M, G, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 32> u(M, G);
        TASSIGN(u, 8192);
        GmU gu(reinterpret_cast<uint8_t*>(ga.data()));
        TLOAD(u, gu);
        for (int r = 0; r < M; ++r)
            for (int c = 0; c < G; ++c) CHECK(u.at(r, c) == scale_code(r, c));
    }
    SECTION("a valid region smaller than the view loads only the valid region") {
        Tile<TileType::Mat, float8_e8m0_t, M, G, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 32> part(20, 3);
        TASSIGN(part, 8192);
        std::memset(part.data(), 0, M * G);
        TLOAD(part, gas);
        for (int r = 0; r < M; ++r)
            for (int c = 0; c < G; ++c) CHECK(part.at(r, c).bits == (r < 20 && c < 3 ? scale_code(r, c) : 0));
    }
    SECTION("a view larger than the tile fails") {
        Tile<TileType::Mat, float8_e8m0_t, 16, G, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 32> small(16, G);
        TASSIGN(small, 8192);
        CHECK_THROWS_WITH(TLOAD(small, gas), Contains("spans 32x4 scales, more than the Mat tile 16x4"));
    }
    SECTION("a view smaller than the valid region fails") {
        using GmSmall = GlobalTensor<float8_e8m0_t, Shape<1, 1, G / 2, 16, 2>, Stride<M * G, G * 16, 32, 2, 1>,
                                     Layout::MX_A_ZZ>;
        GmSmall g(ga.data());
        CHECK_THROWS_WITH(TLOAD(as, g), Contains("less than the tile's valid shape 32x4"));
    }
    SECTION("a dynamic box other than [16, 2] fails") {
        using GmDyn = GlobalTensor<float8_e8m0_t, Shape<1, -1, -1, -1, 2>, Stride<M * G, G * 16, 32, 2, 1>,
                                   Layout::MX_A_ZZ>;
        GmDyn g(ga.data(), Shape<1, -1, -1, -1, 2>(4, 2, 8));
        CHECK_THROWS_WITH(TLOAD(as, g), Contains("pack [16, 2] boxes"));
    }
}

TEST_CASE("TLOAD of an MX scale window of a larger tensor", "[mx][tload]") {
    ThrowOnFail guard;
    // Full tensors: A scales [48, 8], B scales [8, 64]; windows at box-aligned origins.
    constexpr int MF = 48, GF = 8, NF = 64;
    std::vector<float8_e8m0_t> ga(MF * GF), gb(GF * NF);
    for (int r = 0; r < MF; ++r)
        for (int c = 0; c < GF; ++c) ga[mx_a_offset(r, c, GF)].bits = scale_code(r, c);
    for (int r = 0; r < GF; ++r)
        for (int c = 0; c < NF; ++c) gb[mx_b_offset(r, c, GF)].bits = scale_code(r, c);

    // A window rows [16, 48), cols [4, 8): static shape, full-tensor strides.
    {
        constexpr int r0 = 16, c0 = 4, M = 32, G = 4;
        using GmAS = GlobalTensor<float8_e8m0_t, Shape<1, M / 16, G / 2, 16, 2>, Stride<MF * GF, GF * 16, 32, 2, 1>,
                                  Layout::MX_A_ZZ>;
        Tile<TileType::Mat, float8_e8m0_t, M, G, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 32> as(M, G);
        TASSIGN(as, 0);
        GmAS g(ga.data() + mx_a_offset(r0, c0, GF));
        TLOAD(as, g);
        for (int r = 0; r < M; ++r)
            for (int c = 0; c < G; ++c) CHECK(as.at(r, c).bits == scale_code(r0 + r, c0 + c));
    }
    // B window rows (k groups) [2, 6), cols [16, 48): dynamic shape and strides.
    {
        constexpr int r0 = 2, c0 = 16, G = 4, N = 32;
        using Sh = Shape<1, -1, -1, 16, 2>;
        using St = Stride<-1, -1, 32, 2, 1>;
        using GmBS = GlobalTensor<float8_e8m0_t, Sh, St, Layout::MX_B_NN>;
        Tile<TileType::Mat, float8_e8m0_t, G, N, BLayout::ColMajor, -1, -1, SLayout::ColMajor, 32> bs(G, N);
        TASSIGN(bs, 1024);
        GmBS g(gb.data() + mx_b_offset(r0, c0, GF), Sh(N / 16, G / 2), St(GF * NF, GF * 16));
        TLOAD(bs, g);
        for (int r = 0; r < G; ++r)
            for (int c = 0; c < N; ++c) CHECK(bs.at(r, c).bits == scale_code(r0 + r, c0 + c));
    }
}

// ---- TMATMUL_MX ----

namespace {

constexpr int M = 32, K = 128, N = 32, G = K / 32;

using GmA = GlobalTensor<float8_e4m3_t, Shape<1, 1, 1, M, K>, Stride<M * K, M * K, M * K, K, 1>, Layout::ND>;
using GmB = GlobalTensor<float8_e4m3_t, Shape<1, 1, 1, K, N>, Stride<K * N, K * N, K * N, N, 1>, Layout::ND>;
using GmAS =
    GlobalTensor<float8_e8m0_t, Shape<1, M / 16, G / 2, 16, 2>, Stride<M * G, G * 16, 32, 2, 1>, Layout::MX_A_ZZ>;
using GmBS =
    GlobalTensor<float8_e8m0_t, Shape<1, N / 16, G / 2, 16, 2>, Stride<G * N, G * 16, 32, 2, 1>, Layout::MX_B_NN>;
using AMat = Tile<TileType::Mat, float8_e4m3_t, M, K, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
using BMat = Tile<TileType::Mat, float8_e4m3_t, K, N, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
using ASMat = Tile<TileType::Mat, float8_e8m0_t, M, G, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 32,
                   PadValue::Null, CompactMode::Null>;
using BSMat = Tile<TileType::Mat, float8_e8m0_t, G, N, BLayout::ColMajor, -1, -1, SLayout::ColMajor, 32,
                   PadValue::Null, CompactMode::Null>;
using LeftT = Tile<TileType::Left, float8_e4m3_t, M, K, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512>;
using RightT = Tile<TileType::Right, float8_e4m3_t, K, N, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>;
using AS = Tile<TileType::ScaleLeft, float8_e8m0_t, M, G, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 32,
                PadValue::Null, CompactMode::Null>;
using BS = Tile<TileType::ScaleRight, float8_e8m0_t, G, N, BLayout::ColMajor, -1, -1, SLayout::ColMajor, 32,
                PadValue::Null, CompactMode::Null>;
using AccT = Tile<TileType::Acc, float, M, N, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
using BiasT = Tile<TileType::Bias, float, 1, N, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512>;

static_assert(std::is_same_v<TileLeftScale<float8_e8m0_t, 16, 2>,
                             Tile<TileType::ScaleLeft, float8_e8m0_t, 16, 2, BLayout::RowMajor, 16, 2,
                                  SLayout::RowMajor, 32>>);
// Fractal-32 tiles need no multiple-of-16 rows.
static_assert(sizeof(Tile<TileType::Mat, float8_e8m0_t, 8, 2, BLayout::RowMajor, 8, 2, SLayout::RowMajor, 32>) > 0);
static_assert(sizeof(TileRightScale<float8_e8m0_t, 2, 16>) > 0);

// Host operands in logical order plus their packed GM forms, and the CPU pipeline of a kernel:
// TLOAD into L1, TMOV to L0A / L0B / ScaleL / ScaleR.
struct MxCase {
    std::vector<float8_e4m3_t> a, b;  // [M, K], [K, N] row-major
    std::vector<uint8_t> sa, sb;       // [M, G], [G, N] logical exponents
    std::vector<float8_e8m0_t> gsa, gsb;

    AMat aMat{M, K};
    BMat bMat{K, N};
    ASMat asMat{M, G};
    BSMat bsMat{G, N};
    LeftT left{M, K};
    RightT right{K, N};
    AS as{M, G};
    BS bs{G, N};

    template <typename FA, typename FB>
    MxCase(FA fa, FB fb) : a(M * K), b(K * N), sa(M * G), sb(G * N), gsa(M * G), gsb(G * N) {
        for (int i = 0; i < M; ++i)
            for (int k = 0; k < K; ++k) a[i * K + k] = float8_e4m3_t(fa(i, k));
        for (int k = 0; k < K; ++k)
            for (int j = 0; j < N; ++j) b[k * N + j] = float8_e4m3_t(fb(k, j));
        for (int i = 0; i < M; ++i)
            for (int g = 0; g < G; ++g) {
                sa[i * G + g] = static_cast<uint8_t>(125 + (i + 2 * g) % 5);  // 2^-2 .. 2^2
                gsa[mx_a_offset(i, g, G)].bits = sa[i * G + g];
            }
        for (int g = 0; g < G; ++g)
            for (int j = 0; j < N; ++j) {
                sb[g * N + j] = static_cast<uint8_t>(125 + (3 * g + j) % 5);
                gsb[mx_b_offset(g, j, G)].bits = sb[g * N + j];
            }
    }

    // Loads everything; Left at L0A `a_off`, Right at L0B `b_off`, their scale tiles at
    // `as_off` / `bs_off` (the right place is a_off >> 4 / b_off >> 4).
    void stage(uint64_t a_off, uint64_t b_off, uint64_t as_off, uint64_t bs_off) {
        TASSIGN(aMat, 0);
        TASSIGN(bMat, M * K);
        TASSIGN(asMat, M * K + K * N);
        TASSIGN(bsMat, M * K + K * N + M * G);
        GmA ga(a.data());
        GmB gb(b.data());
        GmAS gas(gsa.data());
        GmBS gbs(gsb.data());
        TLOAD(aMat, ga);
        TLOAD(bMat, gb);
        TLOAD(asMat, gas);
        TLOAD(bsMat, gbs);
        TASSIGN(left, a_off);
        TASSIGN(right, b_off);
        TASSIGN(as, as_off);
        TASSIGN(bs, bs_off);
        TMOV(left, aMat);
        TMOV(right, bMat);
        TMOV(as, asMat);
        TMOV(bs, bsMat);
    }

    // The exact product in double over the first k columns.
    double ref(int i, int j, int k_valid = K) const {
        double s = 0;
        for (int k = 0; k < k_valid; ++k)
            s += static_cast<double>(static_cast<float>(a[i * K + k])) * static_cast<float>(b[k * N + j]) *
                 std::ldexp(1.0, sa[i * G + k / 32] - 127) * std::ldexp(1.0, sb[(k / 32) * N + j] - 127);
        return s;
    }
};

float cin_val(int i, int j) { return static_cast<float>(i - j) * 0.5f; }
float bias_val(int j) { return static_cast<float>(j) - 3.25f; }

// Small integers (exact in E4M3); with scales 2^-2..2^2 every partial sum is exact in float.
float int_a(int i, int k) { return static_cast<float>((i * 7 + k * 3) % 17 - 8); }
float int_b(int k, int j) { return static_cast<float>((k * 5 + j * 11) % 15 - 7); }

}  // namespace

TEST_CASE("FP8 data travels GM -> Mat -> Left / Right unchanged", "[mx][tmov]") {
    ThrowOnFail guard;
    MxCase t(int_a, int_b);
    t.stage(0, 0, 0, 0);
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) CHECK(t.left.at(i, k).bits == t.a[i * K + k].bits);
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j) CHECK(t.right.at(k, j).bits == t.b[k * N + j].bits);
    for (int i = 0; i < M; ++i)
        for (int g = 0; g < G; ++g) CHECK(t.as.at(i, g).bits == t.sa[i * G + g]);
    for (int g = 0; g < G; ++g)
        for (int j = 0; j < N; ++j) CHECK(t.bs.at(g, j).bits == t.sb[g * N + j]);
}

TEST_CASE("TMATMUL_MX: plain, accumulate and bias forms on exact data", "[mx][tmatmul]") {
    ThrowOnFail guard;
    MxCase t(int_a, int_b);
    t.stage(0, 0, 0, 0);
    AccT c(M, N);
    TASSIGN(c, 0);

    SECTION("c = A*B") {
        TMATMUL_MX(c, t.left, t.as, t.right, t.bs);
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) CHECK(static_cast<double>(c.at(i, j)) == t.ref(i, j));
    }
    SECTION("c = c + A*B (one buffer)") {
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) c.at(i, j) = cin_val(i, j);
        TMATMUL_MX(c, c, t.left, t.as, t.right, t.bs);
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) CHECK(static_cast<double>(c.at(i, j)) == cin_val(i, j) + t.ref(i, j));
    }
    SECTION("cOut = cIn + A*B (two buffers)") {
        AccT cin(M, N);
        TASSIGN(cin, M * N * sizeof(float));
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) cin.at(i, j) = cin_val(i, j);
        TMATMUL_MX(c, cin, t.left, t.as, t.right, t.bs);
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
                CHECK(static_cast<double>(c.at(i, j)) == cin_val(i, j) + t.ref(i, j));
                CHECK(cin.at(i, j) == cin_val(i, j));
            }
    }
    SECTION("c = A*B + bias") {
        BiasT bias(1, N);
        TASSIGN(bias, 0);
        for (int j = 0; j < N; ++j) bias.at(0, j) = bias_val(j);
        TMATMUL_MX(c, t.left, t.as, t.right, t.bs, bias);
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) CHECK(static_cast<double>(c.at(i, j)) == t.ref(i, j) + bias_val(j));
    }
    SECTION("a valid k that ends inside a scale group") {
        constexpr int k = 80;  // groups 0, 1 and part of 2
        t.left.SetValidShape(M, k);
        t.right.SetValidShape(k, N);
        TMATMUL_MX(c, t.left, t.as, t.right, t.bs);
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) CHECK(static_cast<double>(c.at(i, j)) == t.ref(i, j, k));
    }
    SECTION("a smaller valid m x n writes only that region") {
        t.left.SetValidShape(20, K);
        t.right.SetValidShape(K, 24);
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) c.at(i, j) = -1.0f;
        TMATMUL_MX(c, t.left, t.as, t.right, t.bs);
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j)
                CHECK(static_cast<double>(c.at(i, j)) == (i < 20 && j < 24 ? t.ref(i, j) : -1.0));
    }
}

TEST_CASE("TMATMUL_MX accumulates in float, in ascending k, each term in double", "[mx][tmatmul]") {
    ThrowOnFail guard;
    // Inexact data: every E4M3 value of [-1, 1) this produces has a full mantissa, so the float
    // accumulator rounds; the result must equal the stated order bit for bit.
    MxCase t([](int i, int k) { return std::sin(0.37f * static_cast<float>(i * K + k)); },
             [](int k, int j) { return std::cos(0.23f * static_cast<float>(k * N + j)) * 0.9f; });
    t.stage(0, 0, 0, 0);
    AccT c(M, N);
    TASSIGN(c, 0);
    TMATMUL_MX(c, t.left, t.as, t.right, t.bs);
    int inexact = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0.0f;
            for (int k = 0; k < K; ++k)
                s = static_cast<float>(static_cast<double>(s) +
                                       static_cast<double>(static_cast<float>(t.a[i * K + k])) *
                                           static_cast<double>(static_cast<float>(t.b[k * N + j])) *
                                           (std::ldexp(1.0, t.sa[i * G + k / 32] - 127) *
                                            std::ldexp(1.0, t.sb[(k / 32) * N + j] - 127)));
            CHECK(c.at(i, j) == s);
            if (static_cast<double>(s) != t.ref(i, j)) ++inexact;
        }
    CHECK(inexact > 0);  // the data does exercise float rounding
}

TEST_CASE("TMATMUL_MX: a NaN scale (e8m0 255) makes its products NaN", "[mx][tmatmul]") {
    ThrowOnFail guard;
    MxCase t(int_a, int_b);
    t.stage(0, 0, 0, 0);
    t.as.at(3, 1) = float8_e8m0_t::from_bits(255);
    AccT c(M, N);
    TASSIGN(c, 0);
    TMATMUL_MX(c, t.left, t.as, t.right, t.bs);
    CHECK(std::isnan(c.at(3, 0)));
    CHECK(static_cast<double>(c.at(2, 0)) == t.ref(2, 0));
}

TEST_CASE("TMATMUL_MX reads the scales at the data tile's offset >> 4", "[mx][tmatmul]") {
    ThrowOnFail guard;
    MxCase t(int_a, int_b);
    AccT c(M, N);
    TASSIGN(c, 0);

    SECTION("placed right with non-zero data offsets") {
        t.stage(1024, 2048, 1024 >> 4, 2048 >> 4);
        TMATMUL_MX(c, t.left, t.as, t.right, t.bs);
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) CHECK(static_cast<double>(c.at(i, j)) == t.ref(i, j));
    }
    SECTION("a misplaced ScaleLeft tile fails naming both offsets") {
        t.stage(1024, 2048, 0, 2048 >> 4);
        CHECK_THROWS_WITH(TMATMUL_MX(c, t.left, t.as, t.right, t.bs),
                          Contains("the Left tile at L0A offset 1024 takes its scales from L0A-scale offset 64, "
                                   "but the ScaleLeft tile is at 0"));
    }
    SECTION("a misplaced ScaleRight tile fails naming both offsets") {
        t.stage(1024, 2048, 1024 >> 4, 256);
        CHECK_THROWS_WITH(TMATMUL_MX(c, t.left, t.as, t.right, t.bs),
                          Contains("the Right tile at L0B offset 2048 takes its scales from L0B-scale offset 128, "
                                   "but the ScaleRight tile is at 256"));
    }
    SECTION("the accumulate and bias forms check too") {
        t.stage(1024, 0, 0, 0);
        CHECK_THROWS_WITH(TMATMUL_MX(c, c, t.left, t.as, t.right, t.bs), Contains("ScaleLeft tile is at 0"));
        BiasT bias(1, N);
        TASSIGN(bias, 0);
        CHECK_THROWS_WITH(TMATMUL_MX(c, t.left, t.as, t.right, t.bs, bias), Contains("ScaleLeft tile is at 0"));
    }
}

TEST_CASE("TMATMUL_MX shape checks", "[mx][tmatmul]") {
    ThrowOnFail guard;
    MxCase t(int_a, int_b);
    t.stage(0, 0, 0, 0);
    AccT c(M, N);
    TASSIGN(c, 0);
    SECTION("right valid rows != k") {
        t.right.SetValidShape(64, N);
        CHECK_THROWS_WITH(TMATMUL_MX(c, t.left, t.as, t.right, t.bs),
                          Contains("left valid cols (K=128) != right valid rows (64)"));
    }
    SECTION("result larger than the Acc tile") {
        Tile<TileType::Acc, float, 16, N, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024> small(16, N);
        TASSIGN(small, 0);
        CHECK_THROWS_WITH(TMATMUL_MX(small, t.left, t.as, t.right, t.bs), Contains("exceeds the Acc tile 16x32"));
    }
    SECTION("scale tiles whose valid shape does not cover the product") {
        t.as.SetValidShape(M, 2);
        CHECK_THROWS_WITH(TMATMUL_MX(c, t.left, t.as, t.right, t.bs),
                          Contains("ScaleLeft tile's valid shape 32x2 does not cover the 32x4 scales"));
    }
}

namespace {
// A kernel run outside the executor with --check-syncs on, collecting the reports.
struct SyncRun {
    std::vector<std::string> found;
    sim::KernelScope scope{"k", 0};
    static SyncRun*& self() {
        static SyncRun* s = nullptr;
        return s;
    }
    SyncRun() {
        self() = this;
        auto& k = sim::current_kernel();
        k.check_syncs = true;
        k.report = [](const sim::KernelContext&, const std::string& m) { self()->found.push_back(m); };
        sim::sync_begin();
    }
    ~SyncRun() { self() = nullptr; }
};
}  // namespace

TEST_CASE("check-syncs: TMATMUL_MX reads its scale tiles on PIPE_M", "[mx][syncs]") {
    MxCase t(int_a, int_b);
    t.stage(0, 0, 0, 0);  // (unchecked: before the run starts)
    AccT c(M, N);
    TASSIGN(c, 0);
    SECTION("synchronised: clean") {
        SyncRun run;
        TMOV(t.as, t.asMat);
        TMOV(t.bs, t.bsMat);
        set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
        TMATMUL_MX(c, t.left, t.as, t.right, t.bs);
        sim::sync_end();
        CHECK(run.found.empty());
    }
    SECTION("a scale TMOV not waited for") {
        SyncRun run;
        TMOV(t.as, t.asMat);
        TMATMUL_MX(c, t.left, t.as, t.right, t.bs);
        sim::sync_end();
        REQUIRE(run.found.size() == 1);
        CHECK_THAT(run.found[0], Contains("TMATMUL_MX on PIPE_M") && Contains("reads L0A-scale bytes") &&
                                     Contains("written by TMOV on PIPE_MTE1"));
    }
}

// ---- the runtime's FP8 conventions (.npy descr, --seed) ----

TEST_CASE("FP8 tensors travel as float32 .npy and get seeded values", "[mx][npy]") {
    CHECK(pypto_rt::npy_descr_for(DataType::FP8E4M3FN) == "<f4");
    CHECK(pypto_rt::npy_descr_for(DataType::FP8E8M0) == "<f4");
    constexpr uint64_t n = 4096;
    const auto f32 = pypto_rt::random_fill(DataType::FLOAT32, n, 42, 3);
    const auto f8 = pypto_rt::random_fill(DataType::FP8E4M3FN, n, 42, 3);
    REQUIRE(f8.size() == n);
    for (uint64_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, f32.data() + i * 4, 4);
        CHECK(f8[i] == float8_e4m3_t(f).bits);
    }
    const auto e8 = pypto_rt::random_fill(DataType::FP8E8M0, n, 42, 3);
    REQUIRE(e8.size() == n);
    int seen[5] = {};
    for (uint64_t i = 0; i < n; ++i) {
        REQUIRE(e8[i] >= 125);
        REQUIRE(e8[i] <= 129);
        ++seen[e8[i] - 125];
    }
    for (int s : seen) CHECK(s > 0);
}
