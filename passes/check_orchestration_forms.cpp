// CheckOrchestrationForms — rejects, at their source line and before emission, the orchestration
// forms the PTO2 back end cannot write yet, so that the orchestration emitter only translates:
//   * the rules both back ends share (form_rules.h): `break` / `continue` (CtrlFlowTransform
//     has rewritten those of orchestration loops), an early `return`, tuple values bound to
//     variables, `**` and floating-point `//` / `%`, a loop / if whose carried tensor changes buffers;
//   * scopes other than runtime scopes (after MaterializeRuntimeScopes every scope is one);
//   * tensor ops with no orchestration form (a tensor op outside a pl.at scope that is not a
//     creation, view, dim query or element access) and pl.tile / system ops in orchestration
//     (but the TaskId ops the registry marks orchestration: task_dummy, task_invalid, task_is_valid);
//   * tensor creations with a non-ND layout or an element type the runtime has no DataType for;
//   * views and element access whose index lists are not literal lists, transposes with
//     non-constant axes (a slice's valid_shape is the kernels' business: the runtime view is the
//     window's shape and offset, as in the reference);
//   * a tensor creation, element read, dim query or array op whose result is unused (an
//     expression statement);
//   * calls to functions other than AIV / AIC kernels, kernel calls whose results are not tensors
//     or outnumber the kernel's Out / InOut parameters (a kernel that declares a result it does
//     not return), and a second Orchestration function in the program (the runtime has one entry);
//   * array programs whose in-place C++ arrays would not mean what the SSA program says: a read
//     of an older value of an array once it has been updated, an update inside a loop of an array
//     the loop does not carry, a loop / if carrying one array in and another out (ArrayVersions);
//   * parameters that are neither tensors nor scalars, and entry parameters the runner's program
//     table cannot describe: an element type the runtime has no DataType for, a tensor of rank
//     above 5.
// Each is an E501 "not supported yet" error naming the form. The program is not changed.
// Requires RuntimeScopesMaterialized and IterArgCarryClassified (a loop carry marked a rebind may
// change buffer; any other carry that would is rejected).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "ir/op_registry.h"
#include "passes/form_rules.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

bool literal_list(const ExprPtr& e) { return e && as<MakeTuple>(e) != nullptr; }

// Arrays (pl.array.create: TaskIds for deps=, counters) are C++ stack arrays updated in place:
// array.update_element writes the array its operand names, a copy, a loop carry or an if result
// is the array it stands for. That means what the SSA program says only while no older value of
// an array is read once a newer one exists; ArrayVersions rejects the programs where one would
// be, and those that would make one loop carry or if result two arrays.
class ArrayVersions {
 public:
  explicit ArrayVersions(std::function<void(const Span&, const std::string&, const std::string&)> reject)
      : reject_(std::move(reject)) {}

  void stmt(const StmtPtr& s) {
    if (!s) return;
    switch (s->kind) {
      case NodeKind::SeqStmts:
        for (const auto& c : as<SeqStmts>(s)->stmts) stmt(c);
        break;
      case NodeKind::ScopeStmt: block(as<ScopeStmt>(s)->body); break;
      case NodeKind::AssignStmt: assign(*as<AssignStmt>(s)); break;
      case NodeKind::EvalStmt: read(as<EvalStmt>(s)->expr, s->span); break;
      case NodeKind::YieldStmt:
        for (const auto& v : as<YieldStmt>(s)->values) read(v, s->span);
        break;
      case NodeKind::ReturnStmt:
        for (const auto& v : as<ReturnStmt>(s)->values) read(v, s->span);
        break;
      case NodeKind::ForStmt: {
        const auto* f = as<ForStmt>(s);
        read(f->start, s->span), read(f->stop, s->span), read(f->step, s->span);
        loop(f->iter_args, f->body, f->return_vars, s->span, nullptr);
        break;
      }
      case NodeKind::WhileStmt: {
        const auto* w = as<WhileStmt>(s);
        loop(w->iter_args, w->body, w->return_vars, s->span, w->cond);
        break;
      }
      case NodeKind::IfStmt: if_stmt(*as<IfStmt>(s)); break;
      default: break;
    }
  }

