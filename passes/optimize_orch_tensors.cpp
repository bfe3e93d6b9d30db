// OptimizeOrchTensors — after ConvertTensorToTileOps every kernel writes each result into an Out
// parameter, and its caller allocates that Out tensor (tensor.create) at every call, inside loops
// too. Two rewrites remove buffers the program does not need:
//   * iter-arg reuse: a kernel whose Out result replaces the tensor it read takes that tensor as
//     InOut and writes it in place; the Out parameter, its argument and the caller's tensor.create
//     go. The pair (In P, Out Q) is merged when
//       - in the kernel, P and Q have one type, P is read only by tile.loads and Q written only by
//         tile.stores, all at the body's top level and every store after every load (so an
//         in-place update reads nothing it has already written), and Q is returned;
//       - at every call of the kernel (all plain calls from orchestration / opaque functions):
//           loop form: P's argument is a loop's iter_arg, used by nothing else in the body, and
//           the loop yields Q's result in its place (`for i, (a,) in ...: r = k(a, out); yield r`);
//           standalone form: the kernel carries load(P) through a loop of its own into the store
//           to Q (`acc` in `acc_t = load(acc); for ..: acc_t = f(acc_t); store(acc_t, out)`);
//         Q's argument is a tensor.create used by nothing else; and the buffer P's argument stands
//         for (a parameter or a tensor.create, TensorRoots) is not read again in a version the
//         kernel overwrites: no older value of that buffer is used at or after the call (the loop
//         in the loop form) except as its argument (the loop's init), and around the call every
//         enclosing loop either creates the buffer in its body or carries it.
//     A buffer the entry function received is updated in place, as the reference does (the
//     kernel's InOut parameter says so in the generated sources).
//   * assemble-loop rewrite: in a kernel, a tile built by tile.assemble in a `for` loop from a
//     tile.create and then stored whole into an Out parameter at offset 0 is not built: the loop
//     carries the Out tensor and stores each piece where the assemble put it
//     (`buf = tile.create; for .. (acc = buf): acc = assemble(acc, piece, off); store(acc, 0, out)`
//     → `for .. (acc = out): acc = store(piece, off, acc)`). A `while` loop keeps its form.
// Not done here, and why: the reference also gives a kernel parameter the strides of the view it
// is handed (a slice of a bigger tensor, an assemble into one); here MaterializeTensorStrides and
// FuseCreateAssembleToSlice do that once the view is certain (a parameter typed as a window of a
// parent while its call still hands it a packed scratch tensor would read the wrong elements).
// Static window externalisation (windowize=True kernels) is not implemented.
// Requires SplitIncoreOrch; produces nothing new.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "ir/op_registry.h"
#include "ir/printer.h"
#include "ir/tensor_roots.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

bool same_type(const TypePtr& a, const TypePtr& b) { return a && b && print_type(a) == print_type(b); }

bool is_caller_kind(const Function& f) {
  return f.type == FunctionType::Orchestration || f.type == FunctionType::Opaque;
}

// Uses of each Var by a statement's own expressions (not by the bodies nested in it).
std::unordered_map<const Var*, int> own_uses(const StmtPtr& s) {
  std::unordered_map<const Var*, int> all;
  collect_uses(s, all);
  auto minus = [&](const StmtPtr& body) {
    if (!body) return;
    std::unordered_map<const Var*, int> inner;
    collect_uses(body, inner);
    for (const auto& [v, n] : inner)
      if ((all[v] -= n) <= 0) all.erase(v);
  };
  if (const auto* i = as<IfStmt>(s)) {
    minus(i->then_body);
    minus(i->else_body);
  } else if (const auto* f = as<ForStmt>(s)) {
    minus(f->body);
  } else if (const auto* w = as<WhileStmt>(s)) {
    minus(w->body);
  } else if (const auto* sc = as<ScopeStmt>(s)) {
    minus(sc->body);
  }
  return all;
}

// ------------------------------------------------------------------ the caller's flow facts
// Statements numbered in pre-order (a loop before its body, its body before what follows it);
// each Var's definition (index and statement; parameters at -1, a loop's / if's results at the
// index after its last statement) and its uses by index; each
// statement's enclosing loops (outermost first) and the loop whose body holds it directly.
class Flow {
 public:
  struct Use {
    int at;
    int count;
  };

