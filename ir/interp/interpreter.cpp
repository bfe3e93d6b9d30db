// The interpreter's engine: expressions, statements, calls and the entry (see interpreter.h).
// Op calls go through the registry's semantics rows; nothing here knows a particular op.
#include "ir/interp/interpreter.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/diagnostic.h"
#include "ir/interp/gang.h"
#include "ir/interp/op_semantics.h"
#include "ir/op_registry.h"
#include "ir/visitor.h"

namespace pypto::ir::interp {
namespace {

enum class Flow { Normal, Break, Continue, Return };

struct Frame {
  std::unordered_map<const Var*, Value> env;
  std::vector<Value> yielded;
  bool has_yield = false;
  std::vector<Value> returned;
  std::vector<ExprPtr> returned_exprs;
};

[[noreturn]] void fail(const Span& sp, const std::string& msg, const std::string& hint = {}) {
  throw CompileError("E600", sp, fmt::format("pypto eval: {}", msg), hint);
}

int64_t to_int(double v) { return static_cast<int64_t>(v); }

// What the code running on this thread is: its SPMD block, the mixed task whose FIFO it uses, the
// launch whose barrier it meets, and the simulated core whose on-chip memory holds its tiles
// (block * 4 + gang member). Thread-local, since the members of a gang (the halves of a mixed
// task, the blocks of a syncall launch) are threads that take turns; a gang's threads start with
// their parent's state.
struct CoreState {
  int64_t block_idx = 0, block_num = 1;
  CrossCoreFifo* fifo = nullptr;
  LaunchBarrier* launch = nullptr;
  int64_t core = 0;
};
thread_local CoreState t_core;

class Machine {
 public:
  explicit Machine(const Program& p) : prog_(p) { OpRegistry::with_semantics(); }  // the ops' semantics, once

  std::vector<Value> call(const Function& f, std::vector<Value> args, const Span& site) {
    if (++depth_ > 200) fail(site, fmt::format("call depth over 200 at '{}' (unbounded recursion?)", f.name));
    Frame fr;
    for (size_t i = 0; i < f.params.size(); ++i) bind_param(fr, *f.params[i], i < args.size() ? args[i] : Value{}, site, f);
    // What each parameter received: an assignment to the parameter's name rebinds it (the front
    // end's IR is not in SSA form yet), the caller's storage stays where the output goes.
    std::vector<Value> received;
    for (const auto& p : f.params) received.push_back(fr.env[p.get()]);
    for (const auto& d : prog_.dynamic_dims) {
      if (!fr.env.count(d.get())) {
        if (auto it = globals_.find(d.get()); it != globals_.end()) fr.env[d.get()] = it->second;
      } else if (depth_ == 1) {
        globals_[d.get()] = fr.env[d.get()];  // the entry's parameters bind the program's dynamic dims
      }
    }
    Flow fl = exec(f.body, fr);
    (void)fl;
    write_back(f, fr, received, site);
    --depth_;
    return fr.returned;
  }

  std::unordered_map<const Var*, Value> globals_;  // module-level dynamic dims bound by the entry

  Value bind_tensor_arg(const Var& p, const Value& v, Frame& fr, const Span& site, const std::string& fname) {
    const auto* t = as_tensor(p.type);
    if (!t || !v.is_array()) return v;
    const Array& a = v.arr;
    // A larger argument bound by its leading elements (W014): a contiguous view at the
    // parameter's own static shape.
    auto ps = static_shape(t->shape);
    if (ps && *ps != a.shape && t->shape.size() > 0) {
      int64_t np = 1;
      for (int64_t d : *ps) np *= d;
      if (np <= a.numel() && a.contiguous() && t->dtype == a.dtype) {
        Array w = a;
        w.shape = *ps;
        w.strides.assign(w.shape.size(), 1);
        for (size_t i = w.shape.size(); i-- > 1;) w.strides[i - 1] = w.strides[i] * w.shape[i];
        return Value::array(w);
      }
    }
    // A rank-padded window (FuseCreateAssembleToSlice: a [1, R, C] slice for an [R, C] parameter):
    // the leading unit dims drop, the window keeps its strides.
    if (ps && t->shape.size() < a.shape.size() &&
        std::equal(ps->begin(), ps->end(), a.shape.end() - long(ps->size())) &&
        std::all_of(a.shape.begin(), a.shape.end() - long(ps->size()), [](int64_t d) { return d == 1; })) {
      Array w = a;
      const size_t lead = a.shape.size() - ps->size();
      w.shape.erase(w.shape.begin(), w.shape.begin() + long(lead));
      w.strides.erase(w.strides.begin(), w.strides.begin() + long(lead));
      return Value::array(w);
    }
    if (t->shape.size() != a.shape.size())
      fail(site, fmt::format("parameter '{}' of '{}' is declared with rank {} but receives {}", p.name, fname,
                             t->shape.size(), shape_text(a.shape)));
    for (size_t d = 0; d < t->shape.size(); ++d) {
      const ExprPtr& dim = t->shape[d];
      if (auto c = const_int_value(dim)) {
        if (*c != a.shape[d])
          fail(site, fmt::format("parameter '{}' of '{}' is declared {} but receives {}", p.name, fname,
                                 shape_text(*static_shape(t->shape)), shape_text(a.shape)));
      } else if (const auto* dv = as<Var>(dim)) {
        auto it = fr.env.find(dv);
        if (it == fr.env.end())
          fr.env[dv] = Value::scalar(DataType::INDEX, double(a.shape[d]));
        else if (to_int(it->second.num) != a.shape[d])
          fail(site, fmt::format("parameter '{}' of '{}' has {} = {} in dimension {}, but {} was bound to {} before",
                                 p.name, fname, dv->name, a.shape[d], d, dv->name, to_int(it->second.num)));
      }
    }
    return v;
  }

