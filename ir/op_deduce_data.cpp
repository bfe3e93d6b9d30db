// Type rules of the compare / select, integer, arg-reduction, gather / scatter / sort, view and
// valid-shape, index, generator and extra cube ops (declared in op_deduce.h). Like the rules of
// op_deduce.cpp, each builds a result of the same kind (Tile / Tensor) as its first shaped
// operand where both levels share the rule, and fails with E302 naming the op and the operand.
#include <fmt/format.h>

#include "ir/op_deduce.h"

namespace pypto::ir::deduce {

namespace {

void require_int(const Ctx& c, size_t i) {
  const auto& t = c.shaped(i);
  if (!dtype_is_int(t.dtype))
    c.fail(fmt::format("operand {} has dtype {}; this op works on integer elements", c.name(i), dtype_name(t.dtype)),
           "bitwise ops and shifts take INT8..INT64 / UINT8..UINT64 operands");
}

void require_float(const Ctx& c, size_t i) {
  const auto& t = c.shaped(i);
  if (!dtype_is_float(t.dtype))
    c.fail(fmt::format("operand {} has dtype {}; this op works on floating-point elements", c.name(i),
                       dtype_name(t.dtype)));
}

void require_rank(const Ctx& c, size_t i, size_t r) {
  const auto& t = c.shaped(i);
  if (t.shape.size() != r)
    c.fail(fmt::format("operand {} must have {} dimensions, got shape {}", c.name(i), r, shape_str(t.shape)));
}

void require_same_shape(const Ctx& c, size_t i, size_t j) {
  const auto& a = c.shaped(i).shape;
  const auto& b = c.shaped(j).shape;
  bool differ = a.size() != b.size();
  for (size_t k = 0; !differ && k < a.size(); ++k) differ = compare_dim(a[k], b[k]) == DimEq::Different;
  if (differ)
    c.fail(fmt::format("operand {} has shape {} but operand {} has shape {}", c.name(j), shape_str(b), c.name(i),
                       shape_str(a)));
}

void check_cmp_type(const Ctx& c) {
  auto k = c.kw_int("cmp_type");
  if (k && (*k < 0 || *k > 5))
    c.fail(fmt::format("cmp_type {} is not a comparison", *k), "0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge");
}

ExprPtr ceil_div_dim(const ExprPtr& d, int64_t by, int64_t round_to) {
  auto v = const_int_value(d);
  if (!v) return nullptr;
  int64_t n = (*v + by - 1) / by;
  if (round_to > 1) n = (n + round_to - 1) / round_to * round_to;
  return make_int(n);
}

}  // namespace

TypePtr int_binary(const Ctx& c) {
  require_int(c, 0);
  return binary(c);
}

TypePtr int_binary_scalar(const Ctx& c) {
  require_int(c, 0);
  return same_as(0)(c);
}

TypePtr int_unary(const Ctx& c) {
  require_int(c, 0);
  return same_as(0)(c);
}

TypePtr float_binary_scalar(const Ctx& c) {
  require_float(c, 0);
  return same_as(0)(c);
}

TypePtr float_unary(const Ctx& c) {
  require_float(c, 0);
  return same_as(0)(c);
}

TypePtr fp32_unary(const Ctx& c) {
  const auto& t = c.shaped(0);
  if (t.dtype != DataType::FP32)
    c.fail(fmt::format("operand {} has dtype {}; this op works on FP32 elements", c.name(0), dtype_name(t.dtype)),
           fmt::format("cast first: pl.cast({}, pl.FP32)", as<Var>(c.arg(0)) ? as<Var>(c.arg(0))->name : "x"));
  return same_as(0)(c);
}

TypePtr cmp_mask(const Ctx& c) {
  require_rank(c, 0, 2);
  if (c.has(1) && as_shaped(c.arg(1)->type)) {
    require_same_dtype(c, 0, 1);
    require_same_shape(c, 0, 1);
  }
  check_cmp_type(c);
  const auto& t = c.shaped(0);
  ExprPtr cols = ceil_div_dim(t.shape[1], 8, 32);
  if (!cols) c.fail("the mask of a compare needs a static column count");
  // Valid: the source's valid rows, one byte per 8 valid columns.
  std::vector<ExprPtr> valid;
  auto v = valid_shape_of(t);
  if (v.empty()) v = t.shape;
  ExprPtr vcols = ceil_div_dim(v[1], 8, 1);
  if (!vcols) c.fail("the mask of a compare needs a static valid column count");
  if (const_int_value(vcols) != const_int_value(cols) || !valid_shape_of(t).empty()) valid = {v[0], vcols};
  return make_like(t, DataType::UINT8, {t.shape[0], cols}, space_of(t), std::move(valid));
}

TypePtr cmp_values(const Ctx& c) {
  if (c.has(1) && as_shaped(c.arg(1)->type)) {
    require_same_dtype(c, 0, 1);
    return binary(c);
  }
  check_cmp_type(c);
  return same_as(0)(c);
}

TypePtr select(const Ctx& c) {
  const auto& m = c.shaped(0);
  if (dtype_bits(m.dtype) == 0 || !dtype_is_int(m.dtype))
    c.fail(fmt::format("operand {} must be an integer bit mask (from pl.tile.cmp), got dtype {}", c.name(0),
                       dtype_name(m.dtype)));
  require_same_dtype(c, 1, 2);
  require_same_shape(c, 1, 2);
  const auto& a = c.shaped(1);
  return make_like(a, a.dtype, a.shape, space_of(a), valid_shape_of(a));
}

TypePtr select_scalar(const Ctx& c) {
  const auto& m = c.shaped(0);
  if (!dtype_is_int(m.dtype))
    c.fail(fmt::format("operand {} must be an integer bit mask (from pl.tile.cmp), got dtype {}", c.name(0),
                       dtype_name(m.dtype)));
  const auto& a = c.shaped(1);
  return make_like(a, a.dtype, a.shape, space_of(a), valid_shape_of(a));
}

TypePtr row_arg_reduce(const Ctx& c) {
  require_rank_at_least(c, 0, 2);
  const auto& t = c.shaped(0);
  if (c.has(1)) require_same_shape(c, 0, 1);
  auto shape = t.shape;
  shape.back() = make_int(1);
  return make_like(t, DataType::INT32, std::move(shape), space_of(t));
}

TypePtr col_arg_reduce(const Ctx& c) {
  require_rank_at_least(c, 0, 2);
  const auto& t = c.shaped(0);
  if (c.has(1)) require_same_shape(c, 0, 1);
  auto shape = t.shape;
  shape[shape.size() - 2] = make_int(1);
  return make_like(t, DataType::INT32, std::move(shape), space_of(t));
}

TypePtr gather(const Ctx& c) {
  const auto& src = c.shaped(0);
  const auto& idx = c.shaped(1);
  const DataType s = src.dtype, i = idx.dtype;
  if (s != DataType::FP16 && s != DataType::FP32 && s != DataType::INT16 && s != DataType::INT32 &&
      s != DataType::BF16)
    c.fail(fmt::format("operand {} has dtype {}; gather reads FP16, BF16, FP32, INT16 or INT32 elements", c.name(0),
                       dtype_name(s)));
  const bool src16 = dtype_bits(s) == 16;
  if (i != DataType::INT32 && !(i == DataType::INT16 && src16))
    c.fail(fmt::format("operand {} has dtype {}; indices are INT32 (or INT16 with a 16-bit source)", c.name(1),
                       dtype_name(i)));
  return make_like(src, s, idx.shape, space_of(src), valid_shape_of(idx));
}

TypePtr scatter(const Ctx& c) {
  // tile.scatter(dst, src, indexes): dst.flat[indexes[i, j]] = src[i, j].
  // tensor.scatter(input, index, src; dim=-1): out = input, out[r, index[r, k]] = src[r, k].
  const bool tensor = c.shaped(0).kind == TypeKind::Tensor;
  const size_t src = tensor ? 2 : 1, index = tensor ? 1 : 2;
  require_same_dtype(c, 0, src);
  const auto& dst = c.shaped(0);
  const auto& idx = c.shaped(index);
  const DataType d = dst.dtype;
  if (d != DataType::FP16 && d != DataType::FP32 && d != DataType::BF16 && d != DataType::INT8 &&
      d != DataType::INT16 && d != DataType::INT32 && d != DataType::UINT8 && d != DataType::UINT16 &&
      d != DataType::UINT32)
    c.fail(fmt::format("operand {} has dtype {}; scatter writes 8-, 16- or 32-bit elements", c.name(0), dtype_name(d)));
  // The instruction's index width follows the element width (32-bit elements: INT32, else INT16).
  const DataType want = dtype_bits(d) == 32 ? DataType::INT32 : DataType::INT16;
  if (idx.dtype != want)
    c.fail(fmt::format("operand {} has dtype {}; {} elements are scattered by {} indices", c.name(index),
                       dtype_name(idx.dtype), dtype_name(d), dtype_name(want)));
  if (!tensor) return c.arg(0)->type;
  require_rank(c, 0, 2);
  require_rank(c, src, 2);
  require_same_shape(c, src, index);
  if (auto dim = c.kw_int("dim"); dim && *dim != -1 && *dim != 1)
    c.fail(fmt::format("dim={} is not supported: tensor.scatter writes along the last axis (dim=-1)", *dim));
  for (size_t k = 0; k < 2; ++k) {
    auto a = const_int_value(c.shaped(src).shape[k]), b = const_int_value(dst.shape[k]);
    if (a && b && *a > *b)
      c.fail(fmt::format("operand {} has shape {}, larger than operand {}'s {}", c.name(src),
                         shape_str(c.shaped(src).shape), c.name(0), shape_str(dst.shape)));
  }
  return std::make_shared<TensorType>(d, dst.shape);
}

TypePtr sort32(const Ctx& c) {
  require_rank(c, 0, 2);
  const auto& src = c.shaped(0);
  if (src.dtype != DataType::FP16 && src.dtype != DataType::FP32)
    c.fail(fmt::format("operand {} has dtype {}; sort32 sorts FP16 or FP32 values", c.name(0), dtype_name(src.dtype)));
  const auto& idx = c.shaped(1);
  if (idx.dtype != DataType::UINT32 && idx.dtype != DataType::INT32)
    c.fail(fmt::format("operand {} has dtype {}; the index payload is UINT32 (or INT32)", c.name(1),
                       dtype_name(idx.dtype)),
           "build it with pl.tile.ci(0, shape, dtype=pl.UINT32)");
  require_same_shape(c, 0, 1);
  auto cols = const_int_value(src.shape[1]);
  if (!cols) c.fail("sort32 needs a static column count");
  return make_like(src, src.dtype, {src.shape[0], make_int(2 * *cols)}, space_of(src));
}

// mrgsort format1 (src, block_len): merges the sorted runs of length block_len (a positive multiple
// of 64) inside src; the result is shaped like src.
TypePtr mrgsort1(const Ctx& c) {
  const auto& src = c.shaped(0);
  if (src.dtype != DataType::FP16 && src.dtype != DataType::FP32)
    c.fail(fmt::format("operand {} has dtype {}; mrgsort merges FP16 or FP32 pairs", c.name(0), dtype_name(src.dtype)));
  const auto* bl = as_scalar(c.arg(1)->type);
  if (!bl || !dtype_is_int(bl->dtype)) c.fail("block_len must be an integer");
  if (auto v = c.const_arg(1); v && (*v <= 0 || *v % 64 != 0))
    c.fail(fmt::format("block_len must be a positive multiple of 64, got {}", *v));
  return make_like(src, src.dtype, src.shape, space_of(src));
}

// mrgsort format2: 2-4 sorted lists merged into one. Tensor form (src0..src3): the lists joined
// along the last axis; tile form (src0, src1, [src2, [src3,]] tmp): shaped like the tmp tile.
TypePtr mrgsort2(const Ctx& c) {
  const auto& s0 = c.shaped(0);
  if (s0.dtype != DataType::FP16 && s0.dtype != DataType::FP32)
    c.fail(fmt::format("operand {} has dtype {}; mrgsort merges FP16 or FP32 pairs", c.name(0), dtype_name(s0.dtype)));
  size_t n = 0;
  while (c.has(n)) ++n;
  const bool tile = s0.kind == TypeKind::Tile;
  const size_t srcs = tile ? n - 1 : n;
  if (srcs < 2 || srcs > 4)
    c.fail(tile ? "the tile form takes 2 to 4 sorted tiles and a tmp tile" : "it merges 2 to 4 sorted tensors");
  for (size_t i = 0; i < n; ++i) {
    const auto& si = c.shaped(i);
    if (si.kind != s0.kind) c.fail("the operands must all be tiles or all tensors");
    if (i < srcs && si.dtype != s0.dtype)
      c.fail(fmt::format("operand {} has dtype {} but operand {} has {}", c.name(i), dtype_name(si.dtype), c.name(0),
                         dtype_name(s0.dtype)));
  }
  if (tile) return make_like(s0, s0.dtype, c.shaped(n - 1).shape, space_of(s0));
  auto shape = s0.shape;
  ExprPtr last = shape.back();
  for (size_t i = 1; i < srcs; ++i) {
    const auto& si = c.shaped(i);
    if (si.shape.size() != s0.shape.size()) c.fail("the sorted tensors must have one rank");
    auto a = const_int_value(last), b = const_int_value(si.shape.back());
    last = a && b ? make_int(*a + *b) : std::make_shared<Binary>(BinOp::Add, last, si.shape.back(), scalar_type(DataType::INDEX), Span{});
  }
  shape.back() = last;
  return make_like(s0, s0.dtype, std::move(shape), std::nullopt);
}

TypePtr concat(const Ctx& c) {
  require_rank(c, 0, 2);
  require_rank(c, 1, 2);
  require_same_dtype(c, 0, 1);
  const auto& a = c.shaped(0);
  const auto& b = c.shaped(1);
  if (compare_dim(a.shape[0], b.shape[0]) == DimEq::Different)
    c.fail(fmt::format("operand {} has {} rows but operand {} has {}", c.name(1), dim_str(b.shape[0]), c.name(0),
                       dim_str(a.shape[0])),
           "concat joins the columns of tiles with equal row counts");
  auto ca = const_int_value(a.shape[1]), cb = const_int_value(b.shape[1]);
  if (!ca || !cb) c.fail("concat needs static column counts");
  return make_like(a, a.dtype, {a.shape[0], make_int(*ca + *cb)}, space_of(a));
}

TypePtr transpose_view(const Ctx& c) {
  require_rank_at_least(c, 0, 2);
  const auto& t = c.shaped(0);
  auto shape = t.shape;
  const size_t n = shape.size();
  std::swap(shape[n - 1], shape[n - 2]);
  if (t.kind == TypeKind::Tensor) return make_like(t, t.dtype, std::move(shape), space_of(t));
  // The same bytes read in the transpose dual layout: each of the block and scatter layouts
  // flips its major-ness (NZ <-> ZN, ND <-> DN; none_box stays), the valid shape swaps too.
  const auto& tt = static_cast<const TileType&>(t);
  const TileLayouts l = effective_layouts(tt, false);
  auto flip = [](TileLayout x) {
    return x == TileLayout::row_major ? TileLayout::col_major : x == TileLayout::col_major ? TileLayout::row_major : x;
  };
  TileView v;
  if (tt.view) {
    v.valid_shape = tt.view->valid_shape;
    v.fractal = tt.view->fractal;
    v.pad = tt.view->pad;
    v.compact = tt.view->compact;
  }
  if (v.valid_shape.size() == n) std::swap(v.valid_shape[n - 1], v.valid_shape[n - 2]);
  v.blayout = flip(l.blayout);
  v.slayout = flip(l.slayout);
  return std::make_shared<TileType>(t.dtype, std::move(shape), tt.space, std::move(v));
}

TypePtr set_validshape(const Ctx& c) {
  require_rank(c, 0, 2);
  const auto& t = c.shaped(0);
  for (size_t i : {size_t(1), size_t(2)}) {
    auto v = c.const_arg(i);
    auto d = const_int_value(t.shape[i - 1]);
    if (v && (*v < 0 || (d && *v > *d)))
      c.fail(fmt::format("{} = {} is outside the {} {} of operand {}", c.name(i), *v, i == 1 ? "rows" : "columns",
                         d ? *d : 0, c.name(0)),
             "a valid shape lies within the tile's shape");
  }
  if (t.kind == TypeKind::Tensor) {
    TensorView v;
    v.valid_shape = {c.arg(1), c.arg(2)};
    return std::make_shared<TensorType>(t.dtype, t.shape, std::move(v), std::nullopt,
                                        static_cast<const TensorType&>(t).distributed);
  }
  return make_like(t, t.dtype, t.shape, space_of(t), {c.arg(1), c.arg(2)});
}

// The result of a fillpad is valid over its whole shape; on a tile, the pad value rides on the
// result's type (the pto-isa destination Tile's PadVal, which TFILLPAD fills with).
TypePtr with_pad(const Ctx& c, TypePtr r) {
  const AttrValue* a = c.kw("pad_value");
  const PadValue* p = a ? std::get_if<PadValue>(a) : nullptr;
  auto* tile = r->kind == TypeKind::Tile ? static_cast<TileType*>(std::const_pointer_cast<Type>(r).get()) : nullptr;
  if (!tile) return r;
  if (!tile->view) tile->view.emplace();
  tile->view->pad = p ? *p : PadValue::zero;
  return r;
}

TypePtr fillpad(const Ctx& c) {
  const auto& t = c.shaped(0);
  return with_pad(c, make_like(t, t.dtype, t.shape, space_of(t)));
}

TypePtr fillpad_expand(const Ctx& c) {
  const auto& t = c.shaped(0);
  auto shape = c.list(1);
  if (shape.size() != t.shape.size())
    c.fail(fmt::format("the new shape has {} dimensions but operand {} has {}", shape.size(), c.name(0), t.shape.size()));
  for (size_t k = 0; k < shape.size(); ++k) {
    auto n = const_int_value(shape[k]), o = const_int_value(t.shape[k]);
    if (n && o && *n < *o)
      c.fail(fmt::format("the new shape {} is smaller than operand {} {}", shape_str(shape), c.name(0), shape_str(t.shape)),
             "fillpad_expand only grows a tile");
  }
  return with_pad(c, make_like(t, t.dtype, std::move(shape), space_of(t)));
}

TypePtr block_index(const Ctx&) { return scalar_type(DataType::INDEX); }

TypePtr shard(const Ctx& c) {
  require_rank(c, 0, 2);
  const auto& t = c.shaped(0);
  if (is_distributed(c.arg(0)->type))
    c.fail(fmt::format("operand {} is a pld.DistributedTensor; distributed tensors are not split across AIV lanes", c.name(0)));
  auto split = c.kw_int("split");
  if (!split || *split < 0 || *split > 2)
    c.fail("split must be 0 (none), 1 (up-down, rows) or 2 (left-right, columns)");
  auto shape = t.shape;
  if (*split != 0) {
    const size_t axis = *split == 1 ? 0 : 1;
    auto d = const_int_value(shape[axis]);
    if (!d) c.fail("a split needs a static extent on the split axis");
    const bool halve = c.op.find("shard") != std::string::npos;
    shape[axis] = make_int(halve ? (*d + 1) / 2 : *d * 2);
  }
  return make_like(t, t.dtype, std::move(shape), space_of(t));
}

TypePtr gather_row(const Ctx& c) {
  const auto& dst = c.shaped(0);
  const auto& src = c.shaped(1);
  if (dst.dtype != src.dtype)
    c.fail(fmt::format("operand {} has dtype {} but operand {} has dtype {}", c.name(1), dtype_name(src.dtype),
                       c.name(0), dtype_name(dst.dtype)));
  for (size_t i : {size_t(2), size_t(3), size_t(4)})
    if (c.list(i).size() != 2) c.fail(fmt::format("{} must be a [row, col] pair", c.name(i)));
  return c.arg(0)->type;
}

TypePtr ci(const Ctx& c) {
  auto shape = c.list(1);
  if (shape.size() != 2) c.fail(fmt::format("the shape must be 2-D, got {}", shape_str(shape)));
  auto dt = c.kw_dtype("dtype").value_or(DataType::INT32);
  if (!dtype_is_int(dt)) c.fail(fmt::format("dtype {} is not an integer type", dtype_name(dt)));
  // No operand to take the kind from: tensor.ci (pl.arange) makes a tensor, tile.ci a Vec tile.
  if (c.op.rfind("tensor.", 0) == 0) return std::make_shared<TensorType>(dt, std::move(shape));
  return std::make_shared<TileType>(dt, std::move(shape), MemorySpace::Vec);
}

TypePtr tri(const Ctx& c) {
  auto shape = c.list(1);
  if (shape.size() != 2) c.fail(fmt::format("the shape must be 2-D, got {}", shape_str(shape)));
  auto dt = c.kw_dtype("dtype").value_or(DataType::INT32);
  std::vector<ExprPtr> valid = c.has(2) ? c.list(2) : std::vector<ExprPtr>{};
  return make_like(TileType(dt, {}), dt, std::move(shape), MemorySpace::Vec, std::move(valid));
}

TypePtr prelu(const Ctx& c) {
  require_float(c, 0);
  require_same_dtype(c, 0, 1);
  require_same_shape(c, 0, 1);
  return same_as(0)(c);
}

TypePtr create_l1(const Ctx& c) {
  auto shape = c.list(0);
  if (shape.size() != 2) c.fail(fmt::format("the shape must be 2-D, got {}", shape_str(shape)));
  auto dt = c.kw_dtype("dtype");
  if (!dt) c.fail("missing the element dtype", "write pl.tensor.create_l1([M, K], pl.FP16)");
  // A tensor at tensor level (it composes with tensor.matmul), lowered to a Mat tile; the shape is
  // written as allocated (transpose= picks the ZN layout of an already transposed shape).
  return std::make_shared<TensorType>(*dt, std::move(shape));
}

TypePtr tile_matmul_bias(const Ctx& c) {
  TypePtr acc = tile_matmul(c);
  const auto& bias = c.shaped(2);
  const auto* at = as_tile(acc);
  if (bias.shape.size() != 2 || const_int_value(bias.shape[0]) != 1 ||
      compare_dim(bias.shape[1], at->shape[1]) == DimEq::Different)
    c.fail(fmt::format("operand {} has shape {} but the bias of a [{}, {}] product is [1, {}]", c.name(2),
                       shape_str(bias.shape), dim_str(at->shape[0]), dim_str(at->shape[1]), dim_str(at->shape[1])));
  return acc;
}

TypePtr tile_gemv(const Ctx& c) {
  const bool acc = c.op.find("acc") != std::string::npos;
  const size_t l = acc ? 1 : 0;
  const auto& lhs = c.shaped(l);
  if (lhs.shape.size() != 2 || const_int_value(lhs.shape[0]) != 1)
    c.fail(fmt::format("operand {} must be a [1, K] row, got shape {}", c.name(l), shape_str(lhs.shape)),
           "use pl.tile.matmul for more than one row");
  return acc ? tile_matmul_acc(c) : tile_matmul(c);
}

TypePtr tile_batch_matmul(const Ctx& c) {
  const bool acc = c.op.find("acc") != std::string::npos;
  const size_t l = acc ? 1 : 0;
  require_rank_at_least(c, l, 3);
  require_same_dtype(c, l, l + 1);
  const auto& a = c.shaped(l).shape;
  const auto& b = c.shaped(l + 1).shape;
  if (compare_dim(a.back(), b[b.size() - 2]) == DimEq::Different)
    c.fail(fmt::format("inner dimensions differ: {} {} and {} {}", c.name(l), shape_str(a), c.name(l + 1), shape_str(b)),
           "batch_matmul multiplies [.., M, K] by [.., K, N]");
  if (acc) return c.arg(0)->type;
  std::vector<ExprPtr> shape(a.begin(), a.end() - 1);
  shape.push_back(b.back());
  DataType dt = c.kw_dtype("out_dtype").value_or(acc_dtype(c.shaped(0).dtype).value_or(DataType::FP32));
  return std::make_shared<TileType>(dt, std::move(shape), MemorySpace::Acc);
}

TypePtr carry3(const Ctx& c) {
  const bool scalar_mid = c.has(1) && as_scalar(c.arg(1)->type);
  require_same_dtype(c, 0, 2);
  if (!scalar_mid) {
    require_same_dtype(c, 0, 1);
    require_same_shape(c, 0, 1);
  }
  require_same_shape(c, 0, 2);
  return same_as(0)(c);
}

TypePtr gatherb(const Ctx& c) {
  require_rank(c, 1, 2);
  const auto& src = c.shaped(0);
  const auto& off = c.shaped(1);
  if (off.dtype != DataType::UINT32)
    c.fail(fmt::format("operand {} has dtype {}; block offsets are UINT32 byte offsets", c.name(1), dtype_name(off.dtype)));
  auto oc = const_int_value(off.shape[1]);
  if (!oc || *oc <= 0 || *oc % 8 != 0) c.fail(fmt::format("operand {} needs a static column count that is a multiple of 8", c.name(1)));
  const DataType dt = c.kw_dtype("output_dtype").value_or(src.dtype);
  const int64_t per_block = 32 * 8 / dtype_bits(dt);
  return make_like(src, dt, {off.shape[0], make_int(*oc * per_block)}, space_of(src));
}

namespace {
int64_t mask_pattern(const Ctx& c) {
  auto m = c.kw_int("mask_pattern");
  if (!m || *m < 1 || *m > 7)
    c.fail("mask_pattern must be 1..7", "1 P0101 (even columns), 2 P1010, 3 P0001, 4 P0010, 5 P0100, 6 P1000, 7 P1111");
  return *m;
}
}  // namespace

TypePtr gather_mask(const Ctx& c) {
  require_rank(c, 0, 2);
  const auto& src = c.shaped(0);
  const int64_t m = mask_pattern(c);
  const DataType dt = c.kw_dtype("output_dtype").value_or(src.dtype);
  if (dtype_bits(dt) != dtype_bits(src.dtype))
    c.fail(fmt::format("output_dtype {} is not as wide as the source's {}", dtype_name(dt), dtype_name(src.dtype)));
  auto cols = const_int_value(src.shape[1]);
  if (!cols) c.fail("gather_mask needs a static column count");
  const int64_t keep = m == 7 ? *cols : m <= 2 ? *cols / 2 : *cols / 4;
  return make_like(src, dt, {src.shape[0], make_int(keep)}, space_of(src));
}

TypePtr scatter_mask(const Ctx& c) {
  // tile.scatter_mask(dst, src) → dst; tensor.scatter_mask(input, dst) → dst, whose columns are
  // input's spread by the pattern's stride (2 for P0101 / P1010, 4 for P0001 .. P1000, 1 for P1111).
  require_rank(c, 0, 2);
  require_same_dtype(c, 0, 1);
  const int64_t m = mask_pattern(c);
  if (c.shaped(0).kind != TypeKind::Tensor) return c.arg(0)->type;
  require_rank(c, 1, 2);
  const auto& in = c.shaped(0);
  const auto& dst = c.shaped(1);
  const int64_t stride = m == 7 ? 1 : m <= 2 ? 2 : 4;
  auto ic = const_int_value(in.shape[1]), dc = const_int_value(dst.shape[1]);
  if (ic && dc && *dc != *ic * stride)
    c.fail(fmt::format("operand {} has {} columns; mask_pattern={} spreads {}'s {} columns over {}", c.name(1), *dc, m,
                       c.name(0), *ic, *ic * stride));
  if (compare_dim(in.shape[0], dst.shape[0]) == DimEq::Different)
    c.fail(fmt::format("operand {} has {} rows but operand {} has {}", c.name(0), dim_str(in.shape[0]), c.name(1),
                       dim_str(dst.shape[0])));
  return std::make_shared<TensorType>(dst.dtype, dst.shape);
}

TypePtr random(const Ctx& c) {
  auto shape = c.list(6);
  if (shape.size() != 2) c.fail(fmt::format("the shape must be 2-D, got {}", shape_str(shape)));
  auto dt = c.kw_dtype("dtype").value_or(DataType::UINT32);
  if (dt != DataType::UINT32 && dt != DataType::INT32) c.fail(fmt::format("dtype {} is not UINT32 or INT32", dtype_name(dt)));
  auto rounds = c.kw_int("rounds");
  if (rounds && *rounds <= 0) c.fail("rounds must be positive");
  std::vector<ExprPtr> valid = c.has(7) ? c.list(7) : std::vector<ExprPtr>{};
  return make_like(TileType(dt, {}), dt, std::move(shape), MemorySpace::Vec, std::move(valid));
}

}  // namespace pypto::ir::deduce
