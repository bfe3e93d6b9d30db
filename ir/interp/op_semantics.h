// The reference semantics of ops, as the interpreter runs them: each registry entry's
// `OpDef::semantics` points at one of these (installed by install_op_semantics from the
// semantics_*.cpp tables). An op's function receives its evaluated operands and computes its
// result with plain loops over whole arrays in double precision, rounding each result element
// once to the result dtype (Array::set does the rounding).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/interp/value.h"
#include "ir/op_registry.h"

namespace pypto::ir {

namespace interp {

struct OpEval;

// The cross-core FIFO of the mixed task being run (a Group's AIC and AIV halves, ir/interp/gang.h);
// null outside one. Direction 0 is AIC → AIV (C2V), 1 is AIV → AIC (V2C).
struct CrossCoreFifo {
  virtual ~CrossCoreFifo() = default;
  virtual void push(int dir, Value v, const OpEval& e) = 0;
  virtual Value pop(int dir, const OpEval& e) = 0;
  virtual int lane() const = 0;  // the AIV lane running the caller (0 on the AIC)
};

// The launch whose blocks run together because a kernel of it holds pl.system.syncall (a Gang of
// blocks, ir/interp/gang.h): syncall waits until every block has arrived. Null otherwise.
struct LaunchBarrier {
  virtual ~LaunchBarrier() = default;
  virtual void barrier(const OpEval& e) = 0;
};

// One op call being evaluated.
struct OpEval {
  const Call& call;
  const std::vector<Value>& args;  // positional operands; index lists arrive as tuples of scalars
  // The call's result type with its dims evaluated (dynamic dims bound at the call).
  std::function<std::vector<int64_t>(const TypePtr&)> dims;
  int64_t block_idx = 0;  // SPMD: the block running this op (pl.spmd / spmd_submit)
  int64_t block_num = 1;
  // A type's valid_shape with its dims evaluated (empty: no valid_shape, the whole shape is valid).
  std::function<std::vector<int64_t>(const TypePtr&)> valid_dims;
  CrossCoreFifo* fifo = nullptr;  // inside a mixed task: its FIFO
  LaunchBarrier* launch = nullptr;  // inside blocks that run together (a syncall launch)

  bool has(size_t i) const { return i < args.size() && args[i].kind != Value::Kind::None; }
  const Array& arr(size_t i) const;
  double num(size_t i) const;
  std::vector<int64_t> list(size_t i) const;
  // The valid region of operand i (a tile or tensor): its type's valid_shape, else its shape.
  // Outside it, a tile's elements are undefined (the interpreter holds NaN there, or 0 for
  // integers), until a fillpad gives them the pad value.
  std::vector<int64_t> valid(size_t i) const;
  const AttrValue* kw(std::string_view name) const { return call.kwarg(name); }
  int64_t kw_int(std::string_view name, int64_t dflt) const;
  bool kw_bool(std::string_view name, bool dflt) const;
  std::string kw_str(std::string_view name, const std::string& dflt) const;
  DataType result_dtype() const;
  std::vector<int64_t> result_shape() const;
  // A fresh array of the call's result type.
  Array result() const;
  // A user-level error at the call (E602): an access out of bounds, an unsupported operand.
  [[noreturn]] void fail(const std::string& msg, const std::string& hint = {}) const;
};

using SemanticsFn = std::function<Value(const OpEval&)>;

// Registration helper for the semantics tables.
void define(OpRegistry& r, std::string_view op, SemanticsFn fn);

// The per-family tables (semantics_*.cpp), called by install_op_semantics.
void define_elementwise(OpRegistry& r);
void define_reductions(OpRegistry& r);
void define_data_movement(OpRegistry& r);
void define_matmul(OpRegistry& r);
void define_system(OpRegistry& r);

// Broadcast read: element `i` (row-major over `out_shape`) of `a`, whose dims are either equal to
// out_shape's (right-aligned) or 1.
double broadcast_at(const Array& a, const std::vector<int64_t>& out_shape, int64_t i);

}  // namespace interp

struct OpSemantics {
  interp::SemanticsFn fn;
};

}  // namespace pypto::ir
