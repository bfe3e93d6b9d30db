// Program mutators shared by the ctest robustness test (tests/cli/mutation_robustness_test.cpp)
// and the libFuzzer pipeline target (tests/fuzz/fuzz_pipeline.cpp). Both start from a valid DSL
// program and make one small edit at a time, so most mutants still reach the passes and the
// emitters instead of stopping at a syntax error:
//   mutate_lines    a line deleted or duplicated, a character deleted, a stray DSL token inserted
//   GrammarMutator  edits on the tree-sitter Python syntax tree: a subtree replaced by another of
//                   the same kind (from the program itself or from donor programs), a literal
//                   replaced by a boundary value, an op name replaced by another registered op,
//                   a dtype by another dtype, a statement deleted / duplicated / moved (re-indented
//                   to its new block), an argument or a shape element deleted / duplicated /
//                   swapped, a keyword argument added.
// Everything is driven by Rng (splitmix64), so a seed gives the same mutant on every machine.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pypto::fuzz {

// splitmix64: a small, fully specified generator.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return n ? size_t(next() % n) : 0; }
  bool chance(unsigned percent) { return below(100) < percent; }
};

// FNV-1a, so a seed derived from a file name is the same everywhere (std::hash is not).
uint64_t fnv1a(std::string_view s);

// One line-level edit of `text` (see above); `text` unchanged when it has no line.
std::string mutate_lines(const std::string& text, Rng& r);

class GrammarMutator {
 public:
  // `donors`: programs whose subtrees may replace subtrees of the mutated program (the test
  // programs); the op and dtype names come from the op registry and the DSL.
  explicit GrammarMutator(const std::vector<std::string>& donors);
  // One syntax-tree edit of `text`; a line-level edit when no tree edit applies (e.g. an empty
  // tree). The result may be longer than `text`.
  std::string mutate(const std::string& text, Rng& r) const;
  // Number of donor fragments (for the fuzz target's start-up line).
  size_t fragment_count() const;

 private:
  struct Fragment {
    std::string text;
    uint32_t column;  // column of the fragment's first byte in its program (for re-indentation)
  };
  std::map<std::string, std::vector<Fragment>, std::less<>> by_kind_;  // node kind -> donor subtrees
  std::vector<Fragment> statements_;                                    // donor statements (any kind)
  std::vector<std::string> op_names_;                                   // "pl.tile.add", "pl.add", ...
};

// The test programs' texts (every tests/programs/*.py), the donors both users pass.
std::vector<std::string> read_programs(const std::string& dir);

}  // namespace pypto::fuzz