 private:
  using Versions = std::unordered_map<const Var*, std::unordered_set<const Var*>>;  // array → its current values

  // A body printed as a C++ block (a scope, a loop or if body): arrays created in it end with it.
  void block(const StmtPtr& b) {
    path_.push_back(next_block_++);
    stmt(b);
    path_.pop_back();
  }

  const Var* root(const Var* v) const {
    auto it = root_.find(v);
    return it == root_.end() ? nullptr : it->second;
  }
  void bind(const Var* v, const Var* r, int depth) { root_[v] = r, depth_[v] = depth; }

  // Every array value `e` reads must be current.
  void read(const ExprPtr& e, const Span& sp) {
    if (!e) return;
    struct Arrays : IRVisitor {
      std::vector<const Var*> vars;
      void visit_var(const Var& v) override {
        if (as_array(v.type)) vars.push_back(&v);
      }
      void visit_iter_arg(const IterArg& v) override {
        if (as_array(v.type)) vars.push_back(&v);
        IRVisitor::visit_iter_arg(v);
      }
      void visit_call(const Call& c) override {
        IRVisitor::visit_call(c);
        if (c.dispatch)
          for (const auto& x : c.dispatch->exprs()) visit(x);
      }
    } a;
    a.visit(e);
    for (const Var* v : a.vars) current(v, sp);
  }
  void current(const Var* v, const Span& sp) {
    const Var* r = root(v);
    if (!r) return reject_(sp, fmt::format("an array value ('{}') that does not come from pl.array.create", v->name), "");
    const auto& made = made_in_[r];
    if (made.size() > path_.size() || !std::equal(made.begin(), made.end(), path_.begin()))
      reject_(sp, fmt::format("a read of '{}' outside the loop / if / scope body that created the array", v->name),
              "create the array (pl.array.create) before the loop, if or scope");
    if (!cur_[r].count(v))
      reject_(sp, fmt::format("a read of '{}', an older value of the array updated in place since", v->name),
              "read the array's latest value (the result of its last update)");
  }

  void assign(const AssignStmt& s) {
    const Var* v = s.var.get();
    const auto* c = as<Call>(s.value);
    if (c && c->is_op("array.create")) {
      bind(v, v, loops_);
      cur_[v] = {v};
      made_in_[v] = path_;
      return;
    }
    if (c && c->is_op("array.update_element") && !c->args.empty()) {
      const auto* a = as<Var>(c->args[0]);
      if (!a) return reject_(s.span, "an array update of a computed array", "");
      current(a, s.span);
      for (size_t i = 1; i < c->args.size(); ++i) read(c->args[i], s.span);
      if (depth_[a] != loops_)
        reject_(s.span, fmt::format("an update, inside a loop, of '{}', an array the loop does not carry", a->name),
                "carry the array through the loop: rebind the same name (tids[i] = t) so the loop yields it");
      bind(v, root(a), loops_);
      cur_[root(a)] = {v};
      return;
    }
    if (const auto* a = as<Var>(s.value); a && as_array(a->type)) {  // a copy: the same array
      current(a, s.span);
      bind(v, root(a), depth_[a]);
      cur_[root(a)].insert(v);
      return;
    }
    read(s.value, s.span);
    if (as_array(v->type)) reject_(s.span, fmt::format("an array ('{}') made by this expression", v->name), "");
  }

  // The trailing yield's value at `k` carries the array of `carry`.
  void yields_same(const StmtPtr& body, size_t k, const Var* r, const Span& sp, const char* what) {
    const YieldStmt* y = trailing_yield(body);
    const auto* yv = y && k < y->values.size() ? as<Var>(y->values[k]) : nullptr;
    if (!yv || root(yv) != r) reject_(sp, fmt::format("{} that carries one array in and another out", what), "");
  }

