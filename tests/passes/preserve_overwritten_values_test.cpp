// PreserveOverwrittenValues: a value that a write into its shared buffer would change while it is
// still read gets a Vec copy — the in-place op works on a copy of its operand; a loop carries a
// copy of an init that is read after the loop starts; an if branch passing on such a tile yields
// a copy; reads after an in-place update of the carried tile in the same block read a copy taken
// before it; other such reads are E501. Values nobody reads afterwards are left alone.
#include "pass_test_util.h"

using namespace pypto;

namespace {

ir::ProgramPtr preserve(const std::string& text) {
  return pass_test::run(passes::preserve_overwritten_values_pass(), pass_test::parse(text));
}

}  // namespace

TEST_CASE("an in-place write whose operand is read afterwards writes a copy", "[PreserveOverwrittenValues]") {
  pass_test::require_equal(preserve(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]], p: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.write(t, [0, 0], 5.0)
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(w, [0, 0], o)
        p_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], p)
        return o_1, p_1
)"), pass_test::parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]], p: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        t_copy: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec)
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.write(t_copy, [0, 0], 5.0)
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(w, [0, 0], o)
        p_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], p)
        return o_1, p_1
)"));
}

TEST_CASE("a loop whose init is read after it starts carries a copy; an in-place write inside whose result is not "
          "carried writes a copy", "[PreserveOverwrittenValues]") {
  pass_test::require_equal(preserve(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        for i, (acc,) in pl.range(4, init_values=(t,)):
            w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.write(acc, [0, i], 5.0)
            s: pl.Scalar[pl.FP32] = pl.tile.read(acc, [0, 0])
            u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(w, s)
            r = pl.yield_(u)
        v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(r, t)
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(v, [0, 0], o)
        return o_1
)"), pass_test::parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        acc_init: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(acc_init,)):
            acc_copy: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(acc, target_memory=pl.Mem.Vec)
            w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.write(acc_copy, [0, i], 5.0)
            s: pl.Scalar[pl.FP32] = pl.tile.read(acc, [0, 0])
            u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(w, s)
            r = pl.yield_(u)
        v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(r, t)
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(v, [0, 0], o)
        return o_1
)"));
}

TEST_CASE("reads after an in-place update of the carried tile read a copy taken before it", "[PreserveOverwrittenValues]") {
  // The write's result is yielded as the carried tile, so a copy of its operand would share the
  // carried buffer again: the later read takes the copy instead.
  pass_test::require_equal(preserve(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        z: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        for i, (acc, tot) in pl.range(4, init_values=(t, z)):
            w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.write(acc, [0, i], 5.0)
            s: pl.Scalar[pl.FP32] = pl.tile.read(acc, [0, i])
            tot2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(tot, s)
            r1, r2 = pl.yield_(w, tot2)
        v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(r1, r2)
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(v, [0, 0], o)
        return o_1
)"), pass_test::parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        z: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        for i, (acc, tot) in pl.range(4, init_values=(t, z)):
            acc_kept: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(acc, target_memory=pl.Mem.Vec)
            w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.write(acc, [0, i], 5.0)
            s: pl.Scalar[pl.FP32] = pl.tile.read(acc_kept, [0, i])
            tot2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(tot, s)
            r1, r2 = pl.yield_(w, tot2)
        v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(r1, r2)
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(v, [0, 0], o)
        return o_1
)"));
}

TEST_CASE("an if branch passing on a tile that is read after the if yields a copy", "[PreserveOverwrittenValues]") {
  // The if's result shares one buffer with both yielded values: without the copy the else branch
  // would compute into t's buffer.
  pass_test::require_equal(preserve(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        if n > 2:
            r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = t
            c = pl.yield_(r)
        else:
            u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
            c = pl.yield_(u)
        v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(c, t)
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(v, [0, 0], o)
        return o_1
)"), pass_test::parse(R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        if n > 2:
            r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = t
            r_yield: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(r, target_memory=pl.Mem.Vec)
            c = pl.yield_(r_yield)
        else:
            u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
            c = pl.yield_(u)
        v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(c, t)
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(v, [0, 0], o)
        return o_1
)"));
}

TEST_CASE("values nobody reads after the write are left alone", "[PreserveOverwrittenValues]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        s: pl.Scalar[pl.FP32] = pl.tile.read(t, [0, 1])
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.write(t, [0, 0], s)
        for i, (acc,) in pl.range(4, init_values=(w,)):
            u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(acc, 1.0)
            r = pl.yield_(u)
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(r, [0, 0], o)
        return o_1
)");
  CHECK(pass_test::run(passes::preserve_overwritten_values_pass(), p) == p);
}

TEST_CASE("a read of the carried tile after an in-place update outside the update's block is E501",
          "[PreserveOverwrittenValues]") {
  auto msg = pass_test::compile_error_of([] {
    preserve(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        for i, (acc,) in pl.range(4, init_values=(t,)):
            if i < n:
                w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.write(acc, [0, i], 5.0)
                c = pl.yield_(w)
            else:
                c = pl.yield_(acc)
            s: pl.Scalar[pl.FP32] = pl.tile.read(acc, [0, 0])
            q: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, s)
            r = pl.yield_(c)
        o_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(r, [0, 0], o)
        return o_1
)");
  });
  CHECK(msg.find("'acc' is read after 'pl.tile.write' updated the loop-carried tile") != std::string::npos);
}
