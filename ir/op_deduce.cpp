// Type-deduction rules and the row builder shared by the op tables (see op_deduce.h).
#include "ir/op_deduce.h"

#include <fmt/format.h>

#include "ir/diagnostic.h"

namespace pypto::ir::deduce {

// ------------------------------------------------------------------------------------ Ctx

void Ctx::fail(const std::string& msg, const std::string& hint) const {
  throw CompileError("E302", ca.span, fmt::format("{}: {}", pretty(), msg), hint);
}

std::string Ctx::name(size_t i) const {
  return i < arg_names.size() ? "'" + arg_names[i] + "'" : fmt::format("argument #{}", i + 1);
}

const ShapedType& Ctx::shaped(size_t i) const {
  const auto* t = has(i) ? as_shaped(arg(i)->type) : nullptr;
  if (!t) fail(fmt::format("operand {} must be a Tensor or Tile", name(i)));
  return *t;
}

std::vector<ExprPtr> Ctx::list(size_t i) const {
  const auto* t = has(i) ? as<MakeTuple>(arg(i)) : nullptr;
  if (!t) fail(fmt::format("operand {} must be a list of indices", name(i)));
  return t->elems;
}

std::optional<int64_t> Ctx::const_arg(size_t i) const {
  return has(i) ? const_int_value(arg(i)) : std::nullopt;
}

std::optional<MemorySpace> Ctx::kw_space(std::string_view n) const {
  const auto* v = kw(n);
  const auto* m = v ? std::get_if<MemorySpace>(v) : nullptr;
  return m ? std::optional<MemorySpace>(*m) : std::nullopt;
}

std::optional<DataType> Ctx::kw_dtype(std::string_view n) const {
  const auto* v = kw(n);
  const auto* d = v ? std::get_if<DataType>(v) : nullptr;
  return d ? std::optional<DataType>(*d) : std::nullopt;
}

bool Ctx::kw_bool(std::string_view n, bool dflt) const {
  const auto* v = kw(n);
  const auto* b = v ? std::get_if<bool>(v) : nullptr;
  return b ? *b : dflt;
}

std::optional<int64_t> Ctx::kw_int(std::string_view n) const {
  const auto* v = kw(n);
  const auto* i = v ? std::get_if<int64_t>(v) : nullptr;
  return i ? std::optional<int64_t>(*i) : std::nullopt;
}

// ---------------------------------------------------------------------------------- OpRow

OpRow::OpRow(std::string name, std::vector<ArgSpec> args, Rule rule) : rule_(std::move(rule)) {
  d_.name = std::move(name);
  d_.args = std::move(args);
}

OpRow& OpRow::kw(std::string name, AttrKind kind, AttrValue dflt, std::string enum_name) {
  d_.kwargs.push_back(KwSpec{std::move(name), kind, std::move(dflt), std::move(enum_name)});
  return *this;
}

OpRow vec_row(std::string name, std::vector<ArgSpec> args, Rule rule) {
  OpRow row(std::move(name), args, std::move(rule));
  row.affinity(CoreAffinity::Vector).inherit_memory(0).pipe(Pipe::V);
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].kind == ArgKind::Tile) row.in_memory(static_cast<int>(i), {MemorySpace::Vec});
  return row;
}

OpDef OpRow::build() && {
  std::vector<std::string> names;
  for (const auto& a : d_.args) names.push_back(a.name);
  d_.deduce = [name = d_.name, names = std::move(names), rule = std::move(rule_)](const CallArgs& ca) {
    return rule(Ctx{name, names, ca});
  };
  return std::move(d_);
}

// -------------------------------------------------------------------------------- helpers

TypePtr void_type() {
  static const TypePtr t = std::make_shared<TupleType>(std::vector<TypePtr>{});
  return t;
}

DimEq compare_dim(const ExprPtr& a, const ExprPtr& b) {
  if (a == b) return DimEq::Equal;
  auto ca = const_int_value(a), cb = const_int_value(b);
  if (ca && cb) return *ca == *cb ? DimEq::Equal : DimEq::Different;
  if (as<Var>(a) && as<Var>(b) && a.get() == b.get()) return DimEq::Equal;
  return DimEq::Unknown;
}

