// CanonicalizeTileSlice — a window of a Mat tile that feeds the cube is an L0 extract. Tensor-level
// code slices a matmul operand it loaded into Mat (`pl.matmul(p, kv[:, 0:256])` on a kv window
// only the cube reads): that becomes `s = tile.slice(kv_mat, shape, [r, c])` in Mat, and
// InferTileMemorySpace then moves it to Left / Right for the matmul. A Mat tile has no window
// view the back end can spell (its fractal layout), but the cube reads sub-blocks of Mat tiles
// directly: the pair `s = tile.slice(m, shape, [r, c]); s_R = tile.move(s, target_memory=Right)`
// becomes `s_R = tile.extract(m, r, c, shape, target_memory=Right)` (TEXTRACT, as the L0 blocks
// of AutoTileMatmulL0 are read), and the slice goes once no other statement reads it.
// Only where the block sits on the cube's fractal grid: constant offsets that are multiples of 16
// rows and of 32 bytes of columns, a slice without valid_shape / pad / clamp. Any other Mat slice
// stays, and CheckKernelForms names it. The reference runs its CanonicalizeTileSlice before
// memory spaces are inferred; here the Left / Right moves it folds exist only after
// InferTileMemorySpace, so it runs right after that pass. Requires and produces no property.
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

bool is_op(const Call* c, const OpDef* op) { return c && c->op == op; }

// The constant 2-D offsets of a foldable Mat slice `c`, or nullopt.
std::optional<std::pair<int64_t, int64_t>> foldable(const Call& c) {
  const auto* src = as_tile(c.args[0]->type);
  if (!src || src->space != MemorySpace::Mat || c.args.size() != 3) return std::nullopt;  // no valid_shape
  if (kw_true(c, "clamp")) return std::nullopt;
  if (const AttrValue* pad = c.kwarg("pad_value"); pad && std::get_if<PadValue>(pad) && *std::get_if<PadValue>(pad) != PadValue::null)
    return std::nullopt;
  const auto* off = as<MakeTuple>(c.args[2]);
  if (!off || off->elems.size() != 2) return std::nullopt;
  const auto r = const_int_value(off->elems[0]), col = const_int_value(off->elems[1]);
  if (!r || !col || *r % 16 != 0 || (*col * dtype_bits(src->dtype) / 8) % 32 != 0) return std::nullopt;
  return std::make_pair(*r, *col);
}

class SliceFolder : public IRMutator {
 public:
  SliceFolder() : slice_(OpRegistry::instance().find("tile.slice")), move_(OpRegistry::instance().find("tile.move")) {}

  // Pass 1: the foldable slices and how many reads each has.
  void scan(const Function& f) {
    struct Scan : IRVisitor {
      SliceFolder& s;
      explicit Scan(SliceFolder& sf) : s(sf) {}
      void visit_assign(const AssignStmt& a) override {
        if (const auto* c = as<Call>(a.value); is_op(c, s.slice_))
          if (auto off = foldable(*c)) s.slices_[a.var.get()] = {c, *off};
        IRVisitor::visit_assign(a);
      }
      void visit_var(const Var& v) override { ++s.reads_[&v]; }
    } scan(*this);
    scan.visit(f.body);
  }

  bool any() const { return !slices_.empty(); }

 protected:
  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    const auto* c = as<Call>(s->value);
    if (is_op(c, move_) && !c->args.empty()) {
      const auto* src = as<Var>(c->args[0]);
      const auto* to = as_tile(s->var->type);
      auto it = src ? slices_.find(src) : slices_.end();
      if (it != slices_.end() && to && (to->space == MemorySpace::Left || to->space == MemorySpace::Right)) {
        const Call& sl = *it->second.first;
        const auto off = it->second.second;
        auto ex = make_call("tile.extract",
                            {mutate(sl.args[0]), make_int(off.first, sl.span), make_int(off.second, sl.span), sl.args[1]},
                            {{"target_memory", *to->space}}, c->span);
        ++folded_[src];
        return with_comments(std::make_shared<AssignStmt>(s->var, ex, s->span), *s);
      }
    }
    return IRMutator::mutate_assign(s);
  }

  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    StmtPtr m = IRMutator::mutate_seq(s);
    // A folded slice that nothing else reads goes.
    const auto* seq = as<SeqStmts>(m);
    if (!seq) return m;
    std::vector<StmtPtr> out;
    for (const auto& st : seq->stmts) {
      const auto* a = as<AssignStmt>(st);
      if (a && slices_.count(a->var.get()) && folded_[a->var.get()] == reads_[a->var.get()]) continue;
      out.push_back(st);
    }
    if (out.size() == seq->stmts.size()) return m;
    return with_comments(std::make_shared<SeqStmts>(std::move(out), seq->span), *seq);
  }

 private:
  const OpDef* slice_;
  const OpDef* move_;
  std::unordered_map<const Var*, std::pair<const Call*, std::pair<int64_t, int64_t>>> slices_;  // slice, offsets
  std::unordered_map<const Var*, int> reads_, folded_;
};

FunctionPtr fold_function(const FunctionPtr& f) {
  if (!is_incore_like(f->type) || !f->body) return f;
  SliceFolder sf;
  sf.scan(*f);
  if (!sf.any()) return f;
  return sf.mutate_function(f);
}

}  // namespace

Pass canonicalize_tile_slice_pass() {
  return Pass{"CanonicalizeTileSlice",
              "A window of a Mat tile moved to Left / Right for the cube (tile.slice + tile.move) becomes one "
              "tile.extract of that block (TEXTRACT), where the block sits on the fractal grid; the slice goes when "
              "nothing else reads it.",
              {{}, {}, {}},
              [](const ProgramPtr& p, PassContext&) { return map_functions(p, fold_function); }};
}

}  // namespace pypto::passes
