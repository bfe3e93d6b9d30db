// ExpandMixedKernel — classifies every InCore function by the cores its work needs: op affinity
// from the registry (vector / cube) and the memory spaces of its tiles (Vec → vector; Mat, Left,
// Right, Acc, Bias → cube). Vector-only kernels become AIV functions, cube-only kernels AIC
// functions (level AIV / AIC, role SubWorker); a kernel doing neither is AIV.
//
// A kernel that needs both is split in three (ir-and-passes.md step 22):
//   * `<f>_aic` (AIC) keeps the cube statements, `<f>_aiv` (AIV) the vector statements; scalar
//     statements (index arithmetic, control flow) go to both, loops and ifs to both with their
//     bodies split the same way;
//   * the crossings are the tile.move statements between a cube space and Vec: an Acc → Vec move
//     becomes `tile.tpush_to_aiv(acc)` on the AIC and `v = tile.tpop_from_aic()` on the AIV (C2V);
//     a Vec → Mat / Left / Right move becomes `tile.tpush_to_aic(v)` on the AIV and
//     `m = tile.tpop_from_aiv()` on the AIC (V2C), followed by the move from Mat when the target
//     is L0. Both halves run the same control flow, so pops meet their pushes in order;
//   * each half is repaired, cleaned of dead code and given its slot releases
//     (mixed_kernel_halves.h), then a prologue: the consumer of a direction reserves the slot
//     window (`system.reserve_buffer`, Vec on the AIV for C2V, Mat on the AIC for V2C; placed by
//     AllocateMemoryAddr), the producer imports it (`system.import_peer_buffer`), and both
//     initialise pipe 0 (`system.a{i,v}c_initialize_pipe`: dir_mask, slot_size = the largest tile
//     crossing, local_slot_num = the received tiles held at once, slot_num = max(2 or
//     pl.cross_core_slot's, local_slot_num)); the window is local_slot_num slots on 910B (a pop
//     copies into it), slot_num slots on the 950 (the producer writes into it);
//   * `<f>` becomes a Group with the kernel's signature that calls both halves with all its
//     arguments (one task: the orchestration submits it as MixedKernels); each half returns the
//     results it computes and the Group returns them in the kernel's order.
// The AIC half gets fresh Vars (the halves are separate functions). pl.cross_core_slot(slot_num=N)
// sets the ring depth; pl.split(mode) stays an attribute of the halves for SplitVectorKernel.
// Produces MixedKernelExpanded.
#include <fmt/format.h>

#include <algorithm>

#include <map>
#include <set>

#include "ir/op_registry.h"
#include "ir/tensor_roots.h"
#include "passes/memref_util.h"
#include "passes/mixed_kernel_halves.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

bool is_cube_space(MemorySpace s) {
  return s == MemorySpace::Mat || s == MemorySpace::Left || s == MemorySpace::Right || s == MemorySpace::Acc ||
         s == MemorySpace::Bias || s == MemorySpace::LeftScale || s == MemorySpace::RightScale;
}

std::optional<MemorySpace> space_of(const TypePtr& t) {
  const auto* tl = as_tile(t);
  return tl ? tl->space : std::nullopt;
}

class Classifier : public IRVisitor {
 public:
  Span vector_at, cube_at;
  bool vector = false, cube = false;
  void note_type(const TypePtr& t, const Span& at) {
    auto s = space_of(t);
    if (!s) return;
    if (*s == MemorySpace::Vec) mark(false, at);
    else if (is_cube_space(*s)) mark(true, at);
  }
  void mark(bool is_cube, const Span& at) {
    if (is_cube && !cube) cube = true, cube_at = at;
    if (!is_cube && !vector) vector = true, vector_at = at;
  }

 protected:
  void visit_assign(const AssignStmt& s) override {
    note_type(s.var->type, s.span);
    if (const auto* c = as<Call>(s.value); c && c->op) {
      if (call_affinity(*c) == CoreAffinity::Vector) mark(false, s.span);
      if (call_affinity(*c) == CoreAffinity::Cube) mark(true, s.span);
    }
    IRVisitor::visit_assign(s);
  }
  void visit_eval(const EvalStmt& s) override {
    if (const auto* c = as<Call>(s.expr); c && c->op) {
      if (call_affinity(*c) == CoreAffinity::Vector) mark(false, s.span);
      if (call_affinity(*c) == CoreAffinity::Cube) mark(true, s.span);
    }
    IRVisitor::visit_eval(s);
  }
};

