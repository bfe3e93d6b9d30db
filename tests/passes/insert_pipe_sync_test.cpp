// InsertPipeSync and its static checker: kernels in post-memory-planning DSL text (MemRefs with
// planned offsets, tile.alloc), the pass's output checked by check_pipe_sync and by the positions
// of the inserted sync ops; hand-written faulty kernels checked to be rejected by the checker.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ir/op_registry.h"
#include "ir/printer.h"
#include "ir/visitor.h"
#include "parser/frontend.h"
#include "passes/insert_pipe_sync.h"
#include "passes/pipe_model.h"
#include "passes/pipeline.h"

using namespace pypto;

namespace {

ir::ProgramPtr parse(const std::string& text) {
  ir::DiagnosticSink sink;
  return parser::parse_source(std::make_shared<ir::SourceFile>("sync_test.py", text), {}, sink);
}

const ir::Function& kernel(const ir::ProgramPtr& p, const std::string& name) {
  auto f = p->find(name);
  REQUIRE(f);
  return *f;
}

std::string errors_of(const ir::Function& f) {
  std::string s;
  for (const auto& d : passes::check_pipe_sync(f))
    if (d.severity == ir::Severity::Error) s += d.span.to_string() + ": " + d.message + " (hint: " + d.hint + ")\n";
  return s;
}

// Compact trace of a body: one token per tile op / sync op, nested bodies in braces.
void trace(const ir::StmtPtr& body, std::vector<std::string>& out) {
  for (const auto& s : ir::flatten_body(body)) {
    if (const auto* f = ir::as<ir::ForStmt>(s)) {
      out.push_back("for{");
      trace(f->body, out);
      out.push_back("}");
      continue;
    }
    if (const auto* i = ir::as<ir::IfStmt>(s)) {
      out.push_back("if{");
      trace(i->then_body, out);
      out.push_back("}else{");
      if (i->else_body) trace(i->else_body, out);
      out.push_back("}");
      continue;
    }
    const auto sync = passes::PipeModel::sync_of(*s);
    if (sync.kind == passes::SyncKind::Set || sync.kind == passes::SyncKind::Wait) {
      out.push_back(std::string(sync.kind == passes::SyncKind::Set ? "set " : "wait ") +
                    std::string(passes::pipe_name(sync.src)) + ">" + std::string(passes::pipe_name(sync.dst)) + "#" +
                    std::to_string(sync.event));
      continue;
    }
    if (sync.kind == passes::SyncKind::BarrierV) {
      out.push_back("bar_v");
      continue;
    }
    const auto* c = passes::stmt_op_call(*s);
    if (c && c->op->name != "tile.alloc") out.push_back(std::string(c->op->short_name()));
  }
}

std::vector<std::string> trace_of(const ir::Function& f) {
  std::vector<std::string> out;
  trace(f.body, out);
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " | ") + x;
  return s;
}

const char* kHeader = R"(import pypto.language as pl

@pl.program
class P:
)";

}  // namespace

TEST_CASE("loop-carried accumulator: forward pair into the loop, back-edge WAR, checker clean", "[sync]") {
  auto p = parse(std::string(kHeader) + R"(
    @pl.function(type=pl.FunctionType.AIV)
    def acc(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], out: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=16384)
        acc0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])
        for k, (acc,) in pl.range(4, init_values=(acc0,)):
            t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(16384, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])
            nxt: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.add(acc, t)
            acc_final = pl.yield_(nxt)
        store: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(acc_final, [0, 0], out)
        return store
)");
  const auto& before = kernel(p, "acc");
  CHECK_FALSE(errors_of(before).empty());  // the unsynchronised kernel is flagged
  auto out = passes::insert_pipe_sync(p);
  const auto& f = kernel(out, "acc");
  INFO(ir::print_program(*out));
  CHECK(errors_of(f) == "");
  CHECK(join(trace_of(f)) ==
        "load | set MTE2>V#0 | wait MTE2>V#0 | set V>MTE2#0 | for{ | wait V>MTE2#0 | load | set MTE2>V#0 | "
        "wait MTE2>V#0 | add | bar_v | set V>MTE2#0 | } | wait V>MTE2#0 | set V>MTE3#0 | wait V>MTE3#0 | store");
}