std::string dim_str(const ExprPtr& d) {
  if (auto v = const_int_value(d)) return std::to_string(*v);
  if (const auto* v = as<Var>(d)) return v->name;
  return "?";
}

std::string shape_str(const std::vector<ExprPtr>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + dim_str(s[i]);
  return out + "]";
}

std::optional<MemorySpace> space_of(const ShapedType& t) {
  return t.kind == TypeKind::Tile ? static_cast<const TileType&>(t).space : std::nullopt;
}

TypePtr make_like(const ShapedType& like, DataType dt, std::vector<ExprPtr> shape,
                  std::optional<MemorySpace> space, std::vector<ExprPtr> valid_shape) {
  if (like.kind == TypeKind::Tensor)  // a view of a DistributedTensor stays one
    return std::make_shared<TensorType>(dt, std::move(shape), std::nullopt, std::nullopt,
                                        static_cast<const TensorType&>(like).distributed);
  std::optional<TileView> view;
  if (!valid_shape.empty()) {
    bool differs = valid_shape.size() != shape.size();
    for (size_t i = 0; !differs && i < shape.size(); ++i)
      differs = compare_dim(valid_shape[i], shape[i]) != DimEq::Equal;
    if (differs) {
      view.emplace();
      view->valid_shape = std::move(valid_shape);
    }
  }
  return std::make_shared<TileType>(dt, std::move(shape), space, std::move(view));
}

std::optional<DataType> acc_dtype(DataType in) {
  switch (in) {
    case DataType::FP16:
    case DataType::BF16:
    case DataType::FP32: return DataType::FP32;
    case DataType::INT8:
    case DataType::UINT8: return DataType::INT32;
    default: return std::nullopt;
  }
}

std::vector<ExprPtr> valid_shape_of(const ShapedType& t) {
  if (t.kind == TypeKind::Tile) {
    const auto& v = static_cast<const TileType&>(t).view;
    if (v && !v->valid_shape.empty()) return v->valid_shape;
  }
  return {};
}

void require_same_dtype(const Ctx& c, size_t i, size_t j) {
  const auto& a = c.shaped(i);
  const auto& b = c.shaped(j);
  if (a.dtype != b.dtype)
    c.fail(fmt::format("operand {} has dtype {} but operand {} has dtype {}", c.name(j),
                       dtype_name(b.dtype), c.name(i), dtype_name(a.dtype)),
           "convert one operand with pl.cast(x, target_type) so both have the same dtype");
}

void require_rank_at_least(const Ctx& c, size_t i, size_t r) {
  const auto& t = c.shaped(i);
  if (t.shape.size() < r)
    c.fail(fmt::format("operand {} must have at least {} dimensions, got shape {}", c.name(i), r,
                       shape_str(t.shape)));
}

namespace {

// Element count when static.
std::optional<int64_t> count(const std::vector<ExprPtr>& s) {
  auto st = static_shape(s);
  if (!st) return std::nullopt;
  int64_t n = 1;
  for (auto d : *st)
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;  // (the verifier bounds shapes)
  return n;
}

}  // namespace

// ---------------------------------------------------------------------------------- rules

Rule same_as(size_t i) {
  return [i](const Ctx& c) -> TypePtr {
    const auto& t = c.shaped(i);
    return make_like(t, t.dtype, t.shape, space_of(t), valid_shape_of(t));
  };
}

