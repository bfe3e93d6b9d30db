// Tests of the CPU runtime's integer / bitwise / remainder / carry ops, arg reductions,
// compare-select (packed masks), layout / gather / scatter / fill / part ops, TRANDOM and the sort
// instructions — each against a plain reference loop written here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <pto/pto-inst.hpp>

using namespace pto;

namespace {

struct ThrowOnFail {
    ThrowOnFail() { sim::fail_handler() = [](const std::string& m) { throw std::runtime_error(m); }; }
    ~ThrowOnFail() { sim::fail_handler() = nullptr; }
};

template <typename T, int R, int C, PadValue P = PadValue::Null>
using Vec = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512, P>;

// Deterministic pseudo-random 32-bit values.
uint32_t rnd(uint32_t i) {
    uint32_t x = i * 2654435761u + 0x9e3779b9u;
    x ^= x >> 15;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    return x;
}
float frnd(uint32_t i) { return static_cast<float>(static_cast<int32_t>(rnd(i) % 2001) - 1000) / 100.0f; }

template <typename TileT>
void fill(TileT& t, uint32_t salt) {
    using T = typename TileT::DType;
    for (int i = 0; i < TileT::Numel; ++i) {
        if constexpr (is_float_like_v<T>) t.SetValue(i, T(frnd(i + salt)));
        else t.SetValue(i, static_cast<T>(rnd(i + salt)));
    }
}

// Python-style remainder, written as the textbook formula.
template <typename T>
T py_rem(T a, T b) {
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
}

}  // namespace

TEMPLATE_TEST_CASE("integer bitwise, shift, remainder and carry ops", "[vector][int]", int32_t, int16_t, int8_t,
                   uint32_t, uint16_t) {
    using T = TestType;
    constexpr int R = 4, C = 64;
    constexpr int Bytes = R * C * sizeof(T);
    ThrowOnFail guard;
    Vec<T, R, C> a(R, 48), b(R, 48), c(R, 48), d(R, 48), sh(R, 48), tmp(R, 48);
    TASSIGN(a, 0);
    TASSIGN(b, Bytes);
    TASSIGN(c, 2 * Bytes);
    TASSIGN(d, 3 * Bytes);
    TASSIGN(sh, 4 * Bytes);
    TASSIGN(tmp, 5 * Bytes);
    fill(a, 1);
    fill(b, 1000);
    fill(c, 2000);
    for (int i = 0; i < R * C; ++i) {
        sh.SetValue(i, static_cast<T>(rnd(i + 77) % (8 * sizeof(T))));
        if (b.GetValue(i) == 0) b.SetValue(i, T(3));
    }
    const T sentinel = T(0x5a);
    auto run = [&](const char* name, auto op, auto ref) {
        for (int i = 0; i < R * C; ++i) d.SetValue(i, sentinel);
        op();
        for (int r = 0; r < R; ++r)
            for (int k = 0; k < C; ++k) {
                const int i = r * C + k;
                INFO(name << " r=" << r << " c=" << k << " a=" << +a.GetValue(i) << " b=" << +b.GetValue(i));
                if (k < 48) CHECK(d.GetValue(i) == static_cast<T>(ref(a.GetValue(i), b.GetValue(i), c.GetValue(i),
                                                                     sh.GetValue(i))));
                else CHECK(d.GetValue(i) == sentinel);  // outside the valid region: untouched
            }
    };
    using P = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    run("TXOR", [&] { TXOR(d, a, b, tmp); }, [](T x, T y, T, T) { return x ^ y; });
    run("TSHL", [&] { TSHL(d, a, sh); }, [](T x, T, T, T s) { return static_cast<T>(static_cast<uint64_t>(x) << s); });
    run("TSHR", [&] { TSHR(d, a, sh); }, [](T x, T, T, T s) { return static_cast<T>(static_cast<P>(x) >> s); });
    run("TREM", [&] { TREM(d, a, b, tmp); }, [](T x, T y, T, T) { return py_rem<P>(x, y); });
    run("TFMOD", [&] { TFMOD(d, a, b); }, [](T x, T y, T, T) { return static_cast<T>(static_cast<P>(x) % static_cast<P>(y)); });
    run("TADDC", [&] { TADDC(d, a, b, c); }, [](T x, T y, T z, T) { return static_cast<T>(P(x) + P(y) + P(z)); });
    run("TSUBC", [&] { TSUBC(d, a, b, c); }, [](T x, T y, T z, T) { return static_cast<T>(P(x) - P(y) + P(z)); });
    const T s = T(5), m = T(0x3c);
    run("TANDS", [&] { TANDS(d, a, m); }, [&](T x, T, T, T) { return x & m; });
    run("TORS", [&] { TORS(d, a, m); }, [&](T x, T, T, T) { return x | m; });
    run("TXORS", [&] { TXORS(d, a, m, tmp); }, [&](T x, T, T, T) { return x ^ m; });
    run("TSHLS", [&] { TSHLS(d, a, T(3)); }, [](T x, T, T, T) { return static_cast<T>(static_cast<uint64_t>(x) << 3); });
    run("TSHRS", [&] { TSHRS(d, a, T(3)); }, [](T x, T, T, T) { return static_cast<T>(static_cast<P>(x) >> 3); });
    run("TREMS", [&] { TREMS(d, a, s, tmp); }, [&](T x, T, T, T) { return py_rem<P>(x, s); });
    run("TFMODS", [&] { TFMODS(d, a, s); }, [&](T x, T, T, T) { return static_cast<T>(P(x) % P(s)); });
    run("TADDSC", [&] { TADDSC(d, a, s, b); }, [&](T x, T y, T, T) { return static_cast<T>(P(x) + P(s) + P(y)); });
    run("TSUBSC", [&] { TSUBSC(d, a, s, b); }, [&](T x, T y, T, T) { return static_cast<T>(P(x) - P(s) + P(y)); });
    run("in place TXOR", [&] { TMOV(d, a); TXOR(d, d, b, tmp); }, [](T x, T y, T, T) { return x ^ y; });
    if constexpr (std::is_signed_v<T>) {
        // Sign conventions: TREM follows the divisor, TFMOD the dividend.
        a.SetValue(0, T(-7)), b.SetValue(0, T(3)), a.SetValue(1, T(7)), b.SetValue(1, T(-3));
        TREM(d, a, b, tmp);
        CHECK(d.GetValue(0) == T(2));
        CHECK(d.GetValue(1) == T(-2));
        TFMOD(d, a, b);
        CHECK(d.GetValue(0) == T(-1));
        CHECK(d.GetValue(1) == T(1));
        CHECK((T(-8) >> 1) == T(-4));  // reference sanity: arithmetic shift
        a.SetValue(0, T(-8));
        TSHRS(d, a, T(1));
        CHECK(d.GetValue(0) == T(-4));
    }
}