enum class Side : uint8_t { Shared, Cube, Vector };
enum class Cross : uint8_t { None, C2V, V2C };

const OpDef& op(const char* n) {
  const OpDef* d = OpRegistry::instance().find(n);
  if (!d) throw InternalError("ExpandMixedKernel", fmt::format("op {} is not registered", n));
  return *d;
}

// The crossing a statement is: a tile.move between a cube space and Vec.
Cross crossing(const StmtPtr& s) {
  static const OpDef* move = &op("tile.move");
  const auto* a = as<AssignStmt>(s);
  const auto* c = a ? as<Call>(a->value) : nullptr;
  if (!c || c->op != move || c->args.empty()) return Cross::None;
  auto src = space_of(c->args[0]->type), dst = space_of(a->var->type);
  if (!src || !dst) return Cross::None;
  if (is_cube_space(*src) && *dst == MemorySpace::Vec) return Cross::C2V;
  if (*src == MemorySpace::Vec && is_cube_space(*dst)) return Cross::V2C;
  return Cross::None;
}

Side leaf_side(const Stmt* s) {
  const Call* c = nullptr;
  if (const auto* a = as<AssignStmt>(s)) c = as<Call>(a->value);
  if (const auto* e = as<EvalStmt>(s)) c = as<Call>(e->expr);
  // A tile result runs where it lives; otherwise the op's affinity, then the tiles it reads.
  if (const auto* a = as<AssignStmt>(s))
    if (auto sp = space_of(a->var->type)) return is_cube_space(*sp) ? Side::Cube : Side::Vector;
  if (c && c->op) {
    if (call_affinity(*c) == CoreAffinity::Cube) return Side::Cube;
    if (call_affinity(*c) == CoreAffinity::Vector) return Side::Vector;
  }
  // A call reading tiles (a store, a scalar read) runs where its tiles live.
  if (c)
    for (const auto& arg : c->args)
      if (auto sp = arg ? space_of(arg->type) : std::nullopt) return is_cube_space(*sp) ? Side::Cube : Side::Vector;
  return Side::Shared;
}

// The GM tensor a statement writes (its op's written_tensor operand) when the statement binds
// the updated tensor, else nullptr.
const Call* tensor_write(const Stmt* s) {
  const auto* a = as<AssignStmt>(s);
  const auto* c = a ? as<Call>(a->value) : nullptr;
  if (!c || !c->op || c->op->written_tensor < 0 || size_t(c->op->written_tensor) >= c->args.size()) return nullptr;
  return as_tensor(a->var->type) ? c : nullptr;
}

// The branches of kernel-uniform ifs around a statement: (if, then-branch?) from the outside in.
// An if is kernel-uniform when its condition reads only the kernel's scalar parameters: every
// evaluation of it, in either half, on every block of the launch, takes the same branch. Two
// statements under different branches of one such if never both run in a launch.
using Guards = std::vector<std::pair<const IfStmt*, bool>>;
bool exclusive(const Guards& a, const Guards& b) {
  for (const auto& [i, then_a] : a)
    for (const auto& [j, then_b] : b)
      if (i == j && then_a != then_b) return true;
  return false;
}
// Where a GM access runs: its uniform branches, and its epoch — the number of all-core barriers
// (`pl.system.syncall(core_type="mix")`, which both halves run) among the kernel's top-level
// statements before it. Accesses in different epochs are ordered by a barrier.
struct Site {
  Guards guards;
  int epoch = 0;
};
bool never_concurrent(const Site& a, const Site& b) { return a.epoch != b.epoch || exclusive(a.guards, b.guards); }
// A top-level all-core barrier of both halves: a syncall whose participants (the registry's
// affinity by core_type) are both core types.
bool is_mix_barrier(const StmtPtr& s) {
  const auto* e = as<EvalStmt>(s);
  const auto* c = e ? as<Call>(e->expr) : nullptr;
  return c && c->is_op("system.syncall") && call_affinity(*c) == CoreAffinity::Shared;
}

