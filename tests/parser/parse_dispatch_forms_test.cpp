// The dispatch forms of the front end and the IR that keeps what they say: pl.at options (split,
// slot count, deps, no_dep_args, dumps, `as tid`, allow_early_resolve, windowize), the pl.spmd
// for-form (Spmd around an InCore scope binding the block index) and with-form, pl.split_aiv
// regions (lane variable, aiv_shard taking the region's split), pl.submit / pl.spmd_submit,
// pl.no_dep, pl.dump_tag, the None TaskId and pl.Array TaskId arrays — and the located errors of
// their misuse.
#include <catch2/catch.hpp>

#include "parse_helpers.h"

using namespace pypto::ir;
using ptest::errors;
using ptest::parse;

namespace {

// A program with kernel `k(x, out)` and an orchestration `main(x, out)` whose body (8-space
// indented) starts on line 10.
std::string prog(const std::string& body, const std::string& deco = "type=pl.FunctionType.Orchestration") {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n"
         "    @pl.function(type=pl.FunctionType.InCore)\n"
         "    def k(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
         "        return pl.store(pl.load(x, [0, 0], [64, 64]), [0, 0], out)\n"
         "    @pl.function(" + deco + ")\n"
         "    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:\n" +
         body + "        return out\n";
}

std::vector<StmtPtr> main_body(const ProgramPtr& p) { return flatten_body(p->find("main")->body); }

// The first error's message and line ("" / 0 when the text parses).
std::pair<std::string, int> first_error(const std::string& text) {
  auto e = errors(text);
  if (e.empty()) return {"", 0};
  return {e[0].message, e[0].span.line};
}

}  // namespace

TEST_CASE("pl.at keeps every option; `as tid` binds a TaskId after the scope", "[parser][forms][scope]") {
  auto p = parse(prog(
      "        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)],\n"
      "                   name_hint=\"a\", no_dep_args=[x], dumps=[out], allow_early_resolve=True, windowize=True) as tid:\n"
      "            out = pl.add(x, x)\n"
      "        with pl.at(level=pl.Level.CORE_GROUP, deps=[tid, None], optimizations=[pl.split(pl.SplitMode.NONE)]):\n"
      "            out = pl.mul(out, x)\n"));
  auto b = main_body(p);
  REQUIRE(b.size() == 3);
  const auto* s0 = as<ScopeStmt>(b[0]);
  REQUIRE(s0);
  CHECK(s0->scope == ScopeKind::InCore);
  CHECK(s0->split == SplitMode::UP_DOWN);
  CHECK(s0->slot_num == 4);
  CHECK(s0->name_hint == "a");
  REQUIRE(s0->no_dep_args.size() == 1);
  CHECK(s0->no_dep_args[0] == p->find("main")->params[0]);
  REQUIRE(s0->dumps.size() == 1);
  CHECK(s0->allow_early_resolve);
  CHECK(s0->windowize);
  REQUIRE(s0->task_id);
  CHECK(as_scalar(s0->task_id->type)->dtype == DataType::TASK_ID);
  const auto* s1 = as<ScopeStmt>(b[1]);
  REQUIRE(s1->deps.size() == 1);  // None ("no producer") is dropped
  CHECK(s1->deps[0] == s0->task_id);
  CHECK(!s1->split);  // SplitMode.NONE is the "no split" spelling
}

