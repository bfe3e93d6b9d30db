// Module globals bound more than once (parser/module_rebind.cpp): as Python runs a module top to
// bottom, each module-level use sees the binding made last before it (`ROWS = X * 2` between two
// bindings of X, `HIDDEN = HIDDEN // 32`, a def after an assignment of its name, a helper called
// between two bindings of what it reads, a repeated import, pl.dynamic symbols and plain values
// of one name), class attributes and default arguments take the globals of their definition's
// time, DSL code sees the last binding, an importer sees the imported module's last binding, an
// earlier class a later one replaces is what uses before it see, an earlier pl.dynamic one is a
// located error, and so is a chain of constants too long to evaluate (not a stack overflow); a
// chained assignment `X = Y = 2` binds both names.
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

TEST_CASE("an earlier class a later one replaces is what uses before it see; an earlier pl.dynamic is an error",
          "[parser][modules][rebinding]") {
  auto p = ptest::parse(R"(import pypto.language as pl


class Cfg:
    n = 4


N0 = Cfg.n


class Cfg:
    n = 8


@pl.function
def f(x: pl.Tensor[[N0, Cfg.n], pl.FP32]) -> pl.Tensor[[N0, Cfg.n], pl.FP32]:
    return x
)");
  CHECK(dims(p, "f", 0) == std::vector<int64_t>{4, 8});
  // M would be the symbol N, which the second pl.dynamic replaced: pypto does not keep it.
  auto errs = ptest::errors(R"(import pypto.language as pl

N = pl.dynamic("N")
M = N
N = pl.dynamic("K")


@pl.function
def f(x: pl.Tensor[[M, N], pl.FP32]) -> pl.Tensor[[M, N], pl.FP32]:
    return x
)");
  REQUIRE(!errs.empty());
  CHECK(errs[0].code == "E202");
  CHECK(errs[0].message.find("the pl.dynamic symbol of line 3, which line 5 binds again") != std::string::npos);
  CHECK(errs[0].span.line == 4);  // the use in `M = N`
  CHECK(errs[0].hint == "give the two bindings different names");
}

TEST_CASE("class attributes, dataclass defaults and default arguments take the globals of their definition's time",
          "[parser][modules][rebinding]") {
  // Python evaluates them when the class or def statement runs, not when they are used.
  auto p = ptest::parse(R"(import dataclasses
import pypto.language as pl

X = 4


class C:
    A = X * 2


@dataclasses.dataclass
class Cfg:
    n: int = X


def get(k=X):
    return k * 2


X = 10
B = C.A
N = Cfg().n
G = get()


@pl.function
def f(x: pl.Tensor[[B, C.A], pl.FP32], y: pl.Tensor[[N, G], pl.FP32], z: pl.Tensor[[X, 8], pl.FP32]) -> pl.Tensor[[B, C.A], pl.FP32]:
    return x
)");
  CHECK(dims(p, "f", 0) == std::vector<int64_t>{8, 8});  // C.A is 8 however late it is read
  CHECK(dims(p, "f", 1) == std::vector<int64_t>{4, 8});
  CHECK(dims(p, "f", 2) == std::vector<int64_t>{10, 8});
}

