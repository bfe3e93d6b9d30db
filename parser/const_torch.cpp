// Host tensors inside the constant evaluator (see const_eval.h): while a HostSpecScope is alive,
// the torch calls of a host script (a spec function, a fixture function, the file's own
// `entry.lower(...)` call) are followed by shape and dtype only — `torch.empty([B, H],
// dtype=torch.bfloat16)`, `.normal_()`, `.to(torch.float32)`, `torch.cat`, arithmetic with
// broadcasting, indexing, `.shape` — so that the shapes a file passes to its entry can be read
// without running Python. Tensor contents and random numbers are never known: `.item()` and what
// is computed from it are ConstHostUnknown values, and a branch on one is not constant.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <fmt/format.h>

#include "ir/diagnostic.h"
#include "parser/const_eval.h"

namespace pypto::parser {

namespace {

ConstValue tensor(ConstList shape, ir::DataType dt) {
  return ConstValue{std::make_shared<const ConstHostTensor>(ConstHostTensor{std::move(shape), dt})};
}
ConstValue unknown() { return ConstValue{ConstHostUnknown{}}; }

bool is_dim(const ConstValue& v) { return const_intlike(v) || v.is_host_unknown(); }
ConstValue dim_of(const ConstValue& v) { return v.is_bool() ? ConstValue{const_to_i(v)} : v; }

// The size of a factory call: `torch.empty(2, 3)` or `torch.empty([2, 3])` / `((2, 3))`.
std::optional<ConstList> size_args(const ConstList& pos, size_t from, size_t to) {
  to = std::min(to, pos.size());
  if (from >= to) return ConstList{};
  if (to - from == 1 && pos[from].is_list()) {
    ConstList out;
    for (const auto& d : pos[from].as_list()) {
      if (!is_dim(d)) return std::nullopt;
      out.push_back(dim_of(d));
    }
    return out;
  }
  ConstList out;
  for (size_t i = from; i < to; ++i) {
    if (!is_dim(pos[i])) return std::nullopt;
    out.push_back(dim_of(pos[i]));
  }
  return out;
}

const ConstValue* kwarg(const ConstEvaluator::Args& a, const char* name) {
  for (const auto& [k, v] : a.kw)
    if (k == name) return &v;
  return nullptr;
}

std::optional<ir::DataType> dtype_kw(const ConstEvaluator::Args& a) {
  if (const ConstValue* d = kwarg(a, "dtype"); d && d->is_dtype()) return std::get<ir::DataType>(d->v);
  return std::nullopt;
}

// torch's promotion for the few cases host scripts use: a float beats an int, and of two types of
// the same kind the wider one wins.
ir::DataType promote(ir::DataType a, ir::DataType b) {
  if (a == b) return a;
  const bool fa = ir::dtype_is_float(a), fb = ir::dtype_is_float(b);
  if (fa != fb) return fa ? a : b;
  if (a == ir::DataType::BOOL) return b;
  if (b == ir::DataType::BOOL) return a;
  if (fa && ir::dtype_bits(a) == ir::dtype_bits(b)) return ir::DataType::FP32;  // FP16 with BF16
  return ir::dtype_bits(a) >= ir::dtype_bits(b) ? a : b;
}

// numpy broadcasting of two shapes; nullopt when they do not broadcast.
std::optional<ConstList> broadcast(const ConstList& a, const ConstList& b) {
  ConstList out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    const ConstValue* x = i < a.size() ? &a[a.size() - 1 - i] : nullptr;
    const ConstValue* y = i < b.size() ? &b[b.size() - 1 - i] : nullptr;
    ConstValue& o = out[out.size() - 1 - i];
    if (!x) o = *y;
    else if (!y) o = *x;
    else if (x->is_int() && y->is_int()) {
      if (x->as_int() != y->as_int() && x->as_int() != 1 && y->as_int() != 1) return std::nullopt;
      o = x->as_int() == 1 ? *y : *x;
    } else if (x->is_int() && x->as_int() != 1) o = *x;
    else if (y->is_int() && y->as_int() != 1) o = *y;
    else o = unknown();
  }
  return out;
}

std::optional<int64_t> norm_dim(const ConstValue& d, size_t rank, bool for_insert = false) {
  if (!d.is_int()) return std::nullopt;
  int64_t r = int64_t(rank) + (for_insert ? 1 : 0);
  int64_t i = d.as_int() < 0 ? d.as_int() + r : d.as_int();
  if (i < 0 || i >= r) return std::nullopt;
  return i;
}

// `view(2, -1)` / `reshape([2, -1])`: -1 takes what is left of the element count.
std::optional<ConstList> reshaped(const ConstList& from, ConstList to) {
  int64_t total = 1, known = 1;
  bool from_known = true;
  for (const auto& d : from) {
    if (!d.is_int()) from_known = false;
    else total *= d.as_int();
  }
  int infer = -1;
  for (size_t i = 0; i < to.size(); ++i) {
    if (to[i].is_int() && to[i].as_int() == -1) {
      if (infer >= 0) return std::nullopt;
      infer = int(i);
    } else if (to[i].is_int()) {
      known *= to[i].as_int();
    }
  }
  if (infer >= 0) to[size_t(infer)] = from_known && known > 0 ? ConstValue{total / known} : unknown();
  return to;
}

const std::map<std::string, ir::DataType>& cast_methods() {
  static const std::map<std::string, ir::DataType> m = {
      {"float", ir::DataType::FP32}, {"half", ir::DataType::FP16}, {"bfloat16", ir::DataType::BF16},
      {"int", ir::DataType::INT32},  {"long", ir::DataType::INT64}, {"bool", ir::DataType::BOOL},
      {"short", ir::DataType::INT16}, {"char", ir::DataType::INT8}, {"byte", ir::DataType::UINT8}};
  return m;
}

// Methods that keep shape and dtype (in-place fills, elementwise math, copies).
bool shape_preserving(const std::string& m) {
  static const std::set<std::string> s = {
      "normal_", "uniform_", "zero_", "fill_", "random_", "bernoulli_", "exponential_", "clamp", "clamp_", "clip",
      "abs", "abs_", "exp", "log", "sqrt", "rsqrt", "cos", "sin", "tanh", "sigmoid", "neg", "reciprocal", "round",
      "floor", "ceil", "contiguous", "clone", "detach", "cpu", "pin_memory", "mul", "mul_", "add", "add_", "sub",
      "sub_", "div", "div_", "copy_", "masked_fill", "masked_fill_", "requires_grad_", "share_memory_"};
  return s.count(m) > 0;
}

}  // namespace

