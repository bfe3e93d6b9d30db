// Every DSL program in tests/programs parses without error (and prints, via the IR printer).
#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>

#include "ir/printer.h"
#include "parser/diagnostics_render.h"
#include "parser/frontend.h"

using namespace pypto;

TEST_CASE("every tests/programs/*.py parses", "[parser][programs]") {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(PYPTO_TEST_PROGRAMS))
    if (e.path().extension() == ".py") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 10);
  for (const auto& p : files) {
    INFO(p.string());
    ir::DiagnosticSink sink;
    std::string rendered;
    ir::ProgramPtr prog;
    try {
      prog = parser::parse_file(p.string(), {}, sink);
    } catch (const ir::CompileError& e) {
      for (const auto& d : e.diagnostics()) rendered += parser::render_diagnostic(d, false);
    }
    INFO(rendered);
    REQUIRE(prog);
    CHECK(!prog->functions.empty());
    std::string printed = ir::print_program(*prog);
    if (std::getenv("PYPTO_PRINT")) std::cout << printed << "\n";
    // The printed form is itself readable by the front end, and printing it again is a fixed point.
    auto file = std::make_shared<const ir::SourceFile>(p.string() + ".printed", printed);
    std::string rendered2;
    ir::ProgramPtr again;
    try {
      again = parser::parse_source(file, {}, sink);
    } catch (const ir::CompileError& e) {
      for (const auto& d : e.diagnostics()) rendered2 += parser::render_diagnostic(d, false);
    }
    INFO(printed);
    INFO(rendered2);
    REQUIRE(again);
    CHECK(ir::print_program(*again) == printed);
  }
}