  void bind_param(Frame& fr, const Var& p, const Value& v, const Span& site, const Function& f) {
    if (as_scalar(p.type) && v.is_scalar()) {
      fr.env[&p] = Value::scalar(as_scalar(p.type)->dtype, round_to(as_scalar(p.type)->dtype, v.num));
      return;
    }
    fr.env[&p] = bind_tensor_arg(p, v, fr, site, f.name);
  }

  // A returned tensor for an Out / InOut parameter in other storage: written into the parameter.
  void write_back(const Function& f, Frame& fr, const std::vector<Value>& received, const Span& site) {
    std::vector<size_t> outs;
    for (size_t i = 0; i < f.params.size(); ++i)
      if (i < f.param_directions.size() && f.param_directions[i] != ParamDirection::In && as_tensor(f.params[i]->type))
        outs.push_back(i);
    if (outs.empty()) return;
    std::vector<size_t> tensor_returns;
    for (size_t k = 0; k < fr.returned.size(); ++k)
      if (fr.returned[k].is_array()) tensor_returns.push_back(k);
    std::set<size_t> used;
    for (size_t n = 0; n < tensor_returns.size(); ++n) {
      const size_t k = tensor_returns[n];
      const auto* rv = k < fr.returned_exprs.size() ? as<Var>(fr.returned_exprs[k]) : nullptr;
      std::optional<size_t> pi;
      for (size_t i : outs)
        if (rv && f.params[i]->name == rv->name && !used.count(i)) pi = i;
      if (!pi && tensor_returns.size() == outs.size() && !used.count(outs[n])) pi = outs[n];
      if (!pi) continue;
      used.insert(*pi);
      const Array& dst = received[*pi].arr;
      Array& src = fr.returned[k].arr;
      if (src.data == dst.data && src.offset == dst.offset && src.shape == dst.shape) continue;
      if (src.numel() != dst.numel())
        fail(site, fmt::format("'{}' returns {} for its output parameter '{}' of shape {}", f.name, shape_text(src.shape),
                               f.params[*pi]->name, shape_text(dst.shape)));
      for (int64_t i = 0; i < dst.numel(); ++i) dst.set(i, src.at(i));
      src = dst;
    }
  }

  Value eval(const ExprPtr& e, Frame& fr) {
    if (!e) return Value{};
    switch (e->kind) {
      case NodeKind::Var:
      case NodeKind::IterArg: {
        auto it = fr.env.find(static_cast<const Var*>(e.get()));
        if (it == fr.env.end()) {
          if (auto g = globals_.find(static_cast<const Var*>(e.get())); g != globals_.end()) return g->second;
          fail(e->span, fmt::format("'{}' has no value here", static_cast<const Var*>(e.get())->name));
        }
        return it->second;
      }
      case NodeKind::ConstInt: {
        const auto* c = as<ConstInt>(e);
        return Value::scalar(c->dtype(), double(c->value));
      }
      case NodeKind::ConstFloat: {
        const auto* c = as<ConstFloat>(e);
        return Value::scalar(c->dtype(), round_to(c->dtype(), c->value));
      }
      case NodeKind::ConstBool: return Value::scalar(DataType::BOOL, as<ConstBool>(e)->value ? 1 : 0);
      case NodeKind::Binary: return binary(*as<Binary>(e), fr);
      case NodeKind::Unary: return unary(*as<Unary>(e), fr);
      case NodeKind::Call: return call_expr(*as<Call>(e), fr);
      case NodeKind::MakeTuple: {
        std::vector<Value> v;
        for (const auto& x : as<MakeTuple>(e)->elems) v.push_back(eval(x, fr));
        return Value::tuple(std::move(v));
      }
      case NodeKind::TupleGetItem: {
        const auto* g = as<TupleGetItem>(e);
        Value t = eval(g->tuple, fr);
        if (t.kind != Value::Kind::Tuple || g->index < 0 || g->index >= static_cast<int>(t.elems.size()))
          fail(e->span, fmt::format("tuple element {} of a value with {} elements", g->index, t.elems.size()));
        return t.elems[static_cast<size_t>(g->index)];
      }
      default: fail(e->span, "not an expression");
    }
  }