TEST_CASE("pl.spmd: the for-form binds the block index in an inner InCore scope; the with-form captures a TaskId",
          "[parser][forms][spmd]") {
  auto p = parse(prog(
      "        for i in pl.spmd(4, name_hint=\"rows\", sync_start=True, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):\n"
      "            t = pl.load(x, [i * 16, 0], [16, 64])\n"
      "            out = pl.store(t, [i * 16, 0], out)\n"
      "        with pl.spmd(2) as grid:\n"
      "            out = self.k(x, out)\n"
      "        with pl.spmd(2):\n"
      "            b = pl.tile.get_block_idx()\n"
      "            out = pl.store(pl.load(x, [b, 0], [16, 64]), [b, 0], out)\n"));
  auto b = main_body(p);
  REQUIRE(b.size() == 4);
  const auto* spmd = as<ScopeStmt>(b[0]);
  REQUIRE(spmd);
  CHECK(spmd->scope == ScopeKind::Spmd);
  CHECK(const_int_value(spmd->core_num) == 4);
  CHECK(spmd->sync_start);
  CHECK(spmd->name_hint == "rows_spmd");
  const auto* inner = as<ScopeStmt>(spmd->body);
  REQUIRE(inner);
  CHECK(inner->scope == ScopeKind::InCore);
  CHECK(inner->name_hint == "rows");
  CHECK(inner->split == SplitMode::LEFT_RIGHT);  // the optimizations of the loop go to the kernel
  auto ib = flatten_body(inner->body);
  const auto* bind = as<AssignStmt>(ib.at(0));
  REQUIRE(bind);
  CHECK(bind->var->name == "i");
  CHECK(as<Call>(bind->value)->is_op("tile.get_block_idx"));
  const auto* grid = as<ScopeStmt>(b[1]);
  CHECK(grid->scope == ScopeKind::Spmd);
  CHECK(grid->task_id);
  CHECK(as<AssignStmt>(grid->body));  // a dispatch body is not wrapped
  const auto* wrapped = as<ScopeStmt>(b[2]);
  CHECK(as<ScopeStmt>(wrapped->body));  // a body reading the block index is outlined as one kernel
  CHECK(as<ScopeStmt>(wrapped->body)->scope == ScopeKind::InCore);
}

TEST_CASE("pl.split_aiv: a SplitAiv region with its lane variable; aiv_shard takes the region's split",
          "[parser][forms][split_aiv]") {
  auto p = parse(prog(
      "        for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n"
      "            t = pl.load(x, [0, 0], [64, 64])\n"
      "            h = pl.aiv_shard(t)\n"
      "            out = pl.store(h, [lane * 32, 0], out)\n"));
  auto b = main_body(p);
  const auto* incore = as<ScopeStmt>(b.at(0));  // in orchestration code the region is its own kernel
  REQUIRE(incore);
  CHECK(incore->scope == ScopeKind::InCore);
  const auto* region = as<ScopeStmt>(incore->body);
  REQUIRE(region);
  CHECK(region->scope == ScopeKind::SplitAiv);
  CHECK(region->split == SplitMode::UP_DOWN);
  auto rb = flatten_body(region->body);
  CHECK(as<Call>(as<AssignStmt>(rb.at(0))->value)->is_op("tile.get_subblock_idx"));
  const auto* shard = as<Call>(as<AssignStmt>(rb.at(2))->value);
  REQUIRE(shard->is_op("tile.aiv_shard"));
  CHECK(*std::get_if<int64_t>(shard->kwarg("split")) == 1);
}

TEST_CASE("pl.submit / pl.spmd_submit: a dispatch whose result ends with the producer TaskId", "[parser][forms][submit]") {
  auto p = parse(prog(
      "        with pl.manual_scope():\n"
      "            prev = None\n"
      "            a, t0 = pl.submit(self.k, x, out, deps=[prev], dumps=[x], allow_early_resolve=True)\n"
      "            tids = pl.array.create(2, pl.TASK_ID)\n"
      "            tids[0] = t0\n"
      "            res = pl.spmd_submit(self.k, x, a, core_num=8, sync_start=True, deps=[tids[0]])\n"
      "            out = res[0]\n"
      "        pl.dump_tag(x)\n"
      "        out = self.k(x, pl.no_dep(out))\n"));
  auto b = main_body(p);
  auto ms = flatten_body(as<ScopeStmt>(b.at(0))->body);
  CHECK(as<Call>(as<AssignStmt>(ms[0])->value)->is_op("system.task_invalid"));  // tid = None
  const auto* sub = as<Call>(as<AssignStmt>(ms[1])->value);
  REQUIRE(sub);
  REQUIRE(sub->dispatch);
  CHECK(sub->dispatch->submit);
  CHECK(!sub->dispatch->spmd);
  CHECK(sub->dispatch->deps.size() == 1);
  CHECK(sub->dispatch->dumps.size() == 1);
  CHECK(sub->dispatch->allow_early_resolve);
  const auto* tt = as_tuple(sub->type);
  REQUIRE(tt);
  REQUIRE(tt->elems.size() == 2);
  CHECK(as_scalar(tt->elems[1])->dtype == DataType::TASK_ID);
  const auto* arr = as<AssignStmt>(ms[4]);
  CHECK(as_array(arr->var->type));
  CHECK(as_array(arr->var->type)->extent == 2);
  CHECK(as<Call>(as<AssignStmt>(ms[5])->value)->is_op("array.update_element"));
  const auto* spmd = as<Call>(as<AssignStmt>(ms[6])->value);
  REQUIRE(spmd->dispatch);
  CHECK(spmd->dispatch->spmd);
  CHECK(const_int_value(spmd->dispatch->core_num) == 8);
  CHECK(spmd->dispatch->sync_start);
  CHECK(as<Call>(spmd->dispatch->deps.at(0))->is_op("array.get_element"));
  const auto* last = as<Call>(as<AssignStmt>(b.at(1))->value);
  REQUIRE(last->dispatch);
  CHECK(last->dispatch->no_dep_args == std::vector<int>{1});
  CHECK(last->dispatch->dumps.size() == 1);  // pl.dump_tag(x): x is dumped by the later call passing it
  CHECK(!last->dispatch->submit);
}

