// AutoTileMatmulL0 — a tensor-level matmul lowers (ConvertTensorToTileOps) to whole-operand moves
// Mat → Left / Right and one tile.matmul into Acc. When an operand does not fit its L0 buffer
// (L0A / L0B) or the result does not fit L0C, this pass tiles it: it chooses an L0 block
// (m, n, k) — m, n multiples of 16 and k of 32 bytes, each dividing its extent, the largest
// output block m·n that fits L0C (ties: the wider n), then the largest k whose [m, k] and [k, n]
// blocks fit L0A / L0B — and rewrites
//     l = tile.move(A, Left); r = tile.move(B, Right); c = tile.matmul(l, r)
// into, per [m, n] output block, a K loop of tile.extract (Mat → Left / Right sub-tiles at the
// block's offsets) feeding tile.matmul on the first k block and tile.matmul_acc on the others,
// the Acc block carried by the loop. A result that fits L0C keeps its identity (only K is split);
// a larger one must be stored to GM by its only use, a tile.store: each block is stored at its
// offset (the reference's "direct store" placement), in an M / N loop nest carrying the GM tensor;
// or written by its only use into a Mat tile, a tile.assemble (the "Mat scratch" placement: each
// block is assembled at its offset, the nest carrying the Mat tile).
// First, a matmul result narrowed for another matmul, `cb = tile.cast(c, BF16 | FP16,
// mode="rint")` read only by moves to Left / Right, is not cast on the vector core: `cb` becomes a
// Mat tile that `c` is assembled into (the cube's FIXPIPE write-back narrows, half to even, as
// "rint" does), so the chain stays on the cube. Other rounding modes keep the vector cast.
// Operands with a valid shape on M / N are tiled as whole blocks. Not supported yet (E501 at the
// matmul): a larger-than-L0C result used otherwise, a valid shape short of K, extents no aligned
// block divides.
// An operand the vector core computes (a Vec tile moved to Left / Right) is first moved to Mat,
// where ExpandMixedKernel's pop places it, and its blocks are extracted from there.
// The K loop is sequential (the reference emits a two-stage pipeline). Runs on SSA tile code
// before InferTileMemorySpace; keeps SSAForm and TileOpsOnly.
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "ir/soc.h"
#include "passes/pass_util.h"
#include "passes/passes.h"
#include "passes/tensor_access.h"

