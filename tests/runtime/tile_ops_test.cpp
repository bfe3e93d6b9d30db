// Tests of the CPU tile API (runtime/include/pto): element types and rounding, every implemented
// instruction against plain reference loops, GM windows, TASSIGN aliasing and bounds checks.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <pto/pto-inst.hpp>

using namespace pto;

namespace {

// Make pto::sim::fail throw instead of aborting, for the duration of a test.
struct ThrowOnFail {
    ThrowOnFail() { sim::fail_handler() = [](const std::string& m) { throw std::runtime_error(m); }; }
    ~ThrowOnFail() { sim::fail_handler() = nullptr; }
};

template <typename T, int R, int C>
using Vec = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512>;
template <typename T, int R>
using ColVec = Tile<TileType::Vec, T, R, 1, BLayout::ColMajor, -1, -1, SLayout::NoneBox, 512>;
template <typename T, int R, int C>
using Gm = GlobalTensor<T, Shape<1, 1, 1, R, C>, Stride<R * C, R * C, R * C, C, 1>, Layout::ND>;

float val(int i) { return std::sin(0.37f * static_cast<float>(i)) * 3.0f; }

template <typename T, int R, int C>
std::vector<T> gm_data(int salt) {
    std::vector<T> v(R * C);
    for (int i = 0; i < R * C; ++i) v[i] = T(val(i + salt));
    return v;
}

}  // namespace

TEST_CASE("half converts with round-to-nearest-even", "[types]") {
    CHECK(half(1.0f).bits == 0x3c00);
    CHECK(half(65504.0f).bits == 0x7bff);
    CHECK(half(65520.0f).bits == 0x7c00);  // halfway to 2^16 rounds to even -> inf
    CHECK(half(65519.0f).bits == 0x7bff);
    // 1 + 2^-11 is halfway between 1 and 1+2^-10: ties to even (1.0)
    CHECK(half(1.0f + std::ldexp(1.0f, -11)).bits == 0x3c00);
    // 1 + 3*2^-11 is halfway between 1+2^-10 and 1+2^-9: ties to even (1+2^-9)
    CHECK(half(1.0f + 3 * std::ldexp(1.0f, -11)).bits == 0x3c02);
    CHECK(half(std::ldexp(1.0f, -24)).bits == 0x0001);      // smallest subnormal
    CHECK(half(std::ldexp(1.0f, -25)).bits == 0x0000);      // halfway to 0: even -> 0
    CHECK(half(std::ldexp(1.5f, -25)).bits == 0x0001);
    CHECK(half(-2.0f).bits == 0xc000);
    CHECK(std::isnan(static_cast<float>(half(NAN))));
    CHECK(static_cast<float>(half::from_bits(0x0001)) == std::ldexp(1.0f, -24));
    CHECK(static_cast<float>(half::from_bits(0x7bff)) == 65504.0f);
}

TEST_CASE("bfloat16_t is a real bf16 with RNE and NaN preserved", "[types]") {
    CHECK(sizeof(bfloat16_t) == 2);
    CHECK(bfloat16_t(1.0f).bits == 0x3f80);
    // 1 + 2^-8 is halfway between 1 and 1+2^-7: ties to even -> 1.0
    CHECK(bfloat16_t(1.0f + std::ldexp(1.0f, -8)).bits == 0x3f80);
    // 1 + 3*2^-8 halfway between 1+2^-7 and 1+2^-6: ties to even -> 1+2^-6 (0x3f82)
    CHECK(bfloat16_t(1.0f + 3 * std::ldexp(1.0f, -8)).bits == 0x3f82);
    // just above halfway rounds up
    CHECK(bfloat16_t(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)).bits == 0x3f81);
    CHECK(static_cast<float>(bfloat16_t(3.0e38f)) > 2.9e38f);
    CHECK(std::isinf(static_cast<float>(bfloat16_t(3.4028235e38f))));  // rounds up past max
    const bfloat16_t nan(NAN);
    CHECK(std::isnan(static_cast<float>(nan)));
    uint32_t snan_bits = 0xff800001u;  // negative signalling NaN with low payload
    float snan;
    std::memcpy(&snan, &snan_bits, 4);
    const bfloat16_t b(snan);
    CHECK(std::isnan(static_cast<float>(b)));
    CHECK((b.bits & 0x8000) != 0);
}

