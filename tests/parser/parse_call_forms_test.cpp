// Call forms of the front end and what the IR keeps of them: a @pl.jit.host dispatching a chip
// @pl.jit orchestrator per device (and the E301 of any other @pl.jit → @pl.jit call), gather_row
// named by its destination with a GM source, create_l1 as a tensor, gather / scatter in the
// reference's spellings (mask form, dim in second place), DSL functions defined under a
// module-level if, a scalar index only for read / write, and same-block rebinding with another
// type (renamed in @pl.jit code, E201 in a @pl.function), `self.k` naming a jit dependency.
#include <catch2/catch.hpp>

#include "ir/visitor.h"
#include "parse_helpers.h"

using namespace pypto;
using namespace pypto::ir;
using ptest::errors;
using ptest::parse;

namespace {

// Every call in a function, in visiting order.
struct Calls : IRVisitor {
  std::vector<const Call*> all;
  void visit_call(const Call& c) override {
    all.push_back(&c);
    IRVisitor::visit_call(c);
  }
  const Call* op(std::string_view name) const {
    for (const Call* c : all)
      if (c->is_op(name)) return c;
    return nullptr;
  }
  const Call* callee(std::string_view name) const {
    for (const Call* c : all)
      if (!c->op && c->callee == name) return c;
    return nullptr;
  }
};

Calls calls_of(const ProgramPtr& p, const std::string& fn) {
  Calls c;
  c.visit_function(*p->find(fn));
  return c;
}

std::vector<int64_t> dims(const TypePtr& t) {
  std::vector<int64_t> out;
  for (const auto& d : as_shaped(t)->shape) out.push_back(const_int_value(d).value_or(-1));
  return out;
}

parser::FrontendOptions entry(const std::string& e) {
  parser::FrontendOptions o;
  o.entry = e;
  return o;
}

const char* kHead = "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n";

const char* kHost = R"(@pl.jit.incore
def step(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    t = pl.load(x, [0, 0], [1, 64])
    return pl.store(t, [0, 0], out)


@pl.jit
def chip(x: pl.Tensor, out: pl.Out[pl.Tensor], rank: pl.Scalar[pl.INT32]):
    return step(x, out)


@pl.jit.host
def host(xs: pl.Tensor[[2, 1, 64], pl.FP32], outs: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]]):
    for r in pl.range(2):
        chip(xs[r], outs[r], r, device=r)
)";

}  // namespace

TEST_CASE("a @pl.jit.host dispatches a chip @pl.jit per device; no other @pl.jit calls one", "[parser][calls][jit]") {
  auto p = parse(std::string(kHead) + kHost, entry("host"));
  REQUIRE(p->find("chip"));
  REQUIRE(p->find("step"));
  const auto& chip = *p->find("chip");
  CHECK(chip.type == FunctionType::Orchestration);
  CHECK(chip.level != Level::HOST);
  // The chip orchestrator's bare parameters are typed by the call: xs[r] drops the rank axis.
  CHECK(dims(chip.params[0]->type) == std::vector<int64_t>{1, 64});
  CHECK(chip.param_directions[1] == ParamDirection::Out);
  const Call* d = calls_of(p, "host").callee("chip");
  REQUIRE(d);
  REQUIRE(d->dispatch);
  CHECK(d->dispatch->device);
  CHECK(calls_of(p, "chip").callee("step"));
  // The chip entry alone is a program of it and its dependencies (its parameters need --arg then).
  auto alone = errors(std::string(kHead) + kHost, entry("chip"));
  REQUIRE_FALSE(alone.empty());
  CHECK(alone[0].code == "E103");

  // A plain @pl.jit calling another @pl.jit: E301 at the call.
  auto e = errors(std::string(kHead) + R"(@pl.jit
def other(a: pl.Tensor[[16], pl.FP32]):
    return a


@pl.jit
def top(a: pl.Tensor[[16], pl.FP32]):
    return other(a)
)", entry("top"));
  REQUIRE(e.size() == 1);
  CHECK(e[0].code == "E301");
  CHECK(e[0].span.line == 11);
  CHECK(e[0].message.find("only a @pl.jit.host calls other @pl.jit entries") != std::string::npos);

  // Nothing calls a @pl.jit.host, not even another host.
  e = errors(std::string(kHead) + kHost + R"(

@pl.jit.host
def host2(xs: pl.Tensor[[2, 1, 64], pl.FP32], outs: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]]):
    host(xs, outs)
)", entry("host2"));
  REQUIRE(e.size() == 1);
  CHECK(e[0].code == "E301");
  CHECK(e[0].message.find("@pl.jit.host entry") != std::string::npos);
}

