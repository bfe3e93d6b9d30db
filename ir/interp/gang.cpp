// The interpreter's mixed task: members taking turns over one FIFO (gang.h).
#include "ir/interp/gang.h"

#include <fmt/format.h>

#include <thread>

#include "ir/diagnostic.h"

namespace pypto::ir::interp {

namespace {
const char* kDir[2] = {"AIC -> AIV", "AIV -> AIC"};
thread_local int t_member = -1;  // the gang member this thread runs

// Half `k` of a 2-D array along `axis` (0: rows, 1: columns).
Value half(const Array& a, int axis, int k) {
  Array h = a.copy();
  if (a.shape.size() != 2 || a.shape[axis] % 2 != 0) return Value::array(h);
  const int64_t n = a.shape[axis] / 2;
  Array out = Array::zeros(a.dtype, axis == 0 ? std::vector<int64_t>{n, a.shape[1]} : std::vector<int64_t>{a.shape[0], n});
  for (int64_t r = 0; r < out.shape[0]; ++r)
    for (int64_t c = 0; c < out.shape[1]; ++c)
      out.set(r * out.shape[1] + c, axis == 0 ? h.at((r + k * n) * a.shape[1] + c) : h.at(r * a.shape[1] + c + k * n));
  return Value::array(out);
}
}  // namespace

Gang::Gang(std::vector<std::string> names, Span site, size_t group_size)
    : names_(std::move(names)), site_(std::move(site)), done_(names_.size(), false), waiting_(names_.size(), -1),
      barrier_gen_(names_.size(), 0) {
  group_size_ = group_size > 0 ? group_size : std::max<size_t>(names_.size(), 1);
  lanes_ = group_size_ > 1 ? group_size_ - 1 : 1;
  const size_t groups = (names_.size() + group_size_ - 1) / group_size_;
  for (auto& q : q_) q.resize(std::max<size_t>(groups, 1) * lanes_);
}

size_t Gang::t_group() const { return t_member >= 0 ? group_of(t_member) : 0; }

int Gang::lane() const {
  const int role = t_member >= 0 ? role_of(t_member) : 0;
  return role > 0 ? role - 1 : 0;
}

void Gang::wait_turn(int me, std::unique_lock<std::mutex>& lk) {
  cv_.wait(lk, [&] { return turn_ == me || abort_; });
  if (abort_) throw Aborted{};
}

void Gang::pass_turn(int me) {
  const int n = static_cast<int>(names_.size());
  for (int k = 1; k <= n; ++k) {
    const int next = (me + k) % n;
    if (!done_[static_cast<size_t>(next)]) {
      turn_ = next;
      break;
    }
  }
  cv_.notify_all();
}

void Gang::member(int me, const std::function<void()>& body) {
  t_member = me;
  try {
    {
      std::unique_lock<std::mutex> lk(m_);
      wait_turn(me, lk);
    }
    body();
    std::unique_lock<std::mutex> lk(m_);
    done_[static_cast<size_t>(me)] = true;
    pass_turn(me);
  } catch (const Aborted&) {
  } catch (...) {
    std::unique_lock<std::mutex> lk(m_);
    if (!err_) err_ = std::current_exception();
    abort_ = true;
    done_[static_cast<size_t>(me)] = true;
    cv_.notify_all();
  }
  t_member = -1;
}

void Gang::run(const std::vector<std::function<void()>>& members) {
  std::vector<std::thread> ts;
  for (size_t i = 0; i < members.size(); ++i) ts.emplace_back([&, i] { member(static_cast<int>(i), members[i]); });
  for (auto& t : ts) t.join();
  if (err_) std::rethrow_exception(err_);
  for (int d = 0; d < 2; ++d)
    for (const auto& q : q_[d])
      if (!q.empty())
        throw CompileError("E602", site_,
                           fmt::format("pypto eval: mixed task '{}' ends with {} tile(s) pushed {} and never popped",
                                       fmt::join(names_, "' + '"), q.size(), kDir[d]),
                           "every tpush needs its tpop on the other half");
}

void Gang::push(int dir, Value v, const OpEval& e) {
  std::unique_lock<std::mutex> lk(m_);
  const int64_t split = e.kw_int("split", 0);
  const size_t lanes = lanes_;
  if (dir == 0) {  // AIC → AIV: the whole tile to lane 0, or each lane its half
    if (split == 1 || split == 2) {
      for (size_t k = 0; k < lanes; ++k) queue(0, int(k)).push_back(half(v.arr, split == 1 ? 0 : 1, int(k)));
    } else {
      queue(0, 0).push_back(std::move(v));
    }
    return;
  }
  queue(1, lane()).push_back(std::move(v));  // AIV → AIC: per pushing lane
}

bool Gang::ready_for(int m, int d) {
  if (d == 2) return generation_ > barrier_gen_[static_cast<size_t>(m)];
  const size_t g = group_of(m);
  const int role = role_of(m);
  if (d == 0) return !queue_of(g, 0, role > 0 ? role - 1 : 0).empty();  // its lane: role - 1 for an AIV lane
  for (size_t k = 0; k < lanes_; ++k)
    if (queue_of(g, 1, int(k)).empty()) return false;
  return true;
}

void Gang::barrier(const OpEval& e) {
  const int me = t_member < 0 ? 0 : t_member;
  const auto mi = static_cast<size_t>(me);
  std::unique_lock<std::mutex> lk(m_);
  barrier_gen_[mi] = generation_;
  if (++arrived_ == static_cast<int>(names_.size())) {
    arrived_ = 0;
    ++generation_;
    return;
  }
  while (!ready_for(me, 2)) {
    bool someone = false;
    std::vector<std::string> ended;
    for (size_t o = 0; o < names_.size(); ++o) {
      if (int(o) == me) continue;
      if (done_[o]) ended.push_back(names_[o]);
      else if (waiting_[o] < 0 || ready_for(int(o), waiting_[o])) someone = true;
    }
    if (!someone)
      e.fail(fmt::format("pl.system.syncall never completes: '{}' waits at it, but {}", names_[mi],
                         ended.empty() ? std::string("every other block waits for something else")
                                       : fmt::format("'{}' ended without reaching it", fmt::join(ended, "', '"))),
             "every block of the launch must reach each syncall (on the device the AICore would time out)");
    waiting_[mi] = 2;
    pass_turn(me);
    wait_turn(me, lk);
    waiting_[mi] = -1;
  }
}

Value Gang::pop(int dir, const OpEval& e) {
  const int me = t_member < 0 ? (dir == 0 ? 1 : 0) : t_member;
  std::unique_lock<std::mutex> lk(m_);
  auto ready = [&] { return ready_for(me, dir); };
  while (!ready()) {
    // Another member that can still make progress: running, or waiting on a pop that the
    // pushes since have made possible (it has not had its turn yet to see them).
    bool someone = false;
    for (size_t o = 0; o < names_.size(); ++o) {
      if (int(o) == me || done_[o]) continue;
      if (waiting_[o] < 0 || ready_for(int(o), waiting_[o])) someone = true;
    }
    if (!someone)
      e.fail(fmt::format("mixed task '{}' deadlocks: '{}' pops {} but no other member can push it (each has "
                         "finished or waits to pop itself)",
                         fmt::join(names_, "' + '"), names_[static_cast<size_t>(me)], kDir[dir]),
             "the halves must push and pop in the same order");
    waiting_[static_cast<size_t>(me)] = dir;
    pass_turn(me);
    wait_turn(me, lk);
    waiting_[static_cast<size_t>(me)] = -1;
  }
  if (dir == 0) {
    Value v = std::move(queue(0, lane()).front());
    queue(0, lane()).pop_front();
    return v;
  }
  // V2C: the lanes' pushes joined (one lane: its tile).
  std::vector<Value> parts;
  for (size_t k = 0; k < lanes_; ++k) {
    auto& q = queue(1, int(k));
    parts.push_back(std::move(q.front()));
    q.pop_front();
  }
  if (parts.size() == 1) return parts[0];
  const int64_t split = e.kw_int("split", 0);
  const Array& a = parts[0].arr;
  const Array& b = parts[1].arr;
  const int axis = split == 2 ? 1 : 0;
  std::vector<int64_t> shape = a.shape;
  shape[axis] += b.shape[axis];
  Array out = Array::zeros(a.dtype, shape);
  for (int64_t r = 0; r < shape[0]; ++r)
    for (int64_t c = 0; c < shape[1]; ++c) {
      const bool second = axis == 0 ? r >= a.shape[0] : c >= a.shape[1];
      const Array& src = second ? b : a;
      const int64_t rr = axis == 0 && second ? r - a.shape[0] : r, cc = axis == 1 && second ? c - a.shape[1] : c;
      out.set(r * shape[1] + c, src.at(rr * src.shape[1] + cc));
    }
  return Value::array(out);
}

}  // namespace pypto::ir::interp
