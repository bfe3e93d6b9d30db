// Simplify: constant folding (also in types; extent queries of symbols there), scalar-constant propagation, tuple forwarding, dead scalar
// assignment elimination; calls are never removed.
#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("folds, propagates and removes dead scalars", "[Simplify]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        a: pl.Scalar[pl.INDEX] = 4 * 16
        b: pl.Scalar[pl.INDEX] = a + 0
        c: pl.Scalar[pl.INDEX] = n * 1 + b // 8
        unused: pl.Scalar[pl.INDEX] = n + 3
        return c
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        c: pl.Scalar[pl.INDEX] = n + 8
        return c
)");
  pass_test::require_equal(pass_test::run(passes::simplify_pass(), before), expected);
}

TEST_CASE("Python floor semantics for // and %", "[Simplify]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        a: pl.Scalar[pl.INDEX] = 0 - 7
        c: pl.Scalar[pl.INDEX] = n + a // 2 + a % 3
        return c
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        c: pl.Scalar[pl.INDEX] = n + -4 + 2
        return c
)");
  pass_test::require_equal(pass_test::run(passes::simplify_pass(), before), expected);
}

TEST_CASE("calls are kept even when their result is unused", "[Simplify]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        r: pl.Scalar[pl.INDEX] = 2 * 8
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [r, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32] = pl.add(t, t)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [r, 0], o)
        return o2
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [16, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32] = pl.add(t, t)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [16, 0], o)
        return o2
)");
  pass_test::require_equal(pass_test::run(passes::simplify_pass(), before), expected);
}

TEST_CASE("pl.tensor.dim of a static extent folds to the constant; a dynamic one stays", "[Simplify]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[M, 48], pl.FP32]) -> pl.Scalar[pl.INDEX]:
        rows: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 0)
        cols: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, -1)
        n: pl.Scalar[pl.INDEX] = rows * cols + pl.tensor.dim(x, 1)
        return n
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[M, 48], pl.FP32]) -> pl.Scalar[pl.INDEX]:
        rows: pl.Scalar[pl.INDEX] = pl.tensor.dim(x, 0)
        n: pl.Scalar[pl.INDEX] = rows * 48 + 48
        return n
)");
  pass_test::require_equal(pass_test::run(passes::simplify_pass(), before), expected);
}

TEST_CASE("inside a type, pl.tensor.dim of a dynamic extent becomes its symbol", "[Simplify]") {
  // The creation's shape names the extent query; its Var's type then held a call (no three-address
  // form: an internal error in the orchestration emitter). The call's own argument stays (the
  // DSL cannot spell the mixed form, so this checks the result's type).
  auto before = pass_test::parse(R"(
import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[M, 48], pl.FP32]) -> pl.Tensor[[M, 48], pl.FP32]:
        t = pl.create_tensor([pl.tensor.dim(x, 0), 48], dtype=pl.FP32)
        return x
)");
  auto after = pass_test::run(passes::simplify_pass(), before);
  const auto& f = *after->find("f");
  const auto* a = ir::as<ir::AssignStmt>(ir::flatten_body(f.body).front());
  REQUIRE(a);
  const auto* t = ir::as_tensor(a->var->type);
  REQUIRE(t);
  const auto* m = ir::as<ir::Var>(t->shape[0]);
  REQUIRE(m);
  CHECK(m->name == "M");
  CHECK(m == ir::as<ir::Var>(ir::as_tensor(f.params[0]->type)->shape[0]));
  CHECK(ir::const_int_value(t->shape[1]) == 48);
}

TEST_CASE("a tuple bound to a variable is forwarded to its element reads and its return", "[Simplify]") {
  // An inlined helper with several results leaves `r = (a, b)`; the caller reads r[1] and returns
  // the second call's tuple whole (a @pl.jit entry without a return annotation returns one tuple).
  auto before = pass_test::run_named({"inline_functions", "convert_to_ssa"}, pass_test::parse(R"(
import pypto.language as pl

@pl.jit.inline
def two(n: pl.Scalar[pl.INDEX]):
    a = n + 1
    b = n * 2
    return a, b

@pl.jit
def f(n: pl.Scalar[pl.INDEX]):
    r = two(n)
    s = two(r[1])
    return s
)"));
  REQUIRE(before);
  const auto& f = *before->functions.back();
  REQUIRE(f.return_types.size() == 1);  // the tuple
  auto after = pass_test::run(passes::simplify_pass(), before);
  INFO(ir::print_program(*after));
  const auto& g = *after->find(f.name);
  REQUIRE(g.return_types.size() == 2);
  const auto stmts = ir::flatten_body(g.body);
  // b = n * 2; a_1 = b + 1; b_1 = b * 2; return a_1, b_1 — no tuple left.
  REQUIRE(stmts.size() == 4);
  const auto* ret = ir::as<ir::ReturnStmt>(stmts.back());
  REQUIRE(ret);
  REQUIRE(ret->values.size() == 2);
  CHECK(ret->values[0] == ir::as<ir::AssignStmt>(stmts[1])->var);
  CHECK(ret->values[1] == ir::as<ir::AssignStmt>(stmts[2])->var);
  const auto* a1 = ir::as<ir::Binary>(ir::as<ir::AssignStmt>(stmts[1])->value);
  REQUIRE(a1);
  CHECK(a1->a == ir::as<ir::AssignStmt>(stmts[0])->var);  // r[1] is b
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::TypeChecked}, sink));
}

