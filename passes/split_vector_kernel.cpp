// SplitVectorKernel — optimizations=[pl.split(UP_DOWN / LEFT_RIGHT)] on a mixed kernel: the AIV
// half of the Group runs on both AIV lanes of the core group, each on its half of every tile that
// spans the split axis (rows for UP_DOWN, columns for LEFT_RIGHT), so the two lanes share the
// vector work (ir-and-passes.md steps 23–25: SplitVectorKernel, StampTfreeSplit).
//   * the extent E is the split axis of the tiles popped from the AIC; a tile of extent E there
//     becomes E/2, a tile of extent 1 (a broadcast row or column) stays whole;
//   * `lane = tile.get_subblock_idx()` opens the half; a load's window on that axis shrinks to
//     E/2 and moves by lane × E/2, a store's offset moves the same way, the other ops keep their
//     operands and are re-typed;
//   * the pops, their releases, the AIC's pushes and both pipe inits carry the split mode (the
//     runtime hands each lane its half of each pushed tile), and the AIV half is marked as run on
//     two lanes (`aiv_lanes = 2`: the orchestration submits {aic, aiv, aiv}).
// Where the half cannot be split that way — a V2C push, an op reducing across the split axis, a
// window or element access on a split tile, an extent other than E or 1, E odd — the kernel stays
// on one lane and warning W502 says why. Without pl.split, nothing changes.
#include <fmt/format.h>

#include <map>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

struct Cannot {
  std::string why;
};

const OpDef* op(const char* n) { return OpRegistry::instance().find(n); }

struct Ops {
  const OpDef* load = op("tile.load");
  const OpDef* store = op("tile.store");
  const OpDef* pop = op("tile.tpop_from_aic");
  const OpDef* push_c2v = op("tile.tpush_to_aiv");
  const OpDef* push_v2c = op("tile.tpush_to_aic");
  const OpDef* free_c2v = op("system.tfree_to_aic");
  const OpDef* init_aic = op("system.aic_initialize_pipe");
  const OpDef* init_aiv = op("system.aiv_initialize_pipe");
};
const Ops& ops() {
  static const Ops o;
  return o;
}

int64_t split_mode(const Function& f) {
  const FuncAttr* a = find_attr(f, "split");
  const auto* m = a ? std::get_if<EnumLit>(&a->value) : nullptr;
  if (!m) return 0;
  if (m->member == "UP_DOWN") return 1;
  if (m->member == "LEFT_RIGHT") return 2;
  return 0;
}

// The split plan of one AIV half.
class Splitter : public BindingMutator {
 public:
  Splitter(int axis, int64_t extent, int64_t mode, ExprPtr lane_offset)
      : axis_(axis), extent_(extent), mode_(mode), lane_offset_(std::move(lane_offset)) {}

  // The halved type of a tile spanning the split axis; nullptr for one that stays whole.
  TypePtr halved(const TypePtr& t) const {
    const auto* tl = as_tile(t);
    if (!tl || tl->shape.size() != 2) return nullptr;
    auto d = const_int_value(tl->shape[axis_]);
    if (!d) throw Cannot{"a tile with a dynamic extent on the split axis"};
    if (*d == 1) return nullptr;
    if (*d != extent_)
      throw Cannot{fmt::format("a tile of extent {} on the split axis (the received tiles have {})", *d, extent_)};
    auto n = std::make_shared<TileType>(*tl);
    n->shape[axis_] = make_int(extent_ / 2, {}, DataType::INDEX);
    if (n->view && !n->view->valid_shape.empty()) {
      if (const_int_value(n->view->valid_shape[axis_]) != extent_) throw Cannot{"a partly valid tile on the split axis"};
      n->view->valid_shape[axis_] = n->shape[axis_];
    }
    if (n->view && (!n->view->stride.empty() || n->view->start_offset)) throw Cannot{"a window of a split tile"};
    return n;
  }

 protected:
  VarPtr rebind(const VarPtr& v) override {
    TypePtr t = halved(v->type);
    return t ? copy_var_with_type(*v, t) : v;
  }

  static std::vector<std::pair<std::string, AttrValue>> with_split(const Call& c, int64_t mode) {
    auto kw = c.kwargs;
    bool set = false;
    for (auto& [k, v] : kw)
      if (k == "split") v = AttrValue(mode), set = true;
    if (!set) kw.push_back({"split", AttrValue(mode)});
    return kw;
  }

