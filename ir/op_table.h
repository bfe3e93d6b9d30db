// A backend's per-op table keyed by registry entry. Backends (the kernel emitter's pto-isa
// spellings, the orchestration emitter's API spellings) write their rows with the op's registry
// name; the table resolves every name once, on first use, to its OpDef, and is looked up by
// OpDef afterwards — never by string. Names that match no registered op are kept in unknown(),
// which the registry test reports (a table naming an unregistered op is a bug, not a no-op).
#pragma once

#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/op_registry.h"

namespace pypto::ir {

template <class Row>  // Row has a `std::string_view op` member: the registry name
class OpInfoTable {
 public:
  explicit OpInfoTable(std::span<const Row> rows) {
    const auto& reg = OpRegistry::instance();
    for (const Row& r : rows) {
      const OpDef* def = reg.find(r.op);
      if (!def || by_op_.count(def)) unknown_.push_back(r.op);  // unregistered or a second row
      else by_op_.emplace(def, &r);
    }
  }
  const Row* find(const OpDef& op) const {
    auto it = by_op_.find(&op);
    return it == by_op_.end() ? nullptr : it->second;
  }
  // Row names that match no registered op, or repeat an op that already has a row.
  const std::vector<std::string_view>& unknown() const { return unknown_; }
  size_t size() const { return by_op_.size(); }

 private:
  std::unordered_map<const OpDef*, const Row*> by_op_;
  std::vector<std::string_view> unknown_;
};

}  // namespace pypto::ir
