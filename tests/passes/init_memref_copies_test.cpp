// InitMemRef's copies (passes/memref_copies.h): at every site where sharing one buffer would
// overwrite a tile that is still read — a loop's init or yielded value, an if arm's yielded value,
// an in-place op's operand — the pass inserts a tile.move and shares the copy instead; where the
// value is dead it shares without a copy. Each case is written twice: `before`, and the same
// kernel with the expected copies spelled out by hand; InitMemRef must turn `before` into exactly
// what it makes of the hand-written version (which needs no further copy), and the buffers of the
// tiles named in the case must be apart / together as stated. Every result also goes through
// MemoryReuse and AllocateMemoryAddr and must satisfy the AllocatedMemoryAddr verifier rule.
#include <map>

#include "ir/verifier.h"
#include "ir/visitor.h"
#include "pass_test_util.h"

using namespace pypto;

namespace {

ir::ProgramPtr init(const ir::ProgramPtr& p) { return pass_test::run(passes::init_memref_pass(), p); }

std::string header() {
  return R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
)";
}

// The allocation base of every tile Var (by name) and the number of tile.move statements.
class Bases : public ir::IRVisitor {
 public:
  std::map<std::string, std::string> base;
  int moves = 0;
  void add(const ir::Var& v) {
    const auto* t = ir::as_tile(v.type);
    if (t && t->memref && t->memref->base) base[v.name] = t->memref->base->name;
  }

 protected:
  void visit_assign(const ir::AssignStmt& s) override {
    add(*s.var);
    if (const auto* c = ir::as<ir::Call>(s.value); c && c->is_op("tile.move")) ++moves;
    ir::IRVisitor::visit_assign(s);
  }
  void visit_for(const ir::ForStmt& s) override {
    for (const auto& ia : s.iter_args) add(*ia);
    for (const auto& rv : s.return_vars) add(*rv);
    ir::IRVisitor::visit_for(s);
  }
  void visit_if(const ir::IfStmt& s) override {
    for (const auto& rv : s.return_vars) add(*rv);
    ir::IRVisitor::visit_if(s);
  }
};

Bases bases(const ir::ProgramPtr& p) {
  Bases b;
  b.visit_function(*p->functions[0]);
  return b;
}

// InitMemRef(before) == InitMemRef(with_copies), with `copies` tile.moves in both; the planned
// program verifies. Returns the buffers of InitMemRef(before).
Bases require_copies(const std::string& before, const std::string& with_copies, int copies) {
  auto got = init(pass_test::parse(header() + before));
  auto want = init(pass_test::parse(header() + with_copies));
  Bases b = bases(got);
  CHECK(b.moves == copies);
  CHECK(bases(want).moves == copies);  // the hand-written copies are enough
  pass_test::require_equal(got, want);
  auto planned = pass_test::run_named({"InitMemRef", "MemoryReuse", "AllocateMemoryAddr"},
                                      pass_test::parse(header() + before));
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*planned, {ir::Property::AllocatedMemoryAddr}, sink));
  return b;
}

}  // namespace

TEST_CASE("loop init read after the loop: the carry starts from a copy", "[InitMemRef][copies]") {
  const std::string body = R"(
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(y, [0, 0], [16, 16])
)";
  auto b = require_copies(body + R"(
        for i, (acc,) in pl.range(4, init_values=(t,)):
            u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(acc, w)
            r = pl.yield_(u)
        e: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.sub(r, t)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(e, [0, 0], o)
        return o
)",
                          body + R"(
        t_copy: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(4, init_values=(t_copy,)):
            u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(acc, w)
            r = pl.yield_(u)
        e: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.sub(r, t)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(e, [0, 0], o)
        return o
)",
                          1);
  CHECK(b.base["t"] != b.base["acc"]);
  CHECK(b.base["u"] == b.base["acc"]);
}

