// CheckProgramForms — the first pass of the pipeline: rejects, at their source line, the program
// forms the front end accepts (and the IR keeps) but the pass pipeline cannot compile yet, before
// any pass could silently drop what they say:
//   * scope dispatch options: optimizations=[pl.split(...) / pl.cross_core_slot(...)] other than
//     on a pl.at(CORE_GROUP) scope, deps= other than TaskIds / TaskId arrays on a pl.at(CORE_GROUP) scope, no_dep_args=, dumps=, `with ... as tid` on other
//     scopes, allow_early_resolve=, windowize=, sync_start=, predicate= (OutlineIncoreScopes and
//     the SSA conversion would lose them);
//   * pl.split_aiv regions (the mixed-kernel split that consumes them is missing);
//   * task dispatch on calls other than pl.submit with TaskId deps= and pl.no_dep(...) arguments:
//     pl.spmd_submit, dumped arguments (pl.dump_tag / dumps=), allow_early_resolve=, predicate=,
//     device= (the call rewrites would lose them);
//   * function attributes: pl.func_attr / attrs= / external_source= / @pl.jit.extern;
//   * atomic tensor assembles (pl.assemble(..., atomic=...)) in orchestration code (kernels store them);
//   * distributed programs (pld.DistributedTensor and pld.CommCtx values, pld.* ops), and
//     pl.Array values and array.* ops in kernel code (kernel functions, pl.at(CORE_GROUP) bodies;
//     orchestration code keeps them as C++ stack arrays).
// Each is an E501 "not supported yet by the pass pipeline" error naming the form. The program is
// not changed. Forms handled later keep their own checks (other scope kinds are rejected by
// CheckOrchestrationForms, ops without a kernel spelling by the kernel emitter).
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "ir/visitor.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

[[noreturn]] void reject(const Span& sp, const std::string& what, const std::string& hint) {
  throw CompileError("E501", sp, what + " is not supported yet by the pass pipeline", hint);
}

// A TaskId, or an array of them (a dependency on every valid slot).
bool is_task_ids(const TypePtr& t) {
  if (const auto* a = as_array(t)) return a->dtype == DataType::TASK_ID;
  const auto* sc = as_scalar(t);
  return sc && sc->dtype == DataType::TASK_ID;
}

std::string scope_option(const ScopeStmt& s) {
  // A pl.at(CORE_GROUP) scope's mixed-kernel options go to the outlined kernel (ExpandMixedKernel).
  if (s.split && s.scope != ScopeKind::InCore) return fmt::format("optimizations=[pl.split(pl.SplitMode.{})]", to_string(*s.split));
  if (s.slot_num && s.scope != ScopeKind::InCore) return "optimizations=[pl.cross_core_slot(...)]";
  // A pl.at(CORE_GROUP) scope may name its task (`as tid`) and wait on TaskIds (deps=): the
  // outlined kernel's submit carries them.
  // A pl.spmd scope likewise (OutlineClusterScopes hands them, with sync_start= and the
  // scheduling hint allow_early_resolve=, to the kernel call's launch spec).
  const bool kernel_scope = s.scope == ScopeKind::InCore || s.scope == ScopeKind::Spmd;
  if (!s.deps.empty() && !kernel_scope) return "deps=";
  for (const auto& d : kernel_scope ? s.deps : std::vector<ExprPtr>{})
    if (!is_task_ids(d->type)) return "deps= with a value that is not a TaskId or a TaskId array";
  if (!s.no_dep_args.empty()) return "no_dep_args=";
  if (!s.dumps.empty()) return "dumps= (or pl.dump_tag)";
  if (s.task_id && !kernel_scope) return "`with ... as tid`";
  if (s.allow_early_resolve && !kernel_scope) return "allow_early_resolve=True";
  if (s.windowize) return "windowize=True";
  if (s.sync_start && s.scope != ScopeKind::Spmd) return "sync_start=True";
  if (s.predicate) return "predicate=";
  return {};
}

std::string scope_name(const ScopeStmt& s) {
  switch (s.scope) {
    case ScopeKind::InCore:
    case ScopeKind::Hierarchy: return "pl.at";
    case ScopeKind::Spmd: return "pl.spmd";
    case ScopeKind::Cluster: return "pl.cluster";
    case ScopeKind::Runtime: return s.manual ? "pl.manual_scope" : "pl.scope";
    case ScopeKind::SplitAiv: return "pl.split_aiv";
  }
  return "a scope";
}

void check_type(const TypePtr& t, const Span& sp, const std::string& what, bool arrays_ok = false) {
  if (!t) return;
  if (is_distributed(t))
    reject(sp, fmt::format("{} of type pld.DistributedTensor", what), "distributed (pld) programs come with the distributed issue");
  if (is_comm_ctx(t)) reject(sp, fmt::format("{} of type pld.CommCtx", what), "distributed (pld) programs come with the distributed issue");
  if (as_array(t) && !arrays_ok)
    reject(sp, fmt::format("{} of type pl.Array in kernel code", what),
           "arrays live in orchestration code (TaskId arrays for deps=, counters); kernels do not take them yet");
  if (const auto* tu = as_tuple(t))
    for (const auto& e : tu->elems) check_type(e, sp, what, arrays_ok);
}

