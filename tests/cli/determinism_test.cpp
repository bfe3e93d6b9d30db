// Generated projects depend on the program only: every entry of every tests/programs/*.py that
// `pypto build` accepts is built (--emit-only --dump-passes) by separate pypto processes
//   1. from one working directory, input named by its absolute path, into a relative OUT,
//   2. from another working directory, input named by a relative path, into an absolute OUT
//      with a space in it,
//   3. again as 1, over the project 1 wrote,
// and the trees must be byte-identical — 1 and 3 entirely, 1 and 2 except compile_commands.json,
// whose format holds absolute paths (the project directory). Separate processes have separate
// address-space layouts, so an order that followed pointer values would show here. No generated
// file but compile_commands.json may name OUT, the working directory or the input's directory;
// build.ninja names the pypto runtime it links (where pypto is installed, not where it was run).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "ir/diagnostic.h"
#include "parser/frontend.h"

namespace fs = std::filesystem;
using namespace clitest;

namespace {

std::vector<fs::path> program_paths() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(PYPTO_TEST_PROGRAMS))
    if (e.path().extension() == ".py") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> entries_of(const fs::path& p) {
  try {
    auto file = std::make_shared<const pypto::ir::SourceFile>(p.string(), slurp(p));
    auto e = pypto::parser::list_entries(file);
    return e.empty() ? std::vector<std::string>{""} : e;
  } catch (const pypto::ir::CompileError&) {
    return {""};
  }
}

}  // namespace

TEST_CASE("projects are byte-identical across runs, OUT paths, working directories and input spellings",
          "[cli][determinism]") {
  const fs::path root = fs::absolute(work("det"));
  fs::remove_all(root);
  const fs::path cwd1 = root / "one", cwd2 = root / "two" / "deeper";
  fs::create_directories(cwd1);
  fs::create_directories(cwd2);
  size_t built = 0, compared = 0;
  for (const fs::path& prog : program_paths()) {
    for (const std::string& entry : entries_of(prog)) {
      const std::string tag = prog.stem().string() + (entry.empty() ? "" : "-" + entry);
      const std::string sel = entry.empty() ? "" : " --entry " + entry;
      INFO(tag);
      const std::string out1 = "out-" + tag;
      auto r1 = pypto_in(cwd1, fmt::format("build '{}' -o '{}' --emit-only --dump-passes{}", prog.string(), out1, sel));
      if (r1.code == 1) continue;  // a program the back end rejects (front-end-only forms): nothing to compare
      INFO(r1.out);
      REQUIRE(r1.code == 0);
      ++built;
      const fs::path out2 = root / "other place" / tag;
      const std::string rel = fs::relative(prog, cwd2).string();
      auto r2 = pypto_in(cwd2, fmt::format("build '{}' -o '{}' --emit-only --dump-passes{}", rel, out2.string(), sel));
      INFO(r2.out);
      REQUIRE(r2.code == 0);
      auto t1 = tree(cwd1 / out1), t2 = tree(out2);
      auto r3 = pypto_in(cwd1, fmt::format("build '{}' -o '{}' --emit-only --dump-passes{}", prog.string(), out1, sel));
      REQUIRE(r3.code == 0);
      CHECK(tree(cwd1 / out1) == t1);
      REQUIRE(t1.count("compile_commands.json") == 1);
      CHECK(t1.at("compile_commands.json").find((cwd1 / out1).string()) != std::string::npos);
      t1.erase("compile_commands.json");
      t2.erase("compile_commands.json");
      CHECK(t1 == t2);
      for (const auto& [rel_path, text] : t1) {
        INFO(rel_path);
        CHECK(text.find(root.string()) == std::string::npos);
        CHECK(text.find(fs::path(PYPTO_TEST_PROGRAMS).string()) == std::string::npos);
      }
      ++compared;
    }
  }
  CHECK(built == compared);
  CHECK(built >= 20);
}
