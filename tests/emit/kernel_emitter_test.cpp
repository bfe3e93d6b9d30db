// Kernel emitter: post-pipeline DSL text (planned MemRefs) → InsertPipeSync → kernel .cpp. Checks
// the meaningful lines: Tile declarations with their TASSIGN addresses, the pto-isa call sequence
// with the syncs in order, the core fence, the kernel_entry ABI, naming, scalar code; and that what
// the emitter relies on is checked before it, its own copies being internal errors: ops without a
// kernel form (CheckKernelForms), the address agreements of tiles that are one buffer (the
// AllocatedMemoryAddr verifier rule, mutations of a planned kernel), attribute ranges (type rules).
#include <sstream>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "emit/c_names.h"
#include "emit/kernel_emitter.h"
#include "emit_test_util.h"
#include "ir/verifier.h"
#include "passes/insert_pipe_sync.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

using namespace emit_test;
using namespace pypto;

namespace {

ir::ProgramPtr parse_synced(const std::string& body) {
  ir::DiagnosticSink sink;
  const std::string text = "import pypto.language as pl\n\n@pl.program\nclass P:\n" + body;
  auto p = parser::parse_source(std::make_shared<ir::SourceFile>("kern.py", text), {}, sink);
  return passes::insert_pipe_sync(p);
}

std::string kernel_text(const std::string& body, const std::string& name, ir::Soc soc = ir::Soc::Ascend910B) {
  auto p = parse_synced(body);
  emit::EmitOptions o;
  o.soc = soc;
  return emit::emit_kernel(*p->find(name), o);
}

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

const char* kMatmul = R"(
    @pl.function(type=pl.FunctionType.AIC)
    def mm(self, a: pl.Tensor[[32, 32], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], b: pl.Tensor[[32, 32], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)], out: pl.Out[pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)]]) -> pl.Tensor[[32, 32], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Mat, size=4096)
        mem_left_5: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Left, size=2048)
        mem_right_6: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Right, size=2048)
        mem_acc_7: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Acc, size=4096)
        a_l1: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        b_l1: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_mat_3, pl.const(2048, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        a_l0a: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_left_5, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.move(a_l1, target_memory=pl.Mem.Left)
        b_l0b: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 2048), pl.Mem.Right] = pl.tile.move(b_l1, target_memory=pl.Mem.Right)
        c_acc: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(a_l0a, b_l0b)
        out_1: pl.Tensor[[32, 32], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 4096)] = pl.tile.store(c_acc, [0, 0], out)
        return out_1
)";

const std::vector<std::string> kOps = {"T", "set_flag", "wait_flag", "pipe_barrier"};

}  // namespace

