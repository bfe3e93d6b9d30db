// Orchestration, kernel_config.py and program table of whole programs (front end + default
// pipeline): parameter binding, runtime scopes, tensor.create, add_* directions in callee order,
// func_ids in order of first submission (reused on a second call), loops with bound scalars; the
// program table's source facts (line maps of the generated C++, kernel files and parameters).
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <map>
#include <sstream>

#include "emit/kernel_config_emitter.h"
#include "emit/kernel_emitter.h"
#include "emit/kernel_table.h"
#include "emit/orchestration_emitter.h"
#include "emit/program_table_emitter.h"
#include "emit_test_util.h"

using namespace emit_test;
using namespace pypto;

namespace {

struct Emitted {
  ir::ProgramPtr program;
  std::string orch, config, table;
  std::map<std::string, std::string> kernel_text;  // by kernel name
};

Emitted emit_all(const ir::ProgramPtr& p) {
  Emitted e{p, {}, {}, {}, {}};
  const auto& orch = emit::entry_function(*p);
  const auto kernels = emit::kernel_table(*p, orch);
  e.orch = emit::emit_orchestration(*p, orch, kernels, emit::EmitOptions{});
  const emit::ProjectNames names(*p);
  e.config = emit::emit_kernel_config(orch, kernels, names, emit::EmitOptions{});
  for (const auto& k : kernels) e.kernel_text[k.fn->name] = emit::emit_kernel(*k.fn, emit::EmitOptions{});
  std::map<const ir::Function*, emit::GeneratedFile> files;
  for (const auto& k : kernels)
    files[k.fn] = emit::GeneratedFile{fmt::format("kernels/{}/{}.cpp", emit::kernel_core_dir(*k.fn), names.stem(*k.fn)),
                                      &e.kernel_text[k.fn->name]};
  const std::string orch_path = "orchestration/" + names.stem(orch) + ".cpp";
  e.table = emit::emit_program_table(orch, kernels, names, files, emit::GeneratedFile{orch_path, &e.orch});
  return e;
}

// Line `n` (from 1) of `text`.
std::string line_of(const std::string& text, uint32_t n) {
  std::istringstream in(text);
  std::string l;
  for (uint32_t i = 0; i < n && std::getline(in, l); ++i) {
  }
  return l;
}

// Two kernels whose names sort opposite to their first submission; `zeta` is called twice.
const char* kTwice = R"(import pypto.language as pl

@pl.program
class Twice:
    @pl.function(type=pl.FunctionType.InCore)
    def zeta(self, x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        t = pl.load(x, [0, 0], [64, 128])
        return pl.store(pl.mul(t, 2.0), [0, 0], out)

    @pl.function(type=pl.FunctionType.InCore)
    def alpha(self, x: pl.Tensor[[64, 128], pl.FP32], s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        t = pl.load(x, [0, 0], [64, 128])
        return pl.store(pl.adds(t, s), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 128], pl.FP32], s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        a = pl.create_tensor([64, 128], pl.FP32)
        a = self.zeta(x, a)
        b = pl.create_tensor([64, 128], pl.FP32)
        b = self.alpha(a, s, b)
        out = self.zeta(b, out)
        return out
)";

}  // namespace

