// OutlineIncoreScopes — each `with pl.at(level=pl.Level.CORE_GROUP[, name_hint=...])` scope in an
// Opaque or Orchestration function becomes an InCore function plus a call to it (SSA input):
//   * name: the scope's name_hint, else `<parent>_incore_<k>` (k counts the parent's scopes);
//     a name already taken gets a `_<n>` suffix;
//   * params: the live-ins (Vars read inside, bound outside), fresh Vars, in first-use order;
//     a tensor param the body writes (tensor.assemble / tensor.write / tile.store destination,
//     through its SSA aliases) is Out, or InOut when the body also reads it;
//   * returns: the live-outs (Vars bound inside, read after the scope) in definition order, then
//     every written param the body does not already return (kernels return what they write); a
//     live-out that is a written param's final value (a write result, or a loop's result carrying
//     the param and writing into it) is that param's return;
//   * a fresh tensor computed inside and returned by the parent in the slot of one of its
//     Out/InOut params (`out = pl.add(a, b)` ... `return out`) is written into that param: the
//     param is passed to the kernel (Out) and the kernel ends with a tensor.assemble into it;
//   * the scope is replaced by the call (one result: an assignment; several: a tuple local and
//     one TupleGetItem per live-out); a written param that is not a live-out is rebound to the
//     call's result and later statements of the same block read the new Var;
//   * an Opaque parent that outlined a scope becomes Orchestration;
//   * the kernels of one `with pl.cluster():` (its whole body, two or more pl.at scopes or calls of
//     InCore kernel functions, whose bodies are spliced in) are one kernel: their bodies run in
//     order in one scope, named after the cluster (name_hint) or the first kernel, with the first
//     scope's dispatch options (another scope's are an error). The cluster
//     is one AIC and two AIV cores: ExpandMixedKernel gives the kernel's cube work the AIC and its
//     vector work the AIV, one MixedKernels task with cross-core transfers where a value crosses
//     (the reference outlines a Group of separate kernels, which exchange data through GM); a
//     cluster of vector scopes only runs them on one AIV core. OutlineClusterScopes then drops
//     the cluster around the one kernel call.
// Live-outs must be tensors; tiles/scalars leaving a scope and scopes inside kernels are
// reported as "not supported yet". Produces SplitIncoreOrch.
#include <fmt/format.h>

#include <unordered_set>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"
#include "passes/tensor_access.h"

namespace pypto::passes {

using namespace ir;

namespace {

constexpr const char* kScopeText = "'with pl.at(level=pl.Level.CORE_GROUP)'";

// Vars read in a subtree, in first-use order, with counts.
class OrderedUses : public IRVisitor {
 public:
  std::vector<const Var*> order;
  std::unordered_map<const Var*, int> count;

 protected:
  void visit_var(const Var& v) override {
    if (count[&v]++ == 0) order.push_back(&v);
  }
  void visit_iter_arg(const IterArg& v) override { visit_var(v); }
};

// Every binding site in a subtree, with its defining expression when it is an assignment.
class Bindings : public IRVisitor {
 public:
  std::unordered_set<const Var*> bound;
  std::unordered_map<const Var*, ExprPtr> def;

 protected:
  void visit_assign(const AssignStmt& s) override {
    bound.insert(s.var.get());
    def[s.var.get()] = s.value;
    IRVisitor::visit_assign(s);
  }
  // A loop's return var k: its iter_arg and the value the body yields for it.
 public:
  struct Carry {
    const IterArg* iter_arg;
    ExprPtr yielded;
  };
  std::unordered_map<const Var*, Carry> carried;

 protected:
  void visit_for(const ForStmt& s) override {
    bound.insert(s.loop_var.get());
    for (const auto& ia : s.iter_args) bound.insert(ia.get());
    for (const auto& rv : s.return_vars) bound.insert(rv.get());
    note_carries(s.iter_args, s.return_vars, s.body);
    IRVisitor::visit_for(s);
  }
  void visit_while(const WhileStmt& s) override {
    for (const auto& ia : s.iter_args) bound.insert(ia.get());
    for (const auto& rv : s.return_vars) bound.insert(rv.get());
    note_carries(s.iter_args, s.return_vars, s.body);
    IRVisitor::visit_while(s);
  }

