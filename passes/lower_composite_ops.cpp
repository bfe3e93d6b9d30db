// LowerCompositeOps — expands every composite tile op (the registry's `composite` marker) in a
// kernel into primitive tile ops, so that no later pass, the kernel emitter or the runtime ever
// sees one. Runs right after ConvertTensorToTileOps (tensor.sin / tensor.cos are tile.sin /
// tile.cos by then), before any tile-shape or memory planning, so the recipe's temporaries are
// planned like any other tile.
//
// tile.sin / tile.cos (FP32): Cody-Waite range reduction and an odd degree-9 polynomial, in the
// FP32 arithmetic of the vector unit (TMULS, TADDS, TADD, TSUB, TMUL, TCVT):
//   sin: k = round_half_away(x / pi)            t = x - k*pi       (pi in four parts + head)
//   cos: k = rint(x / pi + 1/2)                 t = x - k*pi + pi/2 (pi/2 as head + tail)
//   sign = 4*floor(k/2) - 2k + 1 = (-1)^k     result = sign * t * P(t^2)
// with P(u) = (((R0 u + R1) u + R2) u + R3) u + 1 on t in [-pi/2, pi/2]. The constants are the
// FP32 values the reference's recipe uses (so a kernel computes the same bits on the NPU); the
// absolute error is about 1e-7 within a period and grows with |x| through the reduction (about
// 1e-5 at |x| = 2^13; past 2^17 x has no fractional bits left).
//
// The last statement of a recipe binds the original variable, so its uses are untouched; the
// temporaries are named `<var>_<step>`. The rule table is keyed by registry entry; a test proves
// every op marked composite has a rule and every rule's op is marked. Running the pass twice
// changes nothing the second time (the recipes hold only primitive ops).
// Requires TileOpsOnly; produces and destroys nothing.
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "ir/op_table.h"
#include "passes/lower_composite_ops.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

// The FP32 constants of the trigonometric recipe.
constexpr float kPiInv = 0.31830988732818603515625f;  // 1/pi
constexpr float kPiV2 = 3.140625f;                      // pi = V2 + C1 + C2 + C3 + C4
constexpr float kPiC1 = 0.0009670257568359375f;
constexpr float kPiC2 = 6.2771141529083251953125e-7f;
constexpr float kPiC3 = 1.21644916362129151821e-10f;
constexpr float kPiC4 = -1.0290623200529979163e-13f;
constexpr float kPiHalfHead = 1.57079637050628662109375f;  // pi/2 = head + tail
constexpr float kPiHalfTail = -4.371139000189375e-8f;
constexpr float kR0 = 2.604926501e-6f;  // t^9
constexpr float kR1 = -1.980894471e-4f;  // t^7
constexpr float kR2 = 8.333049340e-3f;   // t^5
constexpr float kR3 = -1.666665792e-1f;  // t^3

// Appends the statements of one recipe; each step binds a fresh `<var>_<step>` temporary.
class Recipe {
 public:
  Recipe(const AssignStmt& s) : s_(s) {}

  ExprPtr muls(const std::string& step, const ExprPtr& x, float c) { return bind(step, "tile.muls", {x, num(c)}); }
  ExprPtr adds(const std::string& step, const ExprPtr& x, float c) { return bind(step, "tile.adds", {x, num(c)}); }
  ExprPtr op(const std::string& step, const char* name, const ExprPtr& a, const ExprPtr& b) { return bind(step, name, {a, b}); }
  ExprPtr cast(const std::string& step, const ExprPtr& x, DataType to, const char* mode) {
    return bind(step, "tile.cast", {x}, {{"target_type", to}, {"mode", std::string(mode)}});
  }
  // The recipe's result, bound to the original variable (keeping its comments).
  StmtPtr finish(const char* name, const ExprPtr& a, const ExprPtr& b) {
    auto call = make_call(name, {a, b}, {}, s_.value->span);
    out_.push_back(with_comments(std::make_shared<AssignStmt>(s_.var, call, s_.span), s_));
    return std::make_shared<SeqStmts>(std::move(out_), s_.span);
  }

 private:
  ExprPtr num(float c) const { return make_float(static_cast<double>(c), s_.value->span); }
  ExprPtr bind(const std::string& step, const char* name, std::vector<ExprPtr> args,
               std::vector<std::pair<std::string, AttrValue>> kw = {}) {
    auto call = make_call(name, std::move(args), std::move(kw), s_.value->span);
    auto v = std::make_shared<Var>(fmt::format("{}_{}", s_.var->name, step), call->type, s_.span);
    out_.push_back(std::make_shared<AssignStmt>(v, call, s_.span));
    return v;
  }