TEST_CASE("orchestration of a two-task chain through an intermediate", "[emit]") {
  const auto e = emit_all(compile_program("e2e_chain.py"));
  INFO(e.orch);
  CHECK(e.orch.rfind("// Orchestration Function: chain\n", 0) == 0);
  CHECK(e.orch.find("#include \"pto_orchestration_api.h\"") != std::string::npos);
  CHECK(e.orch.find("extern \"C\" {") != std::string::npos);
  CHECK(e.orch.find("PTO2OrchestrationConfig{.expected_arg_count = 2}") != std::string::npos);
  CHECK(count_of(e.orch, "__attribute__((visibility(\"default\")))") == 2);
  const std::vector<std::string> expected = {
      "const ChipTensor& ext_x = orch_args.tensor(0).ref();",
      "const ChipTensor& ext_out = orch_args.tensor(1).ref();",
      "PTO2_SCOPE() {",
      "uint32_t tmp_ci_shapes[2] = {64, 128};",
      "TensorCreateInfo tmp_ci(tmp_ci_shapes, 2, DataType::FLOAT32);",
      "TaskOutputTensors alloc_0 = alloc_tensors(tmp_ci);",
      "const ChipTensor& tmp = alloc_0.get_ref(0);",
      "CoreTaskArgs params_t0;  // func 0: scale (AIV)",
      "params_t0.add_input(ext_x);",
      "params_t0.add_output(tmp);",
      "rt_submit_aiv_task(0, params_t0);",
      "CoreTaskArgs params_t1;  // func 1: shift (AIV)",
      "params_t1.add_input(tmp);",
      "params_t1.add_output(ext_out);",
      "rt_submit_aiv_task(1, params_t1);",
  };
  CHECK(lines_starting(e.orch, {"const ChipTensor", "PTO2_SCOPE", "uint32_t", "TensorCreateInfo", "TaskOutputTensors",
                                "CoreTaskArgs", "params_t", "rt_submit"}) == expected);

  // kernel_config.py: tab-indented, entries by func_id, directions of the first call.
  INFO(e.config);
  CHECK(e.config.rfind("# Kernel and Orchestration Configuration\n", 0) == 0);
  CHECK(e.config.find("from simpler.task_interface import ArgDirection as _D\n") != std::string::npos);
  CHECK(e.config.find("_ROOT_DIR = Path(__file__).parent\n") != std::string::npos);
  CHECK(e.config.find("RUNTIME_CONFIG = {\n\t\"runtime\": \"tensormap_and_ringbuffer\",\n\t\"aicpu_thread_num\": 0,\n}\n") !=
        std::string::npos);
  CHECK(e.config.find("ORCHESTRATION = {\n\t\"source\": str(_ROOT_DIR / \"orchestration\" / \"chain.cpp\"),\n"
                      "\t\"function_name\": \"aicpu_orchestration_entry\",\n\t\"signature\": [_D.IN, _D.OUT],\n}\n") !=
        std::string::npos);
  CHECK(e.config.find("KERNELS = [\n"
                      "\t{\"func_id\": 0, \"name\": \"scale\", \"source\": str(_ROOT_DIR / \"kernels\" / \"aiv\" / \"scale.cpp\"), "
                      "\"core_type\": \"aiv\", \"signature\": [_D.IN, _D.OUT]},\n"
                      "\t{\"func_id\": 1, \"name\": \"shift\", \"source\": str(_ROOT_DIR / \"kernels\" / \"aiv\" / \"shift.cpp\"), "
                      "\"core_type\": \"aiv\", \"signature\": [_D.IN, _D.OUT]},\n]\n") != std::string::npos);

  // Program table.
  INFO(e.table);
  CHECK(e.table.find("extern \"C\" void pypto_kernel_scale(int64_t* args);") != std::string::npos);
  CHECK(e.table.find("    {0, \"scale\", CoreType::AIV, &pypto_kernel_scale, \"kernels/aiv/scale.cpp\", \"e2e_chain.py\", 10, "
                     "kLines_scale, 3, kParams_scale, 2},\n"
                     "    {1, \"shift\", CoreType::AIV, &pypto_kernel_shift, \"kernels/aiv/shift.cpp\", \"e2e_chain.py\", 20, "
                     "kLines_shift, 3, kParams_shift, 2},") != std::string::npos);
  CHECK(e.table.find("const char* const kParams_scale[] = {\"x\", \"tmp\"};") != std::string::npos);
  CHECK(e.table.find("{\"x\", DataType::FLOAT32, 2, {64, 128, 0, 0, 0}, ParamDir::In},") != std::string::npos);
  CHECK(e.table.find("{\"out\", DataType::FLOAT32, 2, {64, 128, 0, 0, 0}, ParamDir::Out},") != std::string::npos);
  CHECK(e.table.find("extern const ProgramInfo kProgram = {\"chain\", kKernels, 2, kTensors, 2, nullptr, 0, "
                     "&aicpu_orchestration_config, &aicpu_orchestration_entry, \"orchestration/chain.cpp\", "
                     "kOrchestrationLines, 3};") != std::string::npos);
  // The line maps point at the source comments of the generated files: the three orchestration
  // statements (lines 34-36 of e2e_chain.py), the kernel's load and store lines.
  const auto orch_lines = emit::source_comments(e.orch);
  REQUIRE(orch_lines.size() == 3);
  for (const auto& c : orch_lines) {
    CHECK(c.file == "e2e_chain.py");
    CHECK(e.table.find(fmt::format("    {{{}, {}, \"e2e_chain.py\"}},", c.cpp_line, c.line)) != std::string::npos);
    CHECK(line_of(e.orch, c.cpp_line).find(fmt::format("// e2e_chain.py:{}: ", c.line)) != std::string::npos);
  }
  CHECK(orch_lines[1].line == 35);
  CHECK(line_of(e.orch, orch_lines[1].cpp_line + 4) == "        rt_submit_aiv_task(0, params_t0);");
  const auto scale_lines = emit::source_comments(e.kernel_text.at("scale"));
  REQUIRE(scale_lines.size() == 3);
  CHECK(scale_lines[0].line == 14);
  CHECK(line_of(e.kernel_text.at("scale"), scale_lines[0].cpp_line + 3) == "    TLOAD(t, t_gm);");
}