 private:
  void note_carries(const std::vector<IterArgPtr>& ias, const std::vector<VarPtr>& rvs, const StmtPtr& body) {
    const auto stmts = flatten_body(body);
    const auto* y = stmts.empty() ? nullptr : as<YieldStmt>(stmts.back());
    for (size_t k = 0; y && k < rvs.size() && k < ias.size() && k < y->values.size(); ++k)
      carried[rvs[k].get()] = Carry{ias[k].get(), y->values[k]};
  }

 public:
  // An if's return var k: the values its two branches yield for it.
  std::unordered_map<const Var*, std::pair<ExprPtr, ExprPtr>> phis;
  mutable std::unordered_map<const Var*, const Var*> origins;  // Outliner::origin's memo
  void visit_if(const IfStmt& s) override {
    for (const auto& rv : s.return_vars) bound.insert(rv.get());
    auto yield_of = [](const StmtPtr& b) -> const YieldStmt* {
      const auto stmts = b ? flatten_body(b) : std::vector<StmtPtr>{};
      return stmts.empty() ? nullptr : as<YieldStmt>(stmts.back());
    };
    const YieldStmt *t = yield_of(s.then_body), *e = yield_of(s.else_body);
    for (size_t k = 0; t && e && k < s.return_vars.size() && k < t->values.size() && k < e->values.size(); ++k)
      phis[s.return_vars[k].get()] = {t->values[k], e->values[k]};
    IRVisitor::visit_if(s);
  }
};

// Rewrites the scope body for the kernel: live-ins → params (var_map), live-outs → fresh Vars.
class BodyRebinder : public BindingMutator {
 public:
  explicit BodyRebinder(const std::unordered_set<const Var*>& live_outs) : live_outs_(live_outs) {}

 protected:
  VarPtr rebind(const VarPtr& v) override {
    if (live_outs_.count(v.get())) return copy_var_with_type(*v, v->type);
    return v;
  }

 private:
  const std::unordered_set<const Var*>& live_outs_;
};

bool same_tensor_type(const TypePtr& a, const TypePtr& b) {
  const auto* x = as_tensor(a);
  const auto* y = as_tensor(b);
  if (!x || !y || x->dtype != y->dtype) return false;
  auto sx = static_shape(x->shape), sy = static_shape(y->shape);
  return sx && sy && *sx == *sy;
}

class Outliner : public IRMutator {
 public:
  Outliner(const Program& prog, std::unordered_set<std::string>& taken, std::vector<FunctionPtr>& out)
      : prog_(prog), taken_(taken), out_(out) {
    for (const auto& d : prog.dynamic_dims) dyn_dims_.insert(d.get());
  }

  FunctionPtr run(const FunctionPtr& f) {
    parent_ = f.get();
    counter_ = 0;
    outlined_ = 0;
    // The kernels of each pl.cluster become one scope first, so that the use counts that decide
    // live-outs see the spliced kernel bodies' reads.
    struct Merger : IRMutator {
      const Outliner* o;
      StmtPtr mutate_scope(const std::shared_ptr<const ScopeStmt>& s) override {
        if (s->scope == ScopeKind::Cluster)
          if (auto merged = o->merge_cluster(*s)) return merged;
        return IRMutator::mutate_scope(s);
      }
    } merger;
    merger.o = this;
    const StmtPtr merged = merger.mutate(f->body);
    uses_ = {};
    uses_.visit(merged);
    returned_slot_.clear();
    // The parent's return convention: return[i] is its i-th Out/InOut param.
    std::vector<VarPtr> outs;
    for (size_t i = 0; i < f->params.size(); ++i)
      if (f->param_directions[i] != ParamDirection::In) outs.push_back(f->params[i]);
    auto stmts = flatten_body(f->body);
    if (!stmts.empty())
      if (const auto* r = as<ReturnStmt>(stmts.back()); r && r->values.size() == outs.size())
        for (size_t i = 0; i < outs.size(); ++i)
          if (const auto* v = as<Var>(r->values[i])) returned_slot_[v] = outs[i];
    StmtPtr body = mutate(merged);
    if (body == f->body) return f;
    auto g = std::make_shared<Function>(*f);
    g->body = body;
    if (outlined_ > 0 && g->type == FunctionType::Opaque) g->type = FunctionType::Orchestration;
    return g;
  }

 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    std::vector<StmtPtr> out;
    bool changed = false;
    for (const auto& c : s->stmts) {
      if (const auto* sc = as<ScopeStmt>(c); sc && sc->scope == ScopeKind::InCore) {
        for (auto& n : outline(*sc, s.get() == parent_->body.get())) out.push_back(std::move(n));
        changed = true;
        continue;
      }
      out.push_back(mutate(c));
      changed |= out.back() != c;
    }
    if (!changed) return s;
    return with_comments(std::make_shared<SeqStmts>(std::move(out), s->span), *s);
  }