  explicit Flow(const Function& f) {
    for (const auto& p : f.params) define(p, -1, nullptr);
    std::vector<const Stmt*> loops;
    walk(f.body, loops, nullptr);
  }

  int index(const Stmt* s) const { return at_.at(s); }
  int end(const Stmt* s) const { return end_.at(s); }
  const std::vector<const Stmt*>& loops_around(const Stmt* s) const { return loops_.at(s); }
  const Stmt* direct_loop(const Stmt* s) const { return direct_.at(s); }
  int def(const Var* v) const { return def_.at(v); }
  const Stmt* def_stmt(const Var* v) const {
    auto it = def_stmt_.find(v);
    return it == def_stmt_.end() ? nullptr : it->second;
  }
  const std::vector<Use>& uses(const Var* v) const {
    static const std::vector<Use> none;
    auto it = uses_.find(v);
    return it == uses_.end() ? none : it->second;
  }
  int use_count(const Var* v) const {
    int n = 0;
    for (const auto& u : uses(v)) n += u.count;
    return n;
  }
  const std::vector<VarPtr>& vars() const { return vars_; }

 private:
  void define(const VarPtr& v, int idx, const Stmt* s) {
    if (!v) return;
    def_[v.get()] = idx;
    def_stmt_[v.get()] = s;
    vars_.push_back(v);
  }

  void walk(const StmtPtr& s, std::vector<const Stmt*>& loops, const Stmt* direct) {
    if (!s) return;
    if (const auto* seq = as<SeqStmts>(s)) {
      for (const auto& c : seq->stmts) walk(c, loops, direct);
      return;
    }
    const int idx = next_++;
    at_[s.get()] = idx;
    loops_[s.get()] = loops;
    direct_[s.get()] = direct;
    for (const auto& [v, n] : own_uses(s)) uses_[v].push_back({idx, n});
    if (const auto* a = as<AssignStmt>(s)) {
      define(a->var, idx, s.get());
    } else if (const auto* i = as<IfStmt>(s)) {
      walk(i->then_body, loops, nullptr);
      walk(i->else_body, loops, nullptr);
      for (const auto& rv : i->return_vars) define(rv, next_, s.get());  // bound after the if
    } else if (const auto* f = as<ForStmt>(s)) {
      define(f->loop_var, idx, s.get());
      for (const auto& ia : f->iter_args) define(ia, idx, s.get());
      loops.push_back(s.get());
      walk(f->body, loops, s.get());
      loops.pop_back();
      for (const auto& rv : f->return_vars) define(rv, next_, s.get());  // bound after the loop
    } else if (const auto* w = as<WhileStmt>(s)) {
      for (const auto& ia : w->iter_args) define(ia, idx, s.get());
      loops.push_back(s.get());
      walk(w->body, loops, s.get());
      loops.pop_back();
      for (const auto& rv : w->return_vars) define(rv, next_, s.get());
    } else if (const auto* sc = as<ScopeStmt>(s)) {
      walk(sc->body, loops, direct);  // a scope is transparent
      define(sc->task_id, idx, s.get());
    }
    end_[s.get()] = next_ - 1;
  }

  int next_ = 0;
  std::unordered_map<const Stmt*, int> at_, end_;
  std::unordered_map<const Stmt*, std::vector<const Stmt*>> loops_;
  std::unordered_map<const Stmt*, const Stmt*> direct_;
  std::unordered_map<const Var*, int> def_;
  std::unordered_map<const Var*, const Stmt*> def_stmt_;
  std::unordered_map<const Var*, std::vector<Use>> uses_;
  std::vector<VarPtr> vars_;
};

const std::vector<IterArgPtr>* loop_iter_args(const Stmt* l) {
  if (!l) return nullptr;
  if (l->kind == NodeKind::ForStmt) return &static_cast<const ForStmt*>(l)->iter_args;
  if (l->kind == NodeKind::WhileStmt) return &static_cast<const WhileStmt*>(l)->iter_args;
  return nullptr;
}
StmtPtr loop_body(const Stmt* l) {
  if (l->kind == NodeKind::ForStmt) return static_cast<const ForStmt*>(l)->body;
  return static_cast<const WhileStmt*>(l)->body;
}

