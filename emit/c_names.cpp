// Identifier sanitising and uniquing (c_names.h).
#include "emit/c_names.h"

#include <cctype>
#include <string_view>

namespace pypto::emit {

namespace {

// C++ keywords, names the generated code itself uses, and names pto-isa's CPU stub / our
// runtime define as macros or functions.
constexpr std::string_view kReserved[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case",
    "catch", "char", "class", "compl", "concept", "const", "consteval", "constexpr", "constinit",
    "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
    "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float",
    "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
    "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
    "register", "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw",
    "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
    "volatile", "wchar_t", "while", "xor", "xor_eq", "main", "std", "pto", "args", "orch_args",
    "kernel_entry", "half", "bfloat16_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
    "uint16_t", "uint32_t", "uint64_t", "size_t", "dcci", "set_flag", "wait_flag", "pipe_barrier",
    "set_mask_norm", "set_vector_mask", "set_atomic_none", "set_atomic_add", "get_block_idx",
    "get_block_num", "get_sub_block_id", "get_dma_workspace", "pipe_t", "event_t", "to_u64",
    "from_u64", "Tile", "TileType", "BLayout", "SLayout", "Shape", "Stride", "Layout",
    "GlobalTensor", "ChipTensor", "DataType", "PadValue", "CompactMode", "RoundMode", "CmpMode",
    "AICORE", "__gm__", "__aicore__", "TASSIGN", "EVENT_ID0", "EVENT_ID1", "EVENT_ID2", "EVENT_ID3",
    "EVENT_ID4", "EVENT_ID5", "EVENT_ID6", "EVENT_ID7", "PIPE_S", "PIPE_V", "PIPE_M", "PIPE_MTE1",
    "PIPE_MTE2", "PIPE_MTE3", "PIPE_FIX", "PIPE_ALL", "alloc_tensors", "CoreTaskArgs",
    "TensorCreateInfo", "TaskOutputTensors", "PTO2_SCOPE", "pypto_floordiv", "pypto_floormod",
    "NULL", "EOF", "assert", "errno", "stdin", "stdout", "stderr",
    // <cmath> / libc names a generated local must not shadow
    "exp", "log", "sqrt", "abs", "fabs", "min", "max", "floor", "ceil", "pow", "sin", "cos", "round", "trunc"};

bool reserved(const std::string& s) {
  for (auto r : kReserved)
    if (s == r) return true;
  // pto-isa instruction macros/functions are upper-case T-names (TADD, TLOAD, ...).
  if (s.size() > 1 && s[0] == 'T') {
    bool upper = true;
    for (char c : s) upper = upper && (std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_');
    if (upper) return true;
  }
  return false;
}

// Drops an SSA suffix `__ssa_v3`, `__iter_v1`, `__phi_v0`, ... (everything from the first "__"
// that follows a non-underscore character).
std::string strip_ssa(const std::string& n) {
  for (size_t i = 1; i + 1 < n.size(); ++i)
    if (n[i] == '_' && n[i + 1] == '_' && n[i - 1] != '_') return n.substr(0, i);
  return n;
}

}  // namespace

std::string sanitize_identifier(const std::string& raw) {
  std::string s;
  for (char c : strip_ssa(raw)) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    const char out = ok ? c : '_';
    if (out == '_' && !s.empty() && s.back() == '_') continue;  // no "__" (reserved in C++)
    s.push_back(out);
  }
  while (!s.empty() && s.front() == '_') s.erase(s.begin());
  while (!s.empty() && s.back() == '_') s.pop_back();
  if (s.empty()) s.push_back('v');
  if (std::isdigit(static_cast<unsigned char>(s[0]))) s = std::string("v").append(s);
  if (reserved(s)) s += "_v";
  return s;
}

std::string NameTable::fresh(const std::string& base) {
  const std::string b = sanitize_identifier(base);
  if (used_.insert(b).second) return b;
  for (int n = 1;; ++n) {
    std::string cand = b + "_" + std::to_string(n);
    if (used_.insert(cand).second) return cand;
  }
}

const std::string& NameTable::name(const ir::Var* v) {
  auto it = names_.find(v);
  if (it != names_.end()) return it->second;
  return names_.emplace(v, fresh(v->name)).first->second;
}

void NameTable::bind(const ir::Var* v, std::string id) {
  used_.insert(id);
  names_[v] = std::move(id);
}

}  // namespace pypto::emit
