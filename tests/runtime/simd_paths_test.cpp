// Tests of the tile instructions' fast paths (runtime/include/pto/pto_sim_fast.hpp): each SIMD
// kernel against the element loop it replaces — bit for bit where the header promises it (add /
// sub / mul / div / max / min, scalar forms, sqrt / recip / neg / abs / relu, max / min
// reductions, column reductions, f16 / bf16 widening), within the stated bound where the order or
// the approximation changed (exp <= 1 ulp of std::exp, row sums within the summation bound) —
// over lengths that exercise every tail and inputs with NaN, infinities, signed zeros and
// denormals; and the sgemm path against a double-precision product.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <pto/pto-inst.hpp>
#include <pto/pto_sim_fast.hpp>

using namespace pto;
namespace fast = pto::sim::fast;

namespace {

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
// Same value and, for NaN, NaN (payloads are not compared).
bool same(float a, float b) { return (std::isnan(a) && std::isnan(b)) || bits(a) == bits(b); }

// Distance in units in the last place between two finite floats of the same sign region.
int64_t ulps(float a, float b) {
    auto key = [](float f) {
        const int32_t i = static_cast<int32_t>(bits(f));
        return i < 0 ? static_cast<int64_t>(INT32_MIN) - i : static_cast<int64_t>(i);
    };
    return std::llabs(key(a) - key(b));
}

// Random floats with the special values mixed in.
std::vector<float> inputs(std::size_t n, uint32_t seed, float scale = 10.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-scale, scale);
    const float specials[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::denorm_min(), -1e-40f, 1.0f, -1.0f, 3e38f};
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = (rng() % 7 == 0) ? specials[rng() % 10] : u(rng);
    return v;
}

float ref_bin(fast::Bin op, float a, float b) {
    switch (op) {
        case fast::Bin::Add: return a + b;
        case fast::Bin::Sub: return a - b;
        case fast::Bin::Mul: return a * b;
        case fast::Bin::Div: return a / b;
        case fast::Bin::Max: return a > b ? a : b;
        case fast::Bin::Min: return a < b ? a : b;
    }
    return 0;
}

const fast::Bin kBins[] = {fast::Bin::Add, fast::Bin::Sub, fast::Bin::Mul,
                           fast::Bin::Div, fast::Bin::Max, fast::Bin::Min};

}  // namespace

TEST_CASE("a SIMD target is chosen", "[simd]") {
    const std::string t = fast::simd_target();
    CHECK((t == "AVX-512" || t == "AVX2" || t == "SSE4" || t == "baseline"));
}

TEST_CASE("binary and scalar kernels equal the element loops bit for bit", "[simd]") {
    for (std::size_t n : {1u, 3u, 7u, 8u, 15u, 16u, 17u, 31u, 64u, 67u, 1000u}) {
        const auto a = inputs(n, 1 + static_cast<uint32_t>(n)), b = inputs(n, 100 + static_cast<uint32_t>(n));
        for (fast::Bin op : kBins) {
            std::vector<float> d(n), ds(n), dsf(n);
            fast::binary_f32(op, d.data(), a.data(), b.data(), n);
            fast::scalar_f32(op, ds.data(), a.data(), b[0], n);
            fast::scalar_f32(op, dsf.data(), a.data(), b[0], n, true);
            for (std::size_t i = 0; i < n; ++i) {
                INFO("op " << static_cast<int>(op) << " n " << n << " i " << i << " a " << a[i] << " b " << b[i]);
                CHECK(same(d[i], ref_bin(op, a[i], b[i])));
                CHECK(same(ds[i], ref_bin(op, a[i], b[0])));
                CHECK(same(dsf[i], ref_bin(op, b[0], a[i])));
            }
        }
        // In place (d == a), as TADD(t, t, u) does.
        std::vector<float> x = a;
        fast::binary_f32(fast::Bin::Add, x.data(), x.data(), b.data(), n);
        for (std::size_t i = 0; i < n; ++i) CHECK(same(x[i], a[i] + b[i]));
    }
}

