// The IR printer (see printer.h; the format is specified in ir/TEXT_FORMAT.md).
//
// Two steps per function: a scan collects every Var the printed text will mention (binding sites,
// uses, Vars inside types) so names can be disambiguated up front, then the printer walks the
// IR in print order. Expressions print with minimal parentheses by Python precedence.
#include "ir/printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "ir/call_graph.h"
#include "ir/op_registry.h"
#include "ir/printer_names.h"
#include "ir/visitor.h"

namespace pypto::ir {
namespace {

using namespace printer_detail;

// ------------------------------------------------------------------ precedence

// Python precedence levels, loosest first.
enum Prec : int {
  kNone = 0, kOr, kAnd, kNot, kCmp, kBitOr, kBitXor, kBitAnd, kShift, kAdd, kMul, kUnary, kPow, kAtom
};

struct BinSyntax {
  std::string_view text;  // " + " for infix operators, "pl.min" for function forms
  int prec;
  bool infix;
};

BinSyntax bin_syntax(BinOp op) {
  switch (op) {
    case BinOp::Add: return {" + ", kAdd, true};
    case BinOp::Sub: return {" - ", kAdd, true};
    case BinOp::Mul: return {" * ", kMul, true};
    case BinOp::FloorDiv: return {" // ", kMul, true};
    case BinOp::FloorMod: return {" % ", kMul, true};
    case BinOp::FloatDiv: return {" / ", kMul, true};
    case BinOp::Pow: return {" ** ", kPow, true};
    case BinOp::Eq: return {" == ", kCmp, true};
    case BinOp::Ne: return {" != ", kCmp, true};
    case BinOp::Lt: return {" < ", kCmp, true};
    case BinOp::Le: return {" <= ", kCmp, true};
    case BinOp::Gt: return {" > ", kCmp, true};
    case BinOp::Ge: return {" >= ", kCmp, true};
    case BinOp::And: return {" and ", kAnd, true};
    case BinOp::Or: return {" or ", kOr, true};
    case BinOp::BitAnd: return {" & ", kBitAnd, true};
    case BinOp::BitOr: return {" | ", kBitOr, true};
    case BinOp::BitXor: return {" ^ ", kBitXor, true};
    case BinOp::Shl: return {" << ", kShift, true};
    case BinOp::Shr: return {" >> ", kShift, true};
    case BinOp::Min: return {"pl.min", kAtom, false};
    case BinOp::Max: return {"pl.max", kAtom, false};
    case BinOp::Xor: return {"pl.xor", kAtom, false};  // logical xor has no Python operator
  }
  return {"?", kAtom, false};
}

bool is_const_index(const ExprPtr& e, int64_t v) {
  const auto* c = as<ConstInt>(e);
  return c && c->dtype() == DataType::INDEX && c->value == v;
}

std::string dtype_ref(DataType dt) { return fmt::format("pl.{}", dtype_name(dt)); }

// ------------------------------------------------------------------ the printer

class Printer {
 public:
  std::string out;

  // ---- scopes of names
  void begin_program(const Program& p) {
    Namer dims;
    for (const auto& d : p.dynamic_dims)
      if (d) dims.reserve_hint(d.get());
    for (const auto& d : p.dynamic_dims)
      if (d) dyn_names_[d.get()] = dims.name(d.get());
  }
  // Fresh names for a function (or a standalone statement): dims keep their program names.
  void begin_scope(const Scan& scan) {
    namer_ = Namer();
    for (const auto& [v, n] : dyn_names_) namer_.fix(v, n);
    for (const Var* v : scan.order) namer_.reserve_hint(v);
    bound_ = scan.bound;
  }
  const std::string& name(const Var* v) { return namer_.name(v); }

