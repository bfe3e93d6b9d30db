// `pypto build --report`: OUT/report.html is one self-contained page (no scripts, nothing fetched)
// with the task graph, the memory plans, the generated sources and a row per pass of the pipeline,
// with the diff of what each pass changed. Opened in a real headless browser (Debian chromium,
// skipped where none is installed): it loads without script errors and its figures are there.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli_util.h"

using namespace clitest;

namespace {

std::string browser() {
  for (const char* b : {"chromium", "chromium-browser", "google-chrome"})
    if (std::system(fmt::format("command -v {} >/dev/null 2>&1", b).c_str()) == 0) return b;
  return "";
}

}  // namespace

TEST_CASE("pypto build --report writes a self-contained page of what the compiler did", "[cli][report]") {
  const std::string prog = std::string(PYPTO_TEST_PROGRAMS) + "/col_blocks.py";
  const fs::path out = work("report_out");
  fs::remove_all(out);
  auto r = pypto(fmt::format("build '{}' -o '{}' --emit-only --report", prog, out.string()));
  INFO(r.out);
  REQUIRE(r.code == 0);
  const std::string page = slurp(out / "report.html");
  REQUIRE(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK_THAT(page, Catch::Contains("<h1>pypto report: ColBlocks</h1>"));
  // Self-contained: no scripts, nothing loaded from elsewhere.
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("<link") == std::string::npos);
  CHECK(page.find(" src=") == std::string::npos);
  // The figures.
  CHECK_THAT(page, Catch::Contains("<figure id=\"task-graph\">"));
  CHECK_THAT(page, Catch::Contains("<figure id=\"memory-plan\">"));
  CHECK(count_of(page, "class=\"panel\"") == 2);  // block and flat_add, Vec each
  // Every generated kernel and the orchestration.
  for (const char* f : {"kernels/aiv/block.cpp", "kernels/aiv/flat_add.cpp", "orchestration/main.cpp"})
    CHECK_THAT(page, Catch::Contains(fmt::format("<summary><code>{}</code>", f)));
  // One row per pass of the pipeline, in order; a pass that changed the IR links its diff.
  auto passes = pypto("passes");
  const size_t n = count_of(passes.out, ". ");  // " 1. CheckProgramForms" …, one line per pass
  CHECK(count_of(page, "<tr><td>") == n);
  CHECK(std::regex_search(page, std::regex("<td><a href=\"#pass-[0-9]+\">InitMemRef</a></td><td>\\+[0-9]+ &minus;[0-9]+ lines</td>")));
  CHECK_THAT(page, Catch::Contains("<span class=\"add\">+"));
  CHECK_THAT(page, Catch::Contains("<span class=\"del\">-"));
  CHECK_THAT(page, Catch::Contains("class=\"unchanged\">unchanged</td>"));
  // The same input gives the same page.
  const fs::path again = work("report_again");
  fs::remove_all(again);
  REQUIRE(pypto(fmt::format("build '{}' -o '{}' --emit-only --report", prog, again.string())).code == 0);
  CHECK(slurp(again / "report.html") == page);

  const std::string b = browser();
  if (b.empty()) {
    WARN("no headless browser (Debian chromium) installed: the report was not opened in one");
    return;
  }
  const fs::path dom = work("report_dom.html"), log = work("report_console.txt");
  auto opened = shell(fmt::format("{} --headless --no-sandbox --disable-gpu --enable-logging=stderr --log-level=0 "
                                  "--dump-dom 'file://{}' > '{}' 2> '{}'",
                                  b, (out / "report.html").string(), dom.string(), log.string()));
  REQUIRE(opened.code == 0);
  const std::string d = slurp(dom), console = slurp(log);
  INFO(console);
  CHECK_THAT(d, Catch::Contains("pypto report: ColBlocks"));
  CHECK(count_of(d, "<svg") >= 2);  // the memory plan, and the task graph where Graphviz drew it
  CHECK(count_of(d, "class=\"tile\"") >= 5);
  CHECK_FALSE(std::regex_search(console, std::regex("CONSOLE.*(Uncaught|Error)")));
}
