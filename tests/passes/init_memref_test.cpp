// InitMemRef: MemRefs for every tile/tensor of a kernel, DDR MemRefs on tensor params, one
// tile.alloc per on-chip buffer, sharing of store results / in-place results / loop carries,
// the copy a loop carry gets when its initial tile is still read, Acc row rounding. (The other
// copy sites are in init_memref_copies_test.cpp.)
#include "ir/verifier.h"
#include <map>

#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr init(const ir::ProgramPtr& p) { return pass_test::run(passes::init_memref_pass(), p); }
}  // namespace

TEST_CASE("load/add/store: three Vec buffers, DDR params, store shares the output", "[InitMemRef]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        b: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(y, [0, 0], [64, 64])
        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(a, b)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.store(c, [0, 0], o)
        return o
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)],
          y: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)],
          o: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        mem_vec_5: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_4, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.load(y, [0, 0], [64, 64])
        c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_5, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.add(a, b)
        r: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 16384)] = pl.store(c, [0, 0], o)
        return o
)");
  auto after = init(before);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::HasMemRefs}, sink));
  pass_test::require_equal(after, expected);
}

TEST_CASE("an Opaque function that binds tiles gets memory like a kernel; one without tiles does not", "[InitMemRef]") {
  // Written without a function type (as the reference's memory tests write kernels); a bare
  // MemRef offset literal reads as the INT64 byte offset the printer writes.
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        r: pl.Tensor[[64, 64], pl.FP32] = pl.store(a, [0, 0], o)
        return r

    @pl.function
    def host(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        return x
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def k(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", 0, 16384)],
          o: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", 0, 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384)
        a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, 0, 16384), pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        r: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", 0, 16384)] = pl.store(a, [0, 0], o)
        return r

    @pl.function
    def host(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        return x
)");
  pass_test::require_equal(init(before), expected);
}

TEST_CASE("loop carry: init, iter_arg, yielded value and result share one buffer", "[InitMemRef]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        for i, (acc,) in pl.range(4, init_values=(a0,)):
            t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
            nxt: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(acc, t)
            res = pl.yield_(nxt)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(res, [0, 0], o)
        return o
)");
  auto after = init(before);
  auto f = after->functions[0];
  auto stmts = ir::flatten_body(f->body);
  REQUIRE(stmts.size() == 6);  // 2 allocs + load + loop + store + return
  const auto* loop = ir::as<ir::ForStmt>(stmts[3]);
  REQUIRE(loop);
  auto base = [](const ir::TypePtr& t) { return ir::as_shaped(t)->memref->base.get(); };
  const auto* a0 = ir::as<ir::AssignStmt>(stmts[2]);
  CHECK(base(a0->var->type) == base(loop->iter_args[0]->type));
  CHECK(base(loop->return_vars[0]->type) == base(a0->var->type));
  auto body = ir::flatten_body(loop->body);
  const auto* t = ir::as<ir::AssignStmt>(body[0]);
  const auto* nxt = ir::as<ir::AssignStmt>(body[1]);
  CHECK(base(nxt->var->type) == base(a0->var->type));
  CHECK(base(t->var->type) != base(a0->var->type));
  // a0 is dead once the loop starts: no copy was needed.
  for (const auto& st : stmts)
    if (const auto* a = ir::as<ir::AssignStmt>(st)) {
      const auto* c = ir::as<ir::Call>(a->value);
      CHECK_FALSE((c && c->is_op("tile.move")));
    }
}

