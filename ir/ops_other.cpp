// The op tables of the smaller families: `array.*` (on-core local arrays of scalars, e.g. TaskId
// arrays), `prefetch.*` (asynchronous GM prefetch), `pld.*` (distributed: window buffers and their
// pld.DistributedTensor views, communicators, signals, remote loads / stores; targets must be
// distributed tensors). Registered with their type rules; the stages that execute them come with their
// features (the distributed issue for pld). A local array, a prefetch context, event and session
// are opaque handles (pl.Ptr) in this IR.
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

TypePtr handle(const Ctx&) { return ptr_type(); }

TypePtr array_create(const Ctx& c) {
  auto n = c.const_arg(0);
  if (!n || *n <= 0) c.fail("the extent must be a positive constant integer", "write pl.array.create(8, pl.INT32)");
  auto dt = c.kw_dtype("dtype");
  if (!dt) c.fail("missing the element dtype", "write pl.array.create(8, pl.INT32)");
  return array_type(*dt, *n);
}

const ArrayType& array_operand(const Ctx& c) {
  const auto* a = as_array(c.arg(0)->type);
  if (!a) c.fail(fmt::format("operand {} must be a pl.Array, got {}", c.name(0), type_noun(c.arg(0)->type)));
  const auto* i = as_scalar(c.arg(1)->type);
  if (!i || !dtype_is_int(i->dtype)) c.fail(fmt::format("index {} must be an integer scalar", c.name(1)));
  if (auto v = c.const_arg(1); v && (*v < 0 || *v >= a->extent))
    c.fail(fmt::format("index {} is outside pl.Array[{}, ...]", *v, a->extent));
  return *a;
}

TypePtr array_get(const Ctx& c) { return scalar_type(array_operand(c).dtype); }

TypePtr array_update(const Ctx& c) {
  const auto& a = array_operand(c);
  const auto* v = as_scalar(c.arg(2)->type);
  if (!v) c.fail(fmt::format("value {} must be a scalar", c.name(2)));
  if (v->dtype != a.dtype && !(dtype_is_int(v->dtype) && dtype_is_int(a.dtype) && a.dtype != DataType::TASK_ID))
    c.fail(fmt::format("value {} is {}, the array holds {}", c.name(2), dtype_name(v->dtype), dtype_name(a.dtype)));
  return c.arg(0)->type;
}

// (src, ctx) → an event: the prefetch of a whole GM tensor that is one flat run of elements
// ([N] or [1, ..., 1, N], static), which is all the SDMA prefetch takes (pto-isa's
// TPREFETCH_ASYNC does nothing for any other region).
TypePtr prefetch(const Ctx& c) {
  const auto* t = as_tensor(c.arg(0)->type);
  if (!t) c.fail(fmt::format("operand {} must be a Tensor", c.name(0)));
  auto shape = static_shape(t->shape);
  bool flat = shape.has_value();
  for (size_t k = 0; flat && k + 1 < shape->size(); ++k) flat = (*shape)[k] == 1;
  if (!flat)
    c.fail(fmt::format("operand {} must be a flat tensor of static shape ([N] or [1, ..., N]), got {}", c.name(0),
                       type_noun(c.arg(0)->type)),
           "reshape it first: pl.prefetch.async_prefetch(pl.reshape(w, [N]), ctx)");
  if (!as<Var>(c.arg(0))) c.fail(fmt::format("operand {} must be a tensor variable", c.name(0)));
  return ptr_type();
}

TypePtr prefetch_wait(const Ctx&) { return scalar_type(DataType::BOOL); }

// Offsets / shapes, when given, have one entry per dimension of the tensor operand `t`.
void check_rank(const Ctx& c, size_t t, size_t list) {
  if (!c.has(list)) return;
  const auto& s = c.shaped(t);
  if (c.list(list).size() != s.shape.size())
    c.fail(fmt::format("{} has {} entries but operand {} has rank {}", c.name(list), c.list(list).size(), c.name(t),
                       s.shape.size()));
}

// A pld target / signal operand must be a window-bound pld.DistributedTensor.
const TensorType& distributed(const Ctx& c, size_t i, const char* role) {
  const auto* t = c.has(i) ? as_tensor(c.arg(i)->type) : nullptr;
  if (!t || !t->distributed)
    c.fail(fmt::format("{} {} must be a pld.DistributedTensor (window-bound), got {}", role, c.name(i),
                       type_noun(c.has(i) ? c.arg(i)->type : nullptr)),
           "declare it pld.DistributedTensor[[...], dtype] or create it with pld.window(buf, shape, dtype=...)");
  return *t;
}

