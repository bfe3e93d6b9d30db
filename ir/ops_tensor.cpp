// The tensor op table (`tensor.*`): one row per op. Tensor ops describe whole-array computation
// in GM; inside kernels they are lowered to tile ops by ConvertTensorToTileOps. All rules live in
// op_deduce.* and are shared with the tile table.
#include <fmt/format.h>

#include "ir/op_deduce.h"

namespace pypto::ir {
namespace {

using namespace deduce;

// A row is built by a chain of setters on a temporary (an lvalue reference to it by the end of
// the chain), which lives until the end of the full expression: it is moved from, not copied.
// add consumes the row: a named row passed here is empty afterwards.
void add(OpRegistry& r, OpRow&& row) { r.add(std::move(row).build()); }
void add(OpRegistry& r, OpRow& row) { add(r, std::move(row)); }

TypePtr full(const Ctx& c) {
  if (!c.kw("value") || std::holds_alternative<std::monostate>(*c.kw("value")))
    c.fail("missing the fill value", "write pl.full(shape, dtype, value)");
  return create_tensor(c);
}

// (x, axis) → the extent of that axis as an INDEX scalar; a negative axis counts from the end.
TypePtr dim(const Ctx& c) {
  const auto& t = c.shaped(0);
  auto axis = c.const_arg(1);
  if (!axis) c.fail("the axis must be a constant integer", "write pl.tensor.dim(x, 0)");
  const auto rank = static_cast<int64_t>(t.shape.size());
  if (*axis < -rank || *axis >= rank)
    c.fail(fmt::format("axis {} is out of range for operand {} of rank {}", *axis, c.name(0), rank));
  return std::make_shared<ScalarType>(DataType::INDEX);
}

struct BinRow { const char* name; const char* scalar; };
// The arithmetic binaries: scalar form, the suffix of their row_expand_* / col_expand_* broadcast
// forms, and whether the operands commute.
struct ArithRow { const char* name; const char* scalar; const char* expand; bool commutative; };
constexpr ArithRow kBinary[] = {{"add", "adds", "add", true},          {"sub", "subs", "sub", false},
                                {"mul", "muls", "mul", true},          {"div", "divs", "div", false},
                                {"maximum", "maximums", "max", true}, {"minimum", "minimums", "min", true}};
constexpr const char* kUnary[] = {"exp", "sqrt", "neg", "abs", "relu"};
constexpr const char* kPreciseUnary[] = {"log", "recip"};  // take high_precision=
constexpr const char* kReduce[] = {"sum", "max", "min", "prod"};
constexpr const char* kExpand[] = {"", "_add", "_sub", "_mul", "_div", "_max", "_min", "_expdif"};
constexpr BinRow kIntBinary[] = {{"and", "ands"}, {"or", "ors"}, {"shl", "shls"}, {"shr", "shrs"}};
constexpr const char* kPart[] = {"part_add", "part_mul", "part_max", "part_min"};

// A tensor op whose tile form has the same name and operand list.
OpRow same_tile(const std::string& name, std::vector<ArgSpec> args, Rule rule, TileLowering l = TileLowering::Compute) {
  OpRow row("tensor." + name, std::move(args), std::move(rule));
  row.tile_form("tile." + name, l);
  return row;
}

}  // namespace

void register_tensor_ops(OpRegistry& r) {
  const std::string t = "tensor.";
  // Elementwise.
  for (const auto& b : kBinary) {
    OpRow row(t + b.name, {tensor("lhs"), tensor("rhs")}, binary);
    row.scalar_form(t + b.scalar).tile_form(std::string("tile.") + b.name, TileLowering::Compute)
        .broadcast_forms(std::string("tile.row_expand_") + b.expand, std::string("tile.col_expand_") + b.expand);
    if (b.commutative) row.commutative();
    if (std::string_view(b.name) == "div") row.kw("high_precision", AttrKind::Bool, false);
    add(r, std::move(row));
    add(r, OpRow(t + b.scalar, {tensor("lhs"), scalar("rhs")}, binary_scalar)
               .tile_form(std::string("tile.") + b.scalar, TileLowering::Compute));
  }
  for (const char* u : kUnary)
    add(r, OpRow(t + u, {tensor("x")}, same_as(0)).tile_form(std::string("tile.") + u, TileLowering::Compute));
  for (const char* u : kPreciseUnary)
    add(r, OpRow(t + u, {tensor("x")}, same_as(0)).kw("high_precision", AttrKind::Bool, false)
               .tile_form(std::string("tile.") + u, TileLowering::Compute));
  add(r, OpRow("tensor.rsqrt", {tensor("x")}, same_as(0)).kw("high_precision", AttrKind::Bool, false)
             .tile_form("tile.rsqrt", TileLowering::PreciseTmp));
  for (const auto& b : kIntBinary) {
    add(r, same_tile(b.name, {tensor("lhs"), tensor("rhs")}, int_binary).scalar_form(std::string("tensor.") + b.scalar));
    add(r, same_tile(b.scalar, {tensor("lhs"), scalar("rhs")}, int_binary_scalar));
  }
  add(r, same_tile("xor", {tensor("lhs"), tensor("rhs")}, int_binary, TileLowering::ComputeTmp).scalar_form("tensor.xors"));
  add(r, same_tile("xors", {tensor("lhs"), scalar("rhs")}, int_binary_scalar, TileLowering::ComputeTmp));
  add(r, same_tile("not", {tensor("x")}, int_unary));
  add(r, same_tile("fmod", {tensor("lhs"), tensor("rhs")}, binary).scalar_form("tensor.fmods"));
  add(r, same_tile("fmods", {tensor("lhs"), scalar("rhs")}, binary_scalar));
  for (const char* p : kPart) add(r, same_tile(p, {tensor("src0"), tensor("src1")}, binary));
  for (const char* u : {"sin", "cos"}) add(r, same_tile(u, {tensor("x")}, fp32_unary));
  add(r, OpRow("tensor.cmp", {tensor("lhs"), any("rhs")}, cmp_values).kw("cmp_type", AttrKind::Int, int64_t{0})
             .tile_form("tile.cmp", TileLowering::Compare));
  add(r, OpRow("tensor.cast", {tensor("x")}, cast).kw("target_type", AttrKind::DType)
             .kw("mode", AttrKind::Any, std::string("round")).tile_form("tile.cast", TileLowering::Compute));
  add(r, OpRow("tensor.expands", {tensor("target"), scalar("scalar")}, same_as(0))
             .tile_form("tile.expands", TileLowering::Compute));
  // Reductions and broadcasts.
  for (const char* k : kReduce) {
    add(r, OpRow(t + "row_" + k, {tensor("x")}, row_reduce).tile_form("tile.row_" + std::string(k), TileLowering::ComputeTmp));
    add(r, OpRow(t + "col_" + k, {tensor("x")}, col_reduce).tile_form("tile.col_" + std::string(k), TileLowering::Compute));
  }
  for (const char* k : {"argmax", "argmin"}) {
    add(r, same_tile(std::string("row_") + k, {tensor("x")}, row_arg_reduce, TileLowering::ComputeTmp));
    add(r, same_tile(std::string("col_") + k, {tensor("x")}, col_arg_reduce, TileLowering::ComputeTmp));
  }
  for (const char* e : kExpand) {
    add(r, OpRow(t + "row_expand" + e, {tensor("x"), tensor("row_vec")}, row_expand)
               .tile_form("tile.row_expand" + std::string(e), TileLowering::Compute));
    add(r, OpRow(t + "col_expand" + e, {tensor("x"), tensor("col_vec")}, col_expand)
               .tile_form("tile.col_expand" + std::string(e), TileLowering::Compute));
  }
  // Creation.
  add(r, OpRow("tensor.create", {indices("shape")}, create_tensor).alias("create_tensor")
             .kw("dtype", AttrKind::DType).kw("layout", AttrKind::TensorLayout, TensorLayout::ND)
             .kw("manual_dep", AttrKind::Bool, false)
             .kw("init_value", AttrKind::Float)  // pre-fill: TensorCreateInfo::set_initial_value, filled at allocation
             .kw("alloc_batch", AttrKind::Int)  // the alloc_tensors batch, set by PlanTensorAllocs
             // allocated by the runtime when its first writer is submitted (add_output(TensorCreateInfo)):
             // a trailing Out tensor an orchestration call leaves out
             .kw("runtime_output", AttrKind::Bool, false)
             .affinity(CoreAffinity::Control)
             .tile_form("tile.create", TileLowering::Create).orchestration());
  add(r, OpRow("tensor.full", {indices("shape")}, full).kw("dtype", AttrKind::DType).kw("value", AttrKind::Float)
             .tile_form("tile.full", TileLowering::Create));
  // Views, assembly, element access.
  add(r, OpRow("tensor.reshape", {tensor("x"), indices("shape")}, reshape)
             .tile_form("tile.reshape", TileLowering::Compute).orchestration());
  add(r, OpRow("tensor.slice", {tensor("x"), indices("shape"), indices("offset"), indices("valid_shape", true)}, slice)
             .kw("pad_value", AttrKind::PadValue).kw("clamp", AttrKind::Bool, false)
             .tile_form("tile.slice", TileLowering::Slice).orchestration());
  add(r, OpRow("tensor.assemble", {tensor("target"), tensor("source"), indices("offset")}, assemble)
             .kw("atomic", AttrKind::Enum, EnumLit{"AtomicType", "None_"}, "AtomicType")
             .tile_form("tile.assemble", TileLowering::Assemble).writes_tensor(0));
  add(r, OpRow("tensor.dim", {tensor("x"), scalar("axis")}, dim).lowering(TileLowering::Scalar).orchestration());
  add(r, OpRow("tensor.read", {tensor("x"), indices("indices")}, read)
             .tile_form("tile.read", TileLowering::Compute).orchestration().kernel_gm_scalar().pipe(Pipe::S).io(IoTier::Load));
  add(r, OpRow("tensor.write", {tensor("x"), indices("indices"), scalar("value")}, write).reuses_input(0)
             .tile_form("tile.write", TileLowering::Compute).orchestration().kernel_gm_scalar().pipe(Pipe::S)
             .writes_tensor(0).io(IoTier::Store));
  add(r, OpRow("tensor.transpose", {tensor("x"), scalar("axis1"), scalar("axis2")}, transpose)
             .tile_form("tile.transpose", TileLowering::Transpose).orchestration());
  // Sort / concat / gather / scatter, pads and valid shapes.
  add(r, same_tile("sort32", {tensor("src"), tensor("idx")}, sort32));
  add(r, OpRow("tensor.mrgsort_format1", {tensor("src"), scalar("block_len")}, mrgsort1)
             .tile_form("tile.mrgsort_format1", TileLowering::Compute));
  add(r, OpRow("tensor.mrgsort_format2", {tensor("src0"), tensor("src1"), tensor("src2", true), tensor("src3", true)}, mrgsort2)
             .kw("exhausted", AttrKind::Bool, false).tile_form("tile.mrgsort_format2", TileLowering::MergeTmp));
  add(r, same_tile("concat", {tensor("src0"), tensor("src1")}, concat));
  add(r, OpRow("tensor.gather", {tensor("input"), tensor("index")}, gather).kw("dim", AttrKind::Int, int64_t{-1})
             .tile_form("tile.gather", TileLowering::Gather));
  add(r, OpRow("tensor.scatter", {tensor("input"), tensor("index"), tensor("src")}, scatter).kw("dim", AttrKind::Int, int64_t{-1})
             .tile_form("tile.scatter", TileLowering::Scatter));
  // Mask-pattern forms: the columns a fixed pattern selects (pl.tile.MaskPattern.P0101 = 1 ...),
  // compacted / spread back (pl.gather / pl.scatter with mask_pattern= in the reference's DSL).
  add(r, same_tile("gather_mask", {tensor("src")}, gather_mask).kw("mask_pattern", AttrKind::Int)
             .kw("output_dtype", AttrKind::DType));
  add(r, OpRow("tensor.scatter_mask", {tensor("input"), tensor("dst")}, scatter_mask).kw("mask_pattern", AttrKind::Int)
             .tile_form("tile.scatter_mask", TileLowering::ScatterMask));
  add(r, same_tile("set_validshape", {tensor("x"), scalar("valid_rows"), scalar("valid_cols")}, set_validshape));
  add(r, same_tile("fillpad", {tensor("x")}, fillpad).kw("pad_value", AttrKind::PadValue, PadValue::zero));
  add(r, same_tile("fillpad_expand", {tensor("x"), indices("shape")}, fillpad_expand)
             .kw("pad_value", AttrKind::PadValue, PadValue::zero));
  add(r, same_tile("ci", {scalar("start"), indices("shape")}, ci, TileLowering::Create)
             .kw("dtype", AttrKind::DType, DataType::INT32).kw("descending", AttrKind::Bool, false)
             .alias("arange"));  // newer DSL spelling of the same generator (pypto-lib uses pl.arange)
  // SPMD identity and the AIC↔AIV boundary markers.
  for (const char* n : {"get_block_idx", "get_block_num", "get_subblock_idx"}) add(r, same_tile(n, {}, block_index));
  add(r, same_tile("aiv_shard", {tensor("x")}, shard).kw("split", AttrKind::Int).kw("lane_stride", AttrKind::Int));
  add(r, same_tile("aic_gather", {tensor("x")}, shard).kw("split", AttrKind::Int));
  // L1 staging for the cube (a tensor lowered to a Mat tile) and row gathers into it.
  add(r, OpRow("tensor.create_l1", {indices("shape")}, create_l1).kw("dtype", AttrKind::DType)
             .kw("transpose", AttrKind::Bool, false).tile_form("tile.create", TileLowering::CreateMat));
  add(r, OpRow("tensor.gather_row", {tensor("acc"), tensor("src"), indices("dst_offset"), indices("src_offset"),
                                     indices("shapes"), indices("valid_shape", true)}, gather_row)
             .kw("transpose", AttrKind::Bool, false).tile_form("tile.gather_row", TileLowering::GatherRow));
  // Matmul (whole GEMM; tiled by passes).
  add(r, OpRow("tensor.matmul", {tensor("lhs"), tensor("rhs")}, tensor_matmul).kw("out_dtype", AttrKind::DType)
             .kw("a_trans", AttrKind::Bool, false).kw("b_trans", AttrKind::Bool, false)
             .kw("c_matrix_nz", AttrKind::Bool, false).tile_form("tile.matmul", TileLowering::Matmul));
  add(r, OpRow("tensor.matmul_acc", {tensor("acc"), tensor("lhs"), tensor("rhs")}, tensor_matmul_acc)
             .kw("a_trans", AttrKind::Bool, false).kw("b_trans", AttrKind::Bool, false).reuses_input(0)
             .tile_form("tile.matmul_acc", TileLowering::MatmulAcc));
}

}  // namespace pypto::ir