  DataType scalar_dtype(const TypePtr& t) {
    const auto* s = as_scalar(t);
    return s ? s->dtype : DataType::INDEX;
  }

  Value binary(const Binary& b, Frame& fr) {
    // And / Or short-circuit as Python's do.
    const DataType rt = scalar_dtype(b.type);
    if (b.op == BinOp::And || b.op == BinOp::Or) {
      const bool l = eval(b.a, fr).num != 0;
      if (b.op == BinOp::And && !l) return Value::scalar(rt, 0);
      if (b.op == BinOp::Or && l) return Value::scalar(rt, 1);
      return Value::scalar(rt, eval(b.b, fr).num != 0);
    }
    Value x = eval(b.a, fr), y = eval(b.b, fr);
    if (!x.is_scalar() || !y.is_scalar()) fail(b.span, fmt::format("operator {} on a non-scalar", to_string(b.op)));
    const double a = x.num, c = y.num;
    const bool ints = dtype_is_int(x.dtype) && dtype_is_int(y.dtype) && !dtype_is_float(rt);
    double r = 0;
    switch (b.op) {
      case BinOp::Add: r = a + c; break;
      case BinOp::Sub: r = a - c; break;
      case BinOp::Mul: r = a * c; break;
      case BinOp::FloorDiv:
        if (c == 0) fail(b.span, "integer division by zero");
        r = ints ? double(floor_div(to_int(a), to_int(c))) : std::floor(a / c);
        break;
      case BinOp::FloorMod:
        if (c == 0) fail(b.span, "modulo by zero");
        r = ints ? double(floor_mod(to_int(a), to_int(c))) : a - std::floor(a / c) * c;
        break;
      case BinOp::FloatDiv: r = a / c; break;
      case BinOp::Min: r = std::fmin(a, c); break;
      case BinOp::Max: r = std::fmax(a, c); break;
      case BinOp::Pow: r = std::pow(a, c); break;
      case BinOp::Eq: r = a == c; break;
      case BinOp::Ne: r = a != c; break;
      case BinOp::Lt: r = a < c; break;
      case BinOp::Le: r = a <= c; break;
      case BinOp::Gt: r = a > c; break;
      case BinOp::Ge: r = a >= c; break;
      case BinOp::Xor: r = (a != 0) != (c != 0); break;
      case BinOp::BitAnd: r = double(to_int(a) & to_int(c)); break;
      case BinOp::BitOr: r = double(to_int(a) | to_int(c)); break;
      case BinOp::BitXor: r = double(to_int(a) ^ to_int(c)); break;
      case BinOp::Shl: r = double(to_int(a) << (to_int(c) & 63)); break;
      case BinOp::Shr: r = double(to_int(a) >> (to_int(c) & 63)); break;
      default: break;
    }
    return Value::scalar(rt, round_to(rt, r));
  }

  Value unary(const Unary& u, Frame& fr) {
    Value x = eval(u.a, fr);
    const DataType rt = scalar_dtype(u.type);
    double r = x.num;
    switch (u.op) {
      case UnOp::Neg: r = -x.num; break;
      case UnOp::Not: r = x.num == 0; break;
      case UnOp::BitNot: r = double(~to_int(x.num)); break;
      case UnOp::Abs: r = std::fabs(x.num); break;
      case UnOp::Cast: r = dtype_is_int(rt) ? std::trunc(x.num) : x.num; break;
    }
    return Value::scalar(rt, round_to(rt, r));
  }

  std::vector<int64_t> dims(const TypePtr& t, Frame& fr) {
    std::vector<int64_t> out;
    const auto* s = as_shaped(t);
    if (!s) return out;
    for (const auto& d : s->shape) {
      Value v = eval(d, fr);
      if (!v.is_scalar()) fail(d->span, "a dimension that is not a scalar");
      out.push_back(to_int(v.num));
    }
    return out;
  }

  std::vector<int64_t> valid_dims(const TypePtr& t, Frame& fr) {
    const std::vector<ExprPtr>* vs = nullptr;
    if (const auto* tl = as_tile(t); tl && tl->view) vs = &tl->view->valid_shape;
    if (const auto* tt = as_tensor(t); tt && tt->view) vs = &tt->view->valid_shape;
    std::vector<int64_t> out;
    if (!vs) return out;
    for (const auto& d : *vs) {
      Value v = eval(d, fr);
      if (!v.is_scalar()) fail(d->span, "a valid-shape extent that is not a scalar");
      out.push_back(to_int(v.num));
    }
    return out;
  }