std::optional<ConstValue> ConstEvaluator::torch_call(const std::string& fn, const Args& args, TSNode at) {
  const ConstList& p = args.pos;
  const auto dt = dtype_kw(args);
  auto sized = [&](size_t from, size_t to, ir::DataType dflt) -> std::optional<ConstValue> {
    std::optional<ConstList> shape;
    if (const ConstValue* s = kwarg(args, "size")) shape = size_args(ConstList{*s}, 0, 1);
    else shape = size_args(p, from, to);
    if (!shape) return std::nullopt;
    return tensor(*shape, dt.value_or(dflt));
  };
  if (fn == "empty" || fn == "zeros" || fn == "ones" || fn == "rand" || fn == "randn")
    return sized(0, p.size(), ir::DataType::FP32);
  if (fn == "full") {
    if (p.size() < 2) return std::nullopt;
    const ir::DataType dflt = p[1].is_float() ? ir::DataType::FP32 : p[1].is_bool() ? ir::DataType::BOOL
                                                                                       : ir::DataType::INT64;
    return sized(0, 1, dflt);
  }
  if (fn == "randint") return sized(p.size() >= 3 ? 2 : 1, p.size(), ir::DataType::INT64);
  if (fn == "empty_like" || fn == "zeros_like" || fn == "ones_like" || fn == "rand_like" || fn == "randn_like" ||
      fn == "full_like") {
    if (p.empty() || !p[0].is_host_tensor()) return std::nullopt;
    return tensor(p[0].as_host_tensor().shape, dt.value_or(p[0].as_host_tensor().dtype));
  }
  if (fn == "arange") {
    if (p.empty() || p.size() > 3) return std::nullopt;
    const ConstValue start = p.size() >= 2 ? p[0] : ConstValue{int64_t(0)};
    const ConstValue end = p.size() >= 2 ? p[1] : p[0];
    const ConstValue step = p.size() == 3 ? p[2] : ConstValue{int64_t(1)};
    for (const auto* v : {&start, &end, &step}) {
      if (v->is_host_unknown()) return tensor({unknown()}, dt.value_or(ir::DataType::INT64));
      if (!const_numeric(*v)) return std::nullopt;
    }
    const bool ints = const_intlike(start) && const_intlike(end) && const_intlike(step);
    const double st = const_to_f(step);
    if (st == 0.0) fail(at, "torch.arange() step must be nonzero");
    const double n = std::ceil((const_to_f(end) - const_to_f(start)) / st);
    return tensor({ConstValue{int64_t(std::max(0.0, n))}}, dt.value_or(ints ? ir::DataType::INT64 : ir::DataType::FP32));
  }
  if (fn == "tensor" || fn == "as_tensor") {
    if (p.empty()) return std::nullopt;
    ConstList shape;
    ir::DataType inferred = ir::DataType::INT64;
    const ConstValue* cur = &p[0];
    while (cur->is_list()) {
      shape.push_back(ConstValue{int64_t(cur->as_list().size())});
      if (cur->as_list().empty()) break;
      cur = &cur->as_list()[0];
    }
    if (cur->is_float()) inferred = ir::DataType::FP32;
    else if (cur->is_bool()) inferred = ir::DataType::BOOL;
    return tensor(shape, dt.value_or(inferred));
  }
  if (fn == "cat" || fn == "concat" || fn == "stack") {
    if (p.empty()) return std::nullopt;
    auto items = const_iterate(p[0]);
    if (!items || items->empty()) return std::nullopt;
    ConstValue dim{int64_t(0)};
    if (p.size() > 1) dim = p[1];
    if (const ConstValue* d = kwarg(args, "dim")) dim = *d;
    for (const auto& t : *items)
      if (!t.is_host_tensor()) return std::nullopt;
    ConstList shape = (*items)[0].as_host_tensor().shape;
    ir::DataType d = (*items)[0].as_host_tensor().dtype;
    auto axis = norm_dim(dim, shape.size(), fn == "stack");
    if (!axis) return std::nullopt;
    if (fn == "stack") {
      shape.insert(shape.begin() + *axis, ConstValue{int64_t(items->size())});
      return tensor(shape, d);
    }
    ConstValue total{int64_t(0)};
    for (const auto& t : *items) {
      const auto& s = t.as_host_tensor().shape;
      if (s.size() != shape.size()) return std::nullopt;
      const ConstValue& x = s[size_t(*axis)];
      total = total.is_int() && x.is_int() ? ConstValue{total.as_int() + x.as_int()} : unknown();
      d = promote(d, t.as_host_tensor().dtype);
    }
    shape[size_t(*axis)] = total;
    return tensor(shape, d);
  }
  // Seeding and generators change values, never shapes.
  if (fn == "manual_seed" || fn == "seed") return ConstValue{ConstValue::None{}};
  if (fn == "Generator") return unknown();
  return std::nullopt;
}

