// End-to-end smoke test of the emitter: emit a tiny program's project into the test work dir,
// build it with `ninja -C` and run bin/run on seeded inputs. Skipped (with a warning) when ninja
// is not installed.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "emit_test_util.h"

using namespace emit_test;
namespace fs = std::filesystem;

TEST_CASE("emitted project builds with ninja and bin/run runs", "[emit][smoke]") {
  if (std::system("command -v ninja > /dev/null 2>&1") != 0) {
    WARN("ninja not found: skipping the build-and-run smoke test");
    return;
  }
  const fs::path out = fs::path(PYPTO_TEST_WORK_DIR) / "square";
  if (!fs::exists(out / ".pypto-project")) fs::remove_all(out);  // left by an older pypto: not replaceable
  auto p = compile_program("e2e_square.py");
  pypto::emit::EmitOptions o;
  if (const char* cxx = std::getenv("CXX"); cxx && *cxx) o.cxx = cxx;  // as `pypto build` does (sanitizer presets)
  pypto::emit::write_project(*p, o, out.string());
  const std::string log = (fs::path(PYPTO_TEST_WORK_DIR) / "smoke.log").string();
  const std::string build = "ninja -C '" + out.string() + "' > '" + log + "' 2>&1";
  INFO(build << "\n" << read_file(log));
  REQUIRE(std::system(build.c_str()) == 0);
  REQUIRE(fs::exists(out / "bin" / "run"));
  fs::remove_all(out / "results");
  const std::string run = "'" + (out / "bin" / "run").string() + "' --seed 1 --outputs '" + (out / "results").string() +
                          "' >> '" + log + "' 2>&1";
  INFO(run << "\n" << read_file(log));
  REQUIRE(std::system(run.c_str()) == 0);
  bool any_npy = false;
  for (const auto& e : fs::directory_iterator(out / "results")) any_npy = any_npy || e.path().extension() == ".npy";
  CHECK(any_npy);
  // A second build has nothing to do (the generated build.ninja is stable).
  const std::string again = "ninja -C '" + out.string() + "' -n | grep -q 'no work to do'";
  CHECK(std::system(again.c_str()) == 0);
}