  // A mixed kernel's Group: its AIC and AIV halves as one gang over a cross-core FIFO; the
  // Group's own body only routes their results to its returns. `blocks` > 0: the launch's blocks
  // meet at a pl.system.syncall, so every block's halves run in one gang (a group of members per
  // block, each with its FIFO; the barrier waits for all).
  std::vector<Value> call_group(const Function& g, const MixedMembers& m, const std::vector<Value>& args, const Span& site,
                                int64_t blocks = 0) {
    const size_t per = m.aiv_lanes == 2 ? 3 : 2;
    std::vector<std::string> names;
    for (int64_t b = 0; b < std::max<int64_t>(blocks, 1); ++b) {
      const std::string at = blocks > 0 ? fmt::format(" (block {})", b) : "";
      names.push_back(m.aic->name + at);
      names.push_back(m.aiv->name + at);
      if (per == 3) names.push_back(m.aiv->name + " (lane 1)" + at);
    }
    Gang gang(names, site, per);
    if (t_core.launch)
      fail(site, fmt::format("mixed kernel '{}' inside a launch that holds a pl.system.syncall", g.name));
    const CoreState parent = t_core;
    std::vector<std::vector<Value>> r(names.size());
    auto member = [&](size_t i, const Function& f) {
      return [&, i] {
        t_core = parent;
        t_core.fifo = &gang;
        if (blocks > 0) {
          t_core.launch = &gang;
          t_core.block_idx = int64_t(i / per), t_core.block_num = blocks;
          t_core.core = (parent.core + t_core.block_idx + 1) * 4 + int64_t(i % per);
        } else {
          t_core.core = parent.core * 4 + int64_t(i % per);
        }
        r[i] = call(f, args, site);
      };
    };
    std::vector<std::function<void()>> members;
    for (size_t i = 0; i < names.size(); ++i) members.push_back(member(i, i % per == 0 ? *m.aic : *m.aiv));
    gang.run(members);
    Frame fr;
    for (size_t i = 0; i < g.params.size() && i < args.size(); ++i) fr.env[g.params[i].get()] = args[i];
    for (const auto& s : flatten_body(g.body)) {
      const auto* a = as<AssignStmt>(s);
      const auto* c = a ? as<Call>(a->value) : nullptr;
      if (c) {
        const auto& rs = r[c->callee == m.aic->name ? 0 : 1];  // (any block's: tensors are shared)
        fr.env[a->var.get()] = rs.size() == 1 ? rs[0] : Value::tuple(rs);
      }
      if (const auto* ret = as<ReturnStmt>(s))
        for (const auto& v : ret->values) fr.returned.push_back(eval(v, fr));
    }
    return fr.returned;
  }

  Value call_expr(const Call& c, Frame& fr) {
    if (!c.op) {
      FunctionPtr f = prog_.find(c.callee);
      if (!f) fail(c.span, fmt::format("call to unknown function '{}'", c.callee));
      std::vector<Value> args;
      for (const auto& a : c.args) args.push_back(eval(a, fr));
      std::vector<Value> rs;
      // pl.spmd_submit: the kernel once per block.
      int64_t blocks = 1;
      if (c.dispatch && c.dispatch->core_num) blocks = to_int(eval(c.dispatch->core_num, fr).num);
      const bool spmd = blocks > 1 || (c.dispatch && c.dispatch->spmd);
      if (auto m = mixed_group_members(prog_, *f)) {
        if (holds_syncall(*f)) {  // every block's halves in one gang, meeting at the barriers
          rs = call_group(*f, *m, args, c.span, std::max<int64_t>(blocks, 1));
        } else {
          run_blocks(blocks, spmd, false, c.span, [&](int64_t) { rs = call_group(*f, *m, args, c.span); });
        }
      } else {
        run_blocks(blocks, spmd, holds_syncall(*f), c.span, [&](int64_t) { rs = call(*f, args, c.span); });
      }
      if (c.dispatch && c.dispatch->submit) rs.push_back(Value::scalar(DataType::TASK_ID, double(next_task_++)));
      if (rs.size() == 1) return rs[0];
      if (rs.empty()) return Value{};
      return Value::tuple(std::move(rs));
    }
    if (!c.op->semantics)
      throw CompileError("E602", c.span, fmt::format("pypto eval: pl.{} has no reference semantics yet", c.op->name),
                         "`pypto ops` lists the ops the interpreter covers (column eval)");
    std::vector<Value> args;
    for (const auto& a : c.args) args.push_back(eval(a, fr));
    OpEval oe{c, args, [this, &fr](const TypePtr& t) { return dims(t, fr); }, t_core.block_idx, t_core.block_num,
              [this, &fr](const TypePtr& t) { return valid_dims(t, fr); }, t_core.fifo, t_core.launch};
    return c.op->semantics->fn(oe);
  }