std::optional<ConstValue> ConstEvaluator::host_method(const ConstValue& obj, const std::string& m, const Args& args,
                                                      TSNode at) {
  if (obj.is_host_unknown()) return unknown();
  const ConstHostTensor& t = obj.as_host_tensor();
  const ConstList& p = args.pos;
  if (shape_preserving(m)) return obj;
  if (auto it = cast_methods().find(m); it != cast_methods().end()) return tensor(t.shape, it->second);
  if (m == "to" || m == "type") {
    if (auto dt = dtype_kw(args)) return tensor(t.shape, *dt);
    for (const auto& a : p)
      if (a.is_dtype()) return tensor(t.shape, std::get<ir::DataType>(a.v));
    return obj;  // .to("cpu"), .to(device)
  }
  if (m == "item" || m == "tolist" || m == "sum" || m == "mean" || m == "max" || m == "min") {
    if (m == "item" || m == "tolist" || (p.empty() && args.kw.empty())) return unknown();
    return std::nullopt;  // a reduction over a dimension: not followed
  }
  if (m == "numel") {
    int64_t n = 1;
    for (const auto& d : t.shape) {
      if (!d.is_int()) return unknown();
      n *= d.as_int();
    }
    return ConstValue{n};
  }
  if (m == "dim") return ConstValue{int64_t(t.shape.size())};
  if (m == "size") {
    if (p.empty()) return ConstValue::of_list(t.shape);
    auto i = norm_dim(p[0], t.shape.size());
    if (!i) fail(at, fmt::format("size(): dimension {} is out of range for a {}-d tensor", p[0].repr(), t.shape.size()));
    return t.shape[size_t(*i)];
  }
  if (m == "unsqueeze" && p.size() == 1) {
    auto i = norm_dim(p[0], t.shape.size(), true);
    if (!i) return std::nullopt;
    ConstList s = t.shape;
    s.insert(s.begin() + *i, ConstValue{int64_t(1)});
    return tensor(s, t.dtype);
  }
  if (m == "squeeze") {
    ConstList s;
    for (size_t i = 0; i < t.shape.size(); ++i) {
      const bool one = t.shape[i].is_int() && t.shape[i].as_int() == 1;
      const bool selected = p.empty() || norm_dim(p[0], t.shape.size()) == std::optional<int64_t>(int64_t(i));
      if (!(one && selected)) s.push_back(t.shape[i]);
    }
    return tensor(s, t.dtype);
  }
  if (m == "view" || m == "reshape") {
    auto s = size_args(p, 0, p.size());
    if (!s) return std::nullopt;
    auto r = reshaped(t.shape, *s);
    if (!r) return std::nullopt;
    return tensor(*r, t.dtype);
  }
  if ((m == "transpose" || m == "swapaxes") && p.size() == 2) {
    auto a = norm_dim(p[0], t.shape.size()), b = norm_dim(p[1], t.shape.size());
    if (!a || !b) return std::nullopt;
    ConstList s = t.shape;
    std::swap(s[size_t(*a)], s[size_t(*b)]);
    return tensor(s, t.dtype);
  }
  if (m == "t" && t.shape.size() == 2) return tensor({t.shape[1], t.shape[0]}, t.dtype);
  if (m == "permute") {
    auto order = size_args(p, 0, p.size());
    if (!order || order->size() != t.shape.size()) return std::nullopt;
    ConstList s;
    for (const auto& o : *order) {
      auto i = norm_dim(o, t.shape.size());
      if (!i) return std::nullopt;
      s.push_back(t.shape[size_t(*i)]);
    }
    return tensor(s, t.dtype);
  }
  if (m == "flatten" && p.empty()) return tensor({host_method(obj, "numel", Args{}, at).value_or(unknown())}, t.dtype);
  return std::nullopt;  // expand, repeat, reductions over a dim …: not followed
}