TEST_CASE("TCVT rounding modes and saturation", "[cvt]") {
    ThrowOnFail guard;
    Vec<float, 1, 8> src(1, 8);
    Vec<half, 1, 16> dh(1, 8);
    Vec<int32_t, 1, 8> di(1, 8);
    Vec<bfloat16_t, 1, 16> db(1, 8);
    TASSIGN(src, 0);
    TASSIGN(dh, 1024);
    TASSIGN(di, 2048);
    TASSIGN(db, 3072);
    const float in[8] = {2.5f, -2.5f, 3.5f, 1.0f + 3 * std::ldexp(1.0f, -11), 70000.0f, -0.4f, 2.7f, -2.7f};
    for (int i = 0; i < 8; ++i) src.SetValue(i, in[i]);

    TCVT(di, src, RoundMode::CAST_RINT, SaturationMode::ON);
    const int rint[8] = {2, -2, 4, 1, 70000, 0, 3, -3};
    for (int i = 0; i < 8; ++i) CHECK(di.GetValue(i) == rint[i]);
    TCVT(di, src, RoundMode::CAST_ROUND, SaturationMode::OFF);
    const int round[8] = {3, -3, 4, 1, 70000, 0, 3, -3};
    for (int i = 0; i < 8; ++i) CHECK(di.GetValue(i) == round[i]);
    TCVT(di, src, RoundMode::CAST_FLOOR, SaturationMode::OFF);
    CHECK(di.GetValue(0) == 2);
    CHECK(di.GetValue(1) == -3);
    TCVT(di, src, RoundMode::CAST_CEIL, SaturationMode::OFF);
    CHECK(di.GetValue(0) == 3);
    CHECK(di.GetValue(5) == 0);
    TCVT(di, src, RoundMode::CAST_TRUNC, SaturationMode::OFF);
    CHECK(di.GetValue(6) == 2);
    CHECK(di.GetValue(7) == -2);

    TCVT(dh, src, RoundMode::CAST_RINT, SaturationMode::OFF);
    CHECK(dh.GetValue(3).bits == 0x3c02);                        // tie to even
    CHECK(std::isinf(static_cast<float>(dh.GetValue(4))));       // overflow -> inf
    TCVT(dh, src, RoundMode::CAST_RINT, SaturationMode::ON);
    CHECK(static_cast<float>(dh.GetValue(4)) == 65504.0f);       // saturated
    TCVT(dh, src, RoundMode::CAST_TRUNC, SaturationMode::OFF);
    CHECK(dh.GetValue(3).bits == 0x3c01);
    TCVT(dh, src, RoundMode::CAST_ROUND, SaturationMode::OFF);
    CHECK(dh.GetValue(3).bits == 0x3c02);  // tie away from zero
    TCVT(dh, src, RoundMode::CAST_CEIL, SaturationMode::OFF);
    CHECK(dh.GetValue(3).bits == 0x3c02);

    TCVT(db, src, RoundMode::CAST_RINT, SaturationMode::OFF);
    for (int i = 0; i < 8; ++i) CHECK(db.GetValue(i).bits == bfloat16_t(in[i]).bits);
    // back to float is exact
    TCVT(src, db, RoundMode::CAST_NONE, SaturationMode::OFF);
    for (int i = 0; i < 8; ++i) CHECK(src.GetValue(i) == static_cast<float>(bfloat16_t(in[i])));
}

