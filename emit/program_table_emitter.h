// runner/program_table.cpp: defines pypto_rt::kProgram (runtime/include/pypto_rt/program.h) —
// the kernel table indexed by func_id (each kernel's entry compiled as pypto_kernel_<stem>, see
// file_names.h), the
// entry's tensor parameters (dtype, shape, direction) and scalar parameters, and the two
// orchestration entry points. The runtime's bin/run reads inputs and writes outputs through it.
//
// It is also the one way source locations reach the runtime (kernels and orchestration stay as
// they build for the NPU): per kernel its generated file, DSL file, definition line, tensor
// parameter names and a line map of its generated C++ (each `// file.py:N: ...` comment the
// emitters write above a statement: C++ line -> DSL line); the same map for the orchestration,
// whose rt_submit_* calls report their C++ line at run time.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "emit/file_names.h"
#include "emit/kernel_table.h"
#include "ir/function.h"

namespace pypto::emit {

// One generated C++ file: its path in the project and its text.
struct GeneratedFile {
  std::string path;
  const std::string* text = nullptr;
};

// The `// file.py:N: ...` source comments of a generated C++ text: (C++ line, DSL file, DSL line),
// in line order (lines counted from 1).
struct SourceComment {
  uint32_t cpp_line;
  std::string file;
  uint32_t line;
};
std::vector<SourceComment> source_comments(const std::string& text);

std::string emit_program_table(const ir::Function& orch, const std::vector<KernelRef>& kernels,
                               const ProjectNames& names,
                               const std::map<const ir::Function*, GeneratedFile>& kernel_files = {},
                               const GeneratedFile& orchestration = {});

}  // namespace pypto::emit
