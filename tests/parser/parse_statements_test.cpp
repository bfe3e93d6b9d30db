// Statement forms: rebinding (same Var), annotated assignment, tuple unpacking, loops with and
// without init_values, if with yields, scopes, subscript reads/writes, comments, static_assert.
#include <catch2/catch.hpp>

#include "ir/printer.h"
#include "parse_helpers.h"

using namespace pypto::ir;
using ptest::body_of;
using ptest::kernel;
using ptest::parse;

TEST_CASE("rebinding assigns the same Var; annotation adds detail", "[parser][stmt]") {
  auto p = parse(kernel(
      "        t = pl.load(x, [0, 0], [64, 64])\n"
      "        t = pl.add(t, t)\n"
      "        u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.exp(t)\n"
      "        s: pl.Scalar[pl.FP32] = 1\n"
      "        return\n"));
  auto b = body_of(p);
  REQUIRE(b.size() == 5);
  auto a0 = as<AssignStmt>(b[0]), a1 = as<AssignStmt>(b[1]), a2 = as<AssignStmt>(b[2]), a3 = as<AssignStmt>(b[3]);
  REQUIRE((a0 && a1 && a2 && a3));
  CHECK(a0->var == a1->var);
  CHECK(as<Call>(a1->value)->is_op("tile.add"));
  REQUIRE(as_tile(a2->var->type));
  CHECK(as_tile(a2->var->type)->space == MemorySpace::Vec);
  CHECK(as_scalar(a3->var->type)->dtype == DataType::FP32);
  CHECK(as<ConstFloat>(a3->value));  // the literal takes the annotated dtype
}

TEST_CASE("an in-place op called for its effect updates the name it writes", "[parser][stmt]") {
  auto p = parse(kernel(
      "        t = pl.load(x, [0, 0], [64, 64])\n"
      "        pl.tile.write(t, [0, 1], 2.0)\n"
      "        pl.write(out, [n, 0], 1.0)\n"
      "        pl.store(t, [0, 0], out)\n"
      "        pl.tile.reshape(t, [4096, 1])\n"
      "        return\n"));
  auto b = body_of(p);
  REQUIRE(b.size() == 6);
  const auto* tw = as<AssignStmt>(b[1]);
  const auto* gw = as<AssignStmt>(b[2]);
  REQUIRE((tw && gw));
  CHECK(tw->var == as<AssignStmt>(b[0])->var);  // t = pl.tile.write(t, ...)
  CHECK(as<Call>(tw->value)->is_op("tile.write"));
  CHECK(gw->var == p->find("k")->params[2]);  // out = pl.tensor.write(out, ...)
  CHECK(as<Call>(gw->value)->is_op("tensor.write"));
  CHECK(as<EvalStmt>(b[3]));  // a store names its target in its own way: unchanged
  CHECK(as<EvalStmt>(b[4]));  // a view changes nothing: left for the checks to refuse
}

TEST_CASE("a tile annotation without a memory space takes the value's", "[parser][stmt]") {
  auto p = parse(kernel(
      "        t: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64])\n"
      "        m: pl.Tile[[64, 64], pl.FP32] = pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat)\n"
      "        return\n"));
  auto b = body_of(p);
  REQUIRE(b.size() == 3);
  CHECK(as_tile(as<AssignStmt>(b[0])->var->type)->space == MemorySpace::Vec);  // as `t = pl.load(...)`
  CHECK(as_tile(as<AssignStmt>(b[1])->var->type)->space == MemorySpace::Mat);
}

TEST_CASE("strict_ssa=True on one function holds that function to single assignment only", "[parser][stmt]") {
  const std::string head = "import pypto.language as pl\n\n@pl.program\nclass P:\n";
  const std::string loose =
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def a(self, x: pl.Tensor[[8, 8], pl.FP32]) -> pl.Tensor[[8, 8], pl.FP32]:\n"
      "        y = pl.add(x, x)\n        y = pl.add(y, x)\n        return y\n";
  const std::string strict =
      "    @pl.function(type=pl.FunctionType.InCore, strict_ssa=True)\n"
      "    def b(self, x: pl.Tensor[[8, 8], pl.FP32]) -> pl.Tensor[[8, 8], pl.FP32]:\n"
      "        y = pl.add(x, x)\n        z = pl.add(y, x)\n        return z\n";
  CHECK(parse(head + loose + strict)->functions.size() == 2);
  const std::string bad = strict.substr(0, strict.find("        z =")) + "        y = pl.add(y, x)\n        return y\n";
  try {
    parse(head + loose + bad);
    FAIL("accepted");
  } catch (const CompileError& e) {
    CHECK(e.diagnostics()[0].code == "E201");
    CHECK(e.diagnostics()[0].span.line == 13);  // the second y in b
  }
}

