// The pipeline's one entry into the IR verifier (ir/verifier.h, `ir::verify`). Kept behind this
// wrapper so the pass library builds before the verifier lands: without ir/verifier.h every
// property is reported as holding (nothing is checked) and `verifier_available()` is false.
#pragma once

#include "ir/diagnostic.h"
#include "ir/function.h"
#include "ir/properties.h"

namespace pypto::passes {

bool verifier_available();
// True when every property of `props` holds on `program`; findings go to `sink`.
bool verify_properties(const ir::Program& program, const ir::PropertySet& props, ir::DiagnosticSink& sink);

}  // namespace pypto::passes
