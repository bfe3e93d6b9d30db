// MemoryReuse: disjoint lifetimes share a buffer and the spare alloc disappears; touching
// lifetimes (last use == definition) share; overlapping ones and different spaces never do;
// not_inplace_safe ops refuse to write over their input.
#include "ir/visitor.h"
#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr plan(const std::string& text) {
  auto p = pass_test::parse(text);
  p = pass_test::run(passes::init_memref_pass(), p);
  return pass_test::run(passes::memory_reuse_pass(), p);
}
const ir::Var* base_of(const ir::ProgramPtr& p, const std::string& name) {
  const ir::Var* b = nullptr;
  struct V : ir::IRVisitor {
    const std::string& n;
    const ir::Var*& b;
    V(const std::string& n_, const ir::Var*& b_) : n(n_), b(b_) {}
    void visit_assign(const ir::AssignStmt& s) override {
      if (s.var->name == n) b = ir::as_shaped(s.var->type)->memref->base.get();
      IRVisitor::visit_assign(s);
    }
  } v(name, b);
  v.visit_program(*p);
  REQUIRE(b);
  return b;
}
int alloc_count(const ir::ProgramPtr& p) {
  int n = 0;
  for (const auto& s : ir::flatten_body(p->functions[0]->body))
    if (const auto* a = ir::as<ir::AssignStmt>(s))
      if (const auto* c = ir::as<ir::Call>(a->value); c && c->is_op("tile.alloc")) ++n;
  return n;
}
}  // namespace

TEST_CASE("chain: each result reuses the buffer of the input that dies there", "[MemoryReuse]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.adds(t, 2.0)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.store(u, [0, 0], o)
        return o
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)],
          o: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        u: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.adds(t, 2.0)
        r: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.store(u, [0, 0], o)
        return o
)");
  auto after = pass_test::run(passes::memory_reuse_pass(), pass_test::run(passes::init_memref_pass(), before));
  pass_test::require_equal(after, expected);
}

TEST_CASE("overlapping lifetimes never share; a later tile takes a dead one's buffer", "[MemoryReuse]") {
  auto p = plan(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        b: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(a, b)
        d: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(c, d)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.store(e, [0, 0], o)
        return o
)");
  CHECK(base_of(p, "a") != base_of(p, "b"));  // both live at c
  CHECK((base_of(p, "c") == base_of(p, "a") || base_of(p, "c") == base_of(p, "b")));
  CHECK(base_of(p, "d") != base_of(p, "c"));  // c is still live when d is loaded
  CHECK(alloc_count(p) == 2);
}

TEST_CASE("different memory spaces never share", "[MemoryReuse]") {
  auto p = plan(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        bm: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(bm, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        return o
)");
  CHECK(base_of(p, "am") == base_of(p, "bm"));  // same space, am dead after the first move
  CHECK(base_of(p, "al") != base_of(p, "br"));
  CHECK(alloc_count(p) == 4);
}

TEST_CASE("not_inplace_safe ops do not write over their input", "[MemoryReuse]") {
  auto p = plan(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        u: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.recip(t)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.store(u, [0, 0], o)
        return o
)");
  CHECK(base_of(p, "t") != base_of(p, "u"));
  CHECK(alloc_count(p) == 2);
}

TEST_CASE("cross-dtype reuse: the buffer is as large as its largest member", "[MemoryReuse]") {
  auto p = plan(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP16]]) -> pl.Tensor[[64, 64], pl.FP16]:
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        h: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.cast(t, pl.FP16)
        g: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.adds(h, 1.0)
        r: pl.Tensor[[64, 64], pl.FP16] = pl.store(g, [0, 0], o)
        return o
)");
  // the narrowing cast may write over t; g reuses whatever h has
  CHECK(base_of(p, "h") == base_of(p, "t"));
  CHECK(base_of(p, "g") == base_of(p, "h"));
  REQUIRE(alloc_count(p) == 1);
  const auto* a = ir::as<ir::AssignStmt>(ir::flatten_body(p->functions[0]->body)[0]);
  CHECK(std::get<int64_t>(ir::as<ir::Call>(a->value)->kwargs[1].second) == 16384);
}

TEST_CASE("a tile defined before a loop and used inside stays live to the loop's end", "[MemoryReuse]") {
  auto p = plan(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        s: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        for i, (out,) in pl.range(4, init_values=(o,)):
            t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
            u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(s, t)
            out2: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], out)
            res = pl.yield_(out2)
        return o
)");
  CHECK(base_of(p, "t") != base_of(p, "s"));
  CHECK(base_of(p, "u") != base_of(p, "s"));  // s is read again in the next iteration
}