TEST_CASE("iter_arg read after the new carried value is computed: the yield gets a copy", "[InitMemRef][copies]") {
  // d = u - acc must see the old acc (the loop counts to 3), not u written over it.
  const std::string head = R"(
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.sub(t, t)
        for i, (acc, cnt) in pl.range(3, init_values=(t, z)):
            u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(acc, 1.0)
            d: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.sub(u, acc)
            c2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(cnt, d)
)";
  const std::string tail = R"(
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(rc, [0, 0], o)
        return o
)";
  auto b = require_copies(head + "            r, rc = pl.yield_(u, c2)" + tail,
                          head +
                              "            u_copy: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(u, target_memory=pl.Mem.Vec)\n"
                              "            r, rc = pl.yield_(u_copy, c2)" +
                              tail,
                          1);
  CHECK(b.base["u"] != b.base["acc"]);
  CHECK(b.base["t"] == b.base["acc"]);  // t is dead once the loop starts
  CHECK(b.base["c2"] == b.base["cnt"]);
}

TEST_CASE("carried value computed by an op that may not write over its input: the yield gets a copy",
          "[InitMemRef][copies]") {
  const std::string head = R"(
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        for i, (acc,) in pl.range(2, init_values=(t,)):
            u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.recip(acc)
)";
  const std::string tail = R"(
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(r, [0, 0], o)
        return o
)";
  auto b = require_copies(head + "            r = pl.yield_(u)" + tail,
                          head +
                              "            u_copy: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(u, target_memory=pl.Mem.Vec)\n"
                              "            r = pl.yield_(u_copy)" +
                              tail,
                          1);
  CHECK(b.base["u"] != b.base["acc"]);  // tile.recip is not_inplace_safe
}

TEST_CASE("carries that exchange their values: one temporary and two copies", "[InitMemRef][copies]") {
  const std::string head = R"(
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        b: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(y, [0, 0], [16, 16])
        for i, (p, q) in pl.range(3, init_values=(a, b)):
)";
  const std::string tail = R"(
        d: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.sub(r1, r2)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(d, [0, 0], o)
        return o
)";
  auto b = require_copies(head + "            r1, r2 = pl.yield_(q, p)" + tail,
                          head + R"(            p_tmp: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(p, target_memory=pl.Mem.Vec)
            q_copy: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(q, target_memory=pl.Mem.Vec)
            p_copy: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(p_tmp, target_memory=pl.Mem.Vec)
            r1, r2 = pl.yield_(q_copy, p_copy))" + tail,
                          3);
  CHECK(b.base["p"] != b.base["q"]);
  CHECK(b.base["a"] == b.base["p"]);
  CHECK(b.base["b"] == b.base["q"]);
  CHECK(b.base["p_tmp"] != b.base["p"]);
  CHECK(b.base["p_tmp"] != b.base["q"]);
}

TEST_CASE("nested loops: an inner carry started from an outer iter_arg that is read later copies it",
          "[InitMemRef][copies]") {
  const std::string head = R"(
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        for i, (acc,) in pl.range(2, init_values=(t,)):
)";
  const std::string tail = R"(
                b2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(b, 1.0)
                rb = pl.yield_(b2)
            s2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(rb, acc)
            ra = pl.yield_(s2)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(ra, [0, 0], o)
        return o
)";
  auto b = require_copies(head + "            for j, (b,) in pl.range(3, init_values=(acc,)):" + tail,
                          head + R"(            acc_copy: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(acc, target_memory=pl.Mem.Vec)
            for j, (b,) in pl.range(3, init_values=(acc_copy,)):)" + tail,
                          1);
  CHECK(b.base["acc"] != b.base["b"]);
  CHECK(b.base["t"] == b.base["acc"]);
  CHECK(b.base["s2"] == b.base["acc"]);
  CHECK(b.base["b2"] == b.base["b"]);
}