TEST_CASE("vector kernel: layout, tiles at planned addresses, call sequence, entry ABI", "[emit]") {
  const std::string k = kernel_text(kScaledAdd, "scaled_add");
  INFO(k);
  // Banner, guards, includes, namespace, in this order.
  const auto banner = k.find("// Kernel Function: scaled_add");
  const auto inc = k.find("#include <pto/pto-inst.hpp>");
  const auto tensor = k.find("#include \"tensor.h\"");
  const auto ns = k.find("using namespace pto;");
  CHECK(banner == 0);
  CHECK(k.find("#define __aicore__ [aicore]") < inc);
  CHECK((inc < tensor && tensor < ns));
  // Compute function: tensors first, then scalars; vector fence and masks.
  CHECK(k.find("static __aicore__ void scaled_add(__gm__ float* x, __gm__ float* y, __gm__ float* z, float alpha) {\n"
               "#if defined(__DAV_VEC__)\n    set_mask_norm();\n    set_vector_mask(-1, -1);\n") != std::string::npos);
  CHECK(k.find("__DAV_CUBE__") == std::string::npos);
  // Tile type and declarations at the MemRef offsets.
  CHECK(k.find("using Vec_float_64x128 = Tile<TileType::Vec, float, 64, 128, BLayout::RowMajor, -1, -1, "
               "SLayout::NoneBox, 512, PadValue::Null, CompactMode::Null>;") != std::string::npos);
  CHECK(k.find("Vec_float_64x128 tx(64, 128); TASSIGN(tx, (uint64_t)0);") != std::string::npos);
  CHECK(k.find("Vec_float_64x128 ty(64, 128); TASSIGN(ty, (uint64_t)32768);") != std::string::npos);
  CHECK(k.find("Vec_float_64x128 tz(64, 128); TASSIGN(tz, (uint64_t)65536);") != std::string::npos);
  CHECK(k.find("GlobalTensor<float, pto::Shape<1, 1, 1, 64, 128>, pto::Stride<8192, 8192, 8192, 128, 1>, "
               "pto::Layout::ND>") != std::string::npos);
  // The instruction stream (syncs from InsertPipeSync, translated 1:1).
  const std::vector<std::string> expected = {
      "TLOAD(tx, tx_gm);",
      "TLOAD(ty, ty_gm);",
      "set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
      "wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
      "TMULS(tz, ty, alpha);",
      "pipe_barrier(PIPE_V);",
      "TADD(tz2, tx, tz);",
      "set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);",
      "wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);",
      "TSTORE(tz2_gm, tz2);",
      "pipe_barrier(PIPE_ALL);",
  };
  CHECK(lines_starting(k, kOps) == expected);
  CHECK(count_of(k, "set_flag(") == count_of(k, "wait_flag("));
  // One source comment per op with the DSL line.
  CHECK(k.find("// kern.py:13: tz: pl.Tile[[64, 128], pl.FP32") != std::string::npos);
  // Entry: tensors first as ChipTensor pointers, the scalar as a 64-bit pattern.
  CHECK(k.find("extern \"C\" __aicore__ __attribute__((always_inline)) void kernel_entry(__gm__ int64_t* args) {") != std::string::npos);
  CHECK(k.find("__gm__ ChipTensor* x_tensor = reinterpret_cast<__gm__ ChipTensor*>(args[0]);") != std::string::npos);
  CHECK(k.find("__gm__ float* z = reinterpret_cast<__gm__ float*>(z_tensor->buffer.addr) + z_tensor->start_offset;") != std::string::npos);
  CHECK(k.find("union { uint64_t u64; float val; } alpha_bits;") != std::string::npos);
  CHECK(k.find("alpha_bits.u64 = static_cast<uint64_t>(args[3]);") != std::string::npos);
  CHECK(k.find("scaled_add(x, y, z, alpha_bits.val);") != std::string::npos);
  CHECK(k.find("Tensor ") == std::string::npos);  // ChipTensor only
}

TEST_CASE("cube kernel: AIC fence, Mat/Left/Right/Acc tiles, Left layout per SoC", "[emit]") {
  const std::string k910 = kernel_text(kMatmul, "mm");
  INFO(k910);
  CHECK(k910.find("#if defined(__DAV_CUBE__)") != std::string::npos);
  CHECK(k910.find("set_mask_norm") == std::string::npos);
  CHECK(k910.find("Tile<TileType::Mat, half, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512,") != std::string::npos);
  CHECK(k910.find("Tile<TileType::Left, half, 32, 32, BLayout::RowMajor, -1, -1, SLayout::RowMajor, 512,") != std::string::npos);
  CHECK(k910.find("Tile<TileType::Right, half, 32, 32, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512,") != std::string::npos);
  CHECK(k910.find("Tile<TileType::Acc, float, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 1024,") != std::string::npos);
  CHECK(k910.find("TASSIGN(b_l1, (uint64_t)2048);") != std::string::npos);
  const std::vector<std::string> expected = {
      "TLOAD(a_l1, a_l1_gm);", "TLOAD(b_l1, b_l1_gm);",
      "set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);", "wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);",
      "TMOV(a_l0a, a_l1);", "TMOV(b_l0b, b_l1);",
      "set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);", "wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);",
      "TMATMUL(c_acc, a_l0a, b_l0b);",
      "set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);", "wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);",
      "TSTORE(c_acc_gm, c_acc);", "pipe_barrier(PIPE_ALL);"};
  CHECK(lines_starting(k910, kOps) == expected);
  const std::string k950 = kernel_text(kMatmul, "mm", ir::Soc::Ascend950);
  CHECK(k950.find("Tile<TileType::Left, half, 32, 32, BLayout::ColMajor, -1, -1, SLayout::RowMajor, 512,") != std::string::npos);
}

