// ConvertToSSA — turns the front end's non-SSA IR (names rebound freely, loops and ifs that
// assign outer names) into structured SSA:
//   * renaming: the first binding of a name keeps its Var, every rebinding makes a new Var
//     (`x_1`, `x_2`, ...); uses refer to the binding that reaches them;
//   * if-phis: a name bound differently by the two arms becomes a return_var of the IfStmt, both
//     arms yield their value (a missing else arm is created);
//   * loop carries: a name bound before a pl.range/while loop and rebound in its body becomes an
//     iter_arg (init = the outer value) yielded at the end of the body; after the loop the name
//     refers to the loop's return_var (explicit init_values/yields are kept and extended);
//   * escape promotion by forward use: carries and phis this pass created are dropped again when
//     nothing reads them (mark-live over the carry/phi slots);
//   * escapes: a name first bound in a loop body by a writer (`v = pl.store(t, offs, T)`, registry
//     `written_tensor`) of a tensor T bound before the loop is carried with init T — what a
//     zero-trip loop leaves;
//   * scopes are transparent; any other name first bound inside a loop or one if-arm and read
//     after it is a CompileError ("used outside its defining scope").
// Produces SSAForm.
#include <fmt/format.h>

#include <unordered_set>

#include "ir/op_registry.h"
#include "ir/printer.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

// Substitutes the current binding of each name; a name mapped to nullptr is out of scope.
class Subst : public IRMutator {
 public:
  const Var* hit = nullptr;

 protected:
  ExprPtr mutate_var(const std::shared_ptr<const Var>& v) override {
    auto it = var_map.find(v.get());
    if (it == var_map.end()) return v;
    if (!it->second) {
      if (!hit) hit = v.get();
      return v;
    }
    return it->second;
  }
};

using Env = std::unordered_map<const Var*, ExprPtr>;

class Converter {
 public:
  std::unordered_set<const Var*> created_iter_args;  // carries made here (IterArg identities)
  std::unordered_set<const Var*> created_phis;       // if return_vars made here

  FunctionPtr run(const FunctionPtr& f) {
    std::vector<VarPtr> params;
    for (const auto& p : f->params) params.push_back(define(p));
    StmtPtr body = make_body(convert_block(flatten_body(f->body)), f->body ? f->body->span : f->span);
    auto g = std::make_shared<Function>(*f);
    g->params = std::move(params);
    g->body = body;
    return g;
  }

 private:
  Subst sub_;
  std::unordered_map<const Var*, int> version_;

  Env& env() { return sub_.var_map; }

  ExprPtr sub(const ExprPtr& e, const Span& at) {
    sub_.hit = nullptr;
    ExprPtr r = sub_.mutate(e);
    if (sub_.hit)
      throw CompileError("E410", at.valid() ? at : sub_.hit->span,
                         fmt::format("variable '{}' is used outside its defining scope", sub_.hit->name),
                         "bind it before the loop or if statement, or in both branches of the if");
    return r;
  }

  bool available(const Var* v) {
    auto it = env().find(v);
    return it != env().end() && it->second;
  }

  // A new binding of original name `orig`.
  VarPtr fresh(const VarPtr& orig) {
    int n = version_[orig.get()]++;
    if (n == 0) return orig;
    return copy_var_with_type(*orig, orig->type, suffixed(orig->name, n));
  }
  VarPtr define(const VarPtr& orig) {
    VarPtr v = fresh(orig);
    if (as<IterArg>(orig.get()) && v != orig) v = std::make_shared<Var>(v->name, v->type, v->span);
    // The binding's type reads the bindings that reach it, as its value does (a tile whose
    // valid_shape names a value an if / loop rebinds).
    sub_.hit = nullptr;
    TypePtr t = sub_.mutate_type(v->type);
    sub_.hit = nullptr;
    if (t != v->type) v = copy_var_with_type(*v, t, v->name);
    env()[orig.get()] = v;
    return v;
  }

  std::vector<StmtPtr> convert_block(const std::vector<StmtPtr>& stmts) {
    std::vector<StmtPtr> out;
    for (const auto& s : stmts) convert_stmt(s, out);
    return out;
  }