const Call* call_of(const Stmt* s, const char* op) {
  const auto* a = s && s->kind == NodeKind::AssignStmt ? static_cast<const AssignStmt*>(s) : nullptr;
  const auto* c = a ? as<Call>(a->value) : nullptr;
  return c && c->is_op(op) ? c : nullptr;
}
const Call* call_of(const StmtPtr& s, const char* op) { return call_of(s.get(), op); }

// ------------------------------------------------------------------ iter-arg reuse: the kernel
using Pair = std::pair<size_t, size_t>;  // (In param index, Out param index)

struct KernelFacts {
  std::vector<Pair> pairs;           // (P, Q) the kernel's body admits
  std::set<Pair> standalone;         // of those, the ones whose load(P) a loop carries into Q
  std::map<size_t, size_t> out_slot; // Out param index → return slot
};

// The return slot whose value is the tensor `q` (TensorRoots), when exactly one is.
std::optional<size_t> slot_of(const Program& p, const Function& k, const VarPtr& q) {
  const ReturnStmt* r = trailing_return(k.body);
  if (!r) return std::nullopt;
  const TensorRoots roots(p, k);
  std::optional<size_t> slot;
  for (size_t i = 0; i < r->values.size(); ++i)
    if (roots.root(r->values[i]) == q.get()) {
      if (slot) return std::nullopt;
      slot = i;
    }
  return slot;
}

KernelFacts kernel_facts(const Program& p, const Function& k) {
  KernelFacts facts;
  const auto top = flatten_body(k.body);
  std::unordered_map<const Var*, int> total;
  collect_uses(k.body, total);
  std::vector<std::unordered_map<const Var*, int>> uses_at(top.size());
  for (size_t i = 0; i < top.size(); ++i) collect_uses(top[i], uses_at[i]);
  auto count_at = [&](size_t i, const Var* v) {
    auto it = uses_at[i].find(v);
    return it == uses_at[i].end() ? 0 : it->second;
  };
  // Every use of `prm` is operand `pos` of a top-level `op` call; their first and last index.
  auto only_in = [&](const Var* prm, const char* op, size_t pos, int& first, int& last) {
    int seen = 0;
    first = last = -1;
    for (size_t i = 0; i < top.size(); ++i) {
      const int n = count_at(i, prm);
      if (!n) continue;
      const Call* c = call_of(top[i], op);
      if (!c || n != 1 || c->args.size() <= pos || as<Var>(c->args[pos]) != prm) return false;
      seen += n;
      if (first < 0) first = int(i);
      last = int(i);
    }
    return seen > 0 && seen == total[prm];
  };

  for (size_t q = 0; q < k.params.size(); ++q) {
    const VarPtr& qv = k.params[q];
    if (k.param_directions[q] != ParamDirection::Out || !as_tensor(qv->type)) continue;
    int first_store = -1, last_store = -1;
    if (!only_in(qv.get(), "tile.store", 2, first_store, last_store)) continue;
    auto slot = slot_of(p, k, qv);
    if (!slot) continue;
    facts.out_slot[q] = *slot;
    for (size_t pi = 0; pi < k.params.size(); ++pi) {
      const VarPtr& pv = k.params[pi];
      if (k.param_directions[pi] != ParamDirection::In || !same_type(pv->type, qv->type)) continue;
      int first_load = -1, last_load = -1;
      if (!only_in(pv.get(), "tile.load", 0, first_load, last_load) || last_load >= first_store) continue;
      facts.pairs.push_back({pi, q});
      // The standalone form: store(rv, _, Q) where rv is a top-level loop's result whose
      // iter_arg starts from a load of P.
      for (size_t i = size_t(first_store); i < top.size(); ++i) {
        const Call* st = call_of(top[i], "tile.store");
        if (!st || as<Var>(st->args[2]) != qv.get()) continue;
        const Var* stored = as<Var>(st->args[0]);
        for (size_t j = 0; stored && j < i; ++j) {
          const auto* ias = loop_iter_args(top[j].get());
          if (!ias) continue;
          const auto& rvs = top[j]->kind == NodeKind::ForStmt ? as<ForStmt>(top[j])->return_vars
                                                               : as<WhileStmt>(top[j])->return_vars;
          for (size_t m = 0; m < rvs.size() && m < ias->size(); ++m) {
            if (rvs[m].get() != stored) continue;
            const Var* init = as<Var>((*ias)[m]->init);
            for (size_t d = 0; init && d < j; ++d) {
              const Call* ld = call_of(top[d], "tile.load");
              if (ld && as<AssignStmt>(top[d])->var.get() == init && as<Var>(ld->args[0]) == pv.get())
                facts.standalone.insert({pi, q});
            }
          }
        }
      }
    }
  }
  return facts;
}

