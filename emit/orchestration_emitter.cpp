// Orchestration emitter (orchestration_emitter.h). Tensors are ChipTensor handles: a kernel call's
// results are the Out / InOut arguments it was given (ReturnParamsExplicit), loop carries and
// if results alias the handle they carry, so every tensor-valued SSA name maps to the C++ name
// of a handle. The tensor.create statements of a runtime scope are allocated by one batched
// alloc_tensors at the top of the scope.
#include "emit/orchestration_emitter.h"

#include <filesystem>
#include <fmt/format.h>
#include <unordered_map>
#include <unordered_set>

#include "emit/c_expr.h"
#include "emit/c_names.h"
#include "emit/orchestration_op_table.h"
#include "ir/ir.h"

namespace pypto::emit {

using namespace ir;

namespace {


std::string_view add_method(ArgDirection d) {
  switch (d) {
    case ArgDirection::input: return "add_input";
    case ArgDirection::output:
    case ArgDirection::output_existing: return "add_output";
    case ArgDirection::inout: return "add_inout";
    case ArgDirection::no_dep: return "add_no_dep";
    case ArgDirection::scalar: break;
  }
  return "";
}

class OrchEmitter {
 public:
  OrchEmitter(const Program& p, const Function& f, const std::vector<KernelRef>& k, const EmitOptions& o)
      : p_(p), f_(f), kernels_(k), opts_(o) {}

  std::string run() {
    std::string bind;
    int ti = 0, si = 0;
    for (const auto& prm : f_.params) {
      if (as_tensor(prm->type)) {
        const std::string n = names_.fresh("ext_" + sanitize_identifier(prm->name));
        names_.bind(prm.get(), n);
        tensor_[prm.get()] = n;
        bind += fmt::format("    const ChipTensor& {} = orch_args.tensor({}).ref();\n", n, ti++);
      } else if (const auto* s = as_scalar(prm->type)) {
        const std::string ty = c_type(s->dtype);
        bind += fmt::format("    {} {} = from_u64<{}>(orch_args.scalar({}));\n", ty, names_.name(prm.get()), ty, si++);
      } else {
        not_supported(prm->span, fmt::format("orchestration parameter '{}' of this type", prm->name));
      }
    }
    // Dynamic dimensions not bound by a scalar parameter come from the tensor descriptors.
    for (const auto& prm : f_.params) {
      const auto* t = as_tensor(prm->type);
      if (!t) continue;
      for (size_t a = 0; a < t->shape.size(); ++a) {
        const auto* v = as<Var>(t->shape[a]);
        if (!v) {
          if (!const_int_value(t->shape[a]))
            not_supported(prm->span, fmt::format("a computed dimension of parameter '{}'", prm->name));
          continue;
        }
        if (names_.has(v)) continue;
        bind += fmt::format("    int64_t {} = (int64_t){}.shapes[{}];\n", names_.name(v), tensor_.at(prm.get()), a);
      }
    }
    if (ti > 256 || si > 128)
      throw CompileError("E903", f_.span,
                         fmt::format("'{}' has {} tensor and {} scalar parameters; the entry takes at most 256 tensors "
                                     "and 128 scalars", f_.name, ti, si));
    indent_ = 1;
    const auto stmts = flatten_body(f_.body);
    for (size_t i = 0; i < stmts.size(); ++i) {
      if (i + 1 == stmts.size() && as<ReturnStmt>(stmts[i])) break;
      stmt(stmts[i]);
    }
    const std::string source =
        f_.span.valid() ? std::filesystem::path(f_.span.filename()).filename().string() : std::string("<ir>");
    std::string out =
        fill_template(load_template(opts_, "orchestration_prologue.cpp.in"), {{"name", f_.name}, {"source", source}});
    out += '\n';
    out += floor_helpers("");
    out += "\nextern \"C\" {\n\n";
    out += "__attribute__((visibility(\"default\")))\n"
           "PTO2OrchestrationConfig aicpu_orchestration_config(const ChipTaskArgs& orch_args) {\n"
           "    (void)orch_args;\n";
    out += fmt::format("    return PTO2OrchestrationConfig{{.expected_arg_count = {}}};\n}}\n\n", ti + si);
    out += "__attribute__((visibility(\"default\")))\n"
           "void aicpu_orchestration_entry(const ChipTaskArgs& orch_args) {\n";
    if (ti + si == 0) out += "    (void)orch_args;\n";
    out += bind;
    out += body_;
    out += "}\n\n}  // extern \"C\"\n";
    return out;
  }