  void convert_stmt(const StmtPtr& s, std::vector<StmtPtr>& out) {
    switch (s->kind) {
      case NodeKind::AssignStmt: {
        const auto* a = as<AssignStmt>(s);
        ExprPtr v = sub(a->value, s->span);
        VarPtr var = define(a->var);
        out.push_back(with_comments(std::make_shared<AssignStmt>(var, v, s->span), *s));
        return;
      }
      case NodeKind::EvalStmt:
        out.push_back(with_comments(std::make_shared<EvalStmt>(sub(as<EvalStmt>(s)->expr, s->span), s->span), *s));
        return;
      case NodeKind::ReturnStmt:
        out.push_back(with_comments(std::make_shared<ReturnStmt>(sub_list(as<ReturnStmt>(s)->values, s->span), s->span), *s));
        return;
      case NodeKind::YieldStmt:
        out.push_back(with_comments(std::make_shared<YieldStmt>(sub_list(as<YieldStmt>(s)->values, s->span), s->span), *s));
        return;
      case NodeKind::SeqStmts:
        for (const auto& c : as<SeqStmts>(s)->stmts) convert_stmt(c, out);
        return;
      case NodeKind::ScopeStmt: {
        auto n = std::make_shared<ScopeStmt>(*as<ScopeStmt>(s));
        if (n->core_num) n->core_num = sub(n->core_num, s->span);
        for (auto& d : n->deps) d = sub(d, s->span);
        n->body = make_body(convert_block(flatten_body(n->body)), s->span);
        if (n->task_id) n->task_id = define(n->task_id);  // `as tid`: bound after the scope
        out.push_back(n);
        return;
      }
      case NodeKind::IfStmt: return convert_if(std::static_pointer_cast<const IfStmt>(s), out);
      case NodeKind::ForStmt: return convert_for(std::static_pointer_cast<const ForStmt>(s), out);
      case NodeKind::WhileStmt: return convert_while(std::static_pointer_cast<const WhileStmt>(s), out);
      default: out.push_back(s); return;
    }
  }

  std::vector<ExprPtr> sub_list(const std::vector<ExprPtr>& in, const Span& at) {
    std::vector<ExprPtr> out;
    for (const auto& e : in) out.push_back(sub(e, at));
    return out;
  }

  // Converts a branch body starting from env `start`; returns the statements without the trailing
  // yield, the converted yield values, and the env at the end.
  struct Branch {
    std::vector<StmtPtr> stmts;
    std::shared_ptr<const YieldStmt> yield;
    std::vector<ExprPtr> yield_values;
    Env end;
  };
  Branch convert_branch(const StmtPtr& body, const Env& start) {
    Branch b;
    env() = start;
    auto [stmts, y] = split_trailing_yield(body);
    b.stmts = convert_block(stmts);
    b.yield = y;
    if (y) b.yield_values = sub_list(y->values, y->span);
    b.end = env();
    return b;
  }

  static ExprPtr lookup(const Env& e, const Var* v) {
    auto it = e.find(v);
    return it == e.end() ? nullptr : it->second;
  }

  void convert_if(const std::shared_ptr<const IfStmt>& s, std::vector<StmtPtr>& out) {
    ExprPtr cond = sub(s->cond, s->span);
    Env pre = env();
    Branch t = convert_branch(s->then_body, pre);
    Branch e = convert_branch(s->else_body, pre);
    // Names bound in either arm (excluding the if's own explicit return_vars).
    std::vector<VarPtr> assigned = collect_assigned(s->then_body);
    for (const auto& v : collect_assigned(s->else_body)) assigned.push_back(v);
    std::unordered_set<const Var*> seen;
    std::vector<std::pair<VarPtr, std::pair<ExprPtr, ExprPtr>>> phis;
    std::vector<const Var*> poison;
    for (const auto& v : assigned) {
      if (!seen.insert(v.get()).second) continue;
      ExprPtr tv = lookup(t.end, v.get()), ev = lookup(e.end, v.get());
      if (tv && ev) {
        if (tv != ev) phis.push_back({v, {tv, ev}});
      } else {
        poison.push_back(v.get());
      }
    }
    env() = pre;
    std::vector<VarPtr> rvs;
    for (const auto& rv : s->return_vars) rvs.push_back(define(rv));
    std::vector<ExprPtr> ty = t.yield_values, ey = e.yield_values;
    for (auto& [v, vals] : phis) {
      ty.push_back(vals.first);
      ey.push_back(vals.second);
      VarPtr rv = define(v);
      created_phis.insert(rv.get());
      rvs.push_back(rv);
    }
    for (const Var* v : poison) env()[v] = nullptr;
    auto finish = [&](Branch& b, std::vector<ExprPtr> vals, const Span& sp) -> StmtPtr {
      if (!vals.empty() || b.yield)
        b.stmts.push_back(std::make_shared<YieldStmt>(std::move(vals), b.yield ? b.yield->span : sp));
      return make_body(std::move(b.stmts), sp);
    };
    StmtPtr then_body = finish(t, ty, s->span);
    StmtPtr else_body = (s->else_body || !ey.empty()) ? finish(e, ey, s->span) : nullptr;
    out.push_back(with_comments(std::make_shared<IfStmt>(cond, then_body, else_body, std::move(rvs), s->span), *s));
  }

