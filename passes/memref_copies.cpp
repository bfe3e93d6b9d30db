// Copy insertion for InitMemRef (memref_copies.h): decides where one on-chip buffer may not be
// shared by the Vars InitMemRef would put into it, and inserts `tile.move` copies there.
//
// The model. Every tile Var is a node; InitMemRef's sharing rules are edges between nodes. Some
// edges are aliases — the Var is the same bytes as its source and writes nothing: `a = b`, a
// view (`tile.reshape`), a loop's iter_arg and return_var. The others are *sites* where a value
// is handed into a buffer that may still hold another live value, and where a copy can be put:
//   * Init    a loop's initial value → its iter_arg            (copy before the loop)
//   * Yield   a loop body's yielded value → its iter_arg       (copy before the body's yield)
//   * Arm     an if arm's yielded value → the if's return_var  (copy before the arm's yield)
//   * InPlace an in-place op's reused operand → its result     (copy before the op)
// A site whose copy is kept gets a fresh copy node that writes the buffer at the copy's position
// and reads the source there; a shared site is an edge. Nodes connected by edges are one buffer.
//
// Liveness. Statements are numbered in a linear walk; a node is defined at its binding and used
// wherever it is read; a node defined outside a loop and read inside it is also used at the loop's
// end (the next iteration reads it again). A buffer is clobbered when a write — an op result that
// is not a view, or a kept copy — at position p overwrites a node v of the same buffer defined
// before p that is still used after p (a use reachable from p: not in the other arm of an if that
// holds p), or used at p itself by an op that may not write its result over that operand
// (`not_inplace_safe`, `forbid_output_alias`, a widening cast, and tile.move).
//
// The decision. With every site shared (InitMemRef's rules as they were), a function without a
// clobber is returned unchanged. Otherwise every site starts with its copy (a loop whose yield
// copies would clobber each other — carries that exchange their values — copies through
// temporaries first), and the sites are then shared again one by one in program order whenever
// that creates no clobber; the copies that remain are inserted.
#include "passes/memref_copies.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "ir/op_registry.h"
#include "passes/pass_util.h"

namespace pypto::passes {

using namespace ir;

namespace {

enum class Site : uint8_t { Init, Yield, Arm, InPlace };

struct SiteKey {
  const Stmt* stmt;  // the loop, the if or the in-place assignment (of the input function)
  Site site;
  size_t index;      // iter_arg / return_var / operand index
  int arm;           // Arm: 0 then, 1 else
  bool operator<(const SiteKey& o) const {
    return std::tie(stmt, site, index, arm) < std::tie(o.stmt, o.site, o.index, o.arm);
  }
};

struct SiteInfo {
  SiteKey key;
  MemorySpace space;
  Span span;
  std::string source;  // name of the Var that would need the copy
};

struct Decisions {
  bool keep_default = false;           // sites not in `keep`
  std::map<SiteKey, bool> keep;        // true: the site gets a copy
  std::set<SiteKey> staged;            // kept yield sites whose copy goes through a temporary
  bool kept(const SiteKey& k) const {
    auto it = keep.find(k);
    return it == keep.end() ? keep_default : it->second;
  }
};

bool is_view(const OpDef& op) { return op.output_reuses_input >= 0 && op.pipe_rule == PipeRule::NotInstruction; }

const Var* tile_var(const ExprPtr& e) {
  const auto* v = as<Var>(e);
  return v && as_tile(v->type) ? v : nullptr;
}

// Tile Vars whose value is never observed: bound by an assignment and read only by the assignments
// of such Vars (e.g. `t_1 = pl.add(t, 1.0)` with t_1 unused). Their reads need no intact operand.
class DeadTiles : public IRVisitor {
 public:
  std::unordered_set<const Var*> dead;
  explicit DeadTiles(const Function& f) {
    visit(f.body);
    std::vector<const Var*> work(roots_.begin(), roots_.end());
    std::unordered_set<const Var*> live(roots_.begin(), roots_.end());
    while (!work.empty()) {
      const Var* v = work.back();
      work.pop_back();
      auto it = reads_.find(v);
      if (it == reads_.end()) continue;
      for (const auto& [u, n] : it->second)
        if (live.insert(u).second) work.push_back(u);
    }
    for (const auto& [v, r] : reads_)
      if (!live.count(v)) dead.insert(v);
  }

