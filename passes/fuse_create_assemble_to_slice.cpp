// FuseCreateAssembleToSlice — in orchestration functions, a scratch tensor that kernels fill and
// that is then copied into a bigger tensor,
//     row = pl.create_tensor([1, 8]);  row = self.fill_row(x, r, row);  out = pl.assemble(out, row, [r, 0])
// becomes a window of the bigger tensor that the kernels write in place:
//     row = pl.slice(out, [1, 8], [r, 0]);  row = self.fill_row(x, r, row)
// and the assemble goes (its result is the target itself). Why: PTO2 orchestration code has no
// tensor copy — an assemble outside a kernel cannot be emitted — and the fused form needs none:
// the task writes straight into the target. A loop carry the assemble fed now yields its own
// iter_arg; such pass-through carries are dropped (the return var is the init).
//
// What is fused (the reference's conditions, learnt from its tests):
//   * the assemble's source resolves to exactly one buffer root, a tensor.create (buffer roots:
//     parameters, creations and slices are their own; copies, tuple items, assembles (their
//     target) and loop / if carries follow their sources; a kernel call's result is the Out / InOut
//     argument of its shape and dtype — none when two differently rooted arguments match; a loop
//     that may run zero times (a while, a for without a constant positive trip count) merges
//     its init's root with its yield's, and a merge of two roots is no root);
//   * that root is assembled exactly once, without atomic= (an atomic combine would be lost);
//   * the offsets are a literal list of at least the creation's rank: a lower-rank creation is
//     padded with leading unit dims ([2, 4] assembled into [2, 4, 8] at [b, 0, c] → a [1, 2, 4]
//     slice);
// and, so that the rewrite cannot change a result (stricter than the reference):
//   * the assemble is in the same statement list as the creation (it runs once per creation);
//   * between the two, the created buffer is only handed to calls of program functions or copied,
//     and nothing reads or writes the target's buffer (other fused assembles aside); after the
//     assemble the created buffer is not used at all;
//   * the target and the variables in the offsets are defined before the creation;
//   * once tensor strides are materialized (the kernel parameters handed the created tensor carry
//     strides), the kernel parameters it is handed to take the slice's strides — the target's,
//     the trailing ones for a rank-padded slice — which every call site of that parameter must
//     then agree on, with a constant innermost stride of 1; otherwise the root is not fused.
// Everything else is left as it is (an assemble that stays is rejected by CheckOrchestrationForms,
// whose hint names the form that compiles). Requires SplitIncoreOrch; produces nothing new.
#include <fmt/format.h>

#include <map>
#include <set>
#include <unordered_set>

#include "ir/op_registry.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "passes/pass_util.h"
#include "passes/passes.h"
#include "passes/tensor_access.h"

namespace pypto::passes {

using namespace ir;

namespace {

using Roots = std::vector<const Var*>;
using Strides = std::vector<ExprPtr>;

// ------------------------------------------------------------------ buffer roots
// The buffer roots of every Var of one function; a Var with several candidate roots, or one that
// follows an unresolved value, is ambiguous and has no root.
class BufferRoots {
 public:
  BufferRoots(const Program& p, const Function& f) : program_(p) {
    for (const auto& prm : f.params) record(prm.get(), {prm.get()}, false);
    stmt(f.body);
  }

  const Var* root(const ExprPtr& e) const {
    const auto* v = as<Var>(e);
    if (!v || ambiguous_.count(v)) return nullptr;
    auto it = cands_.find(v);
    return it == cands_.end() || it->second.size() != 1 ? nullptr : it->second[0];
  }
  // Whether `v` may stand for buffer `r` (also when it is ambiguous).
  bool may_be(const Var* v, const Var* r) const {
    auto it = cands_.find(v);
    if (it == cands_.end()) return false;
    for (const Var* c : it->second)
      if (c == r) return true;
    return false;
  }
  // Whether `v` may stand for `r` or for a view (slice, reshape, transpose) of it.
  bool may_touch(const Var* v, const Var* r) const {
    auto it = cands_.find(v);
    if (it == cands_.end()) return false;
    for (const Var* c : it->second)
      for (int guard = 0; c && guard < 1000; ++guard) {
        if (c == r) return true;
        auto up = view_of_.find(c);
        c = up == view_of_.end() ? nullptr : up->second;
      }
    return false;
  }