  bool same_extent(const TypePtr& got, const TypePtr& want) const {
    const auto* g = as_tile(got);
    const auto* w = as_tile(want);
    return g && w && g->shape.size() == 2 && const_int_value(g->shape[axis_]) == const_int_value(w->shape[axis_]);
  }
  ExprPtr shifted(const ExprPtr& off) const {
    return std::make_shared<Binary>(BinOp::Add, off, lane_offset_, scalar_type(DataType::INDEX), off->span);
  }
  ExprPtr shift_list(const ExprPtr& list, bool halve_extent) const {
    const auto* t = as<MakeTuple>(list);
    if (!t || t->elems.size() != 2) throw Cannot{"a load / store window that is not 2-D"};
    auto el = t->elems;
    if (halve_extent) el[axis_] = make_int(extent_ / 2, el[axis_]->span, DataType::INDEX);
    else el[axis_] = shifted(el[axis_]);
    std::vector<TypePtr> ts;
    for (const auto& e : el) ts.push_back(e->type);
    return std::make_shared<MakeTuple>(el, std::make_shared<TupleType>(ts), t->span);
  }

  ExprPtr mutate_call(const std::shared_ptr<const Call>& e) override {
    const Ops& o = ops();
    if (e->op == o.pop || e->op == o.free_c2v || e->op == o.init_aiv) {
      std::vector<ExprPtr> args;
      mutate_list(e->args, args);
      TypePtr t = e->op == o.pop ? halved(e->type) : e->type;
      if (e->op == o.pop && !t) throw Cannot{"a received tile of extent 1 on the split axis"};
      return std::make_shared<Call>(e->op, e->callee, args, with_split(*e, mode_), t, e->span);
    }
    if (e->op == o.push_v2c) throw Cannot{"a tile pushed to the AIC (V2C) from a split vector half"};
    std::vector<ExprPtr> args;
    mutate_list(e->args, args);
    bool any_halved = false;
    for (size_t i = 0; i < e->args.size(); ++i)
      if (as_tile(e->args[i]->type) && args[i]->type != e->args[i]->type) any_halved = true;
    if (e->op == o.load) {
      TypePtr want = halved(e->type);
      if (!want) return rebuild_call(*e, std::move(args));
      args[1] = shift_list(args[1], false);  // (tensor, offsets, shapes, ...)
      args[2] = shift_list(args[2], true);
      auto n = rebuild_call(*e, std::move(args));
      if (!same_extent(n->type, want)) throw Cannot{"a load whose window does not halve"};
      return n;
    }
    if (e->op == o.store) {
      if (!any_halved) return rebuild_call(*e, std::move(args));
      args[1] = shift_list(args[1], false);  // (tile, offsets, tensor)
      return rebuild_call(*e, std::move(args));
    }
    if (!e->op) throw Cannot{"a function call"};
    for (const auto& a : e->args)
      if (as<MakeTuple>(a) && (any_halved || halved(e->type)))
        throw Cannot{fmt::format("pl.{} (a window, shape or element index) on a split tile", e->op->name)};
    TypePtr want = as_tile(e->type) ? halved(e->type) : nullptr;
    if (any_halved && !want)
      throw Cannot{fmt::format("pl.{}, which reduces or reads across the split axis", e->op->name)};
    if (!any_halved && want) throw Cannot{fmt::format("pl.{}, which creates a tile spanning the split axis", e->op->name)};
    if (!any_halved) return e;
    auto n = rebuild_call(*e, std::move(args));
    if (!same_extent(n->type, want))
      throw Cannot{fmt::format("pl.{}, whose result does not halve with its operands", e->op->name)};
    return n;
  }

 private:
  int axis_;
  int64_t extent_, mode_;
  ExprPtr lane_offset_;
};

// The extent of the split axis of the tiles the AIV half receives.
std::optional<int64_t> received_extent(const Function& aiv, int axis) {
  std::optional<int64_t> e;
  struct V : IRVisitor {
    int axis;
    std::optional<int64_t>* e;
    void visit_call(const Call& c) override {
      if (c.op == ops().pop) {
        const auto* t = as_tile(c.type);
        auto d = t && t->shape.size() == 2 ? const_int_value(t->shape[axis]) : std::nullopt;
        if (!d || (*e && **e != *d)) throw Cannot{"received tiles of different or dynamic extents on the split axis"};
        *e = d;
      }
      IRVisitor::visit_call(c);
    }
  } v;
  v.axis = axis;
  v.e = &e;
  v.visit_function(aiv);
  return e;
}

