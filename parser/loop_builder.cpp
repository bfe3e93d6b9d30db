// Loops → IR: pl.range / parallel / unroll / pipeline `for` loops and pl.while_ / natural
// `while` loops, with init_values, the carried names bound to IterArgs, pl.yield_ results and
// the scoping of names inside the body (language.md §5); the scope-shaped `for` forms
// (pl.spmd, pl.split_aiv) are in scope_builder.cpp. Part of FunctionBuilder.
#include <fmt/format.h>

#include "parser/builder.h"

namespace pypto::parser {

using namespace ir;

namespace {

bool is_call_to(TSNode n, const SourceFile& f, std::string_view name) {
  n = unparen(n);
  return is(n, "call") && dotted_name(field(n, "function"), f) == name;
}

}  // namespace

namespace {
struct ScopeRestore {
  std::map<std::string, VarPtr>& names;
  std::vector<std::pair<std::string, std::optional<VarPtr>>> saved;
  void save(const std::string& n) {
    auto it = names.find(n);
    saved.emplace_back(n, it == names.end() ? std::nullopt : std::optional<VarPtr>(it->second));
  }
  void restore() {
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      if (it->second) names[it->first] = *it->second;
      else names.erase(it->first);
    }
  }
};

// Binds the carried names of a pl.range / pl.while_ loop to fresh IterArgs initialised from
// `inits` (remembering in `rs` what they shadow); their types are what the loop must yield.
std::vector<IterArgPtr> bind_iter_args(FunctionBuilder& b, ScopeRestore& rs, FunctionBuilder::YieldFrame& fr,
                                       const std::vector<TSNode>& carry_names, const std::vector<ExprPtr>& inits) {
  std::vector<IterArgPtr> iter_args;
  for (size_t i = 0; i < carry_names.size(); ++i) {
    auto ia = std::make_shared<IterArg>(b.txt(carry_names[i]), inits[i]->type, inits[i], b.sp(carry_names[i]));
    rs.save(b.txt(carry_names[i]));
    b.names_[b.txt(carry_names[i])] = ia;
    b.loop_vars_.insert(ia.get());
    iter_args.push_back(ia);
    fr.expect.push_back(ia->type);
  }
  return iter_args;
}

// Binds the names of a loop's assignment-form pl.yield_ to the loop's return vars (typed as the
// iter_args they carry out), visible after the loop.
std::vector<VarPtr> bind_loop_results(FunctionBuilder& b, const FunctionBuilder::YieldFrame& fr,
                                      const std::vector<IterArgPtr>& iter_args) {
  std::vector<VarPtr> rvs;
  for (size_t i = 0; i < fr.names.size(); ++i) {
    auto v = make_var(fr.names[i], iter_args[i]->type, b.sp(fr.name_nodes[i]));
    b.names_[fr.names[i]] = v;
    b.poisoned_.erase(fr.names[i]);
    rvs.push_back(v);
  }
  return rvs;
}
}  // namespace

