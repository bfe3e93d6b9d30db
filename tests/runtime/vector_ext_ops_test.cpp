// Tests of the CPU runtime's integer / bitwise / remainder / carry ops, arg reductions,
// compare-select (packed masks), layout / gather / scatter / fill / part ops, TRANDOM and the sort
// instructions — each against a plain reference loop written here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
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

TEST_CASE("TCONCAT, TGATHER, TGATHERB, TSCATTER", "[vector][layout]") {
    ThrowOnFail guard;
    Vec<float, 4, 16> a(3, 5), b(3, 7), g(4, 16);
    Vec<float, 4, 32> d(3, 12);
    Vec<int32_t, 4, 8> ia(3, 1), ib(3, 1), id(3, 1);
    Vec<int32_t, 4, 16> gi(4, 16);
    TASSIGN(a, 0);
    TASSIGN(b, 256);
    TASSIGN(d, 512);
    TASSIGN(ia, 1024);
    TASSIGN(ib, 1152);
    TASSIGN(id, 1280);
    TASSIGN(gi, 1536);
    TASSIGN(g, 1792);
    fill(a, 1);
    fill(b, 2);
    for (int i = 0; i < d.Numel; ++i) d.SetValue(i, -99.0f);
    TCONCAT(d, a, b);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 12; ++c) CHECK(d.GetValue(r * 32 + c) == (c < 5 ? a.GetValue(r * 16 + c) : b.GetValue(r * 16 + c - 5)));
    CHECK(d.GetValue(12) == -99.0f);
    // Indexed forms: per-row counts, scaled by sizeof(index type).
    const int n0[3] = {2, 5, 0}, n1[3] = {3, 1, 7};
    for (int r = 0; r < 3; ++r) ia.SetValue(r * 8, n0[r] * 4), ib.SetValue(r * 8, n1[r] * 4);
    for (int i = 0; i < d.Numel; ++i) d.SetValue(i, -99.0f);
    TCONCAT(d, a, b, id, ia, ib);
    for (int r = 0; r < 3; ++r) {
        CHECK(id.GetValue(r * 8) == (n0[r] + n1[r]) * 4);
        for (int c = 0; c < n0[r] + n1[r]; ++c)
            CHECK(d.GetValue(r * 32 + c) == (c < n0[r] ? a.GetValue(r * 16 + c) : b.GetValue(r * 16 + c - n0[r])));
        CHECK(d.GetValue(r * 32 + n0[r] + n1[r]) == -99.0f);
    }
    TCONCAT(d, a, b, ia, ib);
    for (int c = 0; c < 5; ++c) CHECK(d.GetValue(32 + c) == a.GetValue(16 + c));

    // Index gather: flat indices into a's whole storage; out of range -> 0.
    Vec<float, 4, 16> tmp(4, 16);
    TASSIGN(tmp, 2048);
    fill(a, 3);
    for (int i = 0; i < 64; ++i) gi.SetValue(i, static_cast<int32_t>(rnd(i) % 70) - 3);
    TGATHER(g, a, gi, tmp);
    for (int i = 0; i < 64; ++i) {
        const int k = gi.GetValue(i);
        CHECK(g.GetValue(i) == (k >= 0 && k < 64 ? a.GetValue(k) : 0.0f));
    }
    // TSCATTER index form: the inverse permutation puts everything back.
    Vec<float, 4, 16> back(4, 16);
    TASSIGN(back, 2304);
    for (int i = 0; i < 64; ++i) gi.SetValue(i, (i * 37 + 5) % 64);  // a permutation
    TGATHER(g, a, gi, tmp);
    TSCATTER(back, g, gi);
    for (int i = 0; i < 64; ++i) CHECK(back.GetValue(i) == a.GetValue(i));

    // Mask-pattern gather / scatter.
    Vec<float, 4, 16> src(4, 16), out(4, 16);
    TASSIGN(src, 2560);
    TASSIGN(out, 2816);
    fill(src, 4);
    auto pattern_ref = [](MaskPattern p, int i) {
        const int period = (p == MaskPattern::P0101 || p == MaskPattern::P1010) ? 2 : 4;
        const int want = p == MaskPattern::P0101 || p == MaskPattern::P0001 ? 0
                         : p == MaskPattern::P1010 || p == MaskPattern::P0010 ? 1
                         : p == MaskPattern::P0100                          ? 2
                                                                            : 3;
        return i % period == want;
    };
    auto check_gather = [&](auto pat_tag) {
        constexpr MaskPattern P = decltype(pat_tag)::value;
        for (int i = 0; i < out.Numel; ++i) out.SetValue(i, -1.0f);
        TGATHER<decltype(out), decltype(src), P>(out, src);
        std::vector<float> want;
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 16; ++c)
                if (pattern_ref(P, c)) want.push_back(src.GetValue(r * 16 + c));
        for (size_t k = 0; k < want.size(); ++k) CHECK(out.GetValue(k) == want[k]);
        CHECK(out.GetValue(want.size()) == -1.0f);
        // Column gather keeps whole rows.
        for (int i = 0; i < out.Numel; ++i) out.SetValue(i, -1.0f);
        TGATHER<decltype(out), decltype(src), P, GatherAxis::GATHER_COL>(out, src);
        int k = 0;
        for (int r = 0; r < 4; ++r)
            if (pattern_ref(P, r)) {
                for (int c = 0; c < 16; ++c) CHECK(out.GetValue(k * 16 + c) == src.GetValue(r * 16 + c));
                ++k;
            }
        // Row scatter spreads a dense source over the selected columns, zero elsewhere.
        TSCATTER<P>(out, src);
        int s = 0;
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 16; ++c)
                CHECK(out.GetValue(r * 16 + c) == (pattern_ref(P, c) ? src.GetValue(s++) : 0.0f));
        TSCATTER<P, ScatterAxis::SCATTER_COL>(out, src);
        int sr = 0;
        for (int r = 0; r < 4; ++r) {
            for (int c = 0; c < 16; ++c)
                CHECK(out.GetValue(r * 16 + c) == (pattern_ref(P, r) ? src.GetValue(sr * 16 + c) : 0.0f));
            if (pattern_ref(P, r)) ++sr;
        }
    };
    check_gather(std::integral_constant<MaskPattern, MaskPattern::P0101>{});
    check_gather(std::integral_constant<MaskPattern, MaskPattern::P1010>{});
    check_gather(std::integral_constant<MaskPattern, MaskPattern::P0001>{});
    check_gather(std::integral_constant<MaskPattern, MaskPattern::P0100>{});
    check_gather(std::integral_constant<MaskPattern, MaskPattern::P1000>{});

    // TGATHERB: 32-byte blocks (8 floats) at byte offsets into src.
    Vec<float, 2, 16> gb(2, 16);
    Vec<uint32_t, 2, 8> off(2, 2);
    TASSIGN(gb, 3072);
    TASSIGN(off, 3200);
    const uint32_t offs[4] = {0, 96, 32, 224};
    for (int r = 0; r < 2; ++r)
        for (int bk = 0; bk < 2; ++bk) off.SetValue(r * 8 + bk, offs[r * 2 + bk]);
    TGATHERB(gb, src, off);
    for (int r = 0; r < 2; ++r)
        for (int bk = 0; bk < 2; ++bk)
            for (int e = 0; e < 8; ++e) CHECK(gb.GetValue(r * 16 + bk * 8 + e) == src.GetValue(offs[r * 2 + bk] / 4 + e));
}

