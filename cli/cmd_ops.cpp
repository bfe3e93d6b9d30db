// `pypto ops [--json] [--family F] [NAME...]`: every registered op, generated from the op registry
// and the emitters' per-op tables: signature, level (family), pipe, core affinity, its pto-isa
// spelling (tile ops) or orchestration spelling (tensor ops executed on handles), and its
// tensor ↔ tile counterpart. The README's coverage table is produced from this listing.
#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "emit/kernel_op_table.h"
#include "emit/orchestration_op_table.h"
#include "ir/op_registry.h"
#include "ir/printer.h"

namespace pypto::cli {

namespace {

// The backend spelling of an op: the pto-isa call of its kernel row, or the PTO2 API call of its
// orchestration row ("" when neither table has a row).
std::string spelling(const ir::OpDef& op) {
  if (const auto* k = emit::find_kernel_op(op)) {
    if (!k->call.empty()) return std::string(k->call);
    return "(" + std::string(op.pipe_rule == ir::PipeRule::NotInstruction ? "declaration" : "inline C++") + ")";
  }
  if (const auto* o = emit::find_orchestration_op(op)) return std::string(o->call);
  return "";
}

// Whether some back end writes the op: its own kernel or orchestration row, or (tensor ops) the
// row of the tile form a kernel uses instead.
bool emitted(const ir::OpDef& op) {
  if (emit::find_kernel_op(op) || emit::find_orchestration_op(op)) return true;
  return op.tile_op && op.lowering != ir::TileLowering::None && emit::find_kernel_op(*op.tile_op);
}

nlohmann::json to_json(const ir::OpDef& op) {
  nlohmann::json args = nlohmann::json::array(), kwargs = nlohmann::json::array();
  for (const auto& a : op.args)
    args.push_back({{"name", a.name}, {"kind", ir::arg_kind_name(a.kind)}, {"optional", a.optional},
                    {"scratch", a.scratch}});
  for (const auto& k : op.kwargs) {
    nlohmann::json j = {{"name", k.name}, {"kind", ir::attr_kind_name(k.kind)}};
    if (!k.enum_name.empty()) j["enum"] = k.enum_name;
    j["default"] = std::holds_alternative<std::monostate>(k.default_value) ? nlohmann::json(nullptr)
                                                                          : nlohmann::json(ir::print_attr(k.default_value));
    kwargs.push_back(std::move(j));
  }
  nlohmann::json j = {{"name", op.name},
                      {"family", op.family()},
                      {"signature", ir::op_signature(op)},
                      {"args", std::move(args)},
                      {"kwargs", std::move(kwargs)},
                      {"affinity", ir::affinity_name(op.affinity)},
                      {"pipe", ir::pipe_rule_text(op)},
                      {"spelling", spelling(op)},
                      {"emitted", emitted(op)},
                      {"interpreted", op.semantics != nullptr}};
  if (!op.scalar_form.empty()) j["scalar_form"] = op.scalar_form;
  if (!op.aliases.empty()) j["aliases"] = op.aliases;
  if (op.tile_op) j["tile_form"] = op.tile_op->name, j["lowering"] = ir::lowering_name(op.lowering);
  if (op.tensor_op) j["tensor_form"] = op.tensor_op->name;
  if (op.orchestration) j["orchestration"] = true;
  if (op.same_shapes) j["same_shapes"] = true;
  if (op.row_broadcast) j["broadcast_forms"] = {{"rows", op.row_broadcast->name}, {"cols", op.col_broadcast->name}};
  if (op.commutative) j["commutative"] = true;
  return j;
}

bool selected(const ir::OpDef& op, const OpsOptions& o) {
  if (!o.family.empty() && op.family() != o.family) return false;
  if (o.names.empty()) return true;
  for (const auto& n : o.names)
    if (op.name == n || "pl." + op.name == n) return true;
  return false;
}

}  // namespace

int cmd_ops(const OpsOptions& o) {
  std::vector<const ir::OpDef*> ops;
  for (const ir::OpDef* op : ir::OpRegistry::with_semantics().all())
    if (selected(*op, o)) ops.push_back(op);
  for (const auto& n : o.names) {
    bool found = false;
    for (const auto* op : ops) found |= op->name == n || "pl." + op->name == n;
    if (!found) {
      std::fputs(fmt::format("pypto ops: no op named '{}' (see `pypto ops` for the list)\n", n).c_str(), stderr);
      return kUsageError;
    }
  }
  if (o.summary) {
    // One markdown row per family: how much of it the back ends carry.
    std::vector<std::string> families;
    for (const auto* op : ops)
      if (std::find(families.begin(), families.end(), op->family()) == families.end()) families.emplace_back(op->family());
    std::fputs("| family | registered | kernel instruction (pto-isa) | no instruction | orchestration (PTO2) | tile form (tensor ops) | not emitted yet | interpreted (`pypto eval`) |\n"
               "|---|---|---|---|---|---|---|---|\n", stdout);
    for (const auto& fam : families) {
      int n = 0, instr = 0, none = 0, orch = 0, tile = 0, pending = 0, interp = 0;
      for (const auto* op : ops) {
        if (op->family() != fam) continue;
        ++n;
        const auto* k = emit::find_kernel_op(*op);
        const bool decl = op->pipe_rule == ir::PipeRule::NotInstruction;
        if (k && !decl) ++instr;
        if (k && decl) ++none;
        if (emit::find_orchestration_op(*op)) ++orch;
        if (op->tile_op && op->lowering != ir::TileLowering::None) ++tile;
        if (!emitted(*op) && op->lowering != ir::TileLowering::Scalar) ++pending;
        interp += op->semantics != nullptr;
      }
      std::fputs(fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", fam, n, instr, none, orch, tile, pending, interp).c_str(), stdout);
    }
    return kOk;
  }
  if (o.json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto* op : ops) all.push_back(to_json(*op));
    std::fputs((all.dump(1) + "\n").c_str(), stdout);
    return kOk;
  }
  std::fputs(fmt::format("{:<28} {:<8} {:<24} {:<18} {:<5} {}\n", "op", "core", "pipe", "spelling", "eval", "signature").c_str(), stdout);
  for (const auto* op : ops) {
    std::string pipe = ir::pipe_rule_text(*op);
    std::fputs(fmt::format("{:<28} {:<8} {:<24} {:<18} {:<5} {}\n", op->name, ir::affinity_name(op->affinity),
                           pipe.empty() ? "-" : pipe, spelling(*op).empty() ? "-" : spelling(*op),
                           op->semantics ? "yes" : "-", ir::op_signature(*op))
                   .c_str(),
               stdout);
  }
  std::fputs(fmt::format("{} ops\n", ops.size()).c_str(), stdout);
  return kOk;
}

}  // namespace pypto::cli
