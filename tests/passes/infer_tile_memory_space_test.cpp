// InferTileMemorySpace: load target_memory, elementwise inheritance, Vec default, matmul → Acc,
// tile.move inserted where an op needs another space, carries follow their init.
#include "ir/op_registry.h"
#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace pypto;

TEST_CASE("spaces from loads, inheritance and defaults", "[InferTileMemorySpace]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        for i, (acc,) in pl.range(2, init_values=(t,)):
            u: pl.Tile[[16, 16], pl.FP32] = pl.add(acc, t)
            r = pl.yield_(u)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(r, [0, 0], o)
        return o2
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        for i, (acc,) in pl.range(2, init_values=(t,)):
            u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(acc, t)
            r = pl.yield_(u)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(r, [0, 0], o)
        return o2
)");
  auto after = pass_test::run(passes::infer_tile_memory_space_pass(), before);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::TileMemoryInferred}, sink));
  pass_test::require_equal(after, expected);
}

TEST_CASE("matmul operands in Mat get moves to Left/Right; result in Acc", "[InferTileMemorySpace]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[16, 16], pl.FP16] = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        c: pl.Tile[[16, 16], pl.FP32] = pl.matmul(am, bm)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        return o2
)");
  auto after = pass_test::run(passes::infer_tile_memory_space_pass(), before);
  auto stmts = ir::flatten_body(after->functions[0]->body);
  std::vector<std::string> ops;
  std::vector<ir::MemorySpace> spaces;
  for (const auto& s : stmts)
    if (const auto* a = ir::as<ir::AssignStmt>(s))
      if (const auto* t = ir::as_tile(a->var->type)) {
        ops.push_back(ir::as<ir::Call>(a->value)->op->name);
        spaces.push_back(*t->space);
      }
  using M = ir::MemorySpace;
  CHECK(ops == std::vector<std::string>{"tile.load", "tile.load", "tile.move", "tile.move", "tile.matmul"});
  CHECK(spaces == std::vector<M>{M::Mat, M::Mat, M::Left, M::Right, M::Acc});
}

TEST_CASE("a created tile starting a K loop's accumulator carry moves to Acc", "[InferTileMemorySpace]") {
  // tile.create defaults to Vec; the carry it starts is yielded by a matmul (Acc) in the first
  // iteration and by a matmul_acc after, so the created tile, the carry and the if's phi live in
  // Acc and no move is inserted.
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        acc: pl.Tile[[16, 16], pl.FP32] = pl.tile.create([16, 16], dtype=pl.FP32)
        for kb, (c,) in pl.range(4, init_values=(acc,)):
            am: pl.Tile[[16, 16], pl.FP16] = pl.load(a, [0, kb * 16], [16, 16], target_memory=pl.Mem.Mat)
            bm: pl.Tile[[16, 16], pl.FP16] = pl.load(b, [kb * 16, 0], [16, 16], target_memory=pl.Mem.Mat)
            al: pl.Tile[[16, 16], pl.FP16] = pl.move(am, target_memory=pl.Mem.Left)
            br: pl.Tile[[16, 16], pl.FP16] = pl.move(bm, target_memory=pl.Mem.Right)
            if kb == 0:
                m: pl.Tile[[16, 16], pl.FP32] = pl.matmul(al, br)
                p = pl.yield_(m)
            else:
                n: pl.Tile[[16, 16], pl.FP32] = pl.matmul_acc(c, al, br)
                p = pl.yield_(n)
            r = pl.yield_(p)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(r, [0, 0], o)
        return o2
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        acc: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        for kb, (c,) in pl.range(4, init_values=(acc,)):
            am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, kb * 16], [16, 16], target_memory=pl.Mem.Mat)
            bm: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(b, [kb * 16, 0], [16, 16], target_memory=pl.Mem.Mat)
            al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
            br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(bm, target_memory=pl.Mem.Right)
            if kb == 0:
                m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
                p = pl.yield_(m)
            else:
                n: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul_acc(c, al, br)
                p = pl.yield_(n)
            r = pl.yield_(p)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(r, [0, 0], o)
        return o2
)");
  auto after = pass_test::run(passes::infer_tile_memory_space_pass(), before);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::TileMemoryInferred}, sink));
  pass_test::require_equal(after, expected);
}
