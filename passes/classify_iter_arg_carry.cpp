// ClassifyIterArgCarry — how each orchestration loop carry is emitted. A tensor carry whose yield
// is the buffer it carries in (the usual in-place carry: a kernel writes the tensor and the loop
// yields the call's result) is an alias: the carried name is that buffer's handle. A carry whose
// yield holds another buffer (ping-pong buffers, `src, dst = dst, src`, or a buffer each iteration
// makes: qwen3's `nxt = pl.create_tensor(...); cur = layer(cur, ..., nxt)`) is a rebind
// (IterArg::rebind): the emitter keeps a mutable ChipTensor for it and assigns it at each yield,
// so the runtime sees each iteration's tasks on the buffers they really touch. A buffer the loop
// body makes has its C++ handle in the block that makes it, while MaterializeRuntimeScopes leaves
// the yield after the body's runtime scope; so the yield moves into that scope (into the innermost
// trailing scope whose statements make the buffers it hands on), where the handle still exists.
// The buffer itself belongs to the iteration's runtime scope, as the program wrote it: the runtime
// keeps it while the next iteration's tasks use it. A buffer made deeper (inside an if, a nested
// loop or a scope that does not end the body) is a located error, as is a carry taking the result
// of an inner loop whose carry changes buffer (a nest of rebinding loops). Kernel loops are untouched
// (their carries never change buffer; CheckKernelForms rejects one that would). Requires
// RuntimeScopesMaterialized (it runs right after MaterializeRuntimeScopes, as the reference's does);
// produces IterArgCarryClassified.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/tensor_roots.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

class Classify : public IRMutator {
 public:
  explicit Classify(const TensorRoots& roots) {
    for (const auto& c : roots.conflicts())
      if (c.loop) changes_[c.target] = &c;
  }

