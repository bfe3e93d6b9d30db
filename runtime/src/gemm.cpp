// pypto CPU runtime: the matrix multiply behind TMATMUL / TMATMUL_ACC / TMATMUL_BIAS / TGEMV for
// floating-point tiles (pto_sim_fast.hpp), on OpenBLAS's sgemm.
//
// Why OpenBLAS: it is Debian's BLAS with run-time kernel selection (DYNAMIC_ARCH: Haswell,
// SkylakeX, Cooper Lake ... chosen when the library loads), so the prebuilt runtime carries no
// -march; on this machine one thread reaches 26-71 GFLOP/s on 128x128x{64,128} tiles, against
// 0.3 GFLOP/s for the element loop it replaced.
//
// It is loaded on the first TMATMUL (dlopen of libopenblas.so.0, Debian libopenblas0) with
// OPENBLAS_NUM_THREADS=1, which the executor sets before it starts its workers (prepare()): the
// executor already runs one task per worker thread, and a linked OpenBLAS would start its own
// thread pool before main(), whose idle threads spin in sched_yield for the first ~0.1 s of
// every run. Where OpenBLAS is not installed, a plain loop computes the
// same product (a note on stderr says so once).
// FP16 / BF16 operands are widened exactly to FP32 once per call into per-thread buffers; the
// products accumulate in FP32, as the cube unit's do (in OpenBLAS's blocked k order).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "pto/pto_sim_fast.hpp"

namespace pto::sim::fast {
namespace {

// The CBLAS interface (its enums are ints: CblasRowMajor = 101, CblasNoTrans = 111).
using SgemmFn = void (*)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float* a,
                         int lda, const float* b, int ldb, float beta, float* c, int ldc);
constexpr int kRowMajor = 101, kNoTrans = 111;

SgemmFn sgemm() {
    static SgemmFn fn = [] {
        void* lib = dlopen("libopenblas.so.0", RTLD_LAZY | RTLD_LOCAL);
        if (!lib) lib = dlopen("libopenblas.so", RTLD_LAZY | RTLD_LOCAL);
        SgemmFn f = lib ? reinterpret_cast<SgemmFn>(dlsym(lib, "cblas_sgemm")) : nullptr;
        if (!f)
            std::fprintf(stderr,
                         "pypto runtime: note: OpenBLAS (libopenblas.so.0, Debian libopenblas0) not found; TMATMUL "
                         "runs on a plain loop\n");
        return f;
    }();
    return fn;
}

void plain_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                bool accumulate) {
    for (int i = 0; i < M; ++i) {
        float* c = C + static_cast<std::size_t>(i) * ldc;
        if (!accumulate)
            for (int j = 0; j < N; ++j) c[j] = 0.0f;
        for (int k = 0; k < K; ++k) {
            const float a = A[static_cast<std::size_t>(i) * lda + k];
            const float* b = B + static_cast<std::size_t>(k) * ldb;
            for (int j = 0; j < N; ++j) c[j] += a * b[j];
        }
    }
}

struct Widened {
    std::vector<float> a, b;
};
Widened& scratch() {
    thread_local Widened w;
    return w;
}

template <void (*Widen)(float*, const uint16_t*, std::size_t)>
void gemm_16(int M, int N, int K, const uint16_t* A, int lda, const uint16_t* B, int ldb, float* C, int ldc,
             bool accumulate) {
    if (M <= 0 || N <= 0) return;
    Widened& w = scratch();
    w.a.resize(static_cast<std::size_t>(M) * K);
    w.b.resize(static_cast<std::size_t>(K) * N);
    for (int i = 0; i < M; ++i) Widen(w.a.data() + static_cast<std::size_t>(i) * K, A + static_cast<std::size_t>(i) * lda, K);
    for (int k = 0; k < K; ++k) Widen(w.b.data() + static_cast<std::size_t>(k) * N, B + static_cast<std::size_t>(k) * ldb, N);
    gemm_f32(M, N, K, w.a.data(), K, w.b.data(), N, C, ldc, accumulate);
}

}  // namespace

void gemm_f32(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
              bool accumulate) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        if (!accumulate)
            for (int i = 0; i < M; ++i)
                for (int j = 0; j < N; ++j) C[static_cast<std::size_t>(i) * ldc + j] = 0.0f;
        return;
    }
    if (SgemmFn f = sgemm())
        f(kRowMajor, kNoTrans, kNoTrans, M, N, K, 1.0f, A, lda, B, ldb, accumulate ? 1.0f : 0.0f, C, ldc);
    else
        plain_gemm(M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

void gemm_f16(int M, int N, int K, const uint16_t* A, int lda, const uint16_t* B, int ldb, float* C, int ldc,
              bool accumulate) {
    gemm_16<widen_f16>(M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}
void gemm_bf16(int M, int N, int K, const uint16_t* A, int lda, const uint16_t* B, int ldb, float* C, int ldc,
               bool accumulate) {
    gemm_16<widen_bf16>(M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

void prepare() { setenv("OPENBLAS_NUM_THREADS", "1", 1); }

}  // namespace pto::sim::fast