  // Shared by for and while: sets up carries for names bound before the loop and rebound in it.
  struct Carries {
    std::vector<IterArgPtr> iter_args;        // explicit then implicit
    std::vector<VarPtr> implicit_names;       // original names of the implicit carries
  };
  Carries setup_carries(const std::vector<IterArgPtr>& explicit_ias, const StmtPtr& body, const Span& at) {
    Carries c;
    for (const auto& ia : explicit_ias) {
      ExprPtr init = sub(ia->init, at);
      int n = version_[ia.get()]++;
      std::string name = n == 0 ? ia->name : suffixed(ia->name, n);
      IterArgPtr fresh = (n == 0 && init == ia->init) ? ia : std::make_shared<IterArg>(name, ia->type, init, ia->span);
      c.iter_args.push_back(fresh);
    }
    std::unordered_set<const Var*> explicit_set;
    for (const auto& ia : explicit_ias) explicit_set.insert(ia.get());
    // Implicit carries in name order, then escapes in name order (as the reference orders them,
    // so the carry lists of two compilers read the same).
    std::vector<VarPtr> carried;
    std::unordered_set<const Var*> carried_seen;
    for (const auto& v : collect_assigned(body))
      if (!explicit_set.count(v.get()) && available(v.get()) && carried_seen.insert(v.get()).second) carried.push_back(v);
    std::stable_sort(carried.begin(), carried.end(), [](const VarPtr& a, const VarPtr& b) { return a->name < b->name; });
    for (const auto& v : carried) {
      ExprPtr init = env()[v.get()];
      int n = version_[v.get()]++;
      auto ia = std::make_shared<IterArg>(n == 0 ? v->name : suffixed(v->name, n), v->type, init, v->span);
      created_iter_args.insert(ia.get());
      c.iter_args.push_back(ia);
      c.implicit_names.push_back(v);
    }
    // Escapes: a name first bound in the body by a writer (`v = pl.store(t, offs, T)`, a
    // tensor.assemble / tensor.write) whose written tensor T is bound before the loop and read
    // after it. It is carried with init T: the value a zero-trip loop leaves, since the writer's
    // result is T updated. (Unread ones go again with the other unused carries.)
    std::unordered_set<const Var*> first_seen;
    std::vector<std::pair<VarPtr, const Var*>> escapes;  // (name, written tensor)
    for (const auto& st : flatten_body(body)) {
      const auto* a = as<AssignStmt>(st);
      if (!a || !first_seen.insert(a->var.get()).second) continue;
      if (explicit_set.count(a->var.get()) || available(a->var.get())) continue;
      const auto* call = as<Call>(a->value);
      const int k = call && call->op ? call->op->written_tensor : -1;
      const auto* t = k >= 0 && size_t(k) < call->args.size() ? as<Var>(call->args[size_t(k)]) : nullptr;
      if (!t || !available(t) || print_type(env()[t]->type) != print_type(a->var->type)) continue;
      escapes.emplace_back(a->var, t);
    }
    std::stable_sort(escapes.begin(), escapes.end(), [](const auto& a, const auto& b) { return a.first->name < b.first->name; });
    for (const auto& [v, t] : escapes) {
      int n = version_[v.get()]++;
      auto ia = std::make_shared<IterArg>(n == 0 ? v->name : suffixed(v->name, n), v->type, env()[t], v->span);
      created_iter_args.insert(ia.get());
      c.iter_args.push_back(ia);
      c.implicit_names.push_back(v);
    }
    // Bind inside the body.
    for (size_t i = 0; i < explicit_ias.size(); ++i) env()[explicit_ias[i].get()] = c.iter_args[i];
    for (size_t i = 0; i < c.implicit_names.size(); ++i)
      env()[c.implicit_names[i].get()] = c.iter_args[explicit_ias.size() + i];
    return c;
  }

