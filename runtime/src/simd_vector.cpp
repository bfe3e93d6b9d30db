// pypto CPU runtime: the SIMD kernels behind the FP32 vector instructions (pto_sim_fast.hpp) —
// elementwise binary / scalar / unary ops, row reductions and the exact f16 / bf16 widening the
// GEMM path uses. Written once with Highway; foreach_target compiles this file for every x86
// target we dispatch to (SSE4, AVX2, AVX-512, and the baseline) and level() picks the best one
// the running CPU supports, so the prebuilt library carries no -march and runs on any x86-64.
//
// Semantics match the element loops of pto_ops_vector.hpp lane for lane (see the header), with
// two documented exceptions: Exp uses Highway's polynomial (lanes outside [-87, 88] and NaNs take
// std::exp's value, so overflow, denormal results and NaN behave as before), and Sum adds in
// lane-parallel order. A tail shorter than one vector runs through the same vector code on a
// padded copy, so a row's result does not depend on where it ends.

// The x86 targets dispatched below (the others Highway knows would only add code size).
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_AVX3_DL | HWY_SSSE3)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/src/simd_vector.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include <cmath>
#include <cstring>

#include "pto/pto_sim_fast.hpp"

HWY_BEFORE_NAMESPACE();
namespace pto::sim::fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;
constexpr std::size_t kBuf = 64;  // scratch lanes: more than any x86 vector holds

// Apply `body(v...)` -> vector to whole vectors of the inputs and to a zero-padded tail.
template <typename Body>
HWY_INLINE void for_vectors(float* d, const float* a, const float* b, std::size_t n, Body body) {
    const DF df;
    const std::size_t L = hn::Lanes(df);
    std::size_t i = 0;
    for (; i + L <= n; i += L) hn::StoreU(body(hn::LoadU(df, a + i), b ? hn::LoadU(df, b + i) : hn::Zero(df)), df, d + i);
    if (i == n) return;
    HWY_ALIGN float ta[kBuf] = {}, tb[kBuf] = {}, td[kBuf];
    std::memcpy(ta, a + i, (n - i) * sizeof(float));
    if (b) std::memcpy(tb, b + i, (n - i) * sizeof(float));
    hn::Store(body(hn::Load(df, ta), hn::Load(df, tb)), df, td);
    std::memcpy(d + i, td, (n - i) * sizeof(float));
}

// The element loops' comparisons, not the ISA's min / max (whose NaN and signed-zero choices
// differ between targets): max = a > b ? a : b, min = a < b ? a : b.
HWY_INLINE VF max_of(VF a, VF b) { return hn::IfThenElse(hn::Gt(a, b), a, b); }
HWY_INLINE VF min_of(VF a, VF b) { return hn::IfThenElse(hn::Lt(a, b), a, b); }

HWY_INLINE VF apply_bin(Bin op, VF a, VF b) {
    switch (op) {
        case Bin::Add: return hn::Add(a, b);
        case Bin::Sub: return hn::Sub(a, b);
        case Bin::Mul: return hn::Mul(a, b);
        case Bin::Div: return hn::Div(a, b);
        case Bin::Max: return max_of(a, b);
        case Bin::Min: return min_of(a, b);
    }
    return a;
}

void BinaryF32(Bin op, float* d, const float* a, const float* b, std::size_t n) {
    switch (op) {  // the switch outside the loop: one loop per op
#define PYPTO_BIN_CASE(OP) \
    case Bin::OP: for_vectors(d, a, b, n, [](VF x, VF y) { return apply_bin(Bin::OP, x, y); }); return;
        PYPTO_BIN_CASE(Add) PYPTO_BIN_CASE(Sub) PYPTO_BIN_CASE(Mul) PYPTO_BIN_CASE(Div) PYPTO_BIN_CASE(Max)
        PYPTO_BIN_CASE(Min)
#undef PYPTO_BIN_CASE
    }
}

void ScalarF32(Bin op, float* d, const float* a, float s, std::size_t n, bool scalar_first) {
    const DF df;
    const VF vs = hn::Set(df, s);
    switch (op) {
#define PYPTO_SCALAR_CASE(OP)                                                                                  \
    case Bin::OP:                                                                                              \
        if (scalar_first) for_vectors(d, a, nullptr, n, [vs](VF x, VF) { return apply_bin(Bin::OP, vs, x); }); \
        else for_vectors(d, a, nullptr, n, [vs](VF x, VF) { return apply_bin(Bin::OP, x, vs); });             \
        return;
        PYPTO_SCALAR_CASE(Add) PYPTO_SCALAR_CASE(Sub) PYPTO_SCALAR_CASE(Mul) PYPTO_SCALAR_CASE(Div)
        PYPTO_SCALAR_CASE(Max) PYPTO_SCALAR_CASE(Min)
#undef PYPTO_SCALAR_CASE
    }
}

