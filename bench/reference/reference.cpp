// Reference loops for the end-to-end programs. Tolerances are for FP32 with libm exp.
#include "reference/reference.h"

#include <algorithm>
#include <cmath>

namespace pypto::e2e {
namespace {

Arrays square(const Arrays& in) {
  const auto& x = in.at("x");
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] * x[i];
  return {{"out", out}};
}

constexpr float kAlpha = 1.5f;  // matches the --scalar below

Arrays elementwise(const Arrays& in) {
  const auto& x = in.at("x");
  const auto& y = in.at("y");
  std::vector<float> z(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    float s = kAlpha * x[i] + y[i] - 0.5f;
    z[i] = std::max(s, 0.0f) * 0.25f;
  }
  return {{"z", z}};
}

Arrays softmax(const Arrays& in) {
  const auto& x = in.at("x");
  const int rows = 64, cols = 128;
  std::vector<float> out(x.size());
  for (int r = 0; r < rows; ++r) {
    float m = -INFINITY;
    for (int c = 0; c < cols; ++c) m = std::max(m, x[r * cols + c]);
    float sum = 0;
    for (int c = 0; c < cols; ++c) sum += std::exp(x[r * cols + c] - m);
    for (int c = 0; c < cols; ++c) out[r * cols + c] = std::exp(x[r * cols + c] - m) / sum;
  }
  return {{"out", out}};
}

// e2e_tile_windows.py: windows (pl.slice) of Vec tiles.
Arrays tile_windows(const Arrays& in) {
  const auto& x = in.at("x");    // [32, 64]
  const auto& s = in.at("src");  // [32, 16]
  const int R = 32, C = 64;
  std::vector<float> rows(x), cols(R * 16), nested(64), picked(8);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < 16; ++j) {
      rows[i * C + 16 + j] = s[i * 16 + j] * 2.0f;
      cols[i * 16 + j] = x[i * C + 32 + j] + 1.0f;
    }
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) nested[i * 8 + j] = x[(12 + i) * C + 24 + j] * 3.0f;
  for (auto& p : picked) p = x[14 * C + 27];
  return {{"rows", rows}, {"cols", cols}, {"nested", nested}, {"picked", picked}};
}

// e2e_gm_scalars.py: row block b of x scaled by w[b, 1], a scalar loaded from GM in the kernel.
Arrays gm_scalars(const Arrays& in) {
  const auto& x = in.at("x");  // [64, 32]
  const auto& w = in.at("w");  // [4, 8]
  std::vector<float> out(x.size());
  for (size_t i = 0; i < 64; ++i)
    for (size_t j = 0; j < 32; ++j) out[i * 32 + j] = x[i * 32 + j] * w[(i / 16) * 8 + 1];
  return {{"out", out}};
}

Arrays row_offset(const Arrays& in) {
  const auto& x = in.at("x");
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] * 2.0f + 1.0f;
  return {{"out", out}};
}

Arrays chain(const Arrays& in) {
  const auto& x = in.at("x");
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] * 3.0f + 1.0f;
  return {{"out", out}};
}

Arrays matmul(const Arrays& in) {
  const auto& a = in.at("a");  // [64,128], FP16 values widened to float
  const auto& b = in.at("b");  // [128,64]
  const int m = 64, n = 64, k = 128;
  std::vector<float> out(m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int x = 0; x < k; ++x) acc += double(a[i * k + x]) * double(b[x * n + j]);
      out[i * n + j] = float(acc);
    }
  return {{"out", out}};
}

// levels.py: square_tensor (tensor level) and square_tile (tile level) both compute x * x.
Arrays levels(const Arrays& in) {
  const auto& x = in.at("x");
  std::vector<float> sq(x.size());
  for (size_t i = 0; i < x.size(); ++i) sq[i] = x[i] * x[i];
  return {{"out_t", sq}, {"out_k", sq}};
}

// quickstart_add.py / quickstart_program.py: out = a + b.
Arrays add(const Arrays& in) {
  const auto& a = in.at("a");
  const auto& b = in.at("b");
  std::vector<float> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
  return {{"out", out}};
}

// e2e_tensor_level.py: out = 2 * softmax(x) + x, row-wise over [32, 64].
Arrays tensor_level(const Arrays& in) {
  const auto& x = in.at("x");
  const int rows = 32, cols = 64;
  std::vector<float> out(x.size());
  for (int r = 0; r < rows; ++r) {
    double m = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c) m = std::max(m, double(x[r * cols + c]));
    for (int c = 0; c < cols; ++c) sum += std::exp(double(x[r * cols + c]) - m);
    for (int c = 0; c < cols; ++c)
      out[r * cols + c] = float(2.0 * std::exp(double(x[r * cols + c]) - m) / sum + double(x[r * cols + c]));
  }
  return {{"out", out}};
}