TEST_CASE("TCVT takes the round mode and no saturation operand; TCOLSUM with a tmp tile is the binary tree", "[emit]") {
  // As the reference's pto.tcvt / pto.tcolsum {isBinary} lower through PTOAS.
  const std::string k = kernel_text(R"(
    @pl.function(type=pl.FunctionType.AIV)
    def cv(self, x: pl.Tensor[[16, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 4096)], o: pl.Out[pl.Tensor[[16, 64], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)]], s: pl.Out[pl.Tensor[[1, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 256)]]) -> tuple[pl.Tensor[[16, 64], pl.FP16], pl.Tensor[[1, 64], pl.FP32]]:
        mem_vec_3: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=12544)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])
        h: pl.Tile[[16, 64], pl.FP16, pl.MemRef(mem_vec_3, pl.const(4096, pl.INT64), 2048), pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP16, mode="floor")
        tmp: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(6144, pl.INT64), 4096), pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32)
        c: pl.Tile[[1, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(12288, pl.INT64), 256), pl.Mem.Vec] = pl.tile.col_sum(t, tmp)
        o_1: pl.Tensor[[16, 64], pl.FP16, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 2048)] = pl.tile.store(h, [0, 0], o)
        s_1: pl.Tensor[[1, 64], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 256)] = pl.tile.store(c, [0, 0], s)
        return o_1, s_1
)", "cv");
  INFO(k);
  CHECK(k.find("TCVT(h, t, RoundMode::CAST_FLOOR);") != std::string::npos);
  CHECK(k.find("TCOLSUM(c, t, tmp, true);") != std::string::npos);
  CHECK(k.find("SaturationMode") == std::string::npos);
}

TEST_CASE("loops, scalar code with floor division, dynamic GM offsets", "[emit]") {
  const std::string k = kernel_text(R"(
    @pl.function(type=pl.FunctionType.AIV)
    def rows(self, x: pl.Tensor[[256, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 131072)], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[256, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 131072)]]) -> pl.Tensor[[256, 128], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=32768)
        for i, (o,) in pl.range(4, init_values=(out,)):
            r: pl.Scalar[pl.INDEX] = (i - n) // 2 * 64 + (i - n) % 2
            t: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.load(x, [r, 0], [16, 128])
            u: pl.Tile[[16, 128], pl.FP32, pl.MemRef(mem_vec_2, pl.const(8192, pl.INT64), 8192), pl.Mem.Vec] = pl.tile.exp(t)
            o_1: pl.Tensor[[256, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 131072)] = pl.tile.store(u, [r, 0], o)
            o_2 = pl.yield_(o_1)
        return o_2
)", "rows");
  INFO(k);
  CHECK(k.find("static inline __aicore__ int64_t pypto_floordiv(int64_t a, int64_t b)") != std::string::npos);
  CHECK(k.find("for (int64_t i = 0; i < 4; i += 1) {") != std::string::npos);
  CHECK(k.find("int64_t r = ((static_cast<int64_t>(pypto_floordiv((i - n), 2)) * 64) + "
               "static_cast<int64_t>(pypto_floormod((i - n), 2)));") != std::string::npos);
  CHECK(k.find("t_gm(x + (r * 128));") != std::string::npos);
  CHECK(k.find("u_gm(out + (r * 128));") != std::string::npos);  // the carried tensor stays `out`
  // Back-edge protocol around the loop (V reads t before the next TLOAD overwrites it).
  const auto lines = lines_starting(k.substr(k.find("static __aicore__ void rows")), {"for (", "}", "set_flag(PIPE_V, PIPE_MTE2", "wait_flag(PIPE_V, PIPE_MTE2"});
  const std::vector<std::string> expected = {
      "set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);", "for (int64_t i = 0; i < 4; i += 1) {",
      "wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);", "set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);", "}",
      "wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);"};
  CHECK(std::vector<std::string>(lines.begin(), lines.begin() + 6) == expected);
}

