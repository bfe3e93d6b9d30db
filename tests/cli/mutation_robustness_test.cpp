// Bad input never crashes the tool: every program in tests/programs is mutated in deterministic
// ways (a line deleted or duplicated, a character deleted, a stray token inserted) and each
// mutant goes through the whole compiler in-process — front end, structural verification, pass
// pipeline, project rendering. The only acceptable outcomes are success or a CompileError with a
// located diagnostic; an InternalError (a verifier failure after a pass, an emitter invariant) or
// any other exception fails the test and prints the mutant.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "emit/project_writer.h"
#include "ir/verifier.h"
#include "parser/frontend.h"
#include "passes/pipeline.h"

namespace fs = std::filesystem;
using namespace pypto;

namespace {

// splitmix64: a small, fully specified generator (the mutants are the same on every machine).
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return n ? size_t(next() % n) : 0; }
};

// FNV-1a, so the seed derived from a file name is the same everywhere (std::hash is not).
uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  return lines;
}

std::string mutate(const std::string& text, uint64_t seed) {
  static const char* kTokens[] = {"pl.add(t, t)", "[", "(", ")", ":", "0", "-1", "pl.FP16", "pl.Mem.Acc",
                                  "x", "out", "pl.range(3)", "pl.yield_(x)", "1e9", "None", ", 7"};
  Rng r{seed};
  auto lines = split_lines(text);
  if (lines.empty()) return text;
  size_t i = r.below(lines.size());
  switch (r.below(4)) {
    case 0: lines.erase(lines.begin() + long(i)); break;
    case 1: lines.insert(lines.begin() + long(i), lines[r.below(lines.size())]); break;
    case 2:
      if (!lines[i].empty()) lines[i].erase(r.below(lines[i].size()), 1);
      break;
    default:
      lines[i].insert(r.below(lines[i].size() + 1), kTokens[r.below(std::size(kTokens))]);
      break;
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Runs the compiler on `text`; returns "" on success or a CompileError, else what went wrong.
std::string compile(const std::string& text) {
  try {
    ir::DiagnosticSink sink;
    auto file = std::make_shared<const ir::SourceFile>("mutant.py", text);
    auto prog = parser::parse_source(file, {}, sink);
    ir::DiagnosticSink vsink;
    if (!ir::verify(*prog, ir::structural_properties(), vsink)) return "";  // reported as user errors by the CLI
    passes::PassContext ctx;
    prog = passes::run_pipeline(prog, ctx);
    emit::render_project(*prog, emit::EmitOptions{}, (fs::path(PYPTO_TEST_WORK_DIR) / "out").string());
    return "";
  } catch (const ir::CompileError& e) {
    if (e.diagnostics().empty()) return "CompileError without a diagnostic";
    return "";
  } catch (const ir::InternalError& e) {
    return std::string("InternalError: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
}

}  // namespace

TEST_CASE("mutated programs compile or fail with a diagnostic, never an internal error", "[robustness]") {
  size_t runs = 0;
  for (const auto& entry : fs::directory_iterator(PYPTO_TEST_PROGRAMS)) {
    if (entry.path().extension() != ".py") continue;
    std::ifstream f(entry.path());
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    for (uint64_t seed = 1; seed <= 200; ++seed) {
      std::string mutant = mutate(text, seed * 1000003u + fnv1a(entry.path().filename().string()));
      std::string problem = compile(mutant);
      ++runs;
      INFO(entry.path().filename().string() << " seed " << seed << ":\n" << mutant);
      REQUIRE(problem == "");
    }
  }
  CHECK(runs >= 2000);
}