TypePtr binary(const Ctx& c) {
  const auto& a = c.shaped(0);
  const auto& b = c.shaped(1);
  require_same_dtype(c, 0, 1);
  const size_t ra = a.shape.size(), rb = b.shape.size(), r = std::max(ra, rb);
  std::vector<ExprPtr> out(r);
  for (size_t k = 0; k < r; ++k) {
    ExprPtr da = k < r - ra ? nullptr : a.shape[k - (r - ra)];
    ExprPtr db = k < r - rb ? nullptr : b.shape[k - (r - rb)];
    if (!da) { out[k] = db; continue; }
    if (!db) { out[k] = da; continue; }
    switch (compare_dim(da, db)) {
      case DimEq::Equal: out[k] = da; break;
      case DimEq::Unknown: out[k] = da; break;
      case DimEq::Different:
        if (const_int_value(da) == 1) out[k] = db;
        else if (const_int_value(db) == 1) out[k] = da;
        else
          c.fail(fmt::format("shapes of {} {} and {} {} are not broadcast-compatible", c.name(0),
                             shape_str(a.shape), c.name(1), shape_str(b.shape)),
                 "elementwise operands must have equal dims (or 1 where broadcasting)");
    }
  }
  auto vs = out.size() == a.shape.size() ? valid_shape_of(a) : std::vector<ExprPtr>{};
  return make_like(a, a.dtype, std::move(out), space_of(a), std::move(vs));
}

TypePtr binary_scalar(const Ctx& c) { return same_as(0)(c); }

TypePtr row_reduce(const Ctx& c) {
  require_rank_at_least(c, 0, 2);
  const auto& t = c.shaped(0);
  auto shape = t.shape;
  shape.back() = make_int(1);
  if (c.has(1)) {  // tile forms: tmp_tile must match the input's dtype
    const auto& tmp = c.shaped(1);
    if (tmp.dtype != t.dtype)
      c.fail(fmt::format("operand {} has dtype {} but operand {} has dtype {}", c.name(1),
                         dtype_name(tmp.dtype), c.name(0), dtype_name(t.dtype)));
  }
  return make_like(t, t.dtype, std::move(shape), space_of(t));
}

TypePtr col_reduce(const Ctx& c) {
  require_rank_at_least(c, 0, 2);
  const auto& t = c.shaped(0);
  auto shape = t.shape;
  shape[shape.size() - 2] = make_int(1);
  return make_like(t, t.dtype, std::move(shape), space_of(t));
}

namespace {
TypePtr expand(const Ctx& c, bool rows) {
  require_rank_at_least(c, 0, 2);
  require_rank_at_least(c, 1, 2);
  require_same_dtype(c, 0, 1);
  const auto& t = c.shaped(0);
  const auto& v = c.shaped(1);
  const size_t n = t.shape.size(), m = v.shape.size();
  const ExprPtr& unit = rows ? v.shape[m - 1] : v.shape[m - 2];
  const ExprPtr& vdim = rows ? v.shape[m - 2] : v.shape[m - 1];
  const ExprPtr& tdim = rows ? t.shape[n - 2] : t.shape[n - 1];
  const char* want = rows ? "[R, 1]" : "[1, C]";
  if (auto u = const_int_value(unit); u && *u != 1)
    c.fail(fmt::format("operand {} must be a {} vector, got shape {}", c.name(1), want, shape_str(v.shape)),
           rows ? "reduce the vector with pl.row_sum / pl.row_max first" : "reduce the vector with pl.col_sum first");
  if (compare_dim(vdim, tdim) == DimEq::Different)
    c.fail(fmt::format("operand {} has shape {} but operand {} has shape {} ({} must match)", c.name(1),
                       shape_str(v.shape), c.name(0), shape_str(t.shape), rows ? "rows" : "columns"));
  return make_like(t, t.dtype, t.shape, space_of(t), valid_shape_of(t));
}
}  // namespace

TypePtr row_expand(const Ctx& c) { return expand(c, true); }
TypePtr col_expand(const Ctx& c) { return expand(c, false); }

TypePtr cast(const Ctx& c) {
  const auto& t = c.shaped(0);
  auto dt = c.kw_dtype("target_type");
  if (!dt) c.fail("missing the target dtype", "write pl.cast(x, pl.FP16) or pl.cast(x, target_type=pl.FP16)");
  if (const auto* m = c.kw("mode")) {
    static const char* kModes[] = {"none", "rint", "round", "floor", "ceil", "trunc", "odd"};
    bool ok = std::holds_alternative<std::monostate>(*m);
    if (const auto* s = std::get_if<std::string>(m))
      for (const char* k : kModes) ok |= *s == k;
    if (const auto* i = std::get_if<int64_t>(m)) ok = *i >= 0 && *i <= 6;
    if (!ok) c.fail("unknown rounding mode", "use one of none, rint, round, floor, ceil, trunc, odd (or 0-6)");
  }
  return make_like(t, *dt, t.shape, space_of(t), valid_shape_of(t));
}

