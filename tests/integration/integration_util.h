// Helpers of the build-integration tests (make_integration_test, cmake_integration_test): the
// scale the example model's kernel applied, read back from a run's .npy files, and ageing every
// file of an example tree so that a file written afterwards is newer without a clock skew.
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <filesystem>

#include "pypto_rt/npy.h"

namespace integration {

namespace fs = std::filesystem;

// results/out.npy divided by results/x.npy (32 x 64 FP32): the one factor every element got.
inline float applied_scale(const fs::path& results) {
  auto x = pypto_rt::read_npy((results / "x.npy").string());
  auto o = pypto_rt::read_npy((results / "out.npy").string());
  REQUIRE(x.data.size() == o.data.size());
  REQUIRE(x.data.size() == 32 * 64 * 4);
  float s = 0;
  bool all = true;
  for (size_t i = 0; i < x.data.size(); i += 4) {
    float a, b;
    std::memcpy(&a, x.data.data() + i, 4);
    std::memcpy(&b, o.data.data() + i, 4);
    if (a == 0.0f) continue;
    if (s == 0.0f) s = b / a;
    all = all && b == a * s;
  }
  CHECK(all);
  return s;
}

// Every file under `root` 10 s into the past (one time for all).
inline void age_everything(const fs::path& root) {
  const auto past = fs::file_time_type::clock::now() - std::chrono::seconds(10);
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) fs::last_write_time(e.path(), past);
}

}  // namespace integration