TEMPLATE_TEST_CASE("float remainder, fmod, prelu and carry ops", "[vector]", float, half, bfloat16_t) {
    using T = TestType;
    constexpr int R = 4, C = 32;
    constexpr int Bytes = R * C * sizeof(T);
    ThrowOnFail guard;
    Vec<T, R, C> a(R, C), b(R, C), c(R, C), d(R, C), tmp(R, C);
    TASSIGN(a, 0);
    TASSIGN(b, Bytes);
    TASSIGN(c, 2 * Bytes);
    TASSIGN(d, 3 * Bytes);
    TASSIGN(tmp, 4 * Bytes);
    fill(a, 5);
    fill(b, 500);
    fill(c, 900);
    for (int i = 0; i < R * C; ++i)
        if (std::fabs(static_cast<float>(b.GetValue(i))) < 0.5f) b.SetValue(i, T(1.75f));
    const double tol = std::is_same_v<T, float> ? 1e-6 : std::is_same_v<T, half> ? 2e-3 : 1.6e-2;
    auto run = [&](const char* name, auto op, auto ref) {
        op();
        for (int i = 0; i < R * C; ++i) {
            const double x = static_cast<float>(a.GetValue(i)), y = static_cast<float>(b.GetValue(i)),
                         z = static_cast<float>(c.GetValue(i));
            const float want = static_cast<float>(T(static_cast<float>(ref(x, y, z))));
            INFO(name << " i=" << i << " x=" << x << " y=" << y);
            CHECK(static_cast<float>(d.GetValue(i)) == Approx(want).epsilon(tol).margin(tol));
        }
    };
    auto pyrem = [](double x, double y) {
        double r = std::fmod(x, y);
        return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    };
    run("TFMOD", [&] { TFMOD(d, a, b); }, [](double x, double y, double) { return std::fmod(x, y); });
    run("TREM", [&] { TREM(d, a, b, tmp); }, [&](double x, double y, double) { return pyrem(x, y); });
    const T s = T(-1.5f);
    const double sf = static_cast<float>(s);
    run("TFMODS", [&] { TFMODS(d, a, s); }, [&](double x, double, double) { return std::fmod(x, sf); });
    run("TREMS", [&] { TREMS(d, a, s, tmp); }, [&](double x, double, double) { return pyrem(x, sf); });
    run("TPRELU", [&] { TPRELU(d, a, b, tmp); }, [](double x, double y, double) { return x > 0 ? x : x * y; });
    run("TADDC", [&] { TADDC(d, a, b, c); }, [](double x, double y, double z) { return x + y + z; });
    run("TSUBC", [&] { TSUBC(d, a, b, c); }, [](double x, double y, double z) { return x - y + z; });
    run("TADDSC", [&] { TADDSC(d, a, s, b); }, [&](double x, double y, double) { return x + sf + y; });
    run("TSUBSC", [&] { TSUBSC(d, a, s, b); }, [&](double x, double y, double) { return x - sf + y; });
}

