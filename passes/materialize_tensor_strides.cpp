// MaterializeTensorStrides — an empty TensorView stride means packed row-major. This pass writes
// the strides out on every tensor-typed Var of every function (params, locals, carries), as the
// data really lies:
//   * a view keeps its source's layout: a tensor.slice the strides of the tensor it windows (a
//     column block of a [16, 256] tensor has strides [256, 1]), a tensor.transpose its source's
//     strides swapped, a tensor.reshape packed strides (of a packed source only: reshaping a
//     strided view is no view, E501 at the reshape);
//   * a kernel parameter takes the strides of the tensors its orchestration call sites hand it,
//     when they are not packed (the kernel's GM views are typed with them, so a kernel reads a
//     column block where it lies); call sites that disagree, strides that are not constants and
//     an innermost stride other than 1 (a transposed view: not an ND view) are E501 at the call;
//   * every other TensorView without strides: the packed strides of its layout (ND row-major,
//     stride[i] = prod(shape[i+1:]); DN the last two dims column-major; symbolic dims give product
//     expressions); a view that says nothing else (ND, no valid shape, no pad) is dropped.
// A tensor without a view stays without one: it is packed row-major (as in the reference).
// Produces TensorStridesMaterialized: every TensorView there is has explicit strides.
#include <fmt/format.h>

#include <map>

#include "ir/op_registry.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

using Strides = std::vector<ExprPtr>;

ExprPtr times(const ExprPtr& acc, const ExprPtr& d) {
  auto a = const_int_value(acc), c = const_int_value(d);
  if (a && c) return make_int(*a * *c);
  if (a && *a == 1) return d;
  return std::make_shared<Binary>(BinOp::Mul, acc, d, scalar_type(DataType::INDEX), Span{});
}

// Packed strides of a layout: ND row-major (stride[i] = prod(shape[i+1:])); DN the last two dims
// column-major (a [2, 4, 8] DN tensor: [32, 1, 4]).
Strides packed_strides(const std::vector<ExprPtr>& shape, TensorLayout layout = TensorLayout::ND) {
  const size_t n = shape.size();
  Strides s(n);
  ExprPtr acc = make_int(1);
  if (layout == TensorLayout::DN && n >= 2) {
    s[n - 2] = acc;
    s[n - 1] = shape[n - 2];
    acc = times(shape[n - 2], shape[n - 1]);
    for (size_t k = n - 2; k-- > 0;) {
      s[k] = acc;
      acc = times(acc, shape[k]);
    }
    return s;
  }
  for (size_t k = n; k-- > 0;) {
    s[k] = acc;
    acc = times(acc, shape[k]);
  }
  return s;
}

bool same_strides(const Strides& a, const Strides& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!structural_equal(a[i], b[i])) return false;
  return true;
}

std::string strides_text(const Strides& s) {
  std::string out;
  for (const auto& e : s) out += (out.empty() ? "" : ", ") + print_expr(e);
  return "[" + out + "]";
}

// The strides of every tensor Var a view op defines, from its source's, in definition order.
class ViewStrides : public IRVisitor {
 public:
  std::unordered_map<const Var*, Strides> of_var;

  Strides of(const ExprPtr& e) const {
    if (const auto* v = as<Var>(e))
      if (auto it = of_var.find(v); it != of_var.end()) return it->second;
    const auto* t = as_tensor(e->type);
    if (!t) return {};
    if (t->view && !t->view->stride.empty()) return t->view->stride;
    return packed_strides(t->shape, t->view ? t->view->layout : TensorLayout::ND);
  }

 protected:
  void visit_assign(const AssignStmt& s) override {
    IRVisitor::visit_assign(s);
    const auto* c = as<Call>(s.value);
    const auto* t = as_tensor(s.var->type);
    if (!c || !c->op || !t || c->args.empty() || !as_tensor(c->args[0]->type)) return;
    if (t->view && !t->view->stride.empty()) return;  // stated
    const std::string& op = c->op->name;
    Strides src = of(c->args[0]);
    if (op == "tensor.slice") {
      if (src.size() == t->shape.size()) of_var[s.var.get()] = src;
    } else if (op == "tensor.transpose" && c->args.size() >= 3) {
      auto a = const_int_value(c->args[1]), b = const_int_value(c->args[2]);
      const int64_t n = static_cast<int64_t>(src.size());
      if (!a || !b) return;
      int64_t i = *a < 0 ? *a + n : *a, j = *b < 0 ? *b + n : *b;
      if (i < 0 || j < 0 || i >= n || j >= n) return;
      std::swap(src[size_t(i)], src[size_t(j)]);
      of_var[s.var.get()] = src;
    } else if (op == "tensor.reshape") {
      const auto* st = as_tensor(c->args[0]->type);
      if (!same_strides(src, packed_strides(st->shape)))
        throw CompileError("E501", c->span,
                           fmt::format("pl.reshape of a strided view (strides {}) is not supported: a reshape is a view of "
                                       "packed data only",
                                       strides_text(src)),
                           "reshape the whole tensor and slice the result, or copy the view into a packed tensor first");
    }
  }
};

TypePtr with_strides(const TensorType& tt, Strides s) {
  TensorView view = tt.view.value_or(TensorView{});
  view.stride = std::move(s);
  return with_view(tt, view);
}

