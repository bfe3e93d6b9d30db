// The interpreter's mixed task: a Group's AIC half and its AIV half (on one lane, or on both
// lanes after pl.split) run on threads that take turns — exactly one runs at a time, and a
// member gives up its turn only when it pops from an empty FIFO queue or finishes (the next
// member in order takes it), so every run interleaves the same way. Pushes never wait (the
// reference semantics of order, not of ring capacity: the runtime checks capacity); a push with
// a split mode hands each lane its half (rows for UP_DOWN, columns for LEFT_RIGHT). A pop no
// member can ever serve — every other member finished or waits on an empty queue — is a
// deadlock, reported naming the members and the direction. The same turn-taking runs the blocks of
// a launch whose kernel holds a pl.system.syncall: a block gives up its turn at the barrier until
// every block has arrived. A launch of a mixed kernel holding one runs every block's halves in one
// gang: the members form groups (one per block, each AIC + AIV lanes with FIFO queues of its
// own), and the barrier waits for every member.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "ir/interp/op_semantics.h"

namespace pypto::ir::interp {

class Gang : public CrossCoreFifo, public LaunchBarrier {
 public:
  // Member 0 is the AIC half, members 1.. the AIV lanes; or, for the blocks of a launch that
  // holds a pl.system.syncall, member b is block b (they share no FIFO, only the barrier).
  // `group_size` > 0 splits the members into groups of that many (member g * group_size + k is
  // member k of group g), each with its own FIFO queues.
  Gang(std::vector<std::string> names, Span site, size_t group_size = 0);
  // Runs every member to completion; rethrows the first error.
  void run(const std::vector<std::function<void()>>& members);

  void push(int dir, Value v, const OpEval& e) override;
  Value pop(int dir, const OpEval& e) override;
  int lane() const override;
  // pl.system.syncall: waits (giving up the turn) until every member has arrived; a member that
  // has finished without arriving makes it a deadlock, reported naming the members.
  void barrier(const OpEval& e) override;

 private:
  struct Aborted {};
  void member(int me, const std::function<void()>& body);
  void wait_turn(int me, std::unique_lock<std::mutex>& lk);
  void pass_turn(int me);
  // Whether member `m` could go on from what it waits for (`d`: 0 / 1 a pop direction, 2 the barrier).
  bool ready_for(int m, int d);
  // The queue a member pops from in `dir` (C2V: its lane's; V2C: the AIC's, per lane pushed).
  std::deque<Value>& queue(int dir, int lane) { return queue_of(t_group(), dir, lane); }
  std::deque<Value>& queue_of(size_t group, int dir, int lane) { return q_[dir][group * lanes_ + static_cast<size_t>(lane)]; }
  size_t group_of(int m) const { return static_cast<size_t>(m) / group_size_; }
  int role_of(int m) const { return static_cast<int>(static_cast<size_t>(m) % group_size_); }
  size_t t_group() const;  // the group of the member this thread runs

  std::vector<std::string> names_;
  Span site_;
  std::mutex m_;
  std::condition_variable cv_;
  int turn_ = 0;
  std::vector<bool> done_;
  std::vector<int> waiting_;  // per member: the direction it waits to pop from, 2: the barrier, -1: not waiting
  int arrived_ = 0;            // members at the barrier's current generation
  uint64_t generation_ = 0;
  std::vector<uint64_t> barrier_gen_;  // per member: the generation it waits to end
  bool abort_ = false;
  size_t group_size_ = 1, lanes_ = 1;     // members per group, AIV lanes per group
  std::vector<std::deque<Value>> q_[2];  // per direction, per group and AIV lane
  std::exception_ptr err_;
};

}  // namespace pypto::ir::interp
