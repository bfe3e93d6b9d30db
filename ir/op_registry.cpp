// Op registry storage and the single checked call builder (make_call).
#include "ir/op_registry.h"

#include <mutex>

#include <algorithm>
#include <array>
#include <fmt/format.h>

#include "ir/diagnostic.h"
#include "ir/printer.h"

namespace pypto::ir {

const AttrValue* CallArgs::kwarg(std::string_view name) const {
  for (const auto& [k, v] : kwargs)
    if (k == name) return &v;
  return nullptr;
}

std::string_view OpDef::family() const {
  auto dot = name.find('.');
  return dot == std::string::npos ? std::string_view{} : std::string_view(name).substr(0, dot);
}

std::string_view OpDef::short_name() const {
  auto dot = name.find('.');
  return dot == std::string::npos ? std::string_view(name) : std::string_view(name).substr(dot + 1);
}

const KwSpec* OpDef::find_kwarg(std::string_view n) const {
  for (const auto& k : kwargs)
    if (k.name == n) return &k;
  return nullptr;
}

OpRegistry& OpRegistry::instance() {
  static OpRegistry* reg = [] {
    auto* r = new OpRegistry();
    register_tile_ops(*r);
    register_tensor_ops(*r);
    register_system_ops(*r);
    register_other_ops(*r);
    r->seal();
    r->link_counterparts();
    return r;
  }();
  return *reg;
}

OpRegistry& OpRegistry::with_semantics() {
  static std::once_flag once;
  std::call_once(once, [] { install_op_semantics(instance()); });
  return instance();
}

void OpRegistry::set_semantics(std::string_view name, const OpSemantics* s) {
  for (auto& op : ops_)
    if (op->name == name) {
      if (op->semantics) throw InternalError("op registry", fmt::format("semantics of '{}' defined twice", name));
      op->semantics = s;
      return;
    }
  throw InternalError("op registry", fmt::format("semantics for unknown op '{}'", name));
}

void OpRegistry::link_counterparts() {
  for (auto& op : ops_) {
    if (!op->scalar_form.empty() && !find(op->scalar_form))
      throw InternalError("op registry", fmt::format("'{}' names an unknown scalar form '{}'", op->name, op->scalar_form));
    for (auto [name, link] : {std::pair{&op->row_broadcast_name, &op->row_broadcast},
                              std::pair{&op->col_broadcast_name, &op->col_broadcast}}) {
      if (name->empty()) continue;
      *link = find(*name);
      if (!*link || (*link)->family() != "tile")
        throw InternalError("op registry", fmt::format("'{}' names an unknown broadcast form '{}'", op->name, *name));
    }
    if (op->tile_op_name.empty()) continue;
    auto* tile = const_cast<OpDef*>(find(op->tile_op_name));
    if (!tile) throw InternalError("op registry", fmt::format("'{}' names an unknown tile form '{}'", op->name, op->tile_op_name));
    op->tile_op = tile;
    if (!tile->tensor_op) tile->tensor_op = op.get();
  }
}

namespace {
constexpr std::array<std::pair<Pipe, std::string_view>, 7> kPipeNames = {{
    {Pipe::S, "S"}, {Pipe::V, "V"}, {Pipe::MTE1, "MTE1"}, {Pipe::MTE2, "MTE2"},
    {Pipe::MTE3, "MTE3"}, {Pipe::M, "M"}, {Pipe::FIX, "FIX"}}};

std::optional<MemorySpace> space_of(const ExprPtr& e) {
  const auto* t = e ? as_tile(e->type) : nullptr;
  return t ? t->space : std::nullopt;
}

bool is_cube_l0(MemorySpace s) {
  return s == MemorySpace::Left || s == MemorySpace::Right || s == MemorySpace::Bias ||
         s == MemorySpace::LeftScale || s == MemorySpace::RightScale;
}

// Pipe of a data move from space `src` to space `dst` (TMOV / TEXTRACT / TINSERT).
Pipe move_pipe(std::optional<MemorySpace> src, std::optional<MemorySpace> dst) {
  if (src == MemorySpace::Acc) return Pipe::FIX;
  if (src == MemorySpace::Mat && dst && is_cube_l0(*dst)) return Pipe::MTE1;
  if (src == MemorySpace::Vec && dst == MemorySpace::Mat) return Pipe::FIX;
  if (src == MemorySpace::Mat && dst == MemorySpace::Mat) return Pipe::MTE1;
  return Pipe::V;
}
}  // namespace

std::string_view pipe_name(Pipe p) {
  for (const auto& [k, n] : kPipeNames)
    if (k == p) return n;
  return "None";
}

std::optional<Pipe> pipe_from_name(std::string_view s) {
  for (const auto& [k, n] : kPipeNames)
    if (n == s) return k;
  return std::nullopt;
}

std::string_view arg_kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::Tensor: return "Tensor";
    case ArgKind::Tile: return "Tile";
    case ArgKind::Shaped: return "Tensor|Tile";
    case ArgKind::Scalar: return "Scalar";
    case ArgKind::IndexList: return "[index]";
    case ArgKind::Any: return "Any";
  }
  return "?";
}