TEMPLATE_TEST_CASE("elementwise, scalar and unary ops", "[vector]", float, half, bfloat16_t) {
    using T = TestType;
    constexpr int R = 8, C = 32;
    ThrowOnFail guard;
    Vec<T, R, C> a(R, C), b(R, C), d(R, C);
    TASSIGN(a, 0);
    TASSIGN(b, R * C * sizeof(T));
    TASSIGN(d, 2 * R * C * sizeof(T));
    auto ga = gm_data<T, R, C>(0), gb = gm_data<T, R, C>(100);
    for (auto& x : gb)
        if (std::fabs(static_cast<float>(x)) < 0.25f) x = T(0.5f);
    Gm<T, R, C> gma(ga.data()), gmb(gb.data());
    TLOAD(a, gma);
    TLOAD(b, gmb);
    const double tol = std::is_same_v<T, float> ? 1e-6 : std::is_same_v<T, half> ? 2e-3 : 1.6e-2;

    auto check2 = [&](const char* name, auto op, auto ref) {
        op();
        for (int i = 0; i < R * C; ++i) {
            const float x = ga[i], y = gb[i];
            const float want = static_cast<float>(T(ref(x, y)));
            INFO(name << " i=" << i << " x=" << x << " y=" << y);
            CHECK(static_cast<float>(d.GetValue(i)) == Approx(want).epsilon(tol).margin(tol));
        }
    };
    check2("TADD", [&] { TADD(d, a, b); }, [](float x, float y) { return x + y; });
    check2("TSUB", [&] { TSUB(d, a, b); }, [](float x, float y) { return x - y; });
    check2("TMUL", [&] { TMUL(d, a, b); }, [](float x, float y) { return x * y; });
    check2("TDIV", [&] { TDIV(d, a, b); }, [](float x, float y) { return x / y; });
    check2("TMAX", [&] { TMAX(d, a, b); }, [](float x, float y) { return std::max(x, y); });
    check2("TMIN", [&] { TMIN(d, a, b); }, [](float x, float y) { return std::min(x, y); });
    const T s = T(1.25f);
    const float sf = s;
    check2("TADDS", [&] { TADDS(d, a, s); }, [&](float x, float) { return x + sf; });
    check2("TSUBS", [&] { TSUBS(d, a, s); }, [&](float x, float) { return x - sf; });
    check2("TMULS", [&] { TMULS(d, a, s); }, [&](float x, float) { return x * sf; });
    check2("TDIVS", [&] { TDIVS(d, a, s); }, [&](float x, float) { return x / sf; });
    check2("TDIVS scalar/tile", [&] { TDIVS(d, s, b); }, [&](float, float y) { return sf / y; });
    check2("TMAXS", [&] { TMAXS(d, a, s); }, [&](float x, float) { return std::max(x, sf); });
    check2("TMINS", [&] { TMINS(d, a, s); }, [&](float x, float) { return std::min(x, sf); });
    if constexpr (!std::is_same_v<T, bfloat16_t>) {  // pto-isa's unary math (exp .. relu): float / half only
        check2("TEXP", [&] { TEXP(d, a); }, [](float x, float) { return std::exp(x); });
        check2("TLOG", [&] { TABS(d, b); TLOG(d, d); }, [](float, float y) { return std::log(static_cast<float>(T(std::fabs(y)))); });
        check2("TABS", [&] { TABS(d, a); }, [](float x, float) { return std::fabs(x); });
        check2("TSQRT", [&] { TABS(d, a); TSQRT(d, d); }, [](float x, float) {
            return std::sqrt(static_cast<float>(T(std::fabs(x))));
        });
        check2("TRSQRT", [&] { TABS(d, b); TRSQRT(d, d); }, [](float, float y) {
            return 1.0f / std::sqrt(static_cast<float>(T(std::fabs(y))));
        });
        check2("TRECIP", [&] { TRECIP(d, b); }, [](float, float y) { return 1.0f / y; });
        check2("TRELU", [&] { TRELU(d, a); }, [](float x, float) { return x > 0 ? x : 0.0f; });
    }
    check2("TNEG", [&] { TNEG(d, a); }, [](float x, float) { return -x; });
    check2("TEXPANDS", [&] { TEXPANDS(d, s); }, [&](float, float) { return sf; });
    check2("in place TADD", [&] { TMOV(d, a); TADD(d, d, b); }, [](float x, float y) { return x + y; });
}

TEST_CASE("ops respect the valid region", "[vector]") {
    ThrowOnFail guard;
    Vec<float, 4, 8> a(2, 3), d(2, 3);
    TASSIGN(a, 0);
    TASSIGN(d, 128);
    for (int i = 0; i < 32; ++i) {
        a.SetValue(i, 1.0f);
        d.SetValue(i, -7.0f);
    }
    TADDS(d, a, 1.0f);
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 8; ++c) CHECK(d.GetValue(r * 8 + c) == ((r < 2 && c < 3) ? 2.0f : -7.0f));
}

