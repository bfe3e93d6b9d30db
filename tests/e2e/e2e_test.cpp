// End-to-end: for each program in tests/programs/e2e_*.py, `pypto build` it (front end, passes,
// emitters, ninja; the project links the prebuilt runtime library and compiles no runtime source),
// run the generated bin/run on seeded inputs — with --check-races and --check-syncs, so every
// program the compiler writes must be race-free by the reference runtime's ordering rules and
// correctly synchronised inside its kernels —, and compare every output with an independent
// plain-C++ reference loop (reference.cpp).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "e2e/check.h"

namespace fs = std::filesystem;
using namespace pypto::e2e;

static int sh(const std::string& cmd) {
  int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST_CASE("end-to-end programs build, run and match the C++ reference", "[e2e]") {
  for (const auto& c : program_cases()) {
    SECTION(c.name) {
      fs::path out = fs::path(PYPTO_TEST_WORK_DIR) / c.name;
      if (!fs::exists(out / ".pypto-project")) fs::remove_all(out);  // left by an older pypto: not replaceable
      fs::create_directories(out.parent_path());
      std::string log = (fs::path(PYPTO_TEST_WORK_DIR) / (c.name + ".log")).string();
      std::string build = fmt::format("'{}' build '{}/{}' -o '{}' > '{}' 2>&1", PYPTO_BIN, PYPTO_TEST_PROGRAMS,
                                      c.file, out.string(), log);
      INFO("command: " << build << "  (log: " << log << ")");
      REQUIRE(sh(build) == 0);
      std::ifstream ninja_file(out / "build.ninja");
      std::stringstream ninja;
      ninja << ninja_file.rdbuf();
      INFO(ninja.str());
      CHECK(ninja.str().find("/src/") == std::string::npos);        // no runtime source compiled
      CHECK(ninja.str().find("obj/runtime/") == std::string::npos);
      CHECK(ninja.str().find(" $prebuilt/lib/libpypto_runner.a $prebuilt/lib/libpypto_runtime.a\n") != std::string::npos);
      std::string run =
          fmt::format("'{}/bin/run' --seed 7 --check-races --check-syncs --outputs '{}/results'", out.string(), out.string());
      for (const auto& s : c.scalars) run += " --scalar " + s;
      run += fmt::format(" >> '{}' 2>&1", log);
      INFO("command: " << run);
      REQUIRE(sh(run) == 0);
      auto r = check_results(c, (out / "results").string());
      INFO(r.report);
      CHECK(r.ok);
    }
  }
}