TEST_CASE("runtime-allocated outputs: add_output(TensorCreateInfo), the tensor from the submit's results", "[emit]") {
  // runtime_outputs.py leaves the trailing Out tensor of two calls to the runtime (the second one
  // a pl.submit with its TaskId): no alloc_tensors batch, the submit returns the allocation.
  const auto e = emit_all(compile_program("runtime_outputs.py"));
  INFO(e.orch);
  const std::vector<std::string> expected = {
      "const ChipTensor& ext_x = orch_args.tensor(0).ref();",
      "const ChipTensor& ext_out = orch_args.tensor(1).ref();",
      "PTO2_SCOPE() {",
      "CoreTaskArgs params_t0;  // func 0: scale (AIV)",
      "params_t0.add_input(ext_x);",
      "uint32_t y_ci_shapes[2] = {16, 64};",
      "TensorCreateInfo y_ci(y_ci_shapes, 2, DataType::FLOAT32);",
      "params_t0.add_output(y_ci);",
      "TaskOutputTensors params_t0_outs = rt_submit_aiv_task(0, params_t0);",
      "const ChipTensor& y = params_t0_outs.get_ref(0);",
      "CoreTaskArgs params_t1;  // func 0: scale (AIV)",
      "params_t1.add_input(y);",
      "uint32_t y_1_ci_shapes[2] = {16, 64};",
      "TensorCreateInfo y_1_ci(y_1_ci_shapes, 2, DataType::FLOAT32);",
      "params_t1.add_output(y_1_ci);",
      "TaskOutputTensors params_t1_outs = rt_submit_aiv_task(0, params_t1);",
      "const ChipTensor& y_1 = params_t1_outs.get_ref(0);",
      "CoreTaskArgs params_t2;  // func 1: add (AIV)",
      "params_t2.add_input(y);",
      "params_t2.add_input(y_1);",
      "params_t2.add_output(ext_out);",
      "rt_submit_aiv_task(1, params_t2);",
  };
  CHECK(lines_starting(e.orch, {"const ChipTensor", "PTO2_SCOPE", "uint32_t", "TensorCreateInfo", "TaskOutputTensors",
                                "CoreTaskArgs", "params_t", "rt_submit"}) == expected);
  CHECK(e.orch.find("alloc_tensors") == std::string::npos);
  CHECK(e.orch.find("const PTO2TaskId params_t1_id = params_t1_outs.task_id();") != std::string::npos);
}

TEST_CASE("--auto-deps: the producer keeps its TaskId, the consumer waits on it, covered inputs are NoDep", "[emit]") {
  const auto e = emit_all(compile_program("e2e_chain.py", ir::Soc::Ascend910B, /*auto_deps=*/true));
  INFO(e.orch);
  const std::vector<std::string> expected = {
      "uint32_t tmp_ci_shapes[2] = {64, 128};",
      "params_t0.add_no_dep(ext_x);",
      "params_t0.add_output(tmp);",
      "const PTO2TaskId params_t0_id = rt_submit_aiv_task(0, params_t0).task_id();",
      "params_t1.add_no_dep(tmp);",
      "params_t1.add_output(ext_out);",
      "PTO2TaskId params_t1_deps[1];",
      "uint32_t params_t1_ndeps = 0;",
      "params_t1_deps[params_t1_ndeps++] = params_t0_id;  // compiler edge",
      "params_t1.set_dependencies(params_t1_deps, params_t1_ndeps);",
      "rt_submit_aiv_task(1, params_t1);",
  };
  CHECK(lines_starting(e.orch, {"params_t", "const PTO2TaskId", "PTO2TaskId", "uint32_t", "rt_submit"}) == expected);
  // Off by default: the runtime tracks both tensors.
  const auto d = emit_all(compile_program("e2e_chain.py"));
  CHECK(d.orch.find("params_t1.add_input(tmp);") != std::string::npos);
  CHECK(d.orch.find("set_dependencies") == std::string::npos);
}

