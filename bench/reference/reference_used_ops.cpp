// Reference loops for the used-op end-to-end programs (e2e_used_tile_ops.py,
// e2e_used_tensor_ops.py), written from each op's documented semantics: rounding into FP16 / BF16
// / integers in the six round modes (computed here from the formats' significand width, not with
// the runtime's conversions), elementwise math, column / row reductions and broadcasts,
// transpose, reshape, assemble at an offset, single-element read / write, the last-axis
// scatter (out = input, out[r, index[r, k]] = src[r, k]) and the mask-pattern gather / scatter.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "reference/reference.h"

namespace pypto::e2e {

namespace {

constexpr int R = 16, C = 64, H = 32;

enum class Mode { Rint, Round, Floor, Ceil, Trunc, Odd };

// v rounded into a binary format with `p` significand bits (hidden bit included) and smallest
// normal exponent `emin` (subnormals below it), in round mode `m`. No overflow handling: the
// programs' values are far inside both formats.
double round_to(double v, int p, int emin, Mode m) {
  if (v == 0.0) return v;
  int ex = 0;
  (void)std::frexp(std::fabs(v), &ex);  // |v| = f * 2^ex, f in [0.5, 1)
  const int e = std::max(ex - 1, emin);
  const double ulp = std::ldexp(1.0, e - (p - 1));
  const double q = v / ulp;  // exact: a power-of-two scaling
  const double lo = std::floor(q), hi = lo + 1.0, frac = q - lo;
  if (frac == 0.0) return v;
  const bool lo_even = std::fmod(lo, 2.0) == 0.0;
  double u = lo;
  switch (m) {
    case Mode::Rint: u = frac < 0.5 ? lo : frac > 0.5 ? hi : (lo_even ? lo : hi); break;
    case Mode::Round: u = frac < 0.5 ? lo : frac > 0.5 ? hi : (v > 0 ? hi : lo); break;  // ties away from 0
    case Mode::Floor: u = lo; break;
    case Mode::Ceil: u = hi; break;
    case Mode::Trunc: u = v > 0 ? lo : hi; break;
    case Mode::Odd: u = lo_even ? hi : lo; break;
  }
  return u * ulp;
}
float to_half(double v, Mode m = Mode::Rint) { return static_cast<float>(round_to(v, 11, -14, m)); }
float to_bf16(double v, Mode m = Mode::Rint) { return static_cast<float>(round_to(v, 8, -126, m)); }

using Vec = std::vector<float>;
Vec map(const Vec& a, float (*f)(float)) {
  Vec out(a.size());
  std::transform(a.begin(), a.end(), out.begin(), f);
  return out;
}

// Column sums (rows in order), row maxima, and the broadcasts over [R, C].
struct Reductions {
  Vec col_sum, row_max;
  explicit Reductions(const Vec& y) : col_sum(C, 0.0f), row_max(R, -INFINITY) {
    for (int c = 0; c < C; ++c) {
      float s = y[c];
      for (int r = 1; r < R; ++r) s += y[r * C + c];
      col_sum[c] = s;
    }
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) row_max[r] = std::max(row_max[r], y[r * C + c]);
  }
};

// The outputs both programs' layout parts share: broadcasts of x by y's column sums and row
// maxima, x transposed, y's left half assembled into the right half of a 1.5-filled tensor.
void layout_common(const Vec& x, const Vec& y, Arrays& out) {
  const Reductions red(y);
  Vec cem(R * C), cea(R * C), ce(R * C), rem(R * C), rea(R * C), re(R * C), tr(C * R), asm_(R * C);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const int k = r * C + c;
      cem[k] = x[k] * red.col_sum[c];
      cea[k] = x[k] + red.col_sum[c];
      ce[k] = red.col_sum[c];
      rem[k] = x[k] * red.row_max[r];
      rea[k] = x[k] + red.row_max[r];
      re[k] = red.row_max[r];
      tr[c * R + r] = x[k];
      asm_[k] = c < C - H ? 1.5f : y[r * C + c - (C - H)];
    }
  out["cs"] = red.col_sum;
  out["cem"] = cem;
  out["cea"] = cea;
  out["ce"] = ce;
  out["rem"] = rem;
  out["rea"] = rea;
  out["re"] = re;
  out["tr"] = tr;
  out["asm"] = asm_;
}