namespace {
// z = x + alpha * y on one [64,128] FP32 block, UB offsets 0 / 32768 / 65536 (output-format.md §2.5).
const char* kScaledAdd = R"(
    @pl.function(type=pl.FunctionType.AIV)
    def scaled_add(self, x: pl.Tensor[[64, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 32768)], y: pl.Tensor[[64, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 32768)], alpha: pl.Scalar[pl.FP32], z: pl.Out[pl.Tensor[[64, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 32768)]]) -> pl.Tensor[[64, 128], pl.FP32]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=32768)
        mem_vec_4: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=32768)
        mem_vec_5: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=32768)
        tx: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 128])
        ty: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_4, pl.const(32768, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(y, [0, 0], [64, 128])
        tz: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_5, pl.const(65536, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.muls(ty, alpha)
        tz2: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_5, pl.const(65536, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.add(tx, tz)
        z_1: pl.Tensor[[64, 128], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 32768)] = pl.tile.store(tz2, [0, 0], z)
        return z_1
)";
}  // namespace

TEST_CASE("straight-line vector kernel: one MTE2->V pair after both loads, bar_v, V->MTE3", "[sync]") {
  auto p = parse(std::string(kHeader) + kScaledAdd);
  CHECK(errors_of(kernel(p, "scaled_add")).find("unsynchronised read-after-write") != std::string::npos);
  auto out = passes::insert_pipe_sync(p);
  const auto& f = kernel(out, "scaled_add");
  CHECK(errors_of(f) == "");
  CHECK(join(trace_of(f)) ==
        "load | load | set MTE2>V#0 | wait MTE2>V#0 | muls | bar_v | add | set V>MTE3#0 | wait V>MTE3#0 | store");
  // Idempotent: a kernel that already carries flags is left alone.
  CHECK(passes::insert_pipe_sync(out) == out);
}

TEST_CASE("GM store then load of the same tensor is ordered MTE3 -> MTE2; other tensors are not", "[sync]") {
  auto p = parse(std::string(kHeader) + R"(
    @pl.function(type=pl.FunctionType.AIV)
    def roundtrip(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], out: pl.InOut[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=16384)
        mem_vec_3: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=16384)
        a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])
        out_1: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(a, [0, 0], out)
        b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(16384, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(out_1, [0, 0], [64, 64])
        c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(16384, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])
        out_2: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(c, [0, 0], out_1)
        return out_2
)");
  auto out = passes::insert_pipe_sync(p);
  const auto& f = kernel(out, "roundtrip");
  CHECK(errors_of(f) == "");
  // a: MTE2 -> MTE3 (tile RAW); store -> load of `out` (GM RAW) MTE3 -> MTE2; the loads of b and c
  // hit the same UB bytes on one pipe (in order); c -> store MTE2 -> MTE3.
  CHECK(join(trace_of(f)) ==
        "load | set MTE2>MTE3#0 | wait MTE2>MTE3#0 | store | set MTE3>MTE2#0 | wait MTE3>MTE2#0 | load | load | "
        "set MTE2>MTE3#0 | wait MTE2>MTE3#0 | store");
}

TEST_CASE("cube kernel: MTE2->MTE1, MTE1->M, M->FIX", "[sync]") {
  auto p = parse(std::string(kHeader) + R"(
    @pl.function(type=pl.FunctionType.AIC)
    def mm(self, a: pl.Tensor[[32, 32], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], b: pl.Tensor[[32, 32], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)], out: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Mat, size=2048)
        mem_mat_4: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Mat, size=2048)
        mem_left_5: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Left, size=2048)
        mem_right_6: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Right, size=2048)
        mem_acc_7: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Acc, size=4096)
        a_l1: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        b_l1: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_mat_4, pl.const(2048, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        a_l0a: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_left_5, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.move(a_l1, target_memory=pl.Mem.Left)
        b_l0b: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 2048), pl.Mem.Right] = pl.tile.move(b_l1, target_memory=pl.Mem.Right)
        c_acc: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(a_l0a, b_l0b)
        out_1: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(c_acc, [0, 0], out)
        return out_1
)");
  auto out = passes::insert_pipe_sync(p);
  const auto& f = kernel(out, "mm");
  CHECK(errors_of(f) == "");
  CHECK(join(trace_of(f)) ==
        "load | load | set MTE2>MTE1#0 | wait MTE2>MTE1#0 | move | move | set MTE1>M#0 | wait MTE1>M#0 | matmul | "
        "set M>FIX#0 | wait M>FIX#0 | store");
}