std::vector<StmtPtr> FunctionBuilder::for_stmt(TSNode n) {
  const auto& f = *file_;
  TSNode left = field(n, "left"), right = unparen(field(n, "right")), body = field(n, "body");
  if (!is_null(field(n, "alternative"))) fail(n, "E001", "for-else is not supported");
  const std::string range_msg =
      "For loop must use pl.range(), pl.parallel(), pl.unroll(), pl.pipeline(), pl.while_(), pl.spmd(), or pl.split_aiv()";
  if (!is(right, "call")) fail(right, "E005", range_msg);
  std::string dn = dotted_name(field(right, "function"), f);
  if (dn == "range") fail(right, "E005", range_msg, "replace range(...) with pl.range(...)");
  static const std::map<std::string, ForKind> kinds = {{"pl.range", ForKind::Sequential},
                                                       {"pl.parallel", ForKind::Parallel},
                                                       {"pl.unroll", ForKind::Unroll},
                                                       {"pl.pipeline", ForKind::Pipeline}};
  if (dn == "pl.spmd") return spmd_for(n, right);
  if (dn == "pl.split_aiv") return split_aiv_for(n, right);
  if (dn != "pl.while_" && !kinds.count(dn)) fail(right, "E005", range_msg);
  const std::string short_name = dn.substr(3);
  std::vector<TSNode> pos;
  TSNode init_node{}, stage_node{};
  for (TSNode a : children(field(right, "arguments"))) {
    if (!is(a, "keyword_argument")) {
      pos.push_back(a);
      continue;
    }
    std::string k = txt(field(a, "name"));
    TSNode v = field(a, "value");
    if (k == "init_values") init_node = unparen(v);
    else if (k == "stage") stage_node = v;
    else if (k == "attrs") continue;  // loop hints; no IR meaning yet
    else fail(a, "E302", fmt::format("Unknown keyword argument '{}' in {}()", k, dn));
  }
  std::vector<ExprPtr> inits;
  if (!is_null(init_node)) {
    if (!is(init_node, "tuple") && !is(init_node, "list"))
      fail(init_node, "E007", "init_values must be a tuple or list literal: init_values=(x,)");
    for (TSNode c : children(init_node)) inits.push_back(expr(c));
  }
  if (dn == "pl.while_") {
    if (!pos.empty()) fail(right, "E302", "pl.while_() takes only init_values=");
    if (!is_null(stage_node)) fail(stage_node, "E302", "stage= is only supported on pl.pipeline()");
    return while_form(n, right, inits);
  }
  ForKind kind = kinds.at(dn);
  if (!is_null(stage_node) && kind != ForKind::Pipeline) fail(stage_node, "E302", "stage= is only supported on pl.pipeline()");
  int64_t stage = 0;
  if (kind == ForKind::Pipeline) {
    auto v = is_null(stage_node) ? std::nullopt : try_const(stage_node);
    if (!v || !v->is_int() || v->as_int() < 1)
      fail(is_null(stage_node) ? right : stage_node, "E302", "pl.pipeline() requires stage= (positive integer)");
    stage = v->as_int();
  }
  if (pos.empty() || pos.size() > 3)
    fail(right, "E302", fmt::format("{}() takes 1 to 3 positional arguments (start, stop, step)", dn));
  std::vector<ExprPtr> b;
  for (TSNode p : pos) b.push_back(index_expr(p, fmt::format("a {}() bound", dn)));
  ExprPtr start = pos.size() >= 2 ? b[0] : make_int(0, sp(right));
  ExprPtr stop = pos.size() >= 2 ? b[1] : b[0];
  ExprPtr step = pos.size() == 3 ? b[2] : make_int(1, sp(right));
  if (auto sv = const_int_value(step); sv && *sv == 0) fail(pos.back(), "E302", fmt::format("{}() step must not be zero", dn));
  if (kind == ForKind::Unroll) {
    if (!const_int_value(start) || !const_int_value(stop) || !const_int_value(step))
      fail(right, "E302", "pl.unroll() requires compile-time constant integer bounds");
    if (!inits.empty()) fail(init_node, "E302", "pl.unroll() cannot be combined with init_values");
  }
  // Targets: `i` or `i, (c1, c2, ...)`.
  TSNode loop_name{};
  std::vector<TSNode> carry_names;
  if (is(left, "identifier")) {
    loop_name = left;
    if (!inits.empty())
      fail(left, "E003", "For loop target must be a tuple when init_values is provided", "write: for i, (acc,) in ...");
  } else if (is(left, "pattern_list") && children(left).size() == 2 && is(children(left)[0], "identifier") &&
             (is(children(left)[1], "tuple_pattern") || is(children(left)[1], "list_pattern") ||
              is(children(left)[1], "identifier"))) {
    loop_name = children(left)[0];
    TSNode cs = children(left)[1];
    carry_names = is(cs, "identifier") ? std::vector<TSNode>{cs} : children(cs);
    for (TSNode c : carry_names)
      if (!is(c, "identifier")) fail(c, "E003", "iter_arg targets must be names");
    if (inits.empty()) fail(left, "E003", "a tuple loop target needs init_values=(...)");
    if (carry_names.size() != inits.size())
      fail(left, "E007", fmt::format("Mismatch: {} iter_args but {} init_values", carry_names.size(), inits.size()));
  } else {
    fail(left, "E003", fmt::format("Invalid for loop target '{}'", txt(left)), "write `for i in ...` or `for i, (a, b) in ...`");
  }
  ScopeRestore rs{names_, {}};
  auto lv = make_var(txt(loop_name), scalar_type(DataType::INDEX), sp(loop_name));
  rs.save(txt(loop_name));
  names_[txt(loop_name)] = lv;
  loop_vars_.insert(lv.get());
  YieldFrame fr;
  fr.is_loop = true;
  std::vector<IterArgPtr> iter_args = bind_iter_args(*this, rs, fr, carry_names, inits);
  yields_.push_back(fr);
  loops_.push_back(LoopFrame{short_name});
  std::vector<StmtPtr> body_stmts;
  const size_t mark = shadow_mark();
  try {
    body_stmts = block(body, ts_node_start_point(right).row);
  } catch (...) {
    yields_.pop_back();
    loops_.pop_back();
    rs.restore();
    throw;
  }
  fr = yields_.back();
  yields_.pop_back();
  loops_.pop_back();
  if (fr.seen || !iter_args.empty()) unshadow(mark);  // a loop with carries: its body's names do not leak
  rs.restore();
  std::vector<VarPtr> rvs;
  if (fr.seen) {
    rvs = bind_loop_results(*this, fr, iter_args);
  } else if (!iter_args.empty()) {
    std::vector<ExprPtr> vals;
    for (const auto& ia : iter_args) {
      vals.push_back(ia);
      auto v = make_var(ia->name + "_out", ia->type, ia->span);
      names_[ia->name + "_out"] = v;
      rvs.push_back(v);
    }
    body_stmts.push_back(std::make_shared<YieldStmt>(std::move(vals), sp(n)));
  }
  auto body_s = make_body(std::move(body_stmts), sp(body));
  return {std::make_shared<ForStmt>(lv, start, stop, step, std::move(iter_args), body_s, std::move(rvs), kind, sp(n), stage)};
}

