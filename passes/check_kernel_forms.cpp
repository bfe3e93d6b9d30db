// CheckKernelForms — rejects, at their source line and before any planning or emission, the
// kernel forms the C++ tile backend cannot write yet, so that the kernel emitter only translates:
//   * the rules both back ends share (form_rules.h): `while` loops, `break` / `continue`, an
//     early `return` (CtrlFlowTransform is missing), pl.pipeline loops, tuple values bound to
//     variables, `**` and floating-point `//` / `%`;
//   * ops a kernel cannot hold yet (the registry's kernel_deferred marker: deferred tile ops,
//     orchestration-side and cross-core system ops, array / prefetch / distributed ops) and
//     calls to program functions;
//   * GM windows it cannot spell: load / store offsets that are not a literal list, dynamic
//     window shapes, a load whose valid_shape is smaller than its shape, `clamp=True`, a store of
//     a tile with a dynamic valid shape or without a static 2-D shape, a 2-D tile stored into a
//     1-D tensor, an atomic mode other than none / add;
//   * element access (`tile.read` / `tile.write`) and `tile.assemble` offsets with other than two
//     indices, a `tile.transpose` without its tmp tile;
//   * a tile op whose result is unused (an expression statement other than a store or a sync);
//   * a loop / if whose carried tensor changes buffers (form_rules.h);
//   * a kernel parameter that is neither a tensor nor a scalar.
// Each is an E501 "not supported yet" error naming the op and the form. The program is not
// changed. Requires MixedKernelExpanded (kernels are AIV / AIC functions).
#include <fmt/format.h>

#include "ir/op_registry.h"
#include "passes/form_rules.h"
#include "passes/passes.h"

namespace pypto::passes {

using namespace ir;

namespace {

bool literal_list(const ExprPtr& e) { return as<MakeTuple>(e) != nullptr; }

bool static_list(const ExprPtr& e) {
  const auto* t = as<MakeTuple>(e);
  if (!t) return false;
  for (const auto& x : t->elems)
    if (!const_int_value(x)) return false;
  return true;
}

size_t list_size(const ExprPtr& e) {
  const auto* t = as<MakeTuple>(e);
  return t ? t->elems.size() : 0;
}

bool kw_true(const Call& c, std::string_view k) {
  const AttrValue* v = c.kwarg(k);
  const auto* b = v ? std::get_if<bool>(v) : nullptr;
  return b && *b;
}

class FormChecker : public FormRules {
 public:
  [[noreturn]] void reject(const Span& sp, const std::string& what, const std::string& hint = {}) override {
    throw CompileError("E501", sp, what + " is not supported yet in a kernel", hint);
  }

 protected:
  void visit_eval(const EvalStmt& s) override {
    const auto* c = as<Call>(s.expr);
    const bool effect = c && c->op &&
                        (c->op->pipe_rule == PipeRule::Store || c->op->family() == "system");
    if (c && c->op && !effect) reject(s.span, fmt::format("pl.{} with an unused result", c->op->name),
                                      "assign the result to a variable and use it");
    FormRules::visit_eval(s);
  }

  void visit_call(const Call& c) override {
    FormRules::visit_call(c);
    const Span& sp = c.span;
    if (!c.op)
      reject(sp, fmt::format("a call to function '{}'", c.callee),
             "make it an @pl.inline function, or call it from the orchestration function");
    if (!c.op->kernel_deferred.empty()) reject(sp, fmt::format("pl.{}", c.op->name));
    if (c.op->family() != "tile") return;
    const std::string& n = c.op->name;
    if (n == "tile.load") {
      if (!literal_list(c.args[1])) reject(sp, "pl.tile.load with non-literal offsets");
      if (!static_list(c.args[2])) reject(sp, "pl.tile.load with a dynamic window shape", "use static window shapes");
      if (c.args.size() > 3 && c.args[3]) {
        const auto* shape = as<MakeTuple>(c.args[2]);
        const auto* valid = as<MakeTuple>(c.args[3]);
        bool same = valid && shape && valid->elems.size() == shape->elems.size();
        for (size_t i = 0; same && i < shape->elems.size(); ++i)
          same = const_int_value(valid->elems[i]) && const_int_value(valid->elems[i]) == const_int_value(shape->elems[i]);
        if (!same) reject(sp, "pl.tile.load with a valid_shape smaller than its shape");
      }
      if (kw_true(c, "clamp")) reject(sp, "pl.tile.load(clamp=True)");
    } else if (c.op->pipe_rule == PipeRule::Store) {
      if (!literal_list(c.args[1])) reject(sp, fmt::format("pl.{} with non-literal offsets", n));
      const auto* tt = as_tile(c.args[0]->type);
      const auto* gt = as_tensor(c.args[2]->type);
      if (c.args.size() > 3 && c.args[3]) {
        if (!static_list(c.args[3])) reject(sp, fmt::format("pl.{} with a dynamic window shape", n));
      } else {
        const auto ts = tt ? static_shape(tt->shape) : std::nullopt;
        if (!ts || ts->size() != 2) reject(sp, fmt::format("pl.{} of a tile without a static 2-D shape", n));
        if (gt && gt->shape.size() == 1 && (*ts)[0] != 1) reject(sp, fmt::format("pl.{} of a 2-D tile into a 1-D tensor", n));
      }
      if (tt && tt->view && !tt->view->valid_shape.empty())
        reject(sp, fmt::format("pl.{} of a tile with a dynamic valid shape", n));
      const AttrValue* atomic = c.kwarg("atomic");
      const auto* at = atomic ? std::get_if<EnumLit>(atomic) : nullptr;
      if (at && at->member != "AtomicNone" && at->member != "AtomicAdd")
        reject(sp, fmt::format("pl.{} with atomic mode {}", n, at->member));
    } else if (n == "tile.read" || n == "tile.write") {
      if (list_size(c.args[1]) != 2 || !static_shape(as_tile(c.args[0]->type)->shape))
        reject(sp, fmt::format("pl.{} with other than 2 indices into a static tile", n));
    } else if (n == "tile.assemble") {
      if (list_size(c.args[2]) != 2) reject(sp, "pl.tile.assemble with other than 2 offsets");
    } else if (n == "tile.transpose") {
      if (c.args.size() < 4 || !c.args[3])
        reject(sp, "pl.tile.transpose without a tmp tile", "pass a scratch tile shaped like the input");
    }
  }
};

void check_function(const Program& p, const Function& f) {
  FormChecker checker;
  checker.check_function(p, f, "kernel parameter");
}

}  // namespace

Pass check_kernel_forms_pass() {
  return Pass{"CheckKernelForms",
              "Rejects, at their source line, the kernel forms the C++ tile backend cannot write yet (while / "
              "break / continue / early return, pipeline loops, tuple values, float floor division, ops without a "
              "kernel form, function calls, non-literal or dynamic GM windows, load valid_shape or clamp, "
              "stores of dynamically valid tiles, element access and assemble offsets other than 2-D, transpose "
              "without tmp, unused tile-op results, parameters other than tensors and scalars); changes nothing.",
              {{Property::MixedKernelExpanded}, {}, {}},
              [](const ProgramPtr& p, PassContext&) {
                for (const auto& f : p->functions)
                  if (f->type == FunctionType::AIV || f->type == FunctionType::AIC) check_function(*p, *f);
                return p;
              }};
}

}  // namespace pypto::passes