 private:
  struct Info {
    Roots roots;
    bool ambiguous = false;
  };

  Roots cands(const ExprPtr& e) const {
    const auto* v = as<Var>(e);
    auto it = v ? cands_.find(v) : cands_.end();
    return it == cands_.end() ? Roots{} : it->second;
  }
  bool amb(const ExprPtr& e) const {
    const auto* v = as<Var>(e);
    return v && ambiguous_.count(v);
  }
  static void merge(Roots& into, const Roots& more) {
    for (const Var* r : more)
      if (std::find(into.begin(), into.end(), r) == into.end()) into.push_back(r);
  }
  void record(const Var* v, const Roots& roots, bool unresolved) {
    Roots u;
    merge(u, roots);
    if (u.empty()) return;
    cands_[v] = u;
    if (unresolved || u.size() > 1) ambiguous_.insert(v);
    else ambiguous_.erase(v);
  }

  static bool same_shape_dtype(const TypePtr& a, const TypePtr& b) {
    const auto *ta = as_tensor(a), *tb = as_tensor(b);
    if (!ta || !tb || ta->dtype != tb->dtype || ta->shape.size() != tb->shape.size()) return false;
    for (size_t i = 0; i < ta->shape.size(); ++i)
      if (!structural_equal(ta->shape[i], tb->shape[i])) return false;
    return true;
  }

  // A call to a program function: the roots of its Out / InOut arguments.
  void call(const Var& dst, const Call& c) {
    FunctionPtr callee = program_.find(c.callee);
    if (!callee) return;
    std::vector<std::pair<Info, TypePtr>> outs;
    for (size_t i = 0; i < callee->param_directions.size() && i < c.args.size(); ++i)
      if (callee->param_directions[i] != ParamDirection::In)
        outs.push_back({Info{cands(c.args[i]), amb(c.args[i])}, c.args[i]->type});
    if (as_tuple(c.type)) {
      auto& t = tuples_[&dst];
      for (auto& o : outs) t.push_back(o.first);
      return;
    }
    if (outs.empty()) return;
    if (outs.size() == 1) return record(&dst, outs[0].first.roots, outs[0].first.ambiguous);
    // Several written arguments: the one of the result's shape and dtype, if that is one buffer.
    const Info* match = nullptr;
    bool two = false;
    for (const auto& [info, type] : outs) {
      if (info.roots.empty() || !same_shape_dtype(type, c.type)) continue;
      if (!match) match = &info;
      else if (match->roots != info.roots || match->ambiguous != info.ambiguous) two = true;
    }
    if (match && !two) record(&dst, match->roots, match->ambiguous);
  }

  void assign(const AssignStmt& s) {
    const Var* v = s.var.get();
    if (const auto* c = as<Call>(s.value)) {
      if (!c->op) return call(*v, *c);
      if (c->is_op("tensor.create") || c->is_op("tensor.slice")) record(v, {v}, false);
      if ((c->is_op("tensor.slice") || c->is_op("tensor.reshape") || c->is_op("tensor.transpose")) && !c->args.empty()) {
        Roots src = cands(c->args[0]);
        if (src.size() == 1) view_of_[v] = src[0];
        if (!c->is_op("tensor.slice")) record(v, {v}, false);
      }
      if (c->is_op("tensor.create") || c->is_op("tensor.slice")) return;
      if (c->is_op("tensor.assemble") && c->args.size() == 3) record(v, cands(c->args[0]), amb(c->args[0]));
    } else if (const auto* g = as<TupleGetItem>(s.value)) {
      const auto* tv = as<Var>(g->tuple);
      auto it = tv ? tuples_.find(tv) : tuples_.end();
      if (it != tuples_.end() && g->index >= 0 && size_t(g->index) < it->second.size())
        record(v, it->second[size_t(g->index)].roots, it->second[size_t(g->index)].ambiguous);
    } else if (as<Var>(s.value)) {
      record(v, cands(s.value), amb(s.value));
    }
  }