 private:
  void line(const std::string& s) { body_ += std::string(4 * indent_, ' ') + s + "\n"; }

  std::string expr(const ExprPtr& e) {
    return c_expr(e, [this](const Var& v) -> std::string {
      if (!names_.has(&v)) not_supported(v.span, fmt::format("use of '{}' before its definition", v.name));
      return names_.name(&v);
    });
  }

  const std::string& tensor_name(const ExprPtr& e) {
    const auto* v = as<Var>(e);
    auto it = v ? tensor_.find(v) : tensor_.end();
    if (it == tensor_.end())
      not_supported(e->span, "a tensor argument that is not a variable bound in orchestration code");
    return it->second;
  }

  void stmt(const StmtPtr& s) {
    switch (s->kind) {
      case NodeKind::SeqStmts:
        for (const auto& c : flatten_body(s)) stmt(c);
        return;
      case NodeKind::ScopeStmt: {
        const auto& sc = static_cast<const ScopeStmt&>(*s);
        if (sc.scope != ScopeKind::Runtime)
          not_supported(s->span, fmt::format("a {} scope in orchestration code", to_string(sc.scope)),
                        "run the full pass pipeline (it outlines kernels and materialises runtime scopes)");
        line(sc.manual ? "PTO2_SCOPE(PTO2ScopeMode::MANUAL) {" : "PTO2_SCOPE() {");
        ++indent_;
        batch_creates(sc.body);
        stmt(sc.body);
        --indent_;
        line("}");
        return;
      }
      case NodeKind::AssignStmt: return assign(static_cast<const AssignStmt&>(*s));
      case NodeKind::EvalStmt: {
        const auto* c = as<Call>(static_cast<const EvalStmt&>(*s).expr);
        if (c && !c->op) return submit(*c, nullptr, s->span);
        if (c && tensor_op(nullptr, *c, s->span)) return;
        not_supported(s->span, "this expression statement in orchestration code");
      }
      case NodeKind::ForStmt: return for_stmt(static_cast<const ForStmt&>(*s));
      case NodeKind::IfStmt: return if_stmt(static_cast<const IfStmt&>(*s));
      case NodeKind::YieldStmt: return;  // handled by the enclosing for / if
      case NodeKind::ReturnStmt: not_supported(s->span, "an early return in orchestration code");
      default: not_supported(s->span, "this statement in orchestration code");
    }
  }

  void assign(const AssignStmt& s) {
    const Var& v = *s.var;
    if (const auto* c = as<Call>(s.value)) {
      if (!c->op) return submit(*c, &v, s.span);
      if (const OrchOpRow* row = find_orchestration_op(*c->op); row && row->form == OrchForm::Create) {
        if (batched_.count(&s)) return;  // allocated at the top of its scope
        return create(v, *c, s.span);
      }
      if (tensor_op(&v, *c, s.span)) return;
      not_supported(s.span, fmt::format("pl.{} in orchestration code", c->op->name));
    }
    if (const auto* g = as<TupleGetItem>(s.value)) {
      const auto* tv = as<Var>(g->tuple);
      auto it = tv ? tuples_.find(tv) : tuples_.end();
      if (it == tuples_.end() || g->index < 0 || size_t(g->index) >= it->second.size())
        not_supported(s.span, "this tuple element access in orchestration code");
      tensor_[&v] = it->second[g->index];
      return;
    }
    if (as_tensor(v.type)) {
      tensor_[&v] = tensor_name(s.value);
      return;
    }
    if (const auto* sc = as_scalar(v.type)) {
      const std::string val = expr(s.value);
      if (names_.has(&v)) return line(fmt::format("{} = {};", names_.name(&v), val));
      return line(fmt::format("{} {} = {};", c_type(sc->dtype), names_.name(&v), val));
    }
    not_supported(s.span, "an assignment of this type in orchestration code");
  }