  StmtPtr mutate_scope(const std::shared_ptr<const ScopeStmt>& s) override {
    if (s->scope != ScopeKind::InCore) return IRMutator::mutate_scope(s);
    return make_body(outline(*s, s.get() == parent_->body.get()), s->span);  // a scope that is a whole loop/if body
  }

 private:
  std::string kernel_name(const ScopeStmt& sc) {
    std::string base = !sc.name_hint.empty() ? sc.name_hint : fmt::format("{}_incore_{}", parent_->name, counter_);
    ++counter_;
    std::string name = base;
    for (int n = 0; taken_.count(name); ++n) name = suffixed(base, n);
    taken_.insert(name);
    return name;
  }

  // The call to an InCore kernel function `st` makes (null: none).
  const Call* kernel_call(const StmtPtr& st) const {
    const ExprPtr* v = nullptr;
    if (const auto* a = as<AssignStmt>(st)) v = &a->value;
    if (const auto* e = as<EvalStmt>(st)) v = &e->expr;
    const auto* c = v ? as<Call>(*v) : nullptr;
    if (!c || c->op) return nullptr;
    const auto f = prog_.find(c->callee);
    return f && f->type == FunctionType::InCore && f->body ? c : nullptr;
  }

  // The body of the kernel `st` calls, spliced in: fresh Vars, the parameters replaced by the
  // call's arguments, the returned value bound to the call's target.
  std::vector<StmtPtr> inline_kernel(const StmtPtr& st) const {
    const Call* c = kernel_call(st);
    const auto f = prog_.find(c->callee);
    const auto* a = as<AssignStmt>(st);
    if (c->dispatch || (a && as_tuple(a->var->type)) || c->args.size() != f->params.size())
      throw CompileError("E501", st->span,
                         "this kernel call in a pl.cluster with other kernels is not supported yet (a launch spec, "
                         "several results or a count of arguments other than the kernel's parameters)",
                         "write its work as a pl.at scope inside the pl.cluster");
    FreshCloner fc;
    for (size_t i = 0; i < c->args.size(); ++i) {
      fc.var_map[f->params[i].get()] = c->args[i];
      // A dynamic extent of the kernel's parameter is the argument's extent.
      const auto* pt = as_tensor(f->params[i]->type);
      const auto* at = as_tensor(c->args[i]->type);
      if (!pt || !at || pt->shape.size() != at->shape.size()) continue;
      for (size_t d = 0; d < pt->shape.size(); ++d)
        if (const auto* sym = as<Var>(pt->shape[d]); sym && !fc.var_map.count(sym)) fc.var_map[sym] = at->shape[d];
    }
    std::vector<StmtPtr> out = flatten_body(fc.mutate(f->body));
    const auto* ret = out.empty() ? nullptr : as<ReturnStmt>(out.back());
    if (!ret)
      throw CompileError("E501", st->span,
                         fmt::format("kernel '{}' in a pl.cluster with other kernels does not end with its return", f->name),
                         "write its work as a pl.at scope inside the pl.cluster");
    const std::vector<ExprPtr> values = ret->values;
    out.pop_back();
    if (!a) return out;
    if (values.size() != 1)
      throw CompileError("E501", st->span, "a kernel call with several results in a pl.cluster with other kernels is not supported yet",
                         "write its work as a pl.at scope inside the pl.cluster");
    // The statement binding the returned value binds the call's target instead (later reads of
    // the value read the target).
    const auto* rv = as<Var>(values[0]);
    for (size_t i = out.size(); rv && i-- > 0;)
      if (const auto* b = as<AssignStmt>(out[i]); b && b->var.get() == rv) {
        out[i] = with_comments(std::make_shared<AssignStmt>(a->var, b->value, b->span), *out[i]);
        IRMutator rename;
        rename.var_map[rv] = a->var;
        for (size_t j = i + 1; j < out.size(); ++j) out[j] = rename.mutate(out[j]);
        return out;
      }
    out.push_back(std::make_shared<AssignStmt>(a->var, values[0], st->span));
    return out;
  }

