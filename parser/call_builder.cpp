// Calls to program functions → IR (language.md §2, §4): `self.k(args)` and bare-name calls of DSL
// functions with positional and keyword arguments, `attrs={"arg_directions": [...], "dump_vars":
// [...], "arg_direction_overrides": [i]}`, `pl.no_dep(arg)` markers, `device=` on orchestrator
// dispatches, and the task-dispatch forms `pl.submit(self.k, ..., deps=, dumps=,
// allow_early_resolve=, predicate=)` / `pl.spmd_submit(..., core_num=, sync_start=)`, whose result
// is the callee's results followed by the producer TaskId; `pl.dump_tag(t)` marks t for dumping
// at every later dispatch that passes it. All of it is kept on the Call (ir::Dispatch).
#include <fmt/format.h>

#include <functional>

#include "ir/op_deduce.h"
#include "ir/visitor.h"
#include "parser/builder.h"

namespace pypto::parser {

using namespace ir;

namespace {

bool is_pl_call(TSNode n, const SourceFile& f, const char* name) {
  n = unparen(n);
  return is(n, "call") && dotted_name(field(n, "function"), f) == name;
}

}  // namespace

ExprPtr FunctionBuilder::function_call(FunctionBuilder& callee, TSNode n, bool bare) {
  auto a = split_args(*this, n);
  (void)bare;
  return dispatch_call(callee, n, a.pos, a.kw, CallForm::Call);
}

// A runtime-allocated output: a tensor.create marked runtime_output=True, assigned just before the
// statement that makes the call (flush_runtime_outputs).
ExprPtr FunctionBuilder::runtime_output(const TensorType& t, const std::string& param, TSNode n) {
  std::vector<ExprPtr> dims;
  std::vector<TypePtr> types;
  const auto extents = static_shape(t.shape);  // (a named optional: a temporary would die before the loop)
  for (int64_t d : *extents) {
    dims.push_back(make_int(d, sp(n)));
    types.push_back(dims.back()->type);
  }
  auto shape = std::make_shared<MakeTuple>(dims, std::make_shared<TupleType>(std::move(types)), sp(n));
  auto create = make_call("tensor.create", {shape}, {{"dtype", t.dtype}, {"runtime_output", true}}, sp(n));
  auto v = make_var(param, create->type, sp(n));
  pending_outputs_.push_back(std::make_shared<AssignStmt>(v, create, sp(n)));
  return v;
}

ExprPtr FunctionBuilder::dispatch_call(FunctionBuilder& callee, TSNode n, const std::vector<TSNode>& pos,
                                       const std::vector<std::pair<std::string, TSNode>>& kws, CallForm form) {
  if (!callee.sig_ok_) throw PoisonedName{};
  const auto& cf = *callee.fn_;
  const std::string& name = cf.name;
  const bool submit = form != CallForm::Call;
  const std::string owner = form == CallForm::Submit ? "pl.submit" : form == CallForm::SpmdSubmit ? "pl.spmd_submit" : name;
  std::vector<ExprPtr> slots(cf.params.size());
  std::vector<ArgDirection> dirs;
  auto d = std::make_shared<Dispatch>();
  d->submit = submit;
  d->spmd = form == CallForm::SpmdSubmit;
  if (pos.size() > cf.params.size())
    fail(n, "E302", fmt::format("Function '{}' takes {} arguments but {} were given", name, cf.params.size(), pos.size()));
  for (size_t i = 0; i < pos.size(); ++i) {
    TSNode p = unparen(pos[i]);
    if (is_pl_call(p, *file_, "pl.no_dep")) {
      auto inner = children(field(p, "arguments"));
      if (inner.size() != 1 || is(inner[0], "keyword_argument"))
        fail(p, "E302", "pl.no_dep() takes one tensor argument", "write self.k(x, pl.no_dep(t))");
      slots[i] = expr(inner[0]);
      if (!as_tensor(slots[i]->type))
        fail(inner[0], "E302", fmt::format("pl.no_dep() marks a tensor argument, got {}", type_str(slots[i]->type)));
      d->no_dep_args.push_back(int(i));
    } else {
      slots[i] = expr(p);
    }
  }
  TSNode deps_node{}, dumps_node{}, core_node{};
  for (const auto& [k, v] : kws) {
    if (k == "attrs") {
      TSNode dict = unparen(v);
      if (!is(dict, "dictionary")) fail(v, "E302", "attrs= must be a dict literal");
      for (TSNode pair : children(dict)) {
        std::string key;
        if (!is(pair, "pair") || !string_value(unparen(field(pair, "key")), *file_, key))
          fail(pair, "E302", "attrs= keys must be string literals");
        TSNode lst = unparen(field(pair, "value"));
        if (!is(lst, "list") && !is(lst, "tuple")) fail(lst, "E302", fmt::format("{} must be a list literal", key));
        if (key == "arg_directions") {
          for (TSNode e : children(lst)) {
            std::string dd = dotted_name(e, *file_);
            auto ad = dd.rfind("pl.adir.", 0) == 0 ? arg_direction_from_name(dd.substr(8)) : std::nullopt;
            if (!ad) fail(e, "E302", fmt::format("expected pl.adir.<direction>, got '{}'", txt(e)));
            dirs.push_back(*ad);
          }
        } else if (key == "dump_vars") {
          for (const auto& t : tensor_names(lst, name, "dump_vars")) d->dumps.push_back(t);
        } else if (key == "compiler_manual_dep_edges") {  // AutoDeriveTaskDependencies' edges
          for (TSNode e : children(lst)) {
            TSNode u = unparen(e);
            auto it = is(u, "identifier") ? names_.find(txt(u)) : names_.end();
            if (it == names_.end() || (!as_tensor(it->second->type) && !as_tuple(it->second->type)))
              fail(e, "E302", "compiler_manual_dep_edges entries name the results of earlier task calls (tensors or "
                              "submit results)");
            d->compiler_deps.push_back(it->second);
          }
        } else if (key == "arg_direction_overrides") {
          for (TSNode e : children(lst)) {
            auto c = try_const(e);
            if (!c || !c->is_int() || c->as_int() < 0 || c->as_int() >= int64_t(slots.size()))
              fail(e, "E302", fmt::format("arg_direction_overrides entries are argument positions of '{}' (0..{})", name,
                                          slots.size() - 1));
            if (std::find(d->no_dep_args.begin(), d->no_dep_args.end(), int(c->as_int())) == d->no_dep_args.end())
              d->no_dep_args.push_back(int(c->as_int()));
          }
        } else {
          fail(pair, "E302", fmt::format("unknown call attribute '{}'", key),
               key == "manual_dep_edges" ? "write out, tid = pl.submit(self.k, ..., deps=[...]) for explicit dependencies"
                                         : "call attributes are arg_directions, dump_vars, arg_direction_overrides and compiler_manual_dep_edges");
        }
      }
      continue;
    }
    if (submit && k == "deps") {
      deps_node = v;
      continue;
    }
    if (submit && k == "dumps") {
      dumps_node = v;
      continue;
    }
    if (submit && k == "allow_early_resolve") {
      d->allow_early_resolve = bool_literal(v, fmt::format("'{}' allow_early_resolve", name));
      continue;
    }
    if (submit && k == "predicate") {
      d->predicate = predicate_expr(v, owner + "()");
      continue;
    }
    if (form == CallForm::SpmdSubmit && k == "core_num") {
      core_node = v;
      continue;
    }
    if (form == CallForm::SpmdSubmit && k == "sync_start") {
      d->sync_start = bool_literal(v, "sync_start");
      continue;
    }
    if (k == "device" && !submit && (cf.type == FunctionType::Orchestration || cf.role == Role::Orchestrator)) {
      d->device = expr(v);
      continue;
    }
    size_t j = 0;
    while (j < callee.param_names_.size() && callee.param_names_[j] != k) ++j;
    if (j == callee.param_names_.size())
      fail(v, "E302", fmt::format("Function '{}' does not accept keyword argument '{}'", name, k),
           k == "core_num" && submit ? "core_num= belongs to pl.spmd_submit(...)"
           : k == "deps" || k == "allow_early_resolve" || k == "dumps"
               ? fmt::format("{}= belongs to a task dispatch: out, tid = pl.submit(self.{}, ..., {}=...)", k, name, k)
               : std::string());
    if (slots[j]) fail(v, "E302", fmt::format("Function '{}' got multiple values for argument '{}'", name, k));
    slots[j] = expr(v);
  }
  // Trailing Out tensors left out by an orchestration call are runtime-allocated outputs: the
  // runtime allocates each when the task is submitted (add_output(TensorCreateInfo)) and the call's
  // results name them, as simpler's submit returns them.
  size_t given = slots.size();
  while (given > 0 && !slots[given - 1]) --given;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (slots[i]) continue;
    const auto* pt = as_tensor(cf.params[i]->type);
    const bool out = i < cf.param_directions.size() && cf.param_directions[i] == ParamDirection::Out;
    if (i >= given && out && pt && static_shape(pt->shape) && fn_->type == FunctionType::Orchestration) {
      slots[i] = runtime_output(*pt, callee.param_names_[i], n);
      continue;
    }
    std::string hint;
    if (i >= given && out && fn_->type == FunctionType::Orchestration)
      hint = pt && !static_shape(pt->shape) ? "a left-out Out tensor is allocated by the runtime, which needs its static shape: pass the tensor"
                                            : "";
    else if (i >= given && out)
      hint = "only an orchestration function leaves trailing Out tensors to the runtime";
    fail(n, "E302", fmt::format("Function '{}' missing argument '{}'", name, callee.param_names_[i]), hint);
  }
  // Bare dependency parameters take their types from the first call; the body is built after.
  callee.resolve_pending_params(slots, n, *this);
  if (!callee.ret_known_) {
    if (callee.body_state_ == 1)
      fail(n, "E302", fmt::format("recursive call to '{}' needs a return annotation", callee.decl_.name));
    callee.build_body();
    if (!callee.ret_known_) throw PoisonedName{};
  }
  for (size_t i = 0; i < slots.size(); ++i) {
    auto pk = cf.params[i]->type->kind;
    auto ak = slots[i]->type ? slots[i]->type->kind : TypeKind::Ptr;
    if (pk != ak)
      fail(i < pos.size() ? pos[i] : n, "E302",
           fmt::format("argument '{}' of '{}' must be {}, got {}", callee.param_names_[i], name, type_noun(cf.params[i]->type),
                       type_noun(slots[i]->type)));
    // A tensor larger than the parameter's declared shape: the callee reads its leading elements
    // at its own shape (the reference's calling convention, which it applies without a word).
    if (binds_as_leading_elements(cf.params[i]->type, slots[i]->type)) {
      int64_t elems = 1;
      auto declared = static_shape(as_tensor(cf.params[i]->type)->shape);
      for (int64_t d : *declared) elems *= d;
      ctx_.sink.report(Diagnostic{
          Severity::Warning, "W014",
          fmt::format("argument '{}' of '{}' is {} but the parameter is declared {}: '{}' sees the argument's "
                      "first {} elements, in row-major order, at the declared shape (not a sub-block of it)",
                      callee.param_names_[i], name, type_str(slots[i]->type), type_str(cf.params[i]->type), name, elems),
          sp(i < pos.size() ? pos[i] : n), "pass a tensor of the declared shape (pl.slice / pl.reshape), or declare the parameter as passed",
          {}});
    }
    // A scalar of another dtype converts as Python passes it (a literal 1 to a BOOL flag, an INDEX
    // to an INT32 parameter): a typed literal, or an explicit cast.
    const auto* ps = as_scalar(cf.params[i]->type);
    const auto* as_ = as_scalar(slots[i]->type);
    if (ps && as_ && ps->dtype != as_->dtype && ps->dtype != DataType::TASK_ID && as_->dtype != DataType::TASK_ID) {
      if (const auto* ci = as<ConstInt>(slots[i]))
        slots[i] = dtype_is_float(ps->dtype) ? make_float(double(ci->value), slots[i]->span, ps->dtype)
                   : ps->dtype == DataType::BOOL ? make_bool(ci->value != 0, slots[i]->span)
                                                 : make_int(ci->value, slots[i]->span, ps->dtype);
      else
        slots[i] = std::make_shared<Unary>(UnOp::Cast, slots[i], cf.params[i]->type, slots[i]->span);
    }
  }
  if (!dirs.empty() && dirs.size() != slots.size())
    fail(n, "E302", fmt::format("arg_directions has {} entries but the call has {} arguments", dirs.size(), slots.size()));
  if (form == CallForm::SpmdSubmit) {
    if (is_null(core_node))
      fail(n, "E302", fmt::format("pl.spmd_submit(self.{}, ...) requires the core_num keyword argument", name),
           "write pl.spmd_submit(self.k, x, core_num=8)");
    d->core_num = core_num_expr(core_node, "pl.spmd_submit");
  }
  if (!is_null(deps_node)) d->deps = task_deps(deps_node, fmt::format("'{}'", name));
  // predicate= reads a tensor another task produced: that task's TaskId (the binding that
  // produced it, not a later rebinding of the same name) must be in deps=.
  if (d->predicate) {
    std::function<void(const ExprPtr&)> reads = [&](const ExprPtr& e) {
      if (const auto* b = as<Binary>(e)) {
        reads(b->a);
        reads(b->b);
      } else if (const auto* u = as<Unary>(e)) {
        reads(u->a);
      } else if (const auto* c = as<Call>(e); c && c->op && !c->args.empty()) {
        const auto* v = as<Var>(c->args[0]);
        auto it = v ? produced_by_.find(v->name) : produced_by_.end();
        if (it == produced_by_.end()) return;
        const auto& [tid, gen] = it->second;
        bool listed = false;
        for (const auto& dep : d->deps)
          if (const auto* dv = as<Var>(dep); dv && dv->name == tid && binding_gen_[tid] == gen) listed = true;
        if (!listed)
          fail(n, "E302",
               fmt::format("{} predicate= reads '{}', produced by the task whose TaskId was bound to '{}' there; that "
                           "TaskId is not in deps=",
                           owner, v->name, tid),
               "bind each producer's TaskId to its own name and list it in deps=");
      }
    };
    reads(d->predicate);
  }
  if (!is_null(dumps_node)) {
    for (const auto& t : tensor_names(dumps_node, owner, "dumps", /*dedupe=*/true)) {
      if (std::find(slots.begin(), slots.end(), ExprPtr(t)) == slots.end())
        fail(dumps_node, "E302", fmt::format("{} dumps= entry '{}' is not an argument of this submit", owner, t->name),
             "dumps= names tensors passed to the submitted kernel");
      if (std::find(d->dumps.begin(), d->dumps.end(), t) == d->dumps.end()) d->dumps.push_back(t);
    }
  }
  // pl.dump_tag(t) earlier in the function: the dispatch dumps each tagged tensor it passes.
  for (const auto& s : slots)
    if (auto v = std::dynamic_pointer_cast<const Var>(s))
      if (std::find(dump_tagged_.begin(), dump_tagged_.end(), v) != dump_tagged_.end() &&
          std::find(d->dumps.begin(), d->dumps.end(), v) == d->dumps.end())
        d->dumps.push_back(v);
  std::sort(d->no_dep_args.begin(), d->no_dep_args.end());
  // The callee's symbolic dimensions take the caller's extents: a kernel over [M, N] called with
  // [128, 128] tensors returns [128, 128] here.
  IRMutator subst;
  for (size_t i = 0; i < slots.size(); ++i) {
    const auto* ps = as_shaped(cf.params[i]->type);
    const auto* sa = as_shaped(slots[i]->type);
    if (!ps || !sa || ps->shape.size() != sa->shape.size()) continue;
    for (size_t k = 0; k < ps->shape.size(); ++k) {
      const auto* dv = as<Var>(ps->shape[k]);
      if (!dv) continue;
      auto it = subst.var_map.find(dv);
      if (it == subst.var_map.end()) {
        subst.var_map[dv] = sa->shape[k];
      } else if (deduce::compare_dim(it->second, sa->shape[k]) == deduce::DimEq::Different) {
        fail(i < pos.size() ? pos[i] : n, "E302",
             fmt::format("argument '{}' of '{}' has {} = {} in dimension {}, but an earlier argument has {} = {}",
                         callee.param_names_[i], name, dv->name, deduce::dim_str(sa->shape[k]), k, dv->name,
                         deduce::dim_str(it->second)),
             fmt::format("the arguments of '{}' must agree on its symbolic dimension {}", name, dv->name));
      }
    }
  }
  // A callee local bound once to a constant (`rows = EPOCHS * ROWS_PER_EPOCH`, a shape of what it
  // returns) is that constant here: the local does not exist at the call site.
  struct ConstLocals : IRVisitor {
    std::unordered_map<const Var*, std::pair<ExprPtr, int>> seen;
    void visit_assign(const AssignStmt& a) override {
      auto& [value, count] = seen[a.var.get()];
      value = as<ConstInt>(a.value) ? a.value : nullptr;
      ++count;
      IRVisitor::visit_assign(a);
    }
  } locals;
  if (cf.body) locals.visit(cf.body);
  for (const auto& [v, vc] : locals.seen)
    if (vc.first && vc.second == 1 && !subst.var_map.count(v)) subst.var_map[v] = vc.first;
  std::vector<TypePtr> rts;
  for (const auto& t : cf.return_types) rts.push_back(subst.var_map.empty() ? t : subst.mutate_type(t));
  if (submit) rts.push_back(scalar_type(DataType::TASK_ID));
  TypePtr rt = rts.size() == 1 ? rts[0] : std::make_shared<TupleType>(rts);
  auto call = std::make_shared<Call>(nullptr, name, std::move(slots), std::vector<std::pair<std::string, AttrValue>>{}, rt,
                                     sp(n), std::move(dirs));
  if (!d->empty()) call->dispatch = d;
  return call;
}