// After merging `pairs`, the kernel's written tensor parameters in order must still be its
// return slots in order (a call returns its Out / InOut arguments in order).
bool keeps_slot_order(const Function& k, const KernelFacts& facts, const std::set<Pair>& pairs) {
  std::map<size_t, size_t> slot;  // written param index (after the merge) → return slot
  for (const auto& [q, s] : facts.out_slot) slot[q] = s;
  for (const auto& [pi, q] : pairs) {
    slot.erase(q);
    slot[pi] = facts.out_slot.at(q);
  }
  size_t n = 0;
  for (size_t i = 0; i < k.params.size(); ++i) {
    bool gone = false, merged = false;
    for (const auto& [pi, q] : pairs) gone |= q == i, merged |= pi == i;
    if (gone || !as_tensor(k.params[i]->type) || (k.param_directions[i] == ParamDirection::In && !merged)) continue;
    auto it = slot.find(i);
    if (it != slot.end() && it->second != n) return false;
    ++n;
  }
  return true;
}

// ------------------------------------------------------------------ iter-arg reuse: the caller
class CallerFacts {
 public:
  CallerFacts(const Program& p, const Function& f) : flow_(f) {
    const TensorRoots roots(p, f);
    for (const auto& v : flow_.vars()) root_[v.get()] = roots.root(v);
  }

  // The pairs of `facts` the call `s` (an AssignStmt of a call to the kernel) admits.
  std::set<Pair> admitted(const AssignStmt& s, const KernelFacts& facts) const {
    std::set<Pair> ok;
    for (const auto& pr : facts.pairs)
      if (admits(s, facts, pr)) ok.insert(pr);
    return ok;
  }

 private:
  const Var* root(const Var* v) const {
    auto it = v ? root_.find(v) : root_.end();
    return it == root_.end() ? nullptr : it->second;
  }

  // The result slot a yielded value stands for: the call result itself (a one-result call) or
  // `r[k]`, through plain copies.
  std::optional<size_t> slot_yielded(const ExprPtr& e, const Var* result) const {
    const Var* v = as<Var>(e);
    for (int guard = 0; v && guard < 64; ++guard) {
      if (v == result) return as_tuple(result->type) ? std::nullopt : std::optional<size_t>(0);
      const Stmt* d = flow_.def_stmt(v);
      if (!d || d->kind != NodeKind::AssignStmt) return std::nullopt;
      const auto* a = static_cast<const AssignStmt*>(d);
      if (const auto* g = as<TupleGetItem>(a->value))
        return as<Var>(g->tuple) == result && g->index >= 0 ? std::optional<size_t>(size_t(g->index)) : std::nullopt;
      v = as<Var>(a->value);
    }
    return std::nullopt;
  }

  bool admits(const AssignStmt& s, const KernelFacts& facts, const Pair& pr) const {
    const auto& [pi, q] = pr;
    const Call& c = *as<Call>(s.value);
    const Var* qa = as<Var>(c.args[q]);
    const Var* pa = as<Var>(c.args[pi]);
    if (!qa || !pa || !call_of(flow_.def_stmt(qa), "tensor.create") || flow_.use_count(qa) != 1) return false;
    int in_call = 0;
    for (const auto& a : c.args) in_call += as<Var>(a) == pa;
    if (in_call != 1) return false;
    const size_t slot = facts.out_slot.at(q);
    // The loop form: P's argument is the iter_arg of the loop around the call.
    if (const Stmt* loop = flow_.direct_loop(&s)) {
      const auto& ias = *loop_iter_args(loop);
      for (size_t j = 0; j < ias.size(); ++j) {
        if (ias[j].get() != pa) continue;
        if (flow_.use_count(pa) != 1) return false;
        const YieldStmt* y = trailing_yield(loop_body(loop));
        if (!y || j >= y->values.size()) return false;
        auto ys = slot_yielded(y->values[j], s.var.get());
        const Var* init = as<Var>(ias[j]->init);
        return ys && *ys == slot && init && owned(loop, init);
      }
    }
    return facts.standalone.count(pr) && owned(&s, pa);
  }

