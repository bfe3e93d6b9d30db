// ConvertTensorToTileOps — lowers tensor-level code inside InCore functions to tile ops, for
// tensors that fit in one on-chip tile (no automatic tiling):
//   * a tensor param read by a tensor op is loaded whole (`tile.load(p, [0..], shape)`) once, at
//     the function entry, in first-use order — into Vec, or Mat for matmul operands; a GM value
//     produced by a write (tensor.assemble result) is loaded where it is read;
//   * a scalar load from a GM tensor (tensor.read of a parameter; registry kernel_gm_scalar) stays
//     as it is: the kernel reads that one element;
//   * every other tensor op maps to its tile form as its registry entry says (OpDef::tile_op and
//     OpDef::lowering: plain compute, compute + scratch tile (also rsqrt's high_precision), matmul,
//     memory, compare + select, gather / scatter with flat indices, mask scatter + select, a
//     merge sort of 2-4 lists with a scratch as wide as the joined lists, an L1 tile of
//     tensor.create_l1 in Mat); a
//     binary op broadcasting a [1, C] / [R, 1] operand becomes its registry broadcast form
//     (tile.col_expand_add / tile.row_expand_add, ...: broadcast_lowering.h);
//     keyword attributes the tile op does not have must hold the tensor op's default; an in-place
//     tile form (tile.write) must not write a GM operand;
//   * a tile op written without the scratch tile its tensor form gets (pl.transpose of a tile)
//     gets one shaped like its operand;
//   * `tensor.assemble(gm, v, offsets)` → `tile.store(v, offsets, gm)`; loop carries and if
//     results that carry computed tensors become tiles;
//   * a computed tensor the kernel returns gets a new Out param (named after it) and a
//     `tile.store` into it; callers create that tensor with `tensor.create` before the call;
//   * In params the kernel writes become Out (or InOut when also read), and a caller's In param
//     handed to one becomes InOut.
// Unsupported: dynamic shapes (also a pl.tensor.dim Simplify could not fold), tensors larger than
// the on-chip budget of their space, ops without a tile form, non-default attributes without a
// tile equivalent, broadcasts the expand forms cannot express (all "not supported yet", at the
// op's span). Produces TileOpsOnly.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_set>

#include "ir/op_registry.h"
#include "passes/broadcast_lowering.h"
#include "passes/pass_util.h"
#include "passes/passes.h"
#include "passes/tensor_access.h"

namespace pypto::passes {

using namespace ir;

namespace {

using Kwargs = std::vector<std::pair<std::string, AttrValue>>;

const char* kHint = "write this kernel at tile level (pl.load / tile ops / pl.store), or use a supported form";

// The tensor op's kwargs the tile op also has; others must hold the tensor op's default, but for
// those the lowering itself realises (`consumed`: a matmul's a_trans / b_trans).
Kwargs carry_kwargs(const Call& c, const OpDef& tile, std::initializer_list<std::string_view> consumed = {}) {
  Kwargs out;
  for (const auto& [k, v] : c.kwargs) {
    if (std::find(consumed.begin(), consumed.end(), k) != consumed.end()) continue;
    if (tile.find_kwarg(k)) {
      out.emplace_back(k, v);
      continue;
    }
    const KwSpec* spec = c.op->find_kwarg(k);
    if (spec && spec->default_value == v) continue;
    throw CompileError("E501", c.span,
                       fmt::format("'pl.{}' with attribute '{}' is not supported yet inside a kernel", c.op->name, k),
                       fmt::format("drop '{}=' (its tile form '{}' has no such attribute) or {}", k, tile.name, kHint));
  }
  return out;
}

// A tensor op call this pass rewrites (or rejects: no tensor op stays in a kernel but a scalar
// load from a GM tensor, registry kernel_gm_scalar).
bool lowers(const Call* c) { return c && c->op && c->op->family() == "tensor"; }

struct KernelInfo {
  std::vector<TypePtr> added_outs;  // types of the Out params appended to the kernel
  std::vector<std::string> added_names;
};

// How often each variable is read, and how often as a matmul's lhs / rhs: a GM window read only
// by the cube is loaded into Mat, one read by both into Mat and Vec.
struct OperandUses : IRVisitor {
  std::unordered_map<const Var*, int> all, matmul;
  void visit_var(const Var& v) override { ++all[&v]; }
  void visit_call(const Call& c) override {
    IRVisitor::visit_call(c);
    if (!c.op || (c.op->lowering != TileLowering::Matmul && c.op->lowering != TileLowering::MatmulAcc)) return;
    const size_t first = c.op->lowering == TileLowering::MatmulAcc ? 1 : 0;
    for (size_t i = first; i < first + 2 && i < c.args.size(); ++i)
      if (const auto* v = as<Var>(c.args[i])) ++matmul[v];
  }
};

class Converter : public IRMutator {
 public:
  Converter(const Function& f, const SocInfo& soc) : f_(f), soc_(soc) {
    for (const auto& p : f.params) params_.insert(p.get());
    OperandUses uses;
    uses.visit_function(f);
    for (const auto& [v, n] : uses.matmul)
      (uses.all[v] > n ? mat_and_vec_ : mat_only_).insert(v);
  }

