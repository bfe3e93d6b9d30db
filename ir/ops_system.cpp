// The system op table (`system.*`): pipe barriers and explicit set_flag / wait_flag pairs.
// These ops produce no value (their type is the empty tuple) and appear as expression statements.
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

}  // namespace

void register_system_ops(OpRegistry& r) {
  add(r, OpRow("system.bar_v", {}, none).affinity(CoreAffinity::Vector));
  add(r, OpRow("system.bar_m", {}, none).affinity(CoreAffinity::Cube));
  add(r, OpRow("system.bar_all", {}, none));
  for (const char* n : {"system.sync_src", "system.sync_dst"})
    add(r, OpRow(n, {}, sync).kw("set_pipe", AttrKind::Enum, {}, "PipeType")
               .kw("wait_pipe", AttrKind::Enum, {}, "PipeType").kw("event_id", AttrKind::Int));
}

}  // namespace pypto::ir