  // ---- program / function
  void program(const Program& p) {
    begin_program(p);
    std::string header = fmt::format("# pypto.program: {}\nimport pypto.language as pl\n", p.name);
    std::string head_out;
    std::swap(out, head_out);
    for (const auto& d : p.dynamic_dims) {
      if (!d) continue;
      const std::string& n = dyn_names_[d.get()];
      out += fmt::format("{} = pl.dynamic({})\n", n, quote(n));
    }
    if (!p.dynamic_dims.empty()) out += "\n";
    out += fmt::format("@pl.program\nclass {}:\n", p.name);
    indent_ = 1;
    auto fns = topo_order(p);
    for (size_t i = 0; i < fns.size(); ++i) {
      if (i) out += "\n";
      function(*fns[i]);
    }
    if (fns.empty()) line("pass");
    indent_ = 0;
    // The distributed module is imported only by programs that use it (known once printed).
    if (uses_pld_) header += "import pypto.language.distributed as pld\n";
    out = head_out + header + "\n" + out;
  }

  void function(const Function& f) {
    Scan scan;
    for (const auto& p : f.params) scan.bind(p.get());
    for (const auto& a : f.attrs) scan.expr(a.expr);
    for (const auto& t : f.return_types) scan.type(t);
    scan.stmt(f.body);
    begin_scope(scan);

    comments(f.leading_comments);
    std::vector<std::string> deco;
    if (f.type != FunctionType::Opaque) deco.push_back(fmt::format("type=pl.FunctionType.{}", to_string(f.type)));
    if (f.level) deco.push_back(fmt::format("level=pl.Level.{}", to_string(*f.level)));
    if (f.role) deco.push_back(fmt::format("role=pl.Role.{}", to_string(*f.role)));
    if (!f.auto_scope) deco.push_back("auto_scope=False");
    if (f.strict_ssa) deco.push_back("strict_ssa=True");
    if (const FuncAttr* ext = find_attr(f, "external_source"); ext && !ext->expr && !ext->is_list)
      deco.push_back("external_source=" + print_attr(ext->value));
    line(deco.empty() ? std::string("@pl.function") : "@pl.function(" + join(deco) + ")");

    std::vector<std::string> params;
    if (f.role != Role::SubWorker) params.push_back("self");
    for (size_t i = 0; i < f.params.size(); ++i) {
      const auto& p = f.params[i];
      std::string n = p ? name(p.get()) : std::string("_");
      std::string t = type(p ? p->type : nullptr);
      ParamDirection d = i < f.param_directions.size() ? f.param_directions[i] : ParamDirection::In;
      if (d == ParamDirection::Out) t = "pl.Out[" + t + "]";
      if (d == ParamDirection::InOut) t = "pl.InOut[" + t + "]";
      params.push_back(n + ": " + t);
    }
    std::string ret;
    if (f.return_types.size() == 1) {
      ret = " -> " + type(f.return_types[0]);
    } else if (f.return_types.size() > 1) {
      std::vector<std::string> ts;
      for (const auto& t : f.return_types) ts.push_back(type(t));
      ret = " -> tuple[" + join(ts) + "]";
    }
    line(fmt::format("def {}({}){}:", f.name, join(params), ret));
    ++indent_;
    size_t before = stmt_lines_;
    func_attrs(f);
    stmt(f.body);
    if (stmt_lines_ == before) line("pass");
    --indent_;
  }

  // The function attributes other than external_source, as the body's first statement:
  // `pl.func_attr({"split": pl.SplitMode.UP_DOWN, "stationary": w})`.
  void func_attrs(const Function& f) {
    std::vector<std::string> items;
    for (const auto& a : f.attrs) {
      if (a.key == "external_source" && !a.expr && !a.is_list) continue;
      std::string v;
      if (a.expr) {
        v = expr(a.expr);
      } else if (a.is_list) {
        std::vector<std::string> es;
        for (const auto& x : a.list) es.push_back(print_attr(x));
        v = "[" + join(es) + "]";
      } else {
        v = print_attr(a.value);
      }
      items.push_back(quote(a.key) + ": " + v);
    }
    if (!items.empty()) line("pl.func_attr({" + join(items) + "})");
  }