std::optional<ConstValue> host_arith(const ConstValue& a, const ConstValue& b, const std::string& op) {
  const bool cmp = op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=";
  if (!a.is_host_tensor() && !b.is_host_tensor()) {
    if ((a.is_host_unknown() && (const_numeric(b) || b.is_host_unknown())) ||
        (b.is_host_unknown() && const_numeric(a)))
      return unknown();
    return std::nullopt;
  }
  if (op == "@") {
    if (!a.is_host_tensor() || !b.is_host_tensor()) return std::nullopt;
    const auto &x = a.as_host_tensor().shape, &y = b.as_host_tensor().shape;
    if (x.size() != 2 || y.size() != 2) return std::nullopt;
    return tensor({x[0], y[1]}, promote(a.as_host_tensor().dtype, b.as_host_tensor().dtype));
  }
  auto side = [](const ConstValue& v, ConstList& shape, std::optional<ir::DataType>& dt) {
    if (v.is_host_tensor()) {
      shape = v.as_host_tensor().shape;
      dt = v.as_host_tensor().dtype;
      return true;
    }
    return const_numeric(v) || v.is_host_unknown();
  };
  ConstList sa, sb;
  std::optional<ir::DataType> da, db;
  if (!side(a, sa, da) || !side(b, sb, db)) return std::nullopt;
  auto shape = broadcast(sa, sb);
  if (!shape) return std::nullopt;
  ir::DataType dt;
  if (da && db) dt = promote(*da, *db);
  else {
    const ConstValue& scalar = da ? b : a;
    const ir::DataType td = da ? *da : *db;
    dt = scalar.is_float() && !ir::dtype_is_float(td) ? ir::DataType::FP32 : td;
  }
  if (op == "/" && !ir::dtype_is_float(dt)) dt = ir::DataType::FP32;
  if (cmp) dt = ir::DataType::BOOL;
  return tensor(*shape, dt);
}

