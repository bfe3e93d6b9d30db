// Statements → IR: assignment / rebinding / annotated assignment / tuple unpacking, the
// subscript-write sugar, expression statements, pl.static_assert / static_print / func_attr /
// dump_tag, if/elif/else with yields, return, break/continue, and the rejected Python statements
// (language.md §4); loops are in loop_builder.cpp, with-scopes in scope_builder.cpp. Errors are
// collected per statement so one run reports several.
#include <fmt/format.h>

#include "parser/builder.h"
#include "ir/visitor.h"

namespace pypto::parser {

using namespace ir;

namespace {

const std::map<std::string_view, std::string_view>& unsupported_stmts() {
  static const std::map<std::string_view, std::string_view> m = {
      {"augmented_assignment", "AugAssign"}, {"assert_statement", "Assert"}, {"try_statement", "Try"},
      {"raise_statement", "Raise"}, {"import_statement", "Import"}, {"import_from_statement", "ImportFrom"},
      {"future_import_statement", "ImportFrom"}, {"global_statement", "Global"}, {"nonlocal_statement", "Nonlocal"},
      {"delete_statement", "Delete"}, {"function_definition", "FunctionDef"}, {"decorated_definition", "FunctionDef"},
      {"class_definition", "ClassDef"}, {"match_statement", "Match"}, {"print_statement", "Print"},
      {"exec_statement", "Exec"}, {"type_alias_statement", "TypeAlias"}};
  return m;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= s.size()) {
    auto e = s.find('\n', b);
    std::string line = s.substr(b, e == std::string::npos ? std::string::npos : e - b);
    size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    line = line.substr(i);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    out.push_back(line);
    if (e == std::string::npos) break;
    b = e + 1;
  }
  while (!out.empty() && out.front().empty()) out.erase(out.begin());
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

// A scalar value as scalar type `to`: a literal is retyped, anything else cast.
ExprPtr convert_scalar(ExprPtr value, const TypePtr& to) {
  const DataType dt = as_scalar(to)->dtype;
  if (const auto* ci = as<ConstInt>(value))
    return dtype_is_float(dt) ? make_float(double(ci->value), value->span, dt)
           : dt == DataType::BOOL ? make_bool(ci->value != 0, value->span)
                                  : make_int(ci->value, value->span, dt);
  if (const auto* cf = as<ConstFloat>(value); cf && dtype_is_float(dt)) return make_float(cf->value, value->span, dt);
  return std::make_shared<Unary>(UnOp::Cast, value, to, value->span);
}

}  // namespace

std::vector<StmtPtr> FunctionBuilder::block(TSNode blk, int64_t prev_row, size_t skip_first) {
  NestingGuard guard(depth_, blk, file_);
  struct BlockScope {  // which block a name was bound in (a same-block rebinding may change its type)
    int& cur;
    int saved;
    BlockScope(int& c, int& next) : cur(c), saved(c) { cur = ++next; }
    ~BlockScope() { cur = saved; }
  } scope(cur_block_, next_block_);
  {  // a with-scope body: its scope was pushed since the enclosing block was entered
    auto parent = blocks_.find(scope.saved);
    const size_t n = scope_stack_.size();
    blocks_[cur_block_] = BlockInfo{scope.saved, n, parent != blocks_.end() && n > parent->second.scopes};
  }
  std::vector<StmtPtr> out;
  std::vector<std::string> pending;
  size_t idx = 0;
  for (TSNode c : children(blk)) {
    int64_t start = ts_node_start_point(c).row;
    auto comments = mod().comments_between(prev_row, start);
    pending.insert(pending.end(), comments.begin(), comments.end());
    prev_row = ts_node_end_point(c).row;
    if (idx++ < skip_first) {
      pending.clear();
      continue;
    }
    if (is(c, "pass_statement")) continue;
    if (is(c, "expression_statement")) {
      auto inner = children(c);
      std::string doc;
      if (inner.size() == 1 && string_value(inner[0], *file_, doc)) {
        auto lines = split_lines(doc);
        pending.insert(pending.end(), lines.begin(), lines.end());
        continue;
      }
    }
    try {
      auto stmts = stmt(c);
      if (!stmts.empty()) {
        attach_comments(stmts.front(), pending);
        pending.clear();
      }
      // A yield ends its block: anything after it would never be part of the loop / if result.
      if (!stmts.empty() && !out.empty() && as<YieldStmt>(out.back()))
        ctx_.record(CompileError("E008", out.back()->span,
                                 "pl.yield_ must be the last statement of its loop body or if branch",
                                 "move the statements after it before the pl.yield_, or remove the extra pl.yield_"));
      for (auto& s : stmts) out.push_back(std::move(s));
    } catch (const CompileError& e) {
      ctx_.record(e);
      // Names this statement would have bound are poisoned so later uses do not cascade.
      if (is(c, "expression_statement")) {
        auto inner = children(c);
        if (inner.size() == 1 && is(inner[0], "assignment")) {
          TSNode left = field(inner[0], "left");
          if (is(left, "identifier")) {
            names_.erase(txt(left));
            poisoned_.insert(txt(left));
          } else {
            for (TSNode t : children(left))
              if (is(t, "identifier") && !names_.count(txt(t))) poisoned_.insert(txt(t));
          }
        }
      }
    } catch (const PoisonedName&) {
    }
  }
  return out;
}

std::vector<StmtPtr> FunctionBuilder::stmt(TSNode n) {
  // A call in this statement that leaves trailing Out tensors to the runtime: their creations go
  // first (a statement nested in this one flushes its own before returning).
  std::vector<StmtPtr> out = stmt_only(n);
  if (pending_outputs_.empty()) return out;
  std::vector<StmtPtr> all = std::move(pending_outputs_);
  pending_outputs_.clear();
  all.insert(all.end(), out.begin(), out.end());
  return all;
}

std::vector<StmtPtr> FunctionBuilder::stmt_only(TSNode n) {
  const auto k = kind(n);
  // pl.func_attr({...}) statements form the prologue; anything else starts the body proper.
  bool prologue = false;
  if (k == "expression_statement" && children(n).size() == 1) {
    TSNode c = unparen(children(n)[0]);
    prologue = is(c, "call") && dotted_name(field(c, "function"), *file_) == "pl.func_attr";
  }
  if (!prologue) body_started_ = true;
  if (k == "expression_statement") {
    auto inner = children(n);
    if (inner.size() != 1) fail(n, "E001", "Unsupported statement type: multiple expressions");
    if (is(inner[0], "assignment")) return assignment(inner[0]);
    if (is(inner[0], "augmented_assignment")) fail(n, "E001", "Unsupported statement type: AugAssign",
                                                   "write x = x + y (or pl.add(x, y) for Tensor/Tile values)");
    return expression_stmt(n, inner[0]);
  }
  if (k == "for_statement") return for_stmt(n);
  if (k == "while_statement") return while_stmt(n);
  if (k == "if_statement") {
    std::vector<TSNode> alts = field_children(n, "alternative");
    return if_stmt(n, field(n, "condition"), field(n, "consequence"), alts, 0);
  }
  if (k == "with_statement") return with_stmt(n);
  if (k == "return_statement") return return_stmt(n);
  if (k == "break_statement" || k == "continue_statement") {
    const char* w = k == "break_statement" ? "break" : "continue";
    if (loops_.empty()) fail(n, "E011", fmt::format("'{}' outside loop", w));
    const auto& lk = loops_.back().kind;
    if (lk == "parallel" || lk == "unroll" || lk == "pipeline" || lk == "split_aiv")
      fail(n, "E011", fmt::format("'{}' not supported in {} loops", w, lk),
           "break/continue are allowed only in pl.range and while loops");
    if (k == "break_statement") return {std::make_shared<BreakStmt>(sp(n))};
    return {std::make_shared<ContinueStmt>(sp(n))};
  }
  if (auto it = unsupported_stmts().find(k); it != unsupported_stmts().end())
    fail(n, "E001", fmt::format("Unsupported statement type: {}", it->second));
  fail(n, "E001", fmt::format("Unsupported statement type: {}", k));
}

// Is a rebinding of `old` here the reference's same-depth jit rename? In the block that bound
// it, or in a with-scope body that follows the with-scope body binding it in the same block. Not
// across loop bodies (the name is the loop's carry) or if branches (the merge needs one variable).
bool FunctionBuilder::sibling_rebinding(const ir::Var* old) const {
  auto vb = var_block_.find(old);
  if (vb == var_block_.end()) return false;
  if (vb->second == cur_block_) return true;
  auto a = blocks_.find(vb->second), b = blocks_.find(cur_block_);
  return a != blocks_.end() && b != blocks_.end() && a->second.with_body && b->second.with_body &&
         a->second.parent == b->second.parent;
}

// Is block `outer` `inner` or one of the blocks around it?
bool FunctionBuilder::encloses(int outer, int inner) const {
  for (int b = inner;;) {
    if (b == outer) return true;
    auto it = blocks_.find(b);
    if (it == blocks_.end() || it->second.parent == b) return false;
    b = it->second.parent;
  }
}

StmtPtr FunctionBuilder::bind(const std::string& name, TSNode name_node, ExprPtr value, TypePtr ann, const Span& s) {
  // A cross-core pop without shape= / dtype= takes the annotated tile type.
  if (const auto* c = as<Call>(value); c && !value->type && (c->is_op("tile.tpop_from_aic") || c->is_op("tile.tpop_from_aiv"))) {
    if (!ann || !as_tile(ann))
      fail(name_node, "E302", fmt::format("pl.{}() needs shape= and dtype=, or a pl.Tile annotation on '{}'", c->op->name, name),
           fmt::format("write {}: pl.Tile[[64], pl.FP32] = pl.{}()", name, c->op->name));
    value = std::make_shared<Call>(c->op, c->callee, c->args, c->kwargs, ann, c->span);
  }
  if (!value->type || (as_tuple(value->type) && as_tuple(value->type)->elems.empty() && as<Call>(value)))
    fail(name_node, "E302", fmt::format("cannot assign '{}': the call returns no value", name));
  TypePtr t = value->type;
  if (ann) {
    if (!same_type(ann, t)) {
      const auto* as_ = as_scalar(ann);
      const auto* vs = as_scalar(t);
      if (as_ && vs) {
        value = convert_scalar(value, ann);  // scalars: a literal takes the annotated dtype, others are cast
      } else {
        fail(name_node, "E104",
             fmt::format("annotation of '{}' does not match its value: annotated {}, value is {}", name, type_str(ann),
                         type_str(t)));
      }
    }
    // A tile annotation without a memory space takes the value's (pl.Tile[[16, 16], pl.FP32] on
    // a load is the Vec tile the load makes, as without the annotation).
    const auto *at = as_tile(ann), *vt = as_tile(t);
    if (!(at && vt && !at->space && vt->space)) t = ann;
  }
  auto it = names_.find(name);
  VarPtr var;
  if (it != names_.end() && !loop_vars_.count(it->second.get())) {
    if (strict_ssa_) {
      // Bound in an enclosing block: a new variable of the same name shadows it from here on
      // (until a non-leaking scope ends), as the reference's strict scoping does. Bound in this
      // block (or a parameter): a second assignment, which strict SSA forbids.
      // Bound in a sibling block (both branches of an if bind it): the one variable the if merges.
      auto vb = var_block_.find(it->second.get());
      if (vb == var_block_.end() || vb->second == cur_block_)
        fail(name_node, "E201", fmt::format("Cannot reassign '{}' under strict_ssa", name), "bind the value to a new name");
      if (!encloses(vb->second, cur_block_)) {
        if (!same_type(it->second->type, t))
          fail(name_node, "E201",
               fmt::format("Cannot reassign '{}' with a different type: was {}, got {}", name, type_str(it->second->type),
                           type_str(t)),
               "bind the value to a new name");
        var = it->second;
      } else {
        shadowed_.emplace_back(name, it->second);
        var = make_var(name, t, sp(name_node));
        names_[name] = var;
        var_block_[var.get()] = cur_block_;
      }
    } else {
      // A tile moving memory space (x = pl.matmul(...) in Acc, then x = pl.add(x, b) in Vec) is a
      // new value for the jit renames below, though the same type to the front end otherwise.
      const auto *old_tile = as_tile(it->second->type), *new_tile = as_tile(t);
      const bool moves = old_tile && new_tile && old_tile->space && new_tile->space && *old_tile->space != *new_tile->space;
      const bool same_block = var_block_.count(it->second.get()) && var_block_.at(it->second.get()) == cur_block_;
      if (same_type(it->second->type, t) && same_block && valid_shape_differs(it->second->type, t)) {
        // Rebound in the block that bound it with another valid shape (t = pl.set_validshape(t, 1, 1)):
        // straight-line code, so the name denotes the new value, valid shape included, from here on
        // (one variable would keep the first valid shape for every later use).
        var = make_var(name, t, sp(name_node));
        names_[name] = var;
        var_block_[var.get()] = cur_block_;
      } else if (same_type(it->second->type, t) && !(moves && ctx_.is_jit && sibling_rebinding(it->second.get()))) {
        var = it->second;
      } else if (ctx_.is_jit && var_block_.count(it->second.get()) && var_block_.at(it->second.get()) == cur_block_ &&
                 it->second->type && t && it->second->type->kind == t->kind) {
        // Rebound in the block that bound it (x = pl.row_sum(...); x = pl.reshape(x, ...)): straight-line
        // code, so the name simply denotes a new value of the same kind from here on, as in Python.
        // Only in @pl.jit code, whose specialiser renames such rebindings (x_v1); a @pl.function
        // keeps one variable per name, so there it is E201 as below.
        var = make_var(name, t, sp(name_node));
        names_[name] = var;
        var_block_[var.get()] = cur_block_;
      } else if (ctx_.is_jit && sibling_rebinding(it->second.get())) {
        // @pl.jit: a rebinding in the block that bound the name, or in a later sibling with-scope
        // body (two pl.spmd bodies one after the other), is a new name whatever its type, as the
        // reference's jit rewrite renames it (x_v1); the earlier value is never read again there.
        var = make_var(name, t, sp(name_node));
        names_[name] = var;
        var_block_[var.get()] = cur_block_;
      } else if (const auto *was = as_scalar(it->second->type), *now = as_scalar(t);
                 was && now && dtype_is_int(was->dtype) && dtype_is_int(now->dtype)) {
        // An integer scalar rebound in another block (a loop body, a branch) with another integer
        // dtype (INDEX vs INT32 — in Python both are ints): the name keeps one variable, as in the
        // reference, so the value converts to its type and the carry has one type.
        value = convert_scalar(value, it->second->type);
        var = it->second;
      } else {
        fail(name_node, "E201",
             fmt::format("Cannot reassign '{}' with a different type: was {}, got {}", name, type_str(it->second->type),
                         type_str(t)),
             !ctx_.is_jit ? "outside @pl.jit code one name is one variable of one type; bind the value to a new name"
                          : "it was bound outside this block (a loop or branch would carry it with two types); bind the "
                            "value to a new name");
      }
    }
  } else {
    var = make_var(name, t, sp(name_node));
    names_[name] = var;
    var_block_[var.get()] = cur_block_;
  }
  poisoned_.erase(name);
  ++binding_gen_[name];
  return std::make_shared<AssignStmt>(var, value, s);
}

std::vector<StmtPtr> FunctionBuilder::assignment(TSNode n) {
  TSNode left = field(n, "left"), right = field(n, "right"), type = field(n, "type");
  const Span s = sp(n);
  if (is_null(right)) fail(n, "E001", "a bare annotation without a value is not supported");
  if (is(right, "assignment") || is(right, "augmented_assignment"))
    fail(n, "E001", "chained assignment (a = b = c) is not supported");
  if (is(right, "yield")) fail(right, "E001", "Unsupported statement type: Yield", "use pl.yield_(...)");
  // The called function's dotted name, computed once ("" when the value is not a call).
  const TSNode rcall = unparen(right);
  const std::string callee = is(rcall, "call") ? dotted_name(field(rcall, "function"), *file_) : std::string();
  if (callee == "pl.yield_") return yield_assign(n, left, rcall);
  if (is(left, "subscript")) {
    if (!is_null(type)) fail(n, "E001", "an annotated subscript assignment is not supported");
    return subscript_write(n, left, right);
  }
  if (is(left, "attribute")) fail(left, "E001", "assignment to an attribute is not supported");
  if (callee == "pld.alloc_window_buffer" || callee == "pld.tensor.alloc_window_buffer") {
    if (!is(left, "identifier"))
      fail(left, "E302", fmt::format("{}(...) must be bound to a plain name: buf = {}(nbytes)", callee, callee),
           "the name of the target is the window buffer's name");
    const std::string name = txt(left);
    if (!ctx_.window_buffers.insert(name).second)
      fail(left, "E302", fmt::format("window buffer name '{}' is already used in program '{}'", name, ctx_.program_name),
           "each pld.alloc_window_buffer binds a name unique in the program");
    window_alloc_rhs_ = rcall;
  }
  if (is(left, "identifier")) {
    std::string name = txt(left);
    if (name == "self" || name == "pl") fail(left, "E001", fmt::format("cannot assign to '{}'", name));
    if (callee == "pl.dynamic") {
      // jit sugar: a pl.dynamic symbol inside a body is hoisted to module level.
      auto args = children(field(unparen(right), "arguments"));
      std::string sym;
      if (args.size() != 1 || !string_value(unparen(args[0]), *file_, sym))
        fail(right, "E302", "pl.dynamic() takes one string literal");
      mod().dynamic_dim(name, sym, sp(right));
      return {};
    }
    TypePtr ann;
    if (!is_null(type)) ann = parse_type(type, nullptr, "");
    // `tid = None`: the "no producer yet" TaskId, pl.system.task_invalid().
    auto value = is(unparen(right), "none") ? ExprPtr(make_call("system.task_invalid", {}, {}, sp(right))) : expr(right);
    // n = pl.tensor.dim(x, k) where dim k of x is a pl.dynamic symbol: n names that symbol (no copy),
    // so shapes built from n are the shapes annotated with the symbol.
    if (const auto* c = as<Call>(value); c && c->is_op("tensor.dim") && c->args.size() == 2 && (!ann || as_scalar(ann))) {
      const auto* t = as_tensor(c->args[0]->type);
      auto k = const_int_value(c->args[1]);
      if (t && k && *k >= 0 && *k < int64_t(t->shape.size()) && mod().is_dynamic_symbol(t->shape[size_t(*k)])) {
        auto sym = std::static_pointer_cast<const Var>(t->shape[size_t(*k)]);
        auto it = names_.find(name);
        if (it == names_.end() || it->second == sym) {
          names_[name] = std::const_pointer_cast<Var>(sym);
          return {};
        }
      }
    }
    return {bind(name, left, value, ann, s)};
  }
  if (is(left, "pattern_list") || is(left, "tuple_pattern") || is(left, "list_pattern")) {
    if (!is_null(type)) fail(n, "E001", "an annotated tuple assignment is not supported");
    auto targets = children(left);
    for (TSNode t : targets)
      if (!is(t, "identifier")) fail(t, "E003", "tuple-unpacking targets must be names");
    auto value = expr(right);
    std::vector<StmtPtr> out;
    if (const auto* mt = as<MakeTuple>(value)) {
      if (mt->elems.size() != targets.size())
        fail(n, "E302", fmt::format("cannot unpack {} values into {} names", mt->elems.size(), targets.size()));
      // Python evaluates the whole right side first (`a, b = b, a` swaps): a value that reads a
      // variable an earlier target rebinds is copied to a temporary before any target is bound.
      std::set<const Var*> rebound;
      std::vector<ExprPtr> vals = mt->elems;
      for (size_t i = 0; i < targets.size(); ++i) {
        if (i > 0 && reads_any(vals[i], rebound)) {
          auto tmp = make_var(txt(targets[i]) + "_rhs", vals[i]->type, sp(targets[i]));
          out.push_back(std::make_shared<AssignStmt>(tmp, vals[i], s));
          vals[i] = tmp;
        }
        if (auto it = names_.find(txt(targets[i])); it != names_.end()) rebound.insert(it->second.get());
      }
      for (size_t i = 0; i < targets.size(); ++i) out.push_back(bind(txt(targets[i]), targets[i], vals[i], nullptr, s));
      return out;
    }
    const auto* tt = as_tuple(value->type);
    if (!tt) fail(right, "E302", fmt::format("cannot unpack {} into {} names", type_str(value->type), targets.size()));
    if (tt->elems.size() != targets.size())
      fail(n, "E302", fmt::format("cannot unpack {} values into {} names", tt->elems.size(), targets.size()));
    std::string tmp_name;
    for (TSNode t : targets) {
      if (!tmp_name.empty()) tmp_name += '_';
      tmp_name += txt(t);
    }
    auto tmp = make_var(tmp_name + "_tuple", value->type, sp(left));
    out.push_back(std::make_shared<AssignStmt>(tmp, value, s));
    for (size_t i = 0; i < targets.size(); ++i) {
      auto item = std::make_shared<TupleGetItem>(tmp, int(i), tt->elems[i], sp(targets[i]));
      out.push_back(bind(txt(targets[i]), targets[i], item, nullptr, s));
    }
    // `out, tid = pl.submit(...)`: remember which TaskId binding produced each result (predicate=).
    if (const auto* c = as<Call>(value); c && c->dispatch && c->dispatch->submit && targets.size() >= 2) {
      const std::string tid = txt(targets.back());
      for (size_t i = 0; i + 1 < targets.size(); ++i) produced_by_[txt(targets[i])] = {tid, binding_gen_[tid]};
    }
    return out;
  }
  fail(left, "E003", fmt::format("unsupported assignment target '{}'", txt(left)));
}

// Whether `e` reads one of `vars`.
bool FunctionBuilder::reads_any(const ExprPtr& e, const std::set<const Var*>& vars) {
  if (vars.empty() || !e) return false;
  struct Reads : IRVisitor {
    const std::set<const Var*>& vars;
    bool hit = false;
    explicit Reads(const std::set<const Var*>& v) : vars(v) {}
    void visit_var(const Var& v) override { hit = hit || vars.count(&v) > 0; }
    void visit_iter_arg(const IterArg& v) override {
      hit = hit || vars.count(&v) > 0;
      IRVisitor::visit_iter_arg(v);
    }
  } r(vars);
  r.visit(e);
  return r.hit;
}

std::vector<StmtPtr> FunctionBuilder::subscript_write(TSNode n, TSNode target, TSNode value) {
  TSNode base = unparen(field(target, "value"));
  if (!is(base, "identifier")) fail(target, "E301", "subscript-write target must be a name: dst[...] = value");
  if (strict_ssa_) fail(target, "E201", "subscript-write sugar is not allowed under strict_ssa");
  std::string name = txt(base);
  auto dst = expr(base);
  const Span s = sp(n);
  if (as_array(dst->type)) {  // arr[i] = v → array.update_element
    auto subs = field_children(target, "subscript");
    if (subs.size() != 1 || is(subs[0], "slice")) fail(target, "E301", "a pl.Array is written one element at a time: arr[i] = v");
    auto call = make_call("array.update_element", {dst, index_expr(subs[0], "an array index"), expr(value)}, {}, s);
    return {bind(name, base, call, nullptr, s)};
  }
  const auto* st = as_shaped(dst->type);
  if (!st) fail(base, "E301", fmt::format("cannot subscript-write into {}", type_str(dst->type)));
  auto w = window(*st, field_children(target, "subscript"), target, true);
  auto src = expr(value);
  if (as_scalar(src->type))
    fail(n, "E301", "Element-write 'dst[i, j] = scalar' is not supported", "use pl.write(dst, [i, j], value)");
  const std::string fam = st->kind == TypeKind::Tile ? "tile" : "tensor";
  // The source fills the window: one source axis per sliced (not indexed) target axis, each of the
  // window's extent (or of the source's valid extent) where both are known.
  std::vector<ExprPtr> kept;
  for (size_t d = 0; d < w.extents.size(); ++d)
    if (!w.dropped[d]) kept.push_back(w.extents[d]);
  const auto* ss = as_shaped(src->type);
  std::vector<ExprPtr> sshape = ss ? ss->shape : std::vector<ExprPtr>{};
  std::vector<ExprPtr> valid;
  if (const auto* tv = as_tensor(src->type); tv && tv->view) valid = tv->view->valid_shape;
  if (const auto* lv = as_tile(src->type); lv && lv->view) valid = lv->view->valid_shape;
  // A tile kept at 2-D ([1, N] for a row) has leading unit axes the window does not slice.
  while (sshape.size() > kept.size() && const_int_value(sshape.front()) == 1) {
    sshape.erase(sshape.begin());
    if (!valid.empty()) valid.erase(valid.begin());
  }
  if (ss && sshape.size() != kept.size() && ss->shape.size() != w.extents.size())
    fail(value, "E302",
         fmt::format("the source of this subscript-write must be {}D to match the {} sliced axes of the window, got {}",
                     kept.size(), kept.size(), type_str(src->type)),
         "slice the target so its window has the source's rank, or reshape the source");
  if (ss && sshape.size() == kept.size()) {
    for (size_t k = 0; k < kept.size(); ++k) {
      auto we = const_int_value(kept[k]), se = const_int_value(sshape[k]);
      if (k < valid.size() && !const_int_value(valid[k])) continue;  // a runtime valid extent is trusted
      auto ve = k < valid.size() ? const_int_value(valid[k]) : std::nullopt;
      if (we && se && *we != *se && !(ve && *ve == *we))
        fail(value, "E302",
             fmt::format("shape mismatch on source axis {}: the window is {} wide, the source {}", k, *we, *se),
             "make the slice as wide as the source");
    }
    // A rank-reducing write lifts the source to the window's rank: a unit axis per indexed axis,
    // the source's own extents elsewhere (a padded source keeps its static shape).
    if (ss->shape.size() != w.extents.size()) {
      std::vector<ExprPtr> lifted;
      size_t next = 0;
      for (size_t d = 0; d < w.extents.size(); ++d) lifted.push_back(w.dropped[d] ? make_int(1, sp(value)) : sshape[next++]);
      src = make_call(fam + ".reshape", {src, make_tuple(lifted, sp(value))}, {}, sp(value));
    }
  }
  auto call = make_call(fam + ".assemble", {dst, src, make_tuple(w.offsets, sp(target))}, {}, s);
  return {bind(name, base, call, nullptr, s)};
}

std::vector<StmtPtr> FunctionBuilder::yield_assign(TSNode n, TSNode left, TSNode call) {
  if (yields_.empty()) fail(call, "E008", "pl.yield_ outside of a loop or if");
  std::vector<TSNode> targets;
  if (is(left, "identifier")) targets.push_back(left);
  else if (is(left, "pattern_list") || is(left, "tuple_pattern")) targets = children(left);
  else fail(left, "E003", "pl.yield_ targets must be names");
  for (TSNode t : targets)
    if (!is(t, "identifier")) fail(t, "E003", "pl.yield_ targets must be names");
  std::vector<ExprPtr> values;
  for (TSNode a : children(field(call, "arguments"))) {
    if (is(a, "keyword_argument")) fail(a, "E302", "pl.yield_() takes no keyword arguments");
    values.push_back(expr(a));
  }
  if (values.size() != targets.size())
    fail(n, "E007", fmt::format("pl.yield_ yields {} values into {} names", values.size(), targets.size()));
  auto& fr = yields_.back();
  std::vector<TypePtr> types;
  for (auto& v : values) types.push_back(v->type);
  if (fr.is_loop) {
    if (values.size() != fr.expect.size())
      fail(n, "E007", fmt::format("Mismatch: {} iter_args but pl.yield_ yields {} values", fr.expect.size(), values.size()));
    for (size_t i = 0; i < values.size(); ++i)
      if (!same_type(fr.expect[i], types[i]))
        fail(values[i]->span.valid() ? children(field(call, "arguments"))[i] : call, "E201",
             fmt::format("pl.yield_ value {} has type {} but the iter_arg has type {}", i, type_str(types[i]),
                         type_str(fr.expect[i])));
    types = fr.expect;
  }
  if (fr.seen) {
    if (fr.names.size() != targets.size())
      fail(n, "E007", fmt::format("this pl.yield_ binds {} names but an earlier one binds {}", targets.size(), fr.names.size()));
    for (size_t i = 0; i < targets.size(); ++i) {
      if (txt(targets[i]) != fr.names[i])
        fail(targets[i], "E007", fmt::format("yield target '{}' differs from '{}' in the other branch", txt(targets[i]), fr.names[i]));
      if (!same_type(types[i], fr.types[i]))
        fail(targets[i], "E201",
             fmt::format("yield of '{}' has type {} here but {} in the other branch", fr.names[i], type_str(types[i]),
                         type_str(fr.types[i])));
    }
  } else {
    fr.seen = true;
    for (TSNode t : targets) {
      fr.names.push_back(txt(t));
      fr.name_nodes.push_back(t);
    }
    fr.types = types;
  }
  return {std::make_shared<YieldStmt>(std::move(values), sp(n))};
}

std::vector<StmtPtr> FunctionBuilder::expression_stmt(TSNode n, TSNode e) {
  e = unparen(e);
  const auto& f = *file_;
  if (is(e, "call")) {
    std::string dn = dotted_name(field(e, "function"), f);
    // a.bind_dynamic(0, M) on a parameter: applied to its type with the signature; no statement.
    if (dn.size() > 13 && dn.ends_with(".bind_dynamic")) {
      if (!bound_dynamic_.count(e.id))
        fail(e, "E302", fmt::format("{}() must be a statement at the top of the function body on one of its "
                                    "parameters: NAME.bind_dynamic(DIM, pl.dynamic symbol)", dn),
             "bind a parameter's dimension to a pl.dynamic symbol, e.g. x.bind_dynamic(0, M)");
      return {};
    }
    if (dn == "pl.static_assert") {
      auto args = children(field(e, "arguments"));
      if (args.empty() || args.size() > 2 || is(args[0], "keyword_argument"))
        fail(e, "E302", "pl.static_assert() takes (condition, \"message\")");
      std::string msg;
      if (args.size() == 2 && !string_value(unparen(args[1]), f, msg))
        fail(args[1], "E302", "static_assert() message must be a string literal");
      auto v = try_const(args[0]);
      if (!v) fail(args[0], "E304", "static_assert() condition must be a compile-time constant");
      bool ok = v->is_bool() ? std::get<bool>(v->v) : v->is_int() ? v->as_int() != 0 : !v->is_none();
      if (!ok)
        fail(e, "E305", msg.empty() ? fmt::format("static_assert failed: {}", txt(args[0]))
                                    : fmt::format("static_assert failed: {}", msg));
      return {};
    }
    if (dn == "pl.static_print") {
      if (children(field(e, "arguments")).empty())
        fail(e, "E302", "static_print() requires at least one argument", "write pl.static_print(x) or pl.static_print(\"msg\", x)");
      std::string out;
      for (TSNode a : children(field(e, "arguments"))) {
        auto v = try_const(a);
        std::string s;
        if (v && v->is_str()) s = std::get<std::string>(v->v);
        else if (v) s = v->repr();
        else if (is(unparen(a), "string")) {  // an f-string over DSL values: printed as written
          for (TSNode part : children(unparen(a)))
            if (is(part, "interpolation"))
              for (TSNode x : children(part))
                if (is(x, "type_conversion") || is(x, "format_specifier"))
                  fail(x, "E302",
                       fmt::format("static_print() f-strings do not support {} ('{}')",
                                   is(x, "type_conversion") ? "conversions" : "format specs", txt(x)),
                       "write the placeholder plainly: f\"{x}\"");
          s = txt(a);
        }
        else s = type_str(expr(a)->type);
        out += (out.empty() ? "" : " ") + s;
      }
      ctx_.sink.report(Diagnostic{Severity::Note, "N001", out, sp(e), {}, {}});
      return {};
    }
    if (dn == "pl.yield_") {
      // A bare pl.yield_() yields nothing: a branch or loop body without results, no IR.
      if (children(field(e, "arguments")).empty() && !(!yields_.empty() && !yields_.back().expect.empty()))
        return {};
      if (!yields_.empty() && yields_.back().is_loop && !yields_.back().expect.empty())
        fail(e, "E008", "a loop with init_values requires an assignment-form pl.yield_: x = pl.yield_(...)");
      fail(e, "E008", "pl.yield_ requires an assignment-form pl.yield_: x = pl.yield_(...)");
    }
    if (dn.ends_with(".bind_dynamic") && std::count(dn.begin(), dn.end(), '.') == 1 && names_.count(dn.substr(0, dn.find('.'))))
      return bind_dynamic_stmt(e, dn.substr(0, dn.find('.')));
    if (dn == "pl.func_attr") return func_attr_stmt(n, e);
    if (dn == "pl.dump_tag") return dump_tag_stmt(e);
    if (dn == "pl.submit" || dn == "pl.spmd_submit")
      fail(e, "E302", fmt::format("{}(...) must be assigned: out, tid = {}(self.k, ...)", dn, dn),
           "the call returns the kernel's results and the producer TaskId");
    if (dn == "pl.dynamic") fail(e, "E302", "pl.dynamic() must be assigned: M = pl.dynamic(\"M\")");
    auto v = expr(e);
    // An op that updates its first operand in place and returns it (registry: the tensor it
    // writes, pl.write / pl.assemble; the tile its result reuses, pl.tile.write / scatter /
    // fillpad_inplace), called for its effect on a name: the statement updates that name, as
    // `x = pl.write(x, idx, v)` does. (Views reuse their operand too, but change nothing.) Not under
    // strict_ssa, where a name is bound once: there the statement stays an in-place effect.
    if (const auto* c = as<Call>(v); !strict_ssa_ && c && c->op && !c->args.empty()) {
      const bool updates = c->op->written_tensor == 0 ||
                           (c->op->output_reuses_input == 0 && c->op->pipe_rule != PipeRule::NotInstruction);
      const auto* target = as<Var>(c->args[0]);
      if (updates && target && c->type && same_type(target->type, c->type))
        if (auto it = names_.find(target->name); it != names_.end() && it->second.get() == target)
          return {std::make_shared<AssignStmt>(it->second, v, sp(n))};
    }
    return {std::make_shared<EvalStmt>(v, sp(n))};
  }
  if (is(e, "ellipsis")) return {};
  fail(n, "E001", fmt::format("Unsupported statement type: expression statement '{}'", txt(n)),
       "an expression statement must be a call such as pl.store(...) or self.k(...)");
}

// jit sugar `x.bind_dynamic(axis, M)`: dimension `axis` of tensor x is the pl.dynamic symbol M. With
// x annotated with M there, it only confirms the annotation (no IR); a dimension that is
// something else is an error.
std::vector<StmtPtr> FunctionBuilder::bind_dynamic_stmt(TSNode call, const std::string& name) {
  auto a = split_args(*this, call);
  if (a.pos.size() != 2 || !a.kw.empty())
    fail(call, "E302", fmt::format("{}.bind_dynamic() takes (axis, symbol)", name), "write x.bind_dynamic(0, M)");
  const auto& v = names_.at(name);
  const auto* t = as_tensor(v->type);
  if (!t) fail(call, "E302", fmt::format("'{}' is {}; bind_dynamic applies to tensors", name, type_str(v->type)));
  auto axis = try_const(a.pos[0]);
  if (!axis || !axis->is_int() || axis->as_int() < 0 || axis->as_int() >= int64_t(t->shape.size()))
    fail(a.pos[0], "E302", fmt::format("the axis must be a constant in 0..{} for '{}'", t->shape.size() - 1, name));
  auto sym = expr(a.pos[1]);
  const auto* sv = as<Var>(sym);
  if (!sv) fail(a.pos[1], "E302", "the second argument of bind_dynamic is a pl.dynamic symbol", "write M = pl.dynamic(\"M\")");
  const auto& dim = t->shape[size_t(axis->as_int())];
  if (dim.get() != sym.get())
    fail(call, "E302",
         fmt::format("dimension {} of '{}' is {}, not the dynamic symbol {}", axis->as_int(), name, expr_str(dim), sv->name),
         fmt::format("annotate '{}' with {} in that dimension", name, sv->name));
  return {};
}

ExprPtr FunctionBuilder::cond_expr(TSNode n, const char* what) {
  n = unparen(n);
  if (is(n, "comparison_operator") && field_children(n, "operators").size() > 1)
    fail(n, "E303", "Only simple comparisons supported");
  auto c = expr(n);
  const auto* st = as_scalar(c->type);
  if (!st || st->dtype != DataType::BOOL)
    fail(n, "E106", fmt::format("{} condition must be a Bool-typed scalar expression, got {}", what, type_str(c->type)),
         "compare explicitly, e.g. `if n > 0:`");
  return c;
}

std::vector<StmtPtr> FunctionBuilder::if_stmt(TSNode n, TSNode cond_node, TSNode cons, std::vector<TSNode> alts,
                                              size_t ai) {
  auto cond = cond_expr(cond_node, "if");
  yields_.push_back(YieldFrame{});
  std::vector<StmtPtr> then_b;
  const size_t then_mark = shadow_mark();
  try {
    then_b = block(cons, ts_node_start_point(cond_node).row);
  } catch (...) {
    yields_.pop_back();
    throw;
  }
  YieldFrame then_fr = yields_.back();
  yields_.pop_back();
  if (then_fr.seen) unshadow(then_mark);  // an if with results: its branches' names do not leak
  StmtPtr else_body;
  YieldFrame else_fr;
  if (ai < alts.size()) {
    TSNode alt = alts[ai];
    yields_.push_back(YieldFrame{});
    std::vector<StmtPtr> else_b;
    const size_t else_mark = shadow_mark();
    try {
      if (is(alt, "elif_clause")) {
        auto inner = if_stmt(alt, field(alt, "condition"), field(alt, "consequence"), alts, ai + 1);
        // An elif chain with results: the nested if's return vars are this arm's yield.
        if (then_fr.seen && !inner.empty()) {
          const auto* nested = as<IfStmt>(inner.back());
          if (nested && !nested->return_vars.empty()) {
            std::vector<ExprPtr> vals(nested->return_vars.begin(), nested->return_vars.end());
            auto& fr = yields_.back();
            fr.seen = true;
            for (const auto& v : nested->return_vars) {
              fr.names.push_back(v->name);
              fr.types.push_back(v->type);
            }
            inner.push_back(std::make_shared<YieldStmt>(std::move(vals), sp(alt)));
          }
        }
        else_b = std::move(inner);
      } else {
        else_b = block(field(alt, "body"), ts_node_start_point(alt).row);
      }
    } catch (...) {
      yields_.pop_back();
      throw;
    }
    else_fr = yields_.back();
    yields_.pop_back();
    if (then_fr.seen || else_fr.seen) unshadow(else_mark);
    else_body = make_body(std::move(else_b), sp(alt));
  }
  std::vector<VarPtr> rvs;
  if (then_fr.seen || else_fr.seen) {
    if (!then_fr.seen || !else_fr.seen)
      fail(n, "E008", "an if with pl.yield_ needs a pl.yield_ of the same names in both branches",
           "add an else branch ending in the same pl.yield_");
    if (then_fr.names != else_fr.names)
      fail(n, "E007", "both branches of an if must pl.yield_ the same names");
    for (size_t i = 0; i < then_fr.types.size(); ++i)
      if (!same_type(then_fr.types[i], else_fr.types[i]))
        fail(n, "E201", fmt::format("'{}' is yielded as {} in one branch and {} in the other", then_fr.names[i],
                                    type_str(then_fr.types[i]), type_str(else_fr.types[i])));
    for (size_t i = 0; i < then_fr.names.size(); ++i) {
      auto v = make_var(then_fr.names[i], then_fr.types[i], sp(then_fr.name_nodes[i]));
      names_[then_fr.names[i]] = v;
      poisoned_.erase(then_fr.names[i]);
      rvs.push_back(v);
    }
  }
  auto then_body = make_body(std::move(then_b), sp(cons));
  return {std::make_shared<IfStmt>(cond, then_body, else_body, std::move(rvs), sp(n))};
}

std::vector<StmtPtr> FunctionBuilder::return_stmt(TSNode n) {
  std::vector<ExprPtr> values;
  auto c = children(n);
  if (!c.empty()) {
    TSNode v = c[0];
    if (is(v, "expression_list") || is(v, "tuple")) {  // `return a, b` and `return (a, b)` alike
      for (TSNode e : children(v)) values.push_back(expr(e));
    } else {
      values.push_back(expr(v));
    }
  }
  check_jit_bare_return(n, values);
  if (jit_declared_return_ && values.size() == 1 && !same_type(values[0]->type, jit_declared_return_) &&
      !jit_return_warned_) {
    jit_return_warned_ = true;
    ctx_.sink.report(Diagnostic{Severity::Warning, "W012",
                                fmt::format("'{}' is annotated to return {} but returns {}; a @pl.jit function returns "
                                            "the type of the value it returns (as the reference derives it)",
                                            fn_->name, type_str(jit_declared_return_), type_str(values[0]->type)),
                                sp(jit_declared_return_node_), "fix the return annotation", {}});
  }
  if (!ret_annotated_) {
    std::vector<TypePtr> ts;
    for (auto& v : values) ts.push_back(v->type);
    if (!ret_known_) {
      fn_->return_types = ts;
      ret_known_ = true;
    } else if (ts.size() != fn_->return_types.size()) {
      fail(n, "E302", fmt::format("return has {} values but an earlier return has {}", ts.size(), fn_->return_types.size()));
    }
  } else if (values.size() != fn_->return_types.size()) {
    fail(n, "E302", fmt::format("return has {} values but '{}' declares {}", values.size(), fn_->name, fn_->return_types.size()));
  } else {
    for (size_t i = 0; i < values.size(); ++i)
      if (!same_type(values[i]->type, fn_->return_types[i]))
        fail(c.empty() ? n : c[0], "E104",
             fmt::format("return value {} has type {} but '{}' declares {}", i, type_str(values[i]->type), fn_->name,
                         type_str(fn_->return_types[i])));
  }
  return {std::make_shared<ReturnStmt>(std::move(values), sp(n))};
}

}  // namespace pypto::parser
