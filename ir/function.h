// Functions and programs. A Function has typed parameter Vars with directions, return types, a
// body, its placement (FunctionType, level, role) and free-form attributes (pl.func_attr /
// attrs= / external_source=). A Program is a named set of functions kept sorted by name
// (deterministic output) plus the module-level dynamic dims.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/stmt.h"

namespace pypto::ir {

// One function attribute, `pl.func_attr({"key": value})` (or the decorator's attrs= / external_source=
// / the @pl.jit.extern options): a constant, a list of constants, or an expression.
struct FuncAttr {
  std::string key;
  AttrValue value;               // when neither `expr` nor `is_list`
  std::vector<AttrValue> list;   // when `is_list`
  bool is_list = false;
  // A parameter of the function (`{"stationary": w}`) or an op call the decorator form evaluates
  // (`{"core_num": pl.system.available_cluster_count()}`).
  ExprPtr expr;
};

struct Function {
  std::string name;
  std::vector<VarPtr> params;
  std::vector<ParamDirection> param_directions;  // same length as params
  std::vector<TypePtr> return_types;
  StmtPtr body;
  FunctionType type = FunctionType::Opaque;
  std::optional<Level> level;
  std::optional<Role> role;
  bool auto_scope = true;
  bool strict_ssa = false;      // @pl.function(strict_ssa=True): the source's scoping rule, printed back (not compared)
  std::vector<FuncAttr> attrs;  // in source order, keys unique
  Span span;
  std::vector<std::string> leading_comments;  // docstring / comments before the body
};
using FunctionPtr = std::shared_ptr<const Function>;

// The attribute `key` of `f`, or nullptr.
const FuncAttr* find_attr(const Function& f, std::string_view key);

// Whether `f` computes on chip, so that its tiles and tensors get memory: a kernel (InCore / AIC /
// AIV), or an Opaque function whose body binds a tile (written without a function type).
bool computes_on_chip(const Function& f);

struct Program {
  std::string name;
  std::vector<FunctionPtr> functions;     // sorted by name
  std::vector<VarPtr> dynamic_dims;       // module-level pl.dynamic("M") symbols
  Span span;

  FunctionPtr find(std::string_view fname) const;
};
using ProgramPtr = std::shared_ptr<const Program>;

// A program from a list of functions (sorts them by name).
ProgramPtr make_program(std::string name, std::vector<FunctionPtr> functions,
                        std::vector<VarPtr> dynamic_dims = {}, Span span = {});
// The halves of a mixed kernel: a Group function whose body calls one AIC and one AIV function
// of `p` (with the Group's parameters, in order) and returns what they return — the form
// ExpandMixedKernel writes and the orchestration submits as one MixedKernels task. nullopt for
// any other Group body.
struct MixedMembers {
  const Function* aic = nullptr;
  const Function* aiv = nullptr;
  int aiv_lanes = 1;  // 2: the AIV half runs on both lanes (its attribute aiv_lanes, SplitVectorKernel)
};
std::optional<MixedMembers> mixed_group_members(const Program& p, const Function& group);

// Copy of `f` with a new body (and optionally new params / return types kept).
FunctionPtr with_body(const Function& f, StmtPtr body);

}  // namespace pypto::ir