  Flow exec(const StmtPtr& s, Frame& fr) {
    if (!s) return Flow::Normal;
    switch (s->kind) {
      case NodeKind::AssignStmt: {
        const auto* a = as<AssignStmt>(s);
        Value v = eval(a->value, fr);
        // A scalar assigned to a variable of another dtype converts (the front end's typing).
        if (v.is_scalar())
          if (const auto* st = as_scalar(a->var->type); st && st->dtype != v.dtype)
            v = Value::scalar(st->dtype, round_to(st->dtype, dtype_is_int(st->dtype) ? std::trunc(v.num) : v.num));
        // After InitMemRef a tile lives in its MemRef: the value is written there, and the variable
        // reads that storage, so tiles sharing a MemRef share values (a reuse bug shows).
        if (const auto* tt = as_tile(a->var->type); tt && tt->memref && tt->memref->base && !tt->view && v.is_array()) {
          const auto* c = as<Call>(a->value);
          v = place(*tt, v, fr, c && c->op && (c->op->name == "tile.create" || c->op->name == "tile.alloc"));
        }
        fr.env[a->var.get()] = std::move(v);
        return Flow::Normal;
      }
      case NodeKind::EvalStmt: eval(as<EvalStmt>(s)->expr, fr); return Flow::Normal;
      case NodeKind::ReturnStmt: {
        const auto* r = as<ReturnStmt>(s);
        fr.returned.clear();
        for (const auto& v : r->values) fr.returned.push_back(eval(v, fr));
        fr.returned_exprs = r->values;
        return Flow::Return;
      }
      case NodeKind::YieldStmt: {
        fr.yielded.clear();
        for (const auto& v : as<YieldStmt>(s)->values) fr.yielded.push_back(eval(v, fr));
        fr.has_yield = true;
        return Flow::Normal;
      }
      case NodeKind::SeqStmts:
        for (const auto& x : as<SeqStmts>(s)->stmts) {
          Flow f = exec(x, fr);
          if (f != Flow::Normal) return f;
        }
        return Flow::Normal;
      case NodeKind::IfStmt: {
        const auto* i = as<IfStmt>(s);
        Value c = eval(i->cond, fr);
        fr.has_yield = false;
        Flow f = exec(c.num != 0 ? i->then_body : i->else_body, fr);
        if (f == Flow::Normal && !i->return_vars.empty()) {
          if (!fr.has_yield || fr.yielded.size() != i->return_vars.size())
            fail(s->span, "the branch taken yields no value for the if's results");
          for (size_t k = 0; k < i->return_vars.size(); ++k) fr.env[i->return_vars[k].get()] = fr.yielded[k];
        }
        fr.has_yield = false;
        return f;
      }
      case NodeKind::ForStmt: return for_loop(*as<ForStmt>(s), fr);
      case NodeKind::WhileStmt: return while_loop(*as<WhileStmt>(s), fr);
      case NodeKind::BreakStmt: return Flow::Break;
      case NodeKind::ContinueStmt: return Flow::Continue;
      case NodeKind::ScopeStmt: {
        const auto* sc = as<ScopeStmt>(s);
        int64_t blocks = sc->core_num ? to_int(eval(sc->core_num, fr).num) : 1;
        Flow f = Flow::Normal;
        if (sc->core_num && holds_syncall(sc->body)) {
          // The blocks run together, each in its own copy of the frame; the last one's stays.
          std::vector<Frame> frames(static_cast<size_t>(std::max<int64_t>(blocks, 1)), fr);
          run_blocks(blocks, true, true, s->span, [&](int64_t b) { exec(sc->body, frames[static_cast<size_t>(b)]); });
          fr = std::move(frames.back());
        } else {
          const CoreState saved = t_core;
          for (int64_t b = 0; b < blocks && f == Flow::Normal; ++b) {
            if (sc->core_num) t_core.block_idx = b, t_core.block_num = blocks;
            f = exec(sc->body, fr);
          }
          t_core = saved;
        }
        if (sc->task_id) fr.env[sc->task_id.get()] = Value::scalar(DataType::TASK_ID, double(next_task_++));
        return f;
      }
      default: fail(s->span, "not a statement");
    }
  }