  template <class Loop>
  void loop(const Loop& l, bool runs) {
    std::vector<Roots> init;
    for (const auto& ia : l.iter_args) {
      init.push_back(cands(ia->init));
      record(ia.get(), init.back(), amb(ia->init));
    }
    stmt(l.body);
    const YieldStmt* y = trailing_yield(l.body);
    if (!y) return;
    for (size_t i = 0; i < l.return_vars.size() && i < y->values.size(); ++i) {
      Roots r = cands(y->values[i]);
      bool unresolved = r.empty() || amb(y->values[i]);
      if (!runs && i < init.size()) {  // zero trips leave the init
        unresolved |= init[i].empty();
        merge(r, init[i]);
      }
      record(l.return_vars[i].get(), r, unresolved);
    }
  }

  static bool runs_at_least_once(const ForStmt& f) {
    auto a = const_int_value(f.start), b = const_int_value(f.stop), c = const_int_value(f.step);
    if (!a || !b || !c || *c == 0) return false;
    return *c > 0 ? *a < *b : *a > *b;
  }

  void stmt(const StmtPtr& s) {
    if (!s) return;
    if (const auto* a = as<AssignStmt>(s)) return assign(*a);
    if (const auto* q = as<SeqStmts>(s)) {
      for (const auto& c : q->stmts) stmt(c);
    } else if (const auto* sc = as<ScopeStmt>(s)) {
      stmt(sc->body);
    } else if (const auto* f = as<ForStmt>(s)) {
      loop(*f, runs_at_least_once(*f));
    } else if (const auto* w = as<WhileStmt>(s)) {
      loop(*w, false);
    } else if (const auto* i = as<IfStmt>(s)) {
      stmt(i->then_body);
      stmt(i->else_body);
      const YieldStmt* yt = trailing_yield(i->then_body);
      const YieldStmt* ye = i->else_body ? trailing_yield(i->else_body) : nullptr;
      if (!yt || !ye) return;
      for (size_t k = 0; k < i->return_vars.size() && k < yt->values.size() && k < ye->values.size(); ++k) {
        Roots r = cands(yt->values[k]), re = cands(ye->values[k]);
        const bool unresolved = r.empty() || re.empty() || amb(yt->values[k]) || amb(ye->values[k]);
        merge(r, re);
        record(i->return_vars[k].get(), r, unresolved);
      }
    }
  }

  const Program& program_;
  std::unordered_map<const Var*, Roots> cands_;
  std::unordered_set<const Var*> ambiguous_;
  std::unordered_map<const Var*, std::vector<Info>> tuples_;
  std::unordered_map<const Var*, const Var*> view_of_;  // a view's root → the root it views
};

// ------------------------------------------------------------------ positions and uses
// Statements numbered in pre-order, each with the statement list it belongs to; every Var read,
// with the way it is read; the position each Var is defined at (parameters: -1).
enum class UseKind { KernelArg, Copy, AssembleSource, Other };
struct Use {
  const Var* var;
  int pos;
  UseKind kind;
  size_t arg;  // KernelArg: the argument index
  const Call* call;
};
struct CreateSite {
  const AssignStmt* stmt;
  int pos;
  int block;
};
struct AssembleSite {
  const AssignStmt* stmt;
  const Call* call;
  int pos;
  int block;
};

class Scanner : public IRVisitor {
 public:
  explicit Scanner(const Function& f) {
    for (const auto& p : f.params) def_pos[p.get()] = -1;
    block_ = next_block_++;
    body(f.body);
  }
  std::vector<Use> uses;
  std::unordered_map<const Var*, int> def_pos;
  std::vector<CreateSite> creates;
  std::vector<AssembleSite> assembles;

 private:
  int pos_ = 0, block_ = 0, next_block_ = 0;
  UseKind kind_ = UseKind::Other;

