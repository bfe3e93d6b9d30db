// Memory accesses of tile instructions and sync-op decoding (see pipe_model.h). The pipe of an op
// is its registry entry's (ir::call_pipe); byte ranges come from the planned MemRefs.
#include "passes/pipe_model.h"

#include <limits>
#include <string>

#include "ir/op_registry.h"
#include "ir/visitor.h"

namespace pypto::passes {

using namespace ir;

namespace {

constexpr int64_t kWhole = std::numeric_limits<int64_t>::max();

bool is_store(const Call& c) { return c.op && c.op->pipe_rule == PipeRule::Store; }

MemAccess tile_access(const TileType& t, bool write) {
  MemAccess a;
  a.space = t.space.value_or(MemorySpace::Vec);
  a.write = write;
  const auto off = t.memref ? const_int_value(t.memref->offset) : std::nullopt;
  if (!off) {  // unplanned: the whole space (conservative)
    a.lo = 0;
    a.hi = kWhole;
    return a;
  }
  int64_t size = byte_size(t).value_or(0);
  if (t.memref->size > size) size = t.memref->size;
  a.lo = *off;
  a.hi = *off + (size > 0 ? size : 1);
  return a;
}

}  // namespace

bool conflicts(const MemAccess& a, const MemAccess& b) {
  if (!a.write && !b.write) return false;
  if (a.space != b.space) return false;
  if (a.space == MemorySpace::DDR) return a.gm_root == b.gm_root;
  return a.lo < b.hi && b.lo < a.hi;
}

const Call* stmt_op_call(const Stmt& s) {
  const Expr* e = nullptr;
  if (const auto* a = as<AssignStmt>(&s)) e = a->value.get();
  else if (const auto* ev = as<EvalStmt>(&s)) e = ev->expr.get();
  const auto* c = as<Call>(e);
  return c && c->op ? c : nullptr;
}

namespace {
// Records, for every tensor-typed Var, the Var it aliases (loop carries, if-phis, store results,
// plain copies), so that GM accesses through different SSA names of one tensor compare equal.
class GmAliasCollector : public IRVisitor {
 public:
  std::unordered_map<const Var*, const Var*> parent;

 protected:
  void link(const Var* v, const ExprPtr& src) {
    if (const auto* sv = as<Var>(src); sv && as_tensor(v->type)) parent.emplace(v, sv);
  }
  void visit_assign(const AssignStmt& s) override {
    if (const auto* c = as<Call>(s.value); c && is_store(*c)) {
      for (const auto& a : c->args)
        if (as_tensor(a->type)) link(s.var.get(), a);
    } else {
      link(s.var.get(), s.value);
    }
    IRVisitor::visit_assign(s);
  }
  void visit_for(const ForStmt& s) override {
    for (size_t i = 0; i < s.iter_args.size(); ++i) {
      link(s.iter_args[i].get(), s.iter_args[i]->init);
      if (i < s.return_vars.size()) link(s.return_vars[i].get(), s.iter_args[i]);
    }
    IRVisitor::visit_for(s);
  }
  void visit_while(const WhileStmt& s) override {
    for (size_t i = 0; i < s.iter_args.size(); ++i) {
      link(s.iter_args[i].get(), s.iter_args[i]->init);
      if (i < s.return_vars.size()) link(s.return_vars[i].get(), s.iter_args[i]);
    }
    IRVisitor::visit_while(s);
  }
  void visit_if(const IfStmt& s) override {
    const auto body = flatten_body(s.then_body);
    if (!body.empty())
      if (const auto* y = as<YieldStmt>(body.back()))
        for (size_t i = 0; i < s.return_vars.size() && i < y->values.size(); ++i)
          link(s.return_vars[i].get(), y->values[i]);
    IRVisitor::visit_if(s);
  }
};
}  // namespace

PipeModel::PipeModel(const Function& f) {
  GmAliasCollector c;
  c.visit_function(f);
  for (const auto& [v, p] : c.parent) {
    const Var* root = p;
    for (int guard = 0; guard < 1000; ++guard) {
      auto it = c.parent.find(root);
      if (it == c.parent.end()) break;
      root = it->second;
    }
    alias_[v] = root;
  }
}

const void* PipeModel::gm_root(const ExprPtr& e) const {
  const auto* t = as_tensor(e->type);
  if (t && t->memref && t->memref->base) return t->memref->base.get();
  const auto* v = as<Var>(e);
  if (!v) return e.get();
  auto it = alias_.find(v);
  const Var* root = it == alias_.end() ? v : static_cast<const Var*>(it->second);
  const auto* rt = as_tensor(root->type);
  if (rt && rt->memref && rt->memref->base) return rt->memref->base.get();
  return root;
}

InstrInfo PipeModel::classify(const Stmt& s) const {
  InstrInfo info;
  const Call* c = stmt_op_call(s);
  if (!c) return info;
  const auto* assign = as<AssignStmt>(&s);
  const TypePtr result = assign ? assign->var->type : c->type;
  info.pipe = call_pipe(*c, result);
  if (info.pipe == Pipe::None) return info;
  const bool store = is_store(*c);
  for (size_t i = 0; i < c->args.size(); ++i) {
    const ExprPtr& a = c->args[i];
    if (const auto* tt = as_tile(a->type)) {
      info.accesses.push_back(tile_access(*tt, false));
      const bool scratch = i < c->op->args.size() && c->op->args[i].scratch;
      if (scratch) info.accesses.push_back(tile_access(*tt, true));
    } else if (as_tensor(a->type)) {
      MemAccess m;
      m.space = MemorySpace::DDR;
      m.gm_root = gm_root(a);
      m.write = store;
      info.accesses.push_back(m);
    }
  }
  if (const auto* rt = as_tile(result)) info.accesses.push_back(tile_access(*rt, true));
  return info;
}

SyncInfo PipeModel::sync_of(const Stmt& s) {
  SyncInfo r;
  const Call* c = stmt_op_call(s);
  if (!c || c->op->family() != "system") return r;
  const auto& n = c->op->name;
  if (n == "system.bar_v") r.kind = SyncKind::BarrierV;
  else if (n == "system.bar_all") r.kind = SyncKind::BarrierAll;
  else if (n == "system.sync_src") r.kind = SyncKind::Set;
  else if (n == "system.sync_dst") r.kind = SyncKind::Wait;
  else return r;
  if (r.kind == SyncKind::Set || r.kind == SyncKind::Wait) {
    auto pipe_kw = [&](std::string_view k) {
      const AttrValue* v = c->kwarg(k);
      const auto* e = v ? std::get_if<EnumLit>(v) : nullptr;
      return e ? pipe_from_name(e->member).value_or(Pipe::None) : Pipe::None;
    };
    r.src = pipe_kw("set_pipe");
    r.dst = pipe_kw("wait_pipe");
    const AttrValue* ev = c->kwarg("event_id");
    if (const auto* i = ev ? std::get_if<int64_t>(ev) : nullptr) r.event = static_cast<int>(*i);
  }
  return r;
}

}  // namespace pypto::passes