TEST_CASE("strict_ssa=True is kept on the function and printed back; a bare in-place op stays a statement there",
          "[parser][stmt]") {
  auto p = parse("import pypto.language as pl\n\n@pl.program\nclass P:\n"
                 "    @pl.function(type=pl.FunctionType.InCore, strict_ssa=True)\n"
                 "    def k(self, x: pl.Tensor[[64, 64], pl.FP32]):\n"
                 "        t = pl.load(x, [0, 0], [64, 64])\n"
                 "        pl.tile.write(t, [0, 1], 2.0)\n"
                 "        return\n");
  const auto& f = *p->find("k");
  CHECK(f.strict_ssa);
  CHECK(print_program(*p).find("@pl.function(type=pl.FunctionType.InCore, strict_ssa=True)") != std::string::npos);
  auto b = body_of(p);
  REQUIRE(b.size() == 3);
  CHECK(as<EvalStmt>(b[1]));  // t is bound once: the write is an effect on its buffer, not a rebinding
}

TEST_CASE("strict_ssa: a rebinding in a nested block shadows until a scope with results ends; a bare pl.yield_() is nothing",
          "[parser][stmt]") {
  auto p = parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, strict_ssa=True)
    def k(self, x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8], pl.FP32]:
        f: pl.Scalar[pl.BOOL] = False
        for i, (a,) in pl.range(4, init_values=(x,)):
            if i > n:
                f: pl.Scalar[pl.BOOL] = True
                ph = pl.yield_(a)
            else:
                ph = pl.yield_(a)
            if not f:
                g: pl.Scalar[pl.BOOL] = f
                pl.yield_()
            a = pl.yield_(ph)
        h: pl.Scalar[pl.BOOL] = f
        return a
)");
  auto b = body_of(p, "k");
  REQUIRE(b.size() == 4);
  const auto f0 = as<AssignStmt>(b[0])->var;
  const auto* loop = as<ForStmt>(b[1]);
  REQUIRE(loop);
  auto lb = flatten_body(loop->body);
  REQUIRE(lb.size() == 3);
  const auto* i1 = as<IfStmt>(lb[0]);
  REQUIRE(i1);
  const auto f1 = as<AssignStmt>(flatten_body(i1->then_body)[0])->var;
  CHECK(f1 != f0);  // the nested f is a new variable ...
  CHECK(f1->name == "f");
  const auto* i2 = as<IfStmt>(lb[1]);
  REQUIRE(i2);
  CHECK(as<Var>(as<Unary>(i2->cond)->a) == f0.get());  // ... hidden again once the if with results ends
  auto g = flatten_body(i2->then_body);
  REQUIRE(g.size() == 1);  // the bare pl.yield_() makes no statement
  CHECK(as<Var>(as<AssignStmt>(g[0])->value) == f0.get());
  CHECK(as<Var>(as<AssignStmt>(b[2])->value) == f0.get());  // the loop with carries does not leak it either
  // The same name bound twice in one block is still a second assignment.
  try {
    std::string src = kernel("        y = pl.add(x, x)\n        y = pl.add(y, x)\n        return\n");
    const std::string plain = "pl.FunctionType.InCore)";
    src.replace(src.find(plain), plain.size(), "pl.FunctionType.InCore, strict_ssa=True)");
    parse(src);
    FAIL("accepted");
  } catch (const CompileError& e) {
    CHECK(e.diagnostics()[0].code == "E201");
  }
}