TEST_CASE("an if whose condition folds to a constant is the branch it takes", "[Simplify]") {
  // `if A > B` of two constants: the false one goes with the zero-width tensor it would build (an
  // allocation of size 0 downstream); its result reads the else branch's value. A true condition
  // without results keeps its body.
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[8, 128], pl.FP32], y: pl.Out[pl.Tensor[[8, 128], pl.FP32]]) -> pl.Tensor[[8, 128], pl.FP32]:
        a: pl.Scalar[pl.INDEX] = 128
        y_1: pl.Tensor[[8, 128], pl.FP32] = pl.tensor.assemble(y, pl.tensor.adds(x, 1.0), [0, 0])
        if a > 128:
            y_2: pl.Tensor[[8, 128], pl.FP32] = pl.tensor.assemble(y_1, pl.tensor.full([8, 0], dtype=pl.FP32, value=2.0), [0, 128])
            y_3 = pl.yield_(y_2)
        else:
            y_3 = pl.yield_(y_1)
        if a == 128:
            y_4: pl.Tensor[[8, 128], pl.FP32] = pl.tensor.assemble(y_3, pl.tensor.adds(x, 3.0), [0, 0])
            y_5 = pl.yield_(y_4)
        else:
            y_5 = pl.yield_(y_3)
        return y_5
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[8, 128], pl.FP32], y: pl.Out[pl.Tensor[[8, 128], pl.FP32]]) -> pl.Tensor[[8, 128], pl.FP32]:
        y_1: pl.Tensor[[8, 128], pl.FP32] = pl.tensor.assemble(y, pl.tensor.adds(x, 1.0), [0, 0])
        y_4: pl.Tensor[[8, 128], pl.FP32] = pl.tensor.assemble(y_1, pl.tensor.adds(x, 3.0), [0, 0])
        return y_4
)");
  auto after = pass_test::run(passes::simplify_pass(), before);
  after = pass_test::run(passes::normalize_stmt_structure_pass(), after);
  expected = pass_test::run(passes::normalize_stmt_structure_pass(), expected);
  pass_test::require_equal(after, expected);
}

TEST_CASE("an unread tuple whose calls only read tensor handles goes once its elements are forwarded", "[Simplify]") {
  // An inlined helper's `return x, pl.tensor.read(x, [0])`: the read is forwarded to its use, the
  // tuple is dead. A tuple holding a call that writes stays (the call would be lost).
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Scalar[pl.FP32]:
        t: pl.Tuple[pl.Tensor[[8], pl.FP32], pl.Scalar[pl.FP32]] = [x, pl.tensor.read(x, [0])]
        s: pl.Scalar[pl.FP32] = t[1]
        return s
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Scalar[pl.FP32]:
        s: pl.Scalar[pl.FP32] = pl.tensor.read(x, [0])
        return s
)");
  pass_test::require_equal(pass_test::run(passes::simplify_pass(), before), expected);
}

TEST_CASE("a loop carry the body yields unchanged is its initial value", "[Simplify]") {
  // The write of `b` sat in a branch that folds away: b's carry is yielded unchanged, so the loop
  // stops carrying it and its result reads the init (a kernel would otherwise return an
  // unwritten In tensor as a result).
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[8], pl.FP32], b: pl.Tensor[[8], pl.FP32]) -> tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]]:
        for i, (a_1, b_1) in pl.range(4, init_values=(a, b)):
            a_2: pl.Tensor[[8], pl.FP32] = pl.tensor.adds(a_1, 1.0)
            if 2 > 3:
                b_2: pl.Tensor[[8], pl.FP32] = pl.tensor.adds(b_1, 1.0)
                b_3 = pl.yield_(b_2)
            else:
                b_3 = pl.yield_(b_1)
            a_3, b_4 = pl.yield_(a_2, b_3)
        return a_3, b_4
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, a: pl.Tensor[[8], pl.FP32], b: pl.Tensor[[8], pl.FP32]) -> tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]]:
        for i, (a_1,) in pl.range(4, init_values=(a,)):
            a_2: pl.Tensor[[8], pl.FP32] = pl.tensor.adds(a_1, 1.0)
            a_3 = pl.yield_(a_2)
        return a_3, b
)");
  auto after = pass_test::run(passes::simplify_pass(), before);
  after = pass_test::run(passes::normalize_stmt_structure_pass(), after);
  expected = pass_test::run(passes::normalize_stmt_structure_pass(), expected);
  pass_test::require_equal(after, expected);
}