  // The tensor.create of an assignment with static shape, or nullptr.
  static const Call* static_create(const Stmt& st) {
    const auto* a = as<AssignStmt>(&st);
    const auto* c = a ? as<Call>(a->value) : nullptr;
    const OrchOpRow* row = c && c->op ? find_orchestration_op(*c->op) : nullptr;
    if (!row || row->form != OrchForm::Create) return nullptr;
    const auto* t = as_tensor(a->var->type);
    return t && static_shape(t->shape) ? c : nullptr;
  }

  // TensorCreateInfo for `v` (declared at the current position); returns the info's name.
  std::string create_info(const Var& v, const Call& c, const Span& sp) {
    const auto* t = as_tensor(v.type);
    if (!t) not_supported(sp, "pl.tensor.create without a tensor result");
    if (const AttrValue* l = c.kwarg("layout"); l && std::get_if<TensorLayout>(l) && *std::get_if<TensorLayout>(l) != TensorLayout::ND)
      not_supported(sp, "pl.tensor.create with a non-ND layout");
    const auto rt = dtype_runtime_name(t->dtype);
    if (rt.empty()) not_supported(sp, fmt::format("a {} tensor in orchestration code", dtype_name(t->dtype)));
    std::vector<std::string> dims;
    for (const auto& d : t->shape) {
      auto k = const_int_value(d);
      dims.push_back(k ? std::to_string(*k) : fmt::format("static_cast<uint32_t>({})", expr(d)));
    }
    if (const std::string cm = source_comment(sp); !cm.empty()) line(cm);
    const std::string n = names_.name(&v);
    const std::string shapes = names_.fresh(n + "_ci_shapes"), ci = names_.fresh(n + "_ci");
    line(fmt::format("uint32_t {}[{}] = {{{}}};", shapes, dims.size(), fmt::join(dims, ", ")));
    line(fmt::format("TensorCreateInfo {}({}, {}, DataType::{});", ci, shapes, dims.size(), rt));
    return ci;
  }

  // One batched alloc_tensors at the top of a runtime scope for the scope's own tensor.create
  // statements with static shapes (output-format.md §4); they are skipped where they stand.
  void batch_creates(const StmtPtr& body) {
    std::vector<const AssignStmt*> batch;
    for (const auto& st : flatten_body(body))
      if (static_create(*st)) batch.push_back(static_cast<const AssignStmt*>(st.get()));
    if (batch.empty()) return;
    std::vector<std::string> cis;
    for (const auto* a : batch) cis.push_back(create_info(*a->var, *as<Call>(a->value), a->span));
    const std::string alloc = names_.fresh(fmt::format("alloc_{}", alloc_count_++));
    line(fmt::format("TaskOutputTensors {} = alloc_tensors({});", alloc, fmt::join(cis, ", ")));
    for (size_t i = 0; i < batch.size(); ++i) {
      const std::string& n = names_.name(batch[i]->var.get());
      line(fmt::format("const ChipTensor& {} = {}.get_ref({});", n, alloc, i));
      tensor_[batch[i]->var.get()] = n;
      batched_.insert(batch[i]);
    }
  }

  void create(const Var& v, const Call& c, const Span& sp) {
    const std::string ci = create_info(v, c, sp);
    const std::string alloc = names_.fresh(fmt::format("alloc_{}", alloc_count_++));
    line(fmt::format("TaskOutputTensors {} = alloc_tensors({});", alloc, ci));
    line(fmt::format("const ChipTensor& {} = {}.get_ref(0);", names_.name(&v), alloc));
    tensor_[&v] = names_.name(&v);
  }

  // `uint32_t <name>[n] = {...};` from an index list; returns the array's name.
  std::string u32_array(const std::string& base, const ExprPtr& list, const Span& sp) {
    const auto* t = as<MakeTuple>(list);
    if (!t) not_supported(sp, "a non-literal index list in orchestration code");
    std::vector<std::string> v;
    for (const auto& e : t->elems) {
      auto k = const_int_value(e);
      v.push_back(k ? std::to_string(*k) : fmt::format("static_cast<uint32_t>({})", expr(e)));
    }
    const std::string n = names_.fresh(base);
    line(fmt::format("uint32_t {}[{}] = {{{}}};", n, v.size(), fmt::join(v, ", ")));
    return n;
  }

