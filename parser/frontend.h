// Public API of the front end: read a PyPTO DSL .py file (parsed with tree-sitter, never executed)
// and build the IR Program of one entry (a @pl.program class or a @pl.jit function).
//
// Errors: every problem in the user's file is a located Diagnostic; parse_* collect as many as
// they can (per statement / per function) and throw ir::CompileError with all of them. Codes:
//   E000 unreadable / non-UTF-8 file    E002 syntax error          E001 unsupported statement
//   E003 invalid loop/assignment target E005 loop without pl.range E007 iter_arg / yield arity
//   E008 pl.yield_ / pl.cond misuse     E009 with-statement errors E010 entry selection
//   E011 break/continue placement       E100 missing annotation    E101 invalid annotation
//   E103 incomplete annotation          E104 annotation mismatch   E105 unknown dtype / layout
//   E106 non-BOOL condition             E200 undefined name        E201 rebinding / type conflict
//   E202 module constant not evaluable  E300 unknown op            E301 unsupported feature
//   E302 invalid arguments              E303 unsupported operator  E304 constant required
//   E305 static_assert / config assert failed  E206 module or imported name not found
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/function.h"

namespace pypto::parser {

struct FrontendOptions {
  std::string entry;                                         // --entry NAME ("" = the only entry)
  std::vector<std::pair<std::string, std::string>> defines;  // -D [MODULE.]NAME=VALUE (VALUE a Python expression)
  std::map<std::string, std::string> args;                   // --arg NAME=DTYPE[d0,...]: bare entry tensors
  std::map<std::string, std::string> scalars;                // --scalar NAME=VALUE|runtime: entry scalars
  std::map<std::string, std::string> factory_args;           // --factory-arg NAME=VALUE: a factory's arguments
  std::string specs;                                         // --specs FUNC ("" = build_tensor_specs / build_specs; "none" = off)
  std::vector<std::string> include_dirs;                     // -I DIR: where imported modules are searched
  std::vector<std::string>* files_read = nullptr;            // out: every source file read (for --depfile)
  // out: the values the file's spec function gives its ScalarSpec records (name -> the value as a
  // Python literal), read when the function is in the constant subset; what `pypto test` / `eval`
  // run a runtime scalar with when no --run-scalar gives one.
  std::map<std::string, std::string>* spec_scalars = nullptr;
};

// Parse a whole file; throws ir::CompileError with ALL errors found (recover per statement /
// per function where possible); warnings go to `sink`. Unreadable / non-UTF-8 files → CompileError too.
ir::ProgramPtr parse_file(const std::string& path, const FrontendOptions& opts, ir::DiagnosticSink& sink);
ir::ProgramPtr parse_source(ir::SourceFilePtr file, const FrontendOptions& opts, ir::DiagnosticSink& sink);
// A file checked as a module (one without entries, or before its entries are built): syntax,
// and every import of a module pypto reads resolves. Throws CompileError with all errors.
struct ModuleReport {
  std::vector<std::string> entries;
  // A @pl.jit entry called by name from another entry's body: callee -> the first such caller
  // (in file order). Checking the caller specialises the callee with the caller's argument types.
  std::map<std::string, std::string> called_by;
  size_t dsl_functions = 0;  // @pl.function / @pl.jit.* functions at module level
};
ModuleReport check_module(ir::SourceFilePtr file, const FrontendOptions& opts);
// Names of the entries in a file (@pl.program classes and @pl.jit functions), for --entry errors/listing.
std::vector<std::string> list_entries(ir::SourceFilePtr file);

}  // namespace pypto::parser
