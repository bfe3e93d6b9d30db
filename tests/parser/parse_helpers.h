// Test helpers for the front-end tests: parse DSL text from a string, capture the CompileError.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ir/ir.h"
#include "parser/frontend.h"

namespace ptest {

// A directory of source files for the multi-module tests, removed with the object.
struct TempTree {
  std::filesystem::path root;
  TempTree() {
    static int counter = 0;
    root = std::filesystem::temp_directory_path() /
           ("pypto_tree_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root);
  }
  ~TempTree() { std::filesystem::remove_all(root); }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;
  // Writes `text` to root/rel (creating directories) and returns its path.
  std::string write(const std::string& rel, const std::string& text) const {
    const std::filesystem::path p = root / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
};

inline pypto::ir::SourceFilePtr src(const std::string& text, const std::string& name = "test.py") {
  return std::make_shared<const pypto::ir::SourceFile>(name, text);
}

inline pypto::ir::ProgramPtr parse(const std::string& text, pypto::parser::FrontendOptions opts = {}) {
  pypto::ir::DiagnosticSink sink;
  return pypto::parser::parse_source(src(text), opts, sink);
}

// The diagnostics of a failing parse (empty when it succeeds).
inline std::vector<pypto::ir::Diagnostic> errors(const std::string& text, pypto::parser::FrontendOptions opts = {}) {
  pypto::ir::DiagnosticSink sink;
  try {
    pypto::parser::parse_source(src(text), opts, sink);
  } catch (const pypto::ir::CompileError& e) {
    return e.diagnostics();
  }
  return {};
}

// The diagnostics of a failing parse of the file at `path` (empty when it succeeds).
inline std::vector<pypto::ir::Diagnostic> file_errors(const std::string& path,
                                                      pypto::parser::FrontendOptions opts = {}) {
  pypto::ir::DiagnosticSink sink;
  try {
    pypto::parser::parse_file(path, opts, sink);
  } catch (const pypto::ir::CompileError& e) {
    return e.diagnostics();
  }
  return {};
}

// The constant shape of parameter `param` of function `fn` (a tensor).
inline std::vector<int64_t> dims(const pypto::ir::ProgramPtr& p, const std::string& fn, size_t param) {
  std::vector<int64_t> out;
  for (const auto& d : pypto::ir::as_tensor(p->find(fn)->params[param]->type)->shape)
    out.push_back(pypto::ir::as<pypto::ir::ConstInt>(d)->value);
  return out;
}

// Wraps statements into an InCore function body of a one-function program (8-space indent).
inline std::string kernel(const std::string& body, const std::string& params =
                              "x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]") {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def k(self, " + params + "):\n" + body;
}

inline std::vector<pypto::ir::StmtPtr> body_of(const pypto::ir::ProgramPtr& p, const std::string& fn = "k") {
  return pypto::ir::flatten_body(p->find(fn)->body);
}

}  // namespace ptest
