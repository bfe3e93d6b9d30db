// Property names (as printed in verifier reports and pass contracts).
#include "ir/properties.h"

namespace pypto::ir {

std::string_view to_string(Property p) {
  switch (p) {
    case Property::TypeChecked: return "TypeChecked";
    case Property::UseAfterDef: return "UseAfterDef";
    case Property::NoRedundantBlocks: return "NoRedundantBlocks";
    case Property::SSAForm: return "SSAForm";
    case Property::NoNestedCall: return "NoNestedCall";
    case Property::SplitIncoreOrch: return "SplitIncoreOrch";
    case Property::TileOpsOnly: return "TileOpsOnly";
    case Property::TileMemoryInferred: return "TileMemoryInferred";
    case Property::MixedKernelExpanded: return "MixedKernelExpanded";
    case Property::ReturnParamsExplicit: return "ReturnParamsExplicit";
    case Property::TensorStridesMaterialized: return "TensorStridesMaterialized";
    case Property::HasMemRefs: return "HasMemRefs";
    case Property::AllocatedMemoryAddr: return "AllocatedMemoryAddr";
    case Property::CallDirectionsResolved: return "CallDirectionsResolved";
    case Property::PipeSyncInserted: return "PipeSyncInserted";
    case Property::RuntimeScopesMaterialized: return "RuntimeScopesMaterialized";
    case Property::IterArgCarryClassified: return "IterArgCarryClassified";
    case Property::TensorAllocsPlanned: return "TensorAllocsPlanned";
    case Property::kCount: break;
  }
  return "?";
}

}  // namespace pypto::ir