  FunctionPtr run(KernelInfo& info) {
    StmtPtr body = mutate(f_.body);
    if (body == f_.body && entry_.empty() && added_.empty()) return nullptr;  // nothing to convert
    auto stmts = std::move(entry_);
    for (auto& s : flatten_body(body)) stmts.push_back(s);
    auto g = std::make_shared<Function>(f_);
    g->body = make_body(std::move(stmts), f_.body ? f_.body->span : f_.span);
    for (const auto& p : added_) {
      g->params.push_back(p);
      g->param_directions.push_back(ParamDirection::Out);
      info.added_outs.push_back(p->type);
      info.added_names.push_back(p->name);
    }
    for (size_t i = 0; i < g->params.size(); ++i)
      if (as_tensor(g->params[i]->type))
        g->param_directions[i] = upgraded_direction(g->param_directions[i], analyze_access(g->body, *g->params[i]));
    return g;
  }

 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr&) { return true; });
  }

  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    const auto* c = as<Call>(s->value);
    if (lowers(c)) {
      current_def_ = s->var.get();
      ExprPtr v = convert(*c, s->var->name);
      current_def_ = nullptr;
      if (as_tile(v->type) || !as_tensor(s->var->type)) {
        // A computed value: the tile (or scalar) replaces the Var everywhere after.
        auto nv = copy_var_with_type(*s->var, v->type);
        var_map[s->var.get()] = nv;
        return finish(with_comments(std::make_shared<AssignStmt>(nv, v, s->span), *s));
      }
      gm_.insert(s->var.get());  // a GM write result (tile.store)
      return finish(with_comments(std::make_shared<AssignStmt>(s->var, v, s->span), *s));
    }
    if (const auto* src = as<Var>(s->value); src && var_map.count(src)) {
      ExprPtr v = mutate(s->value);
      auto nv = copy_var_with_type(*s->var, v->type);
      var_map[s->var.get()] = nv;
      return with_comments(std::make_shared<AssignStmt>(nv, v, s->span), *s);
    }
    if (as_tensor(s->var->type)) gm_.insert(s->var.get());
    return finish(IRMutator::mutate_assign(s));
  }

  StmtPtr mutate_eval(const std::shared_ptr<const EvalStmt>& s) override {
    const auto* c = as<Call>(s->expr);
    if (lowers(c))
      return finish(with_comments(std::make_shared<EvalStmt>(convert(*c, std::string(c->op->short_name())), s->span), *s));
    return finish(IRMutator::mutate_eval(s));
  }

  StmtPtr mutate_return(const std::shared_ptr<const ReturnStmt>& s) override {
    std::vector<ExprPtr> vals;
    for (const auto& v : s->values) {
      ExprPtr n = mutate(v);
      if (const auto* t = as_tile(n->type); t && as_tensor(v->type)) {
        // A computed result leaves the kernel: store it into a new Out param.
        const auto* orig = as<Var>(v);
        auto p = std::make_shared<Var>(orig ? orig->name : "out", v->type, s->span);
        added_.push_back(p);
        auto st = make_call("tile.store", {n, zero_offsets(t->shape.size(), s->span), p}, {}, s->span);
        auto r = std::make_shared<Var>(p->name, st->type, s->span);
        pre_.push_back(std::make_shared<AssignStmt>(r, st, s->span));
        n = r;
      }
      vals.push_back(n);
    }
    if (vals == s->values) return s;
    return finish(with_comments(std::make_shared<ReturnStmt>(std::move(vals), s->span), *s));
  }

  StmtPtr mutate_yield(const std::shared_ptr<const YieldStmt>& s) override { return finish(IRMutator::mutate_yield(s)); }

  // A scalar query nested in another expression (a window offset, a loop bound).
  ExprPtr mutate_call(const std::shared_ptr<const Call>& e) override {
    if (e->op && e->op->lowering == TileLowering::Scalar) reject_scalar_query(*e);
    ExprPtr m = IRMutator::mutate_call(e);
    // A tile op written without its trailing scratch tile whose tensor form lowers with one
    // shaped like operand 0 (row reductions, pl.transpose): the scratch is created here, as for
    // the tensor form.
    const auto* c = as<Call>(m);
    const OpDef* op = c ? c->op : nullptr;
    if (op && op->tensor_op && !op->args.empty() && op->args.back().scratch && op->args.back().optional &&
        c->args.size() + 1 == op->args.size() && as_tile(c->args[0]->type) &&
        (op->tensor_op->lowering == TileLowering::ComputeTmp || op->tensor_op->lowering == TileLowering::Transpose)) {
      std::vector<ExprPtr> args = c->args;
      args.push_back(scratch_like(args[0], c->span));
      return rebuild_call(*c, std::move(args));
    }
    return m;
  }

  StmtPtr mutate_for(const std::shared_ptr<const ForStmt>& s) override {
    ExprPtr a = mutate(s->start), b = mutate(s->stop), c = mutate(s->step);
    auto ias = carry_iter_args(s->iter_args, s->body);
    StmtPtr body = mutate(s->body);
    auto rvs = carry_return_vars(s->return_vars, ias);
    if (a == s->start && b == s->stop && c == s->step && ias == s->iter_args && body == s->body && rvs == s->return_vars)
      return finish(s);
    return finish(with_comments(std::make_shared<ForStmt>(s->loop_var, a, b, c, std::move(ias), body, std::move(rvs),
                                                          s->kind, s->span, s->stage), *s));
  }

  StmtPtr mutate_while(const std::shared_ptr<const WhileStmt>& s) override {
    auto ias = carry_iter_args(s->iter_args, s->body);
    ExprPtr c = mutate(s->cond);
    StmtPtr body = mutate(s->body);
    auto rvs = carry_return_vars(s->return_vars, ias);
    if (c == s->cond && ias == s->iter_args && body == s->body && rvs == s->return_vars) return finish(s);
    return finish(with_comments(std::make_shared<WhileStmt>(c, std::move(ias), body, std::move(rvs), s->span), *s));
  }

  StmtPtr mutate_if(const std::shared_ptr<const IfStmt>& s) override {
    ExprPtr c = mutate(s->cond);
    StmtPtr t = mutate(s->then_body);
    StmtPtr e = mutate(s->else_body);
    auto y = split_trailing_yield(t).second;
    auto ye = split_trailing_yield(e).second;
    std::vector<VarPtr> rvs;
    for (size_t i = 0; i < s->return_vars.size(); ++i) {
      const auto& rv = s->return_vars[i];
      // One arm computing a tile and the other yielding a GM tensor as it is: not one type.
      if (y && ye && i < y->values.size() && i < ye->values.size() &&
          bool(as_tile(y->values[i]->type)) != bool(as_tile(ye->values[i]->type)) && as_tensor(rv->type))
        throw CompileError("E501", s->span,
                           fmt::format("an if whose one branch computes '{}' on chip and whose other yields a GM "
                                       "tensor for it is not supported yet", rv->name),
                           "load the tensor in its branch (pl.load), or take a window of it (pl.slice)");
      if (y && i < y->values.size() && as_tile(y->values[i]->type) && as_tensor(rv->type)) {
        rvs.push_back(copy_var_with_type(*rv, y->values[i]->type));
        var_map[rv.get()] = rvs.back();
      } else {
        rvs.push_back(rv);
        if (as_tensor(rv->type)) gm_.insert(rv.get());
      }
    }
    if (c == s->cond && t == s->then_body && e == s->else_body && rvs == s->return_vars) return finish(s);
    return finish(with_comments(std::make_shared<IfStmt>(c, t, e, std::move(rvs), s->span), *s));
  }

 private:
  // pl.tensor.dim left in a kernel: Simplify folded every static extent already.
  [[noreturn]] static void reject_scalar_query(const Call& c) {
    throw CompileError("E501", c.span, fmt::format("'pl.{}' of a dynamic extent inside a kernel is not supported yet", c.op->name),
                       "pass the extent to the kernel as a pl.Scalar[pl.INDEX] parameter");
  }

  // Prepends the statements generated for the current one.
  StmtPtr finish(StmtPtr s) {
    if (pre_.empty()) return s;
    auto stmts = std::move(pre_);
    pre_.clear();
    stmts.push_back(std::move(s));
    return std::make_shared<SeqStmts>(std::move(stmts), stmts.back()->span);
  }

  std::vector<IterArgPtr> carry_iter_args(const std::vector<IterArgPtr>& in, const StmtPtr& body) {
    std::vector<IterArgPtr> out;
    const auto computed = computed_carries(body, in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      const auto& ia = in[i];
      ExprPtr init = mutate(ia->init);
      // A carry the body computes starts from the GM value's tile (a parameter loaded at entry).
      if (computed[i] && as_tensor(init->type)) init = tile_operand(ia->init, MemorySpace::Vec, ia->span);
      if (init == ia->init) {
        if (as_tensor(ia->type)) gm_.insert(ia.get());
        out.push_back(ia);
        continue;
      }
      auto n = std::make_shared<IterArg>(ia->name, init->type, init, ia->span);
      var_map[ia.get()] = n;
      out.push_back(n);
    }
    return out;
  }

  std::vector<VarPtr> carry_return_vars(const std::vector<VarPtr>& in, const std::vector<IterArgPtr>& ias) {
    std::vector<VarPtr> out;
    for (size_t i = 0; i < in.size(); ++i) {
      const auto& rv = in[i];
      if (i < ias.size() && ias[i]->type != rv->type && as_tile(ias[i]->type)) {
        out.push_back(copy_var_with_type(*rv, ias[i]->type));
        var_map[rv.get()] = out.back();
      } else {
        if (as_tensor(rv->type)) gm_.insert(rv.get());
        out.push_back(rv);
      }
    }
    return out;
  }

  // Rejects shapes that are not static or do not fit in `space`.
  void check_fits(const ShapedType& t, MemorySpace space, const std::string& what, const Span& sp) {
    auto bytes = byte_size(t);
    if (!bytes)
      throw CompileError("E501", sp, fmt::format("{} has a dynamic shape; lowering it to tiles is not supported yet", what),
                         kHint);
    int64_t cap = soc_.capacity(space);
    if (cap > 0 && *bytes > cap)
      throw CompileError("E501", sp,
                         fmt::format("{} needs {} bytes but one pl.Mem.{} tile holds at most {} bytes; automatic tiling of "
                                     "tensor-level code is not supported yet",
                                     what, *bytes, to_string(space), cap),
                         "write the kernel at tile level (pl.load windows in a pl.range loop, pl.store each result) or "
                         "use a smaller shape");
  }

  std::string describe(const Var& v, const ShapedType& t) {
    std::string dims;
    for (const auto& d : t.shape) {
      auto c = const_int_value(d);
      dims += (dims.empty() ? "" : ", ") + (c ? std::to_string(*c) : std::string("?"));
    }
    return fmt::format("tensor '{}' of shape [{}] {}", v.name, dims, dtype_name(t.dtype));
  }

  // A whole-tensor load of GM tensor `v` into `space`.
  ExprPtr load(const VarPtr& v, MemorySpace space, const Span& sp, std::vector<StmtPtr>& where) {
    const auto* t = as_tensor(v->type);
    check_fits(*t, space, describe(*v, *t), sp);
    Kwargs kw;
    if (space != MemorySpace::Vec) kw.emplace_back("target_memory", space);
    auto call = make_call("tile.load", {v, zero_offsets(t->shape.size(), sp), index_list(t->shape, sp)}, kw, sp);
    auto tv = std::make_shared<Var>(v->name + (space == MemorySpace::Mat ? "_mat" : "_tile"), call->type, sp);
    where.push_back(std::make_shared<AssignStmt>(tv, call, sp));
    return tv;
  }

  // The tile for a tensor operand: a computed value's tile, else a load of the GM tensor.
  ExprPtr tile_operand(const ExprPtr& arg, MemorySpace space, const Span& sp) {
    ExprPtr m = mutate(arg);
    if (as_tile(m->type) || !as_tensor(m->type)) return m;
    auto v = std::dynamic_pointer_cast<const Var>(m);
    if (!v) throw CompileError("E501", sp, "a tensor operand that is not a variable is not supported yet", kHint);
    if (params_.count(v.get())) {
      auto key = std::make_pair(v.get(), int(space));
      auto it = entry_cache_.find(key);
      if (it != entry_cache_.end()) return it->second;
      return entry_cache_[key] = load(v, space, sp, entry_);
    }
    return load(v, space, sp, pre_);  // a GM value written earlier in the kernel: load it here
  }

  bool is_gm(const ExprPtr& e) {
    ExprPtr m = mutate(e);
    return as_tensor(m->type) != nullptr;
  }

  // `value` bound to a fresh Var `n`, in the statements generated before the current one.
  ExprPtr staged(const std::string& n, ExprPtr value, const Span& sp) {
    auto v = std::make_shared<Var>(n, value->type, sp);
    pre_.push_back(std::make_shared<AssignStmt>(v, value, sp));
    return v;
  }

  ExprPtr scratch_like(const ExprPtr& tile, const Span& sp) {
    const auto* t = as_tile(tile->type);
    return staged("tmp", make_call("tile.create", {index_list(t->shape, sp)}, {{"dtype", t->dtype}}, sp), sp);
  }

  ExprPtr moved(const ExprPtr& tile, MemorySpace space, const Span& sp, const std::string& name) {
    return staged(name, make_call("tile.move", {tile}, {{"target_memory", space}}, sp), sp);
  }

  // The static shape of a last-axis gather / scatter operand pair: `data` (the indexed tensor)
  // must be 2-D and `dim` the last axis; rejected otherwise.
  std::pair<std::vector<int64_t>, std::vector<int64_t>> last_axis_shapes(const Call& c, size_t data, size_t index) {
    const auto* in = as_tensor(c.args[data]->type);
    const auto* ix = as_tensor(c.args[index]->type);
    const AttrValue* dim = c.kwarg("dim");
    const int64_t d = dim && std::get_if<int64_t>(dim) ? *std::get_if<int64_t>(dim) : -1;
    const auto in_shape = static_shape(in->shape), ix_shape = static_shape(ix->shape);
    if (in->shape.size() != 2 || ix->shape.size() != 2 || (d != -1 && d != 1) || !in_shape || !ix_shape)
      throw CompileError("E501", c.span,
                         fmt::format("'pl.{}' other than along the last axis of static 2-D tensors is not supported yet inside a kernel",
                                     c.op->name), kHint);
    return {*in_shape, *ix_shape};
  }

  // Flat positions in a [rows, cols] tile of the column indices `idx` ([rows, k], dtype `dt`):
  // row r's indices are offset by r * cols, the row of each index position coming from an index
  // sequence 0 .. rows*k-1 viewed as [rows, k] and divided by k.
  ExprPtr flat_indices(const ExprPtr& idx, int64_t rows, int64_t k, int64_t cols, DataType dt, const std::string& name,
                       const Span& sp) {
    if (rows <= 1) return idx;
    ExprPtr seq = staged(name + "_seq", make_call("tile.ci", {make_int(0, sp), index_list({make_int(1, sp), make_int(rows * k, sp)}, sp)},
                                                  {{"dtype", dt}}, sp), sp);
    ExprPtr pos = staged(name + "_pos", make_call("tile.reshape", {seq, index_list({make_int(rows, sp), make_int(k, sp)}, sp)}, {}, sp), sp);
    ExprPtr row = staged(name + "_row", make_call("tile.divs", {pos, make_int(k, sp, dt)}, {}, sp), sp);
    ExprPtr base = staged(name + "_base", make_call("tile.muls", {row, make_int(cols, sp, dt)}, {}, sp), sp);
    return staged(name + "_flat", make_call("tile.add", {base, idx}, {}, sp), sp);
  }

  ExprPtr full_tile(int64_t rows, int64_t cols, DataType dt, double value, const std::string& name, const Span& sp) {
    return staged(name, make_call("tile.full", {index_list({make_int(rows, sp), make_int(cols, sp)}, sp)},
                                  {{"dtype", dt}, {"value", value}}, sp), sp);
  }

  // tensor.gather(input [R, C], index [R, K], dim=-1): out[r, k] = input[r, index[r, k]].
  // tile.gather reads flat positions of its source.
  ExprPtr gather(const Call& c, const OpDef& tile, const std::string& name) {
    const Span& sp = c.span;
    const auto [in_shape, ix_shape] = last_axis_shapes(c, 0, 1);
    const int64_t rows = ix_shape[0], k = ix_shape[1], cols = in_shape[1];
    if (in_shape[0] != rows)
      throw CompileError("E501", sp, "'pl.tensor.gather' with an index of other row count than its input is not supported yet", kHint);
    ExprPtr src = tile_operand(c.args[0], MemorySpace::Vec, sp);
    ExprPtr idx = tile_operand(c.args[1], MemorySpace::Vec, sp);
    if (as_tile(idx->type)->dtype != DataType::INT32)
      throw CompileError("E501", sp, "'pl.tensor.gather' with non-INT32 indices is not supported yet inside a kernel", kHint);
    ExprPtr flat = flat_indices(idx, rows, k, cols, DataType::INT32, name, sp);
    ExprPtr tmp = staged(name + "_gtmp", make_call("tile.create", {index_list({make_int(rows, sp), make_int(k, sp)}, sp)},
                                                   {{"dtype", DataType::INT32}}, sp), sp);
    return make_call(tile, {src, flat, tmp}, {}, sp);
  }

  // A 1-mask type of the element width of `dt` (16 or 32 bits; the scattered mask must have
  // the element width of the values) that tile.cmps compares; E501 for other widths.
  DataType mask_type(const Call& c, DataType dt) {
    const int bits = dtype_bits(dt);
    if (bits != 32 && bits != 16)
      throw CompileError("E501", c.span, fmt::format("'pl.{}' of {} elements is not supported yet inside a kernel", c.op->name, dtype_name(dt)),
                         "scatter 16- or 32-bit elements");
    return bits == 32 ? DataType::FP32 : DataType::FP16;
  }

  // out = sel(hit != 0, values, keep): the scattered values where the 1-mask `hit` was written,
  // `keep` elsewhere.
  ExprPtr keep_unwritten(const ExprPtr& hit, const ExprPtr& values, const ExprPtr& keep, DataType mask_dt,
                         const std::string& name, const Span& sp) {
    ExprPtr pred = staged(name + "_mask", make_call("tile.cmps", {hit, make_float(0.0, sp, mask_dt)}, {{"cmp_type", int64_t{1}}}, sp), sp);
    ExprPtr tmp = staged(name + "_seltmp", make_call("tile.create", {index_list({make_int(1, sp), make_int(32, sp)}, sp)},
                                                     {{"dtype", DataType::UINT8}}, sp), sp);
    return make_call("tile.sel", {pred, values, keep, tmp}, {}, sp);
  }

  // tensor.scatter_mask(input [R, C / stride], dst [R, C]; mask_pattern): dst with the
  // pattern's columns taken from input's rows in order. tile.scatter_mask clears the rest of its
  // destination, so as for tensor.scatter the values and a 1-mask go into zeroed tiles.
  ExprPtr scatter_mask(const Call& c, const OpDef& tile, const Kwargs& kw, const std::string& name) {
    const Span& sp = c.span;
    const auto* it = as_tensor(c.args[0]->type);
    const auto* dt = as_tensor(c.args[1]->type);
    const auto in_shape = static_shape(it->shape), dst_shape = static_shape(dt->shape);
    if (!in_shape || !dst_shape)
      throw CompileError("E501", sp, "'pl.tensor.scatter_mask' of dynamic shapes is not supported yet inside a kernel", kHint);
    const DataType mask_dt = mask_type(c, dt->dtype);
    ExprPtr input = tile_operand(c.args[0], MemorySpace::Vec, sp);
    ExprPtr dst = tile_operand(c.args[1], MemorySpace::Vec, sp);
    const int64_t rows = (*dst_shape)[0], cols = (*dst_shape)[1];
    ExprPtr values = staged(name + "_values", make_call(tile, {full_tile(rows, cols, dt->dtype, 0.0, name + "_zero", sp), input}, kw, sp), sp);
    ExprPtr ones = full_tile((*in_shape)[0], (*in_shape)[1], mask_dt, 1.0, name + "_ones", sp);
    ExprPtr hit = staged(name + "_hit", make_call(tile, {full_tile(rows, cols, mask_dt, 0.0, name + "_hzero", sp), ones}, kw, sp), sp);
    return keep_unwritten(hit, values, dst, mask_dt, name, sp);
  }

  // tensor.scatter(input [R, S], index [N, K], src [N, K], dim=-1): out = input with
  // out[r, index[r, k]] = src[r, k]. tile.scatter writes flat positions and clears the rest of
  // its destination, so the values and a 1-mask are scattered into zeroed tiles, and tile.sel
  // takes the scattered value where the mask is set, the input elsewhere.
  ExprPtr scatter(const Call& c, const OpDef& tile, const std::string& name) {
    const Span& sp = c.span;
    const auto [in_shape, ix_shape] = last_axis_shapes(c, 0, 1);
    const int64_t rows = in_shape[0], cols = in_shape[1], n = ix_shape[0], k = ix_shape[1];
    const DataType dt = as_tensor(c.args[0]->type)->dtype;
    const DataType mask_dt = mask_type(c, dt);
    const bool wide = dtype_bits(dt) == 32;
    const DataType idx_dt = wide ? DataType::INT32 : DataType::INT16;
    if (!wide && rows * cols > 32768)
      throw CompileError("E501", sp, fmt::format("'pl.tensor.scatter' into {} elements needs flat indices beyond INT16", rows * cols),
                         "scatter into at most 32768 elements of a 16-bit tensor per kernel");
    ExprPtr input = tile_operand(c.args[0], MemorySpace::Vec, sp);
    ExprPtr idx = tile_operand(c.args[1], MemorySpace::Vec, sp);
    ExprPtr src = tile_operand(c.args[2], MemorySpace::Vec, sp);
    ExprPtr flat = flat_indices(idx, n, k, cols, idx_dt, name, sp);
    ExprPtr values = staged(name + "_values", make_call(tile, {full_tile(rows, cols, dt, 0.0, name + "_zero", sp), src, flat}, {}, sp), sp);
    ExprPtr ones = full_tile(n, k, mask_dt, 1.0, name + "_ones", sp);
    ExprPtr hit = staged(name + "_hit", make_call(tile, {full_tile(rows, cols, mask_dt, 0.0, name + "_hzero", sp), ones, flat}, {}, sp), sp);
    return keep_unwritten(hit, values, input, mask_dt, name, sp);
  }

  // The converted value of one tensor op call (its extra statements go to pre_).
  ExprPtr convert(const Call& c, const std::string& name) {
    if (c.op->lowering == TileLowering::Scalar) reject_scalar_query(c);
    // An element of a GM tensor stays a scalar load (registry kernel_gm_scalar: tensor.read).
    if (c.op->kernel_gm_scalar && !c.args.empty() && is_gm(c.args[0])) {
      std::vector<ExprPtr> args;
      for (const auto& a : c.args) args.push_back(mutate(a));
      return rebuild_call(c, std::move(args));
    }
    const OpDef* tile = c.op->tile_op;
    if (!tile || c.op->lowering == TileLowering::None)
      throw CompileError("E501", c.span, fmt::format("tensor-level op 'pl.{}' inside a kernel is not supported yet", c.op->name),
                         kHint);
    // Broadcasting operands of an equal-shape tile form: its row / col expand form, or rejected.
    const BroadcastLowering bcast = broadcast_lowering(c);
    tile = bcast.tile;
    // tensor.gather / tensor.scatter read their dim=, PreciseTmp ops their high_precision= here.
    Kwargs kw;
    bool precise = false;
    if (c.op->lowering == TileLowering::PreciseTmp) {
      const AttrValue* hp = c.kwarg("high_precision");
      precise = hp && std::get_if<bool>(hp) && *std::get_if<bool>(hp);
    } else if (c.op->lowering != TileLowering::Gather && c.op->lowering != TileLowering::Scatter) {
      const bool mm = c.op->lowering == TileLowering::Matmul || c.op->lowering == TileLowering::MatmulAcc;
      kw = mm ? carry_kwargs(c, *tile, {"a_trans", "b_trans"}) : carry_kwargs(c, *tile);
    }
    const Span& sp = c.span;
    std::vector<ExprPtr> args;
    switch (c.op->lowering) {
      case TileLowering::Compute:
      case TileLowering::ComputeTmp:
      case TileLowering::PreciseTmp:
      case TileLowering::Transpose:
        // An in-place tile form (tile.write; not a view such as tile.reshape) would write a
        // temporary copy of a GM operand.
        if (int k = tile->output_reuses_input;
            k >= 0 && size_t(k) < c.args.size() && tile->pipe_rule != PipeRule::NotInstruction && is_gm(c.args[k]))
          throw CompileError("E501", sp, fmt::format("'pl.{}' into a GM tensor inside a kernel is not supported yet", c.op->name),
                             "write into a tensor computed in the kernel (for example a pl.full), then assemble it into the output");
        for (const auto& a : c.args) args.push_back(as_tensor(a->type) ? tile_operand(a, MemorySpace::Vec, sp) : mutate(a));
        if (bcast.swap) std::swap(args[0], args[1]);
        if (c.op->lowering == TileLowering::ComputeTmp || c.op->lowering == TileLowering::Transpose || precise)
          args.push_back(scratch_like(args[0], sp));
        break;
      case TileLowering::MergeTmp: {
        // tensor.mrgsort_format2: the sorted lists as Vec tiles, then the merge's scratch, shaped
        // like the joined result (pto-isa: tmp holds at least the sum of the lists' columns).
        for (const auto& a : c.args) args.push_back(tile_operand(a, MemorySpace::Vec, sp));
        const auto* rt = as_tensor(c.type);
        args.push_back(staged("tmp", make_call("tile.create", {index_list(rt->shape, sp)}, {{"dtype", rt->dtype}}, sp), sp));
        break;
      }
      case TileLowering::Create:
        for (const auto& a : c.args) args.push_back(mutate(a));
        break;
      case TileLowering::CreateMat:  // transpose=True (a ZN staging layout) is rejected by carry_kwargs
        for (const auto& a : c.args) args.push_back(mutate(a));
        kw.emplace_back("target_memory", MemorySpace::Mat);
        break;
      case TileLowering::Slice:
        if (is_gm(c.args[0])) {
          // A window of a GM tensor: load exactly that window.
          std::vector<ExprPtr> la = {mutate(c.args[0]), mutate(c.args[2]), mutate(c.args[1])};
          if (c.args.size() > 3) la.push_back(mutate(c.args[3]));
          Kwargs lkw;
          for (const auto& [k, v] : c.kwargs) {
            if (k == "clamp") lkw.emplace_back(k, v);
            else if (c.op->find_kwarg(k) && c.op->find_kwarg(k)->default_value != v)
              throw CompileError("E501", sp, fmt::format("'pl.{}' with attribute '{}' is not supported yet inside a kernel",
                                                         c.op->name, k), kHint);
          }
          // The space its readers need: Mat for a cube-only operand; read by both, a Mat copy too.
          const Var* self = current_def_;
          if (self && (mat_only_.count(self) || mat_and_vec_.count(self))) {
            Kwargs mkw = lkw;
            mkw.emplace_back("target_memory", MemorySpace::Mat);
            auto mat = make_call("tile.load", la, mkw, sp);
            check_fits(*as_tile(mat->type), MemorySpace::Mat, fmt::format("the slice '{}'", name), sp);
            if (mat_only_.count(self)) return mat;
            mat_copy_[self] = staged(name + "_mat", mat, sp);
          }
          auto call = make_call("tile.load", la, lkw, sp);
          check_fits(*as_tile(call->type), MemorySpace::Vec, fmt::format("the slice '{}'", name), sp);
          return call;
        }
        args.push_back(tile_operand(c.args[0], MemorySpace::Vec, sp));
        for (size_t i = 1; i < c.args.size(); ++i) args.push_back(mutate(c.args[i]));
        break;
      case TileLowering::Assemble:
        if (is_gm(c.args[0])) {  // into GM: a store (atomic= carried: an atomic-add TSTORE)
          ExprPtr src = tile_operand(c.args[1], MemorySpace::Vec, sp);
          Kwargs skw;
          if (const AttrValue* at = c.kwarg("atomic"); at && atomic_mode(c) != AtomicMode::None) skw.emplace_back("atomic", *at);
          return make_call("tile.store", {src, mutate(c.args[2]), mutate(c.args[0])}, skw, sp);
        }
        if (atomic_mode(c) != AtomicMode::None)
          throw CompileError("E501", sp, "'pl.assemble(..., atomic=...)' into a tensor computed in the kernel is not supported yet",
                             "assemble atomically into a GM tensor (a parameter), or add the tiles with pl.add");
        args = {tile_operand(c.args[0], MemorySpace::Vec, sp), tile_operand(c.args[1], MemorySpace::Vec, sp),
                mutate(c.args[2])};
        break;
      case TileLowering::Matmul:
      case TileLowering::MatmulAcc: {
        size_t first = c.op->lowering == TileLowering::MatmulAcc ? 1 : 0;
        if (first == 1) {
          ExprPtr acc = mutate(c.args[0]);
          const auto* at = as_tile(acc->type);
          if (!at)
            throw CompileError("E501", sp, "'pl.matmul_acc' on an accumulator loaded from a tensor is not supported yet",
                               "start the accumulation with pl.matmul and carry its result");
          args.push_back(acc);
        }
        // Each operand in Mat (a transposed one, a_trans / b_trans, as the zero-copy transpose
        // view of its natural load), then moved to Left / Right.
        MemorySpace sides[2] = {MemorySpace::Left, MemorySpace::Right};
        const char* trans[2] = {"a_trans", "b_trans"};
        for (size_t i = 0; i < 2; ++i) {
          const ExprPtr& arg = c.args[first + i];
          const auto* av = as<Var>(arg);
          auto copy = av ? mat_copy_.find(av) : mat_copy_.end();
          ExprPtr t = copy != mat_copy_.end() ? copy->second : tile_operand(arg, MemorySpace::Mat, sp);
          const std::string side = fmt::format("{}_{}", name, i == 0 ? "lhs" : "rhs");
          if (kw_true(c, trans[i])) {
            const auto* tt = as_tile(t->type);
            if (!tt || tt->space != MemorySpace::Mat)
              throw CompileError("E501", sp,
                                 fmt::format("'pl.{}' with {}=True on an operand computed in the kernel is not supported yet",
                                             c.op->name, trans[i]),
                                 "pass the operand from GM (a parameter or a window of one), or transpose it with pl.transpose");
            t = staged(side + "_t", make_call("tile.transpose_view", {t}, {}, sp), sp);
          }
          args.push_back(moved(t, sides[i], sp, side));
        }
        break;
      }
      case TileLowering::Compare: {
        // A bit mask from tile.cmp (tile.cmps against a scalar), then 1 / 0 selected by it.
        ExprPtr lhs = tile_operand(c.args[0], MemorySpace::Vec, sp);
        ExprPtr rhs = as_tensor(c.args[1]->type) ? tile_operand(c.args[1], MemorySpace::Vec, sp) : mutate(c.args[1]);
        const OpDef* cmp = as_scalar(rhs->type) ? OpRegistry::instance().find(tile->scalar_form) : tile;
        if (!cmp) throw InternalError("ConvertTensorToTileOps", "tile.cmp has no scalar form", sp);
        const auto* lt = as_tile(lhs->type);
        ExprPtr mask = staged(name + "_mask", make_call(*cmp, {lhs, rhs}, kw, sp), sp);
        auto full = [&](double value) {
          return make_call("tile.full", {index_list(lt->shape, sp)}, {{"dtype", lt->dtype}, {"value", value}}, sp);
        };
        ExprPtr one = staged(name + "_one", full(1.0), sp), zero = staged(name + "_zero", full(0.0), sp);
        ExprPtr tmp = staged(name + "_seltmp", make_call("tile.create", {index_list({make_int(1, sp), make_int(32, sp)}, sp)},
                                                         {{"dtype", DataType::UINT8}}, sp), sp);
        return make_call("tile.sel", {mask, one, zero, tmp}, {}, sp);
      }
      case TileLowering::GatherRow: {
        // Rows of a GM tensor copied into a window of an accumulator the kernel holds (a Mat tile
        // from pl.create_l1, or a Vec tile).
        if (is_gm(c.args[0]) || !is_gm(c.args[1]))
          throw CompileError("E501", sp, fmt::format("'pl.{}' {} inside a kernel is not supported yet", c.op->name,
                                                     is_gm(c.args[0]) ? "into a GM tensor" : "from a tensor the kernel computes"),
                             "gather rows of a GM tensor into a pl.create_l1 (or pl.create_tensor) accumulator");
        ExprPtr acc = mutate(c.args[0]);
        if (!as_tile(acc->type)) acc = tile_operand(c.args[0], MemorySpace::Vec, sp);
        args = {acc};
        for (size_t i = 1; i < c.args.size(); ++i) args.push_back(mutate(c.args[i]));
        break;
      }
      case TileLowering::Gather: return gather(c, *tile, name);
      case TileLowering::Scatter: return scatter(c, *tile, name);
      case TileLowering::ScatterMask: return scatter_mask(c, *tile, kw, name);
      case TileLowering::None:
      case TileLowering::Scalar: break;  // rejected above
    }
    auto call = make_call(*tile, args, kw, sp);
    if (const auto* t = as_tile(call->type)) {
      // A matmul larger than L0 is AutoTileMatmulL0's to tile; its operands must fit Mat.
      auto space = t->space.value_or(MemorySpace::Vec);
      if (c.op->lowering != TileLowering::Matmul) check_fits(*t, space, fmt::format("the result of 'pl.{}'", c.op->name), sp);
    }
    return call;
  }

  const Function& f_;
  const SocInfo& soc_;
  std::unordered_set<const Var*> params_;
  std::unordered_set<const Var*> gm_;
  std::vector<StmtPtr> entry_, pre_;
  std::map<std::pair<const Var*, int>, ExprPtr> entry_cache_;
  std::vector<VarPtr> added_;
  std::unordered_set<const Var*> mat_only_, mat_and_vec_;  // GM windows matmuls read (OperandUses)
  std::unordered_map<const Var*, ExprPtr> mat_copy_;       // the Mat load of a window both units read
  const Var* current_def_ = nullptr;                       // the variable the converted call defines
};