TEST_CASE("a source comment of a backslash-continued line does not end in a backslash", "[emit]") {
  // A // comment ending in '\\' continues onto the next line: the statement it annotates would vanish.
  const auto p = compile_program("topk_rows.py");
  const std::string k = emit::emit_kernel(*p->find("topk_block"), emit::EmitOptions{});
  INFO(k);
  CHECK(k.find("// topk_rows.py:30: vals[r : r + 1, :] =\n") != std::string::npos);
  std::istringstream in(k);
  for (std::string l; std::getline(in, l);) CHECK_FALSE((!l.empty() && l.back() == '\\'));
}

TEST_CASE("a scalar GM read goes through PYPTO_GM_LOAD, a plain index outside the CPU runtime", "[emit]") {
  const auto p = compile_program("e2e_gm_scalars.py");
  const std::string k = emit::emit_kernel(*p->find("scale_rows"), emit::EmitOptions{});
  INFO(k);
  CHECK(k.find("float s = PYPTO_GM_LOAD(w, (b) * 8 + 1);") != std::string::npos);
  // The prologue's fallback follows the runtime header, which defines the checked form.
  const auto inc = k.find("#include <pto/pto-inst.hpp>");
  const auto fallback = k.find("#ifndef PYPTO_GM_LOAD\n#define PYPTO_GM_LOAD(ptr, index) ((ptr)[index])\n#endif");
  CHECK((inc != std::string::npos && fallback != std::string::npos && inc < fallback));
}

TEST_CASE("identifiers: SSA suffixes dropped, reserved names avoided, clashes numbered", "[emit]") {
  CHECK(emit::sanitize_identifier("x__ssa_v0") == "x");
  CHECK(emit::sanitize_identifier("acc__iter_v1") == "acc");
  CHECK(emit::sanitize_identifier("set_flag") == "set_flag_v");
  CHECK(emit::sanitize_identifier("TADD") == "TADD_v");
  CHECK(emit::sanitize_identifier("int") == "int_v");
  CHECK(emit::sanitize_identifier("3d") == "v3d");
  CHECK(emit::sanitize_identifier("a.b-c") == "a_b_c");
  emit::NameTable t;
  auto v1 = ir::make_var("t__ssa_v0", ir::scalar_type(ir::DataType::INDEX));
  auto v2 = ir::make_var("t__ssa_v1", ir::scalar_type(ir::DataType::INDEX));
  auto v3 = ir::make_var("t", ir::scalar_type(ir::DataType::INDEX));
  CHECK(t.name(v1.get()) == "t");
  CHECK(t.name(v2.get()) == "t_1");
  CHECK(t.name(v3.get()) == "t_2");
  CHECK(t.name(v1.get()) == "t");
}

