// Helpers shared by the passes (see pass_util.h).
#include "passes/pass_util.h"

#include "ir/diagnostic.h"
#include "ir/op_registry.h"

namespace pypto::passes {

using namespace ir;

ProgramPtr map_functions(const ProgramPtr& p, const std::function<FunctionPtr(const FunctionPtr&)>& fn) {
  std::vector<FunctionPtr> fs;
  bool changed = false;
  for (const auto& f : p->functions) {
    fs.push_back(fn(f));
    changed |= fs.back() != f;
  }
  if (!changed) return p;
  return make_program(p->name, std::move(fs), p->dynamic_dims, p->span);
}

int64_t kw_int(const Call& c, std::string_view k, int64_t dflt) {
  const AttrValue* v = c.kwarg(k);
  const auto* i = v ? std::get_if<int64_t>(v) : nullptr;
  return i ? *i : dflt;
}

std::string kw_string(const Call& c, std::string_view k, const std::string& dflt) {
  const AttrValue* v = c.kwarg(k);
  const auto* s = v ? std::get_if<std::string>(v) : nullptr;
  return s ? *s : dflt;
}

bool kw_true(const Call& c, std::string_view k) { return c.kwarg_true(k); }

ExprPtr rebuild_call(const Call& c, std::vector<ExprPtr> args) {
  if (c.op) {
    try {
      auto n = make_call(*c.op, args, c.kwargs, c.span);
      // A load FlattenTileNdTo2D gave the 2-D flattening of its N-D window keeps that type.
      if (is_2d_flattening(c.type, n->type)) {
        auto f = std::make_shared<Call>(*n);
        f->type = c.type;
        n = f;
      }
      if (!c.arg_directions.empty()) {
        auto m = std::make_shared<Call>(*n);
        m->arg_directions = c.arg_directions;
        return m;
      }
      return n;
    } catch (const CompileError&) {
      // keep the previous type below
    }
  }
  auto n = std::make_shared<Call>(c.op, c.callee, std::move(args), c.kwargs, c.type, c.span, c.arg_directions);
  n->dispatch = c.dispatch;
  return n;
}

VarPtr copy_var_with_type(const Var& v, TypePtr t, std::string name) {
  if (name.empty()) name = v.name;
  if (const auto* ia = as<IterArg>(&v)) return std::make_shared<IterArg>(name, std::move(t), ia->init, v.span);
  return std::make_shared<Var>(name, std::move(t), v.span);
}

// ---------------------------------------------------------------- BindingMutator

VarPtr BindingMutator::bind(const VarPtr& v) {
  if (!v) return v;
  auto it = bound_.find(v.get());
  if (it != bound_.end()) return it->second;
  VarPtr n = rebind(v);
  bound_[v.get()] = n;
  if (n != v) var_map[v.get()] = n;
  return n;
}

IterArgPtr BindingMutator::bind_iter_arg(const IterArgPtr& ia, const ExprPtr& new_init) {
  VarPtr n = bind(ia);
  const auto* nia = as<IterArg>(n.get());
  if (n == ia && new_init == ia->init) return ia;
  auto fresh = std::make_shared<IterArg>(n->name, n->type, new_init, n->span);
  bound_[ia.get()] = fresh;
  var_map[ia.get()] = fresh;
  (void)nia;
  return fresh;
}

ExprPtr BindingMutator::mutate_call(const std::shared_ptr<const Call>& e) {
  std::vector<ExprPtr> args;
  bool changed = mutate_list(e->args, args);
  if (!changed) return e;
  return rebuild_call(*e, std::move(args));
}

StmtPtr BindingMutator::mutate_assign(const std::shared_ptr<const AssignStmt>& s) {
  ExprPtr v = mutate(s->value);
  VarPtr var = bind(s->var);
  if (v == s->value && var == s->var) return s;
  return with_comments(std::make_shared<AssignStmt>(var, v, s->span), *s);
}

static bool bind_list(BindingMutator& m, const std::vector<VarPtr>& in, std::vector<VarPtr>& out,
                      const std::function<VarPtr(const VarPtr&)>& b) {
  bool changed = false;
  for (const auto& v : in) {
    out.push_back(b(v));
    changed |= out.back() != v;
  }
  return changed;
}

StmtPtr BindingMutator::mutate_if(const std::shared_ptr<const IfStmt>& s) {
  ExprPtr c = mutate(s->cond);
  StmtPtr t = mutate(s->then_body);
  StmtPtr e = mutate(s->else_body);
  std::vector<VarPtr> rv;
  bool changed = bind_list(*this, s->return_vars, rv, [&](const VarPtr& v) { return bind(v); });
  if (!changed && c == s->cond && t == s->then_body && e == s->else_body) return s;
  return with_comments(std::make_shared<IfStmt>(c, t, e, std::move(rv), s->span), *s);
}

StmtPtr BindingMutator::mutate_for(const std::shared_ptr<const ForStmt>& s) {
  ExprPtr a = mutate(s->start), b = mutate(s->stop), c = mutate(s->step);
  bool changed = a != s->start || b != s->stop || c != s->step;
  std::vector<IterArgPtr> ias;
  for (const auto& ia : s->iter_args) {
    ias.push_back(bind_iter_arg(ia, mutate(ia->init)));
    changed |= ias.back() != ia;
  }
  VarPtr lv = bind(s->loop_var);
  changed |= lv != s->loop_var;
  StmtPtr body = mutate(s->body);
  changed |= body != s->body;
  std::vector<VarPtr> rv;
  changed |= bind_list(*this, s->return_vars, rv, [&](const VarPtr& v) { return bind(v); });
  if (!changed) return s;
  return with_comments(std::make_shared<ForStmt>(lv, a, b, c, std::move(ias), body, std::move(rv),
                                                 s->kind, s->span, s->stage), *s);
}

StmtPtr BindingMutator::mutate_while(const std::shared_ptr<const WhileStmt>& s) {
  bool changed = false;
  std::vector<IterArgPtr> ias;
  for (const auto& ia : s->iter_args) {
    ias.push_back(bind_iter_arg(ia, mutate(ia->init)));
    changed |= ias.back() != ia;
  }
  ExprPtr c = mutate(s->cond);
  StmtPtr body = mutate(s->body);
  changed |= c != s->cond || body != s->body;
  std::vector<VarPtr> rv;
  changed |= bind_list(*this, s->return_vars, rv, [&](const VarPtr& v) { return bind(v); });
  if (!changed) return s;
  return with_comments(std::make_shared<WhileStmt>(c, std::move(ias), body, std::move(rv), s->span), *s);
}

FunctionPtr BindingMutator::mutate_function(const FunctionPtr& f) {
  std::vector<VarPtr> params;
  bool changed = false;
  for (const auto& p : f->params) {
    params.push_back(bind(p));
    changed |= params.back() != p;
  }
  StmtPtr body = mutate(f->body);
  if (!changed && body == f->body) return f;
  auto g = std::make_shared<Function>(*f);
  g->params = std::move(params);
  g->body = body;
  return g;
}

// ---------------------------------------------------------------- retype_vars

namespace {
class Retyper : public BindingMutator {
 public:
  explicit Retyper(const std::function<TypePtr(const Var&)>& nt) : nt_(nt) {}

