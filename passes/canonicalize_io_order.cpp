// CanonicalizeIOOrder — orders the body of every pl.pipeline loop scalar → load → compute → store,
// then demotes the loop to a sequential one (no Pipeline loop survives this pass; both back ends
// reject one). After LowerPipelineLoops has put F clones of an iteration in one body, this is what
// overlaps them: the loads of all clones are issued first (MTE2 runs ahead), their compute follows
// (the vector or cube pipe works on clone 0 while clone 1 still loads) and the stores sink to the
// end. Each statement's tier is a registry fact (OpDef::io_tier):
//   * scalar: a scalar assignment that reads no memory (an offset, a counter);
//   * load: tile.load, tile.read, tensor.read, and tile.extract from Mat to Left / Right (L1 → L0);
//   * store: tile.store, tile.write, tensor.write;
//   * compute: everything else, nested loops and ifs included.
// The new order is a list schedule: repeatedly the ready statement of the lowest tier, ties broken
// by source order, so independent statements keep their relative order and nothing moves past a
// statement it depends on — a value it reads, or a buffer one of the two writes (a GM tensor by
// its root: distinct parameters are distinct buffers, any other tensor may be any; a tile by the
// buffer its in-place and view ops share). Loops, ifs, function calls and system ops are barriers
// for every statement that touches memory. The trailing yield stays last. A body holding a
// cross-core FIFO op (OpDef::cross_core) keeps its order: its peer pairs the transfers in that
// order. Inner pipeline loops are handled before the loop around them. Runs after
// LowerPipelineLoops on SSA form; keeps it.
#include <algorithm>
#include <set>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

enum Tier { kScalar = 0, kLoad = 1, kCompute = 2, kStore = 3 };

// The buffer each Var of a function stands for (its location): a parameter, or the value itself,
// followed through writers (registry written_tensor), in-place and view ops (output_reuses_input),
// copies and loop carries.
class Locations : public IRVisitor {
 public:
  explicit Locations(const Function& f) {
    for (const auto& p : f.params) params_.insert(p.get());
    if (f.body) visit(f.body);
  }
  const Var* of(const Var* v) const {
    auto it = loc_.find(v);
    return it == loc_.end() ? v : it->second;
  }
  const Var* of(const ExprPtr& e) const {
    const auto* v = as<Var>(e);
    return v ? of(v) : nullptr;
  }
  // Whether two locations may be one buffer.
  bool alias(const Var* a, const Var* b) const {
    if (a == b) return true;
    if (!as_tensor(a->type) || !as_tensor(b->type)) return false;
    return !params_.count(a) || !params_.count(b);
  }

 protected:
  void visit_assign(const AssignStmt& s) override {
    if (const auto* c = as<Call>(s.value); c && c->op) {
      int k = c->op->written_tensor >= 0 ? c->op->written_tensor : c->op->output_reuses_input;
      if (k >= 0 && size_t(k) < c->args.size())
        if (const Var* l = of(c->args[size_t(k)])) loc_[s.var.get()] = l;
    } else if (const Var* l = of(s.value)) {
      loc_[s.var.get()] = l;
    }
    IRVisitor::visit_assign(s);
  }
  void visit_for(const ForStmt& s) override {
    carry(s.iter_args);
    IRVisitor::visit_for(s);
    results(s.iter_args, s.return_vars);
  }
  void visit_while(const WhileStmt& s) override {
    carry(s.iter_args);
    IRVisitor::visit_while(s);
    results(s.iter_args, s.return_vars);
  }

 private:
  void carry(const std::vector<IterArgPtr>& ias) {
    for (const auto& ia : ias)
      if (const Var* l = of(ia->init)) loc_[ia.get()] = l;
  }
  void results(const std::vector<IterArgPtr>& ias, const std::vector<VarPtr>& rvs) {
    for (size_t i = 0; i < ias.size() && i < rvs.size(); ++i) loc_[rvs[i].get()] = of(ias[i].get());
  }

  std::unordered_map<const Var*, const Var*> loc_;
  std::unordered_set<const Var*> params_;
};

// What the schedule needs of one statement of a pipeline body.
struct Node {
  StmtPtr stmt;
  Tier tier = kCompute;
  std::unordered_set<const Var*> defs, uses;
  std::set<const Var*> reads, writes;  // locations
  bool barrier = false;                // ordered against every statement touching memory
};

bool holds_cross_core(const StmtPtr& s) {
  struct Finder : IRVisitor {
    bool found = false;
    void visit_call(const Call& c) override {
      if (c.op && c.op->cross_core) found = true;
      IRVisitor::visit_call(c);
    }
  } f;
  f.visit(s);
  return f.found;
}

class Reorderer : public IRMutator {
 public:
  explicit Reorderer(const Locations& loc) : loc_(loc) {}