Vec cast_all(const Vec& x, float (*to)(double, Mode), Mode m) {
  Vec out(x.size());
  for (size_t k = 0; k < x.size(); ++k) out[k] = to(x[k], m);
  return out;
}

}  // namespace

Arrays used_tile_ops_reference(const Arrays& in) {
  const auto& x = in.at("x");
  const auto& y = in.at("y");
  const auto& i = in.at("i");    // INT32 in [-8, 8]
  const auto& xh = in.at("xh");  // FP16 values
  Arrays out;
  // casts
  out["hr"] = cast_all(x, to_half, Mode::Rint);
  out["ha"] = cast_all(x, to_half, Mode::Round);
  out["hz"] = cast_all(x, to_half, Mode::Trunc);
  out["br"] = cast_all(x, to_bf16, Mode::Rint);
  out["bo"] = cast_all(x, to_bf16, Mode::Odd);
  Vec back(R * C), htr(R * C), hta(R * C), irint(R * C), iround(R * C), ifloor(R * C), iceil(R * C), itrunc(R * C);
  for (int k = 0; k < R * C; ++k) {
    back[k] = to_half(x[k], Mode::Floor) + to_bf16(x[k], Mode::Ceil);
    const float tie = i[k] * 0.00048828125f + 1.0f;
    htr[k] = to_half(tie, Mode::Rint);
    hta[k] = to_half(tie, Mode::Round);
    const float q = i[k] * 0.25f;
    irint[k] = std::nearbyint(q);  // the default FP environment rounds ties to even
    iround[k] = std::round(q);
    ifloor[k] = std::floor(q);
    iceil[k] = std::ceil(q);
    itrunc[k] = std::trunc(q);
  }
  // Chained by LegalizeTileCast on 910B: BF16 -> FP32 -> FP16 (exact through FP32) and
  // FP32 -> FP16 -> INT8, both truncating, which is the direct truncation for |v| < 2048.
  Vec bh(R * C), i8(R * C);
  for (int k = 0; k < R * C; ++k) {
    bh[k] = to_half(to_bf16(x[k], Mode::Rint), Mode::Rint);
    i8[k] = std::trunc(x[k] * 100.0f);
  }
  out["bh"] = bh;
  out["i8"] = i8;
  out["back"] = back;
  out["htr"] = htr;
  out["hta"] = hta;
  out["irint"] = irint;
  out["iround"] = iround;
  out["ifloor"] = ifloor;
  out["iceil"] = iceil;
  out["itrunc"] = itrunc;
  // math
  Vec mx(R * C), mn(R * C), rc(R * C), dv(R * C), sq(R * C), rs(R * C), lg(R * C), rch(R * C), rsh(R * C), sqh(R * C),
      dvh(R * C);
  for (int k = 0; k < R * C; ++k) {
    mx[k] = x[k] > y[k] ? x[k] : y[k];
    mn[k] = x[k] < y[k] ? x[k] : y[k];
    const float pos = std::fabs(y[k]) + 0.5f, ax = std::fabs(x[k]);
    rc[k] = 1.0f / pos;
    dv[k] = x[k] / pos;
    sq[k] = std::sqrt(ax);
    rs[k] = static_cast<float>(1.0 / std::sqrt(double(ax + 0.25f)));
    lg[k] = static_cast<float>(std::log(double(ax + 0.5f)));
    const double hpos = to_half(std::fabs(xh[k]) + 0.5);
    rch[k] = to_half(1.0 / hpos);
    rsh[k] = to_half(1.0 / std::sqrt(hpos));
    sqh[k] = to_half(std::sqrt(hpos));
    dvh[k] = to_half(xh[k] / hpos);
  }
  out["mx"] = mx;
  out["mn"] = mn;
  out["rc"] = rc;
  out["dv"] = dv;
  out["ng"] = map(x, [](float v) { return -v; });
  out["sq"] = sq;
  out["rs"] = rs;
  out["lg"] = lg;
  out["ab"] = map(x, [](float v) { return std::fabs(v); });
  out["rl"] = map(x, [](float v) { return v > 0.0f ? v : 0.0f; });
  out["rch"] = rch;
  out["rsh"] = rsh;
  out["sqh"] = sqh;
  out["dvh"] = dvh;
  // layout
  layout_common(x, y, out);
  out["rp"] = map(x, [](float v) { return v * 2.0f; });  // [16, 64] viewed as [32, 32]: same order
  Vec rw(y);
  rw[2 * C + 7] = x[3 * C + 5];
  const float scale = y[2 * C + 7];  // read after the write: the old value
  for (auto& v : rw) v *= scale;
  out["rw"] = rw;
  return out;
}