 protected:
  VarPtr rebind(const VarPtr& v) override {
    TypePtr t = nt_(*v);
    if (!t || t == v->type) return v;
    return copy_var_with_type(*v, t);
  }

 private:
  const std::function<TypePtr(const Var&)>& nt_;
};
}  // namespace

FunctionPtr retype_vars(const FunctionPtr& f, const std::function<TypePtr(const Var&)>& new_type) {
  Retyper r(new_type);
  return r.mutate_function(f);
}

// ---------------------------------------------------------------- queries

namespace {
class UseCollector : public IRVisitor {
 public:
  explicit UseCollector(std::unordered_map<const Var*, int>& u) : uses(u) {}
  std::unordered_map<const Var*, int>& uses;

 protected:
  void visit_var(const Var& v) override { ++uses[&v]; }
  void visit_iter_arg(const IterArg& v) override { ++uses[&v]; }
};

class AssignCollector : public IRVisitor {
 public:
  std::vector<VarPtr> out;
  std::unordered_set<const Var*> seen;
  void add(const VarPtr& v) {
    if (v && seen.insert(v.get()).second) out.push_back(v);
  }

 protected:
  void visit_assign(const AssignStmt& s) override { add(s.var); }
  void visit_if(const IfStmt& s) override {
    IRVisitor::visit_if(s);
    for (const auto& v : s.return_vars) add(v);
  }
  void visit_for(const ForStmt& s) override {
    IRVisitor::visit_for(s);
    for (const auto& v : s.return_vars) add(v);
  }
  void visit_while(const WhileStmt& s) override {
    IRVisitor::visit_while(s);
    for (const auto& v : s.return_vars) add(v);
  }
  void visit_scope(const ScopeStmt& s) override {
    IRVisitor::visit_scope(s);
    if (s.task_id) add(s.task_id);  // `with ... as tid`
  }
};
}  // namespace

void collect_uses(const ExprPtr& e, std::unordered_map<const Var*, int>& uses) {
  UseCollector c(uses);
  c.visit(e);
}
void collect_uses(const StmtPtr& s, std::unordered_map<const Var*, int>& uses) {
  UseCollector c(uses);
  c.visit(s);
}

std::vector<const AssignStmt*> collect_assign_stmts(const StmtPtr& s) {
  struct V : IRVisitor {
    std::vector<const AssignStmt*> out;
    void visit_assign(const AssignStmt& a) override {
      out.push_back(&a);
      IRVisitor::visit_assign(a);
    }
  } v;
  if (s) v.visit(s);
  return std::move(v.out);
}

std::vector<VarPtr> collect_assigned(const StmtPtr& s) {
  AssignCollector c;
  c.visit(s);
  return std::move(c.out);
}

std::pair<std::vector<StmtPtr>, std::shared_ptr<const YieldStmt>> split_trailing_yield(const StmtPtr& body) {
  auto stmts = flatten_body(body);
  std::shared_ptr<const YieldStmt> y;
  if (!stmts.empty() && as<YieldStmt>(stmts.back())) {
    y = std::static_pointer_cast<const YieldStmt>(stmts.back());
    stmts.pop_back();
  }
  return {std::move(stmts), y};
}

StmtPtr mutate_seq_splicing(IRMutator& m, const std::shared_ptr<const SeqStmts>& s,
                            const std::function<bool(const StmtPtr&)>& splice) {
  std::vector<StmtPtr> out;
  bool changed = false;
  for (const auto& c : s->stmts) {
    StmtPtr n = m.mutate(c);
    changed |= n != c;
    if (!n) continue;
    if (const auto* seq = as<SeqStmts>(n); seq && n != c && splice(c))
      for (const auto& x : seq->stmts) out.push_back(x);
    else
      out.push_back(n);
  }
  if (!changed) return s;
  return with_comments(std::make_shared<SeqStmts>(std::move(out), s->span), *s);
}

std::string suffixed(const std::string& base, int n) { return base + "_" + std::to_string(n); }

namespace {
// `body` without the statement `skip` (found last, possibly inside the scopes that end it).
ir::StmtPtr without(const ir::StmtPtr& body, const ir::Stmt* skip) {
  auto stmts = ir::flatten_body(body);
  if (stmts.empty()) return body;
  if (stmts.back().get() == skip) {
    stmts.pop_back();
  } else if (const auto* sc = ir::as<ir::ScopeStmt>(stmts.back())) {
    auto n = std::make_shared<ir::ScopeStmt>(*sc);
    n->body = without(sc->body, skip);
    stmts.back() = n;
  }
  return ir::make_body(std::move(stmts), body->span);
}
}  // namespace

void visit_body_except_trailing_return(ir::IRVisitor& v, const ir::Function& f) {
  if (!f.body) return;
  const ir::ReturnStmt* ret = ir::trailing_return(f.body);
  for (const auto& s : ir::flatten_body(ret ? without(f.body, ret) : f.body)) v.visit(s);
}

bool is_memory_load(const ir::Call& c) {
  using namespace ir;
  if (!c.op) return false;
  if (c.op->io_tier == IoTier::Load) return true;
  if (c.op->io_tier != IoTier::L0Fetch) return false;
  const auto* src = c.args.empty() ? nullptr : as_tile(c.args[0]->type);
  const auto* dst = as_tile(c.type);
  return src && src->space == MemorySpace::Mat && dst &&
         (dst->space == MemorySpace::Left || dst->space == MemorySpace::Right);
}

}  // namespace pypto::passes
