// ExpandMixedKernel — classifies every InCore function by the cores its work needs: op affinity
// from the registry (vector / cube) and the memory spaces of its tiles (Vec → vector; Mat, Left,
// Right, Acc, Bias → cube). Vector-only kernels become AIV functions, cube-only kernels AIC
// functions (level AIV / AIC, role SubWorker); a kernel doing neither is AIV. Kernels that need
// both are split into AIC + AIV + Group in the reference; that is reported as "mixed AIC+AIV
// kernels are not supported yet". Produces MixedKernelExpanded.
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

bool is_cube_space(MemorySpace s) {
  return s == MemorySpace::Mat || s == MemorySpace::Left || s == MemorySpace::Right || s == MemorySpace::Acc ||
         s == MemorySpace::Bias || s == MemorySpace::LeftScale || s == MemorySpace::RightScale;
}

class Classifier : public IRVisitor {
 public:
  Span vector_at, cube_at;
  bool vector = false, cube = false;
  void note_type(const TypePtr& t, const Span& at) {
    const auto* tl = as_tile(t);
    if (!tl || !tl->space) return;
    if (*tl->space == MemorySpace::Vec) mark(false, at);
    else if (is_cube_space(*tl->space)) mark(true, at);
  }
  void mark(bool is_cube, const Span& at) {
    if (is_cube && !cube) cube = true, cube_at = at;
    if (!is_cube && !vector) vector = true, vector_at = at;
  }

 protected:
  void visit_assign(const AssignStmt& s) override {
    note_type(s.var->type, s.span);
    if (const auto* c = as<Call>(s.value); c && c->op) {
      if (call_affinity(*c) == CoreAffinity::Vector) mark(false, s.span);
      if (call_affinity(*c) == CoreAffinity::Cube) mark(true, s.span);
    }
    IRVisitor::visit_assign(s);
  }
  void visit_eval(const EvalStmt& s) override {
    if (const auto* c = as<Call>(s.expr); c && c->op) {
      if (call_affinity(*c) == CoreAffinity::Vector) mark(false, s.span);
      if (call_affinity(*c) == CoreAffinity::Cube) mark(true, s.span);
    }
    IRVisitor::visit_eval(s);
  }
};

FunctionPtr expand_function(const FunctionPtr& f) {
  if (f->type != FunctionType::InCore) return f;
  Classifier c;
  c.visit_function(*f);
  if (c.vector && c.cube) {
    CompileError err("E504", f->span,
                     fmt::format("kernel '{}' uses both cube and vector units: mixed AIC+AIV kernels are not "
                                 "supported yet", f->name),
                     "split the work into a cube kernel (Mat/Left/Right/Acc tiles, matmul) and a vector "
                     "kernel (Vec tiles) that exchange data through a tensor");
    auto diags = err.diagnostics();
    diags[0].notes.push_back({c.cube_at, "cube work here"});
    diags[0].notes.push_back({c.vector_at, "vector work here"});
    throw CompileError(std::move(diags));
  }
  auto g = std::make_shared<Function>(*f);
  g->type = c.cube ? FunctionType::AIC : FunctionType::AIV;
  g->level = c.cube ? Level::AIC : Level::AIV;
  g->role = Role::SubWorker;
  return g;
}

}  // namespace

Pass expand_mixed_kernel_pass() {
  return Pass{"ExpandMixedKernel",
              "Retags each InCore kernel as AIV (vector work only) or AIC (cube work only) with level "
              "AIV/AIC and role SubWorker; kernels mixing both are not supported yet.",
              {{Property::TileMemoryInferred}, {Property::MixedKernelExpanded}, {}},
              [](const ProgramPtr& p, PassContext&) { return map_functions(p, expand_function); }};
}

}  // namespace pypto::passes
