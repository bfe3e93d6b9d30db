// refcheck PROGRAM RESULTS_DIR — compares the outputs bin/run wrote into RESULTS_DIR (run with
// --seed N --outputs RESULTS_DIR) against the independent C++ reference of an end-to-end program
// (tests/programs/e2e_<PROGRAM>.py). Prints one line per output; exit 0 when all match.
// `refcheck --list` prints one line per known program: NAME FILE [--scalar K=V]... (the bench
// reads it, so the program list lives in reference.cpp only).
#include <cstdio>
#include <string>

#include "reference/check.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const auto& c : pypto::e2e::program_cases()) {
      std::printf("%s %s", c.name.c_str(), c.file.c_str());
      for (const auto& s : c.scalars) std::printf(" --scalar %s", s.c_str());
      std::printf("\n");
    }
    return 0;
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: refcheck PROGRAM RESULTS_DIR | refcheck --list\nprograms:");
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