TEST_CASE("gather_row takes its level from the destination; create_l1 is a tensor", "[parser][calls][ops]") {
  auto p = parse(std::string(kHead) + R"(@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, pool: pl.Tensor[[64, 32], pl.BF16], out: pl.Out[pl.Tensor[[16, 32], pl.BF16]]):
        acc = pl.tile.create([16, 32], dtype=pl.BF16, target_memory=pl.Mem.Mat)
        acc = pl.gather_row(acc, pool, [0, 0], [5, 0], [1, 32])
        kv = pl.create_l1([16, 32], pl.BF16)
        kv = pl.gather_row(kv, pool, [1, 0], [7, 0], [1, 32], valid_shape=[1, 16])
        return out
)");
  auto c = calls_of(p, "k");
  const Call* tile = c.op("tile.gather_row");
  REQUIRE(tile);
  CHECK(tile->args[1]->type->kind == TypeKind::Tensor);
  const Call* l1 = c.op("tensor.create_l1");
  REQUIRE(l1);
  CHECK(l1->type->kind == TypeKind::Tensor);
  CHECK(dims(l1->type) == std::vector<int64_t>{16, 32});
  const Call* tensor = c.op("tensor.gather_row");
  REQUIRE(tensor);
  CHECK(tensor->args.size() == 6);

  // Where the op wants one level throughout, mixing stays an error.
  auto e = errors(ptest::kernel("        t = pl.load(x, [0, 0], [64, 64])\n        y = pl.add(t, x)\n        return\n"));
  REQUIRE(e.size() == 1);
  CHECK(e[0].message == "pl.add() cannot mix Tensor and Tile operands");
}

