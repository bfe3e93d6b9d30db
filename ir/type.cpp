// Type helpers: shared scalar types, type nouns for messages, static shapes, byte sizes,
// facet-replacing copies, implicit tile layouts.
#include "ir/type.h"

#include <algorithm>

#include <array>

#include "ir/expr.h"

namespace pypto::ir {

TypePtr scalar_type(DataType dt) {
  static const auto table = [] {
    std::array<TypePtr, 32> t{};
    for (int i = 0; i <= static_cast<int>(DataType::TASK_ID); ++i)
      t[i] = std::make_shared<ScalarType>(static_cast<DataType>(i));
    return t;
  }();
  return table[static_cast<size_t>(dt)];
}

TypePtr ptr_type() {
  static const TypePtr p = std::make_shared<PtrType>();
  return p;
}

TypePtr comm_ctx_type() {
  static const TypePtr p = std::make_shared<PtrType>(HandleKind::CommCtx);
  return p;
}

TypePtr array_type(DataType dt, int64_t extent) { return std::make_shared<ArrayType>(dt, extent); }

std::string_view type_noun(const TypePtr& t) {
  if (!t) return "no value";
  switch (t->kind) {
    case TypeKind::Scalar: return "a scalar";
    case TypeKind::Tensor: return static_cast<const TensorType&>(*t).distributed ? "a DistributedTensor" : "a Tensor";
    case TypeKind::Tile: return "a Tile";
    case TypeKind::Tuple: return "a tuple";
    case TypeKind::Ptr: return is_comm_ctx(t) ? "a CommCtx" : "a pointer";
    case TypeKind::Array: return "an Array";
  }
  return "a value";
}

std::optional<std::vector<int64_t>> static_shape(const std::vector<ExprPtr>& shape) {
  std::vector<int64_t> out;
  out.reserve(shape.size());
  for (const auto& d : shape) {
    auto v = const_int_value(d);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

std::optional<int64_t> byte_size(const ShapedType& t) {
  auto s = static_shape(t.shape);
  if (!s) return std::nullopt;
  int64_t bits = dtype_bits(t.dtype);
  for (int64_t d : *s) {
    if (d <= 0) return 0;
    if (__builtin_mul_overflow(bits, d, &bits) || bits > kByteSizeTooLarge) return kByteSizeTooLarge;
  }
  return std::min((bits + 7) / 8, kByteSizeTooLarge);
}

std::string shape_limit_violation(const ShapedType& t) {
  for (size_t i = 0; i < t.shape.size(); ++i)
    if (auto d = const_int_value(t.shape[i])) {
      if (*d < 0) return "extent " + std::to_string(i) + " is negative (" + std::to_string(*d) + ")";
      if (*d > kMaxExtent)
        return "extent " + std::to_string(i) + " (" + std::to_string(*d) + ") is larger than " + std::to_string(kMaxExtent);
    }
  if (auto b = byte_size(t); b && *b > kMaxBytes) return "it holds more than 2^48 bytes";
  return "";
}

bool binds_as_leading_elements(const TypePtr& param, const TypePtr& arg) {
  const auto* p = as_tensor(param);
  const auto* a = as_tensor(arg);
  if (!p || !a || p->dtype != a->dtype) return false;
  auto ps = static_shape(p->shape), as = static_shape(a->shape);
  if (!ps || !as || *ps == *as) return false;
  int64_t np = 1, na = 1;  // element counts; an overflowing product binds nothing
  for (int64_t d : *ps)
    if (__builtin_mul_overflow(np, d, &np)) return false;
  for (int64_t d : *as)
    if (__builtin_mul_overflow(na, d, &na)) return false;
  return np <= na;
}

std::shared_ptr<const TileType> with_space(const TileType& t, std::optional<MemorySpace> sp) {
  return std::make_shared<TileType>(t.dtype, t.shape, sp, t.view, t.memref);
}
std::shared_ptr<const TileType> with_memref(const TileType& t, std::optional<MemRef> m) {
  return std::make_shared<TileType>(t.dtype, t.shape, t.space, t.view, std::move(m));
}
std::shared_ptr<const TensorType> with_memref(const TensorType& t, std::optional<MemRef> m) {
  return std::make_shared<TensorType>(t.dtype, t.shape, t.view, std::move(m), t.distributed);
}
std::shared_ptr<const TensorType> with_view(const TensorType& t, std::optional<TensorView> v) {
  return std::make_shared<TensorType>(t.dtype, t.shape, std::move(v), t.memref, t.distributed);
}

TileLayouts implicit_layouts(MemorySpace space, int64_t rows, int64_t cols, bool left_col_major) {
  switch (space) {
    case MemorySpace::Vec:
      return {(cols == 1 && rows > 1) ? TileLayout::col_major : TileLayout::row_major, TileLayout::none_box, 512};
    case MemorySpace::Mat: return {TileLayout::col_major, TileLayout::row_major, 512};
    case MemorySpace::Left:
      return {left_col_major ? TileLayout::col_major : TileLayout::row_major, TileLayout::row_major, 512};
    case MemorySpace::Right: return {TileLayout::row_major, TileLayout::col_major, 512};
    case MemorySpace::Acc: return {TileLayout::col_major, TileLayout::row_major, 1024};
    // MX scales: boxes of 16 rows x 2 (row-major) / 2 x 16 columns (column-major), 32 bytes each.
    case MemorySpace::LeftScale: return {TileLayout::row_major, TileLayout::row_major, 32};
    case MemorySpace::RightScale: return {TileLayout::col_major, TileLayout::col_major, 32};
    default: return {TileLayout::row_major, TileLayout::none_box, 512};
  }
}

TileLayouts effective_layouts(const TileType& t, bool left_col_major) {
  const auto shape = static_shape(t.shape);
  int64_t r = shape && shape->size() == 2 ? (*shape)[0] : 0;
  int64_t c = shape && shape->size() == 2 ? (*shape)[1] : 0;
  // A window of a wider tile (tile.slice) is laid out with its parent's row pitch.
  if (t.view && t.view->stride.size() == 2)
    if (const auto p = const_int_value(t.view->stride[0])) c = *p;
  // A window of a fractal-layout tile is laid out as that tile.
  if (t.view && t.view->buffer_shape.size() == 2) {
    const auto br = const_int_value(t.view->buffer_shape[0]), bc = const_int_value(t.view->buffer_shape[1]);
    if (br && bc) r = *br, c = *bc;
  }
  TileLayouts l = implicit_layouts(t.space.value_or(MemorySpace::Vec), r, c, left_col_major);
  if (t.view) {
    if (t.view->blayout) l.blayout = *t.view->blayout;
    if (t.view->slayout) l.slayout = *t.view->slayout;
    if (t.view->fractal) l.fractal = *t.view->fractal;
  }
  return l;
}

bool is_2d_flattening(const TypePtr& flat, const TypePtr& nd) {
  const auto* f = as_tile(flat);
  const auto* n = as_tile(nd);
  if (!f || !n || n->shape.size() == 2 || n->shape.empty() || f->shape.size() != 2 || f->dtype != n->dtype) return false;
  const auto fs = static_shape(f->shape), ns = static_shape(n->shape);
  if (!fs || !ns) return false;
  int64_t lead = 1;
  for (size_t i = 0; i + 1 < ns->size(); ++i) lead *= (*ns)[i];
  return (*fs)[0] == lead && (*fs)[1] == ns->back();
}

}  // namespace pypto::ir
