// Print/read round trip over every tests/programs/*.py (each entry of each file): parse, print,
// re-read the printed text, print again. The two texts must be identical (print → read → print is
// a fixed point, ir/TEXT_FORMAT.md) and the re-read program structurally equal to the first read.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "parser/frontend.h"

using namespace pypto;

namespace {

std::vector<std::string> program_files() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(PYPTO_TEST_PROGRAMS))
    if (e.is_regular_file() && e.path().extension() == ".py") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string describe(const ir::CompileError& e) {
  std::string s = e.what();
  for (const auto& d : e.diagnostics())
    s += "\n  " + d.span.to_string() + ": [" + d.code + "] " + d.message + (d.hint.empty() ? "" : " (hint: " + d.hint + ")");
  return s;
}

// Reads `text` back as a program; fails the test with the diagnostics if it does not parse.
ir::ProgramPtr reread(const std::string& name, const std::string& text) {
  ir::DiagnosticSink sink;
  parser::FrontendOptions opts;
  try {
    return parser::parse_source(std::make_shared<ir::SourceFile>(name, text), opts, sink);
  } catch (const ir::CompileError& e) {
    FAIL_CHECK("printed text does not parse: " << describe(e) << "\n--- printed text ---\n" << text);
  }
  return nullptr;
}

}  // namespace

TEST_CASE("print → read → print is a fixed point and preserves structure", "[roundtrip]") {
  auto files = program_files();
  REQUIRE_FALSE(files.empty());
  for (const auto& path : files) {
    auto src = std::make_shared<ir::SourceFile>(path, read_text(path));
    for (const auto& entry : parser::list_entries(src)) {
      INFO(path << " (entry " << entry << ")");
      ir::DiagnosticSink sink;
      parser::FrontendOptions opts;
      opts.entry = entry;
      ir::ProgramPtr p0;
      try {
        p0 = parser::parse_file(path, opts, sink);
      } catch (const ir::CompileError& e) {
        FAIL_CHECK("source does not parse: " << describe(e));
        continue;
      }
      REQUIRE(p0);
      const std::string text1 = ir::print_program(*p0);
      auto p1 = reread(path + ".printed.py", text1);
      if (!p1) continue;
      const std::string text2 = ir::print_program(*p1);
      CHECK(text1 == text2);
      auto eq = ir::structural_equal(*p0, *p1);
      INFO("printed text:\n" << text1);
      CHECK(eq.message == "");
      CHECK(eq.path == "");
      CHECK(eq.equal);
      CHECK(ir::structural_hash(*p0) == ir::structural_hash(*p1));
    }
  }
}
