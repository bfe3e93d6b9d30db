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
  const int64_t R = (*shape)[0], C = tile_row_pitch(t, sp);
  // Implicit layouts per memory space (ir-and-passes.md §1.3, output-format.md §2.2).
  TileLayout b = TileLayout::row_major, s = TileLayout::none_box;
  int64_t fractal = 512;
  switch (space) {
    case MemorySpace::Vec: b = (C == 1 && R > 1) ? TileLayout::col_major : TileLayout::row_major; break;
    case MemorySpace::Mat: b = TileLayout::col_major; s = TileLayout::row_major; break;
    case MemorySpace::Left:
      b = soc.left_col_major ? TileLayout::col_major : TileLayout::row_major;
      s = TileLayout::row_major;
      break;
    case MemorySpace::Right: s = TileLayout::col_major; break;
    case MemorySpace::Acc: b = TileLayout::col_major; s = TileLayout::row_major; fractal = 1024; break;
    default: break;
  }
  PadValue pad = PadValue::null;
  bool compact = false;
  if (t.view) {
    if (t.view->blayout) b = *t.view->blayout;
    if (t.view->slayout) s = *t.view->slayout;
    if (t.view->fractal) fractal = *t.view->fractal;
    if (t.view->pad) pad = *t.view->pad;
    compact = t.view->compact == CompactMode::normal;
  }
  const std::string ty = c_type(t.dtype);
  return {fmt::format("{}_{}_{}x{}", tile_type_name(space, sp), ty, R, C),
          fmt::format("Tile<TileType::{}, {}, {}, {}, {}, -1, -1, {}, {}, {}, {}>", tile_type_name(space, sp), ty, R, C,
                      blayout_text(b), slayout_text(s), fractal, pad_text(pad),
                      compact ? "CompactMode::Normal" : "CompactMode::Null")};
}

GmViewSpelling gm_view_spelling(const TensorType& t, const std::vector<int64_t>& window, const Span& sp) {
  const size_t n = t.shape.size();
  if (n == 0 || n > 5 || window.size() != n)
    unreachable(sp, "a GM window whose rank differs from the tensor's (or is above 5)");
  if (t.view && t.view->layout != TensorLayout::ND) unreachable(sp, "a non-ND tensor layout in a kernel");
  std::vector<int64_t> strides(n, 1);
  if (t.view && !t.view->stride.empty()) {
    for (size_t k = 0; k < n; ++k) {
      auto s = const_int_value(t.view->stride[k]);
      if (!s) unreachable(sp, "a tensor with dynamic strides in a kernel");
      strides[k] = *s;
    }
  } else {
    const auto dims = static_shape(t.shape);
    if (!dims) unreachable(sp, "a dynamically shaped tensor without explicit strides in a kernel");
    for (size_t k = n - 1; k > 0; --k) strides[k - 1] = strides[k] * (*dims)[k];
  }
  std::vector<int64_t> shp(5, 1), str(5, window[0] * strides[0]);
  for (size_t k = 0; k < n; ++k) {
    shp[5 - n + k] = window[k];
    str[5 - n + k] = strides[k];
  }
  const std::string ty = c_type(t.dtype);
  return {{fmt::format("Gm_{}_{}", ty, fmt::join(window, "x")),
           fmt::format("GlobalTensor<{}, pto::Shape<{}>, pto::Stride<{}>, pto::Layout::ND>", ty, fmt::join(shp, ", "),
                       fmt::join(str, ", "))},
          strides};
}

}  // namespace pypto::emit