bool is_int_scalar(const ExprPtr& e) {
  const auto* s = e ? as_scalar(e->type) : nullptr;
  return s && dtype_is_int(s->dtype);
}

const EnumLit* enum_kw(const Ctx& c, const char* k, const char* enum_name, const char* hint) {
  const auto* v = c.kw(k);
  const auto* e = v ? std::get_if<EnumLit>(v) : nullptr;
  if (!e) c.fail(fmt::format("missing {}={}.<member>", k, enum_name), hint);
  return e;
}

TypePtr notify(const Ctx& c) {
  distributed(c, 0, "target");
  check_rank(c, 0, 2);
  const auto* op = enum_kw(c, "op", "pld.NotifyOp", "write op=pld.NotifyOp.AtomicAdd or pld.NotifyOp.Set");
  if (op->member != "AtomicAdd" && op->member != "Set") c.fail(fmt::format("op=pld.NotifyOp.{} is not AtomicAdd or Set", op->member));
  return void_type();
}

TypePtr wait(const Ctx& c) {
  distributed(c, 0, "signal");
  check_rank(c, 0, 1);
  const auto* cmp = enum_kw(c, "cmp", "pld.WaitCmp", "write cmp=pld.WaitCmp.Eq or pld.WaitCmp.Ge");
  if (cmp->member != "Eq" && cmp->member != "Ge") c.fail(fmt::format("cmp=pld.WaitCmp.{} is not Eq or Ge", cmp->member));
  return void_type();
}

// defer_wait: an INT32 signal, integer offsets and threshold, only `>=` (the runtime's deferred
// completion condition).
TypePtr defer_wait(const Ctx& c) {
  const auto& t = distributed(c, 0, "signal");
  if (t.dtype != DataType::INT32) c.fail(fmt::format("signal {} must be INT32, got {}", c.name(0), dtype_name(t.dtype)));
  check_rank(c, 0, 1);
  for (const auto& o : c.list(1))
    if (!is_int_scalar(o)) c.fail("offsets must be integer scalars", "write offsets=[0]");
  if (!is_int_scalar(c.arg(2))) c.fail(fmt::format("expected must be an integer scalar, got {}", type_noun(c.arg(2)->type)));
  if (auto v = c.const_arg(2); v && *v < 0) c.fail("expected must not be negative");
  const auto* cmp = enum_kw(c, "cmp", "pld.WaitCmp", "write cmp=pld.WaitCmp.Ge");
  if (cmp->member != "Ge") c.fail(fmt::format("cmp=pld.WaitCmp.{} is not supported: a deferred wait only tests >=", cmp->member),
                                  "write cmp=pld.WaitCmp.Ge");
  return void_type();
}

TypePtr transfer(const Ctx& c) {  // put / get: (dst, peer, src[, dst_offsets, src_offsets, shape])
  require_same_dtype(c, 0, 2);
  check_rank(c, 0, 3);
  check_rank(c, 2, 4);
  return void_type();
}

TypePtr remote_load(const Ctx& c) {
  const auto& t = c.shaped(0);
  check_rank(c, 0, 2);
  auto shape = c.list(3);
  std::vector<ExprPtr> valid = c.has(4) ? c.list(4) : std::vector<ExprPtr>{};
  return make_like(TileType(t.dtype, {}), t.dtype, std::move(shape), MemorySpace::Vec, std::move(valid));
}

TypePtr remote_store(const Ctx& c) {
  require_same_dtype(c, 0, 1);
  check_rank(c, 1, 3);
  return void_type();
}

TypePtr put(const Ctx& c) {  // (dst remote, peer, src local[, dst_offsets, src_offsets, shape])
  distributed(c, 0, "dst");
  return transfer(c);
}
TypePtr get(const Ctx& c) {  // (dst local, peer, src remote[, ...])
  distributed(c, 2, "src");
  return transfer(c);
}

TypePtr barrier(const Ctx& c) {
  distributed(c, 0, "signal");
  return void_type();
}

