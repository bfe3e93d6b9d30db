// The interpreter's mixed task: two halves taking turns over one FIFO (gang.h).
#include "ir/interp/gang.h"

#include <fmt/format.h>

#include <thread>

#include "ir/diagnostic.h"

namespace pypto::ir::interp {

namespace {
const char* kDir[2] = {"AIC -> AIV", "AIV -> AIC"};
}

void Gang::wait_turn(int me, std::unique_lock<std::mutex>& lk) {
  cv_.wait(lk, [&] { return turn_ == me || abort_; });
  if (abort_) throw Aborted{};
}

void Gang::pass_turn(int me) {
  turn_ = 1 - me;
  cv_.notify_all();
}

void Gang::member(int me, const std::function<void()>& body) {
  try {
    {
      std::unique_lock<std::mutex> lk(m_);
      wait_turn(me, lk);
    }
    body();
    std::unique_lock<std::mutex> lk(m_);
    done_[me] = true;
    pass_turn(me);
  } catch (const Aborted&) {
  } catch (...) {
    std::unique_lock<std::mutex> lk(m_);
    if (!err_) err_ = std::current_exception();
    abort_ = true;
    done_[me] = true;
    cv_.notify_all();
  }
}

void Gang::run(const std::function<void()>& aic, const std::function<void()>& aiv) {
  std::thread t0([&] { member(0, aic); });
  std::thread t1([&] { member(1, aiv); });
  t0.join();
  t1.join();
  if (err_) std::rethrow_exception(err_);
  for (int d = 0; d < 2; ++d)
    if (!q_[d].empty())
      throw CompileError("E602", site_,
                         fmt::format("pypto eval: mixed task '{}' + '{}' ends with {} tile(s) pushed {} and never popped",
                                     names_[0], names_[1], q_[d].size(), kDir[d]),
                         "every tpush needs its tpop on the other half");
}

void Gang::push(int dir, Value v, const OpEval&) {
  std::unique_lock<std::mutex> lk(m_);
  q_[dir].push_back(std::move(v));
}

Value Gang::pop(int dir, const OpEval& e) {
  const int me = dir == 0 ? 1 : 0;  // C2V is popped by the AIV half, V2C by the AIC half
  std::unique_lock<std::mutex> lk(m_);
  while (q_[dir].empty()) {
    const int other = 1 - me;
    const bool other_stuck = waiting_[other] >= 0 && q_[waiting_[other]].empty();
    if (done_[other] || other_stuck)
      e.fail(fmt::format("mixed task '{}' + '{}' deadlocks: '{}' pops {} but '{}' {}", names_[0], names_[1], names_[me],
                         kDir[dir], names_[other],
                         done_[other] ? "has finished without pushing it"
                                      : fmt::format("waits to pop {} itself", kDir[waiting_[other]])),
             "the halves must push and pop in the same order");
    waiting_[me] = dir;
    pass_turn(me);
    wait_turn(me, lk);
    waiting_[me] = -1;
  }
  Value v = std::move(q_[dir].front());
  q_[dir].pop_front();
  return v;
}

}  // namespace pypto::ir::interp