TEST_CASE("TTRI, TFILLPAD, TPART*, TSUBVIEW", "[vector][layout]") {
    ThrowOnFail guard;
    Vec<float, 6, 8> t(5, 7);
    TASSIGN(t, 0);
    for (int diag : {-2, 0, 3}) {
        for (int i = 0; i < t.Numel; ++i) t.SetValue(i, 9.0f);
        TTRI<decltype(t), 0>(t, diag);
        for (int r = 0; r < 6; ++r)
            for (int c = 0; c < 8; ++c)
                CHECK(t.GetValue(r * 8 + c) == (r < 5 && c < 7 ? (c <= r + diag ? 1.0f : 0.0f) : 9.0f));
        TTRI<decltype(t), 1>(t, diag);
        for (int r = 0; r < 5; ++r)
            for (int c = 0; c < 7; ++c) CHECK(t.GetValue(r * 8 + c) == (c >= r + diag ? 1.0f : 0.0f));
    }

    Vec<float, 4, 16> s(3, 10);
    Vec<float, 4, 16, PadValue::Max> p(4, 16);
    Vec<float, 8, 32, PadValue::Min> e(6, 20);
    Vec<int16_t, 4, 16> si(2, 5);
    Vec<int16_t, 4, 16, PadValue::Min> pi(4, 16);
    constexpr PadValue kNeg1 = static_cast<PadValue>(static_cast<uint64_t>(PadValue::CustomBase) | 0xBF800000u);
    Vec<float, 4, 16, kNeg1> pc(4, 16);
    TASSIGN(s, 1024);
    TASSIGN(p, 1280);
    TASSIGN(e, 1536);
    TASSIGN(si, 2560);
    TASSIGN(pi, 2688);
    TASSIGN(pc, 2816);
    fill(s, 7);
    fill(si, 8);
    auto check_pad = [](auto& dst, auto& src, int dr, int dc, auto pad) {
        using D = std::remove_reference_t<decltype(dst)>;
        for (int r = 0; r < dr; ++r)
            for (int c = 0; c < dc; ++c) {
                const bool in = r < static_cast<int>(src.GetValidRow()) && c < static_cast<int>(src.GetValidCol());
                INFO("r=" << r << " c=" << c);
                CHECK(dst.GetValue(r * D::Cols + c) == (in ? src.GetValue(r * std::remove_reference_t<decltype(src)>::Cols + c) : pad));
            }
    };
    TFILLPAD(p, s);
    check_pad(p, s, 4, 16, std::numeric_limits<float>::infinity());
    TFILLPAD_INPLACE(pi, si);
    check_pad(pi, si, 4, 16, std::numeric_limits<int16_t>::lowest());
    for (int i = 0; i < e.Numel; ++i) e.SetValue(i, 5.0f);
    TFILLPAD_EXPAND(e, s);
    check_pad(e, s, 6, 20, -std::numeric_limits<float>::infinity());
    CHECK(e.GetValue(6 * 32) == 5.0f);  // outside dst's valid region: untouched
    CHECK(e.GetValue(20) == 5.0f);
    TFILLPAD<TFillPadMode::Normal>(pc, s);
    check_pad(pc, s, 4, 16, -1.0f);

    // TPART*: op where both sources are valid, the valid one elsewhere, 0 outside both.
    Vec<float, 4, 16> x(4, 9), y(2, 16), z(4, 16);
    TASSIGN(x, 3072);
    TASSIGN(y, 3328);
    TASSIGN(z, 3584);
    fill(x, 11);
    fill(y, 12);
    auto part = [&](const char* name, auto op, auto ref) {
        op();
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 16; ++c) {
                const int i = r * 16 + c;
                const bool in0 = r < static_cast<int>(x.GetValidRow()) && c < 9, in1 = r < 2;
                const float want = in0 && in1 ? ref(x.GetValue(i), y.GetValue(i))
                                   : in0      ? x.GetValue(i)
                                   : in1      ? y.GetValue(i)
                                              : 0.0f;
                INFO(name << " r=" << r << " c=" << c);
                CHECK(z.GetValue(i) == want);
            }
    };
    x.SetValidShape(3, 9);
    part("TPARTADD", [&] { TPARTADD(z, x, y); }, [](float u, float v) { return u + v; });
    x.SetValidShape(4, 9);
    part("TPARTADD", [&] { TPARTADD(z, x, y); }, [](float u, float v) { return u + v; });
    part("TPARTMUL", [&] { TPARTMUL(z, x, y); }, [](float u, float v) { return u * v; });
    part("TPARTMAX", [&] { TPARTMAX(z, x, y); }, [](float u, float v) { return std::max(u, v); });
    part("TPARTMIN", [&] { TPARTMIN(z, x, y); }, [](float u, float v) { return std::min(u, v); });

    // TSUBVIEW aliases the parent from (1, 4) on.
    Vec<float, 2, 16> view(2, 8);
    TSUBVIEW(view, z, 1, 4);
    CHECK(view.GetValue(0) == z.GetValue(1 * 16 + 4));
    view.SetValue(16 + 3, 42.0f);
    CHECK(z.GetValue(2 * 16 + 7) == 42.0f);
    Vec<float, 4, 16> big(4, 16);
    TASSIGN(big, sim::kUbBytes - 256);
    CHECK_THROWS(TSUBVIEW(big, big, 3, 0));
}

