// Runs independent jobs of one command on the machine's cores (pypto check's entries): job(i) for
// every i in [0, n), on at most std::thread::hardware_concurrency() threads, the calling thread
// among them. Worker threads get a stack as large as the main thread's limit (at least 8 MiB): a
// job is a whole front end, as deep as it is on the main thread. One job runs on the calling
// thread alone. A job must not throw (wrap it in run_guarded).
#pragma once

#include <cstddef>
#include <functional>

namespace pypto::cli {

void run_parallel(size_t n, const std::function<void(size_t)>& job);

}  // namespace pypto::cli