  // Whether the kernel may overwrite the buffer `entry` stands for, from `anchor` on (the call,
  // or the loop whose init `entry` is): no older value of it is read at or after `anchor` but
  // `entry` there, and each loop around `anchor` makes the buffer in its body or carries it.
  bool owned(const Stmt* anchor, const Var* entry) const {
    const Var* r = root(entry);
    if (!r) return false;
    const bool param = flow_.def(r) == -1;
    if (!param && !call_of(flow_.def_stmt(r), "tensor.create")) return false;
    const int a = flow_.index(anchor);
    for (const auto& v : flow_.vars()) {
      if (root(v.get()) != r || flow_.def(v.get()) >= a) continue;
      int late = 0;
      for (const auto& u : flow_.uses(v.get()))
        if (u.at >= a) late += u.count;
      if (late > (v.get() == entry ? 1 : 0)) return false;
    }
    const auto& loops = flow_.loops_around(anchor);
    if (loops.empty()) return true;
    const Stmt* l = loops.back();
    if (!param && flow_.def(r) > flow_.index(l) && flow_.def(r) <= flow_.end(l)) return true;
    const auto& ias = *loop_iter_args(l);
    for (size_t m = 0; m < ias.size(); ++m) {
      if (ias[m].get() != entry) continue;
      const YieldStmt* y = trailing_yield(loop_body(l));
      const Var* init = as<Var>(ias[m]->init);
      return y && m < y->values.size() && root(as<Var>(y->values[m])) == r && init && owned(l, init);
    }
    return false;
  }

  Flow flow_;
  std::unordered_map<const Var*, const Var*> root_;
};

// The kernel with each (P, Q) of `pairs` merged: P InOut, Q gone, Q's stores into P.
FunctionPtr merge_params(const FunctionPtr& k, const std::set<Pair>& pairs) {
  struct Sub : IRMutator {};
  Sub sub;
  std::set<size_t> gone;
  for (const auto& [pi, q] : pairs) {
    sub.var_map[k->params[q].get()] = k->params[pi];
    gone.insert(q);
  }
  auto nf = std::make_shared<Function>(*k);
  nf->params.clear();
  nf->param_directions.clear();
  for (size_t i = 0; i < k->params.size(); ++i) {
    if (gone.count(i)) continue;
    nf->params.push_back(k->params[i]);
    bool merged = false;
    for (const auto& pr : pairs) merged |= pr.first == i;
    nf->param_directions.push_back(merged ? ParamDirection::InOut : k->param_directions[i]);
  }
  nf->body = sub.mutate(k->body);
  return nf;
}

// Callers: the merged kernels' calls lose the Out arguments, and their tensor.creates go.
class DropOutArgs : public IRMutator {
 public:
  std::map<std::string, std::set<size_t>> gone;  // kernel → removed param indices
  std::set<const Var*> creates;                  // tensor.create results no call takes any more

  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    if (creates.count(s->var.get())) return nullptr;
    const auto* c = as<Call>(s->value);
    auto it = c && !c->op ? gone.find(c->callee) : gone.end();
    if (it == gone.end()) return IRMutator::mutate_assign(s);
    auto nc = std::make_shared<Call>(*c);
    nc->args.clear();
    for (size_t i = 0; i < c->args.size(); ++i)
      if (!it->second.count(i)) nc->args.push_back(c->args[i]);
    return with_comments(std::make_shared<AssignStmt>(s->var, nc, s->span), *s);
  }
};