  // Whether the trailing yield's value at `k` is an array created in the loop body (the block
  // numbered `body_block`, or one inside it): the emitter copies its slots into the carried array
  // at the end of each iteration (a rebind: the next iteration waits on what this one made).
  bool made_in_body(const StmtPtr& body, size_t k, int body_block) const {
    const YieldStmt* y = trailing_yield(body);
    const auto* yv = y && k < y->values.size() ? as<Var>(y->values[k]) : nullptr;
    const Var* r = yv ? root(yv) : nullptr;
    auto it = r ? made_in_.find(r) : made_in_.end();
    if (it == made_in_.end() || it->second.size() <= path_.size()) return false;
    return std::equal(path_.begin(), path_.end(), it->second.begin()) && it->second[path_.size()] == body_block;
  }

  void loop(const std::vector<IterArgPtr>& ias, const StmtPtr& body, const std::vector<VarPtr>& rvs, const Span& sp,
            const ExprPtr& cond) {
    for (const auto& ia : ias) {
      if (!as_array(ia->type)) {
        read(ia->init, sp);
        continue;
      }
      const auto* init = as<Var>(ia->init);
      if (!init) return reject_(sp, "a loop carrying a computed array", "");
      current(init, sp);
      bind(ia.get(), root(init), loops_ + 1);
      cur_[root(init)] = {ia.get()};
    }
    ++loops_;
    read(cond, sp);
    const int body_block = next_block_;
    block(body);
    --loops_;
    for (size_t k = 0; k < ias.size(); ++k) {
      if (!as_array(ias[k]->type)) continue;
      const Var* r = root(ias[k].get());
      if (!made_in_body(body, k, body_block)) yields_same(body, k, r, sp, "a loop");
      if (k < rvs.size()) {
        bind(rvs[k].get(), r, loops_);
        cur_[r] = {rvs[k].get()};
      }
    }
  }

  void if_stmt(const IfStmt& s) {
    read(s.cond, s.span);
    const Versions before = cur_;
    block(s.then_body);
    const Versions then_cur = cur_;
    cur_ = before;
    block(s.else_body);
    const Versions else_cur = cur_;
    cur_ = before;
    // An array a branch updated: stale after the if unless the if yields its new value.
    auto changed = [&](const Versions& after, const Var* r) {
      auto b = before.find(r);
      auto a = after.find(r);
      if (b == before.end()) return false;
      for (const Var* v : b->second)
        if (a == after.end() || !a->second.count(v)) return true;
      return false;
    };
    for (auto& [r, vs] : cur_)
      if (changed(then_cur, r) || changed(else_cur, r)) vs.clear();
    for (size_t k = 0; k < s.return_vars.size(); ++k) {
      if (!as_array(s.return_vars[k]->type)) continue;
      const YieldStmt* yt = trailing_yield(s.then_body);
      const auto* tv = yt && k < yt->values.size() ? as<Var>(yt->values[k]) : nullptr;
      const Var* r = tv ? root(tv) : nullptr;
      if (!r) return reject_(s.span, "an if yielding a computed array", "");
      yields_same(s.else_body, k, r, s.span, "an if");
      bind(s.return_vars[k].get(), r, loops_);
      cur_[r] = {s.return_vars[k].get()};
    }
  }

  std::function<void(const Span&, const std::string&, const std::string&)> reject_;
  std::unordered_map<const Var*, const Var*> root_;  // array value → the array.create result it is
  std::unordered_map<const Var*, int> depth_;        // loops around its binding
  std::unordered_map<const Var*, std::vector<int>> made_in_;  // array.create result → the blocks around it
  Versions cur_;
  int loops_ = 0;
  std::vector<int> path_;  // the blocks around the statement being checked
  int next_block_ = 0;
};

class FormChecker : public FormRules {
 public:
  explicit FormChecker(const Program& p) : program_(p) {}

  [[noreturn]] void reject(const Span& sp, const std::string& what, const std::string& hint = {}) override {
    throw CompileError("E501", sp, what + " is not supported yet in orchestration code", hint);
  }

 protected:
  // Orchestration code carries arrays too (one C++ stack array through the loop / if).
  bool carries(const TypePtr& t) const override { return FormRules::carries(t) || as_array(t); }
  void check_binding(const Var& v, const Span& sp) override {
    FormRules::check_binding(v, sp);
    if (const auto* a = as_array(v.type)) check_c_type(a->dtype, sp);
  }

