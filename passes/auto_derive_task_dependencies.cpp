// AutoDeriveTaskDependencies — off unless asked for (`pypto build --auto-deps`; PassContext::
// auto_deps), as in the reference. Inside the automatic (tensor-tracked) parts of orchestration
// code it states the ordering the runtime would derive as explicit edges, so the runtime can skip
// tracking the arguments they cover. Per straight-line block of an AUTO context (a function body,
// a loop or if body, a non-manual scope; manual scopes are left to their author):
//   * every task call gets, for each earlier task call of the block that touches the same buffer
//     with a conflict (read-after-write, write-after-read, write-after-write), an edge to it
//     (Dispatch::compiler_deps, printed as attrs={"compiler_manual_dep_edges": [...]}; the earlier
//     call's result stands for its task), unless its deps= already names that task;
//   * an argument whose every hazard is covered that way, on a buffer no statement outside the
//     block touches (and not in a loop body, whose tasks also follow the previous iteration's), is
//     demoted: In → NoDep (the runtime neither waits for nor records it), InOut → OutputExisting
//     (the write stays recorded for later tasks); a read of a buffer nothing writes is NoDep
//     anywhere.
// Buffers are tensor roots (ir/tensor_roots.h) with views followed to the tensor they view, so two
// views of one buffer always conflict (extra edges are safe). It gives up on demotion where
// anything is unknowable: a tensor of unknown root anywhere in the function, an access it cannot
// name a task for (an expression-statement call, an orchestration tensor.read / write). Runs after
// DeriveCallDirections (it reads and rewrites arg_directions), before ExpandManualPhaseFence.
#include <map>
#include <set>

#include "ir/op_registry.h"
#include "ir/tensor_roots.h"
#include "ir/visitor.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

bool is_task_call(const Program& p, const Call* c) {
  if (!c || c->op) return false;
  const FunctionPtr f = p.find(c->callee);
  return f && (f->type == FunctionType::AIV || f->type == FunctionType::AIC || f->type == FunctionType::Group ||
               f->type == FunctionType::InCore);
}

// The tensor operands a call reads or writes, as (operand, writes). A task call's follow its
// argument directions (none derived yet: taken as written). An orchestration op's follow its
// registry entry: a writer (written_tensor) writes that operand and reads the others; a creation
// or a view (an orchestration op whose result is a tensor of its own, TensorRoots' rule) and an
// extent query touch no data; a load-tier op (tensor.read) reads; anything else is taken to write.
std::vector<std::pair<ExprPtr, bool>> accesses(const Program& p, const Call& c) {
  std::vector<std::pair<ExprPtr, bool>> out;
  if (is_task_call(p, &c)) {
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (!c.args[i] || !as_tensor(c.args[i]->type)) continue;
      const ArgDirection d = c.arg_directions.size() == c.args.size() ? c.arg_directions[i] : ArgDirection::inout;
      if (d != ArgDirection::scalar) out.emplace_back(c.args[i], d != ArgDirection::input && d != ArgDirection::no_dep);
    }
    return out;
  }
  if (!c.op) return out;
  const int written = c.op->written_tensor;
  if (written < 0 && ((c.op->orchestration && as_tensor(c.type)) || c.op->lowering == TileLowering::Scalar)) return out;
  for (size_t i = 0; i < c.args.size(); ++i)
    if (c.args[i] && as_tensor(c.args[i]->type))
      out.emplace_back(c.args[i], written >= 0 ? int(i) == written : c.op->io_tier != IoTier::Load);
  return out;
}

class Analysis {
 public:
  Analysis(const Program& p, const Function& f) : p_(p), roots_(p, f) {
    if (!roots_.conflicts().empty()) unknown_ = true;
    struct Defs : IRVisitor {
      std::map<const Var*, ExprPtr>* out;
      void visit_assign(const AssignStmt& s) override {
        (*out)[s.var.get()] = s.value;
        IRVisitor::visit_assign(s);
      }
    } d;
    d.out = &defs_;
    d.visit(f.body);
    scan(f.body);
  }

  // The buffer behind a tensor expression: its root, views followed to what they view.
  const Var* buffer(const ExprPtr& e) const {
    const Var* r = roots_.root(e);
    for (int hops = 0; r && hops < 16; ++hops) {
      auto it = defs_.find(r);
      const auto* c = it == defs_.end() ? nullptr : as<Call>(it->second);
      // A view: an orchestration op giving a tensor of its own from a tensor operand, no writer.
      if (!c || !c->op || !c->op->orchestration || c->op->written_tensor >= 0 || c->args.empty() ||
          !as_tensor(c->args[0]->type))
        break;
      const Var* src = roots_.root(c->args[0]);
      if (!src || src == r) break;
      r = src;
    }
    return r;
  }