// In a @pl.jit function, `self.k` names the jit dependency k: the reference materialises the
// entry and its dependencies as one @pl.program whose methods they become.
FunctionBuilder* FunctionBuilder::jit_dependency(const std::string& name, TSNode at) {
  if (FunctionBuilder* callee = ctx_.find(name); callee && !callee->is_method_) return callee;
  if (auto d = dsl_callee(name, at)) return ctx_.find(*d);
  return nullptr;
}

ExprPtr FunctionBuilder::submit_expr(TSNode n, bool spmd) {
  const char* what = spmd ? "pl.spmd_submit" : "pl.submit";
  auto a = split_args(*this, n);
  if (a.pos.empty())
    fail(n, "E302", fmt::format("{}() takes the kernel first: {}(self.k, args...)", what, what));
  TSNode k = unparen(a.pos[0]);
  std::string dn = dotted_name(k, *file_);
  FunctionBuilder* callee = nullptr;
  if (dn.rfind("self.", 0) == 0 && dn.find('.', 5) == std::string::npos) {
    callee = ctx_.find(dn.substr(5));
    if ((!callee || !callee->is_method_) && !is_method_ && ctx_.is_jit) callee = jit_dependency(dn.substr(5), k);
    if (!callee || (!callee->is_method_ && !(ctx_.is_jit && !is_method_)))
      fail(k, "E200", fmt::format("Function '{}' is not defined in program '{}'", dn.substr(5), ctx_.program_name));
  } else if (is(k, "identifier")) {
    callee = ctx_.find(dn);
    if (!callee)
      if (auto d = dsl_callee(dn, k)) callee = ctx_.find(*d);
    if (!callee || callee->is_method_) fail(k, "E200", fmt::format("'{}' is not a DSL function of this program", dn));
  } else {
    fail(k, "E302", fmt::format("{}() takes the kernel as self.<name>, got '{}'", what, txt(k)));
  }
  std::vector<TSNode> rest(a.pos.begin() + 1, a.pos.end());
  return dispatch_call(*callee, n, rest, a.kw, spmd ? CallForm::SpmdSubmit : CallForm::Submit);
}

