// pypto CPU runtime: the 16-bit floating-point element types `half` (IEEE binary16) and
// `bfloat16_t` (bfloat16), the 8-bit MX types `float8_e4m3_t` (OCP E4M3FN) and `float8_e8m0_t`
// (OCP E8M0 scale), plus the generic float -> narrow-format rounding used by TCVT.
//
// Both types are plain 16-bit structs with float conversions (g++ 12 / clang 14 have no usable
// C++ `_Float16` / `std::bfloat16_t`), so the numerics are identical on every compiler:
//   * float -> half / bf16 rounds to nearest, ties to even (RNE); NaN stays NaN (bf16 keeps the
//     sign and the top payload bits and forces the quiet bit); overflow gives +-inf.
//   * half / bf16 -> float is exact.
//   * Arithmetic on the types goes through float (implicit conversion); a result stored back
//     into a half / bf16 rounds once (RNE).
// The 8-bit types (the 950's MX matmul operands) are plain 8-bit structs too:
//   * float8_e4m3_t, E4M3FN: sign, 4 exponent bits (bias 7), 3 mantissa bits; subnormals m/8 * 2^-6;
//     no infinities; S.1111.111 is NaN; max 448. float / double -> E4M3 rounds to nearest even
//     (once, from the double); a magnitude that rounds above 448, +-inf and NaN give NaN with the
//     input's sign (0x7F / 0xFF), as OCP's non-saturating conversion does.
//   * float8_e8m0_t, E8M0: an unsigned biased exponent, value 2^(e-127); e = 255 is NaN, e = 0 is
//     2^-127. x -> E8M0 takes x's binary exponent, floor(log2 x), with no rounding (for a float,
//     its exponent field): x <= 0, NaN and inf give 255 (NaN), x below 2^-126 (a float
//     subnormal) gives 0, x >= 2^128 (double) gives 255.
//   Both convert to float exactly; FromRaw / RawData are the names pto-isa's CPU model uses.
// These names live in the global namespace, as in pto-isa (kernels write `half`, `bfloat16_t`,
// `float8_e4m3_t`, `float8_e8m0_t`).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace pto::fp {

inline uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
inline float bits_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// float -> binary16 bits, round to nearest even.
inline uint16_t f32_to_f16_rne(float f) {
    const uint32_t x = float_bits(f);
    const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    const uint32_t a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) {  // inf or NaN
        if (a == 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u);
        return static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x03ffu));
    }
    const int e = static_cast<int>(a >> 23) - 127;  // unbiased exponent
    if (e > 15) return static_cast<uint16_t>(sign | 0x7c00u);
    if (e >= -14) {  // normal half (may round up into the next binade or to inf)
        const uint32_t mant = a & 0x7fffffu;
        uint32_t h = (static_cast<uint32_t>(e + 15) << 10) | (mant >> 13);
        const uint32_t rem = mant & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
        return static_cast<uint16_t>(sign | h);
    }
    if (e < -25) return sign;  // below half the smallest subnormal: rounds to zero
    // subnormal half: value = m * 2^-24
    const uint32_t mant = (a & 0x7fffffu) | 0x800000u;
    const int s = -e - 1;  // 14 .. 24
    uint32_t h = mant >> s;
    const uint32_t rem = mant & ((1u << s) - 1u);
    const uint32_t halfway = 1u << (s - 1);
    if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
}

inline float f16_to_f32(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        if (mant == 0) return bits_float(sign);
        const float v = std::ldexp(static_cast<float>(mant), -24);
        return sign ? -v : v;
    }
    if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13));
    return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

// float -> bfloat16 bits, round to nearest even; NaN keeps sign + top payload, quiet bit set.
inline uint16_t f32_to_bf16_rne(float f) {
    const uint32_t x = float_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u);
    const uint32_t rounded = x + 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(rounded >> 16);
}

inline float bf16_to_f32(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

// double -> E4M3FN bits, round to nearest even; out of range, inf and NaN -> NaN (sign kept).
inline uint8_t f64_to_e4m3fn_rne(double v) {
    const uint8_t sign = std::signbit(v) ? 0x80u : 0x00u;
    if (std::isnan(v) || std::isinf(v)) return static_cast<uint8_t>(sign | 0x7Fu);
    const double a = std::fabs(v);
    if (a == 0.0) return sign;
    int ex = 0;
    (void)std::frexp(a, &ex);
    int e = ex - 1;  // a in [2^e, 2^(e+1))
    if (e < -6) e = -6;  // subnormal range: quantum 2^-9
    const double scaled = std::ldexp(a, 3 - e);  // [8, 16) for a normal, [0, 8) below 2^-6
    const double ip = std::floor(scaled);
    const double frac = scaled - ip;
    uint32_t m = static_cast<uint32_t>(ip);
    if (frac > 0.5 || (frac == 0.5 && (m & 1u))) ++m;
    if (m >= 16u) {  // carried into the next binade
        m >>= 1;
        ++e;
    }
    if (m < 8u) return static_cast<uint8_t>(sign | m);  // subnormal (e == -6)
    const int exp_field = e + 7;
    const uint32_t mant = m - 8u;
    if (exp_field > 15 || (exp_field == 15 && mant == 7u)) return static_cast<uint8_t>(sign | 0x7Fu);  // > 448
    return static_cast<uint8_t>(sign | (static_cast<uint32_t>(exp_field) << 3) | mant);
}

inline float e4m3fn_to_f32(uint8_t b) {
    const uint32_t exp = (b >> 3) & 0xFu, mant = b & 0x7u;
    float v;
    if (exp == 15u && mant == 7u) v = std::numeric_limits<float>::quiet_NaN();
    else if (exp == 0u) v = std::ldexp(static_cast<float>(mant), -9);
    else v = std::ldexp(static_cast<float>(8u + mant), static_cast<int>(exp) - 10);
    return (b & 0x80u) ? -v : v;
}

// double -> E8M0 code: floor(log2 x) + 127 for x in [2^-126, 2^128); below: 0; x <= 0, NaN,
// inf, x >= 2^128: 255 (NaN).
inline uint8_t f64_to_e8m0(double v) {
    if (!(v > 0.0) || std::isinf(v)) return 0xFFu;
    int ex = 0;
    (void)std::frexp(v, &ex);
    const int e = ex - 1;  // floor(log2 v)
    if (e < -126) return 0u;
    if (e > 127) return 0xFFu;
    return static_cast<uint8_t>(e + 127);
}

// float -> E8M0 code: the float's exponent field (0 for a subnormal); x <= 0, NaN, inf: 255.
inline uint8_t f32_to_e8m0(float f) {
    const uint32_t x = float_bits(f);
    if ((x & 0x80000000u) || x == 0u || (x & 0x7f800000u) == 0x7f800000u) return 0xFFu;
    return static_cast<uint8_t>(x >> 23);
}

inline float e8m0_to_f32(uint8_t b) {
    if (b == 0xFFu) return std::numeric_limits<float>::quiet_NaN();
    return std::ldexp(1.0f, static_cast<int>(b) - 127);
}

}  // namespace pto::fp

