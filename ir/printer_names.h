// Internal to the printer (printer.cpp): the names of the printed text. String literals and
// joins, making a name hint a valid non-reserved Python identifier, disambiguating the Vars of
// one scope (Namer), and the pre-scan that collects every Var a function's text mentions in
// print order (Scan), so names are fixed before printing starts. Not a public header.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/function.h"

namespace pypto::ir::printer_detail {

// A double-quoted Python string literal (escapes backslash, quote and control characters).
std::string quote(std::string_view s);
std::string join(const std::vector<std::string>& parts, std::string_view sep = ", ");
// Names that cannot be used as a local in the printed text (they get a trailing '_').
bool is_reserved_name(std::string_view s);
// A valid, non-reserved Python identifier derived from a name hint.
std::string sanitize(std::string_view hint);

// Printed names of the Vars of one scope. The first Var with a hint keeps it; later distinct
// Vars with the same hint get `_1`, `_2`, ... (first suffix that is neither taken nor the hint
// of another Var of the scope, so the result is stable under re-reading).
class Namer {
 public:
  void reserve_hint(const Var* v) { hints_.insert(sanitize(v->name)); }
  void fix(const Var* v, const std::string& name) {
    names_[v] = name;
    used_.insert(name);
  }
  const std::string& name(const Var* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    std::string base = sanitize(v->name), cand = base;
    if (used_.count(cand)) {
      for (int k = 1;; ++k) {
        cand = fmt::format("{}_{}", base, k);
        if (!used_.count(cand) && !hints_.count(cand)) break;
      }
    }
    used_.insert(cand);
    return names_.emplace(v, cand).first->second;
  }

 private:
  std::unordered_map<const Var*, std::string> names_;
  std::unordered_set<std::string> used_;
  std::unordered_set<std::string> hints_;
};

// Every Var a function's text mentions, in print order, plus the set with a binding site.
struct Scan {
  std::unordered_set<const Var*> bound;
  std::unordered_set<const Var*> seen;
  std::vector<const Var*> order;

  void var(const Var* v);
  void bind(const Var* v);
  void exprs(const std::vector<ExprPtr>& es);
  void type(const TypePtr& t);
  void expr(const ExprPtr& e);
  void stmt(const StmtPtr& s);
};

}  // namespace pypto::ir::printer_detail
