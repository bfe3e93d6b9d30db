// End-to-end, differential: every case of tests/e2e/oracle_cases.txt (a program of tests/programs
// with its shapes, constants and scalars) goes through `pypto test`: the front end, the passes, the
// emitters and ninja build a project that links the prebuilt runtime; bin/run executes it on
// seeded inputs (two trials) with --check-races and --check-syncs (pypto test turns them on: every
// program the compiler writes must be race-free by the reference runtime's ordering rules and
// correctly synchronised inside its kernels), and the reference interpreter (ir/interp/) evaluates
// the same inputs on the source program's IR; every output must agree within its dtype's
// tolerance, and so must the interpreted IR after every pass (--every-pass).
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace {

struct Case {
  std::string name, file, args;
};

std::vector<Case> cases() {
  std::ifstream in(std::string(PYPTO_SOURCE_DIR) + "/tests/e2e/oracle_cases.txt");
  std::vector<Case> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    Case c;
    ls >> c.name >> c.file;
    std::getline(ls, c.args);
    out.push_back(c);
  }
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

int sh(const std::string& cmd) {
  int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace

TEST_CASE("every program in tests/programs is an oracle case, and the harness covers at least 40", "[e2e]") {
  // The front-end form fixtures (tests/programs/forms/: forms the pipeline rejects up front)
  // are parsed and round-tripped by other tests; every program beside them must run.
  std::set<std::string> covered;
  for (const auto& c : cases()) covered.insert(c.file);
  std::vector<std::string> missing;
  for (const auto& e : fs::directory_iterator(PYPTO_TEST_PROGRAMS))
    if (e.path().extension() == ".py" && !covered.count(e.path().filename().string()))
      missing.push_back(e.path().filename().string());
  INFO("programs no oracle case runs: " << fmt::format("{}", fmt::join(missing, ", ")));
  CHECK(missing.empty());
  CHECK(covered.size() >= 40);
}

TEST_CASE("every oracle case: pypto test agrees with the interpreter", "[e2e]") {
  const auto all = cases();
  REQUIRE(all.size() >= 40);
  // PYPTO_E2E_SHARD=K/N (ctest runs two shards in parallel): every N-th case from the K-th.
  size_t shard = 0, shards = 1;
  if (const char* s = std::getenv("PYPTO_E2E_SHARD")) std::sscanf(s, "%zu/%zu", &shard, &shards);
  for (size_t i = 0; i < all.size(); ++i) {
    if (shards > 1 && i % shards != shard) continue;
    const auto& c = all[i];
    SECTION(c.name) {
      const fs::path work = fs::path(PYPTO_TEST_WORK_DIR) / c.name;
      fs::remove_all(work);
      fs::create_directories(work.parent_path());
      const fs::path log = fs::path(PYPTO_TEST_WORK_DIR) / (c.name + ".log");
      // A case marked @full-scale runs once and compares the final numbers only (interpreting a
      // [4096, 2048] program after each of ~30 passes on two trials would dominate the suite).
      std::string args = c.args, mode = "--trials 2 --every-pass";
      if (const size_t at = args.find("@full-scale"); at != std::string::npos) {
        args.erase(at, std::string("@full-scale").size());
        mode = "--trials 1";
      }
      const std::string cmd = fmt::format("'{}' test '{}/{}' {} {} -j 2 -o '{}' > '{}' 2>&1", PYPTO_BIN,
                                          PYPTO_TEST_PROGRAMS, c.file, args, mode, work.string(), log.string());
      INFO("command: " << cmd);
      const int rc = sh(cmd);
      const std::string out = slurp(log);
      INFO(out);
      REQUIRE(rc == 0);
      CHECK(out.find(": PASS (") != std::string::npos);
      CHECK(out.find("MISMATCH") == std::string::npos);
      // The project links the prebuilt runtime and compiles no runtime source.
      const std::string ninja = slurp(work / "project" / "build.ninja");
      CHECK(ninja.find("/src/") == std::string::npos);
      CHECK(ninja.find("obj/runtime/") == std::string::npos);
      CHECK(ninja.find(" $prebuilt/lib/libpypto_runner.a $prebuilt/lib/libpypto_runtime.a\n") != std::string::npos);
    }
  }
}