TEMPLATE_TEST_CASE("row and column reductions and broadcasts", "[vector]", float, half) {
    using T = TestType;
    constexpr int R = 16, C = 64;
    ThrowOnFail guard;
    Vec<T, R, C> a(R, C - 3), d(R, C - 3), tmp(R, C);
    ColVec<T, R> rv(R, 1);
    Vec<T, 1, C> cv(1, C - 3);
    TASSIGN(a, 0);
    TASSIGN(d, R * C * sizeof(T));
    TASSIGN(tmp, 2 * R * C * sizeof(T));
    TASSIGN(rv, 3 * R * C * sizeof(T));
    TASSIGN(cv, 3 * R * C * sizeof(T) + 1024);
    auto g = gm_data<T, R, C>(7);
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < C - 3; ++c) a.SetValue(r * C + c, g[r * C + c]);
    const double tol = std::is_same_v<T, float> ? 1e-5 : 4e-3;
    auto A = [&](int r, int c) { return static_cast<float>(g[r * C + c]); };

    TROWSUM(rv, a, tmp);
    for (int r = 0; r < R; ++r) {
        double s = 0;
        for (int c = 0; c < C - 3; ++c) s += A(r, c);
        CHECK(static_cast<float>(rv.GetValue(r)) == Approx(s).epsilon(tol).margin(tol * 10));
    }
    TROWMAX(rv, a, tmp);
    for (int r = 0; r < R; ++r) {
        float m = A(r, 0);
        for (int c = 1; c < C - 3; ++c) m = std::max(m, A(r, c));
        CHECK(static_cast<float>(rv.GetValue(r)) == m);
    }
    TROWMIN(rv, a, tmp);
    for (int r = 0; r < R; ++r) {
        float m = A(r, 0);
        for (int c = 1; c < C - 3; ++c) m = std::min(m, A(r, c));
        CHECK(static_cast<float>(rv.GetValue(r)) == m);
    }
    TCOLSUM(cv, a);
    for (int c = 0; c < C - 3; ++c) {
        double s = 0;
        for (int r = 0; r < R; ++r) s += A(r, c);
        CHECK(static_cast<float>(cv.GetValue(c)) == Approx(s).epsilon(tol).margin(tol * 10));
    }
    TCOLSUM(cv, a, tmp, true);
    CHECK(static_cast<float>(cv.GetValue(0)) == Approx(static_cast<float>(cv.GetValue(0))));
    TCOLMAX(cv, a);
    for (int c = 0; c < C - 3; ++c) {
        float m = A(0, c);
        for (int r = 1; r < R; ++r) m = std::max(m, A(r, c));
        CHECK(static_cast<float>(cv.GetValue(c)) == m);
    }
    TCOLMIN(cv, a);
    for (int c = 0; c < C - 3; ++c) {
        float m = A(0, c);
        for (int r = 1; r < R; ++r) m = std::min(m, A(r, c));
        CHECK(static_cast<float>(cv.GetValue(c)) == m);
    }

    // broadcasts: rv = row sums, cv = col mins
    TROWSUM(rv, a, tmp);
    TROWEXPAND(d, rv);
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < C - 3; ++c) CHECK(static_cast<float>(d.GetValue(r * C + c)) == static_cast<float>(rv.GetValue(r)));
    TCOLEXPAND(d, cv);
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < C - 3; ++c) CHECK(static_cast<float>(d.GetValue(r * C + c)) == static_cast<float>(cv.GetValue(c)));
    auto check_bcast = [&](const char* name, auto op, auto ref, bool row) {
        op();
        for (int r = 0; r < R; ++r)
            for (int c = 0; c < C - 3; ++c) {
                const float v = row ? static_cast<float>(rv.GetValue(r)) : static_cast<float>(cv.GetValue(c));
                INFO(name << " r=" << r << " c=" << c);
                CHECK(static_cast<float>(d.GetValue(r * C + c)) ==
                      Approx(static_cast<float>(T(ref(A(r, c), v)))).epsilon(tol).margin(tol));
            }
    };
    check_bcast("TROWEXPANDADD", [&] { TROWEXPANDADD(d, a, rv); }, [](float x, float v) { return x + v; }, true);
    check_bcast("TROWEXPANDSUB", [&] { TROWEXPANDSUB(d, a, rv); }, [](float x, float v) { return x - v; }, true);
    check_bcast("TROWEXPANDMUL", [&] { TROWEXPANDMUL(d, a, rv); }, [](float x, float v) { return x * v; }, true);
    check_bcast("TROWEXPANDDIV", [&] { TROWEXPANDDIV(d, a, rv); }, [](float x, float v) { return x / v; }, true);
    check_bcast("TCOLEXPANDADD", [&] { TCOLEXPANDADD(d, a, cv); }, [](float x, float v) { return x + v; }, false);
    check_bcast("TCOLEXPANDSUB", [&] { TCOLEXPANDSUB(d, a, cv); }, [](float x, float v) { return x - v; }, false);
    check_bcast("TCOLEXPANDMUL", [&] { TCOLEXPANDMUL(d, a, cv); }, [](float x, float v) { return x * v; }, false);
    check_bcast("TCOLEXPANDDIV", [&] { TCOLEXPANDDIV(d, a, cv); }, [](float x, float v) { return x / v; }, false);
}