struct half {
    uint16_t bits = 0;
    half() = default;
    half(float f) : bits(pto::fp::f32_to_f16_rne(f)) {}
    half(double d) : half(static_cast<float>(d)) {}
    half(int i) : half(static_cast<float>(i)) {}
    half(long i) : half(static_cast<float>(i)) {}
    half(long long i) : half(static_cast<float>(i)) {}
    half(unsigned i) : half(static_cast<float>(i)) {}
    operator float() const { return pto::fp::f16_to_f32(bits); }
    static half from_bits(uint16_t b) {
        half h;
        h.bits = b;
        return h;
    }
    half& operator+=(float o) { return *this = half(float(*this) + o); }
    half& operator-=(float o) { return *this = half(float(*this) - o); }
    half& operator*=(float o) { return *this = half(float(*this) * o); }
    half& operator/=(float o) { return *this = half(float(*this) / o); }
};

struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    bfloat16_t(float f) : bits(pto::fp::f32_to_bf16_rne(f)) {}
    bfloat16_t(double d) : bfloat16_t(static_cast<float>(d)) {}
    bfloat16_t(int i) : bfloat16_t(static_cast<float>(i)) {}
    bfloat16_t(long i) : bfloat16_t(static_cast<float>(i)) {}
    bfloat16_t(long long i) : bfloat16_t(static_cast<float>(i)) {}
    bfloat16_t(unsigned i) : bfloat16_t(static_cast<float>(i)) {}
    operator float() const { return pto::fp::bf16_to_f32(bits); }
    static bfloat16_t from_bits(uint16_t b) {
        bfloat16_t h;
        h.bits = b;
        return h;
    }
    bfloat16_t& operator+=(float o) { return *this = bfloat16_t(float(*this) + o); }
    bfloat16_t& operator-=(float o) { return *this = bfloat16_t(float(*this) - o); }
    bfloat16_t& operator*=(float o) { return *this = bfloat16_t(float(*this) * o); }
    bfloat16_t& operator/=(float o) { return *this = bfloat16_t(float(*this) / o); }
};

struct float8_e4m3_t {
    uint8_t bits = 0;
    float8_e4m3_t() = default;
    float8_e4m3_t(float f) : bits(pto::fp::f64_to_e4m3fn_rne(f)) {}
    float8_e4m3_t(double d) : bits(pto::fp::f64_to_e4m3fn_rne(d)) {}
    float8_e4m3_t(int i) : float8_e4m3_t(static_cast<double>(i)) {}
    float8_e4m3_t(long i) : float8_e4m3_t(static_cast<double>(i)) {}
    float8_e4m3_t(long long i) : float8_e4m3_t(static_cast<double>(i)) {}
    float8_e4m3_t(unsigned i) : float8_e4m3_t(static_cast<double>(i)) {}
    operator float() const { return pto::fp::e4m3fn_to_f32(bits); }
    static float8_e4m3_t from_bits(uint8_t b) {
        float8_e4m3_t v;
        v.bits = b;
        return v;
    }
    static float8_e4m3_t FromRaw(uint8_t b) { return from_bits(b); }
    uint8_t RawData() const { return bits; }
};

struct float8_e8m0_t {
    uint8_t bits = 0;
    float8_e8m0_t() = default;
    float8_e8m0_t(float f) : bits(pto::fp::f32_to_e8m0(f)) {}
    float8_e8m0_t(double d) : bits(pto::fp::f64_to_e8m0(d)) {}
    float8_e8m0_t(int i) : float8_e8m0_t(static_cast<double>(i)) {}
    float8_e8m0_t(long i) : float8_e8m0_t(static_cast<double>(i)) {}
    float8_e8m0_t(long long i) : float8_e8m0_t(static_cast<double>(i)) {}
    float8_e8m0_t(unsigned i) : float8_e8m0_t(static_cast<double>(i)) {}
    operator float() const { return pto::fp::e8m0_to_f32(bits); }
    static float8_e8m0_t from_bits(uint8_t b) {
        float8_e8m0_t v;
        v.bits = b;
        return v;
    }
    static float8_e8m0_t FromRaw(uint8_t b) { return from_bits(b); }
    uint8_t RawData() const { return bits; }
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16_t) == 2, "16-bit float types must be 2 bytes");
static_assert(sizeof(float8_e4m3_t) == 1 && sizeof(float8_e8m0_t) == 1, "8-bit float types must be 1 byte");