// Callers of kernels that gained Out params: create each new tensor right before the call.
class CallerUpdater : public IRMutator {
 public:
  explicit CallerUpdater(const std::map<std::string, KernelInfo>& k) : kernels_(k) {}

 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr&) { return true; });
  }
  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    std::vector<StmtPtr> pre;
    ExprPtr v = extend(s->value, pre);
    if (pre.empty()) return IRMutator::mutate_assign(s);
    pre.push_back(with_comments(std::make_shared<AssignStmt>(s->var, v, s->span), *s));
    return std::make_shared<SeqStmts>(std::move(pre), s->span);
  }
  StmtPtr mutate_eval(const std::shared_ptr<const EvalStmt>& s) override {
    std::vector<StmtPtr> pre;
    ExprPtr v = extend(s->expr, pre);
    if (pre.empty()) return IRMutator::mutate_eval(s);
    pre.push_back(with_comments(std::make_shared<EvalStmt>(v, s->span), *s));
    return std::make_shared<SeqStmts>(std::move(pre), s->span);
  }

 private:
  ExprPtr extend(const ExprPtr& e, std::vector<StmtPtr>& pre) {
    const auto* c = as<Call>(e);
    if (!c || c->op) return e;
    auto it = kernels_.find(c->callee);
    if (it == kernels_.end() || it->second.added_outs.empty()) return e;
    auto args = c->args;
    for (size_t i = 0; i < it->second.added_outs.size(); ++i) {
      const auto* t = as_tensor(it->second.added_outs[i]);
      auto create = make_call("tensor.create", {index_list(t->shape, c->span)}, {{"dtype", t->dtype}}, c->span);
      auto v = std::make_shared<Var>(it->second.added_names[i], create->type, c->span);
      pre.push_back(std::make_shared<AssignStmt>(v, create, c->span));
      args.push_back(v);
    }
    auto n = std::make_shared<Call>(nullptr, c->callee, std::move(args), c->kwargs, c->type, c->span, c->arg_directions);
    n->dispatch = c->dispatch;
    return n;
  }
  const std::map<std::string, KernelInfo>& kernels_;
};

