// MaterializeRuntimeScopes: orchestration body and for / while loop bodies wrapped in runtime scopes,
// the function's return inside its scope, a trailing yield after it, auto_scope cleared, idempotent, kernels untouched; nothing inside
// a manual scope is wrapped; a function written with auto_scope=False is left as it is.
#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("body and loop bodies get runtime scopes", "[MaterializeRuntimeScopes]") {
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
        for i, (acc,) in pl.range(4, init_values=(o,)):
            r: pl.Scalar[pl.INDEX] = i * 16
            acc1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, r, acc)
            res = pl.yield_(acc1)
        return res
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 16], pl.FP32], r: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [r, 0], [16, 16])
        o2: pl.Tensor[[64, 16], pl.FP32] = pl.store(t, [r, 0], o)
        return o2

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[64, 16], pl.FP32], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        with pl.scope():
            for i, (acc,) in pl.range(4, init_values=(o,)):
                with pl.scope():
                    r: pl.Scalar[pl.INDEX] = i * 16
                    acc1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, r, acc)
                res = pl.yield_(acc1)
            return res
)");
  auto after = pass_test::run(passes::materialize_runtime_scopes_pass(), before);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::RuntimeScopesMaterialized}, sink));
  pass_test::require_equal(after, expected);
  CHECK(pass_test::run(passes::materialize_runtime_scopes_pass(), after) == after);
}

TEST_CASE("a while loop's body gets a runtime scope too, its trailing yield after it", "[MaterializeRuntimeScopes]") {
  const std::string kernel = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 16], pl.FP32], r: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [r, 0], [16, 16])
        o2: pl.Tensor[[64, 16], pl.FP32] = pl.store(t, [r, 0], o)
        return o2
)";
  auto before = pass_test::parse(kernel + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 16], pl.FP32], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        for (r, acc) in pl.while_(init_values=(0, o)):
            pl.cond(r < 64)
            acc1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, r, acc)
            r2, res = pl.yield_(r + 16, acc1)
        return res
)");
  auto expected = pass_test::parse(kernel + R"(
    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[64, 16], pl.FP32], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        with pl.scope():
            for (r, acc) in pl.while_(init_values=(0, o)):
                pl.cond(r < 64)
                with pl.scope():
                    acc1: pl.Tensor[[64, 16], pl.FP32] = self.k(x, r, acc)
                r2, res = pl.yield_(r + 16, acc1)
            return res
)");
  pass_test::require_equal(pass_test::run(passes::materialize_runtime_scopes_pass(), before), expected);
}

TEST_CASE("no AUTO scope inside a manual scope, at any depth; auto_scope=False functions are left alone",
          "[MaterializeRuntimeScopes]") {
  const std::string kernel = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return o2
)";
  auto before = pass_test::parse(kernel + R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.manual_scope():
            for i in pl.range(4):
                for j in pl.range(2):
                    o = self.k(x, o)
        return o
)");
  auto expected = pass_test::parse(kernel + R"(
    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.scope():
            with pl.manual_scope():
                for i in pl.range(4):
                    for j in pl.range(2):
                        o = self.k(x, o)
            return o
)");
  pass_test::require_equal(pass_test::run(passes::materialize_runtime_scopes_pass(), before), expected);
  // Scopes placed by hand (auto_scope=False): nothing added.
  auto by_hand = pass_test::parse(kernel + R"(
    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        for i in pl.range(4):
            o = self.k(x, o)
        return o
)");
  CHECK(pass_test::run(passes::materialize_runtime_scopes_pass(), by_hand) == by_hand);
}
