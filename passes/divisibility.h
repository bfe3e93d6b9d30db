// Divisibility of index expressions in one function: what an offset is known to be a multiple
// of, from constants, sums, products, loop variables (start and step) and the single assignment
// (SSA) of a scalar. A check that needs an aligned runtime offset (a window of a fractal tile on
// its 16-row grid) asks `multiple_of(e, k)`; anything it cannot see through counts as 1.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "ir/function.h"

namespace pypto::passes {

class Divisibility {
 public:
  explicit Divisibility(const ir::Function& f);
  // The largest known d with e ≡ 0 (mod d); 0 when e is known to be 0 (a multiple of anything).
  int64_t divisor(const ir::ExprPtr& e) const;
  bool multiple_of(const ir::ExprPtr& e, int64_t k) const;

 private:
  int64_t divisor(const ir::ExprPtr& e, int depth) const;
  std::unordered_map<const ir::Var*, ir::ExprPtr> defs_;  // a scalar's value (SSA assignment)
  std::unordered_map<const ir::Var*, std::pair<ir::ExprPtr, ir::ExprPtr>> loops_;  // loop var: start, step
};

}  // namespace pypto::passes
