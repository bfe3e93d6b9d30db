// CheckOrchestrationForms — rejects, at their source line and before emission, the orchestration
// forms the PTO2 back end cannot write yet, so that the orchestration emitter only translates:
//   * the rules both back ends share (form_rules.h): `break` / `continue` (CtrlFlowTransform
//     has rewritten those of orchestration loops), an
//     early `return`, pl.pipeline loops, tuple values bound to variables, `**` and
//     floating-point `//` / `%`, a loop / if whose carried tensor changes buffers;
//   * scopes other than runtime scopes (after MaterializeRuntimeScopes every scope is one);
//   * tensor ops with no orchestration form (a tensor op outside a pl.at scope that is not a
//     creation, view, dim query or element access) and pl.tile / system ops in orchestration
//     (but the TaskId ops the registry marks orchestration: task_dummy, task_invalid, task_is_valid);
//   * tensor creations with a non-ND layout or an element type the runtime has no DataType for;
//   * views and element access whose index lists are not literal lists, transposes with
//     non-constant axes, slices with a valid_shape;
//   * a tensor creation, element read or dim query whose result is unused (an expression
//     statement);
//   * calls to functions other than AIV / AIC kernels, kernel calls whose results are not tensors
//     or outnumber the kernel's Out / InOut parameters (a kernel that declares a result it does
//     not return), and a second Orchestration function in the program (the runtime has one entry);
//   * parameters that are neither tensors nor scalars, and entry parameters the runner's program
//     table cannot describe: an element type the runtime has no DataType for, a tensor of rank
//     above 5.
// Each is an E501 "not supported yet" error naming the form. The program is not changed.
// Requires RuntimeScopesMaterialized (it runs right after MaterializeRuntimeScopes).
#include <fmt/format.h>

#include <algorithm>

#include "ir/op_registry.h"
#include "passes/form_rules.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

bool literal_list(const ExprPtr& e) { return e && as<MakeTuple>(e) != nullptr; }

class FormChecker : public FormRules {
 public:
  explicit FormChecker(const Program& p) : program_(p) {}

  [[noreturn]] void reject(const Span& sp, const std::string& what, const std::string& hint = {}) override {
    throw CompileError("E501", sp, what + " is not supported yet in orchestration code", hint);
  }

 protected:
  void visit_scope(const ScopeStmt& s) override {
    if (s.scope != ScopeKind::Runtime)
      reject(s.span, fmt::format("a {} scope", to_string(s.scope)), "run the full pass pipeline (it outlines kernels)");
    FormRules::visit_scope(s);
  }

  void visit_eval(const EvalStmt& s) override {
    const auto* c = as<Call>(s.expr);
    if (c && c->op && (c->is_op("tensor.create") || as_scalar(c->type)))
      reject(s.span, fmt::format("pl.{} with an unused result", c->op->name), "assign the result to a variable and use it");
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
      if (f && f->type != FunctionType::AIV && f->type != FunctionType::AIC)
        reject(sp, fmt::format("a call to '{}' (function type {})", c.callee, to_string(f->type)),
               "call kernels (pl.at scopes or InCore functions) from the orchestration function");
      if (f) check_kernel_result(c, *f);
      if (c.dispatch) {
        const Dispatch& d = *c.dispatch;
        if (d.spmd || d.core_num || d.sync_start || !d.dumps.empty() || d.allow_early_resolve || d.predicate || d.device)
          reject(sp, fmt::format("a dispatch option of the call to '{}' other than deps=, `as tid` and pl.no_dep",
                                 c.callee));
        for (const auto& dep : d.deps)
          if (const auto* t = as_scalar(dep->type); !t || t->dtype != DataType::TASK_ID)
            reject(dep->span, "a dependency that is not a TaskId");
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
      if (const AttrValue* iv = c.kwarg("init_value"); iv && !std::holds_alternative<std::monostate>(*iv))
        reject(sp, "pl.create_tensor(..., init_value=)",
               "PTO2's alloc_tensors does not pre-fill; write the initial value with pl.full + pl.assemble");
      if (t && dtype_runtime_name(t->dtype).empty())
        reject(sp, fmt::format("a {} tensor", dtype_name(t->dtype)));
      return;
    }
    for (size_t i = 1; i < c.args.size(); ++i)
      if (i < c.op->args.size() && c.op->args[i].kind == ArgKind::IndexList && c.args[i] && !literal_list(c.args[i]))
        reject(sp, fmt::format("pl.{} with a non-literal index list", n));
    if (n == "tensor.slice" && c.args.size() > 3 && c.args[3]) reject(sp, "pl.tensor.slice with a valid_shape");
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
              "continue / early return, pipeline loops, tuple values, float floor division, scopes other "
              "than runtime scopes, tensor ops outside pl.at without an orchestration form, tile and system ops, "
              "non-ND or runtime-less tensor creations, non-literal index lists, non-constant axes, slices with a "
              "valid_shape, unused creations / reads, calls to non-kernels, a second orchestration function, odd "
              "parameters, entry parameters of runtime-less element types or rank above 5, element types without "
              "a C++ spelling, dynamic dimensions no parameter carries); changes nothing.",
              {{Property::RuntimeScopesMaterialized}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                check_program(*p);
                return p;
              }};
}

}  // namespace pypto::passes