TEST_CASE("tuple unpacking goes through a tuple temp", "[parser][stmt]") {
  auto p = parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def two(self, x: pl.Tensor[[8, 8], pl.FP32]) -> tuple[pl.Tensor[[8, 8], pl.FP32], pl.Tensor[[8, 8], pl.FP32]]:
        return x, x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 8], pl.FP32]) -> pl.Tensor[[8, 8], pl.FP32]:
        a, b = self.two(x)
        c, d = a, b
        return d
)");
  CHECK(p->find("two")->return_types.size() == 2);
  auto b = body_of(p, "main");
  REQUIRE(b.size() == 6);
  auto tmp = as<AssignStmt>(b[0]);
  REQUIRE(as_tuple(tmp->var->type));
  auto ga = as<AssignStmt>(b[1]);
  auto gi = as<TupleGetItem>(ga->value);
  REQUIRE(gi);
  CHECK(gi->index == 0);
  CHECK(ga->var->name == "a");
  CHECK(as<AssignStmt>(b[3])->value == ga->var);  // c = a (MakeTuple unpacked element-wise)
}

TEST_CASE("a, b = b, a evaluates the right side first (a value reading an earlier target is copied)",
          "[parser][stmt]") {
  // One variable per name: binding a first made `b = a` read the new a, so both names held b
  // (the interpreter agreed with that IR, so only the pattern's semantics could catch it).
  auto p = parse(kernel(
      "        a: pl.Scalar[pl.INDEX] = 1\n"
      "        b: pl.Scalar[pl.INDEX] = 2\n"
      "        a, b = b, a\n"
      "        c, d = a + b, a\n"
      "        return\n"));
  auto b = body_of(p);
  REQUIRE(b.size() == 8);
  const auto* copy = as<AssignStmt>(b[2]);  // b_rhs = a, before either name is rebound
  const auto* bind_a = as<AssignStmt>(b[3]);
  const auto* bind_b = as<AssignStmt>(b[4]);
  REQUIRE((copy && bind_a && bind_b));
  CHECK(copy->var->name == "b_rhs");
  CHECK(as<Var>(copy->value) == bind_a->var.get());  // the old a (one Var per name)
  CHECK(as<Var>(bind_a->value) == bind_b->var.get());  // a = b
  CHECK(as<Var>(bind_b->value) == copy->var.get());    // b = the copy of the old a
  // No target of `c, d` is read on the right: no copies.
  CHECK(as<AssignStmt>(b[5])->var->name == "c");
  CHECK(as<AssignStmt>(b[6])->var->name == "d");
}

TEST_CASE("a parenthesised tuple return is the same multi-value return", "[parser][stmt]") {
  // As in Python, `return (a, b)` returns the values a and b, like `return a, b` (it returned one
  // tuple, so Out parameters were not matched to the values and stayed unwritten).
  const char* text = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 8], pl.FP32], a: pl.Out[pl.Tensor[[8, 8], pl.FP32]], b: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
        a = pl.add(x, 1.0)
        b = pl.add(x, 2.0)
        return (a,
                b)
)";
  auto p = parse(text);
  REQUIRE(p->find("main")->return_types.size() == 2);
  auto body = body_of(p, "main");
  auto r = as<ReturnStmt>(body.back());
  REQUIRE(r);
  REQUIRE(r->values.size() == 2);
  CHECK(as<Var>(r->values[0])->name == "a");
  CHECK(as<Var>(r->values[1])->name == "b");
}

TEST_CASE("loops: carries, yields, kinds", "[parser][stmt][loop]") {
  auto p = parse(kernel(
      "        acc0 = pl.load(x, [0, 0], [64, 64])\n"
      "        for i, (acc,) in pl.range(0, n, 2, init_values=(acc0,)):\n"
      "            nxt = pl.add(acc, acc)\n"
      "            res = pl.yield_(nxt)\n"
      "        t = res\n"
      "        for j in pl.parallel(4):\n"
      "            t = pl.add(t, t)\n"
      "        for k in pl.pipeline(4, stage=2):\n"
      "            t = pl.add(t, t)\n"
      "        for (c,) in pl.while_(init_values=(n,)):\n"
      "            pl.cond(c < 10)\n"
      "            c2 = pl.yield_(c + 1)\n"
      "        return\n"));
  auto b = body_of(p);
  auto f0 = as<ForStmt>(b[1]);
  REQUIRE(f0);
  CHECK(f0->kind == ForKind::Sequential);
  CHECK(f0->iter_args.size() == 1);
  CHECK(f0->return_vars.size() == 1);
  CHECK(f0->return_vars[0]->name == "res");
  CHECK(f0->iter_args[0]->init == as<AssignStmt>(b[0])->var);
  CHECK(const_int_value(f0->step) == 2);
  auto fb = flatten_body(f0->body);
  REQUIRE(as<YieldStmt>(fb.back()));
  CHECK(as<AssignStmt>(b[2])->value == f0->return_vars[0]);  // res bound after the loop
  auto f1 = as<ForStmt>(b[3]);
  CHECK(f1->kind == ForKind::Parallel);
  CHECK(f1->iter_args.empty());  // no init_values → no carries (SSA pass adds them)
  CHECK(f1->return_vars.empty());
  CHECK(as<AssignStmt>(flatten_body(f1->body)[0])->var == as<AssignStmt>(b[2])->var);
  auto f2 = as<ForStmt>(b[4]);
  CHECK(f2->kind == ForKind::Pipeline);
  CHECK(f2->stage == 2);
  auto w = as<WhileStmt>(b[5]);
  REQUIRE(w);
  CHECK(w->iter_args.size() == 1);
  CHECK(w->return_vars.size() == 1);
  CHECK(as_scalar(w->cond->type)->dtype == DataType::BOOL);
}

