// OptimizeOrchTensors: Before/Expected programs for the iter-arg reuse (a loop carrying a kernel's
// result, nested loops, a standalone call whose kernel carries the loaded tile; a caller's
// tensor.create dropped) and the assemble-loop rewrite; the programs it must leave alone (an older
// value of the buffer read after the kernel overwrote it, a buffer an enclosing loop reuses, a
// kernel whose loads and stores interleave, a kernel called from two places of which one does not
// admit the merge, an Out argument that is no local creation, a `while` assemble loop); a second
// run changes nothing.
#include "pass_test_util.h"

using namespace pypto;

namespace {

ir::ProgramPtr opt(const ir::ProgramPtr& p) { return pass_test::run(passes::optimize_orch_tensors_pass(), p); }

const char* kHeader = R"(import pypto.language as pl

@pl.program
class P:
)";

// A kernel that reads `a` and writes `o` (2a + x), the form ConvertTensorToTileOps leaves.
const char* kStep = R"(    @pl.function(type=pl.FunctionType.InCore)
    def step(self, a: pl.Tensor[[16, 32], pl.FP32], x: pl.Tensor[[16, 32], pl.FP32],
             o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        ta: pl.Tile[[16, 32], pl.FP32] = pl.load(a, [0, 0], [16, 32])
        tx: pl.Tile[[16, 32], pl.FP32] = pl.load(x, [0, 0], [16, 32])
        t2: pl.Tile[[16, 32], pl.FP32] = pl.tile.muls(ta, 2.0)
        t3: pl.Tile[[16, 32], pl.FP32] = pl.tile.add(t2, tx)
        r: pl.Tensor[[16, 32], pl.FP32] = pl.store(t3, [0, 0], o)
        return r

)";
// The same kernel with `a` updated in place.
const char* kStepInOut = R"(    @pl.function(type=pl.FunctionType.InCore)
    def step(self, a: pl.InOut[pl.Tensor[[16, 32], pl.FP32]], x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        ta: pl.Tile[[16, 32], pl.FP32] = pl.load(a, [0, 0], [16, 32])
        tx: pl.Tile[[16, 32], pl.FP32] = pl.load(x, [0, 0], [16, 32])
        t2: pl.Tile[[16, 32], pl.FP32] = pl.tile.muls(ta, 2.0)
        t3: pl.Tile[[16, 32], pl.FP32] = pl.tile.add(t2, tx)
        r: pl.Tensor[[16, 32], pl.FP32] = pl.store(t3, [0, 0], a)
        return r

)";

// A kernel with no Out parameter (y updated in place): nothing to merge.
const char* kFold = R"(    @pl.function(type=pl.FunctionType.InCore)
    def fold(self, a: pl.Tensor[[16, 32], pl.FP32], y: pl.InOut[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        ta: pl.Tile[[16, 32], pl.FP32] = pl.load(a, [0, 0], [16, 32])
        ty: pl.Tile[[16, 32], pl.FP32] = pl.load(y, [0, 0], [16, 32])
        t: pl.Tile[[16, 32], pl.FP32] = pl.tile.add(ta, ty)
        r: pl.Tensor[[16, 32], pl.FP32] = pl.store(t, [0, 0], y)
        return r

)";

std::string program(const std::string& kernels, const std::string& main) { return kHeader + kernels + main; }

void expect_rewrite(const std::string& before, const std::string& expected) {
  auto got = opt(pass_test::parse(before));
  pass_test::require_equal(got, pass_test::parse(expected));
  CHECK(opt(got) == got);  // nothing left to merge
}

void expect_unchanged(const std::string& before) {
  auto p = pass_test::parse(before);
  REQUIRE(p);
  auto got = opt(p);
  pass_test::require_equal(got, p);
}

}  // namespace