  // Tensor views and element access on ChipTensor handles (output-format.md §4 "views",
  // "scalar element access"). Returns false for ops that are not handled here.
  bool tensor_op(const Var* dst, const Call& c, const Span& sp) {
    const OrchOpRow* row = c.op ? find_orchestration_op(*c.op) : nullptr;
    if (!row || row->form == OrchForm::Create) return false;
    if (const std::string cm = source_comment(sp); !cm.empty()) line(cm);
    const std::string& src = tensor_name(c.args[0]);
    const auto* st = as_tensor(c.args[0]->type);
    const size_t rank = st->shape.size();
    const std::string base = dst ? names_.name(dst) : src;
    const std::string call(row->call);
    auto axis = [&](const ExprPtr& e) {
      auto k = const_int_value(e);
      if (!k) not_supported(sp, fmt::format("pl.{} with a non-constant axis", c.op->name));
      return *k < 0 ? *k + static_cast<int64_t>(rank) : *k;
    };
    switch (row->form) {
      case OrchForm::Read:
      case OrchForm::Write: {
        const std::string idx = u32_array(base + "_idx", c.args[1], sp);
        const std::string ty = c_type(st->dtype);
        if (row->form == OrchForm::Read) {
          if (!dst || !as_scalar(dst->type)) not_supported(sp, "pl.tensor.read without a scalar result");
          line(fmt::format("{} {} = {}<{}>({}, {}, {});", c_type(as_scalar(dst->type)->dtype), names_.name(dst), call,
                           ty, src, rank, idx));
        } else {
          line(fmt::format("{}({}, {}, {}, static_cast<{}>({}));", call, src, rank, idx, ty, expr(c.args[2])));
          if (dst) tensor_[dst] = src;
        }
        return true;
      }
      case OrchForm::Dim:
        if (!dst || !as_scalar(dst->type)) not_supported(sp, "pl.tensor.dim without a scalar result");
        line(fmt::format("int64_t {} = (int64_t){}.{}[{}];", names_.name(dst), src, call, axis(c.args[1])));
        return true;
      default: break;
    }
    if (!dst) return true;  // an unused view
    const std::string v = names_.name(dst);
    switch (row->form) {
      case OrchForm::View: {
        if (c.args.size() > 3 && c.args[3]) not_supported(sp, "pl.tensor.slice with a valid_shape in orchestration code");
        const std::string shapes = u32_array(v + "_shapes", c.args[1], sp);
        const std::string offsets = u32_array(v + "_offsets", c.args[2], sp);
        line(fmt::format("const ChipTensor {} = {}.{}({}, {});", v, src, call, shapes, offsets));
        break;
      }
      case OrchForm::Reshape: {
        const std::string shapes = u32_array(v + "_shapes", c.args[1], sp);
        line(fmt::format("const ChipTensor {} = {}.{}({}, {});", v, src, call, shapes,
                         as<MakeTuple>(c.args[1])->elems.size()));
        break;
      }
      case OrchForm::Transpose:
        line(fmt::format("const ChipTensor {} = {}.{}({}, {});", v, src, call, axis(c.args[1]), axis(c.args[2])));
        break;
      default: not_supported(sp, fmt::format("pl.{} in orchestration code", c.op->name));
    }
    tensor_[dst] = v;
    return true;
  }