TEST_CASE("if/elif/else with yields builds phis", "[parser][stmt][if]") {
  auto p = parse(kernel(
      "        if n > 2:\n"
      "            r = pl.yield_(n + 1)\n"
      "        elif n == 0:\n"
      "            r = pl.yield_(n)\n"
      "        else:\n"
      "            r = pl.yield_(n * 2)\n"
      "        if True:\n"
      "            q = n\n"
      "        return\n"));
  auto b = body_of(p);
  auto i0 = as<IfStmt>(b[0]);
  REQUIRE(i0);
  CHECK(i0->return_vars.size() == 1);
  CHECK(i0->return_vars[0]->name == "r");
  auto eb = flatten_body(i0->else_body);
  REQUIRE(eb.size() == 2);
  CHECK(as<IfStmt>(eb[0])->return_vars.size() == 1);
  CHECK(as<YieldStmt>(eb[1]));
  auto i1 = as<IfStmt>(b[1]);
  CHECK(i1->return_vars.empty());
  CHECK(!i1->else_body);
}

TEST_CASE("scopes", "[parser][stmt][scope]") {
  auto p = parse(R"(import pypto.language as pl

@pl.jit(auto_scope=False)
def f(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
        out = pl.add(x, x)
    with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
        pass
    with pl.cluster():
        pass
    with pl.spmd(4):
        with pl.at(level=pl.Level.CORE_GROUP):
            pass
    with pl.scope():
        pass
    with pl.manual_scope():
        pass
    return out
)");
  auto b = flatten_body(p->find("f")->body);
  REQUIRE(b.size() == 7);
  auto s0 = as<ScopeStmt>(b[0]);
  CHECK(s0->scope == ScopeKind::InCore);
  CHECK(s0->name_hint == "k");
  CHECK(s0->level == Level::CORE_GROUP);
  CHECK(as<ScopeStmt>(b[1])->scope == ScopeKind::Hierarchy);
  CHECK(as<ScopeStmt>(b[1])->role == Role::Orchestrator);
  CHECK(as<ScopeStmt>(b[2])->scope == ScopeKind::Cluster);
  CHECK(const_int_value(as<ScopeStmt>(b[3])->core_num) == 4);
  CHECK(!as<ScopeStmt>(b[4])->manual);
  CHECK(as<ScopeStmt>(b[5])->manual);
}

TEST_CASE("subscripts: read, slice, write sugar", "[parser][stmt][subscript]") {
  auto p = parse(kernel(
      "        v = x[1, n]\n"
      "        s = x[0:16, n:n + 8]\n"
      "        r = x[3]\n"
      "        out[0:16, n:n + 8] = s\n"
      "        out[:] = x\n"
      "        return\n"));
  auto b = body_of(p);
  auto rd = as<Call>(as<AssignStmt>(b[0])->value);
  CHECK(rd->is_op("tensor.read"));
  CHECK(as_scalar(as<AssignStmt>(b[0])->var->type));
  auto sl = as<Call>(as<AssignStmt>(b[1])->value);
  REQUIRE(sl->is_op("tensor.slice"));
  auto shape = as<MakeTuple>(sl->args[1]);
  CHECK(const_int_value(shape->elems[0]) == 16);
  CHECK(const_int_value(shape->elems[1]) == 8);  // (n + 8) - n folds
  auto r = as<AssignStmt>(b[2]);
  CHECK(as<Call>(r->value)->is_op("tensor.reshape"));  // dropped dim
  CHECK(as_tensor(r->var->type)->shape.size() == 1);
  auto w = as<AssignStmt>(b[3]);
  CHECK(as<Call>(w->value)->is_op("tensor.assemble"));
  CHECK(w->var == p->find("k")->params[2]);
}

TEST_CASE("comments and docstrings ride along; static_assert", "[parser][stmt][comments]") {
  auto p = parse(kernel(
      "        \"\"\"Kernel doc.\"\"\"\n"
      "        # first\n"
      "        a = n + 1\n"
      "        \"\"\"between\"\"\"\n"
      "        # second\n"
      "        pl.static_assert(2 ** 3 == 8, \"math\")\n"
      "        b = a * 2  # trailing comment is not kept\n"
      "        return\n"));
  auto f = p->find("k");
  CHECK(f->leading_comments == std::vector<std::string>{"Kernel doc."});
  auto b = body_of(p);
  REQUIRE(b.size() == 3);
  CHECK(b[0]->leading_comments == std::vector<std::string>{"first"});
  CHECK(b[1]->leading_comments == std::vector<std::string>{"between", "second"});
  CHECK(b[2]->leading_comments.empty());
}

TEST_CASE("tile subscripts clamp a static upper bound, take a runtime extent as valid; writes lift the source",
          "[parser][stmt][subscript]") {
  auto p = parse(kernel(
      "        t = pl.load(x, [0, 0], [64, 64])\n"
      "        a = t[:, :256]\n"
      "        b = t[:, :n]\n"
      "        r = t[0:1, :]\n"
      "        out[3, :] = x[3, :]\n"
      "        return\n"));
  auto b = body_of(p);
  const auto* ta = as_tile(as<AssignStmt>(b[1])->var->type);
  CHECK(const_int_value(ta->shape[1]) == 64);  // 256 stops at the end
  const auto* tb = as_tile(as<AssignStmt>(b[2])->var->type);
  CHECK(const_int_value(tb->shape[1]) == 64);  // static extent kept ...
  REQUIRE(tb->view);
  CHECK(as<Var>(tb->view->valid_shape.at(1)));  // ... the runtime one is the valid extent
  const auto* w = as<Call>(as<AssignStmt>(b[4])->value);
  REQUIRE(w->is_op("tensor.assemble"));
  CHECK(as<Call>(w->args[1])->is_op("tensor.reshape"));  // the [64] row lifted to [1, 64]
}

TEST_CASE("an orchestration call leaving out trailing Out tensors: runtime-allocated outputs", "[parser][stmt]") {
  const std::string head = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        return pl.store(pl.load(x, [0, 0], [16, 16]), [0, 0], y)

)";
  auto p = parse(head + R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = self.k(x)
        o = self.k(t, o)
        return o
)");
  auto b = flatten_body(p->find("main")->body);
  REQUIRE(b.size() == 4);
  const auto* create = as<AssignStmt>(b[0]);
  const auto* call = as<AssignStmt>(b[1]);
  REQUIRE((create && call));
  const auto* c = as<Call>(create->value);
  REQUIRE(c);
  CHECK(c->is_op("tensor.create"));
  CHECK(std::get<bool>(*c->kwarg("runtime_output")));
  const auto* k = as<Call>(call->value);
  REQUIRE((k && k->args.size() == 2));
  CHECK(as<Var>(k->args[1]) == create->var.get());

  // Only trailing Out tensors, only from orchestration code.
  auto e = ptest::errors(head + R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        o = self.k(y=o)
        return o
)");
  REQUIRE(!e.empty());
  CHECK(e[0].message == "Function 'k' missing argument 'x'");
  auto op = ptest::errors(head + R"(    @pl.function
    def helper(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = self.k(x)
        return t
)");
  REQUIRE(!op.empty());
  CHECK(op[0].message == "Function 'k' missing argument 'y'");
  CHECK(op[0].span.line == 11);
  CHECK(op[0].hint == "only an orchestration function leaves trailing Out tensors to the runtime");
}