TEST_CASE("gather / scatter in the reference's spellings", "[parser][calls][ops]") {
  auto p = parse(std::string(kHead) + R"(@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def o(self, x: pl.Tensor[[16, 64], pl.FP32], idx: pl.Tensor[[16, 8], pl.INT32], s: pl.Tensor[[16, 8], pl.FP32],
          h: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        g = pl.tensor.gather(x, -1, idx)
        g2 = pl.gather(x, idx, dim=-1)
        a = pl.scatter(x, -1, idx, s)
        m = pl.scatter(h, mask_pattern=pl.tile.MaskPattern.P1010, dst=x)
        return m

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        d = pl.load(x, [0, 0], [16, 64])
        h = pl.load(x, [0, 0], [16, 32])
        r = pl.scatter(h, mask_pattern=pl.tile.MaskPattern.P0101, dst=d)
        return pl.store(r, [0, 0], out)
)");
  auto o = calls_of(p, "o");
  int gathers = 0;
  for (const Call* c : o.all)
    if (c->is_op("tensor.gather")) {
      ++gathers;
      REQUIRE(c->args.size() == 2);
      CHECK(c->args[1]->type->kind == TypeKind::Tensor);  // the index, whichever place dim took
      REQUIRE(c->kwarg("dim"));
      CHECK(std::get<int64_t>(*c->kwarg("dim")) == -1);
    }
  CHECK(gathers == 2);
  const Call* sc = o.op("tensor.scatter");
  REQUIRE(sc);
  CHECK(sc->args.size() == 3);
  const Call* sm = o.op("tensor.scatter_mask");
  REQUIRE(sm);
  CHECK(dims(sm->args[1]->type) == std::vector<int64_t>{16, 64});  // (input, dst)
  CHECK(std::get<int64_t>(*sm->kwarg("mask_pattern")) == 2);
  const Call* tm = calls_of(p, "k").op("tile.scatter_mask");
  REQUIRE(tm);
  CHECK(dims(tm->args[0]->type) == std::vector<int64_t>{16, 64});  // the tile op takes (dst, src)
  CHECK(dims(tm->type) == std::vector<int64_t>{16, 64});

  auto err = [](const std::string& line) {
    return errors(ptest::kernel("        h = pl.load(x, [0, 0], [64, 32])\n" + line + "        return\n"));
  };
  auto e = err("        r = pl.tensor.scatter(x, mask_pattern=1, dim=-1, dst=x)\n");
  REQUIRE(e.size() == 1);
  CHECK(e[0].message.find("mutually exclusive") != std::string::npos);
  CHECK(e[0].span.line == 8);
  e = err("        r = pl.scatter(h, mask_pattern=1)\n");
  REQUIRE(e.size() == 1);
  CHECK(e[0].message == "pl.scatter() mask form requires both mask_pattern and dst");
  e = err("        d = pl.load(x, [0, 0], [64, 64])\n        r = pl.tile.scatter(d, h, mask_pattern=1)\n");
  REQUIRE(e.size() == 1);
  CHECK(e[0].message == "pl.tile.scatter() has no mask form");
  e = err("        r = pl.tensor.gather(x, -1, x, dim=-1)\n");
  REQUIRE(e.size() == 1);
  CHECK(e[0].message.find("multiple values for argument 'dim'") != std::string::npos);
}

TEST_CASE("a module-level if defines the DSL functions of the branch its constant condition takes",
          "[parser][calls][modules]") {
  const std::string src = std::string(kHead) + R"(WIDE = 0
N = 128 if WIDE == 1 else 32 if WIDE == 2 else 64

if WIDE == 1:
    @pl.jit.inline
    def row(x: pl.Tensor[[1, 128], pl.FP32]) -> pl.Tensor[[1, 128], pl.FP32]:
        return pl.exp(x)
elif WIDE == 2:
    @pl.jit.inline
    def row(x: pl.Tensor[[1, 32], pl.FP32]) -> pl.Tensor[[1, 32], pl.FP32]:
        return pl.exp(x)
else:
    # the narrow row
    @pl.jit.inline
    def row(x: pl.Tensor[[1, 64], pl.FP32]) -> pl.Tensor[[1, 64], pl.FP32]:
        return pl.exp(x)


@pl.jit
def top(a: pl.Tensor[[1, N], pl.FP32]):
    return row(a)
)";
  auto p = parse(src);
  REQUIRE(p->find("row"));
  CHECK(dims(p->find("row")->params[0]->type) == std::vector<int64_t>{1, 64});
  CHECK(p->find("row")->leading_comments == std::vector<std::string>{"the narrow row"});

  // -D WIDE=1 / WIDE=2 take the other branches.
  for (auto [v, n] : {std::pair{"1", 128}, std::pair{"2", 32}}) {
    parser::FrontendOptions o;
    o.defines = {{"WIDE", v}};
    auto q = parse(src, o);
    CHECK(dims(q->find("row")->params[0]->type) == std::vector<int64_t>{1, n});
  }

  // A condition the file cannot decide is a located error.
  auto bad = std::string(src).replace(src.find("WIDE = 0"), 8, "import sys\nWIDE = int(sys.argv[1])");
  auto e = errors(bad);
  REQUIRE_FALSE(e.empty());
  CHECK(e[0].code == "E202");
}

