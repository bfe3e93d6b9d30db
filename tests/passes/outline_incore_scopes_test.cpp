// OutlineIncoreScopes: pl.at(CORE_GROUP) scopes → InCore functions + calls (live-ins → params in
// first-use order, live-outs → returns, written tensors → Out/InOut params, a fresh result the
// parent returns for an Out param is assembled into it, a loop carrying a written param returns
// its result as the param's value, `as tid` / deps= on the call, the pl.at scopes of one pl.cluster
// as one kernel); names, promotion, rejections.
#include "pass_test_util.h"

using namespace pypto;

namespace {

std::string error_of(const std::string& text) {
  auto p = pass_test::parse(text);
  return pass_test::compile_error_of([&] { pass_test::run(passes::outline_incore_scopes_pass(), p); });
}

}  // namespace

TEST_CASE("quickstart add: the fresh result returned for the Out param is written into it", "[OutlineIncoreScopes]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out_1: pl.Tensor[[16, 16], pl.FP32] = pl.add(a, b)
        return out_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        r: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(a, b)
        w: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(out, r, [0, 0])
        return w

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        out_1: pl.Tensor[[16, 16], pl.FP32] = self.main_incore_0(a, b, out)
        return out_1
)");
  pass_test::require_equal(pass_test::run(passes::outline_incore_scopes_pass(), before), expected);
}

TEST_CASE("name_hint, scalar live-in, written param (InOut when read), two live-outs through a tuple",
          "[OutlineIncoreScopes]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], s: pl.Scalar[pl.FP32], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="fused"):
            y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(o, s)
            z: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.mul(y, x)
            o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, z, [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP):
            o_2: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o_1, y, [0, 0])
        return o_2
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def fused(self, o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]], s: pl.Scalar[pl.FP32], x: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(o, s)
        z: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.mul(y, x)
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, z, [0, 0])
        return y, o_1

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_1(self, o_1: pl.Out[pl.Tensor[[16, 16], pl.FP32]], y: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        o_2: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o_1, y, [0, 0])
        return o_2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], s: pl.Scalar[pl.FP32], o: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        res: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.fused(o, s, x)
        y: pl.Tensor[[16, 16], pl.FP32] = res[0]
        o_1: pl.Tensor[[16, 16], pl.FP32] = res[1]
        o_2: pl.Tensor[[16, 16], pl.FP32] = self.main_incore_1(o_1, y)
        return o_2
)");
  pass_test::require_equal(pass_test::run(passes::outline_incore_scopes_pass(), before), expected);
}

TEST_CASE("a scope in a loop takes the loop variable; a store-only scope returns its written param",
          "[OutlineIncoreScopes]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 16], pl.FP32], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [i * 16, 0], [16, 16])
                pl.store(t, [i * 16, 0], o)
        return o
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, x: pl.Tensor[[64, 16], pl.FP32], i: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [i * 16, 0], [16, 16])
        pl.store(t, [i * 16, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 16], pl.FP32], o: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        for i in pl.range(4):
            o_w: pl.Tensor[[64, 16], pl.FP32] = self.main_incore_0(x, i, o)
        return o
)");
  pass_test::require_equal(pass_test::run(passes::outline_incore_scopes_pass(), before), expected);
}

TEST_CASE("a loop inside the scope that carries a written param returns only the loop's result for it",
          "[OutlineIncoreScopes]") {
  // pypto-lib's rms_norm shape: the scope's column loop assembles into the Out tensor it carries;
  // the loop result is the param's final value (before, the param was returned a second time).
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for c, (acc,) in pl.range(4, init_values=(o,)):
                t: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.slice(x, [16, 16], [0, c * 16])
                u: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(t, 1.0)
                acc_1: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.assemble(acc, u, [0, c * 16])
                acc_2 = pl.yield_(acc_1)
        return acc_2
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, o: pl.Out[pl.Tensor[[16, 64], pl.FP32]], x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        for c, (acc,) in pl.range(4, init_values=(o,)):
            t: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.slice(x, [16, 16], [0, c * 16])
            u: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(t, 1.0)
            acc_1: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.assemble(acc, u, [0, c * 16])
            acc_2 = pl.yield_(acc_1)
        return acc_2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        acc_2: pl.Tensor[[16, 64], pl.FP32] = self.main_incore_0(o, x)
        return acc_2
)");
  pass_test::require_equal(pass_test::run(passes::outline_incore_scopes_pass(), before), expected);
}