  void body(const StmtPtr& s) {
    const int saved = block_;
    block_ = next_block_++;
    for (const auto& st : flatten_body(s)) one(st);
    block_ = saved;
  }
  void one(const StmtPtr& s) {
    const int pos = pos_++;
    if (const auto* a = as<AssignStmt>(s)) {
      def_pos[a->var.get()] = pos;
      assign_value(*a, pos);
    } else if (const auto* e = as<EvalStmt>(s)) {
      value(e->expr, pos);
    } else if (const auto* f = as<ForStmt>(s)) {
      for (const auto& x : {f->start, f->stop, f->step}) read(x, pos);
      def_pos[f->loop_var.get()] = pos;
      carries(f->iter_args, f->return_vars, pos);
      body(f->body);
    } else if (const auto* w = as<WhileStmt>(s)) {
      carries(w->iter_args, w->return_vars, pos);
      read(w->cond, pos);
      body(w->body);
    } else if (const auto* i = as<IfStmt>(s)) {
      read(i->cond, pos);
      for (const auto& rv : i->return_vars) def_pos[rv.get()] = pos;
      body(i->then_body);
      if (i->else_body) body(i->else_body);
    } else if (const auto* sc = as<ScopeStmt>(s)) {
      for (const auto& x : sc->header_exprs()) read(x, pos);
      if (sc->task_id) def_pos[sc->task_id.get()] = pos;
      body(sc->body);
    } else if (const auto* y = as<YieldStmt>(s)) {
      for (const auto& x : y->values) read(x, pos);
    } else if (const auto* r = as<ReturnStmt>(s)) {
      for (const auto& x : r->values) read(x, pos);
    }
  }
  void carries(const std::vector<IterArgPtr>& ias, const std::vector<VarPtr>& rvs, int pos) {
    for (const auto& ia : ias) {
      read(ia->init, pos);
      def_pos[ia.get()] = pos;
    }
    for (const auto& rv : rvs) def_pos[rv.get()] = pos;
  }
  void assign_value(const AssignStmt& a, int pos) {
    const auto* c = as<Call>(a.value);
    if (c && c->is_op("tensor.create")) creates.push_back({&a, pos, block_});
    if (c && c->is_op("tensor.assemble") && c->args.size() == 3) {
      assembles.push_back({&a, c, pos, block_});
      if (const auto* src = as<Var>(c->args[1])) uses.push_back({src, pos, UseKind::AssembleSource, 1, c});
      read(c->args[0], pos);
      read(c->args[2], pos);
      return;
    }
    if (const auto* v = as<Var>(a.value)) return uses.push_back({v, pos, UseKind::Copy, 0, nullptr});
    value(a.value, pos);
  }
  void value(const ExprPtr& e, int pos) {
    const auto* c = as<Call>(e);
    if (c && !c->op) {
      for (size_t i = 0; i < c->args.size(); ++i) {
        if (const auto* v = as<Var>(c->args[i])) uses.push_back({v, pos, UseKind::KernelArg, i, c});
        else read(c->args[i], pos);
      }
      if (c->dispatch)
        for (const auto& x : c->dispatch->exprs()) read(x, pos);
      return;
    }
    read(e, pos);
  }
  void read(const ExprPtr& e, int pos) {
    if (!e) return;
    cur_pos_ = pos;
    visit(e);
  }
  int cur_pos_ = 0;

 protected:
  void visit_var(const Var& v) override { uses.push_back({&v, cur_pos_, UseKind::Other, 0, nullptr}); }
  void visit_iter_arg(const IterArg& v) override { uses.push_back({&v, cur_pos_, UseKind::Other, 0, nullptr}); }
};

void collect_vars(const ExprPtr& e, std::vector<const Var*>& out) {
  std::unordered_map<const Var*, int> u;
  collect_uses(e, u);
  for (const auto& [v, n] : u) out.push_back(v);
}

// ------------------------------------------------------------------ the decision
struct Fusion {
  const AssignStmt* create;
  const AssembleSite* assemble;
  const Var* target_root;
  ExprPtr target;               // the target once the fused assembles before this one are gone
  std::vector<ExprPtr> shape;   // the slice's shape (rank-padded)
  Strides strides;              // the slice's strides (strided mode), else empty
};

std::vector<ExprPtr> packed(const std::vector<ExprPtr>& shape) {
  std::vector<ExprPtr> s(shape.size());
  ExprPtr acc = make_int(1);
  for (size_t k = shape.size(); k-- > 0;) {
    s[k] = acc;
    auto a = const_int_value(acc), d = const_int_value(shape[k]);
    acc = a && d ? make_int(*a * *d)
                 : std::make_shared<Binary>(BinOp::Mul, acc, shape[k], scalar_type(DataType::INDEX), Span{});
  }
  return s;
}

std::vector<ExprPtr> strides_of(const TypePtr& t) {
  const auto* tt = as_tensor(t);
  if (!tt) return {};
  if (tt->view && !tt->view->stride.empty()) return tt->view->stride;
  if (tt->view && tt->view->layout != TensorLayout::ND) return {};  // not ours to guess
  return packed(tt->shape);
}

bool same_exprs(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!structural_equal(a[i], b[i])) return false;
  return true;
}

bool stated_strides(const TypePtr& t) {
  const auto* tt = as_tensor(t);
  return tt && tt->view && !tt->view->stride.empty();
}

using ParamKey = std::pair<std::string, size_t>;

class Planner {
 public:
  Planner(const Program& p, const Function& f) : p_(p), f_(f), roots_(p, f), scan_(f) {}

