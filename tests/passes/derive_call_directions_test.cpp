// DeriveCallDirections: the direction matrix (In → input, scalar → scalar, Out outside loops →
// output_existing, Out in a sequential loop / after an earlier writer / on an InOut param →
// inout, InOut → inout), parallel loops, idempotence and explicit directions kept; a ping-pong
// loop result counts as written.
#include "ir/visitor.h"
#include "pass_test_util.h"

using namespace pypto;

namespace {
const char* kProgram = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 16], pl.FP32], r: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [r, 0], [16, 16])
        o2: pl.Tensor[[64, 16], pl.FP32] = pl.store(t, [r, 0], o)
        return o2

    @pl.function(type=pl.FunctionType.InCore)
    def acc(self, x: pl.Tensor[[64, 16], pl.FP32], o: pl.InOut[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        o2: pl.Tensor[[64, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return o2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 16], pl.FP32], a: pl.Out[pl.Tensor[[64, 16], pl.FP32]],
             b: pl.Out[pl.Tensor[[64, 16], pl.FP32]], c: pl.Out[pl.Tensor[[64, 16], pl.FP32]],
             d: pl.InOut[pl.Tensor[[64, 16], pl.FP32]]) -> tuple[pl.Tensor[[64, 16], pl.FP32], pl.Tensor[[64, 16], pl.FP32], pl.Tensor[[64, 16], pl.FP32], pl.Tensor[[64, 16], pl.FP32]]:
        a1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, 0, a)
        a2: pl.Tensor[[64, 16], pl.FP32] = self.k(x, 16, a1)
        for i, (bb,) in pl.range(4, init_values=(b,)):
            b1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, i, bb)
            b2 = pl.yield_(b1)
        for j, (cc,) in pl.parallel(4, init_values=(c,)):
            c1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, j, cc)
            c2 = pl.yield_(c1)
        d1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, 0, d)
        x1: pl.Tensor[[64, 16], pl.FP32] = self.acc(x, a2)
        return x1, b2, c2, d1
)";

std::vector<std::vector<ir::ArgDirection>> directions(const ir::ProgramPtr& p) {
  std::vector<std::vector<ir::ArgDirection>> out;
  struct V : ir::IRVisitor {
    std::vector<std::vector<ir::ArgDirection>>& out;
    explicit V(std::vector<std::vector<ir::ArgDirection>>& o) : out(o) {}
    void visit_call(const ir::Call& c) override {
      if (!c.op) out.push_back(c.arg_directions);
      IRVisitor::visit_call(c);
    }
  } v(out);
  v.visit_function(*p->find("main"));
  return out;
}
}  // namespace

TEST_CASE("direction matrix", "[DeriveCallDirections]") {
  auto p = pass_test::run(passes::derive_call_directions_pass(), pass_test::parse(kProgram));
  using D = ir::ArgDirection;
  auto dirs = directions(p);
  REQUIRE(dirs.size() == 6);
  CHECK(dirs[0] == std::vector<D>{D::input, D::scalar, D::output_existing});  // first writer of a
  CHECK(dirs[1] == std::vector<D>{D::input, D::scalar, D::inout});            // a written before
  CHECK(dirs[2] == std::vector<D>{D::input, D::scalar, D::inout});            // sequential loop
  CHECK(dirs[3] == std::vector<D>{D::input, D::scalar, D::output_existing});  // parallel loop
  CHECK(dirs[4] == std::vector<D>{D::input, D::scalar, D::inout});            // enclosing InOut param
  CHECK(dirs[5] == std::vector<D>{D::input, D::inout});                       // callee InOut
}

TEST_CASE("idempotent; existing directions are kept", "[DeriveCallDirections]") {
  auto once = pass_test::run(passes::derive_call_directions_pass(), pass_test::parse(kProgram));
  auto twice = pass_test::run(passes::derive_call_directions_pass(), once);
  CHECK(twice == once);
  auto explicit_dirs = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return o2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        o1: pl.Tensor[[16, 16], pl.FP32] = self.k(x, o, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
        return o1
)");
  auto q = pass_test::run(passes::derive_call_directions_pass(), explicit_dirs);
  CHECK(directions(q).at(0) == std::vector<ir::ArgDirection>{ir::ArgDirection::input, ir::ArgDirection::inout});
}

TEST_CASE("a loop result that names another buffer than its carry counts as written", "[DeriveCallDirections]") {
  // Ping-pong: the loop yields the buffer a kernel wrote in the loop, not `initial`. The call after
  // the loop writes that buffer: InOut (it follows the loop's writer), not OutputExisting (which
  // the device's runtime orders only after the buffer's creator).
  auto text = [](const char* last) {
    return std::string(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def kernel(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        initial: pl.Tensor[[64], pl.FP32] = pl.tensor.create([64], dtype=pl.FP32)
        for i, (carried,) in pl.range(4, init_values=(initial,)):
            fresh: pl.Tensor[[64], pl.FP32] = pl.tensor.create([64], dtype=pl.FP32)
            fresh_result: pl.Tensor[[64], pl.FP32] = self.kernel(x, fresh, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
            carried_rv = pl.yield_(fresh_result)
        result: pl.Tensor[[64], pl.FP32] = self.kernel(x, carried_rv, attrs={"arg_directions": [pl.adir.input, pl.adir.)") +
           last + R"(]})
        return result
)";
  };
  std::string b = text("inout");  // the loop call's directions given, the last one left to derive
  const std::string tail = ", attrs={\"arg_directions\": [pl.adir.input, pl.adir.inout]})\n        return result";
  b.replace(b.find(tail), tail.size(), ")\n        return result");
  auto p = pass_test::parse(b);
  pass_test::require_equal(pass_test::run(passes::derive_call_directions_pass(), p), pass_test::parse(text("inout")));
}
