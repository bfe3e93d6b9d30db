// The op tables of the smaller families: `array.*` (on-core local arrays of scalars, e.g. TaskId
// arrays), `prefetch.*` (asynchronous GM prefetch), `pld.*` (distributed: signals, remote window
// tensors). Registered with their type rules; the stages that execute them come with their
// features (tensor-scale issue for array / prefetch, the distributed issue for pld). A local
// array, a prefetch context and a prefetch event are opaque handles (pl.Ptr) in this IR.
#include <fmt/format.h>

#include "ir/op_deduce.h"

namespace pypto::ir {
namespace {

using namespace deduce;

void add(OpRegistry& r, OpRow row) { r.add(std::move(row).build()); }

TypePtr none(const Ctx&) { return void_type(); }
TypePtr handle(const Ctx&) { return ptr_type(); }

TypePtr array_create(const Ctx& c) {
  auto n = c.const_arg(0);
  if (!n || *n <= 0) c.fail("the extent must be a positive constant integer", "write pl.array.create(8, pl.INT32)");
  if (!c.kw_dtype("dtype")) c.fail("missing the element dtype", "write pl.array.create(8, pl.INT32)");
  return ptr_type();
}

TypePtr prefetch(const Ctx& c) {
  c.shaped(0);
  return ptr_type();
}

// Offsets / shapes, when given, have one entry per dimension of the tensor operand `t`.
void check_rank(const Ctx& c, size_t t, size_t list) {
  if (!c.has(list)) return;
  const auto& s = c.shaped(t);
  if (c.list(list).size() != s.shape.size())
    c.fail(fmt::format("{} has {} entries but operand {} has rank {}", c.name(list), c.list(list).size(), c.name(t),
                       s.shape.size()));
}

TypePtr notify(const Ctx& c) {
  check_rank(c, 0, 2);
  return void_type();
}

TypePtr wait(const Ctx& c) {
  check_rank(c, 0, 1);
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

}  // namespace

void register_other_ops(OpRegistry& r) {
  const char* tensor_scale = "tensor-scale issue", * distributed = "distributed issue";
  // array: a fixed-extent local array of scalars (TaskId arrays for manual dependencies).
  add(r, OpRow("array.create", {scalar("extent")}, array_create).kw("dtype", AttrKind::DType)
             .kernel_deferred(tensor_scale));
  // prefetch: asynchronous GM → L2 prefetch of a tensor region.
  add(r, OpRow("prefetch.make_context", {}, handle).kernel_deferred(tensor_scale));
  add(r, OpRow("prefetch.async_prefetch", {tensor("src"), any("ctx")}, prefetch).kernel_deferred(tensor_scale));
  // pld: signals and remote window tensors across ranks.
  add(r, OpRow("pld.system.notify", {tensor("target"), scalar("peer"), indices("offsets"), scalar("value")}, notify)
             .kw("op", AttrKind::Int, int64_t{0}).kernel_deferred(distributed));
  add(r, OpRow("pld.system.wait", {tensor("signal"), indices("offsets"), scalar("expected")}, wait)
             .kw("cmp", AttrKind::Int, int64_t{0}).kernel_deferred(distributed));
  for (const char* n : {"pld.tensor.put", "pld.tensor.get"}) {
    OpRow row(n, {tensor("dst"), scalar("peer"), tensor("src"), indices("dst_offsets", true),
                  indices("src_offsets", true), indices("shape", true)}, transfer);
    row.kw("chunk_rows", AttrKind::Int).kw("chunk_cols", AttrKind::Int).kw("pipeline", AttrKind::Bool, false)
        .kernel_deferred(distributed);
    if (std::string_view(n) == "pld.tensor.put") row.kw("atomic", AttrKind::Int, int64_t{0});
    add(r, std::move(row));
  }
  add(r, OpRow("pld.tensor.barrier", {tensor("signal")}, none).kernel_deferred(distributed));
  add(r, OpRow("pld.tile.remote_load", {tensor("target"), scalar("peer"), indices("offsets"), indices("shape"),
                                        indices("valid_shape", true)}, remote_load)
             .kw("allow_physical_tail_padding", AttrKind::Bool, false).kernel_deferred(distributed));
  add(r, OpRow("pld.tile.remote_store", {tile("src_tile"), tensor("target"), scalar("peer"), indices("offsets")},
               remote_store).kw("atomic", AttrKind::Int, int64_t{0}).kernel_deferred(distributed));
  add(r, OpRow("pld.tensor.remote_store", {tensor("src"), tensor("target"), scalar("peer"), indices("offsets")},
               remote_store).kw("atomic", AttrKind::Int, int64_t{0}).kernel_deferred(distributed));
}

}  // namespace pypto::ir
