// pypto CPU runtime: the fast paths of the tile instructions, compiled once into the prebuilt
// runtime library (runtime/src/simd_vector.cpp: Highway kernels dispatched at run time to the
// best of SSE4 / AVX2 / AVX-512 this CPU has (simd_target()); runtime/src/gemm.cpp: OpenBLAS sgemm, loaded at run time). The
// instruction templates (pto_ops_vector.hpp, pto_ops_cube.hpp) call them for FP32 tiles and
// contiguous rows, and keep their element loops for everything else.
//
// Every function computes exactly what the element loop it replaces computes (IEEE add / sub /
// mul / div / sqrt, the same comparisons for max / min / abs / relu and the same NaN choice),
// except where the order or the approximation is the point, which the closing note of the speed
// issue measures in ulps against the element loop:
//   * exp: Highway's polynomial (<= 1 ulp by its documentation); out-of-range and NaN lanes take
//     std::exp's result;
//   * row sums: lane-parallel partial sums (a different summation order);
//   * gemm: OpenBLAS's blocked k order (fp32 accumulation, as before).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pto::sim::fast {

enum class Bin : int { Add, Sub, Mul, Div, Max, Min };
enum class Un : int { Exp, Sqrt, Recip, Neg, Abs, Relu };
enum class Red : int { Sum, Max, Min };

// d[i] = a[i] op b[i], i < n (d may be a or b).
void binary_f32(Bin op, float* d, const float* a, const float* b, std::size_t n);
// d[i] = a[i] op s (or s op a[i] with scalar_first), i < n.
void scalar_f32(Bin op, float* d, const float* a, float s, std::size_t n, bool scalar_first = false);
// d[i] = f(a[i]), i < n.
void unary_f32(Un op, float* d, const float* a, std::size_t n);
// The reduction of a[0..n) (n >= 1); max / min pick as the sequential loop `acc = acc > x ? acc : x`.
float reduce_f32(Red op, const float* a, std::size_t n);
// Exact widening of n binary16 / bfloat16 bit patterns to float.
void widen_f16(float* d, const uint16_t* a, std::size_t n);
void widen_bf16(float* d, const uint16_t* a, std::size_t n);

// C[M x N] (row stride ldc) = (accumulate ? C : 0) + A[M x K] (lda) * B[K x N] (ldb), all
// row-major FP32, accumulated in FP32.
void gemm_f32(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
              bool accumulate);
// The same with binary16 / bfloat16 operands (bit patterns), each widened once per call.
void gemm_f16(int M, int N, int K, const uint16_t* A, int lda, const uint16_t* B, int ldb, float* C, int ldc,
              bool accumulate);
void gemm_bf16(int M, int N, int K, const uint16_t* A, int lda, const uint16_t* B, int ldb, float* C, int ldc,
               bool accumulate);

// The SIMD target chosen for this CPU ("AVX-512", "AVX2", "SSE4", "baseline").
const char* simd_target();

// Called by the executor before it starts threads: OpenBLAS, loaded on the first gemm, is to run
// single-threaded (the executor's workers are the parallelism).
void prepare();

}  // namespace pto::sim::fast