  // Where each buffer is touched: the blocks (their bodies) of its accesses.
  std::map<const Var*, std::set<const Stmt*>> regions_of;
  std::set<const Var*> written;  // buffers some access writes
  bool unknown_ = false;   // some access's buffer is unknown: no demotion anywhere

 private:
  void touch(const ExprPtr& e, bool write) {
    if (!as_tensor(e->type)) return;
    const Var* b = buffer(e);
    if (!b) unknown_ = true;
    else regions_of[b].insert(region_);
    if (b && write) written.insert(b);
  }

  void scan(const StmtPtr& body) {
    const Stmt* saved = region_;
    region_ = body.get();
    for (const auto& s : flatten_body(body)) {
      const Call* c = nullptr;
      if (const auto* a = as<AssignStmt>(s)) c = as<Call>(a->value);
      if (const auto* ev = as<EvalStmt>(s)) c = as<Call>(ev->expr);
      if (c)
        for (const auto& [e, write] : accesses(p_, *c)) touch(e, write);
      if (const auto* f = as<ForStmt>(s)) scan(f->body);
      if (const auto* w = as<WhileStmt>(s)) scan(w->body);
      if (const auto* i = as<IfStmt>(s)) {
        scan(i->then_body);
        if (i->else_body) scan(i->else_body);
      }
      if (const auto* sc = as<ScopeStmt>(s)) scan(sc->body);
    }
    region_ = saved;
  }

  const Program& p_;
  TensorRoots roots_;
  std::map<const Var*, ExprPtr> defs_;
  const Stmt* region_ = nullptr;  // the block being scanned
};

class Deriver {
 public:
  Deriver(const Program& p, const Function& f) : p_(p), a_(p, f) {}

  StmtPtr run(const StmtPtr& body) {
    region_ = body.get();
    return block(body, false);
  }

 private:
  struct Access {
    const Var* buffer;
    bool write;
    VarPtr task;  // the call's result (its task), null when the access names no task
  };

  StmtPtr block(const StmtPtr& body, bool manual) {
    if (!body) return body;
    std::vector<Access> seen;
    std::vector<StmtPtr> out;
    bool changed = false;
    for (const auto& s : flatten_body(body)) {
      StmtPtr n = stmt(s, manual, seen);
      changed |= n != s;
      out.push_back(n);
    }
    return changed ? make_body(std::move(out), body->span) : body;
  }

  StmtPtr nested(const StmtPtr& b, bool manual, bool loop = false) {
    const Stmt* saved = region_;
    const bool saved_loop = in_loop_;
    region_ = b.get();
    in_loop_ = in_loop_ || loop;
    StmtPtr r = block(b, manual);
    region_ = saved;
    in_loop_ = saved_loop;
    return r;
  }