// A view without strides gets its layout's packed ones; one that says nothing beyond that (ND,
// no valid shape, no pad) is dropped: a tensor without a view is packed row-major.
TypePtr materialize(const Var& v) {
  const auto* tt = as_tensor(v.type);
  if (!tt || !tt->view || !tt->view->stride.empty()) return nullptr;
  const TensorView& view = *tt->view;
  if (view.layout == TensorLayout::ND && view.valid_shape.empty() && view.pad == PadValue::null) {
    auto bare = std::make_shared<TensorType>(*tt);
    bare->view.reset();
    return bare;
  }
  return with_strides(*tt, packed_strides(tt->shape, view.layout));
}

// Strides the call sites give each kernel parameter that are not packed, checked for agreement.
class CallSiteStrides : public IRVisitor {
 public:
  CallSiteStrides(const Program& p, const ViewStrides& views) : p_(p), views_(views) {}
  std::map<std::pair<std::string, size_t>, Strides> param;  // (kernel, param index) → strides

 protected:
  void visit_call(const Call& c) override {
    IRVisitor::visit_call(c);
    if (c.op || c.callee.empty()) return;
    const FunctionPtr f = p_.find(c.callee);
    if (!f || !is_incore_like(f->type)) return;
    for (size_t i = 0; i < c.args.size() && i < f->params.size(); ++i) {
      const auto* pt = as_tensor(f->params[i]->type);
      if (!pt || (pt->view && !pt->view->stride.empty())) continue;
      Strides given = views_.of(c.args[i]);
      const Strides packed = packed_strides(pt->shape, pt->view ? pt->view->layout : TensorLayout::ND);
      // A packed argument is packed whatever names its extents have: [n, 1] for a [m, n] tensor
      // whose n the orchestration computed is the parameter's own packed strides, in its terms.
      if (const auto* at = as_tensor(c.args[i]->type);
          at && at->shape.size() == pt->shape.size() &&
          same_strides(given, packed_strides(at->shape, at->view ? at->view->layout : TensorLayout::ND)))
        given = packed;
      const auto key = std::make_pair(f->name, i);
      const auto seen = param.find(key);
      const Strides& before = seen == param.end() ? packed : seen->second;
      if (given.size() != pt->shape.size() || same_strides(given, before)) {  // (a rank mismatch is not ours)
        if (seen == param.end()) param[key] = packed;
        continue;
      }
      if (seen != param.end())
        throw CompileError("E501", c.span,
                           fmt::format("kernel '{}' is handed tensors of different layouts for parameter '{}': strides {} "
                                       "here, {} at an earlier call; a kernel reads one layout",
                                       f->name, f->params[i]->name, strides_text(given), strides_text(before)),
                           "call a kernel per layout (two functions), or copy the view into a packed tensor first");
      for (const auto& e : given)
        if (!const_int_value(e))
          throw CompileError("E501", c.span,
                             fmt::format("the view handed to kernel '{}' as '{}' has strides {} that are not constants; a "
                                         "kernel's GM views are typed with static strides",
                                         f->name, f->params[i]->name, strides_text(given)),
                             "give the viewed tensor static dims");
      if (const_int_value(given.back()) != 1)
        throw CompileError("E501", c.span,
                           fmt::format("the view handed to kernel '{}' as '{}' has strides {}: its innermost stride is not "
                                       "1 (a transposed view), which a kernel's ND GM view cannot read",
                                       f->name, f->params[i]->name, strides_text(given)),
                           "transpose inside the kernel (pl.transpose in its pl.at scope), or hand it the untransposed "
                           "tensor");
      param[key] = given;
    }
  }

 private:
  const Program& p_;
  const ViewStrides& views_;
};

}  // namespace

Pass materialize_tensor_strides_pass() {
  return Pass{"MaterializeTensorStrides",
              "Writes the strides of every tensor type whose TensorView has none: a view (slice, transpose, reshape) "
              "those of its source, a kernel parameter those its call sites hand it, every other tensor packed "
              "row-major.",
              {{}, {Property::TensorStridesMaterialized}, {}},
              [](const ProgramPtr& p, PassContext&) {
                std::map<std::string, ViewStrides> views;
                for (const auto& f : p->functions) views[f->name].visit_function(*f);
                std::map<std::pair<std::string, size_t>, Strides> param;
                for (const auto& f : p->functions) {
                  if (is_incore_like(f->type)) continue;
                  CallSiteStrides cs(*p, views[f->name]);
                  cs.visit_function(*f);
                  for (auto& [k, s] : cs.param) {
                    auto it = param.find(k);
                    if (it == param.end()) param.emplace(k, s);
                    else if (!same_strides(it->second, s))
                      throw CompileError("E501", f->span,
                                         fmt::format("kernel '{}' is handed tensors of different layouts for its "
                                                     "parameter #{} from two functions: strides {} and {}",
                                                     k.first, k.second, strides_text(it->second), strides_text(s)),
                                         "call a kernel per layout (two functions)");
                  }
                }
                return map_functions(p, [&](const FunctionPtr& f) {
                  const ViewStrides& vs = views[f->name];
                  std::unordered_map<const Var*, Strides> params;
                  for (size_t i = 0; i < f->params.size(); ++i)
                    if (auto it = param.find({f->name, i}); it != param.end()) params[f->params[i].get()] = it->second;
                  return retype_vars(f, [&](const Var& v) -> TypePtr {
                    const auto* tt = as_tensor(v.type);
                    if (!tt || (tt->view && !tt->view->stride.empty())) return nullptr;
                    if (auto it = params.find(&v); it != params.end()) return with_strides(*tt, it->second);
                    if (auto it = vs.of_var.find(&v); it != vs.of_var.end()) return with_strides(*tt, it->second);
                    return materialize(v);
                  });
                });
              }};
}

}  // namespace pypto::passes
