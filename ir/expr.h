// IR expressions. Nodes are immutable and shared (`shared_ptr<const T>`); a Var *is* its object
// (identity), `name` is only a hint. Scalar arithmetic is Binary/Unary over typed scalars; every
// tile/tensor operation is a Call to a registered op (op_registry.h) or to a program function.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/attr.h"
#include "ir/span.h"
#include "ir/type.h"

namespace pypto::ir {

enum class NodeKind : uint8_t {
  // expressions
  Var, IterArg, ConstInt, ConstFloat, ConstBool, Binary, Unary, Call, MakeTuple, TupleGetItem,
  // statements
  AssignStmt, EvalStmt, ReturnStmt, YieldStmt, SeqStmts, IfStmt, ForStmt, WhileStmt, BreakStmt,
  ContinueStmt, ScopeStmt,
};

struct IRNode {
  IRNode(NodeKind k, Span s) : kind(k), span(std::move(s)) {}
  virtual ~IRNode() = default;
  const NodeKind kind;
  Span span;
};

struct Expr : IRNode {
  Expr(NodeKind k, TypePtr t, Span s) : IRNode(k, std::move(s)), type(std::move(t)) {}
  TypePtr type;
};

struct Var : Expr {
  Var(std::string n, TypePtr t, Span s) : Var(NodeKind::Var, std::move(n), std::move(t), std::move(s)) {}
  std::string name;  // hint only; identity is the object (and `id`)
  uint64_t id;       // process-unique, increasing in creation order

 protected:
  Var(NodeKind k, std::string n, TypePtr t, Span s);
};

// Loop-carried value: in scope in the loop body, `init` on the first iteration.
struct IterArg : Var {
  IterArg(std::string n, TypePtr t, ExprPtr init_, Span s)
      : Var(NodeKind::IterArg, std::move(n), std::move(t), std::move(s)), init(std::move(init_)) {}
  ExprPtr init;
  // ClassifyIterArgCarry: an orchestration loop's tensor carry whose yield is another buffer than
  // the one it carries in (ping-pong buffers), so the name is rebound each iteration. Not printed.
  bool rebind = false;
};
using IterArgPtr = std::shared_ptr<const IterArg>;

struct ConstInt : Expr {
  ConstInt(int64_t v, DataType dt, Span s) : Expr(NodeKind::ConstInt, scalar_type(dt), std::move(s)), value(v) {}
  int64_t value;
  DataType dtype() const { return static_cast<const ScalarType&>(*type).dtype; }
};

struct ConstFloat : Expr {
  ConstFloat(double v, DataType dt, Span s) : Expr(NodeKind::ConstFloat, scalar_type(dt), std::move(s)), value(v) {}
  double value;
  DataType dtype() const { return static_cast<const ScalarType&>(*type).dtype; }
};

struct ConstBool : Expr {
  ConstBool(bool v, Span s) : Expr(NodeKind::ConstBool, scalar_type(DataType::BOOL), std::move(s)), value(v) {}
  bool value;
};

enum class BinOp : uint8_t {
  Add, Sub, Mul, FloorDiv, FloorMod, FloatDiv, Min, Max, Pow,
  Eq, Ne, Lt, Le, Gt, Ge, And, Or, Xor, BitAnd, BitOr, BitXor, Shl, Shr,
};
enum class UnOp : uint8_t { Neg, Not, BitNot, Abs, Cast };

// Python integer semantics of BinOp::FloorDiv / FloorMod (b != 0): the quotient rounds toward
// negative infinity and the remainder takes the sign of b. Shared by every constant folder.
int64_t floor_div(int64_t a, int64_t b);
int64_t floor_mod(int64_t a, int64_t b);

std::string_view to_string(BinOp op);  // "Add", ...
std::string_view to_string(UnOp op);
bool is_comparison(BinOp op);

struct Binary : Expr {
  Binary(BinOp o, ExprPtr a_, ExprPtr b_, TypePtr t, Span s)
      : Expr(NodeKind::Binary, std::move(t), std::move(s)), op(o), a(std::move(a_)), b(std::move(b_)) {}
  BinOp op;
  ExprPtr a, b;
};

// Unary scalar op; for Cast the target dtype is the node's type.
struct Unary : Expr {
  Unary(UnOp o, ExprPtr a_, TypePtr t, Span s)
      : Expr(NodeKind::Unary, std::move(t), std::move(s)), op(o), a(std::move(a_)) {}
  UnOp op;
  ExprPtr a;
};

struct OpDef;

// How a call to a program function is dispatched as a task, beyond its arguments: the forms
// `pl.submit(self.k, ...)` / `pl.spmd_submit(self.k, ..., core_num=N)` (whose result is the
// callee's results followed by the producer TaskId), `pl.no_dep(arg)` markers and the tensors
// `pl.dump_tag` / `dumps=` select for dumping. Only on calls with `callee` set.
struct Dispatch {
  bool submit = false;              // pl.submit / pl.spmd_submit: the result ends with a TASK_ID
  bool spmd = false;                // pl.spmd_submit
  ExprPtr core_num;                 // spmd_submit: core_num=
  bool sync_start = false;          // spmd_submit: sync_start=True
  std::vector<ExprPtr> deps;        // deps=[tid, ...]: TaskIds / TaskId arrays
  std::vector<VarPtr> dumps;        // dumps=[t, ...] / pl.dump_tag(t): tensors to dump
  // AutoDeriveTaskDependencies' edges (printed as attrs={"compiler_manual_dep_edges": [...]}):
  // the result of each earlier task call this one must wait for (a submit's result tuple or a
  // plain call's tensor result stands for that call's task).
  std::vector<VarPtr> compiler_deps;
  bool allow_early_resolve = false; // allow_early_resolve=True
  ExprPtr predicate;                // predicate=<bool expression>
  std::vector<int> no_dep_args;     // argument positions marked pl.no_dep(...), ascending
  ExprPtr device;                   // device=: the device an orchestrator dispatch runs on

