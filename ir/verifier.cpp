// The property → verifier table and the verify() entry point. Rules live in verify_*.cpp.
#include "ir/verifier.h"

#include <array>

#include "ir/verify_util.h"

namespace pypto::ir {
namespace {

using namespace verify_detail;

struct Row {
  Property property;
  RuleFn fn;  // nullptr: placeholder that always passes (see comment in the table)
};

// One row per Property. Placeholder (nullptr, always passes):
//   PipeSyncInserted — needs the pipe-hazard model, which lives in passes/ (the IR may not depend
//                      on passes); the sync-insertion pass checks its own output.
constexpr std::array<Row, static_cast<size_t>(Property::kCount)> kRules = {{
    {Property::TypeChecked, check_type_checked},
    {Property::UseAfterDef, check_use_after_def},
    {Property::NoRedundantBlocks, check_no_redundant_blocks},
    {Property::SSAForm, check_ssa},
    {Property::NoNestedCall, check_no_nested_call},
    {Property::SplitIncoreOrch, check_split_incore_orch},
    {Property::TileOpsOnly, check_tile_ops_only},
    {Property::TileMemoryInferred, check_tile_memory_inferred},
    {Property::MixedKernelExpanded, check_mixed_kernel_expanded},
    {Property::ReturnParamsExplicit, check_return_params},
    {Property::TensorStridesMaterialized, check_tensor_strides},
    {Property::HasMemRefs, check_has_memrefs},
    {Property::AllocatedMemoryAddr, check_allocated_memory_addr},
    {Property::CallDirectionsResolved, check_call_directions},
    {Property::PipeSyncInserted, nullptr},
    {Property::RuntimeScopesMaterialized, check_runtime_scopes},
    {Property::TensorAllocsPlanned, check_tensor_allocs_planned},
    {Property::IterArgCarryClassified, check_iter_arg_carry},
}};

const Row& row(Property p) { return kRules[static_cast<size_t>(p)]; }

}  // namespace

bool verify(const Program& p, const PropertySet& props, DiagnosticSink& sink) {
  return verify(p, props, sink, VerifyOptions{});
}

bool verify(const Program& p, const PropertySet& props, DiagnosticSink& sink, const VerifyOptions& opts) {
  const size_t before = sink.diagnostics().size();
  Env env{p, opts, sink};
  for (Property prop : props.list()) {
    const Row& r = row(prop);
    if (r.property != prop) throw InternalError("verifier", "rule table out of order");
    if (r.fn) r.fn(env);
  }
  for (size_t i = before; i < sink.diagnostics().size(); ++i)
    if (sink.diagnostics()[i].severity == Severity::Error) return false;
  return true;
}

PropertySet structural_properties() {
  return {Property::TypeChecked, Property::UseAfterDef, Property::NoRedundantBlocks};
}

bool has_real_verifier(Property p) { return p < Property::kCount && row(p).fn != nullptr; }

}  // namespace pypto::ir
