// Orchestration emitter (orchestration_emitter.h), on top of the shared statement printer
// (c_printer.h). Tensors are ChipTensor handles: a kernel call's results are the Out / InOut
// arguments it was given (ReturnParamsExplicit), loop carries and if results alias the handle
// they carry (the printer's handle map), so every tensor-valued SSA name maps to the C++ name of
// a handle. tensor.create statements are allocated in the batches PlanTensorAllocs planned: one
// alloc_tensors per `alloc_batch`, printed where the batch's first creation stands.
#include "emit/orchestration_emitter.h"

#include <filesystem>
#include <fmt/format.h>

#include <set>
#include <unordered_map>
#include <unordered_set>

#include "emit/c_expr.h"
#include "emit/c_names.h"
#include "emit/c_printer.h"
#include "emit/orchestration_op_table.h"
#include "ir/ir.h"
#include "ir/visitor.h"

namespace pypto::emit {

using namespace ir;

namespace {

// A form a pass, a type rule or a verified property rejects reached the emitter: a pypto bug, not
// a user error.
[[noreturn]] void unreachable(const Span& sp, const std::string& what,
                              std::string_view by = "CheckOrchestrationForms") {
  unreachable_form("orchestration emitter", sp, what, by);
}
constexpr std::string_view kTypeRule = "its type rule";
// Kernel results are their Out / InOut parameters, tensors (CheckKernelForms, ReturnParamsExplicit).
constexpr std::string_view kKernelResults = "ReturnParamsExplicit";


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

// The creations of each alloc_batch, in statement order.
class BatchIndex : public IRVisitor {
 public:
  std::unordered_map<int64_t, std::vector<const AssignStmt*>> batches;

 protected:
  void visit_assign(const AssignStmt& s) override {
    if (const auto* c = as<Call>(s.value); c && c->is_op("tensor.create"))
      if (const auto* b = c->kwarg("alloc_batch"); b && std::get_if<int64_t>(b))
        batches[*std::get_if<int64_t>(b)].push_back(&s);
    IRVisitor::visit_assign(s);
  }
};

class OrchEmitter : CStmtPrinter {
 public:
  OrchEmitter(const Program& p, const Function& f, const std::vector<KernelRef>& k, const EmitOptions& o)
      : CStmtPrinter("orchestration code"), p_(p), f_(f), kernels_(k), opts_(o), function_uses_(uses_in(f.body)) {}

  std::string run() {
    std::string bind;
    int ti = 0, si = 0;
    std::vector<std::string> tensor_params;
    for (const auto& prm : f_.params) {
      if (as_tensor(prm->type)) {
        const std::string n = names_.fresh("ext_" + sanitize_identifier(prm->name));
        names_.bind(prm.get(), n);
        bind_handle(*prm, n);
        tensor_params.push_back(n);
        bind += fmt::format("    const ChipTensor& {} = orch_args.tensor({}).ref();\n", n, ti++);
      } else if (const auto* s = as_scalar(prm->type)) {
        const std::string ty = c_type(s->dtype);
        bind += fmt::format("    {} {} = from_u64<{}>(orch_args.scalar({}));\n", ty, names_.name(prm.get()), ty, si++);
      } else {
        unreachable(prm->span, fmt::format("orchestration parameter '{}' of this type", prm->name));
      }
    }
    // Dynamic dimensions not bound by a scalar parameter come from the tensor descriptors.
    for (const auto& d : descriptor_dims(f_, names_))
      bind += fmt::format("    int64_t {} = (int64_t){}.shapes[{}];\n", names_.name(d.var), tensor_params[d.tensor], d.axis);
    index_.visit_function(f_);
    indent_ = 1;
    closing_return_ = trailing_return(f_.body);  // prints nothing: the outputs are the parameters
    // The calls other tasks name in their compiler edges (AutoDeriveTaskDependencies): each keeps
    // its task's id.
    struct EdgeSources : IRVisitor {
      std::set<const Var*>* out;
      void visit_call(const Call& c) override {
        if (c.dispatch)
          for (const auto& v : c.dispatch->compiler_deps) out->insert(v.get());
        IRVisitor::visit_call(c);
      }
    } es;
    es.out = &edge_sources_;
    es.visit(f_.body);
    for (const auto& s : flatten_body(f_.body)) stmt(s);
    const std::string source =
        f_.span.valid() ? std::filesystem::path(f_.span.filename()).filename().string() : std::string("<ir>");
    std::string out =
        fill_template(load_template(opts_, "orchestration_prologue.cpp.in"), {{"name", f_.name}, {"source", source}});
    out += '\n';
    out += floor_helpers("");
    out += fill_template(load_template(opts_, "orchestration_entry.cpp.in"),
                         {{"arg_count", std::to_string(ti + si)}, {"bind", bind}, {"body", body_}});
    return out;
  }

