// `pypto build … --report`: OUT/report.html, one self-contained page (inline CSS, no scripts, no
// network) of what the compiler did: the task graph, every kernel's memory plan, the generated
// kernel and orchestration sources, and the pass pipeline with each pass's IR and a unified diff
// of what it changed (computed by the DTL library, Debian libdtl-dev).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/function.h"

namespace pypto::cli {

struct ReportInputs {
  std::string source;  // the model file
  std::string soc;     // "910b"
  std::string front_end_ir;                                 // before the first pass
  std::vector<std::pair<std::string, std::string>> passes;  // (pass name, IR after it), in order
  const ir::Program* program = nullptr;                     // after the pipeline
  const std::map<std::string, std::string>* files = nullptr;  // the generated project, by path
};

std::string render_report(const ReportInputs& in);

}  // namespace pypto::cli