TEST_CASE("a loop whose branches both write the carried param returns the loop's result for it",
          "[OutlineIncoreScopes]") {
  // Paged attention's shape: a block's rows come from one branch or the other; the if's result
  // is the carried param written, so no copy of the whole tensor is appended (it was, before).
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for c, (acc,) in pl.range(4, init_values=(o,)):
                t: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.slice(x, [16, 16], [0, c * 16])
                if c < n:
                    u: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(t, 1.0)
                    acc_1: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.assemble(acc, u, [0, c * 16])
                    acc_3 = pl.yield_(acc_1)
                else:
                    acc_2: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.assemble(acc, t, [0, c * 16])
                    acc_3 = pl.yield_(acc_2)
                acc_4 = pl.yield_(acc_3)
        return acc_4
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, o: pl.Out[pl.Tensor[[16, 64], pl.FP32]], x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 64], pl.FP32]:
        for c, (acc,) in pl.range(4, init_values=(o,)):
            t: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.slice(x, [16, 16], [0, c * 16])
            if c < n:
                u: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(t, 1.0)
                acc_1: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.assemble(acc, u, [0, c * 16])
                acc_3 = pl.yield_(acc_1)
            else:
                acc_2: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.assemble(acc, t, [0, c * 16])
                acc_3 = pl.yield_(acc_2)
            acc_4 = pl.yield_(acc_3)
        return acc_4

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        acc_4: pl.Tensor[[16, 64], pl.FP32] = self.main_incore_0(o, x, n)
        return acc_4
)");
  pass_test::require_equal(pass_test::run(passes::outline_incore_scopes_pass(), before), expected);
}

TEST_CASE("`as tid` / deps= make the call a submit whose last result is the TaskId, with the deps",
          "[OutlineIncoreScopes]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="first") as t1:
            a_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(a, x, [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="second", deps=[t1]):
            b_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(b, x, [0, 0])
        return a_1, b_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def first(self, a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(a, x, [0, 0])
        return a_1

    @pl.function(type=pl.FunctionType.InCore)
    def second(self, b: pl.Out[pl.Tensor[[16, 16], pl.FP32]], x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        b_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(b, x, [0, 0])
        return b_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], a: pl.Out[pl.Tensor[[16, 16], pl.FP32]], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        first_result: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(self.first, a, x)
        a_1: pl.Tensor[[16, 16], pl.FP32] = first_result[0]
        t1: pl.Scalar[pl.TASK_ID] = first_result[1]
        second_result: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(self.second, b, x, deps=[t1])
        b_1: pl.Tensor[[16, 16], pl.FP32] = second_result[0]
        second_task: pl.Scalar[pl.TASK_ID] = second_result[1]
        return a_1, b_1
)");
  pass_test::require_equal(pass_test::run(passes::outline_incore_scopes_pass(), before), expected);
}

TEST_CASE("a name_hint that names an existing function gets a suffix", "[OutlineIncoreScopes]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, x, [0, 0])
        return o_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
            o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, x, [0, 0])
        return o_1
)");
  auto got = pass_test::run(passes::outline_incore_scopes_pass(), p);
  REQUIRE(got->functions.size() == 3);
  REQUIRE(got->find("k_0"));
  CHECK(got->find("k_0")->type == ir::FunctionType::InCore);
  // First-use order: the assemble target `o` (written only → Out), then `x`.
  CHECK(got->find("k_0")->param_directions ==
        std::vector<ir::ParamDirection>{ir::ParamDirection::Out, ir::ParamDirection::In});
}