  // After the body: builds the yield, restores the outer env and binds the return_vars.
  StmtPtr finish_loop_body(const Carries& c, const std::vector<VarPtr>& explicit_rvs, const Env& pre,
                           const StmtPtr& body, std::vector<StmtPtr> stmts, std::vector<ExprPtr> yield_vals,
                           const Span& at, std::vector<VarPtr>& rvs_out) {
    for (const auto& v : c.implicit_names) yield_vals.push_back(env()[v.get()]);
    Env inner_end = env();
    env() = pre;
    for (const auto& rv : explicit_rvs) rvs_out.push_back(define(rv));
    for (const auto& v : c.implicit_names) rvs_out.push_back(define(v));
    // Names first bound inside the body are out of scope after the loop.
    for (const auto& v : collect_assigned(body))
      if (!available(v.get())) env()[v.get()] = nullptr;
    if (!yield_vals.empty()) stmts.push_back(std::make_shared<YieldStmt>(std::move(yield_vals), at));
    (void)inner_end;
    return make_body(std::move(stmts), at);
  }

  void convert_for(const std::shared_ptr<const ForStmt>& s, std::vector<StmtPtr>& out) {
    ExprPtr start = sub(s->start, s->span), stop = sub(s->stop, s->span), step = sub(s->step, s->span);
    Env pre = env();
    Carries c = setup_carries(s->iter_args, s->body, s->span);
    VarPtr lv = define(s->loop_var);
    auto [stmts, y] = split_trailing_yield(s->body);
    std::vector<StmtPtr> conv = convert_block(stmts);
    std::vector<ExprPtr> yv;
    if (y) yv = sub_list(y->values, y->span);
    // the loop var is out of scope after the loop
    std::vector<VarPtr> rvs;
    StmtPtr body = finish_loop_body(c, s->return_vars, pre, s->body, std::move(conv), std::move(yv),
                                    y ? y->span : s->span, rvs);
    out.push_back(with_comments(std::make_shared<ForStmt>(lv, start, stop, step, c.iter_args, body, std::move(rvs),
                                                          s->kind, s->span, s->stage), *s));
  }

  void convert_while(const std::shared_ptr<const WhileStmt>& s, std::vector<StmtPtr>& out) {
    Env pre = env();
    Carries c = setup_carries(s->iter_args, s->body, s->span);
    ExprPtr cond = sub(s->cond, s->span);
    auto [stmts, y] = split_trailing_yield(s->body);
    std::vector<StmtPtr> conv = convert_block(stmts);
    std::vector<ExprPtr> yv;
    if (y) yv = sub_list(y->values, y->span);
    std::vector<VarPtr> rvs;
    StmtPtr body = finish_loop_body(c, s->return_vars, pre, s->body, std::move(conv), std::move(yv),
                                    y ? y->span : s->span, rvs);
    out.push_back(with_comments(std::make_shared<WhileStmt>(cond, c.iter_args, body, std::move(rvs), s->span), *s));
  }
};

// ---------------------------------------------------------------- dead carry / phi removal

// A slot: one carry of a loop or one phi of an if that ConvertToSSA created.
struct Slot {
  const Var* iter_arg = nullptr;  // loops only
  const Var* return_var = nullptr;
  std::vector<const Var*> yield_vars;  // the Vars yielded into this slot (one per arm / body)
};

class SlotCollector : public IRVisitor {
 public:
  const std::unordered_set<const Var*>& ias;
  const std::unordered_set<const Var*>& phis;
  std::vector<Slot> slots;
  std::unordered_map<const YieldStmt*, std::vector<bool>> slot_positions;
  SlotCollector(const std::unordered_set<const Var*>& a, const std::unordered_set<const Var*>& p) : ias(a), phis(p) {}

