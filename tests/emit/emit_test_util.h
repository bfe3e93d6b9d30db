// Shared helpers for the emitter tests: compile a tests/programs/*.py file (or DSL text) through
// the front end and the default pass pipeline, render / write the generated project, and small
// text queries over generated files.
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "emit/project_writer.h"
#include "ir/printer.h"
#include "parser/frontend.h"
#include "passes/pipeline.h"

namespace emit_test {

inline pypto::ir::ProgramPtr compile_text(const std::string& text, const std::string& name = "test.py",
                                          pypto::ir::Soc soc = pypto::ir::Soc::Ascend910B, bool auto_deps = false) {
  pypto::ir::DiagnosticSink sink;
  auto file = std::make_shared<pypto::ir::SourceFile>(name, text);
  auto p = pypto::parser::parse_source(file, {}, sink);
  pypto::passes::PassContext ctx;
  ctx.soc = soc;
  ctx.auto_deps = auto_deps;
  return pypto::passes::run_pipeline(p, ctx);
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline pypto::ir::ProgramPtr compile_program(const std::string& file, pypto::ir::Soc soc = pypto::ir::Soc::Ascend910B,
                                             bool auto_deps = false) {
  const std::string path = std::string(PYPTO_TEST_PROGRAMS) + "/" + file;
  return compile_text(read_file(path), path, soc, auto_deps);
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    const auto b = l.find_first_not_of(' ');
    out.push_back(b == std::string::npos ? std::string() : l.substr(b));
  }
  return out;
}

// Lines of `text` (leading spaces stripped) that start with one of `prefixes`, in order.
inline std::vector<std::string> lines_starting(const std::string& text, const std::vector<std::string>& prefixes) {
  std::vector<std::string> out;
  for (const auto& l : lines_of(text))
    for (const auto& p : prefixes)
      if (l.rfind(p, 0) == 0) {
        out.push_back(l);
        break;
      }
  return out;
}

inline size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

}  // namespace emit_test
