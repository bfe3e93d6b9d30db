// The process's parse cache and the parse-ahead pool (parser/parse_cache.h): a tree handed out is
// the tree of exactly the text asked for, whichever thread parsed it and in whatever order the
// front end and the pool meet; an edited text is parsed again; a text the parser refuses is
// refused again; and a program whose import lines the read-ahead guess misreads (bracketed and
// `try:` imports, relative imports, a name that is not a module) still loads every module.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "ir/ir.h"
#include "parse_helpers.h"
#include "parser/cst.h"
#include "parser/parse_cache.h"
#include "parser/syntax_check.h"

namespace fs = std::filesystem;
using namespace pypto;

namespace {

// The S-expression of a direct parse of `text` (no cache).
std::string direct_sexp(const std::string& text) {
  TSParser* p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_python());
  TSTree* t = ts_parser_parse_string(p, nullptr, text.data(), uint32_t(text.size()));
  char* s = ts_node_string(ts_tree_root_node(t));
  std::string out(s);
  std::free(s);
  ts_tree_delete(t);
  ts_parser_delete(p);
  return out;
}

std::string sexp(const parser::CstTree& t) {
  char* s = ts_node_string(t.root());
  std::string out(s);
  std::free(s);
  return out;
}

// A module of `n` functions, distinct per `tag`.
std::string module_text(int tag, int n) {
  std::string s = "import math\n\n";
  for (int i = 0; i < n; ++i)
    s += "def f" + std::to_string(tag) + "_" + std::to_string(i) + "(x):\n    return [x * " + std::to_string(i) +
         " for _ in range(" + std::to_string(tag) + ")]\n\n";
  return s;
}

}  // namespace

TEST_CASE("parse-ahead trees equal direct parses, in any order the front end asks", "[parser][parse_cache]") {
  std::vector<ir::SourceFilePtr> files;
  for (int i = 0; i < 24; ++i)
    files.push_back(ptest::src(module_text(i, 40 + i), "/virtual/parse_cache_order/m" + std::to_string(i) + ".py"));
  for (const auto& f : files) parser::parse_ahead(f);
  // Asked for last to first: the front end takes over what the pool has not started and waits
  // for what it is parsing.
  for (size_t i = files.size(); i-- > 0;) {
    parser::CstTree t(files[i]);
    CHECK(sexp(t) == direct_sexp(files[i]->text));
    CHECK(parser::syntax_errors(t).empty());
  }
  // A second tree of the same text is a copy of the cached parse.
  parser::CstTree again(files[3]);
  CHECK(sexp(again) == direct_sexp(files[3]->text));
}

TEST_CASE("several threads asking for the same queued files get the same trees", "[parser][parse_cache]") {
  std::vector<ir::SourceFilePtr> files;
  for (int i = 0; i < 12; ++i)
    files.push_back(ptest::src(module_text(100 + i, 30), "/virtual/parse_cache_threads/m" + std::to_string(i) + ".py"));
  for (const auto& f : files) parser::parse_ahead(f);
  std::vector<std::string> got[3];
  std::vector<std::thread> ts;
  for (int k = 0; k < 3; ++k)
    ts.emplace_back([&, k] {
      for (size_t i = 0; i < files.size(); ++i) {
        const size_t j = k == 1 ? files.size() - 1 - i : i;
        parser::CstTree t(files[j]);
        got[k].push_back(sexp(t));
      }
    });
  for (auto& t : ts) t.join();
  for (int k = 0; k < 3; ++k)
    for (size_t i = 0; i < files.size(); ++i) {
      const size_t j = k == 1 ? files.size() - 1 - i : i;
      CHECK(got[k][i] == direct_sexp(files[j]->text));
    }
}

TEST_CASE("an edited text under the same path is parsed again", "[parser][parse_cache]") {
  const std::string path = "/virtual/parse_cache_edit/m.py";
  auto v1 = ptest::src("x = 1\n", path);
  auto v2 = ptest::src("def g(y):\n    return y\n", path);
  parser::parse_ahead(v1);
  {
    parser::CstTree t(v1);
    CHECK(sexp(t) == direct_sexp(v1->text));
  }
  parser::parse_ahead(v2);  // a parsed path: not queued again, and the edit is still seen
  parser::CstTree t2(v2);
  CHECK(sexp(t2) == direct_sexp(v2->text));
  parser::CstTree t1(v1);  // and back
  CHECK(sexp(t1) == direct_sexp(v1->text));
}

TEST_CASE("texts the pool cannot take are refused or reported by the front end as before", "[parser][parse_cache]") {
  // Beyond the nesting limit: the pool drops it; the front end's parse throws E004.
  auto deep = ptest::src("x = " + std::string(300, '(') + "1" + std::string(300, ')') + "\n",
                         "/virtual/parse_cache_limits/deep.py");
  parser::parse_ahead(deep);
  try {
    parser::CstTree t(deep);
    FAIL("a text nested 300 deep was parsed");
  } catch (const ir::CompileError& e) {
    REQUIRE(!e.diagnostics().empty());
    CHECK(e.diagnostics()[0].code == "E004");
  }
  // A syntax error: parsed ahead, not marked clean, and syntax_errors locates it.
  auto bad = ptest::src("def f(:\n    return 1\n", "/virtual/parse_cache_limits/bad.py");
  parser::parse_ahead(bad);
  parser::CstTree t(bad);
  CHECK_FALSE(t.syntax_clean());
  auto errs = parser::syntax_errors(t);
  REQUIRE(!errs.empty());
  CHECK(errs[0].code == "E002");
  CHECK(errs[0].span.line == 1);
}

TEST_CASE("imports the read-ahead guess misreads still load", "[parser][parse_cache][modules]") {
  ptest::TempTree t;
  t.write("consts.py", "N = 32\nM = 64\n");
  t.write("extra.py", "K = 16\n");
  t.write("pkg/__init__.py", "");
  t.write("pkg/shapes.py", "from ..consts import N\nROWS = N\n");
  t.write("broken.py", "def f(:\n");  // named by a comment only: never loaded, never reported
  std::string main = t.write("model.py", R"(import pypto.language as pl
from consts import (
    N,
    M,
)
try:
    from extra import K
except ImportError:
    K = 8
import os.path as osp  # a host module
from pkg.shapes import ROWS
# from broken import f
DOC = """
from broken import f
"""

W = N + M + K


@pl.jit.incore
def k(x: pl.Tensor[[W, ROWS], pl.FP32]):
    return x
)");
  parser::FrontendOptions o;
  std::vector<std::string> read;
  o.files_read = &read;
  ir::DiagnosticSink sink;
  auto p = parser::parse_file(main, o, sink);
  auto shape = ir::as_tensor(p->find("k")->params[0]->type)->shape;
  CHECK(ir::as<ir::ConstInt>(shape[0])->value == 32 + 64 + 16);
  CHECK(ir::as<ir::ConstInt>(shape[1])->value == 32);
  std::vector<std::string> names;
  for (const auto& r : read) names.push_back(fs::path(r).filename().string());
  INFO(fmt::format("{}", fmt::join(names, " ")));
  CHECK(std::count(names.begin(), names.end(), "broken.py") == 0);
  for (const char* want : {"model.py", "consts.py", "extra.py", "shapes.py"})
    CHECK(std::count(names.begin(), names.end(), want) == 1);
}
