// Loading the modules of one compilation (see module_set.h).
#include "parser/module_set.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace pypto::parser {

namespace fs = std::filesystem;
using namespace ir;

namespace {

// Byte offset of the first invalid UTF-8 sequence, or npos.
size_t invalid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return i;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return i;
    if (n == 2 && c < 0xC2) return i;
    i += n;
  }
  return std::string::npos;
}

std::string dir_of(const std::string& path) {
  fs::path p(path);
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) abs = p;
  return abs.parent_path().lexically_normal().string();
}

}  // namespace

SourceFilePtr read_source(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw CompileError("E000", Span{}, fmt::format("cannot read '{}': it is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError("E000", Span{}, fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  auto file = std::make_shared<const SourceFile>(path, text);
  if (size_t bad = invalid_utf8(text); bad != std::string::npos) {
    auto line_it = std::upper_bound(file->line_starts.begin(), file->line_starts.end(), uint32_t(bad));
    uint32_t line = uint32_t(line_it - file->line_starts.begin());
    Span s{file, line, uint32_t(bad - file->line_starts[line - 1]) + 1, line, uint32_t(bad - file->line_starts[line - 1]) + 2};
    throw CompileError("E000", s, fmt::format("'{}' is not valid UTF-8 (byte offset {})", path, bad),
                       "save the file as UTF-8");
  }
  return file;
}

struct ModuleSet::Loaded {
  std::unique_ptr<CstTree> tree;
  std::unique_ptr<ModuleInfo> info;
};

ModuleSet::ModuleSet(std::vector<std::string> search_dirs, Defines defines, bool run)
    : search_dirs_(std::move(search_dirs)), defines_(std::move(defines)), run_(run) {}
ModuleSet::~ModuleSet() = default;

ModuleInfo& ModuleSet::add(SourceFilePtr file, const std::string& name, const std::string& dir, const std::string& key) {
  auto l = std::make_unique<Loaded>();
  l->tree = std::make_unique<CstTree>(file);
  if (!l->tree->syntax_clean()) {
    if (auto errs = syntax_errors(*l->tree); !errs.empty()) throw CompileError(std::move(errs));
    l->tree->mark_syntax_clean();
  }
  // The main module takes the undotted -D NAME=VALUE; a module `config` takes -D config.NAME=VALUE.
  Defines mine;
  const bool is_main = mods_.empty();
  for (const auto& [k, v] : defines_) {
    auto dot = k.rfind('.');
    if (dot == std::string::npos) {
      if (is_main) mine.emplace_back(k, v);
    } else if (!is_main && k.substr(0, dot) == name) {
      mine.emplace_back(k.substr(dot + 1), v);
      used_module_defines_.insert(k);
    }
  }
  Loaded* raw = l.get();
  mods_.push_back(std::move(l));
  files_read_.push_back(file->path);
  // Registered before scanning so an import cycle finds the module being loaded (as Python's
  // partially initialised module); names resolve lazily, so only a cycle of values is an error.
  raw->info = std::make_unique<ModuleInfo>(*this, *raw->tree, name);
  dir_of_[raw->info.get()] = dir;
  by_path_[key] = raw->info.get();
  // Python runs a module when it is first imported: its imports run theirs first (nothing is
  // evaluated yet; this only fixes the order of statements).
  // -D values are evaluated once every module of this load ran (they may read any module's
  // values, which must not be computed while statements are still being numbered).
  pending_defines_.emplace_back(raw->info.get(), std::move(mine));
  if (run_) {
    ++running_;
    struct Done {
      int& n;
      ~Done() { --n; }
    } done{running_};
    raw->info->execute(raw->tree->root());
  }
  if (running_ == 0) {
    auto pending = std::move(pending_defines_);
    pending_defines_.clear();
    for (auto& [info, defs] : pending) info->apply_defines(defs);
    for (auto& [info, defs] : pending) info->evaluate_defines();
  }
  return *raw->info;
}

ModuleInfo& ModuleSet::load_main(SourceFilePtr file) {
  main_dir_ = dir_of(file->path);
  std::string stem = fs::path(file->path).stem().string();
  std::error_code ec;
  auto canon = fs::weakly_canonical(file->path, ec);
  return add(file, stem.empty() ? "__main__" : stem, main_dir_, ec ? file->path : canon.string());
}

ModuleInfo* ModuleSet::import(const std::string& dotted, int level, const ModuleInfo& from,
                              std::vector<std::string>& searched) {
  std::vector<std::string> parts;
  for (size_t b = 0; b <= dotted.size();) {
    size_t e = dotted.find('.', b);
    if (e == std::string::npos) e = dotted.size();
    if (e > b) parts.push_back(dotted.substr(b, e - b));
    b = e + 1;
  }
  const std::string from_dir = dir_of_.count(&from) ? dir_of_.at(&from) : main_dir_;
  // Found before from the same directory: the same module (running the modules in order asks
  // once per imported name).
  const std::string memo = fmt::format("{}|{}|{}", level, from_dir, dotted);
  if (auto it = found_.find(memo); it != found_.end()) return it->second;
  std::vector<fs::path> roots;
  if (level > 0) {
    fs::path base(from_dir);
    for (int i = 1; i < level; ++i) base = base.parent_path();
    roots.push_back(base);
  } else {
    roots.push_back(from_dir);
    if (main_dir_ != from_dir) roots.push_back(main_dir_);
    for (const auto& d : search_dirs_) roots.push_back(d);
  }
  for (const auto& root : roots) {
    fs::path p = root;
    for (const auto& s : parts) p /= s;
    for (const fs::path& cand : {fs::path(p.string() + ".py"), p / "__init__.py"}) {
      searched.push_back(cand.lexically_normal().string());
      std::error_code ec;
      if (!fs::is_regular_file(cand, ec)) continue;
      auto canon = fs::weakly_canonical(cand, ec);
      const std::string key = ec ? cand.string() : canon.string();
      if (auto it = by_path_.find(key); it != by_path_.end()) return found_[memo] = it->second;
      // The module's name for -D MODULE.NAME: the dotted path as written (relative imports keep
      // the part after the dots).
      ModuleInfo* m = &add(read_source(cand.lexically_normal().string()), dotted, cand.parent_path().string(), key);
      return found_[memo] = m;
    }
  }
  return nullptr;
}

std::vector<std::string> ModuleSet::unused_module_defines() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : defines_)
    if (k.find('.') != std::string::npos && !used_module_defines_.count(k)) out.push_back(k);
  return out;
}

}  // namespace pypto::parser
