// See run_parallel.h.
#include "cli/run_parallel.h"

#include <algorithm>
#include <atomic>
#include <pthread.h>
#include <sys/resource.h>
#include <thread>
#include <vector>

namespace pypto::cli {

namespace {

struct Shared {
  size_t n;
  const std::function<void(size_t)>* job;
  std::atomic<size_t> next{0};
  void drain() {
    for (size_t i; (i = next.fetch_add(1)) < n;) (*job)(i);
  }
};

void* worker(void* p) {
  static_cast<Shared*>(p)->drain();
  return nullptr;
}

size_t stack_bytes() {
  constexpr size_t kMin = size_t(8) << 20, kMax = size_t(256) << 20;
  rlimit r{};
  if (getrlimit(RLIMIT_STACK, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return kMax;
  return std::clamp<size_t>(r.rlim_cur, kMin, kMax);
}

}  // namespace

void run_parallel(size_t n, const std::function<void(size_t)>& job) {
  Shared shared{n, &job};
  const size_t threads = std::min<size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<pthread_t> started;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes());
  for (size_t t = 1; t < threads; ++t) {
    pthread_t th;
    if (pthread_create(&th, &attr, worker, &shared) == 0) started.push_back(th);  // else: fewer threads
  }
  pthread_attr_destroy(&attr);
  shared.drain();
  for (pthread_t th : started) pthread_join(th, nullptr);
}

}  // namespace pypto::cli
