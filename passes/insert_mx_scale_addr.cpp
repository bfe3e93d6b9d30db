// InsertMxScaleAddr — binds each MX matmul's scale tiles to their data tiles (ir-and-passes.md,
// the pass after InferTileMemorySpace). The 950's cube does not take the scales as operands: it
// reads a Left (Right) tile's scales at a fixed place in LeftScale (RightScale), the data tile's
// L0 address divided by 16. Before every tile.matmul_mx / _acc / _bias this pass writes
//     lhs_scale_bound = tile.tget_scale_addr(lhs_scale, lhs)
//     rhs_scale_bound = tile.tget_scale_addr(rhs_scale, rhs)
// and the matmul reads the bound tiles. The binding is what the memory plan reads
// (AllocateMemoryAddr places a bound scale buffer at its data buffer's address / 16; MemoryReuse
// keeps the two alive together); it is never shared between matmuls, even for the same operands,
// as the reference does (a binding names one data tile). Bindings stay in the block of their
// matmul (a branch, a loop body). MX matmuls exist on the 950 only: on the 910B they are an error
// here, at the matmul. Kernels (InCore functions) only. Requires TileMemoryInferred.
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

// The (data, scale) argument positions of an MX matmul, empty for other calls: the registry's
// input spaces pair the LeftScale operand with the Left one, the RightScale with the Right.
std::vector<std::pair<size_t, size_t>> mx_pairs(const Call* c) {
  if (!c || !c->op) return {};
  auto arg_in = [&](MemorySpace sp) -> std::optional<size_t> {
    for (const auto& [i, spaces] : c->op->input_memory)
      if (spaces.size() == 1 && spaces[0] == sp) return size_t(i);
    return std::nullopt;
  };
  std::vector<std::pair<size_t, size_t>> out;
  for (const auto& [data, scale] : {std::pair{MemorySpace::Left, MemorySpace::LeftScale},
                                    std::pair{MemorySpace::Right, MemorySpace::RightScale}})
    if (auto s = arg_in(scale))
      if (auto d = arg_in(data)) out.push_back({*d, *s});
  return out;
}

class Binder : public IRMutator {
 public:
  explicit Binder(Soc soc) : soc_(soc) {}

 protected:
  StmtPtr mutate_assign(const std::shared_ptr<const AssignStmt>& s) override {
    const auto* c = as<Call>(s->value);
    const auto pairs = mx_pairs(c);
    if (pairs.empty()) return IRMutator::mutate_assign(s);
    if (soc_ != Soc::Ascend950)
      throw CompileError("E501", s->span,
                         fmt::format("pl.{} is an instruction of the Ascend 950 only", c->op->name.substr(5)),
                         "build with --soc 950, or use pl.matmul on FP16 / BF16 operands for the 910B");
    std::vector<StmtPtr> out;
    std::vector<ExprPtr> args = c->args;
    for (const auto& [d, sc] : pairs) {
      const auto* data = as<Var>(args[d]);
      const auto* scale = as<Var>(args[sc]);
      if (!data || !scale)
        throw InternalError("InsertMxScaleAddr", "an MX matmul's data and scale operands must be variables", s->span);
      auto bind = make_call("tile.tget_scale_addr", {args[sc], args[d]}, {}, s->span);
      auto v = make_var(scale->name + "_bound", bind->type, s->span);
      out.push_back(std::make_shared<AssignStmt>(v, bind, s->span));
      args[sc] = v;
    }
    auto call = make_call(*c->op, std::move(args), c->kwargs, c->span);
    out.push_back(with_comments(std::make_shared<AssignStmt>(s->var, call, s->span), *s));
    changed_ = true;
    return std::make_shared<SeqStmts>(std::move(out), s->span);
  }

  // The bindings join the block of their matmul.
  StmtPtr mutate_seq(const std::shared_ptr<const SeqStmts>& s) override {
    std::vector<StmtPtr> out;
    bool any = false;
    for (const auto& st : s->stmts) {
      StmtPtr m = mutate(st);
      any |= m != st;
      if (const auto* q = as<SeqStmts>(m); q && !as<SeqStmts>(st))
        out.insert(out.end(), q->stmts.begin(), q->stmts.end());
      else
        out.push_back(m);
    }
    if (!any) return s;
    return with_comments(std::make_shared<SeqStmts>(std::move(out), s->span), *s);
  }

 public:
  bool changed_ = false;

 private:
  Soc soc_;
};

}  // namespace

Pass insert_mx_scale_addr_pass() {
  return Pass{"InsertMxScaleAddr",
              "Before every MX matmul (tile.matmul_mx / _acc / _bias) in a kernel, binds its LeftScale and "
              "RightScale tiles to its Left and Right data tiles (tile.tget_scale_addr, a fresh binding per "
              "matmul) — the cube reads the scales at the data tile's L0 address / 16, which the memory plan "
              "honours. MX matmuls are the 950's: an error on the 910B.",
              {{Property::TileMemoryInferred}, {}, {}},
              [](const ProgramPtr& p, PassContext& ctx) {
                return map_functions(p, [&](const FunctionPtr& f) -> FunctionPtr {
                  if (!is_incore_like(f->type) || !f->body) return f;
                  Binder b(ctx.soc);
                  auto g = b.mutate_function(f);
                  return b.changed_ ? g : f;
                });
              }};
}

}  // namespace pypto::passes