TEST_CASE("TTRANS, TCI, TRESHAPE", "[vector]") {
    ThrowOnFail guard;
    Vec<float, 8, 16> a(8, 16), tmp(8, 16);
    Vec<float, 16, 8> t(16, 8);
    TASSIGN(a, 0);
    TASSIGN(t, 512);
    TASSIGN(tmp, 1024);
    for (int i = 0; i < 128; ++i) a.SetValue(i, static_cast<float>(i));
    TTRANS(t, a, tmp);
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 16; ++c) CHECK(t.GetValue(c * 8 + r) == a.GetValue(r * 16 + c));
    Tile<TileType::Vec, int32_t, 1, 16, BLayout::RowMajor, 1, 16> idx;
    TASSIGN(idx, 2048);
    TCI<decltype(idx), int32_t, 0>(idx, 5);
    for (int i = 0; i < 16; ++i) CHECK(idx.GetValue(i) == 5 + i);
    TCI<decltype(idx), int32_t, 1>(idx, 5);
    for (int i = 0; i < 16; ++i) CHECK(idx.GetValue(i) == 5 - i);
    // reshape onto an unassigned tile binds it to the same bytes
    Vec<float, 16, 8> view;
    TRESHAPE(view, a);
    for (int i = 0; i < 128; ++i) CHECK(view.GetValue(i) == a.GetValue(i));
    view.SetValue(3, -1.0f);
    CHECK(a.GetValue(3) == -1.0f);
}

TEST_CASE("TLOAD / TSTORE with strided GM windows", "[memory]") {
    ThrowOnFail guard;
    constexpr int R = 32, C = 48;  // the GM tensor
    std::vector<float> g(R * C), out(R * C, 0.0f);
    for (int i = 0; i < R * C; ++i) g[i] = static_cast<float>(i);
    using Win = GlobalTensor<float, Shape<1, 1, 1, 8, 16>, Stride<-1, -1, -1, -1, 1>, Layout::ND>;
    Vec<float, 8, 16> t(8, 16);
    TASSIGN(t, 4096);
    const int r0 = 5, c0 = 20;
    Win src(g.data() + r0 * C + c0, Shape<1, 1, 1, 8, 16>(), Stride<-1, -1, -1, -1, 1>(R * C, R * C, R * C, C));
    TLOAD(t, src);
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 16; ++c) CHECK(t.GetValue(r * 16 + c) == g[(r0 + r) * C + c0 + c]);
    Win dst(out.data() + 10 * C + 30, Shape<1, 1, 1, 8, 16>(), Stride<-1, -1, -1, -1, 1>(R * C, R * C, R * C, C));
    TSTORE(dst, t);
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c) {
            const bool in = r >= 10 && r < 18 && c >= 30 && c < 46;
            CHECK(out[r * C + c] == (in ? g[(r0 + r - 10) * C + c0 + c - 30] : 0.0f));
        }
    // atomic add store
    TSTORE<decltype(t), Win, AtomicType::AtomicAdd>(dst, t);
    CHECK(out[10 * C + 30] == 2 * g[r0 * C + c0]);

    // dynamic valid shape + dynamic GM shape
    using DynWin = GlobalTensor<float, Shape<1, 1, 1, -1, -1>, Stride<-1, -1, -1, -1, 1>, Layout::ND>;
    Vec<float, 8, 16> part(3, 5);
    TASSIGN(part, 8192);
    DynWin dsrc(g.data() + 1, Shape<1, 1, 1, -1, -1>(3, 5), Stride<-1, -1, -1, -1, 1>(R * C, R * C, R * C, C));
    TLOAD(part, dsrc);
    CHECK(part.GetValue(2 * 16 + 4) == g[2 * C + 5]);
    // mismatching view shape fails
    DynWin bad(g.data(), Shape<1, 1, 1, -1, -1>(4, 5), Stride<-1, -1, -1, -1, 1>(R * C, R * C, R * C, C));
    CHECK_THROWS_WITH(TLOAD(part, bad), Catch::Contains("does not match GlobalTensor shape"));

    // DN (column-major) view into a [R,1] column vector and a transposed load
    ColVec<float, 8> col(8, 1);
    TASSIGN(col, 12288);
    using ColWin = GlobalTensor<float, Shape<1, 1, 1, 8, 1>, Stride<1, 1, 1, -1, 1>, Layout::ND>;
    ColWin cw(g.data() + 3, Shape<1, 1, 1, 8, 1>(), Stride<1, 1, 1, -1, 1>(C));
    TLOAD(col, cw);
    for (int r = 0; r < 8; ++r) CHECK(col.GetValue(r) == g[r * C + 3]);
    using DnWin = GlobalTensor<float, Shape<1, 1, 1, 8, 16>, Stride<1, 1, 1, 1, -1>, Layout::DN>;
    DnWin dn(g.data(), Shape<1, 1, 1, 8, 16>(), Stride<1, 1, 1, 1, -1>(C));  // (r,c) at r + c*C
    TLOAD(t, dn);
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 16; ++c) CHECK(t.GetValue(r * 16 + c) == g[r + c * C]);
}

