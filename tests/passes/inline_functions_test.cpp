// InlineFunctions: an Inline function's body (and an Orchestration function's, called from
// orchestration) replaces its call (fresh locals, params → args, return → assignment) and the
// function disappears; an Out parameter the body rebinds rebinds the caller's variable.
#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("inline body is spliced and renamed", "[InlineFunctions]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def twice(self, t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]) -> pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]:
        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(t, t)
        return u

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        b: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = self.twice(a)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = self.twice(b)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        return o2
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(a, a)
        b: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = u
        u_1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(b, b)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = u_1
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        return o2
)");
  auto after = pass_test::run(passes::inline_functions_pass(), before);
  CHECK(after->functions.size() == 1);
  pass_test::require_equal(after, expected);
}

TEST_CASE("an Orchestration function called from orchestration is spliced into its caller and removed",
          "[InlineFunctions]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(a, [0, 0], o)
        return o2

    @pl.function(type=pl.FunctionType.Orchestration)
    def twice(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32)
        t2: pl.Tensor[[16, 16], pl.FP32] = self.k(x, t)
        o2: pl.Tensor[[16, 16], pl.FP32] = self.k(t2, o)
        return o2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        r: pl.Tensor[[16, 16], pl.FP32] = self.twice(x, o)
        return r
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(a, [0, 0], o)
        return o2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32)
        t2: pl.Tensor[[16, 16], pl.FP32] = self.k(x, t)
        o2: pl.Tensor[[16, 16], pl.FP32] = self.k(t2, o)
        r: pl.Tensor[[16, 16], pl.FP32] = o2
        return r
)");
  auto after = pass_test::run(passes::inline_functions_pass(), before);
  CHECK(after->functions.size() == 2);
  pass_test::require_equal(after, expected);
}

TEST_CASE("an Out parameter the body rebinds rebinds the caller's variable; `a = a` is not written", "[InlineFunctions]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def put(self, x: pl.Tensor[[4], pl.FP32], out: pl.Out[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:
        out = pl.tensor.assemble(out, x, [0])
        return out

    @pl.function(type=pl.FunctionType.Inline)
    def same(self, x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
        return x

    @pl.function
    def main(self, a: pl.Tensor[[4], pl.FP32], qo: pl.Out[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:
        q: pl.Tensor[[4], pl.FP32] = self.put(a, qo)
        a = self.same(a)
        return q
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[4], pl.FP32], qo: pl.Out[pl.Tensor[[4], pl.FP32]]) -> pl.Tensor[[4], pl.FP32]:
        qo = pl.tensor.assemble(qo, a, [0])
        q: pl.Tensor[[4], pl.FP32] = qo
        return q
)");
  pass_test::require_equal(pass_test::run(passes::inline_functions_pass(), before), expected);
}

TEST_CASE("inline calls nested in an argument or a return are bound to fresh variables first", "[InlineFunctions]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def twice(self, t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]) -> pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]:
        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(t, t)
        return u

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.mul(self.twice(a), a)
        return pl.store(self.twice(c), [0, 0], o)
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(a, a)
        t1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = u
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.mul(t1, a)
        u_1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(c, c)
        t2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = u_1
        return pl.store(t2, [0, 0], o)
)");
  auto after = pass_test::run(passes::inline_functions_pass(), before);
  CHECK(after->functions.size() == 1);
  pass_test::require_equal(after, expected);
}

TEST_CASE("an inline call in a while condition is not supported yet", "[InlineFunctions]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def small(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.BOOL]:
        return n < 4

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        n: pl.Scalar[pl.INDEX] = 0
        while self.small(n):
            n = n + 1
        return pl.store(pl.load(x, [0, 0], [16, 16]), [0, 0], o)
)");
  const std::string err = pass_test::compile_error_of([&] { pass_test::run(passes::inline_functions_pass(), p); });
  CHECK(err.find("a call to inline function 'small' inside a while condition is not supported yet") != std::string::npos);
}