 private:
  std::unordered_map<const Var*, std::unordered_map<const Var*, int>> reads_;  // tile assignment → its reads
  std::unordered_set<const Var*> roots_;                                      // read by anything else

 protected:
  void visit_var(const Var& v) override { roots_.insert(&v); }
  void visit_iter_arg(const IterArg& v) override { roots_.insert(&v); }
  void visit_assign(const AssignStmt& s) override {
    if (!as_tile(s.var->type)) return IRVisitor::visit_assign(s);
    collect_uses(s.value, reads_[s.var.get()]);
  }
};

struct Node {
  int def = -1;
  std::vector<int> uses;
  bool write = false;
  const Call* call = nullptr;          // the writing op; nullptr for a copy (tile.move)
  const Stmt* yield_loop = nullptr;    // a Yield copy: its loop
};

struct ArmRanges {
  int then_first, then_last, else_first, else_last;
};

// One walk of the function under given decisions: nodes, positions, buffers, sites.
class Model : public IRVisitor {
 public:
  Model(const Decisions& d, const std::unordered_set<const Var*>& dead) : d_(d), dead_(dead) {}

  std::vector<Node> nodes;
  std::vector<SiteInfo> sites;  // in program order

  void build(const Function& f) {
    for (const auto& p : f.params) node_of(p.get());
    visit(f.body);
  }
  int find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  int node_of(const Var* v) {
    if (!v || !as_tile(v->type)) return -1;
    auto it = ids_.find(v);
    if (it != ids_.end()) return it->second;
    const int id = new_node(-1);
    ids_.emplace(v, id);
    return id;
  }
  int node_of(const ExprPtr& e) { return node_of(tile_var(e)); }

  // Is position q reachable after position p (p < q)? Not when they are in different arms of an if.
  bool reachable(int p, int q) const {
    for (const auto& a : arms_)
      if (a.then_first <= p && p <= a.then_last && a.else_first <= q && q <= a.else_last) return false;
    return true;
  }

 private:
  const Decisions& d_;
  const std::unordered_set<const Var*>& dead_;  // DeadTiles: their reads are not uses
  std::unordered_map<const Var*, int> ids_;
  std::vector<int> parent_;
  std::vector<ArmRanges> arms_;
  struct Loop {
    int start;
    std::vector<int> outer;  // nodes defined before the loop and used inside it
  };
  std::vector<Loop> loops_;
  int pos_ = 0;

  int new_node(int def, bool write = false) {
    nodes.push_back(Node{def, {}, write, nullptr, nullptr});
    parent_.push_back(int(parent_.size()));
    return int(nodes.size()) - 1;
  }
  void unite(int a, int b) {
    if (a < 0 || b < 0) return;
    a = find(a);
    b = find(b);
    if (a != b) parent_[b] = a;
  }
  void use(int id, int at) {
    if (id < 0) return;
    nodes[id].uses.push_back(at);
    for (auto& l : loops_)
      if (nodes[id].def < l.start) l.outer.push_back(id);
  }
  void define(int id, int at) {
    if (id >= 0) nodes[id].def = at;
  }
  bool site(const SiteKey& k, const ExprPtr& source, const Span& sp) {
    const auto* v = tile_var(source);
    sites.push_back({k, as_tile(v->type)->space.value_or(MemorySpace::Vec), sp, v->name});
    return d_.kept(k);
  }

 protected:
  void visit_var(const Var& v) override { use(node_of(&v), pos_); }
  void visit_iter_arg(const IterArg& v) override { use(node_of(&v), pos_); }

