// The values of dispatch options, shared by the with-scopes (scope_builder.cpp) and task
// submission (call_builder.cpp): deps=[...] lists of TaskIds / TaskId arrays / array elements
// (None dropped, a comprehension over a constant iterable unrolled at parse time, whole arrays
// and elements not mixed), no_dep_args= / dumps= lists of distinct tensor names, True / False
// literals, core_num= and predicate= expressions.
#include <fmt/format.h>

#include "parser/builder.h"

namespace pypto::parser {

using namespace ir;

bool FunctionBuilder::bool_literal(TSNode v, const std::string& what) {
  TSNode u = unparen(v);
  if (!is(u, "true") && !is(u, "false"))
    fail(v, "E009", fmt::format("{} must be a boolean literal (True/False)", what), "write True or False");
  return is(u, "true");
}

ExprPtr FunctionBuilder::core_num_expr(TSNode v, const std::string& owner) {
  const std::string hint = fmt::format("write {}(core_num=8) with a positive integer", owner);
  TSNode u = unparen(v);
  if (is(u, "true") || is(u, "false"))
    fail(v, "E009", fmt::format("core_num must be an integer expression, got {}", txt(v)), hint);
  auto e = expr(v);
  const auto* st = as_scalar(e->type);
  if (!st || !dtype_is_int(st->dtype))
    fail(v, "E009", fmt::format("core_num must be an integer expression, got {}", type_str(e->type)), hint);
  if (auto c = const_int_value(e); c && *c <= 0)
    fail(v, "E009", fmt::format("core_num must be a positive integer, got {}", *c), hint);
  return e;
}

ExprPtr FunctionBuilder::predicate_expr(TSNode v, const std::string& owner) {
  auto e = expr(v);
  const auto* st = as_scalar(e->type);
  if (!st || st->dtype != DataType::BOOL)
    fail(v, "E009", fmt::format("{} predicate= must be a comparison, got {}", owner, type_str(e->type)),
         "write predicate=(counts[i] > 0)");
  return e;
}

std::vector<ExprPtr> FunctionBuilder::task_deps(TSNode value, const std::string& owner) {
  TSNode lst = unparen(value);
  const std::string hint =
      "a TaskId from `_, tid = pl.submit(...)` or `with ... as tid`, a loop carry, an element `arr[i]` of a "
      "pl.array.create(N, pl.TASK_ID), or None";
  std::vector<TSNode> entries;
  if (is(lst, "list") || is(lst, "tuple")) {
    for (TSNode e : children(lst)) entries.push_back(e);
  } else if (is(lst, "list_comprehension")) {
    entries.push_back(lst);
  } else {
    fail(value, "E302", fmt::format("{} deps= must be a list or tuple of TaskId values", owner), "write deps=[tid]");
  }
  // Entries in order; a comprehension `[t[k] for k in <constant iterable> if <constant filter>]`
  // is unrolled at parse time (its variable bound to each constant in turn).
  std::vector<ExprPtr> xs;
  std::vector<TSNode> at;
  for (TSNode e : entries) {
    TSNode u = unparen(e);
    if (is(u, "none")) continue;
    if (!is(u, "list_comprehension")) {
      xs.push_back(expr(u));
      at.push_back(e);
      continue;
    }
    TSNode body = field(u, "body"), clause{}, filter{};
    for (TSNode c : children(u)) {
      if (is(c, "for_in_clause")) {
        if (!is_null(clause)) fail(c, "E302", fmt::format("{} deps= comprehensions take one `for` clause", owner));
        clause = c;
      } else if (is(c, "if_clause")) {
        if (!is_null(filter)) fail(c, "E302", fmt::format("{} deps= comprehensions take at most one `if` filter", owner));
        filter = children(c)[0];
      }
    }
    TSNode var = field(clause, "left");
    TSNode iter = field(clause, "right");
    if (!is(var, "identifier")) fail(var, "E302", fmt::format("{} deps= comprehension variable must be a name", owner));
    if (is(unparen(iter), "call") && dotted_name(field(unparen(iter), "function"), *file_).rfind("pl.", 0) == 0)
      fail(iter, "E302",
           fmt::format("{} deps= comprehension iterates over {}, an IR loop; it must be a parse-time iterable", owner, txt(iter)),
           "write range(N) or a constant list");
    auto items = try_const(iter);
    if (!items || !items->is_list())
      fail(iter, "E302", fmt::format("{} deps= comprehension iterable '{}' is not a compile-time constant", owner, txt(iter)),
           "write range(N) or a constant list");
    const std::string vname = txt(var);
    for (const auto& item : items->as_list()) {
      const_scope_[vname] = item;
      try {
        if (!is_null(filter)) {
          auto keep = try_const(filter);
          if (!keep || !keep->is_bool())
            fail(filter, "E302",
                 fmt::format("{} deps= comprehension filter '{}' cannot be evaluated at parse time", owner, txt(filter)),
                 "the filter may only use constants and the comprehension variable");
          if (!std::get<bool>(keep->v)) continue;
        }
        xs.push_back(expr(body));
        at.push_back(body);
      } catch (...) {
        const_scope_.erase(vname);
        throw;
      }
    }
    const_scope_.erase(vname);
  }
  std::vector<ExprPtr> out;
  bool whole = false, element = false;
  for (size_t ei = 0; ei < xs.size(); ++ei) {
    TSNode e = at[ei];
    auto x = xs[ei];
    const auto* st = as_scalar(x->type);
    const bool task = st && st->dtype == DataType::TASK_ID;
    const auto* arr = as_array(x->type);
    if (arr && arr->dtype == DataType::TASK_ID && as<Var>(x)) {
      if (element)
        fail(e, "E302", fmt::format("{} deps= cannot mix a whole TASK_ID array with per-element entries", owner),
             "pass the array alone (deps=[arr]) or index it slot by slot (deps=[arr[i], arr[j]])");
      whole = true;
    } else if (task && as<Var>(x)) {
    } else if (task && as<Call>(x) && as<Call>(x)->is_op("array.get_element")) {
      if (whole)
        fail(e, "E302", fmt::format("{} deps= cannot mix a whole TASK_ID array with per-element entries", owner),
             "pass the array alone (deps=[arr]) or index it slot by slot (deps=[arr[i], arr[j]])");
      element = true;
    } else {
      fail(e, "E302",
           fmt::format("{} deps= entries must be a TaskId variable, a TASK_ID array element or None — got '{}' ({})",
                       owner, txt(e), type_str(x->type)),
           hint);
    }
    out.push_back(x);
  }
  return out;
}

std::vector<VarPtr> FunctionBuilder::tensor_names(TSNode value, const std::string& owner, const std::string& kw,
                                                  bool dedupe) {
  TSNode lst = unparen(value);
  if (!is(lst, "list") && !is(lst, "tuple"))
    fail(value, "E302", fmt::format("{}({}=...) must be a list literal of tensor names", owner, kw),
         fmt::format("write {}=[t1, t2] with tensor names", kw));
  std::vector<VarPtr> out;
  for (TSNode e : children(lst)) {
    TSNode u = unparen(e);
    if (!is(u, "identifier"))
      fail(e, "E302", fmt::format("{}({}=[...]) entries must be bare tensor names", owner, kw),
           fmt::format("write {}=[t] where t is a tensor variable", kw));
    auto it = names_.find(txt(u));
    if (it == names_.end())
      fail(e, "E302", fmt::format("{}({}=[...]) references unknown name '{}'", owner, kw, txt(u)),
           "each entry must name a tensor visible in the function");
    if (!as_tensor(it->second->type))
      fail(e, "E302", fmt::format("{}({}=[...]) entry '{}' is not a tensor (got {})", owner, kw, txt(u),
                                  type_str(it->second->type)));
    if (std::find(out.begin(), out.end(), it->second) != out.end()) {
      if (dedupe) continue;
      fail(e, "E302", fmt::format("{}({}=[...]) lists '{}' more than once", owner, kw, txt(u)));
    }
    out.push_back(it->second);
  }
  return out;
}

}  // namespace pypto::parser
