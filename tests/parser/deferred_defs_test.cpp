// Deferred defs (parser/parse_cache.h): an imported module's plain top-level functions are left out
// of its parse and parsed when first used. The lexical pre-pass finds exactly the undecorated defs
// with no decorator inside (strings, comments, continuations and brackets do not fool it); a
// deferred def parses to the same node as in a whole parse; values, redefinitions, W013 warnings
// and syntax errors come out as with a whole parse, except that a syntax error inside a deferred
// def is reported only when that def is used.
#include <catch2/catch.hpp>

#include <algorithm>

#include "ir/ir.h"
#include "parse_helpers.h"
#include "parser/cst.h"
#include "parser/frontend.h"
#include "parser/parse_cache.h"
#include "parser/syntax_check.h"

using namespace pypto;
using ptest::TempTree;

namespace {

ir::ProgramPtr parse_path(const std::string& path, ir::DiagnosticSink& sink) {
  return parser::parse_file(path, {}, sink);
}

using ptest::dims;
using ptest::file_errors;

// A main module: `head` (imports, constants), then a jit entry taking one FP32 tensor of `shape`.
std::string entry_main(const std::string& head, const std::string& shape) {
  return "import pypto.language as pl\n" + head + "\n\n\n@pl.jit\ndef entry(x: pl.Tensor[[" + shape +
         "], pl.FP32]):\n    return x\n";
}

// Every (named, non-comment) top-level node's start byte and kind.
std::vector<std::pair<uint32_t, std::string>> tops(TSNode root) {
  std::vector<std::pair<uint32_t, std::string>> out;
  for (TSNode n : parser::children(root)) out.emplace_back(ts_node_start_byte(n), std::string(parser::kind(n)));
  return out;
}

const char* kTricky = R"py("""module doc
def not_a_def():
"""
X = 1  # comment

def plain(a,
          b):
    s = """
def inside_string():
"""
# a column-0 comment inside the body
    return a + \
b

@decorator
# a comment between decorator and def
def decorated():
    pass

def factory():
    @pl.jit
    def k(x):
        return x
    return k

def continued_matmul(a, b):
    return (a
            @ b)

def matmul(a, b):
    return a @ b  # @ inside a line is an operator

async def co():
    pass
Y = [1,
2]
def last(): return 1)py";

}  // namespace

TEST_CASE("the pre-pass defers exactly the plain defs, and a deferred def parses as in the whole file",
          "[parser][deferred]") {
  auto file = ptest::src(kTricky, "/nonexistent/deferred_tricky.py");
  parser::CstTree lazy(file, /*whole=*/false);
  std::vector<std::string> names;
  for (const auto& d : lazy.deferred()) names.push_back(d.name);
  CHECK(names == std::vector<std::string>{"plain", "matmul", "co", "last"});
  CHECK_FALSE(ts_node_has_error(lazy.root()));

  parser::CstTree whole(file, /*whole=*/true);
  CHECK(whole.deferred().empty());
  const auto all = tops(whole.root());
  // The partial tree holds every other statement, at the same bytes.
  auto rest = all;
  for (const auto& d : lazy.deferred())
    rest.erase(std::remove_if(rest.begin(), rest.end(), [&](const auto& t) { return t.first == d.start_byte; }), rest.end());
  CHECK(tops(lazy.root()) == rest);
  CHECK(rest.size() + 4 == all.size());

  for (size_t i = 0; i < lazy.deferred().size(); ++i) {
    const auto& d = lazy.deferred()[i];
    TSNode n = lazy.deferred_node(i);
    REQUIRE(parser::is(n, "function_definition"));
    CHECK(parser::text(parser::field(n, "name"), *file) == d.name);
    // The same node as the whole parse's: same extent and same shape.
    TSNode w{};
    for (TSNode t : parser::children(whole.root()))
      if (ts_node_start_byte(t) == d.start_byte) w = t;
    REQUIRE_FALSE(ts_node_is_null(w));
    CHECK(ts_node_end_byte(n) == ts_node_end_byte(w));
    CHECK(ts_node_start_point(n).row == ts_node_start_point(w).row);
    CHECK(ts_node_end_point(n).row == d.last_row);
    char* a = ts_node_string(n);
    char* b = ts_node_string(w);
    CHECK(std::string(a) == std::string(b));
    free(a);
    free(b);
  }
}

TEST_CASE("a text that ends inside brackets or a string defers nothing", "[parser][deferred]") {
  parser::CstTree open_bracket(ptest::src("def f():\n    return 1\nX = (1,\n", "/nonexistent/deferred_open.py"), false);
  CHECK(open_bracket.deferred().empty());
  CHECK(ts_node_has_error(open_bracket.root()));
  parser::CstTree open_string(ptest::src("def f():\n    return 1\nX = '''abc\n", "/nonexistent/deferred_str.py"), false);
  CHECK(open_string.deferred().empty());
}

const char* kLib = R"py(import torch


def ceil_div(a, b):
    return (a + b - 1) // b


def golden(x, w):
    return torch.relu(x @ w)


def broken():
    return 1 +


def N():
    return 1


N = 48


def M():
    return 3 * 5
)py";

TEST_CASE("an imported module's helpers: values, redefinitions, and syntax errors where used", "[parser][deferred]") {
  TempTree t;
  t.write("lib.py", kLib);
  const std::string main = t.write(
      "main.py",
      entry_main("from lib import ceil_div, golden, broken, N, M\n\nROWS = ceil_div(100, 16) * 16\nCOLS = N + M()",
                 "ROWS, COLS"));
  ir::DiagnosticSink sink;
  auto p = parse_path(main, sink);
  // ceil_div(100, 16) * 16 = 112; N is the assignment after the def (48); M() = 15.
  CHECK(dims(p, "entry", 0) == std::vector<int64_t>{112, 63});

  // Using the def with the syntax error reports it, in lib.py, at its line.
  const std::string bad = t.write("bad.py", entry_main("from lib import broken\n\nROWS = broken()", "ROWS, 64"));
  auto e = file_errors(bad);
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E002");
  CHECK(e[0].span.file->path.find("lib.py") != std::string::npos);
  CHECK(e[0].span.line == 13);  // `return 1 +`
}

TEST_CASE("a syntax error outside an imported module's defs is reported as before", "[parser][deferred]") {
  TempTree t;
  t.write("lib2.py", "def f():\n    return 1\n\n\nX = = 3\n\n\ndef g():\n    return 2\n");
  const std::string main = t.write("main.py", entry_main("from lib2 import f\n\nROWS = f()", "ROWS, 64"));
  auto e = file_errors(main);
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E002");
  CHECK(e[0].span.file->path.find("lib2.py") != std::string::npos);
  CHECK(e[0].span.line == 5);
}

TEST_CASE("W013 for an assignment inside an imported module's deferred def", "[parser][deferred]") {
  TempTree t;
  t.write("config.py", "TP = 4\nBATCH = 32\n");
  t.write("tweaks.py", R"py(import config


def reads():
    return config.TP * 2


def tweak():
    config.TP = 1


def bump():
    config.BATCH += 2


def swap(a):
    config.TP, a = a, config.TP
    return a
)py");
  const std::string main = t.write("main.py", entry_main("import config\nimport tweaks", "config.TP, 64"));
  ir::DiagnosticSink sink;
  auto p = parse_path(main, sink);
  CHECK(dims(p, "entry", 0) == std::vector<int64_t>{4, 64});
  std::vector<ir::Diagnostic> w;
  for (const auto& d : sink.diagnostics())
    if (d.code == "W013") w.push_back(d);
  REQUIRE(w.size() == 3);
  CHECK(w[0].span.file->path.find("tweaks.py") != std::string::npos);
  CHECK(w[0].span.line == 9);
  CHECK(w[0].message.find("inside function 'tweak' of config.TP") != std::string::npos);
  CHECK(w[1].span.line == 13);
  CHECK(w[1].message.find("augmented assignment inside function 'bump' of config.BATCH") != std::string::npos);
  CHECK(w[2].span.line == 17);
  CHECK(w[2].message.find("unpacking assignment inside function 'swap' of config.TP") != std::string::npos);
}

TEST_CASE("an error met inside a deferred def points where a whole parse points", "[parser][deferred]") {
  // X is not a constant; the deferred f reads it: the error is at the use inside f (line 7 of
  // lib.py), as when lib.py is parsed whole, not at X's definition.
  TempTree t;
  t.write("lib.py", "import os\n\nX = int(os.environ[\"X\"])\n\n\ndef f():\n    return X + 1\n");
  const std::string main = t.write("main.py", entry_main("from lib import f\n\nROWS = f()", "ROWS, 64"));
  auto e = file_errors(main);
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E202");
  CHECK(e[0].span.file->path.find("lib.py") != std::string::npos);
  CHECK(e[0].span.line == 7);
  CHECK(e[0].span.col == 12);
}

TEST_CASE("a def followed by an indented comment is not deferred: the next function's comments stay its own",
          "[parser][deferred]") {
  // tree-sitter counts `    # trailing` in helper's body, so it is not scale's leading comment.
  const char* kKern = R"py(import pypto.language as pl


def helper():
    return 1
    # trailing indented comment


def other():
    return 2


# leading comment of scale
@pl.jit.incore
def scale(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    t = pl.load(x, [0, 0], [32, 64])
    pl.store(pl.mul(t, 2.0), [0, 0], out)
    return out
)py";
  parser::CstTree lazy(ptest::src(kKern, "/nonexistent/deferred_comment.py"), false);
  REQUIRE(lazy.deferred().size() == 1);
  CHECK(lazy.deferred()[0].name == "other");

  TempTree t;
  t.write("kern.py", kKern);
  const std::string main = t.write("main.py", R"py(import pypto.language as pl
from kern import scale


@pl.jit
def entry(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    out = scale(x, out)
    return out
)py");
  ir::DiagnosticSink sink;
  auto p = parse_path(main, sink);
  REQUIRE(p->find("scale"));
  CHECK(p->find("scale")->leading_comments == std::vector<std::string>{"leading comment of scale"});
}

TEST_CASE("the pre-pass defers nothing it could misjudge: odd line ends, a def between clauses",
          "[parser][deferred]") {
  auto names = [](const std::string& text) {
    parser::CstTree t(ptest::src(text, "/nonexistent/deferred_odd.py"), false);
    std::vector<std::string> out;
    for (const auto& d : t.deferred()) out.push_back(d.name);
    return out;
  };
  // A form feed resets the indentation and a lone \r ends a line for Python: left to tree-sitter.
  CHECK(names("def f():\n    return 1\n\fX = 7\n").empty());
  CHECK(names("def f():\n    return 1\rX = 7\r").empty());
  // A backslash before \r\n continues the line: the def goes on to `return n`.
  const std::string crlf = "X = 4\r\n\r\n\r\ndef helper(n):\r\n    y = \\\r\nX\r\n    return n\r\n";
  {
    parser::CstTree t(ptest::src(crlf, "/nonexistent/deferred_crlf.py"), false);
    REQUIRE(t.deferred().size() == 1);
    CHECK(t.deferred()[0].end_byte == crlf.size());
    CHECK(parser::children(t.root()).size() == 1);  // X = 4
  }
  // A def between an `if` body and its `else` is a syntax error a parse without the def would
  // miss: f is not deferred (g, after the `else` body, is), and the syntax check sees the error.
  const std::string clause = "if A:\n    x = 1\ndef f():\n    return 1\nelse:\n    x = 2\n\n\ndef g():\n    return 2\n";
  CHECK(names(clause) == std::vector<std::string>{"g"});
  parser::CstTree t(ptest::src(clause, "/nonexistent/deferred_clause.py"), false);
  auto errs = parser::syntax_errors(t);
  REQUIRE(!errs.empty());
  CHECK(errs[0].span.line == 6);  // `    x = 2`, as in a whole parse
}

TEST_CASE("W013 inside a deferred def: @=, a continued line, a bracketed unpacking target", "[parser][deferred]") {
  TempTree t;
  t.write("config.py", "TP = 4\nBATCH = 32\n");
  t.write("tweaks.py", "import config\n\n\ndef more(n):\n    config.TP @= n\n    config.BATCH \\\n        = n\n"
                       "    (config.TP,\n     n) = 1, 2\n    return n\n");
  const std::string main = t.write("main.py", entry_main("import config\nimport tweaks", "config.TP, 64"));
  ir::DiagnosticSink sink;
  parse_path(main, sink);
  std::vector<std::pair<uint32_t, uint32_t>> at;
  for (const auto& d : sink.diagnostics())
    if (d.code == "W013") at.emplace_back(d.span.line, d.span.col);
  CHECK(at == std::vector<std::pair<uint32_t, uint32_t>>{{5, 5}, {6, 5}, {8, 6}});
}