ProgramPtr reuse_iter_args(const ProgramPtr& p) {
  // Every call of each kernel, and where it sits.
  std::map<std::string, std::vector<std::pair<const Function*, const AssignStmt*>>> calls;
  std::set<std::string> unmergeable;
  for (const auto& f : p->functions) {
    struct Calls : IRVisitor {
      const Function* f;
      std::map<std::string, std::vector<std::pair<const Function*, const AssignStmt*>>>* calls;
      std::set<std::string>* bad;
      void visit_assign(const AssignStmt& s) override {
        const auto* c = as<Call>(s.value);
        if (c && !c->op) {
          (*calls)[c->callee].push_back({f, &s});
          const bool plain = !c->dispatch && c->arg_directions.empty() &&
                             (f->type == FunctionType::Orchestration || f->type == FunctionType::Opaque);
          if (!plain) bad->insert(c->callee);
          for (const auto& a : c->args) visit(a);
          return;
        }
        IRVisitor::visit_assign(s);
      }
      void visit_call(const Call& c) override {  // a call used as a value anywhere else
        if (!c.op) bad->insert(c.callee);
        IRVisitor::visit_call(c);
      }
    } v;
    v.f = f.get();
    v.calls = &calls;
    v.bad = &unmergeable;
    v.visit_function(*f);
  }
  std::map<const Function*, std::unique_ptr<CallerFacts>> callers;
  DropOutArgs drop;
  std::map<std::string, std::set<Pair>> merges;
  for (const auto& k : p->functions) {
    if (!is_incore_like(k->type) || unmergeable.count(k->name) || !calls.count(k->name)) continue;
    const KernelFacts facts = kernel_facts(*p, *k);
    if (facts.pairs.empty()) continue;
    std::optional<std::set<Pair>> common;
    for (const auto& [caller, stmt] : calls[k->name]) {
      const auto& c = *as<Call>(stmt->value);
      if (c.args.size() != k->params.size()) {
        common = std::set<Pair>{};
        break;
      }
      auto& cf = callers[caller];
      if (!cf) cf = std::make_unique<CallerFacts>(*p, *caller);
      std::set<Pair> here = cf->admitted(*stmt, facts);
      if (!common) common = here;
      else {
        std::set<Pair> both;
        std::set_intersection(common->begin(), common->end(), here.begin(), here.end(), std::inserter(both, both.end()));
        common = both;
      }
    }
    if (!common || common->empty()) continue;
    // One Q per P and one P per Q; the slot order kept.
    std::set<Pair> chosen;
    std::set<size_t> ps, qs;
    for (const auto& pr : *common)
      if (!ps.count(pr.first) && !qs.count(pr.second)) {
        chosen.insert(pr);
        ps.insert(pr.first);
        qs.insert(pr.second);
      }
    if (!keeps_slot_order(*k, facts, chosen)) continue;
    merges[k->name] = chosen;
    for (const auto& pr : chosen) drop.gone[k->name].insert(pr.second);
    for (const auto& [caller, stmt] : calls[k->name])
      for (const auto& pr : chosen) drop.creates.insert(as<Var>(as<Call>(stmt->value)->args[pr.second]));
  }
  if (merges.empty()) return p;
  return map_functions(p, [&](const FunctionPtr& f) -> FunctionPtr {
    auto it = merges.find(f->name);
    if (it != merges.end()) return merge_params(f, it->second);
    if (!is_caller_kind(*f)) return f;
    return drop.mutate_function(f);
  });
}

// ------------------------------------------------------------------ assemble-loop rewrite
bool all_zero(const ExprPtr& offsets) {
  const auto* t = as<MakeTuple>(offsets);
  if (!t) return false;
  for (const auto& e : t->elems) {
    auto v = const_int_value(e);
    if (!v || *v != 0) return false;
  }
  return true;
}

bool same_static_shape(const ShapedType& a, const ShapedType& b) {
  auto x = static_shape(a.shape), y = static_shape(b.shape);
  return x && y && *x == *y;
}

