// CheckWindowBounds — a window outside its tensor or tile is an error at compile time wherever the
// offsets are known: constants, or affine sums of loop variables of loops with constant bounds
// (and of locals bound to such sums). For every pl.slice / pl.load / pl.store / pl.assemble (tensor
// and tile forms) whose source extents and window extents are static, the smallest and largest
// offset the loops reach are computed exactly (each loop variable appears in an affine form with
// its own independent range), and a window reaching below 0 or past the end is E510 naming the
// loop values that do it. Windows under an `if` are checked only when their offsets are loop
// invariant (a guard may keep the others in range); clamp=True and valid_shape= windows are
// skipped (a store of a tile with a static valid shape is checked on that valid region, which is
// all it writes), as are offsets the pass cannot read (function parameters, data-dependent values) —
// the interpreter (`pypto test`) and the runtime's bounds check catch those. The program is not
// changed. Runs after Simplify, so constant expressions are folded.
#include <map>
#include <optional>

#include <fmt/format.h>

#include "ir/op_registry.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

struct Range {
  int64_t lo, hi;
};

// c + Σ coef · var over loop variables.
struct Affine {
  int64_t c = 0;
  std::map<const Var*, int64_t> coef;
};

class Checker {
 public:
  void stmt(const StmtPtr& s, int guarded) {
    if (!s) return;
    if (const auto* seq = as<SeqStmts>(s)) {
      for (const auto& x : seq->stmts) stmt(x, guarded);
    } else if (const auto* a = as<AssignStmt>(s)) {
      expr(a->value, guarded, s->span);
      if (as_scalar(a->var->type))
        if (auto f = affine(a->value)) locals_[a->var.get()] = *f;
    } else if (const auto* e = as<EvalStmt>(s)) {
      expr(e->expr, guarded, s->span);
    } else if (const auto* r = as<ReturnStmt>(s)) {
      for (const auto& v : r->values) expr(v, guarded, s->span);
    } else if (const auto* i = as<IfStmt>(s)) {
      stmt(i->then_body, guarded + 1);
      stmt(i->else_body, guarded + 1);
    } else if (const auto* f = as<ForStmt>(s)) {
      auto start = const_int_value(f->start), stop = const_int_value(f->stop), step = const_int_value(f->step);
      if (start && stop && step && *step > 0) {
        if (*stop <= *start) return;  // no iteration: nothing in the body runs
        ranges_[f->loop_var.get()] = Range{*start, *start + (*stop - *start - 1) / *step * *step};
      }
      stmt(f->body, guarded);
    } else if (const auto* w = as<WhileStmt>(s)) {
      stmt(w->body, guarded + 1);  // its trip count is not known here
    } else if (const auto* sc = as<ScopeStmt>(s)) {
      stmt(sc->body, guarded);
    }
  }

 private:
  std::map<const Var*, Range> ranges_;
  std::map<const Var*, Affine> locals_;

  std::optional<Affine> affine(const ExprPtr& e) const {
    if (auto c = const_int_value(e)) return Affine{*c, {}};
    if (const auto* v = as<Var>(e)) {
      if (ranges_.count(v)) return Affine{0, {{v, 1}}};
      if (auto it = locals_.find(v); it != locals_.end()) return it->second;
      return std::nullopt;
    }
    if (const auto* b = as<Binary>(e)) {
      auto x = affine(b->a), y = affine(b->b);
      if (!x || !y) return std::nullopt;
      // Coefficients that overflow 64 bits leave the window to the interpreter and the runtime.
      if (b->op == BinOp::Add || b->op == BinOp::Sub) {
        const bool add = b->op == BinOp::Add;
        auto step = [add](int64_t& acc, int64_t v) {
          return add ? !__builtin_add_overflow(acc, v, &acc) : !__builtin_sub_overflow(acc, v, &acc);
        };
        if (!step(x->c, y->c)) return std::nullopt;
        for (const auto& [v, k] : y->coef)
          if (!step(x->coef[v], k)) return std::nullopt;
        return x;
      }
      if (b->op == BinOp::Mul && (x->coef.empty() || y->coef.empty())) {
        const Affine& k = x->coef.empty() ? *x : *y;
        Affine r = x->coef.empty() ? *y : *x;
        if (__builtin_mul_overflow(r.c, k.c, &r.c)) return std::nullopt;
        for (auto& [v, c] : r.coef)
          if (__builtin_mul_overflow(c, k.c, &c)) return std::nullopt;
        return r;
      }
    }
    return std::nullopt;
  }

  // The window of one call: its source operand, the offset list and the extent list.
  struct Window {
    const Expr* source;
    const Expr* offsets;
    std::vector<int64_t> extent;
  };