std::string_view attr_kind_name(AttrKind k) {
  switch (k) {
    case AttrKind::Bool: return "bool";
    case AttrKind::Int: return "int";
    case AttrKind::Float: return "float";
    case AttrKind::String: return "str";
    case AttrKind::DType: return "DataType";
    case AttrKind::MemSpace: return "Mem";
    case AttrKind::TileLayout: return "TileLayout";
    case AttrKind::TensorLayout: return "TensorLayout";
    case AttrKind::PadValue: return "PadValue";
    case AttrKind::CompactMode: return "CompactMode";
    case AttrKind::Enum: return "enum";
    case AttrKind::Any: return "Any";
  }
  return "?";
}

std::string_view affinity_name(CoreAffinity a) {
  switch (a) {
    case CoreAffinity::Vector: return "vector";
    case CoreAffinity::Cube: return "cube";
    case CoreAffinity::Shared: return "shared";
    case CoreAffinity::Control: return "control";
  }
  return "?";
}

std::string_view lowering_name(TileLowering l) {
  switch (l) {
    case TileLowering::None: return "none";
    case TileLowering::Compute: return "compute";
    case TileLowering::ComputeTmp: return "compute+tmp";
    case TileLowering::PreciseTmp: return "compute(+tmp if high_precision)";
    case TileLowering::Transpose: return "transpose";
    case TileLowering::MergeTmp: return "compute+merge tmp";
    case TileLowering::Create: return "create";
    case TileLowering::CreateMat: return "create (Mat)";
    case TileLowering::Slice: return "slice";
    case TileLowering::Assemble: return "assemble";
    case TileLowering::Matmul: return "matmul";
    case TileLowering::MatmulAcc: return "matmul_acc";
    case TileLowering::Scalar: return "scalar";
    case TileLowering::Compare: return "compare+select";
    case TileLowering::GatherRow: return "row gather (TLOAD into a window)";
    case TileLowering::Gather: return "flat-index gather";
    case TileLowering::Scatter: return "flat-index scatter+select";
    case TileLowering::ScatterMask: return "mask scatter+select";
  }
  return "?";
}

std::string op_spelling(std::string_view name) {
  return name.substr(0, 4) == "pld." ? std::string(name) : "pl." + std::string(name);
}

std::string op_signature(const OpDef& op) {
  std::string s = op_spelling(op.name) + "(";
  for (size_t i = 0; i < op.args.size(); ++i) {
    const auto& a = op.args[i];
    s += fmt::format("{}{}{}: {}", i ? ", " : "", a.name, a.optional ? "?" : "", arg_kind_name(a.kind));
  }
  if (!op.kwargs.empty()) {
    s += op.args.empty() ? "*" : ", *";
    for (const auto& k : op.kwargs) {
      std::string kind(k.kind == AttrKind::Enum && !k.enum_name.empty() ? k.enum_name : attr_kind_name(k.kind));
      s += fmt::format(", {}: {}", k.name, kind);
      if (!std::holds_alternative<std::monostate>(k.default_value)) s += " = " + print_attr(k.default_value);
    }
  }
  return s + ")";
}

std::string pipe_rule_text(const OpDef& op) {
  switch (op.pipe_rule) {
    case PipeRule::Unset: return "";
    case PipeRule::NotInstruction: return "none";
    case PipeRule::Fixed: return std::string(pipe_name(op.pipe));
    case PipeRule::Move: return "by spaces";
    case PipeRule::Store: return "MTE3 or FIX (from Acc)";
  }
  return "";
}

Pipe call_pipe(const Call& c, const TypePtr& result) {
  if (!c.op) return Pipe::None;
  switch (c.op->pipe_rule) {
    case PipeRule::Unset:
    case PipeRule::NotInstruction: return Pipe::None;
    case PipeRule::Fixed: return c.op->pipe;
    case PipeRule::Store: return space_of(c.args.empty() ? nullptr : c.args[0]) == MemorySpace::Acc ? Pipe::FIX : Pipe::MTE3;
    case PipeRule::Move: {
      const size_t from = static_cast<size_t>(c.op->move_from);
      const auto* rt = as_tile(result);
      return move_pipe(from < c.args.size() ? space_of(c.args[from]) : std::nullopt, rt ? rt->space : std::nullopt);
    }
  }
  return Pipe::None;
}

