// ClassifyIterArgCarry: an orchestration loop carry whose yield is the buffer it carries stays an
// alias (the program is unchanged); ping-pong carries (the yield holds the other buffer) become
// rebinds, printed the same; a carry yielding a tensor the loop body makes is a rebind whose yield
// moves into the body's runtime scope that makes it (where its handle is), and a located error
// when the tensor is made deeper; the IterArgCarryClassified verifier rejects a mark that
// disagrees with the buffers.
#include "ir/verifier.h"
#include "ir/verify_util.h"
#include "pass_test_util.h"

using namespace pypto;

namespace {

const char* kKernel = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(a, [0, 0], [16, 16])
        b2: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], b)
        return b2

)";

ir::ProgramPtr classify(const ir::ProgramPtr& p) { return pass_test::run(passes::classify_iter_arg_carry_pass(), p); }

// The iter_args of the first loop of `main`.
std::vector<ir::IterArgPtr> carries(const ir::ProgramPtr& p) {
  std::vector<ir::IterArgPtr> out;
  ir::verify_detail::for_each_stmt(p->find("main")->body, [&](const ir::Stmt& s) {
    if (const auto* l = ir::as<ir::ForStmt>(&s); l && out.empty()) out = l->iter_args;
  });
  return out;
}

}  // namespace

TEST_CASE("a carry yielding the buffer it carries is an alias: nothing changes", "[ClassifyIterArgCarry]") {
  auto before = pass_test::parse(std::string(kKernel) + R"(    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        for i, (acc,) in pl.range(4, init_values=(o,)):
            acc1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, acc)
            res = pl.yield_(acc1)
        return res
)");
  auto after = classify(before);
  pass_test::require_equal(after, before);
  REQUIRE(carries(after).size() == 1);
  CHECK_FALSE(carries(after)[0]->rebind);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::IterArgCarryClassified}, sink));
}

TEST_CASE("ping-pong carries are rebinds; the printed program is the same", "[ClassifyIterArgCarry]") {
  const std::string main = R"(    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        s: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        d: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        s1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, s)
        for i, (src, dst) in pl.range(3, init_values=(s1, d)):
            dst1: pl.Tensor[[16, 16], pl.FP32] = self.k(src, dst)
            src2, dst2 = pl.yield_(dst1, src)
        o1: pl.Tensor[[16, 16], pl.FP32] = self.k(src2, o)
        return o1
)";
  auto before = pass_test::parse(std::string(kKernel) + main);
  ir::DiagnosticSink unmarked;
  CHECK_FALSE(ir::verify(*before, {ir::Property::IterArgCarryClassified}, unmarked));  // alias marks, other buffers
  auto after = classify(before);
  pass_test::require_equal(after, pass_test::parse(std::string(kKernel) + main));
  const auto ias = carries(after);
  REQUIRE(ias.size() == 2);
  CHECK(ias[0]->rebind);
  CHECK(ias[1]->rebind);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::IterArgCarryClassified}, sink));
  // Idempotent.
  auto again = classify(after);
  CHECK(carries(again)[0]->rebind);
}

TEST_CASE("a carry taking a tensor the loop body makes is a rebind; without scopes nothing moves",
          "[ClassifyIterArgCarry]") {
  const std::string main = R"(    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        s: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        s1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, s)
        for i, (acc,) in pl.range(3, init_values=(s1,)):
            n: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
            n1: pl.Tensor[[16, 16], pl.FP32] = self.k(acc, n)
            res = pl.yield_(n1)
        o1: pl.Tensor[[16, 16], pl.FP32] = self.k(res, o)
        return o1
)";
  auto after = classify(pass_test::parse(std::string(kKernel) + main));
  pass_test::require_equal(after, pass_test::parse(std::string(kKernel) + main));
  REQUIRE(carries(after).size() == 1);
  CHECK(carries(after)[0]->rebind);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::IterArgCarryClassified, ir::Property::SSAForm}, sink));
}

