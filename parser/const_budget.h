// Internal to the constant evaluator (const_call.cpp, const_body.cpp): the budgets that bound one
// top-level evaluation (call depth, statements + loop steps, sequence sizes) and their counters.
#pragma once

#include <cstdint>

namespace pypto::parser::const_budget {

constexpr int kMaxCallDepth = 64;
constexpr int64_t kMaxSteps = 2'000'000;  // loop iterations + statements per top-level evaluation
constexpr int64_t kMaxSequence = 1'000'000;

inline thread_local int call_depth = 0;  // function activations in progress
inline thread_local int64_t steps = 0;   // reset when the outermost activation returns

}  // namespace pypto::parser::const_budget
