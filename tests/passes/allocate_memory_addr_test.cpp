// AllocateMemoryAddr: bump addresses per space with 32-byte alignment, every space from 0,
// offsets as INT64 constants, empty functions, capacity overflow with the offending tile.
#include <map>

#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace pypto;

namespace {
ir::ProgramPtr plan(const std::string& text, ir::Soc soc = ir::Soc::Ascend910B) {
  auto p = pass_test::parse(text);
  p = pass_test::run(passes::init_memref_pass(), p, soc);
  return pass_test::run(passes::allocate_memory_addr_pass(), p, soc);
}
std::map<std::string, int64_t> offsets(const ir::ProgramPtr& p) {
  std::map<std::string, int64_t> out;
  for (const auto& s : ir::flatten_body(p->functions[0]->body))
    if (const auto* a = ir::as<ir::AssignStmt>(s))
      if (const auto* t = ir::as_tile(a->var->type); t && t->memref)
        out[a->var->name] = ir::const_int_value(t->memref->offset).value_or(-1);
  return out;
}
}  // namespace

TEST_CASE("addresses bump per space with 32-byte alignment", "[AllocateMemoryAddr]") {
  auto p = plan(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [64, 64])
        s: pl.Tile[[1, 8], pl.FP16, pl.Mem.Vec] = pl.create_tile([1, 8], pl.FP16)
        b: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.add(a, a)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.store(b, [0, 0], o)
        return o
)");
  auto off = offsets(p);
  CHECK(off["a"] == 0);
  CHECK(off["s"] == 16384);           // 16 bytes, rounded up to 32 for the next buffer
  CHECK(off["b"] == 16384 + 32);
  ir::DiagnosticSink sink;
  CHECK(ir::verify(*p, {ir::Property::AllocatedMemoryAddr}, sink));
}

TEST_CASE("every memory space starts at 0", "[AllocateMemoryAddr]") {
  auto p = plan(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        bm: pl.Tile[[16, 16], pl.FP16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        al: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left] = pl.move(am, target_memory=pl.Mem.Left)
        br: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.move(bm, target_memory=pl.Mem.Right)
        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.matmul(al, br)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.store(c, [0, 0], o)
        return o
)");
  auto off = offsets(p);
  CHECK(off["am"] == 0);
  CHECK(off["bm"] == 512);
  CHECK(off["al"] == 0);
  CHECK(off["br"] == 0);
  CHECK(off["c"] == 0);
}

TEST_CASE("a kernel without tiles is unchanged", "[AllocateMemoryAddr]") {
  auto before = pass_test::parse(R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        return o
)");
  auto p = pass_test::run(passes::init_memref_pass(), before);
  auto q = pass_test::run(passes::allocate_memory_addr_pass(), p);
  CHECK(q == p);
}

TEST_CASE("Vec overflow names the function, the space, the bytes and the tile", "[AllocateMemoryAddr]") {
  // 3 × 64 KiB = 192 KiB > 184 KiB on 910B; the third tile (line 11) crosses the limit.
  const std::string text = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def big(self, x: pl.Tensor[[128, 128], pl.FP32], o: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        a: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [128, 128])
        b: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [128, 128])
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.add(a, b)
        d: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.add(c, a)
        r: pl.Tensor[[128, 128], pl.FP32] = pl.store(d, [0, 0], o)
        return o
)";
  try {
    plan(text);
    FAIL("expected a capacity error");
  } catch (const ir::CompileError& e) {
    const auto& d = e.diagnostics().at(0);
    CHECK(d.message.find("Function 'big': Vec buffer usage (262144 bytes) exceeds platform limit (188416 bytes)") !=
          std::string::npos);
    CHECK(d.message.find("tile 'c'") != std::string::npos);
    CHECK(d.span.line == 10);
  }
  // 950 has 240 KiB of Vec: 256 KiB still overflows, but without memory reuse only.
  std::string err = pass_test::compile_error_of([&] { plan(text, ir::Soc::Ascend950); });
  CHECK(err.find("platform limit (245760 bytes)") != std::string::npos);
}

// Cross-core FIFO windows (mixed kernels): the consumer's reserve_buffer is placed first in its
// receive space, the popped tile lives there (no tile.alloc of its own), other buffers come after
// it, and the producer's import_peer_buffer gets the same base; an import of a name the peer never
// reserves is E602 at the import.
TEST_CASE("slot windows are placed first and their address reaches the peer's import", "[AllocateMemoryAddr]") {
  const std::string text = R"(
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        s: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="k_c2v_slot_buffer", peer_func="k_aiv")
        pl.system.aic_initialize_pipe(s, 0, dir_mask=1, slot_size=1024)
        return

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        s: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="k_c2v_slot_buffer", size=2048)
        pl.system.aiv_initialize_pipe(s, 0, dir_mask=1, slot_size=1024)
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(x, [0, 0], [16, 16])
        v: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic()
        u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.add(v, t)
        pl.system.tfree_to_aic(v)
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(u, [0, 0], o)
        return o2
)";
  auto p = plan(text);
  const std::string out = ir::print_program(*p);
  CHECK(out.find("pl.system.reserve_buffer(name=\"k_c2v_slot_buffer\", size=2048, base=0)") != std::string::npos);
  CHECK(out.find("pl.system.import_peer_buffer(name=\"k_c2v_slot_buffer\", peer_func=\"k_aiv\", base=0)") != std::string::npos);
  std::map<std::string, int64_t> at;
  for (const auto& s : ir::flatten_body(p->find("k_aiv")->body))
    if (const auto* a = ir::as<ir::AssignStmt>(s))
      if (const auto* t = ir::as_tile(a->var->type); t && t->memref)
        at[a->var->name] = ir::const_int_value(t->memref->offset).value_or(-1);
  CHECK(at.at("v") == 0);     // in the window
  CHECK(at.at("t") >= 2048);  // after it
  CHECK(at.at("u") >= 2048);

  std::string bad = text;
  bad.replace(bad.find("name=\"k_c2v_slot_buffer\", peer_func"), std::string("name=\"k_c2v_slot_buffer\"").size(),
              "name=\"other\"");
  const auto d = pass_test::first_diagnostic_of([&] { plan(bad); });
  CHECK(d.code == "E602");
  CHECK(d.message.find("'k_aiv' reserves no buffer of that name") != std::string::npos);
  CHECK(d.span.line == 8);
}
