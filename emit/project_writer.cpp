// Project assembly (project_writer.h); the directory itself is written by dir_writer.cpp.
#include "emit/project_writer.h"

#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "emit/file_names.h"
#include "emit/kernel_config_emitter.h"
#include "emit/kernel_emitter.h"
#include "emit/kernel_table.h"
#include "emit/ninja_emitter.h"
#include "emit/orchestration_emitter.h"
#include "emit/program_table_emitter.h"
#include "ir/diagnostic.h"
#include "ir/verifier.h"

namespace fs = std::filesystem;

namespace pypto::emit {

using namespace ir;

namespace {

std::string absolute_dir(const std::string& d) {
  std::error_code ec;
  fs::path p = fs::absolute(d, ec);
  if (ec) p = d;
  p = p.lexically_normal();
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// The .npy element type bin/run reads / writes for a tensor of `dt` (BF16 travels as float32).
std::string npy_descr(DataType dt) {
  switch (dt) {
    case DataType::FP32: case DataType::BF16: case DataType::FP8E4M3FN: case DataType::FP8E8M0: return "<f4";
    case DataType::FP16: return "<f2";
    case DataType::INT8: return "|i1";
    case DataType::INT16: return "<i2";
    case DataType::INT32: return "<i4";
    case DataType::INT64: case DataType::INDEX: return "<i8";
    case DataType::UINT8: return "|u1";
    case DataType::UINT16: return "<u2";
    case DataType::UINT32: return "<u4";
    case DataType::UINT64: return "<u8";
    case DataType::BOOL: return "|b1";
    default: return "?";
  }
}

// Markdown table of the entry's parameters: what bin/run reads, writes or takes as --scalar.
std::string parameter_table(const Function& orch) {
  std::string t = "| Parameter | Type | Direction | bin/run |\n|---|---|---|---|\n";
  for (size_t i = 0; i < orch.params.size(); ++i) {
    const Var& v = *orch.params[i];
    const ParamDirection dir = i < orch.param_directions.size() ? orch.param_directions[i] : ParamDirection::In;
    if (const auto* tt = as_tensor(v.type)) {
      std::vector<std::string> dims;
      for (const auto& d : tt->shape) {
        auto c = const_int_value(d);
        dims.push_back(c ? std::to_string(*c) : "?");
      }
      const std::string file = fmt::format("`{}.npy` ({})", v.name, npy_descr(tt->dtype));
      const std::string use = dir == ParamDirection::In    ? "read from `--inputs DIR/` " + file
                              : dir == ParamDirection::Out ? "written to `--outputs DIR/` " + file
                                                           : "read from `--inputs`, written to `--outputs`: " + file;
      t += fmt::format("| `{}` | {}[{}] | {} | {} |\n", v.name, dtype_name(tt->dtype), fmt::join(dims, ", "),
                       to_string(dir), use);
    } else if (const auto* st = as_scalar(v.type)) {
      t += fmt::format("| `{}` | Scalar {} | In | `--scalar {}=VALUE` |\n", v.name, dtype_name(st->dtype), v.name);
    }
  }
  return t;
}

}  // namespace

PropertySet emit_required_properties() {
  return {Property::TypeChecked,          Property::SSAForm,          Property::NoNestedCall,
          Property::SplitIncoreOrch,      Property::TileOpsOnly,      Property::TileMemoryInferred,
          Property::MixedKernelExpanded,  Property::ReturnParamsExplicit, Property::HasMemRefs,
          Property::AllocatedMemoryAddr,  Property::CallDirectionsResolved, Property::PipeSyncInserted,
          Property::RuntimeScopesMaterialized, Property::TensorAllocsPlanned, Property::IterArgCarryClassified};
}

std::map<std::string, std::string> render_project(const Program& p, const EmitOptions& opts, const std::string& out_dir) {
  DiagnosticSink sink;
  if (!verify(p, emit_required_properties(), sink, VerifyOptions{opts.soc})) {
    const auto& d = sink.diagnostics().front();
    throw InternalError("emit", fmt::format("the program does not satisfy {} ({}); run the full pass pipeline", d.code, d.message),
                        d.span);
  }
  const std::string out_abs = absolute_dir(out_dir);
  const Function& orch = entry_function(p);
  const auto table = kernel_table(p, orch);
  const ProjectNames names(p);
  std::map<std::string, std::string> files;
  std::vector<const Function*> kernels;
  for (const auto& f : p.functions) {
    if (f->type != FunctionType::AIV && f->type != FunctionType::AIC) {
      if (f->type == FunctionType::Group && mixed_group_members(p, *f)) continue;  // its halves are the kernels
      if (is_incore_like(f->type) || f->type == FunctionType::Group || f->type == FunctionType::Spmd)
        kernel_core_dir(*f);  // an InternalError: MixedKernelExpanded / CheckKernelForms leave none
      continue;
    }
    files[fmt::format("kernels/{}/{}.cpp", kernel_core_dir(*f), names.stem(*f))] = emit_kernel(*f, opts);
    kernels.push_back(f.get());
  }
  const std::string orch_path = fmt::format("orchestration/{}.cpp", names.stem(orch));
  files[orch_path] = emit_orchestration(p, orch, table, opts);
  files["kernel_config.py"] = emit_kernel_config(orch, table, names, opts);
  std::map<const Function*, GeneratedFile> kernel_files;
  for (const Function* f : kernels) {
    const std::string path = fmt::format("kernels/{}/{}.cpp", kernel_core_dir(*f), names.stem(*f));
    kernel_files[f] = GeneratedFile{path, &files.at(path)};
  }
  files["runner/program_table.cpp"] =
      emit_program_table(orch, table, names, kernel_files, GeneratedFile{orch_path, &files.at(orch_path)});
  auto build = emit_build_files(orch, kernels, names, opts, out_abs);
  files["build.ninja"] = std::move(build.build_ninja);
  files["compile_commands.json"] = std::move(build.compile_commands);
  const std::string source = orch.span.valid() ? fs::path(orch.span.filename()).filename().string() : p.name;
  files["README.md"] = fill_template(load_template(opts, "README.md.in"),
                                     {{"name", orch.name}, {"orch_file", names.stem(orch)}, {"source", source},
                                      {"parameters", parameter_table(orch)}});
  return files;
}

void write_project(const Program& p, const EmitOptions& opts, const std::string& out_dir) {
  write_files_atomically(render_project(p, opts, out_dir), out_dir);  // errors surface before touching the disk
}

}  // namespace pypto::emit
