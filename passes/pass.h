// The pass abstraction. A Pass is a named, documented IR → IR transformation with a property
// contract: the properties it requires on its input, the ones it establishes (verified after it
// runs by the pipeline runner) and the ones it destroys. Passes see only IR (ir/); options that
// steer them (target SoC, verification) travel in PassContext.
#pragma once

#include <functional>
#include <string>

#include "ir/diagnostic.h"
#include "ir/function.h"
#include "ir/properties.h"
#include "ir/soc.h"

namespace pypto::passes {

struct PassProperties {
  ir::PropertySet required;     // must hold before the pass runs
  ir::PropertySet produced;     // hold after it (verified by run_pipeline)
  ir::PropertySet invalidated;  // may no longer hold after it
};

// Options and side channels shared by all passes of one pipeline run.
struct PassContext {
  ir::Soc soc = ir::Soc::Ascend910B;  // capacities for memory planning
  ir::DiagnosticSink diagnostics;     // warnings (errors are thrown as ir::CompileError)
  bool verify = true;                 // check required/produced properties around each pass
  // Testing the oracle's bisection (`pypto test --inject-fault PASS`): after the pass of this
  // name, the first elementwise add of the program becomes a subtract. "" = never.
  std::string fault_after;
  // AutoDeriveTaskDependencies runs (`pypto build --auto-deps`); off by default, as in the reference.
  bool auto_deps = false;
};

using PassFn = std::function<ir::ProgramPtr(const ir::ProgramPtr&, PassContext&)>;

struct Pass {
  std::string name;         // "ConvertToSSA"
  std::string description;  // one paragraph: what the pass does
  PassProperties properties;
  PassFn fn;

  ir::ProgramPtr run(const ir::ProgramPtr& program, PassContext& ctx) const { return fn(program, ctx); }
};

}  // namespace pypto::passes
