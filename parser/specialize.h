// Jit specialisation without an interpreter: what `--arg NAME=DTYPE[d0,d1,…]` and
// `--scalar NAME=VALUE|runtime` say about the entry's parameters. A tensor spec types a bare
// `pl.Tensor` parameter (or must agree with an annotated one); a dimension is an integer, a
// module constant, `?` (a fresh dynamic symbol NAME_dI) or another name (a `pl.dynamic` symbol of
// that name, shared between parameters). A scalar spec binds a scalar parameter at compile time
// (it leaves the signature and folds) or, with `runtime`, keeps it a runtime argument.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/type.h"
#include "parser/module_scan.h"

namespace pypto::parser {

struct Specialization {
  std::map<std::string, std::string> args;     // --arg NAME=SPEC (SPEC as written)
  std::map<std::string, std::string> scalars;  // --scalar NAME=VALUE | runtime
  bool empty() const { return args.empty() && scalars.empty(); }
};

// "FP32[64, ?, M]" → a tensor type; dims resolve through `mod` (constants and pl.dynamic
// symbols). Throws CompileError (E107, unlocated: it names the flag) on a malformed spec.
ir::TypePtr parse_arg_spec(const std::string& param, const std::string& spec, ModuleInfo& mod);

// The value of `--scalar NAME=VALUE` for a parameter of dtype `dt` (module constants may be
// named); nullopt for `runtime`.
std::optional<ConstValue> parse_scalar_spec(const std::string& param, const std::string& value, ir::DataType dt,
                                            ModuleInfo& mod);

// What a pypto-lib style spec function (`def build_tensor_specs(rows=ROWS): return [TensorSpec("x",
// [rows, 64], torch.float32, init_value=...), ScalarSpec("n", torch.int32, 8)]`) says, read
// statically with its parameters at their defaults; host-only arguments are ignored.
struct SpecTable {
  std::string function;
  std::string origin;  // for messages: "the spec function 'F'", "the call 'f.lower(...)' at line N"
  std::map<std::string, ir::TypePtr> tensors;
  std::map<std::string, ConstValue> scalars;
  std::string note;  // why a source of shapes that was tried gave none (for the hint)
};
// nullopt when `mod` defines no function `func`; CompileError (E109, at the function) when its
// body or a record is outside the constant subset.
std::optional<SpecTable> read_specs(ModuleInfo& mod, const std::string& func);

// The entry's parameter types from the file's own host call of it (host_call.cpp):
// `entry.lower(*inputs, out)`, `entry.compile(...)` or `entry(...)` outside DSL code, its torch
// arguments followed by shape and dtype. nullopt when there is no such call or none can be read
// statically; then `why` (if given and empty) says why the first one could not.
std::optional<SpecTable> read_host_call(ModuleInfo& mod, const EntryDecl& entry, std::string* why = nullptr);

// Dtype names accepted in a spec: the DSL's (FP32, BF16, INT32, INDEX …, any case) and torch's
// (float32, bfloat16, int64, half …).
std::optional<ir::DataType> spec_dtype(const std::string& name);

}  // namespace pypto::parser