ProgramPtr convert_program(const ProgramPtr& p, const PassContext& ctx) {
  std::map<std::string, KernelInfo> changed;
  std::vector<FunctionPtr> fs;
  for (const auto& f : p->functions) {
    if (f->type != FunctionType::InCore) {
      fs.push_back(f);
      continue;
    }
    KernelInfo info;
    Converter c(*f, soc_info(ctx.soc));
    FunctionPtr g = c.run(info);
    fs.push_back(g ? g : f);
    if (g) changed[f->name] = std::move(info);
  }
  if (changed.empty()) return p;
  CallerUpdater u(changed);
  for (auto& f : fs)
    if (!is_incore_like(f->type)) f = u.mutate_function(f);
  // A caller's In parameter handed to a kernel parameter this pass made Out / InOut is written
  // through the call: it becomes InOut too (the caller's caller then sees the write).
  std::map<std::string, FunctionPtr> by_name;
  for (const auto& f : fs) by_name[f->name] = f;
  for (auto& f : fs) {
    if (is_incore_like(f->type)) continue;
    std::vector<ParamDirection> dirs = f->param_directions;
    struct Calls : IRVisitor {
      std::vector<const Call*> out;
      void visit_call(const Call& c) override {
        if (!c.op) out.push_back(&c);
        IRVisitor::visit_call(c);
      }
    } calls;
    calls.visit(f->body);
    for (const Call* c : calls.out) {
      auto k = by_name.find(c->callee);
      const FunctionPtr before = p->find(c->callee);
      if (k == by_name.end() || !changed.count(c->callee) || !before) continue;
      for (size_t i = 0; i < c->args.size() && i < k->second->param_directions.size() && i < before->param_directions.size(); ++i) {
        if (before->param_directions[i] != ParamDirection::In || k->second->param_directions[i] == ParamDirection::In) continue;
        for (size_t j = 0; j < f->params.size(); ++j)
          if (c->args[i].get() == f->params[j].get() && dirs[j] == ParamDirection::In) dirs[j] = ParamDirection::InOut;
      }
    }
    if (dirs == f->param_directions) continue;
    auto g = std::make_shared<Function>(*f);
    g->param_directions = std::move(dirs);
    f = g;
  }
  return make_program(p->name, std::move(fs), p->dynamic_dims, p->span);
}

}  // namespace

Pass convert_tensor_to_tile_ops_pass() {
  return Pass{"ConvertTensorToTileOps",
              "Lowers tensor ops inside InCore functions to tile ops (whole-tensor loads at entry, each tensor op to "
              "the tile form its registry entry names, a [1, C] / [R, 1] broadcast operand → its row / col expand form, "
              "tensor.assemble into GM → tile.store); computed results get new Out params that "
              "callers allocate with tensor.create; written In params become Out/InOut.",
              {{Property::SplitIncoreOrch}, {Property::TileOpsOnly}, {}},
              [](const ProgramPtr& p, PassContext& ctx) { return convert_program(p, ctx); }};
}

}  // namespace pypto::passes
