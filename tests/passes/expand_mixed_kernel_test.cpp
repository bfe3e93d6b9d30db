// ExpandMixedKernel: vector kernels → AIV, cube kernels → AIC (level + SubWorker role), mixed
// kernels rejected.
#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr prep(const std::string& text) {
  return pass_test::run(passes::infer_tile_memory_space_pass(), pass_test::parse(text));
}
}  // namespace

TEST_CASE("vector and cube kernels are retagged", "[ExpandMixedKernel]") {
  auto p = prep(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def vec(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32] = pl.exp(t)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], o)
        return o2

    @pl.function(type=pl.FunctionType.InCore)
    def cube(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32] = pl.matmul(al, br)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        return o2
)");
  auto q = pass_test::run(passes::expand_mixed_kernel_pass(), p);
  auto vec = q->find("vec");
  auto cube = q->find("cube");
  CHECK(vec->type == ir::FunctionType::AIV);
  CHECK(vec->level == ir::Level::AIV);
  CHECK(vec->role == ir::Role::SubWorker);
  CHECK(cube->type == ir::FunctionType::AIC);
  CHECK(cube->level == ir::Level::AIC);
  CHECK(cube->role == ir::Role::SubWorker);
}

TEST_CASE("mixed cube + vector kernel is not supported yet", "[ExpandMixedKernel]") {
  auto p = prep(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def mixed(self, a: pl.Tensor[[16, 16], pl.FP16], x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32] = pl.matmul(al, br)
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        u: pl.Tile[[16, 16], pl.FP32] = pl.exp(t)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        return o2
)");
  std::string err = pass_test::compile_error_of([&] { pass_test::run(passes::expand_mixed_kernel_pass(), p); });
  CHECK(err.find("mixed AIC+AIV kernels are not supported yet") != std::string::npos);
}