 private:
  // A runtime scope: PTO2_SCOPE.
  void open_scope(const ScopeStmt& sc) {
    if (sc.scope != ScopeKind::Runtime)
      unreachable(sc.span, fmt::format("a {} scope in orchestration code", to_string(sc.scope)));
    // A runtime scope is transparent to values, a C++ block is not: the scalars its statements
    // bind and later statements read (a loop's next TaskId, yielded after the scope) are
    // declared before it.
    const auto inside = uses_in(sc.body);
    for (const auto& st : flatten_body(sc.body)) {
      std::vector<const Var*> bound;  // what the statement binds: its target, or an if / loop's results
      if (const auto* a = as<AssignStmt>(st)) bound.push_back(a->var.get());
      if (const auto* i = as<IfStmt>(st))
        for (const auto& v : i->return_vars) bound.push_back(v.get());
      if (const auto* l = as<ForStmt>(st))
        for (const auto& v : l->return_vars) bound.push_back(v.get());
      if (const auto* w = as<WhileStmt>(st))
        for (const auto& v : w->return_vars) bound.push_back(v.get());
      for (const Var* v : bound) {
        const auto* t = as_scalar(v->type);
        if (!t || names_.has(v)) continue;
        auto all = function_uses_.find(v);
        auto in = inside.find(v);
        if (all != function_uses_.end() && all->second > (in == inside.end() ? 0 : in->second))
          line(fmt::format("{} {}{{}};", c_type(t->dtype), names_.name(v)));
      }
    }
    line(sc.manual ? "PTO2_SCOPE(PTO2ScopeMode::MANUAL) {" : "PTO2_SCOPE() {");
    ++indent_;
  }
  void close_scope() {
    --indent_;
    line("}");
  }
  void scope(const ScopeStmt& sc) override {
    open_scope(sc);
    stmt(sc.body);
    close_scope();
  }
  // The trailing yield of a loop / if body may sit inside the body's runtime scope.
  bool trailing_scope(const ScopeStmt& sc, const std::vector<const Var*>& targets) override {
    if (!trailing_yield(sc.body)) return false;
    open_scope(sc);
    yielding(sc.body, targets, sc.span);
    close_scope();
    return true;
  }

  void eval(const EvalStmt& s) override {
    const auto* c = as<Call>(s.expr);
    if (c && !c->op) return submit(*c, nullptr, s.span);
    if (c && task_id_op(nullptr, *c, s.span)) return;
    if (c && tensor_op(nullptr, *c, s.span)) return;
    unreachable(s.span, "this expression statement in orchestration code");
  }

