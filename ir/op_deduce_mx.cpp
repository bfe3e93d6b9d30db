// Type rules of the 950's MX (microscaling) matmuls: tile.matmul_mx / _acc / _bias, the internal
// tile.tget_scale_addr that binds a scale tile to its data tile, and the MX-specific parts of
// tile.load (scale tensors in the packed MX_A_ZZ / MX_B_NN GM orders) and tile.move (Mat →
// LeftScale / RightScale). The geometry: FP8E4M3FN data lhs [M, K] × rhs [K, N] with M a multiple
// of 16, N of 32 and K of 64; one FP8E8M0 scale exponent per 32 elements of K — lhs_scale
// [M, ceil(K/32)] per row, rhs_scale [ceil(K/32), N] per column; the result an FP32 Acc [M, N].
// Shape checks apply to constant extents only.
#include <fmt/format.h>

#include "ir/op_deduce.h"

namespace pypto::ir::deduce {
namespace {

std::optional<int64_t> cv(const ExprPtr& e) { return e ? const_int_value(e) : std::nullopt; }

// Valid extent d of a tile: its valid shape's, else its shape's.
ExprPtr valid_dim(const ShapedType& t, size_t d) {
  auto v = valid_shape_of(t);
  return v.size() == t.shape.size() ? v[d] : t.shape[d];
}

void require_2d(const Ctx& c, size_t i) {
  const auto& t = c.shaped(i);
  if (t.kind != TypeKind::Tile) c.fail(fmt::format("{} must be a tile", c.name(i)));
  if (t.shape.size() != 2)
    c.fail(fmt::format("{} must be 2-D, got shape {}", c.name(i), shape_str(t.shape)));
}

void require_mx_data(const Ctx& c, size_t i) {
  require_2d(c, i);
  const DataType dt = c.shaped(i).dtype;
  if (dt == DataType::FP8E4M3FN) return;
  std::string hint = "MX matmuls take FP8E4M3FN data with FP8E8M0 scales";
  if (dt == DataType::FP4) hint = "native FP4 matmul is not supported: cast the FP4 tile to FP8E4M3FN with pl.cast first";
  c.fail(fmt::format("{} has dtype {}, but an MX matmul multiplies FP8E4M3FN", c.name(i), dtype_name(dt)), hint);
}

// Scale groups along K: ceil(K / 32).
std::optional<int64_t> groups(const ExprPtr& k) {
  auto v = cv(k);
  if (!v) return std::nullopt;
  return (*v + 31) / 32;
}

void check_dim(const Ctx& c, size_t i, const char* which, const char* axis, const ExprPtr& got,
               std::optional<int64_t> want) {
  auto g = cv(got);
  if (!want || !g || *g == *want) return;
  c.fail(fmt::format("{} has {} {} = {}, but the MX geometry needs {}", c.name(i), which, axis, *g, *want),
         "lhs_scale is [M, ceil(K/32)] and rhs_scale [ceil(K/32), N]: one FP8E8M0 exponent per 32 elements of K");
}

// A scale tile: FP8E8M0, 2-D, its `rows x cols` physical and valid extents as the geometry says.
void check_scale(const Ctx& c, size_t i, std::optional<int64_t> rows, std::optional<int64_t> cols,
                 std::optional<int64_t> vrows, std::optional<int64_t> vcols) {
  require_2d(c, i);
  const auto& s = c.shaped(i);
  if (s.dtype != DataType::FP8E8M0)
    c.fail(fmt::format("{} has dtype {}, but MX scales are FP8E8M0", c.name(i), dtype_name(s.dtype)),
           "declare the scale tensor as pl.Tensor[[M, K // 32], pl.FP8E8M0, pl.MX_A_ZZ] (or [K // 32, N] ... pl.MX_B_NN)");
  check_dim(c, i, "physical", "rows", s.shape[0], rows);
  check_dim(c, i, "physical", "cols", s.shape[1], cols);
  check_dim(c, i, "valid", "rows", valid_dim(s, 0), vrows);
  check_dim(c, i, "valid", "cols", valid_dim(s, 1), vcols);
}

// Checks (lhs, lhs_scale, rhs, rhs_scale) at arguments b..b+3; returns the FP32 Acc result.
TypePtr mx_product(const Ctx& c, size_t b) {
  require_mx_data(c, b);
  require_mx_data(c, b + 2);
  const auto& l = c.shaped(b);
  const auto& r = c.shaped(b + 2);
  const auto M = cv(l.shape[0]), K = cv(l.shape[1]), K2 = cv(r.shape[0]), N = cv(r.shape[1]);
  if (M && (*M <= 0 || *M % 16))
    c.fail(fmt::format("{} has {} rows; an MX matmul needs M a positive multiple of 16", c.name(b), *M));
  if (N && (*N <= 0 || *N % 32))
    c.fail(fmt::format("{} has {} columns; an MX matmul over FP8E4M3FN needs N a multiple of 32 (one 32-byte row)",
                       c.name(b + 2), *N));
  if (K && K2 && *K != *K2)
    c.fail(fmt::format("inner dimensions differ: {} has K = {} but {} has K = {}", c.name(b), *K, c.name(b + 2), *K2),
           "an MX matmul multiplies [M, K] by [K, N]");
  for (size_t i : {b, b + 2}) {
    auto k = cv(c.shaped(i).shape[i == b ? 1 : 0]);
    if (k && (*k <= 0 || *k % 64))
      c.fail(fmt::format("{} has K = {}; an MX matmul needs K a positive multiple of 64", c.name(i), *k),
             "pad K with zeros (and the scales with any exponent) up to a multiple of 64");
  }
  const auto vK = cv(valid_dim(l, 1)), vK2 = cv(valid_dim(r, 0));
  if (vK && vK2 && *vK != *vK2)
    c.fail(fmt::format("valid K differs: {} has {} but {} has {}", c.name(b), *vK, c.name(b + 2), *vK2));
  if (vK && *vK <= 0) c.fail(fmt::format("{} has valid K = {}; it must be positive", c.name(b), *vK));
  if (vK && K && groups(valid_dim(l, 1)) != groups(l.shape[1]))
    c.fail(fmt::format("{} has valid K = {} of {}: ceil(valid K / 32) must equal ceil(K / 32), the scale groups "
                       "the hardware reads", c.name(b), *vK, *K),
           "pad the operands so that only the last scale group is partial");
  std::optional<int64_t> G = groups(l.shape[1]);
  if (!G) G = cv(c.shaped(b + 1).shape[1]);
  const auto vM = cv(valid_dim(l, 0)), vN = cv(valid_dim(r, 1));
  const auto vG = vK ? groups(valid_dim(l, 1)) : G;
  check_scale(c, b + 1, M, G, vM, vG);
  check_scale(c, b + 3, G, N, vG, vN);
  std::vector<ExprPtr> valid;
  if (valid_shape_of(l).size() == 2 || valid_shape_of(r).size() == 2)
    valid = {valid_dim(l, 0), valid_dim(r, 1)};
  return make_like(l, DataType::FP32, {l.shape[0], r.shape[1]}, MemorySpace::Acc, std::move(valid));
}

bool is_mx_layout(TensorLayout l) { return l == TensorLayout::MX_A_ZZ || l == TensorLayout::MX_B_NN; }

}  // namespace

TypePtr tile_matmul_mx(const Ctx& c) { return mx_product(c, 0); }

TypePtr tile_matmul_mx_acc(const Ctx& c) {
  const TypePtr product = mx_product(c, 1);
  const auto* out = as_tile(product);
  require_2d(c, 0);
  const auto& acc = c.shaped(0);
  if (acc.dtype != DataType::FP32)
    c.fail(fmt::format("accumulator {} has dtype {}, but an MX matmul accumulates in FP32", c.name(0), dtype_name(acc.dtype)));
  for (size_t d = 0; d < 2; ++d) {
    if (compare_dim(acc.shape[d], out->shape[d]) == DimEq::Different)
      c.fail(fmt::format("accumulator {} has shape {} but the product is [{}, {}]", c.name(0), shape_str(acc.shape),
                         dim_str(out->shape[0]), dim_str(out->shape[1])));
    const ExprPtr want = valid_dim(*out, d);
    if (compare_dim(valid_dim(acc, d), want) == DimEq::Different)
      c.fail(fmt::format("accumulator {} has valid {} = {} but the product's is {}", c.name(0), d ? "cols" : "rows",
                         dim_str(valid_dim(acc, d)), dim_str(want)));
  }
  return c.arg(0)->type;
}

TypePtr tile_matmul_mx_bias(const Ctx& c) {
  const TypePtr product = mx_product(c, 0);
  const auto* out = as_tile(product);
  require_2d(c, 4);
  const auto& bias = c.shaped(4);
  if (bias.dtype != DataType::FP32)
    c.fail(fmt::format("bias {} has dtype {}, but an MX matmul's bias is FP32", c.name(4), dtype_name(bias.dtype)));
  if (cv(bias.shape[0]) != 1 || compare_dim(bias.shape[1], out->shape[1]) == DimEq::Different)
    c.fail(fmt::format("bias {} has shape {} but the bias of a [{}, {}] product is [1, {}]", c.name(4),
                       shape_str(bias.shape), dim_str(out->shape[0]), dim_str(out->shape[1]), dim_str(out->shape[1])));
  return product;
}

TypePtr tile_tget_scale_addr(const Ctx& c) {
  require_2d(c, 0);
  require_mx_data(c, 1);
  const auto& s = static_cast<const TileType&>(c.shaped(0));
  const auto& d = static_cast<const TileType&>(c.shaped(1));
  if (s.dtype != DataType::FP8E8M0)
    c.fail(fmt::format("{} has dtype {}, but MX scales are FP8E8M0", c.name(0), dtype_name(s.dtype)));
  if (!s.space || !d.space) c.fail("needs the memory spaces of both tiles resolved (run InferTileMemorySpace first)");
  const bool left = *s.space == MemorySpace::LeftScale && *d.space == MemorySpace::Left;
  const bool right = *s.space == MemorySpace::RightScale && *d.space == MemorySpace::Right;
  if (!left && !right)
    c.fail(fmt::format("binds a {} scale to a {} tile; the pairs are LeftScale with Left and RightScale with Right",
                       to_string(*s.space), to_string(*d.space)));
  const auto K = left ? d.shape[1] : d.shape[0];
  const auto G = groups(K);
  if (left) check_scale(c, 0, cv(d.shape[0]), G, std::nullopt, std::nullopt);
  else check_scale(c, 0, G, cv(d.shape[1]), std::nullopt, std::nullopt);
  return std::make_shared<TileType>(s.dtype, s.shape, s.space, s.view);
}

std::optional<TileView> mx_load_view(const Ctx& c, const TensorType& t, const std::vector<ExprPtr>& offsets,
                                     const std::vector<ExprPtr>& shapes, std::optional<MemorySpace> space) {
  const TensorLayout lay = t.view ? t.view->layout : TensorLayout::ND;
  if (!is_mx_layout(lay)) return std::nullopt;
  const bool a = lay == TensorLayout::MX_A_ZZ;
  if (t.dtype != DataType::FP8E8M0 && t.dtype != DataType::UINT8)
    c.fail(fmt::format("{} is an MX scale tensor ({}) of dtype {}; MX scales are FP8E8M0 (or UINT8 bytes)", c.name(0),
                       to_string(lay), dtype_name(t.dtype)));
  if (t.shape.size() != 2 || shapes.size() != 2)
    c.fail(fmt::format("{} is an MX scale tensor: it and the loaded window must be 2-D", c.name(0)));
  if (!space || *space != MemorySpace::Mat)
    c.fail(fmt::format("an MX scale tensor ({}) loads into pl.Mem.Mat", to_string(lay)),
           "write pl.load(scales, offsets, shapes, target_memory=pl.Mem.Mat); the move to LeftScale / RightScale is inserted before the matmul");
  for (const auto& d : {t.shape[0], t.shape[1], shapes[0], shapes[1]})
    if (!cv(d))
      c.fail(fmt::format("an {} scale tensor and its loaded window need constant extents, got tensor {} and window {}",
                         to_string(lay), shape_str(t.shape), shape_str(shapes)));
  // The packed order stores boxes of 16 rows x 2 groups (A) or 2 groups x 16 columns (B).
  const int64_t rq = a ? 16 : 2, cq = a ? 2 : 16;
  const char* what[2] = {"row", "column"};
  for (size_t d = 0; d < 2; ++d) {
    const int64_t q = d ? cq : rq;
    for (const auto* v : {&offsets[d], &shapes[d]}) {
      auto x = cv(*v);
      if (x && *x % q)
        c.fail(fmt::format("the {} {} {} of an {} scale window is not a multiple of {}", what[d],
                           v == &offsets[d] ? "offset" : "extent", *x, to_string(lay), q),
               fmt::format("{} packs the scales in boxes of {} x {}: windows start and end on box edges", to_string(lay),
                           rq, cq));
    }
  }
  TileView v;
  v.blayout = a ? TileLayout::row_major : TileLayout::col_major;
  v.slayout = v.blayout;
  v.fractal = 32;
  return v;
}

void check_scale_move(const Ctx& c, MemorySpace target) {
  if (target != MemorySpace::LeftScale && target != MemorySpace::RightScale) return;
  const auto& t = c.shaped(0);
  if (t.kind != TypeKind::Tile || t.shape.size() != 2)
    c.fail(fmt::format("{} moves into {} only from a 2-D Mat tile", c.name(0), to_string(target)));
  const auto& tl = static_cast<const TileType&>(t);
  if (tl.space && *tl.space != MemorySpace::Mat)
    c.fail(fmt::format("{} is in {}; {} is filled from Mat only", c.name(0), to_string(*tl.space), to_string(target)),
           "load the scales with pl.load(..., target_memory=pl.Mem.Mat)");
  if (t.dtype != DataType::FP8E8M0 && t.dtype != DataType::UINT8)
    c.fail(fmt::format("{} has dtype {}; {} holds FP8E8M0 scales", c.name(0), dtype_name(t.dtype), to_string(target)));
  auto given = [&](const char* k) { return c.kw(k) && !std::holds_alternative<std::monostate>(*c.kw(k)); };
  if (given("blayout") || given("slayout"))
    c.fail(fmt::format("the layout of {} is fixed by the hardware; blayout= / slayout= do not apply", to_string(target)));
  const bool left = target == MemorySpace::LeftScale;
  const TileLayouts l = effective_layouts(tl, false);
  const TileLayout want = left ? TileLayout::row_major : TileLayout::col_major;
  if (tl.space && (l.blayout != want || l.slayout != want || l.fractal != 32))
    c.fail(fmt::format("{} is not in the {} box layout {} needs", c.name(0), left ? "16 x 2 row-major" : "2 x 16 column-major",
                       to_string(target)),
           fmt::format("load it from a pl.{} scale tensor", left ? "MX_A_ZZ" : "MX_B_NN"));
}

}  // namespace pypto::ir::deduce