TEST_CASE("a tile type naming a local of the inlined body names that local's copy", "[InlineFunctions]") {
  const std::string text = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def head(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]:
        rows: pl.Scalar[pl.INDEX] = pl.min(16, n)
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[rows, 64])] = pl.load(x, [0, 0], [16, 64], valid_shape=[rows, 64])
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        CALLS
        return o
)";
  auto with = [&](const std::string& calls) {
    std::string s = text;
    s.replace(s.find("CALLS"), 5, calls);
    auto p = pass_test::parse(s);
    REQUIRE(p);
    return p;
  };
  auto after = pass_test::run(passes::inline_functions_pass(),
                              with("a = self.head(x, n)\n        b = self.head(x, n)\n        o = pl.store(b, [0, 0], o)"));
  REQUIRE(after->functions.size() == 1);
  // Each copy of `t` has the valid rows of its own copy of `rows`.
  std::vector<const ir::AssignStmt*> rows, tiles;
  for (const auto& s : ir::flatten_body(after->functions[0]->body))
    if (const auto* a = ir::as<ir::AssignStmt>(s)) {
      if (ir::as_scalar(a->var->type)) rows.push_back(a);
      if (ir::as_tile(a->var->type) && ir::as<ir::Call>(a->value)) tiles.push_back(a);  // the loads
    }
  REQUIRE(rows.size() == 2);
  REQUIRE(tiles.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const auto& view = ir::as_tile(tiles[i]->var->type)->view;
    REQUIRE(view);
    const auto& valid = view->valid_shape;
    REQUIRE(valid.size() == 2);
    CHECK(valid[0] == rows[i]->var);
  }
  CHECK(rows[0]->var != rows[1]->var);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::TypeChecked}, sink));
}

TEST_CASE("a dynamic extent of the callee's parameter is the extent of the tensor the call hands over",
          "[InlineFunctions]") {
  // The helper is declared over its own symbol M (as a helper module's pl.dynamic is its own);
  // the caller's tensor has rows N.
  const std::string text = R"(
import pypto.language as pl

N = pl.dynamic("N")
M = pl.dynamic("M")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def head(self, x: pl.Tensor[[M, 64], pl.FP32]) -> pl.Tensor[[M, 64], pl.FP32]:
        y: pl.Tensor[[M, 64], pl.FP32] = pl.mul(x, 2.0)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, 64], pl.FP32]) -> pl.Tensor[[N, 64], pl.FP32]:
        BODY
)";
  auto with = [&](const std::string& body) {
    std::string s = text;
    s.replace(s.find("BODY"), 4, body);
    auto p = pass_test::parse(s);
    REQUIRE(p);
    return p;
  };
  auto after = pass_test::run(passes::inline_functions_pass(), with("r = self.head(x)\n        return r"));
  auto expected = pass_test::parse(R"(
import pypto.language as pl

N = pl.dynamic("N")
M = pl.dynamic("M")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, 64], pl.FP32]) -> pl.Tensor[[N, 64], pl.FP32]:
        y: pl.Tensor[[N, 64], pl.FP32] = pl.mul(x, 2.0)
        r: pl.Tensor[[N, 64], pl.FP32] = y
        return r
)");
  pass_test::require_equal(after, expected);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::TypeChecked}, sink));
}

TEST_CASE("a pl.Array parameter is passed by reference: the callee's element writes are the caller's", "[InlineFunctions]") {
  // The callee records a TaskId in the array it is handed (as pypto-lib's completion arrays do);
  // the caller's later read sees it.
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def work(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]], done: pl.Array[2, pl.TASK_ID]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Scalar[pl.TASK_ID] = pl.system.task_invalid()
        done[1] = t
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        done = pl.array.create(2, pl.TASK_ID)
        y = self.work(x, y, done)
        last: pl.Scalar[pl.TASK_ID] = done[1]
        return y
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        done = pl.array.create(2, pl.TASK_ID)
        t: pl.Scalar[pl.TASK_ID] = pl.system.task_invalid()
        done[1] = t
        last: pl.Scalar[pl.TASK_ID] = done[1]
        return y
)");
  pass_test::require_equal(pass_test::run(passes::inline_functions_pass(), before), expected);
}