TEST_CASE("an op without a kernel form is CheckKernelForms' error at its line; in the emitter an internal error", "[emit]") {
  auto p = parse_synced(R"(
    @pl.function(type=pl.FunctionType.AIV)
    def sl(self, x: pl.Tensor[[64, 128], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 32768)], out: pl.Out[pl.Tensor[[32, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[32, 128], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=32768)
        t: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 128])
        pl.system.fence()
        out_1: pl.Tensor[[32, 128], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(t, [0, 0], out, [32, 128])
        return out_1
)");
  try {
    passes::PassContext ctx;
    passes::check_kernel_forms_pass().run(p, ctx);
    FAIL("expected a CompileError");
  } catch (const ir::CompileError& e) {
    const auto& d = e.diagnostics().at(0);
    CHECK(d.code == "E501");
    CHECK(d.message == "pl.system.fence is not supported yet in a kernel");
    CHECK(d.span.line == 10);  // the fence
  }
  try {
    emit::emit_kernel(*p->find("sl"), emit::EmitOptions{});
    FAIL("expected an InternalError");
  } catch (const ir::InternalError& e) {
    CHECK(e.stage() == "kernel emitter");
    CHECK(e.span().line == 10);
  }
}

TEST_CASE("generated kernels compile against the runtime's pto-isa headers", "[emit][compile]") {
  if (std::system("command -v c++ > /dev/null 2>&1") != 0) {
    WARN("no c++ compiler: skipping the compile check");
    return;
  }
  const char* kIf = R"(
    @pl.function(type=pl.FunctionType.AIV)
    def branchy(self, x: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 16384)], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)]]) -> pl.Tensor[[64, 64], pl.FP32]:
        mem_vec_2: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Vec, size=32768)
        for i, (o, m) in pl.range(4, init_values=(out, 0)):
            if i < n:
                t: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 64])
                u: pl.Tile[[64, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(16384, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.exp(t)
                v: pl.Scalar[pl.FP32] = pl.tile.read(u, [1, 2])
                o_1: pl.Tensor[[64, 64], pl.FP32, pl.MemRef("mem_ddr_1", pl.const(0, pl.INT64), 16384)] = pl.tile.store(u, [0, 0], o)
                o_2, m_2 = pl.yield_(o_1, m + 1)
            else:
                o_2, m_2 = pl.yield_(o, m - 1)
            o_3, m_3 = pl.yield_(o_2, m_2)
        return o_3
)";
  const std::string dir = std::string(PYPTO_TEST_WORK_DIR) + "/compile";
  std::filesystem::create_directories(dir);
  struct K { const char* body; const char* name; const char* core; };
  for (const K& k : {K{kScaledAdd, "scaled_add", "-D__DAV_VEC__"}, K{kMatmul, "mm", "-D__DAV_CUBE__"}, K{kIf, "branchy", "-D__DAV_VEC__"}}) {
    const std::string text = kernel_text(k.body, k.name);
    const std::string src = dir + "/" + k.name + ".cpp", log = dir + "/" + k.name + ".log";
    { std::ofstream(src) << text; }
    const std::string cmd = std::string("c++ -std=c++20 -fsyntax-only -Wall -Wno-unused-variable -Werror -D__CPU_SIM ") + k.core +
                            " -I" + PYPTO_SOURCE_DIR + "/runtime/include " + src + " > " + log + " 2>&1";
    INFO(text << "\n" << cmd << "\n" << read_file(log));
    CHECK(std::system(cmd.c_str()) == 0);
  }
}

namespace {

// One buffer in several names: a loop carry (z → acc → u → acc2), if results (w / e → r), views
// (r → v → v2) and an in-place assemble (v2 → a). t and h are buffers of their own.
const char* kAliases = R"(import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        h: pl.Tile[[8, 16], pl.FP32] = pl.load(x, [8, 0], [8, 16])
        z: pl.Tile[[16, 16], pl.FP32] = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
        for i, (acc,) in pl.range(4, init_values=(z,)):
            u: pl.Tile[[16, 16], pl.FP32] = pl.add(acc, t)
            acc2 = pl.yield_(u)
        if n > 0:
            w: pl.Tile[[16, 16], pl.FP32] = pl.mul(acc2, t)
            r = pl.yield_(w)
        else:
            e: pl.Tile[[16, 16], pl.FP32] = pl.sub(acc2, t)
            r = pl.yield_(e)
        v: pl.Tile[[8, 32], pl.FP32] = pl.tile.reshape(r, [8, 32])
        v2: pl.Tile[[16, 16], pl.FP32] = pl.tile.reshape(v, [16, 16])
        a: pl.Tile[[16, 16], pl.FP32] = pl.tile.assemble(v2, h, [0, 0])
        o2: pl.Tensor[[16, 16], pl.FP32] = pl.store(a, [0, 0], o)
        return o2
)";

// The tile Var bound under `name` (assignment targets, iter_args, loop / if results).
class FindTile : public ir::IRVisitor {
 public:
  explicit FindTile(std::string n) : name_(std::move(n)) {}
  const ir::Var* found = nullptr;

 protected:
  void take(const ir::Var& v) {
    if (!found && v.name == name_ && ir::as_tile(v.type)) found = &v;
  }
  void visit_assign(const ir::AssignStmt& s) override {
    take(*s.var);
    IRVisitor::visit_assign(s);
  }
  void visit_for(const ir::ForStmt& s) override {
    for (const auto& ia : s.iter_args) take(*ia);
    for (const auto& rv : s.return_vars) take(*rv);
    IRVisitor::visit_for(s);
  }
  void visit_if(const ir::IfStmt& s) override {
    for (const auto& rv : s.return_vars) take(*rv);
    IRVisitor::visit_if(s);
  }

 private:
  std::string name_;
};

// `f` with the tile `name` moved to Vec address 8192 (free, aligned, within capacity).
ir::FunctionPtr moved(const ir::FunctionPtr& f, const std::string& name) {
  FindTile find(name);
  find.visit_function(*f);
  REQUIRE(find.found);
  return passes::retype_vars(f, [&](const ir::Var& v) -> ir::TypePtr {
    if (&v != find.found) return nullptr;
    const auto& t = *ir::as_tile(v.type);
    ir::MemRef m = *t.memref;
    m.offset = ir::make_int(8192, {}, ir::DataType::INT64);
    return ir::with_memref(t, m);
  });
}

std::vector<ir::Diagnostic> address_findings(const ir::FunctionPtr& f) {
  ir::DiagnosticSink sink;
  ir::verify(*ir::make_program("P", {f}), {ir::Property::AllocatedMemoryAddr}, sink);
  return sink.take();
}

}  // namespace