TEST_CASE("a repeated import, and pl.dynamic symbols rebound by plain assignments and back",
          "[parser][modules][rebinding]") {
  // Importing a module twice binds the same value each time.
  auto p = ptest::parse(R"(import math
import pypto.language as pl

DT = pl.FP16
A = math.ceil(3.5)
import math
import pypto.language as pl


@pl.function
def f(x: pl.Tensor[[A, 8], DT]) -> pl.Tensor[[A, 8], DT]:
    return x
)");
  CHECK(dims(p, "f", 0) == std::vector<int64_t>{4, 8});
  CHECK(ir::as_tensor(p->find("f")->params[0]->type)->dtype == ir::DataType::FP16);

  // M is the symbol N whichever of M and N the signature reads first; then N is 64.
  for (const char* sig : {"[M, N]", "[N, M]"}) {
    auto q = ptest::parse(std::string(R"(import pypto.language as pl

N = pl.dynamic("N")
M = N
N = 64


@pl.function
def f(x: pl.Tensor[)") + sig + R"(, pl.FP32]) -> pl.Tensor[)" + sig + R"(, pl.FP32]:
    return x
)");
    const auto& shape = ir::as_tensor(q->find("f")->params[0]->type)->shape;
    const bool m_first = std::string(sig) == "[M, N]";
    CHECK(ir::as<ir::Var>(shape[m_first ? 0 : 1]) != nullptr);                // M: the symbol
    CHECK(ir::as<ir::ConstInt>(shape[m_first ? 1 : 0])->value == 64);        // N: 64
  }
  // A plain value before a pl.dynamic of the same name stays what the uses before it read.
  auto r = ptest::parse(R"(import pypto.language as pl

N = 64
M = N
N = pl.dynamic("N")


@pl.function
def f(x: pl.Tensor[[M, N], pl.FP32]) -> pl.Tensor[[M, N], pl.FP32]:
    return x
)");
  const auto& shape = ir::as_tensor(r->find("f")->params[0]->type)->shape;
  CHECK(ir::as<ir::ConstInt>(shape[0])->value == 64);
  CHECK(ir::as<ir::Var>(shape[1]) != nullptr);
}

TEST_CASE("a chain of constants too long to evaluate is a located error, not a stack overflow",
          "[parser][modules][rebinding]") {
  std::string text = "import pypto.language as pl\n\nX = 0\n";
  for (int i = 0; i < 3000; ++i) text += "X = X + 1\n";
  text += "\n\n@pl.function\ndef f(x: pl.Tensor[[X, 8], pl.FP32]) -> pl.Tensor[[X, 8], pl.FP32]:\n    return x\n";
  auto errs = ptest::errors(text);
  REQUIRE(!errs.empty());
  CHECK(errs[0].code == "E202");
  CHECK(errs[0].message.find("a chain of more than 500 module constants") != std::string::npos);
  // 400 steps are fine.
  std::string ok = "import pypto.language as pl\n\nX = 0\n";
  for (int i = 0; i < 400; ++i) ok += "X = X + 1\n";
  ok += "\n\n@pl.function\ndef f(x: pl.Tensor[[X, 8], pl.FP32]) -> pl.Tensor[[X, 8], pl.FP32]:\n    return x\n";
  CHECK(dims(ptest::parse(ok), "f", 0) == std::vector<int64_t>{400, 8});
}

TEST_CASE("a top-level augmented assignment of a module's own global is followed in order",
          "[parser][modules][rebinding]") {
  auto p = ptest::parse(R"(import pypto.language as pl

X = 3
A = X
X += 1
B = X
X *= 4


@pl.function
def f(x: pl.Tensor[[A, B, X], pl.FP32]) -> pl.Tensor[[A, B, X], pl.FP32]:
    return x
)");
  CHECK(dims(p, "f", 0) == std::vector<int64_t>{3, 4, 16});
  // Every operator, and a name an import bound first.
  auto q = ptest::parse(R"(import pypto.language as pl
from math import pi as N

N = 10
N //= 3
N -= 1
M = 2
M **= 3


@pl.function
def f(x: pl.Tensor[[N, M], pl.FP32]) -> pl.Tensor[[N, M], pl.FP32]:
    return x
)");
  CHECK(dims(q, "f", 0) == std::vector<int64_t>{2, 8});
}

TEST_CASE("a chained assignment binds every target", "[parser][modules][rebinding]") {
  // Before, `X = Y = 2` was skipped: Y stayed undefined and B read the X bound before it.
  auto p = ptest::parse(R"(import pypto.language as pl

X = 1
A = X
X = Y = 2
B = X
P, Q = R = (3, 4)


@pl.function
def f(x: pl.Tensor[[A, B, Y], pl.FP32], y: pl.Tensor[[P, Q], pl.FP32], z: pl.Tensor[R, pl.FP32]) -> pl.Tensor[[A, B, Y], pl.FP32]:
    return x
)");
  CHECK(dims(p, "f", 0) == std::vector<int64_t>{1, 2, 2});
  CHECK(dims(p, "f", 1) == std::vector<int64_t>{3, 4});
  CHECK(dims(p, "f", 2) == std::vector<int64_t>{3, 4});
}
