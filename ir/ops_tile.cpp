// The tile op table (`tile.*`): one row per op. Rules live in op_deduce.*; only the tile-specific
// data-movement rules (load, store, move, extract, alloc) are defined here.
#include <fmt/format.h>

#include "ir/op_deduce.h"

namespace pypto::ir {
namespace {

using namespace deduce;
using MS = MemorySpace;

// ---- tile-only rules ----

TypePtr load(const Ctx& c) {
  const auto& t = c.shaped(0);
  auto offsets = c.list(1);
  auto shapes = c.list(2);
  if (shapes.empty()) c.fail("the tile shape must have at least one dimension");
  if (offsets.size() != shapes.size())
    c.fail(fmt::format("{} offsets but {} shape dimensions", offsets.size(), shapes.size()),
           "pl.load(tensor, offsets, shapes): one offset per window dimension");
  if (shapes.size() > t.shape.size())
    c.fail(fmt::format("a window of rank {} cannot be loaded from operand {} of shape {}", shapes.size(),
                       c.name(0), shape_str(t.shape)));
  std::vector<ExprPtr> valid = c.has(3) ? c.list(3) : std::vector<ExprPtr>{};
  if (!valid.empty() && valid.size() != shapes.size())
    c.fail(fmt::format("valid_shape has {} dimensions but shapes has {}", valid.size(), shapes.size()));
  auto space = c.kw_space("target_memory");
  if (space && *space != MS::Vec && *space != MS::Mat)
    c.fail(fmt::format("cannot load into pl.Mem.{}", to_string(*space)),
           "load into pl.Mem.Vec or pl.Mem.Mat, then pl.move to other on-chip spaces");
  std::optional<TileView> mx;
  if (t.kind == TypeKind::Tensor) mx = mx_load_view(c, static_cast<const TensorType&>(t), offsets, shapes, space);
  auto out = make_like(TileType(t.dtype, {}), t.dtype, std::move(shapes), space, std::move(valid));
  if (!mx) return out;
  const auto& tl = *as_tile(out);
  TileView v = tl.view.value_or(TileView{});
  v.blayout = mx->blayout, v.slayout = mx->slayout, v.fractal = mx->fractal;
  return std::make_shared<TileType>(tl.dtype, tl.shape, tl.space, std::move(v));
}

TypePtr store(const Ctx& c) {
  const auto& tile = c.shaped(0);
  auto offsets = c.list(1);
  const auto& out = c.shaped(2);
  if (offsets.size() != out.shape.size())
    c.fail(fmt::format("{} offsets given for operand {} of shape {}", offsets.size(), c.name(2),
                       shape_str(out.shape)));
  if (c.has(3) && c.list(3).size() != offsets.size())
    c.fail("shapes and offsets must have the same number of dimensions");
  // Acc → GM stores may narrow (FP32 accumulator into an FP16/BF16 tensor).
  const bool narrowing = space_of(tile) == MS::Acc;
  if (tile.dtype != out.dtype && !narrowing)
    c.fail(fmt::format("operand {} has dtype {} but operand {} has dtype {}", c.name(0),
                       dtype_name(tile.dtype), c.name(2), dtype_name(out.dtype)),
           "convert the tile with pl.cast(tile, target_type) before storing");
  return c.arg(2)->type;
}

TypePtr move(const Ctx& c) {
  const auto& t = c.shaped(0);
  auto space = c.kw_space("target_memory");
  if (!space) c.fail("missing target_memory", "write pl.move(tile, target_memory=pl.Mem.Left)");
  check_scale_move(c, *space);
  if (*space == MS::LeftScale || *space == MS::RightScale)  // UINT8 bytes become FP8E8M0 exponents
    return std::make_shared<TileType>(DataType::FP8E8M0, t.shape, space);
  std::optional<TileView> view;
  auto bl = c.kw("blayout"), sl = c.kw("slayout");
  const auto* b = bl ? std::get_if<TileLayout>(bl) : nullptr;
  const auto* s = sl ? std::get_if<TileLayout>(sl) : nullptr;
  if (b || s) {
    view.emplace();
    if (b) view->blayout = *b;
    if (s) view->slayout = *s;
  }
  return std::make_shared<TileType>(t.dtype, t.shape, space, std::move(view));
}

TypePtr extract(const Ctx& c) {
  const auto& t = c.shaped(0);
  auto shape = c.list(3);
  if (shape.size() != 2) c.fail(fmt::format("the extracted block must be 2-D, got shape {}", shape_str(shape)));
  auto space = c.kw_space("target_memory");
  if (!space) c.fail("missing target_memory", "write pl.tile.extract(src, row, col, shape, target_memory=pl.Mem.Left)");
  return std::make_shared<TileType>(t.dtype, std::move(shape), space);
}

TypePtr alloc(const Ctx& c) {
  if (!c.kw_space("memory_space")) c.fail("missing the memory space", "write pl.tile.alloc(pl.Mem.Vec, size)");
  auto size = c.kw_int("size");
  if (!size || *size <= 0) c.fail("the allocation size must be a positive integer");
  return ptr_type();
}

TypePtr full(const Ctx& c) {
  if (!c.kw("value") || std::holds_alternative<std::monostate>(*c.kw("value")))
    c.fail("missing the fill value", "write pl.tile.full(shape, dtype, value)");
  return create_tile(c);
}

// ---- row shapes ----

// A row is built by a chain of setters on a temporary (an lvalue reference to it by the end of
// the chain), which lives until the end of the full expression: it is moved from, not copied.
// add consumes the row: a named row passed here is empty afterwards.
void add(OpRegistry& r, OpRow&& row) { r.add(std::move(row).build()); }
void add(OpRegistry& r, OpRow& row) { add(r, std::move(row)); }


struct BinRow { const char* name; const char* scalar; };
// The arithmetic binaries: scalar form, the suffix of their row_expand_* / col_expand_* broadcast
// forms, and whether the operands commute.
struct ArithRow { const char* name; const char* scalar; const char* expand; bool commutative; };
constexpr ArithRow kBinary[] = {{"add", "adds", "add", true},          {"sub", "subs", "sub", false},
                                {"mul", "muls", "mul", true},          {"div", "divs", "div", false},
                                {"maximum", "maximums", "max", true}, {"minimum", "minimums", "min", true}};
constexpr const char* kUnary[] = {"exp", "log", "sqrt", "neg", "abs", "relu"};
constexpr const char* kReduce[] = {"sum", "max", "min", "prod"};
constexpr const char* kExpand[] = {"", "_add", "_sub", "_mul", "_div", "_max", "_min", "_expdif"};
constexpr BinRow kIntBinary[] = {{"and", "ands"}, {"or", "ors"}, {"shl", "shls"}, {"shr", "shrs"}};
constexpr const char* kPart[] = {"part_add", "part_mul", "part_max", "part_min"};

}  // namespace

void register_tile_ops(OpRegistry& r) {
  const std::string t = "tile.";
  // Elementwise.
  for (const auto& b : kBinary) {
    OpRow row = vec_row(t + b.name, {tile("lhs"), tile("rhs")}, binary);
    row.scalar_form(t + b.scalar).same_shapes()
        .broadcast_forms(t + "row_expand_" + b.expand, t + "col_expand_" + b.expand);
    if (b.commutative) row.commutative();
    add(r, std::move(row));
    add(r, vec_row(t + b.scalar, {tile("lhs"), scalar("rhs")}, binary_scalar));
  }
  for (const char* u : kUnary) add(r, vec_row(t + u, {tile("x")}, same_as(0)));
  // Integer and bitwise (xor needs a scratch tile).
  for (const auto& b : kIntBinary) {
    add(r, vec_row(t + b.name, {tile("lhs"), tile("rhs")}, int_binary).scalar_form(t + b.scalar).same_shapes());
    add(r, vec_row(t + b.scalar, {tile("lhs"), scalar("rhs")}, int_binary_scalar));
  }
  add(r, vec_row("tile.xor", {tile("lhs"), tile("rhs"), tmp_tile("tmp")}, int_binary).scalar_form("tile.xors").not_inplace_safe()
             .same_shapes());
  add(r, vec_row("tile.xors", {tile("lhs"), scalar("rhs"), tmp_tile("tmp")}, int_binary_scalar).not_inplace_safe());
  add(r, vec_row("tile.not", {tile("x")}, int_unary));
  // Remainders: fmod takes the dividend's sign (C), rem the divisor's (Python).
  add(r, vec_row("tile.fmod", {tile("lhs"), tile("rhs")}, binary).scalar_form("tile.fmods").not_inplace_safe()
             .same_shapes());
  add(r, vec_row("tile.fmods", {tile("lhs"), scalar("rhs")}, binary_scalar).not_inplace_safe());
  add(r, vec_row("tile.rem", {tile("lhs"), tile("rhs"), tmp_tile("tmp")}, binary).scalar_form("tile.rems").not_inplace_safe()
             .same_shapes());
  add(r, vec_row("tile.rems", {tile("lhs"), scalar("rhs"), tmp_tile("tmp")}, binary_scalar).not_inplace_safe());
  // Activations with a slope, partial (valid-region union) elementwise.
  add(r, vec_row("tile.lrelu", {tile("x"), scalar("slope")}, float_binary_scalar));
  add(r, vec_row("tile.prelu", {tile("x"), tile("slope"), tmp_tile("tmp")}, prelu).not_inplace_safe());
  for (const char* p : kPart) add(r, vec_row(t + p, {tile("src0"), tile("src1")}, binary));
  // Three-operand carries: addc = a + b + c, subc = a - b + c (as pto-isa defines them); the
  // scalar forms take the scalar second.
  for (const char* n : {"tile.addc", "tile.subc"}) add(r, vec_row(n, {tile("lhs"), tile("rhs"), tile("rhs2")}, carry3));
  for (const char* n : {"tile.addsc", "tile.subsc"}) add(r, vec_row(n, {tile("lhs"), scalar("rhs"), tile("rhs2")}, carry3));
  // Compare into a packed bit mask; select by a mask.
  add(r, vec_row("tile.cmp", {tile("lhs"), tile("rhs")}, cmp_mask).kw("cmp_type", AttrKind::Int, int64_t{0})
             .scalar_form("tile.cmps").not_inplace_safe());
  add(r, vec_row("tile.cmps", {tile("lhs"), scalar("rhs")}, cmp_mask).kw("cmp_type", AttrKind::Int, int64_t{0})
             .not_inplace_safe());
  add(r, vec_row("tile.sel", {tile("mask"), tile("lhs"), tile("rhs"), tmp_tile("tmp")}, select).inherit_memory(1)
             .forbid_alias(0).forbid_alias(3));
  add(r, vec_row("tile.sels", {tile("mask"), tile("src"), tmp_tile("tmp"), scalar("scalar")}, select_scalar)
             .inherit_memory(1).forbid_alias(0));
  add(r, vec_row("tile.recip", {tile("x")}, same_as(0)).not_inplace_safe());
  add(r, vec_row("tile.rsqrt", {tile("x"), tmp_tile("tmp", true)}, same_as(0)).not_inplace_safe());
  add(r, vec_row("tile.cast", {tile("x")}, cast).kw("target_type", AttrKind::DType).kw("mode", AttrKind::Any, std::string("round")));
  add(r, vec_row("tile.expands", {tile("target"), scalar("scalar")}, same_as(0)));
  add(r, vec_row("tile.full", {indices("shape")}, full).kw("dtype", AttrKind::DType).kw("value", AttrKind::Float)
             .kw("target_memory", AttrKind::MemSpace, MS::Vec).inherit_memory(-1).out_memory_kwarg("target_memory"));
  // Reductions and broadcasts.
  for (const char* k : kReduce) {
    add(r, vec_row(t + "row_" + k, {tile("tile"), tmp_tile("tmp_tile")}, row_reduce).not_inplace_safe());
    add(r, vec_row(t + "col_" + k, {tile("tile"), tmp_tile("tmp_tile", true)}, col_reduce).not_inplace_safe());
  }
  for (const char* k : {"argmax", "argmin"}) {
    add(r, vec_row(t + "row_" + k, {tile("tile"), tmp_tile("tmp_tile")}, row_arg_reduce).not_inplace_safe());
    add(r, vec_row(t + "col_" + k, {tile("tile"), tmp_tile("tmp_tile")}, col_arg_reduce).not_inplace_safe());
  }
  for (const char* e : kExpand) {
    add(r, vec_row(t + "row_expand" + e, {tile("tile"), tile("row_vec")}, row_expand).forbid_alias(1));
    add(r, vec_row(t + "col_expand" + e, {tile("tile"), tile("col_vec")}, col_expand).forbid_alias(1));
  }
  // Creation and data movement.
  add(r, OpRow("tile.create", {indices("shape")}, create_tile).alias("create_tile")
             .kw("dtype", AttrKind::DType).kw("target_memory", AttrKind::MemSpace, MS::Vec)
             .out_memory_kwarg("target_memory").no_instruction());
  add(r, OpRow("tile.load", {tensor("tensor"), indices("offsets"), indices("shapes"), indices_defaulting_to("valid_shape", 2)}, load)
             .kw("target_memory", AttrKind::MemSpace, MS::Vec).kw("clamp", AttrKind::Bool, false)
             .out_memory_kwarg("target_memory").pipe(Pipe::MTE2).io(IoTier::Load));
  add(r, OpRow("tile.store", {tile("tile"), indices("offsets"), tensor("output_tensor"), indices("shapes", true)}, store)
             .kw("atomic", AttrKind::Enum, {}, "AtomicType").in_memory(0, {MS::Vec, MS::Acc}).store_pipe()
             .writes_tensor(2).io(IoTier::Store));
  add(r, OpRow("tile.move", {tile("tile")}, move).kw("target_memory", AttrKind::MemSpace)
             .kw("blayout", AttrKind::TileLayout).kw("slayout", AttrKind::TileLayout)
             .out_memory_kwarg("target_memory").affinity_by_space().not_inplace_safe().move_pipe(0).io(IoTier::L0Fetch));
  add(r, OpRow("tile.extract", {tile("src"), scalar("row"), scalar("col"), indices("shape")}, extract)
             .kw("target_memory", AttrKind::MemSpace).out_memory_kwarg("target_memory")
             .in_memory(0, {MS::Mat}).affinity(CoreAffinity::Cube).move_pipe(0).io(IoTier::L0Fetch));
  add(r, OpRow("tile.alloc", {}, alloc).kw("memory_space", AttrKind::MemSpace).kw("size", AttrKind::Int).no_instruction());
  // Views, assembly, element access.
  add(r, OpRow("tile.reshape", {tile("tile"), indices("shape")}, reshape).inherit_memory(0).reuses_input(0)
             .no_instruction());  // a view: the result is the source's buffer
  add(r, OpRow("tile.slice", {tile("tile"), indices("shape"), indices("offset"), indices("valid_shape", true)}, slice)
             .kw("pad_value", AttrKind::PadValue).kw("clamp", AttrKind::Bool, false).inherit_memory(0).reuses_input(0)
             .no_instruction());  // a view: the result is a window of the source's buffer
  add(r, OpRow("tile.assemble", {tile("target"), tile("source"), indices("offset")}, assemble)
             .kw("atomic", AttrKind::Enum, EnumLit{"AtomicType", "None_"}, "AtomicType")
             .inherit_memory(0).reuses_input(0).move_pipe(1));
  add(r, vec_row("tile.read", {tile("tile"), indices("indices")}, read).inherit_memory(-1).pipe(Pipe::S).io(IoTier::Load));
  add(r, vec_row("tile.write", {tile("tile"), indices("indices"), scalar("value")}, write).reuses_input(0).pipe(Pipe::S).io(IoTier::Store));
  add(r, vec_row("tile.transpose", {tile("tile"), scalar("axis1"), scalar("axis2"), tmp_tile("tmp", true)}, transpose)
             .not_inplace_safe());
  register_tile_data_ops(r);
  // Cube.
  add(r, OpRow("tile.matmul", {tile("lhs"), tile("rhs")}, tile_matmul).kw("out_dtype", AttrKind::DType)
             .affinity(CoreAffinity::Cube).out_memory(MS::Acc).in_memory(0, {MS::Left}).in_memory(1, {MS::Right})
             .pipe(Pipe::M));
  add(r, OpRow("tile.matmul_acc", {tile("acc"), tile("lhs"), tile("rhs")}, tile_matmul_acc)
             .affinity(CoreAffinity::Cube).out_memory(MS::Acc).reuses_input(0)
             .in_memory(0, {MS::Acc}).in_memory(1, {MS::Left}).in_memory(2, {MS::Right}).pipe(Pipe::M));
  add(r, OpRow("tile.matmul_bias", {tile("lhs"), tile("rhs"), tile("bias")}, tile_matmul_bias)
             .kw("out_dtype", AttrKind::DType).affinity(CoreAffinity::Cube).out_memory(MS::Acc)
             .in_memory(0, {MS::Left}).in_memory(1, {MS::Right}).in_memory(2, {MS::Bias}).pipe(Pipe::M));
  add(r, OpRow("tile.gemv", {tile("lhs"), tile("rhs")}, tile_gemv).kw("out_dtype", AttrKind::DType)
             .kw("acc_phase", AttrKind::String, std::string("unspecified")).affinity(CoreAffinity::Cube)
             .out_memory(MS::Acc).in_memory(0, {MS::Left}).in_memory(1, {MS::Right}).pipe(Pipe::M));
  add(r, OpRow("tile.gemv_acc", {tile("acc"), tile("lhs"), tile("rhs")}, tile_gemv)
             .kw("acc_phase", AttrKind::String, std::string("unspecified")).affinity(CoreAffinity::Cube)
             .out_memory(MS::Acc).reuses_input(0).in_memory(0, {MS::Acc}).in_memory(1, {MS::Left})
             .in_memory(2, {MS::Right}).pipe(Pipe::M).kernel_deferred("cube issue: the CPU runtime has no TGEMV_ACC yet"));
  // MX matmuls (950): the scales at LeftScale / RightScale; tget_scale_addr (inserted by
  // InsertMxScaleAddr, not written by users) binds a scale tile to the data tile whose address the
  // hardware derives it from — no instruction: the memory plan places the scale there.
  add(r, OpRow("tile.matmul_mx", {tile("lhs"), tile("lhs_scale"), tile("rhs"), tile("rhs_scale")}, tile_matmul_mx)
             .affinity(CoreAffinity::Cube).out_memory(MS::Acc).in_memory(0, {MS::Left}).in_memory(1, {MS::LeftScale})
             .in_memory(2, {MS::Right}).in_memory(3, {MS::RightScale}).pipe(Pipe::M));
  add(r, OpRow("tile.matmul_mx_acc", {tile("acc"), tile("lhs"), tile("lhs_scale"), tile("rhs"), tile("rhs_scale")},
               tile_matmul_mx_acc)
             .affinity(CoreAffinity::Cube).out_memory(MS::Acc).reuses_input(0).in_memory(0, {MS::Acc})
             .in_memory(1, {MS::Left}).in_memory(2, {MS::LeftScale}).in_memory(3, {MS::Right})
             .in_memory(4, {MS::RightScale}).pipe(Pipe::M));
  add(r, OpRow("tile.matmul_mx_bias", {tile("lhs"), tile("lhs_scale"), tile("rhs"), tile("rhs_scale"), tile("bias")},
               tile_matmul_mx_bias)
             .affinity(CoreAffinity::Cube).out_memory(MS::Acc).in_memory(0, {MS::Left}).in_memory(1, {MS::LeftScale})
             .in_memory(2, {MS::Right}).in_memory(3, {MS::RightScale}).in_memory(4, {MS::Bias}).pipe(Pipe::M));
  add(r, OpRow("tile.tget_scale_addr", {tile("dst_scale"), tile("src")}, tile_tget_scale_addr)
             .affinity(CoreAffinity::Cube).inherit_memory(0).reuses_input(0).internal().no_instruction());
  add(r, OpRow("tile.batch_matmul", {tile("lhs"), tile("rhs")}, tile_batch_matmul).kw("out_dtype", AttrKind::DType)
             .affinity(CoreAffinity::Cube).out_memory(MS::Acc).pipe(Pipe::M)
             .kernel_deferred("cube issue: FlattenTileNdTo2D unrolls the batch into tile.matmul"));
  add(r, OpRow("tile.batch_matmul_acc", {tile("acc"), tile("lhs"), tile("rhs")}, tile_batch_matmul)
             .affinity(CoreAffinity::Cube).out_memory(MS::Acc).reuses_input(0).pipe(Pipe::M)
             .kernel_deferred("cube issue: FlattenTileNdTo2D unrolls the batch into tile.matmul_acc"));
}

}  // namespace pypto::ir
