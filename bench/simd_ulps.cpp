// pypto_bench_simd_ulps — measures, in ulps, how far each tile instruction whose rounding the fast
// paths changed (pto_sim_fast.hpp) lies from the element loop it replaced, and prints one line
// per instruction (the figures the speed issue's closing note quotes):
//   TEXP (and TROWEXPANDEXPDIF)  every float in [-87, 88] (the SIMD range; outside it the
//                                 fast path calls std::exp itself): SIMD exp vs std::exp
//   TROWSUM / TCOLSUM-free rows  10,000 random rows of 16 / 128 / 512 FP32 in [-1, 1): lane-parallel
//                                 vs sequential sum
//   TMATMUL                      20 random 128 x 128 x 64 FP16 tiles: OpenBLAS sgemm vs the
//                                 k-order fma loop
// Not a test (tests/runtime/simd_paths_test.cpp asserts the bounds); run: bench/run.sh or directly.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <pto/pto_float.hpp>
#include <pto/pto_sim_fast.hpp>

namespace fast = pto::sim::fast;

namespace {

int64_t key(float f) {
    int32_t i;
    std::memcpy(&i, &f, 4);
    return i < 0 ? static_cast<int64_t>(INT32_MIN) - i : static_cast<int64_t>(i);
}
int64_t ulps(float a, float b) { return std::llabs(key(a) - key(b)); }

// ulps of each result; for sums also |difference| / (sum of |terms|) in units of FLT_EPSILON, the
// scale-free figure (a sum that cancels to near zero has few significant bits in either order).
struct Tally {
    int64_t worst = 0;
    double worst_rel = -1;
    uint64_t n = 0, differ = 0;
    void add(float a, float b, double mag = 0) {
        const int64_t u = ulps(a, b);
        worst = std::max(worst, u);
        if (mag > 0) worst_rel = std::max(worst_rel, std::fabs(static_cast<double>(a) - b) / mag / 1.1920929e-7);
        ++n;
        differ += u != 0;
    }
    void print(const char* what) const {
        std::printf("%-46s max %lld ulp", what, static_cast<long long>(worst));
        if (worst_rel >= 0) std::printf(" (max %.2f eps x sum|terms|)", worst_rel);
        std::printf(", %.2f %% of %llu results differ\n",
                    n ? 100.0 * static_cast<double>(differ) / static_cast<double>(n) : 0.0,
                    static_cast<unsigned long long>(n));
    }
};

}  // namespace

int main() {
    std::printf("SIMD target: %s\n", fast::simd_target());
    {  // exp: every float in [-87, 88]
        Tally t;
        std::vector<float> x, y;
        x.reserve(1 << 20);
        auto flush = [&] {
            y.resize(x.size());
            fast::unary_f32(fast::Un::Exp, y.data(), x.data(), x.size());
            for (std::size_t i = 0; i < x.size(); ++i) t.add(y[i], std::exp(x[i]));
            x.clear();
        };
        for (float v = -87.0f; v <= 88.0f; v = std::nextafter(v, 100.0f)) {
            x.push_back(v);
            if (x.size() == (1u << 20)) flush();
        }
        flush();
        t.print("TEXP / TROWEXPANDEXPDIF (vs std::exp)");
    }
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int cols : {16, 128, 512}) {
        Tally t;
        std::vector<float> row(static_cast<std::size_t>(cols));
        for (int r = 0; r < 10000; ++r) {
            for (float& v : row) v = u(rng);
            float seq = row[0];
            double mag = std::fabs(row[0]);
            for (int c = 1; c < cols; ++c) {
                seq += row[static_cast<std::size_t>(c)];
                mag += std::fabs(row[static_cast<std::size_t>(c)]);
            }
            t.add(fast::reduce_f32(fast::Red::Sum, row.data(), row.size()), seq, mag);
        }
        char what[64];
        std::snprintf(what, sizeof what, "TROWSUM, %d columns (vs sequential)", cols);
        t.print(what);
    }
    {
        const int M = 128, N = 128, K = 64;
        Tally t;
        std::vector<uint16_t> a(static_cast<std::size_t>(M) * K), b(static_cast<std::size_t>(K) * N);
        std::vector<float> c(static_cast<std::size_t>(M) * N);
        for (int rep = 0; rep < 20; ++rep) {
            for (auto& v : a) v = half(u(rng)).bits;
            for (auto& v : b) v = half(u(rng)).bits;
            fast::gemm_f16(M, N, K, a.data(), K, b.data(), N, c.data(), N, false);
            for (int i = 0; i < M; ++i)
                for (int j = 0; j < N; ++j) {
                    float s = 0;
                    double mag = 0;
                    for (int k = 0; k < K; ++k) {
                        const float x = pto::fp::f16_to_f32(a[static_cast<std::size_t>(i) * K + k]);
                        const float y = pto::fp::f16_to_f32(b[static_cast<std::size_t>(k) * N + j]);
                        s = std::fma(x, y, s);
                        mag += std::fabs(static_cast<double>(x) * y);
                    }
                    t.add(c[static_cast<std::size_t>(i) * N + j], s, mag);
                }
        }
        t.print("TMATMUL 128x128x64 FP16 (vs k-order fma loop)");
    }
    return 0;
}