TEST_CASE("source comments of generated C++", "[emit]") {
  const std::string text =
      "// Kernel Function: k\n// Generated by pypto from a.py; do not edit.\n    // a.py:12: x = f(y)  # see b.py:3: no\n"
      "  TADD(a, b, c);\n// not:a comment\n    // dir.v2.py:7: return x\n// a.py:: x\n// :4: y\n";
  const auto c = emit::source_comments(text);
  REQUIRE(c.size() == 2);
  CHECK(c[0].cpp_line == 3);
  CHECK(c[0].file == "a.py");
  CHECK(c[0].line == 12);
  CHECK(c[1].cpp_line == 6);
  CHECK(c[1].file == "dir.v2.py");
  CHECK(c[1].line == 7);
}

TEST_CASE("orchestration loop: bound scalar, inout direction, one scope per body", "[emit]") {
  const auto e = emit_all(compile_program("e2e_row_offset.py"));
  INFO(e.orch);
  const std::vector<std::string> expected = {
      "PTO2_SCOPE() {",
      "for (int64_t i = 0; i < 4; i += 1) {",
      "PTO2_SCOPE() {",
      "int64_t r = (i * 64);",
      "CoreTaskArgs params_t0;  // func 0: scale_block (AIV)",
      "params_t0.add_input(ext_x);",
      "params_t0.add_inout(ext_out);",
      "params_t0.add_scalar(to_u64(static_cast<int64_t>(r)));",
      "rt_submit_aiv_task(0, params_t0);",
  };
  const std::string body = e.orch.substr(e.orch.find("aicpu_orchestration_entry"));
  CHECK(lines_starting(body, {"PTO2_SCOPE", "for (", "int64_t r", "CoreTaskArgs", "params_t", "rt_submit"}) == expected);
  CHECK(e.config.find("\"signature\": [_D.IN, _D.INOUT]}") != std::string::npos);
}

TEST_CASE("func_ids follow first submission, a second call reuses its id; scalars after tensors; batched allocs", "[emit]") {
  const auto e = emit_all(compile_text(kTwice, "twice.py"));
  INFO(e.orch);
  CHECK(lines_starting(e.orch, {"rt_submit"}) ==
        std::vector<std::string>{"rt_submit_aiv_task(0, params_t0);", "rt_submit_aiv_task(1, params_t1);",
                                 "rt_submit_aiv_task(0, params_t2);"});
  CHECK(e.orch.find("float s = from_u64<float>(orch_args.scalar(0));") != std::string::npos);
  // Both intermediates come from one batched allocation at the top of the scope.
  CHECK(lines_starting(e.orch, {"TaskOutputTensors", "const ChipTensor& a", "const ChipTensor& b"}) ==
        std::vector<std::string>{"TaskOutputTensors alloc_0 = alloc_tensors(a_ci, b_ci);",
                                 "const ChipTensor& a = alloc_0.get_ref(0);", "const ChipTensor& b = alloc_0.get_ref(1);"});
  CHECK(e.orch.find("alloc_tensors(") < e.orch.find("rt_submit"));
  CHECK(e.orch.find("PTO2OrchestrationConfig{.expected_arg_count = 3}") != std::string::npos);
  // alpha(a, s, b): tensors in callee order, then the scalar.
  CHECK(lines_starting(e.orch, {"params_t1."}) ==
        std::vector<std::string>{"params_t1.add_input(a);", "params_t1.add_output(b);",
                                 "params_t1.add_scalar(to_u64(static_cast<float>(s)));"});
  CHECK(e.config.find("{\"func_id\": 0, \"name\": \"zeta\"") < e.config.find("{\"func_id\": 1, \"name\": \"alpha\""));
  CHECK(e.table.find("{\"s\", DataType::FLOAT32},") != std::string::npos);
}

