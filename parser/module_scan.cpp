// Module scan: constants, dynamic symbols, imports, config classes and functions, DSL
// declarations and comments (see module_scan.h). Looking a global up and evaluating it is
// module_lookup.cpp; globals bound more than once, module_rebind.cpp.
#include "parser/module_scan.h"

#include <algorithm>
#include <fmt/format.h>

#include "ir/diagnostic.h"
#include "parser/module_set.h"

namespace pypto::parser {

namespace {

// Full-line comments (only blanks before the '#' on their line), in document order so `out` is
// sorted by row. Candidate lines are found in the text and confirmed by the CST (a '#' inside a
// multi-line string is not a comment): walking every node of the tree instead cost ~20% of the
// raw parse time.
void collect_comments(TSNode root, const ir::SourceFile& f, std::vector<Comment>& out) {
  const std::string& s = f.text;
  for (uint32_t row = 0; row < f.line_starts.size(); ++row) {
    uint32_t b = f.line_starts[row];
    while (b < s.size() && (s[b] == ' ' || s[b] == '\t')) ++b;
    if (b >= s.size() || s[b] != '#') continue;
    TSNode n = ts_node_named_descendant_for_byte_range(root, b, b);
    if (!is_comment(n) || ts_node_start_byte(n) != b) continue;
    std::string t = text(n, f);
    if (!t.empty() && t[0] == '#') t.erase(0, 1);
    if (!t.empty() && t[0] == ' ') t.erase(0, 1);
    while (!t.empty() && (t.back() == '\r' || t.back() == ' ')) t.pop_back();
    out.push_back(Comment{row, t});
  }
}

std::string deco_name(TSNode e, const ir::SourceFile& f) {
  if (is(e, "call")) return dotted_name(field(e, "function"), f);
  return dotted_name(e, f);
}

}  // namespace

bool host_module(const std::string& m) {
  static const char* kHost[] = {"torch", "numpy", "np", "argparse", "os", "sys", "pathlib", "typing", "functools",
                                "__future__", "golden", "collections", "itertools", "json", "re", "time", "logging",
                                "subprocess", "shutil", "abc", "enum", "copy", "contextlib", "warnings", "random",
                                "pytest", "unittest", "textwrap", "inspect", "struct", "tempfile", "ctypes",
                                "importlib", "types", "string", "hashlib", "datetime", "glob", "io", "platform",
                                "socket", "threading", "multiprocessing", "signal", "traceback", "atexit",
                                "statistics", "fractions", "decimal", "numbers", "weakref", "queue", "heapq",
                                "bisect", "array", "csv", "pickle", "zlib", "gzip", "shlex", "uuid", "secrets",
                                "concurrent", "asyncio", "dis", "pprint", "difflib", "fnmatch", "errno", "stat"};
  const std::string root = m.substr(0, m.find('.'));
  for (const char* h : kHost)
    if (root == h) return true;
  return root == "pypto" && m != "pypto.language";
}

std::optional<DeclKind> classify_decorator(TSNode e, const ir::SourceFile& f, bool& is_program) {
  is_program = false;
  std::string n = deco_name(e, f);
  if (n == "pl.program") {
    is_program = true;
    return DeclKind::Function;
  }
  if (n == "pl.function") return DeclKind::Function;
  if (n == "pl.inline") return DeclKind::Function;  // a standalone @pl.inline: an Inline function (parse_decorator)
  if (n == "pl.jit") return DeclKind::Jit;
  if (n == "pl.jit.incore") return DeclKind::JitIncore;
  if (n == "pl.jit.inline") return DeclKind::JitInline;
  if (n == "pl.jit.opaque") return DeclKind::JitOpaque;
  if (n == "pl.jit.host") return DeclKind::JitHost;
  if (n == "pl.jit.extern") return DeclKind::JitExtern;
  return std::nullopt;
}

ModuleInfo::ModuleInfo(ModuleSet& set, const CstTree& tree, std::string module_name)
    : set_(set), tree_(&tree), file_(tree.file()), name_(std::move(module_name)) {
  const auto& f = *file_;
  collect_comments(tree.root(), f, comments_);
  int64_t prev_row = -1;
  // The plain defs the tree leaves out (an imported module's, parse_cache.h) take their places in
  // source order among the tree's statements: a later definition of a name wins.
  const std::vector<DeferredDef>& later = tree.deferred();
  size_t next_deferred = 0;
  auto take_deferred = [&](uint32_t before) {
    for (; next_deferred < later.size() && later[next_deferred].start_byte < before; ++next_deferred) {
      const DeferredDef& d = later[next_deferred];
      auto fn = std::make_unique<ConstFunction>();
      fn->name = d.name;
      fn->env = this;
      fn->deferred = [&tree, i = next_deferred] { return tree.deferred_node(i); };
      deferred_[d.name] = next_deferred;
      functions_[d.name] = std::move(fn);
      bind(d.name, Binding::Function, TSNode{}, next_deferred, d.start_byte);
      prev_row = d.last_row;
    }
  };
  for (TSNode top : children(tree.root())) {
    take_deferred(ts_node_start_byte(top));
    int64_t start_row = ts_node_start_point(top).row;
    if (is(top, "expression_statement")) {
      auto c = children(top);
      if (c.size() == 1 && is(c[0], "augmented_assignment") && is(field(c[0], "left"), "identifier"))
        bind(text(field(c[0], "left"), f), Binding::Augmented, c[0], SIZE_MAX, ts_node_start_byte(top));
      if (c.size() == 1 && is(c[0], "assignment")) {
        // `A = B = value` binds every target to the value, left to right.
        std::vector<TSNode> targets{field(c[0], "left")};
        TSNode right = field(c[0], "right");
        while (!is_null(right) && is(right, "assignment")) {
          targets.push_back(field(right, "left"));
          right = field(right, "right");
        }
        for (TSNode left : targets) {
          if (is(left, "identifier") && !is_null(right)) {
            std::string name = text(left, f);
            assigns_[name] = right;
            values_.erase(name);
            tuple_assigns_.erase(name);
            TSNode r = unparen(right);
            const bool dynamic = is(r, "call") && dotted_name(field(r, "function"), f) == "pl.dynamic";
            if (dynamic) {
              auto args = children(field(r, "arguments"));
              std::string sym = name;
              if (!args.empty()) string_value(args[0], f, sym);
              dyn_.erase(name);
              dynamic_dim(name, sym, span_of(r, file_));
            }
            bind(name, dynamic ? Binding::Dynamic : Binding::Assign, right, SIZE_MAX, ts_node_start_byte(top));
          } else if ((is(left, "pattern_list") || is(left, "tuple_pattern")) && !is_null(right)) {
            auto names = children(left);
            for (size_t i = 0; i < names.size(); ++i)
              if (is(names[i], "identifier")) {
                std::string name = text(names[i], f);
                assigns_.erase(name);
                values_.erase(name);
                tuple_assigns_[name] = {right, i};
                bind(name, Binding::Assign, right, i, ts_node_start_byte(top));
              }
          }
        }
      }
    } else if (is(top, "import_statement") || is(top, "import_from_statement")) {
      scan_import(top);
    } else if (is(top, "try_statement")) {
      // `try: from x import y / except ImportError: ...`: the imports of the try body count.
      for (TSNode s : children(field(top, "body")))
        if (is(s, "import_statement") || is(s, "import_from_statement")) scan_import(s);
    } else if (is(top, "if_statement")) {
      // `if M.name == "flash": @pl.jit.inline def f(...) ... else: ...`: f is the definition of the
      // branch the (constant) condition selects, decided when f is first needed.
      std::vector<TSNode> bodies{field(top, "consequence")};
      for (TSNode alt : field_children(top, "alternative"))
        bodies.push_back(field(alt, is(alt, "elif_clause") ? "consequence" : "body"));
      for (TSNode b : bodies)
        for (TSNode st : children(b))
          if (is(st, "decorated_definition"))
            if (auto fd = dsl_function_decl(st)) {
              cond_defs_[fd->name] = top;
              values_.erase(fd->name);
              bind(fd->name, Binding::CondDef, TSNode{}, SIZE_MAX, ts_node_start_byte(top));
            }
    } else if (is(top, "class_definition")) {
      scan_const_class(top, TSNode{});
      const std::string name = text(field(top, "name"), f);
      bind(name, Binding::Class, top, SIZE_MAX, ts_node_start_byte(top)).cls = classes_.at(name).get();
    } else if (is(top, "function_definition")) {
      // A builder that defines DSL code in its body is a factory.
      for (TSNode st : children(field(top, "body"))) {
        if (!is(st, "decorated_definition")) continue;
        bool dsl = false;
        for (TSNode d : children(st))
          if (is(d, "decorator") && !children(d).empty()) {
            bool prog = false;
            dsl = dsl || classify_decorator(children(d)[0], f, prog).has_value();
          }
        if (dsl) factories_[text(field(top, "name"), f)] = top;
      }
      auto fn = std::make_unique<ConstFunction>();
      fn->name = text(field(top, "name"), f);
      fn->env = this;
      fn->def = top;
      bind(fn->name, Binding::Function, top, SIZE_MAX, ts_node_start_byte(top));
      functions_[fn->name] = std::move(fn);
    } else if (is(top, "decorated_definition")) {
      TSNode def = field(top, "definition");
      bool dsl = false;
      for (TSNode d : children(top)) {
        if (!is(d, "decorator")) continue;
        auto de = children(d);
        if (de.empty()) continue;
        bool is_program = false;
        auto k = classify_decorator(de[0], f, is_program);
        if (!k) continue;
        dsl = true;
        bind(text(field(def, "name"), f), Binding::Dsl, TSNode{}, SIZE_MAX, ts_node_start_byte(top));
        if (is_program && is(def, "class_definition")) {
          entries_.push_back(program_decl(def, de[0]));
        } else if (!is_program && is(def, "function_definition")) {
          FuncDecl fd;
          fd.name = text(field(def, "name"), f);
          fd.def = def;
          fd.decorator = de[0];
          fd.kind = *k;
          fd.leading_comments = comments_between(prev_row, start_row);
          fd.module = this;
          top_functions_[fd.name] = fd;
          if (*k == DeclKind::Jit || *k == DeclKind::JitHost) {
            EntryDecl e;
            e.name = fd.name;
            e.node = def;
            e.decorator = de[0];
            entries_.push_back(e);
          }
        }
        break;
      }
      if (!dsl && is(def, "class_definition")) {
        scan_const_class(def, top);
        const std::string name = text(field(def, "name"), f);
        bind(name, Binding::Class, def, SIZE_MAX, ts_node_start_byte(top)).cls = classes_.at(name).get();
      }
      if (!dsl && is(def, "function_definition")) {  // @functools.cache and the like: still pure
        auto fn = std::make_unique<ConstFunction>();
        fn->name = text(field(def, "name"), f);
        fn->env = this;
        fn->def = def;
        bind(fn->name, Binding::Function, def, SIZE_MAX, ts_node_start_byte(top));
        functions_[fn->name] = std::move(fn);
      }
    }
    prev_row = ts_node_end_point(top).row;
    if (ts_node_end_point(top).column == 0 && prev_row > 0) --prev_row;
  }
  take_deferred(UINT32_MAX);
  keep_rebound();
  // A file without @pl.program / @pl.jit entries: its standalone functions (@pl.function,
  // @pl.jit.incore / .opaque) are the entries (each compiles to a program of it and its callees).
  if (entries_.empty()) {
    for (TSNode top : children(tree.root())) {
      if (!is(top, "decorated_definition") || !is(field(top, "definition"), "function_definition")) continue;
      std::string name = text(field(field(top, "definition"), "name"), f);
      const FuncDecl* fd = top_function(name);
      if (fd && (fd->kind == DeclKind::JitIncore || fd->kind == DeclKind::JitOpaque || fd->kind == DeclKind::Function))
        entries_.push_back(EntryDecl{name, false, fd->def, fd->decorator, {}});
    }
  }
}

std::vector<std::pair<std::string, ModuleInfo::Import>> ModuleInfo::imports_of(TSNode s) const {
  const auto& f = *file_;
  std::vector<std::pair<std::string, Import>> out;
  if (is(s, "import_statement")) {
    // import a.b        → binds `a` (the package; a.b reachable as an attribute)
    // import a.b as c   → binds `c` to a.b
    for (TSNode n : children(s)) {
      if (is(n, "aliased_import")) {
        out.emplace_back(text(field(n, "alias"), f), Import{text(field(n, "name"), f), 0, "", s});
      } else if (is(n, "dotted_name")) {
        std::string d = text(n, f);
        std::string root = d.substr(0, d.find('.'));
        out.emplace_back(root, Import{root, 0, "", s});
      }
    }
    return out;
  }
  // from [.]*a.b import x [as y], ... | from . import x | from a import *
  TSNode mod = field(s, "module_name");
  std::string module;
  int level = 0;
  if (is(mod, "relative_import")) {
    for (TSNode c : children(mod)) {
      if (is(c, "import_prefix")) level = int(text(c, f).size());
      else if (is(c, "dotted_name")) module = text(c, f);
    }
  } else {
    module = text(mod, f);
  }
  if (module == "__future__") return out;
  for (TSNode n : field_children(s, "name")) {
    if (is(n, "aliased_import"))
      out.emplace_back(text(field(n, "alias"), f), Import{module, level, text(field(n, "name"), f), s});
    else if (is(n, "dotted_name"))
      out.emplace_back(text(n, f), Import{module, level, text(n, f), s});
  }
  return out;
}

void ModuleInfo::scan_import(TSNode s) {
  for (auto& [name, imp] : imports_of(s)) {
    bind(name, Binding::Import, s, SIZE_MAX, ts_node_start_byte(s));
    imports_[name] = std::move(imp);
  }
}

void ModuleInfo::scan_const_class(TSNode cls, TSNode decorated) {
  const auto& f = *file_;
  auto c = std::make_unique<ConstClass>();
  c->name = text(field(cls, "name"), f);
  c->env = this;
  c->node = cls;
  if (!is_null(decorated))
    for (TSNode d : children(decorated)) {
      if (!is(d, "decorator") || children(d).empty()) continue;
      std::string n = deco_name(children(d)[0], f);
      if (n == "dataclass" || n == "dataclasses.dataclass") c->dataclass = true;
    }
  // Fields of a base class defined earlier in this module come first (dataclass inheritance).
  for (TSNode b : children(field(cls, "superclasses")))
    if (is(b, "identifier"))
      if (auto it = classes_.find(text(b, f)); it != classes_.end()) {
        const ConstClass& base = *it->second;
        c->fields = base.fields;
        c->methods = base.methods;
        c->properties = base.properties;
        c->class_vars = base.class_vars;
        c->dataclass = c->dataclass || base.dataclass;
      }
  for (TSNode m : children(field(cls, "body"))) {
    if (is(m, "expression_statement")) {
      auto e = children(m);
      if (e.size() != 1 || !is(e[0], "assignment")) continue;
      TSNode left = field(e[0], "left");
      if (!is(left, "identifier")) continue;
      std::string name = text(left, f);
      TSNode type = field(e[0], "type");
      if (!is_null(type) && text(type, f).find("ClassVar") == std::string::npos) {
        auto it = std::find_if(c->fields.begin(), c->fields.end(), [&](const auto& fd) { return fd.name == name; });
        TSNode dflt = field(e[0], "right");
        // field(default=X) keeps X; default_factory and other field() forms have no constant default.
        if (!is_null(dflt) && is(unparen(dflt), "call") &&
            (dotted_name(field(unparen(dflt), "function"), f) == "field" ||
             dotted_name(field(unparen(dflt), "function"), f) == "dataclasses.field")) {
          TSNode kept{};
          for (TSNode a : children(field(unparen(dflt), "arguments")))
            if (is(a, "keyword_argument") && text(field(a, "name"), f) == "default") kept = field(a, "value");
          dflt = kept;
        }
        if (it != c->fields.end()) it->default_value = dflt;
        else c->fields.push_back(ConstClass::Field{name, dflt});
      } else if (!is_null(field(e[0], "right"))) {
        c->class_vars[name] = field(e[0], "right");
      }
    } else if (is(m, "function_definition")) {
      c->methods[text(field(m, "name"), f)] = m;
    } else if (is(m, "decorated_definition") && is(field(m, "definition"), "function_definition")) {
      TSNode def = field(m, "definition");
      std::string name = text(field(def, "name"), f);
      bool prop = false, skip = false;
      for (TSNode d : children(m)) {
        if (!is(d, "decorator") || children(d).empty()) continue;
        std::string n = deco_name(children(d)[0], f);
        if (n == "property" || n == "functools.cached_property" || n == "cached_property") prop = true;
        if (n == "staticmethod" || n == "classmethod") skip = true;
      }
      if (skip) continue;
      c->methods[name] = def;
      if (prop) c->properties.insert(name);
    }
  }
  if (auto it = classes_.find(c->name); it != classes_.end()) replaced_classes_.push_back(std::move(it->second));
  classes_[c->name] = std::move(c);
}

bool same_dsl_function(const FuncDecl& a, const FuncDecl& b) {
  if (a.def.id != b.def.id) return false;
  if (a.closure == b.closure) return true;
  if (!a.closure || !b.closure || a.closure->size() != b.closure->size()) return false;
  for (auto i = a.closure->begin(), j = b.closure->begin(); i != a.closure->end(); ++i, ++j)
    if (i->first != j->first || !const_equal(i->second, j->second)) return false;
  return true;
}

std::optional<FuncDecl> ModuleInfo::dsl_function(const std::string& name, TSNode at) {
  if (const FuncDecl* d = top_function(name)) return *d;
  if (top_functions_.count(name) ||
      (!assigns_.count(name) && !tuple_assigns_.count(name) && !imports_.count(name) && !cond_defs_.count(name)))
    return std::nullopt;
  auto v = global(name, at);
  if (!v || !v->is_dsl_function()) return std::nullopt;
  return v->as_dsl_function().decl;
}

std::optional<FuncDecl> ModuleInfo::dsl_function_decl(TSNode decorated) {
  const auto& f = *file_;
  TSNode def = field(decorated, "definition");
  if (!is(def, "function_definition")) return std::nullopt;
  for (TSNode d : children(decorated)) {
    if (!is(d, "decorator") || children(d).empty()) continue;
    bool is_program = false;
    auto k = classify_decorator(children(d)[0], f, is_program);
    if (!k || is_program) continue;
    FuncDecl fd;
    fd.name = text(field(def, "name"), f);
    fd.def = def;
    fd.decorator = children(d)[0];
    fd.kind = *k;
    fd.module = this;
    return fd;
  }
  return std::nullopt;
}

EntryDecl ModuleInfo::program_decl(TSNode cls, TSNode decorator) {
  const auto& f = *file_;
  EntryDecl e;
  e.name = text(field(cls, "name"), f);
  e.is_program = true;
  e.node = cls;
  e.decorator = decorator;
  int64_t prev = ts_node_start_point(field(cls, "name")).row;
  for (TSNode m : children(field(cls, "body"))) {
    int64_t start_row = ts_node_start_point(m).row;
    if (is(m, "decorated_definition") && is(field(m, "definition"), "function_definition")) {
      for (TSNode d : children(m)) {
        if (!is(d, "decorator")) continue;
        auto de = children(d);
        if (de.empty() || deco_name(de[0], f) != "pl.function") continue;
        FuncDecl fd;
        fd.def = field(m, "definition");
        fd.name = text(field(fd.def, "name"), f);
        fd.decorator = de[0];
        fd.kind = DeclKind::Function;
        fd.leading_comments = comments_between(prev, start_row);
        fd.module = this;
        e.methods.push_back(fd);
        break;
      }
    }
    prev = ts_node_end_point(m).row;
  }
  return e;
}

bool ModuleInfo::defines_name(const std::string& name) const {
  return values_.count(name) || assigns_.count(name) || tuple_assigns_.count(name) || dyn_.count(name) ||
         imports_.count(name) || classes_.count(name) || functions_.count(name) || top_functions_.count(name) ||
         cond_defs_.count(name) || overrides_.count(name);
}

bool ModuleInfo::imports_dsl() const {
  for (const auto& [name, imp] : imports_)
    if (imp.module.rfind("pypto.language", 0) == 0 || (imp.module == "pypto" && imp.attr == "language")) return true;
  return false;
}

void ModuleInfo::check_imports(std::vector<ir::Diagnostic>& errors) {
  for (const auto& [name, imp] : imports_) {
    if (imp.level == 0 && (host_module(imp.module) || imp.module == "math" || imp.module == "dataclasses" ||
                           imp.module == "operator" || imp.module.rfind("pypto", 0) == 0))
      continue;
    try {
      ModuleInfo* target = load(imp);
      if (!imp.attr.empty() && !target->defines_name(imp.attr) && !target->module_binding(imp.attr, TSNode{}) &&
          !(target->module_name() == (imp.module.empty() ? imp.attr : imp.module + "." + imp.attr))) {
        std::vector<std::string> searched;
        std::string sub = imp.module.empty() ? imp.attr : imp.module + "." + imp.attr;
        if (!set_.import(sub, imp.level, *this, searched))
          throw ir::CompileError("E206", span_of(imp.node, file_),
                                 fmt::format("cannot import name '{}' from '{}'", imp.attr,
                                             std::string(size_t(imp.level), '.') + imp.module),
                                 fmt::format("{} defines no '{}'", target->file()->path, imp.attr));
      }
    } catch (const ir::CompileError& e) {
      for (const auto& d : e.diagnostics()) errors.push_back(d);
    }
  }
}

ModuleInfo* ModuleInfo::module_binding(const std::string& name, TSNode at) {
  auto it = imports_.find(name);
  if (it == imports_.end()) return nullptr;
  auto v = resolve_import(it->second, at);
  if (v && v->is_module()) return static_cast<ModuleInfo*>(std::get<ConstModuleRef>(v->v).env);
  return nullptr;
}

ir::VarPtr ModuleInfo::dynamic_dim(const std::string& py_name, const std::string& sym, const ir::Span& span) {
  if (auto it = dyn_.find(py_name); it != dyn_.end()) return it->second;
  auto v = ir::make_var(sym, ir::scalar_type(ir::DataType::INDEX), span);
  dyn_[py_name] = v;
  set_.dynamic_order().push_back(v);
  return v;
}

bool ModuleInfo::is_dynamic_symbol(const ir::ExprPtr& e) const {
  for (const auto& v : set_.dynamic_order())
    if (v == e) return true;
  return false;
}

ir::VarPtr ModuleInfo::dynamic_symbol(const std::string& sym, const ir::Span& span) {
  // One symbol per name and module, as an inline pl.dynamic("X") in a DSL body gets.
  return dynamic_dim(sym, sym, span);
}

const FuncDecl* ModuleInfo::top_function(const std::string& name) const {
  auto it = top_functions_.find(name);
  return it == top_functions_.end() ? nullptr : &it->second;
}

const FuncDecl* ModuleInfo::top_function(const std::string& name) {
  if (auto it = top_functions_.find(name); it != top_functions_.end()) return &it->second;
  auto it = imports_.find(name);
  if (it == imports_.end() || it->second.attr.empty()) return nullptr;
  const Import& imp = it->second;
  if (imp.level == 0 && (host_module(imp.module) || imp.module == "math" || imp.module == "dataclasses" ||
                         imp.module.rfind("pypto", 0) == 0))
    return nullptr;
  ModuleInfo* target = load(imp);
  return target->top_function(imp.attr);
}

std::vector<std::string> ModuleInfo::comments_between(int64_t first_row, int64_t last_row) const {
  // comments_ is in document order, i.e. sorted by row: binary search for the first one after
  // first_row (this runs once per statement, a linear scan made the front end quadratic).
  std::vector<std::string> out;
  auto it = std::upper_bound(comments_.begin(), comments_.end(), first_row,
                             [](int64_t row, const Comment& c) { return row < int64_t(c.row); });
  for (; it != comments_.end() && int64_t(it->row) < last_row; ++it) out.push_back(it->text);
  return out;
}


}  // namespace pypto::parser
