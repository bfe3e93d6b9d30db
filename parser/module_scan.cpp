// Module scan: constants, dynamic symbols, imports, config classes and functions, DSL
// declarations and comments (see module_scan.h).
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

// Does the text of `n` read the environment, argv or files? (for the hint of a failed constant)
bool reads_environment(const std::string& t) {
  return t.find("sys.argv") != std::string::npos || t.find("os.environ") != std::string::npos ||
         t.find("getenv") != std::string::npos || t.find("open(") != std::string::npos;
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
      prev_row = d.last_row;
    }
  };
  for (TSNode top : children(tree.root())) {
    take_deferred(ts_node_start_byte(top));
    int64_t start_row = ts_node_start_point(top).row;
    if (is(top, "expression_statement")) {
      auto c = children(top);
      if (c.size() == 1 && is(c[0], "assignment")) {
        TSNode left = field(c[0], "left"), right = field(c[0], "right");
        if (is(left, "identifier") && !is_null(right) && !is(right, "assignment")) {
          std::string name = text(left, f);
          assigns_[name] = right;
          values_.erase(name);
          tuple_assigns_.erase(name);
          TSNode r = unparen(right);
          if (is(r, "call") && dotted_name(field(r, "function"), f) == "pl.dynamic") {
            auto args = children(field(r, "arguments"));
            std::string sym = name;
            if (!args.empty()) string_value(args[0], f, sym);
            dyn_.erase(name);
            dynamic_dim(name, sym, span_of(r, file_));
          }
        } else if ((is(left, "pattern_list") || is(left, "tuple_pattern")) && !is_null(right)) {
          auto names = children(left);
          for (size_t i = 0; i < names.size(); ++i)
            if (is(names[i], "identifier")) {
              std::string name = text(names[i], f);
              assigns_.erase(name);
              values_.erase(name);
              tuple_assigns_[name] = {right, i};
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
            }
    } else if (is(top, "class_definition")) {
      scan_const_class(top, TSNode{});
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
      if (!dsl && is(def, "class_definition")) scan_const_class(def, top);
      if (!dsl && is(def, "function_definition")) {  // @functools.cache and the like: still pure
        auto fn = std::make_unique<ConstFunction>();
        fn->name = text(field(def, "name"), f);
        fn->env = this;
        fn->def = def;
        functions_[fn->name] = std::move(fn);
      }
    }
    prev_row = ts_node_end_point(top).row;
    if (ts_node_end_point(top).column == 0 && prev_row > 0) --prev_row;
  }
  take_deferred(UINT32_MAX);
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

void ModuleInfo::apply_defines(const std::vector<std::pair<std::string, std::string>>& defines) {
  for (const auto& [name, value] : defines) {
    cli_text_[name] = value;
    cli_defined_.insert(name);
  }
}

void ModuleInfo::evaluate_defines() {
  for (const auto& [name, text] : cli_text_) cli_value(name);
}

ConstValue ModuleInfo::cli_value(const std::string& name) {
  if (auto it = cli_values_.find(name); it != cli_values_.end()) return it->second;
  // Evaluated in the module's scope, after every module ran, so they may refer to module
  // constants (in the value, `name` itself is the module's own value: -D N=N*2). A bare word that
  // names nothing (-D config.ACTIVE_VARIANT=pro) is taken as that string.
  const std::string& value = cli_text_.at(name);
  struct Guard {
    std::set<std::string>& s;
    std::string n;
    int& in_progress;
    ~Guard() {
      s.erase(n);
      --in_progress;
    }
  } guard{cli_evaluating_, name, set_.defines_in_progress};
  cli_evaluating_.insert(name);
  ++set_.defines_in_progress;
  ModuleSet::At when(set_, ModuleSet::after_all);
  auto lookup = [this](const std::string& n, TSNode at) { return global(n, at); };
  bool word = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  bool number = !value.empty() && (std::isdigit(static_cast<unsigned char>(value[0])) || value[0] == '-');
  ConstValue v = word && !number && value != "True" && value != "False" && value != "None" && !defines_name(value)
                     ? ConstValue{value}
                     : eval_expression_text(value, fmt::format("-D {}={}", name, value), lookup, this);
  return cli_values_[name] = v;
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
  for (auto& [name, imp] : imports_of(s)) imports_[name] = std::move(imp);
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

void ModuleInfo::not_constant(const std::string& name, TSNode at, TSNode def) {
  std::string def_text = text(def, *file_);
  // Calls of helpers of this module anywhere in the definition: look into their bodies too.
  std::vector<TSNode> stack{def};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    if (is(n, "identifier"))
      if (auto it = functions_.find(text(n, *file_)); it != functions_.end()) def_text += function_text(*it->second);
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) stack.push_back(ts_node_named_child(n, i));
  }
  const std::string qual = name_.empty() ? name : fmt::format("{}.{}", name_, name);
  const bool main = !set_.files_read().empty() && set_.files_read().front() == file_->path;
  const std::string dname = main ? name : qual;
  // A call whose body left the constant subset: where (the innermost statement).
  if (auto site = ConstEvaluator::non_constant_site(); site && !reads_environment(def_text)) {
    ir::Diagnostic d{ir::Severity::Error, "E202",
                     fmt::format("cannot evaluate {} at compile time: the function it calls leaves the constant "
                                 "subset pypto evaluates",
                                 name),
                     span_of(at, file_),
                     fmt::format("'{}' is defined at line {} of {}; a function run at compile time may assign "
                                 "constants, branch and loop over them and define DSL functions (-D {}=VALUE "
                                 "overrides a data value)",
                                 name, ts_node_start_point(def).row + 1, file_->path, dname),
                     {}};
    d.notes.emplace_back(*site, "this statement is outside the constant subset");
    throw ir::CompileError({d});
  }
  if (reads_environment(def_text))
    throw ir::CompileError("E202", span_of(at, file_),
                           fmt::format("cannot evaluate {} at compile time: its value comes from the command line or "
                                       "the environment; pass -D {}=VALUE",
                                       name, dname),
                           fmt::format("'{}' (line {} of {}) reads sys.argv / the environment, which pypto never "
                                       "evaluates; -D {}=VALUE sets it",
                                       name, ts_node_start_point(def).row + 1, file_->path, dname));
  throw ir::CompileError("E202", span_of(at, file_),
                         fmt::format("cannot evaluate {} at compile time; pass -D {}=VALUE", name, dname),
                         fmt::format("'{}' is defined at line {} of {} by an expression outside the constant subset "
                                     "pypto evaluates; override it on the command line",
                                     name, ts_node_start_point(def).row + 1, file_->path));
}

std::optional<ConstValue> ModuleInfo::global(const std::string& name, TSNode at) {
  // -D wins over everything; then the last `M.name = ...` of some module's top level before now.
  if (!cli_defined_.empty() && cli_defined_.count(name) && !cli_evaluating_.count(name)) return cli_value(name);
  // (A -D value that names its own variable, -D N=N*2, means the module's own definition.)
  if (!overrides_.empty() && !cli_evaluating_.count(name))
    if (Override* o = override_at(name)) return override_value(name, *o);
  if (auto it = values_.find(name); it != values_.end()) return it->second;
  if (auto it = dyn_.find(name); it != dyn_.end()) return ConstValue{it->second};
  // `at` may be a node of another file (a use through `C.name` or `from m import name`): errors
  // about this module's definitions point at the definition instead. (A deferred def of this file
  // is a tree of its own: CstTree::holds.)
  auto at_here = [&](TSNode def) { return ts_node_is_null(at) || !tree_->holds(at) ? def : at; };
  auto evaluate = [&](TSNode def) -> std::optional<ConstValue> {
    if (evaluating_.count(name))
      throw ir::CompileError("E202", span_of(at_here(def), file_),
                             fmt::format("'{}' is defined in terms of itself (a cycle of constants{})", name,
                                         set_.files_read().size() > 1 ? " or of imports" : ""),
                             "break the cycle: define the value in one module and import it elsewhere");
    evaluating_.insert(name);
    ConstEvaluator::clear_non_constant_site();
    std::optional<ConstValue> v;
    try {
      // Evaluated as the module ran it: at the time of its own statement.
      ModuleSet::At when(set_, seq_of(def));
      ConstEvaluator ev(file_, [this](const std::string& n, TSNode a) { return global(n, a); }, this);
      v = ev.try_eval(def);
    } catch (...) {
      evaluating_.erase(name);
      throw;
    }
    evaluating_.erase(name);
    return v;
  };
  // Evaluates the assignment `def` of `name` once. Its error is remembered (unless another
  // global of this module is being evaluated: a cycle's error depends on where it was entered).
  auto once = [&](TSNode def, auto&& eval) -> std::optional<ConstValue> {
    const ir::Span site = span_of(at_here(def), file_);
    if (auto it = failed_.find(name); it != failed_.end()) {
      const auto& diags = it->second.error.diagnostics();
      if (diags.empty() || diags[0].span != it->second.site || site == it->second.site) throw it->second.error;
      auto moved = diags;
      moved[0].span = site;
      throw ir::CompileError(std::move(moved));
    }
    try {
      return eval();
    } catch (const ir::CompileError& e) {
      if (evaluating_.empty()) failed_.insert_or_assign(name, Failure{e, site});
      throw;
    }
  };
  if (auto it = assigns_.find(name); it != assigns_.end()) {
    return once(it->second, [&]() -> std::optional<ConstValue> {
      auto v = evaluate(it->second);
      if (!v) not_constant(name, at_here(it->second), it->second);
      values_[name] = *v;
      return v;
    });
  }
  if (auto it = tuple_assigns_.find(name); it != tuple_assigns_.end()) {
    return once(it->second.first, [&]() -> std::optional<ConstValue> {
      auto [right, idx] = it->second;
      auto v = evaluate(right);
      auto items = v ? const_iterate(*v) : std::nullopt;
      if (!items) not_constant(name, at_here(right), right);
      if (idx >= items->size())
        throw ir::CompileError("E304", span_of(right, file_),
                               fmt::format("not enough values to unpack into '{}'", name));
      values_[name] = (*items)[idx];
      return values_[name];
    });
  }
  if (auto it = classes_.find(name); it != classes_.end()) return ConstValue{static_cast<const ConstClass*>(it->second.get())};
  if (auto it = functions_.find(name); it != functions_.end())
    return ConstValue{static_cast<const ConstFunction*>(it->second.get())};
  if (auto it = imports_.find(name); it != imports_.end()) {
    // What an import binds is fixed: the imported module's value of the name at the time of the
    // import statement. Resolved once (a failure is not kept: it is re-reported at each use
    // site; nor is a value found while a -D is evaluated, when a module's own value stands in).
    if (auto c = import_values_.find(name); c != import_values_.end()) return c->second;
    auto v = resolve_import(it->second, at);
    if (v && set_.defines_in_progress == 0) import_values_.emplace(name, *v);
    return v;
  }
  if (auto it = cond_defs_.find(name); it != cond_defs_.end()) {
    auto v = conditional_def(name, it->second);
    if (v) values_[name] = *v;
    return v;
  }
  return std::nullopt;
}

std::optional<ConstValue> ModuleInfo::conditional_def(const std::string& name, TSNode if_stmt) {
  if (evaluating_.count(name))
    throw ir::CompileError("E202", span_of(field(if_stmt, "condition"), file_),
                           fmt::format("the condition that selects the definition of '{}' depends on '{}' itself", name,
                                       name));
  struct Guard {
    std::set<std::string>& s;
    std::string n;
    ~Guard() { s.erase(n); }
  } guard{evaluating_, name};
  evaluating_.insert(name);
  ConstEvaluator ev(file_, [this](const std::string& n, TSNode a) { return global(n, a); }, this);
  auto taken = [&](TSNode cond) {
    auto v = ev.try_eval(cond);
    if (!v)
      throw ir::CompileError("E202", span_of(cond, file_),
                             fmt::format("cannot evaluate the condition that selects the definition of '{}' at "
                                         "compile time",
                                         name),
                             "a module-level `if` around DSL definitions must test constants (-D NAME=VALUE sets a "
                             "value the module reads from the command line or the environment)");
    return const_truthy(*v);
  };
  TSNode body{}, clause{};
  if (taken(field(if_stmt, "condition"))) {
    body = field(if_stmt, "consequence");
    clause = if_stmt;
  } else {
    for (TSNode alt : field_children(if_stmt, "alternative")) {
      if (is(alt, "elif_clause") && !taken(field(alt, "condition"))) continue;
      body = field(alt, is(alt, "elif_clause") ? "consequence" : "body");
      clause = alt;
      break;
    }
  }
  if (is_null(body)) return std::nullopt;
  int64_t prev_row = int64_t(ts_node_start_point(clause).row);  // comments after the clause's `if ...:` / `else:` line
  for (TSNode st : children(body)) {
    if (is(st, "decorated_definition"))
      if (auto fd = dsl_function_decl(st); fd && fd->name == name) {
        fd->leading_comments = comments_between(prev_row, int64_t(ts_node_start_point(st).row));
        return ConstValue{std::make_shared<const ConstDslFunction>(ConstDslFunction{std::move(*fd), false})};
      }
    prev_row = int64_t(ts_node_end_point(st).row);
  }
  return std::nullopt;  // the branch taken does not define it
}

ModuleInfo* ModuleInfo::load(const Import& imp) {
  std::vector<std::string> searched;
  ModuleInfo* m = set_.import(imp.module, imp.level, *this, searched);
  if (m) return m;
  // `from . import kernels` / `from pkg import sub`: the member may be a submodule.
  if (!imp.attr.empty()) {
    std::string sub = imp.module.empty() ? imp.attr : imp.module + "." + imp.attr;
    if (ModuleInfo* s = set_.import(sub, imp.level, *this, searched)) return s;
  }
  std::string where;
  for (size_t i = 0; i < searched.size() && i < 6; ++i) where += (i ? ", " : "") + searched[i];
  const std::string spelled = std::string(size_t(imp.level), '.') + imp.module;
  throw ir::CompileError("E206", span_of(imp.node, file_), fmt::format("cannot find module '{}'", spelled),
                         fmt::format("looked for {}; add the directory that holds it with -I DIR", where));
}

std::optional<ConstValue> ModuleInfo::resolve_import(const Import& imp, TSNode at) {
  const std::string& m = imp.module;
  if (imp.level == 0) {
    if (m == "pypto.language" && imp.attr.empty()) return ConstValue{ConstBuiltin{"pl"}};
    if (m == "pypto" && imp.attr == "language") return ConstValue{ConstBuiltin{"pl"}};
    if (m == "math" || m == "dataclasses" || m == "operator")
      return imp.attr.empty() ? ConstValue{ConstBuiltin{m}} : ConstValue{ConstBuiltin{m + "." + imp.attr}};
    if (host_module(m)) return std::nullopt;
  }
  ModuleInfo* target = load(imp);
  if (imp.attr.empty()) return ConstValue{ConstModuleRef{target}};
  // `from pkg import sub` where sub is a module file and not a name in pkg/__init__.py.
  if (!target->defines_name(imp.attr) && target->module_name() != imp.module + "." + imp.attr &&
      !(imp.module.empty() && target->module_name() == imp.attr)) {
    std::vector<std::string> searched;
    std::string sub = imp.module.empty() ? imp.attr : imp.module + "." + imp.attr;
    if (ModuleInfo* s = set_.import(sub, imp.level, *this, searched)) return ConstValue{ConstModuleRef{s}};
  }
  if (target->module_name() == (imp.module.empty() ? imp.attr : imp.module + "." + imp.attr))
    return ConstValue{ConstModuleRef{target}};
  // `from m import name` binds the value m's name has when the import statement runs.
  std::optional<ConstValue> v;
  {
    ModuleSet::At when(set_, seq_of(imp.node));
    v = target->global(imp.attr, at);
  }
  if (!v && !target->defines_name(imp.attr))
    throw ir::CompileError("E206", span_of(imp.node, file_),
                           fmt::format("cannot import name '{}' from '{}'", imp.attr,
                                       std::string(size_t(imp.level), '.') + imp.module),
                           fmt::format("{} defines no '{}'", target->file()->path, imp.attr));
  return v;
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
