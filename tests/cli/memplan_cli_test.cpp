// `pypto memplan`: the memory plan as a table, an SVG picture (one panel per kernel and space, one
// box per tile with its facts in a tooltip) and the same data as JSON; a -o of another kind is a
// usage error.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_util.h"

using namespace clitest;

TEST_CASE("pypto memplan: table, SVG and JSON of the same plan", "[cli][memplan]") {
  const std::string prog = std::string(PYPTO_TEST_PROGRAMS) + "/e2e_softmax.py";
  auto table = pypto("memplan '" + prog + "'");
  INFO(table.out);
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("kernel softmax_rows (AIV)"));
  CHECK_THAT(table.out, Catch::Contains("  Vec: "));
  CHECK_THAT(table.out, Catch::Contains("of 184 KiB used"));

  const std::string json = work("plan.json").string(), svg = work("plan.svg").string();
  REQUIRE(pypto("memplan '" + prog + "' -o '" + json + "'").code == 0);
  REQUIRE(pypto("memplan '" + prog + "' -o '" + svg + "'").code == 0);
  const auto doc = nlohmann::json::parse(slurp(json));
  CHECK(doc.at("program") == "softmax");
  CHECK(doc.at("soc") == "910b");
  const auto& k = doc.at("kernels").at(0);
  CHECK(k.at("name") == "softmax_rows");
  const auto& vec = k.at("spaces").at(0);
  CHECK(vec.at("space") == "Vec");
  CHECK(vec.at("capacity") == 188416);
  size_t tiles = 0;
  for (const auto& t : vec.at("tiles")) {
    ++tiles;
    CHECK(t.at("addr").get<int64_t>() + t.at("size").get<int64_t>() <= vec.at("used").get<int64_t>());
    CHECK(t.at("def").get<int>() <= t.at("last").get<int>());
    CHECK(t.at("line").get<int>() > 0);
  }
  CHECK(tiles >= 4);
  // The picture: one panel, one box per tile, each box's tooltip naming its tile and buffer.
  const std::string pic = slurp(svg);
  CHECK(pic.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(pic.find("</svg>\n") == pic.size() - 7);
  CHECK(count_of(pic, "class=\"panel\"") == 1);
  CHECK(count_of(pic, "class=\"tile\"") == tiles);
  for (const auto& t : vec.at("tiles"))
    CHECK_THAT(pic, Catch::Contains("<title>" + t.at("name").get<std::string>() + " " + t.at("type").get<std::string>() +
                                    " in " + t.at("buffer").get<std::string>() + ": bytes"));
  // The 950's Vec capacity differs.
  REQUIRE(pypto("memplan '" + prog + "' --soc 950 -o '" + json + "'").code == 0);
  CHECK(nlohmann::json::parse(slurp(json)).at("kernels").at(0).at("spaces").at(0).at("capacity") != 188416);
}

TEST_CASE("pypto memplan refuses an output it cannot write", "[cli][memplan]") {
  const std::string prog = std::string(PYPTO_TEST_PROGRAMS) + "/e2e_softmax.py";
  auto bad = pypto("memplan '" + prog + "' -o plan.txt");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.out, Catch::Contains("-o plan.txt: write a .svg picture or a .json file"));
  // A path through a regular file cannot be created.
  auto nodir = pypto("memplan '" + prog + "' -o '" + prog + "/p.svg'");
  CHECK(nodir.code == 2);
  CHECK_THAT(nodir.out, Catch::Contains("cannot write memory plan"));
}