  void visit_assign(const AssignStmt& s) override {
    const auto* c = as<Call>(s.value);
    const int res = node_of(s.var.get());
    const OpDef* op = c ? c->op : nullptr;
    int k = op && res >= 0 && !is_view(*op) ? op->output_reuses_input : -1;
    if (k >= 0 && (size_t(k) >= c->args.size() || !tile_var(c->args[k]))) k = -1;
    const bool dead = dead_.count(s.var.get()) != 0;
    int copy = -1;
    if (k >= 0 && site({&s, Site::InPlace, size_t(k), 0}, c->args[k], s.span)) {
      copy = new_node(++pos_, true);
      if (!dead) use(node_of(c->args[k]), pos_);
    }
    ++pos_;
    if (dead) {
      // reads nothing that matters; still writes its buffer below
    } else if (c) {
      for (size_t i = 0; i < c->args.size(); ++i) {
        if (int(i) == k && copy >= 0) use(copy, pos_);
        else visit(c->args[i]);
      }
    } else {
      visit(s.value);
    }
    if (res < 0) return;
    define(res, pos_);
    if (tile_var(s.value)) return unite(res, node_of(s.value));  // `a = b`: the same bytes
    if (op && is_view(*op)) return unite(res, node_of(c->args[op->output_reuses_input]));
    nodes[res].write = true;
    nodes[res].call = c;
    if (k >= 0) unite(res, copy >= 0 ? copy : node_of(c->args[k]));
  }
  void visit_eval(const EvalStmt& s) override {
    ++pos_;
    IRVisitor::visit_eval(s);
  }
  void visit_return(const ReturnStmt& s) override {
    ++pos_;
    IRVisitor::visit_return(s);
  }
  void visit_yield(const YieldStmt& s) override {  // a yield that ends no loop body or if arm
    ++pos_;
    IRVisitor::visit_yield(s);
  }

  // A loop body or if arm whose trailing yield hands value i to the buffer of `slots[i]`.
  void body_with_yield(const StmtPtr& body, const Stmt* owner, Site kind, int arm, const std::vector<int>& slots) {
    auto [stmts, y] = split_trailing_yield(body);
    for (const auto& st : stmts) visit(st);
    if (!y) return;
    const size_t n = y->values.size();
    std::vector<int> src(n, -1), copy(n, -1);
    std::vector<bool> keep(n, false);
    for (size_t i = 0; i < n; ++i) {
      if (i >= slots.size() || slots[i] < 0 || (src[i] = node_of(y->values[i])) < 0) continue;
      keep[i] = site({owner, kind, i, arm}, y->values[i], y->span);
    }
    std::vector<int> from = src;
    for (size_t i = 0; i < n; ++i)
      if (keep[i] && d_.staged.count({owner, kind, i, arm})) {
        const int t = new_node(++pos_, true);
        use(src[i], pos_);
        from[i] = t;
      }
    for (size_t i = 0; i < n; ++i)
      if (keep[i]) {
        copy[i] = new_node(++pos_, true);
        nodes[copy[i]].yield_loop = kind == Site::Yield ? owner : nullptr;
        use(from[i], pos_);
      }
    ++pos_;
    for (size_t i = 0; i < n; ++i) {
      if (keep[i]) {
        use(copy[i], pos_);
        unite(slots[i], copy[i]);
      } else if (src[i] >= 0) {
        use(src[i], pos_);
        if (i < slots.size()) unite(slots[i], src[i]);
      } else {
        visit(y->values[i]);
      }
    }
  }