  // The fusions of this function and the strides kernel parameters must take for them.
  std::vector<Fusion> plan(std::set<const Var*>& refused) {
    for (;;) {
      std::vector<Fusion> out = candidates(refused);
      if (out.empty()) return out;
      if (!check_strides(out, refused)) continue;
      std::set<const AssignStmt*> fused_asm;
      for (const auto& f : out) fused_asm.insert(f.assemble->stmt);
      for (auto& f : out) f.target = effective_target(*f.assemble, fused_asm);
      return out;
    }
  }
  std::map<ParamKey, Strides> param_strides;

  const BufferRoots& roots() const { return roots_; }

 private:
  const Program& p_;
  const Function& f_;
  BufferRoots roots_;
  Scanner scan_;

  // Candidates by the reference's conditions, then ours, to a fixed point.
  std::vector<Fusion> candidates(std::set<const Var*>& refused) {
    std::map<const Var*, const CreateSite*> creates;
    for (const auto& c : scan_.creates) creates[c.stmt->var.get()] = &c;
    std::map<const Var*, std::vector<const AssembleSite*>> by_root;
    for (const auto& a : scan_.assembles) {
      const Var* r = roots_.root(a.call->args[1]);
      if (r && creates.count(r)) by_root[r].push_back(&a);
    }
    std::vector<Fusion> fs;
    for (const auto& [r, sites] : by_root) {
      if (refused.count(r) || sites.size() != 1) continue;
      const AssembleSite* a = sites[0];
      if (const AttrValue* at = a->call->kwarg("atomic")) {
        const auto* e = std::get_if<EnumLit>(at);
        if (e && e->member != "None_") continue;
      }
      const CreateSite* c = creates[r];
      auto f = shape_of(*c, *a);
      if (!f) continue;
      fs.push_back(*f);
    }
    // Our conditions depend on which other assembles go: iterate until nothing more drops.
    for (bool changed = true; changed;) {
      changed = false;
      std::set<const AssignStmt*> fused_asm;
      for (const auto& f : fs) fused_asm.insert(f.assemble->stmt);
      for (size_t i = 0; i < fs.size(); ++i) {
        if (safe(fs[i], *creates[fs[i].create->var.get()], fused_asm)) continue;
        refused.insert(fs[i].create->var.get());
        fs.erase(fs.begin() + long(i));
        changed = true;
        break;
      }
    }
    return fs;
  }

  std::optional<Fusion> shape_of(const CreateSite& c, const AssembleSite& a) {
    const auto* ct = as_tensor(c.stmt->var->type);
    const auto* tt = as_tensor(a.call->args[0]->type);
    const auto* offs = as<MakeTuple>(a.call->args[2]);
    const auto* cc = as<Call>(c.stmt->value);
    if (!ct || !tt || !offs || ct->dtype != tt->dtype || offs->elems.size() < ct->shape.size()) return std::nullopt;
    if (offs->elems.size() != tt->shape.size()) return std::nullopt;
    if (const AttrValue* l = cc->kwarg("layout"); l && std::get_if<TensorLayout>(l) && *std::get_if<TensorLayout>(l) != TensorLayout::ND)
      return std::nullopt;
    if (const AttrValue* iv = cc->kwarg("init_value"); iv && !std::holds_alternative<std::monostate>(*iv))
      return std::nullopt;
    const Var* troot = roots_.root(a.call->args[0]);
    if (!troot) return std::nullopt;
    Fusion f{c.stmt, &a, troot, a.call->args[0], {}, {}};
    for (size_t i = ct->shape.size(); i < offs->elems.size(); ++i) f.shape.push_back(make_int(1, c.stmt->span));
    for (const auto& d : ct->shape) f.shape.push_back(d);
    return f;
  }

