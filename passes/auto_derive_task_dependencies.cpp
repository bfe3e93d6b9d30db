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
#include <fmt/format.h>

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
    region_ = next_region_++;
    scan(f.body, false);
  }

  // The buffer behind a tensor expression: its root, views followed to what they view.
  const Var* buffer(const ExprPtr& e) const {
    const Var* r = roots_.root(e);
    for (int hops = 0; r && hops < 16; ++hops) {
      auto it = defs_.find(r);
      const auto* c = it == defs_.end() ? nullptr : as<Call>(it->second);
      static const std::set<std::string> views = {"tensor.slice", "tensor.reshape", "tensor.transpose"};
      if (!c || !c->op || !views.count(c->op->name) || c->args.empty()) break;
      const Var* src = roots_.root(c->args[0]);
      if (!src || src == r) break;
      r = src;
    }
    return r;
  }

  // Where each buffer is touched: the blocks (region ids) of its accesses.
  std::map<const Var*, std::set<int>> regions_of;
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

  void scan(const StmtPtr& body, bool manual) {
    for (const auto& s : flatten_body(body)) {
      const Call* c = nullptr;
      if (const auto* a = as<AssignStmt>(s)) c = as<Call>(a->value);
      if (const auto* ev = as<EvalStmt>(s)) c = as<Call>(ev->expr);
      const bool task = c && is_task_call(p_, c);
      if (c && (task || (c->op && c->op->name != "tensor.create" && c->op->name != "tensor.slice" &&
                         c->op->name != "tensor.reshape" && c->op->name != "tensor.transpose" &&
                         c->op->name != "tensor.dim")))
        for (size_t i = 0; i < c->args.size(); ++i) {
          if (!c->args[i]) continue;
          const bool read_only = task ? i < c->arg_directions.size() && (c->arg_directions[i] == ArgDirection::input ||
                                                                         c->arg_directions[i] == ArgDirection::no_dep)
                                      : c->op->name == "tensor.read";
          touch(c->args[i], !read_only);
        }
      auto nested = [&](const StmtPtr& b, bool m) {
        const int saved = region_;
        region_ = next_region_++;
        scan(b, m);
        region_ = saved;
      };
      if (const auto* f = as<ForStmt>(s)) nested(f->body, manual);
      if (const auto* w = as<WhileStmt>(s)) nested(w->body, manual);
      if (const auto* i = as<IfStmt>(s)) {
        nested(i->then_body, manual);
        nested(i->else_body, manual);
      }
      if (const auto* sc = as<ScopeStmt>(s)) nested(sc->body, manual || sc->manual);
    }
  }

  const Program& p_;
  TensorRoots roots_;
  std::map<const Var*, ExprPtr> defs_;
  int region_ = 0, next_region_ = 0;
};

class Deriver {
 public:
  Deriver(const Program& p, const Function& f) : p_(p), a_(p, f) {}

  StmtPtr run(const StmtPtr& body) {
    region_ = next_region_++;
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
    const int saved = region_;
    const bool saved_loop = in_loop_;
    region_ = next_region_++;
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
    if (!is_task_call(p_, c)) {
      static const std::set<std::string> silent = {"tensor.create", "tensor.slice", "tensor.reshape", "tensor.transpose",
                                                   "tensor.dim"};
      if (c->op && !silent.count(c->op->name))
        for (const auto& a : c->args)
          if (a && as_tensor(a->type)) seen.push_back({a_.buffer(a), c->op->name != "tensor.read", nullptr});
      return s;
    }
    VarPtr self = as_ ? as_->var : nullptr;
    if (manual || c->arg_directions.size() != c->args.size()) {
      record(*c, self, seen);
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
      const bool local = rs != a_.regions_of.end() && rs->second == std::set<int>{region_} && !in_loop_;
      const bool read_only = b && !a_.written.count(b);
      if (covered && !a_.unknown_) {
        if (d == ArgDirection::input && (local || read_only)) dirs[i] = ArgDirection::no_dep;
        if (d == ArgDirection::inout && local) dirs[i] = ArgDirection::output_existing;
      }
    }
    record(*c, self, seen);
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

  // The accesses of a task call `c` whose result is `self` (null: an expression statement).
  void record(const Call& c, const VarPtr& self, std::vector<Access>& seen) {
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (!c.args[i] || !as_tensor(c.args[i]->type)) continue;
      const ArgDirection d = i < c.arg_directions.size() ? c.arg_directions[i] : ArgDirection::inout;
      if (d == ArgDirection::scalar) continue;
      seen.push_back({a_.buffer(c.args[i]), d != ArgDirection::input && d != ArgDirection::no_dep, self});
    }
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
  int region_ = 0, next_region_ = 0;
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