TypePtr world_size(const Ctx&) { return scalar_type(DataType::INT64); }

TypePtr get_comm_ctx(const Ctx& c) {
  distributed(c, 0, "dist_tensor");
  return comm_ctx_type();
}

TypePtr rank_of(const Ctx& c) {
  if (!is_comm_ctx(c.arg(0)->type))
    c.fail(fmt::format("ctx {} must be a pld.CommCtx (from pld.get_comm_ctx(t)), got {}", c.name(0), type_noun(c.arg(0)->type)),
           "write pld.rank(pld.get_comm_ctx(t))");
  return scalar_type(DataType::INT32);
}

// alloc_window_buffer(bytes) or (shape; dtype=): a per-rank window allocation handle.
TypePtr alloc_window(const Ctx& c) {
  const auto* dt = c.kw("dtype");
  const bool has_dtype = dt && !std::holds_alternative<std::monostate>(*dt);
  if (const auto* tup = as<MakeTuple>(c.arg(0))) {
    if (!has_dtype) c.fail("a shaped window buffer needs dtype=", "write pld.alloc_window_buffer([64, 128], dtype=pl.FP32)");
    if (tup->elems.empty()) c.fail("the shape must have at least one dimension");
    for (const auto& d : tup->elems) {
      if (!is_int_scalar(d)) c.fail("shape entries must be integer scalars");
      if (auto v = const_int_value(d); v && *v <= 0) c.fail(fmt::format("shape entries must be positive, got {}", *v));
    }
    return ptr_type();
  }
  if (!is_int_scalar(c.arg(0)))
    c.fail(fmt::format("size {} must be an integer byte count or a shape list, got {}", c.name(0), type_noun(c.arg(0)->type)));
  if (has_dtype) c.fail("dtype= is only for a shaped buffer", "write pld.alloc_window_buffer(nbytes) or (shape, dtype=...)");
  if (auto v = c.const_arg(0); v && *v <= 0) c.fail(fmt::format("size must be positive, got {}", *v));
  return ptr_type();
}

// window(buf, shape; dtype=): a DistributedTensor view of a window buffer.
TypePtr window(const Ctx& c) {
  const auto& t = c.arg(0)->type;
  if (!t || t->kind != TypeKind::Ptr || is_comm_ctx(t))
    c.fail(fmt::format("buf {} must be a window buffer (from pld.alloc_window_buffer), got {}", c.name(0), type_noun(t)));
  auto dt = c.kw_dtype("dtype");
  if (!dt) c.fail("missing dtype=", "write pld.window(buf, [256], dtype=pl.FP32)");
  return std::make_shared<TensorType>(*dt, c.list(1), std::nullopt, std::nullopt, true);
}

TypePtr remote_load_d(const Ctx& c) {
  distributed(c, 0, "target");
  return remote_load(c);
}

TypePtr remote_store_d(const Ctx& c) {
  const auto& dst = distributed(c, 1, "target");
  const auto& src = c.shaped(0);
  TypePtr r = remote_store(c);
  auto offs = c.list(3);
  if (src.shape.size() == dst.shape.size())
    for (size_t k = 0; k < offs.size(); ++k) {
      auto o = const_int_value(offs[k]), s = const_int_value(src.shape[k]), d = const_int_value(dst.shape[k]);
      if (o && s && d && (*o < 0 || *o + *s > *d))
        c.fail(fmt::format("{} {} pushed at offset {} does not fit in {} {}", c.name(0), shape_str(src.shape),
                           shape_str(offs), c.name(1), shape_str(dst.shape)));
    }
  return r;
}

}  // namespace

