// InferTileMemorySpace — gives every tile in a kernel a memory space, forward in program order:
//   * an op whose result space is a keyword (tile.load / tile.create_tile `target_memory`,
//     tile.move) → that space; an op with a fixed result space (matmul → Acc) → that space;
//   * an op that inherits an input's space (elementwise) → that input's space;
//   * anything else → Vec; a space already written in the annotation is kept;
//   * loop iter_args take their init's space, return_vars and if-phis their yielded value's;
//   * backward, for a created tile (tile.create in the default Vec space: no data yet) that starts
//     a loop carry the body yields in another space — the accumulator of a K loop whose first
//     iteration is a matmul: the yielded value's space (the function is inferred again with it).
// Where an op demands its input in other spaces (registry `input_memory`) than the value has, a
// `tile.move` to the first allowed space is inserted before the op. Produces TileMemoryInferred.
#include <fmt/format.h>

#include <map>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

std::optional<MemorySpace> space_of(const ExprPtr& e) {
  const auto* t = as_tile(e->type);
  return t ? t->space : std::nullopt;
}

TypePtr with_space_if_missing(const TypePtr& t, MemorySpace sp) {
  const auto* tl = as_tile(t);
  if (!tl || tl->space) return t;
  return with_space(*tl, sp);
}

// A tile.create in the default space (Vec): no data yet, so the carry it starts may move it.
bool is_created(const Call* c) {
  if (!c || !c->op || c->op->name != "tile.create") return false;
  const AttrValue* m = c->kwarg("target_memory");
  const auto* sp = m ? std::get_if<MemorySpace>(m) : nullptr;
  return !sp || *sp == MemorySpace::Vec;
}

class Inferer : public BindingMutator {
 public:
  // Created tiles whose space the carries they start demand (by the original Var); grown by a
  // pass over the function, which then runs again.
  std::unordered_map<const Var*, MemorySpace> demand;
  bool demand_grew = false;

 protected:
  // Result space of a call (nullopt: not a tile / unknown).
  std::optional<MemorySpace> result_space(const Call& c) {
    if (!as_tile(c.type)) return std::nullopt;
    if (const auto* tl = as_tile(c.type); tl && tl->space) return tl->space;
    if (!c.op) return MemorySpace::Vec;
    if (!c.op->output_memory_kwarg.empty()) {
      if (const auto* v = c.kwarg(c.op->output_memory_kwarg))
        if (const auto* sp = std::get_if<MemorySpace>(v)) return *sp;
      return MemorySpace::Vec;
    }
    if (c.op->output_memory) return c.op->output_memory;
    if (c.op->output_memory_inherit_input >= 0 && c.op->output_memory_inherit_input < int(c.args.size()))
      if (auto sp = space_of(c.args[c.op->output_memory_inherit_input])) return sp;
    return MemorySpace::Vec;
  }