TEST_CASE("buffer reused inside an if in a loop: back-edge pairs around the if only for real cross-iteration hazards", "[sync]") {
  auto p = parse(std::string(kHeader) + R"(
    @pl.function(type=pl.FunctionType.AIV)
    def cond(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=32768)
        for i, (o,) in pl.range(4, init_values=(out,)):
            if i < n:
                t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])
                u: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(16384, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.exp(t)
                o_1: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(u, [0, 0], o)
                o_2 = pl.yield_(o_1)
            else:
                o_2 = pl.yield_(o)
            o_3 = pl.yield_(o_2)
        return o_3
)");
  auto out = passes::insert_pipe_sync(p);
  const auto& f = kernel(out, "cond");
  INFO(ir::print_program(*out));
  CHECK(errors_of(f) == "");
  CHECK(join(trace_of(f)) ==
        "set V>MTE2#0 | set MTE3>V#0 | for{ | wait V>MTE2#0 | wait MTE3>V#0 | if{ | load | set MTE2>V#0 | "
        "wait MTE2>V#0 | exp | set V>MTE3#0 | wait V>MTE3#0 | store | }else{ | } | bar_v | set V>MTE2#0 | "
        "set MTE3>V#0 | } | wait V>MTE2#0 | wait MTE3>V#0");
}

TEST_CASE("overlapping live ranges of one pipe pair get distinct event ids", "[sync]") {
  // The back-edge V->MTE2 pair spans the loop; inside, the load into B after the add that
  // writes B needs another V->MTE2 pair.
  auto p = parse(std::string(kHeader) + R"(
    @pl.function(type=pl.FunctionType.AIV)
    def ids(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], out: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=32768)
        for i in pl.range(4):
            a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])
            b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(16384, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.exp(a)
            c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(16384, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])
            o: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(c, [0, 0], out)
        return out
)");
  auto out = passes::insert_pipe_sync(p);
  const auto& f = kernel(out, "ids");
  INFO(ir::print_program(*out));
  CHECK(errors_of(f) == "");
  const std::string t = join(trace_of(f));
  CHECK(t.find("set V>MTE2#0") != std::string::npos);
  CHECK(t.find("set V>MTE2#1") != std::string::npos);
}

TEST_CASE("checker: missing wait, wait without set, double set, unbalanced loop, missing sync", "[sync]") {
  auto check = [](const std::string& body) {
    auto p = parse(std::string(kHeader) + R"(
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], out: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=32768)
)" + body + "        return out\n");
    return errors_of(kernel(p, "k"));
  };
  const std::string load = "        a: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])\n";
  const std::string exp = "        b: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(16384, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.exp(a)\n";
  const std::string set = "        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n";
  const std::string wait = "        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n";

  CHECK(check(load + set + wait + exp) == "");
  CHECK(check(load + exp).find("unsynchronised read-after-write dependency: pl.tile.exp (line 10) on PIPE_V after pl.tile.load (line 9) on PIPE_MTE2") != std::string::npos);
  CHECK(check(load + set + exp).find("is never waited for") != std::string::npos);
  CHECK(check(load + wait + exp).find("without a matching set_flag") != std::string::npos);
  CHECK(check(load + set + set + wait + exp).find("while the same event is still set") != std::string::npos);
  // A set inside a loop waited once after it: the second iteration sets twice.
  const std::string loop = "        for i in pl.range(2):\n    " + load + "    " + set;
  CHECK(check(loop + wait + exp).find("while the same event is still set") != std::string::npos);
  // The wrong pair does not order the dependency.
  const std::string set_m = "        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)\n";
  const std::string wait_m = "        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)\n";
  CHECK(check(load + set_m + wait_m + exp).find("unsynchronised") != std::string::npos);
  // Two vector ops on the same bytes need a barrier.
  const std::string exp2 = "        c: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.exp(b)\n";
  CHECK(check(load + set + wait + exp + exp2).find("insert pipe_barrier(PIPE_V)") != std::string::npos);
  CHECK(check(load + set + wait + exp + "        pl.system.bar_v()\n" + exp2) == "");
}

