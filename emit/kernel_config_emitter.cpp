// kernel_config.py writer (kernel_config_emitter.h); the fixed header is
// templates/kernel_config_header.py.in.
#include "emit/kernel_config_emitter.h"

#include <fmt/format.h>

#include "emit/kernel_emitter.h"
#include "ir/ir.h"

namespace pypto::emit {

using namespace ir;

namespace {

std::string_view param_dir(ParamDirection d) {
  switch (d) {
    case ParamDirection::In: return "_D.IN";
    case ParamDirection::Out: return "_D.OUT";
    case ParamDirection::InOut: return "_D.INOUT";
  }
  return "_D.IN";
}

std::string_view arg_dir(ArgDirection d) {
  switch (d) {
    case ArgDirection::input: return "_D.IN";
    case ArgDirection::output:
    case ArgDirection::output_existing: return "_D.OUT";
    case ArgDirection::inout:
    case ArgDirection::no_dep: return "_D.INOUT";
    case ArgDirection::scalar: break;
  }
  return "_D.IN";
}

}  // namespace

std::string emit_kernel_config(const Function& orch, const std::vector<KernelRef>& kernels, const ProjectNames& names,
                               const EmitOptions& opts) {
  std::vector<std::string> orch_sig;
  for (size_t i = 0; i < orch.params.size(); ++i)
    if (as_tensor(orch.params[i]->type)) orch_sig.emplace_back(param_dir(orch.param_directions[i]));
  bool any = !orch_sig.empty();
  for (const auto& k : kernels) any = any || !k.signature.empty();

  bool sdma = false;
  for (const auto& k : kernels) sdma = sdma || kernel_uses_sdma(*k.fn);
  std::string out = fill_template(load_template(opts, "kernel_config_header.py.in"),
                                  {{"import", any ? "\nfrom simpler.task_interface import ArgDirection as _D\n" : ""},
                                   {"sdma", sdma ? "\t\"enable_sdma\": True,\n" : ""}});
  out += fmt::format(
      "\nORCHESTRATION = {{\n\t\"source\": str(_ROOT_DIR / \"orchestration\" / \"{}.cpp\"),\n"
      "\t\"function_name\": \"aicpu_orchestration_entry\",\n\t\"signature\": [{}],\n}}\n",
      names.stem(orch), fmt::join(orch_sig, ", "));
  out += "\nKERNELS = [\n";
  for (const auto& k : kernels) {
    std::vector<std::string_view> sig;
    for (auto d : k.signature) sig.push_back(arg_dir(d));
    const std::string core = kernel_core_dir(*k.fn);
    out += fmt::format(
        "\t{{\"func_id\": {}, \"name\": \"{}\", \"source\": str(_ROOT_DIR / \"kernels\" / \"{}\" / \"{}.cpp\"), "
        "\"core_type\": \"{}\", \"signature\": [{}]}},\n",
        k.func_id, string_literal_body(k.fn->name), core, names.stem(*k.fn), core, fmt::join(sig, ", "));
  }
  out += "]\n";
  return out;
}

}  // namespace pypto::emit
