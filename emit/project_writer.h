// Writes a complete generated project (output-format.md §1) for a program that went through the
// whole pass pipeline: kernels/aiv|aic/<f>.cpp, orchestration/<entry>.cpp, kernel_config.py,
// runner/program_table.cpp, build.ninja, compile_commands.json and README.md. Every file is
// rendered in memory first, then written by write_files_atomically (dir_writer.h), so a failed
// emit leaves an earlier `out_dir` untouched and a regeneration rewrites only what changed.
// File names come from ProjectNames (file_names.h). Output is deterministic: byte-identical for
// the same program and options whatever `out_dir` is, except compile_commands.json (whose format
// needs the absolute directory).
#pragma once

#include <map>
#include <string>

#include "emit/dir_writer.h"
#include "emit/emit_options.h"
#include "ir/function.h"
#include "ir/properties.h"

namespace pypto::emit {

// Relative path → contents of every file of the project (what write_project writes).
// What the emitters require of the IR they translate (the default pipeline establishes all of
// it); render_project verifies it once, before any file is rendered, and reports a violation as
// an internal error naming the property.
ir::PropertySet emit_required_properties();

std::map<std::string, std::string> render_project(const ir::Program& p, const EmitOptions& opts,
                                                  const std::string& out_dir);

void write_project(const ir::Program& p, const EmitOptions& opts, const std::string& out_dir);

}  // namespace pypto::emit