// The roots of the GM tensors each side writes. A write that runs on neither side by its operands
// (pl.write of a scalar into GM) runs on the cube side if only cube statements write that tensor
// otherwise, else on the vector side: one side writes it, not both.
struct SideWrites {
  std::set<const Var*> cube, vector;
  std::set<const Var*> shared_on_cube;  // roots whose scalar writes run on the cube side
  std::map<const Var*, Span> cube_at, vector_at;  // a write of each root, per side (diagnostics)
  std::map<const Var*, std::vector<Site>> cube_sites, vector_sites;  // where each side writes each root
  std::set<const IfStmt*> uniform_ifs;                               // the kernel-uniform ifs
  // Is every write of `r` by one side never concurrent with every write of it by the other?
  bool writes_ordered(const Var* r) const {
    static const std::vector<Site> none;
    auto c = cube_sites.find(r), v = vector_sites.find(r);
    for (const Site& a : c == cube_sites.end() ? none : c->second)
      for (const Site& b : v == vector_sites.end() ? none : v->second)
        if (!never_concurrent(a, b)) return false;
    return true;
  }
};
SideWrites side_writes(const Function& f, const std::vector<StmtPtr>& body, const TensorRoots& roots);

// One side's copy of the body: the other side's statements left out, crossings turned into
// pushes and pops. Records the bytes of every tile crossing.
//   A GM tensor both sides write: the updated tensor the other side's store binds is, on this
// side, the tensor it updated (the halves share the buffer; the SSA versions only order the
// stores of one side), substituted in this side's statements. Ordering ends there: neither side
// may read data from a tensor the other side writes (E504 — no cross-core sync orders GM), and
// the two sides' writes must touch different elements (ExpandMixedKernel warns, W504) — unless
// the two accesses are never concurrent (Site): they sit in different branches of a
// kernel-uniform if, so that no launch runs both (`if sb == 0:` the cube stores a first block's
// result, else the vector reads the previous launch's, ordered by the task graph, and updates
// it), or a top-level all-core barrier lies between them. A tensor only the other side
// writes stays the other side's: this side neither updates nor returns it.
class Splitter {
 public:
  Splitter(Side side, Soc soc, const Function& f, const TensorRoots& roots, const SideWrites& writes,
           const HalfContext& cx)
      : side_(side), soc_(soc), roots_(roots), writes_(writes),
        own_writes_(side == Side::Cube ? writes.cube : writes.vector),
        other_writes_(side == Side::Cube ? writes.vector : writes.cube), cx_(cx) {
    for (const auto& p : f.params) params_[p.get()] = p;
  }
  int64_t slot_bytes = 0;
  bool c2v = false, v2c = false;

  std::vector<StmtPtr> block(const std::vector<StmtPtr>& in) {
    std::vector<StmtPtr> out;
    for (const auto& s : in) stmt(s, out);
    return out;
  }

  // The body with the other side's tensor updates replaced by the tensors they update.
  StmtPtr split(const std::vector<StmtPtr>& in, const Span& span) {
    std::vector<StmtPtr> top;
    for (const auto& s : in) {
      if (is_mix_barrier(s)) ++epoch_;
      stmt(s, top);
    }
    StmtPtr b = make_body(std::move(top), span);
    if (alias_.empty()) return b;
    IRMutator sub;
    sub.var_map = alias_;
    return sub.mutate(b);
  }

 private:
  StmtPtr body(const StmtPtr& b) { return b ? make_body(block(flatten_body(b)), b->span) : nullptr; }

  static std::vector<std::pair<std::string, AttrValue>> fifo_kw() {
    return {{"split", AttrValue(int64_t{0})}, {"id", AttrValue(int64_t{0})}};
  }
  // A pop typed by its assignment (no shape= / dtype=: the verifier takes the Var's type).
  static StmtPtr pop(const char* name, const VarPtr& dst, const Span& sp) {
    auto untyped = make_call(name, {}, fifo_kw(), sp);  // fills the default kwargs
    auto call = std::make_shared<Call>(untyped->op, std::string(), untyped->args, untyped->kwargs, dst->type, sp);
    return std::make_shared<AssignStmt>(dst, call, sp);
  }
  static StmtPtr push(const char* name, const ExprPtr& src, const Span& sp) {
    return std::make_shared<EvalStmt>(make_call(name, {src}, fifo_kw(), sp), sp);
  }

