// libFuzzer target: the front end on arbitrary bytes (targets.h, frontend_problem). Built only by
// the `fuzz` CMake preset (clang, -fsanitize=fuzzer,address,undefined); run by tests/fuzz/fuzz.py.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "tests/fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string problem = pypto::fuzz::frontend_problem(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!problem.empty()) {
    std::fprintf(stderr, "pypto fuzz finding (frontend): %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}
