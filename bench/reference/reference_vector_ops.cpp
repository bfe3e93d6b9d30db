// Reference loops for the end-to-end programs of the extended vector instructions
// (e2e_select_sort.py, e2e_vector_math.py, e2e_tensor_ops.py), written from each op's documented semantics: compare
// + select, first-occurrence arg-max / arg-min, column concat, the 32-element block sort with its
// (value, uint32 index) pairs, flat-index gather, integer bitwise ops, C fmod vs Python-style
// remainder, exp(x - colmax), leaky relu, row-broadcast max.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "reference/reference.h"

namespace pypto::e2e {

namespace {
constexpr int R = 16, C = 64;
float bits_as_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
}  // namespace

Arrays select_sort_reference(const Arrays& in) {
  const auto& x = in.at("x");
  const auto& y = in.at("y");
  const auto& i = in.at("i");
  std::vector<float> mx(R * C), am(R), cc(R * 2 * C), srt(2 * C), g(C), bits(R * C);
  for (int k = 0; k < R * C; ++k) mx[k] = x[k] > y[k] ? x[k] : y[k];
  for (int r = 0; r < R; ++r) {
    int best = 0;
    for (int c = 1; c < C; ++c)
      if (x[r * C + c] > x[r * C + best]) best = c;
    am[r] = static_cast<float>(best);
    for (int c = 0; c < 2 * C; ++c) cc[r * 2 * C + c] = c < C ? x[r * C + c] : y[r * C + c - C];
  }
  // Row 0 sorted in blocks of 32, descending; ties keep the smaller index first.
  for (int b = 0; b < C / 32; ++b) {
    std::vector<int> idx(32);
    std::iota(idx.begin(), idx.end(), b * 32);
    std::stable_sort(idx.begin(), idx.end(), [&](int p, int q) { return x[p] > x[q]; });
    for (int k = 0; k < 32; ++k) {
      srt[2 * (b * 32 + k)] = x[idx[k]];
      srt[2 * (b * 32 + k) + 1] = bits_as_float(static_cast<uint32_t>(idx[k]));
    }
  }
  for (int c = 0; c < C; ++c) g[c] = x[C - 1 - c];
  for (int k = 0; k < R * C; ++k) {
    const int32_t v = static_cast<int32_t>(i[k]);
    bits[k] = static_cast<float>(((v & 6) << 1) ^ v);
  }
  return {{"mx", mx}, {"am", am}, {"cc", cc}, {"srt", srt}, {"g", g}, {"bits", bits}};
}

Arrays vector_math_reference(const Arrays& in) {
  const auto& x = in.at("x");
  std::vector<float> fm(R * C), rm(R * C), ed(R * C), lr(R * C), rx(R * C), ca(C);
  const double d = static_cast<double>(0.3f);
  for (int k = 0; k < R * C; ++k) {
    fm[k] = static_cast<float>(std::fmod(static_cast<double>(x[k]), d));  // sign of the dividend
    double r = std::fmod(static_cast<double>(x[k]), d);
    if (r != 0 && (r < 0) != (d < 0)) r += d;  // Python: sign of the divisor
    rm[k] = static_cast<float>(r);
    lr[k] = x[k] > 0 ? x[k] : x[k] * 0.1f;
  }
  for (int c = 0; c < C; ++c) {
    float m = -INFINITY;
    int arg = 0;
    for (int r = 0; r < R; ++r) {
      m = std::max(m, x[r * C + c]);
      if (x[r * C + c] < x[arg * C + c]) arg = r;
    }
    ca[c] = static_cast<float>(arg);
    for (int r = 0; r < R; ++r) ed[r * C + c] = std::exp(x[r * C + c] - m);
  }
  for (int r = 0; r < R; ++r) {
    float mn = INFINITY;
    for (int c = 0; c < C; ++c) mn = std::min(mn, x[r * C + c]);
    for (int c = 0; c < C; ++c) rx[r * C + c] = std::max(x[r * C + c], mn);
  }
  return {{"fm", fm}, {"rm", rm}, {"ed", ed}, {"lr", lr}, {"rx", rx}, {"ca", ca}};
}

Arrays tensor_ops_reference(const Arrays& in) {
  const auto& x = in.at("x");  // [16, 32]
  constexpr int rows = 16, cols = 32;
  std::vector<float> out(rows * 2 * cols), am(rows), gt(rows * cols), lt(rows * cols);
  for (int c = 0; c < cols; ++c) {
    float m = -INFINITY;
    for (int r = 0; r < rows; ++r) m = std::max(m, x[r * cols + c]);
    for (int r = 0; r < rows; ++r) {
      const float v = x[r * cols + c];
      const float fm = static_cast<float>(std::fmod(static_cast<double>(v), double(0.3f)));
      const float ed = std::exp(v - m);
      out[r * 2 * cols + c] = fm;
      out[r * 2 * cols + cols + c] = ed;
      gt[r * cols + c] = v > 0.0f ? 1.0f : 0.0f;
      lt[r * cols + c] = fm < ed ? 1.0f : 0.0f;
    }
  }
  for (int r = 0; r < rows; ++r) {
    int best = 0;
    for (int c = 1; c < cols; ++c)
      if (x[r * cols + c] > x[r * cols + best]) best = c;
    am[r] = static_cast<float>(best);
  }
  const auto& idx = in.at("i");  // [16, 8] INT32 in [-8, 8]; column i & 7
  std::vector<float> g(rows * 8);
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < 8; ++k) g[r * 8 + k] = x[r * cols + (static_cast<int32_t>(idx[r * 8 + k]) & 7)];
  return {{"out", out}, {"am", am}, {"gt", gt}, {"lt", lt}, {"g", g}};
}

}  // namespace pypto::e2e
