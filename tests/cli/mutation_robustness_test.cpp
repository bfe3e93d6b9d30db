// Bad input never crashes the tool: every program in tests/programs is mutated in deterministic
// ways and each mutant goes through the whole compiler in-process — front end, structural
// verification, pass pipeline, project rendering (tests/fuzz/targets.h, pipeline_problem, the
// body of the libFuzzer pipeline target). Two mutators (tests/fuzz/mutator.h): line edits (a line
// deleted or duplicated, a character deleted, a stray token inserted) and syntax-tree edits (a
// subtree replaced by another of its kind, boundary literals, other ops and dtypes, statements
// deleted / duplicated / moved, arguments and shape elements edited). The only acceptable
// outcomes are success or a CompileError whose diagnostics are located in the file; an
// InternalError (a verifier failure after a pass, an emitter invariant) or any other exception
// fails the test and prints the mutant.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/fuzz/mutator.h"
#include "tests/fuzz/targets.h"

namespace fs = std::filesystem;
using namespace pypto::fuzz;

namespace {

std::vector<std::pair<std::string, std::string>> programs() {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<fs::path> paths;
  for (const auto& e : fs::recursive_directory_iterator(PYPTO_TEST_PROGRAMS))
    if (e.path().extension() == ".py") paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  const auto texts = read_programs(PYPTO_TEST_PROGRAMS);
  for (size_t i = 0; i < paths.size(); ++i) out.emplace_back(paths[i].filename().string(), texts[i]);
  return out;
}

const pypto::emit::EmitOptions& emit_options() {
  static const auto eo = stub_emit_options((fs::path(PYPTO_TEST_WORK_DIR) / "stub").string());
  return eo;
}

}  // namespace

TEST_CASE("line-mutated programs compile or fail with a located diagnostic", "[robustness]") {
  size_t runs = 0;
  for (const auto& [name, text] : programs()) {
    for (uint64_t seed = 1; seed <= 200; ++seed) {
      Rng r{seed * 1000003u + fnv1a(name)};
      const std::string mutant = mutate_lines(text, r);
      ++runs;
      INFO(name << " seed " << seed << ":\n" << mutant);
      REQUIRE(pipeline_problem(mutant, emit_options()) == "");
    }
  }
  CHECK(runs >= 2000);
}

TEST_CASE("syntax-tree-mutated programs compile or fail with a located diagnostic", "[robustness]") {
  const auto progs = programs();
  std::vector<std::string> donors;
  for (const auto& p : progs) donors.push_back(p.second);
  const GrammarMutator mutator(donors);
  size_t runs = 0;
  for (const auto& [name, text] : progs) {
    for (uint64_t seed = 1; seed <= 100; ++seed) {
      Rng r{seed * 7919u + fnv1a(name)};
      std::string mutant = text;
      for (uint64_t edits = 1 + seed % 3; edits-- > 0;) mutant = mutator.mutate(mutant, r);
      ++runs;
      INFO(name << " seed " << seed << ":\n" << mutant);
      REQUIRE(pipeline_problem(mutant, emit_options()) == "");
    }
  }
  CHECK(runs >= 2000);
}
