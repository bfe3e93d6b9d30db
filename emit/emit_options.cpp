// Runtime / templates directory lookup and the tiny `{{key}}` template filler (emit_options.h).
#include "emit/emit_options.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/diagnostic.h"

namespace fs = std::filesystem;

namespace pypto::emit {

namespace {

// <dir of this executable>/../share/pypto/<leaf> if it exists.
std::string installed_dir(const char* leaf) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path p = exe.parent_path() / ".." / "share" / "pypto" / leaf;
  if (!fs::is_directory(p, ec)) return {};
  return fs::weakly_canonical(p, ec).string();
}

std::string absolute(const std::string& d) {
  std::error_code ec;
  auto p = fs::absolute(d, ec);
  return ec ? d : p.lexically_normal().string();
}

}  // namespace

std::string default_runtime_dir() {
  if (auto d = installed_dir("runtime"); !d.empty()) return d;
#ifdef PYPTO_SOURCE_RUNTIME_DIR
  return PYPTO_SOURCE_RUNTIME_DIR;
#else
  return {};
#endif
}

std::string default_templates_dir() {
  if (auto d = installed_dir("templates"); !d.empty()) return d;
#ifdef PYPTO_SOURCE_TEMPLATES_DIR
  return PYPTO_SOURCE_TEMPLATES_DIR;
#else
  return {};
#endif
}

std::string runtime_dir(const EmitOptions& o) {
  return absolute(o.runtime_dir.empty() ? default_runtime_dir() : o.runtime_dir);
}

std::string templates_dir(const EmitOptions& o) {
  return absolute(o.templates_dir.empty() ? default_templates_dir() : o.templates_dir);
}

std::string load_template(const EmitOptions& o, const std::string& name) {
  const fs::path p = fs::path(templates_dir(o)) / name;
  std::ifstream in(p, std::ios::binary);
  if (!in) throw ir::InternalError("emit", "template not found: " + p.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string fill_template(const std::string& text, const std::map<std::string, std::string>& values) {
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t open = text.find("{{", pos);
    if (open == std::string::npos) break;
    const size_t close = text.find("}}", open + 2);
    if (close == std::string::npos) break;
    out.append(text, pos, open - pos);
    const std::string key = text.substr(open + 2, close - open - 2);
    auto it = values.find(key);
    if (it == values.end()) throw ir::InternalError("emit", "template key without a value: " + key);
    out += it->second;
    pos = close + 2;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

}  // namespace pypto::emit