void register_other_ops(OpRegistry& r) {
  const char* tensor_scale = "tensor-scale issue", * distributed_issue = "distributed issue";
  // array: a fixed-extent local array of scalars (TaskId arrays for manual dependencies).
  // In orchestration code a C++ stack array; kernels do not take them yet.
  add(r, OpRow("array.create", {scalar("extent")}, array_create).kw("dtype", AttrKind::DType)
             .orchestration().kernel_deferred(tensor_scale));
  add(r, OpRow("array.get_element", {any("array"), scalar("index")}, array_get).orchestration().kernel_deferred(tensor_scale));
  add(r, OpRow("array.update_element", {any("array"), scalar("index"), scalar("value")}, array_update)
             .orchestration().kernel_deferred(tensor_scale));
  // prefetch: asynchronous GM → L2 prefetch of a tensor region.
  // Vector-core instructions (SDMA, issued from an AIV kernel); the context takes the task's SDMA
  // workspace, which kernel_entry reads from the runtime (the kernel's hidden last parameter).
  add(r, OpRow("prefetch.make_context", {}, handle).affinity(CoreAffinity::Vector));
  add(r, OpRow("prefetch.async_prefetch", {tensor("src"), any("ctx")}, prefetch).affinity(CoreAffinity::Vector));
  add(r, OpRow("prefetch.session", {any("ctx")}, handle).affinity(CoreAffinity::Vector));
  add(r, OpRow("prefetch.wait", {any("event"), any("session")}, prefetch_wait).affinity(CoreAffinity::Vector));
  // pld: window buffers, communicators, signals and remote window tensors across ranks.
  const EnumLit no_atomic{"pld.AtomicType", "None_"};
  add(r, OpRow("pld.system.notify", {tensor("target"), scalar("peer"), indices("offsets"), scalar("value")}, notify)
             .kw("op", AttrKind::Enum, {}, "pld.NotifyOp").kernel_deferred(distributed_issue));
  add(r, OpRow("pld.system.wait", {tensor("signal"), indices("offsets"), scalar("expected")}, wait)
             .kw("cmp", AttrKind::Enum, {}, "pld.WaitCmp").kernel_deferred(distributed_issue));
  add(r, OpRow("pld.system.defer_wait", {tensor("signal"), indices("offsets"), scalar("expected")}, defer_wait)
             .kw("cmp", AttrKind::Enum, {}, "pld.WaitCmp").kernel_deferred(distributed_issue));
  add(r, OpRow("pld.system.world_size", {}, world_size).kernel_deferred(distributed_issue));
  add(r, OpRow("pld.system.get_comm_ctx", {tensor("dist_tensor")}, get_comm_ctx).kernel_deferred(distributed_issue));
  for (const char* n : {"pld.system.rank", "pld.system.nranks"})
    add(r, OpRow(n, {any("ctx")}, rank_of).kernel_deferred(distributed_issue));
  add(r, OpRow("pld.tensor.alloc_window_buffer", {any("size")}, alloc_window).kw("dtype", AttrKind::DType)
             .kernel_deferred(distributed_issue));
  add(r, OpRow("pld.tensor.window", {any("buf"), indices("shape")}, window).kw("dtype", AttrKind::DType)
             .kernel_deferred(distributed_issue));
  for (const char* n : {"pld.tensor.put", "pld.tensor.get"}) {
    const bool is_put = std::string_view(n) == "pld.tensor.put";
    OpRow row(n, {tensor("dst"), scalar("peer"), tensor("src"), indices("dst_offsets", true),
                  indices("src_offsets", true), indices("shape", true)}, is_put ? put : get);
    if (is_put) row.kw("atomic", AttrKind::Enum, no_atomic, "pld.AtomicType");
    row.kw("chunk_rows", AttrKind::Int, int64_t{0}).kw("chunk_cols", AttrKind::Int, int64_t{0}).kw("pipeline", AttrKind::Bool, false)
        .kernel_deferred(distributed_issue);
    add(r, std::move(row));
  }
  add(r, OpRow("pld.tensor.barrier", {tensor("signal")}, barrier).kernel_deferred(distributed_issue));
  add(r, OpRow("pld.tile.remote_load", {tensor("target"), scalar("peer"), indices("offsets"), indices("shape"),
                                        indices("valid_shape", true)}, remote_load_d)
             .kw("allow_physical_tail_padding", AttrKind::Bool, false).kernel_deferred(distributed_issue));
  add(r, OpRow("pld.tile.remote_store", {tile("src_tile"), tensor("target"), scalar("peer"), indices("offsets")},
               remote_store_d).kw("atomic", AttrKind::Enum, no_atomic, "pld.AtomicType").kernel_deferred(distributed_issue));
  add(r, OpRow("pld.tensor.remote_store", {tensor("src"), tensor("target"), scalar("peer"), indices("offsets")},
               remote_store_d).kw("atomic", AttrKind::Enum, no_atomic, "pld.AtomicType").kernel_deferred(distributed_issue));
}

}  // namespace pypto::ir
