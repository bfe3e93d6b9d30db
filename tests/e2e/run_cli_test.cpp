// The generated `bin/run` as a user drives it: --inputs / --outputs / --seed / --scalar, and its
// refusal of bad input (missing, wrong-shape, wrong-dtype or corrupt .npy files, missing or
// unknown scalars) with a message and a non-zero exit — never a crash or a silent wrong run.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <vector>

#include "cli/cli_util.h"
#include "pypto_rt/npy.h"

namespace fs = std::filesystem;

namespace {

using namespace clitest;

Run sh(const std::string& cmd) { return shell(cmd + " 2>&1"); }

// Builds tests/programs/e2e_elementwise.py once (x, y: In [64,128] FP32; alpha: FP32 scalar; z: Out).
const fs::path& project() {
  static const fs::path out = [] {
    fs::path o = fs::path(PYPTO_TEST_WORK_DIR) / "elementwise";
    if (!fs::exists(o / ".pypto-project")) fs::remove_all(o);  // left by an older pypto: not replaceable
    fs::create_directories(o.parent_path());
    auto r = sh(fmt::format("'{}' build '{}/e2e_elementwise.py' -o '{}'", PYPTO_BIN, PYPTO_TEST_PROGRAMS, o.string()));
    INFO(r.out);
    REQUIRE(r.code == 0);
    return o;
  }();
  return out;
}

Run run(const std::string& args) { return sh(fmt::format("'{}/bin/run' {}", project().string(), args)); }

void write_f32(const fs::path& p, std::vector<int64_t> shape, float value) {
  size_t n = 1;
  for (auto d : shape) n *= size_t(d);
  std::vector<float> v(n, value);
  pypto_rt::write_npy(p.string(), "<f4", shape, v.data(), n * sizeof(float));
}

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::path(PYPTO_TEST_WORK_DIR) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("bin/run reads inputs, takes scalars and writes outputs", "[run]") {
  fs::path in = fresh_dir("in_ok");
  write_f32(in / "x.npy", {64, 128}, 2.0f);
  write_f32(in / "y.npy", {64, 128}, 1.0f);
  fs::path out = fresh_dir("out_ok");
  auto r = run(fmt::format("--inputs '{}' --outputs '{}' --scalar alpha=0.5", in.string(), out.string()));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("1 tasks") != std::string::npos);
  auto z = pypto_rt::read_npy((out / "z.npy").string());
  CHECK(z.descr == "<f4");
  CHECK(z.shape == std::vector<int64_t>{64, 128});
  // relu(0.5 * 2 + 1 - 0.5) * 0.25 = 0.375, exactly representable
  std::vector<float> zv(z.numel());
  std::memcpy(zv.data(), z.data.data(), zv.size() * sizeof(float));
  for (float v : zv) REQUIRE(v == 0.375f);
}

TEST_CASE("bin/run with --seed is deterministic", "[run]") {
  fs::path a = fresh_dir("seed_a"), b = fresh_dir("seed_b"), c = fresh_dir("seed_c");
  REQUIRE(run(fmt::format("--seed 11 --outputs '{}' --scalar alpha=1.5", a.string())).code == 0);
  REQUIRE(run(fmt::format("--seed 11 --outputs '{}' --scalar alpha=1.5 --clusters 3", b.string())).code == 0);
  REQUIRE(run(fmt::format("--seed 12 --outputs '{}' --scalar alpha=1.5", c.string())).code == 0);
  for (const char* f : {"x.npy", "y.npy", "z.npy"}) {
    CHECK(slurp(a / f) == slurp(b / f));
    CHECK(slurp(a / f) != slurp(c / f));
  }
}

TEST_CASE("bin/run rejects bad inputs with a message and a non-zero exit", "[run]") {
  fs::path in = fresh_dir("in_bad");
  write_f32(in / "y.npy", {64, 128}, 1.0f);

  auto missing = run(fmt::format("--inputs '{}' --scalar alpha=1", in.string()));
  CHECK(missing.code != 0);
  CHECK(missing.out.find("missing input 'x'") != std::string::npos);

  write_f32(in / "x.npy", {32, 128}, 1.0f);
  auto shape = run(fmt::format("--inputs '{}' --scalar alpha=1", in.string()));
  CHECK(shape.code != 0);
  CHECK(shape.out.find("shape") != std::string::npos);
  CHECK(shape.out.find("'x'") != std::string::npos);

  std::vector<double> dbl(64 * 128, 1.0);
  pypto_rt::write_npy((in / "x.npy").string(), "<f8", {64, 128}, dbl.data(), dbl.size() * sizeof(double));
  auto dtype = run(fmt::format("--inputs '{}' --scalar alpha=1", in.string()));
  CHECK(dtype.code != 0);
  CHECK(dtype.out.find("dtype") != std::string::npos);

  std::ofstream(in / "x.npy", std::ios::binary) << "\x93NUMPY garbage";
  auto corrupt = run(fmt::format("--inputs '{}' --scalar alpha=1", in.string()));
  CHECK(corrupt.code != 0);
  CHECK(corrupt.out.find("x.npy") != std::string::npos);

  write_f32(in / "x.npy", {64, 128}, 1.0f);
  auto no_scalar = run(fmt::format("--inputs '{}'", in.string()));
  CHECK(no_scalar.code != 0);
  CHECK(no_scalar.out.find("alpha") != std::string::npos);
  auto bad_scalar = run(fmt::format("--inputs '{}' --scalar alpha=abc", in.string()));
  CHECK(bad_scalar.code != 0);
  auto unknown = run(fmt::format("--inputs '{}' --scalar alpha=1 --scalar beta=2", in.string()));
  CHECK(unknown.code != 0);
  CHECK(unknown.out.find("beta") != std::string::npos);
  auto flag = run("--frobnicate");
  CHECK(flag.code != 0);
  for (const auto* r : {&missing, &shape, &dtype, &corrupt, &no_scalar, &bad_scalar, &unknown, &flag})
    CHECK(r->out.find("Segmentation") == std::string::npos);
}