TEST_CASE("unary kernels: exact ones bit for bit, exp within 1 ulp of std::exp", "[simd]") {
    for (std::size_t n : {1u, 5u, 16u, 33u, 500u}) {
        const auto a = inputs(n, 7 + static_cast<uint32_t>(n));
        std::vector<float> d(n);
        fast::unary_f32(fast::Un::Sqrt, d.data(), a.data(), n);
        for (std::size_t i = 0; i < n; ++i) CHECK(same(d[i], std::sqrt(a[i])));
        fast::unary_f32(fast::Un::Recip, d.data(), a.data(), n);
        for (std::size_t i = 0; i < n; ++i) CHECK(same(d[i], 1.0f / a[i]));
        fast::unary_f32(fast::Un::Neg, d.data(), a.data(), n);
        for (std::size_t i = 0; i < n; ++i) CHECK(same(d[i], -a[i]));
        fast::unary_f32(fast::Un::Abs, d.data(), a.data(), n);
        for (std::size_t i = 0; i < n; ++i) CHECK(same(d[i], a[i] < 0 ? -a[i] : a[i]));
        fast::unary_f32(fast::Un::Relu, d.data(), a.data(), n);
        for (std::size_t i = 0; i < n; ++i) CHECK(same(d[i], a[i] > 0 ? a[i] : 0.0f));
    }
    // exp over [-110, 110] in small steps, the specials, and the range edges.
    std::vector<float> x;
    for (float v = -110.0f; v <= 110.0f; v += 0.0137f) x.push_back(v);
    for (float v : {0.0f, -0.0f, 88.0f, 88.72f, 88.73f, -87.0f, -87.4f, -103.9f, -104.0f, 1e-30f, -1e-30f})
        x.push_back(v);
    x.push_back(std::numeric_limits<float>::infinity());
    x.push_back(-std::numeric_limits<float>::infinity());
    x.push_back(std::numeric_limits<float>::quiet_NaN());
    std::vector<float> e(x.size());
    fast::unary_f32(fast::Un::Exp, e.data(), x.data(), x.size());
    int64_t worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const float r = std::exp(x[i]);
        INFO("x " << x[i] << " simd " << e[i] << " std " << r);
        if (std::isnan(r) || std::isinf(r) || r == 0.0f || !std::isnormal(r)) {
            CHECK(same(e[i], r));  // the std::exp fallback lanes
        } else {
            worst = std::max(worst, ulps(e[i], r));
            CHECK(ulps(e[i], r) <= 1);
        }
    }
    CHECK(worst <= 1);
}

TEST_CASE("reductions: max / min exact (NaN placement too), sums within the summation bound", "[simd]") {
    for (std::size_t n : {1u, 2u, 9u, 16u, 17u, 40u, 129u, 512u}) {
        std::mt19937 rng(static_cast<uint32_t>(n));
        std::uniform_real_distribution<float> u(-4.0f, 4.0f);
        std::vector<float> a(n);
        for (auto& v : a) v = u(rng);
        for (int with_nan = 0; with_nan < 3; ++with_nan) {
            std::vector<float> x = a;
            if (with_nan == 1) x[n / 2] = std::numeric_limits<float>::quiet_NaN();
            if (with_nan == 2) x[0] = std::numeric_limits<float>::quiet_NaN();
            float mx = x[0], mn = x[0];
            for (std::size_t i = 1; i < n; ++i) {
                mx = mx > x[i] ? mx : x[i];
                mn = mn < x[i] ? mn : x[i];
            }
            INFO("n " << n << " nan " << with_nan);
            CHECK(same(fast::reduce_f32(fast::Red::Max, x.data(), n), mx));
            CHECK(same(fast::reduce_f32(fast::Red::Min, x.data(), n), mn));
        }
        double exact = 0, mag = 0;
        float seq = a[0];
        for (std::size_t i = 0; i < n; ++i) {
            exact += a[i];
            mag += std::fabs(a[i]);
            if (i) seq += a[i];
        }
        const float s = fast::reduce_f32(fast::Red::Sum, a.data(), n);
        const double bound = static_cast<double>(n) * std::numeric_limits<float>::epsilon() * mag;
        CHECK(std::fabs(s - exact) <= bound);
        CHECK(std::fabs(seq - exact) <= bound);
    }
}

