// Options of the project emitter (target SoC, where the runtime and templates live, the C++
// compiler and launcher written into build.ninja) and the lookup of the runtime / templates
// directories: an installed pypto uses <dir of the pypto binary>/../share/pypto/{runtime,
// templates}; a build-tree pypto falls back to the source tree (compile definitions
// PYPTO_SOURCE_RUNTIME_DIR / PYPTO_SOURCE_TEMPLATES_DIR).
#pragma once

#include <map>
#include <string>

#include "ir/soc.h"

namespace pypto::emit {

struct EmitOptions {
  ir::Soc soc = ir::Soc::Ascend910B;
  std::string runtime_dir;    // empty: default_runtime_dir()
  std::string templates_dir;  // empty: default_templates_dir()
  std::string cxx = "c++";    // written as `cxx = ...` (the CLI passes the value of $CXX)
  std::string launcher;       // prefixed to every compile command (e.g. "ccache"); may be empty
};

std::string default_runtime_dir();
std::string default_templates_dir();
// The options' directory or the default, as an absolute path.
std::string runtime_dir(const EmitOptions& o);
std::string templates_dir(const EmitOptions& o);

// Text of templates/<name>; InternalError when missing.
std::string load_template(const EmitOptions& o, const std::string& name);
// Replaces every `{{key}}` of `text` by its value; unknown keys are an InternalError.
std::string fill_template(const std::string& text, const std::map<std::string, std::string>& values);

}  // namespace pypto::emit
