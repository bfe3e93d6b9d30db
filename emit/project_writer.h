// Writes a complete generated project (output-format.md §1) for a program that went through the
// whole pass pipeline: kernels/aiv|aic/<f>.cpp, orchestration/<entry>.cpp, kernel_config.py,
// runner/program_table.cpp, build.ninja, compile_commands.json and README.md. Every file is
// rendered in memory first, then written into a temporary directory next to `out_dir` which is
// renamed into place, so a failed emit leaves an earlier `out_dir` untouched. Output is
// deterministic (byte-identical for the same program, options and out_dir).
#pragma once

#include <map>
#include <string>

#include "emit/emit_options.h"
#include "ir/function.h"

namespace pypto::emit {

// Relative path → contents of every file of the project (what write_project writes).
std::map<std::string, std::string> render_project(const ir::Program& p, const EmitOptions& opts,
                                                  const std::string& out_dir);

void write_project(const ir::Program& p, const EmitOptions& opts, const std::string& out_dir);

// Writes {relative path → contents} into a fresh temporary directory next to `dir`, then puts it
// in place of `dir` (renaming the old one away first), so a failure leaves `dir` as it was and
// nothing else is written. The one mechanism for every directory pypto writes (projects, pass
// dumps). Throws CompileError E902 when the disk refuses.
void write_files_atomically(const std::map<std::string, std::string>& files, const std::string& dir);

}  // namespace pypto::emit