TEST_CASE("loop init still read in the body: the carry gets its own buffer and a copy of it", "[InitMemRef]") {
  // `u = acc + t` with acc starting at t: sharing t's buffer with the carry made every iteration
  // overwrite t (16·x instead of 5·x after 4 iterations).
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        for i, (acc,) in pl.range(4, init_values=(t,)):
            u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(acc, t)
            r = pl.yield_(u)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(r, [0, 0], o)
        return o
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 1024)],
          o: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=1024)
        mem_vec_3: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=1024)
        t: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16])
        t_copy: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(t_copy,)):
            u: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 1024), pl.Mem.Vec] = pl.tile.add(acc, t)
            r = pl.yield_(u)
        s: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 1024)] = pl.tile.store(r, [0, 0], o)
        return o
)");
  auto after = init(before);
  pass_test::require_equal(after, expected);
  // The copy survives MemoryReuse (t and the carry are live together) and the planned addresses
  // keep init / iter_arg / yield / result at one address and t at another.
  auto planned = pass_test::run_named({"InitMemRef", "MemoryReuse", "AllocateMemoryAddr"}, before);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*planned, {ir::Property::AllocatedMemoryAddr}, sink));
  auto stmts = ir::flatten_body(planned->functions[0]->body);
  const ir::AssignStmt* t = nullptr;
  const ir::ForStmt* loop = nullptr;
  for (const auto& st : stmts) {
    if (const auto* a = ir::as<ir::AssignStmt>(st); a && a->var->name == "t") t = a;
    if (const auto* l = ir::as<ir::ForStmt>(st)) loop = l;
  }
  REQUIRE((t && loop));
  auto offset = [](const ir::TypePtr& ty) { return ir::const_int_value(ir::as_shaped(ty)->memref->offset); };
  CHECK(offset(t->var->type) != offset(loop->iter_args[0]->type));
  CHECK(offset(loop->return_vars[0]->type) == offset(loop->iter_args[0]->type));
}

TEST_CASE("Acc tiles round rows up to 16; every cube space gets its own buffer", "[InitMemRef]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def k(self, a: pl.Tensor[[8, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        am: pl.Tile[[8, 32], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [8, 32], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[32, 16], pl.FP16, pl.Mem.Mat] = pl.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[8, 32], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[32, 16], pl.FP16, pl.Mem.Right] = pl.move(bm, target_memory=pl.Mem.Right)
        c: pl.Tile[[8, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        r: pl.Tensor[[8, 16], pl.FP32] = pl.store(c, [0, 0], o)
        return o
)");
  auto after = init(before);
  std::vector<std::pair<ir::MemorySpace, int64_t>> allocs;
  for (const auto& s : ir::flatten_body(after->functions[0]->body)) {
    const auto* a = ir::as<ir::AssignStmt>(s);
    const auto* c = a ? ir::as<ir::Call>(a->value) : nullptr;
    if (c && c->is_op("tile.alloc"))
      allocs.push_back({std::get<ir::MemorySpace>(c->kwargs[0].second), std::get<int64_t>(c->kwargs[1].second)});
  }
  using M = ir::MemorySpace;
  std::vector<std::pair<M, int64_t>> want = {{M::Mat, 512}, {M::Mat, 1024}, {M::Left, 512}, {M::Right, 1024},
                                             {M::Acc, 16 * 16 * 4}};
  CHECK(allocs == want);
}

TEST_CASE("in-place matmul_acc shares its accumulator", "[InitMemRef]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        d: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul_acc(c, al, br)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(d, [0, 0], o)
        return o
)");
  auto after = init(before);
  auto stmts = ir::flatten_body(after->functions[0]->body);
  const ir::AssignStmt* c = nullptr;
  const ir::AssignStmt* d = nullptr;
  for (const auto& s : stmts)
    if (const auto* a = ir::as<ir::AssignStmt>(s)) {
      if (a->var->name == "c") c = a;
      if (a->var->name == "d") d = a;
    }
  REQUIRE((c && d));
  CHECK(ir::as_shaped(c->var->type)->memref->base == ir::as_shaped(d->var->type)->memref->base);
}

TEST_CASE("a window shares its source's buffer and records its pitch and first element", "[InitMemRef]") {
  // w = rows n.., columns 16.. of t; v = rows 4.., columns 8.. of w: both sit in t's buffer with
  // t's row pitch (64), v at element n * 64 + 16 + 4 * 64 + 8.
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [32, 64])
        w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 32], [n, 16])
        v: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(w, [8, 16], [4, 8])
        r: pl.Tensor[[8, 16], pl.FP32] = pl.store(v, [0, 0], o)
        return r
)");
  auto expected = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 8192)], n: pl.Scalar[pl.INDEX],
          o: pl.Out[pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)]]) -> pl.Tensor[[8, 16], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        t: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.load(x, [0, 0], [32, 64])
        w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 2048), pl.Mem.Vec,
                   pl.TileView(stride=[64, 1], start_offset=n * 64 + 16)] = pl.tile.slice(t, [16, 32], [n, 16])
        v: pl.Tile[[8, 16], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 512), pl.Mem.Vec,
                   pl.TileView(stride=[64, 1], start_offset=n * 64 + 280)] = pl.tile.slice(w, [8, 16], [4, 8])
        r: pl.Tensor[[8, 16], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 512)] = pl.store(v, [0, 0], o)
        return r
)");
  auto after = init(before);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::HasMemRefs}, sink));
  pass_test::require_equal(after, expected);
}