  // ---- statements
  void stmt(const StmtPtr& s) {
    if (!s) return;
    if (const auto* y = as<YieldStmt>(s); y && y->values.empty() && targets().empty()) return;
    comments(s->leading_comments);
    switch (s->kind) {
      case NodeKind::SeqStmts:
        for (const auto& c : static_cast<const SeqStmts&>(*s).stmts) stmt(c);
        break;
      case NodeKind::AssignStmt: {
        const auto& a = static_cast<const AssignStmt&>(*s);
        std::string n = a.var ? name(a.var.get()) : std::string("_");
        if (a.var && a.var->type) n += ": " + type(a.var->type);
        line(n + " = " + expr(a.value));
        break;
      }
      case NodeKind::EvalStmt: line(expr(static_cast<const EvalStmt&>(*s).expr)); break;
      case NodeKind::ReturnStmt: {
        const auto& r = static_cast<const ReturnStmt&>(*s);
        line(r.values.empty() ? std::string("return") : "return " + exprs(r.values));
        break;
      }
      case NodeKind::YieldStmt: {
        const auto& y = static_cast<const YieldStmt&>(*s);
        std::string lhs = targets().empty() ? std::string() : names(targets()) + " = ";
        line(lhs + "pl.yield_(" + exprs(y.values) + ")");
        break;
      }
      case NodeKind::BreakStmt: line("break"); break;
      case NodeKind::ContinueStmt: line("continue"); break;
      case NodeKind::IfStmt: if_stmt(static_cast<const IfStmt&>(*s)); break;
      case NodeKind::ForStmt: for_stmt(static_cast<const ForStmt&>(*s)); break;
      case NodeKind::WhileStmt: while_stmt(static_cast<const WhileStmt&>(*s)); break;
      case NodeKind::ScopeStmt: scope_stmt(static_cast<const ScopeStmt&>(*s)); break;
      default: break;
    }
  }

  void if_stmt(const IfStmt& s) {
    line("if " + expr(s.cond) + ":");
    targets_.push_back(&s.return_vars);
    block(s.then_body);
    if (s.else_body) {
      line("else:");
      block(s.else_body);
    }
    targets_.pop_back();
  }

  void for_stmt(const ForStmt& s) {
    std::string head = "for " + (s.loop_var ? name(s.loop_var.get()) : std::string("_"));
    if (!s.iter_args.empty()) head += ", " + carry_tuple(s.iter_args);
    std::vector<std::string> args;
    bool start0 = !s.start || is_const_index(s.start, 0);
    bool step1 = !s.step || is_const_index(s.step, 1);
    if (!start0 || !step1) args.push_back(s.start ? expr(s.start) : "0");
    args.push_back(expr(s.stop));
    if (!step1) args.push_back(expr(s.step));
    if (s.kind == ForKind::Pipeline) args.push_back(fmt::format("stage={}", s.stage));
    if (!s.iter_args.empty()) args.push_back("init_values=" + init_tuple(s.iter_args));
    line(fmt::format("{} in pl.{}({}):", head, to_string(s.kind), join(args)));
    targets_.push_back(&s.return_vars);
    block(s.body);
    targets_.pop_back();
  }

  void while_stmt(const WhileStmt& s) {
    targets_.push_back(&s.return_vars);
    if (s.iter_args.empty()) {
      line("while " + expr(s.cond) + ":");
      block(s.body);
    } else {
      std::string carries = carry_tuple(s.iter_args);
      line("for " + carries + " in pl.while_(init_values=" + init_tuple(s.iter_args) + "):");
      ++indent_;
      line("pl.cond(" + expr(s.cond) + ")");
      stmt(s.body);
      --indent_;
    }
    targets_.pop_back();
  }