namespace pypto::passes {

using namespace ir;

namespace {

struct Block {
  int64_t m, n, k;
};

const Call* call_of(const AssignStmt* a, std::string_view op) {
  const auto* c = a ? as<Call>(a->value) : nullptr;
  return c && c->op && c->op->name == op ? c : nullptr;
}

bool in_space(const ExprPtr& e, MemorySpace s) {
  const auto* t = as_tile(e->type);
  return t && t->space == s;
}

std::vector<int64_t> aligned_divisors(int64_t extent, int64_t align) {
  std::vector<int64_t> out;
  for (int64_t d = align; d <= extent; d += align)
    if (extent % d == 0) out.push_back(d);
  return out;
}

// The L0 block of an [M, K] x [K, N] matmul, or nullopt when no aligned block fits.
std::optional<Block> choose_block(int64_t M, int64_t N, int64_t K, int64_t in_bytes, int64_t acc_bytes, const SocInfo& soc) {
  const int64_t l0a = soc.capacity(MemorySpace::Left), l0b = soc.capacity(MemorySpace::Right),
                l0c = soc.capacity(MemorySpace::Acc);
  const int64_t k_align = std::max<int64_t>(1, 32 / in_bytes);
  std::optional<Block> best;
  for (int64_t m : aligned_divisors(M, 16))
    for (int64_t n : aligned_divisors(N, 16)) {
      if (m * n * acc_bytes > l0c) continue;
      std::optional<int64_t> kb;
      for (int64_t k : aligned_divisors(K, k_align))
        if (m * k * in_bytes <= l0a && k * n * in_bytes <= l0b) kb = k;
      if (!kb) continue;
      const Block b{m, n, *kb};
      auto key = [](const Block& x) { return std::make_tuple(x.m * x.n, x.n, x.k); };
      if (!best || key(b) > key(*best)) best = b;
    }
  return best;
}

ExprPtr mul_add(const ExprPtr& base, const VarPtr& iv, int64_t step, const Span& sp) {
  ExprPtr off = std::make_shared<Binary>(BinOp::Mul, iv, make_int(step, sp), scalar_type(DataType::INDEX), sp);
  if (const auto b = const_int_value(base); b && *b == 0) return off;
  return std::make_shared<Binary>(BinOp::Add, base, off, scalar_type(DataType::INDEX), sp);
}

// One matmul to tile: its statements and operands.
struct Site {
  const AssignStmt* lhs_move;
  const AssignStmt* rhs_move;
  const AssignStmt* matmul;
  const AssignStmt* store = nullptr;  // the result's only use, when the output is M / N tiled:
  bool scratch = false;               // a tile.store to GM, or (true) a tile.assemble into a Mat tile
  Block blk;
  int64_t M, N, K;
  ExprPtr A, B;  // the Mat operands the blocks are extracted from
};

class Tiler : public IRMutator {
 public:
  Tiler(const Function& f, const SocInfo& soc) : soc_(soc) {
    // Definitions and use counts of the function's variables.
    for (const AssignStmt* s : collect_assign_stmts(f.body)) defs_[s->var.get()] = s;
    collect_uses(f.body, uses_);
    struct Users : IRVisitor {
      std::unordered_map<const Var*, const AssignStmt*> store_of;
      const AssignStmt* cur = nullptr;
      void visit_assign(const AssignStmt& s) override {
        cur = &s;
        IRVisitor::visit_assign(s);
      }
      std::unordered_map<const Var*, const AssignStmt*> scratch_of;
      void visit_call(const Call& c) override {
        if (c.op && c.op->name == "tile.store" && cur && !c.args.empty())
          if (const auto* v = as<Var>(c.args[0])) store_of[v] = cur;
        if (c.op && c.op->name == "tile.assemble" && cur && c.args.size() == 3 && in_space(c.args[0], MemorySpace::Mat))
          if (const auto* v = as<Var>(c.args[1])) scratch_of[v] = cur;
        IRVisitor::visit_call(c);
      }
    } users;
    users.visit(f.body);
    store_of_ = std::move(users.store_of);
    scratch_of_ = std::move(users.scratch_of);
    for (const auto& [v, s] : defs_) plan(*s);
  }
  bool changed() const { return !sites_.empty(); }

 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr&) { return true; });
  }

  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    if (auto it = staged_.find(s.get()); it != staged_.end()) return it->second;
    if (dropped_.count(s.get())) return std::make_shared<SeqStmts>(std::vector<StmtPtr>{}, s->span);
    if (auto it = at_stmt_.find(s.get()); it != at_stmt_.end()) return lower(*it->second);
    return IRMutator::mutate_assign(s);
  }

 private:
  [[noreturn]] static void reject(const Span& sp, const std::string& what, const std::string& hint) {
    throw CompileError("E501", sp, what, hint);
  }

  void plan(const AssignStmt& s) {
    const Call* mm = call_of(&s, "tile.matmul");
    const Call* acc = call_of(&s, "tile.matmul_acc");  // (acc, lhs, rhs): K split, every block accumulating
    if (acc) mm = acc;
    if (!mm || mm->args.size() != (acc ? 3u : 2u)) return;
    const size_t o = acc ? 1 : 0;  // the operands' position
    const auto* lv = as<Var>(mm->args[o]);
    const auto* rv = as<Var>(mm->args[o + 1]);
    const AssignStmt* lm = lv && defs_.count(lv) ? defs_.at(lv) : nullptr;
    const AssignStmt* rm = rv && defs_.count(rv) ? defs_.at(rv) : nullptr;
    const Call* lc = call_of(lm, "tile.move");
    const Call* rc = call_of(rm, "tile.move");
    // The operands: the compiler's own moves to Left / Right, read by this matmul alone, of Mat
    // tiles or of tiles the vector core computes (staged in Mat first: ExpandMixedKernel pops them
    // there); or a Mat tile the matmul reads itself (a tile-level matmul on L1 tiles, which
    // InferTileMemorySpace would move whole), which may have other readers.
    auto movable = [](const Call* c) { return c && (in_space(c->args[0], MemorySpace::Mat) || in_space(c->args[0], MemorySpace::Vec)); };
    auto source = [&](const Call* move, const AssignStmt*& stmt, const Var* v, MemorySpace l0) -> ExprPtr {
      if (movable(move) && in_space(mm->args[o + (l0 == MemorySpace::Right)], l0) && uses_[v] == 1) return move->args[0];
      stmt = nullptr;  // no move of ours to replace
      const ExprPtr& arg = mm->args[o + (l0 == MemorySpace::Right)];
      return in_space(arg, MemorySpace::Mat) ? arg : nullptr;
    };
    const ExprPtr a_src = source(lc, lm, lv, MemorySpace::Left);
    const ExprPtr b_src = source(rc, rm, rv, MemorySpace::Right);
    if (!a_src || !b_src) return;
    const auto* lt = as_tile(a_src->type);
    const auto* rt = as_tile(b_src->type);
    const auto* ct = as_tile(s.var->type);
    const auto ls = static_shape(lt->shape), rs = static_shape(rt->shape), cs = static_shape(ct->shape);
    if (!ls || !rs || !cs || ls->size() != 2 || rs->size() != 2) return;
    const int64_t M = (*ls)[0], K = (*ls)[1], N = (*rs)[1];
    const int64_t in_bytes = dtype_bits(lt->dtype) / 8, acc_bytes = dtype_bits(ct->dtype) / 8;
    const bool fits = M * K * in_bytes <= soc_.capacity(MemorySpace::Left) &&
                      K * N * in_bytes <= soc_.capacity(MemorySpace::Right) &&
                      M * N * acc_bytes <= soc_.capacity(MemorySpace::Acc);
    if (fits) return;
    const Span& sp = s.span;
    const std::string hint = "tile the matmul by hand at tile level (pl.load windows into Mat, pl.tile.extract "
                             "L0 blocks, pl.matmul / pl.matmul_acc), or use smaller operands";
    // A valid shape on M (the lhs rows) or N (the rhs columns) leaves the blocks whole: a row of
    // the result reads one row of the lhs, so rows past the valid ones hold garbage only there,
    // as the untiled matmul's do. A K extent short of the operand's would sum garbage: rejected.
    auto k_valid = [K](const TileType* t, size_t k_dim) {
      if (!t->view || t->view->valid_shape.empty()) return true;
      return t->view->valid_shape.size() == 2 && const_int_value(t->view->valid_shape[k_dim]) == K;
    };
    if (!k_valid(lt, 1) || !k_valid(rt, 0))
      reject(sp, "automatic L0 tiling of a matmul whose operands have a valid shape short of K is not supported yet",
             "give the operands their whole K extent valid (pad K with zeros), or " + hint);
    if (in_bytes <= 0 || acc_bytes <= 0) return;
    auto blk = choose_block(M, N, K, in_bytes, acc_bytes, soc_);
    if (!blk)
      reject(sp, fmt::format("no L0 block fits the [{}, {}] x [{}, {}] matmul: its extents need 16-aligned M / N "
                             "blocks and a 32-byte-aligned K block that divide them", M, K, K, N), hint);
    Site site{lm, rm, &s, nullptr, false, *blk, M, N, K, a_src, b_src};
    // A Vec operand: `<name>_mat = tile.move(v, target_memory=Mat)` in place of its L0 move.
    for (auto [move, mat] : {std::pair{lm, &site.A}, std::pair{rm, &site.B}}) {
      if (!in_space(*mat, MemorySpace::Vec)) continue;
      auto mt = std::make_shared<TileType>(*as_tile((*mat)->type));
      mt->space = MemorySpace::Mat;
      mt->view.reset();
      auto v = make_var(move->var->name + "_mat", mt, move->span);
      staged_[move] = std::make_shared<AssignStmt>(
          v, make_call("tile.move", {*mat}, {{"target_memory", MemorySpace::Mat}}, move->span), move->span);
      *mat = v;
    }
    const bool tiles_output = blk->m != M || blk->n != N;
    if (tiles_output && acc)
      reject(sp, fmt::format("the [{}, {}] accumulator of this matmul_acc does not fit one Acc tile ({} bytes)", M, N,
                             soc_.capacity(MemorySpace::Acc)),
             hint);
    if (tiles_output) {
      auto st = store_of_.find(s.var.get());
      auto sa = scratch_of_.find(s.var.get());
      if (uses_[s.var.get()] != 1 || (st == store_of_.end() && sa == scratch_of_.end()))
        reject(sp,
               fmt::format("the [{}, {}] result of this matmul does not fit one Acc tile ({} bytes) and is used other than by "
                           "one store to GM or one assemble into a Mat tile",
                           M, N, soc_.capacity(MemorySpace::Acc)),
               "store the matmul's result to a GM tensor (pl.assemble into an output), narrow it for the next matmul "
               "(pl.cast(c, pl.BF16, mode=\"rint\")), or split the matmul");
      if (st != store_of_.end()) {
        const Call* sc = call_of(st->second, "tile.store");
        if (!sc || sc->args.size() > 3 || !as<MakeTuple>(sc->args[1]) || as<MakeTuple>(sc->args[1])->elems.size() < 2)
          reject(sp, "automatic L0 tiling of a matmul whose result is stored with an explicit window or into a 1-D tensor is not supported yet", hint);
        site.store = st->second;
      } else {
        const Call* ac = call_of(sa->second, "tile.assemble");
        if (!as<MakeTuple>(ac->args[2]) || as<MakeTuple>(ac->args[2])->elems.size() != 2)
          reject(sp, "automatic L0 tiling of a matmul assembled into a Mat tile of other than two dims is not supported yet", hint);
        site.store = sa->second;
        site.scratch = true;
      }
    }
    sites_.push_back(std::make_unique<Site>(site));
    Site* p = sites_.back().get();
    if (lm) dropped_.insert(lm);
    if (rm) dropped_.insert(rm);
    if (tiles_output) {
      dropped_.insert(&s);
      at_stmt_[p->store] = p;
    } else {
      at_stmt_[&s] = p;
    }
  }

  VarPtr index_var(const std::string& n, const Span& sp) { return make_var(n, scalar_type(DataType::INDEX), sp); }

  ExprPtr extract(const ExprPtr& src, const ExprPtr& row, const ExprPtr& col, int64_t r, int64_t c, MemorySpace to,
                  const Span& sp, std::vector<StmtPtr>& out, const std::string& name) {
    auto call = make_call("tile.extract", {src, row, col, index_list({make_int(r, sp), make_int(c, sp)}, sp)},
                          {{"target_memory", to}}, sp);
    auto v = make_var(name, call->type, sp);
    out.push_back(std::make_shared<AssignStmt>(v, call, sp));
    return v;
  }

  // The [m, n] block at (row, col) of the result: first k block, then a K loop. Bound to
  // `result` (the matmul's own variable when only K is split), else to a new variable; returned.
  VarPtr k_loop(const Site& s, const ExprPtr& row, const ExprPtr& col, VarPtr result, std::vector<StmtPtr>& out) {
    const Span& sp = s.matmul->span;
    const Call* mm = as<Call>(s.matmul->value);
    const ExprPtr A = s.A, B = s.B;
    const std::string base = s.matmul->var->name;
    const Block& b = s.blk;
    ExprPtr l0 = extract(A, row, make_int(0, sp), b.m, b.k, MemorySpace::Left, sp, out, base + "_l0a");
    ExprPtr r0 = extract(B, make_int(0, sp), col, b.k, b.n, MemorySpace::Right, sp, out, base + "_l0b");
    const bool acc = mm->op->name == "tile.matmul_acc";
    auto first = acc ? make_call(*mm->op, {mm->args[0], l0, r0}, mm->kwargs, sp) : make_call(*mm->op, {l0, r0}, mm->kwargs, sp);
    if (!result) result = make_var(base + "_blk", first->type, sp);
    const int64_t nk = s.K / b.k;
    if (nk == 1) {
      out.push_back(std::make_shared<AssignStmt>(result, first, sp));
      return result;
    }
    auto acc0 = make_var(base + "_k0", first->type, sp);
    out.push_back(std::make_shared<AssignStmt>(acc0, first, sp));
    auto kv = index_var(base + "_kb", sp);
    auto carry = std::make_shared<IterArg>(base + "_acc", first->type, acc0, sp);
    std::vector<StmtPtr> body;
    ExprPtr kof = mul_add(make_int(0, sp), kv, b.k, sp);
    ExprPtr l = extract(A, row, kof, b.m, b.k, MemorySpace::Left, sp, body, base + "_l0a");
    ExprPtr r = extract(B, kof, col, b.k, b.n, MemorySpace::Right, sp, body, base + "_l0b");
    auto next = make_var(base + "_next", first->type, sp);
    body.push_back(std::make_shared<AssignStmt>(next, make_call("tile.matmul_acc", {carry, l, r}, {}, sp), sp));
    body.push_back(std::make_shared<YieldStmt>(std::vector<ExprPtr>{next}, sp));
    out.push_back(std::make_shared<ForStmt>(kv, make_int(1, sp), make_int(nk, sp), make_int(1, sp),
                                            std::vector<IterArgPtr>{carry}, make_body(std::move(body), sp),
                                            std::vector<VarPtr>{result}, ForKind::Sequential, sp));
    return result;
  }

  StmtPtr lower(const Site& s) {
    const Span& sp = s.matmul->span;
    std::vector<StmtPtr> out;
    if (!s.store) {  // only K is split: the block is the whole result
      k_loop(s, make_int(0, sp), make_int(0, sp), s.matmul->var, out);
      return with_comments(std::make_shared<SeqStmts>(std::move(out), sp), *s.matmul);
    }
    // Output blocks stored (assembled) at their offsets, the GM tensor (Mat tile) carried through
    // the M / N loops.
    const Call* st = as<Call>(s.store->value);
    const auto* offs = as<MakeTuple>(st->args[s.scratch ? 2 : 1]);
    const ExprPtr o0 = offs->elems.size() >= 2 ? offs->elems[offs->elems.size() - 2] : make_int(0, sp);
    const ExprPtr o1 = offs->elems.back();
    const std::string base = s.matmul->var->name;
    const int64_t nm = s.M / s.blk.m, nn = s.N / s.blk.n;
    // One loop level (or none when the extent is one block): body(index expr, gm in) → gm out.
    auto level = [&](int64_t count, int64_t step, const std::string& n, const ExprPtr& gm_in, const VarPtr& gm_out,
                     const std::function<void(const ExprPtr&, const ExprPtr&, const VarPtr&, std::vector<StmtPtr>&)>& inner,
                     std::vector<StmtPtr>& where) {
      if (count == 1) return inner(make_int(0, sp), gm_in, gm_out, where);
      auto iv = index_var(base + "_" + n, sp);
      auto carry = std::make_shared<IterArg>(base + "_" + n + "_out", gm_in->type, gm_in, sp);
      auto y = make_var(base + "_" + n + "_st", gm_in->type, sp);
      std::vector<StmtPtr> body;
      inner(mul_add(make_int(0, sp), iv, step, sp), carry, y, body);
      body.push_back(std::make_shared<YieldStmt>(std::vector<ExprPtr>{y}, sp));
      where.push_back(std::make_shared<ForStmt>(iv, make_int(0, sp), make_int(count, sp), make_int(1, sp),
                                                std::vector<IterArgPtr>{carry}, make_body(std::move(body), sp),
                                                std::vector<VarPtr>{gm_out}, ForKind::Sequential, sp));
    };
    const ExprPtr gm = st->args[s.scratch ? 0 : 2];
    level(nm, s.blk.m, "mb", gm, s.store->var,
          [&](const ExprPtr& row, const ExprPtr& gm_m, const VarPtr& out_m, std::vector<StmtPtr>& wm) {
            level(nn, s.blk.n, "nb", gm_m, out_m,
                  [&](const ExprPtr& col, const ExprPtr& gm_n, const VarPtr& out_n, std::vector<StmtPtr>& wn) {
                    VarPtr typed = k_loop(s, row, col, nullptr, wn);
                    std::vector<ExprPtr> at(offs->elems.begin(), offs->elems.end());
                    at[at.size() - 2] = const_int_value(o0) == 0 ? row : std::make_shared<Binary>(BinOp::Add, o0, row, scalar_type(DataType::INDEX), sp);
                    at[at.size() - 1] = const_int_value(o1) == 0 ? col : std::make_shared<Binary>(BinOp::Add, o1, col, scalar_type(DataType::INDEX), sp);
                    auto store = s.scratch ? make_call("tile.assemble", {gm_n, typed, index_list(at, sp)}, st->kwargs, sp)
                                           : make_call("tile.store", {typed, index_list(at, sp), gm_n}, st->kwargs, sp);
                    wn.push_back(std::make_shared<AssignStmt>(out_n, store, sp));
                  },
                  wm);
          },
          out);
    return with_comments(std::make_shared<SeqStmts>(std::move(out), sp), *s.store);
  }

  const SocInfo& soc_;
  std::unordered_map<const Var*, const AssignStmt*> defs_;
  std::unordered_map<const Var*, int> uses_;
  std::unordered_map<const Var*, const AssignStmt*> store_of_, scratch_of_;
  std::vector<std::unique_ptr<Site>> sites_;
  std::unordered_set<const AssignStmt*> dropped_;
  std::unordered_map<const AssignStmt*, StmtPtr> staged_;  // a Vec operand's L0 move → its move to Mat
  std::unordered_map<const AssignStmt*, const Site*> at_stmt_;
};