  // The storage of a tile with a MemRef: one byte-addressed store per allocation (base), the
  // element at byte offset `offset + i * element size`.
  Value place(const TileType& t, const Value& v, Frame& fr, bool declare_only) {
    const Value off = eval(t.memref->offset, fr);
    const int64_t addr = to_int(off.num);
    const int64_t eb = std::max(1, dtype_bits(t.dtype) / 8);
    auto& mem = memory_[{t_core.core, t.memref->base.get()}];
    if (!mem) mem = std::make_shared<std::vector<double>>();
    Array view;
    view.dtype = v.arr.dtype;
    view.shape = v.arr.shape;
    view.strides.assign(view.shape.size(), eb);
    for (size_t i = view.shape.size(); i-- > 1;) view.strides[i - 1] = view.strides[i] * view.shape[i];
    view.offset = addr;
    view.data = mem;
    const size_t end = static_cast<size_t>(addr + view.numel() * eb);
    if (addr < 0) fail(t.memref->offset->span, fmt::format("a tile at negative offset {}", addr));
    if (mem->size() < end) mem->resize(end, 0.0);
    if (!declare_only) {
      const Array src = v.arr.data == mem ? v.arr.copy() : v.arr;
      for (int64_t i = 0; i < view.numel(); ++i) view.set(i, src.at(i));
    }
    return Value::array(view);
  }

  template <class Loop>
  std::vector<Value> initial_carries(const Loop& l, Frame& fr) {
    std::vector<Value> carried;
    for (const auto& ia : l.iter_args) carried.push_back(eval(ia->init, fr));
    return carried;
  }

  template <class Loop>
  void bind_carries(const Loop& l, Frame& fr, const std::vector<Value>& carried) {
    for (size_t k = 0; k < l.iter_args.size(); ++k) fr.env[l.iter_args[k].get()] = carried[k];
  }

  // After one iteration's body: its yield (if it ran) carries to the next iteration.
  template <class Loop>
  void take_yield(const Loop& l, Frame& fr, std::vector<Value>& carried) {
    if (fr.has_yield && fr.yielded.size() == l.iter_args.size()) carried = fr.yielded;
    fr.has_yield = false;
  }

  template <class Loop>
  void finish(const Loop& l, Frame& fr, const std::vector<Value>& carried) {
    for (size_t k = 0; k < l.return_vars.size() && k < carried.size(); ++k) fr.env[l.return_vars[k].get()] = carried[k];
  }

  Flow for_loop(const ForStmt& l, Frame& fr) {
    const Value a = eval(l.start, fr), b = eval(l.stop, fr), st = eval(l.step, fr);
    const int64_t start = to_int(a.num), stop = to_int(b.num), step = to_int(st.num);
    if (step == 0) fail(l.span, "a loop with step 0");
    std::vector<Value> carried = initial_carries(l, fr);
    const DataType lt = scalar_dtype(l.loop_var->type);
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      fr.env[l.loop_var.get()] = Value::scalar(lt, double(i));
      bind_carries(l, fr, carried);
      fr.has_yield = false;
      Flow f = exec(l.body, fr);
      take_yield(l, fr, carried);
      if (f == Flow::Return) return f;
      if (f == Flow::Break) break;
    }
    finish(l, fr, carried);
    return Flow::Normal;
  }

  Flow while_loop(const WhileStmt& l, Frame& fr) {
    std::vector<Value> carried = initial_carries(l, fr);
    for (int64_t n = 0;; ++n) {
      if (n > 100000000) fail(l.span, "a while loop ran 10^8 iterations");
      bind_carries(l, fr, carried);
      if (eval(l.cond, fr).num == 0) break;
      fr.has_yield = false;
      Flow f = exec(l.body, fr);
      take_yield(l, fr, carried);
      if (f == Flow::Return) return f;
      if (f == Flow::Break) break;
    }
    finish(l, fr, carried);
    return Flow::Normal;
  }

 private:
  const Program& prog_;
  int depth_ = 0;
  int64_t next_task_ = 0;
  std::map<std::pair<int64_t, const Var*>, std::shared_ptr<std::vector<double>>> memory_;  // by (core, MemRef base)
  std::map<const Stmt*, bool> holds_syncall_;  // by body

  // Runs `body(b)` for the blocks of a launch (`spmd`: each sees its block index). Blocks whose
  // kernel holds a pl.system.syncall run together, taking turns (a Gang of blocks: the barrier
  // hands the turn on); others one after another.
  void run_blocks(int64_t blocks, bool spmd, bool together, const Span& site, const std::function<void(int64_t)>& body) {
    const CoreState parent = t_core;
    if (!together || blocks <= 1) {
      for (int64_t b = 0; b < blocks; ++b) {
        if (spmd) t_core.block_idx = b, t_core.block_num = blocks;
        body(b);
      }
      t_core = parent;
      return;
    }
    if (parent.launch || parent.fifo)
      fail(site, "a launch holding a pl.system.syncall inside another launch or a mixed kernel");
    std::vector<std::string> names;
    for (int64_t b = 0; b < blocks; ++b) names.push_back(fmt::format("block {}", b));
    Gang gang(names, site);
    std::vector<std::function<void()>> members;
    for (int64_t b = 0; b < blocks; ++b)
      members.push_back([&, b] {
        t_core = parent;
        t_core.block_idx = b, t_core.block_num = blocks;
        t_core.launch = &gang;
        t_core.core = (parent.core + b + 1) * 4;
        body(b);
      });
    gang.run(members);
  }

