// Readable, valid, unique C++ identifiers for IR variables: the source name with SSA suffixes
// (`x__ssa_v0`, `acc__iter_v1`, `t__phi_v2`) dropped, invalid characters replaced, reserved
// words and names pto-isa / the runtime define as macros or functions avoided, and clashes
// resolved with `_1`, `_2`, ... (first free). One table per generated file.
#pragma once

#include <set>
#include <string>
#include <unordered_map>

#include "ir/expr.h"

namespace pypto::emit {

// `name` as a C identifier (no uniqueness).
std::string sanitize_identifier(const std::string& name);

class NameTable {
 public:
  // Marks a name as taken (e.g. the compute function's name).
  void reserve(const std::string& name) { used_.insert(name); }
  // The name of `v` (assigned on first request).
  const std::string& name(const ir::Var* v);
  bool has(const ir::Var* v) const { return names_.count(v) != 0; }
  // Binds `v` to an explicit identifier (marked used).
  void bind(const ir::Var* v, std::string id);
  // A fresh identifier derived from `base` (for helper locals: GM views, descriptors, ...).
  std::string fresh(const std::string& base);

 private:
  std::set<std::string> used_;
  std::unordered_map<const ir::Var*, std::string> names_;
};

}  // namespace pypto::emit