// `cb = tile.cast(c, BF16 | FP16, mode="rint")` of a matmul's FP32 Acc result read by nothing
// else, cb read only by moves to Left / Right: cb becomes a Mat tile c is assembled into.
class CastFolder : public BindingMutator {
 public:
  explicit CastFolder(const Function& f) {
    struct Defs : IRVisitor {
      std::unordered_map<const Var*, const AssignStmt*> def;
      std::unordered_map<const Var*, int> moves;  // uses as the source of a move to Left / Right
      void visit_assign(const AssignStmt& s) override {
        def[s.var.get()] = &s;
        if (const Call* c = call_of(&s, "tile.move"); c && !c->args.empty())
          if (const auto* t = as_tile(s.var->type); t && (t->space == MemorySpace::Left || t->space == MemorySpace::Right))
            if (const auto* v = as<Var>(c->args[0])) ++moves[v];
        IRVisitor::visit_assign(s);
      }
    } d;
    d.visit(f.body);
    std::unordered_map<const Var*, int> uses;
    collect_uses(f.body, uses);
    for (const auto& [v, s] : d.def) {
      const Call* cast = call_of(s, "tile.cast");
      if (!cast || cast->args.empty() || kw_string(*cast, "mode") != "rint") continue;
      const auto* src = as<Var>(cast->args[0]);
      const auto* st = src ? as_tile(src->type) : nullptr;
      const auto* ct = as_tile(v->type);
      if (!st || !ct || st->space != MemorySpace::Acc || st->dtype != DataType::FP32 ||
          (ct->dtype != DataType::BF16 && ct->dtype != DataType::FP16))
        continue;
      auto sd = d.def.find(src);
      const Call* mm = sd == d.def.end() ? nullptr : as<Call>(sd->second->value);
      if (!mm || !mm->op || mm->op->name.rfind("tile.matmul", 0) != 0 || uses[src] != 1) continue;
      if (uses[v] == 0 || d.moves[v] != uses[v]) continue;
      folds_.insert(s);
    }
  }
  bool changed() const { return !folds_.empty(); }