TEST_CASE("TRANDOM is Philox-4x32 in pto-isa's lane layout", "[vector][random]") {
    ThrowOnFail guard;
    Vec<uint32_t, 2, 256> t(2, 256);
    Vec<uint32_t, 1, 256> one(1, 256);
    TASSIGN(t, 0);
    TASSIGN(one, 4096);
    TRandomKey key = {0, 0};
    TRandomCounter ctr = {0, 0, 0, 0};
    TRANDOM(t, key, ctr);
    // Random123 known-answer vector: philox4x32_10(ctr = 0, key = 0).
    CHECK(t.GetValue(0) == 0x6627e8d5u);
    CHECK(t.GetValue(64) == 0xe169c58du);
    CHECK(t.GetValue(128) == 0xbc57ac4cu);
    CHECK(t.GetValue(192) == 0x9b00dbd8u);
    // Lane l uses counter + l; row 1 continues from counter + Cols / 4.
    for (uint32_t lane : {1u, 17u, 63u}) {
        TRandomCounter c2 = {lane, 0, 0, 0};
        TRANDOM(one, key, c2);
        for (int k = 0; k < 4; ++k) CHECK(t.GetValue(k * 64 + lane) == one.GetValue(k * 64));
        TRandomCounter c3 = {64 + lane, 0, 0, 0};
        TRANDOM(one, key, c3);
        for (int k = 0; k < 4; ++k) CHECK(t.GetValue(256 + k * 64 + lane) == one.GetValue(k * 64));
    }
    // Random123 known-answer vector with all-ones counter and key.
    TRandomKey k1 = {0xffffffffu, 0xffffffffu};
    TRandomCounter c1 = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    TRANDOM(one, k1, c1);
    CHECK(one.GetValue(0) == 0x408f276du);
    CHECK(one.GetValue(64) == 0x41c83b0eu);
    CHECK(one.GetValue(128) == 0xa20bc7c6u);
    CHECK(one.GetValue(192) == 0x6d5451fdu);
    CHECK(c1[0] == 0xffffffffu);  // operands are not modified
    // 7 rounds differ from 10.
    TRandomCounter c0 = {0, 0, 0, 0};
    TRANDOM<7>(one, key, c0);
    CHECK(one.GetValue(0) != 0x6627e8d5u);
}