  void stmt(const StmtPtr& s, std::vector<StmtPtr>& out) {
    if (Cross x = crossing(s); x != Cross::None) {
      const auto& a = static_cast<const AssignStmt&>(*s);
      const auto& mv = static_cast<const Call&>(*a.value);
      const TileType& src = *as_tile(mv.args[0]->type);
      slot_bytes = std::max(slot_bytes, tile_bytes(src, soc_).value_or(0));
      if (x == Cross::C2V) {
        c2v = true;
        if (side_ == Side::Cube) out.push_back(push("tile.tpush_to_aiv", mv.args[0], s->span));
        else out.push_back(pop("tile.tpop_from_aic", a.var, s->span));
        return;
      }
      v2c = true;
      if (side_ == Side::Vector) return out.push_back(push("tile.tpush_to_aic", mv.args[0], s->span));
      if (space_of(a.var->type) == MemorySpace::Mat) return out.push_back(pop("tile.tpop_from_aiv", a.var, s->span));
      // Received in Mat (L1), then moved to L0 as the original move said.
      auto mat = std::make_shared<TileType>(src);
      mat->space = MemorySpace::Mat;
      mat->view.reset();
      auto got = std::make_shared<Var>(a.var->name + "_mat", mat, a.var->span);
      out.push_back(pop("tile.tpop_from_aiv", got, s->span));
      out.push_back(std::make_shared<AssignStmt>(a.var, rebuild_call(mv, {got}), s->span));
      return;
    }
    switch (s->kind) {
      case NodeKind::AssignStmt:
      case NodeKind::EvalStmt: {
        Side side = leaf_side(s.get());
        if (const Call* w = tensor_write(s.get()); w && side == Side::Shared)
          side = writes_.shared_on_cube.count(roots_.root(w->args[size_t(w->op->written_tensor)])) ? Side::Cube
                                                                                                  : Side::Vector;
        if (side == Side::Shared || side == side_) return out.push_back(check_reads(s));
        if (const Call* w = tensor_write(s.get()); w && own_writes_.count(roots_.root(w->args[size_t(w->op->written_tensor)]))) {
          ExprPtr before = w->args[size_t(w->op->written_tensor)];
          if (const auto* v = as<Var>(before); v && alias_.count(v)) before = alias_.at(v);
          alias_[static_cast<const AssignStmt&>(*s).var.get()] = before;
        }
        return;
      }
      case NodeKind::SeqStmts:
        for (const auto& t : static_cast<const SeqStmts&>(*s).stmts) stmt(t, out);
        return;
      case NodeKind::ScopeStmt: {
        auto sc = std::make_shared<ScopeStmt>(static_cast<const ScopeStmt&>(*s));
        sc->body = body(sc->body);
        return out.push_back(sc);
      }
      case NodeKind::ForStmt: {
        const auto& f = static_cast<const ForStmt&>(*s);
        return out.push_back(std::make_shared<ForStmt>(f.loop_var, f.start, f.stop, f.step, f.iter_args, body(f.body),
                                                       f.return_vars, f.kind, f.span, f.stage));
      }
      case NodeKind::WhileStmt: {
        const auto& w = static_cast<const WhileStmt&>(*s);
        return out.push_back(std::make_shared<WhileStmt>(w.cond, w.iter_args, body(w.body), w.return_vars, w.span));
      }
      case NodeKind::IfStmt: {
        const auto& i = static_cast<const IfStmt&>(*s);
        const bool uniform = writes_.uniform_ifs.count(&i) > 0;
        auto branch = [&](const StmtPtr& b, bool then) {
          if (uniform) guards_.emplace_back(&i, then);
          StmtPtr r = body(b);
          if (uniform) guards_.pop_back();
          return r;
        };
        StmtPtr then_body = branch(i.then_body, true);
        StmtPtr else_body = branch(i.else_body, false);
        return out.push_back(std::make_shared<IfStmt>(i.cond, then_body, else_body, i.return_vars, i.span));
      }
      default: out.push_back(s); return;  // return, yield, break, continue
    }
  }

  // Can the other side write `r` while this statement (under guards_, in epoch_) runs?
  bool other_may_write(const Var* r) const {
    const auto& all = side_ == Side::Cube ? writes_.vector_sites : writes_.cube_sites;
    auto it = all.find(r);
    if (it == all.end()) return true;
    const Site here{guards_, epoch_};
    for (const Site& w : it->second)
      if (!never_concurrent(w, here)) return true;
    return false;
  }