TEST_CASE("checker: a kernel of more than 2048 instructions (the pair table kept sparse)", "[sync]") {
  auto check = [](bool barrier_before_last) {
    std::string body = std::string(kHeader) + R"(
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], out: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=32768)
        t0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
)";
    // A chain of vector ops ping-ponging between two buffers: each reads what the previous wrote.
    constexpr int kOps = 2100;
    for (int i = 1; i <= kOps; ++i) {
      if (i > 1 && (i < kOps || barrier_before_last)) body += "        pl.system.bar_v()\n";
      body += fmt::format("        t{}: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const({}, pl.INT64), 16384), "
                          "pl.Mem.Vec] = pl.tile.exp(t{})\n",
                          i, i % 2 ? 16384 : 0, i - 1);
    }
    return errors_of(kernel(parse(body + "        return out\n"), "k"));
  };
  CHECK(check(true) == "");
  const std::string missing = check(false);
  CHECK(missing.find("unsynchronised read-after-write dependency") != std::string::npos);
  CHECK(missing.find("insert pipe_barrier(PIPE_V)") != std::string::npos);
}

TEST_CASE("InsertPipeSync pass contract", "[sync]") {
  const auto pass = passes::insert_pipe_sync_pass();
  CHECK(pass.name == "InsertPipeSync");
  CHECK(pass.properties.required.contains(ir::Property::AllocatedMemoryAddr));
  CHECK(pass.properties.produced.contains(ir::Property::PipeSyncInserted));
  // In the default pipeline after address allocation and the two optimisations the reference runs
  // right after it (FoldNoOpReshape drops a kernel instruction: before the flags are placed).
  const auto names = passes::pass_names();
  auto it = std::find(names.begin(), names.end(), "InsertPipeSync");
  REQUIRE(it != names.end());
  REQUIRE(it - names.begin() >= 3);
  CHECK(*(it - 1) == "FuseCreateAssembleToSlice");
  CHECK(*(it - 2) == "FoldNoOpReshape");
  CHECK(*(it - 3) == "AllocateMemoryAddr");
}

TEST_CASE("whole pipeline: every kernel of the end-to-end programs is synchronised and checks clean", "[sync]") {
  for (const char* name : {"e2e_elementwise.py", "e2e_softmax.py", "e2e_chain.py", "e2e_row_offset.py",
                           "e2e_square.py", "e2e_matmul.py"}) {
    INFO(name);
    ir::DiagnosticSink sink;
    auto p = parser::parse_file(std::string(PYPTO_TEST_PROGRAMS) + "/" + name, {}, sink);
    passes::PassContext ctx;
    auto out = passes::run_pipeline(p, ctx);
    int kernels = 0;
    for (const auto& f : out->functions) {
      if (f->type != ir::FunctionType::AIV && f->type != ir::FunctionType::AIC) continue;
      ++kernels;
      INFO(ir::print_program(*out));
      CHECK(errors_of(*f) == "");
      const std::string t = join(trace_of(*f));
      CHECK(t.find("set ") != std::string::npos);  // every kernel loads and stores: at least one flag pair
      // Balanced by construction: as many sets as waits in the text.
      size_t sets = 0, waits = 0;
      for (const auto& tok : trace_of(*f)) {
        sets += tok.rfind("set ", 0) == 0;
        waits += tok.rfind("wait ", 0) == 0;
      }
      CHECK(sets == waits);
    }
    CHECK(kernels > 0);
  }
}