  // The target an assemble writes once the fused assembles before it are gone.
  ExprPtr effective_target(const AssembleSite& a, const std::set<const AssignStmt*>& fused_asm) const {
    ExprPtr t = a.call->args[0];
    for (int guard = 0; guard < 1000; ++guard) {
      const auto* v = as<Var>(t);
      const AssembleSite* def = nullptr;
      for (const auto& s : scan_.assembles)
        if (v && s.stmt->var.get() == v && fused_asm.count(s.stmt)) def = &s;
      if (!def) return t;
      t = def->call->args[0];
    }
    return t;
  }

  bool safe(const Fusion& f, const CreateSite& c, const std::set<const AssignStmt*>& fused_asm) const {
    const AssembleSite& a = *f.assemble;
    if (a.block != c.block || a.pos <= c.pos) return false;
    const Var* created = c.stmt->var.get();
    for (const Use& u : scan_.uses) {
      if (roots_.may_be(u.var, created) || u.var == created) {
        if (u.kind == UseKind::AssembleSource && u.pos == a.pos) continue;
        if ((u.kind == UseKind::KernelArg || u.kind == UseKind::Copy) && u.pos > c.pos && u.pos < a.pos) continue;
        return false;
      }
      if (u.pos > c.pos && u.pos < a.pos && roots_.may_touch(u.var, f.target_root)) {
        bool by_fused = false;
        for (const auto& s : scan_.assembles)
          if (s.pos == u.pos && fused_asm.count(s.stmt)) by_fused = true;
        if (!by_fused) return false;
      }
    }
    std::vector<const Var*> need;
    collect_vars(effective_target(a, fused_asm), need);
    collect_vars(a.call->args[2], need);
    for (const Var* v : need) {
      auto it = scan_.def_pos.find(v);
      if (it == scan_.def_pos.end() || it->second >= c.pos) return false;
    }
    return true;
  }

  // Strided mode: kernel parameters handed a fused buffer take the slice's strides, if every call
  // site agrees. False (and a refused root) when one does not.
  bool check_strides(std::vector<Fusion>& fs, std::set<const Var*>& refused) {
    param_strides.clear();
    std::map<ParamKey, std::vector<const Var*>> fused_at;  // param → fused roots handed to it
    std::set<ParamKey> plain_at;                           // params handed something else too
    std::map<const Var*, Fusion*> by_root;
    for (auto& f : fs) by_root[f.create->var.get()] = &f;
    for (const Use& u : scan_.uses) {
      if (u.kind != UseKind::KernelArg) continue;
      FunctionPtr k = p_.find(u.call->callee);
      if (!k || u.arg >= k->params.size() || !stated_strides(k->params[u.arg]->type)) continue;
      const ParamKey key{k->name, u.arg};
      const Var* r = nullptr;
      for (auto& [root, f] : by_root)
        if (roots_.may_be(u.var, root) || u.var == root) r = root;
      if (r) fused_at[key].push_back(r);
      else plain_at.insert(key);
    }
    for (auto& [key, rs] : fused_at) {
      FunctionPtr k = p_.find(key.first);
      const auto* pt = as_tensor(k->params[key.second]->type);
      Strides want;
      for (const Var* r : rs) {
        Fusion& f = *by_root[r];
        const Strides s = param_view(f, *pt);
        const bool ok = !s.empty() && (want.empty() || same_exprs(want, s)) &&
                        (!plain_at.count(key) || same_exprs(s, pt->view->stride));
        if (!ok) {
          refused.insert(r);
          return false;
        }
        want = s;
      }
      if (!same_exprs(want, pt->view->stride)) param_strides[key] = want;
    }
    // Kernels are shared by every orchestration function: one handed elsewhere keeps its layout.
    for (const auto& [key, s] : param_strides)
      for (const auto& g : p_.functions)
        if (g.get() != &f_ && calls(*g, key.first)) {
          for (const Var* r : fused_at[key]) refused.insert(r);
          return false;
        }
    return true;
  }

