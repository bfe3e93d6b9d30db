// The interpreter's mixed task: a Group's AIC and AIV halves run on two threads that take turns
// — exactly one runs at a time, and a half gives up its turn only when it pops from an empty
// FIFO direction or finishes, so every run interleaves the same way. Pushes never wait (the
// reference semantics of order, not of ring capacity: the runtime checks capacity). A pop that
// can never be served — the other half finished, or waits on a pop itself — is a deadlock,
// reported naming both halves and the direction.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>

#include "ir/interp/op_semantics.h"

namespace pypto::ir::interp {

class Gang : public CrossCoreFifo {
 public:
  Gang(std::string aic, std::string aiv, Span site) : names_{std::move(aic), std::move(aiv)}, site_(std::move(site)) {}
  // Runs member 0 (the AIC half) and 1 (the AIV half) to completion; rethrows the first error.
  void run(const std::function<void()>& aic, const std::function<void()>& aiv);

  void push(int dir, Value v, const OpEval& e) override;
  Value pop(int dir, const OpEval& e) override;

 private:
  struct Aborted {};
  void member(int me, const std::function<void()>& body);
  void wait_turn(int me, std::unique_lock<std::mutex>& lk);
  void pass_turn(int me);

  std::string names_[2];
  Span site_;
  std::mutex m_;
  std::condition_variable cv_;
  int turn_ = 0;
  bool done_[2] = {false, false};
  int waiting_[2] = {-1, -1};  // the direction a member waits to pop from, -1: not waiting
  bool abort_ = false;
  std::deque<Value> q_[2];
  std::exception_ptr err_;
};

}  // namespace pypto::ir::interp