  std::optional<Window> window_of(const Call& c) const {
    auto list = [](const ExprPtr& e) -> std::optional<std::vector<int64_t>> {
      const auto* t = as<MakeTuple>(e);
      if (!t) return std::nullopt;
      std::vector<int64_t> out;
      for (const auto& x : t->elems) {
        auto v = const_int_value(x);
        if (!v) return std::nullopt;
        out.push_back(*v);
      }
      return out;
    };
    auto shape_of = [](const ExprPtr& e) { return as_shaped(e->type) ? static_shape(as_shaped(e->type)->shape) : std::nullopt; };
    const std::string& n = c.op->name;
    const auto& a = c.args;
    if (const AttrValue* cl = c.kwarg("clamp"); cl && std::get_if<bool>(cl) && *std::get_if<bool>(cl)) return std::nullopt;
    if (n == "tensor.slice" || n == "tile.slice") {  // (x, shape, offset, valid_shape?)
      if (a.size() != 3) return std::nullopt;
      auto e = list(a[1]);
      if (!e) return std::nullopt;
      return Window{a[0].get(), a[2].get(), *e};
    }
    if (n == "tile.load") {  // (tensor, offsets, shapes, valid_shape?)
      if (a.size() != 3) return std::nullopt;
      auto e = list(a[2]);
      if (!e) return std::nullopt;
      return Window{a[0].get(), a[1].get(), *e};
    }
    // A stored or assembled value with a valid shape (a load's or slice's valid_shape=,
    // pl.set_validshape) writes its valid region only: that is the window; a runtime valid extent
    // is left to the runtime's check.
    auto written = [&](const ExprPtr& v) -> std::optional<std::vector<int64_t>> {
      const std::vector<ExprPtr>* valid = nullptr;
      if (const auto* t = as_tile(v->type); t && t->view && !t->view->valid_shape.empty()) valid = &t->view->valid_shape;
      if (const auto* t = as_tensor(v->type); t && t->view && !t->view->valid_shape.empty()) valid = &t->view->valid_shape;
      return valid ? static_shape(*valid) : shape_of(v);
    };
    if (n == "tile.store") {  // (tile, offsets, tensor, shapes?)
      std::optional<std::vector<int64_t>> e = a.size() > 3 ? list(a[3]) : written(a[0]);
      if (!e || a.size() < 3) return std::nullopt;
      return Window{a[2].get(), a[1].get(), *e};
    }
    if (n == "tensor.assemble" || n == "tile.assemble") {  // (target, source, offset)
      auto e = written(a[1]);
      if (!e || a.size() < 3) return std::nullopt;
      return Window{a[0].get(), a[2].get(), *e};
    }
    return std::nullopt;
  }

  void expr(const ExprPtr& e, int guarded, const Span& site) {
    if (!e) return;
    if (const auto* b = as<Binary>(e)) {
      expr(b->a, guarded, site);
      expr(b->b, guarded, site);
    } else if (const auto* u = as<Unary>(e)) {
      expr(u->a, guarded, site);
    } else if (const auto* t = as<MakeTuple>(e)) {
      for (const auto& x : t->elems) expr(x, guarded, site);
    } else if (const auto* g = as<TupleGetItem>(e)) {
      expr(g->tuple, guarded, site);
    } else if (const auto* c = as<Call>(e)) {
      for (const auto& x : c->args) expr(x, guarded, site);
      if (c->op) check(*c, guarded, e->span.valid() ? e->span : site);
    }
  }

  static std::string text(__int128 v) {
    if (v > INT64_MAX) return "beyond 2^63";
    if (v < INT64_MIN) return "below -2^63";
    return std::to_string(static_cast<int64_t>(v));
  }

  void check(const Call& c, int guarded, const Span& sp) {
    auto w = window_of(c);
    if (!w) return;
    const auto* src = as_shaped(w->source->type);
    const auto* offs = as<MakeTuple>(w->offsets);
    if (!src || !offs) return;
    auto dims = static_shape(src->shape);
    if (!dims) return;
    const size_t rank = dims->size();
    if (offs->elems.size() > rank || w->extent.size() > rank) return;
    // Offsets and extents cover the trailing dims when shorter than the source's rank.
    for (size_t k = 0; k < offs->elems.size(); ++k) {
      const size_t d = rank - offs->elems.size() + k;
      const size_t ke = w->extent.size() - (rank - d);
      if (rank - d > w->extent.size()) continue;
      auto f = affine(offs->elems[k]);
      if (!f) continue;
      if (guarded && !f->coef.empty()) continue;
      // In 128 bits: a 64-bit offset plus an extent cannot overflow.
      __int128 lo = f->c, hi = f->c;
      std::string at_hi, at_lo;
      for (const auto& [v, coef] : f->coef) {
        const Range& r = ranges_.at(v);
        const __int128 a = __int128(coef) * r.lo, b = __int128(coef) * r.hi;
        hi += std::max(a, b);
        lo += std::min(a, b);
        at_hi += fmt::format("{}{} = {}", at_hi.empty() ? "" : ", ", v->name, a >= b ? r.lo : r.hi);
        at_lo += fmt::format("{}{} = {}", at_lo.empty() ? "" : ", ", v->name, a <= b ? r.lo : r.hi);
      }
      const int64_t ext = w->extent[ke];
      const std::string when_hi = at_hi.empty() ? "" : fmt::format(" (when {})", at_hi);
      const std::string when_lo = at_lo.empty() ? "" : fmt::format(" (when {})", at_lo);
      if (hi + ext > (*dims)[d])
        throw CompileError("E510", sp,
                           fmt::format("pl.{} reaches element {} of dimension {}{}, but the operand has extent {} "
                                       "there (offset {} + extent {})",
                                       c.op->name, text(hi + ext - 1), d, when_hi, (*dims)[d], text(hi), ext),
                           "keep offset + extent within the operand: check the loop bounds and the offset arithmetic");
      if (lo < 0)
        throw CompileError("E510", sp,
                           fmt::format("pl.{} starts at offset {} in dimension {}{}, below 0", c.op->name, text(lo), d, when_lo),
                           "offsets must be non-negative");
    }
  }
};

}  // namespace

Pass check_window_bounds_pass() {
  return Pass{"CheckWindowBounds",
              "Checks at compile time that every slice / load / store / assemble window whose offsets are "
              "constants or affine in loop variables with constant bounds stays inside its operand (E510, with "
              "the loop values that leave it); changes nothing.",
              {{}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                for (const auto& f : p->functions) {
                  Checker c;
                  c.stmt(f->body, 0);
                }
                return p;
              }};
}

}  // namespace pypto::passes
