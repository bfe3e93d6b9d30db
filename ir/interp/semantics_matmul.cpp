// Reference semantics of the matrix ops: C = A·B with the products summed in double and the
// result rounded once to the output dtype (the cube unit accumulates in FP32; the oracle is more
// precise, so comparisons use the dtype tolerance). matmul_acc adds to an accumulator, matmul_bias
// adds a bias row; batch_matmul runs over the leading dim; gemv is a matmul with one row.
// Transposes (a_trans / b_trans) are read from the kwargs of the tensor form. The MX matmuls
// (950) weigh each product by its row's and column's scales for its group of 32 along K:
// C[i][j] = Σ_p A[i][p]·B[p][j]·SA[i][p/32]·SB[p/32][j] (the FP8E8M0 scale tiles hold 2^(e-127));
// tget_scale_addr, an address binding, passes its scale through.
#include <fmt/format.h>

#include "ir/interp/op_semantics.h"

namespace pypto::ir::interp {
namespace {

// acc (may be null) + lhs·rhs into out; all rank 2 after the batch offset.
void gemm(const OpEval& e, const Array& out, const Array& lhs, const Array& rhs, const Array* acc, const Array* bias,
          bool at, bool bt, const std::vector<int64_t>& lead) {
  const size_t r = lhs.shape.size();
  const int64_t m = at ? lhs.shape[r - 1] : lhs.shape[r - 2];
  const int64_t k = at ? lhs.shape[r - 2] : lhs.shape[r - 1];
  const size_t rr = rhs.shape.size();
  const int64_t k2 = bt ? rhs.shape[rr - 1] : rhs.shape[rr - 2];
  const int64_t n = bt ? rhs.shape[rr - 2] : rhs.shape[rr - 1];
  if (k != k2) e.fail(fmt::format("matmul of {} and {}: inner extents {} and {} differ", shape_text(lhs.shape), shape_text(rhs.shape), k, k2));
  // Storage positions: the batch offset `lead` applied to the leading dims, then (i, j) strides.
  struct View2 {
    const double* base;
    int64_t si, sj;
  };
  auto view2 = [&](const Array& a) {
    const size_t ra = a.shape.size();
    int64_t off = a.offset;
    for (size_t d = 0; d + 2 < ra && d < lead.size(); ++d) off += lead[d] * a.strides[d];
    return View2{a.data->data() + off, a.strides[ra - 2], a.strides[ra - 1]};
  };
  const View2 L = view2(lhs), R = view2(rhs);
  // Element (i, p) of op(lhs) and (p, j) of op(rhs): a transposed operand swaps its strides.
  const int64_t li = at ? L.sj : L.si, lp = at ? L.si : L.sj;
  const int64_t rp = bt ? R.sj : R.si, rj = bt ? R.si : R.sj;
  auto idx = [&](const Array& a, int64_t i, int64_t j) {
    std::vector<int64_t> v(lead.begin(), lead.end());
    v.resize(a.shape.size() - 2, 0);
    v.push_back(i);
    v.push_back(j);
    return v;
  };
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = acc ? acc->at(idx(*acc, i, j)) : 0.0;
      if (bias) s += bias->at(bias->rank() == 2 ? std::vector<int64_t>{0, j} : std::vector<int64_t>{j});
      const double* a = L.base + i * li;
      const double* b = R.base + j * rj;
      for (int64_t p = 0; p < k; ++p) s += a[p * lp] * b[p * rp];
      out.set(idx(out, i, j), s);
    }
}

Value matmul(const OpEval& e, int acc_arg, int bias_arg) {
  Array out = e.result();
  const int first = acc_arg >= 0 ? 1 : 0;
  const Array& lhs = e.arr(static_cast<size_t>(first));
  const Array& rhs = e.arr(static_cast<size_t>(first + 1));
  const Array* acc = acc_arg >= 0 ? &e.arr(static_cast<size_t>(acc_arg)) : nullptr;
  const Array* bias = bias_arg >= 0 ? &e.arr(static_cast<size_t>(bias_arg)) : nullptr;
  const bool at = e.kw_bool("a_trans", false), bt = e.kw_bool("b_trans", false);
  if (out.rank() <= 2) {
    gemm(e, out, lhs, rhs, acc, bias, at, bt, {});
  } else {
    for (int64_t b = 0; b < out.shape[0]; ++b) gemm(e, out, lhs, rhs, acc, bias, at, bt, {b});
  }
  return Value::array(out);
}

// (lhs, lhs_scale, rhs, rhs_scale) at arguments b..b+3, plus an accumulator / bias operand.
Value matmul_mx(const OpEval& e, size_t b, int acc_arg, int bias_arg) {
  Array out = e.result();
  const Array &A = e.arr(b), &SA = e.arr(b + 1), &B = e.arr(b + 2), &SB = e.arr(b + 3);
  const int64_t m = A.shape[0], k = A.shape[1], n = B.shape[1];
  if (B.shape[0] != k) e.fail(fmt::format("MX matmul of {} and {}: inner extents differ", shape_text(A.shape), shape_text(B.shape)));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = acc_arg >= 0 ? e.arr(static_cast<size_t>(acc_arg)).at({i, j}) : 0.0;
      if (bias_arg >= 0) s += e.arr(static_cast<size_t>(bias_arg)).at({0, j});
      for (int64_t p = 0; p < k; ++p) s += A.at({i, p}) * B.at({p, j}) * SA.at({i, p / 32}) * SB.at({p / 32, j});
      out.set({i, j}, s);
    }
  return Value::array(out);
}

}  // namespace

void define_matmul(OpRegistry& r) {
  define(r, "tile.matmul_mx", [](const OpEval& e) { return matmul_mx(e, 0, -1, -1); });
  define(r, "tile.matmul_mx_acc", [](const OpEval& e) { return matmul_mx(e, 1, 0, -1); });
  define(r, "tile.matmul_mx_bias", [](const OpEval& e) { return matmul_mx(e, 0, -1, 4); });
  define(r, "tile.tget_scale_addr", [](const OpEval& e) { return e.args[0]; });
  for (const char* f : {"tensor.matmul", "tile.matmul", "tile.batch_matmul", "tile.gemv"})
    define(r, f, [](const OpEval& e) { return matmul(e, -1, -1); });
  for (const char* f : {"tensor.matmul_acc", "tile.matmul_acc", "tile.batch_matmul_acc", "tile.gemv_acc"})
    define(r, f, [](const OpEval& e) { return matmul(e, 0, -1); });
  define(r, "tile.matmul_bias", [](const OpEval& e) { return matmul(e, -1, 2); });
}

}  // namespace pypto::ir::interp