// Highway's Exp is documented for [-FLT_MAX, 104] with flushed denormals; lanes outside
// [-87, 88] (overflow, denormal or zero results) and NaN lanes take std::exp's value.
HWY_INLINE VF exp_of(VF x) {
    const DF df;
    VF r = hn::Exp(df, x);
    const auto odd = hn::Not(hn::And(hn::Ge(x, hn::Set(df, -87.0f)), hn::Le(x, hn::Set(df, 88.0f))));
    if (HWY_UNLIKELY(!hn::AllFalse(df, odd))) {
        HWY_ALIGN float xs[kBuf], rs[kBuf];
        hn::Store(x, df, xs);
        hn::Store(r, df, rs);
        for (std::size_t i = 0; i < hn::Lanes(df); ++i)
            if (!(xs[i] >= -87.0f && xs[i] <= 88.0f)) rs[i] = std::exp(xs[i]);
        r = hn::Load(df, rs);
    }
    return r;
}

void UnaryF32(Un op, float* d, const float* a, std::size_t n) {
    const DF df;
    const VF zero = hn::Zero(df), one = hn::Set(df, 1.0f);
    switch (op) {
        case Un::Exp: for_vectors(d, a, nullptr, n, [](VF x, VF) { return exp_of(x); }); return;
        case Un::Sqrt: for_vectors(d, a, nullptr, n, [](VF x, VF) { return hn::Sqrt(x); }); return;
        case Un::Recip: for_vectors(d, a, nullptr, n, [one](VF x, VF) { return hn::Div(one, x); }); return;
        case Un::Neg: for_vectors(d, a, nullptr, n, [](VF x, VF) { return hn::Neg(x); }); return;
        // a < 0 ? -a : a (keeps -0.0 and a NaN's sign, as the element loop does)
        case Un::Abs: for_vectors(d, a, nullptr, n, [zero](VF x, VF) { return hn::IfThenElse(hn::Lt(x, zero), hn::Neg(x), x); }); return;
        case Un::Relu: for_vectors(d, a, nullptr, n, [zero](VF x, VF) { return hn::IfThenElse(hn::Gt(x, zero), x, zero); }); return;
    }
}

float ReduceF32(Red op, const float* a, std::size_t n) {
    const DF df;
    const std::size_t L = hn::Lanes(df);
    if (op == Red::Sum) {
        VF s0 = hn::Zero(df), s1 = hn::Zero(df);
        std::size_t i = 0;
        for (; i + 2 * L <= n; i += 2 * L) {
            s0 = hn::Add(s0, hn::LoadU(df, a + i));
            s1 = hn::Add(s1, hn::LoadU(df, a + i + L));
        }
        for (; i + L <= n; i += L) s0 = hn::Add(s0, hn::LoadU(df, a + i));
        float s = hn::GetLane(hn::SumOfLanes(df, hn::Add(s0, s1)));
        for (; i < n; ++i) s += a[i];
        return s;
    }
    // max / min: order-free unless a NaN is present; then the sequential loop decides.
    const bool is_max = op == Red::Max;
    std::size_t i = 0;
    if (n >= L) {
        VF acc = hn::LoadU(df, a);
        auto nan = hn::IsNaN(acc);
        for (i = L; i + L <= n; i += L) {
            const VF x = hn::LoadU(df, a + i);
            nan = hn::Or(nan, hn::IsNaN(x));
            acc = is_max ? max_of(acc, x) : min_of(acc, x);
        }
        HWY_ALIGN float lanes[kBuf];
        hn::Store(acc, df, lanes);
        float r = lanes[0];
        for (std::size_t k = 1; k < L; ++k) r = is_max ? (r > lanes[k] ? r : lanes[k]) : (r < lanes[k] ? r : lanes[k]);
        bool tail_nan = false;
        for (std::size_t k = i; k < n; ++k) tail_nan |= a[k] != a[k];
        if (hn::AllFalse(df, nan) && !tail_nan) {
            for (; i < n; ++i) r = is_max ? (r > a[i] ? r : a[i]) : (r < a[i] ? r : a[i]);
            return r;
        }
    }
    float r = a[0];
    for (i = 1; i < n; ++i) r = is_max ? (r > a[i] ? r : a[i]) : (r < a[i] ? r : a[i]);
    return r;
}

