// Program/function helpers and statement-list utilities.
#include "ir/function.h"

#include <algorithm>

#include "ir/visitor.h"

namespace pypto::ir {

const FuncAttr* find_attr(const Function& f, std::string_view key) {
  for (const auto& a : f.attrs)
    if (a.key == key) return &a;
  return nullptr;
}

std::optional<MixedMembers> mixed_group_members(const Program& p, const Function& group) {
  if (group.type != FunctionType::Group || !group.body) return std::nullopt;
  MixedMembers m;
  for (const auto& s : flatten_body(group.body)) {
    const Call* c = nullptr;
    if (const auto* a = as<AssignStmt>(s)) c = as<Call>(a->value);
    else if (const auto* e = as<EvalStmt>(s)) c = as<Call>(e->expr);
    else if (s->kind == NodeKind::ReturnStmt) continue;
    if (!c || c->op || c->args.size() != group.params.size()) return std::nullopt;
    for (size_t i = 0; i < c->args.size(); ++i)
      if (c->args[i].get() != group.params[i].get()) return std::nullopt;
    const auto f = p.find(c->callee);
    if (!f) return std::nullopt;
    const Function** slot = f->type == FunctionType::AIC ? &m.aic : f->type == FunctionType::AIV ? &m.aiv : nullptr;
    if (!slot || *slot) return std::nullopt;
    *slot = f.get();
  }
  if (!m.aic || !m.aiv) return std::nullopt;
  if (const FuncAttr* a = find_attr(*m.aiv, "aiv_lanes"))
    if (const auto* n = std::get_if<int64_t>(&a->value); n && *n == 2) m.aiv_lanes = 2;
  return m;
}

bool computes_on_chip(const Function& f) {
  if (is_incore_like(f.type)) return true;
  if (f.type != FunctionType::Opaque || !f.body) return false;
  struct Finder : IRVisitor {
    bool found = false;
    void visit_assign(const AssignStmt& s) override {
      found = found || as_tile(s.var->type);
      IRVisitor::visit_assign(s);
    }
  } finder;
  finder.visit(f.body);
  return finder.found;
}

FunctionPtr Program::find(std::string_view fname) const {
  for (const auto& f : functions)
    if (f->name == fname) return f;
  return nullptr;
}

ProgramPtr make_program(std::string name, std::vector<FunctionPtr> functions,
                        std::vector<VarPtr> dynamic_dims, Span span) {
  std::stable_sort(functions.begin(), functions.end(),
                   [](const FunctionPtr& a, const FunctionPtr& b) { return a->name < b->name; });
  auto p = std::make_shared<Program>();
  p->name = std::move(name);
  p->functions = std::move(functions);
  p->dynamic_dims = std::move(dynamic_dims);
  p->span = std::move(span);
  return p;
}

FunctionPtr with_body(const Function& f, StmtPtr body) {
  auto g = std::make_shared<Function>(f);
  g->body = std::move(body);
  return g;
}

std::vector<StmtPtr> flatten_body(const StmtPtr& body) {
  if (!body) return {};
  if (const auto* seq = as<SeqStmts>(body)) return seq->stmts;
  return {body};
}

const YieldStmt* trailing_yield(const StmtPtr& body) {
  auto stmts = flatten_body(body);
  while (!stmts.empty()) {
    if (const auto* y = as<YieldStmt>(stmts.back())) return y;
    const auto* sc = as<ScopeStmt>(stmts.back());
    if (!sc) return nullptr;
    stmts = flatten_body(sc->body);
  }
  return nullptr;
}

const ReturnStmt* trailing_return(const StmtPtr& body) {
  auto stmts = flatten_body(body);
  while (!stmts.empty()) {
    if (const auto* r = as<ReturnStmt>(stmts.back())) return r;
    const auto* sc = as<ScopeStmt>(stmts.back());
    if (!sc) return nullptr;
    stmts = flatten_body(sc->body);
  }
  return nullptr;
}

StmtPtr make_body(std::vector<StmtPtr> stmts, Span span) {
  std::vector<StmtPtr> flat;
  for (auto& s : stmts) {
    if (!s) continue;
    if (const auto* seq = as<SeqStmts>(s)) {
      for (const auto& c : seq->stmts) flat.push_back(c);
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  if (!span.valid() && !flat.empty()) span = flat.front()->span;
  return std::make_shared<SeqStmts>(std::move(flat), std::move(span));
}

}  // namespace pypto::ir

namespace pypto::ir {

std::vector<ExprPtr> ScopeStmt::header_exprs() const {
  std::vector<ExprPtr> out;
  if (core_num) out.push_back(core_num);
  for (const auto& d : deps)
    if (d) out.push_back(d);
  for (const auto& v : no_dep_args)
    if (v) out.push_back(v);
  for (const auto& v : dumps)
    if (v) out.push_back(v);
  if (predicate) out.push_back(predicate);
  return out;
}

bool ScopeStmt::has_dispatch_options() const {
  return split || slot_num || !deps.empty() || !no_dep_args.empty() || !dumps.empty() || task_id ||
         allow_early_resolve || sync_start || windowize || predicate;
}

}  // namespace pypto::ir
