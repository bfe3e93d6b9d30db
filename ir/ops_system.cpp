// The system op table (`system.*`): pipe barriers, explicit set_flag / wait_flag pairs, the
// all-core barrier and the orchestration's dependency-only task. The sync ops produce no value
// (their type is the empty tuple) and appear as expression statements.
#include <fmt/format.h>

#include "ir/op_deduce.h"

namespace pypto::ir {
namespace {

using namespace deduce;

void add(OpRegistry& r, OpRow row) { r.add(std::move(row).build()); }

TypePtr none(const Ctx&) { return void_type(); }

TypePtr sync(const Ctx& c) {
  for (const char* k : {"set_pipe", "wait_pipe"})
    if (!c.kw(k) || !std::holds_alternative<EnumLit>(*c.kw(k)))
      c.fail(std::string("missing ") + k, "write set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0");
  auto ev = c.kw_int("event_id");
  if (!ev || *ev < 0 || *ev > 7) c.fail("event_id must be an integer in 0..7");
  return void_type();
}

TypePtr syncall(const Ctx& c) {
  const auto* ct = c.kw("core_type");
  const auto* s = ct ? std::get_if<std::string>(ct) : nullptr;
  if (s && *s != "mix" && *s != "aiv_only" && *s != "aic_only")
    c.fail(fmt::format("core_type \"{}\" is not one of \"mix\", \"aiv_only\", \"aic_only\"", *s));
  const auto* m = c.kw("mode");
  const auto* ms = m ? std::get_if<std::string>(m) : nullptr;
  if (ms && *ms != "hard" && *ms != "soft") c.fail(fmt::format("mode \"{}\" is not \"hard\" or \"soft\"", *ms));
  if (ms && *ms == "soft" && !c.has(0))
    c.fail("a soft barrier needs a GM workspace", "write pl.system.syncall(workspace, used_cores, mode=\"soft\")");
  return void_type();
}

// (deps) → a TaskId: a dependency-only task that completes after every task in `deps` (TaskIds
// or TaskId arrays); `deps=` is required, as in the reference, so a fence never silently
// depends on nothing.
TypePtr task_dummy(const Ctx& c) {
  for (const auto& d : c.list(0)) {
    const auto* s = as_scalar(d->type);
    const bool task = (s && s->dtype == DataType::TASK_ID) || (as_array(d->type) && as_array(d->type)->dtype == DataType::TASK_ID);
    if (!task)
      c.fail(fmt::format("deps holds {}; it takes TaskIds (pl.submit results) and TaskId arrays", type_noun(d->type)),
             "write pl.system.task_dummy(deps=[tid, ...])");
  }
  return scalar_type(DataType::TASK_ID);
}

TypePtr invalid_task(const Ctx&) { return scalar_type(DataType::TASK_ID); }

TypePtr task_is_valid(const Ctx& c) {
  const auto* s = as_scalar(c.arg(0)->type);
  if (!s || s->dtype != DataType::TASK_ID)
    c.fail(fmt::format("operand {} is {}; it takes a TaskId", c.name(0), type_noun(c.arg(0)->type)));
  return scalar_type(DataType::BOOL);
}

TypePtr core_count(const Ctx&) { return scalar_type(DataType::INDEX); }

// Cross-core event flags: sync_set(event_id; pipe=) / sync_wait(event_id; pipe=); ids 0..13 (14 and
// 15 are reserved by the runtime), or a runtime INDEX scalar.
TypePtr cross_core_flag(const Ctx& c) {
  const auto* s = as_scalar(c.arg(0)->type);
  if (!s || !dtype_is_int(s->dtype)) c.fail(fmt::format("event_id {} must be an integer", c.name(0)));
  if (auto v = c.const_arg(0); v && (*v < 0 || *v > 13)) c.fail(fmt::format("event_id {} is outside 0..13", *v));
  if (!c.kw("pipe") || !std::holds_alternative<EnumLit>(*c.kw("pipe")))
    c.fail("missing pipe=", "write pipe=pl.PipeType.MTE3");
  const auto* ct = c.kw("core_type");
  const auto* cs = ct ? std::get_if<std::string>(ct) : nullptr;
  if (cs && *cs != "aic" && *cs != "aiv") c.fail(fmt::format("core_type \"{}\" is not \"aic\" or \"aiv\"", *cs));
  return void_type();
}

TypePtr set_ffts(const Ctx& c) {
  c.shaped(0);
  return void_type();
}

// cacheinvalid(): the whole GM; cacheinvalid(tensor, shapes, offsets): the line of one view.
TypePtr cacheinvalid(const Ctx& c) {
  if (!c.has(0)) return void_type();
  if (!c.has(2)) c.fail("the region form takes (tensor, shapes, offsets)", "write pl.system.cacheinvalid(x, [16, 16], [0, 0])");
  const auto& t = c.shaped(0);
  if (c.list(1).size() != t.shape.size() || c.list(2).size() != t.shape.size())
    c.fail(fmt::format("shapes and offsets need one entry per dimension of {} (rank {})", c.name(0), t.shape.size()));
  return void_type();
}

}  // namespace

void register_system_ops(OpRegistry& r) {
  add(r, OpRow("system.bar_v", {}, none).affinity(CoreAffinity::Vector));
  add(r, OpRow("system.bar_m", {}, none).affinity(CoreAffinity::Cube));
  add(r, OpRow("system.bar_all", {}, none));
  for (const char* n : {"system.sync_src", "system.sync_dst"})
    add(r, OpRow(n, {}, sync).kw("set_pipe", AttrKind::Enum, {}, "PipeType")
               .kw("wait_pipe", AttrKind::Enum, {}, "PipeType").kw("event_id", AttrKind::Int));
  const char* cross_core = "cube issue: cross-core synchronisation";
  const char* orchestration_side = "an orchestration-side op (manual dependencies, the task API)";
  add(r, OpRow("system.syncall", {tensor("gm_workspace", true), scalar("used_cores", true)}, syncall)
             .kw("core_type", AttrKind::String, std::string("mix")).kw("mode", AttrKind::String, std::string("hard"))
             .kernel_deferred(cross_core));
  add(r, OpRow("system.task_invalid", {}, invalid_task).affinity(CoreAffinity::Control).orchestration()
             .kernel_deferred(orchestration_side));
  add(r, OpRow("system.task_is_valid", {scalar("task_id")}, task_is_valid).affinity(CoreAffinity::Control)
             .orchestration().kernel_deferred(orchestration_side));
  for (const char* n : {"system.available_cluster_count", "system.available_aiv_count"})
    add(r, OpRow(n, {}, core_count).affinity(CoreAffinity::Control).kernel_deferred(orchestration_side));
  add(r, OpRow("system.fence", {}, none).kernel_deferred(cross_core));
  add(r, OpRow("system.task_dummy", {any("deps")}, task_dummy).affinity(CoreAffinity::Control).orchestration()
             .kernel_deferred(orchestration_side));
  add(r, OpRow("system.sync_set", {scalar("event_id")}, cross_core_flag).kw("pipe", AttrKind::Enum, {}, "PipeType")
             .kw("ffts_mode", AttrKind::Int).kw("core_type", AttrKind::String).kernel_deferred(cross_core));
  add(r, OpRow("system.sync_wait", {scalar("event_id")}, cross_core_flag).kw("pipe", AttrKind::Enum, {}, "PipeType")
             .kw("core_type", AttrKind::String).kernel_deferred(cross_core));
  add(r, OpRow("system.set_ffts", {tensor("workspace")}, set_ffts).kernel_deferred(cross_core));
  add(r, OpRow("system.cacheinvalid", {tensor("tensor", true), indices("shapes", true), indices("offsets", true)},
               cacheinvalid).kernel_deferred(cross_core));
}

}  // namespace pypto::ir