  void loop(const Stmt& s, const std::vector<IterArgPtr>& ias, const ExprPtr& cond, const StmtPtr& body,
            const std::vector<VarPtr>& rvs) {
    std::vector<int> src(ias.size(), -1), copy(ias.size(), -1), slots(ias.size(), -1);
    for (size_t i = 0; i < ias.size(); ++i) {
      slots[i] = node_of(ias[i].get());
      if (slots[i] < 0 || (src[i] = node_of(ias[i]->init)) < 0) {
        visit(ias[i]->init);
        continue;
      }
      if (site({&s, Site::Init, i, 0}, ias[i]->init, s.span)) {
        copy[i] = new_node(++pos_, true);
        use(src[i], pos_);
      }
    }
    const int start = ++pos_;
    for (size_t i = 0; i < ias.size(); ++i) {
      define(slots[i], start);
      if (copy[i] >= 0) {
        use(copy[i], start);
        unite(slots[i], copy[i]);
      } else if (src[i] >= 0) {
        use(src[i], start);
        unite(slots[i], src[i]);
      }
    }
    loops_.push_back({start, {}});
    if (cond) visit(cond);
    body_with_yield(body, &s, Site::Yield, 0, slots);
    const int end = ++pos_;
    Loop l = std::move(loops_.back());
    loops_.pop_back();
    for (int id : l.outer) nodes[id].uses.push_back(end);
    for (size_t i = 0; i < rvs.size(); ++i) {
      const int rv = node_of(rvs[i].get());
      define(rv, end);
      if (i < slots.size()) unite(rv, slots[i]);
    }
  }
  void visit_for(const ForStmt& s) override {
    visit(s.start);
    visit(s.stop);
    visit(s.step);
    loop(s, s.iter_args, nullptr, s.body, s.return_vars);
  }
  void visit_while(const WhileStmt& s) override { loop(s, s.iter_args, s.cond, s.body, s.return_vars); }

  void visit_if(const IfStmt& s) override {
    ++pos_;
    visit(s.cond);
    std::vector<int> slots;
    for (const auto& rv : s.return_vars) slots.push_back(node_of(rv.get()));
    ArmRanges a{};
    a.then_first = pos_ + 1;
    body_with_yield(s.then_body, &s, Site::Arm, 0, slots);
    a.then_last = pos_;
    a.else_first = pos_ + 1;
    if (s.else_body) body_with_yield(s.else_body, &s, Site::Arm, 1, slots);
    a.else_last = pos_;
    arms_.push_back(a);
    ++pos_;
    for (int rv : slots) define(rv, pos_);
  }
};

// May the op that defines `w` write its result over operand node `v`, which it reads?
bool touch_ok(Model& m, const Node& w, int v) {
  if (!w.call || !w.call->op) return false;  // a copy (tile.move) or a function call
  const OpDef& op = *w.call->op;
  for (size_t i = 0; i < w.call->args.size(); ++i) {
    if (m.node_of(w.call->args[i]) != v || int(i) == op.output_reuses_input) continue;
    if (op.not_inplace_safe) return false;
    if (std::find(op.forbid_output_alias.begin(), op.forbid_output_alias.end(), int(i)) != op.forbid_output_alias.end())
      return false;
    if (op.name == "tile.cast") {
      const auto* ti = as_tile(w.call->args[i]->type);
      const auto* to = as_tile(w.call->type);
      if (ti && to && dtype_bits(to->dtype) > dtype_bits(ti->dtype)) return false;
    }
  }
  return true;
}

struct Clobber {
  int writer, victim;
};

// The first write that overwrites a value of its buffer that is still read (see the header).
std::optional<Clobber> find_clobber(Model& m) {
  std::map<int, std::vector<int>> buffers;
  for (int i = 0; i < int(m.nodes.size()); ++i) buffers[m.find(i)].push_back(i);
  for (const auto& [root, members] : buffers) {
    if (members.size() < 2) continue;
    for (int w : members) {
      const Node& wn = m.nodes[w];
      if (!wn.write) continue;
      const int p = wn.def;
      for (int v : members) {
        if (v == w || m.nodes[v].def >= p) continue;
        for (int q : m.nodes[v].uses)
          if ((q > p && m.reachable(p, q)) || (q == p && !touch_ok(m, wn, v))) return Clobber{w, v};
      }
    }
  }
  return std::nullopt;
}

std::optional<Clobber> clobber_under(const Function& f, const std::unordered_set<const Var*>& dead, const Decisions& d,
                                     std::vector<SiteInfo>* sites = nullptr, const Stmt** yield_loop = nullptr) {
  Model m(d, dead);
  m.build(f);
  if (sites) *sites = m.sites;
  auto c = find_clobber(m);
  if (c && yield_loop) *yield_loop = m.nodes[c->writer].yield_loop;
  return c;
}

// ---------------------------------------------------------------- rewrite

class CopyInserter : public BindingMutator {
 public:
  explicit CopyInserter(const Decisions& d) : d_(d) {}

 private:
  const Decisions& d_;