TypePtr reshape(const Ctx& c) {
  const auto& t = c.shaped(0);
  auto shape = c.list(1);
  if (shape.empty()) c.fail("the new shape must have at least one dimension");
  auto before = count(t.shape), after = count(shape);
  if (before && after && *before != *after)
    c.fail(fmt::format("cannot reshape {} ({} elements) to {} ({} elements)", shape_str(t.shape),
                       *before, shape_str(shape), *after),
           "the new shape must have the same number of elements");
  return make_like(t, t.dtype, std::move(shape), space_of(t));
}

TypePtr slice(const Ctx& c) {
  const auto& t = c.shaped(0);
  auto shape = c.list(1);
  auto offset = c.list(2);
  if (shape.size() != offset.size())
    c.fail(fmt::format("shape has {} dimensions but offset has {}", shape.size(), offset.size()),
           "note the argument order: pl.slice(x, shape, offset)");
  if (shape.size() != t.shape.size())
    c.fail(fmt::format("a window of rank {} cannot be taken from operand {} of shape {}", shape.size(),
                       c.name(0), shape_str(t.shape)));
  // A window may be padded past the operand when its valid_shape stays inside (the valid part is
  // what is read): the bound checked is the valid extent where one is given.
  std::vector<ExprPtr> valid_extent = c.has(3) ? c.list(3) : std::vector<ExprPtr>{};
  for (size_t k = 0; k < shape.size(); ++k) {
    // A reversed window (x[8:4], a start past its stop): a negative extent.
    if (auto e = const_int_value(shape[k]); e && *e < 0)
      c.fail(fmt::format("window extent {} of dimension {} is negative", *e, k),
             "a slice start:stop needs start <= stop");
    const ExprPtr& ext = k < valid_extent.size() ? valid_extent[k] : shape[k];
    auto o = const_int_value(offset[k]), s = const_int_value(ext), d = const_int_value(t.shape[k]);
    if (o && s && d && (*o < 0 || *o + *s > *d))
      c.fail(fmt::format("window [{}, {}) of dimension {} is outside {} {}", *o, *o + *s, k, c.name(0),
                         shape_str(t.shape)));
  }
  std::vector<ExprPtr> valid = c.has(3) ? c.list(3) : std::vector<ExprPtr>{};
  if (!valid.empty() && valid.size() != shape.size())
    c.fail(fmt::format("valid_shape has {} dimensions but shape has {}", valid.size(), shape.size()));
  if (t.kind == TypeKind::Tensor && !valid.empty()) {
    TensorView v;
    v.valid_shape = std::move(valid);
    return std::make_shared<TensorType>(t.dtype, std::move(shape), std::move(v), std::nullopt,
                                        static_cast<const TensorType&>(t).distributed);
  }
  return make_like(t, t.dtype, std::move(shape), space_of(t), std::move(valid));
}