  StmtPtr stmt(const StmtPtr& s, bool manual, std::vector<Access>& seen) {
    if (const auto* f = as<ForStmt>(s)) {
      StmtPtr b = nested(f->body, manual, true);
      if (b == f->body) return s;
      auto n = std::make_shared<ForStmt>(*f);
      n->body = b;
      return n;
    }
    if (const auto* w = as<WhileStmt>(s)) {
      StmtPtr b = nested(w->body, manual, true);
      if (b == w->body) return s;
      auto n = std::make_shared<WhileStmt>(*w);
      n->body = b;
      return n;
    }
    if (const auto* i = as<IfStmt>(s)) {
      StmtPtr t = nested(i->then_body, manual), e = nested(i->else_body, manual);
      if (t == i->then_body && e == i->else_body) return s;
      auto n = std::make_shared<IfStmt>(*i);
      n->then_body = t, n->else_body = e;
      return n;
    }
    if (const auto* sc = as<ScopeStmt>(s)) {
      StmtPtr b = nested(sc->body, manual || sc->manual);
      if (b == sc->body) return s;
      auto n = std::make_shared<ScopeStmt>(*sc);
      n->body = b;
      return n;
    }
    const auto* as_ = as<AssignStmt>(s);
    const auto* ev = as<EvalStmt>(s);
    const Call* c = as_ ? as<Call>(as_->value) : ev ? as<Call>(ev->expr) : nullptr;
    if (!c) return s;
    // Every access is recorded after the call's own hazards are looked at; an op's names no task.
    const VarPtr self = as_ && is_task_call(p_, c) ? as_->var : nullptr;
    auto record = [&] {
      for (const auto& [e, write] : accesses(p_, *c)) seen.push_back({a_.buffer(e), write, self});
    };
    if (!is_task_call(p_, c) || manual || c->arg_directions.size() != c->args.size()) {
      record();
      return s;
    }
    std::set<const Var*> user;  // tasks the call's deps= already waits for
    if (c->dispatch)
      for (const auto& d : c->dispatch->deps)
        if (const auto* v = as<Var>(d))
          if (auto it = tid_source_.find(v); it != tid_source_.end()) user.insert(it->second);
    std::vector<VarPtr> edges = c->dispatch ? c->dispatch->compiler_deps : std::vector<VarPtr>{};
    std::vector<ArgDirection> dirs = c->arg_directions;
    for (size_t i = 0; i < c->args.size(); ++i) {
      const ArgDirection d = dirs[i];
      if (!as_tensor(c->args[i]->type) || d == ArgDirection::no_dep || d == ArgDirection::scalar || d == ArgDirection::output)
        continue;
      const Var* b = a_.buffer(c->args[i]);
      const bool write = d != ArgDirection::input;
      bool covered = b != nullptr;
      for (const Access& u : seen) {
        if (!b || !u.buffer || u.buffer != b || !(write || u.write)) {
          if (b && !u.buffer) covered = false;  // an access of unknown buffer may be this one
          continue;
        }
        if (!u.task) {
          covered = false;
          continue;
        }
        if (user.count(u.task.get())) continue;
        if (std::find(edges.begin(), edges.end(), u.task) == edges.end()) edges.push_back(u.task);
      }
      // Demotable: every hazard covered by an edge and the buffer touched in no other block — in a
      // block that runs once (a loop body's tasks also follow the previous iteration's) — or, for a
      // read, a buffer nothing writes.
      const auto rs = b ? a_.regions_of.find(b) : a_.regions_of.end();
      const bool local = rs != a_.regions_of.end() && rs->second == std::set<const Stmt*>{region_} && !in_loop_;
      const bool read_only = b && !a_.written.count(b);
      if (covered && !a_.unknown_) {
        if (d == ArgDirection::input && (local || read_only)) dirs[i] = ArgDirection::no_dep;
        if (d == ArgDirection::inout && local) dirs[i] = ArgDirection::output_existing;
      }
    }
    record();
    const bool same_edges = c->dispatch ? edges == c->dispatch->compiler_deps : edges.empty();
    if (same_edges && dirs == c->arg_directions) return s;
    auto nc = std::make_shared<Call>(*c);
    auto nd = c->dispatch ? std::make_shared<Dispatch>(*c->dispatch) : std::make_shared<Dispatch>();
    nd->compiler_deps = std::move(edges);
    nc->dispatch = nd;
    nc->arg_directions = std::move(dirs);
    if (as_) return with_comments(std::make_shared<AssignStmt>(as_->var, nc, s->span), *s);
    return with_comments(std::make_shared<EvalStmt>(nc, s->span), *s);
  }

 public:
  // TaskIds taken from a submit's result tuple: tid var → the tuple var.
  void note_tids(const StmtPtr& body) {
    struct V : IRVisitor {
      std::map<const Var*, const Var*>* out;
      void visit_assign(const AssignStmt& s) override {
        if (const auto* g = as<TupleGetItem>(s.value))
          if (const auto* t = as<Var>(g->tuple); t && as_scalar(s.var->type) &&
                                                  as_scalar(s.var->type)->dtype == DataType::TASK_ID)
            (*out)[s.var.get()] = t;
        IRVisitor::visit_assign(s);
      }
    } v;
    v.out = &tid_source_;
    v.visit(body);
  }

 private:
  const Program& p_;
  Analysis a_;
  std::map<const Var*, const Var*> tid_source_;
  const Stmt* region_ = nullptr;  // the block being rewritten (its body, as Analysis names it)
  bool in_loop_ = false;  // the block runs once per iteration of an enclosing loop
};

}  // namespace

Pass auto_derive_task_dependencies_pass() {
  return Pass{"AutoDeriveTaskDependencies",
              "With --auto-deps: explicit edges between the task calls of each automatic block that conflict on a "
              "buffer, and the arguments they cover demoted (In → NoDep, InOut → OutputExisting) where nothing "
              "else touches the buffer; off by default, as in the reference.",
              {{Property::CallDirectionsResolved}, {}, {}},
              [](const ProgramPtr& p, PassContext& ctx) {
                if (!ctx.auto_deps) return p;
                return map_functions(p, [&](const FunctionPtr& f) -> FunctionPtr {
                  if (f->type != FunctionType::Orchestration) return f;
                  Deriver d(*p, *f);
                  d.note_tids(f->body);
                  StmtPtr b = d.run(f->body);
                  return b == f->body ? f : with_body(*f, b);
                });
              }};
}

}  // namespace pypto::passes