  // A pl.cluster whose body is two or more kernels — pl.at scopes, or calls of InCore kernel
  // functions, whose bodies are spliced in — : the cluster around one scope holding their bodies
  // in order (nullptr: not that form; other statements next to them are an error).
  std::shared_ptr<const ScopeStmt> merge_cluster(const ScopeStmt& cl) const {
    const auto stmts = flatten_body(cl.body);
    size_t kernels = 0;
    for (const auto& st : stmts)
      if (const auto* sc = as<ScopeStmt>(st); (sc && sc->scope == ScopeKind::InCore) || kernel_call(st)) ++kernels;
    if (kernels < 2) return nullptr;
    const ScopeStmt* first = nullptr;
    std::string name;
    std::vector<StmtPtr> body;
    for (const auto& st : stmts) {
      if (const Call* c = kernel_call(st)) {
        if (name.empty()) name = c->callee;
        for (auto& b : inline_kernel(st)) body.push_back(std::move(b));
        continue;
      }
      const auto* sc = as<ScopeStmt>(st);
      if (!sc || sc->scope != ScopeKind::InCore)
        throw CompileError("E501", st->span,
                           "a statement next to the kernels of a pl.cluster is not supported yet (the cluster's "
                           "kernels become one)",
                           "move it into one of the pl.at scopes, or before the pl.cluster");
      if (!first) {
        first = sc;
        if (name.empty()) name = sc->name_hint;
      } else {
        if (sc->has_dispatch_options() || sc->task_id)
          throw CompileError("E501", sc->span,
                             "dispatch options on a pl.at scope other than the first of a pl.cluster are not "
                             "supported yet (the cluster's scopes become one kernel, launched once)",
                             "write the options on the first pl.at scope of the cluster");
        if (sc->level != first->level)
          throw CompileError("E501", sc->span, "pl.at scopes of different levels in one pl.cluster",
                             "give every pl.at scope of the cluster the same level");
      }
      for (const auto& b : flatten_body(sc->body)) body.push_back(b);
    }
    std::shared_ptr<ScopeStmt> merged;
    if (first) {
      merged = std::make_shared<ScopeStmt>(*first);
    } else {
      merged = std::make_shared<ScopeStmt>(ScopeKind::InCore, nullptr, cl.span);
      merged->level = Level::CORE_GROUP;
    }
    merged->body = make_body(std::move(body), first ? first->span : cl.span);
    merged->name_hint = !cl.name_hint.empty() ? cl.name_hint : name;
    auto out = std::make_shared<ScopeStmt>(cl);
    out->body = merged;
    return out;
  }

