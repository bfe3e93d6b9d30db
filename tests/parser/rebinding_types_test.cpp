// Rebinding a name with another type: an integer scalar rebound in another block (INDEX vs
// INT32) keeps its one variable and converts the value (a cast, or a retyped literal), so the
// carry has one type; under @pl.jit a rebinding in a later sibling with-scope body is a new name
// (the reference's x_v1), not across loop bodies or if branches; every other mismatch stays E201. Also
// the slice extents the rebinding checks depend on: `x[q * 8:(q + 2) * 8]` has the static extent 16.
#include <catch2/catch.hpp>

#include "ir/ir.h"
#include "parse_helpers.h"

using namespace pypto::ir;
using ptest::errors;
using ptest::parse;

namespace {

const char* kProgram = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, idx: pl.Tensor[[16], pl.INT32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16], pl.INT32]]):
)";

// The AssignStmts of a body, depth first.
void assigns(const StmtPtr& s, std::vector<const AssignStmt*>& out) {
  if (!s) return;
  if (const auto* a = as<AssignStmt>(s)) out.push_back(a);
  if (const auto* q = as<SeqStmts>(s))
    for (const auto& c : q->stmts) assigns(c, out);
  if (const auto* f = as<ForStmt>(s)) assigns(f->body, out);
  if (const auto* i = as<IfStmt>(s)) {
    assigns(i->then_body, out);
    assigns(i->else_body, out);
  }
  if (const auto* sc = as<ScopeStmt>(s)) assigns(sc->body, out);
}

std::vector<const AssignStmt*> assigns_of(const ProgramPtr& p, const std::string& fn, const std::string& name) {
  std::vector<const AssignStmt*> all, out;
  for (const auto& s : flatten_body(p->find(fn)->body)) assigns(s, all);
  for (const auto* a : all)
    if (a->var->name == name) out.push_back(a);
  return out;
}

}  // namespace

TEST_CASE("an integer scalar rebound in another block converts to its variable's type", "[parser][stmt][rebind]") {
  auto p = parse(std::string(kProgram) + R"(        src = n
        v = pl.read(idx, [0])
        for i in pl.range(16):
            raw = pl.read(idx, [i])
            if raw >= 0:
                src = raw + 1
                v = 0
        pl.write(out, [0], v)
        return out
)");
  auto src = assigns_of(p, "k", "src");
  REQUIRE(src.size() == 2);
  CHECK(src[0]->var == src[1]->var);  // one variable, carried by the loop and the branch
  CHECK(as_scalar(src[1]->var->type)->dtype == DataType::INDEX);
  const auto* cast = as<Unary>(src[1]->value);
  REQUIRE(cast);
  CHECK(cast->op == UnOp::Cast);
  CHECK(as_scalar(cast->type)->dtype == DataType::INDEX);
  CHECK(as_scalar(cast->a->type)->dtype == DataType::INT32);
  auto v = assigns_of(p, "k", "v");
  REQUIRE(v.size() == 2);
  CHECK(v[0]->var == v[1]->var);
  const auto* lit = as<ConstInt>(v[1]->value);  // a literal is retyped, not cast
  REQUIRE(lit);
  CHECK(as_scalar(lit->type)->dtype == DataType::INT32);
}

TEST_CASE("other rebindings with another type stay E201", "[parser][stmt][rebind][errors]") {
  // A float value into an integer name (in Python both are numbers, but the reference rejects it).
  auto e = errors(std::string(kProgram) + R"(        s = n
        for i in pl.range(16):
            s = pl.cast(pl.read(idx, [i]), pl.FP32)
        return out
)");
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E201");
  CHECK(e[0].message == "Cannot reassign 's' with a different type: was pl.Scalar[pl.INDEX], got pl.Scalar[pl.FP32]");
  CHECK(e[0].span.line == 9);
  // Outside @pl.jit, a tensor name rebound to a tile in a sibling scope.
  e = errors(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [16, 64])
            out = pl.store(t, [0, 0], out)
        with pl.at(level=pl.Level.CORE_GROUP):
            t = x[0:16, 0:64]
            out = pl.assemble(out, t, [0, 0])
        return out
)");
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E201");
  CHECK(e[0].span.line == 11);
}