Arrays used_tensor_ops_reference(const Arrays& in) {
  const auto& x = in.at("x");
  const auto& y = in.at("y");
  constexpr int K = 16;
  Arrays out;
  // tensor_math
  out["h"] = cast_all(x, to_half, Mode::Rint);
  out["b"] = cast_all(x, to_bf16, Mode::Trunc);
  out["bk"] = cast_all(x, to_bf16, Mode::Round);
  out["ci"] = map(x, [](float v) { return std::floor(v * 8.0f); });
  Vec mx(R * C), mn(R * C), dv(R * C), rc(R * C), sq(R * C), rs(R * C), lg(R * C);
  for (int k = 0; k < R * C; ++k) {
    mx[k] = x[k] > y[k] ? x[k] : y[k];
    mn[k] = x[k] < y[k] ? x[k] : y[k];
    const float pos = std::fabs(y[k]) + 0.5f;
    dv[k] = x[k] / pos;
    rc[k] = 1.0f / pos;
    sq[k] = std::sqrt(pos);
    rs[k] = static_cast<float>(1.0 / std::sqrt(double(pos)));
    lg[k] = static_cast<float>(std::log(double(pos)));
  }
  out["mx"] = mx;
  out["mn"] = mn;
  out["dv"] = dv;
  out["rc"] = rc;
  out["ng"] = map(x, [](float v) { return -v; });
  out["sq"] = sq;
  out["rs"] = rs;
  out["lg"] = lg;
  out["ab"] = map(y, [](float v) { return std::fabs(v); });
  out["rl"] = map(x, [](float v) { return v > 0.0f ? v : 0.0f; });
  // tensor_layout
  layout_common(x, y, out);
  out["rp"] = x;
  Vec rw = map(y, [](float v) { return v * 2.0f; });
  rw[2 * C + 7] = x[3 * C + 5];
  out["rw"] = rw;
  Vec sc(x), sch = cast_all(x, to_half, Mode::Rint);
  for (int r = 0; r < R; ++r)
    for (int k = 0; k < K; ++k) {
      const int col = (3 * (K * r + k)) & 31;
      sc[r * C + col] = y[r * C + k];
      sch[r * C + col] = to_half(y[r * C + k]);
    }
  out["sc"] = sc;
  out["sch"] = sch;
  Vec sw(R * C);
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < C / 2; ++j) {
      sw[r * C + 2 * j] = x[r * C + 2 * j + 1];
      sw[r * C + 2 * j + 1] = 2.0f * x[r * C + 2 * j];
    }
  out["sw"] = sw;
  return out;
}

std::map<std::string, std::pair<float, float>> used_tile_ops_tolerance() {
  std::map<std::string, std::pair<float, float>> t;
  // Conversions, selections, copies and single IEEE operations are reproduced exactly.
  for (const char* n : {"hr", "ha", "hz", "htr", "hta", "br", "bo", "back", "irint", "iround", "ifloor", "iceil",
                        "itrunc", "bh", "i8", "mx", "mn", "rc", "dv", "ng", "sq", "ab", "rl", "ce", "re", "tr", "rp", "asm", "rw"})
    t[n] = {0.0f, 0.0f};
  // FP16 math: within one FP16 ulp (2^-10 relative) of the correctly rounded value.
  for (const char* n : {"rch", "rsh", "sqh", "dvh"}) t[n] = {1e-7f, 1e-3f};
  return t;
}

std::map<std::string, std::pair<float, float>> used_tensor_ops_tolerance() {
  std::map<std::string, std::pair<float, float>> t;
  for (const char* n : {"h", "b", "bk", "ci", "mx", "mn", "dv", "rc", "ng", "sq", "ab", "rl", "ce", "re", "tr", "rp",
                        "asm", "rw", "sc", "sch", "sw"})
    t[n] = {0.0f, 0.0f};
  return t;
}

}  // namespace pypto::e2e