  const AssignStmt& s_;
  std::vector<StmtPtr> out_;
};

// sin(x) or cos(x) = sign * t * P(t^2) after the reduction x = k*pi + t (cos: x + pi/2 = k*pi + t).
StmtPtr lower_trig(const AssignStmt& s, const Call& c, bool is_cos) {
  Recipe r(s);
  const ExprPtr& x = c.args[0];
  ExprPtr q = r.muls("pi_inv_x", x, kPiInv);
  if (is_cos) q = r.adds("k_pre", q, 0.5f);
  const ExprPtr k_i = r.cast("k_i", q, DataType::INT32, is_cos ? "rint" : "round");
  const ExprPtr k = r.cast("k_f", k_i, DataType::FP32, "none");
  ExprPtr t = r.op("t0", "tile.sub", x, r.muls("k_pi_v2", k, kPiV2));
  t = r.op("t1", "tile.sub", t, r.muls("k_pi_c1", k, kPiC1));
  if (is_cos) t = r.adds("t1h", t, kPiHalfHead);  // beside the terms of its magnitude
  t = r.op("t2", "tile.sub", t, r.muls("k_pi_c2", k, kPiC2));
  t = r.op("t3", "tile.sub", t, r.muls("k_pi_c3", k, kPiC3));
  t = r.op("t4", "tile.sub", t, r.muls("k_pi_c4", k, kPiC4));
  if (is_cos) t = r.adds("t4t", t, kPiHalfTail);
  // (-1)^k = 4*floor(k/2) - 2k + 1, without a branch.
  const ExprPtr half_k = r.muls("half_k", k, 0.5f);
  const ExprPtr floor_i = r.cast("floor_hk_i", half_k, DataType::INT32, "floor");
  const ExprPtr floor_f = r.cast("floor_hk_f", floor_i, DataType::FP32, "none");
  const ExprPtr floor_x4 = r.muls("floor_x4", floor_f, 4.0f);
  const ExprPtr sign_pre = r.op("sign_pre", "tile.add", floor_x4, r.muls("neg2_k", k, -2.0f));
  const ExprPtr sign = r.adds("sign", sign_pre, 1.0f);
  // Horner: t * ((((R0 u + R1) u + R2) u + R3) u + 1), u = t^2.
  const ExprPtr u = r.op("t2sq", "tile.mul", t, t);
  ExprPtr p = r.adds("p_r1", r.muls("p_r0", u, kR0), kR1);
  p = r.adds("p_r2", r.op("p_t2_r1", "tile.mul", p, u), kR2);
  p = r.adds("p_r3", r.op("p_t2_r2", "tile.mul", p, u), kR3);
  p = r.adds("p_one", r.op("p_t2_r3", "tile.mul", p, u), 1.0f);
  return r.finish("tile.mul", sign, r.op("t_p", "tile.mul", t, p));
}

struct CompositeRule {
  std::string_view op;
  StmtPtr (*lower)(const AssignStmt&, const Call&);
};

const CompositeRule kRules[] = {
    {"tile.sin", [](const AssignStmt& s, const Call& c) { return lower_trig(s, c, false); }},
    {"tile.cos", [](const AssignStmt& s, const Call& c) { return lower_trig(s, c, true); }},
};

const OpInfoTable<CompositeRule>& rules() {
  static const OpInfoTable<CompositeRule> t{std::span<const CompositeRule>(kRules)};
  return t;
}

class Lowerer : public IRMutator {
 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr&) { return true; });
  }

  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    const auto* c = as<Call>(s->value);
    const CompositeRule* rule = c && c->op ? rules().find(*c->op) : nullptr;
    if (!rule) return IRMutator::mutate_assign(s);
    return rule->lower(*s, *c);
  }
};

}  // namespace

bool has_composite_rule(const OpDef& op) { return rules().find(op) != nullptr; }
const std::vector<std::string_view>& composite_rules_unknown() { return rules().unknown(); }

Pass lower_composite_ops_pass() {
  return Pass{"LowerCompositeOps",
              "Expands each composite tile op of a kernel into primitive tile ops: tile.sin / tile.cos (FP32) "
              "become Cody-Waite range reduction by pi plus an odd degree-9 polynomial (muls, adds, add, sub, mul "
              "and casts with round / rint / floor modes); the original variable binds the result.",
              {{Property::TileOpsOnly}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                return map_functions(p, [&](const FunctionPtr& f) -> FunctionPtr {
                  if (!is_incore_like(f->type)) return f;
                  Lowerer l;
                  return l.mutate_function(f);
                });
              }};
}

}  // namespace pypto::passes