TEST_CASE("tensor views and element reads in orchestration code", "[emit]") {
  const auto e = emit_all(compile_text(R"(import pypto.language as pl

@pl.program
class Views:
    @pl.function(type=pl.FunctionType.InCore)
    def half(self, x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        t = pl.load(x, [0, 0], [64, 128])
        return pl.store(pl.mul(t, 0.5), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for i in pl.range(2):
            xs = pl.slice(x, [64, 128], [i * 64, 0])
            os = pl.slice(out, [64, 128], [i * 64, 0])
            os = self.half(xs, os)
        v = pl.tensor.read(x, [0, 1])
        return out
)",
                                       "views.py"));
  INFO(e.orch);
  const std::vector<std::string> expected = {
      "uint32_t xs_shapes[2] = {64, 128};",
      "uint32_t xs_offsets[2] = {static_cast<uint32_t>((i * 64)), 0};",
      "const ChipTensor xs = ext_x.view(xs_shapes, xs_offsets);",
      "uint32_t os_shapes[2] = {64, 128};",
      "uint32_t os_offsets[2] = {static_cast<uint32_t>((i * 64)), 0};",
      "const ChipTensor os = ext_out.view(os_shapes, os_offsets);",
      "params_t0.add_input(xs);",
      "params_t0.add_inout(os);",
      "uint32_t v_idx[2] = {0, 1};",
      "float v = get_tensor_data<float>(ext_x, 2, v_idx);",
  };
  CHECK(lines_starting(e.orch, {"uint32_t", "const ChipTensor xs", "const ChipTensor os", "params_t0.add", "float v"}) ==
        expected);
}

TEST_CASE("dynamic dimensions: kernel parameter from the tensor descriptor, orchestration from the scalar", "[emit]") {
  auto p = compile_program("dynamic_dims.py");
  const auto files = emit::render_project(*p, emit::EmitOptions{}, std::string(PYPTO_TEST_WORK_DIR) + "/dyn");
  const std::string& k = files.at("kernels/aiv/row_block.cpp");
  INFO(k);
  CHECK(k.find("static __aicore__ void row_block(__gm__ float* x, __gm__ float* out, int64_t r, int64_t M) {") !=
        std::string::npos);
  CHECK(k.find("int64_t M = static_cast<int64_t>(x_tensor->shapes[0]);") != std::string::npos);
  CHECK(k.find("row_block(x, out, r_bits.val, M);") != std::string::npos);
  CHECK(k.find("t_gm(x + (r * 128));") != std::string::npos);  // explicit strides: no M needed
  const std::string& o = files.at("orchestration/main.cpp");
  INFO(o);
  CHECK(o.find("int64_t M = from_u64<int64_t>(orch_args.scalar(0));") != std::string::npos);
  CHECK(o.find("for (int64_t i = 0; i < static_cast<int64_t>(pypto_floordiv(M, 32)); i += 1) {") != std::string::npos);
  CHECK(files.at("runner/program_table.cpp").find("{\"x\", DataType::FLOAT32, 2, {-1, 128, 0, 0, 0}, ParamDir::In, {\"M\", nullptr, nullptr, nullptr, nullptr}},") !=
        std::string::npos);
}

TEST_CASE("if in orchestration code: both arms submit, the result binds to the yielded handle", "[emit]") {
  const auto e = emit_all(compile_text(R"(import pypto.language as pl

@pl.program
class OrchIf:
    @pl.function(type=pl.FunctionType.InCore)
    def add1(self, x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        t = pl.load(x, [0, 0], [64, 128])
        return pl.store(pl.add(t, 1.0), [0, 0], out)

    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[64, 128], pl.FP32], s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        t = pl.load(x, [0, 0], [64, 128])
        return pl.store(pl.mul(t, s), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 128], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        if n > 2:
            out = self.add1(x, out)
        else:
            out = self.scale(x, 3.0, out)
        return out
)",
                                       "orch_if.py"));
  INFO(e.orch);
  CHECK(lines_starting(e.orch.substr(e.orch.find("aicpu_orchestration_entry")),
                       {"if (", "} else {", "rt_submit", "params_t1.add_scalar"}) ==
        std::vector<std::string>{"if ((n > 2)) {", "rt_submit_aiv_task(0, params_t0);", "} else {",
                                 "params_t1.add_scalar(to_u64(static_cast<float>(3.0f)));",
                                 "rt_submit_aiv_task(1, params_t1);"});
  CHECK(e.orch.find("int64_t n = from_u64<int64_t>(orch_args.scalar(0));") != std::string::npos);
}