TEST_CASE("the yield of a buffer the body's runtime scope makes moves into that scope (qwen3's layer loop)",
          "[ClassifyIterArgCarry]") {
  // The C++ handle of `n` ends with the PTO2_SCOPE block; the carry must take it before.
  auto before = pass_test::parse(std::string(kKernel) + R"(    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        s: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        s1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, s)
        for i, (acc,) in pl.range(3, init_values=(s1,)):
            with pl.scope():
                n: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
                n1: pl.Tensor[[16, 16], pl.FP32] = self.k(acc, n)
            res = pl.yield_(n1)
        o1: pl.Tensor[[16, 16], pl.FP32] = self.k(res, o)
        return o1
)");
  auto expected = pass_test::parse(std::string(kKernel) + R"(    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        s: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        s1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, s)
        for i, (acc,) in pl.range(3, init_values=(s1,)):
            with pl.scope():
                n: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
                n1: pl.Tensor[[16, 16], pl.FP32] = self.k(acc, n)
                res = pl.yield_(n1)
        o1: pl.Tensor[[16, 16], pl.FP32] = self.k(res, o)
        return o1
)");
  auto after = classify(before);
  pass_test::require_equal(after, expected);
  CHECK(carries(after)[0]->rebind);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::IterArgCarryClassified, ir::Property::SSAForm}, sink));
}

TEST_CASE("the yield moves down a chain of trailing scopes to the one that makes the buffer",
          "[ClassifyIterArgCarry]") {
  // The body's scope ends in a second scope, which makes the buffer: the yield goes two levels down.
  auto p = pass_test::parse(std::string(kKernel) + R"(    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        s: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        s1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, s)
        for i, (acc,) in pl.range(3, init_values=(s1,)):
            with pl.scope():
                t: pl.Tensor[[16, 16], pl.FP32] = self.k(acc, o)
                with pl.scope():
                    n: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
                    n1: pl.Tensor[[16, 16], pl.FP32] = self.k(t, n)
            res = pl.yield_(n1)
        o1: pl.Tensor[[16, 16], pl.FP32] = self.k(res, o)
        return o1
)");
  auto after = classify(p);
  const ir::YieldStmt* y = nullptr;
  ir::verify_detail::for_each_stmt(after->find("main")->body, [&](const ir::Stmt& s) {
    if (const auto* sc = ir::as<ir::ScopeStmt>(&s))
      for (const auto& st : ir::flatten_body(sc->body))
        if (const auto* in = ir::as<ir::ScopeStmt>(st))
          for (const auto& st2 : ir::flatten_body(in->body))
            if (const auto* yy = ir::as<ir::YieldStmt>(st2)) y = yy;
  });
  CHECK(y != nullptr);  // the last statement of the inner scope
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::IterArgCarryClassified, ir::Property::SSAForm}, sink));
}

TEST_CASE("a carry taking a tensor made in a nested block that does not end the body is a located error",
          "[ClassifyIterArgCarry]") {
  auto p = pass_test::parse(std::string(kKernel) + R"(    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        s: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        s1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, s)
        for i, (acc,) in pl.range(3, init_values=(s1,)):
            with pl.scope():
                n: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
                n1: pl.Tensor[[16, 16], pl.FP32] = self.k(acc, n)
            t: pl.Tensor[[16, 16], pl.FP32] = self.k(n1, o)
            res = pl.yield_(n1)
        o1: pl.Tensor[[16, 16], pl.FP32] = self.k(res, o)
        return o1
)");
  const auto d = pass_test::first_diagnostic_of([&] { classify(p); });
  CHECK(d.code == "E501");
  CHECK(d.message.find("yields 'n', a tensor made inside a nested block of the loop body") != std::string::npos);
  CHECK(d.span.line == 21);  // the yield
}

TEST_CASE("a carry taking the result of an inner loop whose carry changes buffer is a located error",
          "[ClassifyIterArgCarry]") {
  // The inner loop alternates 'acc' between s1 and o (a rebind); the outer loop carries its result,
  // whose handle lives in the outer body's runtime scope (an internal error of the emitter before).
  auto p = pass_test::parse(std::string(kKernel) + R"(    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        s: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
        s1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, s)
        for i, (outer,) in pl.range(2, init_values=(s1,)):
            for j, (inner,) in pl.range(2, init_values=(outer,)):
                o1: pl.Tensor[[16, 16], pl.FP32] = self.k(inner, o)
                r = pl.yield_(o1)
            res = pl.yield_(r)
        return res
)");
  const auto d = pass_test::first_diagnostic_of([&] { classify(p); });
  CHECK(d.code == "E501");
  CHECK(d.message.find("the result of an inner loop whose carried tensor changes buffer") != std::string::npos);
}