  // A statement of this side reading data of a GM tensor the other side writes: E504 unless the
  // two are never concurrent. Returns the statement, reading the kernel's parameter where the
  // tensor's version it names is the other side's (this side has no such version).
  StmtPtr check_reads(const StmtPtr& s) {
    const Call* c = nullptr;
    if (const auto* a = as<AssignStmt>(s)) c = as<Call>(a->value);
    if (const auto* e = as<EvalStmt>(s)) c = as<Call>(e->expr);
    if (!c || other_writes_.empty()) return s;
    std::vector<ExprPtr> args = c->args;
    bool rewritten = false;
    for (size_t i = 0; i < c->args.size(); ++i) {
      if (c->op && int(i) == c->op->written_tensor) continue;
      if (!c->args[i] || !as_tensor(c->args[i]->type)) continue;
      const Var* r = roots_.root(c->args[i]);
      if (!r || !other_writes_.count(r)) continue;
      if (auto p = params_.find(r); p != params_.end() && !other_may_write(r)) {
        if (const auto* v = as<Var>(c->args[i]); v && v != r && !own_writes_.count(r)) {
          args[i] = p->second;
          rewritten = true;
        }
        continue;
      }
      throw CompileError("E504", s->span,
                         fmt::format("in mixed kernel '{}', this {} statement reads '{}', which the {} side writes; "
                                     "nothing orders the two halves' GM accesses",
                                     cx_.kernel, cx_.side, r->name, cx_.other),
                         "hand the data over as a tile (an Acc tile moved to Vec, a Vec tile to Mat), or split the "
                         "work into two pl.at scopes");
    }
    if (!rewritten) return s;
    if (const auto* a = as<AssignStmt>(s)) return std::make_shared<AssignStmt>(a->var, rebuild_call(*c, std::move(args)), s->span);
    return std::make_shared<EvalStmt>(rebuild_call(*c, std::move(args)), s->span);
  }

  Side side_;
  Soc soc_;
  const TensorRoots& roots_;
  const SideWrites& writes_;
  const std::set<const Var*>& own_writes_;
  const std::set<const Var*>& other_writes_;
  const HalfContext& cx_;
  std::unordered_map<const Var*, ExprPtr> alias_;
  std::unordered_map<const Var*, VarPtr> params_;  // the kernel's parameters (roots both sides name)
  Guards guards_;  // the kernel-uniform branches around the statement being split
  int epoch_ = 0;  // the top-level barriers before it
};

SideWrites side_writes(const Function& f, const std::vector<StmtPtr>& body, const TensorRoots& roots) {
  std::set<const Var*> scalar_params;
  for (const auto& p : f.params)
    if (as_scalar(p->type)) scalar_params.insert(p.get());
  struct Reads : IRVisitor {
    const std::set<const Var*>& params;
    bool only_params = true;
    explicit Reads(const std::set<const Var*>& p) : params(p) {}
    void visit_var(const Var& v) override { only_params = only_params && params.count(&v); }
    void visit_iter_arg(const IterArg&) override { only_params = false; }
    void visit_call(const Call&) override { only_params = false; }  // a GM read, a block index
  };
  struct W : IRVisitor {
    const TensorRoots& roots;
    const std::set<const Var*>& scalar_params;
    SideWrites out;
    std::set<const Var*> shared;
    std::map<const Var*, std::vector<Site>> shared_sites;
    Site here;
    W(const TensorRoots& r, const std::set<const Var*>& p) : roots(r), scalar_params(p) {}
    void visit_assign(const AssignStmt& a) override {
      if (const Call* c = tensor_write(&a))
        if (const Var* r = roots.root(c->args[size_t(c->op->written_tensor)])) {
          const Side side = leaf_side(&a);
          (side == Side::Cube ? out.cube : side == Side::Vector ? out.vector : shared).insert(r);
          if (side != Side::Shared) (side == Side::Cube ? out.cube_at : out.vector_at).emplace(r, a.span);
          (side == Side::Cube ? out.cube_sites : side == Side::Vector ? out.vector_sites : shared_sites)[r].push_back(here);
        }
      IRVisitor::visit_assign(a);
    }
    void visit_if(const IfStmt& i) override {
      Reads rd(scalar_params);
      rd.visit(i.cond);
      if (!rd.only_params) return IRVisitor::visit_if(i);
      out.uniform_ifs.insert(&i);
      here.guards.emplace_back(&i, true);
      if (i.then_body) visit(i.then_body);
      here.guards.back().second = false;
      if (i.else_body) visit(i.else_body);
      here.guards.pop_back();
    }
  } w(roots, scalar_params);
  for (const auto& s : body) {
    if (is_mix_barrier(s)) ++w.here.epoch;
    w.visit(s);
  }
  for (const Var* r : w.shared) {
    const bool cube = w.out.cube.count(r) && !w.out.vector.count(r);
    if (cube) w.out.shared_on_cube.insert(r);
    (cube ? w.out.cube : w.out.vector).insert(r);
    auto& to = (cube ? w.out.cube_sites : w.out.vector_sites)[r];
    for (const Site& g : w.shared_sites[r]) to.push_back(g);
  }
  return w.out;
}

