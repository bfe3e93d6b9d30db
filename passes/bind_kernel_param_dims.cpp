// BindKernelParamDims — a kernel reads every non-constant extent of a tensor parameter from the
// tensor's descriptor (ChipTensor::shapes, as kernel_entry does for a pl.dynamic dim), so inside
// a kernel an extent is a symbol, never a computation. Where the orchestration hands a kernel a
// tensor whose extent it computed (`flat = pl.reshape(cache, [blocks * BLOCK, D])` passed on to
// a pl.at scope), the parameter's dim becomes a fresh INDEX symbol `<param>_dim<k>`, and every
// occurrence of that expression in the kernel becomes the symbol: in the types of its values and
// its return types, and in scalar expressions (a loop bound `blocks * BLOCK` is the same value,
// now read from the descriptor). One symbol per distinct expression, named after the first
// parameter that carries it, and declared among the program's dynamic dims (so the printed IR
// says pl.dynamic("a_dim0") and parses back). Then `pl.tensor.dim(t, k)` inside a kernel, on a tensor whose
// extent k is now a symbol or a constant, becomes that extent (the reference folds these dim
// reads when it outlines).
// A program-level pl.dynamic symbol the kernel reads but no tensor parameter's shape carries (the
// orchestration's `b = pl.tensor.dim(table, 0)`, which Simplify turned into B, used in a loop
// bound of the scope) becomes a trailing Scalar[INDEX] parameter of the kernel, and every call of
// the kernel passes the caller's value (the reference's MaterializeValidShapeSymbols does the same
// for valid-shape symbols). Anything else the kernel cannot see stays, and CheckKernelForms names it.
// Call sites otherwise stay: the orchestration passes the same tensor, whose descriptor carries
// the computed extent. Runs on InCore functions after outlining, before ConvertTensorToTileOps
// (which would otherwise reject the dim read). Requires and produces no property.
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "ir/structural_equal.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

bool computed(const ExprPtr& d) { return d && !const_int_value(d) && !as<Var>(d); }

class DimBinder : public BindingMutator {
 public:
  // The computed extents of `f`'s tensor parameters, each with its fresh symbol.
  // `taken`: the names of the program's dynamic dims (the new symbols join them).
  DimBinder(const Function& f, std::unordered_set<std::string>& taken) {
    for (const auto& p : f.params) {
      const auto* t = as_tensor(p->type);
      if (!t) continue;
      for (size_t k = 0; k < t->shape.size(); ++k) {
        if (!computed(t->shape[k]) || symbol_for(t->shape[k])) continue;
        std::string name = fmt::format("{}_dim{}", p->name, k);
        for (int n = 1; taken.count(name); ++n) name = suffixed(fmt::format("{}_dim{}", p->name, k), n);
        taken.insert(name);
        dims_.emplace_back(t->shape[k], make_var(name, scalar_type(DataType::INDEX), p->span));
      }
    }
  }

  bool any() const { return !dims_.empty(); }
  std::vector<VarPtr> symbols() const {
    std::vector<VarPtr> out;
    for (const auto& d : dims_) out.push_back(d.second);
    return out;
  }

  // `t` with every extent replaced by its symbol.
  TypePtr sub_type(const TypePtr& t) { return mutate_type(t); }

 protected:
  bool rewrites_types() const override { return true; }
  VarPtr rebind(const VarPtr& v) override {
    TypePtr t = sub_type(v->type);
    return t == v->type ? v : copy_var_with_type(*v, t);
  }

  ExprPtr mutate_binary(const std::shared_ptr<const Binary>& e) override {
    if (const VarPtr s = symbol_for(e)) return s;
    return BindingMutator::mutate_binary(e);
  }
  ExprPtr mutate_unary(const std::shared_ptr<const Unary>& e) override {
    if (const VarPtr s = symbol_for(e)) return s;
    return BindingMutator::mutate_unary(e);
  }

  ExprPtr mutate_call(const std::shared_ptr<const Call>& e) override {
    if (const VarPtr s = symbol_for(e)) return s;
    ExprPtr out = BindingMutator::mutate_call(e);
    const auto* c = as<Call>(out);
    if (!c || !c->op) return out;
    // pl.tensor.dim (the registry's scalar extent query) of an extent that is a symbol or a
    // constant: that extent.
    if (c->op->lowering == TileLowering::Scalar && c->args.size() == 2) {
      const auto* t = as_tensor(c->args[0]->type);
      const auto axis = const_int_value(c->args[1]);
      if (t && axis) {
        const int64_t k = *axis < 0 ? *axis + static_cast<int64_t>(t->shape.size()) : *axis;
        if (k >= 0 && k < static_cast<int64_t>(t->shape.size()) && !computed(t->shape[static_cast<size_t>(k)])) {
          const ExprPtr& d = t->shape[static_cast<size_t>(k)];
          if (const auto v = const_int_value(d)) return make_int(*v, c->span);
          return d;
        }
      }
    }
    // A call whose arguments did not change keeps its type: substitute in it too.
    if (TypePtr t = sub_type(c->type); t != c->type) {
      auto m = std::make_shared<Call>(*c);
      m->type = t;
      return m;
    }
    return out;
  }

 private:
  VarPtr symbol_for(const ExprPtr& e) const {
    if (!computed(e)) return nullptr;
    for (const auto& [x, v] : dims_)
      if (structural_equal(x, e)) return v;
    return nullptr;
  }

