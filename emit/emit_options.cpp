// Runtime / prebuilt-runtime / templates directory lookup, the kernel PCH check and the tiny
// `{{key}}` template filler (emit_options.h).
#include "emit/emit_options.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string_view>

#include "ir/diagnostic.h"
#include "ir/soc.h"

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

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `cxx` (a path, or a name looked up on $PATH) with every symlink resolved; empty if not found.
std::string resolve_compiler(const std::string& cxx) {
  std::error_code ec;
  if (cxx.empty() || cxx.find_first_of(" \t") != std::string::npos) return {};
  if (cxx.find('/') != std::string::npos) {
    auto p = fs::canonical(cxx, ec);
    return ec ? std::string() : p.string();
  }
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "";
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    if (dir.empty()) continue;
    const fs::path cand = fs::path(dir) / cxx;
    if (fs::is_regular_file(cand, ec)) {
      auto p = fs::canonical(cand, ec);
      if (!ec) return p.string();
    }
  }
  return {};
}

}  // namespace

// The executable does not move while it runs: each lookup is made once per process.
std::string default_runtime_dir() {
  static const std::string installed = installed_dir("runtime");
  if (const auto& d = installed; !d.empty()) return d;
#ifdef PYPTO_SOURCE_RUNTIME_DIR
  return PYPTO_SOURCE_RUNTIME_DIR;
#else
  return {};
#endif
}

std::string default_templates_dir() {
  static const std::string installed = installed_dir("templates");
  if (const auto& d = installed; !d.empty()) return d;
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

std::string prebuilt_dir(const EmitOptions& o) {
  if (!o.prebuilt_dir.empty()) return absolute(o.prebuilt_dir);
  std::error_code ec;
  const std::string rt = runtime_dir(o);
  if (fs::exists(fs::path(rt) / "lib" / "libpypto_runtime.a", ec)) return rt;  // installed layout
#ifdef PYPTO_BUILD_PREBUILT_DIR
  return absolute(PYPTO_BUILD_PREBUILT_DIR);
#else
  return rt;
#endif
}

std::string kernel_pch(const EmitOptions& o) {
  const fs::path pch = fs::path(prebuilt_dir(o)) / "pch";
  const fs::path header = pch / std::string(ir::soc_info(o.soc).cli_name) / "pypto_kernel_pch.h";
  std::error_code ec;
  if (!fs::is_regular_file(header, ec) || !fs::is_regular_file(header.string() + ".gch", ec)) return {};
  std::string built_by = read_text(pch / "compiler");
  while (!built_by.empty() && (built_by.back() == '\n' || built_by.back() == '\r')) built_by.pop_back();
  const std::string cxx = resolve_compiler(o.cxx.empty() ? "c++" : o.cxx);
  if (cxx.empty() || built_by.empty() || fs::path(cxx) != fs::path(built_by)) return {};
  return header.string();
}

std::string load_template(const EmitOptions& o, const std::string& name) {
  // A project reads some templates once per kernel: each file is read once per process.
  static std::mutex mu;
  static std::map<std::string, std::string> cache;
  const fs::path p = fs::path(templates_dir(o)) / name;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(p.string()); it != cache.end()) return it->second;
  std::ifstream in(p, std::ios::binary);
  if (!in) throw ir::InternalError("emit", "template not found: " + p.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return cache.emplace(p.string(), ss.str()).first->second;
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