struct PipePlan {
  bool c2v = false, v2c = false;
  int64_t slot_size = 0;
  int64_t slot_num = 2;        // ring depth: how far the producer may run ahead
  int64_t local_slot_num = 1;  // slots resident in the consumer's memory: the tiles it holds at once
  int64_t window_slots = 1;    // slots the consumer reserves: local_slot_num on 910B, slot_num on 950
  std::string c2v_name, v2c_name;
};

// reserve / import of the slot windows, then the pipe initialisation, before `body`.
StmtPtr with_prologue(const StmtPtr& body, bool cube, const PipePlan& pp, const std::string& peer, const Span& sp) {
  if (!pp.c2v && !pp.v2c) return body;  // the halves exchange no tiles: no pipe
  std::vector<StmtPtr> out;
  auto zero = make_int(0, sp, DataType::INT32);
  ExprPtr bufs[2] = {zero, zero};  // c2v, v2c consumer buffers
  auto window = [&](int dir, const std::string& name, bool consumer) {
    auto v = std::make_shared<Var>(dir == 0 ? "c2v_slots" : "v2c_slots", scalar_type(DataType::INT32), sp);
    std::shared_ptr<const Call> c;
    if (consumer)
      c = make_call("system.reserve_buffer", {},
                    {{"name", AttrValue(name)}, {"size", AttrValue(pp.slot_size * pp.window_slots)}}, sp);
    else
      c = make_call("system.import_peer_buffer", {}, {{"name", AttrValue(name)}, {"peer_func", AttrValue(peer)}}, sp);
    out.push_back(std::make_shared<AssignStmt>(v, c, sp));
    bufs[dir] = v;
  };
  if (pp.c2v) window(0, pp.c2v_name, /*consumer=*/!cube);
  if (pp.v2c) window(1, pp.v2c_name, /*consumer=*/cube);
  const int64_t mask = (pp.c2v ? 1 : 0) | (pp.v2c ? 2 : 0);
  auto init = make_call(cube ? "system.aic_initialize_pipe" : "system.aiv_initialize_pipe", {bufs[0], bufs[1]},
                        {{"dir_mask", AttrValue(mask)}, {"slot_size", AttrValue(pp.slot_size)},
                         {"slot_num", AttrValue(pp.slot_num)}, {"local_slot_num", AttrValue(pp.local_slot_num)},
                         {"id", AttrValue(int64_t{0})}, {"split", AttrValue(int64_t{0})}},
                        sp);
  out.push_back(std::make_shared<EvalStmt>(init, sp));
  for (const auto& s : flatten_body(body)) out.push_back(s);
  return make_body(std::move(out), body ? body->span : sp);
}

TypePtr result_type(const std::vector<TypePtr>& ts) {
  if (ts.size() == 1) return ts[0];
  return std::make_shared<TupleType>(ts);
}

std::string unused_name(const Program& p, const std::string& want) {
  std::string n = want;
  for (int i = 1; p.find(n); ++i) n = fmt::format("{}_{}", want, i);
  return n;
}

// The kernel's pl.cross_core_slot(slot_num=N) (OutlineIncoreScopes keeps it as an attribute).
std::optional<int64_t> slot_num_attr(const Function& f) {
  const FuncAttr* a = find_attr(f, "cross_core_slot_num");
  const auto* n = a ? std::get_if<int64_t>(&a->value) : nullptr;
  return n ? std::optional<int64_t>(*n) : std::nullopt;
}

// pl.split(mode) asks for a mixed kernel's vector half on both AIV lanes (SplitVectorKernel); on
// a kernel using one unit only it has no effect.
void note_split_not_applied(const Function& f, DiagnosticSink& sink) {
  const FuncAttr* a = find_attr(f, "split");
  const auto* mode = a ? std::get_if<EnumLit>(&a->value) : nullptr;
  if (!mode || mode->member == "NONE") return;
  sink.warning("W502", f.span,
                 fmt::format("optimizations=[pl.split(pl.SplitMode.{})] has no effect on '{}': it uses only the {} unit",
                             mode->member, f.name, f.type == FunctionType::AIC ? "cube" : "vector"));
}