  void visit_scope(const ScopeStmt& s) override {
    if (s.scope != ScopeKind::Runtime)
      reject(s.span, fmt::format("a {} scope", to_string(s.scope)), "run the full pass pipeline (it outlines kernels)");
    FormRules::visit_scope(s);
  }

  void visit_eval(const EvalStmt& s) override {
    const auto* c = as<Call>(s.expr);
    if (c && c->op && (c->is_op("tensor.create") || as_scalar(c->type) || as_array(c->type)))
      reject(s.span, fmt::format("pl.{} with an unused result", c->op->name),
             as_array(c->type) ? "assign the result: an array update is `tids[i] = v` (tids = pl.array.update_element(tids, i, v))"
                               : "assign the result to a variable and use it");
    FormRules::visit_eval(s);
  }

  // A kernel call's results are its Out / InOut tensor arguments: the kernel needs as many as it
  // returns values, and returns tensors only.
  void check_kernel_result(const Call& c, const Function& k) {
    size_t outs = 0;
    for (size_t i = 0; i < k.params.size() && i < k.param_directions.size(); ++i)
      outs += as_tensor(k.params[i]->type) && k.param_directions[i] != ParamDirection::In;
    // A submit (a scope with `as tid`) returns the task's TaskId after the tensors.
    const bool submit = c.dispatch && c.dispatch->submit;
    std::vector<TypePtr> elems;
    if (const auto* tup = as_tuple(c.type)) elems = tup->elems;
    else elems = {c.type};
    if (submit) {
      const auto* last = elems.empty() ? nullptr : as_scalar(elems.back());
      if (!last || last->dtype != DataType::TASK_ID)
        reject(c.span, fmt::format("a submit of '{}' whose result does not end with its TaskId", c.callee));
      elems.pop_back();
    }
    const bool tensors = std::all_of(elems.begin(), elems.end(), [](const TypePtr& t) { return as_tensor(t); });
    const size_t results = elems.size();
    if (!tensors)
      reject(c.span, fmt::format("a call to '{}', whose result is not a tensor or a tuple of tensors", c.callee));
    if (results > outs)
      reject(c.span, fmt::format("a call to '{}', which returns {} tensor(s) but has {} Out / InOut parameter(s)",
                                 c.callee, results, outs),
             "a kernel returns its Out / InOut parameters: pass the result tensor as a pl.Out argument");
  }

