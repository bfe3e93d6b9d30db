// File stems, entry symbols and quoting for generated projects (file_names.h).
#include "emit/file_names.h"

#include <cctype>
#include <fmt/format.h>
#include <set>

#include "ir/diagnostic.h"

namespace pypto::emit {

namespace {

bool stem_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool is_own_stem(const std::string& name) {
  if (name.empty() || name.size() > kMaxStem) return false;
  for (char c : name)
    if (!stem_char(c)) return false;
  return true;
}

std::string lower(const std::string& s) {
  std::string o = s;
  for (char& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

}  // namespace

std::string fnv1a_hex(const std::string& s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 16777619u;
  }
  return fmt::format("{:08x}", h);
}

namespace {
// `name` with every other character replaced by '_', truncated, plus `_<hash of name>`.
std::string hashed_stem(const std::string& name) {
  constexpr size_t kHashLen = 9;  // "_" + 8 hex digits
  std::string base;
  for (char c : name) {
    if (base.size() + kHashLen >= kMaxStem) break;
    base.push_back(stem_char(c) ? c : '_');
  }
  if (base.empty()) base.push_back('f');
  base.push_back('_');
  base.append(fnv1a_hex(name));
  return base;
}
}  // namespace

std::string file_stem(const std::string& name) { return is_own_stem(name) ? name : hashed_stem(name); }

ProjectNames::ProjectNames(const ir::Program& p) {
  std::set<std::string> taken;  // lower-cased: two stems never differ only in case
  for (const auto& f : p.functions)
    if (is_own_stem(f->name) && taken.insert(lower(f->name)).second) stems_[f.get()] = f->name;
  for (const auto& f : p.functions) {
    if (stems_.count(f.get())) continue;
    std::string s = file_stem(f->name);
    if (taken.count(lower(s)) && s == f->name) s = hashed_stem(f->name);  // differs only in case
    const std::string base = s.size() + 4 > kMaxStem ? s.substr(0, kMaxStem - 4) : s;
    for (int n = 2; taken.count(lower(s)); ++n) s = fmt::format("{}_{}", base, n);
    taken.insert(lower(s));
    stems_[f.get()] = s;
  }
}

const std::string& ProjectNames::stem(const ir::Function& f) const {
  auto it = stems_.find(&f);
  if (it == stems_.end())
    throw ir::InternalError("emit", fmt::format("function '{}' is not in the project's name table", f.name), f.span);
  return it->second;
}

std::string string_literal_body(const std::string& s) {
  std::string o;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      o += '\\';
      o += ch;
    } else if (c < 0x20 || c == 0x7f) {
      o += fmt::format("\\{:03o}", c);
    } else {
      o += ch;
    }
  }
  return o;
}

std::string ninja_escape_path(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '$' || c == ' ' || c == ':') o += '$';
    o += c;
  }
  return o;
}

std::string shell_word(const std::string& s) {
  bool safe = !s.empty();
  for (char c : s) safe = safe && (std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_-./+=,%@").find(c) != std::string_view::npos);
  if (safe) return s;
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

}  // namespace pypto::emit