TEST_CASE("if arms yielding two tiles that exist before the if: one arm copies", "[InitMemRef][copies]") {
  // Sharing a, b and r put both loads into one buffer: r was always y.
  const std::string head = R"(
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        b: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(y, [0, 0], [16, 16])
        if n > 2:
            r = pl.yield_(a)
        else:
)";
  const std::string tail = R"(
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(r, [0, 0], o)
        return o
)";
  auto b = require_copies(head + "            r = pl.yield_(b)" + tail,
                          head +
                              "            b_copy: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(b, target_memory=pl.Mem.Vec)\n"
                              "            r = pl.yield_(b_copy)" +
                              tail,
                          1);
  CHECK(b.base["a"] != b.base["b"]);
  CHECK(b.base["a"] == b.base["r"]);
}

TEST_CASE("an arm changes a tile whose alias is read after the if: the other arm copies", "[InitMemRef][copies]") {
  const std::string head = R"(
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = a
        if n > 2:
            a1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.mul(a, 2.0)
            a2 = pl.yield_(a1)
        else:
)";
  const std::string tail = R"(
        e: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(a2, z)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(e, [0, 0], o)
        return o
)";
  auto b = require_copies(head + "            a2 = pl.yield_(a)" + tail,
                          head +
                              "            a_copy: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)\n"
                              "            a2 = pl.yield_(a_copy)" +
                              tail,
                          1);
  CHECK(b.base["a1"] != b.base["z"]);
  CHECK(b.base["a1"] == b.base["a2"]);
  CHECK(b.base["a"] == b.base["z"]);
}

TEST_CASE("an if arm's value shares when nothing reads the old tile later; a dead read does not count",
          "[InitMemRef][copies]") {
  const std::string head = R"(
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o2: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        if n > 2:
            m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.mul(t, 2.0)
            r = pl.yield_(m)
        else:
)";
  const std::string tail = R"(
        t1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(t, 1.0)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(r, [0, 0], o)
)";
  SECTION("t1 is never used: m may overwrite t") {
    auto b = require_copies(head + "            r = pl.yield_(t)" + tail + "        return o\n",
                            head + "            r = pl.yield_(t)" + tail + "        return o\n", 0);
    CHECK(b.base["m"] == b.base["t"]);
  }
  SECTION("t1 is stored: the else arm copies t") {
    const std::string stored = tail + "        s2: pl.Tensor[[16, 16], pl.FP32] = pl.store(t1, [0, 0], o2)\n        return o\n";
    auto b = require_copies(head + "            r = pl.yield_(t)" + stored,
                            head +
                                "            t_copy: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(t, target_memory=pl.Mem.Vec)\n"
                                "            r = pl.yield_(t_copy)" +
                                stored,
                            1);
    CHECK(b.base["m"] != b.base["t"]);
    CHECK(b.base["m"] == b.base["r"]);
  }
}

TEST_CASE("in-place op whose operand (or its alias) is read afterwards: the op writes a copy", "[InitMemRef][copies]") {
  const std::string head = R"(
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        z: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = a
)";
  const std::string tail = R"(
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.sub(b, z)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        return o
)";
  auto b = require_copies(
      head + "        b: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.write(a, [0, 0], 100.0)" + tail,
      head + "        a_copy: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)\n"
             "        b: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.write(a_copy, [0, 0], 100.0)" + tail,
      1);
  CHECK(b.base["b"] != b.base["a"]);
  CHECK(b.base["b"] == b.base["a_copy"]);
}

TEST_CASE("a copy needed outside Vec is rejected at its site (no same-space TMOV there)", "[InitMemRef][copies]") {
  auto p = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o2: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(am, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        for i, (acc,) in pl.range(3, init_values=(c,)):
            acc2: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul_acc(acc, al, br)
            r = pl.yield_(acc2)
        s: pl.Tensor[[16, 16], pl.FP32] = pl.store(r, [0, 0], o)
        s2: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o2)
        return o
)");
  std::string err = pass_test::compile_error_of([&] { init(p); });
  CHECK(err.find("the initial value 'c' of a loop-carried tile is still read after its Acc buffer is overwritten") !=
        std::string::npos);
  CHECK(err.find("Acc -> Acc tile copy, which is not supported yet") != std::string::npos);
}
