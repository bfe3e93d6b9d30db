// func_id numbering and entry selection (kernel_table.h).
#include "emit/kernel_table.h"

#include <fmt/format.h>

#include "ir/diagnostic.h"
#include "ir/visitor.h"

namespace pypto::emit {

using namespace ir;

const Function& entry_function(const Program& p) {
  const Function* found = nullptr;
  for (const auto& f : p.functions) {
    if (f->type != FunctionType::Orchestration) continue;
    if (found)  // CheckOrchestrationForms rejects a second one
      throw InternalError("emit", fmt::format("a program with several Orchestration functions ('{}' and '{}')",
                                              found->name, f->name), f->span);
    found = f.get();
  }
  if (!found)
    throw CompileError("E900", p.span, "the program has no Orchestration function to build a project from",
                       "add an orchestration function that calls the kernels");
  return *found;
}

// DeriveCallDirections decides every argument's direction (CallDirectionsResolved); the
// emitters only read it.
ArgDirection tensor_arg_direction(const Call& call, const Function& callee, size_t i) {
  if (i < call.arg_directions.size()) return call.arg_directions[i];
  throw InternalError("emit", fmt::format("the call to '{}' carries no direction for argument {} (run DeriveCallDirections)",
                                          callee.name, i),
                      call.span);
}

namespace {
class CallCollector : public IRVisitor {
 public:
  CallCollector(const Program& p, std::vector<KernelRef>& out) : p_(p), out_(out) {}

 protected:
  void visit_call(const Call& c) override {
    IRVisitor::visit_call(c);
    if (c.op) return;
    const auto f = p_.find(c.callee);
    // A mixed kernel's Group: its AIC half, then its AIV half (one task, the Group's arguments).
    if (f && f->type == FunctionType::Group)
      if (auto m = mixed_group_members(p_, *f)) {
        add(c, *m->aic, *f);
        add(c, *m->aiv, *f);
        return;
      }
    // TypeChecked (unknown callees) and CheckOrchestrationForms (callees other than kernels) reject
    // these before emission.
    if (!f || (f->type != FunctionType::AIV && f->type != FunctionType::AIC))
      throw InternalError("emit", fmt::format("a call to '{}' that is not an AIV / AIC kernel", c.callee), c.span);
    add(c, *f, *f);
  }
  void add(const Call& c, const Function& kernel, const Function& callee) {
    for (const auto& k : out_)
      if (k.fn == &kernel) return;
    KernelRef k{static_cast<int>(out_.size()), &kernel, kernel.type == FunctionType::AIC, {}};
    for (size_t i = 0; i < c.args.size(); ++i)
      if (as_tensor(c.args[i]->type)) k.signature.push_back(tensor_arg_direction(c, callee, i));
    out_.push_back(std::move(k));
  }

 private:
  const Program& p_;
  std::vector<KernelRef>& out_;
};
}  // namespace

std::vector<KernelRef> kernel_table(const Program& p, const Function& orch) {
  std::vector<KernelRef> out;
  CallCollector c(p, out);
  c.visit_function(orch);
  return out;
}

}  // namespace pypto::emit
