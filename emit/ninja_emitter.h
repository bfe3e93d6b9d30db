// build.ninja and compile_commands.json of a generated project: every kernel (AIV with
// -D__DAV_VEC__, AIC with -D__DAV_CUBE__, entry renamed -Dkernel_entry=pypto_kernel_<name>, and
// the prebuilt tile-API PCH when the project's compiler built it), the orchestration and
// runner/program_table.cpp compile to obj/; bin/run links them with the prebuilt runtime
// (libpypto_runner.a, libpypto_runtime.a) and -pthread — no runtime source is compiled in the
// project. Generated sources are addressed relative to the build.ninja directory, the runtime
// headers and the prebuilt library through the absolute `runtime` / `prebuilt` variables, so
// `ninja -C OUT` works from anywhere; `cxx` and `launcher` come from EmitOptions (rule
// boilerplate: templates/build.ninja.in). Generated file names are the stems of ProjectNames;
// every path and value is ninja-escaped ($$, "$ ", $:) and the runtime include directory
// shell-quoted when it needs it.
#pragma once

#include <string>
#include <vector>

#include "emit/emit_options.h"
#include "emit/file_names.h"
#include "ir/function.h"

namespace pypto::emit {

struct BuildFiles {
  std::string build_ninja;
  std::string compile_commands;  // JSON
};

// `kernels`: every kernel function written under kernels/ (in file order); `out_dir_abs`: the
// final absolute project directory (recorded in compile_commands.json).
BuildFiles emit_build_files(const ir::Function& orch, const std::vector<const ir::Function*>& kernels,
                            const ProjectNames& names, const EmitOptions& opts, const std::string& out_dir_abs);

}  // namespace pypto::emit