TEST_CASE("a window of an Acc tile shares its buffer and records the tile it views", "[InitMemRef]") {
  // w = rows n.. of c; v = columns 16.. of w: both are laid out as c's [32, 32] NZ tile (its
  // buffer_shape), with no row-major stride / start_offset (the kernel places them at their
  // origin's offset in the fractal layout).
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def k(self, a: pl.Tensor[[32, 32], pl.FP16], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        al: pl.Tile[[32, 32], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[32, 32], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        w: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(c, [16, 32], [n, 0])
        v: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(w, [16, 16], [0, 16])
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(v, [0, 0], o)
        return r
)");
  auto after = init(before);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*after, {ir::Property::HasMemRefs}, sink));
  std::map<std::string, const ir::TileType*> tiles;
  for (const auto& s : ir::flatten_body(after->functions[0]->body))
    if (const auto* a = ir::as<ir::AssignStmt>(s))
      if (const auto* t = ir::as_tile(a->var->type)) tiles[a->var->name] = t;
  REQUIRE((tiles.count("c") && tiles.count("w") && tiles.count("v")));
  for (const char* n : {"w", "v"}) {
    INFO(n);
    const auto* t = tiles[n];
    CHECK(t->memref->base == tiles["c"]->memref->base);
    REQUIRE(t->view);
    REQUIRE(t->view->buffer_shape.size() == 2);
    CHECK(ir::const_int_value(t->view->buffer_shape[0]) == 32);
    CHECK(ir::const_int_value(t->view->buffer_shape[1]) == 32);
    CHECK(t->view->stride.empty());
    CHECK(!t->view->start_offset);
  }
  // The printed form reads back (pass dumps).
  auto reread = pass_test::parse(ir::print_program(*after));
  pass_test::require_equal(reread, after);
}

TEST_CASE("a view of a window starts where the window starts; a non-contiguous window is not reshaped",
          "[InitMemRef]") {
  // r = row 2 of t ([1, 64] at element 128), reshaped to [64, 1]: the column starts at element
  // 128 too (it used to start at 0, i.e. view row 0); s = the same row with its valid columns set.
  const std::string head = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[8, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 1], pl.FP32]]) -> pl.Tensor[[64, 1], pl.FP32]:
        t: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [8, 64])
)";
  auto after = init(pass_test::parse(head + R"(        w: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 64], [2, 0])
        s: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.set_validshape(w, 1, 32)
        c: pl.Tile[[64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(w, [64, 1])
        r: pl.Tensor[[64, 1], pl.FP32] = pl.store(c, [0, 0], o)
        return r
)"));
  std::map<std::string, const ir::TileType*> tiles;
  for (const auto& st : ir::flatten_body(after->functions[0]->body))
    if (const auto* a = ir::as<ir::AssignStmt>(st); a && ir::as_tile(a->var->type)) tiles[a->var->name] = ir::as_tile(a->var->type);
  for (const char* n : {"w", "s", "c"}) {
    INFO(n);
    REQUIRE(tiles.count(n));
    REQUIRE(tiles[n]->view);
    CHECK(ir::const_int_value(tiles[n]->view->start_offset) == 128);
  }
  CHECK(ir::const_int_value(tiles["s"]->view->stride[0]) == 64);  // the window's pitch
  CHECK(ir::const_int_value(tiles["c"]->view->stride[0]) == 1);   // packed from its start
  // Two rows of a quarter of the width are not contiguous: no reshape of them.
  const std::string err = pass_test::compile_error_of([&] {
    init(pass_test::parse(head + R"(        w: pl.Tile[[2, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [2, 16], [2, 0])
        c: pl.Tile[[32, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(w, [32, 1])
        r: pl.Tensor[[64, 1], pl.FP32] = pl.store(c, [0, 0], o)
        return r
)"));
  });
  CHECK(err.find("whose rows are not contiguous") != std::string::npos);
}