  void assign(const AssignStmt& s) override {
    const Var& v = *s.var;
    if (const auto* c = as<Call>(s.value)) {
      if (!c->op) return submit(*c, &v, s.span);
      if (const OrchOpRow* row = find_orchestration_op(*c->op); row && row->form == OrchForm::Create) {
        if (c->kwarg_true("runtime_output")) {  // allocated at its writer's submit: add_output(TensorCreateInfo)
          runtime_outputs_[&v] = &s;
          return;
        }
        return alloc_batch(*c, s.span);
      }
      if (task_id_op(&v, *c, s.span)) return;
      if (array_op(&v, *c, s.span)) return;
      if (launch_query(v, *c, s.span)) return;
      if (tensor_op(&v, *c, s.span)) return;
      unreachable(s.span, fmt::format("pl.{} in orchestration code", c->op->name));
    }
    if (const auto* g = as<TupleGetItem>(s.value)) {
      const auto* tv = as<Var>(g->tuple);
      auto it = tv ? tuples_.find(tv) : tuples_.end();
      if (auto t = tv ? task_ids_.find(tv) : task_ids_.end();
          t != task_ids_.end() && it != tuples_.end() && g->index >= 0 && size_t(g->index) == it->second.size()) {
        return assign_task_id(v, t->second);  // a submit's TaskId
      }
      if (it == tuples_.end() || g->index < 0 || size_t(g->index) >= it->second.size())
        unreachable(s.span, "this tuple element access in orchestration code");  // tuples are kernel results
      bind_handle(v, it->second[g->index]);
      return;
    }
    if (as_tensor(v.type) || as_array(v.type)) return bind_handle(v, handle(s.value));  // a copy: the same buffer
    if (as_scalar(v.type)) return assign_scalar(v, s.value);
    unreachable(s.span, "an assignment of this type in orchestration code");
  }

  // TensorCreateInfo for `v` (declared at the current position); returns the info's name.
  std::string create_info(const Var& v, const Call& c, const Span& sp) {
    const auto* t = as_tensor(v.type);
    if (!t) unreachable(sp, "pl.tensor.create without a tensor result", kTypeRule);
    if (const AttrValue* l = c.kwarg("layout"); l && std::get_if<TensorLayout>(l) && *std::get_if<TensorLayout>(l) != TensorLayout::ND)
      unreachable(sp, "pl.tensor.create with a non-ND layout");
    const auto rt = dtype_runtime_name(t->dtype);
    if (rt.empty()) unreachable(sp, fmt::format("a {} tensor in orchestration code", dtype_name(t->dtype)));
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
    // init_value=: the runtime fills the buffer when it allocates it.
    if (const AttrValue* iv = c.kwarg("init_value"); iv && !std::holds_alternative<std::monostate>(*iv)) {
      std::string value;
      if (const auto* d = std::get_if<double>(iv)) value = fmt::format("{}", *d);
      else if (const auto* i = std::get_if<int64_t>(iv)) value = std::to_string(*i);
      else if (const auto* b = std::get_if<bool>(iv)) value = *b ? "1" : "0";
      else unreachable(sp, "pl.tensor.create with a non-numeric init_value", kTypeRule);
      line(fmt::format("{}.set_initial_value(static_cast<{}>({}));", ci, c_type(t->dtype), value));
    }
    return ci;
  }

  // The alloc_tensors of the batch `c` belongs to, printed at its first creation (the batch's
  // creations are consecutive statements: TensorAllocsPlanned).
  void alloc_batch(const Call& c, const Span& sp) {
    const AttrValue* b = c.kwarg("alloc_batch");
    const auto* id = b ? std::get_if<int64_t>(b) : nullptr;
    if (!id) throw InternalError("orchestration emitter", "a tensor.create without alloc_batch (PlanTensorAllocs sets it)", sp);
    if (!printed_batches_.insert(*id).second) return;
    const auto& batch = index_.batches.at(*id);
    std::vector<std::string> cis;
    for (const auto* a : batch) cis.push_back(create_info(*a->var, *as<Call>(a->value), a->span));
    const std::string alloc = names_.fresh(fmt::format("alloc_{}", *id));
    line(fmt::format("TaskOutputTensors {} = alloc_tensors({});", alloc, fmt::join(cis, ", ")));
    for (size_t i = 0; i < batch.size(); ++i) {
      const std::string& n = names_.name(batch[i]->var.get());
      line(fmt::format("const ChipTensor& {} = {}.get_ref({});", n, alloc, i));
      bind_handle(*batch[i]->var, n);
    }
  }