TEST_CASE("f16 / bf16 widening is exact for every bit pattern", "[simd]") {
    std::vector<uint16_t> all(65536);
    for (uint32_t i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
    std::vector<float> h(65536), b(65536);
    fast::widen_f16(h.data(), all.data(), all.size());
    fast::widen_bf16(b.data(), all.data(), all.size());
    for (uint32_t i = 0; i < 65536; ++i) {
        INFO("bits " << i);
        CHECK(same(h[i], pto::fp::f16_to_f32(static_cast<uint16_t>(i))));
        CHECK(same(b[i], pto::fp::bf16_to_f32(static_cast<uint16_t>(i))));
    }
}

TEST_CASE("gemm: sgemm path against a double-precision product (plain, accumulate, strided)", "[simd][cube]") {
    const int M = 37, N = 45, K = 70, lda = 72, ldb = 48, ldc = 50;
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> A(static_cast<std::size_t>(M) * lda), B(static_cast<std::size_t>(K) * ldb);
    for (auto& v : A) v = u(rng);
    for (auto& v : B) v = u(rng);
    std::vector<uint16_t> Ah(A.size()), Bh(B.size()), Ab(A.size()), Bb(B.size());
    for (std::size_t i = 0; i < A.size(); ++i) {
        Ah[i] = half(A[i]).bits;
        Ab[i] = bfloat16_t(A[i]).bits;
    }
    for (std::size_t i = 0; i < B.size(); ++i) {
        Bh[i] = half(B[i]).bits;
        Bb[i] = bfloat16_t(B[i]).bits;
    }
    auto check = [&](const char* what, auto av, auto bv, const std::vector<float>& c, const std::vector<float>& c0) {
        INFO(what);
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
                double r = c0.empty() ? 0.0 : c0[static_cast<std::size_t>(i) * ldc + j];
                for (int k = 0; k < K; ++k) r += static_cast<double>(av(i * lda + k)) * bv(k * ldb + j);
                REQUIRE(std::fabs(c[static_cast<std::size_t>(i) * ldc + j] - r) <= 1e-5 * K);
            }
    };
    const std::vector<float> none;
    std::vector<float> C(static_cast<std::size_t>(M) * ldc, std::numeric_limits<float>::quiet_NaN());
    fast::gemm_f32(M, N, K, A.data(), lda, B.data(), ldb, C.data(), ldc, false);  // NaN in C is overwritten
    check("f32", [&](int i) { return A[i]; }, [&](int i) { return B[i]; }, C, none);
    std::vector<float> C0(C.size());
    for (auto& v : C0) v = u(rng);
    C = C0;
    fast::gemm_f32(M, N, K, A.data(), lda, B.data(), ldb, C.data(), ldc, true);
    check("f32 accumulate", [&](int i) { return A[i]; }, [&](int i) { return B[i]; }, C, C0);
    fast::gemm_f16(M, N, K, Ah.data(), lda, Bh.data(), ldb, C.data(), ldc, false);
    check("f16", [&](int i) { return pto::fp::f16_to_f32(Ah[i]); }, [&](int i) { return pto::fp::f16_to_f32(Bh[i]); },
          C, none);
    C = C0;
    fast::gemm_bf16(M, N, K, Ab.data(), lda, Bb.data(), ldb, C.data(), ldc, true);
    check("bf16 accumulate", [&](int i) { return pto::fp::bf16_to_f32(Ab[i]); },
          [&](int i) { return pto::fp::bf16_to_f32(Bb[i]); }, C, C0);
}

namespace {
template <typename T, int R, int C>
using Vec = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512>;
}

TEST_CASE("FP32 instructions on a partial valid region touch only that region", "[simd][vector]") {
    Vec<float, 4, 64> a(3, 37), b(3, 37), d(3, 37);
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x400);
    TASSIGN(d, 0x800);
    for (int i = 0; i < 4 * 64; ++i) {
        a.data()[i] = 0.25f * static_cast<float>(i % 19) - 2.0f;
        b.data()[i] = 0.5f * static_cast<float>(i % 7) + 1.0f;
        d.data()[i] = -99.0f;
    }
    auto untouched = [&] {
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 64; ++c)
                if (r >= 3 || c >= 37) REQUIRE(d.at(r, c) == -99.0f);
    };
    TADD(d, a, b);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 37; ++c) CHECK(d.at(r, c) == a.at(r, c) + b.at(r, c));
    untouched();
    TEXP(d, a);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 37; ++c) CHECK(ulps(d.at(r, c), std::exp(a.at(r, c))) <= 1);
    untouched();
    TDIVS(d, 2.0f, b);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 37; ++c) CHECK(d.at(r, c) == 2.0f / b.at(r, c));
    untouched();
}