TEST_CASE("@pl.jit: a rebinding in a sibling with-scope body is a new name", "[parser][jit][rebind]") {
  const std::string head = R"(import pypto.language as pl


@pl.jit
def main(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
)";
  auto p = parse(head + R"(    with pl.at(level=pl.Level.CORE_GROUP):
        t = x[0:16, 0:64]
        out = pl.assemble(out, t, [0, 0])
    return out
)");
  auto t = assigns_of(p, "main", "t");
  REQUIRE(t.size() == 2);
  CHECK(t[0]->var != t[1]->var);
  CHECK(as_tile(t[0]->var->type));
  CHECK(as_tensor(t[1]->var->type));
  // Directly in a loop body the name would be the loop's carry: still rejected.
  auto e = errors(head + R"(    for i in pl.range(2):
        t = x[0:16, 0:64]
        out = pl.assemble(out, t, [0, 0])
    return out
)");
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E201");
  CHECK(e[0].span.line == 10);
  // In the other branch of an if: after the if the name needs one variable.
  e = errors(R"(import pypto.language as pl


@pl.jit
def main(x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    if n > 0:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [16, 64])
            out = pl.store(t, [0, 0], out)
    else:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = x[0:16, 0:64]
            out = pl.assemble(out, t, [0, 0])
    return out
)");
  REQUIRE(!e.empty());
  CHECK(e[0].code == "E201");
  CHECK(e[0].span.line == 12);
}

TEST_CASE("a slice extent folds when its bounds differ by a constant", "[parser][subscript]") {
  auto p = parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 512], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[1, 16], pl.FP32]:
        q = n * 4
        v = x[0:1, q * 8:(q + 2) * 8]
        w = x[0:1, 2 * (q + 1) - q - q:18 - 1 * 2 + 2 * q - 2 * q]
        return v
)");
  auto v = assigns_of(p, "main", "v");
  REQUIRE(v.size() == 1);
  CHECK(const_int_value(as_tensor(v[0]->var->type)->shape[1]) == 16);
  auto w = assigns_of(p, "main", "w");
  REQUIRE(w.size() == 1);
  CHECK(const_int_value(as_tensor(w[0]->var->type)->shape[1]) == 14);

  // The folding itself: linear terms cancel, anything else is no constant.
  auto q = make_var("q", scalar_type(DataType::INDEX));
  auto r = make_var("r", scalar_type(DataType::INDEX));
  auto idx = scalar_type(DataType::INDEX);
  auto add = [&](ExprPtr a, ExprPtr b) { return std::make_shared<Binary>(BinOp::Add, a, b, idx, Span{}); };
  auto mul = [&](ExprPtr a, ExprPtr b) { return std::make_shared<Binary>(BinOp::Mul, a, b, idx, Span{}); };
  auto neg = [&](ExprPtr a) { return std::make_shared<Unary>(UnOp::Neg, a, idx, Span{}); };
  CHECK(const_difference(mul(add(q, make_int(4)), make_int(128)), mul(q, make_int(128))) == 512);
  CHECK(const_difference(add(neg(q), make_int(3)), neg(add(q, make_int(1)))) == 4);
  CHECK(!const_difference(mul(q, r), mul(r, q)));  // not linear: no constant claimed
  CHECK(const_difference(mul(q, r), mul(q, r)) == 0);
  CHECK(!const_difference(add(q, make_int(1)), r));
  CHECK(!const_difference(add(q, make_int(INT64_MAX)), add(q, make_int(-2))));  // overflow: no answer
}

TEST_CASE("@pl.jit: a tile rebound from Acc to Vec in its block is a new name; a vector op's result is Vec",
          "[parser][jit][rebind]") {
  // pl.mul / pl.add compute on the vector unit: their result is a Vec tile even while the matmul
  // result they read is still in Acc (InferTileMemorySpace moves it), so `s` changes space.
  auto p = parse(R"(import pypto.language as pl


@pl.jit
def main(a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)
        tb = pl.load(b, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)
        s = pl.matmul(pl.move(ta, target_memory=pl.MemorySpace.Left), pl.move(tb, target_memory=pl.MemorySpace.Right))
        s = pl.add(pl.mul(s, 0.5), 1.0)
        out = pl.store(s, [0, 0], out)
    return out
)");
  auto s = assigns_of(p, "main", "s");
  REQUIRE(s.size() == 2);
  CHECK(s[0]->var != s[1]->var);
  CHECK(as_tile(s[0]->var->type)->space == MemorySpace::Acc);
  CHECK(as_tile(s[1]->var->type)->space == MemorySpace::Vec);
}
