// PlanTensorAllocs: a runtime scope's static-shape creations are hoisted to its top as one batch,
// a dynamic-shape creation is a batch of its own where it stands, a loop body's scope has its own
// batch, batches are numbered in the order the code reaches them (Before / Expected); the result
// satisfies TensorAllocsPlanned, the pass is idempotent, and the verifier catches a creation
// without a batch and a batch split by another statement (mutations of the planned program).
#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace pypto;

namespace {

const std::string kHead = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return o2

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
)";

const std::string kBefore = kHead + R"(        with pl.scope():
            a: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32)
            a1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, a)
            m: pl.Scalar[pl.INDEX] = n * 2
            d: pl.Tensor[[m, 16], pl.FP32] = pl.create_tensor([m, 16], dtype=pl.FP32)
            b: pl.Tensor[[16, 16], pl.FP16] = pl.create_tensor([16, 16], dtype=pl.FP16, alloc_batch=7)
            for i, (acc,) in pl.range(4, init_values=(out,)):
                with pl.scope():
                    c1: pl.Tensor[[16, 16], pl.FP32] = self.k(a1, acc)
                    c: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32)
                    c2: pl.Tensor[[16, 16], pl.FP32] = self.k(c1, c)
                r: pl.Tensor[[16, 16], pl.FP32] = pl.yield_(c1)
        return r
)";

// a and b are hoisted into batch 0 (b's stale alloc_batch=7 is replaced); d stays after m as
// batch 1; the loop body's scope has batch 2.
const std::string kExpected = kHead + R"(        with pl.scope():
            a: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32, alloc_batch=0)
            b: pl.Tensor[[16, 16], pl.FP16] = pl.create_tensor([16, 16], dtype=pl.FP16, alloc_batch=0)
            a1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, a)
            m: pl.Scalar[pl.INDEX] = n * 2
            d: pl.Tensor[[m, 16], pl.FP32] = pl.create_tensor([m, 16], dtype=pl.FP32, alloc_batch=1)
            for i, (acc,) in pl.range(4, init_values=(out,)):
                with pl.scope():
                    c: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32, alloc_batch=2)
                    c1: pl.Tensor[[16, 16], pl.FP32] = self.k(a1, acc)
                    c2: pl.Tensor[[16, 16], pl.FP32] = self.k(c1, c)
                r: pl.Tensor[[16, 16], pl.FP32] = pl.yield_(c1)
        return r
)";

std::vector<ir::Diagnostic> planned_violations(const ir::ProgramPtr& p) {
  ir::DiagnosticSink sink;
  ir::verify(*p, {ir::Property::TensorAllocsPlanned}, sink);
  return sink.take();
}

// The statements of the runtime scope that is main's body.
std::vector<ir::StmtPtr> scope_stmts(const ir::Function& f) {
  const auto* sc = ir::as<ir::ScopeStmt>(ir::flatten_body(f.body).at(0));
  REQUIRE(sc);
  return ir::flatten_body(sc->body);
}

// main with its scope's statements replaced by `stmts`.
ir::ProgramPtr with_scope_stmts(const ir::ProgramPtr& p, std::vector<ir::StmtPtr> stmts) {
  const auto& f = *p->find("main");
  auto sc = std::make_shared<ir::ScopeStmt>(*ir::as<ir::ScopeStmt>(ir::flatten_body(f.body).at(0)));
  sc->body = ir::make_body(std::move(stmts));
  auto body = ir::flatten_body(f.body);
  body[0] = sc;
  std::vector<ir::FunctionPtr> fs;
  for (const auto& g : p->functions) fs.push_back(g.get() == &f ? ir::with_body(f, ir::make_body(body)) : g);
  return ir::make_program(p->name, fs);
}

}  // namespace

TEST_CASE("static creations of a scope form one batch at its top, the others stand alone", "[PlanTensorAllocs]") {
  auto before = pass_test::parse(kBefore);
  auto expected = pass_test::parse(kExpected);
  auto after = pass_test::run(passes::plan_tensor_allocs_pass(), before);
  pass_test::require_equal(after, expected);
  CHECK(planned_violations(after).empty());
  pass_test::require_equal(pass_test::run(passes::plan_tensor_allocs_pass(), after), expected);  // idempotent
}

TEST_CASE("TensorAllocsPlanned: a creation without a batch, a batch split by another statement", "[PlanTensorAllocs]") {
  // Unplanned: every creation is reported, at its line.
  auto before = pass_test::parse(kBefore);
  const auto unplanned = planned_violations(before);
  REQUIRE(unplanned.size() == 3);  // a, d, c (b carries a stale batch of its own)
  CHECK(unplanned[0].code == "TensorAllocsPlanned");
  CHECK(unplanned[0].message.find("tensor.create of 'a' in function 'main' has no alloc_batch") != std::string::npos);
  CHECK(unplanned[0].span.line == 15);

  // Planned, then b moved below the call after it: batch 0 is split, reported at b.
  auto after = pass_test::run(passes::plan_tensor_allocs_pass(), before);
  auto stmts = scope_stmts(*after->find("main"));
  std::swap(stmts[1], stmts[2]);
  const auto split = planned_violations(with_scope_stmts(after, stmts));
  REQUIRE(split.size() == 1);
  CHECK(split[0].message.find("alloc_batch 0 in function 'main' is split") != std::string::npos);
  CHECK(split[0].span.line == 19);  // b's creation in the source
}

TEST_CASE("a runtime_output creation gets no batch: the runtime allocates it at its writer's submit",
          "[PlanTensorAllocs]") {
  const std::string body = R"(        with pl.scope():
            a: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32)
            y: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32, runtime_output=True)
            t: pl.Tensor[[16, 16], pl.FP32] = self.k(x, y)
            a1: pl.Tensor[[16, 16], pl.FP32] = self.k(t, a)
            o1: pl.Tensor[[16, 16], pl.FP32] = self.k(a1, out)
        return o1
)";
  const std::string expected = R"(        with pl.scope():
            a: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32, alloc_batch=0)
            y: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32, runtime_output=True)
            t: pl.Tensor[[16, 16], pl.FP32] = self.k(x, y)
            a1: pl.Tensor[[16, 16], pl.FP32] = self.k(t, a)
            o1: pl.Tensor[[16, 16], pl.FP32] = self.k(a1, out)
        return o1
)";
  auto after = pass_test::run(passes::plan_tensor_allocs_pass(), pass_test::parse(kHead + body));
  pass_test::require_equal(after, pass_test::parse(kHead + expected));
  CHECK(planned_violations(after).empty());
}
