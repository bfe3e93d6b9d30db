// Internal helpers of the verifier (not part of the IR API): the per-property rule signature,
// type printing and compatibility, and walks over the expressions / binding sites of a function.
#pragma once

#include <functional>
#include <string>

#include "ir/verifier.h"

namespace pypto::ir::verify_detail {

struct Env {
  const Program& program;
  const VerifyOptions& opts;
  DiagnosticSink& sink;
  void report(std::string_view rule, const Span& span, std::string msg, std::string hint = {}) const;
};
using RuleFn = void (*)(const Env&);

// "Tile[[64, 128], FP32, Vec]", "Scalar[INDEX]", ...
std::string type_str(const TypePtr& t);
// "" when a value of type `got` fits a slot of type `want` (same kind, dtype, rank, no provably
// different dim, same tile space when both are known; MemRefs ignored); otherwise the reason.
std::string type_mismatch(const TypePtr& want, const TypePtr& got, bool ignore_space = false);

// Calls `f(var, span)` for every Var occurring in `e` (span = innermost enclosing node with a
// valid span, falling back to `site`). Does not descend into types.
void for_each_var_use(const ExprPtr& e, const Span& site, const std::function<void(const Var&, const Span&)>& f);
// Calls `f(var)` for every Var in a type's expressions (shape, views, MemRef offset); MemRef
// bases are reported through `base` when given.
void for_each_type_var(const TypePtr& t, const std::function<void(const Var&)>& f,
                       const std::function<void(const Var&)>& base = {});
// Calls `f(stmt)` for every statement of a body, depth first, parents before children.
void for_each_stmt(const StmtPtr& s, const std::function<void(const Stmt&)>& f);
// Calls `f(call, stmt)` for every Call in the function (including nested ones).
void for_each_call(const StmtPtr& s, const std::function<void(const Call&, const Stmt&)>& f);
// Every binding site of a function: params, assignment targets, loop vars, iter_args, return vars.
void for_each_binding(const Function& fn, const std::function<void(const Var&, const Span&)>& f);

// Rule entry points (one per implemented property).
void check_ssa(const Env&);
void check_use_after_def(const Env&);
void check_type_checked(const Env&);  // also reports "OpPlacement"
void check_no_redundant_blocks(const Env&);
void check_no_nested_call(const Env&);
void check_split_incore_orch(const Env&);
void check_tile_ops_only(const Env&);
void check_tile_memory_inferred(const Env&);
void check_mixed_kernel_expanded(const Env&);
void check_return_params(const Env&);
void check_tensor_strides(const Env&);
void check_has_memrefs(const Env&);
void check_allocated_memory_addr(const Env&);
void check_call_directions(const Env&);
void check_runtime_scopes(const Env&);
void check_tensor_allocs_planned(const Env&);
void check_iter_arg_carry(const Env&);

}  // namespace pypto::ir::verify_detail