 protected:
  static std::shared_ptr<const YieldStmt> trailing(const StmtPtr& b) { return split_trailing_yield(b).second; }
  void mark(const std::shared_ptr<const YieldStmt>& y, size_t i, Slot& slot) {
    if (!y || i >= y->values.size()) return;
    auto& pos = slot_positions[y.get()];
    pos.resize(y->values.size(), false);
    pos[i] = true;
    if (const auto* v = as<Var>(y->values[i])) slot.yield_vars.push_back(v);
  }
  // One slot per iter_arg this pass created on a for / while loop.
  template <typename LoopStmt>
  void collect_loop_slots(const LoopStmt& s) {
    auto y = trailing(s.body);
    for (size_t i = 0; i < s.iter_args.size(); ++i) {
      if (!ias.count(s.iter_args[i].get())) continue;
      Slot slot;
      slot.iter_arg = s.iter_args[i].get();
      slot.return_var = i < s.return_vars.size() ? s.return_vars[i].get() : nullptr;
      mark(y, i, slot);
      slots.push_back(slot);
    }
  }
  void visit_for(const ForStmt& s) override {
    collect_loop_slots(s);
    IRVisitor::visit_for(s);
  }
  void visit_while(const WhileStmt& s) override {
    collect_loop_slots(s);
    IRVisitor::visit_while(s);
  }
  void visit_if(const IfStmt& s) override {
    auto ty = trailing(s.then_body), ey = trailing(s.else_body);
    for (size_t i = 0; i < s.return_vars.size(); ++i) {
      if (!phis.count(s.return_vars[i].get())) continue;
      Slot slot;
      slot.return_var = s.return_vars[i].get();
      mark(ty, i, slot);
      mark(ey, i, slot);
      slots.push_back(slot);
    }
    IRVisitor::visit_if(s);
  }
};

// Uses that are not a created slot's yield value.
class RealUseCollector : public IRVisitor {
 public:
  const std::unordered_map<const YieldStmt*, std::vector<bool>>& pos;
  std::unordered_map<const Var*, int> uses;
  explicit RealUseCollector(const std::unordered_map<const YieldStmt*, std::vector<bool>>& p) : pos(p) {}

 protected:
  void visit_var(const Var& v) override { ++uses[&v]; }
  void visit_iter_arg(const IterArg& v) override { ++uses[&v]; }
  void visit_yield(const YieldStmt& s) override {
    auto it = pos.find(&s);
    for (size_t i = 0; i < s.values.size(); ++i)
      if (it == pos.end() || i >= it->second.size() || !it->second[i]) visit(s.values[i]);
  }
};

// Removes dead slots (iter_arg / return_var / yield position) from loops and ifs.
class SlotRemover : public IRMutator {
 public:
  const std::unordered_set<const Var*>& dead;  // iter_args or return_vars of dead slots
  explicit SlotRemover(const std::unordered_set<const Var*>& d) : dead(d) {}

