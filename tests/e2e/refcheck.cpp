// refcheck PROGRAM RESULTS_DIR — compares the outputs bin/run wrote into RESULTS_DIR (run with
// --seed N --outputs RESULTS_DIR) against the independent C++ reference of an end-to-end program
// (tests/programs/e2e_<PROGRAM>.py). Prints one line per output; exit 0 when all match.
#include <cstdio>
#include <string>

#include "e2e/check.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: refcheck PROGRAM RESULTS_DIR\nprograms:");
    for (const auto& c : pypto::e2e::program_cases()) std::fprintf(stderr, " %s", c.name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  const auto* c = pypto::e2e::find_case(argv[1]);
  if (!c) {
    std::fprintf(stderr, "refcheck: unknown program '%s'\n", argv[1]);
    return 2;
  }
  auto r = pypto::e2e::check_results(*c, argv[2]);
  std::fputs(r.report.c_str(), r.ok ? stdout : stderr);
  if (r.ok) std::printf("refcheck: PASS\n");
  return r.ok ? 0 : 1;
}