  void scope_stmt(const ScopeStmt& s) {
    if (s.scope == ScopeKind::SplitAiv) return split_aiv_stmt(s);
    std::vector<std::string> args;
    std::string head;
    switch (s.scope) {
      case ScopeKind::InCore:
      case ScopeKind::Hierarchy:
        head = "pl.at";
        if (s.level || s.scope == ScopeKind::InCore)
          args.push_back(fmt::format("level=pl.Level.{}", to_string(s.level.value_or(Level::CORE_GROUP))));
        if (s.role) args.push_back(fmt::format("role=pl.Role.{}", to_string(*s.role)));
        break;
      case ScopeKind::Cluster: head = "pl.cluster"; break;
      case ScopeKind::Spmd:
        head = "pl.spmd";
        if (s.core_num) args.push_back(expr(s.core_num));
        if (s.sync_start) args.push_back("sync_start=True");
        break;
      case ScopeKind::Runtime: head = s.manual ? "pl.manual_scope" : "pl.scope"; break;
      case ScopeKind::SplitAiv: break;
    }
    std::vector<std::string> opts;
    if (s.split) opts.push_back(fmt::format("pl.split(pl.SplitMode.{})", to_string(*s.split)));
    if (s.slot_num) opts.push_back(fmt::format("pl.cross_core_slot(slot_num={})", *s.slot_num));
    if (!opts.empty()) args.push_back("optimizations=[" + join(opts) + "]");
    if (!s.name_hint.empty() && s.scope != ScopeKind::Runtime) args.push_back("name_hint=" + quote(s.name_hint));
    if (!s.deps.empty()) args.push_back("deps=[" + exprs(s.deps) + "]");
    if (!s.no_dep_args.empty()) args.push_back("no_dep_args=[" + names(s.no_dep_args) + "]");
    if (!s.dumps.empty()) args.push_back("dumps=[" + names(s.dumps) + "]");
    if (s.allow_early_resolve) args.push_back("allow_early_resolve=True");
    if (s.windowize) args.push_back("windowize=True");
    if (s.predicate) args.push_back("predicate=" + expr(s.predicate));
    std::string as_tid = s.task_id ? " as " + name(s.task_id.get()) : std::string();
    line(fmt::format("with {}({}){}:", head, join(args), as_tid));
    block(s.body);
  }

  // `for lane in pl.split_aiv(2, mode=pl.SplitMode.X):` — the region's first statement
  // `lane = pl.tile.get_subblock_idx()` is the loop variable.
  void split_aiv_stmt(const ScopeStmt& s) {
    auto stmts = flatten_body(s.body);
    const auto* first = stmts.empty() ? nullptr : as<AssignStmt>(stmts[0]);
    const auto* c = first ? as<Call>(first->value) : nullptr;
    const bool lane = c && c->is_op("tile.get_subblock_idx") && first->leading_comments.empty();
    std::string lane_name = lane ? name(first->var.get()) : std::string("_lane");
    line(fmt::format("for {} in pl.split_aiv(2, mode=pl.SplitMode.{}):", lane_name,
                     to_string(s.split.value_or(SplitMode::NONE))));
    ++indent_;
    ++split_aiv_depth_;
    size_t before = stmt_lines_;
    for (size_t i = lane ? 1 : 0; i < stmts.size(); ++i) stmt(stmts[i]);
    if (stmt_lines_ == before) line("pass");
    --split_aiv_depth_;
    --indent_;
  }

