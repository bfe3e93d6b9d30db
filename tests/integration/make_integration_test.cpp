// The Make example (tests/integration/make/, its model in ../model/), built as a user would: `make` generates the project
// with pypto (and its depfile) and builds it with ninja; `make` again does nothing; touching the
// imported config.py regenerates without recompiling (nothing in the generated text changed);
// editing its constant regenerates and recompiles the one kernel, and the run's numbers follow.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli/cli_util.h"
#include "integration_util.h"

namespace fs = std::filesystem;
using namespace clitest;

namespace {

const fs::path kRoot = fs::path(PYPTO_TEST_WORK_DIR) / "integration";
const fs::path kDir = kRoot / "make";
const fs::path kConfig = kRoot / "model" / "config.py";

Run make(const std::string& target = "") {
  return shell(fmt::format("cd '{}' && make PYPTO='{}' {} 2>&1", kDir.string(), PYPTO_BIN, target));
}


void write(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::trunc);
  f << text;
}


}  // namespace

TEST_CASE("the Make example builds, rebuilds what changed and nothing else", "[integration][make]") {
  fs::remove_all(kRoot);
  fs::create_directories(kRoot);
  for (const char* d : {"make", "model"})
    fs::copy(fs::path(PYPTO_SOURCE_DIR) / "tests" / "integration" / d, kRoot / d, fs::copy_options::recursive);

  auto first = make();
  INFO(first.out);
  REQUIRE(first.code == 0);
  CHECK_THAT(first.out, Catch::Contains("build --emit-only ../model/model.py -o out --depfile out.d"));
  CHECK_THAT(first.out, Catch::Contains("LINK bin/run"));
  // The depfile names the imported module.
  CHECK_THAT(slurp(kDir / "out.d"), Catch::Contains("config.py"));
  auto run = make("run");
  INFO(run.out);
  REQUIRE(run.code == 0);
  CHECK(integration::applied_scale(kDir / "out" / "results") == 2.0f);

  // Nothing touched: nothing happens.
  auto again = make();
  INFO(again.out);
  CHECK(again.code == 0);
  CHECK_THAT(again.out, Catch::Contains("Nothing to be done"));

  // The imported module touched: pypto regenerates, every generated file is unchanged, ninja has
  // nothing to do.
  integration::age_everything(kRoot);
  fs::last_write_time(kConfig, fs::file_time_type::clock::now());
  auto touched = make();
  INFO(touched.out);
  CHECK(touched.code == 0);
  CHECK_THAT(touched.out, Catch::Contains("--depfile out.d"));
  CHECK_THAT(touched.out, Catch::Contains("ninja: no work to do"));
  CHECK_THAT(make().out, Catch::Contains("Nothing to be done"));

  // Its constant edited: the kernel is regenerated and recompiled (the orchestration is not), and
  // the run computes with the new value.
  std::string cfg = slurp(kConfig);
  cfg = std::regex_replace(cfg, std::regex("SCALE = 2.0"), "SCALE = 3.0");
  integration::age_everything(kRoot);
  write(kConfig, cfg);
  auto edited = make("run");
  INFO(edited.out);
  REQUIRE(edited.code == 0);
  CHECK_THAT(edited.out, Catch::Contains("CXX (AIV) kernels/aiv/scale.cpp"));
  CHECK_THAT(edited.out, !Catch::Contains("orchestration/model.cpp"));
  CHECK(integration::applied_scale(kDir / "out" / "results") == 3.0f);
}