TypePtr assemble(const Ctx& c) {
  const auto& target = c.shaped(0);
  const auto& src = c.shaped(1);
  // An accumulator written into a Mat tile goes through the cube's write-back (FIXPIPE), which
  // narrows it (FP32 → BF16 / FP16, rounding half to even); anything else keeps its dtype.
  const auto *tt = as_tile(c.arg(0)->type), *st = as_tile(c.arg(1)->type);
  const bool fixpipe = tt && st && st->space == MemorySpace::Acc && tt->space == MemorySpace::Mat &&
                       st->dtype == DataType::FP32 && (tt->dtype == DataType::BF16 || tt->dtype == DataType::FP16);
  if (!fixpipe) require_same_dtype(c, 0, 1);
  auto offset = c.list(2);
  if (offset.size() != target.shape.size())
    c.fail(fmt::format("offset has {} dimensions but operand {} has shape {}", offset.size(), c.name(0),
                       shape_str(target.shape)));
  // A padded source (a window with a valid_shape) places its valid part: that extent must fit.
  std::vector<ExprPtr> valid = valid_shape_of(src);
  if (const auto* tt = as_tensor(c.arg(1)->type); tt && tt->view) valid = tt->view->valid_shape;
  if (src.shape.size() == target.shape.size())
    for (size_t k = 0; k < offset.size(); ++k) {
      const ExprPtr& ext = k < valid.size() ? valid[k] : src.shape[k];
      auto o = const_int_value(offset[k]), s = const_int_value(ext), d = const_int_value(target.shape[k]);
      if (o && s && d && (*o < 0 || *o + *s > *d))
        c.fail(fmt::format("{} {}{} placed at offset {} does not fit in {} {}", c.name(1), shape_str(src.shape),
                           valid.empty() ? std::string() : fmt::format(" (valid {})", shape_str(valid)),
                           shape_str(offset), c.name(0), shape_str(target.shape)));
    }
  return c.arg(0)->type;
}

TypePtr read(const Ctx& c) {
  const auto& t = c.shaped(0);
  auto idx = c.list(1);
  if (idx.size() != t.shape.size())
    c.fail(fmt::format("{} indices given for operand {} of rank {}", idx.size(), c.name(0), t.shape.size()));
  return scalar_type(t.dtype);
}

TypePtr write(const Ctx& c) {
  read(c);
  return c.arg(0)->type;
}

TypePtr transpose(const Ctx& c) {
  const auto& t = c.shaped(0);
  const int64_t rank = static_cast<int64_t>(t.shape.size());
  auto axis = [&](size_t i) {
    auto v = c.const_arg(i);
    if (!v) c.fail(fmt::format("{} must be a constant integer", c.name(i)));
    int64_t a = *v < 0 ? *v + rank : *v;
    if (a < 0 || a >= rank) c.fail(fmt::format("{} = {} is out of range for rank {}", c.name(i), *v, rank));
    return static_cast<size_t>(a);
  };
  size_t a1 = axis(1), a2 = axis(2);
  auto shape = t.shape;
  std::swap(shape[a1], shape[a2]);
  return make_like(t, t.dtype, std::move(shape), space_of(t));
}

namespace {
std::pair<std::vector<ExprPtr>, DataType> creation(const Ctx& c) {
  auto shape = c.list(0);
  if (shape.empty()) c.fail("the shape must have at least one dimension");
  auto dt = c.kw_dtype("dtype");
  if (!dt) c.fail("missing the element dtype", fmt::format("write {}(shape, pl.FP32, ...)", c.pretty()));
  return {std::move(shape), *dt};
}
}  // namespace

TypePtr create_tile(const Ctx& c) {
  auto [shape, dt] = creation(c);
  const auto space = c.kw_space("target_memory");
  if (space && (*space == MemorySpace::LeftScale || *space == MemorySpace::RightScale))
    c.fail(fmt::format("cannot create a tile in pl.Mem.{}", to_string(*space)),
           "load the scales into pl.Mem.Mat with pl.load(..., target_memory=pl.Mem.Mat) and pl.move them");
  return std::make_shared<TileType>(dt, std::move(shape), space);
}

TypePtr create_tensor(const Ctx& c) {
  auto [shape, dt] = creation(c);
  std::optional<TensorView> view;
  if (const auto* l = c.kw("layout"))
    if (const auto* lay = std::get_if<TensorLayout>(l); lay && *lay != TensorLayout::ND) {
      view.emplace();
      view->layout = *lay;
    }
  return std::make_shared<TensorType>(dt, std::move(shape), std::move(view));
}

