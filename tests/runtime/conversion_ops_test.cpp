// Tests of the CPU runtime where its numerics follow pto-isa's hardware rules rather than plain
// C++: TCVT's per-type default saturation, the low-bits result of a non-saturating float -> int
// conversion and float -> float rounding to integral values; FP16 recip / rsqrt / sqrt / div
// rounded once to the nearest half; the TSCATTER forms clearing their destination. Each against a
// plain loop written here.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <pto/pto-inst.hpp>

using namespace pto;

namespace {

struct ThrowOnFail {
    ThrowOnFail() { sim::fail_handler() = [](const std::string& m) { throw std::runtime_error(m); }; }
    ~ThrowOnFail() { sim::fail_handler() = nullptr; }
};

template <typename T, int R, int C>
using Vec = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512>;

// The binary16 value nearest to a positive normal-range y (ties to the even significand).
double nearest_half(double y) {
    const int e = static_cast<int>(std::floor(std::log2(y)));
    const double ulp = std::ldexp(1.0, e - 10);
    const double k = std::floor(y / ulp);
    const double lo = k * ulp, hi = lo + ulp;
    if (y - lo < hi - y) return lo;
    if (hi - y < y - lo) return hi;
    return std::fmod(k, 2.0) == 0.0 ? lo : hi;
}

}  // namespace

TEST_CASE("TCVT without a saturation operand uses pto-isa's per-type default", "[cvt]") {
    ThrowOnFail guard;
    Vec<float, 1, 8> f(1, 8);
    Vec<half, 1, 16> h(1, 8);
    Vec<int16_t, 1, 16> i16(1, 8);
    Vec<int32_t, 1, 8> i32(1, 8);
    Vec<int8_t, 1, 32> i8(1, 8);
    TASSIGN(f, 0);
    TASSIGN(h, 256);
    TASSIGN(i16, 512);
    TASSIGN(i32, 768);
    TASSIGN(i8, 1024);
    const float in[8] = {40000.5f, -40000.5f, 70000.0f, 3e9f, -3e9f, 1.5f, -2.5f, 300.0f};
    for (int i = 0; i < 8; ++i) f.SetValue(i, in[i]);

    // float -> int16 is one of the narrowing pairs: OFF, the low 16 bits of the rounded value.
    TCVT(i16, f, RoundMode::CAST_RINT);
    for (int i = 0; i < 8; ++i) {
        const auto want = static_cast<int16_t>(static_cast<uint16_t>(static_cast<int64_t>(std::nearbyint(in[i])) & 0xffff));
        INFO("i=" << i);
        CHECK(i16.GetValue(i) == want);
    }
    // Naming ON saturates instead.
    TCVT(i16, f, RoundMode::CAST_RINT, SaturationMode::ON);
    CHECK(i16.GetValue(0) == 32767);
    CHECK(i16.GetValue(1) == -32768);
    // float -> int32 defaults to ON: out-of-range values clamp.
    TCVT(i32, f, RoundMode::CAST_TRUNC);
    const int32_t want32[8] = {40000, -40000, 70000, INT32_MAX, INT32_MIN, 1, -2, 300};
    for (int i = 0; i < 8; ++i) CHECK(i32.GetValue(i) == want32[i]);
    // float -> half defaults to ON: overflow gives the largest finite half, not infinity.
    TCVT(h, f, RoundMode::CAST_RINT);
    CHECK(static_cast<float>(h.GetValue(2)) == 65504.0f);
    CHECK(static_cast<float>(h.GetValue(4)) == -65504.0f);
    // half -> int8 is narrowing (OFF): 300 keeps its low byte (44), -2.5 rounds to -2.
    TCVT(h, f, RoundMode::CAST_RINT, SaturationMode::OFF);
    TCVT(i8, h, RoundMode::CAST_RINT);
    CHECK(i8.GetValue(7) == 44);
    CHECK(i8.GetValue(6) == -2);
    CHECK(i8.GetValue(5) == 2);
    // int32 -> int16 is narrowing (OFF): wraps.
    i32.SetValue(0, 70000);
    TCVT(i16, i32, RoundMode::CAST_NONE);
    CHECK(i16.GetValue(0) == static_cast<int16_t>(70000 - 65536));
}