  std::vector<StmtPtr> outline(const ScopeStmt& sc, bool top_level) {
    if (auto inner = find_incore_scope(sc.body))
      throw CompileError("E500", inner->span, fmt::format("{} scopes cannot be nested", kScopeText),
                         "remove the inner scope: its body already runs on the core group");
    Bindings defs;
    defs.visit(sc.body);
    OrderedUses inner;
    inner.visit(sc.body);

    // Live-ins: read inside, bound outside (module-level dynamic dims are not values).
    std::vector<VarPtr> live_ins;
    std::unordered_map<const Var*, VarPtr> by_ptr;
    collect_var_ptrs(sc.body, by_ptr);
    for (const Var* v : inner.order) {
      if (defs.bound.count(v) || dyn_dims_.count(v)) continue;
      auto found = by_ptr.find(v);
      if (found == by_ptr.end()) throw InternalError("OutlineIncoreScopes", fmt::format("lost Var '{}'", v->name), sc.span);
      const VarPtr& vp = found->second;
      if (as_tile(vp->type))
        throw CompileError("E500", sc.span,
                           fmt::format("tile '{}' is defined outside the {} scope that reads it", v->name, kScopeText),
                           "tiles live on one core: load the tile inside the scope");
      live_ins.push_back(vp);
    }
    // Live-outs: bound inside, read after the scope.
    std::vector<VarPtr> live_outs;
    for (const auto& v : collect_assigned(sc.body)) {
      int total = uses_.count.count(v.get()) ? uses_.count.at(v.get()) : 0;
      int in = inner.count.count(v.get()) ? inner.count.at(v.get()) : 0;
      if (total - in <= 0) continue;
      if (!as_tensor(v->type))
        throw CompileError("E500", v->span,
                           fmt::format("'{}' is computed inside a {} scope and used after it, but it is not a tensor; "
                                       "only tensors can leave a kernel (not supported yet)",
                                       v->name, kScopeText),
                           "compute the value outside the scope, or store it into a tensor");
      live_outs.push_back(v);
    }

    const std::string name = kernel_name(sc);
    const Span& sp = sc.span;
    const auto live_out_set = to_set(live_outs);
    BodyRebinder rb(live_out_set);
    std::vector<VarPtr> params;
    std::unordered_map<const Var*, VarPtr> param_of;  // outer Var → kernel param
    for (const auto& v : live_ins) {
      params.push_back(copy_var_with_type(*v, v->type));
      rb.var_map[v.get()] = params.back();
      param_of[v.get()] = params.back();
    }
    std::vector<ExprPtr> args(live_ins.begin(), live_ins.end());
    auto body_stmts = flatten_body(rb.mutate(sc.body));

    // Returned values (inside the kernel) and the outer Var each one binds.
    std::vector<ExprPtr> rets;
    std::vector<VarPtr> binds;
    std::unordered_set<const Var*> returned_params;
    for (const auto& v : live_outs) {
      ExprPtr kv = rb.mutate(ExprPtr(v));  // the kernel's copy
      if (const Var* root = write_root(v.get(), defs, param_of)) {
        returned_params.insert(root);
      } else if (auto it = returned_slot_.find(v.get());
                 it != returned_slot_.end() && same_tensor_type(it->second->type, v->type)) {
        // A fresh result the parent returns for one of its Out params: write it into that param.
        const VarPtr& outer = it->second;
        VarPtr p;
        if (auto pit = param_of.find(outer.get()); pit != param_of.end()) {
          p = pit->second;
        } else {
          p = copy_var_with_type(*outer, outer->type);
          params.push_back(p);
          args.push_back(outer);
          param_of[outer.get()] = p;
        }
        auto asm_call = make_call("tensor.assemble", {p, kv, zero_offsets(as_tensor(v->type)->shape.size(), sp)}, {}, sp);
        auto w = std::make_shared<Var>(outer->name, asm_call->type, sp);
        body_stmts.push_back(std::make_shared<AssignStmt>(w, asm_call, sp));
        kv = w;
        returned_params.insert(p.get());
      }
      rets.push_back(kv);
      binds.push_back(v);
    }
    // Directions; written params that are not returned yet are returned themselves.
    std::vector<ParamDirection> dirs;
    auto probe = make_body(body_stmts, sp);
    for (size_t i = 0; i < params.size(); ++i) {
      ParamDirection d = ParamDirection::In;
      if (as_tensor(params[i]->type)) d = upgraded_direction(d, analyze_access(probe, *params[i]));
      dirs.push_back(d);
      if (d != ParamDirection::In && !returned_params.count(params[i].get())) {
        rets.push_back(params[i]);
        VarPtr outer = as<Var>(args[i]) ? std::static_pointer_cast<const Var>(args[i]) : nullptr;
        binds.push_back(outer ? copy_var_with_type(*outer, outer->type) : nullptr);
      }
    }
    std::vector<TypePtr> ret_types;
    for (const auto& r : rets) ret_types.push_back(r->type);
    body_stmts.push_back(std::make_shared<ReturnStmt>(rets, sp));

    auto fn = std::make_shared<Function>();
    fn->name = name;
    fn->params = params;
    fn->param_directions = dirs;
    fn->return_types = ret_types;
    fn->body = make_body(body_stmts, sp);
    fn->type = FunctionType::InCore;
    fn->span = sp;
    // The scope's mixed-kernel options (optimizations=[pl.split(...), pl.cross_core_slot(...)]),
    // read by ExpandMixedKernel.
    if (sc.split) fn->attrs.push_back({"split", AttrValue(EnumLit{"SplitMode", std::string(to_string(*sc.split))}), {}, false, nullptr});
    if (sc.slot_num) fn->attrs.push_back({"cross_core_slot_num", AttrValue(*sc.slot_num), {}, false, nullptr});
    out_.push_back(fn);
    ++outlined_;

    // The call in the parent. A scope that names its task (`as tid`) or waits on TaskIds
    // (deps=) is a submit, `pl.submit(self.k, ...)`: its results end with the task's TaskId
    // (bound to tid, or to an unused local), deps= are the submit's dependencies.
    const bool submit = sc.task_id || !sc.deps.empty();
    VarPtr task_id = sc.task_id;
    if (submit && !task_id) task_id = std::make_shared<Var>(name + "_task", scalar_type(DataType::TASK_ID), sp);
    std::vector<TypePtr> call_types = ret_types;
    if (submit) call_types.push_back(scalar_type(DataType::TASK_ID));
    TypePtr rt = call_types.size() == 1 ? call_types[0] : std::make_shared<TupleType>(call_types);
    auto call = std::make_shared<Call>(nullptr, name, args, std::vector<std::pair<std::string, AttrValue>>{}, rt, sp);
    if (submit || sc.allow_early_resolve) {
      auto d = std::make_shared<Dispatch>();
      d->submit = submit;
      d->deps = sc.deps;
      d->allow_early_resolve = sc.allow_early_resolve;  // a scheduling hint the submit carries
      call->dispatch = d;
    }
    std::vector<StmtPtr> out;
    if (call_types.empty()) {
      out.push_back(std::make_shared<EvalStmt>(call, sp));
    } else if (call_types.size() == 1 && !submit) {
      out.push_back(std::make_shared<AssignStmt>(binds[0], call, sp));
    } else if (call_types.size() == 1) {
      out.push_back(std::make_shared<AssignStmt>(task_id, call, sp));
    } else {
      auto tup = std::make_shared<Var>(name + "_result", rt, sp);
      out.push_back(std::make_shared<AssignStmt>(tup, call, sp));
      for (size_t i = 0; i < binds.size(); ++i)
        out.push_back(std::make_shared<AssignStmt>(binds[i], std::make_shared<TupleGetItem>(tup, int(i), ret_types[i], sp), sp));
      if (submit)
        out.push_back(std::make_shared<AssignStmt>(
            task_id, std::make_shared<TupleGetItem>(tup, int(binds.size()), call_types.back(), sp), sp));
    }
    // Later statements of the function body read the rebound written params.
    for (size_t i = live_outs.size(); top_level && i < binds.size(); ++i)
      for (size_t k = 0; k < params.size(); ++k)
        if (rets[i] == params[k]) var_map[as<Var>(args[k])] = binds[i];
    if (!out.empty()) out.front() = with_comments(std::const_pointer_cast<Stmt>(out.front()), sc);
    return out;
  }