// A half takes every parameter of the kernel, but writes only some of its Out / InOut tensors
// (the cube half the matmul result, the vector half the rest): the others are In for that half.
FunctionPtr demote_unwritten_outputs(const Program& prog, const FunctionPtr& g) {
  const TensorRoots roots(prog, *g);
  struct Writes : IRVisitor {
    const TensorRoots& roots;
    std::set<const Var*> written;
    explicit Writes(const TensorRoots& r) : roots(r) {}
    void visit_call(const Call& c) override {
      if (c.op && c.op->written_tensor >= 0 && size_t(c.op->written_tensor) < c.args.size())
        written.insert(roots.root(c.args[size_t(c.op->written_tensor)]));
      IRVisitor::visit_call(c);
    }
  } w(roots);
  w.visit(g->body);
  // What the half returns it writes (a store, or a value handed through from its peer).
  if (const ReturnStmt* r = trailing_return(g->body))
    for (const auto& v : r->values) w.written.insert(roots.root(v));
  auto out = std::make_shared<Function>(*g);
  bool changed = false;
  for (size_t i = 0; i < out->params.size() && i < out->param_directions.size(); ++i)
    if (out->param_directions[i] != ParamDirection::In && as_tensor(out->params[i]->type) &&
        !w.written.count(out->params[i].get())) {
      out->param_directions[i] = ParamDirection::In;
      changed = true;
    }
  return changed ? out : g;
}

void split_function(const Program& prog, const FunctionPtr& f, Soc soc, std::vector<FunctionPtr>& out,
                    DiagnosticSink& sink) {
  const std::string aic_name = unused_name(prog, f->name + "_aic"), aiv_name = unused_name(prog, f->name + "_aiv");
  const HalfContext ccx{f->name, "cube", "vector"}, vcx{f->name, "vector", "cube"};
  const auto body = flatten_body(f->body);
  const TensorRoots roots(prog, *f);
  const SideWrites writes = side_writes(*f, body, roots);
  for (const Var* r : writes.cube) {
    if (!writes.vector.count(r) || writes.writes_ordered(r)) continue;
    Diagnostic d{Severity::Warning, "W504",
                 fmt::format("both halves of mixed kernel '{}' write '{}', and nothing orders their writes: they must "
                             "write different elements",
                             f->name, r->name),
                 f->span, "", {}};
    if (auto c = writes.cube_at.find(r); c != writes.cube_at.end()) d.notes.push_back({c->second, "the cube half writes it here"});
    if (auto v = writes.vector_at.find(r); v != writes.vector_at.end())
      d.notes.push_back({v->second, "the vector half writes it here"});
    sink.report(std::move(d));
  }
  Splitter cube(Side::Cube, soc, *f, roots, writes, ccx), vec(Side::Vector, soc, *f, roots, writes, vcx);
  auto cube_body = cube.split(body, f->body->span);
  auto vec_body = vec.split(body, f->body->span);
  std::vector<size_t> cube_ret, vec_ret;
  cube_body = remove_dead_code(repair_half(cube_body, f->body, f->params, ccx, cube_ret));
  vec_body = remove_dead_code(repair_half(vec_body, f->body, f->params, vcx, vec_ret));
  int live_c[2] = {0, 0}, live_v[2] = {0, 0};
  cube_body = insert_slot_releases(cube_body, ccx, live_c);
  vec_body = insert_slot_releases(vec_body, vcx, live_v);

  PipePlan pp;
  pp.c2v = cube.c2v;
  pp.v2c = cube.v2c;
  pp.slot_size = std::max<int64_t>(cube.slot_bytes, 32);
  pp.local_slot_num = std::max<int64_t>({1, live_v[0], live_c[1]});
  pp.slot_num = std::max<int64_t>(slot_num_attr(*f).value_or(2), pp.local_slot_num);
  // On 910B a pop copies its slot into the consumer's window, so the window holds the tiles held
  // at once; on the 950 the producer writes into the consumer's memory, so it holds the ring.
  pp.window_slots = soc == Soc::Ascend950 ? pp.slot_num : pp.local_slot_num;
  pp.c2v_name = f->name + "_c2v_slot_buffer";
  pp.v2c_name = f->name + "_v2c_slot_buffer";

  auto half = [&](const std::string& name, FunctionType t, StmtPtr b, const std::vector<size_t>& ret) {
    auto g = std::make_shared<Function>(*f);
    g->name = name;
    g->type = t;
    g->level = t == FunctionType::AIC ? Level::AIC : Level::AIV;
    g->role = Role::SubWorker;
    g->body = std::move(b);
    g->return_types.clear();
    for (size_t i : ret)
      if (i < f->return_types.size()) g->return_types.push_back(f->return_types[i]);
    return demote_unwritten_outputs(prog, g);
  };
  auto aiv = half(aiv_name, FunctionType::AIV, with_prologue(vec_body, false, pp, aic_name, f->span), vec_ret);
  FunctionPtr aic = half(aic_name, FunctionType::AIC, with_prologue(cube_body, true, pp, aiv_name, f->span), cube_ret);
  FreshCloner fresh;
  aic = fresh.mutate_function(aic);

  // The Group: the kernel's signature, both halves called with every argument.
  auto grp = std::make_shared<Function>(*f);
  grp->type = FunctionType::Group;
  grp->level = Level::CORE_GROUP;
  grp->role = Role::SubWorker;
  grp->params.clear();
  std::vector<ExprPtr> args;
  for (const auto& p : f->params) {
    grp->params.push_back(copy_var_with_type(*p, p->type));
    args.push_back(grp->params.back());
  }
  std::vector<StmtPtr> gb;
  // (A kernel without a return statement returns nothing from either half, nor from the Group.)
  std::vector<ExprPtr> results(trailing_return(f->body) ? f->return_types.size() : 0);
  auto call_half = [&](const Function& h, const std::vector<size_t>& ret) {
    auto c = std::make_shared<Call>(nullptr, h.name, args, std::vector<std::pair<std::string, AttrValue>>{},
                                    result_type(h.return_types), f->span);
    if (h.return_types.empty()) return gb.push_back(std::make_shared<EvalStmt>(c, f->span));
    auto v = std::make_shared<Var>(h.name + "_out", c->type, f->span);
    gb.push_back(std::make_shared<AssignStmt>(v, c, f->span));
    for (size_t k = 0; k < ret.size(); ++k) {
      if (ret[k] >= results.size() || results[ret[k]]) continue;
      results[ret[k]] = ret.size() == 1 ? ExprPtr(v)
                                        : std::make_shared<TupleGetItem>(v, int(k), h.return_types[k], f->span);
    }
  };
  call_half(*aic, cube_ret);
  call_half(*aiv, vec_ret);
  for (size_t i = 0; i < results.size(); ++i)
    if (!results[i])
      throw InternalError("ExpandMixedKernel", fmt::format("result {} of mixed kernel '{}' is computed on neither side", i, f->name),
                          f->span);
  if (!results.empty()) gb.push_back(std::make_shared<ReturnStmt>(results, f->span));
  grp->body = make_body(std::move(gb), f->body->span);
  out.push_back(aic);
  out.push_back(aiv);
  out.push_back(grp);
}

}  // namespace