TEST_CASE("a loop carrying a kernel's result reuses the carried buffer", "[OptimizeOrchTensors]") {
  const std::string main_before = R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        buf: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        for i, (acc,) in pl.range(4, init_values=(buf,)):
            o: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
            nxt: pl.Tensor[[16, 32], pl.FP32] = self.step(acc, x, o)
            res = pl.yield_(nxt)
        y2: pl.Tensor[[16, 32], pl.FP32] = self.step(res, x, y)
        return y2
)";
  // The second call writes the entry's Out tensor y, no creation: only the loop's call merges,
  // and so the kernel keeps its signature for both (all-or-nothing per kernel).
  expect_unchanged(program(kStep, main_before));

  const std::string main_loop_only = R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        buf: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        for i, (acc,) in pl.range(4, init_values=(buf,)):
            o: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
            nxt: pl.Tensor[[16, 32], pl.FP32] = self.step(acc, x, o)
            res = pl.yield_(nxt)
        return res
)";
  const std::string main_after = R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        buf: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        for i, (acc,) in pl.range(4, init_values=(buf,)):
            nxt: pl.Tensor[[16, 32], pl.FP32] = self.step(acc, x)
            res = pl.yield_(nxt)
        return res
)";
  expect_rewrite(program(kStep, main_loop_only), program(kStepInOut, main_after));
}

TEST_CASE("nested loops carrying one buffer merge; a tuple result merges per slot", "[OptimizeOrchTensors]") {
  const std::string before = program(kStep, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        buf: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        for i, (a,) in pl.range(3, init_values=(buf,)):
            for j, (b,) in pl.range(2, init_values=(a,)):
                o: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
                nb: pl.Tensor[[16, 32], pl.FP32] = self.step(b, x, o)
                b_out = pl.yield_(nb)
            a_out = pl.yield_(b_out)
        return a_out
)");
  const std::string expected = program(kStepInOut, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        buf: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        for i, (a,) in pl.range(3, init_values=(buf,)):
            for j, (b,) in pl.range(2, init_values=(a,)):
                nb: pl.Tensor[[16, 32], pl.FP32] = self.step(b, x)
                b_out = pl.yield_(nb)
            a_out = pl.yield_(b_out)
        return a_out
)");
  expect_rewrite(before, expected);

  // Two results, each replacing one of two carried tensors (the entry's own inputs: updated in
  // place, the kernel's InOut parameters say so).
  const std::string pair_kernel = R"(    @pl.function(type=pl.FunctionType.InCore)
    def both(self, u: pl.Tensor[[8, 16], pl.FP32], v: pl.Tensor[[8, 16], pl.FP32],
             ou: pl.Out[pl.Tensor[[8, 16], pl.FP32]], ov: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> tuple[pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 16], pl.FP32]]:
        tu: pl.Tile[[8, 16], pl.FP32] = pl.load(u, [0, 0], [8, 16])
        tv: pl.Tile[[8, 16], pl.FP32] = pl.load(v, [0, 0], [8, 16])
        s: pl.Tile[[8, 16], pl.FP32] = pl.tile.add(tu, tv)
        d: pl.Tile[[8, 16], pl.FP32] = pl.tile.sub(tu, tv)
        ru: pl.Tensor[[8, 16], pl.FP32] = pl.store(s, [0, 0], ou)
        rv: pl.Tensor[[8, 16], pl.FP32] = pl.store(d, [0, 0], ov)
        return ru, rv

)";
  const std::string pair_kernel_inout = R"(    @pl.function(type=pl.FunctionType.InCore)
    def both(self, u: pl.InOut[pl.Tensor[[8, 16], pl.FP32]], v: pl.InOut[pl.Tensor[[8, 16], pl.FP32]]) -> tuple[pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 16], pl.FP32]]:
        tu: pl.Tile[[8, 16], pl.FP32] = pl.load(u, [0, 0], [8, 16])
        tv: pl.Tile[[8, 16], pl.FP32] = pl.load(v, [0, 0], [8, 16])
        s: pl.Tile[[8, 16], pl.FP32] = pl.tile.add(tu, tv)
        d: pl.Tile[[8, 16], pl.FP32] = pl.tile.sub(tu, tv)
        ru: pl.Tensor[[8, 16], pl.FP32] = pl.store(s, [0, 0], u)
        rv: pl.Tensor[[8, 16], pl.FP32] = pl.store(d, [0, 0], v)
        return ru, rv

)";
  const std::string pair_before = program(pair_kernel, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, u0: pl.Tensor[[8, 16], pl.FP32], v0: pl.Tensor[[8, 16], pl.FP32]) -> tuple[pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 16], pl.FP32]]:
        for i, (u, v) in pl.range(5, init_values=(u0, v0)):
            ou: pl.Tensor[[8, 16], pl.FP32] = pl.create_tensor([8, 16], dtype=pl.FP32)
            ov: pl.Tensor[[8, 16], pl.FP32] = pl.create_tensor([8, 16], dtype=pl.FP32)
            r: tuple[pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 16], pl.FP32]] = self.both(u, v, ou, ov)
            nu: pl.Tensor[[8, 16], pl.FP32] = r[0]
            nv: pl.Tensor[[8, 16], pl.FP32] = r[1]
            fu, fv = pl.yield_(nu, nv)
        return fu, fv
)");
  const std::string pair_after = program(pair_kernel_inout, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, u0: pl.Tensor[[8, 16], pl.FP32], v0: pl.Tensor[[8, 16], pl.FP32]) -> tuple[pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 16], pl.FP32]]:
        for i, (u, v) in pl.range(5, init_values=(u0, v0)):
            r: tuple[pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 16], pl.FP32]] = self.both(u, v)
            nu: pl.Tensor[[8, 16], pl.FP32] = r[0]
            nv: pl.Tensor[[8, 16], pl.FP32] = r[1]
            fu, fv = pl.yield_(nu, nv)
        return fu, fv
)");
  expect_rewrite(pair_before, pair_after);

  // Swapped yields (u's slot carried as v): the merge would swap the buffers; left alone.
  std::string swapped = pair_before;
  swapped.replace(swapped.find("fu, fv = pl.yield_(nu, nv)"), 26, "fu, fv = pl.yield_(nv, nu)");
  expect_unchanged(swapped);
}