  // `out = tile.move(src)` in src's own space (a TMOV into a buffer of its own); `out` is named
  // after `named` + `suffix`.
  StmtPtr copy_stmt(const ExprPtr& src, VarPtr& out, const Span& sp, const ExprPtr& named = nullptr,
                    const char* suffix = "_copy") {
    const auto* tl = as_tile(src->type);
    const auto* v = as<Var>(named ? named : src);
    auto mv = make_call("tile.move", {src}, {{"target_memory", tl->space.value_or(MemorySpace::Vec)}}, sp);
    auto call = std::make_shared<Call>(mv->op, mv->callee, mv->args, mv->kwargs, src->type, sp);
    out = make_var((v ? v->name : std::string("tile")) + suffix, src->type, sp);
    return std::make_shared<AssignStmt>(out, call, sp);
  }

  // `body` with copies before its trailing yield for the kept sites (owner, kind, i, arm).
  StmtPtr yield_copies(const StmtPtr& body, const Stmt* owner, Site kind, int arm) {
    auto [stmts, y] = split_trailing_yield(body);
    if (!y) return body;
    std::vector<ExprPtr> vals = y->values;
    std::vector<StmtPtr> temps, copies;
    for (size_t i = 0; i < vals.size(); ++i) {
      if (!tile_var(vals[i]) || !d_.kept({owner, kind, i, arm})) continue;
      ExprPtr from = vals[i];
      if (d_.staged.count({owner, kind, i, arm})) {
        VarPtr t;
        temps.push_back(copy_stmt(vals[i], t, y->span, vals[i], "_tmp"));
        from = t;
      }
      VarPtr c;
      copies.push_back(copy_stmt(from, c, y->span, vals[i]));
      vals[i] = c;
    }
    if (copies.empty()) return body;
    for (auto& s : temps) stmts.push_back(s);
    for (auto& s : copies) stmts.push_back(s);
    stmts.push_back(with_comments(std::make_shared<YieldStmt>(std::move(vals), y->span), *y));
    return make_body(std::move(stmts), body->span);
  }

 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr&) { return true; });
  }

  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    const auto* c = as<Call>(s->value);
    const OpDef* op = c ? c->op : nullptr;
    const int k = op && !is_view(*op) ? op->output_reuses_input : -1;
    if (k < 0 || size_t(k) >= c->args.size() || !tile_var(c->args[k]) || !as_tile(s->var->type) ||
        !d_.kept({s.get(), Site::InPlace, size_t(k), 0}))
      return BindingMutator::mutate_assign(s);
    std::vector<ExprPtr> args;
    mutate_list(c->args, args);
    VarPtr cv;
    StmtPtr cs = copy_stmt(args[k], cv, s->span);
    args[k] = cv;
    ExprPtr call = rebuild_call(*c, std::move(args));
    VarPtr var = bind(s->var);
    return make_body({cs, with_comments(std::make_shared<AssignStmt>(var, call, s->span), *s)}, s->span);
  }

  // The iter_args of loop `s` with copies of the kept initial values appended to `pre`.
  std::vector<IterArgPtr> iter_args(const Stmt& s, const std::vector<IterArgPtr>& in, std::vector<StmtPtr>& pre) {
    std::vector<IterArgPtr> out;
    for (size_t i = 0; i < in.size(); ++i) {
      ExprPtr init = mutate(in[i]->init);
      if (as_tile(in[i]->type) && tile_var(in[i]->init) && d_.kept({&s, Site::Init, i, 0})) {
        VarPtr cv;
        pre.push_back(copy_stmt(init, cv, s.span));
        init = cv;
      }
      out.push_back(bind_iter_arg(in[i], init));
    }
    return out;
  }

  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    ExprPtr a = mutate(s->start), b = mutate(s->stop), c = mutate(s->step);
    std::vector<StmtPtr> pre;
    std::vector<IterArgPtr> ias = iter_args(*s, s->iter_args, pre);
    VarPtr lv = bind(s->loop_var);
    StmtPtr body = yield_copies(mutate(s->body), s.get(), Site::Yield, 0);
    std::vector<VarPtr> rv;
    for (const auto& v : s->return_vars) rv.push_back(bind(v));
    pre.push_back(with_comments(
        std::make_shared<ForStmt>(lv, a, b, c, std::move(ias), body, std::move(rv), s->kind, s->span, s->stage), *s));
    return make_body(std::move(pre), s->span);
  }

  StmtPtr mutate_while(const std::shared_ptr<const WhileStmt>& s) override {
    std::vector<StmtPtr> pre;
    std::vector<IterArgPtr> ias = iter_args(*s, s->iter_args, pre);
    ExprPtr c = mutate(s->cond);
    StmtPtr body = yield_copies(mutate(s->body), s.get(), Site::Yield, 0);
    std::vector<VarPtr> rv;
    for (const auto& v : s->return_vars) rv.push_back(bind(v));
    pre.push_back(with_comments(std::make_shared<WhileStmt>(c, std::move(ias), body, std::move(rv), s->span), *s));
    return make_body(std::move(pre), s->span);
  }

  StmtPtr mutate_if(const std::shared_ptr<const IfStmt>& s) override {
    ExprPtr c = mutate(s->cond);
    StmtPtr t = yield_copies(mutate(s->then_body), s.get(), Site::Arm, 0);
    StmtPtr e = s->else_body ? yield_copies(mutate(s->else_body), s.get(), Site::Arm, 1) : nullptr;
    std::vector<VarPtr> rv;
    for (const auto& v : s->return_vars) rv.push_back(bind(v));
    return with_comments(std::make_shared<IfStmt>(c, t, e, std::move(rv), s->span), *s);
  }
};

