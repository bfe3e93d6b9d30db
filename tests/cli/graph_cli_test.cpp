// `pypto graph`: DOT on stdout and in a .dot file, SVG and HTML drawn by Graphviz where `dot` is
// installed (skipped otherwise), a -o of another kind a usage error, a program without an
// orchestration function a located error.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli_util.h"

using namespace clitest;

namespace {

bool have_dot() { return std::system("command -v dot >/dev/null 2>&1") == 0; }

}  // namespace

TEST_CASE("pypto graph writes the task graph as DOT, SVG and HTML", "[cli][graph]") {
  const std::string prog = std::string(PYPTO_TEST_PROGRAMS) + "/e2e_chain.py";
  auto r = pypto("graph '" + prog + "'");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("digraph \"chain.chain\" {", 0) == 0);
  CHECK_THAT(r.out, Catch::Contains("label=\"scale\\ntask 0\\n"));
  CHECK_THAT(r.out, Catch::Contains("task0 -> task1 [color=\"#1f4e79\", penwidth=1.6, label=\"RAW tmp\"]"));
  const std::string dot = work("g.dot").string();
  REQUIRE(pypto("graph '" + prog + "' -o '" + dot + "'").code == 0);
  CHECK(slurp(dot) == r.out);
  if (!have_dot()) {
    WARN("Graphviz's dot is not installed: SVG and HTML rendering not checked");
    auto svg = pypto("graph '" + prog + "' -o '" + work("g.svg").string() + "'");
    CHECK(svg.code == 2);
    CHECK_THAT(svg.out, Catch::Contains("needs Graphviz's dot"));
    return;
  }
  const std::string svg = work("g.svg").string(), page = work("g.html").string();
  REQUIRE(pypto("graph '" + prog + "' -o '" + svg + "'").code == 0);
  const std::string s = slurp(svg);
  CHECK_THAT(s, Catch::Contains("<svg"));
  CHECK_THAT(s, Catch::Contains(">scale</text>"));
  CHECK_THAT(s, Catch::Contains(">RAW tmp</text>"));
  REQUIRE(pypto("graph '" + prog + "' -o '" + page + "'").code == 0);
  const std::string h = slurp(page);
  CHECK(h.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK_THAT(h, Catch::Contains("<svg"));
  CHECK(h.find("<?xml") == std::string::npos);
}

TEST_CASE("pypto graph refuses what it cannot draw", "[cli][graph]") {
  const std::string prog = std::string(PYPTO_TEST_PROGRAMS) + "/e2e_chain.py";
  auto bad = pypto("graph '" + prog + "' -o g.png");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.out, Catch::Contains("-o g.png: write a .dot, .svg or .html file"));
  const std::string kernel_only = write_file("graph_kernel_only.py", R"(import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        return pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], o)
)");
  auto none = pypto("graph '" + kernel_only + "'");
  CHECK(none.code == 1);
  CHECK_THAT(none.out, Catch::Contains("has no orchestration function"));
}