TEST_CASE("TCVT float -> float rounds to an integral value in the round mode", "[cvt]") {
    // The NPU's same-type conversion (vconv_f322f32r/a/f/c/z, vtrc on 950).
    ThrowOnFail guard;
    Vec<float, 1, 8> src(1, 8), dst(1, 8);
    TASSIGN(src, 0);
    TASSIGN(dst, 64);
    const float in[8] = {2.5f, -2.5f, 3.5f, 0.75f, -0.75f, 1e9f + 64.0f, -7.25f, 0.0f};
    for (int i = 0; i < 8; ++i) src.SetValue(i, in[i]);
    struct Mode { RoundMode m; float (*ref)(float); };
    const Mode modes[] = {{RoundMode::CAST_RINT, [](float v) { return std::nearbyint(v); }},
                          {RoundMode::CAST_ROUND, [](float v) { return std::round(v); }},
                          {RoundMode::CAST_FLOOR, [](float v) { return std::floor(v); }},
                          {RoundMode::CAST_CEIL, [](float v) { return std::ceil(v); }},
                          {RoundMode::CAST_TRUNC, [](float v) { return std::trunc(v); }}};
    for (const auto& [m, ref] : modes) {
        TCVT(dst, src, m);
        for (int i = 0; i < 8; ++i) {
            INFO("mode " << static_cast<int>(m) << " i=" << i);
            CHECK(dst.GetValue(i) == ref(in[i]));
        }
    }
}

TEST_CASE("FP16 recip, rsqrt, sqrt and div round once to the nearest half", "[vector][fp16]") {
    ThrowOnFail guard;
    constexpr int R = 16, C = 64;
    Vec<half, R, C> a(R, C), b(R, C), d(R, C);
    TASSIGN(a, 0);
    TASSIGN(b, R * C * 2);
    TASSIGN(d, 2 * R * C * 2);
    // Every half in [0.5, 8): 3 binades of 1024 values, strided over the tile.
    for (int i = 0; i < R * C; ++i) {
        a.SetValue(i, half::from_bits(static_cast<uint16_t>(0x3800 + (i * 3) % 3072)));
        b.SetValue(i, half::from_bits(static_cast<uint16_t>(0x3800 + (i * 7 + 11) % 3072)));
    }
    auto check = [&](const char* name, auto ref) {
        for (int i = 0; i < R * C; ++i) {
            const double x = static_cast<float>(a.GetValue(i)), y = static_cast<float>(b.GetValue(i));
            INFO(name << " i=" << i << " x=" << x << " y=" << y);
            CHECK(static_cast<double>(static_cast<float>(d.GetValue(i))) == nearest_half(ref(x, y)));
        }
    };
    TRECIP(d, a);
    check("TRECIP", [](double x, double) { return 1.0 / x; });
    TRSQRT(d, a);
    check("TRSQRT", [](double x, double) { return 1.0 / std::sqrt(x); });
    TRSQRT(d, a, b);  // the high-precision form (scratch tile): same value
    check("TRSQRT tmp", [](double x, double) { return 1.0 / std::sqrt(x); });
    TSQRT(d, a);
    check("TSQRT", [](double x, double) { return std::sqrt(x); });
    TDIV(d, a, b);
    check("TDIV", [](double x, double y) { return x / y; });
}

TEST_CASE("index-form TSCATTER clears the destination before writing", "[vector][layout]") {
    ThrowOnFail guard;
    Vec<float, 4, 16> dst(4, 16);
    Vec<float, 4, 8> src(4, 8);
    Vec<int32_t, 4, 8> idx(4, 8);
    TASSIGN(dst, 0);
    TASSIGN(src, 256);
    TASSIGN(idx, 512);
    for (int i = 0; i < 64; ++i) dst.SetValue(i, 99.0f);
    for (int r = 0; r < 4; ++r)
        for (int k = 0; k < 8; ++k) {
            src.SetValue(r * 8 + k, static_cast<float>(r * 100 + k));
            idx.SetValue(r * 8 + k, r * 16 + (k * 5) % 16);
        }
    TSCATTER(dst, src, idx);
    float want[64] = {};
    for (int r = 0; r < 4; ++r)
        for (int k = 0; k < 8; ++k) want[r * 16 + (k * 5) % 16] = static_cast<float>(r * 100 + k);
    for (int i = 0; i < 64; ++i) {
        INFO("i=" << i);
        CHECK(dst.GetValue(i) == want[i]);
    }
    // The mask form clears the whole tile as well, also outside its valid region.
    Vec<float, 4, 16> m(2, 16);
    TASSIGN(m, 768);
    for (int i = 0; i < 64; ++i) m.SetValue(i, 7.0f);
    TSCATTER<MaskPattern::P0101>(m, src);
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 16; ++c) CHECK(m.GetValue(r * 16 + c) == (r < 2 && c % 2 == 0 ? src.GetValue(r * 8 + c / 2) : 0.0f));
}