  void submit(const Call& c, const Var* result, const Span& sp) {
    const auto callee = p_.find(c.callee);
    const KernelRef* k = nullptr;
    for (const auto& r : kernels_)
      if (callee && r.fn == callee.get()) k = &r;
    if (!k) not_supported(sp, fmt::format("a call to '{}' from orchestration code", c.callee));
    if (c.args.size() != callee->params.size())
      throw CompileError("E900", sp, fmt::format("call to '{}' passes {} arguments for {} parameters", c.callee,
                                                 c.args.size(), callee->params.size()));
    if (const std::string cm = source_comment(sp); !cm.empty()) line(cm);
    const std::string params = names_.fresh(fmt::format("params_t{}", task_count_++));
    line(fmt::format("CoreTaskArgs {};  // func {}: {} ({})", params, k->func_id, callee->name, k->aic ? "AIC" : "AIV"));
    std::vector<std::string> outs;
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (!as_tensor(c.args[i]->type)) continue;
      const std::string& t = tensor_name(c.args[i]);
      line(fmt::format("{}.{}({});", params, add_method(tensor_arg_direction(c, *callee, i)), t));
      if (callee->param_directions[i] != ParamDirection::In) outs.push_back(t);
    }
    for (size_t i = 0; i < c.args.size(); ++i) {
      const auto* ps = as_scalar(callee->params[i]->type);
      if (!ps) {
        if (!as_tensor(c.args[i]->type)) not_supported(c.args[i]->span, "a kernel argument of this type");
        continue;
      }
      std::string val = expr(c.args[i]);
      if (!as<Var>(c.args[i]) && !as<ConstInt>(c.args[i]) && !as<ConstFloat>(c.args[i]) && !as<ConstBool>(c.args[i])) {
        const std::string local = names_.fresh(sanitize_identifier(callee->params[i]->name) + "_arg");
        line(fmt::format("const {} {} = {};", c_type(ps->dtype), local, val));
        val = local;
      }
      line(fmt::format("{}.add_scalar(to_u64(static_cast<{}>({})));", params, c_type(ps->dtype), val));
    }
    line(fmt::format("{}({}, {});", k->aic ? "rt_submit_aic_task" : "rt_submit_aiv_task", k->func_id, params));
    if (!result) return;
    if (as_tensor(result->type)) {
      if (outs.empty()) not_supported(sp, fmt::format("'{}' returns a tensor but has no Out / InOut parameter", c.callee));
      tensor_[result] = outs[0];
    } else if (as_tuple(result->type)) {
      tuples_[result] = outs;
    } else {
      not_supported(sp, "a kernel call whose result is not a tensor or a tuple of tensors");
    }
  }

  void carry_in(const Var& ia, const ExprPtr& init, const Span& sp) {
    if (as_tensor(ia.type)) {
      tensor_[&ia] = tensor_name(init);
    } else if (const auto* sc = as_scalar(ia.type)) {
      line(fmt::format("{} {} = {};", c_type(sc->dtype), names_.name(&ia), expr(init)));
    } else {
      not_supported(sp, "a loop-carried value of this type in orchestration code");
    }
  }

  // The yield at the end of `body` (possibly inside its runtime scope).
  static const YieldStmt* trailing_yield(const StmtPtr& body) {
    auto stmts = flatten_body(body);
    while (!stmts.empty()) {
      if (const auto* y = as<YieldStmt>(stmts.back())) return y;
      const auto* sc = as<ScopeStmt>(stmts.back());
      if (!sc) return nullptr;
      stmts = flatten_body(sc->body);
    }
    return nullptr;
  }

  // Emits the carry updates of the trailing yield at the current position (the yield is the last
  // statement, so this runs after the rest of the body).
  void yield_updates(const YieldStmt* y, const std::vector<const Var*>& targets, const Span& sp) {
    if (!y) {
      if (!targets.empty()) not_supported(sp, "a loop / if with results but no trailing yield");
      return;
    }
    std::vector<std::pair<std::string, std::string>> assigns;
    for (size_t k = 0; k < targets.size() && k < y->values.size(); ++k) {
      const Var& t = *targets[k];
      if (as_tensor(t.type)) {
        const std::string& yielded = tensor_name(y->values[k]);
        auto it = tensor_.find(&t);
        if (it == tensor_.end()) tensor_[&t] = yielded;  // an if result: the first arm binds it
        else if (it->second != yielded)
          not_supported(y->span, "a loop / if that carries a tensor rebound to another buffer");
      } else if (const auto* sc = as_scalar(t.type)) {
        const std::string tmp = names_.fresh(names_.name(&t) + "_next");
        line(fmt::format("const {} {} = {};", c_type(sc->dtype), tmp, expr(y->values[k])));
        assigns.emplace_back(names_.name(&t), tmp);
      }
    }
    for (const auto& [t, tmp] : assigns) line(fmt::format("{} = {};", t, tmp));
  }