std::vector<StmtPtr> FunctionBuilder::dump_tag_stmt(TSNode call) {
  if (fn_->type != FunctionType::Orchestration && fn_->type != FunctionType::Inline)
    fail(call, "E302", "pl.dump_tag() is only valid inside an Orchestration or Inline function",
         "move the pl.dump_tag(...) marker into the orchestration function that dispatches the kernel");
  auto a = split_args(*this, call);
  if (a.pos.size() != 1 || !a.kw.empty())
    fail(call, "E302", "pl.dump_tag() takes exactly one positional argument (no keywords)", "write pl.dump_tag(t)");
  TSNode u = unparen(a.pos[0]);
  if (!is(u, "identifier")) fail(u, "E302", "pl.dump_tag() argument must be a bare variable name", "write pl.dump_tag(q)");
  auto it = names_.find(txt(u));
  if (it == names_.end()) fail(u, "E200", fmt::format("pl.dump_tag() argument '{}' is not defined at this point", txt(u)));
  if (!as_tensor(it->second->type))
    fail(u, "E302", fmt::format("pl.dump_tag() argument '{}' is not a tensor (got {})", txt(u), type_str(it->second->type)));
  if (std::find(dump_tagged_.begin(), dump_tagged_.end(), it->second) == dump_tagged_.end())
    dump_tagged_.push_back(it->second);
  return {};
}

}  // namespace pypto::parser
