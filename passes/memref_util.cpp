// Memory-planning helpers (see memref_util.h).
#include "passes/memref_util.h"

#include <fmt/format.h>

#include <functional>

#include "ir/diagnostic.h"
#include "ir/op_registry.h"
#include "ir/soc.h"
#include "ir/visitor.h"
#include "passes/pass_util.h"

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

namespace pypto::passes {

std::unordered_map<const Var*, FifoWindow> fifo_windows(const Function& f) {
  static const OpDef* pop_aic = OpRegistry::instance().find("tile.tpop_from_aic");
  static const OpDef* pop_aiv = OpRegistry::instance().find("tile.tpop_from_aiv");
  static const OpDef* init_aic = OpRegistry::instance().find("system.aic_initialize_pipe");
  static const OpDef* init_aiv = OpRegistry::instance().find("system.aiv_initialize_pipe");
  static const OpDef* reserve = OpRegistry::instance().find("system.reserve_buffer");
  std::unordered_map<const Var*, const Call*> defs;
  std::unordered_map<int64_t, const Call*> pipes;  // id → init
  std::vector<std::pair<const Var*, const Call*>> pops;
  struct Walk : IRVisitor {
    std::function<void(const Stmt&, const Call&, const Var*)> on;
    void visit_assign(const AssignStmt& s) override {
      if (const auto* c = as<Call>(s.value)) on(s, *c, s.var.get());
      IRVisitor::visit_assign(s);
    }
    void visit_eval(const EvalStmt& s) override {
      if (const auto* c = as<Call>(s.expr)) on(s, *c, nullptr);
      IRVisitor::visit_eval(s);
    }
  } w;
  w.on = [&](const Stmt&, const Call& c, const Var* v) {
    if (!c.op) return;
    if (v) defs[v] = &c;
    if (c.op == init_aic || c.op == init_aiv) pipes[kw_int(c, "id", 0)] = &c;
    if (v && (c.op == pop_aic || c.op == pop_aiv)) pops.push_back({v, &c});
  };
  if (f.body) w.visit(f.body);
  std::unordered_map<const Var*, FifoWindow> out;
  for (const auto& [v, pop] : pops) {
    auto it = pipes.find(kw_int(*pop, "id", 0));
    const size_t arg = pop->op == pop_aic ? 0 : 1;
    const Var* buf = it != pipes.end() && arg < it->second->args.size() ? as<Var>(it->second->args[arg]) : nullptr;
    auto d = buf ? defs.find(buf) : defs.end();
    if (d == defs.end() || d->second->op != reserve) continue;  // a manual address: the pop keeps its own buffer
    const AttrValue* n = d->second->kwarg("name");
    out[v] = {n && std::holds_alternative<std::string>(*n) ? std::get<std::string>(*n) : std::string(),
              kw_int(*d->second, "size", 0)};
  }
  return out;
}

std::vector<ScaleBinding> scale_bindings(const Function& f) {
  static const OpDef* tget = OpRegistry::instance().find("tile.tget_scale_addr");
  std::vector<ScaleBinding> out;
  struct W : IRVisitor {
    std::vector<ScaleBinding>* out;
    void visit_assign(const AssignStmt& a) override {
      const auto* c = as<Call>(a.value);
      if (c && c->op == tget && c->args.size() == 2) {
        const MemRef* s = memref_of(c->args[0]->type);
        const MemRef* d = memref_of(c->args[1]->type);
        const auto* sv = as<Var>(c->args[0]);
        const auto* dv = as<Var>(c->args[1]);
        if (s && d && s->base && d->base)
          out->push_back({s->base.get(), d->base.get(), d->offset, a.span, sv ? sv->name : "", dv ? dv->name : ""});
      }
      IRVisitor::visit_assign(a);
    }
  } w;
  w.out = &out;
  if (f.body) w.visit(f.body);
  return out;
}

}  // namespace pypto::passes
