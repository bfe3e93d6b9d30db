// NormalizeReturnOrder — the kernel calling convention: what a kernel (AIC/AIV/InCore function)
// returns are its Out/InOut tensor parameters themselves, in parameter order, so that return[i] is
// the i-th returned Out/InOut param. Each returned value is traced back to the parameter it writes
// (through tile.store results, plain copies and loop carries); the return statement then names the
// parameters, return types are reordered to match, and callers' tuple indices (TupleGetItem on the
// call's result) are remapped. A parameter returned more than once (an outlined scope whose
// live-outs are both a loop's result and the tensor it writes in place: `return out_4, out`) is
// returned once, and every caller index of it names that one result. A Group (ExpandMixedKernel's
// AIC + AIV halves) is normalized the same way: each result it takes from a half is traced through
// that half's return to the argument it writes. A returned value that is not an Out/InOut parameter
// is a CompileError; returning only some of the Out/InOut params is not supported yet. Produces
// ReturnParamsExplicit.
#include <fmt/format.h>

#include <algorithm>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

// Where each Var's value comes from, for tracing a tensor back to a parameter.
class DefMap : public IRVisitor {
 public:
  std::unordered_map<const Var*, ExprPtr> def;

 protected:
  void visit_assign(const AssignStmt& s) override {
    def[s.var.get()] = s.value;
    IRVisitor::visit_assign(s);
  }
  void visit_for(const ForStmt& s) override {
    for (size_t i = 0; i < s.iter_args.size(); ++i) {
      def[s.iter_args[i].get()] = s.iter_args[i]->init;
      if (i < s.return_vars.size()) def[s.return_vars[i].get()] = s.iter_args[i];
    }
    IRVisitor::visit_for(s);
  }
  void visit_while(const WhileStmt& s) override {
    for (size_t i = 0; i < s.iter_args.size(); ++i) {
      def[s.iter_args[i].get()] = s.iter_args[i]->init;
      if (i < s.return_vars.size()) def[s.return_vars[i].get()] = s.iter_args[i];
    }
    IRVisitor::visit_while(s);
  }
  void visit_if(const IfStmt& s) override {
    auto y = split_trailing_yield(s.then_body).second;
    for (size_t i = 0; y && i < s.return_vars.size() && i < y->values.size(); ++i) def[s.return_vars[i].get()] = y->values[i];
    IRVisitor::visit_if(s);
  }
};

// For each kernel, the parameter each of its results (old positions) writes (-1: none found).
using KernelResults = std::unordered_map<std::string, std::vector<int>>;

// Index of the parameter a returned value writes, or -1. In a Group, a result of a call to one of
// its halves (`aiv_out[1]`) writes the argument the half's result writes (`kernels`).
int trace_param(const Function& f, const DefMap& dm, ExprPtr e, const KernelResults* kernels = nullptr) {
  size_t item = 0;  // the result index of the call a TupleGetItem selects
  for (int guard = 0; guard < 10000 && e; ++guard) {
    const auto* v = as<Var>(e);
    if (v) {
      for (size_t i = 0; i < f.params.size(); ++i)
        if (f.params[i].get() == v) return int(i);
      auto it = dm.def.find(v);
      if (it == dm.def.end()) return -1;
      e = it->second;
      continue;
    }
    if (const auto* g = as<TupleGetItem>(e); g && kernels && g->index >= 0) {
      item = size_t(g->index);
      e = g->tuple;
      continue;
    }
    const auto* c = as<Call>(e);
    if (c && !c->op && kernels) {
      auto it = kernels->find(c->callee);
      if (it == kernels->end() || item >= it->second.size()) return -1;
      const int p = it->second[item];
      if (p < 0 || size_t(p) >= c->args.size()) return -1;
      e = c->args[size_t(p)];
      item = 0;
      continue;
    }
    if (c && c->op && as_tensor(c->type)) {
      // tile.store-like: the result is the tensor operand it writes (last tensor argument).
      ExprPtr next;
      for (const auto& a : c->args)
        if (as_tensor(a->type)) next = a;
      e = next;
      continue;
    }
    return -1;
  }
  return -1;
}

