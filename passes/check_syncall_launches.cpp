// CheckSyncallLaunches — the launch conditions of a hard pl.system.syncall, checked where the
// program states them. The hard (FFTS) barrier waits for every physical core of its participant
// set, so the pl.spmd launch of a kernel holding one must (1) fill those cores exactly — one block
// per core: the SoC's AIV cores for an AIV kernel's aiv_only barrier, its AIC cores for an AIC
// kernel's aic_only barrier, its clusters for a mixed kernel (Group) whatever the core type — and
// (2) say sync_start=True, or the device may start the blocks in waves. A barrier naming a core
// type its standalone kernel cannot have (the default "mix" in an AIV-only kernel) never
// completes. Each violation hangs the device (AICore timeout 507018), so it is an E904 error at
// the launch naming the kernel, the barrier's line and the fix. A width of
// pl.system.available_aiv_count() / available_cluster_count() fills its core type on any device;
// the other query is an error; other runtime widths are left to the CPU runtime's check. The soft
// form (mode="soft") and kernels called without pl.spmd are not checked. Changes nothing; runs
// after ExpandMixedKernel, where each kernel is AIV, AIC or a Group (the reference's
// HardSyncallOccupancy verifier).
#include <fmt/format.h>

#include <map>

#include "ir/op_registry.h"
#include "ir/visitor.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

const OpDef* op(std::string_view name) { return OpRegistry::instance().find(name); }

// Every call of a body, and every assignment's value by its variable.
struct Collector : IRVisitor {
  std::vector<const Call*> calls;
  std::map<const Var*, ExprPtr> defs;
  void visit_call(const Call& c) override {
    calls.push_back(&c);
    IRVisitor::visit_call(c);
  }
  void visit_assign(const AssignStmt& s) override {
    defs[s.var.get()] = s.value;
    IRVisitor::visit_assign(s);
  }
};

// The hard syncalls of a kernel's body.
std::vector<const Call*> hard_syncalls(const Function& f) {
  static const OpDef* syncall = op("system.syncall");
  Collector col;
  col.visit(f.body);
  std::vector<const Call*> out;
  for (const Call* c : col.calls)
    if (c->op == syncall && c->kwarg_string("mode") != "soft") out.push_back(c);
  return out;
}

// The barrier's participant set (the registry fills in the default, "mix").
std::string_view core_type_of(const Call& c) { return c.kwarg_string("core_type"); }

// What a launch width is: a literal, one of the two launch-shape queries, or unknown.
struct Width {
  std::optional<int64_t> literal;
  std::string query;  // "available_aiv_count" / "available_cluster_count"
};

Width width_of(const ExprPtr& e, const std::map<const Var*, ExprPtr>& defs) {
  ExprPtr x = e;
  for (int hops = 0; hops < 8; ++hops) {
    if (auto v = const_int_value(x)) return {v, {}};
    static const OpDef* aiv = op("system.available_aiv_count");
    static const OpDef* clusters = op("system.available_cluster_count");
    if (const auto* c = as<Call>(x); c && c->op) {
      if (c->op == aiv) return {{}, "available_aiv_count"};
      if (c->op == clusters) return {{}, "available_cluster_count"};
      return {};
    }
    const auto* v = as<Var>(x);
    auto it = v ? defs.find(v) : defs.end();
    if (it == defs.end()) return {};
    x = it->second;
  }
  return {};
}