  // ---- expressions
  std::string expr(const ExprPtr& e) {
    if (!e) return "None";
    switch (e->kind) {
      case NodeKind::Var:
      case NodeKind::IterArg: return name(static_cast<const Var*>(e.get()));
      case NodeKind::ConstInt: {
        const auto& c = static_cast<const ConstInt&>(*e);
        if (c.dtype() == DataType::INDEX) return std::to_string(c.value);
        return fmt::format("pl.const({}, {})", c.value, dtype_ref(c.dtype()));
      }
      case NodeKind::ConstFloat: {
        const auto& c = static_cast<const ConstFloat&>(*e);
        std::string v = format_float(c.value);
        if (!std::isfinite(c.value)) return fmt::format("pl.const({}, {})", quote(v), dtype_ref(c.dtype()));
        if (c.dtype() == DataType::FP32) return v;
        return fmt::format("pl.const({}, {})", v, dtype_ref(c.dtype()));
      }
      case NodeKind::ConstBool: return static_cast<const ConstBool&>(*e).value ? "True" : "False";
      case NodeKind::Binary: {
        const auto& b = static_cast<const Binary&>(*e);
        BinSyntax syn = bin_syntax(b.op);
        if (!syn.infix) {
          std::string l = expr(b.a);
          return fmt::format("{}({}, {})", syn.text, l, expr(b.b));
        }
        int lmin = syn.prec, rmin = syn.prec + 1;  // left-associative
        if (syn.prec == kCmp) lmin = rmin = kCmp + 1;  // comparisons would chain
        if (syn.prec == kPow) lmin = kAtom, rmin = kUnary;  // right-associative, -x allowed right
        std::string l = operand(b.a, lmin);
        return l + std::string(syn.text) + operand(b.b, rmin);
      }
      case NodeKind::Unary: {
        const auto& u = static_cast<const Unary&>(*e);
        switch (u.op) {
          case UnOp::Neg: return "-" + operand(u.a, kPow);
          case UnOp::BitNot: return "~" + operand(u.a, kPow);
          case UnOp::Not: return "not " + operand(u.a, kNot);
          case UnOp::Abs: return "pl.abs(" + expr(u.a) + ")";
          case UnOp::Cast: {
            const auto* st = as_scalar(u.type);
            return fmt::format("pl.cast({}, {})", expr(u.a), st ? dtype_ref(st->dtype) : "None");
          }
        }
        return "?";
      }
      case NodeKind::Call: return call(static_cast<const Call&>(*e));
      case NodeKind::MakeTuple: return "[" + exprs(static_cast<const MakeTuple&>(*e).elems) + "]";
      case NodeKind::TupleGetItem: {
        const auto& t = static_cast<const TupleGetItem&>(*e);
        return fmt::format("{}[{}]", operand(t.tuple, kAtom), t.index);
      }
      default: return "?";
    }
  }

  std::string call(const Call& c) {
    std::vector<std::string> parts;
    const Dispatch* d = c.dispatch.get();
    for (size_t i = 0; i < c.args.size(); ++i) {
      std::string a = expr(c.args[i]);
      if (d && std::find(d->no_dep_args.begin(), d->no_dep_args.end(), int(i)) != d->no_dep_args.end())
        a = "pl.no_dep(" + a + ")";
      parts.push_back(a);
    }
    // Inside a pl.split_aiv region aiv_shard / aic_gather take the region's split (the reader adds it).
    const bool region_split = split_aiv_depth_ > 0 && c.op && (c.op->name.ends_with(".aiv_shard") || c.op->name.ends_with(".aic_gather"));
    for (const auto& [k, v] : c.kwargs) {
      const KwSpec* spec = c.op ? c.op->find_kwarg(k) : nullptr;
      if (spec && v == spec->default_value) continue;
      if (region_split && k == "split") continue;
      if (const auto* e = std::get_if<EnumLit>(&v); e && is_pld_enum(e->enum_name)) uses_pld_ = true;
      parts.push_back(k + "=" + print_attr(v));
    }
    const bool submit = d && d->submit;
    if (d) {
      if (d->core_num) parts.push_back("core_num=" + expr(d->core_num));
      if (d->sync_start) parts.push_back("sync_start=True");
      if (!d->deps.empty()) parts.push_back("deps=[" + exprs(d->deps) + "]");
      if (submit && !d->dumps.empty()) parts.push_back("dumps=[" + names(d->dumps) + "]");
      if (d->allow_early_resolve) parts.push_back("allow_early_resolve=True");
      if (d->predicate) parts.push_back("predicate=" + expr(d->predicate));
      if (d->device) parts.push_back("device=" + expr(d->device));
    }
    std::vector<std::string> attrs;
    if (!c.arg_directions.empty()) {
      std::vector<std::string> ds;
      for (auto dir : c.arg_directions) ds.push_back(fmt::format("pl.adir.{}", to_string(dir)));
      attrs.push_back("\"arg_directions\": [" + join(ds) + "]");
    }
    if (d && !submit && !d->dumps.empty()) attrs.push_back("\"dump_vars\": [" + names(d->dumps) + "]");
    if (d && !d->compiler_deps.empty()) attrs.push_back("\"compiler_manual_dep_edges\": [" + names(d->compiler_deps) + "]");
    if (!attrs.empty()) parts.push_back("attrs={" + join(attrs) + "}");
    if (c.op) {
      if (c.op->family() == "pld") uses_pld_ = true;
      return (c.op->family() == "pld" ? "" : "pl.") + c.op->name + "(" + join(parts) + ")";
    }
    if (submit) {
      parts.insert(parts.begin(), "self." + c.callee);
      return std::string(d->spmd ? "pl.spmd_submit(" : "pl.submit(") + join(parts) + ")";
    }
    return "self." + c.callee + "(" + join(parts) + ")";
  }