// ops_ is kept sorted by name so that find() is a binary search: the front end looks ops up
// several times per call site (unified dispatch tries tensor.X, tile.X and scalar forms).
namespace {
auto by_name(std::string_view name) {
  return [name](const std::unique_ptr<OpDef>& op) { return std::string_view(op->name) < name; };
}
}  // namespace

void OpRegistry::add(OpDef def) {
  if (!sealed_) {
    ops_.push_back(std::make_unique<OpDef>(std::move(def)));
    return;
  }
  auto pos = std::partition_point(ops_.begin(), ops_.end(), by_name(def.name));
  if (pos != ops_.end() && (*pos)->name == def.name) throw InternalError("op registry", "duplicate op '" + def.name + "'");
  ops_.insert(pos, std::make_unique<OpDef>(std::move(def)));
}

void OpRegistry::seal() {
  std::sort(ops_.begin(), ops_.end(), [](const auto& a, const auto& b) { return a->name < b->name; });
  for (size_t i = 1; i < ops_.size(); ++i)
    if (ops_[i]->name == ops_[i - 1]->name) throw InternalError("op registry", "duplicate op '" + ops_[i]->name + "'");
  sealed_ = true;
}

const OpDef* OpRegistry::find(std::string_view name) const {
  auto pos = std::partition_point(ops_.begin(), ops_.end(), by_name(name));
  return pos != ops_.end() && (*pos)->name == name ? pos->get() : nullptr;
}

std::vector<const OpDef*> OpRegistry::all() const {
  std::vector<const OpDef*> v;  // ops_ is sorted by name
  for (const auto& op : ops_) v.push_back(op.get());
  return v;
}

namespace {

std::string_view kind_noun(ArgKind k) {
  switch (k) {
    case ArgKind::Tensor: return "a Tensor";
    case ArgKind::Tile: return "a Tile";
    case ArgKind::Shaped: return "a Tensor or Tile";
    case ArgKind::Scalar: return "a scalar";
    case ArgKind::IndexList: return "a list of indices";
    case ArgKind::Any: return "a value";
  }
  return "a value";
}

bool arg_matches(ArgKind k, const ExprPtr& e) {
  const auto& t = e->type;
  switch (k) {
    case ArgKind::Tensor: return t && t->kind == TypeKind::Tensor;
    case ArgKind::Tile: return t && t->kind == TypeKind::Tile;
    case ArgKind::Shaped: return t && (t->kind == TypeKind::Tensor || t->kind == TypeKind::Tile);
    case ArgKind::Scalar: return t && t->kind == TypeKind::Scalar;
    case ArgKind::IndexList: {
      const auto* tup = as<MakeTuple>(e);
      if (!tup) return false;
      for (const auto& x : tup->elems)
        if (!as_scalar(x->type)) return false;
      return true;
    }
    case ArgKind::Any: return true;
  }
  return false;
}

bool attr_matches(const KwSpec& spec, const AttrValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return true;  // None is accepted everywhere
  switch (spec.kind) {
    case AttrKind::Bool: return std::holds_alternative<bool>(v);
    case AttrKind::Int: return std::holds_alternative<int64_t>(v);
    case AttrKind::Float: return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
    case AttrKind::String: return std::holds_alternative<std::string>(v);
    case AttrKind::DType: return std::holds_alternative<DataType>(v);
    case AttrKind::MemSpace: return std::holds_alternative<MemorySpace>(v);
    case AttrKind::TileLayout: return std::holds_alternative<TileLayout>(v);
    case AttrKind::TensorLayout: return std::holds_alternative<TensorLayout>(v);
    case AttrKind::PadValue: return std::holds_alternative<PadValue>(v);
    case AttrKind::CompactMode: return std::holds_alternative<CompactMode>(v);
    case AttrKind::Enum: {
      const auto* e = std::get_if<EnumLit>(&v);
      return e && (spec.enum_name.empty() || e->enum_name == spec.enum_name);
    }
    case AttrKind::Any: return true;
  }
  return false;
}

}  // namespace

