// Safe names for everything a generated project derives from user identifiers (function names,
// `name_hint=`): the file stem of kernels/<core>/<stem>.cpp and orchestration/<stem>.cpp, and the
// symbol pypto_kernel_<stem> a kernel's entry is renamed to. A stem holds only [A-Za-z0-9_] and
// at most kMaxStem characters, so it can never name a directory, climb out of OUT or need
// escaping. A name that already is such a stem is used verbatim (`int`, `main`, `kernel_entry`
// included — the C++ spelling inside the file is the emitter's business); any other name is
// replaced character by character, truncated and suffixed with `_<8 hex digits of FNV-1a>` of
// the original name. ProjectNames makes the mapping collision-free over one program (also under
// case-insensitive file systems). Also: the quoting helpers for names written into string
// literals and build.ninja.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "ir/function.h"

namespace pypto::emit {

inline constexpr size_t kMaxStem = 64;

// 32-bit FNV-1a of the bytes of `s`, as 8 lower-case hex digits (the same on every platform).
std::string fnv1a_hex(const std::string& s);

// The stem of `name` on its own (ProjectNames resolves collisions between stems).
std::string file_stem(const std::string& name);

class ProjectNames {
 public:
  // Stems for every function of `p`: names that are their own stem first (they keep it), then
  // the others in program order; a stem already taken gets the hash and then `_2`, `_3`, ...
  explicit ProjectNames(const ir::Program& p);
  // The stem of `f` (a function of the program this table was built from).
  const std::string& stem(const ir::Function& f) const;
  // "pypto_kernel_<stem>": the symbol kernel_entry of `k` is compiled as.
  std::string entry_symbol(const ir::Function& k) const { return "pypto_kernel_" + stem(k); }

 private:
  std::unordered_map<const ir::Function*, std::string> stems_;
};

// `s` as the body of a double-quoted C++ or Python string literal (quotes and backslashes
// escaped, control bytes as 3-digit octal escapes; UTF-8 is kept as it is).
std::string string_literal_body(const std::string& s);

// `s` as a ninja path or variable value: `$` → `$$`, space → `$ `, `:` → `$:`.
std::string ninja_escape_path(const std::string& s);

// `s` as one POSIX shell word (unchanged when it holds only safe characters).
std::string shell_word(const std::string& s);

}  // namespace pypto::emit