TEST_CASE("kernels written as InCore functions pass unchanged", "[OutlineIncoreScopes]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], o)
        return o2
)");
  CHECK(pass_test::run(passes::outline_incore_scopes_pass(), p) == p);
}

TEST_CASE("the pl.at scopes of one pl.cluster are one kernel named after the cluster", "[OutlineIncoreScopes]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.cluster(name_hint="pair"):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
                y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.mul(x, x)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="second"):
                o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, y, [0, 0])
        return o_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def pair(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.mul(x, x)
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, y, [0, 0])
        return o_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.cluster(name_hint="pair"):
            o_1: pl.Tensor[[16, 16], pl.FP32] = self.pair(x, o)
        return o_1
)");
  pass_test::require_equal(pass_test::run(passes::outline_incore_scopes_pass(), before), expected);
}

TEST_CASE("calls of kernel functions in one pl.cluster are spliced into one kernel", "[OutlineIncoreScopes]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def sq(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(a, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32] = pl.mul(t, t)
        b_1: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], b)
        return b_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]], z: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        with pl.cluster():
            y_1: pl.Tensor[[16, 16], pl.FP32] = self.sq(x, y)
            z_1: pl.Tensor[[16, 16], pl.FP32] = self.sq(x, z)
        return y_1, z_1
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def sq(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(a, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32] = pl.mul(t, t)
        b_1: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], b)
        return b_1

    @pl.function(type=pl.FunctionType.InCore)
    def sq_0(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]], z: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32] = pl.mul(t, t)
        y_1: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], y)
        t_1: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        u_1: pl.Tile[[16, 16], pl.FP32] = pl.mul(t_1, t_1)
        z_1: pl.Tensor[[16, 16], pl.FP32] = pl.store(u_1, [0, 0], z)
        return y_1, z_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]], z: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        with pl.cluster():
            res: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.sq_0(x, y, z)
            y_1: pl.Tensor[[16, 16], pl.FP32] = res[0]
            z_1: pl.Tensor[[16, 16], pl.FP32] = res[1]
        return y_1, z_1
)");
  pass_test::require_equal(pass_test::run(passes::outline_incore_scopes_pass(), before), expected);
}

TEST_CASE("rejected: a statement next to a cluster's pl.at scopes, dispatch options on its second scope",
          "[OutlineIncoreScopes]") {
  auto beside_p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.cluster():
            with pl.at(level=pl.Level.CORE_GROUP):
                y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.mul(x, x)
            t: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)
            with pl.at(level=pl.Level.CORE_GROUP):
                o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, y, [0, 0])
        return o_1
)");
  const auto beside = pass_test::first_diagnostic_of(
      [&] { pass_test::run(passes::outline_incore_scopes_pass(), beside_p); });
  CHECK(beside.code == "E501");
  CHECK(beside.message.find("a statement next to the kernels of a pl.cluster") != std::string::npos);
  CHECK(beside.span.line == 11);

  auto options = error_of(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.cluster():
            with pl.at(level=pl.Level.CORE_GROUP):
                y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.mul(x, x)
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
                o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, y, [0, 0])
        return o_1
)");
  CHECK(options.find("dispatch options on a pl.at scope other than the first of a pl.cluster") != std::string::npos);
}

TEST_CASE("rejected: scalar leaving a scope, nested scopes, a scope inside a kernel", "[OutlineIncoreScopes]") {
  auto scalar_out = error_of(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            v: pl.Scalar[pl.FP32] = pl.tensor.read(x, [0, 0])
        o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(x, v)
        return o_1
)");
  CHECK(scalar_out.find("'v' is computed inside") != std::string::npos);
  CHECK(scalar_out.find("not supported yet") != std::string::npos);

  auto nested = error_of(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            with pl.at(level=pl.Level.CORE_GROUP):
                o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, x, [0, 0])
        return o_1
)");
  CHECK(nested.find("cannot be nested") != std::string::npos);

  auto in_kernel = error_of(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            o_1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(o, x, [0, 0])
        return o_1
)");
  CHECK(in_kernel.find("scope inside a kernel function") != std::string::npos);
}