TEST_CASE("a buffer whose older value is read after the kernel would overwrite it is not reused",
          "[OptimizeOrchTensors]") {
  // buf is read again after the loop (its value before the loop): updating it in place would
  // change what that read sees.
  expect_unchanged(program(kStep, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        buf: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        for i, (acc,) in pl.range(4, init_values=(buf,)):
            o: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
            nxt: pl.Tensor[[16, 32], pl.FP32] = self.step(acc, x, o)
            res = pl.yield_(nxt)
        o2: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        again: pl.Tensor[[16, 32], pl.FP32] = self.step(buf, res, o2)
        return res, again
)"));
  // The carried value also read in the body after the call.
  expect_unchanged(program(kStep, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        buf: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        for i, (acc,) in pl.range(4, init_values=(buf,)):
            o: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
            nxt: pl.Tensor[[16, 32], pl.FP32] = self.step(acc, x, o)
            o3: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
            mix: pl.Tensor[[16, 32], pl.FP32] = self.step(nxt, acc, o3)
            res = pl.yield_(mix)
        return res
)"));
  // An enclosing loop that neither creates the buffer nor carries it: its second iteration
  // would start from the first one's result.
  expect_unchanged(program(std::string(kStep) + kFold, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.InOut[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        buf: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        for k, (yk,) in pl.range(2, init_values=(y,)):
            for i, (acc,) in pl.range(4, init_values=(buf,)):
                o: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
                nxt: pl.Tensor[[16, 32], pl.FP32] = self.step(acc, x, o)
                res = pl.yield_(nxt)
            yk2: pl.Tensor[[16, 32], pl.FP32] = self.fold(res, yk)
            y_out = pl.yield_(yk2)
        return y_out
)"));
}

TEST_CASE("a kernel whose stores may precede its loads keeps its Out parameter", "[OptimizeOrchTensors]") {
  const std::string kernel = R"(    @pl.function(type=pl.FunctionType.InCore)
    def step(self, a: pl.Tensor[[16, 32], pl.FP32], o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t0: pl.Tile[[8, 32], pl.FP32] = pl.load(a, [0, 0], [8, 32])
        r0: pl.Tensor[[16, 32], pl.FP32] = pl.store(t0, [8, 0], o)
        t1: pl.Tile[[8, 32], pl.FP32] = pl.load(a, [8, 0], [8, 32])
        r1: pl.Tensor[[16, 32], pl.FP32] = pl.store(t1, [0, 0], o)
        return r1

)";
  // In place, the load of a[8:] would read rows the first store has already overwritten.
  expect_unchanged(program(kernel, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        buf: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        for i, (acc,) in pl.range(4, init_values=(buf,)):
            o: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
            nxt: pl.Tensor[[16, 32], pl.FP32] = self.step(acc, o)
            res = pl.yield_(nxt)
        return res
)"));
}

TEST_CASE("a standalone call merges when the kernel carries the loaded tile into its result", "[OptimizeOrchTensors]") {
  const std::string kernel = R"(    @pl.function(type=pl.FunctionType.InCore)
    def relax(self, acc: pl.Tensor[[16, 32], pl.FP32], x: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],
              o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        ta: pl.Tile[[16, 32], pl.FP32] = pl.load(acc, [0, 0], [16, 32])
        tx: pl.Tile[[16, 32], pl.FP32] = pl.load(x, [0, 0], [16, 32])
        for i, (c,) in pl.range(n, init_values=(ta,)):
            c2: pl.Tile[[16, 32], pl.FP32] = pl.tile.add(c, tx)
            fin = pl.yield_(c2)
        r: pl.Tensor[[16, 32], pl.FP32] = pl.store(fin, [0, 0], o)
        return r

)";
  const std::string kernel_inout = R"(    @pl.function(type=pl.FunctionType.InCore)
    def relax(self, acc: pl.InOut[pl.Tensor[[16, 32], pl.FP32]], x: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 32], pl.FP32]:
        ta: pl.Tile[[16, 32], pl.FP32] = pl.load(acc, [0, 0], [16, 32])
        tx: pl.Tile[[16, 32], pl.FP32] = pl.load(x, [0, 0], [16, 32])
        for i, (c,) in pl.range(n, init_values=(ta,)):
            c2: pl.Tile[[16, 32], pl.FP32] = pl.tile.add(c, tx)
            fin = pl.yield_(c2)
        r: pl.Tensor[[16, 32], pl.FP32] = pl.store(fin, [0, 0], acc)
        return r

)";
  const std::string before = program(kernel, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, s: pl.Tensor[[16, 32], pl.FP32], x: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 32], pl.FP32]:
        o: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        r: pl.Tensor[[16, 32], pl.FP32] = self.relax(s, x, n, o)
        return r
)");
  const std::string after = program(kernel_inout, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, s: pl.Tensor[[16, 32], pl.FP32], x: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[16, 32], pl.FP32]:
        r: pl.Tensor[[16, 32], pl.FP32] = self.relax(s, x, n)
        return r
)");
  expect_rewrite(before, after);

  // s read by a second call afterwards: not merged, for either call (one kernel signature).
  expect_unchanged(program(kernel, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, s: pl.Tensor[[16, 32], pl.FP32], x: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        o: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        r: pl.Tensor[[16, 32], pl.FP32] = self.relax(s, x, n, o)
        o2: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        r2: pl.Tensor[[16, 32], pl.FP32] = self.relax(x, s, n, o2)
        return r, r2
)"));
  // A kernel that stores what it loaded without carrying it: a standalone call is left alone.
  expect_unchanged(program(kStep, R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, s: pl.Tensor[[16, 32], pl.FP32], x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        o: pl.Tensor[[16, 32], pl.FP32] = pl.create_tensor([16, 32], dtype=pl.FP32)
        r: pl.Tensor[[16, 32], pl.FP32] = self.step(s, x, o)
        return r
)"));
}

TEST_CASE("an assemble loop into a created tile stores each piece into the Out tensor", "[OptimizeOrchTensors]") {
  const std::string main = R"(    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        out2: pl.Tensor[[8, 64], pl.FP32] = self.wide(x, out)
        return out2
)";
  const std::string before = program(R"(    @pl.function(type=pl.FunctionType.InCore)
    def wide(self, x: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        buf: pl.Tile[[8, 64], pl.FP32] = pl.tile.create([8, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        for i, (acc,) in pl.range(4, init_values=(buf,)):
            piece: pl.Tile[[8, 16], pl.FP32] = pl.load(x, [0, 0], [8, 16])
            scaled: pl.Tile[[8, 16], pl.FP32] = pl.tile.muls(piece, 3.0)
            acc2: pl.Tile[[8, 64], pl.FP32] = pl.tile.assemble(acc, scaled, [0, i * 16])
            built = pl.yield_(acc2)
        r: pl.Tensor[[8, 64], pl.FP32] = pl.store(built, [0, 0], o)
        return r

)", main);
  const std::string expected = program(R"(    @pl.function(type=pl.FunctionType.InCore)
    def wide(self, x: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        for i, (acc,) in pl.range(4, init_values=(o,)):
            piece: pl.Tile[[8, 16], pl.FP32] = pl.load(x, [0, 0], [8, 16])
            scaled: pl.Tile[[8, 16], pl.FP32] = pl.tile.muls(piece, 3.0)
            acc2: pl.Tensor[[8, 64], pl.FP32] = pl.store(scaled, [0, i * 16], acc)
            built = pl.yield_(acc2)
        return built

)", main);
  expect_rewrite(before, expected);

  // The same loop as a while: left as it is.
  expect_unchanged(program(R"(    @pl.function(type=pl.FunctionType.InCore)
    def wide(self, x: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        buf: pl.Tile[[8, 64], pl.FP32] = pl.tile.create([8, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        i0: pl.Scalar[pl.INDEX] = 0
        for acc, i in pl.while_(init_values=(buf, i0)):
            pl.cond(i < 4)
            piece: pl.Tile[[8, 16], pl.FP32] = pl.load(x, [0, 0], [8, 16])
            acc2: pl.Tile[[8, 64], pl.FP32] = pl.tile.assemble(acc, piece, [0, i * 16])
            i2: pl.Scalar[pl.INDEX] = i + 1
            built, i_out = pl.yield_(acc2, i2)
        r: pl.Tensor[[8, 64], pl.FP32] = pl.store(built, [0, 0], o)
        return r

)", main));
  // The assembled tile also read after the loop: it must exist.
  expect_unchanged(program(R"(    @pl.function(type=pl.FunctionType.InCore)
    def wide(self, x: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        buf: pl.Tile[[8, 64], pl.FP32] = pl.tile.create([8, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        for i, (acc,) in pl.range(4, init_values=(buf,)):
            piece: pl.Tile[[8, 16], pl.FP32] = pl.load(x, [0, 0], [8, 16])
            acc2: pl.Tile[[8, 64], pl.FP32] = pl.tile.assemble(acc, piece, [0, i * 16])
            built = pl.yield_(acc2)
        twice: pl.Tile[[8, 64], pl.FP32] = pl.tile.add(built, built)
        r: pl.Tensor[[8, 64], pl.FP32] = pl.store(twice, [0, 0], o)
        return r

)", main));
}
