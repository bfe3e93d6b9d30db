// Loading the modules of one compilation (see module_set.h).
#include "parser/module_set.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <string_view>

#include "parser/parse_cache.h"

namespace pypto::parser {

namespace fs = std::filesystem;
using namespace ir;

namespace {

// Byte offset of the first invalid UTF-8 sequence, or npos.
size_t invalid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    if (i + 8 <= s.size()) {  // eight ASCII bytes at a time (source files are mostly ASCII)
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if ((w & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
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
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) text.append(buf, size_t(in.gcount()));
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

ModuleSet::Chain::Chain(ModuleSet& s, const ir::Span& site, const std::string& name) : s_(s) {
  if (s_.chain_ >= kMaxConstantChain)
    throw ir::CompileError("E202", site,
                           fmt::format("cannot evaluate {}: it needs a chain of more than {} module constants, each "
                                       "defined by the next",
                                       name, kMaxConstantChain),
                           "define it more directly: pypto evaluates each constant through those it uses");
  ++s_.chain_;
}

ModuleSet::ModuleSet(std::vector<std::string> search_dirs, Defines defines, bool run)
    : search_dirs_(std::move(search_dirs)), defines_(std::move(defines)), run_(run) {}
ModuleSet::~ModuleSet() = default;

ModuleInfo& ModuleSet::add(SourceFilePtr file, const std::string& name, const std::string& dir, const std::string& key) {
  auto l = std::make_unique<Loaded>();
  // The file named on the command line is parsed whole; an imported module's plain defs are
  // parsed when first used (parse_cache.h).
  l->tree = std::make_unique<CstTree>(file, /*whole=*/mods_.empty());
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
  // Every use of a module set loads the import graph (running the modules, or check_imports):
  // its files are read now and parsed by the parse-ahead pool while this thread parses and scans
  // the main file.
  read_ahead(*file, main_dir_);
  std::string stem = fs::path(file->path).stem().string();
  std::error_code ec;
  auto canon = fs::weakly_canonical(file->path, ec);
  return add(file, stem.empty() ? "__main__" : stem, main_dir_, ec ? file->path : canon.string());
}

std::optional<ModuleSet::Located> ModuleSet::locate(const std::string& dotted, int level, const std::string& from_dir,
                                                    std::vector<std::string>* searched) const {
  std::vector<std::string> parts;
  for (size_t b = 0; b <= dotted.size();) {
    size_t e = dotted.find('.', b);
    if (e == std::string::npos) e = dotted.size();
    if (e > b) parts.push_back(dotted.substr(b, e - b));
    b = e + 1;
  }
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
      if (searched) searched->push_back(cand.lexically_normal().string());
      std::error_code ec;
      if (!fs::is_regular_file(cand, ec)) continue;
      auto canon = fs::weakly_canonical(cand, ec);
      return Located{cand.lexically_normal().string(), cand.parent_path().string(), ec ? cand.string() : canon.string()};
    }
  }
  return std::nullopt;
}

ModuleInfo* ModuleSet::import(const std::string& dotted, int level, const ModuleInfo& from,
                              std::vector<std::string>& searched) {
  const std::string from_dir = dir_of_.count(&from) ? dir_of_.at(&from) : main_dir_;
  // Found before from the same directory: the same module (running the modules in order asks
  // once per imported name).
  const std::string memo = fmt::format("{}|{}|{}", level, from_dir, dotted);
  if (auto it = found_.find(memo); it != found_.end()) return it->second;
  auto loc = locate(dotted, level, from_dir, &searched);
  if (!loc) return nullptr;
  if (auto it = by_path_.find(loc->key); it != by_path_.end()) return found_[memo] = it->second;
  SourceFilePtr file;
  if (auto it = read_ahead_.find(loc->key); it != read_ahead_.end()) file = it->second;
  else file = read_source(loc->path);
  // The module's name for -D MODULE.NAME: the dotted path as written (relative imports keep the
  // part after the dots).
  return found_[memo] = &add(std::move(file), dotted, loc->dir, loc->key);
}

namespace {

// The modules the top-level import lines of `text` may name, as (leading dots, dotted path):
// `import a.b as c, d` → a.b, d; `from .m import x, y` → .m, .m.x, .m.y (a name may be a
// submodule). A guess for reading ahead only (ModuleInfo reads the imports from the tree):
// lines inside brackets or blocks are not looked at.
std::vector<std::pair<int, std::string>> import_lines(const std::string& text) {
  std::vector<std::pair<int, std::string>> out;
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  size_t i = 0;
  while (i < text.size()) {
    size_t eol = text.find('\n', i);
    if (eol == std::string::npos) eol = text.size();
    std::string_view line(text.data() + i, eol - i);
    i = eol + 1;
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    auto words = [&](std::string_view rest, auto&& take) {  // comma-separated `dotted [as name]`
      size_t k = 0;
      while (k < rest.size()) {
        while (k < rest.size() && !ident(rest[k])) ++k;
        size_t b = k;
        while (k < rest.size() && ident(rest[k])) ++k;
        if (k > b) take(std::string(rest.substr(b, k - b)));
        while (k < rest.size() && rest[k] == ' ') ++k;
        if (rest.substr(k, 3) == "as ") {  // skip the alias
          k += 3;
          while (k < rest.size() && rest[k] == ' ') ++k;
          while (k < rest.size() && ident(rest[k])) ++k;
        }
      }
    };
    if (line.substr(0, 7) == "import ") {
      words(line.substr(7), [&](std::string w) { out.emplace_back(0, std::move(w)); });
    } else if (line.substr(0, 5) == "from ") {
      size_t k = 5;
      while (k < line.size() && line[k] == ' ') ++k;
      int level = 0;
      while (k < line.size() && line[k] == '.') ++level, ++k;
      size_t b = k;
      while (k < line.size() && ident(line[k])) ++k;
      const std::string mod(line.substr(b, k - b));
      const size_t imp = line.find(" import ", k);
      if (imp == std::string_view::npos) continue;
      if (!mod.empty()) out.emplace_back(level, mod);
      words(line.substr(imp + 8), [&](std::string w) {
        if (w.find('.') == std::string::npos) out.emplace_back(level, mod.empty() ? w : mod + "." + w);
      });
    }
  }
  return out;
}

}  // namespace

void ModuleSet::read_ahead(const SourceFile& file, const std::string& dir) {
  for (const auto& [level, dotted] : import_lines(file.text)) {
    auto loc = locate(dotted, level, dir, nullptr);
    if (!loc || read_ahead_.count(loc->key)) continue;
    SourceFilePtr f;
    try {
      f = read_source(loc->path);
    } catch (const CompileError&) {
      continue;  // reported if and when the import is loaded
    }
    read_ahead_[loc->key] = f;
    parse_ahead(f);
    read_ahead(*f, loc->dir);
  }
}

std::vector<std::string> ModuleSet::unused_module_defines() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : defines_)
    if (k.find('.') != std::string::npos && !used_module_defines_.count(k)) out.push_back(k);
  return out;
}

}  // namespace pypto::parser
