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
inline thread_local int comprehension_depth = 0;  // comprehensions in progress

// A comprehension outside any function activation is a top-level evaluation of its own: its
// steps start from 0 and are cleared when it ends (not carried into the next evaluation, which
// may belong to another compile on this thread).
struct ComprehensionScope {
  bool top;
  ComprehensionScope() : top(call_depth == 0 && comprehension_depth == 0) {
    if (top) steps = 0;
    ++comprehension_depth;
  }
  ~ComprehensionScope() {
    --comprehension_depth;
    if (top) steps = 0;
  }
  ComprehensionScope(const ComprehensionScope&) = delete;
  ComprehensionScope& operator=(const ComprehensionScope&) = delete;
};

}  // namespace pypto::parser::const_budget
