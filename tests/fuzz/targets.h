// What each fuzz target does with one input, as plain functions: the libFuzzer executables
// (tests/fuzz/fuzz_*.cpp, clang only), the regression replay test (fuzz_regressions_test, built
// with the normal compiler) and the ctest robustness test call the same code.
//
// A function returns "" when the compiler behaved: the input compiled, or it was rejected with
// diagnostics that each carry a location inside the file. Anything else — an InternalError, any
// other exception, a CompileError without diagnostics or with an unlocated error — is returned
// as a description (the libFuzzer targets abort on it; crashes, sanitizer reports, hangs and
// out-of-memory are caught by libFuzzer itself).
#pragma once

#include <string>
#include <string_view>

#include "emit/emit_options.h"

namespace pypto::fuzz {

// The front end on arbitrary bytes, as `pypto check` runs it: the module check, then up to three
// entries parsed and structurally verified — the file's first two, then the first top-level
// function that is not one tried as a factory entry (--entry build_x); every diagnostic is also
// rendered as text and as JSON. The file is named /nonexistent-pypto-fuzz/input.py, so an import
// never reads a real file.
std::string frontend_problem(std::string_view bytes);

// The whole compiler, as `pypto build --emit-only` runs it, on a program text: for up to two
// entries (the file's first, then a top-level function tried as a factory entry) the front end and the
// verifier, the printed IR read back (it must print the same), the pass pipeline (910B or 950,
// chosen by the input's hash), the IR printer, and every project file rendered in memory
// (nothing is written). `emit` must name a runtime and a
// prebuilt directory that exist (stub_emit_options).
std::string pipeline_problem(std::string_view text, const emit::EmitOptions& emit);

// Emit options whose prebuilt directory is a stub made under `scratch_dir` (empty library files:
// rendering only checks that they exist), the runtime headers and templates of the source tree.
emit::EmitOptions stub_emit_options(const std::string& scratch_dir);

}  // namespace pypto::fuzz