// block_sum with n = 3 (the doubling branch) and n = 1 (the exp branch).
Arrays control_flow(const Arrays& in, int n) {
  const auto& x = in.at("x");  // [256, 128]
  const int blk = 64, cols = 128;
  std::vector<float> acc(x.begin(), x.begin() + blk * cols);
  for (int b = 1; b < 4; ++b)
    for (int i = 0; i < blk * cols; ++i) acc[i] += x[b * blk * cols + i];
  for (auto& v : acc) v = n > 2 ? v * 2.0f : std::exp(v);
  const float corner = acc[0];
  for (auto& v : acc) v += corner;
  return {{"out", acc}};
}
Arrays control_flow_double(const Arrays& in) { return control_flow(in, 3); }
Arrays control_flow_exp(const Arrays& in) { return control_flow(in, 1); }
Arrays live_tiles_n3(const Arrays& in) { return live_tiles_reference(in, 3); }
Arrays live_tiles_n1(const Arrays& in) { return live_tiles_reference(in, 1); }

}  // namespace

const std::vector<ProgramCase>& program_cases() {
  static const std::vector<ProgramCase> cases = {
      {"square", "e2e_square.py", {}, {"out"}, square, 1e-6f, 1e-6f},
      {"elementwise", "e2e_elementwise.py", {"alpha=1.5"}, {"z"}, elementwise, 1e-6f, 1e-5f},
      {"softmax", "e2e_softmax.py", {}, {"out"}, softmax, 1e-6f, 1e-4f},
      {"row_offset", "e2e_row_offset.py", {}, {"out"}, row_offset, 1e-6f, 1e-6f},
      {"chain", "e2e_chain.py", {}, {"out"}, chain, 1e-6f, 1e-6f},
      // Exact: windows move no data and each output is one FP32 operation.
      {"gm_scalars", "e2e_gm_scalars.py", {}, {"out"}, gm_scalars, 0.0f, 0.0f},
      {"tile_windows", "e2e_tile_windows.py", {}, {"rows", "cols", "nested", "picked"}, tile_windows, 0.0f, 0.0f},
      // FP32 accumulation of 128 products of FP16 values in [-1, 1): order-dependent rounding only.
      {"matmul", "e2e_matmul.py", {}, {"out"}, matmul, 1e-4f, 1e-4f},
      {"control_flow_double", "e2e_control_flow.py", {"n=3"}, {"out"}, control_flow_double, 1e-5f, 1e-6f},
      {"control_flow_exp", "e2e_control_flow.py", {"n=1"}, {"out"}, control_flow_exp, 1e-5f, 1e-5f},
      // Tensor-level programs (feature class b): outlined scopes / tensor ops lowered to tiles.
      {"levels", "levels.py", {}, {"out_t", "out_k"}, levels, 1e-6f, 1e-6f},
      {"quickstart_add", "quickstart_add.py", {}, {"out"}, add, 1e-6f, 1e-6f},
      {"quickstart_program", "quickstart_program.py", {}, {"out"}, add, 1e-6f, 1e-6f},
      {"tensor_level", "e2e_tensor_level.py", {}, {"out"}, tensor_level, 1e-5f, 1e-4f},
      // Extended vector instructions: exact (selects, sorts, gathers, integers) and FP32 math.
      {"select_sort", "e2e_select_sort.py", {}, {"mx", "am", "cc", "srt", "g", "bits"}, select_sort_reference, 0.0f, 0.0f},
      {"vector_math", "e2e_vector_math.py", {}, {"fm", "rm", "ed", "lr", "rx", "ca"}, vector_math_reference, 1e-6f, 1e-5f},
      {"tensor_ops", "e2e_tensor_ops.py", {}, {"out", "am", "gt", "lt", "g"}, tensor_ops_reference, 1e-6f, 1e-5f},
      // Tiles still read while a buffer they could share is written (InitMemRef's copies).
      {"live_tiles_n3", "e2e_live_tiles.py", {"n=3"}, {"body", "after", "carry", "swapped", "picked", "aliased", "written"},
       live_tiles_n3, 1e-5f, 1e-6f},
      {"live_tiles_n1", "e2e_live_tiles.py", {"n=1"}, {"body", "after", "carry", "swapped", "picked", "aliased", "written"},
       live_tiles_n1, 1e-5f, 1e-6f},
      // The vector ops real programs use most (casts in every round mode, math, broadcasts,
      // layout, element access, scatter): exact where the result is a single rounding.
      {"used_tile_ops", "e2e_used_tile_ops.py", {},
       {"hr", "ha", "hz", "htr", "hta", "br", "bo", "back", "irint", "iround", "ifloor", "iceil", "itrunc", "bh", "i8",
        "mx", "mn", "rc", "dv", "ng", "sq", "rs", "lg", "ab", "rl", "rch", "rsh", "sqh", "dvh",
        "cs", "cem", "cea", "ce", "rem", "rea", "re", "tr", "rp", "asm", "rw"},
       used_tile_ops_reference, 1e-6f, 1e-6f, used_tile_ops_tolerance()},
      {"used_tensor_ops", "e2e_used_tensor_ops.py", {},
       {"h", "b", "bk", "ci", "mx", "mn", "dv", "rc", "ng", "sq", "rs", "lg", "ab", "rl",
        "cs", "cem", "cea", "ce", "rem", "rea", "re", "tr", "rp", "asm", "rw", "sc", "sch", "sw"},
       used_tensor_ops_reference, 1e-6f, 1e-6f, used_tensor_ops_tolerance()},
  };
  return cases;
}

const ProgramCase* find_case(const std::string& name) {
  for (const auto& c : program_cases())
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace pypto::e2e