namespace {

// Random kernels for the property test: loads, vector ops, scalar reads and stores over four
// 1 KiB UB slots (so that distinct tiles overlap as after memory reuse), GM loads from `x` and
// from `out` (store -> load through GM), nested loops and ifs.
class RandomKernel {
 public:
  RandomKernel(unsigned seed, int depth) : state_(seed * 2654435761u + 12345u), depth_(depth) {}

  std::string text() {
    std::string body;
    block(body, depth_, {}, 10);
    return std::string(kHeader) +
           "    @pl.function(type=pl.FunctionType.AIV)\n"
           "    def rnd(self, x: pl.Tensor[[16, 16], pl.FP32, pl.MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 1024)], "
           "n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef(\"mem_ddr_1\", pl.const(0, "
           "pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
           "        mem_vec_0: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=4096)\n" +
           body + "        return out\n";
  }

 private:
  unsigned next(unsigned n) {
    state_ = state_ * 1103515245u + 12345u;
    return (state_ >> 16) % n;
  }
  std::string tile_type() {
    return "pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_vec_0, pl.const(" + std::to_string(1024 * next(4)) +
           ", pl.INT64), 1024), pl.Mem.Vec]";
  }
  std::string fresh(const char* p) { return p + std::to_string(counter_++); }

  void block(std::string& out, int depth, std::vector<std::string> tiles, int len) {
    const std::string ind(8 + 4 * (depth_ - depth), ' ');
    const int n = 2 + len / 2 + static_cast<int>(next(static_cast<unsigned>(len)));
    for (int k = 0; k < n; ++k) {
      const unsigned what = next(10);
      if (what <= 2 || tiles.empty()) {
        const std::string t = fresh("t");
        out += ind + t + ": " + tile_type() + " = pl.tile.load(" + (next(3) == 0 ? "out" : "x") + ", [0, 0], [16, 16])\n";
        tiles.push_back(t);
      } else if (what <= 4) {
        const std::string t = fresh("u");
        out += ind + t + ": " + tile_type() + " = pl.tile.exp(" + tiles[next(tiles.size())] + ")\n";
        tiles.push_back(t);
      } else if (what == 5) {
        const std::string t = fresh("v");
        out += ind + t + ": " + tile_type() + " = pl.tile.add(" + tiles[next(tiles.size())] + ", " +
               tiles[next(tiles.size())] + ")\n";
        tiles.push_back(t);
      } else if (what == 6) {
        out += ind + fresh("o") + ": pl.Tensor[[16, 16], pl.FP32, pl.MemRef(\"mem_ddr_1\", pl.const(0, pl.INT64), 1024)] = "
               "pl.tile.store(" + tiles[next(tiles.size())] + ", [0, 0], out)\n";
      } else if (what == 7) {
        out += ind + fresh("s") + ": pl.Scalar[pl.FP32] = pl.tile.read(" + tiles[next(tiles.size())] + ", [0, 0])\n";
      } else if (what == 8 && depth > 0) {
        out += ind + "for " + fresh("i") + " in pl.range(3):\n";
        block(out, depth - 1, tiles, 5);
      } else if (what == 9 && depth > 0) {
        out += ind + "if n < " + std::to_string(next(5)) + ":\n";
        block(out, depth - 1, tiles, 4);
        out += ind + "else:\n";
        block(out, depth - 1, tiles, 4);
      } else {
        const std::string t = fresh("t");
        out += ind + t + ": " + tile_type() + " = pl.tile.load(x, [0, 0], [16, 16])\n";
        tiles.push_back(t);
      }
    }
  }

  unsigned state_;
  int depth_;
  int counter_ = 0;
};

// Removes the k-th pl.system.bar_v() (pre-order) of a body.
class BarDropper : public ir::IRMutator {
 public:
  explicit BarDropper(int k) : k_(k) {}
  bool dropped = false;