namespace {
template <typename T>
std::pair<float, uint32_t> record_at(const T* row, int k) {
    constexpr int kRec = 8 / sizeof(T);
    uint32_t idx;
    std::memcpy(&idx, reinterpret_cast<const uint8_t*>(row + k * kRec) + 4, 4);
    return {static_cast<float>(row[k * kRec]), idx};
}
}  // namespace

TEMPLATE_TEST_CASE("TSORT32 sorts 32-element blocks into (score, index) records", "[vector][sort]", float, half) {
    using T = TestType;
    constexpr int kRec = 8 / sizeof(T);
    ThrowOnFail guard;
    Vec<T, 2, 64> src(2, 40);
    Vec<uint32_t, 2, 64> idx(2, 40);
    Vec<T, 2, 64 * kRec> dst(2, 64 * kRec);
    TASSIGN(src, 0);
    TASSIGN(idx, 1024);
    TASSIGN(dst, 2048);
    for (int i = 0; i < 128; ++i) {
        src.SetValue(i, T(static_cast<float>(static_cast<int>(rnd(i) % 11) - 5)));  // ties
        idx.SetValue(i, 1000 + (i * 7) % 128);
    }
    TSORT32(dst, src, idx);
    for (int r = 0; r < 2; ++r)
        for (int b0 = 0; b0 < 40; b0 += 32) {
            std::vector<std::pair<float, uint32_t>> want;
            for (int c = b0; c < std::min(40, b0 + 32); ++c)
                want.push_back({static_cast<float>(src.GetValue(r * 64 + c)), idx.GetValue(r * 64 + c)});
            std::sort(want.begin(), want.end(), [](auto x, auto y) {
                return x.first != y.first ? x.first > y.first : x.second < y.second;
            });
            for (size_t k = 0; k < want.size(); ++k) {
                INFO("r=" << r << " block " << b0 / 32 << " k=" << k);
                CHECK(record_at(&dst.at(r, 0), b0 + static_cast<int>(k)) == want[k]);
            }
        }
    Vec<T, 2, 64> tmp(2, 64);
    TASSIGN(tmp, 8192);
    TSORT32(dst, src, idx, tmp);
    CHECK(record_at(&dst.at(0, 0), 0).first == 5.0f);
}

