// The system op table (`system.*`): pipe barriers, explicit set_flag / wait_flag pairs, the
// all-core barrier, the orchestration's dependency-only task, and the set-up of the cross-core
// FIFO between the halves of a mixed kernel (pipe init, slot buffers, slot release). The sync ops
// produce no value (their type is the empty tuple) and appear as expression statements.
#include <fmt/format.h>

#include "ir/op_deduce.h"

namespace pypto::ir {
namespace {

using namespace deduce;

// A row is built by a chain of setters on a temporary (an lvalue reference to it by the end of
// the chain), which lives until the end of the full expression: it is moved from, not copied.
// add consumes the row: a named row passed here is empty afterwards.
void add(OpRegistry& r, OpRow&& row) { r.add(std::move(row).build()); }
void add(OpRegistry& r, OpRow& row) { add(r, std::move(row)); }

TypePtr none(const Ctx&) { return void_type(); }

TypePtr sync(const Ctx& c) {
  for (const char* k : {"set_pipe", "wait_pipe"})
    if (!c.kw(k) || !std::holds_alternative<EnumLit>(*c.kw(k)))
      c.fail(std::string("missing ") + k, "write set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0");
  auto ev = c.kw_int("event_id");
  if (!ev || *ev < 0 || *ev > 7) c.fail("event_id must be an integer in 0..7");
  return void_type();
}

// syncall([gm_workspace, used_cores]; core_type=, mode=): the all-core barrier. Hard (the FFTS
// form) takes no operands; soft polls a zero-initialised INT32 GM workspace of >= 16 elements (one
// 64-byte line) and counts `used_cores` participants (0 or absent: the launch's block count).
TypePtr syncall(const Ctx& c) {
  const auto* ct = c.kw("core_type");
  const auto* s = ct ? std::get_if<std::string>(ct) : nullptr;
  if (s && *s != "mix" && *s != "aiv_only" && *s != "aic_only")
    c.fail(fmt::format("core_type \"{}\" is not one of \"mix\", \"aiv_only\", \"aic_only\"", *s));
  const auto* m = c.kw("mode");
  const auto* ms = m ? std::get_if<std::string>(m) : nullptr;
  if (ms && *ms != "hard" && *ms != "soft") c.fail(fmt::format("mode \"{}\" is not \"hard\" or \"soft\"", *ms));
  const bool soft = ms && *ms == "soft";
  if (!soft && (c.has(0) || c.has(1)))
    c.fail("the hard barrier takes no operands (the FFTS hardware counts the cores)",
           "for a barrier over a GM workspace write pl.system.syncall(mode=\"soft\", gm_workspace=ws, used_cores=N)");
  if (soft && !c.has(0))
    c.fail("a soft barrier needs a GM workspace", "write pl.system.syncall(mode=\"soft\", gm_workspace=ws, used_cores=N)");
  if (soft) {
    const auto* t = as_tensor(c.arg(0)->type);
    if (!t || t->dtype != DataType::INT32)
      c.fail(fmt::format("gm_workspace is {}; the soft barrier counts in an INT32 GM tensor", type_noun(c.arg(0)->type)),
             "pass a zero-initialised pl.Tensor[[16], pl.INT32] parameter");
    int64_t n = 1;
    bool known = true;
    for (const auto& d : t->shape)
      if (auto v = const_int_value(d)) n *= *v;
      else known = false;
    if (known && n < 16)
      c.fail(fmt::format("gm_workspace has {} elements; the soft barrier needs at least 16 (one 64-byte line)", n));
  }
  if (soft && c.has(1)) {
    const auto* st = as_scalar(c.arg(1)->type);
    if (!st || !dtype_is_int(st->dtype)) c.fail("used_cores is not an integer scalar");
    if (auto v = c.const_arg(1); v && (*v < 0 || *v > 2147483647))
      c.fail(fmt::format("used_cores = {} is outside 0 .. 2^31 - 1", *v));
  }
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

// aic/aiv_initialize_pipe(c2v_consumer_buf=0, v2c_consumer_buf=0; dir_mask, slot_size, slot_num,
// local_slot_num, id, split): one TPipe per kernel and id. dir_mask 1 = C2V, 2 = V2C, 3 = both;
// the buffers are the consumer-side slot windows (reserve_buffer / import_peer_buffer results);
// the optional third operand is the GM slot ring on 910B (InjectGMPipeBuffer).
TypePtr pipe_init(const Ctx& c) {
  for (size_t i : {0u, 1u})
    if (c.has(i) && !(as_scalar(c.arg(i)->type) && dtype_is_int(as_scalar(c.arg(i)->type)->dtype)))
      c.fail(fmt::format("{} must be an integer buffer address", c.name(i)),
             "pass a pl.system.reserve_buffer / import_peer_buffer result, or an integer");
  auto dm = c.kw_int("dir_mask");
  if (!dm || *dm < 1 || *dm > 3) c.fail("dir_mask must be 1 (C2V), 2 (V2C) or 3 (both)");
  auto ss = c.kw_int("slot_size");
  if (!ss || *ss <= 0) c.fail("slot_size must be a positive byte count");
  auto sn = c.kw_int("slot_num");
  if (sn && *sn < 1) c.fail(fmt::format("slot_num = {} must be at least 1", *sn));
  if (auto ln = c.kw_int("local_slot_num"); ln && (*ln < 1 || (sn && *ln > *sn)))
    c.fail(fmt::format("local_slot_num = {} must be in 1..slot_num", *ln));
  if (auto id = c.kw_int("id"); id && (*id < 0 || *id > 15)) c.fail(fmt::format("pipe id {} is outside 0..15", *id));
  if (auto sp = c.kw_int("split"); sp && (*sp < 0 || *sp > 4)) c.fail(fmt::format("split = {} is not 0..4", *sp));
  return void_type();
}

// reserve_buffer(name=, size=, base=-1) → the INT32 base address of a slot window this kernel
// receives into (base -1: AllocateMemoryAddr places it); import_peer_buffer(name=, peer_func=) →
// the address the peer kernel reserved under that name.
TypePtr reserve_buffer(const Ctx& c) {
  const auto* n = c.kw("name");
  if (!n || !std::holds_alternative<std::string>(*n) || std::get<std::string>(*n).empty())
    c.fail("missing name=", "write pl.system.reserve_buffer(name=\"c2v_slots\", size=4096)");
  auto sz = c.kw_int("size");
  if (!sz || *sz <= 0) c.fail("size must be a positive byte count");
  if (auto b = c.kw_int("base"); b && *b < -1) c.fail(fmt::format("base = {} is negative (-1 lets the compiler place it)", *b));
  return scalar_type(DataType::INT32);
}
TypePtr import_peer_buffer(const Ctx& c) {
  for (const char* k : {"name", "peer_func"}) {
    const auto* v = c.kw(k);
    if (!v || !std::holds_alternative<std::string>(*v) || std::get<std::string>(*v).empty())
      c.fail(fmt::format("missing {}=", k), "write pl.system.import_peer_buffer(name=\"c2v_slots\", peer_func=\"k_aiv\")");
  }
  return scalar_type(DataType::INT32);
}

// tfree_to_aic / tfree_to_aiv(tile; split=, id=): release the slot `tile` was popped into.
TypePtr tfree(const Ctx& c) {
  c.shaped(0);
  if (auto s = c.kw_int("split"); s && (*s < 0 || *s > 4)) c.fail(fmt::format("split = {} is not 0..4", *s));
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
             .affinity_by_core_type());
  add(r, OpRow("system.task_invalid", {}, invalid_task).affinity(CoreAffinity::Control).orchestration()
             .kernel_deferred(orchestration_side));
  add(r, OpRow("system.task_is_valid", {scalar("task_id")}, task_is_valid).affinity(CoreAffinity::Control)
             .orchestration().kernel_deferred(orchestration_side));
  for (const char* n : {"system.available_cluster_count", "system.available_aiv_count"})
    add(r, OpRow(n, {}, core_count).affinity(CoreAffinity::Control).orchestration().kernel_deferred(orchestration_side));
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
  // Cross-core FIFO set-up and slot release (ExpandMixedKernel writes them into the AIC / AIV halves).
  for (const char* n : {"system.aic_initialize_pipe", "system.aiv_initialize_pipe"})
    add(r, OpRow(n, {scalar("c2v_consumer_buf", true), scalar("v2c_consumer_buf", true), tensor("gm_slot_buffer", true)},
                 pipe_init)
               .kw("dir_mask", AttrKind::Int).kw("slot_size", AttrKind::Int).kw("slot_num", AttrKind::Int, int64_t{2})
               .kw("local_slot_num", AttrKind::Int, int64_t{2}).kw("id", AttrKind::Int, int64_t{0})
               .kw("split", AttrKind::Int, int64_t{0})
               .affinity(std::string_view(n) == "system.aic_initialize_pipe" ? CoreAffinity::Cube : CoreAffinity::Vector)
               .no_instruction());
  add(r, OpRow("system.reserve_buffer", {}, reserve_buffer).kw("name", AttrKind::String).kw("size", AttrKind::Int)
             .kw("base", AttrKind::Int, int64_t{-1}).no_instruction());
  add(r, OpRow("system.import_peer_buffer", {}, import_peer_buffer).kw("name", AttrKind::String)
             .kw("peer_func", AttrKind::String).kw("base", AttrKind::Int, int64_t{-1}).no_instruction());
  add(r, OpRow("system.tfree_to_aic", {tile("tile")}, tfree).kw("split", AttrKind::Int, int64_t{0})
             .kw("id", AttrKind::Int, int64_t{0}).affinity(CoreAffinity::Vector).no_instruction().cross_core());
  add(r, OpRow("system.tfree_to_aiv", {tile("tile")}, tfree).kw("split", AttrKind::Int, int64_t{0})
             .kw("id", AttrKind::Int, int64_t{0}).affinity(CoreAffinity::Cube).no_instruction().cross_core());
}

}  // namespace pypto::ir
