// pypto_bench_reference PROGRAM RESULTS_DIR [REPS] — times the plain C++ reference loop of an
// end-to-end program (bench/reference/reference.cpp) on the inputs bin/run wrote into RESULTS_DIR,
// best of REPS (default 20), and prints "<ms>" — the figure bench/run.sh sets beside bin/run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "reference/check.h"
#include "reference/reference.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: pypto_bench_reference PROGRAM RESULTS_DIR [REPS]\n");
    return 2;
  }
  const auto* c = pypto::e2e::find_case(argv[1]);
  if (!c) {
    std::fprintf(stderr, "unknown program '%s'\n", argv[1]);
    return 2;
  }
  pypto::e2e::Arrays inputs = pypto::e2e::load_arrays(argv[2]);
  int reps = argc > 3 ? std::atoi(argv[3]) : 20;
  double best = 1e30;
  size_t sink = 0;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto out = c->reference(inputs);
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    sink += out.size();
  }
  std::printf("%.3f\n", best + 0.0 * double(sink));
  return 0;
}
