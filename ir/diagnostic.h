// Diagnostics as data. Every stage reports problems in the user's program as Diagnostics with a
// span; rendering (source line, caret, JSON) happens in parser/diagnostics_render.*, which owns
// the presentation. Two exception types carry them across stage boundaries:
//   CompileError   — errors in the user's program (exit code 1)
//   InternalError  — a compiler invariant failed; names the stage/pass (exit code 70)
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "ir/span.h"

namespace pypto::ir {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string code;     // "E200", or a verifier rule name for verifier findings
  std::string message;  // what is wrong
  Span span;
  std::string hint;     // how to fix it ("" when there is no known fix)
  std::vector<std::pair<Span, std::string>> notes;  // secondary locations
};

// Collects diagnostics while a stage keeps going (recoverable errors).
class DiagnosticSink {
 public:
  void report(Diagnostic d) { diags_.push_back(std::move(d)); }
  void error(std::string code, Span span, std::string message, std::string hint = {});
  void warning(std::string code, Span span, std::string message, std::string hint = {});  // once per code, span, text
  bool has_errors() const;
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }
  std::vector<Diagnostic> take() { return std::move(diags_); }

 private:
  std::vector<Diagnostic> diags_;
};

// Thrown to abandon a stage because of errors in the user's program.
class CompileError : public std::runtime_error {
 public:
  explicit CompileError(std::vector<Diagnostic> diags);
  CompileError(std::string code, Span span, std::string message, std::string hint = {});
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }

 private:
  std::vector<Diagnostic> diags_;
};

// Thrown when an internal invariant fails. `stage` names the pass or component.
class InternalError : public std::runtime_error {
 public:
  InternalError(std::string stage, std::string message, Span span = {});
  const std::string& stage() const { return stage_; }
  const Span& span() const { return span_; }

 private:
  std::string stage_;
  Span span_;
};

}  // namespace pypto::ir