Pass expand_mixed_kernel_pass() {
  return Pass{"ExpandMixedKernel",
              "Retags each InCore kernel as AIV (vector work only) or AIC (cube work only) with level "
              "AIV/AIC and role SubWorker; splits a kernel mixing both into <f>_aic + <f>_aiv exchanging "
              "tiles through a cross-core FIFO, and a Group <f> calling both.",
              {{Property::TileMemoryInferred}, {Property::MixedKernelExpanded}, {}},
              [](const ProgramPtr& p, PassContext& ctx) {
                std::vector<FunctionPtr> fns;
                bool changed = false;
                for (const auto& f : p->functions) {
                  if (f->type != FunctionType::InCore) {
                    fns.push_back(f);
                    continue;
                  }
                  changed = true;
                  Classifier c;
                  c.visit_function(*f);
                  if (c.vector && c.cube) {
                    split_function(*p, f, ctx.soc, fns, ctx.diagnostics);
                    continue;
                  }
                  auto g = std::make_shared<Function>(*f);
                  g->type = c.cube ? FunctionType::AIC : FunctionType::AIV;
                  note_split_not_applied(*g, ctx.diagnostics);
                  g->level = c.cube ? Level::AIC : Level::AIV;
                  g->role = Role::SubWorker;
                  fns.push_back(g);
                }
                if (!changed) return p;
                std::sort(fns.begin(), fns.end(), [](const FunctionPtr& a, const FunctionPtr& b) { return a->name < b->name; });
                auto q = std::make_shared<Program>(*p);
                q->functions = std::move(fns);
                return ProgramPtr(q);
              }};
}

}  // namespace pypto::passes