FunctionPtr split_aiv(const Function& aiv, int64_t mode) {
  const int axis = mode == 1 ? 0 : 1;
  auto e = received_extent(aiv, axis);
  if (!e) throw Cannot{"the vector half receives no tile from the cube"};
  if (*e % 2 != 0) throw Cannot{fmt::format("the received tiles' extent {} on the split axis is odd", *e)};
  const Span sp = aiv.span;
  auto lane = std::make_shared<Var>("lane", scalar_type(DataType::INDEX), sp);
  auto lane_off = std::make_shared<Var>("lane_offset", scalar_type(DataType::INDEX), sp);
  Splitter s(axis, *e, mode, lane_off);
  FunctionPtr g = s.mutate_function(std::make_shared<Function>(aiv));
  for (const auto& p : g->params)
    if (s.halved(p->type)) throw Cannot{"a tile parameter"};
  std::vector<StmtPtr> body;
  body.push_back(std::make_shared<AssignStmt>(lane, make_call("tile.get_subblock_idx", {}, {}, sp), sp));
  body.push_back(std::make_shared<AssignStmt>(
      lane_off,
      std::make_shared<Binary>(BinOp::Mul, lane, make_int(*e / 2, sp, DataType::INDEX), scalar_type(DataType::INDEX), sp),
      sp));
  for (const auto& st : flatten_body(g->body)) body.push_back(st);
  auto h = std::make_shared<Function>(*with_body(*g, make_body(std::move(body), g->body->span)));
  h->attrs.push_back({"aiv_lanes", AttrValue(int64_t{2}), {}, false, nullptr});
  return h;
}

// The AIC half's pushes and pipe init carry the split mode.
FunctionPtr stamp_aic(const Function& aic, int64_t mode) {
  class Stamp : public BindingMutator {
   public:
    explicit Stamp(int64_t m) : mode_(m) {}

   protected:
    ExprPtr mutate_call(const std::shared_ptr<const Call>& e) override {
      if (e->op != ops().push_c2v && e->op != ops().init_aic) return BindingMutator::mutate_call(e);
      auto kw = e->kwargs;
      for (auto& [k, v] : kw)
        if (k == "split") v = AttrValue(mode_);
      return std::make_shared<Call>(e->op, e->callee, e->args, kw, e->type, e->span);
    }
    int64_t mode_;
  } st(mode);
  return st.mutate_function(std::make_shared<Function>(aic));
}

}  // namespace

Pass split_vector_kernel_pass() {
  return Pass{"SplitVectorKernel",
              "pl.split(UP_DOWN / LEFT_RIGHT) on a mixed kernel: the AIV half runs on both AIV lanes, each on its "
              "half of the tiles spanning the split axis (loads, stores and the FIFO calls adjusted); where that "
              "does not apply, warning W502 and one lane.",
              {{Property::MixedKernelExpanded}, {}, {}},
              [](const ProgramPtr& p, PassContext& ctx) {
                std::map<std::string, FunctionPtr> replace;
                for (const auto& g : p->functions) {
                  auto m = mixed_group_members(*p, *g);
                  const int64_t mode = m ? split_mode(*m->aiv) : 0;
                  if (!mode) continue;
                  try {
                    replace[m->aiv->name] = split_aiv(*m->aiv, mode);
                    replace[m->aic->name] = stamp_aic(*m->aic, mode);
                  } catch (const Cannot& c) {
                    replace.erase(m->aiv->name);
                    replace.erase(m->aic->name);
                    ctx.diagnostics.warning(
                        "W502", g->span,
                        fmt::format("optimizations=[pl.split(pl.SplitMode.{})] is not applied to '{}': {}; its vector "
                                    "half runs on one AIV lane (same results)",
                                    mode == 1 ? "UP_DOWN" : "LEFT_RIGHT", g->name, c.why));
                  }
                }
                if (replace.empty()) return p;
                return map_functions(p, [&](const FunctionPtr& f) {
                  auto it = replace.find(f->name);
                  return it == replace.end() ? f : it->second;
                });
              }};
}

}  // namespace pypto::passes