TEST_CASE("TSTORE converts the element type", "[memory]") {
    ThrowOnFail guard;
    Tile<TileType::Acc, float, 16, 16, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024> acc(16, 16);
    TASSIGN(acc, 0);
    for (int i = 0; i < 256; ++i) acc.SetValue(i, 1.0f + static_cast<float>(i) * std::ldexp(1.0f, -9));
    std::vector<half> h(256);
    std::vector<bfloat16_t> b(256);
    GlobalTensor<half, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>> gh(h.data());
    GlobalTensor<bfloat16_t, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>> gb(b.data());
    TSTORE(gh, acc);
    TSTORE(gb, acc);
    for (int i = 0; i < 256; ++i) {
        CHECK(h[i].bits == half(acc.GetValue(i)).bits);
        CHECK(b[i].bits == bfloat16_t(acc.GetValue(i)).bits);
    }
}

TEST_CASE("tiles at overlapping TASSIGN addresses alias", "[memory]") {
    ThrowOnFail guard;
    Vec<float, 4, 8> a(4, 8), b(4, 8);
    TASSIGN(a, 256);
    TASSIGN(b, 256 + 8 * sizeof(float));  // b starts at a's row 1
    TEXPANDS(a, 3.0f);
    CHECK(b.GetValue(0) == 3.0f);
    b.SetValue(0, 9.0f);
    CHECK(a.GetValue(8) == 9.0f);
    // different memory spaces never alias
    Tile<TileType::Mat, float, 16, 8, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512> m(4, 8);
    TASSIGN(m, 256);
    TEXPANDS(a, 1.0f);
    m.SetValue(0, 5.0f);
    CHECK(a.GetValue(0) == 1.0f);
}

TEST_CASE("TASSIGN bounds and use-before-assign are reported", "[memory]") {
    ThrowOnFail guard;
    Vec<float, 64, 128> big(64, 128);  // 32 KiB
    CHECK_NOTHROW(TASSIGN(big, sim::kUbBytes - 32768));
    CHECK_THROWS_WITH(TASSIGN(big, sim::kUbBytes - 32768 + 32),
                      Catch::Contains("exceeds the UB buffer") && Catch::Contains("Vec tile of 32768 bytes"));
    Tile<TileType::Left, half, 128, 256, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512> left(128, 256);  // 64 KiB
    CHECK_NOTHROW(TASSIGN(left, 0));
    CHECK_THROWS_WITH(TASSIGN(left, 512), Catch::Contains("L0A"));
    Vec<float, 4, 8> unassigned(4, 8);
    CHECK_THROWS_WITH(TADDS(unassigned, unassigned, 1.0f), Catch::Contains("before TASSIGN"));
    {
        sim::KernelScope k("my_kernel", 7);
        CHECK_THROWS_WITH(TASSIGN(big, sim::kUbBytes), Catch::Contains("kernel 'my_kernel' (func_id 7)"));
    }
}

