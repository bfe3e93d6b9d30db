// ConvertToSSA: straight-line renaming, if-phis, loop carries, escape promotion (carries and
// phis only where a later read needs them), explicit carries kept, out-of-scope uses rejected; a
// binding's type (a valid_shape) renamed like its value.
#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr ssa(const ir::ProgramPtr& p) { return pass_test::run(passes::convert_to_ssa_pass(), p); }

void require_ssa(const ir::ProgramPtr& p) {
  ir::DiagnosticSink sink;
  bool ok = ir::verify(*p, {ir::Property::SSAForm}, sink);
  std::string msg;
  for (const auto& d : sink.diagnostics()) msg += d.message + "\n";
  INFO(msg << ir::print_program(*p));
  REQUIRE(ok);
}
}  // namespace

TEST_CASE("straight-line rebinding gets new Vars", "[ConvertToSSA]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        t = pl.add(t, t)
        t = pl.mul(t, t)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return r
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        t_1: pl.Tile[[16, 16], pl.FP32] = pl.add(t, t)
        t_2: pl.Tile[[16, 16], pl.FP32] = pl.mul(t_1, t_1)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(t_2, [0, 0], o)
        return r
)");
  auto after = ssa(before);
  require_ssa(after);
  pass_test::require_equal(after, expected);
}

TEST_CASE("if rebinding in one arm becomes a phi with an else arm", "[ConvertToSSA]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        a: pl.Scalar[pl.INDEX] = n + 1
        if n > 4:
            a = a * 2
        return a
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        a: pl.Scalar[pl.INDEX] = n + 1
        if n > 4:
            a_1: pl.Scalar[pl.INDEX] = a * 2
            a_2 = pl.yield_(a_1)
        else:
            a_2 = pl.yield_(a)
        return a_2
)");
  auto after = ssa(before);
  require_ssa(after);
  pass_test::require_equal(after, expected);
}

TEST_CASE("a binding's type reads the phi too: a valid_shape naming a value both if arms bind", "[ConvertToSSA]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        if n > 4:
            v: pl.Scalar[pl.INDEX] = n
        else:
            v: pl.Scalar[pl.INDEX] = 4
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, v])] = pl.load(x, [0, 0], [16, 16], [16, v])
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return r
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        if n > 4:
            v: pl.Scalar[pl.INDEX] = n
            v_2 = pl.yield_(v)
        else:
            v_1: pl.Scalar[pl.INDEX] = 4
            v_2 = pl.yield_(v_1)
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, v_2])] = pl.load(x, [0, 0], [16, 16], [16, v_2])
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return r
)");
  auto after = ssa(before);
  require_ssa(after);
  pass_test::require_equal(after, expected);
}

TEST_CASE("if rebinding in both arms, unused afterwards: no phi", "[ConvertToSSA]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        a: pl.Scalar[pl.INDEX] = n + 1
        if n > 4:
            a = a * 2
        else:
            a = a * 3
        return n
)");
  auto after = ssa(before);
  require_ssa(after);
  const auto* iff = ir::as<ir::IfStmt>(ir::flatten_body(after->functions[0]->body).at(1));
  REQUIRE(iff);
  CHECK(iff->return_vars.empty());
}

TEST_CASE("loop rebinding of an outer name becomes a carry", "[ConvertToSSA]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        acc: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        for i in pl.range(4):
            t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
            acc = pl.add(acc, t)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(acc, [0, 0], o)
        return r
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        acc: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        for i, (acc_1,) in pl.range(4, init_values=(acc,)):
            t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
            acc_2: pl.Tile[[16, 16], pl.FP32] = pl.add(acc_1, t)
            acc_3 = pl.yield_(acc_2)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(acc_3, [0, 0], o)
        return r
)");
  auto after = ssa(before);
  require_ssa(after);
  pass_test::require_equal(after, expected);
}

TEST_CASE("orchestration loop carrying an Out tensor through kernel calls", "[ConvertToSSA]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 16], pl.FP32], r: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [r, 0], [16, 16])
        o2: pl.Tensor[[64, 16], pl.FP32] = pl.store(t, [r, 0], o)
        return o2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 16], pl.FP32], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        for i in pl.range(4):
            r: pl.Scalar[pl.INDEX] = i * 16
            o = self.k(x, r, o)
        return o
)");
  auto after = ssa(before);
  require_ssa(after);
  auto main = after->find("main");
  const auto* loop = ir::as<ir::ForStmt>(ir::flatten_body(main->body).at(0));
  REQUIRE(loop);
  REQUIRE(loop->iter_args.size() == 1);  // o is carried; r is loop-local and not carried
  CHECK(loop->iter_args[0]->init == main->params[1]);
  REQUIRE(loop->return_vars.size() == 1);
  const auto* ret = ir::as<ir::ReturnStmt>(ir::flatten_body(main->body).back());
  REQUIRE(ret);
  CHECK(ret->values[0] == loop->return_vars[0]);
}

TEST_CASE("loop-local names are not carried; explicit carries are kept", "[ConvertToSSA]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a0: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        for i, (acc,) in pl.range(4, init_values=(a0,)):
            t = pl.load(x, [0, 0], [16, 16])
            nxt: pl.Tile[[16, 16], pl.FP32] = pl.add(acc, t)
            res = pl.yield_(nxt)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(res, [0, 0], o)
        return r
)");
  auto after = ssa(before);
  require_ssa(after);
  const auto* loop = ir::as<ir::ForStmt>(ir::flatten_body(after->functions[0]->body).at(2));
  REQUIRE(loop);
  CHECK(loop->iter_args.size() == 1);  // t is rebound in the body but never read after it: no carry
  CHECK(loop->return_vars.size() == 1);
}

TEST_CASE("a name first bound inside a loop and read after it is rejected", "[ConvertToSSA]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i in pl.range(4):
            b: pl.Scalar[pl.INDEX] = n + i
        return b
)");
  std::string err = pass_test::compile_error_of([&] { ssa(before); });
  CHECK(err.find("used outside its defining scope") != std::string::npos);

  // A TaskId a scope names (`as tid`) inside a loop, and a deps= after the loop.
  auto tid = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        for i in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP) as t:
                o = pl.add(x, x)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[t]):
            o = pl.add(o, x)
        return o
)");
  err = pass_test::compile_error_of([&] { ssa(tid); });
  CHECK(err.find("variable 't' is used outside its defining scope") != std::string::npos);
}

TEST_CASE("a store result first bound in a loop and read after it is carried from the stored tensor",
          "[ConvertToSSA]") {
  // `r` exists after the loop only because the loop body stored into `o`; a zero-trip loop leaves
  // `o` itself, so `o` is the carry's init.
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 16], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        for i in pl.range(n):
            t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [i * 16, 0], [16, 16])
            r: pl.Tensor[[64, 16], pl.FP32] = pl.store(t, [i * 16, 0], o)
        return r
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 16], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        for i, (r,) in pl.range(n, init_values=(o,)):
            t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [i * 16, 0], [16, 16])
            r_1: pl.Tensor[[64, 16], pl.FP32] = pl.store(t, [i * 16, 0], o)
            r_2 = pl.yield_(r_1)
        return r_2
)");
  auto after = ssa(before);
  require_ssa(after);
  pass_test::require_equal(after, expected);
}

TEST_CASE("a loop-local value that is not a writer's result stays rejected after the loop", "[ConvertToSSA]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        for i in pl.range(4):
            t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return r
)");
  std::string err = pass_test::compile_error_of([&] { ssa(before); });
  CHECK(err.find("variable 't' is used outside its defining scope") != std::string::npos);
}