  // Where `v`'s chain of writes starts: back through write results (to the written operand),
  // copies, ifs whose branches both start from one Var, and loops each of whose iterations writes
  // into the carried value (to the iter_arg's init), to the first Var that is none of these (a
  // param, an iter_arg, a computed value). Memoised: chains of ifs share their prefixes.
  static const Var* origin(const Var* v, const Bindings& defs) {
    std::vector<const Var*> path;
    const Var* out = v;
    for (int guard = 0; guard < 100000; ++guard) {
      if (auto c = defs.origins.find(v); c != defs.origins.end()) {
        out = c->second;
        break;
      }
      path.push_back(v);
      const Var* next = nullptr;
      if (auto c = defs.carried.find(v); c != defs.carried.end()) {
        const Var* y = as<Var>(c->second.yielded);
        if (y && origin(y, defs) == c->second.iter_arg) next = as<Var>(c->second.iter_arg->init);
      } else if (auto p = defs.phis.find(v); p != defs.phis.end()) {
        const Var* a = as<Var>(p->second.first);
        const Var* b = as<Var>(p->second.second);
        if (a && b && origin(a, defs) == origin(b, defs)) next = origin(a, defs);
      } else if (auto d = defs.def.find(v); d != defs.def.end()) {
        if (const auto* c = as<Call>(d->second)) {
          int w = written_operand(*c);
          next = w >= 0 && w < int(c->args.size()) ? as<Var>(c->args[size_t(w)]) : nullptr;
        } else {
          next = as<Var>(d->second);
        }
      }
      if (!next) {
        out = v;
        break;
      }
      v = next;
    }
    for (const Var* p : path) defs.origins[p] = out;
    return out;
  }