TEMPLATE_TEST_CASE("cube: TMOV / TEXTRACT / TMATMUL / TMATMUL_ACC", "[cube]", half, bfloat16_t, float) {
    using T = TestType;
    constexpr int M = 32, K = 64, N = 32;
    ThrowOnFail guard;
    using MatA = Tile<TileType::Mat, T, M, 2 * K, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    using MatB = Tile<TileType::Mat, T, K, N, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    using L = Tile<TileType::Left, T, M, K, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512>;
    using R = Tile<TileType::Right, T, K, N, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>;
    using Acc = Tile<TileType::Acc, float, M, N, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
    std::vector<T> ga(M * 2 * K), gb(K * N);
    for (int i = 0; i < M * 2 * K; ++i) ga[i] = T(val(i));
    for (int i = 0; i < K * N; ++i) gb[i] = T(val(3 * i + 1));
    MatA ma(M, 2 * K);
    MatB mb(K, N);
    L l(M, K);
    R r(K, N);
    Acc acc(M, N), acc2(M, N);
    TASSIGN(ma, 0);
    TASSIGN(mb, M * 2 * K * sizeof(T));
    TASSIGN(l, 0);
    TASSIGN(r, 0);
    TASSIGN(acc, 0);
    TASSIGN(acc2, M * N * sizeof(float));
    GlobalTensor<T, Shape<1, 1, 1, M, 2 * K>, Stride<1, 1, 1, 2 * K, 1>> gma(ga.data());
    GlobalTensor<T, Shape<1, 1, 1, K, N>, Stride<1, 1, 1, N, 1>> gmb(gb.data());
    TLOAD(ma, gma);
    TLOAD(mb, gmb);
    TEXTRACT(l, ma, 0, K);  // right half of A
    TMOV(r, mb);
    TMATMUL(acc, l, r);
    auto ref = [&](int i, int j) {
        double s = 0;
        for (int k = 0; k < K; ++k)
            s += static_cast<double>(static_cast<float>(ga[i * 2 * K + K + k])) * static_cast<float>(gb[k * N + j]);
        return s;
    };
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) CHECK(acc.GetValue(i * N + j) == Approx(ref(i, j)).epsilon(1e-5).margin(1e-4));
    TMATMUL_ACC(acc2, acc, l, r);
    TMATMUL_ACC(acc, l, r);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            CHECK(acc.GetValue(i * N + j) == Approx(2 * ref(i, j)).epsilon(1e-5).margin(1e-4));
            CHECK(acc2.GetValue(i * N + j) == acc.GetValue(i * N + j));
        }
    // Acc -> Vec move narrows like TSTORE
    Tile<TileType::Vec, half, M, N, BLayout::RowMajor, -1, -1, SLayout::NoneBox, 512> v(M, N);
    TASSIGN(v, 0);
    TMOV(v, acc);
    CHECK(v.GetValue(5).bits == half(acc.GetValue(5)).bits);
}

TEST_CASE("TMATMUL int8 accumulates in int32 and TMATMUL_BIAS adds the bias row", "[cube]") {
    ThrowOnFail guard;
    Tile<TileType::Left, int8_t, 16, 32, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512> l(16, 32);
    Tile<TileType::Right, int8_t, 32, 16, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512> r(32, 16);
    Tile<TileType::Acc, int32_t, 16, 16, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024> acc(16, 16);
    TASSIGN(l, 0);
    TASSIGN(r, 0);
    TASSIGN(acc, 0);
    for (int i = 0; i < 16 * 32; ++i) l.data()[i] = static_cast<int8_t>(i % 255 - 127);
    for (int i = 0; i < 32 * 16; ++i) r.data()[i] = static_cast<int8_t>((i * 7) % 255 - 127);
    TMATMUL(acc, l, r);
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            int32_t s = 0;
            for (int k = 0; k < 32; ++k) s += l.data()[i * 32 + k] * r.data()[k * 16 + j];
            CHECK(acc.data()[i * 16 + j] == s);
        }
    Tile<TileType::Left, float, 16, 8, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512> lf(16, 8);
    Tile<TileType::Right, float, 8, 16, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512> rf(8, 16);
    Tile<TileType::Acc, float, 16, 16, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024> af(16, 16);
    Tile<TileType::Bias, float, 1, 16, BLayout::RowMajor, -1, -1> bias(1, 16);
    TASSIGN(lf, 0);
    TASSIGN(rf, 0);
    TASSIGN(af, 0);
    TASSIGN(bias, 0);
    for (int i = 0; i < 128; ++i) {
        lf.data()[i] = 1.0f;
        rf.data()[i] = 2.0f;
    }
    for (int j = 0; j < 16; ++j) bias.data()[j] = static_cast<float>(j);
    TMATMUL_BIAS(af, lf, rf, bias);
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) CHECK(af.data()[i * 16 + j] == 16.0f + static_cast<float>(j));
}