void check_launch(const Call& call, const Program& p, const SocInfo& soc, const std::map<const Var*, ExprPtr>& defs) {
  const FunctionPtr k = p.find(call.callee);
  if (!k || !call.dispatch || !call.dispatch->core_num) return;
  std::vector<const Call*> bars;
  const bool group = k->type == FunctionType::Group;
  if (group) {
    if (auto m = mixed_group_members(p, *k)) {
      for (const Function* h : {m->aic, m->aiv})
        if (h)
          for (const Call* b : hard_syncalls(*h)) bars.push_back(b);
    }
  } else if (k->type == FunctionType::AIV || k->type == FunctionType::AIC) {
    bars = hard_syncalls(*k);
  }
  if (bars.empty()) return;
  const Call& bar = *bars.front();
  const std::string where = fmt::format("the hard pl.system.syncall(core_type=\"{}\") at line {} of '{}'",
                                        core_type_of(bar), bar.span.line, k->name);
  const char* soft_hint = "or use mode=\"soft\" with a GM workspace for a partial launch";
  int64_t cores = 0;
  std::string noun, unit, query, other;
  if (group) {
    cores = soc.aic_cores, noun = "core-groups (clusters of 1 AIC + 2 AIV)", unit = "core-group";
    query = "available_cluster_count", other = "available_aiv_count";
  } else {
    const bool aiv = k->type == FunctionType::AIV;
    for (const Call* b : bars) {
      const std::string_view ct = core_type_of(*b);
      if (ct != (aiv ? "aiv_only" : "aic_only"))
        throw CompileError(
            "E904", b->span,
            fmt::format("hard pl.system.syncall(core_type=\"{}\") can never complete in '{}', a standalone {} kernel: "
                        "the barrier waits for {} cores the launch does not run",
                        ct, k->name, aiv ? "AIV" : "AIC", ct == "mix" ? "both AIC and AIV" : aiv ? "AIC" : "AIV"),
            fmt::format("write core_type=\"{}\"", aiv ? "aiv_only" : "aic_only"));
    }
    cores = aiv ? soc.aiv_cores : soc.aic_cores, noun = aiv ? "AIV cores" : "AIC cores";
    unit = aiv ? "AIV core" : "AIC core";
    query = aiv ? "available_aiv_count" : "available_cluster_count";
    other = aiv ? "available_cluster_count" : "available_aiv_count";
  }
  const Width w = width_of(call.dispatch->core_num, defs);
  if (w.literal && *w.literal != cores)
    throw CompileError("E904", call.span,
                       fmt::format("this launch of '{}' runs {} blocks, but {} waits for all {} {} of the {}: the launch "
                                   "must fill all {} {} exactly, one block each, or the device hangs (507018)",
                                   k->name, *w.literal, where, cores, noun, soc.cli_name, cores, noun),
                       fmt::format("launch pl.spmd(pl.system.{}(), sync_start=True), {}", query, soft_hint));
  if (w.query == other)
    throw CompileError("E904", call.span,
                       fmt::format("this launch of '{}' is sized by pl.system.{}(), but {} needs one block per {}, "
                                   "which pl.system.{}() counts", k->name, other, where, unit, query),
                       fmt::format("launch pl.spmd(pl.system.{}(), sync_start=True)", query));
  if (!call.dispatch->sync_start)
    throw CompileError("E904", call.span,
                       fmt::format("this launch of '{}' lacks sync_start=True, which {} needs: without it the device "
                                   "may start the blocks in waves and the barrier never completes (507018)",
                                   k->name, where),
                       "add sync_start=True to the pl.spmd launch");
}

}  // namespace

Pass check_syncall_launches_pass() {
  return Pass{"CheckSyncallLaunches",
              "Checks each pl.spmd launch of a kernel holding a hard pl.system.syncall: it fills every core of the "
              "barrier's participant set and says sync_start=True (HardSyncallOccupancy); changes nothing.",
              {{Property::MixedKernelExpanded}, {}, {}},
              [](const ProgramPtr& p, PassContext& ctx) {
                const SocInfo& soc = soc_info(ctx.soc);
                for (const auto& f : p->functions) {
                  if (f->type != FunctionType::Orchestration) continue;
                  Collector col;
                  col.visit(f->body);
                  for (const Call* c : col.calls)
                    if (!c->op) check_launch(*c, *p, soc, col.defs);
                }
                return p;
              }};
}

}  // namespace pypto::passes