TEST_CASE("tiles that are one buffer share an address: the verifier reports every mutation, the emitter's copy is internal",
          "[emit]") {
  const auto p = compile_text(kAliases, "alias.py");
  const ir::FunctionPtr k = p->find("k");
  REQUIRE(k);
  REQUIRE(address_findings(k).empty());
  CHECK_NOTHROW(emit::emit_kernel(*k, emit::EmitOptions{}));
  // Each name of the shared buffer, moved alone: the verifier reports it at its line; where the
  // emitter compares addresses itself (carries, if results, views, assemble) that copy is an
  // internal error. acc2 (a loop result) the emitter only declares: the verifier is the check.
  for (const auto& [name, emitter_compares] :
       std::vector<std::pair<std::string, bool>>{{"z", true}, {"acc", true}, {"u", true}, {"acc2", false}, {"w", true},
                                                 {"e", true}, {"r", true}, {"v", true}, {"v2", true}, {"a", true}}) {
    INFO("moved " << name);
    const auto g = moved(k, name);
    const auto found = address_findings(g);
    REQUIRE_FALSE(found.empty());
    CHECK(found[0].code == "AllocatedMemoryAddr");
    CHECK(found[0].message.find("must be one buffer with") != std::string::npos);
    CHECK(found[0].span.valid());
    if (!emitter_compares) continue;
    try {
      emit::emit_kernel(*g, emit::EmitOptions{});
      FAIL("the emitter wrote a kernel with " << name << " moved");
    } catch (const ir::InternalError& e) {
      CHECK(e.stage() == "kernel emitter");
      CHECK(std::string(e.what()).find("the AllocatedMemoryAddr verifier rule rejects it before emission") !=
            std::string::npos);
    }
  }
  // Buffers of their own may move.
  for (const std::string name : {"t", "h"}) {
    INFO("moved " << name);
    CHECK(address_findings(moved(k, name)).empty());
  }
}

TEST_CASE("attribute values the kernel emitter spells only in range are type errors at their line", "[emit]") {
  const std::string head =
      "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def k(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])\n";
  const std::string tail = "        return pl.store(t, [0, 0], o)\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=8)\n",
       "event_id must be an integer in 0..7"},
      {"        m = pl.tile.cmp(t, t, cmp_type=6)\n", "cmp_type 6 is not a comparison"},
      {"        c = pl.tile.cast(t, pl.FP16, mode=\"sideways\")\n", "unknown rounding mode"},
  };
  for (const auto& [line, what] : cases) {
    INFO(line);
    try {
      compile_text(head + line + tail, "attrs.py");
      FAIL("compiled");
    } catch (const ir::CompileError& e) {
      const auto& d = e.diagnostics().at(0);
      CHECK(d.code == "E302");
      CHECK(d.message.find(what) != std::string::npos);
      CHECK(d.span.line == 8);
    }
  }
}