FunctionPtr rewrite_assemble_loops(const FunctionPtr& k) {
  auto top = flatten_body(k->body);
  std::unordered_map<const Var*, int> total;
  collect_uses(k->body, total);
  std::map<const Var*, ParamDirection> dir;
  for (size_t i = 0; i < k->params.size(); ++i) dir[k->params[i].get()] = k->param_directions[i];
  for (size_t j = 0; j < top.size(); ++j) {
    const auto* f = as<ForStmt>(top[j]);
    if (!f) continue;
    auto body = flatten_body(f->body);
    const YieldStmt* y = body.empty() ? nullptr : as<YieldStmt>(body.back());
    if (!y) continue;
    for (size_t m = 0; m < f->iter_args.size() && m < y->values.size() && m < f->return_vars.size(); ++m) {
      const IterArgPtr& acc = f->iter_args[m];
      const Var* buf = as<Var>(acc->init);
      if (!buf || total[buf] != 1 || total[acc.get()] != 1) continue;
      // buf = tile.create(...) at the top level, before the loop.
      size_t d = 0;
      while (d < j && !(as<AssignStmt>(top[d]) && as<AssignStmt>(top[d])->var.get() == buf)) ++d;
      if (d == j || !call_of(top[d], "tile.create")) continue;
      // n = tile.assemble(acc, piece, offsets) in the body, yielded in acc's place.
      size_t an = 0;
      const Call* asm_call = nullptr;
      for (; an < body.size(); ++an)
        if ((asm_call = call_of(body[an], "tile.assemble")) && as<Var>(asm_call->args[0]) == acc.get()) break;
      if (an == body.size()) continue;
      const VarPtr& n = as<AssignStmt>(body[an])->var;
      if (as<Var>(y->values[m]) != n.get() || total[n.get()] != 1) continue;
      // s = tile.store(rv, [0, ...], Q) after the loop, Q an Out parameter of the tile's shape,
      // and s returned.
      const VarPtr& rv = f->return_vars[m];
      if (total[rv.get()] != 1) continue;
      size_t si = j + 1;
      const Call* st = nullptr;
      for (; si < top.size(); ++si)
        if ((st = call_of(top[si], "tile.store")) && as<Var>(st->args[0]) == rv.get()) break;
      if (si == top.size() || st->args.size() != 3 || !all_zero(st->args[1])) continue;
      const Var* q = as<Var>(st->args[2]);
      if (!q || !dir.count(q) || dir[q] != ParamDirection::Out || total[q] != 1) continue;
      const auto* qt = as_tensor(q->type);
      const auto* bt = as_tile(buf->type);
      if (!qt || !bt || qt->dtype != bt->dtype || !same_static_shape(*qt, *bt)) continue;
      const VarPtr& s = as<AssignStmt>(top[si])->var;
      const ReturnStmt* ret = trailing_return(k->body);
      if (total[s.get()] != 1 || !ret) continue;
      bool returned = false;
      for (const auto& v : ret->values) returned |= as<Var>(v) == s.get();
      if (!returned) continue;

      // The rewrite.
      VarPtr qp;
      for (const auto& prm : k->params)
        if (prm.get() == q) qp = prm;
      auto acc2 = std::make_shared<IterArg>(acc->name, q->type, qp, acc->span);
      auto store = make_call("tile.store", {asm_call->args[1], asm_call->args[2], acc2}, {}, asm_call->span);
      auto n2 = make_var(n->name, store->type, n->span);
      auto rv2 = make_var(rv->name, q->type, rv->span);
      struct Sub : IRMutator {};
      Sub sub;
      sub.var_map[acc.get()] = acc2;
      sub.var_map[n.get()] = n2;
      std::vector<StmtPtr> nb;
      for (size_t i = 0; i < body.size(); ++i) {
        if (i == an) nb.push_back(with_comments(std::make_shared<AssignStmt>(n2, store, body[i]->span), *body[i]));
        else nb.push_back(sub.mutate(body[i]));
      }
      auto ias = f->iter_args;
      ias[m] = acc2;
      auto rvs = f->return_vars;
      rvs[m] = rv2;
      auto nf = std::make_shared<ForStmt>(f->loop_var, f->start, f->stop, f->step, ias, make_body(nb, f->body->span),
                                          rvs, f->kind, f->span, f->stage);
      Sub after;
      after.var_map[s.get()] = rv2;
      std::vector<StmtPtr> nt;
      for (size_t i = 0; i < top.size(); ++i) {
        if (i == d || i == si) continue;
        if (i == j) nt.push_back(with_comments(nf, *top[i]));
        else nt.push_back(i > j ? after.mutate(top[i]) : top[i]);
      }
      auto out = std::make_shared<Function>(*k);
      out->body = make_body(nt, k->body->span);
      return rewrite_assemble_loops(out);  // the next loop, on the rewritten body
    }
  }
  return k;
}

}  // namespace

Pass optimize_orch_tensors_pass() {
  return Pass{"OptimizeOrchTensors",
              "Iter-arg reuse: a kernel whose Out result replaces the In tensor it read (a loop carrying it, or a "
              "standalone call whose kernel carries the loaded tile into the store) takes that tensor as InOut and the "
              "caller's tensor.create goes; assemble-loop rewrite: a kernel loop assembling a tile.create that is "
              "then stored whole into an Out parameter stores each piece into the Out tensor instead.",
              {{Property::SplitIncoreOrch}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                ProgramPtr out = reuse_iter_args(p);
                return map_functions(out, [](const FunctionPtr& f) {
                  return is_incore_like(f->type) ? rewrite_assemble_loops(f) : f;
                });
              }};
}

}  // namespace pypto::passes