  // Whether a body — or a function it calls — holds a pl.system.syncall.
  bool holds_syncall(const Function& f) { return holds_syncall(f.body); }
  bool holds_syncall(const StmtPtr& body) {
    if (!body) return false;
    if (auto it = holds_syncall_.find(body.get()); it != holds_syncall_.end()) return it->second;
    holds_syncall_[body.get()] = false;  // recursion guard
    struct Calls : IRVisitor {
      std::vector<const Call*> calls;
      void visit_call(const Call& c) override {
        calls.push_back(&c);
        IRVisitor::visit_call(c);
      }
    } v;
    v.visit(body);
    static const OpDef* syncall = OpRegistry::instance().find("system.syncall");
    bool found = false;
    for (const Call* c : v.calls) {
      if (c->op == syncall) found = true;
      else if (!c->op)
        if (FunctionPtr g = prog_.find(c->callee)) found = found || holds_syncall(*g);
    }
    return holds_syncall_[body.get()] = found;
  }
};

}  // namespace

const Function& eval_entry(const Program& p) {
  std::set<std::string> called;
  struct Calls : IRVisitor {
    std::set<std::string>* out;
    void visit_call(const Call& c) override {
      if (!c.op) out->insert(c.callee);
      IRVisitor::visit_call(c);
    }
  };
  for (const auto& f : p.functions) {
    Calls v;
    v.out = &called;
    if (f->body) v.visit(f->body);
  }
  // The Orchestration function no other function calls (one may call another).
  const Function* orch = nullptr;
  for (const auto& f : p.functions)
    if (f->type == FunctionType::Orchestration && !called.count(f->name)) {
      if (orch) throw CompileError("E600", f->span, fmt::format("pypto eval: the program has two Orchestration functions ('{}' and '{}')", orch->name, f->name));
      orch = f.get();
    }
  if (orch) return *orch;
  if (p.functions.size() == 1) return *p.functions[0];
  // The one function no other calls.
  const Function* root = nullptr;
  std::string names;
  for (const auto& f : p.functions)
    if (!called.count(f->name)) {
      names += (names.empty() ? "" : ", ") + f->name;
      root = root ? nullptr : f.get();
      if (!root) break;
    }
  if (root) return *root;
  throw CompileError("E600", p.span, fmt::format("pypto eval: cannot tell which function of '{}' to run", p.name),
                     "give the program an Orchestration function, or select one entry with --entry");
}

std::map<std::string, std::vector<int64_t>> entry_shapes(const Function& entry,
                                                         const std::map<std::string, std::vector<int64_t>>& given,
                                                         const std::map<std::string, double>& scalars) {
  // Dynamic dims by variable name, each with what gave it (for the message of a conflict).
  std::map<std::string, std::pair<int64_t, std::string>> bound;
  auto bind = [&](const Var& prm, const std::string& name, int64_t v, const std::string& from) {
    auto [it, fresh] = bound.emplace(name, std::make_pair(v, from));
    if (!fresh && it->second.first != v)
      throw CompileError("E603", prm.span,
                         fmt::format("pypto eval: dynamic dim {} is {} by {}, but {} by {}", name, v, from,
                                     it->second.first, it->second.second),
                         "give the tensors and scalars extents that agree");
  };
  for (const auto& prm : entry.params)
    if (const auto* s = as_scalar(prm->type); s && dtype_is_int(s->dtype))
      if (auto it = scalars.find(prm->name); it != scalars.end())
        bind(*prm, prm->name, static_cast<int64_t>(it->second), "scalar " + prm->name);
  auto declared = [](const TensorType& t) {
    std::vector<std::string> d;
    for (const auto& e : t.shape) {
      if (auto c = const_int_value(e)) d.push_back(std::to_string(*c));
      else if (const auto* v = as<Var>(e)) d.push_back(v->name);
      else d.push_back("?");
    }
    return fmt::format("[{}]", fmt::join(d, ", "));
  };
  for (const auto& prm : entry.params) {
    const auto* t = as_tensor(prm->type);
    auto it = given.find(prm->name);
    if (!t || it == given.end()) continue;
    const auto& shape = it->second;
    bool ok = shape.size() == t->shape.size();
    for (size_t d = 0; ok && d < shape.size(); ++d)
      if (auto c = const_int_value(t->shape[d])) ok = *c == shape[d];
    if (!ok)
      throw CompileError("E603", prm->span,
                         fmt::format("pypto eval: '{}' is given with extents {}, the parameter is declared {}", prm->name,
                                     shape_text(shape), declared(*t)));
    for (size_t d = 0; d < shape.size(); ++d)
      if (const auto* v = as<Var>(t->shape[d])) bind(*prm, v->name, shape[d], "'" + prm->name + "'");
  }
  std::map<std::string, std::vector<int64_t>> out;
  for (const auto& prm : entry.params) {
    const auto* t = as_tensor(prm->type);
    if (!t) continue;
    if (auto it = given.find(prm->name); it != given.end()) {
      out[prm->name] = it->second;
      continue;
    }
    std::vector<int64_t> shape;
    for (size_t d = 0; d < t->shape.size(); ++d) {
      const ExprPtr& e = t->shape[d];
      if (auto c = const_int_value(e)) {
        shape.push_back(*c);
        continue;
      }
      const auto* v = as<Var>(e);
      if (auto b = v ? bound.find(v->name) : bound.end(); b != bound.end()) {
        shape.push_back(b->second.first);
        continue;
      }
      throw CompileError(
          "E603", prm->span,
          fmt::format("pypto eval: '{}' {}: dim {}{} is given by no scalar and no tensor", prm->name, declared(*t), d,
                      v ? " (" + v->name + ")" : std::string()),
          v ? fmt::format("pass the scalar {} a value, an input that has the dim, or the extents of '{}' (--shape {}=[...])",
                          v->name, prm->name, prm->name)
            : fmt::format("pass the extents of '{}' (--shape {}=[...])", prm->name, prm->name));
    }
    out[prm->name] = shape;
  }
  return out;
}