 protected:
  ir::StmtPtr mutate_seq(const std::shared_ptr<const ir::SeqStmts>& s) override {
    std::vector<ir::StmtPtr> out;
    bool changed = false;
    for (const auto& st : s->stmts) {
      if (passes::PipeModel::sync_of(*st).kind == passes::SyncKind::BarrierV && seen_++ == k_) {
        dropped = changed = true;
        continue;
      }
      auto m = mutate(st);
      changed = changed || m != st;
      out.push_back(m);
    }
    return changed ? ir::make_body(std::move(out), s->span) : s;
  }

 private:
  int k_, seen_ = 0;
};

}  // namespace

TEST_CASE("property: random kernels are clean after InsertPipeSync", "[sync][random]") {
  // depth 0: straight-line kernels; depth 2: loops and ifs nested twice.
  for (int depth : {0, 2}) {
    int flagged_before = 0, loops = 0, ifs = 0, bars = 0, bars_needed = 0;
    const unsigned seeds = depth == 0 ? 100 : 60;
    for (unsigned seed = 1; seed <= seeds; ++seed) {
      RandomKernel gen(seed, depth);
      const std::string text = gen.text();
      loops += text.find(" in pl.range(3):") != std::string::npos;
      ifs += text.find("if n < ") != std::string::npos;
      INFO("depth " << depth << " seed " << seed << "\n" << text);
      auto p = parse(text);
      if (!errors_of(kernel(p, "rnd")).empty()) ++flagged_before;
      auto out = passes::insert_pipe_sync(p);
      INFO(ir::print_program(*out));
      REQUIRE(errors_of(kernel(out, "rnd")) == "");
      // How many of the inserted barriers are necessary: dropping one must be detected.
      const auto& f = kernel(out, "rnd");
      for (int k = 0; depth == 0 || seed <= 30; ++k) {
        BarDropper drop(k);
        auto g = ir::with_body(f, drop.mutate(f.body));
        if (!drop.dropped) break;
        ++bars;
        bars_needed += !errors_of(*g).empty();
      }
    }
    INFO("depth " << depth << ": " << bars_needed << " of " << bars << " barriers needed");
    CHECK(flagged_before * 10 > static_cast<int>(seeds) * 8);  // the generator does produce hazards
    CHECK(bars > 40);
    if (depth == 0) {
      // Straight-line code: (almost) no redundant barrier. A later merge that moves a flag's set
      // can occasionally make an earlier barrier redundant.
      CHECK(bars_needed * 100 >= bars * 95);
    } else {
      CHECK(loops > 25);
      CHECK(ifs > 25);
      // Around loops the back-edge flags can make a barrier redundant (not exploited yet).
      WARN("nested kernels: " << bars_needed << " of " << bars << " barriers needed");
    }
  }
}

TEST_CASE("cube K loop: forward pairs into the loop stand in for its priming sets", "[sync]") {
  ir::DiagnosticSink sink;
  auto p = parser::parse_file(std::string(PYPTO_TEST_PROGRAMS) + "/e2e_matmul.py", {}, sink);
  passes::PassContext ctx;
  auto out = passes::run_pipeline(p, ctx);
  const ir::Function* k = nullptr;
  for (const auto& f : out->functions)
    if (f->type == ir::FunctionType::AIC) k = f.get();
  REQUIRE(k);
  INFO(ir::print_program(*out));
  CHECK(errors_of(*k) == "");
  const std::string t = join(trace_of(*k));
  // Before the loop: the sets after the first TMOV/TMATMUL are consumed by the loop-top waits
  // (no wait + re-prime pair in front of the loop).
  CHECK(t.find("matmul | set M>MTE1#0 | for{ | wait MTE1>MTE2#0 | wait M>MTE1#0 | load | load | set MTE2>MTE1#0 | "
               "wait MTE2>MTE1#0 | move | move | set MTE1>M#0 | set MTE1>MTE2#0 | wait MTE1>M#0 | matmul_acc | "
               "set M>MTE1#0 | }") != std::string::npos);
}