  // The kernel param a live-out writes (it is a write result / copy of a live-in, or a loop's
  // result carrying one: the loop starts from it and each iteration writes into it), or nullptr.
  static const Var* write_root(const Var* v, const Bindings& defs, const std::unordered_map<const Var*, VarPtr>& param_of) {
    // A live-in is bound outside the scope, so a chain of writes into it starts there.
    auto it = param_of.find(origin(v, defs));
    return it != param_of.end() ? it->second.get() : nullptr;
  }

  static std::unordered_set<const Var*> to_set(const std::vector<VarPtr>& vs) {
    std::unordered_set<const Var*> s;
    for (const auto& v : vs) s.insert(v.get());
    return s;
  }

  static const ScopeStmt* find_incore_scope(const StmtPtr& s) {
    struct F : IRVisitor {
      const ScopeStmt* hit = nullptr;
      void visit_scope(const ScopeStmt& s) override {
        if (!hit && s.scope == ScopeKind::InCore) hit = &s;
        IRVisitor::visit_scope(s);
      }
    } f;
    f.visit(s);
    return f.hit;
  }

  // Shared pointers of the Vars read in a subtree (the visitor sees references only).
  static void collect_var_ptrs(const StmtPtr& s, std::unordered_map<const Var*, VarPtr>& out) {
    struct C : IRMutator {
      std::unordered_map<const Var*, VarPtr>* out;
      ExprPtr mutate_var(const std::shared_ptr<const Var>& v) override {
        out->emplace(v.get(), v);
        return v;
      }
    } c;
    c.out = &out;
    c.mutate(s);
  }

  const Program& prog_;
  std::unordered_set<std::string>& taken_;
  std::vector<FunctionPtr>& out_;
  std::unordered_set<const Var*> dyn_dims_;
  const Function* parent_ = nullptr;
  int counter_ = 0, outlined_ = 0;
  OrderedUses uses_;
  std::unordered_map<const Var*, VarPtr> returned_slot_;
};

// Scopes inside kernels cannot be outlined.
class KernelScopeCheck : public IRVisitor {
 protected:
  void visit_scope(const ScopeStmt& s) override {
    if (s.scope == ScopeKind::InCore)
      throw CompileError("E500", s.span, fmt::format("{} scope inside a kernel function", kScopeText),
                         "the kernel already runs on the core group: remove the scope");
    IRVisitor::visit_scope(s);
  }
};

ProgramPtr outline_program(const ProgramPtr& p) {
  std::unordered_set<std::string> taken;
  for (const auto& f : p->functions) taken.insert(f->name);
  std::vector<FunctionPtr> added;
  Outliner o(*p, taken, added);
  std::vector<FunctionPtr> fs;
  bool changed = false;
  for (const auto& f : p->functions) {
    if (is_incore_like(f->type)) {
      KernelScopeCheck k;
      k.visit_function(*f);
      fs.push_back(f);
      continue;
    }
    fs.push_back(o.run(f));
    changed |= fs.back() != f;
  }
  if (!changed) return p;
  for (auto& f : added) fs.push_back(std::move(f));
  return make_program(p->name, std::move(fs), p->dynamic_dims, p->span);
}

}  // namespace

Pass outline_incore_scopes_pass() {
  return Pass{"OutlineIncoreScopes",
              "Outlines each 'with pl.at(level=pl.Level.CORE_GROUP)' scope into an InCore function (live-ins → "
              "params, live-outs → returns, written tensors → Out/InOut params) called from its parent, which "
              "becomes Orchestration; the kernels of one pl.cluster (pl.at scopes, kernel calls) become one kernel.",
              {{Property::SSAForm}, {Property::SplitIncoreOrch}, {}},
              [](const ProgramPtr& p, PassContext&) { return outline_program(p); }};
}

}  // namespace pypto::passes