std::vector<EvalOutput> evaluate(const Program& p, const Function& entry, const EvalInputs& in) {
  Machine m(p);
  std::vector<Value> args;
  // Out parameters get the extents the inputs, the scalars and the given shapes determine.
  std::map<std::string, std::vector<int64_t>> given = in.shapes;
  for (size_t i = 0; i < entry.params.size(); ++i) {
    const bool out_only = i < entry.param_directions.size() && entry.param_directions[i] == ParamDirection::Out;
    auto it = in.tensors.find(entry.params[i]->name);
    if (!out_only && it != in.tensors.end()) given[it->first] = it->second.shape;
  }
  std::map<std::string, std::vector<int64_t>> shapes;
  bool needs_shapes = false;
  for (size_t i = 0; i < entry.params.size(); ++i)
    needs_shapes |= i < entry.param_directions.size() && entry.param_directions[i] == ParamDirection::Out;
  if (needs_shapes) shapes = entry_shapes(entry, given, in.scalars);
  for (size_t i = 0; i < entry.params.size(); ++i) {
    const auto& prm = *entry.params[i];
    const bool out_only = i < entry.param_directions.size() && entry.param_directions[i] == ParamDirection::Out;
    if (const auto* s = as_scalar(prm.type)) {
      auto it = in.scalars.find(prm.name);
      if (it == in.scalars.end())
        throw CompileError("E603", prm.span, fmt::format("pypto eval: no value for scalar parameter '{}'", prm.name),
                           fmt::format("pass --run-scalar {}=VALUE (or bind it at compile time: --scalar {}=VALUE)",
                                       prm.name, prm.name));
      args.push_back(Value::scalar(s->dtype, round_to(s->dtype, it->second)));
      continue;
    }
    const auto* t = as_tensor(prm.type);
    if (!t) throw CompileError("E603", prm.span, fmt::format("pypto eval: parameter '{}' is neither a tensor nor a scalar", prm.name));
    auto it = in.tensors.find(prm.name);
    if (!out_only) {
      if (it == in.tensors.end())
        throw CompileError("E603", prm.span, fmt::format("pypto eval: no input for tensor parameter '{}'", prm.name),
                           fmt::format("put {}.npy in the --inputs directory, or pass --seed N", prm.name));
      if (it->second.dtype != t->dtype)
        throw CompileError("E603", prm.span, fmt::format("pypto eval: input '{}' has dtype {}, the parameter is {}", prm.name,
                                                         dtype_name(it->second.dtype), dtype_name(t->dtype)));
      args.push_back(Value::array(it->second.copy()));
      continue;
    }
    args.push_back(Value::array(Array::zeros(t->dtype, shapes.at(prm.name))));
  }
  std::vector<Value> kept = args;
  m.call(entry, args, entry.span);
  std::vector<EvalOutput> out;
  for (size_t i = 0; i < entry.params.size(); ++i)
    if (i < entry.param_directions.size() && entry.param_directions[i] != ParamDirection::In && kept[i].is_array())
      out.push_back(EvalOutput{entry.params[i]->name, kept[i].arr});
  return out;
}

}  // namespace pypto::ir::interp