struct Reorder {
  std::vector<int> old_to_new;  // each old result's position now (two old results may share one)
  std::vector<TypePtr> new_types;
};

class ReturnRewriter : public IRMutator {
 public:
  const Function& f;
  const DefMap& dm;
  const KernelResults* kernels;  // a Group: what its halves' results write
  std::vector<int> order;  // old position → new position (from the first return seen)
  size_t count = 0;        // results after the rewrite (from the first return seen)
  ReturnRewriter(const Function& fn, const DefMap& d, const KernelResults* k = nullptr) : f(fn), dm(d), kernels(k) {}

 protected:
  StmtPtr mutate_return(const std::shared_ptr<const ReturnStmt>& s) override {
    std::vector<std::pair<int, int>> items;  // (param index, old position)
    for (size_t i = 0; i < s->values.size(); ++i) {
      int p = trace_param(f, dm, s->values[i], kernels);
      if (p < 0 || f.param_directions[p] == ParamDirection::In || !as_tensor(f.params[p]->type))
        throw CompileError("E505", s->span,
                           fmt::format("kernel '{}' returns a value that is not one of its Out/InOut tensor "
                                       "parameters (result {})", f.name, i),
                           "a kernel returns the Out parameters it writes, e.g. `return pl.store(t, [0, 0], out)`");
      items.push_back({p, int(i)});
    }
    std::stable_sort(items.begin(), items.end());
    // One result per parameter: values that trace to the same parameter are the same tensor.
    std::vector<ExprPtr> vals;
    std::vector<int> ord(items.size());
    for (auto [p, old] : items) {
      if (vals.empty() || vals.back() != f.params[p]) vals.push_back(f.params[p]);
      ord[size_t(old)] = int(vals.size()) - 1;
    }
    size_t n_out = 0;
    for (auto d : f.param_directions) n_out += d != ParamDirection::In;
    if (!items.empty() && vals.size() != n_out)
      throw CompileError("E505", s->span,
                         fmt::format("kernel '{}' returns {} of its {} Out/InOut parameters; returning only some of "
                                     "them is not supported yet", f.name, vals.size(), n_out),
                         "return every Out/InOut parameter the kernel has, e.g. `return out_a, out_b`");
    if (order.empty()) {
      order = ord;
      count = vals.size();
    }
    return with_comments(std::make_shared<ReturnStmt>(std::move(vals), s->span), *s);
  }
};

// Remaps tuple indices of calls to reordered kernels in callers.
class CallerRemapper : public BindingMutator {
 public:
  const std::unordered_map<std::string, Reorder>& reorders;
  std::unordered_map<const Var*, const Reorder*> tuple_vars;  // caller var holding a reordered result
  explicit CallerRemapper(const std::unordered_map<std::string, Reorder>& r) : reorders(r) {}

 protected:
  const Reorder* reorder_of(const ExprPtr& e) {
    const auto* c = as<Call>(e);
    if (!c || c->op) return nullptr;
    auto it = reorders.find(c->callee);
    return it == reorders.end() ? nullptr : &it->second;
  }
  ExprPtr mutate_call(const std::shared_ptr<const Call>& e) override {
    ExprPtr r = BindingMutator::mutate_call(e);
    const Reorder* ro = reorder_of(r);
    if (!ro) return r;
    const auto* c = as<Call>(r);
    std::vector<TypePtr> types = ro->new_types;
    if (c->dispatch && c->dispatch->submit) types.push_back(scalar_type(DataType::TASK_ID));  // the TaskId stays last
    // (Results folded into one: the call returns that one value, not a tuple.)
    TypePtr t = types.size() == 1 ? types[0] : std::make_shared<TupleType>(types);
    auto n = std::make_shared<Call>(c->op, c->callee, c->args, c->kwargs, std::move(t), c->span, c->arg_directions);
    n->dispatch = c->dispatch;
    return n;
  }
  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    ExprPtr v = mutate(s->value);
    if (const Reorder* ro = reorder_of(v)) {
      VarPtr nv = copy_var_with_type(*s->var, v->type);
      var_map[s->var.get()] = nv;
      tuple_vars[nv.get()] = ro;
      return with_comments(std::make_shared<AssignStmt>(nv, v, s->span), *s);
    }
    VarPtr var = bind(s->var);
    if (v == s->value && var == s->var) return s;
    return with_comments(std::make_shared<AssignStmt>(var, v, s->span), *s);
  }
  ExprPtr mutate_tuple_get_item(const std::shared_ptr<const TupleGetItem>& e) override {
    ExprPtr t = mutate(e->tuple);
    const Reorder* ro = nullptr;
    if (const auto* v = as<Var>(t)) {
      auto it = tuple_vars.find(v);
      if (it != tuple_vars.end()) ro = it->second;
    }
    if (!ro) ro = reorder_of(t);
    if (ro && e->index >= 0) {
      // A result's new position; a submit's TaskId stays after the results.
      const size_t old = size_t(e->index);
      const int ni = old < ro->old_to_new.size() ? ro->old_to_new[old]
                                                 : int(old - ro->old_to_new.size() + ro->new_types.size());
      const auto* tt = as_tuple(t->type);
      if (!tt) return t;  // the call returns the one value itself now
      return std::make_shared<TupleGetItem>(t, ni, tt->elems[size_t(ni)], e->span);
    }
    if (t == e->tuple) return e;
    return std::make_shared<TupleGetItem>(t, e->index, e->type, e->span);
  }
};