std::shared_ptr<const Call> make_call(const OpDef& op, std::vector<ExprPtr> args,
                                      std::vector<std::pair<std::string, AttrValue>> kwargs,
                                      const Span& span) {
  const std::string pretty = op_spelling(op.name);
  size_t required = 0;
  for (const auto& a : op.args)
    if (!a.optional) ++required;
  if (args.size() < required || args.size() > op.args.size()) {
    std::string sig;
    for (size_t i = 0; i < op.args.size(); ++i)
      sig += fmt::format("{}{}{}", i ? ", " : "", op.args[i].name, op.args[i].optional ? "?" : "");
    throw CompileError("E302", span,
                       fmt::format("{}() takes {} positional argument{} but {} {} given", pretty,
                                   required == op.args.size() ? fmt::format("{}", required)
                                                              : fmt::format("{} to {}", required, op.args.size()),
                                   op.args.size() == 1 ? "" : "s", args.size(),
                                   args.size() == 1 ? "was" : "were"),
                       fmt::format("the signature is {}({})", pretty, sig));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i] || !arg_matches(op.args[i].kind, args[i]))
      // At the call: a Var operand's span is where it was defined, not this use.
      throw CompileError("E302", span,
                         fmt::format("argument '{}' of {}() must be {}, got {}", op.args[i].name,
                                     pretty, kind_noun(op.args[i].kind), type_noun(args[i] ? args[i]->type : nullptr)));
  }
  // Keywords: check names and kinds, then put them in schema order with defaults filled in.
  for (const auto& [k, v] : kwargs) {
    const KwSpec* spec = op.find_kwarg(k);
    if (!spec) {
      std::string known;
      for (const auto& s : op.kwargs) known += (known.empty() ? "" : ", ") + s.name;
      throw CompileError("E302", span, fmt::format("{}() got an unexpected keyword argument '{}'", pretty, k),
                         known.empty() ? fmt::format("{}() takes no keyword arguments", pretty)
                                       : fmt::format("accepted keywords: {}", known));
    }
    if (!attr_matches(*spec, v))
      throw CompileError("E302", span, fmt::format("keyword '{}' of {}() has the wrong kind of value", k, pretty));
  }
  std::vector<std::pair<std::string, AttrValue>> ordered;
  for (const auto& spec : op.kwargs) {
    AttrValue v = spec.default_value;
    for (const auto& [k, given] : kwargs)
      if (k == spec.name) v = given;
    ordered.emplace_back(spec.name, std::move(v));
  }
  CallArgs ca{args, ordered, span};
  TypePtr t = op.deduce ? op.deduce(ca) : nullptr;
  // A result that takes operand k's memory space, where the op accepts operand k in one space
  // only, is in that space: a vector op on a tile still sitting in Acc yields a Vec tile (the
  // operand moves to Vec in InferTileMemorySpace), as the reference leaves it to that pass.
  if (const auto* rt = as_tile(t); rt && rt->space && op.output_memory_inherit_input >= 0)
    for (const auto& [i, spaces] : op.input_memory)
      if (i == op.output_memory_inherit_input && spaces.size() == 1 && *rt->space != spaces[0]) {
        auto moved = std::make_shared<TileType>(*rt);
        moved->space = spaces[0];
        t = moved;
      }
  return std::make_shared<Call>(&op, std::string(), std::move(args), std::move(ordered), std::move(t), span);
}

CoreAffinity call_affinity(const Call& c) {
  if (!c.op) return CoreAffinity::Control;
  if (c.op->affinity_by_core_type) {
    const std::string_view who = c.kwarg_string("core_type");
    if (who == "aiv_only") return CoreAffinity::Vector;
    if (who == "aic_only") return CoreAffinity::Cube;
    return CoreAffinity::Shared;
  }
  if (!c.op->affinity_by_space) return c.op->affinity;
  auto is_cube = [](std::optional<MemorySpace> s) {
    return s && (*s == MemorySpace::Mat || *s == MemorySpace::Left || *s == MemorySpace::Right ||
                 *s == MemorySpace::Acc || *s == MemorySpace::Bias);
  };
  bool cube = false;
  if (const auto* t = as_tile(c.type)) cube |= is_cube(t->space);
  for (const auto& a : c.args)
    if (const auto* t = a ? as_tile(a->type) : nullptr) cube |= is_cube(t->space);
  if (const auto* k = c.kwarg("target_memory"))
    if (const auto* m = std::get_if<MemorySpace>(k)) cube |= is_cube(*m);
  return cube ? CoreAffinity::Cube : CoreAffinity::Vector;
}

std::shared_ptr<const Call> make_call(std::string_view op_name, std::vector<ExprPtr> args,
                                      std::vector<std::pair<std::string, AttrValue>> kwargs,
                                      const Span& span) {
  const OpDef* op = OpRegistry::instance().find(op_name);
  if (!op) throw CompileError("E300", span, fmt::format("Unknown operation '{}'", op_spelling(op_name)));
  return make_call(*op, std::move(args), std::move(kwargs), span);
}

AtomicMode atomic_mode(const Call& c) {
  const AttrValue* v = c.kwarg("atomic");
  const auto* e = v ? std::get_if<EnumLit>(v) : nullptr;
  if (!e || e->member == "None_") return AtomicMode::None;
  return e->member == "Add" ? AtomicMode::Add : AtomicMode::Other;
}

}  // namespace pypto::ir