  // ---- types
  std::string type(const TypePtr& t) {
    if (!t) return "None";
    switch (t->kind) {
      case TypeKind::Scalar: return "pl.Scalar[" + dtype_ref(static_cast<const ScalarType&>(*t).dtype) + "]";
      case TypeKind::Ptr:
        if (is_comm_ctx(t)) {
          uses_pld_ = true;
          return "pld.CommCtx";
        }
        return "pl.Ptr";
      case TypeKind::Array: {
        const auto& a = static_cast<const ArrayType&>(*t);
        return fmt::format("pl.Array[{}, {}]", a.extent, dtype_ref(a.dtype));
      }
      case TypeKind::Tuple: {
        const auto& tu = static_cast<const TupleType&>(*t);
        if (tu.elems.empty()) return "pl.Tuple[()]";
        std::vector<std::string> es;
        for (const auto& e : tu.elems) es.push_back(type(e));
        return "pl.Tuple[" + join(es) + "]";
      }
      case TypeKind::Tensor: {
        const auto& tt = static_cast<const TensorType&>(*t);
        std::vector<std::string> slots{list(tt.shape), dtype_ref(tt.dtype)};
        if (tt.view) slots.push_back(tensor_view(*tt.view));
        if (tt.memref) slots.push_back(memref(*tt.memref));
        if (tt.distributed) {
          uses_pld_ = true;
          return "pld.DistributedTensor[" + join(slots) + "]";
        }
        return "pl.Tensor[" + join(slots) + "]";
      }
      case TypeKind::Tile: {
        const auto& tl = static_cast<const TileType&>(*t);
        std::vector<std::string> slots{list(tl.shape), dtype_ref(tl.dtype)};
        if (tl.memref) slots.push_back(memref(*tl.memref));
        if (tl.space) slots.push_back(fmt::format("pl.Mem.{}", to_string(*tl.space)));
        if (tl.view) slots.push_back(tile_view(*tl.view));
        return "pl.Tile[" + join(slots) + "]";
      }
    }
    return "None";
  }

  std::string tensor_view(const TensorView& v) {
    std::vector<std::string> f;
    if (!v.stride.empty()) f.push_back("stride=" + list(v.stride));
    if (v.layout != TensorLayout::ND) f.push_back(fmt::format("layout=pl.TensorLayout.{}", to_string(v.layout)));
    if (!v.valid_shape.empty()) f.push_back("valid_shape=" + list(v.valid_shape));
    if (v.pad != PadValue::null) f.push_back(fmt::format("pad=pl.PadValue.{}", to_string(v.pad)));
    return "pl.TensorView(" + join(f) + ")";
  }