  // Inserts tile.move for inputs in a space the op does not accept; one per value and space per
  // block, reused by the later uses in that block and the blocks nested in it (a cube result read
  // twice on the vector side crosses once).
  std::vector<StmtPtr> pending_;
  std::vector<std::map<std::pair<const Var*, MemorySpace>, VarPtr>> moved_{1};
  VarPtr moved(const Var* v, MemorySpace sp) const {
    for (auto it = moved_.rbegin(); it != moved_.rend(); ++it)
      if (auto f = it->find({v, sp}); f != it->end()) return f->second;
    return nullptr;
  }
  StmtPtr in_block(const StmtPtr& b) {
    if (!b) return b;
    moved_.emplace_back();
    StmtPtr r = mutate(b);
    moved_.pop_back();
    return r;
  }
  StmtPtr mutate_while(const std::shared_ptr<const WhileStmt>& s) override {
    moved_.emplace_back();
    StmtPtr r = BindingMutator::mutate_while(s);
    moved_.pop_back();
    return r;
  }
  StmtPtr mutate_scope(const std::shared_ptr<const ScopeStmt>& s) override {
    moved_.emplace_back();
    StmtPtr r = BindingMutator::mutate_scope(s);
    moved_.pop_back();
    return r;
  }
  ExprPtr mutate_call(const std::shared_ptr<const Call>& e) override {
    std::vector<ExprPtr> args;
    bool changed = mutate_list(e->args, args);
    if (e->op) {
      for (const auto& [idx, allowed] : e->op->input_memory) {
        if (idx < 0 || idx >= int(args.size()) || allowed.empty()) continue;
        auto sp = space_of(args[idx]);
        if (!sp || std::find(allowed.begin(), allowed.end(), *sp) != allowed.end()) continue;
        const auto* src = as<Var>(args[idx]);
        if (auto hit = src ? moved(src, allowed.front()) : nullptr) {  // moved before in this block
          args[idx] = hit;
          changed = true;
          continue;
        }
        auto mv = make_call("tile.move", {args[idx]}, {{"target_memory", allowed.front()}}, e->span);
        auto tmp = make_var(as<Var>(args[idx]) ? as<Var>(args[idx])->name + "_" +
                                                     std::string(to_string(allowed.front()))
                                               : std::string("moved"),
                            with_space_if_missing(mv->type, allowed.front()), e->span);
        pending_.push_back(std::make_shared<AssignStmt>(tmp, mv, e->span));
        if (src) moved_.back()[{src, allowed.front()}] = tmp;
        args[idx] = tmp;
        changed = true;
      }
    }
    if (!changed) return e;
    return rebuild_call(*e, std::move(args));
  }

  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    ExprPtr v = mutate(s->value);
    VarPtr var = s->var;
    const auto* c = as<Call>(s->value);
    if (is_created(c)) created_[s->var.get()] = true;
    if (auto d = demand.find(s->var.get()); is_created(c) && d != demand.end()) {
      auto kw = c->kwargs;
      std::erase_if(kw, [](const auto& p) { return p.first == "target_memory"; });
      kw.emplace_back("target_memory", d->second);
      v = make_call(*c->op, c->args, std::move(kw), c->span);
    }
    const auto* tl = as_tile(var->type);
    const auto* vt = as_tile(v->type);
    // Unset: inferred. Set, but the value was rebuilt in another space (a created tile moved by
    // demand, an op inheriting its input's space): the value's.
    if (tl && (!tl->space || (v != s->value && vt && vt->space && vt->space != tl->space))) {
      std::optional<MemorySpace> sp;
      if (vt && vt->space) sp = vt->space;
      else if (const auto* vc = as<Call>(v)) sp = result_space(*vc);
      else sp = space_of(v);
      var = copy_var_with_type(*var, with_space(*tl, sp.value_or(MemorySpace::Vec)));
      bound_[s->var.get()] = var;
      var_map[s->var.get()] = var;
    } else {
      var = bind(s->var);
    }
    StmtPtr r = (v == s->value && var == s->var) ? StmtPtr(s)
                                                 : with_comments(std::make_shared<AssignStmt>(var, v, s->span), *s);
    if (pending_.empty()) return r;
    std::vector<StmtPtr> stmts = std::move(pending_);
    pending_.clear();
    stmts.push_back(r);
    return std::make_shared<SeqStmts>(std::move(stmts), s->span);
  }

  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr& c) { return as<AssignStmt>(c) != nullptr; });
  }

  // iter_args follow their init; return_vars / phis follow the yielded values.
  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    std::vector<IterArgPtr> ias;
    bool changed = false;
    for (const auto& ia : s->iter_args) {
      ExprPtr init = mutate(ia->init);
      TypePtr t = ia->type;
      const auto* it = as_tile(t);
      if (auto sp = space_of(init); sp && it && it->space && *it->space != *sp && init != ia->init)
        t = with_space(*it, *sp);  // the init moved (demand): the carry follows it
      else if (sp) t = with_space_if_missing(t, *sp);
      else t = with_space_if_missing(t, MemorySpace::Vec);
      if (init != ia->init || t != ia->type) {
        auto n = std::make_shared<IterArg>(ia->name, t, init, ia->span);
        var_map[ia.get()] = n;
        bound_[ia.get()] = n;
        ias.push_back(n);
        changed = true;
      } else {
        ias.push_back(ia);
      }
    }
    StmtPtr body = in_block(s->body);
    changed |= body != s->body;
    auto y = split_trailing_yield(body).second;
    for (size_t i = 0; y && i < s->iter_args.size() && i < y->values.size(); ++i) {
      const auto* init = as<Var>(s->iter_args[i]->init);
      auto ys = space_of(y->values[i]), is = space_of(ias[i]);
      if (init && created_.count(init) && ys && is && *ys != *is && !demand.count(init)) {
        demand[init] = *ys;
        demand_grew = true;
      }
    }
    std::vector<VarPtr> rvs;
    for (size_t i = 0; i < s->return_vars.size(); ++i) {
      rvs.push_back(retype_result(s->return_vars[i], y && i < y->values.size() ? y->values[i] : nullptr));
      changed |= rvs.back() != s->return_vars[i];
    }
    if (!changed) return s;
    return with_comments(std::make_shared<ForStmt>(s->loop_var, s->start, s->stop, s->step, ias, body, rvs, s->kind,
                                                   s->span, s->stage), *s);
  }

  StmtPtr mutate_if(const std::shared_ptr<const IfStmt>& s) override {
    StmtPtr t = in_block(s->then_body), e = in_block(s->else_body);
    auto y = split_trailing_yield(t).second;
    std::vector<VarPtr> rvs;
    bool changed = t != s->then_body || e != s->else_body;
    for (size_t i = 0; i < s->return_vars.size(); ++i) {
      rvs.push_back(retype_result(s->return_vars[i], y && i < y->values.size() ? y->values[i] : nullptr));
      changed |= rvs.back() != s->return_vars[i];
    }
    if (!changed) return s;
    return with_comments(std::make_shared<IfStmt>(s->cond, t, e, rvs, s->span), *s);
  }

  VarPtr retype_result(const VarPtr& rv, const ExprPtr& yielded) {
    const auto* tl = as_tile(rv->type);
    auto sp = yielded ? space_of(yielded) : std::nullopt;
    if (!tl || (tl->space && (!sp || *sp == *tl->space))) return bind(rv);
    VarPtr n = copy_var_with_type(*rv, with_space(*tl, sp.value_or(MemorySpace::Vec)));
    bound_[rv.get()] = n;
    var_map[rv.get()] = n;
    return n;
  }

  VarPtr rebind(const VarPtr& v) override {
    const auto* tl = as_tile(v->type);
    if (!tl || tl->space) return v;
    return copy_var_with_type(*v, with_space(*tl, MemorySpace::Vec));  // tile params default to Vec
  }

 private:
  std::unordered_map<const Var*, bool> created_;
};

FunctionPtr infer_function(const FunctionPtr& f) {
  if (!is_incore_like(f->type)) return f;
  std::unordered_map<const Var*, MemorySpace> demand;
  for (int round = 0;; ++round) {
    Inferer inf;
    inf.demand = demand;
    FunctionPtr g = inf.mutate_function(f);
    if (!inf.demand_grew || round == 8) return g;
    demand = std::move(inf.demand);
  }
}

}  // namespace

Pass infer_tile_memory_space_pass() {
  return Pass{"InferTileMemorySpace",
              "Gives every tile in a kernel a memory space (target_memory of loads/creates, fixed op "
              "result spaces, inheritance from inputs, Vec by default) and inserts tile.move where an op "
              "needs an input in another space.",
              {{Property::SSAForm, Property::TileOpsOnly}, {Property::TileMemoryInferred}, {}},
              [](const ProgramPtr& p, PassContext&) { return map_functions(p, infer_function); }};
}

}  // namespace pypto::passes
