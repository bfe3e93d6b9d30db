// Tile / GlobalTensor type spellings (kernel_types.h).
#include "emit/kernel_types.h"

#include <fmt/format.h>

#include "emit/c_expr.h"
#include "ir/expr.h"

namespace pypto::emit {

using namespace ir;

namespace {

[[noreturn]] void unreachable(const Span& sp, const std::string& what) {
  unreachable_form("kernel emitter", sp, what, "CheckKernelForms");
}

std::string_view tile_type_name(MemorySpace s, const Span& sp) {
  switch (s) {
    case MemorySpace::Vec: return "Vec";
    case MemorySpace::Mat: return "Mat";
    case MemorySpace::Left: return "Left";
    case MemorySpace::Right: return "Right";
    case MemorySpace::Acc: return "Acc";
    case MemorySpace::Bias: return "Bias";
    case MemorySpace::LeftScale: return "ScaleLeft";
    case MemorySpace::RightScale: return "ScaleRight";
    default: unreachable(sp, fmt::format("a tile in memory space {}", to_string(s)));
  }
}

std::string_view blayout_text(TileLayout l) { return l == TileLayout::col_major ? "BLayout::ColMajor" : "BLayout::RowMajor"; }
std::string_view slayout_text(TileLayout l) {
  return l == TileLayout::row_major ? "SLayout::RowMajor" : l == TileLayout::col_major ? "SLayout::ColMajor" : "SLayout::NoneBox";
}
std::string_view pad_text(PadValue p) {
  switch (p) {
    case PadValue::zero: return "PadValue::Zero";
    case PadValue::max: return "PadValue::Max";
    case PadValue::min: return "PadValue::Min";
    default: return "PadValue::Null";
  }
}

// A window of an MX scale tensor (logical [M, G] in MX_A_ZZ, [G, N] in MX_B_NN; the type rule
// keeps extents constant and windows on the 16 x 2 / 2 x 16 boxes). pto-isa describes the packed
// order as five dimensions: <1, boxes along M (N), box pairs along G, 16, 2> with strides
// <-, G * 16, 32, 2, 1> of the whole tensor's G. A window origin (r, c) is r * G + c * 16 elements
// in (A) or r * 16 + c * G (B): the `strides` the caller multiplies the offsets by.
GmViewSpelling mx_view_spelling(const TensorType& t, const std::vector<ExprPtr>& window, const Span& sp) {
  const bool a = t.view->layout == TensorLayout::MX_A_ZZ;
  const auto full = static_shape(t.shape);
  const auto w = static_shape(window);
  if (!full || !w || full->size() != 2) unreachable(sp, "an MX scale window without constant 2-D extents");
  const int64_t G = a ? (*full)[1] : (*full)[0];
  const int64_t boxes = a ? (*w)[0] / 16 : (*w)[1] / 16, pairs = a ? (*w)[1] / 2 : (*w)[0] / 2;
  const std::string ty = c_type(t.dtype), lay = a ? "MX_A_ZZ" : "MX_B_NN";
  GmViewSpelling r;
  r.type = {fmt::format("Gm_{}_{}_{}x{}", ty, lay, (*w)[0], (*w)[1]),
            fmt::format("GlobalTensor<{}, pto::Shape<1, {}, {}, 16, 2>, pto::Stride<{}, {}, 32, 2, 1>, pto::Layout::{}>", ty,
                        boxes, pairs, (*full)[0] * (*full)[1], G * 16, lay)};
  r.strides = a ? std::vector<std::string>{std::to_string(G), "16"} : std::vector<std::string>{"16", std::to_string(G)};
  return r;
}

}  // namespace

int64_t tile_row_pitch(const TileType& t, const Span& sp) {
  const auto shape = static_shape(t.shape);
  if (!shape || shape->size() != 2) unreachable(sp, "a tile that is not 2-D with a static shape");
  if (t.view && t.view->stride.size() == 2) {
    const auto p = const_int_value(t.view->stride[0]);
    if (!p || const_int_value(t.view->stride[1]) != 1) unreachable(sp, "a tile view with a dynamic or non-unit stride");
    return *p;
  }
  return (*shape)[1];
}

TypeSpelling tile_type_spelling(const TileType& t, const SocInfo& soc, const Span& sp) {
  const auto shape = static_shape(t.shape);
  if (!shape || shape->size() != 2) unreachable(sp, "a tile that is not 2-D with a static shape");
  const MemorySpace space = t.space.value_or(MemorySpace::Vec);
  int64_t R = (*shape)[0], C = tile_row_pitch(t, sp);
  // A window of a fractal-layout tile (Acc, Mat) is that tile's Tile type (InitMemRef's
  // buffer_shape); its own extents are the valid shape the declaration gives.
  if (t.view && t.view->buffer_shape.size() == 2) {
    const auto br = const_int_value(t.view->buffer_shape[0]), bc = const_int_value(t.view->buffer_shape[1]);
    if (!br || !bc) unreachable(sp, "a window of a tile without a static shape");
    R = *br, C = *bc;
  }
  // The view's layouts, else the implicit ones of the space (ir-and-passes.md §1.3).
  const TileLayouts l = effective_layouts(t, soc.left_col_major);
  const TileLayout b = l.blayout, s = l.slayout;
  const int64_t fractal = l.fractal;
  PadValue pad = PadValue::null;
  bool compact = false;
  if (t.view) {
    if (t.view->pad) pad = *t.view->pad;
    compact = t.view->compact == CompactMode::normal;
  }
  const std::string ty = c_type(t.dtype);
  return {fmt::format("{}_{}_{}x{}", tile_type_name(space, sp), ty, R, C),
          fmt::format("Tile<TileType::{}, {}, {}, {}, {}, -1, -1, {}, {}, {}, {}>", tile_type_name(space, sp), ty, R, C,
                      blayout_text(b), slayout_text(s), fractal, pad_text(pad),
                      compact ? "CompactMode::Normal" : "CompactMode::Null")};
}

GmViewSpelling gm_view_spelling(const TensorType& t, const std::vector<ExprPtr>& window,
                                const std::function<std::string(const ExprPtr&)>& expr, const Span& sp) {
  const size_t n = t.shape.size();
  if (n == 0 || n > 5 || window.size() != n)
    unreachable(sp, "a GM window whose rank differs from the tensor's (or is above 5)");
  if (t.view && (t.view->layout == TensorLayout::MX_A_ZZ || t.view->layout == TensorLayout::MX_B_NN))
    return mx_view_spelling(t, window, sp);
  if (t.view && t.view->layout != TensorLayout::ND) unreachable(sp, "a non-ND tensor layout in a kernel");
  // Strides: a constant, or the C++ expression of a dynamic one.
  std::vector<std::optional<int64_t>> cs(n);
  std::vector<std::string> ss(n);
  if (t.view && !t.view->stride.empty()) {
    if (t.view->stride.size() != n) unreachable(sp, "a tensor whose strides do not match its rank");
    for (size_t k = 0; k < n; ++k) {
      cs[k] = const_int_value(t.view->stride[k]);
      ss[k] = cs[k] ? std::to_string(*cs[k]) : "(" + expr(t.view->stride[k]) + ")";
    }
  } else {
    cs[n - 1] = 1;
    ss[n - 1] = "1";
    for (size_t k = n - 1; k > 0; --k) {
      const auto d = const_int_value(t.shape[k]);
      if (cs[k] && d) {
        cs[k - 1] = *cs[k] * *d;
        ss[k - 1] = std::to_string(*cs[k - 1]);
      } else {
        const std::string dt = d ? std::to_string(*d) : "(" + expr(t.shape[k]) + ")";
        ss[k - 1] = cs[k] == 1 ? dt : fmt::format("{} * {}", ss[k], dt);
      }
    }
  }
  // Five dims, the window right-aligned; the leading unit dims take the outermost stride times
  // the outermost extent (any value serves an extent of 1).
  std::vector<std::optional<int64_t>> shp(5, 1), str(5);
  std::vector<std::string> shp_t(5, "1"), str_t(5);
  const auto w0 = const_int_value(window[0]);
  const std::optional<int64_t> outer = w0 && cs[0] ? std::optional<int64_t>(*w0 * *cs[0]) : std::nullopt;
  for (size_t k = 0; k < 5; ++k) str[k] = outer, str_t[k] = outer ? std::to_string(*outer) : "1";
  if (!outer) std::fill(str.begin(), str.end(), std::optional<int64_t>(1));
  bool dynamic = false;
  std::vector<std::string> alias_dims;
  for (size_t k = 0; k < n; ++k) {
    const auto w = const_int_value(window[k]);
    shp[5 - n + k] = w;
    shp_t[5 - n + k] = w ? std::to_string(*w) : "(" + expr(window[k]) + ")";
    str[5 - n + k] = cs[k];
    str_t[5 - n + k] = ss[k];
    dynamic |= !w || !cs[k];
    alias_dims.push_back(w ? std::to_string(*w) : "d");
  }
  auto tparams = [](const std::vector<std::optional<int64_t>>& v) {
    std::vector<std::string> out;
    for (const auto& x : v) out.push_back(x ? std::to_string(*x) : "-1");
    return fmt::format("{}", fmt::join(out, ", "));
  };
  const std::string ty = c_type(t.dtype);
  GmViewSpelling r;
  const std::string shape_t = fmt::format("pto::Shape<{}>", tparams(shp)), stride_t = fmt::format("pto::Stride<{}>", tparams(str));
  r.type = {fmt::format("Gm_{}_{}", ty, fmt::join(alias_dims, "x")),
            fmt::format("GlobalTensor<{}, {}, {}, pto::Layout::ND>", ty, shape_t, stride_t)};
  r.strides = ss;
  if (dynamic) {
    r.shape_arg = fmt::format("{}({})", shape_t, fmt::join(shp_t, ", "));
    r.stride_arg = fmt::format("{}({})", stride_t, fmt::join(str_t, ", "));
  }
  return r;
}

}  // namespace pypto::emit