 protected:
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    return mutate_seq_splicing(*this, s, [](const StmtPtr&) { return true; });
  }
  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    if (!folds_.count(s.get())) return BindingMutator::mutate_assign(s);
    const Call* cast = as<Call>(s->value);
    const auto* ct = as_tile(s->var->type);
    const Span& sp = s->span;
    auto create = make_call("tile.create", {index_list(ct->shape, sp)},
                            {{"dtype", ct->dtype}, {"target_memory", MemorySpace::Mat}}, sp);
    auto scratch = make_var(s->var->name + "_mat", create->type, sp);
    auto assemble = make_call("tile.assemble", {scratch, mutate(cast->args[0]), index_list({make_int(0, sp), make_int(0, sp)}, sp)},
                              {}, sp);
    auto v = copy_var_with_type(*s->var, assemble->type);
    bound_[s->var.get()] = v;
    var_map[s->var.get()] = v;
    std::vector<StmtPtr> out{std::make_shared<AssignStmt>(scratch, create, sp), std::make_shared<AssignStmt>(v, assemble, sp)};
    out.front() = with_comments(std::const_pointer_cast<Stmt>(out.front()), *s);
    return std::make_shared<SeqStmts>(std::move(out), sp);
  }

 private:
  std::unordered_set<const AssignStmt*> folds_;
};

FunctionPtr tile_function(FunctionPtr f, const SocInfo& soc) {
  if (!is_incore_like(f->type)) return f;
  {
    CastFolder folder(*f);
    if (folder.changed()) f = folder.mutate_function(f);
  }
  Tiler t(*f, soc);
  if (!t.changed()) return f;
  return t.mutate_function(f);
}

}  // namespace

Pass auto_tile_matmul_l0_pass() {
  return Pass{"AutoTileMatmulL0",
              "Tiles a lowered matmul whose operands overflow L0A / L0B or whose result overflows L0C: an L0 block "
              "(m, n, k), a K loop of Mat → Left / Right extracts accumulating in Acc per [m, n] block, blocks "
              "stored to GM at their offsets when the output itself is tiled.",
              {{Property::SSAForm, Property::TileOpsOnly}, {}, {}},
              [](const ProgramPtr& p, PassContext& ctx) {
                const SocInfo& soc = soc_info(ctx.soc);
                return map_functions(p, [&](const FunctionPtr& f) { return tile_function(f, soc); });
              }};
}

}  // namespace pypto::passes
