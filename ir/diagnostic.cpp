// DiagnosticSink and the diagnostic exception types.
#include "ir/diagnostic.h"

namespace pypto::ir {

void DiagnosticSink::error(std::string code, Span span, std::string message, std::string hint) {
  report(Diagnostic{Severity::Error, std::move(code), std::move(message), std::move(span),
                    std::move(hint), {}});
}

// A warning identical to one already given (code, place and text: the same source line reached
// twice, e.g. an inline function whose kernel is made for two call sites) is given once.
void DiagnosticSink::warning(std::string code, Span span, std::string message, std::string hint) {
  for (const auto& d : diags_)
    if (d.severity == Severity::Warning && d.code == code && d.span == span && d.message == message) return;
  report(Diagnostic{Severity::Warning, std::move(code), std::move(message), std::move(span),
                    std::move(hint), {}});
}

bool DiagnosticSink::has_errors() const {
  for (const auto& d : diags_)
    if (d.severity == Severity::Error) return true;
  return false;
}

static std::string first_message(const std::vector<Diagnostic>& diags) {
  return diags.empty() ? std::string("compile error") : diags.front().message;
}

CompileError::CompileError(std::vector<Diagnostic> diags)
    : std::runtime_error(first_message(diags)), diags_(std::move(diags)) {}

CompileError::CompileError(std::string code, Span span, std::string message, std::string hint)
    : CompileError(std::vector<Diagnostic>{Diagnostic{Severity::Error, std::move(code),
                                                      std::move(message), std::move(span),
                                                      std::move(hint), {}}}) {}

InternalError::InternalError(std::string stage, std::string message, Span span)
    : std::runtime_error(stage + ": " + message), stage_(std::move(stage)), span_(std::move(span)) {}

}  // namespace pypto::ir
