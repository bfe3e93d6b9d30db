// Memory-planning helpers (see memref_util.h).
#include "passes/memref_util.h"

#include "ir/diagnostic.h"
#include "ir/op_registry.h"
#include "ir/soc.h"

namespace pypto::passes {

using namespace ir;

StmtPtr make_alloc_stmt(const VarPtr& base, MemorySpace space, int64_t size, const Span& span) {
  const OpDef* op = OpRegistry::instance().find("tile.alloc");
  if (!op || op->kwargs.size() < 2) throw InternalError("InitMemRef", "op 'tile.alloc' is not registered with (space, size) attributes");
  auto call = make_call(*op, {}, {{op->kwargs[0].name, space}, {op->kwargs[1].name, size}}, span);
  return std::make_shared<AssignStmt>(base, call, span);
}

std::optional<AllocInfo> as_alloc(const StmtPtr& s) {
  const auto* a = as<AssignStmt>(s);
  if (!a) return std::nullopt;
  const auto* c = as<Call>(a->value);
  if (!c || !c->is_op("tile.alloc") || c->kwargs.size() < 2) return std::nullopt;
  const auto* sp = std::get_if<MemorySpace>(&c->kwargs[0].second);
  const auto* sz = std::get_if<int64_t>(&c->kwargs[1].second);
  if (!sp || !sz) return std::nullopt;
  return AllocInfo{a->var, *sp, *sz};
}

const MemRef* memref_of(const TypePtr& t) {
  const auto* s = as_shaped(t);
  return s && s->memref ? &*s->memref : nullptr;
}

TypePtr with_memref_any(const TypePtr& t, const MemRef& m) {
  if (const auto* tl = as_tile(t)) return with_memref(*tl, m);
  if (const auto* tt = as_tensor(t)) return with_memref(*tt, m);
  return t;
}

std::optional<int64_t> tile_bytes(const TileType& t, Soc soc) {
  auto shape = static_shape(t.shape);
  if (!shape) return std::nullopt;
  int64_t n = 1;
  for (size_t i = 0; i < shape->size(); ++i) {
    int64_t d = (*shape)[i];
    if (i == 0 && t.space == MemorySpace::Acc && shape->size() == 2) {
      int64_t m = (t.dtype == DataType::INT32 && soc == Soc::Ascend910B) ? 32 : 16;
      d = (d + m - 1) / m * m;
    }
    n *= d;
  }
  return (n * dtype_bits(t.dtype) + 7) / 8;
}

}  // namespace pypto::passes