TEST_CASE("a scalar stands for an index list only in read / write", "[parser][calls][ops]") {
  auto p = parse(ptest::kernel("        w = pl.tensor.read(v, n)\n        return\n",
                               "v: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]"));
  auto c = calls_of(p, "k");
  REQUIRE(c.op("tensor.read"));
  CHECK(as<MakeTuple>(c.op("tensor.read")->args[1]));
  auto e = errors(std::string(kHead) + R"(@pl.program
class P:
    @pl.function
    def k(self, data: pld.DistributedTensor[[64], pl.FP32], peer: pl.Scalar[pl.INT32]) -> pl.Tensor[[64], pl.FP32]:
        t = pld.tile.remote_load(data, peer=peer, offsets=0, shape=[32])
        return data
)");
  REQUIRE(e.size() == 1);
  CHECK(e[0].message.find("'offsets'") != std::string::npos);
  CHECK(e[0].message.find("must be a list of indices") != std::string::npos);
  CHECK(e[0].span.line == 8);
}

TEST_CASE("rebinding a name with another shape: renamed in @pl.jit code, E201 in a @pl.function",
          "[parser][calls][rebinding]") {
  const std::string body = R"((x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
    t = pl.create_tensor([16, 16], dtype=pl.FP32)
    t = pl.create_tensor([4, 4], dtype=pl.FP32)
    return x
)";
  auto e = errors(std::string(kHead) + "@pl.function\ndef func" + body);
  REQUIRE(e.size() == 1);
  CHECK(e[0].code == "E201");
  CHECK(e[0].span.line == 7);
  CHECK(e[0].hint.find("outside @pl.jit code") != std::string::npos);
  CHECK(errors(std::string(kHead) + "@pl.jit\ndef func" + body).empty());
}

TEST_CASE("in a @pl.jit function self.k names the jit dependency k", "[parser][calls][jit]") {
  // The reference materialises the entry and its dependencies as one program whose methods they
  // are; the dead `if False:` call types k's bare parameters from its arguments.
  const std::string src = R"(import pypto.language as pl

@pl.jit.incore
def k(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    t = pl.load(x, [0, 0], [16, 16])
    out = pl.store(t, [0, 0], out)
    return out

@pl.jit
def top(x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    if False:
        spec = pl.create_tensor([16, 16], dtype=pl.FP32)
        k(x, spec)
    with pl.manual_scope():
        out, tid = pl.submit(self.k, x, out)
    out = self.k(x, out)
    return out
)";
  auto p = parse(src);
  REQUIRE(p->find("k"));
  const auto c = calls_of(p, "top");
  int to_k = 0;
  for (const Call* call : c.all) to_k += !call->op && call->callee == "k";
  CHECK(to_k == 3);  // the dead call, the submit and the direct call
  // Outside @pl.jit code, self.k must be a method of the program.
  auto e = errors(R"(import pypto.language as pl

@pl.function(type=pl.FunctionType.InCore)
def k(x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
    return x

@pl.function(type=pl.FunctionType.Orchestration)
def top(x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
    y = self.k(x)
    return y
)", [] {
    parser::FrontendOptions o;
    o.entry = "top";
    return o;
  }());
  bool e200 = false;
  for (const auto& d : e) e200 = e200 || (d.code == "E200" && d.message.find("'k' is not defined in program") != std::string::npos);
  CHECK(e200);
}

TEST_CASE("a callee's local bound once to a constant is that constant in the type it returns", "[parser][calls][jit]") {
  auto p = parse(R"(import pypto.language as pl

EPOCHS = 2

@pl.jit.inline
def make(x: pl.Tensor[[16, 16], pl.FP32]):
    rows = EPOCHS * 8
    t = pl.create_tensor([rows, 16], dtype=pl.FP32)
    t = pl.assemble(t, x, [0, 0])
    return t

@pl.jit
def top(x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    t = make(x)
    out = pl.assemble(out, t, [0, 0])
    return out
)");
  const auto c = calls_of(p, "top");
  const Call* call = c.callee("make");
  REQUIRE(call);
  const auto* tt = as_tensor(call->type);
  REQUIRE(tt);
  CHECK(const_int_value(tt->shape[0]) == 16);  // not the callee's `rows`
}
