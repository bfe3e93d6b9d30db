// LegalizeTileCast — every tile.cast in a kernel converts a pair of element types one TCVT
// converts on the target SoC (SocInfo::native_casts). Another pair becomes a chain of such casts,
// each keeping the cast's round mode: the shortest chain (ties: the SoC table's order) whose
// intermediate types hold exactly every value the source can hand on to the destination (so
// INT32 -> FP16 on 950 goes through FP32, never through INT16). A cast to the tile's own type
// (TCVT would round it to integral values) or a pair no chain reaches is E501 at its line.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

// The exactly representable values of an element type, as a precision (significand bits, or value
// bits of an integer), the largest binary exponent, the smallest normal one (floats) and whether
// it holds negatives / only integers.
struct Range {
  int precision = 0, emax = 0, emin = 0;
  bool is_signed = false, integral = false;
};

std::optional<Range> range_of(DataType t) {
  switch (t) {
    case DataType::FP32: return Range{24, 127, -126, true, false};
    case DataType::FP16: return Range{11, 15, -14, true, false};
    case DataType::BF16: return Range{8, 127, -126, true, false};
    default: break;
  }
  if (!dtype_is_int(t) || dtype_is_float(t)) return std::nullopt;  // FP8 / HF8 / FP4: never intermediates
  const bool s = dtype_is_signed(t);
  const int v = dtype_bits(t) - (s ? 1 : 0);
  return Range{v, v - 1, 0, s, true};
}

// The values both `a` and `b` hold exactly (a conservative description of the intersection).
Range common(const Range& a, const Range& b) {
  return Range{std::min(a.precision, b.precision), std::min(a.emax, b.emax), std::max(a.emin, b.emin),
               a.is_signed && b.is_signed, a.integral || b.integral};
}

bool holds(const Range& mid, const Range& need) {
  if (mid.precision < need.precision || mid.emax < need.emax) return false;
  if (need.is_signed && !mid.is_signed) return false;
  if (!need.integral && (mid.integral || mid.emin > need.emin)) return false;
  return true;
}

// The intermediate types of the shortest chain of native casts from `from` to `to` (the last
// element is `to`); empty when none exists.
std::vector<DataType> chain(const SocInfo& soc, DataType from, DataType to) {
  const auto rf = range_of(from), rt = range_of(to);
  auto admissible = [&](DataType mid) {
    if (mid == to) return true;
    const auto rm = range_of(mid);
    return rf && rt && rm && holds(*rm, common(*rf, *rt));
  };
  std::map<DataType, DataType> parent;  // reached type → the type it was reached from
  std::deque<DataType> queue{from};
  parent[from] = from;
  while (!queue.empty()) {
    const DataType cur = queue.front();
    queue.pop_front();
    for (const auto& [f, t] : soc.native_casts) {
      if (f != cur || parent.count(t) || !admissible(t)) continue;
      parent[t] = cur;
      if (t == to) {
        std::vector<DataType> out;
        for (DataType d = to; d != from; d = parent[d]) out.push_back(d);
        std::reverse(out.begin(), out.end());
        return out;
      }
      queue.push_back(t);
    }
  }
  return {};
}

class Legalizer : public IRMutator {
 public:
  explicit Legalizer(const SocInfo& soc) : soc_(soc) {}

 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr&) { return true; });
  }

  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    const auto* c = as<Call>(s->value);
    if (!c || !c->is_op("tile.cast")) return IRMutator::mutate_assign(s);
    const auto* src = as_tile(c->args[0]->type);
    const auto* dst = as_tile(s->var->type);
    if (!src || !dst) return IRMutator::mutate_assign(s);
    const DataType from = src->dtype, to = dst->dtype;
    if (soc_.native_cast(from, to)) return IRMutator::mutate_assign(s);
    if (from == to)
      throw CompileError("E501", c->span,
                         fmt::format("'pl.cast' of a {} tile to {} is no conversion: TCVT of one type rounds to integral values",
                                     dtype_name(from), dtype_name(to)),
                         "drop the cast (or round explicitly)");
    const auto hops = chain(soc_, from, to);
    if (hops.empty())
      throw CompileError("E501", c->span,
                         fmt::format("'pl.cast' from {} to {} is not supported on {}: TCVT has no conversion chain between them",
                                     dtype_name(from), dtype_name(to), soc_.cli_name),
                         "cast through a type the SoC converts both ways");
    std::vector<StmtPtr> out;
    ExprPtr cur = c->args[0];
    for (size_t i = 0; i + 1 < hops.size(); ++i) {
      std::vector<std::pair<std::string, AttrValue>> kw = c->kwargs;
      for (auto& [k, v] : kw)
        if (k == "target_type") v = hops[i];
      auto call = make_call(*c->op, {cur}, std::move(kw), c->span);
      auto v = std::make_shared<Var>(fmt::format("{}_{}", s->var->name, dtype_name(hops[i])), call->type, s->span);
      out.push_back(std::make_shared<AssignStmt>(v, call, s->span));
      cur = v;
    }
    out.push_back(with_comments(std::make_shared<AssignStmt>(s->var, rebuild_call(*c, {cur}), s->span), *s));
    return std::make_shared<SeqStmts>(std::move(out), s->span);
  }

 private:
  const SocInfo& soc_;
};

}  // namespace

Pass legalize_tile_cast_pass() {
  return Pass{"LegalizeTileCast",
              "Rewrites each tile.cast between element types one TCVT does not convert on the target SoC into the "
              "shortest chain of conversions it has, through types that keep every value the destination can hold "
              "(round mode kept on each hop); a cast to the same type or without a chain is rejected at its line.",
              {{Property::TileOpsOnly}, {}, {}},
              [](const ProgramPtr& p, PassContext& ctx) {
                const SocInfo& soc = soc_info(ctx.soc);
                return map_functions(p, [&](const FunctionPtr& f) -> FunctionPtr {
                  if (!is_incore_like(f->type)) return f;
                  Legalizer l(soc);
                  return l.mutate_function(f);
                });
              }};
}

}  // namespace pypto::passes
