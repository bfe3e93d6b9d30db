// pypto CPU runtime: the 16-bit floating-point element types `half` (IEEE binary16) and
// `bfloat16_t` (bfloat16), plus the generic float -> narrow-format rounding used by TCVT.
//
// Both types are plain 16-bit structs with float conversions (g++ 12 / clang 14 have no usable
// C++ `_Float16` / `std::bfloat16_t`), so the numerics are identical on every compiler:
//   * float -> half / bf16 rounds to nearest, ties to even (RNE); NaN stays NaN (bf16 keeps the
//     sign and the top payload bits and forces the quiet bit); overflow gives +-inf.
//   * half / bf16 -> float is exact.
//   * Arithmetic on the types goes through float (implicit conversion); a result stored back
//     into a half / bf16 rounds once (RNE).
// These names live in the global namespace, as in pto-isa (kernels write `half`, `bfloat16_t`).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

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

static_assert(sizeof(half) == 2 && sizeof(bfloat16_t) == 2, "16-bit float types must be 2 bytes");