TEST_CASE("if without else in orchestration code emits no empty else arm", "[emit]") {
  const auto e = emit_all(compile_text(R"(import pypto.language as pl

@pl.program
class OrchIfOnly:
    @pl.function(type=pl.FunctionType.InCore)
    def add1(self, x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        t = pl.load(x, [0, 0], [64, 128])
        return pl.store(pl.add(t, 1.0), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 128], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        if n > 2:
            out = self.add1(x, out)
        return out
)",
                                       "orch_if_only.py"));
  INFO(e.orch);
  CHECK(e.orch.find("if ((n > 2)) {") != std::string::npos);
  CHECK(e.orch.find("rt_submit_aiv_task(0, params_t0);") != std::string::npos);
  CHECK(e.orch.find("else") == std::string::npos);
}

TEST_CASE("valid shapes: a dynamic valid extent, a GM view with dynamic extent and stride, the pad on the type", "[emit]") {
  auto p = compile_program("ragged_rows.py");
  const auto files = emit::render_project(*p, emit::EmitOptions{}, std::string(PYPTO_TEST_WORK_DIR) + "/ragged");
  const std::string& k = files.at("kernels/aiv/block.cpp");
  INFO(k);
  // The loaded tile is declared with its runtime valid width; the view reads [16, vlen] with row stride L.
  CHECK(k.find("Vec_float_16x64 t(16, vlen);") != std::string::npos);
  CHECK(k.find("Gm_float_16xd t_gm(x + (c), pto::Shape<1, 1, 1, 16, -1>(1, 1, 1, 16, (vlen)), "
               "pto::Stride<1, 1, 1, -1, 1>(1, 1, 1, (L), 1));") != std::string::npos);
  CHECK(k.find("using Gm_float_16xd = GlobalTensor<float, pto::Shape<1, 1, 1, 16, -1>, pto::Stride<1, 1, 1, -1, 1>, "
               "pto::Layout::ND>;") != std::string::npos);
  // fillpad: the destination Tile type carries PadValue::Min, and is valid over its whole shape.
  CHECK(k.find("PadValue::Min, CompactMode::Null>;") != std::string::npos);
  CHECK(k.find("TFILLPAD(p, t);") != std::string::npos);
  CHECK(k.find("p(16, 64);") != std::string::npos);
  // The store writes the valid region of y.
  CHECK(k.find("y_gm(out + (c), pto::Shape<1, 1, 1, 16, -1>(1, 1, 1, 16, (vlen)),") != std::string::npos);
  CHECK(k.find("int64_t L = static_cast<int64_t>(x_tensor->shapes[1]);") != std::string::npos);
}

TEST_CASE("a prefetch task: an AIV kernel taking the SDMA workspace, kernel_config enables SDMA", "[emit]") {
  // prefetch_warm.py: warm_l2 makes a context and prefetches two flat [1024] views; scale does not.
  const auto e = emit_all(compile_program("prefetch_warm.py"));
  const std::string& k = e.kernel_text.at("warm_l2");
  INFO(k);
  CHECK(k.find("#include \"intrinsic.h\"") != std::string::npos);
  CHECK(k.find("static __aicore__ void warm_l2(__gm__ float* w_flat, __gm__ float* x_flat, __gm__ int8_t* "
               "pypto_sdma_workspace)") != std::string::npos);
  CHECK(k.find("pto::PrefetchAsyncContext ctx = pto::PrefetchAsyncContext(reinterpret_cast<__gm__ uint8_t*>("
               "pypto_sdma_workspace));") != std::string::npos);
  CHECK(k.find("pto::comm::AsyncEvent ev = TPREFETCH_ASYNC(ev_gm, ctx);") != std::string::npos);
  CHECK(k.find("pto::comm::AsyncSession s = ctx.session;") != std::string::npos);
  CHECK(k.find("const bool done = ev.Wait(s);") != std::string::npos);
  CHECK(k.find("__gm__ int8_t* pypto_sdma_workspace = reinterpret_cast<__gm__ int8_t*>(get_dma_workspace(args, "
               "DMA_WORKSPACE_SDMA));") != std::string::npos);
  CHECK(k.find("warm_l2(w_flat, x_flat, pypto_sdma_workspace);") != std::string::npos);
  CHECK(e.kernel_text.at("scale").find("sdma") == std::string::npos);
  CHECK(e.config.find("\t\"enable_sdma\": True,\n}") != std::string::npos);
  // Its sources are the task's inputs; the workspace is no task argument.
  CHECK(e.orch.find("workspace") == std::string::npos);
}
