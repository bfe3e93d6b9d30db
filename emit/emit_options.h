// Options of the project emitter (target SoC, where the runtime, its prebuilt library and the
// templates live, the C++ compiler and launcher written into build.ninja) and their lookup:
//   runtime headers   installed: <dir of the pypto binary>/../share/pypto/runtime; build tree:
//                     the source tree's runtime/ (PYPTO_SOURCE_RUNTIME_DIR)
//   prebuilt runtime  lib/libpypto_{runtime,runner}.a and pch/<soc>/pypto_kernel_pch.h{,.gch}:
//                     the runtime directory itself when it has lib/ (an installed pypto), else the
//                     build tree's <build>/runtime (PYPTO_BUILD_PREBUILT_DIR)
//   templates         installed: .../share/pypto/templates; build tree: templates/
#pragma once

#include <map>
#include <string>

#include "ir/soc.h"

namespace pypto::emit {

struct EmitOptions {
  ir::Soc soc = ir::Soc::Ascend910B;
  std::string runtime_dir;    // empty: default_runtime_dir()
  std::string prebuilt_dir;   // empty: prebuilt_dir() picks (see above)
  std::string templates_dir;  // empty: default_templates_dir()
  std::string cxx = "c++";    // written as `cxx = ...` (the CLI passes the value of $CXX)
  std::string launcher;       // prefixed to every compile command (e.g. "ccache"); may be empty
};

std::string default_runtime_dir();
std::string default_templates_dir();
// The options' directory or the default, as an absolute path.
std::string runtime_dir(const EmitOptions& o);
std::string templates_dir(const EmitOptions& o);
// Directory holding lib/libpypto_runtime.a, lib/libpypto_runner.a and pch/ (absolute).
std::string prebuilt_dir(const EmitOptions& o);
// The kernel precompiled header for `o.soc` (`.../pch/<soc>/pypto_kernel_pch.h`) when its .gch
// exists and `o.cxx` resolves to the compiler that built it (pch/compiler); empty otherwise (a
// GCC .gch is unreadable for clang, and GCC would only ignore one of another version).
std::string kernel_pch(const EmitOptions& o);

// Text of templates/<name>; InternalError when missing.
std::string load_template(const EmitOptions& o, const std::string& name);
// Replaces every `{{key}}` of `text` by its value; unknown keys are an InternalError.
std::string fill_template(const std::string& text, const std::map<std::string, std::string>& values);

}  // namespace pypto::emit
