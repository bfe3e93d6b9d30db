// Kind-checked downcasts for IR nodes (no RTTI): as<T>(node) is nullptr unless node is a T.
// Var matches IterArg too (an IterArg is a Var). Included at the end of expr.h.
#pragma once

namespace pypto::ir {

struct AssignStmt; struct EvalStmt; struct ReturnStmt; struct YieldStmt; struct SeqStmts;
struct IfStmt; struct ForStmt; struct WhileStmt; struct BreakStmt; struct ContinueStmt;
struct ScopeStmt; struct Stmt;

namespace detail {
template <class T> struct KindOf;
#define PYPTO_KIND_OF(T) template <> struct KindOf<T> { static constexpr NodeKind value = NodeKind::T; };
PYPTO_KIND_OF(IterArg) PYPTO_KIND_OF(ConstInt) PYPTO_KIND_OF(ConstFloat) PYPTO_KIND_OF(ConstBool)
PYPTO_KIND_OF(Binary) PYPTO_KIND_OF(Unary) PYPTO_KIND_OF(Call) PYPTO_KIND_OF(MakeTuple)
PYPTO_KIND_OF(TupleGetItem) PYPTO_KIND_OF(AssignStmt) PYPTO_KIND_OF(EvalStmt) PYPTO_KIND_OF(ReturnStmt)
PYPTO_KIND_OF(YieldStmt) PYPTO_KIND_OF(SeqStmts) PYPTO_KIND_OF(IfStmt) PYPTO_KIND_OF(ForStmt)
PYPTO_KIND_OF(WhileStmt) PYPTO_KIND_OF(BreakStmt) PYPTO_KIND_OF(ContinueStmt) PYPTO_KIND_OF(ScopeStmt)
#undef PYPTO_KIND_OF
}  // namespace detail

template <class T>
const T* as(const IRNode* n) {
  if (!n) return nullptr;
  if constexpr (std::is_same_v<T, Var>) {
    return (n->kind == NodeKind::Var || n->kind == NodeKind::IterArg) ? static_cast<const Var*>(n) : nullptr;
  } else {
    return n->kind == detail::KindOf<T>::value ? static_cast<const T*>(n) : nullptr;
  }
}

// Shared-pointer downcast keeping ownership (nullptr when the kind differs).
template <class T, class U>
std::shared_ptr<const T> as_ptr(const std::shared_ptr<const U>& p) {
  return as<T>(p.get()) ? std::static_pointer_cast<const T>(p) : nullptr;
}

}  // namespace pypto::ir
