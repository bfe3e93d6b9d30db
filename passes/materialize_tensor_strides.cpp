// MaterializeTensorStrides — an empty TensorView stride means packed row-major. This pass writes
// the strides out on every tensor-typed Var of every function (params, locals, carries):
// stride[i] = prod(shape[i+1:]) (symbolic dims give product expressions). A tensor without a view
// gets one with default layout/valid_shape/pad. Produces TensorStridesMaterialized.
#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

std::vector<ExprPtr> packed_strides(const std::vector<ExprPtr>& shape) {
  std::vector<ExprPtr> s(shape.size());
  ExprPtr acc = make_int(1);
  for (size_t k = shape.size(); k-- > 0;) {
    s[k] = acc;
    auto a = const_int_value(acc), d = const_int_value(shape[k]);
    if (a && d) acc = make_int(*a * *d);
    else if (a && *a == 1) acc = shape[k];
    else acc = std::make_shared<Binary>(BinOp::Mul, acc, shape[k], scalar_type(DataType::INDEX), Span{});
  }
  return s;
}

TypePtr materialize(const Var& v) {
  const auto* tt = as_tensor(v.type);
  if (!tt || (tt->view && !tt->view->stride.empty())) return nullptr;
  TensorView view = tt->view.value_or(TensorView{});
  view.stride = packed_strides(tt->shape);
  return with_view(*tt, view);
}

}  // namespace

Pass materialize_tensor_strides_pass() {
  return Pass{"MaterializeTensorStrides",
              "Writes packed row-major strides into every tensor type whose TensorView has none.",
              {{}, {Property::TensorStridesMaterialized}, {}},
              [](const ProgramPtr& p, PassContext&) {
                return map_functions(p, [](const FunctionPtr& f) { return retype_vars(f, materialize); });
              }};
}

}  // namespace pypto::passes
