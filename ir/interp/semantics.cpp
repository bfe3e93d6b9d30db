// The op-semantics hook: OpEval's operand accessors and install_op_semantics, which attaches each
// family's table (semantics_*.cpp) to the registry entries.
#include <algorithm>
#include <deque>

#include <fmt/format.h>

#include "ir/diagnostic.h"
#include "ir/interp/op_semantics.h"
#include "ir/op_deduce.h"

namespace pypto::ir {

void install_op_semantics(OpRegistry& r) {
  interp::define_elementwise(r);
  interp::define_reductions(r);
  interp::define_data_movement(r);
  interp::define_matmul(r);
  interp::define_system(r);
}

namespace interp {

void define(OpRegistry& r, std::string_view op, SemanticsFn fn) {
  static std::deque<OpSemantics> rows;  // stable addresses for the registry's pointers
  rows.push_back(OpSemantics{std::move(fn)});
  r.set_semantics(op, &rows.back());
}

const Array& OpEval::arr(size_t i) const {
  if (i >= args.size() || !args[i].is_array())
    fail(fmt::format("operand {} of pl.{} is not a tensor or tile value here", i + 1, call.op->name));
  return args[i].arr;
}

double OpEval::num(size_t i) const {
  if (i >= args.size() || !args[i].is_scalar())
    fail(fmt::format("operand {} of pl.{} is not a scalar value here", i + 1, call.op->name));
  return args[i].num;
}

std::vector<int64_t> OpEval::list(size_t i) const {
  std::vector<int64_t> out;
  if (i >= args.size()) return out;
  const Value& v = args[i];
  if (v.kind == Value::Kind::Scalar) return {static_cast<int64_t>(v.num)};
  for (const auto& e : v.elems) out.push_back(static_cast<int64_t>(e.num));
  return out;
}

int64_t OpEval::kw_int(std::string_view name, int64_t dflt) const {
  const AttrValue* a = kw(name);
  if (!a) return dflt;
  if (const auto* i = std::get_if<int64_t>(a)) return *i;
  if (const auto* b = std::get_if<bool>(a)) return *b;
  return dflt;
}

bool OpEval::kw_bool(std::string_view name, bool dflt) const {
  const AttrValue* a = kw(name);
  if (!a) return dflt;
  if (const auto* b = std::get_if<bool>(a)) return *b;
  if (const auto* i = std::get_if<int64_t>(a)) return *i != 0;
  return dflt;
}

std::string OpEval::kw_str(std::string_view name, const std::string& dflt) const {
  const AttrValue* a = kw(name);
  if (!a) return dflt;
  if (const auto* s = std::get_if<std::string>(a)) return *s;
  return dflt;
}

DataType OpEval::result_dtype() const {
  if (const auto* s = as_shaped(call.type)) return s->dtype;
  if (const auto* s = as_scalar(call.type)) return s->dtype;
  fail(fmt::format("pl.{} has no tensor, tile or scalar result", call.op->name));
}

std::vector<int64_t> OpEval::result_shape() const { return dims(call.type); }

std::vector<int64_t> OpEval::valid(size_t i) const {
  std::vector<int64_t> v = i < call.args.size() && valid_dims ? valid_dims(call.args[i]->type) : std::vector<int64_t>{};
  const Array& a = arr(i);
  if (v.size() != a.shape.size()) return a.shape;
  for (size_t d = 0; d < v.size(); ++d) v[d] = std::clamp<int64_t>(v[d], 0, a.shape[d]);
  return v;
}

Array OpEval::result() const { return Array::zeros(result_dtype(), result_shape()); }

void OpEval::fail(const std::string& msg, const std::string& hint) const {
  throw CompileError("E602", call.span, fmt::format("pypto eval: {}", msg), hint);
}

double broadcast_at(const Array& a, const std::vector<int64_t>& out_shape, int64_t i) {
  if (a.shape == out_shape) return a.at(i);
  const size_t r = out_shape.size(), ra = a.shape.size();
  int64_t p = a.offset;
  for (size_t d = r; d-- > 0;) {
    const int64_t k = i % out_shape[d];
    i /= out_shape[d];
    if (d + ra < r) continue;
    const size_t da = d + ra - r;
    if (a.shape[da] != 1) p += k * a.strides[da];
  }
  return (*a.data)[static_cast<size_t>(p)];
}

}  // namespace interp
}  // namespace pypto::ir
