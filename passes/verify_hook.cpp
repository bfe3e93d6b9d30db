// Calls ir::verify when the verifier is part of the tree (see verify_hook.h).
#include "passes/verify_hook.h"

#if __has_include("ir/verifier.h")
#include "ir/verifier.h"
#define PYPTO_HAVE_VERIFIER 1
#else
#define PYPTO_HAVE_VERIFIER 0
#endif

namespace pypto::passes {

bool verifier_available() { return PYPTO_HAVE_VERIFIER != 0; }

bool verify_properties(const ir::Program& program, const ir::PropertySet& props, ir::DiagnosticSink& sink) {
#if PYPTO_HAVE_VERIFIER
  return ir::verify(program, props, sink);
#else
  (void)program;
  (void)props;
  (void)sink;
  return true;
#endif
}

}  // namespace pypto::passes
