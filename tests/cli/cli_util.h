// Helpers for the tests that run the `pypto` binary as a user would: run a shell command and
// capture its output, per-test work files, reading files and project trees back.
#pragma once

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace clitest {

namespace fs = std::filesystem;

struct Run {
  int code;
  std::string out;  // stdout + stderr
};

// A shell command line, stdout and stderr captured.
inline Run shell(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

inline Run pypto(const std::string& args) { return shell(fmt::format("'{}' {} 2>&1", PYPTO_BIN, args)); }

// `pypto ARGS` run from the directory `cwd`.
inline Run pypto_in(const fs::path& cwd, const std::string& args) {
  return shell(fmt::format("cd '{}' && '{}' {} 2>&1", cwd.string(), PYPTO_BIN, args));
}

inline std::string program(const std::string& name) { return fmt::format("'{}/{}'", PYPTO_TEST_PROGRAMS, name); }

inline fs::path work(const std::string& name) {
  fs::path p = fs::path(PYPTO_TEST_WORK_DIR) / name;
  fs::create_directories(p.parent_path());
  return p;
}

inline std::string write_file(const std::string& name, const std::string& text) {
  fs::path p = work(name);
  std::ofstream(p) << text;
  return p.string();
}

inline std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// How often `what` occurs in `s`.
inline size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// Every file under `dir` (relative path → contents), skipping build products.
inline std::map<std::string, std::string> tree(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), dir).string();
    if (rel.rfind("obj/", 0) == 0 || rel.rfind("bin/", 0) == 0 || rel.rfind(".ninja", 0) == 0) continue;
    files[rel] = slurp(e.path());
  }
  return files;
}

}  // namespace clitest
