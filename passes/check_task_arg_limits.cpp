// CheckTaskArgLimits — the runtime ABI's argument limits, checked before code generation: a
// kernel task carries at most SocInfo::task_tensor_args tensors and task_scalar_args scalars
// (CoreTaskArgs), the orchestration entry at most entry_tensor_args / entry_scalar_args
// (ChipTaskArgs). A function over a limit is an E903 error at its definition naming the counts
// and the limit. The program is not changed. Requires MixedKernelExpanded (kernels are AIV / AIC).
#include <fmt/format.h>

#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

void check(const Function& f, int max_tensors, int max_scalars, const char* what) {
  int tensors = 0, scalars = 0;
  for (const auto& p : f.params) {
    if (as_tensor(p->type)) ++tensors;
    else if (as_scalar(p->type)) ++scalars;
  }
  if (tensors > max_tensors || scalars > max_scalars)
    throw CompileError("E903", f.span,
                       fmt::format("{} '{}' has {} tensor and {} scalar parameters; {} takes at most {} tensors and {} "
                                   "scalars", what, f.name, tensors, scalars, what, max_tensors, max_scalars),
                       "split the function or pack scalars into a tensor");
}

}  // namespace

Pass check_task_arg_limits_pass() {
  return Pass{"CheckTaskArgLimits",
              "Checks the runtime ABI's argument limits, as the SoC description states them: tensors and scalars "
              "per kernel task (CoreTaskArgs) and for the orchestration entry (ChipTaskArgs); changes nothing.",
              {{Property::MixedKernelExpanded}, {}, {}},
              [](const ProgramPtr& p, PassContext& ctx) {
                const SocInfo& soc = soc_info(ctx.soc);
                for (const auto& f : p->functions) {
                  if (f->type == FunctionType::AIV || f->type == FunctionType::AIC)
                    check(*f, soc.task_tensor_args, soc.task_scalar_args, "a kernel");
                  else if (f->type == FunctionType::Orchestration)
                    check(*f, soc.entry_tensor_args, soc.entry_scalar_args, "an orchestration entry");
                }
                return p;
              }};
}

}  // namespace pypto::passes