namespace {
struct MNK {
  ExprPtr m, n;
};
// Checks [.., M, K] × [.., K, N] (with optional transposes) and returns M and N.
MNK check_mnk(const Ctx& c, size_t li, size_t ri, bool a_trans, bool b_trans) {
  require_rank_at_least(c, li, 2);
  require_rank_at_least(c, ri, 2);
  const auto& l = c.shaped(li).shape;
  const auto& r = c.shaped(ri).shape;
  const size_t nl = l.size(), nr = r.size();
  ExprPtr m = a_trans ? l[nl - 1] : l[nl - 2], kl = a_trans ? l[nl - 2] : l[nl - 1];
  ExprPtr kr = b_trans ? r[nr - 1] : r[nr - 2], n = b_trans ? r[nr - 2] : r[nr - 1];
  if (compare_dim(kl, kr) == DimEq::Different)
    c.fail(fmt::format("inner dimensions differ: {} has shape {} (K = {}) but {} has shape {} (K = {})",
                       c.name(li), shape_str(l), dim_str(kl), c.name(ri), shape_str(r), dim_str(kr)),
           "matmul multiplies [M, K] by [K, N]");
  return {m, n};
}

void check_acc_shape(const Ctx& c, const MNK& mn) {
  const auto& acc = c.shaped(0);
  const size_t n = acc.shape.size();
  if (n < 2 || compare_dim(acc.shape[n - 2], mn.m) == DimEq::Different ||
      compare_dim(acc.shape[n - 1], mn.n) == DimEq::Different)
    c.fail(fmt::format("accumulator {} has shape {} but the product is [{}, {}]", c.name(0),
                       shape_str(acc.shape), dim_str(mn.m), dim_str(mn.n)));
}

DataType cube_acc_dtype(const Ctx& c, size_t li) {
  const auto& l = c.shaped(li);
  auto acc = acc_dtype(l.dtype);
  if (!acc)
    c.fail(fmt::format("operand {} has dtype {}, which the cube unit cannot multiply", c.name(li),
                       dtype_name(l.dtype)),
           "matmul operands must be FP16, BF16, FP32 or INT8");
  return *acc;
}
}  // namespace

TypePtr tile_matmul(const Ctx& c) {
  require_same_dtype(c, 0, 1);
  auto mn = check_mnk(c, 0, 1, false, false);
  DataType dt = c.kw_dtype("out_dtype").value_or(cube_acc_dtype(c, 0));
  return std::make_shared<TileType>(dt, std::vector<ExprPtr>{mn.m, mn.n}, MemorySpace::Acc);
}

TypePtr tile_matmul_acc(const Ctx& c) {
  require_same_dtype(c, 1, 2);
  auto mn = check_mnk(c, 1, 2, false, false);
  check_acc_shape(c, mn);
  DataType want = cube_acc_dtype(c, 1);
  const auto& acc = c.shaped(0);
  if (acc.dtype != want)
    c.fail(fmt::format("accumulator {} has dtype {} but {} x {} accumulates in {}", c.name(0),
                       dtype_name(acc.dtype), dtype_name(c.shaped(1).dtype), dtype_name(c.shaped(2).dtype),
                       dtype_name(want)));
  return c.arg(0)->type;
}

TypePtr tensor_matmul(const Ctx& c) {
  require_same_dtype(c, 0, 1);
  auto mn = check_mnk(c, 0, 1, c.kw_bool("a_trans"), c.kw_bool("b_trans"));
  const auto& l = c.shaped(0);
  const auto& r = c.shaped(1);
  const auto& batch_src = l.shape.size() >= r.shape.size() ? l.shape : r.shape;
  std::vector<ExprPtr> shape(batch_src.begin(), batch_src.end() - 2);
  shape.push_back(mn.m);
  shape.push_back(mn.n);
  return std::make_shared<TensorType>(c.kw_dtype("out_dtype").value_or(l.dtype), std::move(shape));
}

TypePtr tensor_matmul_acc(const Ctx& c) {
  require_same_dtype(c, 1, 2);
  auto mn = check_mnk(c, 1, 2, c.kw_bool("a_trans"), c.kw_bool("b_trans"));
  check_acc_shape(c, mn);
  return c.arg(0)->type;
}

}  // namespace pypto::ir::deduce
