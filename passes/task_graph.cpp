// The orchestration's task graph (see task_graph.h).
#include "passes/task_graph.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "ir/ir.h"
#include "ir/printer.h"

namespace pypto::passes {

using namespace ir;

namespace {

std::string type_text(const TypePtr& t) {
  const auto* s = as_shaped(t);
  if (!s) return print_type(t);
  std::string o = "[";
  for (size_t i = 0; i < s->shape.size(); ++i) {
    auto v = const_int_value(s->shape[i]);
    o += (i ? ", " : "") + (v ? std::to_string(*v) : print_expr(s->shape[i]));
  }
  return o + "] " + std::string(dtype_name(s->dtype));
}

class Builder {
 public:
  Builder(const Program& p, const Function& f, TaskGraph& g) : prog_(p), g_(g) {
    g_.function = f.name;
    for (size_t i = 0; i < f.params.size(); ++i) {
      if (!as_shaped(f.params[i]->type)) continue;
      roots_[f.params[i].get()] = {add_tensor(f.params[i]->name, f.params[i]->type, true, f.param_directions[i])};
    }
    block(f.body, -1);
  }

 private:
  struct State {
    std::map<int, std::set<int>> writers, readers;  // per tensor: last writers, readers since
  };
  const Program& prog_;
  TaskGraph& g_;
  std::map<const Var*, std::vector<int>> roots_;  // a Var -> the tensors it stands for
  State st_;
  std::map<const Stmt*, int> task_of_;             // a call statement's task (the first walk)
  std::map<std::pair<int, int>, size_t> edge_at_;  // (from, to) -> index in g_.edges
  bool replay_ = false;                            // walking a loop body a second time
  int replay_region_ = -1;

  int add_tensor(const std::string& name, const TypePtr& t, bool param, ParamDirection d) {
    g_.tensors.push_back({name, type_text(t), param, d});
    return int(g_.tensors.size()) - 1;
  }

  std::vector<int> roots(const ExprPtr& e) const {
    if (const auto* v = as<Var>(e))
      if (auto it = roots_.find(v); it != roots_.end()) return it->second;
    if (const auto* t = as<TupleGetItem>(e)) {
      auto r = roots(t->tuple);
      if (t->index >= 0 && size_t(t->index) < r.size()) return {r[size_t(t->index)]};
    }
    return {};
  }

  bool in_region(int region, int outer) const {
    for (int r = region; r >= 0; r = g_.regions[size_t(r)].parent)
      if (r == outer) return true;
    return false;
  }

  void edge(int from, int to, const std::string& why) {
    if (from == to && !replay_) return;
    bool carried = false;
    if (replay_) {
      // The second walk of a loop body finds the edges into the next iteration: only those from a
      // task of this loop at or after the consumer are new.
      if (!in_region(g_.tasks[size_t(from)].region, replay_region_) || from < to) return;
      carried = true;
    }
    auto key = std::make_pair(from, to);
    auto it = edge_at_.find(key);
    if (it == edge_at_.end()) {
      edge_at_[key] = g_.edges.size();
      g_.edges.push_back({from, to, why, carried});
      return;
    }
    GraphEdge& e = g_.edges[it->second];
    if (e.reasons.find(why) == std::string::npos) e.reasons += " + " + why;
  }

  void task(const Call& c, const Stmt& s, const VarPtr& result, int region) {
    int id;
    if (replay_) {
      id = task_of_.at(&s);
    } else {
      id = int(g_.tasks.size());
      task_of_[&s] = id;
      g_.tasks.push_back({c.callee, c.span.line ? c.span : s.span, region, {}});
    }
    std::vector<int> written;
    for (size_t i = 0; i < c.args.size(); ++i) {
      const ArgDirection d = i < c.arg_directions.size() ? c.arg_directions[i] : ArgDirection::input;
      if (d == ArgDirection::scalar || d == ArgDirection::no_dep) continue;
      const bool rd = d == ArgDirection::input || d == ArgDirection::inout;
      const bool wr = d == ArgDirection::output || d == ArgDirection::output_existing || d == ArgDirection::inout;
      std::vector<int> rs = roots(c.args[i]);
      if (rs.empty() && wr && d == ArgDirection::output && !replay_)
        rs = {add_tensor(print_expr(c.args[i]), c.args[i]->type, false, ParamDirection::Out)};
      const std::string via = print_expr(c.args[i]);
      for (int r : rs) {
        const std::string& tn = g_.tensors[size_t(r)].name;
        if (rd)
          for (int w : st_.writers[r]) edge(w, id, "RAW " + tn);
        if (wr) {
          for (int w : st_.writers[r]) edge(w, id, "WAW " + tn);
          for (int x : st_.readers[r]) edge(x, id, "WAR " + tn);
        }
        if (!replay_) g_.tasks[size_t(id)].accesses.push_back({r, rd, wr, via});
      }
      for (int r : rs) {
        if (rd) st_.readers[r].insert(id);
        if (wr) {
          st_.writers[r] = {id};
          st_.readers[r].clear();
          written.push_back(r);
        }
      }
    }
    if (result) roots_[result.get()] = written;  // a kernel returns what it writes, in order
  }

