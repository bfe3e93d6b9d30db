// Replays, with the normal compiler, every input the fuzzers ever flagged
// (tests/fuzz/regressions/<target>-<hash>, written by tests/fuzz/fuzz.py) and the seed corpus
// (tests/fuzz/seeds/, tests/programs/) through the fuzz targets' bodies (targets.h): each must now
// compile or be rejected with located diagnostics. A finding fixed in the compiler stays fixed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/fuzz/targets.h"

namespace fs = std::filesystem;
using namespace pypto::fuzz;

namespace {

const fs::path kFuzzDir = fs::path(PYPTO_SOURCE_DIR) / "tests" / "fuzz";

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string()[0] != '.' && e.path().filename() != "README.md")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const pypto::emit::EmitOptions& emit_options() {
  static const auto eo = stub_emit_options((fs::path(PYPTO_TEST_WORK_DIR) / "stub").string());
  return eo;
}

}  // namespace

TEST_CASE("every recorded fuzz finding is fixed", "[fuzz]") {
  size_t replayed = 0;
  for (const auto& p : files_in(kFuzzDir / "regressions")) {
    const std::string name = p.filename().string();
    const std::string input = slurp(p);
    INFO(name);
    if (name.rfind("frontend-", 0) == 0) {
      CHECK(frontend_problem(input) == "");
    } else if (name.rfind("pipeline-", 0) == 0) {
      CHECK(pipeline_problem(input, emit_options()) == "");
      CHECK(frontend_problem(input) == "");
    } else {
      FAIL_CHECK("a regression input must be named frontend-* or pipeline-*");
    }
    ++replayed;
  }
  WARN(replayed << " regression inputs replayed");
}

TEST_CASE("the seed corpus goes through both targets cleanly", "[fuzz]") {
  auto seeds = files_in(kFuzzDir / "seeds");
  REQUIRE(seeds.size() >= 10);
  for (const auto& p : files_in(PYPTO_TEST_PROGRAMS)) seeds.push_back(p);
  for (const auto& p : files_in(fs::path(PYPTO_TEST_PROGRAMS) / "forms")) seeds.push_back(p);
  for (const auto& p : seeds) {
    INFO(p.string());
    const std::string input = slurp(p);
    CHECK(frontend_problem(input) == "");
    CHECK(pipeline_problem(input, emit_options()) == "");
  }
}