TEMPLATE_TEST_CASE("row and column arg-max / arg-min", "[vector][reduce]", float, half, int32_t) {
    using T = TestType;
    constexpr int R = 8, C = 64;
    ThrowOnFail guard;
    Vec<T, R, C> src(5, 40), tmp(R, C);
    Vec<int32_t, R, 8> ri(5, 1);
    Vec<T, R, 16> rv(5, 1);
    Vec<uint32_t, 1, 64> ci(1, 40);
    Vec<T, 1, 64> cv(1, 40);
    TASSIGN(src, 0);
    TASSIGN(tmp, 4096);
    TASSIGN(ri, 8192);
    TASSIGN(rv, 8192 + 512);
    TASSIGN(ci, 8192 + 1024);
    TASSIGN(cv, 8192 + 1536);
    for (int i = 0; i < R * C; ++i) src.SetValue(i, T(static_cast<float>(static_cast<int>(rnd(i) % 9) - 4)));  // many ties
    src.SetValue(0 * C + 45, T(100.0f));  // outside the valid width: must be ignored
    auto check = [&](bool row, bool mx) {
        const int n = row ? 5 : 40, m = row ? 40 : 5;
        for (int i = 0; i < n; ++i) {
            int best = 0;
            for (int j = 1; j < m; ++j) {
                const float v = static_cast<float>(row ? src.GetValue(i * C + j) : src.GetValue(j * C + i));
                const float bv = static_cast<float>(row ? src.GetValue(i * C + best) : src.GetValue(best * C + i));
                if (mx ? v > bv : v < bv) best = j;
            }
            INFO((row ? "row " : "col ") << (mx ? "max " : "min ") << i);
            if (row) {
                CHECK(ri.GetValue(i * 8) == best);
                CHECK(static_cast<float>(rv.GetValue(i * 16)) == static_cast<float>(src.GetValue(i * C + best)));
            } else {
                CHECK(ci.GetValue(i) == static_cast<uint32_t>(best));
                CHECK(static_cast<float>(cv.GetValue(i)) == static_cast<float>(src.GetValue(best * C + i)));
            }
        }
    };
    TROWARGMAX(ri, src, tmp);
    TROWARGMAX(rv, ri, src, tmp);
    check(true, true);
    TROWARGMIN(rv, ri, src, tmp);
    check(true, false);
    TROWARGMIN(ri, src, tmp);
    check(true, false);
    TCOLARGMAX(cv, ci, src, tmp);
    check(false, true);
    TCOLARGMAX(ci, src, tmp);
    check(false, true);
    TCOLARGMIN(cv, ci, src, tmp);
    check(false, false);
}

