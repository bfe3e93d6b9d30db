// The modules of one compilation: the file given on the command line and every module it imports,
// each read, syntax-checked and scanned once. Absolute imports are searched in the importing
// file's directory, then the main file's directory (Python's sys.path[0]), then the -I
// directories; relative imports (`from .kernels import x`) in the importing file's package.
// Keeps the list of every source file read (for --depfile) and the program-wide order of
// `pl.dynamic` symbols.
// Modules run in Python's order when first imported (ModuleInfo::execute): every top-level
// statement gets a program-wide sequence number, and a module global is looked up "at" a time —
// the number of the module-level statement being evaluated, or after_all (DSL bodies, entry
// signatures: everything traced after the imports ran) — so that `config.TP = 2` before
// `from rope import ...` changes what rope sees but not what config computed from its own TP.
#pragma once

#include <cstdint>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/diagnostic.h"
#include "parser/module_scan.h"
#include "parser/syntax_check.h"

namespace pypto::parser {

// Reads a source file: CompileError E000 when it cannot be read or is not UTF-8.
ir::SourceFilePtr read_source(const std::string& path);

class ModuleSet {
 public:
  using Defines = std::vector<std::pair<std::string, std::string>>;
  // `defines`: -D NAME=VALUE for the main module, -D MODULE.NAME=VALUE for an imported one.
  // `run`: run modules in order as they load (ModuleInfo::execute); without it modules load only
  // when needed and no `M.NAME = ...` assignment is recorded (enough to list entries or check
  // that imports resolve). Either way load_main reads the files its import lines name ahead and
  // hands them to the parse-ahead pool (parse_cache.h).
  ModuleSet(std::vector<std::string> search_dirs, Defines defines, bool run = true);
  ~ModuleSet();
  ModuleSet(const ModuleSet&) = delete;
  ModuleSet& operator=(const ModuleSet&) = delete;

  // The main module (throws CompileError on syntax errors).
  ModuleInfo& load_main(ir::SourceFilePtr file);
  // Resolves `import a.b` / `from ..a.b import c` as seen from `from`. nullptr when no file is
  // found; `searched` then lists where it looked. Throws CompileError for a module that is found
  // but has syntax errors.
  ModuleInfo* import(const std::string& dotted, int level, const ModuleInfo& from, std::vector<std::string>& searched);
  // Every file read so far, main file first, in reading order.
  const std::vector<std::string>& files_read() const { return files_read_; }
  std::vector<ir::VarPtr>& dynamic_order() { return dyn_order_; }
  // -D overrides that named a module no import reached (for a warning).
  std::vector<std::string> unused_module_defines() const;

  static constexpr uint64_t after_all = UINT64_MAX;
  uint64_t next_seq() { return ++seq_; }
  // The time of the lookup being made (after_all outside module-level statements).
  uint64_t now() const { return now_; }
  // Sets now() for its lifetime.
  class At {
   public:
    At(ModuleSet& s, uint64_t t) : s_(s), saved_(s.now_) { s.now_ = t; }
    ~At() { s_.now_ = saved_; }
    At(const At&) = delete;
    At& operator=(const At&) = delete;

   private:
    ModuleSet& s_;
    uint64_t saved_;
  };
  // Bounds the chain of module constants being evaluated, each needing the next (`X = X + 1` a
  // thousand times, or as many names each defined by the one before): a diagnostic, not a stack
  // overflow (a level takes a few KiB of stack). Held while one global is evaluated.
  static constexpr int kMaxConstantChain = 500;
  class Chain {
   public:
    Chain(ModuleSet& s, const ir::Span& site, const std::string& name);
    ~Chain() { --s_.chain_; }
    Chain(const Chain&) = delete;
    Chain& operator=(const Chain&) = delete;

   private:
    ModuleSet& s_;
  };
  // -D values being evaluated (ModuleInfo::cli_value). While one is, the module's own value of
  // that name stands in for it, so a lookup's result then is not final (and is not cached).
  int defines_in_progress = 0;
  // Warnings found while loading (W013: assignments to module globals pypto does not follow).
  std::vector<ir::Diagnostic>& warnings() { return warnings_; }

 private:
  struct Loaded;
  ModuleInfo& add(ir::SourceFilePtr file, const std::string& name, const std::string& dir, const std::string& key);
  struct Located {
    std::string path, dir, key;  // the file as found, its directory, its canonical path (the module's identity)
  };
  // The file `import dotted` (with `level` leading dots) names as seen from a module in `from_dir`;
  // `searched` (when given) collects every candidate looked at.
  std::optional<Located> locate(const std::string& dotted, int level, const std::string& from_dir,
                                std::vector<std::string>* searched) const;
  // Reads, and queues for the parse-ahead pool, every file the top-level import lines of `file`
  // (in `dir`) may name, transitively (parse_cache.h).
  void read_ahead(const ir::SourceFile& file, const std::string& dir);
  std::vector<std::string> search_dirs_;
  Defines defines_;
  std::vector<std::unique_ptr<Loaded>> mods_;
  std::map<std::string, ModuleInfo*> by_path_;
  std::map<std::string, ir::SourceFilePtr> read_ahead_;  // canonical path → the file read_ahead read
  std::map<std::string, ModuleInfo*> found_;  // "level|from dir|dotted" → the module import() found
  std::map<const ModuleInfo*, std::string> dir_of_;
  std::string main_dir_;
  std::vector<std::string> files_read_;
  std::vector<ir::VarPtr> dyn_order_;
  std::set<std::string> used_module_defines_;
  bool run_ = true;
  int running_ = 0;  // modules being run (nested imports)
  std::vector<std::pair<ModuleInfo*, Defines>> pending_defines_;
  uint64_t seq_ = 0;
  uint64_t now_ = after_all;
  int chain_ = 0;  // globals being evaluated (Chain)
  std::vector<ir::Diagnostic> warnings_;
};

}  // namespace pypto::parser
