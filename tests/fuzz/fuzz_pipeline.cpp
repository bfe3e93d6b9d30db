// libFuzzer target: the whole compiler up to emission (targets.h, pipeline_problem) on
// grammar-aware mutations of DSL programs. The custom mutator makes syntax-tree edits
// (tests/fuzz/mutator.h) with subtrees taken from the test programs; one mutation in ten is
// libFuzzer's own byte-level one. Built only by the `fuzz` CMake preset; run by tests/fuzz/fuzz.py.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "tests/fuzz/mutator.h"
#include "tests/fuzz/targets.h"

using namespace pypto::fuzz;

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

std::unique_ptr<GrammarMutator> g_mutator;
pypto::emit::EmitOptions g_emit;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Donors: the test programs (PYPTO_FUZZ_DONORS overrides the directory).
  const char* dir = std::getenv("PYPTO_FUZZ_DONORS");
  g_mutator = std::make_unique<GrammarMutator>(read_programs(dir && *dir ? dir : PYPTO_TEST_PROGRAMS));
  g_emit = stub_emit_options((std::filesystem::temp_directory_path() / "pypto-fuzz-stub").string());
  std::fprintf(stderr, "pypto fuzz_pipeline: %zu donor fragments\n", g_mutator->fragment_count());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string problem = pipeline_problem(std::string_view(reinterpret_cast<const char*>(data), size), g_emit);
  if (!problem.empty()) {
    std::fprintf(stderr, "pypto fuzz finding (pipeline): %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  Rng r{seed * 0x9E3779B97F4A7C15ull + size};
  if (r.chance(10)) return LLVMFuzzerMutate(data, size, max_size);
  std::string text(reinterpret_cast<const char*>(data), size);
  const size_t edits = 1 + r.below(3);
  for (size_t i = 0; i < edits; ++i) text = g_mutator->mutate(text, r);
  if (text.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}
