// The IR verifier: one checking function per Property (ir/properties.h), registered in a table
// property → function (verifier.cpp). Passes and the pipeline runner call verify() with the
// properties they claim; every violation becomes a Diagnostic whose `code` is the rule name
// (the property name, or "OpPlacement" for tile/tensor ops on the wrong plane) and whose span
// points at the offending node.
#pragma once

#include "ir/diagnostic.h"
#include "ir/function.h"
#include "ir/properties.h"
#include "ir/soc.h"

namespace pypto::ir {

struct VerifyOptions {
  Soc soc = Soc::Ascend910B;  // capacities for AllocatedMemoryAddr
};

// Checks `props` on the program; every finding is a Diagnostic (code = rule name, e.g. "SSAForm",
// message, span of the offending node) appended to `sink`. Returns true when all hold.
bool verify(const Program& p, const PropertySet& props, DiagnosticSink& sink);
bool verify(const Program& p, const PropertySet& props, DiagnosticSink& sink, const VerifyOptions& opts);

// Structural properties that must hold for all IR from the front end on.
PropertySet structural_properties();  // TypeChecked (+ OpPlacement), UseAfterDef, NoRedundantBlocks

// False for properties whose verifier is still a placeholder that always passes.
bool has_real_verifier(Property p);

}  // namespace pypto::ir