  bool empty() const {
    return !submit && !spmd && !core_num && !sync_start && deps.empty() && dumps.empty() && compiler_deps.empty() &&
           !allow_early_resolve && !predicate && no_dep_args.empty() && !device;
  }
  // Every expression it reads (core_num, deps, dumps, predicate, device), nulls skipped.
  std::vector<ExprPtr> exprs() const;
};
using DispatchPtr = std::shared_ptr<const Dispatch>;

// A call: to a registered op (`op` set) or to a function of the program (`callee` set).
struct Call : Expr {
  Call(const OpDef* op_, std::string callee_, std::vector<ExprPtr> args_,
       std::vector<std::pair<std::string, AttrValue>> kwargs_, TypePtr t, Span s,
       std::vector<ArgDirection> dirs = {})
      : Expr(NodeKind::Call, std::move(t), std::move(s)), op(op_), callee(std::move(callee_)),
        args(std::move(args_)), kwargs(std::move(kwargs_)), arg_directions(std::move(dirs)) {}
  const OpDef* op;     // nullptr for a function call
  std::string callee;  // function name when op == nullptr
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, AttrValue>> kwargs;  // op attributes
  std::vector<ArgDirection> arg_directions;  // one per arg once DeriveCallDirections ran
  DispatchPtr dispatch;                      // function calls only; null = a plain call

  bool is_op(std::string_view name) const;
  const AttrValue* kwarg(std::string_view name) const;
  bool kwarg_true(std::string_view name) const;  // the keyword is the boolean true (clamp=True)
  std::string_view kwarg_string(std::string_view name) const;  // a string keyword's value, "" if none
};

struct MakeTuple : Expr {
  MakeTuple(std::vector<ExprPtr> e, TypePtr t, Span s)
      : Expr(NodeKind::MakeTuple, std::move(t), std::move(s)), elems(std::move(e)) {}
  std::vector<ExprPtr> elems;
};

struct TupleGetItem : Expr {
  TupleGetItem(ExprPtr t_, int i, TypePtr t, Span s)
      : Expr(NodeKind::TupleGetItem, std::move(t), std::move(s)), tuple(std::move(t_)), index(i) {}
  ExprPtr tuple;
  int index;
};

// Downcast helpers (nullptr when the kind differs).
template <class T> const T* as(const IRNode* n);
template <class T> const T* as(const std::shared_ptr<const Expr>& e) { return as<T>(e.get()); }

// Integer value of a ConstInt, nullopt otherwise.
std::optional<int64_t> const_int_value(const ExprPtr& e);

// `a - b` when it is a constant although a and b are not: both read as linear integer sums
// c0 + c1*t1 + ... (through +, -, unary -, and * by a constant) whose non-constant terms t (Vars,
// or any other subexpression, compared structurally) cancel — `(q + 4) * 128 - q * 128` is 512.
// Nullopt otherwise (also on overflow). The extent of a slice `x[lo:hi]` is hi - lo.
std::optional<int64_t> const_difference(const ExprPtr& a, const ExprPtr& b);

// Builders for the common leaves.
ExprPtr make_int(int64_t v, Span s = {}, DataType dt = DataType::INDEX);
ExprPtr make_float(double v, Span s = {}, DataType dt = DataType::FP32);
ExprPtr make_bool(bool v, Span s = {});
std::shared_ptr<const Var> make_var(std::string name, TypePtr t, Span s = {});

}  // namespace pypto::ir

#include "ir/expr_cast.inl"