TEST_CASE("misused dispatch forms are located errors", "[parser][forms][errors]") {
  struct Case {
    std::string body, what;
    int line;
  };
  const std::vector<Case> cases = {
      {"        with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"has space\"):\n            out = pl.add(x, x)\n",
       "must be a valid non-keyword identifier", 10},
      {"        with pl.spmd(4):\n            out = pl.add(x, x)\n", "neither reads the per-block index", 10},
      {"        for i in pl.spmd(4, deps=[]):\n            out = pl.add(x, x)\n", "does not accept 'deps='", 10},
      {"        with pl.at(level=pl.Level.HOST, role=pl.Role.SubWorker):\n            pass\n",
       "Inline 'with pl.at(level>=HOST, role=pl.Role.SubWorker)' is not supported", 10},
      {"        with pl.scope():\n            out = self.k(x, out)\n", "requires @pl.function(auto_scope=False)", 10},
      {"        with pl.manual_scope():\n            with pl.manual_scope():\n                pass\n",
       "may not be nested inside another manual scope", 11},
      {"        with pl.cluster() as c:\n            pass\n", "the `as` clause only applies to", 10},
      {"        y = x\n        a, t = pl.submit(self.k, x, out, deps=[y])\n", "deps= entries must be a TaskId", 11},
      {"        pl.submit(self.k, x, out)\n", "must be assigned", 10},
      {"        a, t = pl.submit(self.k, x, out, core_num=4)\n", "does not accept keyword argument 'core_num'", 10},
      {"        for lane in pl.split_aiv(3, mode=pl.SplitMode.NONE):\n            pass\n", "requires n == 2", 10},
      {"        for lane in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n"
       "            h = pl.aiv_shard(pl.load(x, [0, 0], [64, 64]), split=1)\n",
       "takes the region's split", 11},
      {"        pl.dump_tag(ghost)\n", "is not defined", 10},
  };
  for (const auto& c : cases) {
    auto [msg, line] = first_error(prog(c.body, "type=pl.FunctionType.Orchestration"));
    INFO(c.body << "\n→ " << msg);
    CHECK(msg.find(c.what) != std::string::npos);
    CHECK(line == c.line);
  }
}

TEST_CASE("a callee's symbolic dimensions take the caller's extents", "[parser][forms][calls]") {
  const std::string head = R"(import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, 64], pl.FP32], b: pl.Tensor[[M, 64], pl.FP32]) -> pl.Tensor[[M, 64], pl.FP32]:
        return pl.add(a, b)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], b: pl.Tensor[[)";
  auto p = parse(head + "128, 64], pl.FP32]) -> pl.Tensor[[128, 64], pl.FP32]:\n"
                        "        c: pl.Tensor[[128, 64], pl.FP32] = self.k(a, b)\n        return c\n");
  const auto* c = as<AssignStmt>(main_body(p).at(0));
  CHECK(const_int_value(as_tensor(c->value->type)->shape[0]) == 128);
  auto [msg, line] = first_error(head + "127, 64], pl.FP32]) -> pl.Tensor[[128, 64], pl.FP32]:\n"
                                        "        c = self.k(a, b)\n        return c\n");
  CHECK(msg.find("argument 'b' of 'k' has M = 127 in dimension 0, but an earlier argument has M = 128") != std::string::npos);
  CHECK(line == 13);
}