  std::vector<std::pair<ExprPtr, VarPtr>> dims_;
};

bool has_dim_read(const Function& f) {
  struct Finder : IRVisitor {
    bool found = false;
    void visit_call(const Call& c) override {
      found |= c.op && c.op->lowering == TileLowering::Scalar;
      IRVisitor::visit_call(c);
    }
  } finder;
  finder.visit(f.body);
  return finder.found;
}

// `f` with its computed parameter extents bound to new symbols (appended to `symbols`) and its
// dim reads folded.
FunctionPtr bind_function(const FunctionPtr& f, std::unordered_set<std::string>& taken, std::vector<VarPtr>& symbols) {
  if (!is_incore_like(f->type) || !f->body) return f;
  DimBinder b(*f, taken);
  if (!b.any() && !has_dim_read(*f)) return f;
  for (const auto& v : b.symbols()) symbols.push_back(v);
  FunctionPtr g = b.mutate_function(f);
  std::vector<TypePtr> rts;
  bool changed = false;
  for (const auto& t : g->return_types) {
    rts.push_back(b.sub_type(t));
    changed |= rts.back() != t;
  }
  if (!changed) return g;
  auto h = std::make_shared<Function>(*g);
  h->return_types = std::move(rts);
  return h;
}

// The program-level dynamic symbols kernel `f` reads that no tensor parameter's shape carries,
// in the program's order.
std::vector<VarPtr> free_symbols(const Function& f, const Program& p) {
  std::unordered_map<const Var*, int> uses;
  collect_uses(f.body, uses);
  std::unordered_set<const Var*> carried;
  for (const auto& prm : f.params) {
    carried.insert(prm.get());
    if (const auto* t = as_tensor(prm->type))
      for (const auto& d : t->shape)
        if (const auto* v = as<Var>(d)) carried.insert(v);
  }
  std::vector<VarPtr> out;
  for (const auto& d : p.dynamic_dims)
    if (uses.count(d.get()) && !carried.count(d.get())) out.push_back(d);
  return out;
}

// Each kernel of `p` that reads symbols no parameter carries gets them as trailing scalar
// parameters (fresh Vars of the same names), and every call of it passes the caller's values.
ProgramPtr pass_free_symbols(const ProgramPtr& p) {
  std::unordered_map<std::string, std::vector<VarPtr>> extra;  // kernel name → symbols it gets
  ProgramPtr q = map_functions(p, [&](const FunctionPtr& f) -> FunctionPtr {
    if (!is_incore_like(f->type) || !f->body) return f;
    auto syms = free_symbols(*f, *p);
    if (syms.empty()) return f;
    // The symbols' uses, and the types that name them, follow the new parameters.
    struct ToParams : BindingMutator {
      VarPtr rebind(const VarPtr& v) override {
        TypePtr t = mutate_type(v->type);
        return t == v->type ? v : copy_var_with_type(*v, t);
      }
    } c;
    auto g = std::make_shared<Function>(*f);
    for (const auto& s : syms) {
      VarPtr prm = make_var(s->name, scalar_type(DataType::INDEX), s->span);
      c.var_map[s.get()] = prm;
      g->params.push_back(prm);
      g->param_directions.push_back(ParamDirection::In);
    }
    g->body = c.mutate(f->body);
    for (auto& t : g->return_types) t = c.mutate_type(t);
    extra[f->name] = std::move(syms);
    return g;
  });
  if (extra.empty()) return q;
  struct CallArgs : IRMutator {
    const std::unordered_map<std::string, std::vector<VarPtr>>& extra;
    explicit CallArgs(const std::unordered_map<std::string, std::vector<VarPtr>>& e) : extra(e) {}
    ExprPtr mutate_call(const std::shared_ptr<const Call>& e) override {
      ExprPtr out = IRMutator::mutate_call(e);
      const auto* c = as<Call>(out);
      auto it = c && !c->op ? extra.find(c->callee) : extra.end();
      if (it == extra.end()) return out;
      auto m = std::make_shared<Call>(*c);
      for (const auto& s : it->second) m->args.push_back(s);
      return m;
    }
  } calls(extra);
  return calls.mutate_program(q);
}

}  // namespace

Pass bind_kernel_param_dims_pass() {
  return Pass{"BindKernelParamDims",
              "A kernel's tensor-parameter extents computed by its caller (a reshape to [blocks * BLOCK, D]) become "
              "symbols read from the tensor's descriptor, the same expression everywhere in the kernel with them; "
              "pl.tensor.dim of a symbol or constant extent inside a kernel becomes that extent; a pl.dynamic symbol "
              "a kernel reads but no tensor parameter carries becomes a scalar parameter its callers pass.",
              {{}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                // The new symbols are the program's dynamic dims too: free extents, which the
                // printer declares (pl.dynamic) and a kernel reads from its tensors' descriptors.
                std::unordered_set<std::string> taken;
                for (const auto& d : p->dynamic_dims) taken.insert(d->name);
                std::vector<VarPtr> symbols;
                ProgramPtr q = map_functions(p, [&](const FunctionPtr& f) { return bind_function(f, taken, symbols); });
                if (!symbols.empty()) {
                  std::vector<VarPtr> dims = q->dynamic_dims;
                  dims.insert(dims.end(), symbols.begin(), symbols.end());
                  q = make_program(q->name, q->functions, std::move(dims), q->span);
                }
                return pass_free_symbols(q);
              }};
}

}  // namespace pypto::passes