std::string site_text(const SiteInfo& s) {
  switch (s.key.site) {
    case Site::Init: return fmt::format("the initial value '{}' of a loop-carried tile", s.source);
    case Site::Yield: return fmt::format("the value '{}' a loop body yields for its carried tile", s.source);
    case Site::Arm: return fmt::format("the value '{}' an if arm yields", s.source);
    case Site::InPlace: return fmt::format("the operand '{}' an in-place op writes over", s.source);
  }
  return s.source;
}

}  // namespace

FunctionPtr insert_buffer_copies(const FunctionPtr& f) {
  const std::unordered_set<const Var*> dead = DeadTiles(*f).dead;
  Decisions d;
  std::vector<SiteInfo> sites;
  if (!clobber_under(*f, dead, d, &sites)) return f;  // InitMemRef's sharing is safe as it is

  // Baseline: a copy at every site; a loop whose yield copies clobber each other (its carries
  // exchange values) copies all its yielded values into temporaries first.
  d.keep_default = true;
  for (std::set<const Stmt*> done;;) {
    const Stmt* loop = nullptr;
    if (!clobber_under(*f, dead, d, nullptr, &loop)) break;
    if (!loop || !done.insert(loop).second)
      throw InternalError("InitMemRef", "a buffer is clobbered even with a copy at every sharing site", f->span);
    for (const auto& s : sites)
      if (s.key.stmt == loop && s.key.site == Site::Yield) d.staged.insert(s.key);
  }
  // Share the sites again, in program order, wherever no value is clobbered; then drop the
  // temporaries that are not needed.
  for (const auto& s : sites) {
    d.keep[s.key] = false;
    if (clobber_under(*f, dead, d)) d.keep[s.key] = true;
  }
  for (const auto& s : sites) {
    if (!d.staged.erase(s.key)) continue;
    if (d.kept(s.key) && clobber_under(*f, dead, d)) d.staged.insert(s.key);
  }
  for (const auto& s : sites) {
    if (!d.kept(s.key) || s.space == MemorySpace::Vec) continue;
    const std::string space(to_string(s.space));
    throw CompileError("E603", s.span,
                       fmt::format("{} is still read after its {} buffer is overwritten; keeping it intact needs "
                                   "a {} -> {} tile copy, which is not supported yet",
                                   site_text(s), space, space, space),
                       "read the value before it is overwritten, or compute it again where it is read later");
  }
  CopyInserter ins(d);
  return ins.mutate_function(f);
}

}  // namespace pypto::passes