TEST_CASE("TMRGSORT merges sorted record lists", "[vector][sort]") {
    ThrowOnFail guard;
    using L = Vec<float, 1, 64>;
    L s0(1, 20), s1(1, 12), s2(1, 16), s3(1, 8), tmp(1, 64);
    Vec<float, 1, 128> d(1, 128);
    TASSIGN(s0, 0);
    TASSIGN(s1, 256);
    TASSIGN(s2, 512);
    TASSIGN(s3, 768);
    TASSIGN(tmp, 1024);
    TASSIGN(d, 1280);
    L* lists[4] = {&s0, &s1, &s2, &s3};
    std::vector<std::pair<float, uint32_t>> recs[4];
    for (int l = 0; l < 4; ++l) {
        const int n = lists[l]->GetValidCol() / 2;
        for (int k = 0; k < n; ++k) recs[l].push_back({static_cast<float>(rnd(l * 100 + k) % 7), uint32_t(l * 100 + k)});
        std::sort(recs[l].begin(), recs[l].end(), [](auto x, auto y) { return x.first > y.first; });
        for (int k = 0; k < n; ++k) {
            lists[l]->SetValue(2 * k, recs[l][k].first);
            std::memcpy(&lists[l]->at(0, 2 * k + 1), &recs[l][k].second, 4);
        }
    }
    auto reference = [&](int nlists, bool exhausted, unsigned outMax, unsigned taken[4]) {
        std::vector<std::pair<float, uint32_t>> out;
        unsigned pos[4] = {0, 0, 0, 0};
        while (out.size() < outMax) {
            int pick = -1;
            for (int l = 0; l < nlists; ++l)
                if (pos[l] < recs[l].size() && (pick < 0 || recs[l][pos[l]].first > recs[pick][pos[pick]].first)) pick = l;
            if (pick < 0) break;
            out.push_back(recs[pick][pos[pick]++]);
            bool done = false;
            for (int l = 0; l < nlists; ++l) done = done || pos[l] == recs[l].size();
            if (exhausted && done) break;
        }
        for (int l = 0; l < 4; ++l) taken[l] = pos[l];
        return out;
    };
    for (bool ex : {false, true})
        for (int n = 2; n <= 4; ++n) {
            MrgSortExecutedNumList done{9, 9, 9, 9};
            for (int i = 0; i < 128; ++i) d.SetValue(i, -1.0f);
            if (n == 4 && ex) TMRGSORT<decltype(d), L, L, L, L, L, true>(d, done, tmp, s0, s1, s2, s3);
            if (n == 4 && !ex) TMRGSORT<decltype(d), L, L, L, L, L, false>(d, done, tmp, s0, s1, s2, s3);
            if (n == 3 && ex) TMRGSORT<decltype(d), L, L, L, L, true>(d, done, tmp, s0, s1, s2);
            if (n == 3 && !ex) TMRGSORT<decltype(d), L, L, L, L, false>(d, done, tmp, s0, s1, s2);
            if (n == 2 && ex) TMRGSORT<decltype(d), L, L, L, true>(d, done, tmp, s0, s1);
            if (n == 2 && !ex) TMRGSORT<decltype(d), L, L, L, false>(d, done, tmp, s0, s1);
            unsigned taken[4];
            const auto want = reference(n, ex, 64, taken);
            INFO("lists " << n << " exhausted " << ex);
            for (size_t k = 0; k < want.size(); ++k) CHECK(record_at(&d.at(0, 0), static_cast<int>(k)) == want[k]);
            CHECK(d.GetValue(2 * want.size()) == -1.0f);
            CHECK(done.mrgSortList0 == taken[0]);
            CHECK(done.mrgSortList1 == taken[1]);
            CHECK(done.mrgSortList2 == (n >= 3 ? taken[2] : 0u));
            CHECK(done.mrgSortList3 == (n >= 4 ? taken[3] : 0u));
        }
    // Block form: 4 sorted blocks of 8 records (blockLen 16 elements) merged, trailing partial group untouched.
    Vec<float, 1, 128> blk(1, 128), out(1, 80);
    TASSIGN(blk, 2048);
    TASSIGN(out, 2560);
    std::vector<std::pair<float, uint32_t>> all;
    for (int b = 0; b < 4; ++b) {
        std::vector<std::pair<float, uint32_t>> v;
        for (int k = 0; k < 8; ++k) v.push_back({static_cast<float>(rnd(b * 10 + k) % 50), uint32_t(b * 8 + k)});
        std::sort(v.begin(), v.end(), [](auto x, auto y) { return x.first > y.first; });
        for (int k = 0; k < 8; ++k) {
            blk.SetValue(b * 16 + 2 * k, v[k].first);
            std::memcpy(&blk.at(0, b * 16 + 2 * k + 1), &v[k].second, 4);
        }
        all.insert(all.end(), v.begin(), v.end());
    }
    for (int i = 0; i < 128; ++i) out.SetValue(i, -3.0f);
    TMRGSORT(out, blk, 16);
    std::stable_sort(all.begin(), all.end(), [](auto x, auto y) { return x.first > y.first; });
    for (int k = 0; k < 32; ++k) CHECK(record_at(&out.at(0, 0), k).first == all[k].first);
    CHECK(out.GetValue(64) == -3.0f);
}