std::vector<StmtPtr> FunctionBuilder::while_form(TSNode n, TSNode call, const std::vector<ExprPtr>& inits) {
  TSNode left = field(n, "left"), body = field(n, "body");
  if (inits.empty()) fail(call, "E302", "pl.while_() requires init_values");
  std::vector<TSNode> carry_names;
  if (is(left, "tuple_pattern") || is(left, "pattern_list") || is(left, "list_pattern")) carry_names = children(left);
  else fail(left, "E003", "For loop target must be a tuple when init_values is provided", "write: for (x,) in pl.while_(...)");
  for (TSNode c : carry_names)
    if (!is(c, "identifier")) fail(c, "E003", "iter_arg targets must be names");
  if (carry_names.size() != inits.size())
    fail(left, "E007", fmt::format("Mismatch: {} iter_args but {} init_values", carry_names.size(), inits.size()));
  auto stmts = children(body);
  TSNode first = stmts.empty() ? TSNode{} : stmts[0];
  TSNode cond_call{};
  if (!is_null(first) && is(first, "expression_statement") && children(first).size() == 1 &&
      is_call_to(children(first)[0], *file_, "pl.cond"))
    cond_call = unparen(children(first)[0]);
  if (is_null(cond_call))
    fail(is_null(first) ? n : first, "E008", "First statement in pl.while_() body must be pl.cond(condition)");
  ScopeRestore rs{names_, {}};
  YieldFrame fr;
  fr.is_loop = true;
  std::vector<IterArgPtr> iter_args = bind_iter_args(*this, rs, fr, carry_names, inits);
  ExprPtr cond;
  std::vector<StmtPtr> body_stmts;
  yields_.push_back(fr);
  loops_.push_back(LoopFrame{"while"});
  const size_t mark = shadow_mark();
  try {
    auto cargs = children(field(cond_call, "arguments"));
    if (cargs.size() != 1) fail(cond_call, "E302", "pl.cond() takes one condition");
    cond = cond_expr(cargs[0], "pl.cond()");
    body_stmts = block(body, ts_node_end_point(first).row, 1);
  } catch (...) {
    yields_.pop_back();
    loops_.pop_back();
    rs.restore();
    throw;
  }
  fr = yields_.back();
  yields_.pop_back();
  loops_.pop_back();
  unshadow(mark);
  rs.restore();
  if (!fr.seen) fail(n, "E008", "a pl.while_() body must end with an assignment-form pl.yield_");
  std::vector<VarPtr> rvs = bind_loop_results(*this, fr, iter_args);
  auto body_s = make_body(std::move(body_stmts), sp(body));
  return {std::make_shared<WhileStmt>(cond, std::move(iter_args), body_s, std::move(rvs), sp(n))};
}

std::vector<StmtPtr> FunctionBuilder::while_stmt(TSNode n) {
  if (!is_null(field(n, "alternative"))) fail(n, "E001", "while-else is not supported");
  auto cond = cond_expr(field(n, "condition"), "while");
  loops_.push_back(LoopFrame{"while"});
  yields_.push_back(YieldFrame{});
  std::vector<StmtPtr> body;
  try {
    body = block(field(n, "body"), ts_node_start_point(field(n, "condition")).row);
  } catch (...) {
    loops_.pop_back();
    yields_.pop_back();
    throw;
  }
  bool yielded = yields_.back().seen;
  loops_.pop_back();
  yields_.pop_back();
  if (yielded) fail(n, "E008", "pl.yield_ in a natural while loop is not supported; use pl.while_(init_values=...)");
  return {std::make_shared<WhileStmt>(cond, std::vector<IterArgPtr>{}, make_body(std::move(body), sp(field(n, "body"))),
                                      std::vector<VarPtr>{}, sp(n))};
}

}  // namespace pypto::parser