  // Body whose trailing yield may sit inside its runtime scope: emit the statements, placing the
  // carry updates where the yield is.
  void body_with_yield(const StmtPtr& body, const std::vector<const Var*>& targets, const Span& sp) {
    pending_targets_.push_back(targets);
    pending_span_.push_back(sp);
    emit_yielding(body);
    pending_targets_.pop_back();
    pending_span_.pop_back();
  }
  void emit_yielding(const StmtPtr& body) {
    const auto stmts = flatten_body(body);
    for (size_t i = 0; i < stmts.size(); ++i) {
      const bool last = i + 1 == stmts.size();
      if (last && as<YieldStmt>(stmts[i])) {
        yield_updates(as<YieldStmt>(stmts[i]), pending_targets_.back(), pending_span_.back());
      } else if (last && as<ScopeStmt>(stmts[i]) && trailing_yield(stmts[i])) {
        const auto& sc = static_cast<const ScopeStmt&>(*stmts[i]);
        if (sc.scope != ScopeKind::Runtime) not_supported(sc.span, "this scope in orchestration code");
        line(sc.manual ? "PTO2_SCOPE(PTO2ScopeMode::MANUAL) {" : "PTO2_SCOPE() {");
        ++indent_;
        batch_creates(sc.body);
        emit_yielding(sc.body);
        --indent_;
        line("}");
      } else {
        stmt(stmts[i]);
      }
    }
  }

  void for_stmt(const ForStmt& s) {
    if (s.kind == ForKind::Unroll || s.kind == ForKind::Pipeline)
      not_supported(s.span, fmt::format("a pl.{} loop in orchestration code", to_string(s.kind)));
    if (const std::string cm = source_comment(s.span); !cm.empty()) line(cm);
    std::vector<const Var*> targets;
    for (const auto& ia : s.iter_args) {
      carry_in(*ia, ia->init, s.span);
      targets.push_back(ia.get());
    }
    const std::string i = names_.name(s.loop_var.get());
    const auto step = const_int_value(s.step);
    line(fmt::format("for (int64_t {0} = {1}; {0} {2} {3}; {0} += {4}) {{", i, expr(s.start),
                     step && *step < 0 ? ">" : "<", expr(s.stop), expr(s.step)));
    ++indent_;
    body_with_yield(s.body, targets, s.span);
    --indent_;
    line("}");
    for (size_t k = 0; k < s.return_vars.size() && k < s.iter_args.size(); ++k) bind_result(*s.return_vars[k], *s.iter_args[k]);
  }

  void bind_result(const Var& rv, const Var& from) {
    if (as_tensor(rv.type)) tensor_[&rv] = tensor_.at(&from);
    else if (const auto* sc = as_scalar(rv.type)) line(fmt::format("{} {} = {};", c_type(sc->dtype), names_.name(&rv), names_.name(&from)));
  }

  void if_stmt(const IfStmt& s) {
    if (const std::string cm = source_comment(s.span); !cm.empty()) line(cm);
    std::vector<const Var*> targets;
    for (const auto& rv : s.return_vars) {
      targets.push_back(rv.get());
      if (as_tensor(rv->type)) {
        // bound by the first arm's yield; the other arm must yield the same handle
      } else if (const auto* sc = as_scalar(rv->type)) {
        line(fmt::format("{} {}{{}};", c_type(sc->dtype), names_.name(rv.get())));
      } else {
        not_supported(s.span, "an if result of this type in orchestration code");
      }
    }
    line(fmt::format("if ({}) {{", expr(s.cond)));
    ++indent_;
    body_with_yield(s.then_body, targets, s.span);
    --indent_;
    if (s.else_body) {
      const size_t before_else = body_.size();
      line("} else {");
      const size_t else_start = body_.size();
      ++indent_;
      body_with_yield(s.else_body, targets, s.span);
      --indent_;
      // An else arm that only yields the incoming handles (a phi SSA conversion added) emits
      // nothing: drop the empty `else {}`.
      if (body_.size() == else_start) body_.resize(before_else);
    }
    line("}");
  }

  const Program& p_;
  const Function& f_;
  const std::vector<KernelRef>& kernels_;
  const EmitOptions& opts_;
  NameTable names_;
  std::string body_;
  int indent_ = 1;
  int task_count_ = 0, alloc_count_ = 0;
  std::unordered_map<const Var*, std::string> tensor_;
  std::unordered_map<const Var*, std::vector<std::string>> tuples_;
  std::unordered_set<const AssignStmt*> batched_;
  std::vector<std::vector<const Var*>> pending_targets_;
  std::vector<Span> pending_span_;
};

}  // namespace

std::string emit_orchestration(const Program& p, const Function& orch, const std::vector<KernelRef>& kernels,
                               const EmitOptions& opts) {
  return OrchEmitter(p, orch, kernels, opts).run();
}

}  // namespace pypto::emit