  std::string tile_view(const TileView& v) {
    std::vector<std::string> f;
    if (!v.valid_shape.empty()) f.push_back("valid_shape=" + list(v.valid_shape));
    if (!v.stride.empty()) f.push_back("stride=" + list(v.stride));
    if (v.start_offset) f.push_back("start_offset=" + expr(v.start_offset));
    if (!v.buffer_shape.empty()) f.push_back("buffer_shape=" + list(v.buffer_shape));
    if (v.blayout) f.push_back(fmt::format("blayout=pl.TileLayout.{}", to_string(*v.blayout)));
    if (v.slayout) f.push_back(fmt::format("slayout=pl.TileLayout.{}", to_string(*v.slayout)));
    if (v.fractal) f.push_back(fmt::format("fractal={}", *v.fractal));
    if (v.pad) f.push_back(fmt::format("pad=pl.PadValue.{}", to_string(*v.pad)));
    if (v.compact) f.push_back(fmt::format("compact=pl.CompactMode.{}", to_string(*v.compact)));
    return "pl.TileView(" + join(f) + ")";
  }

  // A base with a binding site in scope prints as its name; DDR bases (no alloc) as a string.
  std::string memref(const MemRef& m) {
    std::string base = "None";
    if (m.base) base = bound_.count(m.base.get()) ? name(m.base.get()) : quote(name(m.base.get()));
    std::string offset = expr(m.offset);
    return fmt::format("pl.MemRef({}, {}, {})", base, offset, m.size);
  }

 private:
  Namer namer_;
  std::unordered_map<const Var*, std::string> dyn_names_;
  std::unordered_set<const Var*> bound_;
  std::vector<const std::vector<VarPtr>*> targets_;  // return_vars of the enclosing for/while/if
  int indent_ = 0;
  bool uses_pld_ = false;  // the text names pld.* (the program header imports it)
  int split_aiv_depth_ = 0;  // inside a pl.split_aiv region
  size_t stmt_lines_ = 0;  // printed non-comment lines (an empty block needs `pass`)

  const std::vector<VarPtr>& targets() {
    static const std::vector<VarPtr> kNone;
    return targets_.empty() ? kNone : *targets_.back();
  }

  void line(const std::string& s, bool is_comment = false) {
    out.append(static_cast<size_t>(indent_) * 4, ' ');
    out += s;
    out += '\n';
    if (!is_comment) ++stmt_lines_;
  }

  void comments(const std::vector<std::string>& cs) {
    for (const auto& c : cs) {
      size_t b = 0;
      while (true) {
        size_t e = c.find('\n', b);
        std::string_view l = std::string_view(c).substr(b, e == std::string::npos ? std::string::npos : e - b);
        // The front end keeps a comment's text after "# " (one blank), so "# " + text reads back
        // as the same text: a comment indented after its '#' keeps its indentation.
        std::string text = "#";
        if (!l.empty()) text += ' ';
        text += l;
        line(text, true);
        if (e == std::string::npos) break;
        b = e + 1;
      }
    }
  }

  void block(const StmtPtr& body) {
    ++indent_;
    size_t before = stmt_lines_;
    stmt(body);
    if (stmt_lines_ == before) line("pass");
    --indent_;
  }

  std::string operand(const ExprPtr& e, int min_prec) {
    std::string s = expr(e);
    return prec(e) < min_prec ? "(" + s + ")" : s;
  }

