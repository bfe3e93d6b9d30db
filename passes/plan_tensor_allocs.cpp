// PlanTensorAllocs — decides how the tensor.create statements of an orchestration function become
// the runtime's allocations (`TaskOutputTensors alloc_N = alloc_tensors(ci...)`, one call per
// batch), so that the orchestration emitter only prints the plan:
//   * in every runtime scope, the creations with a static shape among the scope's own statements
//     are hoisted, in their order, to the top of the scope and form one batch, allocated together
//     when the scope opens (they depend on nothing, so moving them up changes no data flow);
//   * every other creation (a dynamic shape, whose dimensions may be computed inside the scope, or
//     one nested in a loop / if body of the scope) is a batch of its own, where it stands;
//   * each creation records its batch as `alloc_batch=N`; N numbers the batches of a function in
//     the order the generated code reaches them (a scope's batch before the statements after it),
//     and the emitter names the batch's TaskOutputTensors `alloc_N`. An alloc_batch already
//     present is replaced.
// A creation marked runtime_output=True (a trailing Out tensor an orchestration call leaves out)
// gets no batch: the runtime allocates it at its writer's submit. Kernels are untouched. Requires
// RuntimeScopesMaterialized; produces TensorAllocsPlanned (the creations of one batch are
// consecutive statements of one body).
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

// The tensor.create call assigned by `s`, or nullptr. A runtime_output creation is none: the
// runtime allocates it when its writer's task is submitted (add_output(TensorCreateInfo)).
const Call* create_of(const StmtPtr& s) {
  const auto* a = as<AssignStmt>(s);
  const auto* c = a ? as<Call>(a->value) : nullptr;
  return c && c->is_op("tensor.create") && !c->kwarg_true("runtime_output") ? c : nullptr;
}

bool static_create(const StmtPtr& s) {
  if (!create_of(s)) return false;
  const auto* t = as_tensor(static_cast<const AssignStmt&>(*s).var->type);
  return t && static_shape(t->shape);
}

// `s` (an assignment of a tensor.create) with its alloc_batch set to `batch`.
StmtPtr with_batch(const StmtPtr& s, int64_t batch) {
  const auto& a = static_cast<const AssignStmt&>(*s);
  const Call& c = *create_of(s);
  auto kwargs = c.kwargs;
  bool found = false;
  for (auto& [k, v] : kwargs)
    if (k == "alloc_batch") {
      v = batch;
      found = true;
    }
  if (!found) kwargs.emplace_back("alloc_batch", batch);
  auto call = std::make_shared<Call>(c.op, c.callee, c.args, std::move(kwargs), c.type, c.span, c.arg_directions);
  call->dispatch = c.dispatch;
  return with_comments(std::make_shared<AssignStmt>(a.var, call, a.span), a);
}

class Planner : public IRMutator {
 protected:
  StmtPtr mutate_scope(const std::shared_ptr<const ScopeStmt>& s) override {
    if (s->scope != ScopeKind::Runtime) return IRMutator::mutate_scope(s);
    std::vector<StmtPtr> hoisted, rest;
    for (const auto& st : flatten_body(s->body)) (static_create(st) ? hoisted : rest).push_back(st);
    std::vector<StmtPtr> body;
    if (!hoisted.empty()) {
      const int64_t batch = next_++;  // taken before the statements after it
      for (const auto& st : hoisted) body.push_back(with_batch(st, batch));
    }
    for (const auto& st : rest) body.push_back(mutate(st));
    auto n = std::make_shared<ScopeStmt>(*s);
    n->body = make_body(std::move(body), s->body->span);
    return n;
  }
  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    if (create_of(s)) return with_batch(s, next_++);
    return IRMutator::mutate_assign(s);
  }

 private:
  int64_t next_ = 0;
};

}  // namespace

Pass plan_tensor_allocs_pass() {
  return Pass{"PlanTensorAllocs",
              "Groups the orchestration's tensor.create statements into alloc_tensors batches: a runtime "
              "scope's own static-shape creations are hoisted to its top as one batch, every other creation "
              "is a batch of its own where it stands; each records its batch as alloc_batch=N.",
              {{Property::RuntimeScopesMaterialized}, {Property::TensorAllocsPlanned}, {}},
              [](const ProgramPtr& p, PassContext&) {
                return map_functions(p, [](const FunctionPtr& f) -> FunctionPtr {
                  if (f->type != FunctionType::Orchestration) return f;
                  Planner planner;
                  return planner.mutate_function(f);
                });
              }};
}

}  // namespace pypto::passes