  static bool calls(const Function& g, const std::string& callee) {
    struct Finder : IRVisitor {
      const std::string& name;
      bool found = false;
      explicit Finder(const std::string& n) : name(n) {}
      void visit_call(const Call& c) override {
        found |= !c.op && c.callee == name;
        IRVisitor::visit_call(c);
      }
    } fd(callee);
    fd.visit_function(g);
    return fd.found;
  }

  // The strides a kernel parameter of type `pt` reads the fused slice with; empty when it cannot.
  Strides param_view(Fusion& f, const TensorType& pt) const {
    if (f.strides.empty()) {
      f.strides = strides_of(f.assemble->call->args[0]->type);
      if (f.strides.size() != f.shape.size()) f.strides.clear();
    }
    if (f.strides.empty() || pt.shape.size() > f.shape.size()) return {};
    const size_t lead = f.shape.size() - pt.shape.size();
    for (size_t i = 0; i < lead; ++i)
      if (const_int_value(f.shape[i]) != 1) return {};
    for (size_t i = 0; i < pt.shape.size(); ++i)
      if (!structural_equal(pt.shape[i], f.shape[lead + i])) return {};
    Strides s(f.strides.begin() + long(lead), f.strides.end());
    for (const auto& e : s)
      if (!const_int_value(e)) return {};
    if (s.empty() || const_int_value(s.back()) != 1) return {};
    return s;
  }
};

// ------------------------------------------------------------------ the rewrite
class Rewriter : public IRMutator {
 public:
  Rewriter(const std::vector<Fusion>& fs, bool strided) {
    for (const auto& f : fs) {
      by_create_[f.create] = &f;
      by_assemble_[f.assemble->stmt] = &f;
    }
    strided_ = strided;
  }

 protected:
  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    if (auto it = by_create_.find(s.get()); it != by_create_.end()) {
      const Fusion& f = *it->second;
      const Call& asm_call = *f.assemble->call;
      ExprPtr target = mutate(f.target);
      auto slice = make_call("tensor.slice", {target, index_list(f.shape, s->span), mutate(asm_call.args[2])}, {}, s->span);
      TypePtr t = slice->type;
      if (strided_ && !f.strides.empty()) {
        TensorView view;
        view.stride = f.strides;
        t = with_view(*as_tensor(t), view);
      }
      VarPtr v = s->var;
      if (!structural_equal_type(t, v->type)) {
        v = copy_var_with_type(*s->var, t);
        var_map[s->var.get()] = v;
      }
      auto n = std::make_shared<AssignStmt>(v, std::make_shared<Call>(slice->op, "", slice->args, slice->kwargs, t, slice->span), s->span);
      return with_comments(n, *s);
    }
    if (auto it = by_assemble_.find(s.get()); it != by_assemble_.end()) {
      var_map[s->var.get()] = mutate(it->second->assemble->call->args[0]);
      return nullptr;  // the kernels wrote the target already
    }
    return IRMutator::mutate_assign(s);
  }

  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    StmtPtr r = IRMutator::mutate_seq(s);
    if (r == s) return r;
    return make_body(flatten_body(r), s->span);
  }

  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    StmtPtr r = IRMutator::mutate_for(s);
    const auto* f = as<ForStmt>(r);
    if (!f) return r;
    std::vector<IterArgPtr> ias;
    std::vector<VarPtr> rvs;
    ExprPtr cond;
    StmtPtr body = strip(f->iter_args, f->return_vars, f->body, nullptr, ias, rvs, cond);
    if (!body) {
      if (f->body) return r;
      body = make_body({}, f->span);
      ias = f->iter_args;
      rvs = f->return_vars;
    }
    return with_comments(std::make_shared<ForStmt>(f->loop_var, f->start, f->stop, f->step, std::move(ias), body,
                                                   std::move(rvs), f->kind, f->span, f->stage), *f);
  }

  StmtPtr mutate_while(const std::shared_ptr<const WhileStmt>& s) override {
    StmtPtr r = IRMutator::mutate_while(s);
    const auto* w = as<WhileStmt>(r);
    if (!w) return r;
    std::vector<IterArgPtr> ias;
    std::vector<VarPtr> rvs;
    ExprPtr cond = w->cond;
    StmtPtr body = strip(w->iter_args, w->return_vars, w->body, w->cond, ias, rvs, cond);
    if (!body) {
      if (w->body) return r;
      body = make_body({}, w->span);
      ias = w->iter_args;
      rvs = w->return_vars;
    }
    return with_comments(std::make_shared<WhileStmt>(cond, std::move(ias), body, std::move(rvs), w->span), *w);
  }

 private:
  // Drops the carries a loop now yields unchanged (their return var is the init, and so is the
  // iter_arg inside the body). Null when there is none.
  StmtPtr strip(const std::vector<IterArgPtr>& in_ias, const std::vector<VarPtr>& in_rvs, const StmtPtr& in_body,
                const ExprPtr& in_cond, std::vector<IterArgPtr>& ias, std::vector<VarPtr>& rvs, ExprPtr& cond) {
    auto [stmts, y] = split_trailing_yield(in_body);
    if (!y || y->values.size() != in_ias.size() || in_rvs.size() != in_ias.size()) return nullptr;
    IRMutator sub;
    std::vector<ExprPtr> ys;
    for (size_t i = 0; i < in_ias.size(); ++i) {
      if (as<Var>(y->values[i]) == static_cast<const Var*>(in_ias[i].get())) {
        var_map[in_rvs[i].get()] = in_ias[i]->init;
        sub.var_map[in_ias[i].get()] = in_ias[i]->init;
        continue;
      }
      ias.push_back(in_ias[i]);
      rvs.push_back(in_rvs[i]);
      ys.push_back(y->values[i]);
    }
    if (sub.var_map.empty()) return nullptr;
    if (!ys.empty()) stmts.push_back(with_comments(std::make_shared<YieldStmt>(std::move(ys), y->span), *y));
    StmtPtr body = sub.mutate(make_body(std::move(stmts), in_body->span));
    if (in_cond) cond = sub.mutate(in_cond);
    return body;
  }

  static bool structural_equal_type(const TypePtr& a, const TypePtr& b) { return print_type(a) == print_type(b); }

  std::unordered_map<const AssignStmt*, const Fusion*> by_create_, by_assemble_;
  bool strided_ = false;
};