  // `uint32_t <name>[n] = {...};` from an index list; returns the array's name.
  std::string u32_array(const std::string& base, const ExprPtr& list, const Span& sp) {
    const auto* t = as<MakeTuple>(list);
    if (!t) unreachable(sp, "a non-literal index list in orchestration code");
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
    const std::string& src = handle(c.args[0]);
    const auto* st = as_tensor(c.args[0]->type);
    const size_t rank = st->shape.size();
    const std::string base = dst ? names_.name(dst) : src;
    const std::string call(row->call);
    auto axis = [&](const ExprPtr& e) {
      auto k = const_int_value(e);
      if (!k) unreachable(sp, fmt::format("pl.{} with a non-constant axis", c.op->name));
      return *k < 0 ? *k + static_cast<int64_t>(rank) : *k;
    };
    switch (row->form) {
      case OrchForm::Read:
      case OrchForm::Write: {
        const std::string idx = u32_array(base + "_idx", c.args[1], sp);
        const std::string ty = c_type(st->dtype);
        if (row->form == OrchForm::Read) {
          if (!dst || !as_scalar(dst->type)) unreachable(sp, "pl.tensor.read without a scalar result");
          line(fmt::format("{} {} = {}<{}>({}, {}, {});", c_type(as_scalar(dst->type)->dtype), names_.name(dst), call,
                           ty, src, rank, idx));
        } else {
          line(fmt::format("{}({}, {}, {}, static_cast<{}>({}));", call, src, rank, idx, ty, expr(c.args[2])));
          if (dst) bind_handle(*dst, src);
        }
        return true;
      }
      case OrchForm::Dim:
        if (!dst || !as_scalar(dst->type)) unreachable(sp, "pl.tensor.dim without a scalar result");
        line(fmt::format("int64_t {} = (int64_t){}.{}[{}];", names_.name(dst), src, call, axis(c.args[1])));
        return true;
      default: break;
    }
    if (!dst) return true;  // an unused view
    const std::string v = names_.name(dst);
    switch (row->form) {
      case OrchForm::View: {
        // A valid_shape (args[3]) is metadata for the kernels the view is handed to: the runtime
        // view is the window's shape at its offset.
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
      default: unreachable(sp, fmt::format("pl.{} in orchestration code", c.op->name));
    }
    bind_handle(*dst, v);
    return true;
  }

  // How often each variable is read in `s`.
  static std::unordered_map<const Var*, int> uses_in(const StmtPtr& s) {
    struct Uses : IRVisitor {
      std::unordered_map<const Var*, int> n;
      void visit_var(const Var& v) override { ++n[&v]; }
      void visit_iter_arg(const IterArg& v) override { ++n[&v]; }
    } u;
    if (s) u.visit(s);
    return u.n;
  }

  // The explicit dependencies of the task `params` builds (the array outlives the submit): the
  // valid ones among `deps` (pl.system.task_invalid() / None stands for "no producer").
  // A TaskId array stands for each of its slots.
  void set_dependencies(const std::string& params, const std::vector<ExprPtr>& deps,
                        const std::vector<std::string>& task_ids = {}) {
    const std::string arr = names_.fresh(params + "_deps"), n = names_.fresh(params + "_ndeps");
    int64_t slots = static_cast<int64_t>(task_ids.size());
    for (const auto& d : deps) slots += as_array(d->type) ? as_array(d->type)->extent : 1;
    line(fmt::format("PTO2TaskId {}[{}];", arr, std::max<int64_t>(slots, 1)));
    line(fmt::format("uint32_t {} = 0;", n));
    for (const auto& d : deps) {
      if (const auto* a = as_array(d->type)) {
        line(fmt::format("for (int64_t k = 0; k < {0}; ++k) if ({1}[k].is_valid()) {2}[{3}++] = {1}[k];", a->extent,
                         handle(d), arr, n));
        continue;
      }
      const std::string id = expr(d);
      if (as<Var>(d)) line(fmt::format("if ({0}.is_valid()) {1}[{2}++] = {0};", id, arr, n));
      else line(fmt::format("if (const PTO2TaskId d = {0}; d.is_valid()) {1}[{2}++] = d;", id, arr, n));
    }
    for (const auto& id : task_ids) line(fmt::format("{1}[{2}++] = {0};  // compiler edge", id, arr, n));
    line(fmt::format("{}.set_dependencies({}, {});", params, arr, n));
  }

  // The TaskId ops of manual dependencies: a dummy task (a fan-in of its deps), the invalid id
  // and its test.
  bool task_id_op(const Var* dst, const Call& c, const Span& sp) {
    const OrchOpRow* row = c.op ? find_orchestration_op(*c.op) : nullptr;
    if (!row || (row->form != OrchForm::Dummy && row->form != OrchForm::Invalid && row->form != OrchForm::IsValid))
      return false;
    if (const std::string cm = source_comment(sp); !cm.empty()) line(cm);
    if (row->form == OrchForm::Dummy) {
      const std::string params = names_.fresh(fmt::format("params_t{}", task_count_++));
      line(fmt::format("CoreTaskArgs {};  // a dummy task: waits on its deps, runs nothing", params));
      const auto* deps = c.args.empty() ? nullptr : as<MakeTuple>(c.args[0]);
      if (!deps) unreachable(sp, "pl.system.task_dummy whose deps are not a list", "TypeChecked");
      if (!deps->elems.empty()) set_dependencies(params, deps->elems);
      const std::string submit_call = fmt::format("{}({})", row->call, params);
      if (!dst) return line(submit_call + ";"), true;
      assign_task_id(*dst, submit_call + ".task_id()");
      return true;
    }
    if (!dst) return true;  // an unused id or test
    if (row->form == OrchForm::Invalid) {
      assign_task_id(*dst, std::string(row->call) + "()");
      return true;
    }
    line(fmt::format("const bool {} = {}.{}();", names_.name(dst), expr(c.args[0]), row->call));
    return true;
  }

  // The launch-shape queries: the run's cluster / AIV core count.
  bool launch_query(const Var& dst, const Call& c, const Span& sp) {
    const OrchOpRow* row = c.op ? find_orchestration_op(*c.op) : nullptr;
    if (!row || row->form != OrchForm::Query) return false;
    if (const std::string cm = source_comment(sp); !cm.empty()) line(cm);
    const auto* st = as_scalar(dst.type);
    if (!st) unreachable(sp, fmt::format("pl.{} without a scalar result", c.op->name), kTypeRule);
    line(fmt::format("const {} {} = {}();", c_type(st->dtype), names_.name(&dst), row->call));
    return true;
  }

  // Arrays: a C++ stack array per pl.array.create, updated in place (CheckOrchestrationForms has
  // made sure no older value is read after an update); every value of it is its handle.
  bool array_op(const Var* dst, const Call& c, const Span& sp) {
    const OrchOpRow* row = c.op ? find_orchestration_op(*c.op) : nullptr;
    if (!row || (row->form != OrchForm::ArrayNew && row->form != OrchForm::ArrayGet && row->form != OrchForm::ArraySet))
      return false;
    if (!dst) unreachable(sp, fmt::format("pl.{} with an unused result", c.op->name), "ConvertToSSA");
    if (row->form == OrchForm::ArrayNew) {
      const auto* a = as_array(dst->type);
      if (!a) unreachable(sp, "pl.array.create without an array result", kTypeRule);
      const std::string name = names_.fresh(sanitize_identifier(dst->name));
      if (a->dtype == DataType::TASK_ID)
        line(fmt::format("PTO2TaskId {0}[{1}];  // every slot: no producer yet\n{2}for (int64_t k = 0; k < {1}; ++k) {0}[k] = "
                         "PTO2TaskId::invalid();",
                         name, a->extent, std::string(4 * indent_, ' ')));
      else
        line(fmt::format("{} {}[{}] = {{}};", c_type(a->dtype), name, a->extent));
      bind_handle(*dst, name);
      return true;
    }
    const std::string& h = handle(c.args[0]);
    if (row->form == OrchForm::ArraySet) {
      line(fmt::format("{}[{}] = {};", h, expr(c.args[1]), expr(c.args[2])));
      bind_handle(*dst, h);
      return true;
    }
    const auto* t = as_scalar(dst->type);
    if (!t) unreachable(sp, "pl.array.get_element without a scalar result", kTypeRule);
    const std::string el = fmt::format("{}[{}]", h, expr(c.args[1]));
    if (t->dtype == DataType::TASK_ID) return assign_task_id(*dst, el), true;
    if (names_.has(dst)) return line(fmt::format("{} = {};", names_.name(dst), el)), true;
    line(fmt::format("const {} {} = {};", c_type(t->dtype), names_.name(dst), el));
    return true;
  }

  void assign_task_id(const Var& v, const std::string& tid) {
    if (names_.has(&v)) return line(fmt::format("{} = {};", names_.name(&v), tid));  // declared before its scope
    line(fmt::format("const PTO2TaskId {} = {};", names_.name(&v), tid));
  }

  void submit(const Call& c, const Var* result, const Span& sp) {
    const auto callee = p_.find(c.callee);
    const KernelRef* k = nullptr;
    const KernelRef* mixed_aiv = nullptr;  // a mixed kernel's Group: k is its AIC half
    const auto members = callee ? mixed_group_members(p_, *callee) : std::nullopt;
    for (const auto& r : kernels_) {
      if (callee && r.fn == callee.get()) k = &r;
      if (members && r.fn == members->aic) k = &r;
      if (members && r.fn == members->aiv) mixed_aiv = &r;
    }
    if (!k || (members && !mixed_aiv)) unreachable(sp, fmt::format("a call to '{}' from orchestration code", c.callee));
    if (c.args.size() != callee->params.size())
      unreachable(sp, fmt::format("a call to '{}' with {} arguments for {} parameters", c.callee, c.args.size(),
                                  callee->params.size()),
                  "TypeChecked");
    if (const std::string cm = source_comment(sp); !cm.empty()) line(cm);
    const std::string params = names_.fresh(fmt::format("params_t{}", task_count_++));
    if (mixed_aiv)
      line(fmt::format("CoreTaskArgs {};  // funcs {} + {}: {} (mixed AIC + AIV)", params, k->func_id, mixed_aiv->func_id,
                       callee->name));
    else
      line(fmt::format("CoreTaskArgs {};  // func {}: {} ({})", params, k->func_id, callee->name, k->aic ? "AIC" : "AIV"));
    std::vector<std::string> outs;
    std::vector<const Var*> allocated;  // runtime-allocated outputs, in add_output order
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (!as_tensor(c.args[i]->type)) continue;
      const auto* av = as<Var>(c.args[i]);
      if (auto ro = av ? runtime_outputs_.find(av) : runtime_outputs_.end(); ro != runtime_outputs_.end()) {
        const AssignStmt& cs = *ro->second;
        const std::string ci = create_info(*cs.var, *as<Call>(cs.value), cs.span);
        line(fmt::format("{}.add_output({});", params, ci));
        runtime_outputs_.erase(ro);
        allocated.push_back(av);
        outs.push_back(names_.name(av));  // bound from the submit's TaskOutputTensors below
        continue;
      }
      const std::string& t = handle(c.args[i]);
      line(fmt::format("{}.{}({});", params, add_method(tensor_arg_direction(c, *callee, i)), t));
      if (callee->param_directions[i] != ParamDirection::In) outs.push_back(t);
    }
    for (size_t i = 0; i < c.args.size(); ++i) {
      const auto* ps = as_scalar(callee->params[i]->type);
      if (!ps) {
        if (!as_tensor(c.args[i]->type)) unreachable(c.args[i]->span, "a kernel argument of this type", "CheckKernelForms");
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
    // The launch spec (pl.spmd / spmd_submit: block count, sync start) and the scheduling hint.
    if (c.dispatch && c.dispatch->core_num)
      line(fmt::format("{}.launch_spec.{}(static_cast<int16_t>({}));", params, soc_info(opts_.soc).launch_width_setter,
                       expr(c.dispatch->core_num)));
    if (c.dispatch && c.dispatch->sync_start) line(fmt::format("{}.launch_spec.set_require_sync_start(true);", params));
    if (c.dispatch && c.dispatch->allow_early_resolve) line(fmt::format("{}.set_allow_early_resolve(true);", params));
    // deps= and the compiler's edges: the TaskIds the task waits on besides the tensor-derived ones.
    std::vector<std::string> edges;
    if (c.dispatch)
      for (const auto& v : c.dispatch->compiler_deps) {
        auto it = task_ids_.find(v.get());
        if (it == task_ids_.end()) unreachable(sp, fmt::format("a compiler edge to '{}', which is no earlier task", v->name), "AutoDeriveTaskDependencies");
        edges.push_back(it->second);
      }
    if (c.dispatch && (!c.dispatch->deps.empty() || !edges.empty())) set_dependencies(params, c.dispatch->deps, edges);
    std::string submit_call =
        fmt::format("{}({}, {})", k->aic ? "rt_submit_aic_task" : "rt_submit_aiv_task", k->func_id, params);
    if (mixed_aiv) {  // one task on a core group: the AIC half and one AIV lane
      const std::string mk = names_.fresh(params + "_kernels");
      const std::string lane1 = members->aiv_lanes == 2 ? std::to_string(mixed_aiv->func_id) : "INVALID_KERNEL_ID";
      line(fmt::format("const MixedKernels {}{{{}, {}, {}}};", mk, k->func_id, mixed_aiv->func_id, lane1));
      submit_call = fmt::format("rt_submit_task({}, {})", mk, params);
    }
    if (!allocated.empty()) {  // the submit returns the tensors the runtime allocated for it
      const std::string o = names_.fresh(params + "_outs");
      line(fmt::format("TaskOutputTensors {} = {};", o, submit_call));
      for (size_t j = 0; j < allocated.size(); ++j) {
        line(fmt::format("const ChipTensor& {} = {}.get_ref({});", names_.name(allocated[j]), o, j));
        bind_handle(*allocated[j], names_.name(allocated[j]));
      }
      submit_call = o;
    }
    if (c.dispatch && c.dispatch->submit) {  // `as tid`: the task's id, the last result
      const std::string tid = names_.fresh(params + "_id");
      line(fmt::format("[[maybe_unused]] const PTO2TaskId {} = {}.task_id();", tid, submit_call));  // deps-only: unread
      if (!result) return;
      if (as_scalar(result->type)) return assign_task_id(*result, tid);
      if (!as_tuple(result->type))
        unreachable(sp, "a submit whose result is not its TaskId or a tuple ending with it", kKernelResults);
      tuples_[result] = outs;
      task_ids_[result] = tid;
      return;
    }
    if (result && edge_sources_.count(result)) {  // a later task's compiler edge names this one
      const std::string tid = names_.fresh(params + "_id");
      line(fmt::format("const PTO2TaskId {} = {}.task_id();", tid, submit_call));
      task_ids_[result] = tid;
    } else if (allocated.empty()) {
      line(submit_call + ";");
    }
    if (!result) return;
    if (as_tensor(result->type)) {
      if (outs.empty())
        unreachable(sp, fmt::format("'{}' returns a tensor but has no Out / InOut parameter", c.callee), kKernelResults);
      bind_handle(*result, outs[0]);
    } else if (as_tuple(result->type)) {
      tuples_[result] = outs;
    } else {
      unreachable(sp, "a kernel call whose result is not a tensor or a tuple of tensors", kKernelResults);
    }
  }

  const Program& p_;
  const Function& f_;
  const std::vector<KernelRef>& kernels_;
  const EmitOptions& opts_;
  int task_count_ = 0;
  std::set<const Var*> edge_sources_;  // calls named by compiler edges
  std::unordered_map<const Var*, std::string> task_ids_;  // a submit's result tuple → its TaskId variable
  const std::unordered_map<const Var*, int> function_uses_;  // reads of each variable in the function
  std::unordered_map<const Var*, std::vector<std::string>> tuples_;
  BatchIndex index_;                            // alloc_batch → its creations
  // runtime_output creations not yet submitted (PlanTensorAllocs leaves them out of every batch)
  std::unordered_map<const Var*, const AssignStmt*> runtime_outputs_;
  std::unordered_set<int64_t> printed_batches_;
};

}  // namespace

std::string emit_orchestration(const Program& p, const Function& orch, const std::vector<KernelRef>& kernels,
                               const EmitOptions& opts) {
  return OrchEmitter(p, orch, kernels, opts).run();
}

}  // namespace pypto::emit