 protected:
  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    ExprPtr a = mutate(s->start), b = mutate(s->stop), c = mutate(s->step);
    std::vector<IterArgPtr> ias;
    std::vector<const TensorRoots::Conflict*> made;
    bool changed = classify(s->iter_args, s->body, ias, made) || a != s->start || b != s->stop || c != s->step;
    StmtPtr body = place_yield(mutate(s->body), made);
    if (!changed && body == s->body) return s;
    return with_comments(std::make_shared<ForStmt>(s->loop_var, a, b, c, std::move(ias), body, s->return_vars, s->kind,
                                                   s->span, s->stage), *s);
  }
  StmtPtr mutate_while(const std::shared_ptr<const WhileStmt>& s) override {
    std::vector<IterArgPtr> ias;
    std::vector<const TensorRoots::Conflict*> made;
    bool changed = classify(s->iter_args, s->body, ias, made);
    ExprPtr c = mutate(s->cond);
    StmtPtr body = place_yield(mutate(s->body), made);
    if (!changed && c == s->cond && body == s->body) return s;
    return with_comments(std::make_shared<WhileStmt>(c, std::move(ias), body, s->return_vars, s->span), *s);
  }

 private:
  // The loop's carries with their classification; true when one changed. `made`: the rebinding
  // carries whose yield hands on a buffer the body makes.
  bool classify(const std::vector<IterArgPtr>& in, const StmtPtr& body, std::vector<IterArgPtr>& out,
                std::vector<const TensorRoots::Conflict*>& made) {
    require_no_nested_rebind(in, body);
    bool changed = false;
    for (const auto& ia : in) {
      ExprPtr init = mutate(ia->init);
      auto it = changes_.find(ia.get());
      const bool rebind = it != changes_.end();
      if (rebind && made_in(it->second->other, body)) made.push_back(it->second);
      if (init == ia->init && rebind == ia->rebind) {
        out.push_back(ia);
        continue;
      }
      auto fresh = std::make_shared<IterArg>(ia->name, ia->type, init, ia->span);
      fresh->rebind = rebind;
      var_map[ia.get()] = fresh;
      out.push_back(fresh);
      changed = true;
    }
    return changed;
  }

  static bool made_in(const Var* v, const StmtPtr& body) {
    for (const AssignStmt* a : collect_assign_stmts(body))
      if (a->var.get() == v) return true;
    return false;
  }

  // Whether `s` binds `v`: its target, or one of an if's / loop's results.
  static bool binds(const StmtPtr& s, const Var* v) {
    auto in = [&](const std::vector<VarPtr>& rvs) {
      return std::any_of(rvs.begin(), rvs.end(), [&](const VarPtr& r) { return r.get() == v; });
    };
    if (const auto* a = as<AssignStmt>(s)) return a->var.get() == v;
    if (const auto* i = as<IfStmt>(s)) return in(i->return_vars);
    if (const auto* f = as<ForStmt>(s)) return in(f->return_vars);
    if (const auto* w = as<WhileStmt>(s)) return in(w->return_vars);
    return false;
  }

  // The body with its trailing yield moved into the innermost trailing runtime scope that makes a
  // buffer in `made` (the body's statements, then its last statement's when that is a runtime
  // scope, and so on); unchanged when the body's own statements make them all.
  static StmtPtr place_yield(const StmtPtr& body, const std::vector<const TensorRoots::Conflict*>& made) {
    if (made.empty()) return body;
    auto [top, y] = split_trailing_yield(body);
    if (!y) return body;
    std::vector<std::vector<StmtPtr>> levels{top};
    std::vector<const ScopeStmt*> scopes;  // scopes[k] is the last statement of levels[k]
    while (!levels.back().empty()) {
      const auto* sc = as<ScopeStmt>(levels.back().back());
      if (!sc || sc->scope != ScopeKind::Runtime) break;
      scopes.push_back(sc);
      levels.push_back(flatten_body(sc->body));
    }
    size_t depth = 0;
    for (const TensorRoots::Conflict* c : made) {
      size_t d = 0;
      while (d < levels.size() &&
             std::none_of(levels[d].begin(), levels[d].end(), [&](const StmtPtr& s) { return binds(s, c->other); }))
        ++d;
      if (d == levels.size())
        throw CompileError("E501", c->span,
                           fmt::format("the loop carrying '{}' yields '{}', a tensor made inside a nested block of "
                                       "the loop body; its handle ends with that block, before the next iteration",
                                       c->target->name, c->other->name),
                           "make the tensor at the top of the loop body (or of its pl.scope), or before the loop");
      depth = std::max(depth, d);
    }
    if (depth == 0) return body;
    std::vector<StmtPtr> inner = levels[depth];
    inner.push_back(y);
    for (size_t k = depth; k-- > 0;) {
      auto sc = std::make_shared<ScopeStmt>(*scopes[k]);
      sc->body = make_body(inner, scopes[k]->body->span);
      inner = levels[k];
      inner.back() = sc;
    }
    return make_body(inner, body->span);
  }

  // A carry whose yield is the result of an inner loop whose own carry changes buffer: that
  // carry's handle lives in this loop's body (its runtime scope), so the nest is rejected.
  void require_no_nested_rebind(const std::vector<IterArgPtr>& carries, const StmtPtr& body) const {
    const YieldStmt* y = body ? trailing_yield(body) : nullptr;
    if (!y) return;
    // Each inner loop's results, with the carries they leave the loop through.
    struct Inner : IRVisitor {
      std::unordered_map<const Var*, const IterArg*> carry_of;
      void loop(const std::vector<VarPtr>& rvs, const std::vector<IterArgPtr>& ias) {
        for (size_t i = 0; i < rvs.size() && i < ias.size(); ++i) carry_of[rvs[i].get()] = ias[i].get();
      }
      void visit_for(const ForStmt& f) override {
        loop(f.return_vars, f.iter_args);
        IRVisitor::visit_for(f);
      }
      void visit_while(const WhileStmt& w) override {
        loop(w.return_vars, w.iter_args);
        IRVisitor::visit_while(w);
      }
    } inner;
    inner.visit(body);
    for (size_t k = 0; k < carries.size() && k < y->values.size(); ++k) {
      const auto* v = as<Var>(y->values[k]);
      auto it = v ? inner.carry_of.find(v) : inner.carry_of.end();
      if (it != inner.carry_of.end() && changes_.count(it->second))
        throw CompileError("E501", y->span,
                           fmt::format("the loop carrying '{}' yields '{}', the result of an inner loop whose carried "
                                       "tensor changes buffer; such a nest is not supported yet", carries[k]->name, v->name),
                           "alternate the buffers in one loop, or keep each carried tensor in its own buffer");
    }
  }

  std::unordered_map<const Var*, const TensorRoots::Conflict*> changes_;
};

ProgramPtr classify_program(const ProgramPtr& p) {
  return map_functions(p, [&](const FunctionPtr& f) {
    if (f->type != FunctionType::Orchestration) return f;
    const TensorRoots roots(*p, *f);
    Classify c(roots);
    return c.mutate_function(f);
  });
}

}  // namespace

Pass classify_iter_arg_carry_pass() {
  return Pass{"ClassifyIterArgCarry",
              "Marks each orchestration loop carry an alias (its yield is the buffer it carries in) or a rebind "
              "(the yield holds another buffer, such as ping-pong buffers), which the emitter keeps in a mutable "
              "ChipTensor; a loop body's yield that hands on a buffer the body makes moves into the body's "
              "runtime scope, where the buffer's handle is.",
              {{Property::RuntimeScopesMaterialized}, {Property::IterArgCarryClassified}, {}},
              [](const ProgramPtr& p, PassContext&) { return classify_program(p); }};
}

}  // namespace pypto::passes
