// FoldNoOpReshape — after memory planning, a `t2 = pl.tile.reshape(t1, shape)` inside a kernel
// whose result lies in the same buffer as its source (same MemRef base and byte offset) and has
// the same tile-buffer signature (memory space, element type, 2-D rows × cols, block / scatter
// layout, fractal, pad, compact mode, valid extents) changes nothing: the backend would emit a
// TRESHAPE from a buffer onto itself at the same shape. Such a reshape becomes the plain
// assignment `t2 = t1` (the kernel emitter declares t2 at t1's address; no instruction). Any
// difference — another shape, another buffer or offset, a layout or valid-shape change — keeps the
// reshape. Only functions that compute on chip (kernels, tile-binding Opaque functions) are
// visited. Why: it removes a self-move the reference's PTO codegen also folds, so the per-op
// listing of a kernel matches the reference's. Requires HasMemRefs (the MemRefs decide it); runs
// after AllocateMemoryAddr; produces nothing new.
#include <optional>

#include "ir/op_registry.h"
#include "ir/structural_equal.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

// The facets of a tile the backend's buffer type is made of, with the implicit defaults filled in.
struct BufferSignature {
  MemorySpace space = MemorySpace::Vec;
  DataType dtype = DataType::FP32;
  int64_t rows = 0, cols = 0;
  TileLayout blayout = TileLayout::row_major, slayout = TileLayout::none_box;
  int64_t fractal = 512;
  PadValue pad = PadValue::null;
  CompactMode compact = CompactMode::null;
  // Valid extents: a constant, or nullopt for a runtime extent (then only "dynamic" is compared).
  std::optional<int64_t> valid_rows, valid_cols;

  bool operator==(const BufferSignature&) const = default;
};

std::optional<BufferSignature> signature(const TileType& t) {
  auto shape = static_shape(t.shape);
  if (!shape || shape->empty() || shape->size() > 2) return std::nullopt;
  BufferSignature s;
  s.space = t.space.value_or(MemorySpace::Vec);
  s.dtype = t.dtype;
  s.rows = shape->size() == 2 ? (*shape)[0] : 1;
  s.cols = shape->back();
  s.valid_rows = s.rows;
  s.valid_cols = s.cols;
  if (!t.view) {
    if (s.cols == 1 && s.rows > 1) s.blayout = TileLayout::col_major;  // an [N, 1] tile's implicit view
    return s;
  }
  const TileView& v = *t.view;
  s.blayout = v.blayout.value_or(s.cols == 1 && s.rows > 1 ? TileLayout::col_major : TileLayout::row_major);
  s.slayout = v.slayout.value_or(TileLayout::none_box);
  s.fractal = v.fractal.value_or(512);
  s.pad = v.pad.value_or(PadValue::null);
  s.compact = v.compact.value_or(CompactMode::null);
  const size_t off = v.valid_shape.size() == 1 ? 1 : 0;  // a 1-D valid shape names the columns
  for (size_t i = 0; i < v.valid_shape.size() && i < 2; ++i) {
    std::optional<int64_t>& dst = (i + off == 0) ? s.valid_rows : s.valid_cols;
    dst = v.valid_shape[i] ? const_int_value(v.valid_shape[i]) : dst;
  }
  return s;
}

bool same_buffer(const TileType& a, const TileType& b) {
  if (!a.memref || !b.memref || !a.memref->base || !b.memref->base) return false;
  if (a.memref->base.get() != b.memref->base.get()) return false;
  if (!a.memref->offset || !b.memref->offset) return a.memref->offset == b.memref->offset;
  return structural_equal(a.memref->offset, b.memref->offset);
}

// `dst = tile.reshape(src, shape)` that moves nothing: src's Var, or null.
VarPtr no_op_source(const AssignStmt& s) {
  const auto* c = as<Call>(s.value);
  if (!c || !c->is_op("tile.reshape") || c->args.size() != 2) return nullptr;
  auto src = std::dynamic_pointer_cast<const Var>(c->args[0]);
  if (!src) return nullptr;
  const auto* lt = as_tile(s.var->type);
  const auto* rt = as_tile(src->type);
  if (!lt || !rt || !same_buffer(*lt, *rt)) return nullptr;
  auto ls = signature(*lt), rs = signature(*rt);
  if (!ls || !rs || !(*ls == *rs)) return nullptr;
  return src;
}

class Folder : public IRMutator {
 protected:
  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    StmtPtr r = IRMutator::mutate_assign(s);
    const auto* a = as<AssignStmt>(r);
    if (!a) return r;
    VarPtr src = no_op_source(*a);
    if (!src) return r;
    return with_comments(std::make_shared<AssignStmt>(a->var, src, a->span), *a);
  }
};

}  // namespace

Pass fold_no_op_reshape_pass() {
  return Pass{"FoldNoOpReshape",
              "In kernels, a tile.reshape whose result has the same MemRef (base and offset) and the same tile-buffer "
              "signature (space, dtype, rows x cols, layouts, fractal, pad, compact, valid shape) as its source becomes "
              "a plain assignment of the source.",
              {{Property::HasMemRefs}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                return map_functions(p, [](const FunctionPtr& f) {
                  if (!computes_on_chip(*f)) return f;
                  Folder m;
                  return m.mutate_function(f);
                });
              }};
}

}  // namespace pypto::passes
