// IR types: Scalar, Tensor (GM array, optional TensorView; `distributed` marks a
// pld.DistributedTensor, a view of a cross-rank window buffer), Tile (on-chip 2-D block with
// memory space, TileView and MemRef), Tuple, Ptr (an opaque handle: an on-chip allocation from
// tile.alloc, a window buffer, or a pld.CommCtx communicator), Array (pl.Array[N, dtype], a small
// on-core array of scalars such as TaskIds).
// Types are immutable and shared; shapes are expressions (ConstInt when static, Vars for
// symbolic dims).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/enums.h"

namespace pypto::ir {

struct Expr;
struct Var;
using ExprPtr = std::shared_ptr<const Expr>;
using VarPtr = std::shared_ptr<const Var>;

enum class TypeKind : uint8_t { Scalar, Tensor, Tile, Tuple, Ptr, Array };

struct Type {
  explicit Type(TypeKind k) : kind(k) {}
  virtual ~Type() = default;
  const TypeKind kind;
};
using TypePtr = std::shared_ptr<const Type>;

struct ScalarType : Type {
  explicit ScalarType(DataType dt) : Type(TypeKind::Scalar), dtype(dt) {}
  DataType dtype;
};

// Where a tile/tensor lives: an allocation identity (`base`, a Ptr-typed Var) plus a byte offset
// and size. Two MemRefs alias when their bases are the same Var.
struct MemRef {
  VarPtr base;
  ExprPtr offset;  // bytes; an INT64 constant once addresses are allocated
  int64_t size = 0;
};

struct TensorView {
  std::vector<ExprPtr> stride;       // empty = packed row-major
  TensorLayout layout = TensorLayout::ND;
  std::vector<ExprPtr> valid_shape;  // empty = whole shape
  PadValue pad = PadValue::null;
};

struct TileView {
  std::vector<ExprPtr> valid_shape;
  std::vector<ExprPtr> stride;
  ExprPtr start_offset;
  // A window (tile.slice) of a tile in a fractal layout (Acc, Mat): the physical [rows, cols] of
  // the tile whose buffer it views. Its Tile is that tile's type with the window's extents as the
  // valid shape, placed at the source's address plus the offset of its origin in that layout
  // (InitMemRef sets it; stride / start_offset describe row-major windows only).
  std::vector<ExprPtr> buffer_shape;
  std::optional<TileLayout> blayout, slayout;
  std::optional<int64_t> fractal;
  std::optional<PadValue> pad;
  std::optional<CompactMode> compact;
};

struct ShapedType : Type {
  ShapedType(TypeKind k, DataType dt, std::vector<ExprPtr> s, std::optional<MemRef> m)
      : Type(k), dtype(dt), shape(std::move(s)), memref(std::move(m)) {}
  DataType dtype;
  std::vector<ExprPtr> shape;
  std::optional<MemRef> memref;
};

struct TensorType : ShapedType {
  TensorType(DataType dt, std::vector<ExprPtr> s, std::optional<TensorView> v = {},
             std::optional<MemRef> m = {}, bool dist = false)
      : ShapedType(TypeKind::Tensor, dt, std::move(s), std::move(m)), view(std::move(v)), distributed(dist) {}
  std::optional<TensorView> view;
  bool distributed;  // pld.DistributedTensor[...]: a window-bound tensor other ranks can reach
};

struct TileType : ShapedType {
  TileType(DataType dt, std::vector<ExprPtr> s, std::optional<MemorySpace> sp = {},
           std::optional<TileView> v = {}, std::optional<MemRef> m = {})
      : ShapedType(TypeKind::Tile, dt, std::move(s), std::move(m)), space(sp), view(std::move(v)) {}
  std::optional<MemorySpace> space;
  std::optional<TileView> view;
};

struct TupleType : Type {
  explicit TupleType(std::vector<TypePtr> e) : Type(TypeKind::Tuple), elems(std::move(e)) {}
  std::vector<TypePtr> elems;
};

// What an opaque handle is: pl.Ptr (allocations, window buffers, prefetch contexts) or
// pld.CommCtx (a communicator of a distributed tensor).
enum class HandleKind : uint8_t { Ptr, CommCtx };

struct PtrType : Type {
  explicit PtrType(HandleKind h = HandleKind::Ptr) : Type(TypeKind::Ptr), handle(h) {}
  HandleKind handle;
};

// pl.Array[extent, dtype]: `extent` scalars of `dtype` (a constant extent).
struct ArrayType : Type {
  ArrayType(DataType dt, int64_t n) : Type(TypeKind::Array), dtype(dt), extent(n) {}
  DataType dtype;
  int64_t extent;
};

// Convenience constructors and queries.
TypePtr scalar_type(DataType dt);  // shared instances
TypePtr ptr_type();
TypePtr comm_ctx_type();
TypePtr array_type(DataType dt, int64_t extent);
inline const ArrayType* as_array(const TypePtr& t) {
  return t && t->kind == TypeKind::Array ? static_cast<const ArrayType*>(t.get()) : nullptr;
}
inline bool is_comm_ctx(const TypePtr& t) {
  return t && t->kind == TypeKind::Ptr && static_cast<const PtrType&>(*t).handle == HandleKind::CommCtx;
}
inline bool is_distributed(const TypePtr& t) {
  return t && t->kind == TypeKind::Tensor && static_cast<const TensorType&>(*t).distributed;
}
inline const ScalarType* as_scalar(const TypePtr& t) {
  return t && t->kind == TypeKind::Scalar ? static_cast<const ScalarType*>(t.get()) : nullptr;
}
inline const TensorType* as_tensor(const TypePtr& t) {
  return t && t->kind == TypeKind::Tensor ? static_cast<const TensorType*>(t.get()) : nullptr;
}
inline const TileType* as_tile(const TypePtr& t) {
  return t && t->kind == TypeKind::Tile ? static_cast<const TileType*>(t.get()) : nullptr;
}
inline const ShapedType* as_shaped(const TypePtr& t) {
  return t && (t->kind == TypeKind::Tensor || t->kind == TypeKind::Tile)
             ? static_cast<const ShapedType*>(t.get())
             : nullptr;
}
inline const TupleType* as_tuple(const TypePtr& t) {
  return t && t->kind == TypeKind::Tuple ? static_cast<const TupleType*>(t.get()) : nullptr;
}

// The kind of a type as diagnostics spell it: "a scalar", "a Tensor", ...; "no value" for null.
std::string_view type_noun(const TypePtr& t);

// Static extents of a shape, or nullopt if any dim is not a constant.
std::optional<std::vector<int64_t>> static_shape(const std::vector<ExprPtr>& shape);
// Element count × storage bits / 8 (nibble types packed), nullopt if the shape is not static.
// A size beyond 2^62 bytes (more than any memory; the product would overflow) is kByteSizeTooLarge;
// a negative extent counts as 0.
constexpr int64_t kByteSizeTooLarge = int64_t(1) << 62;
std::optional<int64_t> byte_size(const ShapedType& t);
// The bounds every static shape keeps, so that sizes, strides and element counts of a program
// fit in 64 bits: each extent at most kMaxExtent (the runtime's shapes are uint32_t) and the
// whole at most kMaxBytes. "" when `t` keeps them, else what is wrong ("extent 0 is -16", ...).
constexpr int64_t kMaxExtent = 4294967295;
constexpr int64_t kMaxBytes = int64_t(1) << 48;
std::string shape_limit_violation(const ShapedType& t);
// The reference's calling convention for a tensor argument whose static shape differs from the
// parameter's static shape, both of one dtype: the callee sees the argument's leading elements
// (row-major) at its own shape, so the call is valid when the parameter has no more elements than
// the argument. True for exactly that case (shapes differ, both static, same dtype, fits).
bool binds_as_leading_elements(const TypePtr& param, const TypePtr& arg);

// Copies with one facet replaced (types are immutable).
std::shared_ptr<const TileType> with_space(const TileType& t, std::optional<MemorySpace> sp);

// The block / scatter layouts and fractal size a [rows, cols] tile in `space` has when its
// TileView names none (ir-and-passes.md §1.3): Vec row-major (a column vector [R, 1] col-major),
// Mat NZ, Left NZ or ZZ (`left_col_major`: the SoC's choice), Right ZN, Acc NZ with 1024-byte
// fractals.
struct TileLayouts {
  TileLayout blayout, slayout;
  int64_t fractal;
};
TileLayouts implicit_layouts(MemorySpace space, int64_t rows, int64_t cols, bool left_col_major);
// Whether `flat` is the 2-D tile [prod(leading dims), last dim] of the rank > 2 or rank-1 tile `nd` (same
// dtype, static shapes): the type FlattenTileNdTo2D gives a tile.load of an N-D window.
bool is_2d_flattening(const TypePtr& flat, const TypePtr& nd);
// The layouts in effect for `t` (its view's, else the implicit ones of its space, Vec when unset;
// a window of a wider tile counts its parent's row pitch as its columns).
TileLayouts effective_layouts(const TileType& t, bool left_col_major);
std::shared_ptr<const TileType> with_memref(const TileType& t, std::optional<MemRef> m);
std::shared_ptr<const TensorType> with_memref(const TensorType& t, std::optional<MemRef> m);
std::shared_ptr<const TensorType> with_view(const TensorType& t, std::optional<TensorView> v);

}  // namespace pypto::ir