  static int prec(const ExprPtr& e) {
    if (!e) return kAtom;
    switch (e->kind) {
      case NodeKind::ConstInt: {
        const auto& c = static_cast<const ConstInt&>(*e);
        return c.dtype() == DataType::INDEX && c.value < 0 ? kUnary : kAtom;
      }
      case NodeKind::ConstFloat: {
        const auto& c = static_cast<const ConstFloat&>(*e);
        return c.dtype() == DataType::FP32 && std::isfinite(c.value) && std::signbit(c.value) ? kUnary : kAtom;
      }
      case NodeKind::Binary: return bin_syntax(static_cast<const Binary&>(*e).op).prec;
      case NodeKind::Unary:
        switch (static_cast<const Unary&>(*e).op) {
          case UnOp::Neg:
          case UnOp::BitNot: return kUnary;
          case UnOp::Not: return kNot;
          default: return kAtom;
        }
      default: return kAtom;
    }
  }

  std::string exprs(const std::vector<ExprPtr>& es) {
    std::vector<std::string> parts;
    for (const auto& e : es) parts.push_back(expr(e));
    return join(parts);
  }
  std::string list(const std::vector<ExprPtr>& es) { return "[" + exprs(es) + "]"; }
  std::string names(const std::vector<VarPtr>& vs) {
    std::vector<std::string> parts;
    for (const auto& v : vs) parts.push_back(v ? name(v.get()) : "_");
    return join(parts);
  }
  std::string carry_tuple(const std::vector<IterArgPtr>& ias) {
    std::vector<std::string> parts;
    for (const auto& ia : ias) parts.push_back(ia ? name(ia.get()) : "_");
    return "(" + join(parts) + (parts.size() == 1 ? ",)" : ")");
  }
  std::string init_tuple(const std::vector<IterArgPtr>& ias) {
    std::vector<std::string> parts;
    for (const auto& ia : ias) parts.push_back(ia ? expr(ia->init) : "None");
    return "(" + join(parts) + (parts.size() == 1 ? ",)" : ")");
  }
};

}  // namespace

std::string format_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

bool is_pld_enum(std::string_view enum_name) { return enum_name.rfind("pld.", 0) == 0; }

std::string print_attr(const AttrValue& v) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      if (std::isnan(d)) return "math.nan";
      if (std::isinf(d)) return d < 0 ? "-math.inf" : "math.inf";
      return format_float(d);
    }
    std::string operator()(const std::string& s) const { return quote(s); }
    std::string operator()(DataType t) const { return dtype_ref(t); }
    std::string operator()(MemorySpace m) const { return fmt::format("pl.Mem.{}", to_string(m)); }
    std::string operator()(TileLayout l) const { return fmt::format("pl.TileLayout.{}", to_string(l)); }
    std::string operator()(TensorLayout l) const { return fmt::format("pl.TensorLayout.{}", to_string(l)); }
    std::string operator()(PadValue p) const { return fmt::format("pl.PadValue.{}", to_string(p)); }
    std::string operator()(CompactMode c) const { return fmt::format("pl.CompactMode.{}", to_string(c)); }
    std::string operator()(const EnumLit& e) const {
      return is_pld_enum(e.enum_name) ? fmt::format("{}.{}", e.enum_name, e.member)
                                      : fmt::format("pl.{}.{}", e.enum_name, e.member);
    }
  };
  return std::visit(Visitor{}, v);
}

std::string print_program(const Program& p) {
  Printer pr;
  pr.program(p);
  return std::move(pr.out);
}

std::string print_function(const Function& f) {
  Printer pr;
  pr.function(f);
  return std::move(pr.out);
}

std::string print_stmt(const StmtPtr& s) {
  Printer pr;
  Scan scan;
  scan.stmt(s);
  pr.begin_scope(scan);
  pr.stmt(s);
  return std::move(pr.out);
}

std::string print_expr(const ExprPtr& e) {
  Printer pr;
  Scan scan;
  scan.expr(e);
  pr.begin_scope(scan);
  return pr.expr(e);
}

std::string print_type(const TypePtr& t) {
  Printer pr;
  Scan scan;
  scan.type(t);
  pr.begin_scope(scan);
  return pr.type(t);
}

}  // namespace pypto::ir