template <typename T16>
HWY_INLINE void widen(float* d, const uint16_t* a, std::size_t n) {
    const DF df;
    const hn::Rebind<T16, DF> d16;
    const std::size_t L = hn::Lanes(df);
    std::size_t i = 0;
    for (; i + L <= n; i += L) hn::StoreU(hn::PromoteTo(df, hn::LoadU(d16, reinterpret_cast<const T16*>(a + i))), df, d + i);
    for (; i < n; ++i) {
        HWY_ALIGN T16 one[kBuf] = {};
        HWY_ALIGN float out[kBuf];
        std::memcpy(&one[0], a + i, sizeof(uint16_t));
        hn::Store(hn::PromoteTo(df, hn::Load(d16, one)), df, out);
        d[i] = out[0];
    }
}
void WidenF16(float* d, const uint16_t* a, std::size_t n) { widen<hwy::float16_t>(d, a, n); }
void WidenBF16(float* d, const uint16_t* a, std::size_t n) { widen<hwy::bfloat16_t>(d, a, n); }

}  // namespace HWY_NAMESPACE
}  // namespace pto::sim::fast
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
// Dispatch by hand (not HWY_DYNAMIC_DISPATCH): Highway's dispatcher lives in libhwy.so, whose
// static initialisers measure the timer resolution and add ~10 ms to every process that loads it
// -- every bin/run. The CPU is asked once (libgcc's __builtin_cpu_supports, which also checks
// that the OS saves the AVX / AVX-512 state), with the features Highway's target strings name.
namespace pto::sim::fast {
namespace {
enum class Level { Base, Sse4, Avx2, Avx3 };
Level level() {
    static const Level l = [] {
#if HWY_ARCH_X86 && (defined(__GNUC__) || defined(__clang__))
        __builtin_cpu_init();
        const bool sse4 = __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("sse4.1") &&
                          __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul") &&
                          __builtin_cpu_supports("aes");
        const bool avx2 = sse4 && __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") &&
                          __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
                          __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
        const bool avx3 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                          __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
        if (avx3 && (HWY_TARGETS & HWY_AVX3)) return Level::Avx3;
        if (avx2 && (HWY_TARGETS & HWY_AVX2)) return Level::Avx2;
        if (sse4 && (HWY_TARGETS & HWY_SSE4)) return Level::Sse4;
#endif
        return Level::Base;
    }();
    return l;
}
}  // namespace

#if HWY_TARGETS & HWY_AVX3
#define PYPTO_IF_AVX3(FN) if (l == Level::Avx3) return N_AVX3::FN
#else
#define PYPTO_IF_AVX3(FN)
#endif
#if HWY_TARGETS & HWY_AVX2
#define PYPTO_IF_AVX2(FN) if (l == Level::Avx2) return N_AVX2::FN
#else
#define PYPTO_IF_AVX2(FN)
#endif
#if HWY_TARGETS & HWY_SSE4
#define PYPTO_IF_SSE4(FN) if (l == Level::Sse4) return N_SSE4::FN
#else
#define PYPTO_IF_SSE4(FN)
#endif
#define PYPTO_DISPATCH(FN, ...)                 \
    do {                                        \
        const Level l = level();                \
        (void)l;                                \
        PYPTO_IF_AVX3(FN)(__VA_ARGS__);         \
        PYPTO_IF_AVX2(FN)(__VA_ARGS__);         \
        PYPTO_IF_SSE4(FN)(__VA_ARGS__);         \
        return HWY_STATIC_DISPATCH(FN)(__VA_ARGS__); \
    } while (0)

void binary_f32(Bin op, float* d, const float* a, const float* b, std::size_t n) {
    PYPTO_DISPATCH(BinaryF32, op, d, a, b, n);
}
void scalar_f32(Bin op, float* d, const float* a, float s, std::size_t n, bool scalar_first) {
    PYPTO_DISPATCH(ScalarF32, op, d, a, s, n, scalar_first);
}
void unary_f32(Un op, float* d, const float* a, std::size_t n) { PYPTO_DISPATCH(UnaryF32, op, d, a, n); }
float reduce_f32(Red op, const float* a, std::size_t n) { PYPTO_DISPATCH(ReduceF32, op, a, n); }
void widen_f16(float* d, const uint16_t* a, std::size_t n) { PYPTO_DISPATCH(WidenF16, d, a, n); }
void widen_bf16(float* d, const uint16_t* a, std::size_t n) { PYPTO_DISPATCH(WidenBF16, d, a, n); }

const char* simd_target() {
    switch (level()) {
        case Level::Avx3: return "AVX-512";
        case Level::Avx2: return "AVX2";
        case Level::Sse4: return "SSE4";
        case Level::Base: break;
    }
    return "baseline";
}
}  // namespace pto::sim::fast
#endif
