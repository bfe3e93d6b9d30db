// Shared helpers for the pass tests: parse DSL text with the front end, run one pass, compare
// with structural equality (printing both programs on a mismatch).
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "parser/frontend.h"
#include "passes/pass.h"
#include "passes/passes.h"
#include "passes/pipeline.h"

namespace pass_test {

inline pypto::ir::ProgramPtr parse(const std::string& text, const std::string& name = "test.py") {
  pypto::ir::DiagnosticSink sink;
  auto file = std::make_shared<pypto::ir::SourceFile>(name, text);
  return pypto::parser::parse_source(file, {}, sink);
}

inline pypto::ir::ProgramPtr run(const pypto::passes::Pass& pass, const pypto::ir::ProgramPtr& p,
                                 pypto::ir::Soc soc = pypto::ir::Soc::Ascend910B) {
  pypto::passes::PassContext ctx;
  ctx.soc = soc;
  return pass.run(p, ctx);
}

// Runs the named passes of the default pipeline in order (with property checks).
inline pypto::ir::ProgramPtr run_named(const std::vector<std::string>& names, const pypto::ir::ProgramPtr& p,
                                       pypto::ir::Soc soc = pypto::ir::Soc::Ascend910B) {
  pypto::passes::PassContext ctx;
  ctx.soc = soc;
  return pypto::passes::run_passes(p, names, ctx);
}

inline void require_equal(const pypto::ir::ProgramPtr& got, const pypto::ir::ProgramPtr& expected) {
  auto r = pypto::ir::structural_equal(*got, *expected);
  if (!r.equal) {
    INFO("mismatch at " << r.path << ": " << r.message);
    INFO("--- got ---\n" << pypto::ir::print_program(*got));
    INFO("--- expected ---\n" << pypto::ir::print_program(*expected));
    REQUIRE(r.equal);
  }
  SUCCEED();
}

// Message of the CompileError thrown by `fn` ("" when none is thrown).
template <class F>
std::string compile_error_of(F fn) {
  try {
    fn();
  } catch (const pypto::ir::CompileError& e) {
    std::string m;
    for (const auto& d : e.diagnostics()) m += d.message + "\n";
    return m;
  }
  return "";
}

// The first diagnostic of the CompileError thrown by `fn` (an empty one when none is thrown).
template <class F>
pypto::ir::Diagnostic first_diagnostic_of(F fn) {
  try {
    fn();
  } catch (const pypto::ir::CompileError& e) {
    if (!e.diagnostics().empty()) return e.diagnostics().front();
  }
  return {};
}

}  // namespace pass_test