 protected:
  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    StmtPtr inner = IRMutator::mutate_for(s);  // inner pipeline loops first
    const auto* f = as<ForStmt>(inner);
    if (!f || f->kind != ForKind::Pipeline) return inner;
    auto n = std::make_shared<ForStmt>(*f);
    n->kind = ForKind::Sequential;
    n->stage = 0;
    if (!holds_cross_core(f->body)) n->body = reorder(f->body);
    return n;
  }

 private:
  Node describe(const StmtPtr& s) const {
    Node n;
    n.stmt = s;
    std::unordered_map<const Var*, int> uses;
    collect_uses(s, uses);
    for (const auto& [v, _] : uses) {
      n.uses.insert(v);
      n.reads.insert(loc_.of(v));
    }
    for (const auto& v : collect_assigned(s)) n.defs.insert(v.get());
    const Call* c = nullptr;
    if (const auto* a = as<AssignStmt>(s)) {
      c = as<Call>(a->value);
      if (!c && as_scalar(a->var->type)) n.tier = kScalar;
    } else if (const auto* e = as<EvalStmt>(s)) {
      c = as<Call>(e->expr);
      if (!c) n.barrier = true;
    } else {
      n.barrier = true;  // a loop, an if, a scope
      return n;
    }
    if (!c) return n;
    if (!c->op || c->op->family() == "system") {
      n.barrier = true;
      return n;
    }
    const OpDef& op = *c->op;
    int w = op.written_tensor;
    if (w < 0 && op.output_reuses_input >= 0 && op.pipe_rule != PipeRule::NotInstruction) w = op.output_reuses_input;
    if (w >= 0 && size_t(w) < c->args.size())
      if (const Var* l = loc_.of(c->args[size_t(w)])) n.writes.insert(l);
    switch (op.io_tier) {
      case IoTier::Load: n.tier = kLoad; break;
      case IoTier::Store: n.tier = kStore; break;
      case IoTier::L0Fetch: n.tier = is_memory_load(*c) ? kLoad : kCompute; break;
      case IoTier::Compute:
        if (as_scalar(c->type) && n.tier != kScalar && !op.kernel_gm_scalar) n.tier = kScalar;
        break;
    }
    return n;
  }

  bool touches_memory(const Node& n) const { return n.barrier || !n.reads.empty() || !n.writes.empty(); }

  bool conflict(const std::set<const Var*>& w, const std::set<const Var*>& other) const {
    for (const Var* a : w)
      for (const Var* b : other)
        if (loc_.alias(a, b)) return true;
    return false;
  }

  // Whether `b` (after `a` in source order) must stay after `a`.
  bool depends(const Node& a, const Node& b) const {
    for (const Var* d : a.defs)
      if (b.uses.count(d)) return true;
    if ((a.barrier && touches_memory(b)) || (b.barrier && touches_memory(a))) return true;
    return conflict(a.writes, b.reads) || conflict(a.writes, b.writes) || conflict(b.writes, a.reads);
  }

  StmtPtr reorder(const StmtPtr& body) {
    auto [stmts, yield] = split_trailing_yield(body);
    std::vector<StmtPtr> flat;
    for (const auto& s : stmts)
      for (const auto& c : flatten_body(s)) flat.push_back(c);
    const size_t n = flat.size();
    std::vector<Node> nodes;
    for (const auto& s : flat) nodes.push_back(describe(s));
    std::vector<int> waiting(n, 0);
    std::vector<std::vector<size_t>> after(n);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j)
        if (depends(nodes[i], nodes[j])) {
          after[i].push_back(j);
          ++waiting[j];
        }
    std::vector<size_t> ready;  // the statements whose predecessors are all placed
    for (size_t i = 0; i < n; ++i)
      if (!waiting[i]) ready.push_back(i);
    std::vector<StmtPtr> out;
    while (!ready.empty()) {
      auto best = std::min_element(ready.begin(), ready.end(), [&](size_t x, size_t y) {
        return std::pair(nodes[x].tier, x) < std::pair(nodes[y].tier, y);
      });
      const size_t i = *best;
      ready.erase(best);
      out.push_back(flat[i]);
      for (size_t j : after[i])
        if (--waiting[j] == 0) ready.push_back(j);
    }
    if (yield) out.push_back(yield);
    return make_body(std::move(out), body->span);
  }

  const Locations& loc_;
};

}  // namespace

Pass canonicalize_io_order_pass() {
  return Pass{"CanonicalizeIOOrder",
              "Orders each pl.pipeline loop body scalar -> load -> compute -> store (a list schedule that keeps "
              "every data and buffer dependency, source order among equals) and demotes the loop to a sequential "
              "one; bodies with cross-core FIFO ops keep their order.",
              {{}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                return map_functions(p, [&](const FunctionPtr& f) -> FunctionPtr {
                  if (!f->body) return f;
                  Locations loc(*f);
                  Reorderer r(loc);
                  return r.mutate_function(f);
                });
              }};
}

}  // namespace pypto::passes