std::optional<ConstValue> ConstEvaluator::host_index(const ConstValue& base, const std::vector<TSNode>& subs) {
  if (base.is_host_unknown()) return unknown();
  const ConstHostTensor& t = base.as_host_tensor();
  std::vector<TSNode> idx = subs;
  if (idx.size() == 1 && is(unparen(idx[0]), "tuple")) idx = children(unparen(idx[0]));
  ConstList out;
  size_t d = 0;
  for (TSNode s : idx) {
    if (is(s, "slice")) {
      if (d >= t.shape.size()) return std::nullopt;
      std::optional<ConstValue> part[3];
      int slot = 0;
      for (uint32_t i = 0; i < ts_node_child_count(s); ++i) {
        TSNode c = ts_node_child(s, i);
        if (!ts_node_is_named(c)) {
          if (text(c, *file_) == ":") ++slot;
          continue;
        }
        if (slot > 2) return std::nullopt;
        part[slot] = try_eval(c);
        if (!part[slot]) return std::nullopt;
      }
      const ConstValue& len = t.shape[d++];
      auto known = [](const std::optional<ConstValue>& v) { return !v || v->is_none() || const_intlike(*v); };
      if (!len.is_int() || !known(part[0]) || !known(part[1]) || !known(part[2])) {
        out.push_back(unknown());
        continue;
      }
      auto get = [](const std::optional<ConstValue>& v, int64_t dflt) {
        return !v || v->is_none() ? dflt : const_to_i(*v);
      };
      const int64_t n = len.as_int(), step = get(part[2], 1);
      if (step <= 0) return std::nullopt;
      auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
      const int64_t lo = clamp(get(part[0], 0)), hi = clamp(get(part[1], n));
      out.push_back(ConstValue{hi > lo ? (hi - lo + step - 1) / step : int64_t(0)});
      continue;
    }
    auto v = try_eval(s);
    if (!v) return std::nullopt;
    if (v->is_none()) {
      out.push_back(ConstValue{int64_t(1)});
      continue;
    }
    if (!const_intlike(*v) && !v->is_host_unknown()) return std::nullopt;  // masks, tensor indices
    if (d >= t.shape.size()) fail(s, fmt::format("too many indices for a {}-d tensor", t.shape.size()));
    ++d;
  }
  for (; d < t.shape.size(); ++d) out.push_back(t.shape[d]);
  return tensor(out, t.dtype);
}

std::optional<ConstValue> host_attribute(const ConstValue& obj, const std::string& attr) {
  if (obj.is_host_unknown()) return unknown();
  const ConstHostTensor& t = obj.as_host_tensor();
  if (attr == "shape") return ConstValue::of_list(t.shape);
  if (attr == "dtype") return ConstValue{t.dtype};
  if (attr == "ndim") return ConstValue{int64_t(t.shape.size())};
  if (attr == "T" || attr == "mT") {
    ConstList s(t.shape.rbegin(), t.shape.rend());
    return tensor(s, t.dtype);
  }
  if (attr == "device" || attr == "data") return attr == "data" ? obj : unknown();
  return std::nullopt;
}

}  // namespace pypto::parser