TEST_CASE("pl.system.syncall: the hard form names its core type, the soft one views its GM workspace", "[emit]") {
  const char* body = R"(
    @pl.function(type=pl.FunctionType.AIV)
    def bar(self, ws: pl.Tensor[[16], pl.INT32, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 64)], n: pl.Scalar[pl.INT32]):
        pl.system.syncall(core_type="aiv_only")
        pl.system.syncall(mode="soft", core_type="aiv_only", gm_workspace=ws, used_cores=n)
        pl.system.syncall(mode="soft", core_type="aiv_only", gm_workspace=ws)
        return
)";
  const std::string k = kernel_text(body, "bar");
  INFO(k);
  const auto hard = k.find("pto::SYNCALL<pto::SyncCoreType::AIVOnly>();");
  const auto soft = k.find("pto::SYNCALL<pto::SyncAllMode::Soft, pto::SyncCoreType::AIVOnly>(syncall_ws_gm, n);");
  const auto derived = k.find("pto::SYNCALL<pto::SyncAllMode::Soft, pto::SyncCoreType::AIVOnly>(syncall_ws_gm_1, 0);");
  CHECK(hard != std::string::npos);
  CHECK(soft != std::string::npos);
  CHECK(derived != std::string::npos);
  CHECK(k.find("syncall_ws_gm(ws)") < soft);
  CHECK(hard < soft);
  CHECK(soft < derived);
}

TEST_CASE("a window of an Acc tile is the Acc tile's Tile at its origin's offset in that layout", "[emit]") {
  // w: rows n.. of c_acc; v: columns 16.. of w (a window of a window, placed from w's address).
  const std::string body = R"(
    @pl.function(type=pl.FunctionType.AIC)
    def mm(self, a: pl.Tensor[[32, 32], pl.FP16, pl.MemRef("mem_ddr_0", pl.const(0, pl.INT64), 2048)], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 1024)]]) -> pl.Tensor[[16, 16], pl.FP32]:
        mem_mat_3: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Mat, size=2048)
        mem_left_5: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Left, size=2048)
        mem_right_6: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Right, size=2048)
        mem_acc_7: pl.Ptr = pl.tile.alloc(memory_space=pl.Mem.Acc, size=4096)
        a_l1: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_mat_3, pl.const(0, pl.INT64), 2048), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        a_l0a: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_left_5, pl.const(0, pl.INT64), 2048), pl.Mem.Left] = pl.tile.move(a_l1, target_memory=pl.Mem.Left)
        b_l0b: pl.Tile[[32, 32], pl.FP16, pl.MemRef(mem_right_6, pl.const(0, pl.INT64), 2048), pl.Mem.Right] = pl.tile.move(a_l1, target_memory=pl.Mem.Right)
        c_acc: pl.Tile[[32, 32], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 4096), pl.Mem.Acc] = pl.tile.matmul(a_l0a, b_l0b)
        w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 4096), pl.Mem.Acc, pl.TileView(buffer_shape=[32, 32])] = pl.tile.slice(c_acc, [16, 32], [n, 0])
        v: pl.Tile[[16, 16], pl.FP32, pl.MemRef(mem_acc_7, pl.const(0, pl.INT64), 4096), pl.Mem.Acc, pl.TileView(buffer_shape=[32, 32])] = pl.tile.slice(w, [16, 16], [0, 16])
        out_1: pl.Tensor[[16, 16], pl.FP32, pl.MemRef("mem_ddr_2", pl.const(0, pl.INT64), 1024)] = pl.tile.store(v, [0, 0], out)
        return out_1
)";
  const std::string k = kernel_text(body, "mm");
  INFO(k);
  CHECK(k.find("Acc_float_32x32 w(16, 32); TASSIGN(w, (uint64_t)(0 + GetTileOffset<Acc_float_32x32>(n, 0) * 4));") !=
        std::string::npos);
  CHECK(k.find("Acc_float_32x32 v(16, 16); TASSIGN(v, (uint64_t)((0 + GetTileOffset<Acc_float_32x32>(n, 0) * 4) + "
               "GetTileOffset<Acc_float_32x32>(0, 16) * 4));") != std::string::npos);
  CHECK(k.find("TSTORE(v_gm, v);") != std::string::npos);
}