bool supported_dispatch(const Dispatch& d) {
  if (!d.dumps.empty() || d.predicate || d.device) return false;
  for (const auto& e : d.deps)
    if (!is_task_ids(e->type)) return false;
  return true;
}

class FormChecker : public IRVisitor {
 protected:
  void visit_scope(const ScopeStmt& s) override {
    if (s.scope == ScopeKind::SplitAiv)
      reject(s.span, "a pl.split_aiv region", "write the two lanes' work as one vector kernel for now");
    if (std::string o = scope_option(s); !o.empty())
      reject(s.span, fmt::format("{}(..., {})", scope_name(s), o),
             "drop the option; the dependency / split / dump options come with the manual-dependency and mixed-kernel issues");
    // The header (deps=, core_num=, ...) is evaluated by the code around the scope; the body is the kernel's.
    for (const auto& e : s.header_exprs()) visit(e);
    incore_ += s.scope == ScopeKind::InCore;
    visit(s.body);
    incore_ -= s.scope == ScopeKind::InCore;
  }
  void visit_call(const Call& c) override {
    // pl.submit / pl.spmd_submit of a kernel (its TaskId for later deps=, a launch spec) and
    // pl.no_dep(...) arguments compile; dumps, predicates and device= do not yet.
    if (c.dispatch && !supported_dispatch(*c.dispatch)) {
      const Dispatch& d = *c.dispatch;
      const std::string what = d.submit ? (d.spmd ? "pl.spmd_submit(...)" : "pl.submit(...)")
                               : !d.no_dep_args.empty() ? "a pl.no_dep(...) argument"
                               : !d.dumps.empty()       ? "a dumped argument (pl.dump_tag / dump_vars)"
                                                        : "device= on an orchestrator call";
      reject(c.span, what, "drop the dumped arguments / predicate= / device=; deps=, core_num=, sync_start= and "
                           "allow_early_resolve= compile");
    }
    if (c.is_op("tensor.assemble") && atomic_mode(c) != AtomicMode::None && orchestration_code())
      reject(c.span, fmt::format("pl.assemble(..., atomic=pl.AtomicType.{}) in orchestration code",
                                 std::get<EnumLit>(*c.kwarg("atomic")).member),
             "an atomic accumulation is a kernel's store: put it inside pl.at(level=pl.Level.CORE_GROUP)");
    if (c.op && c.op->family() == "pld")
      reject(c.span, fmt::format("pl.{}", c.op->name), "distributed (pld) programs come with the distributed issue");
    if (c.op && c.op->family() == "array" && !orchestration_code())
      reject(c.span, fmt::format("pl.{} in kernel code", c.op->name),
             "arrays live in orchestration code (TaskId arrays for deps=, counters); kernels do not take them yet");
    check_type(c.type, c.span, fmt::format("a value of pl.{}", c.op ? c.op->name : "self." + c.callee), orchestration_code());
    IRVisitor::visit_call(c);
  }
  void visit_assign(const AssignStmt& s) override {
    IRVisitor::visit_assign(s);
    if (s.var) check_type(s.var->type, s.span, fmt::format("'{}'", s.var->name), orchestration_code());
  }

 public:
  bool kernel_fn = false;  // an InCore / AIV / AIC function

 private:
  int incore_ = 0;  // pl.at(CORE_GROUP) scopes around the statement: kernel code to be
  bool orchestration_code() const { return !kernel_fn && incore_ == 0; }
};

void check_function(const Function& f) {
  if (!f.attrs.empty())
    reject(f.span, fmt::format("function attribute '{}' of '{}'", f.attrs.front().key, f.name),
           f.attrs.front().key == "external_source" || f.attrs.front().key == "aic_source"
               ? "externally written kernels (@pl.jit.extern, external_source=) come with the mixed-kernel issue"
               : "drop pl.func_attr / attrs=; the attributes steer passes the pipeline does not have yet");
  const bool kernel = f.type == FunctionType::InCore || f.type == FunctionType::AIV || f.type == FunctionType::AIC;
  for (size_t i = 0; i < f.params.size(); ++i)  // (arrays: parameters of functions inlined into orchestration code)
    if (f.params[i]) check_type(f.params[i]->type, f.params[i]->span.valid() ? f.params[i]->span : f.span,
                                fmt::format("parameter '{}'", f.params[i]->name), !kernel);
  FormChecker checker;
  checker.kernel_fn = kernel;
  checker.visit_function(f);
}

}  // namespace

Pass check_program_forms_pass() {
  return Pass{"CheckProgramForms",
              "Rejects, at their source line and before any pass could drop them, the forms the front end keeps "
              "but the pipeline cannot compile yet: scope dispatch options (optimizations=, deps=, no_dep_args=, "
              "dumps=, as tid, allow_early_resolve=, windowize=, sync_start=, predicate=), pl.split_aiv regions, "
              "pl.submit / pl.spmd_submit, pl.no_dep, dumped arguments, device=, function attributes and "
              "externally written kernels, pld.DistributedTensor / pld.CommCtx values, the pld ops, "
              "pl.Array values and array ops in kernel code; changes nothing.",
              {{}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                for (const auto& f : p->functions) check_function(*f);
                return p;
              }};
}

}  // namespace pypto::passes