ProgramPtr fuse(const ProgramPtr& p) {
  std::map<ParamKey, Strides> param_strides;
  std::map<const Function*, FunctionPtr> rewritten;
  for (const auto& f : p->functions) {
    if (f->type != FunctionType::Orchestration) continue;
    std::set<const Var*> refused;
    Planner planner(*p, *f);
    std::vector<Fusion> fs = planner.plan(refused);
    if (fs.empty()) continue;
    Rewriter rw(fs, true);
    rewritten[f.get()] = rw.mutate_function(f);
    param_strides.insert(planner.param_strides.begin(), planner.param_strides.end());
  }
  if (rewritten.empty()) return p;
  return map_functions(p, [&](const FunctionPtr& f) -> FunctionPtr {
    if (auto it = rewritten.find(f.get()); it != rewritten.end()) return it->second;
    std::unordered_map<const Var*, Strides> params;
    for (size_t i = 0; i < f->params.size(); ++i)
      if (auto it = param_strides.find({f->name, i}); it != param_strides.end()) params[f->params[i].get()] = it->second;
    if (params.empty()) return f;
    return retype_vars(f, [&](const Var& v) -> TypePtr {
      auto it = params.find(&v);
      if (it == params.end()) return nullptr;
      TensorView view = as_tensor(v.type)->view.value_or(TensorView{});
      view.stride = it->second;
      return with_view(*as_tensor(v.type), view);
    });
  });
}

}  // namespace

Pass fuse_create_assemble_to_slice_pass() {
  return Pass{"FuseCreateAssembleToSlice",
              "In orchestration functions, a tensor.create that kernels write and that is then assembled once (not "
              "atomically) into a target becomes a tensor.slice of the target at the assemble's offsets (leading unit "
              "dims pad a lower-rank creation), so the kernels write the target in place; the assemble is dropped and "
              "loop carries left passing their iter_arg through are removed. Kernel parameters handed the slice take "
              "its strides once strides are materialized.",
              {{Property::SplitIncoreOrch}, {}, {}},
              [](const ProgramPtr& p, PassContext&) { return fuse(p); }};
}

}  // namespace pypto::passes
