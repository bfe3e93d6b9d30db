// Names of the printed text (see printer_names.h): literals, identifier sanitising, and the
// pre-scan of the Vars a function's text mentions.
#include "ir/printer_names.h"

#include <fmt/format.h>

#include <cctype>
#include <set>

namespace pypto::ir::printer_detail {

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

// Names that cannot be used as a local in the printed text (they get a trailing '_').
bool is_reserved_name(std::string_view s) {
  static const std::set<std::string_view> kReserved = {
      "pl", "pld", "self", "False", "None", "True", "and", "as", "assert", "async", "await", "break",
      "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
      "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
      "return", "try", "while", "with", "yield"};
  return kReserved.count(s) != 0;
}

// A valid, non-reserved Python identifier derived from a name hint.
std::string sanitize(std::string_view hint) {
  std::string s;
  for (char c : hint) {
    unsigned char u = static_cast<unsigned char>(c);
    s += (std::isalnum(u) || c == '_') ? c : '_';
  }
  if (s.empty()) s = "v";
  if (std::isdigit(static_cast<unsigned char>(s[0]))) s = "v" + s;
  if (is_reserved_name(s)) s += '_';
  return s;
}

void Scan::var(const Var* v) {
  if (!v || !seen.insert(v).second) return;
  order.push_back(v);
  type(v->type);
}
void Scan::bind(const Var* v) {
  if (!v) return;
  bound.insert(v);
  var(v);
}
void Scan::exprs(const std::vector<ExprPtr>& es) {
  for (const auto& e : es) expr(e);
}
void Scan::type(const TypePtr& t) {
  if (const auto* sh = as_shaped(t)) {
    exprs(sh->shape);
    if (const auto* tt = as_tensor(t); tt && tt->view) {
      exprs(tt->view->stride);
      exprs(tt->view->valid_shape);
    }
    if (sh->memref) {
      var(sh->memref->base.get());
      expr(sh->memref->offset);
    }
    if (const auto* tl = as_tile(t); tl && tl->view) {
      exprs(tl->view->valid_shape);
      exprs(tl->view->stride);
      expr(tl->view->start_offset);
      exprs(tl->view->buffer_shape);
    }
  } else if (const auto* tu = as_tuple(t)) {
    for (const auto& e : tu->elems) type(e);
  }
}
void Scan::expr(const ExprPtr& e) {
  if (!e) return;
  switch (e->kind) {
    case NodeKind::Var:
    case NodeKind::IterArg: var(static_cast<const Var*>(e.get())); break;
    case NodeKind::Binary: {
      const auto& b = static_cast<const Binary&>(*e);
      expr(b.a);
      expr(b.b);
      break;
    }
    case NodeKind::Unary: expr(static_cast<const Unary&>(*e).a); break;
    case NodeKind::Call: {
      const auto& c = static_cast<const Call&>(*e);
      exprs(c.args);
      if (c.dispatch) exprs(c.dispatch->exprs());
      break;
    }
    case NodeKind::MakeTuple: exprs(static_cast<const MakeTuple&>(*e).elems); break;
    case NodeKind::TupleGetItem: expr(static_cast<const TupleGetItem&>(*e).tuple); break;
    default: break;
  }
}
void Scan::stmt(const StmtPtr& s) {
  if (!s) return;
  switch (s->kind) {
    case NodeKind::AssignStmt: {
      const auto& a = static_cast<const AssignStmt&>(*s);
      bind(a.var.get());
      expr(a.value);
      break;
    }
    case NodeKind::EvalStmt: expr(static_cast<const EvalStmt&>(*s).expr); break;
    case NodeKind::ReturnStmt: exprs(static_cast<const ReturnStmt&>(*s).values); break;
    case NodeKind::YieldStmt: exprs(static_cast<const YieldStmt&>(*s).values); break;
    case NodeKind::SeqStmts:
      for (const auto& c : static_cast<const SeqStmts&>(*s).stmts) stmt(c);
      break;
    case NodeKind::IfStmt: {
      const auto& i = static_cast<const IfStmt&>(*s);
      expr(i.cond);
      for (const auto& rv : i.return_vars) bind(rv.get());
      stmt(i.then_body);
      stmt(i.else_body);
      break;
    }
    case NodeKind::ForStmt: {
      const auto& f = static_cast<const ForStmt&>(*s);
      bind(f.loop_var.get());
      for (const auto& ia : f.iter_args) bind(ia.get());
      expr(f.start);
      expr(f.stop);
      expr(f.step);
      for (const auto& ia : f.iter_args) expr(ia->init);
      for (const auto& rv : f.return_vars) bind(rv.get());
      stmt(f.body);
      break;
    }
    case NodeKind::WhileStmt: {
      const auto& w = static_cast<const WhileStmt&>(*s);
      for (const auto& ia : w.iter_args) bind(ia.get());
      for (const auto& ia : w.iter_args) expr(ia->init);
      expr(w.cond);
      for (const auto& rv : w.return_vars) bind(rv.get());
      stmt(w.body);
      break;
    }
    case NodeKind::ScopeStmt: {
      const auto& sc = static_cast<const ScopeStmt&>(*s);
      exprs(sc.header_exprs());
      bind(sc.task_id.get());  // printed in the header: `with ... as tid:`
      stmt(sc.body);
      break;
    }
    default: break;
  }
}

}  // namespace pypto::ir::printer_detail