  void visit_call(const Call& c) override {
    FormRules::visit_call(c);
    const Span& sp = c.span;
    if (!c.op) {
      const auto f = program_.find(c.callee);
      if (f && f->type != FunctionType::AIV && f->type != FunctionType::AIC && !mixed_group_members(program_, *f))
        reject(sp, fmt::format("a call to '{}' (function type {})", c.callee, to_string(f->type)),
               "call kernels (pl.at scopes or InCore functions) from the orchestration function");
      if (f) check_kernel_result(c, *f);
      if (c.dispatch) {
        const Dispatch& d = *c.dispatch;
        if (!d.dumps.empty() || d.predicate || d.device)
          reject(sp, fmt::format("a dispatch option of the call to '{}' other than deps=, `as tid`, pl.no_dep, "
                                 "core_num=, sync_start= and allow_early_resolve=",
                                 c.callee));
        if (d.core_num && !as_scalar(d.core_num->type))
          reject(sp, fmt::format("a launch spec of the call to '{}' whose block count is not a scalar", c.callee));
        for (const auto& dep : d.deps) {
          const auto* t = as_scalar(dep->type);
          const auto* a = as_array(dep->type);
          if (!(t && t->dtype == DataType::TASK_ID) && !(a && a->dtype == DataType::TASK_ID))
            reject(dep->span, "a dependency that is not a TaskId or a TaskId array");
        }
      }
      return;
    }
    const std::string& n = c.op->name;
    if (n == "tensor.assemble")  // the ones FuseCreateAssembleToSlice could not turn into a slice
      reject(sp, "pl.assemble of this source",
             "an assemble compiles when its source is a pl.create_tensor that only kernels write, assembled once "
             "(without atomic=) in the same block and nothing touches the target in between: the kernel then writes "
             "the target in place; or hand the kernel the window itself, pl.slice(target, shape, offsets), as its "
             "Out argument (or put the assemble inside a `with pl.at(level=pl.Level.CORE_GROUP)` scope)");
    if (!c.op->orchestration)
      reject(sp, fmt::format("pl.{}", n),
             c.op->family() == "tensor" ? "put tensor computation inside a `with pl.at(level=pl.Level.CORE_GROUP)` scope"
                                        : std::string());
    if (n == "tensor.create") {
      const auto* t = as_tensor(c.type);
      if (const AttrValue* l = c.kwarg("layout"); l && std::get_if<TensorLayout>(l) && *std::get_if<TensorLayout>(l) != TensorLayout::ND)
        reject(sp, "pl.tensor.create with a non-ND layout");
      if (const AttrValue* iv = c.kwarg("init_value");
          iv && !std::holds_alternative<std::monostate>(*iv) && !std::get_if<double>(iv) && !std::get_if<int64_t>(iv) &&
          !std::get_if<bool>(iv))
        reject(sp, "pl.create_tensor(..., init_value=) with a value that is not a number");
      if (t && dtype_runtime_name(t->dtype).empty())
        reject(sp, fmt::format("a {} tensor", dtype_name(t->dtype)));
      return;
    }
    for (size_t i = 1; i < c.args.size(); ++i)
      if (i < c.op->args.size() && c.op->args[i].kind == ArgKind::IndexList && c.args[i] && !literal_list(c.args[i]))
        reject(sp, fmt::format("pl.{} with a non-literal index list", n));
    if (n == "tensor.transpose" || n == "tensor.dim")
      for (size_t i = 1; i < c.args.size(); ++i)
        if (!const_int_value(c.args[i])) reject(sp, fmt::format("pl.{} with a non-constant axis", n));
  }

 private:
  const Program& program_;
};

void check_program(const Program& p) {
  const Function* entry = nullptr;
  for (const auto& f : p.functions) {
    if (f->type != FunctionType::Orchestration) continue;
    FormChecker checker(p);
    if (entry)
      checker.reject(f->span, fmt::format("a second Orchestration function ('{}' after '{}')", f->name, entry->name),
                     "a program has one entry: call the kernels from one orchestration function");
    entry = f.get();
    checker.check_function(p, *f, "orchestration parameter");
    ArrayVersions([&](const Span& sp, const std::string& what, const std::string& hint) { checker.reject(sp, what, hint); })
        .stmt(f->body);
    for (const auto& prm : f->params) {
      const auto* t = as_tensor(prm->type);
      const auto* s = as_scalar(prm->type);
      const DataType dt = t ? t->dtype : s ? s->dtype : DataType::INDEX;
      if (dtype_runtime_name(dt).empty())
        checker.reject(prm->span, fmt::format("an entry parameter of element type {} ('{}')", dtype_name(dt), prm->name));
      if (t && t->shape.size() > 5)
        checker.reject(prm->span, fmt::format("an entry tensor of rank {} ('{}'; the runtime describes rank 1..5)",
                                              t->shape.size(), prm->name));
    }
  }
}

}  // namespace

Pass check_orchestration_forms_pass() {
  return Pass{"CheckOrchestrationForms",
              "Rejects, at their source line, the orchestration forms the PTO2 back end cannot write yet (break / "
              "continue / early return, stale reads of in-place arrays, tuple values, float floor division, scopes other "
              "than runtime scopes, tensor ops outside pl.at without an orchestration form, tile and system ops, "
              "non-ND or runtime-less tensor creations, non-literal index lists, non-constant axes, slices with a "
              "valid_shape, unused creations / reads, calls to non-kernels, a second orchestration function, odd "
              "parameters, entry parameters of runtime-less element types or rank above 5, element types without "
              "a C++ spelling, dynamic dimensions no parameter carries); changes nothing.",
              {{Property::RuntimeScopesMaterialized, Property::IterArgCarryClassified}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                check_program(*p);
                return p;
              }};
}

}  // namespace pypto::passes
