// Op forms whose DSL spelling differs from their registry entry: the distributed pld.* ops
// (categories and short forms), mrgsort's two formats, gather / scatter's index and mask forms.
#include <algorithm>
#include <fmt/format.h>

#include "parser/builder.h"
#include "parser/op_call.h"

namespace pypto::parser {

using namespace ir;

// pld.<category>.<op>(...) and the two-segment short forms pld.<op>(...) (language.md §10.8); the
// short remote_load / remote_store pick the tile or tensor form by their first operand.
ExprPtr pld_call(FunctionBuilder& b, TSNode n, const std::vector<std::string>& parts) {
  auto& reg = OpRegistry::instance();
  TSNode fnode = field(n, "function");
  std::string dn = b.txt(fnode);
  auto a = split_args(b, n);
  const OpDef* op = nullptr;
  std::vector<ExprPtr> prebuilt;
  if (parts.size() == 3 && (parts[1] == "system" || parts[1] == "tensor" || parts[1] == "tile")) {
    op = reg.find(dn);
  } else if (parts.size() == 2) {
    if (parts[1] == "remote_store" || parts[1] == "remote_load" || parts[1] == "put" || parts[1] == "get") {
      if (!a.pos.empty()) {
        prebuilt.push_back(b.expr(a.pos[0]));
        const bool tile = prebuilt[0]->type && prebuilt[0]->type->kind == TypeKind::Tile;
        op = reg.find(std::string(tile ? "pld.tile." : "pld.tensor.") + parts[1]);
        if (!op) op = reg.find("pld.tile." + parts[1]);
      }
    } else {
      for (const char* cat : {"pld.system.", "pld.tensor.", "pld.tile."})
        if (!op) op = reg.find(cat + parts[1]);
    }
  }
  if (!op)
    b.fail(fnode, "E300", fmt::format("Unknown distributed operation '{}'", dn),
           "pld ops: pld.alloc_window_buffer, window, world_size, get_comm_ctx, rank, nranks, remote_load, "
           "remote_store, pld.system.notify / wait / defer_wait, pld.tensor.put / get / barrier");
  // Window buffers and the world size belong to the host orchestrator, outside any device scope.
  if (op->name == "pld.tensor.alloc_window_buffer" || op->name == "pld.system.world_size") {
    const bool host = b.fn_->level == Level::HOST && b.fn_->role == Role::Orchestrator;
    if (!host || !b.scope_stack_.empty())
      b.fail(n, "E302",
             fmt::format("{}() is only valid in a host orchestrator (@pl.function(level=pl.Level.HOST, "
                         "role=pl.Role.Orchestrator)), outside device scopes",
                         dn),
             "allocate window buffers and query the world size on the host, then pass them to device code");
    if (op->name == "pld.tensor.alloc_window_buffer") {
      if (!ts_node_eq(b.window_alloc_rhs_, n))
        b.fail(n, "E302", fmt::format("{}(...) must be bound to a plain name: buf = {}(nbytes)", dn, dn),
               "the name of the target is the window buffer's name");
      for (const auto& [k, v] : a.kw)
        if (k == "name")
          b.fail(v, "E302", fmt::format("{}() takes no name=: the buffer is named by the variable it is bound to", dn));
    }
  }
  return op_call(b, *op, a, std::move(prebuilt), n);
}

// pl.mrgsort / pl.tile.mrgsort / pl.tensor.mrgsort: with block_len= one list of sorted runs
// (mrgsort_format1), else 2-4 sorted lists merged (mrgsort_format2; the tile form takes tmp=).
ExprPtr mrgsort_call(FunctionBuilder& b, TSNode n, std::string family) {
  auto a = split_args(b, n);
  std::vector<ExprPtr> srcs;
  for (TSNode p : a.pos) srcs.push_back(b.expr(p));
  if (srcs.empty()) b.fail(n, "E302", "mrgsort() takes the sorted list(s) first");
  if (family.empty()) family = srcs[0]->type && srcs[0]->type->kind == TypeKind::Tile ? "tile" : "tensor";
  ExprPtr block_len, tmp;
  std::vector<std::pair<std::string, AttrValue>> kw;
  for (const auto& [k, v] : a.kw) {
    if (k == "block_len") block_len = b.index_expr(v, "block_len");
    else if (k == "tmp") tmp = b.expr(v);
    else if (k == "exhausted") kw.emplace_back(k, AttrValue{b.bool_literal(v, "exhausted")});
    else b.fail(v, "E302", fmt::format("pl.{}.mrgsort() got an unexpected keyword argument '{}'", family, k),
                "keywords: block_len (one list of sorted runs), tmp (tile form), exhausted");
  }
  const Span s = b.sp(n);
  if (block_len) {
    if (srcs.size() != 1 || tmp || !kw.empty())
      b.fail(n, "E302", "mrgsort(src, block_len=N) merges the sorted runs of one list; it takes no other operand");
    return make_call(family + ".mrgsort_format1", {srcs[0], block_len}, {}, s);
  }
  if (family == "tensor" && tmp)
    b.fail(n, "E302", "tmp= is only for tiles: at tensor level the scratch buffer is implicit");
  if (family == "tile") {
    if (!tmp) b.fail(n, "E302", "pl.tile.mrgsort of 2-4 lists needs tmp= (the merge destination's scratch tile)");
    srcs.push_back(tmp);
  }
  return make_call(family + ".mrgsort_format2", std::move(srcs), std::move(kw), s);
}

ExprPtr gather_scatter_call(FunctionBuilder& b, TSNode n, const std::string& family, bool scatter,
                            std::vector<ExprPtr>& prebuilt) {
  auto& reg = OpRegistry::instance();
  const std::string name = (family.empty() ? "pl." : "pl." + family + ".") + (scatter ? "scatter" : "gather");
  auto a = split_args(b, n);
  if (a.pos.empty()) return nullptr;
  auto kw_node = [&](const char* k) -> TSNode {
    for (const auto& [k2, v] : a.kw)
      if (k2 == k) return v;
    return TSNode{};
  };
  const TSNode mask = kw_node("mask_pattern");
  const TSNode dst = scatter ? kw_node("dst") : TSNode{};
  if (prebuilt.empty()) prebuilt.resize(a.pos.size());
  if (!prebuilt[0]) prebuilt[0] = b.expr(a.pos[0]);
  const ExprPtr& input = prebuilt[0];
  const bool tile = family.empty() ? input->type && input->type->kind == TypeKind::Tile : family == "tile";
  if (!scatter && !is_null(mask))  // the pattern gather: the columns mask_pattern selects
    return op_call(b, *reg.find(tile ? "tile.gather_mask" : "tensor.gather_mask"), a, {input}, n);
  if (scatter && (!is_null(mask) || !is_null(dst))) {  // the pattern scatter into dst=
    if (family == "tile")
      b.fail(n, "E302", "pl.tile.scatter() has no mask form",
             "write pl.tile.scatter_mask(dst, src, mask_pattern=...), or pl.scatter(src, mask_pattern=..., dst=dst)");
    for (const auto& [k, v] : a.kw)
      if (k != "mask_pattern" && k != "dst")
        b.fail(v, "E302", fmt::format("{}() index form (dim, index, src) and mask form (mask_pattern, dst) are mutually "
                                      "exclusive; '{}' belongs to the index form", name, k));
    if (a.pos.size() > 1)
      b.fail(a.pos[1], "E302", fmt::format("{}() mask form takes only the source positionally: {}(src, mask_pattern=P, "
                                           "dst=d)", name, name));
    if (is_null(mask) || is_null(dst))
      b.fail(n, "E302", fmt::format("{}() mask form requires both mask_pattern and dst", name));
    // tensor.scatter_mask(input, dst); the tile op takes (dst, src).
    CallArgsCst m;
    m.kw.emplace_back("mask_pattern", mask);
    std::vector<ExprPtr> pre;
    if (tile) {
      m.pos = {dst, a.pos[0]};
      pre = {b.expr(dst), input};
    } else {
      m.pos = {a.pos[0], dst};
      pre = {input, nullptr};
    }
    return op_call(b, *reg.find(tile ? "tile.scatter_mask" : "tensor.scatter_mask"), m, std::move(pre), n);
  }
  // Tensor index form with dim second, (input, dim, index[, src]): the registry entry is
  // (input, index[, src]; dim). A tensor in second place is the registry's own order.
  if (tile || a.pos.size() < 2) return nullptr;
  auto dim = b.try_const(a.pos[1]);
  if (!dim || !dim->is_int()) return nullptr;
  for (const auto& [k, v] : a.kw)
    if (k == "dim") b.fail(v, "E302", fmt::format("{}() got multiple values for argument 'dim'", name));
  CallArgsCst r;
  r.pos.push_back(a.pos[0]);
  r.pos.insert(r.pos.end(), a.pos.begin() + 2, a.pos.end());
  r.kw = a.kw;
  r.kw.emplace_back("dim", a.pos[1]);
  return op_call(b, *reg.find(scatter ? "tensor.scatter" : "tensor.gather"), r, {input}, n);
}

}  // namespace pypto::parser