 protected:
  static StmtPtr drop_yield(const StmtPtr& body, const std::vector<bool>& keep) {
    auto [stmts, y] = split_trailing_yield(body);
    if (!y) return body;
    std::vector<ExprPtr> vals;
    for (size_t i = 0; i < y->values.size(); ++i)
      if (i >= keep.size() || keep[i]) vals.push_back(y->values[i]);
    if (!vals.empty()) stmts.push_back(std::make_shared<YieldStmt>(std::move(vals), y->span));
    return make_body(std::move(stmts), body->span);
  }
  // A loop's slots after dropping the dead ones; `changed` is false when none was dead (then
  // iter_args/return_vars are the loop's own and body is only the mutated one).
  struct LoopSlots {
    std::vector<IterArgPtr> iter_args;
    std::vector<VarPtr> return_vars;
    StmtPtr body;
    bool changed = false;
  };
  template <typename LoopStmt>
  LoopSlots drop_loop_slots(const LoopStmt& s) {
    LoopSlots r;
    r.body = mutate(s.body);
    std::vector<bool> keep;
    for (size_t i = 0; i < s.iter_args.size(); ++i) {
      bool k = !dead.count(s.iter_args[i].get());
      keep.push_back(k);
      r.changed |= !k;
      if (k) {
        r.iter_args.push_back(s.iter_args[i]);
        if (i < s.return_vars.size()) r.return_vars.push_back(s.return_vars[i]);
      }
    }
    if (r.changed) r.body = drop_yield(r.body, keep);
    else r.return_vars = s.return_vars;
    return r;
  }
  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    LoopSlots r = drop_loop_slots(*s);
    if (!r.changed && r.body == s->body) return s;
    return with_comments(std::make_shared<ForStmt>(s->loop_var, s->start, s->stop, s->step, r.iter_args, r.body,
                                                   r.return_vars, s->kind, s->span, s->stage), *s);
  }
  StmtPtr mutate_while(const std::shared_ptr<const WhileStmt>& s) override {
    LoopSlots r = drop_loop_slots(*s);
    if (!r.changed && r.body == s->body) return s;
    return with_comments(std::make_shared<WhileStmt>(s->cond, r.iter_args, r.body, r.return_vars, s->span), *s);
  }
  StmtPtr mutate_if(const std::shared_ptr<const IfStmt>& s) override {
    StmtPtr t = mutate(s->then_body), e = mutate(s->else_body);
    std::vector<bool> keep;
    std::vector<VarPtr> rvs;
    bool any = false;
    for (const auto& rv : s->return_vars) {
      bool k = !dead.count(rv.get());
      keep.push_back(k);
      any |= !k;
      if (k) rvs.push_back(rv);
    }
    if (!any && t == s->then_body && e == s->else_body) return s;
    if (any) {
      t = drop_yield(t, keep);
      if (e) e = drop_yield(e, keep);
      // An else arm that only yielded is no longer needed.
      if (e && rvs.empty() && flatten_body(e).empty()) e = nullptr;
    } else {
      rvs = s->return_vars;
    }
    return with_comments(std::make_shared<IfStmt>(s->cond, t, e, rvs, s->span), *s);
  }
};

StmtPtr remove_dead_slots(const StmtPtr& body, const Converter& conv) {
  SlotCollector sc(conv.created_iter_args, conv.created_phis);
  sc.visit(body);
  if (sc.slots.empty()) return body;
  RealUseCollector ru(sc.slot_positions);
  ru.visit(body);
  std::unordered_map<const Var*, size_t> owner;  // iter_arg/return_var → slot index
  for (size_t i = 0; i < sc.slots.size(); ++i) {
    if (sc.slots[i].iter_arg) owner[sc.slots[i].iter_arg] = i;
    if (sc.slots[i].return_var) owner[sc.slots[i].return_var] = i;
  }
  std::vector<bool> live(sc.slots.size(), false);
  std::vector<size_t> work;
  auto used = [&](const Var* v) { return v && ru.uses.count(v) && ru.uses.at(v) > 0; };
  for (size_t i = 0; i < sc.slots.size(); ++i)
    if (used(sc.slots[i].iter_arg) || used(sc.slots[i].return_var)) {
      live[i] = true;
      work.push_back(i);
    }
  while (!work.empty()) {
    size_t i = work.back();
    work.pop_back();
    for (const Var* y : sc.slots[i].yield_vars) {
      auto it = owner.find(y);
      if (it != owner.end() && !live[it->second]) {
        live[it->second] = true;
        work.push_back(it->second);
      }
    }
  }
  std::unordered_set<const Var*> dead;
  for (size_t i = 0; i < sc.slots.size(); ++i)
    if (!live[i]) {
      if (sc.slots[i].iter_arg) dead.insert(sc.slots[i].iter_arg);
      if (sc.slots[i].return_var) dead.insert(sc.slots[i].return_var);
    }
  if (dead.empty()) return body;
  SlotRemover rm(dead);
  return rm.mutate(body);
}

FunctionPtr convert_function(const FunctionPtr& f) {
  Converter c;
  FunctionPtr g = c.run(f);
  StmtPtr body = remove_dead_slots(g->body, c);
  if (body == g->body) return g;
  return with_body(*g, body);
}

}  // namespace

Pass convert_to_ssa_pass() {
  return Pass{"ConvertToSSA",
              "Renames every rebinding to a new Var, builds if-phis (IfStmt return_vars + yields in both "
              "arms) and loop carries (iter_args initialised from the outer value, yielded at the end of "
              "the body, return_vars bound after the loop); carries and phis nobody reads are dropped.",
              {{}, {Property::SSAForm}, {}},
              [](const ProgramPtr& p, PassContext&) { return map_functions(p, convert_function); }};
}

}  // namespace pypto::passes