TEMPLATE_TEST_CASE("TCMP / TCMPS write per-row packed masks that TSEL / TSELS consume", "[vector][select]", float,
                   half, int32_t) {
    using T = TestType;
    constexpr int R = 4, C = 64;
    constexpr int Bytes = R * C * sizeof(T);
    ThrowOnFail guard;
    Vec<T, R, C> a(3, 43), b(3, 43), d(3, 43), tmp(R, C);
    Vec<uint8_t, R, 32> m8(3, 6);     // ceil(43 / 8) = 6 bytes per row
    Vec<uint32_t, R, 8> m32(3, 2);    // ceil(43 / 32) = 2 words per row
    TASSIGN(a, 0);
    TASSIGN(b, Bytes);
    TASSIGN(d, 2 * Bytes);
    TASSIGN(tmp, 3 * Bytes);
    TASSIGN(m8, 4 * Bytes);
    TASSIGN(m32, 4 * Bytes + 512);
    for (int i = 0; i < R * C; ++i) {
        a.SetValue(i, T(static_cast<float>(static_cast<int>(rnd(i) % 5) - 2)));
        b.SetValue(i, T(static_cast<float>(static_cast<int>(rnd(i + 999) % 5) - 2)));
    }
    auto ref = [](float x, float y, CmpMode md) {
        switch (md) {
            case CmpMode::EQ: return x == y;
            case CmpMode::NE: return x != y;
            case CmpMode::LT: return x < y;
            case CmpMode::LE: return x <= y;
            case CmpMode::GT: return x > y;
            case CmpMode::GE: return x >= y;
        }
        return false;
    };
    const float bs = static_cast<float>(b.GetValue(0));
    for (CmpMode md : {CmpMode::EQ, CmpMode::NE, CmpMode::LT, CmpMode::LE, CmpMode::GT, CmpMode::GE}) {
        for (int pass = 0; pass < 3; ++pass) {
            for (int i = 0; i < m8.Numel; ++i) m8.SetValue(i, 0xEE);
            for (int i = 0; i < m32.Numel; ++i) m32.SetValue(i, 0xEEEEEEEEu);
            if (pass == 0) TCMP(m8, a, b, md), TCMP(m32, a, b, md);
            if (pass == 1) TCMPS(m8, a, b.GetValue(0), md), TCMPS(m32, a, b.GetValue(0), md);
            if (pass == 2) TCMPS(m8, a, b, md), TCMPS(m32, a, b, md);  // tile form: scalar = b(0, 0)
            for (int r = 0; r < R; ++r)
                for (int c = 0; c < 64; ++c) {
                    INFO("mode " << static_cast<int>(md) << " pass " << pass << " r=" << r << " c=" << c);
                    const bool live = r < 3 && c < 43;
                    const float y = pass == 0 ? static_cast<float>(b.GetValue(r * C + c)) : bs;
                    const bool want = live && ref(static_cast<float>(a.GetValue(r * C + c)), y, md);
                    const uint8_t byte = m8.GetValue(r * 32 + c / 8);
                    const uint32_t word = m32.GetValue(r * 8 + c / 32);
                    if (r < 3 && c / 8 < 6) CHECK(((byte >> (c % 8)) & 1) == want);
                    else CHECK(byte == 0xEE);  // outside the mask's valid region: untouched
                    if (r < 3 && c / 32 < 2) CHECK(((word >> (c % 32)) & 1) == want);
                    else CHECK(word == 0xEEEEEEEEu);
                }
            // TSEL / TSELS with the mask just computed.
            TSEL(d, m8, a, b, tmp);
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 43; ++c) {
                    const int i = r * C + c;
                    const bool bit = (m8.GetValue(r * 32 + c / 8) >> (c % 8)) & 1;
                    CHECK(d.GetValue(i) == (bit ? a.GetValue(i) : b.GetValue(i)));
                }
            const T s = T(7.0f);
            TSELS(d, m32, a, tmp, s);
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 43; ++c) {
                    const int i = r * C + c;
                    const bool bit = (m32.GetValue(r * 8 + c / 32) >> (c % 32)) & 1;
                    CHECK(d.GetValue(i) == (bit ? a.GetValue(i) : s));
                }
        }
    }
    // A hand-made mask: row 1 selects only column 9 (byte 1, bit 1).
    for (int i = 0; i < m8.Numel; ++i) m8.SetValue(i, 0);
    m8.SetValue(1 * 32 + 1, 0x02);
    TSEL(d, m8, a, b, tmp);
    for (int c = 0; c < 43; ++c) CHECK(d.GetValue(1 * C + c) == (c == 9 ? a.GetValue(1 * C + c) : b.GetValue(1 * C + c)));
}