TEST_CASE("a ZN Mat tile TRESHAPEd over an NZ Mat tile reads its transpose (b_trans operand)", "[cube]") {
    // k [N, K] loaded into Mat (NZ), viewed as [K, N] (ZN) over the same bytes, moved to Right:
    // q [M, K] x view = q x k^T.
    ThrowOnFail guard;
    constexpr int M = 16, K = 32, N = 48;
    using MatQ = Tile<TileType::Mat, half, M, K, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    using MatK = Tile<TileType::Mat, half, N, K, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512>;
    using MatKT = Tile<TileType::Mat, half, K, N, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>;
    static_assert(!MatK::ColumnStored && MatKT::ColumnStored);
    std::vector<half> gq(M * K), gk(N * K);
    for (int i = 0; i < M * K; ++i) gq[i] = half(val(i));
    for (int i = 0; i < N * K; ++i) gk[i] = half(val(5 * i + 2));
    MatQ mq(M, K);
    MatK mk(N, K);
    MatKT mkt(K, N);
    TASSIGN(mq, 0);
    TASSIGN(mk, M * K * sizeof(half));
    TASSIGN(mkt, M * K * sizeof(half));  // the same bytes
    GlobalTensor<half, Shape<1, 1, 1, M, K>, Stride<1, 1, 1, K, 1>> gmq(gq.data());
    GlobalTensor<half, Shape<1, 1, 1, N, K>, Stride<1, 1, 1, K, 1>> gmk(gk.data());
    TLOAD(mq, gmq);
    TLOAD(mk, gmk);
    TRESHAPE(mkt, mk);
    for (int k = 0; k < K; ++k)
        for (int n = 0; n < N; ++n) REQUIRE(mkt.at(k, n).bits == mk.at(n, k).bits);
    Tile<TileType::Left, half, M, K, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512> l(M, K);
    Tile<TileType::Right, half, K, N, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512> r(K, N);
    Tile<TileType::Acc, float, M, N, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024> acc(M, N);
    TASSIGN(l, 0);
    TASSIGN(r, 0);
    TASSIGN(acc, 0);
    TMOV(l, mq);
    TMOV(r, mkt);
    TMATMUL(acc, l, r);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double s = 0;
            for (int k = 0; k < K; ++k) s += double(float(gq[i * K + k])) * float(gk[j * K + k]);
            CHECK(acc.GetValue(i * N + j) == Approx(s).epsilon(1e-5).margin(1e-4));
        }
    // A second transpose view is the original again.
    MatK back(N, K);
    TASSIGN(back, M * K * sizeof(half));
    TRESHAPE(back, mkt);
    CHECK(back.at(3, 7).bits == half(val(5 * (3 * K + 7) + 2)).bits);
}

TEST_CASE("a window declared with its source's Tile type at GetTileOffset: same elements, bounds of its valid region",
          "[memory]") {
    ThrowOnFail guard;
    // An Acc [32, 32] tile and its window at (16, 16) with valid [16, 16]: window (r, c) is
    // source (16 + r, 16 + c) in the runtime's storage.
    using Acc = Tile<TileType::Acc, float, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024>;
    const uint64_t cap = sim::capacity(sim::Space::L0C);
    const uint64_t base = cap - Acc::Bytes;  // the source ends where L0C ends
    Acc src(32, 32);
    TASSIGN(src, base);
    for (int r = 0; r < 32; ++r)
        for (int c = 0; c < 32; ++c) src.SetValue(static_cast<uint32_t>(r * 32 + c), float(100 * r + c));
    Acc win(16, 16);
    // Its static extent (32 x 32) reaches past L0C; its valid region does not.
    CHECK_NOTHROW(TASSIGN(win, base + GetTileOffset<Acc>(16, 16) * sizeof(float)));
    CHECK(win.at(0, 0) == float(100 * 16 + 16));
    CHECK(win.at(15, 15) == float(100 * 31 + 31));
    // A valid region one row taller would end past L0C.
    Acc tall(17, 16);
    CHECK_THROWS_WITH(TASSIGN(tall, base + GetTileOffset<Acc>(16, 16) * sizeof(float)), Catch::Contains("exceeds"));
}
