// Module globals bound more than once (parser/module_rebind.cpp): as Python runs a module top to
// bottom, each module-level use sees the binding made last before it (`ROWS = X * 2` between two
// bindings of X, `HIDDEN = HIDDEN // 32`, a def after an assignment of its name, a helper called
// between two bindings of what it reads), DSL code sees the last binding, an importer sees the
// imported module's last binding, and an earlier class a later one replaces is a located error.
#include <catch2/catch.hpp>

#include "ir/ir.h"
#include "parse_helpers.h"
#include "parser/frontend.h"

using namespace pypto;
using ptest::dims;

TEST_CASE("a rebound module global: each module-level use sees the binding made last before it",
          "[parser][modules][rebinding]") {
  auto p = ptest::parse(R"(import pypto.language as pl

X = 16
ROWS = X * 2
X = 128
HIDDEN = 4096
HIDDEN = HIDDEN // 32
A, B = 2, 3
PROD = A * B
A = 10
N = 1


def n_now():
    return N


N_EARLY = n_now()
N = 5
N_LATE = n_now()


@pl.function
def f(x: pl.Tensor[[ROWS, X], pl.FP32], y: pl.Tensor[[HIDDEN, PROD], pl.FP32], z: pl.Tensor[[A, 8], pl.FP32],
      w: pl.Tensor[[N_EARLY, N_LATE], pl.FP32]) -> pl.Tensor[[ROWS, X], pl.FP32]:
    return x
)");
  CHECK(dims(p, "f", 0) == std::vector<int64_t>{32, 128});  // ROWS with the first X; DSL code: the last X
  CHECK(dims(p, "f", 1) == std::vector<int64_t>{128, 6});   // 4096 // 32, not a cycle
  CHECK(dims(p, "f", 2) == std::vector<int64_t>{10, 8});    // the tuple's A, then A = 10
  CHECK(dims(p, "f", 3) == std::vector<int64_t>{1, 5});     // a helper reads N when it is called
}

TEST_CASE("a def after an assignment of its name replaces it, and calls before a second def see the first",
          "[parser][modules][rebinding]") {
  auto p = ptest::parse(R"(import pypto.language as pl

SIZE = 64


def SIZE():
    return 128


ROWS = SIZE()


def scale():
    return 2


COLS = scale() * 8
scale = 4
DEPTH = scale * 2


def pick():
    return 3


EARLY = pick()


def pick():
    return 7


LATE = pick()


@pl.function
def f(x: pl.Tensor[[ROWS, COLS], pl.FP32], y: pl.Tensor[[DEPTH, EARLY], pl.FP32],
      z: pl.Tensor[[LATE, 8], pl.FP32]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
    return x
)");
  CHECK(dims(p, "f", 0) == std::vector<int64_t>{128, 16});
  CHECK(dims(p, "f", 1) == std::vector<int64_t>{8, 3});
  CHECK(dims(p, "f", 2) == std::vector<int64_t>{7, 8});

  // A module value the DSL code reads after a def replaced it is that function: an error, not 64.
  auto errs = ptest::errors(R"(import pypto.language as pl

N = 64


def N():
    return 128


@pl.function
def f(x: pl.Tensor[[N, 64], pl.FP32]) -> pl.Tensor[[N, 64], pl.FP32]:
    return x
)");
  REQUIRE(!errs.empty());
  CHECK(errs[0].code == "E301");
  CHECK(errs[0].message.find("'N' is a function") != std::string::npos);
}

TEST_CASE("an imported module's rebound globals: its own uses in order, the importer sees the last binding",
          "[parser][modules][rebinding]") {
  ptest::TempTree t;
  // config's plain defs are parsed only when used (an imported module): the first pick is such a
  // deferred def that a later one replaces.
  t.write("config.py", R"(TP = 4
TP = TP // 2


def pick():
    return 3


EARLY = pick()


def pick():
    return 7


LATE = pick() + TP
)");
  const std::string main = t.write("main.py", R"(import pypto.language as pl
from config import TP, EARLY, LATE


@pl.function
def f(x: pl.Tensor[[TP, EARLY], pl.FP32], y: pl.Tensor[[LATE, 8], pl.FP32]) -> pl.Tensor[[TP, EARLY], pl.FP32]:
    return x
)");
  ir::DiagnosticSink sink;
  auto p = parser::parse_file(main, {}, sink);
  CHECK(dims(p, "f", 0) == std::vector<int64_t>{2, 3});
  CHECK(dims(p, "f", 1) == std::vector<int64_t>{9, 8});
}

TEST_CASE("an earlier class that a later class of the same name replaces is a located error",
          "[parser][modules][rebinding]") {
  auto errs = ptest::errors(R"(import pypto.language as pl


class Cfg:
    n = 4


N0 = Cfg.n


class Cfg:
    n = 8


@pl.function
def f(x: pl.Tensor[[N0, 64], pl.FP32]) -> pl.Tensor[[N0, 64], pl.FP32]:
    return x
)");
  REQUIRE(!errs.empty());
  CHECK(errs[0].code == "E202");
  CHECK(errs[0].message.find("the class of line 4, which line 11 binds again") != std::string::npos);
  CHECK(errs[0].span.line == 8);  // the use in `N0 = Cfg.n`
  CHECK(errs[0].hint == "give the two bindings different names");
}