// The parameter each result of a kernel's (first) return statement writes.
std::vector<int> result_params(const Function& f) {
  DefMap dm;
  dm.visit_function(f);
  struct First : IRVisitor {
    const ReturnStmt* ret = nullptr;
    void visit_return(const ReturnStmt& r) override {
      if (!ret) ret = &r;
    }
  } first;
  first.visit_function(f);
  std::vector<int> out;
  for (const auto& v : first.ret ? first.ret->values : std::vector<ExprPtr>{}) out.push_back(trace_param(f, dm, v));
  return out;
}

ProgramPtr normalize(const ProgramPtr& p) {
  std::unordered_map<std::string, Reorder> reorders;
  // A Group (a mixed kernel's AIC + AIV halves) returns what its halves return; each of its
  // results is traced through the half that produced it to the Group parameter it writes.
  KernelResults kernels;
  for (const auto& f : p->functions)
    if (is_incore_like(f->type)) kernels[f->name] = result_params(*f);
  std::vector<FunctionPtr> fs;
  for (const auto& f : p->functions) {
    const bool group = f->type == FunctionType::Group;
    if (!is_incore_like(f->type) && !group) {
      fs.push_back(f);
      continue;
    }
    DefMap dm;
    dm.visit_function(*f);
    ReturnRewriter rr(*f, dm, group ? &kernels : nullptr);
    StmtPtr body = rr.mutate(f->body);
    auto g = std::make_shared<Function>(*f);
    g->body = body;
    bool identity = rr.count == rr.order.size();
    for (size_t i = 0; i < rr.order.size(); ++i) identity &= rr.order[i] == int(i);
    if (group && identity) {  // a Group already in the convention keeps returning its halves' results
      fs.push_back(f);
      continue;
    }
    if (!identity && rr.order.size() == f->return_types.size()) {
      Reorder ro;
      ro.old_to_new = rr.order;
      ro.new_types.resize(rr.count);
      for (size_t old = 0; old < rr.order.size(); ++old) ro.new_types[size_t(rr.order[old])] = f->return_types[old];
      g->return_types = ro.new_types;
      reorders[f->name] = ro;
    }
    fs.push_back(g);
  }
  if (!reorders.empty()) {
    for (auto& f : fs) {
      CallerRemapper cr(reorders);
      f = cr.mutate_function(f);
    }
  }
  return make_program(p->name, std::move(fs), p->dynamic_dims, p->span);
}

}  // namespace

Pass normalize_return_order_pass() {
  return Pass{"NormalizeReturnOrder",
              "Makes kernels return their Out/InOut tensor parameters themselves, in parameter order; "
              "reorders return types and remaps callers' tuple indices.",
              {{}, {Property::ReturnParamsExplicit}, {}},
              [](const ProgramPtr& p, PassContext&) { return normalize(p); }};
}

}  // namespace pypto::passes