  void assign(const AssignStmt& s, int region) {
    const auto* c = as<Call>(s.value);
    if (c && !c->op && prog_.find(c->callee) && computes_on_chip(*prog_.find(c->callee))) {
      task(*c, s, s.var, region);
      return;
    }
    if (c && c->op) {
      // A view (slice, reshape, transpose, ...) stands for what its first tensor argument does; a
      // created tensor is a new one.
      if (c->op->name == "tensor.create" || c->op->name == "tensor.full") {
        if (!replay_) roots_[s.var.get()] = {add_tensor(s.var->name, s.var->type, false, ParamDirection::Out)};
        return;
      }
      for (const auto& a : c->args)
        if (auto r = roots(a); !r.empty()) {
          roots_[s.var.get()] = r;
          return;
        }
      return;
    }
    if (auto r = roots(s.value); !r.empty()) roots_[s.var.get()] = r;  // an alias
  }

  void block(const StmtPtr& body, int region) {
    if (!body) return;
    for (const auto& s : flatten_body(body)) stmt(s, region);
  }

  int new_region(int parent, std::string label, bool loop) {
    if (replay_) return -1;
    g_.regions.push_back({parent, std::move(label), loop});
    return int(g_.regions.size()) - 1;
  }

  void stmt(const StmtPtr& s, int region) {
    if (const auto* a = as<AssignStmt>(s)) return assign(*a, region);
    if (const auto* e = as<EvalStmt>(s)) {
      if (const auto* c = as<Call>(e->expr); c && !c->op && prog_.find(c->callee) && computes_on_chip(*prog_.find(c->callee)))
        task(*c, *s, nullptr, region);
      return;
    }
    if (const auto* sc = as<ScopeStmt>(s)) return block(sc->body, region);
    if (const auto* f = as<ForStmt>(s)) {
      std::string label = fmt::format("for {} in range({}, {}, {})", f->loop_var->name, print_expr(f->start),
                                      print_expr(f->stop), print_expr(f->step));
      auto a = const_int_value(f->start), b = const_int_value(f->stop), st = const_int_value(f->step);
      if (a && b && st && *st > 0) label += fmt::format(": {} iterations", std::max<int64_t>(0, (*b - *a + *st - 1) / *st));
      if (f->kind != ForKind::Sequential) label += fmt::format(" ({})", to_string(f->kind));
      loop(f->iter_args, f->body, f->return_vars, region, label, s.get(), f->kind == ForKind::Parallel);
      return;
    }
    if (const auto* w = as<WhileStmt>(s)) {
      loop(w->iter_args, w->body, w->return_vars, region, "while " + print_expr(w->cond), s.get(), false);
      return;
    }
    if (const auto* i = as<IfStmt>(s)) {
      const int rt = replay_ ? region_of_.at({s.get(), 0}) : new_region(region, "if " + print_expr(i->cond), false);
      if (!replay_) region_of_[{s.get(), 0}] = rt;
      State before = st_;
      block(i->then_body, rt);
      State after_then = st_;
      st_ = before;
      if (i->else_body) {
        const int re = replay_ ? region_of_.at({s.get(), 1}) : new_region(region, "else", false);
        if (!replay_) region_of_[{s.get(), 1}] = re;
        block(i->else_body, re);
      }
      for (auto& [t, ws] : after_then.writers) st_.writers[t].insert(ws.begin(), ws.end());
      for (auto& [t, rs] : after_then.readers) st_.readers[t].insert(rs.begin(), rs.end());
      alias_yields(i->then_body, i->return_vars);
      return;
    }
  }

  std::map<std::pair<const Stmt*, int>, int> region_of_;

  // Results of a loop / if stand for what the body yields (else: the carried value).
  void alias_yields(const StmtPtr& body, const std::vector<VarPtr>& results) {
    if (!body) return;
    auto stmts = flatten_body(body);
    for (auto it = stmts.rbegin(); it != stmts.rend(); ++it)
      if (const auto* y = as<YieldStmt>(*it)) {
        for (size_t k = 0; k < results.size() && k < y->values.size(); ++k)
          if (auto r = roots(y->values[k]); !r.empty()) roots_[results[k].get()] = r;
        return;
      }
  }

  void loop(const std::vector<IterArgPtr>& ias, const StmtPtr& body, const std::vector<VarPtr>& rvs, int region,
            const std::string& label, const Stmt* key, bool parallel) {
    const int r = replay_ ? region_of_.at({key, 0}) : new_region(region, label, true);
    if (!replay_) region_of_[{key, 0}] = r;
    for (const auto& ia : ias)
      if (auto rs = roots(ia->init); !rs.empty()) roots_[ia.get()] = rs;
    block(body, r);
    // Once more, for what an iteration hands the next (not for a pl.parallel loop, whose
    // iterations the program declares independent).
    alias_yields(body, std::vector<VarPtr>(ias.begin(), ias.end()));
    if (parallel) {
      for (size_t k = 0; k < rvs.size() && k < ias.size(); ++k)
        if (auto rs = roots(ias[k]); !rs.empty()) roots_[rvs[k].get()] = rs;
      alias_yields(body, rvs);
      return;
    }
    const bool was = replay_;
    const int was_region = replay_region_;
    replay_ = true;
    replay_region_ = r;
    block(body, r);
    replay_ = was;
    replay_region_ = was_region;
    for (size_t k = 0; k < rvs.size() && k < ias.size(); ++k)
      if (auto rs = roots(ias[k]); !rs.empty()) roots_[rvs[k].get()] = rs;
    alias_yields(body, rvs);
  }
};

}  // namespace

TaskGraph task_graph(const Program& program) {
  TaskGraph g;
  for (const auto& f : program.functions)
    if (f->type == FunctionType::Orchestration) {
      Builder(program, *f, g);
      break;
    }
  return g;
}

}  // namespace pypto::passes
